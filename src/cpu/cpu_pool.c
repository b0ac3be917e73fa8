/* The CPU backend's worker pool (see cpu_pool.h). All job state lives under one mutex:
 * chunks are coarse (tens to hundreds of kilobytes each), so handing them out under a
 * lock costs nothing measurable, and it makes job lifetimes trivial: a job is only
 * reachable from the queue, and leaves it before its caller can return.
 *
 * Waiting spins for a while before it sleeps. A thread asleep on a condition variable
 * takes 10-30 microseconds to wake on a virtual machine (an interrupt to a halted
 * virtual CPU), longer than a 1 MiB operator takes on one core; with sleeping only, a
 * worker joined late, held its caller up, and a 1 MiB SLICE1 took 20-30 us on two
 * threads against 10 us on one (docs/performance.md, "CPU engine"). So a worker that
 * finds no job polls the queue for DM_POOL_SPIN_NS before it sleeps, catching the next
 * operator of a sequence awake, and a caller whose last chunks run elsewhere polls for
 * them before it sleeps. Neither spins when the pool has more threads than the process
 * has CPUs: there a spinning thread takes the CPU from one that has work. */
#include "../fault.h"
#include "../platform/platform.h"
#include "cpu_pool.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

/* How long a waiting thread polls before it sleeps: a few wake-ups' worth. */
#define DM_POOL_SPIN_NS 100000

typedef struct dm_job {
    dm_pool_fn fn;
    void *arg;
    uint32_t chunks, next;
    atomic_uint done;     /* written under the pool's lock; its caller polls it without */
    struct dm_job *older, *newer; /* the queue of jobs with chunks not yet handed out */
} dm_job;

struct dm_pool {
    dm_mutex mu;
    dm_cond work;          /* workers: a job was queued, or stop */
    dm_cond done;          /* callers: a chunk of some job finished */
    dm_job *oldest, *newest;
    atomic_uint queued;    /* jobs in the queue; written under mu, polled by spinning workers */
    bool spin;             /* wait by polling first (dmlops_context_options.cpu_wait) */
    uint32_t want;         /* workers to start: threads - 1 */
    uint32_t started;
    bool tried, stop;
    dm_thread *workers;
};

/* Takes the next chunk of j; drops j from the queue when that was its last. */
static uint32_t dm_take(dm_pool *p, dm_job *j)
{
    uint32_t c = j->next++;
    if (j->next == j->chunks) {
        if (j->older) j->older->newer = j->newer;
        else p->oldest = j->newer;
        if (j->newer) j->newer->older = j->older;
        else p->newest = j->older;
        atomic_fetch_sub_explicit(&p->queued, 1, memory_order_relaxed);
    }
    return c;
}

/* Polls until *v != unequal (want_equal false) or *v == equal, for at most
 * DM_POOL_SPIN_NS; true when the condition came. Called without the lock. */
static bool dm_spin_until(const atomic_uint *v, unsigned target, bool want_equal)
{
    uint64_t start = 0;
    for (uint32_t i = 0;; i++) {
        unsigned x = atomic_load_explicit(v, memory_order_acquire);
        if ((x == target) == want_equal) return true;
        if ((i & 63) == 63) {
            uint64_t t = dm_now_ns();
            if (!start) start = t;
            else if (t - start > DM_POOL_SPIN_NS) return false;
        }
        dm_cpu_relax();
    }
}

/* Runs chunk c of j outside the lock; called and returns with the lock held. */
static void dm_run_chunk(dm_pool *p, dm_job *j, uint32_t c)
{
    const uint32_t chunks = j->chunks; /* j may be gone once done reaches it */
    dm_mutex_unlock(&p->mu);
    j->fn(j->arg, c);
    dm_mutex_lock(&p->mu);
    if (atomic_fetch_add_explicit(&j->done, 1, memory_order_release) + 1 == chunks)
        dm_cond_broadcast(&p->done);
}

