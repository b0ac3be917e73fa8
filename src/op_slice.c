/* DML_SLICE1: rules and semantics (operators.md section 5).
 * out[c] = in[start + WindowStrides * c] per dimension, where start is the window offset,
 * moved to the window's end when the stride is negative. */
#include "cpu/copy_bytes.h"
#include "elements.h"
#include "gather.h"
#include "status.h"

enum { IN = 0, OUT = 1 };

static uint64_t dm_abs_i32(int32_t v) { return v < 0 ? (uint64_t)(-(int64_t)v) : (uint64_t)v; }

static dmlops_status dm_slice_parse(const void *desc, DML_FEATURE_LEVEL level, dm_op *op)
{
    const DML_SLICE1_OPERATOR_DESC *d = desc;
    static const dm_type_column columns[] = {DM_COLUMN_DATA, DM_COLUMN_DATA};
    static const char *const roles[] = {"InputTensor", "OutputTensor"};
    const DML_TENSOR_DESC *descs[] = {d->InputTensor, d->OutputTensor};
    const dmlops_status bad = DMLOPS_ERROR_INVALID_ARGUMENT;
    DM_TRY(dm_op_begin(op, DML_OPERATOR_SLICE1, 1, roles, descs));
    const dm_tensor *in = &op->t[IN], *out = &op->t[OUT];
    if (d->DimensionCount != in->rank)
        return dm_fail(bad, "SLICE1: DimensionCount = %u differs from InputTensor.DimensionCount = %u",
                       d->DimensionCount, in->rank);
    DM_TRY(dm_rule_same_rank(op, IN, OUT));
    DM_TRY(dm_rule_same_type(op, IN, OUT));
    if (!d->InputWindowOffsets) return dm_fail(bad, "SLICE1: InputWindowOffsets is NULL");
    if (!d->InputWindowSizes) return dm_fail(bad, "SLICE1: InputWindowSizes is NULL");
    if (!d->InputWindowStrides) return dm_fail(bad, "SLICE1: InputWindowStrides is NULL");
    for (uint32_t i = 0; i < in->rank; i++) {
        uint64_t off = d->InputWindowOffsets[i], size = d->InputWindowSizes[i];
        int32_t stride = d->InputWindowStrides[i];
        op->win_offsets[i] = (uint32_t)off;
        op->win_sizes[i] = (uint32_t)size;
        op->win_strides[i] = stride;
        if (size == 0) return dm_fail(bad, "SLICE1: InputWindowSizes[%u] = 0 is invalid: a window is never empty", i);
        if (stride == 0) return dm_fail(bad, "SLICE1: InputWindowStrides[%u] = 0 is invalid: strides are non-zero", i);
        if (off + size > in->sizes[i]) /* 64-bit: two 32-bit values cannot wrap */
            return dm_fail(bad,
                           "SLICE1: InputWindowOffsets[%u] + InputWindowSizes[%u] = %llu exceeds InputTensor.Sizes[%u] = %u",
                           i, i, (unsigned long long)(off + size), i, in->sizes[i]);
        uint64_t max_copied = 1 + (size - 1) / dm_abs_i32(stride);
        if (out->sizes[i] > max_copied)
            return dm_fail(bad,
                           "SLICE1: OutputTensor.Sizes[%u] = %u exceeds 1 + (InputWindowSizes[%u] - 1) / "
                           "|InputWindowStrides[%u]| = 1 + (%llu - 1) / %llu = %llu",
                           i, out->sizes[i], i, i, (unsigned long long)size,
                           (unsigned long long)dm_abs_i32(stride), (unsigned long long)max_copied);
    }
    return dm_check_feature_level(op, level, columns);
}

/* Element offset of the output origin in the input, and the input step per output step. */
void dm_slice_input_map(const dm_op *op, int64_t *origin, int64_t *steps)
{
    const dm_tensor *in = &op->t[IN];
    *origin = 0;
    for (uint32_t i = 0; i < in->rank; i++) {
        int64_t start = op->win_offsets[i];
        if (op->win_strides[i] < 0) start += op->win_sizes[i] - 1;
        *origin += start * (int64_t)in->strides[i];
        steps[i] = (int64_t)in->strides[i] * op->win_strides[i];
    }
}

