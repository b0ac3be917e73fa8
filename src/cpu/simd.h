/* The CPU engine's vector loops, one table per instruction set (dm_simd), chosen per
 * context at run time (dm_isa_best, or DMLOPS_CPU_ISA) and per operator handed to its loops
 * (dm_gather.isa, elements.h's dm_mode). One binary runs everywhere: the baseline
 * instruction set of the build (x86-64's SSE2) is compiled as usual, the others
 * (SSSE3, AVX2; NEON on 32-bit ARM) as functions marked for them (DM_TARGET_*,
 * compiler.h) that run only where dm_cpu_extensions (src/platform/) found them.
 *
 * The loops themselves are written once, in simd_body.h, over GCC/Clang vectors of 16 or
 * 32 bytes; each simd_<isa>.c includes it with what differs: the vector width, streaming
 * stores, whether whole-register byte shuffles are one instruction (SSSE3's pshufb, AVX2's
 * vpshufb, NEON's tbl) or a sequence of SSE2 shifts, and a byte select. The scalar table
 * (simd.c) moves element by element, the reference the vector tables are tested against
 * (test_cpu_simd.c) and what DMLOPS_CPU_ISA=scalar runs. */
#ifndef DM_CPU_SIMD_H
#define DM_CPU_SIMD_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../platform/compiler.h"

typedef enum dm_isa {
    DM_ISA_SCALAR = 0, /* element loops: every build, every CPU */
    DM_ISA_SSE2,       /* x86: 16-byte vectors, x86-64's baseline */
    DM_ISA_SSSE3,      /* x86: 16-byte vectors with one-instruction byte shuffles */
    DM_ISA_AVX2,       /* x86: 32-byte vectors */
    DM_ISA_NEON,       /* ARM: 16-byte vectors (AArch64's baseline; 32-bit ARM's when the CPU has it) */
    DM_ISA_VECTOR,     /* other GCC/Clang targets: their 16-byte vectors, whatever the compiler makes of them */
    DM_ISA_COUNT
} dm_isa;

/* Which tables this build has. x86 needs SSE2 in the baseline (always on x86-64); NEON
 * is little-endian only (the loops reinterpret byte lanes as wider ones). AVX2 is left out
 * of GCC's Windows builds: GCC does not align the stack for the 32-byte registers it spills
 * there (GCC bug 54412), an aligned spill faults. */
#if DM_GNUC && (defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__)))
#define DM_SIMD_X86 1
#if !defined(_WIN32) || defined(__clang__)
#define DM_SIMD_AVX2 1
#endif
#elif DM_GNUC && (defined(__aarch64__) || defined(__ARM_NEON) || defined(DM_TARGET_NEON_AT_RUN_TIME)) && \
    defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DM_SIMD_NEON 1
#elif DM_GNUC && !defined(__arm__) && !defined(__aarch64__)
#define DM_SIMD_VECTOR 1
#endif

/* The longest row dm_simd.reversed_rows reverses without aligning its stores, 16 cache
 * lines: the 512-byte rows of a [128, 128] FLOAT32 slice ran 1.9-2.0 us unaligned against
 * 2.4-2.5 with reversed's aligned head a row (AVX2, 2026-11-28); at 2 KiB the two were
 * within the runs' spread. */
#define DM_REVERSED_ROW_BYTES 1024u

/* REVERSE's columns of different lengths (dm_simd.ragged) take at most this many rows. */
#define DM_RAGGED_ROWS 16u

/* Every function takes elements of esize = 1, 2, 4 or 8 bytes, a contiguous dst aligned
 * to esize, and writes exactly the count elements asked for (with `stream`, contiguous
 * blocks go out as streaming stores; the caller ends with dm_stream_fence). */
typedef struct dm_simd {
    /* dst[i] = src[-i]: src is the first element read, the run's highest address. */
    void (*reversed)(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, bool stream);
    /* `rows` runs of reversed, row r's dst at dst + r drow and its src (the first element
     * read) at src + r srow: one call a batch of short rows, where a call per row (an
     * indirect call, then a head and a tail vector) cost 40 ns of a 32-row [32, 32] FLOAT32
     * slice of 0.4 us. Rows up to DM_REVERSED_ROW_BYTES go unaligned, one vector at a time
     * and the last overlapping; longer rows, and any with `stream`, as reversed does. */
    void (*reversed_rows)(uint8_t *dst, int64_t drow, const uint8_t *src, int64_t srow, uint64_t rows,
                          uint64_t count, uint32_t esize, bool stream);
    /* dst[i] = src[2 i] and dst[i] = src[-2 i]. */
    void (*even)(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, bool stream);
    void (*even_down)(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, bool stream);
    /* dst[i] = src[3 i dir], dir 1 or -1. */
    void (*third)(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, int dir, bool stream);
    /* memcpy of bytes, every whole aligned vector of dst a streaming store. */
    void (*stream_copy)(uint8_t *dst, const uint8_t *src, uint64_t bytes);
    /* REVERSE of n <= DM_RAGGED_ROWS rows of w contiguous columns, drow and srow bytes
     * apart (dst and src: column 0 of row 0), a length per column: column c's rows below
     * its length L, len[c], come from row L - 1 - r, the rest stay. len holds w lengths
     * already clamped to [0, n], each an esize-byte unsigned integer. false (nothing
     * written) when w is under one vector's columns. */
    bool (*ragged)(uint8_t *dst, int64_t drow, const uint8_t *src, int64_t srow, const uint8_t *len, uint64_t w,
                   uint32_t n, uint32_t esize, bool stream);
    /* The ragged REVERSE's lengths: count packed 32-bit ones at lp (unsigned, or signed
     * with negative ones counting as 0), clamped to [0, n], into len as esize-byte lanes;
     * returns how many differ from the one before them (the first counts). */
    uint64_t (*lanes)(uint8_t *len, const uint8_t *lp, uint64_t count, uint32_t n, bool is_signed, uint32_t esize);
} dm_simd;

