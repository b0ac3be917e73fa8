/* Tuning (issue 49; docs/api.md, "Tuning"), as the front end sees it: what a context is
 * asked for, from dmlops_tuning_options and the environment (tuning.c), and the two entries
 * of the Vulkan backend that do it (src/vk/vk_tune.c). The tuner itself, its knobs and its
 * file are src/tune/ and src/vk/vk_tune*.c. */
#ifndef DM_TUNING_H
#define DM_TUNING_H

#include "internal.h"

/* What a context was asked for, resolved: OFF, FILE or AUTO. */
typedef struct dm_tune_settings {
    dmlops_tuning_mode mode;
    const char *path;            /* the tuning file; NULL: none */
    double budget_s;             /* AUTO: all classes together, and */
    double class_budget_s;       /*   one class */
} dm_tune_settings;

/* Sets up tuning on a context as opts asks (NULL: the environment alone: DMLOPS_TUNING,
 * DMLOPS_TUNING_FILE, DMLOPS_TUNING_BUDGET, DMLOPS_TUNING_CLASS_BUDGET), replacing any
 * earlier set-up, and says what it did at the end of the context's note ("; tuning: ...").
 * Context creation calls it; an options struct that breaks a rule is INVALID_ARGUMENT
 * naming the field, with no effect. A tuning file that is missing, foreign, stale or
 * damaged is noted and not used. */
dmlops_status dm_tuning_apply_options(dmlops_context *ctx, const dmlops_tuning_options *opts);

/* vk_tune.c: the same on a Vulkan context, the note's text into note; and what a Vulkan
 * operator runs with. */
dmlops_status dm_vk_tune_configure(dmlops_context *ctx, const dm_tune_settings *s, char *note, size_t size);
void dm_vk_operator_tuning(const dmlops_operator *op, dmlops_operator_tuning *out);

#endif
