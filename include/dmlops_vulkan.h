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
 * keeps ownership of them, and destroys them only after the last of the context and its
 * objects is destroyed (dmlops.h, lifetimes: the context lives while its objects do). */
DMLOPS_API dmlops_status dmlops_context_create_vulkan(const dmlops_vulkan_context_desc *desc, dmlops_context **out);

/* What the application enabled on its VkDevice that libdmlops may use
 * (dmlops_vulkan_context_create_info.device_features). */
/* timelineSemaphore: Vulkan 1.2's feature, or VK_KHR_timeline_semaphore's on 1.1 (its
 * extension enabled too). Submissions then signal a timeline semaphore the application
 * may wait on (dmlops_fence_get_vulkan_semaphore); without it, each signals a VkFence. */
#define DMLOPS_VULKAN_DEVICE_FEATURE_TIMELINE_SEMAPHORE 0x1u
/* VK_KHR_external_memory_fd enabled: dmlops_buffer_import_vulkan takes opaque fds. */
#define DMLOPS_VULKAN_DEVICE_FEATURE_EXTERNAL_MEMORY_FD 0x2u
/* VK_EXT_external_memory_dma_buf enabled too: it takes dma-bufs. */
#define DMLOPS_VULKAN_DEVICE_FEATURE_EXTERNAL_MEMORY_DMA_BUF 0x4u

/* dmlops_vulkan_context_desc's fields in an extensible structure, and more. Its chain may
 * hold a dmlops_allocation_callbacks, a dmlops_log_callback, a dmlops_tuning_options and
 * a dmlops_vulkan_allocation_callbacks. */
typedef struct dmlops_vulkan_context_create_info {
    dmlops_structure_type s_type;    /* DMLOPS_STRUCTURE_TYPE_VULKAN_CONTEXT_CREATE_INFO */
    const void *next;
    VkInstance instance;             /* dmlops_vulkan_context_desc's fields, as documented there */
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family_index;
    VkQueue queue;
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    uint32_t api_version;
    DML_FEATURE_LEVEL feature_level;
    uint32_t flags;
    const char *pipeline_cache_path;
    uint32_t device_features;        /* DMLOPS_VULKAN_DEVICE_FEATURE_*: what the application
                                        enabled on device (0: nothing beyond Vulkan 1.1) */
} dmlops_vulkan_context_create_info;

/* dmlops_context_create_vulkan from the extensible structure. The same rules and errors;
 * also INVALID_ARGUMENT for a wrong s_type, a chain that breaks the rules of dmlops.h,
 * or a device_features bit this library does not know. Thread-safe. */
DMLOPS_API dmlops_status dmlops_context_create_vulkan2(const dmlops_vulkan_context_create_info *info,
                                                       dmlops_context **out);

/* The application's VkAllocationCallbacks for every Vulkan object libdmlops makes for the
 * context (chained to its create info, either one): on a device of its own the instance
 * and device too; on an interop context the objects it makes on the application's device.
 * The VkAllocationCallbacks are copied at creation; their pUserData and functions must
 * stay valid while the context lives, and be thread-safe (Vulkan's rules). */
typedef struct dmlops_vulkan_allocation_callbacks {
    dmlops_structure_type s_type;          /* DMLOPS_STRUCTURE_TYPE_VULKAN_ALLOCATION_CALLBACKS */
    const void *next;
    const VkAllocationCallbacks *callbacks; /* not NULL */
} dmlops_vulkan_allocation_callbacks;

/* Wraps bytes [offset, offset + size) of the application's VkBuffer. usage must be the
 * buffer's creation usage and include VK_BUFFER_USAGE_STORAGE_BUFFER_BIT; with both
 * TRANSFER_SRC and TRANSFER_DST the copy-region path may be used as well. The VkBuffer
 * must stay alive and bound to memory while the wrapper is in use. dmlops_buffer_read and
 * dmlops_buffer_write work on wrapped buffers (through staging when needed). */
DMLOPS_API dmlops_status dmlops_buffer_wrap_vulkan(dmlops_context *ctx, VkBuffer buffer, VkDeviceSize offset,
                                        VkDeviceSize size, VkBufferUsageFlags usage,
                                        dmlops_buffer **out);

/* Memory another API or process exported, as a POSIX file descriptor
 * (VK_KHR_external_memory_fd; dma-bufs with VK_EXT_external_memory_dma_buf), for
 * dmlops_buffer_import_vulkan: zero-copy from a camera, a decoder, another device's
 * driver or another process. */
