/* dmlops bench: runs the standard suite (bench_cases.c) on one backend. Each case runs
 * its operator alone in a command list, timed with GPU timestamps (wall time on the CPU
 * backend and on devices without them), next to baselines measured in the same run: a
 * vkCmdCopyBuffer of the same bytes (Vulkan), a host memcpy of the same bytes, a host
 * memset of a ONE_HOT's output, and numpy doing the same operation (bench_peer.c). On
 * the CPU backend it also measures how the headline cases scale with threads. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define OVERHEAD_OPS 1000u
#define BASELINE_MIN_ITERS 15u

typedef struct bench_opts {
    bool quick, large, scaling, list;
    const char *filter, *csv, *svg, *report, *numpy_peer;
    uint32_t iterations; /* 0: as many as fit the time budget */
    dmlops_context_desc desc;
} bench_opts;

/* Timing policy: at least min_iters runs, at most max_iters, stopping near budget_s. */
typedef struct bench_policy {
    uint32_t min_iters, max_iters;
    double budget_s;
} bench_policy;

/* Host memory reused across cases: a source pattern and a destination. */
typedef struct host_mem {
    uint8_t *src, *dst;
    size_t cap;
} host_mem;

/* Host baselines get memory laid out as the CPU backend lays out its buffers
 * (src/cpu/cpu_memory.c): 2 MiB-aligned, huge pages asked for. From the malloc heap a
 * memcpy can run at a third of its speed when source and destination sit a little over
 * a multiple of 4 KiB apart (4K aliasing), a slow baseline by accident. */
static uint8_t *host_alloc(size_t bytes)
{
    const size_t huge = (size_t)2 << 20, rounded = (bytes + huge - 1) & ~(huge - 1);
    uint8_t *p = rounded >= bytes ? aligned_alloc(huge, rounded) : NULL;
#ifdef MADV_HUGEPAGE
    if (p) (void)madvise(p, rounded, MADV_HUGEPAGE); /* a hint */
#endif
    return p;
}

static bool host_reserve(host_mem *h, size_t bytes)
{
    if (bytes == 0) bytes = 1;
    if (h->src && h->dst && bytes <= h->cap) return true;
    free(h->src);
    free(h->dst);
    h->src = host_alloc(bytes);
    h->dst = host_alloc(bytes);
    h->cap = h->src && h->dst ? bytes : 0;
    if (!h->cap) return false;
    for (size_t i = 0; i < bytes; i++) h->src[i] = (uint8_t)(i * 131 + 7);
    memset(h->dst, 0, bytes); /* fault the pages in before anything is timed */
    return true;
}

static uint32_t iterations_for(const bench_policy *p, uint32_t fixed, double first_s)
{
    if (fixed) return fixed;
    double n = first_s > 0 ? p->budget_s / first_s : p->max_iters;
    return n < p->min_iters ? p->min_iters : n > p->max_iters ? p->max_iters : (uint32_t)n;
}

/* One execution of list: GPU seconds, or wall seconds (and *gpu false) when it had no
 * timestamps. */
static dmlops_status time_once(dmlops_command_list *list, double *t, bool *gpu)
{
    dmlops_execution_stats s = {-1, 0};
    dmlops_status st = dmlops_command_list_execute(list);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_get_stats(list, &s);
    if (st != DMLOPS_SUCCESS) return st;
    *gpu = *gpu && s.gpu_seconds >= 0;
    *t = s.gpu_seconds >= 0 ? s.gpu_seconds : s.wall_seconds;
    return DMLOPS_SUCCESS;
}

static double min_of(const double *t, uint32_t n)
{
    double m = t[0];
    for (uint32_t i = 1; i < n; i++) m = t[i] < m ? t[i] : m;
    return m;
}

/* Median seconds of iters host memcpy (fill: memset) calls over bytes. */
static double time_host(host_mem *h, uint64_t bytes, uint32_t iters, bool fill, double *t)
{
    for (uint32_t i = 0; i < iters; i++) {
        double t0 = cli_now();
        if (fill) memset(h->dst, (int)(i & 1), (size_t)bytes);
        else memcpy(h->dst, h->src, (size_t)bytes);
        t[i] = cli_now() - t0;
        h->src[0] ^= h->dst[bytes - 1]; /* a dependency, so the call cannot be dropped */
    }
    return cli_median(t, iters);
}

