/*
 * series.c - `plot series`: one pair's history SmokePing-style.  Time is
 * cut into bins; each bin shows its median RTT as a line and its 25-75 %
 * and 10-90 % ranges as bands ("smoke"), its loss as a red bar on a strip
 * above the plot; level shifts as dashed vertical lines, where the
 * offline segmentation of the plotted samples (estimators/segment.h) cuts
 * them: the whole period is there, so the plot shows the changes a
 * person would mark rather than those the online detector raised as the
 * samples came; the pair's other events (advisor/events.h, as `gridtail
 * events` lists them): outages and silences as spans, fit regime
 * changes as triangles; the advisor's current fit window is shaded.
 */
#include "plot.h"
#include "svg.h"
#include "db/query.h"
#include "advisor/events.h"
#include "estimators/segment.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct samples {
    int64_t *ts;
    double *rtt;              /* NAN = lost */
    size_t n, cap;
    struct gt_event *ev;      /* the series' events */
    size_t nev, nshifts;
};

struct bin {
    double t;                 /* the bin's middle */
    double q10, q25, q50, q75, q90;   /* NAN when no answered sample */
    size_t total, lost;
};

static int collect(void *ctx, int64_t ts, const char *src, const char *dst, int64_t seq,
                   double rtt_ms)
{
    (void)src, (void)dst, (void)seq;
    struct samples *s = ctx;
    if (s->n == GT_PLOT_MAX_SAMPLES)
        return GT_ETOOBIG;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4096;
        int64_t *t = realloc(s->ts, cap * sizeof *t);
        if (t)
            s->ts = t;
        double *r = t ? realloc(s->rtt, cap * sizeof *r) : NULL;
        if (!r)
            return GT_ENOMEM;
        s->rtt = r;
        s->cap = cap;
    }
    s->ts[s->n] = ts;
    s->rtt[s->n++] = rtt_ms;
    return 0;
}

/* the period asked: without --to the pair's newest sample ends it, and
 * without --from it is the day before its end */
static int period(struct gt_db *db, const struct gt_plot_series_opts *o, int64_t *from,
                  int64_t *to, struct gt_error *err)
{
    *to = o->to;
    *from = o->from ? o->from : o->to - 86400;
    if (o->to) {
        if (!(*to > *from))
            return gt_error_set(err, GT_EUSAGE, "--to", "must be after --from");
        return GT_OK;
    }
    struct gt_pair_filter f = {o->src, o->dst};
    struct gt_pair_row *rows;
    size_t n;
    int rc = gt_query_pairs(db, &f, &rows, &n, err);
    if (rc)
        return rc;
    if (n == 0)
        rc = gt_error_set(err, GT_ENOTFOUND, NULL, "no pair %s -> %s in the store", o->src,
                          o->dst);
    else
        *to = rows[0].last_ts, *from = o->from ? o->from : rows[0].last_ts - 86400;
    gt_pairs_free(rows, n);
    if (rc == GT_OK && !(*to > *from))
        rc = gt_error_set(err, GT_EUSAGE, "--from", "must be before the pair's newest sample");
    return rc;
}

static int read_samples(struct gt_db *db, const struct gt_plot_series_opts *o, int64_t from,
                        int64_t to, struct samples *s, struct gt_error *err)
{
    struct gt_export_filter f = {o->src, o->dst, from, to + 1, true, true};
    int rc = gt_query_export(db, &f, collect, s, err);
    if (rc == GT_ETOOBIG)
        return gt_error_set(err, rc, NULL, "more than %d samples in the period: a shorter one "
                            "(--from, --to)", GT_PLOT_MAX_SAMPLES);
    if (rc == GT_ENOMEM)
        return gt_error_set(err, rc, NULL, "out of memory");
    if (rc == GT_OK && s->n == 0)
        rc = gt_error_set(err, GT_ENOTFOUND, NULL, "no samples of %s -> %s in the period",
                          o->src, o->dst);
    return rc;
}

