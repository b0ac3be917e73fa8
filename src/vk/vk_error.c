/* VkResult to dmlops_status, with messages naming the call, the result and what the
 * library was doing (vk_error.h). */
#include "vk_error.h"

const char *dm_vk_result_name(VkResult r)
{
    switch (r) {
#define DM_CASE(x) case x: return #x;
    DM_CASE(VK_SUCCESS) DM_CASE(VK_NOT_READY) DM_CASE(VK_TIMEOUT) DM_CASE(VK_INCOMPLETE)
    DM_CASE(VK_ERROR_OUT_OF_HOST_MEMORY) DM_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    DM_CASE(VK_ERROR_INITIALIZATION_FAILED) DM_CASE(VK_ERROR_DEVICE_LOST) DM_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    DM_CASE(VK_ERROR_LAYER_NOT_PRESENT) DM_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    DM_CASE(VK_ERROR_FEATURE_NOT_PRESENT) DM_CASE(VK_ERROR_INCOMPATIBLE_DRIVER) DM_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    DM_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED) DM_CASE(VK_ERROR_FRAGMENTED_POOL) DM_CASE(VK_ERROR_UNKNOWN)
    DM_CASE(VK_ERROR_OUT_OF_POOL_MEMORY) DM_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE) DM_CASE(VK_ERROR_FRAGMENTATION)
    DM_CASE(VK_PIPELINE_COMPILE_REQUIRED)
#undef DM_CASE
    default: return "VK_ERROR_(unknown)";
    }
}

dmlops_status dm_vk_fail(_Atomic bool *lost, VkResult r, const char *call, const char *what)
{
    dmlops_status st;
    switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY: st = DMLOPS_ERROR_OUT_OF_HOST_MEMORY; break;
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_FRAGMENTED_POOL:
    case VK_ERROR_TOO_MANY_OBJECTS: st = DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY; break;
    case VK_ERROR_DEVICE_LOST:
        st = DMLOPS_ERROR_DEVICE_LOST;
        if (lost) *lost = true;
        break;
    default: st = DMLOPS_ERROR_BACKEND; break;
    }
    return dm_fail(st, "%s: %s failed: %s (%d)", what, call, dm_vk_result_name(r), (int)r);
}
