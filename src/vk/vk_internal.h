/* Vulkan backend internals. Function pointers live in per-context tables loaded from
 * the instance and device (no global vk* symbols), so several contexts, an application's
 * own volk, or -lvulkan never interfere. */
#ifndef DM_VK_INTERNAL_H
#define DM_VK_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <volk.h>

#include "../gather.h"
#include "../internal.h"
#include "vk_abi.h"

#define DM_VK_INSTANCE_FUNCS(X)                                                           \
    X(DestroyInstance) X(EnumeratePhysicalDevices) X(GetPhysicalDeviceProperties)         \
    X(GetPhysicalDeviceProperties2) X(GetPhysicalDeviceFeatures2)                         \
    X(GetPhysicalDeviceQueueFamilyProperties) X(GetPhysicalDeviceMemoryProperties)        \
    X(CreateDevice) X(GetDeviceProcAddr) X(EnumerateDeviceExtensionProperties)

#define DM_VK_DEVICE_FUNCS(X)                                                             \
    X(DestroyDevice) X(GetDeviceQueue) X(CreateBuffer) X(DestroyBuffer)                   \
    X(GetBufferMemoryRequirements) X(AllocateMemory) X(FreeMemory) X(BindBufferMemory)    \
    X(MapMemory) X(UnmapMemory) X(InvalidateMappedMemoryRanges) X(CreateShaderModule)     \
    X(DestroyShaderModule) X(CreatePipelineCache) X(DestroyPipelineCache)                 \
    X(GetPipelineCacheData) X(CreateComputePipelines) X(DestroyPipeline)                  \
    X(CreatePipelineLayout) X(DestroyPipelineLayout) X(CreateDescriptorSetLayout)         \
    X(DestroyDescriptorSetLayout) X(CreateDescriptorPool) X(DestroyDescriptorPool)        \
    X(AllocateDescriptorSets) X(UpdateDescriptorSets) X(CreateCommandPool)                \
    X(DestroyCommandPool) X(AllocateCommandBuffers) X(FreeCommandBuffers)                 \
    X(BeginCommandBuffer) X(EndCommandBuffer) X(ResetCommandBuffer) X(CmdBindPipeline)    \
    X(CmdBindDescriptorSets) X(CmdPushConstants) X(CmdDispatch) X(CmdCopyBuffer)          \
    X(CmdFillBuffer) X(CmdPipelineBarrier) X(CmdWriteTimestamp) X(CmdResetQueryPool)      \
    X(CreateQueryPool) X(DestroyQueryPool) X(GetQueryPoolResults) X(CreateFence)          \
    X(DestroyFence) X(ResetFences) X(WaitForFences) X(QueueSubmit) X(DeviceWaitIdle)

#define DM_VK_DECLARE(name) PFN_vk##name name;
typedef struct dm_vk_itable {
    DM_VK_INSTANCE_FUNCS(DM_VK_DECLARE)
    PFN_vkCreateDebugUtilsMessengerEXT CreateDebugUtilsMessengerEXT;
    PFN_vkDestroyDebugUtilsMessengerEXT DestroyDebugUtilsMessengerEXT;
} dm_vk_itable;
typedef struct dm_vk_dtable {
    DM_VK_DEVICE_FUNCS(DM_VK_DECLARE)
} dm_vk_dtable;
#undef DM_VK_DECLARE

typedef struct dm_vk_memory {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *map;           /* persistent mapping of coherent memory, or NULL */
    uint64_t size;
} dm_vk_memory;

typedef struct dm_vk_ctx {
    dm_vk_itable vki;
    dm_vk_dtable vkd;
    VkInstance instance;
    VkPhysicalDevice phys;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    bool owns_instance, owns_device;
    VkDebugUtilsMessengerEXT messenger;
    atomic_uint debug_count;
    bool quiet;
    dmlops_device_info info;
    VkPhysicalDeviceMemoryProperties memprops;
    uint64_t max_range;        /* binding window limit, bytes */
    uint32_t max_groups[2];    /* workgroup grid limit, x and y */
    uint32_t grid_cap;         /* most workgroups per dispatch; kernels loop past it */
    uint32_t run;              /* consecutive units per invocation step (RUN) */
    uint64_t align;            /* binding offsets are aligned down to this */
    uint64_t max_alloc;        /* largest single buffer */
    uint64_t seg_size;         /* buffers above this many bytes are split into segments */
    bool uma;
    uint32_t timestamp_bits;
    uint64_t copy_min_bytes;   /* shortest run worth a copy region */
    uint32_t flags;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout pipe_layout;
    VkPipelineCache cache;
    char *cache_path;
    VkShaderModule modules[DM_KERNEL_COUNT];
    VkPipeline pipelines[DM_KERNEL_COUNT][4][3]; /* by log2(esize) and row-dimension bucket */
    uint32_t pipeline_count;
    VkCommandPool pool;        /* for cmd, under the context lock */
    VkCommandBuffer cmd;
    VkFence fence;
    dm_vk_memory staging;
    dm_vk_memory dummy;        /* bound to unused slots */
    bool lost;
    pthread_mutex_t *lock;     /* the dmlops_context's: serialises queue and staging */
} dm_vk_ctx;

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
} dm_vk_buffer;

