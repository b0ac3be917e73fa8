/* A parsed, validated operator descriptor (deep copy), and the entry points of the
 * three operator files. Each op_<name>.c holds everything about one operator: its
 * rules, its reference (CPU) semantics and its lowering for the GPU. */
#ifndef DM_OP_H
#define DM_OP_H

#include "tensor.h"

enum { DM_MAX_BINDINGS = 3 };

typedef struct dm_op {
    DML_OPERATOR_TYPE type;
    const char *name;                 /* "SLICE1" */
    uint32_t input_count, output_count;
    dm_tensor t[DM_MAX_BINDINGS];     /* binding order: inputs, then the output */
    const char *role[DM_MAX_BINDINGS];
    uint32_t axis;                    /* REVERSE_SUBSEQUENCES, ONE_HOT */
    uint32_t win_offsets[DM_MAX_RANK];/* SLICE1 */
    uint32_t win_sizes[DM_MAX_RANK];
    int32_t win_strides[DM_MAX_RANK];
} dm_op;

/* Validates desc at `level` (already normalised) and fills op. */
dmlops_status dm_op_parse(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level, dm_op *op);

/* 0 becomes the highest level; a value that is not a DML_FEATURE_LEVEL is refused. */
dmlops_status dm_feature_level_normalize(DML_FEATURE_LEVEL level, DML_FEATURE_LEVEL *out);

/* Which tensors of an operator obey the data-type column and which the index column
 * of the feature-level table. */
typedef enum dm_type_column { DM_COLUMN_DATA, DM_COLUMN_INDEX } dm_type_column;

/* Applies the per-feature-level table: operator existence, ranks and data types.
 * Types no level accepts give INVALID_ARGUMENT; the rest UNSUPPORTED. */
dmlops_status dm_check_feature_level(const dm_op *op, DML_FEATURE_LEVEL level,
                                     const dm_type_column *columns);

/* Run on plain host memory: base[i] points at binding i's first byte. */
void dm_op_run_cpu(const dm_op *op, uint8_t *const *base);

dmlops_status dm_reverse_parse(const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC *d, DML_FEATURE_LEVEL level, dm_op *op);
dmlops_status dm_slice_parse(const DML_SLICE1_OPERATOR_DESC *d, DML_FEATURE_LEVEL level, dm_op *op);
dmlops_status dm_one_hot_parse(const DML_ONE_HOT_OPERATOR_DESC *d, DML_FEATURE_LEVEL level, dm_op *op);

void dm_reverse_run_cpu(const dm_op *op, uint8_t *const *base);
void dm_slice_run_cpu(const dm_op *op, uint8_t *const *base);
void dm_one_hot_run_cpu(const dm_op *op, uint8_t *const *base);

/* Index and length decoding shared by the CPU paths (the shaders mirror it). */
uint64_t dm_read_length(DML_TENSOR_DATA_TYPE type, const uint8_t *p, uint64_t n);
int64_t dm_read_index(DML_TENSOR_DATA_TYPE type, const uint8_t *p, uint64_t n);

/* Copies count elements of esize bytes between strided runs (strides in elements). */
void dm_copy_run(uint8_t *dst, int64_t dst_stride, const uint8_t *src, int64_t src_stride,
                 uint64_t count, uint32_t esize);

#endif

/* Shape rules shared by several operators (op_rules.c). i and j index op->t. */
dmlops_status dm_rule_same_rank(const dm_op *op, uint32_t i, uint32_t j);
dmlops_status dm_rule_same_type(const dm_op *op, uint32_t i, uint32_t j);
dmlops_status dm_rule_axis(const dm_op *op, uint32_t ref);
/* Tensor j has tensor i's Sizes, except that along op->axis it is 1 when
 * axis_is_one is set. */
dmlops_status dm_rule_sizes_match(const dm_op *op, uint32_t i, uint32_t j, bool axis_is_one);
/* Names the operator and its bindings (inputs, then the one output), then parses the
 * tensors in that order. */
dmlops_status dm_op_begin(dm_op *op, DML_OPERATOR_TYPE type, uint32_t input_count, const char *const *roles,
                          const DML_TENSOR_DESC *const *descs);
/* SLICE1: element offset of the output origin in the input, and the signed input step
 * (elements) per output step in each dimension. */
void dm_slice_input_map(const dm_op *op, int64_t *origin, int64_t *steps);
/* ONE_HOT: element offset of OnValue in ValuesTensor (OffValue is at 0). */
uint64_t dm_one_hot_on_offset(const dm_op *op);
