/* cases.h - one operator case as the randomized (test_random.c) and the targeted
 * (test_targeted.c) tests build, run and check it: descriptors, bindings, host images of
 * every buffer, and, after the run, a comparison of every byte of every buffer with the
 * naive reference of reference.h applied to the images.
 *
 * Every case fills every buffer with random bytes (so the output buffer starts as a
 * random sentinel), runs the operator, reads every buffer back whole and compares it to
 * the expected image: the reference applied to a copy of the sentinel-filled buffers.
 * So addressed output elements must equal the reference AND every other byte (padding
 * between strided elements, bytes before the binding offset, after the tensor, input
 * buffers) must be untouched. Header-only (static inline). */
#ifndef DMT_CASES_H
#define DMT_CASES_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>

#include "harness.h"
#include "reference.h"

#define T_F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define T_F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define T_U32 DML_TENSOR_DATA_TYPE_UINT32
#define T_U16 DML_TENSOR_DATA_TYPE_UINT16
#define T_U8 DML_TENSOR_DATA_TYPE_UINT8
#define T_I32 DML_TENSOR_DATA_TYPE_INT32
#define T_I16 DML_TENSOR_DATA_TYPE_INT16
#define T_I8 DML_TENSOR_DATA_TYPE_INT8
#define T_F64 DML_TENSOR_DATA_TYPE_FLOAT64
#define T_U64 DML_TENSOR_DATA_TYPE_UINT64
#define T_I64 DML_TENSOR_DATA_TYPE_INT64

static const DML_TENSOR_DATA_TYPE all_types[11] = {T_F32, T_F16, T_U32, T_U16, T_U8, T_I32,
                                                   T_I16, T_I8,  T_F64, T_U64, T_I64};
static const DML_TENSOR_DATA_TYPE index_types[4] = {T_U32, T_U64, T_I32, T_I64};

/* ======================================================================================
 * Small utilities
 * ==================================================================================== */

static inline uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline dmt_rng rng_from_seed(uint64_t seed)
{
    dmt_rng r = {mix64(seed)};
    if (!r.s) r.s = 1;
    return r;
}

static inline void fill_random(dmt_rng *r, uint8_t *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i += 8) {
        uint64_t v = dmt_next(r);
        memcpy(p + i, &v, n - i < 8 ? (size_t)(n - i) : 8);
    }
}

static inline uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

static inline bool is_signed_index(DML_TENSOR_DATA_TYPE t) { return t == T_I32 || t == T_I64; }

typedef struct sbuf {
    char s[6144];
    size_t n;
} sbuf;

DMT_PRINTF(2, 3) static inline void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->n >= sizeof b->s) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
    va_end(ap);
    if (k > 0) b->n += (size_t)k;
    if (b->n > sizeof b->s) b->n = sizeof b->s;
}

static inline void sb_u32s(sbuf *b, const uint32_t *v, uint32_t n)
{
    sb_printf(b, "{");
    for (uint32_t i = 0; i < n; i++) sb_printf(b, "%s%u", i ? "," : "", v[i]);
    sb_printf(b, "}");
}

static inline void sb_i32s(sbuf *b, const int32_t *v, uint32_t n)
{
    sb_printf(b, "{");
    for (uint32_t i = 0; i < n; i++) sb_printf(b, "%s%d", i ? "," : "", v[i]);
    sb_printf(b, "}");
}

/* ======================================================================================
 * A test case: descriptors, bindings, host images of the buffers
 * ==================================================================================== */

enum { MAXT = 3 };

typedef struct rcase {
    DML_OPERATOR_TYPE op;
    uint32_t ntensors, ninputs; /* slots 0..ninputs-1 are inputs, the last is the output */
    const char *role[MAXT];
    dmt_tensor t[MAXT]; /* not copyable: the DML structs point into it */
    const char *layout[MAXT];
    uint32_t axis;
    uint32_t win_off[8], win_size[8];
    int32_t win_stride[8];
    /* bindings */
    const char *binding_mode;
    uint32_t nbuf;
    uint64_t buf_size[MAXT];
    uint32_t bind_buf[MAXT];
    uint64_t bind_off[MAXT], bind_size[MAXT];
    uint8_t *img[MAXT]; /* buffer contents before the run */
    uint8_t *got[MAXT]; /* buffer contents after the run */
    bool generator_error;
    char generator_note[256];
} rcase;

