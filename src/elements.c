/* Element movement and index decoding shared by the operators' CPU semantics. Elements
 * are moved as raw bytes: no operator here does arithmetic on data.
 *
 * The hot loops use GCC/Clang vector extensions on 16-byte values, so they compile to
 * SIMD at -O2 with no -march flag (SSE2 on x86-64, NEON on AArch64): at -O2 the
 * compilers' cost models do not vectorise loops whose trip count is unknown, and
 * reversing elements inside a register is a shuffle no auto-vectoriser emits anyway.
 * Every shuffle below is one the baseline instruction set has (pshufd, shifts, pand,
 * packuswb) or a short sequence of them. */
#include "elements.h"

#include <stdatomic.h>
#include <string.h>
#include "platform/platform.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define DM_NT_STORES 1
#else
#define DM_NT_STORES 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define DM_VECTORS 1
typedef uint32_t dm_v4u32 __attribute__((vector_size(16)));
typedef uint16_t dm_v8u16 __attribute__((vector_size(16)));
typedef int32_t dm_v4i32 __attribute__((vector_size(16)));
typedef int16_t dm_v8i16 __attribute__((vector_size(16)));
typedef uint8_t dm_v16u8 __attribute__((vector_size(16)));

static inline dm_v4u32 dm_load16(const uint8_t *p)
{
    dm_v4u32 v;
    memcpy(&v, p, 16);
    return v;
}

static inline void dm_store16(uint8_t *p, dm_v4u32 v) { memcpy(p, &v, 16); }

/* A 16-byte store to a 16-byte aligned p, streaming when asked and available. */
static inline void dm_store16_to(uint8_t *p, dm_v4u32 v, bool stream)
{
#if DM_NT_STORES
    if (stream) {
        _mm_stream_si128((__m128i *)(void *)p, (__m128i)v);
        return;
    }
#else
    (void)stream;
#endif
    dm_store16(p, v);
}

/* Reverses the order of the 16 / esize elements of a 16-byte value. */
static inline dm_v4u32 dm_reverse16(dm_v4u32 v, uint32_t esize)
{
    if (esize == 8) return __builtin_shufflevector(v, v, 2, 3, 0, 1);
    v = __builtin_shufflevector(v, v, 3, 2, 1, 0); /* 4-byte lanes */
    if (esize == 4) return v;
    v = (v << 16) | (v >> 16); /* 2-byte halves of each lane */
    if (esize == 2) return v;
    dm_v8u16 h = (dm_v8u16)v;
    return (dm_v4u32)((h << 8) | (h >> 8)); /* bytes of each half */
}

