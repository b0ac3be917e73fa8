/* The Vulkan backend's submissions (vk_execute.h; internal.h, dm_sub): each is one
 * vkQueueSubmit of a command buffer, which signals the context's timeline semaphore
 * (value: its ticket) where the device has one, else a VkFence of its own. A submission's
 * command buffer and fence are made with it and kept for its next use, so that executions
 * after the first allocate nothing. Everything here runs under the context lock, but the
 * wait, which reads only the fence or the timeline value. */
#include <stdlib.h>
#include <string.h>

#include "vk_execute.h"
#include "dmlops_vulkan.h" /* after volk.h: dmlops_vulkan_semaphores */
#include "../fault.h"

/* The application's semaphores: interop contexts only, arrays for their counts. */
static dmlops_status dm_vk_check_semaphores(const dm_vk_device *d, const char *fn, const dmlops_vulkan_semaphores *s)
{
    if (d->owned)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                       "%s: a dmlops_vulkan_semaphores is chained, but the context runs on a device of libdmlops's own, "
                       "which the application's semaphores do not belong to (only interop contexts take them)",
                       fn);
    if ((s->wait_count && !s->wait_semaphores) || (s->signal_count && !s->signal_semaphores))
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                       "%s: dmlops_vulkan_semaphores: wait_count = %u with wait_semaphores %s, signal_count = %u with "
                       "signal_semaphores %s",
                       fn, s->wait_count, s->wait_semaphores ? "set" : "NULL", s->signal_count,
                       s->signal_semaphores ? "set" : "NULL");
    return DMLOPS_SUCCESS;
}

/* Records the submission's work into its command buffer (or, for a list, the list's). */
static dmlops_status dm_vk_sub_record(dm_sub *s, dm_vk_sub *vs, VkCommandBuffer *cmd)
{
    dm_vk_ctx *vk = dm_vk(s->ctx);
    /* Slab copies read AUX data on the host now: only when no earlier work may write it. */
    const bool may_read_aux = s->ctx->oldest == NULL;
    *cmd = vs->cmd;
    switch (s->kind) {
    case DM_SUB_OPERATOR: return dm_vk_operator_record(s->op, s->bind, may_read_aux, vs->cmd, &vs->table);
    case DM_SUB_LIST: return dm_vk_list_prepare(s->list, may_read_aux, cmd);
    case DM_SUB_WRITE:
    case DM_SUB_READ:
        return dm_vk_transfer_record(&vk->dev, dm_vkbuf(s->bind[0].buffer), s->offset, s->size, s->host,
                                     s->kind == DM_SUB_WRITE, vs->cmd, &vs->staging, s->fn);
    }
    return DMLOPS_SUCCESS;
}

/* Gives back what the submission took: its table, its staging. */
static void dm_vk_sub_let_go(dm_sub *s, dm_vk_sub *vs)
{
    if (vs->table) dm_vk_operator_table_put(s->op, vs->table);
    vs->table = NULL;
    dm_vk_buffer_free(&dm_vk(s->ctx)->dev, &vs->staging);
}

dmlops_status dm_vk_sub_start(dm_sub *s)
{
    dm_vk_ctx *vk = dm_vk(s->ctx);
    dm_vk_device *d = &vk->dev;
    dm_vk_sub *vs = s->impl;
    const dmlops_vulkan_semaphores *sems = s->ext->vulkan_semaphores;
    if (d->lost) return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost; the context is unusable", s->fn);
    if (sems) DM_TRY(dm_vk_check_semaphores(d, s->fn, sems));
    if (!vs->cmd) {
        VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                           .commandPool = vk->sub.pool,
                                           .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                           .commandBufferCount = 1};
        DM_VK_CALL(d, s->fn, AllocateCommandBuffers, (d->device, &cai, &vs->cmd));
    }
    if (!vk->sub.timeline && !vs->fence) {
        VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        DM_VK_CALL(d, s->fn, CreateFence, (d->device, &fci, d->vk_alloc, &vs->fence));
        vs->fence_used = false;
    }
    if (vs->fence && vs->fence_used) {
        DM_VK_CALL(d, s->fn, ResetFences, (d->device, 1, &vs->fence));
        vs->fence_used = false;
    }
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    dmlops_status st = dm_vk_sub_record(s, vs, &cmd);
    vs->value = s->ticket;
    if (st == DMLOPS_SUCCESS) st = dm_vk_queue_submit(d, &vk->sub, cmd, sems, vs->value, vs->fence, s->fn);
    if (st != DMLOPS_SUCCESS) {
        dm_vk_sub_let_go(s, vs);
        if (s->kind == DM_SUB_OPERATOR) return dm_fail_prefix(st, "%s", s->op->op.name);
        return st;
    }
    vs->fence_used = vs->fence != VK_NULL_HANDLE;
    if (vk->sub.timeline) {
        _Static_assert(sizeof vk->sub.timeline == sizeof s->semaphore, "a VkSemaphore is 8 bytes");
        memcpy(&s->semaphore, &vk->sub.timeline, sizeof s->semaphore);
        s->value = vs->value;
    }
    if (vs->table) dm_vk_note_path(vs->table);
    return DMLOPS_SUCCESS;
}

