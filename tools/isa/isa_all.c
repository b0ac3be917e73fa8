/* Every pipeline the library can make on a device (isa.h, `dmlops-isa --all`; issue 46):
 * each gather kernel's every module (kernel, row bucket, variant, texel path: the
 * Makefile's table, kernels.h), at every element size, AUX type, alignment and unit
 * shape its variant takes, under the two device classes' tunings, each with the
 * storage-buffer and the texel path; compiled by the device's driver and judged by its
 * own statistics (isa_shader_norm): no refusal, no spill, Intel at SIMD16 or wider, and
 * shared memory only where the module uses it. */
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "../../src/vk/kernels.h"

/* The tunings: the device class's defaults as DMLOPS_VK_TUNING and DMLOPS_VK_TEXEL set
 * them (dm_env_vk_tuning): a GPU's plan on storage buffers with the tiles, and with texel
 * loads; a CPU device's on texel loads, and on storage buffers (a binding whose buffers
 * lack texel usage takes those). */
static const struct {
    const char *name;
    int cpu, texel;
} tunings[ISA_TUNINGS] = {{"GPU", 0, 0}, {"GPU texel", 0, 1}, {"CPU", 1, 1}, {"CPU storage", 1, 0}};

const char *isa_tuning_name(uint32_t t) { return t < ISA_TUNINGS ? tunings[t].name : "?"; }

/* Whether the variant's chunks may start on aligned source vectors (dm_kernel_src_aligned):
 * SLICE1's STREAM and PAIRS, REVERSE's COLUMNS; TILE_ROWS's always do, and TILES's never
 * (an aligned layout takes TILE_ROWS, dm_kernel_variant). */
static bool isa_alignable(dm_kernel k, uint32_t v)
{
    return (k == DM_KERNEL_SLICE && (v == DM_VARIANT_STREAM || v == DM_VARIANT_PAIRS)) ||
           (k == DM_KERNEL_REVERSE && v == DM_VARIANT_COLUMNS);
}

/* Whether the module allocates shared memory for what it does: the GPU tiles that stage
 * (TILE_ROWS declares none). */
bool isa_uses_shared(const dm_vk_kernel_key *k)
{
    return k->variant == DM_VARIANT_TILES || k->variant == DM_VARIANT_TILE_COLUMNS || k->variant == DM_VARIANT_TILE_HOT;
}

/* Calls fn for every form of every module under lim (texel: the path's modules). */
static uint32_t isa_forms(const dm_vk_limits *lim, uint32_t tuning, isa_pipe *out, uint32_t cap, uint32_t n)
{
    const bool texel = lim->texel;
    for (int kernel = 0; kernel < DM_KERNEL_COUNT; kernel++)
        for (uint32_t b = 0; b < DM_ROW_BUCKETS; b++)
            for (uint32_t v = 0; v < DM_VARIANT_COUNT; v++) {
                if (!dm_kernels[kernel][b][v][texel].code) continue;
                const bool tile = v >= DM_VARIANT_TILES;
                if (tile && !lim->tile_lds) continue; /* the tiles: GPU tuning on storage buffers only */
                for (uint32_t e = 1; e <= 8; e *= 2)
                    for (uint32_t aux = 0; aux < (kernel == DM_KERNEL_SLICE ? 1u : 4u); aux++)
                        for (int aligned = v == DM_VARIANT_TILE_ROWS ? 1 : 0;
                             aligned <= (isa_alignable((dm_kernel)kernel, v) || v == DM_VARIANT_TILE_ROWS ? 1 : 0); aligned++)
                            for (int form = 0; form < 3; form++) {
                                const bool wide = form == 1, partial = form == 2;
                                if (wide && !(lim->wide_rows && (v == DM_VARIANT_STREAM || v == DM_VARIANT_ALONG)))
                                    continue;
                                if (partial && !(kernel == DM_KERNEL_REVERSE && v == DM_VARIANT_COLUMNS)) continue;
                                if (n < cap) {
                                    const dm_vk_kernel_form f = {(dm_kernel)kernel, e, b, v, aux, texel,
                                                                 aligned != 0, partial, wide};
                                    dm_vk_kernel_key_make(lim, &f, false, &out[n].key);
                                    out[n].tuning = tuning;
                                }
                                n++;
                            }
            }
    return n;
}

uint32_t isa_all_pipes(const isa_device *d, isa_pipe *out, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < ISA_TUNINGS; t++) {
        dm_vk_params params;
        memset(&params, 0, sizeof params);
        params.texel = tunings[t].texel;
        params.cpu_tuning = tunings[t].cpu;
        params.tiles = -1;
        dm_vk_limits lim;
        dm_vk_limits_for(&d->dev.inst.vki, d->dev.phys, &d->dev.info, &params, 0, &lim);
        if (!lim.texel && tunings[t].texel) continue; /* no texel path on this device */
        n = isa_forms(&lim, t, out, cap, n);
    }
    return n;
}

