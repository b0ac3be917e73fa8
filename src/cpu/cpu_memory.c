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
#include <sys/mman.h>

#include "../fault.h"

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
/* mmap of size bytes aligned to `align` (a power of two, at least a page): maps size +
 * align - page and unmaps the slack on both sides. */
static void *dm_map_aligned(size_t size, size_t align)
{
    const size_t page = 4096, extra = align > page ? align - page : 0;
    if (size > SIZE_MAX - extra) return NULL;
    uint8_t *raw = mmap(NULL, size + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    uint8_t *p = (uint8_t *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    size_t head = (size_t)(p - raw), tail = extra - head;
    if (head) munmap(raw, head);
    if (tail) munmap(p + size, tail);
    return p;
}

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
        void *p = dm_map_aligned(dm_mapped_size(size), huge ? DM_HUGE_PAGE : 4096);
#ifdef MADV_HUGEPAGE
        if (p && huge) (void)madvise(p, dm_mapped_size(size), MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
        return p;
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
        munmap(p, dm_mapped_size(size));
        return;
    }
#endif
    free(p);
}
