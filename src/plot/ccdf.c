/*
 * ccdf.c - `plot ccdf`: one pair's window as the empirical complementary
 * CDF on log-log axes, where a Pareto tail is a straight line and a
 * normal one falls off a cliff, with both fits drawn over the data, each
 * with its verdict, and the model the advisor actually uses for the pair
 * named and drawn bold: the advisor is asked (one estimate of src -> dst),
 * not second-guessed, so the plot cannot call a fit "selected" that the
 * advisor has set aside.
 */
#include "plot.h"
#include "svg.h"
#include "advisor/advice.h"
#include "db/query.h"
#include "estimators/fit.h"
#include "estimators/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CURVE_POINTS 240

struct window {
    int64_t *ts;
    double *rtt;          /* the stored window, NAN = lost */
    size_t n, lost;
    double *xs;           /* the fitted values, ascending */
    size_t m;
    struct gt_fit fit;
    struct gt_verdict_limits verdict;   /* the advisor's */
    bool used_ok;         /* the advisor can use the pair: */
    char used[24];        /* with this model ("pareto", ..., "empirical") */
    bool fallback;        /* the samples, as both fits are flagged */
    bool other_fit;       /* the other fit, as the smaller index's is */
    char why[200];        /* !used_ok: why not */
};

static void window_free(struct window *w)
{
    free(w->ts);
    free(w->rtt);
    free(w->xs);
}

static int window_read(struct gt_db *db, const struct gt_plot_pair_opts *o, struct window *w,
                       struct gt_error *err)
{
    struct gt_prior prior = {0};
    int rc = gt_query_series(db, o->src, o->dst, o->at, o->window, &w->ts, &w->rtt, &w->n,
                             &prior, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < w->n; i++)
        w->lost += isnan(w->rtt[i]);
    if (!(w->xs = malloc((w->n ? w->n : 1) * sizeof *w->xs)))
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    double pr = prior.found ? prior.rtt : NAN;
    w->m = gt_fit_window_values(w->rtt, w->n, pr, w->xs);
    if (w->m < 2)
        return gt_error_set(err, GT_EINPUT, NULL, "%s -> %s: fewer than two answered samples "
                            "at or before the time asked", o->src, o->dst);
    return gt_fit_series(w->rtt, w->ts, w->n, pr, prior.ts, GT_FIT_AUTO, &w->fit, err);
}

/* What the advisor makes of the pair at the same window and time: the
 * model its estimate of the one-partner collective src -> dst uses. */
static void advisor_use(struct gt_db *db, const struct gt_plot_pair_opts *o, struct window *w)
{
    struct gt_config defaults;
    const struct gt_config *cfg = o->cfg;
    if (!cfg) {
        gt_config_defaults(&defaults);
        cfg = &defaults;
    }
    struct gt_advice ad;
    gt_advice_defaults(&ad, cfg, o->at);
    ad.o.window = o->window;
    ad.o.detail = GT_ADV_PARTNERS;
    ad.o.threads = 1;
    w->verdict = ad.o.verdict;
    struct gt_advisor *a = gt_advisor_new(db, &ad.o);
    struct gt_site_req partner = {(char *)o->dst, 1};
    struct gt_estimate e = {0};
    struct gt_error err = {0};
    if (!a) {
        snprintf(w->why, sizeof w->why, "out of memory");
    } else if (gt_advisor_estimate(a, o->src, &partner, 1, &e, &err) == GT_OK && e.n == 1) {
        w->used_ok = true;
        snprintf(w->used, sizeof w->used, "%s", e.partners[0].model);
        w->fallback = e.partners[0].fallback;
        w->other_fit = e.partners[0].other_fit;
    } else {
        snprintf(w->why, sizeof w->why, "%.190s", err.msg[0] ? err.msg : e.reason);
    }
    gt_estimate_clear(&e);
    gt_advisor_free(a);
}

static double ccdf_of(const struct gt_dist *d, double x)
{
    return 1 - gt_dist_cdf(d, x);
}

