/* The generic vector table (simd.h) of GCC/Clang targets that are neither x86 nor ARM:
 * 16-byte vectors with the shuffle-free sequences of vec16.h, whatever instructions the
 * compiler makes of them at the build's baseline. */
#include "simd.h"

#if DM_SIMD_VECTOR
#include "vec16.h"

#define DM_SIMD(x) dm_vector_##x
#define DM_SIMD_TABLE dm_simd_vector
#define DM_W 16
#define DM_SHUFFLES 0
#define DM_NT_STORE(p, v) dm_store(p, v)
#define DM_SELECT(m, a, b) (((m) & (a)) | (~(m) & (b)))
#include "simd_body.h"
#else
typedef int dm_simd_vector_unused; /* ISO C wants a declaration in every file */
#endif
