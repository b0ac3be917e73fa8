/* What the layer reports in place of the driver's answers (profile.h): limits narrowed to
 * the profile's, optional features off, fewer timestamp bits, smaller heaps, other memory
 * types, and the structures of the extensions it adds. */
#include <stdio.h>
#include <string.h>

#include "profile.h"

static uint64_t dmp_min(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t dmp_max(uint64_t a, uint64_t b) { return a > b ? a : b; }

static uint64_t dmp_combine(dmp_rule rule, uint64_t profile, uint64_t driver)
{
    return rule == DMP_AT_MOST ? dmp_min(profile, driver) : rule == DMP_AT_LEAST ? dmp_max(profile, driver)
                                                                                : (profile && driver);
}

static void dmp_apply_limits(const dmp_profile *p, VkPhysicalDeviceLimits *l)
{
    for (size_t i = 0; i < dmp_limit_key_count; i++) {
        const dmp_limit_key *k = &dmp_limit_keys[i];
        const dmp_value *v = &p->limits[i];
        if (!v->set) continue;
        char *at = (char *)l + k->offset;
        switch (k->kind) {
        case DMP_U32:
        case DMP_BOOL: {
            uint32_t x;
            memcpy(&x, at, sizeof x);
            x = (uint32_t)dmp_combine(k->rule, v->u[0], x);
            memcpy(at, &x, sizeof x);
            break;
        }
        case DMP_U32X3:
            for (int d = 0; d < 3; d++) {
                uint32_t x;
                memcpy(&x, at + d * sizeof x, sizeof x);
                x = (uint32_t)dmp_combine(k->rule, v->u[d], x);
                memcpy(at + d * sizeof x, &x, sizeof x);
            }
            break;
        case DMP_SIZE: {
            size_t x;
            memcpy(&x, at, sizeof x);
            x = (size_t)dmp_combine(k->rule, v->u[0], x);
            memcpy(at, &x, sizeof x);
            break;
        }
        case DMP_DEVSIZE: {
            VkDeviceSize x;
            memcpy(&x, at, sizeof x);
            x = dmp_combine(k->rule, v->u[0], x);
            memcpy(at, &x, sizeof x);
            break;
        }
        }
    }
}

void dmp_apply_properties(const dmp_profile *p, VkPhysicalDeviceProperties *props)
{
    if (p->api_version.set && p->api_version.u[0] < (props->apiVersion & ~0xfffu))
        props->apiVersion = (uint32_t)p->api_version.u[0] | VK_API_VERSION_PATCH(props->apiVersion);
    if (p->device_type.set) props->deviceType = (VkPhysicalDeviceType)p->device_type.u[0];
    if (p->vendor_id.set) props->vendorID = (uint32_t)p->vendor_id.u[0];
    if (p->device_id.set) props->deviceID = (uint32_t)p->device_id.u[0];
    /* The name says which profile is on, for the note and `dmlops info`. */
    char suffix[sizeof p->name + 16];
    snprintf(suffix, sizeof suffix, " (profile %s)", p->name);
    const size_t used = strnlen(props->deviceName, sizeof props->deviceName - 1),
                 room = sizeof props->deviceName - 1 - used, n = strlen(suffix) < room ? strlen(suffix) : room;
    memcpy(props->deviceName + used, suffix, n);
    props->deviceName[used + n] = '\0';
    dmp_apply_limits(p, &props->limits);
}

static void dmp_apply_subgroup(const dmp_profile *p, uint32_t *size, VkShaderStageFlags *stages, VkSubgroupFeatureFlags *ops,
                               VkBool32 *quad)
{
    if (p->subgroup_size.set) *size = (uint32_t)p->subgroup_size.u[0];
    if (p->subgroup_stages.set) *stages &= (VkShaderStageFlags)p->subgroup_stages.u[0];
    if (p->subgroup_operations.set) *ops &= (VkSubgroupFeatureFlags)p->subgroup_operations.u[0];
    if (p->no_optional_features.u[0]) *quad = VK_FALSE;
}

void dmp_apply_properties_chain(const dmp_profile *p, void *pnext)
{
    for (VkBaseOutStructure *s = pnext; s; s = s->pNext) {
        switch ((int)s->sType) {
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES: {
            VkPhysicalDeviceSubgroupProperties *sp = (void *)s;
            dmp_apply_subgroup(p, &sp->subgroupSize, &sp->supportedStages, &sp->supportedOperations,
                               &sp->quadOperationsInAllStages);
            break;
        }
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES: {
            VkPhysicalDeviceVulkan11Properties *v = (void *)s;
            dmp_apply_subgroup(p, &v->subgroupSize, &v->subgroupSupportedStages, &v->subgroupSupportedOperations,
                               &v->subgroupQuadOperationsInAllStages);
            if (p->max_per_set_descriptors.set)
                v->maxPerSetDescriptors = (uint32_t)dmp_min(p->max_per_set_descriptors.u[0], v->maxPerSetDescriptors);
            if (p->max_memory_allocation_size.set)
                v->maxMemoryAllocationSize = dmp_min(p->max_memory_allocation_size.u[0], v->maxMemoryAllocationSize);
            break;
        }
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES: {
            VkPhysicalDeviceMaintenance3Properties *m = (void *)s;
            if (p->max_per_set_descriptors.set)
                m->maxPerSetDescriptors = (uint32_t)dmp_min(p->max_per_set_descriptors.u[0], m->maxPerSetDescriptors);
            if (p->max_memory_allocation_size.set)
                m->maxMemoryAllocationSize = dmp_min(p->max_memory_allocation_size.u[0], m->maxMemoryAllocationSize);
            break;
        }
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES: {
            VkPhysicalDeviceMaintenance4Properties *m = (void *)s;
            if (p->max_buffer_size.set) m->maxBufferSize = dmp_min(p->max_buffer_size.u[0], m->maxBufferSize);
            break;
        }
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES: {
            VkPhysicalDeviceVulkan13Properties *v = (void *)s;
            if (p->max_buffer_size.set) v->maxBufferSize = dmp_min(p->max_buffer_size.u[0], v->maxBufferSize);
            if (p->subgroup_size.set) v->minSubgroupSize = v->maxSubgroupSize = (uint32_t)p->subgroup_size.u[0];
            break;
        }
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES: {
            VkPhysicalDeviceSubgroupSizeControlProperties *c = (void *)s;
            if (p->subgroup_size.set) c->minSubgroupSize = c->maxSubgroupSize = (uint32_t)p->subgroup_size.u[0];
            break;
        }
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PORTABILITY_SUBSET_PROPERTIES_KHR:
            /* The driver knows nothing of the extension: the layer answers. MoltenVK's value. */
            if (p->portability_subset.u[0])
                ((VkPhysicalDevicePortabilitySubsetPropertiesKHR *)(void *)s)->minVertexInputBindingStrideAlignment = 4;
            break;
        default:
            break;
        }
    }
}

/* Optional features off: the VkPhysicalDeviceFeatures members but robustBufferAccess, the
 * one Vulkan 1.0 requires. */
void dmp_apply_features(const dmp_profile *p, VkPhysicalDeviceFeatures *f)
{
    if (!p->no_optional_features.u[0]) return;
    const VkBool32 robust = f->robustBufferAccess;
    memset(f, 0, sizeof *f);
    f->robustBufferAccess = robust;
}

/* The feature structures a Vulkan 1.1 application or the validation layer may chain,
 * with their sizes: all their members after sType and pNext are VkBool32. Others keep
 * the driver's answer (the profile hides the extensions they belong to). */
static size_t dmp_feature_struct_size(VkStructureType t)
{
    switch ((int)t) {
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES: return sizeof(VkPhysicalDeviceVulkan11Features);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES: return sizeof(VkPhysicalDeviceVulkan12Features);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES: return sizeof(VkPhysicalDeviceVulkan13Features);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES: return sizeof(VkPhysicalDevice16BitStorageFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES: return sizeof(VkPhysicalDevice8BitStorageFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES: return sizeof(VkPhysicalDeviceMultiviewFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VARIABLE_POINTERS_FEATURES: return sizeof(VkPhysicalDeviceVariablePointersFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROTECTED_MEMORY_FEATURES: return sizeof(VkPhysicalDeviceProtectedMemoryFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES:
        return sizeof(VkPhysicalDeviceSamplerYcbcrConversionFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES:
        return sizeof(VkPhysicalDeviceShaderDrawParametersFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES: return sizeof(VkPhysicalDeviceShaderFloat16Int8Features);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES: return sizeof(VkPhysicalDeviceTimelineSemaphoreFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES:
        return sizeof(VkPhysicalDeviceBufferDeviceAddressFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES: return sizeof(VkPhysicalDeviceShaderAtomicInt64Features);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES: return sizeof(VkPhysicalDeviceSynchronization2Features);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_FEATURES: return sizeof(VkPhysicalDeviceMaintenance4Features);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES:
        return sizeof(VkPhysicalDeviceSubgroupSizeControlFeatures);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT: return sizeof(VkPhysicalDeviceRobustness2FeaturesEXT);
    case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PORTABILITY_SUBSET_FEATURES_KHR:
        return sizeof(VkPhysicalDevicePortabilitySubsetFeaturesKHR);
    default: return 0;
    }
}

void dmp_apply_features_chain(const dmp_profile *p, void *pnext)
{
    for (VkBaseOutStructure *s = pnext; s; s = s->pNext) {
        const size_t size = dmp_feature_struct_size(s->sType), head = sizeof(VkBaseOutStructure);
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PORTABILITY_SUBSET_FEATURES_KHR) {
            /* The driver has no such extension: the layer answers, and forbids everything
             * the extension can forbid, so that validation flags any use of it. */
            if (size > head) memset((char *)s + head, 0, size - head);
            continue;
        }
        if (!p->no_optional_features.u[0] || size <= head) continue;
        /* Vulkan 1.1 requires multiview; every other member here is optional. */
        VkBool32 multiview = VK_FALSE;
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES)
            multiview = ((VkPhysicalDeviceMultiviewFeatures *)(void *)s)->multiview;
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES)
            multiview = ((VkPhysicalDeviceVulkan11Features *)(void *)s)->multiview;
        memset((char *)s + head, 0, size - head);
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES)
            ((VkPhysicalDeviceMultiviewFeatures *)(void *)s)->multiview = multiview;
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES)
            ((VkPhysicalDeviceVulkan11Features *)(void *)s)->multiview = multiview;
    }
}

void dmp_apply_queue_families(const dmp_profile *p, VkQueueFamilyProperties *q, uint32_t n)
{
    for (uint32_t i = 0; i < n && p->timestamp_valid_bits.set; i++)
        q[i].timestampValidBits = (uint32_t)dmp_min(p->timestamp_valid_bits.u[0], q[i].timestampValidBits);
}

void dmp_apply_memory(const dmp_profile *p, VkPhysicalDeviceMemoryProperties *m)
{
    if (p->heap_size.set && m->memoryHeapCount) m->memoryHeaps[0].size = dmp_min(p->heap_size.u[0], m->memoryHeaps[0].size);
    if (!p->memory_type_count) return;
    /* Every type the profile names lives in heap 0; profile_layer.c allocates each from
     * the first driver type that has all of its flags. */
    m->memoryTypeCount = p->memory_type_count;
    for (uint32_t i = 0; i < p->memory_type_count; i++) m->memoryTypes[i] = (VkMemoryType){p->memory_types[i], 0};
    for (uint32_t i = p->memory_type_count; i < VK_MAX_MEMORY_TYPES; i++) m->memoryTypes[i] = (VkMemoryType){0, 0};
}

void dmp_apply_memory_chain(const dmp_profile *p, const VkPhysicalDeviceMemoryProperties *m, void *pnext)
{
    for (VkBaseOutStructure *s = pnext; s; s = s->pNext) {
        if (s->sType != VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT) continue;
        VkPhysicalDeviceMemoryBudgetPropertiesEXT *b = (void *)s;
        if (p->memory_budget.set) {
            /* The driver lacks the extension (lavapipe): the layer answers. It does not
             * track the process's allocations, so it reports no usage. */
            memset(b->heapBudget, 0, sizeof b->heapBudget);
            memset(b->heapUsage, 0, sizeof b->heapUsage);
            b->heapBudget[0] = p->memory_budget.u[0];
        }
        for (uint32_t h = 0; h < m->memoryHeapCount; h++) b->heapBudget[h] = dmp_min(b->heapBudget[h], m->memoryHeaps[h].size);
    }
}

bool dmp_keeps_extension(const dmp_profile *p, const char *name)
{
    if (!p->extensions_listed) return true;
    for (uint32_t i = 0; i < p->extension_count; i++)
        if (!strcmp(p->extensions[i], name)) return true;
    return false;
}

static bool dmp_listed(const VkExtensionProperties *e, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(e[i].extensionName, name)) return true;
    return false;
}

uint32_t dmp_added_extensions(const dmp_profile *p, const VkExtensionProperties *driver, uint32_t driver_count,
                              VkExtensionProperties *added)
{
    uint32_t n = 0;
    if (p->portability_subset.u[0] && !dmp_listed(driver, driver_count, VK_KHR_PORTABILITY_SUBSET_EXTENSION_NAME)) {
        added[n] = (VkExtensionProperties){"", VK_KHR_PORTABILITY_SUBSET_SPEC_VERSION};
        snprintf(added[n++].extensionName, VK_MAX_EXTENSION_NAME_SIZE, "%s", VK_KHR_PORTABILITY_SUBSET_EXTENSION_NAME);
    }
    if (p->memory_budget.set && !dmp_listed(driver, driver_count, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME)) {
        added[n] = (VkExtensionProperties){"", VK_EXT_MEMORY_BUDGET_SPEC_VERSION};
        snprintf(added[n++].extensionName, VK_MAX_EXTENSION_NAME_SIZE, "%s", VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    }
    return n;
}
