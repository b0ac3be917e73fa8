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

int main(void)
{
    dmlops_context *ctx = NULL;
    dmlops_context_info info;
    if (dmlops_context_create(NULL, &ctx) != DMLOPS_SUCCESS) {
        fprintf(stderr, "quickstart: %s\n", dmlops_last_error_message());
        return 1;
    }
    dmlops_context_get_info(ctx, &info);
    if (info.backend == DMLOPS_BACKEND_VULKAN)
        printf("device: %s (Vulkan, %s), feature level %s\n\n", info.device.name,
               info.device.driver_name[0] ? info.device.driver_name : "driver unknown",
               dmlops_feature_level_name(info.feature_level));
    else
        printf("device: CPU backend (%s), feature level %s\n\n", info.note[0] ? info.note : "requested",
               dmlops_feature_level_name(info.feature_level));

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
    dmlops_context_destroy(ctx);
    printf("%d of %zu examples match the DirectML documentation\n", (int)SEED_EXAMPLE_COUNT - failures,
           (size_t)SEED_EXAMPLE_COUNT);
    return failures != 0;
}
