/*
 * btplot.c - `plot backtest`: a backtest report (`backtest --json`) as
 * the paper's Figs. 6-8: per method a heatmap of RMSE over window m
 * (rows) and lead tau (columns) on one shared log colour scale; per method
 * other than normal its improvement over normal's RMSE on a diverging
 * scale, with a dot where the Mann-Whitney test gives p < 0.05; and the
 * calibration, the share of outcomes at or below each predicted quantile
 * against the quantile's level, as the model gave it and as calibrated
 * by its own past misses (METHOD.md section 5).  Only the cells of all
 * moments (regime "all") are drawn.
 */
#include "plot.h"
#include "svg.h"
#include "base/numfmt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_AXIS 16           /* windows and taus (backtest's own limit) */
#define MAX_METHODS 8
#define PER_ROW 4

struct report {
    double windows[MAX_AXIS], taus[MAX_AXIS];
    size_t nw, nt, nm;
    const char *methods[MAX_METHODS];
    /* [method][window][tau]; NAN where the report has no value */
    double rmse[MAX_METHODS][MAX_AXIS][MAX_AXIS];
    double improvement[MAX_METHODS][MAX_AXIS][MAX_AXIS];
    double p[MAX_METHODS][MAX_AXIS][MAX_AXIS];
    /* [model's, calibrated][method][level]: pooled, weighted by n */
    double cal[2][MAX_METHODS][3], cal_n[2][MAX_METHODS];
};

static const char *const cal_keys[2] = {"calibration", "calibrated"};

static const double levels[3] = {0.5, 0.9, 0.99};
static const char *const level_keys[3] = {"p50", "p90", "p99"};

static int numbers(const json_t *root, const char *key, double *out, size_t *n,
                   struct gt_error *err)
{
    const json_t *a = json_object_get(root, key);
    if (!json_is_array(a) || json_array_size(a) == 0 || json_array_size(a) > MAX_AXIS)
        return gt_error_set(err, GT_EINPUT, key, "an array of 1 to %d numbers is needed",
                            MAX_AXIS);
    for (size_t i = 0; i < json_array_size(a); i++) {
        if (!json_is_number(json_array_get(a, i)))
            return gt_error_set(err, GT_EINPUT, key, "item %zu is not a number", i);
        out[i] = json_number_value(json_array_get(a, i));
    }
    *n = json_array_size(a);
    return GT_OK;
}

static long find(const double *v, size_t n, double x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return (long)i;
    return -1;
}

