/* Binding tables (descriptor sets and window remainders for one operator's bindings)
 * and recording into a command buffer. Recording inserts no barrier of its own. */
#include <stdlib.h>
#include <string.h>

#include "../checked.h"
#include "vk_internal.h"

dmlops_status dm_vk_table_create(dmlops_operator *op, uint32_t capacity, dmlops_binding_table **out)
{
    dm_vk_ctx *vk = dm_vk(op->ctx);
    dm_vk_op *plan = op->impl;
    dmlops_binding_table *t = calloc(1, sizeof *t);
    if (!t) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a binding table");
    t->vk = vk;
    t->capacity = capacity < plan->npieces ? plan->npieces : capacity;
    t->region_capacity = plan->nregions > plan->reverse_rows ? plan->nregions : plan->reverse_rows;
    t->sets = calloc(t->capacity, sizeof *t->sets);
    t->push = calloc(t->capacity, sizeof *t->push);
    t->regions = t->region_capacity ? calloc(t->region_capacity, sizeof *t->regions) : NULL;
    dmlops_status st = DMLOPS_SUCCESS;
    if (!t->sets || !t->push || (t->region_capacity && !t->regions)) {
        st = dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a binding table");
    } else {
        VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, t->capacity * (1 + DM_SLOT_COUNT)};
        VkDescriptorPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                          .maxSets = t->capacity,
                                          .poolSizeCount = 1,
                                          .pPoolSizes = &size};
        VkResult r = vk->vkd.CreateDescriptorPool(vk->device, &pci, NULL, &t->pool);
        if (r != VK_SUCCESS) st = dm_vk_fail(vk, r, "vkCreateDescriptorPool", "creating a binding table");
        for (uint32_t i = 0; i < t->capacity && st == DMLOPS_SUCCESS; i++) {
            VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                              .descriptorPool = t->pool,
                                              .descriptorSetCount = 1,
                                              .pSetLayouts = &vk->set_layout};
            r = vk->vkd.AllocateDescriptorSets(vk->device, &ai, &t->sets[i]);
            if (r != VK_SUCCESS) st = dm_vk_fail(vk, r, "vkAllocateDescriptorSets", "creating a binding table");
        }
    }
    if (st != DMLOPS_SUCCESS) {
        dm_vk_table_destroy(t);
        return st;
    }
    *out = t;
    return DMLOPS_SUCCESS;
}

void dm_vk_table_destroy(dmlops_binding_table *t)
{
    if (!t) return;
    if (t->pool) t->vk->vkd.DestroyDescriptorPool(t->vk->device, t->pool, NULL);
    free(t->sets);
    free(t->push);
    free(t->regions);
    free(t);
}

