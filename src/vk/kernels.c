/* The SPIR-V of glsl/<name>.comp, compiled and validated at build time (Makefile) and
 * embedded here: nothing is read from disk at run time. */
#include "kernels.h"

#include "copy.h"
#include "one_hot.h"
#include "reverse.h"
#include "slice.h"

const dm_spirv dm_kernels[DM_KERNEL_COUNT] = {
    [DM_KERNEL_SLICE] = {dm_spv_slice, sizeof dm_spv_slice},
    [DM_KERNEL_REVERSE] = {dm_spv_reverse, sizeof dm_spv_reverse},
    [DM_KERNEL_ONE_HOT] = {dm_spv_one_hot, sizeof dm_spv_one_hot},
};

const dm_spirv dm_copy_kernel = {dm_spv_copy, sizeof dm_spv_copy};
