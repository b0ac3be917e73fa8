/* Memory and diagnostics hooks (dmlops.h): host allocation callbacks, Vulkan allocation
 * callbacks passed through, the memory a context and an operator hold, and the log
 * callback. The callbacks here count every block and byte and check alignment; after the
 * last destroy nothing may be left, and a callback that fails must surface as
 * OUT_OF_HOST_MEMORY with nothing leaked. */
#include <vulkan/vulkan.h> /* before dmlops.h: dmlops_vulkan_allocation_callbacks */

#include <stdatomic.h>
#include <stdlib.h>

#include "op_descs.h"
#include "vkt.h"

#define INVALID DMLOPS_ERROR_INVALID_ARGUMENT

/* ---- counting host callbacks ---- */

typedef struct counting {
    atomic_long blocks, calls, bytes;
    atomic_long fail_after; /* allocations left before they fail (negative: never) */
    atomic_long misaligned, largest, largest_align;
} counting;

typedef struct counted_block {
    size_t size;
    void *raw;
} counted_block;

static void *count_allocate(void *user, size_t size, size_t alignment)
{
    counting *c = user;
    if (atomic_load(&c->fail_after) == 0) return NULL;
    if (atomic_load(&c->fail_after) > 0) atomic_fetch_sub(&c->fail_after, 1);
    /* Our own header in front, and the alignment asked for, by hand. */
    uint8_t *raw = malloc(size + alignment + sizeof(counted_block));
    if (!raw) return NULL;
    uintptr_t p = ((uintptr_t)raw + sizeof(counted_block) + alignment - 1) & ~(uintptr_t)(alignment - 1);
    counted_block h = {size, raw};
    memcpy((void *)(p - sizeof h), &h, sizeof h);
    atomic_fetch_add(&c->blocks, 1);
    atomic_fetch_add(&c->calls, 1);
    atomic_fetch_add(&c->bytes, (long)size);
    if ((long)size > atomic_load(&c->largest)) {
        atomic_store(&c->largest, (long)size);
        atomic_store(&c->largest_align, (long)alignment);
    }
    if (alignment < 16 || (alignment & (alignment - 1))) atomic_fetch_add(&c->misaligned, 1);
    return (void *)p;
}

static void count_deallocate(void *user, void *memory)
{
    counting *c = user;
    counted_block h;
    memcpy(&h, (uint8_t *)memory - sizeof h, sizeof h);
    atomic_fetch_sub(&c->blocks, 1);
    atomic_fetch_sub(&c->bytes, (long)h.size);
    free(h.raw);
}

static dmlops_allocation_callbacks counting_callbacks(counting *c)
{
    memset(c, 0, sizeof *c);
    atomic_store(&c->fail_after, -1);
    return (dmlops_allocation_callbacks){.s_type = DMLOPS_STRUCTURE_TYPE_ALLOCATION_CALLBACKS,
                                         .user_data = c,
                                         .allocate = count_allocate,
                                         .deallocate = count_deallocate};
}

/* A small workflow on ctx: buffers, the REVERSE operator, a list, async and sync work;
 * true when the result is right. Everything made is destroyed. */
