/* DirectML's DxDispatch model format (docs/cli.md; DxDispatch/doc/Guide.md in the
 * microsoft/DirectML repository): "resources" (buffers with constant, array, sequence or
 * file initializers), "dispatchables" (here: our three DirectML operators, and the older
 * DML_OPERATOR_SLICE run as SLICE1) and "commands" (dispatch, print, writeFile).
 *
 * Where DxDispatch itself is lenient (it ignores unknown members) this parser refuses them,
 * so that a typo never passes silently; everything DxDispatch documents for DirectML
 * operators is accepted. Out-of-scope features (images, the list initializer, HLSL and
 * ONNX dispatchables, other operators) are refused by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "model_parse.h"
#include "scalar.h"

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcasecmp(s + n - k, suffix);
}

static bool is_image(const char *path)
{
    return has_suffix(path, ".png") || has_suffix(path, ".jpg") || has_suffix(path, ".jpeg") ||
           has_suffix(path, ".bmp") || has_suffix(path, ".gif") || has_suffix(path, ".tif") ||
           has_suffix(path, ".tiff");
}

/* ---- resources ---------------------------------------------------------------------- */

/* sourcePath: relative to the model first, then to the current directory. Looked up, not
 * opened: opening a FIFO waits for its writer, whose data would then go to this probe. */
static char *resolve_input(const mctx *j, const char *p)
{
    char *full = m_join_path(j->dir, p);
    if (!full || p[0] == '/' || !j->dir[0] || access(full, F_OK) == 0 || access(p, F_OK) != 0)
        return full; /* a path that is nowhere is reported relative to the model */
    free(full);
    return strdup(p);
}

static bool need_type(const mctx *j, const char *path, const model_resource *r, const char *what)
{
    if (r->init.type == DML_TENSOR_DATA_TYPE_UNKNOWN)
        return mfail(j, path, "%s needs \"initialValuesDataType\"", what);
    if (!npy_element_size(r->init.type))
        return mfail(j, path, "initialValuesDataType %s has no element size", dmlops_data_type_name(r->init.type));
    return true;
}

static bool parse_count(const mctx *j, const json_value *obj, const char *path, uint64_t *count)
{
    char p[PATH_LEN];
    uint32_t n;
    mpath(p, sizeof p, "%s.valueCount", path);
    const json_value *f = json_member(obj, "valueCount");
    if (!f) return mfail(j, p, "missing");
    if (!m_get_u32(j, f, p, &n)) return false;
    if (n == 0) return mfail(j, p, "must be larger than 0");
    *count = n;
    return true;
}

