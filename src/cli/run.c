/* dmlops run MODEL.json: creates the model's buffers and operators, runs the operators in
 * order, prints small outputs, saves the requested ones to .npy, and optionally times
 * each operator. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "model.h"
#include "scalar.h"

#define PRINT_MAX_ELEMENTS 64

typedef struct run_opts {
    const char *model_path;
    const char *output_dir;
    uint32_t iterations; /* 0: no timing */
    dmlops_context_desc desc;
} run_opts;

typedef struct run_state {
    model m;
    dmlops_context *ctx;
    dmlops_buffer **bufs;
    dmlops_operator **ops;
} run_state;

static void print_nested(const npy_array *a, const uint8_t *p, uint32_t d, int indent)
{
    uint32_t es = npy_element_size(a->type);
    char text[48];
    if (a->ndim == 0) {
        scalar_format(a->type, p, text, sizeof text);
        fputs(text, stdout);
        return;
    }
    uint64_t inner = 1;
    for (uint32_t k = d + 1; k < a->ndim; k++) inner *= a->shape[k];
    putchar('[');
    for (uint64_t i = 0; i < a->shape[d]; i++) {
        if (d + 1 == a->ndim) {
            scalar_format(a->type, p + i * es, text, sizeof text);
            printf("%s%s", i ? ", " : "", text);
        } else {
            if (i) printf(",\n%*s", indent + (int)d + 1, "");
            print_nested(a, p + i * inner * es, d + 1, indent);
        }
    }
    putchar(']');
}

static void print_shape(const npy_array *a)
{
    printf("%s [", dmlops_data_type_name(a->type));
    for (uint32_t i = 0; i < a->ndim; i++) printf("%s%llu", i ? ", " : "", (unsigned long long)a->shape[i]);
    printf("]");
}

static int fail_call(const run_state *s, const char *where, const char *what, dmlops_status st)
{
    fprintf(stderr, "%s: %s%s%s%s: %s: %s\n", s->m.file, where, what[0] ? " (" : "", what, what[0] ? ")" : "",
            dmlops_status_string(st),
            dmlops_last_error_message());
    return cli_status_exit(st);
}

static void fill_bindings(const run_state *s, size_t o, dmlops_binding *b)
{
    const model_op *op = &s->m.ops[o];
    for (uint32_t i = 0; i < op->ntensors; i++)
        b[i] = (dmlops_binding){s->bufs[op->bind[i].resource], op->bind[i].offset, op->bind[i].size};
}

static void print_time(double seconds)
{
    if (seconds < 1e-3) printf("%9.2f us", seconds * 1e6);
    else printf("%9.3f ms", seconds * 1e3);
}

/* Times each operator alone in a command list: GPU timestamps when the device has them. */
static int time_operators(const run_state *s, uint32_t iterations)
{
    double *t = malloc(iterations * sizeof *t);
    if (!t) return CLI_FAIL;
    int rc = CLI_OK;
    printf("\ntiming, %u iterations per operator:\n", iterations);
    for (size_t o = 0; o < s->m.nops && rc == CLI_OK; o++) {
        const model_op *op = &s->m.ops[o];
        dmlops_command_list *list = NULL;
        dmlops_binding b[3];
        fill_bindings(s, o, b);
        dmlops_status st = dmlops_command_list_create(s->ctx, &list);
        if (st == DMLOPS_SUCCESS) st = dmlops_command_list_record(list, s->ops[o], op->ninputs, b, 1, &b[op->ninputs]);
        bool gpu = true;
        for (uint32_t i = 0; i < iterations && st == DMLOPS_SUCCESS; i++) {
            dmlops_execution_stats stats = {-1, 0};
            st = dmlops_command_list_execute(list);
            if (st == DMLOPS_SUCCESS) st = dmlops_command_list_get_stats(list, &stats);
            gpu = gpu && stats.gpu_seconds >= 0;
            t[i] = stats.gpu_seconds >= 0 ? stats.gpu_seconds : stats.wall_seconds;
        }
        dmlops_command_list_destroy(list);
        if (st != DMLOPS_SUCCESS) {
            rc = fail_call(s, op->where, "timing", st);
            break;
        }
        dmlops_operator_info info;
        dmlops_operator_get_info(s->ops[o], &info);
        double min = t[0];
        for (uint32_t i = 1; i < iterations; i++) min = t[i] < min ? t[i] : min;
        double med = cli_median(t, iterations);
        printf("  %-16s %-20s median", op->where + 2, op->name);
        print_time(med);
        printf("   min");
        print_time(min);
        printf("   %8.3f GB/s   (%s)\n", med > 0 ? (double)(info.bytes_read + info.bytes_written) / med * 1e-9 : 0.0,
               gpu ? "GPU timestamps" : "wall clock: no timestamps");
    }
    free(t);
    return rc;
}

static int show_outputs(const run_state *s)
{
    for (size_t k = 0; k < s->m.nres; k++) {
        const model_resource *r = &s->m.res[k];
        if (r->last_writer < 0 && !r->output) continue;
        npy_array a = r->view;
        uint64_t bytes = a.count * npy_element_size(a.type);
        a.data = malloc(bytes ? bytes : 1);
        if (!a.data) {
            fprintf(stderr, "%s: %s: out of memory reading %llu bytes\n", s->m.file, r->where, (unsigned long long)bytes);
            return CLI_FAIL;
        }
        dmlops_status st = bytes ? dmlops_buffer_read(s->bufs[k], 0, a.data, bytes) : DMLOPS_SUCCESS;
        if (st != DMLOPS_SUCCESS) {
            free(a.data);
            return fail_call(s, r->where, "read", st);
        }
        if (r->last_writer >= 0) {
            printf("\n%s = ", r->name);
            print_shape(&a);
            if (a.count <= PRINT_MAX_ELEMENTS) {
                printf("\n  ");
                print_nested(&a, a.data, 0, 2);
                printf("\n");
            } else {
                printf(" (%llu elements, not printed)\n", (unsigned long long)a.count);
            }
        }
        if (r->output) {
            char err[300];
            if (!npy_write_file(r->output, &a, err, sizeof err)) {
                fprintf(stderr, "%s: %s.Output: %s: %s\n", s->m.file, r->where, r->output, err);
                free(a.data);
                return CLI_FAIL;
            }
            printf("wrote %s\n", r->output);
        }
        free(a.data);
    }
    return CLI_OK;
}

