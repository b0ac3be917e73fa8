/* Beginning, submitting and waiting for command buffers; the barriers and copies
 * recorded into them (vk_submit.h). */
#include <stdlib.h>
#include <string.h>

#include "vk_submit.h"
#include "dmlops_vulkan.h" /* after volk.h: dmlops_vulkan_semaphores */
#include "../fault.h"

dmlops_status dm_vk_command_pool(dm_vk_device *d, VkCommandPool *pool, VkCommandBuffer *cmd, const char *what)
{
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = d->queue_family};
    DM_VK_CALL(d, what, CreateCommandPool, (d->device, &pci, d->vk_alloc, pool));
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = *pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = 1};
    DM_VK_CALL(d, what, AllocateCommandBuffers, (d->device, &cai, cmd));
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_submitter_init(dm_vk_device *d, dm_mutex *lock, dm_vk_submitter *s)
{
    s->lock = lock;
    DM_TRY(dm_vk_command_pool(d, &s->pool, &s->cmd, "creating the context"));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    DM_VK_CALL(d, "creating the context", CreateFence, (d->device, &fci, d->vk_alloc, &s->fence));
    if (d->timeline) {
        VkSemaphoreTypeCreateInfo type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                          .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
        VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &type};
        DM_VK_CALL(d, "creating the context", CreateSemaphore, (d->device, &sci, d->vk_alloc, &s->timeline));
    }
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_queue_submit(dm_vk_device *d, const dm_vk_submitter *s, VkCommandBuffer cmd, const void *sems,
                                 uint64_t value, VkFence fence, const char *what)
{
    const dmlops_vulkan_semaphores *app = sems;
    const uint32_t nwait = app ? app->wait_count : 0, nsignal = (app ? app->signal_count : 0) + (s->timeline ? 1 : 0);
    /* The application's lists, with the timeline first among the signals: small enough for
     * the stack unless the application passes many. */
    VkSemaphore wait_buf[8], signal_buf[8];
    uint64_t wait_val_buf[8], signal_val_buf[8];
    VkPipelineStageFlags stage_buf[8];
    void *heap = NULL;
    VkSemaphore *wait = wait_buf, *signal = signal_buf;
    uint64_t *wait_val = wait_val_buf, *signal_val = signal_val_buf;
    VkPipelineStageFlags *stage = stage_buf;
    if (nwait > 8 || nsignal > 8) {
        const size_t nw = nwait, ns = nsignal;
        heap = dm_alloc(d->host, nw * (sizeof *wait + sizeof *wait_val + sizeof *stage) + ns * (sizeof *signal + sizeof *signal_val), 0);
        if (!heap) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", what);
        wait_val = heap;
        signal_val = wait_val + nw;
        wait = (VkSemaphore *)(signal_val + ns);
        signal = wait + nw;
        stage = (VkPipelineStageFlags *)(signal + ns);
    }
    uint32_t k = 0;
    if (s->timeline) {
        signal[k] = s->timeline;
        signal_val[k++] = value;
    }
    for (uint32_t i = 0; i < nsignal - (s->timeline ? 1 : 0); i++, k++) {
        signal[k] = app->signal_semaphores[i];
        signal_val[k] = app->signal_values ? app->signal_values[i] : 0;
    }
    for (uint32_t i = 0; i < nwait; i++) {
        wait[i] = app->wait_semaphores[i];
        wait_val[i] = app->wait_values ? app->wait_values[i] : 0;
        stage[i] = app->wait_stages ? app->wait_stages[i] : VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    }
    /* Values go with the semaphores where one of them is a timeline (they are ignored for
     * binary ones); a submission of only binary semaphores takes none. */
    const bool values = s->timeline || (app && (app->wait_values || app->signal_values));
    VkTimelineSemaphoreSubmitInfo tsi = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                         .waitSemaphoreValueCount = nwait,
                                         .pWaitSemaphoreValues = wait_val,
                                         .signalSemaphoreValueCount = nsignal,
                                         .pSignalSemaphoreValues = signal_val};
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .pNext = values ? &tsi : NULL,
                       .waitSemaphoreCount = nwait,
                       .pWaitSemaphores = wait,
                       .pWaitDstStageMask = stage,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &cmd,
                       .signalSemaphoreCount = nsignal,
                       .pSignalSemaphores = signal};
    d->submitted = true;
    const VkResult r = d->vkd.QueueSubmit(d->queue, 1, &si, fence);
    dm_afree(d->host, heap);
    return r == VK_SUCCESS ? DMLOPS_SUCCESS : dm_vk_fail(&d->lost, r, "vkQueueSubmit", what);
}

