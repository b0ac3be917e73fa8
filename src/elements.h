/* Element movement and index decoding: the loops every operator's CPU semantics is
 * built from (elements.c). Elements are moved as raw bytes; no operator here does
 * arithmetic on data, so every type keeps its exact bits. Strides are in elements.
 *
 * Counts and offsets are 64-bit, yet every run these loops are given lies inside a bound
 * buffer of host memory, and no such buffer exceeds SIZE_MAX (the CPU backend refuses
 * larger ones, and operators whose TotalTensorSizeInBytes is larger: cpu_backend.c,
 * dm_op_check_host_addressable): so where size_t is 32 bits the (size_t) casts of byte
 * counts and the 64-bit offsets added to pointers here are exact, never truncated. */
#ifndef DM_ELEMENTS_H
#define DM_ELEMENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu/simd.h"
#include "dmlops.h"
/* DM_INLINE: a loop body inlined into each caller, so that the constants it is given (an
 * element size, whether to prefetch) leave no test inside the loop. */
#include "platform/compiler.h"

/* By default, outputs of at least dm_stream_min_bytes() are written with streaming (non-temporal)
 * stores where the CPU has them (SSE2): stores that do not first read the line they write
 * move a third less memory, but they bypass the cache. So only outputs that would not stay
 * in it anyway stream: three quarters of the last-level cache (the rule glibc's memcpy
 * uses), and never fewer than DM_STREAM_MIN_BYTES (also the figure where the cache size
 * is unknown). Smaller outputs stay in
 * the cache for whatever reads them next. */
#define DM_STREAM_MIN_BYTES (8ull << 20)
uint64_t dm_stream_min_bytes(void);

/* How a CPU loop moves elements, decided per operator when it is created: the instruction
 * set of its vector loops (cpu/simd.h; DM_ISA_SCALAR: element by element), and whether
 * contiguous output runs are written with streaming stores (the caller then ends with
 * dm_stream_fence). */
typedef struct dm_mode {
    const dm_simd *simd; /* dm_simd_of(isa), looked up once per loop rather than per run */
    dm_isa isa;
    bool stream;
} dm_mode;

/* Copies count elements of esize (1, 2, 4 or 8) bytes from a strided source run to a
 * strided destination run: memcpy when both are contiguous, the mode's vector loops for a
 * contiguous destination whose source runs backwards (vectors reversed in registers) or
 * with a stride of 2, -2, 3 or -3 (the even or every third lane of consecutive vectors),
 * a constant-stride loop otherwise. */
void dm_copy_run(uint8_t *dst, int64_t dst_stride, const uint8_t *src, int64_t src_stride, uint64_t count,
                 uint32_t esize, dm_mode mode);

/* dm_copy_run of `rows` runs alike, run i at dst + i * dst_row and src + i * src_row
 * (bytes): one call of the mode's table for a batch of reversed runs (dm_simd's
 * reversed_rows), dm_copy_run per run otherwise. */
void dm_copy_run_rows(uint8_t *dst, int64_t dst_row, int64_t dst_stride, const uint8_t *src, int64_t src_row,
                      int64_t src_stride, uint64_t rows, uint64_t count, uint32_t esize, dm_mode mode);

/* `rows` short runs of count elements each: run i starts at dst + i * dst_row and
 * src + i * src_row (bytes); elements are dst_stride and src_stride elements apart. One
 * plain loop per element size, for rows so short that choosing dm_copy_run's method
 * per row would cost more than the copy (gather.h, DM_SHORT_ROW_ELEMENTS). */
void dm_copy_rows(uint8_t *dst, int64_t dst_row, int64_t dst_stride, const uint8_t *src, int64_t src_row,
                  int64_t src_stride, uint64_t rows, uint64_t count, uint32_t esize);

/* Walks over short rows with gaps between them (every other row of an image, a few
 * columns of wide rows) stall on every row: the hardware prefetchers, which follow one
 * stream, lose track of rows of a few lines that skip lines, and each row then waits for
 * memory (SLICE1 of every other row and column of [64, 16, 128, 128] UINT8: 85 ns per
 * 64-byte row, 0.23x numpy). The row loops ask for the source lines of the row
 * DM_PREFETCH_ROWS ahead instead (6.6x faster in that case). Rows longer than
 * DM_PREFETCH_SPAN_MAX bytes, or with a gap shorter than the row or than two lines,
 * stream well without help. Rows read every few elements are helped up to
 * DM_PREFETCH_STRIDED_SPAN_MAX: every third FLOAT32 of every third 768-byte row ran
 * 2-4x faster prefetched, where contiguous 784-byte rows with as long a gap (every other
 * channel of [N, 64, 14, 14] FLOAT32) ran 3-17% slower. */
