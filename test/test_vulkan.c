/* Vulkan-specific behaviour: device choice, the splitting of work into binding windows
 * and dispatch grids, the copy-region path, command lists, the pipeline cache and the
 * fallback to the CPU. Results are always compared with the CPU backend. */
#include <stdlib.h>
#include <unistd.h>

#include "../examples/seed_examples.h"
#include "op_descs.h"
#include "vkt.h"

/* ---- random descriptors small enough to split into many windows ---- */

typedef struct gcase {
    dmt_tensor t[3];
    uint32_t nin;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev;
    DML_SLICE1_OPERATOR_DESC slice;
    DML_ONE_HOT_OPERATOR_DESC hot;
    uint32_t off[8], win[8];
    int32_t step[8];
    DML_OPERATOR_DESC desc;
    uint64_t sizes[3];
    int aux;          /* binding of lengths / indices, -1 if none */
    uint32_t n;       /* axis length */
    char text[160];
} gcase;

static const DML_TENSOR_DATA_TYPE data_types[] = {
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16,
    DML_TENSOR_DATA_TYPE_UINT8,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,  DML_TENSOR_DATA_TYPE_INT8,
    DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_INT64};
static const DML_TENSOR_DATA_TYPE index_types[] = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT32,
                                                   DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64};

/* Nested strides in a random dimension order with random padding; broadcast (0) on
 * inputs when allowed. NULL-equivalent packed strides are written out. */
static void random_strides(dmt_rng *r, uint32_t rank, const uint32_t *sizes, uint32_t *strides, bool broadcast)
{
    uint32_t order[8];
    for (uint32_t i = 0; i < rank; i++) order[i] = i;
    for (uint32_t i = rank; i > 1; i--) {
        uint32_t j = dmt_below(r, i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    uint32_t step = 1;
    for (uint32_t k = rank; k-- > 0;) {
        uint32_t d = order[k];
        strides[d] = step;
        step = step * sizes[d] + dmt_below(r, 3);
        if (broadcast && dmt_below(r, 4) == 0) strides[d] = 0;
    }
}

static void gen_case(dmt_rng *r, gcase *c)
{
    memset(c, 0, sizeof *c);
    uint32_t kind = dmt_below(r, 3), rank = 1 + dmt_below(r, 4), sizes[8], st[8], aux_sizes[8];
    DML_TENSOR_DATA_TYPE dt = data_types[dmt_below(r, 11)], it = index_types[dmt_below(r, 4)];
    for (uint32_t d = 0; d < rank; d++) sizes[d] = 1 + dmt_below(r, 9);
    uint32_t axis = dmt_below(r, rank);
    c->aux = -1;
    if (kind == 0) { /* REVERSE */
        memcpy(aux_sizes, sizes, sizeof sizes);
        aux_sizes[axis] = 1;
        random_strides(r, rank, sizes, st, true);
        dmt_tensor_init(&c->t[0], dt, rank, sizes, st, 0);
        random_strides(r, rank, aux_sizes, st, true);
        dmt_tensor_init(&c->t[1], it, rank, aux_sizes, st, 0);
        random_strides(r, rank, sizes, st, false);
        dmt_tensor_init(&c->t[2], dt, rank, sizes, st, 0);
        c->rev = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){&c->t[0].desc, &c->t[1].desc, &c->t[2].desc, axis};
        c->desc = (DML_OPERATOR_DESC){DML_OPERATOR_REVERSE_SUBSEQUENCES, &c->rev};
        c->nin = 2;
        c->aux = 1;
        c->n = sizes[axis];
    } else if (kind == 1) { /* SLICE1 */
        uint32_t out[8];
        for (uint32_t d = 0; d < rank; d++) {
            c->off[d] = dmt_below(r, sizes[d]);
            c->win[d] = 1 + dmt_below(r, sizes[d] - c->off[d]);
            c->step[d] = (int32_t)(1 + dmt_below(r, 3)) * (dmt_below(r, 2) ? -1 : 1);
            uint32_t max = 1 + (c->win[d] - 1) / (uint32_t)abs(c->step[d]);
            out[d] = 1 + dmt_below(r, max);
        }
        random_strides(r, rank, sizes, st, true);
        dmt_tensor_init(&c->t[0], dt, rank, sizes, st, 0);
        random_strides(r, rank, out, st, false);
        dmt_tensor_init(&c->t[1], dt, rank, out, st, 0);
        c->slice = (DML_SLICE1_OPERATOR_DESC){&c->t[0].desc, &c->t[1].desc, rank, c->off, c->win, c->step};
        c->desc = (DML_OPERATOR_DESC){DML_OPERATOR_SLICE1, &c->slice};
        c->nin = 1;
    } else { /* ONE_HOT */
        uint32_t vs[8];
        memcpy(aux_sizes, sizes, sizeof sizes);
        aux_sizes[axis] = 1;
        for (uint32_t d = 0; d < rank; d++) vs[d] = 1;
        vs[dmt_below(r, rank)] = 2 + dmt_below(r, 2);
        random_strides(r, rank, aux_sizes, st, true);
        dmt_tensor_init(&c->t[0], it, rank, aux_sizes, st, 0);
        random_strides(r, rank, vs, st, false);
        dmt_tensor_init(&c->t[1], dt, rank, vs, st, 0);
        random_strides(r, rank, sizes, st, false);
        dmt_tensor_init(&c->t[2], dt, rank, sizes, st, 0);
        c->hot = (DML_ONE_HOT_OPERATOR_DESC){&c->t[0].desc, &c->t[1].desc, &c->t[2].desc, axis};
        c->desc = (DML_OPERATOR_DESC){DML_OPERATOR_ONE_HOT, &c->hot};
        c->nin = 2;
        c->aux = 0;
        c->n = sizes[axis];
    }
    for (uint32_t i = 0; i <= c->nin; i++) c->sizes[i] = c->t[i].buf.TotalTensorSizeInBytes;
    snprintf(c->text, sizeof c->text, "%s rank %u axis %u type %s index %s",
             dmlops_operator_type_name(c->desc.Type), rank, axis, dmlops_data_type_name(dt),
             dmlops_data_type_name(it));
}

/* Lengths and indices near the interesting range [-n-2, n+2] rather than random bytes. */
static void small_aux(uint8_t *const *data, const uint64_t *sizes, dmt_rng *r, const void *user)
{
    const gcase *c = user;
    if (c->aux < 0) return;
    uint32_t es = dmlops_data_type_size(c->t[c->aux].buf.DataType);
    for (uint64_t o = 16; o + es <= sizes[c->aux] + 16; o += es) {
        int64_t v = (int64_t)dmt_below(r, 2 * c->n + 5) - (int64_t)c->n - 2;
        memcpy(data[c->aux] + o, &v, es); /* little-endian: the low bytes */
    }
}

static void run_random(dmlops_context *vk, uint64_t seed0, int cases, bool expect_split)
{
    int split = 0;
    cases = dmt_cases(cases);
    for (int i = 0; i < cases; i++) {
        dmt_rng r = {seed0 + (uint64_t)i * 0x9E3779B97F4A7C15ull};
        gcase c;
        gen_case(&r, &c);
        dmlops_operator_info info;
        if (!vkt_same_as_cpu(vk, &c.desc, c.nin, c.sizes, r.s, &info, small_aux, &c)) {
            printf("    case %d (seed 0x%016llx): %s\n", i, (unsigned long long)(seed0 + (uint64_t)i * 0x9E3779B97F4A7C15ull),
                   c.text);
            return;
        }
        split += info.dispatch_count > 1;
    }
    if (expect_split) CHECK(split > cases / 4, "only %d of %d cases needed several dispatches", split, cases);
}

TEST(vulkan_matches_cpu_with_tiny_binding_windows)
{
    /* 96-byte windows: most operators split into many pieces, some per element. */
    dmlops_context *vk = vkt_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, 96, 0);
    if (!vk) return;
    run_random(vk, 0x1111, 400, true);
    vkt_done(vk);
}

/* Fills the bytes of a binding (its data starts 16 bytes in, vkt_same_as_cpu) with
 * little-endian integers of `width` bytes in [0, top]; with even_top, the even ones are
 * top itself. */
static void fill_up_to(uint8_t *data, uint64_t bytes, uint32_t width, uint32_t top, bool even_top, dmt_rng *r)
{
    for (uint64_t i = 0; i + width <= bytes; i += width) {
        const uint64_t v = even_top && (i / width) % 2 == 0 ? top : dmt_next(r) % (top + 1ull);
        memcpy(data + 16 + i, &v, width);
    }
}

/* Lengths in [0, T] for a REVERSE along axis 0 of [T, ...] (data[1]: one UINT32 per column). */
static void lengths_up_to_axis(uint8_t *const *data, const uint64_t *sizes, dmt_rng *r, const void *user)
{
    fill_up_to(data[1], sizes[1], 4, *(const uint32_t *)user, false, r);
}

/* REVERSE along the outer axis of packed rows shorter than a chunk ([T, 2] to [T, 7],
 * a length per column) with 96-byte windows: the flat walk's output pieces meet sources in
 * other windows, so its chunks are refused and go element by element after a batch of
 * runs (flat_lanes). No other suite reaches that pass: leaving it out failed only this. */
/* What a lengths fixup is told (user): the axis length first, so that fixups reading
 * only a uint32_t T may take it, and the lengths' type. */
typedef struct outer_lengths {
    uint32_t T;
    DML_TENSOR_DATA_TYPE type;
} outer_lengths;

/* REVERSE of `type` [T, C] along T for each shape, lengths of len_type from fix (user: an
 * outer_lengths), checked against the CPU, on the kernel path in at most max_dispatches
 * dispatches. */
static void reverse_outer_typed_match_cpu(dmlops_context *vk, DML_TENSOR_DATA_TYPE type, DML_TENSOR_DATA_TYPE len_type,
                                          const uint32_t (*shapes)[2], size_t n, uint64_t seed, vkt_fixup fix,
                                          uint32_t max_dispatches)
{
    for (size_t i = 0; i < n; i++) {
        dmt_reverse rev;
        dmt_reverse_init(&rev, type, 2, shapes[i], 0, len_type, NULL);
        const uint64_t esize = dmlops_data_type_size(type), lsize = dmlops_data_type_size(len_type);
        const uint64_t bytes = ((uint64_t)shapes[i][0] * shapes[i][1] * esize + 3) & ~3ull; /* DML's rounding */
        const uint64_t sizes[3] = {bytes, (uint64_t)shapes[i][1] * lsize, bytes};
        const outer_lengths user = {shapes[i][0], len_type};
        dmlops_operator_info info;
        if (vkt_same_as_cpu(vk, &rev.desc, 2, sizes, seed + i, &info, fix, &user))
            CHECK(info.last_path == DMLOPS_PATH_KERNEL && info.dispatch_count <= max_dispatches,
                  "shape %zu [%u, %u] ran %s in %u dispatches", i, shapes[i][0], shapes[i][1],
                  dmlops_path_name(info.last_path), (unsigned)info.dispatch_count);
    }
}

/* The same with UINT32 lengths. */
static void reverse_outer_rows_match_cpu(dmlops_context *vk, DML_TENSOR_DATA_TYPE type, const uint32_t (*shapes)[2],
                                         size_t n, uint64_t seed, vkt_fixup fix, uint32_t max_dispatches)
{
    reverse_outer_typed_match_cpu(vk, type, DML_TENSOR_DATA_TYPE_UINT32, shapes, n, seed, fix, max_dispatches);
}

TEST(flat_walk_refused_chunks_match_cpu)
{
    dmlops_context *vk = vkt_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, 96, 0);
    if (!vk) return;
    static const uint32_t shapes[][2] = {{200, 3}, {333, 5}, {64, 2}, {150, 7}};
    reverse_outer_rows_match_cpu(vk, DML_TENSOR_DATA_TYPE_FLOAT32, shapes, sizeof shapes / sizeof shapes[0], 0xF1A7, lengths_up_to_axis, UINT32_MAX);
    vkt_done(vk);
}

/* Lengths for [T, C] along axis 0: T in even columns, so that their sources run the other
 * way through every window, and any value up to T in odd ones. */
static void lengths_whole_and_any(uint8_t *const *data, const uint64_t *sizes, dmt_rng *r, const void *user)
{
    fill_up_to(data[1], sizes[1], 4, *(const uint32_t *)user, true, r);
}

/* The same with 128 KiB windows and one workgroup per dispatch: each lane group then walks
 * eight runs of an output piece (a whole batch) before the element pass, and with the even
 * columns' sources in the other window every chunk of every run is refused, so that pass
 * must take each chunk from the run it was refused in. The 96-byte windows above give
 * pieces of one run, where any run's entry would do. */
