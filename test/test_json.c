/* The dmlops tool's strict JSON reader (src/cli/json.c, compiled in here): values and
 * their positions, exact integers, and a one-line "LINE:COL: message" for every kind of
 * malformed input. */
#include <stdlib.h>

#include "../src/cli/json.c"
#include "harness.h"

static bool parse(const char *text, json_doc *doc, char *err, size_t errlen)
{
    return json_parse(text, strlen(text), doc, err, errlen);
}

TEST(values_kinds_and_positions)
{
    const char *text = "{\n  \"a\": [1, -2.5e1, true, false, null],\n  \"b\": {\"c\": \"x\\ny\\u00e9\\ud83d\\ude00\"}\n}\n";
    json_doc d;
    char err[256];
    REQUIRE(parse(text, &d, err, sizeof err), "%s", err);
    const json_value *a = json_member(d.root, "a"), *b = json_member(d.root, "b");
    REQUIRE(a && b && a->kind == JSON_ARRAY && a->count == 5 && b->kind == JSON_OBJECT);
    CHECK(a->line == 2 && a->col == 8, "a at %u:%u", a->line, a->col);
    /* An array of scalars is packed: its elements carry the array's position. */
    json_iter it;
    const json_value *e = json_first(&it, a);
    CHECK(a->packed && !a->child);
    CHECK(e->kind == JSON_NUMBER && e->number == 1 && !strcmp(e->text, "1") && json_is_integer_literal(e));
    e = json_next(&it);
    CHECK(e->kind == JSON_NUMBER && e->number == -25 && !json_is_integer_literal(e) && e->col == 8, "col %u", e->col);
    e = json_next(&it);
    CHECK(e->kind == JSON_BOOL && e->boolean);
    e = json_next(&it);
    CHECK(e->kind == JSON_BOOL && !e->boolean);
    e = json_next(&it);
    CHECK(e->kind == JSON_NULL && !e->next && !json_next(&it));
    const json_value *c = json_member(b, "c");
    REQUIRE(c && c->kind == JSON_STRING);
    CHECK(!strcmp(c->text, "x\ny\xc3\xa9\xf0\x9f\x98\x80") && c->length == 9, "decoded \"%s\"", c->text);
    CHECK(c->line == 3 && c->col == 14, "c at %u:%u", c->line, c->col);
    CHECK(!json_member(d.root, "zz") && !json_member(a, "a"));
    CHECK(!strcmp(json_kind_name(a), "an array") && !strcmp(json_kind_name(NULL), "nothing"));
    json_free(&d);
}

TEST(exact_integers)
{
    json_doc d;
    char err[256];
    REQUIRE(parse("[9223372036854775807, -9223372036854775808, 18446744073709551615, 9007199254740993, 1e3, 2.5, "
                  "18446744073709551616, -1, -0]",
                  &d, err, sizeof err),
            "%s", err);
    json_iter it;
    const json_value *v = json_first(&it, d.root);
    int64_t i;
    uint64_t u;
    CHECK(json_get_int64(v, &i) && i == INT64_MAX);
    v = json_next(&it);
    CHECK(json_get_int64(v, &i) && i == INT64_MIN && !json_get_uint64(v, &u));
    v = json_next(&it);
    CHECK(json_get_uint64(v, &u) && u == UINT64_MAX && !json_get_int64(v, &i));
    v = json_next(&it);
    CHECK(json_get_int64(v, &i) && i == 9007199254740993LL, "2^53 + 1 must stay exact");
    v = json_next(&it);
    CHECK(json_get_int64(v, &i) && i == 1000, "1e3 is a whole number");
    v = json_next(&it);
    CHECK(!json_get_int64(v, &i) && !json_get_uint64(v, &u), "2.5 is not");
    v = json_next(&it);
    CHECK(!json_get_uint64(v, &u), "2^64 does not fit");
    v = json_next(&it);
    CHECK(!json_get_uint64(v, &u) && json_get_int64(v, &i) && i == -1);
    v = json_next(&it);
    CHECK(json_get_uint64(v, &u) && u == 0);
    json_free(&d);
}

