/* Pieces both model formats use: see model_parse.h. Every error names the file and the
 * JSON path of the offending value, e.g. "m.json: $.operators[0].InputTensor.Sizes[2]:
 * expected a non-negative integer, not -4". */
#include "model_parse.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "scalar.h"

void mreport(const mctx *j, const char *path, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized): analyser bug with glibc va_list
    va_end(ap);
    cli_error("%s: %s: %s", j->file, path, msg); /* one line whatever the names hold */
    if (j->oom && strstr(msg, "out of memory")) *j->oom = true;
}

void mpath(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
}

void mpath_key(char *buf, size_t len, const char *path, const char *key)
{
    bool ident = (key[0] >= 'a' && key[0] <= 'z') || (key[0] >= 'A' && key[0] <= 'Z') || key[0] == '_';
    for (const char *c = key; *c && ident; c++)
        ident = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
    char q[100];
    if (ident && strlen(key) < 64) mpath(buf, len, "%s.%s", path, key);
    else mpath(buf, len, "%s[%s]", path, json_quote(key, q, sizeof q));
}

bool m_check_keys(const mctx *j, const json_value *obj, const char *path, const char *const *allowed)
{
    for (const json_value *c = obj->child; c; c = c->next) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++) ok = !strcmp(*a, c->key);
        if (!ok) {
            char list[400] = "", q[80];
            for (const char *const *a = allowed; *a; a++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", a == allowed ? "" : ", ", *a);
            return mfail(j, path, "unknown field %s (expected: %s)", json_quote(c->key, q, sizeof q), list);
        }
    }
    return true;
}

/* A value for messages: the number as written, else its kind. */
static const char *shown(const json_value *v, char buf[48])
{
    if (!v || v->kind != JSON_NUMBER) return json_kind_name(v);
    snprintf(buf, 48, "%s", v->text);
    if (strlen(v->text) >= 48) memcpy(buf + 44, "...", 4);
    return buf;
}

bool m_get_uint(const mctx *j, const json_value *v, const char *path, uint64_t max, uint64_t *out)
{
    char b[48];
    uint64_t x;
    if (!json_get_uint64(v, &x)) {
        /* A whole number by its digits, not its double: 1e-400 is not 0. */
        if (!v || v->kind != JSON_NUMBER || v->number < 0 || !json_number_is_whole(v->text))
            return mfail(j, path, "expected a non-negative integer, not %s", shown(v, b));
        /* json_get_uint64 takes a whole number in a float's notation (1e6) below 2^53 only,
         * where it is exact. */
        if (!json_is_integer_literal(v))
            return mfail(j, path, "%s is 2^53 or more in a float's notation: write its digits to keep it exact",
                         shown(v, b));
        return mfail(j, path, "%s is too large (at most %llu)", shown(v, b), (unsigned long long)max);
    }
    if (x > max) return mfail(j, path, "%s is too large (at most %llu)", shown(v, b), (unsigned long long)max);
    *out = x;
    return true;
}

bool m_get_u32(const mctx *j, const json_value *v, const char *path, uint32_t *out)
{
    uint64_t x;
    if (!m_get_uint(j, v, path, UINT32_MAX, &x)) return false;
    *out = (uint32_t)x;
    return true;
}

bool m_get_axis(const mctx *j, const json_value *v, const char *path, uint32_t *out)
{
    int64_t neg;
    char b[48];
    if (json_get_int64(v, &neg) && neg < 0)
        return mfail(j, path,
                     "%s: DirectML's Axis is an unsigned dimension index, counted from the first dimension "
                     "(0 to DimensionCount - 1; the last dimension is DimensionCount - 1, not -1)",
                     shown(v, b));
    return m_get_u32(j, v, path, out);
}

