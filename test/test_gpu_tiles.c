/* The GPU tiles (glsl/gather_tiles.glsl: V_TILES, V_TILE_COLUMNS, V_TILE_HOT)
 * against the CPU backend, byte for byte over the whole output buffer, on a Vulkan context
 * with DMLOPS_VK_TUNING=gpu (lavapipe runs the GPU's plan and kernel variants then), each
 * family again with one workgroup a dispatch (DMLOPS_VK_GRID=1: a workgroup then stages
 * tile after tile over the same shared memory), for the
 * layouts the tiles take and their edges: rows of every length around the chunk, the
 * tile and the segment (many rows a tile, a row a tile, several tiles a row), rows whose
 * source or output does not start on a vector, SLICE1 steps up to what the tiles stage
 * and beyond, REVERSE lengths of 0, 1, the axis and past it, negative and 64-bit ones,
 * ONE_HOT depths from 1 to past a tile with negative and out-of-range indices, every
 * element size. Cases come from fixed seeds, printed; a failing one names its seed. Each
 * run also counts the cases that ran its tile (dmlops_operator_kernel_info's variant) and
 * fails when an element size has too few. */
#include <stdlib.h>

#include "vkt.h"

static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_UINT8,  DML_TENSOR_DATA_TYPE_INT16,
                                             DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT64,
                                             DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT64};
static const DML_TENSOR_DATA_TYPE aux_types[] = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT32,
                                                 DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64};

static dmlops_context *gpu_context(void) { return vkt_gpu_context(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY); }

/* The GPU's plan on one workgroup a dispatch (DMLOPS_VK_GRID=1): each workgroup walks
 * every tile of its dispatch, one after another. */
static dmlops_context *one_workgroup_context(void)
{
    dmt_env grid;
    dmt_env_set(&grid, "DMLOPS_VK_GRID", "1");
    dmlops_context *vk = gpu_context();
    dmt_env_restore(&grid);
    return vk;
}

/* A length or index of `type` at element i of the AUX binding: from [lo, hi] mostly, and
 * now and then a value far outside it (negative, past 2^32). */
static void put_aux(uint8_t *p, DML_TENSOR_DATA_TYPE type, uint64_t i, int64_t lo, int64_t hi, dmt_rng *r)
{
    int64_t v = lo + (int64_t)dmt_below(r, (uint32_t)(hi - lo + 1));
    const uint32_t pick = dmt_below(r, 40);
    if (pick == 0) v = -5;
    if (pick == 1) v = (int64_t)1 << 33;
    if (pick == 2) v = INT64_MIN;
    const bool wide = type == DML_TENSOR_DATA_TYPE_UINT64 || type == DML_TENSOR_DATA_TYPE_INT64;
    if (wide) memcpy(p + i * 8, &v, 8);
    else {
        const uint32_t w = (uint32_t)v;
        memcpy(p + i * 4, &w, 4);
    }
}

typedef struct aux_fill {
    uint32_t slot, count; /* binding and elements of the AUX data */
    DML_TENSOR_DATA_TYPE type;
    int64_t lo, hi;
    uint32_t value_size; /* ONE_HOT: the values' element size */
} aux_fill;

static void fix_aux(uint8_t *const *data, const uint64_t *sizes, dmt_rng *r, const void *user)
{
    const aux_fill *f = user;
    (void)sizes;
    for (uint32_t i = 0; i < f->count; i++) put_aux(data[f->slot] + 16, f->type, i, f->lo, f->hi, r);
}

/* ONE_HOT's values: a distinct OffValue and OnValue. */
static void fix_hot(uint8_t *const *data, const uint64_t *sizes, dmt_rng *r, const void *user)
{
    const aux_fill *f = user;
    fix_aux(data, sizes, r, user);
    memset(data[1] + 16, 0x11, f->value_size);
    memset(data[1] + 16 + f->value_size, 0x5a, f->value_size);
}

/* A 2-D tensor [rows, cols] of `type` with a row stride of cols + pad elements. */
static void tensor2(dmt_tensor *t, DML_TENSOR_DATA_TYPE type, uint32_t rows, uint32_t cols, uint32_t pad)
{
    const uint32_t sizes[2] = {rows, cols}, strides[2] = {cols + pad, 1};
    dmt_tensor_init(t, type, 2, sizes, pad ? strides : NULL, 0);
}

