/* The access trace's record buffer and its use in a submission (vk_trace.h). */
#include <stdlib.h>
#include <string.h>

#include "vk_trace.h"

/* 4 Mi records of 16 bytes: 64 MiB of host memory, room for a 1 MiB operator on the
 * general path a byte at a time (a length, an element and two atomics per byte). */
#define DM_TRACE_DEFAULT_RECORDS (4ull << 20)
/* The most DMLOPS_VK_TRACE_RECORDS may ask for: 2^28 records (4 GiB); the kernels count
 * records in 32 bits. */
#define DM_TRACE_MAX_RECORDS (1ull << 28)

dmlops_status dm_vk_trace_init(dm_vk_device *d, uint64_t records, dm_vk_trace *t)
{
    VkPhysicalDeviceProperties p;
    d->inst.vki.GetPhysicalDeviceProperties(d->phys, &p);
    /* The kernels bind four storage buffers (the spec's minimum per stage); the record
     * buffer is a fifth. */
    if (p.limits.maxPerStageDescriptorStorageBuffers < 5 || p.limits.maxDescriptorSetStorageBuffers < 5)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                       "DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES: %s binds %u storage buffers per stage and %u per set; the "
                       "trace needs 5",
                       d->info.name, p.limits.maxPerStageDescriptorStorageBuffers,
                       p.limits.maxDescriptorSetStorageBuffers);
    if (!records) {
        const char *env = getenv("DMLOPS_VK_TRACE_RECORDS");
        char *end = NULL;
        const unsigned long long v = env && *env ? strtoull(env, &end, 10) : 0;
        records = end && !*end && v >= 1 && v <= DM_TRACE_MAX_RECORDS ? v : DM_TRACE_DEFAULT_RECORDS;
    }
    const uint64_t bytes = 16 + records * 16;
    if (bytes > p.limits.maxStorageBufferRange)
        records = (p.limits.maxStorageBufferRange - 16) / 16;
    DM_TRY(dm_vk_alloc(d, 16 + records * 16, DM_VK_MEM_HOST, "allocating the access trace", &t->buf));
    if (!t->buf.map) {
        dm_vk_free(d, &t->buf);
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                       "DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES: %s has no host-visible coherent memory for the trace",
                       d->info.name);
    }
    t->capacity = records;
    return DMLOPS_SUCCESS;
}

void dm_vk_trace_free(const dm_vk_device *d, dm_vk_trace *t)
{
    dm_vk_free(d, &t->buf);
    t->capacity = 0;
}

void dm_vk_trace_begin(const dm_vk_device *d, VkCommandBuffer cmd, const dm_vk_trace *t, dm_vk_tracer *tr)
{
    tr->dispatches = tr->untraced = 0;
    d->vkd.CmdFillBuffer(cmd, t->buf.buffer, 0, 16, 0);
    dm_vk_cmd_barrier(d, cmd, false);
}

dmlops_status dm_vk_trace_collect(const dm_vk_trace *t, const dm_vk_tracer *tr, dmlops_access_stats *out)
{
    const uint32_t *words = t->buf.map;
    /* The 32-bit counter may wrap past 2^32 accesses: the kernels flag any count past 2^31
     * (glsl/trace.glsl), which is more than any buffer holds. */
    const uint64_t count = words[1] ? UINT64_MAX : words[0];
    if (words[1])
        return dm_fail(DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY,
                       "the access trace holds %llu records and the execution made more than 2^31: trace a smaller operator",
                       (unsigned long long)t->capacity);
    if (count > t->capacity)
        return dm_fail(DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY,
                       "the access trace holds %llu records and the execution made %llu: set "
                       "DMLOPS_VK_TRACE_RECORDS=%llu (or more) before creating the context, or trace a smaller operator",
                       (unsigned long long)t->capacity, (unsigned long long)count, (unsigned long long)count);
    return dm_trace_model(words + 4, count, tr, out);
}
