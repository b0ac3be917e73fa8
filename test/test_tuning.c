/* The tuner (issue 49; docs/api.md, "Tuning"): its file's reader and writer, which must
 * refuse every damaged, foreign or stale file with a note and never crash (the fuzz target
 * test/fuzz_tuning.c drives the reader with arbitrary bytes), and the tuner on a Vulkan
 * device (lavapipe in CI), planned as a GPU: a candidate the test hook makes slow is never
 * chosen, and every configuration chosen is exact against the CPU backend. White-box: the
 * file format and the hooks are internal, so this links the library's objects. */
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#include <unistd.h> /* getpid: harness.h names Windows' */
#endif

#include "../src/tune/tune_file.h"
#include "../src/tune/tune_knobs.h"
#include "../src/tuning.h"
#include "../src/vk/vk_record.h" /* dm_vk_op: what an operator runs with */
#include "vkt.h"

/* ---- the file, without a device ---------------------------------------------------------- */

/* A file name of this process in the temporary folder ($TMPDIR, %TEMP%, else /tmp). */
static const char *temp_path(const char *what)
{
    static char path[600];
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = getenv("TEMP");
    snprintf(path, sizeof path, "%s/dmlops_test_tuning_%lu_%s.txt", dir && *dir ? dir : "/tmp", (unsigned long)getpid(), what);
    return path;
}

/* FNV-1a 64, written here again: the reference a hand-made file is signed with. */
static uint64_t ref_fnv(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    return h;
}

/* body + its checksum line, in a static buffer. */
static const char *signed_text(const char *body, size_t *size)
{
    static char text[8192];
    const size_t n = strlen(body);
    snprintf(text, sizeof text, "%schecksum %016llx\n", body, (unsigned long long)ref_fnv(body, n));
    *size = strlen(text);
    return text;
}

static const char header[] = "dmlops-tuning 1\nlibrary 1.0.0\nknobs 0123456789abcdef\nkernels fedcba9876543210\n"
                             "vendor 0x00010005\ndevice 0x00000000\ndriver 0x05802006\n"
                             "uuid 6d657361-3232-2e33-2e36-000000000000\nname llvmpipe (LLVM 15.0.6, 256 bits)\n";

/* The knob of the table named `name`; -1 when the table has none (the kernel work may
 * retire knobs: the checks of one that is gone are skipped). */
static int knob_index(const char *name)
{
    uint32_t nk;
    const dm_tune_knob *k = dm_tune_knobs(&nk);
    for (uint32_t i = 0; i < nk; i++)
        if (!strcmp(k[i].name, name)) return (int)i;
    return -1;
}

/* Every knob as "NAME=auto", in the table's order, but `name` with `value` (the text as
 * given); with swap, the first two knobs change places. In a static buffer. */
static const char *knobs_text(const char *name, const char *value, bool swap)
{
    static char text[512];
    uint32_t nk;
    const dm_tune_knob *k = dm_tune_knobs(&nk);
    size_t n = 0;
    for (uint32_t j = 0; j < nk; j++) {
        const uint32_t i = swap && j < 2 ? 1 - j : j;
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%s=%s", j ? " " : "", k[i].name,
                              name && !strcmp(k[i].name, name) ? value : "auto");
    }
    return text;
}
#define ALL_AUTO knobs_text(NULL, NULL, false)

static void sample_file(dm_tune_file *f)
{
    memset(f, 0, sizeof *f);
    snprintf(f->id.library, sizeof f->id.library, "1.0.0");
    f->id.knobs = dm_tune_knobs_fingerprint();
    f->id.kernels = 0x1234;
    f->id.vendor_id = 0x10de;
    f->id.device_id = 0x2335;
    f->id.driver_version = 0x12345678;
    for (int i = 0; i < 16; i++) f->id.uuid[i] = (uint8_t)(i * 17);
    snprintf(f->id.device_name, sizeof f->id.device_name, "NVIDIA H200\tline\nbreak");
    uint32_t nk;
    const dm_tune_knob *k = dm_tune_knobs(&nk);
    dm_tune_entry e = {.default_ns = 1000, .tuned_ns = 250};
    snprintf(e.key, sizeof e.key, "slice.v1.e4.row2^12.out2^24");
    for (uint32_t i = 0; i < nk; i++) e.config.v[i] = k[i].unset;
    const int tuning = knob_index("TUNING"), wg = knob_index("WORKGROUP"), copy = knob_index("COPY_MIN");
    if (tuning >= 0) e.config.v[tuning] = 1;   /* cpu */
    if (wg >= 0) e.config.v[wg] = 64;
    if (copy >= 0) e.config.v[copy] = 1ll << 40; /* never */
    CHECK(dm_tune_file_put(f, &e));
    snprintf(e.key, sizeof e.key, "one_hot.v11.e1.row2^4.out2^16");
    if (tuning >= 0) e.config.v[tuning] = k[tuning].unset;
    e.default_ns = e.tuned_ns = 7;
    CHECK(dm_tune_file_put(f, &e));
}

