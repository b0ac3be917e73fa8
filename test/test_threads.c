/* Eight application threads share one context and one operator: each also creates its
 * own operators, buffers and command lists, executes the shared operator and its own
 * ones (directly and through lists), reads dmlops_operator_get_info, and checks every
 * result, all at once. On Vulkan the context serialises submissions and the validation
 * layer's threading checks (on for the harness context) must stay silent; on the CPU
 * backend executions run concurrently and, on the threaded context below, their chunks
 * interleave in one worker pool. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "op_descs.h"

enum { THREADS = 8, ROUNDS = 12, R = 8, C = 96 };

typedef struct shared_op {
    dmlops_operator *op; /* REVERSE [R, C] INT16 along axis 1, shared by every thread */
} shared_op;

typedef struct worker {
    dmlops_context *ctx;
    const shared_op *shared;
    int id;
    int failures;
    char message[256];
} worker;

static void reverse_desc_init(dmt_reverse *d)
{
    const uint32_t sizes[2] = {R, C};
    dmt_reverse_init(d, DML_TENSOR_DATA_TYPE_INT16, 2, sizes, 1, DML_TENSOR_DATA_TYPE_UINT32, NULL);
}

static void fail(worker *w, int round, const char *what)
{
    if (w->failures++) return;
    snprintf(w->message, sizeof w->message, "thread %d round %d: %s: %s", w->id, round, what,
             dmlops_last_error_message());
}

static void *work(void *arg)
{
    worker *w = arg;
    dmt_reverse d;
    reverse_desc_init(&d);
    const uint64_t bytes = (uint64_t)R * C * 2;
    int16_t x[R * C], y[R * C];
    uint32_t len[R];
    for (int round = 0; round < ROUNDS && !w->failures; round++) {
        for (int i = 0; i < R * C; i++) x[i] = (int16_t)(w->id * 1000 + round * 7 + i);
        for (int r = 0; r < R; r++) len[r] = (uint32_t)((r * 13 + round + w->id) % (C + 5));
        /* Odd rounds use the shared operator, even rounds one of this thread's own. */
        dmlops_operator *own = NULL, *op = w->shared->op;
        dmlops_buffer *bx = NULL, *bl = NULL, *by = NULL;
        dmlops_command_list *list = NULL;
        dmlops_status st = DMLOPS_SUCCESS;
        if (round % 2 == 0 && (st = dmlops_operator_create(w->ctx, &d.desc, &own)) == DMLOPS_SUCCESS) op = own;
        if (!st) st = dmlops_buffer_create(w->ctx, bytes, &bx);
        if (!st) st = dmlops_buffer_create(w->ctx, 32, &bl);
        if (!st) st = dmlops_buffer_create(w->ctx, bytes, &by);
        if (!st) st = dmlops_buffer_write(bx, 0, x, bytes);
        if (!st) st = dmlops_buffer_write(bl, 0, len, sizeof len);
        dmlops_binding in[2] = {{bx, 0, bytes}, {bl, 0, 32}}, out = {by, 0, bytes};
        if (!st && round % 3 != 0) st = dmlops_operator_execute(op, 2, in, 1, &out);
        if (!st && round % 3 == 0) st = dmlops_command_list_create(w->ctx, &list);
        if (!st && round % 3 == 0) st = dmlops_command_list_record(list, op, 2, in, 1, &out);
        if (!st && round % 3 == 0) st = dmlops_command_list_execute(list);
        if (!st) st = dmlops_buffer_read(by, 0, y, bytes);
        dmlops_operator_info info;
        if (!st) st = dmlops_operator_get_info(w->shared->op, &info);
        if (st) fail(w, round, "a call failed");
        else if (info.type != DML_OPERATOR_REVERSE_SUBSEQUENCES || info.bytes_written != bytes)
            fail(w, round, "get_info of the shared operator");
        for (int r = 0; r < R && !st && !w->failures; r++)
            for (int i = 0; i < C; i++) {
                int L = len[r] > C ? C : (int)len[r], s = i < L ? L - 1 - i : i;
                if (y[r * C + i] != x[r * C + s]) {
                    fail(w, round, "wrong result");
                    break;
                }
            }
        dmlops_command_list_destroy(list);
        dmlops_buffer_destroy(bx);
        dmlops_buffer_destroy(bl);
        dmlops_buffer_destroy(by);
        dmlops_operator_destroy(own);
    }
    return NULL;
}

