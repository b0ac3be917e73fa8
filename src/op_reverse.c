/* DML_REVERSE_SUBSEQUENCES: rules and semantics (operators.md section 4).
 * out[..i..] = in[..L-1-i..] for i < L, else in[..i..], with L read from
 * SequenceLengths at the same coordinate (Axis coordinate 0) and clamped to the axis. */
#include <string.h>

#include "elements.h"
#include "gather.h"
#include "status.h"

enum { IN = 0, LEN = 1, OUT = 2 };

/* The source coordinate along the axis of output coordinate i. */
static uint64_t dm_reversed(uint64_t i, uint64_t len) { return i < len ? len - 1 - i : i; }

static dmlops_status dm_reverse_parse(const void *desc, DML_FEATURE_LEVEL level, dm_op *op)
{
    const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC *d = desc;
    static const dm_type_column columns[] = {DM_COLUMN_DATA, DM_COLUMN_INDEX, DM_COLUMN_DATA};
    static const char *const roles[] = {"InputTensor", "SequenceLengthsTensor", "OutputTensor"};
    const DML_TENSOR_DESC *descs[] = {d->InputTensor, d->SequenceLengthsTensor, d->OutputTensor};
    op->axis = d->Axis;
    DM_TRY(dm_op_begin(op, DML_OPERATOR_REVERSE_SUBSEQUENCES, 2, roles, descs));
    DM_TRY(dm_rule_same_rank(op, IN, LEN));
    DM_TRY(dm_rule_same_rank(op, IN, OUT));
    DM_TRY(dm_rule_axis(op, IN));
    DM_TRY(dm_rule_same_type(op, IN, OUT));
    DM_TRY(dm_rule_sizes_match(op, IN, OUT, false));
    DM_TRY(dm_rule_sizes_match(op, IN, LEN, true));
    return dm_check_feature_level(op, level, columns);
}

/* Rows leave the axis out of the source offset: the source window adds the reversed (or
 * not) axis coordinate times the axis stride. A length-1 axis is the identity, lowered as
 * an affine copy so that it can use copy regions. */
static bool dm_reverse_slabs(const dm_gather *g, const uint8_t *aux, dm_slab_sink sink, void *user);

static void dm_reverse_lower(const dm_op *op, dm_gather *g)
{
    const dm_tensor *in = &op->t[IN], *len = &op->t[LEN], *out = &op->t[OUT];
    const uint32_t ax = op->axis;
    bool identity = in->sizes[ax] == 1;
    g->kernel = identity ? DM_KERNEL_SLICE : DM_KERNEL_REVERSE;
    g->esize = in->esize;
    g->rank = in->rank;
    g->axis = identity ? -1 : (int32_t)ax;
    g->n = in->sizes[ax];
    g->window = identity ? 0 : in->sizes[ax];
    g->window_stride = identity ? 0 : (int64_t)in->strides[ax];
    g->aux_esize = len->esize;
    g->aux_dtype = len->type;
    g->slabs = identity ? dm_gather_affine_slabs : dm_reverse_slabs;
    g->binding[DM_SLOT_DST] = OUT;
    g->binding[DM_SLOT_SRC] = IN;
    if (!identity) g->binding[DM_SLOT_AUX] = LEN;
    for (uint32_t d = 0; d < in->rank; d++) {
        g->size[d] = in->sizes[d];
        g->stride[DM_SLOT_DST][d] = (int64_t)out->strides[d];
        g->stride[DM_SLOT_SRC][d] = d == ax && !identity ? 0 : (int64_t)in->strides[d];
        g->stride[DM_SLOT_AUX][d] = d == ax || identity ? 0 : (int64_t)len->strides[d];
    }
}

/* Along an outer axis, an output row at axis coordinate i is source row
 * dm_reversed(i, L) whole, L being the row's length: the operator is row copies once
 * the lengths are read, provided they agree along each row. Along the innermost axis a
 * row is one sequence, never one copy. */
static bool dm_reverse_slabs(const dm_gather *g, const uint8_t *aux, dm_slab_sink sink, void *user)
{
    const uint32_t last = g->rank - 1, ax = (uint32_t)g->axis;
    if (ax == last) return false;
    const uint64_t m = g->size[last], run = m * g->esize;
    const int64_t aux_step = g->stride[DM_SLOT_AUX][last] * (int64_t)g->aux_esize;
    dm_walk w = {.rank = last, .nstreams = 3};
    w.offset[0] = g->base[DM_SLOT_SRC];
    w.offset[1] = g->base[DM_SLOT_DST];
    w.offset[2] = g->base[DM_SLOT_AUX];
    for (uint32_t d = 0; d < last; d++) {
        w.sizes[d] = g->size[d];
        w.strides[0][d] = g->stride[DM_SLOT_SRC][d]; /* 0 along the axis: the window adds it */
        w.strides[1][d] = g->stride[DM_SLOT_DST][d];
        w.strides[2][d] = g->stride[DM_SLOT_AUX][d];
    }
    int64_t cached = -1; /* the lengths row last read: it does not move along the axis */
    uint64_t L = 0;
    do {
        if (w.offset[2] != cached) {
            const uint8_t *row = aux + (uint64_t)w.offset[2] * g->aux_esize;
            cached = w.offset[2];
            L = dm_read_length(g->aux_dtype, row, g->n);
            if (aux_step && dm_equal_length_run(g->aux_dtype, row, aux_step, m, g->n) < m)
                return false; /* lengths differ along the row: not one copy */
        }
        const uint64_t s = dm_reversed(w.coord[ax], L);
        sink(user, ((uint64_t)w.offset[0] + s * (uint64_t)g->window_stride) * g->esize,
             (uint64_t)w.offset[1] * g->esize, run);
    } while (dm_walk_next(&w));
    return true;
}

