/* The loader (through volk) and instances (vk_instance.h). */
#include "../platform/platform.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_instance.h"
#include "../fault.h"

static dm_once_flag dm_volk_once = DM_ONCE_INIT;
static VkResult dm_volk_result = VK_ERROR_INITIALIZATION_FAILED;
static PFN_vkGetInstanceProcAddr dm_volk_gipa;

static void dm_volk_init(void)
{
    dm_volk_result = volkInitialize();
    if (dm_volk_result == VK_SUCCESS) dm_volk_gipa = vkGetInstanceProcAddr; /* our private volk's */
}

dmlops_status dm_vk_loader(PFN_vkGetInstanceProcAddr *gipa)
{
    dm_once(&dm_volk_once, dm_volk_init);
    if (dm_volk_result != VK_SUCCESS || !dm_volk_gipa)
        return dm_fail(DMLOPS_ERROR_NO_DEVICE,
                       "no Vulkan loader: %s could not be loaded (install the Vulkan loader and a driver; Debian: "
                       "libvulkan1 and mesa-vulkan-drivers), or pass one in dmlops_context_options.vulkan_loader",
                       dm_vulkan_loader_name());
    *gipa = dm_volk_gipa;
    return DMLOPS_SUCCESS;
}

int dm_vk_lookup(dm_vk_list_fn list, const void *user, size_t record_size, const char *name)
{
    uint32_t n = 0;
    int found = 0;
    VkResult r = list(user, &n, NULL);
    if (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY) return -1;
    if (r != VK_SUCCESS || !n) return 0;
    char *records = dm_calloc(n, record_size);
    if (!records) return -1;
    r = list(user, &n, records);
    if (r == VK_SUCCESS || r == VK_INCOMPLETE)
        for (uint32_t i = 0; i < n && !found; i++) found = !strcmp(records + (size_t)i * record_size, name);
    else if (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
        found = -1;
    free(records);
    return found;
}

bool dm_vk_listed(dm_vk_list_fn list, const void *user, size_t record_size, const char *name)
{
    return dm_vk_lookup(list, user, record_size, name) == 1;
}

static VkResult dm_list_layers(const void *user, uint32_t *n, void *records)
{
    return (*(const PFN_vkEnumerateInstanceLayerProperties *)user)(n, records);
}

static VkResult dm_list_instance_extensions(const void *user, uint32_t *n, void *records)
{
    return (*(const PFN_vkEnumerateInstanceExtensionProperties *)user)(NULL, n, records);
}

static VKAPI_ATTR VkBool32 VKAPI_CALL dm_vk_debug_cb(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT types,
                                                     const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    dm_vk_instance *inst = user;
    (void)types;
    if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
        atomic_fetch_add(&inst->debug_count, 1);
        const bool error = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) != 0;
        const dmlops_log_severity level = error ? DMLOPS_LOG_ERROR : DMLOPS_LOG_WARNING;
        if (inst->log && level >= inst->log->min_severity)
            inst->log->callback(inst->log->user_data, level, DMLOPS_LOG_OBJECT_VULKAN, inst->log_object, data->pMessage);
        else if (!inst->log && !inst->quiet)
            fprintf(stderr, "dmlops: Vulkan validation: %s\n", data->pMessage);
    }
    return VK_FALSE;
}

