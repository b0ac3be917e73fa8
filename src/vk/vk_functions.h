/* Layer 1 of the Vulkan backend: the tables of Vulkan functions. Every function is
 * loaded into a table of the context that uses it, never into a global, so several
 * contexts, an application's own volk, and -lvulkan never interfere. */
#ifndef DM_VK_FUNCTIONS_H
#define DM_VK_FUNCTIONS_H

#include <stdbool.h>

#include <volk.h>

#define DM_VK_INSTANCE_FUNCS(X)                                                           \
    X(DestroyInstance) X(EnumeratePhysicalDevices) X(GetPhysicalDeviceProperties)         \
    X(GetPhysicalDeviceProperties2) X(GetPhysicalDeviceFeatures2)                         \
    X(GetPhysicalDeviceQueueFamilyProperties) X(GetPhysicalDeviceMemoryProperties)        \
    X(GetPhysicalDeviceMemoryProperties2)                                                 \
    X(GetPhysicalDeviceFormatProperties)                                                  \
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
    X(DestroyFence) X(ResetFences) X(WaitForFences) X(QueueSubmit) X(DeviceWaitIdle)  \
    X(CreateBufferView) X(DestroyBufferView) X(CreateSemaphore) X(DestroySemaphore)       \
    X(GetFenceStatus) X(QueueWaitIdle)

#define DM_VK_DECLARE(name) PFN_vk##name name;
typedef struct dm_vk_itable {
    DM_VK_INSTANCE_FUNCS(DM_VK_DECLARE)
    PFN_vkCreateDebugUtilsMessengerEXT CreateDebugUtilsMessengerEXT;
    PFN_vkDestroyDebugUtilsMessengerEXT DestroyDebugUtilsMessengerEXT;
} dm_vk_itable;
typedef struct dm_vk_dtable {
    DM_VK_DEVICE_FUNCS(DM_VK_DECLARE)
    /* Timeline semaphores (dm_vk_device.timeline): Vulkan 1.2's, or VK_KHR_timeline_semaphore's
     * of the same types under their KHR names; NULL without. */
    PFN_vkWaitSemaphores WaitSemaphores;
    PFN_vkGetSemaphoreCounterValue GetSemaphoreCounterValue;
} dm_vk_dtable;
#undef DM_VK_DECLARE

/* Fills the instance table through the loader's (or the application's)
 * vkGetInstanceProcAddr; entries the instance lacks stay NULL. */
void dm_vk_load_instance_table(PFN_vkGetInstanceProcAddr gipa, VkInstance instance, dm_vk_itable *t);
/* Fills the device table through the instance table's vkGetDeviceProcAddr. */
void dm_vk_load_device_table(const dm_vk_itable *vki, VkDevice device, dm_vk_dtable *t);
/* Loads the table's timeline-semaphore functions: Vulkan 1.2's, or (khr)
 * VK_KHR_timeline_semaphore's; false when the device has none of them. */
bool dm_vk_load_timeline(const dm_vk_itable *vki, VkDevice device, bool khr, dm_vk_dtable *t);

#endif
