/* A backend-neutral description of an operator as a gather: each output element is
 * fetched from a source address computed from its coordinate. Each op_<name>.c lowers
 * itself into one; the CPU engine walks it in row segments (dm_rows below) and the
 * Vulkan planner splits it into pieces that fit the device's binding windows, or into
 * copies of whole rows. Neither backend knows which operator a gather came from: what
 * differs between operators is said here, as data or as a hook the operator provides.
 * Strides and bases are in elements of each binding's tensor. */
#ifndef DM_GATHER_H
#define DM_GATHER_H

#include <stdbool.h>

#include "elements.h"
#include "op.h"

/* The GPU kernel (glsl/<name>.comp) that computes a gather. Backends use it only as an
 * index into their kernels. */
typedef enum dm_kernel { DM_KERNEL_SLICE = 0, DM_KERNEL_REVERSE, DM_KERNEL_ONE_HOT, DM_KERNEL_COUNT } dm_kernel;

/* The four data bindings of a gather kernel (binding 0 holds its parameters). */
enum { DM_SLOT_DST = 0, DM_SLOT_SRC, DM_SLOT_AUX, DM_SLOT_AUX2, DM_SLOT_COUNT };

struct dm_gather;

/* Receives one copy of `bytes` contiguous bytes from SRC byte offset `src` to DST byte
 * offset `dst`, both counted from the start of their binding. */
typedef void (*dm_slab_sink)(void *user, uint64_t src, uint64_t dst, uint64_t bytes);

/* Describes a gather whose rows (all dimensions but the innermost) are contiguous in SRC
 * and DST (dm_gather_rows_contiguous) as one copy per output row, in row-major order.
 * `aux` is the AUX binding's bytes, NULL when the gather binds no AUX. Returns false when
 * the AUX data makes some row something other than one copy; the sink may then have been
 * given part of the rows already. */
typedef bool (*dm_slab_fn)(const struct dm_gather *g, const uint8_t *aux, dm_slab_sink sink, void *user);

typedef struct dm_gather {
    dm_kernel kernel;
    uint32_t esize;                 /* bytes per data element (DST, SRC, AUX2) */
    uint32_t rank;                  /* output dimensions, after collapsing */
    uint32_t size[DM_MAX_RANK];     /* output extents */
    int64_t stride[DM_SLOT_COUNT][DM_MAX_RANK]; /* per slot; 0 where a slot does not move */
    int64_t base[DM_SLOT_COUNT];    /* each slot's element at the output origin */
    int32_t axis;                   /* the output dimension the AUX data speaks of; -1: none */
    uint32_t n;                     /* axis length */
    /* The source window: SRC also reads one of `window` positions, window_stride
     * elements apart, that the AUX data picks for each element (REVERSE: L-1-i or i
     * along the axis, which stride[SRC] leaves out). 0 when the coordinate alone decides
     * the source. A planner may cut the window like a dimension; the kernel then writes
     * only the elements whose source lies in its part. */
    uint32_t window;
    int64_t window_stride;
    uint32_t aux_esize;             /* bytes per AUX element */
    DML_TENSOR_DATA_TYPE aux_dtype; /* the AUX tensor's DataType (lengths, indices) */
    dm_slab_fn slabs;               /* whole-row copies; NULL when rows never are copies */
    int32_t binding[DM_SLOT_COUNT]; /* op binding feeding each slot, -1 if none */
    bool stream;                    /* CPU: write the output with streaming stores */
    dm_isa isa;                     /* CPU: the instruction set of its vector loops
                                       (both decided by the CPU backend at creation) */
    bool rows_cut;                  /* Vulkan: one output row outgrows a binding window in
                                       some slot, so pieces must cut rows, which the flat
                                       walk cannot (decided by the planner) */
    uint32_t tile_lds;              /* Vulkan: the GPU tiles' shared memory in 16-byte vectors,
                                       0 where the device takes none (decided by the planner
                                       from dm_vk_limits); with their workgroup and the
                                       vectors each lane stages */
    uint32_t tile_wg, tile_v;
} dm_gather;