typedef struct op_descs {
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev;
    DML_SLICE1_OPERATOR_DESC slice;
    DML_ONE_HOT_OPERATOR_DESC hot;
    DML_OPERATOR_DESC desc;
} op_descs;

static inline void build_desc(const rcase *rc, op_descs *o)
{
    memset(o, 0, sizeof *o);
    o->desc.Type = rc->op;
    switch (rc->op) {
    case DML_OPERATOR_REVERSE_SUBSEQUENCES:
        o->rev = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){&rc->t[0].desc, &rc->t[1].desc, &rc->t[2].desc, rc->axis};
        o->desc.Desc = &o->rev;
        break;
    case DML_OPERATOR_SLICE1:
        o->slice = (DML_SLICE1_OPERATOR_DESC){&rc->t[0].desc, &rc->t[1].desc, rc->t[0].buf.DimensionCount,
                                              rc->win_off, rc->win_size, rc->win_stride};
        o->desc.Desc = &o->slice;
        break;
    default:
        o->hot = (DML_ONE_HOT_OPERATOR_DESC){&rc->t[0].desc, &rc->t[1].desc, &rc->t[2].desc, rc->axis};
        o->desc.Desc = &o->hot;
        break;
    }
}

static inline void case_init(rcase *rc, DML_OPERATOR_TYPE op)
{
    memset(rc, 0, sizeof *rc);
    rc->op = op;
    if (op == DML_OPERATOR_SLICE1) {
        rc->ntensors = 2;
        rc->ninputs = 1;
        rc->role[0] = "InputTensor";
        rc->role[1] = "OutputTensor";
    } else {
        rc->ntensors = 3;
        rc->ninputs = 2;
        bool rev = op == DML_OPERATOR_REVERSE_SUBSEQUENCES;
        rc->role[0] = rev ? "InputTensor" : "IndicesTensor";
        rc->role[1] = rev ? "SequenceLengthsTensor" : "ValuesTensor";
        rc->role[2] = "OutputTensor";
    }
}

static inline void case_free_images(rcase *rc)
{
    for (uint32_t b = 0; b < MAXT; b++) {
        free(rc->img[b]);
        free(rc->got[b]);
        rc->img[b] = rc->got[b] = NULL;
    }
}

static inline uint32_t out_slot(const rcase *rc) { return rc->ntensors - 1; }

static inline void describe(const rcase *rc, sbuf *b)
{
    sb_printf(b, "%s", dmlops_operator_type_name(rc->op));
    if (rc->op == DML_OPERATOR_SLICE1) {
        uint32_t rank = rc->t[0].buf.DimensionCount;
        sb_printf(b, " offsets=");
        sb_u32s(b, rc->win_off, rank);
        sb_printf(b, " window_sizes=");
        sb_u32s(b, rc->win_size, rank);
        sb_printf(b, " window_strides=");
        sb_i32s(b, rc->win_stride, rank);
    } else {
        sb_printf(b, " axis=%u", rc->axis);
    }
    sb_printf(b, "\n");
    for (uint32_t s = 0; s < rc->ntensors; s++) {
        const DML_BUFFER_TENSOR_DESC *d = &rc->t[s].buf;
        sb_printf(b, "        %s: %s rank=%u sizes=", rc->role[s], dmlops_data_type_name(d->DataType), d->DimensionCount);
        sb_u32s(b, d->Sizes, d->DimensionCount);
        sb_printf(b, " strides=");
        if (d->Strides)
            sb_u32s(b, d->Strides, d->DimensionCount);
        else
            sb_printf(b, "NULL");
        sb_printf(b, " (%s) total=%" PRIu64 " align=%u | binding buf%u off=%" PRIu64 " size=%" PRIu64 "\n",
                  rc->layout[s] ? rc->layout[s] : "?", d->TotalTensorSizeInBytes, d->GuaranteedBaseOffsetAlignment,
                  rc->bind_buf[s], rc->bind_off[s], rc->bind_size[s]);
    }
    sb_printf(b, "        buffers (%s):", rc->binding_mode ? rc->binding_mode : "?");
    for (uint32_t i = 0; i < rc->nbuf; i++) sb_printf(b, " buf%u=%" PRIu64 "B", i, rc->buf_size[i]);
    sb_printf(b, "\n");
}

/* ======================================================================================
 * Bindings, elements and the host images of the buffers
 * ==================================================================================== */

static inline uint64_t slot_unit(const rcase *rc, uint32_t s)
{
    uint64_t a = rc->t[s].buf.GuaranteedBaseOffsetAlignment;
    return a > 16 ? a : 16;
}

