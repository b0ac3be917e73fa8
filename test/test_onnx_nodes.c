/* ONNX's own node tests for Slice, ReverseSequence and OneHot, as Debian's libonnx-testdata
 * installs them (/usr/share/libonnx-testdata/data/node/test_<name>/: model.onnx, a graph of
 * one node, and test_data_set_N/input_K.pb, output_0.pb, serialized TensorProtos), run
 * through the dmlops_onnx_* helpers and the normal API on every backend and compared bit
 * for bit with ONNX's expected outputs.
 *
 * The files are read with a minimal protobuf wire-format decoder written here, for the
 * fields these tests use (ModelProto.graph and opset_import, GraphProto.node, initializer,
 * input and output, NodeProto, AttributeProto, TensorProto with raw_data or typed data):
 * the library has no protobuf dependency, and neither has this test.
 *
 * Inputs that are not constants in the graph (Slice-10's starts and ends, OneHot's depth) are
 * constant per test case: they are read from the data set's input files, as an engine would
 * read constant-folded tensors. OneHot's tests hold FLOAT32 indices and depth: the helper
 * must refuse the indices, naming the cast to make, which this test then makes (to INT64,
 * as ONNX says non-integer indices are cast).
 *
 * DMLOPS_ONNX_TESTDATA names another node directory; DMLOPS_ONNX_TESTDATA=skip skips the
 * suite, saying so. Otherwise a missing directory fails: .ci/deps.sh test installs the
 * package, so `make test` always has it. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>

#include "onnx_run.h"

#define DEFAULT_DIR "/usr/share/libonnx-testdata/data/node"
#define NAME_MAX_LEN 128
#define MAX_IO 8
#define MAX_ATTRS 8
#define MAX_TESTS 64

/* The node tests of these operators in libonnx-testdata 1.12 (Debian 12): each must be found. */
static const char *const known_tests[] = {
    "test_onehot_negative_indices", "test_onehot_with_axis", "test_onehot_with_negative_axis",
    "test_onehot_without_axis", "test_reversesequence_batch", "test_reversesequence_time", "test_slice",
    "test_slice_default_axes", "test_slice_default_steps", "test_slice_end_out_of_bounds", "test_slice_neg",
    "test_slice_neg_steps", "test_slice_negative_axes", "test_slice_start_out_of_bounds"};
#define KNOWN_TESTS (sizeof known_tests / sizeof known_tests[0])

/* ---- the protobuf wire format ---------------------------------------------------------- */

typedef struct pb {
    const uint8_t *p, *end;
} pb;

static bool pb_varint(pb *b, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64 && b->p < b->end; shift += 7) {
        const uint8_t byte = *b->p++;
        *v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return true;
    }
    return false;
}

/* The next field's number and wire type; false at the end or on a bad tag. */
static bool pb_tag(pb *b, uint32_t *field, uint32_t *wire)
{
    uint64_t tag;
    if (b->p >= b->end || !pb_varint(b, &tag)) return false;
    *field = (uint32_t)(tag >> 3);
    *wire = (uint32_t)(tag & 7);
    return *field != 0;
}

/* A length-delimited field's bytes as a reader of their own. */
static bool pb_sub(pb *b, pb *sub)
{
    uint64_t n;
    if (!pb_varint(b, &n) || n > (uint64_t)(b->end - b->p)) return false;
    *sub = (pb){b->p, b->p + n};
    b->p += n;
    return true;
}

static bool pb_skip(pb *b, uint32_t wire)
{
    uint64_t v;
    pb sub;
    switch (wire) {
    case 0: return pb_varint(b, &v);
    case 1: return b->end - b->p >= 8 && (b->p += 8, true);
    case 2: return pb_sub(b, &sub);
    case 5: return b->end - b->p >= 4 && (b->p += 4, true);
    default: return false;
    }
}

static bool pb_string(pb *b, char *out, size_t len)
{
    pb s;
    if (!pb_sub(b, &s) || (size_t)(s.end - s.p) >= len) return false;
    memcpy(out, s.p, (size_t)(s.end - s.p));
    out[s.end - s.p] = '\0';
    return true;
}

