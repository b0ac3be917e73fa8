/* VK_LAYER_DMLOPS_profile: a Vulkan layer that makes the device below it report a chosen
 * profile (profile.h, profiles/): the spec's minimum limits, an embedded GPU's, no
 * timestamps, another memory layout. It sits below the Khronos validation layer
 * (test/profile_layer/README.md says how), so that validation judges every call the
 * library makes against the profile's limits rather than lavapipe's.
 *
 * The loader side follows Vulkan-Loader's LoaderLayerInterface document: interface
 * version 2, per-instance and per-device records found by the dispatch key of the handle
 * (a physical device shares its instance's). Linked with -Bsymbolic: otherwise its
 * vkGetInstanceProcAddr could bind to the loader's, and the loader would call back into
 * itself (a deadlock, measured). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include <vulkan/vk_layer.h>

#define DMP_LAYER_NAME "VK_LAYER_DMLOPS_profile"
#define DMP_EXPORT __attribute__((visibility("default")))

typedef struct dmp_instance {
    void *key; /* the dispatch key of the instance, and of its physical devices */
    VkInstance instance;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkDestroyInstance DestroyInstance;
    PFN_vkGetPhysicalDeviceProperties GetPhysicalDeviceProperties;
    PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2;
    PFN_vkGetPhysicalDeviceFeatures GetPhysicalDeviceFeatures;
    PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2;
    PFN_vkGetPhysicalDeviceQueueFamilyProperties GetPhysicalDeviceQueueFamilyProperties;
    PFN_vkGetPhysicalDeviceQueueFamilyProperties2 GetPhysicalDeviceQueueFamilyProperties2;
    PFN_vkGetPhysicalDeviceMemoryProperties GetPhysicalDeviceMemoryProperties;
    PFN_vkGetPhysicalDeviceMemoryProperties2 GetPhysicalDeviceMemoryProperties2;
    PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
    dmp_profile profile;
    struct dmp_instance *next;
} dmp_instance;

typedef struct dmp_device {
    void *key;
    PFN_vkGetDeviceProcAddr gdpa;
    PFN_vkDestroyDevice DestroyDevice;
    PFN_vkAllocateMemory AllocateMemory;
    PFN_vkGetBufferMemoryRequirements GetBufferMemoryRequirements;
    PFN_vkGetBufferMemoryRequirements2 GetBufferMemoryRequirements2;
    uint32_t type_count;             /* the profile's memory types; 0: the driver's */
    uint32_t type_map[DMP_MAX_TYPES]; /* profile type -> driver type */
    struct dmp_device *next;
} dmp_device;

static pthread_mutex_t dmp_lock = PTHREAD_MUTEX_INITIALIZER;
static dmp_instance *dmp_instances;
static dmp_device *dmp_devices;

static void *dmp_key(const void *handle) { return *(void *const *)handle; }

static dmp_instance *dmp_find_instance(const void *handle)
{
    void *key = dmp_key(handle);
    pthread_mutex_lock(&dmp_lock);
    dmp_instance *i = dmp_instances;
    while (i && i->key != key) i = i->next;
    pthread_mutex_unlock(&dmp_lock);
    return i;
}

static dmp_device *dmp_find_device(const void *handle)
{
    void *key = dmp_key(handle);
    pthread_mutex_lock(&dmp_lock);
    dmp_device *d = dmp_devices;
    while (d && d->key != key) d = d->next;
    pthread_mutex_unlock(&dmp_lock);
    return d;
}

/* DMLOPS_PROFILE_RECORD names a file the layer appends a line to at every instance and
 * device it creates: how a test sees that the layer ran and what the library enabled. */
__attribute__((format(printf, 1, 2))) static void dmp_record(const char *fmt, ...)
{
    const char *path = getenv("DMLOPS_PROFILE_RECORD");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (!f) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
}

