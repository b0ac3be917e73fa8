/* The host/kernel interface, checked from both sides: src/vk/vk_abi.h (what the host
 * writes) against glsl/gather_common.glsl (what the kernels read), and against
 * glsl/copy.comp (the compute copy). The GLSL file is read
 * as text and its file-scope constants, push-constant block, specialisation constants
 * and buffer bindings are compared with the C lists, so a change on one side alone
 * fails here. Member offsets of the push-constant block follow std430 rules from the
 * GLSL types and must equal the C struct's offsetof. */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>

#include "../src/gather.h"
#include "../src/vk/vk_abi.h"
#include "harness.h"

/* The C struct's rem[] is indexed by gather slot: the named members follow slot order. */
_Static_assert(offsetof(dm_vk_push, rem_dst) == 4 * DM_SLOT_DST && offsetof(dm_vk_push, rem_src) == 4 * DM_SLOT_SRC &&
                   offsetof(dm_vk_push, rem_aux) == 4 * DM_SLOT_AUX && offsetof(dm_vk_push, rem_aux2) == 4 * DM_SLOT_AUX2,
               "dm_vk_push members out of slot order");

static char *glsl_file(const char *name)
{
    /* Next to this file: test/../glsl (make runs the tests from the repository root). */
    char path[512];
    const char *file = __FILE__, *slash = strrchr(file, '/');
    int dir = slash ? (int)(slash - file) : 1;
    snprintf(path, sizeof path, "%.*s/../glsl/%s", dir, slash ? file : ".", name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        (void)CHECK(0, "cannot open %s (run from the repository root)", path);
        return NULL;
    }
    char *text = calloc(1, 1 << 16);
    size_t n = text ? fread(text, 1, (1 << 16) - 1, f) : 0;
    fclose(f);
    if (text && n == (1 << 16) - 1) (void)CHECK(0, "%s is larger than this test reads", path);
    return text;
}

static char *glsl_text(void) { return glsl_file("gather_common.glsl"); }

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p)) p++;
    return p;
}

/* Copies an identifier at p into out (64 bytes); returns the character after it. */
static const char *ident(const char *p, char *out)
{
    size_t n = 0;
    p = skip_space(p);
    while ((isalnum((unsigned char)*p) || *p == '_') && n < 63) out[n++] = *p++;
    out[n] = 0;
    return p;
}

/* ---- file-scope `const uint NAME = VALUEu, ...;` --------------------------------------- */

typedef struct glsl_const {
    char name[64];
    uint32_t value;
    bool seen; /* matched by a C definition */
} glsl_const;

static int parse_consts(const char *text, glsl_const *out, int cap)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, "const uint ")) != NULL; p++) {
        if (p != text && p[-1] != '\n') continue; /* indented: a local constant */
        const char *q = p + strlen("const uint");
        for (;;) {
            char name[64];
            q = ident(q, name);
            q = skip_space(q);
            if (!name[0] || *q != '=' || n == cap) break;
            char *end;
            const char *at = skip_space(q + 1);
            unsigned long v = strtoul(at, &end, 0);
            if (end == at) break; /* not a number: a build-time constant (VARIANT = DM_VARIANT) */
            snprintf(out[n].name, sizeof out[n].name, "%s", name);
            out[n].value = (uint32_t)v;
            out[n++].seen = false;
            q = skip_space(end);
            if (*q == 'u') q = skip_space(q + 1);
            if (*q != ',') break;
            q++;
        }
    }
    return n;
}

static glsl_const *find_const(glsl_const *c, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(c[i].name, name)) return &c[i];
    return NULL;
}

static void expect_const(glsl_const *c, int n, const char *name, uint32_t value)
{
    glsl_const *g = find_const(c, n, name);
    if (!CHECK(g != NULL, "vk_abi.h defines %s but gather_common.glsl does not", name)) return;
    g->seen = true;
    CHECK(g->value == value, "%s: %u in vk_abi.h, %u in gather_common.glsl", name, value, g->value);
}

