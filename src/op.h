/* A parsed, validated operator descriptor (deep copy), and the registry entry each
 * operator file exports. Each op_<name>.c holds everything about one operator: its
 * rules, its CPU semantics and its lowering for the GPU; op.c holds the table and the
 * only dispatch on DML_OPERATOR_TYPE. Adding an operator means one file and one row. */
#ifndef DM_OP_H
#define DM_OP_H

#include "tensor.h"

enum { DM_MAX_BINDINGS = 3 };

struct dm_gather;
typedef struct dm_op_class dm_op_class;

typedef struct dm_op {
    DML_OPERATOR_TYPE type;
    const char *name;                 /* "SLICE1" */
    const dm_op_class *cls;           /* the operator's registry entry */
    uint32_t input_count, output_count;
    dm_tensor t[DM_MAX_BINDINGS];     /* binding order: inputs, then the output */
    const char *role[DM_MAX_BINDINGS];
    uint32_t axis;                    /* REVERSE_SUBSEQUENCES, ONE_HOT */
    uint32_t win_offsets[DM_MAX_RANK];/* SLICE1 */
    uint32_t win_sizes[DM_MAX_RANK];
    int32_t win_strides[DM_MAX_RANK];
} dm_op;

/* Produces work units [u0, u1) of a collapsed gather on the CPU. A unit is an output
 * element in row-major order over g->size, unless the loop says otherwise (a column of
 * the output, say). slot[s] is the first byte of the binding feeding gather slot s (NULL
 * when the slot is unused). Writes only the output elements of those units, so disjoint
 * ranges may run on different threads at once. */
typedef void (*dm_cpu_fn)(const struct dm_gather *g, uint8_t *const *slot, uint64_t u0, uint64_t u1);

/* A CPU loop and how its work divides: `units` of work (0: one per output element),
 * each moving about the same bytes. */
typedef struct dm_cpu_loop {
    dm_cpu_fn fn;
    uint64_t units;
} dm_cpu_loop;

struct dm_op_class {
    DML_OPERATOR_TYPE type;
    const char *name;
    /* Validates the DML_*_OPERATOR_DESC at `level` and fills op (calls dm_op_begin). */
    dmlops_status (*parse)(const void *desc, DML_FEATURE_LEVEL level, dm_op *op);
    /* Describes the operator as a gather (gather.h); dm_op_lower collapses it. */
    void (*lower)(const dm_op *op, struct dm_gather *g);
    /* The CPU engine's entry: the loop specialised for this collapsed gather, chosen
     * once at operator creation. */
    dm_cpu_loop (*cpu_loop)(const struct dm_gather *g);
    /* Bytes an execution must read and write at the least: the basis of bandwidth. */
    void (*traffic)(const dm_op *op, uint64_t *read, uint64_t *written);
};

extern const dm_op_class dm_reverse_class, dm_slice_class, dm_one_hot_class;

/* op.c: the registry. NULL for an operator type libdmlops does not implement. */
const dm_op_class *dm_op_class_of(DML_OPERATOR_TYPE type);
/* Validates desc at `level` (already normalised) and fills op. fn: the public function,
 * named by the messages that have no operator to name yet (a NULL desc, its Type);
 * dm_op_parse names dmlops_validate_operator. */
dmlops_status dm_op_parse_as(const char *fn, const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level, dm_op *op);
dmlops_status dm_op_parse(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level, dm_op *op);
/* The operator's gather description, collapsed (gather.h). */
void dm_op_lower(const dm_op *op, struct dm_gather *g);
void dm_op_traffic(const dm_op *op, uint64_t *read, uint64_t *written);
/* UNSUPPORTED, naming the tensor and its TotalTensorSizeInBytes, when a tensor's bytes do
 * not fit in the host's address space (SIZE_MAX: only where size_t is 32 bits): a backend
 * that addresses tensors from the host (the CPU backend) refuses such an operator at
 * creation, as no buffer of it can hold the tensor. */
dmlops_status dm_op_check_host_addressable(const dm_op *op);

/* 0 becomes the highest level; a value that is not a DML_FEATURE_LEVEL is refused. */
dmlops_status dm_feature_level_normalize(DML_FEATURE_LEVEL level, DML_FEATURE_LEVEL *out);

/* The data types some operator takes at `level` (normalised), as either data or index
 * tensor: bit (1 << DML_TENSOR_DATA_TYPE_x) each (dmlops_context_info.supported_data_types). */
uint32_t dm_level_data_types(DML_FEATURE_LEVEL level);

/* Which tensors of an operator obey the data-type column and which the index column
 * of the feature-level table. */
typedef enum dm_type_column { DM_COLUMN_DATA, DM_COLUMN_INDEX } dm_type_column;

/* Applies the per-feature-level table: operator existence, ranks and data types.
 * Types no level accepts give INVALID_ARGUMENT; the rest UNSUPPORTED. */
dmlops_status dm_check_feature_level(const dm_op *op, DML_FEATURE_LEVEL level,
                                     const dm_type_column *columns);

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
/* The CPU loop of an affine gather (no AUX, no source window): SLICE1's, also used by a
 * REVERSE_SUBSEQUENCES whose axis has length 1. */
dm_cpu_loop dm_affine_cpu_loop(const struct dm_gather *g);
/* ONE_HOT: element offset of OnValue in ValuesTensor (OffValue is at 0). */
uint64_t dm_one_hot_on_offset(const dm_op *op);

#endif
