/* The benchmark's outputs: the table on stdout, the CSV, and the Markdown report section
 * of docs/performance.md (with the CSV and SVG beside it). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"

/* A path built from parts; false (with a message) when it does not fit. */
static bool path_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool path_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
    if (n >= 0 && (size_t)n < len) return true;
    fprintf(stderr, "dmlops bench: path too long: %s...\n", buf);
    return false;
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

static const char *timer_name(const bench_result *r)
{
    return r->gpu_timer ? "gpu" : "wall";
}

static bool any_wall(const bench_run *run)
{
    for (size_t i = 0; i < run->count; i++)
        if (!run->results[i].skipped[0] && !run->results[i].gpu_timer) return true;
    return false;
}

void bench_print_table(const bench_run *run, FILE *f)
{
    fprintf(f, "\n%-48s %-13s %-5s %6s %11s %11s %9s %9s %8s %11s %9s\n", "case", "path", "timer", "iters", "median us",
            "min us", "GB/s", "copy GB/s", "vs copy", "memcpy GB/s", "vs memcpy");
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        if (r->skipped[0]) {
            fprintf(f, "%-48s skipped: %s\n", r->label, r->skipped);
            continue;
        }
        fprintf(f, "%-48s %-13s %-5s %6u %11.1f %11.1f %9.3f %9.3f %8.3f %11.3f %9.3f\n", r->label,
                dmlops_path_name(r->path), timer_name(r), r->iterations, r->median_s * 1e6, r->min_s * 1e6, r->gbps,
                r->copy_gbps, ratio(r->gbps, r->copy_gbps), r->memcpy_gbps, ratio(r->gbps, r->memcpy_gbps));
    }
    if (any_wall(run))
        fprintf(f, "timer 'wall': no GPU timestamps (CPU backend, or a device without timestamp queries), so "
                   "host wall time from submission to completion was used\n");
    const bench_overhead *o = &run->overhead;
    if (o->measured) {
        fprintf(f, "\nsmall-operator overhead, %u SLICE1 operators on a 4x4 tensor:\n", o->ops);
        fprintf(f, "  one command list, one submit:          %8.2f us/op wall", o->list_us);
        if (o->list_gpu_us >= 0) fprintf(f, ", %.2f us/op GPU", o->list_gpu_us);
        fprintf(f, " (recording %.2f us/op, %u barriers)\n", o->record_us, o->barriers);
        fprintf(f, "  synchronous dmlops_operator_execute:   %8.2f us/op wall\n", o->sync_us);
    }
}

static void csv_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

bool bench_write_csv(const bench_run *run, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "dmlops bench: %s: %s\n", path, strerror(errno));
        return false;
    }
    fputs("device,backend,operator,variant,data_type,element_bytes,tensor_bytes,bytes_moved,path,timer,iterations,"
          "median_us,min_us,gbps,copy_gbps,ratio_copy,memcpy_gbps,ratio_memcpy\n",
          f);
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        if (r->skipped[0]) continue;
        csv_string(f, run->device);
        fprintf(f, ",%s,%s,%s,%s,%u,%llu,%llu,%s,%s,%u,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%.4f\n",
                run->ctx.backend == DMLOPS_BACKEND_CPU ? "cpu" : "vulkan", r->op, r->variant,
                dmlops_data_type_name(r->type), dmlops_data_type_size(r->type), (unsigned long long)r->tensor_bytes,
                (unsigned long long)r->bytes, dmlops_path_name(r->path), timer_name(r), r->iterations,
                r->median_s * 1e6, r->min_s * 1e6, r->gbps, r->copy_gbps, ratio(r->gbps, r->copy_gbps), r->memcpy_gbps,
                ratio(r->gbps, r->memcpy_gbps));
    }
    bool ok = !ferror(f);
    if (fclose(f) != 0) ok = false;
    if (!ok) fprintf(stderr, "dmlops bench: %s: write error\n", path);
    return ok;
}

/* ---- docs/performance.md ------------------------------------------------------------ */

