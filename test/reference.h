/* reference.h - a deliberately naive, element-by-element reference of the three operators,
 * written from the specification in docs/operators.md alone. It shares no code with
 * the library: every output coordinate is visited with an odometer, its byte address is
 * computed from the strides, and its source element is computed with the spec's formulas.
 * Slow on purpose; only meant for small test tensors. Header-only (static inline). */
#ifndef DMT_REFERENCE_H
#define DMT_REFERENCE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dmlops.h"

typedef struct ref_tensor {
    DML_TENSOR_DATA_TYPE type;
    uint32_t esize, rank;
    uint32_t sizes[8];
    uint64_t strides[8]; /* in elements; NULL strides are resolved to packed row-major */
    uint64_t count;
} ref_tensor;

static inline uint32_t ref_element_size(DML_TENSOR_DATA_TYPE type)
{
    switch (type) {
    case DML_TENSOR_DATA_TYPE_INT8:
    case DML_TENSOR_DATA_TYPE_UINT8: return 1;
    case DML_TENSOR_DATA_TYPE_FLOAT16:
    case DML_TENSOR_DATA_TYPE_INT16:
    case DML_TENSOR_DATA_TYPE_UINT16: return 2;
    case DML_TENSOR_DATA_TYPE_FLOAT32:
    case DML_TENSOR_DATA_TYPE_INT32:
    case DML_TENSOR_DATA_TYPE_UINT32: return 4;
    case DML_TENSOR_DATA_TYPE_FLOAT64:
    case DML_TENSOR_DATA_TYPE_INT64:
    case DML_TENSOR_DATA_TYPE_UINT64: return 8;
    default: return 0;
    }
}

static inline ref_tensor ref_tensor_of(const DML_BUFFER_TENSOR_DESC *d)
{
    ref_tensor t;
    memset(&t, 0, sizeof t);
    t.type = d->DataType;
    t.esize = ref_element_size(d->DataType);
    t.rank = d->DimensionCount;
    t.count = 1;
    for (uint32_t i = 0; i < t.rank; i++) {
        t.sizes[i] = d->Sizes[i];
        t.count *= d->Sizes[i];
    }
    uint64_t packed = 1; /* the last dimension has stride 1 */
    for (uint32_t i = t.rank; i-- > 0;) {
        t.strides[i] = d->Strides ? d->Strides[i] : packed;
        packed *= t.sizes[i];
    }
    return t;
}

/* The spec's minimum size: (sum((Sizes[i]-1) * Strides[i]) + 1) * ElementSize, rounded
 * up to a multiple of 4 (strides resolved, so this covers the packed case too). */
static inline uint64_t ref_min_bytes(const ref_tensor *t)
{
    uint64_t last = 0;
    for (uint32_t i = 0; i < t->rank; i++) last += (uint64_t)(t->sizes[i] - 1) * t->strides[i];
    uint64_t bytes = (last + 1) * t->esize;
    return (bytes + 3) / 4 * 4;
}

/* Byte address of coordinate c: ElementSize * sum(c[i] * Strides[i]). */
static inline uint64_t ref_byte_offset(const ref_tensor *t, const uint32_t *c)
{
    uint64_t e = 0;
    for (uint32_t d = 0; d < t->rank; d++) e += (uint64_t)c[d] * t->strides[d];
    return e * t->esize;
}

/* Advances c (last dimension fastest); false after the last coordinate. */
static inline bool ref_odometer_next(uint32_t rank, const uint32_t *sizes, uint32_t *c)
{
    for (uint32_t d = rank; d-- > 0;) {
        if (++c[d] < sizes[d]) return true;
        c[d] = 0;
    }
    return false;
}

/* REVERSE_SUBSEQUENCES length: read per type, negative counts as 0, clamped to n. */
static inline uint64_t ref_decode_length(DML_TENSOR_DATA_TYPE type, const uint8_t *p, uint64_t n)
{
    uint64_t len = 0;
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT32: {
        uint32_t v;
        memcpy(&v, p, 4);
        len = v;
        break;
    }
    case DML_TENSOR_DATA_TYPE_UINT64: {
        uint64_t v;
        memcpy(&v, p, 8);
        len = v;
        break;
    }
    case DML_TENSOR_DATA_TYPE_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        len = v < 0 ? 0 : (uint64_t)v;
        break;
    }
    case DML_TENSOR_DATA_TYPE_INT64: {
        int64_t v;
        memcpy(&v, p, 8);
        len = v < 0 ? 0 : (uint64_t)v;
        break;
    }
    default: break;
    }
    return len > n ? n : len;
}