/* Each value of a repeated scalar field, packed (wire 2) or not: varints, or fixed 4 or 8
 * bytes (fixed = 4 or 8). */
typedef bool (*pb_value_fn)(void *ctx, uint64_t v);
static bool pb_repeated(pb *b, uint32_t wire, unsigned fixed, pb_value_fn fn, void *ctx)
{
    pb s = *b;
    bool packed = wire == 2;
    if (packed && !pb_sub(b, &s)) return false;
    do {
        uint64_t v = 0;
        if (fixed) {
            if (s.end - s.p < (ptrdiff_t)fixed) return false;
            memcpy(&v, s.p, fixed); /* little-endian hosts only, as the library's tests are */
            s.p += fixed;
        } else if (!pb_varint(&s, &v)) {
            return false;
        }
        if (!fn(ctx, v)) return false;
    } while (packed && s.p < s.end);
    if (!packed) *b = s;
    return true;
}

/* ---- TensorProto ------------------------------------------------------------------------ */

/* TensorProto.DataType and the DirectML type its elements are read as. */
enum { ONNX_FLOAT = 1, ONNX_UINT8, ONNX_INT8, ONNX_UINT16, ONNX_INT16, ONNX_INT32, ONNX_INT64, ONNX_STRING,
       ONNX_BOOL, ONNX_FLOAT16, ONNX_DOUBLE, ONNX_UINT32, ONNX_UINT64 };

static DML_TENSOR_DATA_TYPE dml_type_of(int32_t onnx)
{
    static const DML_TENSOR_DATA_TYPE map[] = {
        [ONNX_FLOAT] = DML_TENSOR_DATA_TYPE_FLOAT32,   [ONNX_UINT8] = DML_TENSOR_DATA_TYPE_UINT8,
        [ONNX_INT8] = DML_TENSOR_DATA_TYPE_INT8,       [ONNX_UINT16] = DML_TENSOR_DATA_TYPE_UINT16,
        [ONNX_INT16] = DML_TENSOR_DATA_TYPE_INT16,     [ONNX_INT32] = DML_TENSOR_DATA_TYPE_INT32,
        [ONNX_INT64] = DML_TENSOR_DATA_TYPE_INT64,     [ONNX_BOOL] = DML_TENSOR_DATA_TYPE_UINT8,
        [ONNX_FLOAT16] = DML_TENSOR_DATA_TYPE_FLOAT16, [ONNX_DOUBLE] = DML_TENSOR_DATA_TYPE_FLOAT64,
        [ONNX_UINT32] = DML_TENSOR_DATA_TYPE_UINT32,   [ONNX_UINT64] = DML_TENSOR_DATA_TYPE_UINT64};
    return onnx > 0 && onnx <= ONNX_UINT64 ? map[onnx] : DML_TENSOR_DATA_TYPE_UNKNOWN;
}

typedef struct tensor {
    char name[NAME_MAX_LEN];
    int32_t onnx_type;
    DML_TENSOR_DATA_TYPE type;
    uint32_t rank;
    int64_t dims[MAXR];
    uint8_t *data; /* the elements, little-endian, as raw_data holds them */
    uint64_t bytes, cap;
} tensor;

static bool tensor_dim(void *ctx, uint64_t v)
{
    tensor *t = ctx;
    if (t->rank >= MAXR) return false;
    t->dims[t->rank++] = (int64_t)v;
    return true;
}

static bool tensor_grow(tensor *t, uint64_t extra)
{
    if (t->bytes + extra <= t->cap) return true;
    uint64_t cap = t->cap ? t->cap * 2 : 64;
    while (cap < t->bytes + extra) cap *= 2;
    uint8_t *p = realloc(t->data, (size_t)cap);
    if (!p) return false;
    t->data = p;
    t->cap = cap;
    return true;
}

/* One value of a typed field (float_data, int32_data, int64_data, double_data,
 * uint64_data), stored as the tensor's element: the low bytes of v. */
static bool tensor_value(void *ctx, uint64_t v)
{
    tensor *t = ctx;
    const uint32_t es = esize(dml_type_of(t->onnx_type));
    if (!es || !tensor_grow(t, es)) return false;
    memcpy(t->data + t->bytes, &v, es);
    t->bytes += es;
    return true;
}

