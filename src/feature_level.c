/* The per-feature-level support tables of operators.md section 3: which operators,
 * ranks and data types each level accepts, and whether a failure is INVALID (no level
 * accepts it) or UNSUPPORTED (a higher level would). */
#include <stdio.h>
#include <string.h>

#include "op.h"
#include "status.h"

#define T(x) (1u << DML_TENSOR_DATA_TYPE_##x)
#define TYPES_8 (T(FLOAT32) | T(FLOAT16) | T(INT32) | T(INT16) | T(INT8) | T(UINT32) | T(UINT16) | T(UINT8))
#define TYPES_11 (TYPES_8 | T(FLOAT64) | T(INT64) | T(UINT64))
#define INDEX_4 (T(INT64) | T(INT32) | T(UINT64) | T(UINT32))

typedef struct dm_level_row {
    DML_OPERATOR_TYPE op;
    DML_FEATURE_LEVEL level; /* the row applies from this level up to the next row */
    uint32_t min_rank, max_rank;
    uint32_t data_types, index_types;
} dm_level_row;

/* Newest first within each operator. Signed lengths from 5_0 are our decision: ONNX
 * Runtime passes them. */
static const dm_level_row dm_rows[] = {
    {DML_OPERATOR_REVERSE_SUBSEQUENCES, DML_FEATURE_LEVEL_5_0, 1, 8, TYPES_11, INDEX_4},
    {DML_OPERATOR_REVERSE_SUBSEQUENCES, DML_FEATURE_LEVEL_4_0, 1, 8, TYPES_8, T(UINT32)},
    {DML_OPERATOR_REVERSE_SUBSEQUENCES, DML_FEATURE_LEVEL_3_0, 4, 5, TYPES_8, T(UINT32)},
    {DML_OPERATOR_REVERSE_SUBSEQUENCES, DML_FEATURE_LEVEL_2_1, 4, 4, TYPES_8, T(UINT32)},
    {DML_OPERATOR_SLICE1, DML_FEATURE_LEVEL_4_1, 1, 8, TYPES_11, 0},
    {DML_OPERATOR_SLICE1, DML_FEATURE_LEVEL_3_0, 1, 8, TYPES_8, 0},
    {DML_OPERATOR_SLICE1, DML_FEATURE_LEVEL_2_1, 4, 5, TYPES_8, 0},
    {DML_OPERATOR_ONE_HOT, DML_FEATURE_LEVEL_4_1, 1, 8, TYPES_11, INDEX_4},
    {DML_OPERATOR_ONE_HOT, DML_FEATURE_LEVEL_3_0, 1, 8, TYPES_8, INDEX_4},
    {DML_OPERATOR_ONE_HOT, DML_FEATURE_LEVEL_2_1, 4, 4, TYPES_8, T(UINT32)},
    {DML_OPERATOR_ONE_HOT, DML_FEATURE_LEVEL_2_0, 4, 4, T(FLOAT32) | T(FLOAT16), T(UINT32)},
};

static const DML_FEATURE_LEVEL dm_levels[] = {
    DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
    DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
    DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
    DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4,
};

dmlops_status dm_feature_level_normalize(DML_FEATURE_LEVEL level, DML_FEATURE_LEVEL *out)
{
    if (level == 0) {
        *out = DMLOPS_FEATURE_LEVEL_HIGHEST;
        return DMLOPS_SUCCESS;
    }
    for (size_t i = 0; i < sizeof dm_levels / sizeof dm_levels[0]; i++)
        if (dm_levels[i] == level) {
            *out = level;
            return DMLOPS_SUCCESS;
        }
    return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                   "feature level 0x%x is not a DML_FEATURE_LEVEL value (0x1000 to 0x6400, or 0 for the highest)",
                   (unsigned)level);
}

static const dm_level_row *dm_row_at(DML_OPERATOR_TYPE op, DML_FEATURE_LEVEL level)
{
    for (size_t i = 0; i < sizeof dm_rows / sizeof dm_rows[0]; i++)
        if (dm_rows[i].op == op && dm_rows[i].level <= level) return &dm_rows[i];
    return NULL;
}

