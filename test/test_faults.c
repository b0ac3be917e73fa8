/* The fault sweep (issue 10): DMLOPS_FAULT_INJECT (src/fault.h) makes the Nth host
 * allocation, the Nth fallible Vulkan call, or every submission and wait from the Nth on
 * fail. For N = 1, 2, ... a typical workflow runs on each backend: a context, buffers,
 * the three operators, a command list with copies, executes, a reset, a re-execute,
 * asynchronous writes, executions and reads in flight together with their fences waited
 * for, then every destroy. Each injected failure must come back as the right status with a message;
 * the same call made again must then succeed (the context stays usable), and the final
 * answers must be exact. Under `make test-asan` nothing may leak, and on Vulkan the
 * validation layer must stay silent, through the destroys included. The sweep stops after
 * CLEAN_RUNS values of N in a row in which no call reported a failure. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define U32 DML_TENSOR_DATA_TYPE_UINT32
#define MAX_POINTS 5000
/* Consecutive N whose injected fault no call reported (absorbed by a fallback, or past
 * the last point) that end a sweep. */
#define CLEAN_RUNS 40

/* The three operators on 4x4 FLOAT32 data (input 1..16). */
typedef struct workflow {
    dmt_tensor in, out, lens, idx, vals, hot;
    DML_SLICE1_OPERATOR_DESC slice;
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev;
    DML_ONE_HOT_OPERATOR_DESC onehot;
    DML_OPERATOR_DESC desc[3];
} workflow;

static const uint32_t sizes[2] = {4, 4}, lens_sizes[2] = {4, 1}, vals_sizes[2] = {1, 2};
static const uint32_t offsets[2] = {0, 1}, window[2] = {4, 3};
static const int32_t strides[2] = {1, 1};

static void workflow_init(workflow *w)
{
    memset(w, 0, sizeof *w);
    static const uint32_t slice_out[2] = {4, 3};
    dmt_tensor_init(&w->in, F32, 2, sizes, NULL, 0);
    dmt_tensor_init(&w->out, F32, 2, slice_out, NULL, 0);
    dmt_tensor_init(&w->lens, U32, 2, lens_sizes, NULL, 0);
    dmt_tensor_init(&w->idx, U32, 2, lens_sizes, NULL, 0);
    dmt_tensor_init(&w->vals, F32, 2, vals_sizes, NULL, 0);
    dmt_tensor_init(&w->hot, F32, 2, sizes, NULL, 0);
    w->slice = (DML_SLICE1_OPERATOR_DESC){&w->in.desc, &w->out.desc, 2, offsets, window, strides};
    w->rev = (DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC){&w->in.desc, &w->lens.desc, &w->hot.desc, 1};
    w->onehot = (DML_ONE_HOT_OPERATOR_DESC){&w->idx.desc, &w->vals.desc, &w->hot.desc, 1};
    w->desc[0] = (DML_OPERATOR_DESC){DML_OPERATOR_SLICE1, &w->slice};
    w->desc[1] = (DML_OPERATOR_DESC){DML_OPERATOR_REVERSE_SUBSEQUENCES, &w->rev};
    w->desc[2] = (DML_OPERATOR_DESC){DML_OPERATOR_ONE_HOT, &w->onehot};
}

/* What one run of the workflow saw. */
typedef struct sweep {
    const char *label;  /* "cpu host:17" */
    unsigned injected;  /* failures seen (and checked) */
    bool lost;          /* DEVICE_LOST seen: later device calls must say so */
    bool broken;        /* a check failed: stop the sweep */
} sweep;

/* Checks one call's status. Success: true. An injected failure: the status must be one
 * a driver or allocator failure gives, with a message; then false, so the caller retries.
 * After a loss, DEVICE_LOST is the only answer expected of calls that use the device. */