/* SLICE1 is an affine gather: the source element moves by steps[d] per output step. */
static void dm_slice_lower(const dm_op *op, dm_gather *g)
{
    const dm_tensor *out = &op->t[OUT];
    g->kernel = DM_KERNEL_SLICE;
    g->esize = out->esize;
    g->rank = out->rank;
    g->axis = -1;
    g->binding[DM_SLOT_DST] = OUT;
    g->binding[DM_SLOT_SRC] = IN;
    dm_slice_input_map(op, &g->base[DM_SLOT_SRC], g->stride[DM_SLOT_SRC]);
    g->slabs = dm_gather_affine_slabs;
    for (uint32_t d = 0; d < out->rank; d++) {
        g->size[d] = out->sizes[d];
        g->stride[DM_SLOT_DST][d] = (int64_t)out->strides[d];
    }
}

/* A batch of whole rows along the next-to-innermost axis, from r's segment: where its
 * first row starts on each side and how many bytes apart its rows are. */
typedef struct dm_row_batch {
    uint8_t *dst;
    const uint8_t *src;
    int64_t dst_row, src_row; /* bytes */
} dm_row_batch;

DM_INLINE dm_row_batch dm_row_batch_at(const dm_gather *g, uint8_t *const *slot, const dm_rows *r)
{
    const int64_t es = g->esize;
    const uint32_t d = r->last - 1;
    return (dm_row_batch){slot[DM_SLOT_DST] + r->off[DM_SLOT_DST] * es,
                          slot[DM_SLOT_SRC] + (g->base[DM_SLOT_SRC] + r->off[DM_SLOT_SRC]) * es,
                          g->stride[DM_SLOT_DST][d] * es, g->stride[DM_SLOT_SRC][d] * es};
}

/* Copies the batch of short rows that starts at r's segment (gather.h, dm_rows_batch) and
 * moves r onto its last row; false when the segment starts none. */
static bool dm_slice_batch(const dm_gather *g, uint8_t *const *slot, dm_rows *r)
{
    const uint64_t batch = dm_rows_batch(r);
    if (batch < 2) return false;
    const dm_row_batch b = dm_row_batch_at(g, slot, r);
    dm_copy_rows(b.dst, b.dst_row, g->stride[DM_SLOT_DST][r->last], b.src, b.src_row, g->stride[DM_SLOT_SRC][r->last],
                 batch, r->c1, g->esize);
    dm_rows_skip(r, batch);
    return true;
}

/* Each row segment is one strided run; dm_copy_run picks memcpy, the reversed or the
 * every-other-element vector loop, or a constant-stride loop from the two strides. The
 * prefetch is decided per call, outside the loop (a test per row cost 5% here). */
DM_INLINE void dm_slice_rows_as(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1, dm_prefetch pf,
                                const bool prefetch)
{
    const int64_t es = g->esize;
    const dm_mode mode = dm_gather_mode(g);
    const bool short_rows = g->rank >= 2 && g->size[g->rank - 1] <= DM_SHORT_ROW_ELEMENTS;
    dm_rows r;
    for (bool more = dm_rows_begin(&r, g, e0, e1); more; more = dm_rows_next(&r)) {
        if (short_rows && dm_slice_batch(g, slot, &r)) continue;
        const int64_t ds = g->stride[DM_SLOT_DST][r.last], ss = g->stride[DM_SLOT_SRC][r.last], c0 = r.c0;
        const uint64_t batch = short_rows ? 1 : dm_rows_batch(&r);
        if (batch >= 2) {
            /* Whole rows along the next-to-innermost axis without the row iterator, whose
             * coordinate step took 13% of flipping 224-byte rows; reversed rows as one call
             * of the table a batch (dm_copy_run_rows). With a prefetch, a run at a time. */
            const uint64_t m = r.c1;
            dm_row_batch b = dm_row_batch_at(g, slot, &r);
            if (!prefetch) {
                dm_copy_run_rows(b.dst, b.dst_row, ds, b.src, b.src_row, ss, batch, m, g->esize, mode);
            } else {
                for (uint64_t k = 0; k < batch; k++, b.dst += b.dst_row, b.src += b.src_row) {
                    dm_prefetch_row(dm_row_low(b.src, ss, m, g->esize), pf);
                    dm_copy_run(b.dst, ds, b.src, ss, m, g->esize, mode);
                }
            }
            dm_rows_skip(&r, batch);
            continue;
        }
        const uint8_t *src = slot[DM_SLOT_SRC] + (g->base[DM_SLOT_SRC] + r.off[DM_SLOT_SRC] + c0 * ss) * es;
        if (prefetch) dm_prefetch_row(dm_row_low(src, ss, r.c1 - r.c0, g->esize), pf);
        dm_copy_run(slot[DM_SLOT_DST] + (r.off[DM_SLOT_DST] + c0 * ds) * es, ds, src, ss, r.c1 - r.c0, g->esize, mode);
    }
    if (mode.stream) dm_stream_fence();
}

