/* The ONNX front end (include/dmlops_onnx.h) against a naive reference written here from the
 * text of the ONNX operator specification (Slice-13, ReverseSequence-10, OneHot-11), not
 * from the library's code: hundreds of random nodes per operator, each translated by the
 * helper, run through the normal API on every backend, and compared bit for bit with the
 * reference; ranks 0 to 5, every element type, starts and ends in and out of range with
 * both signs, steps of +-1 to +-3, INT64_MIN and INT64_MAX, outputs with no elements, and
 * each refusal the specification or DirectML's limits call for (the status, the ONNX name
 * and value in the message, and the caller's struct left as it was). The seed is fixed
 * and printed; DMLOPS_ONNX_SEED=N runs another. */
#include <inttypes.h>
#include <stdlib.h>

#include "dmlops_onnx.h"
#include "harness.h"
#include "onnx_run.h"


static const DML_TENSOR_DATA_TYPE all_types[11] = {
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT16,
    DML_TENSOR_DATA_TYPE_UINT8,   DML_TENSOR_DATA_TYPE_INT32,   DML_TENSOR_DATA_TYPE_INT16,  DML_TENSOR_DATA_TYPE_INT8,
    DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_UINT64,  DML_TENSOR_DATA_TYPE_INT64};

static uint64_t test_seed(uint64_t salt)
{
    const char *s = getenv("DMLOPS_ONNX_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : 20260601u;
    return (seed ^ salt) * 0x9E3779B97F4A7C15ULL | 1;
}

static bool is_64(DML_TENSOR_DATA_TYPE t) { return esize(t) == 8; }

/* The feature level docs/api.md says each descriptor needs. */
static DML_FEATURE_LEVEL documented_level(const dmlops_onnx_op *op)
{
    const DML_BUFFER_TENSOR_DESC *out = &op->private_.buffer[op->input_count];
    if (op->desc.Type == DML_OPERATOR_SLICE1) return is_64(out->DataType) ? DML_FEATURE_LEVEL_4_1 : DML_FEATURE_LEVEL_3_0;
    if (op->desc.Type == DML_OPERATOR_ONE_HOT) return is_64(out->DataType) ? DML_FEATURE_LEVEL_4_1 : DML_FEATURE_LEVEL_3_0;
    const DML_TENSOR_DATA_TYPE lt = op->private_.buffer[1].DataType;
    return is_64(out->DataType) || lt != DML_TENSOR_DATA_TYPE_UINT32 ? DML_FEATURE_LEVEL_5_0 : DML_FEATURE_LEVEL_4_0;
}

/* A translation's outcome against the reference's: a refusal (checked here), an output
 * with no elements, or a descriptor to run (true). counts: refused, empty, run. */
static bool expect_outcome(dmlops_status st, const dmlops_onnx_op *before, const dmlops_onnx_op *op, bool refuse,
                           dmlops_status want, const char *needle, uint32_t rank, const int64_t *shape,
                           const char *what, unsigned *counts)
{
    if (refuse) {
        counts[0]++;
        check_refusal(st, before, op, want, needle, what);
        return false;
    }
    if (!CHECK(st == DMLOPS_SUCCESS, "%s: %s: %s", what, dmlops_status_string(st), dmlops_last_error_message()) ||
        !check_shape(op, rank, shape, what))
        return false;
    const bool empty = count_of(rank, shape) == 0;
    if (!CHECK(op->empty == empty, "%s: empty = %d", what, op->empty)) return false;
    if (empty) {
        counts[1]++;
        return false;
    }
    CHECK_OK(dmlops_validate_operator(&op->desc, documented_level(op)));
    counts[2]++;
    return true;
}

static void random_bytes(dmt_rng *r, uint8_t *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) p[i] = (uint8_t)dmt_next(r);
}

static uint8_t data_in[BUF_BYTES], data_aux[BUF_BYTES], want_out[BUF_BYTES];

/* ---- Slice-13, from the specification's text ------------------------------------------ */
/* "If axes are omitted, they are set to [0, ..., r-1]. If steps are omitted, they are set to
 * [1, ..., 1] of length len(starts). The effective values are initialized as start[i] = 0,
 * ends[i] = dims[i] where dims are the dimensions of input and steps[i] = 1. All negative
 * elements of axes are made non-negative by adding r to them, where r = rank(input). All
 * negative values in starts[i] and ends[i] have dims[axes[i]] added to them, where dims are
 * the dimensions of input. Then start[axes[i]] is the adjusted starts[i] clamped into the
 * range [0, dims[axes[i]]] for positive stepping and [0, dims[axes[i]]-1] for negative
 * stepping. The clamping for the adjusted ends[i] depends on the sign of steps[i] and must
 * accommodate copying 0 through dims[axes[i]] elements, so for positive stepping
 * ends[axes[i]] is clamped to [0, dims[axes[i]]], while for negative stepping it is clamped
 * to [-1, dims[axes[i]]-1]. Finally, step[axes[i]] = steps[i]. For slicing to the end of a
 * dimension with unknown size, it is recommended to pass in INT_MAX when slicing forward
 * and 'INT_MIN' when slicing backward." Elements are then taken as Python's range(start,
 * end, step) would take them. (Axes are omitted only with len(starts) <= r, for which the
 * specification's reference implementation takes [0, ..., len(starts)-1].) */
