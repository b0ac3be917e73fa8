/* API misuse: NULL pointers to every public function, bad counts and bindings to
 * dmlops_operator_execute and dmlops_command_list_record, buffer ranges, objects of another
 * context (spec/api.md section 3, spec/operators.md sections 2 and 7).
 *
 * Every refused call must return DMLOPS_ERROR_INVALID_ARGUMENT without crashing and
 * without effect: the buffers keep their bytes and a command list keeps its counts. */
#if defined(__has_include)
#if __has_include(<vulkan/vulkan.h>)
#include <vulkan/vulkan.h> /* before dmlops.h, so that the interop half is declared */
#define DMT_HAVE_VULKAN_H 1
#endif
#endif

#include "harness.h"

#define F32 DML_TENSOR_DATA_TYPE_FLOAT32
#define U32 DML_TENSOR_DATA_TYPE_UINT32
#define INVALID DMLOPS_ERROR_INVALID_ARGUMENT

static dmlops_binding bind(dmlops_buffer *buf, uint64_t offset, uint64_t size)
{
    return (dmlops_binding){buf, offset, size};
}

/* ---- SLICE1 example 1 of seed 003: 1..16 in 4x4, output [2,4,10,12] ---- */
static const float slice_in[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const float slice_want[4] = {2, 4, 10, 12};
enum { SLICE_IN_BYTES = 64, SLICE_OUT_BYTES = 16, FX_BYTES = 256 };

static dmlops_status make_slice(dmlops_context *ctx, uint32_t in_align, uint32_t out_align, dmlops_operator **op)
{
    static const uint32_t in_sizes[] = {1, 1, 4, 4}, out_sizes[] = {1, 1, 2, 2};
    static const uint32_t offsets[] = {0, 0, 0, 1}, window[] = {1, 1, 4, 3};
    static const int32_t strides[] = {1, 1, 2, 2};
    dmt_tensor in, out;
    dmt_tensor_init(&in, F32, 4, in_sizes, NULL, 0);
    dmt_tensor_init(&out, F32, 4, out_sizes, NULL, 0);
    in.buf.GuaranteedBaseOffsetAlignment = in_align;
    out.buf.GuaranteedBaseOffsetAlignment = out_align;
    DML_SLICE1_OPERATOR_DESC d = {&in.desc, &out.desc, 4, offsets, window, strides};
    DML_OPERATOR_DESC od = {DML_OPERATOR_SLICE1, &d};
    *op = NULL;
    return dmlops_operator_create(ctx, &od, op);
}

/* A SLICE1 operator, an input buffer (the 16 floats, then 0x11 bytes) and an output
 * buffer (0xA5 bytes), FX_BYTES each. */
typedef struct fixture {
    dmlops_operator *op;
    dmlops_buffer *in, *out;
    uint8_t in_bytes[FX_BYTES], out_bytes[FX_BYTES];
} fixture;

static bool fixture_init(fixture *f, dmlops_context *ctx, uint32_t in_align, uint32_t out_align)
{
    memset(f, 0, sizeof *f);
    memset(f->in_bytes, 0x11, sizeof f->in_bytes);
    memcpy(f->in_bytes, slice_in, sizeof slice_in);
    memset(f->out_bytes, 0xA5, sizeof f->out_bytes);
    if (!CHECK_OK(make_slice(ctx, in_align, out_align, &f->op))) return false;
    f->in = dmt_buffer(ctx, FX_BYTES, f->in_bytes);
    f->out = dmt_buffer(ctx, FX_BYTES, f->out_bytes);
    return f->in && f->out;
}

static void fixture_free(fixture *f)
{
    dmlops_buffer_destroy(f->in);
    dmlops_buffer_destroy(f->out);
    dmlops_operator_destroy(f->op);
}

/* The buffer holds `want` (n bytes), else reports at `line`. */
static bool buffer_holds(dmlops_buffer *buf, const void *want, size_t n, const char *what, int line)
{
    uint8_t got[1024];
    if (n > sizeof got || !CHECK_OK(dmlops_buffer_read(buf, 0, got, n))) return false;
    for (size_t i = 0; i < n; i++)
        if (got[i] != ((const uint8_t *)want)[i])
            return dmt_fail(__FILE__, line, "%s: byte %zu is 0x%02x, expected 0x%02x", what, i, got[i],
                            ((const uint8_t *)want)[i]);
    return true;
}

/* A refused execution: INVALID with `substr` in the message, and neither buffer changed. */
#define REFUSED(f, ni, ins, no, outs, substr)                                                     \
    do {                                                                                          \
        if (CHECK_STATUS(dmlops_operator_execute((f)->op, ni, ins, no, outs), INVALID, substr)) { \
            buffer_holds((f)->out, (f)->out_bytes, FX_BYTES, "output after a refused execute", __LINE__); \
            buffer_holds((f)->in, (f)->in_bytes, FX_BYTES, "input after a refused execute", __LINE__); \
        }                                                                                         \
    } while (0)

/* Executes and checks: the slice result at out_offset of buf, every other byte as before. */
static void run_and_check(dmlops_operator *op, const dmlops_binding *in, const dmlops_binding *out,
                          const uint8_t *before, uint32_t nbytes, int line)
{
    uint8_t want[1024];
    if (!CHECK_OK(dmlops_operator_execute(op, 1, in, 1, out))) return;
    memcpy(want, before, nbytes);
    memcpy(want + out->offset, slice_want, sizeof slice_want);
    buffer_holds(out->buffer, want, nbytes, "output buffer after execute", line);
}

/* ---- NULL pointers ---- */

TEST(null_pointers_without_a_context)
{
    static const uint32_t sizes[] = {4};
    dmlops_context *ctx = NULL;
    dmlops_context_info cinfo;
    dmlops_device_info dinfo;
    dmlops_buffer *buf = NULL;
    dmlops_operator *op = NULL;
    dmlops_operator_info oinfo;
    dmlops_command_list *list = NULL;
    dmlops_execution_stats stats;
    dmlops_binding b = {NULL, 0, 16};
    uint32_t a = 0, c = 0;
    uint8_t data[16] = {0};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, NULL};
    dmlops_context_desc cdesc = {.backend = DMLOPS_BACKEND_CPU};

    CHECK_STATUS(dmlops_validate_operator(NULL, 0), INVALID, NULL);
    CHECK_STATUS(dmlops_validate_operator(NULL, DML_FEATURE_LEVEL_6_4), INVALID, NULL);
    CHECK_STATUS(dmlops_context_create(NULL, NULL), INVALID, "out");
    CHECK_STATUS(dmlops_context_create(&cdesc, NULL), INVALID, "out");
    CHECK_STATUS(dmlops_context_get_info(NULL, &cinfo), INVALID, "ctx");
    CHECK_STATUS(dmlops_context_get_info(NULL, NULL), INVALID, NULL);
    CHECK_STATUS(dmlops_enumerate_devices(NULL, NULL), INVALID, "count");
    CHECK_STATUS(dmlops_enumerate_devices(&dinfo, NULL), INVALID, "count");
    CHECK_STATUS(dmlops_buffer_create(NULL, 16, &buf), INVALID, "ctx");
    CHECK(buf == NULL);
    CHECK_STATUS(dmlops_buffer_create(NULL, 16, NULL), INVALID, NULL);
    CHECK_STATUS(dmlops_buffer_write(NULL, 0, data, sizeof data), INVALID, "buffer");
    CHECK_STATUS(dmlops_buffer_read(NULL, 0, data, sizeof data), INVALID, "buffer");
    CHECK_STATUS(dmlops_buffer_write(NULL, 0, NULL, 4), INVALID, NULL);
    CHECK_STATUS(dmlops_buffer_read(NULL, 0, NULL, 4), INVALID, NULL);
    CHECK(dmlops_buffer_size(NULL) == 0);
    CHECK_STATUS(dmlops_operator_create(NULL, &desc, &op), INVALID, "ctx");
    CHECK(op == NULL);
    CHECK_STATUS(dmlops_operator_create(NULL, NULL, NULL), INVALID, NULL);
    CHECK_STATUS(dmlops_operator_execute(NULL, 1, &b, 1, &b), INVALID, "op");
    CHECK_STATUS(dmlops_operator_execute(NULL, 0, NULL, 0, NULL), INVALID, NULL);
    CHECK_STATUS(dmlops_operator_get_info(NULL, &oinfo), INVALID, "op");
    CHECK_STATUS(dmlops_operator_get_info(NULL, NULL), INVALID, NULL);
    CHECK_STATUS(dmlops_command_list_create(NULL, &list), INVALID, "ctx");
    CHECK(list == NULL);
    CHECK_STATUS(dmlops_command_list_record(NULL, NULL, 0, NULL, 0, NULL), INVALID, "list");
    CHECK_STATUS(dmlops_command_list_record_copy(NULL, NULL, 0, NULL, 0, 4), INVALID, "list");
    CHECK_STATUS(dmlops_command_list_execute(NULL), INVALID, "list");
    CHECK_STATUS(dmlops_command_list_reset(NULL), INVALID, "list");
    CHECK_STATUS(dmlops_command_list_get_counts(NULL, &a, &c), INVALID, "list");
    CHECK_STATUS(dmlops_command_list_get_counts(NULL, NULL, NULL), INVALID, NULL);
    CHECK_STATUS(dmlops_command_list_get_stats(NULL, &stats), INVALID, "list");
    CHECK(dmlops_calc_buffer_tensor_size(F32, 1, NULL, NULL) == 0);
    CHECK(dmlops_calc_buffer_tensor_size(F32, 1, sizes, NULL) == 16);

    /* *_destroy(NULL) does nothing. */
    dmlops_context_destroy(NULL);
    dmlops_buffer_destroy(NULL);
    dmlops_operator_destroy(NULL);
    dmlops_command_list_destroy(NULL);
    (void)ctx;

    /* The functions without pointer arguments still answer for values they do not know. */
    CHECK(dmlops_last_error_message() != NULL);
    CHECK(!strcmp(dmlops_status_string((dmlops_status)99), "unknown status"));
    CHECK(!strcmp(dmlops_status_string(INVALID), "DMLOPS_ERROR_INVALID_ARGUMENT"));
    CHECK(dmlops_version_string() != NULL);
    CHECK(!strcmp(dmlops_data_type_name((DML_TENSOR_DATA_TYPE)99), "?"));
    CHECK(!strcmp(dmlops_operator_type_name((DML_OPERATOR_TYPE)60), "?"));
    CHECK(!strcmp(dmlops_feature_level_name((DML_FEATURE_LEVEL)0x1234), "?"));
    CHECK(!strcmp(dmlops_path_name((dmlops_path)99), "?"));
    CHECK(dmlops_data_type_size(DML_TENSOR_DATA_TYPE_UNKNOWN) == 0);
    CHECK(dmlops_data_type_size(DML_TENSOR_DATA_TYPE_UINT4) == 0);
}

