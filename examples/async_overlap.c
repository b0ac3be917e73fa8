/* An engine that overlaps its own work with libdmlops's: each frame's input goes up, is
 * reversed and comes back without the engine waiting, while the engine prepares the next
 * frame on its own thread; it waits only when it needs a frame's result, two frames later.
 * Two sets of buffers take turns, so a frame never writes what the one in flight reads.
 * Any backend: a Vulkan device when there is one, else the CPU backend (DMLOPS_BACKEND
 * chooses).
 *
 * Build: cc async_overlap.c $(pkg-config --static --cflags --libs dmlops) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmlops.h"

#define DML_OR_DIE(x)                                                                     \
    do {                                                                                  \
        if ((x) != DMLOPS_SUCCESS) {                                                      \
            fprintf(stderr, "%s: %s\n", #x, dmlops_last_error_message());                 \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

enum { ROWS = 64, COLS = 1024, FRAMES = 8, SLOTS = 2 };

/* The engine's own work on a frame: its input and its sequence lengths. */
static void prepare(int frame, float *x, uint32_t *len)
{
    for (int i = 0; i < ROWS * COLS; i++) x[i] = (float)(frame * 1000 + i % 997);
    for (int r = 0; r < ROWS; r++) len[r] = (uint32_t)((r * 37 + frame * 11) % (COLS + 1));
}

int main(void)
{
    const uint32_t sizes[2] = {ROWS, COLS}, len_sizes[2] = {ROWS, 1};
    DML_BUFFER_TENSOR_DESC xb = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, sizes, NULL, ROWS * COLS * 4, 0};
    DML_BUFFER_TENSOR_DESC lb = {DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_FLAG_NONE, 2, len_sizes, NULL, ROWS * 4, 0};
    DML_TENSOR_DESC xt = {DML_TENSOR_TYPE_BUFFER, &xb}, lt = {DML_TENSOR_TYPE_BUFFER, &lb};
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev = {&xt, &lt, &xt, 1};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_REVERSE_SUBSEQUENCES, &rev};

    dmlops_context *ctx = NULL;
    dmlops_operator *op = NULL;
    DML_OR_DIE(dmlops_context_create(NULL, &ctx));
    DML_OR_DIE(dmlops_operator_create(ctx, &desc, &op));
    dmlops_context_info info;
    DML_OR_DIE(dmlops_context_get_info(ctx, &info));
    printf("%s\n", info.note);

    /* Per slot: the buffers, the host copies of the input and output, and the fence of
     * the frame in flight there (its read: the last of its three submissions). */
    struct {
        dmlops_buffer *x, *len, *y;
        float *in, *out;
        uint32_t lengths[ROWS];
        dmlops_fence *done;
        int frame;
    } slot[SLOTS];
    memset(slot, 0, sizeof slot);
    for (int s = 0; s < SLOTS; s++) {
        DML_OR_DIE(dmlops_buffer_create(ctx, ROWS * COLS * 4, &slot[s].x));
        DML_OR_DIE(dmlops_buffer_create(ctx, ROWS * 4, &slot[s].len));
        DML_OR_DIE(dmlops_buffer_create(ctx, ROWS * COLS * 4, &slot[s].y));
        slot[s].in = malloc(ROWS * COLS * 4);
        slot[s].out = malloc(ROWS * COLS * 4);
        if (!slot[s].in || !slot[s].out) return 1;
    }
    int checked = 0, overlapped = 0;
    for (int frame = 0; frame < FRAMES + SLOTS; frame++) {
        const int s = frame % SLOTS;
        if (slot[s].done) { /* the frame two back: its result is needed now */
            if (dmlops_fence_poll(slot[s].done) == DMLOPS_NOT_READY) overlapped++; /* we did not wait for it */
            DML_OR_DIE(dmlops_fence_wait(slot[s].done, UINT64_MAX));
            dmlops_fence_destroy(slot[s].done);
            slot[s].done = NULL;
            for (int r = 0; r < ROWS; r++) {
                const uint32_t L = slot[s].lengths[r] > COLS ? COLS : slot[s].lengths[r];
                for (uint32_t c = 0; c < COLS; c++)
                    if (slot[s].out[r * COLS + c] != slot[s].in[r * COLS + (c < L ? L - 1 - c : c)]) {
                        fprintf(stderr, "frame %d: wrong result at (%d, %u)\n", slot[s].frame, r, c);
                        return 1;
                    }
            }
            checked++;
        }
        if (frame >= FRAMES) continue;
        /* The engine's work for this frame, while the previous one runs. */
        prepare(frame, slot[s].in, slot[s].lengths);
        slot[s].frame = frame;
        const dmlops_binding in[2] = {{slot[s].x, 0, ROWS * COLS * 4}, {slot[s].len, 0, ROWS * 4}};
        const dmlops_binding out = {slot[s].y, 0, ROWS * COLS * 4};
        /* Up, run, back: submitted back to back, they run in order. The writes copy the
         * host bytes before returning; the read lands in `out` once its fence signals. */
        DML_OR_DIE(dmlops_buffer_write_async(slot[s].x, 0, slot[s].in, ROWS * COLS * 4, NULL, NULL));
        DML_OR_DIE(dmlops_buffer_write_async(slot[s].len, 0, slot[s].lengths, ROWS * 4, NULL, NULL));
        DML_OR_DIE(dmlops_operator_execute_async(op, 2, in, 1, &out, NULL, NULL));
        DML_OR_DIE(dmlops_buffer_read_async(slot[s].y, 0, slot[s].out, ROWS * COLS * 4, NULL, &slot[s].done));
    }
    printf("%d frames reversed and checked; %d were still running when the engine came back for them\n", checked,
           overlapped);
    /* Any order, the context first: each object keeps it alive. */
    dmlops_context_destroy(ctx);
    dmlops_operator_destroy(op);
    for (int s = 0; s < SLOTS; s++) {
        dmlops_buffer_destroy(slot[s].x);
        dmlops_buffer_destroy(slot[s].len);
        dmlops_buffer_destroy(slot[s].y);
        free(slot[s].in);
        free(slot[s].out);
    }
    return checked == FRAMES ? 0 : 1;
}
