#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    char kind;
    uint32_t size;
    DML_TENSOR_DATA_TYPE type;
} npy_types[] = {
    {'f', 2, DML_TENSOR_DATA_TYPE_FLOAT16}, {'f', 4, DML_TENSOR_DATA_TYPE_FLOAT32},
    {'f', 8, DML_TENSOR_DATA_TYPE_FLOAT64}, {'i', 1, DML_TENSOR_DATA_TYPE_INT8},
    {'i', 2, DML_TENSOR_DATA_TYPE_INT16},   {'i', 4, DML_TENSOR_DATA_TYPE_INT32},
    {'i', 8, DML_TENSOR_DATA_TYPE_INT64},   {'u', 1, DML_TENSOR_DATA_TYPE_UINT8},
    {'u', 2, DML_TENSOR_DATA_TYPE_UINT16},  {'u', 4, DML_TENSOR_DATA_TYPE_UINT32},
    {'u', 8, DML_TENSOR_DATA_TYPE_UINT64},  {'b', 1, DML_TENSOR_DATA_TYPE_UINT8},
};
#define NPY_TYPE_COUNT (sizeof npy_types / sizeof npy_types[0])

static void npy_report(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void npy_report(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
}
#define npy_fail(...) (npy_report(__VA_ARGS__), false)

uint32_t npy_element_size(DML_TENSOR_DATA_TYPE type)
{
    for (size_t i = 0; i < NPY_TYPE_COUNT; i++)
        if (npy_types[i].type == type) return npy_types[i].size;
    return 0;
}

static bool host_is_little(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

const char *npy_descr(DML_TENSOR_DATA_TYPE type)
{
    /* Data stays in host order; the descr says which order that is. */
    static const char *const le[] = {NULL,  "<f4", "<f2", "<u4", "<u2", "|u1",
                                     "<i4", "<i2", "|i1", "<f8", "<u8", "<i8"};
    static const char *const be[] = {NULL,  ">f4", ">f2", ">u4", ">u2", "|u1",
                                     ">i4", ">i2", "|i1", ">f8", ">u8", ">i8"};
    unsigned t = (unsigned)type;
    if (t >= sizeof le / sizeof le[0]) return NULL;
    return host_is_little() ? le[t] : be[t];
}

void npy_free(npy_array *a)
{
    if (!a) return;
    free(a->data);
    a->data = NULL;
}

/* ---- the header: a Python dict literal such as
 *      {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }                  ---- */

typedef struct npy_lex {
    const char *p, *end;
} npy_lex;

static void lex_ws(npy_lex *l)
{
    while (l->p < l->end && (*l->p == ' ' || *l->p == '\t' || *l->p == '\n' || *l->p == '\r')) l->p++;
}

/* Up to 20 header bytes from l->p for a message, printable ASCII only: the header is not
 * NUL-terminated, so it is never formatted with %s directly. */
static const char *lex_near(const npy_lex *l, char out[24])
{
    size_t n = 0;
    for (const char *c = l->p; c < l->end && n < 20; c++) out[n++] = *c >= 0x20 && *c < 0x7f ? *c : '?';
    out[n] = '\0';
    return out;
}

static bool lex_char(npy_lex *l, char c)
{
    lex_ws(l);
    if (l->p < l->end && *l->p == c) {
        l->p++;
        return true;
    }
    return false;
}

static bool lex_string(npy_lex *l, char *out, size_t cap)
{
    lex_ws(l);
    if (l->p >= l->end || (*l->p != '\'' && *l->p != '"')) return false;
    char q = *l->p++;
    size_t n = 0;
    while (l->p < l->end && *l->p != q) {
        if (*l->p == '\\' || n + 1 >= cap) return false;
        out[n++] = *l->p++;
    }
    if (l->p >= l->end) return false;
    l->p++;
    out[n] = '\0';
    return true;
}

static bool lex_word(npy_lex *l, const char *w)
{
    lex_ws(l);
    size_t n = strlen(w);
    if ((size_t)(l->end - l->p) < n || memcmp(l->p, w, n) != 0) return false;
    l->p += n;
    return true;
}

static bool lex_uint(npy_lex *l, uint64_t *v)
{
    lex_ws(l);
    if (l->p >= l->end || *l->p < '0' || *l->p > '9') return false;
    uint64_t x = 0;
    while (l->p < l->end && *l->p >= '0' && *l->p <= '9') {
        unsigned d = (unsigned)(*l->p++ - '0');
        if (x > (UINT64_MAX - d) / 10) return false;
        x = x * 10 + d;
    }
    if (l->p < l->end && *l->p == 'L') l->p++; /* written by Python 2 */
    *v = x;
    return true;
}

static bool parse_descr(const char *d, npy_array *a, bool *swap, char *err, size_t errlen)
{
    char order = '=';
    const char *s = d;
    if (*s == '<' || *s == '>' || *s == '|' || *s == '=') order = *s++;
    char kind = *s ? *s++ : '\0';
    char *end;
    errno = 0;
    unsigned long size = strtoul(s, &end, 10);
    if (!*s || *end || errno) return npy_fail(err, errlen, "unsupported dtype '%s'", d);
    for (size_t i = 0; i < NPY_TYPE_COUNT; i++)
        if (npy_types[i].kind == kind && npy_types[i].size == size) {
            if (order == '|' && size > 1)
                return npy_fail(err, errlen, "dtype '%s' has no byte order but a %lu-byte type", d, size);
            a->type = npy_types[i].type;
            bool file_little = order == '<' || (order == '=' && host_is_little());
            *swap = size > 1 && order != '|' && file_little != host_is_little();
            return true;
        }
    return npy_fail(err, errlen,
                    "unsupported dtype '%s' (supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1, any byte order)", d);
}

static bool parse_header(const char *h, size_t len, npy_array *a, bool *swap, char *err, size_t errlen)
{
    npy_lex l = {h, h + len};
    bool have_descr = false, have_order = false, have_shape = false;
    if (!lex_char(&l, '{')) return npy_fail(err, errlen, "header is not a Python dict");
    while (!lex_char(&l, '}')) {
        char key[32], val[64];
        char near[24];
        if (!lex_string(&l, key, sizeof key) || !lex_char(&l, ':'))
            return l.p < l.end ? npy_fail(err, errlen, "malformed header near '%s'", lex_near(&l, near))
                               : npy_fail(err, errlen, "malformed header: it ends inside a key");
        if (!strcmp(key, "descr") && !have_descr) {
            if (!lex_string(&l, val, sizeof val))
                return npy_fail(err, errlen, "'descr' is not a simple dtype string (structured arrays are not supported)");
            if (!parse_descr(val, a, swap, err, errlen)) return false;
            have_descr = true;
        } else if (!strcmp(key, "fortran_order") && !have_order) {
            if (lex_word(&l, "True"))
                return npy_fail(err, errlen, "fortran_order is True: only C-order arrays are supported "
                                             "(save np.ascontiguousarray(a) instead)");
            if (!lex_word(&l, "False")) return npy_fail(err, errlen, "fortran_order is neither True nor False");
            have_order = true;
        } else if (!strcmp(key, "shape") && !have_shape) {
            if (!lex_char(&l, '(')) return npy_fail(err, errlen, "'shape' is not a tuple");
            a->ndim = 0;
            a->count = 1;
            while (!lex_char(&l, ')')) {
                uint64_t v;
                if (a->ndim == NPY_MAX_DIMS) return npy_fail(err, errlen, "more than %d dimensions", NPY_MAX_DIMS);
                if (!lex_uint(&l, &v)) return npy_fail(err, errlen, "'shape' holds something other than integers");
                if (v && a->count > UINT64_MAX / v) return npy_fail(err, errlen, "the element count overflows");
                a->count *= v;
                a->shape[a->ndim++] = v;
                if (!lex_char(&l, ',') && !(lex_ws(&l), l.p < l.end && *l.p == ')'))
                    return npy_fail(err, errlen, "malformed 'shape' tuple");
            }
            have_shape = true;
        } else {
            return npy_fail(err, errlen, "unexpected or repeated header key '%s'", key);
        }
        if (!lex_char(&l, ',') && !(lex_ws(&l), l.p < l.end && *l.p == '}'))
            return l.p < l.end ? npy_fail(err, errlen, "malformed header near '%s'", lex_near(&l, near))
                               : npy_fail(err, errlen, "malformed header: it ends before the closing '}'");
    }
    lex_ws(&l);
    if (l.p != l.end) return npy_fail(err, errlen, "trailing characters after the header dict");
    if (!have_descr || !have_order || !have_shape)
        return npy_fail(err, errlen, "header lacks '%s'", !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
    return true;
}

static void swap_bytes(uint8_t *p, uint64_t count, uint32_t size)
{
    for (uint64_t i = 0; i < count; i++, p += size)
        for (uint32_t j = 0; j < size / 2; j++) {
            uint8_t t = p[j]; // NOLINT(clang-analyzer-core.uninitialized.Assign): filled by memcpy from the file
            p[j] = p[size - 1 - j];
            p[size - 1 - j] = t;
        }
}

bool npy_parse(const void *bytes, size_t len, npy_array *out, char *err, size_t errlen)
{
    const uint8_t *b = bytes;
    memset(out, 0, sizeof *out);
    if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0) return npy_fail(err, errlen, "not a .npy file (bad magic)");
    unsigned major = b[6], minor = b[7];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) return npy_fail(err, errlen, "truncated header");
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
        hstart = 12;
    } else {
        return npy_fail(err, errlen, "unsupported .npy version %u.%u (1.0, 2.0 and 3.0 are)", major, minor);
    }
    if (hlen > len - hstart) return npy_fail(err, errlen, "truncated header (%zu bytes announced)", hlen);
    npy_array a = {0};
    bool swap = false;
    if (!parse_header((const char *)b + hstart, hlen, &a, &swap, err, errlen)) return false;
    uint32_t esize = npy_element_size(a.type);
    if (a.count > UINT64_MAX / esize) return npy_fail(err, errlen, "the data size overflows");
    uint64_t need = a.count * esize, have = len - hstart - hlen;
    if (have != need)
        return npy_fail(err, errlen, "the shape needs %llu bytes of data but the file holds %llu",
                        (unsigned long long)need, (unsigned long long)have);
    a.data = malloc(need ? (size_t)need : 1);
    if (!a.data) return npy_fail(err, errlen, "out of memory for %llu bytes", (unsigned long long)need);
    memcpy(a.data, b + hstart + hlen, (size_t)need);
    if (swap) swap_bytes(a.data, a.count, esize);
    *out = a;
    return true;
}

