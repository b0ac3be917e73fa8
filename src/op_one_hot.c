/* DML_ONE_HOT: rules and semantics (operators.md section 6). Along Axis of the output
 * each sequence is OffValue except at the position its index names. */
#include <string.h>

#include "elements.h"
#include "gather.h"
#include "status.h"

enum { IDX = 0, VAL = 1, OUT = 2 };

static dmlops_status dm_one_hot_parse(const void *desc, DML_FEATURE_LEVEL level, dm_op *op)
{
    const DML_ONE_HOT_OPERATOR_DESC *d = desc;
    static const dm_type_column columns[] = {DM_COLUMN_INDEX, DM_COLUMN_DATA, DM_COLUMN_DATA};
    static const char *const roles[] = {"IndicesTensor", "ValuesTensor", "OutputTensor"};
    const DML_TENSOR_DESC *descs[] = {d->IndicesTensor, d->ValuesTensor, d->OutputTensor};
    op->axis = d->Axis;
    DM_TRY(dm_op_begin(op, DML_OPERATOR_ONE_HOT, 2, roles, descs));
    DM_TRY(dm_rule_same_rank(op, OUT, IDX));
    DM_TRY(dm_rule_same_rank(op, OUT, VAL));
    DM_TRY(dm_rule_axis(op, OUT));
    DM_TRY(dm_rule_same_type(op, OUT, VAL));
    DM_TRY(dm_rule_sizes_match(op, OUT, IDX, true));
    if (op->t[VAL].count < 2)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT,
                       "ONE_HOT: ValuesTensor has %llu element: it needs at least 2 (OffValue, OnValue)",
                       (unsigned long long)op->t[VAL].count);
    return dm_check_feature_level(op, level, columns);
}

/* OnValue sits at coordinate 1 of the highest-numbered dimension of size > 1
 * (decision; "the fastest-changing dimension" of the docs). */
uint64_t dm_one_hot_on_offset(const dm_op *op)
{
    const dm_tensor *v = &op->t[VAL];
    for (uint32_t d = v->rank; d-- > 0;)
        if (v->sizes[d] > 1) return v->strides[d];
    return 0; /* unreachable: at least 2 elements */
}

/* The source slot is OffValue (element 0 of Values), aux2 is OnValue, aux the indices;
 * only the indices move with the coordinate. */
static void dm_one_hot_lower(const dm_op *op, dm_gather *g)
{
    const dm_tensor *idx = &op->t[IDX], *out = &op->t[OUT];
    g->kernel = DM_KERNEL_ONE_HOT;
    g->esize = out->esize;
    g->rank = out->rank;
    g->axis = (int32_t)op->axis;
    g->n = out->sizes[op->axis];
    g->aux_type = dm_aux_type(idx->type);
    g->aux_esize = idx->esize;
    g->aux_dtype = idx->type;
    g->aux2_offset = dm_one_hot_on_offset(op);
    g->binding[DM_SLOT_DST] = OUT;
    g->binding[DM_SLOT_SRC] = VAL;
    g->binding[DM_SLOT_AUX] = IDX;
    g->binding[DM_SLOT_AUX2] = VAL;
    for (uint32_t d = 0; d < out->rank; d++) {
        g->size[d] = out->sizes[d];
        g->stride[DM_SLOT_DST][d] = (int64_t)out->strides[d];
        g->stride[DM_SLOT_AUX][d] = d == op->axis ? 0 : (int64_t)idx->strides[d];
    }
}

/* Writes the row segment: OffValue everywhere (skipped when the caller has already
 * filled the whole range), then OnValue where the index names the position. */
static void dm_one_hot_row(const dm_gather *g, uint8_t *const *slot, const dm_rows *r, bool prefilled)
{
    const uint32_t last = g->rank - 1;
    const int64_t es = g->esize, ds = g->stride[DM_SLOT_DST][last], c0 = r->c0, c1 = r->c1;
    const int64_t is = g->stride[DM_SLOT_AUX][last], ies = g->aux_esize;
    const uint8_t *off_v = slot[DM_SLOT_SRC], *on_v = slot[DM_SLOT_AUX2] + g->aux2_offset * (uint64_t)es;
    const uint8_t *ip = slot[DM_SLOT_AUX] + r->off[DM_SLOT_AUX] * ies;
    uint8_t *dst = slot[DM_SLOT_DST] + r->off[DM_SLOT_DST] * es;
    if ((uint32_t)g->axis == last) { /* the row is (part of) one sequence */
        if (!prefilled) dm_fill_run(dst + c0 * ds * es, ds, off_v, (uint64_t)(c1 - c0), g->esize);
        int64_t k = dm_read_index(g->aux_dtype, ip, g->n);
        if (k >= c0 && k < c1) memcpy(dst + k * ds * es, on_v, (size_t)es);
        return;
    }
    const int64_t a = r->coord[g->axis];
    if (is == 0) { /* one index for the whole row: all OnValue or all OffValue */
        bool hit = dm_read_index(g->aux_dtype, ip, g->n) == a;
        if (hit || !prefilled) dm_fill_run(dst + c0 * ds * es, ds, hit ? on_v : off_v, (uint64_t)(c1 - c0), g->esize);
        return;
    }
    if (!prefilled) dm_fill_run(dst + c0 * ds * es, ds, off_v, (uint64_t)(c1 - c0), g->esize);
    for (int64_t j = c0; j < c1; j++)
        if (dm_read_index(g->aux_dtype, ip + j * is * ies, g->n) == a) memcpy(dst + j * ds * es, on_v, (size_t)es);
}

static void dm_one_hot_rows(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1)
{
    dm_rows r;
    for (bool more = dm_rows_begin(&r, g, e0, e1); more; more = dm_rows_next(&r)) dm_one_hot_row(g, slot, &r, false);
}

/* A packed output: the whole range [e0, e1) is one contiguous run, filled with
 * OffValue in one pattern fill (memset when its bytes are equal), then each row writes
 * only its OnValue. Short sequences (depth 16) then cost no per-row fill. */
static void dm_one_hot_rows_packed(const dm_gather *g, uint8_t *const *slot, uint64_t e0, uint64_t e1)
{
    dm_fill_run(slot[DM_SLOT_DST] + e0 * g->esize, 1, slot[DM_SLOT_SRC], e1 - e0, g->esize);
    dm_rows r;
    for (bool more = dm_rows_begin(&r, g, e0, e1); more; more = dm_rows_next(&r)) dm_one_hot_row(g, slot, &r, true);
}

static dm_cpu_fn dm_one_hot_cpu_loop(const dm_gather *g)
{
    int64_t packed = 1;
    for (uint32_t d = g->rank; d-- > 0;) {
        if (g->size[d] > 1 && g->stride[DM_SLOT_DST][d] != packed) return dm_one_hot_rows;
        packed *= g->size[d];
    }
    return dm_one_hot_rows_packed;
}

static void dm_one_hot_traffic(const dm_op *op, uint64_t *read, uint64_t *written)
{
    const dm_tensor *out = &op->t[OUT], *idx = &op->t[IDX];
    *written = out->count * out->esize;
    *read = dm_tensor_footprint(idx) * idx->esize + 2ull * out->esize;
}

const dm_op_class dm_one_hot_class = {
    .type = DML_OPERATOR_ONE_HOT,
    .name = "ONE_HOT",
    .parse = dm_one_hot_parse,
    .lower = dm_one_hot_lower,
    .cpu_loop = dm_one_hot_cpu_loop,
    .traffic = dm_one_hot_traffic,
};