static bool outcome(sweep *s, dmlops_status st, const char *what, int line)
{
    if (st == DMLOPS_SUCCESS) {
        if (s->lost && strcmp(what, "read") != 0 && !s->broken) /* reads of host-visible memory may still work */
            s->broken = !dmt_fail(__FILE__, line, "%s: %s succeeded on a lost device", s->label, what);
        return true;
    }
    const char *msg = dmlops_last_error_message();
    bool ok = st == DMLOPS_ERROR_OUT_OF_HOST_MEMORY || st == DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY ||
              st == DMLOPS_ERROR_DEVICE_LOST;
    if (!ok || !msg || !*msg) {
        s->broken = true;
        dmt_fail(__FILE__, line, "%s: %s gave %s (\"%s\")", s->label, what, dmlops_status_string(st), msg ? msg : "");
        return false;
    }
    if (st == DMLOPS_ERROR_DEVICE_LOST) s->lost = true;
    s->injected++;
    return false;
}

/* Runs `call` until it succeeds: an injected fault fails it once; a second failure in a
 * row means the context did not stay usable (unless the device is lost). */
#define STEP(s, what, call)                                                                \
    ({                                                                                     \
        bool done_ = outcome(s, (call), what, __LINE__);                                   \
        if (!done_ && !(s)->lost && !(s)->broken) {                                        \
            done_ = outcome(s, (call), what, __LINE__);                                    \
            if (!done_ && !(s)->lost && !(s)->broken)                                      \
                (s)->broken = !dmt_fail(__FILE__, __LINE__, "%s: %s failed twice", (s)->label, what); \
        }                                                                                  \
        done_;                                                                             \
    })

static bool same(const float *got, const float *want, int n)
{
    return memcmp(got, want, (size_t)n * sizeof *got) == 0;
}

