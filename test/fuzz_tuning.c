/* libFuzzer target for the tuning file's reader (`make fuzz`, target `tuning`; issue 49):
 * any bytes go to dm_tune_file_parse, which must refuse them with a message or accept a
 * file whose every value its knob allows; an accepted file written out again must be read
 * back as the same file, and written the same way twice (one canonical text). Under
 * AddressSanitizer and UBSan an out-of-bounds read, an overflow or a leak is a bug.
 * White-box: it links the library's objects (src/tune/tune_file.h is internal). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/tune/tune_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_entries(const dm_tune_file *f)
{
    uint32_t nk;
    const dm_tune_knob *k = dm_tune_knobs(&nk);
    for (uint32_t i = 0; i < f->count; i++) {
        const dm_tune_entry *e = &f->entries[i];
        if (!e->key[0] || strlen(e->key) >= DM_TUNE_KEY_MAX) abort();
        for (uint32_t j = 0; j < nk; j++)
            if (!dm_tune_value_valid(&k[j], e->config.v[j])) abort();
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(f->entries[j].key, e->key)) abort(); /* one entry per class */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The reader is given exactly `size` bytes, as a file's contents: a copy without the
     * fuzzer's slack, so that a read past the end is seen. */
    char *text = malloc(size ? size : 1);
    if (!text) return 0;
    memcpy(text, data, size);
    dm_tune_file f, g;
    char err[256] = "";
    if (!dm_tune_file_parse(text, size, &f, err, sizeof err)) {
        if (!err[0]) abort(); /* a refusal says why */
        dm_tune_file_free(&f);
        free(text);
        return 0;
    }
    check_entries(&f);
    size_t n1 = 0, n2 = 0;
    char *once = dm_tune_file_format(&f, &n1);
    if (!once) abort();
    if (!dm_tune_file_parse(once, n1, &g, err, sizeof err)) abort(); /* its own writing refused */
    if (g.count != f.count || memcmp(&g.id.uuid, &f.id.uuid, 16) || g.id.knobs != f.id.knobs ||
        g.id.kernels != f.id.kernels || strcmp(g.id.library, f.id.library))
        abort();
    for (uint32_t i = 0; i < f.count; i++)
        if (strcmp(g.entries[i].key, f.entries[i].key) || !dm_tune_config_equal(&g.entries[i].config, &f.entries[i].config) ||
            g.entries[i].default_ns != f.entries[i].default_ns || g.entries[i].tuned_ns != f.entries[i].tuned_ns)
            abort();
    char *twice = dm_tune_file_format(&g, &n2);
    if (!twice || n2 != n1 || memcmp(once, twice, n1)) abort();
    free(twice);
    free(once);
    dm_tune_file_free(&g);
    dm_tune_file_free(&f);
    free(text);
    return 0;
}
