/* dmlops bench's arithmetic, compiled in here (as test_npy compiles the .npy code): the
 * 32-byte sectors each case must move (src/bench/sectors.c), the table of known devices
 * (src/bench/peaks.c) and the access model's cases (src/bench/cases.c). */
#include <stdlib.h>

#include "../src/bench/cases.c"
#include "../src/bench/peaks.c"
#include "../src/bench/sectors.c"
#include "../src/cli/common.c"
#include "../src/cli/scalar.c"
#include "harness.h"
#include "vkt.h"

static bench_case *suite(const char *filter, size_t *n)
{
    bench_case *c = bench_suite(false, true, filter, n);
    if (!c || !*n) (void)CHECK(0, "no case matches '%s'", filter ? filter : "(any)");
    return c;
}

/* gpu.md: a stride-2 slice of 4-byte elements reads every sector of its input, so its real
 * traffic is 1.5x the bytes dmlops_operator_get_info counts. So do 1-, 2- and 8-byte ones. */
TEST(stride_2_slice_reads_all_of_its_input)
{
    size_t n = 0;
    bench_case *cases = suite("rows=-1,stride=2", &n);
    REQUIRE(cases);
    for (size_t i = 0; i < n; i++) {
        const bench_case *c = &cases[i];
        const bench_sectors s = bench_case_sectors(c);
        const uint64_t in = c->bt[0].TotalTensorSizeInBytes, out = c->bt[1].TotalTensorSizeInBytes;
        CHECK(s.read * 32 == in, "%s: %llu sectors read, the input is %llu bytes", c->label,
              (unsigned long long)s.read, (unsigned long long)in);
        CHECK(s.written * 32 == out && out * 2 == in, "%s: %llu sectors written of a %llu-byte output", c->label,
              (unsigned long long)s.written, (unsigned long long)out);
    }
    free(cases);
}

/* The CPU backend's figures count 64-byte lines as the GPU's count sectors: a stride-2
 * slice reads every line of its input (1.5x the bytes dmlops_operator_get_info counts),
 * ONE_HOT's two values take one line, a slice of columns C/4 .. 3C/4 the lines its
 * window touches in each row (two for 64 bytes from byte 32), every other tensor its
 * bytes rounded up to lines (what issue 47's "x memcpy" divides, with a memcpy of half
 * of them). */
TEST(cpu_figures_count_whole_lines)
{
    size_t n = 0;
    bench_case *cases = suite(NULL, &n);
    REQUIRE(cases);
    for (size_t i = 0; i < n; i++) {
        const bench_case *c = &cases[i];
        uint64_t want = 0;
        for (uint32_t t = 0; t <= c->ninputs; t++) {
            const uint64_t bytes = c->bt[t].TotalTensorSizeInBytes;
            const uint64_t es = dmlops_data_type_size(c->type), lo = c->cols / 4 * es, hi = lo + c->cols / 2 * es;
            if (c->fam->op == DML_OPERATOR_SLICE1 && t == 0 && c->strides[1] == 1) /* rows' lines [lo, hi) */
                want += (uint64_t)c->rows * ((hi - 1) / 64 - lo / 64 + 1) * 64;
            else want += (bytes + 63) / 64 * 64; /* read or written whole */
        }
        CHECK(bench_case_line_bytes(c) == want, "%s: %llu line bytes, expected %llu", c->label,
              (unsigned long long)bench_case_line_bytes(c), (unsigned long long)want);
        if (c->fam->op == DML_OPERATOR_SLICE1 && c->strides[1] == 2)
            CHECK(bench_case_line_bytes(c) * 2 == 3 * c->bt[0].TotalTensorSizeInBytes, "%s: a stride-2 slice moves 1.5x its input",
                  c->label);
    }
    free(cases);
}

/* Whole tensors: REVERSE reads its data and lengths and writes its output; ONE_HOT reads
 * its indices and its two values (one sector) and writes its output; a slice of columns
 * C/4 .. 3C/4 reads only those, sector-aligned in every size. */