static int make_bins(const struct samples *s, int64_t from, int64_t to, size_t nb,
                     struct bin *b)
{
    double width = (double)(to - from) / (double)nb;
    double *v = malloc(s->n * sizeof *v);
    if (!v)
        return GT_ENOMEM;
    size_t i = 0;
    for (size_t k = 0; k < nb; k++) {
        b[k] = (struct bin){from + width * ((double)k + 0.5), NAN, NAN, NAN, NAN, NAN, 0, 0};
        size_t nv = 0;
        for (; i < s->n && (k + 1 == nb || (double)(s->ts[i] - from) < width * (double)(k + 1)); i++) {
            b[k].total++;
            if (isnan(s->rtt[i]))
                b[k].lost++;
            else
                v[nv++] = s->rtt[i];
        }
        if (!nv)
            continue;
        qsort(v, nv, sizeof *v, gt_cmp_double);
        b[k].q10 = gt_quantile_sorted(v, nv, 0.1);
        b[k].q25 = gt_quantile_sorted(v, nv, 0.25);
        b[k].q50 = gt_quantile_sorted(v, nv, 0.5);
        b[k].q75 = gt_quantile_sorted(v, nv, 0.75);
        b[k].q90 = gt_quantile_sorted(v, nv, 0.9);
    }
    free(v);
    return GT_OK;
}

/* The events of the samples but their shifts, and the segmentation's
 * changes as shifts instead. */
static int find_events(struct samples *s, const struct gt_plot_series_opts *o, int64_t to)
{
    int rc = gt_events_of_series(s->ts, s->rtt, s->n, to, o->events, &s->ev, &s->nev);
    size_t keep = 0, nat = 0, *at = rc == GT_OK ? malloc((s->n + 1) * sizeof *at) : NULL;
    if (rc == GT_OK && (!at || (rc = gt_segment(s->rtt, s->n, NULL, at, &nat)) != GT_OK)) {
        free(at);
        return GT_ENOMEM;
    }
    for (size_t i = 0; i < s->nev; i++)
        if (s->ev[i].kind != GT_EV_SHIFT)
            s->ev[keep++] = s->ev[i];
    struct gt_event *ev = realloc(s->ev, (keep + nat + 1) * sizeof *ev);
    if (!ev) {
        free(at);
        return GT_ENOMEM;
    }
    s->ev = ev;
    s->nev = keep;
    for (size_t j = 0; j < nat; j++)
        s->ev[s->nev++] = (struct gt_event){s->ts[at[j]], GT_EV_SHIFT, INT64_MIN, 0, NAN, NAN};
    s->nshifts = nat;
    free(at);
    return rc;
}

/* The fit regime changes refit stored for the pair in [from, to]: the
 * events a pair's samples do not show by themselves. */
static int add_regimes(struct gt_db *db, const struct gt_plot_series_opts *o, int64_t from,
                       int64_t to, struct samples *s, struct gt_error *err)
{
    struct gt_pair_event *v = NULL;
    size_t n = 0;
    int rc = gt_events_query(db, o->src, o->dst, from, to + 1, GT_EV_REGIME, o->events, &v, &n,
                             err);
    struct gt_event *ev = rc == GT_OK && n ? realloc(s->ev, (s->nev + n) * sizeof *ev) : NULL;
    if (rc == GT_OK && n && !ev)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; ev && i < n; i++)
        ev[s->nev++] = v[i].ev;
    if (ev)
        s->ev = ev;
    gt_pair_events_free(v, n);
    return rc;
}