TEST(flat_walk_refused_chunks_of_many_runs_match_cpu)
{
    dmlops_context *vk = vkt_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, 128 << 10, 1);
    if (!vk) return;
    /* [70000, 2]: 547 KiB; halving makes it 8 output pieces by 8 windows (64 dispatches,
     * the bound below). Split into single rows it needed 140000 pieces, past the 65536 a
     * plan may hold. */
    static const uint32_t shapes[][2] = {{12000, 3}, {9000, 5}, {20000, 2}, {6000, 7}, {70000, 2}};
    reverse_outer_rows_match_cpu(vk, DML_TENSOR_DATA_TYPE_FLOAT32, shapes, sizeof shapes / sizeof shapes[0], 0xBA7C, lengths_whole_and_any, 64);
    vkt_done(vk);
}

/* Lengths for [T, C] along axis 0 in runs of 16 columns, so that a 16-byte chunk of any
 * type shares one length and moves as one vector (fetch_vec in glsl/reverse.comp), with
 * one column of every third run a row shorter, so that its chunk must not. */
static void lengths_in_column_runs(uint8_t *const *data, const uint64_t *sizes, dmt_rng *r, const void *user)
{
    const uint32_t T = *(const uint32_t *)user;
    uint32_t L = 0;
    for (uint64_t j = 0; j < sizes[1] / 4; j++) {
        if (j % 16 == 0) L = (uint32_t)(dmt_next(r) % (T + 1ull));
        const uint32_t v = j / 16 % 3 == 2 && j % 16 == 7 ? (L ? L - 1 : 1) : L;
        memcpy(data[1] + 16 + j * 4, &v, 4);
    }
}

/* REVERSE across contiguous rows with a length per column ([T, C] along T), for 1- to
 * 8-byte types, on the general path's vector fetch (GPUs only: the GPU tuning runs it on
 * lavapipe): whole and broken runs of equal lengths, rows that are not whole chunks, and
 * 4 KiB windows, where a chunk's source row can lie in another dispatch's window. Seen
 * failing with the run check taken out. */
TEST(reverse_outer_length_runs_match_cpu)
{
    static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16,
                                                 DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT64};
    static const uint32_t shapes[][2] = {{37, 16 * 13 + 5}, {16, 1024}, {3, 4096 + 48}};
    for (int run = 0; run < 4; run++) {
        const int windowed = run & 1;
        dmt_env tuning;
        dmt_env_set(&tuning, "DMLOPS_VK_TUNING", run < 2 ? NULL : "gpu");
        dmlops_context *vk = vkt_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, windowed ? 4096 : 0, 0);
        dmt_env_restore(&tuning);
        if (!vk) return;
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            reverse_outer_rows_match_cpu(vk, types[t], shapes, sizeof shapes / sizeof shapes[0], 0x5E9 + t * 16,
                                         lengths_in_column_runs, UINT32_MAX);
        vkt_done(vk);
    }
}

/* Lengths of the case's type, one per column, for [T, C] along axis 0 (user: an
 * outer_lengths): mostly in [0, T], and one in 16 of each of: past T; negative (signed
 * types); 2^31, bit 31 of the low word set (INT32: negative, the others: past T); for
 * 8-byte types, the high word set, negative (INT64 -2^33, low word 0) or not (UINT64 and
 * INT64 2^32 + 1, low word 1): each of the kernel's clamps is taken, and a sign or a
 * clamp read from the wrong word shows. */
static void lengths_of_any_type(uint8_t *const *data, const uint64_t *sizes, dmt_rng *r, const void *user)
{
    const outer_lengths *u = user;
    const bool wide = u->type == DML_TENSOR_DATA_TYPE_UINT64 || u->type == DML_TENSOR_DATA_TYPE_INT64;
    const bool sign = u->type == DML_TENSOR_DATA_TYPE_INT32 || u->type == DML_TENSOR_DATA_TYPE_INT64;
    const uint32_t width = wide ? 8 : 4;
    for (uint64_t i = 0; i + width <= sizes[1]; i += width) {
        const uint64_t k = dmt_next(r);
        int64_t v = (int64_t)(k % (u->T + 1ull));
        const uint32_t pick = (uint32_t)(k >> 60);
        if (pick == 0) v = (int64_t)u->T + 1 + (int64_t)((k >> 32) % 5);
        if (pick == 1 && sign) v = -1 - (int64_t)((k >> 32) % 3);
        if (pick == 2 && wide && sign) v = -((int64_t)1 << 33);
        if (pick == 3) v = (int64_t)1 << 31;
        if (pick == 4 && wide) v = ((int64_t)1 << 32) + 1;
        memcpy(data[1] + 16 + i, &v, width); /* little-endian: the low word first */
    }
}

/* REVERSE across contiguous rows with a length per column ([T, C] along T) on CPU
 * devices' COLUMNS kernel (glsl/reverse.comp, columns_vec: each element from the row its
 * column's length picks), for 1- to 8-byte types and all four length types: rows that
 * are not whole chunks and start anywhere in one (C odd), lengths whose 16-byte vectors
 * straddle texels, the last chunks' lengths past the last whole texel, and 4 KiB windows,
 * where a source row can lie in another dispatch's window (PARTIAL), or 4 KiB allocations,
 * where the binding plans such windows again at their boundaries. Seen failing with a
 * turn one row off, with the high word of 8-byte lengths ignored, and with PARTIAL's byte
 * mask taken whole. */
TEST(reverse_columns_match_cpu)
{
    static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16,
                                                 DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT64};
    static const DML_TENSOR_DATA_TYPE len_types[] = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT32,
                                                     DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64};
    static const uint32_t shapes[][2] = {{16, 1024}, {37, 16 * 13 + 5}, {5, 4096 + 51}, {2, 33}};
    for (int mode = 0; mode < 3; mode++) { /* one window, 4 KiB windows, 4 KiB allocations */
        dmlops_context *vk = vkt_context_alloc(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, mode == 1 ? 4096 : 0, 0, mode == 2 ? 4096 : 0);
        if (!vk) return;
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            for (size_t l = 0; l < sizeof len_types / sizeof len_types[0]; l++)
                if (mode < 2 || l == t) /* allocations: each type and length type once (20 s for all) */
                    reverse_outer_typed_match_cpu(vk, types[t], len_types[l], shapes, sizeof shapes / sizeof shapes[0],
                                                  0xC01 + t * 64 + l * 8 + (uint64_t)mode, lengths_of_any_type,
                                                  UINT32_MAX);
        vkt_done(vk);
    }
}

/* An operator planned whole whose binding splits its axis at allocation boundaries takes
 * the pipeline that stores partial chunks (PARTIAL) when it is bound: two pipelines in all.
 * Seen failing (one pipeline) with the binding keeping the operator's. */
TEST(reverse_columns_bound_across_allocations_store_partial_chunks)
{
    dmlops_context *vk = vkt_context_alloc(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, 0, 0, 4096);
    if (!vk) return;
    dmlops_context_info ci;
    const uint32_t shape[1][2] = {{16, 1024}}; /* 16 KiB: rows of 1 KiB over 4 KiB allocations */
    if (CHECK_OK(dmlops_context_get_info(vk, &ci)) && ci.device.type == DMLOPS_DEVICE_TYPE_CPU) {
        const uint32_t before = ci.pipeline_count;
        reverse_outer_typed_match_cpu(vk, DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_UINT32, shape, 1, 0xC77,
                                      lengths_of_any_type, UINT32_MAX);
        if (CHECK_OK(dmlops_context_get_info(vk, &ci)))
            CHECK(ci.pipeline_count == before + 2, "%u pipelines made", ci.pipeline_count - before);
    }
    vkt_done(vk);
}

/* INT64 indices in [0, depth] (depth itself: a row of OffValues) over all of binding 0. */
static void indices_up_to_depth(uint8_t *const *data, const uint64_t *sizes, dmt_rng *r, const void *user)
{
    fill_up_to(data[0], sizes[0], 8, *(const uint32_t *)user, false, r);
}

/* Short packed output rows whose source runs down the columns (strides {1, R}), or whose
 * ONE_HOT indices lie along the row: one row's span outgrows the window, so pieces must cut
 * rows, and with the flat walk's whole rows they were cut to single elements: SLICE1 of
 * [12000, 5] FLOAT32 with 64 KiB windows took 36000 dispatches, REVERSE of [70000, 2]
 * UINT8 was refused for needing more than 65536 pieces, and ONE_HOT into [16, 65536] along
 * axis 0 kept its 16 rows apart (128 dispatches where 8 do); a column-major [65515, 2]
 * UINT8 source, whose one row spans all but 20 bytes of a window, left room for one row
 * per piece (65515 dispatches). Each must match the CPU in a handful of dispatches. */
/* SLICE1 copying all of a column-major (strides {1, rows}) [rows, cols] source into a
 * packed output. */
static void slice_column_major(gcase *c, DML_TENSOR_DATA_TYPE dt, uint32_t rows, uint32_t cols)
{
    const uint32_t in[2] = {rows, cols}, cm[2] = {1, rows};
    memset(c, 0, sizeof *c);
    dmt_tensor_init(&c->t[0], dt, 2, in, cm, 0);
    dmt_tensor_init(&c->t[1], dt, 2, in, NULL, 0);
    c->win[0] = rows;
    c->win[1] = cols;
    c->step[0] = c->step[1] = 1;
    c->slice = (DML_SLICE1_OPERATOR_DESC){&c->t[0].desc, &c->t[1].desc, 2, c->off, c->win, c->step};
    c->desc = (DML_OPERATOR_DESC){DML_OPERATOR_SLICE1, &c->slice};
    c->nin = 1;
}

/* Runs desc (nin inputs, then the output, of these sizes) against the CPU (fix and user
 * fill its data) and checks that it took the kernel path in at most bound dispatches. */
static void desc_few_dispatches_as_cpu(dmlops_context *vk, const DML_OPERATOR_DESC *desc, uint32_t nin,
                                       const uint64_t *sizes, uint64_t seed, vkt_fixup fix, const void *user,
                                       uint32_t bound)
{
    dmlops_operator_info info;
    if (vkt_same_as_cpu(vk, desc, nin, sizes, seed, &info, fix, user))
        CHECK(info.last_path == DMLOPS_PATH_KERNEL && info.dispatch_count <= bound, "seed 0x%llx ran %s in %u dispatches",
              (unsigned long long)seed, dmlops_path_name(info.last_path), (unsigned)info.dispatch_count);
}

/* The same for a gcase. */
static void few_dispatches_as_cpu(dmlops_context *vk, gcase *c, uint64_t seed, vkt_fixup fix, const void *user,
                                  uint32_t bound)
{
    for (uint32_t i = 0; i <= c->nin; i++) c->sizes[i] = c->t[i].buf.TotalTensorSizeInBytes;
    desc_few_dispatches_as_cpu(vk, &c->desc, c->nin, c->sizes, seed, fix, user, bound);
}

TEST(column_major_short_rows_plan_few_pieces)
{
    dmlops_context *vk = vkt_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, 64 << 10, 0);
    if (!vk) return;
    gcase c;
    slice_column_major(&c, DML_TENSOR_DATA_TYPE_FLOAT32, 12000, 5);
    few_dispatches_as_cpu(vk, &c, 0xC01, NULL, NULL, 64);
    /* REVERSE of a column-major UINT8 [70000, 2] along axis 0, a length per column. */
    const uint32_t rows = 70000, in[2] = {rows, 2}, cm[2] = {1, rows}, len_sizes[2] = {1, 2};
    memset(&c, 0, sizeof c);
    dmt_tensor_init(&c.t[0], DML_TENSOR_DATA_TYPE_UINT8, 2, in, cm, 0);
    dmt_tensor_init(&c.t[1], DML_TENSOR_DATA_TYPE_UINT32, 2, len_sizes, NULL, 0);
    dmt_tensor_init(&c.t[2], DML_TENSOR_DATA_TYPE_UINT8, 2, in, NULL, 0);
    c.rev = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){&c.t[0].desc, &c.t[1].desc, &c.t[2].desc, 0};
    c.desc = (DML_OPERATOR_DESC){DML_OPERATOR_REVERSE_SUBSEQUENCES, &c.rev};
    c.nin = 2;
    few_dispatches_as_cpu(vk, &c, 0xC02, lengths_up_to_axis, &rows, 64);
    /* One row spans all but 20 bytes of a window. */
    slice_column_major(&c, DML_TENSOR_DATA_TYPE_UINT8, 65515, 2);
    few_dispatches_as_cpu(vk, &c, 0xC04, NULL, NULL, 64);
    vkt_done(vk);

    /* ONE_HOT: INT64 indices [1, 65536], 16 elements apart (8 MiB in all: 1 MiB windows),
     * into UINT8 [16, 65536] along axis 0. */
    vk = vkt_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, 1 << 20, 0);
    if (!vk) return;
    const uint32_t isz[2] = {1, 65536}, istr[2] = {0, 16}, vsz[2] = {1, 2}, osz[2] = {16, 65536}, depth = 16;
    memset(&c, 0, sizeof c);
    dmt_tensor_init(&c.t[0], DML_TENSOR_DATA_TYPE_INT64, 2, isz, istr, 0);
    dmt_tensor_init(&c.t[1], DML_TENSOR_DATA_TYPE_UINT8, 2, vsz, NULL, 0);
    dmt_tensor_init(&c.t[2], DML_TENSOR_DATA_TYPE_UINT8, 2, osz, NULL, 0);
    c.hot = (DML_ONE_HOT_OPERATOR_DESC){&c.t[0].desc, &c.t[1].desc, &c.t[2].desc, 0};
    c.desc = (DML_OPERATOR_DESC){DML_OPERATOR_ONE_HOT, &c.hot};
    c.nin = 2;
    few_dispatches_as_cpu(vk, &c, 0xC03, indices_up_to_depth, &depth, 32);
    vkt_done(vk);
}

