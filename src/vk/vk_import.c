/* dmlops_buffer_import_vulkan (dmlops_vulkan.h): a buffer on memory another API or
 * process exported as a file descriptor, for zero-copy on boards whose camera, decoder or
 * display hands out dma-bufs. The VkBuffer and the imported VkDeviceMemory are ours (freed
 * with the buffer, which closes the fd the driver took); the bytes are the exporter's. It
 * sits beside the interop calls, a layer above the backend table. */
#include <string.h>

#include "vk_backend.h"
#include "dmlops_vulkan.h" /* after volk.h (vk_functions.h) */

#include "../chain.h"
#include "../fault.h"

/* What the device takes of the handle type, or UNSUPPORTED naming what is missing. */
static dmlops_status dm_vk_import_offered(const dm_vk_device *d, VkExternalMemoryHandleTypeFlagBits type, const char *fn)
{
    if (type != VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT && type != VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                       "%s: handle_type = 0x%x: expected VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT (0x%x) or "
                       "VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT (0x%x)",
                       fn, (unsigned)type, (unsigned)VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
                       (unsigned)VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT);
    if (!d->external_fd)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: %s has no VK_KHR_external_memory_fd %s", fn, d->info.name,
                       d->owned ? "(the driver does not offer it)"
                                : "enabled (dmlops_vulkan_context_create_info.device_features says so when it is)");
    if (type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT && !d->external_dma_buf)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: %s takes no dma-buf: VK_EXT_external_memory_dma_buf is %s", fn,
                       d->info.name, d->owned ? "not offered by its driver" : "not enabled");
    return DMLOPS_SUCCESS;
}

/* The memory type of the import: the exporter's (opaque fd), or for a dma-buf one the
 * driver says takes it and the buffer can use, chosen as for a buffer of ours. */
static dmlops_status dm_vk_import_type(dm_vk_device *d, const dmlops_vulkan_external_memory *m, uint32_t bits,
                                       const char *fn, uint32_t *type)
{
    if (m->handle_type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT) {
        if (m->memory_type_index >= d->memprops.memoryTypeCount || !(bits & (1u << m->memory_type_index)))
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                           "%s: memory_type_index = %u is not a type a storage buffer of %s can use (types 0x%x)", fn,
                           m->memory_type_index, d->info.name, bits);
        *type = m->memory_type_index;
        return DMLOPS_SUCCESS;
    }
    VkMemoryFdPropertiesKHR props = {.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR};
    const VkResult r = d->GetMemoryFdPropertiesKHR(d->device, m->handle_type, m->fd, &props);
    if (r != VK_SUCCESS) return dm_vk_fail(&d->lost, r, "vkGetMemoryFdPropertiesKHR", fn);
    if (!(bits & props.memoryTypeBits))
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                       "%s: the dma-buf's memory types (0x%x) are none a storage buffer of %s can use (0x%x)", fn,
                       props.memoryTypeBits, d->info.name, bits);
    *type = dm_vk_memory_type(&d->memprops, bits & props.memoryTypeBits, DM_VK_MEM_DEVICE, d->lim.uma);
    return *type < d->memprops.memoryTypeCount ? DMLOPS_SUCCESS
                                               : dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: no memory type takes the dma-buf", fn);
}

/* The VkBuffer on the imported memory, bound and (where coherent) mapped, into b. */
static dmlops_status dm_vk_import(dm_vk_device *d, const dmlops_vulkan_external_memory *m, uint64_t size,
                                  const char *fn, dm_vk_memory *b)
{
    const VkExternalMemoryBufferCreateInfo ext = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
                                                  .handleTypes = (VkExternalMemoryHandleTypeFlags)m->handle_type};
    const VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                    .pNext = &ext,
                                    .size = size,
                                    .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_DST_BIT | DM_VK_TEXEL_USAGE,
                                    .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    DM_VK_CALL(d, fn, CreateBuffer, (d->device, &bci, d->vk_alloc, &b->buffer));
    VkMemoryRequirements req;
    d->vkd.GetBufferMemoryRequirements(d->device, b->buffer, &req);
    if (req.size > m->allocation_size - m->offset || m->offset % req.alignment)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                       "%s: the buffer needs %llu bytes at a multiple of %llu: offset = %llu in allocation_size = %llu "
                       "does not give them",
                       fn, (unsigned long long)req.size, (unsigned long long)req.alignment,
                       (unsigned long long)m->offset, (unsigned long long)m->allocation_size);
    uint32_t type = UINT32_MAX;
    DM_TRY(dm_vk_import_type(d, m, req.memoryTypeBits, fn, &type));
    /* A duplicate goes to the driver, which takes it on success: whatever fails later, the
     * caller's fd stays the caller's until this whole call succeeds. */
    const int fd = dm_fd_dup(m->fd);
    if (fd < 0) return dm_fail(DMLOPS_ERROR_BACKEND, "%s: fd = %d could not be duplicated", fn, m->fd);
    VkImportMemoryFdInfoKHR import = {.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
                                      .handleType = m->handle_type,
                                      .fd = fd};
    const VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                      .pNext = &import,
                                      .allocationSize = m->allocation_size,
                                      .memoryTypeIndex = type};
    const VkResult r = d->vkd.AllocateMemory(d->device, &mai, d->vk_alloc, &b->memory);
    if (r != VK_SUCCESS) {
        dm_fd_close(fd); /* not taken */
        return dm_vk_fail(&d->lost, r, "vkAllocateMemory", fn);
    }
    b->size = size;
    b->bytes = m->allocation_size;
    if (d->device_bytes) dm_count_add(d->device_bytes, b->bytes);
    DM_VK_CALL(d, fn, BindBufferMemory, (d->device, b->buffer, b->memory, m->offset));
    const VkMemoryPropertyFlags coherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    void *map = NULL;
    if ((d->memprops.memoryTypes[type].propertyFlags & coherent) == coherent && size <= (uint64_t)SIZE_MAX &&
        d->vkd.MapMemory(d->device, b->memory, m->offset, size, 0, &map) == VK_SUCCESS)
        b->map = map; /* else host reads and writes go through staging */
    return DMLOPS_SUCCESS;
}

