/* Reading AMD disassembly as RADV prints it (isa.h): labels, instructions, loops, memory
 * instructions by width and integer divisions. Pure: text in, figures out. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/checked.h"
#include "isa.h"

#define ISA_NAME 48

#define ISA_OPS 4 /* operands kept per instruction */

typedef struct isa_instr {
    char mn[ISA_NAME];     /* mnemonic, encoding suffix (_e32, _e64) kept */
    char target[ISA_NAME]; /* a branch's label; "" for other instructions */
    char op[ISA_OPS][24];  /* the first operands, as written ("v4", "s[8:9]", "0x4f7ffffe") */
    uint32_t line;         /* 1-based line of the text */
} isa_instr;

typedef struct isa_label {
    char name[ISA_NAME];
    uint32_t at; /* index of the instruction after it */
} isa_label;

typedef struct isa_prog {
    isa_instr *in;
    uint32_t n;
    isa_label *lab;
    uint32_t nlab;
} isa_prog;

static bool starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Copies the token at s (letters, digits, '_', '.', '$') into out; returns its length. */
static size_t token(const char *s, const char *end, char *out)
{
    size_t n = 0;
    while (s + n < end && (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '.' || s[n] == '$')) n++;
    const size_t k = n < ISA_NAME - 1 ? n : ISA_NAME - 1;
    memcpy(out, s, k);
    out[k] = 0;
    return n;
}

/* A label's name as branches and labels both write it: LLVM's disassembler labels a
 * block "BB0_2:" and branches to it as ".LBB0_2" (its assembler-local name). */
static void label_name(char *name)
{
    if (name[0] == '.' && name[1] == 'L') memmove(name, name + 2, strlen(name + 2) + 1);
}

/* One line [s, end): a label ("BB3:"), an instruction ("\tv_add_nc_u32 v1, ..."), or
 * anything else (blank, a comment), which is skipped. */
static void read_line(const char *s, const char *end, uint32_t line, isa_prog *p)
{
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    if (s == end || *s == ';' || *s == '/' || *s == '#') return;
    char name[ISA_NAME];
    const size_t n = token(s, end, name);
    if (!n) return;
    const char *after = s + n;
    if (after < end && *after == ':') { /* a label: nothing but a comment may follow */
        const char *t = after + 1;
        while (t < end && (*t == ' ' || *t == '\t')) t++;
        if (t == end || *t == ';') {
            isa_label *l = &p->lab[p->nlab++];
            label_name(name);
            memcpy(l->name, name, sizeof l->name);
            l->at = p->n;
        }
        return;
    }
    /* An instruction's mnemonic names its unit (scalar, vector, memory, LDS, export);
     * anything else (an IR's text, a directive) is not ours to count. */
    static const char *const units[] = {"s_", "v_", "buffer_", "tbuffer_", "global_", "scratch_", "flat_", "ds_", "image_", "exp"};
    bool known = false;
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) known |= starts(name, units[u]);
    if (!known || !strcmp(name, "s_code_end")) return;
    isa_instr *in = &p->in[p->n++];
    memset(in, 0, sizeof *in);
    memcpy(in->mn, name, sizeof in->mn);
    in->line = line;
    if (starts(name, "s_branch") || starts(name, "s_cbranch_")) {
        const char *t = after;
        while (t < end && (*t == ' ' || *t == '\t')) t++;
        token(t, end, in->target);
        label_name(in->target);
    }
    /* The operands: comma-separated, up to the comment. */
    const char *t = after, *stop = memchr(after, ';', (size_t)(end - after));
    if (!stop) stop = end;
    for (int k = 0; k < ISA_OPS && t < stop; k++) {
        while (t < stop && (*t == ' ' || *t == '\t' || *t == ',')) t++;
        size_t len = 0;
        while (t + len < stop && t[len] != ',' && t[len] != ' ' && t[len] != '\t') len++;
        if (!len) break;
        const size_t keep = len < sizeof in->op[k] - 1 ? len : sizeof in->op[k] - 1;
        memcpy(in->op[k], t, keep);
        in->op[k][keep] = 0;
        t += len;
    }
}

static bool isa_parse(const char *text, isa_prog *p)
{
    memset(p, 0, sizeof *p);
    uint64_t lines = 1;
    for (const char *c = text; *c; c++) lines += *c == '\n';
    size_t bytes_in, bytes_lab;
    if (!dm_size_mul(lines, sizeof *p->in, &bytes_in) || !dm_size_mul(lines, sizeof *p->lab, &bytes_lab)) return false;
    p->in = calloc(1, bytes_in);
    p->lab = calloc(1, bytes_lab);
    if (!p->in || !p->lab) return false;
    uint32_t line = 1;
    for (const char *s = text; *s; line++) {
        const char *e = strchr(s, '\n');
        if (!e) e = s + strlen(s);
        read_line(s, e, line, p);
        s = *e ? e + 1 : e;
    }
    return true;
}

