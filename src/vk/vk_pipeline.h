/* Layer 7 of the Vulkan backend: the one descriptor-set and pipeline layout every kernel
 * shares, pipelines (made once per kernel, element size, rank bucket, fast path and
 * texel path, on first use, each from its own pre-specialised module), the compute copy's own layouts and pipeline (on first use), and
 * the VkPipelineCache, persisted to a file when one is named. */
#ifndef DM_VK_PIPELINE_H
#define DM_VK_PIPELINE_H

#include "../platform/platform.h"
#include <stdatomic.h>

#include "../gather.h"
#include "kernels.h"
#include "vk_abi.h"

#include "vk_device.h"

/* The descriptor type of a gather kernel's binding (vk_abi.h): the parameter record is a
 * uniform buffer, the data slots storage buffers, then the texel views (of SRC, AUX, AUX
 * as vectors, SRC as words). */
static inline VkDescriptorType dm_vk_binding_type(uint32_t binding)
{
    return binding == DM_BINDING_PARAMS ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
           : binding >= DM_BINDING_SRC_TEXEL && binding != DM_BINDING_TRACE ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
                                                                            : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

/* The compute copy's bindings (vk_abi.h): Dst and Src storage buffers, then Src's view
 * (and, tracing, the record buffer). */
static inline VkDescriptorType dm_vk_copy_binding_type(uint32_t binding)
{
    return binding == DM_COPY_BINDING_SRC_TEXEL ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
                                                : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

/* Bindings of the gather kernels' and the compute copy's set layouts: with the record
 * buffer on a tracing context (glsl/trace.glsl), whose modules are the trace builds. */
static inline uint32_t dm_vk_set_bindings(bool trace) { return trace ? DM_BINDING_TRACE + 1 : DM_BINDING_COUNT; }
static inline uint32_t dm_vk_copy_set_bindings(bool trace) { return trace ? DM_COPY_BINDING_TRACE + 1 : DM_COPY_BINDINGS; }

typedef struct dm_vk_pipelines {
    /* A tracing context's (DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES): every layout holds the
     * record buffer and every pipeline is made from a trace build (kernels.h). Texel
     * paths have no trace build: such a context plans for storage buffers. */
    bool trace;
    VkDescriptorSetLayout set_layout; /* dm_vk_set_bindings(trace) bindings (dm_vk_binding_type) */
    VkPipelineLayout layout;          /* that set, and the push constants (vk_abi.h) */
    VkPipelineCache cache;
    char *cache_path;
    /* by kernel, log2(esize), row-dimension bucket, VARIANT (DM_VARIANT_*), AUX_TYPE
     * (DM_AUX_*), TEXEL, ALIGNED, and its form: 1 where dm_vk_unit_shape widened its units,
     * 2 where it stores partial chunks (PARTIAL; never both: those are other variants) */
    VkPipeline pipelines[DM_KERNEL_COUNT][4][DM_ROW_BUCKETS][DM_VARIANT_COUNT][4][2][2][3];
    /* Pipelines of operators planned under other limits than the device's (a tuned class,
     * vk_tune.h), whose specialisation the table above does not tell apart: by module and
     * specialisation constants. */
    struct dm_vk_other_pipeline {
        const uint32_t *code;
        uint32_t spec[DM_SPEC_COUNT];
        VkPipeline pipeline;
    } *others;
    uint32_t nothers, cap_others;
    /* pipelines made, for dmlops_context_get_info: written under `lock`, read under the
     * context lock only, hence atomic */
    _Atomic uint32_t count;
    /* The compute copy (glsl/copy.comp): bindings Dst, Src and Src's texel view; push
     * constants dm_vk_copy_push; a pipeline per TEXEL, log2 of VECTORS (1 to 8) and log2
     * of the workgroup size (1 to 1024). */
    VkDescriptorSetLayout copy_set_layout;
    VkPipelineLayout copy_layout;
    VkPipeline copy_pipeline[2][4][11];
    /* VkComputePipelineCreateInfo.flags of every pipeline made: 0, except in the machine-code
     * report (tools/isa), which captures statistics and internal representations. */
    VkPipelineCreateFlags create_flags;
    /* Guards the lazily made pipelines: binding a table (no context lock)
     * may need the storage-buffer variant of a texel-path operator. Taken after the
     * context lock, never before it. */
    dm_mutex lock;
    bool lock_ready;
} dm_vk_pipelines;

/* What a gather kernel's pipeline is made from: its module, its specialisation constants
 * (by DM_SPEC_* id) and its slot in dm_vk_pipelines.pipelines. One truth for the library
 * and for the machine-code report (tools/isa), which compiles the same pipelines. */
typedef struct dm_vk_kernel_key {
    dm_kernel kernel;
    uint32_t esize_log2, bucket, variant; /* bucket: the row-dimension bucket (DM_ROW_BUCKETS) */
    bool texel;
    uint32_t form; /* 1 where dm_vk_unit_shape widened the units, 2 where PARTIAL */
    const dm_spirv *code; /* its code is NULL where the Makefile built no such module */
    uint32_t spec[DM_SPEC_COUNT];
} dm_vk_kernel_key;
/* What picks a gather kernel's pipeline besides the device's limits: its module (kernel,
 * row bucket, variant, texel path) and the specialisation a gather gives it. */
typedef struct dm_vk_kernel_form {
    dm_kernel kernel;
    uint32_t esize, bucket, variant, aux_type; /* aux_type: DM_AUX_* */
    bool texel, aligned, partial;
    bool wide; /* dm_vk_unit_shape's wider units (runs of 8 chunks shared by 32 lanes) */
} dm_vk_kernel_form;
/* The key of a form under lim: one truth for the gathers' pipelines (dm_vk_kernel_spec)
 * and for the report's list of every pipeline the library can make (tools/isa). Pure. */
void dm_vk_kernel_key_make(const dm_vk_limits *lim, const dm_vk_kernel_form *f, bool trace, dm_vk_kernel_key *k);
/* The pipeline of g's kernel under lim: the variant that covers it on the fast path
 * (dm_kernel_variant), else the general path; axis_split as for dm_vk_pipeline; trace:
 * the instrumented module (a tracing context's). Pure. */
void dm_vk_kernel_spec(const dm_vk_limits *lim, const dm_gather *g, bool fast, bool texel, bool axis_split, bool trace,
                       dm_vk_kernel_key *k);

/* The pipeline of a key (dm_vk_kernel_spec's, or any other whose module exists), made in
 * `cache` with `flags` and `layout` (dm_vk_pipelines.layout); the caller owns it. What
 * dm_vk_pipeline makes on first use, and what the machine-code report (tools/isa) makes
 * of every key the library can make (isa_all.c). */
dmlops_status dm_vk_kernel_pipeline(dm_vk_device *d, VkPipelineCache cache, VkPipelineCreateFlags flags,
                                    VkPipelineLayout layout, const dm_vk_kernel_key *k, VkPipeline *out);

/* cache_path NULL or "": no cache file. trace: a tracing context's (above). */
dmlops_status dm_vk_pipelines_init(dm_vk_device *d, const char *cache_path, bool trace, dm_vk_pipelines *p);
/* Saves the cache (when a file is named), then destroys everything. */
void dm_vk_pipelines_destroy(const dm_vk_device *d, dm_vk_pipelines *p);
/* The pipeline of g's kernel for its element size, collapsed rank and, on the fast path,
 * the variant that covers it (dm_kernel_variant), on the texel path or not; axis_split:
 * some piece binds only part of REVERSE's axis (dm_vk_plan.axis_split, for PARTIAL). Made
 * on first use. Thread-safe. */
dmlops_status dm_vk_pipeline(dm_vk_device *d, dm_vk_pipelines *p, const dm_gather *g, bool fast, bool texel,
                             bool axis_split, VkPipeline *out);
/* The same for an operator planned under lim (its own: dm_vk_op.lim). */
dmlops_status dm_vk_pipeline_for(dm_vk_device *d, dm_vk_pipelines *p, const dm_vk_limits *lim, const dm_gather *g,
                                 bool fast, bool texel, bool axis_split, VkPipeline *out);
/* The compute copy's pipeline (its layouts are p->copy_*) on the texel path or not, for
 * `vectors` per invocation (1, 2, 4 or 8) and `workgroup` invocations per workgroup (a
 * power of two up to 1024), made on first use. Thread-safe. */
dmlops_status dm_vk_copy_pipeline(dm_vk_device *d, dm_vk_pipelines *p, bool texel, uint32_t vectors,
                                  uint32_t workgroup, VkPipeline *out);

#endif
