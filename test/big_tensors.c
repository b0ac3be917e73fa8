/* Tensors larger than one binding window (maxStorageBufferRange is 128 MiB on lavapipe):
 * a reverse and slices over 320 MiB, and 1-D tensors of more than 2^25 elements whose
 * reversed axis itself spans several windows. Data are element indices, so results are
 * checked against closed forms without a second copy of the input. `make test-big`. */
#include <stdlib.h>

#include "harness.h"

static dmlops_context *big_ctx_flags(uint32_t flags)
{
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_VULKAN, .flags = flags};
    dmlops_context *ctx = NULL;
    if (dmlops_context_create(&d, &ctx) != DMLOPS_SUCCESS) {
        printf("    note: no Vulkan device (%s)\n", dmlops_last_error_message());
        return NULL;
    }
    return ctx;
}

static dmlops_context *big_ctx(void) { return big_ctx_flags(0); }

/* A buffer holding v[i] = i as elements of esize bytes (4 or 8), written in chunks. */
static dmlops_buffer *index_buffer(dmlops_context *ctx, uint64_t count, uint32_t esize)
{
    enum { CHUNK = 1 << 22 };
    dmlops_buffer *b = dmt_buffer(ctx, count * esize, NULL);
    uint8_t *tmp = malloc((size_t)CHUNK * esize);
    if (!b || !tmp) {
        free(tmp);
        return b;
    }
    for (uint64_t i = 0; i < count; i += CHUNK) {
        uint64_t n = count - i < CHUNK ? count - i : CHUNK;
        for (uint64_t k = 0; k < n; k++) {
            uint64_t v = i + k;
            memcpy(tmp + k * esize, &v, esize);
        }
        CHECK_OK(dmlops_buffer_write(b, i * esize, tmp, n * esize));
    }
    free(tmp);
    return b;
}

/* Reads elements back in chunks and checks out[i] == want(i); stops at the first miss. */
typedef uint64_t (*want_fn)(uint64_t i, const void *user);
static bool check_elements(dmlops_buffer *b, uint64_t count, uint32_t esize, want_fn want, const void *user)
{
    enum { CHUNK = 1 << 22 };
    uint8_t *tmp = malloc((size_t)CHUNK * esize);
    bool ok = tmp != NULL;
    for (uint64_t i = 0; i < count && ok; i += CHUNK) {
        uint64_t n = count - i < CHUNK ? count - i : CHUNK;
        ok = CHECK_OK(dmlops_buffer_read(b, i * esize, tmp, n * esize));
        for (uint64_t k = 0; k < n && ok; k++) {
            uint64_t v = 0, w = want(i + k, user);
            memcpy(&v, tmp + k * esize, esize);
            if (esize == 4) w &= 0xffffffffu;
            ok = CHECK(v == w, "element %llu = %llu, expected %llu", (unsigned long long)(i + k),
                       (unsigned long long)v, (unsigned long long)w);
        }
    }
    free(tmp);
    return ok;
}

static void tensor(dmt_tensor *t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t *sizes, const uint32_t *strides)
{
    dmt_tensor_init(t, type, rank, sizes, strides, 0);
}

/* ---- 320 MiB reverse along the middle axis, one length per batch ---- */
enum { B = 320, N = 512, M = 512 };
static uint32_t batch_length(uint64_t b) { return (uint32_t)((b * 37) % 600); } /* some > N: clamp */

static uint64_t want_reverse3(uint64_t i, const void *user)
{
    (void)user;
    uint64_t b = i / ((uint64_t)N * M), n = i / M % N, m = i % M, L = batch_length(b);
    if (L > N) L = N;
    uint64_t s = n < L ? L - 1 - n : n;
    return (b * N + s) * M + m;
}

/* Twice: as the library chooses (slab copies on unified memory), and forced onto the
 * kernel, whose windows then split the tensor. */
