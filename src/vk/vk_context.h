/* The Vulkan state one dmlops_context owns: the device (layers 2-4), what it submits
 * with (layer 6) and its pipelines (layer 7). Layers 9-12 work on it; the planner
 * (layer 8) does not see it. Made and destroyed in vk_backend.c. */
#ifndef DM_VK_CONTEXT_H
#define DM_VK_CONTEXT_H

#include "vk_pipeline.h"
#include "vk_submit.h"
#include "vk_trace.h"

struct dm_vk_tuner;
struct dm_vk_tune_job;

typedef struct dm_vk_ctx {
    dm_vk_device dev;
    dm_count64 device_bytes;       /* of every allocation on dev (dev.device_bytes points here) */
    bool idle_after_loss;  /* the queue was waited for once the device was lost (vk_sub.c), under the lock */
    dm_vk_submitter sub;
    dm_vk_pipelines pipes;
    dm_vk_memory dummy; /* bound to the slots a gather does not use */
    VkBufferView dummy_view; /* the same, for texel bindings with no whole texel to see */
    VkBufferView dummy_word_view; /* and as R32_UINT texels, for AUX_TEXEL and SRC_WORD_TEXEL */
    dm_vk_trace trace;       /* a tracing context's record buffer (pipes.trace); empty otherwise */
    dm_vk_tracer *tracer;    /* dmlops_operator_execute's recordings on a tracing context */
    /* Tuning (vk_tune.h): the tuning values the context was created with (its defaults,
     * pointers cleared), the tuner when tuning is on, and how a class is measured. */
    dm_vk_params params;
    struct dm_vk_tuner *tuner;
    dmlops_status (*tune_measure)(struct dm_vk_tune_job *job);
} dm_vk_ctx;

static inline dm_vk_ctx *dm_vk(const dmlops_context *ctx) { return ctx->impl; }
static inline dm_vk_buffer *dm_vkbuf(const dmlops_buffer *b) { return b->impl; }

#endif
