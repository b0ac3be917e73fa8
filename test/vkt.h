/* Helpers for Vulkan-specific tests: run one descriptor on a Vulkan context and on the
 * CPU backend with the same random inputs, and compare whole output buffers (padding
 * and bytes around the tensor included). */
#ifndef VKT_H
#define VKT_H

#include <stdlib.h>

#include "harness.h"

/* A Vulkan context with the given desc fields, or NULL, noted, when no device exists or
 * where DMLOPS_TEST_BACKENDS leaves Vulkan out (valgrind's and the emulators' runs: under
 * valgrind, loading lavapipe's LLVM is itself reported); then the test passes vacuously. */
static inline dmlops_context *vkt_context_alloc(uint32_t flags, uint64_t max_range, uint32_t max_groups,
                                                uint64_t max_alloc)
{
    if (!dmt_backend_wanted("vulkan")) {
        printf("    note: DMLOPS_TEST_BACKENDS=%s leaves out Vulkan\n", getenv("DMLOPS_TEST_BACKENDS"));
        return NULL;
    }
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN, .flags = flags | DMLOPS_CONTEXT_FLAG_DEBUG};
    dmlops_context_options o = {.max_binding_range = max_range, .max_workgroup_count = max_groups,
                                .max_allocation_size = max_alloc};
    dmlops_context *ctx = NULL;
    dmlops_status st = dmlops_context_create_with_options(&d, &o, &ctx);
    if (st == DMLOPS_ERROR_UNSUPPORTED) {
        /* No validation layer (a lent GPU machine, unless it is carried): the test still
         * runs, unvalidated, rather than passing vacuously. */
        d.flags = flags;
        st = dmlops_context_create_with_options(&d, &o, &ctx);
    }
    if (st != DMLOPS_SUCCESS) {
        printf("    note: no Vulkan device (%s)\n", dmlops_last_error_message());
        return NULL;
    }
    return ctx;
}

/* Whether the machine has a Vulkan loader at all: without one, every Vulkan failure is
 * "no Vulkan loader", and checks of what the loader would say are skipped (with a line
 * saying so) instead of failing; under qemu-user and on a machine without libvulkan1. */
static inline bool vkt_have_loader(const char *skipping)
{
    uint32_t n = 0;
    if (dmlops_enumerate_devices(NULL, &n) == DMLOPS_ERROR_NO_DEVICE &&
        strstr(dmlops_last_error_message(), "no Vulkan loader")) {
        printf("    note: no Vulkan loader (%s); skipping %s\n", dmlops_last_error_message(), skipping);
        return false;
    }
    return true;
}

static inline dmlops_context *vkt_context(uint32_t flags, uint64_t max_range, uint32_t max_groups)
{
    return vkt_context_alloc(flags, max_range, max_groups, 0);
}

/* A Vulkan context (vkt_context) with a discrete GPU's plan and kernel variants
 * (DMLOPS_VK_TUNING=gpu: lavapipe runs what a GPU runs), or NULL as vkt_context. */
static inline dmlops_context *vkt_gpu_context(uint32_t flags)
{
    dmt_env tuning;
    dmt_env_set(&tuning, "DMLOPS_VK_TUNING", "gpu");
    dmlops_context *ctx = vkt_context(flags, 0, 0);
    dmt_env_restore(&tuning);
    return ctx;
}

/* Whether the device's own defaults turn long contiguous runs into copy regions: CPU
 * devices do (lavapipe copies 8-byte regions faster than a kernel); GPUs take kernels,
 * since regions measured slower at every length on the NVIDIA H200 (docs/performance.md). */
static inline bool vkt_copies_by_default(dmlops_context *vk)
{
    dmlops_context_info ci;
    return dmlops_context_get_info(vk, &ci) == DMLOPS_SUCCESS && ci.device.type == DMLOPS_DEVICE_TYPE_CPU;
}

/* Destroys a context from vkt_context*, after checking that the validation layer (on for
 * them wherever it is installed) reported nothing. */