static void isa_prog_free(isa_prog *p)
{
    free(p->in);
    free(p->lab);
}

/* ---- what an instruction does ----------------------------------------------------- */

/* The bytes per lane a load's or store's name says, from the part after "load_" or
 * "store_": GCN/RDNA names (ubyte, ushort, dword, dwordx4) and RDNA3's (u8, b32, b128). */
static int width_index(const char *suffix)
{
    static const struct {
        const char *name;
        int w;
    } names[] = {{"dwordx4", ISA_W16}, {"dwordx3", ISA_W12}, {"dwordx2", ISA_W8}, {"dword", ISA_W4},
                 {"ubyte", ISA_W1},    {"sbyte", ISA_W1},    {"byte", ISA_W1},    {"ushort", ISA_W2},
                 {"sshort", ISA_W2},   {"short", ISA_W2},    {"b128", ISA_W16},   {"b96", ISA_W12},
                 {"b64", ISA_W8},      {"b32", ISA_W4},      {"b16", ISA_W2},     {"u16", ISA_W2},
                 {"i16", ISA_W2},      {"b8", ISA_W1},       {"u8", ISA_W1},      {"i8", ISA_W1}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (starts(suffix, names[i].name)) return names[i].w;
    return -1;
}

/* Counts instruction mn into m: vector memory by width, texel loads, atomics, scalar loads. */
static void count_memory(const char *mn, isa_mem *m)
{
    if (starts(mn, "s_load_") || starts(mn, "s_buffer_load_")) {
        m->scalar++;
        return;
    }
    if (starts(mn, "ds_read") || starts(mn, "ds_load")) {
        m->lds_read++;
        return;
    }
    if (starts(mn, "ds_write") || starts(mn, "ds_store")) {
        m->lds_write++;
        return;
    }
    const bool buffer = starts(mn, "buffer_") || starts(mn, "global_") || starts(mn, "tbuffer_");
    if (!buffer) return;
    const char *op = strchr(mn, '_') + 1;
    if (starts(op, "atomic")) {
        m->atomic++;
    } else if (starts(op, "load_format") || starts(mn, "tbuffer_load")) {
        m->texel++;
    } else if (starts(op, "load_")) {
        const int w = width_index(op + 5);
        if (w >= 0) m->load[w]++;
    } else if (starts(op, "store_") && !starts(op, "store_format") && !starts(mn, "tbuffer_")) {
        const int w = width_index(op + 6);
        if (w >= 0) m->store[w]++;
    }
}

/* What instruction mn moves, as count_memory counts it. */
static isa_mem memory_of(const char *mn)
{
    isa_mem m;
    memset(&m, 0, sizeof m);
    count_memory(mn, &m);
    return m;
}

static uint32_t all_widths(const uint32_t *count)
{
    uint32_t n = 0;
    for (int w = 0; w < ISA_WIDTHS; w++) n += count[w];
    return n;
}

static bool is_vector_load(const char *mn)
{
    const isa_mem m = memory_of(mn);
    return m.texel + all_widths(m.load) > 0;
}

static bool is_store(const char *mn)
{
    const isa_mem m = memory_of(mn);
    return m.atomic + all_widths(m.store) > 0;
}

/* The widest plain store of mn, as an ISA_W* index; -1 if it is none. */
static int store_width(const char *mn)
{
    const isa_mem m = memory_of(mn);
    for (int w = ISA_WIDTHS - 1; w >= 0; w--)
        if (m.store[w]) return w;
    return -1;
}

/* How far apart the steps of a division may lie: the compiler interleaves other work. */
#define ISA_DIV_REACH 6u     /* the conversions around the reciprocal */
#define ISA_DIV_QUOTIENT 16u /* from the reciprocal to its quotient's multiply-high */
#define ISA_DIV_CHECK 8u     /* from the multiply-high to the remainder's check */

static bool is_literal(const char *op)
{
    return isdigit((unsigned char)op[0]) || op[0] == '-' || starts(op, "0x");
}

static bool is_reciprocal(const char *mn) { return starts(mn, "v_rcp_f32") || starts(mn, "v_rcp_iflag_f32"); }

/* Whether a and b share a source operand that is not a literal (the destination, the
 * first operand of a and of a VALU compare, left out). */
static bool share_source(const isa_instr *a, const isa_instr *b)
{
    const int bfirst = starts(b->mn, "s_cmp") ? 0 : 1; /* s_cmp writes SCC, named nowhere */
    for (int i = 1; i < ISA_OPS; i++)
        for (int j = bfirst; j < ISA_OPS; j++)
            if (a->op[i][0] && !is_literal(a->op[i]) && !strcmp(a->op[i], b->op[j])) return true;
    return false;
}

/* Whether instruction i is a division's quotient step: a multiply-high (of the dividend
 * by the divisor's scaled reciprocal) by no literal, whose next multiply is the
 * remainder's multiply-low (by the divisor), followed by a compare of the remainder with
 * that divisor and a select (the quotient's correction). The reciprocal's own refinement
 * is a multiply-high too, but the quotient's multiply-high follows it first; a constant
 * divisor's multiply-high is by a literal and needs no correction. */
static bool is_quotient(const isa_instr *in, uint32_t n, uint32_t i)
{
    if (!starts(in[i].mn, "v_mul_hi_u32") && !starts(in[i].mn, "s_mul_hi_u32")) return false;
    for (int k = 1; k < ISA_OPS; k++)
        if (is_literal(in[i].op[k])) return false;
    const isa_instr *mul = NULL, *cmp = NULL;
    for (uint32_t k = i + 1; k < n && k <= i + ISA_DIV_CHECK; k++) {
        const char *m = in[k].mn;
        if (!mul && (starts(m, "v_mul_hi") || starts(m, "s_mul_hi"))) return false;
        if (!mul && (starts(m, "v_mul_lo_u32") || starts(m, "s_mul_i32"))) mul = &in[k];
        else if (mul && !cmp && (starts(m, "v_cmp") || starts(m, "s_cmp")) && strstr(m, "_u32") &&
                 share_source(mul, &in[k]))
            cmp = &in[k];
        else if (cmp && (starts(m, "v_cndmask") || starts(m, "s_cselect"))) return true;
    }
    return false;
}

/* Whether instruction i is a run-time 32-bit unsigned division (isa.h, isa_code): one per
 * quotient step, so that two dividends over one divisor, which share its reciprocal, are
 * two, and a division whose reciprocal a compiler hoisted out of a loop (LLVM does; ACO
 * in Mesa 22.3 shares one with an earlier division by the same divisor) counts where its
 * quotient is made. A reciprocal (v_rcp_f32 or v_rcp_iflag_f32 between v_cvt_f32_u32 and
 * v_cvt_u32_f32, as ACO and LLVM lower a division) with no quotient step recognised after
 * it counts as one in its place, so that a correction sequence of another shape is still
 * seen. */
static bool is_division(const isa_instr *in, uint32_t n, uint32_t i)
{
    if (is_quotient(in, n, i)) return true;
    if (!is_reciprocal(in[i].mn)) return false;
    bool to_float = false, to_int = false;
    for (uint32_t k = i > ISA_DIV_REACH ? i - ISA_DIV_REACH : 0; k < i; k++)
        to_float |= starts(in[k].mn, "v_cvt_f32_u32");
    for (uint32_t k = i + 1; k < n && k <= i + ISA_DIV_REACH; k++) to_int |= starts(in[k].mn, "v_cvt_u32_f32");
    for (uint32_t k = i + 1; k < n && k <= i + ISA_DIV_QUOTIENT && to_float && to_int; k++)
        if (is_quotient(in, n, k)) return false;
    return to_float && to_int;
}

/* ---- loops ------------------------------------------------------------------------- */

typedef struct isa_span {
    uint32_t first, last; /* instruction indices, inclusive */
} isa_span;

static const isa_label *find_label(const isa_prog *p, const char *name)
{
    for (uint32_t i = 0; i < p->nlab; i++)
        if (!strcmp(p->lab[i].name, name)) return &p->lab[i];
    return NULL;
}

/* Every loop: a branch back to a label at or before it. Several branches back to one
 * label (a `continue`) make one loop, up to the last of them. Returns how many. */
static uint32_t find_loops(const isa_prog *p, isa_span *loop)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n; i++) {
        if (!p->in[i].target[0]) continue;
        const isa_label *l = find_label(p, p->in[i].target);
        if (!l || l->at > i) continue;
        uint32_t k = 0;
        while (k < n && loop[k].first != l->at) k++;
        if (k == n) loop[n++] = (isa_span){l->at, i};
        else loop[k].last = i;
    }
    return n;
}

