/* The parameter record a gather kernel reads (binding 0, one per descriptor set) and
 * its push constants. Mirrors the constants at the top of glsl/gather_common.glsl. */
#ifndef DM_VK_ABI_H
#define DM_VK_ABI_H

#include <stdint.h>

enum {
    DM_P_RANK = 0, DM_P_UNITS = 1, DM_P_MODE = 2, DM_P_PER_ROW = 3, DM_P_AXIS = 4, DM_P_AXIS_ORIGIN = 5,
    DM_P_N = 6, DM_P_WIN_LO = 7, DM_P_WIN_HI = 8, DM_P_AUX_TYPE = 9, DM_P_DST_BASE = 10, DM_P_SRC_BASE = 11,
    DM_P_AUX_BASE = 12, DM_P_M = 13, DM_P_AXIS_SRC_STRIDE = 14, DM_P_SIZE = 16, DM_P_DST_STRIDE = 24,
    DM_P_SRC_STRIDE = 32, DM_P_AUX_STRIDE = 40,
    DM_P_WORDS = 64 /* 256 bytes: a multiple of every minStorageBufferOffsetAlignment */
};
enum { DM_MODE_ELEMENT = 0, DM_MODE_VEC = 1 };
#define DM_NO_AXIS 0xffffffffu

typedef struct dm_vk_push {
    uint32_t rem[4]; /* dst, src, aux, aux2 */
} dm_vk_push;

#define DM_VK_WORKGROUP 128u

#endif
