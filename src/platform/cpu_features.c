/* The instruction-set extensions the CPU engine may use beyond the build's baseline
 * (platform.h, dm_cpu_extensions): asked of the CPU at run time, never assumed from the
 * compiler's flags, so that one build serves every CPU of its architecture and takes
 * what each has. */
#include "platform.h"

#if DM_GNUC && defined(__arm__) && !defined(__ARM_NEON) && (defined(__linux__) || defined(__ANDROID__))
#include <sys/auxv.h>
#define DM_ARM_HWCAP_NEON (1ul << 12) /* HWCAP_NEON of the kernel's asm/hwcap.h, 32-bit ARM */
#endif

uint32_t dm_cpu_extensions(void)
{
    uint32_t x = 0;
#if DM_GNUC && (defined(__x86_64__) || defined(__i386__))
    /* libgcc's (or compiler-rt's) copy of CPUID, read once at start-up; AVX2 counts only
     * where XGETBV says the OS saves the 256-bit registers. */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("ssse3")) x |= DM_CPU_SSSE3;
    if (__builtin_cpu_supports("avx2")) x |= DM_CPU_AVX2;
#elif defined(__aarch64__) || defined(__ARM_NEON)
    x |= DM_CPU_NEON; /* in AArch64's baseline, or in the build's (-mfpu=neon) */
#elif defined(DM_ARM_HWCAP_NEON)
    if (getauxval(AT_HWCAP) & DM_ARM_HWCAP_NEON) x |= DM_CPU_NEON; /* Debian's armhf baseline has none */
#endif
    return x;
}
