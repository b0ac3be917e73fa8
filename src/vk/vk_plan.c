/* Planning a gather for the device (vk_plan.h): split the output box into pieces whose
 * bindings each fit one storage-buffer window (and whose work fits 32-bit unit indices),
 * or turn it into vkCmdCopyBuffer regions when its rows are long contiguous copies.
 * Every size here derives from a validated descriptor whose tensors are below 2^62 bytes
 * (vk_execute.c refuses larger ones), so 64-bit signed sums cannot overflow. */
#include <stdlib.h>
#include <string.h>

#include "../checked.h"
#include "../fastdiv.h"
#include "kernels.h"
#include "vk_abi.h"
#include "vk_plan.h"
#include "../fault.h"

enum { DM_MAX_PIECES = 1 << 16, DM_MAX_REGIONS = 1 << 18 };
#define DM_MAX_UNITS (1ull << 31)

_Static_assert(DM_P_SIZE + DM_MAX_RANK <= DM_P_DST_STRIDE && DM_P_DST_STRIDE + DM_MAX_RANK <= DM_P_SRC_STRIDE &&
                   DM_P_SRC_STRIDE + DM_MAX_RANK <= DM_P_AUX_STRIDE && DM_P_AUX_STRIDE + DM_MAX_RANK <= DM_P_TILE_CHUNKS,
               "the per-dimension arrays of the parameter record overlap");
_Static_assert(DM_P_AUX_STEP < DM_P_ROW_MAGIC && DM_P_ROW_MAGIC + DM_MAX_RANK <= DM_P_ROW_SHIFTS &&
                   DM_P_ROW_SHIFTS + DM_MAX_RANK <= DM_P_DST_STEP,
               "the row dimensions' divisors overlap");

/* A box of output coordinates, and the part [wlo, whi) of the source window it reads. */
typedef struct dm_box {
    uint32_t lo[DM_MAX_RANK], hi[DM_MAX_RANK];
    uint32_t wlo, whi;
} dm_box;

static uint32_t dm_slot_esize(const dm_gather *g, int slot)
{
    return slot == DM_SLOT_AUX ? g->aux_esize : g->esize;
}

/* Element span [lo, hi] (inclusive) of a slot over a box. */
static void dm_span_elems(const dm_gather *g, const dm_box *b, int slot, int64_t *lo, int64_t *hi)
{
    int64_t mn = g->base[slot], mx = g->base[slot];
    if (slot == DM_SLOT_SRC && g->window) {
        int64_t a = (int64_t)b->wlo * g->window_stride, z = (int64_t)(b->whi - 1) * g->window_stride;
        mn += a < z ? a : z;
        mx += a < z ? z : a;
    }
    for (uint32_t d = 0; d < g->rank; d++) {
        int64_t s = g->stride[slot][d], a = (int64_t)b->lo[d] * s, z = (int64_t)(b->hi[d] - 1) * s;
        mn += a < z ? a : z;
        mx += a < z ? z : a;
    }
    *lo = mn;
    *hi = mx;
}

static void dm_span_bytes(const dm_gather *g, const dm_box *b, int slot, dm_vk_span *out)
{
    int64_t lo, hi;
    uint32_t es = dm_slot_esize(g, slot);
    dm_span_elems(g, b, slot, &lo, &hi);
    out->lo = (uint64_t)lo * es;
    out->hi = (uint64_t)(hi + 1) * es;
}

static uint64_t dm_units(const dm_gather *g, const dm_box *b, uint32_t *per_row, uint32_t *mode)
{
    uint32_t last = g->rank - 1, m = b->hi[last] - b->lo[last];
    uint64_t rows = 1;
    for (uint32_t d = 0; d < last; d++) rows *= b->hi[d] - b->lo[d];
    bool vec = g->stride[DM_SLOT_DST][last] == 1;
    *mode = vec ? DM_MODE_VEC : DM_MODE_ELEMENT;
    /* A row of m * esize bytes starting anywhere spans at most this many 16-byte chunks. */
    *per_row = vec ? (uint32_t)(((uint64_t)m * g->esize + 14) / 16 + 1) : m;
    return rows * *per_row; /* < 2^32 * 2^31 */
}

static uint64_t dm_abs_u64(int64_t v) { return v < 0 ? (uint64_t)-v : (uint64_t)v; }

/* The dimension (or, returning rank, the source window) whose halving shrinks the slot's
 * span most; -1 when nothing can be split. */
