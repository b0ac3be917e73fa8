/* The tuner (issue 49; docs/api.md, "Tuning"): its file's reader and writer, which must
 * refuse every damaged, foreign or stale file and never crash (the fuzz target
 * test/fuzz_tuning.c drives the reader with arbitrary bytes). White-box: the file format
 * is internal, so this links the library's objects. */
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#include <unistd.h> /* getpid: harness.h names Windows' */
#endif

#include "../src/tune/tune_file.h"
#include "../src/tune/tune_knobs.h"
#include "harness.h"

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