static void run_threads(dmlops_context *ctx, const char *label)
{
    dmt_reverse d;
    reverse_desc_init(&d);
    shared_op shared = {NULL};
    REQUIRE_OK(dmlops_operator_create(ctx, &d.desc, &shared.op));
    pthread_t t[THREADS];
    worker w[THREADS];
    int started = 0;
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){ctx, &shared, i, 0, ""};
        if (!CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0, "%s: thread %d", label, i)) break;
        started++;
    }
    for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < started; i++) CHECK(w[i].failures == 0, "%s: %s", label, w[i].message);
    dmlops_operator_info info;
    if (CHECK_OK(dmlops_operator_get_info(shared.op, &info)))
        CHECK(info.last_path != DMLOPS_PATH_NONE, "%s: the shared operator never noted a path", label);
    dmlops_operator_destroy(shared.op);
}

TEST_CTX(threads_share_a_context_and_an_operator) { run_threads(ctx, dmt_backend_name()); }

/* The CPU backend with four pool threads and chunks of 64 bytes: every execution of
 * the 1.5 KiB operator is split, and the eight callers' chunks interleave. */
TEST(threads_share_a_threaded_cpu_context)
{
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
    dmlops_context_options o = {.cpu_threads = 4, .cpu_chunk_bytes = 64};
    dmlops_context *ctx = NULL;
    REQUIRE_OK(dmlops_context_create_with_options(&d, &o, &ctx));
    run_threads(ctx, "cpu, 4 pool threads");
    dmlops_context_info info;
    if (CHECK_OK(dmlops_context_get_info(ctx, &info))) CHECK(info.cpu_threads == 4, "cpu_threads %u", info.cpu_threads);
    dmlops_context_destroy(ctx);
}

/* One caller on a two-thread pool (the polling waits of cpu_pool.c run only where the
 * pool has no more threads than the machine has CPUs, so this is the CPU test that
 * reaches them on CI's two cores). Each round runs the operator on one input and at once
 * on a second into the same output, after a gap of 0, 30 or 300 us (the worker still
 * polling, polling or just asleep, asleep), then reads and checks the output. The 2 MiB
 * operator splits into four chunks of a few microseconds each, so a caller that returned
 * before the worker's chunk of the second execution was done reads the first one's. */
