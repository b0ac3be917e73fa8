/* The bench's sections beside the suite: the small-operator overhead (1000 operators in
 * one command list against synchronous executions and, on Vulkan, empty dispatches behind
 * barriers), operator creation with and without a pipeline cache, and on the CPU backend
 * how the headline cases scale with threads. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

/* The overhead operator: SLICE1 of a [32, 32] FLOAT32 tensor (4 KiB) with its columns
 * reversed, a kernel on Vulkan. */
typedef struct small_op {
    uint32_t sizes[2], offsets[2], window[2];
    int32_t strides[2];
    DML_BUFFER_TENSOR_DESC b[2];
    DML_TENSOR_DESC t[2];
    DML_SLICE1_OPERATOR_DESC sd;
    DML_OPERATOR_DESC desc;
} small_op;

#define SMALL_BYTES 4096u

static void small_op_init(small_op *s)
{
    memset(s, 0, sizeof *s);
    s->sizes[0] = s->sizes[1] = s->window[0] = s->window[1] = 32;
    s->strides[0] = 1;
    s->strides[1] = -1;
    for (int i = 0; i < 2; i++) {
        s->b[i] = (DML_BUFFER_TENSOR_DESC){DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, s->sizes, NULL,
                                           SMALL_BYTES, 0};
        s->t[i] = (DML_TENSOR_DESC){DML_TENSOR_TYPE_BUFFER, &s->b[i]};
    }
    s->sd = (DML_SLICE1_OPERATOR_DESC){&s->t[0], &s->t[1], 2, s->offsets, s->window, s->strides};
    s->desc = (DML_OPERATOR_DESC){DML_OPERATOR_SLICE1, &s->sd};
}

/* Executes a recorded list 5 times after a warm-up; medians per operation. */
static dmlops_status time_small_list(dmlops_command_list *list, uint32_t ops, double *wall_us, double *gpu_us)
{
    double wall[5], gpu[5];
    bool has_gpu = true;
    dmlops_status st = DMLOPS_SUCCESS;
    for (int i = -1; i < 5 && st == DMLOPS_SUCCESS; i++) { /* -1: warm-up */
        dmlops_execution_stats s = {-1, 0};
        st = dmlops_command_list_execute(list);
        if (st == DMLOPS_SUCCESS) st = dmlops_command_list_get_stats(list, &s);
        if (i < 0) continue;
        wall[i] = s.wall_seconds;
        gpu[i] = s.gpu_seconds;
        has_gpu = has_gpu && s.gpu_seconds >= 0;
    }
    *wall_us = cli_median(wall, 5) * 1e6 / ops;
    *gpu_us = has_gpu ? cli_median(gpu, 5) * 1e6 / ops : -1;
    return st;
}

/* 1000 small operators (SLICE1 on 4 KiB tensors) recorded in one command list, against
 * one synchronous dmlops_operator_execute each. Outputs go to disjoint ranges so the list
 * needs no barriers: what is left is per-operator overhead. On Vulkan, the floor to
 * compare with: 1000 near-empty dispatches (16-byte compute copies, one workgroup each),
 * each behind a barrier (every copy reads what the one before wrote), in one list. */
void bench_run_overhead(dmlops_context *ctx, bool vulkan, bench_overhead *ov)
{
    small_op so;
    small_op_init(&so);
    dmlops_operator *op = NULL;
    dmlops_buffer *in = NULL, *out = NULL, *ping = NULL, *pong = NULL;
    dmlops_command_list *list = NULL, *empty = NULL;
    dmlops_status st = dmlops_operator_create(ctx, &so.desc, &op);
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, SMALL_BYTES, &in);
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, (uint64_t)SMALL_BYTES * BENCH_OVERHEAD_OPS, &out);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_create(ctx, &list);
    double t0 = cli_now();
    for (uint32_t i = 0; i < BENCH_OVERHEAD_OPS && st == DMLOPS_SUCCESS; i++) {
        dmlops_binding bi = {in, 0, SMALL_BYTES}, bo = {out, (uint64_t)SMALL_BYTES * i, SMALL_BYTES};
        st = dmlops_command_list_record(list, op, 1, &bi, 1, &bo);
    }
    double record = cli_now() - t0;
    if (st == DMLOPS_SUCCESS) st = time_small_list(list, BENCH_OVERHEAD_OPS, &ov->list_us, &ov->list_gpu_us);
    double sync = 0;
    for (uint32_t i = 0; i < BENCH_OVERHEAD_OPS + 10 && st == DMLOPS_SUCCESS; i++) {
        if (i == 10) t0 = cli_now(); /* after 10 warm-up runs */
        dmlops_binding bi = {in, 0, SMALL_BYTES}, bo = {out, 0, SMALL_BYTES};
        st = dmlops_operator_execute(op, 1, &bi, 1, &bo);
    }
    sync = cli_now() - t0;
    if (st == DMLOPS_SUCCESS) {
        ov->measured = true;
        ov->ops = BENCH_OVERHEAD_OPS;
        dmlops_command_list_get_counts(list, NULL, &ov->barriers);
        ov->record_us = record * 1e6 / BENCH_OVERHEAD_OPS;
        ov->sync_us = sync * 1e6 / BENCH_OVERHEAD_OPS;
    } else {
        fprintf(stderr, "dmlops bench: overhead: %s: %s\n", dmlops_status_string(st), dmlops_last_error_message());
    }
    if (vulkan && st == DMLOPS_SUCCESS) {
        st = dmlops_buffer_create(ctx, 16, &ping);
        if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, 16, &pong);
        if (st == DMLOPS_SUCCESS) st = dmlops_command_list_create(ctx, &empty);
        for (uint32_t i = 0; i < BENCH_OVERHEAD_OPS && st == DMLOPS_SUCCESS; i++)
            st = dmlops_command_list_record_compute_copy(empty, i & 1 ? ping : pong, 0, i & 1 ? pong : ping, 0, 16);
        if (st == DMLOPS_SUCCESS) st = time_small_list(empty, BENCH_OVERHEAD_OPS, &ov->empty_us, &ov->empty_gpu_us);
        if (st == DMLOPS_SUCCESS) {
            ov->empty_measured = true;
            dmlops_command_list_get_counts(empty, NULL, &ov->empty_barriers);
        } else {
            fprintf(stderr, "dmlops bench: overhead, empty dispatches: %s: %s\n", dmlops_status_string(st),
                    dmlops_last_error_message());
        }
    }
    dmlops_command_list_destroy(list);
    dmlops_command_list_destroy(empty);
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(in);
    dmlops_buffer_destroy(out);
    dmlops_buffer_destroy(ping);
    dmlops_buffer_destroy(pong);
}

