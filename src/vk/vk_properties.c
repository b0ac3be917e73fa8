/* What a physical device is and offers, and the limits the library works within on it
 * (vk_physical.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../checked.h"
#include "vk_abi.h"
#include "vk_physical.h"
#include "../fault.h"
#include "../platform/platform.h"

typedef struct dm_phys_ref {
    const dm_vk_itable *vki;
    VkPhysicalDevice phys;
} dm_phys_ref;

static VkResult dm_list_device_extensions(const void *user, uint32_t *n, void *records)
{
    const dm_phys_ref *d = user;
    return d->vki->EnumerateDeviceExtensionProperties(d->phys, NULL, n, records);
}

bool dm_vk_has_device_extension(const dm_vk_itable *vki, VkPhysicalDevice phys, const char *name)
{
    const dm_phys_ref d = {vki, phys};
    return dm_vk_listed(dm_list_device_extensions, &d, sizeof(VkExtensionProperties), name);
}

void dm_vk_fill_device_info(const dm_vk_itable *vki, VkPhysicalDevice phys, uint32_t index, dmlops_device_info *info)
{
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties sub = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
                                              .pNext = &id};
    VkPhysicalDeviceDriverProperties drv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceMaintenance4Properties m4 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES};
    VkPhysicalDeviceMaintenance3Properties m3 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES,
                                                 .pNext = &sub};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &m3};
    bool has_driver = dm_vk_has_device_extension(vki, phys, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
    bool has_m4 = dm_vk_has_device_extension(vki, phys, VK_KHR_MAINTENANCE_4_EXTENSION_NAME);
    VkPhysicalDeviceProperties base;
    vki->GetPhysicalDeviceProperties(phys, &base);
    if (has_driver && base.apiVersion >= VK_API_VERSION_1_1) { drv.pNext = p2.pNext; p2.pNext = &drv; }
    if (has_m4 && base.apiVersion >= VK_API_VERSION_1_1) { m4.pNext = p2.pNext; p2.pNext = &m4; }
    vki->GetPhysicalDeviceProperties2(phys, &p2);
    const VkPhysicalDeviceProperties *p = &p2.properties;
    const VkPhysicalDeviceLimits *l = &p->limits;

    memset(info, 0, sizeof *info);
    info->index = index;
    snprintf(info->name, sizeof info->name, "%s", p->deviceName);
    info->type = (dmlops_device_type)p->deviceType;
    info->vendor_id = p->vendorID;
    info->device_id = p->deviceID;
    info->api_version = p->apiVersion;
    info->driver_version = p->driverVersion;
    if (has_driver) {
        snprintf(info->driver_name, sizeof info->driver_name, "%s", drv.driverName);
        snprintf(info->driver_info, sizeof info->driver_info, "%s", drv.driverInfo);
    }
    memcpy(info->uuid, id.deviceUUID, 16);
    const uint8_t *u = id.deviceUUID;
    snprintf(info->uuid_string, sizeof info->uuid_string,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4],
             u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    info->max_storage_buffer_range = l->maxStorageBufferRange;
    info->max_memory_allocation_size = m3.maxMemoryAllocationSize;
    info->max_buffer_size = has_m4 ? m4.maxBufferSize : 0;
    for (int i = 0; i < 3; i++) info->max_compute_work_group_count[i] = l->maxComputeWorkGroupCount[i];
    info->max_compute_work_group_invocations = l->maxComputeWorkGroupInvocations;
    info->max_push_constants_size = l->maxPushConstantsSize;
    info->min_storage_buffer_offset_alignment = l->minStorageBufferOffsetAlignment;
    info->subgroup_size = sub.subgroupSize;
    /* Timestamps are optional: timestampValidBits may be 0 on every queue family. The
     * period means something only where some compute family has them. */
    VkQueueFamilyProperties q[DM_VK_MAX_FAMILIES];
    bool timed = false;
    for (uint32_t i = 0, n = dm_vk_queue_families(vki, phys, q); i < n; i++)
        timed |= (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && q[i].timestampValidBits > 0;
    info->timestamp_period = timed ? l->timestampPeriod : 0;

    VkPhysicalDeviceMemoryProperties mem;
    vki->GetPhysicalDeviceMemoryProperties(phys, &mem);
    info->memory_heap_count = mem.memoryHeapCount < DMLOPS_MAX_MEMORY_HEAPS ? mem.memoryHeapCount : DMLOPS_MAX_MEMORY_HEAPS;
    for (uint32_t i = 0; i < info->memory_heap_count; i++) {
        info->memory_heap_size[i] = mem.memoryHeaps[i].size;
        info->memory_heap_device_local[i] = !!(mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT);
    }
    /* Unified memory: the device-local heap is reachable from the host without staging
     * (integrated GPUs, CPU devices). A small BAR window on a discrete card is not. */
    bool uma = p->deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU || p->deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    for (uint32_t i = 0; i < mem.memoryTypeCount && uma; i++) {
        VkMemoryPropertyFlags f = mem.memoryTypes[i].propertyFlags;
        if ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) && (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) break;
        if (i + 1 == mem.memoryTypeCount) uma = false;
    }
    info->unified_memory = uma;

    VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .pNext = &f11};
    VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    if (p->apiVersion >= VK_API_VERSION_1_2) f2.pNext = &f12;
    if (p->apiVersion >= VK_API_VERSION_1_3) { f13.pNext = f2.pNext; f2.pNext = &f13; }
    vki->GetPhysicalDeviceFeatures2(phys, &f2);
    uint32_t feat = 0;
    if (f2.features.shaderInt64) feat |= DMLOPS_DEVICE_FEATURE_SHADER_INT64;
    if (f2.features.shaderFloat64) feat |= DMLOPS_DEVICE_FEATURE_SHADER_FLOAT64;
    if (f12.shaderFloat16) feat |= DMLOPS_DEVICE_FEATURE_SHADER_FLOAT16;
    if (f12.storageBuffer8BitAccess) feat |= DMLOPS_DEVICE_FEATURE_STORAGE_8BIT;
    if (f11.storageBuffer16BitAccess) feat |= DMLOPS_DEVICE_FEATURE_STORAGE_16BIT;
    if (f12.timelineSemaphore) feat |= DMLOPS_DEVICE_FEATURE_TIMELINE_SEMAPHORE;
    if (f12.bufferDeviceAddress) feat |= DMLOPS_DEVICE_FEATURE_BUFFER_DEVICE_ADDRESS;
    if (f13.subgroupSizeControl) feat |= DMLOPS_DEVICE_FEATURE_SUBGROUP_SIZE_CONTROL;
    if (f13.synchronization2) feat |= DMLOPS_DEVICE_FEATURE_SYNCHRONIZATION2;
    if (dm_vk_has_device_extension(vki, phys, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) feat |= DMLOPS_DEVICE_FEATURE_PUSH_DESCRIPTOR;
    if (l->timestampComputeAndGraphics) feat |= DMLOPS_DEVICE_FEATURE_TIMESTAMPS;
    info->features = feat;
}

