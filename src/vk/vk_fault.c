/* Layer 1: fault injection into the device's function table (fault.h). When the tests
 * arm DMLOPS_FAULT_INJECT with vulkan:N or lost:N, the fallible entries of a freshly
 * loaded table are replaced by wrappers that count and fail on cue, with the error a
 * driver would return there; otherwise the table is left alone and costs nothing. The
 * real entries are kept in one process-wide table: injection supports one driver per
 * process, which is what the tests run. */
#include "vk_fault.h"

#include "../fault.h"

static dm_vk_dtable dm_real; /* the driver's entries, for the wrappers to call */
static PFN_vkCreateDevice dm_real_create_device;

/* vulkan:N: the Nth fallible call returns `err` instead of running. */
#define DM_FAIL_AT(err)                                                                   \
    do {                                                                                  \
        if (dm_fault_hit(DM_FAULT_VULKAN)) return (err);                                  \
    } while (0)

#define OOM_HOST VK_ERROR_OUT_OF_HOST_MEMORY
#define OOM_DEVICE VK_ERROR_OUT_OF_DEVICE_MEMORY

/* One wrapper per fallible creation or allocation: NAME, its parameters, its arguments,
 * the error it fails with. */
#define DM_WRAP(NAME, PARAMS, ARGS, ERR)                                                  \
    static VKAPI_ATTR VkResult VKAPI_CALL dm_fault_##NAME PARAMS                          \
    {                                                                                     \
        DM_FAIL_AT(ERR);                                                                  \
        return dm_real.NAME ARGS;                                                         \
    }

DM_WRAP(CreateBuffer, (VkDevice d, const VkBufferCreateInfo *i, const VkAllocationCallbacks *a, VkBuffer *o),
        (d, i, a, o), OOM_DEVICE)
DM_WRAP(AllocateMemory, (VkDevice d, const VkMemoryAllocateInfo *i, const VkAllocationCallbacks *a, VkDeviceMemory *o),
        (d, i, a, o), OOM_DEVICE)
DM_WRAP(BindBufferMemory, (VkDevice d, VkBuffer b, VkDeviceMemory m, VkDeviceSize off), (d, b, m, off), OOM_DEVICE)
DM_WRAP(MapMemory, (VkDevice d, VkDeviceMemory m, VkDeviceSize off, VkDeviceSize n, VkMemoryMapFlags f, void **p),
        (d, m, off, n, f, p), OOM_HOST)
DM_WRAP(CreateShaderModule,
        (VkDevice d, const VkShaderModuleCreateInfo *i, const VkAllocationCallbacks *a, VkShaderModule *o),
        (d, i, a, o), OOM_HOST)
DM_WRAP(CreatePipelineCache,
        (VkDevice d, const VkPipelineCacheCreateInfo *i, const VkAllocationCallbacks *a, VkPipelineCache *o),
        (d, i, a, o), OOM_HOST)
DM_WRAP(CreateComputePipelines,
        (VkDevice d, VkPipelineCache c, uint32_t n, const VkComputePipelineCreateInfo *i, const VkAllocationCallbacks *a,
         VkPipeline *o),
        (d, c, n, i, a, o), OOM_DEVICE)
DM_WRAP(CreatePipelineLayout,
        (VkDevice d, const VkPipelineLayoutCreateInfo *i, const VkAllocationCallbacks *a, VkPipelineLayout *o),
        (d, i, a, o), OOM_HOST)
DM_WRAP(CreateDescriptorSetLayout,
        (VkDevice d, const VkDescriptorSetLayoutCreateInfo *i, const VkAllocationCallbacks *a, VkDescriptorSetLayout *o),
        (d, i, a, o), OOM_HOST)
DM_WRAP(CreateDescriptorPool,
        (VkDevice d, const VkDescriptorPoolCreateInfo *i, const VkAllocationCallbacks *a, VkDescriptorPool *o),
        (d, i, a, o), OOM_DEVICE)
DM_WRAP(CreateBufferView, (VkDevice d, const VkBufferViewCreateInfo *i, const VkAllocationCallbacks *a, VkBufferView *o),
        (d, i, a, o), OOM_HOST)
DM_WRAP(AllocateDescriptorSets, (VkDevice d, const VkDescriptorSetAllocateInfo *i, VkDescriptorSet *o), (d, i, o),
        OOM_DEVICE)
