/* How a case is timed.
 *
 * The CPU backend, as before issue 40: the operator alone in a command list, executed
 * after warm-up runs, a sample per execution, host wall time, next to host baselines.
 *
 * Vulkan, steadily (issue 40; docs/performance.md, "The GPU method"): the H100's first run
 * timed one execution per sample, and between two the GPU idled while the host waited and
 * resubmitted, so its clocks dropped and the same compute copy moved 900 to 3060 GB/s from
 * case to case. Now each case and each baseline is recorded many times back to back in one
 * command list that runs for at least min_list_s, timed by the GPU timestamps around the
 * whole list; before each case, warm_s of continuous work (the case's lists themselves);
 * and the records rotate over buffer sets, so that a case smaller than the last-level
 * cache is still read from memory. The lists of a case and of its baselines run in turn,
 * sample by sample, so that a change in the machine's state slows all of them alike. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

#define BASELINE_MIN_ITERS 15u
#define MAX_REPS 20000u          /* records in one list: a 4 KiB case at 1 us per record fills 2 ms with 2000 */
#define ASSUMED_LLC (128ull << 20) /* an unknown GPU's cache: above every cache in the table */

/* ---- host memory ---------------------------------------------------------------------- */

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

bool bench_host_reserve(host_mem *h, size_t bytes)
{
    if (bytes == 0) bytes = 1;
    if (h->src && h->dst && bytes <= h->cap) return true;
    bench_host_free(h);
    h->src = host_alloc(bytes);
    h->dst = host_alloc(bytes);
    h->cap = h->src && h->dst ? bytes : 0;
    if (!h->cap) return false;
    for (size_t i = 0; i < bytes; i++) h->src[i] = (uint8_t)(i * 131 + 7);
    memset(h->dst, 0, bytes); /* fault the pages in before anything is timed */
    return true;
}

void bench_host_free(host_mem *h)
{
    free(h->src);
    free(h->dst);
    memset(h, 0, sizeof *h);
}

/* ---- the device's memory ---------------------------------------------------------------- */

/* The host's last-level cache, for a CPU device (lavapipe): 0 when the C library cannot
 * tell. At most ASSUMED_LLC: a core reads through its own complex's L3 (96 MiB on the
 * largest EPYC parts), while the C library may report the whole package's, or what a
 * virtual machine's CPUID makes up (508 MiB on the project's VM). */
static uint64_t host_llc(void)
{
    long v = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
    if (v <= 0) v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return v <= 0 ? 0 : (uint64_t)v < ASSUMED_LLC ? (uint64_t)v : ASSUMED_LLC;
}

void bench_memory_init(const dmlops_context_info *info, bench_memory *mem)
{
    const dmlops_device_info *d = &info->device;
    char sz[32];
    memset(mem, 0, sizeof *mem);
    mem->peak = bench_peak_find(d->name, d->vendor_id, d->device_id);
    const uint64_t host = d->type == DMLOPS_DEVICE_TYPE_CPU ? host_llc() : 0;
    if (mem->peak) {
        mem->llc_bytes = mem->peak->llc_bytes;
        snprintf(mem->llc_from, sizeof mem->llc_from, "%s, the table of known devices%s", cli_bytes(mem->llc_bytes, sz),
                 mem->peak->llc_bound ? " (an upper bound)" : "");
    } else if (host) {
        mem->llc_bytes = host;
        snprintf(mem->llc_from, sizeof mem->llc_from, "%s, the host's last-level cache (a CPU device; at most 128 MiB)",
                 cli_bytes(host, sz));
    } else {
        mem->llc_bytes = ASSUMED_LLC;
        snprintf(mem->llc_from, sizeof mem->llc_from, "%s assumed (a device the table does not know)",
                 cli_bytes(ASSUMED_LLC, sz));
    }
    /* A quarter of the device-local memory, at most 2 GiB: room for the rotating sets of
     * the largest case and its copies without pushing an application's memory out. */
    uint64_t local = 0;
    for (uint32_t i = 0; i < d->memory_heap_count && i < DMLOPS_MAX_MEMORY_HEAPS; i++)
        if (d->memory_heap_device_local[i] && d->memory_heap_size[i] > local) local = d->memory_heap_size[i];
    mem->budget_bytes = local / 4 < (2ull << 30) ? local / 4 : (2ull << 30);
}

