/* A small test harness: TEST() registers a test, TEST_CTX() registers one that runs once
 * per backend (cpu, and vulkan when a device exists), CHECK() records a failure and goes
 * on, REQUIRE() stops the test. Each binary ends with "N passed, N failed". */
#ifndef DMT_HARNESS_H
#define DMT_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dmlops.h"

#if defined(_WIN32)
/* The few POSIX calls the tests make, from the Windows C runtime (the library itself
 * has its platform layer, src/platform/). */
#include <process.h>
#include <stdlib.h>
static inline int setenv(const char *name, const char *value, int overwrite)
{
    (void)overwrite;
    return _putenv_s(name, value);
}
static inline int unsetenv(const char *name) { return _putenv_s(name, ""); } /* "" removes it */
#define getpid _getpid
#endif
/* printf formats as the tests' C library reads them: MinGW's own printf (the Makefile
 * sets __USE_MINGW_ANSI_STDIO for the tests), which has %zu where msvcrt's has not. */
#if defined(__MINGW32__)
#define DMT_PRINTF(a, b) __attribute__((format(__MINGW_PRINTF_FORMAT, a, b)))
#else
#define DMT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#endif

typedef void (*dmt_plain_fn)(void);
typedef void (*dmt_ctx_fn)(dmlops_context *ctx);

void dmt_register(const char *name, dmt_plain_fn plain, dmt_ctx_fn with_ctx);
bool dmt_fail(const char *file, int line, const char *fmt, ...) DMT_PRINTF(3, 4);

/* An environment variable set for the next context's creation (value NULL: left as it
 * is), then put back as it was: the library reads DMLOPS_VK_* when a context is created. */
typedef struct dmt_env {
    const char *name;
    char *kept;
    bool had;
} dmt_env;
void dmt_env_set(dmt_env *e, const char *name, const char *value);
void dmt_env_restore(dmt_env *e);

/* Whether DMLOPS_TEST_BACKENDS (a list such as "cpu,vulkan"; unset: every backend) names
 * `backend`: valgrind's and the emulators' runs leave Vulkan out. */
bool dmt_backend_wanted(const char *backend);

/* How many of a test's `default_cases` random cases to run: all, or DMT_CASES_PERCENT of
 * them (at least 1) where a stage repeats make test's runs under a slower tool (the
 * sanitizers, the CMake build): every path still runs, fewer cases each. */
int dmt_cases(int default_cases);

#define TEST(name)                                                                        \
    static void name(void);                                                               \
    __attribute__((constructor)) static void dmt_reg_##name(void) { dmt_register(#name, name, NULL); } \
    static void name(void)

#define TEST_CTX(name)                                                                    \
    static void name(dmlops_context *ctx);                                                \
    __attribute__((constructor)) static void dmt_reg_##name(void) { dmt_register(#name, NULL, name); } \
    static void name(dmlops_context *ctx)

#define CHECK(cond, ...) ((cond) ? true : dmt_fail(__FILE__, __LINE__, "CHECK(" #cond ") " __VA_ARGS__))
#define REQUIRE(cond, ...)                                                                \
    do {                                                                                  \
        if (!CHECK(cond, __VA_ARGS__)) return;                                            \
    } while (0)

/* Asserts a status and, when substr is not NULL, that the message contains it. */
#define CHECK_STATUS(expr, expected, substr) dmt_check_status((expr), (expected), (substr), #expr, __FILE__, __LINE__)
bool dmt_check_status(dmlops_status got, dmlops_status expected, const char *substr, const char *expr,
                      const char *file, int line);
#define CHECK_OK(expr) CHECK_STATUS(expr, DMLOPS_SUCCESS, NULL)
#define REQUIRE_OK(expr)                                                                  \
    do {                                                                                  \
        if (!CHECK_OK(expr)) return;                                                      \
    } while (0)

/* Name of the backend the current TEST_CTX run uses: "cpu" or "vulkan". */
const char *dmt_backend_name(void);
bool dmt_is_vulkan(void);

/* A tensor desc that owns its arrays. Do not copy it after dmt_tensor_init: the DML
 * structs point into it. strides may be NULL (packed). total 0 = the minimum size. */
typedef struct dmt_tensor {
    DML_TENSOR_DESC desc;
    DML_BUFFER_TENSOR_DESC buf;
    uint32_t sizes[8], strides[8];
} dmt_tensor;
void dmt_tensor_init(dmt_tensor *t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t *sizes,
                     const uint32_t *strides, uint64_t total);

/* Destroys a DEBUG (not QUIET) context with stderr captured; returns how many validation
 * messages it printed meanwhile (leaked objects are reported at vkDestroyDevice). */
unsigned dmt_destroy_counting_messages(dmlops_context *ctx);

/* Creates a buffer of size bytes holding data (when not NULL), checked. */
dmlops_buffer *dmt_buffer(dmlops_context *ctx, uint64_t size, const void *data);

/* Deterministic PRNG (xorshift64*), seeded per test. */
typedef struct dmt_rng { uint64_t s; } dmt_rng;
uint64_t dmt_next(dmt_rng *r);
uint32_t dmt_below(dmt_rng *r, uint32_t n); /* uniform in [0, n) */

#endif