static int dm_pick_split(const dm_gather *g, const dm_box *b, int slot, bool flat)
{
    /* The flat walk (flat: dm_kernel_flat) takes a piece's rows as one stream: a piece of
     * several rows must hold them whole, so its rows are split apart, or its source
     * window, before any row is cut. Splitting rows that do not move this slot's span
     * (REVERSE along axis 0 reads its rows through the window) would only cut the piece
     * down to single rows: [12000, 3] FLOAT32 with 128 KiB windows became 24000 dispatches.
     * A row that alone outgrows a window takes no flat walk (dm_plan_rows_cut). */
    const bool whole_rows = flat && g->rank == 2 && b->hi[0] - b->lo[0] > 1;
    int best = -1;
    uint64_t best_w = 0;
    for (uint32_t d = 0; d < (whole_rows ? 1 : g->rank); d++) {
        uint32_t ext = b->hi[d] - b->lo[d];
        int64_t s = slot < 0 ? 1 : g->stride[slot][d]; /* slot < 0: split the longest */
        uint64_t w = ext > 1 ? (uint64_t)(ext - 1) * dm_abs_u64(s) : 0;
        if (w > best_w) {
            best_w = w;
            best = (int)d;
        }
    }
    if (slot == DM_SLOT_SRC && g->window && b->whi - b->wlo > 1 &&
        (uint64_t)(b->whi - b->wlo - 1) * dm_abs_u64(g->window_stride) > best_w)
        best = (int)g->rank;
    return whole_rows && best < 0 ? 0 : best;
}

/* Pieces being planned, with their parameter records. */
typedef struct dm_piece_set {
    dm_vk_piece *pieces;
    uint32_t *params;
    uint32_t n, cap;
} dm_piece_set;

/* Appends a piece and returns its parameter record, or NULL (message set). */
static uint32_t *dm_push_piece(dm_piece_set *set, const dm_vk_piece *p)
{
    if (set->n == DM_MAX_PIECES) {
        dm_set_message("the tensors' layout needs more than %d binding windows on this device", DM_MAX_PIECES);
        return NULL;
    }
    if (set->n == set->cap) {
        uint32_t n = set->cap ? set->cap * 2 : 4;
        dm_vk_piece *q = dm_realloc(set->pieces, n * sizeof *q);
        if (q) set->pieces = q;
        uint32_t *w = q ? dm_realloc(set->params, (size_t)n * DM_P_WORDS * sizeof *w) : NULL;
        if (!w) {
            dm_set_message("out of host memory planning an operator");
            return NULL;
        }
        set->params = w;
        set->cap = n;
    }
    set->pieces[set->n] = *p;
    return set->params + (size_t)set->n++ * DM_P_WORDS;
}

static uint32_t dm_log2_u32(uint32_t v)
{
    uint32_t l = 0;
    while (l < 31 && (1u << (l + 1)) <= v) l++;
    return l;
}

static void dm_put_divisor_at(uint32_t *w, int magic_word, int shifts_word, uint32_t d)
{
    const dm_fastdiv f = dm_fastdiv_for(d);
    w[magic_word] = f.magic;
    w[shifts_word] = f.shifts;
}

static void dm_put_divisor(uint32_t *w, int magic_word, uint32_t d) { dm_put_divisor_at(w, magic_word, magic_word + 1, d); }

/* The unit loop's plan of a piece (glsl/gather_main.glsl, units_main), from its record w
 * (dm_fill_params) and its origin's byte phase in a chunk (bindings start on 16 bytes):
 * runs of RUN chunks (elements on a strided row), on the fast path G whole rows a unit
 * where a row spans at most RUN / 2 chunks, and long rows' runs shared by up to LANES
 * invocations, each lane given RUN chunks at least: a row cut finer costs a unit's setup
 * per few chunks (lavapipe, REVERSE FLOAT32 rows of 64 to 512 elements, 16 MiB: 8 lanes
 * 1.2-2.1x slower than 1 on rows of 16-32 chunks, and 64 or 128 chunks best with 2 or
 * 4). Where all rows start at one phase (P_PHASED), the first row's chunks are what every
 * row spans, which keeps an aligned row of 64 chunks from taking a third run of 32. */
