/* The CPU engine when threads cannot be created: built with -Wl,--wrap=pthread_create,
 * which sends the library's calls (and this file's) to the wrapper below. A pool whose
 * workers all fail to start runs every chunk on the caller; one whose workers partly
 * start runs on those. Either way results are exact, nothing fails and nothing hangs,
 * and dmlops_context_info.cpu_threads says how many threads really run. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "op_descs.h"

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
static int dmt_creates_allowed = -1; /* -1: no limit */
static int dmt_creates_refused;
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    if (dmt_creates_allowed == 0) {
        dmt_creates_refused++;
        return EAGAIN;
    }
    if (dmt_creates_allowed > 0) dmt_creates_allowed--;
    return __real_pthread_create(t, a, fn, arg);
}

enum { N = 1 << 20 }; /* 4 MiB of FLOAT32 each way: split into many chunks */

/* A REVERSE along the inner axis of [256, 4096] with lengths r % 4097, checked. */
static void reverse_checked(dmlops_context *ctx, const char *what)
{
    const uint32_t sizes[2] = {256, 4096};
    dmt_reverse rev;
    dmt_reverse_init(&rev, DML_TENSOR_DATA_TYPE_FLOAT32, 2, sizes, 1, DML_TENSOR_DATA_TYPE_UINT32, NULL);
    uint32_t *x = malloc(N * 4u), *y = malloc(N * 4u), len[256];
    REQUIRE(x && y);
    for (uint32_t i = 0; i < N; i++) x[i] = i * 2654435761u;
    for (uint32_t r = 0; r < 256; r++) len[r] = (r * 37) % 4097;
    dmlops_operator *op = NULL;
    dmlops_buffer *bx = dmt_buffer(ctx, N * 4u, x), *bl = dmt_buffer(ctx, sizeof len, len), *by = dmt_buffer(ctx, N * 4u, NULL);
    if (CHECK_OK(dmlops_operator_create(ctx, &rev.desc, &op))) {
        dmlops_binding in[2] = {{bx, 0, N * 4u}, {bl, 0, sizeof len}}, out = {by, 0, N * 4u};
        for (int rep = 0; rep < 3; rep++) CHECK_OK(dmlops_operator_execute(op, 2, in, 1, &out));
        CHECK_OK(dmlops_buffer_read(by, 0, y, N * 4u));
        int bad = 0;
        for (uint32_t r = 0; r < 256 && !bad; r++)
            for (uint32_t i = 0; i < 4096; i++) {
                uint32_t s = i < len[r] ? len[r] - 1 - i : i;
                if (y[r * 4096 + i] != x[r * 4096 + s]) {
                    (void)CHECK(0, "%s: row %u element %u wrong", what, r, i);
                    bad = 1;
                    break;
                }
            }
    }
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(bx);
    dmlops_buffer_destroy(bl);
    dmlops_buffer_destroy(by);
    free(x);
    free(y);
}

static void with_limit(int allowed, uint32_t expect_threads, const char *what)
{
    dmt_creates_allowed = allowed;
    dmt_creates_refused = 0;
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
    dmlops_context_options o = {.cpu_threads = 4};
    dmlops_context *ctx = NULL;
    REQUIRE_OK(dmlops_context_create_with_options(&d, &o, &ctx));
    reverse_checked(ctx, what);
    dmlops_context_info info;
    CHECK_OK(dmlops_context_get_info(ctx, &info));
    CHECK(info.cpu_threads == expect_threads, "%s: cpu_threads %u, expected %u", what, info.cpu_threads,
          expect_threads);
    CHECK(allowed < 0 || dmt_creates_refused == 1, "%s: %d refused creations (the pool should try once)", what,
          dmt_creates_refused);
    dmlops_context_destroy(ctx);
    dmt_creates_allowed = -1;
}

TEST(no_worker_thread_can_be_created) { with_limit(0, 1, "no worker"); }
TEST(only_one_of_three_workers_starts) { with_limit(1, 2, "one worker of three"); }
TEST(every_worker_starts) { with_limit(-1, 4, "three workers"); }
