/* A device profile as the test layer reports it (profile_layer.c): the limits, features,
 * extensions, queues and memory a chosen device would report, read from a profile file
 * (test/profile_layer/README.md says the format). The layer only ever narrows what the driver below
 * it offers: a limit above the driver's stays the driver's, an alignment below the
 * driver's stays the driver's, so that the suites never rely on more than the device
 * really provides (profile_apply.c). */
#ifndef DMP_PROFILE_H
#define DMP_PROFILE_H

#define VK_ENABLE_BETA_EXTENSIONS /* VK_KHR_portability_subset's structures */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#define DMP_MAX_TYPES 8
#define DMP_MAX_EXTENSIONS 64

/* One key of the profile: its value, when the file set it. */
typedef struct dmp_value {
    bool set;
    uint64_t u[3]; /* integers; three for the per-dimension compute limits */
} dmp_value;

/* Keys that map to VkPhysicalDeviceLimits members (profile_keys.c). */
typedef enum dmp_rule {
    DMP_AT_MOST,  /* a capacity: min(profile, driver) */
    DMP_AT_LEAST, /* an alignment or granularity: max(profile, driver) */
    DMP_BOOL_AND, /* an optional capability: profile && driver */
} dmp_rule;

typedef enum dmp_kind { DMP_U32, DMP_U32X3, DMP_SIZE, DMP_DEVSIZE, DMP_BOOL } dmp_kind;

typedef struct dmp_limit_key {
    const char *name;
    size_t offset; /* in VkPhysicalDeviceLimits */
    dmp_kind kind;
    dmp_rule rule;
} dmp_limit_key;

extern const dmp_limit_key dmp_limit_keys[];
extern const size_t dmp_limit_key_count;

typedef struct dmp_profile {
    char name[64];
    dmp_value limits[96]; /* indexed like dmp_limit_keys */
    dmp_value api_version, device_type, vendor_id, device_id;
    dmp_value subgroup_size, subgroup_stages, subgroup_operations;
    dmp_value max_memory_allocation_size, max_per_set_descriptors, max_buffer_size;
    dmp_value timestamp_valid_bits, heap_size, memory_budget;
    dmp_value no_optional_features; /* every optional feature reported false */
    dmp_value portability_subset;   /* VK_KHR_portability_subset offered */
    uint32_t memory_type_count;     /* 0: the driver's types */
    VkMemoryPropertyFlags memory_types[DMP_MAX_TYPES];
    bool extensions_listed; /* device_extensions given: only those (and only if the driver has them) */
    uint32_t extension_count;
    char extensions[DMP_MAX_EXTENSIONS][VK_MAX_EXTENSION_NAME_SIZE];
} dmp_profile;

/* Reads the profile file at path (and those it includes) into p; false with a message
 * on stderr when it cannot. */
bool dmp_profile_load(const char *path, dmp_profile *p);

/* What the layer reports, given the driver's answer (profile_apply.c). */
void dmp_apply_properties(const dmp_profile *p, VkPhysicalDeviceProperties *props);
void dmp_apply_properties_chain(const dmp_profile *p, void *pnext);
void dmp_apply_features(const dmp_profile *p, VkPhysicalDeviceFeatures *f);
void dmp_apply_features_chain(const dmp_profile *p, void *pnext);
void dmp_apply_queue_families(const dmp_profile *p, VkQueueFamilyProperties *q, uint32_t n);
void dmp_apply_memory(const dmp_profile *p, VkPhysicalDeviceMemoryProperties *m);
void dmp_apply_memory_chain(const dmp_profile *p, const VkPhysicalDeviceMemoryProperties *m, void *pnext);
/* Whether the profile reports extension `name` of the driver's, and the ones it adds
 * itself (VK_KHR_portability_subset, VK_EXT_memory_budget) that the driver lacks. */
bool dmp_keeps_extension(const dmp_profile *p, const char *name);
uint32_t dmp_added_extensions(const dmp_profile *p, const VkExtensionProperties *driver, uint32_t driver_count,
                              VkExtensionProperties *added);

#endif