static void dm_unit_params(const dm_gather *g, uint32_t variant, uint32_t run, uint32_t lanes_max, uint32_t phase,
                           uint32_t *w)
{
    const uint32_t per_row = w[DM_P_PER_ROW] ? w[DM_P_PER_ROW] : 1, rows = w[DM_P_ROWS];
    const bool fast = variant != DM_VARIANT_GENERAL;
    if (!dm_kernel_units(variant)) return; /* a flat walk's or a tile's: their own words */
    const uint64_t phased_spans = ((uint64_t)phase + (uint64_t)w[DM_P_M] * g->esize + 15) / 16;
    const uint32_t spans = w[DM_P_PHASED] ? (uint32_t)dm_max_u64(phased_spans, 1) : per_row;
    const uint32_t G = fast && per_row * 2 <= run ? run / per_row : 1;
    uint32_t lanes = 1;
    while (fast && G == 1 && lanes < lanes_max && (uint64_t)lanes * 2 * run <= spans) lanes *= 2;
    const uint32_t runs = (uint32_t)(((uint64_t)spans + (uint64_t)run * lanes - 1) / ((uint64_t)run * lanes));
    const uint32_t items = (uint32_t)((uint64_t)(rows + G - 1) / G * runs); /* at most the piece's units */
    if (!fast) {
        w[DM_P_G_RUNS] = runs;
        dm_put_divisor_at(w, DM_P_G_RUNS_MAGIC, DM_P_G_RUNS_SHIFTS, runs ? runs : 1);
        w[DM_P_G_ITEMS] = items;
        return;
    }
    w[DM_P_RUNS] = runs;
    dm_put_divisor_at(w, DM_P_RUNS_MAGIC, DM_P_RUNS_SHIFTS, runs ? runs : 1);
    w[DM_P_UNIT_ROWS] = G;
    w[DM_P_LANES] = lanes;
    w[DM_P_ITEMS] = items;
}

static void dm_fill_params(const dm_gather *g, const dm_box *b, const dm_vk_piece *p, uint32_t *w)
{
    uint32_t per_row, mode;
    memset(w, 0, DM_P_WORDS * sizeof *w);
    (void)dm_units(g, b, &per_row, &mode);
    uint32_t last = g->rank - 1;
    w[DM_P_RANK] = g->rank;
    w[DM_P_UNITS] = (uint32_t)p->units;
    w[DM_P_MODE] = mode;
    w[DM_P_PER_ROW] = per_row;
    w[DM_P_AXIS] = g->axis < 0 ? DM_NO_AXIS : (uint32_t)g->axis;
    w[DM_P_AXIS_ORIGIN] = g->axis < 0 ? 0 : b->lo[g->axis];
    w[DM_P_N] = g->n;
    w[DM_P_WIN_LO] = g->window ? b->wlo : 0;
    w[DM_P_WIN_HI] = g->window ? b->whi : UINT32_MAX;
    w[DM_P_M] = b->hi[last] - b->lo[last];
    dm_put_divisor(w, DM_P_M_MAGIC, w[DM_P_M] ? w[DM_P_M] : 1); /* rows of 0 elements have no chunks to divide */
    w[DM_P_ROWS] = (uint32_t)(p->units / per_row); /* < 2^31: the piece's units are */
    /* Whether every row starts at the same byte offset modulo 16 (each row dimension that
     * moves steps the output by a multiple of 16; bindings start at multiples of 16), so
     * that a row spans exactly as many chunks as its first does, not per_row, the most a
     * row starting anywhere can: kernels then waste no unit on a row's empty last run. */
    bool phased = mode == DM_MODE_VEC;
    for (uint32_t d = 0; d < last; d++)
        if (b->hi[d] - b->lo[d] > 1 && (g->stride[DM_SLOT_DST][d] * (int64_t)g->esize) % 16 != 0) phased = false;
    w[DM_P_PHASED] = phased;
    w[DM_P_AXIS_SRC_STRIDE] = (uint32_t)((uint64_t)g->window_stride * g->esize);
    /* Offsets of the piece origin inside each window; they may wrap (see the shader). */
    int64_t origin[DM_SLOT_COUNT];
    for (int s = 0; s < DM_SLOT_COUNT; s++) origin[s] = g->base[s];
    for (uint32_t d = 0; d < g->rank; d++) {
        w[DM_P_SIZE + d] = b->hi[d] - b->lo[d];
        /* A row's coordinates are found by division by each row dimension's size. */
        if (d < last) dm_put_divisor_at(w, DM_P_ROW_MAGIC + d, DM_P_ROW_SHIFTS + d, w[DM_P_SIZE + d] ? w[DM_P_SIZE + d] : 1);
        w[DM_P_DST_STRIDE + d] = (uint32_t)((uint64_t)g->stride[DM_SLOT_DST][d] * g->esize);
        w[DM_P_SRC_STRIDE + d] = (uint32_t)((uint64_t)g->stride[DM_SLOT_SRC][d] * g->esize);
        w[DM_P_AUX_STRIDE + d] = (uint32_t)((uint64_t)g->stride[DM_SLOT_AUX][d] * g->aux_esize);
        for (int s = 0; s < DM_SLOT_COUNT; s++) origin[s] += (int64_t)b->lo[d] * g->stride[s][d];
    }
    /* The innermost dimension's strides again, at fixed words: a kernel reads a record word
     * where it uses it (no index known only at run time). */
    w[DM_P_SRC_STEP] = w[DM_P_SRC_STRIDE + last];
    w[DM_P_AUX_STEP] = w[DM_P_AUX_STRIDE + last];
    w[DM_P_DST_STEP] = w[DM_P_DST_STRIDE + last];
    /* AUX2 has no base word: kernels read it at its window's start. */
    static const int base_word[DM_SLOT_AUX2] = {DM_P_DST_BASE, DM_P_SRC_BASE, DM_P_AUX_BASE};
    for (int s = 0; s < DM_SLOT_AUX2; s++)
        if (g->binding[s] >= 0)
            w[base_word[s]] = (uint32_t)((uint64_t)origin[s] * dm_slot_esize(g, s) - p->span[s].lo);
}

