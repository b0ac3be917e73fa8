/* Device memory: allocations, and buffers made of one or several of them
 * (vk_memory.h). */
#include <stdlib.h>
#include <string.h>

#include "../checked.h"
#include "vk_memory.h"
#include "../fault.h"

/* The first type in bits with every flag of want that lacks every flag of avoid and has
 * those of nice; failing that, lacking avoid; then having nice; then any with want.
 * Drivers order their types as they like (a BAR type may come before the plain
 * device-local one), so preferences are stated, not left to the order. */
static uint32_t dm_find_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits, VkMemoryPropertyFlags want,
                             VkMemoryPropertyFlags nice, VkMemoryPropertyFlags avoid)
{
    uint32_t best = UINT32_MAX;
    int best_score = -1;
    for (uint32_t i = 0; i < mp->memoryTypeCount && i < 32; i++) {
        const VkMemoryPropertyFlags f = mp->memoryTypes[i].propertyFlags;
        if (!(bits & (1u << i)) || (f & want) != want) continue;
        const int score = ((f & avoid) == 0 ? 2 : 0) + ((f & nice) == nice ? 1 : 0);
        if (score > best_score) {
            best = i;
            best_score = score;
        }
    }
    return best;
}

uint32_t dm_vk_memory_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits, dm_vk_mem use, bool uma)
{
    const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                dl = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, cached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    /* AMD's device-coherent types are slow and need a feature we do not enable. */
    const VkMemoryPropertyFlags amd = VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD | VK_MEMORY_PROPERTY_DEVICE_UNCACHED_BIT_AMD;
    const bool params = use == DM_VK_MEM_PARAMS || use == DM_VK_MEM_PARAMS_MAPPED;
    uint32_t type = params && !uma ? dm_find_type(mp, bits, hv | dl, 0, amd) : UINT32_MAX; /* BAR memory */
    if (type != UINT32_MAX) return type;
    if (use == DM_VK_MEM_HOST || use == DM_VK_MEM_PARAMS_MAPPED)
        type = dm_find_type(mp, bits, hv, cached, amd | (uma ? 0 : dl));
    else if (uma)
        type = dm_find_type(mp, bits, hv, cached | dl, amd);
    if (type == UINT32_MAX) type = dm_find_type(mp, bits, dl, 0, amd | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    return type != UINT32_MAX ? type : dm_find_type(mp, bits, 0, 0, amd);
}

dmlops_status dm_vk_alloc(dm_vk_device *d, uint64_t size, dm_vk_mem use, const char *what, dm_vk_memory *m)
{
    memset(m, 0, sizeof *m);
    uint64_t padded;
    if (!dm_align_up_u64(size, 16, &padded) || padded > d->lim.max_alloc)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: %llu bytes exceed the largest buffer %s can allocate (%llu bytes)",
                       what, (unsigned long long)size, d->info.name, (unsigned long long)d->lim.max_alloc);
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = padded,
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       DM_VK_TEXEL_USAGE,
                              .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    DM_VK_CALL(d, what, CreateBuffer, (d->device, &bci, d->vk_alloc, &m->buffer));
    VkMemoryRequirements req;
    d->vkd.GetBufferMemoryRequirements(d->device, m->buffer, &req);
    uint32_t type = dm_vk_memory_type(&d->memprops, req.memoryTypeBits, use, d->lim.uma);
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
    VkResult r = d->vkd.AllocateMemory(d->device, &mai, d->vk_alloc, &m->memory);
    if (r != VK_SUCCESS && (use == DM_VK_MEM_PARAMS || use == DM_VK_MEM_PARAMS_MAPPED)) {
        /* BAR memory is a small heap on GPUs without resizable BAR: full, the records go
         * to device-only memory through staging instead, or to host memory. */
        const dm_vk_mem other = use == DM_VK_MEM_PARAMS ? DM_VK_MEM_DEVICE : DM_VK_MEM_HOST;
        const uint32_t plain = dm_vk_memory_type(&d->memprops, req.memoryTypeBits, other, d->lim.uma);
        if (plain != type) {
            mai.memoryTypeIndex = type = plain;
            r = d->vkd.AllocateMemory(d->device, &mai, d->vk_alloc, &m->memory);
        }
    }
    if (r != VK_SUCCESS) {
        d->vkd.DestroyBuffer(d->device, m->buffer, d->vk_alloc);
        m->buffer = VK_NULL_HANDLE;
        return dm_vk_fail(&d->lost, r, "vkAllocateMemory", what);
    }
    m->size = size;
    m->bytes = mai.allocationSize;
    if (d->device_bytes) dm_count_add(d->device_bytes, m->bytes);
    r = d->vkd.BindBufferMemory(d->device, m->buffer, m->memory, 0);
    VkMemoryPropertyFlags flags = d->memprops.memoryTypes[type].propertyFlags;
    const char *call = "vkBindBufferMemory";
    /* Only coherent memory is mapped: the library never flushes or invalidates, so other
     * memory goes through staging like device-only memory. So does an allocation larger
     * than the host's address space (SIZE_MAX, on a 32-bit host): the whole of it could
     * not be mapped, and every mapped offset must fit in a size_t. */
    const VkMemoryPropertyFlags mappable = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if (r == VK_SUCCESS && (flags & mappable) == mappable && req.size <= (uint64_t)SIZE_MAX) {
        call = "vkMapMemory";
        r = d->vkd.MapMemory(d->device, m->memory, 0, VK_WHOLE_SIZE, 0, &m->map);
    }
    if (r != VK_SUCCESS) {
        dm_vk_free(d, m);
        return dm_vk_fail(&d->lost, r, call, what);
    }
    return DMLOPS_SUCCESS;
}