/* One pass of the workflow on a fresh context. */
static void run_workflow(dmlops_backend backend, sweep *s)
{
    workflow w;
    workflow_init(&w);
    dmlops_context_desc cd = {.backend = backend,
                              .flags = backend == DMLOPS_BACKEND_VULKAN ? DMLOPS_CONTEXT_FLAG_DEBUG : 0};
    dmlops_context *ctx = NULL;
    if (!STEP(s, "context_create", dmlops_context_create(&cd, &ctx))) return;
    dmlops_buffer *in = NULL, *lens = NULL, *idx = NULL, *vals = NULL, *out = NULL, *hot = NULL, *copy = NULL;
    dmlops_operator *op[3] = {NULL, NULL, NULL};
    dmlops_command_list *list = NULL;
    float data[16], lens_v[4] = {0}, idx_v[4] = {0}, vals_v[4] = {-1, 7, 0, 0};
    for (int i = 0; i < 16; i++) data[i] = (float)(i + 1);
    const uint32_t L[4] = {4, 0, 2, 9}, K[4] = {3, 0, 4, 1};
    memcpy(lens_v, L, sizeof L);
    memcpy(idx_v, K, sizeof K);
    struct { dmlops_buffer **b; uint64_t n; const void *init; } bufs[] = {
        {&in, 64, data}, {&lens, 16, lens_v}, {&idx, 16, idx_v}, {&vals, 16, vals_v},
        {&out, 48, NULL}, {&hot, 64, NULL}, {&copy, 64, NULL},
    };
    bool ok = true;
    for (size_t i = 0; ok && i < sizeof bufs / sizeof bufs[0]; i++) {
        ok = STEP(s, "buffer_create", dmlops_buffer_create(ctx, bufs[i].n, bufs[i].b));
        if (ok && bufs[i].init) ok = STEP(s, "buffer_write", dmlops_buffer_write(*bufs[i].b, 0, bufs[i].init, bufs[i].n));
    }
    for (int i = 0; ok && i < 3; i++) ok = STEP(s, "operator_create", dmlops_operator_create(ctx, &w.desc[i], &op[i]));
    if (ok) ok = STEP(s, "command_list_create", dmlops_command_list_create(ctx, &list));
    const dmlops_binding b_in = {in, 0, 64}, b_out = {out, 0, 48}, b_hot = {hot, 0, 64};
    const dmlops_binding rev_in[2] = {{in, 0, 64}, {lens, 0, 16}}, hot_in[2] = {{idx, 0, 16}, {vals, 0, 8}};
    for (int pass = 0; ok && pass < 2; pass++) { /* record, execute; reset; again */
        if (pass) ok = STEP(s, "command_list_reset", dmlops_command_list_reset(list));
        /* A failed record leaves the list as it was, so the retry records the same entry. */
        if (ok) ok = STEP(s, "record SLICE1", dmlops_command_list_record(list, op[0], 1, &b_in, 1, &b_out));
        if (ok) ok = STEP(s, "record REVERSE", dmlops_command_list_record(list, op[1], 2, rev_in, 1, &b_hot));
        if (ok) ok = STEP(s, "record_copy", dmlops_command_list_record_copy(list, copy, 0, hot, 0, 64));
        if (ok) ok = STEP(s, "command_list_execute", dmlops_command_list_execute(list));
    }
    float got[16];
    if (ok && STEP(s, "read", dmlops_buffer_read(copy, 0, got, 64))) {
        float want[16];
        for (int r = 0; r < 4; r++) {
            const int len = L[r] > 4 ? 4 : (int)L[r]; /* a length past the axis reverses all of it */
            for (int c = 0; c < 4; c++) want[r * 4 + c] = data[r * 4 + (c < len ? len - 1 - c : c)];
        }
        if (!same(got, want, 16)) s->broken = !dmt_fail(__FILE__, __LINE__, "%s: REVERSE result through the list is wrong", s->label);
    }
    if (ok && STEP(s, "read", dmlops_buffer_read(out, 0, got, 48))) {
        float want[12];
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 3; c++) want[r * 3 + c] = data[r * 4 + 1 + c];
        if (!same(got, want, 12)) s->broken = !dmt_fail(__FILE__, __LINE__, "%s: SLICE1 result is wrong", s->label);
    }
    /* Asynchronous submission: a write, an execute and a list in flight together, then a
     * read whose fence is waited for (a failed wait is asked again: the work stopped). */
    dmlops_fence *fw = NULL, *fe = NULL, *fl = NULL, *fr = NULL;
    float async_got[12] = {0};
    if (ok) ok = STEP(s, "buffer_write_async", dmlops_buffer_write_async(in, 0, data, 64, NULL, &fw));
    if (ok) ok = STEP(s, "operator_execute_async", dmlops_operator_execute_async(op[0], 1, &b_in, 1, &b_out, NULL, &fe));
    if (ok) ok = STEP(s, "command_list_execute_async", dmlops_command_list_execute_async(list, NULL, &fl));
    if (ok) ok = STEP(s, "buffer_read_async", dmlops_buffer_read_async(out, 0, async_got, 48, NULL, &fr));
    if (ok) ok = STEP(s, "fence_wait", dmlops_fence_wait(fr, UINT64_MAX));
    if (ok) ok = STEP(s, "fence_wait", dmlops_fence_wait(fl, UINT64_MAX));
    if (ok) {
        float want[12];
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 3; c++) want[r * 3 + c] = data[r * 4 + 1 + c];
        if (!same(async_got, want, 12))
            s->broken = !dmt_fail(__FILE__, __LINE__, "%s: SLICE1 result read asynchronously is wrong", s->label);
    }
    if (ok) ok = STEP(s, "context_wait_idle", dmlops_context_wait_idle(ctx));
    dmlops_fence_destroy(fw);
    dmlops_fence_destroy(fe);
    dmlops_fence_destroy(fl);
    dmlops_fence_destroy(fr);
    if (ok) ok = STEP(s, "operator_execute", dmlops_operator_execute(op[2], 2, hot_in, 1, &b_hot));
    if (ok && STEP(s, "read", dmlops_buffer_read(hot, 0, got, 64))) {
        float want[16];
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++) want[r * 4 + c] = (uint32_t)c == K[r] ? 7.0f : -1.0f;
        if (!same(got, want, 16)) s->broken = !dmt_fail(__FILE__, __LINE__, "%s: ONE_HOT result is wrong", s->label);
    }
    if (s->lost) { /* every later call that needs the device says so, and nothing crashes */
        dmlops_buffer *b = NULL;
        dmlops_operator *o = NULL;
        dmlops_command_list *l2 = NULL;
        const struct { const char *what; dmlops_status st; } later[] = {
            {"command_list_create", dmlops_command_list_create(ctx, &l2)},
            {"command_list_record", list && op[0] ? dmlops_command_list_record(list, op[0], 1, &b_in, 1, &b_out)
                                                  : DMLOPS_ERROR_DEVICE_LOST},
            {"command_list_record_copy", list && in && out ? dmlops_command_list_record_copy(list, out, 0, in, 0, 16)
                                                           : DMLOPS_ERROR_DEVICE_LOST},
            {"buffer_write of 0 bytes", in ? dmlops_buffer_write(in, 0, data, 0) : DMLOPS_ERROR_DEVICE_LOST},
            {"buffer_create", dmlops_buffer_create(ctx, 64, &b)},
            {"operator_create", dmlops_operator_create(ctx, &w.desc[0], &o)},
            {"operator_execute", op[0] ? dmlops_operator_execute(op[0], 1, &b_in, 1, &b_out) : DMLOPS_ERROR_DEVICE_LOST},
            {"command_list_execute", list ? dmlops_command_list_execute(list) : DMLOPS_ERROR_DEVICE_LOST},
            {"buffer_write", in ? dmlops_buffer_write(in, 0, data, 64) : DMLOPS_ERROR_DEVICE_LOST},
            {"buffer_write_async", in ? dmlops_buffer_write_async(in, 0, data, 64, NULL, NULL) : DMLOPS_ERROR_DEVICE_LOST},
            {"operator_execute_async", op[0] ? dmlops_operator_execute_async(op[0], 1, &b_in, 1, &b_out, NULL, NULL)
                                             : DMLOPS_ERROR_DEVICE_LOST},
            {"command_list_execute_async", list ? dmlops_command_list_execute_async(list, NULL, NULL)
                                                : DMLOPS_ERROR_DEVICE_LOST},
        };
        for (size_t i = 0; i < sizeof later / sizeof later[0]; i++)
            if (later[i].st != DMLOPS_ERROR_DEVICE_LOST)
                s->broken = !dmt_fail(__FILE__, __LINE__, "%s: %s after the loss gave %s", s->label, later[i].what,
                                      dmlops_status_string(later[i].st));
        dmlops_buffer_destroy(b);
        dmlops_operator_destroy(o);
        dmlops_command_list_destroy(l2);
    }
    if (backend == DMLOPS_BACKEND_VULKAN && !s->lost) {
        dmlops_context_info info;
        if (dmlops_context_get_info(ctx, &info) == DMLOPS_SUCCESS && info.debug_message_count)
            s->broken = !dmt_fail(__FILE__, __LINE__, "%s: the validation layer reported %u messages", s->label,
                                  info.debug_message_count);
    }
    dmlops_command_list_destroy(list);
    for (int i = 0; i < 3; i++) dmlops_operator_destroy(op[i]);
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) dmlops_buffer_destroy(*bufs[i].b);
    if (backend == DMLOPS_BACKEND_VULKAN) {
        unsigned n = dmt_destroy_counting_messages(ctx);
        if (n) s->broken = !dmt_fail(__FILE__, __LINE__, "%s: %u validation messages while destroying", s->label, n);
    } else {
        dmlops_context_destroy(ctx);
    }
}

