/* DML_ONE_HOT: rules and semantics (operators.md section 6). Along Axis of the output
 * each sequence is OffValue except at the position its index names. */
#include <string.h>

#include "elements.h"
#include "gather.h"
#include "status.h"

enum { IDX = 0, VAL = 1, OUT = 2 };

static dmlops_status dm_one_hot_parse(const void *desc, DML_FEATURE_LEVEL level, dm_op *op)
{
    const DML_ONE_HOT_OPERATOR_DESC *d = desc;
    static const dm_type_column columns[] = {DM_COLUMN_INDEX, DM_COLUMN_DATA, DM_COLUMN_DATA};
    static const char *const roles[] = {"IndicesTensor", "ValuesTensor", "OutputTensor"};
    const DML_TENSOR_DESC *descs[] = {d->IndicesTensor, d->ValuesTensor, d->OutputTensor};
    op->axis = d->Axis;
    DM_TRY(dm_op_begin(op, DML_OPERATOR_ONE_HOT, 2, roles, descs));
    DM_TRY(dm_rule_same_rank(op, OUT, IDX));
    DM_TRY(dm_rule_same_rank(op, OUT, VAL));
    DM_TRY(dm_rule_axis(op, OUT));
    DM_TRY(dm_rule_same_type(op, OUT, VAL));
    DM_TRY(dm_rule_sizes_match(op, OUT, IDX, true));
    if (op->t[VAL].count < 2)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                       "ONE_HOT: ValuesTensor has %llu element: it needs at least 2 (OffValue, OnValue)",
                       (unsigned long long)op->t[VAL].count);
    return dm_check_feature_level(op, level, columns);
}

/* OnValue sits at coordinate 1 of the highest-numbered dimension of size > 1
 * (decision; "the fastest-changing dimension" of the docs). */
uint64_t dm_one_hot_on_offset(const dm_op *op)
{
    const dm_tensor *v = &op->t[VAL];
    for (uint32_t d = v->rank; d-- > 0;)
        if (v->sizes[d] > 1) return v->strides[d];
    return 0; /* unreachable: at least 2 elements */
}

/* The source slot is OffValue (element 0 of Values), aux2 is OnValue, aux the indices;
 * only the indices move with the coordinate. */
static void dm_one_hot_lower(const dm_op *op, dm_gather *g)
{
    const dm_tensor *idx = &op->t[IDX], *out = &op->t[OUT];
    g->kernel = DM_KERNEL_ONE_HOT;
    g->esize = out->esize;
    g->rank = out->rank;
    g->axis = (int32_t)op->axis;
    g->n = out->sizes[op->axis];
    g->aux_esize = idx->esize;
    g->aux_dtype = idx->type;
    g->base[DM_SLOT_AUX2] = (int64_t)dm_one_hot_on_offset(op);
    g->binding[DM_SLOT_DST] = OUT;
    g->binding[DM_SLOT_SRC] = VAL;
    g->binding[DM_SLOT_AUX] = IDX;
    g->binding[DM_SLOT_AUX2] = VAL;
    for (uint32_t d = 0; d < out->rank; d++) {
        g->size[d] = out->sizes[d];
        g->stride[DM_SLOT_DST][d] = (int64_t)out->strides[d];
        g->stride[DM_SLOT_AUX][d] = d == op->axis ? 0 : (int64_t)idx->strides[d];
    }
}

/* LOOP(T, READ) once per index type, so that the loops inside decide nothing per index:
 * T is the index's C type and READ the position that a loaded index v names, in [0, n)
 * when it is valid and outside it otherwise (negative values count from the end, 64-bit
 * ones are never truncated). Expects g and n (g->n) in scope. */
#define DM_BY_INDEX_TYPE(LOOP)                                                            \
    switch (g->aux_dtype) {                                                               \
    case DML_TENSOR_DATA_TYPE_UINT32: LOOP(uint32_t, (int64_t)v); break;                  \
    case DML_TENSOR_DATA_TYPE_INT32: LOOP(int32_t, v < 0 ? (int64_t)v + (int64_t)n : (int64_t)v); break; \
    case DML_TENSOR_DATA_TYPE_INT64: LOOP(int64_t, v < 0 && v >= -(int64_t)n ? v + (int64_t)n : v); break; \
    default: LOOP(uint64_t, v < n ? (int64_t)v : -1); break;                              \
    }

