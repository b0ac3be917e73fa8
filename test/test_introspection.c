/* dmlops_operator_get_info2 with a dmlops_operator_kernel_info (dmlops.h): the kernel, its
 * variant, the GPU tiles, texel or storage buffers, workgroup, grid and shared memory,
 * checked against what the tuning variables force on lavapipe (docs/api.md,
 * "Environment"): DMLOPS_VK_TUNING=gpu gives a discrete GPU's plan with its tiles,
 * DMLOPS_VK_TILES=0 takes them away, DMLOPS_VK_TEXEL picks the path, DMLOPS_VK_WORKGROUP
 * and DMLOPS_VK_GRID set the workgroup and cap the grid. Results are compared with the
 * CPU backend's for each context, so the reported plan is the one that ran. */
#include <stdlib.h>

#include "op_descs.h"
#include "vkt.h"

/* A SLICE1 of [rows, 1024] FLOAT32, columns 4..1023: a rank-2 gather with contiguous
 * output rows, which the GPU tiles take under GPU tuning. */
static void slice_desc(dmt_slice *s, uint32_t rows)
{
    const uint32_t sizes[2] = {rows, 1024}, off[2] = {0, 4}, win[2] = {rows, 1020};
    dmt_slice_init(s, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, off, win);
}

/* A Vulkan context under the given variables (NULL values: unset), or NULL. */
static dmlops_context *context_with(const char *tuning, const char *tiles, const char *texel, const char *workgroup,
                                    const char *grid)
{
    const char *names[5] = {"DMLOPS_VK_TUNING", "DMLOPS_VK_TILES", "DMLOPS_VK_TEXEL", "DMLOPS_VK_WORKGROUP", "DMLOPS_VK_GRID"};
    const char *values[5] = {tuning, tiles, texel, workgroup, grid};
    dmt_env env[5];
    for (int i = 0; i < 5; i++) {
        dmt_env_set(&env[i], names[i], values[i]);
        if (!values[i]) unsetenv(names[i]);
    }
    /* Kernels only: a CPU device would take copy regions for these rows. */
    dmlops_context *ctx = vkt_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, 0, 0);
    for (int i = 4; i >= 0; i--) dmt_env_restore(&env[i]);
    return ctx;
}

/* The operator's info and kernel info, after one execution compared with the CPU's. */
static bool describe(dmlops_context *ctx, uint32_t rows, dmlops_operator_info *info, dmlops_operator_kernel_info *k)
{
    dmt_slice s;
    slice_desc(&s, rows);
    const uint64_t sizes[2] = {s.in.buf.TotalTensorSizeInBytes, s.out.buf.TotalTensorSizeInBytes};
    if (!vkt_same_as_cpu(ctx, &s.desc, 1, sizes, rows, NULL, NULL, NULL)) return false;
    dmlops_operator *op = NULL;
    if (!CHECK_OK(dmlops_operator_create(ctx, &s.desc, &op))) return false;
    *k = (dmlops_operator_kernel_info){.s_type = DMLOPS_STRUCTURE_TYPE_OPERATOR_KERNEL_INFO};
    dmlops_operator_info2 i2 = {.s_type = DMLOPS_STRUCTURE_TYPE_OPERATOR_INFO2, .next = k};
    const bool ok = CHECK_OK(dmlops_operator_get_info2(op, &i2));
    *info = i2.info;
    dmlops_operator_destroy(op);
    return ok;
}

TEST(kernel_info_names_what_gpu_tuning_runs)
{
    dmlops_context *gpu = context_with("gpu", NULL, NULL, NULL, NULL);
    if (!gpu) return;
    dmlops_operator_info info;
    dmlops_operator_kernel_info k;
    if (describe(gpu, 64, &info, &k)) {
        printf("    gpu tuning: %s/%s, tiles %u, texel %u, workgroup %u x %u groups, %u dispatches, %u bytes shared\n",
               k.kernel, k.variant, k.tiles, k.texel, k.workgroup_size, k.workgroup_count, k.dispatch_count,
               k.shared_memory_bytes);
        CHECK(!strcmp(k.kernel, "slice"), "kernel \"%s\"", k.kernel);
        /* The slice's rows start on 16 bytes in both tensors: every chunk is one aligned
         * source vector, the tiles' module that stages nothing and declares no shared memory. */
        CHECK(k.tiles == 1 && !strcmp(k.variant, "tile_rows"), "variant \"%s\", tiles %u", k.variant, k.tiles);
        CHECK(k.shared_memory_bytes == 0, "the aligned rows' tiles declare shared memory: %u bytes", k.shared_memory_bytes);
        CHECK(k.texel == 0, "the tiles run on storage buffers");
        CHECK(k.dispatch_count == info.dispatch_count, "%u dispatches, info says %u", k.dispatch_count,
              info.dispatch_count);
        CHECK(k.element_size == 4 && k.workgroup_size >= 1 && k.workgroup_count >= 1, "esize %u, workgroup %u x %u",
              k.element_size, k.workgroup_size, k.workgroup_count);
    }
    vkt_done(gpu);
    dmlops_context *no_tiles = context_with("gpu", "0", NULL, NULL, NULL);
    if (no_tiles && describe(no_tiles, 64, &info, &k)) {
        CHECK(k.tiles == 0 && strcmp(k.variant, "tiles") != 0 && k.shared_memory_bytes == 0,
              "DMLOPS_VK_TILES=0: variant \"%s\", tiles %u, %u bytes shared", k.variant, k.tiles, k.shared_memory_bytes);
        printf("    gpu tuning without tiles: %s/%s\n", k.kernel, k.variant);
    }
    vkt_done(no_tiles);
}

