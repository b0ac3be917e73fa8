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

dmlops_status dm_vk_device_open(dm_vk_device *d, bool debug, bool quiet, const char *request, bool hardware_only)
{
    DM_TRY(dm_vk_instance_create(debug, quiet, &d->inst));
    DM_TRY(dm_vk_choose_device(&d->inst, request, hardware_only, &d->phys, &d->info));
    d->queue_family = dm_pick_queue_family(d);
    if (d->queue_family == UINT32_MAX) return dm_fail(DMLOPS_ERROR_NO_DEVICE, "%s has no compute queue", d->info.name);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = d->queue_family,
                                   .queueCount = 1,
                                   .pQueuePriorities = &prio};
    VkDeviceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci};
    VkResult r = d->inst.vki.CreateDevice(d->phys, &ci, NULL, &d->device);
    if (r != VK_SUCCESS) return dm_vk_fail(NULL, r, "vkCreateDevice", d->info.name);
    d->owned = true;
    return dm_vk_device_finish(d);
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

void dm_vk_device_wait_idle(dm_vk_device *d)
{
    if (d->device && d->owned && d->vkd.DeviceWaitIdle) d->vkd.DeviceWaitIdle(d->device);
}

void dm_vk_device_close(dm_vk_device *d)
{
    if (d->device && d->owned) d->vkd.DestroyDevice(d->device, NULL);
    d->device = VK_NULL_HANDLE;
    dm_vk_instance_destroy(&d->inst);
}
