/* Plain operator descriptors that own their tensors, for the tests that need one
 * ordinary REVERSE_SUBSEQUENCES or SLICE1 rather than a generated or hand-shaped one.
 * Do not copy one after its init: the DML structs point into it. Header-only. */
#ifndef DMT_OP_DESCS_H
#define DMT_OP_DESCS_H

#include "harness.h"

typedef struct dmt_reverse {
    dmt_tensor in, len, out;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rd;
    DML_OPERATOR_DESC desc;
} dmt_reverse;

/* Packed input and output of `type` and `sizes`; lengths of len_type with size 1 along
 * the axis, with len_strides (NULL: packed). */
static inline void dmt_reverse_init(dmt_reverse *d, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t *sizes,
                                    uint32_t axis, DML_TENSOR_DATA_TYPE len_type, const uint32_t *len_strides)
{
    uint32_t len_sizes[8];
    memcpy(len_sizes, sizes, rank * sizeof *sizes);
    len_sizes[axis] = 1;
    dmt_tensor_init(&d->in, type, rank, sizes, NULL, 0);
    dmt_tensor_init(&d->len, len_type, rank, len_sizes, len_strides, 0);
    dmt_tensor_init(&d->out, type, rank, sizes, NULL, 0);
    d->rd = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){&d->in.desc, &d->len.desc, &d->out.desc, axis};
    d->desc = (DML_OPERATOR_DESC){DML_OPERATOR_REVERSE_SUBSEQUENCES, &d->rd};
}

typedef struct dmt_slice {
    dmt_tensor in, out;
    uint32_t off[8], win[8];
    int32_t step[8];
    DML_SLICE1_OPERATOR_DESC sd;
    DML_OPERATOR_DESC desc;
} dmt_slice;

/* A packed input of in_sizes and the window of `win` elements at `off`, step 1, copied
 * whole into a packed output. */
static inline void dmt_slice_init(dmt_slice *d, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t *in_sizes,
                                  const uint32_t *off, const uint32_t *win)
{
    for (uint32_t i = 0; i < rank; i++) {
        d->off[i] = off[i];
        d->win[i] = win[i];
        d->step[i] = 1;
    }
    dmt_tensor_init(&d->in, type, rank, in_sizes, NULL, 0);
    dmt_tensor_init(&d->out, type, rank, win, NULL, 0);
    d->sd = (DML_SLICE1_OPERATOR_DESC){&d->in.desc, &d->out.desc, rank, d->off, d->win, d->step};
    d->desc = (DML_OPERATOR_DESC){DML_OPERATOR_SLICE1, &d->sd};
}

#endif
