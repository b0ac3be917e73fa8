/* Asynchronous submission (dmlops.h, "Asynchronous submission") on both backends: a
 * write, executions and a read submitted back to back with no wait between them; many
 * executions of one operator in flight at once with different bindings (each must use
 * its own, never one rebound under work in flight); command lists submitted while their
 * last execution runs; synchronous calls ordered after asynchronous ones; fences waited,
 * polled, destroyed early; the refusals. Results are checked against the input. */
#include <vulkan/vulkan.h> /* before dmlops.h: the fence's semaphore (dmlops_vulkan.h) */

#include <stdlib.h>

#include "op_descs.h"
#include "vkt.h"

#define INVALID DMLOPS_ERROR_INVALID_ARGUMENT

/* REVERSE of [R, C] INT32 along axis 1 with lengths len[r]: the reference. */
enum { R = 16, C = 64, BYTES = R * C * 4 };

static void reverse_ref(const int32_t *x, const uint32_t *len, int32_t *y)
{
    for (int r = 0; r < R; r++) {
        const uint32_t L = len[r] > C ? C : len[r];
        for (uint32_t c = 0; c < C; c++) y[r * C + c] = x[r * C + (c < L ? L - 1 - c : c)];
    }
}

static void reverse_desc(dmt_reverse *d)
{
    static const uint32_t sizes[2] = {R, C};
    dmt_reverse_init(d, DML_TENSOR_DATA_TYPE_INT32, 2, sizes, 1, DML_TENSOR_DATA_TYPE_UINT32, NULL);
}

static void fill(int32_t *x, uint32_t *len, int seed)
{
    for (int i = 0; i < R * C; i++) x[i] = seed * 100000 + i;
    for (int r = 0; r < R; r++) len[r] = (uint32_t)((r * 7 + seed * 3) % (C + 3));
}

/* A write, an execute and a read submitted without waiting: the read's fence alone says
 * when all three are done, as they run in order. */
TEST_CTX(write_execute_read_in_flight_together)
{
    dmt_reverse d;
    reverse_desc(&d);
    dmlops_operator *op = NULL;
    REQUIRE_OK(dmlops_operator_create(ctx, &d.desc, &op));
    dmlops_buffer *bx = dmt_buffer(ctx, BYTES, NULL), *bl = dmt_buffer(ctx, R * 4, NULL), *by = dmt_buffer(ctx, BYTES, NULL);
    REQUIRE(bx && bl && by);
    int32_t *x = malloc(BYTES), *y = calloc(1, BYTES), *want = malloc(BYTES);
    uint32_t len[R];
    fill(x, len, 1);
    reverse_ref(x, len, want);
    dmlops_fence *fw = NULL, *fl = NULL, *fe = NULL, *fr = NULL;
    const dmlops_binding in[2] = {{bx, 0, BYTES}, {bl, 0, R * 4}}, out = {by, 0, BYTES};
    CHECK_OK(dmlops_buffer_write_async(bx, 0, x, BYTES, NULL, &fw));
    CHECK_OK(dmlops_buffer_write_async(bl, 0, len, sizeof len, NULL, &fl));
    memset(x, 0xEE, BYTES); /* the write copied its bytes: the caller's memory is free again */
    memset(len, 0xEE, sizeof len);
    CHECK_OK(dmlops_operator_execute_async(op, 2, in, 1, &out, NULL, &fe));
    CHECK_OK(dmlops_buffer_read_async(by, 0, y, BYTES, NULL, &fr));
    REQUIRE(fw && fl && fe && fr);
    CHECK_OK(dmlops_fence_wait(fr, UINT64_MAX));
    CHECK(!memcmp(y, want, BYTES), "%s: the read saw the wrong bytes", dmt_backend_name());
    /* Everything before the read has completed too, and a signalled fence stays so. */
    CHECK_OK(dmlops_fence_poll(fw));
    CHECK_OK(dmlops_fence_poll(fl));
    CHECK_OK(dmlops_fence_wait(fe, 0));
    CHECK_OK(dmlops_fence_wait(fr, 0));
    dmlops_fence_destroy(fw);
    dmlops_fence_destroy(fl);
    dmlops_fence_destroy(fe);
    dmlops_fence_destroy(fr);
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(bx);
    dmlops_buffer_destroy(bl);
    dmlops_buffer_destroy(by);
    free(x);
    free(y);
    free(want);
}

