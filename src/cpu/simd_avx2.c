/* The AVX2 table (simd.h): 32-byte vectors, for x86 CPUs that have AVX2 and an OS that
 * saves its registers, checked at run time. Runs shorter than a vector, and the step-3
 * copies, go to the SSSE3 table (every AVX2 CPU has SSSE3). */
#include "simd.h"

#if DM_SIMD_X86 && DM_SIMD_AVX2
#include <immintrin.h>

#include "vec16.h"

DM_TARGET_AVX2
#define DM_SIMD(x) dm_avx2_##x
#define DM_SIMD_TABLE dm_simd_avx2
#define DM_W 32
#define DM_SHUFFLES 1
#define DM_SHORT dm_simd_ssse3
#define DM_NT_STORE(p, v) _mm256_stream_si256((__m256i *)(void *)(p), (__m256i)(v))
#define DM_SELECT(m, a, b) ((dm_vb)_mm256_blendv_epi8((__m256i)(b), (__m256i)(a), (__m256i)(m)))
#include "simd_body.h"
DM_TARGET_END
#else
typedef int dm_simd_avx2_unused; /* ISO C wants a declaration in every file */
#endif