/* The segment holding byte `at` of the buffer (wrapped offset included in the result). */
static inline const dm_vk_memory *dm_vk_at(const dm_vk_buffer *b, uint64_t at, uint64_t *inner)
{
    uint64_t s = b->nseg > 1 ? at / b->seg_size : 0;
    *inner = b->offset + at - s * (b->nseg > 1 ? b->seg_size : 0);
    return &b->seg[s];
}

typedef struct dm_vk_span {
    uint64_t lo, hi;           /* bytes from the tensor's binding offset; hi == 0: unused */
} dm_vk_span;

typedef struct dm_vk_piece {
    dm_vk_span span[DM_SLOT_COUNT];
    uint64_t units;
    uint64_t runs;             /* invocations' worth of work: units in runs of RUN per row */
} dm_vk_piece;

typedef struct dm_vk_op {
    dm_gather g;
    dm_vk_piece *pieces;
    uint32_t npieces;
    uint32_t dispatches;       /* vkCmdDispatch calls per execution */
    dm_vk_memory params;       /* DM_P_WORDS per piece */
    VkPipeline pipeline;
    VkBufferCopy *regions;     /* copy path, offsets relative to the bindings */
    uint32_t nregions;
    bool use_copy;
    uint32_t reverse_rows;     /* REVERSE with contiguous inner runs: rows for copy regions
                                  built per execution from the lengths (0: not eligible) */
    dmlops_binding_table *table; /* for dmlops_operator_execute */
} dm_vk_op;

/* Where each slot's tensor starts in its buffer, and that buffer's segment size (0: one). */
typedef struct dm_vk_segments {
    uint64_t base[DM_SLOT_COUNT];
    uint64_t seg_size[DM_SLOT_COUNT];
} dm_vk_segments;

typedef struct dm_vk_copy {
    VkBuffer src, dst;
    VkBufferCopy region;
} dm_vk_copy;

struct dmlops_binding_table {
    dmlops_operator *op;
    dm_vk_ctx *vk;
    VkDescriptorPool pool;
    VkDescriptorSet *sets;
    dm_vk_push *push;          /* per piece */
    uint32_t capacity;         /* sets */
    VkBufferCopy *regions;     /* absolute, copy path */
    uint32_t region_capacity, nregions;
    VkBuffer copy_src, copy_dst;
    dm_vk_copy *copies;        /* copy path across buffer segments: one region per copy */
    uint32_t ncopies, copies_cap;
    dm_vk_piece *own_pieces;   /* pieces planned again at these bindings' segment boundaries */
    uint32_t own_npieces;
    dm_vk_memory own_params;
    dm_vk_segments own_segs;   /* the boundaries own_pieces were planned for */
    bool own_active;           /* the current binding uses own_pieces */
    dmlops_path path;
    bool bound;
    bool dynamic;              /* command lists: slab copies rebuilt from the lengths per execution */
};