static void reverse_320_mib_with(uint32_t flags, dmlops_path expect)
{
    dmlops_context *ctx = big_ctx_flags(flags);
    if (!ctx) return;
    const uint32_t sizes[3] = {B, N, M}, lsizes[3] = {B, 1, M}, lstrides[3] = {1, 0, 0};
    dmt_tensor ti, tl, to;
    tensor(&ti, DML_TENSOR_DATA_TYPE_UINT32, 3, sizes, NULL);
    tensor(&tl, DML_TENSOR_DATA_TYPE_UINT32, 3, lsizes, lstrides);
    tensor(&to, DML_TENSOR_DATA_TYPE_UINT32, 3, sizes, NULL);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rd = {&ti.desc, &tl.desc, &to.desc, 1};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    uint64_t count = (uint64_t)B * N * M;
    uint32_t lengths[B];
    for (uint32_t b = 0; b < B; b++) lengths[b] = batch_length(b);
    dmlops_operator *op = NULL;
    dmlops_buffer *in = index_buffer(ctx, count, 4), *len = dmt_buffer(ctx, sizeof lengths, lengths);
    dmlops_buffer *out = dmt_buffer(ctx, count * 4, NULL);
    if (CHECK_OK(dmlops_operator_create(ctx, &desc, &op)) && in && len && out) {
        dmlops_binding bi[2] = {{in, 0, count * 4}, {len, 0, sizeof lengths}}, bo = {out, 0, count * 4};
        dmlops_operator_info info;
        if (CHECK_OK(dmlops_operator_execute(op, 2, bi, 1, &bo))) check_elements(out, count, 4, want_reverse3, NULL);
        CHECK_OK(dmlops_operator_get_info(op, &info));
        printf("    %llu MiB, path %s, %u dispatches\n", (unsigned long long)(count * 4 >> 20),
               dmlops_path_name(info.last_path), info.dispatch_count);
        /* Windows split the tensor only where one binding cannot reach it: lavapipe's
         * 128 MiB maxStorageBufferRange, not an NVIDIA card's 4 GiB. */
        dmlops_context_info ci;
        if (CHECK_OK(dmlops_context_get_info(ctx, &ci)) && count * 4 > ci.device.max_storage_buffer_range)
            CHECK(info.dispatch_count >= 3, "a 320 MiB tensor fitted in %u dispatches", info.dispatch_count);
        if (expect != DMLOPS_PATH_NONE) CHECK(info.last_path == expect, "ran %s", dmlops_path_name(info.last_path));
    }
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(in);
    dmlops_buffer_destroy(len);
    dmlops_buffer_destroy(out);
    dmlops_context_destroy(ctx);
}

TEST(reverse_320_mib)
{
    reverse_320_mib_with(0, DMLOPS_PATH_NONE);
    reverse_320_mib_with(DMLOPS_CONTEXT_FLAG_KERNELS_ONLY, DMLOPS_PATH_KERNEL);
}

/* ---- slices over the same 320 MiB input ---- */
typedef struct slice_map {
    uint32_t out[3];
    int64_t origin, step[3];
} slice_map;

static uint64_t want_slice(uint64_t i, const void *user)
{
    const slice_map *s = user;
    uint64_t c2 = i % s->out[2], c1 = i / s->out[2] % s->out[1], c0 = i / ((uint64_t)s->out[2] * s->out[1]);
    return (uint64_t)(s->origin + (int64_t)c0 * s->step[0] + (int64_t)c1 * s->step[1] + (int64_t)c2 * s->step[2]);
}

