/* Layer 5 of the Vulkan backend: device memory. One allocation per VkBuffer, mapped for
 * good where the host can see it coherently; buffers above the device's largest
 * allocation are split into segments. Moving bytes through staging needs submissions,
 * so it lives a layer up (vk_submit.h). */
#ifndef DM_VK_MEMORY_H
#define DM_VK_MEMORY_H

#include "vk_device.h"

typedef struct dm_vk_memory {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *map;           /* persistent mapping of coherent memory, or NULL */
    uint64_t size;
    uint64_t bytes;      /* the allocation's size (VkMemoryAllocateInfo.allocationSize) */
} dm_vk_memory;

/* Every buffer the library allocates can be viewed as a uniform texel buffer, which the
 * kernels' texel path (dm_vk_limits.texel) reads sources through. */
#define DM_VK_TEXEL_USAGE VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT

/* What memory an allocation is for. */
typedef enum dm_vk_mem {
    DM_VK_MEM_DEVICE, /* tensors: device-local (host-visible too on unified memory) */
    DM_VK_MEM_HOST,   /* staging: host-visible and coherent, cached where offered */
    /* parameter records, written once by the host and read by every dispatch:
     * device-local and host-visible where a type is both (a discrete GPU's BAR), so
     * they are written through the mapping with no staging submission; else as DEVICE */
    DM_VK_MEM_PARAMS,
    /* parameter records the host writes through a mapping whatever the device (a
     * binding table's own, made without the context lock): BAR memory where offered,
     * else as HOST */
    DM_VK_MEM_PARAMS_MAPPED,
} dm_vk_mem;

/* The memory type an allocation for `use` takes among those in `bits`, on a device with
 * unified memory or not (UINT32_MAX: none). Pure, so tests can feed it the types of
 * devices no machine here has. */
uint32_t dm_vk_memory_type(const VkPhysicalDeviceMemoryProperties *mp, uint32_t bits, dm_vk_mem use, bool uma);

/* A VkBuffer of size bytes with storage, transfer and texel usage, bound to its own
 * memory of the type dm_vk_memory_type picks (PARAMS falls back to DEVICE, and
 * PARAMS_MAPPED to HOST, when the BAR heap is full), mapped where coherent. `what` names the caller's operation in messages. */
dmlops_status dm_vk_alloc(dm_vk_device *d, uint64_t size, dm_vk_mem use, const char *what, dm_vk_memory *m);
void dm_vk_free(const dm_vk_device *d, dm_vk_memory *m);

/* A buffer is one allocation, or, above the device's largest allocation, several
 * segments of seg_size bytes (the last shorter). Byte `at` of the buffer lives in
 * segment at / seg_size; windows and copies that would straddle a boundary are split. */
typedef struct dm_vk_buffer {
    dm_vk_memory *seg;         /* nseg segments; &one for a single one */
    uint32_t nseg;
    uint64_t seg_size;         /* UINT64_MAX for a single segment */
    dm_vk_memory one;
    uint64_t offset;           /* of the dmlops_buffer inside one.buffer (wrapped buffers) */
    bool wrapped;
    bool transfer;             /* usable by vkCmdCopyBuffer */
    bool texel;                /* usable through texel views (DM_VK_TEXEL_USAGE) */
} dm_vk_buffer;

/* The segment holding byte `at` of the buffer, and the offset inside it (a wrapped
 * buffer's offset included). */
static inline const dm_vk_memory *dm_vk_at(const dm_vk_buffer *b, uint64_t at, uint64_t *inner)
{
    uint64_t s = b->nseg > 1 ? at / b->seg_size : 0;
    *inner = b->offset + at - s * (b->nseg > 1 ? b->seg_size : 0);
    return &b->seg[s];
}

/* Bytes from `at` to the end of its segment. */
static inline uint64_t dm_vk_seg_room(const dm_vk_buffer *b, uint64_t at)
{
    return b->nseg > 1 ? b->seg_size - at % b->seg_size : UINT64_MAX;
}

/* Allocates size bytes in segments of d->lim.seg_size, zero-filling those the host
 * maps; *unmapped tells whether some segment still needs zeroing on the device. */
dmlops_status dm_vk_buffer_alloc(dm_vk_device *d, uint64_t size, dm_vk_buffer *b, bool *unmapped);
void dm_vk_buffer_free(const dm_vk_device *d, dm_vk_buffer *b);
/* Host-visible staging of size bytes (>= 1) for an asynchronous transfer, in segments as a
 * buffer is, every one mapped: UNSUPPORTED where the host cannot map one whole. `what`
 * names the call. */
dmlops_status dm_vk_staging_alloc(dm_vk_device *d, uint64_t size, const char *what, dm_vk_buffer *b);
/* Copies between host memory and bytes [0, size) of mapped staging, segment by segment. */
void dm_vk_staging_copy(const dm_vk_buffer *b, void *host, uint64_t size, bool to_staging);
/* bytes [offset, ...) of an application's VkBuffer; `transfer` when it has both
 * TRANSFER_SRC and TRANSFER_DST usage, `texel` when it has DM_VK_TEXEL_USAGE. */
void dm_vk_buffer_wrap(VkBuffer buffer, uint64_t offset, bool transfer, bool texel, dm_vk_buffer *b);

/* A view of bytes [offset, offset + range) of buffer in format R32G32B32A32_UINT or
 * R32_UINT, as many whole texels as fit; VK_NULL_HANDLE (and success) when none does,
 * for the caller to bind one of the context's dummy views. offset must be a multiple of
 * the texel alignment (dm_vk_limits.align on the texel path). */
dmlops_status dm_vk_texel_view(dm_vk_device *d, VkBuffer buffer, uint64_t offset, uint64_t range, VkFormat format,
                               const char *what, VkBufferView *view);

/* One vkCmdCopyBuffer's worth: a region between two VkBuffers. */
typedef struct dm_vk_copy {
    VkBuffer src, dst;
    VkBufferCopy region;
} dm_vk_copy;

/* Cuts the next copy off a transfer of *size bytes from src at *s_at to dst at *d_at,
 * the longest that stays inside one segment of each buffer, and advances the three;
 * false once nothing is left. Every copy between segmented buffers goes through it. */
bool dm_vk_copy_next(const dm_vk_buffer *src, uint64_t *s_at, const dm_vk_buffer *dst, uint64_t *d_at, uint64_t *size,
                     dm_vk_copy *out);

#endif