/* vk_error.c */
const char *dm_vk_result_name(VkResult r);
dmlops_status dm_vk_fail(dm_vk_ctx *vk, VkResult r, const char *call, const char *what);
#define DM_VK_CALL(vk, what, call, args)                                                  \
    do {                                                                                  \
        VkResult dm_vk_r_ = (vk)->vkd.call args;                                          \
        if (dm_vk_r_ != VK_SUCCESS) return dm_vk_fail((vk), dm_vk_r_, "vk" #call, (what)); \
    } while (0)

/* vk_instance.c */
dmlops_status dm_vk_loader(PFN_vkGetInstanceProcAddr *gipa);
dmlops_status dm_vk_create_instance(bool debug, dm_vk_ctx *vk);
void dm_vk_fill_device_info(const dm_vk_itable *vki, VkPhysicalDevice phys, uint32_t index, dmlops_device_info *info);
/* request NULL: the best device by type (discrete, integrated, virtual, CPU); with
 * hardware_only, CPU-type (software) devices are not candidates. */
dmlops_status dm_vk_choose_device(dm_vk_ctx *vk, const char *request, bool hardware_only);
void dm_vk_load_instance_table(PFN_vkGetInstanceProcAddr gipa, VkInstance instance, dm_vk_itable *t);

/* vk_device.c */
extern const dm_backend_vtbl dm_vk_vtbl;
void dm_vk_context_destroy(dmlops_context *ctx);
void dm_vk_context_info(dmlops_context *ctx, dmlops_context_info *info);
dmlops_status dm_vk_setup_device(dmlops_context *ctx, dm_vk_ctx *vk, const dm_vk_params *params);
static inline dm_vk_ctx *dm_vk(const dmlops_context *ctx) { return ctx->impl; }
static inline dm_vk_buffer *dm_vkbuf(const dmlops_buffer *b) { return b->impl; }

/* vk_memory.c */
dmlops_status dm_vk_alloc(dm_vk_ctx *vk, uint64_t size, bool host_visible, const char *what, dm_vk_memory *m);
void dm_vk_free(dm_vk_ctx *vk, dm_vk_memory *m);
dmlops_status dm_vk_buffer_create(dmlops_buffer *buf);
void dm_vk_buffer_destroy(dmlops_buffer *buf);
dmlops_status dm_vk_buffer_write(dmlops_buffer *buf, uint64_t offset, const void *src, uint64_t size);
dmlops_status dm_vk_buffer_read(dmlops_buffer *buf, uint64_t offset, void *dst, uint64_t size);
dmlops_status dm_vk_upload(dm_vk_ctx *vk, dm_vk_memory *m, uint64_t offset, const void *src, uint64_t size);

/* vk_pipeline.c */
dmlops_status dm_vk_pipelines_init(dm_vk_ctx *vk);
void dm_vk_pipelines_destroy(dm_vk_ctx *vk);
dmlops_status dm_vk_pipeline(dm_vk_ctx *vk, dm_kernel kernel, uint32_t esize, uint32_t rank, VkPipeline *out);

/* vk_plan.c */
dmlops_status dm_vk_plan(dm_vk_ctx *vk, const dm_op *op, dm_vk_op *plan);
/* Pieces (and a host-visible parameter buffer) whose windows also stay inside segments. */
dmlops_status dm_vk_plan_segments(dm_vk_ctx *vk, const dm_gather *g, const dm_vk_segments *segs, dm_vk_piece **pieces,
                                  uint32_t *npieces, dm_vk_memory *params);
void dm_vk_plan_free(dm_vk_ctx *vk, dm_vk_op *plan);

bool dm_vk_reverse_regions(const dm_vk_op *plan, const uint8_t *lengths, uint64_t src_base, uint64_t dst_base,
                           VkBufferCopy *regions, uint32_t *count);

/* vk_record.c */
dmlops_status dm_vk_table_create(dmlops_operator *op, uint32_t capacity, dmlops_binding_table **out);
void dm_vk_table_destroy(dmlops_binding_table *t);
dmlops_status dm_vk_table_bind(dmlops_binding_table *t, dmlops_operator *op, const dmlops_binding *bind);
void dm_vk_record(dmlops_binding_table *t, VkCommandBuffer cmd);
void dm_vk_cmd_barrier(dm_vk_ctx *vk, VkCommandBuffer cmd, bool to_host);
/* vkCmdCopyBuffer of size bytes between buffer offsets, split at segment boundaries. */
void dm_vk_cmd_copy(dm_vk_ctx *vk, VkCommandBuffer cmd, const dm_vk_buffer *src, uint64_t s_at, const dm_vk_buffer *dst,
                    uint64_t d_at, uint64_t size);

/* vk_submit.c */
dmlops_status dm_vk_submit_wait(dm_vk_ctx *vk, VkCommandBuffer cmd, const char *what);
dmlops_status dm_vk_begin(dm_vk_ctx *vk, VkCommandBuffer cmd, bool once, const char *what);

#endif