/* The instruction sets this build and CPU run, a bit per dm_isa (DM_ISA_SCALAR always). */
uint32_t dm_isa_offered(void);
/* The best of them: what a context takes by default. */
dm_isa dm_isa_best(void);
/* "scalar", "sse2", "ssse3", "avx2", "neon", "vector". */
const char *dm_isa_name(dm_isa isa);
/* The instruction set named (any case); false when no dm_isa has that name. */
bool dm_isa_from_name(const char *name, dm_isa *isa);
/* The table of an offered instruction set. */
const dm_simd *dm_simd_of(dm_isa isa);

/* A constant-size element copy between strided runs: the scalar loop, which every table
 * also uses for what its vectors leave. */
#define DM_STRIDED_LOOP(T)                                                                \
    for (uint64_t i = 0; i < count; i++, dst += dst_stride * (int64_t)sizeof(T),          \
                  src += src_stride * (int64_t)sizeof(T)) {                               \
        T v_;                                                                             \
        memcpy(&v_, src, sizeof v_);                                                      \
        memcpy(dst, &v_, sizeof v_);                                                      \
    }

/* Inlined into every caller: out of line (once the step-3 and step -2 copies called it
 * too), the 1-D every-fourth-FLOAT32 copy ran 1.4-2x slower with the same loop body. */
DM_INLINE void dm_copy_strided(uint8_t *dst, int64_t dst_stride, const uint8_t *src, int64_t src_stride, uint64_t count,
                               uint32_t esize)
{
    switch (esize) {
    case 1: DM_STRIDED_LOOP(uint8_t); break;
    case 2: DM_STRIDED_LOOP(uint16_t); break;
    case 4: DM_STRIDED_LOOP(uint32_t); break;
    default: DM_STRIDED_LOOP(uint64_t); break;
    }
}

/* Stores v as an esize-byte unsigned integer (a lane of dm_simd.ragged's lengths). */
DM_INLINE void dm_put_lane(uint8_t *p, uint64_t v, uint32_t esize)
{
    const uint8_t b = (uint8_t)v;
    const uint16_t h = (uint16_t)v;
    const uint32_t w = (uint32_t)v;
    switch (esize) {
    case 1: memcpy(p, &b, 1); break;
    case 2: memcpy(p, &h, 2); break;
    case 4: memcpy(p, &w, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

/* The lane dm_put_lane stored. */
DM_INLINE uint64_t dm_get_lane(const uint8_t *p, uint32_t esize)
{
    uint8_t b;
    uint16_t h;
    uint32_t w;
    uint64_t v;
    switch (esize) {
    case 1: memcpy(&b, p, 1); return b;
    case 2: memcpy(&h, p, 2); return h;
    case 4: memcpy(&w, p, 4); return w;
    default: memcpy(&v, p, 8); return v;
    }
}

/* dm_simd.lanes one length at a time: the scalar table's, and what the vector tables
 * leave past their last whole vector. Inline, so that the vector tables' units need
 * nothing from simd.c, which chooses among them (no dependency cycle between units). */
DM_INLINE uint64_t dm_lanes_scalar(uint8_t *len, const uint8_t *lp, uint64_t count, uint32_t n, bool is_signed,
                                   uint32_t esize, uint64_t prev)
{
    uint64_t changes = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint32_t raw;
        memcpy(&raw, lp + 4 * i, 4);
        const uint64_t v = is_signed && (int32_t)raw < 0 ? 0 : raw > n ? n : raw;
        changes += v != prev;
        prev = v;
        dm_put_lane(len + i * esize, v, esize);
    }
    return changes;
}

#if DM_SIMD_X86
extern const dm_simd dm_simd_sse2, dm_simd_ssse3;
#if DM_SIMD_AVX2
extern const dm_simd dm_simd_avx2;
#endif
#endif
#if DM_SIMD_NEON
extern const dm_simd dm_simd_neon;
#endif
#if DM_SIMD_VECTOR
extern const dm_simd dm_simd_vector;
#endif

#endif