dmlops_status isa_pipe_compile(isa_device *d, isa_pipe *p)
{
    VkPipeline pipe = VK_NULL_HANDLE;
    char log[sizeof ((isa_shader *)0)->log];
    isa_capture cap;
    isa_capture_begin(&cap);
    dmlops_status st = dm_vk_kernel_pipeline(&d->dev, VK_NULL_HANDLE, d->pipes.create_flags, d->pipes.layout, &p->key,
                                             &pipe);
    isa_capture_end(&cap, log, sizeof log);
    p->compiled = st == DMLOPS_SUCCESS;
    if (!p->compiled) {
        snprintf(p->error, sizeof p->error, "%s", dmlops_last_error_message());
        return st;
    }
    isa_shader s;
    st = isa_shader_read(d, pipe, &s);
    memcpy(s.log, log, sizeof log);
    if (st == DMLOPS_SUCCESS) isa_shader_norm(&s, &p->norm);
    isa_shader_free(&s);
    d->dev.vkd.DestroyPipeline(d->dev.device, pipe, NULL);
    return st;
}

/* What is wrong with a compiled pipeline, or NULL: a spill, Intel below SIMD16, shared
 * memory the module does not use. */
const char *isa_pipe_fault(const isa_pipe *p)
{
    if (!p->compiled) return "refused";
    if (p->norm.spills > 0 || p->norm.fills > 0) return "spills";
    if (p->norm.width_kind == ISA_WIDTH_SIMD && p->norm.width > 0 && p->norm.width < 16) return "SIMD8";
    if (p->norm.shared > 0 && !isa_uses_shared(&p->key)) return "unused shared memory";
    return NULL;
}

static int isa_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* "min-max (median m)" of the n values v[i] that are >= 0 ("-" for none); sorts v. */
static void isa_range(double *v, uint32_t n, char *buf, size_t size)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (v[i] >= 0) v[k++] = v[i];
    if (!k) {
        snprintf(buf, size, "-");
        return;
    }
    qsort(v, k, sizeof *v, isa_cmp_double);
    snprintf(buf, size, "%.0f-%.0f (median %.0f)", v[0], v[k - 1], v[k / 2]);
}

uint32_t isa_all_print(const isa_report *r, const isa_pipe *p, uint32_t n, bool tsv, FILE *out)
{
    char name[128];
    uint32_t faults = 0, by[5] = {0, 0, 0, 0, 0};
    static const char *const kinds[5] = {"refused", "spills", "SIMD8", "unused shared memory", "other"};
    if (tsv)
        fprintf(out, "pipeline\ttuning\tcompiled\tinstructions\tregisters\tspills\tfills\twidth\tshared\tfault\n");
    for (uint32_t i = 0; i < n; i++) {
        const char *f = isa_pipe_fault(&p[i]);
        if (f) {
            faults++;
            uint32_t k = 0;
            while (k < 4 && strcmp(kinds[k], f) != 0) k++;
            by[k]++;
        }
        if (!tsv && !f) continue;
        isa_pipeline_name(&p[i].key, name, sizeof name);
        if (tsv)
            fprintf(out, "%s\t%s\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%s\n", name, isa_tuning_name(p[i].tuning),
                    p[i].compiled ? 1 : 0, p[i].norm.instructions, p[i].norm.registers, p[i].norm.spills, p[i].norm.fills,
                    p[i].norm.width, p[i].norm.shared, f ? f : "");
        else if (faults <= 40)
            fprintf(out, "  %s (%s): %s: %.0f instructions, %.0f:%.0f spills:fills, %s %.0f, shared %.0f%s%s\n", name,
                    isa_tuning_name(p[i].tuning), f, p[i].norm.instructions, p[i].norm.spills, p[i].norm.fills,
                    isa_width_name(p[i].norm.width_kind), p[i].norm.width, p[i].norm.shared,
                    p[i].compiled ? "" : ": ", p[i].compiled ? "" : p[i].error);
    }
    if (tsv) return faults;
    if (faults > 40) fprintf(out, "  ... and %u more\n", faults - 40);
    double *v = calloc(n ? n : 1, sizeof *v);
    if (!v) return faults;
    char ins[64], regs[64], width[64], shared[64];
    isa_width_kind wk = ISA_WIDTH_NONE;
    for (uint32_t i = 0; i < n; i++) v[i] = p[i].compiled ? p[i].norm.instructions : -1;
    isa_range(v, n, ins, sizeof ins);
    for (uint32_t i = 0; i < n; i++) v[i] = p[i].compiled ? p[i].norm.registers : -1;
    isa_range(v, n, regs, sizeof regs);
    for (uint32_t i = 0; i < n; i++) {
        v[i] = p[i].compiled ? p[i].norm.width : -1;
        if (p[i].compiled && p[i].norm.width_kind != ISA_WIDTH_NONE) wk = p[i].norm.width_kind;
    }
    isa_range(v, n, width, sizeof width);
    for (uint32_t i = 0; i < n; i++) v[i] = p[i].compiled ? p[i].norm.shared : -1;
    isa_range(v, n, shared, sizeof shared);
    free(v);
    fprintf(out, "%s: %u pipelines (every module, element size, AUX type, alignment and unit shape under %d tunings): "
                 "%u refused, %u spilling, %u below SIMD16, %u with unused shared memory\n"
                 "  instructions %s; registers %s; %s %s; shared bytes %s\n",
            r->device, n, ISA_TUNINGS, by[0], by[1], by[2], by[3], ins, regs, isa_width_name(wk), width, shared);
    return faults;
}
