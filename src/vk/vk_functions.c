/* Loading the per-context tables of Vulkan functions (vk_functions.h). */
#include "vk_functions.h"

#include "vk_fault.h"

void dm_vk_load_instance_table(PFN_vkGetInstanceProcAddr gipa, VkInstance instance, dm_vk_itable *t)
{
#define DM_LOAD(name) t->name = (PFN_vk##name)gipa(instance, "vk" #name);
    DM_VK_INSTANCE_FUNCS(DM_LOAD)
#undef DM_LOAD
    t->CreateDebugUtilsMessengerEXT =
        (PFN_vkCreateDebugUtilsMessengerEXT)gipa(instance, "vkCreateDebugUtilsMessengerEXT");
    t->DestroyDebugUtilsMessengerEXT =
        (PFN_vkDestroyDebugUtilsMessengerEXT)gipa(instance, "vkDestroyDebugUtilsMessengerEXT");
    dm_vk_fault_wrap_instance(t); /* testing only; nothing unless armed */
}

void dm_vk_load_device_table(const dm_vk_itable *vki, VkDevice device, dm_vk_dtable *t)
{
#define DM_LOAD(name) t->name = (PFN_vk##name)vki->GetDeviceProcAddr(device, "vk" #name);
    DM_VK_DEVICE_FUNCS(DM_LOAD)
#undef DM_LOAD
    dm_vk_fault_wrap_device(t); /* testing only; nothing unless armed */
}

bool dm_vk_load_timeline(const dm_vk_itable *vki, VkDevice device, bool khr, dm_vk_dtable *t)
{
    t->WaitSemaphores = (PFN_vkWaitSemaphores)vki->GetDeviceProcAddr(device, khr ? "vkWaitSemaphoresKHR" : "vkWaitSemaphores");
    t->GetSemaphoreCounterValue = (PFN_vkGetSemaphoreCounterValue)vki->GetDeviceProcAddr(
        device, khr ? "vkGetSemaphoreCounterValueKHR" : "vkGetSemaphoreCounterValue");
    if (!t->WaitSemaphores || !t->GetSemaphoreCounterValue) {
        t->WaitSemaphores = NULL;
        t->GetSemaphoreCounterValue = NULL;
        return false;
    }
    dm_vk_fault_wrap_timeline(t); /* testing only; nothing unless armed */
    return true;
}
