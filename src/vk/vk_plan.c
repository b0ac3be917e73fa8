/* Planning an operator for the device: collapse it into a gather, then split the output
 * box into pieces whose bindings each fit one storage-buffer window (and whose work fits
 * 32-bit unit indices), or turn it into vkCmdCopyBuffer regions when it is a set of
 * long contiguous runs. Every size here derives from a validated descriptor whose
 * tensors are below 2^62 bytes, so 64-bit signed sums cannot overflow. */
#include <stdlib.h>
#include <string.h>

#include "../checked.h"
#include "../elements.h"
#include "vk_internal.h"

enum { DM_MAX_PIECES = 1 << 16, DM_MAX_REGIONS = 1 << 18 };
#define DM_MAX_UNITS (1ull << 31)

typedef struct dm_box {
    uint32_t lo[DM_MAX_RANK], hi[DM_MAX_RANK];
    uint32_t wlo, whi; /* REVERSE: source axis coordinates this piece may read */
} dm_box;

static uint32_t dm_slot_esize(const dm_gather *g, int slot)
{
    return slot == DM_SLOT_AUX ? g->aux_esize : g->esize;
}

/* Element span [lo, hi] (inclusive) of a slot over a box. */
static void dm_span_elems(const dm_gather *g, const dm_box *b, int slot, int64_t *lo, int64_t *hi)
{
    int64_t mn = 0, mx = 0;
    if (slot == DM_SLOT_SRC && g->kernel == DM_KERNEL_SLICE) mn = mx = g->src_base;
    if (slot == DM_SLOT_SRC && g->kernel == DM_KERNEL_REVERSE) {
        mn += (int64_t)b->wlo * g->axis_src_stride;
        mx += (int64_t)(b->whi - 1) * g->axis_src_stride;
    }
    if (slot == DM_SLOT_AUX2) mn = mx = (int64_t)g->aux2_offset;
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

/* The dimension (or, returning rank, the REVERSE source window) whose halving shrinks
 * the slot's span most; -1 when nothing can be split. */
static int dm_pick_split(const dm_gather *g, const dm_box *b, int slot)
{
    int best = -1;
    uint64_t best_w = 0;
    for (uint32_t d = 0; d < g->rank; d++) {
        uint32_t ext = b->hi[d] - b->lo[d];
        int64_t s = slot < 0 ? 1 : g->stride[slot][d]; /* slot < 0: split the longest */
        uint64_t w = ext > 1 ? (uint64_t)(ext - 1) * (uint64_t)(s < 0 ? -s : s) : 0;
        if (w > best_w) {
            best_w = w;
            best = (int)d;
        }
    }
    if (slot == DM_SLOT_SRC && g->kernel == DM_KERNEL_REVERSE && b->whi - b->wlo > 1 &&
        (uint64_t)(b->whi - b->wlo - 1) * (uint64_t)g->axis_src_stride > best_w)
        best = (int)g->rank;
    return best;
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
        dm_vk_piece *q = realloc(set->pieces, n * sizeof *q);
        if (q) set->pieces = q;
        uint32_t *w = q ? realloc(set->params, (size_t)n * DM_P_WORDS * sizeof *w) : NULL;
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
    w[DM_P_WIN_LO] = g->kernel == DM_KERNEL_REVERSE ? b->wlo : 0;
    w[DM_P_WIN_HI] = g->kernel == DM_KERNEL_REVERSE ? b->whi : UINT32_MAX;
    w[DM_P_AUX_TYPE] = g->aux_type;
    w[DM_P_M] = b->hi[last] - b->lo[last];
    w[DM_P_AXIS_SRC_STRIDE] = (uint32_t)((uint64_t)g->axis_src_stride * g->esize);
    /* Offsets of the piece origin inside each window; they may wrap (see the shader). */
    int64_t origin[DM_SLOT_COUNT] = {0, g->kernel == DM_KERNEL_SLICE ? g->src_base : 0, 0, 0};
    for (uint32_t d = 0; d < g->rank; d++) {
        w[DM_P_SIZE + d] = b->hi[d] - b->lo[d];
        w[DM_P_DST_STRIDE + d] = (uint32_t)((uint64_t)g->stride[DM_SLOT_DST][d] * g->esize);
        w[DM_P_SRC_STRIDE + d] = (uint32_t)((uint64_t)g->stride[DM_SLOT_SRC][d] * g->esize);
        w[DM_P_AUX_STRIDE + d] = (uint32_t)((uint64_t)g->stride[DM_SLOT_AUX][d] * g->aux_esize);
        for (int s = 0; s < DM_SLOT_AUX2; s++) origin[s] += (int64_t)b->lo[d] * g->stride[s][d];
    }
    w[DM_P_DST_BASE] = (uint32_t)((uint64_t)origin[DM_SLOT_DST] * g->esize - p->span[DM_SLOT_DST].lo);
    if (g->kernel != DM_KERNEL_ONE_HOT)
        w[DM_P_SRC_BASE] = (uint32_t)((uint64_t)origin[DM_SLOT_SRC] * g->esize - p->span[DM_SLOT_SRC].lo);
    if (g->binding[DM_SLOT_AUX] >= 0)
        w[DM_P_AUX_BASE] = (uint32_t)((uint64_t)origin[DM_SLOT_AUX] * g->aux_esize - p->span[DM_SLOT_AUX].lo);
}

/* Splits the gather's output box until every piece's windows fit a binding (and, with
 * `segs`, lie inside one segment of their buffer) and its units fit 32 bits. */
static dmlops_status dm_split(const dm_vk_ctx *vk, const dm_gather *g, const dm_vk_segments *segs, dm_piece_set *set)
{
    /* Room for the aligned-down start and the word rounding of every window. */
    const uint64_t limit = (vk->max_range - vk->align - 4) & ~3ull;
    dm_box *stack = malloc(64 * DM_MAX_RANK * sizeof *stack);
    uint32_t top = 0;
    if (!stack) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory planning an operator");
    dm_box *b = &stack[top++];
    for (uint32_t d = 0; d < g->rank; d++) {
        b->lo[d] = 0;
        b->hi[d] = g->size[d];
    }
    b->wlo = 0;
    b->whi = g->kernel == DM_KERNEL_REVERSE ? g->n : 1;
    dmlops_status st = DMLOPS_SUCCESS;
    while (top && st == DMLOPS_SUCCESS) {
        dm_box box = stack[--top];
        dm_vk_piece p;
        uint32_t per_row, mode;
        memset(&p, 0, sizeof p);
        p.units = dm_units(g, &box, &per_row, &mode);
        int split = p.units >= DM_MAX_UNITS ? dm_pick_split(g, &box, -1) : -1;
        for (int s = 0; s < DM_SLOT_COUNT && split < 0 && p.units < DM_MAX_UNITS; s++) {
            if (g->binding[s] < 0) continue;
            dm_span_bytes(g, &box, s, &p.span[s]);
            bool straddles = segs && segs->seg_size[s] &&
                             (segs->base[s] + p.span[s].lo) / segs->seg_size[s] !=
                                 (segs->base[s] + p.span[s].hi - 1) / segs->seg_size[s];
            if (p.span[s].hi - p.span[s].lo > limit || straddles) {
                split = dm_pick_split(g, &box, s);
                if (split < 0) {
                    st = dm_fail(DMLOPS_ERROR_UNSUPPORTED, "one element does not fit a %llu-byte binding window",
                                 (unsigned long long)vk->max_range);
                    break;
                }
            }
        }
        if (st != DMLOPS_SUCCESS) break;
        if (split < 0) {
            p.runs = p.units / per_row * ((per_row + vk->run - 1) / vk->run);
            uint32_t *record = dm_push_piece(set, &p);
            if (!record) {
                st = set->n == DM_MAX_PIECES ? DMLOPS_ERROR_UNSUPPORTED : DMLOPS_ERROR_OUT_OF_HOST_MEMORY;
                break;
            }
            dm_fill_params(g, &box, &p, record);
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

/* SLICE-shaped gathers whose innermost dimension is contiguous on both sides are runs of
 * bytes: one copy region per row. */
static dmlops_status dm_plan_regions(dm_vk_ctx *vk, dm_vk_op *plan)
{
    const dm_gather *g = &plan->g;
    uint32_t last = g->rank - 1;
    if (g->kernel != DM_KERNEL_SLICE || g->stride[DM_SLOT_SRC][last] != 1 || g->stride[DM_SLOT_DST][last] != 1 ||
        (vk->flags & DMLOPS_CONTEXT_FLAG_KERNELS_ONLY))
        return DMLOPS_SUCCESS;
    uint64_t run = (uint64_t)g->size[last] * g->esize, rows = 1;
    for (uint32_t d = 0; d < last; d++) rows *= g->size[d];
    if (rows > DM_MAX_REGIONS || (run < vk->copy_min_bytes && !(vk->flags & DMLOPS_CONTEXT_FLAG_PREFER_COPY)))
        return DMLOPS_SUCCESS;
    plan->regions = malloc(rows * sizeof *plan->regions);
    if (!plan->regions) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory planning copy regions");
    dm_walk w = {.rank = last, .nstreams = 2};
    w.offset[0] = g->src_base;
    for (uint32_t d = 0; d < last; d++) {
        w.sizes[d] = g->size[d];
        w.strides[0][d] = g->stride[DM_SLOT_SRC][d];
        w.strides[1][d] = g->stride[DM_SLOT_DST][d];
    }
    uint32_t n = 0;
    do {
        plan->regions[n++] = (VkBufferCopy){(uint64_t)w.offset[0] * g->esize, (uint64_t)w.offset[1] * g->esize, run};
    } while (dm_walk_next(&w));
    plan->nregions = n;
    plan->use_copy = true;
    return DMLOPS_SUCCESS;
}

/* REVERSE along an outer axis with contiguous innermost runs is a set of slab copies once
 * the lengths are known and equal along each run; executions on devices whose memory the
 * host reads directly build those regions from the lengths (dm_vk_reverse_regions). */
static void dm_plan_reverse_rows(const dm_vk_ctx *vk, dm_vk_op *plan)
{
    const dm_gather *g = &plan->g;
    uint32_t last = g->rank - 1;
    if (g->kernel != DM_KERNEL_REVERSE || (uint32_t)g->axis == last || g->stride[DM_SLOT_SRC][last] != 1 ||
        g->stride[DM_SLOT_DST][last] != 1 || !vk->uma ||
        (vk->flags & DMLOPS_CONTEXT_FLAG_KERNELS_ONLY))
        return;
    uint64_t run = (uint64_t)g->size[last] * g->esize, rows = 1;
    for (uint32_t d = 0; d < last; d++) rows *= g->size[d];
    if (rows <= DM_MAX_REGIONS && (run >= vk->copy_min_bytes || (vk->flags & DMLOPS_CONTEXT_FLAG_PREFER_COPY)))
        plan->reverse_rows = (uint32_t)rows;
}

bool dm_vk_reverse_regions(const dm_vk_op *plan, const uint8_t *lengths, uint64_t src_base, uint64_t dst_base,
                           VkBufferCopy *regions, uint32_t *count)
{
    const dm_gather *g = &plan->g;
    const uint32_t last = g->rank - 1, ax = (uint32_t)g->axis;
    const uint64_t run = (uint64_t)g->size[last] * g->esize;
    static const DML_TENSOR_DATA_TYPE aux_types[] = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT32,
                                                     DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64};
    dm_walk w = {.rank = last, .nstreams = 3};
    for (uint32_t d = 0; d < last; d++) {
        w.sizes[d] = g->size[d];
        w.strides[0][d] = g->stride[DM_SLOT_SRC][d]; /* 0 along the axis: added below */
        w.strides[1][d] = g->stride[DM_SLOT_DST][d];
        w.strides[2][d] = g->stride[DM_SLOT_AUX][d];
    }
    const DML_TENSOR_DATA_TYPE type = aux_types[g->aux_type];
    const int64_t aux_step = g->stride[DM_SLOT_AUX][last];
    int64_t cached = -1; /* the lengths row last read: it does not move along the axis */
    uint64_t L = 0;
    uint32_t n = 0;
    do {
        uint64_t i = w.coord[ax];
        if (w.offset[2] != cached) {
            const uint8_t *row = lengths + (uint64_t)w.offset[2] * g->aux_esize;
            cached = w.offset[2];
            L = dm_read_length(type, row, g->n);
            for (uint64_t j = 1; aux_step && j < g->size[last]; j++)
                if (dm_read_length(type, row + (uint64_t)((int64_t)j * aux_step) * g->aux_esize, g->n) != L)
                    return false; /* lengths differ along the run: not slabs */
        }
        uint64_t s = i < L ? L - 1 - i : i;
        uint64_t src = src_base + ((uint64_t)w.offset[0] + s * (uint64_t)g->axis_src_stride) * g->esize;
        uint64_t dst = dst_base + (uint64_t)w.offset[1] * g->esize;
        VkBufferCopy *prev = n ? &regions[n - 1] : NULL;
        if (prev && prev->srcOffset + prev->size == src && prev->dstOffset + prev->size == dst) prev->size += run;
        else regions[n++] = (VkBufferCopy){src, dst, run};
    } while (dm_walk_next(&w));
    *count = n;
    return true;
}

dmlops_status dm_vk_plan(dm_vk_ctx *vk, const dm_op *op, dm_vk_op *plan)
{
    for (uint32_t i = 0; i < op->input_count + op->output_count; i++)
        if (op->t[i].total_bytes > (1ull << 62))
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: %s.TotalTensorSizeInBytes = %llu is beyond any device",
                           op->name, op->role[i], (unsigned long long)op->t[i].total_bytes);
    dm_op_lower(op, &plan->g);
    dm_piece_set set = {0};
    dmlops_status st = dm_split(vk, &plan->g, NULL, &set);
    plan->pieces = set.pieces;
    plan->npieces = set.n;
    uint32_t *params = set.params;
    if (st == DMLOPS_SUCCESS) st = dm_plan_regions(vk, plan);
    if (st == DMLOPS_SUCCESS) dm_plan_reverse_rows(vk, plan);
    if (st == DMLOPS_SUCCESS) {
        plan->dispatches = plan->npieces;
        uint64_t bytes = (uint64_t)plan->npieces * DM_P_WORDS * 4;
        st = dm_vk_alloc(vk, bytes, false, "allocating operator parameters", &plan->params);
        if (st == DMLOPS_SUCCESS) {
            pthread_mutex_lock(vk->lock);
            st = dm_vk_upload(vk, &plan->params, 0, params, bytes);
            if (st == DMLOPS_SUCCESS) st = dm_vk_pipeline(vk, plan->g.kernel, plan->g.esize, plan->g.rank, &plan->pipeline);
            pthread_mutex_unlock(vk->lock);
        }
    }
    free(params);
    if (st != DMLOPS_SUCCESS) dm_vk_plan_free(vk, plan);
    return st;
}

dmlops_status dm_vk_plan_segments(dm_vk_ctx *vk, const dm_gather *g, const dm_vk_segments *segs, dm_vk_piece **pieces,
                                  uint32_t *npieces, dm_vk_memory *params)
{
    dm_piece_set set = {0};
    dmlops_status st = dm_split(vk, g, segs, &set);
    uint64_t bytes = (uint64_t)set.n * DM_P_WORDS * 4;
    /* Host-visible, so that uploading needs neither staging nor the context lock. */
    if (st == DMLOPS_SUCCESS) st = dm_vk_alloc(vk, bytes, true, "splitting windows at allocation boundaries", params);
    if (st == DMLOPS_SUCCESS) memcpy(params->map, set.params, (size_t)bytes);
    free(set.params);
    if (st != DMLOPS_SUCCESS) {
        free(set.pieces);
        return st;
    }
    *pieces = set.pieces;
    *npieces = set.n;
    return DMLOPS_SUCCESS;
}

void dm_vk_plan_free(dm_vk_ctx *vk, dm_vk_op *plan)
{
    dm_vk_free(vk, &plan->params);
    free(plan->pieces);
    free(plan->regions);
    plan->pieces = NULL;
    plan->regions = NULL;
    plan->npieces = plan->nregions = 0;
}