uint32_t bench_sets_for(const bench_memory *mem, const bench_policy *pol, uint64_t footprint, bool *cache_included)
{
    const uint64_t target = 3 * mem->llc_bytes;
    *cache_included = false;
    if (!footprint || footprint >= target) return 1;
    uint64_t sets = (target + footprint - 1) / footprint, fit = mem->budget_bytes / footprint;
    if (sets > pol->max_sets) sets = pol->max_sets;
    if (sets > fit) sets = fit ? fit : 1;
    *cache_included = sets * footprint < target;
    return (uint32_t)sets;
}

/* ---- steady lists ------------------------------------------------------------------------ */

/* One execution: its seconds (GPU, else wall; *gpu cleared then). */
static dmlops_status execute_timed(dmlops_command_list *list, double *t, bool *gpu)
{
    dmlops_execution_stats s = {-1, 0};
    dmlops_status st = dmlops_command_list_execute(list);
    if (st == DMLOPS_SUCCESS) st = dmlops_command_list_get_stats(list, &s);
    if (st != DMLOPS_SUCCESS) return st;
    if (s.gpu_seconds < 0) *gpu = false;
    *t = s.gpu_seconds >= 0 ? s.gpu_seconds : s.wall_seconds;
    return DMLOPS_SUCCESS;
}

dmlops_status bench_list_build(dmlops_context *ctx, bench_list *l, uint32_t least, double min_list_s)
{
    uint32_t reps = least ? least : 1;
    dmlops_status st = l->list ? DMLOPS_SUCCESS : dmlops_command_list_create(ctx, &l->list);
    for (int round = 0; st == DMLOPS_SUCCESS; round++) {
        double t = 0;
        bool gpu = true;
        st = dmlops_command_list_reset(l->list);
        for (uint32_t k = 0; k < reps && st == DMLOPS_SUCCESS; k++) st = l->record(l->list, k, l->user);
        /* The first execution may compile pipelines (lavapipe compiles at the first
         * dispatch) and touch memory for the first time: the second one counts. */
        if (st == DMLOPS_SUCCESS) st = execute_timed(l->list, &t, &gpu);
        if (st == DMLOPS_SUCCESS) st = execute_timed(l->list, &t, &gpu);
        if (st != DMLOPS_SUCCESS || t >= min_list_s || reps >= MAX_REPS || round == 4) break;
        /* Aim a quarter past the minimum; records that overlap on the GPU make a longer
         * list cheaper per record than this one measured, hence the rounds. */
        const double want = t > 0 ? ceil(reps * min_list_s * 1.25 / t) : reps * 8.0;
        const uint32_t step = least ? least : 1; /* whole rotations of the sets */
        uint32_t next = want >= MAX_REPS ? MAX_REPS : want > reps ? (uint32_t)want : reps * 2;
        next = (next + step - 1) / step * step;
        reps = next > MAX_REPS ? MAX_REPS : next;
    }
    l->reps = reps;
    if (st == DMLOPS_SUCCESS) dmlops_command_list_get_counts(l->list, NULL, &l->barriers);
    return st;
}

dmlops_status bench_list_time(bench_list *l, double *per_rep, bool *gpu)
{
    double t = 0;
    dmlops_status st = execute_timed(l->list, &t, gpu);
    *per_rep = l->reps ? t / l->reps : t;
    return st;
}

void bench_list_free(bench_list *l)
{
    dmlops_command_list_destroy(l->list);
    l->list = NULL;
}

dmlops_status bench_warm(bench_list *lists, size_t n, double warm_s)
{
    const double t0 = cli_now();
    dmlops_status st = DMLOPS_SUCCESS;
    do {
        for (size_t i = 0; i < n && st == DMLOPS_SUCCESS; i++)
            if (lists[i].list) st = dmlops_command_list_execute(lists[i].list); /* NULL: a list left out */
    } while (st == DMLOPS_SUCCESS && cli_now() - t0 < warm_s);
    return st;
}

/* ---- a case ----------------------------------------------------------------------------- */

static void skip(bench_result *r, const char *what, dmlops_status st)
{
    snprintf(r->skipped, sizeof r->skipped, "%s: %s: %s", what, dmlops_status_string(st), dmlops_last_error_message());
}