static char *markdown_section(const bench_run *run)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    const dmlops_device_info *d = &run->ctx.device;
    fprintf(f, "<!-- bench:%s:begin -->\n## %s\n\n", run->slug, run->device);
    fprintf(f, "| | |\n|---|---|\n");
    if (run->ctx.backend == DMLOPS_BACKEND_VULKAN) {
        fprintf(f, "| Device | %s (Vulkan %u.%u.%u, index %u, UUID %s) |\n", run->device, (d->api_version >> 22) & 0x7f,
                (d->api_version >> 12) & 0x3ff, d->api_version & 0xfff, d->index, d->uuid_string);
    } else {
        fprintf(f, "| Device | %s |\n", run->device);
    }
    fprintf(f, "| Driver | %s |\n| CPU | %s |\n| Date | %s |\n| Command | `%s` |\n", run->driver, run->cpu, run->date,
            run->command);
    fprintf(f, "| Timer | %s |\n\n", any_wall(run) ? "host wall time (no GPU timestamps on this backend or device)"
                                                   : "GPU timestamp queries");
    fprintf(f, "![GB/s of each case beside the vkCmdCopyBuffer roofline](bench/%s.svg)\n\n", run->slug);
    fprintf(f, "Raw numbers: [bench/%s.csv](bench/%s.csv). *GB/s* counts the bytes the operator must read and "
               "write; *vs copy* divides it by the bandwidth of a `vkCmdCopyBuffer` of the same byte count, "
               "measured in the same run; *vs memcpy* by a host `memcpy` of the same bytes.\n\n",
            run->slug, run->slug);
    fprintf(f, "| Case | Path | Median µs | Min µs | GB/s | Copy GB/s | vs copy | vs memcpy |\n");
    fprintf(f, "|---|---|--:|--:|--:|--:|--:|--:|\n");
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        if (r->skipped[0]) {
            fprintf(f, "| %s | skipped | | | | | | |\n", r->label);
            continue;
        }
        fprintf(f, "| %s | %s | %.1f | %.1f | %.3f | %.3f | %.3f | %.3f |\n", r->label, dmlops_path_name(r->path),
                r->median_s * 1e6, r->min_s * 1e6, r->gbps, r->copy_gbps, ratio(r->gbps, r->copy_gbps),
                ratio(r->gbps, r->memcpy_gbps));
    }
    const bench_overhead *o = &run->overhead;
    if (o->measured) {
        fprintf(f, "\nSmall-operator overhead, %u SLICE1 operators on a 4x4 tensor: %.2f µs per operator recorded in "
                   "one command list (one submit, %u barriers",
                o->ops, o->list_us, o->barriers);
        if (o->list_gpu_us >= 0) fprintf(f, ", %.2f µs of GPU time", o->list_gpu_us);
        fprintf(f, "; recording %.2f µs) against %.2f µs per synchronous `dmlops_operator_execute`.\n", o->record_us,
                o->sync_us);
    }
    fprintf(f, "<!-- bench:%s:end -->\n", run->slug);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    do {
        if (len + 4096 + 1 > cap) {
            cap = (len + 4096 + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        n = fread(buf + len, 1, 4096, f);
        len += n;
    } while (n > 0);
    fclose(f);
    buf[len] = '\0';
    return buf;
}

static bool make_dir(const char *path)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST) return true;
    fprintf(stderr, "dmlops bench: cannot create %s: %s\n", path, strerror(errno));
    return false;
}

/* Replaces the device's section between its markers, or appends it; the other devices'
 * sections stay as they are. */
static bool update_markdown(const char *path, const bench_run *run)
{
    char *section = markdown_section(run);
    if (!section) return false;
    char *old = read_all(path);
    if (!old && errno != ENOENT) {
        fprintf(stderr, "dmlops bench: %s: %s\n", path, strerror(errno));
        free(section);
        return false;
    }
    char begin[160], end[160], tmp[4096];
    snprintf(begin, sizeof begin, "<!-- bench:%s:begin -->", run->slug);
    snprintf(end, sizeof end, "<!-- bench:%s:end -->", run->slug);
    FILE *f = path_fmt(tmp, sizeof tmp, "%s.tmp", path) ? fopen(tmp, "w") : NULL;
    if (!f) {
        fprintf(stderr, "dmlops bench: %s: %s\n", tmp, strerror(errno));
        free(section);
        free(old);
        return false;
    }
    const char *b = old ? strstr(old, begin) : NULL, *e = b ? strstr(b, end) : NULL;
    if (!old) {
        fputs("# Performance\n\nWritten by `make bench` (`dmlops bench --report docs`, see docs/cli.md): one section "
              "per device, each replaced when the benchmark runs again on that device.\n\n",
              f);
        fputs(section, f);
    } else if (b && e) {
        fwrite(old, 1, (size_t)(b - old), f);
        fputs(section, f);
        e += strlen(end);
        fputs(e + (*e == '\n'), f);
    } else {
        fputs(old, f);
        size_t l = strlen(old);
        fputs(l && old[l - 1] != '\n' ? "\n\n" : l ? "\n" : "", f);
        fputs(section, f);
    }
    bool ok = !ferror(f);
    if (fclose(f) != 0) ok = false;
    if (ok && rename(tmp, path) != 0) ok = false;
    if (!ok) {
        fprintf(stderr, "dmlops bench: cannot write %s: %s\n", path, strerror(errno));
        remove(tmp);
    }
    free(section);
    free(old);
    return ok;
}

bool bench_write_report(const bench_run *run, const char *dir)
{
    char path[4096];
    if (!path_fmt(path, sizeof path, "%s/bench", dir) || !make_dir(dir) || !make_dir(path)) return false;
    bool ok = path_fmt(path, sizeof path, "%s/bench/%s.csv", dir, run->slug) && bench_write_csv(run, path);
    ok = ok && path_fmt(path, sizeof path, "%s/bench/%s.svg", dir, run->slug) && bench_write_svg(run, path);
    ok = ok && path_fmt(path, sizeof path, "%s/performance.md", dir) && update_markdown(path, run);
    if (ok) printf("\nreport: %s/performance.md, %s/bench/%s.csv and .svg\n", dir, dir, run->slug);
    return ok;
}
