/* Context creation: defaults, environment overrides, and the AUTO fallback to the CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "internal.h"
#include "tuning.h"

double dm_now(void) { return (double)dm_now_ns() * 1e-9; }

/* The value of variable name when it is a decimal number in [lo, hi]; else fallback. */
static uint64_t dm_env_number(const char *name, uint64_t lo, uint64_t hi, uint64_t fallback)
{
    const char *env = getenv(name);
    if (!env || !*env || strlen(env) > 19) return fallback; /* 19 digits fit 64 bits */
    uint64_t v = 0;
    for (const char *c = env; *c; c++) {
        if (*c < '0' || *c > '9') return fallback;
        v = v * 10 + (uint64_t)(*c - '0');
    }
    return v >= lo && v <= hi ? v : fallback;
}

static bool dm_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

/* Adds name="value" to p->env_rejected when variable name is set (an empty value counts
 * as unset) but was not understood; the value is cut to 12 characters, so that all seven
 * variables fit the context's note. */
static void dm_env_reject(dm_vk_params *p, const char *name, bool understood)
{
    const char *env = getenv(name);
    if (understood || !env || !*env) return;
    const size_t n = strlen(p->env_rejected);
    snprintf(p->env_rejected + n, sizeof p->env_rejected - n, "%s%s=\"%.12s\"", n ? ", " : "", name, env);
}

void dm_env_vk_tuning(dm_vk_params *p)
{
    const char *texel = getenv("DMLOPS_VK_TEXEL"), *tuning = getenv("DMLOPS_VK_TUNING"), *tiles = getenv("DMLOPS_VK_TILES");
    p->texel = texel && !strcmp(texel, "0") ? 0 : texel && !strcmp(texel, "1") ? 1 : -1;
    p->tiles = tiles && !strcmp(tiles, "0") ? 0 : tiles && !strcmp(tiles, "1") ? 1 : -1;
    p->cpu_tuning = tuning && !dm_strcasecmp(tuning, "gpu") ? 0 : tuning && !dm_strcasecmp(tuning, "cpu") ? 1 : -1;
    const uint64_t lanes = dm_env_number("DMLOPS_VK_LANES", 1, 64, 0);
    p->lanes = dm_pow2(lanes) ? (uint32_t)lanes : 0;
    const uint64_t run = dm_env_number("DMLOPS_VK_RUN", 1, 32, 0);
    p->run = dm_pow2(run) ? (uint32_t)run : 0;
    p->grid_cap = (uint32_t)dm_env_number("DMLOPS_VK_GRID", 1, 1u << 20, 0);
    const uint64_t wg = dm_env_number("DMLOPS_VK_WORKGROUP", 1, 1024, 0);
    p->workgroup = dm_pow2(wg) ? (uint32_t)wg : 0;
    p->copy_min_bytes = (int64_t)dm_env_number("DMLOPS_VK_COPY_MIN", 0, 1ull << 40, UINT64_MAX >> 1);
    if (p->copy_min_bytes == (int64_t)(UINT64_MAX >> 1)) p->copy_min_bytes = -1;
    /* Set but not understood: the note names them, so that a mistyped value is seen. */
    dm_env_reject(p, "DMLOPS_VK_TUNING", p->cpu_tuning >= 0);
    dm_env_reject(p, "DMLOPS_VK_TEXEL", p->texel >= 0);
    dm_env_reject(p, "DMLOPS_VK_TILES", p->tiles >= 0);
    dm_env_reject(p, "DMLOPS_VK_LANES", p->lanes != 0);
    dm_env_reject(p, "DMLOPS_VK_RUN", p->run != 0);
    dm_env_reject(p, "DMLOPS_VK_GRID", p->grid_cap != 0);
    dm_env_reject(p, "DMLOPS_VK_WORKGROUP", p->workgroup != 0);
    dm_env_reject(p, "DMLOPS_VK_COPY_MIN", p->copy_min_bytes >= 0);
}

