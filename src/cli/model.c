/* Parses the JSON model of `dmlops run` with cJSON. Every error names the file and the
 * JSON path of the offending value, e.g. "m.json: $.operators[0].InputTensor.Sizes[2]:
 * expected a non-negative integer". */
#include "model.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scalar.h"

#define PATH_LEN 200

typedef struct jctx {
    const char *file;
    const char *dir;        /* directory of the model, for relative input paths */
    const char *output_dir; /* for relative output paths; NULL: the current directory */
} jctx;

static void jreport(const jctx *j, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void jreport(const jctx *j, const char *path, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: %s: ", j->file, path);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized): analyser bug with glibc va_list
    va_end(ap);
    fputc('\n', stderr);
}
/* Reports and yields false; a macro so that static analysers see the false. */
#define jfail(...) (jreport(__VA_ARGS__), false)

/* snprintf through a va_list: a JSON path that does not fit is merely cut short. */
static void jpath(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void jpath(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
}

static const char *kind_name(const cJSON *v)
{
    if (!v) return "nothing";
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsArray(v)) return "an array";
    return "an object";
}

/* Rejects unknown and repeated keys, which would otherwise be silently ignored. */
static bool check_keys(const jctx *j, const cJSON *obj, const char *path, const char *const *allowed)
{
    for (const cJSON *c = obj->child; c; c = c->next) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++) ok = !strcmp(*a, c->string);
        if (!ok) {
            char list[400] = "";
            for (const char *const *a = allowed; *a; a++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", a == allowed ? "" : ", ", *a);
            return jfail(j, path, "unknown field \"%s\" (expected: %s)", c->string, list);
        }
        for (const cJSON *d = obj->child; d != c; d = d->next)
            if (!strcmp(d->string, c->string)) return jfail(j, path, "field \"%s\" appears twice", c->string);
    }
    return true;
}

static bool get_uint(const jctx *j, const cJSON *v, const char *path, uint64_t max, uint64_t *out)
{
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
    if (!cJSON_IsNumber(v) || d < 0 || d != floor(d))
        return jfail(j, path, "expected a non-negative integer, not %s", kind_name(v));
    if (d > (double)max || d >= 9007199254740992.0)
        return jfail(j, path, "%.0f is too large (at most %llu)", d, (unsigned long long)max);
    *out = (uint64_t)d;
    return true;
}

static bool get_u32(const jctx *j, const cJSON *v, const char *path, uint32_t *out)
{
    uint64_t x;
    if (!get_uint(j, v, path, UINT32_MAX, &x)) return false;
    *out = (uint32_t)x;
    return true;
}

/* An array of up to MODEL_MAX_DIMS integers in [lo, hi]; JSON null gives *is_null. */
static bool get_int_array(const jctx *j, const cJSON *v, const char *path, int64_t lo, int64_t hi, int64_t *out,
                          uint32_t *count, bool *is_null)
{
    if (is_null) *is_null = cJSON_IsNull(v);
    if (is_null && *is_null) return true;
    if (!cJSON_IsArray(v)) return jfail(j, path, "expected an array of integers, not %s", kind_name(v));
    int n = cJSON_GetArraySize(v);
    if (n > MODEL_MAX_DIMS) return jfail(j, path, "%d entries: at most %d are supported", n, MODEL_MAX_DIMS);
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        char p[PATH_LEN];
        jpath(p, sizeof p, "%s[%d]", path, i);
        double d = cJSON_IsNumber(e) ? e->valuedouble : 0;
        if (!cJSON_IsNumber(e) || d != floor(d) || d < (double)lo || d > (double)hi) {
            char got[40];
            if (cJSON_IsNumber(e)) snprintf(got, sizeof got, "%.17g", d);
            else snprintf(got, sizeof got, "%s", kind_name(e));
            if (lo == 0 && cJSON_IsNumber(e) && d == floor(d) && d > (double)hi)
                return jfail(j, p, "%s is too large (at most %lld)", got, (long long)hi);
            if (lo == 0) return jfail(j, p, "expected a non-negative integer, not %s", got);
            return jfail(j, p, "expected an integer from %lld to %lld, not %s", (long long)lo, (long long)hi, got);
        }
        out[i] = (int64_t)d;
    }
    *count = (uint32_t)n;
    return true;
}

