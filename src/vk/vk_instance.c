/* The loader (through volk), instances, device properties and device choice. */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vk_internal.h"

static pthread_once_t dm_volk_once = PTHREAD_ONCE_INIT;
static VkResult dm_volk_result = VK_ERROR_INITIALIZATION_FAILED;
static PFN_vkGetInstanceProcAddr dm_volk_gipa;

static void dm_volk_init(void)
{
    dm_volk_result = volkInitialize();
    if (dm_volk_result == VK_SUCCESS) dm_volk_gipa = vkGetInstanceProcAddr; /* our private volk's */
}

dmlops_status dm_vk_loader(PFN_vkGetInstanceProcAddr *gipa)
{
    pthread_once(&dm_volk_once, dm_volk_init);
    if (dm_volk_result != VK_SUCCESS || !dm_volk_gipa)
        return dm_fail(DMLOPS_ERROR_NO_DEVICE,
                       "no Vulkan loader: libvulkan.so.1 could not be loaded (install libvulkan1 and a driver, "
                       "e.g. mesa-vulkan-drivers)");
    *gipa = dm_volk_gipa;
    return DMLOPS_SUCCESS;
}

void dm_vk_load_instance_table(PFN_vkGetInstanceProcAddr gipa, VkInstance instance, dm_vk_itable *t)
{
#define DM_LOAD(name) t->name = (PFN_vk##name)gipa(instance, "vk" #name);
    DM_VK_INSTANCE_FUNCS(DM_LOAD)
#undef DM_LOAD
    t->CreateDebugUtilsMessengerEXT =
        (PFN_vkCreateDebugUtilsMessengerEXT)gipa(instance, "vkCreateDebugUtilsMessengerEXT");
    t->DestroyDebugUtilsMessengerEXT =
        (PFN_vkDestroyDebugUtilsMessengerEXT)gipa(instance, "vkDestroyDebugUtilsMessengerEXT");
}

static VKAPI_ATTR VkBool32 VKAPI_CALL dm_vk_debug_cb(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT types,
                                                     const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    dm_vk_ctx *vk = user;
    (void)types;
    if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
        atomic_fetch_add(&vk->debug_count, 1);
        if (!vk->quiet) fprintf(stderr, "dmlops: Vulkan validation: %s\n", data->pMessage);
    }
    return VK_FALSE;
}