static void slice_case(dmlops_context *ctx, dmlops_buffer *in, const uint32_t *off, const uint32_t *win,
                       const int32_t *str, dmlops_path expect)
{
    const uint32_t sizes[3] = {B, N, M};
    slice_map map = {{0}, 0, {0}};
    for (int d = 0; d < 3; d++) {
        map.out[d] = 1 + (win[d] - 1) / (uint32_t)abs(str[d]);
        int64_t start = off[d] + (str[d] < 0 ? win[d] - 1 : 0);
        int64_t pitch = d == 0 ? (int64_t)N * M : d == 1 ? M : 1;
        map.origin += start * pitch;
        map.step[d] = str[d] * pitch;
    }
    dmt_tensor ti, to;
    tensor(&ti, DML_TENSOR_DATA_TYPE_UINT32, 3, sizes, NULL);
    tensor(&to, DML_TENSOR_DATA_TYPE_UINT32, 3, map.out, NULL);
    DML_SLICE1_OPERATOR_DESC sd = {&ti.desc, &to.desc, 3, off, win, str};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &sd};
    uint64_t count = (uint64_t)map.out[0] * map.out[1] * map.out[2];
    dmlops_operator *op = NULL;
    dmlops_buffer *out = dmt_buffer(ctx, count * 4, NULL);
    if (CHECK_OK(dmlops_operator_create(ctx, &desc, &op)) && out) {
        dmlops_binding bi = {in, 0, (uint64_t)B * N * M * 4}, bo = {out, 0, count * 4};
        dmlops_operator_info info;
        if (CHECK_OK(dmlops_operator_execute(op, 1, &bi, 1, &bo))) check_elements(out, count, 4, want_slice, &map);
        CHECK_OK(dmlops_operator_get_info(op, &info));
        printf("    slice to %llu MiB, path %s\n", (unsigned long long)(count * 4 >> 20), dmlops_path_name(info.last_path));
        CHECK(info.last_path == expect, "path %s, expected %s", dmlops_path_name(info.last_path), dmlops_path_name(expect));
    }
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(out);
}

TEST(slices_of_320_mib)
{
    dmlops_context *ctx = big_ctx();
    if (!ctx) return;
    dmlops_buffer *in = index_buffer(ctx, (uint64_t)B * N * M, 4);
    if (in) {
        /* Backwards over batches, every other row, every third column: a kernel. */
        slice_case(ctx, in, (const uint32_t[]){3, 1, 2}, (const uint32_t[]){B - 3, N - 1, M - 2},
                   (const int32_t[]){-1, 2, 3}, DMLOPS_PATH_KERNEL);
        /* Long contiguous rows: copy regions on CPU devices, a kernel on GPUs, where
         * regions measured slower at every length (docs/performance.md). */
        dmlops_context_info ci;
        const bool cpu = CHECK_OK(dmlops_context_get_info(ctx, &ci)) && ci.device.type == DMLOPS_DEVICE_TYPE_CPU;
        slice_case(ctx, in, (const uint32_t[]){0, 5, 0}, (const uint32_t[]){B, N - 10, M},
                   (const int32_t[]){1, 1, 1}, cpu ? DMLOPS_PATH_COPY_REGIONS : DMLOPS_PATH_KERNEL);
    }
    dmlops_buffer_destroy(in);
    dmlops_context_destroy(ctx);
}

/* ---- 1-D: an axis longer than any window ---- */
static uint64_t want_reverse1(uint64_t i, const void *user)
{
    uint64_t L = *(const uint64_t *)user;
    return i < L ? L - 1 - i : i;
}

TEST(reverse_1d_axis_longer_than_a_window)
{
    dmlops_context *ctx = big_ctx();
    if (!ctx) return;
    const uint32_t n = (1u << 25) + 3, one = 1; /* 256 MiB of UINT64 */
    uint64_t L = n - 5, lengths[2] = {n - 5};
    dmt_tensor ti, tl, to;
    tensor(&ti, DML_TENSOR_DATA_TYPE_UINT64, 1, &n, NULL);
    tensor(&tl, DML_TENSOR_DATA_TYPE_UINT64, 1, &one, NULL);
    tensor(&to, DML_TENSOR_DATA_TYPE_UINT64, 1, &n, NULL);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rd = {&ti.desc, &tl.desc, &to.desc, 0};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_REVERSE_SUBSEQUENCES, &rd};
    dmlops_operator *op = NULL;
    dmlops_buffer *in = index_buffer(ctx, n, 8), *len = dmt_buffer(ctx, 16, lengths), *out = dmt_buffer(ctx, (uint64_t)n * 8, NULL);
    if (CHECK_OK(dmlops_operator_create(ctx, &desc, &op)) && in && len && out) {
        dmlops_binding bi[2] = {{in, 0, (uint64_t)n * 8}, {len, 0, 16}}, bo = {out, 0, (uint64_t)n * 8};
        if (CHECK_OK(dmlops_operator_execute(op, 2, bi, 1, &bo))) check_elements(out, n, 8, want_reverse1, &L);
    }
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(in);
    dmlops_buffer_destroy(len);
    dmlops_buffer_destroy(out);
    dmlops_context_destroy(ctx);
}