static void tensor_free(tensor *t)
{
    free(t->data);
    memset(t, 0, sizeof *t);
}

/* TensorProto: dims 1, data_type 2, float_data 4, int32_data 5, int64_data 7, name 8,
 * raw_data 9, double_data 10, uint64_data 11. The typed fields come after data_type in
 * every file here; a tensor whose values come before its type is refused. */
static bool parse_tensor(pb b, tensor *t)
{
    memset(t, 0, sizeof *t);
    uint32_t field, wire;
    while (pb_tag(&b, &field, &wire)) {
        uint64_t v;
        pb s;
        bool ok;
        switch (field) {
        case 1: ok = pb_repeated(&b, wire, 0, tensor_dim, t); break;
        case 2: ok = wire == 0 && pb_varint(&b, &v) && (t->onnx_type = (int32_t)v, true); break;
        case 4: ok = t->onnx_type && pb_repeated(&b, wire, 4, tensor_value, t); break;
        case 5:
        case 7:
        case 11: ok = t->onnx_type && pb_repeated(&b, wire, 0, tensor_value, t); break;
        case 8: ok = wire == 2 && pb_string(&b, t->name, sizeof t->name); break;
        case 9:
            ok = wire == 2 && pb_sub(&b, &s) && tensor_grow(t, (uint64_t)(s.end - s.p));
            if (ok && s.end > s.p) { /* raw_data of a tensor with no elements is empty */
                memcpy(t->data + t->bytes, s.p, (size_t)(s.end - s.p));
                t->bytes += (uint64_t)(s.end - s.p);
            }
            break;
        case 10: ok = t->onnx_type && pb_repeated(&b, wire, 8, tensor_value, t); break;
        default: ok = pb_skip(&b, wire); break;
        }
        if (!ok) return false;
    }
    t->type = dml_type_of(t->onnx_type);
    return t->type != DML_TENSOR_DATA_TYPE_UNKNOWN && t->bytes == count_of(t->rank, t->dims) * esize(t->type);
}

/* A tensor's values as int64 (a Slice's starts, a OneHot's depth): integers as they are,
 * floats cast as C casts, which is what ONNX says of a non-integer depth. */
static bool tensor_int64s(const tensor *t, int64_t *out, uint32_t cap, uint32_t *n)
{
    const uint64_t count = count_of(t->rank, t->dims);
    if (count > cap) return false;
    for (uint64_t i = 0; i < count; i++) {
        const uint8_t *p = t->data + i * esize(t->type);
        int32_t i32;
        float f;
        double d;
        switch (t->type) {
        case DML_TENSOR_DATA_TYPE_INT64: memcpy(&out[i], p, 8); break;
        case DML_TENSOR_DATA_TYPE_INT32: memcpy(&i32, p, 4), out[i] = i32; break;
        case DML_TENSOR_DATA_TYPE_FLOAT32: memcpy(&f, p, 4), out[i] = (int64_t)f; break;
        case DML_TENSOR_DATA_TYPE_FLOAT64: memcpy(&d, p, 8), out[i] = (int64_t)d; break;
        default: return false;
        }
    }
    *n = (uint32_t)count;
    return true;
}

/* ---- ModelProto ------------------------------------------------------------------------ */

typedef struct attr {
    char name[NAME_MAX_LEN];
    bool has_i;
    int64_t i;
    uint32_t nints;
    int64_t ints[MAXR];
} attr;

typedef struct model {
    char op_type[NAME_MAX_LEN];
    uint32_t nnodes, ninputs, noutputs, ngraph_inputs, ninit, nattrs;
    char inputs[MAX_IO][NAME_MAX_LEN], outputs[MAX_IO][NAME_MAX_LEN]; /* the node's */
    char graph_inputs[MAX_IO][NAME_MAX_LEN];                          /* in input_K.pb order */
    attr attrs[MAX_ATTRS];
    tensor init[MAX_IO];
    int64_t opset;
} model;

static bool attr_int(void *ctx, uint64_t v)
{
    attr *a = ctx;
    if (a->nints >= MAXR) return false;
    a->ints[a->nints++] = (int64_t)v;
    return true;
}

