/* libdmlops's ONNX front end (dmlops_onnx.h): ONNX Slice nodes with negative steps, run as
 * an inference engine runs a node of a model. dmlops_onnx_slice turns the node's constant
 * starts, ends, axes and steps into a DML_SLICE1 descriptor, with ONNX's own clamping; the
 * ONNX tensors are bound as they are. Runs on the default device (DMLOPS_BACKEND /
 * DMLOPS_DEVICE choose another) and checks each result against the ONNX specification.
 * Build: cc onnx_slice.c $(pkg-config --cflags --libs dmlops) */
#include <stdio.h>
#include <string.h>

#include "dmlops_onnx.h"

typedef struct slice_node {
    const char *title;
    uint32_t rank;
    int64_t shape[2];
    uint32_t count;
    int64_t starts[2], ends[2], axes[2], steps[2];
    float expected[12];
} slice_node;

static const float data[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

static const slice_node nodes[] = {
    {"data[::-1, ::-2] of a 3 x 4 tensor: ends INT64_MIN, as ONNX recommends for slicing backward",
     2, {3, 4}, 2, {-1, -1}, {INT64_MIN, INT64_MIN}, {0, 1}, {-1, -2}, {12, 10, 8, 6, 4, 2}},
    {"starts -100, ends -100, step -1 on 5 elements: ONNX clamps the start to 0 and the end to -1,\n"
     "  so element 0 is taken (Python's slicing, which clamps both to -1, takes none)",
     1, {5}, 1, {-100}, {-100}, {0}, {-1}, {1}},
    {"rows 2 down to 1, every column from the last: starts [2, -1], ends [0, -5], steps [-1, -1]",
     2, {3, 4}, 2, {2, -1}, {0, -5}, {0, 1}, {-1, -1}, {12, 11, 10, 9, 8, 7, 6, 5}},
};

/* Translates one node, runs it on ctx and prints its output; 0 when it matches. */
static int run_node(dmlops_context *ctx, const slice_node *n)
{
    dmlops_onnx_op op;
    dmlops_operator *o = NULL;
    dmlops_buffer *in = NULL, *out = NULL;
    float result[12];
    printf("%s\n", n->title);
    dmlops_status st = dmlops_onnx_slice(&op, DML_TENSOR_DATA_TYPE_FLOAT32, n->rank, n->shape, n->count, n->starts,
                                         n->ends, n->axes, n->steps);
    if (st == DMLOPS_SUCCESS && op.empty) { /* DirectML cannot express an empty result */
        printf("  empty output: nothing to run\n\n");
        return 0;
    }
    if (st == DMLOPS_SUCCESS) st = dmlops_operator_create(ctx, &op.desc, &o);
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, op.input_bytes[0], &in);
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_create(ctx, op.output_bytes, &out);
    const uint64_t elements = n->rank == 2 ? (uint64_t)(n->shape[0] * n->shape[1]) : (uint64_t)n->shape[0];
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_write(in, 0, data, elements * sizeof(float)); /* the ONNX tensor */
    if (st == DMLOPS_SUCCESS) {
        dmlops_binding bin = {in, 0, op.input_bytes[0]}, bout = {out, 0, op.output_bytes};
        st = dmlops_operator_execute(o, 1, &bin, 1, &bout);
    }
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_read(out, 0, result, op.output_bytes);
    dmlops_buffer_destroy(out);
    dmlops_buffer_destroy(in);
    dmlops_operator_destroy(o);
    if (st != DMLOPS_SUCCESS) {
        printf("  FAILED: %s: %s\n\n", dmlops_status_string(st), dmlops_last_error_message());
        return 1;
    }
    const int64_t cols = op.output_rank == 2 ? op.output_shape[1] : op.output_shape[0];
    const int64_t rows = op.output_rank == 2 ? op.output_shape[0] : 1;
    printf("  output [");
    for (uint32_t d = 0; d < op.output_rank; d++) printf("%s%lld", d ? ", " : "", (long long)op.output_shape[d]);
    printf("]:\n");
    for (int64_t r = 0; r < rows; r++) {
        printf("    [");
        for (int64_t c = 0; c < cols; c++) printf("%s%4g", c ? ", " : "", result[r * cols + c]);
        printf("]\n");
    }
    const int same = memcmp(result, n->expected, (size_t)(rows * cols) * sizeof(float)) == 0;
    printf("  %s\n\n", same ? "matches the ONNX specification" : "DIFFERS from the ONNX specification");
    return !same;
}

int main(void)
{
    dmlops_context *ctx = NULL;
    dmlops_context_info info;
    if (dmlops_context_create(NULL, &ctx) != DMLOPS_SUCCESS || dmlops_context_get_info(ctx, &info) != DMLOPS_SUCCESS) {
        fprintf(stderr, "onnx_slice: %s\n", dmlops_last_error_message());
        dmlops_context_destroy(ctx);
        return 1;
    }
    printf("ONNX Slice with negative steps on %s\n", info.backend == DMLOPS_BACKEND_VULKAN ? info.device.name : "the CPU backend");
    printf("data = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]] (the second node reads [1, 2, 3, 4, 5])\n\n");
    int failures = 0;
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) failures += run_node(ctx, &nodes[i]);
    dmlops_context_destroy(ctx);
    printf("%s\n", failures ? "some nodes FAILED" : "every node matches the ONNX specification");
    return failures ? 1 : 0;
}