/* The bytes of a header a stream may announce: numpy writes a few hundred (and reads at
 * most 10000 by default); a header announcing gigabytes would be read whole otherwise. */
#define NPY_MAX_HEADER (1u << 20)

/* Reads n bytes; false (and a message) when the stream ends or fails first. */
static bool read_exact(FILE *f, void *dst, size_t n, const char *what, char *err, size_t errlen)
{
    const size_t got = n ? fread(dst, 1, n, f) : 0;
    if (got == n) return true;
    if (ferror(f)) return npy_fail(err, errlen, "read error: %s", strerror(errno));
    return npy_fail(err, errlen, "%s", what);
}

bool npy_read_stream(FILE *f, uint64_t most, uint64_t *announced, npy_array *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (announced) *announced = 0;
    uint8_t pre[12];
    if (!read_exact(f, pre, 10, "not a .npy file (bad magic)", err, errlen)) return false;
    if (memcmp(pre, "\x93NUMPY", 6) != 0) return npy_fail(err, errlen, "not a .npy file (bad magic)");
    const unsigned major = pre[6], minor = pre[7];
    size_t hlen;
    if (major == 1) {
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    } else if (major == 2 || major == 3) {
        if (!read_exact(f, pre + 10, 2, "truncated header", err, errlen)) return false;
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
    } else {
        return npy_fail(err, errlen, "unsupported .npy version %u.%u (1.0, 2.0 and 3.0 are)", major, minor);
    }
    if (hlen > NPY_MAX_HEADER)
        return npy_fail(err, errlen, "a header of %zu bytes (more than the %u a .npy may have here)", hlen, NPY_MAX_HEADER);
    char *h = malloc(hlen ? hlen : 1);
    if (!h) return npy_fail(err, errlen, "out of memory for the header");
    npy_array a = {0};
    bool swap = false;
    char what[64];
    snprintf(what, sizeof what, "truncated header (%zu bytes announced)", hlen);
    const bool ok = read_exact(f, h, hlen, what, err, errlen) && parse_header(h, hlen, &a, &swap, err, errlen);
    free(h);
    if (!ok) return false;
    const uint32_t esize = npy_element_size(a.type);
    if (a.count > UINT64_MAX / esize) return npy_fail(err, errlen, "the data size overflows");
    const uint64_t need = a.count * esize;
    if (announced) *announced = need;
    /* Checked before anything is allocated for it: the header of a pipe or device may
     * announce anything. */
    if (most && need > most)
        return npy_fail(err, errlen, "its shape needs %llu bytes of data, more than the %llu bytes left for it",
                        (unsigned long long)need, (unsigned long long)most);
    if (need > SIZE_MAX - 1) return npy_fail(err, errlen, "its shape needs more bytes than this host can address");
    a.data = malloc(need ? (size_t)need : 1);
    if (!a.data) return npy_fail(err, errlen, "out of memory for %llu bytes", (unsigned long long)need);
    const size_t got = need ? fread(a.data, 1, (size_t)need, f) : 0;
    /* One byte past the data tells a file that holds more from one that ends there. */
    const bool more = got == need && fgetc(f) != EOF;
    if (got != need || more || ferror(f)) {
        const int e = errno;
        const bool failed = ferror(f);
        free(a.data);
        if (failed) return npy_fail(err, errlen, "read error: %s", strerror(e));
        struct stat st;
        const size_t head = (major == 1 ? 10 : 12) + hlen;
        if (more && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > head)
            return npy_fail(err, errlen, "the shape needs %llu bytes of data but the file holds %llu",
                            (unsigned long long)need, (unsigned long long)((uint64_t)st.st_size - head));
        if (more)
            return npy_fail(err, errlen, "the shape needs %llu bytes of data but the file holds more",
                            (unsigned long long)need);
        return npy_fail(err, errlen, "the shape needs %llu bytes of data but the file holds %llu",
                        (unsigned long long)need, (unsigned long long)got);
    }
    if (swap) swap_bytes(a.data, a.count, esize);
    *out = a;
    return true;
}