bool m_get_int_array(const mctx *j, const json_value *v, const char *path, int64_t lo, int64_t hi, int64_t *out,
                     uint32_t *count, bool *is_null)
{
    if (is_null) *is_null = v && v->kind == JSON_NULL;
    if (is_null && *is_null) return true;
    if (!v || v->kind != JSON_ARRAY) return mfail(j, path, "expected an array of integers, not %s", json_kind_name(v));
    if (v->count > MODEL_MAX_DIMS)
        return mfail(j, path, "%zu entries: at most %d are supported", v->count, MODEL_MAX_DIMS);
    int i = 0;
    json_iter it;
    for (const json_value *e = json_first(&it, v); e; e = json_next(&it), i++) {
        char p[PATH_LEN], b[48];
        mpath(p, sizeof p, "%s[%d]", path, i);
        int64_t x;
        bool whole = json_get_int64(e, &x);
        if (!whole || x < lo || x > hi) {
            if (lo == 0 && whole && x > hi) return mfail(j, p, "%s is too large (at most %lld)", shown(e, b), (long long)hi);
            if (lo == 0) return mfail(j, p, "expected a non-negative integer, not %s", shown(e, b));
            return mfail(j, p, "expected an integer from %lld to %lld, not %s", (long long)lo, (long long)hi, shown(e, b));
        }
        out[i] = x;
    }
    *count = (uint32_t)v->count;
    return true;
}

bool m_get_u32_array(const mctx *j, const json_value *v, const char *path, uint32_t *out, uint32_t *count,
                     bool *is_null)
{
    int64_t tmp[MODEL_MAX_DIMS] = {0};
    if (!m_get_int_array(j, v, path, 0, UINT32_MAX, tmp, count, is_null)) return false;
    if (is_null && *is_null) return true;
    for (uint32_t i = 0; i < *count; i++) out[i] = (uint32_t)tmp[i];
    return true;
}