dmlops_status dm_vk_table_bind(dmlops_binding_table *t, dmlops_operator *op, const dmlops_binding *bind)
{
    dm_vk_ctx *vk = t->vk;
    dm_vk_op *plan = op->impl;
    const dm_gather *g = &plan->g;
    if (plan->npieces > t->capacity || plan->nregions > t->region_capacity)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: the binding table was created for another operator",
                       op->op.name);
    t->op = op;
    int sb = g->binding[DM_SLOT_SRC], db = g->binding[DM_SLOT_DST];
    if (plan->use_copy && dm_vkbuf(bind[sb].buffer)->transfer && dm_vkbuf(bind[db].buffer)->transfer) {
        const dm_vk_buffer *src = dm_vkbuf(bind[sb].buffer), *dst = dm_vkbuf(bind[db].buffer);
        uint64_t so = src->offset + bind[sb].offset, dof = dst->offset + bind[db].offset;
        for (uint32_t i = 0; i < plan->nregions; i++)
            t->regions[i] = (VkBufferCopy){so + plan->regions[i].srcOffset, dof + plan->regions[i].dstOffset,
                                           plan->regions[i].size};
        t->copy_src = src->mem.buffer;
        t->copy_dst = dst->mem.buffer;
        t->nregions = plan->nregions;
        t->path = DMLOPS_PATH_COPY_REGIONS;
        t->bound = true;
        return DMLOPS_SUCCESS;
    }
    for (uint32_t p = 0; p < plan->npieces; p++) {
        VkDescriptorBufferInfo info[1 + DM_SLOT_COUNT];
        VkWriteDescriptorSet w[1 + DM_SLOT_COUNT];
        info[0] = (VkDescriptorBufferInfo){plan->params.buffer, (uint64_t)p * DM_P_WORDS * 4, DM_P_WORDS * 4};
        for (int s = 0; s < DM_SLOT_COUNT; s++) {
            const dm_vk_span *span = &plan->pieces[p].span[s];
            t->push[p].rem[s] = 0;
            if (g->binding[s] < 0) {
                info[1 + s] = (VkDescriptorBufferInfo){vk->dummy.buffer, 0, VK_WHOLE_SIZE};
                continue;
            }
            const dmlops_binding *b = &bind[g->binding[s]];
            const dm_vk_buffer *vb = dm_vkbuf(b->buffer);
            uint64_t base = vb->offset + b->offset, lo = base + span->lo;
            uint64_t aligned = dm_align_down_u64(lo, vk->align), hi = 0;
            dm_align_up_u64(base + span->hi, 4, &hi); /* within the buffer: validated */
            t->push[p].rem[s] = (uint32_t)(lo - aligned);
            info[1 + s] = (VkDescriptorBufferInfo){vb->mem.buffer, aligned, hi - aligned};
        }
        for (uint32_t i = 0; i < 1 + DM_SLOT_COUNT; i++)
            w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                          .dstSet = t->sets[p],
                                          .dstBinding = i,
                                          .descriptorCount = 1,
                                          .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                          .pBufferInfo = &info[i]};
        vk->vkd.UpdateDescriptorSets(vk->device, 1 + DM_SLOT_COUNT, w, 0, NULL);
    }
    t->path = DMLOPS_PATH_KERNEL;
    t->bound = true;
    return DMLOPS_SUCCESS;
}

void dm_vk_record(dmlops_binding_table *t, VkCommandBuffer cmd)
{
    const dm_vk_ctx *vk = t->vk;
    const dm_vk_op *plan = t->op->impl;
    if (t->path == DMLOPS_PATH_COPY_REGIONS) {
        vk->vkd.CmdCopyBuffer(cmd, t->copy_src, t->copy_dst, t->nregions, t->regions);
        return;
    }
    vk->vkd.CmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, plan->pipeline);
    for (uint32_t p = 0; p < plan->npieces; p++) {
        /* Kernels loop over their units, so any size fits one capped grid. */
        uint64_t groups = (plan->pieces[p].runs + DM_VK_WORKGROUP - 1) / DM_VK_WORKGROUP;
        if (groups > vk->grid_cap) groups = vk->grid_cap;
        uint32_t gx = (uint32_t)(groups < vk->max_groups[0] ? groups : vk->max_groups[0]);
        uint32_t gy = (uint32_t)((groups + gx - 1) / gx);
        if (gy > vk->max_groups[1]) gy = vk->max_groups[1];
        vk->vkd.CmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pipe_layout, 0, 1, &t->sets[p], 0, NULL);
        vk->vkd.CmdPushConstants(cmd, vk->pipe_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof t->push[p], &t->push[p]);
        vk->vkd.CmdDispatch(cmd, gx, gy, 1);
    }
}

void dm_vk_cmd_barrier(dm_vk_ctx *vk, VkCommandBuffer cmd, bool to_host)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = to_host ? VK_ACCESS_HOST_READ_BIT
                                 : VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                                       VK_ACCESS_TRANSFER_WRITE_BIT};
    VkPipelineStageFlags work = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vk->vkd.CmdPipelineBarrier(cmd, work, to_host ? VK_PIPELINE_STAGE_HOST_BIT : work, 0, 1, &mb, 0, NULL, 0, NULL);
}