/* the model's CCDF over the x axis, drawn in class cls */
static void curve(struct gt_svg *s, const struct gt_axis *x, const struct gt_axis *y,
                  const struct gt_dist *d, const char *cls)
{
    double xs[CURVE_POINTS], ys[CURVE_POINTS];
    double l0 = log10(x->lo), l1 = log10(x->hi);
    for (int i = 0; i < CURVE_POINTS; i++) {
        xs[i] = pow(10, l0 + (l1 - l0) * i / (CURVE_POINTS - 1));
        ys[i] = ccdf_of(d, xs[i]);
        if (!(ys[i] >= y->lo / 10))
            ys[i] = NAN;   /* below the axis: the curve leaves the plot */
    }
    gt_svg_line(s, x, y, xs, ys, CURVE_POINTS, cls);
}

/* a fit's verdict flags that make the advisor distrust it (fit.h) */
static unsigned misfit_flags(const struct gt_model *m, const struct gt_model_fit *f,
                             const struct window *w)
{
    return gt_verdict_flags(m, f->p, f->ks, f->chi2, &w->fit.bounds, &w->verdict) &
           GT_VERDICT_MISFIT;
}

/* one model's legend line: its two parameters, fit index and KS, whether
 * the advisor uses it or the fit chose it (the smaller index), and its
 * flags; or why it was not fitted */
static void model_legend(struct gt_svg *s, double x, double y, int row, const char *cls,
                         const char *p0, const char *p1, const struct gt_model *model,
                         const struct gt_model_fit *m, const struct window *w)
{
    const char *name = model == &gt_model_pareto ? "Pareto" : "normal";
    if (!m->ok) {
        gt_svg_legend(s, x, y, row, cls, "%s: %s", name, m->why);
        return;
    }
    bool used = w->used_ok && !strcmp(w->used, model->name);
    bool chosen = w->fit.selected == model;
    unsigned f = misfit_flags(model, m, w);
    char line_cls[32], tags[96], what[64];
    gt_verdict_short(f, what, sizeof what);
    snprintf(line_cls, sizeof line_cls, "%s%s", cls, used ? " selected" : "");
    snprintf(tags, sizeof tags, "%s%s%s", used ? "selected" : chosen ? "smaller index" : "",
             (used || chosen) && f ? "; flagged: " : f ? "flagged: " : "", what);
    gt_svg_legend(s, x, y, row, line_cls,
                  "%s = %.4g ms, %s = %.3g, \u03bb\u00b2 = %.3g, KS = %.3f%s%s%s", p0, m->p[0], p1,
                  m->p[1], m->chi2, m->ks, tags[0] ? " (" : "", tags, tags[0] ? ")" : "");
}

/* the legend's last line: the model the advisor uses for the pair */
static void used_legend(struct gt_svg *s, double x, double y, int row, const struct window *w)
{
    if (!w->used_ok)
        gt_svg_legend(s, x, y, row, "none", "used: none, the advisor leaves the pair out: %s",
                      w->why);
    else if (w->fallback)
        gt_svg_legend(s, x, y, row, "data", "used: the window's samples (empirical): both fits "
                      "would change the answer (quantiles more than %g%% off the window's, mass "
                      "below 0 ms or no finite index)", 100 * w->verdict.margin);
    else if (w->other_fit)
        gt_svg_legend(s, x, y, row, w->used, "used: %s, the other fit: the smaller index's "
                      "would change the answer", w->used);
    else if (!strcmp(w->used, "delta"))
        gt_svg_legend(s, x, y, row, "data", "used: a point mass (delta)");
    else
        gt_svg_legend(s, x, y, row, w->used, "used: %s, the selected fit", w->used);
}

/* the legend's rows: below the plot, where it covers no data */
static int legend_rows(const struct window *w)
{
    return w->fit.degenerate ? 3 : 4 + (w->lost > 0);
}