static void dm_worker(void *arg)
{
    dm_pool *p = arg;
    dm_mutex_lock(&p->mu);
    for (;;) {
        if (p->spin && !p->stop && !p->oldest) {
            dm_mutex_unlock(&p->mu);
            dm_spin_until(&p->queued, 0, false);
            dm_mutex_lock(&p->mu);
        }
        while (!p->stop && !p->oldest) dm_cond_wait(&p->work, &p->mu);
        if (p->stop) break;
        dm_job *j = p->oldest;
        dm_run_chunk(p, j, dm_take(p, j));
    }
    dm_mutex_unlock(&p->mu);
}

dm_pool *dm_pool_create(uint32_t threads, bool spin)
{
    dm_pool *p = dm_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->want = threads > 1 ? threads - 1 : 0;
    p->spin = spin;
    atomic_init(&p->queued, 0);
    if (p->want && !(p->workers = dm_calloc(p->want, sizeof *p->workers))) {
        free(p);
        return NULL;
    }
    const bool mu = dm_mutex_init(&p->mu), work = dm_cond_init(&p->work), done = dm_cond_init(&p->done);
    if (!mu || !work || !done) {
        if (mu) dm_mutex_destroy(&p->mu);
        if (work) dm_cond_destroy(&p->work);
        if (done) dm_cond_destroy(&p->done);
        free(p->workers);
        free(p);
        return NULL;
    }
    return p;
}

/* With the lock held: starts the workers once. Workers block every signal
 * (dm_thread_start), so the application's handlers keep running on its own threads. A
 * thread the system refuses leaves the pool with the workers that did start. */
static void dm_start_workers(dm_pool *p)
{
    p->tried = true;
    while (p->started < p->want && dm_thread_start(&p->workers[p->started], dm_worker, p)) p->started++;
}

void dm_pool_run(dm_pool *p, uint32_t chunks, dm_pool_fn fn, void *arg)
{
    if (chunks == 0) return;
    if (chunks == 1 || p->want == 0) {
        for (uint32_t c = 0; c < chunks; c++) fn(arg, c);
        return;
    }
    dm_job j = {.fn = fn, .arg = arg, .chunks = chunks};
    atomic_init(&j.done, 0);
    dm_mutex_lock(&p->mu);
    if (!p->tried) dm_start_workers(p);
    if (p->started == 0) {
        dm_mutex_unlock(&p->mu);
        for (uint32_t c = 0; c < chunks; c++) fn(arg, c);
        return;
    }
    j.older = p->newest;
    if (p->newest) p->newest->newer = &j;
    else p->oldest = &j;
    p->newest = &j;
    atomic_fetch_add_explicit(&p->queued, 1, memory_order_relaxed);
    if (chunks - 1 >= p->started) dm_cond_broadcast(&p->work);
    else
        for (uint32_t w = 0; w < chunks - 1; w++) dm_cond_signal(&p->work);
    while (j.next < j.chunks) dm_run_chunk(p, &j, dm_take(p, &j));
    if (p->spin && atomic_load_explicit(&j.done, memory_order_relaxed) < chunks) {
        dm_mutex_unlock(&p->mu);
        if (dm_spin_until(&j.done, chunks, true)) return; /* no worker touches j after its last increment */
        dm_mutex_lock(&p->mu);
    }
    while (atomic_load_explicit(&j.done, memory_order_relaxed) < chunks) dm_cond_wait(&p->done, &p->mu);
    dm_mutex_unlock(&p->mu);
}

uint32_t dm_pool_threads(dm_pool *p)
{
    dm_mutex_lock(&p->mu);
    uint32_t n = 1 + (p->tried ? p->started : p->want);
    dm_mutex_unlock(&p->mu);
    return n;
}

void dm_pool_destroy(dm_pool *p)
{
    if (!p) return;
    dm_mutex_lock(&p->mu);
    p->stop = true;
    dm_cond_broadcast(&p->work);
    dm_mutex_unlock(&p->mu);
    for (uint32_t i = 0; i < p->started; i++) dm_thread_join(&p->workers[i]);
    dm_cond_destroy(&p->work);
    dm_cond_destroy(&p->done);
    dm_mutex_destroy(&p->mu);
    free(p->workers);
    free(p);
}