void dm_vk_submitter_destroy(const dm_vk_device *d, dm_vk_submitter *s)
{
    dm_vk_free(d, &s->staging);
    if (s->fence) d->vkd.DestroyFence(d->device, s->fence, d->vk_alloc);
    if (s->timeline) d->vkd.DestroySemaphore(d->device, s->timeline, d->vk_alloc);
    s->timeline = VK_NULL_HANDLE;
    if (s->pool) d->vkd.DestroyCommandPool(d->device, s->pool, d->vk_alloc); /* frees cmd */
    s->fence = VK_NULL_HANDLE;
    s->pool = VK_NULL_HANDLE;
    s->cmd = VK_NULL_HANDLE;
}

dmlops_status dm_vk_begin(dm_vk_device *d, VkCommandBuffer cmd, bool once, const char *what)
{
    if (d->lost) return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost; the context is unusable", what);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = once ? VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT : 0};
    DM_VK_CALL(d, what, BeginCommandBuffer, (cmd, &bi));
    dm_vk_cmd_barrier(d, cmd, false);
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_submit_wait(dm_vk_device *d, dm_vk_submitter *s, VkCommandBuffer cmd, const char *what)
{
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    if (d->lost) return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost; the context is unusable", what);
    /* A failed submission leaves nothing queued (the fence stays unsignalled). */
    d->submitted = true;
    DM_VK_CALL(d, what, QueueSubmit, (d->queue, 1, &si, s->fence));
    VkResult r = d->vkd.WaitForFences(d->device, 1, &s->fence, VK_TRUE, UINT64_MAX);
    if (r != VK_SUCCESS && r != VK_ERROR_DEVICE_LOST) {
        /* The wait failed but the work may still be running, and the caller is about to
         * free what it uses: wait for the whole device instead. If even that fails,
         * nothing can be known to be idle, so the context is treated as lost. */
        const VkResult idle = d->vkd.DeviceWaitIdle(d->device);
        if (idle != VK_SUCCESS) {
            d->lost = true;
            return dm_fail(DMLOPS_ERROR_DEVICE_LOST,
                           "%s: vkWaitForFences failed: %s (%d), then vkDeviceWaitIdle: %s (%d); the context is unusable",
                           what, dm_vk_result_name(r), (int)r, dm_vk_result_name(idle), (int)idle);
        }
    }
    /* A fence left signalled would let the next wait return before its work is done. */
    const VkResult reset = r == VK_ERROR_DEVICE_LOST ? VK_SUCCESS : d->vkd.ResetFences(d->device, 1, &s->fence);
    if (r != VK_SUCCESS) return dm_vk_fail(&d->lost, r, "vkWaitForFences", what);
    if (reset != VK_SUCCESS) {
        d->lost = true;
        return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: vkResetFences failed: %s (%d); the context is unusable", what,
                       dm_vk_result_name(reset), (int)reset);
    }
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_end_submit_wait(dm_vk_device *d, dm_vk_submitter *s, VkCommandBuffer cmd, const char *what)
{
    DM_VK_CALL(d, what, EndCommandBuffer, (cmd));
    return dm_vk_submit_wait(d, s, cmd, what);
}

void dm_vk_cmd_barrier(const dm_vk_device *d, VkCommandBuffer cmd, bool to_host)
{
    VkMemoryBarrier mb = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = to_host ? VK_ACCESS_HOST_READ_BIT
                                 : VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                                       VK_ACCESS_TRANSFER_WRITE_BIT};
    VkPipelineStageFlags work = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    d->vkd.CmdPipelineBarrier(cmd, work, to_host ? VK_PIPELINE_STAGE_HOST_BIT : work, 0, 1, &mb, 0, NULL, 0, NULL);
}

void dm_vk_cmd_copy(const dm_vk_device *d, VkCommandBuffer cmd, const dm_vk_buffer *src, uint64_t s_at,
                    const dm_vk_buffer *dst, uint64_t d_at, uint64_t size)
{
    dm_vk_copy c;
    while (dm_vk_copy_next(src, &s_at, dst, &d_at, &size, &c)) d->vkd.CmdCopyBuffer(cmd, c.src, c.dst, 1, &c.region);
}