TEST_CTX(null_pointers_with_a_context)
{
    fixture f;
    dmlops_command_list *list = NULL;
    dmlops_operator *op = NULL;
    uint32_t ops = 99, barriers = 99;
    REQUIRE(fixture_init(&f, ctx, 0, 0));
    CHECK_STATUS(dmlops_context_get_info(ctx, NULL), INVALID, "info");
    CHECK_STATUS(dmlops_buffer_create(ctx, 16, NULL), INVALID, "out");
    CHECK_STATUS(dmlops_buffer_write(f.out, 0, NULL, 4), INVALID, NULL);
    CHECK_STATUS(dmlops_buffer_read(f.out, 0, NULL, 4), INVALID, NULL);
    CHECK_STATUS(dmlops_operator_create(ctx, NULL, &op), INVALID, NULL);
    CHECK(op == NULL);
    CHECK_STATUS(dmlops_operator_get_info(f.op, NULL), INVALID, "info");
    CHECK_STATUS(dmlops_command_list_create(ctx, NULL), INVALID, "out");
    REQUIRE_OK(dmlops_command_list_create(ctx, &list));
    CHECK_STATUS(dmlops_command_list_record(list, NULL, 0, NULL, 0, NULL), INVALID, "op");
    CHECK_STATUS(dmlops_command_list_record_copy(list, NULL, 0, f.in, 0, 4), INVALID, "dst");
    CHECK_STATUS(dmlops_command_list_record_copy(list, f.out, 0, NULL, 0, 4), INVALID, "src");
    CHECK_STATUS(dmlops_command_list_get_stats(list, NULL), INVALID, "stats");
    CHECK_OK(dmlops_command_list_get_counts(list, &ops, &barriers));
    CHECK(ops == 0 && barriers == 0, "counts %u, %u after refused recordings", ops, barriers);
    dmlops_command_list_destroy(list);
    buffer_holds(f.out, f.out_bytes, FX_BYTES, "output", __LINE__);
    fixture_free(&f);
}