/* Writes a row segment's columns [c0, c1): OffValue (unless the caller already filled
 * them), then OnValue where the index names the position. Output element offset e is
 * written at base + (e - shift) * esize: the output itself (shift 0), or a staging
 * block that starts at element `shift`. */
static void dm_one_hot_row(const dm_gather *g, uint8_t *const *slot, const dm_rows *r, uint8_t *base, int64_t shift,
                           bool prefilled)
{
    const uint32_t last = g->rank - 1;
    const int64_t es = g->esize, ds = g->stride[DM_SLOT_DST][last], c0 = r->c0, c1 = r->c1;
    const int64_t is = g->stride[DM_SLOT_AUX][last], ies = g->aux_esize, row = r->off[DM_SLOT_DST] - shift;
    const uint8_t *off_v = slot[DM_SLOT_SRC], *on_v = slot[DM_SLOT_AUX2] + (uint64_t)g->base[DM_SLOT_AUX2] * (uint64_t)es;
    const uint8_t *ip = slot[DM_SLOT_AUX] + r->off[DM_SLOT_AUX] * ies;
#define DM_AT(j) (base + (row + (j) * ds) * es)
    if ((uint32_t)g->axis == last) { /* the row is (part of) one sequence */
        if (!prefilled) dm_fill_run(DM_AT(c0), ds, off_v, (uint64_t)(c1 - c0), g->esize, g->isa);
        int64_t k = dm_read_index(g->aux_dtype, ip, g->n);
        if (k >= c0 && k < c1) memcpy(DM_AT(k), on_v, (size_t)es);
        return;
    }
    const int64_t a = r->coord[g->axis];
    if (is == 0) { /* one index for the whole row: all OnValue or all OffValue */
        bool hit = dm_read_index(g->aux_dtype, ip, g->n) == a;
        if (hit || !prefilled) dm_fill_run(DM_AT(c0), ds, hit ? on_v : off_v, (uint64_t)(c1 - c0), g->esize, g->isa);
        return;
    }
    if (!prefilled) dm_fill_run(DM_AT(c0), ds, off_v, (uint64_t)(c1 - c0), g->esize, g->isa);
    /* An index per element (the axis is a row dimension): OnValue where it names this
     * row's axis position a. One typed load and compare per element, not a decode call
     * each (0.02-0.1x numpy before). */
    const int64_t istep = is * ies;
    const uint64_t n = g->n;
#define DM_HITS(T, READ)                                                                  \
    for (int64_t j = c0; j < c1; j++) {                                                   \
        T v;                                                                              \
        memcpy(&v, ip + j * istep, sizeof v);                                             \
        if ((READ) == a) memcpy(DM_AT(j), on_v, (size_t)es);                              \
    }
    DM_BY_INDEX_TYPE(DM_HITS)
#undef DM_HITS
#undef DM_AT
}

/* Any output layout: row segment by row segment, in place. */
static void dm_one_hot_rows(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1)
{
    dm_rows r;
    for (bool more = dm_rows_begin(&r, g, e0, e1); more; more = dm_rows_next(&r))
        dm_one_hot_row(g, slot, &r, slot[DM_SLOT_DST], 0, false);
}

/* The OnValues of a packed [R, n] output along axis 1 that fall in elements [e0, e1),
 * written at base + (e - e0) * esize: one index load and at most one store per row.
 * Rows wholly inside the range need no range check; the cut rows at its ends do.
 * Inlined once per element size and index type, so nothing is decided per row. */
