/* Context creation: defaults, environment overrides, and the AUTO fallback to the CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "fault.h"
#include "internal.h"
#include "tuning.h"

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

/* The four fields every creation takes, from the 1.0 descriptor. */
static void dm_create_info_from_desc(dmlops_context_create_info *info, const dmlops_context_desc *desc)
{
    info->backend = desc->backend;
    info->device = desc->device;
    info->feature_level = desc->feature_level;
    info->flags = desc->flags;
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

/* Creates a context from the fields of info (every entry point's fields, in one place).
 * `names` says what the caller called the fields' structures, for messages. */
static dmlops_status dm_context_create(const dmlops_context_create_info *info, const dm_create_ext *ext,
                                       const dm_field_names *names, dmlops_context **out)
{
    dmlops_backend backend = DMLOPS_BACKEND_AUTO;
    bool from_env = false;
    if (info->backend != DMLOPS_BACKEND_AUTO) {
        backend = info->backend;
    } else {
        DM_TRY(dm_backend_from_env(&backend));
        from_env = backend != DMLOPS_BACKEND_AUTO;
    }
    if (backend > DMLOPS_BACKEND_CPU)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s.backend = %d is not a dmlops_backend", names->desc,
                       (int)backend);
    const char *env_device = getenv("DMLOPS_DEVICE");
    dm_vk_params params = {
        .loader = info->vulkan_loader,
        .vulkan_alloc = ext->vulkan_alloc,
        /* An empty name is no name, from the descriptor as from the environment: "" would
         * otherwise let AUTO take a software device as if one had been named. */
        .device = info->device && *info->device ? info->device : (env_device && *env_device ? env_device : NULL),
        .pipeline_cache_path = info->pipeline_cache_path ? info->pipeline_cache_path : getenv("DMLOPS_PIPELINE_CACHE"),
        .max_binding_range = info->max_binding_range,
        .max_workgroup_count = info->max_workgroup_count,
        .max_allocation_size = info->max_allocation_size,
    };
    dm_env_vk_tuning(&params);
    /* AUTO never picks a software Vulkan device: on a machine without a GPU the CPU
     * backend is faster than lavapipe or SwiftShader (docs/performance.md). */
    params.hardware_only = backend == DMLOPS_BACKEND_AUTO && !params.device;
    DML_FEATURE_LEVEL level;
    if (dm_feature_level_normalize(info->feature_level, &level) != DMLOPS_SUCCESS)
        return dm_fail_prefix(DMLOPS_ERROR_INVALID_ARGUMENT, "%s.feature_level", names->desc);
    const uint32_t known = DMLOPS_CONTEXT_FLAG_DEBUG | DMLOPS_CONTEXT_FLAG_KERNELS_ONLY |
                           DMLOPS_CONTEXT_FLAG_PREFER_COPY | DMLOPS_CONTEXT_FLAG_QUIET |
                           DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES;
    if (info->flags & ~known)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s.flags = 0x%x has unknown bits", names->desc, info->flags);

    dm_fault_arm(); /* testing: DMLOPS_FAULT_INJECT, inert when unset (fault.h) */
    dmlops_context *ctx = NULL;
    DM_TRY(dm_context_alloc(level, info->flags, ext, &ctx));

    char why[1024];
    dmlops_status st = DMLOPS_SUCCESS;
    if (backend == DMLOPS_BACKEND_CPU)
        snprintf(why, sizeof why, "asked for (%s%s)", from_env ? "DMLOPS_BACKEND=cpu" : names->desc,
                 from_env ? "" : ".backend = DMLOPS_BACKEND_CPU");
    if (backend != DMLOPS_BACKEND_CPU) {
        /* A context that AUTO puts on the CPU is a success: the probe's failure must not
         * stay behind as the thread's last error message (api.md: "" until a failure). */
        char before[1024];
        snprintf(before, sizeof before, "%s", dmlops_last_error_message());
        st = dm_vk_context_init(ctx, &params);
        if (st != DMLOPS_SUCCESS && params.hardware_only && dm_auto_falls_back(st, info->flags, params.loader)) {
            snprintf(why, sizeof why,
                     "AUTO found no %shardware Vulkan device (%s); software Vulkan devices run only when asked for "
                     "(DMLOPS_BACKEND=vulkan or a device name)",
                     st == DMLOPS_ERROR_BACKEND || st == DMLOPS_ERROR_DEVICE_LOST ? "usable " : "",
                     dmlops_last_error_message());
            dm_set_message("%s", before);
            st = DMLOPS_SUCCESS;
            backend = DMLOPS_BACKEND_CPU;
        } else if (params.device) {
            snprintf(why, sizeof why, "named by %s%s = \"%s\"", info->device && *info->device ? names->desc : "DMLOPS_DEVICE",
                     info->device && *info->device ? ".device" : "", params.device);
            backend = DMLOPS_BACKEND_VULKAN;
        } else {
            char asked[160];
            snprintf(asked, sizeof asked, "asked for (%s.backend = DMLOPS_BACKEND_VULKAN)", names->desc);
            snprintf(why, sizeof why, "%s; the first of discrete, integrated, virtual, CPU, then other devices",
                     backend == DMLOPS_BACKEND_AUTO ? "AUTO takes a hardware Vulkan device when there is one"
                     : from_env                     ? "asked for (DMLOPS_BACKEND=vulkan)"
                                                    : asked);
            backend = DMLOPS_BACKEND_VULKAN;
        }
        if (st == DMLOPS_SUCCESS && backend == DMLOPS_BACKEND_VULKAN) {
            const size_t used = strlen(why);
            dm_vk_tuning_note(ctx, &params, why + used, sizeof why - used);
        }
    }
    if (st == DMLOPS_SUCCESS && backend == DMLOPS_BACKEND_CPU && (info->flags & DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES))
        st = dm_fail(DMLOPS_ERROR_UNSUPPORTED, "DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES traces Vulkan kernels; the context "
                                               "would run on the CPU backend (%s)", why);
    if (st == DMLOPS_SUCCESS && backend == DMLOPS_BACKEND_CPU) {
        dm_cpu_params cpu = {.threads = info->cpu_threads, .wait = info->cpu_wait, .chunk_bytes = info->cpu_chunk_bytes,
                             .stream_bytes = info->cpu_stream_bytes, .options = names->options};
        st = dm_cpu_context_init(ctx, &cpu);
    }
    if (st != DMLOPS_SUCCESS) {
        dm_context_free(ctx);
        return st;
    }
    ctx->backend = backend;
    dm_note_choice(ctx, why);
    /* Tuning: the chained dmlops_tuning_options, else the environment (src/tuning.h); its
     * clause ends the note before the note goes to the log. */
    st = dm_tuning_apply_options(ctx, ext->tuning);
    if (st != DMLOPS_SUCCESS) {
        dmlops_context_destroy(ctx);
        return st;
    }
    dm_created(ctx, params.env_rejected);
    *out = ctx;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_context_create(const dmlops_context_desc *desc, dmlops_context **out)
{
    static const char fn[] = "dmlops_context_create";
    DM_CHECK_ARG(out, "dmlops_context_create");
    *out = NULL;
    dmlops_context_create_info info = {.s_type = DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO};
    if (desc) dm_create_info_from_desc(&info, desc);
    static const dm_field_names names = {"dmlops_context_desc", "dmlops_context_options"};
    return dm_name_call(fn, dm_context_create(&info, &(dm_create_ext){0}, &names, out));
}

dmlops_status dmlops_context_create_with_options(const dmlops_context_desc *desc, const dmlops_context_options *options,
                                                 dmlops_context **out)
{
    static const char fn[] = "dmlops_context_create_with_options";
    DM_CHECK_ARG(out, "dmlops_context_create_with_options");
    *out = NULL;
    dmlops_context_create_info info = {.s_type = DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO};
    if (desc) dm_create_info_from_desc(&info, desc);
    if (options) {
        info.pipeline_cache_path = options->pipeline_cache_path;
        info.max_binding_range = options->max_binding_range;
        info.max_workgroup_count = options->max_workgroup_count;
        info.max_allocation_size = options->max_allocation_size;
        info.cpu_threads = options->cpu_threads;
        info.cpu_chunk_bytes = options->cpu_chunk_bytes;
        info.cpu_stream_bytes = options->cpu_stream_bytes;
        info.cpu_wait = options->cpu_wait;
        info.vulkan_loader = options->vulkan_loader;
    }
    static const dm_field_names names = {"dmlops_context_desc", "dmlops_context_options"};
    return dm_name_call(fn, dm_context_create(&info, &(dm_create_ext){0}, &names, out));
}

dmlops_status dmlops_context_create2(const dmlops_context_create_info *info, dmlops_context **out)
{
    static const char fn[] = "dmlops_context_create2";
    static const dmlops_context_create_info defaults = {.s_type = DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO};
    DM_CHECK_ARG(out, "dmlops_context_create2");
    *out = NULL;
    if (!info) info = &defaults;
    dm_create_ext ext;
    DM_TRY(dm_create_ext_parse(fn, "dmlops_context_create_info", info, DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO, &ext));
    static const dm_field_names names = {"dmlops_context_create_info", "dmlops_context_create_info"};
    return dm_create_failed(&ext, dm_name_call(fn, dm_context_create(info, &ext, &names, out)));
}

void dm_created(dmlops_context *ctx, const char *env_rejected)
{
    dm_log(ctx, DMLOPS_LOG_NOTE, DMLOPS_LOG_OBJECT_CONTEXT, ctx, ctx->note);
    if (env_rejected && *env_rejected) {
        char text[512];
        snprintf(text, sizeof text, "tuning variables ignored, not understood (docs/api.md): %s", env_rejected);
        dm_log(ctx, DMLOPS_LOG_WARNING, DMLOPS_LOG_OBJECT_CONTEXT, ctx, text);
    }
}

dmlops_status dm_create_failed(const dm_create_ext *ext, dmlops_status st)
{
    if (st != DMLOPS_SUCCESS && ext->log && ext->log->min_severity <= DMLOPS_LOG_ERROR)
        ext->log->callback(ext->log->user_data, DMLOPS_LOG_ERROR, DMLOPS_LOG_OBJECT_CONTEXT, NULL,
                           dmlops_last_error_message());
    return st;
}

dmlops_status dm_create_ext_parse(const char *fn, const char *what, const void *head, dmlops_structure_type type,
                                  dm_create_ext *ext)
{
    memset(ext, 0, sizeof *ext);
    DM_TRY(dm_chain_head(fn, what, head, type));
    /* The structures a context's creation takes in its chain. */
    static const dmlops_structure_type allowed[] = {DMLOPS_STRUCTURE_TYPE_ALLOCATION_CALLBACKS,
                                                    DMLOPS_STRUCTURE_TYPE_LOG_CALLBACK,
                                                    DMLOPS_STRUCTURE_TYPE_VULKAN_ALLOCATION_CALLBACKS,
                                                    DMLOPS_STRUCTURE_TYPE_TUNING_OPTIONS};
    const void *found[4];
    const dmlops_base_structure *b = head;
    DM_TRY(dm_chain_parse(fn, what, b->next, allowed, 4, found));
    ext->alloc = found[0];
    ext->log = found[1];
    ext->vulkan_alloc = found[2];
    ext->tuning = found[3];
    if (ext->alloc && (!ext->alloc->allocate || !ext->alloc->deallocate))
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                       "%s: dmlops_allocation_callbacks.%s is NULL: both allocate and deallocate are needed", fn,
                       !ext->alloc->allocate ? "allocate" : "deallocate");
    if (ext->log && !ext->log->callback)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: dmlops_log_callback.callback is NULL", fn);
    if (ext->log && (unsigned)ext->log->min_severity > DMLOPS_LOG_ERROR)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: dmlops_log_callback.min_severity = %d is not a dmlops_log_severity",
                       fn, (int)ext->log->min_severity);
    return DMLOPS_SUCCESS; /* the Vulkan callbacks are the Vulkan backend's to check */
}

