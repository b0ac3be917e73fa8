/* After the first execution (the warm-up), executing an operator again must not allocate
 * host memory in libdmlops: the binding table, copy regions and command buffer are all
 * reused. Built with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc, which redirects the
 * library's own calls (not the driver's, which lives in a shared object) to the counters
 * below. */
#include <stdlib.h>

#include "op_descs.h"

static unsigned long dmt_allocs;
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n) { dmt_allocs++; return __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t m) { dmt_allocs++; return __real_calloc(n, m); }
void *__wrap_realloc(void *p, size_t n) { dmt_allocs++; return __real_realloc(p, n); }

static void run(dmlops_context *ctx, const DML_OPERATOR_DESC *desc, uint32_t nin, const uint64_t *bytes, const char *what)
{
    dmlops_operator *op = NULL;
    dmlops_buffer *b[3] = {NULL, NULL, NULL};
    dmlops_binding bind[3];
    REQUIRE_OK(dmlops_operator_create(ctx, desc, &op));
    for (uint32_t i = 0; i <= nin; i++) {
        b[i] = dmt_buffer(ctx, bytes[i], NULL);
        bind[i] = (dmlops_binding){b[i], 0, bytes[i]};
    }
    CHECK_OK(dmlops_operator_execute(op, nin, bind, 1, &bind[nin])); /* warm-up */
    unsigned long before = dmt_allocs;
    for (int i = 0; i < 20; i++) CHECK_OK(dmlops_operator_execute(op, nin, bind, 1, &bind[nin]));
    CHECK(dmt_allocs == before, "%s: 20 executions after the warm-up allocated %lu times", what, dmt_allocs - before);
    dmlops_operator_info info;
    CHECK_OK(dmlops_operator_get_info(op, &info));
    printf("    %s: path %s, no allocation\n", what, dmlops_path_name(info.last_path));
    for (uint32_t i = 0; i <= nin; i++) dmlops_buffer_destroy(b[i]);
    dmlops_operator_destroy(op);
}

TEST_CTX(executions_after_the_first_allocate_nothing)
{
    const uint32_t sizes[3] = {4, 64, 256}, lstrides[3] = {1, 0, 0};
    dmt_reverse rev;
    /* An outer-axis reverse: slab copies on unified-memory devices, a kernel elsewhere. */
    dmt_reverse_init(&rev, DML_TENSOR_DATA_TYPE_UINT8, 3, sizes, 1, DML_TENSOR_DATA_TYPE_UINT32, lstrides);
    uint64_t rbytes[3] = {rev.in.buf.TotalTensorSizeInBytes, 64, rev.out.buf.TotalTensorSizeInBytes};
    run(ctx, &rev.desc, 2, rbytes, "reverse along an outer axis");
    /* An innermost-axis reverse: always a kernel. */
    dmt_reverse_init(&rev, DML_TENSOR_DATA_TYPE_UINT8, 3, sizes, 2, DML_TENSOR_DATA_TYPE_UINT32, NULL);
    run(ctx, &rev.desc, 2, (const uint64_t[]){rbytes[0], 1024, rbytes[2]}, "reverse along the innermost axis");
    /* A slice with long rows: copy regions. */
    const uint32_t off[3] = {0, 1, 0}, win[3] = {4, 63, 256};
    dmt_slice slice;
    dmt_slice_init(&slice, DML_TENSOR_DATA_TYPE_UINT8, 3, sizes, off, win);
    run(ctx, &slice.desc, 1, (const uint64_t[]){rbytes[0], slice.out.buf.TotalTensorSizeInBytes}, "slice");
}

/* Buffers split into 256-byte allocations: the first execution plans windows again at the
 * boundaries; later ones with the same bindings reuse that plan. */
TEST(segmented_buffers_allocate_only_once)
{
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN, .flags = DMLOPS_CONTEXT_FLAG_KERNELS_ONLY};
    dmlops_context_options o = {.max_allocation_size = 256};
    dmlops_context *ctx = NULL;
    if (dmlops_context_create_with_options(&d, &o, &ctx) != DMLOPS_SUCCESS) return; /* no device */
    const uint32_t sizes[2] = {16, 100};
    dmt_reverse rev;
    dmt_reverse_init(&rev, DML_TENSOR_DATA_TYPE_UINT16, 2, sizes, 1, DML_TENSOR_DATA_TYPE_UINT32, NULL);
    run(ctx, &rev.desc, 2, (const uint64_t[]){rev.in.buf.TotalTensorSizeInBytes, 64, rev.out.buf.TotalTensorSizeInBytes},
        "reverse over 256-byte allocations");
    dmlops_context_destroy(ctx);
}