/* A file initializer; size_in_bytes is the resource's sizeInBytes, 0 when not given. */
static bool parse_file(const mctx *j, const json_value *obj, const char *path, model_resource *r, uint64_t size_in_bytes)
{
    static const char *const keys[] = {"sourcePath", NULL};
    char p[PATH_LEN], err[300];
    const char *s;
    if (!m_check_keys(j, obj, path, keys)) return false;
    mpath(p, sizeof p, "%s.sourcePath", path);
    if (!m_get_string(j, json_member(obj, "sourcePath"), p, &s)) return false;
    if (is_image(s))
        return mfail(j, p, "%s: image initializers are not supported (only .npy and raw .dat/.bin files)", s);
    if (!(r->source = resolve_input(j, s))) return mfail(j, p, "out of memory");
    r->init_kind = MODEL_INIT_DATA;
    if (has_suffix(s, ".npy")) {
        npy_array a;
        if (!m_read_npy(j, p, r->source, &a)) return false;
        if (r->init.type != DML_TENSOR_DATA_TYPE_UNKNOWN && r->init.type != a.type) {
            char t[200];
            m_shape_text(&a, t, sizeof t);
            npy_free(&a);
            return mfail(j, p, "%s holds %s, but initialValuesDataType is %s", r->source, t,
                         dmlops_data_type_name(r->init.type));
        }
        r->init = a;
        if (a.count == 0) return mfail(j, p, "%s holds no element: initialValues must be non-empty", r->source);
        return true;
    }
    /* Raw bytes of initialValuesDataType. A regular file's size is known before it is
     * read; a pipe's or a device's is not (/dev/zero never ends), so that one is read no
     * further than the resource's sizeInBytes, which it then needs. */
    if (!need_type(j, path, r, "a raw file")) return false;
    struct stat st;
    if (stat(r->source, &st) == 0 && !S_ISREG(st.st_mode) && !size_in_bytes)
        return mfail(j, p, "%s is not a regular file (a pipe or a device): its size is unknown until it is read, so "
                           "the resource needs a sizeInBytes to bound what is read",
                     r->source);
    const uint64_t held = j->data ? *j->data : 0, left = j->data_limit > held ? j->data_limit - held : 1;
    const bool by_size = size_in_bytes && size_in_bytes < left;
    size_t len;
    char *bytes = m_read_file(r->source, by_size ? size_in_bytes : left,
                              by_size ? "the resource's sizeInBytes" : "the host memory less the initial values read before",
                              false, &len, err, sizeof err);
    if (!bytes) return mfail(j, p, "%s: %s", r->source, err);
    if (!m_take_data(j, p, len, r->source)) {
        free(bytes);
        return false;
    }
    uint32_t es = npy_element_size(r->init.type);
    if (len == 0 || len % es) {
        free(bytes);
        return mfail(j, p, "%s holds %zu bytes, not a positive multiple of the %u bytes of %s", r->source, len, es,
                     dmlops_data_type_name(r->init.type));
    }
    r->init.data = bytes;
    r->init.ndim = 1;
    r->init.shape[0] = r->init.count = len / es;
    return true;
}

