/* The log callback (dmlops.h, dmlops_log_callback): what a context tells the application. */
#include "internal.h"

void dm_log(const dmlops_context *ctx, dmlops_log_severity severity, dmlops_log_object type, const void *object,
            const char *message)
{
    if (ctx->log.callback && severity >= ctx->log.min_severity)
        ctx->log.callback(ctx->log.user_data, severity, type, object, message);
}

dmlops_status dm_logged(dmlops_context *ctx, dmlops_log_object type, const void *object, dmlops_status st)
{
    if (st != DMLOPS_SUCCESS && st != DMLOPS_NOT_READY && st != DMLOPS_TIMEOUT)
        dm_log(ctx, DMLOPS_LOG_ERROR, type, object, dmlops_last_error_message());
    return st;
}