enum { DM_PREFETCH_ROWS = 8, DM_PREFETCH_SPAN_MAX = 512, DM_PREFETCH_STRIDED_SPAN_MAX = 1024 };

/* A walk's source rows, for dm_prefetch_row: `ahead` bytes from one row's lowest source
 * byte to that of the row DM_PREFETCH_ROWS further on (0: no prefetch), `span` bytes per
 * row. Address-sized, as they are added to an address: dm_prefetch_plan plans none whose
 * distance does not fit (only possible where pointers are 32 bits). */
typedef struct dm_prefetch {
    intptr_t ahead;
    uintptr_t span;
} dm_prefetch;

/* The prefetch of `rows` rows (`rows` along the walked dimension, row_step bytes apart)
 * of count elements of esize bytes, elem_step elements apart: none unless the rows are
 * short, have a gap at least as long as a row and two lines, and are enough to be worth
 * it. */
dm_prefetch dm_prefetch_plan(int64_t row_step, int64_t elem_step, uint64_t count, uint32_t esize, uint64_t rows);

/* The lowest source byte of a row whose first element is at `first` (elem_step elements
 * apart, count of them, esize bytes each). */
static inline const uint8_t *dm_row_low(const uint8_t *first, int64_t elem_step, uint64_t count, uint32_t esize)
{
    return elem_step < 0 ? first + elem_step * (int64_t)(count - 1) * (int64_t)esize : first;
}

/* Asks for the lines of the row `p.ahead` bytes past the row whose lowest byte is `low`.
 * The address is formed as an integer: it may lie past the buffer (the last rows of a
 * walk), where a prefetch does nothing. */
static inline void dm_prefetch_row(const uint8_t *low, dm_prefetch p)
{
    if (!p.ahead) return;
    const uintptr_t a = (uintptr_t)low + (uintptr_t)p.ahead; /* wraps as the address would */
    for (uintptr_t o = 0; o < p.span; o += 64) DM_PREFETCH((const void *)(a + o));
    DM_PREFETCH((const void *)(a + p.span - 1));
}

/* `rows` contiguous rows of m elements (dst_row and src_row bytes apart), each with
 * its length at lp (len_row bytes apart, of len_type, clamped to [0, n]): a row's first
 * L elements reversed, the rest copied, as REVERSE_SUBSEQUENCES along rows does. For
 * short rows: a row is one pass, with no choice made per row. */
void dm_reverse_rows_prefix(uint8_t *dst, int64_t dst_row, const uint8_t *src, int64_t src_row, uint64_t rows,
                            uint64_t m, uint32_t esize, const uint8_t *lp, int64_t len_row,
                            DML_TENSOR_DATA_TYPE len_type, uint64_t n, dm_isa isa);

/* Writes the esize-byte value at `value` to count elements of a strided run: 16-byte
 * pattern stores (or memset) when the run is contiguous. */
void dm_fill_run(uint8_t *dst, int64_t dst_stride, const uint8_t *value, uint64_t count, uint32_t esize, dm_isa isa);

/* memcpy of bytes with streaming stores (plain memcpy where the instruction set has none). */
void dm_stream_copy(uint8_t *dst, const uint8_t *src, uint64_t bytes, dm_isa isa);
/* Orders the streaming stores before anything the thread does next (sfence): called
 * before a chunk is reported done, so the other threads see its output. */
void dm_stream_fence(void);

/* A sequence length of the given type at p, clamped to [0, n]; negative counts as 0. */
uint64_t dm_read_length(DML_TENSOR_DATA_TYPE type, const uint8_t *p, uint64_t n);
/* How many of the count lengths at p (step bytes apart), starting with the first, are
 * equal once clamped to [0, n] as dm_read_length clamps them. count >= 1. */
uint64_t dm_equal_length_run(DML_TENSOR_DATA_TYPE type, const uint8_t *p, int64_t step, uint64_t count, uint64_t n);
/* Lengths clamped to [0, n] as dm_read_length clamps them, for loops inlined per type. */
static inline uint64_t dm_clamp_signed(int64_t v, uint64_t n) { return v < 0 ? 0 : (uint64_t)v > n ? n : (uint64_t)v; }
static inline uint64_t dm_clamp_unsigned(uint64_t v, uint64_t n) { return v > n ? n : v; }
/* An index of the given type at p, negative ones counted from n; -1 when outside [0, n). */
int64_t dm_read_index(DML_TENSOR_DATA_TYPE type, const uint8_t *p, uint64_t n);

#endif
