/* Operator front end: validation at the context's level, binding checks, execution. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "chain.h"
#include "fault.h"
#include "checked.h"
#include "internal.h"

static dmlops_status dm_operator_create_impl(dmlops_context *ctx, const DML_OPERATOR_DESC *desc, dmlops_operator **out)
{
    DM_CHECK_ARG(ctx, "dmlops_operator_create");
    DM_CHECK_ARG(out, "dmlops_operator_create");
    *out = NULL;
    dmlops_operator *op = dm_zalloc(&ctx->alloc, 1, sizeof *op);
    if (!op) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_operator_create: out of host memory");
    dmlops_status st = dm_op_parse_as("dmlops_operator_create", desc, ctx->level, &op->op);
    if (st == DMLOPS_SUCCESS) {
        op->ctx = ctx;
        op->info.type = op->op.type;
        op->info.input_count = op->op.input_count;
        op->info.output_count = op->op.output_count;
        dm_op_traffic(&op->op, &op->info.bytes_read, &op->info.bytes_written);
        st = ctx->vt->operator_create(op);
    }
    if (st != DMLOPS_SUCCESS) {
        dm_afree(&ctx->alloc, op);
        return st;
    }
    atomic_init(&op->refs, 1);
    dm_context_retain(ctx);
    dm_handles_open(ctx);
    *out = op;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_operator_create(dmlops_context *ctx, const DML_OPERATOR_DESC *desc, dmlops_operator **out)
{
    const dmlops_status st = dm_operator_create_impl(ctx, desc, out);
    return ctx ? dm_logged(ctx, DMLOPS_LOG_OBJECT_CONTEXT, ctx, st) : st;
}

void dmlops_operator_destroy(dmlops_operator *op)
{
    if (!op) return;
    dmlops_context *ctx = op->ctx;
    dm_context_retain(ctx); /* across the close, which may wait for work using the operator */
    dm_operator_release(op);
    dm_handles_close(ctx);
    dm_context_release(ctx);
}

dmlops_status dmlops_operator_get_info(const dmlops_operator *op, dmlops_operator_info *info)
{
    DM_CHECK_ARG(op, "dmlops_operator_get_info");
    DM_CHECK_ARG(info, "dmlops_operator_get_info");
    dm_mutex_lock(&op->ctx->lock); /* executions note their path under it */
    *info = op->info;
    dm_mutex_unlock(&op->ctx->lock);
    return DMLOPS_SUCCESS;
}

/* The part of an output structure after its head (s_type, next), zeroed. */
#define DM_ZERO_BODY(p) memset((char *)(p) + sizeof(dmlops_base_structure), 0, sizeof *(p) - sizeof(dmlops_base_structure))

dmlops_status dmlops_operator_get_info2(const dmlops_operator *op, dmlops_operator_info2 *info)
{
    static const char fn[] = "dmlops_operator_get_info2";
    static const dmlops_structure_type allowed[] = {DMLOPS_STRUCTURE_TYPE_OPERATOR_KERNEL_INFO,
                                                    DMLOPS_STRUCTURE_TYPE_MEMORY_INFO};
    DM_CHECK_ARG(op, "dmlops_operator_get_info2");
    DM_CHECK_ARG(info, "dmlops_operator_get_info2");
    const void *found[2];
    dmlops_status st = dm_chain_head(fn, "dmlops_operator_info2", info, DMLOPS_STRUCTURE_TYPE_OPERATOR_INFO2);
    if (st == DMLOPS_SUCCESS) st = dm_chain_parse(fn, "dmlops_operator_info2", info->next, allowed, 2, found);
    if (st != DMLOPS_SUCCESS) return dm_logged(op->ctx, DMLOPS_LOG_OBJECT_OPERATOR, op, st);
    dmlops_operator_kernel_info *k = (dmlops_operator_kernel_info *)(uintptr_t)found[0];
    dmlops_memory_info *m = (dmlops_memory_info *)(uintptr_t)found[1];
    if (k) DM_ZERO_BODY(k);
    if (m) DM_ZERO_BODY(m);
    const dm_backend_vtbl *vt = op->ctx->vt;
    dm_mutex_lock(&op->ctx->lock); /* executions note their path, and keep their tables, under it */
    info->info = op->info;
    if (k && vt->operator_kernel) vt->operator_kernel(op, k);
    if (m) {
        m->host_bytes = sizeof *op;
        if (vt->operator_memory) vt->operator_memory(op, m);
    }
    dm_mutex_unlock(&op->ctx->lock);
    return DMLOPS_SUCCESS;
}

