/* The benchmark chart, written as SVG by hand: one horizontal bar per case (its GB/s) on a
 * logarithmic axis, with a mark at each ceiling measured for the same bytes in the same
 * run, so a bar's distance from a mark is its distance from that ceiling: on Vulkan
 * vkCmdCopyBuffer (red), the plain compute copy (black, dashed) and the best copy (green);
 * on the CPU backend host memcpy (red); and the peers doing the same operation, numpy
 * (purple) and PyTorch (orange). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench.h"

enum { WIDTH = 1180, LABEL_RIGHT = 330, PLOT_X = 340, PLOT_W = 600, TOP = 104, ROW = 16, BOTTOM = 46 };

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '&') fputs("&amp;", f);
        else if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '"') fputs("&quot;", f);
        else fputc(*s, f);
    }
}

static const char *op_color(DML_OPERATOR_TYPE op)
{
    if (op == DML_OPERATOR_REVERSE_SUBSEQUENCES) return "#4e79a7";
    if (op == DML_OPERATOR_SLICE1) return "#f28e2b";
    return "#59a14f";
}

/* The ceilings drawn as marks: the device's copy (Vulkan) or memcpy (CPU), and numpy. */
static double ceiling(const bench_run *run, const bench_result *r)
{
    return run->ctx.backend == DMLOPS_BACKEND_VULKAN ? r->copy_gbps : r->memcpy_gbps;
}


/* A ceiling's or a peer's mark across a bar's row. */
static void mark(FILE *f, double x, double y, const char *color, const char *dash)
{
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2.5\"%s/>\n", x,
            y + 1, x, y + ROW - 1, color, dash);
}

typedef struct axis {
    double lo, hi; /* decades */
} axis;

static double axis_x(const axis *a, double v)
{
    if (v <= 0) return PLOT_X;
    double t = (log10(v) - a->lo) / (a->hi - a->lo);
    return PLOT_X + (t < 0 ? 0 : t > 1 ? 1 : t) * PLOT_W;
}

static axis make_axis(const bench_run *run)
{
    double mn = INFINITY, mx = 0;
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        if (r->skipped[0]) continue;
        double v[6] = {r->gbps, ceiling(run, r), bench_numpy_gbps(r), r->compute_copy_gbps, r->best_copy_gbps,
                       bench_torch_gbps(r)};
        for (int k = 0; k < 6; k++)
            if (v[k] > 0) {
                mn = v[k] < mn ? v[k] : mn;
                mx = v[k] > mx ? v[k] : mx;
            }
    }
    if (mx <= 0) return (axis){-3, 2};
    axis a = {floor(log10(mn)), ceil(log10(mx))};
    if (a.hi <= a.lo) a.hi = a.lo + 1;
    return a;
}

