/* The SPIR-V of glsl/<name>.comp, compiled and validated at build time (Makefile) and
 * embedded here: nothing is read from disk at run time; and what each kernel's fast path
 * covers. */
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

bool dm_kernel_fast(const dm_gather *g)
{
    const uint32_t last = g->rank - 1;
    const int64_t src = g->stride[DM_SLOT_SRC][last], aux = g->stride[DM_SLOT_AUX][last];
    if (g->rank == 0 || g->stride[DM_SLOT_DST][last] != 1) return false;
    switch (g->kernel) {
    case DM_KERNEL_SLICE: /* rows run one element forwards or backwards, or gather (chunk_vec) */
        return src == 1 || src == -1 || (g->esize >= 4 && src != 0) || src == 2;
    case DM_KERNEL_REVERSE: /* one length per row; the axis, or else the row, contiguous in the source */
        return aux == 0 && g->axis >= 0 &&
               ((uint32_t)g->axis == last ? g->window_stride == 1 && src == 0 : src == 1);
    case DM_KERNEL_ONE_HOT: /* one index per row */
        return aux == 0 && g->axis >= 0;
    default:
        return false;
    }
}
