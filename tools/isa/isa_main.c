/* dmlops-isa: the kernels' machine code per standard case, and every pipeline the
 * library can make (isa.h; `make isa` runs it on RADV and on Mesa's drivers for GPUs that
 * are not here, docs/performance.md, "The kernels' machine code"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"

static void usage(FILE *f)
{
    fputs("usage: dmlops-isa [--tsv | --summary] [--stats] [--disassembly] [--all [--every N]] [--no-teardown] [--device D]\n"
          "  compiles the pipeline of every standard bench case at 64 MiB, as the library plans it\n"
          "  on the device, and prints what its machine code holds: the hot loop's instructions,\n"
          "  memory instructions by width, vector registers, run-time integer divisions (AMD)\n"
          "  --tsv          one tab-separated line per case, every figure a column\n"
          "  --summary      what any driver's statistics say: instructions, registers, spills,\n"
          "                 waves, SIMD width or threads, shared memory\n"
          "  --stats        then every statistic the driver gives, per case\n"
          "  --disassembly  then the statistics and the disassembly, per case\n"
          "  --all          every pipeline the library can make (every module, element size, AUX\n"
          "                 type, alignment and unit shape, under the GPU's and the CPU's tuning):\n"
          "                 the ones that are refused, spill, fall below SIMD16 (Intel) or allocate\n"
          "                 shared memory they do not use, and the ranges; exit status 1 if any;\n"
          "                 with --tsv one line per pipeline; --every N compiles every N-th only\n"
          "  --no-teardown  leave without destroying the device (v3dv under drm-shim crashes there)\n"
          "  --device D     a device index, UUID or name substring (default: DMLOPS_DEVICE, else\n"
          "                 the default device); it needs VK_KHR_pipeline_executable_properties\n"
          "With no GPU, Mesa's RADV compiles for an AMD one (what `make isa` runs):\n"
          "  RADV_FORCE_FAMILY=navi21 VK_DRIVER_FILES=/usr/share/vulkan/icd.d/radeon_icd.x86_64.json\n"
          "and tools/mesa-shim/ builds Mesa's drivers for V3D, Adreno and Intel to run under drm-shim.\n"
          "DMLOPS_VK_* tune the plans as they tune a context's (docs/api.md, \"Environment\").\n",
          f);
}

/* Every pipeline (or every `every`-th: a sample, to time a driver): compiled one at a
 * time, each judged (isa_all.c). */
static int run_all(isa_device *d, const isa_report *r, bool tsv, uint32_t every)
{
    uint32_t n = isa_all_pipes(d, NULL, 0);
    isa_pipe *p = calloc(n ? n : 1, sizeof *p);
    if (!p) {
        fprintf(stderr, "dmlops-isa: out of host memory\n");
        return 1;
    }
    isa_all_pipes(d, p, n);
    /* DMLOPS_ISA_FILTER: only the pipelines whose "name (tuning)" holds it, then every
     * every-th of those (one family at a time while a kernel is reworked). */
    const char *only = getenv("DMLOPS_ISA_FILTER");
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        char name[160], label[200];
        isa_pipeline_name(&p[i].key, name, sizeof name);
        snprintf(label, sizeof label, "%s (%s)", name, isa_tuning_name(p[i].tuning));
        if (!only || !*only || strstr(label, only)) p[k++] = p[i];
    }
    n = k;
    if (every > 1) {
        k = 0;
        for (uint32_t i = 0; i < n; i += every) p[k++] = p[i];
        n = k;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (isa_pipe_compile(d, &p[i]) != DMLOPS_SUCCESS && p[i].compiled)
            fprintf(stderr, "dmlops-isa: reading pipeline %u: %s\n", i, dmlops_last_error_message());
    }
    const uint32_t faults = isa_all_print(r, p, n, tsv, stdout);
    free(p);
    return faults ? 1 : 0;
}

int main(int argc, char **argv)
{
    bool tsv = false, summary = false, stats = false, disassembly = false, all = false, teardown = true;
    uint32_t every = 1;
    const char *device = getenv("DMLOPS_DEVICE");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tsv")) tsv = true;
        else if (!strcmp(argv[i], "--summary")) summary = true;
        else if (!strcmp(argv[i], "--stats")) stats = true;
        else if (!strcmp(argv[i], "--disassembly")) stats = disassembly = true;
        else if (!strcmp(argv[i], "--all")) all = true;
        else if (!strcmp(argv[i], "--every") && i + 1 < argc) every = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--no-teardown")) teardown = false;
        else if (!strcmp(argv[i], "--device") && i + 1 < argc) device = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "dmlops-isa: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    dm_vk_params params;
    memset(&params, 0, sizeof params);
    dm_env_vk_tuning(&params);
    if (params.env_rejected[0]) fprintf(stderr, "dmlops-isa: ignored, not understood: %s\n", params.env_rejected);
    isa_device d;
    isa_report r;
    dmlops_status st = isa_device_open(device && *device ? device : NULL, &params, &d);
    if (st == DMLOPS_SUCCESS) st = isa_report_make(&d, &r);
    if (st != DMLOPS_SUCCESS) {
        fprintf(stderr, "dmlops-isa: %s\n", dmlops_last_error_message());
        isa_device_close(&d);
        return 1;
    }
    int rc = 0;
    if (all) {
        rc = run_all(&d, &r, tsv, every ? every : 1);
    } else {
        if (summary) isa_report_print_summary(&r, stdout);
        else isa_report_print(&r, tsv, stdout);
        if (stats) isa_report_print_details(&r, disassembly, stdout);
    }
    fflush(stdout);
    isa_report_free(&r);
    if (teardown) isa_device_close(&d);
    return rc;
}
