/* Layer 8 of the Vulkan backend: planning. Turns a gather (gather.h) into pieces whose
 * bindings each fit one storage-buffer window, with the parameter record of each, or
 * into vkCmdCopyBuffer regions when it is whole-row copies. Pure: it reads the device's
 * limits and writes host memory only; creating the parameter buffer and the pipeline is
 * the caller's (vk_execute.c). It knows no operator: everything it needs is in the
 * gather. */
#ifndef DM_VK_PLAN_H
#define DM_VK_PLAN_H

#include "../gather.h"
#include "vk_physical.h"

typedef struct dm_vk_span {
    uint64_t lo, hi;           /* bytes from the tensor's binding offset; hi == 0: unused */
} dm_vk_span;

typedef struct dm_vk_piece {
    dm_vk_span span[DM_SLOT_COUNT];
    uint64_t units;
    uint64_t runs;             /* invocations' worth of work: units in runs of RUN per row */
    uint32_t groups;           /* workgroups of each of its dispatches (the last may have fewer) */
    uint32_t vgroups;          /* workgroups of its virtual grid, which ceil(vgroups / groups)
                                  dispatches run in turn (dm_vk_piece_grid) */
} dm_vk_piece;

typedef struct dm_vk_plan {
    dm_gather g;
    dm_vk_piece *pieces;
    uint32_t npieces;
    uint32_t *params;          /* DM_P_WORDS words per piece (vk_abi.h) */
    VkBufferCopy *regions;     /* the copy path, offsets relative to the bindings */
    uint32_t nregions;
    bool use_copy;             /* planned for the copy path */
    bool texel;                /* planned for the texel path (dm_vk_path_limits) */
    bool fast;                 /* the kernel's fast path (FAST) covers the gather */
    bool axis_split;           /* some piece binds only part of REVERSE's axis (several
                                  source windows over one output: PARTIAL) */
    uint32_t slab_rows;        /* rows of a gather whose row copies depend on its AUX data:
                                  regions are built per execution (0: never) */
} dm_vk_plan;

/* Where each slot's tensor starts in its buffer, and that buffer's segment size (0: one). */
typedef struct dm_vk_segments {
    uint64_t base[DM_SLOT_COUNT];
    uint64_t seg_size[DM_SLOT_COUNT];
} dm_vk_segments;

/* The RUN and LANES a kernel pipeline for g is specialised with under `variant` (the
 * device's, except below), and that the planner sizes its grid by. On GPUs (wide_rows)
 * output rows of 1 KiB or more on the fast path along the rows (SLICE1's STREAM,
 * REVERSE's and ONE_HOT's ALONG) take runs of 8 chunks shared by 32 lanes, neighbouring
 * lanes on neighbouring chunks (gather_main.glsl). Measured on the NVIDIA H200 (64 MiB,
 * x the compute copy, one run each against three of the defaults, every type): ONE_HOT
 * depth 1024 0.40-0.58 -> 0.73-0.82, REVERSE along rows 0.58-0.80 -> 0.67-0.86, SLICE1
 * stride -1 0.74-0.95 -> 0.86-0.93, stride 1 unchanged; the other paths lost that way
 * (SLICE1 step 2 0.65-0.78 -> 0.61-0.66; ONE_HOT depth 16 and REVERSE across rows with a
 * length per column 2-4x slower), so they keep one chunk per invocation. */
void dm_vk_unit_shape(const dm_vk_limits *lim, const dm_gather *g, uint32_t variant, uint32_t *run, uint32_t *lanes);

/* vk_grid.c: the grid of piece p, whose parameter record is `record`, under the module's
 * variant and the pipeline's RUN and LANES (dm_vk_unit_shape): p->groups, the workgroups
 * of one dispatch (the device class's grid, DMLOPS_VK_GRID and maxComputeWorkGroupCount),
 * and p->vgroups, the virtual grid the kernel strides over (glsl/gather_common.glsl,
 * grid_group), large enough that no invocation loops more than lavapipe's limit allows
 * (65535 iterations in all) and no dispatch writes more than 256 MiB, whatever the tuning
 * and the tensor (issue 45). p->runs and p->span set. */
void dm_vk_piece_grid(const dm_vk_limits *lim, const dm_gather *g, uint32_t variant, uint32_t run, uint32_t lanes,
                      const uint32_t *record, dm_vk_piece *p);
/* The dispatches n pieces take (ceil(vgroups / groups) each). */
uint64_t dm_vk_plan_dispatches(const dm_vk_piece *pieces, uint32_t n);

/* The limits of one path: the texel path's windows are the smaller of the storage and
 * texel limits; texel is false where the device takes no texel path. */
dm_vk_limits dm_vk_path_limits(const dm_vk_limits *lim, bool texel);
/* Plans a collapsed gather, on the texel path where the device takes it and it needs no
 * more dispatches than storage buffers (plan->texel), else on storage buffers. On
 * failure nothing is left to free. */
dmlops_status dm_vk_plan_gather(const dm_vk_limits *lim, const dm_gather *g, dm_vk_plan *plan);
/* Pieces whose windows also stay inside the segments of `segs` (lim: the plan's path's,
 * dm_vk_path_limits), their parameter records (malloc'd), and whether they split
 * REVERSE's axis (dm_vk_plan.axis_split). */
dmlops_status dm_vk_plan_segments(const dm_vk_limits *lim, const dm_gather *g, const dm_vk_segments *segs,
                                  dm_vk_piece **pieces, uint32_t **params, uint32_t *npieces, bool *axis_split);
void dm_vk_plan_free(dm_vk_plan *plan);

/* Copy regions being gathered from a dm_slab_fn: each slab offset by the bindings' byte
 * offsets, and merged with the one before when both sides continue it. */
typedef struct dm_vk_regions {
    VkBufferCopy *r;
    uint32_t n, cap;
    uint64_t src_base, dst_base;
    bool full;                 /* a slab found no room: the regions are incomplete */
} dm_vk_regions;
void dm_vk_regions_add(void *regions, uint64_t src, uint64_t dst, uint64_t bytes); /* a dm_slab_sink */

/* The compute copy (glsl/copy.comp): the most bytes one dispatch moves, a multiple of 16
 * whose windows, bound at their aligned-down starts, fit maxStorageBufferRange; and the
 * workgroups of a dispatch of `shape` (fields set, vk_list) moving `bytes`: its count, or
 * as many as move them in one step, at most 65535 and the device's limit. */
uint64_t dm_vk_copy_window(const dm_vk_limits *lim);
/* Whether the compute copy's windows fit texel views, so that it may read through them. */
bool dm_vk_copy_texel(const dm_vk_limits *lim);
uint32_t dm_vk_copy_groups(const dm_vk_limits *lim, uint64_t bytes, const dmlops_compute_copy_shape *shape);

#endif