/* INT64 indices from -(depth + 2) to depth + 2: negative ones count from the end, and
 * those outside [-depth, depth) give a row of OffValues. */
static void indices_around_depth(uint8_t *const *data, const uint64_t *sizes, dmt_rng *r, const void *user)
{
    const int64_t depth = *(const uint32_t *)user;
    for (uint64_t i = 0; i + 8 <= sizes[0]; i += 8) {
        const int64_t v = (int64_t)(dmt_next(r) % (uint64_t)(2 * depth + 5)) - (depth + 2);
        memcpy(data[0] + 16 + i, &v, 8);
    }
}

/* INT64 lengths in [0, C + 1] for REVERSE of [R, C] along axis 1, one per row. */
static void lengths_per_row(uint8_t *const *data, const uint64_t *sizes, dmt_rng *r, const void *user)
{
    fill_up_to(data[1], sizes[1], 8, *(const uint32_t *)user + 1, false, r);
}

/* Case `op` (0 SLICE1 step 1, 1 SLICE1 step -1, 2 REVERSE along the rows, 3 ONE_HOT along
 * the rows) of `type` with output rows of `cols` elements, run against the CPU. */
static void long_rows_case(dmlops_context *vk, int op, DML_TENSOR_DATA_TYPE type, uint32_t rows, uint32_t cols,
                           uint64_t seed)
{
    gcase c;
    memset(&c, 0, sizeof c);
    const uint32_t wide[2] = {rows, cols + 5}, out[2] = {rows, cols}, col[2] = {rows, 1}, pair[2] = {1, 2};
    vkt_fixup fix = NULL;
    if (op < 2) {
        dmt_tensor_init(&c.t[0], type, 2, wide, NULL, 0);
        dmt_tensor_init(&c.t[1], type, 2, out, NULL, 0);
        c.off[1] = 3; /* sources off 16-byte boundaries */
        c.win[0] = rows;
        c.win[1] = cols;
        c.step[0] = 1;
        c.step[1] = op ? -1 : 1;
        c.slice = (DML_SLICE1_OPERATOR_DESC){&c.t[0].desc, &c.t[1].desc, 2, c.off, c.win, c.step};
        c.desc = (DML_OPERATOR_DESC){DML_OPERATOR_SLICE1, &c.slice};
        c.nin = 1;
    } else if (op == 2) {
        dmt_reverse rev; /* lengths [rows, 1] */
        dmt_reverse_init(&rev, type, 2, out, 1, DML_TENSOR_DATA_TYPE_INT64, NULL);
        const uint64_t sizes[3] = {rev.in.buf.TotalTensorSizeInBytes, rev.len.buf.TotalTensorSizeInBytes,
                                   rev.out.buf.TotalTensorSizeInBytes};
        desc_few_dispatches_as_cpu(vk, &rev.desc, 2, sizes, seed, lengths_per_row, &cols, UINT32_MAX);
        return;
    } else {
        dmt_tensor_init(&c.t[0], DML_TENSOR_DATA_TYPE_INT64, 2, col, NULL, 0);
        dmt_tensor_init(&c.t[1], type, 2, pair, NULL, 0);
        dmt_tensor_init(&c.t[2], type, 2, out, NULL, 0);
        c.hot = (DML_ONE_HOT_OPERATOR_DESC){&c.t[0].desc, &c.t[1].desc, &c.t[2].desc, 1};
        c.desc = (DML_OPERATOR_DESC){DML_OPERATOR_ONE_HOT, &c.hot};
        c.nin = 2;
        fix = indices_around_depth;
    }
    few_dispatches_as_cpu(vk, &c, seed, fix, &cols, UINT32_MAX);
}

/* Output rows of 1 KiB and more (and one just below) on the fast paths along the rows,
 * under the device's own tuning and each device class's, on the default grid and on
 * grids of 1 and 3 workgroups (units that walk the grid several times): GPUs give those
 * rows runs of 8 chunks shared by 32 lanes (dm_vk_unit_shape), which lavapipe runs only
 * when told it is a GPU. Seen failing with the lanes' chunks misplaced when RUN is 8. */
TEST(long_rows_match_cpu_under_each_tuning)
{
    static const struct {
        DML_TENSOR_DATA_TYPE type;
        uint32_t rows, cols;
    } shapes[] = {{DML_TENSOR_DATA_TYPE_UINT8, 37, 1024}, {DML_TENSOR_DATA_TYPE_FLOAT16, 30, 1000},
                  {DML_TENSOR_DATA_TYPE_FLOAT32, 5, 4096}, {DML_TENSOR_DATA_TYPE_FLOAT64, 9, 520},
                  {DML_TENSOR_DATA_TYPE_FLOAT32, 3, 255},  {DML_TENSOR_DATA_TYPE_UINT8, 1, 65536 + 48}};
    static const char *const tunings[] = {NULL, "gpu", "cpu"};
    static const uint32_t grids[] = {0, 1, 3};
    for (size_t t = 0; t < 3; t++)
        for (size_t g = 0; g < 3; g++) {
            dmt_env tuning;
            dmt_env_set(&tuning, "DMLOPS_VK_TUNING", tunings[t]);
            dmlops_context *vk = vkt_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, 0, grids[g]);
            dmt_env_restore(&tuning);
            if (!vk) return;
            for (int op = 0; op < 4; op++)
                for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
                    long_rows_case(vk, op, shapes[i].type, shapes[i].rows, shapes[i].cols,
                                   0x10C0 + t * 1024 + g * 256 + (uint64_t)op * 16 + i);
            vkt_done(vk);
        }
}

/* DMLOPS_VK_RUN: a power of two up to 32 is named in the note (and results stay the
 * CPU's), anything else is named as not understood. */
TEST(environment_sets_the_kernels_run)
{
    static const struct {
        const char *value, *note;
    } runs[] = {{"8", "tuning from the environment: runs of 8 chunks"},
                {"1", "tuning from the environment: runs of 1 chunk"},
                {"3", "ignored, not understood (docs/api.md): DMLOPS_VK_RUN=\"3\""},
                {"64", "ignored, not understood (docs/api.md): DMLOPS_VK_RUN=\"64\""},
                {"0", "ignored, not understood (docs/api.md): DMLOPS_VK_RUN=\"0\""}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        dmt_env run;
        dmt_env_set(&run, "DMLOPS_VK_RUN", runs[i].value);
        dmlops_context *vk = vkt_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, 0, 0);
        dmt_env_restore(&run);
        if (!vk) return;
        dmlops_context_info ci;
        if (CHECK_OK(dmlops_context_get_info(vk, &ci)))
            CHECK(strstr(ci.note, runs[i].note) != NULL, "DMLOPS_VK_RUN=%s: note \"%s\"", runs[i].value, ci.note);
        for (int op = 0; op < 4; op++) long_rows_case(vk, op, DML_TENSOR_DATA_TYPE_FLOAT16, 7, 1000, 0x5E0 + i * 4 + (uint64_t)op);
        vkt_done(vk);
    }
}

TEST(vulkan_matches_cpu_with_tiny_dispatch_grids)
{
    /* At most 1 x 1 workgroups per dispatch: every piece needs many dispatches. */
    dmlops_context *vk = vkt_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, 0, 1);
    if (!vk) return;
    run_random(vk, 0x2222, 300, false);
    vkt_done(vk);
}

TEST(vulkan_matches_cpu_preferring_copy_regions)
{
    dmlops_context *vk = vkt_context(DMLOPS_CONTEXT_FLAG_PREFER_COPY, 0, 0);
    if (!vk) return;
    run_random(vk, 0x3333, 300, false);
    vkt_done(vk);
}

TEST(vulkan_matches_cpu_with_buffers_split_into_256_byte_allocations)
{
    /* Every buffer above 256 bytes spans several VkBuffers: windows, copy regions and
     * slab copies must never straddle one, whatever the binding offsets. */
    for (int flags = 0; flags < 2; flags++) {
        dmlops_context *vk = vkt_context_alloc(flags ? DMLOPS_CONTEXT_FLAG_PREFER_COPY : DMLOPS_CONTEXT_FLAG_KERNELS_ONLY,
                                               flags ? 0 : 512, 0, 256);
        if (!vk) return;
        run_random(vk, 0x4444 + (uint64_t)flags, 250, false);
        vkt_done(vk);
    }
}

static void slice_rows(gcase *c, DML_TENSOR_DATA_TYPE dt, uint32_t rows, uint32_t cols, uint32_t keep);

TEST(copy_regions_split_at_allocation_boundaries)
{
    dmlops_context *vk = vkt_context_alloc(DMLOPS_CONTEXT_FLAG_PREFER_COPY, 0, 0, 256);
    if (!vk) return;
    gcase c;
    dmlops_operator_info info;
    for (uint32_t keep = 2; keep <= 299; keep += 37) { /* keep 1 collapses to a strided gather */
        slice_rows(&c, DML_TENSOR_DATA_TYPE_UINT16, 9, 300, keep); /* 600-byte rows over 256-byte segments */
        if (vkt_same_as_cpu(vk, &c.desc, 1, c.sizes, keep, &info, NULL, NULL))
            CHECK(info.last_path == DMLOPS_PATH_COPY_REGIONS, "keep %u ran %s", keep, dmlops_path_name(info.last_path));
    }
    vkt_done(vk);
}

TEST(segmented_buffers_read_write_and_copy_across_boundaries)
{
    dmlops_context *vk = vkt_context_alloc(0, 0, 0, 256);
    if (!vk) return;
    enum { N = 1000 };
    uint8_t a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = (uint8_t)(i * 31 + 7);
    dmlops_buffer *x = dmt_buffer(vk, N, NULL), *y = dmt_buffer(vk, N + 300, NULL);
    REQUIRE(x && y);
    CHECK_OK(dmlops_buffer_write(x, 0, a, N));
    memset(b, 0, sizeof b);
    CHECK_OK(dmlops_buffer_read(x, 0, b, N));
    CHECK(!memcmp(a, b, N), "read back across 4 segments differs");
    CHECK_OK(dmlops_buffer_read(x, 250, b, 20));
    CHECK(!memcmp(a + 250, b, 20), "read straddling one boundary differs");
    dmlops_command_list *list = NULL;
    REQUIRE_OK(dmlops_command_list_create(vk, &list));
    CHECK_OK(dmlops_command_list_record_copy(list, y, 123, x, 5, N - 5));
    CHECK_OK(dmlops_command_list_execute(list));
    CHECK_OK(dmlops_buffer_read(y, 123, b, N - 5));
    CHECK(!memcmp(a + 5, b, N - 5), "a copy across segments of both buffers differs");
    dmlops_command_list_destroy(list);
    dmlops_buffer_destroy(x);
    dmlops_buffer_destroy(y);
    dmlops_buffer *z = NULL;
    CHECK_STATUS(dmlops_buffer_create(vk, UINT64_MAX - 8, &z), DMLOPS_ERROR_UNSUPPORTED, "allocations");
    vkt_done(vk);
}

/* ---- paths ---- */

static void slice_rows(gcase *c, DML_TENSOR_DATA_TYPE dt, uint32_t rows, uint32_t cols, uint32_t keep)
{
    uint32_t in[2] = {rows, cols}, out[2] = {rows, keep};
    memset(c, 0, sizeof *c);
    dmt_tensor_init(&c->t[0], dt, 2, in, NULL, 0);
    dmt_tensor_init(&c->t[1], dt, 2, out, NULL, 0);
    c->off[1] = 1;
    c->win[0] = rows;
    c->win[1] = keep;
    c->step[0] = c->step[1] = 1;
    c->slice = (DML_SLICE1_OPERATOR_DESC){&c->t[0].desc, &c->t[1].desc, 2, c->off, c->win, c->step};
    c->desc = (DML_OPERATOR_DESC){DML_OPERATOR_SLICE1, &c->slice};
    c->nin = 1;
    c->aux = -1;
    c->sizes[0] = c->t[0].buf.TotalTensorSizeInBytes;
    c->sizes[1] = c->t[1].buf.TotalTensorSizeInBytes;
}