TEST_CTX(operator_create_with_a_null_out_pointer)
{
    static const uint32_t sizes[] = {1, 1, 4, 4}, out_sizes[] = {1, 1, 2, 2}, offsets[] = {0, 0, 0, 1},
                          window[] = {1, 1, 4, 3};
    static const int32_t strides[] = {1, 1, 2, 2};
    dmt_tensor in, out;
    dmt_tensor_init(&in, F32, 4, sizes, NULL, 0);
    dmt_tensor_init(&out, F32, 4, out_sizes, NULL, 0);
    DML_SLICE1_OPERATOR_DESC d = {&in.desc, &out.desc, 4, offsets, window, strides};
    DML_OPERATOR_DESC od = {DML_OPERATOR_SLICE1, &d};
    CHECK_STATUS(dmlops_operator_create(ctx, &od, NULL), INVALID, "out");
}

#ifdef DMT_HAVE_VULKAN_H
/* The interop half lives in the Vulkan backend; weak references let this file link
 * without it and test it once it is there. */
#pragma weak dmlops_context_create_vulkan
#pragma weak dmlops_buffer_wrap_vulkan
#pragma weak dmlops_buffer_get_vulkan
#pragma weak dmlops_binding_table_create
#pragma weak dmlops_binding_table_bind
#pragma weak dmlops_binding_table_destroy
#pragma weak dmlops_operator_record_vulkan
#endif