/* Turns injection off for whatever runs next (arming happens at context creation). */
static void disarm(void)
{
    unsetenv("DMLOPS_FAULT_INJECT");
    dmlops_context_desc cd = {.backend = DMLOPS_BACKEND_CPU};
    dmlops_context *ctx = NULL;
    if (dmlops_context_create(&cd, &ctx) == DMLOPS_SUCCESS) dmlops_context_destroy(ctx);
}

static bool vulkan_available(void)
{
    if (!dmt_backend_wanted("vulkan")) return false;
    dmlops_context_desc cd = {.backend = DMLOPS_BACKEND_VULKAN};
    dmlops_context *ctx = NULL;
    if (dmlops_context_create(&cd, &ctx) != DMLOPS_SUCCESS) return false;
    dmlops_context_destroy(ctx);
    return true;
}

/* Sweeps N = 1, 2, ... for one mode on one backend; prints the figures. */
static void sweep_mode(dmlops_backend backend, const char *mode)
{
    const char *bname = backend == DMLOPS_BACKEND_CPU ? "cpu" : "vulkan";
    unsigned points = 0, injected = 0, clean = 0;
    bool finished = false;
    for (unsigned n = 1; n <= MAX_POINTS; n++) {
        char spec[64], label[80];
        snprintf(spec, sizeof spec, "%s:%u", mode, n);
        snprintf(label, sizeof label, "%s %s", bname, spec);
        setenv("DMLOPS_FAULT_INJECT", spec, 1);
        sweep s = {.label = label};
        run_workflow(backend, &s);
        disarm();
        injected += s.injected;
        if (s.broken) {
            printf("     | stopped at %s\n", label);
            return;
        }
        if (s.injected) {
            points = n;
            clean = 0;
        } else if (++clean == CLEAN_RUNS) { /* a failure some code absorbs is survived too */
            finished = true;
            break;
        }
    }
    CHECK(finished, "%s %s: more than %u points", bname, mode, MAX_POINTS);
    CHECK(points > 0, "%s %s: no injection point was hit: is DMLOPS_FAULT_INJECT read?", bname, mode);
    printf("     | %s %s: %u points swept, %u injected failures reported and survived\n", bname, mode, points, injected);
}

