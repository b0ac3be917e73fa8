/* Element movement and index decoding: the loops every operator's CPU semantics is
 * built from (elements.c). Elements are moved as raw bytes; no operator here does
 * arithmetic on data, so every type keeps its exact bits. Strides are in elements. */
#ifndef DM_ELEMENTS_H
#define DM_ELEMENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlops.h"

/* Copies count elements of esize (1, 2, 4 or 8) bytes from a strided source run to a
 * strided destination run: memcpy when both are contiguous, 16-byte loads reversed in
 * registers when the source runs backwards, a constant-stride loop otherwise. */
void dm_copy_run(uint8_t *dst, int64_t dst_stride, const uint8_t *src, int64_t src_stride, uint64_t count,
                 uint32_t esize);

/* Writes the esize-byte value at `value` to count elements of a strided run: 16-byte
 * pattern stores (or memset) when the run is contiguous. */
void dm_fill_run(uint8_t *dst, int64_t dst_stride, const uint8_t *value, uint64_t count, uint32_t esize);

/* A sequence length of the given type at p, clamped to [0, n]; negative counts as 0. */
uint64_t dm_read_length(DML_TENSOR_DATA_TYPE type, const uint8_t *p, uint64_t n);
/* An index of the given type at p, negative ones counted from n; -1 when outside [0, n). */
int64_t dm_read_index(DML_TENSOR_DATA_TYPE type, const uint8_t *p, uint64_t n);

#endif
