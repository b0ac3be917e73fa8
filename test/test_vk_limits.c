/* The limits the Vulkan planner works within and the memory types it allocates from,
 * derived from device properties that no machine here has: an NVIDIA H200's, as `dmlops
 * info` printed them on the lent GPU (docs/performance.md), and lavapipe's; and the
 * kernel variants it picks per layout. White-box: dm_vk_limits_init and the kernel
 * choices are internal, so these run without a device and guard the GPU defaults on
 * every CI run. */
#include <stdint.h>
#include <string.h>

#include "../src/vk/kernels.h"
#include "../src/vk/vk_abi.h"
#include "../src/vk/vk_memory.h"
#include "../src/vk/vk_physical.h"
#include "../src/vk/vk_plan.h"
#include "harness.h"

static dmlops_device_info h200_info(void)
{
    dmlops_device_info d = {0};
    d.type = DMLOPS_DEVICE_TYPE_DISCRETE_GPU;
    d.max_storage_buffer_range = 4294967295u;
    d.max_memory_allocation_size = 4292870144u;
    d.max_compute_work_group_count[0] = 2147483647u;
    d.max_compute_work_group_count[1] = d.max_compute_work_group_count[2] = 65535;
    d.max_compute_work_group_invocations = 1024;
    d.min_storage_buffer_offset_alignment = 16;
    d.subgroup_size = 32;
    return d;
}

static dmlops_device_info lavapipe_info(void)
{
    dmlops_device_info d = h200_info();
    d.type = DMLOPS_DEVICE_TYPE_CPU;
    d.max_storage_buffer_range = 134217728u;
    d.subgroup_size = 8;
    return d;
}

/* What a context without DMLOPS_VK_* variables passes. */
static dm_vk_params no_tuning(void)
{
    dm_vk_params p = {0};
    p.texel = -1;
    p.cpu_tuning = -1;
    p.copy_min_bytes = -1;
    return p;
}

TEST(kernel_bindings_stay_below_2_gib)
{
    /* The H200 left a 2.34 GiB kernel output unwritten when one binding covered it. */
    const dmlops_device_info gpu = h200_info(), cpu = lavapipe_info();
    const dm_vk_params p = no_tuning();
    dm_vk_limits lim;
    dm_vk_limits_init(&gpu, &p, 0, &lim);
    CHECK(lim.max_range == 1ull << 31, "H200 window limit %llu", (unsigned long long)lim.max_range);
    dm_vk_limits_init(&cpu, &p, 0, &lim);
    CHECK(lim.max_range == 134217728u, "lavapipe window limit %llu", (unsigned long long)lim.max_range);
    dm_vk_params small = no_tuning();
    small.max_binding_range = 1 << 20;
    dm_vk_limits_init(&gpu, &small, 0, &lim);
    CHECK(lim.max_range == 1 << 20, "asked-for window limit %llu", (unsigned long long)lim.max_range);
}

TEST(gpus_take_kernels_for_contiguous_runs)
{
    /* On the H200 a copy region cost ~1.9 us each and even one region ran below the
     * compute copy; lavapipe copies 8-byte regions faster than a kernel. */
    const dmlops_device_info gpu = h200_info(), cpu = lavapipe_info();
    dm_vk_params p = no_tuning();
    dm_vk_limits lim;
    dm_vk_limits_init(&gpu, &p, 0, &lim);
    CHECK(lim.copy_min_bytes == UINT64_MAX, "GPU copy-region threshold %llu", (unsigned long long)lim.copy_min_bytes);
    CHECK(!lim.cpu_tuning && lim.workgroup == DM_VK_WORKGROUP && lim.grid_cap == 8192 && lim.lanes == 1,
          "GPU tuning: cpu %d, workgroup %u, grid %u, lanes %u", lim.cpu_tuning, lim.workgroup, lim.grid_cap, lim.lanes);
    dm_vk_limits_init(&cpu, &p, 0, &lim);
    CHECK(lim.copy_min_bytes == 64, "CPU-device copy-region threshold %llu", (unsigned long long)lim.copy_min_bytes);
    p.copy_min_bytes = 4096; /* DMLOPS_VK_COPY_MIN still moves it on a GPU */
    dm_vk_limits_init(&gpu, &p, 0, &lim);
    CHECK(lim.copy_min_bytes == 4096, "DMLOPS_VK_COPY_MIN=4096 gave %llu", (unsigned long long)lim.copy_min_bytes);
}

enum {
    DL = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
    HV = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
    HC = VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
};

