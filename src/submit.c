/* The lifetimes of objects, and the submissions and fences that hold them (internal.h,
 * "Lifetimes" and dm_sub; dmlops.h, "Asynchronous submission"): one unit, as releasing
 * what a submission held and waiting for submissions when the last handle goes need each
 * other. The context keeps its submissions in flight in submission order, under its
 * lock; a submission is retired once its backend says it has completed, which is checked
 * at every later submission, wait and poll. Waiting happens without the lock: the waiter
 * pins the submission, so that it is not reused under it, and the backend's wait reads
 * only what the submission keeps for its whole life (a VkFence, a timeline value, a done
 * flag). References are dropped after the lock is released, as the last one may free an
 * object, or the context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "fault.h"
#include "internal.h"

/* ---- reference counts and handles (internal.h, "Lifetimes") ---------------------------- */

dmlops_status dm_check_lost(const dmlops_context *ctx, const char *fn)
{
    if (!ctx->vt->lost || !ctx->vt->lost(ctx)) return DMLOPS_SUCCESS;
    return dm_fail(DMLOPS_ERROR_DEVICE_LOST, "%s: the device was lost; the context is unusable", fn);
}

void dm_context_free(dmlops_context *ctx)
{
    dm_mutex_destroy(&ctx->lock);
    dm_allocator a; /* the context's own, which must outlive the block it is in */
    a.cb = ctx->alloc.cb;
    dm_count_init(&a.bytes, dm_count_load(&ctx->alloc.bytes));
    dm_afree(&a, ctx);
}

void dm_context_retain(dmlops_context *ctx) { atomic_fetch_add_explicit(&ctx->refs, 1, memory_order_relaxed); }

void dm_context_release(dmlops_context *ctx)
{
    if (atomic_fetch_sub_explicit(&ctx->refs, 1, memory_order_acq_rel) != 1) return; /* still held */
    dm_subs_free(ctx); /* nothing is in flight: every submission held an object */
    ctx->vt->context_destroy(ctx);
    dm_context_free(ctx);
}

void dm_handles_open(dmlops_context *ctx) { atomic_fetch_add_explicit(&ctx->handles, 1, memory_order_relaxed); }

void dm_handles_close(dmlops_context *ctx)
{
    if (atomic_fetch_sub_explicit(&ctx->handles, 1, memory_order_acq_rel) != 1) return;
    /* No handle is left to wait with: the work in flight is waited for here, and what it
     * held is let go, which frees it (its failure has no one to be told to). */
    char message[1024]; /* a destroy reports nothing: the thread's last message stays */
    snprintf(message, sizeof message, "%s", dmlops_last_error_message());
    (void)dm_wait_in_flight(ctx);
    dm_set_message("%s", message);
}

void dm_buffer_retain(dmlops_buffer *buf) { atomic_fetch_add_explicit(&buf->refs, 1, memory_order_relaxed); }

void dm_buffer_release(dmlops_buffer *buf)
{
    if (atomic_fetch_sub_explicit(&buf->refs, 1, memory_order_acq_rel) != 1) return; /* still held */
    dmlops_context *ctx = buf->ctx;
    ctx->vt->buffer_destroy(buf);
    dm_afree(&ctx->alloc, buf);
    dm_context_release(ctx);
}

void dm_operator_retain(dmlops_operator *op) { atomic_fetch_add_explicit(&op->refs, 1, memory_order_relaxed); }

void dm_operator_release(dmlops_operator *op)
{
    if (atomic_fetch_sub_explicit(&op->refs, 1, memory_order_acq_rel) != 1) return; /* still held */
    dmlops_context *ctx = op->ctx;
    ctx->vt->operator_destroy(op);
    dm_afree(&ctx->alloc, op);
    dm_context_release(ctx);
}

/* Takes (or gives back) the entry's references to its operator and buffers, so that
 * destroying one of them while the list still names it cannot free it under the list. */
