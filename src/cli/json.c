/* The strict JSON reader of json.h: a recursive-descent parser into nodes that live in one
 * arena, freed at once. Arrays of scalars (a model's Data, shapes, strides) are packed:
 * one contiguous encoding instead of a node per element, so that a model's memory grows
 * with its text, not 48 times it (20 MB of "0," took 960 MB as nodes). */
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

#define JSON_CHUNK_HEAD ((sizeof(json_chunk) + 15) & ~(size_t)15)
#define JSON_CHUNK_DATA(c) ((unsigned char *)(c) + JSON_CHUNK_HEAD)

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
    size_t memory, max_memory; /* bytes taken from malloc, and the most allowed (0: no bound) */
    char *err;
    size_t errlen;
    bool relaxed; /* json_parse_relaxed: comments, trailing commas, text after the value */
    const char *open_comment; /* where a comment that the text ends inside began */
    /* Packing (jp_packed): the encoding being written (a chunk header, then the bytes),
     * the '[' of each array open in it, and, once an object inside made it give up, the
     * '[' of the arrays that were open then, which are parsed into nodes instead. */
    unsigned char *pk;
    size_t pk_len, pk_cap;
    const char *pk_open[JSON_MAX_DEPTH + 1];
    int pk_depth;
    bool pk_object; /* the attempt met an object */
    const char *nopack[JSON_MAX_DEPTH + 1];
    int nopack_n, nopack_i;
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

/* Memory taken for the document, counted against max_memory: a document past it is
 * refused with a message of its own ("out of memory" is for malloc failing). */
static bool jp_budget(jp *j, size_t more)
{
    const size_t held = j->memory + (j->pk ? j->pk_len : 0); /* the arena, and any encoding being written */
    if (j->max_memory && (more > j->max_memory || held > j->max_memory - more))
        return jp_fail(j, "holding the document would take more than %llu MiB of memory",
                       (unsigned long long)(j->max_memory >> 20));
    return true;
}

/* Arena memory, 16-byte aligned; NULL after reporting why. */
static void *jp_alloc(jp *j, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    json_chunk *c = j->arena;
    if (!c || c->cap - c->used < size) {
        const size_t cap = size > 60000 ? size : 60000;
        if (!jp_budget(j, JSON_CHUNK_HEAD + cap)) return NULL;
        json_chunk *n = malloc(JSON_CHUNK_HEAD + cap);
        if (!n) {
            jp_fail(j, "out of memory");
            return NULL;
        }
        j->memory += JSON_CHUNK_HEAD + cap;
        n->cap = cap;
        n->used = 0;
        n->next = c;
        j->arena = c = n;
    }
    void *p = JSON_CHUNK_DATA(c) + c->used;
    c->used += size;
    return p;
}

static json_value *jp_node(jp *j, json_kind kind)
{
    json_value *v = jp_alloc(j, sizeof *v);
    if (!v) return NULL;
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

/* At the opening quote: its closing quote, or NULL after reporting a string that never
 * ends. The decoded string is at most as long as the text between them. */
static const char *jp_string_end(jp *j)
{
    const char *q = j->p + 1;
    while (q < j->end && *q != '"') q += *q == '\\' && q + 1 < j->end ? 2 : 1;
    if (q < j->end) return q;
    jp_fail(j, "a string that never ends");
    return NULL;
}

/* At the opening quote (jp_string_end found the closing one): decodes the string into dst,
 * which holds the text between the quotes and a NUL; *len gets the decoded length. */
static bool jp_string_into(jp *j, char *dst, size_t *len)
{
    j->p++;
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
    *len = n;
    return true;
}

/* At the opening quote. Decodes into the arena; *len gets the decoded length. */
static bool jp_string(jp *j, const char **out, size_t *len)
{
    const char *q = jp_string_end(j);
    char *dst = q ? jp_alloc(j, (size_t)(q - j->p)) : NULL;
    if (!dst || !jp_string_into(j, dst, len)) return false;
    *out = dst;
    return true;
}

static bool is_digit(const jp *j, const char *q)
{
    return q < j->end && *q >= '0' && *q <= '9';
}

/* At a number: checks its syntax, and returns where it ends (j->p stays at its start);
 * NULL after reporting an error. */
static const char *jp_number_end(jp *j)
{
    const char *q = j->p;
    if (*q == '-') q++;
    if (!is_digit(j, q)) {
        j->p = q;
        char b[48];
        jp_fail(j, "expected a digit after '-', found %s", jp_found(j, b));
        return NULL;
    }
    if (*q == '0') {
        q++;
        if (is_digit(j, q)) {
            jp_fail(j, "a number with a leading zero");
            return NULL;
        }
    } else {
        while (is_digit(j, q)) q++;
    }
    if (q < j->end && *q == '.') {
        q++;
        if (!is_digit(j, q)) {
            j->p = q;
            jp_fail(j, "expected a digit after the decimal point");
            return NULL;
        }
        while (is_digit(j, q)) q++;
    }
    if (q < j->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < j->end && (*q == '+' || *q == '-')) q++;
        if (!is_digit(j, q)) {
            j->p = q;
            jp_fail(j, "expected a digit in the exponent");
            return NULL;
        }
        while (is_digit(j, q)) q++;
    }
    return q;
}

