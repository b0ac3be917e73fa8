/* Layouts, shader modules, pipelines and the pipeline cache (vk_pipeline.h). The cache
 * file carries a header tying it to the device and driver, is read only when it is a
 * regular file, and is replaced atomically (dm_write_file_atomic): the path comes from
 * the environment, and a program run as root must not replace /dev/zero with it, write
 * through a name someone planted, or wait forever on a FIFO. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "vk_abi.h"
#include "vk_pipeline.h"
#include "vk_plan.h"
#include "../fault.h"

#define DM_CACHE_MAGIC 0x434c4d44u /* "DMLC" */
#define DM_CACHE_VERSION 1u

typedef struct dm_cache_header {
    uint32_t magic, version;
    uint32_t vendor_id, device_id, driver_version;
    uint8_t uuid[16];
    uint64_t size;
    uint64_t checksum; /* FNV-1a of the data */
} dm_cache_header;

static uint64_t dm_fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static void dm_cache_header_for(const dm_vk_device *d, dm_cache_header *h)
{
    memset(h, 0, sizeof *h);
    h->magic = DM_CACHE_MAGIC;
    h->version = DM_CACHE_VERSION;
    h->vendor_id = d->info.vendor_id;
    h->device_id = d->info.device_id;
    h->driver_version = d->info.driver_version;
    memcpy(h->uuid, d->info.uuid, 16);
}

/* Reads the cache file; returns NULL (and no error: a stale or broken cache is only a
 * slower start) unless it matches this device and driver. */
static void *dm_cache_load(const dm_vk_device *d, const char *path, size_t *size)
{
    FILE *f = path ? dm_fopen_regular(path) : NULL; /* a FIFO or a device node is not read */
    dm_cache_header want, got;
    void *data = NULL;
    if (!f) return NULL;
    dm_cache_header_for(d, &want);
    if (fread(&got, sizeof got, 1, f) == 1 && got.magic == want.magic && got.version == want.version &&
        got.vendor_id == want.vendor_id && got.device_id == want.device_id &&
        got.driver_version == want.driver_version && !memcmp(got.uuid, want.uuid, 16) && got.size &&
        got.size < (256u << 20) && (data = dm_malloc((size_t)got.size))) {
        if (fread(data, 1, (size_t)got.size, f) != got.size || dm_fnv1a(data, (size_t)got.size) != got.checksum) {
            free(data);
            data = NULL;
        }
    }
    fclose(f);
    *size = data ? (size_t)got.size : 0;
    return data;
}

static void dm_cache_save(const dm_vk_device *d, const dm_vk_pipelines *p)
{
    size_t size = 0;
    if (!p->cache_path || !p->cache || d->vkd.GetPipelineCacheData(d->device, p->cache, &size, NULL) != VK_SUCCESS ||
        !size)
        return;
    void *data = dm_malloc(size);
    if (!data) return;
    if (d->vkd.GetPipelineCacheData(d->device, p->cache, &size, data) == VK_SUCCESS) {
        dm_cache_header h;
        dm_cache_header_for(d, &h);
        h.size = size;
        h.checksum = dm_fnv1a(data, size);
        const void *parts[2] = {&h, data};
        const size_t lens[2] = {sizeof h, size};
        /* A cache that cannot be saved is only a slower start next time: not an error of
         * dmlops_context_destroy, which has no status to return. */
        (void)dm_write_file_atomic(p->cache_path, parts, lens, 2);
    }
    free(data);
}

/* The most bindings a layout below holds (the gather kernels' and the trace buffer). */
#define DM_VK_MAX_BINDINGS 10

/* A descriptor-set layout of `count` compute bindings typed by type(i), and a pipeline
 * layout of that set and push_bytes of push constants; each made unless it exists. */
static dmlops_status dm_vk_layouts(dm_vk_device *d, const char *what, uint32_t count, VkDescriptorType (*type)(uint32_t),
                                   uint32_t push_bytes, VkDescriptorSetLayout *set_layout, VkPipelineLayout *layout)
{
    if (!*set_layout) {
        VkDescriptorSetLayoutBinding b[DM_VK_MAX_BINDINGS];
        for (uint32_t i = 0; i < count && i < DM_VK_MAX_BINDINGS; i++)
            b[i] = (VkDescriptorSetLayoutBinding){i, type(i), 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
        VkDescriptorSetLayoutCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                               .bindingCount = count < DM_VK_MAX_BINDINGS ? count : DM_VK_MAX_BINDINGS,
                                               .pBindings = b};
        DM_VK_CALL(d, what, CreateDescriptorSetLayout, (d->device, &dci, d->vk_alloc, set_layout));
    }
    if (!*layout) {
        VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
        VkPipelineLayoutCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                          .setLayoutCount = 1,
                                          .pSetLayouts = set_layout,
                                          .pushConstantRangeCount = 1,
                                          .pPushConstantRanges = &pcr};
        DM_VK_CALL(d, what, CreatePipelineLayout, (d->device, &pci, d->vk_alloc, layout));
    }
    return DMLOPS_SUCCESS;
}
_Static_assert(DM_BINDING_TRACE < DM_VK_MAX_BINDINGS && DM_COPY_BINDING_TRACE < DM_VK_MAX_BINDINGS,
               "dm_vk_layouts holds DM_VK_MAX_BINDINGS bindings");