static bool get_u32_array(const jctx *j, const cJSON *v, const char *path, uint32_t *out, uint32_t *count,
                          bool *is_null)
{
    int64_t tmp[MODEL_MAX_DIMS] = {0};
    if (!get_int_array(j, v, path, 0, UINT32_MAX, tmp, count, is_null)) return false;
    if (is_null && *is_null) return true;
    for (uint32_t i = 0; i < *count; i++) out[i] = (uint32_t)tmp[i];
    return true;
}

/* Enum values by DirectML name, with or without the prefix, or as a raw number (so that a
 * model can hand the library a value it must refuse). */
static bool get_enum(const jctx *j, const cJSON *v, const char *path, const char *prefix,
                     const char *const *names, const int *values, int *out)
{
    if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 2147483648.0) {
        *out = (int)v->valuedouble;
        return true;
    }
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        size_t pl = strlen(prefix);
        if (!strncmp(s, prefix, pl)) s += pl;
        for (int i = 0; names[i]; i++)
            if (!strcmp(s, names[i])) {
                *out = values[i];
                return true;
            }
    }
    char list[300] = "";
    for (int i = 0; names[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    if (cJSON_IsString(v)) return jfail(j, path, "unknown name \"%s\" (expected %s)", v->valuestring, list);
    return jfail(j, path, "expected a name (%s), not %s", list, kind_name(v));
}

static const char *const type_names[] = {"UNKNOWN", "FLOAT32", "FLOAT16", "UINT32", "UINT16", "UINT8", "INT32",
                                         "INT16",   "INT8",    "FLOAT64", "UINT64", "INT64",  "UINT4", "INT4", NULL};
static const int type_values[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};

static bool get_data_type(const jctx *j, const cJSON *v, const char *path, DML_TENSOR_DATA_TYPE *out)
{
    int t;
    if (!get_enum(j, v, path, "DML_TENSOR_DATA_TYPE_", type_names, type_values, &t)) return false;
    *out = (DML_TENSOR_DATA_TYPE)t;
    return true;
}

static bool get_string(const jctx *j, const cJSON *v, const char *path, const char **out)
{
    if (!cJSON_IsString(v) || !v->valuestring[0]) return jfail(j, path, "expected a non-empty string, not %s", kind_name(v));
    *out = v->valuestring;
    return true;
}

/* Joins a relative path to dir. */
static char *join_path(const char *dir, const char *p)
{
    size_t n = strlen(dir) + strlen(p) + 2;
    char *s = malloc(n);
    if (!s) return NULL;
    if (p[0] == '/' || !dir[0]) snprintf(s, n, "%s", p);
    else snprintf(s, n, "%s/%s", dir, p);
    return s;
}

/* ---- tensors and operators ---------------------------------------------------------- */

static bool parse_tensor(const jctx *j, const cJSON *v, const char *path, model_tensor *t)
{
    static const char *const keys[] = {"Type", "DataType", "Flags", "DimensionCount", "Sizes", "Strides",
                                       "TotalTensorSizeInBytes", "GuaranteedBaseOffsetAlignment", NULL};
    static const char *const tt_names[] = {"INVALID", "BUFFER", NULL}, *const flag_names[] = {"NONE", "OWNED_BY_DML", NULL};
    static const int tt_values[] = {0, 1}, flag_values[] = {0, 1};
    char p[PATH_LEN];
    memset(t, 0, sizeof *t);
    if (!v) return jfail(j, path, "missing (use null for a NULL tensor)");
    if (cJSON_IsNull(v)) return true;
    if (!cJSON_IsObject(v)) return jfail(j, path, "expected a tensor object, not %s", kind_name(v));
    if (!check_keys(j, v, path, keys)) return false;
    t->present = true;
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    const cJSON *f;
    int e;
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "Type"))) {
        jpath(p, sizeof p, "%s.Type", path);
        if (!get_enum(j, f, p, "DML_TENSOR_TYPE_", tt_names, tt_values, &e)) return false;
        t->desc.Type = (DML_TENSOR_TYPE)e;
    }
    jpath(p, sizeof p, "%s.DataType", path);
    if (!(f = cJSON_GetObjectItemCaseSensitive(v, "DataType"))) return jfail(j, p, "missing");
    if (!get_data_type(j, f, p, &t->buf.DataType)) return false;
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "Flags"))) {
        jpath(p, sizeof p, "%s.Flags", path);
        if (!get_enum(j, f, p, "DML_TENSOR_FLAG_", flag_names, flag_values, &e)) return false;
        t->buf.Flags = (DML_TENSOR_FLAGS)e;
    }
    uint32_t n = 0, ns = 0;
    jpath(p, sizeof p, "%s.Sizes", path);
    if (!(f = cJSON_GetObjectItemCaseSensitive(v, "Sizes"))) return jfail(j, p, "missing");
    if (!get_u32_array(j, f, p, t->sizes, &n, NULL)) return false;
    t->buf.DimensionCount = n;
    t->buf.Sizes = t->sizes;
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "DimensionCount"))) {
        jpath(p, sizeof p, "%s.DimensionCount", path);
        uint32_t dc;
        if (!get_u32(j, f, p, &dc)) return false;
        if (dc != n) return jfail(j, p, "%u differs from the %u entries of Sizes", dc, n);
    }
    bool null_strides = true;
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "Strides"))) {
        jpath(p, sizeof p, "%s.Strides", path);
        if (!get_u32_array(j, f, p, t->strides, &ns, &null_strides)) return false;
        if (!null_strides && ns != n) return jfail(j, p, "%u entries, but Sizes has %u", ns, n);
    }
    t->buf.Strides = null_strides ? NULL : t->strides;
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "TotalTensorSizeInBytes"))) {
        jpath(p, sizeof p, "%s.TotalTensorSizeInBytes", path);
        if (!get_uint(j, f, p, UINT64_MAX, &t->buf.TotalTensorSizeInBytes)) return false;
    } else {
        /* 0 when the tensor is invalid: the library then says why. */
        t->buf.TotalTensorSizeInBytes = n ? dmlops_calc_buffer_tensor_size(t->buf.DataType, n, t->sizes, t->buf.Strides) : 0;
    }
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "GuaranteedBaseOffsetAlignment"))) {
        jpath(p, sizeof p, "%s.GuaranteedBaseOffsetAlignment", path);
        if (!get_u32(j, f, p, &t->buf.GuaranteedBaseOffsetAlignment)) return false;
    }
    return true;
}