/* AttributeProto: name 1, i 3, ints 8 (the only kinds these nodes have). */
static bool parse_attr(pb b, attr *a)
{
    uint32_t field, wire;
    uint64_t v;
    while (pb_tag(&b, &field, &wire)) {
        bool ok;
        if (field == 1) ok = wire == 2 && pb_string(&b, a->name, sizeof a->name);
        else if (field == 3) ok = wire == 0 && pb_varint(&b, &v) && (a->i = (int64_t)v, a->has_i = true);
        else if (field == 8) ok = pb_repeated(&b, wire, 0, attr_int, a);
        else ok = pb_skip(&b, wire);
        if (!ok) return false;
    }
    return true;
}

/* NodeProto: input 1, output 2, op_type 4, attribute 5. */
static bool parse_node(pb b, model *m)
{
    uint32_t field, wire;
    pb s;
    while (pb_tag(&b, &field, &wire)) {
        bool ok;
        if (field == 1) ok = m->ninputs < MAX_IO && wire == 2 && pb_string(&b, m->inputs[m->ninputs++], NAME_MAX_LEN);
        else if (field == 2) ok = m->noutputs < MAX_IO && wire == 2 && pb_string(&b, m->outputs[m->noutputs++], NAME_MAX_LEN);
        else if (field == 4) ok = wire == 2 && pb_string(&b, m->op_type, sizeof m->op_type);
        else if (field == 5) ok = m->nattrs < MAX_ATTRS && wire == 2 && pb_sub(&b, &s) && parse_attr(s, &m->attrs[m->nattrs++]);
        else ok = pb_skip(&b, wire);
        if (!ok) return false;
    }
    return true;
}

/* ValueInfoProto: name 1. */
static bool parse_value_name(pb b, char *name)
{
    uint32_t field, wire;
    while (pb_tag(&b, &field, &wire))
        if (!(field == 1 && wire == 2 ? pb_string(&b, name, NAME_MAX_LEN) : pb_skip(&b, wire))) return false;
    return true;
}

/* GraphProto: node 1, initializer 5, input 11. */
static bool parse_graph(pb b, model *m)
{
    uint32_t field, wire;
    pb s;
    while (pb_tag(&b, &field, &wire)) {
        bool ok;
        if (field == 1) ok = wire == 2 && pb_sub(&b, &s) && m->nnodes++ == 0 && parse_node(s, m);
        else if (field == 5) ok = m->ninit < MAX_IO && wire == 2 && pb_sub(&b, &s) && parse_tensor(s, &m->init[m->ninit++]);
        else if (field == 11)
            ok = m->ngraph_inputs < MAX_IO && wire == 2 && pb_sub(&b, &s) &&
                 parse_value_name(s, m->graph_inputs[m->ngraph_inputs++]);
        else ok = pb_skip(&b, wire);
        if (!ok) return false;
    }
    return true;
}

/* OperatorSetIdProto: domain 1, version 2; the default domain's version. */
static bool parse_opset(pb b, model *m)
{
    uint32_t field, wire;
    uint64_t v;
    char domain[NAME_MAX_LEN] = "";
    int64_t version = 0;
    while (pb_tag(&b, &field, &wire)) {
        bool ok;
        if (field == 1) ok = wire == 2 && pb_string(&b, domain, sizeof domain);
        else if (field == 2) ok = wire == 0 && pb_varint(&b, &v) && (version = (int64_t)v, true);
        else ok = pb_skip(&b, wire);
        if (!ok) return false;
    }
    if (!domain[0] || !strcmp(domain, "ai.onnx")) m->opset = version;
    return true;
}

/* ModelProto: graph 7, opset_import 8. */
static bool parse_model(pb b, model *m)
{
    uint32_t field, wire;
    pb s;
    memset(m, 0, sizeof *m);
    while (pb_tag(&b, &field, &wire)) {
        bool ok;
        if (field == 7) ok = wire == 2 && pb_sub(&b, &s) && parse_graph(s, m);
        else if (field == 8) ok = wire == 2 && pb_sub(&b, &s) && parse_opset(s, m);
        else ok = pb_skip(&b, wire);
        if (!ok) return false;
    }
    return m->nnodes == 1 && m->noutputs >= 1;
}

