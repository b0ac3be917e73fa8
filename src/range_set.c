/* Sorted sets of disjoint byte ranges, merged on insertion, for command-list hazard
 * tracking: lookups are binary searches, and operations that touch the same or adjacent
 * bytes keep the set small. */
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "fault.h"
#include "internal.h"

/* (resource, a) < (resource2, b) */
static bool dm_before(uintptr_t ra, uint64_t a, uintptr_t rb, uint64_t b) { return ra < rb || (ra == rb && a < b); }

/* First index whose range ends after `at` in `resource` (or lies in a later resource). */
static uint32_t dm_first_ending_after(const dm_range_set *s, uintptr_t resource, uint64_t at, bool or_touching)
{
    uint32_t lo = 0, hi = s->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const dm_range *r = &s->r[mid];
        bool before = or_touching ? dm_before(r->resource, r->hi, resource, at)
                                  : !dm_before(resource, at, r->resource, r->hi);
        if (before) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

bool dm_range_set_hits(const dm_range_set *s, dm_range q)
{
    uint32_t i = dm_first_ending_after(s, q.resource, q.lo, false);
    return i < s->n && s->r[i].resource == q.resource && s->r[i].lo < q.hi;
}

bool dm_range_set_reserve(dm_allocator *a, dm_range_set *s, uint32_t extra)
{
    if (s->n + extra <= s->cap) return true;
    uint32_t cap = s->cap ? s->cap : 16;
    while (cap < s->n + extra) cap *= 2;
    size_t bytes;
    if (!dm_size_mul(cap, sizeof *s->r, &bytes)) return false; /* a 32-bit size_t would wrap */
    dm_range *r = dm_ralloc(a, s->r, bytes);
    if (!r) return false;
    s->r = r;
    s->cap = cap;
    return true;
}

void dm_range_set_add(dm_range_set *s, dm_range q)
{
    uint32_t i = dm_first_ending_after(s, q.resource, q.lo, true), j = i;
    while (j < s->n && s->r[j].resource == q.resource && s->r[j].lo <= q.hi) {
        if (s->r[j].lo < q.lo) q.lo = s->r[j].lo;
        if (s->r[j].hi > q.hi) q.hi = s->r[j].hi;
        j++;
    }
    /* Ranges i .. j-1 merged into q: replace them by q. */
    memmove(&s->r[i + 1], &s->r[j], (s->n - j) * sizeof *s->r);
    s->r[i] = q;
    s->n = s->n - (j - i) + 1;
}

void dm_range_set_free(dm_allocator *a, dm_range_set *s)
{
    dm_afree(a, s->r);
    s->r = NULL;
    s->n = s->cap = 0;
}
