/*
 * dmlops_vulkan.h - libdmlops on the application's own Vulkan objects: contexts on its
 * instance, device and queue, buffers wrapping its VkBuffers, and operators recorded
 * into its command buffers.
 *
 * Copyright (c) 2026 The libdmlops developers. MIT licence, see LICENSE.
 *
 * Self-contained: it includes the Vulkan headers unless they were included already, and
 * dmlops.h. Applications that load Vulkan through volk include <volk.h> first (or define
 * VK_NO_PROTOTYPES before any Vulkan header), as volk itself requires; the types are the
 * same either way. dmlops.h includes this header when the Vulkan headers came before it,
 * so code that did `#include <vulkan/vulkan.h>` then `#include "dmlops.h"` compiles
 * unchanged.
 */
#ifndef DMLOPS_VULKAN_H
#define DMLOPS_VULKAN_H

#if !defined(VK_VERSION_1_0)
#include <vulkan/vulkan.h>
#endif

#include "dmlops.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dmlops_vulkan_context_desc {
    VkInstance instance;              /* the application's, created with apiVersion >= 1.1 */
    VkPhysicalDevice physical_device;
    VkDevice device;                  /* the application's; no feature needs to be enabled */
    uint32_t queue_family_index;      /* a family with VK_QUEUE_COMPUTE_BIT */
    VkQueue queue;                    /* libdmlops submits to it (and waits) in execute,
                                         buffer read/write, command lists, and, on devices
                                         whose memory the host cannot map, in buffer and
                                         operator creation; those calls lock the context,
                                         but the application must not use the queue at the
                                         same time (VkQueue is externally synchronised) */
    PFN_vkGetInstanceProcAddr get_instance_proc_addr; /* NULL: from the system loader */
    uint32_t api_version;             /* the instance's apiVersion; 0 means 1.1 */
    DML_FEATURE_LEVEL feature_level;  /* 0: the highest */
    uint32_t flags;                   /* DMLOPS_CONTEXT_FLAG_KERNELS_ONLY / PREFER_COPY */
    const char *pipeline_cache_path;  /* NULL: $DMLOPS_PIPELINE_CACHE, else none */
} dmlops_vulkan_context_desc;

/* Builds a context on the application's instance, device and queue. The application
 * keeps ownership of them and destroys them after dmlops_context_destroy. */
DMLOPS_API dmlops_status dmlops_context_create_vulkan(const dmlops_vulkan_context_desc *desc, dmlops_context **out);

/* Wraps bytes [offset, offset + size) of the application's VkBuffer. usage must be the
 * buffer's creation usage and include VK_BUFFER_USAGE_STORAGE_BUFFER_BIT; with both
 * TRANSFER_SRC and TRANSFER_DST the copy-region path may be used as well. The VkBuffer
 * must stay alive and bound to memory while the wrapper is in use. dmlops_buffer_read and
 * dmlops_buffer_write work on wrapped buffers (through staging when needed). */
DMLOPS_API dmlops_status dmlops_buffer_wrap_vulkan(dmlops_context *ctx, VkBuffer buffer, VkDeviceSize offset,
                                        VkDeviceSize size, VkBufferUsageFlags usage,
                                        dmlops_buffer **out);

/* The VkBuffer and byte offset behind a dmlops_buffer (offset may be NULL).
 * DMLOPS_ERROR_UNSUPPORTED for a buffer of several allocations or of the CPU backend. */
DMLOPS_API dmlops_status dmlops_buffer_get_vulkan(const dmlops_buffer *buf, VkBuffer *buffer, VkDeviceSize *offset);

/* A binding table holds the descriptor sets of one operator's recording, like
 * IDMLBindingTable. It must stay alive, and must not be re-bound, until every command
 * buffer that recorded it has completed. It holds its operator: the operator may be
 * destroyed first and is freed with the table. Used by one thread at a time. */
DMLOPS_API dmlops_status dmlops_binding_table_create(dmlops_operator *op, dmlops_binding_table **out);
DMLOPS_API dmlops_status dmlops_binding_table_bind(dmlops_binding_table *table,
                                        uint32_t input_count, const dmlops_binding *inputs,
                                        uint32_t output_count, const dmlops_binding *outputs);
DMLOPS_API void dmlops_binding_table_destroy(dmlops_binding_table *table);

/* Records the table's operator with its bindings into the application's command buffer,
 * as IDMLCommandRecorder::RecordDispatch does: it binds its own compute pipeline,
 * descriptor set 0 and push constants (so rebind yours afterwards), and inserts NO
 * barrier. The caller orders the operator against other work with its own barriers:
 * kernels access buffers as VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT with
 * SHADER_READ / SHADER_WRITE, copy regions as VK_PIPELINE_STAGE_TRANSFER_BIT with
 * TRANSFER_READ / TRANSFER_WRITE (dmlops_operator_info.last_path says which was recorded:
 * the planned copy path falls back to a kernel on buffers without TRANSFER usage). Buffers
 * must be in a state where those accesses are legal. */
DMLOPS_API dmlops_status dmlops_operator_record_vulkan(dmlops_binding_table *table, VkCommandBuffer cmd);

#ifdef __cplusplus
}
#endif

#endif /* DMLOPS_VULKAN_H */