static bool dm_has_layer(PFN_vkEnumerateInstanceLayerProperties enum_layers, const char *name)
{
    uint32_t n = 0;
    bool found = false;
    if (enum_layers(&n, NULL) != VK_SUCCESS || !n) return false;
    VkLayerProperties *props = calloc(n, sizeof *props);
    if (props && enum_layers(&n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++) found = !strcmp(props[i].layerName, name);
    free(props);
    return found;
}

static bool dm_has_instance_ext(PFN_vkEnumerateInstanceExtensionProperties enum_ext, const char *name)
{
    uint32_t n = 0;
    bool found = false;
    if (enum_ext(NULL, &n, NULL) != VK_SUCCESS || !n) return false;
    VkExtensionProperties *props = calloc(n, sizeof *props);
    if (props && enum_ext(NULL, &n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++) found = !strcmp(props[i].extensionName, name);
    free(props);
    return found;
}

dmlops_status dm_vk_create_instance(bool debug, dm_vk_ctx *vk)
{
    PFN_vkGetInstanceProcAddr gipa = NULL;
    DM_TRY(dm_vk_loader(&gipa));
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
    PFN_vkEnumerateInstanceVersion version = (PFN_vkEnumerateInstanceVersion)gipa(NULL, "vkEnumerateInstanceVersion");
    PFN_vkEnumerateInstanceLayerProperties layers =
        (PFN_vkEnumerateInstanceLayerProperties)gipa(NULL, "vkEnumerateInstanceLayerProperties");
    PFN_vkEnumerateInstanceExtensionProperties exts =
        (PFN_vkEnumerateInstanceExtensionProperties)gipa(NULL, "vkEnumerateInstanceExtensionProperties");
    uint32_t api = VK_API_VERSION_1_0;
    if (!create || !layers || !exts)
        return dm_fail(DMLOPS_ERROR_NO_DEVICE, "the Vulkan loader lacks vkCreateInstance");
    if (!version || version(&api) != VK_SUCCESS || api < VK_API_VERSION_1_1)
        return dm_fail(DMLOPS_ERROR_NO_DEVICE, "the Vulkan loader supports only Vulkan %u.%u; libdmlops needs 1.1",
                       VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api));

    const char *layer_names[1], *ext_names[2];
    uint32_t nlayers = 0, nexts = 0;
    VkInstanceCreateFlags flags = 0;
    if (dm_has_instance_ext(exts, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
        ext_names[nexts++] = VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME;
        flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }
    if (debug) {
        if (!dm_has_layer(layers, "VK_LAYER_KHRONOS_validation"))
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                           "DMLOPS_CONTEXT_FLAG_DEBUG needs the Khronos validation layer "
                           "(VK_LAYER_KHRONOS_validation; Debian: apt-get install vulkan-validationlayers)");
        if (!dm_has_instance_ext(exts, VK_EXT_DEBUG_UTILS_EXTENSION_NAME))
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "DMLOPS_CONTEXT_FLAG_DEBUG needs VK_EXT_debug_utils");
        layer_names[nlayers++] = "VK_LAYER_KHRONOS_validation";
        ext_names[nexts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    }
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "libdmlops",
                             .pEngineName = "libdmlops",
                             .engineVersion = VK_MAKE_API_VERSION(0, 1, 0, 0),
                             .apiVersion = VK_API_VERSION_1_1};
    VkDebugUtilsMessengerCreateInfoEXT dbg = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = dm_vk_debug_cb,
        .pUserData = vk};
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .pNext = debug ? &dbg : NULL, /* also covers instance creation */
                               .flags = flags,
                               .pApplicationInfo = &app,
                               .enabledLayerCount = nlayers,
                               .ppEnabledLayerNames = layer_names,
                               .enabledExtensionCount = nexts,
                               .ppEnabledExtensionNames = ext_names};
    VkResult r = create(&ci, NULL, &vk->instance);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        return dm_fail(DMLOPS_ERROR_NO_DEVICE, "no Vulkan device found: the loader found no usable driver "
                                               "(vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER)");
    if (r != VK_SUCCESS) {
        dmlops_status st = dm_vk_fail(NULL, r, "vkCreateInstance", "creating the Vulkan instance");
        return st == DMLOPS_ERROR_BACKEND ? dm_fail_prefix(DMLOPS_ERROR_NO_DEVICE, "no usable Vulkan") : st;
    }
    vk->owns_instance = true;
    dm_vk_load_instance_table(gipa, vk->instance, &vk->vki);
    if (debug) {
        r = vk->vki.CreateDebugUtilsMessengerEXT(vk->instance, &dbg, NULL, &vk->messenger);
        if (r != VK_SUCCESS) return dm_vk_fail(NULL, r, "vkCreateDebugUtilsMessengerEXT", "enabling validation");
    }
    return DMLOPS_SUCCESS;
}

static bool dm_has_device_ext(const dm_vk_itable *vki, VkPhysicalDevice phys, const char *name)
{
    uint32_t n = 0;
    bool found = false;
    if (vki->EnumerateDeviceExtensionProperties(phys, NULL, &n, NULL) != VK_SUCCESS || !n) return false;
    VkExtensionProperties *props = calloc(n, sizeof *props);
    if (props && vki->EnumerateDeviceExtensionProperties(phys, NULL, &n, props) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++) found = !strcmp(props[i].extensionName, name);
    free(props);
    return found;
}

