/* The device the report compiles on, with VK_KHR_pipeline_executable_properties, and what
 * the driver says of a pipeline through it (isa.h). */
#include <stdlib.h>
#include <string.h>

#include "isa.h"

const char *isa_radv_icd(void)
{
    /* RADV_ICD names it where it lies elsewhere (as the Makefile's variable does). */
    const char *named = getenv("RADV_ICD");
    if (named && *named) {
        FILE *f = fopen(named, "r");
        if (!f) return NULL;
        fclose(f);
        return named;
    }
    /* Debian's mesa-vulkan-drivers names each architecture's ICD file by its
     * `uname -m`-like name; only the build's own architecture can be loaded. */
#if defined(__x86_64__)
    static const char icd[] = "/usr/share/vulkan/icd.d/radeon_icd.x86_64.json";
#elif defined(__aarch64__)
    static const char icd[] = "/usr/share/vulkan/icd.d/radeon_icd.aarch64.json";
#elif defined(__i386__)
    static const char icd[] = "/usr/share/vulkan/icd.d/radeon_icd.i686.json";
#elif defined(__arm__)
    static const char icd[] = "/usr/share/vulkan/icd.d/radeon_icd.armv7l.json";
#else
    static const char icd[] = "";
#endif
    FILE *f = icd[0] ? fopen(icd, "r") : NULL;
    if (!f) return NULL;
    fclose(f);
    return icd;
}

/* Any queue family with compute: the report submits nothing, but a device needs a queue. */
static uint32_t isa_compute_family(const dm_vk_device *d)
{
    VkQueueFamilyProperties q[DM_VK_MAX_FAMILIES];
    const uint32_t n = dm_vk_queue_families(&d->inst.vki, d->phys, q);
    for (uint32_t i = 0; i < n; i++)
        if ((q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && q[i].queueCount) return i;
    return UINT32_MAX;
}

dmlops_status isa_device_open(const char *request, const dm_vk_params *params, isa_device *d)
{
    memset(d, 0, sizeof *d);
    dm_vk_device *v = &d->dev;
    DM_TRY(dm_vk_instance_create(false, true, &v->inst));
    DM_TRY(dm_vk_choose_device(&v->inst, request, false, &v->phys, &v->info));
    const char *ext = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pe = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &pe};
    if (dm_vk_has_device_extension(&v->inst.vki, v->phys, ext)) v->inst.vki.GetPhysicalDeviceFeatures2(v->phys, &f2);
    /* Without it (lavapipe) the pipelines are still made, which is what a crash or a
     * refusal shows; only the statistics and the code are missing. */
    const bool stats = pe.pipelineExecutableInfo;
    v->queue_family = isa_compute_family(v);
    if (v->queue_family == UINT32_MAX) return dm_fail(DMLOPS_ERROR_NO_DEVICE, "%s has no compute queue", v->info.name);
    const float prio = 1.0f;
    const VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                         .queueFamilyIndex = v->queue_family,
                                         .queueCount = 1,
                                         .pQueuePriorities = &prio};
    const VkDeviceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                   .pNext = stats ? &f2 : NULL,
                                   .queueCreateInfoCount = 1,
                                   .pQueueCreateInfos = &qci,
                                   .enabledExtensionCount = stats ? 1 : 0,
                                   .ppEnabledExtensionNames = &ext};
    pe.pipelineExecutableInfo = VK_TRUE;
    f2.features = (VkPhysicalDeviceFeatures){0}; /* the kernels need no optional feature */
    const VkResult r = v->inst.vki.CreateDevice(v->phys, &ci, NULL, &v->device);
    if (r != VK_SUCCESS) return dm_vk_fail(NULL, r, "vkCreateDevice", v->info.name);
    v->owned = true;
    dm_vk_load_device_table(&v->inst.vki, v->device, &v->vkd);
    d->properties = (PFN_vkGetPipelineExecutablePropertiesKHR)v->inst.vki.GetDeviceProcAddr(
        v->device, "vkGetPipelineExecutablePropertiesKHR");
    d->statistics = (PFN_vkGetPipelineExecutableStatisticsKHR)v->inst.vki.GetDeviceProcAddr(
        v->device, "vkGetPipelineExecutableStatisticsKHR");
    d->representations = (PFN_vkGetPipelineExecutableInternalRepresentationsKHR)v->inst.vki.GetDeviceProcAddr(
        v->device, "vkGetPipelineExecutableInternalRepresentationsKHR");
    if (stats && (!d->properties || !d->statistics || !d->representations))
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: the driver lists %s but lacks its functions", v->info.name, ext);
    if (!stats) d->properties = NULL, d->statistics = NULL, d->representations = NULL;
    /* The limits a context on this device plans with. */
    dm_vk_limits_for(&v->inst.vki, v->phys, &v->info, params, 0, &v->lim);
    DM_TRY(dm_vk_pipelines_init(v, NULL, false, &d->pipes));
    d->pipes.create_flags = stats ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
                                        VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR
                                  : 0;
    return DMLOPS_SUCCESS;
}

