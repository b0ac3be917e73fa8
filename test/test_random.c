/* Randomized and targeted tests of the three operators against the naive reference of
 * reference.h, on every backend (TEST_CTX).
 *
 * Every case fills every buffer with random bytes (so the output buffer starts as a
 * random sentinel), runs the operator, reads every buffer back whole and compares it to
 * the expected image: the reference applied to a copy of the sentinel-filled buffers.
 * So addressed output elements must equal the reference AND every other byte (padding
 * between strided elements, bytes before the binding offset, after the tensor, input
 * buffers) must be untouched.
 *
 * Each random case has its own seed, printed on failure. Environment:
 *   DMT_SEED=0x...       base seed of the random tests (default: fixed per test)
 *   DMT_CASES=N          cases per random test (default 3000 on cpu, 1500 on vulkan)
 *   DMT_CASE_SEED=0x...  run only the case with this seed (as printed on failure)
 *   DMT_VERBOSE=1        print coverage counters after each random test
 * e.g. DMT_CASE_SEED=0x1234 DMLOPS_TEST_BACKENDS=cpu ./build/test/test_random random_slice1 */
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

static uint64_t env_u64(const char *name, uint64_t dflt, bool *set)
{
    const char *s = getenv(name);
    if (set) *set = s && *s;
    if (!s || !*s) return dflt;
    return strtoull(s, NULL, 0);
}

static uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static dmt_rng rng_from_seed(uint64_t seed)
{
    dmt_rng r = {mix64(seed)};
    if (!r.s) r.s = 1;
    return r;
}

static void fill_random(dmt_rng *r, uint8_t *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i += 8) {
        uint64_t v = dmt_next(r);
        memcpy(p + i, &v, n - i < 8 ? (size_t)(n - i) : 8);
    }
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

static bool is_signed_index(DML_TENSOR_DATA_TYPE t) { return t == T_I32 || t == T_I64; }

typedef struct sbuf {
    char s[6144];
    size_t n;
} sbuf;

__attribute__((format(printf, 2, 3))) static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->n >= sizeof b->s) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
    va_end(ap);
    if (k > 0) b->n += (size_t)k;
    if (b->n > sizeof b->s) b->n = sizeof b->s;
}

static void sb_u32s(sbuf *b, const uint32_t *v, uint32_t n)
{
    sb_printf(b, "{");
    for (uint32_t i = 0; i < n; i++) sb_printf(b, "%s%u", i ? "," : "", v[i]);
    sb_printf(b, "}");
}

static void sb_i32s(sbuf *b, const int32_t *v, uint32_t n)
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

static void build_desc(const rcase *rc, op_descs *o)
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

static void case_init(rcase *rc, DML_OPERATOR_TYPE op)
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

static void case_free_images(rcase *rc)
{
    for (uint32_t b = 0; b < MAXT; b++) {
        free(rc->img[b]);
        free(rc->got[b]);
        rc->img[b] = rc->got[b] = NULL;
    }
}

static uint32_t out_slot(const rcase *rc) { return rc->ntensors - 1; }

static void describe(const rcase *rc, sbuf *b)
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
 * Random generators
 * ==================================================================================== */

static uint32_t pick_rank(dmt_rng *r)
{
    static const uint32_t menu[] = {1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 6, 7, 8};
    return menu[dmt_below(r, sizeof menu / sizeof menu[0])];
}

static const uint32_t size_menu[] = {1,  1,  1,  1,  2,  2,  2,  3,  3,  4,  5,  6,   7,   7,   8,   9,   11,
                                     13, 16, 17, 17, 31, 32, 33, 33, 63, 64, 65, 100, 127, 128, 257, 1000, 1023};
enum { SIZE_MENU_N = sizeof size_menu / sizeof size_menu[0] };

/* Multiplies the element budget of generated tensors; the large-tensor suites raise it
 * so that the CPU engine's default split points (hundreds of kilobytes) are crossed. */
static uint64_t budget_scale = 1;

static uint64_t pick_budget(dmt_rng *r)
{
    switch (dmt_below(r, 10)) {
    case 0:
    case 1:
    case 2: return budget_scale * (1 + dmt_below(r, 64));
    case 3:
    case 4:
    case 5:
    case 6: return budget_scale * (64 + dmt_below(r, 448));
    default: return budget_scale * (512 + dmt_below(r, 1500));
    }
}

static uint64_t product(const uint32_t *sizes, uint32_t rank)
{
    uint64_t p = 1;
    for (uint32_t i = 0; i < rank; i++) p *= sizes[i];
    return p;
}

/* Random sizes from the menu (odd sizes favoured), shrunk until the product fits. */
static void gen_sizes(dmt_rng *r, uint32_t rank, uint64_t budget, uint32_t *sizes)
{
    for (uint32_t i = 0; i < rank; i++) sizes[i] = size_menu[dmt_below(r, SIZE_MENU_N)];
    while (product(sizes, rank) > budget) {
        uint32_t j = 0;
        for (uint32_t i = 1; i < rank; i++)
            if (sizes[i] > sizes[j]) j = i;
        uint32_t v = sizes[j];
        for (int tries = 0; tries < 8 && v >= sizes[j]; tries++) v = size_menu[dmt_below(r, SIZE_MENU_N)];
        sizes[j] = v < sizes[j] ? v : sizes[j] / 2;
        if (!sizes[j]) sizes[j] = 1;
    }
    /* Large suites: double random dimensions until the product nears the budget, so
     * that large budgets give large tensors whatever the rank. */
    for (int grow = 0; budget_scale > 1 && grow < 64 && product(sizes, rank) * 2 <= budget; grow++) {
        uint32_t j = dmt_below(r, rank);
        if (sizes[j] <= (1u << 20)) sizes[j] *= 2;
    }
}

static void shuffle(dmt_rng *r, uint32_t *v, uint32_t n)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = dmt_below(r, i);
        uint32_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

/* Nested strides: order[0] is the innermost dimension. With pad, the innermost stride
 * is 1..3 and each outer stride leaves 0..3 spare elements. */
static void nested_strides(dmt_rng *r, uint32_t rank, const uint32_t *sizes, const uint32_t *order, bool pad,
                           uint32_t *strides)
{
    uint64_t s = pad ? 1 + dmt_below(r, 3) : 1;
    for (uint32_t k = 0; k < rank; k++) {
        uint32_t d = order[k];
        strides[d] = (uint32_t)s;
        s = s * sizes[d] + (pad ? dmt_below(r, 4) : 0);
    }
}

/* Brute force: are the addresses of all elements distinct? (small tensors only) */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool addresses_unique(uint32_t rank, const uint32_t *sizes, const uint32_t *strides)
{
    uint64_t count = product(sizes, rank);
    uint64_t *offs = malloc(count * sizeof *offs);
    uint32_t c[8] = {0};
    if (!offs) return false;
    uint64_t k = 0;
    do {
        uint64_t e = 0;
        for (uint32_t d = 0; d < rank; d++) e += (uint64_t)c[d] * strides[d];
        offs[k++] = e;
    } while (ref_odometer_next(rank, sizes, c));
    qsort(offs, count, sizeof *offs, cmp_u64);
    bool unique = true;
    for (k = 1; k < count && unique; k++) unique = offs[k] != offs[k - 1];
    free(offs);
    return unique;
}

/* Picks a layout. Returns its name; *use_strides false means Strides = NULL. Outputs get
 * only one-to-one layouts; inputs may also broadcast (0 strides) or alias. */