static VkResult VKAPI_CALL dmp_CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *alloc,
                                              VkInstance *out)
{
    VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)ci->pNext;
    while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerInstanceCreateInfo *)link->pNext;
    if (!link) return VK_ERROR_INITIALIZATION_FAILED;
    const char *path = getenv("DMLOPS_PROFILE");
    dmp_instance *inst = calloc(1, sizeof *inst);
    if (!inst) return VK_ERROR_OUT_OF_HOST_MEMORY;
    if (!path || !*path || !dmp_profile_load(path, &inst->profile)) {
        /* A run that asked for the layer and got the driver's own limits would pass
         * without testing what it claims: refuse instead. */
        if (!path || !*path) fprintf(stderr, "dmlops profile layer: DMLOPS_PROFILE names no profile file\n");
        free(inst);
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    VkResult r = create ? create(ci, alloc, out) : VK_ERROR_INITIALIZATION_FAILED;
    if (r != VK_SUCCESS) {
        free(inst);
        return r;
    }
    inst->instance = *out;
    inst->key = dmp_key(*out);
    inst->gipa = gipa;
#define DMP_LOAD(name) inst->name = (PFN_vk##name)gipa(*out, "vk" #name)
#define DMP_LOAD2(name)                                                                   \
    do {                                                                                  \
        DMP_LOAD(name);                                                                   \
        if (!inst->name) inst->name = (PFN_vk##name)gipa(*out, "vk" #name "KHR");         \
    } while (0)
    DMP_LOAD(DestroyInstance);
    DMP_LOAD(GetPhysicalDeviceProperties);
    DMP_LOAD2(GetPhysicalDeviceProperties2);
    DMP_LOAD(GetPhysicalDeviceFeatures);
    DMP_LOAD2(GetPhysicalDeviceFeatures2);
    DMP_LOAD(GetPhysicalDeviceQueueFamilyProperties);
    DMP_LOAD2(GetPhysicalDeviceQueueFamilyProperties2);
    DMP_LOAD(GetPhysicalDeviceMemoryProperties);
    DMP_LOAD2(GetPhysicalDeviceMemoryProperties2);
    DMP_LOAD(EnumerateDeviceExtensionProperties);
#undef DMP_LOAD2
#undef DMP_LOAD
    pthread_mutex_lock(&dmp_lock);
    inst->next = dmp_instances;
    dmp_instances = inst;
    pthread_mutex_unlock(&dmp_lock);
    dmp_record("instance profile=%s\n", inst->profile.name);
    return VK_SUCCESS;
}

static void VKAPI_CALL dmp_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc)
{
    if (!instance) return;
    void *key = dmp_key(instance);
    pthread_mutex_lock(&dmp_lock);
    dmp_instance **at = &dmp_instances, *inst = NULL;
    while (*at && (*at)->key != key) at = &(*at)->next;
    if (*at) {
        inst = *at;
        *at = inst->next;
    }
    pthread_mutex_unlock(&dmp_lock);
    if (inst) inst->DestroyInstance(instance, alloc);
    free(inst);
}

/* ---- physical-device queries: the driver's answer, then the profile's ------------ */

static void VKAPI_CALL dmp_GetPhysicalDeviceProperties(VkPhysicalDevice phys, VkPhysicalDeviceProperties *p)
{
    const dmp_instance *i = dmp_find_instance(phys);
    i->GetPhysicalDeviceProperties(phys, p);
    dmp_apply_properties(&i->profile, p);
}

static void VKAPI_CALL dmp_GetPhysicalDeviceProperties2(VkPhysicalDevice phys, VkPhysicalDeviceProperties2 *p)
{
    const dmp_instance *i = dmp_find_instance(phys);
    i->GetPhysicalDeviceProperties2(phys, p);
    dmp_apply_properties(&i->profile, &p->properties);
    dmp_apply_properties_chain(&i->profile, p->pNext);
}

static void VKAPI_CALL dmp_GetPhysicalDeviceFeatures(VkPhysicalDevice phys, VkPhysicalDeviceFeatures *f)
{
    const dmp_instance *i = dmp_find_instance(phys);
    i->GetPhysicalDeviceFeatures(phys, f);
    dmp_apply_features(&i->profile, f);
}

static void VKAPI_CALL dmp_GetPhysicalDeviceFeatures2(VkPhysicalDevice phys, VkPhysicalDeviceFeatures2 *f)
{
    const dmp_instance *i = dmp_find_instance(phys);
    i->GetPhysicalDeviceFeatures2(phys, f);
    dmp_apply_features(&i->profile, &f->features);
    dmp_apply_features_chain(&i->profile, f->pNext);
}

static void VKAPI_CALL dmp_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice phys, uint32_t *n,
                                                                  VkQueueFamilyProperties *q)
{
    const dmp_instance *i = dmp_find_instance(phys);
    i->GetPhysicalDeviceQueueFamilyProperties(phys, n, q);
    if (q) dmp_apply_queue_families(&i->profile, q, *n);
}

static void VKAPI_CALL dmp_GetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice phys, uint32_t *n,
                                                                   VkQueueFamilyProperties2 *q)
{
    const dmp_instance *i = dmp_find_instance(phys);
    i->GetPhysicalDeviceQueueFamilyProperties2(phys, n, q);
    for (uint32_t k = 0; q && k < *n; k++) dmp_apply_queue_families(&i->profile, &q[k].queueFamilyProperties, 1);
}

