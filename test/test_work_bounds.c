/* The work of one kernel invocation and of one dispatch is bounded whatever the tuning
 * values and the tensor's size (issue 45, item 1): lavapipe ends a shader invocation's
 * loops after 65535 iterations in all (gallivm's loop limiter), and a GPU's watchdog ends
 * a dispatch that runs too long, so an invocation that looped over all the work left
 * there would leave part of the output unwritten and report success. With the smallest
 * tuning values (one workgroup of one invocation, runs of one chunk) every path, under
 * the CPU's tuning and the GPU's, must still write exactly what the CPU backend writes.
 * Before the bound, REVERSE of UINT8 [2000, 256] along axis 1 at DMLOPS_VK_GRID=1
 * DMLOPS_VK_WORKGROUP=1 DMLOPS_VK_RUN=1 left 360,793 of its 512,000 bytes unwritten on
 * lavapipe. */
#include "vkt.h"

/* A tuning of the knobs (docs/api.md, "Environment"): NULL leaves one unset. */
typedef struct knobs {
    const char *tuning, *grid, *workgroup, *run, *lanes, *tiles;
    const char *name;
} knobs;

static const knobs tunings[] = {
    {NULL, "1", "1", "1", NULL, NULL, "the device's tuning, grid 1, workgroup 1, run 1"},
    {"cpu", "1", "1", "32", "1", NULL, "CPU tuning, grid 1, workgroup 1, run 32"},
    {"cpu", "1", "8", "1", "8", NULL, "CPU tuning, grid 1, workgroup 8, run 1, lanes 8"},
    {"gpu", "1", "1", "1", NULL, NULL, "GPU tuning (tiles), grid 1, workgroup 1"},
    {"gpu", "1", "2", NULL, NULL, "0", "GPU tuning without tiles, grid 1, workgroup 2"},
};

static dmlops_context *knob_context(const knobs *k)
{
    dmt_env e[6];
    dmt_env_set(&e[0], "DMLOPS_VK_TUNING", k->tuning);
    dmt_env_set(&e[1], "DMLOPS_VK_GRID", k->grid);
    dmt_env_set(&e[2], "DMLOPS_VK_WORKGROUP", k->workgroup);
    dmt_env_set(&e[3], "DMLOPS_VK_RUN", k->run);
    dmt_env_set(&e[4], "DMLOPS_VK_LANES", k->lanes);
    dmt_env_set(&e[5], "DMLOPS_VK_TILES", k->tiles);
    dmlops_context *ctx = vkt_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, 0, 0);
    for (int i = 5; i >= 0; i--) dmt_env_restore(&e[i]);
    return ctx;
}

/* Lengths or indices: every element `value` (a fixed value), or with `spread` set, i % spread. */
typedef struct aux_fill {
    uint32_t slot, count;
    uint32_t value, spread;
    uint32_t value_size; /* ONE_HOT: the values' element size, 0 otherwise */
} aux_fill;

static void fix_aux(uint8_t *const *data, const uint64_t *sizes, dmt_rng *r, const void *user)
{
    const aux_fill *f = user;
    (void)sizes;
    (void)r;
    for (uint32_t i = 0; i < f->count; i++) {
        const uint32_t v = f->spread ? (i * 7u) % f->spread : f->value;
        memcpy(data[f->slot] + 16 + (size_t)i * 4, &v, 4);
    }
    if (f->value_size) {
        memset(data[1] + 16, 0x11, f->value_size);
        memset(data[1] + 16 + f->value_size, 0x5a, f->value_size);
    }
}

static void tensor2(dmt_tensor *t, DML_TENSOR_DATA_TYPE type, uint32_t rows, uint32_t cols)
{
    const uint32_t sizes[2] = {rows, cols};
    dmt_tensor_init(t, type, 2, sizes, NULL, 0);
}

/* REVERSE [R, C] of `type` along `axis`: lengths [R, 1] along axis 1 (each `len`), [1, C]
 * along axis 0 (spread: a length per column, i * 7 % spread). */
