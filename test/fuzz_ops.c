/* libFuzzer target (`make fuzz`): builds arbitrary operator descriptors from the input
 * bytes and validates them. Every descriptor the validator accepts runs with random data,
 * each binding in its own buffer between guard regions, and its answer is checked against
 * the naive reference of test/reference.h, byte for byte over the whole buffer: addressed
 * output elements hold the reference's values, every other byte (unaddressed elements,
 * padding, the guards, every input) is unchanged. Under AddressSanitizer and UBSan an
 * out-of-bounds access, an overflow or a crash is a bug too; refused descriptors must
 * merely be refused.
 *
 * Built twice: for the CPU backend (fuzz_ops) and, with -DFUZZ_VULKAN, for the Vulkan
 * backend (fuzz_vulkan; lavapipe in CI), where the guards also catch a kernel that writes
 * outside its binding. A mismatch prints the operator, the buffer, the first differing
 * byte, and aborts, so libFuzzer saves the input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmlops.h"
#include "reference.h"

#ifdef FUZZ_VULKAN
#define FUZZ_BACKEND DMLOPS_BACKEND_VULKAN
#else
#define FUZZ_BACKEND DMLOPS_BACKEND_CPU
#endif

/* Bytes of every tensor together above which an accepted case is not run: the reference
 * walks each element, and layouts, not sizes, are what the fuzzer explores. */
#define FUZZ_MAX_BYTES (256u << 10)
#define GUARD 256u /* guard bytes on each side; also the binding offset (any alignment <= 256) */

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint32_t take(reader *r, uint32_t bytes)
{
    uint32_t v = 0;
    for (uint32_t i = 0; i < bytes; i++) v = v << 8 | (r->n ? (r->n--, *r->p++) : 0);
    return v;
}

/* Small values most of the time, so that accepted descriptors are common and cheap. */
static uint32_t small(reader *r, uint32_t max) { return take(r, 1) % (max + 1); }

typedef struct ftensor {
    DML_BUFFER_TENSOR_DESC b;
    DML_TENSOR_DESC d;
    uint32_t sizes[8], strides[8];
} ftensor;

static const DML_TENSOR_DATA_TYPE data_types[] = {
    DML_TENSOR_DATA_TYPE_UINT8,  DML_TENSOR_DATA_TYPE_INT8,    DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_INT16,
    DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_FLOAT64, DML_TENSOR_DATA_TYPE_INT64,
};
static const DML_TENSOR_DATA_TYPE aux_types[] = {
    DML_TENSOR_DATA_TYPE_UINT32, DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_UINT64, DML_TENSOR_DATA_TYPE_INT64,
};

/* A tensor of the given shape and type, whose layout the input picks: packed (NULL
 * strides), packed with padding after some dimensions, dimensions in another order, or
 * (inputs only) broadcast along some dimensions. One mode byte in 16 instead makes the
 * whole tensor arbitrary, so the validator's refusals stay explored too. */
