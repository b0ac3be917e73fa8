/* The peers of dmlops bench: programs that do each case's operation their own way and
 * report how long it took, run after the suite on the same machine.
 *
 * numpy (make bench passes `python3 bench/numpy_peer.py`), one thread, on the host; and
 * PyTorch (`python3 bench/torch_peer.py`), each case written as a PyTorch user would write
 * it, on a CUDA device beside a Vulkan run and on CPU tensors beside the CPU backend. A
 * peer reads the suite's cases as JSON (a file named by its first argument) and prints,
 * one line each:
 *   NAME VERSION...                      first: "numpy 1.24.2", "torch 2.11.0 cuda NVIDIA H100 ...",
 *                                        "torch 1.13.0 cpu, 2 threads"
 *   INDEX SECONDS ITERATIONS [CALL...]   per case it timed: seconds per operation, and the
 *                                        call it timed (the PyTorch peer names it)
 *   unavailable REASON                   instead, when it cannot run here (no torch, no CUDA)
 * Lines it cannot time are left out; anything else it prints is ignored. This file is the
 * one writer of the run's peer fields (have_numpy, have_torch, their versions, torch_note). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

typedef struct peer {
    const char *name;     /* "numpy", "torch": its first line's first word */
    const char *title;    /* in messages */
    const char *missing;  /* the likely cause when it timed nothing */
    char *version;        /* its first line, less the name */
    size_t version_len;
    void (*take)(bench_result *r, double seconds, const char *call);
} peer;

static void take_numpy(bench_result *r, double seconds, const char *call)
{
    (void)call;
    r->numpy_s = seconds;
}

static void take_torch(bench_result *r, double seconds, const char *call)
{
    r->torch_s = seconds;
    snprintf(r->torch_call, sizeof r->torch_call, "%.*s", (int)strcspn(call, "\r\n"), call);
}

/* "exited with status 1", for a wait status from pclose. */
static void wait_status(int status, char how[48])
{
    if (status == -1) snprintf(how, 48, "could not be waited for");
    else if (WIFEXITED(status)) snprintf(how, 48, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status)) snprintf(how, 48, "was killed by signal %d", WTERMSIG(status));
    else snprintf(how, 48, "ended with wait status %d", status);
}

/* Runs `command FILE args` and stores what it timed; the number of cases it timed, or -1
 * when it could not be run at all. unavailable receives its reason when it said so. */
static long run_peer(const peer *p, const char *command, const char *args, bench_run *run, const bench_case *cases,
                     size_t count, char *unavailable, size_t unavailable_len)
{
    char path[] = "/tmp/dmlops-bench-cases-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        cli_error("dmlops bench: %s peer: cannot create a temporary file\n", p->title);
        if (fd >= 0) close(fd);
        return -1;
    }
    bool ok = bench_write_cases_json(cases, count, f);
    ok = fclose(f) == 0 && ok;
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "%s %s %s", command, path, args);
    FILE *pipe = ok ? popen(cmd, "r") : NULL;
    if (!pipe) {
        cli_error("dmlops bench: %s peer: cannot run '%s'\n", p->title, cmd);
        remove(path);
        return -1;
    }
    cli_error("dmlops bench: timing %s on the same cases (%s)\n", p->title, command);
    char line[512];
    long got = 0;
    const size_t name_len = strlen(p->name);
    while (fgets(line, sizeof line, pipe)) {
        size_t index;
        double seconds;
        unsigned iters;
        int used = 0;
        if (!strncmp(line, p->name, name_len) && line[name_len] == ' ') {
            snprintf(p->version, p->version_len, "%.*s", (int)strcspn(line + name_len + 1, "\r\n"), line + name_len + 1);
        } else if (!strncmp(line, "unavailable ", 12)) {
            snprintf(unavailable, unavailable_len, "%.*s", (int)strcspn(line + 12, "\r\n"), line + 12);
        } else if (sscanf(line, "%zu %lf %u %n", &index, &seconds, &iters, &used) == 3 && index < count &&
                   seconds > 0) {
            p->take(&run->results[index], seconds, line + used);
            got++;
        }
    }
    int status = pclose(pipe);
    remove(path);
    if ((status != 0 || !got) && !unavailable[0]) {
        char how[48];
        wait_status(status, how);
        cli_error("dmlops bench: %s peer '%s' %s after %ld of %zu cases%s\n", p->title, command, how, got, count,
                  got ? "" : p->missing);
    }
    return got;
}

bool bench_run_numpy_peer(const char *command, bench_run *run, const bench_case *cases, size_t count)
{
    char args[64], unavailable[160] = "";
    const peer p = {"numpy", "numpy", " (is python3-numpy installed?)", run->numpy_version, sizeof run->numpy_version,
                    take_numpy};
    snprintf(args, sizeof args, "--budget %g", run->quick ? 0.005 : 0.25);
    long got = run_peer(&p, command, args, run, cases, count, unavailable, sizeof unavailable);
    run->have_numpy = got > 0;
    return got > 0;
}

bool bench_run_torch_peer(const char *command, bench_run *run, const bench_case *cases, size_t count)
{
    if (!command || !count) {
        snprintf(run->torch_note, sizeof run->torch_note, "not measured (no --torch-peer)");
        return false;
    }
    char args[128], unavailable[160] = "";
    const bool vulkan = bench_is_vulkan(run);
    const peer p = {"torch", "PyTorch",
                    vulkan ? " (does python3 import a torch that sees a CUDA device?)" : " (does python3 import torch?)",
                    run->torch_version, sizeof run->torch_version, take_torch};
    /* The peer warms up and times as the bench does. Beside Vulkan: the same warm-up
     * before each case, CUDA events around back-to-back calls that run at least as long as
     * a list. Beside the CPU backend: CPU tensors on torch's own count of threads (a user's
     * default, as numpy runs its one and the engine its own; a --threads N in the command
     * sets another), the CPU method's warm-up, then calls timed one at a time for about the
     * same budget, their median (as the numpy peer). */
    if (vulkan)
        snprintf(args, sizeof args, "--warmup %g --min-time %g --samples %u", run->pol.warm_s, run->pol.min_list_s,
                 run->pol.samples);
    else snprintf(args, sizeof args, "--device cpu --warmup %g --budget %g", BENCH_CPU_WARM_S, run->pol.budget_s);
    long got = run_peer(&p, command, args, run, cases, count, unavailable, sizeof unavailable);
    run->have_torch = got > 0;
    if (unavailable[0]) {
        snprintf(run->torch_note, sizeof run->torch_note, "not measured: %s", unavailable);
        cli_error("dmlops bench: PyTorch peer: %s; ratio_torch is left empty\n", unavailable);
    } else if (got <= 0) {
        snprintf(run->torch_note, sizeof run->torch_note, "not measured: the peer '%s' timed no case", command);
    }
    return got > 0;
}
