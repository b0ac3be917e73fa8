/* The strict JSON reader of json.h: a recursive-descent parser into nodes that live in one
 * arena, freed at once. */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena -------------------------------------------------------------------------- */

typedef struct json_chunk {
    struct json_chunk *next;
    size_t used, cap;
} json_chunk;

#define JSON_CHUNK_DATA(c) ((unsigned char *)(c) + ((sizeof(json_chunk) + 15) & ~(size_t)15))

static void *arena_alloc(void **arena, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    json_chunk *c = *arena;
    if (!c || c->cap - c->used < size) {
        size_t cap = size > 60000 ? size : 60000;
        json_chunk *n = malloc(((sizeof(json_chunk) + 15) & ~(size_t)15) + cap);
        if (!n) return NULL;
        n->cap = cap;
        n->used = 0;
        n->next = c;
        *arena = c = n;
    }
    void *p = JSON_CHUNK_DATA(c) + c->used;
    c->used += size;
    return p;
}

static void arena_free(void *arena)
{
    for (json_chunk *c = arena; c;) {
        json_chunk *n = c->next;
        free(c);
        c = n;
    }
}

/* ---- the parser --------------------------------------------------------------------- */

typedef struct jp {
    const char *p, *end;
    const char *line_start;
    uint32_t line;
    int depth;
    void *arena;
    char *err;
    size_t errlen;
    bool relaxed; /* json_parse_relaxed: comments, trailing commas, text after the value */
    const char *open_comment; /* where a comment that the text ends inside began */
} jp;

static uint32_t jp_col(const jp *j, const char *at)
{
    return (uint32_t)(at - j->line_start) + 1;
}

