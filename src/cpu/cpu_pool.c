/* The CPU backend's worker pool (see cpu_pool.h). All job state lives under one mutex:
 * chunks are coarse (tens to hundreds of kilobytes each), so handing them out under a
 * lock costs nothing measurable, and it makes job lifetimes trivial: a job is only
 * reachable from the queue, and leaves it before its caller can return. */
#include "../fault.h"
#include "cpu_pool.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct dm_job {
    dm_pool_fn fn;
    void *arg;
    uint32_t chunks, next, done;
    struct dm_job *older, *newer; /* the queue of jobs with chunks not yet handed out */
} dm_job;

struct dm_pool {
    pthread_mutex_t mu;
    pthread_cond_t work;   /* workers: a job was queued, or stop */
    pthread_cond_t done;   /* callers: a chunk of some job finished */
    dm_job *oldest, *newest;
    uint32_t want;         /* workers to start: threads - 1 */
    uint32_t started;
    bool tried, stop;
    pthread_t *workers;
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
    }
    return c;
}

/* Runs chunk c of j outside the lock; called and returns with the lock held. */
static void dm_run_chunk(dm_pool *p, dm_job *j, uint32_t c)
{
    pthread_mutex_unlock(&p->mu);
    j->fn(j->arg, c);
    pthread_mutex_lock(&p->mu);
    if (++j->done == j->chunks) pthread_cond_broadcast(&p->done);
}

static void *dm_worker(void *arg)
{
    dm_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && !p->oldest) pthread_cond_wait(&p->work, &p->mu);
        if (p->stop) break;
        dm_job *j = p->oldest;
        dm_run_chunk(p, j, dm_take(p, j));
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

dm_pool *dm_pool_create(uint32_t threads)
{
    dm_pool *p = dm_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->want = threads > 1 ? threads - 1 : 0;
    if (p->want && !(p->workers = dm_calloc(p->want, sizeof *p->workers))) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    return p;
}

/* With the lock held: starts the workers once. Workers block every signal, so the
 * application's handlers keep running on its own threads. A failed pthread_create
 * leaves the pool with the workers that did start. */
static void dm_start_workers(dm_pool *p)
{
    p->tried = true;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (p->started < p->want && pthread_create(&p->workers[p->started], NULL, dm_worker, p) == 0) p->started++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void dm_pool_run(dm_pool *p, uint32_t chunks, dm_pool_fn fn, void *arg)
{
    if (chunks == 0) return;
    if (chunks == 1 || p->want == 0) {
        for (uint32_t c = 0; c < chunks; c++) fn(arg, c);
        return;
    }
    dm_job j = {.fn = fn, .arg = arg, .chunks = chunks};
    pthread_mutex_lock(&p->mu);
    if (!p->tried) dm_start_workers(p);
    if (p->started == 0) {
        pthread_mutex_unlock(&p->mu);
        for (uint32_t c = 0; c < chunks; c++) fn(arg, c);
        return;
    }
    j.older = p->newest;
    if (p->newest) p->newest->newer = &j;
    else p->oldest = &j;
    p->newest = &j;
    if (chunks - 1 >= p->started) pthread_cond_broadcast(&p->work);
    else
        for (uint32_t w = 0; w < chunks - 1; w++) pthread_cond_signal(&p->work);
    while (j.next < j.chunks) dm_run_chunk(p, &j, dm_take(p, &j));
    while (j.done < j.chunks) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

uint32_t dm_pool_threads(dm_pool *p)
{
    pthread_mutex_lock(&p->mu);
    uint32_t n = 1 + (p->tried ? p->started : p->want);
    pthread_mutex_unlock(&p->mu);
    return n;
}

void dm_pool_destroy(dm_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t i = 0; i < p->started; i++) pthread_join(p->workers[i], NULL);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p->workers);
    free(p);
}