/* Short sequences (gather.h, DM_SHORT_ROW_ELEMENTS), `rows` whole rows a batch apart along
 * dimension rank - 2: each row's length, then its elements one by one. */
#define DM_REVERSE_SHORT_LOOP_AS(T, PREFETCH)                                             \
    for (uint64_t r = 0; r < rows; r++, dst += dst_row, src += src_row, lp += len_row) {  \
        if (PREFETCH) dm_prefetch_row(src, pf);                                           \
        const uint64_t L = dm_read_length(g->aux_dtype, lp, g->n);                        \
        for (uint64_t c = 0; c < m; c++) {                                                \
            const uint64_t j = c < L ? L - 1 - c : c;                                     \
            T v;                                                                          \
            memcpy(&v, src + (int64_t)j * sa * (int64_t)sizeof(T), sizeof v);             \
            memcpy(dst + (int64_t)c * ds * (int64_t)sizeof(T), &v, sizeof v);             \
        }                                                                                 \
    }
#define DM_REVERSE_SHORT_LOOP(T)                                                          \
    if (pf.ahead) {                                                                       \
        DM_REVERSE_SHORT_LOOP_AS(T, true)                                                 \
    } else {                                                                              \
        DM_REVERSE_SHORT_LOOP_AS(T, false)                                                \
    }

static void dm_reverse_short_rows(const dm_gather *g, uint8_t *dst, const uint8_t *src, const uint8_t *lp,
                                  uint64_t rows)
{
    const uint32_t last = g->rank - 1, d = last - 1;
    const uint64_t m = g->size[last];
    const int64_t es = g->esize, sa = g->window_stride, ds = g->stride[DM_SLOT_DST][last];
    const int64_t dst_row = g->stride[DM_SLOT_DST][d] * es, src_row = g->stride[DM_SLOT_SRC][d] * es;
    const int64_t len_row = g->stride[DM_SLOT_AUX][d] * (int64_t)g->aux_esize;
    if (ds == 1 && sa == 1) {
        /* Contiguous rows: each reversed prefix as 16-byte blocks reversed in registers
         * where it has one, in a loop specialised per element size ([N, 16] UINT8 ran at
         * 0.6x numpy, 11 ns a row, element by element). It plans its own prefetch. */
        dm_reverse_rows_prefix(dst, dst_row, src, src_row, rows, m, g->esize, lp, len_row, g->aux_dtype, g->n, g->isa);
        return;
    }
    const dm_prefetch pf = dm_prefetch_plan(src_row, sa, m, g->esize, rows);
    switch (es) {
    case 1: DM_REVERSE_SHORT_LOOP(uint8_t); break;
    case 2: DM_REVERSE_SHORT_LOOP(uint16_t); break;
    case 4: DM_REVERSE_SHORT_LOOP(uint32_t); break;
    default: DM_REVERSE_SHORT_LOOP(uint64_t); break;
    }
}

/* Axis innermost: each row is one sequence with one length. Columns [c0, c1) split into
 * the reversed prefix (a run read backwards) and the copied rest. */
DM_INLINE void dm_reverse_rows_along_axis_as(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1,
                                             dm_prefetch pf, const bool prefetch)
{
    const int64_t es = g->esize, sa = g->window_stride;
    const int64_t ds = g->stride[DM_SLOT_DST][g->rank - 1];
    const dm_mode mode = dm_gather_mode(g);
    const bool short_rows = g->rank >= 2 && g->size[g->rank - 1] <= DM_SHORT_ROW_ELEMENTS;
    dm_rows r;
    for (bool more = dm_rows_begin(&r, g, e0, e1); more; more = dm_rows_next(&r)) {
        const uint64_t batch = dm_rows_batch(&r);
        uint8_t *dst = slot[DM_SLOT_DST] + r.off[DM_SLOT_DST] * es;
        const uint8_t *src = slot[DM_SLOT_SRC] + r.off[DM_SLOT_SRC] * es;
        const uint8_t *aux = slot[DM_SLOT_AUX] + r.off[DM_SLOT_AUX] * g->aux_esize;
        if (short_rows && batch > 1) {
            dm_reverse_short_rows(g, dst, src, aux, batch);
            dm_rows_skip(&r, batch);
            continue;
        }
        /* Whole rows along the next-to-innermost axis step by that axis's strides, without
         * the row iterator (13% of a [32, 32] FLOAT32 reverse's time went to it). */
        const uint32_t d = r.last ? r.last - 1 : 0;
        const int64_t dst_row = g->stride[DM_SLOT_DST][d] * es, src_row = g->stride[DM_SLOT_SRC][d] * es,
                      aux_row = g->stride[DM_SLOT_AUX][d] * (int64_t)g->aux_esize;
        for (uint64_t k = 0; k < batch; k++, dst += dst_row, src += src_row, aux += aux_row) {
            const int64_t L = (int64_t)dm_read_length(g->aux_dtype, aux, g->n);
            const int64_t c0 = r.c0, c1 = r.c1;
            if (prefetch) dm_prefetch_row(src, pf);
            if (c0 < L) {
                int64_t hi = c1 < L ? c1 : L;
                dm_copy_run(dst + c0 * ds * es, ds, src + (L - 1 - c0) * sa * es, -sa, (uint64_t)(hi - c0), g->esize,
                            mode);
            }
            int64_t lo = c0 > L ? c0 : L;
            if (lo < c1)
                dm_copy_run(dst + lo * ds * es, ds, src + lo * sa * es, sa, (uint64_t)(c1 - lo), g->esize, mode);
        }
        dm_rows_skip(&r, batch);
    }
    if (mode.stream) dm_stream_fence();
}