/* The number at j->p, whose text jp_number_end checked, copied to dst (n bytes and a
 * NUL): its value, and j->p past it; false after refusing one beyond a double. */
static bool jp_number_into(jp *j, char *dst, size_t n, double *value)
{
    memcpy(dst, j->p, n);
    dst[n] = '\0';
    *value = strtod(dst, NULL);
    if (isinf(*value)) {
        char b[48];
        return jp_fail(j, "the number %s is beyond the range of a double", json_quote(dst, b, sizeof b));
    }
    j->p += n;
    return true;
}

static bool jp_number(jp *j, json_value *v)
{
    const char *q = jp_number_end(j);
    if (!q) return false;
    const size_t n = (size_t)(q - j->p);
    char *text = jp_alloc(j, n + 1);
    if (!text || !jp_number_into(j, text, n, &v->number)) return false;
    v->text = text;
    return true;
}

/* true, false or null at j->p: its kind and value, j->p past it. */
static bool jp_literal(jp *j, json_kind *kind, bool *boolean)
{
    static const struct {
        const char *word;
        json_kind kind;
        bool value;
    } words[] = {{"true", JSON_BOOL, true}, {"false", JSON_BOOL, false}, {"null", JSON_NULL, false}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        const size_t n = strlen(words[i].word);
        if ((size_t)(j->end - j->p) >= n && !memcmp(j->p, words[i].word, n)) {
            j->p += n;
            *kind = words[i].kind;
            *boolean = words[i].value;
            return true;
        }
    }
    char b[48];
    return jp_fail(j, "expected a value, found %s", jp_found(j, b));
}

