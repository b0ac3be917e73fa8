/* Lifetimes (docs/api.md, "Lifetimes"): objects are destroyed in every order, the context
 * among them, with an execution and a read in flight at each destroy, and whatever is left
 * keeps working after each: an operator still executes into its buffers, a list that
 * records destroyed objects still runs, the work in flight completes right. Under
 * ASan nothing may leak; on Vulkan the validation layer must stay silent through the
 * last destroy. Before reference counting, destroying the context first crashed the next
 * dmlops_buffer_destroy (issue 48). */
#include <stdlib.h>
#include <unistd.h>

#include "op_descs.h"
#include "vkt.h"

/* SLICE1 of 8 x 8 UINT16 rows 2..5, every column: 64 bytes out of 128. */
enum { OBJECTS = 5, IN_BYTES = 128, OUT_BYTES = 64 };
static const char *const object_names[OBJECTS] = {"context", "input", "output", "operator", "list"};

typedef struct world {
    dmlops_context *ctx;
    dmlops_buffer *in, *out;
    dmlops_operator *op;
    dmlops_command_list *list;
    dmt_slice slice;
    uint16_t x[IN_BYTES / 2];
    /* Work left in flight across each destroy: an execution and a read of its output. */
    dmlops_fence *exec, *read;
    uint16_t y[OUT_BYTES / 2];
} world;

static bool world_make(world *w, dmlops_context *ctx)
{
    static const uint32_t sizes[2] = {8, 8}, off[2] = {2, 0}, win[2] = {4, 8};
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    for (int i = 0; i < IN_BYTES / 2; i++) w->x[i] = (uint16_t)(i * 7 + 1);
    dmt_slice_init(&w->slice, DML_TENSOR_DATA_TYPE_UINT16, 2, sizes, off, win);
    if (!CHECK_OK(dmlops_operator_create(ctx, &w->slice.desc, &w->op))) return false;
    w->in = dmt_buffer(ctx, IN_BYTES, w->x);
    w->out = dmt_buffer(ctx, OUT_BYTES, NULL);
    if (!w->in || !w->out) return false;
    const dmlops_binding bi = {w->in, 0, IN_BYTES}, bo = {w->out, 0, OUT_BYTES};
    return CHECK_OK(dmlops_command_list_create(ctx, &w->list)) &&
           CHECK_OK(dmlops_command_list_record(w->list, w->op, 1, &bi, 1, &bo));
}

/* The output holds rows 2..5 of the input (after zeroing it, when it can be written). */
static bool output_right(world *w, const char *after)
{
    uint16_t y[OUT_BYTES / 2];
    if (!CHECK_OK(dmlops_buffer_read(w->out, 0, y, sizeof y))) return false;
    return CHECK(!memcmp(y, w->x + 16, sizeof y), "after destroying %s: wrong output", after);
}

/* Waits for the work left in flight, checks what it read, and lets its fences go. */
static bool world_settle(world *w, const char *after)
{
    bool ok = true;
    if (w->read) {
        ok &= CHECK_OK(dmlops_fence_wait(w->read, UINT64_MAX));
        ok &= CHECK_OK(dmlops_fence_poll(w->exec));
        ok &= CHECK(!memcmp(w->y, w->x + 16, sizeof w->y), "after destroying %s: wrong output read in flight", after);
    }
    dmlops_fence_destroy(w->exec);
    dmlops_fence_destroy(w->read);
    w->exec = w->read = NULL;
    return ok;
}

/* Uses everything still alive, and leaves an execution and a read in flight. */
static bool world_use(world *w, const char *after)
{
    static const uint8_t zero[OUT_BYTES] = {0};
    bool ok = world_settle(w, after);
    if (w->list && w->out) { /* the list runs whatever of its objects was destroyed */
        ok &= CHECK_OK(dmlops_buffer_write(w->out, 0, zero, sizeof zero));
        ok &= CHECK_OK(dmlops_command_list_execute(w->list)) && output_right(w, after);
    }
    if (w->op && w->in && w->out) {
        const dmlops_binding bi = {w->in, 0, IN_BYTES}, bo = {w->out, 0, OUT_BYTES};
        ok &= CHECK_OK(dmlops_buffer_write(w->out, 0, zero, sizeof zero));
        ok &= CHECK_OK(dmlops_operator_execute(w->op, 1, &bi, 1, &bo)) && output_right(w, after);
    }
    if (w->ctx) { /* the context still makes objects */
        dmlops_buffer *b = NULL;
        ok &= CHECK_OK(dmlops_buffer_create(w->ctx, 16, &b));
        dmlops_buffer_destroy(b);
    }
    if (w->op && w->in && w->out) {
        const dmlops_binding bi = {w->in, 0, IN_BYTES}, bo = {w->out, 0, OUT_BYTES};
        memset(w->y, 0, sizeof w->y);
        ok &= CHECK_OK(dmlops_buffer_write_async(w->out, 0, zero, sizeof zero, NULL, NULL));
        ok &= CHECK_OK(dmlops_operator_execute_async(w->op, 1, &bi, 1, &bo, NULL, &w->exec));
        ok &= CHECK_OK(dmlops_buffer_read_async(w->out, 0, w->y, sizeof w->y, NULL, &w->read));
    }
    return ok;
}

