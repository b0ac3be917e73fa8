/* Binding tables: the descriptor sets and push constants of one operator's bindings, or
 * its copy regions (vk_record.h). */
#include <stdlib.h>
#include <string.h>

#include "../checked.h"
#include "vk_record.h"
#include "../fault.h"

/* Destroys the texel views of the sets (the sets keep stale handles until rewritten). */
static void dm_vk_table_drop_views(dmlops_binding_table *t)
{
    const dm_vk_device *d = &t->vk->dev;
    for (uint32_t i = 0; t->views && i < t->capacity * DM_VK_SET_VIEWS; i++) {
        if (t->views[i]) d->vkd.DestroyBufferView(d->device, t->views[i], d->vk_alloc);
        t->views[i] = VK_NULL_HANDLE;
    }
}

/* (Re)creates the descriptor pool with `capacity` sets. */
static dmlops_status dm_vk_table_sets(dmlops_binding_table *t, uint32_t capacity)
{
    dm_vk_device *d = &t->vk->dev;
    dm_vk_table_drop_views(t);
    if (t->pool) d->vkd.DestroyDescriptorPool(d->device, t->pool, d->vk_alloc);
    t->pool = VK_NULL_HANDLE;
    dm_afree(d->host, t->sets);
    dm_afree(d->host, t->push);
    dm_afree(d->host, t->views);
    t->capacity = 0;
    t->sets = dm_zalloc(d->host, capacity, sizeof *t->sets);
    t->push = dm_zalloc(d->host, capacity, sizeof *t->push);
    t->views = dm_zalloc(d->host, (size_t)capacity * DM_VK_SET_VIEWS, sizeof *t->views);
    if (!t->sets || !t->push || !t->views)
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a binding table");
    /* A tracing context's sets bind the record buffer too (glsl/trace.glsl). */
    const uint32_t storage = DM_SLOT_COUNT + (t->vk->pipes.trace ? 1 : 0);
    VkDescriptorPoolSize size[3] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, capacity},
                                    {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, capacity * storage},
                                    {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, capacity * DM_VK_SET_VIEWS}};
    VkDescriptorPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                      .maxSets = capacity,
                                      .poolSizeCount = 3,
                                      .pPoolSizes = size};
    DM_VK_CALL(d, "creating a binding table", CreateDescriptorPool, (d->device, &pci, d->vk_alloc, &t->pool));
    for (uint32_t i = 0; i < capacity; i++) {
        VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                          .descriptorPool = t->pool,
                                          .descriptorSetCount = 1,
                                          .pSetLayouts = &t->vk->pipes.set_layout};
        DM_VK_CALL(d, "creating a binding table", AllocateDescriptorSets, (d->device, &ai, &t->sets[i]));
    }
    t->capacity = capacity;
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_table_create(dmlops_operator *op, uint32_t capacity, dmlops_binding_table **out)
{
    const dm_vk_plan *plan = &((const dm_vk_op *)op->impl)->plan;
    dm_allocator *host = dm_vk(op->ctx)->dev.host;
    dmlops_binding_table *t = dm_zalloc(host, 1, sizeof *t);
    if (!t) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a binding table");
    t->vk = dm_vk(op->ctx);
    t->region_capacity = plan->nregions > plan->slab_rows ? plan->nregions : plan->slab_rows;
    t->regions = t->region_capacity ? dm_zalloc(host, t->region_capacity, sizeof *t->regions) : NULL;
    dmlops_status st = t->region_capacity && !t->regions
                           ? dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a binding table")
                           : dm_vk_table_sets(t, capacity < plan->npieces ? plan->npieces : capacity);
    if (st != DMLOPS_SUCCESS) {
        dm_vk_table_destroy(t);
        return st;
    }
    *out = t;
    return DMLOPS_SUCCESS;
}

/* Forgets pieces planned for an earlier binding's segment boundaries. */
static void dm_vk_table_drop_split(dmlops_binding_table *t)
{
    free(t->own_pieces);
    t->own_pieces = NULL;
    t->own_npieces = 0;
    t->own_active = false;
    dm_vk_free(&t->vk->dev, &t->own_params);
}