dmlops_status dm_vk_pipelines_init(dm_vk_device *d, const char *cache_path, bool trace, dm_vk_pipelines *p)
{
    p->trace = trace;
    if (!dm_mutex_init(&p->lock))
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a mutex");
    p->lock_ready = true;
    if (cache_path && *cache_path && !(p->cache_path = dm_strdup(cache_path)))
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    DM_TRY(dm_vk_layouts(d, "creating pipeline layouts", dm_vk_set_bindings(trace), dm_vk_binding_type,
                         sizeof(dm_vk_push), &p->set_layout, &p->layout));
    size_t size = 0;
    void *data = dm_cache_load(d, p->cache_path, &size);
    VkPipelineCacheCreateInfo cci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                     .initialDataSize = size,
                                     .pInitialData = data};
    VkResult r = d->vkd.CreatePipelineCache(d->device, &cci, d->vk_alloc, &p->cache);
    if (r != VK_SUCCESS && data) { /* a driver may still refuse the blob: start empty */
        cci.initialDataSize = 0;
        cci.pInitialData = NULL;
        r = d->vkd.CreatePipelineCache(d->device, &cci, d->vk_alloc, &p->cache);
    }
    free(data);
    if (r != VK_SUCCESS) return dm_vk_fail(&d->lost, r, "vkCreatePipelineCache", "creating the pipeline cache");
    return DMLOPS_SUCCESS;
}

void dm_vk_pipelines_destroy(const dm_vk_device *d, dm_vk_pipelines *p)
{
    dm_cache_save(d, p);
    /* Every slot of the many-dimensional table, in memory order. */
    VkPipeline *all = &p->pipelines[0][0][0][0][0][0][0][0];
    for (size_t i = 0; i < sizeof p->pipelines / sizeof *all; i++)
        if (all[i]) d->vkd.DestroyPipeline(d->device, all[i], d->vk_alloc);
    for (uint32_t i = 0; i < p->nothers; i++)
        if (p->others[i].pipeline) d->vkd.DestroyPipeline(d->device, p->others[i].pipeline, d->vk_alloc);
    free(p->others);
    VkPipeline *copies = &p->copy_pipeline[0][0][0];
    for (size_t i = 0; i < sizeof p->copy_pipeline / sizeof *copies; i++)
        if (copies[i]) d->vkd.DestroyPipeline(d->device, copies[i], d->vk_alloc);
    if (p->copy_layout) d->vkd.DestroyPipelineLayout(d->device, p->copy_layout, d->vk_alloc);
    if (p->copy_set_layout) d->vkd.DestroyDescriptorSetLayout(d->device, p->copy_set_layout, d->vk_alloc);
    if (p->cache) d->vkd.DestroyPipelineCache(d->device, p->cache, d->vk_alloc);
    if (p->layout) d->vkd.DestroyPipelineLayout(d->device, p->layout, d->vk_alloc);
    if (p->set_layout) d->vkd.DestroyDescriptorSetLayout(d->device, p->set_layout, d->vk_alloc);
    free(p->cache_path);
    if (p->lock_ready) dm_mutex_destroy(&p->lock);
    memset(p, 0, sizeof *p);
}

/* A compute pipeline from SPIR-V with its specialisation: the module lives only while
 * the pipeline is made. */
static dmlops_status dm_vk_compute_pipeline(dm_vk_device *d, VkPipelineCache cache, VkPipelineCreateFlags flags,
                                            const dm_spirv *code, const VkSpecializationInfo *si,
                                            VkPipelineLayout layout, const char *what, VkPipeline *out)
{
    VkShaderModuleCreateInfo sci = {
        .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = code->size, .pCode = code->code};
    VkShaderModule module = VK_NULL_HANDLE;
    DM_VK_CALL(d, what, CreateShaderModule, (d->device, &sci, d->vk_alloc, &module));
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .flags = flags,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = "main",
                  .pSpecializationInfo = si},
        .layout = layout};
    VkPipeline made = VK_NULL_HANDLE;
    VkResult r = d->vkd.CreateComputePipelines(d->device, cache, 1, &ci, d->vk_alloc, &made);
    d->vkd.DestroyShaderModule(d->device, module, d->vk_alloc);
    if (r != VK_SUCCESS) return dm_vk_fail(&d->lost, r, "vkCreateComputePipelines", what);
    *out = made;
    return DMLOPS_SUCCESS;
}

