/* Statuses that carry a message: every failure path calls dm_fail(), which stores the
 * text in a thread-local buffer read by dmlops_last_error_message(). */
#ifndef DM_STATUS_H
#define DM_STATUS_H

#include "dmlops.h"
#include "platform/compiler.h"


/* Sets the thread's message / prepends "prefix: " to it. */
void dm_set_message(const char *fmt, ...) DM_PRINTF(1, 2);
void dm_prefix_message(const char *fmt, ...) DM_PRINTF(1, 2);

/* Set the message and yield status, so callers can `return dm_fail(...)`. Macros, so that
 * static analysers see the status that comes back. */
#define dm_fail(status, ...) (dm_set_message(__VA_ARGS__), (status))
#define dm_fail_prefix(status, ...) (dm_prefix_message(__VA_ARGS__), (status))

/* st; a failure's message starts with "fn: " (once) when it does not already: the
 * runtime's calls name themselves, whichever layer failed. */
dmlops_status dm_name_call(const char *fn, dmlops_status st);

#define DM_TRY(expr)                                                                      \
    do {                                                                                  \
        dmlops_status dm_try_status_ = (expr);                                            \
        if (dm_try_status_ != DMLOPS_SUCCESS) return dm_try_status_;                      \
    } while (0)

#define DM_CHECK_ARG(ptr, fn)                                                             \
    do {                                                                                  \
        if (!(ptr)) return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, fn ": " #ptr " is NULL"); \
    } while (0)

#endif