static void caller_meets_workers(uint32_t threads, uint32_t cpu_wait, int rounds)
{
    enum { N = 128, M = 4096 };
    dmlops_context_desc cd = {.backend = DMLOPS_BACKEND_CPU};
    dmlops_context_options o = {.cpu_threads = threads, .cpu_chunk_bytes = 1u << 20, .cpu_wait = cpu_wait};
    dmlops_context *ctx = NULL;
    REQUIRE_OK(dmlops_context_create_with_options(&cd, &o, &ctx));
    const uint32_t sizes[2] = {N, M};
    dmt_reverse d;
    dmt_reverse_init(&d, DML_TENSOR_DATA_TYPE_INT32, 2, sizes, 1, DML_TENSOR_DATA_TYPE_UINT32, NULL);
    const uint64_t bytes = (uint64_t)N * M * 4;
    int32_t *x = malloc(bytes), *y = malloc(bytes);
    uint32_t len[N];
    dmlops_operator *op = NULL;
    dmlops_buffer *bx[2] = {NULL, NULL}, *bl = NULL, *by = NULL;
    if (!CHECK(x && y, "out of memory") || !CHECK_OK(dmlops_operator_create(ctx, &d.desc, &op)) ||
        !CHECK_OK(dmlops_buffer_create(ctx, bytes, &bx[0])) || !CHECK_OK(dmlops_buffer_create(ctx, bytes, &bx[1])) ||
        !CHECK_OK(dmlops_buffer_create(ctx, sizeof len, &bl)) || !CHECK_OK(dmlops_buffer_create(ctx, bytes, &by)))
        goto done;
    for (int r = 0; r < N; r++) len[r] = (uint32_t)(M - r % 5);
    if (!CHECK_OK(dmlops_buffer_write(bl, 0, len, sizeof len))) goto done;
    dmlops_binding in[2][2] = {{{bx[0], 0, bytes}, {bl, 0, sizeof len}}, {{bx[1], 0, bytes}, {bl, 0, sizeof len}}};
    dmlops_binding out = {by, 0, bytes};
    for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < N * M; i++) x[i] = (round * 2 + k) * 1000000 + i;
            if (!CHECK_OK(dmlops_buffer_write(bx[k], 0, x, bytes))) goto done;
        }
        const long gap_ns = round % 3 == 0 ? 0 : round % 3 == 1 ? 30000 : 300000;
        if (gap_ns) nanosleep(&(struct timespec){0, gap_ns}, NULL);
        if (!CHECK_OK(dmlops_operator_execute(op, 2, in[0], 1, &out)) ||
            !CHECK_OK(dmlops_operator_execute(op, 2, in[1], 1, &out)) || !CHECK_OK(dmlops_buffer_read(by, 0, y, bytes)))
            break;
        int bad = -1; /* x holds the second input */
        for (int r = 0; r < N && bad < 0; r++)
            for (int i = 0; i < M; i++) {
                int L = (int)len[r], s = i < L ? L - 1 - i : i;
                if (y[r * M + i] != x[r * M + s]) {
                    bad = r * M + i;
                    break;
                }
            }
        if (!CHECK(bad < 0, "round %d (gap %ld ns): element %d is %d", round, gap_ns, bad, bad < 0 ? 0 : y[bad])) break;
    }
done:
    for (int k = 0; k < 2; k++) dmlops_buffer_destroy(bx[k]);
    dmlops_buffer_destroy(bl);
    dmlops_buffer_destroy(by);
    dmlops_operator_destroy(op);
    dmlops_context_destroy(ctx);
    free(x);
    free(y);
}

TEST(a_caller_meets_polling_and_sleeping_workers) { caller_meets_workers(2, DMLOPS_CPU_WAIT_DEFAULT, 40); }

/* dmlops_context_options.cpu_wait: workers that always poll, even with more threads than
 * CPUs (4 on CI's two cores), and workers that never do, give the same results; a value
 * outside DMLOPS_CPU_WAIT_* is refused, named. */
TEST(cpu_wait_spin_and_sleep_give_the_same_results)
{
    caller_meets_workers(4, DMLOPS_CPU_WAIT_SPIN, 12);
    caller_meets_workers(2, DMLOPS_CPU_WAIT_SLEEP, 12);
    dmlops_context_desc cd = {.backend = DMLOPS_BACKEND_CPU};
    dmlops_context_options o = {.cpu_wait = 3};
    dmlops_context *ctx = NULL;
    CHECK_STATUS(dmlops_context_create_with_options(&cd, &o, &ctx), DMLOPS_ERROR_INVALID_ARGUMENT, "cpu_wait = 3");
    CHECK(ctx == NULL);
}

/* dmlops_context_get_info in one thread while another makes a context's first compute
 * copy, whose pipeline is created under the pipelines' own lock and counted in
 * pipeline_count: the count is read without that lock (a race make test-tsan reported,
 * found by review). On the CPU backend the compute copy is refused and nothing races. */