static void VKAPI_CALL dmp_GetPhysicalDeviceMemoryProperties(VkPhysicalDevice phys, VkPhysicalDeviceMemoryProperties *m)
{
    const dmp_instance *i = dmp_find_instance(phys);
    i->GetPhysicalDeviceMemoryProperties(phys, m);
    dmp_apply_memory(&i->profile, m);
}

static void VKAPI_CALL dmp_GetPhysicalDeviceMemoryProperties2(VkPhysicalDevice phys, VkPhysicalDeviceMemoryProperties2 *m)
{
    const dmp_instance *i = dmp_find_instance(phys);
    i->GetPhysicalDeviceMemoryProperties2(phys, m);
    dmp_apply_memory(&i->profile, &m->memoryProperties);
    dmp_apply_memory_chain(&i->profile, &m->memoryProperties, m->pNext);
}

/* The driver's extensions the profile keeps, then those the layer itself answers for. */
static VkResult VKAPI_CALL dmp_EnumerateDeviceExtensionProperties(VkPhysicalDevice phys, const char *layer, uint32_t *n,
                                                                  VkExtensionProperties *out)
{
    const dmp_instance *i = dmp_find_instance(phys);
    if (layer && !strcmp(layer, DMP_LAYER_NAME)) {
        *n = 0;
        return VK_SUCCESS;
    }
    if (layer) return i->EnumerateDeviceExtensionProperties(phys, layer, n, out);
    uint32_t count = 0;
    VkResult r = i->EnumerateDeviceExtensionProperties(phys, NULL, &count, NULL);
    VkExtensionProperties *all = r == VK_SUCCESS ? calloc(count + 2, sizeof *all) : NULL;
    if (r == VK_SUCCESS && !all) r = VK_ERROR_OUT_OF_HOST_MEMORY;
    if (r == VK_SUCCESS) r = i->EnumerateDeviceExtensionProperties(phys, NULL, &count, all);
    if (r != VK_SUCCESS) {
        free(all);
        return r;
    }
    uint32_t kept = 0;
    VkExtensionProperties added[2];
    const uint32_t nadded = dmp_added_extensions(&i->profile, all, count, added);
    for (uint32_t k = 0; k < count; k++)
        if (dmp_keeps_extension(&i->profile, all[k].extensionName)) all[kept++] = all[k];
    for (uint32_t k = 0; k < nadded; k++) all[kept++] = added[k];
    r = VK_SUCCESS;
    if (out) {
        if (*n < kept) r = VK_INCOMPLETE;
        else *n = kept;
        memcpy(out, all, *n * sizeof *out);
    } else {
        *n = kept;
    }
    free(all);
    return r;
}

/* ---- the device ------------------------------------------------------------------ */

static bool dmp_driver_has(const VkExtensionProperties *e, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(e[i].extensionName, name)) return true;
    return false;
}