/* Simple bindings for the targeted tests: one buffer per tensor, at `offset`, 32 spare
 * bytes after. */
static inline void simple_bindings(rcase *rc, uint64_t offset)
{
    rc->binding_mode = "separate";
    rc->nbuf = rc->ntensors;
    for (uint32_t s = 0; s < rc->ntensors; s++) {
        rc->bind_buf[s] = s;
        rc->bind_off[s] = align_up(offset, slot_unit(rc, s));
        rc->bind_size[s] = rc->t[s].buf.TotalTensorSizeInBytes;
        rc->buf_size[s] = rc->bind_off[s] + rc->bind_size[s] + 32;
    }
}

/* Special sequence lengths: 0, 1, n, > n, huge UINT64, negative signed, and values whose
 * low 32 bits are small (a truncating implementation would get them wrong). Returned as
 * 64 bits; the low ElementSize bytes are stored. */
static inline uint64_t gen_length(dmt_rng *r, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    bool wide = dmlops_data_type_size(type) == 8;
    switch (dmt_below(r, 16)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return n;
    case 3: return n - 1;
    case 4: return n + 1;
    case 5:
    case 6:
    case 7: return dmt_below(r, (uint32_t)n + 1);
    case 8: return 2 * n + 3;
    case 9: return wide ? (1ull << 32) + 1 + dmt_below(r, (uint32_t)n) : 0x80000000u;
    case 10: return UINT64_MAX;
    case 11: return wide ? 1ull << 63 : 0x7FFFFFFFu;
    case 12: return (uint64_t)(-(int64_t)(1 + dmt_below(r, (uint32_t)n + 1)));
    case 13: return wide ? (uint64_t)(-(int64_t)(1ull << 32)) + 1 + dmt_below(r, (uint32_t)n) : 0xFFFFFFFFu - dmt_below(r, 3);
    case 14: return wide ? 0x7FFFFFFFFFFFFFFFull : 0x7FFFFFFFu;
    default: return dmt_next(r);
    }
}

/* Special one-hot indices: mostly in range, negative in range, n, -n, -n-1, 2^32 + k,
 * -2^32 + k, INT64_MIN, UINT64_MAX, INT64_MAX, raw. */
static inline uint64_t gen_index(dmt_rng *r, DML_TENSOR_DATA_TYPE type, uint64_t n)
{
    bool wide = dmlops_data_type_size(type) == 8, sgn = is_signed_index(type);
    uint32_t k = dmt_below(r, (uint32_t)n);
    switch (dmt_below(r, 20)) {
    case 8:
    case 9: return sgn ? (uint64_t)(-(int64_t)(1 + k)) : k;
    case 10: return n;
    case 11: return (uint64_t)(-(int64_t)n);
    case 12: return (uint64_t)(-(int64_t)n - 1);
    case 13: return n + 1 + dmt_below(r, 5);
    case 14: return wide ? (1ull << 32) + k : 0x80000000u + k;
    case 15: return wide ? (uint64_t)(-(int64_t)(1ull << 32)) + k : 0xFFFFFFFFu;
    case 16: return 1ull << 63;
    case 17: return UINT64_MAX;
    case 18: return 0x7FFFFFFFFFFFFFFFull;
    case 19: return dmt_next(r);
    default: return k;
    }
}

/* Writes v (its low ElementSize bytes) at coordinate c of slot s in the host image. */
static inline void put_elem(rcase *rc, uint32_t s, const uint32_t *c, uint64_t v)
{
    ref_tensor t = ref_tensor_of(&rc->t[s].buf);
    memcpy(rc->img[rc->bind_buf[s]] + rc->bind_off[s] + ref_byte_offset(&t, c), &v, t.esize);
}

/* Reads the element at coordinate c of slot s after the run (low bytes of the result). */
static inline uint64_t got_elem(const rcase *rc, uint32_t s, const uint32_t *c)
{
    ref_tensor t = ref_tensor_of(&rc->t[s].buf);
    uint64_t v = 0;
    if (rc->got[rc->bind_buf[s]])
        memcpy(&v, rc->got[rc->bind_buf[s]] + rc->bind_off[s] + ref_byte_offset(&t, c), t.esize);
    return v;
}

/* Random bytes everywhere; with `special`, lengths / indices get the special values
 * above (one in eight left as raw random bytes). */