static bool inside(isa_span a, isa_span b) { return b.first <= a.first && a.last <= b.last; }

/* Whether instruction i lies in a side loop of the chunk loop `body` within `grid`: a loop
 * inside the grid loop that neither holds the chunk loop nor lies inside it. */
static bool in_side_loop(const isa_span *loop, uint32_t nloops, isa_span grid, isa_span body, uint32_t i)
{
    for (uint32_t j = 0; j < nloops; j++)
        if (loop[j].first <= i && i <= loop[j].last && inside(loop[j], grid) && !inside(body, loop[j]) &&
            !inside(loop[j], body))
            return true;
    return false;
}

/* The figures of instructions [s.first, s.last], less those in the side loops of `body`
 * (nloops 0: none left out). */
static void count_code(const isa_prog *p, const isa_span *loop, uint32_t nloops, isa_span s, isa_span body,
                       isa_code *c)
{
    memset(c, 0, sizeof *c);
    for (uint32_t i = s.first; i <= s.last && i < p->n; i++) {
        if (nloops && in_side_loop(loop, nloops, s, body, i)) continue;
        c->instructions++;
        count_memory(p->in[i].mn, &c->mem);
        c->divisions += is_division(p->in, p->n, i);
#ifdef ISA_DEBUG
        if (is_division(p->in, p->n, i)) fprintf(stderr, "division at line %u: %s\n", p->in[i].line, p->in[i].mn);
#endif
    }
}