void dm_vk_fill_device_info(const dm_vk_itable *vki, VkPhysicalDevice phys, uint32_t index, dmlops_device_info *info)
{
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties sub = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
                                              .pNext = &id};
    VkPhysicalDeviceDriverProperties drv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceMaintenance4Properties m4 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES};
    VkPhysicalDeviceMaintenance3Properties m3 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES,
                                                 .pNext = &sub};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &m3};
    bool has_driver = dm_has_device_ext(vki, phys, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
    bool has_m4 = dm_has_device_ext(vki, phys, VK_KHR_MAINTENANCE_4_EXTENSION_NAME);
    VkPhysicalDeviceProperties base;
    vki->GetPhysicalDeviceProperties(phys, &base);
    if (has_driver && base.apiVersion >= VK_API_VERSION_1_1) { drv.pNext = p2.pNext; p2.pNext = &drv; }
    if (has_m4 && base.apiVersion >= VK_API_VERSION_1_1) { m4.pNext = p2.pNext; p2.pNext = &m4; }
    vki->GetPhysicalDeviceProperties2(phys, &p2);
    const VkPhysicalDeviceProperties *p = &p2.properties;
    const VkPhysicalDeviceLimits *l = &p->limits;

    memset(info, 0, sizeof *info);
    info->index = index;
    snprintf(info->name, sizeof info->name, "%s", p->deviceName);
    info->type = (dmlops_device_type)p->deviceType;
    info->vendor_id = p->vendorID;
    info->device_id = p->deviceID;
    info->api_version = p->apiVersion;
    info->driver_version = p->driverVersion;
    if (has_driver) {
        snprintf(info->driver_name, sizeof info->driver_name, "%s", drv.driverName);
        snprintf(info->driver_info, sizeof info->driver_info, "%s", drv.driverInfo);
    }
    memcpy(info->uuid, id.deviceUUID, 16);
    const uint8_t *u = id.deviceUUID;
    snprintf(info->uuid_string, sizeof info->uuid_string,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4],
             u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    info->max_storage_buffer_range = l->maxStorageBufferRange;
    info->max_memory_allocation_size = m3.maxMemoryAllocationSize;
    info->max_buffer_size = has_m4 ? m4.maxBufferSize : 0;
    for (int i = 0; i < 3; i++) info->max_compute_work_group_count[i] = l->maxComputeWorkGroupCount[i];
    info->max_compute_work_group_invocations = l->maxComputeWorkGroupInvocations;
    info->max_push_constants_size = l->maxPushConstantsSize;
    info->min_storage_buffer_offset_alignment = l->minStorageBufferOffsetAlignment;
    info->subgroup_size = sub.subgroupSize;
    info->timestamp_period = l->timestampComputeAndGraphics || l->timestampPeriod > 0 ? l->timestampPeriod : 0;

    VkPhysicalDeviceMemoryProperties mem;
    vki->GetPhysicalDeviceMemoryProperties(phys, &mem);
    info->memory_heap_count = mem.memoryHeapCount < DMLOPS_MAX_MEMORY_HEAPS ? mem.memoryHeapCount : DMLOPS_MAX_MEMORY_HEAPS;
    for (uint32_t i = 0; i < info->memory_heap_count; i++) {
        info->memory_heap_size[i] = mem.memoryHeaps[i].size;
        info->memory_heap_device_local[i] = !!(mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT);
    }
    /* Unified memory: the device-local heap is reachable from the host without staging
     * (integrated GPUs, CPU devices). A small BAR window on a discrete card is not. */
    bool uma = p->deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU || p->deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    for (uint32_t i = 0; i < mem.memoryTypeCount && uma; i++) {
        VkMemoryPropertyFlags f = mem.memoryTypes[i].propertyFlags;
        if ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) && (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) break;
        if (i + 1 == mem.memoryTypeCount) uma = false;
    }
    info->unified_memory = uma;

    VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .pNext = &f11};
    VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    if (p->apiVersion >= VK_API_VERSION_1_2) f2.pNext = &f12;
    if (p->apiVersion >= VK_API_VERSION_1_3) { f13.pNext = f2.pNext; f2.pNext = &f13; }
    vki->GetPhysicalDeviceFeatures2(phys, &f2);
    uint32_t feat = 0;
    if (f2.features.shaderInt64) feat |= DMLOPS_DEVICE_FEATURE_SHADER_INT64;
    if (f2.features.shaderFloat64) feat |= DMLOPS_DEVICE_FEATURE_SHADER_FLOAT64;
    if (f12.shaderFloat16) feat |= DMLOPS_DEVICE_FEATURE_SHADER_FLOAT16;
    if (f12.storageBuffer8BitAccess) feat |= DMLOPS_DEVICE_FEATURE_STORAGE_8BIT;
    if (f11.storageBuffer16BitAccess) feat |= DMLOPS_DEVICE_FEATURE_STORAGE_16BIT;
    if (f12.timelineSemaphore) feat |= DMLOPS_DEVICE_FEATURE_TIMELINE_SEMAPHORE;
    if (f12.bufferDeviceAddress) feat |= DMLOPS_DEVICE_FEATURE_BUFFER_DEVICE_ADDRESS;
    if (f13.subgroupSizeControl) feat |= DMLOPS_DEVICE_FEATURE_SUBGROUP_SIZE_CONTROL;
    if (f13.synchronization2) feat |= DMLOPS_DEVICE_FEATURE_SYNCHRONIZATION2;
    if (dm_has_device_ext(vki, phys, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME)) feat |= DMLOPS_DEVICE_FEATURE_PUSH_DESCRIPTOR;
    if (l->timestampComputeAndGraphics) feat |= DMLOPS_DEVICE_FEATURE_TIMESTAMPS;
    info->features = feat;
}