/* How the CPU loops of g move elements (elements.h). */
static inline dm_mode dm_gather_mode(const dm_gather *g) { return (dm_mode){dm_simd_of(g->isa), g->isa, g->stream}; }

/* Merges dimensions that are contiguous in every slot and drops size-1 dimensions, so
 * that kernels index fewer dimensions and copy runs get as long as they can be. The
 * axis is never merged. */
void dm_gather_collapse(dm_gather *g);

/* Reorders the dimensions by decreasing output stride, then collapses again, so that a
 * loop walking the gather row-major writes its output in memory order: into a transposed
 * [N, D] output, ONE_HOT wrote one element per line touched (0.12x numpy) where the
 * reordered [D, N] is a fill and a scatter. The axis moves with its dimension. */
void dm_gather_order_by_output(dm_gather *g);

/* Output elements of the gather: the product of its sizes. */
uint64_t dm_gather_elements(const dm_gather *g);

/* Whether each output row (the innermost dimension at one outer coordinate) is one run
 * of contiguous elements in both DST and SRC, so that rows may be copied whole. */
bool dm_gather_rows_contiguous(const dm_gather *g);

/* The slab hook of affine gathers (SRC = base + sum of coordinate * stride, no AUX):
 * each row's source follows from its coordinate. */
bool dm_gather_affine_slabs(const dm_gather *g, const uint8_t *aux, dm_slab_sink sink, void *user);

/* Walks output elements [e0, e1) (row-major over g->size) as row segments: columns
 * [c0, c1) of the innermost dimension at one outer coordinate. The start is decoded
 * once; later rows step with additions only. */
typedef struct dm_rows {
    const dm_gather *g;
    uint32_t last;                 /* the innermost dimension */
    uint32_t coord[DM_MAX_RANK];   /* of the row; coord[last] is unused */
    int64_t off[DM_SLOT_COUNT];    /* each slot's element offset at column 0 of the row
                                      (g->base not included) */
    uint32_t c0, c1;
    uint64_t left;                 /* elements after this segment */
} dm_rows;

/* Positions r on the first segment; false when the range is empty. */
bool dm_rows_begin(dm_rows *r, const dm_gather *g, uint64_t e0, uint64_t e1);
/* Moves to the next segment; false once the range is exhausted. */
bool dm_rows_next(dm_rows *r);
/* Whole rows from the current segment on (it included) that differ only in the
 * coordinate of dimension last - 1, so that a loop may step through them with that
 * dimension's strides: 1 unless the segment is a whole row of a gather of rank >= 2. */
uint64_t dm_rows_batch(const dm_rows *r);
/* Moves onto the last row of a batch of k (1 <= k <= dm_rows_batch) that the caller has
 * done; dm_rows_next then goes on after it. */
void dm_rows_skip(dm_rows *r, uint64_t k);
/* The source prefetch (elements.h, dm_prefetch_plan) of a walk over g's rows whose
 * source elements are elem_step elements apart: rows along dimension rank - 2. */
dm_prefetch dm_rows_prefetch(const dm_gather *g, int64_t elem_step);
/* Rows this short are done a batch at a time by the CPU loops (dm_copy_rows): below
 * them, deciding how to copy a row (its length, direction and alignment) costs more than
 * copying it (SLICE1 of [N, 3] FLOAT32 with columns reversed ran at 0.8x numpy, 4x
 * slower than now). Rows moved element by element count elements: a 64-element UINT8
 * row reversed a vector at a time ran 2.5x faster than one byte at a time; contiguous
 * rows count bytes, moved as words. */
#define DM_SHORT_ROW_ELEMENTS 16
#define DM_SHORT_ROW_BYTES 64

#endif
