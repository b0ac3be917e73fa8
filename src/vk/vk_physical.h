/* Layer 3 of the Vulkan backend: physical devices. What a device is and offers
 * (dmlops_device_info), the limits the library works within on it, and the choice of
 * a device. */
#ifndef DM_VK_PHYSICAL_H
#define DM_VK_PHYSICAL_H

#include "vk_instance.h" /* first: volk.h before dmlops.h */
#include "../internal.h"

/* How the library uses a device, derived once from its properties and the context's
 * options. The planner works from these alone. */
typedef struct dm_vk_limits {
    uint64_t max_range;      /* binding window limit, bytes */
    uint32_t max_groups[2];  /* workgroup grid limit, x and y */
    uint32_t grid_cap;       /* most workgroups per dispatch; kernels loop past it */
    uint32_t workgroup;      /* invocations per workgroup of the gather kernels */
    uint32_t max_workgroup;  /* the largest workgroup a one-dimensional shader may have: the smaller
                                of maxComputeWorkGroupInvocations and maxComputeWorkGroupSize[0]
                                (dm_vk_limits_for; 0 from dm_vk_limits_init alone) */
    uint32_t run;            /* consecutive units per invocation step (RUN) */
    uint32_t lanes;          /* invocations that share a run of a row, chunk by chunk (LANES) */
    uint64_t align;          /* binding offsets are aligned down to this */
    uint64_t max_alloc;      /* largest single buffer */
    uint64_t seg_size;       /* buffers above this many bytes are split into segments */
    uint64_t memory_limit;   /* no buffer larger: the one heap of a unified-memory GPU, else the
                                memory heaps and the machine's memory together */
    bool unified_heap;       /* memory_limit is a unified-memory GPU's one heap, heap 0: its
                                VK_EXT_memory_budget budget bounds buffers too (dm_vk_buffer_alloc) */
    bool uma;                /* device-local memory is host-visible: no staging */
    uint64_t copy_min_bytes; /* shortest run worth a copy region */
    uint32_t flags;          /* the context's DMLOPS_CONTEXT_FLAG_*: KERNELS_ONLY, PREFER_COPY */
    bool texel;              /* kernels may move 16-byte vectors through texel buffers (TEXEL) */
    uint64_t texel_range;    /* the texel path's window limit (its views hold maxTexelBufferElements
                                texels): each operator takes that path only where it needs no more
                                windows than storage buffers do (dm_vk_plan_gather) */
    bool cpu_tuning;         /* tuned for a CPU device (lavapipe), else for a GPU */
    uint32_t tile_lds;       /* the GPU tiles' shared memory in 16-byte vectors (LDS_VECS); 0: the
                                device takes no tiles (CPU tuning, the texel path, DMLOPS_VK_TILES=0) */
    uint32_t tile_v;         /* vectors a tile's lane stages before its stores (TILE_V) */
    bool wide_rows;          /* long rows on some fast paths take wider units (dm_vk_unit_shape) */
} dm_vk_limits;

/* vk_properties.c */
void dm_vk_fill_device_info(const dm_vk_itable *vki, VkPhysicalDevice phys, uint32_t index, dmlops_device_info *info);
/* Vulkan 1.1 and a compute queue: what the library needs of a device. */
bool dm_vk_usable(const dm_vk_itable *vki, VkPhysicalDevice phys, const dmlops_device_info *info);
/* The queue families of a device, in a caller's array: families are few (drivers expose
 * under ten), so there is no allocation to fail; any past DM_VK_MAX_FAMILIES are left out. */
#define DM_VK_MAX_FAMILIES 64
uint32_t dm_vk_queue_families(const dm_vk_itable *vki, VkPhysicalDevice phys, VkQueueFamilyProperties *q);

bool dm_vk_has_device_extension(const dm_vk_itable *vki, VkPhysicalDevice phys, const char *name);
void dm_vk_limits_init(const dmlops_device_info *info, const dm_vk_params *params, uint32_t flags,
                       dm_vk_limits *lim);
/* Every limit a context with `flags` plans with on the device: dm_vk_limits_init, then the
 * texel path (never for a tracing context) and the GPU tiles. One truth for contexts and
 * for the machine-code report (tools/isa), which plans the standard cases as they do. */
void dm_vk_limits_for(const dm_vk_itable *vki, VkPhysicalDevice phys, const dmlops_device_info *info,
                      const dm_vk_params *params, uint32_t flags, dm_vk_limits *lim);

/* vk_select.c */
/* Every device of an instance, described, with the default choices. */
typedef struct dm_vk_device_list {
    uint32_t count;
    VkPhysicalDevice *phys;
    dmlops_device_info *info;
    bool *usable;
    int def; /* default choice: the best usable device by type (discrete, integrated,
                virtual, CPU, other), the first index winning ties; -1 if none */
    int hw;  /* the same among hardware devices (not CPU-type); -1 if none */
} dm_vk_device_list;
dmlops_status dm_vk_list_devices(const dm_vk_instance *inst, dm_vk_device_list *list);
void dm_vk_device_list_free(dm_vk_device_list *list);

/* request NULL or "": the default device (with hardware_only, the hardware one); else an
 * index, a UUID or a name substring. Sets *phys and *info (info->is_default included). */
dmlops_status dm_vk_choose_device(const dm_vk_instance *inst, const char *request, bool hardware_only,
                                  VkPhysicalDevice *phys, dmlops_device_info *info);
/* Position of phys in vkEnumeratePhysicalDevices; UINT32_MAX if absent. */
uint32_t dm_vk_device_index(const dm_vk_instance *inst, VkPhysicalDevice phys);

#endif