TEST(tuning_file_round_trip)
{
    dm_tune_file f, g;
    sample_file(&f);
    size_t n = 0, n2 = 0;
    char *text = dm_tune_file_format(&f, &n);
    REQUIRE(text);
    char err[256];
    REQUIRE(dm_tune_file_parse(text, n, &g, err, sizeof err), "own file refused: %s", err);
    CHECK(g.count == 2 && g.id.knobs == f.id.knobs && g.id.kernels == 0x1234 && g.id.vendor_id == 0x10de &&
          g.id.device_id == 0x2335 && g.id.driver_version == 0x12345678 && !memcmp(g.id.uuid, f.id.uuid, 16));
    /* Control characters of the name become spaces: one line, always. */
    CHECK(!strcmp(g.id.device_name, "NVIDIA H200 line break"), "name \"%s\"", g.id.device_name);
    for (uint32_t i = 0; i < g.count && i < f.count; i++)
        CHECK(!strcmp(g.entries[i].key, f.entries[i].key) && dm_tune_config_equal(&g.entries[i].config, &f.entries[i].config) &&
              g.entries[i].default_ns == f.entries[i].default_ns && g.entries[i].tuned_ns == f.entries[i].tuned_ns,
              "entry %u", i);
    char *again = dm_tune_file_format(&g, &n2);
    CHECK(again && n2 == n && !memcmp(again, text, n), "the second writing differs");
    char line[600];
    snprintf(line, sizeof line, "class slice.v1.e4.row2^12.out2^24 %s default_ns=1000 tuned_ns=250\n",
             knobs_text("TUNING", "cpu", false));
    if (knob_index("TUNING") >= 0 && knob_index("WORKGROUP") < 0 && knob_index("COPY_MIN") < 0)
        CHECK(strstr(text, line), "%s", text);
    CHECK(knob_index("WORKGROUP") < 0 || strstr(text, " WORKGROUP=64 "), "%s", text);
    CHECK(knob_index("COPY_MIN") < 0 || strstr(text, " COPY_MIN=1099511627776 "), "%s", text);
    CHECK(strstr(text, "class one_hot.v11.e1.row2^4.out2^16 ") && strstr(text, " default_ns=7 tuned_ns=7\n"), "%s", text);
    /* A class put again replaces its entry. */
    dm_tune_entry e = f.entries[0];
    e.tuned_ns = 99;
    CHECK(dm_tune_file_put(&f, &e) && f.count == 2 && dm_tune_file_find(&f, e.key)->tuned_ns == 99);
    CHECK(!dm_tune_file_find(&f, "no.such.class"));
    free(again);
    free(text);
    dm_tune_file_free(&g);
    dm_tune_file_free(&f);
}

/* Parses text that must be refused with `why` in the message. */
static void refused(const char *text, size_t n, const char *why, int line)
{
    dm_tune_file f;
    char err[256] = "";
    const bool ok = dm_tune_file_parse(text, n, &f, err, sizeof err);
    dm_tune_file_free(&f);
    if (!CHECK(!ok, "case at line %d accepted", line)) return;
    CHECK(strstr(err, why) != NULL, "case at line %d: message \"%s\" lacks \"%s\"", line, err, why);
}
#define REFUSED_BODY(body, why)                                                                                   \
    do {                                                                                                          \
        size_t n_;                                                                                                \
        const char *t_ = signed_text(body, &n_);                                                                  \
        refused(t_, n_, why, __LINE__);                                                                           \
    } while (0)

