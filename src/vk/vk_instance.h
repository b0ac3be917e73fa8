/* Layer 2 of the Vulkan backend: the loader and the instance. The loader is opened once
 * per process through a private copy of volk (only volkInitialize); everything else is
 * loaded per instance (vk_functions.h). */
#ifndef DM_VK_INSTANCE_H
#define DM_VK_INSTANCE_H

#include <stdatomic.h>

#include "vk_error.h"

typedef struct dm_vk_instance {
    /* Set before dm_vk_instance_create: the application's vkGetInstanceProcAddr
     * (dmlops_context_options.vulkan_loader); NULL takes the system loader. */
    PFN_vkGetInstanceProcAddr loader;
    dm_vk_itable vki;
    VkInstance instance;
    bool owned;                         /* created here: destroyed with the context */
    VkDebugUtilsMessengerEXT messenger; /* DMLOPS_CONTEXT_FLAG_DEBUG */
    atomic_uint debug_count;            /* validation warnings and errors so far */
    bool quiet;                         /* count them without printing */
    const dmlops_log_callback *log;     /* the context's, where validation messages go instead of
                                           stderr (set before creation), or NULL */
    const void *log_object;             /* the dmlops_context they are about */
    uint32_t api_version;               /* the instance's apiVersion: what device functions may be used */
    const VkAllocationCallbacks *alloc; /* the application's, for an instance of ours (set before creation) */
} dm_vk_instance;

/* The loader's vkGetInstanceProcAddr; NO_DEVICE (with the reason) without a loader. */
dmlops_status dm_vk_loader(PFN_vkGetInstanceProcAddr *gipa);

/* Creates a Vulkan 1.1 instance through inst->loader, else the system loader; with debug, the Khronos validation layer and a
 * messenger counting into inst->debug_count (so inst must not move afterwards). */
dmlops_status dm_vk_instance_create(bool debug, bool quiet, dm_vk_instance *inst);
/* An application's instance: only its functions are loaded; it is never destroyed here. */
void dm_vk_instance_adopt(PFN_vkGetInstanceProcAddr gipa, VkInstance instance, dm_vk_instance *inst);
void dm_vk_instance_destroy(dm_vk_instance *inst);

/* Calls a Vulkan enumeration (count, then records) through `list`, and says whether
 * one of the records starts with the name `name`: layer and extension properties both
 * begin with a char[VK_MAX_EXTENSION_NAME_SIZE] name. */
typedef VkResult (*dm_vk_list_fn)(const void *user, uint32_t *count, void *records);
bool dm_vk_listed(dm_vk_list_fn list, const void *user, size_t record_size, const char *name);
/* The same with the failure told apart: 1 listed, 0 not listed, -1 out of memory. */
int dm_vk_lookup(dm_vk_list_fn list, const void *user, size_t record_size, const char *name);

#endif