/* A case's operator and its buffer sets: n sets of its inputs and output. */
typedef struct case_sets {
    const bench_case *c;
    dmlops_operator *op;
    uint32_t n;
    dmlops_buffer *(*buf)[3];
} case_sets;

static void case_sets_free(case_sets *s)
{
    for (uint32_t k = 0; s->buf && k < s->n; k++)
        for (int i = 0; i < 3; i++) dmlops_buffer_destroy(s->buf[k][i]);
    free(s->buf);
    dmlops_operator_destroy(s->op);
    memset(s, 0, sizeof *s);
}

/* Makes up to `want` sets, each input written from its host image; fewer when the device
 * runs out of memory after the first (s->n says how many). */
static dmlops_status case_sets_create(dmlops_context *ctx, const bench_case *c, uint32_t want, host_mem *h,
                                      case_sets *s, bench_result *r)
{
    s->c = c;
    dmlops_status st = dmlops_operator_create(ctx, &c->desc, &s->op);
    if (st != DMLOPS_SUCCESS) return skip(r, "operator_create", st), st;
    if (!(s->buf = calloc(want, sizeof *s->buf))) {
        snprintf(r->skipped, sizeof r->skipped, "out of host memory");
        return DMLOPS_ERROR_OUT_OF_HOST_MEMORY;
    }
    s->n = want; /* what case_sets_free destroys, whatever happens below */
    for (uint32_t i = 0; i <= c->ninputs && st == DMLOPS_SUCCESS; i++) {
        const uint64_t bytes = c->bt[i].TotalTensorSizeInBytes;
        if (i < c->ninputs) {
            if (!bench_host_reserve(h, (size_t)bytes)) {
                snprintf(r->skipped, sizeof r->skipped, "out of host memory");
                return DMLOPS_ERROR_OUT_OF_HOST_MEMORY;
            }
            bench_input(c, i, h->dst, bytes);
        }
        for (uint32_t k = 0; k < want && st == DMLOPS_SUCCESS; k++) {
            st = dmlops_buffer_create(ctx, bytes, &s->buf[k][i]);
            if (st == DMLOPS_SUCCESS && i < c->ninputs) st = dmlops_buffer_write(s->buf[k][i], 0, h->dst, bytes);
            if (st != DMLOPS_SUCCESS && k > 0 && i == 0) { /* fewer sets, still a case */
                s->n = want = k;
                st = DMLOPS_SUCCESS;
            }
        }
    }
    if (st != DMLOPS_SUCCESS) skip(r, "buffer", st);
    return st;
}

static dmlops_status record_case(dmlops_command_list *list, uint32_t k, void *user)
{
    const case_sets *s = user;
    dmlops_binding b[3];
    for (uint32_t i = 0; i <= s->c->ninputs; i++) {
        dmlops_buffer *buf = s->buf[k % s->n][i];
        b[i] = (dmlops_binding){buf, 0, s->c->bt[i].TotalTensorSizeInBytes};
    }
    return dmlops_command_list_record(list, s->op, s->c->ninputs, b, 1, &b[s->c->ninputs]);
}

static bool same_shape(const dmlops_compute_copy_shape *a, const dmlops_compute_copy_shape *b)
{
    return a->vectors == b->vectors && a->workgroup_size == b->workgroup_size && a->workgroup_count == b->workgroup_count;
}

enum { L_CASE, L_COPY, L_PLAIN, L_BEST, L_TUNED, L_COUNT };