DM_WRAP(CreateCommandPool,
        (VkDevice d, const VkCommandPoolCreateInfo *i, const VkAllocationCallbacks *a, VkCommandPool *o),
        (d, i, a, o), OOM_HOST)
DM_WRAP(AllocateCommandBuffers, (VkDevice d, const VkCommandBufferAllocateInfo *i, VkCommandBuffer *o), (d, i, o),
        OOM_HOST)
DM_WRAP(BeginCommandBuffer, (VkCommandBuffer c, const VkCommandBufferBeginInfo *i), (c, i), OOM_HOST)
/* A failed vkEndCommandBuffer leaves the buffer invalid, not recording: end it for real
 * first, as a driver would, so the next begin sees what it would see after a real failure. */
static VKAPI_ATTR VkResult VKAPI_CALL dm_fault_EndCommandBuffer(VkCommandBuffer c)
{
    const VkResult r = dm_real.EndCommandBuffer(c);
    return r == VK_SUCCESS && dm_fault_hit(DM_FAULT_VULKAN) ? OOM_HOST : r;
}
DM_WRAP(CreateQueryPool, (VkDevice d, const VkQueryPoolCreateInfo *i, const VkAllocationCallbacks *a, VkQueryPool *o),
        (d, i, a, o), OOM_HOST)
DM_WRAP(CreateFence, (VkDevice d, const VkFenceCreateInfo *i, const VkAllocationCallbacks *a, VkFence *o),
        (d, i, a, o), OOM_HOST)
DM_WRAP(ResetFences, (VkDevice d, uint32_t n, const VkFence *f), (d, n, f), OOM_DEVICE)

/* Submission and waiting: vulkan:N fails one; lost:N loses the device from the Nth on.
 * A lost wait first waits for the whole device for real, so the simulation never lets
 * the library free work the driver is still running; a lost submission queues nothing. */
static VKAPI_ATTR VkResult VKAPI_CALL dm_fault_QueueSubmit(VkQueue q, uint32_t n, const VkSubmitInfo *s, VkFence f)
{
    DM_FAIL_AT(OOM_DEVICE);
    if (dm_fault_hit(DM_FAULT_LOST)) return VK_ERROR_DEVICE_LOST;
    return dm_real.QueueSubmit(q, n, s, f);
}

static VKAPI_ATTR VkResult VKAPI_CALL dm_fault_WaitForFences(VkDevice d, uint32_t n, const VkFence *f, VkBool32 all,
                                                             uint64_t timeout)
{
    DM_FAIL_AT(OOM_DEVICE); /* without waiting: the library must cope with work in flight */
    if (dm_fault_hit(DM_FAULT_LOST)) {
        dm_real.DeviceWaitIdle(d);
        return VK_ERROR_DEVICE_LOST;
    }
    return dm_real.WaitForFences(d, n, f, all, timeout);
}

DM_WRAP(CreateSemaphore, (VkDevice d, const VkSemaphoreCreateInfo *i, const VkAllocationCallbacks *a, VkSemaphore *o),
        (d, i, a, o), OOM_HOST)

/* The timeline's wait fails or loses as vkWaitForFences does. */
static VKAPI_ATTR VkResult VKAPI_CALL dm_fault_WaitSemaphores(VkDevice d, const VkSemaphoreWaitInfo *w, uint64_t timeout)
{
    DM_FAIL_AT(OOM_DEVICE);
    if (dm_fault_hit(DM_FAULT_LOST)) {
        dm_real.DeviceWaitIdle(d);
        return VK_ERROR_DEVICE_LOST;
    }
    return dm_real.WaitSemaphores(d, w, timeout);
}

/* Status queries only lose the device (after really waiting, as a lost wait does). */
static VKAPI_ATTR VkResult VKAPI_CALL dm_fault_GetSemaphoreCounterValue(VkDevice d, VkSemaphore s, uint64_t *v)
{
    if (dm_fault_armed() == DM_FAULT_LOST && dm_fault_hit(DM_FAULT_LOST)) {
        dm_real.DeviceWaitIdle(d);
        return VK_ERROR_DEVICE_LOST;
    }
    return dm_real.GetSemaphoreCounterValue(d, s, v);
}

