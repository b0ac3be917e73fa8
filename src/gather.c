/* Collapsing gather descriptions. */
#include "gather.h"

#include <string.h>

uint32_t dm_aux_type(DML_TENSOR_DATA_TYPE type)
{
    switch (type) {
    case DML_TENSOR_DATA_TYPE_INT32: return DM_AUX_I32;
    case DML_TENSOR_DATA_TYPE_UINT64: return DM_AUX_U64;
    case DML_TENSOR_DATA_TYPE_INT64: return DM_AUX_I64;
    default: return DM_AUX_U32;
    }
}

static void dm_gather_remove_dim(dm_gather *g, uint32_t d)
{
    for (uint32_t i = d; i + 1 < g->rank; i++) {
        g->size[i] = g->size[i + 1];
        for (uint32_t s = 0; s < DM_SLOT_COUNT; s++) g->stride[s][i] = g->stride[s][i + 1];
    }
    g->rank--;
    if (g->axis > (int32_t)d) g->axis--;
}

void dm_gather_collapse(dm_gather *g)
{
    for (uint32_t d = g->rank; d-- > 0 && g->rank > 1;)
        if (g->size[d] == 1 && (int32_t)d != g->axis) dm_gather_remove_dim(g, d);
    for (uint32_t d = g->rank - 1; d-- > 0;) {
        /* Merge d+1 into d when stepping d once equals stepping d+1 size[d+1] times. */
        if ((int32_t)d == g->axis || (int32_t)d + 1 == g->axis) continue;
        bool nest = true;
        for (uint32_t s = 0; s < DM_SLOT_COUNT && nest; s++)
            nest = g->stride[s][d] == g->stride[s][d + 1] * (int64_t)g->size[d + 1];
        if (!nest) continue;
        uint64_t merged = (uint64_t)g->size[d] * g->size[d + 1];
        if (merged > UINT32_MAX) continue;
        g->size[d] = (uint32_t)merged;
        for (uint32_t s = 0; s < DM_SLOT_COUNT; s++) g->stride[s][d] = g->stride[s][d + 1];
        dm_gather_remove_dim(g, d + 1);
    }
}

void dm_op_lower(const dm_op *op, dm_gather *g)
{
    memset(g, 0, sizeof *g);
    for (uint32_t s = 0; s < DM_SLOT_COUNT; s++) g->binding[s] = -1;
    switch (op->type) {
    case DML_OPERATOR_REVERSE_SUBSEQUENCES: dm_reverse_lower(op, g); break;
    case DML_OPERATOR_SLICE1: dm_slice_lower(op, g); break;
    default: dm_one_hot_lower(op, g); break;
    }
    dm_gather_collapse(g);
}
