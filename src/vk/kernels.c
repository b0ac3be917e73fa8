/* The SPIR-V of glsl/<name>.comp, compiled, optimised and validated at build time
 * (Makefile) and embedded here: nothing is read from disk at run time; and which of
 * each kernel's fast-path variants covers a gather. */
#include "kernels.h"

#include "../checked.h"

#include "vk_abi.h"

#include "copy.h"
#include "one_hot.h"
#include "reverse.h"
#include "slice.h"

/* The Makefile's DM_SPV_<kernel>_MODULES: [row bucket][variant][texel] for the general
 * path (variant 0) and the kernel's fast-path variants; other slots stay empty. */
const dm_spirv dm_kernels[DM_KERNEL_COUNT][DM_ROW_BUCKETS][DM_VARIANT_COUNT][2] = {
    [DM_KERNEL_SLICE] = {DM_SPV_slice_MODULES},
    [DM_KERNEL_REVERSE] = {DM_SPV_reverse_MODULES},
    [DM_KERNEL_ONE_HOT] = {DM_SPV_one_hot_MODULES},
};

const dm_spirv dm_kernels_trace[DM_KERNEL_COUNT][DM_ROW_BUCKETS][DM_VARIANT_COUNT] = {
    [DM_KERNEL_SLICE] = {DM_SPV_slice_TRACE_MODULES},
    [DM_KERNEL_REVERSE] = {DM_SPV_reverse_TRACE_MODULES},
    [DM_KERNEL_ONE_HOT] = {DM_SPV_one_hot_TRACE_MODULES},
};

const dm_spirv dm_copy_kernel = {dm_spv_copy, sizeof dm_spv_copy};
const dm_spirv dm_copy_kernel_trace = {dm_spv_copy_trace, sizeof dm_spv_copy_trace};

uint32_t dm_kernel_aux_type(const dm_gather *g)
{
    if (g->binding[DM_SLOT_AUX] < 0) return DM_AUX_U32;
    switch (g->aux_dtype) {
    case DML_TENSOR_DATA_TYPE_INT32: return DM_AUX_I32;
    case DML_TENSOR_DATA_TYPE_UINT64: return DM_AUX_U64;
    case DML_TENSOR_DATA_TYPE_INT64: return DM_AUX_I64;
    default: return DM_AUX_U32;
    }
}

bool dm_kernel_rows_packed(const dm_gather *g)
{
    if (g->rank == 0 || g->rank > 2 || g->rows_cut) return false;
    const uint32_t last = g->rank - 1;
    if (g->stride[DM_SLOT_DST][last] != 1 || g->size[last] == 0 ||
        (g->rank == 2 && g->stride[DM_SLOT_DST][0] != (int64_t)g->size[1]))
        return false;
    if (g->kernel == DM_KERNEL_ONE_HOT) return true;
    /* SLICE1 and REVERSE: rows shorter than a chunk, which a row at a time leaves wholly
     * to the element path, and rows of 4- and 8-byte elements up to 63 bytes that are
     * not whole chunks (most of their chunks straddle two rows). lavapipe, 16 MiB,
     * FLOAT32: SLICE1 [N, 4] -> [N, 2] 35 -> 8.3 ms, REVERSE rows of 3 54 -> 17.5 ms,
     * of 5 60 -> 24 ms, SLICE1 rows of 10 and 14 elements 1.5-2x faster. Rows of whole
     * chunks keep their vector path (UINT8 rows of 32 bytes ran 2x slower flat, a byte
     * inserted at a time). The walk reads elements as the general path does, so any
     * layout of the source and lengths is covered (REVERSE [T, 3] along T with a length
     * per column, 16 MiB: 47.8 -> 7.3 ms on lavapipe, with the machine otherwise idle). */
    const uint64_t row_bytes = (uint64_t)g->size[last] * g->esize;
    if (row_bytes >= 64 || (row_bytes >= 16 && (g->esize < 4 || row_bytes % 16 == 0))) return false;
    return g->kernel == DM_KERNEL_SLICE || g->kernel == DM_KERNEL_REVERSE;
}

