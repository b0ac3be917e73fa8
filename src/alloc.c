/* A context's host allocator (alloc.h). */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

#include "fault.h"

/* In front of every block: its size, and how far its start is from what the allocator
 * returned (alignment). 16 bytes, so that a block aligned to 16 stays so. */
typedef struct dm_block {
    uint64_t size;
    uint64_t offset;
} dm_block;
_Static_assert(sizeof(dm_block) == 16, "the header keeps 16-byte alignment");

void dm_allocator_init(dm_allocator *a, const dmlops_allocation_callbacks *cb)
{
    memset(&a->cb, 0, sizeof a->cb);
    if (cb) a->cb = *cb;
    a->cb.next = NULL; /* the chain was the caller's: nothing of it is kept */
    dm_count_init(&a->bytes, 0);
}

void *dm_alloc(dm_allocator *a, size_t size, size_t align)
{
    if (align < 16) align = 16;
    if (dm_fault_hit(DM_FAULT_HOST)) return NULL;
    /* Room for the header, and, from the C library (16-byte alignment at most), for
     * aligning the block by hand. */
    const size_t extra = sizeof(dm_block) + align;
    if (size > SIZE_MAX - extra) return NULL;
    uint8_t *raw, *p;
    if (a && a->cb.allocate) {
        raw = a->cb.allocate(a->cb.user_data, size + align, align);
        p = raw ? raw + align : NULL;
    } else {
        raw = malloc(size + extra);
        p = raw ? (uint8_t *)(((uintptr_t)raw + sizeof(dm_block) + align - 1) & ~(uintptr_t)(align - 1)) : NULL;
    }
    if (!p) return NULL;
    const dm_block h = {size, (uint64_t)(p - raw)};
    memcpy(p - sizeof h, &h, sizeof h);
    memset(p, 0, size);
    if (a) dm_count_add(&a->bytes, size);
    return p;
}

void *dm_zalloc(dm_allocator *a, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) return NULL;
    return dm_alloc(a, count * size, 0);
}

void *dm_ralloc(dm_allocator *a, void *p, size_t size)
{
    if (!p) return dm_alloc(a, size, 0);
    dm_block h;
    memcpy(&h, (uint8_t *)p - sizeof h, sizeof h);
    void *q = dm_alloc(a, size, 0);
    if (!q) return NULL;
    memcpy(q, p, (size_t)(h.size < size ? h.size : size));
    dm_afree(a, p);
    return q;
}

void dm_afree(dm_allocator *a, void *p)
{
    if (!p) return;
    dm_block h;
    memcpy(&h, (uint8_t *)p - sizeof h, sizeof h);
    uint8_t *raw = (uint8_t *)p - h.offset;
    if (a) dm_count_sub(&a->bytes, h.size);
    if (a && a->cb.allocate) a->cb.deallocate(a->cb.user_data, raw);
    else free(raw);
}
