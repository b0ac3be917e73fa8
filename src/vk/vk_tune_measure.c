/* Measuring one class of operators (vk_tune.h's dm_vk_tune_job): the configurations of
 * the knob table (src/tune/tune_knobs.h) timed on the device, the fastest kept.
 *
 * How, steadily (docs/performance.md, "The tuner"), as the bench times a case on a GPU:
 * each candidate is the operator planned under its configuration's limits, bound to one
 * set of buffers of the operator's sizes (inputs holding a pattern, AUX values in [0, n]
 * for the axis length n, so that lengths and indices are in range), and recorded `reps`
 * times back to back in a command buffer of its own (as many as make a submission of the
 * best so far last 3 ms), between GPU timestamps (the host's clock on a device without
 * them), a barrier between records since each rewrites the output. Before anything is timed the device runs the defaults for a warm-up; each
 * candidate's first execution is not timed (a CPU device compiles at the first dispatch),
 * and its output is checked against the defaults' byte for byte: a configuration whose
 * result differs is never chosen (every knob is exact, docs/api.md; this holds the
 * library to it on the device at hand). Configurations whose commands are the same (a
 * knob that changes nothing for this layout) are timed once.
 *
 * The search goes knob by knob in the table's order (a coordinate descent from the
 * defaults): the current best and each value of the knob, timed in alternating rounds
 * (the order rotating each round; 5 rounds, up to 11 while they take under a quarter of
 * a second), medians; a value replaces the best only when its
 * median is below the best's by the margin. At the end the winner, the best after the
 * first knob and the defaults are timed again, alternating, and each is kept only when it
 * still beats the one before it by the margin: noise that favoured a knob once does not
 * make it the answer (dm_last_check). The search stops at 80% of the job's time, so that
 * this last check fits. */
#include <stdlib.h>
#include <string.h>

#include "vk_execute.h"
#include "../fault.h"

#define DM_TUNE_MARGIN 0.05       /* a candidate must be 5% faster than the best so far */
#define DM_TUNE_MIN_ROUNDS 5      /* alternating rounds per knob, at least, */
#define DM_TUNE_MAX_ROUNDS 11     /*   and at most, while they take under DM_TUNE_STEP_S */
#define DM_TUNE_STEP_S 0.25
#define DM_TUNE_MIN_LIST_S 0.003  /* one timed submission of the best so far lasts at least this long */
#define DM_TUNE_MAX_REPS 1024u
#define DM_TUNE_WARM_S 0.05       /* continuous work before the first timing */
#define DM_TUNE_RACE 2.0          /* a candidate whose fastest run is this much slower than the
                                     best's slowest is timed no further */
#define DM_TUNE_MAX_CANDS 64
#define DM_TUNE_MAX_BYTES (1ull << 30) /* the most the buffers of one measurement take */

double (*dm_vk_tune_test_hook)(const dm_tune_config *c, double seconds);

typedef struct dm_cand {
    dm_tune_config config;
    struct dm_cand *same;         /* a candidate whose commands these are too: timed as it */
    dm_vk_op *op;
    dmlops_operator shell;        /* the operator being created, with op as its device side */
    dmlops_binding_table *table;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    uint32_t recorded;            /* records in cmd; 0: not recorded yet */
    uint64_t fingerprint;         /* of what it records */
    bool bad;                     /* failed to build, run, or gave another result */
    double samples[DM_TUNE_MAX_ROUNDS]; /* this step's */
    uint32_t nsamples;
    double median;                /* of its last step */
    double lo, hi;                /* its fastest and slowest sample of every step */
    uint32_t seen;                /* samples of every step */
} dm_cand;

typedef struct dm_measure {
    dm_vk_tune_job *job;
    dm_vk_ctx *vk;
    dmlops_buffer buf[DM_MAX_BINDINGS];
    dmlops_binding bind[DM_MAX_BINDINGS];
    uint32_t nbind;
    uint8_t *expect;              /* the defaults' output */
    uint8_t *got;
    uint64_t out_bytes;
    VkQueryPool queries;
    uint32_t reps;
    dm_cand cands[DM_TUNE_MAX_CANDS];
    uint32_t ncands;
    double stop;                  /* the search ends here; the last check may go on to the deadline */
} dm_measure;

static uint64_t dm_fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* ---- the buffers ------------------------------------------------------------------------- */

