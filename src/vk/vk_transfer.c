/* Host transfers: through mappings where the host sees the memory, else through a
 * reused staging buffer and a submission per chunk (vk_submit.h). */
#include <string.h>

#include "../checked.h"
#include "vk_submit.h"

enum { DM_STAGING_MAX = 64 << 20 };

/* Grows the staging buffer to hold `want` bytes (within [1 MiB, 64 MiB]); it is kept for
 * later transfers. */
static dmlops_status dm_vk_staging(dm_vk_device *d, dm_vk_submitter *s, uint64_t want)
{
    want = dm_min_u64(dm_max_u64(want, 1 << 20), DM_STAGING_MAX);
    if (s->staging.buffer && s->staging.size >= want) return DMLOPS_SUCCESS;
    dm_vk_free(d, &s->staging);
    return dm_vk_alloc(d, want, DM_VK_MEM_HOST, "allocating staging memory", &s->staging);
}

/* Moves bytes between host memory and (buffer, offset) through staging. Lock held. */
static dmlops_status dm_vk_staged(dm_vk_device *d, dm_vk_submitter *s, VkBuffer buffer, uint64_t offset, void *host,
                                  uint64_t size, bool to_device, const char *what)
{
    DM_TRY(dm_vk_staging(d, s, size));
    for (uint64_t done = 0; done < size;) {
        uint64_t n = dm_min_u64(size - done, s->staging.size);
        if (to_device) memcpy(s->staging.map, (uint8_t *)host + done, (size_t)n);
        DM_TRY(dm_vk_begin(d, s->cmd, true, what));
        VkBufferCopy region = {to_device ? 0 : offset + done, to_device ? offset + done : 0, n};
        d->vkd.CmdCopyBuffer(s->cmd, to_device ? s->staging.buffer : buffer, to_device ? buffer : s->staging.buffer, 1,
                             &region);
        dm_vk_cmd_barrier(d, s->cmd, true);
        DM_TRY(dm_vk_end_submit_wait(d, s, s->cmd, what));
        if (!to_device) memcpy((uint8_t *)host + done, s->staging.map, (size_t)n);
        done += n;
    }
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_upload(dm_vk_device *d, dm_vk_submitter *s, dm_vk_memory *m, uint64_t offset, const void *src,
                           uint64_t size, const char *what)
{
    if (m->map) {
        memcpy((uint8_t *)m->map + offset, src, (size_t)size);
        return DMLOPS_SUCCESS;
    }
    return dm_vk_staged(d, s, m->buffer, offset, (void *)(uintptr_t)src, size, true, what);
}

dmlops_status dm_vk_zero_unmapped(dm_vk_device *d, dm_vk_submitter *s, dm_vk_buffer *b, const char *what)
{
    dm_mutex_lock(s->lock);
    dmlops_status st = dm_vk_begin(d, s->cmd, true, what);
    if (st == DMLOPS_SUCCESS) {
        for (uint32_t i = 0; i < b->nseg; i++)
            if (!b->seg[i].map) d->vkd.CmdFillBuffer(s->cmd, b->seg[i].buffer, 0, VK_WHOLE_SIZE, 0);
        dm_vk_cmd_barrier(d, s->cmd, false);
        st = dm_vk_end_submit_wait(d, s, s->cmd, what);
    }
    dm_mutex_unlock(s->lock);
    return st;
}

dmlops_status dm_vk_host_io(dm_vk_device *d, dm_vk_submitter *s, dm_vk_buffer *b, uint64_t offset, void *host,
                            uint64_t size, bool to_device)
{
    const char *what = to_device ? "dmlops_buffer_write" : "dmlops_buffer_read";
    dmlops_status st = DMLOPS_SUCCESS;
    dm_mutex_lock(s->lock);
    if (d->lost) st = dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost", what);
    /* Segment by segment: each is its own VkBuffer and mapping. */
    for (uint64_t done = 0; done < size && st == DMLOPS_SUCCESS;) {
        uint64_t inner;
        const dm_vk_memory *m = dm_vk_at(b, offset + done, &inner);
        uint64_t n = dm_min_u64(size - done, dm_vk_seg_room(b, offset + done));
        uint8_t *h = (uint8_t *)host + done;
        if (m->map) {
            if (to_device) memcpy((uint8_t *)m->map + inner, h, (size_t)n);
            else memcpy(h, (uint8_t *)m->map + inner, (size_t)n);
        } else if (!b->transfer) {
            st = dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                         "%s: the wrapped VkBuffer lacks TRANSFER_SRC and TRANSFER_DST usage, so the host cannot reach it",
                         what);
        } else {
            st = dm_vk_staged(d, s, m->buffer, inner, h, n, to_device, what);
        }
        done += n;
    }
    dm_mutex_unlock(s->lock);
    return st;
}

dmlops_status dm_vk_transfer_record(dm_vk_device *d, const dm_vk_buffer *b, uint64_t offset, uint64_t size,
                                    const void *src, bool to_device, VkCommandBuffer cmd, dm_vk_buffer *staging,
                                    const char *what)
{
    memset(staging, 0, sizeof *staging);
    if (!b->transfer)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                       "%s: the wrapped VkBuffer lacks TRANSFER_SRC and TRANSFER_DST usage, so it cannot be copied to "
                       "or from staging",
                       what);
    if (size) DM_TRY(dm_vk_staging_alloc(d, size, what, staging));
    if (size && to_device) dm_vk_staging_copy(staging, (void *)(uintptr_t)src, size, true);
    dmlops_status st = dm_vk_begin(d, cmd, true, what);
    if (st == DMLOPS_SUCCESS) {
        if (size && to_device) dm_vk_cmd_copy(d, cmd, staging, 0, b, offset, size);
        if (size && !to_device) dm_vk_cmd_copy(d, cmd, b, offset, staging, 0, size);
        dm_vk_cmd_barrier(d, cmd, true);
        const VkResult r = d->vkd.EndCommandBuffer(cmd);
        if (r != VK_SUCCESS) st = dm_vk_fail(&d->lost, r, "vkEndCommandBuffer", what);
    }
    if (st != DMLOPS_SUCCESS) dm_vk_buffer_free(d, staging);
    return st;
}