static bool workflow(dmlops_context *ctx)
{
    static const uint32_t sizes[2] = {8, 64};
    dmt_reverse d;
    dmt_reverse_init(&d, DML_TENSOR_DATA_TYPE_INT16, 2, sizes, 1, DML_TENSOR_DATA_TYPE_UINT32, NULL);
    int16_t x[8 * 64], y[8 * 64];
    uint32_t len[8];
    for (int i = 0; i < 8 * 64; i++) x[i] = (int16_t)(i * 3);
    for (int r = 0; r < 8; r++) len[r] = (uint32_t)(r * 9);
    dmlops_operator *op = NULL;
    dmlops_buffer *bx = NULL, *bl = NULL, *by = NULL;
    dmlops_command_list *list = NULL;
    dmlops_fence *f = NULL;
    bool ok = CHECK_OK(dmlops_operator_create(ctx, &d.desc, &op)) && CHECK_OK(dmlops_buffer_create(ctx, sizeof x, &bx)) &&
              CHECK_OK(dmlops_buffer_create(ctx, sizeof len, &bl)) && CHECK_OK(dmlops_buffer_create(ctx, sizeof y, &by)) &&
              CHECK_OK(dmlops_buffer_write(bx, 0, x, sizeof x)) &&
              CHECK_OK(dmlops_buffer_write_async(bl, 0, len, sizeof len, NULL, NULL));
    const dmlops_binding in[2] = {{bx, 0, sizeof x}, {bl, 0, sizeof len}}, out = {by, 0, sizeof y};
    ok = ok && CHECK_OK(dmlops_command_list_create(ctx, &list)) &&
         CHECK_OK(dmlops_command_list_record(list, op, 2, in, 1, &out)) &&
         CHECK_OK(dmlops_command_list_execute_async(list, NULL, NULL)) &&
         CHECK_OK(dmlops_operator_execute_async(op, 2, in, 1, &out, NULL, NULL)) &&
         CHECK_OK(dmlops_buffer_read_async(by, 0, y, sizeof y, NULL, &f)) && CHECK_OK(dmlops_fence_wait(f, UINT64_MAX));
    for (int r = 0; r < 8 && ok; r++)
        for (int i = 0; i < 64; i++) {
            const int L = len[r] > 64 ? 64 : (int)len[r], s = i < L ? L - 1 - i : i;
            if (!(ok = CHECK(y[r * 64 + i] == x[r * 64 + s], "element (%d, %d)", r, i))) break;
        }
    dmlops_fence_destroy(f);
    dmlops_command_list_destroy(list);
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(bx);
    dmlops_buffer_destroy(bl);
    dmlops_buffer_destroy(by);
    return ok;
}

static dmlops_context *create_with(dmlops_backend backend, const void *chain, uint32_t flags)
{
    dmlops_context_create_info ci = {.s_type = DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO, .next = chain,
                                     .backend = backend, .flags = flags};
    dmlops_context *ctx = NULL;
    return dmlops_context_create2(&ci, &ctx) == DMLOPS_SUCCESS ? ctx : NULL;
}

static bool vulkan_wanted(void)
{
    if (!dmt_backend_wanted("vulkan")) return false;
    dmlops_context *ctx = create_with(DMLOPS_BACKEND_VULKAN, NULL, 0);
    dmlops_context_destroy(ctx);
    return ctx != NULL;
}

TEST(host_allocations_go_through_the_callbacks)
{
    for (int b = 0; b < 2; b++) {
        const dmlops_backend backend = b ? DMLOPS_BACKEND_VULKAN : DMLOPS_BACKEND_CPU;
        if (b && !vulkan_wanted()) continue;
        counting c;
        const dmlops_allocation_callbacks cb = counting_callbacks(&c);
        dmlops_context *ctx = create_with(backend, &cb, 0);
        REQUIRE(ctx, "%s: %s", b ? "vulkan" : "cpu", dmlops_last_error_message());
        CHECK(workflow(ctx), "%s: the workflow failed", b ? "vulkan" : "cpu");
        dmlops_buffer *big = NULL;
        CHECK_OK(dmlops_buffer_create(ctx, 1 << 20, &big));
        if (!b) /* CPU buffer contents are host memory: through the callbacks, aligned to 64 */
            CHECK(atomic_load(&c.largest) >= (1 << 20) && atomic_load(&c.largest_align) >= 64,
                  "largest block %ld aligned to %ld", atomic_load(&c.largest), atomic_load(&c.largest_align));
        dmlops_buffer_destroy(big);
        const long calls = atomic_load(&c.calls);
        dmlops_context_destroy(ctx);
        printf("    %s: %ld allocations through the callbacks\n", b ? "vulkan" : "cpu", calls);
        CHECK(calls > 10, "%s: only %ld allocations went through the callbacks", b ? "vulkan" : "cpu", calls);
        CHECK(atomic_load(&c.blocks) == 0 && atomic_load(&c.bytes) == 0,
              "%s: %ld blocks (%ld bytes) left after the last destroy", b ? "vulkan" : "cpu", atomic_load(&c.blocks),
              atomic_load(&c.bytes));
        CHECK(atomic_load(&c.misaligned) == 0, "alignment below 16 or not a power of two");
    }
}

