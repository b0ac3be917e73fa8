/* Layouts, shader modules and pipelines (created once per kernel and element size, on
 * first use), and the VkPipelineCache, persisted to a file when one is named. The file
 * carries a header tying it to the device and driver, and is replaced atomically. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels.h"
#include "vk_internal.h"

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

static void dm_cache_header_for(const dm_vk_ctx *vk, dm_cache_header *h)
{
    memset(h, 0, sizeof *h);
    h->magic = DM_CACHE_MAGIC;
    h->version = DM_CACHE_VERSION;
    h->vendor_id = vk->info.vendor_id;
    h->device_id = vk->info.device_id;
    h->driver_version = vk->info.driver_version;
    memcpy(h->uuid, vk->info.uuid, 16);
}

/* Reads the cache file; returns NULL (and no error: a stale or broken cache is only a
 * slower start) unless it matches this device and driver. */
static void *dm_cache_load(const dm_vk_ctx *vk, size_t *size)
{
    FILE *f = vk->cache_path ? fopen(vk->cache_path, "rb") : NULL;
    dm_cache_header want, got;
    void *data = NULL;
    if (!f) return NULL;
    dm_cache_header_for(vk, &want);
    if (fread(&got, sizeof got, 1, f) == 1 && got.magic == want.magic && got.version == want.version &&
        got.vendor_id == want.vendor_id && got.device_id == want.device_id &&
        got.driver_version == want.driver_version && !memcmp(got.uuid, want.uuid, 16) && got.size &&
        got.size < (256u << 20) && (data = malloc((size_t)got.size))) {
        if (fread(data, 1, (size_t)got.size, f) != got.size || dm_fnv1a(data, (size_t)got.size) != got.checksum) {
            free(data);
            data = NULL;
        }
    }
    fclose(f);
    *size = data ? (size_t)got.size : 0;
    return data;
}

static void dm_cache_save(dm_vk_ctx *vk)
{
    size_t size = 0;
    if (!vk->cache_path || !vk->cache ||
        vk->vkd.GetPipelineCacheData(vk->device, vk->cache, &size, NULL) != VK_SUCCESS || !size)
        return;
    void *data = malloc(size);
    if (!data) return;
    char tmp[4096];
    if (vk->vkd.GetPipelineCacheData(vk->device, vk->cache, &size, data) == VK_SUCCESS &&
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", vk->cache_path, (long)getpid()) < (int)sizeof tmp) {
        dm_cache_header h;
        dm_cache_header_for(vk, &h);
        h.size = size;
        h.checksum = dm_fnv1a(data, size);
        FILE *f = fopen(tmp, "wb");
        bool ok = f && fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, size, f) == size;
        if (f) ok = (fclose(f) == 0) && ok;
        if (!ok || rename(tmp, vk->cache_path) != 0) remove(tmp);
    }
    free(data);
}

dmlops_status dm_vk_pipelines_init(dm_vk_ctx *vk)
{
    VkDescriptorSetLayoutBinding b[1 + DM_SLOT_COUNT];
    for (uint32_t i = 0; i < 1 + DM_SLOT_COUNT; i++)
        b[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                           .bindingCount = 1 + DM_SLOT_COUNT,
                                           .pBindings = b};
    DM_VK_CALL(vk, "creating pipeline layouts", CreateDescriptorSetLayout, (vk->device, &dci, NULL, &vk->set_layout));
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(dm_vk_push)};
    VkPipelineLayoutCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                      .setLayoutCount = 1,
                                      .pSetLayouts = &vk->set_layout,
                                      .pushConstantRangeCount = 1,
                                      .pPushConstantRanges = &pcr};
    DM_VK_CALL(vk, "creating pipeline layouts", CreatePipelineLayout, (vk->device, &pci, NULL, &vk->pipe_layout));
    size_t size = 0;
    void *data = dm_cache_load(vk, &size);
    VkPipelineCacheCreateInfo cci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                     .initialDataSize = size,
                                     .pInitialData = data};
    VkResult r = vk->vkd.CreatePipelineCache(vk->device, &cci, NULL, &vk->cache);
    if (r != VK_SUCCESS && data) { /* a driver may still refuse the blob: start empty */
        cci.initialDataSize = 0;
        cci.pInitialData = NULL;
        r = vk->vkd.CreatePipelineCache(vk->device, &cci, NULL, &vk->cache);
    }
    free(data);
    if (r != VK_SUCCESS) return dm_vk_fail(vk, r, "vkCreatePipelineCache", "creating the pipeline cache");
    return DMLOPS_SUCCESS;
}

void dm_vk_pipelines_destroy(dm_vk_ctx *vk)
{
    dm_cache_save(vk);
    for (int k = 0; k < DM_KERNEL_COUNT; k++) {
        for (int e = 0; e < 4; e++)
            for (int r = 0; r < 3; r++)
                if (vk->pipelines[k][e][r]) vk->vkd.DestroyPipeline(vk->device, vk->pipelines[k][e][r], NULL);
        if (vk->modules[k]) vk->vkd.DestroyShaderModule(vk->device, vk->modules[k], NULL);
    }
    if (vk->cache) vk->vkd.DestroyPipelineCache(vk->device, vk->cache, NULL);
    if (vk->pipe_layout) vk->vkd.DestroyPipelineLayout(vk->device, vk->pipe_layout, NULL);
    if (vk->set_layout) vk->vkd.DestroyDescriptorSetLayout(vk->device, vk->set_layout, NULL);
}

/* Called with the context lock held. rank is the gather's collapsed rank. */
dmlops_status dm_vk_pipeline(dm_vk_ctx *vk, dm_kernel kernel, uint32_t esize, uint32_t rank, VkPipeline *out)
{
    static const int32_t row_dims[3] = {1, 3, 7};
    uint32_t e = esize == 1 ? 0 : esize == 2 ? 1 : esize == 4 ? 2 : 3;
    uint32_t r = rank <= 2 ? 0 : rank <= 4 ? 1 : 2;
    VkPipeline *slot = &vk->pipelines[kernel][e][r];
    if (*slot) {
        *out = *slot;
        return DMLOPS_SUCCESS;
    }
    if (!vk->modules[kernel]) {
        VkShaderModuleCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                        .codeSize = dm_kernels[kernel].size,
                                        .pCode = dm_kernels[kernel].code};
        DM_VK_CALL(vk, "creating a kernel", CreateShaderModule, (vk->device, &sci, NULL, &vk->modules[kernel]));
    }
    const uint32_t spec[4] = {DM_VK_WORKGROUP, esize, vk->run, (uint32_t)row_dims[r]};
    const VkSpecializationMapEntry entries[4] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}, {3, 12, 4}};
    VkSpecializationInfo si = {4, entries, sizeof spec, spec};
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = vk->modules[kernel],
                  .pName = "main",
                  .pSpecializationInfo = &si},
        .layout = vk->pipe_layout};
    DM_VK_CALL(vk, "creating a kernel pipeline", CreateComputePipelines,
               (vk->device, vk->cache, 1, &ci, NULL, slot));
    vk->pipeline_count++;
    *out = *slot;
    return DMLOPS_SUCCESS;
}