TEST(vulkan_interop_null_pointers)
{
#ifdef DMT_HAVE_VULKAN_H
    if (!dmlops_context_create_vulkan || !dmlops_buffer_wrap_vulkan || !dmlops_buffer_get_vulkan ||
        !dmlops_binding_table_create || !dmlops_binding_table_bind || !dmlops_binding_table_destroy ||
        !dmlops_operator_record_vulkan) {
        printf("    note: the Vulkan interop functions are not in this build; skipped\n");
        return;
    }
    dmlops_context *c = NULL;
    dmlops_buffer *b = NULL;
    dmlops_binding_table *t = NULL;
    VkBuffer vb = VK_NULL_HANDLE;
    VkDeviceSize off = 0;
    dmlops_vulkan_context_desc d;
    memset(&d, 0, sizeof d); /* no instance, device or queue */
    CHECK_STATUS(dmlops_context_create_vulkan(NULL, &c), INVALID, NULL);
    CHECK_STATUS(dmlops_context_create_vulkan(&d, NULL), INVALID, NULL);
    CHECK_STATUS(dmlops_context_create_vulkan(&d, &c), INVALID, NULL);
    CHECK(c == NULL);
    CHECK_STATUS(dmlops_buffer_wrap_vulkan(NULL, VK_NULL_HANDLE, 0, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &b),
                 INVALID, NULL);
    CHECK(b == NULL);
    CHECK_STATUS(dmlops_buffer_get_vulkan(NULL, &vb, &off), INVALID, NULL);
    CHECK_STATUS(dmlops_binding_table_create(NULL, &t), INVALID, NULL);
    CHECK(t == NULL);
    CHECK_STATUS(dmlops_binding_table_bind(NULL, 0, NULL, 0, NULL), INVALID, NULL);
    CHECK_STATUS(dmlops_operator_record_vulkan(NULL, VK_NULL_HANDLE), INVALID, NULL);
    dmlops_binding_table_destroy(NULL);
#else
    printf("    note: <vulkan/vulkan.h> not found; skipped\n");
#endif
}

/* ---- Contexts ---- */

