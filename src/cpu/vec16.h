/* 16-byte GCC/Clang vectors at the build's baseline instruction set (SSE2 on x86-64, NEON
 * on AArch64): loads and stores, and the element shuffles that the baseline does in a few
 * instructions without a byte shuffle (pshufd, shifts, pand, packuswb). The SSE2 and
 * generic vector tables (simd_body.h) are built on them, and so are the short-row loops
 * of elements.c. At -O2 with no -march flag the compilers turn these into SIMD, where
 * their cost models would not vectorise the loops whose trip count is unknown, and no
 * auto-vectoriser reverses elements inside a register anyway. */
#ifndef DM_CPU_VEC16_H
#define DM_CPU_VEC16_H

#include <stdint.h>
#include <string.h>

#include "../platform/compiler.h"

#if DM_GNUC
#define DM_VECTORS 1
typedef uint32_t dm_v4u32 __attribute__((vector_size(16)));
typedef uint16_t dm_v8u16 __attribute__((vector_size(16)));
typedef int32_t dm_v4i32 __attribute__((vector_size(16)));
typedef int16_t dm_v8i16 __attribute__((vector_size(16)));
typedef uint8_t dm_v16u8 __attribute__((vector_size(16)));

static inline dm_v4u32 dm_load16(const uint8_t *p)
{
    dm_v4u32 v;
    memcpy(&v, p, 16);
    return v;
}

static inline void dm_store16(uint8_t *p, dm_v4u32 v) { memcpy(p, &v, 16); }

/* Reverses the order of the 16 / esize elements of a 16-byte value. */
static inline dm_v4u32 dm_reverse16(dm_v4u32 v, uint32_t esize)
{
    if (esize == 8) return __builtin_shufflevector(v, v, 2, 3, 0, 1);
    v = __builtin_shufflevector(v, v, 3, 2, 1, 0); /* 4-byte lanes */
    if (esize == 4) return v;
    v = (v << 16) | (v >> 16); /* 2-byte halves of each lane */
    if (esize == 2) return v;
    dm_v8u16 h = (dm_v8u16)v;
    return (dm_v4u32)((h << 8) | (h >> 8)); /* bytes of each half */
}

/* The even-numbered elements of the 32 bytes a, b (a first), as 16 bytes. */
static inline dm_v4u32 dm_even16(dm_v4u32 a, dm_v4u32 b, uint32_t esize)
{
    switch (esize) {
    case 8: return __builtin_shufflevector(a, b, 0, 1, 4, 5);
    case 4: return __builtin_shufflevector(a, b, 0, 2, 4, 6);
    case 2: {
        /* Sign-extend the low halves so that a signed saturating pack keeps them exact. */
        dm_v8i16 x = (dm_v8i16)(((dm_v4i32)(a << 16)) >> 16), y = (dm_v8i16)(((dm_v4i32)(b << 16)) >> 16);
        return (dm_v4u32)__builtin_shufflevector(x, y, 0, 2, 4, 6, 8, 10, 12, 14);
    }
    default: {
        dm_v16u8 x = (dm_v16u8)a, y = (dm_v16u8)b;
        return (dm_v4u32)__builtin_shufflevector(x, y, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    }
    }
}

/* The odd-numbered elements of the 32 bytes a, b (a first), as 16 bytes: the even ones
 * of the same bytes moved down by one element within each pair. */
static inline dm_v4u32 dm_odd16(dm_v4u32 a, dm_v4u32 b, uint32_t esize)
{
    switch (esize) {
    case 8: return __builtin_shufflevector(a, b, 2, 3, 6, 7);
    case 4: return __builtin_shufflevector(a, b, 1, 3, 5, 7);
    case 2: return dm_even16(a >> 16, b >> 16, 2);
    default: return dm_even16((dm_v4u32)((dm_v8u16)a >> 8), (dm_v4u32)((dm_v8u16)b >> 8), 1);
    }
}

/* Every third element of the 48 bytes a, b, c (a first), from element `from` (0 or 2),
 * as 16 bytes: 4- and 2-byte elements. Byte elements stay on the scalar loop: without
 * SSSE3's byte shuffle the compiler's sequence ran twice as long (1 MiB of UINT8 output:
 * 284 us scalar, 551 us shuffled; FLOAT16 142 -> 107, FLOAT32 71 -> 42). */
static inline dm_v4u32 dm_third16(dm_v4u32 a, dm_v4u32 b, dm_v4u32 c, uint32_t esize, uint32_t from)
{
    if (esize == 4) {
        if (from == 0) return __builtin_shufflevector(__builtin_shufflevector(a, b, 0, 3, 6, 0), c, 0, 1, 2, 5);
        return __builtin_shufflevector(__builtin_shufflevector(a, b, 2, 5, 0, 0), c, 0, 1, 4, 7);
    }
    const dm_v8u16 x = (dm_v8u16)a, y = (dm_v8u16)b, z = (dm_v8u16)c;
    if (from == 0)
        return (dm_v4u32)__builtin_shufflevector(__builtin_shufflevector(x, y, 0, 3, 6, 9, 12, 15, 0, 0), z, 0, 1, 2,
                                                 3, 4, 5, 10, 13);
    return (dm_v4u32)__builtin_shufflevector(__builtin_shufflevector(x, y, 2, 5, 8, 11, 14, 0, 0, 0), z, 0, 1, 2, 3, 4,
                                             9, 12, 15);
}
#else
#define DM_VECTORS 0
#endif

#endif
