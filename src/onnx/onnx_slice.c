/* ONNX Slice (1, 10, 11, 13) as DML_SLICE1, with the specification's own rules:
 *  - axes default to 0..count-1 and steps to 1; a negative axis has the rank added;
 *  - a negative start or end has the dimension added; then, for a positive step, start
 *    and end are clamped to [0, dim]; for a negative step, start to [0, dim - 1] and end
 *    to [-1, dim - 1];
 *  - the axis keeps ceil((end - start) / step) elements, none when that is not positive.
 * So starts = -100, ends = -100, steps = -1 on a dimension of 5 selects element 0
 * (start -95 clamps to 0, end -95 to -1), where Python's slicing selects nothing. */
#include "onnx/onnx.h"


#include "status.h"

static const char node[] = "ONNX Slice";

static int64_t dm_clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* One sliced axis: its first element, step and the elements it keeps. */
typedef struct dm_onnx_axis {
    int64_t first, step;
    int64_t count;
} dm_onnx_axis;

static dm_onnx_axis dm_slice_axis(int64_t dim, int64_t start, int64_t end, int64_t step)
{
    dm_onnx_axis a = {0, step, 0};
    if (dim == 0 || step == 0) return a; /* (a zero step is refused before) */
    /* v + dim cannot overflow for v < 0 <= dim. */
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    /* |step| and the distance as unsigned: step may be INT64_MIN. */
    uint64_t mag, distance;
    if (step > 0) {
        start = dm_clamp(start, 0, dim);
        end = dm_clamp(end, 0, dim);
        if (end <= start) return a;
        mag = (uint64_t)step;
        distance = (uint64_t)(end - start);
    } else {
        start = dm_clamp(start, 0, dim - 1);
        end = dm_clamp(end, -1, dim - 1);
        if (end >= start) return a;
        mag = (uint64_t)0 - (uint64_t)step;
        distance = (uint64_t)(start - end);
    }
    a.first = start;
    a.count = (int64_t)(distance / mag + (distance % mag != 0));
    return a;
}

dmlops_status dmlops_onnx_slice(dmlops_onnx_op *op, DML_TENSOR_DATA_TYPE type, uint32_t rank,
                                const int64_t *input_shape, uint32_t count, const int64_t *starts, const int64_t *ends,
                                const int64_t *axes, const int64_t *steps)
{
    const dmlops_status bad = DMLOPS_ERROR_INVALID_ARGUMENT;
    if (!op) return dm_fail(bad, "%s: op is NULL", node);
    DM_TRY(dm_onnx_check_type(node, "data", type));
    DM_TRY(dm_onnx_check_shape(node, "input_shape", rank, DMLOPS_ONNX_MAX_RANK, input_shape,
                               "data: DirectML tensors have at most 8 dimensions"));
    if (count && !starts) return dm_fail(bad, "%s: starts is NULL with count = %u", node, count);
    if (count && !ends) return dm_fail(bad, "%s: ends is NULL with count = %u", node, count);
    if (count > rank && !axes)
        return dm_fail(bad, "%s: count = %u exceeds the rank %u of data: without axes, starts[%u] would slice axis %u",
                       node, count, rank, rank, rank);

    dm_onnx_axis ax[DMLOPS_ONNX_MAX_RANK];
    int64_t shape[DMLOPS_ONNX_MAX_RANK];
    int32_t by[DMLOPS_ONNX_MAX_RANK]; /* the entry of starts that slices each axis; -1: none */
    for (uint32_t d = 0; d < rank; d++) {
        ax[d] = (dm_onnx_axis){0, 1, input_shape[d]};
        by[d] = -1;
    }
    for (uint32_t i = 0; i < count; i++) {
        const int64_t a = axes ? axes[i] : (int64_t)i, step = steps ? steps[i] : 1;
        if (a < -(int64_t)rank || a >= (int64_t)rank) {
            if (!rank) return dm_fail(bad, "%s: axes[%u] = %lld: data of rank 0 has no axis to slice", node, i, (long long)a);
            return dm_fail(bad, "%s: axes[%u] = %lld is out of range [-%u, %u] for data of rank %u", node, i,
                           (long long)a, rank, rank - 1, rank);
        }
        const uint32_t d = (uint32_t)(a < 0 ? a + (int64_t)rank : a);
        if (by[d] >= 0)
            return dm_fail(bad, "%s: axes[%u] = %lld repeats axis %u (axes[%d] = %lld): each axis is sliced once", node,
                           i, (long long)a, d, by[d], (long long)(axes ? axes[by[d]] : by[d]));
        if (step == 0) return dm_fail(bad, "%s: steps[%u] = 0 is invalid: a step is never 0", node, i);
        by[d] = (int32_t)i;
        ax[d] = dm_slice_axis(input_shape[d], starts[i], ends[i], step);
    }
    for (uint32_t d = 0; d < rank; d++) shape[d] = ax[d].count;
    if (dm_onnx_has_no_elements(rank, shape)) return dm_onnx_empty(op, rank, shape);

    dmlops_onnx_op b;
    dm_onnx_begin(&b, DML_OPERATOR_SLICE1, 1, rank, shape);
    uint32_t in_sizes[DMLOPS_ONNX_MAX_RANK], out_sizes[DMLOPS_ONNX_MAX_RANK], dml_rank;
    DM_TRY(dm_onnx_sizes(node, "data", "input_shape", rank, input_shape, in_sizes, &dml_rank));
    struct dmlops_onnx_private_ *p = &b.private_;
    p->window_offsets[0] = 0;
    p->window_sizes[0] = out_sizes[0] = 1;
    p->window_strides[0] = 1;
    for (uint32_t d = 0; d < rank; d++) {
        /* Every count is at most the dimension, which now fits 32 bits. */
        const uint64_t n = (uint64_t)ax[d].count;
        out_sizes[d] = (uint32_t)n;
        if (n == 1 || by[d] < 0) { /* one element, or the whole axis: stride 1 */
            p->window_offsets[d] = (uint32_t)ax[d].first;
            p->window_sizes[d] = (uint32_t)n;
            p->window_strides[d] = 1;
            continue;
        }
        const int64_t step = ax[d].step;
        if (step < INT32_MIN || step > INT32_MAX)
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                           "%s: steps[%d] = %lld keeps %llu elements of axis %u, but DML_SLICE1's "
                           "InputWindowStrides are 32-bit",
                           node, by[d], (long long)step, (unsigned long long)n, d);
        /* (n - 1) * |step| < dim <= 2^32 - 1: the window lies inside the dimension. */
        const uint64_t span = (n - 1) * (step > 0 ? (uint64_t)step : (uint64_t)0 - (uint64_t)step);
        p->window_offsets[d] = (uint32_t)(step > 0 ? (uint64_t)ax[d].first : (uint64_t)ax[d].first - span);
        p->window_sizes[d] = (uint32_t)(span + 1);
        p->window_strides[d] = (int32_t)step;
    }
    p->op.slice.DimensionCount = dml_rank;
    dm_onnx_tensor(&b, 0, type, dml_rank, in_sizes, NULL);
    dm_onnx_tensor(&b, 1, type, dml_rank, out_sizes, NULL);
    return dm_onnx_finish(node, &b, op);
}
