/* Layer 7 of the Vulkan backend (with vk_pipeline.h): the SPIR-V of each gather kernel,
 * indexed by dm_kernel and variant, and of the compute copy (glsl/copy.comp). */
#ifndef DM_KERNELS_H
#define DM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "../gather.h"
#include "vk_abi.h"

typedef struct dm_spirv {
    const uint32_t *code;
    size_t size; /* bytes */
} dm_spirv;

/* Collapsed ranks are served by pipelines for 1, 3 or 7 row dimensions (ROW_DIMS). */
#define DM_ROW_BUCKETS 3

/* dm_kernels[kernel][row bucket][variant][texel]: one module per build-time combination
 * (the general path is variant 0, DM_VARIANT_GENERAL); { NULL, 0 } where the kernel has
 * no such variant (the FLAT ones exist for the first bucket only). */
extern const dm_spirv dm_kernels[DM_KERNEL_COUNT][DM_ROW_BUCKETS][DM_VARIANT_COUNT][2];
/* The same modules of the storage-buffer path (texel 0) built with DM_TRACE: what a
 * tracing context runs (glsl/trace.glsl, DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES). */
extern const dm_spirv dm_kernels_trace[DM_KERNEL_COUNT][DM_ROW_BUCKETS][DM_VARIANT_COUNT];

/* The variant of the kernel's fast path (glsl/gather_main.glsl, FAST; DM_VARIANT_* in
 * vk_abi.h) that covers a collapsed gather, or DM_VARIANT_GENERAL when none does: what
 * each kernel's chunk_vec needs of the layout. texel: the pipeline loads its source
 * vectors from a texel buffer (TEXEL); it picks between variants, never decides whether
 * one covers the gather. */
uint32_t dm_kernel_variant(const dm_gather *g, bool texel);
/* The GPU tiles (glsl/gather_tiles.glsl): the source elements a V_TILES chunk's elements
 * step by (SLICE1's |step|, 1 for REVERSE); and the shared vectors V_TILE_COLUMNS stages
 * for column blocks of `chunks` chunks (g->n rows of chunks + 1 vectors, and the lengths). */
uint32_t dm_kernel_tile_step(const dm_gather *g);
uint32_t dm_kernel_columns_lds(const dm_gather *g, uint32_t chunks);
/* ALIGNED (vk_abi.h): whether every whole chunk of g's output rows takes its source
 * vectors from 16-byte boundaries under the variant, so that each is one load with no
 * funnel shift and no vector carried from the chunk before (SLICE1's STREAM and PAIRS),
 * or each element at a constant word and shift of its source row's vector (REVERSE's COLUMNS,
 * whose axis must then step by a multiple of 16 bytes too). It is decided from g's
 * strides and origin; a piece of a row cut elsewhere stays exact, since the kernel sends
 * a chunk whose source is not aligned element by element. */
bool dm_kernel_src_aligned(const dm_gather *g, uint32_t variant);
/* Whether g's output rows lie end to end (ONE_HOT: any length; SLICE1 and REVERSE: short
 * ones, kernels.c), the layout of the FLAT variants, and each fits a binding window
 * (!g->rows_cut): their pieces hold their rows whole (vk_plan.c). */
bool dm_kernel_rows_packed(const dm_gather *g);
/* Whether a module of the variant runs the unit loop (glsl/gather_main.glsl, units_main:
 * the general path and the fast paths but the flat walks and the GPU tiles). */
bool dm_kernel_units(uint32_t variant);
/* Whether the variant picked for g walks its pieces as streams of whole rows (FLAT,
 * FLAT_ROWS), so that the planner must keep rows whole. */
bool dm_kernel_flat(const dm_gather *g, bool texel);
/* Whether g's kernel, on the texel path, reads AUX as 16-byte texels too (Aux4T, binding
 * DM_BINDING_AUX_VEC_TEXEL): ONE_HOT, and REVERSE's COLUMNS variant. */
bool dm_kernel_aux_vectors(const dm_gather *g);
/* PARTIAL (vk_abi.h): whether the pipeline for g under `variant` stores the part of a
 * chunk whose sources lie in its piece's window, when some piece binds only part of the
 * axis (axis_split): REVERSE's COLUMNS, whose elements each pick their own source row, so
 * that with the axis over several windows nearly every chunk is split between them. */
bool dm_kernel_partial(const dm_gather *g, uint32_t variant, bool axis_split);
/* Whether g's kernel, on the texel path, reads SRC as 4-byte R32_UINT texels too (binding
 * DM_BINDING_SRC_WORD_TEXEL): REVERSE's COLUMNS variant of 1- to 4-byte elements, one
 * texel per element (glsl/reverse.comp, columns_vec). */
bool dm_kernel_src_words(const dm_gather *g);
/* AUX_TYPE (DM_AUX_* in vk_abi.h): how the kernel decodes g's AUX elements; U32 when
 * it binds none. */
uint32_t dm_kernel_aux_type(const dm_gather *g);
extern const dm_spirv dm_copy_kernel, dm_copy_kernel_trace;

#endif