/* The prefetch (of a row's whole sequence, whatever its length) is decided per call,
 * outside the loop. */
static void dm_reverse_rows_along_axis(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1)
{
    const dm_prefetch pf = dm_rows_prefetch(g, g->window_stride);
    if (pf.ahead) dm_reverse_rows_along_axis_as(g, slot, e0, e1, pf, true);
    else dm_reverse_rows_along_axis_as(g, slot, e0, e1, pf, false);
}

/* Runs of columns with one length each, found once and reused for every axis
 * coordinate: at a, run r reads source row dm_reversed(a, len[r]). */
enum { DM_RUNS_MAX = 512 };
typedef struct dm_length_runs {
    uint32_t n;
    int64_t start[DM_RUNS_MAX + 1]; /* start[n]: one past the last column */
    uint64_t len[DM_RUNS_MAX];
} dm_length_runs;

/* Finds the runs of columns [j0, j1) whose lengths (at lp, step bytes apart, column 0
 * first) are equal, stopping when the table is full; returns the column it reached.
 * Each length is read once, inline per type, and compared with the run before it:
 * calling dm_read_length and dm_equal_length_run for every run read 16 lengths ahead for
 * each one-column run and took half of [16, C] UINT8's time once its gather was tiled.
 * Once a column extends a run, dm_equal_length_run skips the rest of it (16 packed
 * lengths at a time: one length for every column is the common case). */
#define DM_FIND_RUNS(T, CLAMP)                                                            \
    while (j < j1) {                                                                      \
        T v;                                                                              \
        memcpy(&v, lp + j * step, sizeof v);                                              \
        const uint64_t L = CLAMP(v, n);                                                   \
        if (runs->n && runs->len[runs->n - 1] == L) {                                     \
            j += (int64_t)dm_equal_length_run(g->aux_dtype, lp + j * step, step, (uint64_t)(j1 - j), n); \
            continue;                                                                     \
        }                                                                                 \
        if (runs->n == DM_RUNS_MAX) break;                                                \
        runs->start[runs->n] = j++;                                                       \
        runs->len[runs->n++] = L;                                                         \
    }
static int64_t dm_find_runs(const dm_gather *g, const uint8_t *lp, int64_t step, int64_t j0, int64_t j1,
                            dm_length_runs *runs)
{
    const uint64_t n = g->n;
    int64_t j = j0;
    runs->n = 0;
    if (step == 0) { /* one length broadcast along the columns */
        runs->start[0] = j0;
        runs->len[0] = dm_read_length(g->aux_dtype, lp, n);
        runs->n = 1;
        j = j1;
    } else {
        switch (g->aux_dtype) {
        case DML_TENSOR_DATA_TYPE_UINT32: DM_FIND_RUNS(uint32_t, dm_clamp_unsigned); break;
        case DML_TENSOR_DATA_TYPE_INT32: DM_FIND_RUNS(int32_t, dm_clamp_signed); break;
        case DML_TENSOR_DATA_TYPE_INT64: DM_FIND_RUNS(int64_t, dm_clamp_signed); break;
        default: DM_FIND_RUNS(uint64_t, dm_clamp_unsigned); break;
        }
    }
    runs->start[runs->n] = j;
    return j;
}
#undef DM_FIND_RUNS

/* Copies the runs' columns of the output row at axis coordinate a; neighbouring runs
 * that read the same source row (every length <= a reads row a) are one copy. */