dmlops_status dm_context_alloc(DML_FEATURE_LEVEL level, uint32_t flags, const dm_create_ext *ext, dmlops_context **out)
{
    dm_allocator a;
    dm_allocator_init(&a, ext->alloc);
    dmlops_context *ctx = dm_alloc(&a, sizeof *ctx, 0);
    if (!ctx) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_context_create: out of host memory");
    ctx->alloc.cb = a.cb; /* counting the context itself */
    if (ext->log) {
        ctx->log = *ext->log;
        ctx->log.next = NULL;
    }
    dm_count_init(&ctx->alloc.bytes, dm_count_load(&a.bytes));
    ctx->level = level;
    ctx->flags = flags;
    atomic_init(&ctx->refs, 1);
    atomic_init(&ctx->handles, 1);
    atomic_init(&ctx->in_flight, 0);
    if (!dm_mutex_init(&ctx->lock)) {
        dm_afree(&a, ctx);
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_context_create: out of resources creating a mutex");
    }
    *out = ctx;
    return DMLOPS_SUCCESS;
}

/* Drops the application's handle: the context itself lives on while its objects do. */
void dmlops_context_destroy(dmlops_context *ctx)
{
    if (!ctx) return;
    dm_handles_close(ctx);
    dm_context_release(ctx);
}