TEST(slice_with_long_rows_uses_copy_regions)
{
    dmlops_context *vk = vkt_context(0, 0, 0);
    if (!vk) return;
    gcase c;
    dmlops_operator_info info;
    slice_rows(&c, DML_TENSOR_DATA_TYPE_FLOAT32, 8, 4096, 4000); /* 16000-byte runs */
    const dmlops_path want = vkt_copies_by_default(vk) ? DMLOPS_PATH_COPY_REGIONS : DMLOPS_PATH_KERNEL;
    if (vkt_same_as_cpu(vk, &c.desc, 1, c.sizes, 7, &info, NULL, NULL)) {
        CHECK(info.planned_path == want, "planned %s", dmlops_path_name(info.planned_path));
        CHECK(info.last_path == want, "ran %s", dmlops_path_name(info.last_path));
        CHECK(info.copy_region_count == (want == DMLOPS_PATH_KERNEL ? 0 : 8), "%u regions", info.copy_region_count);
    }
    slice_rows(&c, DML_TENSOR_DATA_TYPE_UINT8, 64, 40, 17); /* 17-byte runs: a kernel wins */
    if (vkt_same_as_cpu(vk, &c.desc, 1, c.sizes, 8, &info, NULL, NULL))
        CHECK(info.last_path == DMLOPS_PATH_KERNEL, "ran %s", dmlops_path_name(info.last_path));
    vkt_done(vk);

    /* Every device copies them as regions when asked to. */
    vk = vkt_context(DMLOPS_CONTEXT_FLAG_PREFER_COPY, 0, 0);
    slice_rows(&c, DML_TENSOR_DATA_TYPE_FLOAT32, 8, 4096, 4000);
    if (vk && vkt_same_as_cpu(vk, &c.desc, 1, c.sizes, 10, &info, NULL, NULL)) {
        CHECK(info.last_path == DMLOPS_PATH_COPY_REGIONS, "PREFER_COPY ran %s", dmlops_path_name(info.last_path));
        CHECK(info.copy_region_count == 8, "PREFER_COPY: %u regions", info.copy_region_count);
    }
    vkt_done(vk);

    vk = vkt_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, 0, 0);
    slice_rows(&c, DML_TENSOR_DATA_TYPE_FLOAT32, 8, 4096, 4000);
    if (vk && vkt_same_as_cpu(vk, &c.desc, 1, c.sizes, 9, &info, NULL, NULL))
        CHECK(info.last_path == DMLOPS_PATH_KERNEL, "KERNELS_ONLY ran %s", dmlops_path_name(info.last_path));
    vkt_done(vk);
}

/* DMLOPS_VK_COPY_MIN moves the copy-region threshold either way on any device, invalid
 * tuning values are ignored, and the context's note says what the environment set, what
 * the device could not take and which values were not understood. */
TEST(environment_tunes_the_vulkan_backend)
{
    static const struct {
        const char *copy_min, *grid, *workgroup, *lanes, *tuning, *texel;
        dmlops_path path; /* of a slice with 16000-byte runs; NONE: the device's default */
        const char *note; /* in the context's note, or NULL for no tuning clause */
    } runs[] = {
        {"0", "3", "64", NULL, NULL, NULL, DMLOPS_PATH_COPY_REGIONS,
         "tuning from the environment: grid 3 workgroups, workgroup 64, copy regions from 0 bytes"},
        {"1099511627776", NULL, "1", NULL, NULL, NULL, DMLOPS_PATH_KERNEL, "workgroup 1, copy regions from 1099511627776 bytes"},
        /* each out of range or not a power of two */
        {"1099511627777", "0", "100", "3", NULL, NULL, DMLOPS_PATH_NONE,
         "devices; ignored, not understood (docs/api.md): DMLOPS_VK_LANES=\"3\", DMLOPS_VK_GRID=\"0\", "
         "DMLOPS_VK_WORKGROUP=\"100\", DMLOPS_VK_COPY_MIN=\"109951162777\""},
        {"-5", "1048577", "2048", "128", NULL, NULL, DMLOPS_PATH_NONE, "DMLOPS_VK_WORKGROUP=\"2048\", DMLOPS_VK_COPY_MIN=\"-5\""},
        {"12x", "three", "", "", "fast", "2", DMLOPS_PATH_NONE,
         "; ignored, not understood (docs/api.md): DMLOPS_VK_TUNING=\"fast\", DMLOPS_VK_TEXEL=\"2\", "
         "DMLOPS_VK_GRID=\"three\", DMLOPS_VK_COPY_MIN=\"12x\""},
        {"64", "7", NULL, "5", NULL, NULL, DMLOPS_PATH_COPY_REGIONS,
         "; tuning from the environment: grid 7 workgroups, copy regions from 64 bytes; ignored, not understood "
         "(docs/api.md): DMLOPS_VK_LANES=\"5\""},
        /* understood, but more lanes than the workgroup has invocations */
        {NULL, NULL, "32", "64", NULL, NULL, DMLOPS_PATH_NONE,
         "tuning from the environment: lanes 64 (not taken: above the workgroup of 32), workgroup 32"},
        {NULL, NULL, NULL, NULL, NULL, NULL, DMLOPS_PATH_NONE, NULL},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        dmt_env copy_min, grid, workgroup, lanes, tuning, texel;
        dmt_env_set(&tuning, "DMLOPS_VK_TUNING", runs[i].tuning);
        dmt_env_set(&texel, "DMLOPS_VK_TEXEL", runs[i].texel);
        dmt_env_set(&copy_min, "DMLOPS_VK_COPY_MIN", runs[i].copy_min);
        dmt_env_set(&grid, "DMLOPS_VK_GRID", runs[i].grid);
        dmt_env_set(&workgroup, "DMLOPS_VK_WORKGROUP", runs[i].workgroup);
        dmt_env_set(&lanes, "DMLOPS_VK_LANES", runs[i].lanes);
        dmlops_context *vk = vkt_context(0, 0, 0);
        dmt_env_restore(&lanes);
        dmt_env_restore(&workgroup);
        dmt_env_restore(&grid);
        dmt_env_restore(&copy_min);
        dmt_env_restore(&texel);
        dmt_env_restore(&tuning);
        if (!vk) return;
        dmlops_context_info ci;
        if (CHECK_OK(dmlops_context_get_info(vk, &ci))) {
            if (runs[i].note) CHECK(strstr(ci.note, runs[i].note) != NULL, "run %zu: note \"%s\"", i, ci.note);
            else CHECK(strstr(ci.note, "tuning from the environment") == NULL, "run %zu: note \"%s\"", i, ci.note);
        }
        gcase c;
        dmlops_operator_info info;
        slice_rows(&c, DML_TENSOR_DATA_TYPE_FLOAT32, 8, 4096, 4000);
        dmlops_path want = runs[i].path;
        if (want == DMLOPS_PATH_NONE) want = vkt_copies_by_default(vk) ? DMLOPS_PATH_COPY_REGIONS : DMLOPS_PATH_KERNEL;
        if (vkt_same_as_cpu(vk, &c.desc, 1, c.sizes, 70 + i, &info, NULL, NULL))
            CHECK(info.last_path == want, "run %zu: ran %s", i, dmlops_path_name(info.last_path));
        vkt_done(vk);
    }
}

/* ---- device choice ---- */

TEST(named_device_that_does_not_exist_lists_the_available_ones)
{
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN, .device = "no-such-gpu-9000"};
    dmlops_context *ctx = NULL;
    dmlops_status st = dmlops_context_create(&d, &ctx);
    if (st == DMLOPS_ERROR_NO_DEVICE && strstr(dmlops_last_error_message(), "no Vulkan loader")) return;
    CHECK_STATUS(st, DMLOPS_ERROR_NO_DEVICE, "\"no-such-gpu-9000\" not found; available: 0: ");
    CHECK(ctx == NULL);
    d.backend = DMLOPS_BACKEND_AUTO; /* a named device is never silently replaced by the CPU */
    CHECK_STATUS(dmlops_context_create(&d, &ctx), DMLOPS_ERROR_NO_DEVICE, "not found");
    d.device = "99";
    CHECK_STATUS(dmlops_context_create(&d, &ctx), DMLOPS_ERROR_NO_DEVICE, "\"99\" not found");
}

TEST(device_by_index_uuid_and_name)
{
    uint32_t n = 0;
    if (dmlops_enumerate_devices(NULL, &n) != DMLOPS_SUCCESS || n == 0) return;
    dmlops_device_info *all = calloc(n, sizeof *all);
    REQUIRE(all);
    REQUIRE_OK(dmlops_enumerate_devices(all, &n));
    uint32_t defaults = 0;
    for (uint32_t i = 0; i < n; i++) defaults += all[i].is_default;
    CHECK(defaults == 1, "%u default devices", defaults);
    const char *requests[3];
    char index[16], name_part[8];
    snprintf(index, sizeof index, "%u", n - 1);
    snprintf(name_part, sizeof name_part, "%.5s", all[n - 1].name);
    requests[0] = index;
    requests[1] = all[n - 1].uuid_string;
    requests[2] = name_part;
    for (int k = 0; k < 3; k++) {
        dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN, .device = requests[k]};
        dmlops_context *ctx = NULL;
        dmlops_context_info info;
        if (!CHECK_OK(dmlops_context_create(&d, &ctx))) continue;
        CHECK_OK(dmlops_context_get_info(ctx, &info));
        CHECK(info.backend == DMLOPS_BACKEND_VULKAN);
        CHECK(!strncmp(info.device.name, name_part, strlen(name_part)), "request \"%s\" chose %s", requests[k],
              info.device.name);
        CHECK(info.device.max_storage_buffer_range > 0 && info.device.max_compute_work_group_count[0] > 0);
        CHECK(info.device.is_default == all[n - 1].is_default, "is_default %u, enumerate says %u",
              info.device.is_default, all[n - 1].is_default);
        dmlops_context_destroy(ctx);
    }
    free(all);
}

TEST(environment_picks_backend_and_device_but_fields_win)
{
    dmlops_context *ctx = NULL;
    dmlops_context_info info;
    setenv("DMLOPS_BACKEND", "cpu", 1);
    REQUIRE_OK(dmlops_context_create(NULL, &ctx));
    CHECK_OK(dmlops_context_get_info(ctx, &info));
    CHECK(info.backend == DMLOPS_BACKEND_CPU, "DMLOPS_BACKEND=cpu gave backend %d", info.backend);
    dmlops_context_destroy(ctx);
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN};
    dmlops_status st = dmlops_context_create(&d, &ctx); /* the field wins over the environment */
    if (st == DMLOPS_SUCCESS) {
        CHECK_OK(dmlops_context_get_info(ctx, &info));
        CHECK(info.backend == DMLOPS_BACKEND_VULKAN);
        dmlops_context_destroy(ctx);
    }
    setenv("DMLOPS_BACKEND", "gpu-please", 1);
    CHECK_STATUS(dmlops_context_create(NULL, &ctx), DMLOPS_ERROR_INVALID_ARGUMENT, "DMLOPS_BACKEND");
    unsetenv("DMLOPS_BACKEND");
    if (!vkt_have_loader("the absent device's message")) return;
    setenv("DMLOPS_DEVICE", "no-such-gpu-9000", 1);
    st = dmlops_context_create(NULL, &ctx);
    if (st != DMLOPS_SUCCESS || (dmlops_context_get_info(ctx, &info), info.backend == DMLOPS_BACKEND_VULKAN))
        CHECK_STATUS(st, DMLOPS_ERROR_NO_DEVICE, "no-such-gpu-9000");
    if (st == DMLOPS_SUCCESS) dmlops_context_destroy(ctx);
    unsetenv("DMLOPS_DEVICE");
}

TEST(auto_falls_back_to_cpu_without_a_vulkan_driver)
{
    /* No ICD: the loader finds no device. */
    setenv("VK_DRIVER_FILES", "/nonexistent/icd.json", 1);
    setenv("VK_ICD_FILENAMES", "/nonexistent/icd.json", 1);
    dmlops_context *ctx = NULL;
    dmlops_context_info info;
    uint32_t found = 0;
    if (dmlops_enumerate_devices(NULL, &found) == DMLOPS_SUCCESS && found) {
        /* Under wine the variables stay in the Windows process, and winevulkan asks the
         * host's loader, which never sees them. */
        printf("    note: the loader still finds %u device(s) with VK_DRIVER_FILES set; skipping\n", found);
        unsetenv("VK_DRIVER_FILES");
        unsetenv("VK_ICD_FILENAMES");
        return;
    }
    if (CHECK_OK(dmlops_context_create(NULL, &ctx))) {
        CHECK_OK(dmlops_context_get_info(ctx, &info));
        CHECK(info.backend == DMLOPS_BACKEND_CPU, "backend %d", info.backend);
        CHECK(strstr(info.note, "CPU backend") != NULL, "note: \"%s\"", info.note);
        dmlops_context_destroy(ctx);
    }
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN};
    CHECK_STATUS(dmlops_context_create(&d, &ctx), DMLOPS_ERROR_NO_DEVICE, NULL);
    uint32_t n = 5;
    if (vkt_have_loader("the loader's message without a driver"))
        CHECK_STATUS(dmlops_enumerate_devices(NULL, &n), DMLOPS_ERROR_NO_DEVICE, "no Vulkan device");
    unsetenv("VK_DRIVER_FILES");
    unsetenv("VK_ICD_FILENAMES");
}

