/* The logical device and its queue, ours or the application's (vk_device.h). */
#include <stdlib.h>
#include <string.h>

#include "vk_device.h"
#include "../fault.h"

/* A compute family: timestamps matter for benchmarks, and a compute-only family is the
 * least shared. UINT32_MAX when there is none. */
static uint32_t dm_pick_queue_family(const dm_vk_device *d)
{
    uint32_t best = UINT32_MAX, best_score = 0;
    VkQueueFamilyProperties q[DM_VK_MAX_FAMILIES];
    const uint32_t n = dm_vk_queue_families(&d->inst.vki, d->phys, q);
    for (uint32_t i = 0; i < n; i++) {
        if (!(q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || !q[i].queueCount) continue;
        uint32_t score = 1 + (q[i].timestampValidBits ? 2 : 0) + (q[i].queueFlags & VK_QUEUE_GRAPHICS_BIT ? 0 : 1);
        if (score > best_score) {
            best = i;
            best_score = score;
        }
    }
    return best;
}

/* Once the device and queue exist, ours or not: the device functions, the queue, the
 * memory types, and what the queue's family offers. */
static dmlops_status dm_vk_device_finish(dm_vk_device *d)
{
    dm_vk_load_device_table(&d->inst.vki, d->device, &d->vkd);
    if (!d->queue) d->vkd.GetDeviceQueue(d->device, d->queue_family, 0, &d->queue);
    d->inst.vki.GetPhysicalDeviceMemoryProperties(d->phys, &d->memprops);
    VkQueueFamilyProperties q[DM_VK_MAX_FAMILIES];
    const uint32_t n = dm_vk_queue_families(&d->inst.vki, d->phys, q);
    if (d->queue_family >= n || !(q[d->queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT))
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "queue family %u of %s has no VK_QUEUE_COMPUTE_BIT",
                       d->queue_family, d->info.name);
    d->timestamp_bits = q[d->queue_family].timestampValidBits;
    return DMLOPS_SUCCESS;
}

/* VK_KHR_portability_subset's features structure and its sType are declared only under
 * VK_ENABLE_BETA_EXTENSIONS (which would also change volk's tables): their values, as
 * the registry (vk.xml) gives them, here. */
#define DM_VK_PORTABILITY_SUBSET "VK_KHR_portability_subset"
#define DM_VK_STRUCTURE_TYPE_PORTABILITY_SUBSET_FEATURES ((VkStructureType)1000163000)
typedef struct dm_vk_portability_features {
    VkStructureType sType;
    void *pNext;
    VkBool32 constantAlphaColorBlendFactors, events, imageViewFormatReinterpretation, imageViewFormatSwizzle,
        imageView2DOn3DImage, multisampleArrayImage, mutableComparisonSamplers, pointPolygons, samplerMipLodBias,
        separateStencilMaskRef, shaderSampleRateInterpolationFunctions, tessellationIsolines, tessellationPointMode,
        triangleFans, vertexAttributeAccessBeyondStride;
} dm_vk_portability_features;

/* The device extensions we enable on a device of our own, into names. A portability
 * implementation (MoltenVK over Metal, and the like) that offers VK_KHR_portability_subset
 * must have it enabled (VUID-VkDeviceCreateInfo-pProperties-04451). What its features
 * structure can forbid is graphics and image state (events, image view reinterpretation
 * and swizzles, triangle fans, tessellation modes, sampler LOD bias, stencil references,
 * vertex attributes past their stride): the kernels use storage buffers, uniform texel
 * buffers of whole formats and plain dispatches, so whatever it answers changes nothing.
 * VK_EXT_memory_budget tells how much of a unified-memory GPU's heap is left
 * (dm_vk_buffer_alloc). Neither needs a feature enabled. */
static uint32_t dm_vk_device_extensions(dm_vk_device *d, const char **names)
{
    uint32_t n = 0;
    if (dm_vk_has_device_extension(&d->inst.vki, d->phys, DM_VK_PORTABILITY_SUBSET)) {
        dm_vk_portability_features pf = {
            .sType = DM_VK_STRUCTURE_TYPE_PORTABILITY_SUBSET_FEATURES};
        VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &pf};
        d->inst.vki.GetPhysicalDeviceFeatures2(d->phys, &f2); /* asked, as the extension asks of us */
        names[n++] = DM_VK_PORTABILITY_SUBSET;
        d->portability = true;
    }
    if (dm_vk_has_device_extension(&d->inst.vki, d->phys, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME)) {
        names[n++] = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;
        d->memory_budget = true;
    }
    /* External memory as buffers (dmlops_buffer_import_vulkan): fds, and dma-bufs, where
     * offered (VK_KHR_external_memory itself is Vulkan 1.1). */
    if (dm_vk_has_device_extension(&d->inst.vki, d->phys, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) {
        names[n++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
        d->external_fd = true;
        if (dm_vk_has_device_extension(&d->inst.vki, d->phys, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME)) {
            names[n++] = VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME;
            d->external_dma_buf = true;
        }
    }
    return n;
}

/* Testing: DMLOPS_VK_TIMELINE=0 makes submissions signal VkFences on any device, as on
 * one without timeline semaphores (docs/api.md). */
static bool dm_vk_timeline_off(void)
{
    const char *env = getenv("DMLOPS_VK_TIMELINE");
    return env && !strcmp(env, "0");
}

/* Whether submissions can signal a timeline semaphore on our device: Vulkan 1.2's feature
 * (device and instance of 1.2), else VK_KHR_timeline_semaphore's; *khr says which, and
 * the extension's name is added to names. The feature is asked for in tf. */
static bool dm_vk_timeline_offered(dm_vk_device *d, const char **names, uint32_t *n, bool *khr,
                                   VkPhysicalDeviceTimelineSemaphoreFeatures *tf)
{
    const bool core = d->info.api_version >= VK_API_VERSION_1_2 && d->inst.api_version >= VK_API_VERSION_1_2;
    const bool ext = !core && dm_vk_has_device_extension(&d->inst.vki, d->phys, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
    if ((!core && !ext) || dm_vk_timeline_off()) return false;
    *tf = (VkPhysicalDeviceTimelineSemaphoreFeatures){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = tf};
    d->inst.vki.GetPhysicalDeviceFeatures2(d->phys, &f2);
    tf->pNext = NULL;
    if (!tf->timelineSemaphore) return false;
    if (ext) names[(*n)++] = VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME;
    *khr = ext;
    return true;
}

uint64_t dm_vk_heap_room(const dm_vk_device *d)
{
    if (!d->memory_budget || !d->inst.vki.GetPhysicalDeviceMemoryProperties2) return UINT64_MAX;
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 mp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, .pNext = &budget};
    d->inst.vki.GetPhysicalDeviceMemoryProperties2(d->phys, &mp);
    return budget.heapBudget[0] > budget.heapUsage[0] ? budget.heapBudget[0] - budget.heapUsage[0] : 0;
}

dmlops_status dm_vk_device_open(dm_vk_device *d, bool debug, bool quiet, const char *request, bool hardware_only)
{
    d->inst.alloc = d->vk_alloc;
    DM_TRY(dm_vk_instance_create(debug, quiet, &d->inst));
    DM_TRY(dm_vk_choose_device(&d->inst, request, hardware_only, &d->phys, &d->info));
    d->queue_family = dm_pick_queue_family(d);
    if (d->queue_family == UINT32_MAX) return dm_fail(DMLOPS_ERROR_NO_DEVICE, "%s has no compute queue", d->info.name);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = d->queue_family,
                                   .queueCount = 1,
                                   .pQueuePriorities = &prio};
    const char *extensions[5];
    VkDeviceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .queueCreateInfoCount = 1,
                             .pQueueCreateInfos = &qci,
                             .ppEnabledExtensionNames = extensions};
    ci.enabledExtensionCount = dm_vk_device_extensions(d, extensions);
    VkPhysicalDeviceTimelineSemaphoreFeatures tf;
    bool khr = false;
    const bool timeline = dm_vk_timeline_offered(d, extensions, &ci.enabledExtensionCount, &khr, &tf);
    if (timeline) ci.pNext = &tf;
    VkResult r = d->inst.vki.CreateDevice(d->phys, &ci, d->vk_alloc, &d->device);
    if (r != VK_SUCCESS) return dm_vk_fail(NULL, r, "vkCreateDevice", d->info.name);
    d->owned = true;
    DM_TRY(dm_vk_device_finish(d));
    d->timeline = timeline && dm_vk_load_timeline(&d->inst.vki, d->device, khr, &d->vkd);
    dm_vk_load_external(d);
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_device_adopt(dm_vk_device *d, PFN_vkGetInstanceProcAddr gipa, VkInstance instance,
                                 VkPhysicalDevice phys, VkDevice device, VkQueue queue, uint32_t queue_family,
                                 const char *fn)
{
    dm_vk_instance_adopt(gipa, instance, &d->inst);
    d->phys = phys;
    d->queue = queue;
    d->queue_family = queue_family;
    if (!d->inst.vki.GetPhysicalDeviceProperties2 || !d->inst.vki.GetDeviceProcAddr)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: the instance lacks Vulkan 1.1 entry points", fn);
    dm_vk_fill_device_info(&d->inst.vki, phys, dm_vk_device_index(&d->inst, phys), &d->info);
    if (d->info.api_version < VK_API_VERSION_1_1)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: %s supports Vulkan %u.%u; libdmlops needs 1.1", fn, d->info.name,
                       VK_API_VERSION_MAJOR(d->info.api_version), VK_API_VERSION_MINOR(d->info.api_version));
    d->device = device;
    return dm_vk_device_finish(d);
}