TEST(tuning_file_damage_refused)
{
    dm_tune_file f;
    sample_file(&f);
    size_t n = 0;
    char *text = dm_tune_file_format(&f, &n);
    REQUIRE(text);
    dm_tune_file_free(&f);
    refused(text, 0, "empty", __LINE__);
    /* Cut anywhere: at a line end (the checksum line is gone) or inside a line. */
    for (size_t cut = 1; cut < n; cut += 37) refused(text, cut, cut < n && text[cut - 1] == '\n' ? "checksum" : "cut short", __LINE__);
    refused(text, n - 1, "cut short", __LINE__);
    /* A byte changed anywhere before the checksum. */
    for (size_t at = 0; at + 30 < n; at += 29) {
        text[at] ^= 0x04;
        refused(text, n, "damaged", __LINE__);
        text[at] ^= 0x04;
    }
    /* Signed, but not what the writer writes. */
    char body[4096];
    snprintf(body, sizeof body, "%sclass a.b %s default_ns=1 tuned_ns=2\n", header, ALL_AUTO);
    size_t sn;
    const char *ok = signed_text(body, &sn);
    dm_tune_file g;
    char err[256];
    CHECK(dm_tune_file_parse(ok, sn, &g, err, sizeof err), "the hand-made file itself: %s", err);
    dm_tune_file_free(&g);
    REFUSED_BODY("", "not a tuning file");
    REFUSED_BODY("hello\n", "not a tuning file");
    REFUSED_BODY("dmlops-tuning 2\n", "format \"2\"");
    REFUSED_BODY("dmlops-tuning 1\nlibrary 1.0.0\n", "header is incomplete");
    REFUSED_BODY("dmlops-tuning 1\nknobs 0123456789abcdef\n", "library VERSION expected");
    char line2[600];
    snprintf(line2, sizeof line2, "class a.b %s default_ns=1 tuned_ns=2\n", ALL_AUTO);
    snprintf(body, sizeof body, "%s%s%s", header, line2, line2);
    REFUSED_BODY(body, "second entry");
    snprintf(body, sizeof body, "%sclass a/b %s default_ns=1 tuned_ns=2\n", header, ALL_AUTO);
    REFUSED_BODY(body, "class key holds");
    /* Values no knob takes, each refused naming its knob; and the knobs out of order. */
    static const char *const bad[][3] = {{"TEXEL", "maybe", "TEXEL=VALUE"},
                                         {"WORKGROUP", "96", "WORKGROUP=VALUE"}, /* not a power of two */
                                         {"RUN", "064", "RUN=VALUE"},            /* not as written */
                                         {"GRID", "2000000", "GRID=VALUE"},      /* out of range */
                                         {"TUNING", "-1", "TUNING=VALUE"}};      /* "auto" is spelt so */
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        if (knob_index(bad[b][0]) < 0) continue;
        snprintf(body, sizeof body, "%sclass a.b %s default_ns=1 tuned_ns=2\n", header, knobs_text(bad[b][0], bad[b][1], false));
        REFUSED_BODY(body, bad[b][2]);
    }
    uint32_t nk;
    const dm_tune_knob *k = dm_tune_knobs(&nk);
    snprintf(body, sizeof body, "%sclass a.b %s default_ns=1 tuned_ns=2\n", header, knobs_text(NULL, NULL, true));
    char first[64];
    snprintf(first, sizeof first, "%s=VALUE", k[0].name);
    if (nk > 1) REFUSED_BODY(body, first);
    snprintf(body, sizeof body, "%sclass a.b %s default_ns=1 tuned_ns=2 \n", header, ALL_AUTO);
    REFUSED_BODY(body, "tuned_ns=NANOSECONDS"); /* a trailing space */
    snprintf(body, sizeof body, "%sclass a.b %s default_ns=1 tuned_ns=2 more=3\n", header, ALL_AUTO);
    REFUSED_BODY(body, "text after tuned_ns");
    snprintf(body, sizeof body, "%sclass a.b %s default_ns=-1 tuned_ns=2\n", header, ALL_AUTO);
    REFUSED_BODY(body, "default_ns=NANOSECONDS");
    snprintf(body, sizeof body, "%sclass a.b\t%s default_ns=1 tuned_ns=2\n", header, ALL_AUTO);
    REFUSED_BODY(body, "control character");
    snprintf(body, sizeof body, "%s%s", header, "extra line\n");
    REFUSED_BODY(body, "class KEY ... expected");
    char longline[1100];
    memset(longline, 'x', sizeof longline - 2);
    longline[0] = '#';
    longline[sizeof longline - 2] = '\n';
    longline[sizeof longline - 1] = 0;
    snprintf(body, sizeof body, "%s%s", header, longline);
    REFUSED_BODY(body, "longer than 1024");
    snprintf(body, sizeof body, "dmlops-tuning 1\nlibrary 1.0.0\nknobs 0123456789ABCDEF\n");
    REFUSED_BODY(body, "knobs <16 hex digits>");
    snprintf(body, sizeof body, "dmlops-tuning 1\nlibrary 1.0.0\nknobs 0123456789abcdef\nkernels fedcba9876543210\n"
             "vendor 0x10005\n");
    REFUSED_BODY(body, "vendor 0x<8 hex digits>");
    free(text);
}