/* The size of the file at path, 0 when there is none. */
static uint64_t file_bytes(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Operator creation on Vulkan (bench_creation): fresh contexts on the run's device, the
 * first with an empty pipeline cache file in a temporary directory, each later one reading
 * the file the one before wrote when it was destroyed. One warm sample is one context's
 * first operator, which a single reading leaves to the machine's noise: the median of
 * WARM contexts is reported. A context that creates nothing writes the file a driver
 * keeps no pipeline in; when the cold pass leaves no more, there is no warm cache to time. */
void bench_run_creation(const dmlops_context_desc *desc, bench_creation *cr)
{
    enum { HOT = 21, WARM = 7 };
    char dir[] = "/tmp/dmlops-bench-XXXXXX", path[64], empty[64];
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/pipelines", dir);
    snprintf(empty, sizeof empty, "%s/empty", dir);
    small_op so;
    small_op_init(&so);
    dmlops_context_options opt = {.pipeline_cache_path = empty};
    double cold = -1, warm[WARM], hot[HOT];
    dmlops_context *bare = NULL;
    bool ok = dmlops_context_create_with_options(desc, &opt, &bare) == DMLOPS_SUCCESS;
    dmlops_context_destroy(bare); /* writes what the driver keeps of no pipeline */
    const uint64_t empty_bytes = file_bytes(empty);
    remove(empty);
    opt.pipeline_cache_path = path;
    int passes = WARM;
    for (int pass = 0; pass <= passes && ok; pass++) {
        dmlops_context *ctx = NULL;
        dmlops_operator *op = NULL;
        ok = dmlops_context_create_with_options(desc, &opt, &ctx) == DMLOPS_SUCCESS;
        double t0 = cli_now();
        ok = ok && dmlops_operator_create(ctx, &so.desc, &op) == DMLOPS_SUCCESS;
        *(pass ? &warm[pass - 1] : &cold) = (cli_now() - t0) * 1e3;
        dmlops_operator_destroy(op);
        for (int i = 0; i < HOT && ok && pass == 0; i++) {
            op = NULL;
            t0 = cli_now();
            ok = dmlops_operator_create(ctx, &so.desc, &op) == DMLOPS_SUCCESS;
            hot[i] = (cli_now() - t0) * 1e3;
            dmlops_operator_destroy(op);
        }
        dmlops_context_destroy(ctx); /* writes the cache file */
        if (pass == 0) {
            cr->cache_bytes = file_bytes(path);
            if (cr->cache_bytes <= empty_bytes) passes = 0; /* the driver kept nothing */
        }
    }
    remove(path);
    rmdir(dir);
    if (!ok) {
        fprintf(stderr, "dmlops bench: operator creation: %s\n", dmlops_last_error_message());
        return;
    }
    cr->measured = true;
    cr->cold_ms = cold;
    cr->warm_measured = passes > 0;
    cr->warm_ms = cr->warm_measured ? cli_median(warm, WARM) : -1;
    cr->hot_ms = cli_median(hot, HOT);
}

/* CPU backend: each headline case on contexts of 1, 2, 4 ... threads up to the default
 * context's count. */
void bench_run_scaling(bench_run *run, const bench_case *cases, size_t count, uint32_t fixed, host_mem *h)
{
    const uint32_t most = run->ctx.cpu_threads;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) n += bench_case_is_headline(&cases[i]);
    if (!n || most < 2 || !(run->scaling = calloc(n, sizeof *run->scaling))) return;
    for (size_t i = 0; i < count; i++) {
        if (!bench_case_is_headline(&cases[i])) continue;
        bench_scaling *s = &run->scaling[run->nscaling++];
        s->c = &cases[i];
        for (uint32_t th = 1; s->n < BENCH_MAX_SCALING; th = th * 2 > most && th < most ? most : th * 2) {
            dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
            dmlops_context_options opt = {.cpu_threads = th};
            dmlops_context *ctx = NULL;
            bench_result r = {0};
            if (dmlops_context_create_with_options(&d, &opt, &ctx) == DMLOPS_SUCCESS) {
                bench_run_case(ctx, run, &cases[i], NULL, fixed, h, &r);
                dmlops_context_destroy(ctx);
            }
            s->threads[s->n] = th;
            s->gbps[s->n++] = r.skipped[0] ? 0 : r.gbps;
            if (th >= most) break;
        }
    }
}