static VkPhysicalDeviceMemoryProperties memory_types(const VkMemoryPropertyFlags *flags, uint32_t n)
{
    VkPhysicalDeviceMemoryProperties mp = {0};
    mp.memoryTypeCount = n;
    for (uint32_t i = 0; i < n; i++) mp.memoryTypes[i].propertyFlags = flags[i];
    return mp;
}

TEST(parameter_records_live_in_bar_memory_where_offered)
{
    /* A discrete NVIDIA GPU's types: none, device-local, host coherent, host cached, and
     * the BAR window (device-local and host-visible). Parameter records go to the BAR so
     * that creating an operator writes them through a mapping, with no staging buffer
     * and no submission; tensors stay device-local, staging host-cached. */
    const VkMemoryPropertyFlags nv[] = {0, DL, HV, HV | HC, DL | HV};
    VkPhysicalDeviceMemoryProperties mp = memory_types(nv, 5);
    const uint32_t all = 0x1f;
    CHECK(dm_vk_memory_type(&mp, all, DM_VK_MEM_PARAMS, false) == 4, "params on a BAR GPU: type %u",
          dm_vk_memory_type(&mp, all, DM_VK_MEM_PARAMS, false));
    CHECK(dm_vk_memory_type(&mp, all, DM_VK_MEM_PARAMS_MAPPED, false) == 4, "mapped params on a BAR GPU: type %u",
          dm_vk_memory_type(&mp, all, DM_VK_MEM_PARAMS_MAPPED, false));
    CHECK(dm_vk_memory_type(&mp, all, DM_VK_MEM_DEVICE, false) == 1, "tensors: type %u",
          dm_vk_memory_type(&mp, all, DM_VK_MEM_DEVICE, false));
    CHECK(dm_vk_memory_type(&mp, all, DM_VK_MEM_HOST, false) == 3, "staging: type %u",
          dm_vk_memory_type(&mp, all, DM_VK_MEM_HOST, false));
    /* The buffer cannot live in the BAR type: device-local, uploaded through staging. */
    CHECK(dm_vk_memory_type(&mp, 0x0f, DM_VK_MEM_PARAMS, false) == 1, "params without the BAR type: %u",
          dm_vk_memory_type(&mp, 0x0f, DM_VK_MEM_PARAMS, false));
    /* The same types in another order, the BAR type first and a host type without
     * caching before the cached one: the choice follows the flags, not the order. */
    const VkMemoryPropertyFlags shuffled[] = {DL | HV, HV, DL, HV | HC};
    mp = memory_types(shuffled, 4);
    CHECK(dm_vk_memory_type(&mp, 0xf, DM_VK_MEM_DEVICE, false) == 2, "tensors, BAR listed first: type %u",
          dm_vk_memory_type(&mp, 0xf, DM_VK_MEM_DEVICE, false));
    CHECK(dm_vk_memory_type(&mp, 0xf, DM_VK_MEM_HOST, false) == 3, "staging, BAR listed first: type %u",
          dm_vk_memory_type(&mp, 0xf, DM_VK_MEM_HOST, false));
    CHECK(dm_vk_memory_type(&mp, 0xf, DM_VK_MEM_PARAMS, false) == 0, "params, BAR listed first: type %u",
          dm_vk_memory_type(&mp, 0xf, DM_VK_MEM_PARAMS, false));
    /* No BAR type at all (older GPUs and drivers). */
    mp = memory_types(nv, 4);
    CHECK(dm_vk_memory_type(&mp, all, DM_VK_MEM_PARAMS, false) == 1, "params on a GPU without BAR: type %u",
          dm_vk_memory_type(&mp, all, DM_VK_MEM_PARAMS, false));
    /* Records that must be mapped (a binding table's own) take host memory there. */
    CHECK(dm_vk_memory_type(&mp, all, DM_VK_MEM_PARAMS_MAPPED, false) == 3, "mapped params without BAR: type %u",
          dm_vk_memory_type(&mp, all, DM_VK_MEM_PARAMS_MAPPED, false));
    /* Unified memory (lavapipe, integrated GPUs): one host-visible device-local type
     * serves everything, cached where offered. */
    const VkMemoryPropertyFlags igpu[] = {DL, DL | HV, DL | HV | HC};
    mp = memory_types(igpu, 3);
    for (int use = DM_VK_MEM_DEVICE; use <= DM_VK_MEM_PARAMS_MAPPED; use++)
        CHECK(dm_vk_memory_type(&mp, 7, (dm_vk_mem)use, true) == 2, "unified memory, use %d: type %u", use,
              dm_vk_memory_type(&mp, 7, (dm_vk_mem)use, true));
}