static void dm_copy_runs(const dm_gather *g, const dm_length_runs *runs, uint64_t a, uint8_t *dst, const uint8_t *src)
{
    const uint32_t last = g->rank - 1;
    const int64_t es = g->esize, sa = g->window_stride;
    const int64_t ds = g->stride[DM_SLOT_DST][last], ss = g->stride[DM_SLOT_SRC][last];
    const dm_mode mode = dm_gather_mode(g);
    for (uint32_t r = 0, k; r < runs->n; r = k) {
        const uint64_t x = dm_reversed(a, runs->len[r]);
        for (k = r + 1; k < runs->n && dm_reversed(a, runs->len[k]) == x; k++) continue;
        const int64_t j = runs->start[r];
        dm_copy_run(dst + j * ds * es, ds, src + ((int64_t)x * sa + j * ss) * es, ss,
                    (uint64_t)(runs->start[k] - j), g->esize, mode);
    }
}

/* Rows a0 .. a1 - 1 of one sequence of length L, w elements each: the rows below L read
 * source rows backwards from L - 1 - a0, the rest read themselves; two 2-D copies. dst is
 * output row a0, src source row 0 (the axis coordinate that the window adds); strides in
 * elements, sa between source rows. With by_columns, a part with fewer columns than rows is
 * walked a column at a time (each a long strided run), for blocks that stay in the cache. */
static void dm_reverse_rows(uint8_t *dst, int64_t drow, int64_t dcol, const uint8_t *src, int64_t sa, int64_t scol,
                            uint64_t L, uint64_t a0, uint64_t a1, uint64_t w, uint32_t esize, bool by_columns)
{
    const int64_t es = esize;
    const uint64_t mid = L < a0 ? a0 : L > a1 ? a1 : L;
    for (int part = 0; part < 2; part++) {
        const uint64_t from = part ? mid : a0, rows = (part ? a1 : mid) - from;
        if (rows == 0) continue;
        const int64_t s0 = part ? (int64_t)mid : (int64_t)L - 1 - (int64_t)a0, step = part ? sa : -sa;
        uint8_t *d = dst + (int64_t)(from - a0) * drow * es;
        const uint8_t *s = src + s0 * sa * es;
        if (by_columns && w < rows)
            dm_copy_rows(d, dcol * es, drow, s, scol * es, step, w, rows, esize);
        else
            dm_copy_rows(d, drow * es, dcol, s, step * es, scol, rows, w, esize);
    }
}

/* Short rows along an axis that is the dimension dm_rows_batch steps (gather.h), one
 * length per row: the batch at r is rows a0 .. a1 - 1 of one sequence, two dm_copy_rows
 * calls (dm_reverse_rows, row by row: a batch may be a whole sequence, too big to walk by
 * columns) instead of a length scan and a copy per row ([B, T, 3] FLOAT32 along T ran at
 * 0.4-0.7x numpy). Moves r onto the batch's last row; false when the segment starts none. */
static bool dm_reverse_batch(const dm_gather *g, uint8_t *const *slot, dm_rows *r)
{
    const uint64_t batch = dm_rows_batch(r);
    if (batch < 2) return false;
    const uint32_t last = r->last, d = last - 1;
    const int64_t es = g->esize;
    const uint64_t L = dm_read_length(g->aux_dtype, slot[DM_SLOT_AUX] + r->off[DM_SLOT_AUX] * g->aux_esize, g->n);
    dm_reverse_rows(slot[DM_SLOT_DST] + r->off[DM_SLOT_DST] * es, g->stride[DM_SLOT_DST][d], g->stride[DM_SLOT_DST][last],
                    slot[DM_SLOT_SRC] + r->off[DM_SLOT_SRC] * es, g->window_stride, g->stride[DM_SLOT_SRC][last], L,
                    r->coord[d], r->coord[d] + batch, r->c1, g->esize, false);
    dm_rows_skip(r, batch);
    return true;
}

/* Short rows at one axis coordinate a, the axis further out than dimension last - 1, one
 * length per row (time-major [T, B, F] along T, ONNX's default layout): the batch at r is
 * rows b0 .. b1 - 1 along dimension last - 1, each copied whole from source row
 * dm_reversed(a, its length), without the run table a row would otherwise cost ([T, 64, 8]
 * FLOAT16: 0.8x numpy). Moves r onto the batch's last row; false when it starts none. */
static bool dm_reverse_batch_across(const dm_gather *g, uint8_t *const *slot, dm_rows *r)
{
    const uint64_t batch = dm_rows_batch(r);
    if (batch < 2) return false;
    const uint32_t last = r->last, d = last - 1;
    const int64_t es = g->esize, les = g->aux_esize, sa = g->window_stride * es;
    const int64_t dstep = g->stride[DM_SLOT_DST][d] * es, sstep = g->stride[DM_SLOT_SRC][d] * es;
    const int64_t lstep = g->stride[DM_SLOT_AUX][d] * les;
    const int64_t dcol = g->stride[DM_SLOT_DST][last], scol = g->stride[DM_SLOT_SRC][last];
    const uint64_t a = r->coord[g->axis];
    uint8_t *dst = slot[DM_SLOT_DST] + r->off[DM_SLOT_DST] * es;
    const uint8_t *src = slot[DM_SLOT_SRC] + r->off[DM_SLOT_SRC] * es;
    const uint8_t *lp = slot[DM_SLOT_AUX] + r->off[DM_SLOT_AUX] * les;
    for (uint64_t k = 0; k < batch; k++, dst += dstep, src += sstep, lp += lstep) {
        const uint64_t x = dm_reversed(a, dm_read_length(g->aux_dtype, lp, g->n));
        dm_copy_rows(dst, 0, dcol, src + (int64_t)x * sa, 0, scol, 1, r->c1, g->esize);
    }
    dm_rows_skip(r, batch);
    return true;
}

