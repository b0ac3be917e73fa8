/* The CPU backend: buffers are host memory and operators run their reference
 * semantics (op_*.c). It is the fallback when no Vulkan device exists. */
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

static uint8_t *dm_cpu_data(const dmlops_buffer *buf) { return buf->impl; }

static void dm_cpu_context_destroy(dmlops_context *ctx) { (void)ctx; }

static void dm_cpu_context_info(dmlops_context *ctx, dmlops_context_info *info) { (void)ctx; info->cpu_threads = 1; }

static dmlops_status dm_cpu_buffer_create(dmlops_buffer *buf)
{
    /* No host has 2^47 bytes to give; refusing early keeps allocators from aborting. */
    if (buf->size > (1ull << 47))
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY,
                       "dmlops_buffer_create: %llu bytes exceed what the CPU backend can allocate",
                       (unsigned long long)buf->size);
    buf->impl = calloc(1, (size_t)buf->size);
    if (!buf->impl)
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_buffer_create: cannot allocate %llu bytes of host memory",
                       (unsigned long long)buf->size);
    buf->resource = (uintptr_t)buf->impl;
    return DMLOPS_SUCCESS;
}

static void dm_cpu_buffer_destroy(dmlops_buffer *buf) { free(buf->impl); }

/* Host access waits for running executions, as on Vulkan: both take the context lock. */
static dmlops_status dm_cpu_buffer_write(dmlops_buffer *buf, uint64_t offset, const void *src, uint64_t size)
{
    pthread_mutex_lock(&buf->ctx->lock);
    memcpy(dm_cpu_data(buf) + offset, src, (size_t)size);
    pthread_mutex_unlock(&buf->ctx->lock);
    return DMLOPS_SUCCESS;
}

static dmlops_status dm_cpu_buffer_read(dmlops_buffer *buf, uint64_t offset, void *dst, uint64_t size)
{
    pthread_mutex_lock(&buf->ctx->lock);
    memcpy(dst, dm_cpu_data(buf) + offset, (size_t)size);
    pthread_mutex_unlock(&buf->ctx->lock);
    return DMLOPS_SUCCESS;
}

static dmlops_status dm_cpu_operator_create(dmlops_operator *op)
{
    op->info.planned_path = DMLOPS_PATH_CPU;
    return DMLOPS_SUCCESS;
}

static void dm_cpu_operator_destroy(dmlops_operator *op) { (void)op; }

static dmlops_status dm_cpu_operator_execute(dmlops_operator *op, const dmlops_binding *bind)
{
    uint8_t *base[DM_MAX_BINDINGS] = {0};
    for (uint32_t i = 0; i < op->op.input_count + op->op.output_count; i++)
        base[i] = dm_cpu_data(bind[i].buffer) + bind[i].offset;
    dm_op_run_cpu(&op->op, base);
    op->info.last_path = DMLOPS_PATH_CPU;
    return DMLOPS_SUCCESS;
}

static dmlops_status dm_cpu_list_create(dmlops_command_list *list) { (void)list; return DMLOPS_SUCCESS; }
static void dm_cpu_list_destroy(dmlops_command_list *list) { (void)list; }
static dmlops_status dm_cpu_list_record(dmlops_command_list *list, dm_list_entry *e) { (void)list; (void)e; return DMLOPS_SUCCESS; }
static void dm_cpu_list_reset(dmlops_command_list *list) { (void)list; }

static dmlops_status dm_cpu_list_execute(dmlops_command_list *list)
{
    for (uint32_t i = 0; i < list->count; i++) {
        const dm_list_entry *e = &list->entries[i];
        if (e->op) {
            DM_TRY(dm_cpu_operator_execute(e->op, e->bind));
        } else {
            memcpy(dm_cpu_data(e->copy_dst) + e->copy_dst_offset, dm_cpu_data(e->copy_src) + e->copy_src_offset,
                   (size_t)e->copy_size);
        }
    }
    list->stats.gpu_seconds = -1;
    return DMLOPS_SUCCESS;
}

const dm_backend_vtbl dm_cpu_vtbl = {
    .context_destroy = dm_cpu_context_destroy,
    .context_info = dm_cpu_context_info,
    .buffer_create = dm_cpu_buffer_create,
    .buffer_destroy = dm_cpu_buffer_destroy,
    .buffer_write = dm_cpu_buffer_write,
    .buffer_read = dm_cpu_buffer_read,
    .operator_create = dm_cpu_operator_create,
    .operator_destroy = dm_cpu_operator_destroy,
    .operator_execute = dm_cpu_operator_execute,
    .list_create = dm_cpu_list_create,
    .list_destroy = dm_cpu_list_destroy,
    .list_record = dm_cpu_list_record,
    .list_execute = dm_cpu_list_execute,
    .list_reset = dm_cpu_list_reset,
};

dmlops_status dm_cpu_context_init(dmlops_context *ctx)
{
    ctx->vt = &dm_cpu_vtbl;
    return DMLOPS_SUCCESS;
}
