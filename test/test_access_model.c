/* The access model (DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES, dmlops_command_list_get_access_stats):
 * the instrumented kernels' records counted as a GPU's memory system sees them. Exact
 * figures for the compute copy (a 16-byte-per-lane copy makes 512-byte requests touching
 * 16 sectors each, none twice), the same copy 16 bytes off a sector boundary (each request
 * then touches 17), the counting of what no kernel traces, the refusals, a trace that
 * outgrows its buffer, and the GPU plan's access patterns of the standard cases (with
 * DMLOPS_VK_TUNING=gpu, as `dmlops bench --model` runs them). Runs on any Vulkan device
 * with 5 storage buffers per stage (lavapipe here), under the validation layer where
 * there is one. */
#include <stdlib.h>

#include "vkt.h"

/* A tracing context with the GPU's plan (or NULL, noted: vkt_gpu_context). */
static dmlops_context *trace_context(void) { return vkt_gpu_context(DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES); }

/* Destroys a context of trace_context, checking that the validation layer (where it is
 * loaded) stayed silent about the trace builds and their bindings. */
static void finish(dmlops_context *ctx)
{
    dmlops_context_info info;
    if (CHECK_OK(dmlops_context_get_info(ctx, &info)))
        CHECK(info.debug_message_count == 0, "the validation layer reported %u messages", info.debug_message_count);
    CHECK(dmt_destroy_counting_messages(ctx) == 0, "the validation layer spoke at dmlops_context_destroy");
}

static bool stats_of(dmlops_command_list *list, dmlops_access_stats *s)
{
    return CHECK_OK(dmlops_command_list_execute(list)) && CHECK_OK(dmlops_command_list_get_access_stats(list, s));
}

/* A compute copy of `bytes` from byte src_at of a buffer to byte 0 of another, traced;
 * checks that it copied. */
static bool traced_copy(dmlops_context *ctx, uint64_t bytes, uint64_t src_at, dmlops_access_stats *s)
{
    uint8_t *data = malloc((size_t)(bytes + src_at)), *back = malloc((size_t)bytes);
    bool ok = data && back;
    for (uint64_t i = 0; ok && i < bytes + src_at; i++) data[i] = (uint8_t)(i * 29 + 3);
    dmlops_buffer *src = ok ? dmt_buffer(ctx, bytes + src_at, data) : NULL, *dst = ok ? dmt_buffer(ctx, bytes, NULL) : NULL;
    dmlops_command_list *list = NULL;
    ok = ok && src && dst && CHECK_OK(dmlops_command_list_create(ctx, &list)) &&
         CHECK_OK(dmlops_command_list_record_compute_copy(list, dst, 0, src, src_at, bytes)) && stats_of(list, s) &&
         CHECK_OK(dmlops_buffer_read(dst, 0, back, bytes));
    ok = ok && CHECK(!memcmp(back, data + src_at, (size_t)bytes), "the traced copy copied wrong bytes");
    dmlops_command_list_destroy(list);
    dmlops_buffer_destroy(src);
    dmlops_buffer_destroy(dst);
    free(data);
    free(back);
    return ok;
}

TEST(a_copy_moves_512_bytes_per_request_and_touches_no_sector_twice)
{
    dmlops_context *ctx = trace_context();
    if (!ctx) return;
    dmlops_access_stats s;
    const uint64_t bytes = 1 << 20, vectors = bytes / 16;
    if (traced_copy(ctx, bytes, 0, &s)) {
        CHECK(s.accesses == 2 * vectors && s.loads == vectors && s.stores == vectors, "%llu accesses, %llu loads, %llu stores",
              (unsigned long long)s.accesses, (unsigned long long)s.loads, (unsigned long long)s.stores);
        CHECK(s.bytes == 2 * bytes, "%llu bytes", (unsigned long long)s.bytes);
        CHECK(s.requests == 2 * bytes / 512, "%llu requests: a warp of 32 lanes moves 512 bytes in each",
              (unsigned long long)s.requests);
        CHECK(s.sectors == 2 * bytes / 32 && s.distinct_sectors == s.sectors, "%llu sectors, %llu distinct",
              (unsigned long long)s.sectors, (unsigned long long)s.distinct_sectors);
        CHECK(s.loads_in_flight == 1.0, "loads in flight %g: the plain copy loads one vector, then stores it",
              s.loads_in_flight);
        CHECK(s.dispatches == 1 && s.untraced == 0, "%u dispatches, %u untraced", s.dispatches, s.untraced);
    }
    finish(ctx);
}