static inline void prepare_images(rcase *rc, dmt_rng *r, bool special)
{
    case_free_images(rc);
    for (uint32_t b = 0; b < rc->nbuf; b++) {
        rc->img[b] = malloc(rc->buf_size[b]);
        fill_random(r, rc->img[b], rc->buf_size[b]);
    }
    if (!special || rc->op == DML_OPERATOR_SLICE1) return;
    bool rev = rc->op == DML_OPERATOR_REVERSE_SUBSEQUENCES;
    uint32_t s = rev ? 1 : 0;
    const DML_BUFFER_TENSOR_DESC *d = &rc->t[s].buf;
    uint64_t n = rev ? rc->t[0].sizes[rc->axis] : rc->t[2].sizes[rc->axis];
    uint32_t c[8] = {0};
    do {
        if (dmt_below(r, 8) == 0) continue;
        put_elem(rc, s, c, rev ? gen_length(r, d->DataType, n) : gen_index(r, d->DataType, n));
    } while (ref_odometer_next(d->DimensionCount, d->Sizes, c));
}

/* ======================================================================================
 * Running a case and checking every byte
 * ==================================================================================== */

typedef struct suite_state {
    const char *test, *label, *filter; /* filter: the TEST name that reruns the case */
    int failed_cases, printed, skipped;
} suite_state;

static inline void report_case(suite_state *st, const rcase *rc, int case_no, uint64_t seed, bool seeded, const char *what)
{
    st->failed_cases++;
    if (st->printed++ >= 4) return;
    sbuf b = {.n = 0};
    describe(rc, &b);
    if (seeded)
        printf("    %s[%s%s%s] case %d seed=0x%016" PRIx64 " (rerun: DMT_CASE_SEED=0x%016" PRIx64
               " ./build/test/test_random %s)\n      %s\n      %s",
               st->test, dmt_backend_name(), st->label ? ", " : "", st->label ? st->label : "", case_no, seed, seed,
               st->filter ? st->filter : st->test, what, b.s);
    else
        printf("    %s[%s] targeted case %d: %s\n      %s", st->test, dmt_backend_name(), case_no, what, b.s);
    fflush(stdout);
}

/* Runs op on fresh buffers holding rc->img, reads every buffer back into rc->got and
 * compares with the reference. Returns NULL on success, else a description (static). */