/* The device objects of one case, destroyed together. */
typedef struct case_objs {
    dmlops_operator *op;
    dmlops_buffer *buf[3], *copy_src, *copy_dst;
    dmlops_command_list *list, *copy, *ccopy; /* the case; vkCmdCopyBuffer; the compute copy */
} case_objs;

static void case_objs_free(case_objs *o)
{
    dmlops_command_list_destroy(o->list);
    dmlops_command_list_destroy(o->copy);
    dmlops_command_list_destroy(o->ccopy);
    dmlops_operator_destroy(o->op);
    for (int i = 0; i < 3; i++) dmlops_buffer_destroy(o->buf[i]);
    dmlops_buffer_destroy(o->copy_src);
    dmlops_buffer_destroy(o->copy_dst);
    memset(o, 0, sizeof *o);
}

static void skip(bench_result *r, const char *what, dmlops_status st)
{
    snprintf(r->skipped, sizeof r->skipped, "%s: %s: %s", what, dmlops_status_string(st), dmlops_last_error_message());
}

/* Creates the case's operator and buffers with their inputs, and a list holding it. */
static dmlops_status case_setup(dmlops_context *ctx, const bench_case *c, host_mem *h, case_objs *o, bench_result *r)
{
    dmlops_binding b[3];
    dmlops_status st = dmlops_operator_create(ctx, &c->desc, &o->op);
    if (st != DMLOPS_SUCCESS) return skip(r, "operator_create", st), st;
    for (uint32_t i = 0; i <= c->ninputs; i++) {
        uint64_t bytes = c->bt[i].TotalTensorSizeInBytes;
        if (!host_reserve(h, (size_t)bytes)) {
            snprintf(r->skipped, sizeof r->skipped, "out of host memory");
            return DMLOPS_ERROR_OUT_OF_HOST_MEMORY;
        }
        st = dmlops_buffer_create(ctx, bytes, &o->buf[i]);
        if (st == DMLOPS_SUCCESS && i < c->ninputs) {
            bench_input(c, i, h->dst, bytes);
            st = dmlops_buffer_write(o->buf[i], 0, h->dst, bytes);
        }
        if (st != DMLOPS_SUCCESS) return skip(r, "buffer", st), st;
        b[i] = (dmlops_binding){o->buf[i], 0, bytes};
    }
    st = dmlops_command_list_create(ctx, &o->list);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_record(o->list, o->op, c->ninputs, b, 1, &b[c->ninputs]);
    if (st != DMLOPS_SUCCESS) skip(r, "record", st);
    return st;
}

/* The Vulkan baselines over copy_bytes: a vkCmdCopyBuffer, and the compute copy over the
 * same bytes rounded up to its 16-byte granule, each alone in a command list. */
static dmlops_status baselines_setup(dmlops_context *ctx, uint64_t copy_bytes, case_objs *o, bench_result *r)
{
    const uint64_t cc_bytes = (copy_bytes + 15) & ~15ull;
    dmlops_status st = dmlops_buffer_create(ctx, cc_bytes, &o->copy_src);
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, cc_bytes, &o->copy_dst);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_create(ctx, &o->copy);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_record_copy(o->copy, o->copy_dst, 0, o->copy_src, 0, copy_bytes);
    if (st != DMLOPS_SUCCESS) return skip(r, "copy", st), st;
    st = dmlops_command_list_create(ctx, &o->ccopy);
    if (st == DMLOPS_SUCCESS)
        st = dmlops_command_list_record_compute_copy(o->ccopy, o->copy_dst, 0, o->copy_src, 0, cc_bytes);
    if (st != DMLOPS_SUCCESS) return skip(r, "compute copy", st), st;
    r->compute_copy_bytes = cc_bytes;
    return DMLOPS_SUCCESS;
}

#define WARM_S 0.05 /* seconds of warm-up rounds, at least, before a case is timed */

/* Times the case's list and, on Vulkan, its two baselines: warm-up runs of each, the
 * case's second deciding the iteration count, then that many rounds of case, copy,
 * compute copy in turn, so that a machine whose load changes meanwhile slows all three
 * alike and the ratios of the medians stay fair. The first run of a new pipeline can
 * include its compilation (lavapipe compiles machine code at the first dispatch, tens of
 * milliseconds), which must not decide the count: a 16 MiB case got the minimum of 3
 * iterations that way, and its median swung with one slow round. */