/* Axis outside the innermost dimension: a row is a run across sequences, at axis
 * coordinate a, and copies from the source rows its lengths pick. */
static void dm_reverse_rows_across_axis(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1)
{
    const uint32_t last = g->rank - 1;
    const int64_t es = g->esize, les = g->aux_esize, ls = g->stride[DM_SLOT_AUX][last] * les;
    const bool stream = g->stream;
    const bool contiguous = g->stride[DM_SLOT_DST][last] == 1 && g->stride[DM_SLOT_SRC][last] == 1;
    const bool along = (uint32_t)g->axis == last - 1; /* batches of one sequence's rows */
    /* Contiguous rows of one sequence go as a batch whatever their length (unless the
     * output streams): a vertical flip of 224-byte UINT8 rows spent more per row finding
     * and walking its one run than copying it (0.6x numpy on one thread). */
    const bool batches = ls == 0 && g->rank >= 2 &&
                         (contiguous ? g->size[last] * (uint64_t)es <= DM_SHORT_ROW_BYTES || (along && !stream)
                                     : g->size[last] <= DM_SHORT_ROW_ELEMENTS);
    dm_length_runs runs;
    /* Rows at other axis coordinates read the same lengths: when one table held a whole
     * row's columns, the next row over the same lengths and columns reuses it instead of
     * scanning them again (for [16, 1M] UINT8 the scan read 4 bytes of lengths for every
     * byte copied, a quarter of the time). */
    const uint8_t *held = NULL;
    uint32_t held_c0 = 0, held_c1 = 0;
    dm_rows r;
    for (bool more = dm_rows_begin(&r, g, e0, e1); more; more = dm_rows_next(&r)) {
        if (batches && (along ? dm_reverse_batch(g, slot, &r) : dm_reverse_batch_across(g, slot, &r))) continue;
        const uint8_t *lp = slot[DM_SLOT_AUX] + r.off[DM_SLOT_AUX] * les;
        uint8_t *dst = slot[DM_SLOT_DST] + r.off[DM_SLOT_DST] * es;
        const uint8_t *src = slot[DM_SLOT_SRC] + r.off[DM_SLOT_SRC] * es;
        if (held == lp && held_c0 == r.c0 && held_c1 == r.c1) {
            dm_copy_runs(g, &runs, r.coord[g->axis], dst, src);
            continue;
        }
        held = NULL;
        for (int64_t j = r.c0; j < (int64_t)r.c1;) {
            const int64_t from = j;
            j = dm_find_runs(g, lp, ls, j, r.c1, &runs);
            dm_copy_runs(g, &runs, r.coord[g->axis], dst, src);
            if (from == (int64_t)r.c0 && j == (int64_t)r.c1) held = lp, held_c0 = r.c0, held_c1 = r.c1;
        }
    }
    if (stream) dm_stream_fence();
}

/* Runs narrower than this on average are copied a block of rows at a time rather than a
 * row at a time: with a length per column of [T, 4] UINT8, each output row was four
 * dm_copy_run calls of one byte (0.07x numpy). */
enum { DM_TINY_RUN_BYTES = 16, DM_NARROW_RUN_BYTES = 64, DM_ROW_BLOCK_BYTES = 16384, DM_ROW_TABLE = 256 };

/* Rows [a0, a1) of each run's columns, each run one dm_reverse_rows walked along its
 * longer side (the block fits DM_ROW_BLOCK_BYTES). */
static void dm_copy_runs_block(const dm_gather *g, const dm_length_runs *runs, uint64_t a0, uint64_t a1, uint8_t *dst,
                               const uint8_t *src)
{
    const uint32_t last = g->rank - 1;
    const int64_t es = g->esize, drow = g->stride[DM_SLOT_DST][g->axis];
    const int64_t dcol = g->stride[DM_SLOT_DST][last], scol = g->stride[DM_SLOT_SRC][last];
    for (uint32_t r = 0; r < runs->n; r++) {
        const int64_t j = runs->start[r];
        dm_reverse_rows(dst + ((int64_t)a0 * drow + j * dcol) * es, drow, dcol, src + j * scol * es, g->window_stride,
                        scol, runs->len[r], a0, a1, (uint64_t)(runs->start[r + 1] - j), g->esize, true);
    }
}

/* Rows [a0, a1) of the runs' columns element by element, each run's source row picked
 * once per row: for runs of a few bytes (lengths that differ from column to column, as in
 * ONNX's [T, B] batch of ragged sequences) a dm_reverse_rows per run cost two 2-D copy
 * calls per column and block, FLOAT32 [16, 1M] moving 2.2 GB/s. Inlined per element size,
 * so that an element is one load and one store. */
