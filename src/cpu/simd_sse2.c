/* The SSE2 table (simd.h): 16-byte vectors, x86-64's baseline, with the shuffle-free
 * element sequences of vec16.h (SSE2 has no byte shuffle). */
#include "simd.h"

#if DM_SIMD_X86
#include <emmintrin.h>

#include "vec16.h"

#define DM_SIMD(x) dm_sse2_##x
#define DM_SIMD_TABLE dm_simd_sse2
#define DM_W 16
#define DM_SHUFFLES 0
#define DM_NT_STORE(p, v) _mm_stream_si128((__m128i *)(void *)(p), (__m128i)(v))
#define DM_SELECT(m, a, b) (((m) & (a)) | (~(m) & (b)))
#include "simd_body.h"
#else
typedef int dm_simd_sse2_unused; /* ISO C wants a declaration in every file */
#endif
