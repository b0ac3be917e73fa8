/* Layer 7 of the Vulkan backend (with vk_pipeline.h): the SPIR-V of each gather kernel,
 * indexed by dm_kernel, and of the compute copy (glsl/copy.comp). */
#ifndef DM_KERNELS_H
#define DM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "../gather.h"

typedef struct dm_spirv {
    const uint32_t *code;
    size_t size; /* bytes */
} dm_spirv;

extern const dm_spirv dm_kernels[DM_KERNEL_COUNT];
extern const dm_spirv dm_copy_kernel;

#endif
