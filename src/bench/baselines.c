/* The ceilings measured beside each case.
 *
 * On the device (Vulkan), three copies of the case's traffic (half its sector bytes read,
 * half written, rounded up to 16): vkCmdCopyBuffer; the plain compute copy (one uvec4 per
 * invocation, 64 per workgroup), the ceiling the reports gave before issue 40; and the best
 * copy, the faster of the plain copy and the shape that won the sweep for the case's size.
 * The sweep tries copies that move 1, 2, 4 or 8 uvec4s per invocation, all loads before
 * the stores, over workgroup sizes and grids: on the H100 the best shape differed by size
 * (4 vectors, 1024 x 4224 at 64 MiB; 256 x 65535 at 256 MiB) and beat the plain copy by up
 * to 10% (gpu.md). It runs once per size, a few lists per shape, so that it costs seconds,
 * not minutes; each case then measures only the winner.
 *
 * On the host: memcpy of half the bytes the case counts (its 64-byte lines), one thread,
 * and memset of a ONE_HOT's output. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define BASELINE_MIN_ITERS 15u

const char *bench_shape_name(const dmlops_compute_copy_shape *s, char buf[48])
{
    if (s->workgroup_count)
        snprintf(buf, 48, "%u x uvec4, %u x %u groups", s->vectors, s->workgroup_size, s->workgroup_count);
    else snprintf(buf, 48, "%u x uvec4, %u x auto groups", s->vectors, s->workgroup_size);
    return buf;
}

/* ---- device copies ------------------------------------------------------------------------ */

void bench_copies_free(bench_copies *cp)
{
    for (uint32_t k = 0; k < cp->n; k++) {
        if (cp->src) dmlops_buffer_destroy(cp->src[k]);
        if (cp->dst) dmlops_buffer_destroy(cp->dst[k]);
    }
    free(cp->src);
    free(cp->dst);
    memset(cp, 0, sizeof *cp);
}

dmlops_status bench_copies_create(dmlops_context *ctx, const bench_run *run, uint64_t bytes, bench_copies *cp)
{
    memset(cp, 0, sizeof *cp);
    cp->bytes = bytes < 16 ? 16 : bytes;
    uint32_t want = bench_sets_for(&run->mem, &run->pol, 2 * cp->bytes, &cp->cache_included);
    cp->src = calloc(want, sizeof *cp->src);
    cp->dst = calloc(want, sizeof *cp->dst);
    if (!cp->src || !cp->dst) return DMLOPS_ERROR_OUT_OF_HOST_MEMORY;
    dmlops_status st = DMLOPS_SUCCESS;
    for (uint32_t k = 0; k < want && st == DMLOPS_SUCCESS; k++) {
        cp->n = k + 1;
        st = dmlops_buffer_create(ctx, cp->bytes, &cp->src[k]);
        if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, cp->bytes, &cp->dst[k]);
        if (st != DMLOPS_SUCCESS && k > 0) { /* fewer pairs: still a baseline, with the cache in it */
            dmlops_buffer_destroy(cp->src[k]);
            cp->src[k] = NULL;
            cp->n = k;
            cp->cache_included = true;
            return DMLOPS_SUCCESS;
        }
    }
    return st;
}

dmlops_status bench_record_copy(dmlops_command_list *list, uint32_t k, void *user)
{
    const bench_copy_rec *rec = user;
    const bench_copies *cp = rec->cp;
    dmlops_buffer *src = cp->src[k % cp->n], *dst = cp->dst[k % cp->n];
    if (!rec->compute) return dmlops_command_list_record_copy(list, dst, 0, src, 0, cp->bytes);
    return dmlops_command_list_record_compute_copy_shaped(list, dst, 0, src, 0, cp->bytes, &rec->shape);
}

/* ---- the sweep ------------------------------------------------------------------------------ */

/* The shapes to try over `bytes`: vectors x workgroup sizes x grids. The grids are the
 * one that moves the range in one step (G) and a half, quarter and eighth of it: the
 * H100's winners were G or just under it, and a grid far past G (65535 x 1024 at 64 MiB)
 * ran at half speed. A quick run tries a sixth of the shapes (8 of 48: 1 and 4 vectors,
 * 64 and 256 lanes, G and G/4). */