static dmlops_status dm_buffer_import_vulkan_impl(dmlops_context *ctx, const dmlops_vulkan_external_memory *memory,
                                                  uint64_t size, dmlops_buffer **out)
{
    static const char fn[] = "dmlops_buffer_import_vulkan";
    DM_CHECK_ARG(ctx, "dmlops_buffer_import_vulkan");
    DM_CHECK_ARG(memory, "dmlops_buffer_import_vulkan");
    DM_CHECK_ARG(out, "dmlops_buffer_import_vulkan");
    *out = NULL;
    if (ctx->backend != DMLOPS_BACKEND_VULKAN)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: the context runs on the CPU backend", fn);
    DM_TRY(dm_check_lost(ctx, fn));
    DM_TRY(dm_chain_head(fn, "dmlops_vulkan_external_memory", memory, DMLOPS_STRUCTURE_TYPE_VULKAN_EXTERNAL_MEMORY));
    DM_TRY(dm_chain_parse(fn, "dmlops_vulkan_external_memory", memory->next, NULL, 0, NULL));
    dm_vk_device *d = &dm_vk(ctx)->dev;
    DM_TRY(dm_vk_import_offered(d, memory->handle_type, fn));
    if (memory->fd < 0) return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: fd = %d is not a file descriptor", fn, memory->fd);
    if (!size) return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: size = 0: a buffer holds at least 1 byte", fn);
    if (memory->offset % 16 || memory->offset > memory->allocation_size || size > memory->allocation_size - memory->offset)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                       "%s: bytes [%llu, %llu + %llu) are not inside allocation_size = %llu at an offset that is a "
                       "multiple of 16",
                       fn, (unsigned long long)memory->offset, (unsigned long long)memory->offset,
                       (unsigned long long)size, (unsigned long long)memory->allocation_size);
    dmlops_buffer *buf = dm_zalloc(&ctx->alloc, 1, sizeof *buf);
    dm_vk_buffer *b = dm_zalloc(&ctx->alloc, 1, sizeof *b);
    dmlops_status st = buf && b ? DMLOPS_SUCCESS : dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
    if (st == DMLOPS_SUCCESS) {
        b->seg = &b->one;
        b->nseg = 1;
        b->seg_size = UINT64_MAX;
        b->transfer = b->texel = true;
        st = dm_vk_import(d, memory, size, fn, &b->one);
        if (st != DMLOPS_SUCCESS) dm_vk_buffer_free(d, b); /* the duplicate goes with the memory */
    }
    if (st != DMLOPS_SUCCESS) {
        dm_afree(&ctx->alloc, buf);
        dm_afree(&ctx->alloc, b);
        return st;
    }
    buf->ctx = ctx;
    buf->size = size;
    buf->impl = b;
    buf->resource = (uintptr_t)b->one.buffer;
    dm_buffer_adopt(buf);
    dm_fd_close(memory->fd); /* as a Vulkan import: the caller's fd is ours, and done with */
    *out = buf;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_buffer_import_vulkan(dmlops_context *ctx, const dmlops_vulkan_external_memory *memory,
                                          uint64_t size, dmlops_buffer **out)
{
    const dmlops_status st = dm_buffer_import_vulkan_impl(ctx, memory, size, out);
    return ctx ? dm_logged(ctx, DMLOPS_LOG_OBJECT_CONTEXT, ctx, st) : st;
}
