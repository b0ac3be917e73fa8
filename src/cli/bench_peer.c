/* The numpy peer of dmlops bench: a command (make bench passes `python3
 * bench/numpy_peer.py`) that reads the suite's cases as JSON and prints, per case, how
 * long numpy takes to do the same operation on one thread. Its protocol, one line each:
 *   numpy VERSION
 *   INDEX MEDIAN_SECONDS ITERATIONS
 * Lines it cannot time are left out; anything else it prints is ignored. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

bool bench_run_numpy_peer(const char *command, bench_run *run, const bench_case *cases, size_t count)
{
    char path[] = "/tmp/dmlops-bench-cases-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        cli_error("dmlops bench: numpy peer: cannot create a temporary file\n");
        if (fd >= 0) close(fd);
        return false;
    }
    bool ok = bench_write_cases_json(cases, count, f);
    ok = fclose(f) == 0 && ok;
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "%s %s --budget %g", command, path, run->quick ? 0.005 : 0.25);
    FILE *p = ok ? popen(cmd, "r") : NULL;
    if (!p) {
        cli_error("dmlops bench: numpy peer: cannot run '%s'\n", cmd);
        remove(path);
        return false;
    }
    cli_error("dmlops bench: timing numpy on the same cases (%s)\n", command);
    char line[512];
    size_t got = 0;
    while (fgets(line, sizeof line, p)) {
        size_t index;
        double seconds;
        unsigned iters;
        if (!strncmp(line, "numpy ", 6)) {
            snprintf(run->numpy_version, sizeof run->numpy_version, "%.*s", (int)strcspn(line + 6, "\n"), line + 6);
        } else if (sscanf(line, "%zu %lf %u", &index, &seconds, &iters) == 3 && index < count && seconds > 0) {
            run->results[index].numpy_s = seconds;
            got++;
        }
    }
    int status = pclose(p);
    remove(path);
    run->have_numpy = got > 0;
    if (status != 0 || !got) {
        /* pclose gives a wait status: say what the command itself returned. */
        char how[48];
        if (status == -1) snprintf(how, sizeof how, "could not be waited for");
        else if (WIFEXITED(status)) snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
        else if (WIFSIGNALED(status)) snprintf(how, sizeof how, "was killed by signal %d", WTERMSIG(status));
        else snprintf(how, sizeof how, "ended with wait status %d", status);
        cli_error("dmlops bench: numpy peer '%s' %s after %zu of %zu cases%s\n", command, how, got, count,
                  got ? "" : " (is python3-numpy installed?)");
        return false;
    }
    return true;
}
