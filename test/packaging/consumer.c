/* The packaging test's consumer of an installed libdmlops: built through pkg-config
 * (shared and static), through the CMake package, and as C++ (this file is both C11 and
 * C++11), and by test_cmake.sh's add_subdirectory and FetchContent consumers. It reverses the
 * first 3 of 4 floats on the CPU backend, or on Vulkan when its argument is "vulkan", then
 * runs the ONNX Slice data[::-2] that dmlops_onnx.h translates on the same floats, and
 * checks the version. */
#include <dmlops.h>
#include <dmlops_onnx.h>

#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        dmlops_status st_ = (call);                                                                   \
        if (st_ != DMLOPS_SUCCESS) {                                                                  \
            fprintf(stderr, "%s: %s: %s\n", #call, dmlops_status_string(st_), dmlops_last_error_message()); \
            return 1;                                                                                 \
        }                                                                                             \
    } while (0)

int main(int argc, char **argv)
{
    const int vulkan = argc > 1 && strcmp(argv[1], "vulkan") == 0;
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", DMLOPS_VERSION_MAJOR, DMLOPS_VERSION_MINOR, DMLOPS_VERSION_PATCH);
    if (strcmp(version, dmlops_version_string()) != 0) {
        fprintf(stderr, "header says %s, library says %s\n", version, dmlops_version_string());
        return 1;
    }

    uint32_t sizes[2] = {1, 4}, len_sizes[2] = {1, 1};
    DML_BUFFER_TENSOR_DESC x = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, sizes, NULL, 16, 0};
    DML_BUFFER_TENSOR_DESC l = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 2, len_sizes, NULL, 4, 0};
    DML_TENSOR_DESC in = {DML_TENSOR_TYPE_BUFFER, &x}, len = {DML_TENSOR_TYPE_BUFFER, &l}, out = in;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev = {&in, &len, &out, 1};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_REVERSE_SUBSEQUENCES, &rev};

    dmlops_context_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.backend = vulkan ? DMLOPS_BACKEND_VULKAN : DMLOPS_BACKEND_CPU;
    dmlops_context *ctx = NULL;
    dmlops_operator *op = NULL;
    dmlops_buffer *bx = NULL, *bl = NULL, *by = NULL, *bs = NULL;
    const float data[4] = {1, 2, 3, 4};
    const uint32_t lengths[1] = {3};
    float result[4] = {0, 0, 0, 0};
    CHECK(dmlops_context_create(&cd, &ctx));
    CHECK(dmlops_operator_create(ctx, &desc, &op));
    CHECK(dmlops_buffer_create(ctx, 16, &bx));
    CHECK(dmlops_buffer_create(ctx, 4, &bl));
    CHECK(dmlops_buffer_create(ctx, 16, &by));
    CHECK(dmlops_buffer_write(bx, 0, data, 16));
    CHECK(dmlops_buffer_write(bl, 0, lengths, 4));
    dmlops_binding inputs[2] = {{bx, 0, 16}, {bl, 0, 4}}, output = {by, 0, 16};
    CHECK(dmlops_operator_execute(op, 2, inputs, 1, &output));
    CHECK(dmlops_buffer_read(by, 0, result, 16));

    /* ONNX Slice with starts [-1], ends [INT64_MIN], steps [-2]: elements 3 and 1. */
    const int64_t shape[1] = {4}, starts[1] = {-1}, ends[1] = {INT64_MIN}, steps[1] = {-2};
    dmlops_onnx_op slice;
    dmlops_operator *sop = NULL;
    float sliced[2] = {0, 0};
    CHECK(dmlops_onnx_slice(&slice, DML_TENSOR_DATA_TYPE_FLOAT32, 1, shape, 1, starts, ends, NULL, steps));
    CHECK(dmlops_operator_create(ctx, &slice.desc, &sop));
    CHECK(dmlops_buffer_create(ctx, slice.output_bytes, &bs));
    dmlops_binding sin = {bx, 0, slice.input_bytes[0]}, sout = {bs, 0, slice.output_bytes};
    CHECK(dmlops_operator_execute(sop, 1, &sin, 1, &sout));
    CHECK(dmlops_buffer_read(bs, 0, sliced, 8));
    dmlops_operator_destroy(sop);
    dmlops_buffer_destroy(bs);
    dmlops_buffer_destroy(by);
    dmlops_buffer_destroy(bl);
    dmlops_buffer_destroy(bx);
    dmlops_operator_destroy(op);
    dmlops_context_destroy(ctx);

    const float expected[4] = {3, 2, 1, 4}, expected_slice[2] = {4, 2};
    if (memcmp(result, expected, sizeof expected) != 0) {
        fprintf(stderr, "got %g %g %g %g, expected 3 2 1 4\n", result[0], result[1], result[2], result[3]);
        return 1;
    }
    if (slice.output_rank != 1 || slice.output_shape[0] != 2 || memcmp(sliced, expected_slice, sizeof sliced) != 0) {
        fprintf(stderr, "ONNX Slice: got %g %g, expected 4 2\n", sliced[0], sliced[1]);
        return 1;
    }
    printf("dmlops %s consumer: ok (%s)\n", dmlops_version_string(), vulkan ? "vulkan" : "cpu");
    return 0;
}