void dm_vk_table_destroy(dmlops_binding_table *t)
{
    if (!t) return;
    dm_vk_table_drop_split(t);
    dm_vk_table_drop_views(t);
    if (t->pool) t->vk->dev.vkd.DestroyDescriptorPool(t->vk->dev.device, t->pool, t->vk->dev.vk_alloc);
    dm_allocator *host = t->vk->dev.host;
    dm_afree(host, t->sets);
    dm_afree(host, t->push);
    dm_afree(host, t->views);
    dm_afree(host, t->regions);
    dm_afree(host, t->copies);
    dm_afree(host, t);
}

/* Appends the copies of a transfer between possibly segmented buffers, cut where either
 * changes segment. */
static dmlops_status dm_vk_push_copy(dmlops_binding_table *t, const dm_vk_buffer *src, uint64_t s_at,
                                     const dm_vk_buffer *dst, uint64_t d_at, uint64_t size)
{
    dm_vk_copy c;
    while (dm_vk_copy_next(src, &s_at, dst, &d_at, &size, &c)) {
        if (t->ncopies == t->copies_cap) {
            uint32_t cap = t->copies_cap ? t->copies_cap * 2 : 64;
            dm_vk_copy *q = dm_ralloc(t->vk->dev.host, t->copies, cap * sizeof *q);
            if (!q) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory splitting copies");
            t->copies = q;
            t->copies_cap = cap;
        }
        t->copies[t->ncopies++] = c;
    }
    return DMLOPS_SUCCESS;
}

/* The static copy path: regions offset by the bindings, split where a buffer's segments
 * change. Unsegmented buffers keep one batched region list. */
static dmlops_status dm_vk_bind_copies(dmlops_binding_table *t, const dm_vk_plan *plan, const dmlops_binding *bs,
                                       const dmlops_binding *bd)
{
    const dm_vk_buffer *src = dm_vkbuf(bs->buffer), *dst = dm_vkbuf(bd->buffer);
    t->path = DMLOPS_PATH_COPY_REGIONS;
    if (src->nseg == 1 && dst->nseg == 1) {
        uint64_t so = src->offset + bs->offset, dof = dst->offset + bd->offset;
        for (uint32_t i = 0; i < plan->nregions; i++)
            t->regions[i] = (VkBufferCopy){so + plan->regions[i].srcOffset, dof + plan->regions[i].dstOffset,
                                           plan->regions[i].size};
        t->copy_src = src->one.buffer;
        t->copy_dst = dst->one.buffer;
        t->nregions = plan->nregions;
        return DMLOPS_SUCCESS;
    }
    for (uint32_t i = 0; i < plan->nregions; i++)
        DM_TRY(dm_vk_push_copy(t, src, bs->offset + plan->regions[i].srcOffset, dst, bd->offset + plan->regions[i].dstOffset,
                               plan->regions[i].size));
    return DMLOPS_SUCCESS;
}

/* True when some window of the plan's pieces would straddle a segment boundary. */
static bool dm_vk_straddles(const dm_vk_plan *plan, const dmlops_binding *bind, dm_vk_segments *segs)
{
    const dm_gather *g = &plan->g;
    bool any = false;
    for (int s = 0; s < DM_SLOT_COUNT; s++) {
        segs->base[s] = segs->seg_size[s] = 0;
        if (g->binding[s] < 0) continue;
        const dmlops_binding *b = &bind[g->binding[s]];
        const dm_vk_buffer *vb = dm_vkbuf(b->buffer);
        segs->base[s] = b->offset;
        segs->seg_size[s] = vb->nseg > 1 ? vb->seg_size : 0;
        for (uint32_t p = 0; p < plan->npieces && segs->seg_size[s] && !any; p++) {
            const dm_vk_span *span = &plan->pieces[p].span[s];
            any = (b->offset + span->lo) / vb->seg_size != (b->offset + span->hi - 1) / vb->seg_size;
        }
    }
    return any;
}

/* Plans the gather's pieces again for bindings whose windows would straddle segment
 * boundaries, into a host-visible parameter buffer, so that uploading needs neither
 * staging nor the context lock. */
