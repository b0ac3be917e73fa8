/* Command list front end: recording with hazard tracking, so that a barrier separates
 * two operations only when the later one touches bytes the earlier one wrote (or writes
 * bytes it read). Backends turn barrier_before into a real barrier. */
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "checked.h"
#include "internal.h"

static dmlops_status dm_command_list_create_impl(dmlops_context *ctx, dmlops_command_list **out)
{
    DM_CHECK_ARG(ctx, "dmlops_command_list_create");
    DM_CHECK_ARG(out, "dmlops_command_list_create");
    *out = NULL;
    DM_TRY(dm_check_lost(ctx, "dmlops_command_list_create"));
    dmlops_command_list *list = dm_zalloc(&ctx->alloc, 1, sizeof *list);
    if (!list) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_command_list_create: out of host memory");
    list->ctx = ctx;
    list->stats.gpu_seconds = -1;
    dmlops_status st = ctx->vt->list_create(list);
    if (st != DMLOPS_SUCCESS) {
        dm_afree(&ctx->alloc, list);
        return st;
    }
    atomic_init(&list->refs, 1);
    dm_context_retain(ctx);
    dm_handles_open(ctx);
    *out = list;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_command_list_create(dmlops_context *ctx, dmlops_command_list **out)
{
    const dmlops_status st = dm_name_call("dmlops_command_list_create", dm_command_list_create_impl(ctx, out));
    return ctx ? dm_logged(ctx, DMLOPS_LOG_OBJECT_CONTEXT, ctx, st) : st;
}

static bool dm_grow(dm_allocator *a, void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) return true;
    uint32_t n = *cap ? *cap * 2 : 16;
    while (n < need) n *= 2;
    size_t bytes;
    if (!dm_size_mul(n, elem, &bytes)) return false; /* a 32-bit size_t would wrap */
    void *q = dm_ralloc(a, *p, bytes);
    if (!q) return false;
    *p = q;
    *cap = n;
    return true;
}

/* True when an entry reading rd[] and writing wr[] must wait for earlier entries. */
static bool dm_hazard(const dmlops_command_list *l, const dm_range *rd, uint32_t nrd, const dm_range *wr,
                      uint32_t nwr)
{
    for (uint32_t i = 0; i < nrd; i++)
        if (dm_range_set_hits(&l->writes, rd[i])) return true;
    for (uint32_t i = 0; i < nwr; i++)
        if (dm_range_set_hits(&l->writes, wr[i]) || dm_range_set_hits(&l->reads, wr[i])) return true;
    return false;
}

static dmlops_status dm_append(dmlops_command_list *l, dm_list_entry *e, const dm_range *rd, uint32_t nrd,
                               const dm_range *wr, uint32_t nwr)
{
    dm_list_wait(l); /* its execution in flight reads the entries */
    if (!dm_grow(&l->ctx->alloc, (void **)&l->entries, &l->cap, l->count + 1, sizeof *e) ||
        !dm_range_set_reserve(&l->ctx->alloc, &l->reads, nrd) || !dm_range_set_reserve(&l->ctx->alloc, &l->writes, nwr))
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_command_list_record: out of host memory");
    e->barrier_before = dm_hazard(l, rd, nrd, wr, nwr);
    dm_list_entry *slot = &l->entries[l->count];
    *slot = *e;
    DM_TRY(l->ctx->vt->list_record(l, slot)); /* nothing below has happened yet */
    if (e->barrier_before) {
        l->reads.n = l->writes.n = 0;
        l->barrier_count++;
    }
    for (uint32_t i = 0; i < nrd; i++) dm_range_set_add(&l->reads, rd[i]);
    for (uint32_t i = 0; i < nwr; i++) dm_range_set_add(&l->writes, wr[i]);
    dm_list_entry_hold(slot, true);
    l->count++;
    return DMLOPS_SUCCESS;
}

static dmlops_status dm_command_list_record_impl(dmlops_command_list *list, dmlops_operator *op, uint32_t input_count,
                                         const dmlops_binding *inputs, uint32_t output_count,
                                         const dmlops_binding *outputs)
{
    DM_CHECK_ARG(list, "dmlops_command_list_record");
    DM_CHECK_ARG(op, "dmlops_command_list_record");
    DM_TRY(dm_check_lost(list->ctx, "dmlops_command_list_record"));
    if (op->ctx != list->ctx)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "dmlops_command_list_record: the operator belongs to another context");
    dm_list_entry e = {.op = op, .nbind = op->op.input_count + op->op.output_count};
    DM_TRY(dm_check_bindings(op, input_count, inputs, output_count, outputs, e.bind));
    dm_range rd[DM_MAX_BINDINGS], wr[DM_MAX_BINDINGS];
    uint32_t nrd = 0, nwr = 0;
    for (uint32_t i = 0; i < e.nbind; i++) {
        dm_range r = dm_binding_range(op, i, &e.bind[i]);
        if (i < op->op.input_count) rd[nrd++] = r;
        else wr[nwr++] = r;
    }
    return dm_append(list, &e, rd, nrd, wr, nwr);
}