#define DM_ON_PASS(T, READ)                                                               \
    do {                                                                                  \
        const uint64_t first = (e0 + n - 1) / n, end = e1 / n; /* whole rows */           \
        for (uint64_t r = e0 / n; r < first && r * n < e1; r++) { /* the cut first row */ \
            T v;                                                                          \
            memcpy(&v, ip + (int64_t)r * is, sizeof v);                                  \
            int64_t k = READ;                                                             \
            uint64_t e = r * n + (uint64_t)k;                                             \
            if (k >= 0 && (uint64_t)k < n && e >= e0 && e < e1) memcpy(base + (e - e0) * es, on_v, es); \
        }                                                                                 \
        uint8_t *row = base + (first * n - e0) * es;                                      \
        for (uint64_t r = first; r < end; r++, row += n * es) {                           \
            T v;                                                                          \
            memcpy(&v, ip + (int64_t)r * is, sizeof v);                                  \
            int64_t k = READ;                                                             \
            if ((uint64_t)k < n) memcpy(row + (uint64_t)k * es, on_v, es);               \
        }                                                                                 \
        if (end >= first && end * n < e1) { /* the cut last row */                        \
            T v;                                                                          \
            memcpy(&v, ip + (int64_t)end * is, sizeof v);                                \
            int64_t k = READ;                                                             \
            uint64_t e = end * n + (uint64_t)k;                                           \
            if (k >= 0 && (uint64_t)k < n && e < e1) memcpy(base + (e - e0) * es, on_v, es); \
        }                                                                                 \
    } while (0)

DM_INLINE void dm_on_pass(const dm_gather *g, uint8_t *const *slot, uint64_t e0,
                                                             uint64_t e1, uint8_t *base, const uint64_t es)
{
    const uint64_t n = g->n;
    const int64_t is = g->stride[DM_SLOT_AUX][0] * (int64_t)g->aux_esize;
    const uint8_t *ip = slot[DM_SLOT_AUX], *on_v = slot[DM_SLOT_AUX2] + (uint64_t)g->base[DM_SLOT_AUX2] * es;
    DM_BY_INDEX_TYPE(DM_ON_PASS)
}

static void dm_one_hot_on_pass(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1, uint8_t *base)
{
    switch (g->esize) {
    case 1: dm_on_pass(g, slot, e0, e1, base, 1); break;
    case 2: dm_on_pass(g, slot, e0, e1, base, 2); break;
    case 4: dm_on_pass(g, slot, e0, e1, base, 4); break;
    default: dm_on_pass(g, slot, e0, e1, base, 8); break;
    }
}

/* Blocks of a packed output: in place, blocks of this many bytes are filled and then
 * given their OnValues while still in the cache; when streaming, blocks are built in a
 * staging buffer of this many bytes that stays in L1 and then streamed out, so no line
 * of the output is ever read. */
#define DM_ONE_HOT_BLOCK_BYTES (32u << 10)
#define DM_ONE_HOT_STAGE_BYTES 4096u

/* A packed output: each block of [e0, e1) is one contiguous run, filled with OffValue in
 * one pattern fill (memset when its bytes are equal), then given its OnValues. Short
 * sequences (depth 16) then cost no fill per row. */
static void dm_one_hot_rows_packed(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1)
{
    _Alignas(64) uint8_t stage[DM_ONE_HOT_STAGE_BYTES];
    const bool stream = g->stream;
    const bool tight = g->rank == 2 && g->axis == 1;
    const uint64_t block = (stream ? DM_ONE_HOT_STAGE_BYTES : DM_ONE_HOT_BLOCK_BYTES) / g->esize;
    for (uint64_t b0 = e0; b0 < e1; b0 += block) {
        const uint64_t b1 = b0 + block < e1 ? b0 + block : e1;
        uint8_t *out = stream ? stage : slot[DM_SLOT_DST] + b0 * g->esize;
        dm_fill_run(out, 1, slot[DM_SLOT_SRC], b1 - b0, g->esize, g->isa);
        if (tight) {
            dm_one_hot_on_pass(g, slot, b0, b1, out);
        } else {
            dm_rows r;
            for (bool more = dm_rows_begin(&r, g, b0, b1); more; more = dm_rows_next(&r))
                dm_one_hot_row(g, slot, &r, out, (int64_t)b0, true);
        }
        if (stream) dm_stream_copy(slot[DM_SLOT_DST] + b0 * g->esize, stage, (b1 - b0) * g->esize, g->isa);
    }
    if (stream) dm_stream_fence();
}

