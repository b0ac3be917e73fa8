/* Listing an instance's devices, the default ranking, and the choice of a device
 * (vk_physical.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk_physical.h"
#include "../platform/platform.h"
#include "../fault.h"

/* Default order: discrete, integrated, virtual, CPU, other. */
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

void dm_vk_device_list_free(dm_vk_device_list *l)
{
    free(l->phys);
    free(l->info);
    free(l->usable);
    memset(l, 0, sizeof *l);
    l->def = l->hw = -1;
}

dmlops_status dm_vk_list_devices(const dm_vk_instance *inst, dm_vk_device_list *l)
{
    memset(l, 0, sizeof *l);
    l->def = l->hw = -1;
    uint32_t n = 0;
    VkResult r = inst->vki.EnumeratePhysicalDevices(inst->instance, &n, NULL);
    if (r == VK_SUCCESS && n) {
        l->phys = dm_calloc(n, sizeof *l->phys);
        l->info = dm_calloc(n, sizeof *l->info);
        l->usable = dm_calloc(n, sizeof *l->usable);
        if (!l->phys || !l->info || !l->usable) {
            dm_vk_device_list_free(l);
            return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory listing devices");
        }
        r = inst->vki.EnumeratePhysicalDevices(inst->instance, &n, l->phys);
        if (r == VK_INCOMPLETE) r = VK_SUCCESS; /* fewer than counted: n says how many */
    }
    if (r != VK_SUCCESS || n == 0) {
        dm_vk_device_list_free(l);
        if (r != VK_SUCCESS) return dm_vk_fail(NULL, r, "vkEnumeratePhysicalDevices", "listing Vulkan devices");
        return dm_fail(DMLOPS_ERROR_NO_DEVICE, "no Vulkan device found (is a Vulkan driver installed?)");
    }
    l->count = n;
    for (uint32_t i = 0; i < n; i++) {
        dm_vk_fill_device_info(&inst->vki, l->phys[i], i, &l->info[i]);
        l->usable[i] = dm_vk_usable(&inst->vki, l->phys[i], &l->info[i]);
        if (!l->usable[i]) continue;
        int rank = dm_type_rank(l->info[i].type);
        if (l->def < 0 || rank < dm_type_rank(l->info[l->def].type)) l->def = (int)i;
        if (l->info[i].type != DMLOPS_DEVICE_TYPE_CPU && (l->hw < 0 || rank < dm_type_rank(l->info[l->hw].type)))
            l->hw = (int)i;
    }
    return DMLOPS_SUCCESS;
}

static const char *dm_type_name(dmlops_device_type t)
{
    static const char *const n[] = {"other", "integrated GPU", "discrete GPU", "virtual GPU", "CPU"};
    return (unsigned)t < 5 ? n[t] : "other";
}
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

/* The first usable device that a request names: an index, a UUID, or a name substring. */
static int dm_match(const dm_vk_device_list *l, const char *request)
{
    uint8_t uuid[16];
    char *end = NULL;
    unsigned long index = strtoul(request, &end, 10);
    bool by_index = *end == 0 && isdigit((unsigned char)request[0]);
    bool by_uuid = !by_index && dm_parse_uuid(request, uuid);
    for (uint32_t i = 0; i < l->count; i++) {
        bool match = by_index ? index == i : by_uuid ? !memcmp(uuid, l->info[i].uuid, 16)
                                                     : dm_contains_ci(l->info[i].name, request);
        if (match && l->usable[i]) return (int)i;
    }
    return -1;
}

dmlops_status dm_vk_choose_device(const dm_vk_instance *inst, const char *request, bool hardware_only,
                                  VkPhysicalDevice *phys, dmlops_device_info *info)
{
    dm_vk_device_list l;
    DM_TRY(dm_vk_list_devices(inst, &l));
    bool named = request && *request;
    int best = named ? dm_match(&l, request) : hardware_only ? l.hw : l.def;
    dmlops_status st = DMLOPS_SUCCESS;
    if (best < 0) {
        char list[768];
        size_t len = 0;
        list[0] = 0;
        for (uint32_t i = 0; i < l.count; i++)
            len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%u: %s (%s, %s)%s",
                                    i ? "; " : "", i, l.info[i].name, dm_type_name(l.info[i].type),
                                    l.info[i].uuid_string, l.usable[i] ? "" : " [unusable: needs Vulkan 1.1 compute]");
        if (named)
            st = dm_fail(DMLOPS_ERROR_NO_DEVICE, "Vulkan device \"%s\" not found; available: %s", request, list);
        else if (hardware_only && l.def >= 0)
            st = dm_fail(DMLOPS_ERROR_NO_DEVICE, "only software Vulkan devices: %s", list);
        else
            st = dm_fail(DMLOPS_ERROR_NO_DEVICE, "no usable Vulkan device (needs Vulkan 1.1 and compute); found: %s",
                         list);
    } else {
        *phys = l.phys[best];
        *info = l.info[best];
        info->is_default = best == l.def;
    }
    dm_vk_device_list_free(&l);
    return st;
}

uint32_t dm_vk_device_index(const dm_vk_instance *inst, VkPhysicalDevice phys)
{
    uint32_t n = 0, index = UINT32_MAX;
    VkPhysicalDevice *all = NULL;
    if (inst->vki.EnumeratePhysicalDevices(inst->instance, &n, NULL) == VK_SUCCESS && n &&
        (all = dm_calloc(n, sizeof *all)) && inst->vki.EnumeratePhysicalDevices(inst->instance, &n, all) == VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++)
            if (all[i] == phys) index = i;
    free(all);
    return index;
}

dmlops_status dm_vk_enumerate(dmlops_device_info *infos, uint32_t *count)
{
    dm_vk_instance inst;
    memset(&inst, 0, sizeof inst);
    dmlops_status st = dm_vk_instance_create(false, false, &inst);
    dm_vk_device_list l;
    if (st == DMLOPS_SUCCESS) st = dm_vk_list_devices(&inst, &l);
    if (st == DMLOPS_SUCCESS) {
        uint32_t w = infos && *count < l.count ? *count : l.count;
        for (uint32_t i = 0; infos && i < w; i++) {
            infos[i] = l.info[i];
            infos[i].is_default = (int)i == l.def;
        }
        *count = w;
        dm_vk_device_list_free(&l);
    }
    dm_vk_instance_destroy(&inst);
    return st;
}