/* Writes the parts to an open stream; false with errno set on the first failure. */
static bool write_parts(FILE *f, const void *const *parts, const size_t *lens, int n)
{
    for (int i = 0; i < n; i++)
        if (lens[i] && fwrite(parts[i], 1, lens[i], f) != lens[i]) return false;
    return fflush(f) == 0;
}

/* A target that exists and is neither a regular file nor a directory (/dev/null, a FIFO,
 * a terminal) cannot be replaced by a rename, which would swap the device node for a
 * file: it is written in place, as is the target of a dangling symbolic link. */
static bool write_in_place(const char *path, const void *const *parts, const size_t *lens, int n, char *err,
                           size_t errlen)
{
    FILE *f = fopen(path, "wb");
    if (!f) return npy_fail(err, errlen, "cannot open: %s", strerror(errno));
    bool ok = write_parts(f, parts, lens, n);
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        saved = errno;
        ok = false;
    }
    return ok || npy_fail(err, errlen, "write error: %s", strerror(saved));
}

/* Writes the parts to a temporary file beside path, then renames it over path: a write
 * that fails (disk full, a size limit) leaves any previous file whole, and no temporary.
 * A symbolic link is followed, so that the file it names is replaced, not the link. The
 * temporary's name is short (".dmlops-XXXXXX" in the target's directory), so that any
 * name the file system takes as a target also leaves room for it. */