bool dm_kernel_aux_vectors(const dm_gather *g)
{
    return g->kernel == DM_KERNEL_ONE_HOT || dm_kernel_variant(g, true) == DM_VARIANT_COLUMNS;
}

bool dm_kernel_partial(const dm_gather *g, uint32_t variant, bool axis_split)
{
    return axis_split && g->kernel == DM_KERNEL_REVERSE && variant == DM_VARIANT_COLUMNS;
}

bool dm_kernel_src_words(const dm_gather *g)
{
    return g->esize <= 4 && dm_kernel_variant(g, true) == DM_VARIANT_COLUMNS;
}

bool dm_kernel_units(uint32_t variant)
{
    return variant != DM_VARIANT_FLAT && variant != DM_VARIANT_FLAT_ROWS && variant < DM_VARIANT_TILES;
}

bool dm_kernel_flat(const dm_gather *g, bool texel)
{
    const uint32_t v = dm_kernel_variant(g, texel);
    return v == DM_VARIANT_FLAT || v == DM_VARIANT_FLAT_ROWS || v == DM_VARIANT_TILE_HOT;
}

uint32_t dm_kernel_tile_step(const dm_gather *g)
{
    const int64_t s = g->kernel == DM_KERNEL_SLICE ? g->stride[DM_SLOT_SRC][g->rank - 1] : 1;
    return s < 0 ? (uint32_t)-s : (uint32_t)s;
}

uint32_t dm_kernel_columns_lds(const dm_gather *g, uint32_t chunks)
{
    const uint64_t lengths = ((uint64_t)chunks * (16 / g->esize) * g->aux_esize + 15) / 16 + 2;
    return (uint32_t)dm_min_u64((uint64_t)g->n * (chunks + 1) + lengths, UINT32_MAX);
}

/* The GPU tile (glsl/gather_tiles.glsl) that covers a rank-1 or rank-2 gather with
 * contiguous output rows where the device takes tiles (g->tile_lds, GPU tuning), or
 * DM_VARIANT_GENERAL. */
static uint32_t dm_kernel_tile(const dm_gather *g)
{
    if (!g->tile_lds || g->rank == 0 || g->rank > 2) return DM_VARIANT_GENERAL;
    const uint32_t last = g->rank - 1;
    const int64_t src = g->stride[DM_SLOT_SRC][last], aux = g->stride[DM_SLOT_AUX][last];
    switch (g->kernel) {
    case DM_KERNEL_SLICE: {
        /* A phase stages step x the tile's chunks: a step up to what leaves a tile of at
         * least a chunk per lane (4 with 8 KiB for 128 lanes), and at least one row of a
         * chunk (its S * k + 4 vectors and 2 of geometry: dm_tile_params), which narrow
         * workgroups' small shared memory may not hold. */
        const uint32_t k = dm_kernel_tile_step(g);
        return k != 0 && (uint64_t)k * g->tile_wg + 2 <= g->tile_lds && (uint64_t)k + 6 <= g->tile_lds
                   ? DM_VARIANT_TILES
                   : DM_VARIANT_GENERAL;
    }
    case DM_KERNEL_REVERSE:
        if (g->axis < 0) return DM_VARIANT_GENERAL;
        /* One length per row: along the axis (contiguous in the source) or across it (the
         * row contiguous), as ALONG and ACROSS. */
        if (aux == 0)
            return ((uint32_t)g->axis == last ? g->window_stride == 1 && src == 0 : src == 1) ? DM_VARIANT_TILES
                                                                                        : DM_VARIANT_GENERAL;
        /* A length per column, [n, C] along axis 0: rows whole chunks apart in the output
         * (one chunk grid for every row), every row of a column of chunks in shared memory. */
        if (g->rank == 2 && g->axis == 0 && aux == 1 && src == 1 && g->stride[DM_SLOT_AUX][0] == 0 &&
            (g->stride[DM_SLOT_DST][0] * (int64_t)g->esize) % 16 == 0 && dm_kernel_columns_lds(g, 1) <= g->tile_lds)
            return DM_VARIANT_TILE_COLUMNS;
        return DM_VARIANT_GENERAL;
    case DM_KERNEL_ONE_HOT:
        /* One index per row along the innermost axis, rows end to end, indices contiguous. */
        return aux == 0 && (uint32_t)g->axis == last && dm_kernel_rows_packed(g) &&
                       (g->rank == 1 || g->stride[DM_SLOT_AUX][0] == 1)
                   ? DM_VARIANT_TILE_HOT
                   : DM_VARIANT_GENERAL;
    default:
        return DM_VARIANT_GENERAL;
    }
}

