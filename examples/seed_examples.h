/* The eight examples of the DirectML documentation pages (shared/seeds), as data, with
 * a function that runs one through the public API. Used by examples/quickstart.c, which
 * prints them, and by test/test_seeds.c, which checks them byte for byte. */
#ifndef SEED_EXAMPLES_H
#define SEED_EXAMPLES_H

#include <stdio.h>
#include <string.h>

#include "dmlops.h"

typedef struct seed_tensor {
    const char *name;
    DML_TENSOR_DATA_TYPE type;
    uint32_t sizes[4];
    const void *data; /* NULL for the output */
} seed_tensor;

typedef struct seed_example {
    const char *title;
    DML_OPERATOR_TYPE op;
    uint32_t input_count;
    seed_tensor inputs[2];
    seed_tensor output;
    const float *expected;
    uint32_t axis;                                  /* REVERSE_SUBSEQUENCES, ONE_HOT */
    uint32_t offsets[4], window_sizes[4];           /* SLICE1 */
    int32_t window_strides[4];
} seed_example;

static const float seed_in12[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const float seed_in16[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint32_t seed_len1[] = {2, 4, 3}, seed_len2[] = {2, 3, 1, 0};
static const uint32_t seed_idx1[] = {0, 3, 2}, seed_idx2[] = {0, 2, 1, 0};
static const int32_t seed_idx4[] = {-3, 100, 3};
static const float seed_val01[] = {0, 1}, seed_val3[] = {4, 2, 9};

static const float seed_out_rev1[] = {2, 1, 3, 4, 8, 7, 6, 5, 11, 10, 9, 12};
static const float seed_out_rev2[] = {5, 10, 3, 4, 1, 6, 7, 8, 9, 2, 11, 12};
static const float seed_out_slice1[] = {2, 4, 10, 12};
static const float seed_out_slice2[] = {14, 16, 6, 8};
static const float seed_out_hot1[] = {1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0};
static const float seed_out_hot2[] = {1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0};
static const float seed_out_hot3[] = {2, 4, 4, 4, 4, 4, 4, 2, 4, 4, 2, 4};
static const float seed_out_hot4[] = {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

#define SEED_F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define SEED_U32 DML_TENSOR_DATA_TYPE_UINT32

static const seed_example seed_examples[] = {
    {"REVERSE_SUBSEQUENCES example 1: reverse along axis 3", DML_OPERATOR_REVERSE_SUBSEQUENCES, 2,
     {{"InputTensor", SEED_F32, {1, 1, 3, 4}, seed_in12}, {"SequenceLengthsTensor", SEED_U32, {1, 1, 3, 1}, seed_len1}},
     {"OutputTensor", SEED_F32, {1, 1, 3, 4}, NULL}, seed_out_rev1, 3, {0}, {0}, {0}},
    {"REVERSE_SUBSEQUENCES example 2: reverse along axis 2", DML_OPERATOR_REVERSE_SUBSEQUENCES, 2,
     {{"InputTensor", SEED_F32, {1, 1, 3, 4}, seed_in12}, {"SequenceLengthsTensor", SEED_U32, {1, 1, 1, 4}, seed_len2}},
     {"OutputTensor", SEED_F32, {1, 1, 3, 4}, NULL}, seed_out_rev2, 2, {0}, {0}, {0}},
    {"SLICE1 example 1: positive strides", DML_OPERATOR_SLICE1, 1,
     {{"InputTensor", SEED_F32, {1, 1, 4, 4}, seed_in16}},
     {"OutputTensor", SEED_F32, {1, 1, 2, 2}, NULL}, seed_out_slice1, 0, {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, 2, 2}},
    {"SLICE1 example 2: negative stride", DML_OPERATOR_SLICE1, 1,
     {{"InputTensor", SEED_F32, {1, 1, 4, 4}, seed_in16}},
     {"OutputTensor", SEED_F32, {1, 1, 2, 2}, NULL}, seed_out_slice2, 0, {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, -2, 2}},
    {"ONE_HOT example 1: axis 3", DML_OPERATOR_ONE_HOT, 2,
     {{"IndicesTensor", SEED_U32, {1, 1, 3, 1}, seed_idx1}, {"ValuesTensor", SEED_F32, {1, 1, 1, 2}, seed_val01}},
     {"OutputTensor", SEED_F32, {1, 1, 3, 4}, NULL}, seed_out_hot1, 3, {0}, {0}, {0}},
    {"ONE_HOT example 2: another axis", DML_OPERATOR_ONE_HOT, 2,
     {{"IndicesTensor", SEED_U32, {1, 1, 1, 4}, seed_idx2}, {"ValuesTensor", SEED_F32, {1, 1, 1, 2}, seed_val01}},
     {"OutputTensor", SEED_F32, {1, 1, 3, 4}, NULL}, seed_out_hot2, 2, {0}, {0}, {0}},
    {"ONE_HOT example 3: other on/off values", DML_OPERATOR_ONE_HOT, 2,
     {{"IndicesTensor", SEED_U32, {1, 1, 3, 1}, seed_idx1}, {"ValuesTensor", SEED_F32, {1, 1, 3, 1}, seed_val3}},
     {"OutputTensor", SEED_F32, {1, 1, 3, 4}, NULL}, seed_out_hot3, 3, {0}, {0}, {0}},
    {"ONE_HOT example 4: negative and out-of-range indices", DML_OPERATOR_ONE_HOT, 2,
     {{"IndicesTensor", DML_TENSOR_DATA_TYPE_INT32, {1, 1, 3, 1}, seed_idx4},
      {"ValuesTensor", SEED_F32, {1, 1, 1, 2}, seed_val01}},
     {"OutputTensor", SEED_F32, {1, 1, 3, 4}, NULL}, seed_out_hot4, 3, {0}, {0}, {0}},
};
#define SEED_EXAMPLE_COUNT (sizeof seed_examples / sizeof seed_examples[0])

static inline uint64_t seed_bytes(const seed_tensor *t)
{
    return dmlops_calc_buffer_tensor_size(t->type, 4, t->sizes, NULL);
}

/* Runs one example: creates the operator and buffers, executes, reads the output into
 * out (room for 16 floats). Returns the first failing status. */
static inline dmlops_status seed_run(dmlops_context *ctx, const seed_example *ex, float *out)
{
    DML_BUFFER_TENSOR_DESC bufs[3];
    DML_TENSOR_DESC descs[3];
    const seed_tensor *ts[3] = {&ex->inputs[0], ex->input_count > 1 ? &ex->inputs[1] : &ex->output, &ex->output};
    uint32_t n = ex->input_count + 1;
    for (uint32_t i = 0; i < n; i++) {
        const seed_tensor *t = i == n - 1 ? &ex->output : ts[i];
        bufs[i] = (DML_BUFFER_TENSOR_DESC){t->type, DML_TENSOR_FLAG_NONE, 4, t->sizes, NULL, seed_bytes(t), 0};
        descs[i] = (DML_TENSOR_DESC){DML_TENSOR_TYPE_BUFFER, &bufs[i]};
    }
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev = {&descs[0], &descs[1], &descs[2], ex->axis};
    DML_SLICE1_OPERATOR_DESC slice = {&descs[0], &descs[1], 4, ex->offsets, ex->window_sizes, ex->window_strides};
    DML_ONE_HOT_OPERATOR_DESC hot = {&descs[0], &descs[1], &descs[2], ex->axis};
    DML_OPERATOR_DESC desc = {ex->op, ex->op == DML_OPERATOR_SLICE1 ? (const void *)&slice
                                      : ex->op == DML_OPERATOR_ONE_HOT ? (const void *)&hot
                                                                       : (const void *)&rev};
    dmlops_operator *op = NULL;
    dmlops_buffer *b[3] = {NULL, NULL, NULL};
    dmlops_binding bind[3];
    dmlops_status st = dmlops_operator_create(ctx, &desc, &op);
    for (uint32_t i = 0; i < n && st == DMLOPS_SUCCESS; i++) {
        const seed_tensor *t = i == n - 1 ? &ex->output : ts[i];
        st = dmlops_buffer_create(ctx, bufs[i].TotalTensorSizeInBytes, &b[i]);
        if (st == DMLOPS_SUCCESS && t->data) st = dmlops_buffer_write(b[i], 0, t->data, bufs[i].TotalTensorSizeInBytes);
        bind[i] = (dmlops_binding){b[i], 0, bufs[i].TotalTensorSizeInBytes};
    }
    if (st == DMLOPS_SUCCESS) st = dmlops_operator_execute(op, n - 1, bind, 1, &bind[n - 1]);
    if (st == DMLOPS_SUCCESS) st = dmlops_buffer_read(b[n - 1], 0, out, bufs[n - 1].TotalTensorSizeInBytes);
    for (uint32_t i = 0; i < n; i++) dmlops_buffer_destroy(b[i]);
    dmlops_operator_destroy(op);
    return st;
}

#endif