static uint32_t sweep_shapes(uint64_t bytes, uint32_t max_invocations, bool quick, dmlops_compute_copy_shape *out)
{
    static const uint32_t vectors[] = {1, 2, 4, 8}, workgroups[] = {64, 256, 1024}, divisors[] = {1, 2, 4, 8};
    uint32_t n = 0;
    for (size_t v = 0; v < 4; v++)
        for (size_t w = 0; w < 3; w++) {
            if (workgroups[w] > max_invocations || (quick && (vectors[v] == 2 || vectors[v] == 8 || w == 2))) continue;
            const uint64_t per_step = (uint64_t)vectors[v] * workgroups[w];
            uint64_t g = (bytes / 16 + per_step - 1) / per_step;
            if (g > 65535) g = 65535;
            uint32_t last = 0;
            for (size_t d = 0; d < 4 && n < BENCH_MAX_SHAPES; d++) {
                if (quick && (d == 1 || d == 3)) continue;
                const uint32_t grid = (uint32_t)((g + divisors[d] - 1) / divisors[d]);
                if (grid == last) continue; /* a small range: G/2 may be G */
                out[n++] = (dmlops_compute_copy_shape){vectors[v], workgroups[w], grid};
                last = grid;
            }
        }
    return n;
}

void bench_sweep_copies(dmlops_context *ctx, const bench_run *run, uint64_t tensor_bytes, bench_sweep *sweep)
{
    const bench_policy *pol = &run->pol;
    memset(sweep, 0, sizeof *sweep);
    sweep->tensor_bytes = tensor_bytes;
    sweep->best = (dmlops_compute_copy_shape){1, 64, 0};
    bench_copies cp;
    dmlops_status st = bench_copies_create(ctx, run, (tensor_bytes + 15) & ~15ull, &cp);
    bench_copy_rec plain = {&cp, true, sweep->best};
    bench_list warm = {.record = bench_record_copy, .user = &plain};
    /* The clocks up first, as before a case. */
    if (st == DMLOPS_SUCCESS) st = bench_list_build(ctx, &warm, cp.n, pol->min_list_s);
    if (st == DMLOPS_SUCCESS) st = bench_warm(&warm, 1, pol->warm_s);
    bench_list_free(&warm);
    dmlops_compute_copy_shape shapes[BENCH_MAX_SHAPES];
    const uint32_t nshapes =
        st == DMLOPS_SUCCESS ? sweep_shapes(cp.bytes, run->ctx.device.max_compute_work_group_invocations,
                                            pol->sweep_quick, shapes)
                             : 0;
    /* Three lists a shape: the sweep only ranks shapes; the winner is measured again with
     * every sample beside each case. */
    double t[3];
    const uint32_t samples = pol->samples < 3 ? pol->samples : 3;
    for (uint32_t i = 0; i < nshapes; i++) {
        bench_copy_rec rec = {&cp, true, shapes[i]};
        bench_list l = {.record = bench_record_copy, .user = &rec};
        bool gpu = true;
        dmlops_status s = bench_list_build(ctx, &l, cp.n, pol->min_list_s);
        for (uint32_t k = 0; k < samples && s == DMLOPS_SUCCESS; k++) s = bench_list_time(&l, &t[k], &gpu);
        bench_list_free(&l);
        if (s != DMLOPS_SUCCESS) continue; /* a shape the device refuses is no candidate */
        bench_copy_shape *c = &sweep->tried[sweep->n++];
        c->shape = shapes[i];
        c->gbps = bench_copy_gbps(cp.bytes, cli_median(t, samples));
        if (c->gbps > sweep->best_gbps) {
            sweep->best_gbps = c->gbps;
            sweep->best = shapes[i];
        }
    }
    if (st != DMLOPS_SUCCESS || !sweep->n)
        snprintf(sweep->failed, sizeof sweep->failed, "%s: %s", dmlops_status_string(st ? st : DMLOPS_ERROR_BACKEND),
                 st ? dmlops_last_error_message() : "no shape could be recorded");
    bench_copies_free(&cp);
}

/* ---- host baselines ------------------------------------------------------------------------- */

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

void bench_host_baselines(host_mem *h, const bench_case *c, uint32_t iters, bench_result *r)
{
    /* At least BASELINE_MIN_ITERS samples: a big case runs few iterations, and one
     * preempted memcpy must not move the median. */
    const uint32_t n = iters > BASELINE_MIN_ITERS ? iters : BASELINE_MIN_ITERS;
    const uint64_t copy_bytes = (r->counted + 1) / 2;
    double *t = calloc(n, sizeof *t);
    if (!t || !bench_host_reserve(h, (size_t)copy_bytes)) {
        free(t);
        return; /* the columns stay empty */
    }
    time_host(h, copy_bytes, 1, false, t);
    double memcpy_s = time_host(h, copy_bytes, n, false, t);
    r->memcpy_gbps = bench_copy_gbps(copy_bytes, memcpy_s);
    if (c->fam->op == DML_OPERATOR_ONE_HOT) {
        uint64_t out = c->bt[2].TotalTensorSizeInBytes;
        if (bench_host_reserve(h, (size_t)out)) {
            r->memset_s = time_host(h, out, n, true, t);
            r->memset_gbps = r->memset_s > 0 ? (double)out / r->memset_s * 1e-9 : 0;
        }
    }
    free(t);
}
