/* Layer 11 of the Vulkan backend: the table of backend functions (internal.h's
 * dm_backend_vtbl) and the making of contexts that install it. The front end reaches the
 * backend through dm_vk_context_init and dm_vk_enumerate (internal.h) and then the
 * table; interop (layer 12) makes contexts on the application's device with the two
 * functions below. */
#ifndef DM_VK_BACKEND_H
#define DM_VK_BACKEND_H

#include "vk_execute.h"

/* Everything after the device and queue exist, ours or the application's: limits,
 * submission, the dummy binding, pipelines, and the backend table into ctx->vt. */
dmlops_status dm_vk_context_setup(dmlops_context *ctx, dm_vk_ctx *vk, const dm_vk_params *params);
/* Destroys vk and everything it holds, after waiting for a device of ours; also undoes a
 * setup that stopped half-way. */
void dm_vk_context_teardown(dm_vk_ctx *vk);
/* The application's VkAllocationCallbacks (a chained dmlops_vulkan_allocation_callbacks,
 * or NULL), copied into d before anything is created on it; fn names the call. */
dmlops_status dm_vk_take_allocation_callbacks(dm_vk_device *d, const void *chained, const char *fn);

#endif
