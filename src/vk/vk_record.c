/* Recording a bound binding table into a command buffer (vk_record.h): its copy regions,
 * or its pipeline and one dispatch per piece; and a compute copy's dispatches. No barrier
 * of its own. */
#include "vk_record.h"

void dm_vk_record(const dmlops_binding_table *t, VkCommandBuffer cmd, dm_vk_tracer *tr)
{
    const dm_vk_device *d = &t->vk->dev;
    const dm_vk_op *o = t->op->impl;
    if (t->path == DMLOPS_PATH_COPY_REGIONS) {
        if (tr) tr->untraced++;
        /* At most DM_VK_REGIONS_PER_COPY regions a call: the Khronos validation layer checks
         * a call's regions for overlap pair by pair, and a 320 MiB REVERSE under the spec's
         * minimum limits (160000 regions in one call) had not been checked after 15
         * minutes; in calls of 256 its checks take seconds. Drivers take the regions alike. */
        for (uint32_t i = 0; i < t->nregions; i += DM_VK_REGIONS_PER_COPY) {
            const uint32_t n = t->nregions - i < DM_VK_REGIONS_PER_COPY ? t->nregions - i : DM_VK_REGIONS_PER_COPY;
            d->vkd.CmdCopyBuffer(cmd, t->copy_src, t->copy_dst, n, t->regions + i);
        }
        for (uint32_t i = 0; i < t->ncopies; i++)
            d->vkd.CmdCopyBuffer(cmd, t->copies[i].src, t->copies[i].dst, 1, &t->copies[i].region);
        return;
    }
    const dm_vk_piece *pieces = t->own_active ? t->own_pieces : o->plan.pieces;
    uint32_t npieces = t->own_active ? t->own_npieces : o->plan.npieces;
    VkPipelineLayout layout = t->vk->pipes.layout;
    d->vkd.CmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, t->pipeline);
    for (uint32_t p = 0; p < npieces; p++) {
        uint32_t gx, gy;
        dm_vk_dispatch_groups(&o->lim, pieces[p].runs, &gx, &gy); /* the operator's own limits (tuning) */
        dm_vk_push push = t->push[p];
        if (tr) push.tdispatch = dm_vk_tracer_dispatch(tr, o->lim.workgroup);
        d->vkd.CmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &t->sets[p], 0, NULL);
        d->vkd.CmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
        d->vkd.CmdDispatch(cmd, gx, gy, 1);
    }
}

void dm_vk_record_compute_copy(const dm_vk_compute_copy *c, VkCommandBuffer cmd, dm_vk_tracer *tr)
{
    const dm_vk_device *d = &c->vk->dev;
    VkPipelineLayout layout = c->vk->pipes.copy_layout;
    d->vkd.CmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->pipeline);
    for (uint32_t i = 0; i < c->n; i++) {
        dm_vk_copy_push push = c->push[i];
        if (tr) push.tdispatch = dm_vk_tracer_dispatch(tr, c->shape.workgroup_size);
        d->vkd.CmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &c->sets[i], 0, NULL);
        d->vkd.CmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
        d->vkd.CmdDispatch(cmd, c->groups[i], 1, 1);
    }
}

void dm_vk_dispatch_groups(const dm_vk_limits *lim, uint64_t runs, uint32_t *gx, uint32_t *gy)
{
    /* Kernels loop over their units, so any size fits one capped grid. */
    uint64_t groups = (runs + lim->workgroup - 1) / lim->workgroup;
    if (groups > lim->grid_cap) groups = lim->grid_cap;
    if (groups < 1) groups = 1;
    *gx = (uint32_t)(groups < lim->max_groups[0] ? groups : lim->max_groups[0]);
    *gy = (uint32_t)((groups + *gx - 1) / *gx);
    if (*gy > lim->max_groups[1]) *gy = lim->max_groups[1];
}

/* The first path taken, or MIXED once two differ. */
void dm_vk_note_path(const dmlops_binding_table *t)
{
    dmlops_path *last = &t->op->info.last_path;
    *last = *last == DMLOPS_PATH_NONE || *last == t->path ? t->path : DMLOPS_PATH_MIXED;
    if (t->path == DMLOPS_PATH_COPY_REGIONS) t->op->info.copy_region_count = t->nregions;
}