static bool jp_fail_at(jp *j, uint32_t line, uint32_t col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static bool jp_fail_at(jp *j, uint32_t line, uint32_t col, const char *fmt, ...)
{
    int n = snprintf(j->err, j->errlen, "%u:%u: ", line, col);
    if (n < 0 || (size_t)n >= j->errlen) return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->err + n, j->errlen - (size_t)n, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    return false;
}
#define jp_fail(j, ...) jp_fail_at((j), (j)->line, jp_col((j), (j)->p), __VA_ARGS__)

/* What stands at j->p, for "found ..." in messages: a word, a character or a byte. */
static const char *jp_found(const jp *j, char buf[48])
{
    if (j->p >= j->end) return "the end of the file";
    unsigned char c = (unsigned char)*j->p;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
        size_t n = 0;
        buf[n++] = '\'';
        for (const char *q = j->p; q < j->end && n < 20; q++) {
            unsigned char d = (unsigned char)*q;
            if (!((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') || (d >= '0' && d <= '9') || d == '_')) break;
            buf[n++] = (char)d;
        }
        buf[n++] = '\'';
        buf[n] = '\0';
        return buf;
    }
    if (c == '\n' || c == '\r') return "a line break";
    if (c == '\t') return "a tab";
    if (c >= 0x20 && c < 0x7f) snprintf(buf, 48, "'%c'", c);
    else snprintf(buf, 48, "byte 0x%02x", c);
    return buf;
}

static void jp_ws(jp *j)
{
    while (j->p < j->end) {
        char c = *j->p;
        const bool comment = j->relaxed && c == '/' && j->p + 1 < j->end && (j->p[1] == '/' || j->p[1] == '*');
        if (c == '\n') {
            j->line++;
            j->line_start = ++j->p;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            j->p++;
        } else if (comment && j->p[1] == '/') { /* to the end of the line */
            while (j->p < j->end && *j->p != '\n') j->p++;
        } else if (comment) { /* to the closing star-slash, or the end of the text */
            j->open_comment = j->p;
            j->p += 2;
            while (j->p < j->end && !(*j->p == '*' && j->p + 1 < j->end && j->p[1] == '/')) {
                if (*j->p == '\n') {
                    j->line++;
                    j->line_start = j->p + 1;
                }
                j->p++;
            }
            if (j->p < j->end) j->open_comment = NULL;
            j->p = j->p < j->end ? j->p + 2 : j->end;
        } else {
            break;
        }
    }
}

static json_value *jp_node(jp *j, json_kind kind)
{
    json_value *v = arena_alloc(&j->arena, sizeof *v);
    if (!v) {
        jp_fail(j, "out of memory");
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->line = j->line;
    v->col = jp_col(j, j->p);
    return v;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool jp_hex4(jp *j, const char *at, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int d = at + i < j->end ? hex_digit(at[i]) : -1;
        if (d < 0) return jp_fail_at(j, j->line, jp_col(j, at - 2), "\\u needs four hexadecimal digits");
        v = v << 4 | (unsigned)d;
    }
    *out = v;
    return true;
}

/* Length of the valid UTF-8 sequence at p, or 0. */
static size_t utf8_length(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f; /* no UTF-16 surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f; /* nothing above U+10FFFF */
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0;
    return n;
}

static size_t utf8_put(char *dst, unsigned cp)
{
    if (cp < 0x80) {
        dst[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        dst[0] = (char)(0xc0 | cp >> 6);
        dst[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xe0 | cp >> 12);
        dst[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        dst[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    dst[0] = (char)(0xf0 | cp >> 18);
    dst[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    dst[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* At the opening quote. Decodes into the arena; *len gets the decoded length. */
static bool jp_string(jp *j, const char **out, size_t *len)
{
    uint32_t line = j->line, col = jp_col(j, j->p);
    const char *q = ++j->p;
    while (q < j->end && *q != '"') q += *q == '\\' && q + 1 < j->end ? 2 : 1;
    if (q >= j->end) return jp_fail_at(j, line, col, "a string that never ends");
    char *dst = arena_alloc(&j->arena, (size_t)(q - j->p) + 1);
    if (!dst) return jp_fail(j, "out of memory");
    size_t n = 0;
    while (*j->p != '"') {
        unsigned char c = (unsigned char)*j->p;
        if (c < 0x20)
            return jp_fail(j, "%s in a string: write it as an escape such as \\n",
                           c == '\n' ? "a line break" : c == '\t' ? "a raw tab" : "a raw control character");
        if (c >= 0x80) {
            size_t u = utf8_length((const unsigned char *)j->p, (const unsigned char *)j->end);
            if (!u) return jp_fail(j, "invalid UTF-8 (byte 0x%02x) in a string", c);
            memcpy(dst + n, j->p, u);
            n += u;
            j->p += u;
            continue;
        }
        if (c != '\\') {
            dst[n++] = (char)c;
            j->p++;
            continue;
        }
        const char *esc = j->p;
        char e = j->p[1];
        j->p += 2;
        switch (e) {
        case '"': dst[n++] = '"'; break;
        case '\\': dst[n++] = '\\'; break;
        case '/': dst[n++] = '/'; break;
        case 'b': dst[n++] = '\b'; break;
        case 'f': dst[n++] = '\f'; break;
        case 'n': dst[n++] = '\n'; break;
        case 'r': dst[n++] = '\r'; break;
        case 't': dst[n++] = '\t'; break;
        case 'u': {
            unsigned cp = 0;
            if (!jp_hex4(j, j->p, &cp)) return false;
            j->p += 4;
            if (cp >= 0xdc00 && cp <= 0xdfff)
                return jp_fail_at(j, j->line, jp_col(j, esc), "\\u%04x is a lone low surrogate", cp);
            if (cp >= 0xd800 && cp <= 0xdbff) {
                unsigned lo = 0;
                if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' || !jp_hex4(j, j->p + 2, &lo) || lo < 0xdc00 ||
                    lo > 0xdfff)
                    return jp_fail_at(j, j->line, jp_col(j, esc), "\\u%04x is a high surrogate without its low half", cp);
                j->p += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            if (cp == 0) return jp_fail_at(j, j->line, jp_col(j, esc), "\\u0000 (NUL) in a string is not supported");
            n += utf8_put(dst + n, cp);
            break;
        }
        default:
            return jp_fail_at(j, j->line, jp_col(j, esc), "unknown escape '\\%c' in a string",
                              (unsigned char)e >= 0x20 && (unsigned char)e < 0x7f ? e : '?');
        }
    }
    j->p++;
    dst[n] = '\0';
    *out = dst;
    *len = n;
    return true;
}

static bool is_digit(const jp *j, const char *q)
{
    return q < j->end && *q >= '0' && *q <= '9';
}

static bool jp_number(jp *j, json_value *v)
{
    const char *start = j->p, *q = j->p;
    if (*q == '-') q++;
    if (!is_digit(j, q)) {
        j->p = q;
        char b[48];
        return jp_fail(j, "expected a digit after '-', found %s", jp_found(j, b));
    }
    if (*q == '0') {
        q++;
        if (is_digit(j, q)) return jp_fail(j, "a number with a leading zero");
    } else {
        while (is_digit(j, q)) q++;
    }
    if (q < j->end && *q == '.') {
        q++;
        if (!is_digit(j, q)) {
            j->p = q;
            return jp_fail(j, "expected a digit after the decimal point");
        }
        while (is_digit(j, q)) q++;
    }
    if (q < j->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < j->end && (*q == '+' || *q == '-')) q++;
        if (!is_digit(j, q)) {
            j->p = q;
            return jp_fail(j, "expected a digit in the exponent");
        }
        while (is_digit(j, q)) q++;
    }
    size_t n = (size_t)(q - start);
    char *text = arena_alloc(&j->arena, n + 1);
    if (!text) return jp_fail(j, "out of memory");
    memcpy(text, start, n);
    text[n] = '\0';
    v->text = text;
    v->number = strtod(text, NULL);
    if (isinf(v->number)) {
        char b[48];
        return jp_fail(j, "the number %s is beyond the range of a double", json_quote(text, b, sizeof b));
    }
    j->p = q;
    return true;
}

static json_value *jp_value(jp *j);

static int cmp_members(const void *a, const void *b)
{
    const json_value *x = *(const json_value *const *)a, *y = *(const json_value *const *)b;
    int c = strcmp(x->key, y->key);
    if (c) return c;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return (x->col > y->col) - (x->col < y->col);
}

/* A repeated key would let one of two values win silently: refused. */
static bool jp_unique_keys(jp *j, const json_value *obj)
{
    if (obj->count < 2) return true;
    const json_value **m = malloc(obj->count * sizeof *m);
    if (!m) return jp_fail(j, "out of memory");
    size_t n = 0;
    for (const json_value *c = obj->child; c; c = c->next) m[n++] = c;
    qsort(m, n, sizeof *m, cmp_members);
    bool ok = true;
    for (size_t i = 1; i < n && ok; i++)
        if (!strcmp(m[i - 1]->key, m[i]->key)) {
            char b[80];
            ok = jp_fail_at(j, m[i]->line, m[i]->col, "the key %s appears twice in an object (first at %u:%u)",
                            json_quote(m[i]->key, b, sizeof b), m[i - 1]->line, m[i - 1]->col);
        }
    free(m);
    return ok;
}

static bool jp_enter(jp *j)
{
    if (++j->depth > JSON_MAX_DEPTH) return jp_fail(j, "nested deeper than %d levels", JSON_MAX_DEPTH);
    j->p++;
    return true;
}

static bool jp_array(jp *j, json_value *v)
{
    if (!jp_enter(j)) return false;
    json_value **tail = &v->child;
    jp_ws(j);
    if (j->p < j->end && *j->p == ']') {
        j->p++;
        j->depth--;
        return true;
    }
    for (;;) {
        json_value *e = jp_value(j);
        if (!e) return false;
        *tail = e;
        tail = &e->next;
        v->count++;
        jp_ws(j);
        char b[48];
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            jp_ws(j);
            if (j->p < j->end && *j->p == ']') {
                if (j->relaxed) break;
                return jp_fail(j, "a comma before ']': JSON has no trailing commas");
            }
            continue;
        }
        if (j->p < j->end && *j->p == ']') break;
        return jp_fail(j, "expected ',' or ']' after an array element, found %s", jp_found(j, b));
    }
    j->p++;
    j->depth--;
    return true;
}

static bool jp_object(jp *j, json_value *v)
{
    if (!jp_enter(j)) return false;
    json_value **tail = &v->child;
    jp_ws(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
        j->depth--;
        return true;
    }
    for (;;) {
        char b[48];
        if (j->p >= j->end || *j->p != '"')
            return jp_fail(j, "expected a member name in double quotes, found %s", jp_found(j, b));
        const char *key = NULL;
        size_t klen = 0;
        if (!jp_string(j, &key, &klen) || !key) return false;
        jp_ws(j);
        if (j->p >= j->end || *j->p != ':') {
            char k[80];
            return jp_fail(j, "expected ':' after the member name %s, found %s", json_quote(key, k, sizeof k),
                           jp_found(j, b));
        }
        j->p++;
        json_value *e = jp_value(j);
        if (!e) return false;
        e->key = key;
        *tail = e;
        tail = &e->next;
        v->count++;
        jp_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            jp_ws(j);
            if (j->p < j->end && *j->p == '}') {
                if (j->relaxed) break;
                return jp_fail(j, "a comma before '}': JSON has no trailing commas");
            }
            continue;
        }
        if (j->p < j->end && *j->p == '}') break;
        return jp_fail(j, "expected ',' or '}' after an object member, found %s", jp_found(j, b));
    }
    j->p++;
    j->depth--;
    return jp_unique_keys(j, v);
}

static bool jp_word(jp *j, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0) return false;
    j->p += n;
    return true;
}

static json_value *jp_value(jp *j)
{
    jp_ws(j);
    char b[48];
    if (j->p >= j->end) {
        jp_fail(j, "expected a value, found the end of the file");
        return NULL;
    }
    json_value *v;
    bool ok;
    switch (*j->p) {
    case '{':
        if (!(v = jp_node(j, JSON_OBJECT))) return NULL;
        ok = jp_object(j, v);
        break;
    case '[':
        if (!(v = jp_node(j, JSON_ARRAY))) return NULL;
        ok = jp_array(j, v);
        break;
    case '"':
        if (!(v = jp_node(j, JSON_STRING))) return NULL;
        ok = jp_string(j, &v->text, &v->length);
        break;
    case 't':
    case 'f':
        if (!(v = jp_node(j, JSON_BOOL))) return NULL;
        v->boolean = *j->p == 't';
        ok = jp_word(j, v->boolean ? "true" : "false") || jp_fail(j, "expected a value, found %s", jp_found(j, b));
        break;
    case 'n':
        if (!(v = jp_node(j, JSON_NULL))) return NULL;
        ok = jp_word(j, "null") || jp_fail(j, "expected a value, found %s", jp_found(j, b));
        break;
    default:
        if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
            if (!(v = jp_node(j, JSON_NUMBER))) return NULL;
            ok = jp_number(j, v);
        } else {
            const char *what = jp_found(j, b);
            if (!strcmp(what, "'NaN'") || !strcmp(what, "'Infinity'"))
                jp_fail(j, "%s is not JSON: write it as a string (\"nan\", \"inf\")", what);
            else
                jp_fail(j, "expected a value, found %s", what);
            return NULL;
        }
    }
    return ok ? v : NULL;
}

static bool jp_parse(const char *text, size_t len, bool relaxed, json_doc *doc, char *err, size_t errlen)
{
    memset(doc, 0, sizeof *doc);
    jp j = {text, text + len, text, 1, 0, NULL, err, errlen, relaxed, NULL};
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) j.p = j.line_start = text + 3;
    const char *first = j.p;
    jp_ws(&j);
    if (j.p >= j.end) {
        if (j.open_comment) jp_fail(&j, "no JSON value: a /* comment is not closed");
        else if (j.p > first) jp_fail(&j, "no JSON value: the file holds only white space%s", relaxed ? " and comments" : "");
        else jp_fail(&j, "no JSON value: the file is empty");
        arena_free(j.arena);
        return false;
    }
    json_value *root = jp_value(&j);
    if (root) {
        jp_ws(&j);
        if (j.p < j.end && !relaxed) {
            char b[48];
            jp_fail(&j, "%s after the end of the JSON value", jp_found(&j, b));
            root = NULL;
        }
    }
    if (!root) {
        arena_free(j.arena);
        return false;
    }
    doc->root = root;
    doc->arena = j.arena;
    return true;
}

bool json_parse(const char *text, size_t len, json_doc *doc, char *err, size_t errlen)
{
    return jp_parse(text, len, false, doc, err, errlen);
}

bool json_parse_relaxed(const char *text, size_t len, json_doc *doc, char *err, size_t errlen)
{
    return jp_parse(text, len, true, doc, err, errlen);
}

bool json_error_after(const char *a, const char *b)
{
    unsigned la = 0, ca = 0, lb = 0, cb = 0;
    if (sscanf(a, "%u:%u", &la, &ca) != 2 || sscanf(b, "%u:%u", &lb, &cb) != 2) return false;
    return la > lb || (la == lb && ca > cb);
}

void json_free(json_doc *doc)
{
    arena_free(doc->arena);
    memset(doc, 0, sizeof *doc);
}

/* ---- access ------------------------------------------------------------------------- */

const json_value *json_member(const json_value *obj, const char *key)
{
    if (!obj || obj->kind != JSON_OBJECT) return NULL;
    for (const json_value *c = obj->child; c; c = c->next)
        if (!strcmp(c->key, key)) return c;
    return NULL;
}

const char *json_kind_name(const json_value *v)
{
    if (!v) return "nothing";
    switch (v->kind) {
    case JSON_NULL: return "null";
    case JSON_BOOL: return "a boolean";
    case JSON_NUMBER: return "a number";
    case JSON_STRING: return "a string";
    case JSON_ARRAY: return "an array";
    default: return "an object";
    }
}

bool json_is_integer_literal(const json_value *v)
{
    return v && v->kind == JSON_NUMBER && !strpbrk(v->text, ".eE");
}

bool json_get_int64(const json_value *v, int64_t *out)
{
    if (!v || v->kind != JSON_NUMBER) return false;
    if (json_is_integer_literal(v)) {
        errno = 0;
        long long x = strtoll(v->text, NULL, 10);
        if (errno) return false;
        *out = x;
        return true;
    }
    if (v->number != floor(v->number) || fabs(v->number) >= 9007199254740992.0) return false;
    *out = (int64_t)v->number;
    return true;
}

bool json_get_uint64(const json_value *v, uint64_t *out)
{
    if (!v || v->kind != JSON_NUMBER) return false;
    if (json_is_integer_literal(v)) {
        if (v->text[0] == '-') {
            if (strspn(v->text + 1, "0") != strlen(v->text + 1)) return false; /* only -0 */
            *out = 0;
            return true;
        }
        errno = 0;
        unsigned long long x = strtoull(v->text, NULL, 10);
        if (errno) return false;
        *out = x;
        return true;
    }
    if (v->number != floor(v->number) || v->number < 0 || v->number >= 9007199254740992.0) return false;
    *out = (uint64_t)v->number;
    return true;
}

const char *json_quote(const char *s, char *buf, size_t len)
{
    if (len < 8) {
        if (len) buf[0] = '\0';
        return buf;
    }
    size_t n = 0;
    buf[n++] = '"';
    for (const char *c = s; *c; c++) {
        char piece[8];
        unsigned char u = (unsigned char)*c;
        if (u == '"' || u == '\\') snprintf(piece, sizeof piece, "\\%c", u);
        else if (u == '\n') snprintf(piece, sizeof piece, "\\n");
        else if (u == '\t') snprintf(piece, sizeof piece, "\\t");
        else if (u == '\r') snprintf(piece, sizeof piece, "\\r");
        else if (u < 0x20 || u == 0x7f) snprintf(piece, sizeof piece, "\\u%04x", u);
        else {
            piece[0] = (char)u;
            piece[1] = '\0';
        }
        size_t pl = strlen(piece);
        if (n + pl + 5 > len) { /* room for ...", the NUL */
            /* Never cut a UTF-8 sequence in two. */
            while (n > 1 && ((unsigned char)buf[n - 1] & 0xc0) == 0x80) n--;
            if (n > 1 && (unsigned char)buf[n - 1] >= 0xc0) n--;
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
        memcpy(buf + n, piece, pl);
        n += pl;
    }
    buf[n++] = '"';
    buf[n] = '\0';
    return buf;
}