TEST(buffer_beyond_the_device_allocation_limit_is_unsupported)
{
    dmlops_context *vk = vkt_context(0, 0, 0);
    if (!vk) return;
    dmlops_context_info info;
    CHECK_OK(dmlops_context_get_info(vk, &info));
    dmlops_buffer *b = NULL;
    CHECK_STATUS(dmlops_buffer_create(vk, UINT64_MAX - 8, &b), DMLOPS_ERROR_UNSUPPORTED, info.device.name);
    CHECK(b == NULL);
    vkt_done(vk);
}

/* ---- command lists ---- */

static void reverse_rows(gcase *c, uint32_t rows, uint32_t cols)
{
    uint32_t sz[2] = {rows, cols}, lsz[2] = {rows, 1}, lst[2] = {0, 0};
    memset(c, 0, sizeof *c);
    dmt_tensor_init(&c->t[0], DML_TENSOR_DATA_TYPE_FLOAT32, 2, sz, NULL, 0);
    dmt_tensor_init(&c->t[1], DML_TENSOR_DATA_TYPE_UINT32, 2, lsz, lst, 0); /* one broadcast length */
    dmt_tensor_init(&c->t[2], DML_TENSOR_DATA_TYPE_FLOAT32, 2, sz, NULL, 0);
    c->rev = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){&c->t[0].desc, &c->t[1].desc, &c->t[2].desc, 1};
    c->desc = (DML_OPERATOR_DESC){DML_OPERATOR_REVERSE_SUBSEQUENCES, &c->rev};
}

TEST_CTX(command_list_orders_dependent_operators)
{
    /* x -> reverse -> y -> reverse -> z (= x) -> copy -> w; plus an independent reverse
     * x -> v that needs no barrier. */
    enum { R = 16, C = 64 };
    gcase c;
    reverse_rows(&c, R, C);
    const uint64_t bytes = (uint64_t)R * C * 4;
    float x[R * C], out[R * C];
    uint32_t len[4] = {C};
    for (int i = 0; i < R * C; i++) x[i] = (float)i;
    dmlops_operator *op = NULL;
    dmlops_command_list *list = NULL;
    REQUIRE_OK(dmlops_operator_create(ctx, &c.desc, &op));
    dmlops_buffer *bx = dmt_buffer(ctx, bytes, x), *bl = dmt_buffer(ctx, 16, len);
    dmlops_buffer *by = dmt_buffer(ctx, bytes, NULL), *bz = dmt_buffer(ctx, bytes, NULL);
    dmlops_buffer *bw = dmt_buffer(ctx, bytes, NULL), *bv = dmt_buffer(ctx, bytes, NULL);
    REQUIRE(bx && bl && by && bz && bw && bv);
    REQUIRE_OK(dmlops_command_list_create(ctx, &list));
    dmlops_binding in1[2] = {{bx, 0, bytes}, {bl, 0, 16}}, o1 = {by, 0, bytes};
    dmlops_binding in2[2] = {{by, 0, bytes}, {bl, 0, 16}}, o2 = {bz, 0, bytes};
    dmlops_binding o3 = {bv, 0, bytes};
    CHECK_OK(dmlops_command_list_record(list, op, 2, in1, 1, &o1));
    CHECK_OK(dmlops_command_list_record(list, op, 2, in1, 1, &o3)); /* independent */
    CHECK_OK(dmlops_command_list_record(list, op, 2, in2, 1, &o2)); /* reads y */
    CHECK_OK(dmlops_command_list_record_copy(list, bw, 0, bz, 0, bytes)); /* reads z */
    uint32_t ops = 0, barriers = 0;
    CHECK_OK(dmlops_command_list_get_counts(list, &ops, &barriers));
    CHECK(ops == 4 && barriers == 2, "%u operations, %u barriers (expected 4, 2)", ops, barriers);
    for (int rep = 0; rep < 2; rep++) {
        CHECK_OK(dmlops_buffer_write(bw, 0, (float[1]){-1}, 4));
        REQUIRE_OK(dmlops_command_list_execute(list));
        CHECK_OK(dmlops_buffer_read(bw, 0, out, bytes));
        CHECK(!memcmp(out, x, bytes), "reverse twice then copy did not give x back (run %d)", rep);
        CHECK_OK(dmlops_buffer_read(bv, 0, out, bytes));
        CHECK(out[0] == (float)(C - 1) && out[C] == (float)(2 * C - 1), "independent reverse wrong: %g %g", out[0],
              out[C]);
    }
    dmlops_execution_stats stats;
    CHECK_OK(dmlops_command_list_get_stats(list, &stats));
    CHECK(stats.wall_seconds > 0);
    /* Timestamps are optional (timestampValidBits may be 0 on every queue: the
     * min-no-timestamps profile of test/profile_layer): without them the device time is
     * reported missing, never made up. */
    dmlops_context_info ci;
    if (dmt_is_vulkan() && CHECK_OK(dmlops_context_get_info(ctx, &ci))) {
        const bool timed = ci.device.timestamp_period > 0;
        CHECK(timed ? stats.gpu_seconds >= 0 : stats.gpu_seconds < 0, "gpu_seconds %g on a device %s timestamps",
              stats.gpu_seconds, timed ? "with" : "without");
    }
    /* Reset and record again into the same list. */
    CHECK_OK(dmlops_command_list_reset(list));
    CHECK_OK(dmlops_command_list_get_counts(list, &ops, &barriers));
    CHECK(ops == 0 && barriers == 0);
    CHECK_OK(dmlops_command_list_record_copy(list, bw, 0, bx, 0, bytes));
    CHECK_OK(dmlops_command_list_record(list, op, 2, in1, 1, &o1));
    CHECK_OK(dmlops_command_list_get_counts(list, &ops, &barriers));
    CHECK(ops == 2 && barriers == 0, "%u operations, %u barriers (expected 2, 0: both only read x)", ops, barriers);
    CHECK_OK(dmlops_command_list_execute(list));
    CHECK_OK(dmlops_buffer_read(bw, 0, out, bytes));
    CHECK(!memcmp(out, x, bytes));
    /* A copy that overlaps itself is refused and leaves the list unchanged. */
    CHECK_STATUS(dmlops_command_list_record_copy(list, bw, 0, bw, 8, 64), DMLOPS_ERROR_INVALID_ARGUMENT, "overlap");
    CHECK_OK(dmlops_command_list_get_counts(list, &ops, &barriers));
    CHECK(ops == 2);
    dmlops_command_list_destroy(list);
    dmlops_buffer *bufs[] = {bx, bl, by, bz, bw, bv};
    for (int i = 0; i < 6; i++) dmlops_buffer_destroy(bufs[i]);
    dmlops_operator_destroy(op);
}

TEST_CTX(many_small_operators_in_one_list)
{
    gcase c;
    reverse_rows(&c, 1, 8);
    dmlops_operator *op = NULL;
    dmlops_command_list *list = NULL;
    REQUIRE_OK(dmlops_operator_create(ctx, &c.desc, &op));
    REQUIRE_OK(dmlops_command_list_create(ctx, &list));
    float x[8] = {0, 1, 2, 3, 4, 5, 6, 7}, out[8];
    uint32_t len[4] = {3};
    dmlops_buffer *in = dmt_buffer(ctx, 32, x), *lb = dmt_buffer(ctx, 16, len), *o = dmt_buffer(ctx, 32 * 500, NULL);
    REQUIRE(in && lb && o);
    dmlops_binding b[2] = {{in, 0, 32}, {lb, 0, 16}};
    for (int i = 0; i < 500; i++) {
        dmlops_binding ob = {o, (uint64_t)i * 32, 32};
        REQUIRE_OK(dmlops_command_list_record(list, op, 2, b, 1, &ob));
    }
    uint32_t ops, barriers;
    CHECK_OK(dmlops_command_list_get_counts(list, &ops, &barriers));
    CHECK(ops == 500 && barriers == 0, "%u ops %u barriers", ops, barriers);
    REQUIRE_OK(dmlops_command_list_execute(list));
    for (int i = 0; i < 500; i += 99) {
        CHECK_OK(dmlops_buffer_read(o, (uint64_t)i * 32, out, 32));
        CHECK(out[0] == 2 && out[2] == 0 && out[3] == 3 && out[7] == 7, "operator %d wrong", i);
    }
    dmlops_command_list_destroy(list);
    dmlops_buffer_destroy(in);
    dmlops_buffer_destroy(lb);
    dmlops_buffer_destroy(o);
    dmlops_operator_destroy(op);
}

/* ---- pipeline cache ---- */

TEST(pipeline_cache_file_is_written_validated_and_reused)
{
    char path[] = "/tmp/dmlops-cache-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    remove(path);
    for (int round = 0; round < 3; round++) {
        if (round == 2) { /* a corrupt file is ignored, not fatal */
            FILE *f = fopen(path, "r+b");
            REQUIRE(f);
            fseek(f, 40, SEEK_SET);
            fputc(0x5a, f);
            fclose(f);
        }
        dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN};
        dmlops_context_options o = {.pipeline_cache_path = path};
        dmlops_context *ctx = NULL;
        if (dmlops_context_create_with_options(&d, &o, &ctx) != DMLOPS_SUCCESS) return; /* no device */
        float out[16];
        CHECK_OK(seed_run(ctx, &seed_examples[round], out));
        CHECK(!memcmp(out, seed_examples[round].expected, seed_bytes(&seed_examples[round].output)));
        if (round == 1) { /* a file already there is replaced (Windows' rename() fails over one) */
            FILE *junk = fopen(path, "wb");
            REQUIRE(junk);
            fputs("JUNKJUNK", junk);
            fclose(junk);
        }
        dmlops_context_destroy(ctx);
        FILE *f = fopen(path, "rb");
        CHECK(f != NULL, "round %d: no cache file", round);
        if (!f) continue;
        uint32_t magic = 0;
        CHECK(fread(&magic, 4, 1, f) == 1 && magic == 0x434c4d44u, "bad magic 0x%x", magic);
        fclose(f);
    }
    remove(path);
}

/* REVERSE along an outer axis in a command list: on unified-memory devices the list reads
 * the lengths at each execution, unless an earlier entry of the list writes them. */
TEST_CTX(command_list_reverse_reads_current_lengths)
{
    enum { B = 3, N = 8, M = 512 }; /* 2 KiB slabs: copy regions on CPU devices */
    const uint32_t sizes[3] = {B, N, M}, lstrides[3] = {1, 0, 0};
    dmt_reverse rev;
    dmt_reverse_init(&rev, DML_TENSOR_DATA_TYPE_UINT32, 3, sizes, 1, DML_TENSOR_DATA_TYPE_UINT32, lstrides);
    const uint64_t bytes = (uint64_t)B * N * M * 4;
    static uint32_t x[B * N * M], y[B * N * M];
    for (uint32_t i = 0; i < B * N * M; i++) x[i] = i;
    uint32_t first[4] = {8, 3, 0}, second[4] = {2, 100, 5};
    dmlops_command_list *list = NULL;
    dmlops_buffer *bx = dmt_buffer(ctx, bytes, x), *bl = dmt_buffer(ctx, 16, first), *by = dmt_buffer(ctx, bytes, NULL);
    dmlops_buffer *staged = dmt_buffer(ctx, 16, second);
    REQUIRE(bx && bl && by && staged);
    dmlops_binding in[2] = {{bx, 0, bytes}, {bl, 0, 16}}, out = {by, 0, bytes};
    for (int variant = 0; variant < 2; variant++) {
        dmlops_operator *op = NULL; /* one per variant, so last_path tells them apart */
        REQUIRE_OK(dmlops_operator_create(ctx, &rev.desc, &op));
        /* variant 1 first copies new lengths in on the device: the list must not read
         * them on the host before that copy has run. */
        REQUIRE_OK(dmlops_command_list_create(ctx, &list));
        CHECK_OK(dmlops_buffer_write(bl, 0, first, 16));
        if (variant) CHECK_OK(dmlops_command_list_record_copy(list, bl, 0, staged, 0, 16));
        CHECK_OK(dmlops_command_list_record(list, op, 2, in, 1, &out));
        for (int run = 0; run < 2; run++) {
            const uint32_t *L = variant || run ? second : first;
            if (!variant && run) CHECK_OK(dmlops_buffer_write(bl, 0, second, 16));
            REQUIRE_OK(dmlops_command_list_execute(list));
            CHECK_OK(dmlops_buffer_read(by, 0, y, bytes));
            bool ok = true;
            for (uint32_t b = 0; b < B && ok; b++)
                for (uint32_t n = 0; n < N && ok; n++) {
                    uint32_t l = L[b] > N ? N : L[b], s = n < l ? l - 1 - n : n;
                    ok = CHECK(y[(b * N + n) * M + 7] == (b * N + s) * M + 7, "variant %d run %d: batch %u row %u",
                               variant, run, b, n);
                }
        }
        dmlops_operator_info info;
        CHECK_OK(dmlops_operator_get_info(op, &info));
        dmlops_context_info ci;
        CHECK_OK(dmlops_context_get_info(ctx, &ci));
        if (dmt_is_vulkan() && ci.device.unified_memory && ci.device.type == DMLOPS_DEVICE_TYPE_CPU)
            CHECK(info.last_path == (variant ? DMLOPS_PATH_KERNEL : DMLOPS_PATH_COPY_REGIONS), "variant %d ran %s",
                  variant, dmlops_path_name(info.last_path));
        /* The regions follow the lengths, so only an execution knows their count. */
        if (info.last_path == DMLOPS_PATH_COPY_REGIONS)
            CHECK(info.copy_region_count > 0, "variant %d copied with %u regions", variant, info.copy_region_count);
        dmlops_command_list_destroy(list);
        list = NULL;
        dmlops_operator_destroy(op);
    }
    dmlops_buffer_destroy(bx);
    dmlops_buffer_destroy(bl);
    dmlops_buffer_destroy(by);
    dmlops_buffer_destroy(staged);
}

