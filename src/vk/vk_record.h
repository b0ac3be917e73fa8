/* Layer 9 of the Vulkan backend: binding tables and recording. A binding table holds
 * one operator's descriptor sets and push constants for one set of bindings, or its copy
 * regions (vk_binding.c); a compute copy holds the descriptor sets of its dispatches
 * (vk_compute_copy.c); recording puts either into a command buffer and inserts no
 * barrier of its own (vk_record.c). */
#ifndef DM_VK_RECORD_H
#define DM_VK_RECORD_H

#include "vk_abi.h"
#include "vk_context.h"
#include "vk_plan.h"
#include "vk_tune.h"

/* An operator on the device: its plan, the plan's parameter records in a device buffer,
 * and its pipeline, and the limits it was planned with: the device's, or its class's
 * tuned configuration's (vk_tune.h), which binding and recording follow too. */
typedef struct dm_vk_op {
    dm_vk_plan plan;             /* params already uploaded and freed */
    dm_vk_memory params;         /* DM_P_WORDS words per piece */
    VkPipeline pipeline;         /* on the texel path when the device takes it (dm_vk_limits.texel) */
    /* The binding tables of its executions, made as submissions in flight need more: the
     * free ones in spare[0 .. nspare), under the context lock; room for every table made,
     * so that handing one back never allocates. */
    dmlops_binding_table **spare;
    uint32_t nspare, ntables;
    dm_vk_limits lim;
    dm_vk_tune_info tune;        /* what it runs with (dmlops_operator_get_tuning) */
} dm_vk_op;

/* Texel views per descriptor set: SRC (DM_BINDING_SRC_TEXEL), AUX (DM_BINDING_AUX_TEXEL),
 * AUX as 16-byte texels (DM_BINDING_AUX_VEC_TEXEL) and SRC as 4-byte texels
 * (DM_BINDING_SRC_WORD_TEXEL). */
#define DM_VK_SET_VIEWS 4
_Static_assert(DM_VK_SET_VIEWS == DM_BINDING_COUNT - DM_BINDING_SRC_TEXEL, "a view per texel binding");

struct dmlops_binding_table {
    dmlops_operator *op;
    dm_vk_ctx *vk;
    VkDescriptorPool pool;
    VkDescriptorSet *sets;
    dm_vk_push *push;          /* per piece */
    VkBufferView *views;       /* DM_VK_SET_VIEWS per set: the SRC, AUX, AUX-vector and
                                  SRC-word texel views, VK_NULL_HANDLE where none */
    uint32_t capacity;         /* sets */
    VkPipeline pipeline;       /* the operator's, or its storage-buffer variant (!texel) */
    bool texel;                /* the sets carry texel views: device and buffers allow it */
    VkBufferCopy *regions;     /* absolute, copy path */
    uint32_t region_capacity, nregions;
    VkBuffer copy_src, copy_dst;
    dm_vk_copy *copies;        /* copy path across buffer segments: one region per copy */
    uint32_t ncopies, copies_cap;
    dm_vk_piece *own_pieces;   /* pieces planned again at these bindings' segment boundaries */
    uint32_t own_npieces;
    dm_vk_memory own_params;
    dm_vk_segments own_segs;   /* the boundaries own_pieces were planned for */
    bool own_active;           /* the current binding uses own_pieces */
    bool own_axis_split;       /* own_pieces split REVERSE's axis (dm_vk_plan.axis_split) */
    bool own_texel;            /* own_pieces were planned for the texel path (dm_vk_plan.texel) */
    dmlops_path path;
    bool bound;
    bool dynamic;              /* command lists: slab copies rebuilt from the AUX data per execution */
};

/* vk_binding.c */
/* A table for op with room for `capacity` pieces' sets (at least the plan's). */
dmlops_status dm_vk_table_create(dmlops_operator *op, uint32_t capacity, dmlops_binding_table **out);
void dm_vk_table_destroy(dmlops_binding_table *t);
/* Binds checked bindings (inputs, then the output): copy regions on the copy path when
 * both buffers allow copies, else descriptor sets (planning pieces again when a window
 * would straddle a segment boundary). */
dmlops_status dm_vk_table_bind(dmlops_binding_table *t, dmlops_operator *op, const dmlops_binding *bind);
/* Whether the plan's slab copies may be used with these bindings: the AUX data is
 * mapped for the host, and both data buffers allow copies. */
bool dm_vk_slabs_possible(const dmlops_operator *op, const dmlops_binding *bind);
/* Reads the AUX data through its mapping and turns the bound table into slab copies, or
 * leaves it on the kernel when the data makes rows something else. Callers guarantee
 * that no pending device work writes the AUX data. */
void dm_vk_table_slabs(dmlops_binding_table *t, const dmlops_binding *bind);
/* Leaves a table whose plan may take slab copies on its kernel, for an execution whose AUX
 * data work in flight may still write (the host cannot read it yet). */
void dm_vk_table_kernel(dmlops_binding_table *t);

/* vk_compute_copy.c: dmlops_command_list_record_compute_copy, the plain copy shader
 * (glsl/copy.comp): one dispatch per window, cut at maxStorageBufferRange and at the
 * buffers' segment boundaries. */
typedef struct dm_vk_compute_copy {
    dm_vk_ctx *vk;
    VkPipeline pipeline;
    VkDescriptorPool pool;
    VkDescriptorSet *sets;
    dm_vk_copy_push *push;
    uint32_t *groups;
    VkBufferView *views;         /* per set: the source's texel view, VK_NULL_HANDLE off the texel path */
    uint32_t n;
    bool texel;                  /* the texel path: the device takes it and both buffers allow it */
    dmlops_compute_copy_shape shape; /* fields set as the front end checked them (dm_list_entry) */
} dm_vk_compute_copy;
/* size bytes from byte s_at of src to byte d_at of dst; all three multiples of 16. */
dmlops_status dm_vk_compute_copy_create(dm_vk_ctx *vk, const dm_vk_buffer *dst, uint64_t d_at, const dm_vk_buffer *src,
                                        uint64_t s_at, uint64_t size, const dmlops_compute_copy_shape *shape,
                                        dm_vk_compute_copy **out);
void dm_vk_compute_copy_destroy(dm_vk_compute_copy *c);

/* Copy regions per vkCmdCopyBuffer call (vk_record.c says why). */
#define DM_VK_REGIONS_PER_COPY 256u

/* vk_record.c. tr: on a tracing context, the tracer of the recording, which numbers
 * each dispatch (vk_trace.h); NULL elsewhere. */
void dm_vk_record_compute_copy(const dm_vk_compute_copy *c, VkCommandBuffer cmd, dm_vk_tracer *tr);
void dm_vk_record(const dmlops_binding_table *t, VkCommandBuffer cmd, dm_vk_tracer *tr);
/* Notes the path an execution or recording of t took in its operator's info, and on the
 * copy path its region count (REVERSE's follow the lengths, known only at binding). */
void dm_vk_note_path(const dmlops_binding_table *t);

#endif
