/* What the three ONNX node translations share (onnx.h): input checks, DirectML sizes,
 * the empty result and the hand-over of a built descriptor. */
#include "onnx/onnx.h"

#include <stdio.h>
#include <string.h>

#include "status.h"

dmlops_status dm_onnx_check_type(const char *node, const char *what, DML_TENSOR_DATA_TYPE type)
{
    if (dmlops_data_type_size(type)) return DMLOPS_SUCCESS;
    return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s type = %d (%s) is not one of DirectML's 11 element types", node,
                   what, (int)type, dmlops_data_type_name(type));
}

dmlops_status dm_onnx_check_shape(const char *node, const char *param, uint32_t rank, uint32_t max_rank,
                                  const int64_t *shape, const char *why)
{
    if (rank > max_rank)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: rank = %u exceeds %u (%s)", node, rank, max_rank, why);
    if (rank && !shape) return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s is NULL with rank = %u", node, param, rank);
    for (uint32_t i = 0; i < rank; i++)
        if (shape[i] < 0)
            return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s[%u] = %lld is negative", node, param, i,
                           (long long)shape[i]);
    return DMLOPS_SUCCESS;
}

const char *dm_onnx_shape_text(uint32_t rank, const int64_t *shape, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i <= rank && at < len; i++) {
        int n = i == rank ? snprintf(buf + at, len - at, "]")
                          : snprintf(buf + at, len - at, "%s%lld", i ? ", " : "[", (long long)shape[i]);
        if (n < 0) break;
        at += (size_t)n;
    }
    return buf;
}

bool dm_onnx_has_no_elements(uint32_t rank, const int64_t *shape)
{
    for (uint32_t i = 0; i < rank; i++)
        if (shape[i] == 0) return true;
    return false;
}

dmlops_status dm_onnx_sizes(const char *node, const char *what, const char *param, uint32_t rank,
                            const int64_t *shape, uint32_t *sizes, uint32_t *dml_rank)
{
    uint64_t count = 1;
    *dml_rank = rank ? rank : 1;
    sizes[0] = 1;
    for (uint32_t i = 0; i < rank; i++) {
        if (shape[i] < 1 || (uint64_t)shape[i] > DM_ONNX_MAX_DIM)
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                           "%s: %s[%u] = %lld: DirectML tensor sizes are 1 to 4294967295 (2^32 - 1)", node, param, i,
                           (long long)shape[i]);
        sizes[i] = (uint32_t)shape[i];
        /* Each factor is below 2^32 and the product so far too, so this cannot wrap. */
        count *= sizes[i];
        if (count > UINT32_MAX) {
            char text[200];
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                           "%s: %s of shape %s has 2^32 or more elements: a DirectML tensor holds at most 2^32 - 1",
                           node, what, dm_onnx_shape_text(rank, shape, text, sizeof text));
        }
    }
    return DMLOPS_SUCCESS;
}

dmlops_status dm_onnx_empty(dmlops_onnx_op *op, uint32_t rank, const int64_t *shape)
{
    memset(op, 0, sizeof *op);
    op->empty = true;
    op->output_rank = rank;
    if (rank) memcpy(op->output_shape, shape, rank * sizeof *shape);
    return DMLOPS_SUCCESS;
}

void dm_onnx_begin(dmlops_onnx_op *b, DML_OPERATOR_TYPE type, uint32_t input_count, uint32_t rank,
                   const int64_t *shape)
{
    memset(b, 0, sizeof *b);
    b->desc.Type = type;
    b->input_count = input_count;
    b->output_rank = rank;
    if (rank) memcpy(b->output_shape, shape, rank * sizeof *shape);
}

void dm_onnx_tensor(dmlops_onnx_op *op, uint32_t i, DML_TENSOR_DATA_TYPE type, uint32_t rank,
                    const uint32_t *sizes, const uint32_t *strides)
{
    DML_BUFFER_TENSOR_DESC *b = &op->private_.buffer[i];
    memcpy(op->private_.sizes[i], sizes, rank * sizeof *sizes);
    if (strides) memcpy(op->private_.strides[i], strides, rank * sizeof *strides);
    memset(b, 0, sizeof *b);
    b->DataType = type;
    b->Flags = DML_TENSOR_FLAG_NONE;
    b->DimensionCount = rank;
    b->Sizes = op->private_.sizes[i];
    b->Strides = strides ? op->private_.strides[i] : NULL;
    b->TotalTensorSizeInBytes = dmlops_calc_buffer_tensor_size(type, rank, sizes, strides);
    op->private_.tensor[i].Type = DML_TENSOR_TYPE_BUFFER;
    op->private_.tensor[i].Desc = b;
}

/* Points every pointer of op into op itself: desc, the operator desc's tensors, each
 * tensor's buffer desc and arrays, SLICE1's window arrays. */
static void dm_onnx_wire(dmlops_onnx_op *op)
{
    struct dmlops_onnx_private_ *p = &op->private_;
    const DML_TENSOR_DESC *t = p->tensor;
    for (uint32_t i = 0; i < DM_ONNX_MAX_TENSORS; i++) {
        DML_BUFFER_TENSOR_DESC *b = &p->buffer[i];
        b->Sizes = p->sizes[i];
        if (b->Strides) b->Strides = p->strides[i];
        p->tensor[i].Desc = b;
    }
    op->desc.Desc = &p->op;
    if (op->desc.Type == DML_OPERATOR_SLICE1) {
        p->op.slice.InputTensor = &t[0];
        p->op.slice.OutputTensor = &t[1];
        p->op.slice.InputWindowOffsets = p->window_offsets;
        p->op.slice.InputWindowSizes = p->window_sizes;
        p->op.slice.InputWindowStrides = p->window_strides;
    } else if (op->desc.Type == DML_OPERATOR_REVERSE_SUBSEQUENCES) {
        p->op.reverse.InputTensor = &t[0];
        p->op.reverse.SequenceLengthsTensor = &t[1];
        p->op.reverse.OutputTensor = &t[2];
    } else {
        p->op.one_hot.IndicesTensor = &t[0];
        p->op.one_hot.ValuesTensor = &t[1];
        p->op.one_hot.OutputTensor = &t[2];
    }
}

dmlops_status dm_onnx_finish(const char *node, dmlops_onnx_op *built, dmlops_onnx_op *out)
{
    built->empty = false;
    for (uint32_t i = 0; i < built->input_count; i++) built->input_bytes[i] = built->private_.buffer[i].TotalTensorSizeInBytes;
    built->output_bytes = built->private_.buffer[built->input_count].TotalTensorSizeInBytes;
    dm_onnx_wire(built);
    /* The checks above make every descriptor valid; this proves it, so that a success
     * always hands over a descriptor the library runs. */
    dmlops_status st = dmlops_validate_operator(&built->desc, (DML_FEATURE_LEVEL)0);
    if (st != DMLOPS_SUCCESS) return dm_fail_prefix(st, "%s: the descriptor made is refused", node);
    *out = *built;
    dm_onnx_wire(out);
    return DMLOPS_SUCCESS;
}