dmlops_status dmlops_context_get_info(dmlops_context *ctx, dmlops_context_info *info)
{
    DM_CHECK_ARG(ctx, "dmlops_context_get_info");
    DM_CHECK_ARG(info, "dmlops_context_get_info");
    memset(info, 0, sizeof *info);
    info->backend = ctx->backend;
    info->feature_level = ctx->level;
    info->supported_data_types = dm_level_data_types(ctx->level); /* what operators take at its level */
    memcpy(info->note, ctx->note, sizeof info->note);
    dm_mutex_lock(&ctx->lock);
    ctx->vt->context_info(ctx, info);
    dm_mutex_unlock(&ctx->lock);
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_context_get_memory_info(dmlops_context *ctx, dmlops_memory_info *info)
{
    static const char fn[] = "dmlops_context_get_memory_info";
    DM_CHECK_ARG(ctx, "dmlops_context_get_memory_info");
    DM_CHECK_ARG(info, "dmlops_context_get_memory_info");
    dmlops_status st = dm_chain_head(fn, "dmlops_memory_info", info, DMLOPS_STRUCTURE_TYPE_MEMORY_INFO);
    if (st == DMLOPS_SUCCESS) st = dm_chain_parse(fn, "dmlops_memory_info", info->next, NULL, 0, NULL);
    if (st != DMLOPS_SUCCESS) return dm_logged(ctx, DMLOPS_LOG_OBJECT_CONTEXT, ctx, st);
    memset((char *)info + sizeof(dmlops_base_structure), 0, sizeof *info - sizeof(dmlops_base_structure));
    info->host_bytes = dm_count_load(&ctx->alloc.bytes) + dm_count_load(&ctx->host_extra);
    info->device_bytes = ctx->vt->device_bytes ? ctx->vt->device_bytes(ctx) : 0;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_enumerate_devices(dmlops_device_info *infos, uint32_t *count)
{
    DM_CHECK_ARG(count, "dmlops_enumerate_devices");
    return dm_vk_enumerate(infos, count);
}