static void dm_slice_rows(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1)
{
    const dm_prefetch pf = dm_rows_prefetch(g, g->stride[DM_SLOT_SRC][g->rank - 1]);
    if (pf.ahead) dm_slice_rows_as(g, slot, e0, e1, pf, true);
    else dm_slice_rows_as(g, slot, e0, e1, pf, false);
}

/* Contiguous rows on both sides (after collapsing, this means rows that are not
 * contiguous with each other): one copy per row segment. */
DM_INLINE void dm_slice_rows_memcpy_as(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1,
                                       dm_prefetch pf, const bool prefetch)
{
    const int64_t es = g->esize;
    const bool stream = g->stream;
    const bool short_rows = g->rank >= 2 && g->size[g->rank - 1] * (uint64_t)es <= DM_SHORT_ROW_BYTES;
    dm_rows r;
    for (bool more = dm_rows_begin(&r, g, e0, e1); more; more = dm_rows_next(&r)) {
        /* Strides 1: short rows move as words, longer ones as a memcpy each, a batch at a
         * time; streaming outputs go row by row below. */
        if ((short_rows || !stream) && dm_slice_batch(g, slot, &r)) continue;
        uint8_t *dst = slot[DM_SLOT_DST] + (r.off[DM_SLOT_DST] + r.c0) * es;
        const uint8_t *src = slot[DM_SLOT_SRC] + (g->base[DM_SLOT_SRC] + r.off[DM_SLOT_SRC] + r.c0) * es;
        if (prefetch) dm_prefetch_row(src, pf);
        if (stream) dm_stream_copy(dst, src, (uint64_t)(r.c1 - r.c0) * (uint64_t)es, g->isa);
        else dm_copy_bytes(dst, src, (uint64_t)(r.c1 - r.c0) * (uint64_t)es);
    }
    if (stream) dm_stream_fence();
}

static void dm_slice_rows_memcpy(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1)
{
    const dm_prefetch pf = dm_rows_prefetch(g, 1);
    if (pf.ahead) dm_slice_rows_memcpy_as(g, slot, e0, e1, pf, true);
    else dm_slice_rows_memcpy_as(g, slot, e0, e1, pf, false);
}

dm_cpu_loop dm_affine_cpu_loop(const dm_gather *g)
{
    const uint32_t last = g->rank - 1;
    bool contiguous = g->stride[DM_SLOT_DST][last] == 1 && g->stride[DM_SLOT_SRC][last] == 1;
    return (dm_cpu_loop){contiguous ? dm_slice_rows_memcpy : dm_slice_rows, 0};
}

static void dm_slice_traffic(const dm_op *op, uint64_t *read, uint64_t *written)
{
    const dm_tensor *out = &op->t[OUT];
    *read = *written = out->count * out->esize;
}

const dm_op_class dm_slice_class = {
    .type = DML_OPERATOR_SLICE1,
    .name = "SLICE1",
    .parse = dm_slice_parse,
    .lower = dm_slice_lower,
    .cpu_loop = dm_affine_cpu_loop,
    .traffic = dm_slice_traffic,
};
