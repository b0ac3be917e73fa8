/* dmlops tune (docs/cli.md): tunes the standard cases of dmlops bench (src/bench/cases.c)
 * on a Vulkan device with the library's tuner (docs/api.md, "Tuning"), writes the tuning
 * file, and prints per case the tuner's time of the defaults against the configuration it
 * chose. The library does the measuring: each case's operator is created in a context in
 * AUTO mode, which tunes the operator's class the first time it meets it and writes the
 * file; this command picks the cases, sets the budgets and reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench/bench.h"

#define TUNE_DEFAULT_CLASS_BUDGET_S 10.0

static const char usage[] =
    "usage: dmlops tune --out FILE [--quick] [--large] [--filter SUBSTR] [--budget SECONDS]\n"
    "                   [--backend vulkan] [--device D] [--feature-level L]\n";

typedef struct tune_opts {
    bool quick, large;
    const char *out, *filter;
    double budget_s;
    dmlops_context_desc desc;
} tune_opts;

static int parse_opts(int argc, char **argv, tune_opts *o)
{
    o->budget_s = TUNE_DEFAULT_CLASS_BUDGET_S;
    o->desc.backend = DMLOPS_BACKEND_VULKAN; /* tuning is the Vulkan backend's: software devices too */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return -1;
        }
        int r = !strcmp(a, "--quick") || !strcmp(a, "--large");
        if (r) *(a[2] == 'q' ? &o->quick : &o->large) = true;
        if (r == 0) r = cli_context_opt(argc, argv, &i, &o->desc);
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--out", &v)) > 0) o->out = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--filter", &v)) > 0) o->filter = v;
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--budget", &v)) > 0) {
            char *end = NULL;
            o->budget_s = strtod(v, &end);
            if (!*v || *end || !(o->budget_s > 0 && o->budget_s <= 3600)) {
                cli_error("dmlops tune: --budget %s: expected seconds per class, above 0 and at most 3600", v);
                return CLI_USAGE;
            }
        }
        if (r < 0) return CLI_USAGE;
        if (r == 0) {
            cli_error("dmlops tune: unknown argument '%s' (dmlops tune --help lists the options)", argv[i]);
            return CLI_USAGE;
        }
    }
    if (!o->out) {
        cli_error("dmlops tune: --out FILE is required: the tuning file to write");
        return CLI_USAGE;
    }
    if (o->desc.backend == DMLOPS_BACKEND_CPU) {
        cli_error("dmlops tune: the CPU backend has no tuning knobs; tuning is the Vulkan backend's");
        return CLI_USAGE;
    }
    return CLI_OK;
}

static const char *source_name(dmlops_tuning_source s)
{
    return s == DMLOPS_TUNING_SOURCE_TUNED ? "tuned" : s == DMLOPS_TUNING_SOURCE_FILE ? "file" : "defaults";
}

/* The case whose operator tuned `key`, among the first n; -1 when none. */
static long first_of_class(char (*keys)[64], size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(keys[i], key)) return (long)i;
    return -1;
}

