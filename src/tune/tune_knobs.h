/* The knobs the tuner searches (docs/performance.md, "The tuner"): the Vulkan tuning values
 * that the DMLOPS_VK_* variables set in dm_vk_params, each with the values it tries. Every
 * value of every knob gives the same results (docs/api.md), so every configuration is exact.
 * The table in tune_knobs.c is the one place that names them: when the kernel work adds or
 * retires a knob, adapting the tuner is an edit of that table. Its fingerprint goes into
 * tuning files, so that a file written under another table is refused, never misread. */
#ifndef DM_TUNE_KNOBS_H
#define DM_TUNE_KNOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../internal.h"

#define DM_TUNE_MAX_KNOBS 12
#define DM_TUNE_MAX_VALUES 8

typedef struct dm_tune_knob {
    const char *name;   /* as in its variable: "WORKGROUP" for DMLOPS_VK_WORKGROUP */
    int64_t unset;      /* the value that leaves the knob to the device class ("auto") */
    int64_t lo, hi;     /* the values a configuration may hold besides unset, as the variable takes them */
    bool pow2;          /*   ... powers of two only */
    const char *const *words; /* names of the values lo..hi ("gpu", "cpu"), NULL: decimal numbers */
    int64_t tries[DM_TUNE_MAX_VALUES]; /* what the tuner tries besides the default */
    uint32_t ntries;
    int64_t (*get)(const dm_vk_params *p);
    void (*set)(dm_vk_params *p, int64_t v);
} dm_tune_knob;

/* A configuration: a value per knob of the table, in its order. */
typedef struct dm_tune_config {
    int64_t v[DM_TUNE_MAX_KNOBS];
} dm_tune_config;

const dm_tune_knob *dm_tune_knobs(uint32_t *count);
/* FNV-1a of the table's names, unset values and ranges: what a configuration means. */
uint64_t dm_tune_knobs_fingerprint(void);
/* Whether v is a value knob k may hold: unset, or in its range. */
bool dm_tune_value_valid(const dm_tune_knob *k, int64_t v);
/* The knobs' values in p, and p with c's values. */
void dm_tune_config_of(const dm_vk_params *p, dm_tune_config *c);
void dm_tune_config_apply(const dm_tune_config *c, dm_vk_params *p);
bool dm_tune_config_equal(const dm_tune_config *a, const dm_tune_config *b);
/* "NAME=value" per knob, space-separated: every knob, or with base only those whose value
 * differs from base's ("" when none does). Values as dm_tune_value_format writes them. */
void dm_tune_config_format(const dm_tune_config *c, const dm_tune_config *base, char *buf, size_t size);
/* A value as text ("auto", a word, or decimal), and back: false unless the text is one
 * dm_tune_value_format writes for a valid value. */
void dm_tune_value_format(const dm_tune_knob *k, int64_t v, char *buf, size_t size);
bool dm_tune_value_parse(const dm_tune_knob *k, const char *text, size_t len, int64_t *v);

#endif
