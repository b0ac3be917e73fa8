/* The CPU backend: buffers are host memory, and each operator runs the loop its
 * operator file specialises for its collapsed gather (op_*.c), split by output ranges
 * over the context's worker pool (cpu_pool.c).
 *
 * Concurrency: executions do not take the context lock, so several application threads
 * run at once, each on its own operator call; the pool interleaves their chunks. The
 * only shared state an execution writes is the operator's last_path, once, under the
 * lock that dmlops_operator_get_info reads it with. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fault.h"
#include "../elements.h"
#include "../gather.h"
#include "../internal.h"
#include "../platform/platform.h"
#include "copy_bytes.h"
#include "cpu_memory.h"
#include "cpu_pool.h"
#include "simd.h"

/* Work below this many bytes (read + written) per chunk is not split further: waking a
 * worker costs a few microseconds, the time to move about this much memory
 * (docs/performance.md, "CPU engine"). Operators under twice this run inline. */
#define DM_CPU_CHUNK_BYTES (128u << 10)
/* Chunks per thread: enough that a thread slowed by the rest of the machine does not
 * hold up the others, few enough that handing them out stays free. */
#define DM_CPU_CHUNKS_PER_THREAD 4
#define DM_CPU_MAX_THREADS 1024

/* A submission's CPU side: its place in the queue, and whether it has run. */
typedef struct dm_cpu_sub {
    struct dm_cpu_sub *next; /* the queue */
    dm_sub *s;
    atomic_bool done;        /* set under the queue's lock, read without it too */
    void *copy;              /* a write's bytes, copied at submission */
} dm_cpu_sub;

/* The asynchronous submissions of a context run in order on one thread of the context's
 * own (started with the first), which splits each over the worker pool exactly as a
 * caller's thread does for a synchronous call. */
typedef struct dm_cpu_queue {
    dm_mutex mu;
    dm_cond cv;               /* the thread: work or stop; waiters: a submission ran */
    dm_cpu_sub *head, *tail;
    dm_thread thread;
    bool started, unstartable, stop;
} dm_cpu_queue;

typedef struct dm_cpu_ctx {
    dm_cpu_queue q;
    dm_pool *pool;
    uint32_t threads;     /* configured: caller plus workers */
    uint64_t chunk_bytes; /* smallest chunk, in bytes of traffic */
    uint64_t stream_bytes; /* outputs this large are written with streaming stores */
    dm_isa isa;            /* the instruction set of the loops (cpu/simd.h) */
} dm_cpu_ctx;

typedef struct dm_cpu_op {
    dm_gather g;
    int64_t shift[DM_SLOT_COUNT]; /* bytes added to each binding's address (dm_cpu_walk_source_up) */
    dm_cpu_fn loop;
    uint64_t units, chunk_units; /* the loop's work units, and how many per chunk */
    uint32_t chunks;
    atomic_bool ran;
} dm_cpu_op;

static dm_cpu_ctx *dm_cpu(const dmlops_context *ctx) { return ctx->impl; }
static uint8_t *dm_cpu_data(const dmlops_buffer *buf) { return buf->impl; }

static void dm_cpu_context_destroy(dmlops_context *ctx)
{
    dm_cpu_ctx *c = dm_cpu(ctx);
    dm_mutex_lock(&c->q.mu); /* nothing is queued: every submission was retired */
    c->q.stop = true;
    dm_cond_broadcast(&c->q.cv);
    dm_mutex_unlock(&c->q.mu);
    if (c->q.started) dm_thread_join(&c->q.thread);
    dm_cond_destroy(&c->q.cv);
    dm_mutex_destroy(&c->q.mu);
    dm_pool_destroy(c->pool);
    dm_afree(&ctx->alloc, c);
}

/* The note ends with the instruction set the loops use, so that a benchmark or a test
 * can tell which ran. */
static void dm_cpu_context_info(dmlops_context *ctx, dmlops_context_info *info)
{
    info->cpu_threads = dm_pool_threads(dm_cpu(ctx)->pool);
    const size_t used = strlen(info->note);
    snprintf(info->note + used, sizeof info->note - used, "; %s loops", dm_isa_name(dm_cpu(ctx)->isa));
}

