/* A program built against the 1.0 headers (this directory: include/ as it was at 1.0,
 * frozen) and run against today's libdmlops.so.1 (test_packaging.sh): every 1.0 entry
 * point a program of that time would call, with every structure the caller allocates
 * surrounded by guard bytes, so that a structure the library grew (and wrote past the
 * end of an old caller's) or a layout it changed shows here. C11, the 1.0 headers only. */
#include <stdio.h>
#include <string.h>

#include "dmlops.h"

#if defined(VK_VERSION_1_0) || defined(DMLOPS_STRUCTURE_TYPE_CONTEXT_CREATE_INFO)
#error "built against the wrong headers: this program must see only test/abi_1_0/"
#endif

static int failures;

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            failures++;                                                                   \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                       \
            printf(__VA_ARGS__);                                                          \
            printf(" (%s)\n", dmlops_last_error_message());                               \
        }                                                                                 \
    } while (0)

#define GUARD 64
/* A caller-allocated structure between two guards of 0xA5 bytes. */
#define GUARDED(type, name)                                                               \
    struct {                                                                              \
        unsigned char before[GUARD];                                                      \
        type value;                                                                       \
        unsigned char after[GUARD];                                                       \
    } name;                                                                               \
    memset(&name, 0xA5, sizeof name)

static int guards_intact(const unsigned char *before, const unsigned char *after)
{
    for (int i = 0; i < GUARD; i++)
        if (before[i] != 0xA5 || after[i] != 0xA5) return 0;
    return 1;
}
#define CHECK_GUARDS(name, what) CHECK(guards_intact((name).before, (name).after), "%s wrote outside the 1.0 %s", what, #name)