bool dm_vk_usable(const dm_vk_itable *vki, VkPhysicalDevice phys, const dmlops_device_info *info)
{
    bool compute = false;
    if (info->api_version < VK_API_VERSION_1_1) return false;
    VkQueueFamilyProperties q[DM_VK_MAX_FAMILIES];
    const uint32_t n = dm_vk_queue_families(vki, phys, q);
    for (uint32_t i = 0; i < n && !compute; i++) compute = (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0;
    return compute;
}

uint32_t dm_vk_queue_families(const dm_vk_itable *vki, VkPhysicalDevice phys, VkQueueFamilyProperties *q)
{
    uint32_t n = 0;
    vki->GetPhysicalDeviceQueueFamilyProperties(phys, &n, NULL);
    if (n > DM_VK_MAX_FAMILIES) n = DM_VK_MAX_FAMILIES;
    vki->GetPhysicalDeviceQueueFamilyProperties(phys, &n, q);
    return n;
}

/* The most bytes a buffer may have (dm_vk_limits.memory_limit). */
static uint64_t dm_vk_memory_limit(const dmlops_device_info *info, bool *unified_heap)
{
    /* A GPU whose one heap is device-local and host-visible (integrated GPUs: V3D on a
     * Raspberry Pi, Mali, Adreno) has no memory beside that heap, which its driver sizes
     * to what the board can spare (half the RAM of a 2 GiB Raspberry Pi 4: 1 GiB): a
     * larger buffer fails in vkAllocateMemory at best, and is refused up front. */
    *unified_heap = info->type != DMLOPS_DEVICE_TYPE_CPU && info->unified_memory && info->memory_heap_count == 1 &&
                    info->memory_heap_device_local[0];
    if (*unified_heap) return info->memory_heap_size[0];
    /* Elsewhere more than the heaps and the machine's memory together can never succeed,
     * and drivers that allocate lazily (lavapipe: host memory, zeroed as it is made, and
     * not held to its heap's 2 GiB) would let the OOM killer end the process half-way
     * instead of failing the call (dm_vk_buffer_alloc). */
    uint64_t limit = dm_physical_memory();
    for (uint32_t h = 0; h < info->memory_heap_count; h++)
        if (!dm_add_u64(limit, info->memory_heap_size[h], &limit)) limit = UINT64_MAX;
    return limit;
}

void dm_vk_limits_init(const dmlops_device_info *info, const dm_vk_params *params, uint32_t flags,
                       dm_vk_limits *lim)
{
    memset(lim, 0, sizeof *lim);
    lim->flags = flags;
    lim->uma = info->unified_memory;
    lim->align = dm_max_u64(info->min_storage_buffer_offset_alignment, 16);
    /* No kernel binding reaches 2 GiB, whatever the device offers: on the NVIDIA H200
     * (maxStorageBufferRange 4 GiB - 1) a SLICE1 kernel writing a 2.34 GiB output in one
     * binding left it unwritten, where the same operator as copy regions, and kernels
     * with outputs of 1.17 GiB, were right (docs/performance.md). Past 2^31 bytes a signed
     * 32-bit offset anywhere between GLSL and the driver wraps (wgpu caps storage bindings
     * at 2^31 - 1 for that reason, gfx-rs/wgpu#8105; GLSL's .length() is an int, Khronos
     * Vulkan-Docs#1016); windows below it are the split that lavapipe's 128 MiB limit
     * tests on every run. */
    lim->max_range = dm_min_u64(info->max_storage_buffer_range, 1ull << 31);
    if (params->max_binding_range && params->max_binding_range < lim->max_range)
        lim->max_range = dm_max_u64(params->max_binding_range, lim->align + 64); /* room for a window */
    for (int i = 0; i < 2; i++) {
        lim->max_groups[i] = info->max_compute_work_group_count[i];
        if (params->max_workgroup_count && params->max_workgroup_count < lim->max_groups[i])
            lim->max_groups[i] = params->max_workgroup_count;
    }
    /* CPU devices (lavapipe) run a workgroup as batches of 8 invocations in lock-step,
     * every batch through the whole shader even when its lanes have nothing to do: small
     * groups (32 invocations) cost a 4 KiB operator a third of the CPU time 128 do, and
     * large operators run as fast (docs/performance.md); 128 of them, each looping over
     * runs of 32 chunks, keep the 4096 invocations the earlier 32 x 128 grid had. GPUs
     * want enough groups to fill every compute unit several times over: on the NVIDIA
     * H200 (132 SMs) a cap of 8192 groups of 128 ran the 256 MiB cases as fast as 65536
     * and up to 1.6x faster than 1024 or 1.8x faster than 2^20; groups of 64, 256 or 512
     * were within that run's noise of 128 (docs/performance.md). */
    const bool cpu = params->cpu_tuning < 0 ? info->type == DMLOPS_DEVICE_TYPE_CPU : params->cpu_tuning > 0;
    lim->cpu_tuning = cpu;
    lim->grid_cap = params->grid_cap ? params->grid_cap : cpu ? 128 : 8192;
    lim->run = params->run ? params->run : cpu ? 32 : 1;
    lim->workgroup = params->workgroup && params->workgroup <= info->max_compute_work_group_invocations
                         ? params->workgroup
                         : cpu ? 32 : DM_VK_WORKGROUP;
    /* A CPU device runs a workgroup as batches of subgroupSize consecutive invocations in
     * lock-step (lavapipe: 8 lanes of AVX2), each lane loading and storing on its own.
     * When a batch's lanes take neighbouring chunks of one run (lane l chunks l, l + 8,
     * ...) every vector load and store of the batch touches 128 contiguous bytes, instead
     * of eight places a run apart: a copy ran 1.3-1.5x faster that way on lavapipe
     * (docs/performance.md). GPUs, with runs of one chunk, get neighbouring chunks per
     * lane already. Any power of two up to the workgroup is correct. */
    uint32_t lanes = 1;
    while (cpu && lanes * 2 <= info->subgroup_size && lanes * 2 <= lim->workgroup) lanes *= 2;
    lim->lanes = params->lanes && params->lanes <= lim->workgroup ? params->lanes : lanes;
    /* GPUs also shape units per kernel (dm_vk_unit_shape), unless the environment sets
     * the run or the lanes for every kernel. */
    lim->wide_rows = !cpu && !params->run && !params->lanes;
    lim->max_alloc = info->max_memory_allocation_size ? info->max_memory_allocation_size : UINT64_MAX;
    if (info->max_buffer_size) lim->max_alloc = dm_min_u64(lim->max_alloc, info->max_buffer_size);
    /* Segments are a multiple of 256 bytes, so every binding alignment divides their
     * boundaries and no element ever straddles one. */
    lim->seg_size = params->max_allocation_size ? dm_min_u64(params->max_allocation_size, lim->max_alloc) : lim->max_alloc;
    lim->seg_size = dm_max_u64(lim->seg_size & ~255ull, 256);
    lim->memory_limit = dm_vk_memory_limit(info, &lim->unified_heap);
    /* Below this run length a kernel beats vkCmdCopyBuffer regions (docs/performance.md):
     * on lavapipe regions of 8 bytes already win. On the NVIDIA H200 no run length does:
     * each region cost about 1.9 us (8192 rows of 16 KiB: 15.5 ms as regions, 81 us as a
     * kernel), and even one region moved 0.2-0.85x of what the plain compute copy did, so
     * GPUs take kernels unless DMLOPS_CONTEXT_FLAG_PREFER_COPY or DMLOPS_VK_COPY_MIN ask. */
    lim->copy_min_bytes = params->copy_min_bytes >= 0 ? (uint64_t)params->copy_min_bytes : cpu ? 64 : UINT64_MAX;
}

/* Decides the GPU tiles (want: -1 by device class, 0 off, 1 on wherever the storage-buffer
 * path runs and the device has shared memory of its own) and sizes their shared memory
 * from maxComputeSharedMemorySize; after dm_vk_texel_init. */
static void dm_vk_tiles_init(const VkPhysicalDeviceLimits *l, int want, dm_vk_limits *lim)
{
    lim->tile_lds = lim->tile_v = 0;
    /* GPUs: the tiles stage each source vector once and keep several loads in flight per
     * lane (glsl/gather_tiles.glsl); a CPU device runs lanes in lock-step, where shared
     * memory and barriers only add work, so it keeps the paths tuned for it. The texel
     * path has no tiles. */
    if (lim->texel || (want < 0 ? lim->cpu_tuning : want == 0)) return;
    /* A device that offers only the spec's minimum of 16 KiB has none of its own, or too
     * little to stage in: V3D (Raspberry Pi 4) keeps a workgroup's shared memory in main
     * memory, behind the same TMU as every load, so staging would move each byte twice,
     * and the tiles' code left its 32 registers a thread spilling (drivers.md). */
    if (l->maxComputeSharedMemorySize < 32768) return;
    /* Two vectors a lane: 32 bytes of each lane's loads in flight, so that a full SM of
     * lanes keeps what a GPU needs to cover its memory latency in flight (CUB sizes its
     * transform kernels for 48 KiB a SM on sm_90; 2048 lanes of an H100 SM x 32 bytes is
     * 64 KiB), staged in 4.2 KiB for 128 lanes, so that the shared memory leaves room for a
     * full SM of workgroups. Four, which the tiles took first, kept Intel's compiler from
     * its SIMD16 build (registers for every staged vector of every lane) and the
     * workgroups to half as many a compute unit. A device whose limit is below that gets
     * fewer. */
    const uint64_t shared = l->maxComputeSharedMemorySize;
    uint32_t v = 2;
    while (v > 1 && ((uint64_t)lim->workgroup * v + 8) * 16 > shared / 2) v /= 2;
    lim->tile_v = v;
    lim->tile_lds = lim->workgroup * v + 8;
    if ((uint64_t)lim->tile_lds * 16 > shared) lim->tile_lds = lim->tile_v = 0; /* a workgroup too wide for it */
}

/* Decides lim->texel (want: -1 by device class, 0 off, 1 on where the device can), the
 * texel path's window limit, and widens the alignment to what texel views need. */
static void dm_vk_texel_init(const dm_vk_itable *vki, VkPhysicalDevice phys, const VkPhysicalDeviceLimits *l, int want,
                             dm_vk_limits *lim)
{
    VkFormatProperties f;
    vki->GetPhysicalDeviceFormatProperties(phys, VK_FORMAT_R32G32B32A32_UINT, &f);
    /* Mandatory for this format; checked all the same. */
    const VkFormatFeatureFlags need = VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT;
    const uint64_t texels = l->maxTexelBufferElements;
    const bool able = (f.bufferFeatures & need) == need && texels >= 1024 && l->minTexelBufferOffsetAlignment <= 256;
    /* By device class: lavapipe runs a copy 3.5x faster with texel loads than with
     * storage-buffer loads (it loads storage buffers lane by lane; docs/design.md). GPUs
     * keep storage buffers: on the NVIDIA H200 texel loads ran ONE_HOT of depth 1024 2.6x
     * slower and the other kernels no faster (docs/performance.md). */
    lim->texel = able && (want < 0 ? lim->cpu_tuning : want > 0);
    if (!lim->texel) return;
    lim->align = dm_max_u64(lim->align, l->minTexelBufferOffsetAlignment);
    /* A window's aligned start plus its bytes, as texels, must fit one view; AUX windows
     * are seen as 4-byte texels. At the spec's minimum (65536 texels) that is 256 KiB,
     * 512 times less than a storage window of the minimum 128 MiB: a 256 MiB REVERSE
     * needed more than the planner's 65536 windows, where storage buffers need a handful.
     * So the storage windows stay as they are and each operator is planned for the path
     * that needs fewer windows (dm_vk_plan_gather). */
    lim->texel_range = dm_min_u64(lim->max_range, texels * 4);
}

void dm_vk_limits_for(const dm_vk_itable *vki, VkPhysicalDevice phys, const dmlops_device_info *info,
                      const dm_vk_params *params, uint32_t flags, dm_vk_limits *lim)
{
    /* A workgroup's local_size_x is bounded by maxComputeWorkGroupSize[0] as well as by
     * maxComputeWorkGroupInvocations, and the two may differ (the spec's minimums are 128
     * and 128, but a device may offer 1024 invocations as 256 x 4): the limits take the
     * smaller as the device's largest workgroup. */
    VkPhysicalDeviceProperties p; /* read once, for this and the texel and tile decisions */
    vki->GetPhysicalDeviceProperties(phys, &p);
    dmlops_device_info one_dim = *info;
    if (p.limits.maxComputeWorkGroupSize[0] < one_dim.max_compute_work_group_invocations)
        one_dim.max_compute_work_group_invocations = p.limits.maxComputeWorkGroupSize[0];
    dm_vk_limits_init(&one_dim, params, flags, lim);
    lim->max_workgroup = one_dim.max_compute_work_group_invocations;
    /* The trace builds exist for the storage-buffer path only (kernels.h). */
    const bool trace = (flags & DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES) != 0;
    dm_vk_texel_init(vki, phys, &p.limits, trace ? 0 : params->texel, lim);
    dm_vk_tiles_init(&p.limits, params->tiles, lim);
}