/* The operator's tensors as buffers of their sizes; inputs filled. */
static dmlops_status dm_measure_buffers(dm_measure *m)
{
    const dm_op *op = &m->job->op->op;
    const dm_gather *g = m->job->g;
    m->nbind = op->input_count + op->output_count;
    uint64_t total = 0;
    for (uint32_t i = 0; i < m->nbind; i++) total += op->t[i].total_bytes;
    if (total > DM_TUNE_MAX_BYTES)
        return dm_fail(DMLOPS_ERROR_UNSUPPORTED, "its tensors take %llu MiB, more than the tuner measures with (%llu MiB)",
                       (unsigned long long)(total >> 20), (unsigned long long)(DM_TUNE_MAX_BYTES >> 20));
    for (uint32_t i = 0; i < m->nbind; i++) {
        const uint64_t bytes = op->t[i].total_bytes;
        dmlops_buffer *b = &m->buf[i];
        b->ctx = m->job->op->ctx;
        b->size = bytes ? bytes : 1;
        DM_TRY(dm_vk_buffer_create(b));
        m->bind[i] = (dmlops_binding){b, 0, bytes};
        if (i >= op->input_count) continue;
        uint8_t *host = dm_malloc(bytes ? (size_t)bytes : 1);
        if (!host) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
        const bool aux = (int32_t)i == g->binding[DM_SLOT_AUX];
        if (aux) {
            /* Lengths or indices in [0, n]: REVERSE's sequences of every length, ONE_HOT's
             * hot positions (n itself: a row of OffValues). */
            const uint32_t es = g->aux_esize == 8 ? 8 : 4;
            memset(host, 0, (size_t)bytes);
            for (uint64_t k = 0; k + es <= bytes; k += es) {
                const uint64_t v = (k / es * 2654435761u) % ((uint64_t)g->n + 1);
                for (uint32_t j = 0; j < 4; j++) host[k + j] = (uint8_t)(v >> (8 * j)); /* little-endian */
            }
        } else {
            for (uint64_t k = 0; k < bytes; k++) host[k] = (uint8_t)(k * 131 + 7);
        }
        const dmlops_status st = dm_vk_buffer_write(b, 0, host, bytes);
        free(host);
        DM_TRY(st);
    }
    m->out_bytes = op->t[op->input_count].total_bytes;
    m->expect = dm_malloc(m->out_bytes ? (size_t)m->out_bytes : 1);
    m->got = dm_malloc(m->out_bytes ? (size_t)m->out_bytes : 1);
    if (!m->expect || !m->got) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    return DMLOPS_SUCCESS;
}

/* ---- candidates ---------------------------------------------------------------------------- */

/* What a bound table records, hashed: two candidates with equal hashes run the same commands. */
static uint64_t dm_table_fingerprint(const dm_cand *c)
{
    const dmlops_binding_table *t = c->table;
    uint64_t h = dm_fnv(0xcbf29ce484222325ull, &t->path, sizeof t->path);
    if (t->path == DMLOPS_PATH_COPY_REGIONS) {
        h = dm_fnv(h, t->regions, (size_t)t->nregions * sizeof *t->regions);
        for (uint32_t i = 0; i < t->ncopies; i++) h = dm_fnv(h, &t->copies[i].region, sizeof t->copies[i].region);
        return h;
    }
    const dm_vk_piece *pieces = t->own_active ? t->own_pieces : c->op->plan.pieces;
    const uint32_t n = t->own_active ? t->own_npieces : c->op->plan.npieces;
    h = dm_fnv(h, &t->pipeline, sizeof t->pipeline);
    h = dm_fnv(h, &t->texel, sizeof t->texel);
    h = dm_fnv(h, t->push, (size_t)n * sizeof *t->push);
    for (uint32_t p = 0; p < n; p++) {
        const uint32_t grid[2] = {pieces[p].groups, pieces[p].vgroups}; /* the dispatches recorded */
        h = dm_fnv(h, grid, sizeof grid);
        h = dm_fnv(h, pieces[p].span, sizeof pieces[p].span);
    }
    return h;
}

static void dm_cand_free(dm_measure *m, dm_cand *c)
{
    const dm_vk_device *d = &m->vk->dev;
    if (c->pool) d->vkd.DestroyCommandPool(d->device, c->pool, d->vk_alloc);
    dm_vk_table_destroy(c->table);
    if (c->op) dm_vk_op_free(m->job->op->ctx, c->op);
    c->pool = VK_NULL_HANDLE;
    c->table = NULL;
    c->op = NULL;
}

