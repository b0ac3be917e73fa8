/* A pool of worker threads owned by one CPU-backend context. A job is a number of
 * chunks; dm_pool_run hands them out to the workers and to the calling thread, which
 * works on its own job and returns once every chunk of it is done.
 *
 * Thread safety: dm_pool_run may be called from several threads at once; their jobs
 * queue, and workers take chunks from the oldest job that has some left, so a small job
 * behind a large one waits at most one chunk per worker. Workers start on the first job
 * that has more than one chunk; if some cannot be created the pool runs with the
 * others, and with none every chunk runs on the caller (never an error, never a hang). */
#ifndef DM_CPU_POOL_H
#define DM_CPU_POOL_H

#include <stdbool.h>
#include <stdint.h>

typedef struct dm_pool dm_pool;
typedef void (*dm_pool_fn)(void *arg, uint32_t chunk);

/* threads: the most threads one job may use, the caller's included (>= 1); 1 means
 * every job runs inline and no worker is ever started. spin: waiting threads poll
 * briefly before they sleep. NULL when out of memory. */
dm_pool *dm_pool_create(uint32_t threads, bool spin);
/* Stops and joins the workers. No job may be running. */
void dm_pool_destroy(dm_pool *p);

/* Runs fn(arg, c) for every c in [0, chunks), each exactly once, on the caller and the
 * workers; returns when all have returned. Chunks may run in any order and at once. */
void dm_pool_run(dm_pool *p, uint32_t chunks, dm_pool_fn fn, void *arg);

/* Threads a job may use: the caller plus the workers that started (before the first
 * parallel job: the configured count). */
uint32_t dm_pool_threads(dm_pool *p);

#endif