#define DM_GATHER_COLS(ES, DCOL, SCOL, ROW)                                                   \
    for (uint64_t a = a0; a < a1; a++) {                                                      \
        uint8_t *d = dst + ((int64_t)a * drow + c0 * (DCOL)) * (ES);                          \
        for (uint32_t c = 0; c < w; c++) {                                                    \
            const uint32_t L = len[c];                                                        \
            memcpy(d + (int64_t)c * (DCOL) * (ES), ROW(a < L ? L - 1 - a : a) + (int64_t)c * (SCOL) * (ES), (ES)); \
        }                                                                                     \
    }
#define DM_GATHER_SIZES(DCOL, SCOL, ROW)                                                      \
    switch (g->esize) {                                                                       \
    case 1: DM_GATHER_COLS(1, DCOL, SCOL, ROW); break;                                       \
    case 2: DM_GATHER_COLS(2, DCOL, SCOL, ROW); break;                                       \
    case 4: DM_GATHER_COLS(4, DCOL, SCOL, ROW); break;                                       \
    default: DM_GATHER_COLS(8, DCOL, SCOL, ROW); break;                                      \
    }
/* Source row x at column c0: from the table, or computed. */
#define DM_TABLE_ROW(x) rowp[x]
#define DM_STRIDED_ROW(x) (src + ((int64_t)(x) * sa + c0 * scol) * g->esize)
static void dm_gather_runs_block(const dm_gather *g, const dm_length_runs *runs, uint64_t a0, uint64_t a1, uint8_t *dst,
                                 const uint8_t *src)
{
    const uint32_t last = g->rank - 1;
    const int64_t drow = g->stride[DM_SLOT_DST][g->axis], sa = g->window_stride;
    const int64_t dcol = g->stride[DM_SLOT_DST][last], scol = g->stride[DM_SLOT_SRC][last];
    const int64_t c0 = runs->start[0];
    /* Each column's length, from its run (the caller's runs average under
     * DM_TINY_RUN_BYTES: at most DM_RUNS_MAX * DM_TINY_RUN_BYTES columns). */
    uint32_t len[DM_RUNS_MAX * DM_TINY_RUN_BYTES];
    const uint32_t w = (uint32_t)(runs->start[runs->n] - c0);
    /* Column by column, so that every len[c] read below is visibly written. */
    for (uint32_t c = 0, r = 0; c < w; c++) {
        while (c0 + c >= runs->start[r + 1]) r++;
        len[c] = (uint32_t)runs->len[r]; /* <= n < 2^32 */
    }
    if (dcol == 1 && scol == 1 && g->n <= DM_ROW_TABLE) {
        /* Contiguous rows over a short axis: each source row's address from a table and
         * each column's offset without a multiply: FLOAT16 / FLOAT32 [16, C] 7.0 / 3.7 ms ->
         * 5.0-5.2 / 2.9 ms at 16 MiB (two runs each); UINT8 unchanged. */
        const uint8_t *rowp[DM_ROW_TABLE];
        for (uint64_t x = 0; x < g->n; x++) rowp[x] = DM_STRIDED_ROW(x);
        DM_GATHER_SIZES(1, 1, DM_TABLE_ROW)
        return;
    }
    DM_GATHER_SIZES(dcol, scol, DM_STRIDED_ROW)
}
#undef DM_GATHER_COLS
#undef DM_GATHER_SIZES
#undef DM_TABLE_ROW
#undef DM_STRIDED_ROW

/* Columns per block of the vector ragged REVERSE: its lengths (at most 8 bytes each) on
 * the stack. Outputs of DM_RAGGED_STREAM_BYTES and more stream (dm_reverse_columns). */
enum { DM_RAGGED_BLOCK = 512 };
#define DM_RAGGED_STREAM_BYTES (2ull << 20)

/* The lengths of columns [j0, j1) (lp: column 0's, ls bytes apart), clamped to [0, n],
 * into len as esize-byte lanes (dm_simd.ragged); returns how many differ from the column
 * before them. Inlined per length type and lane size: one load, clamp and store each. */
#define DM_LANES_AS(T, CLAMP, LT)                                                         \
    for (int64_t j = j0; j < j1; j++) {                                                   \
        T v;                                                                              \
        memcpy(&v, lp + j * ls, sizeof v);                                                \
        const uint64_t L = CLAMP(v, n);                                                   \
        changes += L != prev;                                                             \
        prev = L;                                                                         \
        const LT lane = (LT)L;                                                            \
        memcpy(len + (j - j0) * (int64_t)sizeof lane, &lane, sizeof lane);                \
    }
#define DM_LANES(T, CLAMP)                                                                \
    switch (esize) {                                                                      \
    case 1: DM_LANES_AS(T, CLAMP, uint8_t); break;                                        \
    case 2: DM_LANES_AS(T, CLAMP, uint16_t); break;                                       \
    case 4: DM_LANES_AS(T, CLAMP, uint32_t); break;                                       \
    default: DM_LANES_AS(T, CLAMP, uint64_t); break;                                      \
    }
