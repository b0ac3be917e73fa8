/* Collapsing gather descriptions, walking them in row segments, and the row copies of
 * affine gathers. */
#include "gather.h"

static void dm_gather_remove_dim(dm_gather *g, uint32_t d)
{
    for (uint32_t i = d; i + 1 < g->rank; i++) {
        g->size[i] = g->size[i + 1];
        for (uint32_t s = 0; s < DM_SLOT_COUNT; s++) g->stride[s][i] = g->stride[s][i + 1];
    }
    g->rank--;
    if (g->axis > (int32_t)d) g->axis--;
}

void dm_gather_collapse(dm_gather *g)
{
    for (uint32_t d = g->rank; d-- > 0 && g->rank > 1;)
        if (g->size[d] == 1 && (int32_t)d != g->axis) dm_gather_remove_dim(g, d);
    for (uint32_t d = g->rank - 1; d-- > 0;) {
        /* Merge d+1 into d when stepping d once equals stepping d+1 size[d+1] times. */
        if ((int32_t)d == g->axis || (int32_t)d + 1 == g->axis) continue;
        bool nest = true;
        for (uint32_t s = 0; s < DM_SLOT_COUNT && nest; s++)
            nest = g->stride[s][d] == g->stride[s][d + 1] * (int64_t)g->size[d + 1];
        if (!nest) continue;
        uint64_t merged = (uint64_t)g->size[d] * g->size[d + 1];
        if (merged > UINT32_MAX) continue;
        g->size[d] = (uint32_t)merged;
        for (uint32_t s = 0; s < DM_SLOT_COUNT; s++) g->stride[s][d] = g->stride[s][d + 1];
        dm_gather_remove_dim(g, d + 1);
    }
}

void dm_gather_order_by_output(dm_gather *g)
{
    bool moved = false;
    for (uint32_t i = 1; i < g->rank; i++) /* insertion sort: stable, rank <= 8 */
        for (uint32_t d = i; d > 0 && g->stride[DM_SLOT_DST][d - 1] < g->stride[DM_SLOT_DST][d]; d--) {
            const uint32_t size = g->size[d];
            g->size[d] = g->size[d - 1];
            g->size[d - 1] = size;
            for (uint32_t s = 0; s < DM_SLOT_COUNT; s++) {
                const int64_t t = g->stride[s][d];
                g->stride[s][d] = g->stride[s][d - 1];
                g->stride[s][d - 1] = t;
            }
            if (g->axis == (int32_t)d) g->axis = (int32_t)d - 1;
            else if (g->axis == (int32_t)d - 1) g->axis = (int32_t)d;
            moved = true;
        }
    if (moved) dm_gather_collapse(g);
}

uint64_t dm_gather_elements(const dm_gather *g)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < g->rank; d++) n *= g->size[d]; /* < 2^32: a tensor's count */
    return n;
}

bool dm_gather_rows_contiguous(const dm_gather *g)
{
    const uint32_t last = g->rank - 1;
    return g->stride[DM_SLOT_SRC][last] == 1 && g->stride[DM_SLOT_DST][last] == 1;
}

bool dm_gather_affine_slabs(const dm_gather *g, const uint8_t *aux, dm_slab_sink sink, void *user)
{
    (void)aux;
    const uint32_t last = g->rank - 1;
    const uint64_t run = (uint64_t)g->size[last] * g->esize;
    dm_walk w = {.rank = last, .nstreams = 2};
    w.offset[0] = g->base[DM_SLOT_SRC];
    w.offset[1] = g->base[DM_SLOT_DST];
    for (uint32_t d = 0; d < last; d++) {
        w.sizes[d] = g->size[d];
        w.strides[0][d] = g->stride[DM_SLOT_SRC][d];
        w.strides[1][d] = g->stride[DM_SLOT_DST][d];
    }
    do {
        sink(user, (uint64_t)w.offset[0] * g->esize, (uint64_t)w.offset[1] * g->esize, run);
    } while (dm_walk_next(&w));
    return true;
}

bool dm_rows_begin(dm_rows *r, const dm_gather *g, uint64_t e0, uint64_t e1)
{
    r->g = g;
    r->last = g->rank - 1;
    if (e0 >= e1) return false;
    const uint64_t m = g->size[r->last];
    uint64_t row = e0 / m;
    for (uint32_t s = 0; s < DM_SLOT_COUNT; s++) r->off[s] = 0;
    for (uint32_t d = r->last; d-- > 0;) {
        r->coord[d] = (uint32_t)(row % g->size[d]);
        row /= g->size[d];
        for (uint32_t s = 0; s < DM_SLOT_COUNT; s++) r->off[s] += (int64_t)r->coord[d] * g->stride[s][d];
    }
    r->c0 = (uint32_t)(e0 % m);
    uint64_t c1 = r->c0 + (e1 - e0);
    r->c1 = (uint32_t)(c1 < m ? c1 : m);
    r->left = e1 - e0 - (r->c1 - r->c0);
    return true;
}

bool dm_rows_next(dm_rows *r)
{
    if (!r->left) return false;
    const dm_gather *g = r->g;
    for (uint32_t d = r->last; d-- > 0;) {
        if (++r->coord[d] < g->size[d]) {
            for (uint32_t s = 0; s < DM_SLOT_COUNT; s++) r->off[s] += g->stride[s][d];
            break;
        }
        r->coord[d] = 0;
        for (uint32_t s = 0; s < DM_SLOT_COUNT; s++) r->off[s] -= g->stride[s][d] * (int64_t)(g->size[d] - 1);
    }
    const uint64_t m = g->size[r->last];
    r->c0 = 0;
    r->c1 = (uint32_t)(r->left < m ? r->left : m);
    r->left -= r->c1;
    return true;
}

uint64_t dm_rows_batch(const dm_rows *r)
{
    const dm_gather *g = r->g;
    const uint64_t m = g->size[r->last];
    if (r->last == 0 || r->c0 != 0 || r->c1 != m) return 1;
    const uint64_t along = g->size[r->last - 1] - r->coord[r->last - 1], whole = 1 + r->left / m;
    return along < whole ? along : whole;
}

void dm_rows_skip(dm_rows *r, uint64_t k)
{
    const dm_gather *g = r->g;
    const uint32_t d = r->last - 1;
    if (k <= 1) return;
    r->coord[d] += (uint32_t)(k - 1);
    for (uint32_t s = 0; s < DM_SLOT_COUNT; s++) r->off[s] += (int64_t)(k - 1) * g->stride[s][d];
    r->left -= (k - 1) * g->size[r->last];
}

dm_prefetch dm_rows_prefetch(const dm_gather *g, int64_t elem_step)
{
    if (g->rank < 2) return (dm_prefetch){0, 0};
    const uint32_t last = g->rank - 1;
    return dm_prefetch_plan(g->stride[DM_SLOT_SRC][last - 1] * (int64_t)g->esize, elem_step, g->size[last], g->esize,
                            g->size[last - 1]);
}