static int run_model(run_state *s, const run_opts *o)
{
    int rc = cli_context_create(&o->desc, &s->ctx);
    if (rc) return rc;
    dmlops_context_info ci;
    dmlops_context_get_info(s->ctx, &ci);
    printf("%s on %s, feature level %s\n", s->m.file, cli_context_device_name(&ci),
           dmlops_feature_level_name(ci.feature_level));
    if (ci.note[0]) printf("note: %s\n", ci.note);

    s->bufs = calloc(s->m.nres ? s->m.nres : 1, sizeof *s->bufs);
    s->ops = calloc(s->m.nops, sizeof *s->ops);
    if (!s->bufs || !s->ops) return CLI_FAIL;
    for (size_t k = 0; k < s->m.nres; k++) {
        const model_resource *r = &s->m.res[k];
        dmlops_status st = dmlops_buffer_create(s->ctx, r->size, &s->bufs[k]);
        uint64_t bytes = r->init.count * npy_element_size(r->init.type);
        if (st == DMLOPS_SUCCESS && r->init.data && bytes) st = dmlops_buffer_write(s->bufs[k], 0, r->init.data, bytes);
        if (st != DMLOPS_SUCCESS) return fail_call(s, r->where, r->name, st);
    }
    for (size_t i = 0; i < s->m.nops; i++) {
        dmlops_status st = dmlops_operator_create(s->ctx, &s->m.ops[i].desc, &s->ops[i]);
        if (st != DMLOPS_SUCCESS) return fail_call(s, s->m.ops[i].where, "", st);
    }
    for (size_t i = 0; i < s->m.nops; i++) {
        const model_op *op = &s->m.ops[i];
        dmlops_binding b[3];
        fill_bindings(s, i, b);
        dmlops_status st = dmlops_operator_execute(s->ops[i], op->ninputs, b, 1, &b[op->ninputs]);
        if (st != DMLOPS_SUCCESS) return fail_call(s, op->where, "", st);
        dmlops_operator_info info;
        dmlops_operator_get_info(s->ops[i], &info);
        char rd[32], wr[32];
        printf("%s %s: %s path", op->where + 2, op->name, dmlops_path_name(info.last_path));
        if (info.last_path == DMLOPS_PATH_KERNEL) printf(", %u dispatch%s", info.dispatch_count, info.dispatch_count == 1 ? "" : "es");
        if (info.last_path == DMLOPS_PATH_COPY_REGIONS) printf(", %u region%s", info.copy_region_count, info.copy_region_count == 1 ? "" : "s");
        printf(", reads %s, writes %s\n", cli_bytes(info.bytes_read, rd), cli_bytes(info.bytes_written, wr));
    }
    if ((rc = show_outputs(s)) != CLI_OK) return rc;
    return o->iterations ? time_operators(s, o->iterations) : CLI_OK;
}

static void run_free(run_state *s)
{
    for (size_t i = 0; s->ops && i < s->m.nops; i++) dmlops_operator_destroy(s->ops[i]);
    for (size_t k = 0; s->bufs && k < s->m.nres; k++) dmlops_buffer_destroy(s->bufs[k]);
    free(s->ops);
    free(s->bufs);
    dmlops_context_destroy(s->ctx);
    model_free(&s->m);
}

int cmd_run(int argc, char **argv)
{
    run_opts o = {0};
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r = cli_context_opt(argc, argv, &i, &o.desc);
        if (r == 0 && (r = cli_opt(argc, argv, &i, "--iterations", &v)) > 0) {
            uint64_t n;
            if (!cli_parse_u64(v, &n) || n < 1 || n > 1000000) {
                fprintf(stderr, "dmlops run: --iterations %s: expected a count from 1 to 1000000\n", v);
                return CLI_USAGE;
            }
            o.iterations = (uint32_t)n;
        } else if (r == 0 && (r = cli_opt(argc, argv, &i, "--output-dir", &v)) > 0) {
            o.output_dir = v;
        }
        if (r < 0) return CLI_USAGE;
        if (r > 0) continue;
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "dmlops run: unknown option '%s'\n", argv[i]);
            return CLI_USAGE;
        }
        if (o.model_path) {
            fprintf(stderr, "dmlops run: one model at a time ('%s' and '%s')\n", o.model_path, argv[i]);
            return CLI_USAGE;
        }
        o.model_path = argv[i];
    }
    if (!o.model_path) {
        fprintf(stderr, "usage: dmlops run MODEL.json [--backend auto|vulkan|cpu] [--device D] "
                        "[--feature-level 6_4] [--iterations N] [--output-dir DIR]\n");
        return CLI_USAGE;
    }
    if (o.output_dir && mkdir(o.output_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "dmlops run: --output-dir %s: %s\n", o.output_dir, strerror(errno));
        return CLI_FAIL;
    }
    run_state s = {0};
    if (!model_load(o.model_path, o.output_dir, &s.m)) return CLI_USAGE;
    int rc = run_model(&s, &o);
    run_free(&s);
    return rc;
}
