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
    cli_error("dmlops bench: path too long: %s...\n", buf);
    return false;
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

static bool is_vulkan(const bench_run *run) { return run->ctx.backend == DMLOPS_BACKEND_VULKAN; }

/* "1.234" or "-" when the baseline was not measured. */
static const char *fmt_ratio(double a, double b, char buf[16])
{
    if (b > 0 && a > 0) snprintf(buf, 16, "%.3f", a / b);
    else snprintf(buf, 16, "-");
    return buf;
}

static double numpy_gbps(const bench_result *r)
{
    return r->numpy_s > 0 ? (double)r->bytes / r->numpy_s * 1e-9 : 0;
}

/* The case's bytes over the memset's time, so that GB/s over it is a ratio of times: a
 * ONE_HOT also reads its indices, which a memset of its output does not. */
static double memset_equiv_gbps(const bench_result *r)
{
    return r->memset_s > 0 ? (double)r->bytes / r->memset_s * 1e-9 : 0;
}

void bench_print_table(const bench_run *run, FILE *f)
{
    const bool vk = is_vulkan(run);
    char a[16], b[16], c[16], d[16], e[16];
    fprintf(f, "\n%-50s %-13s %-5s %5s %11s %9s %9s %9s %9s%s\n", "case", "path", "timer", "iters", "median us",
            "GB/s", "vs memcpy", "vs numpy", "vs memset",
            vk ? " copy GB/s   vs copy compute copy GB/s vs compute copy" : "");
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        if (r->skipped[0]) {
            fprintf(f, "%-50s skipped: %s\n", r->c->label, r->skipped);
            continue;
        }
        fprintf(f, "%-50s %-13s %-5s %5u %11.1f %9.3f %9s %9s %9s", r->c->label, dmlops_path_name(r->path),
                timer_name(r), r->iterations, r->median_s * 1e6, r->gbps, fmt_ratio(r->gbps, r->memcpy_gbps, a),
                fmt_ratio(r->gbps, numpy_gbps(r), b), fmt_ratio(r->gbps, memset_equiv_gbps(r), c));
        if (vk)
            fprintf(f, " %9.3f %9s %17.3f %15s", r->copy_gbps, fmt_ratio(r->gbps, r->copy_gbps, d), r->compute_copy_gbps,
                    fmt_ratio(r->gbps, r->compute_copy_gbps, e));
        fputc('\n', f);
    }
    if (vk)
        fprintf(f, "copy: vkCmdCopyBuffer of the same bytes; compute copy: the plain copy shader (one uvec4 per "
                   "invocation, dmlops_command_list_record_compute_copy) of the same bytes; both run in turn with "
                   "the case\n");
    if (any_wall(run))
        fprintf(f, "timer 'wall': no GPU timestamps (CPU backend, or a device without timestamp queries), so "
                   "host wall time from submission to completion was used\n");
    if (run->have_numpy) fprintf(f, "vs numpy: numpy %s doing the same operation, one thread\n", run->numpy_version);
    for (size_t i = 0; i < run->nscaling; i++) {
        const bench_scaling *s = &run->scaling[i];
        if (i == 0) fprintf(f, "\nCPU engine scaling (GB/s by threads):\n");
        fprintf(f, "  %-50s", s->c->label);
        for (uint32_t k = 0; k < s->n; k++) fprintf(f, "  %u: %7.2f", s->threads[k], s->gbps[k]);
        fprintf(f, "  (x%.2f)\n", s->n ? bench_ratio(s->gbps[s->n - 1], s->gbps[0]) : 0);
    }
    const bench_overhead *o = &run->overhead;
    if (o->measured) {
        fprintf(f, "\nsmall-operator overhead, %u SLICE1 operators on 4 KiB tensors:\n", o->ops);
        fprintf(f, "  one command list, one submit:          %8.2f us/op wall", o->list_us);
        if (o->list_gpu_us >= 0) fprintf(f, ", %.2f us/op GPU", o->list_gpu_us);
        fprintf(f, " (recording %.2f us/op, %u barriers)\n", o->record_us, o->barriers);
        if (o->empty_measured) {
            fprintf(f, "  empty dispatch + barrier, same list:   %8.2f us/op wall", o->empty_us);
            if (o->empty_gpu_us >= 0) fprintf(f, ", %.2f us/op GPU", o->empty_gpu_us);
            fprintf(f, " (%u barriers); operators / empty: %.2fx wall", o->empty_barriers,
                    bench_ratio(o->list_us, o->empty_us));
            if (o->empty_gpu_us > 0 && o->list_gpu_us >= 0)
                fprintf(f, ", %.2fx GPU", bench_ratio(o->list_gpu_us, o->empty_gpu_us));
            fputc('\n', f);
        }
        fprintf(f, "  synchronous dmlops_operator_execute:   %8.2f us/op wall\n", o->sync_us);
    }
    const bench_creation *cr = &run->creation;
    if (cr->measured)
        fprintf(f, "operator creation (a kernel-path SLICE1): %.3f ms cold (empty pipeline cache), %.3f ms with a warm "
                   "pipeline cache file, %.3f ms once the context holds the pipeline\n",
                cr->cold_ms, cr->warm_ms, cr->hot_ms);
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
        cli_error("dmlops bench: %s: %s\n", path, strerror(errno));
        return false;
    }
    fputs("device,backend,operator,variant,data_type,element_bytes,tensor_bytes,bytes_moved,path,timer,iterations,"
          "median_us,min_us,gbps,copy_gbps,ratio_copy,memcpy_gbps,ratio_memcpy,memset_gbps,ratio_memset,numpy_us,"
          "ratio_numpy,threads,compute_copy_gbps,ratio_compute_copy\n",
          f);
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        if (r->skipped[0]) continue;
        const bench_case *c = r->c;
        csv_string(f, run->device);
        fprintf(f, ",%s,%s,", run->backend, dmlops_operator_type_name(c->fam->op));
        csv_string(f, c->fam->variant);
        fprintf(f, ",%s,%u,%llu,%llu,%s,%s,%u,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.4f,%u,%.4f,%.4f\n",
                dmlops_data_type_name(c->type),
                dmlops_data_type_size(c->type), (unsigned long long)c->tensor_bytes, (unsigned long long)r->bytes,
                dmlops_path_name(r->path), timer_name(r), r->iterations, r->median_s * 1e6, r->min_s * 1e6, r->gbps,
                r->copy_gbps, bench_ratio(r->gbps, r->copy_gbps), r->memcpy_gbps, bench_ratio(r->gbps, r->memcpy_gbps),
                r->memset_gbps, bench_ratio(r->gbps, memset_equiv_gbps(r)), r->numpy_s * 1e6,
                bench_ratio(r->gbps, numpy_gbps(r)), run->ctx.cpu_threads, r->compute_copy_gbps,
                bench_ratio(r->gbps, r->compute_copy_gbps));
    }
    bool ok = !ferror(f);
    if (fclose(f) != 0) ok = false;
    if (!ok) cli_error("dmlops bench: %s: write error\n", path);
    return ok;
}

