/* Command lists on a Vulkan context (vk_execute.h): one command buffer recorded once and
 * resubmitted, re-recorded only when entries change or when some entry's copy regions
 * come from AUX data read at each execution; two timestamps around the work. Entries are
 * operators (a binding table each), copies, and compute copies (their descriptor sets). */
#include <stdlib.h>

#include "vk_execute.h"
#include "../fault.h"

typedef struct dm_vk_list {
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkQueryPool queries;
    bool dirty;
    uint32_t dynamic; /* entries whose copy regions come from AUX data read at execution */
    dmlops_binding_table **spare; /* tables kept from before the last reset */
    uint32_t nspare, cap_spare;
    dm_vk_tracer *tracer; /* a tracing context's: the recorded dispatches (vk_trace.h) */
} dm_vk_list;

dmlops_status dm_vk_list_create(dmlops_command_list *list)
{
    dm_vk_device *d = &dm_vk(list->ctx)->dev;
    dm_allocator *host = &list->ctx->alloc;
    dm_vk_list *l = dm_zalloc(host, 1, sizeof *l);
    if (!l) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a command list");
    dmlops_status st = dm_vk_command_pool(d, &l->pool, &l->cmd, "creating a command list");
    if (st == DMLOPS_SUCCESS && dm_vk(list->ctx)->pipes.trace && !(l->tracer = dm_zalloc(host, 1, sizeof *l->tracer)))
        st = dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a command list");
    if (st == DMLOPS_SUCCESS && d->timestamp_bits) {
        VkQueryPoolCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                     .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                     .queryCount = 2};
        VkResult r = d->vkd.CreateQueryPool(d->device, &qci, d->vk_alloc, &l->queries);
        if (r != VK_SUCCESS) st = dm_vk_fail(&d->lost, r, "vkCreateQueryPool", "creating a command list");
    }
    if (st != DMLOPS_SUCCESS) {
        if (l->pool) d->vkd.DestroyCommandPool(d->device, l->pool, d->vk_alloc);
        dm_afree(host, l->tracer);
        dm_afree(host, l);
        return st;
    }
    l->dirty = true; /* recorded at the first execution, even with nothing in it */
    list->impl = l;
    list->access_status = DMLOPS_ERROR_INVALID_ARGUMENT;
    snprintf(list->access_error, sizeof list->access_error, "dmlops_command_list_get_access_stats: the list has not "
             "been executed yet");
    return DMLOPS_SUCCESS;
}

void dm_vk_list_reset(dmlops_command_list *list)
{
    dm_vk_list *l = list->impl;
    for (uint32_t i = 0; i < list->count; i++) {
        dmlops_binding_table *t = list->entries[i].impl;
        if (!t) continue;
        if (list->entries[i].compute) {
            dm_vk_compute_copy_destroy(list->entries[i].impl);
            list->entries[i].impl = NULL;
            continue;
        }
        if (l->nspare == l->cap_spare) {
            uint32_t n = l->cap_spare ? l->cap_spare * 2 : 8;
            dmlops_binding_table **q = dm_ralloc(&list->ctx->alloc, l->spare, n * sizeof *q);
            if (!q) {
                dm_vk_table_destroy(t);
                continue;
            }
            l->spare = q;
            l->cap_spare = n;
        }
        t->op = NULL;
        t->dynamic = false;
        l->spare[l->nspare++] = t;
        list->entries[i].impl = NULL;
    }
    l->dirty = true;
    l->dynamic = 0;
}

void dm_vk_list_destroy(dmlops_command_list *list)
{
    const dm_vk_device *d = &dm_vk(list->ctx)->dev;
    dm_vk_list *l = list->impl;
    for (uint32_t i = 0; i < l->nspare; i++) dm_vk_table_destroy(l->spare[i]);
    dm_afree(&list->ctx->alloc, l->spare);
    if (l->queries) d->vkd.DestroyQueryPool(d->device, l->queries, d->vk_alloc);
    d->vkd.DestroyCommandPool(d->device, l->pool, d->vk_alloc);
    dm_afree(&list->ctx->alloc, l->tracer);
    dm_afree(&list->ctx->alloc, l);
}

/* Whether an entry recorded so far (not the one being recorded) writes bytes of r. */
static bool dm_list_writes(const dmlops_command_list *list, dm_range r)
{
    for (uint32_t i = 0; i < list->count; i++) {
        const dm_list_entry *p = &list->entries[i];
        if (p->op) {
            uint32_t o = p->op->op.input_count;
            if (dm_ranges_overlap(dm_binding_range(p->op, o, &p->bind[o]), r)) return true;
        } else {
            const dmlops_buffer *d = p->copy_dst;
            dm_range w = {d->resource, d->resource_offset + p->copy_dst_offset,
                          d->resource_offset + p->copy_dst_offset + p->copy_size};
            if (dm_ranges_overlap(w, r)) return true;
        }
    }
    return false;
}