typedef struct slice_node {
    DML_TENSOR_DATA_TYPE type;
    uint32_t rank, count;
    int64_t shape[MAXR + 1], starts[MAXR + 1], ends[MAXR + 1], axes[MAXR + 1], steps[MAXR + 1];
    bool no_axes, no_steps;
} slice_node;

static int64_t ref_clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Output shape and, per axis, the input index of each output index (dims <= 64). */
static void ref_slice(const slice_node *n, int64_t *out_shape, int64_t (*index)[64])
{
    int64_t start[MAXR], end[MAXR], step[MAXR];
    for (uint32_t d = 0; d < n->rank; d++) {
        start[d] = 0;
        end[d] = n->shape[d];
        step[d] = 1;
    }
    for (uint32_t i = 0; i < n->count; i++) {
        int64_t axis = n->no_axes ? (int64_t)i : n->axes[i];
        if (axis < 0) axis += n->rank;
        const int64_t dims = n->shape[axis], st = n->no_steps ? 1 : n->steps[i];
        int64_t s = n->starts[i], e = n->ends[i];
        if (s < 0) s += dims;
        if (e < 0) e += dims;
        if (st > 0) {
            s = ref_clamp(s, 0, dims);
            e = ref_clamp(e, 0, dims);
        } else {
            s = ref_clamp(s, 0, dims - 1);
            e = ref_clamp(e, -1, dims - 1);
        }
        start[axis] = s;
        end[axis] = e;
        step[axis] = st;
    }
    for (uint32_t d = 0; d < n->rank; d++) {
        int64_t k = 0;
        /* An axis of no elements has none to take (its clamping range [0, -1] is empty). */
        if (n->shape[d] > 0)
            for (int64_t x = start[d]; step[d] > 0 ? x < end[d] : x > end[d];) {
                if (index && k < 64) index[d][k] = x;
                k++;
                if (__builtin_add_overflow(x, step[d], &x)) break;
            }
        out_shape[d] = k;
    }
}

/* The output's bytes: each output element from its input element. */
static void ref_slice_data(const slice_node *n, const int64_t *out_shape, int64_t (*index)[64], const uint8_t *in,
                           uint8_t *out)
{
    const uint32_t es = esize(n->type);
    const uint64_t total = count_of(n->rank, out_shape);
    for (uint64_t e = 0; e < total; e++) {
        uint64_t rest = e, src = 0, in_stride = 1;
        for (uint32_t d = n->rank; d-- > 0;) {
            const uint64_t c = rest % (uint64_t)out_shape[d];
            rest /= (uint64_t)out_shape[d];
            src += (uint64_t)index[d][c] * in_stride;
            in_stride *= (uint64_t)n->shape[d];
        }
        memcpy(out + e * es, in + src * es, es);
    }
}

static void slice_text(const slice_node *n, char *buf, size_t len)
{
    snprintf(buf, len, "Slice %s", dmlops_data_type_name(n->type));
    text_list(buf, len, "shape", n->rank, n->shape);
    text_list(buf, len, "starts", n->count, n->starts);
    text_list(buf, len, "ends", n->count, n->ends);
    text_list(buf, len, "axes", n->count, n->no_axes ? NULL : n->axes);
    text_list(buf, len, "steps", n->count, n->no_steps ? NULL : n->steps);
}

static int64_t random_bound(dmt_rng *r, int64_t dim)
{
    static const int64_t special[] = {INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1, -100, 100, 0, -1};
    if (dmt_below(r, 4) == 0) return special[dmt_below(r, 8)];
    return (int64_t)dmt_below(r, (uint32_t)(2 * dim + 7)) - dim - 3; /* [-dim-3, dim+3] */
}

static int64_t random_step(dmt_rng *r)
{
    static const int64_t special[] = {INT64_MIN, INT64_MAX, 4, -4, 1000, -1000};
    if (dmt_below(r, 16) == 0) return special[dmt_below(r, 6)];
    const int64_t m = 1 + dmt_below(r, 3);
    return dmt_below(r, 2) ? m : -m;
}

/* A random valid node: rank 0-5, dimensions 0-5 (0 rarely). */
static void random_slice(dmt_rng *r, slice_node *n)
{
    memset(n, 0, sizeof *n);
    n->type = all_types[dmt_below(r, 11)];
    n->rank = dmt_below(r, 6);
    for (uint32_t d = 0; d < n->rank; d++) n->shape[d] = dmt_below(r, 24) == 0 ? 0 : 1 + dmt_below(r, 5);
    n->count = n->rank ? dmt_below(r, n->rank + 1) : 0;
    n->no_axes = dmt_below(r, 4) == 0;
    n->no_steps = dmt_below(r, 4) == 0;
    uint32_t perm[MAXR];
    for (uint32_t d = 0; d < n->rank; d++) perm[d] = d;
    for (uint32_t d = n->rank; d > 1; d--) {
        uint32_t k = dmt_below(r, d), t = perm[d - 1];
        perm[d - 1] = perm[k];
        perm[k] = t;
    }
    for (uint32_t i = 0; i < n->count; i++) {
        const uint32_t axis = n->no_axes ? i : perm[i];
        n->axes[i] = dmt_below(r, 2) ? (int64_t)axis : (int64_t)axis - n->rank;
        const int64_t dim = n->shape[axis];
        n->steps[i] = random_step(r);
        n->starts[i] = random_bound(r, dim);
        n->ends[i] = random_bound(r, dim);
        if (dmt_below(r, 2)) { /* half the time an end past the far side, in either spelling */
            static const int64_t forward[] = {INT64_MAX, 1000}, backward[] = {INT64_MIN, -1000};
            const bool up = n->no_steps || n->steps[i] > 0;
            n->ends[i] = dmt_below(r, 3) ? (up ? dim : -dim - 1) : up ? forward[dmt_below(r, 2)] : backward[dmt_below(r, 2)];
        }
    }
}