dm_range dm_binding_range(const dmlops_operator *op, uint32_t i, const dmlops_binding *b)
{
    dm_range r = {b->buffer->resource, b->buffer->resource_offset + b->offset, 0};
    r.hi = r.lo + op->op.t[i].total_bytes; /* checked against the buffer size already */
    return r;
}

bool dm_ranges_overlap(dm_range a, dm_range b) { return a.resource == b.resource && a.lo < b.hi && b.lo < a.hi; }

static const char *dm_binding_name(const dm_op *op, uint32_t i, char *buf, size_t cap)
{
    bool in = i < op->input_count;
    snprintf(buf, cap, "%s[%u] (%s)", in ? "inputs" : "outputs", in ? i : i - op->input_count, op->role[i]);
    return buf;
}

/* Binding i's name, formatted only on the failing paths of dm_check_bindings: an
 * snprintf per binding per execution took a quarter of a 4 KiB operator's time. */
#define DM_NAME dm_binding_name(o, i, name, sizeof name)

dmlops_status dm_check_bindings(const dmlops_operator *op, uint32_t input_count, const dmlops_binding *inputs,
                                uint32_t output_count, const dmlops_binding *outputs, dmlops_binding *bound)
{
    const dm_op *o = &op->op;
    const dmlops_status bad = DMLOPS_ERROR_INVALID_ARGUMENT;
    char name[96], other[96];
    if (input_count != o->input_count)
        return dm_fail(bad, "%s: input_count = %u, expected %u", o->name, input_count, o->input_count);
    if (output_count != o->output_count)
        return dm_fail(bad, "%s: output_count = %u, expected %u", o->name, output_count, o->output_count);
    if (!inputs) return dm_fail(bad, "%s: inputs is NULL", o->name);
    if (!outputs) return dm_fail(bad, "%s: outputs is NULL", o->name);
    const uint32_t n = o->input_count + o->output_count;
    for (uint32_t i = 0; i < n; i++) {
        const dmlops_binding *b = i < o->input_count ? &inputs[i] : &outputs[i - o->input_count];
        const dm_tensor *t = &o->t[i];
        uint64_t align = t->base_alignment > 16 ? t->base_alignment : 16, end;
        if (!b->buffer) return dm_fail(bad, "%s: binding %s has a NULL buffer", o->name, DM_NAME);
        if (b->buffer->ctx != op->ctx)
            return dm_fail(bad, "%s: binding %s uses a buffer of another context", o->name, DM_NAME);
        if (b->offset % align)
            return dm_fail(bad, "%s: binding %s offset = %llu is not a multiple of %llu%s", o->name, DM_NAME,
                           (unsigned long long)b->offset, (unsigned long long)align,
                           align > 16 ? " (GuaranteedBaseOffsetAlignment)" : "");
        if (b->size < t->total_bytes)
            return dm_fail(bad, "%s: binding %s size = %llu is below %s.TotalTensorSizeInBytes = %llu", o->name, DM_NAME,
                           (unsigned long long)b->size, o->role[i], (unsigned long long)t->total_bytes);
        if (!dm_add_u64(b->offset, b->size, &end) || end > b->buffer->size)
            return dm_fail(bad, "%s: binding %s range [%llu, %llu + %llu) exceeds the buffer size %llu", o->name, DM_NAME,
                           (unsigned long long)b->offset, (unsigned long long)b->offset,
                           (unsigned long long)b->size, (unsigned long long)b->buffer->size);
        bound[i] = *b;
    }
    /* None of the operators runs in place: no output may overlap any other binding. */
    for (uint32_t i = o->input_count; i < n; i++) {
        dm_range ri = dm_binding_range(op, i, &bound[i]);
        for (uint32_t j = 0; j < n; j++) {
            if (j == i) continue;
            dm_range rj = dm_binding_range(op, j, &bound[j]);
            if (dm_ranges_overlap(ri, rj))
                return dm_fail(bad,
                               "%s: binding %s bytes [%llu, %llu) overlap binding %s bytes [%llu, %llu) of the "
                               "same memory: the operator does not run in place",
                               o->name, dm_binding_name(o, i, name, sizeof name), (unsigned long long)bound[i].offset,
                               (unsigned long long)(bound[i].offset + o->t[i].total_bytes),
                               dm_binding_name(o, j, other, sizeof other), (unsigned long long)bound[j].offset,
                               (unsigned long long)(bound[j].offset + o->t[j].total_bytes));
        }
    }
    return DMLOPS_SUCCESS;
}
#undef DM_NAME

