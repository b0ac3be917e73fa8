/* Layer 6 of the Vulkan backend, beside submission: the access trace of a tracing context
 * (DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES, include/dmlops.h). Its kernels are the trace
 * builds (glsl/trace.glsl), which append one record per buffer access to the context's
 * record buffer; a traced command buffer first empties it (dm_vk_trace_begin), each
 * dispatch recorded into it is numbered by a tracer, which keeps its workgroup size, and
 * after the submission the records are read back and counted as a GPU's memory system
 * would see them (vk_trace_model.c). */
#ifndef DM_VK_TRACE_H
#define DM_VK_TRACE_H

#include "vk_submit.h"

/* Dispatches one traced submission can number: the record keeps 11 bits of it. */
#define DM_TRACE_MAX_DISPATCHES 2048u
/* Invocations of a warp, as NVIDIA's GPUs run them and Nsight Compute counts requests. */
#define DM_TRACE_WARP 32u

/* The context's record buffer: a 16-byte header (the count of records the kernels tried
 * to append) and `capacity` records of four words (glsl/trace.glsl). */
typedef struct dm_vk_trace {
    dm_vk_memory buf; /* host-visible and coherent: read through its mapping */
    uint64_t capacity;
} dm_vk_trace;

/* One traced recording: the dispatches in order with their workgroup sizes, and the
 * operations that moved memory without a traced kernel. */
typedef struct dm_vk_tracer {
    uint32_t dispatches;
    uint32_t untraced;
    uint32_t workgroup[DM_TRACE_MAX_DISPATCHES];
} dm_vk_tracer;

/* Checks that the device can bind the record buffer beside the kernels' four storage
 * buffers, and allocates it with room for `records` records (0: the default, or
 * $DMLOPS_VK_TRACE_RECORDS). */
dmlops_status dm_vk_trace_init(dm_vk_device *d, uint64_t records, dm_vk_trace *t);
void dm_vk_trace_free(const dm_vk_device *d, dm_vk_trace *t);
/* Records, at the start of a traced command buffer, the emptying of the record buffer
 * and a barrier before the kernels append to it; resets the tracer. */
void dm_vk_trace_begin(const dm_vk_device *d, VkCommandBuffer cmd, const dm_vk_trace *t, dm_vk_tracer *tr);
/* The number the next traced dispatch pushes (its tdispatch), noting its workgroup size.
 * Past DM_TRACE_MAX_DISPATCHES the numbers wrap and the analysis refuses the trace. */
static inline uint32_t dm_vk_tracer_dispatch(dm_vk_tracer *tr, uint32_t workgroup)
{
    const uint32_t i = tr->dispatches++;
    if (i < DM_TRACE_MAX_DISPATCHES) tr->workgroup[i] = workgroup;
    return i % DM_TRACE_MAX_DISPATCHES;
}
/* Reads the records of the finished submission back and counts them (vk_trace_model.c).
 * DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY when they did not fit the buffer; UNSUPPORTED past
 * DM_TRACE_MAX_DISPATCHES dispatches. */
dmlops_status dm_vk_trace_collect(const dm_vk_trace *t, const dm_vk_tracer *tr, dmlops_access_stats *out);

/* vk_trace_model.c: the counting itself, from `n` records of four words (glsl/trace.glsl)
 * and the tracer of their submission. Pure, so tests can feed it records of their own. */
dmlops_status dm_trace_model(const uint32_t *records, uint64_t n, const dm_vk_tracer *tr, dmlops_access_stats *out);

#endif