static dmlops_status call_slice(const slice_node *n, dmlops_onnx_op *op)
{
    return dmlops_onnx_slice(op, n->type, n->rank, n->shape, n->count, n->starts, n->ends, n->no_axes ? NULL : n->axes,
                             n->no_steps ? NULL : n->steps);
}

/* One refusal made from a valid node; false when this node cannot carry that one. */
static bool slice_refusal(dmt_rng *r, slice_node *n, dmlops_status *want, char *needle, size_t len)
{
    const uint32_t kind = dmt_below(r, 9);
    uint32_t i = n->count ? dmt_below(r, n->count) : 0;
    *want = DMLOPS_ERROR_INVALID_ARGUMENT;
    switch (kind) {
    case 0: /* a zero step */
        if (!n->count) return false;
        n->no_steps = false;
        n->steps[i] = 0;
        snprintf(needle, len, "steps[%u] = 0", i);
        return true;
    case 1: /* an axis out of range, either side */
        if (!n->count) return false;
        n->no_axes = false;
        n->axes[i] = dmt_below(r, 2) ? (int64_t)n->rank + dmt_below(r, 3) : -(int64_t)n->rank - 1 - dmt_below(r, 3);
        if (dmt_below(r, 8) == 0) n->axes[i] = dmt_below(r, 2) ? INT64_MAX : INT64_MIN;
        snprintf(needle, len, "axes[%u] = %" PRId64, i, n->axes[i]);
        return true;
    case 2: /* a repeated axis, maybe spelled with the other sign */
        if (n->count < 1 || n->rank < 1 || n->count >= MAXR) return false;
        n->no_axes = false;
        n->axes[n->count] = dmt_below(r, 2) ? n->axes[i] : (n->axes[i] < 0 ? n->axes[i] + n->rank : n->axes[i] - n->rank);
        n->starts[n->count] = 0;
        n->ends[n->count] = 1;
        n->steps[n->count] = 1;
        snprintf(needle, len, "axes[%u] = %" PRId64 " repeats", n->count, n->axes[n->count]);
        n->count++;
        return true;
    case 3: /* a negative dimension */
        if (!n->rank) return false;
        i = dmt_below(r, n->rank);
        n->shape[i] = -1 - (int64_t)dmt_below(r, 5);
        snprintf(needle, len, "input_shape[%u] = %" PRId64, i, n->shape[i]);
        return true;
    case 4: /* not an element type */
        n->type = dmt_below(r, 2) ? DML_TENSOR_DATA_TYPE_UNKNOWN : DML_TENSOR_DATA_TYPE_UINT4;
        snprintf(needle, len, "data type = %d", (int)n->type);
        return true;
    case 5: /* rank 9 */
        n->rank = 9;
        n->count = 0;
        for (uint32_t d = 0; d < 9; d++) n->shape[d] = 1;
        *want = DMLOPS_ERROR_UNSUPPORTED;
        snprintf(needle, len, "rank = 9");
        return true;
    case 6: /* a dimension of 2^32, sliced to a few elements */
        memset(n, 0, sizeof *n);
        n->type = all_types[dmt_below(r, 11)];
        n->rank = 2;
        n->shape[0] = 2;
        n->shape[1] = (int64_t)1 << 32;
        n->count = 1;
        n->axes[0] = 1;
        n->starts[0] = -3;
        n->ends[0] = INT64_MAX;
        n->steps[0] = 1;
        *want = DMLOPS_ERROR_UNSUPPORTED;
        snprintf(needle, len, "input_shape[1] = 4294967296");
        return true;
    case 7: /* 2^32 elements */
        memset(n, 0, sizeof *n);
        n->type = all_types[dmt_below(r, 11)];
        n->rank = 3;
        n->shape[0] = 65536;
        n->shape[1] = 2;
        n->shape[2] = 32768;
        n->no_axes = n->no_steps = true;
        *want = DMLOPS_ERROR_UNSUPPORTED;
        snprintf(needle, len, "2^32 or more elements");
        return true;
    default: /* a step beyond InputWindowStrides' 32 bits that keeps two elements */
        memset(n, 0, sizeof *n);
        n->type = DML_TENSOR_DATA_TYPE_UINT8;
        n->rank = 1;
        n->shape[0] = 3000000000;
        n->count = 1;
        n->starts[0] = dmt_below(r, 2) ? 0 : INT64_MAX;
        n->ends[0] = n->starts[0] ? INT64_MIN : INT64_MAX;
        n->steps[0] = n->starts[0] ? -2147483649LL : 2147483648LL;
        *want = DMLOPS_ERROR_UNSUPPORTED;
        snprintf(needle, len, "steps[0] = %" PRId64, n->steps[0]);
        return true;
    }
}