static const char *gen_layout(dmt_rng *r, uint32_t rank, const uint32_t *sizes, bool is_output, uint32_t *strides,
                              bool *use_strides)
{
    uint32_t order[8];
    const char *name;
    for (uint32_t i = 0; i < rank; i++) order[i] = rank - 1 - i; /* row-major: last dim innermost */
    *use_strides = true;
    uint32_t pick = dmt_below(r, 100);
    if (pick < 20) {
        *use_strides = false;
        return "packed-NULL";
    } else if (pick < 30) {
        nested_strides(r, rank, sizes, order, false, strides);
        name = "packed";
    } else if (pick < 52) {
        nested_strides(r, rank, sizes, order, true, strides);
        name = "padded";
    } else if (pick < 80) {
        bool pad = dmt_below(r, 2);
        shuffle(r, order, rank);
        nested_strides(r, rank, sizes, order, pad, strides);
        name = pad ? "permuted-padded" : "permuted";
    } else if (!is_output && pick < 92) {
        bool pad = dmt_below(r, 2);
        if (dmt_below(r, 2)) shuffle(r, order, rank);
        nested_strides(r, rank, sizes, order, pad, strides);
        uint32_t zeroed = 0, big = 0;
        for (uint32_t d = 0; d < rank; d++) {
            if (sizes[d] <= 1) continue;
            big++;
            if (dmt_below(r, 2)) {
                strides[d] = 0;
                zeroed++;
            }
        }
        if (big && !zeroed) { /* at least one broadcast dimension */
            uint32_t k = dmt_below(r, big);
            for (uint32_t d = 0; d < rank; d++)
                if (sizes[d] > 1 && k-- == 0) strides[d] = 0;
        }
        name = "broadcast";
    } else if (!is_output) {
        for (uint32_t d = 0; d < rank; d++) strides[d] = dmt_below(r, 6);
        name = "aliased";
    } else {
        /* Interleaved: random small strides whose addresses happen to be distinct
         * (e.g. sizes {3,2} strides {2,3}); not nested, still one-to-one. */
        name = NULL;
        if (product(sizes, rank) <= 256) {
            for (int tries = 0; tries < 12 && !name; tries++) {
                for (uint32_t d = 0; d < rank; d++) strides[d] = 1 + dmt_below(r, 6);
                if (addresses_unique(rank, sizes, strides)) name = "interleaved";
            }
        }
        if (!name) {
            shuffle(r, order, rank);
            nested_strides(r, rank, sizes, order, true, strides);
            name = "permuted-padded";
        }
    }
    /* The stride of a size-1 dimension is never used: make it odd now and then. */
    if (dmt_below(r, 4) == 0) {
        static const uint32_t odd[] = {0, 5, 65536, 0xFFFFFFFFu};
        for (uint32_t d = 0; d < rank; d++)
            if (sizes[d] == 1 && dmt_below(r, 2)) strides[d] = odd[dmt_below(r, 4)];
    }
    return name;
}

static uint32_t pick_alignment(dmt_rng *r, uint32_t esize)
{
    static const uint32_t menu[] = {1, 2, 4, 8, 16, 32, 64, 256};
    if (dmt_below(r, 4)) return 0;
    uint32_t a;
    do a = menu[dmt_below(r, 8)];
    while (a < esize);
    return a;
}

/* Fills slot s with a random layout, a TotalTensorSizeInBytes at or above the minimum,
 * and sometimes a GuaranteedBaseOffsetAlignment. */
static void gen_tensor(rcase *rc, uint32_t s, dmt_rng *r, DML_TENSOR_DATA_TYPE type, uint32_t rank,
                       const uint32_t *sizes, bool is_output)
{
    uint32_t strides[8] = {0};
    bool use;
    rc->layout[s] = gen_layout(r, rank, sizes, is_output, strides, &use);
    uint64_t min = dmlops_calc_buffer_tensor_size(type, rank, sizes, use ? strides : NULL);
    uint64_t extra = dmt_below(r, 3) == 0 ? 4 * (uint64_t)dmt_below(r, 16) : 0;
    dmt_tensor_init(&rc->t[s], type, rank, sizes, use ? strides : NULL, min + extra);
    rc->t[s].buf.GuaranteedBaseOffsetAlignment = pick_alignment(r, dmlops_data_type_size(type));
    ref_tensor rt = ref_tensor_of(&rc->t[s].buf);
    uint64_t mine = ref_min_bytes(&rt);
    if (min != mine && !rc->generator_error) {
        rc->generator_error = true;
        snprintf(rc->generator_note, sizeof rc->generator_note,
                 "dmlops_calc_buffer_tensor_size(%s) = %" PRIu64 " but the spec's formula gives %" PRIu64, rc->role[s],
                 min, mine);
    }
    if (mine > min) rc->t[s].buf.TotalTensorSizeInBytes = mine + extra; /* stay valid per the spec */
}

static uint64_t slot_unit(const rcase *rc, uint32_t s)
{
    uint64_t a = rc->t[s].buf.GuaranteedBaseOffsetAlignment;
    return a > 16 ? a : 16;
}

/* Random bindings: separate buffers, one shared buffer, or one shared buffer whose input
 * ranges overlap each other (inputs may overlap; the output never overlaps anything). */
static void gen_bindings(rcase *rc, dmt_rng *r)
{
    uint32_t mode = dmt_below(r, 10);
    for (uint32_t s = 0; s < rc->ntensors; s++) {
        uint64_t total = rc->t[s].buf.TotalTensorSizeInBytes;
        rc->bind_size[s] = total + (dmt_below(r, 2) ? 0 : dmt_below(r, 40));
    }
    if (mode < 6) {
        rc->binding_mode = "separate";
        rc->nbuf = rc->ntensors;
        for (uint32_t s = 0; s < rc->ntensors; s++) {
            uint64_t unit = slot_unit(rc, s);
            rc->bind_buf[s] = s;
            rc->bind_off[s] = dmt_below(r, 5) == 0 ? 0 : unit * (1 + dmt_below(r, 4));
            rc->buf_size[s] = rc->bind_off[s] + rc->bind_size[s] + dmt_below(r, 48);
        }
        return;
    }
    bool overlap = mode == 9 && rc->ninputs == 2;
    rc->binding_mode = overlap ? "shared, overlapping inputs" : "shared";
    rc->nbuf = 1;
    uint64_t cursor = dmt_below(r, 3) == 0 ? 0 : dmt_below(r, 64);
    for (uint32_t s = 0; s < rc->ntensors; s++) {
        uint64_t unit = slot_unit(rc, s), off;
        if (overlap && s == 1)
            off = align_up(rc->bind_off[0] + (dmt_below(r, 2) ? 0 : 16), unit);
        else
            off = align_up(cursor + (dmt_below(r, 2) ? 0 : dmt_below(r, 40)), unit);
        rc->bind_buf[s] = 0;
        rc->bind_off[s] = off;
        if (off + rc->bind_size[s] > cursor) cursor = off + rc->bind_size[s];
    }
    rc->buf_size[0] = cursor + dmt_below(r, 48);
}

/* Simple bindings for the targeted tests: one buffer per tensor, at `offset`, 32 spare
 * bytes after. */
static void simple_bindings(rcase *rc, uint64_t offset)
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
static uint64_t gen_length(dmt_rng *r, DML_TENSOR_DATA_TYPE type, uint64_t n)
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
static uint64_t gen_index(dmt_rng *r, DML_TENSOR_DATA_TYPE type, uint64_t n)
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
static void put_elem(rcase *rc, uint32_t s, const uint32_t *c, uint64_t v)
{
    ref_tensor t = ref_tensor_of(&rc->t[s].buf);
    memcpy(rc->img[rc->bind_buf[s]] + rc->bind_off[s] + ref_byte_offset(&t, c), &v, t.esize);
}

/* Reads the element at coordinate c of slot s after the run (low bytes of the result). */
static uint64_t got_elem(const rcase *rc, uint32_t s, const uint32_t *c)
{
    ref_tensor t = ref_tensor_of(&rc->t[s].buf);
    uint64_t v = 0;
    if (rc->got[rc->bind_buf[s]])
        memcpy(&v, rc->got[rc->bind_buf[s]] + rc->bind_off[s] + ref_byte_offset(&t, c), t.esize);
    return v;
}