TEST(sectors_of_whole_tensors_and_aligned_windows)
{
    size_t n = 0;
    bench_case *cases = suite(NULL, &n);
    REQUIRE(cases);
    for (size_t i = 0; i < n; i++) {
        const bench_case *c = &cases[i];
        const bench_sectors s = bench_case_sectors(c);
        const uint64_t es = dmlops_data_type_size(c->type), data = (uint64_t)c->rows * c->cols * es;
        uint64_t read = 0;
        if (c->fam->op == DML_OPERATOR_REVERSE_SUBSEQUENCES)
            read = data / 32 + (c->bt[1].TotalTensorSizeInBytes + 31) / 32;
        else if (c->fam->op == DML_OPERATOR_ONE_HOT) read = ((uint64_t)c->rows * 4 + 31) / 32 + 1;
        else if (c->strides[1] == 1) read = (uint64_t)c->rows * ((c->cols / 2 * es + 31) / 32);
        else read = data / 32;
        CHECK(s.read == read, "%s: %llu sectors read, expected %llu", c->label, (unsigned long long)s.read,
              (unsigned long long)read);
        CHECK(s.written * 32 == c->bt[c->ninputs].TotalTensorSizeInBytes, "%s: %llu sectors written", c->label,
              (unsigned long long)s.written);
        CHECK(bench_sector_bytes(s) >= c->bt[c->ninputs].TotalTensorSizeInBytes, "%s", c->label);
    }
    free(cases);
}

/* Windows built by hand from a suite case: gaps of 32 bytes or more leave sectors unread,
 * shorter ones do not; a negative stride reads the same elements from the other end; rows
 * that share a sector count it once. */
TEST(sectors_of_gapped_reversed_and_unaligned_windows)
{
    size_t n = 0;
    bench_case *cases = suite("SLICE1 stride=1 FLOAT32 4 KiB", &n);
    REQUIRE(cases);
    bench_case c = cases[0]; /* [32, 32] FLOAT32, columns from 8, rows of 128 bytes */
    c.window[1] = 17;
    c.strides[1] = 16; /* columns 8 and 24: bytes 32 and 96, a 60-byte gap: sectors 1 and 3 */
    CHECK(bench_case_sectors(&c).read == 32 * 2, "a 64-byte step: %llu", (unsigned long long)bench_case_sectors(&c).read);
    c.window[1] = 16;
    c.strides[1] = -8; /* columns 23 and 15: bytes 60 and 92, a 28-byte gap: sectors 1 and 2 */
    CHECK(bench_case_sectors(&c).read == 32 * 2, "a 32-byte step backwards: %llu",
          (unsigned long long)bench_case_sectors(&c).read);
    c.window[1] = 17; /* columns 24, 16 and 8: sectors 1, 2 and 3 */
    CHECK(bench_case_sectors(&c).read == 32 * 3, "an odd window backwards: %llu",
          (unsigned long long)bench_case_sectors(&c).read);
    c.type = DML_TENSOR_DATA_TYPE_UINT8; /* 4 rows of 24 bytes, whole: 96 contiguous bytes */
    c.rows = 4;
    c.cols = 24;
    c.offsets[0] = c.offsets[1] = 0;
    c.window[0] = 4;
    c.window[1] = 24;
    c.strides[0] = 1;
    c.strides[1] = 1;
    CHECK(bench_case_sectors(&c).read == 3, "4 rows of 24 bytes: %llu", (unsigned long long)bench_case_sectors(&c).read);
    c.strides[0] = -2; /* rows 3 and 1: bytes 24..47 (sectors 0, 1) and 72..95 (sector 2) */
    CHECK(bench_case_sectors(&c).read == 3, "every other row: %llu", (unsigned long long)bench_case_sectors(&c).read);
    free(cases);
}

TEST(peak_table_finds_devices_by_name_and_id)
{
    static const struct {
        const char *name;
        uint32_t vendor, device;
        double gbps;
    } known[] = {
        {"NVIDIA H100 80GB HBM3", 0, 0, 3350},      /* the SXM5's Vulkan name (gpu.md) */
        {"NVIDIA H100 PCIe", 0, 0, 2000},
        {"NVIDIA H200", 0, 0, 4800},
        {"NVIDIA H200 NVL", 0, 0, 4800},
        {"nvidia a100-sxm4-80gb", 0, 0, 2039},     /* ignoring case */
        {"NVIDIA A100-PCIE-40GB", 0, 0, 1555},
        {"NVIDIA A100 80GB PCIe", 0, 0, 1935},
        {"V3D 4.2", 0, 0, 12.8},
        {"Turnip Adreno (TM) 618", 0, 0, 14.9},
        {"Mali-G610 MC4", 0, 0, 33.8},
        {"a renamed board", 0x10de, 0x2331, 2000}, /* by PCI id */
        {NULL, 0x14e4, 0xbe485fd3, 12.8},          /* V3DV's ids, no name */
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        const bench_peak *p = bench_peak_find(known[i].name, known[i].vendor, known[i].device);
        CHECK(p && p->gbps == known[i].gbps, "%s: %s", known[i].name ? known[i].name : "(ids)", p ? p->name : "not found");
    }
    CHECK(!bench_peak_find("llvmpipe (LLVM 15.0.6, 256 bits)", 0x10005, 0), "lavapipe has no peak");
    CHECK(!bench_peak_find("NVIDIA GeForce RTX 4090", 0x10de, 0x2684), "an unknown NVIDIA GPU has no peak");
    /* Every entry cites its source, has a cache for the rotation rule, and is what its own
     * names find: a shorter pattern earlier in the table ("H200") would shadow a longer
     * one after it ("H200 NVL"). */
    size_t n = 0;
    const bench_peak *t = bench_peak_table(&n);
    CHECK(n >= 12, "%zu entries", n);
    for (size_t i = 0; i < n; i++) {
        CHECK(t[i].source && strlen(t[i].source) > 20 && t[i].gbps > 0 && t[i].llc_bytes > 0, "%s", t[i].name);
        for (size_t m = 0; m < BENCH_PEAK_NAMES && t[i].match[m]; m++)
            CHECK(bench_peak_find(t[i].match[m], 0, 0) == &t[i], "%s: '%s' finds another entry", t[i].name,
                  t[i].match[m]);
    }
}

