/* Tuning in a Vulkan context (vk_tune.h): the tuning file checked against this device,
 * driver and build, the class of each operator, and the limits of its configuration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "vk_record.h" /* dm_vk_op: what an operator runs with */
#include "vk_tune.h"
#include "../fault.h"

double dm_vk_tune_now(void) { return (double)dm_now_ns() * 1e-9; }

uint64_t dm_vk_tune_kernels_fingerprint(void)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const dm_spirv *m = &dm_kernels[0][0][0][0];
    for (size_t i = 0; i < sizeof dm_kernels / sizeof *m; i++) {
        h = (h ^ (uint64_t)m[i].size) * 0x100000001b3ull;
        for (size_t w = 0; w < m[i].size / 4; w++) h = (h ^ m[i].code[w]) * 0x100000001b3ull;
    }
    return h;
}

/* floor(log2(v)) rounded down to an even number: powers of four. */
static unsigned dm_log4_floor(uint64_t v)
{
    unsigned l = 0;
    while (v >> (l + 1)) l++;
    return l & ~1u;
}

void dm_vk_tune_class(const dm_gather *g, char key[DM_TUNE_KEY_MAX])
{
    /* What decides a configuration's speed: the kernel and the fast path its layout takes
     * (the work per element), the element size (the units the kernel moves), the row's
     * length (how work is shaped: the flat walks, wide units, copy regions), and the size
     * (how many workgroups, and whether it fits a cache). Powers of four keep the classes
     * few: the standard suite's sizes, 4 KiB to 256 MiB, are one class each. The storage
     * path without tiles names the layout, whatever this device's defaults take. */
    static const char *const names[DM_KERNEL_COUNT] = {"slice", "reverse", "one_hot"};
    const uint64_t row = g->rank ? (uint64_t)g->size[g->rank - 1] * g->esize : g->esize;
    const uint64_t out = dm_gather_elements(g) * g->esize;
    dm_gather plain = *g;
    plain.tile_lds = 0;
    plain.rows_cut = false;
    /* Rows that may become copy regions (COPY_MIN decides) are another class than rows of
     * the same path that never can: SLICE1's columns taken forwards, and reversed. */
    const bool copies = g->slabs && dm_gather_rows_contiguous(g);
    snprintf(key, DM_TUNE_KEY_MAX, "%s.v%u%s.e%u.row2^%u.out2^%u",
             (unsigned)g->kernel < DM_KERNEL_COUNT ? names[g->kernel] : "kernel", dm_kernel_variant(&plain, false),
             copies ? ".copy" : "", g->esize, dm_log4_floor(row ? row : 1), dm_log4_floor(out ? out : 1));
}

void dm_vk_tune_config_limits(const dm_vk_ctx *vk, const dm_tune_config *c, dm_vk_limits *lim)
{
    dm_vk_params p = vk->params;
    dm_tune_config_apply(c, &p);
    dm_vk_limits_for(&vk->dev.inst.vki, vk->dev.phys, &vk->dev.info, &p, vk->dev.lim.flags, lim);
}

static void dm_vk_identity(const dm_vk_device *d, dm_tune_identity *id)
{
    memset(id, 0, sizeof *id);
    snprintf(id->library, sizeof id->library, "%s", dmlops_version_string());
    id->knobs = dm_tune_knobs_fingerprint();
    id->kernels = dm_vk_tune_kernels_fingerprint();
    id->vendor_id = d->info.vendor_id;
    id->device_id = d->info.device_id;
    id->driver_version = d->info.driver_version;
    memcpy(id->uuid, d->info.uuid, 16);
    snprintf(id->device_name, sizeof id->device_name, "%.127s", d->info.name);
}

/* Why a file made for `got` does not serve `want` (into why); false when it does. A file
 * for another device or driver may be someone's and is never overwritten (*theirs); one
 * from another build of the library for this device is only stale. */