TEST(tuning_file_load_and_save)
{
    char path[600];
    snprintf(path, sizeof path, "%s", temp_path("load"));
    dm_tune_file f, g;
    bool missing = false;
    char err[256];
    remove(path);
    CHECK(!dm_tune_file_load(path, &g, &missing, err, sizeof err) && missing, "a missing file: %s", err);
    sample_file(&f);
    REQUIRE(dm_tune_file_save(path, &f, err, sizeof err), "save: %s", err);
    CHECK(dm_tune_file_load(path, &g, &missing, err, sizeof err) && !missing && g.count == 2, "load: %s", err);
    dm_tune_file_free(&g);
    /* A directory is no file: refused, not a crash. */
    CHECK(!dm_tune_file_load(".", &g, &missing, err, sizeof err), "a directory read as a tuning file");
    dm_tune_file_free(&g);
    CHECK(!dm_tune_file_save("no-such-dir/x/tuning.txt", &f, err, sizeof err) && strstr(err, "cannot be written"),
          "%s", err);
    dm_tune_file_free(&f);
    remove(path);
}

/* ---- a tuning file in use (FILE mode), on a Vulkan device ------------------------------------ */

/* SLICE1 of columns 16..47 of a [64, 64] FLOAT32 tensor: rows of 128 contiguous bytes, which
 * the GPU plan (DMLOPS_VK_TUNING=gpu) runs as a kernel and COPY_MIN=16 as copy regions, so
 * that the plan shows whether a configuration was applied. */
static const uint32_t slice_in[2] = {64, 64}, slice_out[2] = {64, 32};
static const uint32_t slice_off[2] = {0, 16}, slice_win[2] = {64, 32};
static const int32_t slice_step[2] = {1, 1};
typedef struct slice_case {
    dmt_tensor in, out;
    DML_SLICE1_OPERATOR_DESC s;
    DML_OPERATOR_DESC desc;
    uint64_t sizes[2];
} slice_case;

static void slice_init(slice_case *c)
{
    dmt_tensor_init(&c->in, DML_TENSOR_DATA_TYPE_FLOAT32, 2, slice_in, NULL, 0);
    dmt_tensor_init(&c->out, DML_TENSOR_DATA_TYPE_FLOAT32, 2, slice_out, NULL, 0);
    c->s = (DML_SLICE1_OPERATOR_DESC){&c->in.desc, &c->out.desc, 2, slice_off, slice_win, slice_step};
    c->desc = (DML_OPERATOR_DESC){DML_OPERATOR_SLICE1, &c->s};
    c->sizes[0] = c->in.buf.TotalTensorSizeInBytes;
    c->sizes[1] = c->out.buf.TotalTensorSizeInBytes;
}

/* A Vulkan context planned as a GPU with the tuning variables given (NULL: unset). */
static dmlops_context *tuned_context(const char *mode, const char *file)
{
    dmt_env m, f;
    dmt_env_set(&m, "DMLOPS_TUNING", mode);
    dmt_env_set(&f, "DMLOPS_TUNING_FILE", file);
    if (!mode) unsetenv("DMLOPS_TUNING");
    if (!file) unsetenv("DMLOPS_TUNING_FILE");
    dmlops_context *ctx = vkt_gpu_context(0);
    dmt_env_restore(&f);
    dmt_env_restore(&m);
    return ctx;
}

/* This device's and build's identity, as a file for it carries. */
static void device_identity(dmlops_context *ctx, dm_tune_identity *id)
{
    dmlops_context_info info;
    memset(id, 0, sizeof *id);
    if (!CHECK_OK(dmlops_context_get_info(ctx, &info))) return;
    snprintf(id->library, sizeof id->library, "%s", dmlops_version_string());
    id->knobs = dm_tune_knobs_fingerprint();
    id->kernels = dm_vk_tune_kernels_fingerprint();
    id->vendor_id = info.device.vendor_id;
    id->device_id = info.device.device_id;
    id->driver_version = info.device.driver_version;
    memcpy(id->uuid, info.device.uuid, 16);
    snprintf(id->device_name, sizeof id->device_name, "%.100s", info.device.name);
}