static VKAPI_ATTR VkResult VKAPI_CALL dm_fault_GetFenceStatus(VkDevice d, VkFence f)
{
    if (dm_fault_armed() == DM_FAULT_LOST && dm_fault_hit(DM_FAULT_LOST)) {
        dm_real.DeviceWaitIdle(d);
        return VK_ERROR_DEVICE_LOST;
    }
    return dm_real.GetFenceStatus(d, f);
}

static VKAPI_ATTR VkResult VKAPI_CALL dm_fault_QueueWaitIdle(VkQueue q)
{
    const VkResult r = dm_real.QueueWaitIdle(q); /* always really idle: destroys follow */
    return r == VK_SUCCESS && dm_fault_armed() == DM_FAULT_LOST && dm_fault_hit(DM_FAULT_LOST) ? VK_ERROR_DEVICE_LOST : r;
}

static VKAPI_ATTR VkResult VKAPI_CALL dm_fault_DeviceWaitIdle(VkDevice d)
{
    const VkResult r = dm_real.DeviceWaitIdle(d); /* always really idle: destroys follow */
    return r == VK_SUCCESS && dm_fault_armed() == DM_FAULT_LOST && dm_fault_hit(DM_FAULT_LOST) ? VK_ERROR_DEVICE_LOST : r;
}

static VKAPI_ATTR VkResult VKAPI_CALL dm_fault_CreateDevice(VkPhysicalDevice p, const VkDeviceCreateInfo *i,
                                                            const VkAllocationCallbacks *a, VkDevice *o)
{
    DM_FAIL_AT(OOM_HOST);
    return dm_real_create_device(p, i, a, o);
}

void dm_vk_fault_wrap_instance(dm_vk_itable *t)
{
    const dm_fault_mode m = dm_fault_armed();
    if (m != DM_FAULT_VULKAN && m != DM_FAULT_LOST) return;
    if (t->CreateDevice != dm_fault_CreateDevice) dm_real_create_device = t->CreateDevice;
    t->CreateDevice = dm_fault_CreateDevice;
}

void dm_vk_fault_wrap_device(dm_vk_dtable *t)
{
    const dm_fault_mode m = dm_fault_armed();
    if (m != DM_FAULT_VULKAN && m != DM_FAULT_LOST) return;
    /* The timeline entries are loaded after (dm_vk_fault_wrap_timeline): keep the real
     * ones another device of the same driver may still call through its wrappers. */
    const PFN_vkWaitSemaphores wait = dm_real.WaitSemaphores;
    const PFN_vkGetSemaphoreCounterValue value = dm_real.GetSemaphoreCounterValue;
    dm_real = *t;
    dm_real.WaitSemaphores = wait;
    dm_real.GetSemaphoreCounterValue = value;
#define DM_SWAP(NAME) t->NAME = dm_fault_##NAME;
    DM_SWAP(CreateBuffer) DM_SWAP(AllocateMemory) DM_SWAP(BindBufferMemory) DM_SWAP(MapMemory)
    DM_SWAP(CreateShaderModule) DM_SWAP(CreatePipelineCache) DM_SWAP(CreateComputePipelines)
    DM_SWAP(CreatePipelineLayout) DM_SWAP(CreateDescriptorSetLayout) DM_SWAP(CreateDescriptorPool)
    DM_SWAP(AllocateDescriptorSets) DM_SWAP(CreateCommandPool) DM_SWAP(AllocateCommandBuffers)
    DM_SWAP(BeginCommandBuffer) DM_SWAP(EndCommandBuffer) DM_SWAP(CreateQueryPool) DM_SWAP(CreateFence)
    DM_SWAP(ResetFences) DM_SWAP(QueueSubmit) DM_SWAP(WaitForFences) DM_SWAP(DeviceWaitIdle)
    DM_SWAP(CreateBufferView) DM_SWAP(CreateSemaphore) DM_SWAP(GetFenceStatus) DM_SWAP(QueueWaitIdle)
#undef DM_SWAP
}

void dm_vk_fault_wrap_timeline(dm_vk_dtable *t)
{
    const dm_fault_mode m = dm_fault_armed();
    if (m != DM_FAULT_VULKAN && m != DM_FAULT_LOST) return;
    dm_real.WaitSemaphores = t->WaitSemaphores;
    dm_real.GetSemaphoreCounterValue = t->GetSemaphoreCounterValue;
    t->WaitSemaphores = dm_fault_WaitSemaphores;
    t->GetSemaphoreCounterValue = dm_fault_GetSemaphoreCounterValue;
}