bool bench_write_svg(const bench_run *run, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        cli_error("dmlops bench: %s: %s\n", path, strerror(errno));
        return false;
    }
    size_t rows = 0;
    for (size_t i = 0; i < run->count; i++) rows += !run->results[i].skipped[0];
    axis a = make_axis(run);
    int height = TOP + (int)rows * ROW + BOTTOM;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"11\">\n",
            WIDTH, height, WIDTH, height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    const bool vk = run->ctx.backend == DMLOPS_BACKEND_VULKAN;
    fprintf(f, "<text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">libdmlops effective bandwidth on ");
    xml_text(f, run->device);
    fprintf(f, " (%s backend, %s)</text>\n<text x=\"10\" y=\"40\" fill=\"#555\">", run->backend,
            run->quick ? "quick suite: 4 KiB and 64 KiB only" : "standard suite");
    xml_text(f, run->driver);
    fprintf(f, " | CPU ");
    xml_text(f, run->cpu);
    fprintf(f, " | %s | median of repeated runs</text>\n", run->date);
    /* Legend. */
    fprintf(f, "<rect x=\"10\" y=\"52\" width=\"24\" height=\"10\" fill=\"#4e79a7\"/><rect x=\"36\" y=\"52\" "
               "width=\"24\" height=\"10\" fill=\"#f28e2b\"/><rect x=\"62\" y=\"52\" width=\"24\" height=\"10\" "
               "fill=\"#59a14f\"/>\n<text x=\"92\" y=\"61\">operator GB/s: (%s read + written) / time "
               "(REVERSE_SUBSEQUENCES, SLICE1, ONE_HOT)</text>\n",
            vk ? "32-byte sectors" : "bytes");
    fprintf(f, "<line x1=\"48\" y1=\"68\" x2=\"48\" y2=\"80\" stroke=\"#d62728\" stroke-width=\"2.5\"/>\n"
               "<text x=\"92\" y=\"78\">%s of the same bytes in the same run: the copy ceiling</text>\n",
            vk ? "vkCmdCopyBuffer" : "host memcpy");
    if (vk)
        fprintf(f, "<line x1=\"48\" y1=\"84\" x2=\"48\" y2=\"96\" stroke=\"#000\" stroke-width=\"2\" "
                   "stroke-dasharray=\"3,2\"/>\n<text x=\"92\" y=\"94\">compute copy (a plain uvec4 copy shader) of "
                   "the same bytes in the same run: the ceiling of a kernel</text>\n");
    if (vk)
        fprintf(f, "<line x1=\"700\" y1=\"84\" x2=\"700\" y2=\"96\" stroke=\"#2ca02c\" stroke-width=\"2.5\"/>\n"
                   "<text x=\"710\" y=\"94\">best copy (the sweep's best shape, or the plain copy)</text>\n");
    if (run->have_numpy)
        fprintf(f, "<line x1=\"400\" y1=\"68\" x2=\"400\" y2=\"80\" stroke=\"#7b3294\" stroke-width=\"2.5\" "
                   "stroke-dasharray=\"2,1\"/>\n<text x=\"410\" y=\"78\">numpy doing the same operation</text>\n");
    if (run->have_torch)
        fprintf(f, "<line x1=\"700\" y1=\"68\" x2=\"700\" y2=\"80\" stroke=\"#ff7f0e\" stroke-width=\"2.5\" "
                   "stroke-dasharray=\"2,1\"/>\n<text x=\"710\" y=\"78\">PyTorch doing the same operation</text>\n");
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#555\">%s</text>\n", WIDTH - 10, TOP - 6,
            vk ? "GB/s: x copy, x compute copy, x best copy" : "bar / ceiling");

    /* Decade grid with 2x and 5x minor lines. */
    int y0 = TOP, y1 = TOP + (int)rows * ROW;
    for (int d = (int)a.lo; d <= (int)a.hi; d++)
        for (int m = 1; m <= 5; m += (m == 1 ? 1 : 3)) {
            double v = m * pow(10, d), x = axis_x(&a, v);
            if (log10(v) > a.hi + 1e-9) break;
            fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>\n", x, y0 - 2, x, y1,
                    m == 1 ? "#bbb" : "#eee");
            if (m == 1)
                fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", x, y1 + 14, v);
        }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">GB/s (log scale)</text>\n", PLOT_X + PLOT_W / 2,
            y1 + 32);

    size_t row = 0;
    for (size_t i = 0; i < run->count; i++) {
        const bench_result *r = &run->results[i];
        if (r->skipped[0]) continue;
        double y = TOP + (double)row++ * ROW;
        double ceil_gbps = ceiling(run, r), np_gbps = bench_numpy_gbps(r);
        double xb = axis_x(&a, r->gbps), xc = axis_x(&a, ceil_gbps), xn = axis_x(&a, np_gbps);
        double ratio = ceil_gbps > 0 ? r->gbps / ceil_gbps : 0;
        double cc_ratio = r->compute_copy_gbps > 0 ? r->gbps / r->compute_copy_gbps : 0;
        fprintf(f, "<g><title>");
        xml_text(f, r->c->label);
        fprintf(f, ": %s path, %.3f GB/s, %s %.3f GB/s (%.2fx), ", dmlops_path_name(r->path), r->gbps,
                vk ? "copy" : "memcpy", ceil_gbps, ratio);
        if (vk)
            fprintf(f, "compute copy %.3f GB/s (%.2fx), best copy %.3f GB/s, ", r->compute_copy_gbps, cc_ratio,
                    r->best_copy_gbps);
        fprintf(f, "memcpy %.3f GB/s, numpy %.3f GB/s, median %.1f us (%s timer)</title>\n", r->memcpy_gbps, np_gbps,
                r->median_s * 1e6, r->gpu_timer ? "GPU" : "wall");
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", LABEL_RIGHT, y + 11.5);
        xml_text(f, r->c->label);
        fprintf(f, "</text>\n<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", PLOT_X, y + 2,
                xb - PLOT_X, ROW - 4, op_color(r->c->fam->op));
        mark(f, xc, y, "#d62728", "");
        if (vk && r->compute_copy_gbps > 0) mark(f, axis_x(&a, r->compute_copy_gbps), y, "#000", " stroke-dasharray=\"3,2\"");
        if (np_gbps > 0) mark(f, xn, y, "#7b3294", " stroke-dasharray=\"2,1\"");
        if (vk && r->best_copy_gbps > 0) mark(f, axis_x(&a, r->best_copy_gbps), y, "#2ca02c", "");
        if (bench_torch_gbps(r) > 0) mark(f, axis_x(&a, bench_torch_gbps(r)), y, "#ff7f0e", " stroke-dasharray=\"2,1\"");
        if (vk)
            fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333\">%.3g GB/s: %.2fx, %.2fx, %.2fx</text></g>\n",
                    WIDTH - 10, y + 11.5, r->gbps, ratio, cc_ratio, bench_ratio(r->gbps, r->best_copy_gbps));
        else
            fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333\">%.3g / %.3g GB/s (%.2gx)</text></g>\n",
                    WIDTH - 10, y + 11.5, r->gbps, ceil_gbps, ratio);
    }
    fprintf(f, "</svg>\n");
    bool ok = !ferror(f);
    if (fclose(f) != 0) ok = false;
    if (!ok) cli_error("dmlops bench: %s: write error\n", path);
    return ok;
}
