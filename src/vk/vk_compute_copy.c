/* The compute copy (vk_record.h): dmlops_command_list_record_compute_copy(_shaped), the
 * benchmark's copy-shader ceiling. A transfer is cut where either buffer changes segment,
 * then into windows that fit maxStorageBufferRange (and 2 GiB, dm_vk_limits) once bound at
 * their aligned-down starts; each window gets a descriptor set, push constants (the
 * remainders and the count, in 16-byte vectors) and one dispatch of the shape's pipeline
 * and workgroups (up to 65535). */
#include <stdlib.h>

#include "../checked.h"
#include "vk_record.h"
#include "../fault.h"

typedef struct dm_cc_piece {
    VkBuffer src, dst;
    uint64_t s_off, d_off, bytes; /* offsets inside the VkBuffers */
} dm_cc_piece;

/* The windows of the transfer, into out when not NULL; returns how many there are. */
static uint32_t dm_cc_pieces(const dm_vk_limits *lim, const dm_vk_buffer *dst, uint64_t d_at, const dm_vk_buffer *src,
                             uint64_t s_at, uint64_t size, dm_cc_piece *out)
{
    const uint64_t window = dm_vk_copy_window(lim);
    uint32_t n = 0;
    dm_vk_copy c;
    while (dm_vk_copy_next(src, &s_at, dst, &d_at, &size, &c)) {
        for (uint64_t done = 0; done < c.region.size; n++) {
            uint64_t bytes = dm_min_u64(window, c.region.size - done);
            if (out)
                out[n] = (dm_cc_piece){c.src, c.dst, c.region.srcOffset + done, c.region.dstOffset + done, bytes};
            done += bytes;
        }
    }
    return n;
}

void dm_vk_compute_copy_destroy(dm_vk_compute_copy *c)
{
    if (!c) return;
    const dm_vk_device *d = &c->vk->dev;
    for (uint32_t i = 0; c->views && i < c->n; i++)
        if (c->views[i]) d->vkd.DestroyBufferView(d->device, c->views[i], d->vk_alloc);
    dm_afree(d->host, c->views);
    if (c->pool) d->vkd.DestroyDescriptorPool(d->device, c->pool, d->vk_alloc);
    dm_afree(d->host, c->sets);
    dm_afree(d->host, c->push);
    dm_afree(d->host, c->groups);
    dm_afree(d->host, c);
}

/* Writes set i: both windows bound at their aligned-down starts, as storage buffers and,
 * on the texel path, the source again as a texel view of the same bytes. */
static dmlops_status dm_cc_bind(dm_vk_compute_copy *c, uint32_t i, const dm_cc_piece *p)
{
    dm_vk_device *d = &c->vk->dev;
    const uint64_t align = d->lim.align;
    uint64_t da = dm_align_down_u64(p->d_off, align), sa = dm_align_down_u64(p->s_off, align);
    VkDescriptorBufferInfo info[DM_COPY_BINDING_TRACE + 1];
    info[DM_COPY_BINDING_DST] = (VkDescriptorBufferInfo){p->dst, da, p->d_off - da + p->bytes};
    info[DM_COPY_BINDING_SRC] = (VkDescriptorBufferInfo){p->src, sa, p->s_off - sa + p->bytes};
    if (c->texel)
        DM_TRY(dm_vk_texel_view(d, p->src, sa, info[DM_COPY_BINDING_SRC].range, VK_FORMAT_R32G32B32A32_UINT,
                                "dmlops_command_list_record_compute_copy", &c->views[i]));
    const VkBufferView tv = c->views[i] ? c->views[i] : c->vk->dummy_view;
    /* A tracing context's sets bind the record buffer too (glsl/trace.glsl). */
    info[DM_COPY_BINDING_TRACE] = (VkDescriptorBufferInfo){c->vk->trace.buf.buffer, 0, VK_WHOLE_SIZE};
    const uint32_t n = dm_vk_copy_set_bindings(c->vk->pipes.trace);
    VkWriteDescriptorSet w[DM_COPY_BINDING_TRACE + 1];
    for (uint32_t b = 0; b < n; b++)
        w[b] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = c->sets[i],
                                      .dstBinding = b,
                                      .descriptorCount = 1,
                                      .descriptorType = dm_vk_copy_binding_type(b),
                                      .pBufferInfo = b != DM_COPY_BINDING_SRC_TEXEL ? &info[b] : NULL,
                                      .pTexelBufferView = b != DM_COPY_BINDING_SRC_TEXEL ? NULL : &tv};
    d->vkd.UpdateDescriptorSets(d->device, n, w, 0, NULL);
    /* tbase_*: each window's offset in its VkBuffer, for the trace build's sector counts. */
    c->push[i] = (dm_vk_copy_push){.dst_at = (uint32_t)((p->d_off - da) / 16),
                                   .src_at = (uint32_t)((p->s_off - sa) / 16),
                                   .count = (uint32_t)(p->bytes / 16),
                                   .tbase_dst = (uint32_t)da,
                                   .tbase_src = (uint32_t)sa};
    c->groups[i] = dm_vk_copy_groups(&d->lim, p->bytes, &c->shape);
    return DMLOPS_SUCCESS;
}

