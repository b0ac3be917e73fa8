/* model_load: reads the file, tells the two formats apart, and parses ours (resources and
 * operators); dxdispatch.c parses DxDispatch's. Also the initial-value generator. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "model_parse.h"
#include "scalar.h"

/* ---- our format: operators ---------------------------------------------------------- */

static int find_resource(const model *m, const char *name)
{
    return (int)m_names_find(m->res_names, m->nres, name);
}

bool m_parse_bindings(const mctx *j, const json_value *v, const char *path, model *m, const model_op *op,
                      model_cmd *cmd)
{
    static const char *const bkeys[] = {"Resource", "Offset", "Size", NULL};
    char p[PATH_LEN], q[PATH_LEN];
    if (!v) return mfail(j, path, "missing: each tensor needs {\"Resource\": NAME}");
    if (v->kind != JSON_OBJECT) return mfail(j, path, "expected an object, not %s", json_kind_name(v));
    if (!m_check_keys(j, v, path, op->tensor_names)) return false;
    for (uint32_t i = 0; i < op->ntensors; i++) {
        mpath(p, sizeof p, "%s.%s", path, op->tensor_names[i]);
        const json_value *b = json_member(v, op->tensor_names[i]), *f;
        if (!b) return mfail(j, p, "missing");
        if (b->kind != JSON_OBJECT)
            return mfail(j, p, "expected {\"Resource\": NAME, \"Offset\": N}, not %s", json_kind_name(b));
        if (!m_check_keys(j, b, p, bkeys)) return false;
        const char *name = NULL;
        mpath(q, sizeof q, "%s.Resource", p);
        if (!m_get_string(j, json_member(b, "Resource"), q, &name)) return false;
        int r = find_resource(m, name);
        char nq[80];
        if (r < 0) return mfail(j, q, "no resource is named %s", json_quote(name, nq, sizeof nq));
        model_binding *bd = &cmd->bind[i];
        bd->resource = (size_t)r;
        if ((f = json_member(b, "Offset"))) {
            mpath(q, sizeof q, "%s.Offset", p);
            if (!m_get_uint(j, f, q, UINT64_MAX, &bd->offset)) return false;
        }
        bd->size = op->t[i].present ? op->t[i].buf.TotalTensorSizeInBytes : 16;
        if ((f = json_member(b, "Size"))) {
            mpath(q, sizeof q, "%s.Size", p);
            if (!m_get_uint(j, f, q, UINT64_MAX, &bd->size)) return false;
        }
    }
    return true;
}

static bool parse_operator(const mctx *j, const json_value *v, const char *path, model *m, model_op *op,
                           model_cmd *cmd)
{
    static const char *const rev_keys[] = {"Type", "Name", "InputTensor", "SequenceLengthsTensor", "OutputTensor",
                                           "Axis", "Bindings", NULL};
    static const char *const slice_keys[] = {"Type", "Name", "InputTensor", "OutputTensor", "DimensionCount",
                                             "InputWindowOffsets", "InputWindowSizes", "InputWindowStrides",
                                             "Bindings", NULL};
    static const char *const hot_keys[] = {"Type", "Name", "IndicesTensor", "ValuesTensor", "OutputTensor",
                                           "Axis", "Bindings", NULL};
    char p[PATH_LEN];
    const json_value *f;
    mpath(op->where, sizeof op->where, "%s", path);
    cmd->kind = MODEL_CMD_DISPATCH;
    mpath(cmd->where, sizeof cmd->where, "%s", path);
    if (!v || v->kind != JSON_OBJECT) return mfail(j, path, "expected an operator object, not %s", json_kind_name(v));
    if (json_member(v, "ONNX")) return m_parse_onnx_operator(j, v, path, m, op, cmd);
    mpath(p, sizeof p, "%s.Type", path);
    if (!(f = json_member(v, "Type"))) return mfail(j, p, "missing (or an \"ONNX\" node instead)");
    char q[80];
    if (f->kind != JSON_STRING) return mfail(j, p, "expected an operator name (REVERSE_SUBSEQUENCES, SLICE1, ONE_HOT)");
    if (!m_operator_type(f->text, &op->type))
        return mfail(j, p, "unknown name %s (expected REVERSE_SUBSEQUENCES, SLICE1, ONE_HOT)",
                     json_quote(f->text, q, sizeof q));
    m_op_setup(op);
    const char *const *keys = op->type == DML_OPERATOR_REVERSE_SUBSEQUENCES ? rev_keys
                              : op->type == DML_OPERATOR_SLICE1             ? slice_keys
                                                                            : hot_keys;
    if (!m_check_keys(j, v, path, keys)) return false;
    const char *name = dmlops_operator_type_name(op->type);
    if ((f = json_member(v, "Name"))) {
        mpath(p, sizeof p, "%s.Name", path);
        if (!m_get_string(j, f, p, &name)) return false;
    }
    if (!(op->name = strdup(name))) return mfail(j, path, "out of memory");
    if (!m_parse_op_fields(j, v, path, op)) return false;
    mpath(p, sizeof p, "%s.Bindings", path);
    return m_parse_bindings(j, json_member(v, "Bindings"), p, m, op, cmd);
}