static dmlops_status dm_vk_table_split(dmlops_binding_table *t, const dm_vk_plan *plan, const dm_vk_segments *segs)
{
    dm_vk_device *d = &t->vk->dev;
    const dm_gather *g = &plan->g;
    const dm_vk_limits *planned = &((const dm_vk_op *)t->op->impl)->lim; /* the operator's own */
    uint32_t *params = NULL;
    dm_vk_limits lim = dm_vk_path_limits(planned, plan->texel);
    dmlops_status st = dm_vk_plan_segments(&lim, g, segs, &t->own_pieces, &params, &t->own_npieces, &t->own_axis_split);
    t->own_texel = plan->texel;
    if (st == DMLOPS_ERROR_UNSUPPORTED && plan->texel) {
        /* The boundaries cut the texel path's windows past the planner's cap: storage
         * buffers' larger windows, as dm_vk_plan_gather would have chosen. */
        lim = dm_vk_path_limits(planned, false);
        st = dm_vk_plan_segments(&lim, g, segs, &t->own_pieces, &params, &t->own_npieces, &t->own_axis_split);
        t->own_texel = false;
    }
    uint64_t bytes = (uint64_t)t->own_npieces * DM_P_WORDS * 4;
    const char *what = "splitting windows at allocation boundaries";
    if (st == DMLOPS_SUCCESS) st = dm_vk_alloc(d, bytes, DM_VK_MEM_PARAMS_MAPPED, what, &t->own_params);
    if (st == DMLOPS_SUCCESS && !t->own_params.map)
        st = dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: no host-visible memory", what);
    if (st == DMLOPS_SUCCESS) memcpy(t->own_params.map, params, (size_t)bytes);
    free(params);
    if (st != DMLOPS_SUCCESS) dm_vk_table_drop_split(t);
    return st;
}

/* Writes descriptor set p: the piece's parameter record, and each slot's window bound
 * at its aligned-down start, the remainder going to the push constants; on the texel
 * path, the SRC and AUX windows again as texel views of the same bytes (16-byte and
 * 4-byte texels) and, for the kernels that read them (dm_kernel_aux_vectors,
 * dm_kernel_src_words), AUX as 16-byte texels too (its whole ones) and SRC as 4-byte
 * ones. */
static dmlops_status dm_vk_bind_piece(dmlops_binding_table *t, const dm_gather *g, const dmlops_binding *bind,
                                      const dm_vk_piece *piece, VkBuffer params, uint32_t p)
{
    dm_vk_ctx *vk = t->vk;
    VkDescriptorBufferInfo info[1 + DM_SLOT_COUNT];
    VkWriteDescriptorSet w[DM_BINDING_TRACE + 1];
    VkBufferView *view = &t->views[(size_t)p * DM_VK_SET_VIEWS]; /* SRC, AUX, AUX as vectors, SRC as words */
    info[DM_BINDING_PARAMS] = (VkDescriptorBufferInfo){params, (uint64_t)p * DM_P_WORDS * 4, DM_P_WORDS * 4};
    for (int s = 0; s < DM_SLOT_COUNT; s++) {
        const dm_vk_span *span = &piece->span[s];
        t->push[p].rem[s] = t->push[p].tbase[s] = 0;
        if (g->binding[s] < 0) {
            info[DM_BINDING_SLOT0 + s] = (VkDescriptorBufferInfo){vk->dummy.buffer, 0, VK_WHOLE_SIZE};
            continue;
        }
        const dmlops_binding *b = &bind[g->binding[s]];
        uint64_t lo, hi = 0;
        const dm_vk_memory *m = dm_vk_at(dm_vkbuf(b->buffer), b->offset + span->lo, &lo);
        uint64_t aligned = dm_align_down_u64(lo, ((const dm_vk_op *)t->op->impl)->lim.align);
        dm_align_up_u64(lo + (span->hi - span->lo), 4, &hi); /* inside the segment: planned so */
        t->push[p].rem[s] = (uint32_t)(lo - aligned);
        t->push[p].tbase[s] = (uint32_t)aligned; /* for the trace build's sector counts: low bits suffice */
        info[DM_BINDING_SLOT0 + s] = (VkDescriptorBufferInfo){m->buffer, aligned, hi - aligned};
        if (t->texel && s == DM_SLOT_SRC)
            DM_TRY(dm_vk_texel_view(&vk->dev, m->buffer, aligned, hi - aligned, VK_FORMAT_R32G32B32A32_UINT,
                                    "binding a texel view", &view[0]));
        if (t->texel && s == DM_SLOT_SRC && dm_kernel_src_words(g))
            DM_TRY(dm_vk_texel_view(&vk->dev, m->buffer, aligned, hi - aligned, VK_FORMAT_R32_UINT,
                                    "binding a texel view", &view[3]));
        if (t->texel && s == DM_SLOT_AUX)
            DM_TRY(dm_vk_texel_view(&vk->dev, m->buffer, aligned, hi - aligned, VK_FORMAT_R32_UINT,
                                    "binding a texel view", &view[1]));
        if (t->texel && s == DM_SLOT_AUX && dm_kernel_aux_vectors(g))
            DM_TRY(dm_vk_texel_view(&vk->dev, m->buffer, aligned, hi - aligned, VK_FORMAT_R32G32B32A32_UINT,
                                    "binding a texel view", &view[2]));
    }
    /* Same texel count as the storage window's uvec4 (SRC, AUX as vectors: whole ones)
     * or word (AUX, SRC as words) count, or a dummy when that is 0. */
    const VkBufferView tv = view[0] ? view[0] : vk->dummy_view, av = view[1] ? view[1] : vk->dummy_word_view;
    const VkBufferView avv = view[2] ? view[2] : vk->dummy_view;
    const VkBufferView swv = view[3] ? view[3] : vk->dummy_word_view;
    for (uint32_t i = 0; i < DM_BINDING_COUNT; i++)
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = t->sets[p],
                                      .dstBinding = i,
                                      .descriptorCount = 1,
                                      .descriptorType = dm_vk_binding_type(i),
                                      .pBufferInfo = i < 1 + DM_SLOT_COUNT ? &info[i] : NULL,
                                      .pTexelBufferView = i == DM_BINDING_SRC_TEXEL       ? &tv
                                                          : i == DM_BINDING_AUX_TEXEL     ? &av
                                                          : i == DM_BINDING_AUX_VEC_TEXEL ? &avv
                                                          : i == DM_BINDING_SRC_WORD_TEXEL ? &swv
                                                                                           : NULL};
    const VkDescriptorBufferInfo trace = {vk->trace.buf.buffer, 0, VK_WHOLE_SIZE};
    if (vk->pipes.trace)
        w[DM_BINDING_TRACE] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                                     .dstSet = t->sets[p],
                                                     .dstBinding = DM_BINDING_TRACE,
                                                     .descriptorCount = 1,
                                                     .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                     .pBufferInfo = &trace};
    vk->dev.vkd.UpdateDescriptorSets(vk->dev.device, dm_vk_set_bindings(vk->pipes.trace), w, 0, NULL);
    return DMLOPS_SUCCESS;
}

