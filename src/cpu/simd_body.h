/* The CPU engine's vector loops (simd.h, dm_simd), written once and compiled once per
 * instruction set: each simd_<isa>.c defines what differs and includes this file inside
 * its DM_TARGET_* region.
 *
 *   DM_SIMD(x)        the instance's name for x (dm_avx2_##x)
 *   DM_SIMD_TABLE     the table this instance defines (dm_simd_avx2)
 *   DM_W              bytes per vector: 16 or 32
 *   DM_SHUFFLES       1: a whole-register element shuffle is one instruction (pshufb,
 *                     vpshufb, tbl); 0: the baseline's sequences of vec16.h (SSE2 has no
 *                     byte shuffle; its compiled byte reversal was a store and 16 byte loads)
 *   DM_NT_STORE(p, v) a streaming store of the vector v to the DM_W-aligned p (a plain
 *                     store where the instruction set has none)
 *   DM_SELECT(m, a, b) the bytes of a where m's are all ones, else b's
 *   DM_SHORT          32-byte instances: the 16-byte table that takes runs shorter than a
 *                     vector and the step-3 copies (16-byte instances go element by element)
 *
 * Each loop is inlined once per element size and store kind (DM_SPECIALISE), so that its
 * body decides nothing. A run of at least one vector does its unaligned head and tail as
 * one vector each, overlapping the aligned ones (rewriting some elements with the same
 * values) instead of element by element: a 64-element UINT8 row had a quarter of its
 * elements in such loops. */
#if !defined(DM_SIMD) || !defined(DM_W) || !defined(DM_SHUFFLES)
#error "simd_body.h: define DM_SIMD, DM_W and DM_SHUFFLES first"
#endif
#if !DM_SHUFFLES && DM_W != 16
#error "simd_body.h: the shuffle-free element sequences are 16-byte ones (vec16.h)"
#endif

typedef uint8_t dm_vb __attribute__((vector_size(DM_W)));
typedef uint16_t dm_vh __attribute__((vector_size(DM_W)));
typedef uint32_t dm_vw __attribute__((vector_size(DM_W)));
typedef uint64_t dm_vd __attribute__((vector_size(DM_W)));

DM_INLINE dm_vb dm_load(const uint8_t *p)
{
    dm_vb v;
    memcpy(&v, p, DM_W);
    return v;
}

DM_INLINE void dm_store(uint8_t *p, dm_vb v) { memcpy(p, &v, DM_W); }

/* A store to the DM_W-aligned p, streaming when asked. */
DM_INLINE void dm_store_to(uint8_t *p, dm_vb v, const bool stream)
{
    if (stream) DM_NT_STORE(p, v);
    else dm_store(p, v);
}

/* Lane indices of the shuffles: lanes in reverse, the even and the odd ones of two. */
#define DM_REV_2 1, 0
#define DM_REV_4 3, 2, DM_REV_2
#define DM_REV_8 7, 6, 5, 4, DM_REV_4
#define DM_REV_16 15, 14, 13, 12, 11, 10, 9, 8, DM_REV_8
#define DM_REV_32 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, DM_REV_16
#define DM_EVEN_2 0, 2
#define DM_EVEN_4 DM_EVEN_2, 4, 6
#define DM_EVEN_8 DM_EVEN_4, 8, 10, 12, 14
#define DM_EVEN_16 DM_EVEN_8, 16, 18, 20, 22, 24, 26, 28, 30
#define DM_EVEN_32 DM_EVEN_16, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62
#define DM_ODD_2 1, 3
#define DM_ODD_4 DM_ODD_2, 5, 7
#define DM_ODD_8 DM_ODD_4, 9, 11, 13, 15
#define DM_ODD_16 DM_ODD_8, 17, 19, 21, 23, 25, 27, 29, 31
#define DM_ODD_32 DM_ODD_16, 33, 35, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55, 57, 59, 61, 63
#define DM_CAT_(a, b) a##b
#define DM_CAT(a, b) DM_CAT_(a, b)
#if DM_W == 16
#define DM_LANES_1 16
#define DM_LANES_2 8
#define DM_LANES_4 4
#define DM_LANES_8 2
#else
#define DM_LANES_1 32
#define DM_LANES_2 16
#define DM_LANES_4 8
#define DM_LANES_8 4
#endif
/* SHUFFLE(kind) over the vector's elements of each size: dm_vb x, y in scope. */
#define DM_BY_ELEMENT(esize, KIND)                                                        \
    switch (esize) {                                                                      \
    case 1: return __builtin_shufflevector(x, y, DM_CAT(KIND, DM_LANES_1));               \
    case 2: return (dm_vb)__builtin_shufflevector((dm_vh)x, (dm_vh)y, DM_CAT(KIND, DM_LANES_2)); \
    case 4: return (dm_vb)__builtin_shufflevector((dm_vw)x, (dm_vw)y, DM_CAT(KIND, DM_LANES_4)); \
    default: return (dm_vb)__builtin_shufflevector((dm_vd)x, (dm_vd)y, DM_CAT(KIND, DM_LANES_8)); \
    }