static dmlops_status dm_cpu_buffer_create(dmlops_buffer *buf)
{
    /* No host has 2^47 bytes to give; refusing early keeps allocators from aborting. A
     * 32-bit host cannot even count past SIZE_MAX: refused there, never truncated, so that
     * every size and offset inside a buffer fits in a size_t (elements.h). */
    const uint64_t most = (uint64_t)SIZE_MAX < (1ull << 47) ? (uint64_t)SIZE_MAX : 1ull << 47;
    if (buf->size > most)
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY,
                       "dmlops_buffer_create: size_in_bytes = %llu exceeds the %llu bytes the CPU backend can allocate "
                       "on this host",
                       (unsigned long long)buf->size, (unsigned long long)most);
    /* The application's callbacks, when it gave some, else the engine's own way to host
     * memory (cpu_memory.c: pages from the system for large buffers). */
    dmlops_context *ctx = buf->ctx;
    buf->impl = ctx->alloc.cb.allocate ? dm_alloc(&ctx->alloc, (size_t)buf->size, 64)
                                       : dm_cpu_memory_alloc((size_t)buf->size);
    if (buf->impl && !ctx->alloc.cb.allocate) dm_count_add(&ctx->host_extra, buf->size);
    if (!buf->impl)
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_buffer_create: cannot allocate %llu bytes of host memory",
                       (unsigned long long)buf->size);
    buf->resource = (uintptr_t)buf->impl;
    return DMLOPS_SUCCESS;
}

static void dm_cpu_buffer_destroy(dmlops_buffer *buf)
{
    dmlops_context *ctx = buf->ctx;
    if (ctx->alloc.cb.allocate) {
        dm_afree(&ctx->alloc, buf->impl);
        return;
    }
    dm_cpu_memory_free(buf->impl, (size_t)buf->size);
    dm_count_sub(&ctx->host_extra, buf->size);
}

/* Executions are synchronous, so everything submitted by this thread is complete; work
 * of other threads on the same bytes is for the application to order (docs/api.md). The
 * range lies inside the buffer (buffer.c), whose size fits in a size_t. */
static dmlops_status dm_cpu_buffer_write(dmlops_buffer *buf, uint64_t offset, const void *src, uint64_t size)
{
    dm_copy_bytes(dm_cpu_data(buf) + offset, src, size);
    return DMLOPS_SUCCESS;
}

static dmlops_status dm_cpu_buffer_read(dmlops_buffer *buf, uint64_t offset, void *dst, uint64_t size)
{
    dm_copy_bytes(dst, dm_cpu_data(buf) + offset, size);
    return DMLOPS_SUCCESS;
}

/* Splits the work into chunks moving at least chunk_bytes each, at most
 * DM_CPU_CHUNKS_PER_THREAD per thread. Chunks of output elements start on 64-byte lines,
 * so threads never write the same cache line in the middle of contiguous rows. */
static void dm_cpu_split(const dm_cpu_ctx *c, dm_cpu_op *o, uint64_t traffic, bool element_units)
{
    const uint64_t line = element_units && o->g.esize < 64 ? 64 / o->g.esize : 1;
    uint64_t chunks = c->threads > 1 ? traffic / c->chunk_bytes : 1;
    uint64_t most = (uint64_t)c->threads * DM_CPU_CHUNKS_PER_THREAD;
    if (chunks > most) chunks = most;
    if (chunks > o->units) chunks = o->units;
    if (chunks < 1) chunks = 1;
    uint64_t per = (o->units + chunks - 1) / chunks;
    per = per ? (per + line - 1) / line * line : line; /* units >= 1, so per >= 1 */
    o->chunk_units = per;
    o->chunks = (uint32_t)((o->units + per - 1) / per);
}

/* A slice whose rows are read downwards (rows reversed) is walked from its last output
 * row to its first, so that its source goes up through memory and its output down: the
 * prefetchers follow a stream up a page and into the next one, not down into the one
 * before, so each row of a page or so read downwards started cold (SLICE1 of [16384, 4096]
 * UINT8, rows reversed, every other column: 9.3-10.7 ms on one thread read downwards,
 * 7.2-8.2 written downwards, 6.9-7.9 with the rows in order, in a standalone loop). Only
 * where the source rows are at least as far apart as the output's, so that the slot that
 * moves more goes up; the dimensions of an axis (REVERSE, ONE_HOT) keep their order. The
 * flipped dimension's strides change sign and each binding's address moves to the
 * element of the new origin (o->shift), so the loops see an ordinary gather. */
