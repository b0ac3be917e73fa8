/* The access model (vk_trace.h): a submission's trace records counted as a GPU's memory
 * system sees them, as Nsight Compute counts them on NVIDIA's GPUs.
 *
 * - A request: the accesses that one access site (a load or store in the source,
 *   glsl/trace.glsl) makes in one warp of DM_TRACE_WARP consecutive invocations of a
 *   workgroup, the k-th time each lane reaches that site. Lanes that run the same code
 *   reach a site together, so on a GPU these are the lanes of one memory instruction;
 *   lanes whose control flow differs are grouped by how often each reached the site,
 *   which counts a divergent warp's instructions too few rather than too many.
 * - Its sectors: the distinct 32-byte sectors its accesses touch, per binding.
 * - Loads in flight: per invocation, in program order, the loads from one binding issued
 *   back to back just before a store, counted at each store that follows a load and
 *   averaged over those stores: a copy moving four 16-byte vectors a step loads four
 *   before it stores; a gather that reads a length, then the element it selects, then
 *   stores, scores 1. Loads from another binding before them (lengths, indices) are left
 *   out, since the trace cannot see dependences and those usually address the rest.
 * Everything is counted from the records alone: no plan, shape or kernel variant is
 * consulted. */
#include <stdlib.h>
#include <string.h>

#include "vk_trace.h"

/* A record's fields (glsl/trace.glsl). */
typedef struct dm_trec {
    uint32_t inv, seq, site, slot, log2_bytes, kind, dispatch, at;
} dm_trec;

enum { DM_TR_LOAD = 0, DM_TR_STORE = 1, DM_TR_ATOMIC = 2 };

static dm_trec dm_trec_of(const uint32_t *w)
{
    return (dm_trec){.inv = w[0],
                     .seq = w[1],
                     .site = w[2] & 0x3fffu,
                     .slot = (w[2] >> 14) & 3u,
                     .log2_bytes = (w[2] >> 16) & 7u,
                     .kind = (w[2] >> 19) & 3u,
                     .dispatch = w[2] >> 21,
                     .at = w[3]};
}

/* Sort keys: records by invocation and program order, then requests by (dispatch, warp)
 * and (site, slot, occurrence). */
typedef struct dm_tkey {
    uint64_t hi, lo;
    uint64_t index; /* the record */
} dm_tkey;

static int dm_tkey_cmp(const void *a, const void *b)
{
    const dm_tkey *x = a, *y = b;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return 0;
}