/* A packed [O, n, I] output whose axis (n) is not innermost: filled with OffValue, then
 * each index (o, i) turns on the one element (o, k, i) it names, so the indices are read
 * once per output slab [o], not once per output element as row by row (ONE_HOT into
 * [1000, B] ran at 0.02-0.1x numpy). Two orders, inlined once per element size and index
 * type (an on-value memcpy of runtime size was a call per index):
 *
 * - A shallow axis (a column of n elements fits DM_ACROSS_DEEP_BYTES) puts an on-value
 *   in most lines, so the fill and the scatter go a block of columns at a time, the
 *   scatter's stores finding the block still in the cache; filling the whole range first
 *   made each one a miss ([10, B] FLOAT32 ran at 0.66x numpy, now 6x). A unit is a
 *   column (o, i): the n elements (o, 0 .. n-1, i).
 * - A deep axis leaves a few on-values per hundred lines: the unit is an output element,
 *   each range one contiguous fill (which memset may stream) and then its scatter, the
 *   stores outside the range skipped. A range shorter than a row of I elements inside a
 *   slab compares element by element instead, which then reads fewer indices. */
#define DM_ACROSS_DEEP_BYTES 512u
#define DM_ACROSS_BLOCK_BYTES (64u << 10)
#define DM_ACROSS_BLOCKS(T, READ)                                                         \
    for (uint64_t u = u0; u < u1;) {                                                      \
        const uint64_t o = u / I, c0 = u % I, c1 = I - c0 < u1 - u ? I : c0 + (u1 - u);   \
        const uint8_t *row = ip + (int64_t)o * so;                                        \
        uint8_t *slab_out = out + o * slab * es;                                          \
        for (uint64_t b0 = c0; b0 < c1; b0 += width) {                                    \
            const uint64_t b1 = c1 - b0 < width ? c1 : b0 + width;                        \
            if (b1 - b0 == I)                                                             \
                dm_fill_run(slab_out, 1, off_v, slab, (uint32_t)es, isa);                 \
            else                                                                          \
                for (uint64_t k = 0; k < n; k++)                                          \
                    dm_fill_run(slab_out + (k * I + b0) * es, 1, off_v, b1 - b0, (uint32_t)es, isa); \
            for (uint64_t i = b0; i < b1; i++) {                                          \
                T v;                                                                      \
                memcpy(&v, row + (int64_t)i * si, sizeof v);                              \
                const int64_t k = READ;                                                   \
                if (k >= 0 && (uint64_t)k < n) memcpy(slab_out + ((uint64_t)k * I + i) * es, on_v, es); \
            }                                                                             \
        }                                                                                 \
        u += c1 - c0;                                                                     \
    }
#define DM_ACROSS_RANGE(T, READ)                                                          \
    dm_fill_run(out + u0 * es, 1, off_v, u1 - u0, (uint32_t)es, isa);                     \
    for (uint64_t o = u0 / slab; o * slab < u1; o++) {                                    \
        const uint64_t lo = (u0 > o * slab ? u0 : o * slab) - o * slab;                  \
        const uint64_t hi = (u1 < (o + 1) * slab ? u1 : (o + 1) * slab) - o * slab;      \
        const uint8_t *row = ip + (int64_t)o * so;                                        \
        uint8_t *slab_out = out + o * slab * es;                                          \
        if (hi - lo >= I) {                                                               \
            for (uint64_t i = 0; i < I; i++) {                                            \
                T v;                                                                      \
                memcpy(&v, row + (int64_t)i * si, sizeof v);                              \
                const int64_t k = READ;                                                   \
                const uint64_t p = (uint64_t)k * I + i;                                   \
                if (k >= 0 && (uint64_t)k < n && p >= lo && p < hi) memcpy(slab_out + p * es, on_v, es); \
            }                                                                             \
            continue;                                                                     \
        }                                                                                 \
        uint64_t a = lo / I, i = lo % I;                                                  \
        for (uint64_t p = lo; p < hi; p++) {                                              \
            T v;                                                                          \
            memcpy(&v, row + (int64_t)i * si, sizeof v);                                  \
            const int64_t k = READ;                                                       \
            if (k >= 0 && (uint64_t)k == a) memcpy(slab_out + p * es, on_v, es);          \
            if (++i == I) {                                                               \
                i = 0;                                                                    \
                a++;                                                                      \
            }                                                                             \
        }                                                                                 \
    }

