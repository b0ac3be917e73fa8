#include "tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "fault.h"
#include "status.h"

uint32_t dmlops_data_type_size(DML_TENSOR_DATA_TYPE type)
{
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT8:
    case DML_TENSOR_DATA_TYPE_INT8: return 1;
    case DML_TENSOR_DATA_TYPE_FLOAT16:
    case DML_TENSOR_DATA_TYPE_UINT16:
    case DML_TENSOR_DATA_TYPE_INT16: return 2;
    case DML_TENSOR_DATA_TYPE_FLOAT32:
    case DML_TENSOR_DATA_TYPE_UINT32:
    case DML_TENSOR_DATA_TYPE_INT32: return 4;
    case DML_TENSOR_DATA_TYPE_FLOAT64:
    case DML_TENSOR_DATA_TYPE_UINT64:
    case DML_TENSOR_DATA_TYPE_INT64: return 8;
    default: return 0;
    }
}

bool dm_calc_min_bytes(uint32_t esize, uint32_t rank, const uint32_t *sizes,
                       const uint64_t *strides, uint64_t *bytes, uint64_t *span)
{
    uint64_t last = 0, n;
    for (uint32_t i = 0; i < rank; i++) {
        uint64_t step;
        if (sizes[i] == 0) return false;
        if (!dm_mul_u64((uint64_t)sizes[i] - 1, strides[i], &step) || !dm_add_u64(last, step, &last))
            return false;
    }
    if (!dm_add_u64(last, 1, &n) || !dm_mul_u64(n, esize, &n) || !dm_align_up_u64(n, 4, bytes))
        return false;
    *span = last + 1;
    return true;
}

uint64_t dmlops_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE type, uint32_t dimension_count,
                                        const uint32_t *sizes, const uint32_t *strides)
{
    uint32_t esize = dmlops_data_type_size(type);
    uint64_t st[DM_MAX_RANK], bytes, span, packed = 1;
    if (!esize || !sizes || dimension_count == 0 || dimension_count > DM_MAX_RANK) return 0;
    for (uint32_t i = dimension_count; i-- > 0;) {
        st[i] = strides ? strides[i] : packed;
        if (!strides && !dm_mul_u64(packed, sizes[i], &packed)) return 0;
    }
    return dm_calc_min_bytes(esize, dimension_count, sizes, st, &bytes, &span) ? bytes : 0;
}

typedef struct dm_dim {
    uint64_t stride, extent; /* extent = (size - 1) * stride */
    uint32_t size;
} dm_dim;

static int dm_dim_cmp(const void *a, const void *b)
{
    const dm_dim *x = a, *y = b;
    return x->stride < y->stride ? -1 : x->stride > y->stride;
}

