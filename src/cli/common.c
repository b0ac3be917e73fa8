#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

void cli_error(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized): analyser bug with glibc va_list
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1;
    msg[len] = '\0';
    if (len && msg[len - 1] == '\n') msg[--len] = '\0';
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f) msg[i] = ' ';
    fprintf(stderr, "%s\n", msg);
}

int cli_opt(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0') return 0;
    if (*i + 1 >= argc) {
        cli_error("dmlops: %s needs a value\n", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int cli_int_base(const char *s)
{
    if (*s == '-' || *s == '+') s++;
    return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
}

bool cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s)) return false; /* no sign, no white space strtoull would skip */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, cli_int_base(s));
    if (errno || *end) return false;
    *out = v;
    return true;
}

/* Accepts 6_4, 6.4, DML_FEATURE_LEVEL_6_4 and the numeric 0x6400; the library decides
 * which values are real levels. 0 in any spelling is refused: to the library it means
 * "the default", which a level typed out is not. */
bool cli_parse_feature_level(const char *s, DML_FEATURE_LEVEL *out)
{
    if (!strncasecmp(s, "DML_FEATURE_LEVEL_", 18)) s += 18;
    uint64_t v;
    if (!strncasecmp(s, "0x", 2)) {
        if (!cli_parse_u64(s, &v) || v == 0 || v > 0xffff) return false;
        *out = (DML_FEATURE_LEVEL)v;
        return true;
    }
    unsigned major, minor;
    char sep, extra;
    if (!isdigit((unsigned char)*s) || sscanf(s, "%u%c%u%c", &major, &sep, &minor, &extra) != 3 ||
        (sep != '_' && sep != '.') || !isdigit((unsigned char)s[strcspn(s, "_.") + 1]) || major > 15 || minor > 15 ||
        (major == 0 && minor == 0))
        return false;
    *out = (DML_FEATURE_LEVEL)(major << 12 | minor << 8);
    return true;
}

int cli_context_opt(int argc, char **argv, int *i, dmlops_context_desc *desc)
{
    const char *v;
    int r;
    if ((r = cli_opt(argc, argv, i, "--backend", &v)) != 0) {
        if (r < 0) return r;
        if (!strcasecmp(v, "auto")) {
            /* AUTO is also the library's "no preference", which $DMLOPS_BACKEND would
             * override: an explicit --backend auto must win over the environment. */
            desc->backend = DMLOPS_BACKEND_AUTO;
            unsetenv("DMLOPS_BACKEND");
        } else if (!strcasecmp(v, "vulkan")) desc->backend = DMLOPS_BACKEND_VULKAN;
        else if (!strcasecmp(v, "cpu")) desc->backend = DMLOPS_BACKEND_CPU;
        else {
            cli_error("dmlops: --backend %s: expected auto, vulkan or cpu\n", v);
            return -1;
        }
        return 1;
    }
    if ((r = cli_opt(argc, argv, i, "--device", &v)) != 0) {
        if (r > 0) desc->device = v;
        return r;
    }
    if ((r = cli_opt(argc, argv, i, "--feature-level", &v)) != 0) {
        if (r < 0) return r;
        if (!cli_parse_feature_level(v, &desc->feature_level)) {
            cli_error("dmlops: --feature-level %s: expected a level such as 6_4 or 0x6400\n", v);
            return -1;
        }
        return 1;
    }
    return 0;
}

int cli_status_exit(dmlops_status st)
{
    return st == DMLOPS_ERROR_INVALID_ARGUMENT || st == DMLOPS_ERROR_UNSUPPORTED ? CLI_USAGE : CLI_FAIL;
}

const char *cli_as_typed(const char *text, char *buf, size_t len)
{
    /* The tool sets these fields from its options only, so each names the option typed. */
    static const struct {
        const char *field, *option;
    } map[] = {
        {"dmlops_context_desc.backend = DMLOPS_BACKEND_VULKAN", "--backend vulkan"},
        {"dmlops_context_desc.backend = DMLOPS_BACKEND_CPU", "--backend cpu"},
        {"dmlops_context_desc.backend = DMLOPS_BACKEND_AUTO", "--backend auto"},
        {"dmlops_context_desc.device", "--device"},
        {"dmlops_context_desc.feature_level", "--feature-level"},
    };
    size_t n = 0;
    if (!len) return buf;
    for (const char *p = text; *p && n + 1 < len;) {
        size_t k = 0;
        while (k < sizeof map / sizeof map[0] && strncmp(p, map[k].field, strlen(map[k].field)) != 0) k++;
        const char *put = k < sizeof map / sizeof map[0] ? map[k].option : NULL;
        if (!put) {
            buf[n++] = *p++;
            continue;
        }
        for (const char *o = put; *o && n + 1 < len; o++) buf[n++] = *o;
        p += strlen(map[k].field);
    }
    buf[n] = '\0';
    return buf;
}

int cli_context_create(const dmlops_context_desc *desc, dmlops_context **ctx)
{
    dmlops_status st = dmlops_context_create(desc, ctx);
    if (st == DMLOPS_SUCCESS) return CLI_OK;
    char msg[1200];
    cli_error("dmlops: cannot create a context (%s): %s\n", dmlops_status_string(st),
              cli_as_typed(dmlops_last_error_message(), msg, sizeof msg));
    return cli_status_exit(st);
}

const char *cli_context_device_name(const dmlops_context_info *info)
{
    return info->backend == DMLOPS_BACKEND_CPU ? "CPU backend" : info->device.name;
}

void cli_driver_version(const dmlops_device_info *dev, char *buf, size_t len)
{
    uint32_t v = dev->driver_version;
    if (dev->vendor_id == 0x10de) /* NVIDIA packs 10.8.8.6 bits */
        snprintf(buf, len, "%u.%u.%u.%u", v >> 22, (v >> 14) & 0xff, (v >> 6) & 0xff, v & 0x3f);
    else
        snprintf(buf, len, "%u.%u.%u", v >> 22, (v >> 12) & 0x3ff, v & 0xfff);
}

void cli_api_version(uint32_t v, char *buf, size_t len)
{
    snprintf(buf, len, "%u.%u.%u", (v >> 22) & 0x7f, (v >> 12) & 0x3ff, v & 0xfff);
}

const char *cli_bytes(uint64_t bytes, char buf[32])
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    unsigned u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        u++;
    }
    if (u == 0) snprintf(buf, 32, "%llu B", (unsigned long long)bytes);
    else if (v == (double)(uint64_t)v) snprintf(buf, 32, "%.0f %s", v, units[u]);
    else snprintf(buf, 32, "%.1f %s", v, units[u]);
    return buf;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cli_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cli_median(double *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cli_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool cli_progress_enabled(void)
{
    return isatty(STDERR_FILENO);
}
