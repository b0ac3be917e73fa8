/* ONNX ReverseSequence (10) as DML_REVERSE_SUBSEQUENCES. For each index b along batch_axis,
 * the first sequence_lens[b] elements along time_axis are reversed and the rest copied.
 * DirectML reads a length per sequence from a tensor of the input's shape with 1 along the
 * axis: ONNX's [batch] tensor, bound as it is, is that tensor broadcast (stride 0) over
 * every dimension but batch_axis. Lengths above the time dimension clamp to it, as
 * DirectML does (ONNX leaves them undefined); negative ones count as 0. */
#include "onnx/onnx.h"


#include "status.h"

static const char node[] = "ONNX ReverseSequence";

dmlops_status dmlops_onnx_reverse_sequence(dmlops_onnx_op *op, DML_TENSOR_DATA_TYPE input_type, uint32_t rank,
                                           const int64_t *input_shape, DML_TENSOR_DATA_TYPE lengths_type,
                                           int64_t time_axis, int64_t batch_axis)
{
    const dmlops_status bad = DMLOPS_ERROR_INVALID_ARGUMENT;
    if (!op) return dm_fail(bad, "%s: op is NULL", node);
    DM_TRY(dm_onnx_check_type(node, "input", input_type));
    if (lengths_type != DML_TENSOR_DATA_TYPE_INT64 && lengths_type != DML_TENSOR_DATA_TYPE_INT32 &&
        lengths_type != DML_TENSOR_DATA_TYPE_UINT32 && lengths_type != DML_TENSOR_DATA_TYPE_UINT64)
        return dm_fail(bad, "%s: sequence_lens type = %d (%s): ONNX's is INT64; INT32, UINT32 and UINT64 are also taken",
                       node, (int)lengths_type, dmlops_data_type_name(lengths_type));
    DM_TRY(dm_onnx_check_shape(node, "input_shape", rank, DMLOPS_ONNX_MAX_RANK, input_shape,
                               "input: DirectML tensors have at most 8 dimensions"));
    if (rank < 2) return dm_fail(bad, "%s: input rank = %u is invalid: ReverseSequence takes rank 2 or more", node, rank);
    if (time_axis != 0 && time_axis != 1)
        return dm_fail(bad, "%s: time_axis = %lld is invalid: it is 0 or 1", node, (long long)time_axis);
    if (batch_axis != 0 && batch_axis != 1)
        return dm_fail(bad, "%s: batch_axis = %lld is invalid: it is 0 or 1", node, (long long)batch_axis);
    if (time_axis == batch_axis)
        return dm_fail(bad, "%s: time_axis = %lld equals batch_axis = %lld: they must differ", node, (long long)time_axis,
                       (long long)batch_axis);
    if (dm_onnx_has_no_elements(rank, input_shape)) return dm_onnx_empty(op, rank, input_shape);

    dmlops_onnx_op b;
    dm_onnx_begin(&b, DML_OPERATOR_REVERSE_SUBSEQUENCES, 2, rank, input_shape);
    uint32_t sizes[DMLOPS_ONNX_MAX_RANK], len_sizes[DMLOPS_ONNX_MAX_RANK], len_strides[DMLOPS_ONNX_MAX_RANK], dml_rank;
    DM_TRY(dm_onnx_sizes(node, "input", "input_shape", rank, input_shape, sizes, &dml_rank));
    for (uint32_t d = 0; d < rank; d++) {
        len_sizes[d] = d == (uint32_t)time_axis ? 1 : sizes[d];
        len_strides[d] = d == (uint32_t)batch_axis ? 1 : 0;
    }
    b.private_.op.reverse.Axis = (uint32_t)time_axis;
    dm_onnx_tensor(&b, 0, input_type, rank, sizes, NULL);
    dm_onnx_tensor(&b, 1, lengths_type, rank, len_sizes, len_strides);
    dm_onnx_tensor(&b, 2, input_type, rank, sizes, NULL);
    return dm_onnx_finish(node, &b, op);
}
