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

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DMT_HAS_ASAN 1
#endif
#endif
#ifndef DMT_HAS_ASAN
#define DMT_HAS_ASAN 0
#endif

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

static void fixture_free(fixture *f)
{
    dmlops_buffer_destroy(f->in);
    dmlops_buffer_destroy(f->out);
    dmlops_operator_destroy(f->op);
}

static bool fixture_init(fixture *f, dmlops_context *ctx, uint32_t in_align, uint32_t out_align)
{
    memset(f, 0, sizeof *f);
    memset(f->in_bytes, 0x11, sizeof f->in_bytes);
    memcpy(f->in_bytes, slice_in, sizeof slice_in);
    memset(f->out_bytes, 0xA5, sizeof f->out_bytes);
    if (CHECK_OK(make_slice(ctx, in_align, out_align, &f->op))) {
        f->in = dmt_buffer(ctx, FX_BYTES, f->in_bytes);
        f->out = dmt_buffer(ctx, FX_BYTES, f->out_bytes);
        if (f->in && f->out) return true;
    }
    fixture_free(f);
    return false;
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
    CHECK_STATUS(dmlops_context_create_with_options(&cdesc, NULL, NULL), INVALID, "out");
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

/* A refused dmlops_context_create; a context made by mistake is destroyed. */
static void context_refused(const dmlops_context_desc *d, const char *substr, int line)
{
    dmlops_context *c = NULL;
    dmlops_status st = dmlops_context_create(d, &c);
    if (!dmt_check_status(st, INVALID, substr, "dmlops_context_create", __FILE__, line) && st == DMLOPS_SUCCESS)
        dmlops_context_destroy(c);
}

TEST_CTX(context_create_with_a_bad_desc)
{
    dmlops_context_info info;
    REQUIRE_OK(dmlops_context_get_info(ctx, &info));
    CHECK(info.feature_level == DMLOPS_FEATURE_LEVEL_HIGHEST, "default level 0x%x", (unsigned)info.feature_level);
    context_refused(&(dmlops_context_desc){.backend = (dmlops_backend)7}, "backend", __LINE__);
    context_refused(&(dmlops_context_desc){.backend = info.backend, .flags = 0x100}, "flags", __LINE__);
    context_refused(&(dmlops_context_desc){.backend = info.backend, .feature_level = (DML_FEATURE_LEVEL)0x1234},
                    "0x1234", __LINE__);
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
        b = bind(f.out, bad[i].offset, bad[i].size);
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
    /* Adjacent: output right after the input. */
    dmlops_binding out = bind(shared, SLICE_IN_BYTES, SLICE_OUT_BYTES);
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

/* A two-input operator on rank-2 tensors (types and sizes per binding slot). */
static dmlops_status make_op3(dmlops_context *ctx, DML_OPERATOR_TYPE type, const DML_TENSOR_DATA_TYPE *types,
                              const uint32_t sizes[3][2], uint32_t axis, dmlops_operator **op)
{
    dmt_tensor t[3];
    for (int i = 0; i < 3; i++) dmt_tensor_init(&t[i], types[i], 2, sizes[i], NULL, 0);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev = {&t[0].desc, &t[1].desc, &t[2].desc, axis};
    DML_ONE_HOT_OPERATOR_DESC hot = {&t[0].desc, &t[1].desc, &t[2].desc, axis};
    DML_OPERATOR_DESC d = {type, type == DML_OPERATOR_ONE_HOT ? (const void *)&hot : (const void *)&rev};
    *op = NULL;
    return dmlops_operator_create(ctx, &d, op);
}

/* REVERSE_SUBSEQUENCES [3,10,20,30] along axis 1: the output may overlap neither input,
 * but the two inputs may share bytes. */
TEST_CTX(binding_overlap_reverse_subsequences)
{
    static const DML_TENSOR_DATA_TYPE types[3] = {U32, U32, U32};
    static const uint32_t sizes[3][2] = {{1, 4}, {1, 1}, {1, 4}};
    static const uint32_t input[4] = {3, 10, 20, 30}, two = 2;
    uint8_t bytes[FX_BYTES];
    uint32_t got[4];
    dmlops_operator *op = NULL;
    REQUIRE_OK(make_op3(ctx, DML_OPERATOR_REVERSE_SUBSEQUENCES, types, sizes, 1, &op));
    memset(bytes, 0x77, sizeof bytes);
    memcpy(bytes, input, sizeof input);
    memcpy(bytes + 32, &two, sizeof two);
    dmlops_buffer *buf = dmt_buffer(ctx, FX_BYTES, bytes);
    if (buf) {
        dmlops_binding in[2] = {bind(buf, 0, 16), bind(buf, 32, 4)};
        dmlops_binding out = bind(buf, 32, 16); /* over the lengths */
        if (CHECK_STATUS(dmlops_operator_execute(op, 2, in, 1, &out), INVALID, "overlap")) {
            CHECK(strstr(dmlops_last_error_message(), "inputs[1]"), "%s", dmlops_last_error_message());
            buffer_holds(buf, bytes, FX_BYTES, "buffer after a refused execute", __LINE__);
        }
        out = bind(buf, 0, 16); /* in place over the input */
        if (CHECK_STATUS(dmlops_operator_execute(op, 2, in, 1, &out), INVALID, "inputs[0]"))
            buffer_holds(buf, bytes, FX_BYTES, "buffer after a refused execute", __LINE__);
        out = bind(buf, 48, 16);
        if (CHECK_OK(dmlops_operator_execute(op, 2, in, 1, &out)) && CHECK_OK(dmlops_buffer_read(buf, 48, got, 16)))
            CHECK(got[0] == 10 && got[1] == 3 && got[2] == 20 && got[3] == 30, "got [%u,%u,%u,%u]", got[0], got[1],
                  got[2], got[3]);
        /* Inputs may overlap: the length is the input's first element, 3. */
        in[1] = bind(buf, 0, 4);
        out = bind(buf, 64, 16);
        if (CHECK_OK(dmlops_operator_execute(op, 2, in, 1, &out)) && CHECK_OK(dmlops_buffer_read(buf, 64, got, 16)))
            CHECK(got[0] == 20 && got[1] == 10 && got[2] == 3 && got[3] == 30, "got [%u,%u,%u,%u]", got[0], got[1],
                  got[2], got[3]);
    }
    dmlops_buffer_destroy(buf);
    dmlops_operator_destroy(op);
}

/* ONE_HOT index 2 of 4 with values [0.5, 7]: the output may overlap neither input. */
TEST_CTX(binding_overlap_one_hot)
{
    static const DML_TENSOR_DATA_TYPE types[3] = {U32, F32, F32};
    static const uint32_t sizes[3][2] = {{1, 1}, {1, 2}, {1, 4}};
    static const uint32_t index = 2;
    static const float values[2] = {0.5f, 7.0f};
    uint8_t bytes[FX_BYTES];
    float got[4];
    dmlops_operator *op = NULL;
    REQUIRE_OK(make_op3(ctx, DML_OPERATOR_ONE_HOT, types, sizes, 1, &op));
    memset(bytes, 0x66, sizeof bytes);
    memcpy(bytes, &index, sizeof index);
    memcpy(bytes + 16, values, sizeof values);
    dmlops_buffer *buf = dmt_buffer(ctx, FX_BYTES, bytes);
    if (buf) {
        dmlops_binding in[2] = {bind(buf, 0, 4), bind(buf, 16, 8)};
        static const uint64_t overlapping[] = {0, 16};
        for (size_t i = 0; i < 2; i++) {
            dmlops_binding out = bind(buf, overlapping[i], 16);
            if (CHECK_STATUS(dmlops_operator_execute(op, 2, in, 1, &out), INVALID, "overlap"))
                buffer_holds(buf, bytes, FX_BYTES, "buffer after a refused execute", __LINE__);
        }
        dmlops_binding out = bind(buf, 32, 16);
        if (CHECK_OK(dmlops_operator_execute(op, 2, in, 1, &out)) && CHECK_OK(dmlops_buffer_read(buf, 32, got, 16)))
            CHECK(got[0] == 0.5f && got[1] == 0.5f && got[2] == 7.0f && got[3] == 0.5f, "got [%g,%g,%g,%g]",
                  (double)got[0], (double)got[1], (double)got[2], (double)got[3]);
    }
    dmlops_buffer_destroy(buf);
    dmlops_operator_destroy(op);
}

/* ---- Buffers ---- */

TEST_CTX(buffer_create_with_size_0)
{
    dmlops_buffer *b = NULL;
    CHECK_STATUS(dmlops_buffer_create(ctx, 0, &b), INVALID, "size");
    CHECK(b == NULL);
    /* Far more than any machine has: refused, not wrapped into a small allocation.
     * (AddressSanitizer aborts on such a calloc instead of returning NULL.) */
#if !defined(__SANITIZE_ADDRESS__) && !DMT_HAS_ASAN
    dmlops_status st = dmlops_buffer_create(ctx, UINT64_MAX, &b);
    CHECK(st != DMLOPS_SUCCESS && b == NULL, "a buffer of UINT64_MAX bytes: %s", dmlops_status_string(st));
    if (st == DMLOPS_SUCCESS) dmlops_buffer_destroy(b);
#endif
}

/* The most a CPU-backend buffer may hold: host memory, counted in size_t, so SIZE_MAX
 * where that is 32 bits (armhf), and 2^47 bytes (more than any host has) on 64-bit hosts. */
static uint64_t cpu_buffer_limit(void)
{
    return (uint64_t)SIZE_MAX < (1ull << 47) ? (uint64_t)SIZE_MAX : 1ull << 47;
}

/* A CPU-backend buffer above that limit is refused, OUT_OF_HOST_MEMORY naming
 * size_in_bytes and its value, rather than allocated as its low 32 bits (on armhf a
 * buffer of 2^32 + 64 bytes was 64 bytes of memory, and writes past them reached other
 * memory). Device memory is not the host's: the Vulkan backend has no such limit. */
TEST_CTX(buffer_beyond_the_host_address_space)
{
    if (dmt_is_vulkan()) return;
    const uint64_t limit = cpu_buffer_limit(), sizes[] = {limit + 1, limit + 64, limit + 65536};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "size_in_bytes = %llu", (unsigned long long)sizes[i]);
        dmlops_buffer *b = NULL;
        const dmlops_status st = dmlops_buffer_create(ctx, sizes[i], &b);
        CHECK_STATUS(st, DMLOPS_ERROR_OUT_OF_HOST_MEMORY, want);
        CHECK(b == NULL);
        if (st == DMLOPS_SUCCESS) { /* what a truncated size would have given: never written */
            CHECK(dmlops_buffer_size(b) == sizes[i]);
            dmlops_buffer_destroy(b);
        }
    }
}