/* The synchronous and asynchronous executions: bindings checked, then inline (the CPU
 * backend's synchronous calls, after the work in flight) or as a submission. */
static dmlops_status dm_operator_run(const char *fn, dmlops_operator *op, uint32_t input_count,
                                     const dmlops_binding *inputs, uint32_t output_count,
                                     const dmlops_binding *outputs, const dmlops_submit_info *submit,
                                     bool sync, dmlops_fence **fence)
{
    if (fence) *fence = NULL;
    if (!op) return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: op is NULL", fn);
    dm_sub s = {.ctx = op->ctx, .kind = DM_SUB_OPERATOR, .op = op, .nbind = op->op.input_count + op->op.output_count};
    DM_TRY(dm_check_bindings(op, input_count, inputs, output_count, outputs, s.bind));
    DM_TRY(dm_check_lost(op->ctx, fn));
    if (sync && op->ctx->vt->sync_inline) {
        DM_TRY(dm_wait_in_flight(op->ctx));
        return op->ctx->vt->operator_execute(op, s.bind);
    }
    return dm_submit(fn, &s, submit, sync, fence);
}

static dmlops_status dm_operator_execute_impl(dmlops_operator *op, uint32_t input_count, const dmlops_binding *inputs,
                                      uint32_t output_count, const dmlops_binding *outputs)
{
    return dm_operator_run("dmlops_operator_execute", op, input_count, inputs, output_count, outputs, NULL, true, NULL);
}

dmlops_status dmlops_operator_execute(dmlops_operator *op, uint32_t input_count, const dmlops_binding *inputs,
                                      uint32_t output_count, const dmlops_binding *outputs)
{
    const dmlops_status st = dm_operator_execute_impl(op, input_count, inputs, output_count, outputs);
    return op ? dm_logged(op->ctx, DMLOPS_LOG_OBJECT_OPERATOR, op, st) : st;
}

static dmlops_status dm_operator_execute_async_impl(dmlops_operator *op, uint32_t input_count, const dmlops_binding *inputs,
                                            uint32_t output_count, const dmlops_binding *outputs,
                                            const dmlops_submit_info *submit, dmlops_fence **fence)
{
    return dm_operator_run("dmlops_operator_execute_async", op, input_count, inputs, output_count, outputs, submit,
                           false, fence);
}

dmlops_status dmlops_operator_execute_async(dmlops_operator *op, uint32_t input_count, const dmlops_binding *inputs,
                                            uint32_t output_count, const dmlops_binding *outputs,
                                            const dmlops_submit_info *submit, dmlops_fence **fence)
{
    const dmlops_status st = dm_operator_execute_async_impl(op, input_count, inputs, output_count, outputs, submit, fence);
    return op ? dm_logged(op->ctx, DMLOPS_LOG_OBJECT_OPERATOR, op, st) : st;
}