static void model_free(model *m)
{
    for (uint32_t i = 0; i < m->ninit; i++) tensor_free(&m->init[i]);
}

static const attr *find_attr(const model *m, const char *name)
{
    for (uint32_t i = 0; i < m->nattrs; i++)
        if (!strcmp(m->attrs[i].name, name)) return &m->attrs[i];
    return NULL;
}

/* ---- files ------------------------------------------------------------------------------ */

/* The whole file, malloc'd; NULL when it cannot be read (errno says why). */
static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *data = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (n == cap) {
            uint8_t *p = realloc(data, cap = cap ? cap * 2 : 4096);
            if (!p) break;
            data = p;
        }
        got = fread(data + n, 1, cap - n, f);
        n += got;
    } while (got);
    fclose(f);
    *len = n;
    return data;
}

static bool read_tensor(const char *path, tensor *t)
{
    size_t len = 0;
    uint8_t *data = read_file(path, &len);
    memset(t, 0, sizeof *t);
    if (!data) return false;
    bool ok = parse_tensor((pb){data, data + len}, t);
    free(data);
    return ok;
}

static const char *testdata_dir(void)
{
    const char *d = getenv("DMLOPS_ONNX_TESTDATA");
    return d && *d ? d : DEFAULT_DIR;
}

static bool is_our_test(const char *name)
{
    return !strncmp(name, "test_slice", 10) || !strncmp(name, "test_reversesequence", 20) ||
           !strncmp(name, "test_onehot", 11);
}

static int by_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* The directory's node tests of the three operators, sorted; -1 (errno set) when it cannot
 * be read, to its end: readdir() ends with NULL on an error too (EOVERFLOW, a 64-bit inode
 * without 64-bit file offsets), which must not read as a directory without the tests. */
static int list_tests(const char *dir, char names[][NAME_MAX_LEN], int cap)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    errno = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL; errno = 0)
        if (is_our_test(e->d_name) && n < cap && strlen(e->d_name) < NAME_MAX_LEN) strcpy(names[n++], e->d_name);
    const int err = errno;
    closedir(d);
    if (err) {
        errno = err;
        return -1;
    }
    const char *order[MAX_TESTS];
    char sorted[MAX_TESTS][NAME_MAX_LEN];
    for (int i = 0; i < n; i++) order[i] = names[i];
    qsort(order, (size_t)n, sizeof order[0], by_name);
    for (int i = 0; i < n; i++) strcpy(sorted[i], order[i]);
    memcpy(names, sorted, (size_t)n * NAME_MAX_LEN);
    return n;
}

/* ---- one node test ------------------------------------------------------------------- */

/* The node's input `name`: a data-set input (by the graph's input order) or an initializer. */
static const tensor *node_input(const model *m, const tensor *inputs, uint32_t ninputs, uint32_t k)
{
    if (k >= m->ninputs || !m->inputs[k][0]) return NULL; /* absent, or "" for an omitted optional input */
    for (uint32_t i = 0; i < m->ngraph_inputs && i < ninputs; i++)
        if (!strcmp(m->graph_inputs[i], m->inputs[k])) return &inputs[i];
    for (uint32_t i = 0; i < m->ninit; i++)
        if (!strcmp(m->init[i].name, m->inputs[k])) return &m->init[i];
    return NULL;
}

static int64_t attr_or(const model *m, const char *name, int64_t fallback)
{
    const attr *a = find_attr(m, name);
    return a && a->has_i ? a->i : fallback;
}

