/* The report's rows: each standard case planned and compiled as the library does it on
 * the device, and the table of what the code holds (isa.h). */
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "../../src/op.h"
#include "../../src/platform/platform.h"
#include "../../src/vk/vk_plan.h"

static const char *const kernel_names[DM_KERNEL_COUNT] = {"SLICE1", "REVERSE", "ONE_HOT"};
/* The kernels' glsl/<file>.comp, as the Makefile names their modules. */
static const char *const kernel_files[DM_KERNEL_COUNT] = {"slice", "reverse", "one_hot"};
static const char *const variant_names[DM_VARIANT_COUNT] = {
    [DM_VARIANT_GENERAL] = "GENERAL", [DM_VARIANT_STREAM] = "STREAM",         [DM_VARIANT_PAIRS] = "PAIRS",
    [DM_VARIANT_WORDS] = "WORDS",     [DM_VARIANT_ALONG] = "ALONG",           [DM_VARIANT_ACROSS] = "ACROSS",
    [DM_VARIANT_FLAT] = "FLAT",       [DM_VARIANT_FLAT_ROWS] = "FLAT_ROWS",   [DM_VARIANT_COLUMNS] = "COLUMNS",
    [DM_VARIANT_TILES] = "TILES",     [DM_VARIANT_TILE_COLUMNS] = "TILE_COLUMNS", [DM_VARIANT_TILE_HOT] = "TILE_HOT",
    [DM_VARIANT_TILE_ROWS] = "TILE_ROWS"};
static const char *const aux_names[] = {"U32", "I32", "U64", "I64"};
/* The row dimensions of each bucket: lists.mk's ROW_DIMS. */
static const uint32_t bucket_rows[DM_ROW_BUCKETS] = {1, 3, 7};

void isa_pipeline_name(const dm_vk_kernel_key *k, char *buf, size_t size)
{
    const uint32_t *s = k->spec;
    const uint32_t aux = s[DM_SPEC_AUX_TYPE] < 4 ? s[DM_SPEC_AUX_TYPE] : 0;
    char run[32] = "";
    if (s[DM_SPEC_RUN] != 1 || s[DM_SPEC_LANES] != 1)
        snprintf(run, sizeof run, " run %ux%u", s[DM_SPEC_RUN], s[DM_SPEC_LANES]);
    snprintf(buf, size, "%s %s e%u%s%s%s%s%s%s", kernel_names[k->kernel], variant_names[k->variant], s[DM_SPEC_ESIZE],
             run, s[DM_SPEC_ALIGNED] ? " aligned" : "", s[DM_SPEC_PARTIAL] ? " partial" : "",
             aux ? " aux " : "", aux ? aux_names[aux] : "", k->texel ? " texel" : "");
    if (k->bucket) {
        const size_t n = strlen(buf);
        snprintf(buf + n, size - n, " rows %u", bucket_rows[k->bucket]);
    }
    if (k->variant >= DM_VARIANT_TILES) {
        const size_t n = strlen(buf);
        snprintf(buf + n, size - n, " tile %ux%u", s[DM_SPEC_TILE_V], s[DM_SPEC_LDS_VECS]);
    }
}

/* The driver's statistics the table shows, where it gives them (RADV's names). */
static void take_stats(isa_row *row)
{
    row->vgprs = isa_stat_value(&row->shader, "VGPRs");
    row->sgprs = isa_stat_value(&row->shader, "SGPRs");
    row->spilled_vgprs = isa_stat_value(&row->shader, "Spilled VGPRs");
    row->spilled_sgprs = isa_stat_value(&row->shader, "Spilled SGPRs");
    row->waves = isa_stat_value(&row->shader, "Subgroups per SIMD");
    isa_shader_norm(&row->shader, &row->norm);
    isa_read_text(row->shader.disassembly, &row->fig);
}

/* The module DMLOPS_ISA_SPV names, read whole (a SPIR-V file compiled by hand from a
 * changed kernel, compiled in every case's place: a kernel's registers and spills on a
 * driver, seconds after an edit); false when it is unset or unreadable. */