/* SLICE1 of a [4, 4] FLOAT32 tensor: rows 1..2, columns 0, 2 (stride 2). */
static void run_on(dmlops_backend backend, const char *label)
{
    dmlops_context_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.backend = backend;
    GUARDED(dmlops_context_options, opt);
    memset(&opt.value, 0, sizeof opt.value);
    opt.value.cpu_threads = 2;
    dmlops_context *ctx = NULL;
    dmlops_status st = dmlops_context_create_with_options(&cd, &opt.value, &ctx);
    if (backend == DMLOPS_BACKEND_VULKAN && st != DMLOPS_SUCCESS) {
        printf("note: no Vulkan context (%s): %s skipped\n", dmlops_last_error_message(), label);
        return;
    }
    CHECK(st == DMLOPS_SUCCESS, "%s: dmlops_context_create_with_options", label);
    if (st != DMLOPS_SUCCESS) return;
    CHECK_GUARDS(opt, "dmlops_context_create_with_options");

    GUARDED(dmlops_context_info, info);
    CHECK(dmlops_context_get_info(ctx, &info.value) == DMLOPS_SUCCESS, "%s: get_info", label);
    CHECK_GUARDS(info, "dmlops_context_get_info");
    CHECK(info.value.backend == backend, "%s: info.backend = %d", label, (int)info.value.backend);
    CHECK(info.value.feature_level == DMLOPS_FEATURE_LEVEL_HIGHEST, "%s: info.feature_level = 0x%x", label,
          (unsigned)info.value.feature_level);
    CHECK(info.value.note[0] != 0, "%s: empty note", label);
    CHECK(backend != DMLOPS_BACKEND_CPU || info.value.cpu_threads == 2, "%s: cpu_threads = %u", label,
          info.value.cpu_threads);

    const uint32_t in_sizes[2] = {4, 4}, out_sizes[2] = {2, 2}, offsets[2] = {1, 0}, window[2] = {2, 4};
    const int32_t strides[2] = {1, 2};
    DML_BUFFER_TENSOR_DESC ib = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, in_sizes, NULL, 64, 0};
    DML_BUFFER_TENSOR_DESC ob = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 2, out_sizes, NULL, 16, 0};
    DML_TENSOR_DESC in = {DML_TENSOR_TYPE_BUFFER, &ib}, out = {DML_TENSOR_TYPE_BUFFER, &ob};
    DML_SLICE1_OPERATOR_DESC sd = {&in, &out, 2, offsets, window, strides};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &sd};
    CHECK(dmlops_validate_operator(&desc, 0) == DMLOPS_SUCCESS, "%s: validate", label);

    dmlops_operator *op = NULL;
    dmlops_buffer *bi = NULL, *bo = NULL, *bc = NULL;
    dmlops_command_list *list = NULL;
    float x[16], y[4] = {0, 0, 0, 0}, z[4] = {0, 0, 0, 0};
    for (int i = 0; i < 16; i++) x[i] = (float)i;
    CHECK(dmlops_operator_create(ctx, &desc, &op) == DMLOPS_SUCCESS, "%s: operator_create", label);
    CHECK(dmlops_buffer_create(ctx, 64, &bi) == DMLOPS_SUCCESS, "%s: buffer_create", label);
    CHECK(dmlops_buffer_create(ctx, 16, &bo) == DMLOPS_SUCCESS, "%s: buffer_create", label);
    CHECK(dmlops_buffer_create(ctx, 16, &bc) == DMLOPS_SUCCESS, "%s: buffer_create", label);
    if (!op || !bi || !bo || !bc) return;
    CHECK(dmlops_buffer_size(bi) == 64, "%s: buffer_size", label);
    CHECK(dmlops_buffer_write(bi, 0, x, sizeof x) == DMLOPS_SUCCESS, "%s: write", label);
    GUARDED(dmlops_binding, bin);
    GUARDED(dmlops_binding, bout);
    bin.value = (dmlops_binding){bi, 0, 64};
    bout.value = (dmlops_binding){bo, 0, 16};
    CHECK(dmlops_operator_execute(op, 1, &bin.value, 1, &bout.value) == DMLOPS_SUCCESS, "%s: execute", label);
    CHECK(dmlops_buffer_read(bo, 0, y, sizeof y) == DMLOPS_SUCCESS, "%s: read", label);
    const float want[4] = {4, 6, 8, 10};
    CHECK(memcmp(y, want, sizeof y) == 0, "%s: SLICE1 gave %g %g %g %g", label, y[0], y[1], y[2], y[3]);

    GUARDED(dmlops_operator_info, oi);
    CHECK(dmlops_operator_get_info(op, &oi.value) == DMLOPS_SUCCESS, "%s: operator_get_info", label);
    CHECK_GUARDS(oi, "dmlops_operator_get_info");
    CHECK(oi.value.type == DML_OPERATOR_SLICE1 && oi.value.input_count == 1 && oi.value.output_count == 1,
          "%s: operator info %d %u %u", label, (int)oi.value.type, oi.value.input_count, oi.value.output_count);
    CHECK(oi.value.bytes_written == 16, "%s: bytes_written = %llu", label, (unsigned long long)oi.value.bytes_written);

    CHECK(dmlops_command_list_create(ctx, &list) == DMLOPS_SUCCESS, "%s: list_create", label);
    if (!list) return;
    CHECK(dmlops_command_list_record(list, op, 1, &bin.value, 1, &bout.value) == DMLOPS_SUCCESS, "%s: record", label);
    CHECK(dmlops_command_list_record_copy(list, bc, 0, bo, 0, 16) == DMLOPS_SUCCESS, "%s: record_copy", label);
    CHECK(dmlops_command_list_execute(list) == DMLOPS_SUCCESS, "%s: list execute", label);
    uint32_t ops = 0, barriers = 0;
    CHECK(dmlops_command_list_get_counts(list, &ops, &barriers) == DMLOPS_SUCCESS && ops == 2 && barriers == 1,
          "%s: counts %u %u", label, ops, barriers);
    GUARDED(dmlops_execution_stats, es);
    CHECK(dmlops_command_list_get_stats(list, &es.value) == DMLOPS_SUCCESS, "%s: get_stats", label);
    CHECK_GUARDS(es, "dmlops_command_list_get_stats");
    CHECK(dmlops_buffer_read(bc, 0, z, sizeof z) == DMLOPS_SUCCESS && memcmp(z, want, sizeof z) == 0,
          "%s: the list's copy gave %g %g %g %g", label, z[0], z[1], z[2], z[3]);
    CHECK(dmlops_command_list_reset(list) == DMLOPS_SUCCESS, "%s: reset", label);

    dmlops_command_list_destroy(list);
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(bi);
    dmlops_buffer_destroy(bo);
    dmlops_buffer_destroy(bc);
    dmlops_context_destroy(ctx);
}

int main(void)
{
    CHECK(strcmp(dmlops_version_string(), "1.0.0") >= 0, "version %s", dmlops_version_string());
    CHECK(dmlops_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 1, (const uint32_t[]){5}, NULL) == 20,
          "calc_buffer_tensor_size");
    CHECK(!strcmp(dmlops_status_string(DMLOPS_ERROR_DEVICE_LOST), "DMLOPS_ERROR_DEVICE_LOST"), "status_string");
    uint32_t n = 0;
    if (dmlops_enumerate_devices(NULL, &n) == DMLOPS_SUCCESS && n) {
        struct {
            unsigned char before[GUARD];
            dmlops_device_info value[1];
            unsigned char after[GUARD];
        } dev;
        memset(&dev, 0xA5, sizeof dev);
        uint32_t one = 1;
        CHECK(dmlops_enumerate_devices(dev.value, &one) == DMLOPS_SUCCESS && one == 1, "enumerate_devices");
        CHECK_GUARDS(dev, "dmlops_enumerate_devices");
    }
    run_on(DMLOPS_BACKEND_CPU, "cpu");
    run_on(DMLOPS_BACKEND_VULKAN, "vulkan");
    printf("%s\n", failures ? "FAILED" : "the 1.0 program runs against this library");
    return failures ? 1 : 0;
}
