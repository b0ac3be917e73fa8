/* libdmlops quick start: runs the eight examples of the DirectML documentation on the
 * default device (DMLOPS_BACKEND / DMLOPS_DEVICE choose another) and prints inputs and
 * outputs. Build: cc quickstart.c $(pkg-config --static --cflags --libs dmlops) */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dmlops.h"
#include "seed_examples.h"

static void print_tensor(const char *name, const seed_tensor *t, const void *data)
{
    uint32_t rows = t->sizes[0] * t->sizes[1] * t->sizes[2], cols = t->sizes[3];
    printf("  %s {%u,%u,%u,%u} %s:\n", name, t->sizes[0], t->sizes[1], t->sizes[2], t->sizes[3],
           dmlops_data_type_name(t->type));
    for (uint32_t r = 0; r < rows; r++) {
        printf("    [");
        for (uint32_t c = 0; c < cols; c++) {
            uint32_t i = r * cols + c;
            if (t->type == DML_TENSOR_DATA_TYPE_FLOAT32) printf("%s%4g", c ? ", " : "", ((const float *)data)[i]);
            else if (t->type == DML_TENSOR_DATA_TYPE_INT32) printf("%s%4d", c ? ", " : "", ((const int32_t *)data)[i]);
            else printf("%s%4u", c ? ", " : "", ((const uint32_t *)data)[i]);
        }
        printf("]\n");
    }
}

/* Runs every example on ctx; returns the number that failed. */
static int run_examples(dmlops_context *ctx)
{
    int failures = 0;
    for (size_t i = 0; i < SEED_EXAMPLE_COUNT; i++) {
        const seed_example *ex = &seed_examples[i];
        float out[16];
        printf("%s\n", ex->title);
        for (uint32_t k = 0; k < ex->input_count; k++) print_tensor(ex->inputs[k].name, &ex->inputs[k], ex->inputs[k].data);
        if (ex->op == DML_OPERATOR_SLICE1)
            printf("  InputWindowOffsets {%u,%u,%u,%u}  InputWindowSizes {%u,%u,%u,%u}  InputWindowStrides {%d,%d,%d,%d}\n",
                   ex->offsets[0], ex->offsets[1], ex->offsets[2], ex->offsets[3], ex->window_sizes[0],
                   ex->window_sizes[1], ex->window_sizes[2], ex->window_sizes[3], ex->window_strides[0],
                   ex->window_strides[1], ex->window_strides[2], ex->window_strides[3]);
        else
            printf("  Axis %u\n", ex->axis);
        if (seed_run(ctx, ex, out) != DMLOPS_SUCCESS) {
            printf("  FAILED: %s\n\n", dmlops_last_error_message());
            failures++;
            continue;
        }
        print_tensor(ex->output.name, &ex->output, out);
        bool same = memcmp(out, ex->expected, seed_bytes(&ex->output)) == 0;
        printf("  %s\n\n", same ? "matches the documentation" : "DIFFERS from the documentation");
        failures += !same;
    }
    return failures;
}

static void print_backend(const dmlops_context_info *info)
{
    if (info->backend == DMLOPS_BACKEND_VULKAN)
        printf("backend: Vulkan on %s (%s), feature level %s\n", info->device.name,
               info->device.driver_name[0] ? info->device.driver_name : "driver unknown",
               dmlops_feature_level_name(info->feature_level));
    else
        printf("backend: CPU, %u threads, feature level %s\n", info->cpu_threads,
               dmlops_feature_level_name(info->feature_level));
    printf("why:     %s\n\n", info->note);
}

/* The default backend first (what dmlops_context_create(NULL) picks), then every other
 * backend this machine has, so that a machine without a GPU still shows Vulkan working
 * on its software device. */
int main(void)
{
    const dmlops_backend order[2] = {DMLOPS_BACKEND_VULKAN, DMLOPS_BACKEND_CPU};
    dmlops_context *ctx = NULL;
    dmlops_context_info info;
    if (dmlops_context_create(NULL, &ctx) != DMLOPS_SUCCESS) {
        fprintf(stderr, "quickstart: %s\n", dmlops_last_error_message());
        return 1;
    }
    dmlops_context_get_info(ctx, &info);
    const dmlops_backend first = info.backend;
    printf("== default backend\n");
    print_backend(&info);
    int failures = run_examples(ctx), runs = 1;
    dmlops_context_destroy(ctx);
    for (int b = 0; b < 2; b++) {
        if (order[b] == first) continue;
        dmlops_context_desc desc = {.backend = order[b]};
        if (dmlops_context_create(&desc, &ctx) != DMLOPS_SUCCESS) {
            printf("== %s backend: not available here (%s)\n\n", order[b] == DMLOPS_BACKEND_CPU ? "CPU" : "Vulkan",
                   dmlops_last_error_message());
            continue;
        }
        dmlops_context_get_info(ctx, &info);
        printf("== also on the %s backend\n", order[b] == DMLOPS_BACKEND_CPU ? "CPU" : "Vulkan");
        print_backend(&info);
        failures += run_examples(ctx);
        runs++;
        dmlops_context_destroy(ctx);
    }
    printf("%d of %zu examples match the DirectML documentation on %d backend%s\n",
           runs * (int)SEED_EXAMPLE_COUNT - failures, (size_t)runs * SEED_EXAMPLE_COUNT, runs, runs > 1 ? "s" : "");
    return failures != 0;
}