/* Default order: discrete, integrated, virtual, CPU, other; the first index wins ties. */
static int dm_type_rank(dmlops_device_type t)
{
    switch (t) {
    case DMLOPS_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case DMLOPS_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case DMLOPS_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case DMLOPS_DEVICE_TYPE_CPU: return 3;
    default: return 4;
    }
}

static const char *dm_type_name(dmlops_device_type t)
{
    static const char *const n[] = {"other", "integrated GPU", "discrete GPU", "virtual GPU", "CPU"};
    return (unsigned)t < 5 ? n[t] : "other";
}

static bool dm_usable(const dm_vk_itable *vki, VkPhysicalDevice phys, const dmlops_device_info *info)
{
    uint32_t n = 0;
    bool compute = false;
    if (info->api_version < VK_API_VERSION_1_1) return false;
    vki->GetPhysicalDeviceQueueFamilyProperties(phys, &n, NULL);
    VkQueueFamilyProperties *q = calloc(n ? n : 1, sizeof *q);
    if (!q) return false;
    vki->GetPhysicalDeviceQueueFamilyProperties(phys, &n, q);
    for (uint32_t i = 0; i < n && !compute; i++) compute = (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0;
    free(q);
    return compute;
}

/* Hex digits of s, dashes skipped, into 16 bytes; false unless exactly 32 digits. */
static bool dm_parse_uuid(const char *s, uint8_t *out)
{
    int n = 0;
    for (; *s; s++) {
        if (*s == '-') continue;
        if (!isxdigit((unsigned char)*s) || n >= 32) return false;
        int v = isdigit((unsigned char)*s) ? *s - '0' : tolower((unsigned char)*s) - 'a' + 10;
        if (n % 2 == 0) out[n / 2] = (uint8_t)(v << 4);
        else out[n / 2] |= (uint8_t)v;
        n++;
    }
    return n == 32;
}

static bool dm_contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, n)) return true;
    return n == 0;
}