static bool reverse_case(dmlops_context *vk, DML_TENSOR_DATA_TYPE type, uint32_t R, uint32_t C, uint32_t axis,
                         uint32_t len, uint32_t spread, uint64_t seed)
{
    dmt_tensor in, l, o;
    tensor2(&in, type, R, C);
    tensor2(&o, type, R, C);
    tensor2(&l, DML_TENSOR_DATA_TYPE_UINT32, axis ? R : 1, axis ? 1 : C);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rv = {&in.desc, &l.desc, &o.desc, axis};
    DML_OPERATOR_DESC d = {DML_OPERATOR_REVERSE_SUBSEQUENCES, &rv};
    const uint64_t sizes[3] = {in.buf.TotalTensorSizeInBytes, l.buf.TotalTensorSizeInBytes, o.buf.TotalTensorSizeInBytes};
    const aux_fill f = {1, axis ? R : C, len, spread, 0};
    return vkt_same_as_cpu(vk, &d, 2, sizes, seed, NULL, fix_aux, &f);
}

/* SLICE1 of [R, C] with `step` along the rows, the rows reversed when flip. */
static bool slice_case(dmlops_context *vk, DML_TENSOR_DATA_TYPE type, uint32_t R, uint32_t C, int32_t step, bool flip,
                       uint64_t seed)
{
    const uint32_t out = (C - 1) / (uint32_t)(step < 0 ? -step : step) + 1, offs[2] = {0, 0}, win[2] = {R, C};
    const int32_t steps[2] = {flip ? -1 : 1, step};
    dmt_tensor in, o;
    tensor2(&in, type, R, C);
    tensor2(&o, type, R, out);
    DML_SLICE1_OPERATOR_DESC s = {&in.desc, &o.desc, 2, offs, win, steps};
    DML_OPERATOR_DESC d = {DML_OPERATOR_SLICE1, &s};
    const uint64_t sizes[2] = {in.buf.TotalTensorSizeInBytes, o.buf.TotalTensorSizeInBytes};
    return vkt_same_as_cpu(vk, &d, 1, sizes, seed, NULL, NULL, NULL);
}

/* ONE_HOT of R UINT32 indices into [R, depth] along axis 1. */
static bool one_hot_case(dmlops_context *vk, DML_TENSOR_DATA_TYPE type, uint32_t R, uint32_t depth, uint64_t seed)
{
    dmt_tensor idx, val, o;
    tensor2(&idx, DML_TENSOR_DATA_TYPE_UINT32, R, 1);
    tensor2(&val, type, 1, 2);
    tensor2(&o, type, R, depth);
    DML_ONE_HOT_OPERATOR_DESC h = {&idx.desc, &val.desc, &o.desc, 1};
    DML_OPERATOR_DESC d = {DML_OPERATOR_ONE_HOT, &h};
    const uint64_t sizes[3] = {idx.buf.TotalTensorSizeInBytes, val.buf.TotalTensorSizeInBytes, o.buf.TotalTensorSizeInBytes};
    const aux_fill f = {0, R, 0, depth + 1, dmlops_data_type_size(type)};
    return vkt_same_as_cpu(vk, &d, 2, sizes, seed, NULL, fix_aux, &f);
}

/* Every family at about half a megabyte: with one invocation and runs of one chunk, each
 * is more than 65535 loop iterations of work for one invocation. */
static void every_family(dmlops_context *vk, const char *name)
{
    const DML_TENSOR_DATA_TYPE u8 = DML_TENSOR_DATA_TYPE_UINT8, f32 = DML_TENSOR_DATA_TYPE_FLOAT32;
    const DML_TENSOR_DATA_TYPE f16 = DML_TENSOR_DATA_TYPE_FLOAT16, f64 = DML_TENSOR_DATA_TYPE_FLOAT64;
    static const char *const labels[] = {
        "REVERSE UINT8 [2000, 256] along axis 1, lengths 256", "REVERSE FLOAT32 [512, 256] along axis 1, lengths 200",
        "REVERSE UINT8 [16, 32768] along axis 0, a length per column", "REVERSE FLOAT16 [16, 16384] along axis 0, one length",
        "REVERSE FLOAT32 [43690, 3] along axis 1, lengths 2", "SLICE1 UINT8 [1024, 512] step -1",
        "SLICE1 FLOAT32 [512, 512] step 2, rows reversed", "SLICE1 FLOAT64 [256, 600] step 3",
        "SLICE1 FLOAT32 [65536, 4] step 2", "ONE_HOT UINT8 depth 1024", "ONE_HOT FLOAT32 depth 16",
        "ONE_HOT FLOAT16 depth 3"};
    bool ok[12];
    ok[0] = reverse_case(vk, u8, 2000, 256, 1, 256, 0, 0xb0d1);
    ok[1] = reverse_case(vk, f32, 512, 256, 1, 200, 0, 0xb0d2);
    ok[2] = reverse_case(vk, u8, 16, 32768, 0, 0, 17, 0xb0d3);
    ok[3] = reverse_case(vk, f16, 16, 16384, 0, 16, 0, 0xb0d4);
    ok[4] = reverse_case(vk, f32, 43690, 3, 1, 2, 0, 0xb0d5);
    ok[5] = slice_case(vk, u8, 1024, 512, -1, false, 0xb0d6);
    ok[6] = slice_case(vk, f32, 512, 512, 2, true, 0xb0d7);
    ok[7] = slice_case(vk, f64, 256, 600, 3, false, 0xb0d8);
    ok[8] = slice_case(vk, f32, 65536, 4, 2, false, 0xb0d9);
    ok[9] = one_hot_case(vk, u8, 512, 1024, 0xb0da);
    ok[10] = one_hot_case(vk, f32, 8192, 16, 0xb0db);
    ok[11] = one_hot_case(vk, f16, 65536, 3, 0xb0dc);
    for (int i = 0; i < 12; i++)
        if (!ok[i]) printf("    %s: %s differs from the CPU backend\n", name, labels[i]);
}