/* Translates the node with its helper and runs it on want's shape and bytes. */
static bool run_node(runner *run, const model *m, const tensor *in, uint32_t nin, const tensor *want,
                     const char *what, char *how, size_t how_len)
{
    dmlops_onnx_op op;
    const tensor *x = node_input(m, in, nin, 0);
    if (!CHECK(x != NULL, "%s: no first input", what)) return false;
    const void *bind[2] = {x->data, NULL};
    uint64_t bytes[2] = {x->bytes, 0};
    tensor cast;
    memset(&cast, 0, sizeof cast);
    if (!strcmp(m->op_type, "Slice")) {
        int64_t v[4][MAXR];
        uint32_t count[4] = {0, 0, 0, 0};
        const bool has[4] = {true, true, false, false};
        bool present[4] = {false, false, false, false};
        static const char *const names[4] = {"starts", "ends", "axes", "steps"};
        for (uint32_t k = 0; k < 4; k++) {
            const attr *a = m->opset < 10 ? find_attr(m, names[k]) : NULL; /* Slice-1: attributes */
            const tensor *t = m->opset >= 10 ? node_input(m, in, nin, k + 1) : NULL;
            if (a) memcpy(v[k], a->ints, (count[k] = a->nints) * sizeof a->ints[0]);
            if (t && !CHECK(tensor_int64s(t, v[k], MAXR, &count[k]), "%s: %s", what, names[k])) return false;
            present[k] = a || t;
            if (!CHECK(present[k] || !has[k], "%s: no %s", what, names[k])) return false;
        }
        snprintf(how, how_len, "opset %" PRId64, m->opset);
        if (!CHECK_OK(dmlops_onnx_slice(&op, x->type, x->rank, x->dims, count[0], v[0], v[1], present[2] ? v[2] : NULL,
                                        present[3] ? v[3] : NULL)))
            return false;
    } else if (!strcmp(m->op_type, "ReverseSequence")) {
        const tensor *lens = node_input(m, in, nin, 1);
        if (!CHECK(lens != NULL, "%s: no sequence_lens", what)) return false;
        const int64_t time_axis = attr_or(m, "time_axis", 0), batch_axis = attr_or(m, "batch_axis", 1);
        snprintf(how, how_len, "time_axis %" PRId64 ", batch_axis %" PRId64, time_axis, batch_axis);
        if (!CHECK_OK(dmlops_onnx_reverse_sequence(&op, x->type, x->rank, x->dims, lens->type, time_axis, batch_axis)))
            return false;
        bind[1] = lens->data;
        bytes[1] = lens->bytes;
    } else if (!strcmp(m->op_type, "OneHot")) {
        const tensor *depth_t = node_input(m, in, nin, 1), *values = node_input(m, in, nin, 2);
        int64_t depth;
        uint32_t n = 0;
        if (!CHECK(depth_t && values && tensor_int64s(depth_t, &depth, 1, &n) && n == 1, "%s: depth, values", what))
            return false;
        const int64_t axis = attr_or(m, "axis", -1);
        dmlops_status st = dmlops_onnx_one_hot(&op, x->type, x->rank, x->dims, depth, values->type, axis);
        snprintf(how, how_len, "%s indices, depth %" PRId64 ", axis %" PRId64, dmlops_data_type_name(x->type), depth, axis);
        if (st == DMLOPS_ERROR_UNSUPPORTED && (x->type == DML_TENSOR_DATA_TYPE_FLOAT32 || x->type == DML_TENSOR_DATA_TYPE_FLOAT64)) {
            /* The helper names the cast to make; the engine (this test) makes it. */
            if (!CHECK(strstr(dmlops_last_error_message(), "cast them to INT64"), "%s: %s", what,
                       dmlops_last_error_message()))
                return false;
            cast = *x;
            cast.data = malloc((size_t)count_of(x->rank, x->dims) * 8 + 1);
            cast.onnx_type = ONNX_INT64;
            cast.type = DML_TENSOR_DATA_TYPE_INT64;
            if (!CHECK(cast.data && tensor_int64s(x, (int64_t *)(void *)cast.data, UINT32_MAX, &n), "%s: cast", what)) {
                free(cast.data);
                return false;
            }
            cast.bytes = (uint64_t)n * 8;
            x = &cast;
            bind[0] = cast.data;
            bytes[0] = cast.bytes;
            snprintf(how + strlen(how), how_len - strlen(how), ", cast to INT64");
            st = dmlops_onnx_one_hot(&op, x->type, x->rank, x->dims, depth, values->type, axis);
        }
        if (!CHECK_OK(st)) {
            free(cast.data);
            return false;
        }
        bind[1] = values->data;
        bytes[1] = values->bytes;
    } else {
        return CHECK(false, "%s: unexpected op_type %s", what, m->op_type);
    }
    bool ok = CHECK(op.output_rank == want->rank, "%s: output rank %u, expected %u", what, op.output_rank, want->rank);
    for (uint32_t d = 0; ok && d < want->rank; d++)
        ok = CHECK(op.output_shape[d] == want->dims[d], "%s: output_shape[%u] = %" PRId64 ", expected %" PRId64, what,
                   d, op.output_shape[d], want->dims[d]);
    if (ok && CHECK(op.empty == (want->bytes == 0), "%s: empty = %d", what, op.empty) && !op.empty)
        ok = run_and_compare(run, &op, bind, bytes, want->data, want->bytes, esize(want->type), what);
    free(cast.data);
    return ok;
}