static dmlops_status dm_cc_fill(dm_vk_compute_copy *c, const dm_cc_piece *pieces)
{
    dm_vk_device *d = &c->vk->dev;
    const char *what = "dmlops_command_list_record_compute_copy";
    VkDescriptorPoolSize size[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, c->n * (c->vk->pipes.trace ? 3 : 2)},
                                    {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, c->n}};
    VkDescriptorPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                      .maxSets = c->n,
                                      .poolSizeCount = 2,
                                      .pPoolSizes = size};
    DM_VK_CALL(d, what, CreateDescriptorPool, (d->device, &pci, d->vk_alloc, &c->pool));
    for (uint32_t i = 0; i < c->n; i++) {
        VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                          .descriptorPool = c->pool,
                                          .descriptorSetCount = 1,
                                          .pSetLayouts = &c->vk->pipes.copy_set_layout};
        DM_VK_CALL(d, what, AllocateDescriptorSets, (d->device, &ai, &c->sets[i]));
        DM_TRY(dm_cc_bind(c, i, &pieces[i]));
    }
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_compute_copy_create(dm_vk_ctx *vk, const dm_vk_buffer *dst, uint64_t d_at, const dm_vk_buffer *src,
                                        uint64_t s_at, uint64_t size, const dmlops_compute_copy_shape *shape,
                                        dm_vk_compute_copy **out)
{
    const char *what = "dmlops_command_list_record_compute_copy";
    dm_vk_device *d = &vk->dev;
    if (shape->workgroup_size > d->lim.max_workgroup)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                       "%s_shaped: shape.workgroup_size = %u exceeds the device's largest workgroup (%u: "
                       "maxComputeWorkGroupInvocations %u, maxComputeWorkGroupSize[0] at most that)",
                       what, shape->workgroup_size, d->lim.max_workgroup, d->info.max_compute_work_group_invocations);
    dm_vk_compute_copy *c = dm_zalloc(d->host, 1, sizeof *c);
    if (!c) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", what);
    c->vk = vk;
    c->shape = *shape;
    c->texel = dm_vk_copy_texel(&d->lim) && src->texel;
    dmlops_status st = dm_vk_copy_pipeline(d, &vk->pipes, c->texel, shape->vectors, shape->workgroup_size, &c->pipeline);
    c->n = dm_cc_pieces(&d->lim, dst, d_at, src, s_at, size, NULL);
    dm_cc_piece *pieces = st == DMLOPS_SUCCESS ? dm_zalloc(d->host, c->n, sizeof *pieces) : NULL;
    c->sets = dm_zalloc(d->host, c->n, sizeof *c->sets);
    c->push = dm_zalloc(d->host, c->n, sizeof *c->push);
    c->groups = dm_zalloc(d->host, c->n, sizeof *c->groups);
    c->views = dm_zalloc(d->host, c->n, sizeof *c->views);
    if (st == DMLOPS_SUCCESS && (!pieces || !c->sets || !c->push || !c->groups || !c->views))
        st = dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", what);
    if (st == DMLOPS_SUCCESS) {
        dm_cc_pieces(&d->lim, dst, d_at, src, s_at, size, pieces);
        st = dm_cc_fill(c, pieces);
    }
    dm_afree(d->host, pieces);
    if (st != DMLOPS_SUCCESS) {
        dm_vk_compute_copy_destroy(c);
        return st;
    }
    *out = c;
    return DMLOPS_SUCCESS;
}