/* Whether these bindings take the texel path, and the pipeline that goes with it: an
 * operator planned for the texel path falls back to its storage-buffer pipeline when
 * a bound buffer (an application's, wrapped) lacks texel usage, or when its pieces were
 * planned again on storage buffers (dm_vk_table_split); pieces planned again at segment
 * boundaries that split the axis where the operator's did not (or the other way round)
 * take the pipeline specialised for that (PARTIAL). */
static dmlops_status dm_vk_table_pipeline(dmlops_binding_table *t, dmlops_operator *op, const dmlops_binding *bind)
{
    dm_vk_op *o = op->impl;
    const dm_gather *g = &o->plan.g;
    const bool planned = t->own_active ? t->own_texel : o->plan.texel;
    const int src = g->binding[DM_SLOT_SRC], aux = g->binding[DM_SLOT_AUX];
    const bool texel = planned && (src < 0 || dm_vkbuf(bind[src].buffer)->texel) &&
                       (aux < 0 || dm_vkbuf(bind[aux].buffer)->texel);
    const bool axis_split = t->own_active ? t->own_axis_split : o->plan.axis_split;
    t->texel = texel;
    t->pipeline = o->pipeline; /* on the plan's path */
    if (texel == o->plan.texel && axis_split == o->plan.axis_split) return DMLOPS_SUCCESS;
    return dm_vk_pipeline_for(&t->vk->dev, &t->vk->pipes, &o->lim, g, o->plan.fast, texel, axis_split, &t->pipeline);
}