static void dm_cpu_walk_source_up(dm_cpu_op *o)
{
    dm_gather *g = &o->g;
    if (g->kernel != DM_KERNEL_SLICE || g->axis >= 0) return;
    for (uint32_t d = 0; d + 1 < g->rank; d++) {
        const int64_t src = g->stride[DM_SLOT_SRC][d], dst = g->stride[DM_SLOT_DST][d];
        if (src >= 0 || dst <= 0 || -src < dst) continue;
        for (uint32_t s = 0; s < DM_SLOT_COUNT; s++) {
            const int64_t es = s == DM_SLOT_AUX ? g->aux_esize : g->esize;
            o->shift[s] += (int64_t)(g->size[d] - 1) * g->stride[s][d] * es; /* inside the binding: an element of it */
            g->stride[s][d] = -g->stride[s][d];
        }
    }
}

static dmlops_status dm_cpu_operator_create(dmlops_operator *op)
{
    DM_TRY(dm_op_check_host_addressable(&op->op));
    dm_cpu_op *o = dm_zalloc(&op->ctx->alloc, 1, sizeof *o);
    if (!o) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: out of host memory", op->op.name);
    dm_op_lower(&op->op, &o->g);
    dm_gather_order_by_output(&o->g);
    dm_cpu_walk_source_up(o);
    o->g.stream = op->info.bytes_written >= dm_cpu(op->ctx)->stream_bytes;
    o->g.isa = dm_cpu(op->ctx)->isa;
    dm_cpu_loop loop = op->op.cls->cpu_loop(&o->g);
    o->loop = loop.fn;
    o->units = loop.units ? loop.units : dm_gather_elements(&o->g);
    atomic_init(&o->ran, false);
    dm_cpu_split(dm_cpu(op->ctx), o, op->info.bytes_read + op->info.bytes_written, loop.units == 0);
    op->impl = o;
    op->info.planned_path = DMLOPS_PATH_CPU;
    return DMLOPS_SUCCESS;
}

static void dm_cpu_operator_destroy(dmlops_operator *op) { dm_afree(&op->ctx->alloc, op->impl); }

static void dm_cpu_operator_memory(const dmlops_operator *op, dmlops_memory_info *m)
{
    (void)op;
    m->host_bytes += sizeof(dm_cpu_op);
}

typedef struct dm_cpu_job {
    const dm_cpu_op *o;
    uint8_t *slot[DM_SLOT_COUNT];
} dm_cpu_job;

static void dm_cpu_chunk(void *arg, uint32_t c)
{
    const dm_cpu_job *j = arg;
    const dm_cpu_op *o = j->o;
    uint64_t u0 = (uint64_t)c * o->chunk_units, u1 = u0 + o->chunk_units;
    o->loop(&o->g, j->slot, u0, u1 < o->units ? u1 : o->units);
}

static dmlops_status dm_cpu_operator_execute(dmlops_operator *op, const dmlops_binding *bind)
{
    dm_cpu_op *o = op->impl;
    dm_cpu_job j = {.o = o};
    for (uint32_t s = 0; s < DM_SLOT_COUNT; s++)
        if (o->g.binding[s] >= 0)
            j.slot[s] = dm_cpu_data(bind[o->g.binding[s]].buffer) + bind[o->g.binding[s]].offset + o->shift[s];
    dm_pool_run(dm_cpu(op->ctx)->pool, o->chunks, dm_cpu_chunk, &j);
    if (!atomic_exchange(&o->ran, true)) {
        dm_mutex_lock(&op->ctx->lock);
        op->info.last_path = DMLOPS_PATH_CPU;
        dm_mutex_unlock(&op->ctx->lock);
    }
    return DMLOPS_SUCCESS;
}

static dmlops_status dm_cpu_list_create(dmlops_command_list *list) { (void)list; return DMLOPS_SUCCESS; }
static void dm_cpu_list_destroy(dmlops_command_list *list) { (void)list; }
static dmlops_status dm_cpu_list_record(dmlops_command_list *list, dm_list_entry *e) { (void)list; (void)e; return DMLOPS_SUCCESS; }
static void dm_cpu_list_reset(dmlops_command_list *list) { (void)list; }

/* Entries run in order, each split over the pool: an entry starts once the previous
 * one has finished, which orders every hazard the list recorded. (Its statistics are
 * the front end's: gpu_seconds stays negative.) */
static dmlops_status dm_cpu_list_execute(dmlops_command_list *list)
{
    for (uint32_t i = 0; i < list->count; i++) {
        const dm_list_entry *e = &list->entries[i];
        if (e->op) {
            DM_TRY(dm_cpu_operator_execute(e->op, e->bind));
        } else {
            dm_copy_bytes(dm_cpu_data(e->copy_dst) + e->copy_dst_offset, dm_cpu_data(e->copy_src) + e->copy_src_offset,
                          e->copy_size);
        }
    }
    return DMLOPS_SUCCESS;
}

