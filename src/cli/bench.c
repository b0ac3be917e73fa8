/* dmlops bench: the standard suite. Each case runs its operator alone in a command list
 * and is timed with GPU timestamps (wall time where the device has none), next to a
 * vkCmdCopyBuffer moving the same bytes (the copy roofline) and a host memcpy. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bench.h"
#include "scalar.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)

typedef struct variant {
    DML_OPERATOR_TYPE op;
    const char *name;
    int param; /* REVERSE: 0 inner axis, 1 outer; SLICE1: inner stride; ONE_HOT: depth */
} variant;

static const variant variants[] = {
    {DML_OPERATOR_REVERSE_SUBSEQUENCES, "axis=inner", 0},
    {DML_OPERATOR_REVERSE_SUBSEQUENCES, "axis=outer", 1},
    {DML_OPERATOR_SLICE1, "stride=1", 1},
    {DML_OPERATOR_SLICE1, "stride=2", 2},
    {DML_OPERATOR_SLICE1, "stride=-1", -1},
    {DML_OPERATOR_ONE_HOT, "depth=16", 16},
    {DML_OPERATOR_ONE_HOT, "depth=1024", 1024},
};
static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT32,
                                             DML_TENSOR_DATA_TYPE_FLOAT64};
/* Powers of 16 from a page to 256 MiB. Only 4-byte elements go past 16 MiB: on a software
 * device such as lavapipe one 256 MiB kernel run can take a minute, and the full suite
 * must stay within minutes there. */
static const uint64_t full_sizes[] = {4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB, 256 * MiB};
#define ALL_TYPES_UP_TO (16 * MiB)
static const uint64_t quick_sizes[] = {4 * KiB, 64 * KiB};

#define VARIANT_COUNT (sizeof variants / sizeof variants[0])
#define TYPE_COUNT (sizeof types / sizeof types[0])
#define OVERHEAD_OPS 1000u

typedef struct bench_opts {
    bool quick;
    const char *filter, *csv, *svg, *report;
    uint32_t iterations; /* 0: as many as fit the time budget */
    dmlops_context_desc desc;
} bench_opts;

/* Timing policy: at least min_iters runs, at most max_iters, stopping near budget_s. */
typedef struct bench_policy {
    uint32_t min_iters, max_iters;
    double budget_s;
} bench_policy;

/* A case's operator descriptor with the arrays it points to. */
typedef struct case_desc {
    const variant *v;
    uint32_t ninputs, seq, depth; /* seq: REVERSE sequence length */
    uint32_t sizes[3][2];
    DML_BUFFER_TENSOR_DESC bt[3];
    DML_TENSOR_DESC td[3];
    uint32_t offsets[2], window[2];
    int32_t strides[2];
    union {
        DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev;
        DML_SLICE1_OPERATOR_DESC slice;
        DML_ONE_HOT_OPERATOR_DESC hot;
    } u;
    DML_OPERATOR_DESC desc;
} case_desc;

static uint32_t min_u32(uint64_t a, uint32_t b)
{
    return a < b ? (uint32_t)a : b;
}

static void set2(uint32_t *s, uint64_t a, uint64_t b)
{
    s[0] = (uint32_t)a;
    s[1] = (uint32_t)b;
}

/* 2-D shapes: rows of up to 1024 elements for the inner-axis cases, 64 rows for the
 * outer axis. False when the size is too small for the case (ONE_HOT deeper than the
 * tensor). */