static int find_resource(const model *m, const char *name)
{
    for (size_t i = 0; i < m->nres; i++)
        if (!strcmp(m->res[i].name, name)) return (int)i;
    return -1;
}

static bool parse_bindings(const jctx *j, const cJSON *v, const char *path, model *m, model_op *op)
{
    static const char *const bkeys[] = {"Resource", "Offset", "Size", NULL};
    char p[PATH_LEN], q[PATH_LEN];
    if (!v) return jfail(j, path, "missing: each tensor needs {\"Resource\": NAME}");
    if (!cJSON_IsObject(v)) return jfail(j, path, "expected an object, not %s", kind_name(v));
    if (!check_keys(j, v, path, op->tensor_names)) return false;
    for (uint32_t i = 0; i < op->ntensors; i++) {
        jpath(p, sizeof p, "%s.%s", path, op->tensor_names[i]);
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(v, op->tensor_names[i]), *f;
        if (!b) return jfail(j, p, "missing");
        if (!cJSON_IsObject(b)) return jfail(j, p, "expected {\"Resource\": NAME, \"Offset\": N}, not %s", kind_name(b));
        if (!check_keys(j, b, p, bkeys)) return false;
        const char *name = NULL;
        jpath(q, sizeof q, "%s.Resource", p);
        if (!get_string(j, cJSON_GetObjectItemCaseSensitive(b, "Resource"), q, &name)) return false;
        int r = find_resource(m, name);
        if (r < 0) return jfail(j, q, "no resource is named \"%s\"", name);
        model_binding *bd = &op->bind[i];
        bd->resource = (size_t)r;
        if ((f = cJSON_GetObjectItemCaseSensitive(b, "Offset"))) {
            jpath(q, sizeof q, "%s.Offset", p);
            if (!get_uint(j, f, q, UINT64_MAX, &bd->offset)) return false;
        }
        bd->size = op->t[i].present ? op->t[i].buf.TotalTensorSizeInBytes : 16;
        if ((f = cJSON_GetObjectItemCaseSensitive(b, "Size"))) {
            jpath(q, sizeof q, "%s.Size", p);
            if (!get_uint(j, f, q, UINT64_MAX, &bd->size)) return false;
        }
    }
    return true;
}