dmlops_status dmlops_command_list_record(dmlops_command_list *list, dmlops_operator *op, uint32_t input_count,
                                         const dmlops_binding *inputs, uint32_t output_count,
                                         const dmlops_binding *outputs)
{
    const dmlops_status st =
        dm_name_call("dmlops_command_list_record",
                     dm_command_list_record_impl(list, op, input_count, inputs, output_count, outputs));
    return list ? dm_logged(list->ctx, DMLOPS_LOG_OBJECT_COMMAND_LIST, list, st) : st;
}

/* The checks both kinds of copy share, past the NULL checks; fills the entry and its byte ranges. */
static dmlops_status dm_copy_entry(const char *fn, dmlops_command_list *list, dmlops_buffer *dst, uint64_t dst_offset,
                                   dmlops_buffer *src, uint64_t src_offset, uint64_t size, dm_list_entry *e,
                                   dm_range *rd, dm_range *wr)
{
    uint64_t dend, send;
    if (dst->ctx != list->ctx || src->ctx != list->ctx)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: a buffer belongs to another context", fn);
    if (size == 0) return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: size = 0", fn);
    if (!dm_add_u64(dst_offset, size, &dend) || dend > dst->size)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: destination range [%llu, +%llu) exceeds its buffer size %llu",
                       fn, (unsigned long long)dst_offset, (unsigned long long)size, (unsigned long long)dst->size);
    if (!dm_add_u64(src_offset, size, &send) || send > src->size)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: source range [%llu, +%llu) exceeds its buffer size %llu", fn,
                       (unsigned long long)src_offset, (unsigned long long)size, (unsigned long long)src->size);
    *rd = (dm_range){src->resource, src->resource_offset + src_offset, src->resource_offset + send};
    *wr = (dm_range){dst->resource, dst->resource_offset + dst_offset, dst->resource_offset + dend};
    if (dm_ranges_overlap(*rd, *wr))
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: source and destination ranges overlap", fn);
    *e = (dm_list_entry){.copy_dst = dst, .copy_src = src, .copy_dst_offset = dst_offset,
                         .copy_src_offset = src_offset, .copy_size = size};
    return DMLOPS_SUCCESS;
}

static dmlops_status dm_command_list_record_copy_impl(dmlops_command_list *list, dmlops_buffer *dst, uint64_t dst_offset,
                                              dmlops_buffer *src, uint64_t src_offset, uint64_t size)
{
    dm_list_entry e;
    dm_range rd, wr;
    DM_CHECK_ARG(list, "dmlops_command_list_record_copy");
    DM_CHECK_ARG(dst, "dmlops_command_list_record_copy");
    DM_CHECK_ARG(src, "dmlops_command_list_record_copy");
    DM_TRY(dm_check_lost(list->ctx, "dmlops_command_list_record_copy"));
    DM_TRY(dm_copy_entry("dmlops_command_list_record_copy", list, dst, dst_offset, src, src_offset, size, &e, &rd, &wr));
    return dm_append(list, &e, &rd, 1, &wr, 1);
}

dmlops_status dmlops_command_list_record_copy(dmlops_command_list *list, dmlops_buffer *dst, uint64_t dst_offset,
                                              dmlops_buffer *src, uint64_t src_offset, uint64_t size)
{
    const dmlops_status st =
        dm_name_call("dmlops_command_list_record_copy",
                     dm_command_list_record_copy_impl(list, dst, dst_offset, src, src_offset, size));
    return list ? dm_logged(list->ctx, DMLOPS_LOG_OBJECT_COMMAND_LIST, list, st) : st;
}

/* A shape's fields as the backend takes them: zeros replaced by the plain copy's values
 * (the count stays 0, "as many as one step needs"), each checked against its values. */
