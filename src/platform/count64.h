/* A 64-bit count shared between threads (the memory queries' byte counts): a lock-free
 * atomic where the target has 64-bit atomics, else one process-wide lock around a plain
 * integer. ARMv6 (the Pi Zero and Pi 1) has no 64-bit exclusive loads: its atomics would
 * be calls into libatomic, which a static library's users do not link (.ci/platforms.sh
 * checks the ARMv6 build makes no __atomic_* call). Relaxed: the counts order nothing. */
#ifndef DM_COUNT64_H
#define DM_COUNT64_H

#include <stdatomic.h>
#include <stdint.h>

#if ATOMIC_LLONG_LOCK_FREE == 2
typedef _Atomic unsigned long long dm_count64;
static inline void dm_count_init(dm_count64 *c, uint64_t v) { atomic_init(c, v); }
static inline void dm_count_add(dm_count64 *c, uint64_t v) { atomic_fetch_add_explicit(c, v, memory_order_relaxed); }
static inline void dm_count_sub(dm_count64 *c, uint64_t v) { atomic_fetch_sub_explicit(c, v, memory_order_relaxed); }
static inline uint64_t dm_count_load(dm_count64 *c) { return atomic_load_explicit(c, memory_order_relaxed); }
#else
typedef struct dm_count64 {
    uint64_t v;
} dm_count64;
static inline void dm_count_init(dm_count64 *c, uint64_t v) { c->v = v; } /* before any thread shares c */
/* posix.c, win32.c: under one lock of the process. */
void dm_count_add(dm_count64 *c, uint64_t v);
void dm_count_sub(dm_count64 *c, uint64_t v);
uint64_t dm_count_load(dm_count64 *c);
#endif

#endif