static int dm_u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t dm_gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Bounds of the exact checks below, so that validation stays cheap: enumeration sorts
 * up to 2^21 offsets (16 MiB, and as much again for the C library's merge sort),
 * counting keeps two arrays of 2 * 2^23 + 1 bytes (32 MiB); a hostile descriptor costs
 * well under a second (a reach of 2^25 took 128 MiB and up to 5 s, found by an audit). */
enum { DM_EXACT_COUNT_LIMIT = 1 << 21, DM_EXACT_REACH_LIMIT = 1 << 23 };

/* Exhaustive: every offset, sorted; modulo m, or exact when m is 0 (the split by
 * residues below). NO_MEMORY when out of memory. */
static dm_layout dm_unique_by_sorting(const dm_dim *dims, uint32_t n, uint64_t count, uint64_t m)
{
    if (m && count > m) return DM_LAYOUT_OVERLAPPING;
    uint64_t *offs = dm_malloc(count * sizeof *offs);
    if (!offs) return DM_LAYOUT_NO_MEMORY;
    /* Per dimension, what a step forward adds and what wrapping back to 0 adds (as an
     * addition modulo m, or modulo 2^64 when m is 0). */
    uint64_t step[DM_MAX_RANK], wrap[DM_MAX_RANK];
    for (uint32_t d = 0; d < n; d++) {
        step[d] = m ? dims[d].stride % m : dims[d].stride;
        wrap[d] = m ? (m - (uint64_t)(dims[d].size - 1) % m * step[d] % m) % m : (uint64_t)0 - dims[d].extent;
    }
    uint32_t coord[DM_MAX_RANK] = {0};
    uint64_t off = 0;
    for (uint64_t k = 0; k < count; k++) {
        offs[k] = off;
        for (uint32_t d = 0; d < n; d++) {
            const bool on = ++coord[d] < dims[d].size;
            if (!on) coord[d] = 0;
            off += on ? step[d] : wrap[d];
            if (m) off %= m;
            if (on) break;
        }
    }
    qsort(offs, count, sizeof *offs, dm_u64_cmp);
    dm_layout r = DM_LAYOUT_ONE_TO_ONE;
    for (uint64_t k = 1; k < count && r == DM_LAYOUT_ONE_TO_ONE; k++)
        if (offs[k] == offs[k - 1]) r = DM_LAYOUT_OVERLAPPING;
    free(offs);
    return r;
}

/* Two coordinates collide iff some non-zero d with |d_i| < size_i has sum(d_i * s_i) = 0.
 * ways[v] counts (capped at 2) the d vectors over the dimensions so far that sum to v;
 * the layout is one-to-one iff only d = 0 reaches 0. Capping keeps min(2, true count). */
static dm_layout dm_unique_by_counting(const dm_dim *dims, uint32_t n, uint64_t reach)
{
    uint64_t width = 2 * reach + 1;
    uint8_t *ways = dm_calloc(width, 1), *next = dm_calloc(width, 1);
    dm_layout r = DM_LAYOUT_NO_MEMORY;
    if (ways && next) {
        ways[reach] = 1;
        for (uint32_t d = 0; d < n; d++) {
            uint64_t s = dims[d].stride, half = (uint64_t)(dims[d].size - 1);
            for (uint64_t res = 0; res < s && res < width; res++) {
                /* Sliding sum over the 2 * half + 1 neighbours in this residue class. */
                uint64_t len = (width - res + s - 1) / s, sum = 0;
                for (uint64_t m = 0; m < len + half; m++) {
                    if (m < len) sum += ways[res + m * s];
                    if (m >= 2 * half + 1 && m - (2 * half + 1) < len) sum -= ways[res + (m - 2 * half - 1) * s];
                    if (m >= half && m - half < len) next[res + (m - half) * s] = (uint8_t)(sum > 2 ? 2 : sum);
                }
            }
            uint8_t *t = ways;
            ways = next;
            next = t;
        }
        r = ways[reach] >= 2 ? DM_LAYOUT_OVERLAPPING : DM_LAYOUT_ONE_TO_ONE;
    }
    free(ways);
    free(next);
    return r;
}

static dm_layout dm_layout_group(dm_dim *dims, uint32_t n, uint64_t *budget);

/* The split by residues: if the strides of a subset S of dims share a divisor m and the
 * other dimensions T reach distinct offsets modulo m, two coordinates with one offset
 * agree on T (their offsets agree modulo m, where S adds nothing), hence on S's part,
 * so the layout is one-to-one when S's, with strides divided by m, is. This proves the
 * layouts whose small-stride dimension interleaves with the others only through a
 * modulus, such as sizes {1024, 64, 1024} strides {64, 65, 65536}, without enumerating
 * them. ONE_TO_ONE, or UNPROVEN when no subset splits so within the budget of residues
 * to enumerate (shared with the recursion, so a hostile layout costs at most a few
 * enumerations of DM_EXACT_COUNT_LIMIT). */
static dm_layout dm_layout_residues(const dm_dim *dims, uint32_t n, uint64_t *budget)
{
    for (uint32_t mask = 1; mask + 1 < (1u << n); mask++) {
        uint64_t m = 0, tcount = 1;
        dm_dim sdims[DM_MAX_RANK], tdims[DM_MAX_RANK];
        uint32_t ns = 0, nt = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (mask >> i & 1) {
                m = dm_gcd(m, dims[i].stride);
                sdims[ns++] = dims[i];
            } else {
                tcount *= dims[i].size; /* <= the tensor's element count, < 2^32 */
                tdims[nt++] = dims[i];
            }
        }
        if (m < 2 || tcount > m || tcount > *budget) continue;
        *budget -= tcount;
        const dm_layout t = dm_unique_by_sorting(tdims, nt, tcount, m);
        if (t == DM_LAYOUT_NO_MEMORY) return t;
        if (t != DM_LAYOUT_ONE_TO_ONE) continue;
        for (uint32_t i = 0; i < ns; i++) {
            sdims[i].stride /= m;
            sdims[i].extent /= m;
        }
        const dm_layout s = dm_layout_group(sdims, ns, budget);
        if (s == DM_LAYOUT_ONE_TO_ONE || s == DM_LAYOUT_NO_MEMORY) return s;
    }
    return DM_LAYOUT_UNPROVEN;
}