dmlops_status dm_vk_choose_device(dm_vk_ctx *vk, const char *request, bool hardware_only)
{
    uint32_t n = 0;
    VkResult r = vk->vki.EnumeratePhysicalDevices(vk->instance, &n, NULL);
    if (r != VK_SUCCESS) return dm_vk_fail(NULL, r, "vkEnumeratePhysicalDevices", "listing Vulkan devices");
    if (n == 0) return dm_fail(DMLOPS_ERROR_NO_DEVICE, "no Vulkan device found (is a Vulkan driver installed?)");
    VkPhysicalDevice *phys = calloc(n, sizeof *phys);
    dmlops_device_info *infos = calloc(n, sizeof *infos);
    if (!phys || !infos) {
        free(phys);
        free(infos);
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory listing devices");
    }
    r = vk->vki.EnumeratePhysicalDevices(vk->instance, &n, phys);
    int best = -1, def = -1, hw = -1; /* the request's match, default selection, best hardware device */
    uint8_t uuid[16];
    bool by_index = false, by_uuid = false;
    char *end = NULL;
    unsigned long index = 0;
    if (request && *request) {
        index = strtoul(request, &end, 10);
        by_index = *end == 0 && isdigit((unsigned char)request[0]);
        by_uuid = !by_index && dm_parse_uuid(request, uuid);
    }
    for (uint32_t i = 0; r == VK_SUCCESS && i < n; i++) {
        dm_vk_fill_device_info(&vk->vki, phys[i], i, &infos[i]);
        bool ok = dm_usable(&vk->vki, phys[i], &infos[i]);
        if (ok && (def < 0 || dm_type_rank(infos[i].type) < dm_type_rank(infos[def].type))) def = (int)i;
        if (ok && infos[i].type != DMLOPS_DEVICE_TYPE_CPU &&
            (hw < 0 || dm_type_rank(infos[i].type) < dm_type_rank(infos[hw].type)))
            hw = (int)i;
        if (request && *request) {
            bool match = by_index ? index == i : by_uuid ? !memcmp(uuid, infos[i].uuid, 16)
                                                         : dm_contains_ci(infos[i].name, request);
            if (match && ok && best < 0) best = (int)i;
        }
    }
    if (!(request && *request)) best = hardware_only ? hw : def;
    dmlops_status st = DMLOPS_SUCCESS;
    if (r != VK_SUCCESS) {
        st = dm_vk_fail(NULL, r, "vkEnumeratePhysicalDevices", "listing Vulkan devices");
    } else if (best < 0) {
        char list[768];
        size_t len = 0;
        list[0] = 0;
        for (uint32_t i = 0; i < n; i++)
            len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%u: %s (%s, %s)%s",
                                    i ? "; " : "", i, infos[i].name, dm_type_name(infos[i].type),
                                    infos[i].uuid_string,
                                    dm_usable(&vk->vki, phys[i], &infos[i]) ? "" : " [unusable: needs Vulkan 1.1 compute]");
        if (request && *request)
            st = dm_fail(DMLOPS_ERROR_NO_DEVICE, "Vulkan device \"%s\" not found; available: %s", request, list);
        else if (hardware_only && def >= 0)
            st = dm_fail(DMLOPS_ERROR_NO_DEVICE, "only software Vulkan devices: %s", list);
        else
            st = dm_fail(DMLOPS_ERROR_NO_DEVICE, "no usable Vulkan device (needs Vulkan 1.1 and compute); found: %s",
                         list);
    } else {
        vk->phys = phys[best];
        vk->info = infos[best];
        vk->info.is_default = best == def;
    }
    free(phys);
    free(infos);
    return st;
}

dmlops_status dm_vk_enumerate(dmlops_device_info *infos, uint32_t *count)
{
    dm_vk_ctx vk;
    memset(&vk, 0, sizeof vk);
    DM_TRY(dm_vk_create_instance(false, &vk));
    uint32_t n = 0;
    VkResult r = vk.vki.EnumeratePhysicalDevices(vk.instance, &n, NULL);
    VkPhysicalDevice *phys = n ? calloc(n, sizeof *phys) : NULL;
    dmlops_status st = DMLOPS_SUCCESS;
    if (r == VK_SUCCESS && n) r = phys ? vk.vki.EnumeratePhysicalDevices(vk.instance, &n, phys) : VK_ERROR_OUT_OF_HOST_MEMORY;
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        st = dm_vk_fail(NULL, r, "vkEnumeratePhysicalDevices", "listing Vulkan devices");
    } else if (n == 0) {
        st = dm_fail(DMLOPS_ERROR_NO_DEVICE, "no Vulkan device found (is a Vulkan driver installed?)");
    } else if (!infos) {
        *count = n;
    } else {
        int best = -1, best_rank = 99;
        uint32_t w = *count < n ? *count : n;
        for (uint32_t i = 0; i < n; i++) {
            dmlops_device_info tmp;
            dm_vk_fill_device_info(&vk.vki, phys[i], i, &tmp);
            if (dm_usable(&vk.vki, phys[i], &tmp) && dm_type_rank(tmp.type) < best_rank) {
                best = (int)i;
                best_rank = dm_type_rank(tmp.type);
            }
            if (i < w) infos[i] = tmp;
        }
        if (best >= 0 && (uint32_t)best < w) infos[best].is_default = 1;
        *count = w;
    }
    free(phys);
    vk.vki.DestroyInstance(vk.instance, NULL);
    return st;
}