/* One random node: translated, checked against the reference, and run when it has elements. */
static void slice_case(runner *run, dmt_rng *r, unsigned *counts)
{
    slice_node n;
    random_slice(r, &n);
    dmlops_status want = DMLOPS_SUCCESS;
    char needle[96] = "", what[600];
    const bool refuse = dmt_below(r, 6) == 0 && slice_refusal(r, &n, &want, needle, sizeof needle);
    slice_text(&n, what, sizeof what);
    dmlops_onnx_op op, before;
    memset(&op, 0x5A, sizeof op);
    before = op;
    const dmlops_status st = call_slice(&n, &op);
    static int64_t index[MAXR][64];
    int64_t shape[MAXR];
    if (!refuse) ref_slice(&n, shape, index);
    if (!expect_outcome(st, &before, &op, refuse, want, needle, n.rank, shape, what, counts)) return;
    const uint64_t in_n = count_of(n.rank, n.shape) * esize(n.type), out_n = count_of(n.rank, shape) * esize(n.type);
    random_bytes(r, data_in, in_n);
    ref_slice_data(&n, shape, index, data_in, want_out);
    const void *in[1] = {data_in};
    run_and_compare(run, &op, in, &in_n, want_out, out_n, esize(n.type), what);
}

/* ---- ReverseSequence-10, from the specification's text -------------------------------- */
/* "Reverse batch of sequences having different lengths specified by sequence_lens. For each
 * slice i iterating on batch axis, the operator reverses the first sequence_lens[i] elements
 * on time axis, and copies elements whose index's beyond sequence_lens[i] to the output. So
 * the output slice i contains reversed sequences on the first sequence_lens[i] elements,
 * then have original values copied for the other elements." input: "Tensor of rank r >= 2";
 * sequence_lens: "Tensor specifying lengths of the sequences in a batch. It has shape
 * [batch_size]"; batch_axis and time_axis: "Must be one of 1 (default), or 0" / "0
 * (default), or 1". A length above the time dimension is undefined in ONNX; dmlops_onnx.h
 * clamps it to the dimension, as DirectML does, and counts a negative one as 0. */
typedef struct reverse_node {
    DML_TENSOR_DATA_TYPE type, lengths_type;
    uint32_t rank;
    int64_t shape[MAXR + 1];
    int64_t time_axis, batch_axis;
} reverse_node;

/* A length as the reference reads it: signed types as signed, then clamped to [0, n]. */
static uint64_t ref_length(DML_TENSOR_DATA_TYPE t, const uint8_t *p, uint64_t n)
{
    int64_t s = 0;
    uint64_t u = 0;
    bool is_signed = t == DML_TENSOR_DATA_TYPE_INT32 || t == DML_TENSOR_DATA_TYPE_INT64;
    if (t == DML_TENSOR_DATA_TYPE_INT32) {
        int32_t v;
        memcpy(&v, p, 4);
        s = v;
    } else if (t == DML_TENSOR_DATA_TYPE_INT64) {
        memcpy(&s, p, 8);
    } else if (t == DML_TENSOR_DATA_TYPE_UINT32) {
        uint32_t v;
        memcpy(&v, p, 4);
        u = v;
    } else {
        memcpy(&u, p, 8);
    }
    if (is_signed) {
        if (s < 0) return 0;
        u = (uint64_t)s;
    }
    return u > n ? n : u;
}

static void ref_reverse(const reverse_node *n, const uint8_t *in, const uint8_t *lens, uint8_t *out)
{
    const uint32_t es = esize(n->type), ls = esize(n->lengths_type);
    const uint64_t total = count_of(n->rank, n->shape);
    for (uint64_t e = 0; e < total; e++) {
        uint64_t c[MAXR], rest = e;
        for (uint32_t d = n->rank; d-- > 0;) {
            c[d] = rest % (uint64_t)n->shape[d];
            rest /= (uint64_t)n->shape[d];
        }
        const uint32_t ta = (uint32_t)n->time_axis, ba = (uint32_t)n->batch_axis;
        const uint64_t len = ref_length(n->lengths_type, lens + c[ba] * ls, (uint64_t)n->shape[ta]);
        if (c[ta] < len) c[ta] = len - 1 - c[ta];
        uint64_t src = 0;
        for (uint32_t d = 0; d < n->rank; d++) src = src * (uint64_t)n->shape[d] + c[d];
        memcpy(out + e * es, in + src * es, es);
    }
}

static void reverse_text(const reverse_node *n, char *buf, size_t len)
{
    snprintf(buf, len, "ReverseSequence %s lengths %s time_axis=%" PRId64 " batch_axis=%" PRId64,
             dmlops_data_type_name(n->type), dmlops_data_type_name(n->lengths_type), n->time_axis, n->batch_axis);
    text_list(buf, len, "shape", n->rank, n->shape);
}

static const DML_TENSOR_DATA_TYPE length_types[4] = {DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_INT32,
                                                     DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT64};

static void random_reverse(dmt_rng *r, reverse_node *n)
{
    memset(n, 0, sizeof *n);
    n->type = all_types[dmt_below(r, 11)];
    n->lengths_type = dmt_below(r, 2) ? DML_TENSOR_DATA_TYPE_INT64 : length_types[dmt_below(r, 4)];
    n->rank = 2 + dmt_below(r, 4);
    for (uint32_t d = 0; d < n->rank; d++) n->shape[d] = dmt_below(r, 24) == 0 ? 0 : 1 + dmt_below(r, d < 2 ? 6 : 4);
    n->time_axis = dmt_below(r, 2);
    n->batch_axis = 1 - n->time_axis;
}