TEST(every_variant_the_planner_picks_has_its_module)
{
    /* The Makefile builds one module per (row bucket, variant, texel) from its per-kernel
     * variant lists; dm_kernel_variant (kernels.c) must never pick one it left out. The
     * variants each kernel's chunk_vec implements, as kernels.c returns them; FLAT ones
     * serve packed rows of rank 1 or 2, which the first row bucket holds. */
    static const uint32_t picks[DM_KERNEL_COUNT][5] = {
        [DM_KERNEL_SLICE] = {DM_VARIANT_STREAM, DM_VARIANT_PAIRS, DM_VARIANT_WORDS, DM_VARIANT_FLAT},
        [DM_KERNEL_REVERSE] = {DM_VARIANT_ALONG, DM_VARIANT_ACROSS, DM_VARIANT_FLAT, DM_VARIANT_COLUMNS},
        [DM_KERNEL_ONE_HOT] = {DM_VARIANT_ALONG, DM_VARIANT_ACROSS, DM_VARIANT_FLAT, DM_VARIANT_FLAT_ROWS},
    };
    for (int k = 0; k < DM_KERNEL_COUNT; k++)
        for (int b = 0; b < DM_ROW_BUCKETS; b++)
            for (int t = 0; t < 2; t++) {
                CHECK(dm_kernels[k][b][DM_VARIANT_GENERAL][t].code != NULL, "kernel %d bucket %d: no general module", k,
                      b);
                for (int i = 0; i < 5 && picks[k][i]; i++) {
                    const uint32_t v = picks[k][i];
                    const bool flat = v == DM_VARIANT_FLAT || v == DM_VARIANT_FLAT_ROWS;
                    if (flat && b > 0) continue;
                    CHECK(dm_kernels[k][b][v][t].code != NULL && dm_kernels[k][b][v][t].size > 20,
                          "kernel %d bucket %d texel %d: no module of variant %u", k, b, t, v);
                }
            }
}

/* A REVERSE of [T, C] along axis 0 as op_reverse.c lowers it: the axis through the source
 * window (window_stride apart), lengths [1, C] one per column (stride 1 along the row). */
static dm_gather reverse_columns_gather(uint32_t T, uint32_t C, uint32_t esize)
{
    dm_gather g;
    memset(&g, 0, sizeof g);
    g.kernel = DM_KERNEL_REVERSE;
    g.esize = esize;
    g.rank = 2;
    g.size[0] = T;
    g.size[1] = C;
    g.stride[DM_SLOT_DST][0] = C;
    g.stride[DM_SLOT_DST][1] = g.stride[DM_SLOT_SRC][1] = g.stride[DM_SLOT_AUX][1] = 1;
    g.axis = 0;
    g.n = g.window = T;
    g.window_stride = C;
    g.aux_esize = 4;
    g.aux_dtype = DML_TENSOR_DATA_TYPE_UINT32;
    g.binding[DM_SLOT_DST] = 2;
    g.binding[DM_SLOT_SRC] = 0;
    g.binding[DM_SLOT_AUX] = 1;
    g.binding[DM_SLOT_AUX2] = -1;
    return g;
}

