/* Several threads share one context: each creates its own operators, buffers and command
 * lists, executes, and reads back, all at once. The context must serialise what needs it;
 * the validation layer's threading checks (on for the Vulkan context) must stay silent. */
#include <pthread.h>
#include <stdlib.h>

#include "harness.h"

enum { THREADS = 4, ROUNDS = 25, R = 8, C = 96 };

typedef struct worker {
    dmlops_context *ctx;
    int id;
    int failures;
    char message[256];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    const uint32_t sizes[2] = {R, C}, lsizes[2] = {R, 1};
    dmt_tensor ti, tl, to;
    dmt_tensor_init(&ti, DML_TENSOR_DATA_TYPE_INT16, 2, sizes, NULL, 0);
    dmt_tensor_init(&tl, DML_TENSOR_DATA_TYPE_UINT32, 2, lsizes, NULL, 0);
    dmt_tensor_init(&to, DML_TENSOR_DATA_TYPE_INT16, 2, sizes, NULL, 0);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rd = {&ti.desc, &tl.desc, &to.desc, 1};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    const uint64_t bytes = (uint64_t)R * C * 2;
    int16_t x[R * C], y[R * C];
    uint32_t len[R];
    for (int round = 0; round < ROUNDS && !w->failures; round++) {
        for (int i = 0; i < R * C; i++) x[i] = (int16_t)(w->id * 1000 + round * 7 + i);
        for (int r = 0; r < R; r++) len[r] = (uint32_t)((r * 13 + round + w->id) % (C + 5));
        dmlops_operator *op = NULL;
        dmlops_buffer *bx = NULL, *bl = NULL, *by = NULL;
        dmlops_command_list *list = NULL;
        dmlops_status st = dmlops_operator_create(w->ctx, &desc, &op);
        if (!st) st = dmlops_buffer_create(w->ctx, bytes, &bx);
        if (!st) st = dmlops_buffer_create(w->ctx, 32, &bl);
        if (!st) st = dmlops_buffer_create(w->ctx, bytes, &by);
        if (!st) st = dmlops_buffer_write(bx, 0, x, bytes);
        if (!st) st = dmlops_buffer_write(bl, 0, len, sizeof len);
        dmlops_binding in[2] = {{bx, 0, bytes}, {bl, 0, 32}}, out = {by, 0, bytes};
        if (!st && round % 2) st = dmlops_operator_execute(op, 2, in, 1, &out);
        if (!st && !(round % 2)) st = dmlops_command_list_create(w->ctx, &list);
        if (!st && !(round % 2)) st = dmlops_command_list_record(list, op, 2, in, 1, &out);
        if (!st && !(round % 2)) st = dmlops_command_list_execute(list);
        if (!st) st = dmlops_buffer_read(by, 0, y, bytes);
        if (st) {
            w->failures++;
            snprintf(w->message, sizeof w->message, "thread %d round %d: %s", w->id, round, dmlops_last_error_message());
        }
        for (int r = 0; r < R && !st && !w->failures; r++)
            for (int i = 0; i < C; i++) {
                int L = len[r] > C ? C : (int)len[r], s = i < L ? L - 1 - i : i;
                if (y[r * C + i] != x[r * C + s]) {
                    w->failures++;
                    snprintf(w->message, sizeof w->message, "thread %d round %d: row %d element %d wrong", w->id,
                             round, r, i);
                    break;
                }
            }
        dmlops_command_list_destroy(list);
        dmlops_buffer_destroy(bx);
        dmlops_buffer_destroy(bl);
        dmlops_buffer_destroy(by);
        dmlops_operator_destroy(op);
    }
    return NULL;
}

TEST_CTX(threads_share_a_context)
{
    pthread_t t[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){ctx, i, 0, ""};
        REQUIRE(pthread_create(&t[i], NULL, work, &w[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) CHECK(w[i].failures == 0, "%s", w[i].message);
}
