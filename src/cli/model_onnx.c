/* ONNX nodes in our model format (docs/cli.md, "ONNX nodes"): an operator written as the
 * ONNX node it comes from,
 *
 *   {"Name": "...", "ONNX": {"op_type": "Slice", "attributes": {...}, "inputs": {...}},
 *    "Bindings": {"data": {"Resource": "x"}, "output": {"Resource": "y"}}}
 *
 * translated by include/dmlops_onnx.h into the DirectML descriptor that then runs like any
 * other. The tensors an ONNX node reads at run time are bound by their ONNX input names and
 * take their type and shape from their resources (a File, Data, or DataType and Sizes);
 * constant inputs (Slice-10's starts, ends, axes, steps; OneHot's depth) go in "inputs",
 * attributes in "attributes". The output is bound by its ONNX name and takes the ONNX
 * output's shape. A node whose output has no elements runs nothing. */
#include <stdio.h>
#include <string.h>

#include "model_parse.h"

typedef struct onnx_kind {
    const char *op_type;
    DML_OPERATOR_TYPE type;
    const char *const *bindings;   /* inputs bound to resources, then the output; NULL-terminated */
    const char *const *attributes; /* NULL-terminated */
    const char *const *inputs;     /* constant inputs; NULL-terminated */
} onnx_kind;

static const char *const slice_bindings[] = {"data", "output", NULL};
static const char *const slice_attributes[] = {"starts", "ends", "axes", NULL}; /* Slice-1 */
static const char *const slice_inputs[] = {"starts", "ends", "axes", "steps", NULL};
static const char *const reverse_bindings[] = {"input", "sequence_lens", "Y", NULL};
static const char *const reverse_attributes[] = {"batch_axis", "time_axis", NULL};
static const char *const one_hot_bindings[] = {"indices", "values", "output", NULL};
static const char *const one_hot_attributes[] = {"axis", NULL};
static const char *const one_hot_inputs[] = {"depth", NULL};
static const char *const none[] = {NULL};

static const onnx_kind kinds[] = {
    {"Slice", DML_OPERATOR_SLICE1, slice_bindings, slice_attributes, slice_inputs},
    {"ReverseSequence", DML_OPERATOR_REVERSE_SUBSEQUENCES, reverse_bindings, reverse_attributes, none},
    {"OneHot", DML_OPERATOR_ONE_HOT, one_hot_bindings, one_hot_attributes, one_hot_inputs},
};

/* The type and shape of the resource bound to input i, as an ONNX tensor. */
static bool input_tensor(const mctx *j, const model *m, const model_op *op, const model_cmd *cmd, uint32_t i,
                         DML_TENSOR_DATA_TYPE *type, uint32_t *rank, int64_t *shape)
{
    const model_resource *r = &m->res[cmd->bind[i].resource];
    char p[PATH_LEN], q[80];
    mpath(p, sizeof p, "%s.Bindings.%s", op->where, op->tensor_names[i]);
    if (!r->shaped)
        return mfail(j, p, "resource %s has no type and shape for the ONNX input %s: give it a File, Data, or "
                           "DataType and Sizes",
                     json_quote(r->name, q, sizeof q), op->tensor_names[i]);
    *type = r->view.type;
    *rank = r->view.ndim;
    for (uint32_t d = 0; d < r->view.ndim; d++) shape[d] = (int64_t)r->view.shape[d]; /* each below 2^60 */
    return true;
}

/* Member `name` of obj (the node's attributes or inputs; obj may be NULL): an integer, or
 * an array of them, as ONNX's ints attributes and int64 tensors hold them. */
static bool int64_list(const mctx *j, const json_value *obj, const char *path, const char *name, int64_t *out,
                       uint32_t *count, bool *given)
{
    const json_value *v = obj ? json_member(obj, name) : NULL;
    char p[PATH_LEN];
    *given = v != NULL;
    *count = 0;
    if (!v) return true;
    mpath(p, sizeof p, "%s.%s", path, name);
    if (v->kind == JSON_ARRAY) return m_get_int_array(j, v, p, INT64_MIN, INT64_MAX, out, count, NULL);
    if (!json_get_int64(v, out))
        return mfail(j, p, "expected an integer or an array of integers, not %s%s%s", json_kind_name(v),
                     v->kind == JSON_NUMBER ? " " : "", v->kind == JSON_NUMBER ? v->text : "");
    *count = 1;
    return true;
}

/* One integer attribute or input: `fallback` when absent and not required. */
static bool one_int(const mctx *j, const json_value *obj, const char *path, const char *name, bool required,
                    int64_t fallback, int64_t *out)
{
    int64_t v[MODEL_MAX_DIMS];
    uint32_t n;
    bool given;
    char p[PATH_LEN];
    mpath(p, sizeof p, "%s.%s", path, name);
    if (!int64_list(j, obj, path, name, v, &n, &given)) return false;
    if (!given && required) return mfail(j, p, "missing");
    if (given && n != 1) return mfail(j, p, "expected one integer, not %u", n);
    *out = given ? v[0] : fallback;
    return true;
}

