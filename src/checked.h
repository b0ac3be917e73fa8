/* Overflow-checked 64-bit arithmetic for sizes and offsets taken from untrusted
 * descriptors. Each returns false instead of wrapping. */
#ifndef DM_CHECKED_H
#define DM_CHECKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/compiler.h"

static inline bool dm_add_u64(uint64_t a, uint64_t b, uint64_t *r) { return !DM_ADD_OVERFLOW_U64(a, b, r); }
static inline bool dm_mul_u64(uint64_t a, uint64_t b, uint64_t *r) { return !DM_MUL_OVERFLOW_U64(a, b, r); }
static inline bool dm_add_i64(int64_t a, int64_t b, int64_t *r) { return !DM_ADD_OVERFLOW_I64(a, b, r); }
static inline bool dm_mul_i64(int64_t a, int64_t b, int64_t *r) { return !DM_MUL_OVERFLOW_I64(a, b, r); }

/* Rounds up to a multiple of m (a power of two); false on overflow. */
static inline bool dm_align_up_u64(uint64_t v, uint64_t m, uint64_t *r)
{
    uint64_t t;
    if (!dm_add_u64(v, m - 1, &t)) return false;
    *r = t & ~(m - 1);
    return true;
}

static inline uint64_t dm_align_down_u64(uint64_t v, uint64_t m) { return v - v % m; }
static inline bool dm_is_pow2_u64(uint64_t v) { return v && !(v & (v - 1)); }
static inline uint64_t dm_min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint64_t dm_max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* count * elem bytes as a size_t, for an allocation or a copy; false when the product
 * does not fit (in 64 bits, or in a 32-bit host's size_t) instead of wrapping. */
static inline bool dm_size_mul(uint64_t count, uint64_t elem, size_t *r)
{
    uint64_t bytes;
    if (!dm_mul_u64(count, elem, &bytes) || bytes > (uint64_t)SIZE_MAX) return false;
    *r = (size_t)bytes;
    return true;
}

#endif