/* Every allocation of the callbacks fails in turn: the call that asked says
 * OUT_OF_HOST_MEMORY, the context stays usable (the same call then succeeds), and at the
 * end nothing is left. */
TEST(failing_callbacks_lose_nothing)
{
    for (int b = 0; b < 2; b++) {
        const dmlops_backend backend = b ? DMLOPS_BACKEND_VULKAN : DMLOPS_BACKEND_CPU;
        if (b && !vulkan_wanted()) continue;
        unsigned refused = 0;
        for (long n = 0; n < 60; n++) {
            counting c;
            const dmlops_allocation_callbacks cb = counting_callbacks(&c);
            dmlops_context *ctx = create_with(backend, &cb, 0);
            if (!ctx) continue;
            atomic_store(&c.fail_after, n);
            dmlops_buffer *buf = NULL;
            dmlops_fence *f = NULL;
            uint8_t bytes[64] = {1, 2, 3};
            dmlops_status st = dmlops_buffer_create(ctx, 64, &buf);
            if (st == DMLOPS_SUCCESS) st = dmlops_buffer_write_async(buf, 0, bytes, 64, NULL, &f);
            if (st != DMLOPS_SUCCESS) {
                refused++;
                CHECK(st == DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "n %ld: %s (%s)", n, dmlops_status_string(st),
                      dmlops_last_error_message());
            }
            atomic_store(&c.fail_after, -1);
            if (!buf) CHECK_OK(dmlops_buffer_create(ctx, 64, &buf));
            if (!f) CHECK_OK(dmlops_buffer_write_async(buf, 0, bytes, 64, NULL, &f));
            CHECK_OK(dmlops_fence_wait(f, UINT64_MAX));
            dmlops_fence_destroy(f);
            dmlops_buffer_destroy(buf);
            dmlops_context_destroy(ctx);
            CHECK(atomic_load(&c.blocks) == 0, "n %ld: %ld blocks left", n, atomic_load(&c.blocks));
        }
        CHECK(refused > 0, "no allocation failure reached a call");
        printf("    %s: %u calls refused for want of memory, nothing left\n", b ? "vulkan" : "cpu", refused);
    }
}

TEST(allocation_callbacks_are_checked)
{
    dmlops_allocation_callbacks cb = {.s_type = DMLOPS_STRUCTURE_TYPE_ALLOCATION_CALLBACKS, .allocate = count_allocate};
    dmlops_context_create_info ci = {.s_type = DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO, .next = &cb,
                                     .backend = DMLOPS_BACKEND_CPU};
    dmlops_context *ctx = NULL;
    CHECK_STATUS(dmlops_context_create2(&ci, &ctx), INVALID, "dmlops_allocation_callbacks.deallocate is NULL");
    dmlops_log_callback log = {.s_type = DMLOPS_STRUCTURE_TYPE_LOG_CALLBACK};
    ci.next = &log;
    CHECK_STATUS(dmlops_context_create2(&ci, &ctx), INVALID, "dmlops_log_callback.callback is NULL");
    dmlops_vulkan_allocation_callbacks va = {.s_type = DMLOPS_STRUCTURE_TYPE_VULKAN_ALLOCATION_CALLBACKS};
    ci.next = &va;
    ci.backend = DMLOPS_BACKEND_VULKAN;
    if (vulkan_wanted())
        CHECK_STATUS(dmlops_context_create2(&ci, &ctx), INVALID, "dmlops_vulkan_allocation_callbacks.callbacks is NULL");
    CHECK(ctx == NULL);
}