static bool isa_module_file(dm_spirv *out)
{
    const char *path = getenv("DMLOPS_ISA_SPV");
    FILE *f = path && *path ? fopen(path, "rb") : NULL;
    if (!f) return false;
    uint32_t *words = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            uint32_t *w = realloc(words, cap * 4);
            if (!w) break;
            words = w;
        }
        const size_t got = fread(words + n, 4, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    out->code = words;
    out->size = n * 4;
    return words && n;
}

/* Case c as vk_execute.c's dm_vk_operator_create makes it: parsed, lowered, planned with
 * the device's limits, and the pipeline of the plan's gather. */
static dmlops_status isa_case_row(isa_device *d, const isa_case *c, isa_row *row)
{
    snprintf(row->label, sizeof row->label, "%s", c->label);
    dm_op op;
    dm_gather g;
    dm_vk_plan plan;
    DM_TRY(dm_op_parse(&c->desc, DMLOPS_FEATURE_LEVEL_HIGHEST, &op));
    dm_op_lower(&op, &g);
    DM_TRY(dm_vk_plan_gather(&d->dev.lim, &g, &plan));
    dmlops_status st = DMLOPS_SUCCESS;
    if (plan.use_copy) {
        snprintf(row->pipeline, sizeof row->pipeline, "copy regions");
    } else {
        dm_vk_kernel_spec(&d->dev.lim, &plan.g, plan.fast, plan.texel, plan.axis_split, false, &row->key);
        isa_pipeline_name(&row->key, row->pipeline, sizeof row->pipeline);
        snprintf(row->module, sizeof row->module, "%s_r%u_v%u_t%u", kernel_files[row->key.kernel],
                 bucket_rows[row->key.bucket], row->key.variant, row->key.texel ? 1u : 0u);
        VkPipeline pipe = VK_NULL_HANDLE;
        dm_spirv own = {NULL, 0};
        char log[sizeof row->shader.log];
        isa_capture cap;
        isa_capture_begin(&cap);
        if (isa_module_file(&own)) { /* DMLOPS_ISA_SPV: a module built by hand, for experiments */
            dm_vk_kernel_key k = row->key;
            k.code = &own;
            st = dm_vk_kernel_pipeline(&d->dev, VK_NULL_HANDLE, d->pipes.create_flags, d->pipes.layout, &k, &pipe);
        } else {
            st = dm_vk_pipeline(&d->dev, &d->pipes, &plan.g, plan.fast, plan.texel, plan.axis_split, &pipe);
        }
        isa_capture_end(&cap, log, sizeof log);
        if (st == DMLOPS_SUCCESS) st = isa_shader_read(d, pipe, &row->shader);
        memcpy(row->shader.log, log, sizeof log);
        if (own.code && pipe) d->dev.vkd.DestroyPipeline(d->dev.device, pipe, NULL);
        free((void *)own.code);
        row->kernel = st == DMLOPS_SUCCESS;
    }
    dm_vk_plan_free(&plan);
    if (st == DMLOPS_SUCCESS && row->kernel) take_stats(row);
    return st;
}

/* The compute copy as vk_compute_copy.c takes it: through texel views where the device's
 * kernels take them and its windows fit them. */
static dmlops_status isa_copy_row(isa_device *d, isa_row *row)
{
    const bool texel = d->dev.lim.texel && dm_vk_copy_texel(&d->dev.lim);
    snprintf(row->label, sizeof row->label, "compute copy");
    snprintf(row->pipeline, sizeof row->pipeline, "copy.comp%s", texel ? " texel" : "");
    snprintf(row->module, sizeof row->module, "copy");
    row->compute_copy = true;
    VkPipeline pipe;
    char log[sizeof row->shader.log];
    isa_capture cap;
    isa_capture_begin(&cap);
    const dmlops_status st = dm_vk_copy_pipeline(&d->dev, &d->pipes, texel, 1, DM_COPY_WORKGROUP, &pipe); /* the plain copy */
    isa_capture_end(&cap, log, sizeof log);
    DM_TRY(st);
    DM_TRY(isa_shader_read(d, pipe, &row->shader));
    memcpy(row->shader.log, log, sizeof log);
    row->kernel = true;
    take_stats(row);
    return DMLOPS_SUCCESS;
}