static bool dm_vk_foreign(const dm_tune_identity *got, const dm_tune_identity *want, bool *theirs, char *why, size_t size)
{
    *theirs = true;
    if (got->vendor_id != want->vendor_id || got->device_id != want->device_id ||
        memcmp(got->uuid, want->uuid, 16) != 0) {
        snprintf(why, size, "made for another device (%.40s, vendor 0x%x, device 0x%x)", got->device_name,
                 got->vendor_id, got->device_id);
        return true;
    }
    if (got->driver_version != want->driver_version) {
        snprintf(why, size, "made under driver version 0x%x, this is 0x%x", got->driver_version, want->driver_version);
        return true;
    }
    *theirs = false;
    if (strcmp(got->library, want->library) != 0) {
        snprintf(why, size, "stale: written by libdmlops %s, this is %s", got->library, want->library);
        return true;
    }
    if (got->knobs != want->knobs) {
        snprintf(why, size, "stale: written for other tuning knobs");
        return true;
    }
    if (got->kernels != want->kernels) {
        snprintf(why, size, "stale: written for other kernels (another build of libdmlops %s)", want->library);
        return true;
    }
    return false;
}

void dm_vk_tune_destroy(dm_vk_tuner *t)
{
    if (!t) return;
    dm_mutex_destroy(&t->lock);
    dm_tune_file_free(&t->table);
    free(t->path);
    free(t);
}

dmlops_status dm_vk_tune_setup(dm_vk_ctx *vk, const dm_tune_settings *s, char *note, size_t size)
{
    dm_vk_tune_destroy(vk->tuner);
    vk->tuner = NULL;
    snprintf(note, size, "tuning: off");
    if (s->mode == DMLOPS_TUNING_MODE_OFF) return DMLOPS_SUCCESS;
    if (vk->dev.lim.flags & DMLOPS_CONTEXT_FLAG_TRACE_ACCESSES) {
        snprintf(note, size, "tuning: off (a tracing context runs the defaults the access model describes)");
        return DMLOPS_SUCCESS;
    }
    if (s->mode == DMLOPS_TUNING_MODE_FILE && !s->path) {
        snprintf(note, size, "tuning: off (file mode, but no file named: DMLOPS_TUNING_FILE)");
        return DMLOPS_SUCCESS;
    }
    dm_vk_tuner *t = dm_calloc(1, sizeof *t);
    if (!t) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory setting up tuning");
    if (!dm_mutex_init(&t->lock)) {
        free(t);
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory creating a mutex");
    }
    t->set = *s;
    t->budget_left_s = s->budget_s;
    if (s->path && !(t->path = dm_strdup(s->path))) {
        dm_vk_tune_destroy(t);
        return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory setting up tuning");
    }
    t->set.path = t->path;
    dm_vk_identity(&vk->dev, &t->id);
    dm_tune_config_of(&vk->params, &t->defaults);

    /* The file: used when it is this device's and build's; else noted, and in AUTO mode
     * replaced only when it is absent or this device's (stale), never when it may be
     * another device's or no tuning file at all. */
    char why[200] = "", shown[112];
    bool missing = false, theirs = true, used = false;
    if (t->path) {
        snprintf(shown, sizeof shown, "%.100s%s", t->path, strlen(t->path) > 100 ? "..." : "");
        dm_tune_file f;
        char err[160];
        if (!dm_tune_file_load(t->path, &f, &missing, err, sizeof err)) {
            snprintf(why, sizeof why, "%s", err);
        } else if (!dm_vk_foreign(&f.id, &t->id, &theirs, why, sizeof why)) {
            t->table = f;
            t->from_file = f.count;
            used = true;
            f.entries = NULL;
        }
        dm_tune_file_free(&f);
        t->writable = missing || used || !theirs;
    }
    t->table.id = t->id; /* what this context writes */
    const bool autom = s->mode == DMLOPS_TUNING_MODE_AUTO;
    const int n = snprintf(note, size, "tuning: %s", autom ? "auto, " : "");
    const size_t at = n > 0 && (size_t)n < size ? (size_t)n : size;
    if (!t->path)
        snprintf(note + at, size - at, "no file: tuned classes stay in the context");
    else if (used)
        snprintf(note + at, size - at, "file \"%s\" (%u classes)", shown, t->from_file);
    else if (missing)
        snprintf(note + at, size - at, "file \"%s\" %s", shown, autom ? "(new)" : "not found: the defaults");
    else
        snprintf(note + at, size - at, "file \"%s\" ignored (%s)%s", shown, why,
                 !autom        ? ": the defaults"
                 : t->writable ? ": tuned classes will replace it"
                               : ": not overwritten; tuned classes stay in the context");
    if (autom) {
        const size_t m = strlen(note);
        snprintf(note + m, m < size ? size - m : 0, ", budget %g s (%g s a class)", s->budget_s, s->class_budget_s);
    }
    vk->tuner = t;
    return DMLOPS_SUCCESS;
}

