/* Layer 6 of the Vulkan backend: submission. Beginning, submitting and waiting for
 * command buffers, the barriers and copies recorded into them (vk_submit.c), and the
 * host transfers built on them: staging, zero-filling (vk_transfer.c). Every command
 * buffer of ours starts with a barrier that orders it after the work of earlier
 * submissions, and ends with one that makes its writes visible to the host. */
#ifndef DM_VK_SUBMIT_H
#define DM_VK_SUBMIT_H

#include "../platform/platform.h"

#include "vk_memory.h"

/* What a context submits with. Two kinds of submission share the queue: the context's
 * own short jobs (staging transfers, zero-filling, parameter uploads), each waited for
 * under the lock on `fence`; and the submissions of the front end (dm_sub: executions,
 * asynchronous transfers), in flight until retired, each with a command buffer of `pool`
 * and a VkFence of its own, or a value of `timeline`. */
typedef struct dm_vk_submitter {
    VkCommandPool pool;    /* for cmd, and every submission's command buffer */
    VkCommandBuffer cmd;   /* the context's own synchronous jobs */
    VkFence fence;         /* what those jobs wait on */
    VkSemaphore timeline;  /* signalled by every submission where the device has timeline
                              semaphores (value: its ticket); VK_NULL_HANDLE otherwise */
    dm_vk_memory staging;  /* host transfers go through it where the host maps nothing */
    dm_mutex *lock; /* the dmlops_context's: serialises the queue, the pool and staging */
} dm_vk_submitter;

/* One vkQueueSubmit of cmd: waiting on and signalling the application's semaphores (sems,
 * a dmlops_vulkan_semaphores, or NULL), signalling `value` on the timeline (when the
 * submitter has one), and `fence` (or VK_NULL_HANDLE). Lock held. `what` names the call. */
dmlops_status dm_vk_queue_submit(dm_vk_device *d, const dm_vk_submitter *s, VkCommandBuffer cmd, const void *sems,
                                 uint64_t value, VkFence fence, const char *what);

/* vk_submit.c */
/* A command pool whose buffers may be reset, and one primary command buffer from it. */
dmlops_status dm_vk_command_pool(dm_vk_device *d, VkCommandPool *pool, VkCommandBuffer *cmd, const char *what);
dmlops_status dm_vk_submitter_init(dm_vk_device *d, dm_mutex *lock, dm_vk_submitter *s);
void dm_vk_submitter_destroy(const dm_vk_device *d, dm_vk_submitter *s);

/* Begins cmd (once: it is submitted only once) with the leading barrier; fails at once
 * on a lost device. */
dmlops_status dm_vk_begin(dm_vk_device *d, VkCommandBuffer cmd, bool once, const char *what);
/* Submits an ended cmd, waits for it and resets the fence. Lock held. */
dmlops_status dm_vk_submit_wait(dm_vk_device *d, dm_vk_submitter *s, VkCommandBuffer cmd, const char *what);
/* Ends cmd, then dm_vk_submit_wait. Lock held. */
dmlops_status dm_vk_end_submit_wait(dm_vk_device *d, dm_vk_submitter *s, VkCommandBuffer cmd, const char *what);

/* A global barrier from transfer and shader writes to every later transfer and shader
 * access, or (to_host) to host reads. */
void dm_vk_cmd_barrier(const dm_vk_device *d, VkCommandBuffer cmd, bool to_host);
/* vkCmdCopyBuffer of size bytes between buffer offsets, split at segment boundaries. */
void dm_vk_cmd_copy(const dm_vk_device *d, VkCommandBuffer cmd, const dm_vk_buffer *src, uint64_t s_at,
                    const dm_vk_buffer *dst, uint64_t d_at, uint64_t size);

/* vk_transfer.c */
/* Writes size bytes at offset of m: through the mapping, else through staging. Lock held. */
dmlops_status dm_vk_upload(dm_vk_device *d, dm_vk_submitter *s, dm_vk_memory *m, uint64_t offset, const void *src,
                           uint64_t size, const char *what);
/* Zero-fills the segments of b that the host cannot reach, with one submission. Takes
 * the lock. */
dmlops_status dm_vk_zero_unmapped(dm_vk_device *d, dm_vk_submitter *s, dm_vk_buffer *b, const char *what);
/* Records into cmd (begun and ended here) an asynchronous transfer of size bytes
 * between bytes [offset, ...) of b and new staging memory, *staging (freed by the caller
 * once the submission completed): to the device, the staging is filled from src first;
 * from it, the caller copies out of the staging after completion (dm_vk_staging_copy).
 * UNSUPPORTED for a wrapped buffer without TRANSFER usage. `what` names the call. */
dmlops_status dm_vk_transfer_record(dm_vk_device *d, const dm_vk_buffer *b, uint64_t offset, uint64_t size,
                                    const void *src, bool to_device, VkCommandBuffer cmd, dm_vk_buffer *staging,
                                    const char *what);
/* Copies between host memory and bytes [offset, offset + size) of b, segment by
 * segment: through mappings where there are some, else through staging. Takes the lock. */
dmlops_status dm_vk_host_io(dm_vk_device *d, dm_vk_submitter *s, dm_vk_buffer *b, uint64_t offset, void *host,
                            uint64_t size, bool to_device);

#endif