/* ---- Vulkan allocation callbacks ---- */

typedef struct vk_counting {
    atomic_long live, calls, internal;
} vk_counting;

static VKAPI_ATTR void *VKAPI_CALL vk_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
    (void)scope;
    vk_counting *c = user;
    void *raw = malloc(size + align + sizeof(counted_block)); /* its size and raw pointer just in front */
    if (!raw) return NULL;
    uintptr_t p = ((uintptr_t)raw + sizeof(counted_block) + align - 1) & ~(uintptr_t)(align - 1);
    const counted_block h = {size, raw};
    memcpy((void *)(p - sizeof h), &h, sizeof h);
    atomic_fetch_add(&c->live, 1);
    atomic_fetch_add(&c->calls, 1);
    return (void *)p;
}

static VKAPI_ATTR void VKAPI_CALL vk_free(void *user, void *memory)
{
    vk_counting *c = user;
    if (!memory) return;
    counted_block h;
    memcpy(&h, (uint8_t *)memory - sizeof h, sizeof h);
    atomic_fetch_sub(&c->live, 1);
    free(h.raw);
}

static VKAPI_ATTR void *VKAPI_CALL vk_realloc(void *user, void *original, size_t size, size_t align,
                                              VkSystemAllocationScope scope)
{
    if (!original) return vk_alloc(user, size, align, scope);
    if (!size) {
        vk_free(user, original);
        return NULL;
    }
    counted_block h; /* Vulkan's realloc keeps min(old, new) bytes */
    memcpy(&h, (uint8_t *)original - sizeof h, sizeof h);
    void *p = vk_alloc(user, size, align, scope);
    if (p) memcpy(p, original, h.size < size ? h.size : size);
    if (p) vk_free(user, original);
    return p;
}

static VKAPI_ATTR void VKAPI_CALL vk_internal(void *user, size_t size, VkInternalAllocationType t, VkSystemAllocationScope s)
{
    (void)size, (void)t, (void)s;
    atomic_fetch_add(&((vk_counting *)user)->internal, 1);
}

TEST(vulkan_allocation_callbacks_are_passed_through)
{
    if (!vulkan_wanted()) {
        printf("    note: no Vulkan device\n");
        return;
    }
    vk_counting c = {0};
    const VkAllocationCallbacks vac = {.pUserData = &c, .pfnAllocation = vk_alloc, .pfnReallocation = vk_realloc,
                                       .pfnFree = vk_free, .pfnInternalAllocation = vk_internal,
                                       .pfnInternalFree = vk_internal};
    const dmlops_vulkan_allocation_callbacks va = {.s_type = DMLOPS_STRUCTURE_TYPE_VULKAN_ALLOCATION_CALLBACKS,
                                                   .callbacks = &vac};
    dmlops_context *ctx = create_with(DMLOPS_BACKEND_VULKAN, &va, 0);
    REQUIRE(ctx, "%s", dmlops_last_error_message());
    CHECK(workflow(ctx));
    dmlops_context_destroy(ctx);
    printf("    %ld Vulkan allocations through the callbacks\n", atomic_load(&c.calls));
    CHECK(atomic_load(&c.calls) > 0, "the driver never called them");
    CHECK(atomic_load(&c.live) == 0, "%ld Vulkan blocks left after the last destroy", atomic_load(&c.live));
}

/* ---- memory a context and an operator hold ---- */

static dmlops_memory_info context_memory(dmlops_context *ctx)
{
    dmlops_memory_info m = {.s_type = DMLOPS_STRUCTURE_TYPE_MEMORY_INFO};
    CHECK_OK(dmlops_context_get_memory_info(ctx, &m));
    return m;
}

