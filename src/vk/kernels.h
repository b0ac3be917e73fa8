/* Layer 7 of the Vulkan backend (with vk_pipeline.h): the SPIR-V of each gather kernel,
 * indexed by dm_kernel and variant, and of the compute copy (glsl/copy.comp). */
#ifndef DM_KERNELS_H
#define DM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "../gather.h"

typedef struct dm_spirv {
    const uint32_t *code;
    size_t size; /* bytes */
} dm_spirv;

/* Collapsed ranks are served by pipelines for 1, 3 or 7 row dimensions (ROW_DIMS). */
#define DM_ROW_BUCKETS 3

/* dm_kernels[kernel][row bucket][fast][texel]: one module per build-time variant. */
extern const dm_spirv dm_kernels[DM_KERNEL_COUNT][DM_ROW_BUCKETS][2][2];

/* Whether the kernel's fast path (glsl/gather_main.glsl, FAST) covers a collapsed gather
 * whose output rows are contiguous: what each kernel's chunk_vec needs of the layout. */
bool dm_kernel_fast(const dm_gather *g);
extern const dm_spirv dm_copy_kernel;

#endif