/* Random lengths of every kind: within the time dimension, 0, above it, negative, extremes. */
static void random_lengths(dmt_rng *r, const reverse_node *n, uint8_t *lens)
{
    const uint64_t batch = (uint64_t)n->shape[n->batch_axis], t = (uint64_t)n->shape[n->time_axis];
    const uint32_t ls = esize(n->lengths_type);
    for (uint64_t b = 0; b < batch; b++) {
        int64_t v = (int64_t)dmt_below(r, (uint32_t)t + 1);
        switch (dmt_below(r, 8)) {
        case 0: v = (int64_t)t + 1 + dmt_below(r, 3); break;
        case 1: v = -1 - (int64_t)dmt_below(r, 3); break;
        case 2: v = dmt_below(r, 2) ? INT64_MAX : INT64_MIN; break;
        default: break;
        }
        if (ls == 8) {
            memcpy(lens + b * 8, &v, 8);
        } else {
            const int32_t w = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
            memcpy(lens + b * 4, &w, 4);
        }
    }
}

static bool reverse_refusal(dmt_rng *r, reverse_node *n, dmlops_status *want, char *needle, size_t len)
{
    *want = DMLOPS_ERROR_INVALID_ARGUMENT;
    switch (dmt_below(r, 8)) {
    case 0:
        n->time_axis = dmt_below(r, 2) ? 2 + dmt_below(r, 3) : -1 - (int64_t)dmt_below(r, 3);
        snprintf(needle, len, "time_axis = %" PRId64, n->time_axis);
        return true;
    case 1:
        n->batch_axis = dmt_below(r, 2) ? 2 + dmt_below(r, 3) : INT64_MIN;
        snprintf(needle, len, "batch_axis = %" PRId64, n->batch_axis);
        return true;
    case 2:
        n->batch_axis = n->time_axis;
        snprintf(needle, len, "time_axis = %" PRId64 " equals batch_axis = %" PRId64, n->time_axis, n->batch_axis);
        return true;
    case 3:
        n->rank = dmt_below(r, 2);
        snprintf(needle, len, "input rank = %u", n->rank);
        return true;
    case 4:
        n->lengths_type = dmt_below(r, 2) ? DML_TENSOR_DATA_TYPE_INT16 : DML_TENSOR_DATA_TYPE_FLOAT32;
        snprintf(needle, len, "sequence_lens type = %d", (int)n->lengths_type);
        return true;
    case 5:
        n->rank = 9;
        for (uint32_t d = 0; d < 9; d++) n->shape[d] = 2;
        *want = DMLOPS_ERROR_UNSUPPORTED;
        snprintf(needle, len, "rank = 9");
        return true;
    case 6:
        n->shape[n->rank - 1] = (int64_t)1 << 32;
        for (uint32_t d = 0; d + 1 < n->rank; d++) n->shape[d] += n->shape[d] == 0;
        *want = DMLOPS_ERROR_UNSUPPORTED;
        snprintf(needle, len, "input_shape[%u] = 4294967296", n->rank - 1);
        return true;
    default:
        n->type = DML_TENSOR_DATA_TYPE_INT4;
        snprintf(needle, len, "input type = %d", (int)n->type);
        return true;
    }
}

static void reverse_case(runner *run, dmt_rng *r, unsigned *counts)
{
    reverse_node n;
    random_reverse(r, &n);
    dmlops_status want = DMLOPS_SUCCESS;
    char needle[96] = "", what[400];
    const bool refuse = dmt_below(r, 6) == 0 && reverse_refusal(r, &n, &want, needle, sizeof needle);
    reverse_text(&n, what, sizeof what);
    dmlops_onnx_op op, before;
    memset(&op, 0x3C, sizeof op);
    before = op;
    const dmlops_status st =
        dmlops_onnx_reverse_sequence(&op, n.type, n.rank, n.shape, n.lengths_type, n.time_axis, n.batch_axis);
    if (!expect_outcome(st, &before, &op, refuse, want, needle, n.rank, n.shape, what, counts)) return;
    const uint64_t total = count_of(n.rank, n.shape);
    const uint64_t in_n = total * esize(n.type), len_n = (uint64_t)n.shape[n.batch_axis] * esize(n.lengths_type);
    random_bytes(r, data_in, in_n);
    random_lengths(r, &n, data_aux);
    ref_reverse(&n, data_in, data_aux, want_out);
    const void *in[2] = {data_in, data_aux};
    const uint64_t sizes[2] = {in_n, len_n};
    run_and_compare(run, &op, in, sizes, want_out, in_n, esize(n.type), what);
}

/* ---- OneHot-11, from the specification's text ----------------------------------------- */
/* "Produces a one-hot tensor based on inputs. The locations represented by the index values
 * in the 'indices' input tensor will have 'on_value' and the other locations will have
 * 'off_value' in the output tensor, where 'on_value' and 'off_value' are specified as part
 * of required input argument 'values', which is a two-element tensor of format [off_value,
 * on_value]. The rank of the output tensor will be one greater than the rank of the input
 * tensor. The additional dimension is for one-hot representation. The additional dimension
 * will be inserted at the position specified by 'axis'. If 'axis' is not specified then
 * then additional dimension will be inserted as the innermost dimension, i.e. axis=-1. The
 * size of the additional dimension is specified by required scalar input 'depth'. ...
 * Any entries in the 'indices' input tensor with values outside the range [-depth,
 * depth-1] will result in one-hot representation with all 'off_value' values in the output
 * tensor." axis: "Negative value means counting dimensions from the back. Accepted range is
 * [-r-1, r] where r = rank(indices)." */