TEST(reverse_columns_variant_and_alignment_follow_the_layout)
{
    /* COLUMNS on CPU devices (texel) only, with its lengths bound as 16-byte texels too;
     * ALIGNED when every row's chunks start on 16-byte boundaries. */
    dm_gather g = reverse_columns_gather(16, 1024, 4);
    CHECK(dm_kernel_variant(&g, true) == DM_VARIANT_COLUMNS, "variant %u", dm_kernel_variant(&g, true));
    CHECK(dm_kernel_variant(&g, false) == DM_VARIANT_GENERAL, "GPUs keep the general path");
    CHECK(dm_kernel_aux_vectors(&g), "COLUMNS reads its lengths through Aux4T");
    CHECK(dm_kernel_src_words(&g), "FLOAT32 elements come from word texels (SrcWT)");
    CHECK(dm_kernel_src_aligned(&g, DM_VARIANT_COLUMNS));
    g = reverse_columns_gather(16, 1024, 1);
    CHECK(dm_kernel_src_aligned(&g, DM_VARIANT_COLUMNS), "UINT8 rows of 1024 bytes");
    CHECK(dm_kernel_src_words(&g), "UINT8 elements come from word texels (SrcWT)");
    g = reverse_columns_gather(16, 1024, 2);
    CHECK(dm_kernel_src_words(&g), "FLOAT16 elements come from word texels (SrcWT)");
    /* Rows of 1021 FLOAT32 (4084 bytes): the output steps off 16 bytes per row. */
    g = reverse_columns_gather(16, 1021, 4);
    CHECK(dm_kernel_variant(&g, true) == DM_VARIANT_COLUMNS && !dm_kernel_src_aligned(&g, DM_VARIANT_COLUMNS));
    /* The output's rows aligned, the source's not (its axis steps by 1021 elements). */
    g = reverse_columns_gather(16, 1024, 4);
    g.window_stride = 1021;
    CHECK(!dm_kernel_src_aligned(&g, DM_VARIANT_COLUMNS), "source rows 4084 bytes apart");
    /* The source one element in. */
    g = reverse_columns_gather(16, 1024, 4);
    g.base[DM_SLOT_SRC] = 1;
    CHECK(!dm_kernel_src_aligned(&g, DM_VARIANT_COLUMNS), "source origin at byte 4");
    /* Not COLUMNS: lengths two elements apart, a source row with a step, lengths constant
     * along the row (ACROSS, which reads no length vectors). */
    g = reverse_columns_gather(16, 1024, 8);
    CHECK(!dm_kernel_src_words(&g), "FLOAT64 elements come from 16-byte texels");
    g = reverse_columns_gather(16, 1024, 4);
    g.stride[DM_SLOT_AUX][1] = 2;
    CHECK(dm_kernel_variant(&g, true) == DM_VARIANT_GENERAL && !dm_kernel_aux_vectors(&g));
    g = reverse_columns_gather(16, 1024, 4);
    g.stride[DM_SLOT_SRC][1] = 2;
    CHECK(dm_kernel_variant(&g, true) == DM_VARIANT_GENERAL);
    g = reverse_columns_gather(16, 1024, 4);
    g.stride[DM_SLOT_AUX][1] = 0;
    CHECK(dm_kernel_variant(&g, true) == DM_VARIANT_ACROSS && !dm_kernel_aux_vectors(&g));
    g = reverse_columns_gather(16, 1024, 1);
    g.stride[DM_SLOT_AUX][1] = 0;
    CHECK(!dm_kernel_src_words(&g), "UINT8 ACROSS reads no word texels");
}

/* With the axis over several source windows (a tensor past lavapipe's 128 MiB), the plan
 * says so and COLUMNS pipelines store partial chunks (PARTIAL); one window, or another
 * variant, keeps the plain store. */
TEST(reverse_columns_store_partial_chunks_when_the_axis_is_split)
{
    const dmlops_device_info cpu = lavapipe_info();
    const dm_vk_params p = no_tuning();
    dm_vk_limits lim;
    dm_vk_limits_init(&cpu, &p, 0, &lim);
    lim.texel = true; /* dm_vk_texel_init's choice on lavapipe: 2^27 texels of 4 bytes */
    lim.texel_range = lim.max_range;
    dm_vk_plan plan;
    dm_gather g = reverse_columns_gather(16, 1u << 20, 4); /* 64 MiB */
    if (CHECK_OK(dm_vk_plan_gather(&lim, &g, &plan))) {
        CHECK(!plan.axis_split, "64 MiB in %u pieces", plan.npieces);
        CHECK(!dm_kernel_partial(&g, DM_VARIANT_COLUMNS, plan.axis_split));
        dm_vk_plan_free(&plan);
    }
    g = reverse_columns_gather(16, 10u << 20, 1); /* 160 MiB */
    if (CHECK_OK(dm_vk_plan_gather(&lim, &g, &plan))) {
        CHECK(plan.axis_split && plan.npieces > 1, "160 MiB in %u pieces", plan.npieces);
        CHECK(dm_kernel_partial(&g, dm_kernel_variant(&g, true), plan.axis_split));
        CHECK(!dm_kernel_partial(&g, DM_VARIANT_GENERAL, plan.axis_split), "the general path stores element by element");
        dm_vk_plan_free(&plan);
    }
}

/* lavapipe under the spec's minimum limits (test/profile_layer/profiles/min.profile), as
 * dm_vk_texel_init leaves them: 256-byte alignments, and texel views of 65536 texels,
 * whose 256 KiB windows are 512 times smaller than storage buffers' 128 MiB. */
static dm_vk_limits min_profile_limits(void)
{
    dmlops_device_info cpu = lavapipe_info();
    cpu.min_storage_buffer_offset_alignment = 256;
    cpu.max_compute_work_group_invocations = 128;
    const dm_vk_params p = no_tuning();
    dm_vk_limits lim;
    dm_vk_limits_init(&cpu, &p, 0, &lim);
    lim.texel = true;
    lim.texel_range = 65536 * 4;
    return lim;
}