TEST(parameter_record_words_agree)
{
    char *text = glsl_text();
    REQUIRE(text != NULL);
    glsl_const c[128];
    int n = parse_consts(text, c, 128);
    CHECK(n >= 19, "found only %d constants in gather_common.glsl", n);
#define EXPECT_PARAM(name, value) expect_const(c, n, "P_" #name, DM_P_##name);
    DM_VK_PARAMS(EXPECT_PARAM)
#undef EXPECT_PARAM
    /* The values the record's words and the specialisation constants take. */
    static const struct {
        const char *glsl;
        uint32_t value;
    } values[] = {{"MODE_ELEMENT", DM_MODE_ELEMENT}, {"MODE_VEC", DM_MODE_VEC},
                  {"NO_AXIS", DM_NO_AXIS},           {"AUX_U32", DM_AUX_U32},
                  {"AUX_I32", DM_AUX_I32},           {"AUX_U64", DM_AUX_U64},
                  {"AUX_I64", DM_AUX_I64},           {"V_GENERAL", DM_VARIANT_GENERAL},
                  {"V_STREAM", DM_VARIANT_STREAM},   {"V_PAIRS", DM_VARIANT_PAIRS},
                  {"V_WORDS", DM_VARIANT_WORDS},     {"V_ALONG", DM_VARIANT_ALONG},
                  {"V_ACROSS", DM_VARIANT_ACROSS},   {"V_FLAT", DM_VARIANT_FLAT},
                  {"V_FLAT_ROWS", DM_VARIANT_FLAT_ROWS}, {"V_COLUMNS", DM_VARIANT_COLUMNS},
                  {"V_TILES", DM_VARIANT_TILES},     {"V_TILE_COLUMNS", DM_VARIANT_TILE_COLUMNS},
                  {"V_TILE_HOT", DM_VARIANT_TILE_HOT}, {"V_TILE_ROWS", DM_VARIANT_TILE_ROWS}};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) expect_const(c, n, values[i].glsl, values[i].value);
    for (int i = 0; i < n; i++)
        CHECK(c[i].seen, "gather_common.glsl defines %s = %u, which vk_abi.h does not", c[i].name, c[i].value);
    free(text);
}

/* ---- the push-constant block ----------------------------------------------------------- */

/* std430 size and alignment of a scalar or vector type; false for anything else. */
static bool std430_type(const char *type, uint32_t *size, uint32_t *align)
{
    static const struct {
        const char *name;
        uint32_t size, align;
    } types[] = {{"uint", 4, 4},   {"int", 4, 4},    {"float", 4, 4},  {"uvec2", 8, 8},  {"ivec2", 8, 8},
                 {"vec2", 8, 8},   {"uvec3", 12, 16}, {"ivec3", 12, 16}, {"vec3", 12, 16}, {"uvec4", 16, 16},
                 {"ivec4", 16, 16}, {"vec4", 16, 16}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(types[i].name, type)) {
            *size = types[i].size;
            *align = types[i].align;
            return true;
        }
    return false;
}

typedef struct c_member {
    const char *name;
    size_t offset, size;
} c_member;

/* The push_constant block of a GLSL text against the C struct's members (nc of them,
 * `size` bytes in all). */
static void check_push_block(const char *text, const char *file, const c_member *c_members, size_t nc, size_t c_size)
{
    const char *p = strstr(text, "layout(push_constant)");
    if (!CHECK(p != NULL, "no push_constant block in %s", file)) return;
    p = strchr(p, '{');
    REQUIRE(p != NULL);
    p++;
    size_t i = 0;
    uint32_t offset = 0, block_align = 4;
    for (;;) {
        char type[64], name[64];
        p = ident(p, type);
        if (!type[0]) break; /* the closing brace */
        p = ident(p, name);
        p = skip_space(p);
        uint32_t size = 0, align = 1;
        if (!CHECK(std430_type(type, &size, &align) && *p == ';', "%s: push member %s %s: not a scalar or vector", file,
                   type, name))
            break;
        p++;
        offset = (offset + align - 1) / align * align;
        block_align = align > block_align ? align : block_align;
        if (CHECK(i < nc, "%s: GLSL push member %s has no C counterpart", file, name)) {
            CHECK(!strcmp(name, c_members[i].name), "%s: push member %zu: %s in GLSL, %s in C", file, i, name,
                  c_members[i].name);
            CHECK(offset == c_members[i].offset && size == c_members[i].size,
                  "%s: push member %s: offset %u size %u in GLSL (std430), offset %zu size %zu in C", file, name, offset,
                  size, c_members[i].offset, c_members[i].size);
        }
        offset += size;
        i++;
    }
    CHECK(i == nc, "%s: %zu push members in GLSL, %zu in C", file, i, nc);
    uint32_t block = (offset + block_align - 1) / block_align * block_align;
    CHECK(block == c_size, "%s: push block: %u bytes in GLSL, %zu in C", file, block, c_size);
    CHECK(block <= 128, "%s: push block of %u bytes: Vulkan guarantees 128", file, block);
}

