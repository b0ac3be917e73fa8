/* Descriptor validation: the rules of spec/operators.md sections 1 and 3 to 6.
 *
 * Every case goes through dmlops_validate_operator (no device) and asserts the status and
 * a message naming the offending field. The same cases then go through
 * dmlops_operator_create on every backend, on a context created at the case's feature
 * level, which must give the same verdict: validation does not depend on the backend. */
#include <stdlib.h>

#include "harness.h"

#define F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define F64 DML_TENSOR_DATA_TYPE_FLOAT64
#define I8 DML_TENSOR_DATA_TYPE_INT8
#define I16 DML_TENSOR_DATA_TYPE_INT16
#define I32 DML_TENSOR_DATA_TYPE_INT32
#define I64 DML_TENSOR_DATA_TYPE_INT64
#define U8 DML_TENSOR_DATA_TYPE_UINT8
#define U16 DML_TENSOR_DATA_TYPE_UINT16
#define U32 DML_TENSOR_DATA_TYPE_UINT32
#define U64 DML_TENSOR_DATA_TYPE_UINT64
#define LV(x) DML_FEATURE_LEVEL_##x
#define OK DMLOPS_SUCCESS
#define INVALID DMLOPS_ERROR_INVALID_ARGUMENT
#define UNSUP DMLOPS_ERROR_UNSUPPORTED

static const DML_TENSOR_DATA_TYPE all_types[] = {F32, F16, U32, U16, U8, I32, I16, I8, F64, U64, I64};
#define ALL_TYPE_COUNT (sizeof all_types / sizeof all_types[0])

/* 0 first: it means the highest level. */
static const DML_FEATURE_LEVEL all_levels[] = {
    0,        LV(1_0), LV(2_0), LV(2_1), LV(3_0), LV(3_1), LV(4_0), LV(4_1),
    LV(5_0), LV(5_1), LV(5_2), LV(6_0), LV(6_1), LV(6_2), LV(6_3), LV(6_4),
};
#define ALL_LEVEL_COUNT (sizeof all_levels / sizeof all_levels[0])

static bool level_is_known(DML_FEATURE_LEVEL level)
{
    for (size_t i = 0; i < ALL_LEVEL_COUNT; i++)
        if (all_levels[i] == level) return true;
    return false;
}

/* ---- Descriptor builders -------------------------------------------------------------
 * A vdesc owns one operator descriptor and everything it points to. Build it in place
 * and never copy it: the DML structs point into it. Tensor slots by operator:
 *   REVERSE_SUBSEQUENCES: t[0] Input, t[1] SequenceLengths, t[2] Output
 *   SLICE1:               t[0] Input, t[1] Output
 *   ONE_HOT:              t[0] Indices, t[1] Values, t[2] Output */
typedef struct vdesc {
    dmt_tensor t[3];
    uint32_t offsets[9], wsizes[9];
    int32_t wstrides[9];
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev;
    DML_SLICE1_OPERATOR_DESC slice;
    DML_ONE_HOT_OPERATOR_DESC hot;
    DML_OPERATOR_DESC op;
    bool null_desc; /* pass NULL instead of &op */
} vdesc;

static void fill(uint32_t *a, uint32_t n, uint32_t value)
{
    for (uint32_t i = 0; i < n; i++) a[i] = value;
}

/* Re-initialises a tensor with a new type or shape (copies first: dmt_tensor_init clears
 * the arrays the arguments may point into). */
static void reinit(dmt_tensor *t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t *sizes,
                   const uint32_t *strides)
{
    uint32_t sz[8], st[8];
    memcpy(sz, sizes, rank * sizeof *sz);
    if (strides) memcpy(st, strides, rank * sizeof *st);
    dmt_tensor_init(t, type, rank, sz, strides ? st : NULL, 0);
}

static void set_type(dmt_tensor *t, DML_TENSOR_DATA_TYPE type)
{
    reinit(t, type, t->buf.DimensionCount, t->sizes, t->buf.Strides);
}

static void set_shape(dmt_tensor *t, uint32_t rank, const uint32_t *sizes, const uint32_t *strides)
{
    reinit(t, t->buf.DataType, rank, sizes, strides);
}

static void set_strides(dmt_tensor *t, const uint32_t *strides)
{
    reinit(t, t->buf.DataType, t->buf.DimensionCount, t->sizes, strides);
}

/* Input and Output of `sizes`, SequenceLengths the same with 1 along the axis, packed. */
static void rev_make(vdesc *v, DML_TENSOR_DATA_TYPE type, DML_TENSOR_DATA_TYPE ltype, uint32_t rank,
                     const uint32_t *sizes, uint32_t axis)
{
    uint32_t ls[8];
    memcpy(ls, sizes, rank * sizeof *ls);
    if (axis < rank) ls[axis] = 1;
    dmt_tensor_init(&v->t[0], type, rank, sizes, NULL, 0);
    dmt_tensor_init(&v->t[1], ltype, rank, ls, NULL, 0);
    dmt_tensor_init(&v->t[2], type, rank, sizes, NULL, 0);
    v->rev = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){&v->t[0].desc, &v->t[1].desc, &v->t[2].desc, axis};
    v->op = (DML_OPERATOR_DESC){DML_OPERATOR_REVERSE_SUBSEQUENCES, &v->rev};
}

static const uint32_t S2345[] = {2, 3, 4, 5};
static void rev0(vdesc *v) { rev_make(v, F32, U32, 4, S2345, 2); }

/* Sizes all 2, Axis the last dimension. */
static void rev_rank(vdesc *v, DML_TENSOR_DATA_TYPE type, DML_TENSOR_DATA_TYPE ltype, uint32_t rank)
{
    uint32_t s[8];
    fill(s, rank, 2);
    rev_make(v, type, ltype, rank, s, rank - 1);
}

static void slice_make(vdesc *v, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t *in, const uint32_t *off,
                       const uint32_t *win, const int32_t *str, const uint32_t *out)
{
    dmt_tensor_init(&v->t[0], type, rank, in, NULL, 0);
    dmt_tensor_init(&v->t[1], type, rank, out, NULL, 0);
    memcpy(v->offsets, off, rank * sizeof *off);
    memcpy(v->wsizes, win, rank * sizeof *win);
    memcpy(v->wstrides, str, rank * sizeof *str);
    v->slice = (DML_SLICE1_OPERATOR_DESC){&v->t[0].desc, &v->t[1].desc, rank, v->offsets, v->wsizes, v->wstrides};
    v->op = (DML_OPERATOR_DESC){DML_OPERATOR_SLICE1, &v->slice};
}

/* The first SLICE1 example of seed 003: 4x4 input, offsets {0,0,0,1}, sizes {1,1,4,3},
 * strides {1,1,2,2}, output {1,1,2,2}. */
static const uint32_t S1144[] = {1, 1, 4, 4}, S1122[] = {1, 1, 2, 2};
static void slice0(vdesc *v)
{
    static const uint32_t off[] = {0, 0, 0, 1}, win[] = {1, 1, 4, 3};
    static const int32_t str[] = {1, 1, 2, 2};
    slice_make(v, F32, 4, S1144, off, win, str, S1122);
}

/* Input sizes all 3, window offset 1 size 2 stride -1, output sizes all 2. */
static void slice_rank(vdesc *v, DML_TENSOR_DATA_TYPE type, uint32_t rank)
{
    uint32_t in[8], off[8], win[8], out[8];
    int32_t str[8];
    fill(in, rank, 3);
    fill(off, rank, 1);
    fill(win, rank, 2);
    fill(out, rank, 2);
    for (uint32_t i = 0; i < rank; i++) str[i] = -1;
    slice_make(v, type, rank, in, off, win, str, out);
}

/* Output of `out`, Indices the same with 1 along the axis, Values {1,..,1,2}, packed. */
static void hot_make(vdesc *v, DML_TENSOR_DATA_TYPE itype, DML_TENSOR_DATA_TYPE vtype, uint32_t rank,
                     const uint32_t *out, uint32_t axis)
{
    uint32_t is[8], vs[8];
    memcpy(is, out, rank * sizeof *is);
    if (axis < rank) is[axis] = 1;
    fill(vs, rank, 1);
    vs[rank - 1] = 2;
    dmt_tensor_init(&v->t[0], itype, rank, is, NULL, 0);
    dmt_tensor_init(&v->t[1], vtype, rank, vs, NULL, 0);
    dmt_tensor_init(&v->t[2], vtype, rank, out, NULL, 0);
    v->hot = (DML_ONE_HOT_OPERATOR_DESC){&v->t[0].desc, &v->t[1].desc, &v->t[2].desc, axis};
    v->op = (DML_OPERATOR_DESC){DML_OPERATOR_ONE_HOT, &v->hot};
}

static const uint32_t S1134[] = {1, 1, 3, 4};
static void hot0(vdesc *v) { hot_make(v, U32, F32, 4, S1134, 3); }

/* Output sizes all 2, Axis 0. */
static void hot_rank(vdesc *v, DML_TENSOR_DATA_TYPE itype, DML_TENSOR_DATA_TYPE vtype, uint32_t rank)
{
    uint32_t s[8];
    fill(s, rank, 2);
    hot_make(v, itype, vtype, rank, s, 0);
}

static const char *op_name_of(const DML_OPERATOR_DESC *d)
{
    if (!d || !d->Desc) return NULL;
    switch (d->Type) {
    case DML_OPERATOR_REVERSE_SUBSEQUENCES: return "REVERSE_SUBSEQUENCES";
    case DML_OPERATOR_SLICE1: return "SLICE1";
    case DML_OPERATOR_ONE_HOT: return "ONE_HOT";
    default: return NULL;
    }
}

/* ---- Cases ---------------------------------------------------------------------------- */
typedef struct vcase {
    const char *group, *name;
    void (*build)(vdesc *v);
    DML_FEATURE_LEVEL level;
    dmlops_status expect;
    const char *substr; /* the message must contain it (failures only) */
    int line;
} vcase;

static vcase vcases[512];
static int vcase_count, vcase_dropped;

static void vcase_register(vcase c)
{
    if (vcase_count < (int)(sizeof vcases / sizeof vcases[0])) vcases[vcase_count++] = c;
    else vcase_dropped++;
}

