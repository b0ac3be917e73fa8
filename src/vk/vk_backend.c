/* Layer 11 of the Vulkan backend: the backend table, and making and destroying the
 * contexts that use it (vk_backend.h): on a device of our own here (dm_vk_context_init,
 * for dmlops_context_create), on the application's in vk_interop.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_backend.h"
#include "dmlops_vulkan.h" /* after volk.h: dmlops_vulkan_allocation_callbacks */
#include "../fault.h"

static void dm_vk_context_destroy(dmlops_context *ctx) { dm_vk_context_teardown(dm_vk(ctx)); }

static void dm_vk_context_info(dmlops_context *ctx, dmlops_context_info *info)
{
    const dm_vk_ctx *vk = dm_vk(ctx);
    info->device = vk->dev.info;
    info->debug_message_count = atomic_load(&vk->dev.inst.debug_count);
    info->pipeline_count = atomic_load(&vk->pipes.count);
}

static bool dm_vk_lost(const dmlops_context *ctx) { return atomic_load(&dm_vk(ctx)->dev.lost); }

static const dm_backend_vtbl dm_vk_vtbl = {
    .compute_copy = true,
    .context_destroy = dm_vk_context_destroy,
    .context_info = dm_vk_context_info,
    .buffer_create = dm_vk_buffer_create,
    .buffer_destroy = dm_vk_buffer_destroy,
    .buffer_write = dm_vk_buffer_write,
    .buffer_read = dm_vk_buffer_read,
    .operator_create = dm_vk_operator_create,
    .operator_destroy = dm_vk_operator_destroy,
    .list_create = dm_vk_list_create,
    .list_destroy = dm_vk_list_destroy,
    .list_record = dm_vk_list_record,
    .list_reset = dm_vk_list_reset,
    .lost = dm_vk_lost,
    .sub_size = sizeof(dm_vk_sub),
    .sub_start = dm_vk_sub_start,
    .sub_wait = dm_vk_sub_wait,
    .sub_done = dm_vk_sub_done,
    .sub_retire = dm_vk_sub_retire,
    .sub_free = dm_vk_sub_free,
    .device_bytes = dm_vk_device_bytes,
    .operator_memory = dm_vk_operator_memory,
    .operator_kernel = dm_vk_operator_kernel,
};

dmlops_status dm_vk_context_setup(dmlops_context *ctx, dm_vk_ctx *vk, const dm_vk_params *params)
{
    const bool trace = (ctx->flags & DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES) != 0;
    dm_vk_limits_for(&vk->dev.inst.vki, vk->dev.phys, &vk->dev.info, params, ctx->flags, &vk->dev.lim);
    /* The tuner plans a class's configuration from the same values (vk_tune.h). */
    vk->params = *params;
    vk->params.loader = NULL;
    vk->params.device = vk->params.pipeline_cache_path = NULL;
    vk->tune_measure = dm_vk_tune_measure;
    DM_TRY(dm_vk_submitter_init(&vk->dev, &ctx->lock, &vk->sub));
    if (trace) {
        DM_TRY(dm_vk_trace_init(&vk->dev, 0, &vk->trace));
        if (!(vk->tracer = dm_zalloc(vk->dev.host, 1, sizeof *vk->tracer)))
            return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating the context");
    }
    DM_TRY(dm_vk_alloc(&vk->dev, 256, DM_VK_MEM_DEVICE, "creating the context", &vk->dummy));
    DM_TRY(dm_vk_texel_view(&vk->dev, vk->dummy.buffer, 0, 256, VK_FORMAT_R32G32B32A32_UINT, "creating the context",
                            &vk->dummy_view));
    DM_TRY(dm_vk_texel_view(&vk->dev, vk->dummy.buffer, 0, 256, VK_FORMAT_R32_UINT, "creating the context",
                            &vk->dummy_word_view));
    DM_TRY(dm_vk_pipelines_init(&vk->dev, params->pipeline_cache_path, trace, &vk->pipes));
    ctx->vt = &dm_vk_vtbl;
    return DMLOPS_SUCCESS;
}