/* Which cases ran a GPU tile: a tile that never runs catches nothing, and a layout the
 * planner stops taking a tile for would leave the tests passing on another path. */
typedef struct tally {
    const char *want;   /* the tile variant (dmlops_operator_kernel_info.variant) */
    uint32_t cases;     /* cases run */
    uint32_t tiled[9];  /* of them on `want`, by element size */
    uint32_t aligned;   /* of them on tile_rows, the aligned rows' module (no shared memory; a
                           REVERSE whose lengths make it a slice may take it too) */
} tally;

/* Counts d's variant on vk into t. */
static void count_variant(dmlops_context *vk, const DML_OPERATOR_DESC *d, uint32_t esize, tally *t)
{
    dmlops_operator *op = NULL;
    t->cases++;
    if (!CHECK_OK(dmlops_operator_create(vk, d, &op))) return;
    dmlops_operator_kernel_info k = {.s_type = DMLOPS_STRUCTURE_TYPE_OPERATOR_KERNEL_INFO};
    dmlops_operator_info2 i2 = {.s_type = DMLOPS_STRUCTURE_TYPE_OPERATOR_INFO2, .next = &k};
    if (CHECK_OK(dmlops_operator_get_info2(op, &i2))) {
        if (!strcmp(k.variant, t->want)) t->tiled[esize]++;
        if (!strcmp(k.variant, "tile_rows")) t->aligned++;
    }
    dmlops_operator_destroy(op);
}

/* Prints t and checks that `want` ran in at least `least` cases of each element size. */
static void check_variant(const tally *t, uint32_t least)
{
    printf("    %s in %u, %u, %u and %u of %u cases (1-, 2-, 4- and 8-byte elements)", t->want, t->tiled[1], t->tiled[2],
           t->tiled[4], t->tiled[8], t->cases);
    if (t->aligned) printf(", tile_rows in %u", t->aligned);
    printf("\n");
    for (uint32_t e = 1; e <= 8; e *= 2)
        CHECK(t->tiled[e] >= least, "%s ran in %u cases of %u-byte elements, fewer than %u", t->want, t->tiled[e], e, least);
}

/* Case n of a suite run on every `every`-th case (every > 1: the one-workgroup runs):
 * shifted by one every six cases, so that the cases whose type is types[n % 6] still
 * take every element size. */
static bool picked(int n, int every) { return (n + n / 6) % every == 0; }

/* The cases of each element size that must run the suite's tile, in each run (every
 * case, and every third at one workgroup): below what the seeds gave on 2026-11-28 (one
 * workgroup: SLICE1 1, 5, 1 and 2; REVERSE by rows 4, 10, 5, 14; by columns 6, 9, 6, 12;
 * ONE_HOT 6, 13, 8, 13), so that a planner that stops taking a tile for these layouts
 * fails here rather than leaving the tiles untested. SLICE1's steps past 2 and short rows
 * take other paths (words, flat). */
enum { LEAST_SLICES = 1, LEAST_ROWS = 3, LEAST_COLUMNS = 4, LEAST_HOT = 4 };

static uint32_t pick_len(dmt_rng *r, uint32_t big)
{
    static const uint32_t edges[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129};
    return dmt_below(r, 4) ? edges[dmt_below(r, sizeof edges / sizeof edges[0])] : 1 + dmt_below(r, big);
}

/* SLICE1 of [R, C] with steps from -5 to 5 (beyond what V_TILES stages they take another
 * path: still checked), the rows in either order, padded rows. */