static bool parse_operator(const jctx *j, const cJSON *v, const char *path, model *m, model_op *op)
{
    static const char *const op_names[] = {"REVERSE_SUBSEQUENCES", "SLICE1", "ONE_HOT", NULL};
    static const int op_values[] = {DML_OPERATOR_REVERSE_SUBSEQUENCES, DML_OPERATOR_SLICE1, DML_OPERATOR_ONE_HOT};
    static const char *const rev_keys[] = {"Type", "Name", "InputTensor", "SequenceLengthsTensor", "OutputTensor",
                                           "Axis", "Bindings", NULL};
    static const char *const slice_keys[] = {"Type", "Name", "InputTensor", "OutputTensor", "DimensionCount",
                                             "InputWindowOffsets", "InputWindowSizes", "InputWindowStrides",
                                             "Bindings", NULL};
    static const char *const hot_keys[] = {"Type", "Name", "IndicesTensor", "ValuesTensor", "OutputTensor",
                                           "Axis", "Bindings", NULL};
    char p[PATH_LEN];
    const cJSON *f;
    jpath(op->where, sizeof op->where, "%s", path);
    if (!cJSON_IsObject(v)) return jfail(j, path, "expected an operator object, not %s", kind_name(v));
    jpath(p, sizeof p, "%s.Type", path);
    int type;
    if (!(f = cJSON_GetObjectItemCaseSensitive(v, "Type"))) return jfail(j, p, "missing");
    if (cJSON_IsNumber(f)) return jfail(j, p, "expected an operator name (REVERSE_SUBSEQUENCES, SLICE1, ONE_HOT)");
    if (!get_enum(j, f, p, "DML_OPERATOR_", op_names, op_values, &type)) return false;
    op->type = (DML_OPERATOR_TYPE)type;
    const char *const *keys;
    if (op->type == DML_OPERATOR_REVERSE_SUBSEQUENCES) {
        keys = rev_keys;
        op->ninputs = 2;
    } else if (op->type == DML_OPERATOR_SLICE1) {
        keys = slice_keys;
        op->ninputs = 1;
    } else {
        keys = hot_keys;
        op->ninputs = 2;
    }
    if (!check_keys(j, v, path, keys)) return false;
    op->ntensors = op->ninputs + 1;
    for (uint32_t i = 0, k = 0; keys[k]; k++)
        if (strstr(keys[k], "Tensor")) op->tensor_names[i++] = keys[k];
    jpath(op->name, sizeof op->name, "%s", dmlops_operator_type_name(op->type));
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "Name"))) {
        const char *s = NULL;
        jpath(p, sizeof p, "%s.Name", path);
        if (!get_string(j, f, p, &s)) return false;
        jpath(op->name, sizeof op->name, "%s", s);
    }
    for (uint32_t i = 0; i < op->ntensors; i++) {
        jpath(p, sizeof p, "%s.%s", path, op->tensor_names[i]);
        if (!parse_tensor(j, cJSON_GetObjectItemCaseSensitive(v, op->tensor_names[i]), p, &op->t[i])) return false;
    }
    if (op->type != DML_OPERATOR_SLICE1) {
        jpath(p, sizeof p, "%s.Axis", path);
        if (!(f = cJSON_GetObjectItemCaseSensitive(v, "Axis"))) return jfail(j, p, "missing");
        if (!get_u32(j, f, p, &op->axis)) return false;
    } else {
        static const char *const arrays[] = {"InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"};
        bool *nulls[] = {&op->null_offsets, &op->null_window_sizes, &op->null_window_strides};
        uint32_t counts[3] = {0, 0, 0};
        int64_t tmp[MODEL_MAX_DIMS];
        for (int a = 0; a < 3; a++) {
            jpath(p, sizeof p, "%s.%s", path, arrays[a]);
            if (!(f = cJSON_GetObjectItemCaseSensitive(v, arrays[a]))) return jfail(j, p, "missing");
            if (!get_int_array(j, f, p, a < 2 ? 0 : INT32_MIN, a < 2 ? UINT32_MAX : INT32_MAX, tmp, &counts[a], nulls[a]))
                return false;
            for (uint32_t i = 0; i < counts[a]; i++) {
                if (a == 0) op->offsets[i] = (uint32_t)tmp[i];
                else if (a == 1) op->window_sizes[i] = (uint32_t)tmp[i];
                else op->window_strides[i] = (int32_t)tmp[i];
            }
        }
        int first = !op->null_offsets ? 0 : !op->null_window_sizes ? 1 : 2;
        op->dim_count = counts[first];
        if ((f = cJSON_GetObjectItemCaseSensitive(v, "DimensionCount"))) {
            jpath(p, sizeof p, "%s.DimensionCount", path);
            if (!get_u32(j, f, p, &op->dim_count)) return false;
        }
        for (int a = 0; a < 3; a++)
            if (!*nulls[a] && counts[a] != op->dim_count) {
                jpath(p, sizeof p, "%s.%s", path, arrays[a]);
                return jfail(j, p, "%u entries, but DimensionCount is %u", counts[a], op->dim_count);
            }
    }
    jpath(p, sizeof p, "%s.Bindings", path);
    return parse_bindings(j, cJSON_GetObjectItemCaseSensitive(v, "Bindings"), p, m, op);
}