void dm_vk_kernel_key_make(const dm_vk_limits *lim, const dm_vk_kernel_form *f, bool trace, dm_vk_kernel_key *k)
{
    memset(k, 0, sizeof *k);
    k->kernel = f->kernel;
    k->esize_log2 = f->esize == 1 ? 0 : f->esize == 2 ? 1 : f->esize == 4 ? 2 : 3;
    k->bucket = f->bucket;
    k->variant = f->variant;
    k->texel = f->texel;
    k->code = trace ? &dm_kernels_trace[f->kernel][k->bucket][k->variant]
                    : &dm_kernels[f->kernel][k->bucket][k->variant][f->texel];
    k->form = f->partial ? 2 : f->wide;
    k->spec[DM_SPEC_WORKGROUP] = lim->workgroup;
    k->spec[DM_SPEC_ESIZE] = f->esize;
    /* dm_vk_unit_shape's wider units: runs of 8 chunks shared by 32 lanes. */
    k->spec[DM_SPEC_RUN] = f->wide ? 8 : lim->run;
    k->spec[DM_SPEC_AUX_TYPE] = f->aux_type;
    k->spec[DM_SPEC_LANES] = f->wide ? (lim->workgroup < 32 ? lim->workgroup : 32) : lim->lanes;
    k->spec[DM_SPEC_ALIGNED] = f->aligned;
    k->spec[DM_SPEC_PARTIAL] = f->partial;
    /* The GPU tiles' (only their modules have these constants). */
    k->spec[DM_SPEC_LDS_VECS] = lim->tile_lds ? lim->tile_lds : 1;
    k->spec[DM_SPEC_TILE_V] = lim->tile_v ? lim->tile_v : 1;
    k->spec[DM_SPEC_PEND] = lim->cpu_tuning ? 8 : 1;
}

void dm_vk_kernel_spec(const dm_vk_limits *lim, const dm_gather *g, bool fast, bool texel, bool axis_split, bool trace,
                       dm_vk_kernel_key *k)
{
    dm_vk_kernel_form f = {.kernel = g->kernel, .esize = g->esize, .bucket = g->rank <= 2 ? 0 : g->rank <= 4 ? 1 : 2,
                           .texel = texel, .aux_type = dm_kernel_aux_type(g)};
    f.variant = fast ? dm_kernel_variant(g, texel) : DM_VARIANT_GENERAL;
    uint32_t run, lanes;
    dm_vk_unit_shape(lim, g, f.variant, &run, &lanes);
    f.partial = dm_kernel_partial(g, f.variant, axis_split);
    f.wide = !f.partial && (run != lim->run || lanes != lim->lanes);
    f.aligned = dm_kernel_src_aligned(g, f.variant);
    dm_vk_kernel_key_make(lim, &f, trace, k);
}

dmlops_status dm_vk_kernel_pipeline(dm_vk_device *d, VkPipelineCache cache, VkPipelineCreateFlags flags,
                                    VkPipelineLayout layout, const dm_vk_kernel_key *k, VkPipeline *out)
{
    if (!k->code->code)
        return dm_fail(DMLOPS_ERROR_BACKEND, "creating a kernel pipeline: no module for kernel %d, variant %u",
                       (int)k->kernel, k->variant);
    VkSpecializationMapEntry entries[DM_SPEC_COUNT];
    for (uint32_t i = 0; i < DM_SPEC_COUNT; i++) entries[i] = (VkSpecializationMapEntry){i, i * 4, 4};
    const VkSpecializationInfo si = {DM_SPEC_COUNT, entries, sizeof k->spec, k->spec};
    return dm_vk_compute_pipeline(d, cache, flags, k->code, &si, layout, "creating a kernel pipeline", out);
}

/* Whether two keys name the same pipeline: one module, one specialisation, one slot. */
static bool dm_vk_same_key(const dm_vk_kernel_key *a, const dm_vk_kernel_key *b)
{
    return a->kernel == b->kernel && a->esize_log2 == b->esize_log2 && a->bucket == b->bucket &&
           a->variant == b->variant && a->texel == b->texel && a->form == b->form && a->code == b->code &&
           !memcmp(a->spec, b->spec, sizeof a->spec);
}

/* The slot of a pipeline made under limits other than the device's: found, or added
 * empty; NULL when out of host memory. */