TEST(push_constant_block_agrees)
{
    static const c_member c_members[] = {
#define C_MEMBER(name) {#name, offsetof(dm_vk_push, name), sizeof(((dm_vk_push *)0)->name)},
        DM_VK_PUSH_FIELDS(C_MEMBER)
#undef C_MEMBER
    };
    char *text = glsl_text();
    REQUIRE(text != NULL);
    check_push_block(text, "gather_common.glsl", c_members, sizeof c_members / sizeof c_members[0], sizeof(dm_vk_push));
    free(text);
}

/* ---- specialisation constants and bindings --------------------------------------------- */

/* The number after `key` in the layout(...) that precedes `what` (e.g. "const uint ESIZE"),
 * or -1. */
static long layout_number(const char *text, const char *what, const char *key)
{
    const char *at = strstr(text, what);
    if (!at) return -1;
    const char *open = NULL;
    for (const char *p = text; p < at; p++)
        if (!strncmp(p, "layout(", 7)) open = p;
    if (!open) return -1;
    const char *k = strstr(open, key);
    if (!k || k > at) return -1;
    k = skip_space(k + strlen(key));
    if (*k != '=') return -1;
    return strtol(skip_space(k + 1), NULL, 10);
}

TEST(specialisation_constants_and_bindings_agree)
{
    char *text = glsl_text();
    REQUIRE(text != NULL);
    CHECK(layout_number(text, ") in;", "local_size_x_id") == DM_SPEC_WORKGROUP, "local_size_x_id");
    CHECK(layout_number(text, "const uint ESIZE", "constant_id") == DM_SPEC_ESIZE, "ESIZE");
    CHECK(layout_number(text, "const uint RUN", "constant_id") == DM_SPEC_RUN, "RUN");
    CHECK(layout_number(text, "const uint AUX_TYPE", "constant_id") == DM_SPEC_AUX_TYPE, "AUX_TYPE");
    CHECK(layout_number(text, "const uint LANES", "constant_id") == DM_SPEC_LANES, "LANES");
    CHECK(layout_number(text, "const bool ALIGNED", "constant_id") == DM_SPEC_ALIGNED, "ALIGNED");
    CHECK(layout_number(text, "const bool PARTIAL", "constant_id") == DM_SPEC_PARTIAL, "PARTIAL");
    CHECK(layout_number(text, "const uint PEND", "constant_id") == DM_SPEC_PEND, "PEND");
    /* The build-time constants the Makefile sets per module (kernels.c's variants). */
    CHECK(strstr(text, "const int ROW_DIMS = DM_ROW_DIMS;") != NULL, "ROW_DIMS from -DDM_ROW_DIMS");
    CHECK(strstr(text, "\nconst uint VARIANT = DM_VARIANT;") != NULL, "VARIANT from -DDM_VARIANT");
    CHECK(strstr(text, "const bool FAST = DM_VARIANT != 0;") != NULL, "FAST: any variant but GENERAL");
    CHECK(!strstr(text, "const uint VARIANT = 0u"), "VARIANT is no specialisation constant");
    CHECK(strstr(text, "const bool TEXEL = DM_TEXEL != 0;") != NULL, "TEXEL from -DDM_TEXEL");
    static const struct {
        const char *block;
        long binding;
    } bindings[] = {{"uniform Params ", DM_BINDING_PARAMS},           {"buffer Dst ", DM_BINDING_SLOT0 + DM_SLOT_DST},
                    {"buffer Dst4 ", DM_BINDING_SLOT0 + DM_SLOT_DST}, {"buffer Src ", DM_BINDING_SLOT0 + DM_SLOT_SRC},
                    {"buffer Src4 ", DM_BINDING_SLOT0 + DM_SLOT_SRC}, {"buffer Src2 ", DM_BINDING_SLOT0 + DM_SLOT_SRC},
                    {"buffer Aux ", DM_BINDING_SLOT0 + DM_SLOT_AUX},
                    {"buffer Aux4 ", DM_BINDING_SLOT0 + DM_SLOT_AUX},
                    {"buffer Aux2 ", DM_BINDING_SLOT0 + DM_SLOT_AUX2},
                    {"usamplerBuffer Src4T;", DM_BINDING_SRC_TEXEL},
                    {"usamplerBuffer AuxT;", DM_BINDING_AUX_TEXEL},
                    {"usamplerBuffer Aux4T;", DM_BINDING_AUX_VEC_TEXEL},
                    {"usamplerBuffer SrcWT;", DM_BINDING_SRC_WORD_TEXEL}};
    for (size_t i = 0; i < sizeof bindings / sizeof bindings[0]; i++) {
        long b = layout_number(text, bindings[i].block, "binding");
        CHECK(b == bindings[i].binding, "%s: binding %ld in GLSL, %ld in C", bindings[i].block, b, bindings[i].binding);
    }
    /* The trace build's record buffer: its binding is a macro the file defines for
     * glsl/trace.glsl. */
    CHECK(strstr(text, "#define DM_TRACE_BINDING 9\n") != NULL && DM_BINDING_TRACE == 9, "DM_TRACE_BINDING");
    free(text);
}