static dmlops_status dm_copy_shape(const char *fn, const dmlops_compute_copy_shape *in, dmlops_compute_copy_shape *out)
{
    *out = (dmlops_compute_copy_shape){1, 64, 0};
    if (!in) return DMLOPS_SUCCESS;
    const uint32_t v = in->vectors ? in->vectors : 1, w = in->workgroup_size ? in->workgroup_size : 64;
    if (v != 1 && v != 2 && v != 4 && v != 8)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: shape.vectors = %u: expected 1, 2, 4 or 8", fn, in->vectors);
    if (w > 1024 || (w & (w - 1)))
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                       "%s: shape.workgroup_size = %u: expected a power of two from 1 to 1024", fn, in->workgroup_size);
    if (in->workgroup_count > 65535)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: shape.workgroup_count = %u exceeds 65535", fn,
                       in->workgroup_count);
    *out = (dmlops_compute_copy_shape){v, w, in->workgroup_count};
    return DMLOPS_SUCCESS;
}

static dmlops_status dm_command_list_record_compute_copy_shaped_impl(dmlops_command_list *list, dmlops_buffer *dst,
                                                             uint64_t dst_offset, dmlops_buffer *src,
                                                             uint64_t src_offset, uint64_t size,
                                                             const dmlops_compute_copy_shape *shape)
{
    const char *fn = shape ? "dmlops_command_list_record_compute_copy_shaped" : "dmlops_command_list_record_compute_copy";
    dm_list_entry e;
    dm_range rd, wr;
    /* Both entry points name themselves in messages, so DM_CHECK_ARG's literal will not do. */
    if (!list || !dst || !src)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, !list ? "list" : !dst ? "dst" : "src");
    DM_TRY(dm_check_lost(list->ctx, fn));
    DM_TRY(dm_copy_entry(fn, list, dst, dst_offset, src, src_offset, size, &e, &rd, &wr));
    if ((dst_offset | src_offset | size) % 16)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                       "%s: dst_offset = %llu, src_offset = %llu and size = %llu must be multiples of 16", fn,
                       (unsigned long long)dst_offset, (unsigned long long)src_offset, (unsigned long long)size);
    DM_TRY(dm_copy_shape(fn, shape, &e.shape));
    if (!list->ctx->vt->compute_copy)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                       "%s: the %s backend runs no compute shaders (dmlops_command_list_record_copy copies on any "
                       "backend)",
                       fn, list->ctx->backend == DMLOPS_BACKEND_CPU ? "CPU" : "context's");
    e.compute = true;
    return dm_append(list, &e, &rd, 1, &wr, 1);
}

dmlops_status dmlops_command_list_record_compute_copy_shaped(dmlops_command_list *list, dmlops_buffer *dst,
                                                             uint64_t dst_offset, dmlops_buffer *src,
                                                             uint64_t src_offset, uint64_t size,
                                                             const dmlops_compute_copy_shape *shape)
{
    const dmlops_status st = dm_command_list_record_compute_copy_shaped_impl(list, dst, dst_offset, src, src_offset, size, shape);
    return list ? dm_logged(list->ctx, DMLOPS_LOG_OBJECT_COMMAND_LIST, list, st) : st;
}

dmlops_status dmlops_command_list_record_compute_copy(dmlops_command_list *list, dmlops_buffer *dst,
                                                      uint64_t dst_offset, dmlops_buffer *src, uint64_t src_offset,
                                                      uint64_t size)
{
    return dmlops_command_list_record_compute_copy_shaped(list, dst, dst_offset, src, src_offset, size, NULL);
}

static dmlops_status dm_command_list_execute_impl(dmlops_command_list *list)
{
    static const char fn[] = "dmlops_command_list_execute";
    DM_CHECK_ARG(list, "dmlops_command_list_execute");
    DM_TRY(dm_check_lost(list->ctx, fn));
    if (list->ctx->vt->sync_inline) { /* on the caller's thread, after the work in flight */
        DM_TRY(dm_wait_in_flight(list->ctx));
        const double t0 = dm_now();
        DM_TRY(list->ctx->vt->list_execute(list));
        const double wall = dm_now() - t0;
        dm_mutex_lock(&list->ctx->lock); /* as a retired execution writes them */
        list->stats.wall_seconds = wall;
        list->executed = true;
        dm_mutex_unlock(&list->ctx->lock);
        return DMLOPS_SUCCESS;
    }
    dm_sub s = {.ctx = list->ctx, .kind = DM_SUB_LIST, .list = list};
    return dm_name_call(fn, dm_submit(fn, &s, NULL, true, NULL));
}

dmlops_status dmlops_command_list_execute(dmlops_command_list *list)
{
    const dmlops_status st = dm_command_list_execute_impl(list);
    return list ? dm_logged(list->ctx, DMLOPS_LOG_OBJECT_COMMAND_LIST, list, st) : st;
}