static bool build_case(const variant *v, DML_TENSOR_DATA_TYPE type, uint64_t tensor_bytes, case_desc *c)
{
    uint64_t n = tensor_bytes / dmlops_data_type_size(type);
    DML_TENSOR_DATA_TYPE tt[3] = {type, type, type};
    memset(c, 0, sizeof *c);
    c->v = v;
    if (v->op == DML_OPERATOR_REVERSE_SUBSEQUENCES) {
        c->ninputs = 2;
        tt[1] = DML_TENSOR_DATA_TYPE_UINT32;
        c->seq = min_u32(n, v->param == 0 ? 1024 : 64);
        uint64_t other = n / c->seq;
        if (v->param == 0) {
            set2(c->sizes[0], other, c->seq);
            set2(c->sizes[1], other, 1);
        } else {
            set2(c->sizes[0], c->seq, other);
            set2(c->sizes[1], 1, other);
        }
        memcpy(c->sizes[2], c->sizes[0], sizeof c->sizes[0]);
    } else if (v->op == DML_OPERATOR_SLICE1) {
        c->ninputs = 1;
        uint32_t w = min_u32(n, 1024), step = (uint32_t)abs(v->param);
        set2(c->sizes[0], n / w, w);
        set2(c->sizes[1], n / w, (w + step - 1) / step);
        set2(c->window, n / w, w);
        c->strides[0] = 1;
        c->strides[1] = v->param;
    } else {
        c->ninputs = 2;
        c->depth = (uint32_t)v->param;
        if (n < c->depth) return false;
        tt[0] = DML_TENSOR_DATA_TYPE_UINT32;
        set2(c->sizes[0], n / c->depth, 1);
        set2(c->sizes[1], 1, 2);
        set2(c->sizes[2], n / c->depth, c->depth);
    }
    const DML_TENSOR_DESC *d[3];
    for (uint32_t i = 0; i <= c->ninputs; i++) {
        c->bt[i] = (DML_BUFFER_TENSOR_DESC){tt[i], DML_TENSOR_FLAG_NONE, 2, c->sizes[i], NULL,
                                            dmlops_calc_buffer_tensor_size(tt[i], 2, c->sizes[i], NULL), 0};
        c->td[i] = (DML_TENSOR_DESC){DML_TENSOR_TYPE_BUFFER, &c->bt[i]};
        d[i] = &c->td[i];
    }
    if (v->op == DML_OPERATOR_REVERSE_SUBSEQUENCES)
        c->u.rev = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){d[0], d[1], d[2], v->param == 0 ? 1u : 0u};
    else if (v->op == DML_OPERATOR_SLICE1)
        c->u.slice = (DML_SLICE1_OPERATOR_DESC){d[0], d[1], 2, c->offsets, c->window, c->strides};
    else
        c->u.hot = (DML_ONE_HOT_OPERATOR_DESC){d[0], d[1], d[2], 1};
    c->desc = (DML_OPERATOR_DESC){v->op, &c->u};
    return true;
}

/* Host memory reused across cases: a source pattern and a memcpy destination. */
typedef struct host_mem {
    uint8_t *src, *dst;
    size_t cap;
} host_mem;

static bool host_reserve(host_mem *h, size_t bytes)
{
    if (bytes <= h->cap) return true;
    free(h->src);
    free(h->dst);
    h->src = malloc(bytes);
    h->dst = malloc(bytes);
    h->cap = h->src && h->dst ? bytes : 0;
    if (!h->cap) return false;
    for (size_t i = 0; i < bytes; i++) h->src[i] = (uint8_t)(i * 131 + 7);
    memset(h->dst, 0, bytes); /* fault the pages in before anything is timed */
    return true;
}

/* Lengths reverse whole sequences; indices hit every position; values are 0 and 1. */
static void input_data(const case_desc *c, uint32_t i, host_mem *h, uint64_t bytes)
{
    uint32_t *u = (uint32_t *)(void *)h->dst;
    uint64_t n = bytes / 4;
    if (c->v->op == DML_OPERATOR_REVERSE_SUBSEQUENCES && i == 1) {
        for (uint64_t k = 0; k < n; k++) u[k] = c->seq;
    } else if (c->v->op == DML_OPERATOR_ONE_HOT && i == 0) {
        for (uint64_t k = 0; k < n; k++) u[k] = (uint32_t)((k * 7 + 3) % c->depth);
    } else if (c->v->op == DML_OPERATOR_ONE_HOT && i == 1) {
        uint32_t es = dmlops_data_type_size(c->bt[1].DataType);
        scalar_from_double(c->bt[1].DataType, 0, h->dst);
        scalar_from_double(c->bt[1].DataType, 1, h->dst + es);
    } else {
        memcpy(h->dst, h->src, (size_t)bytes);
    }
}

