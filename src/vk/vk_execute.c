/* Operators on a Vulkan context (vk_execute.h): creation lowers the operator to a
 * gather, plans it, uploads the parameter records and gets the pipeline; execution
 * binds the operator's own binding table, records, submits and waits. */
#include <stdlib.h>

#include "vk_execute.h"
#include "../fault.h"

/* The planner's sums stay below 2^63 for tensors below 2^62 bytes (vk_plan.c). */
static dmlops_status dm_vk_check_sizes(const dm_op *op)
{
    for (uint32_t i = 0; i < op->input_count + op->output_count; i++)
        if (op->t[i].total_bytes > (1ull << 62))
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: %s.TotalTensorSizeInBytes = %llu is beyond any device",
                           op->name, op->role[i], (unsigned long long)op->t[i].total_bytes);
    return DMLOPS_SUCCESS;
}

/* The plan's parameter records into a device buffer, and the pipeline of its kernel. */
static dmlops_status dm_vk_op_prepare(dm_vk_ctx *vk, dm_vk_op *o)
{
    uint64_t bytes = (uint64_t)o->plan.npieces * DM_P_WORDS * 4;
    DM_TRY(dm_vk_alloc(&vk->dev, bytes, DM_VK_MEM_PARAMS, "allocating operator parameters", &o->params));
    dm_mutex_lock(vk->sub.lock);
    dmlops_status st = dm_vk_upload(&vk->dev, &vk->sub, &o->params, 0, o->plan.params, bytes, "uploading operator parameters");
    const dm_gather *g = &o->plan.g;
    if (st == DMLOPS_SUCCESS)
        st = dm_vk_pipeline(&vk->dev, &vk->pipes, g, o->plan.fast, o->plan.texel, o->plan.axis_split, &o->pipeline);
    dm_mutex_unlock(vk->sub.lock);
    return st;
}

dmlops_status dm_vk_operator_create(dmlops_operator *op)
{
    dm_vk_ctx *vk = dm_vk(op->ctx);
    if (vk->dev.lost) return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost", op->op.name);
    dm_vk_op *o = dm_calloc(1, sizeof *o);
    if (!o) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating an operator");
    dm_gather g;
    dm_op_lower(&op->op, &g);
    dmlops_status st = dm_vk_check_sizes(&op->op);
    if (st == DMLOPS_SUCCESS) st = dm_vk_plan_gather(&vk->dev.lim, &g, &o->plan);
    if (st == DMLOPS_SUCCESS) {
        st = dm_vk_op_prepare(vk, o);
        free(o->plan.params); /* on the device now */
        o->plan.params = NULL;
        if (st != DMLOPS_SUCCESS) {
            dm_vk_free(&vk->dev, &o->params);
            dm_vk_plan_free(&o->plan);
        }
    }
    if (st != DMLOPS_SUCCESS) {
        free(o);
        return dm_fail_prefix(st, "%s", op->op.name);
    }
    op->impl = o;
    op->info.planned_path = o->plan.use_copy ? DMLOPS_PATH_COPY_REGIONS : DMLOPS_PATH_KERNEL;
    op->info.dispatch_count = (uint32_t)dm_vk_plan_dispatches(o->plan.pieces, o->plan.npieces);
    op->info.copy_region_count = o->plan.nregions;
    return DMLOPS_SUCCESS;
}

void dm_vk_operator_destroy(dmlops_operator *op)
{
    dm_vk_op *o = op->impl;
    dm_vk_table_destroy(o->table);
    dm_vk_free(&dm_vk(op->ctx)->dev, &o->params);
    dm_vk_plan_free(&o->plan);
    free(o);
}

/* Called with the context lock held. The operator's own table is created on first use
 * and reused, so executions after the first allocate nothing. */
dmlops_status dm_vk_operator_execute(dmlops_operator *op, const dmlops_binding *bind)
{
    dm_vk_ctx *vk = dm_vk(op->ctx);
    dm_vk_op *o = op->impl;
    if (vk->dev.lost)
        return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost; the context is unusable", op->op.name);
    if (!o->table) DM_TRY(dm_vk_table_create(op, o->plan.npieces, &o->table));
    DM_TRY(dm_vk_table_bind(o->table, op, bind));
    if (dm_vk_slabs_possible(op, bind)) dm_vk_table_slabs(o->table, bind); /* nothing pending writes the AUX data */
    VkCommandBuffer cmd = vk->sub.cmd;
    DM_TRY(dm_vk_begin(&vk->dev, cmd, true, op->op.name));
    /* On a tracing context the kernels append to the record buffer, emptied first; the
     * records are not read (command lists are what dmlops_command_list_get_access_stats
     * reports on). */
    if (vk->tracer) dm_vk_trace_begin(&vk->dev, cmd, &vk->trace, vk->tracer);
    dm_vk_record(o->table, cmd, vk->tracer);
    dm_vk_cmd_barrier(&vk->dev, cmd, true);
    DM_TRY(dm_vk_end_submit_wait(&vk->dev, &vk->sub, cmd, op->op.name));
    dm_vk_note_path(o->table);
    return DMLOPS_SUCCESS;
}
