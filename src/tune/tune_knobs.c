/* The table of tuning knobs (tune_knobs.h). Its order is the order the tuner tries them in
 * (vk_tune_measure.c): the device class first, since every other default follows from it,
 * then the choices that change which kernel runs (texel loads, GPU tiles) or whether one
 * runs at all (copy regions), then the shape of the work: the grid, which needs no new
 * pipeline, then workgroup, units per step and lanes per run, whose every value is a
 * pipeline to compile (a fifth of a second each on lavapipe). The values tried span each
 * knob's defaults on CPU devices and GPUs (src/vk/vk_properties.c) and their neighbours. */
#include <stdio.h>
#include <string.h>

#include "tune_knobs.h"

#define DM_GETSET(field, type)                                                                 \
    static int64_t dm_get_##field(const dm_vk_params *p) { return (int64_t)p->field; }         \
    static void dm_set_##field(dm_vk_params *p, int64_t v) { p->field = (type)v; }
DM_GETSET(cpu_tuning, int)
DM_GETSET(texel, int)
DM_GETSET(tiles, int)
DM_GETSET(workgroup, uint32_t)
DM_GETSET(run, uint32_t)
DM_GETSET(lanes, uint32_t)
DM_GETSET(grid_cap, uint32_t)
DM_GETSET(copy_min_bytes, int64_t)
#undef DM_GETSET

static const char *const dm_class_words[] = {"gpu", "cpu"};
static const char *const dm_switch_words[] = {"off", "on"};

#define DM_NEVER (1ll << 40) /* DMLOPS_VK_COPY_MIN's largest: no run becomes a copy region */

static const dm_tune_knob dm_knobs[] = {
    {"TUNING", -1, 0, 1, false, dm_class_words, {0, 1}, 2, dm_get_cpu_tuning, dm_set_cpu_tuning},
    {"TEXEL", -1, 0, 1, false, dm_switch_words, {0, 1}, 2, dm_get_texel, dm_set_texel},
    {"TILES", -1, 0, 1, false, dm_switch_words, {0, 1}, 2, dm_get_tiles, dm_set_tiles},
    {"COPY_MIN", -1, 0, DM_NEVER, false, NULL, {16, 64, 1024, DM_NEVER}, 4, dm_get_copy_min_bytes,
     dm_set_copy_min_bytes},
    {"GRID", 0, 1, 1 << 20, false, NULL, {128, 1024, 8192, 65536}, 4, dm_get_grid_cap, dm_set_grid_cap},
    {"WORKGROUP", 0, 1, 1024, true, NULL, {32, 64, 128, 256}, 4, dm_get_workgroup, dm_set_workgroup},
    {"RUN", 0, 1, 32, true, NULL, {1, 4, 8, 32}, 4, dm_get_run, dm_set_run},
    {"LANES", 0, 1, 64, true, NULL, {1, 4, 8, 32}, 4, dm_get_lanes, dm_set_lanes},
};
#define DM_KNOB_COUNT (sizeof dm_knobs / sizeof dm_knobs[0])
_Static_assert(DM_KNOB_COUNT <= DM_TUNE_MAX_KNOBS, "more knobs than a configuration holds");

const dm_tune_knob *dm_tune_knobs(uint32_t *count)
{
    *count = (uint32_t)DM_KNOB_COUNT;
    return dm_knobs;
}

/* FNV-1a over the name's bytes with its terminator, then each value's 8 bytes, low first. */
uint64_t dm_tune_knobs_fingerprint(void)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < DM_KNOB_COUNT; i++) {
        const dm_tune_knob *k = &dm_knobs[i];
        for (const char *c = k->name;; c++) {
            h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
            if (!*c) break;
        }
        const uint64_t words[4] = {(uint64_t)k->unset, (uint64_t)k->lo, (uint64_t)k->hi, k->pow2};
        for (int w = 0; w < 4; w++)
            for (int b = 0; b < 8; b++) h = (h ^ ((words[w] >> (8 * b)) & 0xff)) * 0x100000001b3ull;
    }
    return h;
}

bool dm_tune_value_valid(const dm_tune_knob *k, int64_t v)
{
    if (v == k->unset) return true;
    return v >= k->lo && v <= k->hi && (!k->pow2 || (v > 0 && (v & (v - 1)) == 0));
}

void dm_tune_config_of(const dm_vk_params *p, dm_tune_config *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < DM_KNOB_COUNT; i++) c->v[i] = dm_knobs[i].get(p);
}

void dm_tune_config_apply(const dm_tune_config *c, dm_vk_params *p)
{
    for (size_t i = 0; i < DM_KNOB_COUNT; i++) dm_knobs[i].set(p, c->v[i]);
}

bool dm_tune_config_equal(const dm_tune_config *a, const dm_tune_config *b)
{
    for (size_t i = 0; i < DM_KNOB_COUNT; i++)
        if (a->v[i] != b->v[i]) return false;
    return true;
}

void dm_tune_value_format(const dm_tune_knob *k, int64_t v, char *buf, size_t size)
{
    if (v == k->unset) snprintf(buf, size, "auto");
    else if (k->words && v >= k->lo && v <= k->hi) snprintf(buf, size, "%s", k->words[v - k->lo]);
    else snprintf(buf, size, "%lld", (long long)v);
}

bool dm_tune_value_parse(const dm_tune_knob *k, const char *text, size_t len, int64_t *v)
{
    if (len == 4 && !memcmp(text, "auto", 4)) {
        *v = k->unset;
        return true;
    }
    if (k->words) {
        for (int64_t w = k->lo; w <= k->hi; w++) {
            const char *word = k->words[w - k->lo];
            if (strlen(word) == len && !memcmp(word, text, len)) {
                *v = w;
                return true;
            }
        }
        return false;
    }
    /* Decimal, no sign, no leading zero (but "0"): the one spelling the writer uses. */
    if (len == 0 || len > 18 || (len > 1 && text[0] == '0')) return false;
    int64_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9') return false;
        n = n * 10 + (text[i] - '0');
    }
    if (n == k->unset || !dm_tune_value_valid(k, n)) return false; /* unset is spelt "auto" */
    *v = n;
    return true;
}

void dm_tune_config_format(const dm_tune_config *c, const dm_tune_config *base, char *buf, size_t size)
{
    size_t n = 0;
    if (size) buf[0] = 0;
    for (size_t i = 0; i < DM_KNOB_COUNT; i++) {
        if (base && base->v[i] == c->v[i]) continue;
        if (n + 1 >= size) break; /* cut: no room for more */
        char value[32];
        dm_tune_value_format(&dm_knobs[i], c->v[i], value, sizeof value);
        const int w = snprintf(buf + n, size - n, "%s%s=%s", n ? " " : "", dm_knobs[i].name, value);
        if (w > 0) n += (size_t)w;
    }
}