static void slices_through_shared_memory_match_the_cpu_on(dmlops_context *vk, int every)
{
    const uint64_t seed = 0x71e5001ull;
    printf("    seed 0x%llx\n", (unsigned long long)seed);
    dmt_rng r = {seed};
    tally t = {.want = "tiles"};
    for (int n = 0; n < 120; n++) {
        const DML_TENSOR_DATA_TYPE type = types[dmt_below(&r, 6)];
        const uint32_t R = n < 8 ? 1 + dmt_below(&r, 3) : pick_len(&r, 40), C = pick_len(&r, n % 10 ? 300 : 9000);
        int32_t step = 1 + (int32_t)dmt_below(&r, 5);
        if (dmt_below(&r, 2)) step = -step;
        const uint32_t off = dmt_below(&r, C), w = 1 + dmt_below(&r, C - off), out = (w - 1) / (uint32_t)abs(step) + 1;
        const uint32_t offs[2] = {0, off}, win[2] = {R, w};
        const int32_t steps[2] = {dmt_below(&r, 2) ? -1 : 1, step};
        dmt_tensor in, o;
        tensor2(&in, type, R, C, dmt_below(&r, 3) ? 0 : 1 + dmt_below(&r, 5));
        tensor2(&o, type, R, out, dmt_below(&r, 4) ? 0 : 1 + dmt_below(&r, 3));
        DML_SLICE1_OPERATOR_DESC s = {&in.desc, &o.desc, 2, offs, win, steps};
        DML_OPERATOR_DESC d = {DML_OPERATOR_SLICE1, &s};
        const uint64_t sizes[2] = {in.buf.TotalTensorSizeInBytes, o.buf.TotalTensorSizeInBytes};
        if (!picked(n, every)) continue;
        count_variant(vk, &d, dmlops_data_type_size(type), &t);
        if (!vkt_same_as_cpu(vk, &d, 1, sizes, seed + (uint64_t)n, NULL, NULL, NULL))
            printf("    case %d: %s [%u, %u] offset %u window %u step %d\n", n, dmlops_data_type_name(type), R, C, off, w,
                   step);
    }
    check_variant(&t, LEAST_SLICES);
}

TEST(slices_through_shared_memory_match_the_cpu)
{
    dmlops_context *vk = gpu_context();
    if (!vk) return;
    slices_through_shared_memory_match_the_cpu_on(vk, 1);
    vkt_done(vk);
}

/* A third of the same cases (picked: every element size) with one workgroup a dispatch
 * (DMLOPS_VK_GRID=1), so that a workgroup runs tile after tile: a tile that stages over
 * shared memory its lanes still read (a barrier missing at a tile's end) shows only then
 * (DEVELOPERS.md: each end-of-tile barrier deleted fails one of these). */
TEST(slices_through_shared_memory_match_the_cpu_one_workgroup)
{
    dmlops_context *vk = one_workgroup_context();
    if (!vk) return;
    slices_through_shared_memory_match_the_cpu_on(vk, 3);
    vkt_done(vk);
}

/* REVERSE along rows (axis 1) with a length per row, and across them (axis 0) with one
 * length for every row: V_TILES, whose backward and forward runs meet in one chunk. */
static void reverses_with_a_length_per_row_match_the_cpu_on(dmlops_context *vk, int every)
{
    const uint64_t seed = 0x71e5002ull;
    printf("    seed 0x%llx\n", (unsigned long long)seed);
    dmt_rng r = {seed};
    tally t = {.want = "tiles"};
    for (int n = 0; n < 120; n++) {
        const DML_TENSOR_DATA_TYPE type = types[dmt_below(&r, 6)], lt = aux_types[dmt_below(&r, 4)];
        const uint32_t R = pick_len(&r, 40), C = pick_len(&r, n % 10 ? 300 : 9000), axis = n % 3 == 0 ? 0 : 1;
        dmt_tensor in, len, o;
        tensor2(&in, type, R, C, dmt_below(&r, 3) ? 0 : 1 + dmt_below(&r, 5));
        tensor2(&o, type, R, C, dmt_below(&r, 4) ? 0 : 1 + dmt_below(&r, 3));
        /* axis 1: [R, 1], a length per row; axis 0: [1, 1] broadcast, one length for all. */
        const uint32_t lsz[2] = {axis ? R : 1, 1}, lstr[2] = {1, 1}, bcast[2] = {0, 0};
        const bool broadcast = axis == 0;
        dmt_tensor_init(&len, lt, 2, lsz, broadcast ? NULL : lstr, 0);
        if (axis == 0) { /* [R, C] along axis 0 needs lengths [1, C]: all one length, broadcast */
            const uint32_t s0[2] = {1, C};
            dmt_tensor_init(&len, lt, 2, s0, bcast, 0);
        }
        DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rv = {&in.desc, &len.desc, &o.desc, axis};
        DML_OPERATOR_DESC d = {DML_OPERATOR_REVERSE_SUBSEQUENCES, &rv};
        const uint64_t sizes[3] = {in.buf.TotalTensorSizeInBytes, len.buf.TotalTensorSizeInBytes, o.buf.TotalTensorSizeInBytes};
        const uint32_t axis_len = axis ? C : R;
        const aux_fill f = {1, axis ? R : 1, lt, 0, axis_len + 2, 0};
        if (!picked(n, every)) continue;
        count_variant(vk, &d, dmlops_data_type_size(type), &t);
        if (!vkt_same_as_cpu(vk, &d, 2, sizes, seed + (uint64_t)n, NULL, fix_aux, &f))
            printf("    case %d: %s [%u, %u] axis %u, %s lengths\n", n, dmlops_data_type_name(type), R, C, axis,
                   dmlops_data_type_name(lt));
    }
    check_variant(&t, LEAST_ROWS);
}