/* Every data set of the node test in dir/name; the number run, or -1 on a failure. */
static int node_test(runner *run, const char *dir, const char *name, char *how, size_t how_len)
{
    char path[1024], what[256];
    snprintf(what, sizeof what, "%s [%s]", name, dmt_backend_name());
    snprintf(path, sizeof path, "%s/%s/model.onnx", dir, name);
    size_t len = 0;
    uint8_t *bytes = read_file(path, &len);
    if (!CHECK(bytes != NULL, "%s: %s: %s", what, path, strerror(errno))) return -1;
    model m;
    const bool parsed = parse_model((pb){bytes, bytes + len}, &m);
    free(bytes);
    if (!CHECK(parsed, "%s: %s: not a one-node ModelProto this reader understands", what, path)) {
        model_free(&m);
        return -1;
    }
    int sets = 0;
    bool ok = true;
    for (;; sets++) {
        tensor in[MAX_IO], want;
        uint32_t nin = 0;
        memset(&want, 0, sizeof want);
        for (; nin < MAX_IO; nin++) {
            snprintf(path, sizeof path, "%s/%s/test_data_set_%d/input_%u.pb", dir, name, sets, nin);
            if (!read_tensor(path, &in[nin])) {
                tensor_free(&in[nin]);
                break;
            }
        }
        snprintf(path, sizeof path, "%s/%s/test_data_set_%d/output_0.pb", dir, name, sets);
        const bool have_output = read_tensor(path, &want);
        if (nin == 0 && !have_output) {
            tensor_free(&want);
            break;
        }
        ok = CHECK(have_output, "%s: %s unreadable", what, path) &&
             run_node(run, &m, in, nin, &want, what, how, how_len) && ok;
        for (uint32_t i = 0; i < nin; i++) tensor_free(&in[i]);
        tensor_free(&want);
    }
    model_free(&m);
    ok = CHECK(sets > 0, "%s: no test_data_set_0", what) && ok;
    return ok ? sets : -1;
}

TEST_CTX(onnx_node_tests)
{
    const char *dir = testdata_dir();
    if (!strcmp(dir, "skip")) {
        printf("     skipped: DMLOPS_ONNX_TESTDATA=skip\n");
        return;
    }
    static char names[MAX_TESTS][NAME_MAX_LEN];
    const int n = list_tests(dir, names, MAX_TESTS);
    REQUIRE(n >= 0, "%s: %s: install Debian's libonnx-testdata (.ci/deps.sh test does), or set DMLOPS_ONNX_TESTDATA "
                    "to its data/node directory (skip: skip these tests)",
            dir, strerror(errno));
    for (size_t k = 0; k < KNOWN_TESTS; k++) {
        bool found = false;
        for (int i = 0; i < n && !found; i++) found = !strcmp(names[i], known_tests[k]);
        CHECK(found, "%s/%s is missing", dir, known_tests[k]);
    }
    runner run;
    if (!CHECK(runner_init(&run, ctx), "buffers")) {
        runner_free(&run);
        return;
    }
    int passed = 0;
    for (int i = 0; i < n; i++) {
        char how[160] = "";
        const int sets = node_test(&run, dir, names[i], how, sizeof how);
        if (sets < 0) {
            printf("     %-31s FAILED\n", names[i]);
            continue;
        }
        passed++;
        printf("     %-31s ok: %d data set%s, %s\n", names[i], sets, sets == 1 ? "" : "s", how);
    }
    printf("     %d of %d ONNX node tests passed on %s\n", passed, n, dmt_backend_name());
    runner_free(&run);
}