static void make_tensor(reader *r, ftensor *t, uint32_t rank, const uint32_t *sizes, DML_TENSOR_DATA_TYPE type,
                        bool output)
{
    uint32_t mode = take(r, 1);
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
    t->b.DataType = type;
    t->b.DimensionCount = rank;
    t->b.Strides = NULL;
    if ((mode & 0xF0) == 0xF0) { /* arbitrary */
        t->b.DataType = (DML_TENSOR_DATA_TYPE)(mode & 1 ? take(r, 1) : 1 + small(r, 10));
        t->b.Flags = (DML_TENSOR_FLAGS)(mode & 2 ? take(r, 1) : 0);
        t->b.DimensionCount = mode & 4 ? take(r, 1) % 10 : 1 + small(r, 4);
        for (uint32_t i = 0; i < 8; i++) {
            t->sizes[i] = mode & 8 ? take(r, 4) : 1 + small(r, 6);
            t->strides[i] = take(r, 1) & 1 ? take(r, 4) : small(r, 40);
        }
        t->b.Strides = take(r, 1) & 1 ? t->strides : NULL;
    } else if (mode & 0x70) { /* strided: order, padding, broadcast */
        uint32_t order[8];
        for (uint32_t i = 0; i < rank; i++) order[i] = i;
        if (mode & 0x10)
            for (uint32_t i = rank; i-- > 1;) { /* a shuffle of the dimensions' order */
                uint32_t j = small(r, 255) % (i + 1), x = order[i];
                order[i] = order[j];
                order[j] = x;
            }
        uint32_t step = 1;
        for (uint32_t k = rank; k-- > 0;) {
            uint32_t d = order[k];
            bool broadcast = !output && (mode & 0x40) && (small(r, 3) == 0);
            t->strides[d] = broadcast ? 0 : step;
            if (!broadcast) step *= t->sizes[d] + ((mode & 0x20) ? small(r, 3) : 0);
        }
        t->b.Strides = t->strides;
    }
    const uint32_t n = t->b.DimensionCount > 8 ? 8 : t->b.DimensionCount;
    uint64_t min = dmlops_calc_buffer_tensor_size(t->b.DataType, n, t->sizes, t->b.Strides);
    t->b.TotalTensorSizeInBytes = (mode & 0x0E) == 0x0E ? (uint64_t)take(r, 4) << (take(r, 1) % 40) : min + 4 * small(r, 3);
    t->b.GuaranteedBaseOffsetAlignment = mode & 0x01 ? 1u << small(r, 8) : 0;
    t->b.Sizes = t->sizes;
    t->d.Type = DML_TENSOR_TYPE_BUFFER;
    t->d.Desc = &t->b;
}