TEST(fault_sweep_host_allocations)
{
    sweep_mode(DMLOPS_BACKEND_CPU, "host");
    if (vulkan_available()) sweep_mode(DMLOPS_BACKEND_VULKAN, "host");
}

TEST(fault_sweep_vulkan_calls)
{
    if (!vulkan_available()) {
        printf("     | no Vulkan device: skipped\n");
        return;
    }
    sweep_mode(DMLOPS_BACKEND_VULKAN, "vulkan");
}

TEST(fault_sweep_device_loss)
{
    if (!vulkan_available()) {
        printf("     | no Vulkan device: skipped\n");
        return;
    }
    sweep_mode(DMLOPS_BACKEND_VULKAN, "lost");
}

/* Validation proves an output whose strides interleave its dimensions one-to-one by
 * sorting its offsets, in host memory: when that allocation fails, the descriptor is
 * not invalid, the host is out of memory (it was INVALID_ARGUMENT, "too large to
 * prove"). Sizes {2, 3, 2} with strides {1, 5, 7} split by no common divisor, so only
 * the exhaustive check decides them. */
TEST(validation_out_of_memory_is_not_invalid)
{
    static const uint32_t in_sizes[3] = {2, 3, 2}, out_strides[3] = {1, 5, 7}, off[3] = {0, 0, 0};
    static const int32_t step[3] = {1, 1, 1};
    dmt_tensor in, out;
    dmt_tensor_init(&in, F32, 3, in_sizes, NULL, 0);
    dmt_tensor_init(&out, F32, 3, in_sizes, out_strides, 0);
    DML_SLICE1_OPERATOR_DESC d = {&in.desc, &out.desc, 3, off, in_sizes, step};
    DML_OPERATOR_DESC od = {DML_OPERATOR_SLICE1, &d};
    REQUIRE_OK(dmlops_validate_operator(&od, 0));
    unsigned oom = 0;
    for (unsigned n = 1; n <= 64; n++) {
        char spec[32];
        snprintf(spec, sizeof spec, "host:%u", n);
        setenv("DMLOPS_FAULT_INJECT", spec, 1);
        dmlops_context_desc cd = {.backend = DMLOPS_BACKEND_CPU};
        dmlops_context *ctx = NULL;
        if (dmlops_context_create(&cd, &ctx) != DMLOPS_SUCCESS) continue; /* the fault hit the context */
        dmlops_status st = dmlops_validate_operator(&od, 0);
        oom += st == DMLOPS_ERROR_OUT_OF_HOST_MEMORY;
        CHECK(st == DMLOPS_SUCCESS || st == DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "%s: %s (%s)", spec,
              dmlops_status_string(st), dmlops_last_error_message());
        if (st == DMLOPS_ERROR_OUT_OF_HOST_MEMORY)
            CHECK(strstr(dmlops_last_error_message(), "out of host memory"), "%s", dmlops_last_error_message());
        dmlops_context_destroy(ctx);
    }
    disarm();
    CHECK(oom > 0, "no injected failure reached the layout proof");
}