bool dm_kernel_src_aligned(const dm_gather *g, uint32_t variant)
{
    /* The GPU tiles load straight what would be STREAM's aligned vectors (step 2 they
     * stage: two aligned vectors a chunk, loaded lane by lane, would fetch every sector
     * twice). */
    const int64_t tile_step = g->rank ? g->stride[DM_SLOT_SRC][g->rank - 1] : 0;
    const bool tile = (variant == DM_VARIANT_TILES || variant == DM_VARIANT_TILE_ROWS) && (tile_step == 1 || tile_step == -1);
    const bool slice =
        g->kernel == DM_KERNEL_SLICE && (variant == DM_VARIANT_STREAM || variant == DM_VARIANT_PAIRS || tile);
    /* REVERSE's COLUMNS reads a row forwards (k = 1 below) from the source row each
     * element's length picks: every such row is aligned too when the axis steps by a
     * multiple of 16 bytes. */
    const bool columns = g->kernel == DM_KERNEL_REVERSE && variant == DM_VARIANT_COLUMNS;
    if (!slice && !columns) return false;
    if (columns && ((int64_t)g->window_stride * (int64_t)g->esize) % 16 != 0) return false;
    /* Byte addresses modulo 16 (a binding starts on a multiple of 16): a whole chunk at
     * output byte cb of a row starting at db reads from sb + k * (cb - db) going forwards
     * (k = 1, STREAM, or 2, PAIRS), or ends at sb + esize - (cb - db) going backwards, so
     * its source starts at cb + (sb - k * db) or at (sb + db + esize) - cb - 16: aligned
     * for every row when that sum is, at the origin and per step of each row dimension. */
    const uint32_t last = g->rank - 1;
    const int64_t step = g->stride[DM_SLOT_SRC][last], k = step == -1 ? -1 : step;
    const int64_t c = step == -1 ? (int64_t)g->esize : 0;
    if (((g->base[DM_SLOT_SRC] - k * g->base[DM_SLOT_DST]) * (int64_t)g->esize + c) % 16 != 0) return false;
    for (uint32_t d = 0; d < last; d++)
        if (g->size[d] > 1 && ((g->stride[DM_SLOT_SRC][d] - k * g->stride[DM_SLOT_DST][d]) * (int64_t)g->esize) % 16 != 0)
            return false;
    return true;
}

