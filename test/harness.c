#include "harness.h"

#include <stdarg.h>
#include <stdlib.h>

typedef struct dmt_test {
    const char *name;
    dmt_plain_fn plain;
    dmt_ctx_fn with_ctx;
} dmt_test;

static dmt_test dmt_tests[512];
static int dmt_count;
static int dmt_current_failures;
static const char *dmt_current_backend = "none";

void dmt_register(const char *name, dmt_plain_fn plain, dmt_ctx_fn with_ctx)
{
    if (dmt_count < (int)(sizeof dmt_tests / sizeof dmt_tests[0]))
        dmt_tests[dmt_count++] = (dmt_test){name, plain, with_ctx};
}

bool dmt_backend_wanted(const char *backend)
{
    const char *want = getenv("DMLOPS_TEST_BACKENDS");
    return !want || strstr(want, backend) != NULL;
}

int dmt_cases(int default_cases)
{
    const char *s = getenv("DMT_CASES_PERCENT");
    const unsigned long percent = s && *s ? strtoul(s, NULL, 10) : 100;
    if (percent >= 100 || default_cases <= 0) return default_cases;
    return (int)((unsigned long)default_cases * percent / 100) + 1;
}

void dmt_env_set(dmt_env *e, const char *name, const char *value)
{
    const char *now = getenv(name);
    e->name = name;
    e->had = now != NULL;
    e->kept = now ? strdup(now) : NULL;
    if (value) setenv(name, value, 1);
}

void dmt_env_restore(dmt_env *e)
{
    if (e->had && e->kept) setenv(e->name, e->kept, 1);
    else if (!e->had) unsetenv(e->name);
    free(e->kept);
}

bool dmt_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    if (dmt_current_failures++ < 10) {
        fprintf(stdout, "    %s:%d: ", file, line);
        va_start(ap, fmt);
        vfprintf(stdout, fmt, ap);
        va_end(ap);
        fputc('\n', stdout);
    }
    return false;
}

bool dmt_check_status(dmlops_status got, dmlops_status expected, const char *substr, const char *expr,
                      const char *file, int line)
{
    const char *msg = dmlops_last_error_message();
    if (got != expected)
        return dmt_fail(file, line, "%s returned %s, expected %s (message: %s)", expr, dmlops_status_string(got),
                        dmlops_status_string(expected), got ? msg : "");
    if (substr && !strstr(msg, substr))
        return dmt_fail(file, line, "%s: message \"%s\" lacks \"%s\"", expr, msg, substr);
    return true;
}

const char *dmt_backend_name(void) { return dmt_current_backend; }
bool dmt_is_vulkan(void) { return !strcmp(dmt_current_backend, "vulkan"); }

void dmt_tensor_init(dmt_tensor *t, DML_TENSOR_DATA_TYPE type, uint32_t rank, const uint32_t *sizes,
                     const uint32_t *strides, uint64_t total)
{
    memset(t, 0, sizeof *t);
    memcpy(t->sizes, sizes, rank * sizeof *sizes);
    if (strides) memcpy(t->strides, strides, rank * sizeof *strides);
    t->buf.DataType = type;
    t->buf.DimensionCount = rank;
    t->buf.Sizes = t->sizes;
    t->buf.Strides = strides ? t->strides : NULL;
    t->buf.TotalTensorSizeInBytes = total ? total : dmlops_calc_buffer_tensor_size(type, rank, sizes, strides);
    t->desc.Type = DML_TENSOR_TYPE_BUFFER;
    t->desc.Desc = &t->buf;
}

dmlops_buffer *dmt_buffer(dmlops_context *ctx, uint64_t size, const void *data)
{
    dmlops_buffer *b = NULL;
    if (!CHECK_OK(dmlops_buffer_create(ctx, size, &b))) return NULL;
    if (data) CHECK_OK(dmlops_buffer_write(b, 0, data, size));
    return b;
}

uint64_t dmt_next(dmt_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1DULL;
}

uint32_t dmt_below(dmt_rng *r, uint32_t n) { return n ? (uint32_t)(dmt_next(r) % n) : 0; }

static int dmt_passed, dmt_failed;

static void dmt_report(const char *name, const char *backend, double seconds)
{
    if (dmt_current_failures) {
        dmt_failed++;
        printf("FAIL %s%s%s%s (%d failures)\n", name, backend ? "[" : "", backend ? backend : "", backend ? "]" : "",
               dmt_current_failures);
    } else {
        dmt_passed++;
        printf("ok   %s%s%s%s (%.2fs)\n", name, backend ? "[" : "", backend ? backend : "", backend ? "]" : "",
               seconds);
    }
    fflush(stdout);
}

#include <time.h>
#include <unistd.h>
static double dmt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
/* The Vulkan loader unloads the driver when the last instance goes, so LeakSanitizer
 * cannot name the module of the driver's own one-time allocations and its suppressions
 * (test/lsan.supp) cannot match them. Keeping the driver mapped makes them attributable. */
static void dmt_pin_driver(void)
{
    static const char *const drivers[] = {"libvulkan_lvp.so", "libvulkan_intel.so", "libvulkan_radeon.so"};
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) dlopen(drivers[i], RTLD_NOW | RTLD_NODELETE);
}
#else
static void dmt_pin_driver(void) {}
#endif