typedef struct info_reader {
    dmlops_context *ctx;
    atomic_bool stop;
    unsigned reads;
} info_reader;

static void *read_info(void *arg)
{
    info_reader *r = arg;
    dmlops_context_info info;
    while (!atomic_load(&r->stop))
        if (dmlops_context_get_info(r->ctx, &info) == DMLOPS_SUCCESS) r->reads++;
    return NULL;
}

TEST_CTX(context_info_races_no_pipeline_creation)
{
    if (!dmt_is_vulkan()) return;
    enum { BYTES = 4096 };
    dmlops_context *own = NULL; /* a fresh context: its compute copy pipeline is not made yet */
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN};
    REQUIRE_OK(dmlops_context_create(&d, &own));
    (void)ctx;
    info_reader r = {.ctx = own};
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, read_info, &r) == 0);
    dmlops_buffer *a = NULL, *b = NULL;
    dmlops_command_list *list = NULL;
    uint8_t data[BYTES], got[BYTES];
    for (int i = 0; i < BYTES; i++) data[i] = (uint8_t)(i * 7 + 1);
    if (CHECK_OK(dmlops_buffer_create(own, BYTES, &a)) && CHECK_OK(dmlops_buffer_create(own, BYTES, &b)) &&
        CHECK_OK(dmlops_buffer_write(a, 0, data, BYTES)) && CHECK_OK(dmlops_command_list_create(own, &list)) &&
        CHECK_OK(dmlops_command_list_record_compute_copy(list, b, 0, a, 0, BYTES)) &&
        CHECK_OK(dmlops_command_list_execute(list)) && CHECK_OK(dmlops_buffer_read(b, 0, got, BYTES)))
        CHECK(memcmp(got, data, BYTES) == 0, "the compute copy moved other bytes");
    atomic_store(&r.stop, true);
    pthread_join(t, NULL);
    dmlops_context_info info;
    if (CHECK_OK(dmlops_context_get_info(own, &info))) CHECK(info.pipeline_count >= 1, "pipeline_count %u", info.pipeline_count);
    dmlops_command_list_destroy(list);
    dmlops_buffer_destroy(a);
    dmlops_buffer_destroy(b);
    dmlops_context_destroy(own);
}

/* Asynchronous submission from several threads at once (dmlops.h, "Asynchronous
 * submission"): each thread writes its inputs, executes the shared operator and reads the
 * output, all without waiting in between, keeps two rounds in flight, waits its fences
 * (some by polling), and destroys its buffers while work using them may still run.
 * Results are checked every round. */
typedef struct async_worker {
    dmlops_context *ctx;
    dmlops_operator *op;
    int id, failures;
    char message[256];
} async_worker;

static void async_fail(async_worker *w, int round, const char *what)
{
    if (w->failures++) return;
    snprintf(w->message, sizeof w->message, "thread %d round %d: %s: %s", w->id, round, what, dmlops_last_error_message());
}

