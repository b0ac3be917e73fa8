/* Shape rules that REVERSE_SUBSEQUENCES and ONE_HOT share. */
#include "op.h"
#include "status.h"

dmlops_status dm_op_begin(dm_op *op, DML_OPERATOR_TYPE type, uint32_t input_count, const char *const *roles,
                          const DML_TENSOR_DESC *const *descs)
{
    op->type = type;
    op->name = dmlops_operator_type_name(type);
    op->input_count = input_count;
    op->output_count = 1;
    uint32_t n = input_count + 1;
    for (uint32_t i = 0; i < n; i++) op->role[i] = roles[i];
    for (uint32_t i = 0; i < n; i++)
        DM_TRY(dm_tensor_parse(descs[i], op->name, op->role[i], i >= op->input_count, &op->t[i]));
    return DMLOPS_SUCCESS;
}

dmlops_status dm_rule_same_rank(const dm_op *op, uint32_t i, uint32_t j)
{
    if (op->t[i].rank == op->t[j].rank) return DMLOPS_SUCCESS;
    return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s.DimensionCount = %u differs from %s.DimensionCount = %u",
                   op->name, op->role[j], op->t[j].rank, op->role[i], op->t[i].rank);
}

dmlops_status dm_rule_same_type(const dm_op *op, uint32_t i, uint32_t j)
{
    if (op->t[i].type == op->t[j].type) return DMLOPS_SUCCESS;
    return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s.DataType = %s differs from %s.DataType = %s", op->name,
                   op->role[j], dmlops_data_type_name(op->t[j].type), op->role[i],
                   dmlops_data_type_name(op->t[i].type));
}

dmlops_status dm_rule_axis(const dm_op *op, uint32_t ref)
{
    if (op->axis < op->t[ref].rank) return DMLOPS_SUCCESS;
    return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: Axis = %u is out of range: must be less than %s.DimensionCount = %u",
                   op->name, op->axis, op->role[ref], op->t[ref].rank);
}

dmlops_status dm_rule_sizes_match(const dm_op *op, uint32_t i, uint32_t j, bool axis_is_one)
{
    const dm_tensor *a = &op->t[i], *b = &op->t[j];
    for (uint32_t d = 0; d < a->rank; d++) {
        if (axis_is_one && d == op->axis) {
            if (b->sizes[d] != 1)
                return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s.Sizes[%u] = %u must be 1 (dimension %u is the Axis)",
                               op->name, op->role[j], d, b->sizes[d], d);
        } else if (b->sizes[d] != a->sizes[d]) {
            return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s.Sizes[%u] = %u differs from %s.Sizes[%u] = %u",
                           op->name, op->role[j], d, b->sizes[d], op->role[i], d, a->sizes[d]);
        }
    }
    return DMLOPS_SUCCESS;
}