/* The operator under c's configuration, bound to the buffers. */
static dmlops_status dm_cand_build(dm_measure *m, dm_cand *c)
{
    dm_vk_limits lim;
    dm_vk_tune_config_limits(m->vk, &c->config, &lim);
    DM_TRY(dm_vk_op_build(m->job->op->ctx, m->job->g, &lim, &c->op));
    memcpy(&c->shell, m->job->op, sizeof c->shell);
    c->shell.impl = c->op;
    DM_TRY(dm_vk_table_create(&c->shell, c->op->plan.npieces, &c->table));
    DM_TRY(dm_vk_table_bind(c->table, &c->shell, m->bind));
    /* As dmlops_operator_execute: copies built from the AUX data where the plan has some. */
    if (dm_vk_slabs_possible(&c->shell, m->bind)) dm_vk_table_slabs(c->table, m->bind);
    c->fingerprint = dm_table_fingerprint(c);
    return DMLOPS_SUCCESS;
}

/* The candidate of config: an earlier one, or a new one (c->bad when it cannot run); NULL
 * when there is no room for more. */
static dm_cand *dm_cand_get(dm_measure *m, const dm_tune_config *config)
{
    for (uint32_t i = 0; i < m->ncands; i++)
        if (dm_tune_config_equal(&m->cands[i].config, config)) return &m->cands[i];
    if (m->ncands == DM_TUNE_MAX_CANDS) return NULL;
    dm_cand *c = &m->cands[m->ncands++];
    memset(c, 0, sizeof *c);
    c->config = *config;
    char before[1024];
    snprintf(before, sizeof before, "%s", dmlops_last_error_message());
    if (dm_cand_build(m, c) != DMLOPS_SUCCESS) {
        /* A configuration the device cannot run (out of memory for its pieces, say) is
         * simply not a candidate; the operator's creation goes on. */
        dm_set_message("%s", before);
        dm_cand_free(m, c);
        c->bad = true;
        return c;
    }
    for (uint32_t i = 0; i + 1 < m->ncands; i++) {
        dm_cand *o = &m->cands[i];
        if (!o->bad && !o->same && o->fingerprint == c->fingerprint) {
            c->same = o;
            dm_cand_free(m, c);
            break;
        }
    }
    return c;
}

/* ---- timing ----------------------------------------------------------------------------------- */

/* Records c's operator `reps` times into its command buffer. */
static dmlops_status dm_cand_record(dm_measure *m, dm_cand *c)
{
    dm_vk_device *d = &m->vk->dev;
    const char *what = "tuning an operator";
    if (!c->pool) DM_TRY(dm_vk_command_pool(d, &c->pool, &c->cmd, what));
    else DM_VK_CALL(d, what, ResetCommandBuffer, (c->cmd, 0));
    DM_TRY(dm_vk_begin(d, c->cmd, false, what));
    if (m->queries) {
        d->vkd.CmdResetQueryPool(c->cmd, m->queries, 0, 2);
        d->vkd.CmdWriteTimestamp(c->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, m->queries, 0);
    }
    for (uint32_t r = 0; r < m->reps; r++) {
        if (r) dm_vk_cmd_barrier(d, c->cmd, false); /* each record rewrites the output */
        dm_vk_record(c->table, c->cmd, NULL);
    }
    if (m->queries) d->vkd.CmdWriteTimestamp(c->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, m->queries, 1);
    dm_vk_cmd_barrier(d, c->cmd, true);
    DM_VK_CALL(d, what, EndCommandBuffer, (c->cmd));
    c->recorded = m->reps;
    return DMLOPS_SUCCESS;
}

