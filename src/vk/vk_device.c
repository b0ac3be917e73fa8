/* Vulkan contexts: device and queue setup, limits, teardown, and the backend table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../checked.h"
#include "vk_internal.h"

static uint32_t dm_pick_queue_family(const dm_vk_ctx *vk, uint32_t *ts_bits)
{
    uint32_t n = 0, best = UINT32_MAX, best_score = 0;
    vk->vki.GetPhysicalDeviceQueueFamilyProperties(vk->phys, &n, NULL);
    VkQueueFamilyProperties *q = calloc(n ? n : 1, sizeof *q);
    if (!q) return UINT32_MAX;
    vk->vki.GetPhysicalDeviceQueueFamilyProperties(vk->phys, &n, q);
    for (uint32_t i = 0; i < n; i++) {
        if (!(q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || !q[i].queueCount) continue;
        /* Timestamps matter for benchmarks; a compute-only family is the least shared. */
        uint32_t score = 1 + (q[i].timestampValidBits ? 2 : 0) + (q[i].queueFlags & VK_QUEUE_GRAPHICS_BIT ? 0 : 1);
        if (score > best_score) {
            best = i;
            best_score = score;
            *ts_bits = q[i].timestampValidBits;
        }
    }
    free(q);
    return best;
}

static dmlops_status dm_vk_create_device(dm_vk_ctx *vk)
{
    uint32_t ts_bits = 0;
    vk->queue_family = dm_pick_queue_family(vk, &ts_bits);
    if (vk->queue_family == UINT32_MAX)
        return dm_fail(DMLOPS_ERROR_NO_DEVICE, "%s has no compute queue", vk->info.name);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = vk->queue_family,
                                   .queueCount = 1,
                                   .pQueuePriorities = &prio};
    /* The kernels need no optional feature, so none is enabled. */
    VkDeviceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci};
    VkResult r = vk->vki.CreateDevice(vk->phys, &ci, NULL, &vk->device);
    if (r != VK_SUCCESS) return dm_vk_fail(NULL, r, "vkCreateDevice", vk->info.name);
    vk->owns_device = true;
    return DMLOPS_SUCCESS;
}

static void dm_vk_load_device_table(dm_vk_ctx *vk)
{
#define DM_LOAD(name) vk->vkd.name = (PFN_vk##name)vk->vki.GetDeviceProcAddr(vk->device, "vk" #name);
    DM_VK_DEVICE_FUNCS(DM_LOAD)
#undef DM_LOAD
}

static void dm_vk_teardown(dm_vk_ctx *vk)
{
    if (vk->device) {
        /* Every submission of ours was waited for; an application's device is only ours
         * to wait on when we created it (vkDeviceWaitIdle would need all its queues). */
        if (vk->owns_device && vk->vkd.DeviceWaitIdle) vk->vkd.DeviceWaitIdle(vk->device);
        dm_vk_pipelines_destroy(vk);
        dm_vk_free(vk, &vk->staging);
        dm_vk_free(vk, &vk->dummy);
        if (vk->fence) vk->vkd.DestroyFence(vk->device, vk->fence, NULL);
        if (vk->pool) vk->vkd.DestroyCommandPool(vk->device, vk->pool, NULL);
        if (vk->owns_device) vk->vkd.DestroyDevice(vk->device, NULL);
    }
    if (vk->messenger) vk->vki.DestroyDebugUtilsMessengerEXT(vk->instance, vk->messenger, NULL);
    if (vk->owns_instance && vk->instance) vk->vki.DestroyInstance(vk->instance, NULL);
    free(vk->cache_path);
    free(vk);
}

void dm_vk_context_destroy(dmlops_context *ctx) { dm_vk_teardown(dm_vk(ctx)); }

void dm_vk_context_info(dmlops_context *ctx, dmlops_context_info *info)
{
    dm_vk_ctx *vk = dm_vk(ctx);
    info->device = vk->info;
    info->debug_message_count = atomic_load(&vk->debug_count);
    info->pipeline_count = vk->pipeline_count;
}

/* Everything after the instance, device and queue exist, shared by contexts that own
 * them and contexts built on the application's. */