static uint32_t iterations_for(const bench_policy *p, uint32_t fixed, double first_s)
{
    if (fixed) return fixed;
    double n = first_s > 0 ? p->budget_s / first_s : p->max_iters;
    return n < p->min_iters ? p->min_iters : n > p->max_iters ? p->max_iters : (uint32_t)n;
}

/* Executes list iters times; t[] gets GPU seconds, or wall seconds when any run had no
 * timestamps. */
static dmlops_status time_list(dmlops_command_list *list, uint32_t iters, double *t, bool *gpu)
{
    double *wall = t + iters; /* t has room for 2 * iters */
    *gpu = true;
    for (uint32_t i = 0; i < iters; i++) {
        dmlops_execution_stats s = {-1, 0};
        dmlops_status st = dmlops_command_list_execute(list);
        if (st == DMLOPS_SUCCESS) st = dmlops_command_list_get_stats(list, &s);
        if (st != DMLOPS_SUCCESS) return st;
        t[i] = s.gpu_seconds;
        wall[i] = s.wall_seconds;
        *gpu = *gpu && s.gpu_seconds >= 0;
    }
    if (!*gpu) memcpy(t, wall, iters * sizeof *t);
    return DMLOPS_SUCCESS;
}

static double min_of(const double *t, uint32_t n)
{
    double m = t[0];
    for (uint32_t i = 1; i < n; i++) m = t[i] < m ? t[i] : m;
    return m;
}

/* The device objects of one case, destroyed together. */
typedef struct case_objs {
    dmlops_operator *op;
    dmlops_buffer *buf[3], *copy_src, *copy_dst;
    dmlops_command_list *list, *copy;
} case_objs;

static void case_objs_free(case_objs *o)
{
    dmlops_command_list_destroy(o->list);
    dmlops_command_list_destroy(o->copy);
    dmlops_operator_destroy(o->op);
    for (int i = 0; i < 3; i++) dmlops_buffer_destroy(o->buf[i]);
    dmlops_buffer_destroy(o->copy_src);
    dmlops_buffer_destroy(o->copy_dst);
}

static void skip(bench_result *r, const char *what, dmlops_status st)
{
    snprintf(r->skipped, sizeof r->skipped, "%s: %s: %s", what, dmlops_status_string(st), dmlops_last_error_message());
}

