/* The standard suite of dmlops bench: families of 2-D cases at several sizes and element
 * types. The six headline cases (docs/performance.md) are the 64 MiB members of the
 * families marked headline; each case is built once, in place. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench.h"
#include "../cli/scalar.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)

#define T_U8 DML_TENSOR_DATA_TYPE_UINT8
#define T_F16 DML_TENSOR_DATA_TYPE_FLOAT16
#define T_F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define T_F64 DML_TENSOR_DATA_TYPE_FLOAT64
#define T_U32 DML_TENSOR_DATA_TYPE_UINT32

typedef enum shape_kind { SHAPE_REV_INNER, SHAPE_REV_OUTER, SHAPE_REV_RAGGED, SHAPE_SLICE_COLS, SHAPE_SLICE_STEP2, SHAPE_SLICE_FLIP,
                          SHAPE_HOT } shape_kind;

typedef struct family_def {
    bench_family f;
    shape_kind shape;
    uint32_t depth; /* ONE_HOT */
} family_def;

#define BIT(t) (1u << (t))
static const family_def families[] = {
    {{DML_OPERATOR_REVERSE_SUBSEQUENCES, "axis=inner", "[R, C] along axis 1, lengths C - r % 7",
      BIT(T_F32) | BIT(T_U8)}, SHAPE_REV_INNER, 0},
    {{DML_OPERATOR_REVERSE_SUBSEQUENCES, "axis=outer", "[16, C] along axis 0, every sequence whole", BIT(T_F32)},
     SHAPE_REV_OUTER, 0},
    /* A batch of sequences of different lengths, as ONNX's ReverseSequence takes them
     * ([T, B], batch axis 1): neighbouring columns turn at different rows, so no column
     * run is a plain copy. */
    {{DML_OPERATOR_REVERSE_SUBSEQUENCES, "ragged", "[16, C] along axis 0, lengths 7c % 17", 0},
     SHAPE_REV_RAGGED, 0},
    {{DML_OPERATOR_SLICE1, "stride=1", "columns C/4 .. 3C/4 of [R, C]", BIT(T_F32)}, SHAPE_SLICE_COLS, 0},
    {{DML_OPERATOR_SLICE1, "rows=-1,stride=2", "[R, C], rows reversed, every second column", BIT(T_F32)},
     SHAPE_SLICE_STEP2, 0},
    {{DML_OPERATOR_SLICE1, "stride=-1", "[R, C], columns reversed", 0}, SHAPE_SLICE_FLIP, 0},
    {{DML_OPERATOR_ONE_HOT, "depth=1024", "R UINT32 indices into [R, 1024], axis 1", BIT(T_F32)}, SHAPE_HOT, 1024},
    {{DML_OPERATOR_ONE_HOT, "depth=16", "R UINT32 indices into [R, 16], axis 1", 0}, SHAPE_HOT, 16},
};
#define FAMILY_COUNT (sizeof families / sizeof families[0])

/* Sizes and the types run at each: every element size from 16 MiB up (what the per-byte
 * comparisons of element sizes need), FLOAT32 alone below. 256 MiB (--large) is for
 * GPUs: on a software device one such run can take a minute. */
static const DML_TENSOR_DATA_TYPE all_types[] = {T_U8, T_F16, T_F32, T_F64};
static const DML_TENSOR_DATA_TYPE f32_only[] = {T_F32};
static const DML_TENSOR_DATA_TYPE quick_types[] = {T_U8, T_F32};
typedef struct size_row {
    uint64_t bytes;
    const DML_TENSOR_DATA_TYPE *types;
    size_t ntypes;
} size_row;
#define ROW(b, t) {b, t, sizeof t / sizeof t[0]}
static const size_row full_rows[] = {ROW(4 * KiB, f32_only),  ROW(64 * KiB, f32_only), ROW(1 * MiB, f32_only),
                                     ROW(16 * MiB, all_types), ROW(64 * MiB, all_types)};
static const size_row large_row = ROW(256 * MiB, f32_only);
static const size_row quick_rows[] = {ROW(4 * KiB, quick_types), ROW(64 * KiB, quick_types)};
#define HEADLINE_BYTES (64 * MiB)

/* The largest power of two whose square is at most n: rows and columns of a square-ish
 * 2-D tensor ([4096, 4096] for 16 Mi elements). */
static uint32_t square_side(uint64_t n)
{
    uint32_t c = 1;
    while ((uint64_t)c * c * 4 <= n) c *= 2;
    return c;
}

static void set2(uint32_t *s, uint64_t a, uint64_t b)
{
    s[0] = (uint32_t)a;
    s[1] = (uint32_t)b;
}