TEST_CTX(context_create_with_a_bad_desc)
{
    dmlops_context_info info;
    dmlops_context *c = (dmlops_context *)&info; /* must not be used, and not freed */
    REQUIRE_OK(dmlops_context_get_info(ctx, &info));
    CHECK(info.feature_level == DMLOPS_FEATURE_LEVEL_HIGHEST, "default level 0x%x", (unsigned)info.feature_level);
    dmlops_backend backend = info.backend;
    dmlops_context_desc d = {.backend = (dmlops_backend)7};
    CHECK_STATUS(dmlops_context_create(&d, &c), INVALID, "backend");
    d = (dmlops_context_desc){.backend = backend, .flags = 0x100};
    CHECK_STATUS(dmlops_context_create(&d, &c), INVALID, "flags");
    d = (dmlops_context_desc){.backend = backend, .feature_level = (DML_FEATURE_LEVEL)0x1234};
    CHECK_STATUS(dmlops_context_create(&d, &c), INVALID, "0x1234");
}

/* ---- dmlops_operator_execute: counts and arrays ---- */

TEST_CTX(execute_with_wrong_counts)
{
    fixture f;
    REQUIRE(fixture_init(&f, ctx, 0, 0));
    dmlops_binding in[2] = {bind(f.in, 0, SLICE_IN_BYTES), bind(f.in, 0, SLICE_IN_BYTES)};
    dmlops_binding out[2] = {bind(f.out, 0, SLICE_OUT_BYTES), bind(f.out, 64, SLICE_OUT_BYTES)};
    REFUSED(&f, 0, in, 1, out, "input_count");
    REFUSED(&f, 2, in, 1, out, "input_count");
    REFUSED(&f, UINT32_MAX, in, 1, out, "input_count");
    REFUSED(&f, 1, in, 0, out, "output_count");
    REFUSED(&f, 1, in, 2, out, "output_count");
    REFUSED(&f, 1, in, UINT32_MAX, out, "output_count");
    REFUSED(&f, 0, NULL, 0, NULL, "count");
    run_and_check(f.op, in, out, f.out_bytes, FX_BYTES, __LINE__);
    fixture_free(&f);
}

TEST_CTX(execute_with_null_arrays)
{
    fixture f;
    REQUIRE(fixture_init(&f, ctx, 0, 0));
    dmlops_binding in = bind(f.in, 0, SLICE_IN_BYTES), out = bind(f.out, 0, SLICE_OUT_BYTES);
    REFUSED(&f, 1, NULL, 1, &out, "inputs");
    REFUSED(&f, 1, &in, 1, NULL, "outputs");
    REFUSED(&f, 1, NULL, 1, NULL, NULL);
    fixture_free(&f);
}

/* ---- Bindings ---- */

TEST_CTX(binding_with_a_null_buffer)
{
    fixture f;
    REQUIRE(fixture_init(&f, ctx, 0, 0));
    dmlops_binding in = bind(f.in, 0, SLICE_IN_BYTES), out = bind(f.out, 0, SLICE_OUT_BYTES);
    dmlops_binding nul = bind(NULL, 0, SLICE_IN_BYTES);
    REFUSED(&f, 1, &nul, 1, &out, "inputs[0]");
    nul.size = SLICE_OUT_BYTES;
    REFUSED(&f, 1, &in, 1, &nul, "outputs[0]");
    fixture_free(&f);
}

TEST_CTX(binding_offset_not_a_multiple_of_16)
{
    fixture f;
    REQUIRE(fixture_init(&f, ctx, 0, 0));
    dmlops_binding in = bind(f.in, 0, SLICE_IN_BYTES), out = bind(f.out, 0, SLICE_OUT_BYTES);
    static const uint64_t bad[] = {4, 8, 12, 17, 20, 100};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dmlops_binding b = bind(f.in, bad[i], SLICE_IN_BYTES);
        REFUSED(&f, 1, &b, 1, &out, "inputs[0]");
        CHECK(strstr(dmlops_last_error_message(), "offset"), "%s", dmlops_last_error_message());
        b = bind(f.out, bad[i], SLICE_OUT_BYTES);
        REFUSED(&f, 1, &in, 1, &b, "outputs[0]");
    }
    /* Multiples of 16 are fine. */
    out = bind(f.out, 48, SLICE_OUT_BYTES);
    run_and_check(f.op, &in, &out, f.out_bytes, FX_BYTES, __LINE__);
    fixture_free(&f);
}

