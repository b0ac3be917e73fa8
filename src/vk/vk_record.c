/* Binding tables (descriptor sets and window remainders for one operator's bindings)
 * and recording into a command buffer. Recording inserts no barrier of its own. */
#include <stdlib.h>
#include <string.h>

#include "../checked.h"
#include "vk_internal.h"

/* (Re)creates the descriptor pool with `capacity` sets. */
static dmlops_status dm_vk_table_sets(dmlops_binding_table *t, uint32_t capacity)
{
    dm_vk_ctx *vk = t->vk;
    if (t->pool) vk->vkd.DestroyDescriptorPool(vk->device, t->pool, NULL);
    t->pool = VK_NULL_HANDLE;
    free(t->sets);
    free(t->push);
    t->capacity = 0;
    t->sets = calloc(capacity, sizeof *t->sets);
    t->push = calloc(capacity, sizeof *t->push);
    if (!t->sets || !t->push) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a binding table");
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, capacity * (1 + DM_SLOT_COUNT)};
    VkDescriptorPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                      .maxSets = capacity,
                                      .poolSizeCount = 1,
                                      .pPoolSizes = &size};
    DM_VK_CALL(vk, "creating a binding table", CreateDescriptorPool, (vk->device, &pci, NULL, &t->pool));
    for (uint32_t i = 0; i < capacity; i++) {
        VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                          .descriptorPool = t->pool,
                                          .descriptorSetCount = 1,
                                          .pSetLayouts = &vk->set_layout};
        DM_VK_CALL(vk, "creating a binding table", AllocateDescriptorSets, (vk->device, &ai, &t->sets[i]));
    }
    t->capacity = capacity;
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_table_create(dmlops_operator *op, uint32_t capacity, dmlops_binding_table **out)
{
    dm_vk_op *plan = op->impl;
    dmlops_binding_table *t = calloc(1, sizeof *t);
    if (!t) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a binding table");
    t->vk = dm_vk(op->ctx);
    t->region_capacity = plan->nregions > plan->reverse_rows ? plan->nregions : plan->reverse_rows;
    t->regions = t->region_capacity ? calloc(t->region_capacity, sizeof *t->regions) : NULL;
    dmlops_status st = t->region_capacity && !t->regions
                           ? dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a binding table")
                           : dm_vk_table_sets(t, capacity < plan->npieces ? plan->npieces : capacity);
    if (st != DMLOPS_SUCCESS) {
        dm_vk_table_destroy(t);
        return st;
    }
    *out = t;
    return DMLOPS_SUCCESS;
}

/* Forgets pieces planned for an earlier binding's segment boundaries. */
static void dm_vk_table_drop_split(dmlops_binding_table *t)
{
    free(t->own_pieces);
    t->own_pieces = NULL;
    t->own_npieces = 0;
    t->own_active = false;
    dm_vk_free(t->vk, &t->own_params);
}

void dm_vk_table_destroy(dmlops_binding_table *t)
{
    if (!t) return;
    dm_vk_table_drop_split(t);
    if (t->pool) t->vk->vkd.DestroyDescriptorPool(t->vk->device, t->pool, NULL);
    free(t->sets);
    free(t->push);
    free(t->regions);
    free(t->copies);
    free(t);
}

/* Bytes from `at` to the end of its segment. */
static uint64_t dm_vk_seg_room(const dm_vk_buffer *b, uint64_t at)
{
    return b->nseg > 1 ? b->seg_size - at % b->seg_size : UINT64_MAX;
}

static dmlops_status dm_vk_push_copy(dmlops_binding_table *t, const dm_vk_buffer *src, uint64_t s_at,
                                     const dm_vk_buffer *dst, uint64_t d_at, uint64_t size)
{
    while (size) {
        uint64_t n = dm_min_u64(size, dm_min_u64(dm_vk_seg_room(src, s_at), dm_vk_seg_room(dst, d_at)));
        if (t->ncopies == t->copies_cap) {
            uint32_t cap = t->copies_cap ? t->copies_cap * 2 : 64;
            dm_vk_copy *c = realloc(t->copies, cap * sizeof *c);
            if (!c) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory splitting copies");
            t->copies = c;
            t->copies_cap = cap;
        }
        dm_vk_copy *c = &t->copies[t->ncopies++];
        uint64_t si, di;
        c->src = dm_vk_at(src, s_at, &si)->buffer;
        c->dst = dm_vk_at(dst, d_at, &di)->buffer;
        c->region = (VkBufferCopy){si, di, n};
        s_at += n;
        d_at += n;
        size -= n;
    }
    return DMLOPS_SUCCESS;
}