/* What cannot start a value: the message. */
static bool jp_not_a_value(jp *j)
{
    char b[48];
    const char *what = jp_found(j, b);
    if (!strcmp(what, "'NaN'") || !strcmp(what, "'Infinity'"))
        return jp_fail(j, "%s is not JSON: write it as a string (\"nan\", \"inf\")", what);
    return jp_fail(j, "expected a value, found %s", what);
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

/* After an element of an array (close ']') or a member of an object ('}'): 1 when another
 * follows (j->p at it), 0 at the closing bracket (j->p past it, the level left), -1 after
 * reporting an error. */
static int jp_next_element(jp *j, char close)
{
    char b[48];
    jp_ws(j);
    if (j->p < j->end && *j->p == ',') {
        j->p++;
        jp_ws(j);
        if (j->p >= j->end || *j->p != close) return 1;
        if (!j->relaxed) {
            jp_fail(j, "a comma before '%c': JSON has no trailing commas", close);
            return -1;
        }
    } else if (j->p >= j->end || *j->p != close) {
        jp_fail(j, "expected ',' or '%c' after %s, found %s", close, close == ']' ? "an array element" : "an object member",
                jp_found(j, b));
        return -1;
    }
    j->p++;
    j->depth--;
    return 0;
}

/* ---- packed arrays: an encoding per element, no node ------------------------------------
 *
 * A number is its text (which starts with '-' or a digit), a string 's' and its decoded
 * bytes, each ending in a NUL (strings never hold one); true, false and null are 't', 'f'
 * and 'z'; an array is '[',
 * its count and the length of its elements' encoding (4 bytes each, host order), then
 * that encoding. json_first and json_next read it back. An array packs when every element
 * is a scalar or an array that packs; an object anywhere inside stops the attempt, and the
 * arrays open around it are parsed again into nodes (jp_array), once each. */

/* Room for more bytes of the encoding; the budget counts the bytes written, not the
 * slack of a doubling, which stays untouched (and is given back at the end). */
static bool pk_reserve(jp *j, size_t more)
{
    if (!jp_budget(j, more)) return false;
    if (j->pk && j->pk_cap - j->pk_len >= more) return true;
    size_t cap = j->pk_cap ? j->pk_cap : 4096;
    while (cap - j->pk_len < more) {
        if (cap > SIZE_MAX / 2) return jp_fail(j, "out of memory");
        cap *= 2;
    }
    unsigned char *n = realloc(j->pk, cap);
    if (!n) return jp_fail(j, "out of memory");
    j->pk = n;
    j->pk_cap = cap;
    return true;
}

static bool pk_array(jp *j);

/* One element at j->p: its encoding appended. false after reporting an error, or at an
 * object (j->pk_object, nothing reported). */
static bool pk_value(jp *j)
{
    jp_ws(j);
    if (j->p >= j->end) return jp_fail(j, "expected a value, found the end of the file");
    const char c = *j->p;
    if (c == '{') {
        j->pk_object = true;
        return false;
    }
    if (c == '[') return pk_array(j);
    if (c == '"') {
        const char *q = jp_string_end(j);
        size_t n = 0;
        if (!q || !pk_reserve(j, (size_t)(q - j->p) + 1)) return false;
        j->pk[j->pk_len++] = 's';
        if (!jp_string_into(j, (char *)j->pk + j->pk_len, &n)) return false;
        j->pk_len += n + 1;
        return true;
    }
    if (c == 't' || c == 'f' || c == 'n') {
        json_kind kind = JSON_NULL;
        bool boolean = false;
        if (!jp_literal(j, &kind, &boolean) || !pk_reserve(j, 1)) return false;
        j->pk[j->pk_len++] = kind == JSON_NULL ? 'z' : boolean ? 't' : 'f';
        return true;
    }
    if (c != '-' && (c < '0' || c > '9')) return jp_not_a_value(j);
    const char *q = jp_number_end(j);
    double value;
    if (!q || !pk_reserve(j, (size_t)(q - j->p) + 1)) return false;
    if (!jp_number_into(j, (char *)j->pk + j->pk_len, (size_t)(q - j->p), &value)) return false;
    j->pk_len += strlen((const char *)j->pk + j->pk_len) + 1;
    return true;
}

/* At '[': the array's encoding appended, its count and length filled in at the end. */
static bool pk_array(jp *j)
{
    j->pk_open[j->pk_depth++] = j->p;
    if (!jp_enter(j) || !pk_reserve(j, 9)) return false;
    const size_t head = j->pk_len;
    j->pk[head] = '[';
    j->pk_len += 9;
    uint64_t count = 0;
    jp_ws(j);
    int more = 1;
    if (j->p < j->end && *j->p == ']') {
        j->p++;
        j->depth--;
        more = 0;
    }
    while (more > 0) {
        if (!pk_value(j)) return false;
        count++;
        more = jp_next_element(j, ']');
    }
    if (more < 0) return false;
    const uint64_t body = j->pk_len - head - 9;
    if (count > UINT32_MAX || body > UINT32_MAX) return jp_fail(j, "an array too large to hold");
    const uint32_t c32 = (uint32_t)count, b32 = (uint32_t)body;
    memcpy(j->pk + head + 1, &c32, 4);
    memcpy(j->pk + head + 5, &b32, 4);
    j->pk_depth--;
    return true;
}

/* Packs the array at j->p into v: 1 when done, 0 after reporting an error, -1 when an
 * object inside stops it (j is back at the array's start, and the arrays that held the
 * object are listed in j->nopack, the outermost, this one, aside). */
static int jp_packed(jp *j, json_value *v)
{
    const char *p = j->p, *line_start = j->line_start, *open_comment = j->open_comment;
    const uint32_t line = j->line;
    const int depth = j->depth;
    j->pk = NULL;
    j->pk_cap = 0;
    j->pk_len = JSON_CHUNK_HEAD; /* the encoding becomes an arena chunk as it is */
    j->pk_depth = 0;
    j->pk_object = false;
    const bool ok = pk_reserve(j, 0) && pk_array(j);
    if (ok) {
        const size_t at = JSON_CHUNK_HEAD + 9, len = j->pk_len;
        uint32_t count;
        memcpy(&count, j->pk + JSON_CHUNK_HEAD + 1, 4);
        unsigned char *fit = realloc(j->pk, len); /* give back the slack of the last doubling */
        if (fit) {
            j->pk = fit;
            j->pk_cap = len;
        }
        j->memory += len;
        json_chunk *c = (json_chunk *)(void *)j->pk, *head = j->arena;
        c->used = c->cap = j->pk_cap - JSON_CHUNK_HEAD;
        /* Behind the chunk being filled, so that later nodes still go there. */
        if (head) {
            c->next = head->next;
            head->next = c;
        } else {
            c->next = NULL;
            j->arena = c;
        }
        v->packed = true;
        v->count = count;
        v->text = (const char *)j->pk + at;
        v->length = len - at;
        j->pk = NULL;
        return 1;
    }
    free(j->pk);
    j->pk = NULL;
    if (!j->pk_object) return 0;
    j->nopack_n = j->pk_depth - 1;
    j->nopack_i = 0;
    memcpy(j->nopack, j->pk_open + 1, (size_t)j->nopack_n * sizeof j->nopack[0]);
    j->p = p;
    j->line = line;
    j->line_start = line_start;
    j->open_comment = open_comment;
    j->depth = depth;
    return -1;
}

static bool jp_array(jp *j, json_value *v)
{
    if (j->nopack_i < j->nopack_n && j->nopack[j->nopack_i] == j->p) {
        j->nopack_i++; /* an object is inside: nodes */
    } else {
        const int r = jp_packed(j, v);
        if (r >= 0) return r > 0;
    }
    if (!jp_enter(j)) return false;
    json_value **tail = &v->child;
    jp_ws(j);
    if (j->p < j->end && *j->p == ']') {
        j->p++;
        j->depth--;
        return true;
    }
    for (int more = 1; more > 0;) {
        json_value *e = jp_value(j);
        if (!e) return false;
        *tail = e;
        tail = &e->next;
        v->count++;
        more = jp_next_element(j, ']');
        if (more < 0) return false;
    }
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
    for (int more = 1; more > 0;) {
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
        more = jp_next_element(j, '}');
        if (more < 0) return false;
    }
    return jp_unique_keys(j, v);
}

static json_value *jp_value(jp *j)
{
    jp_ws(j);
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
    case 'n':
        if (!(v = jp_node(j, JSON_NULL))) return NULL;
        ok = jp_literal(j, &v->kind, &v->boolean);
        break;
    default:
        if (*j->p != '-' && (*j->p < '0' || *j->p > '9')) {
            jp_not_a_value(j);
            return NULL;
        }
        if (!(v = jp_node(j, JSON_NUMBER))) return NULL;
        ok = jp_number(j, v);
    }
    return ok ? v : NULL;
}

