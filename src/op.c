/* The operator registry: one row per operator, and the only dispatch on its type. */
#include <string.h>

#include "gather.h"
#include "status.h"

static const dm_op_class *const dm_classes[] = {&dm_one_hot_class, &dm_reverse_class, &dm_slice_class};

const dm_op_class *dm_op_class_of(DML_OPERATOR_TYPE type)
{
    for (size_t i = 0; i < sizeof dm_classes / sizeof dm_classes[0]; i++)
        if (dm_classes[i]->type == type) return dm_classes[i];
    return NULL;
}

dmlops_status dm_op_parse_as(const char *fn, const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level, dm_op *op)
{
    memset(op, 0, sizeof *op);
    if (!desc) return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: desc is NULL", fn);
    if (desc->Type == DML_OPERATOR_INVALID)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: DML_OPERATOR_DESC.Type = DML_OPERATOR_INVALID (0)", fn);
    /* The type first: an operator libdmlops does not run is UNSUPPORTED whatever its Desc
     * (api.md), as other validation of it would be. */
    const dm_op_class *cls = dm_op_class_of(desc->Type);
    if (!cls)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                       "%s: DML_OPERATOR_DESC.Type = %d is not implemented: libdmlops runs ONE_HOT (95), "
                       "REVERSE_SUBSEQUENCES (106) and SLICE1 (111)",
                       fn, (int)desc->Type);
    if (!desc->Desc)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: DML_OPERATOR_DESC.Desc is NULL",
                       dmlops_operator_type_name(desc->Type));
    op->cls = cls;
    return cls->parse(desc->Desc, level, op);
}

dmlops_status dm_op_parse(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level, dm_op *op)
{
    return dm_op_parse_as("dmlops_validate_operator", desc, level, op);
}

void dm_op_lower(const dm_op *op, dm_gather *g)
{
    memset(g, 0, sizeof *g);
    for (uint32_t s = 0; s < DM_SLOT_COUNT; s++) g->binding[s] = -1;
    op->cls->lower(op, g);
    dm_gather_collapse(g);
}

void dm_op_traffic(const dm_op *op, uint64_t *read, uint64_t *written) { op->cls->traffic(op, read, written); }

dmlops_status dm_op_check_host_addressable(const dm_op *op)
{
    /* TotalTensorSizeInBytes bounds every byte the tensor's elements reach (it is at
     * least DMLCalcBufferTensorSize), so within SIZE_MAX every offset does too. */
    for (uint32_t i = 0; i < op->input_count + op->output_count; i++)
        if (op->t[i].total_bytes > (uint64_t)SIZE_MAX)
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                           "%s: %s.TotalTensorSizeInBytes = %llu exceeds the host's address space (SIZE_MAX = %llu): "
                           "the CPU backend's buffers are host memory",
                           op->name, op->role[i], (unsigned long long)op->t[i].total_bytes,
                           (unsigned long long)SIZE_MAX);
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_validate_operator(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level)
{
    static const char fn[] = "dmlops_validate_operator";
    dm_op op;
    if (dm_feature_level_normalize(level, &level) != DMLOPS_SUCCESS)
        return dm_fail_prefix(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: level", fn);
    return dm_op_parse_as(fn, desc, level, &op);
}