/* dims sorted by stride, all of size > 1 and stride > 0. If the strides of the larger
 * dimensions share a divisor g greater than the whole reach R of the smaller ones, the two
 * groups cannot cancel each other (any non-zero combination of the larger ones is at least
 * g > R in size), so the layout is one-to-one exactly when each group is. Nested layouts
 * (packed, padded, permuted) split down to single dimensions this way; what does not
 * split goes to the exact checks. */
static dm_layout dm_layout_group(dm_dim *dims, uint32_t n, uint64_t *budget)
{
    if (n <= 1) return DM_LAYOUT_ONE_TO_ONE;
    uint64_t reach = 0;
    for (uint32_t k = 1; k < n; k++) {
        reach += dims[k - 1].extent; /* cannot overflow: the tensor's span did not */
        uint64_t g = 0;
        for (uint32_t i = k; i < n; i++) g = dm_gcd(g, dims[i].stride);
        if (g <= reach) continue;
        dm_layout inner = dm_layout_group(dims, k, budget);
        if (inner != DM_LAYOUT_ONE_TO_ONE) return inner;
        dm_dim outer[DM_MAX_RANK];
        for (uint32_t i = k; i < n; i++) {
            outer[i - k] = dims[i];
            outer[i - k].stride /= g;
            outer[i - k].extent /= g;
        }
        return dm_layout_group(outer, n - k, budget);
    }
    uint64_t g = 0, count = 1;
    for (uint32_t i = 0; i < n; i++) g = dm_gcd(g, dims[i].stride);
    if (g == 0) return DM_LAYOUT_OVERLAPPING; /* unreachable: strides here are non-zero */
    reach = 0;
    for (uint32_t i = 0; i < n; i++) {
        dims[i].stride /= g;
        dims[i].extent /= g;
        reach += dims[i].extent;
        count *= dims[i].size; /* <= the tensor's element count, < 2^32 */
    }
    if (n == 2) {
        /* d0 * s0 = -d1 * s1 has the smallest non-zero solution |d0| = s1 / g, |d1| = s0 / g. */
        uint64_t g2 = dm_gcd(dims[0].stride, dims[1].stride);
        bool collide = dims[1].stride / g2 < dims[0].size && dims[0].stride / g2 < dims[1].size;
        return collide ? DM_LAYOUT_OVERLAPPING : DM_LAYOUT_ONE_TO_ONE;
    }
    if (count <= DM_EXACT_COUNT_LIMIT) return dm_unique_by_sorting(dims, n, count, 0);
    if (reach <= DM_EXACT_REACH_LIMIT) return dm_unique_by_counting(dims, n, reach);
    return dm_layout_residues(dims, n, budget);
}