/* ---- our format: resources ---------------------------------------------------------- */

static bool count_data(const mctx *j, const json_value *v, const char *path, uint64_t *n, int depth)
{
    if (depth > NPY_MAX_DIMS) return mfail(j, path, "nested too deeply");
    if (v->kind != JSON_ARRAY) {
        (*n)++;
        return true;
    }
    long long i = 0;
    json_iter it;
    for (const json_value *e = json_first(&it, v); e; e = json_next(&it), i++) {
        if (e->kind != JSON_ARRAY) { /* no path to make for a value */
            (*n)++;
            continue;
        }
        char p[PATH_LEN];
        mpath(p, sizeof p, "%s[%lld]", path, i);
        if (!count_data(j, e, p, n, depth + 1)) return false;
    }
    return true;
}

static bool fill_data(const mctx *j, const json_value *v, const char *path, DML_TENSOR_DATA_TYPE type, uint8_t **dst)
{
    const uint32_t es = dmlops_data_type_size(type);
    if (v->kind != JSON_ARRAY) {
        if (!m_get_scalar(j, v, path, type, *dst)) return false;
        *dst += es;
        return true;
    }
    long long i = 0;
    json_iter it;
    for (const json_value *e = json_first(&it, v); e; e = json_next(&it), i++) {
        if (e->kind != JSON_ARRAY) {
            if (!m_get_element(j, e, path, i, type, *dst)) return false;
            *dst += es;
            continue;
        }
        char p[PATH_LEN];
        mpath(p, sizeof p, "%s[%lld]", path, i);
        if (!fill_data(j, e, p, type, dst)) return false;
    }
    return true;
}

static bool same_shape(const npy_array *a, const npy_array *b)
{
    if (a->ndim != b->ndim) return false;
    for (uint32_t i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i]) return false;
    return true;
}