static uint64_t dm_ragged_lanes(const dm_gather *g, const uint8_t *lp, int64_t ls, int64_t j0, int64_t j1, uint8_t *len)
{
    const uint64_t n = g->n;
    const uint32_t esize = g->esize;
    const bool i32 = g->aux_dtype == DML_TENSOR_DATA_TYPE_INT32;
    if (ls == 4 && (i32 || g->aux_dtype == DML_TENSOR_DATA_TYPE_UINT32)) /* packed 32-bit: the vector loop's */
        return dm_simd_of(g->isa)->lanes(len, lp + j0 * 4, (uint64_t)(j1 - j0), (uint32_t)n, i32, esize);
    uint64_t changes = 0, prev = UINT64_MAX;
    switch (g->aux_dtype) {
    case DML_TENSOR_DATA_TYPE_UINT32: DM_LANES(uint32_t, dm_clamp_unsigned); break;
    case DML_TENSOR_DATA_TYPE_INT32: DM_LANES(int32_t, dm_clamp_signed); break;
    case DML_TENSOR_DATA_TYPE_INT64: DM_LANES(int64_t, dm_clamp_signed); break;
    default: DM_LANES(uint64_t, dm_clamp_unsigned); break;
    }
    return changes;
}
#undef DM_LANES
#undef DM_LANES_AS

/* Columns [0, w) of the ragged REVERSE element by element, reading len's esize-byte lanes:
 * the few columns under one vector that dm_simd.ragged leaves. */
#define DM_RAGGED_TAIL(T)                                                                 \
    for (uint64_t c = 0; c < w; c++) {                                                    \
        T L;                                                                              \
        memcpy(&L, len + c * sizeof L, sizeof L);                                         \
        for (uint64_t a = 0; a < n; a++)                                                  \
            memcpy(dst + (int64_t)a * drow + (int64_t)(c * sizeof L),                     \
                   src + (int64_t)(a < L ? L - 1 - a : a) * srow + (int64_t)(c * sizeof L), sizeof L); \
    }
static void dm_ragged_tail(uint8_t *dst, int64_t drow, const uint8_t *src, int64_t srow, const uint8_t *len, uint64_t w,
                           uint64_t n, uint32_t esize)
{
    switch (esize) {
    case 1: DM_RAGGED_TAIL(uint8_t); break;
    case 2: DM_RAGGED_TAIL(uint16_t); break;
    case 4: DM_RAGGED_TAIL(uint32_t); break;
    default: DM_RAGGED_TAIL(uint64_t); break;
    }
}
#undef DM_RAGGED_TAIL

/* Columns [j, j1) of a slab whose axis has at most DM_RAGGED_ROWS rows and whose columns
 * are contiguous, where lengths change every few columns (ONNX's [T, B] batch of ragged
 * sequences): a block of columns through the vector loop (dm_simd.ragged), which selects
 * each output row's lanes from the source rows their lengths pick. Returns the column it
 * reached, or j when the block's runs of equal lengths are wide enough (DM_TINY_RUN_BYTES
 * on average) for the row copies of the run table. */
static int64_t dm_ragged_vector(const dm_gather *g, const uint8_t *lp, int64_t ls, int64_t j, int64_t j1, uint8_t *dst,
                                const uint8_t *src, bool stream)
{
    _Alignas(16) uint8_t len[DM_RAGGED_BLOCK * 8];
    const int64_t end = j1 - j < DM_RAGGED_BLOCK ? j1 : j + DM_RAGGED_BLOCK;
    const uint32_t es = g->esize;
    /* A block whose first columns share one length (one length for every column is the
     * common case) goes to the runs without being scanned into lanes, which cost REVERSE
     * of [16, 1024] FLOAT32 with whole sequences a tenth of its time. */
    const uint64_t probe = end - j < 16 ? (uint64_t)(end - j) : 16;
    if (dm_equal_length_run(g->aux_dtype, lp + j * ls, ls, probe, g->n) == probe) return j;
    const uint64_t runs = 1 + dm_ragged_lanes(g, lp, ls, j, end, len);
    if (runs * DM_TINY_RUN_BYTES <= (uint64_t)(end - j) * es) return j;
    const int64_t drow = g->stride[DM_SLOT_DST][g->axis] * (int64_t)es, srow = g->window_stride * (int64_t)es;
    uint8_t *d = dst + j * (int64_t)es;
    const uint8_t *s = src + j * (int64_t)es;
    if (!dm_simd_of(g->isa)->ragged(d, drow, s, srow, len, (uint64_t)(end - j), (uint32_t)g->n, es, stream))
        dm_ragged_tail(d, drow, s, srow, len, (uint64_t)(end - j), g->n, es);
    return end;
}

/* The axis is the dimension next to the innermost and the lengths change along the
 * innermost: each slab (a coordinate of the dimensions before the axis) is an [n, m]
 * reverse with a length per column. A unit is one column of one slab; each block of
 * columns finds its runs of equal lengths once for all n axis coordinates, so the
 * lengths are read once rather than once per output row. */