static dmlops_status dm_backend_from_env(dmlops_backend *backend)
{
    const char *env = getenv("DMLOPS_BACKEND");
    if (!env || !*env) return DMLOPS_SUCCESS;
    if (!dm_strcasecmp(env, "auto")) *backend = DMLOPS_BACKEND_AUTO;
    else if (!dm_strcasecmp(env, "vulkan")) *backend = DMLOPS_BACKEND_VULKAN;
    else if (!dm_strcasecmp(env, "cpu")) *backend = DMLOPS_BACKEND_CPU;
    else
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "DMLOPS_BACKEND = \"%s\" is not auto, vulkan or cpu", env);
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_context_create(const dmlops_context_desc *desc, dmlops_context **out)
{
    return dmlops_context_create_with_options(desc, NULL, out);
}

static const char *dm_device_type_name(dmlops_device_type t)
{
    static const char *const n[] = {"other", "integrated GPU", "discrete GPU", "virtual GPU", "CPU"};
    return (unsigned)t < 5 ? n[t] : "other";
}

/* Says in ctx->note which backend and device the context runs on, and why. */
void dm_note_choice(dmlops_context *ctx, const char *why)
{
    if (ctx->backend == DMLOPS_BACKEND_CPU) {
        snprintf(ctx->note, sizeof ctx->note, "CPU backend: %s", why);
        return;
    }
    dmlops_context_info info;
    memset(&info, 0, sizeof info);
    ctx->vt->context_info(ctx, &info);
    int used = snprintf(ctx->note, sizeof ctx->note, "Vulkan on [%u] %.120s (%s): ", info.device.index,
                        info.device.name, dm_device_type_name(info.device.type));
    const size_t room = sizeof ctx->note - 1 - (size_t)used;
    /* When it does not all fit, the explanation of the choice is cut, not the list of
     * tuning variables after it, which api.md promises in full. */
    const char *tuning = strstr(why, "; tuning from the environment: ");
    const size_t tail = tuning ? strlen(tuning) : 0;
    if (tuning && strlen(why) > room && tail + 3 < room)
        snprintf(ctx->note + used, room + 1, "%.*s...%s", (int)(room - tail - 3), why, tuning);
    else
        snprintf(ctx->note + used, room + 1, "%s", why);
}

/* Whether AUTO, after its Vulkan probe failed with st, runs on the CPU instead. It does
 * when there is no hardware device to use: none at all (NO_DEVICE), or one whose driver
 * fails or loses it (BACKEND, DEVICE_LOST). An allocation failure is the caller's to see,
 * not a reason to change backends. DMLOPS_CONTEXT_FLAG_DEBUG without the validation
 * layer (UNSUPPORTED) falls back only when a probe without the layer finds no hardware
 * device either: on a GPU machine the missing layer is reported, as for VULKAN. */
static bool dm_auto_falls_back(dmlops_status st, uint32_t flags, void (*loader)(void))
{
    if (st == DMLOPS_ERROR_NO_DEVICE || st == DMLOPS_ERROR_BACKEND || st == DMLOPS_ERROR_DEVICE_LOST) return true;
    if (st != DMLOPS_ERROR_UNSUPPORTED || !(flags & DMLOPS_CONTEXT_FLAG_DEBUG)) return false;
    char missing[1024];
    snprintf(missing, sizeof missing, "%s", dmlops_last_error_message());
    if (dm_vk_hardware_probe(loader) == DMLOPS_ERROR_NO_DEVICE) return true; /* its message says why */
    dm_set_message("%s", missing);
    return false;
}