/* Slice's starts, ends (required), axes and steps, all of one length: Slice-1 gives the
 * first three as attributes, Slice-10 and later all four as inputs. */
typedef struct slice_args {
    int64_t v[4][MODEL_MAX_DIMS];
    uint32_t count;
    bool given[4];
} slice_args;

static bool slice_args_parse(const mctx *j, const json_value *attrs, const json_value *inputs, const char *np,
                             slice_args *a)
{
    static const char *const names[4] = {"starts", "ends", "axes", "steps"};
    char ap[PATH_LEN], ip[PATH_LEN], p[PATH_LEN];
    uint32_t n[4];
    mpath(ap, sizeof ap, "%s.attributes", np);
    mpath(ip, sizeof ip, "%s.inputs", np);
    for (int k = 0; k < 4; k++) {
        bool in_attrs, in_inputs;
        if (!int64_list(j, attrs, ap, names[k], a->v[k], &n[k], &in_attrs)) return false;
        mpath(p, sizeof p, "%s.%s", ip, names[k]);
        if (in_attrs && inputs && json_member(inputs, names[k]))
            return mfail(j, p, "also an attribute: Slice-1 has attributes, Slice-10 and later inputs, not both");
        if (!in_attrs && !int64_list(j, inputs, ip, names[k], a->v[k], &n[k], &in_inputs)) return false;
        a->given[k] = in_attrs || in_inputs;
        if (k < 2 && !a->given[k]) return mfail(j, p, "missing: Slice needs starts and ends");
        if (a->given[k] && n[k] != n[0]) return mfail(j, p, "%u entries, but starts has %u", n[k], n[0]);
    }
    a->count = n[0];
    return true;
}

/* The helper's descriptor into op's own fields, read through its public desc, and the
 * bindings' default sizes: the helper's (none is used when the output is empty). */
static void adopt(const json_value *bindings, model_op *op, model_cmd *cmd, const dmlops_onnx_op *h)
{
    op->empty = h->empty;
    op->onnx_rank = h->output_rank;
    memcpy(op->onnx_shape, h->output_shape, sizeof op->onnx_shape);
    const DML_TENSOR_DESC *t[3] = {NULL, NULL, NULL};
    if (h->empty) {
        /* nothing to run: the tensors stay absent */
    } else if (op->type == DML_OPERATOR_SLICE1) {
        const DML_SLICE1_OPERATOR_DESC *d = h->desc.Desc;
        t[0] = d->InputTensor;
        t[1] = d->OutputTensor;
        op->dim_count = d->DimensionCount;
        memcpy(op->offsets, d->InputWindowOffsets, d->DimensionCount * sizeof op->offsets[0]);
        memcpy(op->window_sizes, d->InputWindowSizes, d->DimensionCount * sizeof op->window_sizes[0]);
        memcpy(op->window_strides, d->InputWindowStrides, d->DimensionCount * sizeof op->window_strides[0]);
    } else if (op->type == DML_OPERATOR_REVERSE_SUBSEQUENCES) {
        const DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC *d = h->desc.Desc;
        t[0] = d->InputTensor;
        t[1] = d->SequenceLengthsTensor;
        t[2] = d->OutputTensor;
        op->axis = d->Axis;
    } else {
        const DML_ONE_HOT_OPERATOR_DESC *d = h->desc.Desc;
        t[0] = d->IndicesTensor;
        t[1] = d->ValuesTensor;
        t[2] = d->OutputTensor;
        op->axis = d->Axis;
    }
    for (uint32_t i = 0; i < op->ntensors && i < 3; i++) {
        model_tensor *mt = &op->t[i];
        if (t[i]) {
            const DML_BUFFER_TENSOR_DESC *b = t[i]->Desc;
            mt->present = true;
            mt->desc.Type = DML_TENSOR_TYPE_BUFFER;
            mt->buf = *b;
            memcpy(mt->sizes, b->Sizes, b->DimensionCount * sizeof mt->sizes[0]);
            if (b->Strides) memcpy(mt->strides, b->Strides, b->DimensionCount * sizeof mt->strides[0]);
            mt->buf.Sizes = mt->sizes;
            mt->buf.Strides = b->Strides ? mt->strides : NULL;
        }
        if (!json_member(json_member(bindings, op->tensor_names[i]), "Size"))
            cmd->bind[i].size = h->empty ? 0 : i < op->ninputs ? h->input_bytes[i] : h->output_bytes;
    }
}

