/* The device's section of docs/performance.md (make bench-docs; --report DIR), with its CSV
 * and chart beside it in DIR/bench/: the table of output.c in Markdown, the method and the
 * ceilings in words, and on Vulkan the sweep's winners and the PyTorch calls. */
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

static void markdown_cpu_table(const bench_run *run, FILE *f)
{
    char a[16], b[16], c[16], d[16];
    fprintf(f, "| Case | Path | Median µs | GB/s | vs memcpy | vs numpy | vs PyTorch | vs memset |\n");
    fprintf(f, "|---|---|--:|--:|--:|--:|--:|--:|\n");
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        const char *bold = bench_case_is_headline(r->c) ? "**" : "";
        if (r->skipped[0]) {
            fprintf(f, "| %s | skipped | | | | | | |\n", r->c->label);
            continue;
        }
        fprintf(f, "| %s%s%s | %s | %.1f | %.2f | %s | %s | %s | %s |\n", bold, r->c->label, bold,
                dmlops_path_name(r->path), r->median_s * 1e6, r->gbps, bench_fmt_ratio(r->gbps, r->memcpy_gbps, a),
                bench_fmt_ratio(r->gbps, bench_numpy_gbps(r), b), bench_fmt_ratio(r->torch_s, r->median_s, d),
                bench_fmt_ratio(r->gbps, bench_memset_gbps(r), c));
    }
}

/* The PyTorch peer's calls, each family's once. */
static void markdown_torch_calls(const bench_run *run, FILE *f)
{
    if (!run->have_torch) return;
    fprintf(f, "The PyTorch calls, each case as a PyTorch user writes it:\n\n");
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        if (bench_names_torch_call(run, i))
            fprintf(f, "- %s %s: `%s`\n", dmlops_operator_type_name(r->c->fam->op), r->c->fam->variant, r->torch_call);
    }
    fputc('\n', f);
}

static void markdown_vulkan_table(const bench_run *run, FILE *f)
{
    char a[16], b[16], c[16], d[16], e[16];
    fprintf(f, "| Case | Path | Reps × sets | Median µs | GB/s | vs copy | vs compute copy | Best copy GB/s | "
               "vs best copy | vs numpy | PyTorch µs | vs PyTorch |\n");
    fprintf(f, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        const char *bold = bench_case_is_headline(r->c) ? "**" : "";
        if (r->skipped[0]) {
            fprintf(f, "| %s | skipped | | | | | | | | | | |\n", r->c->label);
            continue;
        }
        fprintf(f, "| %s%s%s | %s | %u × %u%s | %.1f | %.2f | %s | %s | %.2f | %s | %s | ", bold, r->c->label, bold,
                dmlops_path_name(r->path), r->reps, r->sets, r->cache_included ? " (c)" : "", r->median_s * 1e6, r->gbps,
                bench_fmt_ratio(r->gbps, r->copy_gbps, a), bench_fmt_ratio(r->gbps, r->compute_copy_gbps, b),
                r->best_copy_gbps, bench_fmt_ratio(r->gbps, r->best_copy_gbps, c),
                bench_fmt_ratio(r->gbps, bench_numpy_gbps(r), d));
        if (r->torch_s > 0) fprintf(f, "%.1f | %s |\n", r->torch_s * 1e6, bench_fmt_ratio(r->torch_s, r->median_s, e));
        else fprintf(f, "- | - |\n");
    }
}