/* Each malformed text: the message's position and words, and that it is one line. */
TEST(errors_are_one_line_with_a_position)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"", "1:1: no JSON value: the file is empty"},
        {"   \n  ", "2:3: no JSON value"},
        {"{\"a\": [1,\n]}", "2:1: a comma before ']'"},
        {"{\"a\": 1,}", "1:9: a comma before '}'"},
        {"{\"resources\": [] \"operators\":\n  []}", "1:18: expected ',' or '}' after an object member, found '\"'"},
        {"[1 2]", "1:4: expected ',' or ']' after an array element, found '2'"},
        {"{a: 1}", "1:2: expected a member name in double quotes, found 'a'"},
        {"{\"a\" 1}", "1:6: expected ':' after the member name \"a\", found '1'"},
        {"[tru]", "1:2: expected a value, found 'tru'"},
        {"[NaN]", "1:2: 'NaN' is not JSON"},
        {"[01]", "1:2: a number with a leading zero"},
        {"[1.]", "1:4: expected a digit after the decimal point"},
        {"[1e]", "1:4: expected a digit in the exponent"},
        {"[-]", "1:3: expected a digit after '-', found ']'"},
        {"[1e999]", "1:2: the number \"1e999\" is beyond the range of a double"},
        {"\"abc", "1:1: a string that never ends"},
        {"[\"a\nb\"]", "1:4: a line break in a string"},
        {"[\"a\\qb\"]", "1:4: unknown escape '\\q'"},
        {"[\"\\u12\"]", "1:3: \\u needs four hexadecimal digits"},
        {"[\"\\udc00\"]", "1:3: \\udc00 is a lone low surrogate"},
        {"[\"\\ud800x\"]", "1:3: \\ud800 is a high surrogate without its low half"},
        {"[\"\\u0000\"]", "1:3: \\u0000 (NUL) in a string is not supported"},
        {"[\"\xc3\x28\"]", "1:3: invalid UTF-8 (byte 0xc3)"},
        {"[\"\xed\xa0\x80\"]", "1:3: invalid UTF-8 (byte 0xed)"},
        {"{\"a\": 1,\n \"b\": 2, \"a\": 3}", "2:15: the key \"a\" appears twice in an object (first at 1:7)"},
        {"{} {}", "1:4: '{' after the end of the JSON value"},
        {"[1]\n\n x", "3:2: 'x' after the end of the JSON value"},
        {"[", "1:2: expected a value, found the end of the file"},
        {"{\"a\":", "1:6: expected a value, found the end of the file"},
        {"// c\n{}", "1:1: expected a value, found '/'"},
        {"\x01", "1:1: expected a value, found byte 0x01"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        json_doc d;
        char err[256] = "";
        bool ok = parse(cases[c].text, &d, err, sizeof err);
        CHECK(!ok, "accepted case %zu", c);
        if (ok) {
            json_free(&d);
            continue;
        }
        CHECK(!strncmp(err, cases[c].want, strlen(cases[c].want)), "case %zu: \"%s\", expected \"%s...\"", c, err,
              cases[c].want);
        CHECK(!strchr(err, '\n'), "case %zu: a line break in \"%s\"", c, err);
    }
}

TEST(nesting_is_bounded)
{
    char *text = malloc(2 * 10000 + 1);
    REQUIRE(text);
    for (int depth = JSON_MAX_DEPTH; depth <= JSON_MAX_DEPTH + 1; depth++) {
        memset(text, '[', (size_t)depth);
        memset(text + depth, ']', (size_t)depth);
        text[2 * depth] = '\0';
        json_doc d;
        char err[256];
        bool ok = parse(text, &d, err, sizeof err);
        if (depth == JSON_MAX_DEPTH) {
            CHECK(ok, "%d levels: %s", depth, err);
            if (ok) json_free(&d);
        } else {
            CHECK(!ok && strstr(err, "nested deeper than"), "%d levels", depth);
        }
    }
    /* Far deeper than the limit: refused without exhausting the stack. */
    memset(text, '[', 10000);
    text[10000] = '\0';
    json_doc d;
    char err[256];
    CHECK(!parse(text, &d, err, sizeof err));
    free(text);
}