static bool write_atomic(const char *path, const void *const *parts, const size_t *lens, int n, char *err,
                         size_t errlen)
{
    struct stat st;
    const bool exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return write_in_place(path, parts, lens, n, err, errlen);
    /* A link to nothing yet: creating through it makes the file it names. */
    if (!exists && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) return write_in_place(path, parts, lens, n, err, errlen);
    char *real = exists ? realpath(path, NULL) : NULL;
    const char *target = real ? real : path;
    const char *slash = strrchr(target, '/');
    const size_t dl = slash ? (size_t)(slash - target) + 1 : 0;
    char *tmp = malloc(dl + 16);
    if (!tmp) {
        free(real);
        return npy_fail(err, errlen, "out of memory");
    }
    memcpy(tmp, target, dl);
    memcpy(tmp + dl, ".dmlops-XXXXXX", 15);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        free(real);
        return npy_fail(err, errlen, "cannot create a file beside it: %s", strerror(e));
    }
    /* mkstemp makes the file 0600: give it the mode a plain create would (or the old file's). */
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = exists ? st.st_mode & 07777 : 0666 & ~mask;
    bool ok = fchmod(fd, mode) == 0;
    int saved = errno;
    FILE *f = ok ? fdopen(fd, "wb") : NULL;
    if (!f) {
        saved = errno;
        close(fd);
        ok = false;
    }
    if (ok && (!write_parts(f, parts, lens, n) || fsync(fileno(f)) != 0)) {
        saved = errno;
        ok = false;
    }
    if (f && fclose(f) != 0 && ok) {
        saved = errno;
        ok = false;
    }
    if (ok && rename(tmp, target) != 0) {
        saved = errno;
        unlink(tmp);
        free(tmp);
        free(real);
        return npy_fail(err, errlen, "cannot replace it: %s", strerror(saved));
    }
    if (!ok) unlink(tmp);
    free(tmp);
    free(real);
    if (!ok) return npy_fail(err, errlen, "write error: %s (the previous file, if any, is unchanged)", strerror(saved));
    return true;
}