/* False when the size is too small for the family (ONE_HOT deeper than the tensor).
 * Square-ish layouts take their row length from shape_bytes (tensor_bytes but for the
 * access model's cases, which keep the rows of a larger size). */
static bool build_case(const family_def *fd, DML_TENSOR_DATA_TYPE type, uint64_t tensor_bytes, uint64_t shape_bytes,
                       bench_case *c)
{
    const uint64_t n = tensor_bytes / dmlops_data_type_size(type);
    const uint32_t side = square_side(shape_bytes / dmlops_data_type_size(type));
    if (side > n) return false;
    DML_TENSOR_DATA_TYPE tt[3] = {type, type, type};
    memset(c, 0, sizeof *c);
    c->fam = &fd->f;
    c->type = type;
    c->tensor_bytes = tensor_bytes;
    c->ninputs = fd->f.op == DML_OPERATOR_SLICE1 ? 1 : 2;
    switch (fd->shape) {
    case SHAPE_REV_INNER:
    case SHAPE_REV_OUTER:
    case SHAPE_REV_RAGGED:
        c->ragged = fd->shape == SHAPE_REV_RAGGED;
        c->cols = fd->shape == SHAPE_REV_INNER ? side : (uint32_t)(n < 16 ? 1 : n / 16);
        c->rows = (uint32_t)(n / c->cols);
        tt[1] = T_U32;
        set2(c->sizes[0], c->rows, c->cols);
        if (fd->shape == SHAPE_REV_INNER) set2(c->sizes[1], c->rows, 1);
        else set2(c->sizes[1], 1, c->cols);
        memcpy(c->sizes[2], c->sizes[0], sizeof c->sizes[0]);
        break;
    case SHAPE_SLICE_COLS:
    case SHAPE_SLICE_STEP2:
    case SHAPE_SLICE_FLIP: {
        c->cols = side;
        c->rows = (uint32_t)(n / c->cols);
        uint32_t w = fd->shape == SHAPE_SLICE_COLS ? c->cols / 2 : c->cols;
        c->offsets[1] = fd->shape == SHAPE_SLICE_COLS ? c->cols / 4 : 0;
        set2(c->window, c->rows, w);
        c->strides[0] = fd->shape == SHAPE_SLICE_STEP2 ? -1 : 1;
        c->strides[1] = fd->shape == SHAPE_SLICE_STEP2 ? 2 : fd->shape == SHAPE_SLICE_FLIP ? -1 : 1;
        set2(c->sizes[0], c->rows, c->cols);
        set2(c->sizes[1], c->rows, fd->shape == SHAPE_SLICE_STEP2 ? w / 2 : w);
        break;
    }
    case SHAPE_HOT:
        if (n < fd->depth) return false;
        c->cols = fd->depth;
        c->rows = (uint32_t)(n / fd->depth);
        tt[0] = T_U32;
        set2(c->sizes[0], c->rows, 1);
        set2(c->sizes[1], 1, 2);
        set2(c->sizes[2], c->rows, c->cols);
        break;
    }
    const DML_TENSOR_DESC *d[3];
    for (uint32_t i = 0; i <= c->ninputs; i++) {
        c->bt[i] = (DML_BUFFER_TENSOR_DESC){tt[i], DML_TENSOR_FLAG_NONE, 2, c->sizes[i], NULL,
                                            dmlops_calc_buffer_tensor_size(tt[i], 2, c->sizes[i], NULL), 0};
        c->td[i] = (DML_TENSOR_DESC){DML_TENSOR_TYPE_BUFFER, &c->bt[i]};
        d[i] = &c->td[i];
    }
    if (fd->f.op == DML_OPERATOR_REVERSE_SUBSEQUENCES)
        c->u.rev = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){d[0], d[1], d[2], fd->shape == SHAPE_REV_INNER ? 1u : 0u};
    else if (fd->f.op == DML_OPERATOR_SLICE1)
        c->u.slice = (DML_SLICE1_OPERATOR_DESC){d[0], d[1], 2, c->offsets, c->window, c->strides};
    else
        c->u.hot = (DML_ONE_HOT_OPERATOR_DESC){d[0], d[1], d[2], 1};
    c->desc = (DML_OPERATOR_DESC){fd->f.op, &c->u};
    char sz[32];
    snprintf(c->label, sizeof c->label, "%s %s %s %s", dmlops_operator_type_name(fd->f.op), fd->f.variant,
             dmlops_data_type_name(type), cli_bytes(tensor_bytes, sz));
    return true;
}

bool bench_case_is_headline(const bench_case *c)
{
    return c->tensor_bytes == HEADLINE_BYTES && (c->fam->headline_types & BIT(c->type));
}