dmlops_status isa_report_make(isa_device *d, isa_report *r)
{
    memset(r, 0, sizeof *r);
    const uint32_t n = isa_case_count() + 1;
    r->rows = calloc(n, sizeof *r->rows);
    if (!r->rows) return dm_fail(DMLOPS_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    const dmlops_device_info *info = &d->dev.info;
    snprintf(r->device, sizeof r->device, "%s (%s %s)", info->name, info->driver_name, info->driver_info);
    r->subgroup = info->subgroup_size;
    snprintf(r->tuning, sizeof r->tuning, "%s tuning%s%s", d->dev.lim.cpu_tuning ? "CPU" : "GPU",
             d->dev.lim.texel ? ", texel loads" : "", d->dev.lim.tile_lds ? ", GPU tiles" : ", no GPU tiles");
    dmlops_status st = DMLOPS_SUCCESS;
    const char *only = getenv("DMLOPS_ISA_FILTER"); /* a case-label substring, for one case at a time */
    for (uint32_t i = 0; i + 1 < n && st == DMLOPS_SUCCESS; i++) {
        isa_case c;
        isa_case_make(i, ISA_CASE_BYTES, &c);
        if (only && *only && !strstr(c.label, only)) continue;
        st = isa_case_row(d, &c, &r->rows[r->count++]);
        if (st != DMLOPS_SUCCESS) st = dm_fail_prefix(st, "%s", c.label);
    }
    if (st == DMLOPS_SUCCESS) {
        st = isa_copy_row(d, &r->rows[r->count]);
        r->count++;
    }
    if (st != DMLOPS_SUCCESS) isa_report_free(r);
    return st;
}

void isa_report_free(isa_report *r)
{
    for (uint32_t i = 0; r->rows && i < r->count; i++) isa_shader_free(&r->rows[i].shader);
    free(r->rows);
    memset(r, 0, sizeof *r);
}

const isa_row *isa_report_find(const isa_report *r, const char *label)
{
    for (uint32_t i = 0; i < r->count; i++)
        if (!dm_strcasecmp(r->rows[i].label, label)) return &r->rows[i];
    return NULL;
}

static const unsigned width_bytes[ISA_WIDTHS] = {1, 2, 4, 8, 12, 16};

/* "2x16B 1x4B", widest first, then each extra count with its name ("1 texel", "8 LDS");
 * "-" for none. */
static void format_mem(const uint32_t *count, uint32_t extra, const char *extra_name, uint32_t lds, char *buf,
                       size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    for (int w = ISA_WIDTHS - 1; w >= 0; w--)
        if (count[w] && n < size)
            n += (size_t)snprintf(buf + n, size - n, "%s%ux%uB", n ? " " : "", count[w], width_bytes[w]);
    if (extra && n < size) n += (size_t)snprintf(buf + n, size - n, "%s%u %s", n ? " " : "", extra, extra_name);
    if (lds && n < size) n += (size_t)snprintf(buf + n, size - n, "%s%u LDS", n ? " " : "", lds);
    if (!n) snprintf(buf, size, "-");
}

/* A statistic, or "?" where the driver gave none. */
static void format_stat(double v, char *buf, size_t size)
{
    if (v < 0) snprintf(buf, size, "?");
    else snprintf(buf, size, "%.0f", v);
}

static void print_markdown(const isa_report *r, FILE *out)
{
    fprintf(out, "Compiled for %s, subgroup %u, %s; cases at %llu MiB.\n\n", r->device, r->subgroup, r->tuning,
            (unsigned long long)(ISA_CASE_BYTES >> 20));
    fprintf(out, "| case | pipeline | chunk loops | hot loop instr | chunks | per-unit path instr | hot loop loads "
                 "| hot loop stores | loads before 1st store | VGPRs (waves / SIMD) | int div per unit | int div in all |\n");
    fprintf(out, "|---|---|--:|--:|--:|--:|---|---|--:|--:|--:|--:|\n");
    for (uint32_t i = 0; i < r->count; i++) {
        const isa_row *row = &r->rows[i];
        if (!row->kernel) {
            fprintf(out, "| %s | %s | | | | | | | | | | |\n", row->label, row->pipeline);
            continue;
        }
        const isa_figures *f = &row->fig;
        char vg[48];
        format_stat(row->vgprs, vg, sizeof vg);
        if (row->waves > 0) {
            const size_t n = strlen(vg);
            snprintf(vg + n, sizeof vg - n, " (%.0f)", row->waves);
        }
        if (row->spilled_vgprs > 0) {
            const size_t n = strlen(vg);
            snprintf(vg + n, sizeof vg - n, ", %.0f spilled", row->spilled_vgprs);
        }
        const isa_loop *h = isa_hot_loop(f);
        if (!h) {
            fprintf(out, "| %s | %s | %s | | | | | | | %s | | %u |\n", row->label, row->pipeline,
                    f->parsed ? "0" : "no disassembly", vg, f->all.divisions);
            continue;
        }
        char loads[96], stores[96], div[48];
        format_mem(h->body.mem.load, h->body.mem.texel, "texel", h->body.mem.lds_read, loads, sizeof loads);
        format_mem(h->body.mem.store, h->body.mem.atomic, "atomic", h->body.mem.lds_write, stores, sizeof stores);
        /* The hot loop's, and the most of any other chunk loop's where that is more. */
        if (f->chunk_divisions > h->path.divisions)
            snprintf(div, sizeof div, "%u (another chunk loop: %u)", h->path.divisions, f->chunk_divisions);
        else
            snprintf(div, sizeof div, "%u", h->path.divisions);
        fprintf(out, "| %s | %s | %u | %u | %u | %u | %s | %s | %u | %s | %s | %u |\n", row->label, row->pipeline,
                f->chunk_loops, h->body.instructions, h->chunks, h->path.instructions, loads, stores, h->loads_ahead, vg,
                div, f->all.divisions);
    }
}

static void print_tsv_header(const char *name, FILE *out)
{
    fprintf(out, "\t%s_instructions", name);
    for (int w = 0; w < ISA_WIDTHS; w++) fprintf(out, "\t%s_load_%u", name, width_bytes[w]);
    for (int w = 0; w < ISA_WIDTHS; w++) fprintf(out, "\t%s_store_%u", name, width_bytes[w]);
    fprintf(out, "\t%s_texel\t%s_atomic\t%s_scalar\t%s_lds_read\t%s_lds_write\t%s_divisions", name, name, name, name,
            name, name);
}

static void print_tsv_code(const isa_code *c, FILE *out)
{
    fprintf(out, "\t%u", c->instructions);
    for (int w = 0; w < ISA_WIDTHS; w++) fprintf(out, "\t%u", c->mem.load[w]);
    for (int w = 0; w < ISA_WIDTHS; w++) fprintf(out, "\t%u", c->mem.store[w]);
    fprintf(out, "\t%u\t%u\t%u\t%u\t%u\t%u", c->mem.texel, c->mem.atomic, c->mem.scalar, c->mem.lds_read,
            c->mem.lds_write, c->divisions);
}

/* One line per row: its hot loop's figures (zeros where it has none). */
static void print_tsv(const isa_report *r, FILE *out)
{
    fprintf(out, "case\tpipeline\tmodule\tparsed\tloops\tchunk_loops\tchunk_bytes\tchunk_divisions\thot_chunks"
                 "\thot_loads_ahead\tvgprs\tsgprs\tspilled_vgprs\tspilled_sgprs\twaves");
    print_tsv_header("all", out);
    print_tsv_header("hot", out);
    print_tsv_header("path", out);
    fprintf(out, "\n");
    for (uint32_t i = 0; i < r->count; i++) {
        const isa_row *row = &r->rows[i];
        const isa_figures *f = &row->fig;
        isa_loop none;
        memset(&none, 0, sizeof none);
        const isa_loop *h = isa_hot_loop(f) ? isa_hot_loop(f) : &none;
        fprintf(out, "%s\t%s\t%s\t%d\t%u\t%u\t%u\t%u\t%u\t%u", row->label, row->pipeline, row->module,
                f->parsed ? 1 : 0, f->loops, f->chunk_loops, f->chunk_loops ? width_bytes[f->chunk_width] : 0,
                f->chunk_divisions, h->chunks, h->loads_ahead);
        fprintf(out, "\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f", row->vgprs, row->sgprs, row->spilled_vgprs, row->spilled_sgprs,
                row->waves);
        print_tsv_code(&f->all, out);
        print_tsv_code(&h->body, out);
        print_tsv_code(&h->path, out);
        fprintf(out, "\n");
    }
}

void isa_report_print(const isa_report *r, bool tsv, FILE *out)
{
    if (tsv) print_tsv(r, out);
    else print_markdown(r, out);
}

void isa_report_print_summary(const isa_report *r, FILE *out)
{
    isa_width_kind wk = ISA_WIDTH_NONE;
    for (uint32_t i = 0; i < r->count; i++)
        if (r->rows[i].kernel && r->rows[i].norm.width_kind != ISA_WIDTH_NONE) wk = r->rows[i].norm.width_kind;
    fprintf(out, "Compiled for %s, subgroup %u, %s; cases at %llu MiB.\n\n", r->device, r->subgroup, r->tuning,
            (unsigned long long)(ISA_CASE_BYTES >> 20));
    fprintf(out, "| case | pipeline | instructions | registers | spills:fills | %s | shared bytes |\n",
            isa_width_name(wk));
    fprintf(out, "|---|---|--:|--:|--:|--:|--:|\n");
    for (uint32_t i = 0; i < r->count; i++) {
        const isa_row *row = &r->rows[i];
        if (!row->kernel) {
            fprintf(out, "| %s | %s | | | | | |\n", row->label, row->pipeline);
            continue;
        }
        const isa_norm *n = &row->norm;
        char ins[24], regs[24], spills[48], width[24], shared[24];
        format_stat(n->instructions, ins, sizeof ins);
        format_stat(n->registers, regs, sizeof regs);
        format_stat(n->width, width, sizeof width);
        format_stat(n->shared, shared, sizeof shared);
        if (n->fills >= 0) snprintf(spills, sizeof spills, "%.0f:%.0f", n->spills, n->fills);
        else format_stat(n->spills, spills, sizeof spills);
        fprintf(out, "| %s | %s | %s | %s | %s | %s | %s |\n", row->label, row->pipeline, ins, regs, spills, width, shared);
    }
}

void isa_report_print_details(const isa_report *r, bool disassembly, FILE *out)
{
    for (uint32_t i = 0; i < r->count; i++) {
        const isa_row *row = &r->rows[i];
        if (!row->kernel) continue;
        fprintf(out, "\n== %s: %s (%s), %s\n", row->label, row->pipeline, row->module, row->shader.executable);
        for (uint32_t s = 0; s < row->shader.nstats; s++)
            fprintf(out, "   %-24s %.0f\n", row->shader.stat[s].name, row->shader.stat[s].value);
        for (uint32_t k = 0; k < row->fig.chunk_loops; k++) {
            const isa_loop *l = &row->fig.chunk_loop[k];
            fprintf(out, "   chunk loop %u%s: lines %u-%u, %u instructions, %u chunks, %u divisions; its grid loop: "
                         "lines %u-%u, per-unit path %u instructions, %u divisions\n",
                    k, k == row->fig.hot ? " (hot)" : "", l->lines[0], l->lines[1], l->body.instructions, l->chunks,
                    l->body.divisions, l->grid_lines[0], l->grid_lines[1], l->path.instructions, l->path.divisions);
        }
        if (disassembly && row->shader.disassembly)
            fprintf(out, "-- %s:\n%s\n", row->shader.disassembly_name, row->shader.disassembly);
    }
}