bool npy_write_file(const char *path, const npy_array *a, char *err, size_t errlen)
{
    const char *descr = npy_descr(a->type);
    uint32_t esize = npy_element_size(a->type);
    if (!descr || !esize) return npy_fail(err, errlen, "data type %d has no .npy equivalent", (int)a->type);
    if (a->ndim > NPY_MAX_DIMS) return npy_fail(err, errlen, "more than %d dimensions", NPY_MAX_DIMS);
    char shape[NPY_MAX_DIMS * 22 + 4];
    size_t n = 0;
    shape[n++] = '(';
    for (uint32_t i = 0; i < a->ndim; i++)
        n += (size_t)snprintf(shape + n, sizeof shape - n, "%s%llu", i ? ", " : "", (unsigned long long)a->shape[i]);
    snprintf(shape + n, sizeof shape - n, "%s)", a->ndim == 1 ? "," : "");

    /* The whole preamble is padded to a multiple of 64 bytes, as NumPy does, so that the
     * data is aligned when the file is memory-mapped. */
    char header[sizeof shape + 128];
    int hl = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape);
    size_t hlen = (size_t)hl + 1;
    hlen += (64 - (10 + hlen) % 64) % 64;
    if (hlen >= sizeof header) return npy_fail(err, errlen, "header too long");
    memset(header + hl, ' ', hlen - (size_t)hl);
    header[hlen - 1] = '\n';
    uint8_t pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (uint8_t)(hlen & 0xff), (uint8_t)(hlen >> 8)};

    const void *parts[3] = {pre, header, a->data};
    size_t lens[3] = {sizeof pre, hlen, (size_t)(a->count * esize)};
    return write_atomic(path, parts, lens, 3, err, errlen);
}

bool npy_write_raw_file(const char *path, const void *data, uint64_t len, char *err, size_t errlen)
{
    const void *parts[1] = {data};
    size_t lens[1] = {(size_t)len};
    return write_atomic(path, parts, lens, 1, err, errlen);
}