/* Runs c's command buffer once: seconds per record (GPU timestamps, else the host's clock). */
static dmlops_status dm_cand_run(dm_measure *m, dm_cand *c, double *seconds)
{
    dm_vk_device *d = &m->vk->dev;
    if (c->recorded != m->reps) DM_TRY(dm_cand_record(m, c));
    dm_mutex_lock(m->vk->sub.lock);
    const double t0 = dm_vk_tune_now();
    dmlops_status st = dm_vk_submit_wait(d, &m->vk->sub, c->cmd, "tuning an operator");
    double t = dm_vk_tune_now() - t0;
    dm_mutex_unlock(m->vk->sub.lock);
    DM_TRY(st);
    uint64_t ts[2];
    if (m->queries && d->vkd.GetQueryPoolResults(d->device, m->queries, 0, 2, sizeof ts, ts, sizeof ts[0],
                                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS) {
        const uint64_t mask = d->timestamp_bits >= 64 ? ~0ull : (1ull << d->timestamp_bits) - 1;
        t = (double)((ts[1] - ts[0]) & mask) * d->info.timestamp_period * 1e-9;
    }
    t /= m->reps;
    if (dm_vk_tune_test_hook) t = dm_vk_tune_test_hook(&c->config, t);
    *seconds = t;
    return DMLOPS_SUCCESS;
}

/* The first run of a candidate: not timed; its output must be the defaults' (the first
 * candidate's, whose output becomes the reference). The output is overwritten first, so
 * that a candidate that leaves bytes unwritten is caught. */
static dmlops_status dm_cand_first_run(dm_measure *m, dm_cand *c, bool reference, double *t)
{
    dmlops_buffer *out = m->bind[m->nbind - 1].buffer;
    memset(m->got, 0xa5, (size_t)m->out_bytes);
    DM_TRY(dm_vk_buffer_write(out, 0, m->got, m->out_bytes));
    DM_TRY(dm_cand_run(m, c, t));
    DM_TRY(dm_vk_buffer_read(out, 0, reference ? m->expect : m->got, m->out_bytes));
    if (!reference && memcmp(m->expect, m->got, (size_t)m->out_bytes) != 0) c->bad = true;
    return DMLOPS_SUCCESS;
}

static int dm_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double dm_median(const dm_cand *c)
{
    double v[DM_TUNE_MAX_ROUNDS];
    memcpy(v, c->samples, c->nsamples * sizeof *v);
    qsort(v, c->nsamples, sizeof *v, dm_cmp_double);
    return c->nsamples ? (c->nsamples % 2 ? v[c->nsamples / 2] : (v[c->nsamples / 2 - 1] + v[c->nsamples / 2]) / 2) : 0;
}

static void dm_note_sample(dm_cand *c, double t)
{
    c->samples[c->nsamples++] = t;
    c->lo = c->seen && c->lo < t ? c->lo : t;
    c->hi = c->seen && c->hi > t ? c->hi : t;
    c->seen++;
}

/* Times the n candidates in alternating rounds (each round in another order): at least
 * DM_TUNE_MIN_ROUNDS, more while the rounds have taken under DM_TUNE_STEP_S, at most
 * DM_TUNE_MAX_ROUNDS, and no round begun after `until` but the first. After each round a
 * candidate whose fastest run this step (of two, or of one that took longer than a step
 * may) is DM_TUNE_RACE times slower than the slowest of the best so far is left out (a
 * racing rule: on lavapipe a GPU plan's 64 MiB REVERSE ran 4 to 20 s where the CPU plan
 * ran 0.17 s); the rest go on, the last one too,
 * whose runs the last check may then need no more of. Their medians into med and into
 * each candidate (a bad one: infinity). */
static dmlops_status dm_time_round_robin(dm_measure *m, dm_cand **set, uint32_t n, double until, double *med)
{
    const double start = dm_vk_tune_now();
    bool out[DM_TUNE_MAX_VALUES + 2] = {false};
    uint32_t active = 0;
    for (uint32_t i = 0; i < n; i++) {
        set[i]->nsamples = 0;
        out[i] = set[i]->bad;
        active += !out[i];
    }
    for (uint32_t r = 0; r < DM_TUNE_MAX_ROUNDS && active > 0; r++) {
        const double now = dm_vk_tune_now();
        if (r > 0 && (now > until || (r >= DM_TUNE_MIN_ROUNDS && now - start > DM_TUNE_STEP_S))) break;
        for (uint32_t k = 0; k < n; k++) {
            const uint32_t i = (k + r) % n;
            if (out[i]) continue;
            double t;
            DM_TRY(dm_cand_run(m, set[i], &t));
            dm_note_sample(set[i], t);
        }
        uint32_t b = n;
        for (uint32_t i = 0; i < n; i++)
            if (!out[i] && (b == n || dm_median(set[i]) < dm_median(set[b]))) b = i;
        double b_hi = 0, lo;
        for (uint32_t j = 0; j < set[b]->nsamples; j++) b_hi = set[b]->samples[j] > b_hi ? set[b]->samples[j] : b_hi;
        for (uint32_t i = 0; i < n; i++) {
            if (out[i] || i == b) continue;
            lo = set[i]->samples[0];
            for (uint32_t j = 1; j < set[i]->nsamples; j++) lo = set[i]->samples[j] < lo ? set[i]->samples[j] : lo;
            /* On one run only where another would cost more than a step may take: a
             * fast candidate's one slow run is as likely the host's doing. */
            if (lo > DM_TUNE_RACE * b_hi && (set[i]->nsamples >= 2 || lo * (double)m->reps > DM_TUNE_STEP_S)) {
                out[i] = true;
                active--;
            }
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        med[i] = set[i]->bad || !set[i]->nsamples ? 1e300 : dm_median(set[i]);
        set[i]->median = med[i];
    }
    return DMLOPS_SUCCESS;
}

/* The records per timed submission: enough that one of a candidate taking `seconds` per
 * record lasts DM_TUNE_MIN_LIST_S. */
static uint32_t dm_reps_for(double seconds)
{
    if (!(seconds > 0) || seconds >= DM_TUNE_MIN_LIST_S) return 1;
    const double want = DM_TUNE_MIN_LIST_S / seconds + 1;
    return want >= DM_TUNE_MAX_REPS ? DM_TUNE_MAX_REPS : (uint32_t)want;
}

/* The candidate whose commands c's are (itself, or the first with the same). */
static dm_cand *dm_timed(dm_cand *c) { return c->same ? c->same : c; }

/* ---- the search -------------------------------------------------------------------------------- */

/* One knob: the best configuration against each of the knob's values. The first knob's
 * step runs whatever time is left (the device class: where the defaults run longer than
 * the budget, as a GPU's plan of a 64 MiB REVERSE does on lavapipe, 20 s a run, nothing
 * else would ever be timed against them); later ones only before m->stop. */
static dmlops_status dm_search_knob(dm_measure *m, uint32_t knob, dm_tune_config *best)
{
    const double stop = knob == 0 ? 1e300 : m->stop;
    uint32_t nk;
    const dm_tune_knob *k = &dm_tune_knobs(&nk)[knob];
    dm_cand *set[DM_TUNE_MAX_VALUES + 2];
    dm_tune_config configs[DM_TUNE_MAX_VALUES + 2];
    uint32_t n = 0;
    dm_cand *b = dm_cand_get(m, best);
    if (!b || b->bad) return DMLOPS_SUCCESS;
    set[n] = dm_timed(b);
    configs[n++] = *best;
    for (uint32_t v = 0; v <= k->ntries && m->ncands < DM_TUNE_MAX_CANDS && dm_vk_tune_now() < stop; v++) {
        dm_tune_config c = *best;
        c.v[knob] = v < k->ntries ? k->tries[v] : k->unset;
        if (dm_tune_config_equal(&c, best)) continue;
        dm_cand *x = dm_cand_get(m, &c);
        if (!x || x->bad) continue;
        dm_cand *t = dm_timed(x);
        bool seen = false;
        for (uint32_t i = 0; i < n; i++) seen |= set[i] == t;
        if (seen) continue; /* the same commands as a value already in the set */
        if (!t->recorded) {
            double first;
            DM_TRY(dm_cand_first_run(m, t, false, &first));
            if (t->bad) continue;
        }
        set[n] = t;
        configs[n++] = c;
    }
    if (n < 2 || dm_vk_tune_now() > stop) return DMLOPS_SUCCESS;
    double med[DM_TUNE_MAX_VALUES + 2];
    DM_TRY(dm_time_round_robin(m, set, n, m->stop, med)); /* one round at least */
    uint32_t w = 0;
    for (uint32_t i = 1; i < n; i++)
        if (med[i] < med[w]) w = i;
    const uint32_t kept = med[w] < med[0] * (1 - DM_TUNE_MARGIN) ? w : 0;
    *best = configs[kept];
    /* The next knob's submissions last DM_TUNE_MIN_LIST_S of the best, not of the (maybe
     * far slower) defaults: short lists would be at the mercy of the host's scheduling. */
    m->reps = dm_reps_for(med[kept]);
    return DMLOPS_SUCCESS;
}

/* The defaults' first run (the reference output), then more of them until the device
 * has worked DM_TUNE_WARM_S; the submissions are sized by them. */
static dmlops_status dm_measure_warm(dm_measure *m, dm_cand *def)
{
    m->reps = 1;
    double t = 0;
    const double warm_until = dm_vk_tune_now() + DM_TUNE_WARM_S;
    DM_TRY(dm_cand_first_run(m, def, true, &t));
    while (dm_vk_tune_now() < warm_until) DM_TRY(dm_cand_run(m, def, &t));
    m->reps = dm_reps_for(t);
    return DMLOPS_SUCCESS;
}

/* The last check, in alternating rounds: the winner against the best of the first knob
 * (the device class) and that against the defaults. Each must beat the one before by the
 * margin to be kept: the search's later knobs won their steps by a few percent, which
 * noise may have given them, and only a second win keeps them. The defaults are not run
 * again where the search's runs already raced them out (their fastest run DM_TUNE_RACE
 * times the slowest of the others: noise only adds time, so each of the others' runs
 * bounds it from above; a GPU plan's 20 s per run on lavapipe leaves no budget to run it
 * again). */
static dmlops_status dm_last_check(dm_measure *m, dm_cand *def, const dm_tune_config *first, const dm_tune_config *best)
{
    dm_vk_tune_job *job = m->job;
    dm_cand *set[3] = {def, NULL, NULL};
    const dm_tune_config *configs[3] = {&job->defaults, first, best};
    for (int i = 1; i < 3; i++) {
        dm_cand *c = dm_cand_get(m, configs[i]);
        set[i] = c && !c->bad ? dm_timed(c) : def;
    }
    if (set[2] == set[1]) set[2] = def; /* the later knobs changed nothing */
    double hi = 0;
    for (int i = 1; i < 3; i++) hi = set[i] != def && set[i]->hi > hi ? set[i]->hi : hi;
    const bool raced = hi > 0 && def->seen && def->lo > DM_TUNE_RACE * hi;
    dm_cand *timed[3];
    uint32_t n = 0, at[3] = {0, 0, 0};
    for (int i = raced ? 1 : 0; i < 3; i++) {
        if (i > 0 && set[i] == def) continue;
        at[i] = n;
        timed[n++] = set[i];
    }
    double med[3], t[3];
    if (n) DM_TRY(dm_time_round_robin(m, timed, n, job->deadline, med));
    for (int i = 0; i < 3; i++) t[i] = set[i] == def ? (raced ? def->median : med[at[0]]) : med[at[i]];
    int chosen = 0;
    if (set[1] != def && t[1] < t[0] * (1 - DM_TUNE_MARGIN)) chosen = 1;
    if (set[2] != def && t[2] < t[chosen] * (1 - DM_TUNE_MARGIN)) chosen = 2;
    job->best = *configs[chosen];
    job->default_ns = (uint64_t)(t[0] * 1e9 + 0.5);
    job->tuned_ns = (uint64_t)(t[chosen] * 1e9 + 0.5);
    return DMLOPS_SUCCESS;
}

static dmlops_status dm_measure_run(dm_measure *m)
{
    dm_vk_tune_job *job = m->job;
    dm_vk_device *d = &m->vk->dev;
    DM_TRY(dm_measure_buffers(m));
    if (d->timestamp_bits) {
        VkQueryPoolCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                     .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                     .queryCount = 2};
        DM_VK_CALL(d, "tuning an operator", CreateQueryPool, (d->device, &qci, d->vk_alloc, &m->queries));
    }
    dm_cand *def = dm_cand_get(m, &job->defaults);
    if (!def || def->bad) return dm_fail(DMLOPS_ERROR_BACKEND, "the operator's defaults could not be planned for timing");
    DM_TRY(dm_measure_warm(m, def));
    const double start = dm_vk_tune_now();
    m->stop = start + (job->deadline - start) * 0.8;
    dm_tune_config best = job->defaults, first = job->defaults;
    uint32_t nk;
    (void)dm_tune_knobs(&nk);
    for (uint32_t k = 0; k < nk && (k == 0 || dm_vk_tune_now() < m->stop); k++) {
        DM_TRY(dm_search_knob(m, k, &best));
        if (k == 0) first = best;
    }
    DM_TRY(dm_last_check(m, def, &first, &best));
    for (uint32_t i = 0; i < m->ncands; i++) job->measured += !m->cands[i].bad && !m->cands[i].same;
    return DMLOPS_SUCCESS;
}

dmlops_status dm_vk_tune_measure(dm_vk_tune_job *job)
{
    dm_measure *m = dm_calloc(1, sizeof *m);
    if (!m) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    m->job = job;
    m->vk = job->vk;
    const dmlops_status st = dm_measure_run(m);
    dm_vk_device *d = &m->vk->dev;
    for (uint32_t i = 0; i < m->ncands; i++) dm_cand_free(m, &m->cands[i]);
    for (uint32_t i = 0; i < m->nbind; i++)
        if (m->buf[i].impl) dm_vk_buffer_destroy(&m->buf[i]);
    if (m->queries) d->vkd.DestroyQueryPool(d->device, m->queries, d->vk_alloc);
    free(m->expect);
    free(m->got);
    free(m);
    return st;
}