/* The descriptors point into the op, so they are wired once it has its final address. */
static void wire_operator(model_op *op)
{
    const DML_TENSOR_DESC *d[3];
    for (uint32_t i = 0; i < op->ntensors; i++) {
        op->t[i].desc.Desc = &op->t[i].buf;
        d[i] = op->t[i].present ? &op->t[i].desc : NULL;
    }
    op->desc.Type = op->type;
    if (op->type == DML_OPERATOR_REVERSE_SUBSEQUENCES) {
        op->u.rev = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){d[0], d[1], d[2], op->axis};
    } else if (op->type == DML_OPERATOR_ONE_HOT) {
        op->u.hot = (DML_ONE_HOT_OPERATOR_DESC){d[0], d[1], d[2], op->axis};
    } else {
        op->u.slice = (DML_SLICE1_OPERATOR_DESC){d[0], d[1], op->dim_count,
                                                 op->null_offsets ? NULL : op->offsets,
                                                 op->null_window_sizes ? NULL : op->window_sizes,
                                                 op->null_window_strides ? NULL : op->window_strides};
    }
    op->desc.Desc = &op->u;
}

/* ---- resources ---------------------------------------------------------------------- */

static bool count_data(const jctx *j, const cJSON *v, const char *path, uint64_t *n, int depth)
{
    if (depth > NPY_MAX_DIMS) return jfail(j, path, "nested too deeply");
    if (!cJSON_IsArray(v)) {
        (*n)++;
        return true;
    }
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        char p[PATH_LEN];
        jpath(p, sizeof p, "%s[%d]", path, i);
        if (!count_data(j, e, p, n, depth + 1)) return false;
    }
    return true;
}

static bool fill_data(const jctx *j, const cJSON *v, const char *path, DML_TENSOR_DATA_TYPE type, uint8_t **dst)
{
    if (cJSON_IsArray(v)) {
        int i = 0;
        for (const cJSON *e = v->child; e; e = e->next, i++) {
            char p[PATH_LEN];
            jpath(p, sizeof p, "%s[%d]", path, i);
            if (!fill_data(j, e, p, type, dst)) return false;
        }
        return true;
    }
    const char *why;
    if (cJSON_IsNumber(v)) why = scalar_from_double(type, v->valuedouble, *dst);
    else if (cJSON_IsBool(v)) why = scalar_from_double(type, cJSON_IsTrue(v) ? 1 : 0, *dst);
    else if (cJSON_IsString(v)) why = scalar_from_text(type, v->valuestring, *dst);
    else return jfail(j, path, "expected a number, not %s", kind_name(v));
    if (why) {
        if (cJSON_IsString(v)) return jfail(j, path, "\"%s\" %s %s", v->valuestring, why, dmlops_data_type_name(type));
        return jfail(j, path, "%.17g %s %s", v->valuedouble, why, dmlops_data_type_name(type));
    }
    *dst += dmlops_data_type_size(type);
    return true;
}