static VkPipeline *dm_vk_other_slot(dm_vk_pipelines *p, const dm_vk_kernel_key *k)
{
    for (uint32_t i = 0; i < p->nothers; i++)
        if (p->others[i].code == k->code->code && !memcmp(p->others[i].spec, k->spec, sizeof k->spec))
            return &p->others[i].pipeline;
    if (p->nothers == p->cap_others) {
        const uint32_t cap = p->cap_others ? p->cap_others * 2 : 16;
        struct dm_vk_other_pipeline *q = dm_realloc(p->others, cap * sizeof *q);
        if (!q) return NULL;
        p->others = q;
        p->cap_others = cap;
    }
    struct dm_vk_other_pipeline *o = &p->others[p->nothers++];
    o->code = k->code->code;
    memcpy(o->spec, k->spec, sizeof k->spec);
    o->pipeline = VK_NULL_HANDLE;
    return &o->pipeline;
}

static dmlops_status dm_vk_make_pipeline(dm_vk_device *d, dm_vk_pipelines *p, const dm_vk_limits *lim,
                                         const dm_gather *g, bool fast, bool texel, bool axis_split, VkPipeline *out)
{
    dm_vk_kernel_key k;
    dm_vk_kernel_spec(lim, g, fast, texel, axis_split, p->trace, &k);
    /* The table holds the pipelines of the device's limits; another specialisation (a
     * tuned class's workgroup, units or tiles) has a slot of its own. */
    bool device_slot = lim == &d->lim;
    if (!device_slot) {
        dm_vk_kernel_key own;
        dm_vk_kernel_spec(&d->lim, g, fast, texel, axis_split, p->trace, &own);
        device_slot = dm_vk_same_key(&k, &own);
    }
    VkPipeline *slot = device_slot
                           ? &p->pipelines[k.kernel][k.esize_log2][k.bucket][k.variant][k.spec[DM_SPEC_AUX_TYPE]]
                                          [texel][k.spec[DM_SPEC_ALIGNED]][k.form]
                           : dm_vk_other_slot(p, &k);
    if (!slot) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a kernel pipeline");
    if (!*slot) {
        if (p->trace && texel)
            return dm_fail(DMLOPS_ERROR_BACKEND, "creating a kernel pipeline: a tracing context has no texel path");
        DM_TRY(dm_vk_kernel_pipeline(d, p->cache, p->create_flags, p->layout, &k, slot));
        p->count++;
    }
    *out = *slot;
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_pipeline_for(dm_vk_device *d, dm_vk_pipelines *p, const dm_vk_limits *lim, const dm_gather *g,
                                 bool fast, bool texel, bool axis_split, VkPipeline *out)
{
    dm_mutex_lock(&p->lock);
    dmlops_status st = dm_vk_make_pipeline(d, p, lim, g, fast, texel, axis_split, out);
    dm_mutex_unlock(&p->lock);
    return st;
}

dmlops_status dm_vk_pipeline(dm_vk_device *d, dm_vk_pipelines *p, const dm_gather *g, bool fast, bool texel,
                             bool axis_split, VkPipeline *out)
{
    return dm_vk_pipeline_for(d, p, &d->lim, g, fast, texel, axis_split, out);
}

/* log2 of a power of two */
static uint32_t dm_log2_u32(uint32_t v)
{
    uint32_t l = 0;
    while (v >>= 1) l++;
    return l;
}

static dmlops_status dm_vk_make_copy_pipeline(dm_vk_device *d, dm_vk_pipelines *p, bool texel, uint32_t vectors,
                                              uint32_t workgroup, VkPipeline *out)
{
    const char *what = "creating the compute copy";
    VkPipeline *slot = &p->copy_pipeline[texel][dm_log2_u32(vectors)][dm_log2_u32(workgroup)];
    if (!*slot) {
        DM_TRY(dm_vk_layouts(d, what, dm_vk_copy_set_bindings(p->trace), dm_vk_copy_binding_type,
                             sizeof(dm_vk_copy_push), &p->copy_set_layout, &p->copy_layout));
        const uint32_t spec[3] = {texel, vectors, workgroup}; /* a VkBool32 is 4 bytes */
        const VkSpecializationMapEntry entries[3] = {
            {DM_COPY_SPEC_TEXEL, 0, 4}, {DM_COPY_SPEC_VECTORS, 4, 4}, {DM_COPY_SPEC_WORKGROUP, 8, 4}};
        const VkSpecializationInfo si = {3, entries, sizeof spec, spec};
        DM_TRY(dm_vk_compute_pipeline(d, p->cache, p->create_flags, p->trace ? &dm_copy_kernel_trace : &dm_copy_kernel,
                                      &si, p->copy_layout, what, slot));
        p->count++;
    }
    *out = *slot;
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_copy_pipeline(dm_vk_device *d, dm_vk_pipelines *p, bool texel, uint32_t vectors,
                                  uint32_t workgroup, VkPipeline *out)
{
    dm_mutex_lock(&p->lock);
    dmlops_status st = dm_vk_make_copy_pipeline(d, p, texel, vectors, workgroup, out);
    dm_mutex_unlock(&p->lock);
    return st;
}