static bool parse_resource(const mctx *j, const char *name, const json_value *v, const char *path, model_resource *r)
{
    static const char *const keys[] = {"initialValuesDataType", "initialValues", "sizeInBytes",
                                       "initialValuesOffsetInBytes", "resampleSize", "resampleMode", NULL};
    static const char *const constant_keys[] = {"valueCount", "value", NULL};
    static const char *const sequence_keys[] = {"valueCount", "valueStart", "valueDelta", NULL};
    char p[PATH_LEN], q[PATH_LEN];
    const json_value *f;
    mpath(r->where, sizeof r->where, "%s", path);
    r->last_writer = -1;
    if (!(r->name = strdup(name))) return mfail(j, path, "out of memory");
    if (v->kind != JSON_OBJECT) return mfail(j, path, "expected a buffer object, not %s", json_kind_name(v));
    if (!m_check_keys(j, v, path, keys)) return false;
    bool typed = false;
    if ((f = json_member(v, "initialValuesDataType"))) {
        mpath(p, sizeof p, "%s.initialValuesDataType", path);
        if (!m_get_data_type(j, f, p, &r->init.type)) return false;
        typed = true;
    }
    mpath(p, sizeof p, "%s.initialValues", path);
    const json_value *iv = json_member(v, "initialValues");
    if (!iv) return mfail(j, p, "missing");
    if (iv->kind == JSON_ARRAY) {
        if (typed && r->init.type == DML_TENSOR_DATA_TYPE_UNKNOWN)
            return mfail(j, p, "the list initializer (initialValuesDataType UNKNOWN, elements {type, value}) is for "
                               "HLSL constant buffers and is not supported");
        if (!need_type(j, path, r, "an array initializer")) return false;
        if (!iv->count) return mfail(j, p, "an empty array: initialValues must be non-empty");
        uint32_t es = npy_element_size(r->init.type);
        r->init_kind = MODEL_INIT_DATA;
        r->init.ndim = 1;
        r->init.shape[0] = r->init.count = iv->count;
        if (!m_take_data(j, p, (uint64_t)iv->count * es, "its values")) return false;
        if (!(r->init.data = malloc(iv->count * es))) return mfail(j, p, "out of memory");
        size_t i = 0;
        json_iter it;
        for (const json_value *e = json_first(&it, iv); e; e = json_next(&it), i++)
            if (!m_get_element(j, e, p, (long long)i, r->init.type, (uint8_t *)r->init.data + i * es)) return false;
    } else if (iv->kind == JSON_OBJECT) {
        bool has_value = json_member(iv, "value"), has_start = json_member(iv, "valueStart"),
             has_path = json_member(iv, "sourcePath");
        if (has_value + has_start + has_path > 1)
            return mfail(j, p, "give one of \"value\" (constant), \"valueStart\" (sequence) or \"sourcePath\" (file)");
        if (has_path) {
            /* sizeInBytes, when given, bounds what a file that is a stream may hold; it is
             * checked as a field below. */
            uint64_t size_in_bytes = 0;
            if (!json_get_uint64(json_member(v, "sizeInBytes"), &size_in_bytes)) size_in_bytes = 0;
            if (!parse_file(j, iv, p, r, size_in_bytes)) return false;
        } else if (has_value || has_start) {
            if (!m_check_keys(j, iv, p, has_value ? constant_keys : sequence_keys)) return false;
            if (!need_type(j, path, r, has_value ? "a constant initializer" : "a sequence initializer")) return false;
            if (!parse_count(j, iv, p, &r->init.count)) return false;
            r->init.ndim = 1;
            r->init.shape[0] = r->init.count;
            r->init_kind = has_value ? MODEL_INIT_CONSTANT : MODEL_INIT_SEQUENCE;
            static const char *const fields[] = {"value", "valueStart", "valueDelta"};
            for (int k = has_value ? 0 : 1; k < (has_value ? 1 : 3); k++) {
                mpath(q, sizeof q, "%s.%s", p, fields[k]);
                if (!(f = json_member(iv, fields[k]))) return mfail(j, q, "missing");
                if (!m_get_scalar(j, f, q, r->init.type, k == 2 ? r->delta : r->value)) return false;
            }
        } else {
            return mfail(j, p, "expected a constant {valueCount, value}, a sequence {valueCount, valueStart, "
                               "valueDelta} or a file {sourcePath}");
        }
    } else if (iv->kind == JSON_STRING && !strcmp(iv->text, "deferred")) {
        return mfail(j, p, "\"deferred\" resources (bound by ONNX dispatchables) are not supported");
    } else {
        return mfail(j, p, "expected an array of values or an object, not %s", json_kind_name(iv));
    }
    uint64_t bytes = model_init_bytes(r);
    r->size = bytes;
    if ((f = json_member(v, "sizeInBytes"))) {
        mpath(q, sizeof q, "%s.sizeInBytes", path);
        if (!m_get_uint(j, f, q, UINT64_MAX - 3, &r->size)) return false;
        if (r->size < bytes)
            return mfail(j, q, "%llu bytes cannot hold the %llu bytes of initialValues", (unsigned long long)r->size,
                         (unsigned long long)bytes);
    }
    /* DxDispatch reads initialValuesOffsetInBytes only to check that the values fit after
     * it (JsonParsers.cpp); it still writes them from byte 0, and so do we. */
    if ((f = json_member(v, "initialValuesOffsetInBytes"))) {
        uint64_t off;
        mpath(q, sizeof q, "%s.initialValuesOffsetInBytes", path);
        if (!m_get_uint(j, f, q, UINT64_MAX, &off)) return false;
        if (off > r->size || bytes > r->size - off)
            return mfail(j, q, "the buffer (%llu bytes) is too small for the %llu bytes of initialValues at offset %llu",
                         (unsigned long long)r->size, (unsigned long long)bytes, (unsigned long long)off);
    }
    r->size = (r->size + 3) & ~(uint64_t)3; /* DirectML's 4-byte alignment */
    r->view = r->init;
    r->view.data = NULL;
    r->shaped = true;
    return true;
}

/* ---- dispatchables ------------------------------------------------------------------ */

static const char *const rev_fields[] = {"InputTensor", "SequenceLengthsTensor", "OutputTensor", "Axis", NULL};
static const char *const slice1_fields[] = {"InputTensor",      "OutputTensor",     "DimensionCount", "InputWindowOffsets",
                                            "InputWindowSizes", "InputWindowStrides", NULL};
