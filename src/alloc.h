/* A context's host allocator (dmlops.h, dmlops_allocation_callbacks): the application's
 * callbacks, or the C library's. Every block carries a small header with its size, so
 * that the context can say how much host memory it holds (dmlops_context_get_memory_info)
 * and blocks can be reallocated and aligned whatever the callbacks offer. A block is
 * freed through the allocator that made it: memory from dm_alloc never goes to free(),
 * nor malloc's to dm_afree. Faults are injected as for dm_malloc (fault.h). */
#ifndef DM_ALLOC_H
#define DM_ALLOC_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "dmlops.h"
#include "platform/count64.h"

typedef struct dm_allocator {
    dmlops_allocation_callbacks cb; /* allocate NULL: the C library's */
    dm_count64 bytes;               /* bytes of the blocks live, headers excluded */
} dm_allocator;

/* cb NULL: the C library's. */
void dm_allocator_init(dm_allocator *a, const dmlops_allocation_callbacks *cb);

/* size bytes aligned to `align` (a power of two; 0 for the default of 16), zeroed; NULL
 * when out of memory (or size overflows). a NULL: the C library's, uncounted. */
void *dm_alloc(dm_allocator *a, size_t size, size_t align);
/* count * size bytes, zeroed; NULL when out of memory or the product overflows. */
void *dm_zalloc(dm_allocator *a, size_t count, size_t size);
/* The block resized to size bytes (its contents kept up to the smaller size; bytes past
 * them are NOT zeroed); NULL, with p untouched, when out of memory. p NULL: dm_alloc. */
void *dm_ralloc(dm_allocator *a, void *p, size_t size);
void dm_afree(dm_allocator *a, void *p);

#endif
