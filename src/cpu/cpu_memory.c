/* Host memory for CPU-backend buffers (cpu_memory.h).
 *
 * Why not calloc: glibc serves a large request from mmap only until the first such block
 * is freed, then raises its mmap threshold (up to 32 MiB) and carves later ones out of the
 * heap at arbitrary 16-byte offsets. Two buffers whose addresses differ by a little over
 * a multiple of 4 KiB make the CPU mistake loads for dependants of earlier stores (4K
 * aliasing): measured, a 16 MiB REVERSE along the outer axis ran at 7 GB/s instead of
 * 30 GB/s depending only on what the process had allocated before. Page-aligned
 * buffers give every copy the same alignment on both sides, keep the CPU engine's
 * 64-byte chunk boundaries on real cache lines (no line shared by two threads), and hand
 * the memory back to the system when freed. Huge pages for big buffers cut TLB misses
 * and page faults on first touch.
 *
 * Under AddressSanitizer buffers stay on the malloc heap, where overruns are caught. */
#include "cpu_memory.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "../fault.h"
#include "../platform/platform.h"

#if defined(__SANITIZE_ADDRESS__)
#define DM_CPU_HEAP_ONLY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DM_CPU_HEAP_ONLY 1
#endif
#endif

enum { DM_PAGE_FROM = 256 << 10, DM_HUGE_FROM = 4 << 20 };
#define DM_HUGE_PAGE ((size_t)2 << 20)

#ifndef DM_CPU_HEAP_ONLY
static size_t dm_mapped_size(size_t size) { return (size + 4095) & ~(size_t)4095; }

/* Whether a buffer of this size is mapped: the one test alloc and free must agree on. */
static bool dm_is_mapped(size_t size) { return size >= DM_PAGE_FROM && size <= SIZE_MAX - 4095; }
#endif

void *dm_cpu_memory_alloc(size_t size)
{
#ifndef DM_CPU_HEAP_ONLY
    if (dm_is_mapped(size)) {
        if (dm_fault_hit(DM_FAULT_HOST)) return NULL;
        const bool huge = size >= DM_HUGE_FROM;
        return dm_pages_alloc(dm_mapped_size(size), huge ? DM_HUGE_PAGE : 4096, huge);
    }
#endif
    return dm_calloc(1, size ? size : 1);
}

void dm_cpu_memory_free(void *p, size_t size)
{
    if (!p) return;
#ifdef DM_CPU_HEAP_ONLY
    (void)size;
#else
    if (dm_is_mapped(size)) {
        dm_pages_free(p, dm_mapped_size(size));
        return;
    }
#endif
    free(p);
}