/* Lengths given per element of the inner run (not broadcast): slab copies when they agree
 * along each run, the kernel when one differs; the results are the same either way. */
TEST_CTX(reverse_with_per_element_lengths)
{
    enum { B = 2, N = 6, M = 64 };
    const uint32_t sizes[3] = {B, N, M};
    dmt_reverse rev;
    dmt_reverse_init(&rev, DML_TENSOR_DATA_TYPE_UINT16, 3, sizes, 1, DML_TENSOR_DATA_TYPE_INT64, NULL);
    uint16_t x[B * N * M], y[B * N * M];
    int64_t L[B * M];
    for (int i = 0; i < B * N * M; i++) x[i] = (uint16_t)(i * 7);
    dmlops_context_info ci;
    CHECK_OK(dmlops_context_get_info(ctx, &ci));
    for (int differ = 0; differ < 2; differ++) {
        for (int b = 0; b < B; b++)
            for (int m = 0; m < M; m++) L[b * M + m] = b ? 4 : -3; /* -3 counts as 0 */
        if (differ) L[M + 33] = 5;
        dmlops_operator *op = NULL;
        REQUIRE_OK(dmlops_operator_create(ctx, &rev.desc, &op));
        dmlops_buffer *bx = dmt_buffer(ctx, sizeof x, x), *bl = dmt_buffer(ctx, sizeof L, L), *by = dmt_buffer(ctx, sizeof y, NULL);
        dmlops_binding in[2] = {{bx, 0, sizeof x}, {bl, 0, sizeof L}}, out = {by, 0, sizeof y};
        if (CHECK_OK(dmlops_operator_execute(op, 2, in, 1, &out)) && CHECK_OK(dmlops_buffer_read(by, 0, y, sizeof y))) {
            bool ok = true;
            for (int b = 0; b < B && ok; b++)
                for (int n = 0; n < N && ok; n++)
                    for (int m = 0; m < M && ok; m++) {
                        int64_t l = L[b * M + m] < 0 ? 0 : L[b * M + m];
                        int s = n < l ? (int)l - 1 - n : n;
                        ok = CHECK(y[(b * N + n) * M + m] == x[(b * N + s) * M + m], "differ %d: [%d,%d,%d]", differ, b, n, m);
                    }
        }
        dmlops_operator_info info;
        CHECK_OK(dmlops_operator_get_info(op, &info));
        if (dmt_is_vulkan() && ci.device.unified_memory && ci.device.type == DMLOPS_DEVICE_TYPE_CPU)
            CHECK(info.last_path == (differ ? DMLOPS_PATH_KERNEL : DMLOPS_PATH_COPY_REGIONS), "differ %d ran %s", differ,
                  dmlops_path_name(info.last_path));
        dmlops_buffer_destroy(bx);
        dmlops_buffer_destroy(bl);
        dmlops_buffer_destroy(by);
        dmlops_operator_destroy(op);
    }
}

/* Barriers only where bytes meet: 200 operators write neighbouring slices of one buffer
 * while reading one input (no barrier); overwriting that input then needs one (WAR); an
 * operator touching only bytes from before that barrier needs none; reading what it wrote
 * needs one (RAW). The results show the order held. */
TEST_CTX(command_list_barriers_only_on_real_hazards)
{
    gcase c;
    reverse_rows(&c, 1, 8); /* 32-byte FLOAT32 rows, broadcast length */
    dmlops_operator *op = NULL;
    dmlops_command_list *list = NULL;
    REQUIRE_OK(dmlops_operator_create(ctx, &c.desc, &op));
    REQUIRE_OK(dmlops_command_list_create(ctx, &list));
    float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, z[8] = {0}, got[8];
    uint32_t len[4] = {8};
    dmlops_buffer *in = dmt_buffer(ctx, 32, x), *lb = dmt_buffer(ctx, 16, len), *o = dmt_buffer(ctx, 32 * 202, NULL);
    dmlops_buffer *zeros = dmt_buffer(ctx, 32, z);
    REQUIRE(in && lb && o && zeros);
    dmlops_binding b[2] = {{in, 0, 32}, {lb, 0, 16}};
    uint32_t ops, barriers;
    for (int i = 199; i >= 0; i--) { /* out of order, so the set must keep itself sorted */
        dmlops_binding ob = {o, (uint64_t)(i ^ 1) * 32, 32};
        REQUIRE_OK(dmlops_command_list_record(list, op, 2, b, 1, &ob));
    }
    CHECK_OK(dmlops_command_list_get_counts(list, &ops, &barriers));
    CHECK(ops == 200 && barriers == 0, "%u ops, %u barriers", ops, barriers);
    CHECK_OK(dmlops_command_list_record_copy(list, in, 0, zeros, 0, 32)); /* overwrites the shared input: WAR */
    CHECK_OK(dmlops_command_list_get_counts(list, &ops, &barriers));
    CHECK(barriers == 1, "write of an input being read: %u barriers", barriers);
    dmlops_binding from96[2] = {{o, 96 * 32, 32}, {lb, 0, 16}}, to200 = {o, 200 * 32, 32};
    CHECK_OK(dmlops_command_list_record(list, op, 2, from96, 1, &to200)); /* only bytes from before the barrier */
    CHECK_OK(dmlops_command_list_get_counts(list, &ops, &barriers));
    CHECK(barriers == 1, "nothing pending was touched: %u barriers", barriers);
    dmlops_binding from200[2] = {{o, 200 * 32, 32}, {lb, 0, 16}}, to201 = {o, 201 * 32, 32};
    CHECK_OK(dmlops_command_list_record(list, op, 2, from200, 1, &to201)); /* reads what the last one wrote: RAW */
    CHECK_OK(dmlops_command_list_get_counts(list, &ops, &barriers));
    CHECK(ops == 203 && barriers == 2, "read of a pending write: %u ops, %u barriers", ops, barriers);
    REQUIRE_OK(dmlops_command_list_execute(list));
    CHECK_OK(dmlops_buffer_read(o, 0, got, 32));
    CHECK(got[0] == 8 && got[7] == 1, "slice 0 read the input before it was zeroed: %g .. %g", got[0], got[7]);
    CHECK_OK(dmlops_buffer_read(o, 201 * 32, got, 32));
    CHECK(got[0] == 8 && got[7] == 1, "slice 201 = reverse(reverse(reverse x)): %g .. %g", got[0], got[7]);
    /* A read inside a larger pending read must not shrink what is remembered: a write to
     * the part only the larger one read still needs its barrier. */
    gcase wide;
    reverse_rows(&wide, 1, 16);
    dmlops_operator *wide_op = NULL;
    REQUIRE_OK(dmlops_operator_create(ctx, &wide.desc, &wide_op));
    dmlops_buffer *big = dmt_buffer(ctx, 64, NULL);
    REQUIRE(big);
    CHECK_OK(dmlops_command_list_reset(list));
    dmlops_binding wb[2] = {{big, 0, 64}, {lb, 0, 16}}, nb[2] = {{big, 0, 32}, {lb, 0, 16}};
    dmlops_binding wo = {o, 0, 64}, no = {o, 64, 32};
    CHECK_OK(dmlops_command_list_record(list, wide_op, 2, wb, 1, &wo)); /* reads big[0, 64) */
    CHECK_OK(dmlops_command_list_record(list, op, 2, nb, 1, &no));      /* reads big[0, 32) */
    CHECK_OK(dmlops_command_list_record_copy(list, big, 48, zeros, 0, 16)); /* writes big[48, 64): WAR */
    CHECK_OK(dmlops_command_list_get_counts(list, &ops, &barriers));
    CHECK(ops == 3 && barriers == 1, "write into the wider read: %u ops, %u barriers", ops, barriers);
    dmlops_buffer_destroy(big);
    dmlops_operator_destroy(wide_op);
    dmlops_command_list_destroy(list);
    dmlops_buffer_destroy(in);
    dmlops_buffer_destroy(lb);
    dmlops_buffer_destroy(o);
    dmlops_buffer_destroy(zeros);
    dmlops_operator_destroy(op);
}

/* An operator's binding table reused across executions must forget the previous
 * bindings: here the first execution runs copy regions between single-allocation buffers,
 * the second between buffers split into allocations. The first output must stay as it was
 * (found by review: the old regions were replayed into it), also once freed. */
TEST(rebinding_forgets_the_previous_copy_regions)
{
    dmlops_context *vk = vkt_context_alloc(DMLOPS_CONTEXT_FLAG_PREFER_COPY, 0, 0, 256);
    if (!vk) return;
    gcase c;
    slice_rows(&c, DML_TENSOR_DATA_TYPE_FLOAT32, 4, 16, 15); /* 256-byte input, 60-byte runs */
    dmlops_operator *op = NULL;
    REQUIRE_OK(dmlops_operator_create(vk, &c.desc, &op));
    uint8_t a[256], z[512], before[256], after[256], d[240];
    for (int i = 0; i < 512; i++) z[i] = (uint8_t)(i * 7 + 3);
    for (int i = 0; i < 256; i++) a[i] = (uint8_t)i;
    dmlops_buffer *A = dmt_buffer(vk, 256, a), *B = dmt_buffer(vk, 256, NULL);
    dmlops_buffer *C = dmt_buffer(vk, 512, z), *D = dmt_buffer(vk, 256, NULL);
    REQUIRE(A && B && C && D);
    dmlops_binding in = {A, 0, 256}, out = {B, 0, 240}, in2 = {C, 256, 256}, out2 = {D, 0, 240};
    CHECK_OK(dmlops_operator_execute(op, 1, &in, 1, &out));
    CHECK_OK(dmlops_buffer_write(A, 0, z, 256)); /* a replay of the old regions would now show */
    CHECK_OK(dmlops_buffer_read(B, 0, before, 256));
    CHECK_OK(dmlops_operator_execute(op, 1, &in2, 1, &out2));
    CHECK_OK(dmlops_buffer_read(B, 0, after, 256));
    CHECK(!memcmp(before, after, 256), "the first execution's output changed during the second");
    CHECK_OK(dmlops_buffer_read(D, 0, d, 240));
    bool ok = true;
    for (int r = 0; r < 4 && ok; r++)
        ok = CHECK(!memcmp(d + r * 60, z + 256 + r * 64 + 4, 60), "second output row %d", r);
    dmlops_buffer_destroy(A);
    dmlops_buffer_destroy(B);
    CHECK_OK(dmlops_operator_execute(op, 1, &in2, 1, &out2)); /* would name the freed buffers */
    dmlops_buffer_destroy(C);
    dmlops_buffer_destroy(D);
    dmlops_operator_destroy(op);
    vkt_done(vk);
}

/* AUTO takes a hardware Vulkan device when there is one and otherwise the CPU backend,
 * never a software (CPU-type) Vulkan device; the note says why. */