/* The byte phase of a box's first output element in its chunk (bindings start on 16 bytes). */
static uint32_t dm_box_phase(const dm_gather *g, const dm_box *b)
{
    int64_t origin = g->base[DM_SLOT_DST];
    for (uint32_t d = 0; d < g->rank; d++) origin += (int64_t)b->lo[d] * g->stride[DM_SLOT_DST][d];
    return (uint32_t)(((uint64_t)origin * g->esize) % 16);
}

/* The GPU tiles' words of a piece (glsl/gather_tiles.glsl) and the invocations its grid
 * is sized by: a workgroup a tile. V_TILES: chunks per tile (what a lane's TILE_V stages
 * hold, or the shared memory at the gather's step), tiles, tiles per row and its divisor.
 * V_TILE_HOT: chunks per tile (a power of two, its log2 in TILE_PER: up to 16 a lane, as
 * many as keep the rows met and their indices in shared memory), the row length's
 * divisor, and the rows and columns a lane's next chunk, WG chunks on, lies further.
 * V_TILE_COLUMNS: chunks per row of a column block (a power of two, its log2 in
 * TILE_PER), column blocks, the staged vectors per source row and their divisor. */
static uint64_t dm_tile_params(const dm_gather *g, uint32_t variant, const dm_box *b, uint32_t per_row, uint32_t *w)
{
    const uint32_t wg = g->tile_wg, lds = g->tile_lds, n = 16 / g->esize, last = g->rank - 1;
    const uint32_t m = b->hi[last] - b->lo[last];
    uint64_t rows = 1, tiles;
    for (uint32_t d = 0; d < last; d++) rows *= b->hi[d] - b->lo[d];
    if (variant == DM_VARIANT_TILES || variant == DM_VARIANT_TILE_ROWS) {
        /* Segments of S chunks (a power of two), G rows of them a tile, within a lane's
         * TILE_V chunks and shared memory: a row's region of S * step + 4 vectors holds its
         * segment's backward and forward sources, and two vectors its geometry. Short rows:
         * a row a segment, as many rows as fit; long ones: the longest segment that fits, a
         * row a tile. Rows that all start at one phase (P_PHASED) span exactly the chunks
         * the first does. */
        const uint64_t slots = (uint64_t)wg * g->tile_v, k = dm_kernel_tile_step(g);
        const uint32_t spans = w[DM_P_PHASED] ? (uint32_t)(((uint64_t)dm_box_phase(g, b) + (uint64_t)m * g->esize + 15) / 16)
                                              : per_row;
        /* TILE_ROWS stages nothing: its tiles are what the lanes' TILE_V chunks hold. */
        const uint64_t room = variant == DM_VARIANT_TILE_ROWS ? UINT32_MAX : lds;
        uint64_t S = 1;
        while (S * 2 <= slots && (S * 2) * k + 6 <= room && S < spans) S *= 2;
        const uint64_t G = dm_min_u64(slots / S, room / (S * k + 6)); /* >= 1: dm_kernel_tile takes k + 6 <= lds */
        per_row = spans;
        const uint64_t spr = (per_row + S - 1) / S;
        tiles = (rows + G - 1) / G * spr;
        w[DM_P_TILE_CHUNKS] = (uint32_t)S;
        w[DM_P_TILE_PER] = (uint32_t)spr;
        dm_put_divisor(w, DM_P_TILE_MAGIC, (uint32_t)spr);
        w[DM_P_TILE_STEP_ROWS] = (uint32_t)G;
        w[DM_P_TILE_STEP_COLS] = dm_log2_u32((uint32_t)S);
        w[DM_P_TILE_SPAN] = (uint32_t)(S * k + 4);
        dm_put_divisor(w, DM_P_SPAN_MAGIC, (uint32_t)(S * k + 4));
    } else if (variant == DM_VARIANT_TILE_HOT) {
        uint32_t tc = wg * 16;
        for (;;) { /* rows a tile meets, and their indices' vectors, in shared memory */
            const uint64_t met = ((uint64_t)tc * n + m - 1) / m + 1, vecs = (met * g->aux_esize + 15) / 16 + 1;
            if (tc == 1 || (met <= (uint64_t)lds * 4 && vecs <= lds)) break;
            tc /= 2;
        }
        const uint64_t chunks = (rows * m * g->esize + 15) / 16 + 1;
        tiles = (chunks + tc - 1) / tc;
        w[DM_P_TILE_CHUNKS] = tc;
        w[DM_P_TILE_PER] = dm_log2_u32(tc);
        w[DM_P_TILE_STEP_ROWS] = wg * n / m;
        w[DM_P_TILE_STEP_COLS] = wg * n % m;
    } else if (variant == DM_VARIANT_TILE_COLUMNS) {
        uint32_t cbc = 64;
        while (cbc > 1 && dm_kernel_columns_lds(g, cbc) > lds) cbc /= 2;
        tiles = (per_row + cbc - 1) / cbc;
        w[DM_P_TILE_CHUNKS] = cbc;
        w[DM_P_TILE_PER] = dm_log2_u32(cbc);
        w[DM_P_TILE_SPAN] = cbc + 1;
        dm_put_divisor(w, DM_P_SPAN_MAGIC, cbc + 1);
    } else {
        return 0;
    }
    w[DM_P_TILES] = (uint32_t)tiles; /* at most the piece's units, below 2^31 */
    return tiles * wg;
}