/* The even-numbered elements of the 32 bytes a, b (a first), as 16 bytes. */
static inline dm_v4u32 dm_even16(dm_v4u32 a, dm_v4u32 b, uint32_t esize)
{
    switch (esize) {
    case 8: return __builtin_shufflevector(a, b, 0, 1, 4, 5);
    case 4: return __builtin_shufflevector(a, b, 0, 2, 4, 6);
    case 2: {
        /* Sign-extend the low halves so that a signed saturating pack keeps them exact. */
        dm_v8i16 x = (dm_v8i16)(((dm_v4i32)(a << 16)) >> 16), y = (dm_v8i16)(((dm_v4i32)(b << 16)) >> 16);
        return (dm_v4u32)__builtin_shufflevector(x, y, 0, 2, 4, 6, 8, 10, 12, 14);
    }
    default: {
        dm_v16u8 x = (dm_v16u8)a, y = (dm_v16u8)b;
        return (dm_v4u32)__builtin_shufflevector(x, y, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    }
    }
}

/* The odd-numbered elements of the 32 bytes a, b (a first), as 16 bytes: the even ones
 * of the same bytes moved down by one element within each pair. */
static inline dm_v4u32 dm_odd16(dm_v4u32 a, dm_v4u32 b, uint32_t esize)
{
    switch (esize) {
    case 8: return __builtin_shufflevector(a, b, 2, 3, 6, 7);
    case 4: return __builtin_shufflevector(a, b, 1, 3, 5, 7);
    case 2: return dm_even16(a >> 16, b >> 16, 2);
    default: return dm_even16((dm_v4u32)((dm_v8u16)a >> 8), (dm_v4u32)((dm_v8u16)b >> 8), 1);
    }
}

/* Every third element of the 48 bytes a, b, c (a first), from element `from` (0 or 2),
 * as 16 bytes: 4- and 2-byte elements. Byte elements stay on the scalar loop: without
 * SSSE3's byte shuffle the compiler's sequence ran twice as long (1 MiB of UINT8 output:
 * 284 us scalar, 551 us shuffled; FLOAT16 142 -> 107, FLOAT32 71 -> 42). */
static inline dm_v4u32 dm_third16(dm_v4u32 a, dm_v4u32 b, dm_v4u32 c, uint32_t esize, uint32_t from)
{
    if (esize == 4) {
        if (from == 0) return __builtin_shufflevector(__builtin_shufflevector(a, b, 0, 3, 6, 0), c, 0, 1, 2, 5);
        return __builtin_shufflevector(__builtin_shufflevector(a, b, 2, 5, 0, 0), c, 0, 1, 4, 7);
    }
    const dm_v8u16 x = (dm_v8u16)a, y = (dm_v8u16)b, z = (dm_v8u16)c;
    if (from == 0)
        return (dm_v4u32)__builtin_shufflevector(__builtin_shufflevector(x, y, 0, 3, 6, 9, 12, 15, 0, 0), z, 0, 1, 2,
                                                 3, 4, 5, 10, 13);
    return (dm_v4u32)__builtin_shufflevector(__builtin_shufflevector(x, y, 2, 5, 8, 11, 14, 0, 0, 0), z, 0, 1, 2, 3, 4,
                                             9, 12, 15);
}
#else
#define DM_VECTORS 0
#endif

/* One T from s to d: compilers turn the memcpy pair into one load and one store of the
 * right width. */
#define DM_MOVE(T, d, s)                                                                  \
    do {                                                                                  \
        T v_;                                                                             \
        memcpy(&v_, s, sizeof v_);                                                        \
        memcpy(d, &v_, sizeof v_);                                                        \
    } while (0)

/* A constant-size element copy between strided runs. */
#define DM_STRIDED_LOOP(T)                                                                \
    for (uint64_t i = 0; i < count; i++, dst += dst_stride * (int64_t)sizeof(T),          \
                  src += src_stride * (int64_t)sizeof(T))                                 \
        DM_MOVE(T, dst, src)

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

/* The vector body of the reversed and the every-other-element copies, inlined once per
 * element size and store kind so that the loop holds no decision: dst is 16-byte
 * aligned, and i counts elements from `from`. */
DM_INLINE uint64_t dm_reversed_body(uint8_t *dst, const uint8_t *top, uint64_t i, uint64_t count, const uint32_t esize,
                                    const bool stream)
{
#if DM_VECTORS
    const uint64_t k = 16 / esize;
    for (; i + 2 * k <= count; i += 2 * k) {
        dm_v4u32 a = dm_load16(top - (i + k) * esize), b = dm_load16(top - (i + 2 * k) * esize);
        dm_store16_to(dst + i * esize, dm_reverse16(a, esize), stream);
        dm_store16_to(dst + (i + k) * esize, dm_reverse16(b, esize), stream);
    }
    for (; i + k <= count; i += k)
        dm_store16_to(dst + i * esize, dm_reverse16(dm_load16(top - (i + k) * esize), esize), stream);
#else
    (void)dst, (void)top, (void)count, (void)esize, (void)stream;
#endif
    return i;
}

DM_INLINE uint64_t dm_even_body(uint8_t *dst, const uint8_t *src, uint64_t i, uint64_t count, const uint32_t esize,
                                const bool stream)
{
#if DM_VECTORS
    const uint64_t k = 16 / esize;
    /* The second load of a block reads 16 bytes starting at element 2 (i + k) - k, which
     * stays inside the run only while i + k < count; the tail loop takes the rest. */
    for (; i + k < count; i += k) {
        const uint8_t *s = src + 2 * i * esize;
        dm_store16_to(dst + i * esize, dm_even16(dm_load16(s), dm_load16(s + 16), esize), stream);
    }
#else
    (void)dst, (void)src, (void)count, (void)esize, (void)stream;
#endif
    return i;
}

/* Calls BODY(dst, src, i, count, esize, stream) with esize and stream as constants. */
#define DM_SPECIALISE(BODY, dst, src, i, count, esize, stream)                            \
    (esize == 1   ? (stream ? BODY(dst, src, i, count, 1, true) : BODY(dst, src, i, count, 1, false))   \
     : esize == 2 ? (stream ? BODY(dst, src, i, count, 2, true) : BODY(dst, src, i, count, 2, false))   \
     : esize == 4 ? (stream ? BODY(dst, src, i, count, 4, true) : BODY(dst, src, i, count, 4, false))   \
                  : (stream ? BODY(dst, src, i, count, 8, true) : BODY(dst, src, i, count, 8, false)))

/* Elements to copy one by one before dst reaches a 16-byte boundary (every element
 * size divides 16, and dst is aligned to its element size). */
static uint64_t dm_head(const uint8_t *dst, uint64_t count, uint32_t esize)
{
    uint64_t h = (uint64_t)((16 - ((uintptr_t)dst & 15)) & 15) / esize;
    return h < count ? h : count;
}

/* dst[i] = src[-i]: src is the first element read, the highest address of the run.
 * Each 16-byte block of output is one 16-byte load ending at the mirrored position,
 * reversed in registers. A run of at least one block does its unaligned head and tail as
 * one block each, overlapping the aligned blocks (rewriting some elements with the same
 * values) instead of element by element: a 64-element UINT8 row had a quarter of its
 * elements in such loops. */
static void dm_copy_reversed(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, bool stream)
{
    const uint8_t *top = src + esize;
    uint64_t i = dm_head(dst, count, esize);
#if DM_VECTORS
    const uint64_t k = 16 / esize;
    const bool blocks = count >= k;
#endif
    if (i) {
#if DM_VECTORS
        if (blocks) dm_store16(dst, dm_reverse16(dm_load16(top - k * esize), esize));
        else
#endif
            dm_copy_strided(dst, 1, src, -1, i, esize);
    }
    i = DM_SPECIALISE(dm_reversed_body, dst, top, i, count, esize, stream);
    if (i < count) {
#if DM_VECTORS
        if (blocks) dm_store16(dst + (count - k) * esize, dm_reverse16(dm_load16(top - count * esize), esize));
        else
#endif
            dm_copy_strided(dst + i * esize, 1, src - (int64_t)(i * esize), -1, count - i, esize);
    }
}

/* dst[i] = src[2 i]: two 16-byte loads give one 16-byte block of output. A run of more
 * than one block does its head and tail as overlapping blocks, as dm_copy_reversed does;
 * the tail's loads start one element early, so as to end at the run's last element, and
 * keep the odd lanes. */
static void dm_copy_even(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, bool stream)
{
    uint64_t i = dm_head(dst, count, esize);
#if DM_VECTORS
    const uint64_t k = 16 / esize;
    const bool blocks = count > k;
#endif
    if (i) {
#if DM_VECTORS
        if (blocks) dm_store16(dst, dm_even16(dm_load16(src), dm_load16(src + 16), esize));
        else
#endif
            dm_copy_strided(dst, 1, src, 2, i, esize);
    }
    i = DM_SPECIALISE(dm_even_body, dst, src, i, count, esize, stream);
    if (i < count) {
#if DM_VECTORS
        if (blocks) {
            const uint8_t *s = src + (2 * (count - k) - 1) * esize;
            dm_store16(dst + (count - k) * esize, dm_odd16(dm_load16(s), dm_load16(s + 16), esize));
        } else
#endif
            dm_copy_strided(dst + i * esize, 1, src + 2 * i * esize, 2, count - i, esize);
    }
}

/* dst[i] = src[-2 i]: the odd elements of the 32 bytes ending at the block's first source
 * element, reversed. The loads start one element below the block's last source element,
 * inside the run while i + k < count, as in dm_even_body. */
DM_INLINE uint64_t dm_even_down_body(uint8_t *dst, const uint8_t *top, uint64_t i, uint64_t count,
                                     const uint32_t esize, const bool stream)
{
#if DM_VECTORS
    const uint64_t k = 16 / esize;
    for (; i + k < count; i += k) {
        const uint8_t *s = top - 2 * (i + k) * esize; /* top: one element past src */
        dm_store16_to(dst + i * esize, dm_reverse16(dm_odd16(dm_load16(s), dm_load16(s + 16), esize), esize), stream);
    }
#else
    (void)dst, (void)top, (void)count, (void)esize, (void)stream;
#endif
    return i;
}

/* dst[i] = src[-2 i] (the real or imaginary parts of complex pairs in reverse, every other
 * element of a flipped row): scalar up to dst's 16-byte boundary and after the blocks.
 * One thread, [2048, 1024, 2] -> [2048, 1024, 1] FLOAT32 with the middle axis reversed
 * ran at 0.3-0.55x numpy element by element. */
static void dm_copy_even_down(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, bool stream)
{
    const uint64_t head = dm_head(dst, count, esize);
    dm_copy_strided(dst, 1, src, -2, head, esize);
    const uint64_t i = DM_SPECIALISE(dm_even_down_body, dst, src + esize, head, count, esize, stream);
    dm_copy_strided(dst + i * esize, 1, src - (int64_t)(2 * i * esize), -2, count - i, esize);
}

/* dst[i] = src[3 i] (dir 1) or src[-3 i] (dir -1), 2- and 4-byte elements: three 16-byte
 * loads give one 16-byte block of output, reversed when going down. A block's loads reach
 * two elements past its last source element (below it going down), which stays inside
 * the run while i + k < count, as in dm_even_body; the rest goes element by element. */
DM_INLINE uint64_t dm_third_body(uint8_t *dst, const uint8_t *src, uint64_t i, uint64_t count, const uint32_t esize,
                                 const int dir, bool stream)
{
#if DM_VECTORS
    const uint64_t k = 16 / esize;
    for (; i + k < count; i += k) {
        /* Going down, the block's lowest source element is 3 (i + k - 1) below src and the
         * loads start two elements under it, so that element lands in lane 2. */
        const uint8_t *s = dir > 0 ? src + 3 * i * esize : src - (3 * (i + k - 1) + 2) * esize;
        const dm_v4u32 v = dm_third16(dm_load16(s), dm_load16(s + 16), dm_load16(s + 32), esize, dir > 0 ? 0 : 2);
        dm_store16_to(dst + i * esize, dir > 0 ? v : dm_reverse16(v, esize), stream);
    }
#else
    (void)dst, (void)src, (void)count, (void)esize, (void)dir, (void)stream;
#endif
    return i;
}

static void dm_copy_third(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, int dir, bool stream)
{
    const uint64_t head = dm_head(dst, count, esize);
    const int64_t step = 3 * dir;
    dm_copy_strided(dst, 1, src, step, head, esize);
    uint64_t i = head;
    if (esize == 2)
        i = dir > 0 ? dm_third_body(dst, src, i, count, 2, 1, stream) : dm_third_body(dst, src, i, count, 2, -1, stream);
    else i = dir > 0 ? dm_third_body(dst, src, i, count, 4, 1, stream) : dm_third_body(dst, src, i, count, 4, -1, stream);
    dm_copy_strided(dst + i * esize, 1, src + (int64_t)i * step * (int64_t)esize, step, count - i, esize);
}

void dm_stream_copy(uint8_t *dst, const uint8_t *src, uint64_t bytes)
{
#if DM_NT_STORES && DM_VECTORS
    uint64_t head = (16 - ((uintptr_t)dst & 15)) & 15;
    if (head >= bytes) {
        memcpy(dst, src, (size_t)bytes);
        return;
    }
    memcpy(dst, src, (size_t)head);
    uint64_t i = head;
    for (; i + 64 <= bytes; i += 64) {
        dm_v4u32 a = dm_load16(src + i), b = dm_load16(src + i + 16), c = dm_load16(src + i + 32),
                 d = dm_load16(src + i + 48);
        dm_store16_to(dst + i, a, true);
        dm_store16_to(dst + i + 16, b, true);
        dm_store16_to(dst + i + 32, c, true);
        dm_store16_to(dst + i + 48, d, true);
    }
    for (; i + 16 <= bytes; i += 16) dm_store16_to(dst + i, dm_load16(src + i), true);
    memcpy(dst + i, src + i, (size_t)(bytes - i));
#else
    memcpy(dst, src, (size_t)bytes);
#endif
}

/* Asked once per process (a once flag rather than a 64-bit atomic, which 32-bit ARMv6
 * has only through libatomic). */
static uint64_t dm_stream_min;
static void dm_stream_min_init(void)
{
    const uint64_t l3 = dm_l3_cache_bytes(); /* 0 where the OS cannot tell */
    dm_stream_min = l3 / 4 * 3 > DM_STREAM_MIN_BYTES ? l3 / 4 * 3 : DM_STREAM_MIN_BYTES;
}

uint64_t dm_stream_min_bytes(void)
{
    static dm_once_flag once = DM_ONCE_INIT;
    dm_once(&once, dm_stream_min_init);
    return dm_stream_min;
}

void dm_stream_fence(void)
{
#if DM_NT_STORES
    _mm_sfence();
#endif
}

void dm_copy_run(uint8_t *dst, int64_t dst_stride, const uint8_t *src, int64_t src_stride, uint64_t count,
                 uint32_t esize, bool stream)
{
    if (count == 0) return;
    if ((dst_stride == 1 && src_stride == 1) || count == 1) {
        if (stream) dm_stream_copy(dst, src, count * esize);
        else memcpy(dst, src, (size_t)(count * esize));
        return;
    }
    if (dst_stride == 1 && src_stride == -1) {
        dm_copy_reversed(dst, src, count, esize, stream);
        return;
    }
    if (dst_stride == 1 && src_stride == 2) {
        dm_copy_even(dst, src, count, esize, stream);
        return;
    }
    if (DM_VECTORS && dst_stride == 1 && src_stride == -2) {
        dm_copy_even_down(dst, src, count, esize, stream);
        return;
    }
    if (DM_VECTORS && dst_stride == 1 && (src_stride == 3 || src_stride == -3) && (esize == 2 || esize == 4)) {
        dm_copy_third(dst, src, count, esize, src_stride > 0 ? 1 : -1, stream);
        return;
    }
    if (src_stride == 0) { /* one source element repeated (a broadcast input): a fill */
        dm_fill_run(dst, dst_stride, src, count, esize);
        return;
    }
    dm_copy_strided(dst, dst_stride, src, src_stride, count, esize);
}

/* Contiguous short rows of n bytes: whole words, the last one overlapping the one before
 * (rewriting bytes of the same row with the same values), so that no call and no loop per
 * byte is made. */
DM_INLINE void dm_copy_row_bytes_as(uint8_t *dst, int64_t dst_row, const uint8_t *src, int64_t src_row, uint64_t rows,
                                    uint64_t n, dm_prefetch pf, const bool prefetch)
{
    for (uint64_t r = 0; r < rows; r++, dst += dst_row, src += src_row) {
        if (prefetch) dm_prefetch_row(src, pf);
        if (n > 64) {
            memcpy(dst, src, (size_t)n); /* rows of REVERSE's batches of long rows */
        } else if (n >= 8) {
            uint64_t i = 0;
            for (; i + 8 <= n; i += 8) DM_MOVE(uint64_t, dst + i, src + i);
            if (i < n) DM_MOVE(uint64_t, dst + n - 8, src + n - 8);
        } else if (n >= 4) {
            DM_MOVE(uint32_t, dst, src);
            DM_MOVE(uint32_t, dst + n - 4, src + n - 4);
        } else if (n >= 2) {
            DM_MOVE(uint16_t, dst, src);
            DM_MOVE(uint16_t, dst + n - 2, src + n - 2);
        } else {
            *dst = *src;
        }
    }
}

/* The prefetch is decided once per call, outside the loop: in the loop, even a test per
 * row of 3 bytes cost RGBA -> RGB a third of its speed. */
static void dm_copy_row_bytes(uint8_t *dst, int64_t dst_row, const uint8_t *src, int64_t src_row, uint64_t rows,
                              uint64_t n, dm_prefetch pf)
{
    if (pf.ahead) dm_copy_row_bytes_as(dst, dst_row, src, src_row, rows, n, pf, true);
    else dm_copy_row_bytes_as(dst, dst_row, src, src_row, rows, n, pf, false);
}

/* Each row of a batch as one strided run (DM_STRIDED_LOOP on the row's own pointers). */
#define DM_ROWS_LOOP_AS(T, PREFETCH)                                                      \
    for (uint64_t r = 0; r < rows; r++) {                                                 \
        uint8_t *dst = first_dst + (int64_t)r * dst_row;                                  \
        const uint8_t *src = first_src + (int64_t)r * src_row;                            \
        if (PREFETCH) dm_prefetch_row(dm_row_low(src, src_stride, count, esize), pf);     \
        DM_STRIDED_LOOP(T);                                                               \
    }
#define DM_ROWS_LOOP(T)                                                                   \
    if (pf.ahead) {                                                                       \
        DM_ROWS_LOOP_AS(T, true)                                                          \
    } else {                                                                              \
        DM_ROWS_LOOP_AS(T, false)                                                         \
    }

void dm_copy_rows(uint8_t *first_dst, int64_t dst_row, int64_t dst_stride, const uint8_t *first_src, int64_t src_row,
                  int64_t src_stride, uint64_t rows, uint64_t count, uint32_t esize)
{
    const dm_prefetch pf = dm_prefetch_plan(src_row, src_stride, count, esize, rows);
    if (dst_stride == 1 && src_stride == 1) {
        dm_copy_row_bytes(first_dst, dst_row, first_src, src_row, rows, count * esize, pf);
        return;
    }
    switch (esize) {
    case 1: DM_ROWS_LOOP(uint8_t); break;
    case 2: DM_ROWS_LOOP(uint16_t); break;
    case 4: DM_ROWS_LOOP(uint32_t); break;
    default: DM_ROWS_LOOP(uint64_t); break;
    }
}

#if DM_VECTORS
/* The elements of an 8- or 4-byte word in reverse order. */
DM_INLINE uint64_t dm_reverse8(uint64_t v, const uint32_t esize)
{
    if (esize == 8) return v;
    if (esize == 1) return __builtin_bswap64(v);
    v = (v >> 32) | (v << 32);
    if (esize == 2) v = ((v >> 16) & 0x0000FFFF0000FFFFull) | ((v & 0x0000FFFF0000FFFFull) << 16);
    return v;
}

DM_INLINE uint32_t dm_reverse4(uint32_t v, const uint32_t esize)
{
    return esize == 1 ? __builtin_bswap32(v) : esize == 2 ? (v >> 16) | (v << 16) : v;
}

/* The n bytes at src into dst as two words of type T that overlap in the middle, each
 * from the other end and reversed in a register by REVERSE. */
#define DM_REVERSE_ENDS(T, REVERSE)                                                       \
    do {                                                                                  \
        T a_, b_;                                                                         \
        memcpy(&a_, src + n - sizeof(T), sizeof(T));                                      \
        memcpy(&b_, src, sizeof(T));                                                      \
        a_ = REVERSE(a_, esize), b_ = REVERSE(b_, esize);                                 \
        memcpy(dst, &a_, sizeof(T));                                                      \
        memcpy(dst + n - sizeof(T), &b_, sizeof(T));                                      \
    } while (0)

/* Reverses the n bytes (a whole number of elements, under 16) at src into dst. */
DM_INLINE void dm_reverse_small(uint8_t *dst, const uint8_t *src, uint64_t n, const uint32_t esize)
{
    if (n >= 8) {
        DM_REVERSE_ENDS(uint64_t, dm_reverse8);
    } else if (n >= 4) {
        DM_REVERSE_ENDS(uint32_t, dm_reverse4);
    } else if (n >= 2) { /* 1-byte elements: 2 or 3 of them; or one 2-byte element */
        const uint8_t first = src[0], last = src[n - 1], mid = src[n / 2];
        if (esize == 2) { memcpy(dst, src, 2); return; }
        dst[0] = last, dst[n / 2] = mid, dst[n - 1] = first;
    } else {
        dst[0] = src[0];
    }
}
#endif

/* One row of dm_reverse_rows_prefix with esize a constant: the first L elements as
 * blocks reversed in registers (overlapping at the row's start when L is not a whole
 * number of blocks), or as words when L is under a block; the rest copied. */
DM_INLINE void dm_reverse_prefix_row(uint8_t *dst, const uint8_t *src, uint64_t L, uint64_t m, const uint32_t esize)
{
    for (uint64_t i = L; i < m; i++) memcpy(dst + i * esize, src + i * esize, esize); /* one move each */
    if (L == 0) return;
#if DM_VECTORS
    const uint64_t k = 16 / esize;
    if (L >= k) {
        const uint8_t *top = src + L * esize;
        uint64_t i = 0;
        for (; i + k <= L; i += k) dm_store16(dst + i * esize, dm_reverse16(dm_load16(top - (i + k) * esize), esize));
        if (i < L) dm_store16(dst + (L - k) * esize, dm_reverse16(dm_load16(src), esize));
    } else {
        dm_reverse_small(dst, src, L * esize, esize);
    }
#else
    dm_copy_strided(dst, 1, src + (L - 1) * esize, -1, L, esize);
#endif
}

#define DM_REVERSE_PREFIX_LOOP_AS(E, PREFETCH)                                            \
    for (uint64_t r = 0; r < rows; r++, dst += dst_row, src += src_row, lp += len_row) {  \
        if (PREFETCH) dm_prefetch_row(src, pf);                                           \
        dm_reverse_prefix_row(dst, src, dm_read_length(len_type, lp, n), m, E);           \
    }
#define DM_REVERSE_PREFIX_LOOP(E)                                                         \
    if (pf.ahead) {                                                                       \
        DM_REVERSE_PREFIX_LOOP_AS(E, true)                                                \
    } else {                                                                              \
        DM_REVERSE_PREFIX_LOOP_AS(E, false)                                               \
    }

void dm_reverse_rows_prefix(uint8_t *dst, int64_t dst_row, const uint8_t *src, int64_t src_row, uint64_t rows,
                            uint64_t m, uint32_t esize, const uint8_t *lp, int64_t len_row,
                            DML_TENSOR_DATA_TYPE len_type, uint64_t n)
{
    const dm_prefetch pf = dm_prefetch_plan(src_row, 1, m, esize, rows);
    switch (esize) {
    case 1: DM_REVERSE_PREFIX_LOOP(1); break;
    case 2: DM_REVERSE_PREFIX_LOOP(2); break;
    case 4: DM_REVERSE_PREFIX_LOOP(4); break;
    default: DM_REVERSE_PREFIX_LOOP(8); break;
    }
}

dm_prefetch dm_prefetch_plan(int64_t row_step, int64_t elem_step, uint64_t count, uint32_t esize, uint64_t rows)
{
    const dm_prefetch none = {0, 0};
    if (count == 0 || rows < 2 * DM_PREFETCH_ROWS) return none;
    const uint64_t e = elem_step < 0 ? (uint64_t)-elem_step : (uint64_t)elem_step;
    const uint64_t step = row_step < 0 ? (uint64_t)-row_step : (uint64_t)row_step;
    const uint64_t span_max = e > 1 ? DM_PREFETCH_STRIDED_SPAN_MAX : DM_PREFETCH_SPAN_MAX;
    if (e > span_max || count > span_max) return none; /* keeps the product small */
    const uint64_t span = (count - 1) * e * esize + esize;
    /* A gap of a line (a crop of 224 of 256 FLOAT16 columns) the hardware follows, and
     * the prefetch cost it 20%; a gap as long as the row (every other row) it does not. */
    /* A row step beyond 2^40 bytes, or one whose DM_PREFETCH_ROWS rows do not fit in an
     * intptr_t (32-bit hosts), is no stream the hardware could use anyway. */
    if (span > span_max || step < 2 * span || step < span + 128 || step > (1ull << 40) ||
        step > (uint64_t)INTPTR_MAX / DM_PREFETCH_ROWS)
        return none;
    return (dm_prefetch){(intptr_t)row_step * DM_PREFETCH_ROWS, (uintptr_t)span};
}

void dm_fill_run(uint8_t *dst, int64_t dst_stride, const uint8_t *value, uint64_t count, uint32_t esize)
{
    if (count == 0) return;
    bool bytes_equal = true;
    for (uint32_t b = 1; b < esize; b++) bytes_equal = bytes_equal && value[b] == value[0];
    if (dst_stride == 1 && bytes_equal) {
        memset(dst, value[0], (size_t)(count * esize));
        return;
    }
    uint64_t i = 0;
#if DM_VECTORS
    if (dst_stride == 1) {
        uint8_t pattern[16];
        for (uint32_t b = 0; b < 16; b += esize) memcpy(pattern + b, value, esize);
        const dm_v4u32 v = dm_load16(pattern);
        const uint64_t k = 16 / esize;
        for (; i + 4 * k <= count; i += 4 * k) {
            uint8_t *d = dst + i * esize;
            dm_store16(d, v);
            dm_store16(d + 16, v);
            dm_store16(d + 32, v);
            dm_store16(d + 48, v);
        }
        for (; i + k <= count; i += k) dm_store16(dst + i * esize, v);
    }
#endif
    dst += (int64_t)i * dst_stride * esize;
    const int64_t step = dst_stride * (int64_t)esize;
    /* A strided fill (a transposed output) is a store per element: of a known size, not
     * a memcpy call each (a ONE_HOT into a [depth, N]-strided output ran at 0.1x numpy). */
#define DM_FILL_AS(T)                                                                     \
    do {                                                                                  \
        T v;                                                                              \
        memcpy(&v, value, sizeof v);                                                      \
        for (; i < count; i++, dst += step) memcpy(dst, &v, sizeof v);                    \
    } while (0)
    switch (esize) {
    case 1: DM_FILL_AS(uint8_t); break;
    case 2: DM_FILL_AS(uint16_t); break;
    case 4: DM_FILL_AS(uint32_t); break;
    default: DM_FILL_AS(uint64_t); break;
    }
#undef DM_FILL_AS
}

static uint64_t dm_load_u64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t dm_load_u32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

uint64_t dm_read_length(DML_TENSOR_DATA_TYPE type, const uint8_t *p, uint64_t n)
{
    uint64_t v;
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT32: v = dm_load_u32(p); break;
    case DML_TENSOR_DATA_TYPE_INT32: {
        int32_t s = (int32_t)dm_load_u32(p);
        v = s < 0 ? 0 : (uint64_t)s; /* a negative length counts as 0 (decision) */
        break;
    }
    case DML_TENSOR_DATA_TYPE_INT64: {
        int64_t s = (int64_t)dm_load_u64(p);
        v = s < 0 ? 0 : (uint64_t)s;
        break;
    }
    default: v = dm_load_u64(p); break; /* UINT64 */
    }
    return v < n ? v : n;
}


