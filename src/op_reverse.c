/* DML_REVERSE_SUBSEQUENCES: rules and semantics (operators.md section 4).
 * out[..i..] = in[..L-1-i..] for i < L, else in[..i..], with L read from
 * SequenceLengths at the same coordinate (Axis coordinate 0) and clamped to the axis. */
#include <string.h>

#include "elements.h"
#include "gather.h"
#include "status.h"

enum { IN = 0, LEN = 1, OUT = 2 };

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

/* The source coordinate along the axis of output coordinate i. */
static uint64_t dm_reversed(uint64_t i, uint64_t len) { return i < len ? len - 1 - i : i; }

/* Rows leave the axis out of the source offset: the kernel adds the reversed (or not)
 * axis coordinate times axis_src_stride. A length-1 axis is the identity, lowered as a
 * plain copy so that it can use copy regions. */
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
    g->axis_src_stride = (int64_t)in->strides[ax];
    g->aux_type = dm_aux_type(len->type);
    g->aux_esize = len->esize;
    g->aux_dtype = len->type;
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

/* Axis innermost: each row is one sequence with one length. Columns [c0, c1) split into
 * the reversed prefix (a run read backwards) and the copied rest. */
static void dm_reverse_rows_along_axis(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1)
{
    const int64_t es = g->esize, sa = g->axis_src_stride;
    const int64_t ds = g->stride[DM_SLOT_DST][g->rank - 1];
    dm_rows r;
    for (bool more = dm_rows_begin(&r, g, e0, e1); more; more = dm_rows_next(&r)) {
        const int64_t L = (int64_t)dm_read_length(g->aux_dtype, slot[DM_SLOT_AUX] + r.off[DM_SLOT_AUX] * g->aux_esize, g->n);
        const int64_t c0 = r.c0, c1 = r.c1;
        uint8_t *dst = slot[DM_SLOT_DST] + r.off[DM_SLOT_DST] * es;
        const uint8_t *src = slot[DM_SLOT_SRC] + r.off[DM_SLOT_SRC] * es;
        if (c0 < L) {
            int64_t hi = c1 < L ? c1 : L;
            dm_copy_run(dst + c0 * ds * es, ds, src + (L - 1 - c0) * sa * es, -sa, (uint64_t)(hi - c0), g->esize);
        }
        int64_t lo = c0 > L ? c0 : L;
        if (lo < c1) dm_copy_run(dst + lo * ds * es, ds, src + lo * sa * es, sa, (uint64_t)(c1 - lo), g->esize);
    }
}

/* Axis outside the innermost dimension: a row is a run across sequences, at axis
 * coordinate a. With one length per row the whole row comes from one source row;
 * otherwise each element reads its own length. */
static void dm_reverse_rows_across_axis(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1)
{
    const uint32_t last = g->rank - 1;
    const int64_t es = g->esize, sa = g->axis_src_stride, les = g->aux_esize;
    const int64_t ds = g->stride[DM_SLOT_DST][last], ss = g->stride[DM_SLOT_SRC][last], ls = g->stride[DM_SLOT_AUX][last];
    dm_rows r;
    for (bool more = dm_rows_begin(&r, g, e0, e1); more; more = dm_rows_next(&r)) {
        const uint64_t a = r.coord[g->axis];
        const uint8_t *lp = slot[DM_SLOT_AUX] + r.off[DM_SLOT_AUX] * les;
        uint8_t *dst = slot[DM_SLOT_DST] + r.off[DM_SLOT_DST] * es;
        const uint8_t *src = slot[DM_SLOT_SRC] + r.off[DM_SLOT_SRC] * es;
        if (ls == 0) {
            int64_t x = (int64_t)dm_reversed(a, dm_read_length(g->aux_dtype, lp, g->n)), c0 = r.c0;
            dm_copy_run(dst + c0 * ds * es, ds, src + (x * sa + c0 * ss) * es, ss, r.c1 - r.c0, g->esize);
            continue;
        }
        for (int64_t j = r.c0; j < (int64_t)r.c1; j++) {
            int64_t x = (int64_t)dm_reversed(a, dm_read_length(g->aux_dtype, lp + j * ls * les, g->n));
            memcpy(dst + j * ds * es, src + (x * sa + j * ss) * es, (size_t)es);
        }
    }
}

static dm_cpu_fn dm_reverse_cpu_loop(const dm_gather *g)
{
    if (g->kernel == DM_KERNEL_SLICE) return dm_affine_cpu_loop(g); /* a length-1 axis */
    return (uint32_t)g->axis == g->rank - 1 ? dm_reverse_rows_along_axis : dm_reverse_rows_across_axis;
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
