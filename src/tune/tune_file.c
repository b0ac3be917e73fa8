/* Tuning files as text (tune_file.h). One line per fact, in a fixed order, with a
 * checksum line last:
 *
 *   # comment lines (the writer's two; any line starting with '#' before the checksum)
 *   dmlops-tuning 1
 *   library 1.0.0
 *   knobs <16 hex digits>        the knob table's fingerprint
 *   kernels <16 hex digits>      the kernels' fingerprint
 *   vendor 0x<8 hex digits>
 *   device 0x<8 hex digits>
 *   driver 0x<8 hex digits>
 *   uuid xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
 *   name <the device's name, for people>
 *   class <key> NAME=value ... default_ns=<n> tuned_ns=<n>    (every knob, in table order)
 *   checksum <16 hex digits>     FNV-1a 64 of every byte before this line
 *
 * The reader takes nothing it would not write: text is checked byte by byte, and a line
 * too long, a control character, a value out of its knob's range or a duplicate class
 * refuses the whole file with the line number. */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "tune_file.h"
#include "../fault.h"
#include "../platform/platform.h"

static uint64_t dm_fnv1a(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    return h;
}

/* ---- reading ------------------------------------------------------------------------ */

typedef struct dm_line {
    const char *p; /* the line, without its newline */
    size_t n;
    unsigned no;   /* 1-based */
} dm_line;

typedef struct dm_reader {
    char *err;
    size_t errsize;
} dm_reader;

static bool dm_bad(dm_reader *r, const dm_line *l, const char *what)
{
    if (l) snprintf(r->err, r->errsize, "line %u: %s", l->no, what);
    else snprintf(r->err, r->errsize, "%s", what);
    return false;
}

/* Whether the line is `word` followed by a space; moves past both. */
static bool dm_take_word(dm_line *l, const char *word)
{
    const size_t n = strlen(word);
    if (l->n <= n || memcmp(l->p, word, n) != 0 || l->p[n] != ' ') return false;
    l->p += n + 1;
    l->n -= n + 1;
    return true;
}

static int dm_hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Exactly `digits` lowercase hex digits. */
static bool dm_parse_hex(const char *p, size_t n, size_t digits, uint64_t *v)
{
    if (n != digits) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        const int d = dm_hex_digit(p[i]);
        if (d < 0) return false;
        x = x << 4 | (uint64_t)d;
    }
    *v = x;
    return true;
}

static bool dm_parse_u32_hex(const dm_line *l, uint32_t *v)
{
    uint64_t x;
    if (l->n != 10 || l->p[0] != '0' || l->p[1] != 'x' || !dm_parse_hex(l->p + 2, 8, 8, &x)) return false;
    *v = (uint32_t)x;
    return true;
}

/* Decimal without a leading zero (but "0"), below 10^15 (a month in nanoseconds). */
static bool dm_parse_dec(const char *p, size_t n, uint64_t *v)
{
    if (n == 0 || n > 15 || (n > 1 && p[0] == '0')) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
        x = x * 10 + (uint64_t)(p[i] - '0');
    }
    *v = x;
    return true;
}

static bool dm_parse_uuid(const dm_line *l, uint8_t uuid[16])
{
    if (l->n != 36) return false;
    size_t b = 0;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (l->p[i++] != '-') return false;
            continue;
        }
        uint64_t x;
        if (!dm_parse_hex(l->p + i, 2, 2, &x)) return false;
        uuid[b++] = (uint8_t)x;
        i += 2;
    }
    return b == 16;
}

static bool dm_key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '^' || c == '-';
}

/* The next space-separated token of l (moving past it and one space). */
static bool dm_token(dm_line *l, const char **t, size_t *n)
{
    size_t i = 0;
    while (i < l->n && l->p[i] != ' ') i++;
    if (i == 0) return false;
    *t = l->p;
    *n = i;
    const size_t skip = i < l->n ? i + 1 : i;
    if (i < l->n && i + 1 == l->n) return false; /* a trailing space */
    l->p += skip;
    l->n -= skip;
    return true;
}

/* `NAME=` then the value's text. */
static bool dm_take_pair(dm_line *l, const char *name, const char **v, size_t *vn)
{
    const char *t;
    size_t n;
    const size_t nn = strlen(name);
    if (!dm_token(l, &t, &n) || n <= nn + 1 || memcmp(t, name, nn) != 0 || t[nn] != '=') return false;
    *v = t + nn + 1;
    *vn = n - nn - 1;
    return true;
}