/* Sectors are counted at the addresses the memory sees: a window 16 bytes past a sector
 * boundary puts each 512-byte request across 17 sectors. */
TEST(sectors_are_counted_at_the_buffers_addresses)
{
    dmlops_context *ctx = trace_context();
    if (!ctx) return;
    dmlops_access_stats s;
    const uint64_t bytes = 1 << 20, requests = bytes / 512;
    if (traced_copy(ctx, bytes, 16, &s)) {
        CHECK(s.requests == 2 * requests, "%llu requests", (unsigned long long)s.requests);
        CHECK(s.sectors == requests * 17 + requests * 16, "%llu sectors: each source request spans 17",
              (unsigned long long)s.sectors);
        CHECK(s.distinct_sectors == bytes / 32 + 1 + bytes / 32, "%llu distinct sectors",
              (unsigned long long)s.distinct_sectors);
    }
    finish(ctx);
}

/* vkCmdCopyBuffer runs no kernel: it is counted apart, and the rest of the list still is. */
TEST(operations_without_a_kernel_are_counted_apart)
{
    dmlops_context *ctx = trace_context();
    if (!ctx) return;
    dmlops_buffer *a = dmt_buffer(ctx, 4096, NULL), *b = dmt_buffer(ctx, 4096, NULL), *c = dmt_buffer(ctx, 4096, NULL);
    dmlops_command_list *list = NULL;
    dmlops_access_stats s;
    if (a && b && c && CHECK_OK(dmlops_command_list_create(ctx, &list)) &&
        CHECK_OK(dmlops_command_list_record_copy(list, b, 0, a, 0, 4096)) &&
        CHECK_OK(dmlops_command_list_record_compute_copy(list, c, 0, a, 0, 4096)) && stats_of(list, &s)) {
        CHECK(s.untraced == 1 && s.dispatches == 1, "%u untraced, %u dispatches", s.untraced, s.dispatches);
        CHECK(s.requests == 2 * 4096 / 512, "%llu requests", (unsigned long long)s.requests);
    }
    dmlops_command_list_destroy(list);
    dmlops_buffer_destroy(a);
    dmlops_buffer_destroy(b);
    dmlops_buffer_destroy(c);
    finish(ctx);
}

/* A warp never spans workgroups: a shaped copy in workgroups of 8 lanes makes requests of
 * 8 lanes (128 bytes), and two vectors a lane keep two loads in flight. */
TEST(shaped_copies_are_counted_by_their_own_workgroups)
{
    dmlops_context *ctx = trace_context();
    if (!ctx) return;
    dmlops_buffer *a = dmt_buffer(ctx, 4096, NULL), *b = dmt_buffer(ctx, 4096, NULL);
    dmlops_command_list *list = NULL;
    dmlops_access_stats s;
    const dmlops_compute_copy_shape shape = {2, 8, 0};
    if (a && b && CHECK_OK(dmlops_command_list_create(ctx, &list)) &&
        CHECK_OK(dmlops_command_list_record_compute_copy_shaped(list, b, 0, a, 0, 4096, &shape)) && stats_of(list, &s)) {
        CHECK(s.requests == 2 * 4096 / 128, "%llu requests: 8 lanes of 16 bytes each", (unsigned long long)s.requests);
        CHECK(s.loads_in_flight == 2.0, "loads in flight %g", s.loads_in_flight);
    }
    dmlops_command_list_destroy(list);
    dmlops_buffer_destroy(a);
    dmlops_buffer_destroy(b);
    finish(ctx);
}