static bool dmp_layer_added(const char *name)
{
    return !strcmp(name, VK_KHR_PORTABILITY_SUBSET_EXTENSION_NAME) || !strcmp(name, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
}

static VkResult VKAPI_CALL dmp_CreateDevice(VkPhysicalDevice phys, const VkDeviceCreateInfo *ci,
                                            const VkAllocationCallbacks *alloc, VkDevice *out)
{
    const dmp_instance *inst = dmp_find_instance(phys);
    VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)ci->pNext;
    while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerDeviceCreateInfo *)link->pNext;
    if (!link || !inst) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(inst->instance, "vkCreateDevice");
    dmp_device *dev = calloc(1, sizeof *dev);
    const char **names = calloc(ci->enabledExtensionCount + 1, sizeof *names);
    char enabled[4096] = "";
    if (!dev || !names || !create) {
        free(dev);
        free(names);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    /* The extensions the layer answers for are not the driver's to enable: they stop here. */
    uint32_t driver_count = 0;
    inst->EnumerateDeviceExtensionProperties(phys, NULL, &driver_count, NULL);
    VkExtensionProperties *driver = calloc(driver_count + 1, sizeof *driver);
    if (!driver || inst->EnumerateDeviceExtensionProperties(phys, NULL, &driver_count, driver) != VK_SUCCESS) driver_count = 0;
    VkDeviceCreateInfo down = *ci;
    down.enabledExtensionCount = 0;
    down.ppEnabledExtensionNames = names;
    for (uint32_t k = 0; k < ci->enabledExtensionCount; k++) {
        const char *e = ci->ppEnabledExtensionNames[k];
        size_t used = strlen(enabled);
        snprintf(enabled + used, sizeof enabled - used, "%s%s", used ? "," : "", e);
        if (!dmp_layer_added(e) || dmp_driver_has(driver, driver_count, e)) names[down.enabledExtensionCount++] = e;
    }
    const char *name = VK_KHR_PORTABILITY_SUBSET_EXTENSION_NAME;
    const bool portability = inst->profile.portability_subset.u[0] ||
                             (dmp_driver_has(driver, driver_count, name) && dmp_keeps_extension(&inst->profile, name));
    free(driver);
    VkResult r = create(phys, &down, alloc, out);
    free(names);
    if (r != VK_SUCCESS) {
        free(dev);
        return r;
    }
    /* What the device offered that it must enable (VUID-VkDeviceCreateInfo-pProperties-04451),
     * and what the application enabled. */
    dmp_record("device profile=%s portability_subset=%s enabled=%s\n", inst->profile.name,
               portability ? "offered" : "absent", enabled);
    dev->key = dmp_key(*out);
    dev->gdpa = gdpa;
    dev->DestroyDevice = (PFN_vkDestroyDevice)gdpa(*out, "vkDestroyDevice");
    dev->AllocateMemory = (PFN_vkAllocateMemory)gdpa(*out, "vkAllocateMemory");
    dev->GetBufferMemoryRequirements = (PFN_vkGetBufferMemoryRequirements)gdpa(*out, "vkGetBufferMemoryRequirements");
    dev->GetBufferMemoryRequirements2 = (PFN_vkGetBufferMemoryRequirements2)gdpa(*out, "vkGetBufferMemoryRequirements2");
    if (!dev->GetBufferMemoryRequirements2)
        dev->GetBufferMemoryRequirements2 = (PFN_vkGetBufferMemoryRequirements2)gdpa(*out, "vkGetBufferMemoryRequirements2KHR");
    /* Each profile memory type allocates from the first driver type with all its flags. */
    const dmp_profile *p = &inst->profile;
    VkPhysicalDeviceMemoryProperties mem;
    inst->GetPhysicalDeviceMemoryProperties(phys, &mem);
    dev->type_count = p->memory_type_count;
    for (uint32_t t = 0; t < p->memory_type_count; t++) {
        dev->type_map[t] = 0;
        for (uint32_t j = mem.memoryTypeCount; j-- > 0;)
            if ((mem.memoryTypes[j].propertyFlags & p->memory_types[t]) == p->memory_types[t]) dev->type_map[t] = j;
    }
    pthread_mutex_lock(&dmp_lock);
    dev->next = dmp_devices;
    dmp_devices = dev;
    pthread_mutex_unlock(&dmp_lock);
    return VK_SUCCESS;
}

static void VKAPI_CALL dmp_DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc)
{
    if (!device) return;
    void *key = dmp_key(device);
    pthread_mutex_lock(&dmp_lock);
    dmp_device **at = &dmp_devices, *dev = NULL;
    while (*at && (*at)->key != key) at = &(*at)->next;
    if (*at) {
        dev = *at;
        *at = dev->next;
    }
    pthread_mutex_unlock(&dmp_lock);
    if (dev) dev->DestroyDevice(device, alloc);
    free(dev);
}

static VkResult VKAPI_CALL dmp_AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *ai,
                                              const VkAllocationCallbacks *alloc, VkDeviceMemory *out)
{
    const dmp_device *d = dmp_find_device(device);
    VkMemoryAllocateInfo down = *ai;
    if (d->type_count && ai->memoryTypeIndex < d->type_count) down.memoryTypeIndex = d->type_map[ai->memoryTypeIndex];
    return d->AllocateMemory(device, &down, alloc, out);
}

/* The driver's memoryTypeBits, as the profile's types. */
static uint32_t dmp_type_bits(const dmp_device *d, uint32_t driver_bits)
{
    if (!d->type_count) return driver_bits;
    uint32_t bits = 0;
    for (uint32_t t = 0; t < d->type_count; t++)
        if (driver_bits & (1u << d->type_map[t])) bits |= 1u << t;
    return bits;
}

static void VKAPI_CALL dmp_GetBufferMemoryRequirements(VkDevice device, VkBuffer buffer, VkMemoryRequirements *req)
{
    const dmp_device *d = dmp_find_device(device);
    d->GetBufferMemoryRequirements(device, buffer, req);
    req->memoryTypeBits = dmp_type_bits(d, req->memoryTypeBits);
}