TEST_CTX(memory_held_is_reported)
{
    enum { BIG = 3 << 20 };
    const dmlops_memory_info before = context_memory(ctx);
    dmlops_buffer *b = NULL;
    REQUIRE_OK(dmlops_buffer_create(ctx, BIG, &b));
    const dmlops_memory_info with = context_memory(ctx);
    const uint64_t grew = dmt_is_vulkan() ? with.device_bytes - before.device_bytes : with.host_bytes - before.host_bytes;
    CHECK(grew >= BIG && grew < BIG + (1 << 20), "%s: a %d-byte buffer grew the context's %s memory by %llu",
          dmt_backend_name(), BIG, dmt_is_vulkan() ? "device" : "host", (unsigned long long)grew);
    dmlops_buffer_destroy(b);
    const dmlops_memory_info after = context_memory(ctx);
    CHECK(after.device_bytes == before.device_bytes && after.host_bytes == before.host_bytes,
          "%s: after the destroy, device %llu -> %llu, host %llu -> %llu", dmt_backend_name(),
          (unsigned long long)before.device_bytes, (unsigned long long)after.device_bytes,
          (unsigned long long)before.host_bytes, (unsigned long long)after.host_bytes);

    /* An operator: what DirectML's GetBindingProperties would say, and what it holds. */
    static const uint32_t sizes[2] = {16, 100};
    dmt_reverse d;
    dmt_reverse_init(&d, DML_TENSOR_DATA_TYPE_UINT16, 2, sizes, 1, DML_TENSOR_DATA_TYPE_UINT32, NULL);
    dmlops_operator *op = NULL;
    REQUIRE_OK(dmlops_operator_create(ctx, &d.desc, &op));
    dmlops_memory_info m = {.s_type = DMLOPS_STRUCTURE_TYPE_MEMORY_INFO};
    dmlops_operator_info2 info = {.s_type = DMLOPS_STRUCTURE_TYPE_OPERATOR_INFO2, .next = &m};
    CHECK_OK(dmlops_operator_get_info2(op, &info));
    CHECK(m.temporary_bytes == 0 && m.persistent_bytes == 0, "temporary %llu, persistent %llu",
          (unsigned long long)m.temporary_bytes, (unsigned long long)m.persistent_bytes);
    CHECK(m.host_bytes > 0, "%s: the operator holds no host memory?", dmt_backend_name());
    if (dmt_is_vulkan() && info.info.planned_path == DMLOPS_PATH_KERNEL) {
        CHECK(m.device_bytes > 0, "its parameter records are device memory");
        CHECK(m.descriptor_sets == info.info.dispatch_count, "%u sets, %u dispatches", m.descriptor_sets,
              info.info.dispatch_count);
    }
    if (!dmt_is_vulkan()) CHECK(m.device_bytes == 0 && m.descriptor_sets == 0);
    dmlops_operator_destroy(op);
    m.s_type = DMLOPS_STRUCTURE_TYPE_OPERATOR_INFO2;
    CHECK_STATUS(dmlops_context_get_memory_info(ctx, &m), INVALID, "dmlops_memory_info has s_type");
}

/* ---- the log callback ---- */

typedef struct log_record {
    int notes, warnings, errors, vulkan;
    const void *last_object;
    dmlops_log_object last_type;
    char last_error[512];
} log_record;

static void record_log(void *user, dmlops_log_severity severity, dmlops_log_object type, const void *object,
                       const char *message)
{
    log_record *r = user;
    if (type == DMLOPS_LOG_OBJECT_VULKAN) r->vulkan++;
    if (severity == DMLOPS_LOG_NOTE) r->notes++;
    if (severity == DMLOPS_LOG_WARNING) r->warnings++;
    if (severity == DMLOPS_LOG_ERROR && type != DMLOPS_LOG_OBJECT_VULKAN) {
        r->errors++;
        snprintf(r->last_error, sizeof r->last_error, "%s", message);
    }
    r->last_object = object;
    r->last_type = type;
}