static const char *const hot_fields[] = {"IndicesTensor", "ValuesTensor", "OutputTensor", "Axis", NULL};
static const char *const slice_fields[] = {"InputTensor", "OutputTensor", "DimensionCount", "Offsets", "Sizes",
                                           "Strides", NULL};
static const char *const outer_fields[] = {"type", "Type", "desc", "Desc", "dmlCompileType", "executionFlags",
                                           "bindings", NULL};

/* DML_OPERATOR_SLICE: Sizes are the output's; element i of dimension d reads
 * Offsets[d] + i * Strides[d]. As SLICE1: the same offsets and strides over a window of
 * (Sizes[d] - 1) * Strides[d] + 1 elements. */
static bool parse_legacy_slice(const mctx *j, const json_value *obj, const char *path, model_op *op)
{
    static const char *const arrays[] = {"Offsets", "Sizes", "Strides"};
    uint32_t a[3][MODEL_MAX_DIMS], n[3], dc;
    char p[PATH_LEN];
    const json_value *f;
    for (uint32_t i = 0; i < op->ntensors; i++) {
        mpath(p, sizeof p, "%s.%s", path, op->tensor_names[i]);
        if (!m_parse_tensor(j, json_member(obj, op->tensor_names[i]), p, &op->t[i])) return false;
    }
    mpath(p, sizeof p, "%s.DimensionCount", path);
    if (!(f = json_member(obj, "DimensionCount"))) return mfail(j, p, "missing");
    if (!m_get_u32(j, f, p, &dc)) return false;
    for (int k = 0; k < 3; k++) {
        mpath(p, sizeof p, "%s.%s", path, arrays[k]);
        if (!(f = json_member(obj, arrays[k]))) return mfail(j, p, "missing");
        if (!m_get_u32_array(j, f, p, a[k], &n[k], NULL)) return false;
        if (n[k] != dc) return mfail(j, p, "%u entries, but DimensionCount is %u", n[k], dc);
    }
    for (uint32_t d = 0; d < dc; d++) {
        if (a[1][d] == 0) {
            mpath(p, sizeof p, "%s.Sizes[%u]", path, d);
            return mfail(j, p, "0: a slice takes at least one element in each dimension");
        }
        if (a[2][d] == 0 || a[2][d] > INT32_MAX) {
            mpath(p, sizeof p, "%s.Strides[%u]", path, d);
            return mfail(j, p, "%u: strides go from 1 to %d", a[2][d], INT32_MAX);
        }
        uint64_t window = (uint64_t)(a[1][d] - 1) * a[2][d] + 1;
        if (window > UINT32_MAX) {
            mpath(p, sizeof p, "%s.Sizes[%u]", path, d);
            return mfail(j, p, "(Sizes - 1) * Strides + 1 = %llu elements is beyond UINT32", (unsigned long long)window);
        }
        op->offsets[d] = a[0][d];
        op->window_sizes[d] = (uint32_t)window;
        op->window_strides[d] = (int32_t)a[2][d];
    }
    op->dim_count = dc;
    return true;
}

