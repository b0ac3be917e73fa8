/* Layer 10 of the Vulkan backend: the backend's operations on the objects of a context:
 * buffers (vk_buffer.c), operators and their synchronous execution (vk_execute.c), and
 * command lists (vk_list.c). The backend table (vk_backend.c) points at them. */
#ifndef DM_VK_EXECUTE_H
#define DM_VK_EXECUTE_H

#include "vk_record.h"

/* vk_buffer.c */
dmlops_status dm_vk_buffer_create(dmlops_buffer *buf);
void dm_vk_buffer_destroy(dmlops_buffer *buf);
dmlops_status dm_vk_buffer_write(dmlops_buffer *buf, uint64_t offset, const void *src, uint64_t size);
dmlops_status dm_vk_buffer_read(dmlops_buffer *buf, uint64_t offset, void *dst, uint64_t size);

/* vk_execute.c */
/* An operator's device side: g (its gather, lowered) planned under lim, its parameter records on
 * the device and its pipeline; dm_vk_op_free releases it. The tuner (vk_tune_measure.c)
 * builds an operator's candidates so. */
dmlops_status dm_vk_op_build(dmlops_context *ctx, const dm_gather *g, const dm_vk_limits *lim, dm_vk_op **out);
void dm_vk_op_free(dmlops_context *ctx, dm_vk_op *o);
dmlops_status dm_vk_operator_create(dmlops_operator *op);
void dm_vk_operator_destroy(dmlops_operator *op);
/* Records an execution of op with checked bindings into cmd (begun and ended here), with a
 * binding table of op that no submission in flight uses, *table, which the caller gives
 * back with dm_vk_operator_table_put once the submission completed. may_read_aux: nothing
 * in flight may write the AUX data, so slab copies may read it now. Lock held. */
dmlops_status dm_vk_operator_record(dmlops_operator *op, const dmlops_binding *bind, bool may_read_aux,
                                    VkCommandBuffer cmd, dmlops_binding_table **table);
void dm_vk_operator_table_put(dmlops_operator *op, dmlops_binding_table *table);

/* vk_list.c */
dmlops_status dm_vk_list_create(dmlops_command_list *list);
void dm_vk_list_destroy(dmlops_command_list *list);
dmlops_status dm_vk_list_record(dmlops_command_list *list, dm_list_entry *e);
void dm_vk_list_reset(dmlops_command_list *list);
/* The list's command buffer, recorded again where its entries changed or an entry's copy
 * regions come from AUX data (read now when may_read_aux, else such entries run their
 * kernels). Lock held. */
dmlops_status dm_vk_list_prepare(dmlops_command_list *list, bool may_read_aux, VkCommandBuffer *cmd);
/* After an execution completed: its timestamps and access statistics. Lock held. */
void dm_vk_list_completed(dmlops_command_list *list);

/* vk_describe.c: dmlops_operator_get_info2 and dmlops_context_get_memory_info. */
void dm_vk_operator_kernel(const dmlops_operator *op, dmlops_operator_kernel_info *k);
void dm_vk_operator_memory(const dmlops_operator *op, dmlops_memory_info *m);
uint64_t dm_vk_device_bytes(const dmlops_context *ctx);

/* vk_sub.c: the backend's submissions (internal.h, dm_sub), and what each keeps. */
typedef struct dm_vk_sub {
    VkCommandBuffer cmd;         /* from the submitter's pool; an operator's or a transfer's */
    VkFence fence;               /* without a timeline: signalled by the submission */
    bool fence_used;             /* signalled once: reset before the next use */
    uint64_t value;              /* with a timeline: the value the submission signals */
    dmlops_binding_table *table; /* an operator's, handed back at retire */
    dm_vk_buffer staging;        /* a transfer's */
} dm_vk_sub;
dmlops_status dm_vk_sub_start(dm_sub *s);
dmlops_status dm_vk_sub_wait(dm_sub *s, uint64_t timeout_ns);
bool dm_vk_sub_done(dm_sub *s, dmlops_status *status);
void dm_vk_sub_retire(dm_sub *s);
void dm_vk_sub_free(dm_sub *s);

#endif