static void world_destroy(world *w, int which)
{
    switch (which) {
    case 0: dmlops_context_destroy(w->ctx); w->ctx = NULL; break;
    case 1: dmlops_buffer_destroy(w->in); w->in = NULL; break;
    case 2: dmlops_buffer_destroy(w->out); w->out = NULL; break;
    case 3: dmlops_operator_destroy(w->op); w->op = NULL; break;
    default: dmlops_command_list_destroy(w->list); w->list = NULL; break;
    }
}

/* The k-th permutation of 0..n-1 (k < n!), in lexicographic order. */
static void permutation(int n, int k, int *p)
{
    int pool[OBJECTS], fact = 1;
    for (int i = 0; i < n; i++) pool[i] = i;
    for (int i = 2; i < n; i++) fact *= i;
    for (int i = 0; i < n; i++) {
        const int j = k / fact;
        k %= fact;
        p[i] = pool[j];
        for (int m = j; m < n - 1 - i; m++) pool[m] = pool[m + 1];
        if (n - 1 - i > 0) fact /= n - 1 - i;
    }
}

/* Every order of the five destroys, on a fresh context each; `make` gives the context. */
static void every_order(dmlops_context *(*make)(void), int stride)
{
    int orders = 0;
    for (int k = 0; k < 120; k += stride) {
        int order[OBJECTS];
        permutation(OBJECTS, k, order);
        dmlops_context *ctx = make();
        if (!ctx) return;
        world w;
        bool ok = world_make(&w, ctx) && world_use(&w, "nothing");
        for (int i = 0; i < OBJECTS && ok; i++) {
            world_destroy(&w, order[i]);
            ok = world_use(&w, object_names[order[i]]);
        }
        for (int i = 0; i < OBJECTS; i++) world_destroy(&w, i); /* what a failure left */
        ok &= world_settle(&w, "everything"); /* the fences are the last handles */
        if (!ok) {
            printf("    order %d: %s %s %s %s %s\n", k, object_names[order[0]], object_names[order[1]],
                   object_names[order[2]], object_names[order[3]], object_names[order[4]]);
            return;
        }
        orders++;
    }
    printf("    %d destroy orders\n", orders);
}

static dmlops_context *cpu_context(void)
{
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
    dmlops_context *ctx = NULL;
    return CHECK_OK(dmlops_context_create(&d, &ctx)) ? ctx : NULL;
}

/* A DEBUG context (validation layer) that prints its messages: stderr is captured over
 * each order (capture_begin / capture_end), because the layer reports leaked objects at
 * vkDestroyDevice, inside whichever destroy is the last. */
static dmlops_context *vulkan_context(void) { return vkt_context_alloc(0, 0, 0, 0); }

static FILE *captured;
static int saved_stderr = -1;

static void capture_begin(void)
{
    fflush(stderr);
    captured = tmpfile();
    saved_stderr = captured ? dup(2) : -1;
    if (saved_stderr >= 0) dup2(fileno(captured), 2);
}

/* Validation messages printed since capture_begin (echoed). */
static unsigned capture_end(void)
{
    unsigned n = 0;
    fflush(stderr);
    if (saved_stderr < 0) return captured ? (fclose(captured), 0) : 0;
    dup2(saved_stderr, 2);
    close(saved_stderr);
    rewind(captured);
    char line[4096];
    while (fgets(line, sizeof line, captured))
        if (strstr(line, "dmlops: Vulkan validation:")) {
            n++;
            printf("     | %s", line);
        }
    fclose(captured);
    return n;
}

TEST(destroy_in_every_order_cpu) { every_order(cpu_context, 1); }

/* Orders on Vulkan contexts, each of which compiles its pipeline (0.4 s on lavapipe):
 * one in twelve, so that each object is destroyed first twice (once under the
 * sanitizers, one in 24). */
TEST(destroy_in_every_order_vulkan)
{
    capture_begin();
    every_order(vulkan_context, dmt_cases(100) < 100 ? 24 : 12);
    const unsigned n = capture_end();
    CHECK(n == 0, "the validation layer reported %u messages", n);
}