/* An operator whose tensor needs more bytes than the host can address
 * (TotalTensorSizeInBytes above SIZE_MAX, only possible where size_t is 32 bits) can never
 * be bound on the CPU backend, whose buffers are host memory: its creation there is
 * UNSUPPORTED, naming the tensor, the field and the values, rather than left to offsets
 * that would wrap. The descriptor itself is valid (dmlops_validate_operator, which knows
 * no backend, accepts it), and so is the operator on 64-bit hosts and on Vulkan. Two
 * ways to get there: a TotalTensorSizeInBytes that says so, and strides whose minimum
 * size (DMLCalcBufferTensorSize) is beyond 4 GiB. */
TEST_CTX(operator_beyond_the_host_address_space)
{
    static const uint32_t in_sizes[] = {2, 4}, out_sizes[] = {2, 2};
    static const uint32_t offsets[] = {0, 0}, window[] = {2, 2};
    static const int32_t steps[] = {1, 1};
    /* 2^30 + 4 elements between rows: (2^30 + 8) * 4 bytes, past 2^32. */
    static const uint32_t far_rows[] = {(1u << 30) + 4, 1};
    const bool host32 = (uint64_t)SIZE_MAX < (1ull << 33);
    for (int way = 0; way < 2; way++) {
        dmt_tensor in, out;
        dmt_tensor_init(&in, F32, 2, in_sizes, way ? far_rows : NULL, way ? 0 : (1ull << 32) + 64);
        dmt_tensor_init(&out, F32, 2, out_sizes, NULL, 0);
        const uint64_t total = in.buf.TotalTensorSizeInBytes;
        REQUIRE(total > (1ull << 32), "way %d: TotalTensorSizeInBytes = %llu", way, (unsigned long long)total);
        DML_SLICE1_OPERATOR_DESC d = {&in.desc, &out.desc, 2, offsets, window, steps};
        DML_OPERATOR_DESC od = {DML_OPERATOR_SLICE1, &d};
        CHECK_OK(dmlops_validate_operator(&od, 0));
        dmlops_operator *op = NULL;
        const dmlops_status st = dmlops_operator_create(ctx, &od, &op);
        if (host32 && !dmt_is_vulkan()) {
            char want[96];
            snprintf(want, sizeof want, "InputTensor.TotalTensorSizeInBytes = %llu", (unsigned long long)total);
            CHECK_STATUS(st, DMLOPS_ERROR_UNSUPPORTED, want);
            CHECK(op == NULL, "way %d", way);
        } else {
            CHECK_OK(st);
        }
        dmlops_operator_destroy(op);
    }
}

