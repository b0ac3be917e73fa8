/* dmlops bench: runs the standard suite (cases.c) on one backend, each case beside its
 * ceilings (baselines.c) and its peers (peers.c), timed as timing.c says, and writes what
 * output.c, report.c and svg.c make of it. --model (access_model.c) and --peak (peaks.c)
 * answer other questions and exit. bench.h lists the files. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

typedef struct bench_opts {
    bool quick, large, scaling, list, model;
    const char *filter, *csv, *svg, *report, *numpy_peer, *torch_peer, *peak, *tuning;
    uint32_t iterations; /* 0: the policy's */
    dmlops_context_desc desc;
} bench_opts;

/* The timing policy (bench.h, timing.c). The Vulkan figures are issue 40's: 300 ms of
 * continuous work before each case, lists of at least 2 ms; a quick run keeps the method
 * at a tenth of the cost (a smoke test, not a measurement). */
static bench_policy policy(bool quick)
{
    if (quick) return (bench_policy){3, 10, 0.005, 0.02, 0.0005, 3, 8, true};
    return (bench_policy){3, 50, 0.25, 0.3, 0.002, 7, 256, false};
}

static void describe_run(bench_run *run, int argc, char **argv)
{
    const dmlops_device_info *d = &run->ctx.device;
    snprintf(run->backend, sizeof run->backend, "%s", run->ctx.backend == DMLOPS_BACKEND_CPU ? "cpu" : "vulkan");
    if (run->ctx.backend == DMLOPS_BACKEND_CPU) {
        snprintf(run->device, sizeof run->device, "CPU backend");
        snprintf(run->driver, sizeof run->driver, "libdmlops %s CPU backend, %u threads", dmlops_version_string(),
                 run->ctx.cpu_threads);
    } else {
        char ver[32];
        cli_driver_version(d, ver, sizeof ver);
        snprintf(run->device, sizeof run->device, "%s", d->name);
        snprintf(run->driver, sizeof run->driver, "%s%s%s, version %s", d->driver_name[0] ? d->driver_name : "unnamed",
                 d->driver_info[0] ? " - " : "", d->driver_info, ver);
    }
    size_t n = 0;
    for (const char *p = run->device; *p && n + 1 < sizeof run->slug; p++) {
        char ch = *p;
        if (ch >= 'A' && ch <= 'Z') ch = (char)(ch - 'A' + 'a');
        bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (alnum) run->slug[n++] = ch;
        else if (n && run->slug[n - 1] != '-') run->slug[n++] = '-';
    }
    while (n && run->slug[n - 1] == '-') n--;
    run->slug[n] = '\0';
    if (!n) snprintf(run->slug, sizeof run->slug, "device");

    snprintf(run->cpu, sizeof run->cpu, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        unsigned threads = 0;
        bool named = false;
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "processor", 9)) threads++;
            char *colon = strchr(line, ':');
            if (!named && colon && (!strncmp(line, "model name", 10) || !strncmp(line, "Hardware", 8))) {
                colon += 1 + (colon[1] == ' ');
                colon[strcspn(colon, "\n")] = '\0';
                snprintf(run->cpu, sizeof run->cpu, "%s", colon);
                named = true;
            }
        }
        fclose(f);
        size_t l = strlen(run->cpu);
        if (threads) snprintf(run->cpu + l, sizeof run->cpu - l, " (%u threads)", threads);
    }
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(run->date, sizeof run->date, "%Y-%m-%d %H:%M UTC", &tm);

    /* `make bench` says so in the environment; name it rather than its long command. */
    const char *target = getenv("DMLOPS_BENCH_TARGET");
    if (target && *target) {
        snprintf(run->command, sizeof run->command, "%s", target);
        return;
    }
    n = (size_t)snprintf(run->command, sizeof run->command, "dmlops");
    for (int i = 0; i < argc && n < sizeof run->command; i++)
        n += (size_t)snprintf(run->command + n, sizeof run->command - n, " %s", argv[i]);
}