static bool parse_dispatchable(const mctx *j, const char *name, const json_value *v, const char *path, model_op *op)
{
    static const char *const flag_names[] = {"NONE", "ALLOW_HALF_PRECISION_COMPUTATION", "DISABLE_META_COMMANDS",
                                             "DESCRIPTORS_VOLATILE", NULL};
    static const int flag_values[] = {0, 1, 2, 4};
    char p[PATH_LEN], q[80];
    const json_value *f;
    mpath(op->where, sizeof op->where, "%s", path);
    if (!(op->name = strdup(name))) return mfail(j, path, "out of memory");
    if (v->kind != JSON_OBJECT) return mfail(j, path, "expected a dispatchable object, not %s", json_kind_name(v));
    const json_value *type = json_member(v, "type"), *desc = json_member(v, "desc");
    if (type && json_member(v, "Type")) return mfail(j, path, "give \"type\" or \"Type\", not both");
    if (desc && json_member(v, "Desc")) return mfail(j, path, "give \"desc\" or \"Desc\", not both");
    if (!type) type = json_member(v, "Type");
    if (!desc) desc = json_member(v, "Desc");
    mpath(p, sizeof p, "%s.%s", path, type && type->key[0] == 'T' ? "Type" : "type");
    if (!type) return mfail(j, p, "missing");
    if (type->kind != JSON_STRING) return mfail(j, p, "expected an operator type name, not %s", json_kind_name(type));
    const char *t = type->text;
    if (!strcasecmp(t, "hlsl") || !strcasecmp(t, "onnx") || !strcasecmp(t, "dmlSerializedGraph"))
        return mfail(j, p, "%s dispatchables are not supported: dmlops runs the DirectML operators "
                           "REVERSE_SUBSEQUENCES, SLICE1, ONE_HOT and SLICE",
                     json_quote(t, q, sizeof q));
    bool legacy = !strcmp(t, "DML_OPERATOR_SLICE") || !strcmp(t, "SLICE");
    if (legacy) op->type = DML_OPERATOR_SLICE1;
    else if (!m_operator_type(t, &op->type))
        return mfail(j, p, "%s is not supported: dmlops runs DML_OPERATOR_REVERSE_SUBSEQUENCES, DML_OPERATOR_SLICE1, "
                           "DML_OPERATOR_ONE_HOT, and DML_OPERATOR_SLICE as SLICE1",
                     json_quote(t, q, sizeof q));
    if (legacy) mpath(op->where, sizeof op->where, "%s (DML_OPERATOR_SLICE, run as SLICE1)", path);
    m_op_setup(op);
    const char *const *fields = legacy                                        ? slice_fields
                                : op->type == DML_OPERATOR_REVERSE_SUBSEQUENCES ? rev_fields
                                : op->type == DML_OPERATOR_SLICE1             ? slice1_fields
                                                                              : hot_fields;
    /* The desc's fields sit in "desc", or inline beside "type". */
    const char *allowed[24];
    size_t na = 0;
    for (const char *const *o = outer_fields; *o; o++) allowed[na++] = *o;
    if (!desc)
        for (const char *const *o = fields; *o; o++) allowed[na++] = *o;
    allowed[na] = NULL;
    if (!m_check_keys(j, v, path, allowed)) return false;
    char dp[PATH_LEN];
    mpath(dp, sizeof dp, "%s", path);
    const json_value *body = v;
    if (desc) {
        mpath(dp, sizeof dp, "%s.%s", path, desc->key);
        if (desc->kind != JSON_OBJECT) return mfail(j, dp, "expected the operator desc object, not %s", json_kind_name(desc));
        if (!m_check_keys(j, desc, dp, fields)) return false;
        body = desc;
    }
    if ((f = json_member(v, "dmlCompileType"))) {
        mpath(p, sizeof p, "%s.dmlCompileType", path);
        if (f->kind != JSON_STRING || (strcmp(f->text, "DmlCompileOp") != 0 && strcmp(f->text, "DmlCompileGraph") != 0))
            return mfail(j, p, "expected \"DmlCompileOp\" or \"DmlCompileGraph\"");
    }
    if ((f = json_member(v, "executionFlags"))) {
        mpath(p, sizeof p, "%s.executionFlags", path);
        int flag;
        if (f->kind == JSON_ARRAY) {
            size_t i = 0;
            json_iter it;
            for (const json_value *e = json_first(&it, f); e; e = json_next(&it), i++) {
                mpath(q, sizeof q, "[%zu]", i);
                char ep[PATH_LEN];
                mpath(ep, sizeof ep, "%s%s", p, q);
                if (!m_get_enum(j, e, ep, "DML_EXECUTION_FLAG_", flag_names, flag_values, &flag)) return false;
            }
        } else if (!m_get_enum(j, f, p, "DML_EXECUTION_FLAG_", flag_names, flag_values, &flag)) {
            return false;
        }
    }
    if ((f = json_member(v, "bindings")) && (f->kind != JSON_OBJECT || f->count)) {
        mpath(p, sizeof p, "%s.bindings", path);
        return mfail(j, p, "initialization bindings (for OWNED_BY_DML tensors) are not supported");
    }
    return legacy ? parse_legacy_slice(j, body, dp, op) : m_parse_op_fields(j, body, dp, op);
}