static void under(const knobs *k)
{
    dmlops_context *vk = knob_context(k);
    if (!vk) return;
    every_family(vk, k->name);
    vkt_done(vk);
}

/* The issue's own case first: lavapipe's own tuning at the smallest grid. */
TEST(smallest_grid_device_tuning_leaves_every_result_unchanged) { under(&tunings[0]); }
TEST(smallest_grid_cpu_runs_of_32_leave_every_result_unchanged) { under(&tunings[1]); }
TEST(smallest_grid_cpu_lanes_of_8_leave_every_result_unchanged) { under(&tunings[2]); }
TEST(smallest_grid_gpu_tiles_leave_every_result_unchanged) { under(&tunings[3]); }
TEST(smallest_grid_gpu_without_tiles_leaves_every_result_unchanged) { under(&tunings[4]); }

/* The bound costs the standard cases nothing: at 64 MiB (the bench's headline size) each
 * is still one dispatch under either device class's tuning. Only the plan is made. */
TEST(standard_cases_at_64_mib_keep_one_dispatch)
{
    static const char *const tunings_[2] = {"cpu", "gpu"};
    for (int t = 0; t < 2; t++) {
        dmt_env e;
        dmt_env_set(&e, "DMLOPS_VK_TUNING", tunings_[t]);
        dmlops_context *vk = vkt_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, 0, 0);
        dmt_env_restore(&e);
        if (!vk) return;
        dmt_tensor in, l, o, idx, val, hot;
        tensor2(&in, DML_TENSOR_DATA_TYPE_UINT8, 8192, 8192);
        tensor2(&o, DML_TENSOR_DATA_TYPE_UINT8, 8192, 8192);
        tensor2(&l, DML_TENSOR_DATA_TYPE_UINT32, 8192, 1);
        tensor2(&idx, DML_TENSOR_DATA_TYPE_UINT32, 65536, 1);
        tensor2(&val, DML_TENSOR_DATA_TYPE_UINT8, 1, 2);
        tensor2(&hot, DML_TENSOR_DATA_TYPE_UINT8, 65536, 1024);
        const uint32_t offs[2] = {0, 0}, win[2] = {8192, 8192};
        const int32_t steps[2] = {1, -1};
        DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rv = {&in.desc, &l.desc, &o.desc, 1};
        DML_SLICE1_OPERATOR_DESC s = {&in.desc, &o.desc, 2, offs, win, steps};
        DML_ONE_HOT_OPERATOR_DESC h = {&idx.desc, &val.desc, &hot.desc, 1};
        const DML_OPERATOR_DESC d[3] = {{DML_OPERATOR_REVERSE_SUBSEQUENCES, &rv}, {DML_OPERATOR_SLICE1, &s},
                                        {DML_OPERATOR_ONE_HOT, &h}};
        static const char *const names[3] = {"REVERSE axis=inner UINT8", "SLICE1 stride=-1 UINT8",
                                             "ONE_HOT depth=1024 UINT8"};
        for (int i = 0; i < 3; i++) {
            dmlops_operator *op = NULL;
            dmlops_operator_info info;
            if (!CHECK_OK(dmlops_operator_create(vk, &d[i], &op))) continue;
            if (CHECK_OK(dmlops_operator_get_info(op, &info)))
                CHECK(info.dispatch_count == 1, "%s tuning, %s at 64 MiB: %u dispatches", tunings_[t], names[i],
                      info.dispatch_count);
            dmlops_operator_destroy(op);
        }
        vkt_done(vk);
    }
}