static bool parse_resource(const mctx *j, const json_value *v, const char *path, model_resource *r)
{
    static const char *const keys[] = {"Name", "File", "Data", "DataType", "Sizes", "SizeInBytes", "Output", NULL};
    char p[PATH_LEN];
    const json_value *f, *file, *data, *sizes;
    const char *s = NULL;
    mpath(r->where, sizeof r->where, "%s", path);
    r->last_writer = -1;
    if (!v || v->kind != JSON_OBJECT) return mfail(j, path, "expected a resource object, not %s", json_kind_name(v));
    if (!m_check_keys(j, v, path, keys)) return false;
    mpath(p, sizeof p, "%s.Name", path);
    if (!m_get_string(j, json_member(v, "Name"), p, &s)) return false;
    if (!(r->name = strdup(s))) return mfail(j, p, "out of memory");

    file = json_member(v, "File");
    data = json_member(v, "Data");
    sizes = json_member(v, "Sizes");
    if (file && data) return mfail(j, path, "give either \"File\" or \"Data\", not both");
    if ((f = json_member(v, "DataType"))) {
        mpath(p, sizeof p, "%s.DataType", path);
        if (!m_get_data_type(j, f, p, &r->view.type)) return false;
        if (!npy_element_size(r->view.type))
            return mfail(j, p, "%s has no element size", dmlops_data_type_name(r->view.type));
    } else if (data || (sizes && !file)) {
        return mfail(j, path, "\"%s\" needs a \"DataType\"", data ? "Data" : "Sizes");
    }
    if (sizes) {
        uint32_t sz[MODEL_MAX_DIMS], n;
        mpath(p, sizeof p, "%s.Sizes", path);
        if (!m_get_u32_array(j, sizes, p, sz, &n, NULL)) return false;
        r->view.ndim = n;
        for (uint32_t i = 0; i < n; i++) r->view.shape[i] = sz[i];
        if (!m_shape_count(&r->view)) return mfail(j, p, "the element count overflows");
        r->shaped = true;
    }

    if (file) {
        mpath(p, sizeof p, "%s.File", path);
        if (!m_get_string(j, file, p, &s)) return false;
        if (!(r->source = m_join_path(j->dir, s))) return mfail(j, p, "out of memory");
        if (!m_read_npy(j, p, r->source, &r->init)) return false;
        r->init_kind = MODEL_INIT_DATA;
        char a[200], b[200];
        m_shape_text(&r->init, a, sizeof a);
        if (r->view.type && r->view.type != r->init.type)
            return mfail(j, path, "DataType %s differs from the file's %s", dmlops_data_type_name(r->view.type), a);
        if (sizes && !same_shape(&r->view, &r->init)) {
            r->view.type = r->init.type;
            m_shape_text(&r->view, b, sizeof b);
            return mfail(j, path, "Sizes %s differ from the file's %s", b, a);
        }
    } else if (data) {
        uint64_t n = 0;
        mpath(p, sizeof p, "%s.Data", path);
        if (!count_data(j, data, p, &n, 0)) return false;
        if (!sizes) {
            r->view.ndim = 1;
            r->view.shape[0] = r->view.count = n;
        } else if (n != r->view.count) {
            return mfail(j, p, "%llu values, but Sizes hold %llu elements", (unsigned long long)n,
                         (unsigned long long)r->view.count);
        }
        r->init = r->view;
        if (!m_take_data(j, p, n * npy_element_size(r->view.type), "its values")) return false;
        r->init.data = malloc(n * npy_element_size(r->view.type) + 1);
        if (!r->init.data) return mfail(j, p, "out of memory");
        r->init_kind = MODEL_INIT_DATA;
        uint8_t *dst = r->init.data;
        if (!fill_data(j, data, p, r->view.type, &dst)) return false;
    }
    if (r->init_kind == MODEL_INIT_DATA) {
        r->view = r->init;
        r->view.data = NULL;
        r->shaped = true;
    }
    if ((f = json_member(v, "SizeInBytes"))) {
        mpath(p, sizeof p, "%s.SizeInBytes", path);
        if (!m_get_uint(j, f, p, UINT64_MAX, &r->size)) return false;
        if (r->size == 0) return mfail(j, p, "a buffer holds at least 1 byte");
        uint64_t have = model_init_bytes(r);
        if (have > r->size)
            return mfail(j, p, "%llu bytes cannot hold the %llu bytes of data", (unsigned long long)r->size,
                         (unsigned long long)have);
    }
    if ((f = json_member(v, "Output"))) {
        mpath(p, sizeof p, "%s.Output", path);
        if (!m_get_string(j, f, p, &s) || !m_output_path(j, p, s, &r->output)) return false;
    }
    return true;
}

/* The bytes a tensor's elements reach from its start: the last element's end, not
 * TotalTensorSizeInBytes, which DirectML rounds up to 4 (a UINT8 [2] tensor reads 2 bytes
 * of a 4-byte binding). UINT64_MAX when that does not fit 64 bits. */
static uint64_t m_tensor_extent(const model_tensor *t)
{
    const uint32_t n = t->buf.DimensionCount;
    uint64_t last = 0;
    for (uint32_t d = 0; d < n; d++) {
        if (t->sizes[d] == 0) return 0;
        uint64_t stride = 1, step;
        if (t->buf.Strides) stride = t->strides[d];
        else
            for (uint32_t e = d + 1; e < n; e++)
                if (__builtin_mul_overflow(stride, t->sizes[e], &stride)) return UINT64_MAX;
        if (__builtin_mul_overflow((uint64_t)(t->sizes[d] - 1), stride, &step) || __builtin_add_overflow(last, step, &last))
            return UINT64_MAX;
    }
    uint64_t bytes;
    if (__builtin_mul_overflow(last + 1, (uint64_t)npy_element_size(t->buf.DataType), &bytes)) return UINT64_MAX;
    return bytes;
}

