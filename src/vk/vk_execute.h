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
dmlops_status dm_vk_op_build(dm_vk_ctx *vk, const dm_gather *g, const dm_vk_limits *lim, dm_vk_op **out);
void dm_vk_op_free(dm_vk_ctx *vk, dm_vk_op *o);
dmlops_status dm_vk_operator_create(dmlops_operator *op);
void dm_vk_operator_destroy(dmlops_operator *op);
dmlops_status dm_vk_operator_execute(dmlops_operator *op, const dmlops_binding *bind);

/* vk_list.c */
dmlops_status dm_vk_list_create(dmlops_command_list *list);
void dm_vk_list_destroy(dmlops_command_list *list);
dmlops_status dm_vk_list_record(dmlops_command_list *list, dm_list_entry *e);
dmlops_status dm_vk_list_execute(dmlops_command_list *list);
void dm_vk_list_reset(dmlops_command_list *list);

#endif
