/* Operators on a Vulkan context (vk_execute.h): creation lowers the operator to a
 * gather, plans it, uploads the parameter records and gets the pipeline; an execution
 * binds one of the operator's own binding tables and records into a submission's
 * command buffer (vk_sub.c submits it). */
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
        st = dm_vk_pipeline_for(&vk->dev, &vk->pipes, &o->lim, g, o->plan.fast, o->plan.texel, o->plan.axis_split,
                                &o->pipeline);
    dm_mutex_unlock(vk->sub.lock);
    return st;
}

dmlops_status dm_vk_op_build(dmlops_context *ctx, const dm_gather *g, const dm_vk_limits *lim, dm_vk_op **out)
{
    dm_vk_ctx *vk = dm_vk(ctx);
    dm_vk_op *o = dm_zalloc(&ctx->alloc, 1, sizeof *o);
    if (!o) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating an operator");
    o->lim = *lim;
    dmlops_status st = dm_vk_plan_gather(&o->lim, g, &o->plan);
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
        dm_afree(&ctx->alloc, o);
        return st;
    }
    *out = o;
    return DMLOPS_SUCCESS;
}

void dm_vk_op_free(dmlops_context *ctx, dm_vk_op *o)
{
    for (uint32_t i = 0; i < o->nspare; i++) dm_vk_table_destroy(o->spare[i]); /* all back: nothing holds o */
    dm_afree(&ctx->alloc, o->spare);
    dm_vk_free(&dm_vk(ctx)->dev, &o->params);
    dm_vk_plan_free(&o->plan);
    dm_afree(&ctx->alloc, o);
}

dmlops_status dm_vk_operator_create(dmlops_operator *op)
{
    dm_vk_ctx *vk = dm_vk(op->ctx);
    if (vk->dev.lost) return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost", op->op.name);
    dm_gather g;
    dm_op_lower(&op->op, &g);
    /* The limits of the operator's class: the device's, or its tuned configuration's. */
    dm_vk_limits lim;
    dm_vk_tune_info tune;
    dmlops_status st = dm_vk_check_sizes(&op->op);
    if (st == DMLOPS_SUCCESS) st = dm_vk_tune_limits(vk, op, &g, &lim, &tune);
    dm_vk_op *o = NULL;
    if (st == DMLOPS_SUCCESS) st = dm_vk_op_build(op->ctx, &g, &lim, &o);
    if (st != DMLOPS_SUCCESS) return dm_fail_prefix(st, "%s", op->op.name);
    o->tune = tune;
    op->impl = o;
    op->info.planned_path = o->plan.use_copy ? DMLOPS_PATH_COPY_REGIONS : DMLOPS_PATH_KERNEL;
    op->info.dispatch_count = (uint32_t)dm_vk_plan_dispatches(o->plan.pieces, o->plan.npieces);
    op->info.copy_region_count = o->plan.nregions;
    return DMLOPS_SUCCESS;
}

void dm_vk_operator_destroy(dmlops_operator *op) { dm_vk_op_free(op->ctx, op->impl); }

/* A table no submission in flight uses: a kept one, or a new one (with room to keep it). */
static dmlops_status dm_vk_operator_table_get(dmlops_operator *op, dmlops_binding_table **out)
{
    dm_vk_op *o = op->impl;
    if (o->nspare) {
        *out = o->spare[--o->nspare];
        return DMLOPS_SUCCESS;
    }
    dmlops_binding_table **room = dm_ralloc(&op->ctx->alloc, o->spare, (o->ntables + 1) * sizeof *room);
    if (!room) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", op->op.name);
    o->spare = room;
    DM_TRY(dm_vk_table_create(op, o->plan.npieces, out));
    o->ntables++;
    return DMLOPS_SUCCESS;
}

void dm_vk_operator_table_put(dmlops_operator *op, dmlops_binding_table *table)
{
    dm_vk_op *o = op->impl;
    o->spare[o->nspare++] = table;
}

/* The operator's tables are made on first use and reused, so that executions after the
 * first allocate nothing (test/no_alloc.c). */
dmlops_status dm_vk_operator_record(dmlops_operator *op, const dmlops_binding *bind, bool may_read_aux,
                                    VkCommandBuffer cmd, dmlops_binding_table **table)
{
    dm_vk_ctx *vk = dm_vk(op->ctx);
    dmlops_binding_table *t = NULL;
    if (vk->dev.lost)
        return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost; the context is unusable", op->op.name);
    DM_TRY(dm_vk_operator_table_get(op, &t));
    dmlops_status st = dm_vk_table_bind(t, op, bind);
    if (st == DMLOPS_SUCCESS && dm_vk_slabs_possible(op, bind)) {
        if (may_read_aux) dm_vk_table_slabs(t, bind); /* nothing pending writes the AUX data */
        else dm_vk_table_kernel(t);
    }
    if (st == DMLOPS_SUCCESS) st = dm_vk_begin(&vk->dev, cmd, true, op->op.name);
    if (st == DMLOPS_SUCCESS) {
        /* On a tracing context the kernels append to the record buffer, emptied first; the
         * records are not read (command lists are what dmlops_command_list_get_access_stats
         * reports on). */
        if (vk->tracer) dm_vk_trace_begin(&vk->dev, cmd, &vk->trace, vk->tracer);
        dm_vk_record(t, cmd, vk->tracer);
        dm_vk_cmd_barrier(&vk->dev, cmd, true);
        const VkResult r = vk->dev.vkd.EndCommandBuffer(cmd);
        if (r != VK_SUCCESS) st = dm_vk_fail(&vk->dev.lost, r, "vkEndCommandBuffer", op->op.name);
    }
    if (st != DMLOPS_SUCCESS) {
        dm_vk_operator_table_put(op, t);
        return st;
    }
    *table = t;
    return DMLOPS_SUCCESS;
}