/* ---- asynchronous submissions ----------------------------------------------------------- */

/* Runs a submission's work (none of it can fail on the CPU). */
static void dm_cpu_run(dm_cpu_sub *c)
{
    const dm_sub *s = c->s;
    switch (s->kind) {
    case DM_SUB_OPERATOR: (void)dm_cpu_operator_execute(s->op, s->bind); break;
    case DM_SUB_LIST: (void)dm_cpu_list_execute(s->list); break;
    case DM_SUB_WRITE: /* a transfer holds its buffer in bind[0]; the copy exists when size does */
        if (s->size && c->copy) dm_copy_bytes(dm_cpu_data(s->bind[0].buffer) + s->offset, c->copy, s->size);
        break;
    case DM_SUB_READ:
        if (s->size && s->host) dm_copy_bytes(s->host, dm_cpu_data(s->bind[0].buffer) + s->offset, s->size);
        break;
    }
}

static void dm_cpu_queue_main(void *arg)
{
    dm_cpu_queue *q = arg;
    dm_mutex_lock(&q->mu);
    for (;;) {
        while (!q->head && !q->stop) dm_cond_wait(&q->cv, &q->mu);
        dm_cpu_sub *c = q->head;
        if (!c) break; /* stopped, with nothing queued */
        q->head = c->next;
        if (!q->head) q->tail = NULL;
        dm_mutex_unlock(&q->mu);
        dm_cpu_run(c);
        dm_mutex_lock(&q->mu);
        atomic_store_explicit(&c->done, true, memory_order_release);
        dm_cond_broadcast(&q->cv);
    }
    dm_mutex_unlock(&q->mu);
}

static dmlops_status dm_cpu_sub_start(dm_sub *s)
{
    dm_cpu_sub *c = s->impl;
    dm_cpu_queue *q = &dm_cpu(s->ctx)->q;
    c->s = s;
    c->next = NULL;
    c->copy = NULL;
    atomic_store_explicit(&c->done, false, memory_order_relaxed);
    if (s->kind == DM_SUB_WRITE && s->size) { /* the caller may reuse its memory at once */
        if (!(c->copy = dm_alloc(&s->ctx->alloc, (size_t)s->size, 0)))
            return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: cannot copy %llu bytes of host memory", s->fn,
                           (unsigned long long)s->size);
        memcpy(c->copy, s->host, (size_t)s->size);
    }
    dm_mutex_lock(&q->mu);
    if (!q->started && !q->unstartable) {
        q->started = dm_thread_start(&q->thread, dm_cpu_queue_main, q);
        q->unstartable = !q->started;
    }
    if (q->started) {
        if (q->tail) q->tail->next = c;
        else q->head = c;
        q->tail = c;
        dm_cond_broadcast(&q->cv);
    }
    dm_mutex_unlock(&q->mu);
    if (!q->started) { /* no thread to be had: the work runs now, as a synchronous call would */
        dm_cpu_run(c);
        atomic_store_explicit(&c->done, true, memory_order_release);
    }
    return DMLOPS_SUCCESS;
}

static dmlops_status dm_cpu_sub_wait(dm_sub *s, uint64_t timeout_ns)
{
    dm_cpu_sub *c = s->impl;
    dm_cpu_queue *q = &dm_cpu(s->ctx)->q;
    if (atomic_load_explicit(&c->done, memory_order_acquire)) return DMLOPS_SUCCESS;
    if (!timeout_ns) return DMLOPS_TIMEOUT;
    const uint64_t start = dm_now_ns();
    dm_mutex_lock(&q->mu);
    while (!atomic_load_explicit(&c->done, memory_order_acquire)) {
        if (timeout_ns == UINT64_MAX) {
            dm_cond_wait(&q->cv, &q->mu);
            continue;
        }
        const uint64_t spent = dm_now_ns() - start;
        if (spent >= timeout_ns) break;
        dm_cond_timedwait(&q->cv, &q->mu, timeout_ns - spent);
    }
    dm_mutex_unlock(&q->mu);
    return atomic_load_explicit(&c->done, memory_order_acquire) ? DMLOPS_SUCCESS : DMLOPS_TIMEOUT;
}

static bool dm_cpu_sub_done(dm_sub *s, dmlops_status *status)
{
    *status = DMLOPS_SUCCESS;
    return atomic_load_explicit(&((dm_cpu_sub *)s->impl)->done, memory_order_acquire);
}

