/* dmlops: device information, a JSON/.npy operator runner and a benchmark, on the public
 * libdmlops API. docs/cli.md describes the commands. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *f)
{
    fputs("usage: dmlops COMMAND [OPTIONS]\n"
          "\n"
          "commands:\n"
          "  info  [--json] [--backend B] [--device D] [--feature-level L]\n"
          "        list the Vulkan devices and the device the library picks\n"
          "  run   MODEL.json [--backend auto|vulkan|cpu] [--device D] [--feature-level 6_4]\n"
          "        [-i N | --iterations N | --dispatch_iterations N] [--output-dir DIR]\n"
          "        run a model, ours or DirectML's DxDispatch format, on .npy or inline data\n"
          "  bench [--quick] [--large] [--filter SUBSTR] [--iterations N] [--csv FILE] [--svg FILE]\n"
          "        [--report DIR] [--numpy-peer COMMAND] [--torch-peer COMMAND] [--no-scaling]\n"
          "        [--list] [--backend B] [--device D] [--feature-level L]\n"
          "        time every operator against vkCmdCopyBuffer, the best compute copy,\n"
          "        memcpy, numpy and PyTorch\n"
          "  bench --model [--backend vulkan] [--device D] [--filter SUBSTR] [--csv FILE]\n"
          "        the kernels' GPU access model, traced on any Vulkan device\n"
          "  bench --peak all|DEVICE-NAME  the memory peaks of known devices\n"
          "  tune  --out FILE [--quick] [--large] [--filter SUBSTR] [--budget SECONDS] [--device D]\n"
          "        tune the bench's cases on a Vulkan device and write the tuning file\n"
          "  help, -h, --help  this text;  version, -V, --version  the library version\n"
          "  dmlops COMMAND --help  the options of a command\n"
          "\n"
          "DMLOPS_BACKEND and DMLOPS_DEVICE choose the backend and device when the options\n"
          "do not. Exit status: 0 success, 1 runtime failure, 2 bad command line or model.\n",
          f);
}

static int run_command(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "info")) return cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "run")) return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench")) return cmd_bench(argc - 1, argv + 1);
    if (!strcmp(cmd, "tune")) return cmd_tune(argc - 1, argv + 1);
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("dmlops %s\n", dmlops_version_string());
        return CLI_OK;
    }
    cli_error("dmlops: unknown command '%s' (dmlops help lists the commands)", cmd);
    return CLI_USAGE;
}

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) must fail a write with EFBIG, which the writers
     * report (exit 1, temporary removed), not kill the process mid-file. */
    signal(SIGXFSZ, SIG_IGN);
    int rc = run_command(argc, argv);
    /* What was printed is the result too: a full disk or closed pipe is a failure. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("dmlops: writing standard output: %s\n", strerror(errno));
        if (rc == CLI_OK) rc = CLI_FAIL;
    }
    return rc;
}