/* The vector's elements in reverse order. */
DM_INLINE dm_vb dm_rev(dm_vb v, const uint32_t esize)
{
#if DM_SHUFFLES
    const dm_vb x = v, y = v;
    DM_BY_ELEMENT(esize, DM_REV_)
#else
    return (dm_vb)dm_reverse16((dm_v4u32)v, esize);
#endif
}

/* The even-numbered (odd-numbered) elements of the two vectors a, b (a first). */
DM_INLINE dm_vb dm_even(dm_vb a, dm_vb b, const uint32_t esize)
{
#if DM_SHUFFLES
    const dm_vb x = a, y = b;
    DM_BY_ELEMENT(esize, DM_EVEN_)
#else
    return (dm_vb)dm_even16((dm_v4u32)a, (dm_v4u32)b, esize);
#endif
}

DM_INLINE dm_vb dm_odd(dm_vb a, dm_vb b, const uint32_t esize)
{
#if DM_SHUFFLES
    const dm_vb x = a, y = b;
    DM_BY_ELEMENT(esize, DM_ODD_)
#else
    return (dm_vb)dm_odd16((dm_v4u32)a, (dm_v4u32)b, esize);
#endif
}

/* Elements before dst reaches a DM_W-byte boundary (every element size divides DM_W,
 * and dst is aligned to its element size), at most count. */
DM_INLINE uint64_t dm_head(const uint8_t *dst, uint64_t count, uint32_t esize)
{
    const uint64_t h = (uint64_t)((DM_W - ((uintptr_t)dst & (DM_W - 1))) & (DM_W - 1)) / esize;
    return h < count ? h : count;
}

/* Calls BODY(dst, src, i, end, count, esize, stream) with esize and stream as constants. */
#define DM_SPECIALISE(BODY, dst, src, i, end, count, esize, stream)                       \
    (esize == 1   ? (stream ? BODY(dst, src, i, end, count, 1, true) : BODY(dst, src, i, end, count, 1, false))   \
     : esize == 2 ? (stream ? BODY(dst, src, i, end, count, 2, true) : BODY(dst, src, i, end, count, 2, false))   \
     : esize == 4 ? (stream ? BODY(dst, src, i, end, count, 4, true) : BODY(dst, src, i, end, count, 4, false))   \
                  : (stream ? BODY(dst, src, i, end, count, 8, true) : BODY(dst, src, i, end, count, 8, false)))

/* The aligned vectors of a run, from element i (dst + i * esize on a DM_W boundary):
 * with `stream`, those on 64-byte lines the run writes whole and that no unaligned head
 * or tail store of it touches go out as streaming stores, the rest as plain ones. A line
 * must never take both: a plain store to a line that a write-combining buffer holds
 * flushes it half written and reads it back (REVERSE along rows of 4090-4096 bytes, whose
 * tails overlap the last streamed vector, took half as long again as whole rows). */
#define DM_RUN_BODY(BODY, dst, src, i, count, esize, stream)                               \
    do {                                                                                  \
        if (stream) {                                                                     \
            uint64_t lo_ = count, hi_ = count;                                            \
            dm_stream_span(dst, count, esize, &lo_, &hi_);                                \
            if (lo_ < i) lo_ = i;                                                         \
            if (hi_ < lo_) hi_ = lo_;                                                     \
            i = DM_SPECIALISE(BODY, dst, src, i, lo_, count, esize, false);               \
            i = DM_SPECIALISE(BODY, dst, src, i, hi_, count, esize, true);                \
        }                                                                                 \
        i = DM_SPECIALISE(BODY, dst, src, i, count, count, esize, false);                 \
    } while (0)