dmlops_status dmlops_context_create_with_options(const dmlops_context_desc *desc, const dmlops_context_options *options,
                                                 dmlops_context **out)
{
    static const dmlops_context_desc defaults = {0};
    static const dmlops_context_options no_options = {0};
    DM_CHECK_ARG(out, "dmlops_context_create");
    *out = NULL;
    if (!desc) desc = &defaults;
    if (!options) options = &no_options;

    dmlops_backend backend = DMLOPS_BACKEND_AUTO;
    bool from_env = false;
    if (desc->backend != DMLOPS_BACKEND_AUTO) {
        backend = desc->backend;
    } else {
        DM_TRY(dm_backend_from_env(&backend));
        from_env = backend != DMLOPS_BACKEND_AUTO;
    }
    if (backend > DMLOPS_BACKEND_CPU)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "dmlops_context_desc.backend = %d is not a dmlops_backend",
                       (int)backend);
    const char *env_device = getenv("DMLOPS_DEVICE");
    dm_vk_params params = {
        .loader = options->vulkan_loader,
        /* An empty name is no name, from the descriptor as from the environment: "" would
         * otherwise let AUTO take a software device as if one had been named. */
        .device = desc->device && *desc->device ? desc->device : (env_device && *env_device ? env_device : NULL),
        .pipeline_cache_path = options->pipeline_cache_path ? options->pipeline_cache_path : getenv("DMLOPS_PIPELINE_CACHE"),
        .max_binding_range = options->max_binding_range,
        .max_workgroup_count = options->max_workgroup_count,
        .max_allocation_size = options->max_allocation_size,
    };
    dm_env_vk_tuning(&params);
    /* AUTO never picks a software Vulkan device: on a machine without a GPU the CPU
     * backend is faster than lavapipe or SwiftShader (docs/performance.md). */
    params.hardware_only = backend == DMLOPS_BACKEND_AUTO && !params.device;
    DML_FEATURE_LEVEL level;
    DM_TRY(dm_feature_level_normalize(desc->feature_level, &level));
    const uint32_t known = DMLOPS_CONTEXT_FLAG_DEBUG | DMLOPS_CONTEXT_FLAG_KERNELS_ONLY |
                           DMLOPS_CONTEXT_FLAG_PREFER_COPY | DMLOPS_CONTEXT_FLAG_QUIET |
                           DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES;
    if (desc->flags & ~known)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "dmlops_context_desc.flags = 0x%x has unknown bits", desc->flags);

    dm_fault_arm(); /* testing: DMLOPS_FAULT_INJECT, inert when unset (fault.h) */
    dmlops_context *ctx = NULL;
    DM_TRY(dm_context_alloc(level, desc->flags, &ctx));

    char why[1024];
    dmlops_status st = DMLOPS_SUCCESS;
    if (backend == DMLOPS_BACKEND_CPU)
        snprintf(why, sizeof why, "asked for (%s)",
                 from_env ? "DMLOPS_BACKEND=cpu" : "dmlops_context_desc.backend = DMLOPS_BACKEND_CPU");
    if (backend != DMLOPS_BACKEND_CPU) {
        /* A context that AUTO puts on the CPU is a success: the probe's failure must not
         * stay behind as the thread's last error message (api.md: "" until a failure). */
        char before[1024];
        snprintf(before, sizeof before, "%s", dmlops_last_error_message());
        st = dm_vk_context_init(ctx, &params);
        if (st != DMLOPS_SUCCESS && params.hardware_only && dm_auto_falls_back(st, desc->flags, params.loader)) {
            snprintf(why, sizeof why,
                     "AUTO found no %shardware Vulkan device (%s); software Vulkan devices run only when asked for "
                     "(DMLOPS_BACKEND=vulkan or a device name)",
                     st == DMLOPS_ERROR_BACKEND || st == DMLOPS_ERROR_DEVICE_LOST ? "usable " : "",
                     dmlops_last_error_message());
            dm_set_message("%s", before);
            st = DMLOPS_SUCCESS;
            backend = DMLOPS_BACKEND_CPU;
        } else if (params.device) {
            snprintf(why, sizeof why, "named by %s = \"%s\"",
                     desc->device && *desc->device ? "dmlops_context_desc.device" : "DMLOPS_DEVICE", params.device);
            backend = DMLOPS_BACKEND_VULKAN;
        } else {
            snprintf(why, sizeof why, "%s; the first of discrete, integrated, virtual, CPU, then other devices",
                     backend == DMLOPS_BACKEND_AUTO ? "AUTO takes a hardware Vulkan device when there is one"
                     : from_env                     ? "asked for (DMLOPS_BACKEND=vulkan)"
                                                    : "asked for (dmlops_context_desc.backend = DMLOPS_BACKEND_VULKAN)");
            backend = DMLOPS_BACKEND_VULKAN;
        }
        if (st == DMLOPS_SUCCESS && backend == DMLOPS_BACKEND_VULKAN) {
            const size_t used = strlen(why);
            dm_vk_tuning_note(ctx, &params, why + used, sizeof why - used);
        }
    }
    if (st == DMLOPS_SUCCESS && backend == DMLOPS_BACKEND_CPU && (desc->flags & DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES))
        st = dm_fail(DMLOPS_ERROR_UNSUPPORTED, "DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES traces Vulkan kernels; the context "
                                               "would run on the CPU backend (%s)", why);
    if (st == DMLOPS_SUCCESS && backend == DMLOPS_BACKEND_CPU) {
        dm_cpu_params cpu = {.threads = options->cpu_threads, .wait = options->cpu_wait,
                             .chunk_bytes = options->cpu_chunk_bytes, .stream_bytes = options->cpu_stream_bytes};
        st = dm_cpu_context_init(ctx, &cpu);
    }
    if (st != DMLOPS_SUCCESS) {
        dm_context_free(ctx);
        return st;
    }
    ctx->backend = backend;
    dm_note_choice(ctx, why);
    /* Tuning from the environment; the extensible create-info's dmlops_tuning_options
     * goes here once contexts take one (src/tuning.h). */
    st = dm_tuning_apply_options(ctx, NULL);
    if (st != DMLOPS_SUCCESS) {
        dmlops_context_destroy(ctx);
        return st;
    }
    *out = ctx;
    return DMLOPS_SUCCESS;
}