typedef struct one_hot_node {
    DML_TENSOR_DATA_TYPE indices_type, values_type;
    uint32_t rank;
    int64_t shape[MAXR + 1];
    int64_t depth, axis;
} one_hot_node;

static const DML_TENSOR_DATA_TYPE index_types[4] = {DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT64,
                                                    DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_UINT64};

/* Whether an index selects position k of a sequence of depth elements. */
static bool ref_hot(DML_TENSOR_DATA_TYPE t, const uint8_t *p, int64_t depth, int64_t k)
{
    if (t == DML_TENSOR_DATA_TYPE_INT32 || t == DML_TENSOR_DATA_TYPE_INT64) {
        int64_t v;
        if (t == DML_TENSOR_DATA_TYPE_INT32) {
            int32_t w;
            memcpy(&w, p, 4);
            v = w;
        } else {
            memcpy(&v, p, 8);
        }
        if (v < -depth || v > depth - 1) return false;
        return (v < 0 ? v + depth : v) == k;
    }
    uint64_t u;
    if (t == DML_TENSOR_DATA_TYPE_UINT32) {
        uint32_t w;
        memcpy(&w, p, 4);
        u = w;
    } else {
        memcpy(&u, p, 8);
    }
    return u == (uint64_t)k;
}

static void one_hot_shape(const one_hot_node *n, int64_t *out, uint32_t *axis)
{
    const int64_t a = n->axis < 0 ? n->axis + n->rank + 1 : n->axis;
    for (uint32_t d = 0, k = 0; d <= n->rank; d++) out[d] = d == (uint32_t)a ? n->depth : n->shape[k++];
    *axis = (uint32_t)a;
}

static void ref_one_hot(const one_hot_node *n, const uint8_t *indices, const uint8_t *values, uint8_t *out)
{
    int64_t shape[MAXR + 1];
    uint32_t a;
    one_hot_shape(n, shape, &a);
    const uint32_t es = esize(n->values_type), is = esize(n->indices_type);
    const uint64_t total = count_of(n->rank + 1, shape);
    for (uint64_t e = 0; e < total; e++) {
        uint64_t c[MAXR + 1] = {0}, rest = e, idx = 0; /* all set below; gcc -O3 cannot see it (issue 45.7) */
        for (uint32_t d = n->rank + 1; d-- > 0;) {
            c[d] = rest % (uint64_t)shape[d];
            rest /= (uint64_t)shape[d];
        }
        for (uint32_t d = 0; d <= n->rank; d++)
            if (d != a) idx = idx * (uint64_t)shape[d] + c[d];
        const bool on = ref_hot(n->indices_type, indices + idx * is, n->depth, (int64_t)c[a]);
        memcpy(out + e * es, values + (on ? es : 0), es);
    }
}

static void one_hot_text(const one_hot_node *n, char *buf, size_t len)
{
    snprintf(buf, len, "OneHot indices %s values %s depth=%" PRId64 " axis=%" PRId64,
             dmlops_data_type_name(n->indices_type), dmlops_data_type_name(n->values_type), n->depth, n->axis);
    text_list(buf, len, "shape", n->rank, n->shape);
}

static void random_one_hot(dmt_rng *r, one_hot_node *n)
{
    memset(n, 0, sizeof *n);
    n->indices_type = index_types[dmt_below(r, 4)];
    n->values_type = all_types[dmt_below(r, 11)];
    n->rank = dmt_below(r, 6);
    for (uint32_t d = 0; d < n->rank; d++) n->shape[d] = dmt_below(r, 24) == 0 ? 0 : 1 + dmt_below(r, n->rank > 3 ? 3 : 4);
    n->depth = 1 + dmt_below(r, 6);
    n->axis = (int64_t)dmt_below(r, 2 * n->rank + 2) - n->rank - 1; /* [-r-1, r] */
}

static void random_indices(dmt_rng *r, const one_hot_node *n, uint8_t *p, uint64_t count)
{
    const uint32_t is = esize(n->indices_type);
    for (uint64_t i = 0; i < count; i++) {
        int64_t v = (int64_t)dmt_below(r, (uint32_t)(2 * n->depth + 5)) - n->depth - 2; /* [-depth-2, depth+2] */
        switch (dmt_below(r, 12)) {
        case 0: v = dmt_below(r, 2) ? INT64_MIN : INT64_MAX; break;
        case 1: v = (int64_t)((uint64_t)1 << 32) + v; break; /* above 2^32: never truncated */
        case 2: v = -((int64_t)1 << 32) + v; break;
        default: break;
        }
        if (is == 8) {
            memcpy(p + i * 8, &v, 8);
        } else {
            const uint32_t w = (uint32_t)v;
            memcpy(p + i * 4, &w, 4);
        }
    }
}