void isa_device_close(isa_device *d)
{
    if (d->dev.device) dm_vk_pipelines_destroy(&d->dev, &d->pipes);
    dm_vk_device_close(&d->dev);
}

static double isa_stat_number(const VkPipelineExecutableStatisticKHR *s)
{
    switch (s->format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: return s->value.b32 ? 1 : 0;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: return (double)s->value.i64;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: return (double)s->value.u64;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: return s->value.f64;
    default: return -1;
    }
}

/* Representation `want` of the executable's n (their names and sizes in ir), as text
 * (malloc'd), or NULL where it is empty; sets *st on failure. */
static char *isa_read_representation(isa_device *d, const VkPipelineExecutableInfoKHR *ei,
                                     VkPipelineExecutableInternalRepresentationKHR *ir, uint32_t want,
                                     dmlops_status *st)
{
    const size_t size = ir[want].dataSize;
    if (!size) return NULL;
    char *text = calloc(1, size + 1);
    if (!text) {
        *st = dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory reading a pipeline's code");
        return NULL;
    }
    ir[want].pData = text;
    uint32_t one = want + 1; /* the wanted one is the last of the first want + 1 */
    const VkResult r = d->representations(d->dev.device, ei, &one, ir);
    ir[want].pData = NULL;
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        free(text);
        *st = dm_vk_fail(NULL, r, "vkGetPipelineExecutableInternalRepresentationsKHR", "reading a pipeline's code");
        return NULL;
    }
    text[size] = 0;
    return text;
}

/* The disassembly among the executable's representations: RADV names it "Assembly"
 * (ACO) or "Disassembly"; other drivers' text representations are kept only by those
 * names too, so that the parser never reads an IR as machine code. And the shared memory
 * the final NIR declares (its "shared: N" line: turnip's "Final NIR", v3dv's "NIR
 * (compute)"), for the drivers whose statistics do not say. */
static dmlops_status isa_read_disassembly(isa_device *d, const VkPipelineExecutableInfoKHR *ei, isa_shader *s)
{
    enum { MAX_IR = 16 };
    VkPipelineExecutableInternalRepresentationKHR ir[MAX_IR];
    for (uint32_t i = 0; i < MAX_IR; i++)
        ir[i] = (VkPipelineExecutableInternalRepresentationKHR){
            .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR};
    uint32_t n = MAX_IR;
    /* First their names and sizes (pData NULL), then the ones wanted. */
    VkResult r = d->representations(d->dev.device, ei, &n, ir);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return dm_vk_fail(NULL, r, "vkGetPipelineExecutableInternalRepresentationsKHR", "reading a pipeline's code");
    uint32_t want = n, nir = n;
    /* DMLOPS_ISA_IR names another representation to show as the code (--disassembly): a
     * driver's NIR or its own assembly (v3dv: "QPU (compute)"), which the report then
     * shows but cannot read. */
    const char *other = getenv("DMLOPS_ISA_IR");
    for (uint32_t i = 0; i < n; i++) {
        if (!ir[i].isText) continue;
        if (want == n && other && *other && !strncmp(ir[i].name, other, strlen(other))) want = i;
        if (want == n && (!other || !*other) && (!strcmp(ir[i].name, "Assembly") || !strcmp(ir[i].name, "Disassembly")))
            want = i;
        if (!strcmp(ir[i].name, "Final NIR") || !strncmp(ir[i].name, "NIR (", 5)) nir = i;
    }
    dmlops_status st = DMLOPS_SUCCESS;
    if (nir < n) {
        char *text = isa_read_representation(d, ei, ir, nir, &st);
        const char *line = text ? strstr(text, "\nshared: ") : NULL;
        if (line) s->shared_ir = strtod(line + 9, NULL);
        free(text);
    }
    if (want == n || st != DMLOPS_SUCCESS) return st;
    s->disassembly = isa_read_representation(d, ei, ir, want, &st);
    if (s->disassembly) snprintf(s->disassembly_name, sizeof s->disassembly_name, "%s", ir[want].name);
    return st;
}