bool m_parse_onnx_operator(const mctx *j, const json_value *v, const char *path, model *m, model_op *op,
                           model_cmd *cmd)
{
    static const char *const keys[] = {"ONNX", "Name", "Bindings", NULL};
    static const char *const node_keys[] = {"op_type", "attributes", "inputs", NULL};
    static const char *const section_names[2] = {"attributes", "inputs"};
    char p[PATH_LEN], np[PATH_LEN], q[80];
    if (!m_check_keys(j, v, path, keys)) return false;
    const json_value *node = json_member(v, "ONNX"), *f;
    mpath(np, sizeof np, "%s.ONNX", path);
    if (node->kind != JSON_OBJECT)
        return mfail(j, np, "expected an ONNX node {\"op_type\": ..., \"attributes\": {...}, \"inputs\": {...}}, not %s",
                     json_kind_name(node));
    if (!m_check_keys(j, node, np, node_keys)) return false;
    const char *op_type = NULL;
    mpath(p, sizeof p, "%s.op_type", np);
    if (!m_get_string(j, json_member(node, "op_type"), p, &op_type)) return false;
    const onnx_kind *k = NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(op_type, kinds[i].op_type)) k = &kinds[i];
    if (!k)
        return mfail(j, p, "unknown op_type %s (expected Slice, ReverseSequence or OneHot)",
                     json_quote(op_type, q, sizeof q));
    const json_value *sections[2] = {json_member(node, "attributes"), json_member(node, "inputs")};
    char sp[2][PATH_LEN];
    for (int s = 0; s < 2; s++) {
        mpath(sp[s], sizeof sp[s], "%s.%s", np, section_names[s]);
        if (!sections[s]) continue;
        if (sections[s]->kind != JSON_OBJECT)
            return mfail(j, sp[s], "expected an object, not %s", json_kind_name(sections[s]));
        if (!m_check_keys(j, sections[s], sp[s], s ? k->inputs : k->attributes)) return false;
    }

    op->onnx = true;
    op->type = k->type;
    op->ntensors = 0;
    for (uint32_t i = 0; k->bindings[i]; i++) op->tensor_names[op->ntensors++] = k->bindings[i];
    op->tensor_names[op->ntensors] = NULL;
    op->ninputs = op->ntensors - 1;
    const char *name = k->op_type;
    if ((f = json_member(v, "Name"))) {
        mpath(p, sizeof p, "%s.Name", path);
        if (!m_get_string(j, f, p, &name)) return false;
    }
    if (!(op->name = strdup(name))) return mfail(j, path, "out of memory");
    const json_value *bindings = json_member(v, "Bindings");
    mpath(p, sizeof p, "%s.Bindings", path);
    if (!m_parse_bindings(j, bindings, p, m, op, cmd)) return false;

    DML_TENSOR_DATA_TYPE type[2] = {DML_TENSOR_DATA_TYPE_UNKNOWN, DML_TENSOR_DATA_TYPE_UNKNOWN};
    uint32_t rank[2] = {0, 0};
    int64_t shape[2][NPY_MAX_DIMS];
    for (uint32_t i = 0; i < op->ninputs; i++)
        if (!input_tensor(j, m, op, cmd, i, &type[i], &rank[i], shape[i])) return false;
    dmlops_onnx_op h;
    dmlops_status st;
    if (k->type == DML_OPERATOR_SLICE1) {
        slice_args a;
        memset(&a, 0, sizeof a);
        if (!slice_args_parse(j, sections[0], sections[1], np, &a)) return false;
        st = dmlops_onnx_slice(&h, type[0], rank[0], shape[0], a.count, a.v[0], a.v[1], a.given[2] ? a.v[2] : NULL,
                               a.given[3] ? a.v[3] : NULL);
        op->onnx_type = type[0];
    } else if (k->type == DML_OPERATOR_REVERSE_SUBSEQUENCES) {
        int64_t time_axis, batch_axis;
        if (!one_int(j, sections[0], sp[0], "time_axis", false, 0, &time_axis) ||
            !one_int(j, sections[0], sp[0], "batch_axis", false, 1, &batch_axis))
            return false;
        st = dmlops_onnx_reverse_sequence(&h, type[0], rank[0], shape[0], type[1], time_axis, batch_axis);
        op->onnx_type = type[0];
    } else {
        int64_t axis, depth;
        if (!one_int(j, sections[0], sp[0], "axis", false, -1, &axis) ||
            !one_int(j, sections[1], sp[1], "depth", true, 0, &depth))
            return false;
        st = dmlops_onnx_one_hot(&h, type[0], rank[0], shape[0], depth, type[1], axis);
        op->onnx_type = type[1];
    }
    /* The library's refusal names the ONNX attribute or input and its value. */
    if (st != DMLOPS_SUCCESS) return mfail(j, np, "%s: %s", dmlops_status_string(st), dmlops_last_error_message());
    adopt(bindings, op, cmd, &h);
    return true;
}