static void run_case(dmlops_context *ctx, const case_desc *c, const bench_policy *pol, uint32_t fixed, host_mem *h,
                     bench_result *r)
{
    case_objs o = {0};
    dmlops_binding b[3];
    double *t = NULL;
    dmlops_status st = dmlops_operator_create(ctx, &c->desc, &o.op);
    if (st != DMLOPS_SUCCESS) {
        skip(r, "operator_create", st);
        goto done;
    }
    for (uint32_t i = 0; i <= c->ninputs; i++) {
        uint64_t bytes = c->bt[i].TotalTensorSizeInBytes;
        if (!host_reserve(h, (size_t)bytes)) {
            snprintf(r->skipped, sizeof r->skipped, "out of host memory");
            goto done;
        }
        st = dmlops_buffer_create(ctx, bytes, &o.buf[i]);
        if (st == DMLOPS_SUCCESS && i < c->ninputs) {
            input_data(c, i, h, bytes);
            st = dmlops_buffer_write(o.buf[i], 0, h->dst, bytes);
        }
        if (st != DMLOPS_SUCCESS) {
            skip(r, "buffer", st);
            goto done;
        }
        b[i] = (dmlops_binding){o.buf[i], 0, bytes};
    }
    dmlops_operator_info info;
    dmlops_operator_get_info(o.op, &info);
    r->bytes = info.bytes_read + info.bytes_written;
    uint64_t copy_bytes = (r->bytes + 1) / 2;

    /* Operator: one warm-up run decides the iteration count for all three timers. */
    double first, warm[2];
    bool gpu;
    st = dmlops_command_list_create(ctx, &o.list);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_record(o.list, o.op, c->ninputs, b, 1, &b[c->ninputs]);
    if (st == DMLOPS_SUCCESS) st = time_list(o.list, 1, warm, &gpu);
    if (st != DMLOPS_SUCCESS) {
        skip(r, "execute", st);
        goto done;
    }
    first = warm[0];
    r->iterations = iterations_for(pol, fixed, first);
    t = malloc(2 * (size_t)r->iterations * sizeof *t);
    if (!t) {
        snprintf(r->skipped, sizeof r->skipped, "out of host memory");
        goto done;
    }
    if ((st = time_list(o.list, r->iterations, t, &r->gpu_timer)) != DMLOPS_SUCCESS) {
        skip(r, "execute", st);
        goto done;
    }
    dmlops_operator_get_info(o.op, &info);
    r->path = info.last_path;
    r->min_s = min_of(t, r->iterations);
    r->median_s = cli_median(t, r->iterations);

    /* The copy roofline: the same bytes through vkCmdCopyBuffer, timed the same way. */
    st = dmlops_buffer_create(ctx, copy_bytes, &o.copy_src);
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, copy_bytes, &o.copy_dst);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_create(ctx, &o.copy);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_record_copy(o.copy, o.copy_dst, 0, o.copy_src, 0, copy_bytes);
    if (st == DMLOPS_SUCCESS) st = time_list(o.copy, 1, t, &gpu);
    if (st == DMLOPS_SUCCESS) st = time_list(o.copy, r->iterations, t, &gpu);
    if (st != DMLOPS_SUCCESS) {
        skip(r, "copy", st);
        goto done;
    }
    double copy_s = cli_median(t, r->iterations);

    if (!host_reserve(h, (size_t)copy_bytes)) {
        snprintf(r->skipped, sizeof r->skipped, "out of host memory");
        goto done;
    }
    memcpy(h->dst, h->src, (size_t)copy_bytes);
    for (uint32_t i = 0; i < r->iterations; i++) {
        double t0 = cli_now();
        memcpy(h->dst, h->src, (size_t)copy_bytes);
        t[i] = cli_now() - t0;
        h->src[0] ^= h->dst[copy_bytes - 1]; /* a dependency, so the copy cannot be dropped */
    }
    double memcpy_s = cli_median(t, r->iterations);

    r->gbps = r->median_s > 0 ? (double)r->bytes / r->median_s * 1e-9 : 0;
    r->copy_gbps = copy_s > 0 ? 2.0 * (double)copy_bytes / copy_s * 1e-9 : 0;
    r->memcpy_gbps = memcpy_s > 0 ? 2.0 * (double)copy_bytes / memcpy_s * 1e-9 : 0;
done:
    free(t);
    case_objs_free(&o);
}

/* 1000 small SLICE1 operators (a 4x4 window of seed example 1): recorded in one command
 * list, against one synchronous dmlops_operator_execute each. Outputs go to disjoint
 * ranges so the list needs no barriers: what is left is per-operator overhead. */