TEST_CTX(binding_offset_not_a_multiple_of_the_base_alignment)
{
    fixture f;
    REQUIRE(fixture_init(&f, ctx, 64, 32));
    REQUIRE_OK(dmlops_buffer_write(f.in, 128, slice_in, sizeof slice_in));
    memcpy(f.in_bytes + 128, slice_in, sizeof slice_in);
    dmlops_binding in = bind(f.in, 0, SLICE_IN_BYTES), out = bind(f.out, 0, SLICE_OUT_BYTES);
    static const uint64_t bad_in[] = {16, 32, 48, 80, 144};
    for (size_t i = 0; i < sizeof bad_in / sizeof bad_in[0]; i++) {
        dmlops_binding b = bind(f.in, bad_in[i], SLICE_IN_BYTES);
        REFUSED(&f, 1, &b, 1, &out, "64");
        CHECK(strstr(dmlops_last_error_message(), "inputs[0]"), "%s", dmlops_last_error_message());
    }
    dmlops_binding b = bind(f.out, 16, SLICE_OUT_BYTES);
    REFUSED(&f, 1, &in, 1, &b, "32");
    b = bind(f.out, 80, SLICE_OUT_BYTES);
    REFUSED(&f, 1, &in, 1, &b, "outputs[0]");
    /* Multiples of the alignment are fine. */
    in = bind(f.in, 128, SLICE_IN_BYTES);
    out = bind(f.out, 96, SLICE_OUT_BYTES);
    run_and_check(f.op, &in, &out, f.out_bytes, FX_BYTES, __LINE__);
    fixture_free(&f);
}

TEST_CTX(binding_smaller_than_the_tensor)
{
    fixture f;
    REQUIRE(fixture_init(&f, ctx, 0, 0));
    dmlops_binding in = bind(f.in, 0, SLICE_IN_BYTES), out = bind(f.out, 0, SLICE_OUT_BYTES);
    dmlops_binding b = bind(f.in, 0, SLICE_IN_BYTES - 4);
    REFUSED(&f, 1, &b, 1, &out, "TotalTensorSizeInBytes");
    b.size = 0;
    REFUSED(&f, 1, &b, 1, &out, "inputs[0]");
    b = bind(f.out, 0, SLICE_OUT_BYTES - 4);
    REFUSED(&f, 1, &in, 1, &b, "outputs[0]");
    b.size = 0;
    REFUSED(&f, 1, &in, 1, &b, "size");
    /* Larger than the tensor is fine, and the bytes past the tensor are not written. */
    in = bind(f.in, 0, FX_BYTES);
    out = bind(f.out, 0, FX_BYTES);
    run_and_check(f.op, &in, &out, f.out_bytes, FX_BYTES, __LINE__);
    fixture_free(&f);
}