/* The static copy path: regions offset by the bindings, split where a buffer's segments
 * change. Unsegmented buffers keep one batched region list. */
static dmlops_status dm_vk_bind_copies(dmlops_binding_table *t, const dm_vk_op *plan, const dmlops_binding *bs,
                                       const dmlops_binding *bd)
{
    const dm_vk_buffer *src = dm_vkbuf(bs->buffer), *dst = dm_vkbuf(bd->buffer);
    t->path = DMLOPS_PATH_COPY_REGIONS;
    if (src->nseg == 1 && dst->nseg == 1) {
        uint64_t so = src->offset + bs->offset, dof = dst->offset + bd->offset;
        for (uint32_t i = 0; i < plan->nregions; i++)
            t->regions[i] = (VkBufferCopy){so + plan->regions[i].srcOffset, dof + plan->regions[i].dstOffset,
                                           plan->regions[i].size};
        t->copy_src = src->one.buffer;
        t->copy_dst = dst->one.buffer;
        t->nregions = plan->nregions;
        return DMLOPS_SUCCESS;
    }
    for (uint32_t i = 0; i < plan->nregions; i++)
        DM_TRY(dm_vk_push_copy(t, src, bs->offset + plan->regions[i].srcOffset, dst, bd->offset + plan->regions[i].dstOffset,
                               plan->regions[i].size));
    return DMLOPS_SUCCESS;
}

/* True when some window of the plan's pieces would straddle a segment boundary. */
static bool dm_vk_straddles(const dm_vk_op *plan, const dmlops_binding *bind, dm_vk_segments *segs)
{
    const dm_gather *g = &plan->g;
    bool any = false;
    for (int s = 0; s < DM_SLOT_COUNT; s++) {
        segs->base[s] = segs->seg_size[s] = 0;
        if (g->binding[s] < 0) continue;
        const dmlops_binding *b = &bind[g->binding[s]];
        const dm_vk_buffer *vb = dm_vkbuf(b->buffer);
        segs->base[s] = b->offset;
        segs->seg_size[s] = vb->nseg > 1 ? vb->seg_size : 0;
        for (uint32_t p = 0; p < plan->npieces && segs->seg_size[s] && !any; p++) {
            const dm_vk_span *span = &plan->pieces[p].span[s];
            any = (b->offset + span->lo) / vb->seg_size != (b->offset + span->hi - 1) / vb->seg_size;
        }
    }
    return any;
}