dm_layout dm_layout_check(uint32_t rank, const uint32_t *sizes, const uint64_t *strides)
{
    dm_dim dims[DM_MAX_RANK] = {{0, 0, 0}};
    uint32_t n = 0;
    for (uint32_t i = 0; i < rank; i++) {
        if (sizes[i] <= 1) continue;
        if (strides[i] == 0) return DM_LAYOUT_OVERLAPPING;
        dims[n].stride = strides[i];
        dims[n].size = sizes[i];
        /* Cannot overflow: the caller already computed the span of this layout. */
        dims[n].extent = (uint64_t)(sizes[i] - 1) * strides[i];
        n++;
    }
    qsort(dims, n, sizeof dims[0], dm_dim_cmp);
    uint64_t budget = 2 * DM_EXACT_COUNT_LIMIT; /* residues enumerated by the split, in all */
    return dm_layout_group(dims, n, &budget);
}

/* "{a, b, c}" into buf, which the callers size for DM_MAX_RANK values. */
static void dm_u64_list(const uint64_t *v, uint32_t n, char *buf, size_t cap)
{
    size_t k = (size_t)snprintf(buf, cap, "{");
    for (uint32_t i = 0; i < n && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%llu", i ? ", " : "", (unsigned long long)v[i]);
    if (k < cap) snprintf(buf + k, cap - k, "}");
}

static void dm_u32_list(const uint32_t *v, uint32_t n, char *buf, size_t cap)
{
    uint64_t w[DM_MAX_RANK];
    for (uint32_t i = 0; i < n; i++) w[i] = v[i];
    dm_u64_list(w, n, buf, cap);
}

dmlops_status dm_tensor_parse(const DML_TENSOR_DESC *desc, const char *op, const char *role,
                              bool is_output, dm_tensor *t)
{
    const dmlops_status bad = DMLOPS_ERROR_INVALID_ARGUMENT;
    memset(t, 0, sizeof *t);
    if (!desc) return dm_fail(bad, "%s: %s is NULL", op, role);
    if (desc->Type != DML_TENSOR_TYPE_BUFFER)
        return dm_fail(bad, "%s: %s.Type = %d is invalid: must be DML_TENSOR_TYPE_BUFFER (1)", op, role,
                       (int)desc->Type);
    const DML_BUFFER_TENSOR_DESC *b = desc->Desc;
    if (!b) return dm_fail(bad, "%s: %s.Desc is NULL", op, role);

    t->type = b->DataType;
    t->esize = dmlops_data_type_size(b->DataType);
    if (!t->esize && dmlops_data_type_name(b->DataType)[0] != '?') /* named, as UINT4 (12): no element size */
        return dm_fail(bad, "%s: %s.DataType = %s (%d) is not a data type these operators accept", op, role,
                       dmlops_data_type_name(b->DataType), (int)b->DataType);
    if (!t->esize)
        return dm_fail(bad, "%s: %s.DataType = %d is not a data type these operators accept (nor a "
                            "DML_TENSOR_DATA_TYPE value)", op, role, (int)b->DataType);
    if ((uint32_t)b->Flags & ~(uint32_t)DML_TENSOR_FLAG_OWNED_BY_DML)
        return dm_fail(bad, "%s: %s.Flags = 0x%x has unknown bits", op, role, (unsigned)b->Flags);
    t->owned_by_dml = (b->Flags & DML_TENSOR_FLAG_OWNED_BY_DML) != 0; /* refused after the rules */
    if (b->DimensionCount < 1 || b->DimensionCount > DM_MAX_RANK)
        return dm_fail(bad, "%s: %s.DimensionCount = %u is invalid: must be 1 to 8", op, role, b->DimensionCount);
    if (!b->Sizes) return dm_fail(bad, "%s: %s.Sizes is NULL", op, role);
    t->rank = b->DimensionCount;
    t->packed = b->Strides == NULL;
    t->count = 1;
    for (uint32_t i = 0; i < t->rank; i++) {
        t->sizes[i] = b->Sizes[i];
        if (b->Sizes[i] == 0)
            return dm_fail(bad, "%s: %s.Sizes[%u] = 0 is invalid: every size must be at least 1", op, role, i);
        t->count *= b->Sizes[i]; /* < 2^32 * 2^32 after the check below on each step */
        if (t->count > UINT32_MAX)
            return dm_fail(bad, "%s: %s has more than 2^32 - 1 elements (Sizes[0..%u] multiply to %llu)", op,
                           role, i, (unsigned long long)t->count);
    }
    uint64_t packed = 1;
    for (uint32_t i = t->rank; i-- > 0;) {
        t->strides[i] = b->Strides ? b->Strides[i] : packed;
        packed *= t->sizes[i];
    }
    if (!dm_calc_min_bytes(t->esize, t->rank, t->sizes, t->strides, &t->min_bytes, &t->span))
        return dm_fail(bad, "%s: %s: the minimum buffer size (DMLCalcBufferTensorSize) for these Sizes%s overflows 64 bits",
                       op, role, b->Strides ? " and Strides" : "");
    t->total_bytes = b->TotalTensorSizeInBytes;
    if (t->total_bytes < t->min_bytes)
        return dm_fail(bad, "%s: %s.TotalTensorSizeInBytes = %llu is below the minimum %llu for these Sizes%s",
                       op, role, (unsigned long long)t->total_bytes, (unsigned long long)t->min_bytes,
                       b->Strides ? " and Strides" : "");
    if (t->total_bytes % 4)
        return dm_fail(bad, "%s: %s.TotalTensorSizeInBytes = %llu is not a multiple of 4", op, role,
                       (unsigned long long)t->total_bytes);
    t->base_alignment = b->GuaranteedBaseOffsetAlignment;
    if (t->base_alignment && (!dm_is_pow2_u64(t->base_alignment) || t->base_alignment < t->esize))
        return dm_fail(bad,
                       "%s: %s.GuaranteedBaseOffsetAlignment = %u is invalid: must be 0 or a power of two >= "
                       "the element size %u",
                       op, role, t->base_alignment, t->esize);
    if (is_output) {
        for (uint32_t i = 0; i < t->rank; i++)
            if (t->strides[i] == 0 && t->sizes[i] > 1)
                return dm_fail(bad,
                               "%s: %s.Strides[%u] = 0 with Sizes[%u] = %u: output elements would share an "
                               "address",
                               op, role, i, i, t->sizes[i]);
        dm_layout layout = dm_layout_check(t->rank, t->sizes, t->strides);
        if (layout != DM_LAYOUT_ONE_TO_ONE) {
            char st[DM_MAX_RANK * 22 + 4], sz[DM_MAX_RANK * 12 + 4];
            dm_u64_list(t->strides, t->rank, st, sizeof st);
            dm_u32_list(t->sizes, t->rank, sz, sizeof sz);
            if (layout == DM_LAYOUT_NO_MEMORY)
                return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY,
                               "%s: %s.Strides = %s with Sizes = %s: out of host memory proving that no two output "
                               "elements share an address",
                               op, role, st, sz);
            if (layout == DM_LAYOUT_OVERLAPPING)
                return dm_fail(bad, "%s: %s.Strides = %s with Sizes = %s make two output elements share an address",
                               op, role, st, sz);
            /* A limit of the proof, refused as INVALID_ARGUMENT all the same (operators.md:
             * a decision): such layouts are nearly always overlapping ones, which are. */
            return dm_fail(bad,
                           "%s: %s.Strides = %s with Sizes = %s interleave dimensions in a way too large to prove "
                           "that no two output elements share an address",
                           op, role, st, sz);
        }
    }
    return DMLOPS_SUCCESS;
}

uint64_t dm_tensor_footprint(const dm_tensor *t)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < t->rank; d++)
        if (t->strides[d]) n *= t->sizes[d];
    return n;
}

bool dm_walk_next(dm_walk *w)
{
    for (uint32_t d = w->rank; d-- > 0;) {
        if (++w->coord[d] < w->sizes[d]) {
            for (uint32_t s = 0; s < w->nstreams; s++) w->offset[s] += w->strides[s][d];
            return true;
        }
        w->coord[d] = 0;
        for (uint32_t s = 0; s < w->nstreams; s++)
            w->offset[s] -= w->strides[s][d] * (int64_t)(w->sizes[d] - 1);
    }
    return false;
}