static dmlops_status time_case(case_objs *o, const bench_policy *pol, uint32_t fixed, uint64_t copy_bytes,
                               bench_result *r, double **t)
{
    double warm;
    bool gpu = true, bgpu = true;
    dmlops_command_list *lists[3] = {o->list, o->copy, o->ccopy};
    const int nlists = o->copy ? 3 : 1;
    dmlops_status st = DMLOPS_SUCCESS;
    /* Warm-up rounds go on for WARM_S of wall time too: a GPU lowers its clocks while the
     * host prepares a case, and ramps them up over milliseconds of load. The H200's first
     * run had two warm-up rounds (a millisecond at 256 MiB) and its baselines moved 2-4x
     * between cases of one run (docs/performance.md). */
    const double warm_from = cli_now();
    for (int round = 0; st == DMLOPS_SUCCESS && (round < 2 || (round < 1000 && cli_now() - warm_from < WARM_S));
         round++) {
        st = time_once(o->list, &warm, &gpu);
        for (int k = 1; k < nlists && st == DMLOPS_SUCCESS; k++) st = time_once(lists[k], &(double){0}, &bgpu);
    }
    if (st != DMLOPS_SUCCESS) return skip(r, "execute", st), st;
    r->iterations = iterations_for(pol, fixed, warm);
    const size_t n = r->iterations > BASELINE_MIN_ITERS ? r->iterations : BASELINE_MIN_ITERS;
    *t = calloc(3 * (size_t)n, sizeof **t); /* the case's times, then each baseline's */
    if (!*t) {
        snprintf(r->skipped, sizeof r->skipped, "out of host memory");
        return DMLOPS_ERROR_OUT_OF_HOST_MEMORY;
    }
    gpu = true;
    for (uint32_t i = 0; i < r->iterations && st == DMLOPS_SUCCESS; i++)
        for (int k = 0; k < nlists && st == DMLOPS_SUCCESS; k++)
            st = time_once(lists[k], &(*t)[(size_t)k * n + i], k ? &bgpu : &gpu);
    if (st != DMLOPS_SUCCESS) return skip(r, "execute", st), st;
    r->gpu_timer = gpu;
    r->min_s = min_of(*t, r->iterations);
    r->median_s = cli_median(*t, r->iterations);
    r->gbps = r->median_s > 0 ? (double)r->bytes / r->median_s * 1e-9 : 0;
    if (nlists == 3) {
        double copy_s = cli_median(*t + n, r->iterations), cc_s = cli_median(*t + 2 * n, r->iterations);
        r->copy_gbps = copy_s > 0 ? 2.0 * (double)copy_bytes / copy_s * 1e-9 : 0;
        r->compute_copy_gbps = cc_s > 0 ? 2.0 * (double)r->compute_copy_bytes / cc_s * 1e-9 : 0;
    }
    return DMLOPS_SUCCESS;
}