void dm_vk_unit_shape(const dm_vk_limits *lim, const dm_gather *g, uint32_t variant, uint32_t *run, uint32_t *lanes)
{
    *run = lim->run;
    *lanes = lim->lanes;
    if (!lim->wide_rows || g->rank == 0) return;
    if (variant != DM_VARIANT_STREAM && variant != DM_VARIANT_ALONG) return;
    if ((uint64_t)g->size[g->rank - 1] * g->esize < 1024) return;
    *run = 8;
    *lanes = lim->workgroup < 32 ? lim->workgroup : 32;
}

/* Splits the gather's output box until every piece's windows fit a binding (and, with
 * `segs`, lie inside one segment of their buffer) and its units fit 32 bits. */
/* The most bytes a piece's slot may span: room for the aligned-down start and the word
 * rounding of every window. */
static uint64_t dm_window_limit(const dm_vk_limits *lim) { return (lim->max_range - lim->align - 4) & ~3ull; }

static dmlops_status dm_split(const dm_vk_limits *lim, const dm_gather *g, const dm_vk_segments *segs,
                              dm_piece_set *set)
{
    const uint64_t limit = dm_window_limit(lim);
    const bool flat = lim->run <= 32 && dm_kernel_flat(g, lim->texel);
    uint32_t run, lanes;
    const uint32_t variant = lim->run <= 32 ? dm_kernel_variant(g, lim->texel) : DM_VARIANT_GENERAL;
    dm_vk_unit_shape(lim, g, variant, &run, &lanes);
    uint32_t run_f, lanes_f;
    const uint32_t fallback = lim->texel ? dm_kernel_variant(g, false) : variant;
    dm_vk_unit_shape(lim, g, fallback, &run_f, &lanes_f);
    dm_box *stack = dm_malloc(64 * DM_MAX_RANK * sizeof *stack);
    uint32_t top = 0;
    if (!stack) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory planning an operator");
    dm_box *b = &stack[top++];
    for (uint32_t d = 0; d < g->rank; d++) {
        b->lo[d] = 0;
        b->hi[d] = g->size[d];
    }
    b->wlo = 0;
    b->whi = g->window ? g->window : 1;
    dmlops_status st = DMLOPS_SUCCESS;
    while (top && st == DMLOPS_SUCCESS) {
        dm_box box = stack[--top];
        dm_vk_piece p;
        uint32_t per_row, mode;
        memset(&p, 0, sizeof p);
        p.units = dm_units(g, &box, &per_row, &mode);
        int split = p.units >= DM_MAX_UNITS ? dm_pick_split(g, &box, -1, flat) : -1;
        for (int s = 0; s < DM_SLOT_COUNT && split < 0 && p.units < DM_MAX_UNITS; s++) {
            if (g->binding[s] < 0) continue;
            dm_span_bytes(g, &box, s, &p.span[s]);
            bool straddles = segs && segs->seg_size[s] &&
                             (segs->base[s] + p.span[s].lo) / segs->seg_size[s] !=
                                 (segs->base[s] + p.span[s].hi - 1) / segs->seg_size[s];
            if (p.span[s].hi - p.span[s].lo > limit || straddles) {
                split = dm_pick_split(g, &box, s, flat);
                if (split < 0) {
                    st = dm_fail(DMLOPS_ERROR_UNSUPPORTED, "one element does not fit a %llu-byte binding window",
                                 (unsigned long long)lim->max_range);
                    break;
                }
            }
        }
        if (st != DMLOPS_SUCCESS) break;
        if (split < 0) {
            p.runs = p.units / per_row * ((per_row + run - 1) / run);
            uint32_t *record = dm_push_piece(set, &p);
            if (!record) {
                st = set->n == DM_MAX_PIECES ? DMLOPS_ERROR_UNSUPPORTED : DMLOPS_ERROR_OUT_OF_HOST_MEMORY;
                break;
            }
            dm_fill_params(g, &box, &p, record);
            dm_vk_piece *made = &set->pieces[set->n - 1];
            const uint64_t tile_runs = dm_tile_params(g, variant, &box, per_row, record);
            if (tile_runs) made->runs = tile_runs;
            /* The module's variant and, on the texel path, the storage-buffer module's, which
             * a binding whose buffers lack texel usage takes (vk_binding.c) with the same
             * records: both their unit plans, and a grid that bounds both. */
            const uint32_t phase = dm_box_phase(g, &box);
            dm_unit_params(g, variant, run, lanes, phase, record);
            dm_vk_piece_grid(lim, g, variant, run, lanes, record, made);
            if (fallback != variant) {
                const uint32_t vgroups = made->vgroups;
                dm_unit_params(g, fallback, run_f, lanes_f, phase, record);
                dm_vk_piece_grid(lim, g, fallback, run_f, lanes_f, record, made);
                if (vgroups > made->vgroups) made->vgroups = vgroups;
            }
            continue;
        }
        /* Halve and push both sides; depth stays within 64 halvings per dimension. */
        dm_box a = box, z = box;
        if (split == (int)g->rank) {
            a.whi = z.wlo = box.wlo + (box.whi - box.wlo) / 2;
        } else {
            a.hi[split] = z.lo[split] = box.lo[split] + (box.hi[split] - box.lo[split]) / 2;
        }
        stack[top++] = z;
        stack[top++] = a;
    }
    free(stack);
    return st;
}