/* After a failed wait the work may still run, and what it uses is about to be let go:
 * wait for the queue instead (under the lock, which serialises the queue); if even that
 * fails, nothing can be known to be idle and the context is taken as lost. */
static dmlops_status dm_vk_wait_failed(dm_sub *s, VkResult r, const char *call)
{
    dm_vk_device *d = &dm_vk(s->ctx)->dev;
    dm_mutex_lock(&s->ctx->lock);
    const VkResult idle = d->owned ? d->vkd.DeviceWaitIdle(d->device) : d->vkd.QueueWaitIdle(d->queue);
    dm_mutex_unlock(&s->ctx->lock);
    if (idle != VK_SUCCESS) {
        d->lost = true;
        return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s failed: %s (%d), then %s: %s (%d); the context is unusable", call,
                       dm_vk_result_name(r), (int)r, d->owned ? "vkDeviceWaitIdle" : "vkQueueWaitIdle",
                       dm_vk_result_name(idle), (int)idle);
    }
    return dm_vk_fail(&d->lost, r, call, "waiting for a submission");
}

dmlops_status dm_vk_sub_wait(dm_sub *s, uint64_t timeout_ns)
{
    dm_vk_ctx *vk = dm_vk(s->ctx);
    dm_vk_device *d = &vk->dev;
    const dm_vk_sub *vs = s->impl;
    if (d->lost) return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "the device was lost; the context is unusable");
    VkResult r;
    const char *call;
    if (vk->sub.timeline) {
        const VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                                        .semaphoreCount = 1,
                                        .pSemaphores = &vk->sub.timeline,
                                        .pValues = &vs->value};
        r = d->vkd.WaitSemaphores(d->device, &wi, timeout_ns);
        call = "vkWaitSemaphores";
    } else {
        r = d->vkd.WaitForFences(d->device, 1, &vs->fence, VK_TRUE, timeout_ns);
        call = "vkWaitForFences";
    }
    if (r == VK_SUCCESS) return DMLOPS_SUCCESS;
    if (r == VK_TIMEOUT) return DMLOPS_TIMEOUT;
    if (r == VK_ERROR_DEVICE_LOST) return dm_vk_fail(&d->lost, r, call, "waiting for a submission");
    return dm_vk_wait_failed(s, r, call);
}

bool dm_vk_sub_done(dm_sub *s, dmlops_status *status)
{
    dm_vk_ctx *vk = dm_vk(s->ctx);
    dm_vk_device *d = &vk->dev;
    const dm_vk_sub *vs = s->impl;
    *status = DMLOPS_SUCCESS;
    VkResult r = VK_SUCCESS;
    if (!d->lost && vk->sub.timeline) {
        uint64_t value = 0;
        r = d->vkd.GetSemaphoreCounterValue(d->device, vk->sub.timeline, &value);
        if (r == VK_SUCCESS) return value >= vs->value;
    } else if (!d->lost) {
        r = d->vkd.GetFenceStatus(d->device, vs->fence);
        if (r == VK_SUCCESS) return true;
        if (r == VK_NOT_READY) return false;
    }
    if (d->lost || r == VK_ERROR_DEVICE_LOST) {
        d->lost = true; /* nothing more will run: everything in flight ends so */
        if (!vk->idle_after_loss) {
            /* What was submitted before the loss may still run in the driver: before any of
             * it is let go, wait for the queue once (a lost device answers at once). Under
             * the lock, which serialises the queue. */
            (void)(d->owned ? d->vkd.DeviceWaitIdle(d->device) : d->vkd.QueueWaitIdle(d->queue));
            vk->idle_after_loss = true;
        }
        *status = DMLOPS_ERROR_DEVICE_LOST;
        return true;
    }
    return false; /* the query failed: not known, asked again later */
}

void dm_vk_sub_retire(dm_sub *s)
{
    dm_vk_sub *vs = s->impl;
    if (s->status == DMLOPS_SUCCESS && s->kind == DM_SUB_READ && s->size)
        dm_vk_staging_copy(&vs->staging, s->host, s->size, false);
    if (s->status == DMLOPS_SUCCESS && s->kind == DM_SUB_LIST) dm_vk_list_completed(s->list);
    dm_vk_sub_let_go(s, vs);
}

void dm_vk_sub_free(dm_sub *s)
{
    const dm_vk_device *d = &dm_vk(s->ctx)->dev;
    const dm_vk_sub *vs = s->impl;
    if (vs->fence) d->vkd.DestroyFence(d->device, vs->fence, d->vk_alloc);
    /* The command buffer goes with the submitter's pool. */
}