static const char *run_and_check(dmlops_context *ctx, rcase *rc, dmlops_operator *op)
{
    static char why[1024];
    dmlops_buffer *bufs[MAXT] = {NULL, NULL, NULL};
    uint8_t *expect[MAXT] = {NULL, NULL, NULL};
    const char *result = NULL;
    dmlops_status st;

    for (uint32_t b = 0; b < rc->nbuf; b++) {
        bufs[b] = dmt_buffer(ctx, rc->buf_size[b], rc->img[b]);
        if (!bufs[b]) {
            result = "buffer creation failed";
            goto done;
        }
    }
    dmlops_binding bind[MAXT];
    for (uint32_t s = 0; s < rc->ntensors; s++)
        bind[s] = (dmlops_binding){bufs[rc->bind_buf[s]], rc->bind_off[s], rc->bind_size[s]};
    st = dmlops_operator_execute(op, rc->ninputs, bind, 1, &bind[out_slot(rc)]);
    if (st != DMLOPS_SUCCESS) {
        snprintf(why, sizeof why, "dmlops_operator_execute returned %s: %s", dmlops_status_string(st),
                 dmlops_last_error_message());
        result = why;
        goto done;
    }

    /* Expected images: the sentinel-filled buffers with the reference applied. */
    ref_tensor rt[MAXT];
    const uint8_t *base[MAXT];
    for (uint32_t s = 0; s < rc->ntensors; s++) {
        rt[s] = ref_tensor_of(&rc->t[s].buf);
        base[s] = rc->img[rc->bind_buf[s]] + rc->bind_off[s];
    }
    for (uint32_t b = 0; b < rc->nbuf; b++) {
        expect[b] = malloc(rc->buf_size[b]);
        memcpy(expect[b], rc->img[b], rc->buf_size[b]);
    }
    uint32_t os = out_slot(rc);
    uint8_t *obase = expect[rc->bind_buf[os]] + rc->bind_off[os];
    switch (rc->op) {
    case DML_OPERATOR_REVERSE_SUBSEQUENCES:
        ref_reverse_subsequences(&rt[0], base[0], &rt[1], base[1], &rt[2], obase, rc->axis);
        break;
    case DML_OPERATOR_SLICE1: ref_slice1(&rt[0], base[0], &rt[1], obase, rc->win_off, rc->win_size, rc->win_stride); break;
    default: ref_one_hot(&rt[0], base[0], &rt[1], base[1], &rt[2], obase, rc->axis); break;
    }

    for (uint32_t b = 0; b < rc->nbuf && !result; b++) {
        rc->got[b] = malloc(rc->buf_size[b]);
        st = dmlops_buffer_read(bufs[b], 0, rc->got[b], rc->buf_size[b]);
        if (st != DMLOPS_SUCCESS) {
            snprintf(why, sizeof why, "dmlops_buffer_read returned %s", dmlops_status_string(st));
            result = why;
            break;
        }
        if (!memcmp(rc->got[b], expect[b], rc->buf_size[b])) continue;
        uint64_t first = UINT64_MAX, ndiff = 0;
        for (uint64_t i = 0; i < rc->buf_size[b]; i++)
            if (rc->got[b][i] != expect[b][i]) {
                if (first == UINT64_MAX) first = i;
                ndiff++;
            }
        /* Where is the first wrong byte? */
        int len = snprintf(why, sizeof why, "buf%u: %" PRIu64 " bytes differ, first at byte %" PRIu64 " (expected 0x%02x, got 0x%02x)",
                           b, ndiff, first, expect[b][first], rc->got[b][first]);
        const char *where = "outside every binding";
        for (uint32_t s = 0; s < rc->ntensors; s++)
            if (rc->bind_buf[s] == b && first >= rc->bind_off[s] && first < rc->bind_off[s] + rc->bind_size[s])
                where = rc->role[s];
        bool in_elem = false;
        if (rc->bind_buf[os] == b && first >= rc->bind_off[os]) {
            uint32_t c[8] = {0};
            uint64_t rel = first - rc->bind_off[os];
            do {
                uint64_t a = ref_byte_offset(&rt[os], c);
                if (rel >= a && rel < a + rt[os].esize) {
                    char cs[96];
                    int cn = 0;
                    for (uint32_t d = 0; d < rt[os].rank; d++)
                        cn += snprintf(cs + cn, sizeof cs - (size_t)cn, "%s%u", d ? "," : "", c[d]);
                    uint64_t ev = 0, gv = 0;
                    memcpy(&ev, expect[b] + rc->bind_off[os] + a, rt[os].esize);
                    memcpy(&gv, rc->got[b] + rc->bind_off[os] + a, rt[os].esize);
                    snprintf(why + len, sizeof why - (size_t)len,
                             "; inside output element {%s}: expected 0x%" PRIx64 ", got 0x%" PRIx64, cs, ev, gv);
                    in_elem = true;
                    break;
                }
            } while (ref_odometer_next(rt[os].rank, rt[os].sizes, c));
        }
        if (!in_elem)
            snprintf(why + len, sizeof why - (size_t)len, "; an unaddressed byte (%s) was modified", where);
        result = why;
    }
done:
    for (uint32_t b = 0; b < MAXT; b++) {
        dmlops_buffer_destroy(bufs[b]);
        free(expect[b]);
    }
    return result;
}

/* Validates and creates the operator. Returns NULL when created (in *op), "skip" when
 * the backend does not support a type of the case, else a description. */
static const char *create_op(dmlops_context *ctx, const rcase *rc, dmlops_operator **op)
{
    static char why[1024];
    op_descs od;
    build_desc(rc, &od);
    *op = NULL;
    if (rc->generator_error) return rc->generator_note;
    dmlops_status st = dmlops_validate_operator(&od.desc, (DML_FEATURE_LEVEL)0);
    if (st != DMLOPS_SUCCESS) {
        snprintf(why, sizeof why, "dmlops_validate_operator refused a valid descriptor: %s: %s",
                 dmlops_status_string(st), dmlops_last_error_message());
        return why;
    }
    st = dmlops_operator_create(ctx, &od.desc, op);
    if (st == DMLOPS_SUCCESS) return NULL;
    if (st == DMLOPS_ERROR_UNSUPPORTED) {
        dmlops_context_info info;
        if (dmlops_context_get_info(ctx, &info) == DMLOPS_SUCCESS)
            for (uint32_t s = 0; s < rc->ntensors; s++)
                if (!(info.supported_data_types & (1u << rc->t[s].buf.DataType))) return "skip";
    }
    snprintf(why, sizeof why, "dmlops_operator_create refused a valid descriptor: %s: %s", dmlops_status_string(st),
             dmlops_last_error_message());
    return why;
}

#endif