void dm_list_entry_hold(const dm_list_entry *e, bool take)
{
    if (e->op) take ? dm_operator_retain(e->op) : dm_operator_release(e->op);
    for (uint32_t i = 0; i < e->nbind; i++)
        if (e->bind[i].buffer) take ? dm_buffer_retain(e->bind[i].buffer) : dm_buffer_release(e->bind[i].buffer);
    if (e->copy_dst) take ? dm_buffer_retain(e->copy_dst) : dm_buffer_release(e->copy_dst);
    if (e->copy_src) take ? dm_buffer_retain(e->copy_src) : dm_buffer_release(e->copy_src);
}

/* Releases what the list's entries hold, after the backend forgot them. */
void dm_list_release_entries(dmlops_command_list *l)
{
    for (uint32_t i = 0; i < l->count; i++) dm_list_entry_hold(&l->entries[i], false);
}

void dm_list_retain(dmlops_command_list *list) { atomic_fetch_add_explicit(&list->refs, 1, memory_order_relaxed); }

void dm_list_release(dmlops_command_list *list)
{
    if (atomic_fetch_sub_explicit(&list->refs, 1, memory_order_acq_rel) != 1) return; /* still held */
    dmlops_context *ctx = list->ctx;
    ctx->vt->list_reset(list);
    dm_list_release_entries(list);
    ctx->vt->list_destroy(list);
    dm_afree(&ctx->alloc, list->entries);
    dm_range_set_free(&ctx->alloc, &list->reads);
    dm_range_set_free(&ctx->alloc, &list->writes);
    dm_afree(&ctx->alloc, list);
    dm_context_release(ctx);
}

/* ---- submissions ---------------------------------------------------------------------- */

static void dm_sub_keep(dmlops_context *ctx, dm_sub *s)
{
    s->next = ctx->spare;
    ctx->spare = s;
}

/* A kept submission, or a new one; NULL when out of memory. Lock held. */
static dm_sub *dm_sub_take(dmlops_context *ctx)
{
    dm_sub *s = ctx->spare;
    if (s) {
        ctx->spare = s->next;
    } else {
        s = dm_zalloc(&ctx->alloc, 1, sizeof *s);
        if (!s) return NULL;
        if (ctx->vt->sub_size && !(s->impl = dm_zalloc(&ctx->alloc, 1, ctx->vt->sub_size))) {
            dm_afree(&ctx->alloc, s);
            return NULL;
        }
    }
    void *impl = s->impl; /* the backend's state lives as long as the structure */
    memset(s, 0, sizeof *s);
    s->impl = impl;
    s->ctx = ctx;
    return s;
}

void dm_subs_free(dmlops_context *ctx)
{
    while (ctx->spare) {
        dm_sub *s = ctx->spare;
        ctx->spare = s->next;
        if (ctx->vt->sub_free) ctx->vt->sub_free(s);
        dm_afree(&ctx->alloc, s->impl);
        dm_afree(&ctx->alloc, s);
    }
}

/* Lock held: retires, oldest first, every submission that completed into *done (linked
 * through next). They run in order, so one that completed after a later one was seen
 * complete is taken as complete too. */
static void dm_retire(dmlops_context *ctx, dm_sub **done)
{
    for (dm_sub *s; (s = ctx->oldest) != NULL;) {
        dmlops_status st = DMLOPS_SUCCESS;
        if (!ctx->vt->sub_done(s, &st)) {
            bool later = false;
            for (dm_sub *t = s->next; t && !later; t = t->next) later = ctx->vt->sub_done(t, &st);
            if (!later) return;
            st = DMLOPS_SUCCESS;
        }
        ctx->oldest = s->next;
        if (!ctx->oldest) ctx->newest = NULL;
        atomic_fetch_sub_explicit(&ctx->in_flight, 1, memory_order_release);
        s->status = st;
        ctx->vt->sub_retire(s); /* a read's copy into the caller's memory; may fail it */
        s->retired = true;
        if (s->list) {
            s->list->pending = NULL;
            if (s->status == DMLOPS_SUCCESS) {
                s->list->stats.wall_seconds = dm_now() - s->t0;
                s->list->executed = true;
            }
        }
        if (s->fence) {
            s->fence->status = s->status;
            s->fence->done = true;
            s->fence->sub = NULL;
        }
        s->next = *done;
        *done = s;
    }
}

