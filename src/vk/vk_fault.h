/* Layer 1 of the Vulkan backend: fault injection into freshly loaded function tables
 * (vk_fault.c, ../fault.h). Inert unless DMLOPS_FAULT_INJECT armed vulkan:N or lost:N. */
#ifndef DM_VK_FAULT_H
#define DM_VK_FAULT_H

#include "vk_functions.h"

void dm_vk_fault_wrap_instance(dm_vk_itable *t);
void dm_vk_fault_wrap_device(dm_vk_dtable *t);
/* The timeline functions, loaded after the rest (dm_vk_load_timeline). */
void dm_vk_fault_wrap_timeline(dm_vk_dtable *t);

#endif