static void draw_marks(struct gt_svg *sv, const struct gt_axis *x, const struct gt_axis *y,
                       const struct samples *s, size_t window)
{
    size_t first = s->n > window ? s->n - window : 0;
    double a = gt_axis_px(x, (double)s->ts[first]), b = gt_axis_px(x, (double)s->ts[s->n - 1]);
    gt_svg_raw(sv, "<rect class=\"window\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                   "data-from=\"%lld\" data-to=\"%lld\"/>\n", a, y->p1, b - a > 1 ? b - a : 1,
               y->p0 - y->p1, (long long)s->ts[first], (long long)s->ts[s->n - 1]);
    for (size_t i = 0; i < s->nev; i++) {
        const struct gt_event *e = &s->ev[i];
        double p = gt_axis_px(x, (double)e->ts);
        if (e->kind == GT_EV_SHIFT) {
            gt_svg_raw(sv, "<path class=\"shift\" data-t=\"%lld\" d=\"M%.2f %.2f V%.2f\"/>\n",
                       (long long)e->ts, p, y->p0, y->p1);
        } else if (e->kind == GT_EV_REGIME) {   /* a small triangle on the top edge */
            char detail[160];
            gt_event_detail(e, detail, sizeof detail);
            gt_svg_raw(sv, "<path class=\"fit_regime\" data-t=\"%lld\" d=\"M%.2f %.2f l-5 -8 "
                           "h10 z\">", (long long)e->ts, p, y->p1 + 8);
            gt_svg_raw(sv, "<title>fit regime: ");
            gt_svg_escaped(sv, detail);
            gt_svg_raw(sv, "</title></path>\n");
        } else if (e->kind == GT_EV_OUTAGE || e->kind == GT_EV_SILENT) {
            int64_t end = e->until != INT64_MIN ? e->until : s->ts[s->n - 1];
            double q = fmin(gt_axis_px(x, (double)end), x->p1);
            gt_svg_raw(sv, "<rect class=\"%s\" data-from=\"%lld\" data-to=\"%lld\" x=\"%.2f\" "
                           "y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>\n",
                       e->kind == GT_EV_OUTAGE ? "outage" : "silent", (long long)e->ts,
                       (long long)end, p, y->p1, fmax(q - p, 1), y->p0 - y->p1);
        }
    }
}

static void draw_loss(struct gt_svg *sv, const struct gt_axis *x, const struct bin *b,
                      size_t nb, double top, double h)
{
    double w = (x->p1 - x->p0) / (double)nb;
    gt_svg_raw(sv, "<rect class=\"frame\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>\n",
               x->p0, top, x->p1 - x->p0, h);
    gt_svg_text(sv, x->p0 - 8, top + h - 3, "end", "tick", "loss");
    for (size_t k = 0; k < nb; k++) {
        if (!b[k].lost)
            continue;
        double share = (double)b[k].lost / (double)b[k].total;
        gt_svg_raw(sv, "<rect class=\"lossbar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                       "height=\"%.2f\" data-t=\"%.0f\" data-loss=\"%.6g\"/>\n",
                   gt_axis_px(x, b[k].t) - w / 2, top + h * (1 - share), w, h * share, b[k].t,
                   share);
    }
}

/* The y axis from the plotted values lo..hi (the bins' 10 % and 90 %
 * points): log when asked, or when hi / lo exceeds GT_PLOT_LOG_RATIO, as
 * a single spike would otherwise squash the rest of the day into the
 * bottom tenth of the plot; the label says which and why. */
static void y_scale(bool log_y, double lo, double hi, struct gt_axis *y, char *label,
                    size_t size)
{
    bool wide = lo > 0 && hi / lo > GT_PLOT_LOG_RATIO;
    y->kind = log_y || wide ? GT_AXIS_LOG : GT_AXIS_LINEAR;
    if (log_y)
        snprintf(label, size, "RTT (ms), log scale");
    else if (wide)
        snprintf(label, size, "RTT (ms), log scale: max/min %.3g > %g", hi / lo,
                 GT_PLOT_LOG_RATIO);
    else
        snprintf(label, size, "RTT (ms)");
    y->label = label;
}