static int dm_u64_cmp(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sites an invocation reached, with how often: a short list (a kernel has a few dozen
 * sites), searched linearly. */
typedef struct dm_site_count {
    uint32_t site, n;
} dm_site_count;

/* How many times the invocation had reached `site` before (growing the list). */
static bool dm_occurrence(dm_site_count **list, uint32_t *n, uint32_t *cap, uint32_t site, uint32_t *k)
{
    for (uint32_t i = 0; i < *n; i++)
        if ((*list)[i].site == site) {
            *k = (*list)[i].n++;
            return true;
        }
    if (*n == *cap) {
        const uint32_t c = *cap ? *cap * 2 : 64;
        dm_site_count *q = realloc(*list, c * sizeof *q);
        if (!q) return false;
        *list = q;
        *cap = c;
    }
    (*list)[(*n)++] = (dm_site_count){site, 1};
    *k = 0;
    return true;
}

/* The sectors of one request's records [a, b) of `sorted`, counted distinct per slot. */
static uint64_t dm_request_sectors(const dm_tkey *sorted, size_t a, size_t b, const uint32_t *records, uint64_t *scratch)
{
    size_t m = 0;
    for (size_t i = a; i < b; i++) {
        const dm_trec r = dm_trec_of(records + 4 * sorted[i].index);
        const uint64_t first = r.at >> 5, last = ((uint64_t)r.at + (1u << r.log2_bytes) - 1) >> 5;
        for (uint64_t s = first; s <= last; s++) scratch[m++] = (uint64_t)r.slot << 40 | s;
    }
    qsort(scratch, m, sizeof *scratch, dm_u64_cmp);
    uint64_t distinct = 0;
    for (size_t i = 0; i < m; i++) distinct += i == 0 || scratch[i] != scratch[i - 1];
    return distinct;
}

dmlops_status dm_trace_model(const uint32_t *records, uint64_t n, const dm_vk_tracer *tr, dmlops_access_stats *out)
{
    memset(out, 0, sizeof *out);
    out->dispatches = tr->dispatches;
    out->untraced = tr->untraced;
    if (tr->dispatches > DM_TRACE_MAX_DISPATCHES)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "the access trace numbers %u dispatches per execution and this one made %u",
                       DM_TRACE_MAX_DISPATCHES, tr->dispatches);
    if (n == 0) return DMLOPS_SUCCESS;
    /* A key and two sectors per record: checked against a 32-bit size_t too. */
    if (n > SIZE_MAX / (sizeof(dm_tkey) + 2 * sizeof(uint64_t)))
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "the access trace's %llu records do not fit this host's memory",
                       (unsigned long long)n);
    const size_t count = (size_t)n;
    dm_tkey *keys = malloc(count * sizeof *keys);
    uint64_t *sectors = malloc(count * 2 * sizeof *sectors); /* at most two per record (16 bytes) */
    uint64_t *scratch = malloc(DM_TRACE_WARP * 2 * sizeof *scratch);
    dm_site_count *sites = NULL;
    uint32_t nsites = 0, cap_sites = 0;
    dmlops_status st = DMLOPS_SUCCESS;
    if (!keys || !sectors || !scratch) {
        st = dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory counting the access trace");
        goto done;
    }
    /* 1. Program order per invocation: each record's occurrence of its site, the loads in
     * flight, and the distinct sectors of the whole execution. */
    size_t nsectors = 0;
    for (size_t i = 0; i < count; i++) {
        const dm_trec r = dm_trec_of(records + 4 * i);
        if (r.dispatch >= tr->dispatches) {
            st = dm_fail(DMLOPS_ERROR_BACKEND, "access trace record %llu names dispatch %u of %u",
                         (unsigned long long)i, r.dispatch, tr->dispatches);
            goto done;
        }
        keys[i] = (dm_tkey){(uint64_t)r.dispatch << 32 | r.inv, r.seq, i};
        const uint64_t first = r.at >> 5, last = ((uint64_t)r.at + (1u << r.log2_bytes) - 1) >> 5;
        for (uint64_t s = first; s <= last && s <= first + 1; s++) sectors[nsectors++] = (uint64_t)r.slot << 40 | s;
        out->bytes += 1u << r.log2_bytes;
        out->loads += r.kind != DM_TR_STORE;
        out->stores += r.kind != DM_TR_LOAD;
    }
    out->accesses = n;
    qsort(sectors, nsectors, sizeof *sectors, dm_u64_cmp);
    for (size_t i = 0; i < nsectors; i++) out->distinct_sectors += i == 0 || sectors[i] != sectors[i - 1];
    qsort(keys, count, sizeof *keys, dm_tkey_cmp);
    uint64_t runs = 0, in_flight = 0, run = 0, invocation = 0;
    uint32_t run_slot = 0;
    for (size_t i = 0; i < count; i++) {
        if (i == 0 || keys[i].hi != invocation) { /* a new invocation (keys[i - 1] is a request's key by now) */
            invocation = keys[i].hi;
            nsites = 0;
            run = 0;
        }
        const dm_trec r = dm_trec_of(records + 4 * keys[i].index);
        uint32_t k;
        if (!dm_occurrence(&sites, &nsites, &cap_sites, r.site, &k)) {
            st = dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory counting the access trace");
            goto done;
        }
        if (r.kind == DM_TR_LOAD) {
            run = run && r.slot == run_slot ? run + 1 : 1;
            run_slot = r.slot;
        } else {
            runs += run > 0;
            in_flight += run;
            run = 0;
        }
        /* The request's key: the warp of the invocation in its workgroup's order. */
        const uint32_t wg = tr->workgroup[r.dispatch] ? tr->workgroup[r.dispatch] : 1;
        const uint64_t warp = (uint64_t)(r.inv / wg) * ((wg + DM_TRACE_WARP - 1) / DM_TRACE_WARP) + (r.inv % wg) / DM_TRACE_WARP;
        keys[i].hi = (uint64_t)r.dispatch << 48 | warp;
        keys[i].lo = (uint64_t)r.site << 34 | (uint64_t)r.slot << 32 | k;
    }
    out->loads_in_flight = runs ? (double)in_flight / (double)runs : 0;
    /* 2. Requests: runs of equal keys. */
    qsort(keys, count, sizeof *keys, dm_tkey_cmp);
    for (size_t a = 0; a < count;) {
        size_t b = a + 1;
        while (b < count && keys[b].hi == keys[a].hi && keys[b].lo == keys[a].lo) b++;
        if (b - a > DM_TRACE_WARP) {
            st = dm_fail(DMLOPS_ERROR_BACKEND, "access trace: %llu accesses in one warp's request",
                         (unsigned long long)(b - a));
            goto done;
        }
        out->requests++;
        out->sectors += dm_request_sectors(keys, a, b, records, scratch);
        a = b;
    }
done:
    free(keys);
    free(sectors);
    free(scratch);
    free(sites);
    if (st != DMLOPS_SUCCESS) memset(out, 0, sizeof *out);
    return st;
}