/* Vulkan: the case and its device baselines, steadily (the file's comment). */
static void run_steady(dmlops_context *ctx, const bench_run *run, const bench_case *c, const bench_sweep *sweep,
                       uint32_t fixed, host_mem *h, bench_result *r)
{
    const bench_policy *pol = &run->pol;
    case_sets cs = {0}, tcs = {0};
    bench_copies cp = {0};
    bench_list lists[L_COUNT] = {{0}};
    double *t = NULL;
    uint64_t footprint = 0;
    for (uint32_t i = 0; i <= c->ninputs; i++) footprint += c->bt[i].TotalTensorSizeInBytes;
    r->sector_bytes = r->counted = bench_sector_bytes(bench_case_sectors(c));
    const uint32_t want = bench_sets_for(&run->mem, pol, footprint, &r->cache_included);
    if (case_sets_create(ctx, c, want, h, &cs, r) != DMLOPS_SUCCESS) goto done;
    r->sets = cs.n;
    r->cache_included = r->cache_included || cs.n < want;
    dmlops_operator_info info;
    dmlops_operator_get_info(cs.op, &info);
    r->bytes = info.bytes_read + info.bytes_written;
    /* The ceilings move the same traffic: half the sector bytes read, half written. */
    dmlops_status st = bench_copies_create(ctx, run, (r->sector_bytes / 2 + 15) & ~15ull, &cp);
    if (st != DMLOPS_SUCCESS) {
        skip(r, "copy buffers", st);
        goto done;
    }
    r->compute_copy_bytes = cp.bytes;
    const dmlops_compute_copy_shape plain = {1, 64, 0};
    const bool best = sweep && !sweep->failed[0] && !same_shape(&sweep->best, &plain);
    bench_copy_rec recs[L_COUNT] = {{0}};
    recs[L_COPY] = (bench_copy_rec){&cp, false, plain};
    recs[L_PLAIN] = (bench_copy_rec){&cp, true, plain};
    recs[L_BEST] = (bench_copy_rec){&cp, true, best ? sweep->best : plain};
    lists[L_CASE] = (bench_list){.record = record_case, .user = &cs};
    for (int k = L_COPY; k <= L_BEST; k++) lists[k] = (bench_list){.record = bench_record_copy, .user = &recs[k]};
    /* With --tuning, the case on the tuned context too, in the same rounds (an unused
     * best-copy list keeps its place and stays empty). */
    const bool tuned = run->tuned && case_sets_create(run->tuned, c, cs.n, h, &tcs, r) == DMLOPS_SUCCESS;
    if (tuned) {
        lists[L_TUNED] = (bench_list){.record = record_case, .user = &tcs};
        dmlops_operator_get_tuning(tcs.op, &r->tuning);
    } else if (run->tuned) { /* the tuned side alone failed: the case still runs, and says why */
        snprintf(r->tuning.note, sizeof r->tuning.note, "not run on the tuned context: %.120s", r->skipped);
        r->skipped[0] = 0;
    }
    const int nlists = tuned ? L_COUNT : best ? L_TUNED : L_BEST;
    for (int k = 0; k < nlists && st == DMLOPS_SUCCESS; k++)
        if (k != L_BEST || best)
            st = bench_list_build(k == L_TUNED ? run->tuned : ctx, &lists[k], k == L_CASE ? cs.n : k == L_TUNED ? tcs.n : cp.n,
                                  pol->min_list_s);
    if (st == DMLOPS_SUCCESS) st = bench_warm(lists, (size_t)nlists, pol->warm_s);
    const uint32_t n = fixed ? fixed : pol->samples;
    if (st == DMLOPS_SUCCESS && !(t = calloc((size_t)n * L_COUNT, sizeof *t))) st = DMLOPS_ERROR_OUT_OF_HOST_MEMORY;
    bool gpu = true, bgpu = true;
    for (uint32_t i = 0; i < n && st == DMLOPS_SUCCESS; i++)
        for (int k = 0; k < nlists && st == DMLOPS_SUCCESS; k++)
            if (lists[k].list) st = bench_list_time(&lists[k], &t[(size_t)k * n + i], k ? &bgpu : &gpu);
    if (st != DMLOPS_SUCCESS) {
        skip(r, "execute", st);
        goto done;
    }
    r->steady = true;
    r->gpu_timer = gpu;
    r->iterations = n;
    r->reps = lists[L_CASE].reps;
    r->barriers = lists[L_CASE].barriers;
    double lo = t[0];
    for (uint32_t i = 1; i < n; i++) lo = t[i] < lo ? t[i] : lo;
    r->min_s = lo;
    r->median_s = cli_median(t, n);
    r->gbps = r->median_s > 0 ? (double)r->counted / r->median_s * 1e-9 : 0;
    r->copy_gbps = bench_copy_gbps(cp.bytes, cli_median(t + (size_t)L_COPY * n, n));
    r->compute_copy_gbps = bench_copy_gbps(cp.bytes, cli_median(t + (size_t)L_PLAIN * n, n));
    r->best_copy_gbps = r->compute_copy_gbps;
    r->best_shape = plain;
    const double best_gbps = best ? bench_copy_gbps(cp.bytes, cli_median(t + (size_t)L_BEST * n, n)) : 0;
    if (best && best_gbps > r->best_copy_gbps) {
        r->best_copy_gbps = best_gbps;
        r->best_shape = sweep->best;
    }
    if (tuned) r->tuned_median_s = cli_median(t + (size_t)L_TUNED * n, n);
    dmlops_operator_get_info(cs.op, &info);
    r->path = info.last_path;
    bench_host_baselines(h, c, n, r);
done:
    for (int k = 0; k < L_COUNT; k++) bench_list_free(&lists[k]);
    free(t);
    bench_copies_free(&cp);
    case_sets_free(&tcs);
    case_sets_free(&cs);
}