void dm_vk_regions_add(void *regions, uint64_t src, uint64_t dst, uint64_t bytes)
{
    dm_vk_regions *r = regions;
    src += r->src_base;
    dst += r->dst_base;
    VkBufferCopy *prev = r->n ? &r->r[r->n - 1] : NULL;
    if (prev && prev->srcOffset + prev->size == src && prev->dstOffset + prev->size == dst) prev->size += bytes;
    else if (r->r && r->n < r->cap) r->r[r->n++] = (VkBufferCopy){src, dst, bytes};
    else r->full = true;
}

/* Rows that are long contiguous copies become copy regions: now when their sources
 * follow from the coordinates, else (the AUX data decides them, and the host can read
 * it where it lies: unified memory) per execution, from slab_rows rows. */
static dmlops_status dm_plan_copies(const dm_vk_limits *lim, dm_vk_plan *plan)
{
    const dm_gather *g = &plan->g;
    const uint32_t last = g->rank - 1;
    if (!g->slabs || !dm_gather_rows_contiguous(g) || (lim->flags & DMLOPS_CONTEXT_FLAG_KERNELS_ONLY))
        return DMLOPS_SUCCESS;
    uint64_t run = (uint64_t)g->size[last] * g->esize, rows = 1;
    for (uint32_t d = 0; d < last; d++) rows *= g->size[d];
    if (rows > DM_MAX_REGIONS || (run < lim->copy_min_bytes && !(lim->flags & DMLOPS_CONTEXT_FLAG_PREFER_COPY)))
        return DMLOPS_SUCCESS;
    if (g->binding[DM_SLOT_AUX] >= 0) {
        if (lim->uma) plan->slab_rows = (uint32_t)rows;
        return DMLOPS_SUCCESS;
    }
    dm_vk_regions r = {.r = dm_malloc(rows * sizeof *r.r), .cap = (uint32_t)rows};
    if (!r.r) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory planning copy regions");
    if (!g->slabs(g, NULL, dm_vk_regions_add, &r) || r.full) {
        free(r.r);
        return DMLOPS_SUCCESS;
    }
    plan->regions = r.r;
    plan->nregions = r.n;
    plan->use_copy = true;
    return DMLOPS_SUCCESS;
}

