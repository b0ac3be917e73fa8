/* The benchmark's outputs on stdout and in CSV (the Markdown section is report.c's, the
 * chart svg.c's), and the table of known devices (--peak). Every ratio is ours over the
 * baseline's, so above 1 is faster than it, except ratio_torch, PyTorch's time over ours:
 * above 1 means we are faster too. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char *timer_name(const bench_result *r) { return r->gpu_timer ? "gpu" : "wall"; }

bool bench_any_wall(const bench_run *run)
{
    for (size_t i = 0; i < run->count; i++)
        if (!run->results[i].skipped[0] && !run->results[i].gpu_timer) return true;
    return false;
}

const char *bench_fmt_ratio(double a, double b, char buf[16])
{
    if (b > 0 && a > 0) snprintf(buf, 16, "%.3f", a / b);
    else snprintf(buf, 16, "-");
    return buf;
}

double bench_memset_gbps(const bench_result *r)
{
    return r->memset_s > 0 ? (double)r->counted / r->memset_s * 1e-9 : 0;
}

bool bench_names_torch_call(const bench_run *run, size_t i)
{
    const bench_result *r = &run->results[i];
    for (size_t k = 0; k < i; k++)
        if (run->results[k].c->fam == r->c->fam && run->results[k].torch_s > 0) return false;
    return r->torch_s > 0;
}

static double peak_gbps(const bench_run *run) { return run->mem.peak ? run->mem.peak->gbps : 0; }

/* ---- the table on stdout ------------------------------------------------------------------ */

static void print_cpu_row(const bench_result *r, FILE *f)
{
    char a[16], b[16], c[16], d[16];
    fprintf(f, "%-50s %-13s %-5s %5u %11.1f %9.3f %9s %9s %9s %9s\n", r->c->label, dmlops_path_name(r->path),
            timer_name(r), r->iterations, r->median_s * 1e6, r->gbps, bench_fmt_ratio(r->gbps, r->memcpy_gbps, a),
            bench_fmt_ratio(r->gbps, bench_numpy_gbps(r), b), bench_fmt_ratio(r->torch_s, r->median_s, d),
            bench_fmt_ratio(r->gbps, bench_memset_gbps(r), c));
}

static void print_vulkan_row(const bench_result *r, FILE *f)
{
    char a[16], b[16], c[16], d[16], e[16], t[16];
    if (r->torch_s > 0) snprintf(t, sizeof t, "%.1f", r->torch_s * 1e6);
    else snprintf(t, sizeof t, "-");
    fprintf(f, "%-50s %-12s %-4s %5u %4u%s %10.1f %9.2f %9s %9s %9.2f %9s %8s %9s %9s\n", r->c->label,
            dmlops_path_name(r->path), timer_name(r), r->reps, r->sets, r->cache_included ? "c" : " ",
            r->median_s * 1e6, r->gbps, bench_fmt_ratio(r->gbps, r->copy_gbps, a), bench_fmt_ratio(r->gbps, r->compute_copy_gbps, b),
            r->best_copy_gbps, bench_fmt_ratio(r->gbps, r->best_copy_gbps, c), t, bench_fmt_ratio(r->torch_s, r->median_s, d),
            bench_fmt_ratio(r->gbps, bench_numpy_gbps(r), e));
}

/* Which ceiling is which, under the Vulkan table. */
static void print_vulkan_notes(const bench_run *run, FILE *f)
{
    const bench_policy *p = &run->pol;
    fprintf(f, "GB/s: the 32-byte sectors the operator must read and write (sector_bytes), over its time per record.\n"
               "Each case and each ceiling is a command list of `reps` records back to back (at least %.1f ms), over "
               "`sets` rotating buffer sets (c: fewer than cover 3x the last-level cache, so the cache is included), "
               "timed by GPU timestamps around the list (the host's clock where the timer says wall), after %.0f ms "
               "of continuous work; the median of %u lists.\n"
               "The ceilings move the same bytes, half read and half written, in the same run:\n"
               "  vs copy:       vkCmdCopyBuffer (rounded up to 16 bytes)\n"
               "  vs compute:    the plain compute copy, one uvec4 per invocation, 64 per workgroup\n"
               "  best copy:     the faster of the plain copy and the best shape of the size's sweep below "
               "(several uvec4 per invocation, loads before stores, over workgroup sizes and grids)\n",
            p->min_list_s * 1e3, p->warm_s * 1e3, p->samples);
    if (run->mem.peak)
        fprintf(f, "  peak:          %.1f GB/s, the datasheet bandwidth of %s's memory (not measured)\n",
                run->mem.peak->gbps, run->mem.peak->name);
    else fprintf(f, "  peak:          unknown for this device (not in the table of known devices)\n");
    fprintf(f, "  torch:         PyTorch doing the same operation on a CUDA device, us per call; vs torch is its time "
               "over ours (above 1: we are faster)%s%s\n",
            run->torch_note[0] ? "; " : "", run->torch_note);
    char sz[32], sh[48];
    for (size_t i = 0; i < run->nsweeps; i++) {
        const bench_sweep *s = &run->sweeps[i];
        if (i == 0) fprintf(f, "best copy per size (the sweep's winner, over a copy of the size):\n");
        if (s->failed[0]) {
            fprintf(f, "  %-8s no sweep (%s): the plain copy stands in\n", cli_bytes(s->tensor_bytes, sz), s->failed);
            continue;
        }
        fprintf(f, "  %-8s %s: %.2f GB/s of %u shapes", cli_bytes(s->tensor_bytes, sz), bench_shape_name(&s->best, sh),
                s->best_gbps, s->n);
        if (peak_gbps(run) > 0) fprintf(f, ", %.3f of the peak", s->best_gbps / peak_gbps(run));
        fputc('\n', f);
    }
}