static const char usage[] =
    "usage: dmlops bench [--quick] [--large] [--filter SUBSTR] [--iterations N] [--csv FILE] [--svg FILE]\n"
    "                    [--report DIR] [--numpy-peer COMMAND] [--torch-peer COMMAND] [--no-scaling] [--list]\n"
    "                    [--tuning FILE] [--backend auto|vulkan|cpu] [--device D] [--feature-level L]\n"
    "       dmlops bench --model [--backend vulkan] [--device D] [--filter SUBSTR] [--csv FILE]\n"
    "       dmlops bench --peak all|DEVICE-NAME\n";

/* A file (or, for --report, a folder) we will write at the end must be writable now, so a
 * bad path fails before minutes of measuring: an existing file is opened for writing
 * without truncating it, a new one is created and removed again, an existing folder takes
 * a probe file, a new one is made and removed. Nothing is left behind. */
static bool writable_path(const char *what, const char *path, bool is_dir)
{
    struct stat st;
    char probe[4200];
    const bool exists = stat(path, &st) == 0;
    if (exists && is_dir != !!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "dmlops bench: %s %s: %s\n", what, path, is_dir ? "is not a folder" : "is a folder");
        return false;
    }
    const char *failed; /* what could not be done, when ok is false */
    bool ok;
    int fd = -1;
    if (is_dir && exists) {
        failed = "cannot create files in it";
        snprintf(probe, sizeof probe, "%s/.dmlops-probe-XXXXXX", path);
        if ((ok = (fd = mkstemp(probe)) >= 0)) unlink(probe);
    } else if (is_dir) {
        failed = "cannot be created";
        ok = mkdir(path, 0777) == 0 && rmdir(path) == 0;
    } else {
        failed = "cannot be written";
        fd = open(path, exists ? O_WRONLY : O_WRONLY | O_CREAT | O_EXCL, 0666);
        if ((ok = fd >= 0) && !exists) unlink(path);
    }
    const int err = errno;
    if (fd >= 0) close(fd);
    if (!ok) fprintf(stderr, "dmlops bench: %s %s: %s: %s\n", what, path, failed, strerror(err));
    return ok;
}

static int parse_opts(int argc, char **argv, bench_opts *o)
{
    o->scaling = true;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r = cli_context_opt(argc, argv, &i, &o->desc);
        if (r == 0 && (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))) {
            fputs(usage, stdout);
            return -1;
        }
        bool *flag = r ? NULL
                     : !strcmp(argv[i], "--quick")      ? &o->quick
                     : !strcmp(argv[i], "--large")      ? &o->large
                     : !strcmp(argv[i], "--list")       ? &o->list
                     : !strcmp(argv[i], "--model")      ? &o->model
                                                        : NULL;
        if (flag) {
            *flag = true;
            r = 1;
        }
        if (r == 0 && !strcmp(argv[i], "--no-scaling")) {
            o->scaling = false;
            r = 1;
        }
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--filter", &v)) > 0) o->filter = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--csv", &v)) > 0) o->csv = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--svg", &v)) > 0) o->svg = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--report", &v)) > 0) o->report = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--numpy-peer", &v)) > 0) o->numpy_peer = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--torch-peer", &v)) > 0) o->torch_peer = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--peak", &v)) > 0) o->peak = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--tuning", &v)) > 0) o->tuning = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--iterations", &v)) > 0) {
            uint64_t n;
            if (!cli_parse_u64(v, &n) || n < 1 || n > 100000) {
                fprintf(stderr, "dmlops bench: --iterations %s: expected a count from 1 to 100000\n", v);
                return CLI_USAGE;
            }
            o->iterations = (uint32_t)n;
        }
        if (r < 0) return CLI_USAGE;
        if (r == 0) {
            cli_error("dmlops bench: unknown argument '%s' (dmlops bench --help lists the options)", argv[i]);
            return CLI_USAGE;
        }
    }
    if (o->model && (o->svg || o->report || o->numpy_peer || o->torch_peer || o->quick || o->large || o->list || o->tuning)) {
        cli_error("dmlops bench: --model takes --filter, --csv and the context options only");
        return CLI_USAGE;
    }
    if ((o->csv && !writable_path("--csv", o->csv, false)) || (o->svg && !writable_path("--svg", o->svg, false)) ||
        (o->report && !writable_path("--report", o->report, true)))
        return CLI_USAGE;
    return CLI_OK;
}