dmlops_status dm_vk_table_bind(dmlops_binding_table *t, dmlops_operator *op, const dmlops_binding *bind)
{
    dm_vk_ctx *vk = t->vk;
    dm_vk_op *plan = op->impl;
    const dm_gather *g = &plan->g;
    if (plan->nregions > t->region_capacity)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: the binding table was created for another operator",
                       op->op.name);
    if (t->op != op) dm_vk_table_drop_split(t);
    t->op = op;
    /* Nothing of an earlier binding survives: regions, copies and their buffers. */
    t->nregions = t->ncopies = 0;
    t->copy_src = t->copy_dst = VK_NULL_HANDLE;
    t->bound = false;
    const dmlops_binding *bs = &bind[g->binding[DM_SLOT_SRC]], *bd = &bind[g->binding[DM_SLOT_DST]];
    if (plan->use_copy && dm_vkbuf(bs->buffer)->transfer && dm_vkbuf(bd->buffer)->transfer) {
        DM_TRY(dm_vk_bind_copies(t, plan, bs, bd));
        t->bound = true;
        return DMLOPS_SUCCESS;
    }
    dm_vk_segments segs;
    const dm_vk_piece *pieces = plan->pieces;
    uint32_t npieces = plan->npieces;
    VkBuffer params = plan->params.buffer;
    memset(&segs, 0, sizeof segs); /* compared whole, padding included */
    if (dm_vk_straddles(plan, bind, &segs)) {
        /* Rare: buffers above the device's largest allocation. Plan again with the
         * boundaries known; this allocates, once per distinct set of boundaries. */
        if (!t->own_pieces || memcmp(&segs, &t->own_segs, sizeof segs) != 0) {
            dm_vk_table_drop_split(t);
            dmlops_status st = dm_vk_plan_segments(vk, g, &segs, &t->own_pieces, &t->own_npieces, &t->own_params);
            if (st != DMLOPS_SUCCESS) return dm_fail_prefix(st, "%s (binding windows at allocation boundaries)", op->op.name);
            t->own_segs = segs;
        }
        pieces = t->own_pieces;
        npieces = t->own_npieces;
        params = t->own_params.buffer;
    }
    t->own_active = pieces == t->own_pieces;
    if (npieces > t->capacity) DM_TRY(dm_vk_table_sets(t, npieces));
    for (uint32_t p = 0; p < npieces; p++) {
        VkDescriptorBufferInfo info[1 + DM_SLOT_COUNT];
        VkWriteDescriptorSet w[1 + DM_SLOT_COUNT];
        info[0] = (VkDescriptorBufferInfo){params, (uint64_t)p * DM_P_WORDS * 4, DM_P_WORDS * 4};
        for (int s = 0; s < DM_SLOT_COUNT; s++) {
            const dm_vk_span *span = &pieces[p].span[s];
            t->push[p].rem[s] = 0;
            if (g->binding[s] < 0) {
                info[1 + s] = (VkDescriptorBufferInfo){vk->dummy.buffer, 0, VK_WHOLE_SIZE};
                continue;
            }
            const dmlops_binding *b = &bind[g->binding[s]];
            uint64_t lo, hi = 0;
            const dm_vk_memory *m = dm_vk_at(dm_vkbuf(b->buffer), b->offset + span->lo, &lo);
            uint64_t aligned = dm_align_down_u64(lo, vk->align);
            dm_align_up_u64(lo + (span->hi - span->lo), 4, &hi); /* inside the segment: planned so */
            t->push[p].rem[s] = (uint32_t)(lo - aligned);
            info[1 + s] = (VkDescriptorBufferInfo){m->buffer, aligned, hi - aligned};
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
        if (t->nregions) vk->vkd.CmdCopyBuffer(cmd, t->copy_src, t->copy_dst, t->nregions, t->regions);
        for (uint32_t i = 0; i < t->ncopies; i++)
            vk->vkd.CmdCopyBuffer(cmd, t->copies[i].src, t->copies[i].dst, 1, &t->copies[i].region);
        return;
    }
    const dm_vk_piece *pieces = t->own_active ? t->own_pieces : plan->pieces;
    uint32_t npieces = t->own_active ? t->own_npieces : plan->npieces;
    vk->vkd.CmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, plan->pipeline);
    for (uint32_t p = 0; p < npieces; p++) {
        /* Kernels loop over their units, so any size fits one capped grid. */
        uint64_t groups = (pieces[p].runs + DM_VK_WORKGROUP - 1) / DM_VK_WORKGROUP;
        if (groups > vk->grid_cap) groups = vk->grid_cap;
        uint32_t gx = (uint32_t)(groups < vk->max_groups[0] ? groups : vk->max_groups[0]);
        uint32_t gy = (uint32_t)((groups + gx - 1) / gx);
        if (gy > vk->max_groups[1]) gy = vk->max_groups[1];
        vk->vkd.CmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pipe_layout, 0, 1, &t->sets[p], 0, NULL);
        vk->vkd.CmdPushConstants(cmd, vk->pipe_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof t->push[p], &t->push[p]);
        vk->vkd.CmdDispatch(cmd, gx, gy, 1);
    }
}

void dm_vk_cmd_copy(dm_vk_ctx *vk, VkCommandBuffer cmd, const dm_vk_buffer *src, uint64_t s_at, const dm_vk_buffer *dst,
                    uint64_t d_at, uint64_t size)
{
    while (size) {
        uint64_t n = dm_min_u64(size, dm_min_u64(dm_vk_seg_room(src, s_at), dm_vk_seg_room(dst, d_at)));
        uint64_t si, di;
        VkBuffer sb = dm_vk_at(src, s_at, &si)->buffer, db = dm_vk_at(dst, d_at, &di)->buffer;
        VkBufferCopy r = {si, di, n};
        vk->vkd.CmdCopyBuffer(cmd, sb, db, 1, &r);
        s_at += n;
        d_at += n;
        size -= n;
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