/* ---- commands ----------------------------------------------------------------------- */

static bool parse_resource_ref(const mctx *j, const json_value *v, const char *path, const model *m, size_t *out)
{
    const char *name;
    char q[80];
    if (!m_get_name(j, v, path, &name)) return false;
    const long r = m_names_find(m->res_names, m->nres, name);
    if (r < 0) return mfail(j, path, "no resource is named %s", json_quote(name, q, sizeof q));
    *out = (size_t)r;
    return true;
}

/* One bind point: a name, {"name": ..., "elementOffset": ...}, or an array of one of them.
 * elementOffset counts elements of the bound tensor's DataType (spec/dxdispatch.md; the
 * same as DxDispatch whenever the resource holds that type), or of "elementSizeInBytes"
 * bytes when given; the tensor must fit in the rest of the resource. */
static bool parse_binding(const mctx *j, const json_value *v, const char *path, const model *m,
                          const model_op *op, uint32_t t, model_binding *b)
{
    static const char *const keys[] = {"name", "elementOffset", "elementSizeInBytes", "elementCount", "elementStride",
                                       "format", "shape", "counter", "counterOffsetBytes", NULL};
    char p[PATH_LEN], q[PATH_LEN];
    mpath(p, sizeof p, "%s", path);
    json_iter it;
    if (v->kind == JSON_ARRAY) {
        if (v->count != 1)
            return mfail(j, path, "bind point %s takes 1 resource, but %zu were bound", op->tensor_names[t], v->count);
        v = json_first(&it, v); /* valid until the iterator moves, which it does not */
        mpath(p, sizeof p, "%s[0]", path);
    }
    uint64_t offset = 0, esize = 0;
    if (v->kind == JSON_OBJECT) {
        if (!m_check_keys(j, v, p, keys)) return false;
        mpath(q, sizeof q, "%s.name", p);
        if (!parse_resource_ref(j, json_member(v, "name"), q, m, &b->resource)) return false;
        const json_value *f;
        if ((f = json_member(v, "elementOffset"))) {
            mpath(q, sizeof q, "%s.elementOffset", p);
            if (!m_get_uint(j, f, q, UINT32_MAX, &offset)) return false;
        }
        if ((f = json_member(v, "elementSizeInBytes"))) {
            mpath(q, sizeof q, "%s.elementSizeInBytes", p);
            if (!m_get_uint(j, f, q, UINT32_MAX, &esize)) return false;
        }
    } else if (v->kind == JSON_STRING) {
        if (!parse_resource_ref(j, v, p, m, &b->resource)) return false;
    } else {
        return mfail(j, p, "expected a resource name, a binding object or an array, not %s", json_kind_name(v));
    }
    const model_resource *r = &m->res[b->resource];
    if (!esize) esize = npy_element_size(op->t[t].present ? op->t[t].buf.DataType : r->init.type);
    b->offset = offset * esize;
    b->size = op->t[t].present ? op->t[t].buf.TotalTensorSizeInBytes : 0;
    if (b->offset > r->size || b->size > r->size - b->offset) {
        char nq[80];
        return mfail(j, p, "%s needs %llu bytes at offset %llu, but resource %s holds %llu bytes", op->tensor_names[t],
                     (unsigned long long)b->size, (unsigned long long)b->offset, json_quote(r->name, nq, sizeof nq),
                     (unsigned long long)r->size);
    }
    return true;
}