TEST_CTX(binding_past_the_end_of_the_buffer)
{
    fixture f;
    REQUIRE(fixture_init(&f, ctx, 0, 0));
    REQUIRE_OK(dmlops_buffer_write(f.in, FX_BYTES - SLICE_IN_BYTES, slice_in, sizeof slice_in));
    memcpy(f.in_bytes + FX_BYTES - SLICE_IN_BYTES, slice_in, sizeof slice_in);
    dmlops_binding in = bind(f.in, 0, SLICE_IN_BYTES), out = bind(f.out, 0, SLICE_OUT_BYTES);
    const struct {
        uint64_t offset, size;
    } bad[] = {
        {FX_BYTES - 48, SLICE_IN_BYTES},        /* 16 bytes past the end */
        {FX_BYTES, SLICE_IN_BYTES},             /* starts at the end */
        {FX_BYTES + 1024, SLICE_IN_BYTES},      /* far past it */
        {0, FX_BYTES + 4},                      /* a size larger than the buffer */
        {UINT64_MAX - 15, SLICE_IN_BYTES},      /* offset + size wraps to 48 */
        {16, UINT64_MAX - 8},                   /* offset + size wraps to 7 */
        {UINT64_MAX - 15, UINT64_MAX},          /* both huge */
        {1ull << 63, 1ull << 63},               /* wraps to exactly 0 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dmlops_binding b = bind(f.in, bad[i].offset, bad[i].size);
        REFUSED(&f, 1, &b, 1, &out, "inputs[0]");
        b = bind(f.out, bad[i].offset, bad[i].size < SLICE_OUT_BYTES ? SLICE_OUT_BYTES : bad[i].size);
        REFUSED(&f, 1, &in, 1, &b, "outputs[0]");
    }
    /* Ranges that end exactly at the end of their buffers are fine. */
    in = bind(f.in, FX_BYTES - SLICE_IN_BYTES, SLICE_IN_BYTES);
    out = bind(f.out, FX_BYTES - SLICE_OUT_BYTES, SLICE_OUT_BYTES);
    run_and_check(f.op, &in, &out, f.out_bytes, FX_BYTES, __LINE__);
    fixture_free(&f);
}

TEST_CTX(binding_buffer_of_another_context)
{
    fixture f;
    dmlops_context *other = NULL;
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
    REQUIRE(fixture_init(&f, ctx, 0, 0));
    REQUIRE_OK(dmlops_context_create(&d, &other));
    dmlops_buffer *foreign = dmt_buffer(other, FX_BYTES, f.in_bytes);
    if (foreign) {
        dmlops_binding in = bind(f.in, 0, SLICE_IN_BYTES), out = bind(f.out, 0, SLICE_OUT_BYTES);
        dmlops_binding b = bind(foreign, 0, SLICE_IN_BYTES);
        REFUSED(&f, 1, &b, 1, &out, "another context");
        b.size = SLICE_OUT_BYTES;
        REFUSED(&f, 1, &in, 1, &b, "outputs[0]");
        CHECK(buffer_holds(foreign, f.in_bytes, FX_BYTES, "the other context's buffer", __LINE__));
    }
    dmlops_buffer_destroy(foreign);
    dmlops_context_destroy(other);
    fixture_free(&f);
}

/* Input and output in one buffer: overlapping ranges are refused, adjacent ones run. */
TEST_CTX(binding_output_overlaps_input_in_one_buffer)
{
    fixture f;
    uint8_t bytes[FX_BYTES];
    REQUIRE(fixture_init(&f, ctx, 0, 0));
    dmlops_buffer *shared = dmt_buffer(ctx, FX_BYTES, f.in_bytes); /* the 16 floats at 0 */
    REQUIRE(shared != NULL);
    dmlops_binding in = bind(shared, 0, SLICE_IN_BYTES);
    static const uint64_t overlapping[] = {0, 16, 32, 48};
    for (size_t i = 0; i < sizeof overlapping / sizeof overlapping[0]; i++) {
        dmlops_binding out = bind(shared, overlapping[i], SLICE_OUT_BYTES);
        if (CHECK_STATUS(dmlops_operator_execute(f.op, 1, &in, 1, &out), INVALID, "overlap"))
            buffer_holds(shared, f.in_bytes, FX_BYTES, "shared buffer after a refused execute", __LINE__);
    }
    /* The output range straddling the input's end, and the input after the output. */
    dmlops_binding out = bind(shared, 48, 32);
    CHECK_STATUS(dmlops_operator_execute(f.op, 1, &in, 1, &out), INVALID, "outputs[0]");
    /* Adjacent: output right after the input. */
    out = bind(shared, SLICE_IN_BYTES, SLICE_OUT_BYTES);
    run_and_check(f.op, &in, &out, f.in_bytes, FX_BYTES, __LINE__);
    /* Adjacent: output right before the input. */
    memset(bytes, 0x3C, sizeof bytes);
    memcpy(bytes + 16, slice_in, sizeof slice_in);
    REQUIRE_OK(dmlops_buffer_write(shared, 0, bytes, sizeof bytes));
    in = bind(shared, 16, SLICE_IN_BYTES);
    out = bind(shared, 0, SLICE_OUT_BYTES);
    run_and_check(f.op, &in, &out, bytes, FX_BYTES, __LINE__);
    dmlops_buffer_destroy(shared);
    fixture_free(&f);
}
