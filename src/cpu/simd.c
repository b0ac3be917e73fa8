/* The instruction sets of the CPU engine (simd.h): which this build and CPU offer, their
 * names, and the scalar table, the element loops every vector table is checked against. */
#include "copy_bytes.h"
#include "simd.h"

#include "../platform/platform.h"

static void dm_scalar_reversed(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, bool stream)
{
    (void)stream;
    dm_copy_strided(dst, 1, src, -1, count, esize);
}

static void dm_scalar_reversed_rows(uint8_t *dst, int64_t drow, const uint8_t *src, int64_t srow, uint64_t rows,
                                   uint64_t count, uint32_t esize, bool stream)
{
    (void)stream;
    for (uint64_t r = 0; r < rows; r++, dst += drow, src += srow) dm_copy_strided(dst, 1, src, -1, count, esize);
}

static void dm_scalar_even(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, bool stream)
{
    (void)stream;
    dm_copy_strided(dst, 1, src, 2, count, esize);
}

static void dm_scalar_even_down(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, bool stream)
{
    (void)stream;
    dm_copy_strided(dst, 1, src, -2, count, esize);
}

static void dm_scalar_third(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, int dir, bool stream)
{
    (void)stream;
    dm_copy_strided(dst, 1, src, 3 * dir, count, esize);
}

static void dm_scalar_stream_copy(uint8_t *dst, const uint8_t *src, uint64_t bytes) { dm_copy_bytes(dst, src, bytes); }

/* The caller's own column loop does what no vector loop takes. */
static bool dm_scalar_ragged(uint8_t *dst, int64_t drow, const uint8_t *src, int64_t srow, const uint8_t *len, uint64_t w,
                             uint32_t n, uint32_t esize, bool stream)
{
    (void)dst, (void)drow, (void)src, (void)srow, (void)len, (void)w, (void)n, (void)esize, (void)stream;
    return false;
}

static uint64_t dm_scalar_lanes(uint8_t *len, const uint8_t *lp, uint64_t count, uint32_t n, bool is_signed,
                                uint32_t esize)
{
    return dm_lanes_scalar(len, lp, count, n, is_signed, esize, UINT64_MAX);
}

static const dm_simd dm_simd_scalar = {
    .reversed = dm_scalar_reversed,
    .reversed_rows = dm_scalar_reversed_rows,
    .even = dm_scalar_even,
    .even_down = dm_scalar_even_down,
    .third = dm_scalar_third,
    .stream_copy = dm_scalar_stream_copy,
    .ragged = dm_scalar_ragged,
    .lanes = dm_scalar_lanes,
};

static const char *const dm_isa_names[DM_ISA_COUNT] = {"scalar", "sse2", "ssse3", "avx2", "neon", "vector"};

uint32_t dm_isa_offered(void)
{
    uint32_t offered = 1u << DM_ISA_SCALAR;
    const uint32_t cpu = dm_cpu_extensions();
#if DM_SIMD_X86
    offered |= 1u << DM_ISA_SSE2;
    if (cpu & DM_CPU_SSSE3) offered |= 1u << DM_ISA_SSSE3;
#if DM_SIMD_AVX2
    if (cpu & DM_CPU_AVX2) offered |= 1u << DM_ISA_AVX2;
#endif
#elif DM_SIMD_NEON
    if (cpu & DM_CPU_NEON) offered |= 1u << DM_ISA_NEON;
#elif DM_SIMD_VECTOR
    offered |= 1u << DM_ISA_VECTOR;
#endif
    (void)cpu;
    return offered;
}

/* Each build offers one family, in increasing order of preference. */
dm_isa dm_isa_best(void)
{
    const uint32_t offered = dm_isa_offered();
    dm_isa best = DM_ISA_SCALAR;
    for (uint32_t i = 0; i < DM_ISA_COUNT; i++)
        if (offered & (1u << i)) best = (dm_isa)i;
    return best;
}

const char *dm_isa_name(dm_isa isa) { return isa < DM_ISA_COUNT ? dm_isa_names[isa] : "?"; }

bool dm_isa_from_name(const char *name, dm_isa *isa)
{
    for (uint32_t i = 0; i < DM_ISA_COUNT; i++)
        if (!dm_strcasecmp(name, dm_isa_names[i])) {
            *isa = (dm_isa)i;
            return true;
        }
    return false;
}

const dm_simd *dm_simd_of(dm_isa isa)
{
    switch (isa) {
#if DM_SIMD_X86
    case DM_ISA_SSE2: return &dm_simd_sse2;
    case DM_ISA_SSSE3: return &dm_simd_ssse3;
#if DM_SIMD_AVX2
    case DM_ISA_AVX2: return &dm_simd_avx2;
#endif
#endif
#if DM_SIMD_NEON
    case DM_ISA_NEON: return &dm_simd_neon;
#endif
#if DM_SIMD_VECTOR
    case DM_ISA_VECTOR: return &dm_simd_vector;
#endif
    default: return &dm_simd_scalar;
    }
}