/* An input bound to a resource that starts with data from a file or Data (and that no
 * earlier operator has written) must read that data: same type, within its bytes. Anything
 * else would run on zero padding or reinterpreted bytes. */
static bool check_inputs(const mctx *j, const model *m, size_t c)
{
    const model_cmd *cmd = &m->cmds[c];
    const model_op *op = &m->ops[cmd->op];
    for (uint32_t i = 0; i < op->ninputs; i++) {
        const model_binding *b = &cmd->bind[i];
        const model_resource *r = &m->res[b->resource];
        const model_tensor *t = &op->t[i];
        if (r->init_kind != MODEL_INIT_DATA || !t->present) continue;
        bool written = false;
        for (size_t e = 0; e < c && !written; e++) {
            const model_op *eo = &m->ops[m->cmds[e].op];
            for (uint32_t k = eo->ninputs; k < eo->ntensors; k++) written = written || m->cmds[e].bind[k].resource == b->resource;
        }
        const uint64_t have = model_init_bytes(r), extent = m_tensor_extent(t);
        const uint64_t need = extent < b->size ? extent : b->size;
        if (written || (t->buf.DataType == r->init.type && b->offset <= have && need <= have - b->offset)) continue;
        npy_array ta = {.type = t->buf.DataType, .ndim = t->buf.DimensionCount};
        for (uint32_t d = 0; d < ta.ndim; d++) ta.shape[d] = t->sizes[d];
        char p[PATH_LEN], fa[200], tb[200], at[48] = "", q[80];
        m_shape_text(&r->init, fa, sizeof fa);
        m_shape_text(&ta, tb, sizeof tb);
        if (b->offset) snprintf(at, sizeof at, " at offset %llu", (unsigned long long)b->offset);
        mpath(p, sizeof p, "%s.Bindings.%s", op->where, op->tensor_names[i]);
        if (r->source)
            return mfail(j, p, "%s holds %s (%llu bytes), but %s is %s (%llu bytes%s)", r->source, fa,
                         (unsigned long long)have, op->tensor_names[i], tb, (unsigned long long)need, at);
        return mfail(j, p, "the Data of resource %s holds %s (%llu bytes), but %s is %s (%llu bytes%s)",
                     json_quote(r->name, q, sizeof q), fa, (unsigned long long)have, op->tensor_names[i], tb,
                     (unsigned long long)need, at);
    }
    return true;
}

/* The type of what cmd's operator writes, and whether *v also has its shape: an ONNX
 * node's output as ONNX shapes it (a scalar, an empty tensor), else the OutputTensor's
 * when it is packed; either only when bound at offset 0. False when there is no type. */
static bool writer_view(const model_cmd *cmd, const model *m, npy_array *v, bool *shaped)
{
    const model_op *op = &m->ops[cmd->op];
    const model_tensor *t = &op->t[op->ntensors - 1];
    const bool at_start = cmd->bind[op->ntensors - 1].offset == 0;
    if (op->onnx) {
        v->type = op->onnx_type;
        v->ndim = op->onnx_rank;
        for (uint32_t d = 0; d < op->onnx_rank; d++) v->shape[d] = (uint64_t)op->onnx_shape[d];
    } else {
        if (!t->present || !npy_element_size(t->buf.DataType)) return false;
        v->type = t->buf.DataType;
        v->ndim = t->buf.DimensionCount;
        for (uint32_t d = 0; d < v->ndim; d++) v->shape[d] = t->sizes[d];
    }
    *shaped = at_start && (op->onnx || !t->buf.Strides);
    return true;
}

/* Buffer sizes: SizeInBytes when given (exactly, so that range errors reach the library);
 * else large enough for the data, the declared Sizes and every binding. A resource without
 * data or Sizes is printed and saved as the output tensor of its last writer when that
 * tensor is packed at offset 0, else as a 1-D array over the whole buffer. */