dmlops_status dm_vk_setup_device(dmlops_context *ctx, dm_vk_ctx *vk, const dm_vk_params *params)
{
    dm_vk_load_device_table(vk);
    if (!vk->queue) vk->vkd.GetDeviceQueue(vk->device, vk->queue_family, 0, &vk->queue);
    vk->vki.GetPhysicalDeviceMemoryProperties(vk->phys, &vk->memprops);
    uint32_t n = 0;
    vk->vki.GetPhysicalDeviceQueueFamilyProperties(vk->phys, &n, NULL);
    VkQueueFamilyProperties *q = calloc(n ? n : 1, sizeof *q);
    if (!q) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    vk->vki.GetPhysicalDeviceQueueFamilyProperties(vk->phys, &n, q);
    if (vk->queue_family >= n || !(q[vk->queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
        free(q);
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "queue family %u of %s has no VK_QUEUE_COMPUTE_BIT",
                       vk->queue_family, vk->info.name);
    }
    vk->timestamp_bits = q[vk->queue_family].timestampValidBits;
    free(q);

    vk->flags = ctx->flags;
    vk->uma = vk->info.unified_memory;
    vk->align = dm_max_u64(vk->info.min_storage_buffer_offset_alignment, 16);
    vk->max_range = vk->info.max_storage_buffer_range;
    if (params->max_binding_range && params->max_binding_range < vk->max_range)
        vk->max_range = dm_max_u64(params->max_binding_range, vk->align + 64); /* room for a window */
    for (int i = 0; i < 2; i++) {
        vk->max_groups[i] = vk->info.max_compute_work_group_count[i];
        if (params->max_workgroup_count && params->max_workgroup_count < vk->max_groups[i])
            vk->max_groups[i] = params->max_workgroup_count;
    }
    /* CPU devices (lavapipe) pay microseconds per workgroup: a few long-lived groups per
     * core. GPUs want enough groups to fill every compute unit several times over. */
    vk->grid_cap = vk->info.type == DMLOPS_DEVICE_TYPE_CPU ? 32 : 8192;
    vk->run = vk->info.type == DMLOPS_DEVICE_TYPE_CPU ? 32 : 1;
    vk->max_alloc = vk->info.max_memory_allocation_size ? vk->info.max_memory_allocation_size : UINT64_MAX;
    if (vk->info.max_buffer_size) vk->max_alloc = dm_min_u64(vk->max_alloc, vk->info.max_buffer_size);
    /* Segments are a multiple of 256 bytes, so every binding alignment divides their
     * boundaries and no element ever straddles one. */
    vk->seg_size = params->max_allocation_size ? dm_min_u64(params->max_allocation_size, vk->max_alloc) : vk->max_alloc;
    vk->seg_size = dm_max_u64(vk->seg_size & ~255ull, 256);
    /* Below this run length a kernel beats vkCmdCopyBuffer regions (docs/performance.md):
     * on lavapipe regions of 8 bytes already win; GPUs run kernels near copy speed. */
    vk->copy_min_bytes = vk->info.type == DMLOPS_DEVICE_TYPE_CPU ? 64 : 4096;
    if (params->pipeline_cache_path && *params->pipeline_cache_path) {
        vk->cache_path = strdup(params->pipeline_cache_path);
        if (!vk->cache_path) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    }

    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = vk->queue_family};
    DM_VK_CALL(vk, "creating the context", CreateCommandPool, (vk->device, &pci, NULL, &vk->pool));
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = vk->pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = 1};
    DM_VK_CALL(vk, "creating the context", AllocateCommandBuffers, (vk->device, &cai, &vk->cmd));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    DM_VK_CALL(vk, "creating the context", CreateFence, (vk->device, &fci, NULL, &vk->fence));
    DM_TRY(dm_vk_alloc(vk, 256, false, "creating the context", &vk->dummy));
    DM_TRY(dm_vk_pipelines_init(vk));
    ctx->vt = &dm_vk_vtbl;
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_context_init(dmlops_context *ctx, const dm_vk_params *params)
{
    dm_vk_ctx *vk = calloc(1, sizeof *vk);
    if (!vk) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    vk->quiet = (ctx->flags & DMLOPS_CONTEXT_FLAG_QUIET) != 0;
    vk->lock = &ctx->lock;
    dmlops_status st = dm_vk_create_instance((ctx->flags & DMLOPS_CONTEXT_FLAG_DEBUG) != 0, vk);
    if (st == DMLOPS_SUCCESS) st = dm_vk_choose_device(vk, params->device, params->hardware_only);
    if (st == DMLOPS_SUCCESS) st = dm_vk_create_device(vk);
    if (st == DMLOPS_SUCCESS) st = dm_vk_setup_device(ctx, vk, params);
    if (st != DMLOPS_SUCCESS) {
        dm_vk_teardown(vk);
        return st;
    }
    ctx->impl = vk;
    return DMLOPS_SUCCESS;
}