/* Tunes the class of `key` (tuner lock held) and adds its entry; false when it could not
 * (the defaults stay, the class is tried again by a later operator while budget is left). */
static bool dm_vk_tune_class_now(dm_vk_ctx *vk, dm_vk_tuner *t, const dmlops_operator *op, const dm_gather *g,
                                 const char *key, char *why, size_t size)
{
    const double start = dm_vk_tune_now();
    const double allowed = t->budget_left_s < t->set.class_budget_s ? t->budget_left_s : t->set.class_budget_s;
    if (allowed <= 0 || !vk->tune_measure) {
        snprintf(why, size, "not tuned: the context's tuning budget (%g s) is spent", t->set.budget_s);
        return false;
    }
    dm_vk_tune_job job = {.vk = vk, .op = op, .g = g, .defaults = t->defaults, .deadline = start + allowed};
    char before[1024];
    snprintf(before, sizeof before, "%s", dmlops_last_error_message());
    const dmlops_status st = vk->tune_measure(&job);
    t->budget_left_s -= dm_vk_tune_now() - start;
    if (st != DMLOPS_SUCCESS) {
        /* The operator is created all the same, with the defaults: a class that could not
         * be measured (no memory for its buffers, a lost device) is said in the note. */
        snprintf(why, size, "not tuned: %s", dmlops_last_error_message());
        dm_set_message("%s", before);
        return false;
    }
    dm_tune_entry e = {.config = job.best, .default_ns = job.default_ns, .tuned_ns = job.tuned_ns};
    snprintf(e.key, sizeof e.key, "%s", key);
    if (!dm_tune_file_put(&t->table, &e)) {
        snprintf(why, size, "not tuned: out of host memory for the context's table");
        return false;
    }
    char err[160];
    if (t->path && t->writable && !dm_tune_file_save(t->path, &t->table, err, sizeof err))
        snprintf(why, size, "the tuning file %.80s: what was tuned stays in the context", err);
    return true;
}

dmlops_status dm_vk_tune_limits(dm_vk_ctx *vk, const dmlops_operator *op, const dm_gather *g, dm_vk_limits *lim,
                                dm_vk_tune_info *info)
{
    dm_vk_tuner *t = vk->tuner;
    memset(info, 0, sizeof *info);
    *lim = vk->dev.lim;
    dm_tune_config_of(&vk->params, &info->defaults);
    info->config = info->defaults;
    dm_vk_tune_class(g, info->key);
    if (!t) return DMLOPS_SUCCESS;
    dm_mutex_lock(&t->lock);
    const dm_tune_entry *e = dm_tune_file_find(&t->table, info->key);
    if (!e && t->set.mode == DMLOPS_TUNING_MODE_AUTO &&
        dm_vk_tune_class_now(vk, t, op, g, info->key, info->note, sizeof info->note))
        e = dm_tune_file_find(&t->table, info->key);
    if (e) {
        info->source = (uint32_t)(e - t->table.entries) < t->from_file ? DMLOPS_TUNING_SOURCE_FILE
                                                                        : DMLOPS_TUNING_SOURCE_TUNED;
        info->config = e->config;
        info->default_ns = e->default_ns;
        info->tuned_ns = e->tuned_ns;
    }
    dm_mutex_unlock(&t->lock);
    if (e && !dm_tune_config_equal(&info->config, &info->defaults)) dm_vk_tune_config_limits(vk, &info->config, lim);
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_tune_configure(dmlops_context *ctx, const dm_tune_settings *s, char *note, size_t size)
{
    return dm_vk_tune_setup(dm_vk(ctx), s, note, size);
}

void dm_vk_operator_tuning(const dmlops_operator *op, dmlops_operator_tuning *out)
{
    const dm_vk_tune_info *t = &((const dm_vk_op *)op->impl)->tune;
    out->source = t->source;
    snprintf(out->class_key, sizeof out->class_key, "%s", t->key);
    dm_tune_config_format(&t->config, &t->defaults, out->config, sizeof out->config);
    out->default_seconds = (double)t->default_ns * 1e-9;
    out->tuned_seconds = (double)t->tuned_ns * 1e-9;
    snprintf(out->note, sizeof out->note, "%s", t->note);
}