static dmlops_operator_tuning op_tuning(dmlops_context *ctx, const DML_OPERATOR_DESC *desc, dmlops_operator_info *info)
{
    dmlops_operator_tuning t;
    memset(&t, 0, sizeof t);
    dmlops_operator *op = NULL;
    if (CHECK_OK(dmlops_operator_create(ctx, desc, &op))) {
        CHECK_OK(dmlops_operator_get_tuning(op, &t));
        if (info) CHECK_OK(dmlops_operator_get_info(op, info));
    }
    dmlops_operator_destroy(op);
    return t;
}

static bool note_has(dmlops_context *ctx, const char *text)
{
    dmlops_context_info info;
    if (!CHECK_OK(dmlops_context_get_info(ctx, &info))) return false;
    return CHECK(strstr(info.note, text) != NULL, "note \"%s\" lacks \"%s\"", info.note, text);
}

TEST(tuning_file_mode_applies_the_class_configuration)
{
    slice_case c;
    slice_init(&c);
    dmlops_context *plain = tuned_context(NULL, NULL);
    if (!plain) return;
    dmlops_operator_info info;
    const dmlops_operator_tuning before = op_tuning(plain, &c.desc, &info);
    CHECK(before.source == DMLOPS_TUNING_SOURCE_NONE && before.class_key[0] && !before.config[0], "%d %s %s",
          (int)before.source, before.class_key, before.config);
    CHECK(info.planned_path == DMLOPS_PATH_KERNEL, "the GPU plan copies: %s", dmlops_path_name(info.planned_path));
    /* The file gives the class COPY_MIN=16: regions. */
    dm_tune_file f;
    memset(&f, 0, sizeof f);
    device_identity(plain, &f.id);
    dm_tune_entry e = {.default_ns = 2000, .tuned_ns = 1000};
    snprintf(e.key, sizeof e.key, "%s", before.class_key);
    dmlops_context_info ci;
    CHECK_OK(dmlops_context_get_info(plain, &ci));
    uint32_t nk;
    const dm_tune_knob *k = dm_tune_knobs(&nk);
    for (uint32_t i = 0; i < nk; i++) e.config.v[i] = k[i].unset;
    REQUIRE(knob_index("TUNING") >= 0 && knob_index("COPY_MIN") >= 0, "the test needs TUNING and COPY_MIN");
    e.config.v[knob_index("TUNING")] = 0; /* gpu */
    e.config.v[knob_index("COPY_MIN")] = 16;
    CHECK(dm_tune_file_put(&f, &e));
    char path[600], err[256];
    snprintf(path, sizeof path, "%s", temp_path("file_mode"));
    REQUIRE(dm_tune_file_save(path, &f, err, sizeof err), "%s", err);
    dmlops_context *tuned = tuned_context(NULL, path); /* a file named: FILE mode */
    if (tuned) {
        note_has(tuned, "; tuning: file \"");
        note_has(tuned, "(1 classes)");
        const dmlops_operator_tuning t = op_tuning(tuned, &c.desc, &info);
        CHECK(t.source == DMLOPS_TUNING_SOURCE_FILE && !strcmp(t.config, "COPY_MIN=16") && t.tuned_seconds > 0.99e-6 &&
                  t.tuned_seconds < 1.01e-6 && t.default_seconds > 1.99e-6 && t.default_seconds < 2.01e-6,
              "%d \"%s\" %g %g", (int)t.source, t.config, t.tuned_seconds, t.default_seconds);
        CHECK(info.planned_path == DMLOPS_PATH_COPY_REGIONS, "the file's COPY_MIN=16 not applied: %s",
              dmlops_path_name(info.planned_path));
        CHECK(vkt_same_as_cpu(tuned, &c.desc, 1, c.sizes, 49, NULL, NULL, NULL));
        vkt_done(tuned);
    }
    /* Each way a file is not this device's or build's: ignored with a note, the defaults run. */
    static const char *const why[] = {"made for another device", "made under driver version", "stale: written by libdmlops 0.9.0",
                                      "stale: written for other tuning knobs", "stale: written for other kernels", "damaged",
                                      "not found"};
    for (int w = 0; w < 7; w++) {
        dm_tune_file g = f;
        if (w == 0) g.id.uuid[3] ^= 1;
        if (w == 1) g.id.driver_version++;
        if (w == 2) snprintf(g.id.library, sizeof g.id.library, "0.9.0");
        if (w == 3) g.id.knobs++;
        if (w == 4) g.id.kernels++;
        REQUIRE(dm_tune_file_save(path, &g, err, sizeof err), "%s", err);
        if (w == 5) { /* a byte of a class line changed */
            FILE *io = fopen(path, "r+b");
            REQUIRE(io);
            fseek(io, -40, SEEK_END);
            fputc('#', io);
            fclose(io);
        }
        if (w == 6) remove(path);
        dmlops_context *other = tuned_context(NULL, path);
        if (!other) continue;
        note_has(other, why[w]);
        note_has(other, w == 6 ? "not found: the defaults" : ": the defaults");
        const dmlops_operator_tuning t = op_tuning(other, &c.desc, &info);
        CHECK(t.source == DMLOPS_TUNING_SOURCE_NONE && !t.config[0] && info.planned_path == DMLOPS_PATH_KERNEL,
              "case %d: %d \"%s\" %s", w, (int)t.source, t.config, dmlops_path_name(info.planned_path));
        vkt_done(other);
    }
    remove(path);
    dm_tune_file_free(&f);
    vkt_done(plain);
}