static void *async_work(void *arg)
{
    async_worker *w = arg;
    const uint64_t bytes = (uint64_t)R * C * 2;
    enum { DEPTH = 2 };
    struct {
        int16_t x[R * C], y[R * C];
        uint32_t len[R];
        dmlops_buffer *bx, *bl, *by;
        dmlops_fence *read;
        int round;
    } slot[DEPTH];
    memset(slot, 0, sizeof slot);
    for (int round = 0; round < ROUNDS + DEPTH && !w->failures; round++) {
        const int k = round % DEPTH;
        if (slot[k].read) { /* the round before last: wait, check, let go */
            dmlops_status st = round % 3 ? dmlops_fence_wait(slot[k].read, UINT64_MAX) : DMLOPS_NOT_READY;
            while (st == DMLOPS_NOT_READY) st = dmlops_fence_poll(slot[k].read);
            if (st != DMLOPS_SUCCESS) async_fail(w, slot[k].round, "waiting");
            for (int r = 0; r < R && !w->failures; r++)
                for (int i = 0; i < C; i++) {
                    const int L = slot[k].len[r] > C ? C : (int)slot[k].len[r], s = i < L ? L - 1 - i : i;
                    if (slot[k].y[r * C + i] != slot[k].x[r * C + s]) {
                        async_fail(w, slot[k].round, "wrong result");
                        break;
                    }
                }
            dmlops_fence_destroy(slot[k].read);
            slot[k].read = NULL;
        }
        if (round >= ROUNDS) continue;
        for (int i = 0; i < R * C; i++) slot[k].x[i] = (int16_t)(w->id * 1000 + round * 7 + i);
        for (int r = 0; r < R; r++) slot[k].len[r] = (uint32_t)((r * 11 + round + w->id) % (C + 5));
        slot[k].round = round;
        dmlops_status st = dmlops_buffer_create(w->ctx, bytes, &slot[k].bx);
        if (!st) st = dmlops_buffer_create(w->ctx, 32, &slot[k].bl);
        if (!st) st = dmlops_buffer_create(w->ctx, bytes, &slot[k].by);
        dmlops_fence *fx = NULL;
        if (!st) st = dmlops_buffer_write_async(slot[k].bx, 0, slot[k].x, bytes, NULL, &fx);
        if (!st) st = dmlops_buffer_write_async(slot[k].bl, 0, slot[k].len, sizeof slot[k].len, NULL, NULL);
        const dmlops_binding in[2] = {{slot[k].bx, 0, bytes}, {slot[k].bl, 0, 32}}, out = {slot[k].by, 0, bytes};
        if (!st) st = dmlops_operator_execute_async(w->op, 2, in, 1, &out, NULL, NULL);
        if (!st) st = dmlops_buffer_read_async(slot[k].by, 0, slot[k].y, bytes, NULL, &slot[k].read);
        if (st) async_fail(w, round, "a submission failed");
        dmlops_fence_destroy(fx); /* a write's fence may go at once */
        /* The work in flight holds them. */
        dmlops_buffer_destroy(slot[k].bx);
        dmlops_buffer_destroy(slot[k].bl);
        dmlops_buffer_destroy(slot[k].by);
        slot[k].bx = slot[k].bl = slot[k].by = NULL;
    }
    for (int k = 0; k < DEPTH; k++) dmlops_fence_destroy(slot[k].read);
    return NULL;
}

static void async_threads(dmlops_context *ctx, const char *label)
{
    dmt_reverse d;
    reverse_desc_init(&d);
    dmlops_operator *op = NULL;
    REQUIRE_OK(dmlops_operator_create(ctx, &d.desc, &op));
    pthread_t t[THREADS];
    async_worker w[THREADS];
    int started = 0;
    for (int i = 0; i < THREADS; i++) {
        w[i] = (async_worker){ctx, op, i, 0, ""};
        if (!CHECK(pthread_create(&t[i], NULL, async_work, &w[i]) == 0, "%s: thread %d", label, i)) break;
        started++;
    }
    for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < started; i++) CHECK(w[i].failures == 0, "%s: %s", label, w[i].message);
    dmlops_operator_destroy(op);
}

/* The asynchronous calls from eight threads on one context, on the CPU backend with a
 * four-thread pool and tiny chunks so that the queue's work is split too. */
TEST_CTX(threads_submit_asynchronously) { async_threads(ctx, dmt_backend_name()); }

TEST(threads_submit_asynchronously_to_a_threaded_cpu_context)
{
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
    dmlops_context_options o = {.cpu_threads = 4, .cpu_chunk_bytes = 64};
    dmlops_context *ctx = NULL;
    REQUIRE_OK(dmlops_context_create_with_options(&d, &o, &ctx));
    async_threads(ctx, "cpu, 4 pool threads");
    dmlops_context_destroy(ctx);
}
