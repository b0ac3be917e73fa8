/* libFuzzer target for the dmlops tool's readers (`make fuzz`, target `tool`): the first
 * byte picks the reader, the rest is its input.
 *   0: the .npy parser (npy_parse); an accepted array must be self-consistent: its count
 *      is the product of its shape and its data holds count elements.
 *   1: the strict JSON reader (json_parse), then the relaxed one (json_parse_relaxed:
 *      comments, trailing commas, text after the value), every value walked; what the
 *      strict reader accepts the relaxed one must accept too.
 *   2: a whole model file, our format or DxDispatch's, through model_load (which also
 *      reads any .npy file the model names, relative to it).
 * Under AddressSanitizer and UBSan any out-of-bounds access, overflow or leak is a bug;
 * refusals must come with a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "model.h"
#include "npy.h"

static void check_npy(const uint8_t *data, size_t size)
{
    npy_array a;
    char err[256] = "";
    memset(&a, 0, sizeof a);
    if (!npy_parse(data, size, &a, err, sizeof err)) {
        if (!err[0]) abort(); /* a refusal says why */
        return;
    }
    uint64_t count = 1;
    for (uint32_t i = 0; i < a.ndim; i++) count *= a.shape[i];
    const uint32_t es = npy_element_size(a.type);
    if (a.ndim > NPY_MAX_DIMS || count != a.count || es == 0) abort();
    volatile uint8_t sink = 0; /* every byte of the data is there to read */
    for (uint64_t i = 0; i < a.count * es; i++) sink ^= ((const uint8_t *)a.data)[i];
    (void)sink;
    npy_free(&a);
}

static size_t walk(const json_value *v, int depth)
{
    if (!v || depth > 200) return 0;
    size_t n = 1;
    (void)json_kind_name(v);
    int64_t i64;
    uint64_t u64;
    (void)json_get_int64(v, &i64);
    (void)json_get_uint64(v, &u64);
    json_iter it;
    for (const json_value *c = json_first(&it, v); c; c = json_next(&it)) n += walk(c, depth + 1);
    (void)json_member(v, "Type");
    return n;
}

static void check_json(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return;
    memcpy(text, data, size);
    text[size] = 0;
    json_doc doc;
    char err[256] = "";
    const bool strict = json_parse(text, size, &doc, err, sizeof err);
    if (strict) {
        walk(doc.root, 0);
        json_free(&doc);
    } else if (!err[0] || strchr(err, '\n')) {
        abort(); /* a refusal says why, on one line */
    }
    err[0] = '\0';
    if (json_parse_relaxed(text, size, &doc, err, sizeof err)) {
        walk(doc.root, 0);
        json_free(&doc);
    } else if (strict || !err[0] || strchr(err, '\n')) {
        abort();
    }
    free(text);
}

static void check_model(const uint8_t *data, size_t size)
{
    static char dir[64];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/dmlops-fuzz-tool-XXXXXX");
        if (!mkdtemp(dir)) abort();
    }
    char path[128];
    snprintf(path, sizeof path, "%s/model.json", dir);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    fwrite(data, 1, size, f);
    fclose(f);
    model m;
    memset(&m, 0, sizeof m);
    const model_options o = {.output_dir = dir};
    if (model_load(path, &o, &m, NULL)) model_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    switch (data[0] % 3) {
    case 0: check_npy(data + 1, size - 1); break;
    case 1: check_json(data + 1, size - 1); break;
    default: check_model(data + 1, size - 1); break;
    }
    return 0;
}