TEST_CTX(buffer_read_write_out_of_range)
{
    enum { N = 64 };
    uint8_t init[N], host[N + 16];
    for (int i = 0; i < N; i++) init[i] = (uint8_t)(i * 3 + 1);
    dmlops_buffer *buf = dmt_buffer(ctx, N, init);
    REQUIRE(buf != NULL);
    CHECK(dmlops_buffer_size(buf) == N);
    const struct {
        uint64_t offset, size;
    } bad[] = {
        {N - 4, 8}, {N, 1}, {0, N + 1}, {N + 100, 4}, {UINT64_MAX, 2}, {2, UINT64_MAX},
        {UINT64_MAX - 7, 16}, {1ull << 63, 1ull << 63},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(host, 0x5A, sizeof host);
        CHECK_STATUS(dmlops_buffer_write(buf, bad[i].offset, host, bad[i].size), INVALID, "dmlops_buffer_write");
        CHECK_STATUS(dmlops_buffer_read(buf, bad[i].offset, host, bad[i].size), INVALID, "dmlops_buffer_read");
        for (size_t k = 0; k < sizeof host; k++)
            if (host[k] != 0x5A) {
                dmt_fail(__FILE__, __LINE__, "a refused read of [%llu, +%llu) wrote host byte %zu",
                         (unsigned long long)bad[i].offset, (unsigned long long)bad[i].size, k);
                break;
            }
    }
    buffer_holds(buf, init, N, "buffer after refused writes", __LINE__);
    /* The last byte, and the whole buffer, are in range. */
    host[0] = 0xEE;
    CHECK_OK(dmlops_buffer_write(buf, N - 1, host, 1));
    init[N - 1] = 0xEE;
    CHECK_OK(dmlops_buffer_read(buf, N - 1, host + 1, 1));
    CHECK(host[1] == 0xEE);
    buffer_holds(buf, init, N, "buffer after an in-range write", __LINE__);
    dmlops_buffer_destroy(buf);
}