/* One operator, N executions in flight with N sets of buffers: each execution must keep
 * the bindings it was given (a binding table rebound under work in flight would make
 * earlier executions write later outputs). The fences are waited in reverse. */
TEST_CTX(many_executions_of_one_operator_in_flight)
{
    enum { N = 12 };
    dmt_reverse d;
    reverse_desc(&d);
    dmlops_operator *op = NULL;
    REQUIRE_OK(dmlops_operator_create(ctx, &d.desc, &op));
    dmlops_buffer *bx[N], *bl[N], *by[N];
    dmlops_fence *f[N];
    int32_t *x = malloc(BYTES), *y = malloc(BYTES), *want = malloc((size_t)N * BYTES);
    uint32_t len[R];
    for (int i = 0; i < N; i++) {
        fill(x, len, i + 2);
        reverse_ref(x, len, want + (size_t)i * R * C);
        bx[i] = dmt_buffer(ctx, BYTES, x);
        bl[i] = dmt_buffer(ctx, R * 4, len);
        by[i] = dmt_buffer(ctx, BYTES, NULL);
    }
    for (int i = 0; i < N; i++) {
        const dmlops_binding in[2] = {{bx[i], 0, BYTES}, {bl[i], 0, R * 4}}, out = {by[i], 0, BYTES};
        f[i] = NULL;
        CHECK_OK(dmlops_operator_execute_async(op, 2, in, 1, &out, NULL, &f[i]));
    }
    for (int i = N - 1; i >= 0; i--) {
        CHECK_OK(dmlops_fence_wait(f[i], UINT64_MAX));
        dmlops_fence_destroy(f[i]);
    }
    for (int i = 0; i < N; i++) {
        CHECK_OK(dmlops_buffer_read(by[i], 0, y, BYTES));
        CHECK(!memcmp(y, want + (size_t)i * R * C, BYTES), "%s: execution %d wrote the wrong output",
              dmt_backend_name(), i);
        dmlops_buffer_destroy(bx[i]);
        dmlops_buffer_destroy(bl[i]);
        dmlops_buffer_destroy(by[i]);
    }
    dmlops_operator_destroy(op);
    free(x);
    free(y);
    free(want);
}

/* Synchronous calls run after the asynchronous work submitted before them: a plain read
 * after an asynchronous execute sees its output, with no fence waited. A list executed
 * again while its last execution runs, or reset, waits for it first. */
TEST_CTX(synchronous_calls_and_lists_follow_the_work_in_flight)
{
    dmt_reverse d;
    reverse_desc(&d);
    dmlops_operator *op = NULL;
    dmlops_command_list *list = NULL;
    REQUIRE_OK(dmlops_operator_create(ctx, &d.desc, &op));
    int32_t *x = malloc(BYTES), *y = malloc(BYTES), *want = malloc(BYTES);
    uint32_t len[R];
    fill(x, len, 5);
    reverse_ref(x, len, want);
    dmlops_buffer *bx = dmt_buffer(ctx, BYTES, x), *bl = dmt_buffer(ctx, R * 4, len), *by = dmt_buffer(ctx, BYTES, NULL),
                  *bc = dmt_buffer(ctx, BYTES, NULL);
    const dmlops_binding in[2] = {{bx, 0, BYTES}, {bl, 0, R * 4}}, out = {by, 0, BYTES};
    CHECK_OK(dmlops_operator_execute_async(op, 2, in, 1, &out, NULL, NULL)); /* no fence wanted */
    CHECK_OK(dmlops_buffer_read(by, 0, y, BYTES));
    CHECK(!memcmp(y, want, BYTES), "%s: a synchronous read overtook the execution before it", dmt_backend_name());

    REQUIRE_OK(dmlops_command_list_create(ctx, &list));
    CHECK_OK(dmlops_command_list_record(list, op, 2, in, 1, &out));
    CHECK_OK(dmlops_command_list_record_copy(list, bc, 0, by, 0, BYTES));
    dmlops_fence *f1 = NULL, *f2 = NULL;
    CHECK_OK(dmlops_command_list_execute_async(list, NULL, &f1));
    CHECK_OK(dmlops_command_list_execute_async(list, NULL, &f2)); /* waits for the first */
    dmlops_execution_stats stats;
    CHECK_OK(dmlops_fence_wait(f2, UINT64_MAX));
    CHECK_OK(dmlops_fence_poll(f1));
    CHECK_OK(dmlops_command_list_get_stats(list, &stats));
    CHECK_OK(dmlops_buffer_read(bc, 0, y, BYTES));
    CHECK(!memcmp(y, want, BYTES), "%s: the list's copy is wrong", dmt_backend_name());
    CHECK_OK(dmlops_command_list_execute_async(list, NULL, NULL));
    CHECK_OK(dmlops_command_list_reset(list)); /* waits for the execution in flight */
    CHECK_OK(dmlops_context_wait_idle(ctx));
    dmlops_fence_destroy(f1);
    dmlops_fence_destroy(f2);
    dmlops_command_list_destroy(list);
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(bx);
    dmlops_buffer_destroy(bl);
    dmlops_buffer_destroy(by);
    dmlops_buffer_destroy(bc);
    free(x);
    free(y);
    free(want);
}