TEST(access_stats_are_refused_where_there_is_no_trace)
{
    dmlops_context_desc cpu = {.backend = DMLOPS_BACKEND_CPU, .flags = DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES};
    dmlops_context *ctx = NULL;
    CHECK_STATUS(dmlops_context_create(&cpu, &ctx), DMLOPS_ERROR_UNSUPPORTED, "TRACE_ACCESSES");
    CHECK(ctx == NULL);
    dmlops_access_stats s;
    CHECK_STATUS(dmlops_command_list_get_access_stats(NULL, &s), DMLOPS_ERROR_INVALID_ARGUMENT, NULL);
    cpu.flags = 0;
    dmlops_command_list *list = NULL;
    if (CHECK_OK(dmlops_context_create(&cpu, &ctx)) && CHECK_OK(dmlops_command_list_create(ctx, &list)))
        CHECK_STATUS(dmlops_command_list_get_access_stats(list, &s), DMLOPS_ERROR_UNSUPPORTED,
                     "DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES");
    dmlops_command_list_destroy(list);
    dmlops_context_destroy(ctx);
    list = NULL;
    if (!(ctx = trace_context())) return;
    if (CHECK_OK(dmlops_command_list_create(ctx, &list)))
        CHECK_STATUS(dmlops_command_list_get_access_stats(list, &s), DMLOPS_ERROR_INVALID_ARGUMENT, "not been executed");
    dmlops_command_list_destroy(list);
    finish(ctx);
}

/* A trace too big for its buffer fails the statistics, not the execution, and says what
 * to set. */
TEST(a_trace_beyond_its_buffer_says_so)
{
    dmt_env records;
    dmt_env_set(&records, "DMLOPS_VK_TRACE_RECORDS", "1000");
    dmlops_context *ctx = trace_context();
    dmt_env_restore(&records);
    if (!ctx) return;
    dmlops_access_stats s;
    uint8_t data[65536], back[65536];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7);
    dmlops_buffer *a = dmt_buffer(ctx, sizeof data, data), *b = dmt_buffer(ctx, sizeof data, NULL);
    dmlops_command_list *list = NULL;
    if (a && b && CHECK_OK(dmlops_command_list_create(ctx, &list)) &&
        CHECK_OK(dmlops_command_list_record_compute_copy(list, b, 0, a, 0, sizeof data)) &&
        CHECK_OK(dmlops_command_list_execute(list))) {
        CHECK_STATUS(dmlops_command_list_get_access_stats(list, &s), DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY,
                     "DMLOPS_VK_TRACE_RECORDS=8192");
        CHECK(CHECK_OK(dmlops_buffer_read(b, 0, back, sizeof back)) && !memcmp(back, data, sizeof data),
              "the execution itself must be whole");
    }
    dmlops_command_list_destroy(list);
    dmlops_buffer_destroy(a);
    dmlops_buffer_destroy(b);
    finish(ctx);
}

/* ---- the standard cases' shapes (src/bench), at a small size ---------------------------- */

/* The families of the standard suite (docs/performance.md), as 2-D cases. */
typedef enum family { REV_INNER, REV_OUTER, REV_RAGGED, SLICE_COLS, SLICE_STEP2, SLICE_FLIP, HOT_1024, HOT_16, FAMILIES } family;
static const char *const family_names[FAMILIES] = {"REVERSE axis=inner", "REVERSE axis=outer", "REVERSE ragged",
                                                   "SLICE1 stride=1",    "SLICE1 rows=-1,stride=2", "SLICE1 stride=-1",
                                                   "ONE_HOT depth=1024", "ONE_HOT depth=16"};
static const DML_TENSOR_DATA_TYPE model_types[4] = {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16,
                                                    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT64};

/* 32-byte sectors of bytes [lo, hi). */
static uint64_t sectors_in(uint64_t lo, uint64_t hi) { return hi > lo ? ((hi - 1) >> 5) - (lo >> 5) + 1 : 0; }

