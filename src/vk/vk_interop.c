/* Layer 12 of the Vulkan backend, the top: the public Vulkan interop API
 * (dmlops_vulkan.h). Contexts on the application's instance, device and queue; buffers
 * wrapping its VkBuffers; and recording into its command buffers through binding tables,
 * like IDMLBindingTable and IDMLCommandRecorder::RecordDispatch. It sits above the
 * backend table because a context it makes installs that table. */
#include <stdlib.h>
#include <string.h>

#include "vk_backend.h"
#include "dmlops_vulkan.h" /* after volk.h (vk_functions.h) */

#include "../fault.h"

dmlops_status dmlops_context_create_vulkan(const dmlops_vulkan_context_desc *desc, dmlops_context **out)
{
    const char *fn = "dmlops_context_create_vulkan";
    DM_CHECK_ARG(desc, "dmlops_context_create_vulkan");
    DM_CHECK_ARG(out, "dmlops_context_create_vulkan");
    *out = NULL;
    if (!desc->instance || !desc->physical_device || !desc->device || !desc->queue)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: instance, physical_device, device and queue are all required", fn);
    if (desc->api_version && desc->api_version < VK_API_VERSION_1_1)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: api_version %u.%u is below the Vulkan 1.1 libdmlops needs", fn,
                       VK_API_VERSION_MAJOR(desc->api_version), VK_API_VERSION_MINOR(desc->api_version));
    const uint32_t known = DMLOPS_CONTEXT_FLAG_KERNELS_ONLY | DMLOPS_CONTEXT_FLAG_PREFER_COPY | DMLOPS_CONTEXT_FLAG_QUIET;
    if (desc->flags & ~known)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: flags = 0x%x has bits that do not apply to interop contexts",
                       fn, desc->flags);
    DML_FEATURE_LEVEL level;
    DM_TRY(dm_feature_level_normalize(desc->feature_level, &level));
    PFN_vkGetInstanceProcAddr gipa = desc->get_instance_proc_addr;
    if (!gipa) DM_TRY(dm_vk_loader(&gipa));

    dmlops_context *ctx = NULL;
    DM_TRY(dm_context_alloc(level, desc->flags, &ctx));
    dm_vk_ctx *vk = dm_calloc(1, sizeof *vk);
    if (!vk) {
        dm_context_free(ctx);
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
    }
    dmlops_status st = dm_vk_device_adopt(&vk->dev, gipa, desc->instance, desc->physical_device, desc->device,
                                          desc->queue, desc->queue_family_index, fn);
    dm_vk_params params = {.pipeline_cache_path = desc->pipeline_cache_path ? desc->pipeline_cache_path
                                                                             : getenv("DMLOPS_PIPELINE_CACHE")};
    dm_env_vk_tuning(&params);
    if (st == DMLOPS_SUCCESS) st = dm_vk_context_setup(ctx, vk, &params);
    if (st != DMLOPS_SUCCESS) {
        dm_vk_context_teardown(vk); /* owns neither device nor instance: frees ours only */
        dm_context_free(ctx);
        return st;
    }
    ctx->impl = vk;
    ctx->backend = DMLOPS_BACKEND_VULKAN;
    char why[512] = "the application's device, given to dmlops_context_create_vulkan";
    const size_t used = strlen(why);
    dm_vk_tuning_note(ctx, &params, why + used, sizeof why - used);
    dm_note_choice(ctx, why);
    /* Tuning from the environment, as for dmlops_context_create (src/tuning.h). */
    st = dm_tuning_apply_options(ctx, NULL);
    if (st != DMLOPS_SUCCESS) {
        dmlops_context_destroy(ctx);
        return st;
    }
    *out = ctx;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_buffer_wrap_vulkan(dmlops_context *ctx, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                                        VkBufferUsageFlags usage, dmlops_buffer **out)
{
    const char *fn = "dmlops_buffer_wrap_vulkan";
    DM_CHECK_ARG(ctx, "dmlops_buffer_wrap_vulkan");
    DM_CHECK_ARG(out, "dmlops_buffer_wrap_vulkan");
    *out = NULL;
    if (ctx->backend != DMLOPS_BACKEND_VULKAN)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: the context runs on the CPU backend", fn);
    DM_TRY(dm_check_lost(ctx, fn));
    if (!buffer) return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: buffer is VK_NULL_HANDLE", fn);
    if (!size || offset % 16)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: offset = %llu must be a multiple of 16 and size = %llu non-zero",
                       fn, (unsigned long long)offset, (unsigned long long)size);
    /* The range must be addressable: every later range check (bindings, overlaps,
     * copies) adds to offset + size and relies on it not wrapping. */
    if (size > UINT64_MAX - offset)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: offset = %llu + size = %llu is past 2^64", fn,
                       (unsigned long long)offset, (unsigned long long)size);
    if (!(usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT))
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: usage 0x%x lacks VK_BUFFER_USAGE_STORAGE_BUFFER_BIT", fn,
                       (unsigned)usage);
    dmlops_buffer *buf = dm_calloc(1, sizeof *buf);
    dm_vk_buffer *b = dm_calloc(1, sizeof *b);
    if (!buf || !b) {
        free(buf);
        free(b);
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
    }
    const VkBufferUsageFlags both = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    dm_vk_buffer_wrap(buffer, offset, (usage & both) == both, (usage & DM_VK_TEXEL_USAGE) == DM_VK_TEXEL_USAGE, b);
    buf->ctx = ctx;
    buf->size = size;
    buf->impl = b;
    buf->resource = (uintptr_t)buffer;
    buf->resource_offset = offset;
    *out = buf;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_buffer_get_vulkan(const dmlops_buffer *buf, VkBuffer *buffer, VkDeviceSize *offset)
{
    DM_CHECK_ARG(buf, "dmlops_buffer_get_vulkan");
    DM_CHECK_ARG(buffer, "dmlops_buffer_get_vulkan");
    if (buf->ctx->backend != DMLOPS_BACKEND_VULKAN)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "dmlops_buffer_get_vulkan: the buffer lives on the CPU backend");
    if (dm_vkbuf(buf)->nseg > 1)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                       "dmlops_buffer_get_vulkan: the buffer's %llu bytes span %u allocations (the device allocates at "
                       "most %llu bytes at once), so no single VkBuffer holds it",
                       (unsigned long long)buf->size, dm_vkbuf(buf)->nseg, (unsigned long long)dm_vkbuf(buf)->seg_size);
    *buffer = dm_vkbuf(buf)->one.buffer;
    if (offset) *offset = dm_vkbuf(buf)->offset;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_binding_table_create(dmlops_operator *op, dmlops_binding_table **out)
{
    DM_CHECK_ARG(op, "dmlops_binding_table_create");
    DM_CHECK_ARG(out, "dmlops_binding_table_create");
    *out = NULL;
    if (op->ctx->backend != DMLOPS_BACKEND_VULKAN)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "dmlops_binding_table_create: the operator runs on the CPU backend");
    DM_TRY(dm_check_lost(op->ctx, "dmlops_binding_table_create"));
    dmlops_binding_table *t;
    DM_TRY(dm_vk_table_create(op, 0, &t));
    /* The table holds its operator, as command lists do: dmlops_operator_destroy before
     * the table's destroy only drops the application's reference. */
    dm_operator_retain(op);
    t->op = op;
    *out = t;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_binding_table_bind(dmlops_binding_table *table, uint32_t input_count, const dmlops_binding *inputs,
                                        uint32_t output_count, const dmlops_binding *outputs)
{
    dmlops_binding bound[DM_MAX_BINDINGS];
    DM_CHECK_ARG(table, "dmlops_binding_table_bind");
    DM_TRY(dm_check_lost(table->op->ctx, "dmlops_binding_table_bind"));
    DM_TRY(dm_check_bindings(table->op, input_count, inputs, output_count, outputs, bound));
    return dm_vk_table_bind(table, table->op, bound);
}

void dmlops_binding_table_destroy(dmlops_binding_table *table)
{
    if (!table) return;
    dmlops_operator *op = table->op;
    dm_vk_table_destroy(table);
    dm_operator_release(op);
}

dmlops_status dmlops_operator_record_vulkan(dmlops_binding_table *table, VkCommandBuffer cmd)
{
    DM_CHECK_ARG(table, "dmlops_operator_record_vulkan");
    DM_CHECK_ARG(cmd, "dmlops_operator_record_vulkan");
    DM_TRY(dm_check_lost(table->op->ctx, "dmlops_operator_record_vulkan"));
    if (!table->bound)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "dmlops_operator_record_vulkan: the binding table has no bindings yet "
                       "(call dmlops_binding_table_bind)");
    dm_vk_record(table, cmd, NULL); /* interop contexts never trace */
    dm_mutex_lock(&table->op->ctx->lock); /* dmlops_operator_get_info reads the path under it */
    dm_vk_note_path(table);
    dm_mutex_unlock(&table->op->ctx->lock);
    return DMLOPS_SUCCESS;
}
