/* The tuner's part of a Vulkan context (issue 49; docs/api.md, "Tuning"): which class an
 * operator belongs to, the configuration each class runs with (from a tuning file, or
 * tuned on first use), and the limits that configuration gives on the context's device,
 * which the operator is planned with in place of the device's (vk_execute.c). Measuring a
 * class is vk_tune_measure.c's, reached through dm_vk_ctx.tune_measure so that this file
 * needs nothing of the layers that create and run operators. */
#ifndef DM_VK_TUNE_H
#define DM_VK_TUNE_H

#include "vk_context.h"
#include "../tune/tune_file.h"
#include "../tuning.h"

/* What an operator runs with (dmlops_operator_get_tuning). */
typedef struct dm_vk_tune_info {
    dmlops_tuning_source source;
    char key[DM_TUNE_KEY_MAX];
    dm_tune_config config;       /* with source NONE: the context's defaults */
    dm_tune_config defaults;     /* the context's defaults, which config is reported against */
    uint64_t default_ns, tuned_ns;
    char note[160];              /* why a class AUTO met was not tuned, or its file not written */
} dm_vk_tune_info;

/* One class to measure (vk_tune_measure.c): the operator whose creation asked for it and
 * its lowered gather, the context's defaults, and when to stop. The measurer sets best
 * (the defaults unless a candidate beat them by the margin) and the medians. */
typedef struct dm_vk_tune_job {
    dm_vk_ctx *vk;
    const dmlops_operator *op;
    const dm_gather *g;
    dm_tune_config defaults;
    double deadline;             /* dm_vk_tune_now() seconds */
    dm_tune_config best;
    uint64_t default_ns, tuned_ns;
    uint32_t measured;           /* distinct plans timed */
} dm_vk_tune_job;
typedef dmlops_status (*dm_vk_tune_measure_fn)(dm_vk_tune_job *job);

typedef struct dm_vk_tuner {
    dm_mutex lock;               /* the table, the file and the budget; held while a class is tuned */
    dm_tune_settings set;
    char *path;                  /* set.path's copy */
    bool writable;               /* AUTO may write the file: it was absent, or this device's */
    dm_tune_file table;          /* the classes known: the file's first, then those tuned here */
    uint32_t from_file;          /* entries [0, from_file) came from the file */
    dm_tune_identity id;         /* this device, driver and build */
    dm_tune_config defaults;     /* the context's configuration (dm_vk_ctx.params) */
    double budget_left_s;
} dm_vk_tuner;

/* Sets up tuning on a Vulkan context as s asks (replacing any earlier set-up), and writes
 * what it did for the context's note into note ("tuning: ..."). Fails only when out of
 * host memory; a tuning file that is missing, foreign, stale or damaged is noted and not used. */
dmlops_status dm_vk_tune_setup(dm_vk_ctx *vk, const dm_tune_settings *s, char *note, size_t size);
void dm_vk_tune_destroy(dm_vk_tuner *t);

/* The class key of a lowered gather: "<kernel>.v<variant>[.copy].e<element bytes>.row2^<r>.out2^<o>",
 * with the fast-path variant the planner gives its layout on storage buffers, ".copy" where
 * its rows may become copy regions, and the output row's and output's bytes rounded down
 * to powers of four. */
void dm_vk_tune_class(const dm_gather *g, char key[DM_TUNE_KEY_MAX]);

/* The limits an operator of g's class is planned with on the context (the device's when
 * tuning is off or the class has no configuration; in AUTO mode a class met for the first
 * time is tuned first, which may take up to the class budget), and what it runs with. */
dmlops_status dm_vk_tune_limits(dm_vk_ctx *vk, const dmlops_operator *op, const dm_gather *g, dm_vk_limits *lim,
                                dm_vk_tune_info *info);

/* vk_tune_measure.c: times the configurations of job's class and picks the fastest (the
 * file says how); what a Vulkan context's tune_measure points at. */
dmlops_status dm_vk_tune_measure(dm_vk_tune_job *job);
/* Testing (test_tuning.c): the seconds per execution the tuner takes a candidate to have
 * run in, from what it measured; NULL: as measured. */
extern double (*dm_vk_tune_test_hook)(const dm_tune_config *c, double seconds);

/* Monotonic seconds, the clock of budgets and deadlines (from the platform layer: the
 * front end's dm_now would tie this layer to context.c). */
double dm_vk_tune_now(void);

/* The limits configuration c gives on the context's device. */
void dm_vk_tune_config_limits(const dm_vk_ctx *vk, const dm_tune_config *c, dm_vk_limits *lim);

/* This build's kernels (FNV-1a of every module): a tuning file made for other kernels is
 * stale. */
uint64_t dm_vk_tune_kernels_fingerprint(void);

#endif