static bool one_hot_refusal(dmt_rng *r, one_hot_node *n, dmlops_status *want, char *needle, size_t len)
{
    static const DML_TENSOR_DATA_TYPE others[7] = {DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_INT16,
                                                   DML_TENSOR_DATA_TYPE_UINT8,   DML_TENSOR_DATA_TYPE_UINT16,
                                                   DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT32,
                                                   DML_TENSOR_DATA_TYPE_FLOAT64};
    *want = DMLOPS_ERROR_INVALID_ARGUMENT;
    switch (dmt_below(r, 7)) {
    case 0:
        n->depth = dmt_below(r, 2) ? 0 : dmt_below(r, 2) ? -1 : INT64_MIN;
        snprintf(needle, len, "depth = %" PRId64, n->depth);
        return true;
    case 1:
        n->axis = dmt_below(r, 2) ? (int64_t)n->rank + 1 + dmt_below(r, 3) : -(int64_t)n->rank - 2 - dmt_below(r, 3);
        snprintf(needle, len, "axis = %" PRId64, n->axis);
        return true;
    case 2:
        n->indices_type = others[dmt_below(r, 7)];
        *want = DMLOPS_ERROR_UNSUPPORTED;
        snprintf(needle, len, "indices type = %s", dmlops_data_type_name(n->indices_type));
        return true;
    case 3:
        n->values_type = DML_TENSOR_DATA_TYPE_UNKNOWN;
        snprintf(needle, len, "values type = 0");
        return true;
    case 4:
        n->rank = 8;
        for (uint32_t d = 0; d < 8; d++) n->shape[d] = 1;
        *want = DMLOPS_ERROR_UNSUPPORTED;
        snprintf(needle, len, "rank = 8");
        return true;
    case 5:
        n->depth = (int64_t)1 << 32;
        for (uint32_t d = 0; d < n->rank; d++) n->shape[d] += n->shape[d] == 0;
        *want = DMLOPS_ERROR_UNSUPPORTED;
        snprintf(needle, len, "depth = 4294967296");
        return true;
    default:
        if (!n->rank) return false;
        n->shape[0] = -7;
        snprintf(needle, len, "indices_shape[0] = -7");
        return true;
    }
}

static void one_hot_case(runner *run, dmt_rng *r, unsigned *counts)
{
    one_hot_node n;
    random_one_hot(r, &n);
    dmlops_status want = DMLOPS_SUCCESS;
    char needle[96] = "", what[400];
    const bool refuse = dmt_below(r, 6) == 0 && one_hot_refusal(r, &n, &want, needle, sizeof needle);
    one_hot_text(&n, what, sizeof what);
    dmlops_onnx_op op, before;
    memset(&op, 0xC3, sizeof op);
    before = op;
    const dmlops_status st =
        dmlops_onnx_one_hot(&op, n.indices_type, n.rank, n.shape, n.depth, n.values_type, n.axis);
    int64_t shape[MAXR + 1];
    uint32_t a;
    if (!refuse) one_hot_shape(&n, shape, &a);
    if (!expect_outcome(st, &before, &op, refuse, want, needle, n.rank + 1, shape, what, counts)) return;
    const uint64_t total = count_of(n.rank + 1, shape), nidx = count_of(n.rank, n.shape);
    const uint32_t vs = esize(n.values_type);
    random_indices(r, &n, data_in, nidx);
    do random_bytes(r, data_aux, 2 * vs);
    while (memcmp(data_aux, data_aux + vs, vs) == 0);
    ref_one_hot(&n, data_in, data_aux, want_out);
    const void *in[2] = {data_in, data_aux};
    const uint64_t sizes[2] = {nidx * esize(n.indices_type), 2 * vs};
    run_and_compare(run, &op, in, sizes, want_out, total * vs, vs, what);
}

/* ---- the suites ------------------------------------------------------------------------ */

typedef void (*case_fn)(runner *run, dmt_rng *r, unsigned *counts);

static void random_suite(dmlops_context *ctx, const char *name, case_fn fn, unsigned nodes, uint64_t salt)
{
    const uint64_t seed = test_seed(salt);
    dmt_rng r = {seed};
    runner run;
    if (!CHECK(runner_init(&run, ctx), "buffers")) {
        runner_free(&run);
        return;
    }
    unsigned counts[3] = {0, 0, 0}; /* refused, empty, run */
    for (unsigned i = 0; i < nodes; i++) fn(&run, &r, counts);
    printf("     %s [%s]: seed 0x%016" PRIx64 ", %u nodes: %u run and compared, %u empty, %u refused\n", name,
           dmt_backend_name(), seed, nodes, counts[2], counts[1], counts[0]);
    CHECK(counts[0] >= nodes / 20 && counts[1] >= nodes / 50 && counts[2] >= nodes / 2, "too few of some kind");
    runner_free(&run);
}

TEST_CTX(onnx_slice_random) { random_suite(ctx, "Slice", slice_case, 300, 1); }
TEST_CTX(onnx_reverse_sequence_random) { random_suite(ctx, "ReverseSequence", reverse_case, 200, 2); }
TEST_CTX(onnx_one_hot_random) { random_suite(ctx, "OneHot", one_hot_case, 200, 3); }

/* ---- targeted cases ------------------------------------------------------------------- */

/* The trap: ONNX clamps a start below -dim to 0, so starts=-100, ends=-100,
 * steps=-1 on a dimension of 5 selects element 0, where numpy selects nothing. */