static bool jp_parse(const char *text, size_t len, const json_options *o, json_doc *doc, char *err, size_t errlen)
{
    memset(doc, 0, sizeof *doc);
    jp *j = calloc(1, sizeof *j); /* its stacks of array starts take 4 KiB */
    if (!j) {
        snprintf(err, errlen, "1:1: out of memory");
        return false;
    }
    *j = (jp){.p = text, .end = text + len, .line_start = text, .line = 1, .err = err, .errlen = errlen};
    j->relaxed = o && o->relaxed;
    j->max_memory = o ? o->max_memory : 0;
    const bool relaxed = j->relaxed;
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) j->p = j->line_start = text + 3;
    const char *first = j->p;
    jp_ws(j);
    json_value *root = NULL;
    if (j->p >= j->end) {
        if (j->open_comment) jp_fail(j, "no JSON value: a /* comment is not closed");
        else if (j->p > first) jp_fail(j, "no JSON value: the file holds only white space%s", relaxed ? " and comments" : "");
        else jp_fail(j, "no JSON value: the file is empty");
    } else if ((root = jp_value(j)) != NULL) {
        jp_ws(j);
        if (j->p < j->end && !relaxed) {
            char b[48];
            jp_fail(j, "%s after the end of the JSON value", jp_found(j, b));
            root = NULL;
        }
    }
    if (root) {
        doc->root = root;
        doc->arena = j->arena;
        doc->memory = j->memory;
    } else {
        arena_free(j->arena);
    }
    free(j);
    return root != NULL;
}