/* --tuning: per case the defaults' time and the file's, measured in the same rounds. */
static void print_tuning(const bench_run *run, FILE *f)
{
    fprintf(f, "\ntuning file %s: the cases on a second context that runs its configurations, timed in the same "
               "rounds as the defaults (us per record; speed-up: defaults over tuned)\n",
            run->tuning_file);
    fprintf(f, "%-50s %-38s %11s %11s %8s  %s\n", "case", "class", "default us", "tuned us", "speed-up",
            "configuration (beside the defaults)");
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        if (r->skipped[0]) continue;
        const dmlops_operator_tuning *t = &r->tuning;
        char x[16] = "-";
        if (r->tuned_median_s > 0) snprintf(x, sizeof x, "%.2fx", r->median_s / r->tuned_median_s);
        fprintf(f, "%-50s %-38s %11.1f %11.1f %8s  %s%s%s\n", r->c->label, t->class_key, r->median_s * 1e6,
                r->tuned_median_s * 1e6, x,
                t->source == DMLOPS_TUNING_SOURCE_NONE ? "(not in the file: the defaults)" : t->config[0] ? t->config : "(the defaults)",
                t->note[0] ? "; " : "", t->note);
    }
}

void bench_print_table(const bench_run *run, FILE *f)
{
    const bool vk = bench_is_vulkan(run);
    if (vk)
        fprintf(f, "\n%-50s %-12s %-4s %5s %5s %10s %9s %9s %9s %9s %9s %8s %9s %9s\n", "case", "path", "timer", "reps",
                "sets", "median us", "GB/s", "vs copy", "vs comp", "best GB/s", "vs best", "torch us", "vs torch",
                "vs numpy");
    else
        fprintf(f, "\n%-50s %-13s %-5s %5s %11s %9s %9s %9s %9s %9s\n", "case", "path", "timer", "iters", "median us",
                "GB/s", "vs memcpy", "vs numpy", "vs torch", "vs memset");
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        if (r->skipped[0]) fprintf(f, "%-50s skipped: %s\n", r->c->label, r->skipped);
        else if (vk) print_vulkan_row(r, f);
        else print_cpu_row(r, f);
    }
    if (vk && run->count) print_vulkan_notes(run, f);
    if (!vk && run->count)
        fprintf(f, "GB/s: the 64-byte lines the operator must read and write (a stride-2 slice reads every line of "
                   "its input), over its median time; vs memcpy: a host memcpy moving as many lines, half read and "
                   "half written, on one thread, in the same run\n");
    if (vk && run->count && run->tuning_file) print_tuning(run, f);
    if (bench_any_wall(run))
        fprintf(f, "timer 'wall': no GPU timestamps (CPU backend, or a device without timestamp queries), so "
                   "host wall time from submission to completion was used\n");
    if (run->have_numpy) fprintf(f, "vs numpy: numpy %s doing the same operation, one thread\n", run->numpy_version);
    if (!vk && run->count)
        fprintf(f, "vs torch: %s%s\n",
                run->have_torch ? "PyTorch doing the same operation on CPU tensors, its time over ours (above 1: we "
                                  "are faster); "
                                : "",
                run->have_torch ? run->torch_version : run->torch_note);
    if (run->have_torch) {
        fprintf(f, "PyTorch %s; the calls it timed:\n", run->torch_version);
        for (size_t i = 0; i < run->count; i++) {
            const bench_result *r = &run->results[i];
            if (bench_names_torch_call(run, i))
                fprintf(f, "  %-20s %-18s %s\n", dmlops_operator_type_name(r->c->fam->op), r->c->fam->variant,
                        r->torch_call);
        }
    }
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
    if (cr->measured && cr->warm_measured)
        fprintf(f, "operator creation (a kernel-path SLICE1): %.3f ms cold (empty pipeline cache), %.3f ms with a warm "
                   "pipeline cache file, %.3f ms once the context holds the pipeline\n",
                cr->cold_ms, cr->warm_ms, cr->hot_ms);
    else if (cr->measured)
        fprintf(f, "operator creation (a kernel-path SLICE1): %.3f ms cold (empty pipeline cache), %.3f ms once the "
                   "context holds the pipeline; no warm-cache time: the driver keeps nothing in its pipeline cache "
                   "(the file holds %llu bytes after a pipeline, as without one)\n",
                cr->cold_ms, cr->hot_ms, (unsigned long long)cr->cache_bytes);
}