void dm_vk_free(const dm_vk_device *d, dm_vk_memory *m)
{
    if (m->buffer) d->vkd.DestroyBuffer(d->device, m->buffer, d->vk_alloc);
    if (m->memory) d->vkd.FreeMemory(d->device, m->memory, d->vk_alloc); /* unmaps too */
    if (m->memory && d->device_bytes) dm_count_sub(d->device_bytes, m->bytes);
    memset(m, 0, sizeof *m);
}

dmlops_status dm_vk_buffer_alloc(dm_vk_device *d, uint64_t size, dm_vk_buffer *b, bool *unmapped)
{
    const uint64_t seg = d->lim.seg_size;
    uint64_t n = size / seg + (size % seg != 0); /* cannot wrap */
    memset(b, 0, sizeof *b);
    *unmapped = false;
    if (n > UINT32_MAX)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                       "dmlops_buffer_create: %llu bytes would need more than 2^32 allocations of %llu bytes on %s",
                       (unsigned long long)size, (unsigned long long)seg, d->info.name);
    /* Beyond what could ever be backed (dm_vk_limits_init: lazy drivers would otherwise
     * be stopped by the OOM killer half-way). */
    if (size > d->lim.memory_limit && d->lim.unified_heap)
        return dm_fail(DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY,
                       "dmlops_buffer_create: %llu bytes are more than the memory heaps of %s hold: one heap of "
                       "%llu bytes, all the memory a unified-memory GPU has",
                       (unsigned long long)size, d->info.name, (unsigned long long)d->lim.memory_limit);
    if (size > d->lim.memory_limit)
        return dm_fail(DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY,
                       "dmlops_buffer_create: %llu bytes are more than the memory heaps of %s and the machine's "
                       "memory hold together (%llu bytes)",
                       (unsigned long long)size, d->info.name, (unsigned long long)d->lim.memory_limit);
    /* What the driver says is left of that heap, other processes and our own buffers
     * counted: more would fail or push the board into swapping. */
    const uint64_t room = d->lim.unified_heap ? dm_vk_heap_room(d) : UINT64_MAX;
    if (size > room)
        return dm_fail(DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY,
                       "dmlops_buffer_create: %llu bytes are more than the %llu bytes left of the memory heap of %s "
                       "(its VK_EXT_memory_budget budget less what is in use)",
                       (unsigned long long)size, (unsigned long long)room, d->info.name);
    b->nseg = (uint32_t)n;
    b->seg_size = n > 1 ? seg : UINT64_MAX;
    b->seg = n > 1 ? dm_zalloc(d->host, n, sizeof *b->seg) : &b->one;
    if (!b->seg) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_buffer_create: out of host memory");
    dmlops_status st = DMLOPS_SUCCESS;
    for (uint32_t i = 0; i < b->nseg && st == DMLOPS_SUCCESS; i++) {
        uint64_t bytes = i + 1 < b->nseg ? seg : size - (uint64_t)i * seg;
        st = dm_vk_alloc(d, bytes, DM_VK_MEM_DEVICE, "dmlops_buffer_create", &b->seg[i]);
        if (st == DMLOPS_SUCCESS && b->seg[i].map) memset(b->seg[i].map, 0, (size_t)bytes);
        *unmapped |= st == DMLOPS_SUCCESS && !b->seg[i].map;
    }
    if (st != DMLOPS_SUCCESS) dm_vk_buffer_free(d, b);
    b->transfer = b->texel = st == DMLOPS_SUCCESS;
    return st;
}

