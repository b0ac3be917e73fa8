#include "internal.h"
dmlops_status dm_vk_context_init(dmlops_context *ctx, const dm_vk_params *params)
{ (void)ctx; (void)params; return dm_fail(DMLOPS_ERROR_NO_DEVICE, "Vulkan backend not built"); }
dmlops_status dm_vk_enumerate(dmlops_device_info *infos, uint32_t *count)
{ (void)infos; *count = 0; return dm_fail(DMLOPS_ERROR_NO_DEVICE, "Vulkan backend not built"); }