static bool dm_parse_class(dm_reader *r, dm_line l, dm_tune_file *f)
{
    const dm_line at = l;
    dm_tune_entry e;
    memset(&e, 0, sizeof e);
    const char *t, *v;
    size_t n, vn;
    if (!dm_token(&l, &t, &n) || n >= DM_TUNE_KEY_MAX) return dm_bad(r, &at, "a class key of 1 to 63 characters");
    for (size_t i = 0; i < n; i++)
        if (!dm_key_char(t[i])) return dm_bad(r, &at, "a class key holds letters, digits and . _ ^ - only");
    memcpy(e.key, t, n);
    uint32_t nk;
    const dm_tune_knob *knobs = dm_tune_knobs(&nk);
    for (uint32_t k = 0; k < nk; k++) {
        char what[96];
        snprintf(what, sizeof what, "%s=VALUE expected, a value that DMLOPS_VK_%s takes, or auto", knobs[k].name,
                 knobs[k].name);
        if (!dm_take_pair(&l, knobs[k].name, &v, &vn) || !dm_tune_value_parse(&knobs[k], v, vn, &e.config.v[k]))
            return dm_bad(r, &at, what);
    }
    if (!dm_take_pair(&l, "default_ns", &v, &vn) || !dm_parse_dec(v, vn, &e.default_ns))
        return dm_bad(r, &at, "default_ns=NANOSECONDS expected after the knobs");
    if (!dm_take_pair(&l, "tuned_ns", &v, &vn) || !dm_parse_dec(v, vn, &e.tuned_ns))
        return dm_bad(r, &at, "tuned_ns=NANOSECONDS expected after default_ns");
    if (l.n) return dm_bad(r, &at, "text after tuned_ns");
    if (dm_tune_file_find(f, e.key)) return dm_bad(r, &at, "a second entry for the same class");
    if (f->count == DM_TUNE_FILE_MAX_ENTRIES) return dm_bad(r, &at, "more classes than a file holds (4096)");
    if (!dm_tune_file_put(f, &e)) return dm_bad(r, &at, "out of host memory");
    return true;
}

/* The header line `index` (0-based, after the format line) into f->id. */
static bool dm_parse_header(dm_reader *r, dm_line l, unsigned index, dm_tune_file *f)
{
    dm_tune_identity *id = &f->id;
    const dm_line at = l;
    switch (index) {
    case 0:
        if (!dm_take_word(&l, "library") || l.n == 0 || l.n >= sizeof id->library)
            return dm_bad(r, &at, "library VERSION expected");
        for (size_t i = 0; i < l.n; i++)
            if (!dm_key_char(l.p[i]) && l.p[i] != '+') return dm_bad(r, &at, "a library version of . - + letters and digits");
        memcpy(id->library, l.p, l.n);
        return true;
    case 1:
    case 2: {
        uint64_t *v = index == 1 ? &id->knobs : &id->kernels;
        if (!dm_take_word(&l, index == 1 ? "knobs" : "kernels") || !dm_parse_hex(l.p, l.n, 16, v))
            return dm_bad(r, &at, index == 1 ? "knobs <16 hex digits> expected" : "kernels <16 hex digits> expected");
        return true;
    }
    case 3:
        if (!dm_take_word(&l, "vendor") || !dm_parse_u32_hex(&l, &id->vendor_id)) return dm_bad(r, &at, "vendor 0x<8 hex digits> expected");
        return true;
    case 4:
        if (!dm_take_word(&l, "device") || !dm_parse_u32_hex(&l, &id->device_id)) return dm_bad(r, &at, "device 0x<8 hex digits> expected");
        return true;
    case 5:
        if (!dm_take_word(&l, "driver") || !dm_parse_u32_hex(&l, &id->driver_version)) return dm_bad(r, &at, "driver 0x<8 hex digits> expected");
        return true;
    case 6:
        if (!dm_take_word(&l, "uuid") || !dm_parse_uuid(&l, id->uuid)) return dm_bad(r, &at, "uuid xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx expected");
        return true;
    case 7:
        if (!dm_take_word(&l, "name") || l.n >= sizeof id->device_name) return dm_bad(r, &at, "name DEVICE (at most 127 bytes) expected");
        memcpy(id->device_name, l.p, l.n);
        return true;
    default:
        return dm_bad(r, &at, "a header line expected");
    }
}

#define DM_HEADER_LINES 8 /* library .. name, after the format line */