TEST(small_texel_windows_leave_operators_to_storage_buffers)
{
    const dm_vk_limits lim = min_profile_limits();
    dm_vk_plan plan;
    /* A REVERSE along 2^25 + 3 UINT64 (256 MiB): texel windows split both the output and
     * the reversed source past the planner's 65536 windows (the operator was refused
     * under the minimum profile); storage windows need a handful. */
    dm_gather g = reverse_columns_gather((1u << 25) + 3, 1, 8);
    if (CHECK_OK(dm_vk_plan_gather(&lim, &g, &plan))) {
        CHECK(!plan.texel && plan.npieces <= 16, "256 MiB REVERSE: texel path %d, %u pieces", plan.texel, plan.npieces);
        dm_vk_plan_free(&plan);
    }
    /* 64 KiB fits one texel window: the texel path stays, as on lavapipe itself. */
    g = reverse_columns_gather(16, 1024, 4);
    if (CHECK_OK(dm_vk_plan_gather(&lim, &g, &plan))) {
        CHECK(plan.texel && plan.npieces == 1, "64 KiB REVERSE: texel path %d, %u pieces", plan.texel, plan.npieces);
        dm_vk_plan_free(&plan);
    }
    /* 4 MiB: 16 or more texel windows where one storage window holds it all. */
    g = reverse_columns_gather(1024, 1024, 4);
    if (CHECK_OK(dm_vk_plan_gather(&lim, &g, &plan))) {
        CHECK(!plan.texel && plan.npieces == 1, "4 MiB REVERSE: texel path %d, %u pieces", plan.texel, plan.npieces);
        dm_vk_plan_free(&plan);
    }
    /* Texel views as large as storage windows (lavapipe's own limits): planned once, on
     * the texel path, however many windows it takes. */
    dm_vk_limits big = lim;
    big.texel_range = big.max_range;
    g = reverse_columns_gather(16, 10u << 20, 1); /* 160 MiB */
    if (CHECK_OK(dm_vk_plan_gather(&big, &g, &plan))) {
        CHECK(plan.texel && plan.npieces > 1, "160 MiB on lavapipe: texel path %d, %u pieces", plan.texel, plan.npieces);
        dm_vk_plan_free(&plan);
    }
    /* The compute copy reads through 16-byte texel views only where its windows fit one. */
    CHECK(!dm_vk_copy_texel(&lim) && dm_vk_copy_texel(&big), "compute copy texel path: min %d, lavapipe %d",
          dm_vk_copy_texel(&lim), dm_vk_copy_texel(&big));
}

/* A unified-memory GPU has its one heap and nothing else: a Raspberry Pi 4 with 2 GiB of
 * RAM reports 1 GiB (Mesa's V3DV, compute_heap_size), and a buffer beyond it is refused
 * up front. lavapipe, whose heap stands for host memory it allocates lazily, keeps the
 * bound of its heaps and the machine's memory together. */
TEST(unified_gpus_are_bounded_by_their_heap)
{
    dmlops_device_info pi = lavapipe_info();
    pi.type = DMLOPS_DEVICE_TYPE_INTEGRATED_GPU;
    pi.unified_memory = 1;
    pi.memory_heap_count = 1;
    pi.memory_heap_size[0] = 1ull << 30;
    pi.memory_heap_device_local[0] = 1;
    const dm_vk_params p = no_tuning();
    dm_vk_limits lim;
    dm_vk_limits_init(&pi, &p, 0, &lim);
    CHECK(lim.unified_heap && lim.memory_limit == 1ull << 30, "Raspberry Pi 4: heap-bound %d, limit %llu",
          lim.unified_heap, (unsigned long long)lim.memory_limit);
    dmlops_device_info cpu = pi;
    cpu.type = DMLOPS_DEVICE_TYPE_CPU;
    dm_vk_limits_init(&cpu, &p, 0, &lim);
    CHECK(!lim.unified_heap && lim.memory_limit > 1ull << 30, "lavapipe with a 1 GiB heap: heap-bound %d, limit %llu",
          lim.unified_heap, (unsigned long long)lim.memory_limit);
    /* A discrete GPU's heaps are not all the memory there is (host memory backs staging
     * and can back buffers): the old bound stays. */
    dmlops_device_info gpu = h200_info();
    gpu.memory_heap_count = 2;
    gpu.memory_heap_size[0] = 1ull << 30;
    gpu.memory_heap_device_local[0] = 1;
    gpu.memory_heap_size[1] = 1ull << 30;
    dm_vk_limits_init(&gpu, &p, 0, &lim);
    CHECK(!lim.unified_heap && lim.memory_limit > 2ull << 30, "discrete GPU: heap-bound %d, limit %llu",
          lim.unified_heap, (unsigned long long)lim.memory_limit);
}
