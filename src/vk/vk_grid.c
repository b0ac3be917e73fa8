/* The work of one kernel invocation and of one dispatch (vk_plan.h, dm_vk_piece_grid).
 *
 * Every kernel loops over its piece's work as one grid would (grid_group() and
 * grid_groups() in glsl/gather_common.glsl): items (units, runs, tiles) by a grid stride.
 * With a grid capped small (DMLOPS_VK_GRID, DMLOPS_VK_WORKGROUP) or a piece large, one
 * invocation would loop over all the rest: lavapipe ends a shader invocation's loops after
 * 65535 iterations in all (gallivm's loop limiter, counted over every loop of a batch of
 * lanes), which left REVERSE [2000, 256] UINT8 at DMLOPS_VK_GRID=1 DMLOPS_VK_WORKGROUP=1
 * DMLOPS_VK_RUN=1 with 360,793 of its 512,000 bytes unwritten and no error (issue 45);
 * and a GPU's watchdog ends a dispatch that runs too long (a job timeout on mobile GPUs,
 * TDR on Windows). So the kernels stride over a virtual grid as large as the work needs,
 * and the piece is recorded as several dispatches of the real grid, each running the
 * virtual grid's workgroups from its push constant group0 on (vk_record.c).
 *
 * Each path's items and what one item may cost a lane in loop iterations are bounded
 * here from its code, conservatively (every chunk of an item taking the element path,
 * every loop counted, unrolled or not): the costs below follow the loops of
 * glsl/gather_main.glsl, gather_tiles.glsl and the kernels' own files, and change with
 * them. test_work_bounds runs every path at the smallest grid against the CPU backend. */
#include "../checked.h"
#include "vk_abi.h"
#include "vk_plan.h"

/* Loop iterations one invocation may run in all: lavapipe's limit (LP_MAX_TGSI_LOOP_ITERATIONS,
 * 65535) less room for the loops outside the work loops (their setup, a piece's ends). */
#define DM_VK_LOOP_BUDGET 49152u
/* Room within the budget for those, per invocation (flat_ends, the lanes' setup). */
#define DM_VK_LOOP_SETUP 256u
/* Output bytes one dispatch writes at most: 256 MiB, about 0.1 s at a Raspberry Pi 4's
 * few GB/s, far inside any watchdog, and 60 us on an H200, where a dispatch costs a few. */
#define DM_VK_DISPATCH_BYTES (256ull << 20)

/* The items of a piece's work loop and what one costs: per lane group of `lanes`
 * invocations (a grid of V invocations strides by V / lanes), or per workgroup (tiles). */
typedef struct dm_work {
    uint64_t items;
    uint64_t cost;   /* loop iterations of one item, at most */
    uint32_t lanes;  /* invocations that share an item (the grid's stride is over lane groups) */
    bool per_group;  /* items are the workgroups' own (the GPU tiles) */
} dm_work;

/* b of 0 counts as 1: the planner's run and lanes are at least 1, which the analyzer
 * cannot see through the limits they come from. */
static uint64_t dm_ceil_div(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : a; }

/* The largest power of two at most v (v >= 1). */
static uint64_t dm_pow2_floor(uint64_t v)
{
    uint64_t p = 1;
    while (p * 2 <= v) p *= 2;
    return p;
}

/* The work of a piece whose parameter record is w, under the module's variant and the
 * pipeline's RUN and LANES (dm_vk_unit_shape). n: elements per 16-byte chunk, each of
 * which the element path takes in a loop. */
