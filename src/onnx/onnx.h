/* The ONNX front end (include/dmlops_onnx.h): what the three node translations share.
 * Each translation checks the node against the ONNX specification, computes the ONNX
 * output shape, and either reports an empty output or builds the descriptor in a local
 * dmlops_onnx_op that dm_onnx_finish validates and hands over, so that a refused call
 * leaves the caller's struct as it was. Messages start with the node ("ONNX Slice: ")
 * and name the ONNX attribute or input and its value. */
#ifndef DM_ONNX_H
#define DM_ONNX_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlops_onnx.h"

/* The tensors of the descriptor, in binding order: inputs, then the output. */
enum { DM_ONNX_MAX_TENSORS = 3 };

/* DirectML's size limit: Sizes are 32-bit, and a tensor holds fewer than 2^32 elements. */
#define DM_ONNX_MAX_DIM UINT32_MAX

/* INVALID_ARGUMENT unless type is one of DirectML's 11 element types; `what` names the
 * ONNX input ("data"). */
dmlops_status dm_onnx_check_type(const char *node, const char *what, DML_TENSOR_DATA_TYPE type);

/* The shape of an ONNX input: rank at most max_rank (UNSUPPORTED above it, with `why`
 * saying what limits it), shape not NULL when rank > 0, no negative dimension.
 * `param` names the C parameter ("input_shape"). */
dmlops_status dm_onnx_check_shape(const char *node, const char *param, uint32_t rank, uint32_t max_rank,
                                  const int64_t *shape, const char *why);

/* "[2, 3, 4]" into buf. */
const char *dm_onnx_shape_text(uint32_t rank, const int64_t *shape, char *buf, size_t len);

/* Whether a shape has no elements. */
bool dm_onnx_has_no_elements(uint32_t rank, const int64_t *shape);

/* The shape as DirectML Sizes (a scalar as [1]): UNSUPPORTED when a dimension exceeds
 * 2^32 - 1 or the elements number 2^32 or more. `what` and `param` name it in messages
 * ("data", "input_shape"). Returns the descriptor's rank through *dml_rank. */
dmlops_status dm_onnx_sizes(const char *node, const char *what, const char *param, uint32_t rank,
                            const int64_t *shape, uint32_t *sizes, uint32_t *dml_rank);

/* Fills *op for an output with no elements: empty, the ONNX output shape, all else 0. */
dmlops_status dm_onnx_empty(dmlops_onnx_op *op, uint32_t rank, const int64_t *shape);

/* Starts a descriptor in *b: all zero, then its operator type, DirectML input count and
 * the ONNX output shape. */
void dm_onnx_begin(dmlops_onnx_op *b, DML_OPERATOR_TYPE type, uint32_t input_count, uint32_t rank,
                   const int64_t *shape);

/* Tensor i of the descriptor being built: its type and sizes, packed (strides NULL) or
 * with strides, and TotalTensorSizeInBytes from dmlops_calc_buffer_tensor_size. */
void dm_onnx_tensor(dmlops_onnx_op *op, uint32_t i, DML_TENSOR_DATA_TYPE type, uint32_t rank,
                    const uint32_t *sizes, const uint32_t *strides);

/* Hands over a descriptor built in *built (desc.Type, the operator's non-pointer fields,
 * input_count, the tensors, the output shape): points every pointer into the struct,
 * fills the binding sizes, validates it at the highest feature level, and copies it to
 * *out, pointers moved into *out. */
dmlops_status dm_onnx_finish(const char *node, dmlops_onnx_op *built, dmlops_onnx_op *out);

#endif