static bool parse_dispatch(const mctx *j, const json_value *v, const char *path, model *m, model_cmd *c)
{
    static const char *const keys[] = {"type", "dispatchable", "bindings", "threadGroupCount", NULL};
    char p[PATH_LEN], q[80];
    const char *name;
    if (!m_check_keys(j, v, path, keys)) return false;
    mpath(p, sizeof p, "%s.dispatchable", path);
    if (!m_get_name(j, json_member(v, "dispatchable"), p, &name)) return false;
    const long d = m_names_find(m->op_names, m->nops, name);
    if (d < 0) return mfail(j, p, "no dispatchable is named %s", json_quote(name, q, sizeof q));
    c->op = (size_t)d;
    const model_op *op = &m->ops[d];
    const json_value *b = json_member(v, "bindings");
    mpath(p, sizeof p, "%s.bindings", path);
    if (!b || b->kind != JSON_OBJECT) return mfail(j, p, "expected an object of bind points, not %s", json_kind_name(b));
    for (const json_value *e = b->child; e; e = e->next) {
        uint32_t t = 0;
        while (t < op->ntensors && strcmp(op->tensor_names[t], e->key) != 0) t++;
        if (t == op->ntensors) {
            char list[200] = "";
            for (uint32_t k = 0; k < op->ntensors; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", op->tensor_names[k]);
            return mfail(j, p, "unknown bind point %s (%s has %s)", json_quote(e->key, q, sizeof q),
                         dmlops_operator_type_name(op->type), list);
        }
    }
    for (uint32_t t = 0; t < op->ntensors; t++) {
        const json_value *e = json_member(b, op->tensor_names[t]);
        char bp[PATH_LEN];
        mpath(bp, sizeof bp, "%s.%s", p, op->tensor_names[t]);
        if (!e) {
            if (op->t[t].present) return mfail(j, bp, "missing: every tensor of the operator needs a resource");
            c->bind[t].resource = SIZE_MAX; /* a NULL tensor, bound to nothing */
            continue;
        }
        if (!parse_binding(j, e, bp, m, op, t, &c->bind[t])) return false;
    }
    return true;
}

static bool parse_command(const mctx *j, const json_value *v, const char *path, model *m, model_cmd *c)
{
    static const char *const print_keys[] = {"type", "resource", "verbose", NULL};
    static const char *const write_keys[] = {"type", "resource", "targetPath", "dimensions", NULL};
    char p[PATH_LEN], q[80];
    mpath(c->where, sizeof c->where, "%s", path);
    if (v->kind != JSON_OBJECT) return mfail(j, path, "expected a command object, not %s", json_kind_name(v));
    const json_value *type = json_member(v, "type");
    mpath(p, sizeof p, "%s.type", path);
    if (!type || type->kind != JSON_STRING) return mfail(j, p, "expected \"dispatch\", \"print\" or \"writeFile\"");
    if (!strcasecmp(type->text, "dispatch")) {
        c->kind = MODEL_CMD_DISPATCH;
        return parse_dispatch(j, v, path, m, c);
    }
    bool print = !strcasecmp(type->text, "print");
    if (!print && strcasecmp(type->text, "writeFile") != 0)
        return mfail(j, p, "unknown command %s (expected dispatch, print or writeFile)", json_quote(type->text, q, sizeof q));
    c->kind = print ? MODEL_CMD_PRINT : MODEL_CMD_WRITE;
    if (!m_check_keys(j, v, path, print ? print_keys : write_keys)) return false;
    mpath(p, sizeof p, "%s.resource", path);
    if (!parse_resource_ref(j, json_member(v, "resource"), p, m, &c->resource)) return false;
    const json_value *f;
    if (print) {
        mpath(p, sizeof p, "%s.verbose", path);
        return !(f = json_member(v, "verbose")) || m_get_bool(j, f, p, &c->verbose);
    }
    const char *target;
    mpath(p, sizeof p, "%s.targetPath", path);
    if (!m_get_string(j, json_member(v, "targetPath"), p, &target)) return false;
    if (is_image(target)) return mfail(j, p, "%s: writing images is not supported (only .npy and raw bytes)", target);
    if (!m_output_path(j, p, target, &c->path)) return false;
    c->npy = has_suffix(target, ".npy");
    const model_resource *r = &m->res[c->resource];
    if ((f = json_member(v, "dimensions"))) {
        uint32_t dims[MODEL_MAX_DIMS];
        mpath(p, sizeof p, "%s.dimensions", path);
        if (!m_get_u32_array(j, f, p, dims, &c->ndims, NULL)) return false;
        npy_array shape = {.ndim = c->ndims};
        for (uint32_t d = 0; d < c->ndims; d++) shape.shape[d] = c->dims[d] = dims[d];
        if (!m_shape_count(&shape))
            return mfail(j, p, "the nonzero dimensions multiply past 2^60 elements, a shape no .npy reader loads");
        const uint64_t n = shape.count;
        const uint32_t es = npy_element_size(r->init.type);
        if (n > r->size / es)
            return mfail(j, p, "%llu elements of %s do not fit in resource %s (%llu bytes)",
                         (unsigned long long)n, dmlops_data_type_name(r->init.type), json_quote(r->name, q, sizeof q),
                         (unsigned long long)r->size);
    }
    return true;
}

/* ---- the model ---------------------------------------------------------------------- */

bool m_parse_dxdispatch(const mctx *j, const json_value *root, model *m)
{
    static const char *const keys[] = {"$schema", "resources", "dispatchables", "commands", NULL};
    m->format = MODEL_FORMAT_DXDISPATCH;
    if (!m_check_keys(j, root, "$", keys)) return false;
    const json_value *res = json_member(root, "resources"), *dis = json_member(root, "dispatchables"),
                     *cmds = json_member(root, "commands");
    if (!res || res->kind != JSON_OBJECT)
        return mfail(j, "$.resources", "expected an object of named buffers, not %s", json_kind_name(res));
    if (!dis || dis->kind != JSON_OBJECT)
        return mfail(j, "$.dispatchables", "expected an object of named operators, not %s", json_kind_name(dis));
    if (!cmds || cmds->kind != JSON_ARRAY)
        return mfail(j, "$.commands", "expected an array of commands, not %s", json_kind_name(cmds));
    char what[100];
    snprintf(what, sizeof what, "%zu resources, %zu dispatchables and %zu commands", res->count, dis->count, cmds->count);
    if (!m_check_tables(j, "$", (uint64_t)res->count * sizeof *m->res + (uint64_t)dis->count * sizeof *m->ops +
                                    (uint64_t)cmds->count * sizeof *m->cmds,
                        what))
        return false;
    m->res = calloc(res->count ? res->count : 1, sizeof *m->res);
    m->ops = calloc(dis->count ? dis->count : 1, sizeof *m->ops);
    m->cmds = calloc(cmds->count ? cmds->count : 1, sizeof *m->cmds);
    if (!m->res || !m->ops || !m->cmds) return mfail(j, "$", "out of memory");
    char p[PATH_LEN];
    /* Dispatchables first: an operator we do not run is the first thing to hear about. */
    for (const json_value *e = dis->child; e; e = e->next) {
        mpath_key(p, sizeof p, "$.dispatchables", e->key);
        model_op *op = &m->ops[m->nops++];
        if (!parse_dispatchable(j, e->key, e, p, op)) return false;
        m_wire_operator(op);
    }
    for (const json_value *e = res->child; e; e = e->next) {
        mpath_key(p, sizeof p, "$.resources", e->key);
        if (!parse_resource(j, e->key, e, p, &m->res[m->nres++])) return false;
    }
    /* Names are unique within their object (the JSON reader refuses a key twice). */
    if ((m->nres && !(m->res_names = m_names_of_resources(m))) || (m->nops && !(m->op_names = m_names_of_ops(m))))
        return mfail(j, "$", "out of memory");
    json_iter it;
    for (const json_value *e = json_first(&it, cmds); e; e = json_next(&it)) {
        mpath(p, sizeof p, "$.commands[%zu]", m->ncmds);
        if (!parse_command(j, e, p, m, &m->cmds[m->ncmds++])) return false;
    }
    return true;
}