/* splitmix64: the data and the lengths or indices, from a seed taken from the input. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Writes v as an element of type t (1, 2, 4 or 8 bytes, little-endian as stored). */
static void put(uint8_t *p, uint32_t esize, int64_t v)
{
    for (uint32_t i = 0; i < esize; i++) p[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

/* Lengths and indices: mostly meaningful values (in range, 0, n, negative, just out of
 * range), sometimes raw random bits, at every addressed element. */
static void plant_aux(const ref_tensor *t, uint8_t *base, uint64_t n, uint64_t *seed)
{
    uint32_t c[8] = {0};
    do {
        uint64_t r = next(seed);
        int64_t v;
        switch (r % 6) {
        case 0: v = (int64_t)(r >> 8); break;
        case 1: v = (int64_t)n; break;
        case 2: v = -(int64_t)((r >> 8) % (n + 2)); break;
        default: v = (int64_t)((r >> 8) % (n + 1)); break;
        }
        put(base + ref_byte_offset(t, c), t->esize, v);
    } while (ref_odometer_next(t->rank, t->sizes, c));
}

/* CPU: two 4-thread contexts whose engine splits every case into 64-byte chunks (so
 * every layout also runs split across threads at arbitrary points), one of them writing
 * every output with streaming stores; the input picks. Vulkan: one context. */
static dmlops_context *ctxs[2];

/* Figures for docs/reliability.md, printed when libFuzzer exits. */
static unsigned long long n_inputs, n_refused, n_big, n_checked;
static void print_counts(void)
{
    fprintf(stderr, "fuzz: %llu descriptors: %llu refused by validation, %llu accepted and checked against the "
                    "reference, %llu accepted but over %u bytes (not run)\n",
            n_inputs, n_refused, n_checked, n_big, FUZZ_MAX_BYTES);
}

static void fail(const char *what, const char *op, int slot, uint64_t at, uint8_t got, uint8_t want)
{
    fprintf(stderr, "fuzz: %s %s: binding %d, byte %lld (from the binding's start): got 0x%02x, want 0x%02x\n", op, what,
            slot, (long long)at - (long long)GUARD, got, want);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    ftensor t[3];
    uint32_t off[8], win[8], base[8], shape[8];
    int32_t str[8];
    memset(t, 0, sizeof t);
    /* One shape the three tensors derive from, as a model would build them. */
    const uint32_t kind = take(&r, 1) % 3, rank = 1 + small(&r, 7) % 8;
    uint32_t axis = small(&r, 8);
    if (axis < 8 && (take(&r, 1) & 7)) axis %= rank; /* mostly a valid axis */
    for (uint32_t i = 0; i < 8; i++) base[i] = 1 + (take(&r, 1) & 0x80 ? small(&r, 40) : small(&r, 5));
    const uint32_t tb = take(&r, 1);
    const DML_TENSOR_DATA_TYPE type = data_types[tb % 8], aux = aux_types[(tb >> 3) % 4];
    const uint32_t ax = axis < rank ? axis : rank - 1;
    if (kind == 0) { /* REVERSE: input, lengths (size 1 along the axis), output */
        make_tensor(&r, &t[0], rank, base, type, false);
        memcpy(shape, base, sizeof shape);
        shape[ax] = 1;
        make_tensor(&r, &t[1], rank, shape, aux, false);
        make_tensor(&r, &t[2], rank, base, type, true);
    } else if (kind == 1) { /* SLICE1: input, windows, output */
        for (uint32_t i = 0; i < 8; i++) {
            off[i] = small(&r, 255) % base[i];
            win[i] = 1 + small(&r, 255) % (base[i] - off[i]);
            str[i] = (int32_t)small(&r, 6) - 3;
            if (str[i] == 0) str[i] = take(&r, 1) & 1 ? 0 : 1;
            uint32_t a = (uint32_t)(str[i] < 0 ? -str[i] : str[i]);
            shape[i] = a ? (win[i] + a - 1) / a : 1;
        }
        if ((tb & 0xC0) == 0xC0) off[take(&r, 1) % 8] += small(&r, 3); /* sometimes past the end */
        make_tensor(&r, &t[0], rank, base, type, false);
        make_tensor(&r, &t[1], rank, shape, type, true);
    } else { /* ONE_HOT: indices (size 1 along the axis), values (two elements), output */
        memcpy(shape, base, sizeof shape);
        shape[ax] = 1;
        make_tensor(&r, &t[0], rank, shape, aux, false);
        uint32_t vals[8];
        for (uint32_t i = 0; i < 8; i++) vals[i] = 1;
        vals[(rank - 1) - small(&r, 255) % rank] = 2;
        make_tensor(&r, &t[1], rank, vals, type, false);
        make_tensor(&r, &t[2], rank, base, type, true);
    }
    uint64_t seed = take(&r, 4);
    DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC rev = {&t[0].d, &t[1].d, &t[2].d, axis};
    DML_SLICE1_OPERATOR_DESC slice = {&t[0].d, &t[1].d, t[0].b.DimensionCount, off, win, str};
    DML_ONE_HOT_OPERATOR_DESC hot = {&t[0].d, &t[1].d, &t[2].d, axis};
    DML_OPERATOR_DESC desc = {kind == 0 ? DML_OPERATOR_REVERSE_SUBSEQUENCES : kind == 1 ? DML_OPERATOR_SLICE1 : DML_OPERATOR_ONE_HOT,
                              kind == 0 ? (const void *)&rev : kind == 1 ? (const void *)&slice : (const void *)&hot};
    if (!n_inputs++) atexit(print_counts);
    if (dmlops_validate_operator(&desc, 0) != DMLOPS_SUCCESS) {
        n_refused++;
        return 0;
    }
    const char *name = kind == 0 ? "REVERSE_SUBSEQUENCES" : kind == 1 ? "SLICE1" : "ONE_HOT";
    const uint32_t n = kind == 1 ? 2 : 3;
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) total += t[i].b.TotalTensorSizeInBytes;
    if (total > FUZZ_MAX_BYTES) {
        n_big++;
        return 0;
    }
    const int which = FUZZ_BACKEND == DMLOPS_BACKEND_CPU ? (int)(seed & 1) : 0;
    dmlops_context *ctx = ctxs[which];
    if (!ctx) {
        dmlops_context_desc cd = {.backend = FUZZ_BACKEND};
        dmlops_context_options opt = {.cpu_threads = 4, .cpu_chunk_bytes = 64, .cpu_stream_bytes = which ? 1 : 0};
        if (dmlops_context_create_with_options(&cd, FUZZ_BACKEND == DMLOPS_BACKEND_CPU ? &opt : NULL, &ctx) !=
            DMLOPS_SUCCESS) {
            fprintf(stderr, "fuzz: no context: %s\n", dmlops_last_error_message());
            abort();
        }
        ctxs[which] = ctx;
    }
    dmlops_operator *op = NULL;
    if (dmlops_operator_create(ctx, &desc, &op) != DMLOPS_SUCCESS) { /* validate said yes */
        fprintf(stderr, "fuzz: %s: validated but not created: %s\n", name, dmlops_last_error_message());
        abort();
    }

    /* Host images of each buffer (guard, binding, guard), random throughout. */
    dmlops_buffer *b[3] = {NULL, NULL, NULL};
    dmlops_binding bind[3];
    uint8_t *want[3] = {NULL, NULL, NULL}, *got[3] = {NULL, NULL, NULL};
    uint64_t bytes[3];
    ref_tensor rt[3];
    for (uint32_t i = 0; i < n; i++) {
        rt[i] = ref_tensor_of(&t[i].b);
        bytes[i] = GUARD + t[i].b.TotalTensorSizeInBytes + GUARD;
        want[i] = malloc(bytes[i]);
        got[i] = malloc(bytes[i]);
        if (!want[i] || !got[i]) abort();
        for (uint64_t k = 0; k < bytes[i]; k += 8) {
            uint64_t v = next(&seed);
            memcpy(want[i] + k, &v, bytes[i] - k < 8 ? bytes[i] - k : 8);
        }
    }
    /* Lengths (REVERSE) or indices (ONE_HOT) that mean something most of the time. */
    if (kind == 0) plant_aux(&rt[1], want[1] + GUARD, rt[0].sizes[axis], &seed);
    if (kind == 2) plant_aux(&rt[0], want[0] + GUARD, rt[2].sizes[axis], &seed);
    for (uint32_t i = 0; i < n; i++) {
        if (dmlops_buffer_create(ctx, bytes[i], &b[i]) != DMLOPS_SUCCESS ||
            dmlops_buffer_write(b[i], 0, want[i], bytes[i]) != DMLOPS_SUCCESS) {
            fprintf(stderr, "fuzz: buffer of %llu bytes: %s\n", (unsigned long long)bytes[i], dmlops_last_error_message());
            abort();
        }
        bind[i] = (dmlops_binding){b[i], GUARD, t[i].b.TotalTensorSizeInBytes};
    }
    if (dmlops_operator_execute(op, n - 1, bind, 1, &bind[n - 1]) != DMLOPS_SUCCESS) {
        fprintf(stderr, "fuzz: %s: execute: %s\n", name, dmlops_last_error_message());
        abort();
    }

    uint8_t *o = want[n - 1] + GUARD;
    if (kind == 0) ref_reverse_subsequences(&rt[0], want[0] + GUARD, &rt[1], want[1] + GUARD, &rt[2], o, axis);
    if (kind == 1) ref_slice1(&rt[0], want[0] + GUARD, &rt[1], o, off, win, str);
    if (kind == 2) ref_one_hot(&rt[0], want[0] + GUARD, &rt[1], want[1] + GUARD, &rt[2], o, axis);
    for (uint32_t i = 0; i < n; i++) {
        if (dmlops_buffer_read(b[i], 0, got[i], bytes[i]) != DMLOPS_SUCCESS) abort();
        for (uint64_t k = 0; k < bytes[i]; k++)
            if (got[i][k] != want[i][k])
                fail(i == n - 1 ? "output differs from the reference" : "input was modified", name, (int)i, k, got[i][k],
                     want[i][k]);
    }
    n_checked++;
    for (uint32_t i = 0; i < n; i++) {
        dmlops_buffer_destroy(b[i]);
        free(want[i]);
        free(got[i]);
    }
    dmlops_operator_destroy(op);
    return 0;
}
