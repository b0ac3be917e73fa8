/* The bytes a case must move as the memory moves them: 32-byte sectors, the unit of a
 * GPU's DRAM and L2 traffic (what Nsight Compute counts), and 64-byte lines, a CPU's. A
 * stride-2 slice of 4-byte elements reads every sector of its input, 1.5x the bytes
 * dmlops_operator_get_info counts (docs/performance.md), so the GPU figures count sectors
 * and the CPU figures lines. The access model (`dmlops bench --model`) divides the
 * sectors the kernels touch by these. Both are counted by one walk over units of either
 * size (`unit` below). */
#include "bench.h"

#define SECTOR 32u

static uint64_t whole_units(uint64_t bytes, uint32_t unit) { return (bytes + unit - 1) / unit; }

/* Units (sectors or lines) touched by reading nr rows `pitch` bytes apart, in ascending
 * addresses, each row n elements of es bytes that start at byte `first` and are `step`
 * elements apart (step >= 1), in a buffer that starts on a unit. Elements of 1 to 8 bytes
 * sit at multiples of their size, so none straddles two units; a unit is skipped only
 * when a gap between two elements covers it, which takes a gap of a unit or more, and then
 * every element has a unit of its own. Neighbouring rows may share one unit, where one
 * ends and the next begins. Geometry comes from 32-bit sizes: every product stays far
 * below 2^64. */
static uint64_t rows_units(uint64_t nr, uint64_t pitch, uint64_t first, uint64_t n, uint64_t step, uint32_t es,
                           uint32_t unit)
{
    if (!nr || !n) return 0;
    const bool gapped = (step - 1) * es >= unit;
    uint64_t total = 0, last = UINT64_MAX;
    for (uint64_t r = 0; r < nr; r++) {
        const uint64_t lo = r * pitch + first, hi = lo + ((n - 1) * step + 1) * es;
        const uint64_t s0 = lo / unit, s1 = (hi - 1) / unit;
        total += (gapped ? n : s1 - s0 + 1) - (s0 == last);
        last = s1;
    }
    return total;
}

/* The indices a window of `size` elements from `offset`, `stride` apart picks along one
 * dimension, as the lowest one, a positive step and a count: a negative stride reads the
 * same elements as a positive one started from the other end. */
static void picked(uint32_t offset, uint32_t size, int32_t stride, uint64_t *lowest, uint64_t *step, uint64_t *n)
{
    const uint64_t s = stride < 0 ? (uint64_t)-(int64_t)stride : (uint64_t)stride;
    *step = s ? s : 1;
    *n = s ? (size + s - 1) / s : size ? 1 : 0;
    *lowest = stride < 0 && *n ? offset + size - 1 - (*n - 1) * s : offset;
}

/* SLICE1's input: the rows and columns its window picks, [R, C] row-major. */
static uint64_t slice_read_units(const bench_case *c, uint32_t unit)
{
    const uint32_t es = dmlops_data_type_size(c->type);
    uint64_t r0, rstep, nr, c0, cstep, nc;
    picked(c->offsets[0], c->window[0], c->strides[0], &r0, &rstep, &nr);
    picked(c->offsets[1], c->window[1], c->strides[1], &c0, &cstep, &nc);
    const uint64_t row_bytes = (uint64_t)c->cols * es;
    return rows_units(nr, rstep * row_bytes, r0 * row_bytes + c0 * es, nc, cstep, es, unit);
}

static bench_sectors case_units(const bench_case *c, uint32_t unit)
{
    /* Every other tensor of the suite is read or written whole: REVERSE reads all of its
     * input (elements past a sequence's length are copied), ONE_HOT writes all of its
     * output; lengths, indices and ONE_HOT's two values are read whole. */
    bench_sectors s = {0, whole_units(c->bt[c->ninputs].TotalTensorSizeInBytes, unit)};
    for (uint32_t i = 0; i < c->ninputs; i++)
        s.read += c->fam->op == DML_OPERATOR_SLICE1 && i == 0 ? slice_read_units(c, unit)
                                                             : whole_units(c->bt[i].TotalTensorSizeInBytes, unit);
    return s;
}

bench_sectors bench_case_sectors(const bench_case *c) { return case_units(c, SECTOR); }

uint64_t bench_sector_bytes(bench_sectors s) { return (s.read + s.written) * SECTOR; }

uint64_t bench_case_line_bytes(const bench_case *c)
{
    const bench_sectors lines = case_units(c, BENCH_LINE);
    return (lines.read + lines.written) * BENCH_LINE;
}