static double num_or_nan(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int cell(struct report *r, const json_t *c, size_t i, struct gt_error *err)
{
    char where[48];
    snprintf(where, sizeof where, "cells[%zu]", i);
    const json_t *m = json_object_get(c, "method"), *reg = json_object_get(c, "regime");
    if (!json_is_object(c) || !json_is_string(m) || !json_is_string(reg))
        return gt_error_set(err, GT_EINPUT, where, "an object with method and regime is needed");
    if (strcmp(json_string_value(reg), "all"))
        return GT_OK;
    long w = find(r->windows, r->nw, num_or_nan(c, "window"));
    long t = find(r->taus, r->nt, num_or_nan(c, "tau"));
    long k = -1;
    for (size_t j = 0; j < r->nm; j++)
        if (!strcmp(r->methods[j], json_string_value(m)))
            k = (long)j;
    if (w < 0 || t < 0 || k < 0)
        return gt_error_set(err, GT_EINPUT, where, "window, tau or method is not among the "
                            "report's windows, taus and methods");
    r->rmse[k][w][t] = num_or_nan(c, "rmse_ms");
    r->improvement[k][w][t] = num_or_nan(c, "improvement");
    r->p[k][w][t] = num_or_nan(c, "p");
    double n = num_or_nan(c, "n");
    for (int which = 0; which < 2; which++) {
        const json_t *cal = json_object_get(c, cal_keys[which]);
        bool all = json_is_object(cal) && n > 0;
        for (int q = 0; q < 3 && all; q++)
            all = !isnan(num_or_nan(cal, level_keys[q]));
        for (int q = 0; q < 3 && all; q++)
            r->cal[which][k][q] += n * num_or_nan(cal, level_keys[q]);
        if (all)
            r->cal_n[which][k] += n;
    }
    return GT_OK;
}

static int parse(const json_t *root, struct report *r, struct gt_error *err)
{
    if (!json_is_object(root))
        return gt_error_set(err, GT_EINPUT, NULL, "not a backtest report (a JSON object)");
    int rc = numbers(root, "windows", r->windows, &r->nw, err);
    if (rc || (rc = numbers(root, "taus", r->taus, &r->nt, err)))
        return rc;
    const json_t *m = json_object_get(root, "methods"), *cells = json_object_get(root, "cells");
    if (!json_is_array(m) || json_array_size(m) == 0 || json_array_size(m) > MAX_METHODS)
        return gt_error_set(err, GT_EINPUT, "methods", "an array of 1 to %d names is needed",
                            MAX_METHODS);
    for (size_t i = 0; i < json_array_size(m); i++) {
        if (!json_is_string(json_array_get(m, i)))
            return gt_error_set(err, GT_EINPUT, "methods", "item %zu is not a string", i);
        r->methods[r->nm++] = json_string_value(json_array_get(m, i));
    }
    if (!json_is_array(cells))
        return gt_error_set(err, GT_EINPUT, "cells", "an array is needed");
    for (size_t k = 0; k < MAX_METHODS; k++)
        for (size_t w = 0; w < MAX_AXIS; w++)
            for (size_t t = 0; t < MAX_AXIS; t++)
                r->rmse[k][w][t] = r->improvement[k][w][t] = r->p[k][w][t] = NAN;
    for (size_t i = 0; i < json_array_size(cells); i++)
        if ((rc = cell(r, json_array_get(cells, i), i, err)))
            return rc;
    return GT_OK;
}

/* ------------------------------------------------------------ drawing */

struct panel {
    double x, y;              /* top-left of the cells */
    double cw, ch;            /* a cell's size */
};

static void frame_labels(struct gt_svg *s, const struct report *r, const struct panel *p,
                         const char *title)
{
    gt_svg_text(s, p->x, p->y - 8, "start", NULL, "%s", title);
    for (size_t w = 0; w < r->nw; w++)
        gt_svg_text(s, p->x - 4, p->y + p->ch * ((double)w + 0.5) + 4, "end", "tick", "%g",
                    r->windows[w]);
    for (size_t t = 0; t < r->nt; t++)
        gt_svg_text(s, p->x + p->cw * ((double)t + 0.5), p->y + p->ch * (double)r->nw + 13,
                    "middle", "tick", "%g", r->taus[t]);
    gt_svg_text(s, p->x + p->cw * (double)r->nt / 2, p->y + p->ch * (double)r->nw + 28,
                "middle", "small", "\u03c4 (samples ahead)");
    double cx = p->x - 40, cy = p->y + p->ch * (double)r->nw / 2;
    gt_svg_raw(s, "<g transform=\"rotate(-90 %.1f %.1f)\">", cx, cy);
    gt_svg_text(s, cx, cy, "middle", "small", "window m (samples)");
    gt_svg_raw(s, "</g>\n");
}

static void heatmap(struct gt_svg *s, const struct report *r, const struct panel *p,
                    const char *method, const char *kind, double (*v)[MAX_AXIS],
                    double (*pv)[MAX_AXIS], const struct gt_axis *c,
                    void (*scale)(double, char[8]))
{
    gt_svg_raw(s, "<g class=\"heatmap\" data-kind=\"%s\" data-method=\"", kind);
    gt_svg_escaped(s, method);
    gt_svg_raw(s, "\">\n");
    for (size_t w = 0; w < r->nw; w++)
        for (size_t t = 0; t < r->nt; t++) {
            double x = p->x + p->cw * (double)t, y = p->y + p->ch * (double)w;
            char col[8] = "";
            if (isfinite(v[w][t]))
                scale(gt_axis_frac(c, v[w][t]), col);
            char vt[GT_FMT_DOUBLE_SIZE];
            gt_fmt_double(vt, v[w][t]);
            gt_svg_raw(s, "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                          "height=\"%.2f\"%s%s%s data-window=\"%g\" data-tau=\"%g\" "
                          "data-v=\"%s\"/>\n", col[0] ? "cell" : "missing", x, y, p->cw,
                       p->ch, col[0] ? " fill=\"" : "", col, col[0] ? "\"" : "",
                       r->windows[w], r->taus[t], vt);
            if (pv && pv[w][t] < 0.05)
                gt_svg_raw(s, "<circle class=\"sig\" cx=\"%.2f\" cy=\"%.2f\" r=\"2\"/>\n",
                           x + p->cw / 2, y + p->ch / 2);
        }
    gt_svg_raw(s, "</g>\n");
}

/* One calibration panel: which 0 the model's quantiles, 1 calibrated;
 * false when the report has none of them. */
static bool calibration(struct gt_svg *s, const struct report *r, int which, double x0,
                        double y0)
{
    bool any = false;
    for (size_t k = 0; k < r->nm; k++)
        any = any || r->cal_n[which][k] > 0;
    if (!any)
        return false;
    struct gt_axis x = {.kind = GT_AXIS_LINEAR, .lo = 0.4, .hi = 1, .p0 = x0, .p1 = x0 + 220,
                        .label = "predicted quantile's level"};
    struct gt_axis y = {.kind = GT_AXIS_LINEAR, .hi = 1, .p0 = y0 + 200, .p1 = y0,
                        .label = "outcomes at or below it"};
    gt_svg_text(s, x0, y0 - 8, "start", NULL, which ? "calibrated quantiles (all cells pooled)"
                                                     : "the models' quantiles (all cells pooled)");
    gt_svg_axes(s, &x, &y);
    double d[2] = {0.4, 1};
    gt_svg_line(s, &x, &y, d, d, 2, "diag");
    int row = 0;
    for (size_t k = 0; k < r->nm; k++) {
        if (!(r->cal_n[which][k] > 0))
            continue;
        char cls[4];
        snprintf(cls, sizeof cls, "c%zu", k % 8);
        double ys[3];
        for (int q = 0; q < 3; q++)
            ys[q] = r->cal[which][k][q] / r->cal_n[which][k];
        gt_svg_line(s, &x, &y, levels, ys, 3, cls);
        for (int q = 0; q < 3; q++)
            gt_svg_mark(s, &x, &y, levels[q], ys[q], cls);
        gt_svg_legend(s, x0 + 10, y0 + 4, row++, cls, "%s", r->methods[k]);
    }
    return true;
}

static double rmse_range(const struct report *r, double *hi)
{
    double lo = INFINITY;
    *hi = -INFINITY;
    for (size_t k = 0; k < r->nm; k++)
        for (size_t w = 0; w < r->nw; w++)
            for (size_t t = 0; t < r->nt; t++)
                if (r->rmse[k][w][t] > 0 && isfinite(r->rmse[k][w][t]))
                    lo = fmin(lo, r->rmse[k][w][t]), *hi = fmax(*hi, r->rmse[k][w][t]);
    return lo;
}

static double improvement_limit(struct report *r)
{
    double m = 0;
    for (size_t k = 0; k < r->nm; k++)
        for (size_t w = 0; w < r->nw; w++)
            for (size_t t = 0; t < r->nt; t++) {
                double v = 100 * r->improvement[k][w][t];
                r->improvement[k][w][t] = v;
                if (isfinite(v))
                    m = fmax(m, fabs(v));
            }
    /* beyond +-50 % the colour saturates: a method 10x worse than normal
       would otherwise wash out every difference that matters */
    return m > 50 ? 50 : m > 0 ? m : 1;
}

static int draw(struct report *r, struct gt_buf *out)
{
    struct panel p = {0, 0, fmin(24, 230.0 / (double)r->nt), fmin(18, 200.0 / (double)r->nw)};
    double bar = fmax(p.ch * (double)r->nw, 140);   /* a colour bar's height */
    double pw = 100 + p.cw * (double)r->nt + 30, ph = 40 + bar + 50;
    size_t others = 0, cols = r->nm < PER_ROW ? r->nm : PER_ROW;
    for (size_t k = 0; k < r->nm; k++)
        others += strcmp(r->methods[k], "normal") != 0;
    bool has_normal = others < r->nm;
    size_t rows1 = (r->nm + PER_ROW - 1) / PER_ROW;
    size_t rows2 = has_normal ? (others + PER_ROW - 1) / PER_ROW : 0;
    double w = 20 + pw * (double)cols + 120, h = 50 + ph * (double)(rows1 + rows2) + 290;
    struct gt_svg s;
    gt_svg_begin(&s, out, fmax(w, 680), h, "Backtest: how well each method's E[max] held");
    double hi, lo = rmse_range(r, &hi);
    struct gt_axis rc = {.kind = GT_AXIS_LOG, .label = "RMSE (ms)"};
    gt_axis_extend(&rc, isfinite(lo) ? lo : 1, isfinite(hi) ? hi : 10, false);
    double y = 50;
    for (size_t k = 0; k < r->nm; k++) {
        p.x = 20 + 80 + pw * (double)(k % PER_ROW);
        p.y = y + 30 + ph * (double)(k / PER_ROW);
        char title[80];
        snprintf(title, sizeof title, "%s: RMSE", r->methods[k]);
        frame_labels(&s, r, &p, title);
        heatmap(&s, r, &p, r->methods[k], "rmse", r->rmse[k], NULL, &rc, gt_svg_sequential);
    }
    gt_svg_colorbar(&s, &rc, 20 + pw * (double)cols, y + 30 + bar, y + 30, gt_svg_sequential);
    y += ph * (double)rows1;
    if (has_normal) {
        double lim = improvement_limit(r);
        struct gt_axis ic = {.kind = GT_AXIS_LINEAR, .lo = -lim, .hi = lim,
                            .label = "RMSE below normal's (%)"};
        size_t j = 0;
        for (size_t k = 0; k < r->nm; k++) {
            if (!strcmp(r->methods[k], "normal"))
                continue;
            p.x = 20 + 80 + pw * (double)(j % PER_ROW);
            p.y = y + 30 + ph * (double)(j / PER_ROW);
            char title[96];
            snprintf(title, sizeof title, "%s against normal", r->methods[k]);
            frame_labels(&s, r, &p, title);
            heatmap(&s, r, &p, r->methods[k], "improvement", r->improvement[k], r->p[k], &ic,
                    gt_svg_diverging);
            j++;
        }
        gt_svg_colorbar(&s, &ic, 20 + pw * (double)cols, y + 30 + bar, y + 30, gt_svg_diverging);
        gt_svg_text(&s, 20 + pw * (double)cols, y + 30 + bar + 20, "start", "small",
                    "\u25cf p < 0.05");
        y += ph * (double)rows2;
    }
    calibration(&s, r, 0, 90, y + 30);
    calibration(&s, r, 1, 400, y + 30);
    return gt_svg_end(&s);
}

int gt_plot_backtest(const json_t *report, struct gt_buf *out, struct gt_error *err)
{
    struct report *r = calloc(1, sizeof *r);
    if (!r)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    int rc = parse(report, r, err);
    if (rc == GT_OK && (rc = draw(r, out)))
        gt_error_set(err, rc, NULL, rc == GT_ETOOBIG ? "the plot is larger than its limit"
                                                     : "out of memory");
    free(r);
    return rc;
}