int cmd_tune(int argc, char **argv)
{
    tune_opts o = {0};
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc < 0 ? CLI_OK : rc;
    size_t count = 0;
    bench_case *cases = bench_suite(o.quick, o.large, o.filter, &count);
    char (*keys)[64] = cases ? calloc(count ? count : 1, sizeof *keys) : NULL;
    if (!cases || !keys) {
        free(cases);
        return CLI_FAIL;
    }
    if (!count) {
        cli_error("dmlops tune: no case matches --filter '%s'", o.filter ? o.filter : "");
        free(keys);
        free(cases);
        return CLI_USAGE;
    }
    /* The library tunes into a file of its own, renamed over --out at the end: a run that
     * fails leaves the old file as it was, and every class is measured afresh. The tuning
     * options go through the environment (docs/api.md, "Tuning"), read at context creation. */
    char tmp[4200], budget[32];
    snprintf(tmp, sizeof tmp, "%s.%ld.tuning", o.out, (long)getpid());
    FILE *probe = fopen(tmp, "w");
    if (!probe) {
        cli_error("dmlops tune: --out %s: cannot write beside it (%s)", o.out, tmp);
        free(keys);
        free(cases);
        return CLI_USAGE;
    }
    fclose(probe);
    remove(tmp);
    snprintf(budget, sizeof budget, "%g", o.budget_s);
    setenv("DMLOPS_TUNING", "auto", 1);
    setenv("DMLOPS_TUNING_FILE", tmp, 1);
    setenv("DMLOPS_TUNING_BUDGET", "1000000", 1); /* the classes' budgets bound the run */
    setenv("DMLOPS_TUNING_CLASS_BUDGET", budget, 1);
    dmlops_context *ctx = NULL;
    rc = cli_context_create(&o.desc, &ctx);
    unsetenv("DMLOPS_TUNING");
    unsetenv("DMLOPS_TUNING_FILE");
    unsetenv("DMLOPS_TUNING_BUDGET");
    unsetenv("DMLOPS_TUNING_CLASS_BUDGET");
    dmlops_context_info info;
    if (rc == CLI_OK) dmlops_context_get_info(ctx, &info);
    if (rc == CLI_OK && info.backend != DMLOPS_BACKEND_VULKAN) {
        cli_error("dmlops tune: the context runs on the CPU backend, which has no tuning knobs (%s)", info.note);
        rc = CLI_FAIL;
    }
    if (rc != CLI_OK) {
        dmlops_context_destroy(ctx);
        free(keys);
        free(cases);
        return rc;
    }
    printf("dmlops tune on %s: %zu cases, at most %g s a class\nnote: %s\n", info.device.name, count, o.budget_s,
           info.note);
    printf("\n%-44s %-38s %7s %11s %11s %8s  %s\n", "case", "class", "tune s", "default us", "tuned us", "speed-up",
           "configuration (beside the defaults)");
    fflush(stdout);
    size_t tuned = 0, failed = 0;
    double total = 0;
    for (size_t i = 0; i < count; i++) {
        const bench_case *c = &cases[i];
        dmlops_operator *op = NULL;
        dmlops_operator_tuning t;
        memset(&t, 0, sizeof t);
        const double t0 = cli_now();
        dmlops_status st = dmlops_operator_create(ctx, &c->desc, &op);
        const double took = cli_now() - t0;
        if (st == DMLOPS_SUCCESS) st = dmlops_operator_get_tuning(op, &t);
        dmlops_operator_destroy(op);
        if (st != DMLOPS_SUCCESS) {
            printf("%-44s failed: %s: %s\n", c->label, dmlops_status_string(st), dmlops_last_error_message());
            failed++;
            continue;
        }
        total += took;
        snprintf(keys[i], sizeof keys[i], "%s", t.class_key);
        const long first = first_of_class(keys, i, t.class_key);
        char speed[16] = "-";
        if (t.tuned_seconds > 0) snprintf(speed, sizeof speed, "%.2fx", t.default_seconds / t.tuned_seconds);
        printf("%-44s %-38s %7.2f %11.1f %11.1f %8s  %s", c->label, t.class_key, took, t.default_seconds * 1e6,
               t.tuned_seconds * 1e6, speed, t.source == DMLOPS_TUNING_SOURCE_NONE ? "(not tuned)" : t.config[0] ? t.config : "(the defaults)");
        if (first >= 0) printf("  [the class of %s]", cases[first].label);
        else if (t.source != DMLOPS_TUNING_SOURCE_TUNED) printf("  [%s]", source_name(t.source));
        if (t.note[0]) printf("  (%s)", t.note);
        putchar('\n');
        fflush(stdout);
        tuned += first < 0 && t.source == DMLOPS_TUNING_SOURCE_TUNED;
    }
    dmlops_context_destroy(ctx);
    const bool written = tuned > 0 && rename(tmp, o.out) == 0;
    if (!written) remove(tmp);
    printf("\n%zu classes tuned in %.1f s (%.1f s a class); %s%s\n", tuned, total, tuned ? total / (double)tuned : 0,
           written ? "written to " : tuned ? "could not write " : "nothing tuned, nothing written to ", o.out);
    printf("default us, tuned us: the tuner's medians per execution of the defaults and of the configuration it chose,\n"
           "timed back to back on the device in alternating rounds; a configuration is kept only when it beats the\n"
           "defaults by 5%%. The defaults are the environment's (DMLOPS_VK_*) on this device.\n");
    free(keys);
    free(cases);
    return failed || !written ? CLI_FAIL : CLI_OK;
}
