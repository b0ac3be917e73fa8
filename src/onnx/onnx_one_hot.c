/* ONNX OneHot (9, 11) as DML_ONE_HOT. The output has the indices' shape with depth
 * inserted at axis (in [-r-1, r], a negative one counted from the end of the output's
 * rank r + 1). An index in [-depth, -1] counts from the end; one outside [-depth,
 * depth - 1] makes its whole sequence off_value. DirectML wants all three tensors of the
 * output's rank: the indices get a dimension of 1 at the axis, and ONNX's [off, on]
 * values tensor becomes [1, ..., 1, 2], so that OnValue, at coordinate 1 along the last
 * dimension larger than 1, is `on`. Both are bound as ONNX holds them. */
#include "onnx/onnx.h"


#include "status.h"

static const char node[] = "ONNX OneHot";

/* The conversion an engine makes before handing DirectML indices it does not take. */
static dmlops_status dm_one_hot_indices_type(DML_TENSOR_DATA_TYPE t)
{
    const char *advice;
    switch (t) {
    case DML_TENSOR_DATA_TYPE_INT32:
    case DML_TENSOR_DATA_TYPE_INT64:
    case DML_TENSOR_DATA_TYPE_UINT32:
    case DML_TENSOR_DATA_TYPE_UINT64: return DMLOPS_SUCCESS;
    case DML_TENSOR_DATA_TYPE_INT8:
    case DML_TENSOR_DATA_TYPE_INT16: advice = "widen them to INT32 first"; break;
    case DML_TENSOR_DATA_TYPE_UINT8:
    case DML_TENSOR_DATA_TYPE_UINT16: advice = "widen them to UINT32 (or INT32) first"; break;
    case DML_TENSOR_DATA_TYPE_FLOAT16:
    case DML_TENSOR_DATA_TYPE_FLOAT32:
    case DML_TENSOR_DATA_TYPE_FLOAT64:
        advice = "cast them to INT64 first, as ONNX casts non-integer indices";
        break;
    default:
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: indices type = %d (%s) is not one of DirectML's 11 element types",
                       node, (int)t, dmlops_data_type_name(t));
    }
    return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                   "%s: indices type = %s: DML_ONE_HOT takes INT32, INT64, UINT32 or UINT64 indices: %s", node,
                   dmlops_data_type_name(t), advice);
}

dmlops_status dmlops_onnx_one_hot(dmlops_onnx_op *op, DML_TENSOR_DATA_TYPE indices_type, uint32_t rank,
                                  const int64_t *indices_shape, int64_t depth, DML_TENSOR_DATA_TYPE values_type,
                                  int64_t axis)
{
    const dmlops_status bad = DMLOPS_ERROR_INVALID_ARGUMENT;
    if (!op) return dm_fail(bad, "%s: op is NULL", node);
    DM_TRY(dm_one_hot_indices_type(indices_type));
    DM_TRY(dm_onnx_check_type(node, "values", values_type));
    DM_TRY(dm_onnx_check_shape(node, "indices_shape", rank, DMLOPS_ONNX_MAX_RANK - 1, indices_shape,
                               "indices: the output's rank is one more, and DirectML tensors have at most 8 dimensions"));
    if (depth < 1) return dm_fail(bad, "%s: depth = %lld is invalid: it is at least 1", node, (long long)depth);
    const int64_t out_rank = (int64_t)rank + 1;
    if (axis < -out_rank || axis > (int64_t)rank)
        return dm_fail(bad, "%s: axis = %lld is out of range [-%lld, %u] for indices of rank %u", node, (long long)axis,
                       (long long)out_rank, rank, rank);
    const uint32_t a = (uint32_t)(axis < 0 ? axis + out_rank : axis);

    int64_t shape[DMLOPS_ONNX_MAX_RANK];
    for (uint32_t d = 0, k = 0; d < (uint32_t)out_rank; d++) shape[d] = d == a ? depth : indices_shape[k++];
    if (dm_onnx_has_no_elements((uint32_t)out_rank, shape)) return dm_onnx_empty(op, (uint32_t)out_rank, shape);
    if ((uint64_t)depth > DM_ONNX_MAX_DIM)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: depth = %lld: DirectML tensor sizes are 1 to 4294967295 (2^32 - 1)",
                       node, (long long)depth);

    dmlops_onnx_op b;
    dm_onnx_begin(&b, DML_OPERATOR_ONE_HOT, 2, (uint32_t)out_rank, shape);
    uint32_t idx_sizes[DMLOPS_ONNX_MAX_RANK], sizes[DMLOPS_ONNX_MAX_RANK], values[DMLOPS_ONNX_MAX_RANK], n;
    DM_TRY(dm_onnx_sizes(node, "indices", "indices_shape", rank, indices_shape, idx_sizes, &n));
    DM_TRY(dm_onnx_sizes(node, "the output", "output_shape", (uint32_t)out_rank, shape, sizes, &n));
    for (uint32_t d = 0; d < n; d++) {
        idx_sizes[d] = d == a ? 1 : sizes[d];
        values[d] = d + 1 == n ? 2 : 1;
    }
    b.private_.op.one_hot.Axis = a;
    dm_onnx_tensor(&b, 0, indices_type, n, idx_sizes, NULL);
    dm_onnx_tensor(&b, 1, values_type, n, values, NULL);
    dm_onnx_tensor(&b, 2, values_type, n, sizes, NULL);
    return dm_onnx_finish(node, &b, op);
}