/* Elements [*lo, *hi) of a run of count elements at dst on whole 64-byte lines, less a
 * line at either end that an unaligned head or tail vector reaches into. */
DM_INLINE void dm_stream_span(const uint8_t *dst, uint64_t count, uint32_t esize, uint64_t *lo, uint64_t *hi)
{
    const uintptr_t a = (uintptr_t)dst, end = a + count * esize;
    uintptr_t l = (a + 63) & ~(uintptr_t)63, h = end & ~(uintptr_t)63;
    if ((a & (DM_W - 1)) && l - a < DM_W) l += 64;
    if ((end & (DM_W - 1)) && end - h < DM_W) h -= 64;
    if (h <= l || h < a) return; /* no whole line to stream: *lo, *hi stay at count */
    *lo = (l - a) / esize;
    *hi = (h - a) / esize;
}

/* ---- dst[i] = src[-i] ----------------------------------------------------------------- */

/* Vectors from element i to end; top is one element past the first read. */
DM_INLINE uint64_t dm_reversed_body(uint8_t *dst, const uint8_t *top, uint64_t i, uint64_t end, uint64_t count,
                                    const uint32_t esize, const bool stream)
{
    const uint64_t k = DM_W / esize;
    (void)count;
    for (; i + 2 * k <= end; i += 2 * k) {
        const dm_vb a = dm_load(top - (i + k) * esize), b = dm_load(top - (i + 2 * k) * esize);
        dm_store_to(dst + i * esize, dm_rev(a, esize), stream);
        dm_store_to(dst + (i + k) * esize, dm_rev(b, esize), stream);
    }
    for (; i + k <= end; i += k) dm_store_to(dst + i * esize, dm_rev(dm_load(top - (i + k) * esize), esize), stream);
    return i;
}

/* Each vector of output is one load ending at the mirrored position, reversed in a
 * register. */
static void DM_SIMD(reversed)(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, bool stream)
{
    const uint64_t k = DM_W / esize;
    if (count < k) {
#ifdef DM_SHORT
        DM_SHORT.reversed(dst, src, count, esize, stream);
#else
        dm_copy_strided(dst, 1, src, -1, count, esize);
#endif
        return;
    }
    const uint8_t *top = src + esize;
    uint64_t i = dm_head(dst, count, esize);
    if (i) dm_store(dst, dm_rev(dm_load(top - k * esize), esize));
    DM_RUN_BODY(dm_reversed_body, dst, top, i, count, esize, stream);
    if (i < count) dm_store(dst + (count - k) * esize, dm_rev(dm_load(top - count * esize), esize));
}

/* Short rows of at least one vector: reversed's body from each row's start, unaligned,
 * the last vector overlapping the one before (rewriting elements with the same values),
 * with no alignment head and nothing decided per row. */
DM_INLINE void dm_reversed_rows_as(uint8_t *dst, int64_t drow, const uint8_t *src, int64_t srow, uint64_t rows,
                                   uint64_t count, const uint32_t esize)
{
    const uint64_t k = DM_W / esize;
    for (uint64_t r = 0; r < rows; r++, dst += drow, src += srow) {
        const uint8_t *top = src + esize;
        const uint64_t i = dm_reversed_body(dst, top, 0, count, count, esize, false);
        if (i < count) dm_store(dst + (count - k) * esize, dm_rev(dm_load(top - count * esize), esize));
    }
}

static void DM_SIMD(reversed_rows)(uint8_t *dst, int64_t drow, const uint8_t *src, int64_t srow, uint64_t rows,
                                   uint64_t count, uint32_t esize, bool stream)
{
    const uint64_t k = DM_W / esize;
#ifdef DM_SHORT
    if (count < k) {
        DM_SHORT.reversed_rows(dst, drow, src, srow, rows, count, esize, stream);
        return;
    }
#endif
    if (stream || count < k || count * esize > DM_REVERSED_ROW_BYTES) {
        for (uint64_t r = 0; r < rows; r++, dst += drow, src += srow) DM_SIMD(reversed)(dst, src, count, esize, stream);
        return;
    }
    switch (esize) {
    case 1: dm_reversed_rows_as(dst, drow, src, srow, rows, count, 1); break;
    case 2: dm_reversed_rows_as(dst, drow, src, srow, rows, count, 2); break;
    case 4: dm_reversed_rows_as(dst, drow, src, srow, rows, count, 4); break;
    default: dm_reversed_rows_as(dst, drow, src, srow, rows, count, 8); break;
    }
}