static bool finish_resources(const mctx *j, model *m)
{
    for (size_t c = 0; c < m->ncmds; c++) {
        const model_op *op = &m->ops[m->cmds[c].op];
        for (uint32_t i = op->ninputs; i < op->ntensors; i++) m->res[m->cmds[c].bind[i].resource].last_writer = (int)c;
        if (!check_inputs(j, m, c)) return false;
    }
    for (size_t k = 0; k < m->nres; k++) {
        model_resource *r = &m->res[k];
        npy_array v = r->view;
        bool shaped = false;
        if (!r->shaped && r->last_writer >= 0 && writer_view(&m->cmds[r->last_writer], m, &v, &shaped)) {
            if (!r->view.type) r->view.type = v.type;
            /* An ONNX output with no elements keeps its shape, whatever its other extents
             * (OneHot of no indices and a depth of 2^63 - 1: [0, 9223372036854775807]), and
             * is saved as an empty .npy of that shape, as docs/cli.md promises: the header
             * states it exactly and no data follows (numpy 1.24 refuses to load a shape
             * whose extents multiply past its intp; the file is still the exact answer). */
            const bool counted = m_shape_count(&v), empty = m->ops[m->cmds[r->last_writer].op].empty;
            if (!counted && empty && shaped && r->view.type == v.type) {
                v.count = 0;
                r->view = v;
                r->shaped = true;
            }
            /* The writer's shape, unless it does not fit a SizeInBytes given: then the
             * resource stays flat and the library judges the binding. */
            if (shaped && r->view.type == v.type && counted &&
                (!r->size || v.count <= r->size / npy_element_size(v.type))) {
                r->view = v;
                r->shaped = true;
            }
        }
        if (r->size) continue;
        uint64_t need = r->shaped ? r->view.count * npy_element_size(r->view.type) : 0;
        char q[80];
        bool unsized = false;
        for (size_t c = 0; c < m->ncmds; c++)
            for (uint32_t i = 0; i < m->ops[m->cmds[c].op].ntensors; i++) {
                const model_binding *b = &m->cmds[c].bind[i];
                if (b->resource != k) continue;
                if (b->size && b->offset + b->size >= b->offset) {
                    if (b->offset + b->size > need) need = b->offset + b->size;
                } else {
                    unsized = true; /* a tensor of no known size, or an offset past 2^64 */
                }
            }
        /* A binding that cannot size its resource belongs to a tensor the library will
         * refuse (a size of 0, a data type it does not know, a size past 64 bits) or lies
         * past 2^64: a token buffer lets the library say so in its own words. */
        if (need == 0 && unsized) need = 16;
        if (need == 0)
            return mfail(j, r->where, "resource %s has %s, no SizeInBytes and no binding that sizes it",
                         json_quote(r->name, q, sizeof q),
                         r->init_kind == MODEL_INIT_DATA ? "data of no elements" : "no data");
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
            return mfail(j, r->where, "its %llu elements need more than SizeInBytes = %llu bytes",
                         (unsigned long long)r->view.count, (unsigned long long)r->size);
    }
    return true;
}