static uint64_t want_hot(uint64_t i, const void *user)
{
    (void)user;
    return i == 12345 ? 0x0a : 0x5f; /* UINT8 On and Off */
}

TEST(one_hot_1d_of_2_pow_25_bytes)
{
    dmlops_context *ctx = big_ctx();
    if (!ctx) return;
    const uint32_t n = (1u << 25) + 1, one = 1, two = 2;
    const int64_t index[2] = {-(int64_t)n + 12345};
    const uint8_t values[16] = {0x5f, 0x0a};
    dmt_tensor tx, tv, to;
    tensor(&tx, DML_TENSOR_DATA_TYPE_INT64, 1, &one, NULL);
    tensor(&tv, DML_TENSOR_DATA_TYPE_UINT8, 1, &two, NULL);
    tensor(&to, DML_TENSOR_DATA_TYPE_UINT8, 1, &n, NULL);
    DML_ONE_HOT_OPERATOR_DESC hd = {&tx.desc, &tv.desc, &to.desc, 0};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_ONE_HOT, &hd};
    dmlops_operator *op = NULL;
    uint64_t bytes = to.buf.TotalTensorSizeInBytes;
    dmlops_buffer *x = dmt_buffer(ctx, 16, index), *v = dmt_buffer(ctx, 16, values), *out = dmt_buffer(ctx, bytes, NULL);
    if (CHECK_OK(dmlops_operator_create(ctx, &desc, &op)) && x && v && out) {
        dmlops_binding bi[2] = {{x, 0, 16}, {v, 0, 16}}, bo = {out, 0, bytes};
        if (CHECK_OK(dmlops_operator_execute(op, 2, bi, 1, &bo))) {
            uint8_t *got = malloc(n);
            if (got && CHECK_OK(dmlops_buffer_read(out, 0, got, n)))
                for (uint32_t i = 0; i < n; i++)
                    if (!CHECK(got[i] == want_hot(i, NULL), "element %u = 0x%02x", i, got[i])) break;
            free(got);
        }
    }
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(x);
    dmlops_buffer_destroy(v);
    dmlops_buffer_destroy(out);
    dmlops_context_destroy(ctx);
}

/* ---- beyond the device's largest allocation (2 GiB on lavapipe) ---- */
enum { G_ROWS = 600, G_COLS = 1u << 20 }; /* 600 Mi UINT32 elements: 2.34 GiB */

static uint64_t want_gather(uint64_t i, const void *user)
{
    const uint32_t *cols = user; /* output columns, stride 2 from column 1, rows reversed */
    uint64_t r = i / *cols, c = i % *cols;
    return (uint64_t)(G_ROWS - 1 - r) * G_COLS + 1 + 2 * c;
}

static uint64_t want_rows_reversed(uint64_t i, const void *user)
{
    (void)user;
    uint64_t r = i / G_COLS, c = i % G_COLS;
    return (uint64_t)(G_ROWS - 1 - r) * G_COLS + c;
}