/* VCASE(group, name, level, expected status, message substring) { build into v } */
#define VCASE(group, name, level, expect, substr)                                          \
    static void vc_##name(vdesc *v);                                                      \
    __attribute__((constructor)) static void vc_reg_##name(void)                          \
    {                                                                                     \
        vcase_register((vcase){#group, #name, vc_##name, level, expect, substr, __LINE__}); \
    }                                                                                     \
    static void vc_##name(vdesc *v)

static const DML_OPERATOR_DESC *vcase_build(const vcase *c, vdesc *v)
{
    memset(v, 0, sizeof *v);
    c->build(v);
    return v->null_desc ? NULL : &v->op;
}

/* Checks one verdict against the case; failures point at the case's line. */
static void vcase_check(const vcase *c, const DML_OPERATOR_DESC *d, const char *fn, dmlops_status got)
{
    const char *msg = dmlops_last_error_message(), *op = op_name_of(d);
    if (got != c->expect) {
        dmt_fail(__FILE__, c->line, "%s: %s at level 0x%x returned %s, expected %s (message: %s)", c->name, fn,
                 (unsigned)c->level, dmlops_status_string(got), dmlops_status_string(c->expect),
                 got ? msg : "");
        return;
    }
    if (got == DMLOPS_SUCCESS) return;
    if (c->substr && !strstr(msg, c->substr))
        dmt_fail(__FILE__, c->line, "%s: %s message \"%s\" lacks \"%s\"", c->name, fn, msg, c->substr);
    /* operators.md section 7: the message names the operator. */
    if (op && level_is_known(c->level) && !strstr(msg, op))
        dmt_fail(__FILE__, c->line, "%s: %s message \"%s\" does not name the operator %s", c->name, fn, msg, op);
}

static void run_group(const char *group)
{
    int n = 0;
    for (int i = 0; i < vcase_count; i++) {
        const vcase *c = &vcases[i];
        vdesc v;
        if (strcmp(c->group, group)) continue;
        const DML_OPERATOR_DESC *d = vcase_build(c, &v);
        vcase_check(c, d, "dmlops_validate_operator", dmlops_validate_operator(d, c->level));
        n++;
    }
    CHECK(n > 0, "no cases in group %s", group);
    CHECK(vcase_dropped == 0, "%d cases did not fit in vcases[]", vcase_dropped);
}

TEST(tensor_rules) { run_group("tensor"); }
TEST(operator_desc_rules) { run_group("opdesc"); }
TEST(reverse_subsequences_rules) { run_group("reverse"); }
TEST(slice1_rules) { run_group("slice"); }
TEST(one_hot_rules) { run_group("one_hot"); }
TEST(feature_level_rules) { run_group("level"); }
TEST(boundaries_that_must_pass) { run_group("pass"); }

/* ---- Section 1: tensors (mostly on SLICE1's InputTensor; every role is covered by
 * tensor_rules_apply_to_every_tensor below) ---- */
VCASE(tensor, tensor_type_invalid, 0, INVALID, "InputTensor.Type")
{
    slice0(v);
    v->t[0].desc.Type = DML_TENSOR_TYPE_INVALID;
}
VCASE(tensor, tensor_type_unknown_value, 0, INVALID, "OutputTensor.Type")
{
    slice0(v);
    v->t[1].desc.Type = (DML_TENSOR_TYPE)2;
}
VCASE(tensor, tensor_desc_pointer_null, 0, INVALID, "InputTensor")
{
    slice0(v);
    v->slice.InputTensor = NULL;
}
VCASE(tensor, buffer_desc_null, 0, INVALID, "InputTensor.Desc")
{
    slice0(v);
    v->t[0].desc.Desc = NULL;
}
VCASE(tensor, datatype_unknown, 0, INVALID, "InputTensor.DataType")
{
    slice0(v);
    v->t[0].buf.DataType = DML_TENSOR_DATA_TYPE_UNKNOWN;
}
VCASE(tensor, datatype_uint4, 0, INVALID, "InputTensor.DataType")
{
    slice0(v);
    v->t[0].buf.DataType = DML_TENSOR_DATA_TYPE_UINT4;
    v->t[1].buf.DataType = DML_TENSOR_DATA_TYPE_UINT4;
}
VCASE(tensor, datatype_int4_output, 0, INVALID, "OutputTensor.DataType")
{
    slice0(v);
    v->t[1].buf.DataType = DML_TENSOR_DATA_TYPE_INT4;
}
VCASE(tensor, datatype_out_of_enum, 0, INVALID, "InputTensor.DataType")
{
    slice0(v);
    v->t[0].buf.DataType = (DML_TENSOR_DATA_TYPE)99;
}
VCASE(tensor, flags_owned_by_dml_unsupported, 0, UNSUP, "InputTensor.Flags")
{
    slice0(v);
    v->t[0].buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
}
VCASE(tensor, flags_unknown_bit, 0, INVALID, "InputTensor.Flags")
{
    slice0(v);
    v->t[0].buf.Flags = (DML_TENSOR_FLAGS)0x2;
}
VCASE(tensor, flags_high_bit, 0, INVALID, "OutputTensor.Flags")
{
    slice0(v);
    v->t[1].buf.Flags = (DML_TENSOR_FLAGS)0x80000000u;
}
VCASE(tensor, flags_owned_plus_unknown_bit, 0, INVALID, "InputTensor.Flags")
{
    slice0(v);
    v->t[0].buf.Flags = (DML_TENSOR_FLAGS)0x3;
}
/* A descriptor that breaks a rule at every level is INVALID even when it also carries
 * something unsupported (dmlops.h: INVALID "when desc breaks a rule at every level"). */
VCASE(tensor, invalid_wins_over_unsupported_flags, 0, INVALID, "OutputTensor.Sizes[3]")
{
    static const uint32_t bad[] = {1, 1, 2, 0};
    slice0(v);
    v->t[0].buf.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
    memcpy(v->t[1].sizes, bad, sizeof bad);
}
VCASE(tensor, dimension_count_0, 0, INVALID, "InputTensor.DimensionCount")
{
    slice0(v);
    v->t[0].buf.DimensionCount = 0;
}
VCASE(tensor, dimension_count_9, 0, INVALID, "OutputTensor.DimensionCount")
{
    slice_rank(v, F32, 8);
    v->t[1].buf.DimensionCount = 9; /* the library must not read a 9th size */
}
/* Every DimensionCount 0, the SLICE1 field too: consistent, yet still invalid. */
VCASE(tensor, dimension_count_0_everywhere, 0, INVALID, "DimensionCount")
{
    slice0(v);
    v->t[0].buf.DimensionCount = 0;
    v->t[1].buf.DimensionCount = 0;
    v->slice.DimensionCount = 0;
}
VCASE(tensor, sizes_null, 0, INVALID, "InputTensor.Sizes")
{
    slice0(v);
    v->t[0].buf.Sizes = NULL;
}
VCASE(tensor, size_zero, 0, INVALID, "OutputTensor.Sizes[1]")
{
    slice0(v);
    v->t[1].sizes[1] = 0;
}
VCASE(tensor, element_count_2_pow_32, 0, INVALID, "InputTensor")
{
    static const uint32_t in[] = {65536, 65536}, off[] = {0, 0}, win[] = {1, 1}, out[] = {1, 1};
    static const int32_t str[] = {1, 1};
    slice_make(v, U8, 2, in, off, win, str, out);
}
/* 65537^2 = 2^32 + 2^17 + 1: not 0 in its low 32 bits. */
VCASE(tensor, element_count_above_2_pow_32, 0, INVALID, "InputTensor")
{
    static const uint32_t in[] = {65537, 65537}, off[] = {0, 0}, win[] = {1, 1}, out[] = {1, 1};
    static const int32_t str[] = {1, 1};
    slice_make(v, U8, 2, in, off, win, str, out);
}
/* 2^64 elements: a 64-bit product wraps to 0, which must not pass. */
VCASE(tensor, element_count_wraps_64_bits, 0, INVALID, "Sizes")
{
    static const uint32_t in[] = {65536, 65536, 65536, 65536}, off[] = {0, 0, 0, 0}, win[] = {1, 1, 1, 1},
                          out[] = {1, 1, 1, 1};
    static const int32_t str[] = {1, 1, 1, 1};
    slice_make(v, U8, 4, in, off, win, str, out);
}
VCASE(tensor, total_size_below_minimum, 0, INVALID, "InputTensor.TotalTensorSizeInBytes")
{
    slice0(v);
    v->t[0].buf.TotalTensorSizeInBytes = 60; /* minimum 64 */
}
VCASE(tensor, total_size_zero, 0, INVALID, "OutputTensor.TotalTensorSizeInBytes")
{
    slice0(v);
    v->t[1].buf.TotalTensorSizeInBytes = 0;
}
VCASE(tensor, total_size_below_strided_minimum, 0, INVALID, "InputTensor.TotalTensorSizeInBytes")
{
    static const uint32_t strides[] = {64, 64, 8, 1};
    slice0(v);
    set_strides(&v->t[0], strides); /* minimum (3*8 + 3 + 1) * 4 = 112 */
    v->t[0].buf.TotalTensorSizeInBytes = 108;
}
VCASE(tensor, total_size_not_multiple_of_4, 0, INVALID, "InputTensor.TotalTensorSizeInBytes")
{
    slice0(v);
    v->t[0].buf.TotalTensorSizeInBytes = 66;
}
VCASE(tensor, total_size_not_multiple_of_4_uint8, 0, INVALID, "OutputTensor.TotalTensorSizeInBytes")
{
    slice0(v);
    set_type(&v->t[0], U8);
    set_type(&v->t[1], U8);
    v->t[1].buf.TotalTensorSizeInBytes = 5; /* >= the 4 bytes needed, but not a multiple of 4 */
}
/* (2^32-2) * (2^32-1) + 1 elements of 4 bytes: the minimum size overflows 64 bits. If it
 * wrapped, it would come out below TotalTensorSizeInBytes and pass. */
VCASE(tensor, minimum_size_overflows_64_bits, 0, INVALID, "Strides")
{
    static const uint32_t in[] = {0xFFFFFFFFu}, strides[] = {0xFFFFFFFFu}, off[] = {0}, win[] = {1}, out[] = {1};
    static const int32_t str[] = {1};
    slice_make(v, F32, 1, in, off, win, str, out);
    set_strides(&v->t[0], strides);
    v->t[0].buf.TotalTensorSizeInBytes = UINT64_MAX - 3;
}
VCASE(tensor, base_alignment_not_power_of_2, 0, INVALID, "InputTensor.GuaranteedBaseOffsetAlignment")
{
    slice0(v);
    v->t[0].buf.GuaranteedBaseOffsetAlignment = 24;
}
VCASE(tensor, base_alignment_3_uint8, 0, INVALID, "OutputTensor.GuaranteedBaseOffsetAlignment")
{
    slice0(v);
    set_type(&v->t[0], U8);
    set_type(&v->t[1], U8);
    v->t[1].buf.GuaranteedBaseOffsetAlignment = 3;
}
VCASE(tensor, base_alignment_below_element_size, 0, INVALID, "InputTensor.GuaranteedBaseOffsetAlignment")
{
    slice0(v);
    v->t[0].buf.GuaranteedBaseOffsetAlignment = 2; /* FLOAT32 */
}
VCASE(tensor, base_alignment_below_element_size_f64, 0, INVALID, "OutputTensor.GuaranteedBaseOffsetAlignment")
{
    slice0(v);
    set_type(&v->t[0], F64);
    set_type(&v->t[1], F64);
    v->t[1].buf.GuaranteedBaseOffsetAlignment = 4;
}
VCASE(tensor, output_zero_stride, 0, INVALID, "OutputTensor.Strides[2]")
{
    static const uint32_t strides[] = {0, 0, 0, 1};
    slice0(v);
    set_strides(&v->t[1], strides);
}
VCASE(tensor, output_zero_stride_reverse, 0, INVALID, "OutputTensor.Strides[3]")
{
    static const uint32_t strides[] = {60, 20, 5, 0};
    rev0(v);
    set_strides(&v->t[2], strides);
}
VCASE(tensor, output_zero_stride_one_hot, 0, INVALID, "OutputTensor.Strides[2]")
{
    static const uint32_t strides[] = {12, 12, 0, 1};
    hot0(v);
    set_strides(&v->t[2], strides);
}
VCASE(tensor, output_strides_alias, 0, INVALID, "OutputTensor.Strides")
{
    static const uint32_t in[] = {4, 4}, off[] = {0, 0}, win[] = {2, 2}, out[] = {2, 2}, strides[] = {1, 1};
    static const int32_t str[] = {1, 1};
    slice_make(v, F32, 2, in, off, win, str, out);
    set_strides(&v->t[1], strides);
}
/* Not nested and not one-to-one: 2*i + 3*j takes the value 6 twice. The message gives
 * the strides and sizes. */
VCASE(tensor, output_strides_alias_interleaved, 0, INVALID, "OutputTensor.Strides = {2, 3} with Sizes = {4, 3}")
{
    static const uint32_t in[] = {4, 3}, off[] = {0, 0}, win[] = {4, 3}, strides[] = {2, 3};
    static const int32_t str[] = {1, 1};
    slice_make(v, F32, 2, in, off, win, str, in);
    set_strides(&v->t[1], strides);
}

/* ---- DML_OPERATOR_DESC and the level argument ---- */
VCASE(opdesc, operator_desc_null, 0, INVALID, "desc") { v->null_desc = true; }
VCASE(opdesc, operator_desc_desc_null, 0, INVALID, "Desc")
{
    slice0(v);
    v->op.Desc = NULL;
}
VCASE(opdesc, operator_type_invalid, 0, INVALID, "Type")
{
    slice0(v);
    v->op.Type = DML_OPERATOR_INVALID;
}
VCASE(opdesc, operator_type_invalid_desc_null, 0, INVALID, "Type") { v->op.Type = DML_OPERATOR_INVALID; }
VCASE(opdesc, operator_type_60_unsupported, 0, UNSUP, "Type")
{
    slice0(v);
    v->op.Type = (DML_OPERATOR_TYPE)60; /* DML_OPERATOR_SLICE, not implemented */
}
VCASE(opdesc, operator_type_60_desc_null_unsupported, 0, UNSUP, "Type = 60")
{
    slice0(v);
    v->op.Type = (DML_OPERATOR_TYPE)60; /* the type is checked before the Desc */
    v->op.Desc = NULL;
}
VCASE(opdesc, operator_type_112_unsupported, 0, UNSUP, "Type")
{
    rev0(v);
    v->op.Type = (DML_OPERATOR_TYPE)112;
}
VCASE(opdesc, feature_level_not_a_level, (DML_FEATURE_LEVEL)0x1234, INVALID, "0x1234") { slice0(v); }
VCASE(opdesc, feature_level_0_is_highest, 0, OK, NULL)
{
    rev_rank(v, F64, U64, 8); /* only valid from 5_0 */
}

/* ---- Section 4: REVERSE_SUBSEQUENCES ---- */
VCASE(reverse, rev_lengths_rank_mismatch, 0, INVALID, "SequenceLengthsTensor.DimensionCount")
{
    static const uint32_t ls[] = {2, 3, 1};
    rev0(v);
    set_shape(&v->t[1], 3, ls, NULL);
}
VCASE(reverse, rev_output_rank_mismatch, 0, INVALID, "OutputTensor.DimensionCount")
{
    static const uint32_t s[] = {1, 2, 3, 4, 5};
    rev0(v);
    set_shape(&v->t[2], 5, s, NULL);
}
VCASE(reverse, rev_axis_equals_rank, 0, INVALID, "Axis")
{
    rev0(v);
    v->rev.Axis = 4;
}
VCASE(reverse, rev_axis_huge, 0, INVALID, "Axis")
{
    rev0(v);
    v->rev.Axis = UINT32_MAX;
}
VCASE(reverse, rev_output_sizes_mismatch, 0, INVALID, "OutputTensor.Sizes[1]")
{
    static const uint32_t s[] = {2, 4, 4, 5};
    rev0(v);
    set_shape(&v->t[2], 4, s, NULL);
}
VCASE(reverse, rev_output_type_mismatch, 0, INVALID, "OutputTensor.DataType")
{
    rev0(v);
    set_type(&v->t[2], I32);
}
VCASE(reverse, rev_lengths_axis_size_not_1, 0, INVALID, "SequenceLengthsTensor.Sizes[2]")
{
    rev0(v);
    set_shape(&v->t[1], 4, S2345, NULL);
}
VCASE(reverse, rev_lengths_size_mismatch_elsewhere, 0, INVALID, "SequenceLengthsTensor.Sizes[0]")
{
    static const uint32_t ls[] = {1, 3, 1, 5};
    rev0(v);
    set_shape(&v->t[1], 4, ls, NULL);
}
VCASE(reverse, rev_lengths_float32, 0, INVALID, "SequenceLengthsTensor.DataType")
{
    rev0(v);
    set_type(&v->t[1], F32);
}
VCASE(reverse, rev_lengths_float32_low_level, LV(2_1), INVALID, "SequenceLengthsTensor.DataType")
{
    rev0(v);
    set_type(&v->t[1], F32);
}
VCASE(reverse, rev_lengths_int16, 0, INVALID, "SequenceLengthsTensor.DataType")
{
    rev0(v);
    set_type(&v->t[1], I16);
}

/* ---- Section 5: SLICE1 ---- */
VCASE(slice, slice_dimension_count_field_mismatch, 0, INVALID, "DimensionCount = 3")
{
    slice0(v);
    v->slice.DimensionCount = 3;
}
VCASE(slice, slice_dimension_count_field_9, 0, INVALID, "DimensionCount")
{
    slice0(v);
    v->slice.DimensionCount = 9;
}
VCASE(slice, slice_output_rank_mismatch, 0, INVALID, "OutputTensor.DimensionCount")
{
    static const uint32_t out[] = {1, 2, 2};
    slice0(v);
    set_shape(&v->t[1], 3, out, NULL);
}
VCASE(slice, slice_type_mismatch, 0, INVALID, "OutputTensor.DataType")
{
    slice0(v);
    set_type(&v->t[1], U32);
}
VCASE(slice, slice_offsets_null, 0, INVALID, "InputWindowOffsets")
{
    slice0(v);
    v->slice.InputWindowOffsets = NULL;
}
VCASE(slice, slice_sizes_null, 0, INVALID, "InputWindowSizes")
{
    slice0(v);
    v->slice.InputWindowSizes = NULL;
}
VCASE(slice, slice_strides_null, 0, INVALID, "InputWindowStrides")
{
    slice0(v);
    v->slice.InputWindowStrides = NULL;
}
VCASE(slice, slice_window_size_0, 0, INVALID, "InputWindowSizes[1]")
{
    slice0(v);
    v->wsizes[1] = 0;
}
VCASE(slice, slice_window_stride_0, 0, INVALID, "InputWindowStrides[2]")
{
    slice0(v);
    v->wstrides[2] = 0;
}
/* The example message of operators.md section 7, word for word. */
VCASE(slice, slice_window_past_end, 0, INVALID,
      "SLICE1: InputWindowOffsets[2] + InputWindowSizes[2] = 7 exceeds InputTensor.Sizes[2] = 4")
{
    slice0(v);
    v->offsets[2] = 3;
}
VCASE(slice, slice_window_offset_at_end, 0, INVALID, "InputWindowOffsets[3]")
{
    static const uint32_t out[] = {1, 1, 2, 1};
    slice0(v);
    set_shape(&v->t[1], 4, out, NULL);
    v->offsets[3] = 4;
    v->wsizes[3] = 1;
}
/* 0xFFFFFFFF + 2 wraps to 1 in 32 bits. */
VCASE(slice, slice_window_offset_wraps_32_bits, 0, INVALID, "InputWindowOffsets[3] + InputWindowSizes[3] = 4294967297")
{
    slice0(v);
    v->offsets[3] = 0xFFFFFFFFu;
    v->wsizes[3] = 2;
}
/* 1 + 0xFFFFFFFF wraps to 0 in 32 bits. */
VCASE(slice, slice_window_size_wraps_32_bits, 0, INVALID, "InputWindowOffsets[3]")
{
    slice0(v);
    v->offsets[3] = 1;
    v->wsizes[3] = 0xFFFFFFFFu;
}
/* Input of 2^32 - 1 elements along one dimension: offset 2^32 - 1 plus size 1 is 2^32,
 * which wraps to 0 in 32 bits. */
VCASE(slice, slice_window_end_2_pow_32, 0, INVALID, "InputWindowOffsets[0]")
{
    static const uint32_t in[] = {0xFFFFFFFFu}, off[] = {0xFFFFFFFFu}, win[] = {1}, out[] = {1};
    static const int32_t str[] = {1};
    slice_make(v, U8, 1, in, off, win, str, out);
}
VCASE(slice, slice_output_above_max_copied, 0, INVALID, "OutputTensor.Sizes[2]")
{
    static const uint32_t out[] = {1, 1, 3, 2}; /* window 4, stride 2: at most 2 */
    slice0(v);
    set_shape(&v->t[1], 4, out, NULL);
}
VCASE(slice, slice_output_above_max_copied_negative_stride, 0, INVALID, "OutputTensor.Sizes[3]")
{
    static const uint32_t out[] = {1, 1, 2, 2}; /* window 3, stride -3: at most 1 */
    slice0(v);
    v->wstrides[3] = -3;
    set_shape(&v->t[1], 4, out, NULL);
}
VCASE(slice, slice_output_above_max_copied_int32_min_stride, 0, INVALID, "OutputTensor.Sizes[2]")
{
    slice0(v);
    v->wstrides[2] = INT32_MIN; /* |INT32_MIN| = 2^31: at most 1 */
}
VCASE(slice, slice_output_above_max_copied_int32_max_stride, 0, INVALID, "OutputTensor.Sizes[2]")
{
    slice0(v);
    v->wstrides[2] = INT32_MAX;
}

/* ---- Section 6: ONE_HOT ---- */
VCASE(one_hot, hot_indices_rank_mismatch, 0, INVALID, "IndicesTensor.DimensionCount")
{
    static const uint32_t is[] = {1, 3, 1};
    hot0(v);
    set_shape(&v->t[0], 3, is, NULL);
}
VCASE(one_hot, hot_values_rank_mismatch, 0, INVALID, "ValuesTensor.DimensionCount")
{
    static const uint32_t vs[] = {2};
    hot0(v);
    set_shape(&v->t[1], 1, vs, NULL);
}
VCASE(one_hot, hot_axis_equals_rank, 0, INVALID, "Axis")
{
    hot0(v);
    v->hot.Axis = 4;
}
VCASE(one_hot, hot_values_type_mismatch, 0, INVALID, "ValuesTensor.DataType")
{
    hot0(v);
    set_type(&v->t[1], F16);
}
VCASE(one_hot, hot_indices_axis_size_not_1, 0, INVALID, "IndicesTensor.Sizes[3]")
{
    hot0(v);
    set_shape(&v->t[0], 4, S1134, NULL);
}
VCASE(one_hot, hot_indices_size_mismatch_elsewhere, 0, INVALID, "IndicesTensor.Sizes[2]")
{
    static const uint32_t is[] = {1, 1, 2, 1};
    hot0(v);
    set_shape(&v->t[0], 4, is, NULL);
}
VCASE(one_hot, hot_values_one_element, 0, INVALID, "ValuesTensor")
{
    static const uint32_t vs[] = {1, 1, 1, 1};
    hot0(v);
    set_shape(&v->t[1], 4, vs, NULL);
}
VCASE(one_hot, hot_indices_float32, 0, INVALID, "IndicesTensor.DataType")
{
    hot0(v);
    set_type(&v->t[0], F32);
}
VCASE(one_hot, hot_indices_float32_low_level, LV(2_0), INVALID, "IndicesTensor.DataType")
{
    hot0(v);
    set_type(&v->t[0], F32);
}
VCASE(one_hot, hot_indices_int8, 0, INVALID, "IndicesTensor.DataType")
{
    hot0(v);
    set_type(&v->t[0], I8);
}

/* ---- Section 3: feature levels (the full table is swept further down) ---- */
VCASE(level, rev_rank_3_at_3_0, LV(3_0), UNSUP, "DimensionCount") { rev_rank(v, F32, U32, 3); }
VCASE(level, rev_rank_3_at_4_0, LV(4_0), OK, NULL) { rev_rank(v, F32, U32, 3); }
VCASE(level, rev_rank_5_at_2_1, LV(2_1), UNSUP, "DimensionCount") { rev_rank(v, F32, U32, 5); }
VCASE(level, rev_rank_5_at_3_0, LV(3_0), OK, NULL) { rev_rank(v, F32, U32, 5); }
VCASE(level, rev_rank_6_at_3_1, LV(3_1), UNSUP, "DimensionCount") { rev_rank(v, F32, U32, 6); }
VCASE(level, rev_float64_at_4_0, LV(4_0), UNSUP, "InputTensor.DataType") { rev_rank(v, F64, U32, 4); }
VCASE(level, rev_float64_at_5_0, LV(5_0), OK, NULL) { rev_rank(v, F64, U32, 4); }
VCASE(level, rev_uint64_lengths_at_4_0, LV(4_0), UNSUP, "SequenceLengthsTensor.DataType") { rev_rank(v, F32, U64, 4); }
VCASE(level, rev_uint64_lengths_at_5_0, LV(5_0), OK, NULL) { rev_rank(v, F32, U64, 4); }
VCASE(level, rev_int32_lengths_at_4_1, LV(4_1), UNSUP, "SequenceLengthsTensor.DataType") { rev_rank(v, F32, I32, 4); }
VCASE(level, rev_int32_lengths_at_5_0, LV(5_0), OK, NULL) { rev_rank(v, F32, I32, 4); }
VCASE(level, rev_int64_lengths_at_5_0, LV(5_0), OK, NULL) { rev_rank(v, I8, I64, 4); }
VCASE(level, rev_absent_at_2_0, LV(2_0), UNSUP, "2_0") { rev_rank(v, F32, U32, 4); }
VCASE(level, rev_present_at_2_1, LV(2_1), OK, NULL) { rev_rank(v, F32, U32, 4); }
VCASE(level, slice_absent_at_2_0, LV(2_0), UNSUP, "2_0") { slice0(v); }
VCASE(level, slice_absent_at_1_0, LV(1_0), UNSUP, "1_0") { slice0(v); }
VCASE(level, slice_present_at_2_1, LV(2_1), OK, NULL) { slice0(v); }
VCASE(level, slice_rank_3_at_2_1, LV(2_1), UNSUP, "DimensionCount") { slice_rank(v, F32, 3); }
VCASE(level, slice_rank_6_at_2_1, LV(2_1), UNSUP, "DimensionCount") { slice_rank(v, F32, 6); }
VCASE(level, slice_rank_5_at_2_1, LV(2_1), OK, NULL) { slice_rank(v, F32, 5); }
VCASE(level, slice_rank_3_at_3_0, LV(3_0), OK, NULL) { slice_rank(v, F32, 3); }
VCASE(level, slice_float64_at_4_0, LV(4_0), UNSUP, "InputTensor.DataType") { slice_rank(v, F64, 4); }
VCASE(level, slice_float64_at_4_1, LV(4_1), OK, NULL) { slice_rank(v, F64, 4); }
VCASE(level, slice_int64_at_4_0, LV(4_0), UNSUP, "DataType") { slice_rank(v, I64, 2); }
VCASE(level, slice_int64_at_4_1, LV(4_1), OK, NULL) { slice_rank(v, I64, 2); }
VCASE(level, hot_absent_at_1_0, LV(1_0), UNSUP, "1_0") { hot0(v); }
VCASE(level, hot_present_at_2_0, LV(2_0), OK, NULL) { hot0(v); }
VCASE(level, hot_float16_at_2_0, LV(2_0), OK, NULL) { hot_rank(v, U32, F16, 4); }
VCASE(level, hot_int32_values_at_2_0, LV(2_0), UNSUP, "DataType") { hot_rank(v, U32, I32, 4); }
VCASE(level, hot_uint8_values_at_2_0, LV(2_0), UNSUP, "DataType") { hot_rank(v, U32, U8, 4); }
VCASE(level, hot_int32_values_at_2_1, LV(2_1), OK, NULL) { hot_rank(v, U32, I32, 4); }
VCASE(level, hot_int32_indices_at_2_1, LV(2_1), UNSUP, "IndicesTensor.DataType") { hot_rank(v, I32, F32, 4); }
VCASE(level, hot_int32_indices_at_3_0, LV(3_0), OK, NULL) { hot_rank(v, I32, F32, 4); }
VCASE(level, hot_int64_indices_at_3_0, LV(3_0), OK, NULL) { hot_rank(v, I64, F32, 4); }
VCASE(level, hot_uint64_indices_at_2_1, LV(2_1), UNSUP, "IndicesTensor.DataType") { hot_rank(v, U64, F32, 4); }
VCASE(level, hot_rank_3_at_2_1, LV(2_1), UNSUP, "DimensionCount") { hot_rank(v, U32, F32, 3); }
VCASE(level, hot_rank_3_at_3_0, LV(3_0), OK, NULL) { hot_rank(v, U32, F32, 3); }
VCASE(level, hot_float64_at_3_1, LV(3_1), UNSUP, "DataType") { hot_rank(v, U32, F64, 4); }
VCASE(level, hot_float64_at_4_1, LV(4_1), OK, NULL) { hot_rank(v, U32, F64, 4); }
/* A rule broken at every level wins over a level limit. */
VCASE(level, invalid_wins_over_level, LV(3_0), INVALID, "OutputTensor.DataType")
{
    rev_rank(v, F32, U32, 3); /* rank 3: unsupported at 3_0 */
    set_type(&v->t[2], I32);
}

/* ---- Boundaries that must pass ---- */
VCASE(pass, rev_rank_1, 0, OK, NULL) { rev_rank(v, F32, U32, 1); }
VCASE(pass, rev_rank_8, 0, OK, NULL) { rev_rank(v, U16, U32, 8); }
VCASE(pass, rev_rank_8_at_4_0, LV(4_0), OK, NULL) { rev_rank(v, F32, U32, 8); }
VCASE(pass, rev_axis_0, 0, OK, NULL)
{
    rev0(v);
    v->rev.Axis = 0;
    set_shape(&v->t[1], 4, (const uint32_t[]){1, 3, 4, 5}, NULL);
}
/* One length per batch, broadcast with 0 strides (operators.md section 4). */
VCASE(pass, rev_lengths_broadcast, 0, OK, NULL)
{
    static const uint32_t ls[] = {2, 3, 1, 5}, strides[] = {1, 0, 0, 0};
    rev0(v);
    set_shape(&v->t[1], 4, ls, strides);
}
VCASE(pass, rev_lengths_fully_broadcast, 0, OK, NULL)
{
    static const uint32_t ls[] = {2, 3, 1, 5}, strides[] = {0, 0, 0, 0};
    rev0(v);
    set_shape(&v->t[1], 4, ls, strides);
}
VCASE(pass, rev_input_broadcast, 0, OK, NULL)
{
    static const uint32_t strides[] = {0, 5, 0, 1};
    rev0(v);
    set_strides(&v->t[0], strides);
}
VCASE(pass, slice_rank_1, 0, OK, NULL) { slice_rank(v, I8, 1); }
VCASE(pass, slice_rank_8, 0, OK, NULL) { slice_rank(v, F32, 8); }
VCASE(pass, slice_rank_8_at_3_0, LV(3_0), OK, NULL) { slice_rank(v, U32, 8); }
VCASE(pass, slice_seed_example_1, 0, OK, NULL) { slice0(v); }
VCASE(pass, slice_seed_example_2_negative_stride, 0, OK, NULL)
{
    slice0(v);
    v->wstrides[2] = -2; /* window 4, |stride| 2: exactly 2 = MaxCopiedElements */
}
VCASE(pass, slice_whole_input, 0, OK, NULL)
{
    static const uint32_t off[] = {0, 0, 0, 0};
    static const int32_t str[] = {1, 1, 1, 1};
    slice_make(v, F32, 4, S1144, off, S1144, str, S1144);
}
VCASE(pass, slice_window_ends_at_input_end, 0, OK, NULL)
{
    static const uint32_t off[] = {0, 0, 1, 2}, win[] = {1, 1, 3, 2}, out[] = {1, 1, 3, 1};
    static const int32_t str[] = {1, 1, 1, -2};
    slice_make(v, F32, 4, S1144, off, win, str, out);
}
VCASE(pass, slice_max_copied_negative_strides, 0, OK, NULL)
{
    static const uint32_t in[] = {7, 10}, off[] = {0, 3}, win[] = {7, 7}, out[] = {3, 7};
    static const int32_t str[] = {-3, -1}; /* 1 + 6/3 = 3; 1 + 6/1 = 7 */
    slice_make(v, F32, 2, in, off, win, str, out);
}
VCASE(pass, slice_int32_min_stride_one_element, 0, OK, NULL)
{
    static const uint32_t out[] = {1, 1, 1, 2};
    slice0(v);
    v->wstrides[2] = INT32_MIN;
    set_shape(&v->t[1], 4, out, NULL);
}
/* Output sizes below MaxCopiedElements are fine: the output need not take every element. */
VCASE(pass, slice_output_below_max_copied, 0, OK, NULL)
{
    static const uint32_t out[] = {1, 1, 1, 1};
    slice0(v);
    set_shape(&v->t[1], 4, out, NULL);
}
VCASE(pass, slice_window_end_2_pow_32_minus_1, 0, OK, NULL)
{
    static const uint32_t in[] = {0xFFFFFFFFu}, off[] = {0xFFFFFFFEu}, win[] = {1}, out[] = {1};
    static const int32_t str[] = {1};
    slice_make(v, U8, 1, in, off, win, str, out);
}
VCASE(pass, element_count_2_pow_32_minus_1, 0, OK, NULL)
{
    static const uint32_t in[] = {65535, 65537}, off[] = {0, 0}, win[] = {1, 1}, out[] = {1, 1};
    static const int32_t str[] = {1, 1};
    slice_make(v, U8, 2, in, off, win, str, out);
}
VCASE(pass, hot_rank_1, 0, OK, NULL)
{
    static const uint32_t out[] = {5};
    hot_make(v, U32, F32, 1, out, 0);
}
VCASE(pass, hot_rank_8, 0, OK, NULL) { hot_rank(v, I64, U8, 8); }
VCASE(pass, hot_rank_8_at_3_0, LV(3_0), OK, NULL) { hot_rank(v, I32, I16, 8); }
VCASE(pass, hot_values_column, 0, OK, NULL)
{
    static const uint32_t vs[] = {1, 1, 3, 1}; /* the third example of seed 004 */
    hot0(v);
    set_shape(&v->t[1], 4, vs, NULL);
}
VCASE(pass, hot_indices_broadcast, 0, OK, NULL)
{
    static const uint32_t strides[] = {0, 0, 0, 0};
    hot0(v);
    set_strides(&v->t[0], strides);
}
VCASE(pass, total_size_exact_minimum_strided, 0, OK, NULL)
{
    static const uint32_t strides[] = {64, 64, 8, 1};
    slice0(v);
    set_strides(&v->t[0], strides);
    v->t[0].buf.TotalTensorSizeInBytes = 112;
}
VCASE(pass, total_size_exact_minimum_uint8, 0, OK, NULL)
{
    static const uint32_t in[] = {3}, off[] = {0}, win[] = {3}, out[] = {3};
    static const int32_t str[] = {1};
    slice_make(v, U8, 1, in, off, win, str, out);
    v->t[0].buf.TotalTensorSizeInBytes = 4; /* 3 bytes rounded up to 4 */
    v->t[1].buf.TotalTensorSizeInBytes = 4;
}
VCASE(pass, total_size_above_minimum, 0, OK, NULL)
{
    slice0(v);
    v->t[0].buf.TotalTensorSizeInBytes = 1u << 20;
    v->t[1].buf.TotalTensorSizeInBytes = 20;
}
VCASE(pass, base_alignment_powers_of_2, 0, OK, NULL)
{
    slice0(v);
    v->t[0].buf.GuaranteedBaseOffsetAlignment = 4;
    v->t[1].buf.GuaranteedBaseOffsetAlignment = 256;
}
VCASE(pass, base_alignment_1_uint8, 0, OK, NULL)
{
    slice0(v);
    set_type(&v->t[0], U8);
    set_type(&v->t[1], U8);
    v->t[0].buf.GuaranteedBaseOffsetAlignment = 1;
    v->t[1].buf.GuaranteedBaseOffsetAlignment = 2;
}
VCASE(pass, base_alignment_8_float64, 0, OK, NULL)
{
    slice0(v);
    set_type(&v->t[0], F64);
    set_type(&v->t[1], F64);
    v->t[0].buf.GuaranteedBaseOffsetAlignment = 8;
    v->t[1].buf.GuaranteedBaseOffsetAlignment = 0x80000000u;
}
VCASE(pass, input_zero_strides, 0, OK, NULL)
{
    static const uint32_t strides[] = {0, 0, 0, 1};
    slice0(v);
    set_strides(&v->t[0], strides);
}
VCASE(pass, input_strides_alias, 0, OK, NULL)
{
    static const uint32_t strides[] = {1, 1, 1, 1};
    slice0(v);
    set_strides(&v->t[0], strides);
}
VCASE(pass, output_zero_stride_on_size_1, 0, OK, NULL)
{
    static const uint32_t strides[] = {0, 0, 2, 1};
    slice0(v);
    set_strides(&v->t[1], strides);
}
VCASE(pass, output_padded_permuted_strides, 0, OK, NULL)
{
    static const uint32_t strides[] = {100, 50, 1, 8};
    slice0(v);
    set_strides(&v->t[1], strides);
}
/* Not nested, yet one-to-one: 2*i + 3*j with i < 3 never repeats. */
VCASE(pass, output_interleaved_one_to_one, 0, OK, NULL)
{
    static const uint32_t in[] = {3, 2}, off[] = {0, 0}, strides[] = {2, 3};
    static const int32_t str[] = {1, 1};
    slice_make(v, F32, 2, in, off, in, str, in);
    set_strides(&v->t[1], strides);
}
/* The same layout with 3 * 2^21 elements: still one-to-one, so still valid. */
VCASE(pass, output_interleaved_one_to_one_large, 0, OK, NULL)
{
    static const uint32_t in[] = {3, 1u << 21}, off[] = {0, 0}, strides[] = {2, 3};
    static const int32_t str[] = {1, 1};
    slice_make(v, U8, 2, in, off, in, str, in);
    set_strides(&v->t[1], strides);
}
/* And with 3 * 2^24 elements, too many to enumerate: a valid layout all the same. */
VCASE(pass, output_interleaved_one_to_one_huge, 0, OK, NULL)
{
    static const uint32_t in[] = {3, 1u << 24}, off[] = {0, 0}, strides[] = {2, 3};
    static const int32_t str[] = {1, 1};
    slice_make(v, U8, 2, in, off, in, str, in);
    set_strides(&v->t[1], strides);
}

/* Blocks: 2a + 3b (reach 2101) below multiples of gcd(4600, 6900) = 2300, each block
 * one-to-one, so the whole is, with 31.5 million elements (found refused by review). */
VCASE(pass, output_blocks_of_interleaved_dims, 0, OK, NULL)
{
    static const uint32_t in[] = {3, 700, 3, 4999}, off[] = {0, 0, 0, 0}, strides[] = {2, 3, 4600, 6900};
    static const int32_t str[] = {1, 1, 1, 1};
    slice_make(v, U8, 4, in, off, in, str, in);
    set_strides(&v->t[1], strides);
}
/* Interleaved through a modulus: 64x + 65y + 65536z with y < 64 is y modulo 64, and then
 * x + 1024z is unique; 2^26 elements spread over 2^26 addresses, beyond the enumeration
 * limits, proven by the split by residues (found refused by review). */
VCASE(pass, output_interleaved_through_a_modulus, 0, OK, NULL)
{
    static const uint32_t in[] = {1024, 64, 1024}, off[] = {0, 0, 0}, strides[] = {64, 65, 65536};
    static const int32_t str[] = {1, 1, 1};
    slice_make(v, U8, 3, in, off, in, str, in);
    set_strides(&v->t[1], strides);
}
/* The same with y < 65: 65 * 64 = 64 * 65, so (65, 0, 0) and (0, 64, 0) meet. */
VCASE(tensor, output_interleaved_through_a_modulus_colliding, 0, INVALID, "OutputTensor.Strides = {64, 65, 65536}")
{
    static const uint32_t in[] = {1024, 65, 1024}, off[] = {0, 0, 0}, strides[] = {64, 65, 65536};
    static const int32_t str[] = {1, 1, 1};
    slice_make(v, U8, 3, in, off, in, str, in);
    set_strides(&v->t[1], strides);
}
/* The same with 4 in the third dimension: 2300 * (3 - 0) = 2300 * (0 + ...) meet, since
 * 3 * 4600 = 2 * 6900. */
VCASE(tensor, output_blocks_that_collide, 0, INVALID, "OutputTensor.Strides")
{
    static const uint32_t in[] = {3, 700, 4, 4999}, off[] = {0, 0, 0, 0}, strides[] = {2, 3, 4600, 6900};
    static const int32_t str[] = {1, 1, 1, 1};
    slice_make(v, U8, 4, in, off, in, str, in);
    set_strides(&v->t[1], strides);
}

/* ---- Every tensor rule on every tensor of every operator ---- */
typedef enum tfault {
    TF_TYPE_INVALID, TF_TENSOR_NULL, TF_DESC_NULL, TF_DTYPE_UNKNOWN, TF_DTYPE_UINT4, TF_FLAGS_OWNED,
    TF_FLAGS_UNKNOWN, TF_DIM_0, TF_DIM_9, TF_SIZES_NULL, TF_SIZE_0, TF_COUNT_2_POW_32, TF_TOTAL_BELOW,
    TF_TOTAL_NOT_4, TF_GBOA_NOT_POW2, TF_GBOA_SMALL, TF_MIN_OVERFLOW, TF_ZERO_STRIDE, TF_ALIAS_STRIDES,
    TF_COUNT
} tfault;

/* The message must name the role and the field: "InputTensor.Flags" when joined, else
 * the role and, somewhere after it, the field. */
static const struct {
    const char *name, *field;
    bool joined;
} tfault_info[TF_COUNT] = {
    [TF_TYPE_INVALID] = {"Type INVALID", ".Type", true},
    [TF_TENSOR_NULL] = {"tensor desc NULL", "", true},
    [TF_DESC_NULL] = {"Desc NULL", ".Desc", true},
    [TF_DTYPE_UNKNOWN] = {"DataType UNKNOWN", ".DataType", true},
    [TF_DTYPE_UINT4] = {"DataType UINT4", ".DataType", true},
    [TF_FLAGS_OWNED] = {"Flags OWNED_BY_DML", ".Flags", true},
    [TF_FLAGS_UNKNOWN] = {"Flags 0x4", ".Flags", true},
    [TF_DIM_0] = {"DimensionCount 0", ".DimensionCount", true},
    [TF_DIM_9] = {"DimensionCount 9", ".DimensionCount", true},
    [TF_SIZES_NULL] = {"Sizes NULL", ".Sizes", true},
    [TF_SIZE_0] = {"Sizes[3] 0", ".Sizes[3]", true},
    [TF_COUNT_2_POW_32] = {"2^32 elements", "Sizes", false},
    [TF_TOTAL_BELOW] = {"TotalTensorSizeInBytes below minimum", ".TotalTensorSizeInBytes", true},
    [TF_TOTAL_NOT_4] = {"TotalTensorSizeInBytes not a multiple of 4", ".TotalTensorSizeInBytes", true},
    [TF_GBOA_NOT_POW2] = {"GuaranteedBaseOffsetAlignment 12", ".GuaranteedBaseOffsetAlignment", true},
    [TF_GBOA_SMALL] = {"GuaranteedBaseOffsetAlignment below element size", ".GuaranteedBaseOffsetAlignment", true},
    [TF_MIN_OVERFLOW] = {"minimum size overflows 64 bits", "Strides", false},
    [TF_ZERO_STRIDE] = {"0 stride on a dimension of size > 1", ".Strides[", true},
    [TF_ALIAS_STRIDES] = {"strides that alias", ".Strides", true},
};

typedef struct role {
    const char *op, *name;
    int slot;
    bool output;
} role;

static const role roles[] = {
    {"REVERSE_SUBSEQUENCES", "InputTensor", 0, false},   {"REVERSE_SUBSEQUENCES", "SequenceLengthsTensor", 1, false},
    {"REVERSE_SUBSEQUENCES", "OutputTensor", 2, true},   {"SLICE1", "InputTensor", 0, false},
    {"SLICE1", "OutputTensor", 1, true},                 {"ONE_HOT", "IndicesTensor", 0, false},
    {"ONE_HOT", "ValuesTensor", 1, false},               {"ONE_HOT", "OutputTensor", 2, true},
};

static const DML_TENSOR_DESC **role_slot(vdesc *v, const role *r)
{
    const DML_TENSOR_DESC **rev[] = {&v->rev.InputTensor, &v->rev.SequenceLengthsTensor, &v->rev.OutputTensor};
    const DML_TENSOR_DESC **slice[] = {&v->slice.InputTensor, &v->slice.OutputTensor};
    const DML_TENSOR_DESC **hot[] = {&v->hot.IndicesTensor, &v->hot.ValuesTensor, &v->hot.OutputTensor};
    if (!strcmp(r->op, "SLICE1")) return slice[r->slot];
    return !strcmp(r->op, "ONE_HOT") ? hot[r->slot] : rev[r->slot];
}

/* Applies a fault to one tensor; returns the status the spec demands. */
static dmlops_status apply_fault(vdesc *v, const role *r, tfault f)
{
    dmt_tensor *t = &v->t[r->slot];
    DML_BUFFER_TENSOR_DESC *b = &t->buf;
    uint32_t rank = b->DimensionCount, strides[8], packed = 1, big = rank;
    switch (f) {
    case TF_TYPE_INVALID: t->desc.Type = DML_TENSOR_TYPE_INVALID; break;
    case TF_TENSOR_NULL: *role_slot(v, r) = NULL; break;
    case TF_DESC_NULL: t->desc.Desc = NULL; break;
    case TF_DTYPE_UNKNOWN: b->DataType = DML_TENSOR_DATA_TYPE_UNKNOWN; break;
    case TF_DTYPE_UINT4: b->DataType = DML_TENSOR_DATA_TYPE_UINT4; break;
    case TF_FLAGS_OWNED: b->Flags = DML_TENSOR_FLAG_OWNED_BY_DML; return UNSUP;
    case TF_FLAGS_UNKNOWN: b->Flags = (DML_TENSOR_FLAGS)0x4; break;
    case TF_DIM_0: b->DimensionCount = 0; break;
    case TF_DIM_9: b->DimensionCount = 9; break;
    case TF_SIZES_NULL: b->Sizes = NULL; break;
    case TF_SIZE_0: t->sizes[3] = 0; break;
    case TF_COUNT_2_POW_32:
        t->sizes[0] = 65536;
        t->sizes[1] = 65536;
        break;
    case TF_TOTAL_BELOW: b->TotalTensorSizeInBytes -= 4; break;
    case TF_TOTAL_NOT_4: b->TotalTensorSizeInBytes += 2; break;
    case TF_GBOA_NOT_POW2: b->GuaranteedBaseOffsetAlignment = 12; break;
    case TF_GBOA_SMALL: b->GuaranteedBaseOffsetAlignment = dmlops_data_type_size(b->DataType) / 2; break;
    case TF_MIN_OVERFLOW:
        fill(t->sizes, rank, 1);
        fill(strides, rank, 0xFFFFFFFFu);
        t->sizes[0] = 0xFFFFFFFFu; /* 4-byte elements */
        set_strides(t, strides);
        b->TotalTensorSizeInBytes = UINT64_MAX - 3;
        break;
    case TF_ZERO_STRIDE:
    case TF_ALIAS_STRIDES:
        /* Packed strides, then a 0 stride on the last dimension of size > 1, or all 1. */
        for (uint32_t i = rank; i-- > 0;) {
            strides[i] = packed;
            packed *= t->sizes[i];
            if (big == rank && t->sizes[i] > 1) big = i;
        }
        if (f == TF_ZERO_STRIDE) strides[big] = 0;
        else fill(strides, rank, 1);
        set_strides(t, strides);
        return r->output ? INVALID : OK; /* inputs may broadcast and alias */
    case TF_COUNT: break;
    }
    return INVALID;
}

TEST(tensor_rules_apply_to_every_tensor)
{
    for (size_t ri = 0; ri < sizeof roles / sizeof roles[0]; ri++) {
        const role *r = &roles[ri];
        for (int f = 0; f < TF_COUNT; f++) {
            vdesc v;
            memset(&v, 0, sizeof v);
            if (!strcmp(r->op, "SLICE1")) slice0(&v);
            else if (!strcmp(r->op, "ONE_HOT")) hot0(&v);
            else rev0(&v);
            dmlops_status want = apply_fault(&v, r, (tfault)f);
            dmlops_status got = dmlops_validate_operator(&v.op, 0);
            const char *msg = dmlops_last_error_message();
            char field[96];
            if (!CHECK(got == want, "%s %s: %s: got %s, expected %s (message: %s)", r->op, r->name,
                       tfault_info[f].name, dmlops_status_string(got), dmlops_status_string(want), got ? msg : ""))
                continue;
            if (want == OK) continue;
            snprintf(field, sizeof field, "%s%s", r->name, tfault_info[f].joined ? tfault_info[f].field : "");
            const char *at = strstr(msg, field);
            CHECK(at && strstr(at, tfault_info[f].field), "%s %s: %s: message \"%s\" lacks \"%s\"%s%s", r->op,
                  r->name, tfault_info[f].name, msg, field, tfault_info[f].joined ? "" : " ... ",
                  tfault_info[f].joined ? "" : tfault_info[f].field);
            CHECK(strstr(msg, r->op), "%s %s: %s: message \"%s\" does not name the operator", r->op, r->name,
                  tfault_info[f].name, msg);
        }
    }
}

/* ---- The whole table of operators.md section 3 ----
 * Transcribed from the spec, oldest row first; each row holds up to the next one. */
#define B(x) (1u << DML_TENSOR_DATA_TYPE_##x)
#define SMALL8 (B(FLOAT32) | B(FLOAT16) | B(INT32) | B(INT16) | B(INT8) | B(UINT32) | B(UINT16) | B(UINT8))
#define WIDE3 (B(FLOAT64) | B(INT64) | B(UINT64))
#define IDX4 (B(INT64) | B(INT32) | B(UINT64) | B(UINT32))

typedef struct spec_row {
    DML_OPERATOR_TYPE op;
    DML_FEATURE_LEVEL from;
    uint32_t min_rank, max_rank, data, index;
} spec_row;

static const spec_row spec_rows[] = {
    {DML_OPERATOR_REVERSE_SUBSEQUENCES, LV(2_1), 4, 4, SMALL8, B(UINT32)},
    {DML_OPERATOR_REVERSE_SUBSEQUENCES, LV(3_0), 4, 5, SMALL8, B(UINT32)},
    {DML_OPERATOR_REVERSE_SUBSEQUENCES, LV(4_0), 1, 8, SMALL8, B(UINT32)},
    /* U32 U64, plus INT32 and INT64 lengths at 5_0 and above (the paragraph under the table). */
    {DML_OPERATOR_REVERSE_SUBSEQUENCES, LV(5_0), 1, 8, SMALL8 | WIDE3, IDX4},
    {DML_OPERATOR_SLICE1, LV(2_1), 4, 5, SMALL8, 0},
    {DML_OPERATOR_SLICE1, LV(3_0), 1, 8, SMALL8, 0},
    {DML_OPERATOR_SLICE1, LV(4_1), 1, 8, SMALL8 | WIDE3, 0},
    {DML_OPERATOR_ONE_HOT, LV(2_0), 4, 4, B(FLOAT32) | B(FLOAT16), B(UINT32)},
    {DML_OPERATOR_ONE_HOT, LV(2_1), 4, 4, SMALL8, B(UINT32)},
    {DML_OPERATOR_ONE_HOT, LV(3_0), 1, 8, SMALL8, IDX4},
    {DML_OPERATOR_ONE_HOT, LV(4_1), 1, 8, SMALL8 | WIDE3, IDX4},
};

static dmlops_status spec_verdict(DML_OPERATOR_TYPE op, DML_FEATURE_LEVEL level, uint32_t rank,
                                  DML_TENSOR_DATA_TYPE data, DML_TENSOR_DATA_TYPE index)
{
    const spec_row *row = NULL;
    uint32_t any_index = 0;
    if (level == 0) level = DMLOPS_FEATURE_LEVEL_HIGHEST;
    for (size_t i = 0; i < sizeof spec_rows / sizeof spec_rows[0]; i++) {
        if (spec_rows[i].op != op) continue;
        any_index |= spec_rows[i].index;
        if (spec_rows[i].from <= level) row = &spec_rows[i];
    }
    if (op != DML_OPERATOR_SLICE1 && !(any_index & (1u << index))) return INVALID; /* at every level */
    if (!row || rank < row->min_rank || rank > row->max_rank || !(row->data & (1u << data))) return UNSUP;
    if (op != DML_OPERATOR_SLICE1 && !(row->index & (1u << index))) return UNSUP;
    return OK;
}

static void sweep(DML_OPERATOR_TYPE op)
{
    int bad = 0;
    for (size_t li = 0; li < ALL_LEVEL_COUNT; li++) {
        DML_FEATURE_LEVEL level = all_levels[li];
        for (uint32_t rank = 1; rank <= 8; rank++)
            for (size_t di = 0; di < ALL_TYPE_COUNT; di++)
                for (size_t ii = 0; ii < ALL_TYPE_COUNT; ii++) {
                    DML_TENSOR_DATA_TYPE data = all_types[di], index = all_types[ii];
                    vdesc v;
                    /* Data types at every rank; index types at ranks 1, 4 and 8; SLICE1 has none. */
                    bool wanted = op == DML_OPERATOR_SLICE1 ? ii == 0
                                                            : index == U32 || rank == 1 || rank == 4 || rank == 8;
                    if (!wanted) continue;
                    memset(&v, 0, sizeof v);
                    if (op == DML_OPERATOR_SLICE1) slice_rank(&v, data, rank);
                    else if (op == DML_OPERATOR_ONE_HOT) hot_rank(&v, index, data, rank);
                    else rev_rank(&v, data, index, rank);
                    dmlops_status want = spec_verdict(op, level, rank, data, index);
                    dmlops_status got = dmlops_validate_operator(&v.op, level);
                    const char *msg = dmlops_last_error_message();
                    const char *lname = level ? dmlops_feature_level_name(level) : "";
                    bool ok = got == want && (want != UNSUP || strstr(msg, lname));
                    if (!ok && bad++ < 8)
                        CHECK(ok, "%s at level %s, rank %u, data %s, index %s: got %s, expected %s (message: %s)",
                              dmlops_operator_type_name(op), level ? lname : "0", rank,
                              dmlops_data_type_name(data),
                              op == DML_OPERATOR_SLICE1 ? "-" : dmlops_data_type_name(index),
                              dmlops_status_string(got), dmlops_status_string(want), got ? msg : "");
                }
    }
    CHECK(bad == 0, "%d combinations disagree with the table", bad);
}

TEST(feature_level_table_reverse_subsequences) { sweep(DML_OPERATOR_REVERSE_SUBSEQUENCES); }
TEST(feature_level_table_slice1) { sweep(DML_OPERATOR_SLICE1); }
TEST(feature_level_table_one_hot) { sweep(DML_OPERATOR_ONE_HOT); }

/* Levels that are not DML_FEATURE_LEVEL values are refused whatever the descriptor. */
TEST(feature_level_values)
{
    static const uint32_t bad[] = {0x1234, 0x0001, 0x2200, 0x6401, 0xFFFFFFFFu};
    vdesc v;
    memset(&v, 0, sizeof v);
    slice0(&v);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char hex[16];
        snprintf(hex, sizeof hex, "0x%x", bad[i]);
        CHECK_STATUS(dmlops_validate_operator(&v.op, (DML_FEATURE_LEVEL)bad[i]), INVALID, hex);
        CHECK_STATUS(dmlops_validate_operator(NULL, (DML_FEATURE_LEVEL)bad[i]), INVALID, NULL);
    }
    for (size_t i = 0; i < ALL_LEVEL_COUNT; i++)
        if (all_levels[i] >= LV(2_1)) CHECK_OK(dmlops_validate_operator(&v.op, all_levels[i]));
}

/* ---- DMLCalcBufferTensorSize ---- */
TEST(calc_buffer_tensor_size)
{
    static const uint32_t s1134[] = {1, 1, 3, 4}, s3[] = {3}, s5[] = {5}, s1[] = {1}, s23[] = {2, 3};
    static const uint32_t s2x8[] = {2, 2, 2, 2, 2, 2, 2, 2}, s14[] = {1, 4}, s0[] = {2, 0, 3};
    static const uint32_t s65536x4[] = {65536, 65536, 65536, 65536}, s65536x2[] = {65536, 65536};
    static const uint32_t smax[] = {0xFFFFFFFFu, 0xFFFFFFFFu};
    static const uint32_t st41[] = {4, 1}, st12[] = {1, 2}, st00[] = {0, 0}, st0[] = {0}, st_big14[] = {0xFFFFFFFFu, 1};
    static const uint32_t st_near_max[] = {0xFFFFFFFFu, 0xFFFFFFFEu, 0xFFFFFFFDu, 0xFFFFFFFFu};
    static const uint32_t st1x4[] = {1, 1, 1, 1}, st_max[] = {0xFFFFFFFFu, 0xFFFFFFFFu}, st120[] = {1, 2, 0};
    struct {
        const char *what;
        DML_TENSOR_DATA_TYPE type;
        uint32_t rank;
        const uint32_t *sizes, *strides;
        uint64_t want;
    } cases[] = {
        {"packed FLOAT32 {1,1,3,4}", F32, 4, s1134, NULL, 48},
        {"packed UINT8 {3} rounds to 4", U8, 1, s3, NULL, 4},
        {"packed UINT8 {5} rounds to 8", U8, 1, s5, NULL, 8},
        {"packed UINT16 {3} rounds to 8", U16, 1, s3, NULL, 8},
        {"packed FLOAT16 {1} rounds to 4", F16, 1, s1, NULL, 4},
        {"packed FLOAT64 {3}", F64, 1, s3, NULL, 24},
        {"packed INT64 rank 8", I64, 8, s2x8, NULL, 2048},
        {"packed UINT8 rank 8", U8, 8, s2x8, NULL, 256},
        {"packed strides given explicitly", F32, 2, s23, (const uint32_t[]){3, 1}, 24},
        {"padded strides {4,1}", F32, 2, s23, st41, 28},
        {"permuted strides {1,2}", F32, 2, s23, st12, 24},
        {"broadcast all-zero strides, FLOAT32", F32, 2, s23, st00, 4},
        {"broadcast all-zero strides, UINT8 rounds to 4", U8, 1, s5, st0, 4},
        {"broadcast all-zero strides, FLOAT64", F64, 2, s23, st00, 8},
        {"size-1 dimension with a huge stride", F32, 2, s14, st_big14, 16},
        {"strides that alias", I16, 4, s1134, st1x4, 12},
        {"more than 2^32 elements packed is still a size", F32, 2, s65536x2, NULL, 1ull << 34},
        /* No 32-bit wrap in the sum: 65535 * (2^32-1) + 65535 * (2^32-2) + ... */
        {"strides near UINT32_MAX", F32, 4, s65536x4, st_near_max,
         (65535ull * (0xFFFFFFFFull + 0xFFFFFFFEull + 0xFFFFFFFDull + 0xFFFFFFFFull) + 1) * 4},
        /* (2^32-2)(2^32-1) + 1 = 2^64 - 3*2^32 + 3 bytes, rounded up to 4: just fits. */
        {"largest single-dimension UINT8", U8, 1, smax, st_max, 0xFFFFFFFDull << 32 | 4},
        {"size 0, packed", F32, 3, s0, NULL, 0},
        {"size 0, strided", F32, 3, s0, st120, 0},
        {"rank 0", F32, 0, s3, NULL, 0},
        {"rank 9", U8, 9, (const uint32_t[]){1, 1, 1, 1, 1, 1, 1, 1, 1}, NULL, 0},
        {"sizes NULL", F32, 1, NULL, NULL, 0},
        {"type UNKNOWN", DML_TENSOR_DATA_TYPE_UNKNOWN, 1, s3, NULL, 0},
        {"type UINT4", DML_TENSOR_DATA_TYPE_UINT4, 1, s3, NULL, 0},
        {"type INT4", DML_TENSOR_DATA_TYPE_INT4, 1, s3, NULL, 0},
        {"type 99", (DML_TENSOR_DATA_TYPE)99, 1, s3, NULL, 0},
        {"packed 2^64 elements overflow", U8, 4, s65536x4, NULL, 0},
        {"packed 2^62 FLOAT32 elements overflow", F32, 4, (const uint32_t[]){65536, 65536, 65536, 16384}, NULL, 0},
        {"largest single-dimension FLOAT16 overflows", F16, 1, smax, st_max, 0},
        {"two dimensions of UINT32_MAX overflow", U8, 2, smax, st_max, 0},
        {"{65536 x4} strides UINT32_MAX x4, FLOAT64", F64, 4, s65536x4,
         (const uint32_t[]){0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu},
         (4 * 65535ull * 0xFFFFFFFFull + 1) * 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t got = dmlops_calc_buffer_tensor_size(cases[i].type, cases[i].rank, cases[i].sizes, cases[i].strides);
        CHECK(got == cases[i].want, "%s: got %llu, expected %llu", cases[i].what, (unsigned long long)got,
              (unsigned long long)cases[i].want);
    }
}

/* ---- With a context ---- */

/* A context of the same backend as ctx at another feature level (0: ctx itself). */
static dmlops_context *context_at(dmlops_context *ctx, DML_FEATURE_LEVEL level)
{
    dmlops_context_info info;
    dmlops_context *c = NULL;
    if (level == 0) return ctx;
    if (!CHECK_OK(dmlops_context_get_info(ctx, &info))) return NULL;
    dmlops_context_desc d = {.backend = info.backend,
                             .feature_level = level,
                             .flags = dmt_is_vulkan() ? DMLOPS_CONTEXT_FLAG_DEBUG : 0};
    if (!CHECK_OK(dmlops_context_create(&d, &c))) return NULL;
    if (CHECK_OK(dmlops_context_get_info(c, &info)))
        CHECK(info.feature_level == level, "context at 0x%x reports 0x%x", (unsigned)level,
              (unsigned)info.feature_level);
    return c;
}

static void context_release(dmlops_context *ctx, dmlops_context *c)
{
    dmlops_context_info info;
    if (!c || c == ctx) return;
    if (dmt_is_vulkan() && CHECK_OK(dmlops_context_get_info(c, &info)))
        CHECK(info.debug_message_count == 0, "validation layer reported %u messages", info.debug_message_count);
    dmlops_context_destroy(c);
}

/* False when the context's device lacks one of v's data types: a device may refuse those
 * as UNSUPPORTED (operators.md section 7). */
static bool types_supported(dmlops_context *c, const vdesc *v)
{
    dmlops_context_info info;
    if (dmlops_context_get_info(c, &info) != DMLOPS_SUCCESS) return true;
    for (int i = 0; i < 3; i++) {
        unsigned t = (unsigned)v->t[i].buf.DataType;
        if (t && t < 32 && !(info.supported_data_types & (1u << t))) return false;
    }
    return true;
}

/* Whether a valid case is one the CPU backend refuses on this host because a tensor's
 * TotalTensorSizeInBytes exceeds SIZE_MAX (32-bit hosts only, operators.md): then its
 * creation must be UNSUPPORTED naming that field, which this checks. */
static bool refused_as_beyond_the_host(const vdesc *v, dmlops_status st)
{
    if (dmt_is_vulkan() || st != UNSUP) return false;
    for (int i = 0; i < 3; i++)
        if (v->t[i].buf.TotalTensorSizeInBytes > (uint64_t)SIZE_MAX) {
            CHECK(strstr(dmlops_last_error_message(), "TotalTensorSizeInBytes") != NULL, "message: %s",
                  dmlops_last_error_message());
            return true;
        }
    return false;
}

/* Every case above, through dmlops_operator_create on a context at the case's level. */
TEST_CTX(operator_create_agrees_with_validation)
{
    struct {
        DML_FEATURE_LEVEL level;
        dmlops_context *ctx;
    } cache[ALL_LEVEL_COUNT];
    int ncache = 0;
    for (int i = 0; i < vcase_count; i++) {
        const vcase *c = &vcases[i];
        dmlops_context *cc = NULL;
        vdesc v;
        if (!level_is_known(c->level)) continue; /* no context can be made at it */
        for (int k = 0; k < ncache && !cc; k++)
            if (cache[k].level == c->level) cc = cache[k].ctx;
        if (!cc) {
            cc = context_at(ctx, c->level);
            if (!cc) break;
            cache[ncache].level = c->level;
            cache[ncache++].ctx = cc;
        }
        const DML_OPERATOR_DESC *d = vcase_build(c, &v);
        dmlops_operator *op = NULL;
        dmlops_status st = dmlops_operator_create(cc, d, &op);
        if (c->expect == DMLOPS_SUCCESS && st == UNSUP && !types_supported(cc, &v)) continue;
        if (c->expect == DMLOPS_SUCCESS && refused_as_beyond_the_host(&v, st)) continue;
        vcase_check(c, d, "dmlops_operator_create", st);
        if (st == DMLOPS_SUCCESS) dmlops_operator_destroy(op);
    }
    for (int k = 0; k < ncache; k++) context_release(ctx, cache[k].ctx);
}

/* dmlops_context_desc.feature_level limits dmlops_operator_create. */
TEST_CTX(operator_create_obeys_context_feature_level)
{
    vdesc v;
    dmlops_operator *op = NULL;
    memset(&v, 0, sizeof v);
    rev_rank(&v, F32, U32, 3);

    /* The harness context runs at the highest level: rank 3 is fine there. */
    REQUIRE_OK(dmlops_operator_create(ctx, &v.op, &op));
    dmlops_operator_destroy(op);

    dmlops_context *c30 = context_at(ctx, LV(3_0));
    REQUIRE(c30 != NULL);
    op = NULL;
    CHECK_STATUS(dmlops_operator_create(c30, &v.op, &op), UNSUP, "DimensionCount");
    memset(&v, 0, sizeof v);
    rev_rank(&v, F32, U32, 4);
    op = NULL;
    if (CHECK_OK(dmlops_operator_create(c30, &v.op, &op))) dmlops_operator_destroy(op);
    memset(&v, 0, sizeof v);
    slice_rank(&v, F64, 4);
    CHECK_STATUS(dmlops_operator_create(c30, &v.op, &op), UNSUP, "DataType");
    context_release(ctx, c30);

    dmlops_context *c20 = context_at(ctx, LV(2_0));
    REQUIRE(c20 != NULL);
    memset(&v, 0, sizeof v);
    slice0(&v);
    CHECK_STATUS(dmlops_operator_create(c20, &v.op, &op), UNSUP, "2_0");
    memset(&v, 0, sizeof v);
    hot0(&v);
    op = NULL;
    if (CHECK_OK(dmlops_operator_create(c20, &v.op, &op))) dmlops_operator_destroy(op);
    context_release(ctx, c20);
}

/* Large layouts past the enumeration limits (over 2^21 elements, a reach over 2^23):
 * a dimension of stride t and size y below S's multiples of m (strides m*a, m*b), sizes
 * drawn so that some are one-to-one modulo m and some not. Against a brute-force bitmap:
 * never accepted when two elements meet; accepted whenever the residues prove it (y
 * distinct residues of t modulo m, and S nested). Seeds printed on failure. */
TEST(large_interleaved_layouts_against_brute_force)
{
    dmt_rng r = {0x1a7e5};
    int proven = 0;
    /* Each brute force walks 2^25 elements: a handful under valgrind (test/run.sh sets
     * VALGRIND), where it runs fifty times slower. */
    const int cases = getenv("VALGRIND") ? 3 : 10;
    for (int n = 0; n < cases; n++) {
        const uint64_t seed = r.s;
        const uint32_t m = 32 + dmt_below(&r, 96);
        uint32_t u, g;
        do { /* a residue prime to m: t takes all m residues, so y <= m of them are apart */
            u = 1 + dmt_below(&r, m - 1);
            g = m;
            for (uint32_t b = u; b;) { const uint32_t x = g % b; g = b; b = x; }
        } while (g != 1);
        const uint32_t t = u + m * dmt_below(&r, 3), distinct = m;
        const uint32_t y = dmt_below(&r, 3) == 0 ? distinct + 1 : distinct - dmt_below(&r, 4);
        const uint32_t a = 1024 + dmt_below(&r, 512);                 /* S: x of stride m, size a */
        const bool nested = dmt_below(&r, 2);                         /* z of stride m*a (nested) or less */
        const uint32_t zs = nested ? a : a - 1 - dmt_below(&r, 64);
        const uint32_t c = (uint32_t)((1ull << 25) / ((uint64_t)a * y) + 2); /* over 2^25 elements and reach */
        const uint32_t sizes[3] = {a, y, c}, strides[3] = {m, t, m * zs};
        const uint64_t span = (uint64_t)(a - 1) * m + (uint64_t)(y - 1) * t + (uint64_t)(c - 1) * m * zs + 1;
        uint8_t *seen = calloc(span / 8 + 1, 1);
        REQUIRE(seen != NULL);
        bool unique = true;
        for (uint32_t i = 0; i < a && unique; i++)
            for (uint32_t j = 0; j < y && unique; j++)
                for (uint32_t k = 0; k < c && unique; k++) {
                    const uint64_t o = (uint64_t)i * m + (uint64_t)j * t + (uint64_t)k * m * zs;
                    unique = !(seen[o / 8] >> (o % 8) & 1);
                    seen[o / 8] |= (uint8_t)(1u << (o % 8));
                }
        free(seen);
        dmt_tensor in, out;
        const uint32_t zero[3] = {0};
        const int32_t ones[3] = {1, 1, 1};
        dmt_tensor_init(&in, DML_TENSOR_DATA_TYPE_UINT8, 3, sizes, NULL, 0);
        dmt_tensor_init(&out, DML_TENSOR_DATA_TYPE_UINT8, 3, sizes, strides, 0);
        DML_SLICE1_OPERATOR_DESC sd = {&in.desc, &out.desc, 3, zero, sizes, ones};
        DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &sd};
        const dmlops_status st = dmlops_validate_operator(&desc, 0);
        const bool provable = y <= distinct && nested;
        proven += provable;
        CHECK(unique || st == DMLOPS_ERROR_INVALID_ARGUMENT,
              "seed 0x%llx: sizes {%u, %u, %u} strides {%u, %u, %u} overlap but validate gave %s",
              (unsigned long long)seed, a, y, c, m, t, m * zs, dmlops_status_string(st));
        CHECK(!provable || st == DMLOPS_SUCCESS,
              "seed 0x%llx: sizes {%u, %u, %u} strides {%u, %u, %u} are one-to-one by residues but validate gave "
              "%s: %s",
              (unsigned long long)seed, a, y, c, m, t, m * zs, dmlops_status_string(st), dmlops_last_error_message());
        CHECK(!provable || unique, "seed 0x%llx: the test's own construction overlaps", (unsigned long long)seed);
    }
    CHECK(proven >= (cases > 3 ? 3 : 1), "only %d provable layouts in %d: the generator is lopsided", proven, cases);
}

/* The output-overlap verdict against brute force on random small layouts: ranks 1-4,
 * sizes 1-6, strides 0-14 (seed printed on failure). */
TEST(output_overlap_matches_brute_force)
{
    dmt_rng r = {0x0ee1a9};
    int refused = 0;
    for (int n = 0; n < 3000; n++) {
        uint64_t seed = r.s;
        uint32_t rank = 1 + dmt_below(&r, 4), sizes[4], strides[4], count = 1;
        for (uint32_t d = 0; d < rank; d++) {
            sizes[d] = 1 + dmt_below(&r, 6);
            strides[d] = dmt_below(&r, 15);
            count *= sizes[d];
        }
        /* Brute force: every address, counted. */
        uint32_t span = 1;
        for (uint32_t d = 0; d < rank; d++) span += (sizes[d] - 1) * strides[d];
        uint8_t seen[4096] = {0};
        bool unique = true;
        for (uint32_t i = 0; i < count && unique; i++) {
            uint32_t rest = i, off = 0;
            for (uint32_t d = rank; d-- > 0;) {
                off += rest % sizes[d] * strides[d];
                rest /= sizes[d];
            }
            unique = !seen[off]++;
        }
        dmt_tensor in, out;
        const uint32_t zero[4] = {0};
        const int32_t ones[4] = {1, 1, 1, 1};
        dmt_tensor_init(&in, DML_TENSOR_DATA_TYPE_UINT8, rank, sizes, NULL, 0);
        dmt_tensor_init(&out, DML_TENSOR_DATA_TYPE_UINT8, rank, sizes, strides, 0);
        DML_SLICE1_OPERATOR_DESC sd = {&in.desc, &out.desc, rank, zero, sizes, ones};
        DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &sd};
        dmlops_status st = dmlops_validate_operator(&desc, 0);
        refused += st != DMLOPS_SUCCESS;
        if (!CHECK(st == (unique ? DMLOPS_SUCCESS : DMLOPS_ERROR_INVALID_ARGUMENT),
                   "seed 0x%llx: rank %u sizes {%u,%u,%u,%u} strides {%u,%u,%u,%u}: %s, brute force says %s (span %u)",
                   (unsigned long long)seed, rank, sizes[0], sizes[1], sizes[2], sizes[3], strides[0], strides[1],
                   strides[2], strides[3], dmlops_status_string(st), unique ? "one-to-one" : "overlapping", span))
            break;
    }
    CHECK(refused > 300 && refused < 2700, "only %d of 3000 refused: the generator is lopsided", refused);
}
