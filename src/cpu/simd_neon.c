/* The NEON table (simd.h): 16-byte vectors whose element shuffles are one table lookup
 * (tbl) or less. On AArch64 NEON is the baseline; 32-bit ARM builds without -mfpu=neon
 * (Debian's armhf) compile it for NEON here (GCC's fpu=neon) and run it only where the
 * kernel reports NEON. NEON has no streaming store: blocks are plain stores. */
#include "simd.h"

#if DM_SIMD_NEON
#include "vec16.h"

#if defined(DM_TARGET_NEON_AT_RUN_TIME)
DM_TARGET_NEON
#endif
#define DM_SIMD(x) dm_neon_##x
#define DM_SIMD_TABLE dm_simd_neon
#define DM_W 16
#define DM_SHUFFLES 1
#define DM_NT_STORE(p, v) dm_store(p, v)
#define DM_SELECT(m, a, b) (((m) & (a)) | (~(m) & (b)))
#include "simd_body.h"
#if defined(DM_TARGET_NEON_AT_RUN_TIME)
DM_TARGET_END
#endif
#else
typedef int dm_simd_neon_unused; /* ISO C wants a declaration in every file */
#endif