/* Sets a->count from the shape; false on overflow. */
static bool shape_count(npy_array *a)
{
    a->count = 1;
    for (uint32_t i = 0; i < a->ndim; i++) {
        if (a->shape[i] && a->count > UINT64_MAX / a->shape[i]) return false;
        a->count *= a->shape[i];
    }
    return a->count <= UINT64_MAX / 8;
}

static bool same_shape(const npy_array *a, const npy_array *b)
{
    if (a->ndim != b->ndim) return false;
    for (uint32_t i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i]) return false;
    return true;
}

static void shape_text(const npy_array *a, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%s [", dmlops_data_type_name(a->type));
    for (uint32_t i = 0; i < a->ndim && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%llu", i ? ", " : "", (unsigned long long)a->shape[i]);
    if (n < len) snprintf(buf + n, len - n, "]");
}

static bool parse_resource(const jctx *j, const cJSON *v, const char *path, model_resource *r)
{
    static const char *const keys[] = {"Name", "File", "Data", "DataType", "Sizes", "SizeInBytes", "Output", NULL};
    char p[PATH_LEN];
    const cJSON *f, *file, *data, *sizes;
    const char *s = NULL;
    jpath(r->where, sizeof r->where, "%s", path);
    r->last_writer = -1;
    if (!cJSON_IsObject(v)) return jfail(j, path, "expected a resource object, not %s", kind_name(v));
    if (!check_keys(j, v, path, keys)) return false;
    jpath(p, sizeof p, "%s.Name", path);
    if (!get_string(j, cJSON_GetObjectItemCaseSensitive(v, "Name"), p, &s)) return false;
    if (!(r->name = strdup(s))) return jfail(j, p, "out of memory");

    file = cJSON_GetObjectItemCaseSensitive(v, "File");
    data = cJSON_GetObjectItemCaseSensitive(v, "Data");
    sizes = cJSON_GetObjectItemCaseSensitive(v, "Sizes");
    if (file && data) return jfail(j, path, "give either \"File\" or \"Data\", not both");
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "DataType"))) {
        jpath(p, sizeof p, "%s.DataType", path);
        if (!get_data_type(j, f, p, &r->view.type)) return false;
        if (!npy_element_size(r->view.type))
            return jfail(j, p, "%s has no element size", dmlops_data_type_name(r->view.type));
    } else if (data || (sizes && !file)) {
        return jfail(j, path, "\"%s\" needs a \"DataType\"", data ? "Data" : "Sizes");
    }
    if (sizes) {
        uint32_t sz[MODEL_MAX_DIMS], n;
        jpath(p, sizeof p, "%s.Sizes", path);
        if (!get_u32_array(j, sizes, p, sz, &n, NULL)) return false;
        r->view.ndim = n;
        for (uint32_t i = 0; i < n; i++) r->view.shape[i] = sz[i];
        if (!shape_count(&r->view)) return jfail(j, p, "the element count overflows");
        r->shaped = true;
    }

    if (file) {
        char err[300];
        jpath(p, sizeof p, "%s.File", path);
        if (!get_string(j, file, p, &s)) return false;
        char *full = join_path(j->dir, s);
        if (!full) return jfail(j, p, "out of memory");
        bool ok = npy_read_file(full, &r->init, err, sizeof err);
        if (!ok) jreport(j, p, "%s: %s", full, err);
        free(full);
        if (!ok) return false;
        char a[200], b[200];
        shape_text(&r->init, a, sizeof a);
        if (r->view.type && r->view.type != r->init.type)
            return jfail(j, path, "DataType %s differs from the file's %s", dmlops_data_type_name(r->view.type), a);
        if (sizes && !same_shape(&r->view, &r->init)) {
            r->view.type = r->init.type;
            shape_text(&r->view, b, sizeof b);
            return jfail(j, path, "Sizes %s differ from the file's %s", b, a);
        }
    } else if (data) {
        uint64_t n = 0;
        jpath(p, sizeof p, "%s.Data", path);
        if (!count_data(j, data, p, &n, 0)) return false;
        if (!sizes) {
            r->view.ndim = 1;
            r->view.shape[0] = r->view.count = n;
        } else if (n != r->view.count) {
            return jfail(j, p, "%llu values, but Sizes hold %llu elements", (unsigned long long)n,
                         (unsigned long long)r->view.count);
        }
        r->init = r->view;
        r->init.data = malloc(n * npy_element_size(r->view.type) + 1);
        if (!r->init.data) return jfail(j, p, "out of memory");
        uint8_t *dst = r->init.data;
        if (!fill_data(j, data, p, r->view.type, &dst)) return false;
    }
    if (r->init.data) {
        r->view = r->init;
        r->view.data = NULL;
        r->shaped = true;
    }
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "SizeInBytes"))) {
        jpath(p, sizeof p, "%s.SizeInBytes", path);
        if (!get_uint(j, f, p, UINT64_MAX, &r->size)) return false;
        if (r->size == 0) return jfail(j, p, "a buffer holds at least 1 byte");
        uint64_t have = r->init.count * npy_element_size(r->init.type);
        if (r->init.data && have > r->size)
            return jfail(j, p, "%llu bytes cannot hold the %llu bytes of data", (unsigned long long)r->size,
                         (unsigned long long)have);
    }
    if ((f = cJSON_GetObjectItemCaseSensitive(v, "Output"))) {
        jpath(p, sizeof p, "%s.Output", path);
        if (!get_string(j, f, p, &s)) return false;
        if (!(r->output = join_path(j->output_dir ? j->output_dir : "", s))) return jfail(j, p, "out of memory");
    }
    return true;
}

