/* Buffer front end: argument and range checks, then the backend. */
#include <stdlib.h>

#include "fault.h"
#include "checked.h"
#include "internal.h"

static dmlops_status dm_buffer_create_impl(dmlops_context *ctx, uint64_t size_in_bytes, dmlops_buffer **out)
{
    DM_CHECK_ARG(ctx, "dmlops_buffer_create");
    DM_CHECK_ARG(out, "dmlops_buffer_create");
    *out = NULL;
    if (size_in_bytes == 0)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "dmlops_buffer_create: size_in_bytes = 0: a buffer holds at least 1 byte");
    dmlops_buffer *buf = dm_zalloc(&ctx->alloc, 1, sizeof *buf);
    if (!buf) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "dmlops_buffer_create: out of host memory");
    buf->ctx = ctx;
    buf->size = size_in_bytes;
    dmlops_status st = ctx->vt->buffer_create(buf);
    if (st != DMLOPS_SUCCESS) {
        dm_afree(&ctx->alloc, buf);
        return st;
    }
    dm_buffer_adopt(buf);
    *out = buf;
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_buffer_create(dmlops_context *ctx, uint64_t size_in_bytes, dmlops_buffer **out)
{
    const dmlops_status st = dm_name_call("dmlops_buffer_create", dm_buffer_create_impl(ctx, size_in_bytes, out));
    return ctx ? dm_logged(ctx, DMLOPS_LOG_OBJECT_CONTEXT, ctx, st) : st;
}

static dmlops_status dm_check_range(const char *fn, const dmlops_buffer *buf, uint64_t offset, const void *p,
                                    uint64_t size)
{
    uint64_t end;
    if (!buf) return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: buffer is NULL", fn);
    if (!p && size) return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: host pointer is NULL", fn);
    if (!dm_add_u64(offset, size, &end) || end > buf->size)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: range [%llu, %llu + %llu) exceeds the buffer size %llu", fn,
                       (unsigned long long)offset, (unsigned long long)offset, (unsigned long long)size,
                       (unsigned long long)buf->size);
    /* The host side is size bytes at p: no such range exists beyond the address space
     * (SIZE_MAX, on a 32-bit host), whatever a device buffer holds, and copies count in
     * size_t. Reached only on Vulkan: a CPU buffer is never larger (cpu_backend.c). */
    if (size > (uint64_t)SIZE_MAX)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s: size = %llu exceeds the host's address space (SIZE_MAX = %llu)",
                       fn, (unsigned long long)size, (unsigned long long)SIZE_MAX);
    return DMLOPS_SUCCESS;
}

/* Synchronous reads and writes wait for the work in flight (it may use the bytes), then
 * copy through the backend's own path (mappings, or staging with submissions waited for
 * under the lock). */
static dmlops_status dm_buffer_write_impl(dmlops_buffer *buf, uint64_t offset, const void *src, uint64_t size)
{
    static const char fn[] = "dmlops_buffer_write";
    DM_TRY(dm_check_range(fn, buf, offset, src, size));
    DM_TRY(dm_check_lost(buf->ctx, fn));
    DM_TRY(dm_name_call(fn, dm_wait_in_flight(buf->ctx)));
    return size ? buf->ctx->vt->buffer_write(buf, offset, src, size) : DMLOPS_SUCCESS;
}

dmlops_status dmlops_buffer_write(dmlops_buffer *buf, uint64_t offset, const void *src, uint64_t size)
{
    const dmlops_status st = dm_buffer_write_impl(buf, offset, src, size);
    return buf ? dm_logged(buf->ctx, DMLOPS_LOG_OBJECT_BUFFER, buf, st) : st;
}

static dmlops_status dm_buffer_read_impl(dmlops_buffer *buf, uint64_t offset, void *dst, uint64_t size)
{
    static const char fn[] = "dmlops_buffer_read";
    DM_TRY(dm_check_range(fn, buf, offset, dst, size));
    DM_TRY(dm_check_lost(buf->ctx, fn));
    DM_TRY(dm_name_call(fn, dm_wait_in_flight(buf->ctx)));
    return size ? buf->ctx->vt->buffer_read(buf, offset, dst, size) : DMLOPS_SUCCESS;
}

dmlops_status dmlops_buffer_read(dmlops_buffer *buf, uint64_t offset, void *dst, uint64_t size)
{
    const dmlops_status st = dm_buffer_read_impl(buf, offset, dst, size);
    return buf ? dm_logged(buf->ctx, DMLOPS_LOG_OBJECT_BUFFER, buf, st) : st;
}

static dmlops_status dm_buffer_async(const char *fn, dm_sub_kind kind, dmlops_buffer *buf, uint64_t offset, void *host,
                                     uint64_t size, const dmlops_submit_info *submit, dmlops_fence **fence)
{
    if (fence) *fence = NULL;
    DM_TRY(dm_check_range(fn, buf, offset, host, size));
    DM_TRY(dm_check_lost(buf->ctx, fn));
    dm_sub s = {.ctx = buf->ctx, .kind = kind, .nbind = 1, .offset = offset, .size = size, .host = host};
    s.bind[0] = (dmlops_binding){buf, offset, size};
    return dm_name_call(fn, dm_submit(fn, &s, submit, false, fence));
}

static dmlops_status dm_buffer_write_async_impl(dmlops_buffer *buf, uint64_t offset, const void *src, uint64_t size,
                                        const dmlops_submit_info *submit, dmlops_fence **fence)
{
    return dm_buffer_async("dmlops_buffer_write_async", DM_SUB_WRITE, buf, offset, (void *)(uintptr_t)src, size, submit,
                           fence);
}

dmlops_status dmlops_buffer_write_async(dmlops_buffer *buf, uint64_t offset, const void *src, uint64_t size,
                                        const dmlops_submit_info *submit, dmlops_fence **fence)
{
    const dmlops_status st = dm_buffer_write_async_impl(buf, offset, src, size, submit, fence);
    return buf ? dm_logged(buf->ctx, DMLOPS_LOG_OBJECT_BUFFER, buf, st) : st;
}

static dmlops_status dm_buffer_read_async_impl(dmlops_buffer *buf, uint64_t offset, void *dst, uint64_t size,
                                       const dmlops_submit_info *submit, dmlops_fence **fence)
{
    return dm_buffer_async("dmlops_buffer_read_async", DM_SUB_READ, buf, offset, dst, size, submit, fence);
}

dmlops_status dmlops_buffer_read_async(dmlops_buffer *buf, uint64_t offset, void *dst, uint64_t size,
                                       const dmlops_submit_info *submit, dmlops_fence **fence)
{
    const dmlops_status st = dm_buffer_read_async_impl(buf, offset, dst, size, submit, fence);
    return buf ? dm_logged(buf->ctx, DMLOPS_LOG_OBJECT_BUFFER, buf, st) : st;
}

uint64_t dmlops_buffer_size(const dmlops_buffer *buf) { return buf ? buf->size : 0; }

void dm_buffer_adopt(dmlops_buffer *buf)
{
    atomic_init(&buf->refs, 1);
    dm_context_retain(buf->ctx);
    dm_handles_open(buf->ctx);
}

void dmlops_buffer_destroy(dmlops_buffer *buf)
{
    if (!buf) return;
    dmlops_context *ctx = buf->ctx;
    dm_context_retain(ctx); /* across the close, which may wait for work using the buffer */
    dm_buffer_release(buf);
    dm_handles_close(ctx);
    dm_context_release(ctx);
}
