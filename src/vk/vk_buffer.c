/* Buffers of a Vulkan context: zero-filled at creation, read and written by the host
 * through mappings or staging (vk_execute.h). */
#include <stdlib.h>

#include "vk_execute.h"
#include "../fault.h"

dmlops_status dm_vk_buffer_create(dmlops_buffer *buf)
{
    dm_vk_ctx *vk = dm_vk(buf->ctx);
    if (vk->dev.lost) return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "dmlops_buffer_create: the device was lost");
    dm_vk_buffer *b = dm_zalloc(&buf->ctx->alloc, 1, sizeof *b);
    if (!b) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_buffer_create: out of host memory");
    bool unmapped = false;
    dmlops_status st = dm_vk_buffer_alloc(&vk->dev, buf->size, b, &unmapped);
    if (st == DMLOPS_SUCCESS && unmapped) st = dm_vk_zero_unmapped(&vk->dev, &vk->sub, b, "dmlops_buffer_create");
    if (st != DMLOPS_SUCCESS) {
        dm_vk_buffer_free(&vk->dev, b);
        dm_afree(&buf->ctx->alloc, b);
        return st;
    }
    buf->impl = b;
    /* Overlap checks compare (resource, offset): one VkBuffer, or the whole segmented set. */
    buf->resource = b->nseg > 1 ? (uintptr_t)b : (uintptr_t)b->one.buffer;
    return DMLOPS_SUCCESS;
}

void dm_vk_buffer_destroy(dmlops_buffer *buf)
{
    dm_vk_buffer *b = dm_vkbuf(buf);
    dm_vk_buffer_free(&dm_vk(buf->ctx)->dev, b); /* not a wrapped buffer's VkBuffer */
    dm_afree(&buf->ctx->alloc, b);
}

dmlops_status dm_vk_buffer_write(dmlops_buffer *buf, uint64_t offset, const void *src, uint64_t size)
{
    dm_vk_ctx *vk = dm_vk(buf->ctx);
    return dm_vk_host_io(&vk->dev, &vk->sub, dm_vkbuf(buf), offset, (void *)(uintptr_t)src, size, true);
}

dmlops_status dm_vk_buffer_read(dmlops_buffer *buf, uint64_t offset, void *dst, uint64_t size)
{
    dm_vk_ctx *vk = dm_vk(buf->ctx);
    return dm_vk_host_io(&vk->dev, &vk->sub, dm_vkbuf(buf), offset, dst, size, false);
}
