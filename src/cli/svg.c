/* The benchmark chart, written as SVG by hand: one horizontal bar per case (its GB/s) on a
 * logarithmic axis, with a red mark at the vkCmdCopyBuffer bandwidth of the same byte
 * count, so each bar's distance from its mark is the distance from the copy roofline. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "bench.h"

enum { WIDTH = 1100, LABEL_RIGHT = 330, PLOT_X = 340, PLOT_W = 600, TOP = 104, ROW = 16, BOTTOM = 46 };

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

static const char *op_color(const char *op)
{
    if (!strcmp(op, "REVERSE_SUBSEQUENCES")) return "#4e79a7";
    if (!strcmp(op, "SLICE1")) return "#f28e2b";
    return "#59a14f";
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
        double v[2] = {r->gbps, r->copy_gbps};
        for (int k = 0; k < 2; k++)
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
        fprintf(stderr, "dmlops bench: %s: %s\n", path, strerror(errno));
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
    fprintf(f, "<text x=\"10\" y=\"22\" font-size=\"16\" font-weight=\"bold\">libdmlops effective bandwidth on ");
    xml_text(f, run->device);
    fprintf(f, "</text>\n<text x=\"10\" y=\"40\" fill=\"#555\">");
    xml_text(f, run->driver);
    fprintf(f, " | CPU ");
    xml_text(f, run->cpu);
    fprintf(f, " | %s | median of repeated runs</text>\n", run->date);
    /* Legend. */
    fprintf(f, "<rect x=\"10\" y=\"52\" width=\"24\" height=\"10\" fill=\"#4e79a7\"/><rect x=\"36\" y=\"52\" "
               "width=\"24\" height=\"10\" fill=\"#f28e2b\"/><rect x=\"62\" y=\"52\" width=\"24\" height=\"10\" "
               "fill=\"#59a14f\"/>\n<text x=\"92\" y=\"61\">operator GB/s: (bytes read + written) / time "
               "(REVERSE_SUBSEQUENCES, SLICE1, ONE_HOT)</text>\n");
    fprintf(f, "<line x1=\"48\" y1=\"68\" x2=\"48\" y2=\"80\" stroke=\"#d62728\" stroke-width=\"2.5\"/>\n"
               "<text x=\"92\" y=\"78\">vkCmdCopyBuffer of the same bytes in the same run: the copy roofline</text>\n");
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#555\">bar / roofline</text>\n", WIDTH - 10, TOP - 6);

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
        double xb = axis_x(&a, r->gbps), xc = axis_x(&a, r->copy_gbps);
        double ratio = r->copy_gbps > 0 ? r->gbps / r->copy_gbps : 0;
        fprintf(f, "<g><title>");
        xml_text(f, r->label);
        fprintf(f, ": %s path, %.3f GB/s, copy %.3f GB/s (%.2fx), memcpy %.3f GB/s, median %.1f us (%s timer)</title>\n",
                dmlops_path_name(r->path), r->gbps, r->copy_gbps, ratio, r->memcpy_gbps, r->median_s * 1e6,
                r->gpu_timer ? "GPU" : "wall");
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", LABEL_RIGHT, y + 11.5);
        xml_text(f, r->label);
        fprintf(f, "</text>\n<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", PLOT_X, y + 2,
                xb - PLOT_X, ROW - 4, op_color(r->op));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" stroke-width=\"2.5\"/>\n",
                xc, y + 1, xc, y + ROW - 1);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333\">%.3g / %.3g GB/s (%.2gx)</text></g>\n",
                WIDTH - 10, y + 11.5, r->gbps, r->copy_gbps, ratio);
    }
    fprintf(f, "</svg>\n");
    bool ok = !ferror(f);
    if (fclose(f) != 0) ok = false;
    if (!ok) fprintf(stderr, "dmlops bench: %s: write error\n", path);
    return ok;
}