/* ---- dst[i] = src[2 i] ---------------------------------------------------------------- */

/* The second load of a vector reads DM_W bytes from element 2 (i + k) - k, inside the run
 * only while i + k < count; the rest goes to the tail. */
DM_INLINE uint64_t dm_even_body(uint8_t *dst, const uint8_t *src, uint64_t i, uint64_t end, uint64_t count,
                                const uint32_t esize, const bool stream)
{
    const uint64_t k = DM_W / esize;
    for (; i + k <= end && i + k < count; i += k) {
        const uint8_t *s = src + 2 * i * esize;
        dm_store_to(dst + i * esize, dm_even(dm_load(s), dm_load(s + DM_W), esize), stream);
    }
    return i;
}

/* Two loads give one vector of output. The tail's loads start one element early, so as
 * to end at the run's last element, and keep the odd lanes. */
static void DM_SIMD(even)(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, bool stream)
{
    const uint64_t k = DM_W / esize;
    if (count <= k) {
#ifdef DM_SHORT
        DM_SHORT.even(dst, src, count, esize, stream);
#else
        dm_copy_strided(dst, 1, src, 2, count, esize);
#endif
        return;
    }
    uint64_t i = dm_head(dst, count, esize);
    if (i) dm_store(dst, dm_even(dm_load(src), dm_load(src + DM_W), esize));
    DM_RUN_BODY(dm_even_body, dst, src, i, count, esize, stream);
    if (i < count) {
        const uint8_t *s = src + (2 * (count - k) - 1) * esize;
        dm_store(dst + (count - k) * esize, dm_odd(dm_load(s), dm_load(s + DM_W), esize));
    }
}

/* ---- dst[i] = src[-2 i] --------------------------------------------------------------- */

/* The odd elements of the two vectors ending at the block's first source element,
 * reversed. The loads start one element below the block's last source element, inside
 * the run while i + k < count, as in dm_even_body. */
DM_INLINE uint64_t dm_even_down_body(uint8_t *dst, const uint8_t *top, uint64_t i, uint64_t end, uint64_t count,
                                     const uint32_t esize, const bool stream)
{
    const uint64_t k = DM_W / esize;
    for (; i + k <= end && i + k < count; i += k) {
        const uint8_t *s = top - 2 * (i + k) * esize; /* top: one element past src */
        dm_store_to(dst + i * esize, dm_rev(dm_odd(dm_load(s), dm_load(s + DM_W), esize), esize), stream);
    }
    return i;
}

/* The real or imaginary parts of complex pairs in reverse, every other element of a
 * flipped row ([2048, 1024, 2] -> [2048, 1024, 1] FLOAT32 with the middle axis reversed
 * ran at 0.3-0.55x numpy element by element). The head up to dst's boundary and the tail
 * go through the 16-byte table (32-byte instances) or element by element. */
static void DM_SIMD(even_down)(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, bool stream)
{
    uint64_t i = dm_head(dst, count, esize);
#ifdef DM_SHORT
#define DM_EDGE(d, s, n) DM_SHORT.even_down(d, s, n, esize, false)
#else
#define DM_EDGE(d, s, n) dm_copy_strided(d, 1, s, -2, n, esize)
#endif
    DM_EDGE(dst, src, i);
    const uint8_t *top = src + esize;
    DM_RUN_BODY(dm_even_down_body, dst, top, i, count, esize, stream);
    DM_EDGE(dst + i * esize, src - (int64_t)(2 * i * esize), count - i);
#undef DM_EDGE
}

/* ---- dst[i] = src[3 i dir] ------------------------------------------------------------- */

#if DM_W == 16
/* 2- and 4-byte elements: three loads give one vector of output, reversed going down. A
 * vector's loads reach two elements past its last source element (below it going down),
 * inside the run while i + k < count, as in dm_even_body; the rest goes element by
 * element. */