TEST(reverses_with_a_length_per_row_match_the_cpu)
{
    dmlops_context *vk = gpu_context();
    if (!vk) return;
    reverses_with_a_length_per_row_match_the_cpu_on(vk, 1);
    vkt_done(vk);
}

/* A third of the same cases (picked: every element size) with one workgroup a dispatch
 * (DMLOPS_VK_GRID=1), so that a workgroup runs tile after tile: a tile that stages over
 * shared memory its lanes still read (a barrier missing at a tile's end) shows only then
 * (DEVELOPERS.md: each end-of-tile barrier deleted fails one of these). */
TEST(reverses_with_a_length_per_row_match_the_cpu_one_workgroup)
{
    dmlops_context *vk = one_workgroup_context();
    if (!vk) return;
    reverses_with_a_length_per_row_match_the_cpu_on(vk, 3);
    vkt_done(vk);
}

/* REVERSE [n, C] along axis 0 with a length per column (ONNX's batch of sequences):
 * V_TILE_COLUMNS, lengths that agree across a chunk and that do not, short and long axes,
 * source rows not on a vector. */
static void reverses_with_a_length_per_column_match_the_cpu_on(dmlops_context *vk, int every)
{
    const uint64_t seed = 0x71e5003ull;
    printf("    seed 0x%llx\n", (unsigned long long)seed);
    dmt_rng r = {seed};
    tally t = {.want = "tile_columns"};
    for (int n = 0; n < 120; n++) {
        /* Every element size in turn, 1- and 2-byte ones included (their chunks take their
         * elements from up to 16 source rows). */
        const DML_TENSOR_DATA_TYPE type = types[n % 6], lt = aux_types[dmt_below(&r, 4)];
        const uint32_t T = 1 + dmt_below(&r, n % 4 ? 20 : 100), per = 16 / dmlops_data_type_size(type);
        uint32_t C = pick_len(&r, n % 10 ? 300 : 3000);
        /* The tile needs output rows whole chunks apart: in three cases of four, C a whole
         * number of chunks (1- and 2-byte elements take the tile then too); else any C,
         * where 1- and 2-byte rows mostly take another path. */
        if (dmt_below(&r, 4)) C += (per - C % per) % per;
        dmt_tensor in, len, o;
        tensor2(&in, type, T, C, dmt_below(&r, 3) ? 0 : 1 + dmt_below(&r, 5));
        tensor2(&o, type, T, C, 0);
        const uint32_t lsz[2] = {1, C};
        dmt_tensor_init(&len, lt, 2, lsz, NULL, 0);
        DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rv = {&in.desc, &len.desc, &o.desc, 0};
        DML_OPERATOR_DESC d = {DML_OPERATOR_REVERSE_SUBSEQUENCES, &rv};
        const uint64_t sizes[3] = {in.buf.TotalTensorSizeInBytes, len.buf.TotalTensorSizeInBytes, o.buf.TotalTensorSizeInBytes};
        /* Every fourth case: one length for every column (lengths that agree). */
        const int64_t lo = n % 4 == 1 ? T : 0, hi = n % 4 == 1 ? T : T + 2;
        const aux_fill f = {1, C, lt, lo, hi, 0};
        if (!picked(n, every)) continue;
        count_variant(vk, &d, dmlops_data_type_size(type), &t);
        if (!vkt_same_as_cpu(vk, &d, 2, sizes, seed + (uint64_t)n, NULL, fix_aux, &f))
            printf("    case %d: %s [%u, %u], %s lengths\n", n, dmlops_data_type_name(type), T, C, dmlops_data_type_name(lt));
    }
    check_variant(&t, LEAST_COLUMNS);
}

