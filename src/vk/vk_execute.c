/* Submission: synchronous execution, command lists with timestamps, and the backend
 * table. Every command buffer of ours starts with a barrier that orders it after the
 * work of earlier submissions, and ends with one that makes its writes visible to the
 * host. */
#include <stdlib.h>
#include <string.h>

#include "vk_internal.h"

dmlops_status dm_vk_begin(dm_vk_ctx *vk, VkCommandBuffer cmd, bool once, const char *what)
{
    if (vk->lost) return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost; the context is unusable", what);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = once ? VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT : 0};
    DM_VK_CALL(vk, what, BeginCommandBuffer, (cmd, &bi));
    dm_vk_cmd_barrier(vk, cmd, false);
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_submit_wait(dm_vk_ctx *vk, VkCommandBuffer cmd, const char *what)
{
    DM_VK_CALL(vk, what, EndCommandBuffer, (cmd));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    DM_VK_CALL(vk, what, QueueSubmit, (vk->queue, 1, &si, vk->fence));
    VkResult r = vk->vkd.WaitForFences(vk->device, 1, &vk->fence, VK_TRUE, UINT64_MAX);
    vk->vkd.ResetFences(vk->device, 1, &vk->fence);
    if (r != VK_SUCCESS) return dm_vk_fail(vk, r, "vkWaitForFences", what);
    return DMLOPS_SUCCESS;
}

/* ---- operators ------------------------------------------------------------------- */

static dmlops_status dm_vk_operator_create(dmlops_operator *op)
{
    dm_vk_ctx *vk = dm_vk(op->ctx);
    if (vk->lost) return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost", op->op.name);
    dm_vk_op *plan = calloc(1, sizeof *plan);
    if (!plan) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating an operator");
    dmlops_status st = dm_vk_plan(vk, &op->op, plan);
    if (st != DMLOPS_SUCCESS) {
        free(plan);
        return dm_fail_prefix(st, "%s", op->op.name);
    }
    op->impl = plan;
    op->info.planned_path = plan->use_copy ? DMLOPS_PATH_COPY_REGIONS : DMLOPS_PATH_KERNEL;
    op->info.dispatch_count = plan->dispatches;
    op->info.copy_region_count = plan->nregions;
    return DMLOPS_SUCCESS;
}

static void dm_vk_operator_destroy(dmlops_operator *op)
{
    dm_vk_op *plan = op->impl;
    dm_vk_table_destroy(plan->table);
    dm_vk_plan_free(dm_vk(op->ctx), plan);
    free(plan);
}

static void dm_note_path(dmlops_operator *op, dmlops_path path)
{
    op->info.last_path = op->info.last_path == DMLOPS_PATH_NONE || op->info.last_path == path ? path : DMLOPS_PATH_MIXED;
}

/* True when a REVERSE along an outer axis may become slab copies: its lengths live in
 * memory the host maps, and the copies are allowed on both buffers. */
static bool dm_vk_can_reverse_copy(const dmlops_operator *op, const dmlops_binding *bind)
{
    const dm_vk_op *plan = op->impl;
    const dm_gather *g = &plan->g;
    if (!plan->reverse_rows) return false; /* only then do the three slots exist */
    const dm_vk_buffer *src = dm_vkbuf(bind[g->binding[DM_SLOT_SRC]].buffer), *dst = dm_vkbuf(bind[g->binding[DM_SLOT_DST]].buffer),
                       *len = dm_vkbuf(bind[g->binding[DM_SLOT_AUX]].buffer);
    return src->transfer && dst->transfer && len->one.map && src->nseg == 1 && dst->nseg == 1 && len->nseg == 1;
}

/* Reads the lengths through the mapping and turns the table into slab copies, or leaves
 * it on the kernel when the lengths differ along the runs. Callers guarantee that no
 * pending device work writes the lengths: every earlier submission has completed. */
static void dm_vk_reverse_copy(dmlops_operator *op, const dmlops_binding *bind, dmlops_binding_table *t)
{
    const dm_vk_op *plan = op->impl;
    const dm_gather *g = &plan->g;
    const dmlops_binding *bs = &bind[g->binding[DM_SLOT_SRC]], *bd = &bind[g->binding[DM_SLOT_DST]],
                         *bl = &bind[g->binding[DM_SLOT_AUX]];
    const dm_vk_buffer *src = dm_vkbuf(bs->buffer), *dst = dm_vkbuf(bd->buffer), *len = dm_vkbuf(bl->buffer);
    bool slabs = dm_vk_reverse_regions(plan, (const uint8_t *)len->one.map + len->offset + bl->offset,
                                       src->offset + bs->offset, dst->offset + bd->offset, t->regions, &t->nregions);
    t->copy_src = src->one.buffer;
    t->copy_dst = dst->one.buffer;
    t->path = slabs ? DMLOPS_PATH_COPY_REGIONS : DMLOPS_PATH_KERNEL;
}

/* Called with the context lock held. The operator's own table is created on first use
 * and reused, so executions after the first allocate nothing. */
static dmlops_status dm_vk_operator_execute(dmlops_operator *op, const dmlops_binding *bind)
{
    dm_vk_ctx *vk = dm_vk(op->ctx);
    dm_vk_op *plan = op->impl;
    if (vk->lost) return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost; the context is unusable", op->op.name);
    if (!plan->table) DM_TRY(dm_vk_table_create(op, plan->npieces, &plan->table));
    DM_TRY(dm_vk_table_bind(plan->table, op, bind));
    if (dm_vk_can_reverse_copy(op, bind)) dm_vk_reverse_copy(op, bind, plan->table);
    DM_TRY(dm_vk_begin(vk, vk->cmd, true, op->op.name));
    dm_vk_record(plan->table, vk->cmd);
    dm_vk_cmd_barrier(vk, vk->cmd, true);
    DM_TRY(dm_vk_submit_wait(vk, vk->cmd, op->op.name));
    dm_note_path(op, plan->table->path);
    return DMLOPS_SUCCESS;
}

/* ---- command lists --------------------------------------------------------------- */

typedef struct dm_vk_list {
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkQueryPool queries;
    bool dirty;
    uint32_t dynamic; /* entries whose copy regions come from lengths read at execution */
    dmlops_binding_table **spare; /* tables kept from before the last reset */
    uint32_t nspare, cap_spare;
} dm_vk_list;

static dmlops_status dm_vk_list_create(dmlops_command_list *list)
{
    dm_vk_ctx *vk = dm_vk(list->ctx);
    dm_vk_list *l = calloc(1, sizeof *l);
    if (!l) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a command list");
    list->impl = l;
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = vk->queue_family};
    const char *call = "vkCreateCommandPool";
    VkResult r = vk->vkd.CreateCommandPool(vk->device, &pci, NULL, &l->pool);
    if (r == VK_SUCCESS) {
        VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                           .commandPool = l->pool,
                                           .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                           .commandBufferCount = 1};
        call = "vkAllocateCommandBuffers";
        r = vk->vkd.AllocateCommandBuffers(vk->device, &cai, &l->cmd);
    }
    if (r == VK_SUCCESS && vk->timestamp_bits) {
        VkQueryPoolCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                     .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                     .queryCount = 2};
        call = "vkCreateQueryPool";
        r = vk->vkd.CreateQueryPool(vk->device, &qci, NULL, &l->queries);
    }
    if (r != VK_SUCCESS) {
        if (l->pool) vk->vkd.DestroyCommandPool(vk->device, l->pool, NULL);
        free(l);
        list->impl = NULL;
        return dm_vk_fail(vk, r, call, "creating a command list");
    }
    return DMLOPS_SUCCESS;
}

