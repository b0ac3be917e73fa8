/* Tuning's front end (tuning.h): a context's tuning mode, file and budgets, from
 * dmlops_tuning_options where it sets them, else from the environment, else the defaults;
 * and dmlops_operator_get_tuning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuning.h"

#define DM_TUNE_DEFAULT_BUDGET_S 30.0
#define DM_TUNE_DEFAULT_CLASS_BUDGET_S 10.0
#define DM_TUNE_MAX_BUDGET_S 1e6

/* Seconds as the variable `name` writes them ("30", "2.5"): digits with at most one
 * point, 0 to 10^6; -1 when unset, -2 when set but not that. No strtod: the decimal point
 * would follow the application's locale. */
static double dm_env_seconds(const char *name)
{
    const char *s = getenv(name);
    if (!s || !*s) return -1;
    double v = 0, scale = 0;
    for (const char *c = s; *c; c++) {
        if (*c == '.' && scale == 0) {
            scale = 1;
            continue;
        }
        if (*c < '0' || *c > '9' || c - s > 12) return -2;
        if (scale > 0) v += (*c - '0') * (scale *= 0.1);
        else v = v * 10 + (*c - '0');
    }
    return (s[0] == '.' && !s[1]) || v > DM_TUNE_MAX_BUDGET_S ? -2 : v;
}

/* Adds `NAME="value"` to a list of variables not understood. */
static void dm_reject(char *list, size_t size, const char *name)
{
    const size_t n = strlen(list);
    snprintf(list + n, size - n, "%s%s=\"%.12s\"", n ? ", " : "", name, getenv(name));
}

static dmlops_status dm_check_options(const dmlops_tuning_options *o)
{
    const char *fn = "dmlops_tuning_options";
    if (o->s_type != DMLOPS_STRUCTURE_TYPE_TUNING_OPTIONS)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s.s_type = %u is not DMLOPS_STRUCTURE_TYPE_TUNING_OPTIONS (%u)", fn,
                       (unsigned)o->s_type, (unsigned)DMLOPS_STRUCTURE_TYPE_TUNING_OPTIONS);
    if ((unsigned)o->mode > DMLOPS_TUNING_MODE_AUTO)
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s.mode = %d is not a dmlops_tuning_mode", fn, (int)o->mode);
    if (!(o->budget_seconds >= 0 && o->budget_seconds <= DM_TUNE_MAX_BUDGET_S))
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s.budget_seconds = %g is not in [0, 1e6]", fn, o->budget_seconds);
    if (!(o->class_budget_seconds >= 0 && o->class_budget_seconds <= DM_TUNE_MAX_BUDGET_S))
        return dm_fail(DMLOPS_ERROR_INVALID_ARGUMENT, "%s.class_budget_seconds = %g is not in [0, 1e6]", fn,
                       o->class_budget_seconds);
    return DMLOPS_SUCCESS;
}

/* Replaces what an earlier call wrote at the end of the note with "; " and text, cutting
 * text to what is left of the note. */
static void dm_note_tuning(dmlops_context *ctx, const char *text)
{
    char *old = strstr(ctx->note, "; tuning: ");
    if (old) *old = 0;
    const size_t n = strlen(ctx->note);
    snprintf(ctx->note + n, sizeof ctx->note - n, "; %s", text);
}

dmlops_status dm_tuning_apply_options(dmlops_context *ctx, const dmlops_tuning_options *opts)
{
    static const dmlops_tuning_options none = {.s_type = DMLOPS_STRUCTURE_TYPE_TUNING_OPTIONS};
    if (!opts) opts = &none;
    DM_TRY(dm_check_options(opts));
    char rejected[160] = "";
    dm_tune_settings s = {.mode = opts->mode, .path = opts->file && *opts->file ? opts->file : NULL,
                          .budget_s = opts->budget_seconds, .class_budget_s = opts->class_budget_seconds};
    const char *env_mode = getenv("DMLOPS_TUNING"), *env_file = getenv("DMLOPS_TUNING_FILE");
    if (s.mode == DMLOPS_TUNING_MODE_DEFAULT && env_mode && *env_mode) {
        s.mode = !dm_strcasecmp(env_mode, "off")    ? DMLOPS_TUNING_MODE_OFF
                 : !dm_strcasecmp(env_mode, "file") ? DMLOPS_TUNING_MODE_FILE
                 : !dm_strcasecmp(env_mode, "auto") ? DMLOPS_TUNING_MODE_AUTO
                                                    : DMLOPS_TUNING_MODE_DEFAULT;
        if (s.mode == DMLOPS_TUNING_MODE_DEFAULT) dm_reject(rejected, sizeof rejected, "DMLOPS_TUNING");
    }
    if (!s.path && env_file && *env_file) s.path = env_file;
    if (s.mode == DMLOPS_TUNING_MODE_DEFAULT) s.mode = s.path ? DMLOPS_TUNING_MODE_FILE : DMLOPS_TUNING_MODE_OFF;
    static const char *const budget_env[2] = {"DMLOPS_TUNING_BUDGET", "DMLOPS_TUNING_CLASS_BUDGET"};
    double *budget[2] = {&s.budget_s, &s.class_budget_s};
    static const double fallback[2] = {DM_TUNE_DEFAULT_BUDGET_S, DM_TUNE_DEFAULT_CLASS_BUDGET_S};
    for (int i = 0; i < 2; i++) {
        if (*budget[i] > 0) continue;
        const double v = dm_env_seconds(budget_env[i]);
        if (v == -2) dm_reject(rejected, sizeof rejected, budget_env[i]);
        *budget[i] = v >= 0 ? v : fallback[i];
    }
    char note[sizeof ctx->note];
    if (ctx->backend != DMLOPS_BACKEND_VULKAN)
        snprintf(note, sizeof note, "tuning: %s", s.mode == DMLOPS_TUNING_MODE_OFF ? "off" : "none on the CPU backend (no knobs)");
    else
        DM_TRY(dm_vk_tune_configure(ctx, &s, note, sizeof note));
    if (rejected[0]) {
        const size_t n = strlen(note);
        snprintf(note + n, sizeof note - n, "; ignored, not understood (docs/api.md): %s", rejected);
    }
    /* Nothing asked, nothing said: the note of a context without tuning is as it was. */
    const bool asked = opts != &none || (env_mode && *env_mode) || (env_file && *env_file) || rejected[0];
    if (asked) dm_note_tuning(ctx, note);
    return DMLOPS_SUCCESS;
}

dmlops_status dmlops_operator_get_tuning(const dmlops_operator *op, dmlops_operator_tuning *tuning)
{
    DM_CHECK_ARG(op, "dmlops_operator_get_tuning");
    DM_CHECK_ARG(tuning, "dmlops_operator_get_tuning");
    memset(tuning, 0, sizeof *tuning);
    if (op->ctx->backend == DMLOPS_BACKEND_VULKAN) dm_vk_operator_tuning(op, tuning);
    return DMLOPS_SUCCESS;
}