/* Random bytes everywhere; with `special`, lengths / indices get the special values
 * above (one in eight left as raw random bytes). */
static void prepare_images(rcase *rc, dmt_rng *r, bool special)
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

static void gen_reverse(rcase *rc, dmt_rng *r)
{
    case_init(rc, DML_OPERATOR_REVERSE_SUBSEQUENCES);
    uint32_t rank = pick_rank(r), sizes[8], lsizes[8];
    gen_sizes(r, rank, pick_budget(r), sizes);
    rc->axis = dmt_below(r, rank);
    DML_TENSOR_DATA_TYPE type = all_types[dmt_below(r, 11)], ltype = index_types[dmt_below(r, 4)];
    memcpy(lsizes, sizes, sizeof lsizes);
    lsizes[rc->axis] = 1;
    gen_tensor(rc, 0, r, type, rank, sizes, false);
    gen_tensor(rc, 1, r, ltype, rank, lsizes, false);
    gen_tensor(rc, 2, r, type, rank, sizes, true);
}

static void gen_slice(rcase *rc, dmt_rng *r)
{
    case_init(rc, DML_OPERATOR_SLICE1);
    uint32_t rank = pick_rank(r), in[8], out[8];
    gen_sizes(r, rank, 3 * pick_budget(r), in);
    for (uint32_t d = 0; d < rank; d++) {
        uint32_t ws = dmt_below(r, 2) ? in[d] : 1 + dmt_below(r, in[d]);
        uint32_t off = dmt_below(r, in[d] - ws + 1);
        int64_t s;
        switch (dmt_below(r, 12)) {
        case 0:
        case 1:
        case 2:
        case 3: s = 1; break;
        case 4: s = 2; break;
        case 5: s = 3; break;
        case 6: s = 1 + dmt_below(r, ws); break;
        case 7: s = ws + dmt_below(r, 3); break;
        case 8: {
            static const int64_t big[] = {1000, 65536, INT32_MAX, -(int64_t)INT32_MAX - 1};
            s = big[dmt_below(r, 4)];
            break;
        }
        default: s = 1 + dmt_below(r, 5); break;
        }
        if (s > 0 && dmt_below(r, 5) < 2) s = -s;
        uint64_t mag = s < 0 ? (uint64_t)(-s) : (uint64_t)s;
        uint64_t maxo = 1 + (uint64_t)(ws - 1) / mag;
        out[d] = (uint32_t)(dmt_below(r, 5) ? maxo : 1 + dmt_below(r, (uint32_t)maxo));
        rc->win_off[d] = off;
        rc->win_size[d] = ws;
        rc->win_stride[d] = (int32_t)s;
    }
    DML_TENSOR_DATA_TYPE type = all_types[dmt_below(r, 11)];
    if (dmt_below(r, 4) == 0) {
        /* Rows: innermost window stride 1 and both innermost dimensions contiguous, the
         * shape a backend may lower to plain byte-run copies. */
        uint32_t last = rank - 1, ws = rc->win_size[last];
        rc->win_stride[last] = 1;
        out[last] = dmt_below(r, 3) ? ws : 1 + dmt_below(r, ws);
        for (uint32_t s = 0; s < 2; s++) {
            const uint32_t *sz = s ? out : in;
            uint32_t strides[8];
            bool null = dmt_below(r, 3) == 0;
            uint64_t st = 1;
            for (uint32_t d = rank; d-- > 0;) {
                strides[d] = (uint32_t)st;
                st = st * sz[d] + (null ? 0 : dmt_below(r, 5));
            }
            uint64_t min = dmlops_calc_buffer_tensor_size(type, rank, sz, null ? NULL : strides);
            dmt_tensor_init(&rc->t[s], type, rank, sz, null ? NULL : strides, min + 4 * (uint64_t)dmt_below(r, 3));
            rc->t[s].buf.GuaranteedBaseOffsetAlignment = pick_alignment(r, dmlops_data_type_size(type));
            rc->layout[s] = null ? "rows packed-NULL" : "rows padded";
        }
        return;
    }
    gen_tensor(rc, 0, r, type, rank, in, false);
    gen_tensor(rc, 1, r, type, rank, out, true);
}

static void gen_one_hot(rcase *rc, dmt_rng *r)
{
    case_init(rc, DML_OPERATOR_ONE_HOT);
    uint32_t rank = pick_rank(r), out[8], isz[8], vsz[8];
    gen_sizes(r, rank, pick_budget(r), out);
    rc->axis = dmt_below(r, rank);
    DML_TENSOR_DATA_TYPE type = all_types[dmt_below(r, 11)], itype = index_types[dmt_below(r, 4)];
    memcpy(isz, out, sizeof isz);
    isz[rc->axis] = 1;
    /* Values: mostly 1s, one or two dimensions of size 2..5. */
    for (uint32_t d = 0; d < rank; d++) vsz[d] = 1;
    uint32_t big = 1 + dmt_below(r, 2);
    for (uint32_t k = 0; k < big; k++) vsz[dmt_below(r, rank)] = 2 + dmt_below(r, dmt_below(r, 4) ? 2 : 4);
    gen_tensor(rc, 0, r, itype, rank, isz, false);
    gen_tensor(rc, 1, r, type, rank, vsz, false);
    gen_tensor(rc, 2, r, type, rank, out, true);
}

/* ======================================================================================
 * Running a case
 * ==================================================================================== */

typedef struct suite_state {
    const char *test, *label, *filter; /* filter: the TEST name that reruns the case */
    int failed_cases, printed, skipped;
} suite_state;

static void report_case(suite_state *st, const rcase *rc, int case_no, uint64_t seed, bool seeded, const char *what)
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

/* Coverage counters (DMT_VERBOSE=1). */
typedef struct coverage {
    uint32_t types[16], itypes[16], ranks[9], layouts_interleaved, layouts_broadcast, layouts_aliased,
        shared, overlap, reused;
    uint64_t elements, max_elements;
    uint32_t paths[8]; /* dmlops_operator_info.last_path after each case */
} coverage;

static void count_case(coverage *cv, const rcase *rc)
{
    uint32_t os = out_slot(rc);
    cv->types[rc->t[os].buf.DataType & 15]++;
    if (rc->op != DML_OPERATOR_SLICE1) cv->itypes[rc->t[rc->op == DML_OPERATOR_ONE_HOT ? 0 : 1].buf.DataType & 15]++;
    cv->ranks[rc->t[os].buf.DimensionCount]++;
    ref_tensor ot = ref_tensor_of(&rc->t[os].buf);
    cv->elements += ot.count;
    if (ot.count > cv->max_elements) cv->max_elements = ot.count;
    for (uint32_t s = 0; s < rc->ntensors; s++) {
        const char *l = rc->layout[s] ? rc->layout[s] : "";
        cv->layouts_interleaved += !strcmp(l, "interleaved");
        cv->layouts_broadcast += !strcmp(l, "broadcast");
        cv->layouts_aliased += !strcmp(l, "aliased");
    }
    cv->shared += rc->nbuf == 1;
    cv->overlap += rc->binding_mode && strstr(rc->binding_mode, "overlap") != NULL;
}

static void print_coverage(const coverage *cv)
{
    printf("      types:");
    for (int t = 1; t <= 11; t++) printf(" %s=%u", dmlops_data_type_name((DML_TENSOR_DATA_TYPE)t), cv->types[t]);
    printf("\n      index/length types:");
    for (int t = 1; t <= 11; t++)
        if (cv->itypes[t]) printf(" %s=%u", dmlops_data_type_name((DML_TENSOR_DATA_TYPE)t), cv->itypes[t]);
    printf("\n      ranks:");
    for (int k = 1; k <= 8; k++) printf(" %d:%u", k, cv->ranks[k]);
    printf("\n      tensors interleaved=%u broadcast=%u aliased=%u; cases shared-buffer=%u overlapping-inputs=%u "
           "second-execution=%u\n",
           cv->layouts_interleaved, cv->layouts_broadcast, cv->layouts_aliased, cv->shared, cv->overlap, cv->reused);
    printf("      output elements: %" PRIu64 " in all, at most %" PRIu64 " in one case\n", cv->elements, cv->max_elements);
}