TEST_CTX(onnx_slice_negative_step_below_dim)
{
    runner run;
    if (!CHECK(runner_init(&run, ctx), "buffers")) {
        runner_free(&run);
        return;
    }
    const int64_t shape[1] = {5}, starts[1] = {-100}, ends[1] = {-100}, steps[1] = {-1};
    const float x[5] = {10, 11, 12, 13, 14}, want[1] = {10};
    dmlops_onnx_op op;
    if (CHECK_OK(dmlops_onnx_slice(&op, DML_TENSOR_DATA_TYPE_FLOAT32, 1, shape, 1, starts, ends, NULL, steps)) &&
        CHECK(!op.empty && op.output_rank == 1 && op.output_shape[0] == 1, "shape %" PRId64, op.output_shape[0])) {
        const void *in[1] = {x};
        const uint64_t n = sizeof x;
        run_and_compare(&run, &op, in, &n, (const uint8_t *)want, sizeof want, 4, "starts=-100 ends=-100 steps=-1");
    }
    /* The whole axis reversed with INT64 extremes, as ONNX recommends for an unknown size. */
    const int64_t s2[1] = {INT64_MAX}, e2[1] = {INT64_MIN};
    const float rev[5] = {14, 13, 12, 11, 10};
    if (CHECK_OK(dmlops_onnx_slice(&op, DML_TENSOR_DATA_TYPE_FLOAT32, 1, shape, 1, s2, e2, NULL, steps))) {
        const void *in[1] = {x};
        const uint64_t n = sizeof x;
        run_and_compare(&run, &op, in, &n, (const uint8_t *)rev, sizeof rev, 4, "INT64_MAX:INT64_MIN:-1");
    }
    runner_free(&run);
}

/* A struct filled by a helper may be used where it was filled only: desc points into it. */
TEST(onnx_desc_points_into_the_struct)
{
    dmlops_onnx_op op;
    const int64_t shape[2] = {3, 4}, starts[1] = {1}, ends[1] = {3};
    REQUIRE_OK(dmlops_onnx_slice(&op, DML_TENSOR_DATA_TYPE_UINT8, 2, shape, 1, starts, ends, NULL, NULL));
    const char *lo = (const char *)&op, *hi = lo + sizeof op;
    const DML_SLICE1_OPERATOR_DESC *s = op.desc.Desc;
    CHECK((const char *)s >= lo && (const char *)s < hi, "desc.Desc outside the struct");
    CHECK((const char *)s->InputTensor >= lo && (const char *)s->InputTensor < hi, "InputTensor outside the struct");
    CHECK((const char *)s->InputWindowStrides >= lo && (const char *)s->InputWindowStrides < hi, "strides outside");
    CHECK(op.input_count == 1 && op.input_bytes[0] == 12 && op.output_bytes == 8, "bindings %u %" PRIu64 " %" PRIu64,
          op.input_count, op.input_bytes[0], op.output_bytes);
    CHECK_STATUS(dmlops_onnx_slice(NULL, DML_TENSOR_DATA_TYPE_UINT8, 2, shape, 1, starts, ends, NULL, NULL),
                 DMLOPS_ERROR_INVALID_ARGUMENT, "op is NULL");
    CHECK_STATUS(dmlops_onnx_slice(&op, DML_TENSOR_DATA_TYPE_UINT8, 2, NULL, 0, NULL, NULL, NULL, NULL),
                 DMLOPS_ERROR_INVALID_ARGUMENT, "input_shape is NULL");
    CHECK_STATUS(dmlops_onnx_slice(&op, DML_TENSOR_DATA_TYPE_UINT8, 2, shape, 1, NULL, ends, NULL, NULL),
                 DMLOPS_ERROR_INVALID_ARGUMENT, "starts is NULL");
    CHECK_STATUS(dmlops_onnx_reverse_sequence(NULL, DML_TENSOR_DATA_TYPE_UINT8, 2, shape, DML_TENSOR_DATA_TYPE_INT64, 0, 1),
                 DMLOPS_ERROR_INVALID_ARGUMENT, "op is NULL");
    CHECK_STATUS(dmlops_onnx_one_hot(NULL, DML_TENSOR_DATA_TYPE_INT64, 2, shape, 3, DML_TENSOR_DATA_TYPE_FLOAT32, -1),
                 DMLOPS_ERROR_INVALID_ARGUMENT, "op is NULL");
    /* An empty output: the shape is reported, nothing else is set. */
    const int64_t e0[1] = {2}, e1[1] = {2};
    REQUIRE_OK(dmlops_onnx_slice(&op, DML_TENSOR_DATA_TYPE_UINT8, 2, shape, 1, e0, e1, NULL, NULL));
    CHECK(op.empty && op.output_rank == 2 && op.output_shape[0] == 0 && op.output_shape[1] == 4 &&
              op.desc.Type == DML_OPERATOR_INVALID && op.desc.Desc == NULL,
          "empty slice");
    /* A dimension past 2^32 - 1 is fine when the output is empty: nothing runs. */
    const int64_t big[2] = {0, (int64_t)1 << 40};
    REQUIRE_OK(dmlops_onnx_one_hot(&op, DML_TENSOR_DATA_TYPE_INT64, 2, big, 5, DML_TENSOR_DATA_TYPE_FLOAT32, 1));
    CHECK(op.empty && op.output_rank == 3 && op.output_shape[1] == 5 && op.output_shape[2] == big[1], "empty one-hot");
}