bool json_parse(const char *text, size_t len, json_doc *doc, char *err, size_t errlen)
{
    return jp_parse(text, len, NULL, doc, err, errlen);
}

bool json_parse_relaxed(const char *text, size_t len, json_doc *doc, char *err, size_t errlen)
{
    const json_options o = {.relaxed = true};
    return jp_parse(text, len, &o, doc, err, errlen);
}

bool json_parse_with(const char *text, size_t len, const json_options *o, json_doc *doc, char *err, size_t errlen)
{
    return jp_parse(text, len, o, doc, err, errlen);
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

const json_value *json_first(json_iter *it, const json_value *v)
{
    memset(it, 0, sizeof *it);
    if (!v || (v->kind != JSON_ARRAY && v->kind != JSON_OBJECT)) return NULL;
    if (v->packed) {
        it->pos = (const unsigned char *)v->text;
        it->end = it->pos + v->length;
        it->cur.line = v->line;
        it->cur.col = v->col;
    } else {
        it->node = v->child;
    }
    return json_next(it);
}

const json_value *json_next(json_iter *it)
{
    if (!it->pos) {
        const json_value *n = it->node;
        if (n) it->node = n->next;
        return n;
    }
    if (it->pos >= it->end) return NULL;
    json_value *c = &it->cur;
    *c = (json_value){.line = c->line, .col = c->col}; /* an element stands where its array does */
    const unsigned char tag = *it->pos;
    const bool number = tag == '-' || (tag >= '0' && tag <= '9');
    it->pos += !number;
    if (number || tag == 's') {
        c->kind = number ? JSON_NUMBER : JSON_STRING;
        c->text = (const char *)it->pos;
        const size_t n = strlen(c->text);
        it->pos += n + 1;
        if (number) c->number = strtod(c->text, NULL);
        else c->length = n;
    } else if (tag == '[') {
        uint32_t count, len;
        memcpy(&count, it->pos, 4);
        memcpy(&len, it->pos + 4, 4);
        c->kind = JSON_ARRAY;
        c->packed = true;
        c->count = count;
        c->text = (const char *)it->pos + 8;
        c->length = len;
        it->pos += 8 + (size_t)len;
    } else {
        c->kind = tag == 'z' ? JSON_NULL : JSON_BOOL;
        c->boolean = tag == 't';
    }
    return c;
}

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

bool json_number_is_whole(const char *text)
{
    const char *p = text + (*text == '-');
    const char *int_end = p + strspn(p, "0123456789"), *frac = int_end, *frac_end = int_end;
    if (*int_end == '.') {
        frac = int_end + 1;
        frac_end = frac + strspn(frac, "0123456789");
    }
    /* The exponent, saturated far beyond any digit count a text can have. */
    long long exp = 0;
    if (*frac_end == 'e' || *frac_end == 'E') {
        const char *e = frac_end + 1;
        const bool negative = *e == '-';
        e += *e == '-' || *e == '+';
        for (; *e >= '0' && *e <= '9'; e++) exp = exp < 1000000000000LL ? exp * 10 + (*e - '0') : exp;
        if (negative) exp = -exp;
    }
    /* The value is DIGITS x 10^(exp - fraction digits); trailing zeros of the digits
     * count toward the exponent. Zero is whole. */
    long long scale = exp - (long long)(frac_end - frac);
    const char *last = frac_end;
    while (last > p) {
        const char *d = last - 1;
        if (d == int_end) { /* the decimal point */
            last = d;
            continue;
        }
        if (*d != '0') break;
        scale++;
        last = d;
    }
    return last == p || scale >= 0;
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
    /* Its double may be whole when the text is not (1e-400 underflows to 0). */
    if (!json_number_is_whole(v->text) || fabs(v->number) >= 9007199254740992.0) return false;
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
    if (!json_number_is_whole(v->text) || v->number < 0 || v->number >= 9007199254740992.0) return false;
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