static void sb_paths(sbuf *b, const coverage *cv)
{
    bool any = false;
    for (int p = 1; p < 8; p++)
        if (cv->paths[p]) {
            sb_printf(b, "%s%s=%u", any ? " " : "", dmlops_path_name((dmlops_path)p), cv->paths[p]);
            any = true;
        }
}

typedef void (*gen_fn)(rcase *rc, dmt_rng *r);

/* Runs `default_cases` (or $DMT_CASES) random cases from gen on ctx. `label` names the
 * context in messages when it is not the harness's; `rerun` is then the TEST that
 * makes it (NULL: `test`). */
static void random_suite(dmlops_context *ctx, const char *test, const char *label, uint64_t default_seed, gen_fn gen,
                         int default_cases, const char *rerun)
{
    bool one = false, seed_set = false;
    uint64_t base = env_u64("DMT_SEED", default_seed, &seed_set);
    uint64_t only = env_u64("DMT_CASE_SEED", 0, &one);
    int ncases = (int)env_u64("DMT_CASES", (uint64_t)default_cases, NULL);
    if (one) ncases = 1;
    suite_state st = {.test = test, .label = label, .filter = rerun ? rerun : test};
    coverage cv;
    memset(&cv, 0, sizeof cv);
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    memset(rc, 0, sizeof *rc);
    for (int i = 0; i < ncases; i++) {
        uint64_t seed = one ? only : mix64(base ^ mix64((uint64_t)i + 1));
        dmt_rng r = rng_from_seed(seed);
        gen(rc, &r);
        gen_bindings(rc, &r);
        count_case(&cv, rc);
        dmlops_operator *op = NULL;
        const char *err = create_op(ctx, rc, &op);
        if (err && !strcmp(err, "skip")) {
            st.skipped++;
            continue;
        }
        if (!err) {
            prepare_images(rc, &r, true);
            err = run_and_check(ctx, rc, op);
            /* One in eight: run the same operator again with new bindings and data. */
            if (!err && dmt_below(&r, 8) == 0) {
                cv.reused++;
                gen_bindings(rc, &r);
                prepare_images(rc, &r, true);
                err = run_and_check(ctx, rc, op);
            }
        }
        if (err) report_case(&st, rc, i, seed, true, err);
        dmlops_operator_info oi;
        if (op && dmlops_operator_get_info(op, &oi) == DMLOPS_SUCCESS) cv.paths[oi.last_path & 7]++;
        dmlops_operator_destroy(op);
        case_free_images(rc);
    }
    free(rc);
    sbuf pb = {.n = 0};
    sb_paths(&pb, &cv);
    printf("    %s[%s%s%s]: %d cases (base seed 0x%016" PRIx64 "%s), %d skipped as unsupported, %d failed; paths: %s\n",
           test, dmt_backend_name(), label ? ", " : "", label ? label : "", ncases, base,
           seed_set ? " from DMT_SEED" : "", st.skipped, st.failed_cases, pb.s);
    if (getenv("DMT_VERBOSE")) print_coverage(&cv);
    CHECK(st.failed_cases == 0, "%s: %d of %d random cases failed (base seed 0x%016" PRIx64 ")", test,
          st.failed_cases, ncases, base);
}

/* Cases per random test: plenty on the CPU; fewer on Vulkan, where a slow software
 * device (lavapipe) has to stay well under two minutes for the whole file. */
static int default_cases(void) { return dmt_is_vulkan() ? 1500 : 3000; }

TEST_CTX(random_reverse_subsequences)
{
    random_suite(ctx, "random_reverse_subsequences", NULL, 0x5EED0001ull, gen_reverse, default_cases(), NULL);
}
TEST_CTX(random_slice1) { random_suite(ctx, "random_slice1", NULL, 0x5EED0002ull, gen_slice, default_cases(), NULL); }
TEST_CTX(random_one_hot) { random_suite(ctx, "random_one_hot", NULL, 0x5EED0003ull, gen_one_hot, default_cases(), NULL); }

/* Vulkan only: the same random cases on contexts forced onto each execution path
 * (KERNELS_ONLY, PREFER_COPY), with the validation layer counting messages. */
TEST_CTX(random_vulkan_forced_paths)
{
    (void)ctx;
    if (!dmt_is_vulkan()) return; /* the CPU backend has one path */
    static const uint32_t flags[2] = {DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, DMLOPS_CONTEXT_FLAG_PREFER_COPY};
    static const char *const names[2] = {"KERNELS_ONLY", "PREFER_COPY"};
    for (int f = 0; f < 2; f++) {
        dmlops_context *c = NULL;
        dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN,
                                 .flags = flags[f] | DMLOPS_CONTEXT_FLAG_DEBUG | DMLOPS_CONTEXT_FLAG_QUIET};
        if (dmlops_context_create(&d, &c) != DMLOPS_SUCCESS) {
            d.flags = flags[f]; /* no validation layer here */
            if (!CHECK_OK(dmlops_context_create(&d, &c))) continue;
        }
        random_suite(c, "random_reverse_subsequences", names[f], 0x5EED0101ull + (uint64_t)f, gen_reverse, 300, "random_vulkan_forced_paths");
        random_suite(c, "random_slice1", names[f], 0x5EED0201ull + (uint64_t)f, gen_slice, 300, "random_vulkan_forced_paths");
        random_suite(c, "random_one_hot", names[f], 0x5EED0301ull + (uint64_t)f, gen_one_hot, 300, "random_vulkan_forced_paths");
        dmlops_context_info info;
        if (CHECK_OK(dmlops_context_get_info(c, &info)))
            CHECK(info.debug_message_count == 0, "%s context: the validation layer reported %u messages", names[f],
                  info.debug_message_count);
        dmlops_context_destroy(c);
    }
}

/* CPU only: the same random cases on contexts whose engine runs on one thread, and on
 * four threads with chunks of a few dozen bytes, so that nearly every case is split at
 * arbitrary points of its rows (chunks start at any element, mid-row and mid-sequence)
 * and its chunks run concurrently; then again with every output written by the
 * streaming-store loops (which align their heads and tails themselves). The outputs are strided, broadcast-free, padded and
 * interleaved as the generator makes them, and every unaddressed byte is checked. */
TEST_CTX(random_cpu_threads)
{
    (void)ctx;
    if (dmt_is_vulkan()) return;
    static const dmlops_context_options opts[3] = {
        {.cpu_threads = 1},
        {.cpu_threads = 4, .cpu_chunk_bytes = 48},
        {.cpu_threads = 4, .cpu_chunk_bytes = 48, .cpu_stream_bytes = 1},
    };
    static const char *const names[3] = {"1 thread", "4 threads, 48-byte chunks", "4 threads, streaming stores"};
    for (int k = 0; k < 3; k++) {
        dmlops_context *c = NULL;
        dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
        if (!CHECK_OK(dmlops_context_create_with_options(&d, &opts[k], &c))) continue;
        dmlops_context_info info;
        if (CHECK_OK(dmlops_context_get_info(c, &info)))
            CHECK(info.cpu_threads == opts[k].cpu_threads, "%s: cpu_threads %u", names[k], info.cpu_threads);
        random_suite(c, "random_reverse_subsequences", names[k], 0x5EED0501ull + (uint64_t)k, gen_reverse, 800, "random_cpu_threads");
        random_suite(c, "random_slice1", names[k], 0x5EED0601ull + (uint64_t)k, gen_slice, 800, "random_cpu_threads");
        random_suite(c, "random_one_hot", names[k], 0x5EED0701ull + (uint64_t)k, gen_one_hot, 800, "random_cpu_threads");
        dmlops_context_destroy(c);
    }
}