TEST(auto_prefers_hardware_vulkan_else_cpu)
{
    uint32_t n = 0;
    bool hardware = false, software = false;
    dmlops_device_info *all = NULL;
    if (dmlops_enumerate_devices(NULL, &n) == DMLOPS_SUCCESS && n) {
        all = calloc(n, sizeof *all);
        REQUIRE(all);
        REQUIRE_OK(dmlops_enumerate_devices(all, &n));
        for (uint32_t i = 0; i < n; i++) {
            hardware |= all[i].type != DMLOPS_DEVICE_TYPE_CPU;
            software |= all[i].type == DMLOPS_DEVICE_TYPE_CPU;
        }
    }
    dmlops_context *ctx = NULL;
    dmlops_context_info info;
    REQUIRE_OK(dmlops_context_create(NULL, &ctx));
    CHECK_OK(dmlops_context_get_info(ctx, &info));
    if (hardware) {
        CHECK(info.backend == DMLOPS_BACKEND_VULKAN && info.device.type != DMLOPS_DEVICE_TYPE_CPU,
              "AUTO chose backend %d, device type %d", info.backend, info.device.type);
        CHECK(strstr(info.note, "AUTO takes a hardware Vulkan device") != NULL, "note: \"%s\"", info.note);
    } else {
        CHECK(info.backend == DMLOPS_BACKEND_CPU, "AUTO chose backend %d on a machine without a GPU", info.backend);
        CHECK(strstr(info.note, "AUTO found no hardware Vulkan device") != NULL, "note: \"%s\"", info.note);
        CHECK(info.cpu_threads >= 1, "cpu_threads %u", info.cpu_threads);
    }
    dmlops_context_destroy(ctx);
    if (software && !hardware) {
        /* The software device still runs when asked for. */
        dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN};
        if (CHECK_OK(dmlops_context_create(&d, &ctx))) {
            CHECK_OK(dmlops_context_get_info(ctx, &info));
            CHECK(info.backend == DMLOPS_BACKEND_VULKAN && info.device.type == DMLOPS_DEVICE_TYPE_CPU);
            CHECK(strstr(info.note, "asked for") != NULL, "note: \"%s\"", info.note);
            dmlops_context_destroy(ctx);
        }
    }
    free(all);
}

static bool machine_has_hardware_vulkan(void)
{
    dmlops_device_info all[16];
    uint32_t n = 16;
    if (dmlops_enumerate_devices(all, &n) != DMLOPS_SUCCESS) return false;
    for (uint32_t i = 0; i < n && i < 16; i++)
        if (all[i].type != DMLOPS_DEVICE_TYPE_CPU) return true;
    return false;
}

/* A context that AUTO puts on the CPU is a success: the failed Vulkan probe must not
 * replace the thread's last error message (api.md: valid until the next failure). */
TEST(auto_fallback_keeps_the_last_error_message)
{
    if (machine_has_hardware_vulkan()) return; /* AUTO takes the GPU: no probe fails */
    DML_OPERATOR_DESC bad = {DML_OPERATOR_SLICE1, NULL};
    CHECK_STATUS(dmlops_validate_operator(&bad, 0), DMLOPS_ERROR_INVALID_ARGUMENT, "Desc is NULL");
    char before[1024];
    snprintf(before, sizeof before, "%s", dmlops_last_error_message());
    dmlops_context *ctx = NULL;
    REQUIRE_OK(dmlops_context_create(NULL, &ctx));
    CHECK(!strcmp(dmlops_last_error_message(), before), "after a successful create: \"%s\", before: \"%s\"",
          dmlops_last_error_message(), before);
    dmlops_context_destroy(ctx);
}

/* desc.device = "" names no device, as an empty DMLOPS_DEVICE names none: AUTO still
 * never takes a software device for it. */
TEST(empty_device_name_is_no_name)
{
    if (machine_has_hardware_vulkan()) return;
    dmlops_context_desc d = {.device = ""};
    dmlops_context *ctx = NULL;
    dmlops_context_info info;
    REQUIRE_OK(dmlops_context_create(&d, &ctx));
    CHECK_OK(dmlops_context_get_info(ctx, &info));
    CHECK(info.backend == DMLOPS_BACKEND_CPU, "AUTO with device \"\" chose backend %d: %s", info.backend, info.note);
    dmlops_context_destroy(ctx);
}

/* AUTO runs on the CPU when there is no hardware device to use, not when the probe
 * runs out of memory: that is the caller's to see. */
TEST(auto_reports_running_out_of_memory)
{
    dmlops_context *ctx = NULL;
    setenv("DMLOPS_FAULT_INJECT", "host:2", 1);
    dmlops_status st = dmlops_context_create(NULL, &ctx);
    unsetenv("DMLOPS_FAULT_INJECT");
    CHECK(st == DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "AUTO with its second allocation failing: %s (%s)",
          dmlops_status_string(st), dmlops_last_error_message());
    dmlops_context_destroy(ctx);
    dmlops_context_create(NULL, &ctx); /* disarms the injection for the tests after this one */
    dmlops_context_destroy(ctx);
}

/* DEBUG without the validation layer: VULKAN says so (UNSUPPORTED); AUTO on a machine
 * without a GPU still takes the CPU backend, where DEBUG does nothing, and its note gives
 * the real reason (no hardware device), not the missing layer. */
TEST(auto_debug_without_the_layer)
{
    if (machine_has_hardware_vulkan()) return; /* there AUTO must report the layer: not testable here */
    const char *old = getenv("VK_LAYER_PATH");
    char *saved = old ? strdup(old) : NULL;
    setenv("VK_LAYER_PATH", "/nonexistent", 1); /* the loader then finds no explicit layer */
    dmlops_context *ctx = NULL;
    dmlops_context_desc vk = {.backend = DMLOPS_BACKEND_VULKAN, .flags = DMLOPS_CONTEXT_FLAG_DEBUG};
    dmlops_status st = dmlops_context_create(&vk, &ctx);
    dmlops_context_destroy(ctx);
    ctx = NULL;
    dmlops_context_desc any = {.flags = DMLOPS_CONTEXT_FLAG_DEBUG};
    dmlops_status st_auto = dmlops_context_create(&any, &ctx);
    if (saved) setenv("VK_LAYER_PATH", saved, 1);
    else unsetenv("VK_LAYER_PATH");
    free(saved);
    if (st == DMLOPS_ERROR_NO_DEVICE) {
        dmlops_context_destroy(ctx);
        return;
    }
    CHECK(st == DMLOPS_ERROR_UNSUPPORTED, "VULKAN + DEBUG without the layer: %s", dmlops_status_string(st));
    if (CHECK(st_auto == DMLOPS_SUCCESS, "AUTO + DEBUG without the layer: %s", dmlops_status_string(st_auto))) {
        dmlops_context_info info;
        CHECK_OK(dmlops_context_get_info(ctx, &info));
        CHECK(info.backend == DMLOPS_BACKEND_CPU);
        CHECK(strstr(info.note, "AUTO found no hardware Vulkan device") && !strstr(info.note, "validation layer"),
              "note: %s", info.note);
    }
    dmlops_context_destroy(ctx);
}

/* Every tuning variable set is named in the note, however many: the explanation of the
 * device choice is what gets cut when the 512 bytes run out. */
TEST(note_names_every_tuning_variable)
{
    static const char *const vars[] = {"DMLOPS_VK_TEXEL", "DMLOPS_VK_TUNING", "DMLOPS_VK_LANES", "DMLOPS_VK_RUN",
                                       "DMLOPS_VK_GRID", "DMLOPS_VK_WORKGROUP", "DMLOPS_VK_COPY_MIN"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) setenv(vars[i], "not-a-value!", 1);
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN};
    dmlops_context *ctx = NULL;
    dmlops_status st = dmlops_context_create(&d, &ctx);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
    if (st == DMLOPS_ERROR_NO_DEVICE) return;
    REQUIRE_OK(st);
    dmlops_context_info info;
    CHECK_OK(dmlops_context_get_info(ctx, &info));
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        CHECK(strstr(info.note, vars[i]) != NULL, "%s missing from the note: %s", vars[i], info.note);
    dmlops_context_destroy(ctx);
}

/* A buffer larger than the memory heaps and the machine's memory together fails at once
 * with OUT_OF_DEVICE_MEMORY, on lavapipe too (which would otherwise zero host memory
 * until the OOM killer struck). */
TEST_CTX(buffer_beyond_the_heaps_is_out_of_device_memory)
{
    if (!dmt_is_vulkan()) return;
    static const uint64_t sizes[] = {1ull << 44, 1ull << 50};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        dmlops_buffer *b = NULL;
        CHECK_STATUS(dmlops_buffer_create(ctx, sizes[i], &b), DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY, "memory heaps");
        CHECK(b == NULL);
        dmlops_buffer_destroy(b);
    }
}

/* Issue 10, defect 4: a tensor no device can hold is refused at creation with one
 * operator prefix, not "SLICE1: SLICE1: ...". */
TEST_CTX(beyond_any_device_message_has_one_prefix)
{
    if (!dmt_is_vulkan()) return;
    static const uint32_t in_sizes[1] = {4}, out_sizes[1] = {4}, off[1] = {0}, win[1] = {4};
    static const int32_t str[1] = {1};
    dmt_tensor in, out;
    dmt_tensor_init(&in, DML_TENSOR_DATA_TYPE_FLOAT32, 1, in_sizes, NULL, 18446744073709551612ull);
    dmt_tensor_init(&out, DML_TENSOR_DATA_TYPE_FLOAT32, 1, out_sizes, NULL, 0);
    DML_SLICE1_OPERATOR_DESC d = {&in.desc, &out.desc, 1, off, win, str};
    DML_OPERATOR_DESC od = {DML_OPERATOR_SLICE1, &d};
    dmlops_operator *op = NULL;
    CHECK_STATUS(dmlops_operator_create(ctx, &od, &op), DMLOPS_ERROR_UNSUPPORTED,
                 "SLICE1: InputTensor.TotalTensorSizeInBytes = 18446744073709551612 is beyond any device");
    CHECK(strncmp(dmlops_last_error_message(), "SLICE1: SLICE1", 14) != 0, "message: %s", dmlops_last_error_message());
    dmlops_operator_destroy(op);
}

/* ---- the compute copy (dmlops_command_list_record_compute_copy) ---- */

/* Copies random 16-byte-aligned ranges with the copy shader (of `shape`, NULL: the plain
 * copy) and checks every byte of the destination buffer: the range is the source's,
 * everything else keeps its guard pattern. */
static void compute_copies(dmlops_context *vk, uint64_t seed, int rounds, const dmlops_compute_copy_shape *shape)
{
    enum { N = 4096 };
    dmt_rng r = {seed};
    uint8_t *src = malloc(N), *guard = malloc(N), *got = malloc(N);
    REQUIRE(src && guard && got);
    vkt_fill(&r, src, N);
    for (int i = 0; i < N; i++) guard[i] = (uint8_t)(0xa5 ^ i);
    dmlops_buffer *bs = dmt_buffer(vk, N, src), *bd = dmt_buffer(vk, N, NULL);
    dmlops_command_list *list = NULL;
    REQUIRE(bs && bd);
    REQUIRE_OK(dmlops_command_list_create(vk, &list));
    for (int i = 0; i < rounds; i++) {
        uint64_t size = 16 * (1 + (uint64_t)dmt_below(&r, N / 16 - 1));
        uint64_t so = 16 * (uint64_t)dmt_below(&r, (uint32_t)((N - size) / 16 + 1));
        uint64_t dof = 16 * (uint64_t)dmt_below(&r, (uint32_t)((N - size) / 16 + 1));
        /* CHECK, not REQUIRE: a failure still frees the objects below, so the validation
         * layer reports the failure only, not leaks at device destruction. */
        if (!CHECK_OK(dmlops_buffer_write(bd, 0, guard, N)) || !CHECK_OK(dmlops_command_list_reset(list)) ||
            !CHECK_OK(shape ? dmlops_command_list_record_compute_copy_shaped(list, bd, dof, bs, so, size, shape)
                            : dmlops_command_list_record_compute_copy(list, bd, dof, bs, so, size)) ||
            !CHECK_OK(dmlops_command_list_execute(list)) || !CHECK_OK(dmlops_buffer_read(bd, 0, got, N)))
            break;
        bool inside = !memcmp(got + dof, src + so, size);
        bool outside = !memcmp(got, guard, dof) && !memcmp(got + dof + size, guard + dof + size, N - dof - size);
        if (!CHECK(inside && outside, "copy of %llu bytes from %llu to %llu (shape %u x %u x %u): %s",
                   (unsigned long long)size, (unsigned long long)so, (unsigned long long)dof,
                   shape ? shape->vectors : 0, shape ? shape->workgroup_size : 0, shape ? shape->workgroup_count : 0,
                   inside ? "a guard byte changed" : "wrong bytes"))
            break;
    }
    dmlops_command_list_destroy(list);
    dmlops_buffer_destroy(bs);
    dmlops_buffer_destroy(bd);
    free(src);
    free(guard);
    free(got);
}

TEST(compute_copy_is_exact_and_writes_only_its_range)
{
    /* Whole windows; 96-byte windows (many dispatches); one workgroup per dispatch (the
     * kernel's grid-stride loop); buffers in 256-byte allocations (windows cut at them). */
    static const struct {
        uint64_t max_range;
        uint32_t max_groups;
        uint64_t max_alloc;
    } setups[] = {{0, 0, 0}, {96, 0, 0}, {0, 1, 0}, {0, 0, 256}, {200, 2, 512}};
    for (size_t i = 0; i < sizeof setups / sizeof setups[0]; i++) {
        dmlops_context *vk = vkt_context_alloc(0, setups[i].max_range, setups[i].max_groups, setups[i].max_alloc);
        if (!vk) return;
        compute_copies(vk, 0x5151 + i, 40, NULL);
        vkt_done(vk);
    }
}