/* Output rows padded so that a row ends inside a chunk while the next starts on one: the
 * column tile's last block can then hold no element of the row ([88, 7] UINT8, rows 16
 * bytes apart), and a kernel that staged such an empty block from a wrapped count crashed
 * lavapipe inside the shader. Every element size, with a length per column. */
static void reverses_into_padded_rows_match_the_cpu_on(dmlops_context *vk)
{
    const uint64_t seed = 0x71e5013ull;
    printf("    seed 0x%llx\n", (unsigned long long)seed);
    for (int n = 0; n < 12; n++) {
        const DML_TENSOR_DATA_TYPE type = types[n % 6], lt = aux_types[n % 4];
        const uint32_t esize = dmlops_data_type_size(type), per = 16 / esize;
        const uint32_t T = n < 6 ? 88 : 17 + (uint32_t)n, C = n < 6 ? (per > 2 ? per / 2 - 1 : 1) : per * 2 + 1;
        dmt_tensor in, len, o;
        tensor2(&in, type, T, C, 0);
        tensor2(&o, type, T, C, (per - C % per) % per);
        const uint32_t lsz[2] = {1, C};
        dmt_tensor_init(&len, lt, 2, lsz, NULL, 0);
        DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rv = {&in.desc, &len.desc, &o.desc, 0};
        DML_OPERATOR_DESC d = {DML_OPERATOR_REVERSE_SUBSEQUENCES, &rv};
        const uint64_t sizes[3] = {in.buf.TotalTensorSizeInBytes, len.buf.TotalTensorSizeInBytes, o.buf.TotalTensorSizeInBytes};
        const aux_fill f = {1, C, lt, 0, (int64_t)T + 2, 0};
        if (!vkt_same_as_cpu(vk, &d, 2, sizes, seed + (uint64_t)n, NULL, fix_aux, &f))
            printf("    case %d: %s [%u, %u] into rows of %u, %s lengths\n", n, dmlops_data_type_name(type), T, C,
                   C + (per - C % per) % per, dmlops_data_type_name(lt));
    }
}

TEST(reverses_into_padded_rows_match_the_cpu)
{
    dmlops_context *vk = gpu_context();
    if (!vk) return;
    reverses_into_padded_rows_match_the_cpu_on(vk);
    vkt_done(vk);
}

TEST(reverses_with_a_length_per_column_match_the_cpu)
{
    dmlops_context *vk = gpu_context();
    if (!vk) return;
    reverses_with_a_length_per_column_match_the_cpu_on(vk, 1);
    vkt_done(vk);
}

/* A third of the same cases (picked: every element size) with one workgroup a dispatch
 * (DMLOPS_VK_GRID=1), so that a workgroup runs tile after tile: a tile that stages over
 * shared memory its lanes still read (a barrier missing at a tile's end) shows only then
 * (DEVELOPERS.md: each end-of-tile barrier deleted fails one of these). */
TEST(reverses_with_a_length_per_column_match_the_cpu_one_workgroup)
{
    dmlops_context *vk = one_workgroup_context();
    if (!vk) return;
    reverses_with_a_length_per_column_match_the_cpu_on(vk, 3);
    vkt_done(vk);
}

/* ONE_HOT of [R] indices into [R, depth] along axis 1: V_TILE_HOT, rows shorter and longer
 * than a chunk, indices counted from the end, out of range, 64-bit. */