/* Buffer sizes: SizeInBytes when given (exactly, so that range errors reach the library);
 * else large enough for the data, the declared Sizes and every binding. A resource without
 * data or Sizes is printed and saved as the output tensor of its last writer when that
 * tensor is packed at offset 0, else as a 1-D array over the whole buffer. */
static bool finish_resources(const jctx *j, model *m)
{
    for (size_t o = 0; o < m->nops; o++)
        for (uint32_t i = m->ops[o].ninputs; i < m->ops[o].ntensors; i++)
            m->res[m->ops[o].bind[i].resource].last_writer = (int)o;
    for (size_t k = 0; k < m->nres; k++) {
        model_resource *r = &m->res[k];
        if (!r->shaped && r->last_writer >= 0) {
            const model_op *op = &m->ops[r->last_writer];
            const model_tensor *t = &op->t[op->ntensors - 1];
            if (t->present && npy_element_size(t->buf.DataType)) {
                if (!r->view.type) r->view.type = t->buf.DataType;
                if (r->view.type == t->buf.DataType && !t->buf.Strides && op->bind[op->ntensors - 1].offset == 0) {
                    r->view.ndim = t->buf.DimensionCount;
                    for (uint32_t d = 0; d < r->view.ndim; d++) r->view.shape[d] = t->sizes[d];
                    r->shaped = shape_count(&r->view);
                }
            }
        }
        if (r->size) continue;
        uint64_t need = r->shaped ? r->view.count * npy_element_size(r->view.type) : 0;
        for (size_t o = 0; o < m->nops; o++)
            for (uint32_t i = 0; i < m->ops[o].ntensors; i++) {
                const model_binding *b = &m->ops[o].bind[i];
                if (b->resource == k && b->offset + b->size >= b->offset && b->offset + b->size > need)
                    need = b->offset + b->size;
            }
        if (need == 0)
            return jfail(j, r->where, "resource \"%s\" has no data, no SizeInBytes and no binding that sizes it", r->name);
        r->size = need > UINT64_MAX - 3 ? need : (need + 3) & ~(uint64_t)3;
    }
    for (size_t k = 0; k < m->nres; k++) {
        model_resource *r = &m->res[k];
        if (!r->view.type) r->view.type = DML_TENSOR_DATA_TYPE_UINT8;
        uint32_t es = npy_element_size(r->view.type);
        if (!r->shaped) {
            r->view.ndim = 1;
            r->view.shape[0] = r->view.count = r->size / es;
        }
        if (r->view.count > r->size / es)
            return jfail(j, r->where, "its %llu elements need more than SizeInBytes = %llu bytes",
                         (unsigned long long)r->view.count, (unsigned long long)r->size);
    }
    return true;
}