/* ---- docs/performance.md ------------------------------------------------------------ */

static void markdown_table(const bench_run *run, FILE *f)
{
    const bool vk = is_vulkan(run);
    char a[16], b[16], c[16], d[16], e[16];
    fprintf(f, "| Case | Path | Median µs | GB/s | vs memcpy | vs numpy | vs memset |%s\n",
            vk ? " Copy GB/s | vs copy | Compute copy GB/s | vs compute copy |" : "");
    fprintf(f, "|---|---|--:|--:|--:|--:|--:|%s\n", vk ? "--:|--:|--:|--:|" : "");
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        const char *bold = bench_case_is_headline(r->c) ? "**" : "";
        if (r->skipped[0]) {
            fprintf(f, "| %s | skipped | | | | | |%s\n", r->c->label, vk ? " | | | |" : "");
            continue;
        }
        fprintf(f, "| %s%s%s | %s | %.1f | %.2f | %s | %s | %s |", bold, r->c->label, bold, dmlops_path_name(r->path),
                r->median_s * 1e6, r->gbps, fmt_ratio(r->gbps, r->memcpy_gbps, a),
                fmt_ratio(r->gbps, numpy_gbps(r), b), fmt_ratio(r->gbps, memset_equiv_gbps(r), c));
        if (vk)
            fprintf(f, " %.2f | %s | %.2f | %s |", r->copy_gbps, fmt_ratio(r->gbps, r->copy_gbps, d),
                    r->compute_copy_gbps, fmt_ratio(r->gbps, r->compute_copy_gbps, e));
        fputc('\n', f);
    }
}