static void legend(struct gt_svg *s, const struct window *w, const struct gt_plot_pair_opts *o,
                   double x, double y, double width)
{
    const struct gt_fit *f = &w->fit;
    bool par = f->selected == &gt_model_pareto;
    int row = 0;
    gt_svg_raw(s, "<rect class=\"legendbox\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                  "height=\"%d\"/>\n", x - 6, y, width, 17 * legend_rows(w) + 8);
    gt_svg_legend(s, x, y, row++, "data", "data, the empirical model: %zu samples, %zu lost",
                  w->m, w->lost);
    if (f->degenerate) {
        gt_svg_legend(s, x, y, row++, "data", "every sample equal: a point mass at %g ms",
                      f->p[0]);
    } else {
        model_legend(s, x, y, row++, "pareto", "Pareto k", "\u03b1", &gt_model_pareto,
                     &f->pareto, w);
        model_legend(s, x, y, row++, "normal", "normal \u03bc", "\u03c3", &gt_model_normal,
                     &f->normal, w);
        if (w->lost)
            gt_svg_legend(s, x, y, row++, par ? "pareto loss" : "normal loss",
                          "%s with loss %.3g %% (retry after %g ms)", par ? "Pareto" : "normal",
                          100.0 * (double)w->lost / (double)w->n, o->rto_ms);
    }
    used_legend(s, x, y, row, w);
}

static int draw(const struct window *w, const struct gt_plot_pair_opts *o, struct gt_buf *out)
{
    char title[300];
    snprintf(title, sizeof title, "%s \u2192 %s: the tail of the last %zu samples", o->src,
             o->dst, w->m);
    struct gt_svg s;
    gt_svg_begin(&s, out, 760, 480 + 17 * legend_rows(w) + 14, title);
    struct gt_axis x = {.kind = GT_AXIS_LOG, .p0 = 80, .p1 = 730, .label = "RTT x (ms)"};
    struct gt_axis y = {.kind = GT_AXIS_LOG, .p0 = 420, .p1 = 40, .label = "P(RTT \u2265 x)"};
    /* with loss, far enough right to show where the retried probes land */
    double right = w->xs[w->m - 1] + (w->lost && !w->fit.degenerate ? o->rto_ms : 0);
    gt_axis_extend(&x, w->xs[0], right, false);
    gt_axis_extend(&y, 1.0 / (double)w->m, 1, false);
    gt_svg_axes(&s, &x, &y);
    const struct gt_fit *f = &w->fit;
    if (!f->degenerate) {
        /* bold: the model the advisor uses (neither when it takes the samples) */
        bool up = w->used_ok && !strcmp(w->used, "pareto");
        bool un = w->used_ok && !strcmp(w->used, "normal");
        const char *pc = up ? "pareto selected" : "pareto";
        const char *nc = un ? "normal selected" : "normal";
        struct gt_dist dp = {&gt_model_pareto, {f->pareto.p[0], f->pareto.p[1]}, 0, 0, 0, 0, 0};
        struct gt_dist dn = {&gt_model_normal, {f->normal.p[0], f->normal.p[1]}, 0, 0, 0, 0, 0};
        if (f->pareto.ok)
            curve(&s, &x, &y, &dp, pc);
        if (f->normal.ok)
            curve(&s, &x, &y, &dn, nc);
        if (w->lost && f->selected && (f->selected == &gt_model_pareto ? f->pareto.ok : f->normal.ok)) {
            struct gt_dist dl = f->selected == &gt_model_pareto ? dp : dn;
            dl.loss_p = fmin((double)w->lost / (double)w->n, 0.99);
            dl.rto_ms = o->rto_ms;
            curve(&s, &x, &y, &dl, f->selected == &gt_model_pareto ? "pareto loss" : "normal loss");
        }
    }
    /* P(RTT >= x_(i)) = (m - i) / m for the i-th smallest (0-based) */
    gt_svg_raw(&s, "<g class=\"points\">\n");
    for (size_t i = 0; i < w->m; i++)
        gt_svg_mark(&s, &x, &y, w->xs[i], (double)(w->m - i) / (double)w->m, "data");
    gt_svg_raw(&s, "</g>\n");
    legend(&s, w, o, x.p0 - 54, 478, x.p1 - x.p0 + 60);
    return gt_svg_end(&s);
}

int gt_plot_ccdf(struct gt_db *db, const struct gt_plot_pair_opts *o, struct gt_buf *out,
                 struct gt_error *err)
{
    struct window w = {0};
    int rc = window_read(db, o, &w, err);
    if (rc == GT_OK)
        advisor_use(db, o, &w);
    if (rc == GT_OK && (rc = draw(&w, o, out)))
        gt_error_set(err, rc, NULL, rc == GT_ETOOBIG ? "the plot is larger than its limit"
                                                     : "out of memory");
    window_free(&w);
    return rc;
}