static void dm_cpu_sub_retire(dm_sub *s)
{
    dm_cpu_sub *c = s->impl;
    dm_afree(&s->ctx->alloc, c->copy);
    c->copy = NULL;
}

const dm_backend_vtbl dm_cpu_vtbl = {
    .concurrent_execute = true,
    .sync_inline = true,
    .sub_size = sizeof(dm_cpu_sub),
    .sub_start = dm_cpu_sub_start,
    .sub_wait = dm_cpu_sub_wait,
    .sub_done = dm_cpu_sub_done,
    .sub_retire = dm_cpu_sub_retire,
    .operator_memory = dm_cpu_operator_memory,
    .context_destroy = dm_cpu_context_destroy,
    .context_info = dm_cpu_context_info,
    .buffer_create = dm_cpu_buffer_create,
    .buffer_destroy = dm_cpu_buffer_destroy,
    .buffer_write = dm_cpu_buffer_write,
    .buffer_read = dm_cpu_buffer_read,
    .operator_create = dm_cpu_operator_create,
    .operator_destroy = dm_cpu_operator_destroy,
    .operator_execute = dm_cpu_operator_execute,
    .list_create = dm_cpu_list_create,
    .list_destroy = dm_cpu_list_destroy,
    .list_record = dm_cpu_list_record,
    .list_execute = dm_cpu_list_execute,
    .list_reset = dm_cpu_list_reset,
};

dmlops_status dm_cpu_context_init(dmlops_context *ctx, const dm_cpu_params *params)
{
    uint32_t threads = params->threads;
    const char *env = getenv("DMLOPS_CPU_THREADS");
    if (!threads && env && *env) {
        char *end = NULL;
        unsigned long v = strtoul(env, &end, 10);
        if (*end || env[0] < '0' || env[0] > '9' || v < 1 || v > DM_CPU_MAX_THREADS)
            return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "DMLOPS_CPU_THREADS = \"%s\" is not a thread count from 1 to %u",
                           env, DM_CPU_MAX_THREADS);
        threads = (uint32_t)v;
    }
    if (threads > DM_CPU_MAX_THREADS)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s.cpu_threads = %u exceeds %u", params->options, threads,
                       DM_CPU_MAX_THREADS);
    if (params->wait > DMLOPS_CPU_WAIT_SLEEP)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                       "%s.cpu_wait = %u is not a DMLOPS_CPU_WAIT_* value (0 to 2)", params->options, params->wait);
    /* DMLOPS_CPU_ISA names an instruction set this build and CPU offer (testing, and
     * measuring one against another); unset, the best of them. */
    dm_isa isa = dm_isa_best();
    const char *isa_env = getenv("DMLOPS_CPU_ISA");
    if (isa_env && *isa_env) {
        const uint32_t offered = dm_isa_offered();
        if (!dm_isa_from_name(isa_env, &isa) || !(offered & (1u << isa))) {
            char names[64] = "";
            for (uint32_t i = 0; i < DM_ISA_COUNT; i++)
                if (offered & (1u << i))
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", *names ? ", " : "",
                             dm_isa_name((dm_isa)i));
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                           "DMLOPS_CPU_ISA = \"%s\" is not an instruction set of this build and CPU (%s)", isa_env, names);
        }
    }
    const uint32_t cpus = dm_cpu_count();
    if (!threads) threads = cpus;
    /* Polling only pays when every thread has a CPU of its own: otherwise a spinning
     * thread takes the CPU from one that has work. */
    const bool spin = params->wait == DMLOPS_CPU_WAIT_SPIN || (params->wait == DMLOPS_CPU_WAIT_DEFAULT && threads <= cpus);
    dm_cpu_ctx *c = dm_zalloc(&ctx->alloc, 1, sizeof *c);
    const bool mu = c && dm_mutex_init(&c->q.mu), cv = c && dm_cond_init(&c->q.cv);
    if (c && mu && cv) c->pool = dm_pool_create(threads, spin);
    if (!c || !c->pool) {
        if (mu) dm_mutex_destroy(&c->q.mu);
        if (cv) dm_cond_destroy(&c->q.cv);
        dm_afree(&ctx->alloc, c);
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_context_create: out of host memory");
    }
    c->threads = threads;
    c->chunk_bytes = params->chunk_bytes ? params->chunk_bytes : DM_CPU_CHUNK_BYTES;
    c->stream_bytes = params->stream_bytes ? params->stream_bytes : dm_stream_min_bytes();
    c->isa = isa;
    ctx->impl = c;
    ctx->vt = &dm_cpu_vtbl;
    return DMLOPS_SUCCESS;
}