/* A read's fence destroyed before the read completed waits for it: the bytes are there. */
TEST_CTX(destroying_a_read_fence_waits_for_the_read)
{
    uint8_t data[4096], got[4096];
    for (int i = 0; i < 4096; i++) data[i] = (uint8_t)(i * 13);
    dmlops_buffer *b = dmt_buffer(ctx, sizeof data, NULL);
    REQUIRE(b);
    dmlops_fence *fw = NULL, *fr = NULL;
    memset(got, 0, sizeof got);
    CHECK_OK(dmlops_buffer_write_async(b, 0, data, sizeof data, NULL, &fw));
    CHECK_OK(dmlops_buffer_read_async(b, 16, got, sizeof got - 16, NULL, &fr));
    dmlops_fence_destroy(fw); /* the write goes on */
    dmlops_fence_destroy(fr);
    CHECK(!memcmp(got, data + 16, sizeof got - 16), "%s: the read had not happened", dmt_backend_name());
    dmlops_buffer_destroy(b);
}

/* Work in flight keeps what it uses: everything is destroyed right after submitting, the
 * context first, and the read still lands (its fence is waited last). */
TEST_CTX(work_in_flight_keeps_its_objects)
{
    dmlops_context_info info; /* the harness's context says which backend; the test makes its own */
    REQUIRE_OK(dmlops_context_get_info(ctx, &info));
    dmlops_context *own = NULL;
    if (info.backend == DMLOPS_BACKEND_CPU) {
        dmlops_context_desc cd = {.backend = DMLOPS_BACKEND_CPU};
        REQUIRE_OK(dmlops_context_create(&cd, &own));
    } else {
        own = vkt_context(0, 0, 0);
        if (!own) return;
    }
    dmt_reverse d;
    reverse_desc(&d);
    dmlops_operator *op = NULL;
    REQUIRE_OK(dmlops_operator_create(own, &d.desc, &op));
    int32_t *x = malloc(BYTES), *y = calloc(1, BYTES), *want = malloc(BYTES);
    uint32_t len[R];
    fill(x, len, 9);
    reverse_ref(x, len, want);
    dmlops_buffer *bx = dmt_buffer(own, BYTES, NULL), *bl = dmt_buffer(own, R * 4, NULL), *by = dmt_buffer(own, BYTES, NULL);
    const dmlops_binding in[2] = {{bx, 0, BYTES}, {bl, 0, R * 4}}, out = {by, 0, BYTES};
    dmlops_fence *fr = NULL;
    CHECK_OK(dmlops_buffer_write_async(bx, 0, x, BYTES, NULL, NULL));
    CHECK_OK(dmlops_buffer_write_async(bl, 0, len, sizeof len, NULL, NULL));
    CHECK_OK(dmlops_operator_execute_async(op, 2, in, 1, &out, NULL, NULL));
    CHECK_OK(dmlops_buffer_read_async(by, 0, y, BYTES, NULL, &fr));
    dmlops_context_destroy(own);
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(bx);
    dmlops_buffer_destroy(bl);
    dmlops_buffer_destroy(by);
    CHECK_OK(dmlops_fence_wait(fr, UINT64_MAX));
    CHECK(!memcmp(y, want, BYTES), "%s: wrong result after every object was destroyed", dmt_backend_name());
    dmlops_fence_destroy(fr); /* the last handle: the context goes with it */
    free(x);
    free(y);
    free(want);
}