/* The run's context, and with --tuning a second one that runs the file's configurations
 * (run->tuned), on the same device; the first runs without tuning whatever the
 * environment says, so that the two columns are the defaults and the file. The tuning
 * options go through the environment (docs/api.md, "Tuning"), read at context creation. */
static int tuning_contexts(const bench_opts *o, dmlops_context **ctx, bench_run *run)
{
    if (!o->tuning) return cli_context_create(&o->desc, ctx);
    const char *names[2] = {"DMLOPS_TUNING", "DMLOPS_TUNING_FILE"};
    char *kept[2];
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(names[i]);
        kept[i] = v ? strdup(v) : NULL;
    }
    setenv("DMLOPS_TUNING", "off", 1);
    int rc = cli_context_create(&o->desc, ctx);
    dmlops_context_info info;
    if (rc == CLI_OK) dmlops_context_get_info(*ctx, &info);
    if (rc == CLI_OK && info.backend != DMLOPS_BACKEND_VULKAN) {
        printf("note: --tuning ignored: the CPU backend has no tuning knobs\n");
    } else if (rc == CLI_OK) {
        dmlops_context_desc d = o->desc;
        d.backend = DMLOPS_BACKEND_VULKAN;
        d.device = info.device.uuid_string; /* the same device */
        setenv("DMLOPS_TUNING", "file", 1);
        setenv("DMLOPS_TUNING_FILE", o->tuning, 1);
        rc = cli_context_create(&d, &run->tuned);
        run->tuning_file = o->tuning;
    }
    for (int i = 0; i < 2; i++) {
        if (kept[i]) setenv(names[i], kept[i], 1);
        else unsetenv(names[i]);
        free(kept[i]);
    }
    if (rc != CLI_OK) {
        dmlops_context_destroy(*ctx);
        *ctx = NULL;
    }
    return rc;
}

static void list_cases(const bench_case *cases, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const bench_case *c = &cases[i];
        const bench_sectors s = bench_case_sectors(c);
        printf("%-48s [%u, %u]  %s%s; 32-byte sectors: %llu read, %llu written\n", c->label, c->rows, c->cols,
               c->fam->about, bench_case_is_headline(c) ? " (headline)" : "", (unsigned long long)s.read,
               (unsigned long long)s.written);
    }
}

/* The sweep for a case's size: one already made, else a new one (Vulkan). */
static const bench_sweep *sweep_for(dmlops_context *ctx, bench_run *run, const bench_case *c, size_t cap)
{
    for (size_t i = 0; i < run->nsweeps; i++)
        if (run->sweeps[i].tensor_bytes == c->tensor_bytes) return &run->sweeps[i];
    if (!run->sweeps || run->nsweeps >= cap) return NULL;
    bench_sweep *s = &run->sweeps[run->nsweeps++];
    bench_sweep_copies(ctx, run, c->tensor_bytes, s);
    if (s->failed[0]) fprintf(stderr, "dmlops bench: the copy sweep for %s cases: %s\n", c->label, s->failed);
    return s;
}

static void print_memory(const bench_run *run)
{
    const bench_memory *m = &run->mem;
    if (m->peak)
        printf("peak: %.1f GB/s, the memory of %s (the table of known devices: %s)\n", m->peak->gbps, m->peak->name,
               m->peak->source);
    else
        printf("peak: unknown: %s is not in the table of known devices (dmlops bench --peak all), so no peak column\n",
               run->device);
    printf("last-level cache: %s; buffer sets rotate while a case's footprint is under 3x that\n", m->llc_from);
}

