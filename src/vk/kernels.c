/* The SPIR-V of glsl/<name>.comp, compiled, optimised and validated at build time
 * (Makefile) and embedded here: nothing is read from disk at run time; and what each
 * kernel's fast path covers. */
#include "kernels.h"

#include "copy.h"
#include "one_hot.h"
#include "reverse.h"
#include "slice.h"

/* The module of kernel k for ROW_DIMS r, FAST f and TEXEL t (gather_common.glsl). */
#define DM_MODULE(k, r, f, t) {dm_spv_##k##_r##r##_f##f##_t##t, sizeof dm_spv_##k##_r##r##_f##f##_t##t}
#define DM_ROW_BUCKET(k, r) {{DM_MODULE(k, r, 0, 0), DM_MODULE(k, r, 0, 1)}, {DM_MODULE(k, r, 1, 0), DM_MODULE(k, r, 1, 1)}}
#define DM_KERNEL_MODULES(k) {DM_ROW_BUCKET(k, 1), DM_ROW_BUCKET(k, 3), DM_ROW_BUCKET(k, 7)}

const dm_spirv dm_kernels[DM_KERNEL_COUNT][DM_ROW_BUCKETS][2][2] = {
    [DM_KERNEL_SLICE] = DM_KERNEL_MODULES(slice),
    [DM_KERNEL_REVERSE] = DM_KERNEL_MODULES(reverse),
    [DM_KERNEL_ONE_HOT] = DM_KERNEL_MODULES(one_hot),
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
