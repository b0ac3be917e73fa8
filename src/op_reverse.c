/* DML_REVERSE_SUBSEQUENCES: rules and reference semantics (operators.md section 4).
 * out[..i..] = in[..L-1-i..] for i < L, else in[..i..], with L read from
 * SequenceLengths at the same coordinate (Axis coordinate 0) and clamped to the axis. */
#include "gather.h"
#include "status.h"

enum { IN = 0, LEN = 1, OUT = 2 };

dmlops_status dm_reverse_parse(const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC *d, DML_FEATURE_LEVEL level, dm_op *op)
{
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

static uint64_t dm_reversed(uint64_t i, uint64_t len) { return i < len ? len - 1 - i : i; }

void dm_reverse_run_cpu(const dm_op *op, uint8_t *const *base)
{
    const dm_tensor *in = &op->t[IN], *len = &op->t[LEN], *out = &op->t[OUT];
    const uint32_t es = in->esize, ax = op->axis, last = in->rank - 1;
    const uint64_t n = in->sizes[ax];
    const int64_t sa = (int64_t)in->strides[ax], da = (int64_t)out->strides[ax];
    dm_walk w = {.nstreams = 3};

    if (ax == last) {
        /* One contiguous-ish sequence per walk step: reverse a prefix, copy the rest. */
        for (uint32_t d = 0; d < last; d++) {
            w.sizes[w.rank] = in->sizes[d];
            w.strides[IN][w.rank] = (int64_t)in->strides[d];
            w.strides[LEN][w.rank] = (int64_t)len->strides[d];
            w.strides[OUT][w.rank] = (int64_t)out->strides[d];
            w.rank++;
        }
        do {
            uint64_t L = dm_read_length(len->type, base[LEN] + w.offset[LEN] * len->esize, n);
            const uint8_t *src = base[IN] + w.offset[IN] * es;
            uint8_t *dst = base[OUT] + w.offset[OUT] * es;
            if (L) dm_copy_run(dst, da, src + (int64_t)(L - 1) * sa * es, -sa, L, es);
            if (L < n) dm_copy_run(dst + (int64_t)L * da * es, da, src + (int64_t)L * sa * es, sa, n - L, es);
        } while (dm_walk_next(&w));
        return;
    }

    /* Axis outside the innermost dimension: walk rows of the innermost dimension so that
     * memory is touched in order; the lengths tensor never moves along the axis. */
    for (uint32_t d = 0; d < last; d++) {
        w.sizes[d] = in->sizes[d];
        w.strides[IN][d] = (int64_t)in->strides[d];
        w.strides[LEN][d] = d == ax ? 0 : (int64_t)len->strides[d];
        w.strides[OUT][d] = (int64_t)out->strides[d];
    }
    w.rank = last;
    const uint64_t m = in->sizes[last];
    const int64_t si = (int64_t)in->strides[last], li = (int64_t)len->strides[last], di = (int64_t)out->strides[last];
    do {
        uint64_t i = w.coord[ax];
        const uint8_t *lp = base[LEN] + w.offset[LEN] * len->esize;
        uint8_t *dst = base[OUT] + w.offset[OUT] * es;
        const uint8_t *row = base[IN] + (w.offset[IN] - (int64_t)i * sa) * es; /* axis coordinate 0 */
        if (li == 0 || m == 1) {
            uint64_t src_i = dm_reversed(i, dm_read_length(len->type, lp, n));
            dm_copy_run(dst, di, row + (int64_t)src_i * sa * es, si, m, es);
            continue;
        }
        for (uint64_t j = 0; j < m; j++) {
            uint64_t src_i = dm_reversed(i, dm_read_length(len->type, lp + (int64_t)j * li * len->esize, n));
            dm_copy_run(dst + (int64_t)j * di * es, 1, row + ((int64_t)src_i * sa + (int64_t)j * si) * es, 1, 1, es);
        }
    } while (dm_walk_next(&w));
}

/* Rows leave the axis out of the source offset: the kernel adds the reversed (or not)
 * axis coordinate times axis_src_stride. A length-1 axis is the identity, lowered as a
 * plain copy so that it can use copy regions. */
void dm_reverse_lower(const dm_op *op, dm_gather *g)
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
