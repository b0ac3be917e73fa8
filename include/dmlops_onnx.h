/*
 * dmlops_onnx.h - ONNX's ReverseSequence, Slice and OneHot nodes as DirectML descriptors.
 *
 * Copyright (c) 2026 The libdmlops developers. MIT licence, see LICENSE.
 *
 * Each function below translates one ONNX node, exactly as the ONNX operator
 * specification defines it, into a DML_OPERATOR_DESC that runs through the normal API
 * (dmlops_operator_create, dmlops_operator_execute, command lists) with the node's ONNX
 * tensors bound as they are: the same bytes, no conversion. The translation holds the
 * rules an engine would otherwise write itself: Slice's clamping for positive and negative
 * steps, negative axes, starts and ends, INT64 extremes, ReverseSequence's per-batch
 * lengths broadcast over every other dimension, OneHot's negative axis and indices, and
 * outputs with no elements, which DirectML cannot express (`empty`). docs/api.md,
 * "ONNX nodes", has the details and the feature level each descriptor needs.
 *
 * Every function is thread-safe and allocates nothing. On failure it returns
 * DMLOPS_ERROR_INVALID_ARGUMENT (a node the ONNX specification does not allow) or
 * DMLOPS_ERROR_UNSUPPORTED (a valid node beyond what DirectML's descriptors hold), leaves
 * *op as it was, and dmlops_last_error_message() names the ONNX attribute or input and
 * its value ("ONNX Slice: steps[1] = 0 is invalid: ...").
 */
#ifndef DMLOPS_ONNX_H
#define DMLOPS_ONNX_H

#include "dmlops.h"

#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define DMLOPS_ONNX_MAX_RANK 8

/* One ONNX node as a DirectML operator. Filled by the functions below. `desc` points into
 * the struct itself: use the struct where it was filled and do not copy it. */
typedef struct dmlops_onnx_op {
    DML_OPERATOR_DESC desc;            /* ready for dmlops_operator_create / dmlops_validate_operator */
    bool empty;                        /* the ONNX output has no elements: nothing to run; desc unset */
    uint32_t input_count;              /* DirectML inputs in binding order (below) */
    uint64_t input_bytes[2];           /* each input binding's size: DirectML's TotalTensorSizeInBytes, which
                                          rounds up to 4 bytes, so at least the ONNX tensor's bytes */
    uint32_t output_rank;              /* the ONNX output's rank (0 for a scalar) */
    int64_t output_shape[DMLOPS_ONNX_MAX_RANK];
    uint64_t output_bytes;             /* the output binding's size, likewise */
    /* Private storage follows: the tensor descriptors and the arrays `desc` points to.
     * Read nothing from it; its layout may change in any release. */
    struct dmlops_onnx_private_ {
        union {
            DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC reverse;
            DML_SLICE1_OPERATOR_DESC slice;
            DML_ONE_HOT_OPERATOR_DESC one_hot;
        } op;
        DML_TENSOR_DESC tensor[3];
        DML_BUFFER_TENSOR_DESC buffer[3];
        uint32_t sizes[3][DMLOPS_ONNX_MAX_RANK];
        uint32_t strides[3][DMLOPS_ONNX_MAX_RANK];
        uint32_t window_offsets[DMLOPS_ONNX_MAX_RANK];
        uint32_t window_sizes[DMLOPS_ONNX_MAX_RANK];
        int32_t window_strides[DMLOPS_ONNX_MAX_RANK];
    } private_;
} dmlops_onnx_op;

/* ReverseSequence-10. Bindings: input, sequence_lens (the ONNX int64 tensor of shape [batch] as
 * it is; lengths_type may also be INT32 or UINT32/UINT64 for engines that store it so). */
DMLOPS_API dmlops_status dmlops_onnx_reverse_sequence(dmlops_onnx_op *op, DML_TENSOR_DATA_TYPE input_type,
    uint32_t rank, const int64_t *input_shape, DML_TENSOR_DATA_TYPE lengths_type,
    int64_t time_axis, int64_t batch_axis);

/* Slice-1/10/11/13 with constant starts, ends, axes (NULL: 0..count-1) and steps (NULL: all 1).
 * Binding: input. */
DMLOPS_API dmlops_status dmlops_onnx_slice(dmlops_onnx_op *op, DML_TENSOR_DATA_TYPE type, uint32_t rank,
    const int64_t *input_shape, uint32_t count, const int64_t *starts, const int64_t *ends,
    const int64_t *axes, const int64_t *steps);

/* OneHot-9/11 with a constant depth (the caller casts a non-integer depth to int64, as ONNX says).
 * Bindings: indices (INT32, INT64, UINT32 or UINT64, as DirectML takes them; any other type is refused,
 * naming the conversion to make), values (the ONNX [off, on] tensor as it is). */
DMLOPS_API dmlops_status dmlops_onnx_one_hot(dmlops_onnx_op *op, DML_TENSOR_DATA_TYPE indices_type, uint32_t rank,
    const int64_t *indices_shape, int64_t depth, DML_TENSOR_DATA_TYPE values_type, int64_t axis);

#ifdef __cplusplus
}
#endif

#endif /* DMLOPS_ONNX_H */