static void run_case(dmlops_context *ctx, bool vulkan, const bench_case *c, const bench_policy *pol, uint32_t fixed,
                     host_mem *h, bench_result *r)
{
    case_objs o = {0};
    double *t = NULL;
    r->c = c;
    if (case_setup(ctx, c, h, &o, r) != DMLOPS_SUCCESS) goto done;
    dmlops_operator_info info;
    dmlops_operator_get_info(o.op, &info);
    r->bytes = info.bytes_read + info.bytes_written;
    const uint64_t copy_bytes = (r->bytes + 1) / 2;
    /* The rooflines: the same bytes through vkCmdCopyBuffer and the compute copy. */
    if (vulkan && baselines_setup(ctx, copy_bytes, &o, r) != DMLOPS_SUCCESS) goto done;
    if (time_case(&o, pol, fixed, copy_bytes, r, &t) != DMLOPS_SUCCESS) goto done;
    dmlops_operator_get_info(o.op, &info);
    r->path = info.last_path;
    if (!host_reserve(h, (size_t)copy_bytes)) {
        snprintf(r->skipped, sizeof r->skipped, "out of host memory");
        goto done;
    }
    /* Host baselines take at least BASELINE_MIN_ITERS samples: a big case runs few
     * iterations, and one preempted memcpy must not move the median. */
    const uint32_t base_iters = r->iterations > BASELINE_MIN_ITERS ? r->iterations : BASELINE_MIN_ITERS;
    time_host(h, copy_bytes, 1, false, t);
    double memcpy_s = time_host(h, copy_bytes, base_iters, false, t);
    r->memcpy_gbps = memcpy_s > 0 ? 2.0 * (double)copy_bytes / memcpy_s * 1e-9 : 0;
    if (c->fam->op == DML_OPERATOR_ONE_HOT) {
        uint64_t out = c->bt[2].TotalTensorSizeInBytes;
        if (host_reserve(h, (size_t)out)) {
            r->memset_s = time_host(h, out, base_iters, true, t);
            r->memset_gbps = r->memset_s > 0 ? (double)out / r->memset_s * 1e-9 : 0;
        }
    }
done:
    free(t);
    case_objs_free(&o);
}

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
static void run_overhead(dmlops_context *ctx, bool vulkan, bench_overhead *ov)
{
    small_op so;
    small_op_init(&so);
    dmlops_operator *op = NULL;
    dmlops_buffer *in = NULL, *out = NULL, *ping = NULL, *pong = NULL;
    dmlops_command_list *list = NULL, *empty = NULL;
    dmlops_status st = dmlops_operator_create(ctx, &so.desc, &op);
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, SMALL_BYTES, &in);
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, (uint64_t)SMALL_BYTES * OVERHEAD_OPS, &out);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_create(ctx, &list);
    double t0 = cli_now();
    for (uint32_t i = 0; i < OVERHEAD_OPS && st == DMLOPS_SUCCESS; i++) {
        dmlops_binding bi = {in, 0, SMALL_BYTES}, bo = {out, (uint64_t)SMALL_BYTES * i, SMALL_BYTES};
        st = dmlops_command_list_record(list, op, 1, &bi, 1, &bo);
    }
    double record = cli_now() - t0;
    if (st == DMLOPS_SUCCESS) st = time_small_list(list, OVERHEAD_OPS, &ov->list_us, &ov->list_gpu_us);
    double sync = 0;
    for (uint32_t i = 0; i < OVERHEAD_OPS + 10 && st == DMLOPS_SUCCESS; i++) {
        if (i == 10) t0 = cli_now(); /* after 10 warm-up runs */
        dmlops_binding bi = {in, 0, SMALL_BYTES}, bo = {out, 0, SMALL_BYTES};
        st = dmlops_operator_execute(op, 1, &bi, 1, &bo);
    }
    sync = cli_now() - t0;
    if (st == DMLOPS_SUCCESS) {
        ov->measured = true;
        ov->ops = OVERHEAD_OPS;
        dmlops_command_list_get_counts(list, NULL, &ov->barriers);
        ov->record_us = record * 1e6 / OVERHEAD_OPS;
        ov->sync_us = sync * 1e6 / OVERHEAD_OPS;
    } else {
        fprintf(stderr, "dmlops bench: overhead: %s: %s\n", dmlops_status_string(st), dmlops_last_error_message());
    }
    if (vulkan && st == DMLOPS_SUCCESS) {
        st = dmlops_buffer_create(ctx, 16, &ping);
        if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, 16, &pong);
        if (st == DMLOPS_SUCCESS) st = dmlops_command_list_create(ctx, &empty);
        for (uint32_t i = 0; i < OVERHEAD_OPS && st == DMLOPS_SUCCESS; i++)
            st = dmlops_command_list_record_compute_copy(empty, i & 1 ? ping : pong, 0, i & 1 ? pong : ping, 0, 16);
        if (st == DMLOPS_SUCCESS) st = time_small_list(empty, OVERHEAD_OPS, &ov->empty_us, &ov->empty_gpu_us);
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

/* Operator creation on Vulkan (bench_creation): fresh contexts on the run's device, the
 * first with an empty pipeline cache file in a temporary directory, each later one reading
 * the file the one before wrote when it was destroyed. One warm sample is one context's
 * first operator, which a single reading leaves to the machine's noise: the median of
 * WARM contexts is reported. */
static void run_creation(const dmlops_context_desc *desc, bench_creation *cr)
{
    enum { HOT = 21, WARM = 7 };
    char dir[] = "/tmp/dmlops-bench-XXXXXX", path[64];
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/pipelines", dir);
    small_op so;
    small_op_init(&so);
    dmlops_context_options opt = {.pipeline_cache_path = path};
    double cold = -1, warm[WARM], hot[HOT];
    bool ok = true;
    for (int pass = 0; pass <= WARM && ok; pass++) {
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
    }
    remove(path);
    rmdir(dir);
    if (!ok) {
        fprintf(stderr, "dmlops bench: operator creation: %s\n", dmlops_last_error_message());
        return;
    }
    cr->measured = true;
    cr->cold_ms = cold;
    cr->warm_ms = cli_median(warm, WARM);
    cr->hot_ms = cli_median(hot, HOT);
}