static void run_overhead(dmlops_context *ctx, bench_overhead *ov)
{
    static const uint32_t in_sizes[4] = {1, 1, 4, 4}, out_sizes[4] = {1, 1, 2, 2};
    static const uint32_t offsets[4] = {0, 0, 0, 1}, window[4] = {1, 1, 4, 3};
    static const int32_t strides[4] = {1, 1, 2, 2};
    DML_BUFFER_TENSOR_DESC ib = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, in_sizes, NULL, 64, 0};
    DML_BUFFER_TENSOR_DESC ob = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, out_sizes, NULL, 16, 0};
    DML_TENSOR_DESC it = {DML_TENSOR_TYPE_BUFFER, &ib}, ot = {DML_TENSOR_TYPE_BUFFER, &ob};
    DML_SLICE1_OPERATOR_DESC sd = {&it, &ot, 4, offsets, window, strides};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &sd};
    dmlops_operator *op = NULL;
    dmlops_buffer *in = NULL, *out = NULL;
    dmlops_command_list *list = NULL;
    dmlops_status st = dmlops_operator_create(ctx, &desc, &op);
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, 64, &in);
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, 16 * OVERHEAD_OPS, &out);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_create(ctx, &list);
    double t0 = cli_now();
    for (uint32_t i = 0; i < OVERHEAD_OPS && st == DMLOPS_SUCCESS; i++) {
        dmlops_binding bi = {in, 0, 64}, bo = {out, 16ull * i, 16};
        st = dmlops_command_list_record(list, op, 1, &bi, 1, &bo);
    }
    double record = cli_now() - t0, wall[5], gpu[5];
    bool has_gpu = true;
    for (int i = -1; i < 5 && st == DMLOPS_SUCCESS; i++) { /* -1: warm-up */
        dmlops_execution_stats s = {-1, 0};
        st = dmlops_command_list_execute(list);
        if (st == DMLOPS_SUCCESS) st = dmlops_command_list_get_stats(list, &s);
        if (i < 0) continue;
        wall[i] = s.wall_seconds;
        gpu[i] = s.gpu_seconds;
        has_gpu = has_gpu && s.gpu_seconds >= 0;
    }
    double sync = 0;
    for (uint32_t i = 0; i < OVERHEAD_OPS + 10 && st == DMLOPS_SUCCESS; i++) {
        if (i == 10) t0 = cli_now(); /* after 10 warm-up runs */
        dmlops_binding bi = {in, 0, 64}, bo = {out, 0, 16};
        st = dmlops_operator_execute(op, 1, &bi, 1, &bo);
    }
    sync = cli_now() - t0;
    if (st == DMLOPS_SUCCESS) {
        ov->measured = true;
        ov->ops = OVERHEAD_OPS;
        dmlops_command_list_get_counts(list, NULL, &ov->barriers);
        ov->record_us = record * 1e6 / OVERHEAD_OPS;
        ov->list_us = cli_median(wall, 5) * 1e6 / OVERHEAD_OPS;
        ov->list_gpu_us = has_gpu ? cli_median(gpu, 5) * 1e6 / OVERHEAD_OPS : -1;
        ov->sync_us = sync * 1e6 / OVERHEAD_OPS;
    } else {
        fprintf(stderr, "dmlops bench: overhead: %s: %s\n", dmlops_status_string(st), dmlops_last_error_message());
    }
    dmlops_command_list_destroy(list);
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(in);
    dmlops_buffer_destroy(out);
}

static void describe_run(bench_run *run, int argc, char **argv)
{
    const dmlops_device_info *d = &run->ctx.device;
    if (run->ctx.backend == DMLOPS_BACKEND_CPU) {
        snprintf(run->device, sizeof run->device, "CPU backend");
        snprintf(run->driver, sizeof run->driver, "libdmlops %s CPU backend", dmlops_version_string());
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

    /* `make bench` runs exactly "dmlops bench --report docs"; say so when that is what ran. */
    if (getenv("MAKELEVEL") && argc == 3 && !strcmp(argv[1], "--report") && !strcmp(argv[2], "docs")) {
        snprintf(run->command, sizeof run->command, "make bench");
        return;
    }
    n = (size_t)snprintf(run->command, sizeof run->command, "dmlops");
    for (int i = 0; i < argc && n < sizeof run->command; i++)
        n += (size_t)snprintf(run->command + n, sizeof run->command - n, " %s", argv[i]);
}

static bool matches(const char *label, const char *filter)
{
    return !filter || strcasestr(label, filter) != NULL;
}

static int parse_opts(int argc, char **argv, bench_opts *o)
{
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r = cli_context_opt(argc, argv, &i, &o->desc);
        if (r == 0 && !strcmp(argv[i], "--quick")) {
            o->quick = true;
            r = 1;
        }
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--filter", &v)) > 0) o->filter = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--csv", &v)) > 0) o->csv = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--svg", &v)) > 0) o->svg = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--report", &v)) > 0) o->report = v;
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
            fprintf(stderr, "dmlops bench: unknown argument '%s'\n"
                            "usage: dmlops bench [--quick] [--filter SUBSTR] [--iterations N] [--csv FILE] "
                            "[--svg FILE] [--report DIR] [--backend B] [--device D]\n",
                    argv[i]);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