bool m_parse_dmlops(const mctx *j, const json_value *root, model *m)
{
    static const char *const keys[] = {"description", "resources", "operators", NULL};
    m->format = MODEL_FORMAT_DMLOPS;
    if (!m_check_keys(j, root, "$", keys)) return false;
    const json_value *about = json_member(root, "description");
    if (about && about->kind != JSON_STRING)
        return mfail(j, "$.description", "expected a string, not %s", json_kind_name(about));
    const json_value *res = json_member(root, "resources");
    const json_value *ops = json_member(root, "operators");
    if (!res || res->kind != JSON_ARRAY) return mfail(j, "$.resources", "expected an array, not %s", json_kind_name(res));
    if (!ops || ops->kind != JSON_ARRAY) return mfail(j, "$.operators", "expected an array, not %s", json_kind_name(ops));
    if (!ops->count) return mfail(j, "$.operators", "no operator to run");
    char what[80];
    snprintf(what, sizeof what, "%zu resources and %zu operators", res->count, ops->count);
    if (!m_check_tables(j, "$", (uint64_t)res->count * sizeof *m->res + (uint64_t)ops->count * (sizeof *m->ops + sizeof *m->cmds),
                        what))
        return false;
    m->res = calloc(res->count ? res->count : 1, sizeof *m->res);
    m->ops = calloc(ops->count, sizeof *m->ops);
    m->cmds = calloc(ops->count, sizeof *m->cmds);
    if (!m->res || !m->ops || !m->cmds) return mfail(j, "$", "out of memory");
    char p[PATH_LEN], q[80];
    json_iter it;
    for (const json_value *e = json_first(&it, res); e; e = json_next(&it)) {
        mpath(p, sizeof p, "$.resources[%zu]", m->nres);
        model_resource *r = &m->res[m->nres++];
        if (!parse_resource(j, e, p, r)) return false;
    }
    if (m->nres && !(m->res_names = m_names_of_resources(m))) return mfail(j, "$", "out of memory");
    const size_t dup = m_names_duplicate(m->res_names, m->nres);
    if (dup != SIZE_MAX) {
        mpath(p, sizeof p, "$.resources[%zu]", dup);
        return mfail(j, p, "a resource named %s already exists", json_quote(m->res[dup].name, q, sizeof q));
    }
    for (const json_value *e = json_first(&it, ops); e; e = json_next(&it)) {
        mpath(p, sizeof p, "$.operators[%zu]", m->nops);
        model_op *op = &m->ops[m->nops++];
        model_cmd *cmd = &m->cmds[m->ncmds++];
        cmd->op = m->nops - 1;
        if (!parse_operator(j, e, p, m, op, cmd)) return false;
        m_wire_operator(op);
    }
    return finish_resources(j, m);
}

/* ---- loading ------------------------------------------------------------------------ */

bool model_load(const char *path, const model_options *o, model *m, bool *oom)
{
    memset(m, 0, sizeof *m);
    const model_options defaults = {0};
    if (!o) o = &defaults;
    bool no_memory = false;
    if (!oom) oom = &no_memory;
    *oom = false;
    char err[300];
    size_t len = 0;
    char *text = m_read_file(path, MODEL_JSON_MAX_BYTES, "a model may", true, &len, err, sizeof err);
    if (!text) {
        cli_error("%s: %s\n", path, err);
        *oom = strstr(err, "out of memory") != NULL;
        return false;
    }
    /* Arrays of numbers take about their text parsed, a node takes 80 bytes: the budget
     * (m_model_budget) bounds the parse as it goes, then the tables the model needs
     * (m_check_tables) before they are made. */
    const uint64_t budget = m_model_budget(len);
    const json_options strict = {.max_memory = budget}, relaxed_syntax = {.relaxed = true, .max_memory = budget};
    json_doc doc;
    bool parsed = json_parse_with(text, len, &strict, &doc, err, sizeof err);
    if (!parsed) { /* DxDispatch's reader takes comments and trailing commas; so do we in its models */
        char err2[300];
        json_doc relaxed;
        if (json_parse_with(text, len, &relaxed_syntax, &relaxed, err2, sizeof err2)) {
            const json_value *r = relaxed.root;
            if (r->kind == JSON_OBJECT && !json_member(r, "operators") &&
                (json_member(r, "dispatchables") || json_member(r, "commands"))) {
                doc = relaxed;
                parsed = true;
            } else {
                json_free(&relaxed);
            }
        } else if (json_error_after(err2, err)) {
            /* It got further: what stopped the strict reader (a trailing comma, a
             * comment) is allowed in a DxDispatch model, so the later error is the one
             * that stops every reading. */
            memcpy(err, err2, sizeof err);
        }
    }
    free(text);
    if (!parsed) {
        cli_error("%s:%s\n", path, err[0] ? err : " invalid JSON");
        *oom = strstr(err, "out of memory") != NULL;
        return false;
    }
    char *dir = strdup(path);
    if (!dir) {
        cli_error("%s: out of memory", path);
        *oom = true;
        json_free(&doc);
        return false;
    }
    char *slash = strrchr(dir, '/');
    if (slash) slash[slash == dir] = '\0'; /* "/m.json" keeps "/" */
    else dir[0] = '\0';
    const json_value *root = doc.root;
    uint64_t data = 0;
    const mctx j = {.file = path,
                    .dir = dir,
                    .output_dir = o->output_dir,
                    .any_output_path = o->any_output_path,
                    .oom = oom,
                    .budget = budget,
                    .json_memory = doc.memory,
                    .data = &data,
                    .data_limit = m_host_memory()};
    bool ok;
    if (root->kind != JSON_OBJECT || (!json_member(root, "operators") && !json_member(root, "dispatchables") &&
                                      !json_member(root, "commands"))) {
        ok = mfail(&j, "$", "expected an object: ours with \"resources\" and \"operators\", or a DxDispatch model "
                           "with \"resources\", \"dispatchables\" and \"commands\"");
    } else if (json_member(root, "dispatchables") || json_member(root, "commands")) {
        mctx dx = j;
        dx.dxdispatch = true;
        ok = m_parse_dxdispatch(&dx, root, m);
    } else {
        ok = m_parse_dmlops(&j, root, m);
    }
    json_free(&doc);
    free(dir);
    if (ok && !(m->file = strdup(path))) {
        cli_error("%s: out of memory", path);
        ok = false;
        *oom = true;
    }
    if (!ok) model_free(m);
    return ok;
}