TEST(log_callback_gets_notes_and_errors)
{
    for (int b = 0; b < 2; b++) {
        const dmlops_backend backend = b ? DMLOPS_BACKEND_VULKAN : DMLOPS_BACKEND_CPU;
        if (b && !vulkan_wanted()) continue;
        log_record r = {0};
        const dmlops_log_callback log = {.s_type = DMLOPS_STRUCTURE_TYPE_LOG_CALLBACK, .callback = record_log,
                                         .user_data = &r};
        dmlops_context *ctx = create_with(backend, &log, 0);
        REQUIRE(ctx);
        CHECK(r.notes == 1 && r.last_object == ctx && r.last_type == DMLOPS_LOG_OBJECT_CONTEXT, "notes %d", r.notes);
        dmlops_buffer *buf = NULL;
        CHECK_OK(dmlops_buffer_create(ctx, 64, &buf));
        uint8_t bytes[16];
        CHECK_STATUS(dmlops_buffer_read(buf, 60, bytes, 16), INVALID, "dmlops_buffer_read");
        CHECK(r.errors == 1 && !strcmp(r.last_error, dmlops_last_error_message()), "errors %d: \"%s\"", r.errors,
              r.last_error);
        CHECK(r.last_object == buf && r.last_type == DMLOPS_LOG_OBJECT_BUFFER, "the object is the buffer");
        dmlops_buffer *none = NULL;
        CHECK_STATUS(dmlops_buffer_create(ctx, 0, &none), INVALID, "size_in_bytes = 0");
        CHECK(r.errors == 2 && r.last_object == ctx && r.last_type == DMLOPS_LOG_OBJECT_CONTEXT, "errors %d", r.errors);
        dmlops_buffer_destroy(buf);
        dmlops_context_destroy(ctx);
        /* A creation that fails tells the callback of its chain. */
        dmlops_context_create_info bad = {.s_type = DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO, .next = &log,
                                          .backend = backend, .flags = 0x100};
        CHECK_STATUS(dmlops_context_create2(&bad, &ctx), INVALID, "flags");
        CHECK(r.errors == 3 && r.last_object == NULL, "errors %d", r.errors);
    }
}

/* With DMLOPS_CONTEXT_FLAG_DEBUG the validation layer's messages go to the callback, not
 * stderr: its best-practices checks (enabled through the layer's own variable) warn about
 * what the library does on purpose (small allocations, one per buffer), which gives some. */
TEST(validation_messages_go_to_the_log_callback)
{
    if (!vulkan_wanted()) return;
    log_record r = {0};
    const dmlops_log_callback log = {.s_type = DMLOPS_STRUCTURE_TYPE_LOG_CALLBACK, .callback = record_log,
                                     .user_data = &r, .min_severity = DMLOPS_LOG_WARNING};
    dmt_env bp;
    dmt_env_set(&bp, "VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_BEST_PRACTICES_EXT");
    dmlops_context *ctx = create_with(DMLOPS_BACKEND_VULKAN, &log, DMLOPS_CONTEXT_FLAG_DEBUG);
    dmt_env_restore(&bp);
    if (!ctx) {
        printf("    note: no validation layer (%s)\n", dmlops_last_error_message());
        return;
    }
    CHECK(r.notes == 0, "a note passed min_severity = WARNING");
    CHECK(workflow(ctx));
    dmlops_context_info info;
    CHECK_OK(dmlops_context_get_info(ctx, &info));
    const unsigned counted = info.debug_message_count;
    const unsigned n = dmt_destroy_counting_messages(ctx); /* on stderr: none */
    printf("    %d validation messages to the callback, %u counted\n", r.vulkan, counted);
    CHECK(n == 0, "%u validation messages went to stderr", n);
    CHECK(r.vulkan > 0 && (unsigned)r.vulkan >= counted, "the callback got %d of %u", r.vulkan, counted);
}
