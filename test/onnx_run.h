/* What the ONNX front end's tests share (test_onnx.c, test_onnx_nodes.c): running a node
 * that a dmlops_onnx_* helper translated, through the normal API, over the ONNX tensors as
 * they are, and comparing its output with the expected one bit for bit. */
#ifndef DMT_ONNX_RUN_H
#define DMT_ONNX_RUN_H

#include <inttypes.h>
#include <stdlib.h>

#include "dmlops_onnx.h"
#include "harness.h"

#define MAXR DMLOPS_ONNX_MAX_RANK
#define BUF_BYTES (1u << 18)
#define GUARD 64u

static inline uint32_t esize(DML_TENSOR_DATA_TYPE t) { return dmlops_data_type_size(t); }

static inline uint64_t count_of(uint32_t rank, const int64_t *shape)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; i++) n *= (uint64_t)shape[i];
    return n;
}

static inline void text_list(char *buf, size_t len, const char *name, uint32_t n, const int64_t *v)
{
    size_t at = strlen(buf);
    at += (size_t)snprintf(buf + at, len - at, " %s=", name);
    if (!v) {
        snprintf(buf + at, len - at, "NULL");
        return;
    }
    for (uint32_t i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%" PRId64, i ? "," : "[", v[i]);
    if (at < len) snprintf(buf + at, len - at, "%s", n ? "]" : "[]");
}

/* ---- running a translated node ------------------------------------------------------- */

typedef struct runner {
    dmlops_context *ctx;
    dmlops_buffer *in[2], *out;
    uint8_t *got;
    unsigned ran;
} runner;

static inline bool runner_init(runner *r, dmlops_context *ctx)
{
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->got = malloc(BUF_BYTES + GUARD);
    return r->got && (r->in[0] = dmt_buffer(ctx, BUF_BYTES, NULL)) && (r->in[1] = dmt_buffer(ctx, BUF_BYTES, NULL)) &&
           (r->out = dmt_buffer(ctx, BUF_BYTES + GUARD, NULL));
}

static inline void runner_free(runner *r)
{
    dmlops_buffer_destroy(r->in[0]);
    dmlops_buffer_destroy(r->in[1]);
    dmlops_buffer_destroy(r->out);
    free(r->got);
}

/* Runs op over the ONNX inputs as they are (in[i]: n[i] bytes, bound with the helper's
 * input_bytes) and checks the result against want (want_n bytes: the ONNX output), and that
 * nothing past those bytes was written. */
static inline bool run_and_compare(runner *r, const dmlops_onnx_op *op, const void *const *in, const uint64_t *n,
                                   const uint8_t *want, uint64_t want_n, uint32_t es, const char *what)
{
    static uint8_t guard[BUF_BYTES + GUARD];
    if (!guard[0]) memset(guard, 0xA5, sizeof guard);
    if (!CHECK(op->output_bytes >= want_n && op->output_bytes <= BUF_BYTES, "%s: output_bytes %" PRIu64, what,
               op->output_bytes))
        return false;
    dmlops_binding b[3];
    for (uint32_t i = 0; i < op->input_count; i++) {
        const bool fits = op->input_bytes[i] >= n[i] && op->input_bytes[i] <= BUF_BYTES && (op->input_bytes[i] & 3) == 0;
        if (!CHECK(fits, "%s: input_bytes[%u] = %" PRIu64 " for %" PRIu64 " ONNX bytes", what, i, op->input_bytes[i], n[i]))
            return false;
        if (!CHECK_OK(dmlops_buffer_write(r->in[i], 0, in[i], n[i]))) return false;
        b[i] = (dmlops_binding){r->in[i], 0, op->input_bytes[i]};
    }
    b[op->input_count] = (dmlops_binding){r->out, 0, op->output_bytes};
    dmlops_operator *o = NULL;
    if (!CHECK_OK(dmlops_operator_create(r->ctx, &op->desc, &o))) {
        printf("     | %s\n", what);
        return false;
    }
    bool ok = CHECK_OK(dmlops_buffer_write(r->out, 0, guard, op->output_bytes + GUARD)) &&
              CHECK_OK(dmlops_operator_execute(o, op->input_count, b, 1, &b[op->input_count])) &&
              CHECK_OK(dmlops_buffer_read(r->out, 0, r->got, op->output_bytes + GUARD));
    dmlops_operator_destroy(o);
    r->ran++;
    if (!ok) return false;
    if (memcmp(r->got, want, want_n) != 0) {
        uint64_t e = 0;
        while (memcmp(r->got + e * es, want + e * es, es) == 0) e++;
        return CHECK(false, "%s: output element %" PRIu64 " of %" PRIu64 " differs from the ONNX reference", what, e,
                     want_n / es);
    }
    return CHECK(memcmp(r->got + want_n, guard, op->output_bytes + GUARD - want_n) == 0,
                 "%s: bytes past the ONNX output were written", what);
}

/* A refused call: the status, the ONNX name and value in the message, *op untouched. */
static inline bool check_refusal(dmlops_status st, const dmlops_onnx_op *before, const dmlops_onnx_op *after,
                                 dmlops_status want, const char *needle, const char *what)
{
    const char *msg = dmlops_last_error_message();
    if (!CHECK(st == want, "%s: %s, expected %s (%s)", what, dmlops_status_string(st), dmlops_status_string(want),
               st ? msg : ""))
        return false;
    if (!CHECK(strstr(msg, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", what, msg, needle)) return false;
    return CHECK(memcmp(before, after, sizeof *after) == 0, "%s: a refused call changed *op", what);
}

static inline bool check_shape(const dmlops_onnx_op *op, uint32_t rank, const int64_t *shape, const char *what)
{
    bool same = op->output_rank == rank;
    for (uint32_t i = 0; same && i < rank; i++) same = op->output_shape[i] == shape[i];
    char a[200] = "", b[200] = "";
    text_list(a, sizeof a, "helper", op->output_rank, op->output_shape);
    text_list(b, sizeof b, "reference", rank, shape);
    return CHECK(same, "%s: output shape%s,%s", what, a, b);
}

#endif
