/* Layer 1 of the Vulkan backend: VkResult to dmlops_status, with messages naming the
 * call, the result and what the library was doing. */
#ifndef DM_VK_ERROR_H
#define DM_VK_ERROR_H

#include <stdatomic.h>
#include <stdbool.h>

#include "vk_functions.h" /* first: volk.h before dmlops.h */
#include "../status.h"

const char *dm_vk_result_name(VkResult r);

/* Sets the message "what: call failed: VK_ERROR_X (n)" and returns the status r maps to.
 * VK_ERROR_DEVICE_LOST also sets *lost (when lost is not NULL): a lost device poisons
 * the context that owns the flag. */
dmlops_status dm_vk_fail(_Atomic bool *lost, VkResult r, const char *call, const char *what);

/* Calls dev->vkd.<call> args and returns the failure from the enclosing function. dev is
 * anything with a device table `vkd` and a `lost` flag (a dm_vk_device). */
#define DM_VK_CALL(dev, what, call, args)                                                 \
    do {                                                                                  \
        VkResult dm_vk_r_ = (dev)->vkd.call args;                                         \
        if (dm_vk_r_ != VK_SUCCESS) return dm_vk_fail(&(dev)->lost, dm_vk_r_, "vk" #call, (what)); \
    } while (0)

#endif