static void dm_vk_list_reset(dmlops_command_list *list)
{
    dm_vk_list *l = list->impl;
    for (uint32_t i = 0; i < list->count; i++) {
        dmlops_binding_table *t = list->entries[i].impl;
        if (!t) continue;
        if (l->nspare == l->cap_spare) {
            uint32_t n = l->cap_spare ? l->cap_spare * 2 : 8;
            dmlops_binding_table **q = realloc(l->spare, n * sizeof *q);
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

static void dm_vk_list_destroy(dmlops_command_list *list)
{
    dm_vk_ctx *vk = dm_vk(list->ctx);
    dm_vk_list *l = list->impl;
    for (uint32_t i = 0; i < l->nspare; i++) dm_vk_table_destroy(l->spare[i]);
    free(l->spare);
    if (l->queries) vk->vkd.DestroyQueryPool(vk->device, l->queries, NULL);
    vk->vkd.DestroyCommandPool(vk->device, l->pool, NULL);
    free(l);
}

static dmlops_status dm_vk_list_record(dmlops_command_list *list, dm_list_entry *e)
{
    dm_vk_list *l = list->impl;
    if (!e->op) {
        if (!dm_vkbuf(e->copy_src)->transfer || !dm_vkbuf(e->copy_dst)->transfer)
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                           "dmlops_command_list_record_copy: a wrapped VkBuffer lacks TRANSFER_SRC and TRANSFER_DST "
                           "usage, so vkCmdCopyBuffer cannot use it");
        l->dirty = true;
        return DMLOPS_SUCCESS;
    }
    l->dirty = true;
    dm_vk_op *plan = e->op->impl;
    dmlops_binding_table *t = NULL;
    for (uint32_t i = 0; i < l->nspare && !t; i++) {
        dmlops_binding_table *c = l->spare[i];
        if (c->region_capacity >= plan->nregions && c->region_capacity >= plan->reverse_rows) {
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
    /* Slab copies from host-read lengths, unless an earlier entry of the list writes
     * them: the host reads them before the submission that would. */
    if (dm_vk_can_reverse_copy(e->op, e->bind)) {
        int li = e->op->op.input_count > 1 ? ((dm_vk_op *)e->op->impl)->g.binding[DM_SLOT_AUX] : -1;
        dm_range lengths = dm_binding_range(e->op, (uint32_t)li, &e->bind[li]);
        bool written = false;
        for (uint32_t i = 0; i < list->count && !written; i++) {
            const dm_list_entry *p = &list->entries[i];
            if (p->op) {
                uint32_t o = p->op->op.input_count;
                written = dm_ranges_overlap(dm_binding_range(p->op, o, &p->bind[o]), lengths);
            } else {
                const dmlops_buffer *d = p->copy_dst;
                dm_range w = {d->resource, d->resource_offset + p->copy_dst_offset,
                              d->resource_offset + p->copy_dst_offset + p->copy_size};
                written = dm_ranges_overlap(w, lengths);
            }
        }
        t->dynamic = !written;
        l->dynamic += t->dynamic;
    }
    return DMLOPS_SUCCESS;
}

/* Called with the context lock held. */
static dmlops_status dm_vk_list_execute(dmlops_command_list *list)
{
    dm_vk_ctx *vk = dm_vk(list->ctx);
    dm_vk_list *l = list->impl;
    if (l->dirty || l->dynamic) { /* dynamic entries rebuild their regions every time */
        for (uint32_t i = 0; i < list->count; i++) {
            dm_list_entry *e = &list->entries[i];
            if (e->op && ((dmlops_binding_table *)e->impl)->dynamic) dm_vk_reverse_copy(e->op, e->bind, e->impl);
        }
        DM_TRY(dm_vk_begin(vk, l->cmd, false, "dmlops_command_list_execute")); /* resubmitted */
        if (l->queries) {
            vk->vkd.CmdResetQueryPool(l->cmd, l->queries, 0, 2);
            vk->vkd.CmdWriteTimestamp(l->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, l->queries, 0);
        }
        for (uint32_t i = 0; i < list->count; i++) {
            const dm_list_entry *e = &list->entries[i];
            if (e->barrier_before) dm_vk_cmd_barrier(vk, l->cmd, false);
            if (e->op) {
                dm_vk_record(e->impl, l->cmd);
                dm_note_path(e->op, ((dmlops_binding_table *)e->impl)->path);
            } else {
                dm_vk_cmd_copy(vk, l->cmd, dm_vkbuf(e->copy_src), e->copy_src_offset, dm_vkbuf(e->copy_dst),
                               e->copy_dst_offset, e->copy_size);
            }
        }
        if (l->queries) vk->vkd.CmdWriteTimestamp(l->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, l->queries, 1);
        dm_vk_cmd_barrier(vk, l->cmd, true);
        VkResult r = vk->vkd.EndCommandBuffer(l->cmd);
        if (r != VK_SUCCESS) return dm_vk_fail(vk, r, "vkEndCommandBuffer", "dmlops_command_list_execute");
        l->dirty = false;
    }
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &l->cmd};
    DM_VK_CALL(vk, "dmlops_command_list_execute", QueueSubmit, (vk->queue, 1, &si, vk->fence));
    VkResult r = vk->vkd.WaitForFences(vk->device, 1, &vk->fence, VK_TRUE, UINT64_MAX);
    vk->vkd.ResetFences(vk->device, 1, &vk->fence);
    if (r != VK_SUCCESS) return dm_vk_fail(vk, r, "vkWaitForFences", "dmlops_command_list_execute");
    list->stats.gpu_seconds = -1;
    uint64_t ts[2];
    if (l->queries && vk->vkd.GetQueryPoolResults(vk->device, l->queries, 0, 2, sizeof ts, ts, sizeof ts[0],
                                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS) {
        uint64_t mask = vk->timestamp_bits >= 64 ? ~0ull : (1ull << vk->timestamp_bits) - 1;
        list->stats.gpu_seconds = (double)((ts[1] - ts[0]) & mask) * vk->info.timestamp_period * 1e-9;
    }
    return DMLOPS_SUCCESS;
}

const dm_backend_vtbl dm_vk_vtbl = {
    .context_destroy = dm_vk_context_destroy,
    .context_info = dm_vk_context_info,
    .buffer_create = dm_vk_buffer_create,
    .buffer_destroy = dm_vk_buffer_destroy,
    .buffer_write = dm_vk_buffer_write,
    .buffer_read = dm_vk_buffer_read,
    .operator_create = dm_vk_operator_create,
    .operator_destroy = dm_vk_operator_destroy,
    .operator_execute = dm_vk_operator_execute,
    .list_create = dm_vk_list_create,
    .list_destroy = dm_vk_list_destroy,
    .list_record = dm_vk_list_record,
    .list_execute = dm_vk_list_execute,
    .list_reset = dm_vk_list_reset,
};