static uint32_t iterations_for(const bench_policy *p, uint32_t fixed, double first_s)
{
    if (fixed) return fixed;
    double n = first_s > 0 ? p->budget_s / first_s : p->max_iters;
    return n < p->min_iters ? p->min_iters : n > p->max_iters ? p->max_iters : (uint32_t)n;
}

/* The CPU backend: the operator alone in a command list, warm-up rounds (two, and more
 * for BENCH_CPU_WARM_S; the second decides the sample count, since the first may include
 * one-time work), then a sample per execution. */
static void run_samples(dmlops_context *ctx, const bench_run *run, const bench_case *c, uint32_t fixed, host_mem *h,
                        bench_result *r)
{
    case_sets cs = {0};
    bench_list l = {.record = record_case, .user = &cs, .reps = 1};
    double *t = NULL, warm = 0;
    bool gpu = true;
    dmlops_status st = case_sets_create(ctx, c, 1, h, &cs, r);
    if (st != DMLOPS_SUCCESS) goto done;
    dmlops_operator_info info;
    dmlops_operator_get_info(cs.op, &info);
    r->bytes = info.bytes_read + info.bytes_written;
    r->sector_bytes = bench_sector_bytes(bench_case_sectors(c));
    r->counted = bench_case_line_bytes(c);
    r->sets = 1;
    st = dmlops_command_list_create(ctx, &l.list);
    if (st == DMLOPS_SUCCESS) st = record_case(l.list, 0, &cs);
    const double warm_from = cli_now();
    for (int round = 0;
         st == DMLOPS_SUCCESS && (round < 2 || (round < 1000 && cli_now() - warm_from < BENCH_CPU_WARM_S)); round++)
        st = bench_list_time(&l, &warm, &gpu);
    r->iterations = iterations_for(&run->pol, fixed, warm);
    if (st == DMLOPS_SUCCESS && !(t = calloc(r->iterations, sizeof *t))) st = DMLOPS_ERROR_OUT_OF_HOST_MEMORY;
    gpu = true;
    for (uint32_t i = 0; i < r->iterations && st == DMLOPS_SUCCESS; i++) st = bench_list_time(&l, &t[i], &gpu);
    if (st != DMLOPS_SUCCESS) {
        skip(r, "execute", st);
        goto done;
    }
    r->reps = 1;
    r->gpu_timer = gpu;
    double lo = t[0];
    for (uint32_t i = 1; i < r->iterations; i++) lo = t[i] < lo ? t[i] : lo;
    r->min_s = lo;
    r->median_s = cli_median(t, r->iterations);
    r->gbps = r->median_s > 0 ? (double)r->counted / r->median_s * 1e-9 : 0;
    dmlops_operator_get_info(cs.op, &info);
    r->path = info.last_path;
    bench_host_baselines(h, c, r->iterations, r);
done:
    free(t);
    bench_list_free(&l);
    case_sets_free(&cs);
}

void bench_run_case(dmlops_context *ctx, const bench_run *run, const bench_case *c, const bench_sweep *sweep,
                    uint32_t fixed_iters, host_mem *h, bench_result *r)
{
    memset(r, 0, sizeof *r);
    r->c = c;
    if (bench_is_vulkan(run)) run_steady(ctx, run, c, sweep, fixed_iters, h, r);
    else run_samples(ctx, run, c, fixed_iters, h, r);
}