bool m_get_enum(const mctx *j, const json_value *v, const char *path, const char *prefix, const char *const *names,
                const int *values, int *out)
{
    int64_t x;
    if (json_get_int64(v, &x) && x > INT32_MIN && x <= INT32_MAX) {
        *out = (int)x;
        return true;
    }
    if (v && v->kind == JSON_STRING) {
        const char *s = v->text;
        size_t pl = strlen(prefix);
        if (!strncmp(s, prefix, pl)) s += pl;
        for (int i = 0; names[i]; i++)
            if (!strcmp(s, names[i])) {
                *out = values[i];
                return true;
            }
    }
    char list[300] = "", q[80];
    for (int i = 0; names[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    if (v && v->kind == JSON_STRING)
        return mfail(j, path, "unknown name %s (expected %s)", json_quote(v->text, q, sizeof q), list);
    return mfail(j, path, "expected a name (%s), not %s", list, json_kind_name(v));
}

static const char *const type_names[] = {"UNKNOWN", "FLOAT32", "FLOAT16", "UINT32", "UINT16", "UINT8", "INT32",
                                         "INT16",   "INT8",    "FLOAT64", "UINT64", "INT64",  "UINT4", "INT4", NULL};
static const int type_values[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};

bool m_get_data_type(const mctx *j, const json_value *v, const char *path, DML_TENSOR_DATA_TYPE *out)
{
    int t;
    if (!m_get_enum(j, v, path, "DML_TENSOR_DATA_TYPE_", type_names, type_values, &t)) return false;
    *out = (DML_TENSOR_DATA_TYPE)t;
    return true;
}

bool m_get_string(const mctx *j, const json_value *v, const char *path, const char **out)
{
    if (!v || v->kind != JSON_STRING || !v->length)
        return mfail(j, path, "expected a non-empty string, not %s", v && v->kind == JSON_STRING ? "\"\"" : json_kind_name(v));
    *out = v->text;
    return true;
}

bool m_get_name(const mctx *j, const json_value *v, const char *path, const char **out)
{
    if (!v || v->kind != JSON_STRING) return mfail(j, path, "expected a name (a string), not %s", json_kind_name(v));
    *out = v->text;
    return true;
}

bool m_get_bool(const mctx *j, const json_value *v, const char *path, bool *out)
{
    if (!v || v->kind != JSON_BOOL) return mfail(j, path, "expected true or false, not %s", json_kind_name(v));
    *out = v->boolean;
    return true;
}

bool m_get_scalar(const mctx *j, const json_value *v, const char *path, DML_TENSOR_DATA_TYPE type, void *dst)
{
    return m_get_element(j, v, path, -1, type, dst);
}

bool m_get_element(const mctx *j, const json_value *v, const char *parent, long long index, DML_TENSOR_DATA_TYPE type,
                   void *dst)
{
    const char *why;
    char b[48], path[PATH_LEN];
    /* The path is made only for a message: an array of millions of values spent most of
     * its reading in snprintf. */
#define M_ELEMENT_PATH (index < 0 ? parent : (mpath(path, sizeof path, "%s[%lld]", parent, index), path))
    bool is_int = type != DML_TENSOR_DATA_TYPE_FLOAT16 && type != DML_TENSOR_DATA_TYPE_FLOAT32 &&
                  type != DML_TENSOR_DATA_TYPE_FLOAT64;
    if (!v || (v->kind != JSON_NUMBER && v->kind != JSON_BOOL && v->kind != JSON_STRING))
        return mfail(j, M_ELEMENT_PATH, "expected a number, not %s", json_kind_name(v));
    /* Text for strings, and for integer literals of a DxDispatch model (exact at any size). */
    bool as_text = v->kind == JSON_STRING || (j->dxdispatch && is_int && json_is_integer_literal(v));
    /* DxDispatch converts as a C cast would (spec/dxdispatch.md); ours insists on values
     * that fit, whole by their digits (1e-400 is not the integer 0, though its double is). */
    if (!j->dxdispatch && is_int && v->kind == JSON_NUMBER && !json_number_is_whole(v->text))
        return mfail(j, M_ELEMENT_PATH, "%s is not an integer (%s)", shown(v, b), dmlops_data_type_name(type));
    const double number = v->kind == JSON_NUMBER ? v->number : v->boolean ? 1 : 0;
    if (j->dxdispatch) why = as_text ? scalar_cast_text(type, v->text, dst) : scalar_cast_double(type, number, dst);
    else why = as_text ? scalar_from_text(type, v->text, dst) : scalar_from_double(type, number, dst);
    if (!why) return true;
    const char *text = v->kind == JSON_BOOL ? (v->boolean ? "true" : "false") : v->kind == JSON_STRING ? json_quote(v->text, b, sizeof b) : shown(v, b);
    return mfail(j, M_ELEMENT_PATH, "%s %s (%s)", text, why, dmlops_data_type_name(type));
#undef M_ELEMENT_PATH
}

/* ---- tensors ------------------------------------------------------------------------ */

bool m_parse_tensor(const mctx *j, const json_value *v, const char *path, model_tensor *t)
{
    static const char *const keys[] = {"Type", "DataType", "Flags", "DimensionCount", "Sizes", "Strides",
                                       "TotalTensorSizeInBytes", "GuaranteedBaseOffsetAlignment", NULL};
    static const char *const desc_keys[] = {"DataType", "Flags", "DimensionCount", "Sizes", "Strides",
                                            "TotalTensorSizeInBytes", "GuaranteedBaseOffsetAlignment", NULL};
    static const char *const long_keys[] = {"Type", "Desc", NULL};
    static const char *const tt_names[] = {"INVALID", "BUFFER", NULL}, *const flag_names[] = {"NONE", "OWNED_BY_DML", NULL};
    static const int tt_values[] = {0, 1}, flag_values[] = {0, 1};
    char p[PATH_LEN], dp[PATH_LEN];
    memset(t, 0, sizeof *t);
    if (!v) return mfail(j, path, "missing (use null for a NULL tensor)");
    if (v->kind == JSON_NULL) return true;
    if (v->kind != JSON_OBJECT) return mfail(j, path, "expected a tensor object, not %s", json_kind_name(v));
    const json_value *body = v, *f;
    mpath(dp, sizeof dp, "%s", path);
    if ((f = json_member(v, "Desc"))) {
        if (!m_check_keys(j, v, path, long_keys)) return false;
        mpath(dp, sizeof dp, "%s.Desc", path);
        if (f->kind != JSON_OBJECT) return mfail(j, dp, "expected a buffer tensor desc object, not %s", json_kind_name(f));
        if (!m_check_keys(j, f, dp, desc_keys)) return false;
        body = f;
    } else if (!m_check_keys(j, v, path, keys)) {
        return false;
    }
    t->present = true;
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    int e;
    if ((f = json_member(v, "Type"))) {
        mpath(p, sizeof p, "%s.Type", path);
        if (!m_get_enum(j, f, p, "DML_TENSOR_TYPE_", tt_names, tt_values, &e)) return false;
        t->desc.Type = (DML_TENSOR_TYPE)e;
    }
    mpath(p, sizeof p, "%s.DataType", dp);
    if (!(f = json_member(body, "DataType"))) return mfail(j, p, "missing");
    if (!m_get_data_type(j, f, p, &t->buf.DataType)) return false;
    if ((f = json_member(body, "Flags"))) {
        mpath(p, sizeof p, "%s.Flags", dp);
        if (!m_get_enum(j, f, p, "DML_TENSOR_FLAG_", flag_names, flag_values, &e)) return false;
        t->buf.Flags = (DML_TENSOR_FLAGS)e;
    }
    uint32_t n = 0, ns = 0;
    mpath(p, sizeof p, "%s.Sizes", dp);
    if (!(f = json_member(body, "Sizes"))) return mfail(j, p, "missing");
    if (!m_get_u32_array(j, f, p, t->sizes, &n, NULL)) return false;
    t->buf.DimensionCount = n;
    t->buf.Sizes = t->sizes;
    if ((f = json_member(body, "DimensionCount"))) {
        mpath(p, sizeof p, "%s.DimensionCount", dp);
        uint32_t dc;
        if (!m_get_u32(j, f, p, &dc)) return false;
        if (dc != n) return mfail(j, p, "%u differs from the %u entries of Sizes", dc, n);
    }
    bool null_strides = true;
    if ((f = json_member(body, "Strides"))) {
        mpath(p, sizeof p, "%s.Strides", dp);
        /* DxDispatch reads an empty array as no strides (packed). */
        if (j->dxdispatch && f->kind == JSON_ARRAY && f->count == 0) ns = 0;
        else if (!m_get_u32_array(j, f, p, t->strides, &ns, &null_strides)) return false;
        if (!null_strides && ns != n) return mfail(j, p, "%u entries, but Sizes has %u", ns, n);
    }
    t->buf.Strides = null_strides ? NULL : t->strides;
    if ((f = json_member(body, "TotalTensorSizeInBytes"))) {
        mpath(p, sizeof p, "%s.TotalTensorSizeInBytes", dp);
        if (!m_get_uint(j, f, p, UINT64_MAX, &t->buf.TotalTensorSizeInBytes)) return false;
    }
    if (!f || (j->dxdispatch && t->buf.TotalTensorSizeInBytes == 0)) {
        /* 0 when the tensor is invalid: the library then says why. */
        t->buf.TotalTensorSizeInBytes = n ? dmlops_calc_buffer_tensor_size(t->buf.DataType, n, t->sizes, t->buf.Strides) : 0;
    }
    if ((f = json_member(body, "GuaranteedBaseOffsetAlignment"))) {
        mpath(p, sizeof p, "%s.GuaranteedBaseOffsetAlignment", dp);
        if (!m_get_u32(j, f, p, &t->buf.GuaranteedBaseOffsetAlignment)) return false;
    }
    return true;
}

/* ---- operators ---------------------------------------------------------------------- */

bool m_operator_type(const char *name, DML_OPERATOR_TYPE *out)
{
    static const struct {
        const char *name;
        DML_OPERATOR_TYPE type;
    } ops[] = {{"REVERSE_SUBSEQUENCES", DML_OPERATOR_REVERSE_SUBSEQUENCES},
               {"SLICE1", DML_OPERATOR_SLICE1},
               {"ONE_HOT", DML_OPERATOR_ONE_HOT}};
    if (!strncmp(name, "DML_OPERATOR_", 13)) name += 13;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(name, ops[i].name)) {
            *out = ops[i].type;
            return true;
        }
    return false;
}

void m_op_setup(model_op *op)
{
    static const char *const rev[] = {"InputTensor", "SequenceLengthsTensor", "OutputTensor", NULL};
    static const char *const slice[] = {"InputTensor", "OutputTensor", NULL};
    static const char *const hot[] = {"IndicesTensor", "ValuesTensor", "OutputTensor", NULL};
    const char *const *names = op->type == DML_OPERATOR_REVERSE_SUBSEQUENCES ? rev
                               : op->type == DML_OPERATOR_ONE_HOT            ? hot
                                                                             : slice;
    op->ntensors = 0;
    for (uint32_t i = 0; names[i]; i++) op->tensor_names[op->ntensors++] = names[i];
    op->tensor_names[op->ntensors] = NULL;
    op->ninputs = op->ntensors - 1;
}

bool m_parse_op_fields(const mctx *j, const json_value *obj, const char *path, model_op *op)
{
    char p[PATH_LEN];
    const json_value *f;
    for (uint32_t i = 0; i < op->ntensors; i++) {
        mpath(p, sizeof p, "%s.%s", path, op->tensor_names[i]);
        if (!m_parse_tensor(j, json_member(obj, op->tensor_names[i]), p, &op->t[i])) return false;
    }
    if (op->type == DML_OPERATOR_REVERSE_SUBSEQUENCES || op->type == DML_OPERATOR_ONE_HOT) {
        mpath(p, sizeof p, "%s.Axis", path);
        if (!(f = json_member(obj, "Axis"))) return mfail(j, p, "missing");
        return m_get_axis(j, f, p, &op->axis);
    }
    if (op->type != DML_OPERATOR_SLICE1) return true;
    static const char *const arrays[] = {"InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"};
    bool *nulls[] = {&op->null_offsets, &op->null_window_sizes, &op->null_window_strides};
    uint32_t counts[3] = {0, 0, 0};
    int64_t tmp[MODEL_MAX_DIMS] = {0};
    for (int a = 0; a < 3; a++) {
        mpath(p, sizeof p, "%s.%s", path, arrays[a]);
        if (!(f = json_member(obj, arrays[a]))) return mfail(j, p, "missing");
        if (!m_get_int_array(j, f, p, a < 2 ? 0 : INT32_MIN, a < 2 ? UINT32_MAX : INT32_MAX, tmp, &counts[a], nulls[a]))
            return false;
        for (uint32_t i = 0; i < counts[a]; i++) {
            if (a == 0) op->offsets[i] = (uint32_t)tmp[i];
            else if (a == 1) op->window_sizes[i] = (uint32_t)tmp[i];
            else op->window_strides[i] = (int32_t)tmp[i];
        }
    }
    int first = !op->null_offsets ? 0 : !op->null_window_sizes ? 1 : 2;
    op->dim_count = counts[first];
    if ((f = json_member(obj, "DimensionCount"))) {
        mpath(p, sizeof p, "%s.DimensionCount", path);
        if (!m_get_u32(j, f, p, &op->dim_count)) return false;
    }
    for (int a = 0; a < 3; a++)
        if (!*nulls[a] && counts[a] != op->dim_count) {
            mpath(p, sizeof p, "%s.%s", path, arrays[a]);
            return mfail(j, p, "%u entries, but DimensionCount is %u", counts[a], op->dim_count);
        }
    return true;
}

void m_wire_operator(model_op *op)
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

/* ---- files and shapes --------------------------------------------------------------- */

char *m_join_path(const char *dir, const char *p)
{
    size_t n = strlen(dir) + strlen(p) + 2;
    char *s = malloc(n);
    if (!s) return NULL;
    if (p[0] == '/' || !dir[0]) snprintf(s, n, "%s", p);
    else snprintf(s, n, "%s/%s", dir, p);
    return s;
}

char *m_read_file(const char *path, uint64_t most, const char *most_is, bool json, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return NULL;
    }
    char *buf = NULL, b[32];
    size_t n = 0, cap = 0;
    const uint64_t host = m_host_memory();
    if (!most || host < most) most = host;
    const char *limit = most == host ? "the host memory" : most_is;
    /* A regular file's size is known: one past the bound is refused before it is read. */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > most) {
        char a[32];
        snprintf(err, errlen, "it holds %s, more than %s (%s)", cli_bytes((uint64_t)st.st_size, a), limit,
                 cli_bytes(most, b));
        fclose(f);
        return NULL;
    }
    for (;;) {
        if (n + 1 >= cap) {
            if ((uint64_t)n >= most) {
                snprintf(err, errlen, "it holds more than %s (%s)", limit, cli_bytes(most, b));
                free(buf);
                fclose(f);
                return NULL;
            }
            size_t nc = cap ? cap * 2 : 4096;
            if (nc > most + 2 && most + 2 > cap) nc = (size_t)most + 2; /* a byte past the bound, and the NUL */
            char *nb = nc > cap ? realloc(buf, nc) : NULL;
            if (!nb) {
                snprintf(err, errlen, "out of memory reading it");
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        const char *nul = json && got ? memchr(buf + n, '\0', got) : NULL;
        if (nul) {
            snprintf(err, errlen, "a NUL byte at offset %llu: not a JSON text", (unsigned long long)(nul - buf));
            free(buf);
            fclose(f);
            return NULL;
        }
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

uint64_t m_model_budget(uint64_t text_bytes)
{
    const uint64_t half = m_host_memory() / 2;
    uint64_t b = text_bytes > (UINT64_MAX - MODEL_MEMORY_FLOOR) / MODEL_MEMORY_PER_BYTE
                     ? UINT64_MAX
                     : text_bytes * MODEL_MEMORY_PER_BYTE + MODEL_MEMORY_FLOOR;
    return b < half ? b : half;
}

bool m_check_tables(const mctx *j, const char *path, uint64_t bytes, const char *what)
{
    if (j->json_memory <= j->budget && bytes <= j->budget - j->json_memory) return true;
    char a[32], b[32], c[32];
    return mfail(j, path, "%s would take %s of memory to hold with the model's JSON (%s), more than a model of "
                          "this size may take (%s: %u bytes per byte of its text, at most half the host memory)",
                 what, cli_bytes(bytes, a), cli_bytes(j->json_memory, b), cli_bytes(j->budget, c), MODEL_MEMORY_PER_BYTE);
}

bool m_take_data(const mctx *j, const char *path, uint64_t bytes, const char *what)
{
    if (!j->data || (*j->data <= j->data_limit && bytes <= j->data_limit - *j->data)) {
        if (j->data) *j->data += bytes;
        return true;
    }
    char a[32], b[32], c[32];
    return mfail(j, path, "%s: %s of initial values, after the %s read before, pass the host memory (%s)", what,
                 cli_bytes(bytes, a), cli_bytes(*j->data, b), cli_bytes(j->data_limit, c));
}

/* The longest file name the file system takes where path would be made: pathconf of the
 * nearest directory above it that exists (NAME_MAX when it cannot tell). */
static long m_name_max(const char *path)
{
    char *dir = strdup(path);
    long most = -1;
    for (char *slash; dir && most < 0;) {
        slash = strrchr(dir, '/');
        if (!slash) {
            most = pathconf(".", _PC_NAME_MAX);
            break;
        }
        slash[slash == dir] = '\0'; /* "/x" keeps "/" */
        most = pathconf(dir, _PC_NAME_MAX);
        if (slash == dir) break;
    }
    free(dir);
    return most > 0 ? most : NAME_MAX;
}

bool m_output_path(const mctx *j, const char *path, const char *given, char **out)
{
    char q[200], d[240];
    bool up = false;
    for (const char *c = given; *c;) {
        const size_t n = strcspn(c, "/");
        up = up || (n == 2 && c[0] == '.' && c[1] == '.');
        c += n + (c[n] == '/');
    }
    /* Models are written by strangers (docs/reliability.md): what they write stays in the
     * output directory unless the user says otherwise. */
    if (!j->any_output_path && (given[0] == '/' || up)) {
        if (j->output_dir) snprintf(d, sizeof d, "the output directory %s", json_quote(j->output_dir, q, 160));
        else snprintf(d, sizeof d, "the output directory (the current directory without --output-dir)");
        return mfail(j, path, "%s: %s would write outside %s: give a path inside it, or run with --allow-any-output-path",
                     json_quote(given, q, sizeof q), given[0] == '/' ? "an absolute path" : "a path through \"..\"", d);
    }
    if (!(*out = m_join_path(j->output_dir ? j->output_dir : "", given))) return mfail(j, path, "out of memory");
    /* Names the file system would refuse, found now rather than after the run. */
    if (strlen(*out) >= PATH_MAX)
        return mfail(j, path, "%s: %zu bytes, more than a path may have (PATH_MAX, %d)", json_quote(*out, q, sizeof q),
                     strlen(*out), PATH_MAX);
    const long most = m_name_max(*out);
    for (const char *c = *out; *c;) {
        const size_t n = strcspn(c, "/");
        if ((long)n > most) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(n < 40 ? n : 40), c);
            return mfail(j, path, "the name \"%s%s\" has %zu bytes, more than the %ld a file name may have there",
                         name, n > 40 ? "..." : "", n, most);
        }
        c += n + (c[n] == '/');
    }
    return true;
}

static int m_name_cmp(const void *a, const void *b)
{
    const m_name *x = a, *y = b;
    const int c = strcmp(x->name, y->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static m_name *m_names_sorted(m_name *v, size_t n)
{
    if (v) qsort(v, n, sizeof *v, m_name_cmp);
    return v;
}

m_name *m_names_of_resources(const model *m)
{
    m_name *v = m->nres ? malloc(m->nres * sizeof *v) : NULL;
    for (size_t i = 0; v && i < m->nres; i++) v[i] = (m_name){m->res[i].name ? m->res[i].name : "", i};
    return m_names_sorted(v, m->nres);
}

m_name *m_names_of_ops(const model *m)
{
    m_name *v = m->nops ? malloc(m->nops * sizeof *v) : NULL;
    for (size_t i = 0; v && i < m->nops; i++) v[i] = (m_name){m->ops[i].name ? m->ops[i].name : "", i};
    return m_names_sorted(v, m->nops);
}

long m_names_find(const m_name *v, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the first entry not below name */
        const size_t mid = lo + (hi - lo) / 2;
        if (strcmp(v[mid].name, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && !strcmp(v[lo].name, name) ? (long)v[lo].index : -1;
}

size_t m_names_duplicate(const m_name *v, size_t n)
{
    size_t best = SIZE_MAX;
    for (size_t i = 1; i < n; i++)
        if (!strcmp(v[i - 1].name, v[i].name) && v[i].index < best) best = v[i].index;
    return best;
}

bool m_read_npy(const mctx *j, const char *path, const char *source, npy_array *out)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(source, "rb");
    if (!f) return mfail(j, path, "%s: cannot open: %s", source, strerror(errno));
    const uint64_t held = j->data ? *j->data : 0, left = j->data_limit > held ? j->data_limit - held : 0;
    uint64_t announced = 0;
    char err[300];
    const bool ok = npy_read_stream(f, left ? left : 1, &announced, out, err, sizeof err);
    fclose(f);
    if (!ok && announced > left) {
        char a[32], b[32], c[32];
        return mfail(j, path, "%s: its shape needs %s of data, which with the %s of initial values read before passes "
                              "the host memory (%s)",
                     source, cli_bytes(announced, a), cli_bytes(held, b), cli_bytes(j->data_limit, c));
    }
    if (!ok) return mfail(j, path, "%s: %s", source, err);
    return m_take_data(j, path, announced, source);
}

void m_shape_text(const npy_array *a, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%s [", dmlops_data_type_name(a->type));
    for (uint32_t i = 0; i < a->ndim && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%llu", i ? ", " : "", (unsigned long long)a->shape[i]);
    if (n < len) snprintf(buf + n, len - n, "]");
}

bool m_shape_count(npy_array *a)
{
    /* numpy refuses a shape whose nonzero dimensions multiply past 2^63 bytes, even with a
     * 0 among them; at most 2^60 elements keeps every element size of 8 or less inside. */
    uint64_t nonzero = 1;
    bool empty = false;
    for (uint32_t i = 0; i < a->ndim; i++) {
        if (!a->shape[i]) {
            empty = true;
            continue;
        }
        if (nonzero > ((uint64_t)INT64_MAX / 8) / a->shape[i]) return false;
        nonzero *= a->shape[i];
    }
    a->count = empty ? 0 : nonzero;
    return true;
}

uint64_t m_host_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0) return UINT64_MAX;
    return (uint64_t)pages * (uint64_t)size;
}