static uint32_t stores_of_width(const isa_prog *p, isa_span s, int w)
{
    uint32_t k = 0;
    for (uint32_t i = s.first; i <= s.last; i++) k += store_width(p->in[i].mn) == w;
    return k;
}

static void count_loop(const isa_prog *p, const char *const *mn, const isa_span *loop, uint32_t nloops, uint32_t k,
                       int wide, isa_loop *l)
{
    const isa_span body = loop[k];
    isa_span grid = body;
    for (uint32_t j = 0; j < nloops; j++)
        if (inside(grid, loop[j])) grid = loop[j];
    count_code(p, loop, 0, body, body, &l->body);
    count_code(p, loop, nloops, grid, body, &l->path);
    l->chunks = stores_of_width(p, body, wide);
    /* From the unit's start: the GPU tiles load a tile's sources into shared memory in the
     * grid loop, before the chunk loop reads them and stores. */
    for (uint32_t i = grid.first; i <= grid.last && !is_store(mn[i]); i++) l->loads_ahead += is_vector_load(mn[i]);
    l->lines[0] = p->in[body.first].line;
    l->lines[1] = p->in[body.last].line;
    l->grid_lines[0] = p->in[grid.first].line;
    l->grid_lines[1] = p->in[grid.last].line;
}

void isa_read_text(const char *text, isa_figures *f)
{
    memset(f, 0, sizeof *f);
    isa_prog p;
    const char **mn = NULL;
    isa_span *loop = NULL;
    size_t bytes_mn, bytes_loop;
    if (!text || !isa_parse(text, &p) || p.n == 0 || !dm_size_mul(p.n, sizeof *mn, &bytes_mn) ||
        !dm_size_mul(p.n, sizeof *loop, &bytes_loop) || !(mn = calloc(1, bytes_mn)) || !(loop = calloc(1, bytes_loop))) {
        free(mn);
        if (text) isa_prog_free(&p);
        return;
    }
    for (uint32_t i = 0; i < p.n; i++) mn[i] = p.in[i].mn;
    f->parsed = true;
    f->loops = find_loops(&p, loop);
    count_code(&p, loop, 0, (isa_span){0, p.n - 1}, (isa_span){0, p.n - 1}, &f->all);

    int wide = -1; /* the chunk stores' width */
    for (uint32_t i = 0; i < p.n; i++) {
        const int w = store_width(mn[i]);
        if (w > wide) wide = w;
    }
    for (uint32_t k = 0; k < f->loops && wide >= 0 && f->chunk_loops < ISA_MAX_CHUNK_LOOPS; k++) {
        bool innermost = stores_of_width(&p, loop[k], wide) > 0;
        for (uint32_t j = 0; j < f->loops && innermost; j++)
            innermost = j == k || !inside(loop[j], loop[k]) || stores_of_width(&p, loop[j], wide) == 0;
        if (!innermost) continue;
        isa_loop *l = &f->chunk_loop[f->chunk_loops++];
        count_loop(&p, mn, loop, f->loops, k, wide, l);
        f->chunk_width = (uint32_t)wide;
        if (l->path.divisions > f->chunk_divisions) f->chunk_divisions = l->path.divisions;
        const isa_loop *h = &f->chunk_loop[f->hot];
        if (l->chunks > h->chunks || (l->chunks == h->chunks && l->path.instructions > h->path.instructions))
            f->hot = f->chunk_loops - 1;
    }
    free(loop);
    free(mn);
    isa_prog_free(&p);
}