void dm_vk_buffer_free(const dm_vk_device *d, dm_vk_buffer *b)
{
    if (!b->wrapped && b->seg) {
        for (uint32_t i = 0; i < b->nseg; i++) dm_vk_free(d, &b->seg[i]);
        if (b->seg != &b->one) dm_afree(d->host, b->seg);
    }
    b->seg = NULL;
    b->nseg = 0;
}

dmlops_status dm_vk_staging_alloc(dm_vk_device *d, uint64_t size, const char *what, dm_vk_buffer *b)
{
    const uint64_t seg = d->lim.seg_size;
    const uint64_t n = size / seg + (size % seg != 0);
    memset(b, 0, sizeof *b);
    if (n > UINT32_MAX)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: %llu bytes of staging would need more than 2^32 allocations",
                       what, (unsigned long long)size);
    b->nseg = (uint32_t)n;
    b->seg_size = n > 1 ? seg : UINT64_MAX;
    b->seg = n > 1 ? dm_zalloc(d->host, n, sizeof *b->seg) : &b->one;
    if (!b->seg) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", what);
    dmlops_status st = DMLOPS_SUCCESS;
    for (uint32_t i = 0; i < b->nseg && st == DMLOPS_SUCCESS; i++) {
        const uint64_t bytes = i + 1 < b->nseg ? seg : size - (uint64_t)i * seg;
        st = dm_vk_alloc(d, bytes, DM_VK_MEM_HOST, what, &b->seg[i]);
        if (st == DMLOPS_SUCCESS && !b->seg[i].map)
            st = dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: the host cannot map %llu bytes of staging memory", what,
                         (unsigned long long)bytes);
    }
    if (st != DMLOPS_SUCCESS) dm_vk_buffer_free(d, b);
    b->transfer = st == DMLOPS_SUCCESS;
    return st;
}

void dm_vk_staging_copy(const dm_vk_buffer *b, void *host, uint64_t size, bool to_staging)
{
    for (uint64_t at = 0; at < size;) {
        uint64_t inner;
        const dm_vk_memory *m = dm_vk_at(b, at, &inner);
        const uint64_t n = dm_min_u64(size - at, dm_vk_seg_room(b, at));
        uint8_t *mapped = (uint8_t *)m->map + inner, *h = (uint8_t *)host + at;
        if (to_staging) memcpy(mapped, h, (size_t)n);
        else memcpy(h, mapped, (size_t)n);
        at += n;
    }
}

void dm_vk_buffer_wrap(VkBuffer buffer, uint64_t offset, bool transfer, bool texel, dm_vk_buffer *b)
{
    memset(b, 0, sizeof *b);
    b->one.buffer = buffer;
    b->seg = &b->one;
    b->nseg = 1;
    b->seg_size = UINT64_MAX;
    b->offset = offset;
    b->wrapped = true;
    b->transfer = transfer;
    b->texel = texel;
}

dmlops_status dm_vk_texel_view(dm_vk_device *d, VkBuffer buffer, uint64_t offset, uint64_t range, VkFormat format,
                               const char *what, VkBufferView *view)
{
    const uint64_t texel = format == VK_FORMAT_R32_UINT ? 4 : 16;
    *view = VK_NULL_HANDLE;
    if (range < texel) return DMLOPS_SUCCESS;
    VkBufferViewCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
                                 .buffer = buffer,
                                 .format = format,
                                 .offset = offset,
                                 .range = range - range % texel};
    DM_VK_CALL(d, what, CreateBufferView, (d->device, &ci, d->vk_alloc, view));
    return DMLOPS_SUCCESS;
}

bool dm_vk_copy_next(const dm_vk_buffer *src, uint64_t *s_at, const dm_vk_buffer *dst, uint64_t *d_at, uint64_t *size,
                     dm_vk_copy *out)
{
    if (!*size) return false;
    uint64_t n = dm_min_u64(*size, dm_min_u64(dm_vk_seg_room(src, *s_at), dm_vk_seg_room(dst, *d_at)));
    uint64_t si, di;
    out->src = dm_vk_at(src, *s_at, &si)->buffer;
    out->dst = dm_vk_at(dst, *d_at, &di)->buffer;
    out->region = (VkBufferCopy){si, di, n};
    *s_at += n;
    *d_at += n;
    *size -= n;
    return true;
}
