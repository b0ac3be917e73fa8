/* The SSSE3 table (simd.h): 16-byte vectors whose element shuffles are one pshufb (the
 * SSE2 byte reversal is six instructions), for x86 CPUs that have it, checked at run
 * time. It also takes the AVX2 table's short runs. */
#include "simd.h"

#if DM_SIMD_X86
#include <emmintrin.h>

#include "vec16.h"

DM_TARGET_SSSE3
#define DM_SIMD(x) dm_ssse3_##x
#define DM_SIMD_TABLE dm_simd_ssse3
#define DM_W 16
#define DM_SHUFFLES 1
#define DM_NT_STORE(p, v) _mm_stream_si128((__m128i *)(void *)(p), (__m128i)(v))
#define DM_SELECT(m, a, b) (((m) & (a)) | (~(m) & (b)))
#include "simd_body.h"
DM_TARGET_END
#else
typedef int dm_simd_ssse3_unused; /* ISO C wants a declaration in every file */
#endif
