/* Element movement and index decoding shared by the operators' CPU semantics. Elements
 * are moved as raw bytes: no operator here does arithmetic on data. */
#include <string.h>

#include "op.h"

#define DM_COPY_LOOP(T)                                                                   \
    for (uint64_t i = 0; i < count; i++, dst += dst_stride * (int64_t)sizeof(T),          \
                  src += src_stride * (int64_t)sizeof(T)) {                               \
        T v;                                                                              \
        memcpy(&v, src, sizeof v);                                                        \
        memcpy(dst, &v, sizeof v);                                                        \
    }

/* A run read backwards into contiguous output: constant strides, so compilers vectorise
 * it (the general loop below has run-time strides and cannot be). */
#define DM_REVERSE_LOOP(T)                                                                \
    for (uint64_t i = 0; i < count; i++) {                                                \
        T v;                                                                              \
        memcpy(&v, src - i * sizeof(T), sizeof v);                                        \
        memcpy(dst + i * sizeof(T), &v, sizeof v);                                        \
    }

void dm_copy_run(uint8_t *dst, int64_t dst_stride, const uint8_t *src, int64_t src_stride,
                 uint64_t count, uint32_t esize)
{
    if (count == 0) return;
    if ((dst_stride == 1 && src_stride == 1) || count == 1) {
        memcpy(dst, src, (size_t)(count * esize));
        return;
    }
    if (dst_stride == 1 && src_stride == -1) {
        switch (esize) {
        case 1: DM_REVERSE_LOOP(uint8_t); return;
        case 2: DM_REVERSE_LOOP(uint16_t); return;
        case 4: DM_REVERSE_LOOP(uint32_t); return;
        default: DM_REVERSE_LOOP(uint64_t); return;
        }
    }
    switch (esize) {
    case 1: DM_COPY_LOOP(uint8_t); break;
    case 2: DM_COPY_LOOP(uint16_t); break;
    case 4: DM_COPY_LOOP(uint32_t); break;
    default: DM_COPY_LOOP(uint64_t); break;
    }
}


static uint64_t dm_load_u64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t dm_load_u32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

uint64_t dm_read_length(DML_TENSOR_DATA_TYPE type, const uint8_t *p, uint64_t n)
{
    uint64_t v;
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT32: v = dm_load_u32(p); break;
    case DML_TENSOR_DATA_TYPE_INT32: {
        int32_t s = (int32_t)dm_load_u32(p);
        v = s < 0 ? 0 : (uint64_t)s; /* a negative length counts as 0 (decision) */
        break;
    }
    case DML_TENSOR_DATA_TYPE_INT64: {
        int64_t s = (int64_t)dm_load_u64(p);
        v = s < 0 ? 0 : (uint64_t)s;
        break;
    }
    default: v = dm_load_u64(p); break; /* UINT64 */
    }
    return v < n ? v : n;
}

int64_t dm_read_index(DML_TENSOR_DATA_TYPE type, const uint8_t *p, uint64_t n)
{
    int64_t k;
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT32: k = dm_load_u32(p); break;
    case DML_TENSOR_DATA_TYPE_INT32: k = (int32_t)dm_load_u32(p); break;
    case DML_TENSOR_DATA_TYPE_INT64: k = (int64_t)dm_load_u64(p); break;
    default: { /* UINT64: never truncated, so anything >= n is out of range */
        uint64_t u = dm_load_u64(p);
        return u < n ? (int64_t)u : -1;
    }
    }
    if (k < 0) {
        if (k < -(int64_t)n) return -1;
        k += (int64_t)n;
    }
    return k < (int64_t)n ? k : -1;
}

void dm_op_run_cpu(const dm_op *op, uint8_t *const *base)
{
    switch (op->type) {
    case DML_OPERATOR_REVERSE_SUBSEQUENCES: dm_reverse_run_cpu(op, base); break;
    case DML_OPERATOR_SLICE1: dm_slice_run_cpu(op, base); break;
    default: dm_one_hot_run_cpu(op, base); break;
    }
}