dmlops_status dm_vk_list_record(dmlops_command_list *list, dm_list_entry *e)
{
    dm_vk_list *l = list->impl;
    if (e->compute) {
        dm_vk_compute_copy *c = NULL;
        DM_TRY(dm_vk_compute_copy_create(dm_vk(list->ctx), dm_vkbuf(e->copy_dst), e->copy_dst_offset,
                                         dm_vkbuf(e->copy_src), e->copy_src_offset, e->copy_size, &e->shape, &c));
        e->impl = c;
        l->dirty = true;
        return DMLOPS_SUCCESS;
    }
    if (!e->op) {
        if (!dm_vkbuf(e->copy_src)->transfer || !dm_vkbuf(e->copy_dst)->transfer)
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                           "dmlops_command_list_record_copy: a wrapped VkBuffer lacks TRANSFER_SRC and TRANSFER_DST "
                           "usage, so vkCmdCopyBuffer cannot use it");
        l->dirty = true;
        return DMLOPS_SUCCESS;
    }
    l->dirty = true;
    const dm_vk_plan *plan = &((const dm_vk_op *)e->op->impl)->plan;
    dmlops_binding_table *t = NULL;
    for (uint32_t i = 0; i < l->nspare && !t; i++) {
        dmlops_binding_table *c = l->spare[i];
        if (c->region_capacity >= plan->nregions && c->region_capacity >= plan->slab_rows) {
            t = c;
            l->spare[i] = l->spare[--l->nspare];
        }
    }
    if (!t) DM_TRY(dm_vk_table_create(e->op, plan->npieces, &t));
    dmlops_status st = dm_vk_table_bind(t, e->op, e->bind);
    if (st != DMLOPS_SUCCESS) {
        dm_vk_table_destroy(t);
        return st;
    }
    e->impl = t;
    /* Slab copies from host-read AUX data, unless an earlier entry of the list writes
     * it: the host reads it before the submission that would. */
    if (dm_vk_slabs_possible(e->op, e->bind)) {
        uint32_t a = (uint32_t)plan->g.binding[DM_SLOT_AUX];
        t->dynamic = !dm_list_writes(list, dm_binding_range(e->op, a, &e->bind[a]));
        l->dynamic += t->dynamic;
    }
    return DMLOPS_SUCCESS;
}

/* Records every entry, between the leading barrier and the one towards the host. */
static dmlops_status dm_vk_list_rerecord(dmlops_command_list *list, bool may_read_aux)
{
    dm_vk_device *d = &dm_vk(list->ctx)->dev;
    dm_vk_list *l = list->impl;
    for (uint32_t i = 0; i < list->count; i++) {
        dm_list_entry *e = &list->entries[i];
        if (!e->op || !((dmlops_binding_table *)e->impl)->dynamic) continue;
        if (may_read_aux) dm_vk_table_slabs(e->impl, e->bind);
        else dm_vk_table_kernel(e->impl);
    }
    DM_TRY(dm_vk_begin(d, l->cmd, false, "dmlops_command_list_execute")); /* resubmitted */
    if (l->tracer) dm_vk_trace_begin(d, l->cmd, &dm_vk(list->ctx)->trace, l->tracer);
    if (l->queries) {
        d->vkd.CmdResetQueryPool(l->cmd, l->queries, 0, 2);
        d->vkd.CmdWriteTimestamp(l->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, l->queries, 0);
    }
    for (uint32_t i = 0; i < list->count; i++) {
        const dm_list_entry *e = &list->entries[i];
        if (e->barrier_before) dm_vk_cmd_barrier(d, l->cmd, false);
        if (e->op) {
            dm_vk_record(e->impl, l->cmd, l->tracer);
            dm_vk_note_path(e->impl);
        } else if (e->compute) {
            dm_vk_record_compute_copy(e->impl, l->cmd, l->tracer);
        } else {
            if (l->tracer) l->tracer->untraced++;
            dm_vk_cmd_copy(d, l->cmd, dm_vkbuf(e->copy_src), e->copy_src_offset, dm_vkbuf(e->copy_dst),
                           e->copy_dst_offset, e->copy_size);
        }
    }
    if (l->queries) d->vkd.CmdWriteTimestamp(l->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, l->queries, 1);
    dm_vk_cmd_barrier(d, l->cmd, true);
    DM_VK_CALL(d, "dmlops_command_list_execute", EndCommandBuffer, (l->cmd));
    l->dirty = false;
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_list_prepare(dmlops_command_list *list, bool may_read_aux, VkCommandBuffer *cmd)
{
    dm_vk_list *l = list->impl;
    if (l->dirty || l->dynamic) DM_TRY(dm_vk_list_rerecord(list, may_read_aux)); /* dynamic entries: every time */
    *cmd = l->cmd;
    return DMLOPS_SUCCESS;
}

void dm_vk_list_completed(dmlops_command_list *list)
{
    dm_vk_ctx *vk = dm_vk(list->ctx);
    const dm_vk_device *d = &vk->dev;
    dm_vk_list *l = list->impl;
    list->stats.gpu_seconds = -1;
    uint64_t ts[2];
    if (l->queries && d->vkd.GetQueryPoolResults(d->device, l->queries, 0, 2, sizeof ts, ts, sizeof ts[0],
                                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS) {
        uint64_t mask = d->timestamp_bits >= 64 ? ~0ull : (1ull << d->timestamp_bits) - 1;
        list->stats.gpu_seconds = (double)((ts[1] - ts[0]) & mask) * d->info.timestamp_period * 1e-9;
    }
    if (l->tracer) {
        /* The execution succeeded whatever the trace says: its failure is kept for
         * dmlops_command_list_get_access_stats, and this thread's message restored. */
        char before[sizeof list->access_error];
        snprintf(before, sizeof before, "%s", dmlops_last_error_message());
        list->access_status = dm_vk_trace_collect(&vk->trace, l->tracer, &list->access);
        snprintf(list->access_error, sizeof list->access_error, "dmlops_command_list_get_access_stats: %s",
                 list->access_status == DMLOPS_SUCCESS ? "" : dmlops_last_error_message());
        dm_set_message("%s", before);
    }
}