dmlops_status isa_shader_read(isa_device *d, VkPipeline pipe, isa_shader *s)
{
    memset(s, 0, sizeof *s);
    s->shared_ir = -1;
    if (!d->properties) { /* no VK_KHR_pipeline_executable_properties: nothing to read */
        snprintf(s->executable, sizeof s->executable, "(no statistics)");
        return DMLOPS_SUCCESS;
    }
    const VkDevice dev = d->dev.device;
    const VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = pipe};
    uint32_t n = 1;
    VkPipelineExecutablePropertiesKHR props = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR};
    VkResult r = d->properties(dev, &pi, &n, &props);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0)
        return dm_vk_fail(NULL, r, "vkGetPipelineExecutablePropertiesKHR", "reading a pipeline's executables");
    snprintf(s->executable, sizeof s->executable, "%s", props.name);
    s->subgroup = props.subgroupSize;
    s->shared_ir = -1;
    const VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
                                            .pipeline = pipe,
                                            .executableIndex = 0};
    VkPipelineExecutableStatisticKHR st[ISA_MAX_STATS];
    for (uint32_t i = 0; i < ISA_MAX_STATS; i++)
        st[i] = (VkPipelineExecutableStatisticKHR){.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
    n = ISA_MAX_STATS;
    r = d->statistics(dev, &ei, &n, st);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return dm_vk_fail(NULL, r, "vkGetPipelineExecutableStatisticsKHR", "reading a pipeline's statistics");
    for (uint32_t i = 0; i < n; i++) {
        snprintf(s->stat[i].name, sizeof s->stat[i].name, "%s", st[i].name);
        s->stat[i].value = isa_stat_number(&st[i]);
    }
    s->nstats = n;
    return isa_read_disassembly(d, &ei, s);
}

void isa_shader_free(isa_shader *s)
{
    free(s->disassembly);
    s->disassembly = NULL;
}

double isa_stat_value(const isa_shader *s, const char *name)
{
    for (uint32_t i = 0; i < s->nstats; i++)
        if (!strcmp(s->stat[i].name, name)) return s->stat[i].value;
    return -1;
}

/* The first of the named statistics the driver gives, or -1. */
static double isa_stat_any(const isa_shader *s, const char *a, const char *b)
{
    const double v = isa_stat_value(s, a);
    return v >= 0 || !b ? v : isa_stat_value(s, b);
}

void isa_shader_norm(const isa_shader *s, isa_norm *n)
{
    n->instructions = isa_stat_any(s, "Instructions", "Instruction Count");
    n->registers = isa_stat_any(s, "VGPRs", "Registers used");
    n->spills = n->fills = -1;
    n->width = -1;
    n->width_kind = ISA_WIDTH_NONE;
    n->shared = isa_stat_any(s, "LDS size", "Workgroup Memory Size");
    if (n->shared < 0) n->shared = s->shared_ir;
    if (isa_stat_value(s, "Spilled VGPRs") >= 0) { /* RADV */
        n->spills = isa_stat_value(s, "Spilled VGPRs") + (isa_stat_value(s, "Spilled SGPRs") > 0 ? isa_stat_value(s, "Spilled SGPRs") : 0);
        n->width = isa_stat_value(s, "Subgroups per SIMD");
        n->width_kind = ISA_WIDTH_WAVES_SIMD;
    } else if (isa_stat_value(s, "Spill Count") >= 0) { /* ANV */
        n->spills = isa_stat_value(s, "Spill Count");
        n->fills = isa_stat_value(s, "Fill Count");
        n->width = s->subgroup;
        n->width_kind = ISA_WIDTH_SIMD;
    } else if (isa_stat_value(s, "STP Count") >= 0) { /* turnip */
        n->spills = isa_stat_value(s, "STP Count");
        n->fills = isa_stat_value(s, "LDP Count");
        n->width = isa_stat_value(s, "Max Waves Per Core");
        n->width_kind = ISA_WIDTH_WAVES_CORE;
    } else if (isa_stat_value(s, "TMU Spills") >= 0) { /* v3dv: its shaderdb line (isa_capture.c) */
        if (!isa_shaderdb_spills(s->log, &n->spills, &n->fills)) n->spills = n->fills = -1;
        n->width = isa_stat_value(s, "Thread Count");
        n->width_kind = ISA_WIDTH_THREADS;
    }
}

const char *isa_width_name(isa_width_kind k)
{
    switch (k) {
    case ISA_WIDTH_WAVES_SIMD: return "waves/SIMD";
    case ISA_WIDTH_SIMD: return "SIMD";
    case ISA_WIDTH_WAVES_CORE: return "waves/core";
    case ISA_WIDTH_THREADS: return "threads";
    default: return "width";
    }
}