/* The GPU tiles' specialisation constants (glsl/gather_tiles.glsl). */
TEST(tile_specialisation_constants_agree)
{
    char *text = glsl_file("gather_tiles.glsl");
    REQUIRE(text != NULL);
    CHECK(layout_number(text, "const uint LDS_VECS", "constant_id") == DM_SPEC_LDS_VECS, "LDS_VECS");
    CHECK(layout_number(text, "const uint TILE_V", "constant_id") == DM_SPEC_TILE_V, "TILE_V");
    free(text);
}

/* glsl/trace.glsl declares the record buffer at the binding its includer names. */
TEST(trace_buffer_binding_agrees)
{
    char *text = glsl_file("trace.glsl");
    REQUIRE(text != NULL);
    CHECK(strstr(text, "layout(std430, set = 0, binding = DM_TRACE_BINDING) buffer Trace") != NULL,
          "trace.glsl: the Trace buffer at DM_TRACE_BINDING");
    free(text);
}

/* ---- the compute copy (glsl/copy.comp) ------------------------------------------------ */

TEST(compute_copy_interface_agrees)
{
    static const c_member c_members[] = {
#define C_MEMBER(name) {#name, offsetof(dm_vk_copy_push, name), sizeof(((dm_vk_copy_push *)0)->name)},
        DM_VK_COPY_PUSH_FIELDS(C_MEMBER)
#undef C_MEMBER
    };
    char *text = glsl_file("copy.comp");
    REQUIRE(text != NULL);
    check_push_block(text, "copy.comp", c_members, sizeof c_members / sizeof c_members[0], sizeof(dm_vk_copy_push));
    CHECK(layout_number(text, ") in;", "local_size_x") == (long)DM_COPY_WORKGROUP, "copy.comp: local_size_x");
    CHECK(layout_number(text, "buffer Dst ", "binding") == DM_COPY_BINDING_DST, "copy.comp: Dst binding");
    CHECK(layout_number(text, "buffer Src ", "binding") == DM_COPY_BINDING_SRC, "copy.comp: Src binding");
    CHECK(layout_number(text, "usamplerBuffer SrcT;", "binding") == DM_COPY_BINDING_SRC_TEXEL, "copy.comp: SrcT binding");
    CHECK(layout_number(text, "const bool TEXEL", "constant_id") == DM_COPY_SPEC_TEXEL, "copy.comp: TEXEL");
    CHECK(strstr(text, "#define DM_TRACE_BINDING 3\n") != NULL && DM_COPY_BINDING_TRACE == 3,
          "copy.comp: DM_TRACE_BINDING");
    CHECK(layout_number(text, "const uint VECTORS", "constant_id") == DM_COPY_SPEC_VECTORS, "copy.comp: VECTORS");
    CHECK(layout_number(text, ") in;", "local_size_x_id") == DM_COPY_SPEC_WORKGROUP, "copy.comp: local_size_x_id");
    char regs[32];
    snprintf(regs, sizeof regs, "uvec4 v[%u];", DM_COPY_MAX_VECTORS);
    CHECK(strstr(text, regs) != NULL, "copy.comp: room for %u vectors (%s)", DM_COPY_MAX_VECTORS, regs);
    free(text);
}