static dmlops_status dm_command_list_execute_async_impl(dmlops_command_list *list, const dmlops_submit_info *submit,
                                                dmlops_fence **fence)
{
    static const char fn[] = "dmlops_command_list_execute_async";
    if (fence) *fence = NULL;
    DM_CHECK_ARG(list, "dmlops_command_list_execute_async");
    DM_TRY(dm_check_lost(list->ctx, fn));
    dm_sub s = {.ctx = list->ctx, .kind = DM_SUB_LIST, .list = list};
    return dm_name_call(fn, dm_submit(fn, &s, submit, false, fence));
}

dmlops_status dmlops_command_list_execute_async(dmlops_command_list *list, const dmlops_submit_info *submit,
                                                dmlops_fence **fence)
{
    const dmlops_status st = dm_command_list_execute_async_impl(list, submit, fence);
    return list ? dm_logged(list->ctx, DMLOPS_LOG_OBJECT_COMMAND_LIST, list, st) : st;
}

static dmlops_status dm_command_list_reset_impl(dmlops_command_list *list)
{
    DM_CHECK_ARG(list, "dmlops_command_list_reset");
    dm_list_wait(list); /* its execution in flight uses what the reset forgets */
    list->ctx->vt->list_reset(list);
    dm_list_release_entries(list);
    list->count = 0;
    list->barrier_count = 0;
    list->reads.n = list->writes.n = 0;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_command_list_reset(dmlops_command_list *list)
{
    const dmlops_status st = dm_name_call("dmlops_command_list_reset", dm_command_list_reset_impl(list));
    return list ? dm_logged(list->ctx, DMLOPS_LOG_OBJECT_COMMAND_LIST, list, st) : st;
}

dmlops_status dmlops_command_list_get_counts(const dmlops_command_list *list, uint32_t *operation_count,
                                             uint32_t *barrier_count)
{
    DM_CHECK_ARG(list, "dmlops_command_list_get_counts");
    if (operation_count) *operation_count = list->count;
    if (barrier_count) *barrier_count = list->barrier_count;
    return DMLOPS_SUCCESS;
}

static dmlops_status dm_command_list_get_stats_impl(const dmlops_command_list *list, dmlops_execution_stats *stats)
{
    DM_CHECK_ARG(list, "dmlops_command_list_get_stats");
    DM_CHECK_ARG(stats, "dmlops_command_list_get_stats");
    /* Retiring an execution (any thread's call may) writes them under the lock. */
    dm_mutex_lock(&list->ctx->lock);
    const bool executed = list->executed;
    *stats = list->stats;
    dm_mutex_unlock(&list->ctx->lock);
    if (!executed) /* as get_access_stats: there is nothing to report yet */
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "dmlops_command_list_get_stats: the list has not been executed yet");
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_command_list_get_stats(const dmlops_command_list *list, dmlops_execution_stats *stats)
{
    const dmlops_status st = dm_command_list_get_stats_impl(list, stats);
    return list ? dm_logged(list->ctx, DMLOPS_LOG_OBJECT_COMMAND_LIST, list, st) : st;
}

static dmlops_status dm_command_list_get_access_stats_impl(const dmlops_command_list *list, dmlops_access_stats *stats)
{
    DM_CHECK_ARG(list, "dmlops_command_list_get_access_stats");
    DM_CHECK_ARG(stats, "dmlops_command_list_get_access_stats");
    if (!(list->ctx->flags & DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES))
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "dmlops_command_list_get_access_stats: the context was not created "
                                                 "with DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES");
    dm_mutex_lock(&list->ctx->lock); /* written when an execution retires */
    const dmlops_status st = list->access_status;
    char error[sizeof list->access_error];
    memcpy(error, list->access_error, sizeof error);
    *stats = list->access;
    dm_mutex_unlock(&list->ctx->lock);
    if (st != DMLOPS_SUCCESS) return dm_fail(st, "%s", error);
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_command_list_get_access_stats(const dmlops_command_list *list, dmlops_access_stats *stats)
{
    const dmlops_status st = dm_command_list_get_access_stats_impl(list, stats);
    return list ? dm_logged(list->ctx, DMLOPS_LOG_OBJECT_COMMAND_LIST, list, st) : st;
}

void dmlops_command_list_destroy(dmlops_command_list *list)
{
    if (!list) return;
    dmlops_context *ctx = list->ctx;
    dm_context_retain(ctx); /* across the close, which may wait for the list's execution */
    dm_list_release(list);
    dm_handles_close(ctx);
    dm_context_release(ctx);
}