/* Runs family f of `bytes` at `type` traced; *need: the fewest sectors the operator must
 * touch (what it reads of its input, lengths or indices and values, and its output). */
static bool model_of(dmlops_context *ctx, family f, DML_TENSOR_DATA_TYPE type, uint64_t bytes, dmlops_access_stats *st,
                     uint64_t *need)
{
    const uint32_t es = dmlops_data_type_size(type);
    const uint64_t n = bytes / es;
    uint32_t side = 1;
    while ((uint64_t)side * side * 4 <= n) side *= 2;
    const bool rev = f <= REV_RAGGED, slice = f >= SLICE_COLS && f <= SLICE_FLIP;
    const uint32_t C = f == HOT_1024 ? 1024 : f == HOT_16 ? 16 : f == REV_OUTER || f == REV_RAGGED ? (uint32_t)(n / 16) : side;
    const uint32_t R = (uint32_t)(n / C), w = f == SLICE_COLS ? C / 2 : C;
    const uint32_t data[2] = {R, C}, out_slice[2] = {R, f == SLICE_STEP2 ? w / 2 : w};
    const uint32_t lengths[2] = {f == REV_INNER ? R : 1, f == REV_INNER ? 1 : C}, indices[2] = {R, 1}, values[2] = {1, 2};
    const uint32_t offs[2] = {0, f == SLICE_COLS ? C / 4 : 0}, win[2] = {R, w};
    const int32_t steps[2] = {f == SLICE_STEP2 ? -1 : 1, f == SLICE_STEP2 ? 2 : f == SLICE_FLIP ? -1 : 1};
    dmt_tensor t[3];
    uint32_t nin = 2;
    if (rev) {
        dmt_tensor_init(&t[0], type, 2, data, NULL, 0);
        dmt_tensor_init(&t[1], DML_TENSOR_DATA_TYPE_UINT32, 2, lengths, NULL, 0);
        dmt_tensor_init(&t[2], type, 2, data, NULL, 0);
    } else if (slice) {
        nin = 1;
        dmt_tensor_init(&t[0], type, 2, data, NULL, 0);
        dmt_tensor_init(&t[1], type, 2, out_slice, NULL, 0);
    } else {
        dmt_tensor_init(&t[0], DML_TENSOR_DATA_TYPE_UINT32, 2, indices, NULL, 0);
        dmt_tensor_init(&t[1], type, 2, values, NULL, 0);
        dmt_tensor_init(&t[2], type, 2, data, NULL, 0);
    }
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rd = {&t[0].desc, &t[1].desc, &t[2].desc, f == REV_INNER ? 1u : 0u};
    DML_SLICE1_OPERATOR_DESC sd = {&t[0].desc, &t[1].desc, 2, offs, win, steps};
    DML_ONE_HOT_OPERATOR_DESC hd = {&t[0].desc, &t[1].desc, &t[2].desc, 1};
    DML_OPERATOR_DESC d = {rev ? DML_OPERATOR_REVERSE_SUBSEQUENCES : slice ? DML_OPERATOR_SLICE1 : DML_OPERATOR_ONE_HOT,
                           rev ? (const void *)&rd : slice ? (const void *)&sd : (const void *)&hd};
    /* What must be touched: a slice reads its window's rows from the first element it
     * takes to the last (a step of 2 reads every sector of them), the others all of
     * every input, and each writes its whole output. */
    *need = sectors_in(0, t[nin].buf.TotalTensorSizeInBytes);
    if (slice)
        for (uint32_t r = 0; r < R; r++)
            *need += sectors_in(((uint64_t)r * C + offs[1]) * es, ((uint64_t)r * C + offs[1] + w) * es);
    else
        for (uint32_t i = 0; i < nin; i++) *need += sectors_in(0, t[i].buf.TotalTensorSizeInBytes);
    uint32_t naux = rev ? lengths[0] * lengths[1] : R, *aux = malloc((size_t)naux * 4);
    dmlops_operator *op = NULL;
    dmlops_buffer *b[3] = {NULL, NULL, NULL};
    dmlops_command_list *list = NULL;
    bool ok = aux && CHECK_OK(dmlops_operator_create(ctx, &d, &op));
    for (uint32_t i = 0; ok && i < naux; i++)
        aux[i] = f == REV_INNER ? C - i % 7 : f == REV_RAGGED ? i * 7 % (R + 1) : f == REV_OUTER ? R : (i * 7 + 3) % C;
    for (uint32_t i = 0; ok && i <= nin; i++)
        ok = (b[i] = dmt_buffer(ctx, t[i].buf.TotalTensorSizeInBytes, !slice && i == (rev ? 1u : 0u) ? aux : NULL)) != NULL;
    dmlops_binding bind[3];
    for (uint32_t i = 0; ok && i <= nin; i++) bind[i] = (dmlops_binding){b[i], 0, t[i].buf.TotalTensorSizeInBytes};
    ok = ok && CHECK_OK(dmlops_command_list_create(ctx, &list)) &&
         CHECK_OK(dmlops_command_list_record(list, op, nin, bind, 1, &bind[nin])) && stats_of(list, st);
    dmlops_command_list_destroy(list);
    for (int i = 0; i < 3; i++) dmlops_buffer_destroy(b[i]);
    dmlops_operator_destroy(op);
    free(aux);
    return ok;
}