TEST(tensors_beyond_one_allocation)
{
    dmlops_context *ctx = big_ctx();
    if (!ctx) return;
    dmlops_context_info info;
    CHECK_OK(dmlops_context_get_info(ctx, &info));
    const uint64_t count = (uint64_t)G_ROWS * G_COLS, bytes = count * 4;
    const dmlops_device_info *d = &info.device;
    if (d->type != DMLOPS_DEVICE_TYPE_CPU && d->unified_memory && d->memory_heap_count == 1 &&
        bytes > d->memory_heap_size[0]) {
        /* A unified-memory GPU (a Raspberry Pi's 1 GiB heap) has no room for it: refused
         * before any allocation. */
        dmlops_buffer *b = NULL;
        CHECK_STATUS(dmlops_buffer_create(ctx, bytes, &b), DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY, "one heap of");
        printf("    note: %s has one %llu-byte heap: the %.2f GiB tensor is refused\n", d->name,
               (unsigned long long)d->memory_heap_size[0], (double)bytes / (1 << 30));
        dmlops_buffer_destroy(b);
        dmlops_context_destroy(ctx);
        return;
    }
    if (bytes <= info.device.max_memory_allocation_size) {
        printf("    note: %s allocates %llu bytes at once; the test needs more than that to mean anything\n",
               info.device.name, (unsigned long long)info.device.max_memory_allocation_size);
    }
    dmlops_buffer *in = index_buffer(ctx, count, 4);
    REQUIRE(in);
    const uint32_t sizes[2] = {G_ROWS, G_COLS}, off[2] = {0, 1}, win[2] = {G_ROWS, G_COLS - 1};
    const int32_t str[2] = {-1, 2};
    uint32_t out_cols = 1 + (win[1] - 1) / 2, out_sizes[2] = {G_ROWS, out_cols};
    dmt_tensor ti, to;
    dmt_tensor_init(&ti, DML_TENSOR_DATA_TYPE_UINT32, 2, sizes, NULL, 0);
    /* A kernel: rows backwards, every other column. */
    dmt_tensor_init(&to, DML_TENSOR_DATA_TYPE_UINT32, 2, out_sizes, NULL, 0);
    DML_SLICE1_OPERATOR_DESC sd = {&ti.desc, &to.desc, 2, off, win, str};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &sd};
    dmlops_operator *op = NULL;
    dmlops_buffer *out = dmt_buffer(ctx, to.buf.TotalTensorSizeInBytes, NULL);
    if (out && CHECK_OK(dmlops_operator_create(ctx, &desc, &op))) {
        dmlops_binding bi = {in, 0, bytes}, bo = {out, 0, to.buf.TotalTensorSizeInBytes};
        if (CHECK_OK(dmlops_operator_execute(op, 1, &bi, 1, &bo)))
            check_elements(out, (uint64_t)G_ROWS * out_cols, 4, want_gather, &out_cols);
    }
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(out);
    /* Whole rows in reverse order, into another 2.34 GiB buffer: copy regions on CPU
     * devices, a kernel (in windows below 2 GiB) on GPUs. */
    const uint32_t off0[2] = {0, 0}, win0[2] = {G_ROWS, G_COLS};
    const int32_t str0[2] = {-1, 1};
    dmt_tensor_init(&to, DML_TENSOR_DATA_TYPE_UINT32, 2, sizes, NULL, 0);
    DML_SLICE1_OPERATOR_DESC rd = {&ti.desc, &to.desc, 2, off0, win0, str0};
    desc.Desc = &rd;
    op = NULL;
    out = dmt_buffer(ctx, bytes, NULL);
    if (out && CHECK_OK(dmlops_operator_create(ctx, &desc, &op))) {
        dmlops_binding bi = {in, 0, bytes}, bo = {out, 0, bytes};
        dmlops_operator_info oi;
        if (CHECK_OK(dmlops_operator_execute(op, 1, &bi, 1, &bo))) check_elements(out, count, 4, want_rows_reversed, NULL);
        CHECK_OK(dmlops_operator_get_info(op, &oi));
        printf("    2 x %.2f GiB: path %s\n", (double)bytes / (1 << 30), dmlops_path_name(oi.last_path));
    }
    dmlops_operator_destroy(op);
    dmlops_buffer_destroy(out);
    dmlops_buffer_destroy(in);
    dmlops_context_destroy(ctx);
}