/* ---- Command lists ---- */

static void check_counts(dmlops_command_list *list, uint32_t ops, uint32_t barriers, int line)
{
    uint32_t o = 99, b = 99;
    if (!CHECK_OK(dmlops_command_list_get_counts(list, &o, &b))) return;
    if (o != ops || b != barriers)
        dmt_fail(__FILE__, line, "command list counts are %u operations, %u barriers; expected %u, %u", o, b, ops,
                 barriers);
}

#define RECORD_REFUSED(list, op, ni, ins, no, outs, substr, ops, barriers)                                  \
    do {                                                                                                    \
        CHECK_STATUS(dmlops_command_list_record(list, op, ni, ins, no, outs), INVALID, substr);             \
        check_counts(list, ops, barriers, __LINE__);                                                        \
    } while (0)
#define COPY_REFUSED(list, dst, dst_offset, src, src_offset, size, ops, barriers)                           \
    do {                                                                                                    \
        CHECK_STATUS(dmlops_command_list_record_copy(list, dst, dst_offset, src, src_offset, size), INVALID, NULL); \
        check_counts(list, ops, barriers, __LINE__);                                                        \
    } while (0)

/* Refused recordings leave the list as it was: same counts, and executing it runs only
 * what was accepted. */
TEST_CTX(command_list_refuses_bad_recordings)
{
    fixture f;
    dmlops_context *other = NULL;
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
    dmlops_command_list *list = NULL;
    dmlops_operator *foreign_op = NULL;
    REQUIRE(fixture_init(&f, ctx, 64, 0));
    REQUIRE_OK(dmlops_context_create(&d, &other));
    dmlops_buffer *foreign = dmt_buffer(other, FX_BYTES, NULL);
    CHECK_OK(make_slice(other, 0, 0, &foreign_op));
    if (!CHECK_OK(dmlops_command_list_create(ctx, &list)) || !foreign || !foreign_op) goto done;

    dmlops_binding in = bind(f.in, 0, SLICE_IN_BYTES), out = bind(f.out, 0, SLICE_OUT_BYTES);
    dmlops_binding in2[2] = {in, in}, out2[2] = {out, out};
    dmlops_binding b;
    check_counts(list, 0, 0, __LINE__);
    for (int round = 0; round < 2; round++) {
        uint32_t n = (uint32_t)round; /* operations recorded so far */
        RECORD_REFUSED(list, f.op, 0, in2, 1, out2, "input_count", n, 0);
        RECORD_REFUSED(list, f.op, 2, in2, 1, out2, "input_count", n, 0);
        RECORD_REFUSED(list, f.op, 1, in2, 2, out2, "output_count", n, 0);
        RECORD_REFUSED(list, f.op, 1, NULL, 1, &out, "inputs", n, 0);
        RECORD_REFUSED(list, f.op, 1, &in, 1, NULL, "outputs", n, 0);
        b = bind(NULL, 0, SLICE_IN_BYTES);
        RECORD_REFUSED(list, f.op, 1, &b, 1, &out, "inputs[0]", n, 0);
        b = bind(f.in, 16, SLICE_IN_BYTES); /* the input wants 64-byte alignment */
        RECORD_REFUSED(list, f.op, 1, &b, 1, &out, "inputs[0]", n, 0);
        b = bind(f.out, 8, SLICE_OUT_BYTES);
        RECORD_REFUSED(list, f.op, 1, &in, 1, &b, "outputs[0]", n, 0);
        b = bind(f.in, 0, SLICE_IN_BYTES - 4);
        RECORD_REFUSED(list, f.op, 1, &b, 1, &out, "inputs[0]", n, 0);
        b = bind(f.out, UINT64_MAX - 15, SLICE_OUT_BYTES);
        RECORD_REFUSED(list, f.op, 1, &in, 1, &b, "outputs[0]", n, 0);
        b = bind(f.in, 0, SLICE_IN_BYTES);
        dmlops_binding over = bind(f.in, 32, SLICE_OUT_BYTES); /* output over the input */
        RECORD_REFUSED(list, f.op, 1, &b, 1, &over, "overlap", n, 0);
        b = bind(foreign, 0, SLICE_OUT_BYTES);
        RECORD_REFUSED(list, f.op, 1, &in, 1, &b, "another context", n, 0);
        /* Would read what the recorded operation writes (a barrier), but is refused. */
        b = bind(f.out, 0, SLICE_IN_BYTES);
        dmlops_binding nul = bind(NULL, 128, SLICE_OUT_BYTES);
        RECORD_REFUSED(list, f.op, 1, &b, 1, &nul, "outputs[0]", n, 0);
        /* An operator of another context, even with bindings of its own context. */
        b = bind(foreign, 0, SLICE_IN_BYTES);
        dmlops_binding fout = bind(foreign, 128, SLICE_OUT_BYTES);
        RECORD_REFUSED(list, foreign_op, 1, &b, 1, &fout, "context", n, 0);
        if (round == 0) {
            REQUIRE_OK(dmlops_command_list_record(list, f.op, 1, &in, 1, &out));
            check_counts(list, 1, 0, __LINE__);
        }
    }

    /* Copies: empty, out of range, wrapping, overlapping, or with a foreign buffer. */
    COPY_REFUSED(list, f.out, 128, f.out, 0, 0, 1, 0);
    COPY_REFUSED(list, f.out, FX_BYTES - 8, f.out, 0, 16, 1, 0);
    COPY_REFUSED(list, f.out, 128, f.out, FX_BYTES - 8, 16, 1, 0);
    COPY_REFUSED(list, f.out, 128, f.in, 0, FX_BYTES + 1, 1, 0);
    COPY_REFUSED(list, f.out, UINT64_MAX - 3, f.in, 0, 8, 1, 0);
    COPY_REFUSED(list, f.out, 128, f.in, UINT64_MAX - 3, 8, 1, 0);
    COPY_REFUSED(list, f.out, 8, f.out, 0, 16, 1, 0);
    COPY_REFUSED(list, f.out, 0, f.out, 0, 16, 1, 0);
    COPY_REFUSED(list, foreign, 0, f.out, 0, 16, 1, 0);
    COPY_REFUSED(list, f.out, 128, foreign, 0, 16, 1, 0);

    /* A copy that reads the operation's output needs a barrier. */
    REQUIRE_OK(dmlops_command_list_record_copy(list, f.out, 64, f.out, 0, SLICE_OUT_BYTES));
    check_counts(list, 2, 1, __LINE__);
    if (CHECK_OK(dmlops_command_list_execute(list))) {
        uint8_t want[FX_BYTES];
        memcpy(want, f.out_bytes, sizeof want);
        memcpy(want, slice_want, sizeof slice_want);
        memcpy(want + 64, slice_want, sizeof slice_want);
        buffer_holds(f.out, want, FX_BYTES, "output after the command list", __LINE__);
        buffer_holds(f.in, f.in_bytes, FX_BYTES, "input after the command list", __LINE__);
        memset(want, 0, sizeof want);
        buffer_holds(foreign, want, FX_BYTES, "the other context's buffer", __LINE__);
    }
    CHECK_OK(dmlops_command_list_reset(list));
    check_counts(list, 0, 0, __LINE__);
    CHECK_OK(dmlops_command_list_execute(list));

done:
    dmlops_command_list_destroy(list);
    dmlops_operator_destroy(foreign_op);
    dmlops_buffer_destroy(foreign);
    dmlops_context_destroy(other);
    fixture_free(&f);
}