static char *read_text(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 1 >= cap) {
            size_t nc = cap ? cap * 2 : 4096;
            char *nb = realloc(buf, nc);
            if (!nb) {
                snprintf(err, errlen, "out of memory");
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f) ? errno : 0;
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "read error: %s", strerror(bad));
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static bool parse_root(const jctx *j, const cJSON *root, model *m)
{
    static const char *const keys[] = {"description", "resources", "operators", NULL};
    if (!cJSON_IsObject(root)) return jfail(j, "$", "expected an object with \"resources\" and \"operators\"");
    if (!check_keys(j, root, "$", keys)) return false;
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(root, "resources");
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(root, "operators");
    if (!cJSON_IsArray(res)) return jfail(j, "$.resources", "expected an array, not %s", kind_name(res));
    if (!cJSON_IsArray(ops)) return jfail(j, "$.operators", "expected an array, not %s", kind_name(ops));
    if (!ops->child) return jfail(j, "$.operators", "no operator to run");
    size_t nr = (size_t)cJSON_GetArraySize(res), no = (size_t)cJSON_GetArraySize(ops);
    m->res = calloc(nr ? nr : 1, sizeof *m->res);
    m->ops = calloc(no, sizeof *m->ops);
    if (!m->res || !m->ops) return jfail(j, "$", "out of memory");
    char p[PATH_LEN];
    for (const cJSON *e = res->child; e; e = e->next, m->nres++) {
        jpath(p, sizeof p, "$.resources[%zu]", m->nres);
        if (!parse_resource(j, e, p, &m->res[m->nres])) {
            m->nres++;
            return false;
        }
        for (size_t k = 0; k < m->nres; k++)
            if (!strcmp(m->res[k].name, m->res[m->nres].name))
                return m->nres++, jfail(j, p, "a resource named \"%s\" already exists", m->res[k].name);
    }
    for (const cJSON *e = ops->child; e; e = e->next, m->nops++) {
        jpath(p, sizeof p, "$.operators[%zu]", m->nops);
        if (!parse_operator(j, e, p, m, &m->ops[m->nops])) return false;
        wire_operator(&m->ops[m->nops]);
    }
    return finish_resources(j, m);
}

bool model_load(const char *path, const char *output_dir, model *m)
{
    memset(m, 0, sizeof *m);
    char err[200];
    size_t len = 0;
    char *text = read_text(path, &len, err, sizeof err);
    if (!text) {
        fprintf(stderr, "%s: %s\n", path, err);
        return false;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1) /* with the NUL, which require_null_terminated wants */;
    if (!root) {
        unsigned line = 1, col = 1;
        if (!end || end < text || end > text + len) end = text + len;
        for (const char *c = text; c < end; c++, col++)
            if (*c == '\n') line++, col = 0;
        if (*end) fprintf(stderr, "%s:%u:%u: invalid JSON near \"%.24s\"\n", path, line, col, end);
        else fprintf(stderr, "%s:%u:%u: invalid JSON: unexpected end of file\n", path, line, col);
        free(text);
        return false;
    }
    free(text);
    char *dir = strdup(path);
    if (!dir) {
        cJSON_Delete(root);
        return false;
    }
    char *slash = strrchr(dir, '/');
    if (slash) slash[slash == dir] = '\0'; /* "/m.json" keeps "/" */
    else dir[0] = '\0';
    jctx j = {path, dir, output_dir};
    bool ok = parse_root(&j, root, m);
    cJSON_Delete(root);
    free(dir);
    if (ok && !(m->file = strdup(path))) ok = false;
    if (!ok) model_free(m);
    return ok;
}

void model_free(model *m)
{
    for (size_t i = 0; m->res && i < m->nres; i++) {
        free(m->res[i].name);
        free(m->res[i].output);
        npy_free(&m->res[i].init);
    }
    free(m->res);
    free(m->ops);
    free(m->file);
    memset(m, 0, sizeof *m);
}