/* ONE_HOT index: the position in [0, n), or -1 when the index is out of range. A signed
 * k < 0 means k + n; nothing is ever truncated to 32 bits. */
static inline int64_t ref_decode_index(DML_TENSOR_DATA_TYPE type, const uint8_t *p, uint64_t n)
{
    switch (type) {
    case DML_TENSOR_DATA_TYPE_UINT32: {
        uint32_t v;
        memcpy(&v, p, 4);
        return (uint64_t)v < n ? (int64_t)v : -1;
    }
    case DML_TENSOR_DATA_TYPE_UINT64: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v < n ? (int64_t)v : -1;
    }
    case DML_TENSOR_DATA_TYPE_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        int64_t k = v < 0 ? (int64_t)v + (int64_t)n : (int64_t)v;
        return k >= 0 && k < (int64_t)n ? k : -1;
    }
    case DML_TENSOR_DATA_TYPE_INT64: {
        int64_t v;
        memcpy(&v, p, 8);
        if (v < 0) {
            if (v < -(int64_t)n) return -1; /* also INT64_MIN: never computes v + n first */
            return v + (int64_t)n;
        }
        return v < (int64_t)n ? v : -1;
    }
    default: return -1;
    }
}

/* out[..i..] = in[..L-1-i..] for i < L, else in[..i..]; L from lengths at axis 0. */
static inline void ref_reverse_subsequences(const ref_tensor *in, const uint8_t *in_base, const ref_tensor *len,
                                            const uint8_t *len_base, const ref_tensor *out, uint8_t *out_base,
                                            uint32_t axis)
{
    uint32_t c[8] = {0}, lc[8], src[8];
    const uint64_t n = in->sizes[axis];
    do {
        memcpy(lc, c, sizeof lc);
        lc[axis] = 0;
        uint64_t length = ref_decode_length(len->type, len_base + ref_byte_offset(len, lc), n);
        memcpy(src, c, sizeof src);
        if (c[axis] < length) src[axis] = (uint32_t)(length - 1 - c[axis]);
        memcpy(out_base + ref_byte_offset(out, c), in_base + ref_byte_offset(in, src), out->esize);
    } while (ref_odometer_next(out->rank, out->sizes, c));
}

/* in coordinate d = Offsets[d] + (Strides[d] < 0 ? WindowSizes[d] - 1 : 0) + Strides[d] * c[d]. */
static inline void ref_slice1(const ref_tensor *in, const uint8_t *in_base, const ref_tensor *out, uint8_t *out_base,
                              const uint32_t *offsets, const uint32_t *window_sizes, const int32_t *window_strides)
{
    uint32_t c[8] = {0}, src[8] = {0};
    do {
        for (uint32_t d = 0; d < out->rank; d++) {
            int64_t start = (int64_t)offsets[d] + (window_strides[d] < 0 ? (int64_t)window_sizes[d] - 1 : 0);
            src[d] = (uint32_t)(start + (int64_t)window_strides[d] * (int64_t)c[d]);
        }
        memcpy(out_base + ref_byte_offset(out, c), in_base + ref_byte_offset(in, src), out->esize);
    } while (ref_odometer_next(out->rank, out->sizes, c));
}

/* OffValue: Values at coordinate 0; OnValue: coordinate 1 along the highest-numbered
 * dimension of Values whose size is > 1. */
static inline void ref_one_hot(const ref_tensor *idx, const uint8_t *idx_base, const ref_tensor *val,
                               const uint8_t *val_base, const ref_tensor *out, uint8_t *out_base, uint32_t axis)
{
    uint32_t c[8] = {0}, ic[8], on_c[8] = {0};
    for (uint32_t d = val->rank; d-- > 0;)
        if (val->sizes[d] > 1) {
            on_c[d] = 1;
            break;
        }
    const uint8_t *off_p = val_base; /* coordinate all-zeros is byte 0 */
    const uint8_t *on_p = val_base + ref_byte_offset(val, on_c);
    const uint64_t n = out->sizes[axis];
    do {
        memcpy(ic, c, sizeof ic);
        ic[axis] = 0;
        int64_t k = ref_decode_index(idx->type, idx_base + ref_byte_offset(idx, ic), n);
        bool on = k >= 0 && (int64_t)c[axis] == k;
        memcpy(out_base + ref_byte_offset(out, c), on ? on_p : off_p, out->esize);
    } while (ref_odometer_next(out->rank, out->sizes, c));
}

#endif
