/* Tensor and stride math shared by validation, the CPU backend and the Vulkan lowering:
 * element sizes, DMLCalcBufferTensorSize, descriptor parsing, address spans and the
 * walk over coordinates. Everything is 64-bit and overflow-checked. */
#ifndef DM_TENSOR_H
#define DM_TENSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlops.h"

#define DM_MAX_RANK 8

/* A parsed DML_BUFFER_TENSOR_DESC with explicit strides. */
typedef struct dm_tensor {
    DML_TENSOR_DATA_TYPE type;
    uint32_t esize;          /* bytes per element */
    uint32_t rank;
    uint32_t sizes[DM_MAX_RANK];
    uint64_t strides[DM_MAX_RANK]; /* elements; packed row-major filled in when NULL */
    bool packed;             /* Strides was NULL */
    uint64_t count;          /* element count, < 2^32 */
    uint64_t span;           /* 1 + highest element offset, in elements */
    uint64_t min_bytes;      /* DMLCalcBufferTensorSize */
    uint64_t total_bytes;    /* TotalTensorSizeInBytes */
    uint32_t base_alignment; /* GuaranteedBaseOffsetAlignment */
    bool owned_by_dml;       /* DML_TENSOR_FLAG_OWNED_BY_DML: unsupported, refused last */
} dm_tensor;

/* Parses and checks one tensor desc against the rules of operators.md section 1 that do
 * not depend on the operator or the feature level. `op` and `role` name it in messages
 * ("SLICE1", "InputTensor"). Outputs must also map each element to its own address. */
dmlops_status dm_tensor_parse(const DML_TENSOR_DESC *desc, const char *op, const char *role,
                              bool is_output, dm_tensor *out);

/* DMLCalcBufferTensorSize in 64 bits: false when a size is 0 or the value overflows. */
bool dm_calc_min_bytes(uint32_t esize, uint32_t rank, const uint32_t *sizes,
                       const uint64_t *strides, uint64_t *bytes, uint64_t *span);

/* Whether every element of a strided box has its own address. Exact, except that
 * interleavings too large to check in bounded time and memory are UNPROVEN. The exact
 * checks of interleaved strides take host memory (at most 32 MiB, freed on return);
 * NO_MEMORY when it cannot be had. */
typedef enum dm_layout { DM_LAYOUT_ONE_TO_ONE, DM_LAYOUT_OVERLAPPING, DM_LAYOUT_UNPROVEN, DM_LAYOUT_NO_MEMORY } dm_layout;
dm_layout dm_layout_check(uint32_t rank, const uint32_t *sizes, const uint64_t *strides);

/* Distinct elements a tensor can address: broadcast (stride 0) dimensions add none. */
uint64_t dm_tensor_footprint(const dm_tensor *t);

/* Walks every coordinate of a box of up to DM_MAX_RANK dimensions while keeping up to
 * DM_WALK_STREAMS element offsets (one per tensor) in step. Offsets are signed so that
 * negative slice strides work. The innermost dimension is left to the caller. */
#define DM_WALK_STREAMS 4
typedef struct dm_walk {
    uint32_t rank;                 /* outer dimensions walked */
    uint32_t nstreams;
    uint32_t sizes[DM_MAX_RANK];
    uint32_t coord[DM_MAX_RANK];
    int64_t strides[DM_WALK_STREAMS][DM_MAX_RANK];
    int64_t offset[DM_WALK_STREAMS];
} dm_walk;

/* Advances to the next coordinate; false once the box is exhausted. */
bool dm_walk_next(dm_walk *w);

#endif
