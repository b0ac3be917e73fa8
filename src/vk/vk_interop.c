/* Layer 12 of the Vulkan backend, the top: the public Vulkan interop API
 * (dmlops_vulkan.h). Contexts on the application's instance, device and queue; buffers
 * wrapping its VkBuffers; and recording into its command buffers through binding tables,
 * like IDMLBindingTable and IDMLCommandRecorder::RecordDispatch. It sits above the
 * backend table because a context it makes installs that table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_backend.h"
#include "dmlops_vulkan.h" /* after volk.h (vk_functions.h) */

#include "../fault.h"

/* Creates an interop context from info (every entry point's fields, in one place). */
static dmlops_status dm_vk_interop_create(const char *fn, const char *what, const dmlops_vulkan_context_create_info *info,
                                          const dm_create_ext *ext, dmlops_context **out)
{
    if (!info->instance || !info->physical_device || !info->device || !info->queue)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: instance, physical_device, device and queue are all required", fn);
    if (info->api_version && info->api_version < VK_API_VERSION_1_1)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: api_version %u.%u is below the Vulkan 1.1 libdmlops needs", fn,
                       VK_API_VERSION_MAJOR(info->api_version), VK_API_VERSION_MINOR(info->api_version));
    const uint32_t known = DMLOPS_CONTEXT_FLAG_KERNELS_ONLY | DMLOPS_CONTEXT_FLAG_PREFER_COPY | DMLOPS_CONTEXT_FLAG_QUIET;
    if (info->flags & ~known)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s.flags = 0x%x has bits that do not apply to interop contexts",
                       fn, what, info->flags);
    const uint32_t features = DMLOPS_VULKAN_DEVICE_FEATURE_TIMELINE_SEMAPHORE |
                              DMLOPS_VULKAN_DEVICE_FEATURE_EXTERNAL_MEMORY_FD |
                              DMLOPS_VULKAN_DEVICE_FEATURE_EXTERNAL_MEMORY_DMA_BUF;
    if (info->device_features & ~features)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s.device_features = 0x%x has unknown bits", fn, what,
                       info->device_features);
    DML_FEATURE_LEVEL level;
    if (dm_feature_level_normalize(info->feature_level, &level) != DMLOPS_SUCCESS)
        return dm_fail_prefix(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s.feature_level", fn, what);
    PFN_vkGetInstanceProcAddr gipa = info->get_instance_proc_addr;
    if (!gipa) DM_TRY(dm_vk_loader(&gipa));

    dmlops_context *ctx = NULL;
    DM_TRY(dm_context_alloc(level, info->flags, ext, &ctx));
    dm_vk_ctx *vk = dm_zalloc(&ctx->alloc, 1, sizeof *vk);
    if (vk) {
        vk->dev.host = &ctx->alloc;
        vk->dev.device_bytes = &vk->device_bytes;
    }
    if (!vk) {
        dm_context_free(ctx);
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
    }
    dmlops_status st = dm_vk_take_allocation_callbacks(&vk->dev, ext->vulkan_alloc, fn);
    if (st == DMLOPS_SUCCESS)
        st = dm_vk_device_adopt(&vk->dev, gipa, info->instance, info->physical_device, info->device, info->queue,
                                info->queue_family_index, fn);
    if (st == DMLOPS_SUCCESS && (info->device_features & DMLOPS_VULKAN_DEVICE_FEATURE_TIMELINE_SEMAPHORE))
        st = dm_vk_device_adopt_timeline(&vk->dev, info->api_version, fn);
    if (st == DMLOPS_SUCCESS) {
        vk->dev.external_fd = (info->device_features & (DMLOPS_VULKAN_DEVICE_FEATURE_EXTERNAL_MEMORY_FD |
                                                        DMLOPS_VULKAN_DEVICE_FEATURE_EXTERNAL_MEMORY_DMA_BUF)) != 0;
        vk->dev.external_dma_buf = (info->device_features & DMLOPS_VULKAN_DEVICE_FEATURE_EXTERNAL_MEMORY_DMA_BUF) != 0;
        dm_vk_load_external(&vk->dev);
    }
    dm_vk_params params = {.pipeline_cache_path = info->pipeline_cache_path ? info->pipeline_cache_path
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
    char why[512];
    snprintf(why, sizeof why, "the application's device, given to %s", fn);
    const size_t used = strlen(why);
    dm_vk_tuning_note(ctx, &params, why + used, sizeof why - used);
    dm_note_choice(ctx, why);
    /* Tuning as for dmlops_context_create (src/tuning.h). */
    st = dm_tuning_apply_options(ctx, ext->tuning);
    if (st != DMLOPS_SUCCESS) {
        dmlops_context_destroy(ctx);
        return st;
    }
    dm_created(ctx, params.env_rejected);
    *out = ctx;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_context_create_vulkan(const dmlops_vulkan_context_desc *desc, dmlops_context **out)
{
    static const char fn[] = "dmlops_context_create_vulkan";
    DM_CHECK_ARG(desc, "dmlops_context_create_vulkan");
    DM_CHECK_ARG(out, "dmlops_context_create_vulkan");
    *out = NULL;
    const dmlops_vulkan_context_create_info info = {
        .s_type = DMLOPS_STRUCTURE_TYPE_VULKAN_CONTEXT_CREATE_INFO,
        .instance = desc->instance,
        .physical_device = desc->physical_device,
        .device = desc->device,
        .queue_family_index = desc->queue_family_index,
        .queue = desc->queue,
        .get_instance_proc_addr = desc->get_instance_proc_addr,
        .api_version = desc->api_version,
        .feature_level = desc->feature_level,
        .flags = desc->flags,
        .pipeline_cache_path = desc->pipeline_cache_path};
    return dm_name_call(fn, dm_vk_interop_create(fn, "dmlops_vulkan_context_desc", &info, &(dm_create_ext){0}, out));
}

dmlops_status dmlops_context_create_vulkan2(const dmlops_vulkan_context_create_info *info, dmlops_context **out)
{
    static const char fn[] = "dmlops_context_create_vulkan2";
    static const char what[] = "dmlops_vulkan_context_create_info";
    DM_CHECK_ARG(info, "dmlops_context_create_vulkan2");
    DM_CHECK_ARG(out, "dmlops_context_create_vulkan2");
    *out = NULL;
    dm_create_ext ext;
    DM_TRY(dm_create_ext_parse(fn, what, info, DMLOPS_STRUCTURE_TYPE_VULKAN_CONTEXT_CREATE_INFO, &ext));
    return dm_create_failed(&ext, dm_name_call(fn, dm_vk_interop_create(fn, what, info, &ext, out)));
}

static dmlops_status dm_buffer_wrap_vulkan_impl(dmlops_context *ctx, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
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
    if (offset % 16)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: offset = %llu is not a multiple of 16", fn,
                       (unsigned long long)offset);
    if (!size) return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: size = 0: a buffer holds at least 1 byte", fn);
    /* The range must be addressable: every later range check (bindings, overlaps,
     * copies) adds to offset + size and relies on it not wrapping. */
    if (size > UINT64_MAX - offset)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: offset = %llu + size = %llu is past 2^64", fn,
                       (unsigned long long)offset, (unsigned long long)size);
    /* What the VkBuffer's memory requirements prove cannot fit is refused; a range past
     * its creation size but inside them cannot be seen, and is the caller's to avoid
     * (dmlops_vulkan.h). */
    const dm_vk_device *d = &dm_vk(ctx)->dev;
    VkMemoryRequirements req;
    d->vkd.GetBufferMemoryRequirements(d->device, buffer, &req);
    if (offset >= req.size || size > req.size - offset)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                       "%s: bytes [%llu, %llu + %llu) run past the end of the VkBuffer, whose memory requirements "
                       "are %llu bytes",
                       fn, (unsigned long long)offset, (unsigned long long)offset, (unsigned long long)size,
                       (unsigned long long)req.size);
    if (!(usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT))
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: usage 0x%x lacks VK_BUFFER_USAGE_STORAGE_BUFFER_BIT", fn,
                       (unsigned)usage);
    dmlops_buffer *buf = dm_zalloc(&ctx->alloc, 1, sizeof *buf);
    dm_vk_buffer *b = dm_zalloc(&ctx->alloc, 1, sizeof *b);
    if (!buf || !b) {
        dm_afree(&ctx->alloc, buf);
        dm_afree(&ctx->alloc, b);
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
    }
    const VkBufferUsageFlags both = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    dm_vk_buffer_wrap(buffer, offset, (usage & both) == both, (usage & DM_VK_TEXEL_USAGE) == DM_VK_TEXEL_USAGE, b);
    buf->ctx = ctx;
    buf->size = size;
    buf->impl = b;
    buf->resource = (uintptr_t)buffer;
    buf->resource_offset = offset;
    dm_buffer_adopt(buf);
    *out = buf;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_buffer_wrap_vulkan(dmlops_context *ctx, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                                        VkBufferUsageFlags usage, dmlops_buffer **out)
{
    const dmlops_status st = dm_buffer_wrap_vulkan_impl(ctx, buffer, offset, size, usage, out);
    return ctx ? dm_logged(ctx, DMLOPS_LOG_OBJECT_CONTEXT, ctx, st) : st;
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

static dmlops_status dm_binding_table_create_impl(dmlops_operator *op, dmlops_binding_table **out)
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
    dm_handles_open(op->ctx);
    t->op = op;
    *out = t;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_binding_table_create(dmlops_operator *op, dmlops_binding_table **out)
{
    const dmlops_status st = dm_name_call("dmlops_binding_table_create", dm_binding_table_create_impl(op, out));
    return op ? dm_logged(op->ctx, DMLOPS_LOG_OBJECT_OPERATOR, op, st) : st;
}

static dmlops_status dm_binding_table_bind_impl(dmlops_binding_table *table, uint32_t input_count, const dmlops_binding *inputs,
                                        uint32_t output_count, const dmlops_binding *outputs)
{
    dmlops_binding bound[DM_MAX_BINDINGS];
    DM_CHECK_ARG(table, "dmlops_binding_table_bind");
    DM_TRY(dm_check_lost(table->op->ctx, "dmlops_binding_table_bind"));
    DM_TRY(dm_check_bindings(table->op, input_count, inputs, output_count, outputs, bound));
    return dm_vk_table_bind(table, table->op, bound);
}

dmlops_status dmlops_binding_table_bind(dmlops_binding_table *table, uint32_t input_count, const dmlops_binding *inputs,
                                        uint32_t output_count, const dmlops_binding *outputs)
{
    const dmlops_status st =
        dm_name_call("dmlops_binding_table_bind",
                     dm_binding_table_bind_impl(table, input_count, inputs, output_count, outputs));
    return table ? dm_logged(table->op->ctx, DMLOPS_LOG_OBJECT_BINDING_TABLE, table, st) : st;
}

void dmlops_binding_table_destroy(dmlops_binding_table *table)
{
    if (!table) return;
    dmlops_operator *op = table->op;
    dmlops_context *ctx = op->ctx;
    dm_context_retain(ctx); /* across the close */
    dm_vk_table_destroy(table);
    dm_operator_release(op);
    dm_handles_close(ctx);
    dm_context_release(ctx);
}

static dmlops_status dm_operator_record_vulkan_impl(dmlops_binding_table *table, VkCommandBuffer cmd)
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

dmlops_status dmlops_operator_record_vulkan(dmlops_binding_table *table, VkCommandBuffer cmd)
{
    const dmlops_status st = dm_name_call("dmlops_operator_record_vulkan", dm_operator_record_vulkan_impl(table, cmd));
    return table ? dm_logged(table->op->ctx, DMLOPS_LOG_OBJECT_BINDING_TABLE, table, st) : st;
}

dmlops_status dmlops_fence_get_vulkan_semaphore(const dmlops_fence *fence, VkSemaphore *semaphore, uint64_t *value)
{
    DM_CHECK_ARG(fence, "dmlops_fence_get_vulkan_semaphore");
    DM_CHECK_ARG(semaphore, "dmlops_fence_get_vulkan_semaphore");
    DM_CHECK_ARG(value, "dmlops_fence_get_vulkan_semaphore");
    if (!fence->semaphore)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "dmlops_fence_get_vulkan_semaphore: the submission signals %s",
                       fence->ctx->backend == DMLOPS_BACKEND_CPU ? "no Vulkan object (the context runs on the CPU backend)"
                                                                 : "a VkFence: the context has no timeline semaphore");
    memcpy(semaphore, &fence->semaphore, sizeof *semaphore); /* a pointer or a uint64_t, 8 bytes either way */
    *value = fence->value;
    return DMLOPS_SUCCESS;
}