bool dm_tune_file_parse(const char *text, size_t size, dm_tune_file *f, char *err, size_t errsize)
{
    dm_reader r = {err, errsize};
    memset(f, 0, sizeof *f);
    if (errsize) err[0] = 0;
    if (size == 0) return dm_bad(&r, NULL, "empty");
    if (size > DM_TUNE_FILE_MAX_BYTES) return dm_bad(&r, NULL, "larger than a tuning file can be (4 MiB)");
    if (text[size - 1] != '\n') return dm_bad(&r, NULL, "cut short: the last line has no newline");
    /* The checksum line is the last one; it covers every byte before it. */
    size_t last = size - 1;
    while (last > 0 && text[last - 1] != '\n') last--;
    dm_line sum = {text + last, size - 1 - last, 0};
    uint64_t want;
    if (!dm_take_word(&sum, "checksum") || !dm_parse_hex(sum.p, sum.n, 16, &want))
        return dm_bad(&r, NULL, "cut short or damaged: it does not end with its checksum line");
    if (dm_fnv1a(text, last) != want) return dm_bad(&r, NULL, "damaged: its checksum does not match its contents");
    unsigned no = 0, header = 0;
    bool format = false;
    for (size_t at = 0; at < last;) {
        const char *nl = memchr(text + at, '\n', last - at); /* there is one: text[last - 1] */
        dm_line l = {text + at, (size_t)(nl - (text + at)), ++no};
        at += l.n + 1;
        if (l.n > DM_TUNE_LINE_MAX) return dm_bad(&r, &l, "longer than 1024 bytes");
        for (size_t i = 0; i < l.n; i++)
            if ((unsigned char)l.p[i] < 0x20 || l.p[i] == 0x7f) return dm_bad(&r, &l, "a control character");
        if (l.n && l.p[0] == '#') continue;
        if (!format) {
            const char *want_format = "dmlops-tuning 1";
            if (!dm_take_word(&l, "dmlops-tuning")) return dm_bad(&r, &l, "not a tuning file: it does not start with dmlops-tuning");
            if (l.n != 1 || l.p[0] != '0' + DM_TUNE_FILE_VERSION) {
                char what[96];
                snprintf(what, sizeof what, "format \"%.*s\", where this library reads \"%s\"", (int)(l.n < 16 ? l.n : 16),
                         l.p, want_format);
                return dm_bad(&r, &l, what);
            }
            format = true;
        } else if (header < DM_HEADER_LINES) {
            if (!dm_parse_header(&r, l, header++, f)) return false;
        } else if (!dm_take_word(&l, "class")) {
            return dm_bad(&r, &l, "class KEY ... expected");
        } else if (!dm_parse_class(&r, l, f)) {
            return false;
        }
    }
    if (!format) return dm_bad(&r, NULL, "not a tuning file: it does not start with dmlops-tuning");
    if (header < DM_HEADER_LINES) return dm_bad(&r, NULL, "the header is incomplete");
    return true;
}

/* ---- writing ---------------------------------------------------------------------------- */

typedef struct dm_text {
    char *p;
    size_t n, cap;
    bool failed;
} dm_text;

/* Appends a line made by snprintf into line (w: what snprintf returned). */
static void dm_put(dm_text *t, const char *line, int w)
{
    if (w < 0 || w > DM_TUNE_LINE_MAX || t->failed) {
        t->failed = true;
        return;
    }
    if (w == 0) return;
    if (t->n + (size_t)w > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 4096;
        while (cap < t->n + (size_t)w) cap *= 2;
        char *q = dm_realloc(t->p, cap);
        if (!q) {
            t->failed = true;
            return;
        }
        t->p = q;
        t->cap = cap;
    }
    memcpy(t->p + t->n, line, (size_t)w);
    t->n += (size_t)w;
}