/* The scan of dm_equal_length_run for one length type T, converted to 64 bits by CLAMP. */
#define DM_EQUAL_LENGTH_RUN(T, CLAMP)                                                     \
    do {                                                                                  \
        T first;                                                                          \
        memcpy(&first, p, sizeof first);                                                  \
        const uint64_t l0 = CLAMP(first, n);                                              \
        if (step == (int64_t)sizeof(T)) /* packed: 16 at a time, no branch per length */  \
            for (; k + 16 <= count; k += 16) {                                            \
                T blk[16];                                                                \
                unsigned diff = 0;                                                        \
                memcpy(blk, p + k * sizeof(T), sizeof blk);                               \
                for (int i = 0; i < 16; i++) diff |= blk[i] != first;                     \
                if (diff) break; /* the exact place, and clamping, by the loop below */   \
            }                                                                             \
        for (; k < count; k++) {                                                          \
            T v;                                                                          \
            memcpy(&v, p + (int64_t)k * step, sizeof v);                                  \
            if (v != first && CLAMP(v, n) != l0) break;                                   \
        }                                                                                 \
    } while (0)

uint64_t dm_equal_length_run(DML_TENSOR_DATA_TYPE type, const uint8_t *p, int64_t step, uint64_t count, uint64_t n)
{
    uint64_t k = 1;
    if (step == 0) return count; /* one length broadcast along the run */
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT32: DM_EQUAL_LENGTH_RUN(uint32_t, dm_clamp_unsigned); break;
    case DML_TENSOR_DATA_TYPE_INT32: DM_EQUAL_LENGTH_RUN(int32_t, dm_clamp_signed); break;
    case DML_TENSOR_DATA_TYPE_INT64: DM_EQUAL_LENGTH_RUN(int64_t, dm_clamp_signed); break;
    default: DM_EQUAL_LENGTH_RUN(uint64_t, dm_clamp_unsigned); break;
    }
    return k;
}

int64_t dm_read_index(DML_TENSOR_DATA_TYPE type, const uint8_t *p, uint64_t n)
{
    int64_t k;
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT32: k = dm_load_u32(p); break;
    case DML_TENSOR_DATA_TYPE_INT32: k = (int32_t)dm_load_u32(p); break;
    case DML_TENSOR_DATA_TYPE_INT64: k = (int64_t)dm_load_u64(p); break;
    default: { /* UINT64: never truncated, so anything >= n is out of range */
        uint64_t u = dm_load_u64(p);
        return u < n ? (int64_t)u : -1;
    }
    }
    if (k < 0) {
        if (k < -(int64_t)n) return -1;
        k += (int64_t)n;
    }
    return k < (int64_t)n ? k : -1;
}
