/*
 * emaxplot.c - `plot emax`: E[max] and the p99 of the collective time of
 * the best set of each size, against the size, to choose how many sites
 * a job should spread over.  The points come from the placement search
 * (the caller runs it); each carries its sites as a tooltip and a label.
 */
#include "plot.h"
#include "svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void series(struct gt_svg *s, const struct gt_axis *x, const struct gt_axis *y,
                   const struct gt_plot_emax_point *pts, size_t n, bool p99, const char *cls)
{
    double xs[256] = {0}, ys[256] = {0};
    size_t m = n < 256 ? n : 256;
    for (size_t i = 0; i < m; i++)
        xs[i] = pts[i].size, ys[i] = p99 ? pts[i].p99 : pts[i].e_max;
    gt_svg_line(s, x, y, xs, ys, m, cls);
    for (size_t i = 0; i < m; i++) {
        if (!isfinite(ys[i]))
            continue;
        gt_svg_raw(s, "<g>");
        gt_svg_mark(s, x, y, xs[i], ys[i], cls);
        gt_svg_raw(s, "<title>size %g: ", xs[i]);
        gt_svg_escaped(s, pts[i].sites ? pts[i].sites : "");
        gt_svg_raw(s, "</title></g>\n");
    }
}

/* whether name is an item of the comma list after "root: " in sites */
static bool listed(const char *sites, const char *name, size_t len)
{
    const char *p = strstr(sites, ": ");
    for (p = p ? p + 2 : sites; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && !strncmp(p, name, len))
            return true;
        p += n + (p[n] == ',');
    }
    return false;
}

/* what changed from the set before: "+A -B", or the whole first set */
static void change_label(const char *prev, const char *cur, char *out, size_t size)
{
    size_t used = 0;
    out[0] = 0;
    for (int pass = 0; pass < 2; pass++) {
        const char *from = pass ? prev : cur, *other = pass ? cur : prev;
        const char *p = strstr(from, ": ");
        for (p = p ? p + 2 : from; *p && used + 1 < size;) {
            size_t n = strcspn(p, ",");
            if (!listed(other, p, n))
                used += (size_t)snprintf(out + used, size - used, "%s%s%.*s", used ? " " : "",
                                         pass ? "\u2212" : "+", (int)n, p);
            p += n + (p[n] == ',');
        }
        if (used >= size)
            used = size - 1;
    }
}

/* over each E[max] point the sites it adds to (and drops from) the
 * set before it; the first point names its root and set */
static void site_labels(struct gt_svg *s, const struct gt_axis *x, const struct gt_axis *y,
                        const struct gt_plot_emax_point *pts, size_t n)
{
    if (n > 16)
        return;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(pts[i].e_max) || !pts[i].sites)
            continue;
        char label[96];
        if (i && pts[i - 1].sites)
            change_label(pts[i - 1].sites, pts[i].sites, label, sizeof label);
        else
            snprintf(label, sizeof label, "%s", pts[i].sites);
        double px = gt_axis_px(x, pts[i].size), py = gt_axis_px(y, pts[i].e_max) - 8;
        gt_svg_raw(s, "<g transform=\"rotate(-35 %.1f %.1f)\">", px, py);
        gt_svg_text(s, px, py, "start", "small", "%s", label);
        gt_svg_raw(s, "</g>\n");
    }
}

int gt_plot_emax(const char *root, const struct gt_plot_emax_point *pts, size_t n,
                 struct gt_buf *out, struct gt_error *err)
{
    if (n == 0 || n > 256)
        return gt_error_set(err, GT_EUSAGE, "--sizes", "1 to 256 sizes");
    double lo = INFINITY, hi = -INFINITY, smin = INFINITY, smax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        smin = fmin(smin, pts[i].size), smax = fmax(smax, pts[i].size);
        if (isfinite(pts[i].e_max))
            lo = fmin(lo, pts[i].e_max), hi = fmax(hi, pts[i].e_max);
        if (isfinite(pts[i].p99))
            lo = fmin(lo, pts[i].p99), hi = fmax(hi, pts[i].p99);
    }
    if (!isfinite(lo))
        return gt_error_set(err, GT_EINPUT, NULL, "no size could be estimated");
    char title[200];
    snprintf(title, sizeof title, "root %s: the best set of each size", root ? root : "auto");
    struct gt_svg s;
    gt_svg_begin(&s, out, 760, 470, title);
    struct gt_axis x = {.kind = GT_AXIS_LINEAR, .lo = smin - 0.5, .hi = smax + 0.5, .p0 = 80,
                        .p1 = 730, .label = "partner sites (K)"};
    x.integer = true;
    struct gt_axis y = {.kind = GT_AXIS_LINEAR, .p0 = 400, .p1 = 40,
                        .label = "collective time (ms)"};
    gt_axis_extend(&y, lo, hi, false);
    gt_svg_axes(&s, &x, &y);
    series(&s, &x, &y, pts, n, true, "c0");
    series(&s, &x, &y, pts, n, false, "c1");
    site_labels(&s, &x, &y, pts, n);
    double lx = x.p0 + 14, ly = y.p1 + 6;
    gt_svg_raw(&s, "<rect class=\"legendbox\" x=\"%.1f\" y=\"%.1f\" width=\"240\" "
                   "height=\"42\"/>\n", lx - 6, ly);
    gt_svg_legend(&s, lx, ly, 0, "c1", "E[max] of the best set");
    gt_svg_legend(&s, lx, ly, 1, "c0", "its p99");
    int rc = gt_svg_end(&s);
    if (rc)
        gt_error_set(err, rc, NULL, rc == GT_ETOOBIG ? "the plot is larger than its limit"
                                                     : "out of memory");
    return rc;
}