dmlops_status dm_check_lost(const dmlops_context *ctx, const char *fn)
{
    if (!ctx->vt->lost || !ctx->vt->lost(ctx)) return DMLOPS_SUCCESS;
    return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost; the context is unusable", fn);
}

dmlops_status dm_context_alloc(DML_FEATURE_LEVEL level, uint32_t flags, dmlops_context **out)
{
    dmlops_context *ctx = dm_calloc(1, sizeof *ctx);
    if (!ctx) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_context_create: out of host memory");
    ctx->level = level;
    ctx->flags = flags;
    if (!dm_mutex_init(&ctx->lock)) {
        free(ctx);
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_context_create: out of resources creating a mutex");
    }
    *out = ctx;
    return DMLOPS_SUCCESS;
}

void dm_context_free(dmlops_context *ctx)
{
    dm_mutex_destroy(&ctx->lock);
    free(ctx);
}

void dmlops_context_destroy(dmlops_context *ctx)
{
    if (!ctx) return;
    ctx->vt->context_destroy(ctx);
    dm_context_free(ctx);
}

dmlops_status dmlops_context_get_info(dmlops_context *ctx, dmlops_context_info *info)
{
    DM_CHECK_ARG(ctx, "dmlops_context_get_info");
    DM_CHECK_ARG(info, "dmlops_context_get_info");
    memset(info, 0, sizeof *info);
    info->backend = ctx->backend;
    info->feature_level = ctx->level;
    for (uint32_t t = DML_TENSOR_DATA_TYPE_FLOAT32; t <= DML_TENSOR_DATA_TYPE_INT64; t++)
        info->supported_data_types |= 1u << t;
    memcpy(info->note, ctx->note, sizeof info->note);
    dm_mutex_lock(&ctx->lock);
    ctx->vt->context_info(ctx, info);
    dm_mutex_unlock(&ctx->lock);
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_enumerate_devices(dmlops_device_info *infos, uint32_t *count)
{
    DM_CHECK_ARG(count, "dmlops_enumerate_devices");
    return dm_vk_enumerate(infos, count);
}