static size_t add_row(const size_row *row, const char *filter, bench_case *out, size_t n)
{
    for (size_t f = 0; f < FAMILY_COUNT; f++)
        for (size_t t = 0; t < row->ntypes; t++) {
            bench_case *c = &out[n];
            if (build_case(&families[f], row->types[t], row->bytes, row->bytes, c) &&
                (!filter || strcasestr(c->label, filter)))
                n++;
        }
    return n;
}

bench_case *bench_suite(bool quick, bool large, const char *filter, size_t *count)
{
    const size_row *rows = quick ? quick_rows : full_rows;
    size_t nrows = quick ? sizeof quick_rows / sizeof quick_rows[0] : sizeof full_rows / sizeof full_rows[0];
    size_t cap = FAMILY_COUNT * (nrows + 1) * (sizeof all_types / sizeof all_types[0]);
    bench_case *cases = calloc(cap, sizeof *cases);
    if (!cases) return NULL;
    size_t n = 0;
    for (size_t r = 0; r < nrows; r++) n = add_row(&rows[r], filter, cases, n);
    if (large && !quick) n = add_row(&large_row, filter, cases, n);
    *count = n;
    return cases;
}

bench_case *bench_model_suite(uint64_t model_bytes, const char *filter, size_t *count)
{
    const size_t ntypes = sizeof all_types / sizeof all_types[0];
    bench_case *cases = calloc(FAMILY_COUNT * ntypes, sizeof *cases);
    if (!cases) return NULL;
    size_t n = 0;
    for (size_t f = 0; f < FAMILY_COUNT; f++)
        for (size_t t = 0; t < ntypes; t++)
            if (build_case(&families[f], all_types[t], model_bytes, HEADLINE_BYTES, &cases[n]) &&
                (!filter || strcasestr(cases[n].label, filter)))
                n++;
    *count = n;
    return cases;
}

void bench_input(const bench_case *c, uint32_t i, uint8_t *dst, uint64_t bytes)
{
    uint32_t *u = (uint32_t *)(void *)dst;
    const DML_OPERATOR_TYPE op = c->fam->op;
    if (op == DML_OPERATOR_REVERSE_SUBSEQUENCES && i == 1) {
        bool inner = c->u.rev.Axis == 1;
        for (uint64_t k = 0; k < bytes / 4; k++)
            u[k] = inner ? (uint32_t)(c->cols - k % 7) : c->ragged ? (uint32_t)(k * 7 % (c->rows + 1)) : c->rows;
    } else if (op == DML_OPERATOR_ONE_HOT && i == 0) {
        for (uint64_t k = 0; k < bytes / 4; k++) u[k] = (uint32_t)((k * 7 + 3) % c->cols);
    } else if (op == DML_OPERATOR_ONE_HOT && i == 1) {
        uint32_t es = dmlops_data_type_size(c->type);
        memset(dst, 0, (size_t)bytes);
        scalar_from_double(c->type, 0, dst);
        scalar_from_double(c->type, 1, dst + es);
    } else {
        for (uint64_t k = 0; k < bytes; k++) dst[k] = (uint8_t)(k * 131 + 7);
    }
}

static const char *numpy_dtype(DML_TENSOR_DATA_TYPE t)
{
    switch (t) {
    case T_U8: return "uint8";
    case T_F16: return "float16";
    case T_F64: return "float64";
    default: return "float32";
    }
}

bool bench_write_cases_json(const bench_case *cases, size_t count, FILE *f)
{
    fprintf(f, "[\n");
    for (size_t i = 0; i < count; i++) {
        const bench_case *c = &cases[i];
        fprintf(f, "  {\"index\": %zu, \"label\": \"%s\", \"op\": \"%s\", \"dtype\": \"%s\", \"rows\": %u, "
                   "\"cols\": %u",
                i, c->label, dmlops_operator_type_name(c->fam->op), numpy_dtype(c->type), c->rows, c->cols);
        if (c->fam->op == DML_OPERATOR_REVERSE_SUBSEQUENCES)
            fprintf(f, ", \"axis\": %u, \"ragged\": %s", c->u.rev.Axis, c->ragged ? "true" : "false");
        if (c->fam->op == DML_OPERATOR_SLICE1)
            fprintf(f, ", \"offsets\": [%u, %u], \"sizes\": [%u, %u], \"strides\": [%d, %d]", c->offsets[0],
                    c->offsets[1], c->window[0], c->window[1], c->strides[0], c->strides[1]);
        fprintf(f, "}%s\n", i + 1 < count ? "," : "");
    }
    fprintf(f, "]\n");
    return !ferror(f);
}