static int draw(const struct gt_plot_series_opts *o, const struct samples *s,
                const struct bin *b, size_t nb, int64_t from, int64_t to, struct gt_buf *out)
{
    char title[300];
    snprintf(title, sizeof title, "%s \u2192 %s: RTT over time", o->src, o->dst);
    struct gt_svg sv;
    gt_svg_begin(&sv, out, 900, 470, title);
    struct gt_axis x = {.kind = GT_AXIS_TIME, .p0 = 80, .p1 = 870, .label = "time (UTC)"};
    struct gt_axis y = {.kind = GT_AXIS_LINEAR, .p0 = 410, .p1 = 76, .label = "RTT (ms)"};
    gt_axis_extend(&x, (double)from, (double)to, false);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < nb; k++)
        if (!isnan(b[k].q50))
            lo = fmin(lo, b[k].q10), hi = fmax(hi, b[k].q90);
    char ylabel[80];
    y_scale(o->log_y, lo, hi, &y, ylabel, sizeof ylabel);
    gt_axis_extend(&y, lo, hi, true);
    draw_loss(&sv, &x, b, nb, 44, 22);
    gt_svg_axes(&sv, &x, &y);
    double *t = malloc(nb * 6 * sizeof *t);
    if (!t)
        return GT_ENOMEM;
    double *q10 = t + nb, *q25 = t + 2 * nb, *q50 = t + 3 * nb, *q75 = t + 4 * nb,
           *q90 = t + 5 * nb;
    for (size_t k = 0; k < nb; k++) {
        t[k] = b[k].t, q10[k] = b[k].q10, q25[k] = b[k].q25, q50[k] = b[k].q50;
        q75[k] = b[k].q75, q90[k] = b[k].q90;
    }
    draw_marks(&sv, &x, &y, s, o->window);
    gt_svg_band(&sv, &x, &y, t, q10, q90, nb, "band2");
    gt_svg_band(&sv, &x, &y, t, q25, q75, nb, "band1");
    gt_svg_line(&sv, &x, &y, t, q50, nb, "median");
    gt_svg_raw(&sv, "<g class=\"points\">\n");
    for (size_t k = 0; k < nb; k++)
        gt_svg_mark(&sv, &x, &y, t[k], q50[k], "bin");
    gt_svg_raw(&sv, "</g>\n");
    free(t);
    double lx = x.p1 - 250, ly = y.p1 + 6;
    gt_svg_raw(&sv, "<rect class=\"legendbox\" x=\"%.1f\" y=\"%.1f\" width=\"244\" "
                    "height=\"94\"/>\n", lx - 6, ly);
    gt_svg_legend(&sv, lx, ly, 0, "median", "median of %.0f s bins",
                  (double)(to - from) / (double)nb);
    gt_svg_raw(&sv, "<rect class=\"band1\" x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"8\"/>"
                    "<rect class=\"band2\" x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"8\"/>\n",
               lx, ly + 23, lx, ly + 40);
    gt_svg_text(&sv, lx + 28, ly + 31, "start", "small", "25\u201375 %% of each bin");
    gt_svg_text(&sv, lx + 28, ly + 48, "start", "small", "10\u201390 %% of each bin");
    gt_svg_legend(&sv, lx, ly, 3, "shift", "level shift (%zu)", s->nshifts);
    gt_svg_raw(&sv, "<rect class=\"window\" x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"10\"/>\n",
               lx, ly + 74);
    gt_svg_text(&sv, lx + 28, ly + 82, "start", "small", "fit window (%zu samples)", o->window);
    return gt_svg_end(&sv);
}

int gt_plot_series(struct gt_db *db, const struct gt_plot_series_opts *o, struct gt_buf *out,
                   struct gt_error *err)
{
    int64_t from, to;
    struct samples s = {0};
    struct bin *b = NULL;
    if (o->bins < 1 || o->bins > GT_PLOT_MAX_BINS)
        return gt_error_set(err, GT_EUSAGE, "--bins", "must be 1 to %d", GT_PLOT_MAX_BINS);
    int rc = period(db, o, &from, &to, err);
    if (rc == GT_OK)
        rc = read_samples(db, o, from, to, &s, err);
    if (rc == GT_OK && (!(b = malloc(o->bins * sizeof *b)) || make_bins(&s, from, to, o->bins, b) ||
                        find_events(&s, o, to)))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK && s.n)
        rc = add_regimes(db, o, from, to, &s, err);
    if (rc == GT_OK && (rc = draw(o, &s, b, o->bins, from, to, out)))
        gt_error_set(err, rc, NULL, rc == GT_ETOOBIG ? "the plot is larger than its limit"
                                                     : "out of memory");
    free(b);
    free(s.ts);
    free(s.rtt);
    free(s.ev);
    return rc;
}