static inline void vkt_done(dmlops_context *ctx)
{
    dmlops_context_info info;
    if (!ctx) return;
    if (CHECK_OK(dmlops_context_get_info(ctx, &info)))
        CHECK(info.debug_message_count == 0, "the validation layer reported %u messages", info.debug_message_count);
    dmlops_context_destroy(ctx);
}

static inline void vkt_fill(dmt_rng *r, uint8_t *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) p[i] = (uint8_t)dmt_next(r);
}

/* Executes desc on ctx with `data[i]` as binding i's bytes (sizes[i] bytes, bound at
 * offset 16 inside a buffer with 16 spare bytes each side); returns the output buffer's
 * whole contents in *out (malloc'd). */
static inline dmlops_status vkt_exec(dmlops_context *ctx, const DML_OPERATOR_DESC *desc, uint32_t nin,
                                     uint8_t *const *data, const uint64_t *sizes, uint8_t **out,
                                     dmlops_operator_info *info)
{
    dmlops_operator *op = NULL;
    dmlops_buffer *b[3] = {NULL, NULL, NULL};
    dmlops_binding bind[3];
    dmlops_status st = dmlops_operator_create(ctx, desc, &op);
    for (uint32_t i = 0; i <= nin && st == DMLOPS_SUCCESS; i++) {
        st = dmlops_buffer_create(ctx, sizes[i] + 48, &b[i]);
        if (st == DMLOPS_SUCCESS) st = dmlops_buffer_write(b[i], 0, data[i], sizes[i] + 48);
        bind[i] = (dmlops_binding){b[i], 16, sizes[i]};
    }
    if (st == DMLOPS_SUCCESS) st = dmlops_operator_execute(op, nin, bind, 1, &bind[nin]);
    if (st == DMLOPS_SUCCESS && info) st = dmlops_operator_get_info(op, info);
    if (st == DMLOPS_SUCCESS) {
        *out = malloc(sizes[nin] + 48);
        st = *out ? dmlops_buffer_read(b[nin], 0, *out, sizes[nin] + 48) : DMLOPS_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t i = 0; i <= nin; i++) dmlops_buffer_destroy(b[i]);
    dmlops_operator_destroy(op);
    return st;
}

/* Runs desc on vk and on a CPU context with identical random bytes; true when the whole
 * output buffers match. */
typedef void (*vkt_fixup)(uint8_t *const *data, const uint64_t *sizes, dmt_rng *r, const void *user);

static inline bool vkt_same_as_cpu(dmlops_context *vk, const DML_OPERATOR_DESC *desc, uint32_t nin,
                                   const uint64_t *sizes, uint64_t seed, dmlops_operator_info *info,
                                   vkt_fixup fix, const void *user)
{
    static dmlops_context *cpu;
    if (!cpu) {
        dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
        if (!CHECK_OK(dmlops_context_create(&d, &cpu))) return false;
    }
    dmt_rng r = {seed | 1};
    uint8_t *data[3];
    for (uint32_t i = 0; i <= nin; i++) {
        data[i] = malloc(sizes[i] + 48);
        vkt_fill(&r, data[i], sizes[i] + 48);
    }
    if (fix) fix(data, sizes, &r, user);
    uint8_t *a = NULL, *c = NULL;
    bool ok = CHECK_OK(vkt_exec(vk, desc, nin, data, sizes, &a, info)) &&
              CHECK_OK(vkt_exec(cpu, desc, nin, data, sizes, &c, NULL));
    if (ok) {
        for (uint64_t i = 0; i < sizes[nin] + 48 && ok; i++)
            ok = CHECK(a[i] == c[i], "seed %llu: output byte %llu: vulkan 0x%02x, cpu 0x%02x", (unsigned long long)seed,
                       (unsigned long long)i, a[i], c[i]);
    }
    for (uint32_t i = 0; i <= nin; i++) free(data[i]);
    free(a);
    free(c);
    return ok;
}

#endif