DM_INLINE uint64_t dm_third_body(uint8_t *dst, const uint8_t *src, uint64_t i, uint64_t end, uint64_t count,
                                 const uint32_t esize, const int dir, const bool stream)
{
    const uint64_t k = 16 / esize;
    for (; i + k <= end && i + k < count; i += k) {
        /* Going down, the block's lowest source element is 3 (i + k - 1) below src and the
         * loads start two elements under it, so that element lands in lane 2. */
        const uint8_t *s = dir > 0 ? src + 3 * i * esize : src - (3 * (i + k - 1) + 2) * esize;
        const dm_vb v = (dm_vb)dm_third16((dm_v4u32)dm_load(s), (dm_v4u32)dm_load(s + 16), (dm_v4u32)dm_load(s + 32),
                                          esize, dir > 0 ? 0 : 2);
        dm_store_to(dst + i * esize, dir > 0 ? v : dm_rev(v, esize), stream);
    }
    return i;
}
#define DM_THIRD_UP(dst, src, i, end, count, esize, stream) dm_third_body(dst, src, i, end, count, esize, 1, stream)
#define DM_THIRD_DOWN(dst, src, i, end, count, esize, stream) dm_third_body(dst, src, i, end, count, esize, -1, stream)

/* Byte elements stay on the element loop (dm_third16). */
static void DM_SIMD(third)(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, int dir, bool stream)
{
    const uint64_t head = dm_head(dst, count, esize);
    const int64_t step = 3 * dir;
    dm_copy_strided(dst, 1, src, step, head, esize);
    uint64_t i = head;
    if (esize == 2 || esize == 4) {
        if (dir > 0) DM_RUN_BODY(DM_THIRD_UP, dst, src, i, count, esize, stream);
        else DM_RUN_BODY(DM_THIRD_DOWN, dst, src, i, count, esize, stream);
    }
    dm_copy_strided(dst + i * esize, 1, src + (int64_t)i * step * (int64_t)esize, step, count - i, esize);
}
#undef DM_THIRD_UP
#undef DM_THIRD_DOWN
#else
/* Rows read every third element are bound by reading every line of their source: the
 * 16-byte loop serves. */
static void DM_SIMD(third)(uint8_t *dst, const uint8_t *src, uint64_t count, uint32_t esize, int dir, bool stream)
{
    DM_SHORT.third(dst, src, count, esize, dir, stream);
}
#endif

/* ---- memcpy with streaming stores -------------------------------------------------------- */

/* The whole 64-byte lines of dst stream; the partial ones at either end are plain
 * copies (see DM_RUN_BODY). */
static void DM_SIMD(stream_copy)(uint8_t *dst, const uint8_t *src, uint64_t bytes)
{
    const uint64_t head = (64 - ((uintptr_t)dst & 63)) & 63;
    if (head + 64 > bytes) {
        memcpy(dst, src, (size_t)bytes);
        return;
    }
    memcpy(dst, src, (size_t)head);
    uint64_t i = head;
    for (; i + 4 * DM_W <= bytes; i += 4 * DM_W) {
        const dm_vb a = dm_load(src + i), b = dm_load(src + i + DM_W), c = dm_load(src + i + 2 * DM_W),
                    d = dm_load(src + i + 3 * DM_W);
        DM_NT_STORE(dst + i, a);
        DM_NT_STORE(dst + i + DM_W, b);
        DM_NT_STORE(dst + i + 2 * DM_W, c);
        DM_NT_STORE(dst + i + 3 * DM_W, d);
    }
    for (; i + 64 <= bytes; i += 64)
        for (uint32_t h = 0; h < 64; h += DM_W) DM_NT_STORE(dst + i + h, dm_load(src + i + h));
    memcpy(dst + i, src + i, (size_t)(bytes - i));
}

/* ---- REVERSE with a length per column --------------------------------------------------- */

typedef int8_t dm_vsb __attribute__((vector_size(DM_W)));
typedef int16_t dm_vsh __attribute__((vector_size(DM_W)));
typedef int32_t dm_vsw __attribute__((vector_size(DM_W)));
typedef int64_t dm_vsd __attribute__((vector_size(DM_W)));

/* Lanes (of esize bytes) of the small non-negative integers a, compared with b: all ones
 * where a > b (dm_lanes_above) or where a has one of b's bits (dm_lanes_have); signed
 * compares, which every instruction set has, are exact for these values. */
DM_INLINE dm_vb dm_lanes_above(dm_vb a, int64_t b, const uint32_t esize)
{
    switch (esize) {
    case 1: return (dm_vb)((dm_vsb)a > (int8_t)b);
    case 2: return (dm_vb)((dm_vsh)a > (int16_t)b);
    case 4: return (dm_vb)((dm_vsw)a > (int32_t)b);
    default: return (dm_vb)((dm_vsd)a > (int64_t)b);
    }
}