/* Whether one output row of g spans more than half a window in some slot (its source
 * window, which pieces may cut, left aside). The flat walk's pieces hold whole rows; rows
 * that outgrow a window would be cut apart, element by element where the slot's row
 * stride is large (SLICE1 of a column-major [12000, 5] FLOAT32 source with 64 KiB windows
 * took 36000 dispatches, and [70000, 5] was refused for needing more than 65536 pieces),
 * and rows just inside one leave room for few more rows per piece (a column-major
 * [65515, 2] UINT8 source, whose row spans all but 20 bytes of a 64 KiB window: 65515
 * dispatches). From half a window on, the row path cuts columns instead. */
static bool dm_plan_rows_cut(const dm_vk_limits *lim, const dm_gather *g)
{
    if (g->rank != 2 || !dm_kernel_rows_packed(g)) return false;
    const dm_box row = {.lo = {0, 0}, .hi = {1, g->size[1]}, .wlo = 0, .whi = 1};
    for (int s = 0; s < DM_SLOT_COUNT; s++) {
        if (g->binding[s] < 0) continue;
        dm_vk_span span;
        dm_span_bytes(g, &row, s, &span);
        if (span.hi - span.lo > dm_window_limit(lim) / 2) return true;
    }
    return false;
}

/* Whether some of the n pieces (their parameter records) binds only part of the source
 * window, REVERSE's axis. */
static bool dm_pieces_split_axis(const dm_gather *g, const uint32_t *params, uint32_t n)
{
    for (uint32_t i = 0; i < n && g->window; i++) {
        const uint32_t *w = params + (size_t)i * DM_P_WORDS;
        if (w[DM_P_WIN_LO] > 0 || w[DM_P_WIN_HI] < g->window) return true;
    }
    return false;
}

dm_vk_limits dm_vk_path_limits(const dm_vk_limits *lim, bool texel)
{
    dm_vk_limits path = *lim;
    path.texel = texel && lim->texel;
    if (path.texel) path.max_range = dm_min_u64(lim->max_range, lim->texel_range);
    return path;
}

/* Plans g for one path: lim is dm_vk_path_limits'. */
static dmlops_status dm_vk_plan_path(const dm_vk_limits *lim, const dm_gather *g, dm_vk_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->g = *g;
    plan->texel = lim->texel;
    plan->g.rows_cut = dm_plan_rows_cut(lim, g);
    /* The GPU tiles (kernels.c) where the device takes them and this path is storage buffers. */
    plan->g.tile_lds = lim->texel ? 0 : lim->tile_lds;
    plan->g.tile_wg = lim->workgroup;
    plan->g.tile_v = lim->tile_v;
    dm_piece_set set = {0};
    dmlops_status st = dm_split(lim, &plan->g, NULL, &set);
    plan->pieces = set.pieces;
    plan->params = set.params;
    plan->npieces = set.n;
    plan->axis_split = dm_pieces_split_axis(g, set.params, set.n);
    if (st == DMLOPS_SUCCESS) st = dm_plan_copies(lim, plan);
    /* The fast path keeps a bit per chunk of a run. */
    plan->fast = lim->run <= 32 && dm_kernel_variant(&plan->g, lim->texel) != DM_VARIANT_GENERAL;
    if (st != DMLOPS_SUCCESS) dm_vk_plan_free(plan);
    return st;
}