TEST_CTX(async_calls_refuse_what_is_wrong)
{
    dmt_reverse d;
    reverse_desc(&d);
    dmlops_operator *op = NULL;
    REQUIRE_OK(dmlops_operator_create(ctx, &d.desc, &op));
    dmlops_buffer *b = dmt_buffer(ctx, BYTES, NULL), *bl = dmt_buffer(ctx, R * 4, NULL);
    const dmlops_binding in[2] = {{b, 0, BYTES}, {bl, 0, R * 4}}, out = {b, 0, BYTES};
    dmlops_fence *f = (dmlops_fence *)&f; /* set to NULL by a refusal */
    uint8_t host[16] = {0};
    CHECK_STATUS(dmlops_operator_execute_async(op, 2, in, 1, &out, NULL, &f), INVALID, "overlap");
    CHECK(f == NULL);
    CHECK_STATUS(dmlops_operator_execute_async(NULL, 2, in, 1, &out, NULL, &f), INVALID,
                 "dmlops_operator_execute_async: op is NULL");
    CHECK_STATUS(dmlops_buffer_write_async(b, BYTES - 8, host, 16, NULL, &f), INVALID,
                 "dmlops_buffer_write_async: range [");
    CHECK_STATUS(dmlops_buffer_read_async(b, 0, NULL, 16, NULL, &f), INVALID, "dmlops_buffer_read_async: host pointer");
    CHECK_STATUS(dmlops_command_list_execute_async(NULL, NULL, &f), INVALID, "list is NULL");
    dmlops_submit_info si = {.s_type = DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO};
    CHECK_STATUS(dmlops_buffer_write_async(b, 0, host, 16, &si, &f), INVALID,
                 "dmlops_submit_info has s_type = DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO");
    si.s_type = DMLOPS_STRUCTURE_TYPE_SUBMIT_INFO;
    const dmlops_base_structure unknown = {(dmlops_structure_type)31337, NULL};
    si.next = &unknown;
    CHECK_STATUS(dmlops_buffer_write_async(b, 0, host, 16, &si, &f), INVALID, "s_type = 31337");
    const dmlops_base_structure sems = {DMLOPS_STRUCTURE_TYPE_VULKAN_SEMAPHORES, NULL};
    si.next = &sems; /* the application's semaphores: interop contexts only */
    CHECK_STATUS(dmlops_buffer_write_async(b, 0, host, 16, &si, &f), INVALID, "dmlops_vulkan_semaphores");
    si.next = NULL;
    CHECK_OK(dmlops_buffer_write_async(b, 0, host, 16, &si, &f)); /* a plain submit info */
    CHECK_OK(dmlops_fence_wait(f, UINT64_MAX));
    dmlops_fence_destroy(f);
    CHECK_STATUS(dmlops_fence_wait(NULL, 0), INVALID, "fence");
    CHECK_STATUS(dmlops_fence_poll(NULL), INVALID, "fence");
    CHECK_STATUS(dmlops_context_wait_idle(NULL), INVALID, "ctx");
    dmlops_fence_destroy(NULL);
    CHECK(!strcmp(dmlops_status_string(DMLOPS_NOT_READY), "DMLOPS_NOT_READY"));
    CHECK(!strcmp(dmlops_status_string(DMLOPS_TIMEOUT), "DMLOPS_TIMEOUT"));
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(b);
    dmlops_buffer_destroy(bl);
}

/* Polling answers NOT_READY (no message) or SUCCESS, never anything else, and a wait
 * ends; zero-byte transfers are submissions too. */
