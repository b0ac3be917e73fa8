/* DML_ONE_HOT: rules and reference semantics (operators.md section 6). Along Axis of the
 * output each sequence is OffValue except at the position its index names. */
#include "gather.h"
#include "status.h"

enum { IDX = 0, VAL = 1, OUT = 2 };

dmlops_status dm_one_hot_parse(const DML_ONE_HOT_OPERATOR_DESC *d, DML_FEATURE_LEVEL level, dm_op *op)
{
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

void dm_one_hot_run_cpu(const dm_op *op, uint8_t *const *base)
{
    const dm_tensor *idx = &op->t[IDX], *out = &op->t[OUT];
    const uint32_t es = out->esize, ax = op->axis, last = out->rank - 1;
    const uint64_t n = out->sizes[ax], m = out->sizes[last];
    const uint8_t *off_v = base[VAL], *on_v = base[VAL] + dm_one_hot_on_offset(op) * es;
    const int64_t di = (int64_t)out->strides[last], ii = ax == last ? 0 : (int64_t)idx->strides[last];
    dm_walk w = {.nstreams = 3, .rank = last}; /* streams IDX and OUT; VAL stays at 0 */
    for (uint32_t d = 0; d < last; d++) {
        w.sizes[d] = out->sizes[d];
        w.strides[OUT][d] = (int64_t)out->strides[d];
        w.strides[IDX][d] = d == ax ? 0 : (int64_t)idx->strides[d];
    }
    do {
        uint8_t *dst = base[OUT] + w.offset[OUT] * es;
        const uint8_t *ip = base[IDX] + w.offset[IDX] * idx->esize;
        int64_t k = dm_read_index(idx->type, ip, n);
        for (uint64_t j = 0; j < m; j++) {
            if (ii) k = dm_read_index(idx->type, ip + (int64_t)j * ii * idx->esize, n);
            int64_t pos = ax == last ? (int64_t)j : (int64_t)w.coord[ax];
            dm_copy_run(dst + (int64_t)j * di * es, 1, pos == k ? on_v : off_v, 1, 1, es);
        }
    } while (dm_walk_next(&w));
}

/* The source slot is OffValue (element 0 of Values), aux2 is OnValue, aux the indices;
 * only the indices move with the coordinate. */
void dm_one_hot_lower(const dm_op *op, dm_gather *g)
{
    const dm_tensor *idx = &op->t[IDX], *out = &op->t[OUT];
    g->kernel = DM_KERNEL_ONE_HOT;
    g->esize = out->esize;
    g->rank = out->rank;
    g->axis = (int32_t)op->axis;
    g->n = out->sizes[op->axis];
    g->aux_type = dm_aux_type(idx->type);
    g->aux_esize = idx->esize;
    g->aux2_offset = dm_one_hot_on_offset(op);
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
