/* A backend-neutral description of an operator as a gather: each output element is
 * fetched from a source address computed from its coordinate. Each op_<name>.c lowers
 * itself into one; the CPU engine walks it in row segments (dm_rows below) and the
 * Vulkan backend splits it into pieces that fit the device's binding windows. Strides
 * are in elements of each binding's tensor. */
#ifndef DM_GATHER_H
#define DM_GATHER_H

#include <stdbool.h>

#include "op.h"

typedef enum dm_kernel { DM_KERNEL_SLICE = 0, DM_KERNEL_REVERSE, DM_KERNEL_ONE_HOT, DM_KERNEL_COUNT } dm_kernel;

/* The four data bindings of a gather kernel (binding 0 holds its parameters). */
enum { DM_SLOT_DST = 0, DM_SLOT_SRC, DM_SLOT_AUX, DM_SLOT_AUX2, DM_SLOT_COUNT };

/* Element type of the aux binding (lengths, indices); values match the shaders. */
enum { DM_AUX_U32 = 0, DM_AUX_I32 = 1, DM_AUX_U64 = 2, DM_AUX_I64 = 3 };

typedef struct dm_gather {
    dm_kernel kernel;
    uint32_t esize;                 /* bytes per data element */
    uint32_t rank;                  /* output dimensions, after collapsing */
    uint32_t size[DM_MAX_RANK];     /* output extents */
    int64_t stride[DM_SLOT_COUNT][DM_MAX_RANK]; /* per slot; 0 where a slot does not move */
    int64_t src_base;               /* SLICE: source element of the output origin */
    int32_t axis;                   /* REVERSE, ONE_HOT: output axis; -1 for SLICE */
    uint32_t n;                     /* axis length */
    int64_t axis_src_stride;        /* REVERSE: source stride along the axis (the row
                                       offsets in stride[SRC] leave the axis out) */
    uint32_t aux_type, aux_esize;   /* DM_AUX_*, bytes */
    DML_TENSOR_DATA_TYPE aux_dtype; /* the aux tensor's DataType (lengths, indices) */
    uint64_t aux2_offset;           /* ONE_HOT: element offset of OnValue (aux2) */
    int32_t binding[DM_SLOT_COUNT]; /* op binding feeding each slot, -1 if none */
    bool stream;                    /* CPU: write the output with streaming stores
                                       (decided by the CPU backend at creation) */
} dm_gather;

/* Merges dimensions that are contiguous in every slot and drops size-1 dimensions, so
 * that kernels index fewer dimensions and copy runs get as long as they can be. The
 * axis is never merged. */
void dm_gather_collapse(dm_gather *g);

/* Output elements of the gather: the product of its sizes. */
uint64_t dm_gather_elements(const dm_gather *g);

uint32_t dm_aux_type(DML_TENSOR_DATA_TYPE type);

/* Walks output elements [e0, e1) (row-major over g->size) as row segments: columns
 * [c0, c1) of the innermost dimension at one outer coordinate. The start is decoded
 * once; later rows step with additions only. */
typedef struct dm_rows {
    const dm_gather *g;
    uint32_t last;                 /* the innermost dimension */
    uint32_t coord[DM_MAX_RANK];   /* of the row; coord[last] is unused */
    int64_t off[DM_SLOT_COUNT];    /* each slot's element offset at column 0 of the row
                                      (src_base and aux2_offset not included) */
    uint32_t c0, c1;
    uint64_t left;                 /* elements after this segment */
} dm_rows;

/* Positions r on the first segment; false when the range is empty. */
bool dm_rows_begin(dm_rows *r, const dm_gather *g, uint64_t e0, uint64_t e1);
/* Moves to the next segment; false once the range is exhausted. */
bool dm_rows_next(dm_rows *r);

#endif