static void one_hots_into_packed_rows_match_the_cpu_on(dmlops_context *vk, int every)
{
    const uint64_t seed = 0x71e5004ull;
    printf("    seed 0x%llx\n", (unsigned long long)seed);
    dmt_rng r = {seed};
    tally t = {.want = "tile_hot"};
    for (int n = 0; n < 120; n++) {
        const DML_TENSOR_DATA_TYPE type = types[dmt_below(&r, 6)], it = aux_types[dmt_below(&r, 4)];
        const uint32_t depth = pick_len(&r, n % 10 ? 200 : 3000), R = 1 + dmt_below(&r, n % 8 ? 300 : 40000 / depth + 1);
        dmt_tensor idx, val, o;
        const uint32_t isz[2] = {R, 1}, vsz[2] = {1, 2};
        dmt_tensor_init(&idx, it, 2, isz, NULL, 0);
        dmt_tensor_init(&val, type, 2, vsz, NULL, 0);
        tensor2(&o, type, R, depth, 0);
        DML_ONE_HOT_OPERATOR_DESC h = {&idx.desc, &val.desc, &o.desc, 1};
        DML_OPERATOR_DESC d = {DML_OPERATOR_ONE_HOT, &h};
        const uint64_t sizes[3] = {idx.buf.TotalTensorSizeInBytes, val.buf.TotalTensorSizeInBytes, o.buf.TotalTensorSizeInBytes};
        const aux_fill f = {0, R, it, -(int64_t)depth - 1, depth, dmlops_data_type_size(type)};
        if (!picked(n, every)) continue;
        count_variant(vk, &d, dmlops_data_type_size(type), &t);
        if (!vkt_same_as_cpu(vk, &d, 2, sizes, seed + (uint64_t)n, NULL, fix_hot, &f))
            printf("    case %d: %s [%u] into depth %u, %s indices\n", n, dmlops_data_type_name(type), R, depth,
                   dmlops_data_type_name(it));
    }
    check_variant(&t, LEAST_HOT);
}

TEST(one_hots_into_packed_rows_match_the_cpu)
{
    dmlops_context *vk = gpu_context();
    if (!vk) return;
    one_hots_into_packed_rows_match_the_cpu_on(vk, 1);
    vkt_done(vk);
}

/* A third of the same cases (picked: every element size) with one workgroup a dispatch
 * (DMLOPS_VK_GRID=1), so that a workgroup runs tile after tile: a tile that stages over
 * shared memory its lanes still read (a barrier missing at a tile's end) shows only then
 * (DEVELOPERS.md: each end-of-tile barrier deleted fails one of these). */
TEST(one_hots_into_packed_rows_match_the_cpu_one_workgroup)
{
    dmlops_context *vk = one_workgroup_context();
    if (!vk) return;
    one_hots_into_packed_rows_match_the_cpu_on(vk, 3);
    vkt_done(vk);
}

/* The tiles on workgroups of 1, 2 and 4 lanes (DMLOPS_VK_WORKGROUP), whose shared memory
 * holds a few vectors: SLICE1 steps up to 12 either way, where a tile of one chunk a lane
 * stages all the step's vectors or the slice takes another path. A step of 7 on one lane
 * once sized a tile of no rows and divided by it on the host. */
TEST(tiles_on_narrow_workgroups_match_the_cpu)
{
    const uint64_t seed = 0x71e5005ull;
    printf("    seed 0x%llx\n", (unsigned long long)seed);
    dmt_rng r = {seed};
    static const char *const widths[] = {"1", "2", "4"};
    for (int w = 0; w < 3; w++) {
        dmt_env wg;
        dmt_env_set(&wg, "DMLOPS_VK_WORKGROUP", widths[w]);
        dmlops_context *vk = gpu_context();
        dmt_env_restore(&wg);
        if (!vk) return;
        for (int n = 0; n < 24; n++) {
            const DML_TENSOR_DATA_TYPE type = types[dmt_below(&r, 6)];
            const int32_t step = (n % 2 ? -1 : 1) * (1 + n / 2);
            const uint32_t R = 1 + dmt_below(&r, 5), C = 200 + dmt_below(&r, 200), out = (C - 1) / (uint32_t)abs(step) + 1;
            const uint32_t offs[2] = {0, 0}, win[2] = {R, C};
            const int32_t steps[2] = {1, step};
            dmt_tensor in, o;
            tensor2(&in, type, R, C, 0);
            tensor2(&o, type, R, out, 0);
            DML_SLICE1_OPERATOR_DESC s = {&in.desc, &o.desc, 2, offs, win, steps};
            DML_OPERATOR_DESC d = {DML_OPERATOR_SLICE1, &s};
            const uint64_t sizes[2] = {in.buf.TotalTensorSizeInBytes, o.buf.TotalTensorSizeInBytes};
            if (!vkt_same_as_cpu(vk, &d, 1, sizes, seed + (uint64_t)(w * 100 + n), NULL, NULL, NULL))
                printf("    workgroup %s: %s [%u, %u] step %d\n", widths[w], dmlops_data_type_name(type), R, C, step);
        }
        vkt_done(vk);
    }
}