char *dm_tune_file_format(const dm_tune_file *f, size_t *size)
{
    const dm_tune_identity *id = &f->id;
    dm_text t = {0};
    char name[sizeof id->device_name];
    size_t n = 0;
    for (; n + 1 < sizeof name && id->device_name[n]; n++)
        name[n] = (unsigned char)id->device_name[n] < 0x20 || id->device_name[n] == 0x7f ? ' ' : id->device_name[n];
    name[n] = 0;
    const uint8_t *u = id->uuid;
    char line[DM_TUNE_LINE_MAX + 2];
    dm_put(&t, line, snprintf(line, sizeof line, "%s", "# libdmlops tuning file: the fastest exact configuration of each class of "
                                                        "operators on one device\n"));
    dm_put(&t, line, snprintf(line, sizeof line, "%s", "# and driver (docs/api.md, \"Tuning\"). Written by the library; "
                                                        "a changed byte fails its checksum.\n"));
    dm_put(&t, line, snprintf(line, sizeof line, "dmlops-tuning %d\nlibrary %s\nknobs %016llx\nkernels %016llx\n",
                              DM_TUNE_FILE_VERSION, id->library, (unsigned long long)id->knobs,
                              (unsigned long long)id->kernels));
    dm_put(&t, line, snprintf(line, sizeof line, "vendor 0x%08x\ndevice 0x%08x\ndriver 0x%08x\n", id->vendor_id,
                              id->device_id, id->driver_version));
    dm_put(&t, line, snprintf(line, sizeof line, "uuid %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n",
                              u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
                              u[15]));
    dm_put(&t, line, snprintf(line, sizeof line, "name %s\n", name));
    for (uint32_t i = 0; i < f->count; i++) {
        const dm_tune_entry *e = &f->entries[i];
        char config[DM_TUNE_LINE_MAX];
        dm_tune_config_format(&e->config, NULL, config, sizeof config);
        dm_put(&t, line, snprintf(line, sizeof line, "class %s %s default_ns=%llu tuned_ns=%llu\n", e->key, config,
                                  (unsigned long long)e->default_ns, (unsigned long long)e->tuned_ns));
    }
    const uint64_t sum = t.failed ? 0 : dm_fnv1a(t.p, t.n);
    dm_put(&t, line, snprintf(line, sizeof line, "checksum %016llx\n", (unsigned long long)sum));
    if (t.failed) {
        free(t.p);
        return NULL;
    }
    *size = t.n;
    return t.p;
}

void dm_tune_file_free(dm_tune_file *f)
{
    free(f->entries);
    f->entries = NULL;
    f->count = f->cap = 0;
}

const dm_tune_entry *dm_tune_file_find(const dm_tune_file *f, const char *key)
{
    for (uint32_t i = 0; i < f->count; i++)
        if (!strcmp(f->entries[i].key, key)) return &f->entries[i];
    return NULL;
}

bool dm_tune_file_put(dm_tune_file *f, const dm_tune_entry *e)
{
    for (uint32_t i = 0; i < f->count; i++)
        if (!strcmp(f->entries[i].key, e->key)) {
            f->entries[i] = *e;
            return true;
        }
    if (f->count == DM_TUNE_FILE_MAX_ENTRIES) return false;
    if (f->count == f->cap) {
        const uint32_t cap = f->cap ? f->cap * 2 : 16;
        dm_tune_entry *q = dm_realloc(f->entries, cap * sizeof *q);
        if (!q) return false;
        f->entries = q;
        f->cap = cap;
    }
    f->entries[f->count++] = *e;
    return true;
}

/* ---- files ------------------------------------------------------------------------------- */

bool dm_tune_file_load(const char *path, dm_tune_file *f, bool *missing, char *err, size_t errsize)
{
    memset(f, 0, sizeof *f);
    *missing = false;
    FILE *in = dm_fopen_regular(path); /* never a FIFO or a device node: the path may come from the environment */
    if (!in) {
        *missing = true;
        snprintf(err, errsize, "cannot be opened");
        return false;
    }
    /* Read as it grows, up to one byte past the largest file, which the parser refuses. */
    char *text = NULL;
    size_t n = 0, cap = 0;
    bool failed = false;
    while (!failed && n == cap && cap <= DM_TUNE_FILE_MAX_BYTES) {
        const size_t next = cap ? cap * 2 : 65536;
        char *q = dm_realloc(text, next + 1);
        if (!q) {
            free(text);
            text = NULL;
            break;
        }
        text = q;
        cap = next;
        n += fread(text + n, 1, cap - n, in);
        failed = ferror(in) != 0;
    }
    fclose(in);
    bool ok = false;
    if (!text) snprintf(err, errsize, "out of host memory reading it");
    else if (failed) snprintf(err, errsize, "cannot be read");
    else ok = dm_tune_file_parse(text, n, f, err, errsize);
    free(text);
    return ok;
}

bool dm_tune_file_save(const char *path, const dm_tune_file *f, char *err, size_t errsize)
{
    size_t n = 0;
    char *text = dm_tune_file_format(f, &n);
    if (!text) {
        snprintf(err, errsize, "out of host memory writing it");
        return false;
    }
    /* Written whole beside the file and renamed over it, as the pipeline cache is: a reader
     * sees the old file or the new one, and a device node or FIFO named is left alone. */
    const void *parts[1] = {text};
    const int rc = dm_write_file_atomic(path, parts, &n, 1);
    const bool ok = rc == 0;
    if (!ok) snprintf(err, errsize, "cannot be written (%s)", rc == EINVAL ? "not a regular file" : strerror(rc));
    free(text);
    return ok;
}