DM_INLINE dm_vb dm_lanes_have(dm_vb a, uint32_t bits, const uint32_t esize)
{
    switch (esize) {
    case 1: return (dm_vb)(((dm_vsb)a & (int8_t)bits) != 0);
    case 2: return (dm_vb)(((dm_vsh)a & (int16_t)bits) != 0);
    case 4: return (dm_vb)(((dm_vsw)a & (int32_t)bits) != 0);
    default: return (dm_vb)(((dm_vsd)a & (int64_t)bits) != 0);
    }
}

/* n - L in each lane. */
DM_INLINE dm_vb dm_lanes_from(uint32_t n, dm_vb L, const uint32_t esize)
{
    switch (esize) {
    case 1: return (dm_vb)((uint8_t)n - L);
    case 2: return (dm_vb)((uint16_t)n - (dm_vh)L);
    case 4: return (dm_vb)((uint32_t)n - (dm_vw)L);
    default: return (dm_vb)((uint64_t)n - (dm_vd)L);
    }
}

/* One vector of columns of the n rows, in[t] its row t (a vector each, `step` apart), L its
 * lanes' lengths: row t of a lane takes row L - 1 - t below L, else stays. With the rows
 * reversed (x[t] = in[n - 1 - t]), a lane's row t < L is x[t + n - L]: the rows shifted
 * down by d = n - L, a different shift in every lane, done as a barrel shifter (a select
 * per row for each bit of d, the rows read before they are overwritten), then a select of
 * the rows below L. About 5 selects per row, where a select per (row, length) pair took
 * 8.5 (n(n+1)/2 of them) and ran at a sixth of a row copy's speed. */
#define DM_RAGGED_VECTOR(NAME, UNROLL)                                                    \
    DM_INLINE void NAME(dm_vb *out, const dm_vb *in, uint32_t step, dm_vb L, const uint32_t n, const uint32_t esize) \
    {                                                                                     \
        dm_vb x[DM_RAGGED_ROWS] = {0}; /* all set below; GCC cannot tell for a variable n */ \
        UNROLL                                                                            \
        for (uint32_t t = 0; t < n; t++) x[t] = in[(n - 1 - t) * step];                   \
        const dm_vb d = dm_lanes_from(n, L, esize);                                       \
        UNROLL                                                                            \
        for (uint32_t s = 1; s < n; s <<= 1) {                                            \
            const dm_vb m = dm_lanes_have(d, s, esize);                                   \
            UNROLL                                                                        \
            for (uint32_t t = 0; t + s < n; t++) x[t] = DM_SELECT(m, x[t + s], x[t]);     \
        }                                                                                 \
        UNROLL                                                                            \
        for (uint32_t t = 0; t < n; t++) out[t * step] = DM_SELECT(dm_lanes_above(L, t, esize), x[t], in[t * step]); \
    }
/* Unrolled (for the constant 16 rows: every vector then stays in a register, where the
 * loops kept each row in memory between selects, 24 against 33 us for [16, 8K] UINT8 in
 * the cache) and as loops for other row counts. */
DM_RAGGED_VECTOR(dm_ragged_vector_unrolled, DM_UNROLL)
DM_RAGGED_VECTOR(dm_ragged_vector, )
#undef DM_RAGGED_VECTOR

/* nv vectors of columns (nv * DM_W bytes) of the n rows. The source lines are read once,
 * into `in`: rows a multiple of 4 KiB apart (any [16, C] with C a multiple of 4096 bytes)
 * fall in one set of the L1 and L2 caches, whose 8 ways cannot hold 16 rows' lines, and
 * reading the rows themselves twice re-read each line from L3. An output row's nv
 * vectors are stored together, so that its line is written whole before the next row's. */
DM_INLINE void dm_ragged_block(uint8_t *dst, int64_t drow, const uint8_t *src, int64_t srow, const uint8_t *len,
                               const uint32_t n, const uint32_t nv, const uint32_t esize, const bool stream)
{
    dm_vb in[DM_RAGGED_ROWS][64 / DM_W], out[DM_RAGGED_ROWS][64 / DM_W];
    for (uint32_t t = 0; t < n; t++)
        for (uint32_t h = 0; h < nv; h++) in[t][h] = dm_load(src + (int64_t)t * srow + h * DM_W);
    for (uint32_t h = 0; h < nv; h++) {
        if (n == DM_RAGGED_ROWS)
            dm_ragged_vector_unrolled(&out[0][h], &in[0][h], 64 / DM_W, dm_load(len + h * DM_W), DM_RAGGED_ROWS, esize);
        else dm_ragged_vector(&out[0][h], &in[0][h], 64 / DM_W, dm_load(len + h * DM_W), n, esize);
    }
    for (uint32_t t = 0; t < n; t++)
        for (uint32_t h = 0; h < nv; h++) dm_store_to(dst + (int64_t)t * drow + h * DM_W, out[t][h], stream);
}