TEST(bom_and_large_documents)
{
    json_doc d;
    char err[256];
    REQUIRE(parse("\xef\xbb\xbf{\"a\": 1}", &d, err, sizeof err), "%s", err);
    CHECK(d.root->child->col == 7, "columns count from after the BOM: %u", d.root->child->col);
    json_free(&d);
    /* Enough nodes and string bytes to need several arena chunks, and one larger than a chunk. */
    size_t n = 20000, len = 0;
    char *text = malloc(n * 12 + 200000);
    REQUIRE(text);
    text[len++] = '[';
    for (size_t i = 0; i < n; i++) len += (size_t)sprintf(text + len, "%zu,", i);
    text[len++] = '"';
    memset(text + len, 'x', 150000);
    len += 150000;
    text[len++] = '"';
    text[len++] = ']';
    REQUIRE(json_parse(text, len, &d, err, sizeof err), "%s", err);
    CHECK(d.root->count == n + 1);
    json_iter it;
    const json_value *v = json_first(&it, d.root);
    for (size_t i = 0; i < n; i++, v = json_next(&it)) {
        uint64_t u;
        if (!CHECK(json_get_uint64(v, &u) && u == i, "element %zu", i)) break;
    }
    CHECK(v && v->kind == JSON_STRING && v->length == 150000);
    json_free(&d);
    free(text);
}

TEST(every_truncation_is_refused_cleanly)
{
    const char *text = "{\"resources\": {\"x\": {\"initialValuesDataType\": \"FLOAT32\", \"initialValues\": [1, 2.5e-3, "
                       "\"nan\"]}}, \"k\\u00e9\\ud83d\\ude00\": [true, false, null, -0]}";
    size_t n = strlen(text);
    for (size_t len = 0; len < n; len++) {
        char *copy = malloc(len ? len : 1); /* exact size, so that ASan sees any over-read */
        REQUIRE(copy);
        memcpy(copy, text, len);
        json_doc d;
        char err[256];
        bool ok = json_parse(copy, len, &d, err, sizeof err);
        CHECK(!ok, "a text cut at %zu of %zu bytes was accepted", len, n);
        if (ok) json_free(&d);
        else CHECK(!strchr(err, '\n'), "cut at %zu: \"%s\"", len, err);
        free(copy);
    }
}

TEST(quote_escapes_and_cuts)
{
    char b[64];
    CHECK(!strcmp(json_quote("a\"b\\c\nd\x01", b, sizeof b), "\"a\\\"b\\\\c\\nd\\u0001\""), "%s", b);
    CHECK(!strcmp(json_quote("abcdefghijklmnopqrstuvwxyz", b, 16), "\"abcdefghij...\""), "%s", b);
    /* A cut never splits a UTF-8 sequence. */
    json_quote("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", b, 12);
    CHECK(strlen(b) < 12 && !strcmp(b + strlen(b) - 4, "...\""), "%s", b);
    bool whole = (strlen(b) - 5) % 2 == 0;
    CHECK(whole, "cut inside a character: %s", b);
}

/* Whole numbers are decided on the digits: 1e-400 underflows to the double 0, but it is
 * not the integer 0 (issue 45: it was read as one). */