dmlops_status dm_vk_instance_create(bool debug, bool quiet, dm_vk_instance *inst)
{
    PFN_vkGetInstanceProcAddr gipa = inst->loader;
    inst->quiet = quiet;
    if (!gipa) DM_TRY(dm_vk_loader(&gipa));
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
    PFN_vkEnumerateInstanceVersion version = (PFN_vkEnumerateInstanceVersion)gipa(NULL, "vkEnumerateInstanceVersion");
    PFN_vkEnumerateInstanceLayerProperties layers =
        (PFN_vkEnumerateInstanceLayerProperties)gipa(NULL, "vkEnumerateInstanceLayerProperties");
    PFN_vkEnumerateInstanceExtensionProperties exts =
        (PFN_vkEnumerateInstanceExtensionProperties)gipa(NULL, "vkEnumerateInstanceExtensionProperties");
    uint32_t api = VK_API_VERSION_1_0; /* a loader without vkEnumerateInstanceVersion is 1.0 */
    if (!create || !layers || !exts)
        return dm_fail(DMLOPS_ERROR_NO_DEVICE, "the Vulkan loader lacks vkCreateInstance");
    if (version) {
        const VkResult r = version(&api);
        if (r != VK_SUCCESS) return dm_vk_fail(NULL, r, "vkEnumerateInstanceVersion", "asking the loader's version");
    }
    if (api < VK_API_VERSION_1_1)
        return dm_fail(DMLOPS_ERROR_NO_DEVICE, "the Vulkan loader supports only Vulkan %u.%u; libdmlops needs 1.1",
                       VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api));

    const char *layer_names[1], *ext_names[2];
    uint32_t nlayers = 0, nexts = 0;
    VkInstanceCreateFlags flags = 0;
    const size_t ext_size = sizeof(VkExtensionProperties);
    const int portability =
        dm_vk_lookup(dm_list_instance_extensions, &exts, ext_size, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    if (portability < 0) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "listing the Vulkan extensions: out of host memory");
    if (portability) {
        ext_names[nexts++] = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
        flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }
    if (debug) {
        const int has = dm_vk_lookup(dm_list_layers, &layers, sizeof(VkLayerProperties), "VK_LAYER_KHRONOS_validation");
        if (has < 0) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "listing the Vulkan layers: out of host memory");
        if (!has)
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                           "DMLOPS_CONTEXT_FLAG_DEBUG needs the Khronos validation layer "
                           "(VK_LAYER_KHRONOS_validation; Debian: apt-get install vulkan-validationlayers)");
        const int utils = dm_vk_lookup(dm_list_instance_extensions, &exts, ext_size, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        if (utils < 0) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "listing the Vulkan extensions: out of host memory");
        if (!utils) return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "DMLOPS_CONTEXT_FLAG_DEBUG needs VK_EXT_debug_utils");
        layer_names[nlayers++] = "VK_LAYER_KHRONOS_validation";
        ext_names[nexts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    }
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "libdmlops",
        .pEngineName = "libdmlops",
        .engineVersion = VK_MAKE_API_VERSION(0, DMLOPS_VERSION_MAJOR, DMLOPS_VERSION_MINOR, DMLOPS_VERSION_PATCH),
        /* 1.2 where the loader has it, so that devices of 1.2 give their timeline
         * semaphores (dm_vk_device_open); nothing else of 1.2 is used. */
        .apiVersion = api >= VK_API_VERSION_1_2 ? VK_API_VERSION_1_2 : VK_API_VERSION_1_1};
    inst->api_version = app.apiVersion;
    VkDebugUtilsMessengerCreateInfoEXT dbg = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = dm_vk_debug_cb,
        .pUserData = inst};
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .pNext = debug ? &dbg : NULL, /* also covers instance creation */
                               .flags = flags,
                               .pApplicationInfo = &app,
                               .enabledLayerCount = nlayers,
                               .ppEnabledLayerNames = layer_names,
                               .enabledExtensionCount = nexts,
                               .ppEnabledExtensionNames = ext_names};
    VkResult r = create(&ci, inst->alloc, &inst->instance);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        return dm_fail(DMLOPS_ERROR_NO_DEVICE, "no Vulkan device found: the loader found no usable driver "
                                               "(vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER)");
    if (r != VK_SUCCESS) {
        dmlops_status st = dm_vk_fail(NULL, r, "vkCreateInstance", "creating the Vulkan instance");
        return st == DMLOPS_ERROR_BACKEND ? dm_fail_prefix(DMLOPS_ERROR_NO_DEVICE, "no usable Vulkan") : st;
    }
    inst->owned = true;
    dm_vk_load_instance_table(gipa, inst->instance, &inst->vki);
    if (debug) {
        r = inst->vki.CreateDebugUtilsMessengerEXT(inst->instance, &dbg, inst->alloc, &inst->messenger);
        if (r != VK_SUCCESS) return dm_vk_fail(NULL, r, "vkCreateDebugUtilsMessengerEXT", "enabling validation");
    }
    return DMLOPS_SUCCESS;
}

void dm_vk_instance_adopt(PFN_vkGetInstanceProcAddr gipa, VkInstance instance, dm_vk_instance *inst)
{
    inst->instance = instance;
    inst->api_version = VK_API_VERSION_1_1; /* the application's says otherwise (dm_vk_device_adopt) */
    inst->owned = false;
    dm_vk_load_instance_table(gipa, instance, &inst->vki);
}

void dm_vk_instance_destroy(dm_vk_instance *inst)
{
    if (inst->messenger) inst->vki.DestroyDebugUtilsMessengerEXT(inst->instance, inst->messenger, inst->alloc);
    if (inst->owned && inst->instance) inst->vki.DestroyInstance(inst->instance, inst->alloc);
    inst->messenger = VK_NULL_HANDLE;
    inst->instance = VK_NULL_HANDLE;
}