TEST(kernel_info_follows_texel_workgroup_and_grid)
{
    dmlops_operator_info info;
    dmlops_operator_kernel_info k;
    dmlops_context *texel = context_with("cpu", NULL, "1", NULL, NULL);
    if (!texel) return;
    if (describe(texel, 64, &info, &k)) CHECK(k.texel == 1, "DMLOPS_VK_TEXEL=1 on a CPU device: texel %u", k.texel);
    vkt_done(texel);
    dmlops_context *storage = context_with("cpu", NULL, "0", "64", "3");
    if (storage && describe(storage, 512, &info, &k)) {
        CHECK(k.texel == 0, "DMLOPS_VK_TEXEL=0: texel %u", k.texel);
        CHECK(k.workgroup_size == 64, "DMLOPS_VK_WORKGROUP=64: workgroup %u", k.workgroup_size);
        CHECK(k.workgroup_count == 3, "DMLOPS_VK_GRID=3 on 2 MiB: grid %u", k.workgroup_count);
        CHECK(k.run >= 1 && k.lanes >= 1, "run %u, lanes %u", k.run, k.lanes);
    }
    vkt_done(storage);
}

TEST_CTX(kernel_info_elsewhere_is_empty)
{
    /* The CPU backend runs no kernel; a copy-region plan neither. */
    dmt_slice s;
    slice_desc(&s, 4);
    dmlops_operator *op = NULL;
    REQUIRE_OK(dmlops_operator_create(ctx, &s.desc, &op));
    dmlops_operator_kernel_info k = {.s_type = DMLOPS_STRUCTURE_TYPE_OPERATOR_KERNEL_INFO};
    memset(k.kernel, 'x', sizeof k.kernel); /* filled by the call, whatever it held */
    dmlops_operator_info2 i2 = {.s_type = DMLOPS_STRUCTURE_TYPE_OPERATOR_INFO2, .next = &k};
    CHECK_OK(dmlops_operator_get_info2(op, &i2));
    if (i2.info.planned_path != DMLOPS_PATH_KERNEL)
        CHECK(k.kernel[0] == 0 && k.workgroup_size == 0 && k.dispatch_count == 0, "%s path: kernel \"%.16s\"",
              dmlops_path_name(i2.info.planned_path), k.kernel);
    else
        CHECK(k.kernel[0] != 0 && k.workgroup_size > 0, "kernel path without a kernel");
    /* What get_info gives, get_info2 gives too. */
    dmlops_operator_info plain;
    CHECK_OK(dmlops_operator_get_info(op, &plain));
    CHECK(!memcmp(&plain, &i2.info, sizeof plain), "get_info2's info differs from get_info's");
    /* Its chain obeys the rules. */
    i2.s_type = DMLOPS_STRUCTURE_TYPE_OPERATOR_KERNEL_INFO;
    CHECK_STATUS(dmlops_operator_get_info2(op, &i2), DMLOPS_ERROR_INVALID_ARGUMENT, "dmlops_operator_info2 has s_type");
    i2.s_type = DMLOPS_STRUCTURE_TYPE_OPERATOR_INFO2;
    dmlops_operator_kernel_info twice = {.s_type = DMLOPS_STRUCTURE_TYPE_OPERATOR_KERNEL_INFO};
    k.next = &twice;
    CHECK_STATUS(dmlops_operator_get_info2(op, &i2), DMLOPS_ERROR_INVALID_ARGUMENT, "twice");
    dmlops_operator_destroy(op);
}
