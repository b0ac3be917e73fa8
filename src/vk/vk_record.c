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
        /* The piece's virtual grid, a real grid of `groups` workgroups at a time (vk_plan.h,
         * dm_vk_piece_grid, under the operator's own limits: tuning): the kernels loop over
         * the virtual one. gx * gy may pass the dispatch's count by less than a row of x;
         * those workgroups return at once. */
        const uint32_t per = pieces[p].groups, vgroups = pieces[p].vgroups;
        d->vkd.CmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &t->sets[p], 0, NULL);
        for (uint32_t g0 = 0; g0 < vgroups; g0 += per) {
            const uint32_t groups = vgroups - g0 < per ? vgroups - g0 : per;
            const uint32_t gx = groups < o->lim.max_groups[0] ? groups : o->lim.max_groups[0];
            const uint32_t gy = (groups + gx - 1) / gx; /* <= max_groups[1]: the planner caps groups */
            dm_vk_push push = t->push[p];
            push.group0 = g0;
            push.vgroups = vgroups;
            if (tr) push.tdispatch = dm_vk_tracer_dispatch(tr, o->lim.workgroup);
            d->vkd.CmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
            d->vkd.CmdDispatch(cmd, gx, gy, 1);
        }
    }
}

void dm_vk_record_compute_copy(const dm_vk_compute_copy *c, VkCommandBuffer cmd, dm_vk_tracer *tr)
{
    const dm_vk_device *d = &c->vk->dev;
    VkPipelineLayout layout = c->vk->pipes.copy_layout;
    d->vkd.CmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, c->pipeline);
    for (uint32_t i = 0; i < c->n; i++) {
        d->vkd.CmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &c->sets[i], 0, NULL);
        /* Each invocation loops at most DM_VK_COPY_STEPS times a dispatch (a shape of one
         * small workgroup would otherwise loop over the whole window, past lavapipe's
         * 65535 loop iterations, vk_grid.c): the window as several dispatches, each moving
         * the next part of it. */
        const uint64_t per = (uint64_t)c->groups[i] * c->shape.workgroup_size * c->shape.vectors * DM_VK_COPY_STEPS;
        for (uint64_t done = 0; done == 0 || done < c->push[i].count; done += per) {
            dm_vk_copy_push push = c->push[i];
            push.dst_at += (uint32_t)done;
            push.src_at += (uint32_t)done;
            push.count = (uint32_t)(push.count - done < per ? push.count - done : per);
            if (tr) push.tdispatch = dm_vk_tracer_dispatch(tr, c->shape.workgroup_size);
            d->vkd.CmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
            d->vkd.CmdDispatch(cmd, c->groups[i], 1, 1);
        }
    }
}

/* The first path taken, or MIXED once two differ. */
void dm_vk_note_path(const dmlops_binding_table *t)
{
    dmlops_path *last = &t->op->info.last_path;
    *last = *last == DMLOPS_PATH_NONE || *last == t->path ? t->path : DMLOPS_PATH_MIXED;
    if (t->path == DMLOPS_PATH_COPY_REGIONS) t->op->info.copy_region_count = t->nregions;
}
