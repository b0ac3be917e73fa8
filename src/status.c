#include "status.h"
#include "platform/platform.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { DM_MESSAGE_CAPACITY = 1024 };

static DM_THREAD_LOCAL char dm_message[DM_MESSAGE_CAPACITY];

void dm_set_message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    /* clang-analyzer 14 misreads glibc's array-typed va_list after va_start. */
    vsnprintf(dm_message, sizeof dm_message, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
}

void dm_prefix_message(const char *fmt, ...)
{
    char prefix[256], old[DM_MESSAGE_CAPACITY];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    memcpy(old, dm_message, sizeof old);
    size_t n = strlen(prefix);
    /* A message that already names the same subject keeps one prefix, not
     * "SLICE1: SLICE1: ..." (issue 10, defect 4). */
    if (!strncmp(old, prefix, n) && old[n] == ':' && old[n + 1] == ' ') return;
    if (n > sizeof dm_message - 3) n = sizeof dm_message - 3;
    memcpy(dm_message, prefix, n);
    memcpy(dm_message + n, ": ", 2);
    size_t room = sizeof dm_message - n - 3, len = strlen(old);
    memcpy(dm_message + n + 2, old, len < room ? len : room);
    dm_message[n + 2 + (len < room ? len : room)] = 0;
}

const char *dmlops_last_error_message(void) { return dm_message; }

dmlops_status dm_name_call(const char *fn, dmlops_status st)
{
    if (st == DMLOPS_SUCCESS || st == DMLOPS_NOT_READY || st == DMLOPS_TIMEOUT) return st;
    const size_t n = strlen(fn);
    if (strncmp(dm_message, fn, n) != 0 || dm_message[n] != ':') dm_prefix_message("%s", fn);
    return st;
}

const char *dmlops_status_string(dmlops_status status)
{
    switch (status) {
    case DMLOPS_SUCCESS: return "DMLOPS_SUCCESS";
    case DMLOPS_ERROR_INVALID_ARGUMENT: return "DMLOPS_ERROR_INVALID_ARGUMENT";
    case DMLOPS_ERROR_UNSUPPORTED: return "DMLOPS_ERROR_UNSUPPORTED";
    case DMLOPS_ERROR_OUT_OF_HOST_MEMORY: return "DMLOPS_ERROR_OUT_OF_HOST_MEMORY";
    case DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY: return "DMLOPS_ERROR_OUT_OF_DEVICE_MEMORY";
    case DMLOPS_ERROR_NO_DEVICE: return "DMLOPS_ERROR_NO_DEVICE";
    case DMLOPS_ERROR_DEVICE_LOST: return "DMLOPS_ERROR_DEVICE_LOST";
    case DMLOPS_ERROR_BACKEND: return "DMLOPS_ERROR_BACKEND";
    case DMLOPS_NOT_READY: return "DMLOPS_NOT_READY";
    case DMLOPS_TIMEOUT: return "DMLOPS_TIMEOUT";
    }
    return "unknown status";
}

/* "MAJOR.MINOR.PATCH", spelled from dmlops.h's macros at compile time. */
#define DM_STR_(x) #x
#define DM_STR(x) DM_STR_(x)
const char *dmlops_version_string(void)
{
    return DM_STR(DMLOPS_VERSION_MAJOR) "." DM_STR(DMLOPS_VERSION_MINOR) "." DM_STR(DMLOPS_VERSION_PATCH);
}