TEST(whole_numbers_by_their_digits)
{
    static const struct {
        const char *text;
        bool whole;
    } cases[] = {
        {"1e-400", false}, {"-1e-400", false}, {"0e-400", true},  {"1e3", true},          {"1.5e1", true},
        {"1500e-3", false}, {"1000e-3", true}, {"100.000e-2", true}, {"0.0", true},      {"-0.5", false},
        {"1.0000000000000001", false},         {"123.000e-3", false}, {"1e-99999999999999999999", false},
        {"5E+0", true},     {"2.5", false},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        CHECK(json_number_is_whole(cases[c].text) == cases[c].whole, "%s", cases[c].text);
    json_doc d;
    char err[256];
    REQUIRE(parse("[1e-400, -1e-400, 1000e-3]", &d, err, sizeof err), "%s", err);
    json_iter it;
    const json_value *v = json_first(&it, d.root);
    int64_t i;
    uint64_t u;
    CHECK(v->number == 0 && !json_get_int64(v, &i) && !json_get_uint64(v, &u), "1e-400 read as an integer");
    v = json_next(&it);
    CHECK(!json_get_int64(v, &i) && !json_get_uint64(v, &u), "-1e-400 read as an integer");
    v = json_next(&it);
    CHECK(json_get_int64(v, &i) && i == 1 && json_get_uint64(v, &u) && u == 1);
    json_free(&d);
}

/* counts the values of a tree, checking each packed element on the way */
static size_t count_values(const json_value *v)
{
    size_t n = 1;
    json_iter it;
    for (const json_value *e = json_first(&it, v); e; e = json_next(&it)) n += count_values(e);
    return n;
}

/* Arrays of scalars are packed, nested ones too; an object anywhere inside makes the arrays
 * around it nodes, while the arrays beside it stay packed. */
TEST(packed_and_node_arrays)
{
    json_doc d;
    char err[256];
    const char *text = "{\"a\": [[1, \"x\\u00e9\", [true, null]], [], [-2.5e-3]],\n"
                       " \"b\": [[1, 2], [3, {\"c\": [4, 5]}, [6]], 7]}";
    REQUIRE(parse(text, &d, err, sizeof err), "%s", err);
    const json_value *a = json_member(d.root, "a"), *b = json_member(d.root, "b");
    REQUIRE(a && b);
    CHECK(a->packed && a->count == 3 && !a->child);
    json_iter it, in, deep;
    const json_value *e = json_first(&it, a);
    REQUIRE(e && e->kind == JSON_ARRAY && e->packed && e->count == 3);
    const json_value *x = json_first(&in, e);
    CHECK(x->kind == JSON_NUMBER && !strcmp(x->text, "1"));
    x = json_next(&in);
    CHECK(x->kind == JSON_STRING && !strcmp(x->text, "x\xc3\xa9") && x->length == 3);
    x = json_next(&in);
    REQUIRE(x->kind == JSON_ARRAY && x->count == 2);
    const json_value *y = json_first(&deep, x);
    CHECK(y->kind == JSON_BOOL && y->boolean);
    y = json_next(&deep);
    CHECK(y->kind == JSON_NULL && !json_next(&deep));
    CHECK(!json_next(&in));
    e = json_next(&it);
    CHECK(e->kind == JSON_ARRAY && e->count == 0 && !json_first(&in, e));
    e = json_next(&it);
    CHECK(e->kind == JSON_ARRAY && e->count == 1 && json_first(&in, e)->number == -2.5e-3);
    CHECK(!json_next(&it));
    /* b holds an object two levels down: b and its second element are nodes, the rest packed. */
    CHECK(!b->packed && b->count == 3 && b->child);
    const json_value *b0 = b->child, *b1 = b0->next, *b2 = b1->next;
    CHECK(b0->packed && b0->count == 2 && b1 && !b1->packed && b1->count == 3 && b2 && b2->kind == JSON_NUMBER);
    const json_value *obj = b1->child->next, *last = obj->next;
    CHECK(obj->kind == JSON_OBJECT && json_member(obj, "c")->packed && json_member(obj, "c")->count == 2);
    CHECK(last->packed && last->line == 2 && last->col == 35, "[6] at %u:%u", last->line, last->col);
    CHECK(count_values(d.root) == 24, "%zu values", count_values(d.root));
    json_free(&d);
    /* The relaxed syntax inside a packed array: comments and a trailing comma. */
    const char *relaxed = "[1, /* c */ [2,], // d\n 3,]";
    REQUIRE(json_parse_relaxed(relaxed, strlen(relaxed), &d, err, sizeof err), "%s", err);
    CHECK(d.root->packed && d.root->count == 3 && count_values(d.root) == 5);
    json_free(&d);
}

/* Memory: a document's numbers take about their text, not a node each (issue 45: 20 MB of
 * "0," took 960 MB), and a bound on the memory refuses, with a position, what would pass
 * it: nodes of objects are what can still be large. */
TEST(memory_grows_with_the_text)
{
    const size_t n = 1000000;
    char *text = malloc(2 * n + 64);
    REQUIRE(text);
    size_t len = 0;
    len += (size_t)sprintf(text + len, "{\"Data\": [");
    for (size_t i = 0; i < n; i++) {
        text[len++] = '0';
        text[len++] = ',';
    }
    len += (size_t)sprintf(text + len, "0]}");
    json_doc d;
    char err[256];
    const json_options bound = {.max_memory = 2 * len};
    REQUIRE(json_parse_with(text, len, &bound, &d, err, sizeof err), "%s", err);
    CHECK(d.memory <= len + (128 << 10), "%zu bytes of JSON took %zu bytes", len, d.memory);
    CHECK(json_member(d.root, "Data")->count == n + 1);
    json_free(&d);
    /* The same length of empty objects takes a node each: refused under the bound. */
    len = 0;
    text[len++] = '[';
    for (size_t i = 0; i + 1 < (2 * n) / 3; i++) len += (size_t)sprintf(text + len, "{},");
    len += (size_t)sprintf(text + len, "{}]");
    CHECK(!json_parse_with(text, len, &bound, &d, err, sizeof err));
    CHECK(strstr(err, "holding the document would take more than") && strchr(err, ':') && !strchr(err, '\n'), "%s", err);
    free(text);
}
