/* Host memory for CPU-backend buffers. */
#ifndef DM_CPU_MEMORY_H
#define DM_CPU_MEMORY_H

#include <stddef.h>

/* size zeroed bytes (size 0 gives a valid pointer), or NULL when out of memory (or on a
 * DMLOPS_FAULT_INJECT=host cue). Large buffers start on a page, and from 4 MiB on a
 * 2 MiB boundary with transparent huge pages asked for. */
void *dm_cpu_memory_alloc(size_t size);
/* Frees what dm_cpu_memory_alloc returned for the same size. */
void dm_cpu_memory_free(void *p, size_t size);

#endif