/* CPU backend: each headline case on contexts of 1, 2, 4 ... threads up to the default
 * context's count. */
static void run_scaling(bench_run *run, const bench_case *cases, size_t count, const bench_policy *pol,
                        uint32_t fixed, host_mem *h)
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
                run_case(ctx, false, &cases[i], pol, fixed, h, &r);
                dmlops_context_destroy(ctx);
            }
            s->threads[s->n] = th;
            s->gbps[s->n++] = r.skipped[0] ? 0 : r.gbps;
            if (th >= most) break;
        }
    }
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
    "                    [--report DIR] [--numpy-peer COMMAND] [--no-scaling] [--list]\n"
    "                    [--backend auto|vulkan|cpu] [--device D]\n";

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
    if ((o->csv && !writable_path("--csv", o->csv, false)) || (o->svg && !writable_path("--svg", o->svg, false)) ||
        (o->report && !writable_path("--report", o->report, true)))
        return CLI_USAGE;
    return CLI_OK;
}

static void list_cases(const bench_case *cases, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const bench_case *c = &cases[i];
        printf("%-48s [%u, %u]  %s%s\n", c->label, c->rows, c->cols, c->fam->about,
               bench_case_is_headline(c) ? "  (headline)" : "");
    }
}

int cmd_bench(int argc, char **argv)
{
    bench_opts o = {0};
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc < 0 ? CLI_OK : rc;
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
    const bench_policy pol = o.quick ? (bench_policy){3, 10, 0.005} : (bench_policy){3, 50, 0.25};

    bench_run run = {.quick = o.quick, .count = count};
    run.results = calloc(count ? count : 1, sizeof *run.results);
    dmlops_context *ctx = NULL;
    if (!run.results || (rc = cli_context_create(&o.desc, &ctx)) != CLI_OK) {
        free(run.results);
        free(cases);
        return run.results ? rc : CLI_FAIL;
    }
    dmlops_context_get_info(ctx, &run.ctx);
    describe_run(&run, argc, argv);
    const bool vulkan = run.ctx.backend == DMLOPS_BACKEND_VULKAN;
    printf("dmlops bench on %s (%s), %s backend%s\n", run.device, run.driver, run.backend,
           o.quick ? ", quick suite" : "");
    if (run.ctx.note[0]) printf("note: %s\n", run.ctx.note);
    fflush(stdout);

    bool progress = cli_progress_enabled();
    host_mem h = {0};
    double t0 = cli_now();
    for (size_t i = 0; i < count; i++) {
        if (progress) fprintf(stderr, "\r\033[K[%zu/%zu %.0fs] %s", i + 1, count, cli_now() - t0, cases[i].label);
        run_case(ctx, vulkan, &cases[i], &pol, o.iterations, &h, &run.results[i]);
    }
    for (size_t i = 0; i < count; i++) run.results[i].c = &cases[i];
    if (want_overhead) {
        if (progress) fprintf(stderr, "\r\033[K[overhead] %u small operators", OVERHEAD_OPS);
        run_overhead(ctx, vulkan, &run.overhead);
    }
    dmlops_context_destroy(ctx);
    if (want_overhead && vulkan) {
        if (progress) fprintf(stderr, "\r\033[K[overhead] operator creation");
        dmlops_context_desc d = o.desc;
        d.backend = DMLOPS_BACKEND_VULKAN;
        if (!d.device) d.device = run.ctx.device.uuid_string; /* the run's device */
        run_creation(&d, &run.creation);
    }
    if (o.scaling && !o.quick && run.ctx.backend == DMLOPS_BACKEND_CPU) {
        if (progress) fprintf(stderr, "\r\033[K[scaling] threads");
        run_scaling(&run, cases, count, &pol, o.iterations, &h);
    }
    if (progress) fprintf(stderr, "\r\033[K");
    free(h.src);
    free(h.dst);
    if (o.numpy_peer && count) bench_run_numpy_peer(o.numpy_peer, &run, cases, count);

    bench_print_table(&run, stdout);
    bool ok = true;
    if (o.csv) ok = bench_write_csv(&run, o.csv) && ok;
    if (o.svg) ok = bench_write_svg(&run, o.svg) && ok;
    if (o.report) ok = bench_write_report(&run, o.report) && ok;
    free(run.results);
    free(run.scaling);
    free(cases);
    return ok ? CLI_OK : CLI_FAIL;
}
