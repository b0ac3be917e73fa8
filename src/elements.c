/* Element movement and index decoding shared by the operators' CPU semantics. Elements
 * are moved as raw bytes: no operator here does arithmetic on data.
 *
 * The long runs' vector loops are the CPU engine's tables (cpu/simd.h), one per
 * instruction set, which the operator's mode picks; the short rows' loops below use the
 * baseline's 16-byte vectors (cpu/vec16.h) unless the mode is scalar. */
#include "elements.h"

#include <stdatomic.h>
#include <string.h>
#include "cpu/copy_bytes.h"
#include "cpu/vec16.h"
#include "platform/platform.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define DM_NT_STORES 1
#else
#define DM_NT_STORES 0
#endif

/* One T from s to d: compilers turn the memcpy pair into one load and one store of the
 * right width. */
#define DM_MOVE(T, d, s)                                                                  \
    do {                                                                                  \
        T v_;                                                                             \
        memcpy(&v_, s, sizeof v_);                                                        \
        memcpy(d, &v_, sizeof v_);                                                        \
    } while (0)

void dm_stream_copy(uint8_t *dst, const uint8_t *src, uint64_t bytes, dm_isa isa)
{
    dm_simd_of(isa)->stream_copy(dst, src, bytes);
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
                 uint32_t esize, dm_mode mode)
{
    if (count == 0) return;
    const dm_simd *v = mode.simd;
    if ((dst_stride == 1 && src_stride == 1) || count == 1) {
        if (mode.stream) v->stream_copy(dst, src, count * esize);
        else dm_copy_bytes(dst, src, count * esize);
        return;
    }
    if (dst_stride == 1) {
        switch (src_stride) {
        case -1: v->reversed(dst, src, count, esize, mode.stream); return;
        case 2: v->even(dst, src, count, esize, mode.stream); return;
        case -2: v->even_down(dst, src, count, esize, mode.stream); return;
        case 3:
        case -3:
            if (esize == 2 || esize == 4) {
                v->third(dst, src, count, esize, src_stride > 0 ? 1 : -1, mode.stream);
                return;
            }
            break;
        default: break;
        }
    }
    if (src_stride == 0) { /* one source element repeated (a broadcast input): a fill */
        dm_fill_run(dst, dst_stride, src, count, esize, mode.isa);
        return;
    }
    dm_copy_strided(dst, dst_stride, src, src_stride, count, esize);
}

void dm_copy_run_rows(uint8_t *dst, int64_t dst_row, int64_t dst_stride, const uint8_t *src, int64_t src_row,
                      int64_t src_stride, uint64_t rows, uint64_t count, uint32_t esize, dm_mode mode)
{
    if (dst_stride == 1 && src_stride == -1 && count >= 2) {
        mode.simd->reversed_rows(dst, dst_row, src, src_row, rows, count, esize, mode.stream);
        return;
    }
    for (uint64_t r = 0; r < rows; r++, dst += dst_row, src += src_row)
        dm_copy_run(dst, dst_stride, src, src_stride, count, esize, mode);
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
            dm_copy_bytes(dst, src, n); /* rows of REVERSE's batches of long rows */
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
 * number of blocks), or as words when L is under a block; the rest copied. Without vec
 * (the scalar mode), element by element. */
DM_INLINE void dm_reverse_prefix_row(uint8_t *dst, const uint8_t *src, uint64_t L, uint64_t m, const uint32_t esize,
                                     const bool vec)
{
    for (uint64_t i = L; i < m; i++) memcpy(dst + i * esize, src + i * esize, esize); /* one move each */
    if (L == 0) return;
#if DM_VECTORS
    const uint64_t k = 16 / esize;
    if (vec && L >= k) {
        const uint8_t *top = src + L * esize;
        uint64_t i = 0;
        for (; i + k <= L; i += k) dm_store16(dst + i * esize, dm_reverse16(dm_load16(top - (i + k) * esize), esize));
        if (i < L) dm_store16(dst + (L - k) * esize, dm_reverse16(dm_load16(src), esize));
        return;
    }
    if (vec) {
        dm_reverse_small(dst, src, L * esize, esize);
        return;
    }
#else
    (void)vec;
#endif
    dm_copy_strided(dst, 1, src + (L - 1) * esize, -1, L, esize);
}

#define DM_REVERSE_PREFIX_LOOP_AS(E, PREFETCH, VEC)                                       \
    for (uint64_t r = 0; r < rows; r++, dst += dst_row, src += src_row, lp += len_row) {  \
        if (PREFETCH) dm_prefetch_row(src, pf);                                           \
        dm_reverse_prefix_row(dst, src, dm_read_length(len_type, lp, n), m, E, VEC);      \
    }
#define DM_REVERSE_PREFIX_LOOP(E)                                                         \
    if (isa == DM_ISA_SCALAR) {                                                           \
        DM_REVERSE_PREFIX_LOOP_AS(E, false, false)                                        \
    } else if (pf.ahead) {                                                                \
        DM_REVERSE_PREFIX_LOOP_AS(E, true, true)                                          \
    } else {                                                                              \
        DM_REVERSE_PREFIX_LOOP_AS(E, false, true)                                         \
    }

void dm_reverse_rows_prefix(uint8_t *dst, int64_t dst_row, const uint8_t *src, int64_t src_row, uint64_t rows,
                            uint64_t m, uint32_t esize, const uint8_t *lp, int64_t len_row,
                            DML_TENSOR_DATA_TYPE len_type, uint64_t n, dm_isa isa)
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

void dm_fill_run(uint8_t *dst, int64_t dst_stride, const uint8_t *value, uint64_t count, uint32_t esize, dm_isa isa)
{
    if (count == 0) return;
    bool bytes_equal = true;
    for (uint32_t b = 1; b < esize; b++) bytes_equal = bytes_equal && value[b] == value[0];
    if (dst_stride == 1 && bytes_equal) {
        memset(dst, value[0], (size_t)(count * esize));
        return;
    }
    uint64_t i = 0;
#if !DM_VECTORS
    (void)isa;
#endif
#if DM_VECTORS
    if (dst_stride == 1 && isa != DM_ISA_SCALAR) {
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
