/* dmlops-isa: the kernels' machine code per standard case (isa.h; `make isa` runs it on
 * RADV with no GPU, docs/performance.md, "The kernels' machine code"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"

static void usage(FILE *f)
{
    fputs("usage: dmlops-isa [--tsv] [--stats] [--disassembly] [--device D]\n"
          "  compiles the pipeline of every standard bench case at 64 MiB, as the library plans it\n"
          "  on the device, and prints what its machine code holds: the hot loop's instructions,\n"
          "  memory instructions by width, vector registers, run-time integer divisions\n"
          "  --tsv          one tab-separated line per case, every figure a column\n"
          "  --stats        then every statistic the driver gives, per case\n"
          "  --disassembly  then the statistics and the disassembly, per case\n"
          "  --device D     a device index, UUID or name substring (default: DMLOPS_DEVICE, else\n"
          "                 the default device); it needs VK_KHR_pipeline_executable_properties\n"
          "With no GPU, Mesa's RADV compiles for an AMD one (what `make isa` runs):\n"
          "  RADV_FORCE_FAMILY=navi21 VK_DRIVER_FILES=/usr/share/vulkan/icd.d/radeon_icd.x86_64.json\n"
          "DMLOPS_VK_* tune the plans as they tune a context's (docs/api.md, \"Environment\").\n",
          f);
}

int main(int argc, char **argv)
{
    bool tsv = false, stats = false, disassembly = false;
    const char *device = getenv("DMLOPS_DEVICE");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tsv")) tsv = true;
        else if (!strcmp(argv[i], "--stats")) stats = true;
        else if (!strcmp(argv[i], "--disassembly")) stats = disassembly = true;
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
    isa_report_print(&r, tsv, stdout);
    if (stats) isa_report_print_details(&r, disassembly, stdout);
    isa_report_free(&r);
    isa_device_close(&d);
    return 0;
}