TEST(tuning_options_checked_and_noted)
{
    dmlops_context *ctx = tuned_context(NULL, NULL);
    if (!ctx) return;
    /* The internal entry context creation calls with the create-info's chained struct. */
    dmlops_tuning_options o = {.s_type = 7};
    CHECK_STATUS(dm_tuning_apply_options(ctx, &o), DMLOPS_ERROR_INVALID_ARGUMENT, "s_type = 7");
    o.s_type = DMLOPS_STRUCTURE_TYPE_TUNING_OPTIONS;
    o.mode = (dmlops_tuning_mode)9;
    CHECK_STATUS(dm_tuning_apply_options(ctx, &o), DMLOPS_ERROR_INVALID_ARGUMENT, "mode = 9");
    o.mode = DMLOPS_TUNING_MODE_AUTO;
    o.budget_seconds = -1;
    CHECK_STATUS(dm_tuning_apply_options(ctx, &o), DMLOPS_ERROR_INVALID_ARGUMENT, "budget_seconds = -1");
    o.budget_seconds = 5;
    o.class_budget_seconds = 2;
    CHECK_OK(dm_tuning_apply_options(ctx, &o));
    note_has(ctx, "; tuning: auto, no file: tuned classes stay in the context, budget 5 s (2 s a class)");
    o.mode = DMLOPS_TUNING_MODE_OFF;
    CHECK_OK(dm_tuning_apply_options(ctx, &o));
    note_has(ctx, "; tuning: off");
    dmlops_context_info info;
    CHECK_OK(dmlops_context_get_info(ctx, &info));
    CHECK(!strstr(info.note, "auto"), "the note kept the earlier set-up: %s", info.note);
    vkt_done(ctx);
    /* Values of the variables that are not understood are named. */
    dmt_env b;
    dmt_env_set(&b, "DMLOPS_TUNING_BUDGET", "1,5");
    ctx = tuned_context("sometimes", NULL);
    dmt_env_restore(&b);
    if (ctx) {
        note_has(ctx, "ignored, not understood (docs/api.md): DMLOPS_TUNING=\"sometimes\", DMLOPS_TUNING_BUDGET=\"1,5\"");
        vkt_done(ctx);
    }
    /* The CPU backend has no knobs: it says so. */
    dmt_env f;
    dmt_env_set(&f, "DMLOPS_TUNING_FILE", "no-such-tuning-file");
    dmlops_context_desc d = {.backend = DMLOPS_BACKEND_CPU};
    dmlops_context *cpu = NULL;
    CHECK_OK(dmlops_context_create(&d, &cpu));
    dmt_env_restore(&f);
    if (cpu) note_has(cpu, "; tuning: none on the CPU backend");
    dmlops_operator_tuning t;
    dmlops_operator *op = NULL;
    slice_case c;
    slice_init(&c);
    if (cpu && CHECK_OK(dmlops_operator_create(cpu, &c.desc, &op))) {
        CHECK_OK(dmlops_operator_get_tuning(op, &t));
        CHECK(t.source == DMLOPS_TUNING_SOURCE_NONE && !t.class_key[0]);
        CHECK_STATUS(dmlops_operator_get_tuning(op, NULL), DMLOPS_ERROR_INVALID_ARGUMENT, "tuning is NULL");
    }
    CHECK_STATUS(dmlops_operator_get_tuning(NULL, &t), DMLOPS_ERROR_INVALID_ARGUMENT, "op is NULL");
    dmlops_operator_destroy(op);
    dmlops_context_destroy(cpu);
}