/* Blocks of 64 bytes of columns (whole lines where rows start on one), then single
 * vectors, then one last vector overlapping the one before it. All 16 rows, the usual
 * [T, B] batch, unroll with n a constant. Each block asks for its rows' lines
 * DM_RAGGED_AHEAD bytes on: a block's selects fill the out-of-order window, so without
 * the hint its loads waited until the previous block was done, one row stream at a time
 * ([16, 4M] UINT8, one thread, CPU time: 16.5-17.9 ms without, 13.8-15.4 with 512 bytes
 * ahead; 128 and 256 about the same, 1024 less). */
#define DM_RAGGED_AHEAD 512
DM_INLINE void dm_ragged_rows(uint8_t *dst, int64_t drow, const uint8_t *src, int64_t srow, const uint8_t *len,
                              uint64_t w, const uint32_t n, const uint32_t esize, const bool stream)
{
    const uint64_t k = DM_W / esize, line = 64 / esize;
    uint64_t c = 0;
    for (; c + line <= w; c += line) {
        for (uint32_t t = 0; t < n; t++) DM_PREFETCH(src + (int64_t)t * srow + c * esize + DM_RAGGED_AHEAD);
        dm_ragged_block(dst + c * esize, drow, src + c * esize, srow, len + c * esize, n, 64 / DM_W, esize, stream);
    }
    for (; c + k <= w; c += k)
        dm_ragged_block(dst + c * esize, drow, src + c * esize, srow, len + c * esize, n, 1, esize, stream);
    if (c < w) {
        c = w - k;
        dm_ragged_block(dst + c * esize, drow, src + c * esize, srow, len + c * esize, n, 1, esize, false);
    }
}

DM_INLINE void dm_ragged_as(uint8_t *dst, int64_t drow, const uint8_t *src, int64_t srow, const uint8_t *len, uint64_t w,
                            uint32_t n, const uint32_t esize, const bool stream)
{
    if (n == DM_RAGGED_ROWS) dm_ragged_rows(dst, drow, src, srow, len, w, DM_RAGGED_ROWS, esize, stream);
    else dm_ragged_rows(dst, drow, src, srow, len, w, n, esize, stream);
}

/* W / 4 lengths (small, so that narrowing keeps them) stored as esize-byte lanes: the
 * even halves (then bytes) of each lane, or each lane beside a zero. The compilers'
 * __builtin_convertvector went lane by lane through memory (31 instructions a vector). */
DM_INLINE void dm_lanes_put(uint8_t *len, dm_vw v, const uint32_t esize)
{
    const dm_vb h = dm_even((dm_vb)v, (dm_vb)v, 2);
    switch (esize) {
    case 1: {
        const dm_vb b = dm_even(h, h, 1);
        memcpy(len, &b, DM_W / 4);
        break;
    }
    case 2: memcpy(len, &h, DM_W / 2); break;
    case 4: memcpy(len, &v, DM_W); break;
    default: {
        const dm_vw z = {0};
#if DM_W == 32
        const dm_vw lo = __builtin_shufflevector(v, z, 0, 8, 1, 8, 2, 8, 3, 8), hi = __builtin_shufflevector(v, z, 4, 8, 5, 8, 6, 8, 7, 8);
#else
        const dm_vw lo = __builtin_shufflevector(v, z, 0, 4, 1, 4), hi = __builtin_shufflevector(v, z, 2, 4, 3, 4);
#endif
        memcpy(len, &lo, DM_W);
        memcpy(len + DM_W, &hi, DM_W);
        break;
    }
    }
}

/* Lanes of the esize-byte integers at p that differ from the lane before each, as a
 * vector of counts (0 or 1 each). */