void dm_vk_tuning_note(const dmlops_context *ctx, const dm_vk_params *p, char *buf, size_t size)
{
    const dm_vk_limits *lim = &dm_vk(ctx)->dev.lim;
    char t[400] = "";
    size_t n = 0;
#define DM_NOTE_ADD(...) n += (size_t)snprintf(t + n, n < sizeof t ? sizeof t - n : 0, __VA_ARGS__)
    if (p->cpu_tuning >= 0) DM_NOTE_ADD(", %s device class", p->cpu_tuning ? "CPU" : "GPU");
    if (p->texel >= 0) DM_NOTE_ADD(", texel loads %s", p->texel ? "on" : "off");
    if (p->texel > 0 && !lim->texel) DM_NOTE_ADD(" (not taken: the device's texel buffers cannot hold the kernels' views)");
    if (p->tiles >= 0) DM_NOTE_ADD(", GPU tiles %s", p->tiles ? "on" : "off");
    if (p->tiles > 0 && !lim->tile_lds) DM_NOTE_ADD(" (not taken: %s)", lim->texel ? "the texel path has none" : "shared memory too small");
    if (p->lanes) DM_NOTE_ADD(", lanes %u", p->lanes);
    if (p->lanes && lim->lanes != p->lanes) DM_NOTE_ADD(" (not taken: above the workgroup of %u)", lim->workgroup);
    if (p->run) DM_NOTE_ADD(", runs of %u chunk%s", p->run, p->run > 1 ? "s" : "");
    if (p->grid_cap) DM_NOTE_ADD(", grid %u workgroups", p->grid_cap);
    if (p->workgroup) DM_NOTE_ADD(", workgroup %u", p->workgroup);
    if (p->workgroup && lim->workgroup != p->workgroup)
        DM_NOTE_ADD(" (not taken: the device allows %u invocations)", lim->max_workgroup);
    if (p->copy_min_bytes >= 0) DM_NOTE_ADD(", copy regions from %lld bytes", (long long)p->copy_min_bytes);
#undef DM_NOTE_ADD
    snprintf(buf, size, "%s%s%s%s", n ? "; tuning from the environment: " : "", n ? t + 2 : "",
             p->env_rejected[0] ? "; ignored, not understood (docs/api.md): " : "", p->env_rejected);
}

dmlops_status dm_vk_take_allocation_callbacks(dm_vk_device *d, const void *chained, const char *fn)
{
    const dmlops_vulkan_allocation_callbacks *va = chained;
    if (!va) return DMLOPS_SUCCESS;
    if (!va->callbacks)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: dmlops_vulkan_allocation_callbacks.callbacks is NULL", fn);
    d->vk_alloc_copy = *va->callbacks;
    d->vk_alloc = &d->vk_alloc_copy;
    return DMLOPS_SUCCESS;
}

/* Every step checks what exists, so a setup that stopped half-way is undone too. */
void dm_vk_context_teardown(dm_vk_ctx *vk)
{
    dm_vk_device_wait_idle(&vk->dev);
    dm_vk_tune_destroy(vk->tuner);
    dm_vk_pipelines_destroy(&vk->dev, &vk->pipes);
    if (vk->dummy_view) vk->dev.vkd.DestroyBufferView(vk->dev.device, vk->dummy_view, vk->dev.vk_alloc);
    if (vk->dummy_word_view) vk->dev.vkd.DestroyBufferView(vk->dev.device, vk->dummy_word_view, vk->dev.vk_alloc);
    dm_vk_free(&vk->dev, &vk->dummy);
    dm_vk_trace_free(&vk->dev, &vk->trace);
    dm_afree(vk->dev.host, vk->tracer);
    dm_vk_submitter_destroy(&vk->dev, &vk->sub);
    dm_allocator *host = vk->dev.host;
    dm_vk_device_close(&vk->dev);
    dm_afree(host, vk);
}

/* A function pointer of the public API's generic type, back to the loader's type. */
static PFN_vkGetInstanceProcAddr dm_vk_loader_fn(void (*loader)(void))
{
    PFN_vkGetInstanceProcAddr gipa;
    memcpy(&gipa, &loader, sizeof gipa);
    return gipa;
}

dmlops_status dm_vk_hardware_probe(void (*loader)(void))
{
    dm_vk_device d;
    memset(&d, 0, sizeof d);
    d.inst.loader = dm_vk_loader_fn(loader);
    const dmlops_status st = dm_vk_device_open(&d, false, true, NULL, true);
    dm_vk_device_close(&d);
    return st;
}

dmlops_status dm_vk_context_init(dmlops_context *ctx, const dm_vk_params *params)
{
    dm_vk_ctx *vk = dm_zalloc(&ctx->alloc, 1, sizeof *vk);
    if (!vk) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    vk->dev.host = &ctx->alloc;
    vk->dev.device_bytes = &vk->device_bytes;
    vk->dev.inst.log = ctx->log.callback ? &ctx->log : NULL; /* validation messages go there */
    vk->dev.inst.log_object = ctx;
    dmlops_status st = dm_vk_take_allocation_callbacks(&vk->dev, params->vulkan_alloc, "dmlops_context_create");
    if (st != DMLOPS_SUCCESS) {
        dm_afree(&ctx->alloc, vk);
        return st;
    }
    vk->dev.inst.loader = dm_vk_loader_fn(params->loader);
    st = dm_vk_device_open(&vk->dev, (ctx->flags & DMLOPS_CONTEXT_FLAG_DEBUG) != 0,
                                         (ctx->flags & DMLOPS_CONTEXT_FLAG_QUIET) != 0, params->device,
                                         params->hardware_only);
    if (st == DMLOPS_SUCCESS) st = dm_vk_context_setup(ctx, vk, params);
    if (st != DMLOPS_SUCCESS) {
        dm_vk_context_teardown(vk);
        return st;
    }
    ctx->impl = vk;
    return DMLOPS_SUCCESS;
}
