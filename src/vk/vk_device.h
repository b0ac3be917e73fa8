/* Layer 4 of the Vulkan backend: the logical device and its queue, ours or the
 * application's. Everything above reaches Vulkan through a dm_vk_device. */
#ifndef DM_VK_DEVICE_H
#define DM_VK_DEVICE_H

#include "vk_physical.h"

typedef struct dm_vk_device {
    dm_allocator *host;      /* the context's host allocator (alloc.h); NULL: the C library's */
    const VkAllocationCallbacks *vk_alloc; /* the application's, passed to every Vulkan object of
                                              ours (points at vk_alloc_copy), or NULL */
    VkAllocationCallbacks vk_alloc_copy;
    dm_count64 *device_bytes;       /* the context's count of device memory held, or NULL */
    dm_vk_instance inst;
    VkPhysicalDevice phys;
    dmlops_device_info info;
    VkPhysicalDeviceMemoryProperties memprops;
    dm_vk_limits lim;        /* filled by the context (dm_vk_limits_init) */
    VkDevice device;
    dm_vk_dtable vkd;
    VkQueue queue;
    uint32_t queue_family;
    uint32_t timestamp_bits; /* of the queue's family; 0: no timestamps */
    bool memory_budget;      /* VK_EXT_memory_budget enabled on our device (dm_vk_heap_room) */
    bool portability;        /* VK_KHR_portability_subset enabled on our device */
    bool external_fd;        /* VK_KHR_external_memory_fd enabled (vkGetMemoryFdPropertiesKHR below) */
    bool external_dma_buf;   /* VK_EXT_external_memory_dma_buf enabled too */
    PFN_vkGetMemoryFdPropertiesKHR GetMemoryFdPropertiesKHR;
    bool timeline;           /* timeline semaphores enabled (vkd's WaitSemaphores and
                                GetSemaphoreCounterValue loaded): submissions signal one */
    bool owned;              /* created here: waited on and destroyed with the context */
    _Atomic bool lost;       /* VK_ERROR_DEVICE_LOST was seen: every later call that would touch the
                              * device fails (read without the context lock: dm_check_lost) */
    bool submitted;          /* work went to the queue (dm_vk_submit_wait): only then is there
                              * anything for dm_vk_device_wait_idle to wait for */
} dm_vk_device;

/* Our own device: an instance, the device the request names (vk_select.c), and a
 * device with one compute queue and no optional feature (the kernels need none), with
 * VK_KHR_portability_subset and VK_EXT_memory_budget enabled where offered. On failure,
 * dm_vk_device_close releases what was made. */
dmlops_status dm_vk_device_open(dm_vk_device *d, bool debug, bool quiet, const char *request, bool hardware_only);

/* The application's instance, device and queue, checked for Vulkan 1.1 and a compute
 * queue family; `fn` names the public call in messages. On failure, dm_vk_device_close
 * releases what was made (nothing of the application's). */
dmlops_status dm_vk_device_adopt(dm_vk_device *d, PFN_vkGetInstanceProcAddr gipa, VkInstance instance,
                                 VkPhysicalDevice phys, VkDevice device, VkQueue queue, uint32_t queue_family,
                                 const char *fn);
/* The external-memory entry points of a device where external_fd is set. */
void dm_vk_load_external(dm_vk_device *d);
/* On an adopted device: the application enabled timeline semaphores (Vulkan 1.2's, or
 * VK_KHR_timeline_semaphore's), and its instance has apiVersion api_version (0: 1.1).
 * UNSUPPORTED, naming fn, when the device exposes no such functions. */
dmlops_status dm_vk_device_adopt_timeline(dm_vk_device *d, uint32_t api_version, const char *fn);

/* What is left of heap 0 by VK_EXT_memory_budget (its budget less the process's usage);
 * UINT64_MAX where our device does not have the extension enabled. */
uint64_t dm_vk_heap_room(const dm_vk_device *d);

/* Waits for the device to finish everything, when it is ours and was submitted to: an
 * application's device is not ours to wait on (vkDeviceWaitIdle would need all its
 * queues), and every submission of ours was waited for anyway; its queue, which we
 * submitted to, is waited idle (vk_device.c says why). A device never submitted
 * to is not waited on: RADV on a machine without its kernel driver (RADV_FORCE_FAMILY,
 * the machine-code report) creates a device but no fence, and its vkDeviceWaitIdle,
 * which waits through a sync object of the queue, called a null function pointer in the
 * teardown after that failed context creation (Mesa 22.3). */
void dm_vk_device_wait_idle(dm_vk_device *d);
/* Destroys what is ours of the device and the instance; objects made on the device must
 * be gone. */
void dm_vk_device_close(dm_vk_device *d);

#endif