/* The Vulkan method, the ceilings and the peers, in words, and the sweep's winners. */
static void markdown_vulkan_notes(const bench_run *run, FILE *f)
{
    const bench_policy *p = &run->pol;
    fprintf(f, "Raw numbers: [bench/%s.csv](bench/%s.csv). *GB/s* counts the 32-byte sectors the operator must "
               "read and write (`sector_bytes`; a stride-2 slice of 4-byte elements reads all of its input), over "
               "its time per record. Each case and each ceiling is a command list of *reps* records back to back "
               "(at least %.1f ms) rotating over *sets* buffer sets (*(c)*: fewer than cover three times the "
               "last-level cache, so the cache is included), timed by GPU timestamps around the whole list (the "
               "host's clock on a device without them: the Timer row says which) after "
               "%.0f ms of continuous work, the median of %u lists; the lists of a case and its ceilings run in "
               "turn. The ceilings move the same bytes, half read and half written: *copy*, `vkCmdCopyBuffer`; "
               "*compute copy*, the plain copy shader (one `uvec4` per invocation, 64 per workgroup); *best copy*, "
               "the faster of the plain copy and the best shape of the size's sweep (below). Every *vs* is ours "
               "over theirs (above 1: faster), *vs PyTorch* included: PyTorch's time over ours. Headline cases are "
               "in bold.\n\n",
            run->slug, run->slug, p->min_list_s * 1e3, p->warm_s * 1e3, p->samples);
    char sz[32], sh[48];
    const double peak = run->mem.peak ? run->mem.peak->gbps : 0;
    for (size_t i = 0; i < run->nsweeps; i++) {
        const bench_sweep *s = &run->sweeps[i];
        if (i == 0) fprintf(f, "Best copy per size (the sweep's winner over a copy of that size):\n\n");
        if (s->failed[0]) fprintf(f, "- %s: no sweep (%s)\n", cli_bytes(s->tensor_bytes, sz), s->failed);
        else if (peak > 0)
            fprintf(f, "- %s: %s, %.2f GB/s, %.3f of the peak\n", cli_bytes(s->tensor_bytes, sz),
                    bench_shape_name(&s->best, sh), s->best_gbps, s->best_gbps / peak);
        else
            fprintf(f, "- %s: %s, %.2f GB/s\n", cli_bytes(s->tensor_bytes, sz), bench_shape_name(&s->best, sh),
                    s->best_gbps);
    }
    if (run->nsweeps) fputc('\n', f);
    markdown_torch_calls(run, f);
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
    if (bench_is_vulkan(run)) {
        fprintf(f, "| Device | %s (Vulkan %u.%u.%u, index %u, UUID %s) |\n", run->device, (d->api_version >> 22) & 0x7f,
                (d->api_version >> 12) & 0x3ff, d->api_version & 0xfff, d->index, d->uuid_string);
    } else {
        fprintf(f, "| Device | %s |\n", run->device);
    }
    fprintf(f, "| Backend | %s |\n| Driver | %s |\n| CPU | %s |\n| Date | %s |\n| Command | `%s` |\n", run->backend,
            run->driver, run->cpu, run->date, run->command);
    fprintf(f, "| Suite | %s |\n", run->quick ? "quick (4 KiB and 64 KiB only)" : "standard");
    fprintf(f, "| Timer | %s |\n", bench_any_wall(run) ? "host wall time (no GPU timestamps on this backend or device)"
                                                 : "GPU timestamp queries");
    fprintf(f, "| numpy | %s |\n", run->have_numpy ? run->numpy_version : "not measured (no python3-numpy)");
    fprintf(f, "| PyTorch | %s |\n", run->have_torch ? run->torch_version : run->torch_note);
    if (bench_is_vulkan(run)) {
        const bench_memory *m = &run->mem;
        if (m->peak)
            fprintf(f, "| Peak | %.1f GB/s, %s: %s |\n", m->peak->gbps, m->peak->name, m->peak->source);
        else fprintf(f, "| Peak | unknown: the device is not in the table of known devices |\n");
        fprintf(f, "| Last-level cache | %s |\n", m->llc_from);
    }
    fprintf(f, "\n![GB/s of each case beside its ceilings](bench/%s.svg)\n\n", run->slug);
    if (bench_is_vulkan(run)) {
        markdown_vulkan_notes(run, f);
        markdown_vulkan_table(run, f);
    } else {
        fprintf(f, "Raw numbers: [bench/%s.csv](bench/%s.csv). *GB/s* counts the 64-byte lines the operator must "
                   "read and write (a stride-2 slice reads every line of its input). Each *vs* column divides it by "
                   "a baseline measured in the same run on the same machine: *memcpy*, a host `memcpy` moving as "
                   "many lines (half read, half written) on one thread; *numpy*, numpy doing the same operation on "
                   "one thread; *PyTorch*, PyTorch doing it on CPU tensors on its own threads (the PyTorch row says "
                   "how many), its time over ours; *memset*, a host `memset` of a ONE_HOT's output bytes. Headline "
                   "cases are in bold.\n\n",
                run->slug, run->slug);
        markdown_torch_calls(run, f);
        markdown_cpu_table(run, f);
    }
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
    if (cr->measured && cr->warm_measured)
        fprintf(f, "\nOperator creation (`dmlops_operator_create`, a kernel-path SLICE1): %.3f ms cold (a fresh context, "
                   "empty pipeline cache), %.3f ms in a fresh context with a warm pipeline cache file (the median of "
                   "7 contexts), %.3f ms once the context holds the pipeline.\n",
                cr->cold_ms, cr->warm_ms, cr->hot_ms);
    else if (cr->measured)
        fprintf(f, "\nOperator creation (`dmlops_operator_create`, a kernel-path SLICE1): %.3f ms cold (a fresh context, "
                   "empty pipeline cache), %.3f ms once the context holds the pipeline. No warm-cache time: the driver "
                   "keeps nothing in its pipeline cache (the file holds %llu bytes after a pipeline, as without one).\n",
                cr->cold_ms, cr->hot_ms, (unsigned long long)cr->cache_bytes);
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