void model_free(model *m)
{
    for (size_t i = 0; m->res && i < m->nres; i++) {
        free(m->res[i].name);
        free(m->res[i].output);
        free(m->res[i].source);
        npy_free(&m->res[i].init);
    }
    for (size_t i = 0; m->ops && i < m->nops; i++) free(m->ops[i].name);
    for (size_t i = 0; m->cmds && i < m->ncmds; i++) free(m->cmds[i].path);
    free(m->res);
    free(m->ops);
    free(m->cmds);
    free(m->file);
    free(m->res_names);
    free(m->op_names);
    memset(m, 0, sizeof *m);
}

/* ---- initial values ----------------------------------------------------------------- */

uint64_t model_init_bytes(const model_resource *r)
{
    return r->init_kind == MODEL_INIT_NONE ? 0 : r->init.count * npy_element_size(r->init.type);
}

void model_init_start(model_init_iter *it, const model_resource *r)
{
    memset(it, 0, sizeof *it);
    it->r = r;
    memcpy(it->cur, r->value, sizeof it->cur);
}

/* cur += delta in the element type: floats round as the type does, integers wrap, as
 * DxDispatch's sums in the type do (a UINT8 sequence from 250 by 3 goes 250, 253, 0, 3). */
static void sequence_step(DML_TENSOR_DATA_TYPE t, uint8_t *cur, const uint8_t *delta)
{
    if (t == DML_TENSOR_DATA_TYPE_FLOAT32) {
        float a, d;
        memcpy(&a, cur, 4);
        memcpy(&d, delta, 4);
        a += d;
        memcpy(cur, &a, 4);
    } else if (t == DML_TENSOR_DATA_TYPE_FLOAT64) {
        double a, d;
        memcpy(&a, cur, 8);
        memcpy(&d, delta, 8);
        a += d;
        memcpy(cur, &a, 8);
    } else if (t == DML_TENSOR_DATA_TYPE_FLOAT16) {
        uint16_t a, d;
        memcpy(&a, cur, 2);
        memcpy(&d, delta, 2);
        a = scalar_float_to_half(scalar_half_to_float(a) + scalar_half_to_float(d));
        memcpy(cur, &a, 2);
    } else {
        scalar_store_int_bits(t, scalar_int_bits(t, cur) + scalar_int_bits(t, delta), cur);
    }
}

size_t model_init_next(model_init_iter *it, void *dst, size_t cap)
{
    const model_resource *r = it->r;
    uint32_t es = npy_element_size(r->init.type);
    if (r->init_kind == MODEL_INIT_NONE || !es || it->next >= r->init.count) return 0;
    uint64_t n = r->init.count - it->next;
    if (n > cap / es) n = cap / es;
    uint8_t *out = dst;
    if (r->init_kind == MODEL_INIT_DATA) {
        memcpy(out, (const uint8_t *)r->init.data + it->next * es, (size_t)(n * es));
    } else {
        for (uint64_t i = 0; i < n; i++) {
            memcpy(out + i * es, it->cur, es);
            if (r->init_kind == MODEL_INIT_SEQUENCE) sequence_step(r->init.type, it->cur, r->delta);
        }
    }
    it->next += n;
    return (size_t)(n * es);
}