/* ---- CSV --------------------------------------------------------------------------------- */

void bench_csv_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* ",%.4f", or "," alone where the figure was not measured: an empty field is "none", a 0
 * would read as a measurement. */
static void csv_opt(FILE *f, double v, const char *fmt)
{
    fputc(',', f);
    if (v > 0) fprintf(f, fmt, v);
}

bool bench_write_csv(const bench_run *run, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_error("dmlops bench: %s: %s\n", path, strerror(errno));
        return false;
    }
    /* Today's columns first, unchanged, then issue 40's. */
    fputs("device,backend,operator,variant,data_type,element_bytes,tensor_bytes,bytes_moved,path,timer,iterations,"
          "median_us,min_us,gbps,copy_gbps,ratio_copy,memcpy_gbps,ratio_memcpy,memset_gbps,ratio_memset,numpy_us,"
          "ratio_numpy,threads,compute_copy_gbps,ratio_compute_copy,sector_bytes,reps,buffer_sets,barriers,"
          "cache_included,best_copy_gbps,ratio_best_copy,best_copy_shape,peak_gbps,best_copy_ratio_peak,torch_us,"
          "ratio_torch,torch_call,tuned_us,ratio_tuned,tuned_config\n",
          f);
    const double peak = peak_gbps(run);
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        if (r->skipped[0]) continue;
        const bench_case *c = r->c;
        bench_csv_string(f, run->device);
        fprintf(f, ",%s,%s,", run->backend, dmlops_operator_type_name(c->fam->op));
        bench_csv_string(f, c->fam->variant);
        fprintf(f, ",%s,%u,%llu,%llu,%s,%s,%u,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.4f,%u,%.4f,%.4f",
                dmlops_data_type_name(c->type), dmlops_data_type_size(c->type), (unsigned long long)c->tensor_bytes,
                (unsigned long long)r->bytes, dmlops_path_name(r->path), timer_name(r), r->iterations,
                r->median_s * 1e6, r->min_s * 1e6, r->gbps, r->copy_gbps, bench_ratio(r->gbps, r->copy_gbps),
                r->memcpy_gbps, bench_ratio(r->gbps, r->memcpy_gbps), r->memset_gbps,
                bench_ratio(r->gbps, bench_memset_gbps(r)), r->numpy_s * 1e6, bench_ratio(r->gbps, bench_numpy_gbps(r)),
                run->ctx.cpu_threads, r->compute_copy_gbps, bench_ratio(r->gbps, r->compute_copy_gbps));
        fprintf(f, ",%llu,%u,%u,%u,%s", (unsigned long long)r->sector_bytes, r->reps, r->sets, r->barriers,
                r->steady ? (r->cache_included ? "yes" : "no") : "");
        csv_opt(f, r->best_copy_gbps, "%.4f");
        csv_opt(f, bench_ratio(r->gbps, r->best_copy_gbps), "%.4f");
        fputc(',', f);
        if (r->best_copy_gbps > 0) {
            char sh[48];
            bench_csv_string(f, bench_shape_name(&r->best_shape, sh));
        }
        csv_opt(f, r->steady ? peak : 0, "%.1f");
        csv_opt(f, r->steady ? bench_ratio(r->best_copy_gbps, peak) : 0, "%.4f");
        csv_opt(f, r->torch_s * 1e6, "%.3f");
        csv_opt(f, bench_ratio(r->torch_s, r->median_s), "%.4f");
        fputc(',', f);
        if (r->torch_call[0]) bench_csv_string(f, r->torch_call);
        /* --tuning: the case under the file's configuration, and its speed-up over the defaults. */
        csv_opt(f, r->tuned_median_s * 1e6, "%.3f");
        csv_opt(f, bench_ratio(r->median_s, r->tuned_median_s), "%.4f");
        fputc(',', f);
        if (r->tuned_median_s > 0) bench_csv_string(f, r->tuning.config);
        fputc('\n', f);
    }
    bool ok = !ferror(f);
    if (fclose(f) != 0) ok = false;
    if (!ok) cli_error("dmlops bench: %s: write error\n", path);
    return ok;
}

/* ---- --peak ---------------------------------------------------------------------------------- */

static void print_peak(const bench_peak *p)
{
    char sz[32];
    printf("%s: %.1f GB/s, last-level cache %s%s\n  source: %s\n", p->name, p->gbps, cli_bytes(p->llc_bytes, sz),
           p->llc_bound ? " (an upper bound)" : "", p->source);
}

int bench_print_peaks(const char *name)
{
    size_t n;
    const bench_peak *t = bench_peak_table(&n);
    if (!name) {
        for (size_t i = 0; i < n; i++) print_peak(&t[i]);
        return CLI_OK;
    }
    const bench_peak *p = bench_peak_find(name, 0, 0);
    if (!p) {
        printf("%s: not in the table of known devices: no peak (dmlops bench --peak all lists them)\n", name);
        return CLI_FAIL;
    }
    print_peak(p);
    return CLI_OK;
}