/* Issue 41's targets for the model, on every standard case's GPU plan: requests that move
 * at least half of what a copy's do, and no more than 1.25x the sectors the operator
 * needs. The figures go to docs/performance.md through `dmlops bench --model`. */
TEST(every_standard_case_meets_the_model_targets)
{
    dmlops_context *ctx = trace_context();
    if (!ctx) return;
    for (int f = 0; f < FAMILIES; f++)
        for (int t = 0; t < 4; t++) {
            dmlops_access_stats s;
            uint64_t need;
            if (!model_of(ctx, (family)f, model_types[t], 64 * 1024, &s, &need)) continue;
            const double per_request = (double)s.bytes / (double)s.requests, ratio = (double)s.sectors / (double)need;
            CHECK(per_request >= 256 && ratio <= 1.25, "%s %s: %.1f bytes per request, sector ratio %.3f", family_names[f],
                  dmlops_data_type_name(model_types[t]), per_request, ratio);
        }
    finish(ctx);
}

/* The three cases the H100 ran slowest (../shared/research/gpu.md), on the paths the GPU
 * plan gave them before the GPU tiles (DMLOPS_VK_TILES=0 keeps those): their requests
 * move less than half of what a copy's do, or they touch sectors several times over. */
TEST(the_slow_gpu_cases_score_badly_without_the_tiles)
{
    static const struct {
        family f;
        DML_TENSOR_DATA_TYPE type;
    } cases[] = {{REV_RAGGED, DML_TENSOR_DATA_TYPE_FLOAT32},
                 {REV_OUTER, DML_TENSOR_DATA_TYPE_UINT8},
                 {HOT_16, DML_TENSOR_DATA_TYPE_UINT8}};
    dmt_env tiles;
    dmt_env_set(&tiles, "DMLOPS_VK_TILES", "0");
    dmlops_context *ctx = trace_context();
    dmt_env_restore(&tiles);
    if (!ctx) return;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dmlops_access_stats s;
        uint64_t need;
        if (!model_of(ctx, cases[i].f, cases[i].type, 64 * 1024, &s, &need)) continue;
        const double per_request = (double)s.bytes / (double)s.requests, ratio = (double)s.sectors / (double)need;
        printf("    %s %s: %.1f bytes per request, sector ratio %.2f, %.2f loads in flight\n", family_names[cases[i].f],
               dmlops_data_type_name(cases[i].type), per_request, ratio, s.loads_in_flight);
        CHECK(per_request < 256 || ratio > 1.25, "%s scores %.1f bytes per request and a sector ratio of %.2f",
              family_names[cases[i].f], per_request, ratio);
    }
    finish(ctx);
}
