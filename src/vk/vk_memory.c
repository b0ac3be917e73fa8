/* Device memory: one allocation per buffer, persistently mapped where the host can see
 * it, and a reused staging buffer for devices where it cannot (discrete GPUs) or for
 * wrapped application buffers. */
#include <stdlib.h>
#include <string.h>

#include "../checked.h"
#include "vk_internal.h"

enum { DM_STAGING_MAX = 64 << 20 };

static uint32_t dm_find_type(const dm_vk_ctx *vk, uint32_t bits, VkMemoryPropertyFlags want,
                             VkMemoryPropertyFlags nice)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < vk->memprops.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = vk->memprops.memoryTypes[i].propertyFlags;
        if (!(bits & (1u << i)) || (f & want) != want) continue;
        if ((f & nice) == nice) return i;
        if (best == UINT32_MAX) best = i;
    }
    return best;
}

dmlops_status dm_vk_alloc(dm_vk_ctx *vk, uint64_t size, bool host_visible, const char *what, dm_vk_memory *m)
{
    memset(m, 0, sizeof *m);
    uint64_t padded;
    if (!dm_align_up_u64(size, 16, &padded) || padded > vk->max_alloc)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: %llu bytes exceed the largest buffer %s can allocate (%llu bytes)",
                       what, (unsigned long long)size, vk->info.name, (unsigned long long)vk->max_alloc);
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = padded,
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    DM_VK_CALL(vk, what, CreateBuffer, (vk->device, &bci, NULL, &m->buffer));
    VkMemoryRequirements req;
    vk->vkd.GetBufferMemoryRequirements(vk->device, m->buffer, &req);
    const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type;
    if (host_visible || vk->uma)
        type = dm_find_type(vk, req.memoryTypeBits, hv,
                            VK_MEMORY_PROPERTY_HOST_CACHED_BIT | (host_visible ? 0 : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
    else
        type = dm_find_type(vk, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
    if (type == UINT32_MAX) type = dm_find_type(vk, req.memoryTypeBits, 0, 0);
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
    VkResult r = vk->vkd.AllocateMemory(vk->device, &mai, NULL, &m->memory);
    if (r != VK_SUCCESS) {
        vk->vkd.DestroyBuffer(vk->device, m->buffer, NULL);
        m->buffer = VK_NULL_HANDLE;
        return dm_vk_fail(vk, r, "vkAllocateMemory", what);
    }
    m->size = size;
    r = vk->vkd.BindBufferMemory(vk->device, m->buffer, m->memory, 0);
    VkMemoryPropertyFlags flags = vk->memprops.memoryTypes[type].propertyFlags;
    const char *call = "vkBindBufferMemory";
    /* Only coherent memory is mapped: the library never flushes or invalidates, so other
     * memory goes through staging like device-only memory. */
    const VkMemoryPropertyFlags mappable = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (r == VK_SUCCESS && (flags & mappable) == mappable) {
        call = "vkMapMemory";
        r = vk->vkd.MapMemory(vk->device, m->memory, 0, VK_WHOLE_SIZE, 0, &m->map);
    }
    if (r != VK_SUCCESS) {
        dm_vk_free(vk, m);
        return dm_vk_fail(vk, r, call, what);
    }
    return DMLOPS_SUCCESS;
}

void dm_vk_free(dm_vk_ctx *vk, dm_vk_memory *m)
{
    if (m->buffer) vk->vkd.DestroyBuffer(vk->device, m->buffer, NULL);
    if (m->memory) vk->vkd.FreeMemory(vk->device, m->memory, NULL); /* unmaps too */
    memset(m, 0, sizeof *m);
}

static dmlops_status dm_vk_staging(dm_vk_ctx *vk, uint64_t want)
{
    want = dm_min_u64(dm_max_u64(want, 1 << 20), DM_STAGING_MAX);
    if (vk->staging.buffer && vk->staging.size >= want) return DMLOPS_SUCCESS;
    dm_vk_free(vk, &vk->staging);
    return dm_vk_alloc(vk, want, true, "allocating staging memory", &vk->staging);
}

/* Moves bytes between host memory and (buffer, offset) through staging. Lock held. */
static dmlops_status dm_vk_staged(dm_vk_ctx *vk, VkBuffer buffer, uint64_t offset, void *host, uint64_t size,
                                  bool to_device, const char *what)
{
    DM_TRY(dm_vk_staging(vk, size));
    for (uint64_t done = 0; done < size;) {
        uint64_t n = dm_min_u64(size - done, vk->staging.size);
        if (to_device) memcpy(vk->staging.map, (uint8_t *)host + done, (size_t)n);
        DM_TRY(dm_vk_begin(vk, vk->cmd, true, what));
        VkBufferCopy region = {to_device ? 0 : offset + done, to_device ? offset + done : 0, n};
        vk->vkd.CmdCopyBuffer(vk->cmd, to_device ? vk->staging.buffer : buffer, to_device ? buffer : vk->staging.buffer,
                              1, &region);
        dm_vk_cmd_barrier(vk, vk->cmd, true);
        DM_TRY(dm_vk_submit_wait(vk, vk->cmd, what));
        if (!to_device) memcpy((uint8_t *)host + done, vk->staging.map, (size_t)n);
        done += n;
    }
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_upload(dm_vk_ctx *vk, dm_vk_memory *m, uint64_t offset, const void *src, uint64_t size)
{
    if (m->map) {
        memcpy((uint8_t *)m->map + offset, src, (size_t)size);
        return DMLOPS_SUCCESS;
    }
    return dm_vk_staged(vk, m->buffer, offset, (void *)(uintptr_t)src, size, true, "uploading operator parameters");
}

/* Zero-fills the segments that the host cannot reach, with one submission. */
static dmlops_status dm_vk_fill_zero(dm_vk_ctx *vk, dm_vk_buffer *b)
{
    pthread_mutex_lock(vk->lock);
    dmlops_status st = dm_vk_begin(vk, vk->cmd, true, "dmlops_buffer_create");
    if (st == DMLOPS_SUCCESS) {
        for (uint32_t i = 0; i < b->nseg; i++)
            if (!b->seg[i].map) vk->vkd.CmdFillBuffer(vk->cmd, b->seg[i].buffer, 0, VK_WHOLE_SIZE, 0);
        dm_vk_cmd_barrier(vk, vk->cmd, false);
        st = dm_vk_submit_wait(vk, vk->cmd, "dmlops_buffer_create");
    }
    pthread_mutex_unlock(vk->lock);
    return st;
}

static void dm_vk_free_segments(dm_vk_ctx *vk, dm_vk_buffer *b)
{
    for (uint32_t i = 0; i < b->nseg; i++) dm_vk_free(vk, &b->seg[i]);
    if (b->seg != &b->one) free(b->seg);
}

dmlops_status dm_vk_buffer_create(dmlops_buffer *buf)
{
    dm_vk_ctx *vk = dm_vk(buf->ctx);
    if (vk->lost) return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "dmlops_buffer_create: the device was lost");
    dm_vk_buffer *b = calloc(1, sizeof *b);
    if (!b) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_buffer_create: out of host memory");
    uint64_t n = buf->size / vk->seg_size + (buf->size % vk->seg_size != 0); /* cannot wrap */
    if (n > UINT32_MAX) {
        free(b);
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                       "dmlops_buffer_create: %llu bytes would need more than 2^32 allocations of %llu bytes on %s",
                       (unsigned long long)buf->size, (unsigned long long)vk->seg_size, vk->info.name);
    }
    b->nseg = (uint32_t)n;
    b->seg_size = n > 1 ? vk->seg_size : UINT64_MAX;
    b->seg = n > 1 ? calloc(n, sizeof *b->seg) : &b->one;
    dmlops_status st = b->seg ? DMLOPS_SUCCESS : dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_buffer_create: out of host memory");
    bool unmapped = false;
    for (uint32_t i = 0; i < b->nseg && st == DMLOPS_SUCCESS; i++) {
        uint64_t size = i + 1 < b->nseg ? vk->seg_size : buf->size - (uint64_t)i * vk->seg_size;
        st = dm_vk_alloc(vk, size, false, "dmlops_buffer_create", &b->seg[i]);
        if (st == DMLOPS_SUCCESS && b->seg[i].map) memset(b->seg[i].map, 0, (size_t)size);
        unmapped |= st == DMLOPS_SUCCESS && !b->seg[i].map;
    }
    if (st == DMLOPS_SUCCESS && unmapped) st = dm_vk_fill_zero(vk, b);
    if (st != DMLOPS_SUCCESS) {
        if (b->seg) dm_vk_free_segments(vk, b);
        free(b);
        return st;
    }
    b->transfer = true;
    buf->impl = b;
    /* Overlap checks compare (resource, offset): one VkBuffer, or the whole segmented set. */
    buf->resource = b->nseg > 1 ? (uintptr_t)b : (uintptr_t)b->one.buffer;
    return DMLOPS_SUCCESS;
}

void dm_vk_buffer_destroy(dmlops_buffer *buf)
{
    dm_vk_buffer *b = dm_vkbuf(buf);
    if (!b->wrapped) dm_vk_free_segments(dm_vk(buf->ctx), b);
    free(b);
}

static dmlops_status dm_vk_host_io(dmlops_buffer *buf, uint64_t offset, void *host, uint64_t size, bool to_device)
{
    dm_vk_ctx *vk = dm_vk(buf->ctx);
    dm_vk_buffer *b = dm_vkbuf(buf);
    const char *what = to_device ? "dmlops_buffer_write" : "dmlops_buffer_read";
    dmlops_status st = DMLOPS_SUCCESS;
    pthread_mutex_lock(vk->lock);
    if (vk->lost) st = dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost", what);
    /* Segment by segment: each is its own VkBuffer and mapping. */
    for (uint64_t done = 0; done < size && st == DMLOPS_SUCCESS;) {
        uint64_t inner;
        const dm_vk_memory *m = dm_vk_at(b, offset + done, &inner);
        uint64_t n = dm_min_u64(size - done, b->nseg > 1 ? b->seg_size - (offset + done) % b->seg_size : size - done);
        uint8_t *h = (uint8_t *)host + done;
        if (m->map) {
            if (to_device) memcpy((uint8_t *)m->map + inner, h, (size_t)n);
            else memcpy(h, (uint8_t *)m->map + inner, (size_t)n);
        } else if (!b->transfer) {
            st = dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                         "%s: the wrapped VkBuffer lacks TRANSFER_SRC and TRANSFER_DST usage, so the host cannot reach it",
                         what);
        } else {
            st = dm_vk_staged(vk, m->buffer, inner, h, n, to_device, what);
        }
        done += n;
    }
    pthread_mutex_unlock(vk->lock);
    return st;
}

dmlops_status dm_vk_buffer_write(dmlops_buffer *buf, uint64_t offset, const void *src, uint64_t size)
{
    return dm_vk_host_io(buf, offset, (void *)(uintptr_t)src, size, true);
}

dmlops_status dm_vk_buffer_read(dmlops_buffer *buf, uint64_t offset, void *dst, uint64_t size)
{
    return dm_vk_host_io(buf, offset, dst, size, false);
}