/* CPU only: tensors 300 times the usual budget (up to a few megabytes) on a context
 * with the default split size and four threads, so the measured split points are
 * crossed as in production; outputs above 64 KiB take the streaming-store loops, whose
 * unrolled bodies only long runs reach. */
TEST_CTX(random_cpu_threads_large)
{
    (void)ctx;
    if (dmt_is_vulkan()) return;
    dmlops_context_options opts = {.cpu_threads = 4, .cpu_stream_bytes = 64 << 10};
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
    dmlops_context *c = NULL;
    REQUIRE_OK(dmlops_context_create_with_options(&d, &opts, &c));
    budget_scale = 300;
    random_suite(c, "random_reverse_subsequences", "4 threads, large", 0x5EED0801ull, gen_reverse, 30, "random_cpu_threads_large");
    random_suite(c, "random_slice1", "4 threads, large", 0x5EED0802ull, gen_slice, 60, "random_cpu_threads_large");
    random_suite(c, "random_one_hot", "4 threads, large", 0x5EED0803ull, gen_one_hot, 30, "random_cpu_threads_large");
    budget_scale = 1;
    dmlops_context_destroy(c);
}

/* ======================================================================================
 * Targeted deterministic cases
 * ==================================================================================== */

/* Creates, fills (random bytes; `special` as in the random tests), runs and checks a
 * hand-built case. `fill` may then overwrite input elements. Leaves rc->got for the
 * caller's own checks; returns true when the reference check passed. */
typedef void (*fill_fn)(rcase *rc, void *user);

static bool run_fixed(dmlops_context *ctx, suite_state *st, rcase *rc, int case_no, uint64_t seed, fill_fn fill,
                      void *user)
{
    dmt_rng r = rng_from_seed(seed);
    if (!rc->nbuf) simple_bindings(rc, 16 * (1 + (uint64_t)(case_no % 3)));
    dmlops_operator *op = NULL;
    const char *err = create_op(ctx, rc, &op);
    if (err && !strcmp(err, "skip")) {
        st->skipped++;
        return true;
    }
    if (!err) {
        prepare_images(rc, &r, fill == NULL);
        if (fill) fill(rc, user);
        err = run_and_check(ctx, rc, op);
    }
    dmlops_operator_destroy(op);
    if (err) report_case(st, rc, case_no, seed, false, err);
    return err == NULL;
}

static void finish_targeted(const suite_state *st)
{
    CHECK(st->failed_cases == 0, "%s: %d targeted cases failed", st->test, st->failed_cases);
}

/* ---- sub-word outputs with padded strides, hand-checked --------------------------- */

static const uint32_t rev_lengths[4] = {0, 2, 5, 7};
static const uint32_t rev_src[4][5] = {{0, 1, 2, 3, 4}, {1, 0, 2, 3, 4}, {4, 3, 2, 1, 0}, {4, 3, 2, 1, 0}};

static uint64_t pattern(uint32_t r, uint32_t c, uint32_t esize)
{
    uint64_t v = (uint64_t)(r * 16 + c + 1);
    return esize == 1 ? v : v | ((v ^ 0xA5) << 8); /* both bytes of a 16-bit value distinct */
}

static void fill_rev_subword(rcase *rc, void *user)
{
    (void)user;
    uint32_t es = dmlops_data_type_size(rc->t[0].buf.DataType);
    for (uint32_t i = 0; i < 4; i++)
        for (uint32_t j = 0; j < 5; j++) put_elem(rc, 0, (uint32_t[]){i, j}, pattern(i, j, es));
    for (uint32_t i = 0; i < 4; i++) put_elem(rc, 1, (uint32_t[]){i, 0}, rev_lengths[i]);
}

static void fill_slice_subword(rcase *rc, void *user)
{
    (void)user;
    uint32_t es = dmlops_data_type_size(rc->t[0].buf.DataType);
    for (uint32_t i = 0; i < 6; i++)
        for (uint32_t j = 0; j < 7; j++) put_elem(rc, 0, (uint32_t[]){i, j}, pattern(i, j, es));
}

static const int32_t hot_idx[3] = {2, -1, 5};
static const int hot_pos[3] = {2, 4, -1};

static void fill_hot_subword(rcase *rc, void *user)
{
    (void)user;
    for (uint32_t i = 0; i < 3; i++) put_elem(rc, 0, (uint32_t[]){i, 0}, (uint64_t)(int64_t)hot_idx[i]);
    put_elem(rc, 1, (uint32_t[]){0, 0}, 0x3C11);
    put_elem(rc, 1, (uint32_t[]){0, 1}, 0xC322);
}