/* --model: each case has the rows of its 64 MiB member (so the planner gives it the same
 * plan and variant: rows of 1 KiB or more take wider units) in about 1 MiB. */
TEST(model_cases_keep_the_rows_of_the_large_sizes)
{
    size_t n = 0, nbig = 0;
    bench_case *model = bench_model_suite(1 << 20, NULL, &n), *big = bench_suite(false, false, "64 MiB", &nbig);
    REQUIRE(model && big);
    CHECK(n == nbig && n == 32, "%zu model cases, %zu of 64 MiB", n, nbig);
    for (size_t i = 0; i < n && i < nbig; i++) {
        const bench_case *m = &model[i], *b = &big[i];
        CHECK(m->fam == b->fam && m->type == b->type, "%s against %s", m->label, b->label);
        CHECK(m->cols == b->cols || m->rows == b->rows, "%s: [%u, %u], the 64 MiB case [%u, %u]", m->label, m->rows,
              m->cols, b->rows, b->cols);
        CHECK(m->tensor_bytes == 1 << 20 && m->bt[m->fam->op == DML_OPERATOR_ONE_HOT ? 2 : 0].TotalTensorSizeInBytes <= 1 << 20,
              "%s", m->label);
    }
    free(model);
    free(big);
}

/* ... and the planner agrees: on a Vulkan device tuned as a GPU (DMLOPS_VK_TUNING=gpu, as
 * --model sets it), each model case plans the same path and dispatches as its 64 MiB
 * member, and the 64 MiB member needs no pipeline the model case did not (one per kernel,
 * element size, variant, texel path and unit shape: src/vk/vk_pipeline.c). */
TEST(model_cases_get_the_plan_of_the_large_sizes)
{
    dmlops_context *vk = vkt_gpu_context(0);
    if (!vk) return;
    size_t n = 0, nbig = 0;
    bench_case *model = bench_model_suite(1 << 20, NULL, &n), *big = bench_suite(false, false, "64 MiB", &nbig);
    REQUIRE(model && big && n == nbig);
    for (size_t i = 0; i < n; i++) {
        dmlops_operator *a = NULL, *b = NULL;
        dmlops_operator_info ia, ib;
        dmlops_context_info before, after;
        if (!CHECK_OK(dmlops_operator_create(vk, &model[i].desc, &a))) continue;
        CHECK_OK(dmlops_context_get_info(vk, &before));
        if (CHECK_OK(dmlops_operator_create(vk, &big[i].desc, &b))) {
            CHECK_OK(dmlops_context_get_info(vk, &after));
            dmlops_operator_get_info(a, &ia);
            dmlops_operator_get_info(b, &ib);
            CHECK(ia.planned_path == ib.planned_path && ia.dispatch_count == ib.dispatch_count,
                  "%s: path %s, %u dispatches; %s: path %s, %u", model[i].label, dmlops_path_name(ia.planned_path),
                  ia.dispatch_count, big[i].label, dmlops_path_name(ib.planned_path), ib.dispatch_count);
            CHECK(after.pipeline_count == before.pipeline_count, "%s needs %u pipelines %s did not", big[i].label,
                  after.pipeline_count - before.pipeline_count, model[i].label);
        }
        dmlops_operator_destroy(a);
        dmlops_operator_destroy(b);
    }
    free(model);
    free(big);
    vkt_done(vk);
}
