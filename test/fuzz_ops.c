/* libFuzzer target (`make fuzz`): builds arbitrary operator descriptors from the input
 * bytes, validates them, and runs every descriptor the validator accepts on the CPU
 * backend with buffers of exactly the bound size. Under AddressSanitizer and UBSan any
 * accepted descriptor that makes the library read or write out of bounds, overflow or
 * crash is a bug; refused ones must merely be refused. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dmlops.h"

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint32_t take(reader *r, uint32_t bytes)
{
    uint32_t v = 0;
    for (uint32_t i = 0; i < bytes; i++) v = v << 8 | (r->n ? (r->n--, *r->p++) : 0);
    return v;
}

/* Small values most of the time, so that accepted descriptors are common and cheap. */
static uint32_t small(reader *r, uint32_t max) { return take(r, 1) % (max + 1); }

typedef struct ftensor {
    DML_BUFFER_TENSOR_DESC b;
    DML_TENSOR_DESC d;
    uint32_t sizes[8], strides[8];
} ftensor;

static void make_tensor(reader *r, ftensor *t)
{
    uint32_t mode = take(r, 1);
    t->b.DataType = (DML_TENSOR_DATA_TYPE)(mode & 0x80 ? take(r, 1) : 1 + small(r, 10));
    t->b.Flags = (DML_TENSOR_FLAGS)(mode & 0x40 ? take(r, 1) : 0);
    t->b.DimensionCount = mode & 0x20 ? take(r, 1) % 10 : 1 + small(r, 3);
    uint32_t rank = t->b.DimensionCount > 8 ? 8 : t->b.DimensionCount;
    for (uint32_t i = 0; i < rank; i++) {
        t->sizes[i] = mode & 0x10 ? take(r, 4) : 1 + small(r, 5);
        t->strides[i] = mode & 0x08 ? take(r, 4) : small(r, 40);
    }
    t->b.Sizes = t->sizes;
    t->b.Strides = mode & 0x04 ? t->strides : NULL;
    uint64_t min = dmlops_calc_buffer_tensor_size(t->b.DataType, rank, t->sizes, t->b.Strides);
    t->b.TotalTensorSizeInBytes = mode & 0x02 ? (uint64_t)take(r, 4) << (take(r, 1) % 40) : min + 4 * small(r, 3);
    t->b.GuaranteedBaseOffsetAlignment = mode & 0x01 ? 1u << small(r, 8) : 0;
    t->d.Type = DML_TENSOR_TYPE_BUFFER;
    t->d.Desc = &t->b;
}

static dmlops_context *ctx;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    ftensor t[3];
    uint32_t off[8], win[8];
    int32_t str[8];
    memset(t, 0, sizeof t);
    for (int i = 0; i < 3; i++) make_tensor(&r, &t[i]);
    for (int i = 0; i < 8; i++) {
        off[i] = small(&r, 4);
        win[i] = small(&r, 6);
        str[i] = (int32_t)take(&r, 1) - 128;
        if (str[i] > 3 || str[i] < -3) str[i] = str[i] > 0 ? 1 : -1;
    }
    uint32_t kind = take(&r, 1) % 3, axis = small(&r, 8);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev = {&t[0].d, &t[1].d, &t[2].d, axis};
    DML_SLICE1_OPERATOR_DESC slice = {&t[0].d, &t[1].d, t[0].b.DimensionCount, off, win, str};
    DML_ONE_HOT_OPERATOR_DESC hot = {&t[0].d, &t[1].d, &t[2].d, axis};
    DML_OPERATOR_DESC desc = {kind == 0 ? DML_OPERATOR_REVERSE_SUBSEQUENCES : kind == 1 ? DML_OPERATOR_SLICE1 : DML_OPERATOR_ONE_HOT,
                              kind == 0 ? (const void *)&rev : kind == 1 ? (const void *)&slice : (const void *)&hot};
    if (dmlops_validate_operator(&desc, 0) != DMLOPS_SUCCESS) return 0;
    if (!ctx) {
        dmlops_context_desc cd = {.backend = DMLOPS_BACKEND_CPU};
        if (dmlops_context_create(&cd, &ctx) != DMLOPS_SUCCESS) abort();
    }
    uint32_t n = kind == 1 ? 2 : 3;
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) total += t[i].b.TotalTensorSizeInBytes;
    if (total > (64u << 20)) return 0; /* keep runs fast; layouts, not sizes, are the point */
    dmlops_operator *op = NULL;
    if (dmlops_operator_create(ctx, &desc, &op) != DMLOPS_SUCCESS) abort(); /* validate said yes */
    dmlops_buffer *b[3] = {NULL, NULL, NULL};
    dmlops_binding bind[3];
    for (uint32_t i = 0; i < n; i++) {
        uint64_t bytes = t[i].b.TotalTensorSizeInBytes;
        if (dmlops_buffer_create(ctx, bytes ? bytes : 1, &b[i]) != DMLOPS_SUCCESS) abort();
        bind[i] = (dmlops_binding){b[i], 0, bytes};
    }
    if (dmlops_operator_execute(op, n - 1, bind, 1, &bind[n - 1]) != DMLOPS_SUCCESS) abort();
    for (uint32_t i = 0; i < n; i++) dmlops_buffer_destroy(b[i]);
    dmlops_operator_destroy(op);
    return 0;
}