static void VKAPI_CALL dmp_GetBufferMemoryRequirements2(VkDevice device, const VkBufferMemoryRequirementsInfo2 *info,
                                                        VkMemoryRequirements2 *req)
{
    const dmp_device *d = dmp_find_device(device);
    d->GetBufferMemoryRequirements2(device, info, req);
    req->memoryRequirements.memoryTypeBits = dmp_type_bits(d, req->memoryRequirements.memoryTypeBits);
}

/* ---- the loader interface --------------------------------------------------------- */

typedef struct dmp_entry {
    const char *name;
    PFN_vkVoidFunction fn;
} dmp_entry;

#define DMP_FN(name) {"vk" #name, (PFN_vkVoidFunction)dmp_##name}
static const dmp_entry dmp_device_entries[] = {
    DMP_FN(DestroyDevice),
    DMP_FN(AllocateMemory),
    DMP_FN(GetBufferMemoryRequirements),
    DMP_FN(GetBufferMemoryRequirements2),
    {"vkGetBufferMemoryRequirements2KHR", (PFN_vkVoidFunction)dmp_GetBufferMemoryRequirements2},
};
static const dmp_entry dmp_instance_entries[] = {
    DMP_FN(CreateInstance),
    DMP_FN(DestroyInstance),
    DMP_FN(CreateDevice),
    DMP_FN(EnumerateDeviceExtensionProperties),
    DMP_FN(GetPhysicalDeviceProperties),
    DMP_FN(GetPhysicalDeviceProperties2),
    {"vkGetPhysicalDeviceProperties2KHR", (PFN_vkVoidFunction)dmp_GetPhysicalDeviceProperties2},
    DMP_FN(GetPhysicalDeviceFeatures),
    DMP_FN(GetPhysicalDeviceFeatures2),
    {"vkGetPhysicalDeviceFeatures2KHR", (PFN_vkVoidFunction)dmp_GetPhysicalDeviceFeatures2},
    DMP_FN(GetPhysicalDeviceQueueFamilyProperties),
    DMP_FN(GetPhysicalDeviceQueueFamilyProperties2),
    {"vkGetPhysicalDeviceQueueFamilyProperties2KHR", (PFN_vkVoidFunction)dmp_GetPhysicalDeviceQueueFamilyProperties2},
    DMP_FN(GetPhysicalDeviceMemoryProperties),
    DMP_FN(GetPhysicalDeviceMemoryProperties2),
    {"vkGetPhysicalDeviceMemoryProperties2KHR", (PFN_vkVoidFunction)dmp_GetPhysicalDeviceMemoryProperties2},
};
#undef DMP_FN

static PFN_vkVoidFunction dmp_lookup(const dmp_entry *e, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(e[i].name, name)) return e[i].fn;
    return NULL;
}

DMP_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name)
{
    PFN_vkVoidFunction own = dmp_lookup(dmp_device_entries, sizeof dmp_device_entries / sizeof *dmp_device_entries, name);
    if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
    const dmp_device *d = device ? dmp_find_device(device) : NULL;
    if (!d) return NULL;
    PFN_vkVoidFunction next = d->gdpa(device, name);
    return own && next ? own : next; /* ours only where the driver has one to call */
}

DMP_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name)
{
    if (!strcmp(name, "vkGetInstanceProcAddr")) return (PFN_vkVoidFunction)vkGetInstanceProcAddr;
    if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
    PFN_vkVoidFunction own = dmp_lookup(dmp_instance_entries, sizeof dmp_instance_entries / sizeof *dmp_instance_entries, name);
    if (own && (!instance || !strcmp(name, "vkCreateInstance"))) return own;
    const dmp_instance *i = instance ? dmp_find_instance(instance) : NULL;
    if (!i) return own;
    PFN_vkVoidFunction next = i->gipa(instance, name);
    if (own) return next ? own : NULL;
    PFN_vkVoidFunction dev = dmp_lookup(dmp_device_entries, sizeof dmp_device_entries / sizeof *dmp_device_entries, name);
    return dev && next ? dev : next;
}

DMP_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v)
{
    if (!v || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT || v->loaderLayerInterfaceVersion < 2)
        return VK_ERROR_INITIALIZATION_FAILED;
    v->loaderLayerInterfaceVersion = 2;
    v->pfnGetInstanceProcAddr = vkGetInstanceProcAddr;
    v->pfnGetDeviceProcAddr = vkGetDeviceProcAddr;
    v->pfnGetPhysicalDeviceProcAddr = NULL;
    return VK_SUCCESS;
}