int cmd_bench(int argc, char **argv)
{
    bench_opts o = {0};
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc < 0 ? CLI_OK : rc;
    if (o.peak) return bench_print_peaks(strcasecmp(o.peak, "all") ? o.peak : NULL);
    if (o.model) return bench_model(&o.desc, o.filter, o.csv);
    size_t count = 0;
    bench_case *cases = bench_suite(o.quick, o.large, o.filter, &count);
    if (!cases) return CLI_FAIL;
    if (o.list) {
        list_cases(cases, count);
        free(cases);
        return CLI_OK;
    }
    bool want_overhead = !o.filter || strcasestr("overhead", o.filter);
    if (!count && !want_overhead) {
        fprintf(stderr, "dmlops bench: no case matches --filter '%s'\n", o.filter);
        free(cases);
        return CLI_USAGE;
    }
    bench_run run = {.quick = o.quick, .count = count, .pol = policy(o.quick)};
    run.results = calloc(count ? count : 1, sizeof *run.results);
    run.sweeps = calloc(count ? count : 1, sizeof *run.sweeps);
    dmlops_context *ctx = NULL;
    if (!run.results || !run.sweeps || (rc = tuning_contexts(&o, &ctx, &run)) != CLI_OK) {
        const bool allocated = run.results && run.sweeps;
        free(run.results);
        free(run.sweeps);
        free(cases);
        return allocated ? rc : CLI_FAIL;
    }
    dmlops_context_get_info(ctx, &run.ctx);
    describe_run(&run, argc, argv);
    const bool vulkan = bench_is_vulkan(&run);
    printf("dmlops bench on %s (%s), %s backend%s\n", run.device, run.driver, run.backend,
           o.quick ? ", quick suite" : "");
    char note[sizeof run.ctx.note + 64];
    if (run.ctx.note[0]) printf("note: %s\n", cli_as_typed(run.ctx.note, note, sizeof note));
    if (run.tuned) {
        dmlops_context_info ti;
        dmlops_context_get_info(run.tuned, &ti);
        printf("tuned: %s\n", cli_as_typed(ti.note, note, sizeof note));
    }
    if (vulkan) {
        bench_memory_init(&run.ctx, &run.mem);
        print_memory(&run);
    }
    fflush(stdout);

    bool progress = cli_progress_enabled();
    host_mem h = {0};
    double t0 = cli_now();
    for (size_t i = 0; i < count; i++) {
        if (progress) fprintf(stderr, "\r\033[K[%zu/%zu %.0fs] %s", i + 1, count, cli_now() - t0, cases[i].label);
        const bench_sweep *sweep = vulkan ? sweep_for(ctx, &run, &cases[i], count) : NULL;
        bench_run_case(ctx, &run, &cases[i], sweep, o.iterations, &h, &run.results[i]);
    }
    if (want_overhead) {
        if (progress) fprintf(stderr, "\r\033[K[overhead] %u small operators", BENCH_OVERHEAD_OPS);
        bench_run_overhead(ctx, vulkan, &run.overhead);
    }
    dmlops_context_destroy(ctx);
    dmlops_context_destroy(run.tuned);
    run.tuned = NULL;
    if (want_overhead && vulkan) {
        if (progress) fprintf(stderr, "\r\033[K[overhead] operator creation");
        dmlops_context_desc d = o.desc;
        d.backend = DMLOPS_BACKEND_VULKAN;
        if (!d.device) d.device = run.ctx.device.uuid_string; /* the run's device */
        bench_run_creation(&d, &run.creation);
    }
    if (o.scaling && !o.quick && run.ctx.backend == DMLOPS_BACKEND_CPU) {
        if (progress) fprintf(stderr, "\r\033[K[scaling] threads");
        bench_run_scaling(&run, cases, count, o.iterations, &h);
    }
    if (progress) fprintf(stderr, "\r\033[K");
    bench_host_free(&h);
    /* The peers run once the device is idle: they time themselves on the same machine. */
    if (o.numpy_peer && count) bench_run_numpy_peer(o.numpy_peer, &run, cases, count);
    bench_run_torch_peer(o.torch_peer, &run, cases, count);

    bench_print_table(&run, stdout);
    bool ok = true;
    if (o.csv) ok = bench_write_csv(&run, o.csv) && ok;
    if (o.svg) ok = bench_write_svg(&run, o.svg) && ok;
    if (o.report) ok = bench_write_report(&run, o.report) && ok;
    free(run.results);
    free(run.scaling);
    free(run.sweeps);
    free(cases);
    return ok ? CLI_OK : CLI_FAIL;
}
