/* The standard cases the report compiles (isa.h): the eight families of `dmlops bench`
 * (src/cli/bench_cases.c, whose shapes these repeat; the bench owns the data, the report
 * only the layouts), each at every element type. Only the operator's layout reaches the
 * kernel's choice and code, never the data: REVERSE ragged, whose lengths differ per
 * column, has outer's descriptor and so compiles outer's pipeline. */
#include <string.h>

#include "isa.h"

typedef enum isa_shape { REV_INNER, REV_OUTER, REV_RAGGED, SLICE_COLS, SLICE_STEP2, SLICE_FLIP, HOT } isa_shape;

static const struct {
    const char *name; /* as the bench labels the family */
    isa_shape shape;
    uint32_t depth;   /* ONE_HOT */
} families[] = {
    {"REVERSE axis=inner", REV_INNER, 0},  {"REVERSE axis=outer", REV_OUTER, 0},
    {"REVERSE ragged", REV_RAGGED, 0},     {"SLICE1 stride=1", SLICE_COLS, 0},
    {"SLICE1 rows=-1,stride=2", SLICE_STEP2, 0}, {"SLICE1 stride=-1", SLICE_FLIP, 0},
    {"ONE_HOT depth=1024", HOT, 1024},     {"ONE_HOT depth=16", HOT, 16},
};
#define FAMILIES (sizeof families / sizeof families[0])
static const DML_TENSOR_DATA_TYPE types[] = {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_FLOAT16,
                                             DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT64};
#define TYPES (sizeof types / sizeof types[0])

uint32_t isa_case_count(void) { return (uint32_t)(FAMILIES * TYPES); }

/* The largest power of two whose square is at most n / 4, as the bench squares its 2-D
 * tensors ([8192, 8192] UINT8 at 64 MiB). */
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

bool isa_case_make(uint32_t i, uint64_t bytes, isa_case *c)
{
    if (i >= isa_case_count()) return false;
    const isa_shape shape = families[i / TYPES].shape;
    const uint32_t depth = families[i / TYPES].depth;
    const DML_TENSOR_DATA_TYPE type = types[i % TYPES];
    const uint64_t n = bytes / dmlops_data_type_size(type);
    DML_TENSOR_DATA_TYPE tt[3] = {type, type, type};
    DML_OPERATOR_TYPE op = DML_OPERATOR_SLICE1;
    uint32_t ninputs = 1, rows, cols;
    memset(c, 0, sizeof *c);
    snprintf(c->label, sizeof c->label, "%s %s", families[i / TYPES].name, dmlops_data_type_name(type));
    switch (shape) {
    case REV_INNER:
    case REV_OUTER:
    case REV_RAGGED:
        op = DML_OPERATOR_REVERSE_SUBSEQUENCES;
        ninputs = 2;
        cols = shape == REV_INNER ? square_side(n) : (uint32_t)(n / 16);
        rows = (uint32_t)(n / cols);
        tt[1] = DML_TENSOR_DATA_TYPE_UINT32;
        set2(c->sizes[0], rows, cols);
        if (shape == REV_INNER) set2(c->sizes[1], rows, 1);
        else set2(c->sizes[1], 1, cols);
        set2(c->sizes[2], rows, cols);
        break;
    case SLICE_COLS:
    case SLICE_STEP2:
    case SLICE_FLIP: {
        cols = square_side(n);
        rows = (uint32_t)(n / cols);
        const uint32_t w = shape == SLICE_COLS ? cols / 2 : cols;
        c->offsets[1] = shape == SLICE_COLS ? cols / 4 : 0;
        set2(c->window, rows, w);
        c->strides[0] = shape == SLICE_STEP2 ? -1 : 1;
        c->strides[1] = shape == SLICE_STEP2 ? 2 : shape == SLICE_FLIP ? -1 : 1;
        set2(c->sizes[0], rows, cols);
        set2(c->sizes[1], rows, shape == SLICE_STEP2 ? w / 2 : w);
        break;
    }
    case HOT:
        op = DML_OPERATOR_ONE_HOT;
        ninputs = 2;
        rows = (uint32_t)(n / depth);
        tt[0] = DML_TENSOR_DATA_TYPE_UINT32;
        set2(c->sizes[0], rows, 1);
        set2(c->sizes[1], 1, 2);
        set2(c->sizes[2], rows, depth);
        break;
    }
    const DML_TENSOR_DESC *d[3];
    for (uint32_t t = 0; t <= ninputs; t++) {
        c->bt[t] = (DML_BUFFER_TENSOR_DESC){tt[t], DML_TENSOR_FLAG_NONE, 2, c->sizes[t], NULL,
                                            dmlops_calc_buffer_tensor_size(tt[t], 2, c->sizes[t], NULL), 0};
        c->td[t] = (DML_TENSOR_DESC){DML_TENSOR_TYPE_BUFFER, &c->bt[t]};
        d[t] = &c->td[t];
    }
    if (op == DML_OPERATOR_REVERSE_SUBSEQUENCES)
        c->u.rev = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){d[0], d[1], d[2], shape == REV_INNER ? 1u : 0u};
    else if (op == DML_OPERATOR_SLICE1)
        c->u.slice = (DML_SLICE1_OPERATOR_DESC){d[0], d[1], 2, c->offsets, c->window, c->strides};
    else
        c->u.hot = (DML_ONE_HOT_OPERATOR_DESC){d[0], d[1], d[2], 1};
    c->desc = (DML_OPERATOR_DESC){op, &c->u};
    return true;
}