void dm_vk_load_external(dm_vk_device *d)
{
    d->GetMemoryFdPropertiesKHR =
        d->external_fd ? (PFN_vkGetMemoryFdPropertiesKHR)d->inst.vki.GetDeviceProcAddr(d->device, "vkGetMemoryFdPropertiesKHR")
                       : NULL;
    if (!d->GetMemoryFdPropertiesKHR) d->external_dma_buf = false; /* needed to import one */
}

dmlops_status dm_vk_device_adopt_timeline(dm_vk_device *d, uint32_t api_version, const char *fn)
{
    const bool core = d->info.api_version >= VK_API_VERSION_1_2 && api_version >= VK_API_VERSION_1_2;
    if (!dm_vk_load_timeline(&d->inst.vki, d->device, !core, &d->vkd))
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                       "%s: device_features has DMLOPS_VULKAN_DEVICE_FEATURE_TIMELINE_SEMAPHORE, but the device has no "
                       "%s (enable %s)",
                       fn, core ? "vkWaitSemaphores" : "vkWaitSemaphoresKHR",
                       core ? "the timelineSemaphore feature" : "VK_KHR_timeline_semaphore and its feature");
    d->timeline = !dm_vk_timeline_off();
    return DMLOPS_SUCCESS;
}

void dm_vk_device_wait_idle(dm_vk_device *d)
{
    if (!d->device || !d->submitted) return;
    if (d->owned && d->vkd.DeviceWaitIdle) d->vkd.DeviceWaitIdle(d->device);
    /* An application's queue: every submission of ours was waited for, but a driver that
     * submits from a thread of its own may still hold a finished one's semaphores and
     * command buffers after they signalled (Mesa 22.3's lavapipe, whose queue thread
     * crashed in vkDestroyDevice about once in 25 runs of the interop suite when the
     * context had destroyed its timeline and command pool right after its last wait).
     * Idle, the queue has let go of them. */
    else if (!d->owned && d->queue && d->vkd.QueueWaitIdle) d->vkd.QueueWaitIdle(d->queue);
}

void dm_vk_device_close(dm_vk_device *d)
{
    if (d->device && d->owned) d->vkd.DestroyDevice(d->device, d->vk_alloc);
    d->device = VK_NULL_HANDLE;
    dm_vk_instance_destroy(&d->inst);
}
