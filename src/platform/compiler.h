/* Compiler shims: the one place that names a compiler's extensions. Everything else in
 * src/ spells these macros, so that a compiler without GNU C (MSVC) needs changes here
 * only (docs/design.md, "Platforms", lists what an MSVC build still needs). */
#ifndef DM_COMPILER_H
#define DM_COMPILER_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define DM_GNUC 1
#else
#define DM_GNUC 0
#endif

/* Inlining a hot helper into each specialised loop is what makes those loops fast. */
#if DM_GNUC
#define DM_INLINE static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define DM_INLINE static __forceinline
#else
#define DM_INLINE static inline
#endif

/* printf-style format checking. */
#if DM_GNUC
#define DM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define DM_PRINTF(a, b)
#endif

/* A read hint; no effect on the result. */
#if DM_GNUC
#define DM_PREFETCH(p) __builtin_prefetch(p)
#else
#define DM_PREFETCH(p) ((void)(p))
#endif

/* DM_TARGET_<ISA> ... DM_TARGET_END compile the functions between them for an instruction
 * set beyond the build's baseline (the CPU engine's src/cpu/simd_*.c), which run only once
 * dm_cpu_extensions (platform.h) says the CPU has it: GCC's target pragma, Clang's
 * attribute push (Clang ignores GCC's pragma). Intrinsic headers go before the BEGIN. On
 * 32-bit ARM only GCC's fpu=neon is used (DM_TARGET_NEON_AT_RUN_TIME). */
#if defined(__clang__)
#define DM_TARGET_SSSE3 _Pragma("clang attribute push(__attribute__((target(\"ssse3\"))), apply_to = function)")
#define DM_TARGET_AVX2 _Pragma("clang attribute push(__attribute__((target(\"avx2\"))), apply_to = function)")
#define DM_TARGET_END _Pragma("clang attribute pop")
#elif DM_GNUC
#define DM_TARGET_SSSE3 _Pragma("GCC push_options") _Pragma("GCC target(\"ssse3\")")
#define DM_TARGET_AVX2 _Pragma("GCC push_options") _Pragma("GCC target(\"avx2\")")
#if defined(__arm__) && !defined(__ARM_NEON)
#define DM_TARGET_NEON_AT_RUN_TIME 1
#define DM_TARGET_NEON _Pragma("GCC push_options") _Pragma("GCC target(\"fpu=neon\")")
#endif
#define DM_TARGET_END _Pragma("GCC pop_options")
#endif

/* Unrolls the loop that follows completely when its trip count is a constant: the
 * ragged REVERSE's rows keep their vectors in registers only once every index is one.
 * GCC's pragma, which Clang also reads. */
#if DM_GNUC
#define DM_UNROLL _Pragma("GCC unroll 16")
#else
#define DM_UNROLL
#endif

/* A pause in a spin loop: lets a sibling hyper-thread run, and saves power. `yield`
 * exists from ARMv6K on (ARMv6 proper, the Pi Zero and Pi 1, lacks it). */
static inline void dm_cpu_relax(void)
{
#if DM_GNUC && (defined(__x86_64__) || defined(__i386__))
    __builtin_ia32_pause();
#elif DM_GNUC && (defined(__aarch64__) || (defined(__arm__) && (defined(__ARM_ARCH_6K__) || defined(__ARM_ARCH_6KZ__) || \
                                                                  (defined(__ARM_ARCH) && __ARM_ARCH >= 7))))
    __asm__ __volatile__("yield");
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
    _mm_pause();
#endif
}

/* Overflow-checked arithmetic: true when the exact result fits in *r (checked.h wraps
 * these for sizes and offsets). The portable forms are exact for these unsigned and
 * signed 64-bit types. */
#if DM_GNUC
#define DM_ADD_OVERFLOW_U64(a, b, r) __builtin_add_overflow(a, b, r)
#define DM_MUL_OVERFLOW_U64(a, b, r) __builtin_mul_overflow(a, b, r)
#define DM_ADD_OVERFLOW_I64(a, b, r) __builtin_add_overflow(a, b, r)
#define DM_MUL_OVERFLOW_I64(a, b, r) __builtin_mul_overflow(a, b, r)
#else
static inline bool DM_ADD_OVERFLOW_U64(uint64_t a, uint64_t b, uint64_t *r)
{
    *r = a + b;
    return *r < a;
}
static inline bool DM_MUL_OVERFLOW_U64(uint64_t a, uint64_t b, uint64_t *r)
{
    *r = a * b;
    return a && *r / a != b;
}
static inline bool DM_ADD_OVERFLOW_I64(int64_t a, int64_t b, int64_t *r)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return true;
    *r = a + b;
    return false;
}
static inline bool DM_MUL_OVERFLOW_I64(int64_t a, int64_t b, int64_t *r)
{
    if (a == 0 || b == 0) {
        *r = 0;
        return false;
    }
    if ((a == -1 && b == INT64_MIN) || (b == -1 && a == INT64_MIN)) return true;
    if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a) : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b))
        return true;
    *r = a * b;
    return false;
}
#endif

#endif