static void dm_fence_release(dmlops_fence *f);

/* Without the lock: drops what the retired submissions held, then keeps them for reuse
 * (those still pinned are kept by their last waiter). The caller holds a reference to
 * ctx, which these releases may not free. */
static void dm_release(dmlops_context *ctx, dm_sub *done)
{
    if (!done) return;
    for (dm_sub *s = done; s; s = s->next) {
        if (s->op) dm_operator_release(s->op);
        if (s->list) dm_list_release(s->list);
        for (uint32_t i = 0; i < s->nbind; i++) dm_buffer_release(s->bind[i].buffer);
        if (s->fence) dm_fence_release(s->fence);
    }
    dm_mutex_lock(&ctx->lock);
    for (dm_sub *s = done, *next; s; s = next) {
        next = s->next;
        s->released = true;
        if (!s->pins) dm_sub_keep(ctx, s);
    }
    dm_mutex_unlock(&ctx->lock);
}

/* Lock held on entry and exit: waits at most timeout_ns for s without the lock, then
 * retires what completed. The wait's status. */
static dmlops_status dm_wait_sub(dmlops_context *ctx, dm_sub *s, uint64_t timeout_ns, dm_sub **done)
{
    s->pins++;
    dm_mutex_unlock(&ctx->lock);
    const dmlops_status st = ctx->vt->sub_wait(s, timeout_ns);
    dm_mutex_lock(&ctx->lock);
    s->pins--;
    dm_retire(ctx, done);
    if (!s->pins && s->released) dm_sub_keep(ctx, s); /* its releaser left it to us */
    return st;
}

/* Lock held: waits until nothing is in flight; the first failure met (a wait's or a
 * submission's), else SUCCESS. */
static dmlops_status dm_wait_all(dmlops_context *ctx, dm_sub **done)
{
    dmlops_status first = DMLOPS_SUCCESS;
    dm_retire(ctx, done);
    while (ctx->newest) {
        dm_sub *s = ctx->newest;
        const dmlops_status st = dm_wait_sub(ctx, s, UINT64_MAX, done);
        if (st != DMLOPS_SUCCESS && first == DMLOPS_SUCCESS) first = st;
        if (st != DMLOPS_SUCCESS && ctx->newest == s) break; /* cannot be waited for: reported */
    }
    for (const dm_sub *s = *done; s && first == DMLOPS_SUCCESS; s = s->next) first = s->status;
    return first;
}

dmlops_status dm_wait_in_flight(dmlops_context *ctx)
{
    if (!atomic_load_explicit(&ctx->in_flight, memory_order_acquire)) return DMLOPS_SUCCESS;
    dm_sub *done = NULL;
    dm_mutex_lock(&ctx->lock);
    const dmlops_status st = dm_wait_all(ctx, &done);
    dm_mutex_unlock(&ctx->lock);
    dm_release(ctx, done);
    return st;
}

void dm_list_wait(dmlops_command_list *list)
{
    dmlops_context *ctx = list->ctx;
    dm_sub *done = NULL;
    dm_mutex_lock(&ctx->lock);
    for (dm_sub *p; (p = list->pending) != NULL;)
        if (dm_wait_sub(ctx, p, UINT64_MAX, &done) != DMLOPS_SUCCESS && list->pending == p) break; /* stuck: reported */
    dm_mutex_unlock(&ctx->lock);
    dm_release(ctx, done);
}

/* A dmlops_submit_info's s_type and chain. */
static dmlops_status dm_submit_ext_parse(const char *fn, const dmlops_submit_info *info, dm_submit_ext *ext)
{
    memset(ext, 0, sizeof *ext);
    if (!info) return DMLOPS_SUCCESS;
    DM_TRY(dm_chain_head(fn, "dmlops_submit_info", info, DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO));
    static const dmlops_structure_type allowed[] = {DMLOPS_STRUCTURE_TYPE_VULKAN_SEMAPHORES};
    const void *found[1];
    DM_TRY(dm_chain_parse(fn, "dmlops_submit_info", info->next, allowed, 1, found));
    ext->vulkan_semaphores = found[0];
    return DMLOPS_SUCCESS;
}