TEST_CTX(poll_and_wait_answer_while_work_runs)
{
    enum { BIG = 8 << 20 };
    uint8_t *data = malloc(BIG);
    memset(data, 0x5A, BIG);
    dmlops_buffer *b = dmt_buffer(ctx, BIG, NULL);
    REQUIRE(b && data);
    dmlops_fence *f = NULL, *empty = NULL;
    CHECK_OK(dmlops_buffer_write_async(b, 0, data, BIG, NULL, &f));
    CHECK_OK(dmlops_buffer_write_async(b, 0, data, 0, NULL, &empty));
    unsigned not_ready = 0;
    for (int i = 0; i < 1000000; i++) {
        const dmlops_status st = dmlops_fence_poll(f);
        if (st == DMLOPS_SUCCESS) break;
        if (!CHECK(st == DMLOPS_NOT_READY, "poll gave %s", dmlops_status_string(st))) break;
        not_ready++;
    }
    const dmlops_status w = dmlops_fence_wait(empty, 1000);
    CHECK(w == DMLOPS_SUCCESS || w == DMLOPS_TIMEOUT, "wait gave %s", dmlops_status_string(w));
    CHECK_OK(dmlops_fence_wait(empty, UINT64_MAX));
    CHECK_OK(dmlops_fence_wait(f, UINT64_MAX));
    printf("    %s: %u polls answered NOT_READY\n", dmt_backend_name(), not_ready);
    dmlops_fence_destroy(f);
    dmlops_fence_destroy(empty);
    dmlops_buffer_destroy(b);
    free(data);
}

/* The fence's Vulkan semaphore: the context's timeline where the device has one; with
 * DMLOPS_VK_TIMELINE=0 (testing) submissions signal VkFences instead, and work the same. */
TEST(vulkan_fences_with_and_without_a_timeline)
{
    for (int timeline = 1; timeline >= 0; timeline--) {
        dmt_env env;
        dmt_env_set(&env, "DMLOPS_VK_TIMELINE", timeline ? NULL : "0");
        dmlops_context *vk = vkt_context(0, 0, 0);
        dmt_env_restore(&env);
        if (!vk) return;
        dmlops_buffer *b = dmt_buffer(vk, 64, NULL);
        uint8_t data[64], got[64];
        for (int i = 0; i < 64; i++) data[i] = (uint8_t)(i + timeline);
        dmlops_fence *fw = NULL, *fr = NULL;
        CHECK_OK(dmlops_buffer_write_async(b, 0, data, 64, NULL, &fw));
        CHECK_OK(dmlops_buffer_read_async(b, 0, got, 64, NULL, &fr));
        VkSemaphore sem = VK_NULL_HANDLE;
        uint64_t v1 = 0, v2 = 0;
        if (timeline) {
            CHECK_OK(dmlops_fence_get_vulkan_semaphore(fw, &sem, &v1));
            CHECK_OK(dmlops_fence_get_vulkan_semaphore(fr, &sem, &v2));
            CHECK(sem != VK_NULL_HANDLE && v2 > v1, "values %llu then %llu", (unsigned long long)v1,
                  (unsigned long long)v2);
        } else {
            CHECK_STATUS(dmlops_fence_get_vulkan_semaphore(fw, &sem, &v1), DMLOPS_ERROR_UNSUPPORTED, "VkFence");
        }
        CHECK_OK(dmlops_fence_wait(fr, UINT64_MAX));
        CHECK(!memcmp(got, data, 64), "timeline %d: wrong bytes", timeline);
        dmlops_fence_destroy(fw);
        dmlops_fence_destroy(fr);
        dmlops_buffer_destroy(b);
        vkt_done(vk);
    }
    dmlops_context_desc cd = {.backend = DMLOPS_BACKEND_CPU};
    dmlops_context *cpu = NULL;
    REQUIRE_OK(dmlops_context_create(&cd, &cpu));
    dmlops_buffer *b = dmt_buffer(cpu, 16, NULL);
    dmlops_fence *f = NULL;
    VkSemaphore sem;
    uint64_t v;
    CHECK_OK(dmlops_buffer_write_async(b, 0, "0123456789abcdef", 16, NULL, &f));
    CHECK_STATUS(dmlops_fence_get_vulkan_semaphore(f, &sem, &v), DMLOPS_ERROR_UNSUPPORTED, "CPU backend");
    dmlops_fence_destroy(f);
    dmlops_buffer_destroy(b);
    dmlops_context_destroy(cpu);
}