uint32_t dm_level_data_types(DML_FEATURE_LEVEL level)
{
    uint32_t types = 0;
    for (size_t i = 0; i < sizeof dm_rows / sizeof dm_rows[0]; i++) {
        const dm_level_row *r = &dm_rows[i];
        if (r->level <= level && dm_row_at(r->op, level) == r) types |= r->data_types | r->index_types;
    }
    return types;
}

/* The lowest level at which pred holds for the operator's rows, for messages. */
static DML_FEATURE_LEVEL dm_first_level(DML_OPERATOR_TYPE op, uint32_t rank, uint32_t type_bit,
                                        dm_type_column column)
{
    DML_FEATURE_LEVEL best = 0;
    for (size_t i = 0; i < sizeof dm_rows / sizeof dm_rows[0]; i++) {
        const dm_level_row *r = &dm_rows[i];
        uint32_t mask = column == DM_COLUMN_DATA ? r->data_types : r->index_types;
        if (r->op != op) continue;
        if (rank && (rank < r->min_rank || rank > r->max_rank)) continue;
        if (type_bit && !(mask & type_bit)) continue;
        best = r->level; /* rows are newest first, so the last match is the lowest */
    }
    return best;
}

static void dm_type_list(uint32_t mask, char *buf, size_t cap)
{
    static const DML_TENSOR_DATA_TYPE order[] = {
        DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16,
        DML_TENSOR_DATA_TYPE_INT64,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,
        DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_UINT32,
        DML_TENSOR_DATA_TYPE_UINT16,  DML_TENSOR_DATA_TYPE_UINT8};
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (mask & (1u << order[i]))
            len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s", len ? ", " : "",
                                    dmlops_data_type_name(order[i]));
}

dmlops_status dm_check_feature_level(const dm_op *op, DML_FEATURE_LEVEL level, const dm_type_column *columns)
{
    const dm_level_row *top = dm_row_at(op->type, DMLOPS_FEATURE_LEVEL_HIGHEST);
    const dm_level_row *row = dm_row_at(op->type, level);
    char list[160];
    /* Types no level accepts are invalid whatever the level. */
    for (uint32_t i = 0; i < op->input_count + op->output_count; i++) {
        uint32_t mask = columns[i] == DM_COLUMN_DATA ? top->data_types : top->index_types;
        if (!(mask & (1u << op->t[i].type))) {
            dm_type_list(mask, list, sizeof list);
            return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: %s.DataType = %s is invalid: must be one of %s",
                           op->name, op->role[i], dmlops_data_type_name(op->t[i].type), list);
        }
    }
    /* Valid at some level, so what follows is UNSUPPORTED rather than INVALID. */
    for (uint32_t i = 0; i < op->input_count + op->output_count; i++)
        if (op->t[i].owned_by_dml)
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                           "%s: %s.Flags has DML_TENSOR_FLAG_OWNED_BY_DML: these operators have no weights to own",
                           op->name, op->role[i]);
    if (!row)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "%s: the operator does not exist at feature level %s (from %s)",
                       op->name, dmlops_feature_level_name(level),
                       dmlops_feature_level_name(dm_first_level(op->type, 0, 0, DM_COLUMN_DATA)));
    for (uint32_t i = 0; i < op->input_count + op->output_count; i++) {
        const dm_tensor *t = &op->t[i];
        if (t->rank < row->min_rank || t->rank > row->max_rank)
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                           "%s: %s.DimensionCount = %u is not supported at feature level %s (%u to %u; %u from %s)",
                           op->name, op->role[i], t->rank, dmlops_feature_level_name(level), row->min_rank,
                           row->max_rank, t->rank,
                           dmlops_feature_level_name(dm_first_level(op->type, t->rank, 0, DM_COLUMN_DATA)));
        uint32_t mask = columns[i] == DM_COLUMN_DATA ? row->data_types : row->index_types;
        if (!(mask & (1u << t->type))) {
            dm_type_list(mask, list, sizeof list);
            return dm_fail(DMLOPS_ERROR_UNSUPPORTED,
                           "%s: %s.DataType = %s is not supported at feature level %s (from %s; here: %s)",
                           op->name, op->role[i], dmlops_data_type_name(t->type), dmlops_feature_level_name(level),
                           dmlops_feature_level_name(dm_first_level(op->type, 0, 1u << t->type, columns[i])), list);
        }
    }
    return DMLOPS_SUCCESS;
}