static dm_work dm_piece_work(const dm_vk_limits *lim, const dm_gather *g, uint32_t variant, uint32_t run,
                             uint32_t lanes, const uint32_t *w)
{
    const uint64_t n = 16 / g->esize, per_row = w[DM_P_PER_ROW] ? w[DM_P_PER_ROW] : 1;
    const uint64_t rows = w[DM_P_UNITS] / per_row, m = w[DM_P_M];
    const uint64_t chunks = (rows * m * g->esize + 15) / 16 + 1;
    const uint64_t wg = lim->workgroup, tv = lim->tile_v ? lim->tile_v : 1, lds = lim->tile_lds ? lim->tile_lds : 1;
    /* A TILE_STAGE loop (gather_tiles.glsl) over up to LDS_VECS vectors: wg * (TILE_V + 1) a pass. */
    const uint64_t stage = dm_ceil_div(lds, wg * (tv + 1)) + 1;
    /* A chunk by the element path: element_chunk / flat_edge, n elements then 4 words. */
    const uint64_t elem = n + 6;
    dm_work k = {.items = 1, .cost = 1, .lanes = 1, .per_group = false};
    const bool hot = g->kernel == DM_KERNEL_ONE_HOT;
    switch (variant) {
    case DM_VARIANT_TILES: /* tiles_rows_main: TILE_V chunks a lane, the turn element by element, the slow ones */
        k = (dm_work){w[DM_P_TILES], tv * (n + 2) + stage + tv * (elem + 1) + 4, 1, true};
        break;
    case DM_VARIANT_TILE_ROWS: /* tile_rows_main: TILE_V chunks a lane, loaded straight, the slow ones */
        k = (dm_work){w[DM_P_TILES], tv * (elem + 2) + 2, 1, true};
        break;
    case DM_VARIANT_TILE_COLUMNS: { /* tiles_columns_main: lengths and rows staged, the block's chunks, each
                                      reading its n lengths twice or going element by element */
        const uint64_t R = g->rank > 1 ? w[DM_P_SIZE] : 1, cbc = w[DM_P_TILE_CHUNKS] ? w[DM_P_TILE_CHUNKS] : 1;
        k = (dm_work){w[DM_P_TILES], dm_ceil_div(R * cbc, wg) * (elem + 2 * n + 2) + 2 * stage + 2, 1, true};
        break;
    }
    case DM_VARIANT_TILE_HOT: /* tiles_hot_main: indices staged, up to 16 chunks a lane, each meeting up to n + 1 rows */
        k = (dm_work){w[DM_P_TILES], 16 * (n + 3) + stage + 2, 1, true};
        break;
    case DM_VARIANT_FLAT:
        if (!hot) { /* flat_lanes over flat_elem: each chunk n elements, the refused ones again */
            k = (dm_work){dm_ceil_div(chunks, (uint64_t)run * lanes) * lanes, run * (2 * n + 8) + 3, lanes, false};
        } else if (m < n) { /* flat_lanes twice (the rows Aux4T holds, the rest): up to n + 1 rows a chunk */
            k = (dm_work){(dm_ceil_div(chunks, (uint64_t)run * lanes) + 1) * lanes, run * (n + 3) + 2, lanes, false};
        } else { /* flat_two_rows */
            k = (dm_work){dm_ceil_div(chunks, run), run + 2, 1, false};
        }
        break;
    case DM_VARIANT_FLAT_ROWS: {
        const uint64_t cpr = m / n ? m / n : 1;
        if (cpr * 2 > run) { /* flat_long_rows twice: units of up to FLAT_SPAN_MAX chunks, a row's OnValue each */
            const uint64_t first = (uint64_t)run * lanes, cap = first > 4096 ? first : 4096;
            const uint64_t span = dm_min_u64(cap, dm_pow2_floor(cpr) > first ? dm_pow2_floor(cpr) : first);
            k = (dm_work){(dm_ceil_div(chunks, first) + 1) * lanes, span / lanes + span / cpr + 4, lanes, false};
        } else { /* flat_rows_lanes twice: RUN / cpr rows a lane, whole */
            const uint64_t rr = (uint64_t)run / cpr * lanes;
            k = (dm_work){(dm_ceil_div(rows, rr) + 1) * lanes, (run / cpr + 1) * (cpr + 1) + 2, lanes, false};
        }
        /* A piece that does not start on a chunk (never with bindings on 16 bytes): flat_two_rows. */
        const dm_work two = {dm_ceil_div(chunks, run), run + 2, 1, false};
        if (two.items * two.cost > k.items * k.cost) k = two;
        break;
    }
    default: { /* units_main in gather_main.glsl: the host's units (dm_unit_params), lanes sharing a run */
        const uint64_t G = w[DM_P_UNIT_ROWS] ? w[DM_P_UNIT_ROWS] : 1;
        /* A unit's rows, their whole chunks (RUN at most in all), then up to RUN by the
         * element path, their rows found again; the general path's chunks or elements, each
         * chunk by the element path at worst. Items count per lane group. */
        /* Each row found (row_at_loop) is a loop over its row dimensions, of which
         * modules of 3 and 7 have up to rank - 1 (one has none: row_at). */
        const uint64_t dims = g->rank > 2 ? g->rank - 1 : 0;
        const uint64_t fast = 2 * G * (1 + dims) + run + run * (elem + 1) + 4,
                       general = (uint64_t)run * (elem + 1) + 2 + dims;
        const uint64_t l = w[DM_P_LANES] ? w[DM_P_LANES] : 1;
        k = variant != DM_VARIANT_GENERAL ? (dm_work){(uint64_t)w[DM_P_ITEMS] * l, fast, (uint32_t)l, false}
                                          : (dm_work){w[DM_P_G_ITEMS], general, 1, false};
        break;
    }
    }
    return k;
}

void dm_vk_piece_grid(const dm_vk_limits *lim, const dm_gather *g, uint32_t variant, uint32_t run, uint32_t lanes,
                      const uint32_t *record, dm_vk_piece *p)
{
    const uint64_t wg = lim->workgroup;
    /* The real grid of each dispatch: a workgroup per WG runs (or tiles), capped. */
    const uint64_t cap = dm_min_u64(lim->grid_cap, (uint64_t)lim->max_groups[0] * lim->max_groups[1]);
    const uint64_t groups = dm_max_u64(dm_min_u64(dm_ceil_div(p->runs ? p->runs : 1, wg), cap), 1);
    const dm_work k = dm_piece_work(lim, g, variant, run, lanes, record);
    /* Items an invocation (or a workgroup) may take: at least one, whatever the cost. */
    const uint64_t per = dm_max_u64((DM_VK_LOOP_BUDGET - DM_VK_LOOP_SETUP) / k.cost, 1);
    const uint64_t need = k.per_group ? dm_ceil_div(k.items, per) : dm_ceil_div(dm_ceil_div(k.items, per), wg);
    /* As many dispatches as keep each one's output within DM_VK_DISPATCH_BYTES. */
    const uint64_t bytes = p->span[DM_SLOT_DST].hi - p->span[DM_SLOT_DST].lo;
    const uint64_t by_bytes = groups * dm_ceil_div(bytes, DM_VK_DISPATCH_BYTES);
    uint64_t vgroups = dm_max_u64(groups, dm_max_u64(need, by_bytes));
    /* Invocation indices stay 32-bit: the items are below 2^31, so this cap binds only
     * where items are fewer than invocations anyway. */
    vgroups = dm_min_u64(vgroups, (UINT32_MAX / 2) / wg);
    p->groups = (uint32_t)groups;
    p->vgroups = (uint32_t)vgroups;
}

uint64_t dm_vk_plan_dispatches(const dm_vk_piece *pieces, uint32_t n)
{
    uint64_t d = 0;
    for (uint32_t i = 0; i < n; i++) d += dm_ceil_div(pieces[i].vgroups, pieces[i].groups ? pieces[i].groups : 1);
    return d;
}