/* ---- tuning on first use (AUTO), planned as a GPU ----------------------------------------------- */

static double slow_all_but_defaults(const dm_tune_config *c, double s);
static double slow_defaults(const dm_tune_config *c, double s);
static double slow_one(const dm_tune_config *c, double s);
static dm_tune_config hook_defaults, hook_slow;

static double slow_all_but_defaults(const dm_tune_config *c, double s)
{
    return dm_tune_config_equal(c, &hook_defaults) ? s : s * 20;
}
static double slow_defaults(const dm_tune_config *c, double s) { return dm_tune_config_equal(c, &hook_defaults) ? s * 20 : s; }
static double slow_one(const dm_tune_config *c, double s) { return dm_tune_config_equal(c, &hook_slow) ? s * 20 : s; }

/* Tunes the slice case in a fresh AUTO context (no file) under the hook; returns what its
 * operator runs with, after checking it against the CPU backend. */
static dmlops_operator_tuning tune_slice(double (*hook)(const dm_tune_config *, double), dm_tune_config *chosen)
{
    dmlops_operator_tuning t;
    memset(&t, 0, sizeof t);
    slice_case c;
    slice_init(&c);
    dmt_env b;
    dmt_env_set(&b, "DMLOPS_TUNING_CLASS_BUDGET", "2");
    dmlops_context *ctx = tuned_context("auto", NULL);
    dmt_env_restore(&b);
    if (!ctx) return t;
    dm_vk_tune_test_hook = hook;
    dmlops_operator *op = NULL;
    const double t0 = dm_now();
    if (CHECK_OK(dmlops_operator_create(ctx, &c.desc, &op))) {
        CHECK_OK(dmlops_operator_get_tuning(op, &t));
        *chosen = ((const dm_vk_op *)op->impl)->tune.config;
        hook_defaults = ((const dm_vk_op *)op->impl)->tune.defaults;
    }
    const double took = dm_now() - t0;
    dm_vk_tune_test_hook = NULL;
    printf("    tuned %s in %.2f s: \"%s\" (%.1f -> %.1f us)%s%s\n", t.class_key, took, t.config, t.default_seconds * 1e6,
           t.tuned_seconds * 1e6, t.note[0] ? ": " : "", t.note);
    CHECK(t.source == DMLOPS_TUNING_SOURCE_TUNED, "source %d: %s", (int)t.source, t.note);
    /* Exact: a second operator of the class runs the configuration chosen. */
    CHECK(vkt_same_as_cpu(ctx, &c.desc, 1, c.sizes, 50, NULL, NULL, NULL));
    dmlops_operator_destroy(op);
    vkt_done(ctx);
    return t;
}

TEST(tuning_auto_never_picks_a_slow_candidate)
{
    if (!dmt_backend_wanted("vulkan")) return;
    dm_tune_config chosen;
    /* Everything but the defaults made 20x slower: the defaults stay. */
    dmlops_operator_tuning t = tune_slice(NULL, &chosen);
    if (!t.class_key[0]) return; /* no device */
    dm_tune_config first = chosen; /* hook_defaults: the defaults that tuning saw */
    t = tune_slice(slow_all_but_defaults, &chosen);
    CHECK(!t.config[0] && t.tuned_seconds == t.default_seconds, "a slowed candidate chosen: \"%s\"", t.config);
    /* The defaults made 20x slower: something else wins, and it is exact (tune_slice). */
    t = tune_slice(slow_defaults, &chosen);
    CHECK(t.config[0] && t.tuned_seconds < t.default_seconds, "the slowed defaults kept");
    /* What won unhindered, made slow: never chosen again. */
    if (!dm_tune_config_equal(&first, &hook_defaults)) {
        hook_slow = first;
        t = tune_slice(slow_one, &chosen);
        CHECK(!dm_tune_config_equal(&chosen, &first), "the slowed winner chosen again: \"%s\"", t.config);
    }
}