dmlops_status dm_submit(const char *fn, dm_sub *proto, const dmlops_submit_info *info, bool sync,
                        dmlops_fence **fence_out)
{
    dmlops_context *ctx = proto->ctx;
    dm_submit_ext ext;
    if (fence_out) *fence_out = NULL;
    DM_TRY(dm_submit_ext_parse(fn, info, &ext));
    if (ext.vulkan_semaphores && ctx->backend != DMLOPS_BACKEND_VULKAN)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                       "%s: a dmlops_vulkan_semaphores is chained, but the context runs on the CPU backend", fn);
    dmlops_fence *fence = NULL;
    if (fence_out && !(fence = dm_zalloc(&ctx->alloc, 1, sizeof *fence)))
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
    dm_sub *done = NULL;
    dmlops_status st = DMLOPS_SUCCESS;
    dm_mutex_lock(&ctx->lock);
    dm_retire(ctx, &done);
    /* A list runs one execution at a time (its command buffer, its statistics). */
    for (dm_sub *p; proto->list && (p = proto->list->pending) != NULL && st == DMLOPS_SUCCESS;) {
        st = dm_wait_sub(ctx, p, UINT64_MAX, &done);
        if (st != DMLOPS_SUCCESS && proto->list->pending != p) st = DMLOPS_SUCCESS; /* it ended after all */
    }
    /* A tracing context's kernels share one record buffer: one submission at a time. */
    if (st == DMLOPS_SUCCESS && (ctx->flags & DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES)) dm_wait_all(ctx, &done);
    dm_sub *s = st == DMLOPS_SUCCESS ? dm_sub_take(ctx) : NULL;
    if (st == DMLOPS_SUCCESS && !s) st = dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", fn);
    if (s) {
        void *impl = s->impl;
        *s = *proto;
        s->impl = impl;
        s->next = NULL;
        s->ext = &ext;
        s->fn = fn;
        s->fence = fence;
        s->ticket = ctx->tickets + 1;
        s->t0 = dm_now();
        st = ctx->vt->sub_start(s);
        /* Started: a backend thread may read the submission now (the CPU's reads a read's
         * host pointer), so only what it never reads is touched here. */
        s->ext = NULL;
        s->fn = NULL;
        if (s->kind == DM_SUB_WRITE) s->host = NULL; /* the caller's source, copied at the start */
        if (st != DMLOPS_SUCCESS) {
            dm_sub_keep(ctx, s); /* holds nothing yet */
            s = NULL;
        }
    }
    if (s) {
        ctx->tickets = s->ticket;
        if (s->op) dm_operator_retain(s->op);
        if (s->list) {
            dm_list_retain(s->list);
            s->list->pending = s;
        }
        for (uint32_t i = 0; i < s->nbind; i++) dm_buffer_retain(s->bind[i].buffer);
        if (fence) {
            atomic_init(&fence->refs, 2); /* the application's and the submission's */
            fence->ctx = ctx;
            fence->sub = s;
            fence->read = s->kind == DM_SUB_READ;
            fence->semaphore = s->semaphore;
            fence->value = s->value;
            dm_context_retain(ctx);
            dm_handles_open(ctx);
        }
        if (ctx->newest) ctx->newest->next = s;
        else ctx->oldest = s;
        ctx->newest = s;
        atomic_fetch_add_explicit(&ctx->in_flight, 1, memory_order_release);
        if (sync) {
            const dmlops_status w = dm_wait_sub(ctx, s, UINT64_MAX, &done);
            st = s->retired ? s->status : w;
            if (st == DMLOPS_ERROR_DEVICE_LOST && s->retired)
                dm_set_message("%s: the device was lost; the context is unusable", fn);
        }
    }
    dm_mutex_unlock(&ctx->lock);
    dm_release(ctx, done);
    if (st != DMLOPS_SUCCESS && !s) dm_afree(&ctx->alloc, fence);
    else if (fence_out) *fence_out = fence;
    return st;
}