/* Every shape the benchmark sweeps, and the edges: loads of 1 to 8 vectors before their
 * stores, workgroups of 1 to 1024, a grid covering the range in one step (0), in several
 * (1, 3: whole steps and a partial last step, where lanes past the range must not store)
 * or larger than the range; and windows of 96 bytes or one workgroup per dispatch. */
TEST(compute_copy_shapes_are_exact_and_write_only_their_range)
{
    static const uint32_t vectors[] = {0, 2, 4, 8}, workgroups[] = {1, 32, 1024}, counts[] = {0, 1, 3, 200};
    static const struct {
        uint64_t max_range;
        uint32_t max_groups;
    } setups[] = {{0, 0}, {96, 0}, {0, 1}};
    for (size_t i = 0; i < sizeof setups / sizeof setups[0]; i++) {
        dmlops_context *vk = vkt_context_alloc(0, setups[i].max_range, setups[i].max_groups, 0);
        if (!vk) return;
        dmlops_context_info info;
        REQUIRE_OK(dmlops_context_get_info(vk, &info));
        for (size_t v = 0; v < sizeof vectors / sizeof *vectors; v++)
            for (size_t w = 0; w < sizeof workgroups / sizeof *workgroups; w++)
                for (size_t c = (v + w) % 2; c < sizeof counts / sizeof *counts; c += 2) { /* half the grids */
                    const dmlops_compute_copy_shape shape = {vectors[v], workgroups[w], counts[c]};
                    /* Workgroups past the device (a Raspberry Pi 4 has 256 lanes) are refused,
                     * naming the limit; compute_copy_checks_its_arguments checks the status. */
                    if (workgroups[w] <= info.device.max_compute_work_group_invocations)
                        compute_copies(vk, 0x5252 + i * 1000 + v * 100 + w * 10 + c, i ? 2 : 4, &shape);
                }
        vkt_done(vk);
    }
}

TEST_CTX(compute_copy_checks_its_arguments)
{
    dmlops_buffer *a = dmt_buffer(ctx, 256, NULL), *b = dmt_buffer(ctx, 256, NULL);
    dmlops_command_list *list = NULL;
    REQUIRE(a && b);
    REQUIRE_OK(dmlops_command_list_create(ctx, &list));
    const dmlops_status INVALID = DMLOPS_ERROR_INVALID_ARGUMENT;
    CHECK_STATUS(dmlops_command_list_record_compute_copy(NULL, a, 0, b, 0, 16), INVALID, "list");
    CHECK_STATUS(dmlops_command_list_record_compute_copy(list, NULL, 0, b, 0, 16), INVALID, "dst");
    CHECK_STATUS(dmlops_command_list_record_compute_copy(list, a, 0, NULL, 0, 16), INVALID, "src");
    CHECK_STATUS(dmlops_command_list_record_compute_copy(list, a, 8, b, 0, 16), INVALID, "multiples of 16");
    CHECK_STATUS(dmlops_command_list_record_compute_copy(list, a, 0, b, 4, 16), INVALID, "multiples of 16");
    CHECK_STATUS(dmlops_command_list_record_compute_copy(list, a, 0, b, 0, 24), INVALID, "multiples of 16");
    CHECK_STATUS(dmlops_command_list_record_compute_copy(list, a, 0, b, 0, 0), INVALID, "size = 0");
    CHECK_STATUS(dmlops_command_list_record_compute_copy(list, a, 128, b, 0, 144), INVALID, "exceeds");
    CHECK_STATUS(dmlops_command_list_record_compute_copy(list, a, 0, b, UINT64_MAX - 15, 16), INVALID, "exceeds");
    CHECK_STATUS(dmlops_command_list_record_compute_copy(list, a, 0, a, 64, 128), INVALID, "overlap");
    /* Shapes: the fields' own values are checked on any backend, before the backend. */
    static const dmlops_compute_copy_shape bad[] = {{3, 0, 0}, {16, 0, 0}, {0, 48, 0}, {0, 2048, 0}, {0, 0, 65536}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK_STATUS(dmlops_command_list_record_compute_copy_shaped(list, a, 0, b, 0, 16, &bad[i]), INVALID,
                     "shape.");
    CHECK_STATUS(dmlops_command_list_record_compute_copy_shaped(list, a, 0, b, 8, 16, &bad[0]), INVALID,
                 "multiples of 16");
    CHECK_STATUS(dmlops_command_list_record_compute_copy_shaped(NULL, a, 0, b, 0, 16, NULL), INVALID, "list");
    CHECK_STATUS(dmlops_command_list_record_compute_copy_shaped(list, a, 0, NULL, 0, 16, NULL), INVALID, "src");
    const dmlops_compute_copy_shape four = {4, 128, 7}; /* 128 lanes: every device has them */
    if (dmt_is_vulkan()) {
        CHECK_OK(dmlops_command_list_record_compute_copy(list, a, 0, b, 0, 256));
        CHECK_OK(dmlops_command_list_record_compute_copy_shaped(list, a, 0, b, 0, 256, &four));
        dmlops_context_info info;
        CHECK_OK(dmlops_context_get_info(ctx, &info));
        if (info.device.max_compute_work_group_invocations < 1024) { /* beyond the device, where it can be */
            const dmlops_compute_copy_shape big = {1, 1024, 0};
            CHECK_STATUS(dmlops_command_list_record_compute_copy_shaped(list, a, 0, b, 0, 16, &big),
                         DMLOPS_ERROR_UNSUPPORTED, "maxComputeWorkGroupInvocations");
        }
    } else {
        CHECK_STATUS(dmlops_command_list_record_compute_copy(list, a, 0, b, 0, 256), DMLOPS_ERROR_UNSUPPORTED,
                     "CPU backend runs no compute shaders");
        CHECK_STATUS(dmlops_command_list_record_compute_copy_shaped(list, a, 0, b, 0, 256, &four),
                     DMLOPS_ERROR_UNSUPPORTED, "CPU backend runs no compute shaders");
    }
    uint32_t ops = 99;
    CHECK_OK(dmlops_command_list_get_counts(list, &ops, NULL));
    CHECK(ops == (dmt_is_vulkan() ? 2u : 0u), "%u operations recorded", ops);
    CHECK_OK(dmlops_command_list_execute(list));
    dmlops_command_list_destroy(list);
    dmlops_buffer_destroy(a);
    dmlops_buffer_destroy(b);
}

/* ---- the kernels' fast paths ---- */

/* Lengths or indices from 0 to n + 2 (some past the axis), as UINT32. */
static void fast_aux(uint8_t *const *data, const uint64_t *sizes, dmt_rng *r, const void *user)
{
    const uint32_t *p = user; /* {binding, n} */
    uint32_t *a = (uint32_t *)(void *)data[p[0]];
    for (uint64_t i = 0; i < (sizes[p[0]] + 48) / 4; i++) a[i] = dmt_below(r, p[1] + 3);
}

/* One case of each fast path (rows read forwards, backwards, as a sequence turning at its
 * length, gathered with a step; ONE_HOT along the last axis, as one stream of chunks when
 * a row fills one, and across it) with rows of `cols` elements. */
static void fast_cases(dmlops_context *vk, DML_TENSOR_DATA_TYPE dt, uint32_t cols, uint64_t seed)
{
    dmlops_operator_info info;
    const uint32_t rows = 3;
    for (uint32_t axis = 0; axis < 2; axis++) { /* REVERSE along the rows, then across them */
        dmt_reverse rv;
        uint32_t sz[2] = {axis ? rows : cols, axis ? cols : rows}, broadcast[2] = {0, 0};
        /* Across the rows, one length for all (strides 0) keeps it constant along a row. */
        dmt_reverse_init(&rv, dt, 2, sz, axis, DML_TENSOR_DATA_TYPE_UINT32, axis ? NULL : broadcast);
        uint64_t sizes[3] = {rv.in.buf.TotalTensorSizeInBytes, rv.len.buf.TotalTensorSizeInBytes,
                             rv.out.buf.TotalTensorSizeInBytes};
        const uint32_t user[2] = {1, sz[axis]};
        if (!vkt_same_as_cpu(vk, &rv.desc, 2, sizes, seed + axis, &info, fast_aux, user)) return;
    }
    static const int32_t steps[] = {-1, 1, 2, -2, 3}; /* streams, then gathers */
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) { /* SLICE1 with unaligned windows */
        const uint32_t span = cols * (uint32_t)abs(steps[i]);
        dmt_slice sl;
        uint32_t in[2] = {rows + 1, span + 5}, off[2] = {1, 3}, win[2] = {rows, span}, out[2] = {rows, cols};
        dmt_slice_init(&sl, dt, 2, in, off, win);
        sl.step[1] = steps[i];
        dmt_tensor_init(&sl.out, dt, 2, out, NULL, 0);
        uint64_t sizes[2] = {sl.in.buf.TotalTensorSizeInBytes, sl.out.buf.TotalTensorSizeInBytes};
        if (!vkt_same_as_cpu(vk, &sl.desc, 1, sizes, seed + 7 + i, &info, NULL, NULL)) return;
    }
    for (uint32_t across = 0; across < 2; across++) { /* ONE_HOT: [rows, cols] axis 1; [rows, 4, cols] axis 1 */
        dmt_tensor idx, val, out;
        const uint32_t rank = across ? 3 : 2;
        uint32_t isz[3] = {rows, 1, cols}, istr[3] = {1, 1, 0}, vsz[3] = {1, 1, 2};
        uint32_t osz[3] = {rows, across ? 4 : cols, cols};
        dmt_tensor_init(&idx, DML_TENSOR_DATA_TYPE_UINT32, rank, isz, across ? istr : NULL, 0);
        dmt_tensor_init(&val, dt, rank, vsz + 3 - rank, NULL, 0);
        dmt_tensor_init(&out, dt, rank, osz, NULL, 0);
        DML_ONE_HOT_OPERATOR_DESC hd = {&idx.desc, &val.desc, &out.desc, 1};
        DML_OPERATOR_DESC desc = {DML_OPERATOR_ONE_HOT, &hd};
        uint64_t sizes[3] = {idx.buf.TotalTensorSizeInBytes, val.buf.TotalTensorSizeInBytes, out.buf.TotalTensorSizeInBytes};
        const uint32_t user[2] = {0, osz[1]};
        if (!vkt_same_as_cpu(vk, &desc, 2, sizes, seed + 11 + across, &info, fast_aux, user)) return;
    }
}

TEST(fast_paths_match_cpu_across_pieces)
{
    /* Whole rows; windows of 200 bytes (rows cut along the axis, sequences across pieces,
     * source windows cut); one workgroup; 256-byte allocations; 200-byte windows again
     * with the other device class's tuning (DMLOPS_VK_TUNING), whose runs are one chunk
     * long on CPU devices: a piece that starts inside a row starts its rows at another
     * phase of 16 bytes than 0, and a run count that missed that would drop a chunk.
     * Then grids and workgroups from the environment: 3 groups of 64, and one invocation
     * alone (lanes fall to 1) with the other class's runs. */
    static const struct {
        uint64_t max_range;
        uint32_t max_groups;
        uint64_t max_alloc;
        bool other_tuning;
        const char *grid, *workgroup; /* DMLOPS_VK_GRID, DMLOPS_VK_WORKGROUP */
    } setups[] = {{0, 0, 0, false, NULL, NULL},   {200, 0, 0, false, NULL, NULL}, {0, 1, 0, false, NULL, NULL},
                  {0, 0, 256, false, NULL, NULL}, {200, 0, 0, true, NULL, NULL},  {0, 0, 0, false, "3", "64"},
                  {0, 0, 0, true, "1", "1"}};
    dmlops_context *probe = vkt_context(0, 0, 0);
    dmlops_context_info here;
    if (!probe || !CHECK_OK(dmlops_context_get_info(probe, &here))) {
        vkt_done(probe);
        return;
    }
    const char *other = here.device.type == DMLOPS_DEVICE_TYPE_CPU ? "gpu" : "cpu";
    vkt_done(probe);
    static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16,
                                                 DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT64};
    static const uint32_t cols[] = {1, 7, 37, 48, 100, 301};
    for (size_t s = 0; s < sizeof setups / sizeof setups[0]; s++) {
        dmt_env tuning, grid, workgroup;
        dmt_env_set(&tuning, "DMLOPS_VK_TUNING", setups[s].other_tuning ? other : NULL);
        dmt_env_set(&grid, "DMLOPS_VK_GRID", setups[s].grid);
        dmt_env_set(&workgroup, "DMLOPS_VK_WORKGROUP", setups[s].workgroup);
        dmlops_context *vk = vkt_context_alloc(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, setups[s].max_range,
                                               setups[s].max_groups, setups[s].max_alloc);
        dmt_env_restore(&workgroup);
        dmt_env_restore(&grid);
        dmt_env_restore(&tuning);
        if (!vk) return;
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
                fast_cases(vk, types[t], cols[c], 1000 * s + 100 * t + c);
        vkt_done(vk);
    }
}