DM_INLINE void dm_across(const dm_gather *g, uint8_t *const *slot, uint64_t u0,
                                                            uint64_t u1, const uint64_t es, bool blocks)
{
    const uint32_t ax = (uint32_t)g->axis;
    const uint64_t n = g->n, I = g->size[ax + 1], slab = n * I;
    const int64_t ies = g->aux_esize, so = ax ? g->stride[DM_SLOT_AUX][0] * ies : 0;
    const int64_t si = g->stride[DM_SLOT_AUX][ax + 1] * ies;
    const uint8_t *ip = slot[DM_SLOT_AUX], *off_v = slot[DM_SLOT_SRC];
    const uint8_t *on_v = slot[DM_SLOT_AUX2] + (uint64_t)g->base[DM_SLOT_AUX2] * es;
    uint8_t *out = slot[DM_SLOT_DST];
    const dm_isa isa = g->isa;
    if (blocks) {
        /* blocks of about DM_ACROSS_BLOCK_BYTES, row parts of at least 1 KiB */
        uint64_t width = DM_ACROSS_BLOCK_BYTES / (n * es);
        if (width < 1024 / es) width = 1024 / es;
        DM_BY_INDEX_TYPE(DM_ACROSS_BLOCKS)
    } else {
        DM_BY_INDEX_TYPE(DM_ACROSS_RANGE)
    }
}
#undef DM_ACROSS_BLOCKS
#undef DM_ACROSS_RANGE

static void dm_one_hot_across(const dm_gather *g, uint8_t *const *slot, uint64_t u0, uint64_t u1, bool blocks)
{
    switch (g->esize) {
    case 1: dm_across(g, slot, u0, u1, 1, blocks); break;
    case 2: dm_across(g, slot, u0, u1, 2, blocks); break;
    case 4: dm_across(g, slot, u0, u1, 4, blocks); break;
    default: dm_across(g, slot, u0, u1, 8, blocks); break;
    }
}

static void dm_one_hot_across_blocks(const dm_gather *g, uint8_t *const *slot, uint64_t u0, uint64_t u1)
{
    dm_one_hot_across(g, slot, u0, u1, true);
}

static void dm_one_hot_across_range(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1)
{
    dm_one_hot_across(g, slot, e0, e1, false);
}

static dm_cpu_loop dm_one_hot_cpu_loop(const dm_gather *g)
{
    int64_t packed = 1;
    for (uint32_t d = g->rank; d-- > 0;) {
        if (g->size[d] > 1 && g->stride[DM_SLOT_DST][d] != packed) return (dm_cpu_loop){dm_one_hot_rows, 0};
        packed *= g->size[d];
    }
    /* [n, I] along axis 0 or [O, n, I] along axis 1 (what collapsing leaves of a packed
     * output whose axis is not innermost) */
    if (g->axis >= 0 && (uint32_t)g->axis + 2 == g->rank && g->rank <= 3)
        return (uint64_t)g->n * g->esize > DM_ACROSS_DEEP_BYTES
                   ? (dm_cpu_loop){dm_one_hot_across_range, 0}
                   : (dm_cpu_loop){dm_one_hot_across_blocks, dm_gather_elements(g) / g->n};
    return (dm_cpu_loop){dm_one_hot_rows_packed, 0};
}

static void dm_one_hot_traffic(const dm_op *op, uint64_t *read, uint64_t *written)
{
    const dm_tensor *out = &op->t[OUT], *idx = &op->t[IDX];
    *written = out->count * out->esize;
    *read = dm_tensor_footprint(idx) * idx->esize + 2ull * out->esize;
}

const dm_op_class dm_one_hot_class = {
    .type = DML_OPERATOR_ONE_HOT,
    .name = "ONE_HOT",
    .parse = dm_one_hot_parse,
    .lower = dm_one_hot_lower,
    .cpu_loop = dm_one_hot_cpu_loop,
    .traffic = dm_one_hot_traffic,
};