dmlops_status dm_vk_plan_gather(const dm_vk_limits *lim, const dm_gather *g, dm_vk_plan *plan)
{
    const dm_vk_limits texel = dm_vk_path_limits(lim, true), storage = dm_vk_path_limits(lim, false);
    if (!texel.texel) return dm_vk_plan_path(&storage, g, plan);
    dmlops_status st = dm_vk_plan_path(&texel, g, plan);
    /* Texel windows as large as storage ones split alike; one window cannot do better;
     * running out of host memory is not the layout's fault. */
    if (texel.max_range >= storage.max_range || (st == DMLOPS_SUCCESS && plan->npieces <= 1) ||
        (st != DMLOPS_SUCCESS && st != DMLOPS_ERROR_UNSUPPORTED))
        return st;
    /* Smaller texel windows (the spec's minimum maxTexelBufferElements makes them 256 KiB):
     * storage buffers where they need fewer dispatches, or where the texel path's would
     * pass the planner's cap. Texel loads are faster per byte on CPU devices, so they
     * keep every operator they serve in as few dispatches. */
    dm_vk_plan other;
    const dmlops_status so = dm_vk_plan_path(&storage, g, &other);
    if (so == DMLOPS_SUCCESS && (st != DMLOPS_SUCCESS || other.npieces < plan->npieces)) {
        if (st == DMLOPS_SUCCESS) dm_vk_plan_free(plan);
        *plan = other;
        return DMLOPS_SUCCESS;
    }
    if (so == DMLOPS_SUCCESS) dm_vk_plan_free(&other);
    return st == DMLOPS_SUCCESS ? st : so; /* both refused: the larger windows' reason */
}

dmlops_status dm_vk_plan_segments(const dm_vk_limits *lim, const dm_gather *g, const dm_vk_segments *segs,
                                  dm_vk_piece **pieces, uint32_t **params, uint32_t *npieces, bool *axis_split)
{
    dm_piece_set set = {0};
    dmlops_status st = dm_split(lim, g, segs, &set);
    if (st != DMLOPS_SUCCESS) {
        free(set.pieces);
        free(set.params);
        return st;
    }
    *pieces = set.pieces;
    *params = set.params;
    *npieces = set.n;
    *axis_split = dm_pieces_split_axis(g, set.params, set.n);
    return DMLOPS_SUCCESS;
}

bool dm_vk_copy_texel(const dm_vk_limits *lim)
{
    /* The copy's source view is 16-byte texels: 4 times the bytes of texel_range's. */
    return lim->texel && dm_vk_copy_window(lim) / 4 <= lim->texel_range;
}

uint64_t dm_vk_copy_window(const dm_vk_limits *lim)
{
    /* A window starts at most align - 16 bytes before its data (offsets are multiples of
     * 16); counts stay far below 2^32 vectors since max_range is a 32-bit limit. */
    return (lim->max_range - lim->align) & ~15ull;
}

uint32_t dm_vk_copy_groups(const dm_vk_limits *lim, uint64_t bytes, const dmlops_compute_copy_shape *shape)
{
    const uint64_t per_group = (uint64_t)shape->workgroup_size * shape->vectors; /* vectors a group moves per step */
    uint64_t groups = shape->workgroup_count ? shape->workgroup_count : (bytes / 16 + per_group - 1) / per_group;
    uint64_t cap = lim->max_groups[0] < DM_COPY_MAX_GROUPS ? lim->max_groups[0] : DM_COPY_MAX_GROUPS;
    return (uint32_t)(groups < cap ? groups : cap);
}

void dm_vk_plan_free(dm_vk_plan *plan)
{
    free(plan->pieces);
    free(plan->params);
    free(plan->regions);
    plan->pieces = NULL;
    plan->params = NULL;
    plan->regions = NULL;
    plan->npieces = plan->nregions = 0;
}