TEST_CTX(targeted_subword_padded_outputs)
{
    static const DML_TENSOR_DATA_TYPE types[] = {T_F16, T_I8, T_U8, T_I16, T_U16};
    suite_state st = {.test = "targeted_subword_padded_outputs"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    int no = 0;
    for (uint32_t ti = 0; ti < 5; ti++) {
        DML_TENSOR_DATA_TYPE ty = types[ti];
        uint32_t es = dmlops_data_type_size(ty);
        uint64_t mask = es == 1 ? 0xFF : 0xFFFF;
        /* REVERSE {4,5} axis 1; output elements two apart, rows 13 apart. */
        case_init(rc, DML_OPERATOR_REVERSE_SUBSEQUENCES);
        rc->axis = 1;
        dmt_tensor_init(&rc->t[0], ty, 2, (uint32_t[]){4, 5}, NULL, 0);
        dmt_tensor_init(&rc->t[1], T_U32, 2, (uint32_t[]){4, 1}, NULL, 0);
        dmt_tensor_init(&rc->t[2], ty, 2, (uint32_t[]){4, 5}, (uint32_t[]){13, 2}, 0);
        rc->layout[0] = rc->layout[1] = "packed-NULL";
        rc->layout[2] = "padded {13,2}";
        if (run_fixed(ctx, &st, rc, no, 0xA0 + ti, fill_rev_subword, NULL))
            for (uint32_t i = 0; i < 4; i++)
                for (uint32_t j = 0; j < 5; j++) {
                    uint64_t g = got_elem(rc, 2, (uint32_t[]){i, j}), e = pattern(i, rev_src[i][j], es) & mask;
                    CHECK(g == e, "%s REVERSE out[%u][%u] = 0x%" PRIx64 ", expected 0x%" PRIx64,
                          dmlops_data_type_name(ty), i, j, g, e);
                }
        case_free_images(rc);
        no++;
        /* SLICE1 {6,7} -> {4,3}: offsets {1,0}, window {4,7}, strides {-1,3}; output
         * transposed and padded: strides {2, 9}. */
        case_init(rc, DML_OPERATOR_SLICE1);
        memcpy(rc->win_off, (uint32_t[]){1, 0}, 8);
        memcpy(rc->win_size, (uint32_t[]){4, 7}, 8);
        memcpy(rc->win_stride, (int32_t[]){-1, 3}, 8);
        dmt_tensor_init(&rc->t[0], ty, 2, (uint32_t[]){6, 7}, NULL, 0);
        dmt_tensor_init(&rc->t[1], ty, 2, (uint32_t[]){4, 3}, (uint32_t[]){2, 9}, 0);
        rc->layout[0] = "packed-NULL";
        rc->layout[1] = "transposed padded {2,9}";
        if (run_fixed(ctx, &st, rc, no, 0xB0 + ti, fill_slice_subword, NULL))
            for (uint32_t i = 0; i < 4; i++)
                for (uint32_t j = 0; j < 3; j++) {
                    uint64_t g = got_elem(rc, 1, (uint32_t[]){i, j}), e = pattern(4 - i, 3 * j, es) & mask;
                    CHECK(g == e, "%s SLICE1 out[%u][%u] = 0x%" PRIx64 ", expected 0x%" PRIx64,
                          dmlops_data_type_name(ty), i, j, g, e);
                }
        case_free_images(rc);
        no++;
        /* ONE_HOT {3,5} axis 1, INT32 indices {2,-1,5}; output strides {12, 2}. */
        case_init(rc, DML_OPERATOR_ONE_HOT);
        rc->axis = 1;
        dmt_tensor_init(&rc->t[0], T_I32, 2, (uint32_t[]){3, 1}, NULL, 0);
        dmt_tensor_init(&rc->t[1], ty, 2, (uint32_t[]){1, 2}, NULL, 0);
        dmt_tensor_init(&rc->t[2], ty, 2, (uint32_t[]){3, 5}, (uint32_t[]){12, 2}, 0);
        rc->layout[0] = rc->layout[1] = "packed-NULL";
        rc->layout[2] = "padded {12,2}";
        if (run_fixed(ctx, &st, rc, no, 0xC0 + ti, fill_hot_subword, NULL))
            for (uint32_t i = 0; i < 3; i++)
                for (uint32_t j = 0; j < 5; j++) {
                    uint64_t g = got_elem(rc, 2, (uint32_t[]){i, j});
                    uint64_t e = ((int)j == hot_pos[i] ? 0xC322 : 0x3C11) & mask;
                    CHECK(g == e, "%s ONE_HOT out[%u][%u] = 0x%" PRIx64 ", expected 0x%" PRIx64,
                          dmlops_data_type_name(ty), i, j, g, e);
                }
        case_free_images(rc);
        no++;
    }
    free(rc);
    finish_targeted(&st);
}

/* ---- 1-D tensors, every type, odd sizes ------------------------------------------- */

static void fill_len_1d(rcase *rc, void *user)
{
    put_elem(rc, 1, (uint32_t[]){0}, *(const uint64_t *)user);
}

TEST_CTX(targeted_1d)
{
    static const uint32_t ns[] = {1, 2, 3, 7, 17, 33};
    suite_state st = {.test = "targeted_1d"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    int no = 0;
    for (uint32_t ti = 0; ti < 11; ti++) {
        DML_TENSOR_DATA_TYPE ty = all_types[ti];
        for (uint32_t ni = 0; ni < 6; ni++) {
            uint32_t n = ns[ni], ostride = 1 + (ni + ti) % 3;
            /* REVERSE with lengths 0, 1, n-1, n, n+1, huge. */
            uint64_t lens[6] = {0, 1, n - 1, n, n + 1, UINT64_MAX};
            for (uint32_t li = 0; li < 6; li++) {
                case_init(rc, DML_OPERATOR_REVERSE_SUBSEQUENCES);
                DML_TENSOR_DATA_TYPE lt = index_types[(li + ni) % 4];
                dmt_tensor_init(&rc->t[0], ty, 1, &n, NULL, 0);
                dmt_tensor_init(&rc->t[1], lt, 1, (uint32_t[]){1}, NULL, 0);
                dmt_tensor_init(&rc->t[2], ty, 1, &n, &ostride, 0);
                rc->layout[0] = rc->layout[1] = "packed-NULL";
                rc->layout[2] = "strided";
                run_fixed(ctx, &st, rc, no, 0x1D00 + (uint64_t)no, fill_len_1d, &lens[li]);
                case_free_images(rc);
                no++;
            }
            /* SLICE1: whole reversed, and every second element from 1. */
            for (uint32_t k = 0; k < 2; k++) {
                case_init(rc, DML_OPERATOR_SLICE1);
                uint32_t on = k == 0 ? n : (n > 1 ? 1 + (n - 2) / 2 : 1);
                rc->win_off[0] = k == 0 || n == 1 ? 0 : 1;
                rc->win_size[0] = k == 0 || n == 1 ? n : n - 1;
                rc->win_stride[0] = k == 0 ? -1 : 2;
                dmt_tensor_init(&rc->t[0], ty, 1, &n, NULL, 0);
                dmt_tensor_init(&rc->t[1], ty, 1, &on, &ostride, 0);
                rc->layout[0] = "packed-NULL";
                rc->layout[1] = "strided";
                run_fixed(ctx, &st, rc, no, 0x1D00 + (uint64_t)no, NULL, NULL);
                case_free_images(rc);
                no++;
            }
            /* ONE_HOT [n] axis 0, each index type, special indices. */
            for (uint32_t k = 0; k < 4; k++) {
                case_init(rc, DML_OPERATOR_ONE_HOT);
                dmt_tensor_init(&rc->t[0], index_types[k], 1, (uint32_t[]){1}, NULL, 0);
                dmt_tensor_init(&rc->t[1], ty, 1, (uint32_t[]){2}, NULL, 0);
                dmt_tensor_init(&rc->t[2], ty, 1, &n, &ostride, 0);
                rc->layout[0] = rc->layout[1] = "packed-NULL";
                rc->layout[2] = "strided";
                run_fixed(ctx, &st, rc, no, 0x1D00 + (uint64_t)no, NULL, NULL);
                case_free_images(rc);
                no++;
            }
        }
    }
    free(rc);
    finish_targeted(&st);
}

/* ---- rank 8, all sizes 2, every axis ---------------------------------------------- */

TEST_CTX(targeted_rank8_all_twos)
{
    suite_state st = {.test = "targeted_rank8_all_twos"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    const uint32_t twos[8] = {2, 2, 2, 2, 2, 2, 2, 2};
    uint32_t rev_padded[8], zeros[8] = {0};
    /* Reversed dimension order (dimension 0 innermost), one spare element per level. */
    for (uint32_t d = 0, s = 1; d < 8; d++, s = s * 2 + 1) rev_padded[d] = s;
    int no = 0;
    for (uint32_t axis = 0; axis < 8; axis++) {
        for (uint32_t lay = 0; lay < 2; lay++) {
            DML_TENSOR_DATA_TYPE ty = all_types[(axis * 2 + lay) % 11];
            const uint32_t *ostr = lay ? rev_padded : NULL;
            uint32_t lsz[8], lstr[8];
            memcpy(lsz, twos, sizeof lsz);
            lsz[axis] = 1;
            /* REVERSE: lengths broadcast (all strides 0) or packed with special values. */
            case_init(rc, DML_OPERATOR_REVERSE_SUBSEQUENCES);
            rc->axis = axis;
            memcpy(lstr, zeros, sizeof lstr);
            dmt_tensor_init(&rc->t[0], ty, 8, twos, lay ? NULL : rev_padded, 0);
            dmt_tensor_init(&rc->t[1], index_types[axis % 4], 8, lsz, lay ? lstr : NULL, 0);
            dmt_tensor_init(&rc->t[2], ty, 8, twos, ostr, 0);
            rc->layout[0] = lay ? "packed-NULL" : "reversed-padded";
            rc->layout[1] = lay ? "broadcast all-0" : "packed-NULL";
            rc->layout[2] = lay ? "reversed-padded" : "packed-NULL";
            run_fixed(ctx, &st, rc, no, 0x8800 + axis * 2 + lay, NULL, NULL);
            case_free_images(rc);
            no++;
            /* SLICE1: input {3,..} or 2s, reversed windows on alternate dimensions. */
            case_init(rc, DML_OPERATOR_SLICE1);
            uint32_t in8[8];
            for (uint32_t d = 0; d < 8; d++) {
                in8[d] = d == axis ? 3 : 2;
                rc->win_off[d] = d == axis && lay ? 1 : 0;
                rc->win_size[d] = 2;
                rc->win_stride[d] = (d + lay) % 2 ? -1 : 1;
            }
            dmt_tensor_init(&rc->t[0], ty, 8, in8, NULL, 0);
            dmt_tensor_init(&rc->t[1], ty, 8, twos, ostr, 0);
            rc->layout[0] = "packed-NULL";
            rc->layout[1] = lay ? "reversed-padded" : "packed-NULL";
            run_fixed(ctx, &st, rc, no, 0x8900 + axis * 2 + lay, NULL, NULL);
            case_free_images(rc);
            no++;
            /* ONE_HOT along axis. */
            case_init(rc, DML_OPERATOR_ONE_HOT);
            rc->axis = axis;
            uint32_t vsz[8] = {1, 1, 1, 1, 1, 1, 1, 1};
            vsz[7 - axis] = 2;
            dmt_tensor_init(&rc->t[0], index_types[(axis + lay) % 4], 8, lsz, NULL, 0);
            dmt_tensor_init(&rc->t[1], ty, 8, vsz, NULL, 0);
            dmt_tensor_init(&rc->t[2], ty, 8, twos, ostr, 0);
            rc->layout[0] = rc->layout[1] = "packed-NULL";
            rc->layout[2] = lay ? "reversed-padded" : "packed-NULL";
            run_fixed(ctx, &st, rc, no, 0x8A00 + axis * 2 + lay, NULL, NULL);
            case_free_images(rc);
            no++;
        }
    }
    free(rc);
    finish_targeted(&st);
}

/* ---- ONE_HOT extreme indices, hand-checked ---------------------------------------- */

typedef struct index_row {
    uint64_t bits;
    int pos; /* expected position for n = 5, -1 = all OffValue */
} index_row;

typedef struct index_table {
    DML_TENSOR_DATA_TYPE type;
    uint32_t count;
    index_row rows[16];
} index_table;

#define NEG(x) ((uint64_t)(-(int64_t)(x)))
static const index_table hot_tables[] = {
    {T_I64, 16, {{0, 0}, {4, 4}, {5, -1}, {NEG(1), 4}, {NEG(5), 0}, {NEG(6), -1}, {1ull << 63, -1},
                 {0x7FFFFFFFFFFFFFFFull, -1}, {1ull << 32, -1}, {(1ull << 32) + 1, -1}, {NEG(1ull << 32), -1},
                 {NEG(1ull << 32) + 1, -1}, {NEG((1ull << 32) - 1), -1}, {0xFFFFFFFFull, -1}, {2, 2}, {NEG(3), 2}}},
    {T_U64, 10, {{0, 0}, {4, 4}, {5, -1}, {UINT64_MAX, -1}, {1ull << 32, -1}, {(1ull << 32) + 2, -1},
                 {1ull << 63, -1}, {(1ull << 63) + 1, -1}, {0xFFFFFFFFull, -1}, {3, 3}}},
    {T_I32, 10, {{0, 0}, {4, 4}, {5, -1}, {0xFFFFFFFFu, 4}, {(uint32_t)-5, 0}, {(uint32_t)-6, -1},
                 {0x80000000u, -1}, {0x7FFFFFFFu, -1}, {(uint32_t)-3, 2}, {1, 1}}},
    {T_U32, 8, {{0, 0}, {4, 4}, {5, -1}, {0xFFFFFFFFu, -1}, {0x80000000u, -1}, {0x80000002u, -1}, {0xFFFFFFFBu, -1},
                {1, 1}}},
};

static void fill_hot_table(rcase *rc, void *user)
{
    const index_table *tb = user;
    for (uint32_t i = 0; i < tb->count; i++) {
        uint32_t c[2] = {rc->axis == 1 ? i : 0, rc->axis == 1 ? 0 : i};
        put_elem(rc, 0, c, tb->rows[i].bits);
    }
    put_elem(rc, 1, (uint32_t[]){0, 0}, 0xAAAAAAAAu);
    put_elem(rc, 1, (uint32_t[]){0, 1}, 0x55555555u);
}

TEST_CTX(targeted_one_hot_extreme_indices)
{
    suite_state st = {.test = "targeted_one_hot_extreme_indices"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    int no = 0;
    for (uint32_t t = 0; t < 4; t++) {
        const index_table *tb = &hot_tables[t];
        for (uint32_t axis = 0; axis < 2; axis++) {
            /* axis 1: out [m, 5], indices [m, 1]; axis 0: out [5, m], indices [1, m]. */
            uint32_t m = tb->count, osz[2] = {axis ? m : 5, axis ? 5 : m}, isz[2] = {axis ? m : 1, axis ? 1 : m};
            case_init(rc, DML_OPERATOR_ONE_HOT);
            rc->axis = axis;
            dmt_tensor_init(&rc->t[0], tb->type, 2, isz, NULL, 0);
            dmt_tensor_init(&rc->t[1], T_U32, 2, (uint32_t[]){1, 2}, NULL, 0);
            dmt_tensor_init(&rc->t[2], T_U32, 2, osz, axis ? NULL : (uint32_t[]){1, 7}, 0);
            rc->layout[0] = rc->layout[1] = "packed-NULL";
            rc->layout[2] = axis ? "packed-NULL" : "transposed {1,7}";
            if (run_fixed(ctx, &st, rc, no, 0x0E00 + no, fill_hot_table, (void *)tb))
                for (uint32_t i = 0; i < m; i++)
                    for (uint32_t j = 0; j < 5; j++) {
                        uint32_t c[2] = {axis ? i : j, axis ? j : i};
                        uint64_t g = got_elem(rc, 2, c), e = (int)j == tb->rows[i].pos ? 0x55555555u : 0xAAAAAAAAu;
                        CHECK(g == e, "%s index 0x%" PRIx64 " (axis %u): position %u holds 0x%" PRIx64
                              ", expected 0x%" PRIx64, dmlops_data_type_name(tb->type), tb->rows[i].bits, axis, j, g, e);
                    }
            case_free_images(rc);
            no++;
        }
    }
    /* Where OnValue comes from: Values {1,1,3,1} = [4,2,9] gives On 2 (spec example 3);
     * Values {2,3} packed: On at (0,1); Values {3,1} strides {5,1}: On at element 5;
     * Values {2,1} with stride 0 broadcast: On == Off. */
    static const uint32_t vs[4][4] = {{1, 1, 3, 1}, {1, 1, 2, 3}, {1, 1, 3, 1}, {1, 1, 2, 1}};
    static const uint32_t vstr[4][4] = {{0}, {0}, {9, 9, 5, 1}, {0, 0, 0, 0}};
    static const uint64_t on_elem[4] = {1, 1, 5, 0};
    for (uint32_t v = 0; v < 4; v++) {
        case_init(rc, DML_OPERATOR_ONE_HOT);
        rc->axis = 3;
        dmt_tensor_init(&rc->t[0], T_I32, 4, (uint32_t[]){1, 1, 3, 1}, NULL, 0);
        dmt_tensor_init(&rc->t[1], T_F32, 4, vs[v], v >= 2 ? vstr[v] : NULL, 0);
        dmt_tensor_init(&rc->t[2], T_F32, 4, (uint32_t[]){1, 1, 3, 4}, NULL, 0);
        rc->layout[0] = rc->layout[1] = rc->layout[2] = "fixed";
        dmlops_operator *op = NULL;
        simple_bindings(rc, 32);
        const char *err = create_op(ctx, rc, &op);
        if (!err) {
            dmt_rng r = rng_from_seed(0x0F00 + v);
            prepare_images(rc, &r, false);
            static const int32_t idx[3] = {0, 3, 2};
            for (uint32_t i = 0; i < 3; i++) put_elem(rc, 0, (uint32_t[]){0, 0, i, 0}, (uint32_t)idx[i]);
            ref_tensor vt = ref_tensor_of(&rc->t[1].buf);
            for (uint64_t e = 0; e < vt.count * 10 && e * 4 < rc->t[1].buf.TotalTensorSizeInBytes; e++) {
                float f = e == 0 ? 4.0f : e == on_elem[v] ? 2.0f : 9.0f;
                memcpy(rc->img[1] + rc->bind_off[1] + e * 4, &f, 4);
            }
            err = run_and_check(ctx, rc, op);
            if (!err)
                for (uint32_t i = 0; i < 3; i++)
                    for (uint32_t j = 0; j < 4; j++) {
                        uint32_t bitsv = (uint32_t)got_elem(rc, 2, (uint32_t[]){0, 0, i, j});
                        float g, e = (int32_t)j == idx[i] && on_elem[v] ? 2.0f : 4.0f;
                        memcpy(&g, &bitsv, 4);
                        CHECK(g == e, "values case %u: out[%u][%u] = %g, expected %g", v, i, j, (double)g, (double)e);
                    }
        }
        dmlops_operator_destroy(op);
        if (err && strcmp(err, "skip")) report_case(&st, rc, no, 0, false, err);
        case_free_images(rc);
        no++;
    }
    free(rc);
    finish_targeted(&st);
}

/* ---- REVERSE_SUBSEQUENCES extreme lengths, hand-checked -------------------------- */

typedef struct length_table {
    DML_TENSOR_DATA_TYPE type;
    uint32_t count;
    uint64_t bits[8];
    uint32_t len[8]; /* expected effective length for n = 6 */
} length_table;

static const length_table len_tables[] = {
    {T_U64, 8, {0, 1, 6, 7, (1ull << 32) + 2, UINT64_MAX, 1ull << 63, 3}, {0, 1, 6, 6, 6, 6, 6, 3}},
    {T_I64, 7, {NEG(1), 1ull << 63, NEG(1ull << 32) + 2, (1ull << 32) + 2, 0x7FFFFFFFFFFFFFFFull, 4, 0xFFFFFFFFull},
     {0, 0, 0, 6, 6, 4, 6}},
    {T_I32, 6, {0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 5, 0, 0xFFFFFFFEu}, {0, 0, 6, 5, 0, 0}},
    {T_U32, 6, {0x80000000u, 0xFFFFFFFFu, 2, 0, 6, 7}, {6, 6, 2, 0, 6, 6}},
};

static void fill_len_table(rcase *rc, void *user)
{
    const length_table *tb = user;
    for (uint32_t i = 0; i < tb->count; i++) {
        uint32_t c[2] = {rc->axis == 1 ? i : 0, rc->axis == 1 ? 0 : i};
        put_elem(rc, 1, c, tb->bits[i]);
        for (uint32_t j = 0; j < 6; j++) {
            uint32_t ic[2] = {rc->axis == 1 ? i : j, rc->axis == 1 ? j : i};
            put_elem(rc, 0, ic, 1000 * i + j);
        }
    }
}

TEST_CTX(targeted_reverse_extreme_lengths)
{
    suite_state st = {.test = "targeted_reverse_extreme_lengths"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    int no = 0;
    for (uint32_t t = 0; t < 4; t++) {
        const length_table *tb = &len_tables[t];
        for (uint32_t axis = 0; axis < 2; axis++) {
            uint32_t m = tb->count, isz[2] = {axis ? m : 6, axis ? 6 : m}, lsz[2] = {axis ? m : 1, axis ? 1 : m};
            case_init(rc, DML_OPERATOR_REVERSE_SUBSEQUENCES);
            rc->axis = axis;
            dmt_tensor_init(&rc->t[0], T_I32, 2, isz, NULL, 0);
            dmt_tensor_init(&rc->t[1], tb->type, 2, lsz, NULL, 0);
            dmt_tensor_init(&rc->t[2], T_I32, 2, isz, axis ? (uint32_t[]){1, 11} : (uint32_t[]){17, 2}, 0);
            rc->layout[0] = rc->layout[1] = "packed-NULL";
            rc->layout[2] = axis ? "transposed {1,11}" : "padded {17,2}";
            if (run_fixed(ctx, &st, rc, no, 0x1E00 + no, fill_len_table, (void *)tb))
                for (uint32_t i = 0; i < m; i++)
                    for (uint32_t j = 0; j < 6; j++) {
                        uint32_t c[2] = {axis ? i : j, axis ? j : i}, L = tb->len[i];
                        uint64_t g = got_elem(rc, 2, c), e = 1000 * i + (j < L ? L - 1 - j : j);
                        CHECK(g == e, "%s length 0x%" PRIx64 " (axis %u): element %u = %" PRIu64 ", expected %" PRIu64,
                              dmlops_data_type_name(tb->type), tb->bits[i], axis, j, g, e);
                    }
            case_free_images(rc);
            no++;
        }
    }
    free(rc);
    finish_targeted(&st);
}

/* ---- SLICE1 extreme window strides, hand-checked ---------------------------------- */

typedef struct slice_fixed {
    uint32_t off[2], ws[2];
    int32_t str[2];
    uint32_t out[2];
    uint32_t rows[9], cols[9]; /* expected input coordinates per output coordinate */
} slice_fixed;

static const slice_fixed slice_cases[] = {
    {{0, 0}, {5, 9}, {INT32_MIN, 1}, {1, 9}, {4}, {0, 1, 2, 3, 4, 5, 6, 7, 8}}, /* start row 4 */
    {{0, 0}, {5, 9}, {INT32_MAX, -INT32_MAX}, {1, 1}, {0}, {8}},
    {{1, 2}, {4, 7}, {-3, 4}, {2, 2}, {4, 1}, {2, 6}},
    {{2, 3}, {1, 1}, {-1, INT32_MIN}, {1, 1}, {2}, {3}},
    {{0, 1}, {4, 3}, {-2, 2}, {2, 2}, {3, 1}, {1, 3}}, /* the spec's second SLICE1 example, 2-D */
};

static void fill_slice_fixed(rcase *rc, void *user)
{
    (void)user;
    for (uint32_t i = 0; i < 5; i++)
        for (uint32_t j = 0; j < 9; j++) put_elem(rc, 0, (uint32_t[]){i, j}, 100 * i + j);
}

TEST_CTX(targeted_slice_extreme_strides)
{
    suite_state st = {.test = "targeted_slice_extreme_strides"};
    rcase *rc = malloc(sizeof *rc);
    REQUIRE(rc != NULL);
    int no = 0;
    for (uint32_t k = 0; k < sizeof slice_cases / sizeof slice_cases[0]; k++) {
        const slice_fixed *sc = &slice_cases[k];
        for (uint32_t ti = 0; ti < 2; ti++) {
            DML_TENSOR_DATA_TYPE ty = ti ? T_I64 : T_U16;
            case_init(rc, DML_OPERATOR_SLICE1);
            memcpy(rc->win_off, sc->off, 8);
            memcpy(rc->win_size, sc->ws, 8);
            memcpy(rc->win_stride, sc->str, 8);
            uint32_t ostr[2] = {1, sc->out[0] + 1}; /* transposed, padded */
            dmt_tensor_init(&rc->t[0], ty, 2, (uint32_t[]){5, 9}, NULL, 0);
            dmt_tensor_init(&rc->t[1], ty, 2, sc->out, ostr, 0);
            rc->layout[0] = "packed-NULL";
            rc->layout[1] = "transposed padded";
            if (run_fixed(ctx, &st, rc, no, 0x5100 + no, fill_slice_fixed, NULL))
                for (uint32_t i = 0; i < sc->out[0]; i++)
                    for (uint32_t j = 0; j < sc->out[1]; j++) {
                        uint64_t g = got_elem(rc, 1, (uint32_t[]){i, j}), e = 100 * sc->rows[i] + sc->cols[j];
                        CHECK(g == e, "slice case %u %s: out[%u][%u] = %" PRIu64 ", expected %" PRIu64, k,
                              dmlops_data_type_name(ty), i, j, g, e);
                    }
            case_free_images(rc);
            no++;
        }
    }
    free(rc);
    finish_targeted(&st);
}