/* Every kind of refusal in one place, each checked against an output buffer that holds a
 * pattern before and must hold it after. */
TEST_CTX(refused_execute_does_not_touch_the_output)
{
    fixture f;
    REQUIRE(fixture_init(&f, ctx, 0, 0));
    dmlops_binding in = bind(f.in, 0, SLICE_IN_BYTES);
    const dmlops_binding outs[] = {
        bind(f.out, 0, SLICE_OUT_BYTES),  bind(f.out, 64, SLICE_OUT_BYTES), bind(f.out, 240, SLICE_OUT_BYTES),
    };
    const dmlops_binding bad_ins[] = {
        bind(NULL, 0, SLICE_IN_BYTES),       bind(f.in, 4, SLICE_IN_BYTES),
        bind(f.in, 0, SLICE_IN_BYTES - 16),  bind(f.in, FX_BYTES - 16, SLICE_IN_BYTES),
        bind(f.in, UINT64_MAX - 15, SLICE_IN_BYTES),
    };
    for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++) {
        for (size_t i = 0; i < sizeof bad_ins / sizeof bad_ins[0]; i++)
            REFUSED(&f, 1, &bad_ins[i], 1, &outs[o], "inputs[0]");
        REFUSED(&f, 2, &in, 1, &outs[o], NULL);
        REFUSED(&f, 1, &in, 0, &outs[o], NULL);
        REFUSED(&f, 1, NULL, 1, &outs[o], NULL);
    }
    fixture_free(&f);
}