uint32_t dm_kernel_variant(const dm_gather *g, bool texel)
{
    const uint32_t last = g->rank - 1;
    if (g->rank == 0 || g->stride[DM_SLOT_DST][last] != 1) return DM_VARIANT_GENERAL;
    const int64_t src = g->stride[DM_SLOT_SRC][last], aux = g->stride[DM_SLOT_AUX][last];
    /* Short packed rows (dm_kernel_rows_packed): the output as one stream of chunks, each
     * built element by element (flat_elems_main in gather_main.glsl). */
    if (g->kernel != DM_KERNEL_ONE_HOT && dm_kernel_rows_packed(g)) return DM_VARIANT_FLAT;
    /* GPU tiles where the layout takes one: the storage-buffer path of a GPU-tuned device;
     * rows whose every chunk is an aligned source vector need no shared memory, and take
     * the module that declares none (no pipeline allocates memory it does not use). */
    const uint32_t tile = texel ? DM_VARIANT_GENERAL : dm_kernel_tile(g);
    if (tile == DM_VARIANT_TILES && dm_kernel_src_aligned(g, DM_VARIANT_TILES)) return DM_VARIANT_TILE_ROWS;
    if (tile != DM_VARIANT_GENERAL) return tile;
    switch (g->kernel) {
    case DM_KERNEL_SLICE:
        if (src == 1 || src == -1) return DM_VARIANT_STREAM;
        /* Two vectors and every second element: always for 1- and 2-byte elements; for
         * larger ones only on the texel path, where vector loads are cheap. */
        if (src == 2 && (g->esize < 4 || texel)) return DM_VARIANT_PAIRS;
        /* Any other step: a load per element, the chunk packed in registers; 1- and
         * 2-byte elements too (lavapipe, two alternating runs: [4096, 4096] UINT8 step 3
         * 17.4-18.1 -> 5.5-8.7 ms, FLOAT16 step 4 6.2-7.4 -> 3.4-3.6 ms against GENERAL,
         * which merged each word of a chunk one by one). */
        return src != 0 ? DM_VARIANT_WORDS : DM_VARIANT_GENERAL;
    case DM_KERNEL_REVERSE: /* one length per row; the axis, or else the row, contiguous in the source */
        if (g->axis < 0) return DM_VARIANT_GENERAL;
        /* Across the axis with a length per column, lengths and row contiguous: on CPU
         * devices (texel) each element from the 16-byte vector that holds it. GPUs keep
         * the general path, whose chunks of agreeing lengths load one vector (measured on
         * an H200); this way is unmeasured there. */
        if (aux != 0)
            return texel && (uint32_t)g->axis != last && src == 1 && aux == 1 ? DM_VARIANT_COLUMNS
                                                                             : DM_VARIANT_GENERAL;
        if ((uint32_t)g->axis == last) return g->window_stride == 1 && src == 0 ? DM_VARIANT_ALONG : DM_VARIANT_GENERAL;
        return src == 1 ? DM_VARIANT_ACROSS : DM_VARIANT_GENERAL;
    case DM_KERNEL_ONE_HOT: /* one index per row */
        if (aux != 0 || g->axis < 0) return DM_VARIANT_GENERAL;
        if ((uint32_t)g->axis != last) return DM_VARIANT_ACROSS;
        if (!dm_kernel_rows_packed(g)) return DM_VARIANT_ALONG;
        const uint64_t row_bytes = (uint64_t)g->size[last] * g->esize;
        /* On CPU devices (texel), rows that are whole chunks: a row's index read once, not
         * per chunk (lavapipe, compute-copy ratios in alternating runs: depth 16 FLOAT32
         * 0.77 -> 0.93, FLOAT64 0.76 -> 0.91-0.93; depth 1024 0.83-0.95 a row at a time
         * -> 0.92-1.19; docs/design.md). Rows of one or two chunks (UINT8 / FLOAT16 depth
         * 16) ran 15-20% slower that way than as FLAT while each invocation took its own
         * rows; with LANES invocations taking neighbouring rows (flat_rows_lanes) they run
         * at 0.75-0.93x against FLAT's 0.45-0.66x. Other short rows (up to 63 bytes): the
         * output as one stream of chunks, each meeting two rows, or up to 17 when rows
         * are shorter than a chunk (those went a row at a time, 5x slower). Longer rows
         * otherwise go a row at a time: there FLAT's index read per chunk made lavapipe
         * slower (depth 1024: 0.77-0.86x the compute copy against 0.88-0.95x). */
        if (texel && row_bytes % 16 == 0) return DM_VARIANT_FLAT_ROWS;
        return row_bytes < 64 ? DM_VARIANT_FLAT : DM_VARIANT_ALONG;
    default:
        return DM_VARIANT_GENERAL;
    }
}