/* ---- fences -------------------------------------------------------------------------- */

static void dm_fence_release(dmlops_fence *f)
{
    if (atomic_fetch_sub_explicit(&f->refs, 1, memory_order_acq_rel) != 1) return;
    dmlops_context *ctx = f->ctx;
    dm_afree(&ctx->alloc, f);
    dm_context_release(ctx);
}

static dmlops_status dm_fence_wait_impl(dmlops_fence *fence, uint64_t timeout_ns)
{
    DM_CHECK_ARG(fence, "dmlops_fence_wait");
    dmlops_context *ctx = fence->ctx;
    dm_sub *done = NULL;
    dmlops_status st = DMLOPS_SUCCESS;
    dm_mutex_lock(&ctx->lock);
    if (!fence->done) dm_retire(ctx, &done);
    if (!fence->done) {
        st = dm_wait_sub(ctx, fence->sub, timeout_ns, &done);
        if (st != DMLOPS_SUCCESS && st != DMLOPS_TIMEOUT) dm_prefix_message("dmlops_fence_wait");
    }
    const bool signalled = fence->done;
    if (signalled) st = fence->status;
    else if (st == DMLOPS_SUCCESS) st = DMLOPS_TIMEOUT; /* not retired: not everything before it is done */
    dm_mutex_unlock(&ctx->lock);
    dm_release(ctx, done);
    if (signalled && st == DMLOPS_ERROR_DEVICE_LOST)
        return dm_fail(st, "dmlops_fence_wait: the device was lost; the context is unusable");
    if (signalled && st != DMLOPS_SUCCESS)
        return dm_fail(st, "dmlops_fence_wait: the submission failed: %s", dmlops_status_string(st));
    return st;
}

dmlops_status dmlops_fence_wait(dmlops_fence *fence, uint64_t timeout_ns)
{
    const dmlops_status st = dm_fence_wait_impl(fence, timeout_ns);
    return fence ? dm_logged(fence->ctx, DMLOPS_LOG_OBJECT_FENCE, fence, st) : st;
}

dmlops_status dmlops_fence_poll(dmlops_fence *fence)
{
    DM_CHECK_ARG(fence, "dmlops_fence_poll");
    const dmlops_status st = dmlops_fence_wait(fence, 0);
    if (st != DMLOPS_SUCCESS && st != DMLOPS_TIMEOUT) return dm_name_call("dmlops_fence_poll", st);
    return st == DMLOPS_TIMEOUT ? DMLOPS_NOT_READY : st;
}

void dmlops_fence_destroy(dmlops_fence *fence)
{
    if (!fence) return;
    dmlops_context *ctx = fence->ctx;
    dm_context_retain(ctx); /* across the close */
    if (fence->read) {
        /* The read writes the caller's memory at its completion: it must not outlive the
         * only means the caller has to know when that is. */
        dm_mutex_lock(&ctx->lock);
        const bool done = fence->done;
        dm_mutex_unlock(&ctx->lock);
        if (!done) (void)dmlops_fence_wait(fence, UINT64_MAX);
    }
    dm_fence_release(fence);
    dm_handles_close(ctx);
    dm_context_release(ctx);
}

static dmlops_status dm_context_wait_idle_impl(dmlops_context *ctx)
{
    DM_CHECK_ARG(ctx, "dmlops_context_wait_idle");
    return dm_name_call("dmlops_context_wait_idle", dm_wait_in_flight(ctx));
}

dmlops_status dmlops_context_wait_idle(dmlops_context *ctx)
{
    const dmlops_status st = dm_context_wait_idle_impl(ctx);
    return ctx ? dm_logged(ctx, DMLOPS_LOG_OBJECT_CONTEXT, ctx, st) : st;
}