/* Issue 10, defect 5: buffers and an operator destroyed by the application while a
 * command list still records them. The list holds them until it is reset or destroyed:
 * executing it still works and gives the right answer (it was a heap-use-after-free on
 * the CPU backend), and nothing leaks once the list lets go (LSan in make test-asan). */
TEST_CTX(command_list_holds_what_it_records)
{
    fixture f;
    REQUIRE(fixture_init(&f, ctx, 0, 0));
    dmlops_buffer *copy_dst = dmt_buffer(ctx, FX_BYTES, NULL);
    dmlops_command_list *list = NULL;
    REQUIRE(copy_dst);
    if (!CHECK_OK(dmlops_command_list_create(ctx, &list))) {
        dmlops_buffer_destroy(copy_dst);
        fixture_free(&f);
        return;
    }
    dmlops_binding in = bind(f.in, 0, SLICE_IN_BYTES), out = bind(f.out, 16, SLICE_OUT_BYTES);
    CHECK_OK(dmlops_command_list_record(list, f.op, 1, &in, 1, &out));
    CHECK_OK(dmlops_command_list_record_copy(list, copy_dst, 0, f.out, 0, FX_BYTES));
    dmlops_buffer *out_buf = f.out;
    dmlops_buffer_destroy(f.in); /* the application is done with these... */
    dmlops_operator_destroy(f.op);
    for (int run = 0; run < 2; run++) { /* ...but the list still runs them, twice */
        CHECK_OK(dmlops_command_list_execute(list));
        uint8_t want[FX_BYTES];
        memcpy(want, f.out_bytes, sizeof want);
        memcpy(want + 16, slice_want, sizeof slice_want);
        buffer_holds(copy_dst, want, FX_BYTES, "copy of the output, after its input and operator were destroyed", __LINE__);
    }
    dmlops_buffer_destroy(out_buf); /* destroyed with the list still holding it: freed by the reset */
    CHECK_OK(dmlops_command_list_reset(list));
    uint32_t ops = 1, barriers = 1;
    CHECK_OK(dmlops_command_list_get_counts(list, &ops, &barriers));
    CHECK(ops == 0 && barriers == 0, "after reset: %u operations, %u barriers", ops, barriers);
    dmlops_command_list_destroy(list);
    dmlops_buffer_destroy(copy_dst);
}