int cmd_bench(int argc, char **argv)
{
    bench_opts o = {0};
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc;
    const uint64_t *sizes = o.quick ? quick_sizes : full_sizes;
    size_t nsizes = o.quick ? sizeof quick_sizes / sizeof quick_sizes[0] : sizeof full_sizes / sizeof full_sizes[0];
    bench_policy pol = o.quick ? (bench_policy){3, 10, 0.005} : (bench_policy){3, 50, 0.25};

    bench_run run = {0};
    size_t cap = VARIANT_COUNT * TYPE_COUNT * nsizes;
    run.results = calloc(cap, sizeof *run.results);
    if (!run.results) return CLI_FAIL;
    for (size_t v = 0; v < VARIANT_COUNT; v++)
        for (size_t t = 0; t < TYPE_COUNT; t++)
            for (size_t s = 0; s < nsizes; s++) {
                bench_result *r = &run.results[run.count];
                char sz[32];
                snprintf(r->op, sizeof r->op, "%s", dmlops_operator_type_name(variants[v].op));
                snprintf(r->variant, sizeof r->variant, "%s", variants[v].name);
                snprintf(r->label, sizeof r->label, "%s %s %s %s", r->op, r->variant, dmlops_data_type_name(types[t]),
                         cli_bytes(sizes[s], sz));
                r->type = types[t];
                r->tensor_bytes = sizes[s];
                case_desc c;
                if (sizes[s] > ALL_TYPES_UP_TO && dmlops_data_type_size(types[t]) != 4) continue;
                if (matches(r->label, o.filter) && build_case(&variants[v], types[t], sizes[s], &c))
                    run.count++;
            }
    bool want_overhead = matches("overhead", o.filter);
    if (!run.count && !want_overhead) {
        fprintf(stderr, "dmlops bench: no case matches --filter '%s'\n", o.filter);
        free(run.results);
        return CLI_USAGE;
    }

    dmlops_context *ctx = NULL;
    if ((rc = cli_context_create(&o.desc, &ctx)) != CLI_OK) {
        free(run.results);
        return rc;
    }
    dmlops_context_get_info(ctx, &run.ctx);
    describe_run(&run, argc, argv);
    printf("dmlops bench on %s (%s)%s\n", run.device, run.driver, o.quick ? ", quick suite" : "");
    if (run.ctx.note[0]) printf("note: %s\n", run.ctx.note);
    fflush(stdout);

    bool progress = cli_progress_enabled();
    host_mem h = {0};
    double t0 = cli_now();
    for (size_t i = 0; i < run.count; i++) {
        bench_result *r = &run.results[i];
        const variant *v = NULL;
        for (size_t k = 0; k < VARIANT_COUNT; k++)
            if (!strcmp(r->op, dmlops_operator_type_name(variants[k].op)) && !strcmp(r->variant, variants[k].name))
                v = &variants[k];
        if (progress) fprintf(stderr, "\r\033[K[%zu/%zu %.0fs] %s", i + 1, run.count, cli_now() - t0, r->label);
        case_desc c;
        build_case(v, r->type, r->tensor_bytes, &c);
        run_case(ctx, &c, &pol, o.iterations, &h, r);
    }
    if (want_overhead) {
        if (progress) fprintf(stderr, "\r\033[K[overhead] %u small operators", OVERHEAD_OPS);
        run_overhead(ctx, &run.overhead);
    }
    if (progress) fprintf(stderr, "\r\033[K");
    free(h.src);
    free(h.dst);
    dmlops_context_destroy(ctx);

    bench_print_table(&run, stdout);
    bool ok = true;
    if (o.csv) ok = bench_write_csv(&run, o.csv) && ok;
    if (o.svg) ok = bench_write_svg(&run, o.svg) && ok;
    if (o.report) ok = bench_write_report(&run, o.report) && ok;
    free(run.results);
    return ok ? CLI_OK : CLI_FAIL;
}