static void dm_reverse_columns(const dm_gather *g, uint8_t *const *slot, uint64_t u0, uint64_t u1)
{
    const uint32_t last = g->rank - 1, ax = last - 1;
    const int64_t es = g->esize, les = g->aux_esize, ls = g->stride[DM_SLOT_AUX][last] * les;
    const int64_t ds = g->stride[DM_SLOT_DST][ax];
    const uint64_t m = g->size[last];
    const int64_t drow_bytes = (ds < 0 ? -ds : ds) * es;
    const uint64_t block = drow_bytes >= DM_ROW_BLOCK_BYTES / 16 ? 16 : DM_ROW_BLOCK_BYTES / (uint64_t)drow_bytes;
    const bool stream = g->stream;
    const bool ragged = g->isa != DM_ISA_SCALAR && g->n <= DM_RAGGED_ROWS && g->stride[DM_SLOT_DST][last] == 1 &&
                        g->stride[DM_SLOT_SRC][last] == 1;
    /* The vector loop writes a line of each of its n rows in turn. Rows a multiple of 4 KiB
     * apart share one set of the L1 and L2 caches, whose 8 ways cannot hold 16 rows' lines:
     * plain stores then evicted each other's lines before they were whole, so outputs of
     * DM_RAGGED_STREAM_BYTES and more stream whatever the engine's threshold ([16, 1M] UINT8,
     * two threads: 17-25 ms plain, 11-15 ms streamed, in medians on a loaded machine). */
    const bool ragged_stream = stream || dm_gather_elements(g) * g->esize >= DM_RAGGED_STREAM_BYTES;
    dm_length_runs runs;
    for (uint64_t s = u0 / m; s * m < u1; s++) {
        int64_t off[DM_SLOT_COUNT] = {0};
        for (uint64_t q = s, d = ax; d-- > 0; q /= g->size[d])
            for (int k = 0; k < DM_SLOT_COUNT; k++) off[k] += (int64_t)(q % g->size[d]) * g->stride[k][d];
        uint8_t *dst = slot[DM_SLOT_DST] + off[DM_SLOT_DST] * es;
        const uint8_t *src = slot[DM_SLOT_SRC] + off[DM_SLOT_SRC] * es;
        const uint8_t *lp = slot[DM_SLOT_AUX] + off[DM_SLOT_AUX] * les;
        const int64_t j1 = (int64_t)(u1 - s * m < m ? u1 - s * m : m);
        for (int64_t j = u0 > s * m ? (int64_t)(u0 - s * m) : 0; j < j1;) {
            if (ragged) {
                const int64_t done = dm_ragged_vector(g, lp, ls, j, j1, dst, src, ragged_stream);
                if (done > j) {
                    j = done;
                    continue;
                }
            }
            const int64_t end = dm_find_runs(g, lp, ls, j, j1, &runs);
            const uint64_t run_bytes = (uint64_t)(end - j) * (uint64_t)es;
            if (run_bytes < (uint64_t)runs.n * DM_TINY_RUN_BYTES) {
                for (uint64_t a = 0; a < g->n; a += block)
                    dm_gather_runs_block(g, &runs, a, a + block < g->n ? a + block : g->n, dst, src);
            } else if (run_bytes < (uint64_t)runs.n * DM_NARROW_RUN_BYTES) {
                for (uint64_t a = 0; a < g->n; a += block)
                    dm_copy_runs_block(g, &runs, a, a + block < g->n ? a + block : g->n, dst, src);
            } else {
                for (uint64_t a = 0; a < g->n; a++)
                    dm_copy_runs(g, &runs, a, dst + (int64_t)a * ds * es, src);
            }
            j = end;
        }
    }
    if (stream || (ragged && ragged_stream)) dm_stream_fence();
}

static dm_cpu_loop dm_reverse_cpu_loop(const dm_gather *g)
{
    if (!g->window) return dm_affine_cpu_loop(g); /* a length-1 axis */
    const uint32_t last = g->rank - 1;
    if ((uint32_t)g->axis == last) return (dm_cpu_loop){dm_reverse_rows_along_axis, 0};
    if ((uint32_t)g->axis == last - 1 && g->stride[DM_SLOT_AUX][last] != 0) {
        uint64_t slabs = 1;
        for (uint32_t d = 0; d < last - 1; d++) slabs *= g->size[d];
        return (dm_cpu_loop){dm_reverse_columns, slabs * g->size[last]};
    }
    return (dm_cpu_loop){dm_reverse_rows_across_axis, 0};
}

static void dm_reverse_traffic(const dm_op *op, uint64_t *read, uint64_t *written)
{
    const dm_tensor *out = &op->t[OUT], *len = &op->t[LEN];
    *written = out->count * out->esize;
    *read = *written + dm_tensor_footprint(len) * len->esize;
}

const dm_op_class dm_reverse_class = {
    .type = DML_OPERATOR_REVERSE_SUBSEQUENCES,
    .name = "REVERSE_SUBSEQUENCES",
    .parse = dm_reverse_parse,
    .lower = dm_reverse_lower,
    .cpu_loop = dm_reverse_cpu_loop,
    .traffic = dm_reverse_traffic,
};