static char *markdown_section(const bench_run *run)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    const dmlops_device_info *d = &run->ctx.device;
    fprintf(f, "<!-- bench:%s:begin -->\n## %s\n\n", run->slug, run->device);
    fprintf(f, "| | |\n|---|---|\n");
    if (is_vulkan(run)) {
        fprintf(f, "| Device | %s (Vulkan %u.%u.%u, index %u, UUID %s) |\n", run->device, (d->api_version >> 22) & 0x7f,
                (d->api_version >> 12) & 0x3ff, d->api_version & 0xfff, d->index, d->uuid_string);
    } else {
        fprintf(f, "| Device | %s |\n", run->device);
    }
    fprintf(f, "| Backend | %s |\n| Driver | %s |\n| CPU | %s |\n| Date | %s |\n| Command | `%s` |\n", run->backend,
            run->driver, run->cpu, run->date, run->command);
    fprintf(f, "| Suite | %s |\n", run->quick ? "quick (4 KiB and 64 KiB only)" : "standard");
    fprintf(f, "| Timer | %s |\n", any_wall(run) ? "host wall time (no GPU timestamps on this backend or device)"
                                                 : "GPU timestamp queries");
    fprintf(f, "| numpy | %s |\n\n", run->have_numpy ? run->numpy_version : "not measured (no python3-numpy)");
    fprintf(f, "![GB/s of each case beside its ceilings](bench/%s.svg)\n\n", run->slug);
    fprintf(f, "Raw numbers: [bench/%s.csv](bench/%s.csv). *GB/s* counts the bytes the operator must read and "
               "write. Each *vs* column divides it by a baseline measured in the same run on the same machine: "
               "*memcpy*, a host `memcpy` of the same bytes; *numpy*, numpy doing the same operation on one "
               "thread; *memset*, a host `memset` of a ONE_HOT's output bytes%s. Headline cases are in bold.\n\n",
            run->slug, run->slug,
            is_vulkan(run) ? "; *copy*, a `vkCmdCopyBuffer` of the same bytes on the device; *compute copy*, "
                             "the plain copy shader of the same bytes on the device (one `uvec4` per invocation, "
                             "64 per workgroup, up to 65535 workgroups striding over the buffer: "
                             "`dmlops_command_list_record_compute_copy`), the ceiling of any kernel. Both "
                             "device baselines run in turn with the case, iteration by iteration"
                           : "");
    markdown_table(run, f);
    for (size_t i = 0; i < run->nscaling; i++) {
        const bench_scaling *s = &run->scaling[i];
        if (i == 0) {
            fprintf(f, "\nCPU engine scaling, GB/s by thread count:\n\n| Case |");
            for (uint32_t k = 0; k < s->n; k++) fprintf(f, " %u |", s->threads[k]);
            fprintf(f, " speed-up |\n|---|");
            for (uint32_t k = 0; k <= s->n; k++) fprintf(f, "--:|");
            fputc('\n', f);
        }
        fprintf(f, "| %s |", s->c->label);
        for (uint32_t k = 0; k < s->n; k++) fprintf(f, " %.2f |", s->gbps[k]);
        fprintf(f, " %.2fx |\n", s->n ? bench_ratio(s->gbps[s->n - 1], s->gbps[0]) : 0);
    }
    const bench_overhead *o = &run->overhead;
    if (o->measured) {
        fprintf(f, "\nSmall-operator overhead, %u SLICE1 operators on 4 KiB tensors: %.2f µs per operator recorded in "
                   "one command list (one submit, %u barriers",
                o->ops, o->list_us, o->barriers);
        if (o->list_gpu_us >= 0) fprintf(f, ", %.2f µs of GPU time", o->list_gpu_us);
        fprintf(f, "; recording %.2f µs) against %.2f µs per synchronous `dmlops_operator_execute`.", o->record_us,
                o->sync_us);
        if (o->empty_measured) {
            fprintf(f, " The same count of empty dispatches (a 16-byte compute copy), each behind a barrier, recorded "
                       "the same way: %.2f µs each",
                    o->empty_us);
            if (o->empty_gpu_us >= 0) fprintf(f, ", %.2f µs of GPU time", o->empty_gpu_us);
            fprintf(f, ", so an operator costs %.2fx an empty dispatch plus barrier (wall", bench_ratio(o->list_us, o->empty_us));
            if (o->empty_gpu_us > 0 && o->list_gpu_us >= 0)
                fprintf(f, "; %.2fx in GPU time", bench_ratio(o->list_gpu_us, o->empty_gpu_us));
            fprintf(f, ").");
        }
        fputc('\n', f);
    }
    const bench_creation *cr = &run->creation;
    if (cr->measured)
        fprintf(f, "\nOperator creation (`dmlops_operator_create`, a kernel-path SLICE1): %.3f ms cold (a fresh context, "
                   "empty pipeline cache), %.3f ms in a fresh context with a warm pipeline cache file (the median of "
                   "7 contexts), %.3f ms once the context holds the pipeline.\n",
                cr->cold_ms, cr->warm_ms, cr->hot_ms);
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
    cli_error("dmlops bench: cannot create %s: %s\n", path, strerror(errno));
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
        cli_error("dmlops bench: %s: %s\n", path, strerror(errno));
        free(section);
        return false;
    }
    char begin[160], end[160], tmp[4096];
    snprintf(begin, sizeof begin, "<!-- bench:%s:begin -->", run->slug);
    snprintf(end, sizeof end, "<!-- bench:%s:end -->", run->slug);
    FILE *f = path_fmt(tmp, sizeof tmp, "%s.tmp", path) ? fopen(tmp, "w") : NULL;
    if (!f) {
        cli_error("dmlops bench: %s: %s\n", tmp, strerror(errno));
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
        cli_error("dmlops bench: cannot write %s: %s\n", path, strerror(errno));
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
