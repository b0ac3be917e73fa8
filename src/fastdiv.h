/* Division by a run-time invariant divisor as a multiply: the host computes a magic
 * number and two shifts once per divisor, the kernels divide with one 32x32->64 multiply
 * (GLSL's umulExtended), a subtract, an add and two shifts (glsl/gather_common.glsl,
 * fastdiv), exact for every 32-bit numerator and divisor >= 1. GPUs have no integer
 * divide: NVIDIA's and AMD's compilers expand n / d into a float reciprocal and a
 * correction sequence of about 20 instructions, which the kernels paid per chunk
 * (../shared/research/gpu.md). The method is Granlund and Montgomery's ("Division by
 * Invariant Integers using Multiplication", 1994, figure 4.1), as PyTorch's IntDivider
 * and ONNX Runtime's fast_divmod use it, in the form that also holds for numerators
 * of 2^31 and more: with l = ceil(log2 d) and m = floor(2^32 (2^l - d) / d) + 1,
 *     t = (m * n) >> 32,  n / d = (t + ((n - t) >> s1)) >> s2,
 * s1 = min(l, 1), s2 = max(l - 1, 0). This file is the host's half and a C model of the
 * kernels' (test/test_fastdiv.c checks both against n / d). */
#ifndef DM_FASTDIV_H
#define DM_FASTDIV_H

#include <stdint.h>

typedef struct dm_fastdiv {
    uint32_t magic;
    uint32_t shifts; /* s1 | s2 << 8: the kernels' second word */
} dm_fastdiv;

/* The magic number and shifts for divisor d (d = 0 is taken as 1). */
static inline dm_fastdiv dm_fastdiv_for(uint32_t d)
{
    if (d == 0) d = 1;
    uint32_t l = 0;
    while (l < 32 && (1ull << l) < d) l++;
    const uint64_t m = (((1ull << l) - d) << 32) / d + 1; /* < 2^32: (2^l - d) < d */
    const uint32_t s1 = l < 1 ? l : 1, s2 = l > 1 ? l - 1 : 0;
    return (dm_fastdiv){(uint32_t)m, s1 | s2 << 8};
}

/* n / d the way the kernels compute it, from dm_fastdiv_for(d). */
static inline uint32_t dm_fastdiv_apply(uint32_t n, dm_fastdiv f)
{
    const uint32_t t = (uint32_t)(((uint64_t)n * f.magic) >> 32);
    return (t + ((n - t) >> (f.shifts & 0xff))) >> (f.shifts >> 8);
}

#endif