dmlops_status dm_vk_table_bind(dmlops_binding_table *t, dmlops_operator *op, const dmlops_binding *bind)
{
    const dm_vk_op *o = op->impl;
    const dm_vk_plan *plan = &o->plan;
    const dm_gather *g = &plan->g;
    if (plan->nregions > t->region_capacity)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: the binding table was created for another operator",
                       op->op.name);
    if (t->op != op) dm_vk_table_drop_split(t);
    t->op = op;
    /* Nothing of an earlier binding survives: regions, copies and their buffers. */
    t->nregions = t->ncopies = 0;
    t->copy_src = t->copy_dst = VK_NULL_HANDLE;
    t->bound = false;
    const dmlops_binding *bs = &bind[g->binding[DM_SLOT_SRC]], *bd = &bind[g->binding[DM_SLOT_DST]];
    if (plan->use_copy && dm_vkbuf(bs->buffer)->transfer && dm_vkbuf(bd->buffer)->transfer) {
        DM_TRY(dm_vk_bind_copies(t, plan, bs, bd));
        t->bound = true;
        return DMLOPS_SUCCESS;
    }
    dm_vk_segments segs;
    const dm_vk_piece *pieces = plan->pieces;
    uint32_t npieces = plan->npieces;
    VkBuffer params = o->params.buffer;
    memset(&segs, 0, sizeof segs); /* compared whole, padding included */
    if (dm_vk_straddles(plan, bind, &segs)) {
        /* Rare: buffers above the device's largest allocation. Plan again with the
         * boundaries known; this allocates, once per distinct set of boundaries. */
        if (!t->own_pieces || memcmp(&segs, &t->own_segs, sizeof segs) != 0) {
            dm_vk_table_drop_split(t);
            dmlops_status st = dm_vk_table_split(t, plan, &segs);
            if (st != DMLOPS_SUCCESS) return dm_fail_prefix(st, "%s (binding windows at allocation boundaries)", op->op.name);
            t->own_segs = segs;
        }
        pieces = t->own_pieces;
        npieces = t->own_npieces;
        params = t->own_params.buffer;
    }
    t->own_active = pieces == t->own_pieces;
    if (npieces > t->capacity) DM_TRY(dm_vk_table_sets(t, npieces));
    DM_TRY(dm_vk_table_pipeline(t, op, bind));
    dm_vk_table_drop_views(t);
    for (uint32_t p = 0; p < npieces; p++) DM_TRY(dm_vk_bind_piece(t, g, bind, &pieces[p], params, p));
    t->path = DMLOPS_PATH_KERNEL;
    t->bound = true;
    return DMLOPS_SUCCESS;
}

bool dm_vk_slabs_possible(const dmlops_operator *op, const dmlops_binding *bind)
{
    const dm_vk_plan *plan = &((const dm_vk_op *)op->impl)->plan;
    const dm_gather *g = &plan->g;
    if (!plan->slab_rows) return false; /* only then do the three slots exist */
    const dm_vk_buffer *src = dm_vkbuf(bind[g->binding[DM_SLOT_SRC]].buffer),
                       *dst = dm_vkbuf(bind[g->binding[DM_SLOT_DST]].buffer),
                       *aux = dm_vkbuf(bind[g->binding[DM_SLOT_AUX]].buffer);
    return src->transfer && dst->transfer && aux->one.map && src->nseg == 1 && dst->nseg == 1 && aux->nseg == 1;
}

void dm_vk_table_slabs(dmlops_binding_table *t, const dmlops_binding *bind)
{
    const dm_gather *g = &((const dm_vk_op *)t->op->impl)->plan.g;
    const dmlops_binding *bs = &bind[g->binding[DM_SLOT_SRC]], *bd = &bind[g->binding[DM_SLOT_DST]],
                         *ba = &bind[g->binding[DM_SLOT_AUX]];
    const dm_vk_buffer *src = dm_vkbuf(bs->buffer), *dst = dm_vkbuf(bd->buffer), *aux = dm_vkbuf(ba->buffer);
    dm_vk_regions r = {.r = t->regions,
                       .cap = t->region_capacity,
                       .src_base = src->offset + bs->offset,
                       .dst_base = dst->offset + bd->offset};
    bool slabs = g->slabs(g, (const uint8_t *)aux->one.map + aux->offset + ba->offset, dm_vk_regions_add, &r) && !r.full;
    t->nregions = slabs ? r.n : 0;
    t->copy_src = src->one.buffer;
    t->copy_dst = dst->one.buffer;
    t->path = slabs ? DMLOPS_PATH_COPY_REGIONS : DMLOPS_PATH_KERNEL;
}

void dm_vk_table_kernel(dmlops_binding_table *t)
{
    t->nregions = 0; /* the descriptor sets bound for the kernel are untouched by slabs */
    t->path = DMLOPS_PATH_KERNEL;
}
