/* A strict JSON reader (RFC 8259) for the tool's model files, with no dependency beyond
 * libc so that tests and fuzzers can compile it alone.
 *
 * Strict means: one value and nothing after it but white space; no comments, trailing
 * commas, single quotes, NaN or leading zeros; strings in valid UTF-8 without raw control
 * characters; no repeated key within an object; nesting at most JSON_MAX_DEPTH deep.
 * Every value remembers where it starts (line and column, both from 1, the column counted
 * in bytes), and a number keeps its literal text, so that integers beyond 2^53 can be read
 * exactly. Errors are one line, "LINE:COL: message", with any quoted input escaped.
 *
 * Arrays of scalars (and of such arrays) are packed: their elements take about the bytes
 * of their text, not a node each, and are read with json_first and json_next (an element
 * of a packed array has no next and carries the array's position). Read every array that
 * way: arrays that hold objects are nodes, and json_first walks both. */
#ifndef DMLOPS_JSON_H
#define DMLOPS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 256

typedef enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

typedef struct json_value json_value;
struct json_value {
    json_kind kind;
    bool packed;         /* JSON_ARRAY: the elements are encoded in text[0..length), not children */
    uint32_t line, col;  /* where the value starts */
    const char *key;     /* the member's name when the value is in an object, else NULL */
    json_value *next;    /* the next element or member */
    json_value *child;   /* the first element or member */
    size_t count;        /* elements or members */
    bool boolean;        /* JSON_BOOL */
    double number;       /* JSON_NUMBER, rounded to the nearest double */
    const char *text;    /* JSON_NUMBER: the literal as written; JSON_STRING: the decoded string */
    size_t length;       /* JSON_STRING: bytes in text (strings never hold a NUL) */
};

typedef struct json_doc {
    json_value *root;
    void *arena;   /* every node and string of the document */
    size_t memory; /* the bytes it holds */
} json_doc;

typedef struct json_options {
    bool relaxed;      /* json_parse_relaxed's syntax */
    size_t max_memory; /* the most bytes the document may take (0: no bound); past it the parse
                          fails with "holding the document would take more than N MiB" */
} json_options;

/* Walks the elements of an array or the members of an object: json_first gives the first
 * (NULL when there is none, or v is not a container), json_next each after it. An element
 * of a packed array lives in the iterator, until the next call. */
typedef struct json_iter {
    const json_value *node;          /* not packed: the next element */
    const unsigned char *pos, *end;  /* packed: the next element's encoding */
    json_value cur;                  /* packed: the element given last */
} json_iter;
const json_value *json_first(json_iter *it, const json_value *v);
const json_value *json_next(json_iter *it);

/* Parses text[0..len). On failure writes "LINE:COL: message" to err and returns false;
 * doc is then empty. A UTF-8 byte order mark at the start is skipped. */
bool json_parse(const char *text, size_t len, json_doc *doc, char *err, size_t errlen);
/* The same, with what DxDispatch's reader (RapidJSON with kParseCommentsFlag,
 * kParseTrailingCommasFlag and kParseStopWhenDoneFlag) also takes: comments, a comma
 * before ']' or '}', and anything after the value. */
bool json_parse_relaxed(const char *text, size_t len, json_doc *doc, char *err, size_t errlen);
/* Either, with a bound on the memory the document takes. */
bool json_parse_with(const char *text, size_t len, const json_options *o, json_doc *doc, char *err, size_t errlen);
void json_free(json_doc *doc);
/* Whether parse error a ("LINE:COL: ...") lies after parse error b in the text. */
bool json_error_after(const char *a, const char *b);

/* The member of obj named key, or NULL (also when obj is not an object). */
const json_value *json_member(const json_value *obj, const char *key);
/* "null", "a boolean", "a number", "a string", "an array", "an object", or "nothing". */
const char *json_kind_name(const json_value *v);
/* True for a number written as an integer: no fraction and no exponent. */
bool json_is_integer_literal(const json_value *v);
/* Whether a number's text (as json_value.text holds it) denotes a whole number, decided
 * on the digits, not on the double: 1e-400 is not whole, though its double is 0. */
bool json_number_is_whole(const char *text);
/* The exact value of a number that is a whole number: written as an integer (any size that
 * fits), or with a fraction or exponent when its double is whole and below 2^53. False for
 * anything else, including values out of range. */
bool json_get_int64(const json_value *v, int64_t *out);
bool json_get_uint64(const json_value *v, uint64_t *out);

/* Writes s as a JSON string literal (quotes and escapes, so always one line), cut with
 * "..." to fit len. Returns buf. For names and text quoted in messages. */
const char *json_quote(const char *s, char *buf, size_t len);

#endif