typedef struct dmlops_vulkan_external_memory {
    dmlops_structure_type s_type;                   /* DMLOPS_STRUCTURE_TYPE_VULKAN_EXTERNAL_MEMORY */
    const void *next;
    VkExternalMemoryHandleTypeFlagBits handle_type; /* ..._OPAQUE_FD_BIT or ..._DMA_BUF_BIT_EXT */
    int fd;                    /* the handle: libdmlops owns it once the import succeeded (and
                                  closes it with the buffer), as Vulkan's import does; the
                                  caller keeps it when the call fails */
    uint64_t allocation_size;  /* bytes of the memory the handle names (the exporter's
                                  allocationSize; a dma-buf's size) */
    uint32_t memory_type_index; /* OPAQUE_FD: the exporter's memoryTypeIndex, which Vulkan
                                   requires the import to use; ignored for a dma-buf (the
                                   driver says which types take it) */
    uint64_t offset;           /* where the buffer starts in the memory: a multiple of 16 and
                                  of the VkBuffer's required alignment */
} dmlops_vulkan_external_memory;

/* A buffer of size bytes on external memory (above), on a Vulkan context whose device has
 * the extension: on a device of libdmlops's own, VK_KHR_external_memory_fd and
 * VK_EXT_external_memory_dma_buf are enabled where the driver offers them; an interop
 * context says what the application enabled (dmlops_vulkan_context_create_info.
 * device_features). UNSUPPORTED, naming what is missing, on the CPU backend, for a handle
 * type the device does not take, and for memory of a type the buffer cannot use;
 * INVALID_ARGUMENT for a wrong s_type, a negative fd, size 0, or a range past
 * allocation_size; the driver's failure to import (a handle of another device or driver)
 * as the Vulkan call's. Its contents are the memory's: not zero-filled. The buffer is used
 * as any other (operators, copies, host reads and writes, asynchronous work); ordering
 * with the exporter's own use of the memory is the application's. Thread-safe. */
DMLOPS_API dmlops_status dmlops_buffer_import_vulkan(dmlops_context *ctx, const dmlops_vulkan_external_memory *memory,
                                                     uint64_t size, dmlops_buffer **out);

/* The VkBuffer and byte offset behind a dmlops_buffer (offset may be NULL).
 * DMLOPS_ERROR_UNSUPPORTED for a buffer of several allocations or of the CPU backend. */
DMLOPS_API dmlops_status dmlops_buffer_get_vulkan(const dmlops_buffer *buf, VkBuffer *buffer, VkDeviceSize *offset);

/* The application's semaphores a submission of an interop context waits on and signals
 * (chained to a dmlops_submit_info), so that our work runs after the application's on the
 * GPU and its work after ours, without the host. Semaphores of the application's device;
 * a value array may be NULL when every semaphore of its list is binary, else it gives a
 * value per semaphore (ignored for binary ones), which needs timeline semaphores enabled
 * on the device. INVALID_ARGUMENT on a context of libdmlops's own device, or for a count
 * without its array. */
typedef struct dmlops_vulkan_semaphores {
    dmlops_structure_type s_type;             /* DMLOPS_STRUCTURE_TYPE_VULKAN_SEMAPHORES */
    const void *next;
    uint32_t wait_count;
    const VkSemaphore *wait_semaphores;
    const uint64_t *wait_values;              /* NULL: all binary */
    const VkPipelineStageFlags *wait_stages;  /* NULL: VK_PIPELINE_STAGE_ALL_COMMANDS_BIT each */
    uint32_t signal_count;
    const VkSemaphore *signal_semaphores;
    const uint64_t *signal_values;            /* NULL: all binary */
} dmlops_vulkan_semaphores;

/* The timeline semaphore and the value the fence's submission signals, for the
 * application to wait on with its own submissions (VkTimelineSemaphoreSubmitInfo) or on
 * the host (vkWaitSemaphores). The semaphore is the context's: valid as long as the
 * context lives. DMLOPS_ERROR_UNSUPPORTED where submissions signal VkFences (no timeline
 * semaphores) and on the CPU backend. Thread-safe. */
DMLOPS_API dmlops_status dmlops_fence_get_vulkan_semaphore(const dmlops_fence *fence, VkSemaphore *semaphore,
                                                           uint64_t *value);

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