DM_INLINE dm_vb dm_lanes_changed(const uint8_t *p, const uint32_t esize)
{
    const dm_vb a = dm_load(p), b = dm_load(p - esize);
    switch (esize) {
    case 1: return (dm_vb)(a != b) & 1;
    case 2: return (dm_vb)(((dm_vh)a != (dm_vh)b) & 1);
    case 4: return (dm_vb)(((dm_vw)a != (dm_vw)b) & 1);
    default: return (dm_vb)(((dm_vd)a != (dm_vd)b) & 1);
    }
}

/* A vector of W / 4 lengths at a time; the changes are counted on the lanes afterwards,
 * a vector of lanes at a time (their counts summed per lane, in blocks short enough that
 * a byte lane cannot overflow). The scalar loop per length took as long as the selects. */
DM_INLINE uint64_t dm_lanes_as(uint8_t *len, const uint8_t *lp, uint64_t count, uint32_t n, const bool is_signed,
                               const uint32_t esize)
{
    const uint64_t k = DM_W / 4;
    uint64_t i = 0;
    for (; i + k <= count; i += k) {
        dm_vw v;
        memcpy(&v, lp + 4 * i, sizeof v);
        if (is_signed) v &= (dm_vw)((dm_vsw)v >= 0);
        const dm_vw over = (dm_vw)(v > n);
        dm_lanes_put(len + i * esize, (v & ~over) | (((dm_vw){0} + n) & over), esize);
    }
    uint64_t changes = dm_lanes_scalar(len + i * esize, lp + 4 * i, count - i, n, is_signed, esize,
                                       i ? dm_get_lane(len + (i - 1) * esize, esize) : UINT64_MAX);
    /* Lanes 1 .. i - 1 against their predecessors (lane 0 counts as a change): each byte of
     * sum gains at most 1 a vector, 255 vectors at most before it is added up. */
    if (i) changes++;
    const uint64_t bytes = i * esize;
    uint64_t b = esize;
    while (b + DM_W <= bytes) {
        dm_vb sum = {0};
        for (uint32_t r = 0; r < 255 && b + DM_W <= bytes; r++, b += DM_W) sum += dm_lanes_changed(len + b, esize);
        for (uint32_t l = 0; l < DM_W; l++) changes += sum[l];
    }
    for (; b < bytes; b += esize) changes += dm_get_lane(len + b, esize) != dm_get_lane(len + b - esize, esize);
    return changes;
}

static uint64_t DM_SIMD(lanes)(uint8_t *len, const uint8_t *lp, uint64_t count, uint32_t n, bool is_signed,
                               uint32_t esize)
{
#define DM_LANES_FOR(E) (is_signed ? dm_lanes_as(len, lp, count, n, true, E) : dm_lanes_as(len, lp, count, n, false, E))
    switch (esize) {
    case 1: return DM_LANES_FOR(1);
    case 2: return DM_LANES_FOR(2);
    case 4: return DM_LANES_FOR(4);
    default: return DM_LANES_FOR(8);
    }
#undef DM_LANES_FOR
}

static bool DM_SIMD(ragged)(uint8_t *dst, int64_t drow, const uint8_t *src, int64_t srow, const uint8_t *len, uint64_t w,
                            uint32_t n, uint32_t esize, bool stream)
{
    if (w < DM_W / esize) {
#ifdef DM_SHORT
        return DM_SHORT.ragged(dst, drow, src, srow, len, w, n, esize, stream);
#else
        return false;
#endif
    }
    /* Streaming stores need every row's vectors aligned (the overlapping last one never
     * streams). */
    const bool nt = stream && ((uintptr_t)dst & (DM_W - 1)) == 0 && (drow & (DM_W - 1)) == 0;
#define DM_RAGGED(E) (nt ? dm_ragged_as(dst, drow, src, srow, len, w, n, E, true) : dm_ragged_as(dst, drow, src, srow, len, w, n, E, false))
    switch (esize) {
    case 1: DM_RAGGED(1); break;
    case 2: DM_RAGGED(2); break;
    case 4: DM_RAGGED(4); break;
    default: DM_RAGGED(8); break;
    }
#undef DM_RAGGED
    return true;
}

const dm_simd DM_SIMD_TABLE = {
    .reversed = DM_SIMD(reversed),
    .reversed_rows = DM_SIMD(reversed_rows),
    .even = DM_SIMD(even),
    .even_down = DM_SIMD(even_down),
    .third = DM_SIMD(third),
    .stream_copy = DM_SIMD(stream_copy),
    .ragged = DM_SIMD(ragged),
    .lanes = DM_SIMD(lanes),
};