/* Destroys a DEBUG context with stderr captured, and returns how many validation messages
 * the library printed meanwhile (echoing them). Objects still alive at vkDestroyDevice are
 * reported then, after dmlops_context_get_info can no longer count them. */
unsigned dmt_destroy_counting_messages(dmlops_context *ctx)
{
    FILE *tmp = tmpfile();
    int saved = tmp ? dup(2) : -1;
    fflush(stderr);
    if (saved >= 0) dup2(fileno(tmp), 2);
    dmlops_context_destroy(ctx);
    fflush(stderr);
    unsigned n = 0;
    if (saved < 0) return tmp ? (fclose(tmp), 0) : 0;
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    char line[4096];
    while (fgets(line, sizeof line, tmp))
        if (strstr(line, "dmlops: Vulkan validation:")) {
            n++;
            printf("     | %s", line);
        }
    fclose(tmp);
    return n;
}

/* Whether a test runs under filter: a comma-separated list of name substrings, those
 * starting with '-' excluding (the profile suites skip a suite's slowest tests that way);
 * with no including item, every test not excluded runs. */
static bool dmt_selected(const char *filter, const char *name)
{
    bool include = false, included = false;
    for (const char *p = filter; p && *p;) {
        size_t n = strcspn(p, ",");
        const bool exclude = *p == '-';
        char item[128];
        snprintf(item, sizeof item, "%.*s", (int)(n - exclude), p + exclude);
        if (exclude && item[0] && strstr(name, item)) return false;
        if (!exclude) {
            include = true;
            included |= strstr(name, item) != NULL;
        }
        p += n + (p[n] == ',');
    }
    return !include || included;
}

/* Filters: DMT_FILTER (or the first argument), see dmt_selected; DMLOPS_TEST_BACKENDS=cpu,vulkan. */
int main(int argc, char **argv)
{
    dmt_pin_driver();
    const char *filter = argc > 1 ? argv[1] : getenv("DMT_FILTER");
    const char *names[2] = {"cpu", "vulkan"};
    dmlops_context *ctxs[2] = {NULL, NULL};
    bool need_ctx = false;
    for (int i = 0; i < dmt_count; i++) need_ctx |= dmt_tests[i].with_ctx != NULL;
    for (int b = 0; b < 2 && need_ctx; b++) {
        if (!dmt_backend_wanted(names[b])) continue;
        dmlops_context_desc d = {.backend = b ? DMLOPS_BACKEND_VULKAN : DMLOPS_BACKEND_CPU,
                                 .flags = b ? DMLOPS_CONTEXT_FLAG_DEBUG : 0};
        dmlops_status st = dmlops_context_create(&d, &ctxs[b]);
        if (st == DMLOPS_ERROR_UNSUPPORTED && d.flags) {
            /* No validation layer on this machine (a lent GPU machine has none unless it
             * is carried): the suites still run, unvalidated, and say so. */
            printf("note: vulkan context without validation (%s)\n", dmlops_last_error_message());
            d.flags = 0;
            st = dmlops_context_create(&d, &ctxs[b]);
        }
        if (st != DMLOPS_SUCCESS) {
            printf("note: no %s context (%s: %s)\n", names[b], dmlops_status_string(st), dmlops_last_error_message());
            if (b == 1 && getenv("DMLOPS_TEST_REQUIRE_VULKAN")) {
                printf("FAIL vulkan context required\n");
                dmt_failed++;
            }
            ctxs[b] = NULL;
        }
    }
    for (int i = 0; i < dmt_count; i++) {
        const dmt_test *t = &dmt_tests[i];
        if (!dmt_selected(filter, t->name)) continue;
        if (t->plain) {
            dmt_current_failures = 0;
            dmt_current_backend = "none";
            double t0 = dmt_now();
            t->plain();
            dmt_report(t->name, NULL, dmt_now() - t0);
            continue;
        }
        for (int b = 0; b < 2; b++) {
            if (!ctxs[b]) continue;
            dmt_current_failures = 0;
            dmt_current_backend = names[b];
            double t0 = dmt_now();
            t->with_ctx(ctxs[b]);
            dmt_report(t->name, names[b], dmt_now() - t0);
        }
    }
    if (ctxs[1]) {
        /* The validation layer must have stayed silent through the whole run. */
        dmlops_context_info info;
        dmt_current_failures = 0;
        dmt_current_backend = "vulkan";
        if (CHECK_OK(dmlops_context_get_info(ctxs[1], &info)))
            CHECK(info.debug_message_count == 0, "validation layer reported %u messages", info.debug_message_count);
        dmt_report("validation_layer_silent", "vulkan", 0);
    }
    dmlops_context_destroy(ctxs[0]);
    if (ctxs[1]) { /* leaks surface as messages while the device is destroyed */
        dmt_current_failures = 0;
        dmt_current_backend = "vulkan";
        unsigned n = dmt_destroy_counting_messages(ctxs[1]);
        CHECK(n == 0, "the validation layer reported %u messages during dmlops_context_destroy", n);
        dmt_report("validation_layer_silent_at_destroy", "vulkan", 0);
    }
    printf("%d passed, %d failed\n", dmt_passed, dmt_failed);
    return dmt_failed ? 1 : 0;
}
