/*
 * matrix.c - `plot matrix`: every stored pair as a cell of a source x
 * destination heatmap, coloured by the median or p99 RTT or the loss of
 * its newest samples (a day's worth at one a minute by default), or the
 * Pareto alpha of its newest window.  Sites are seriated so that
 * clusters show: the order is the shortest open path through the sites
 * found by nearest-neighbour chains (from every start) improved by 2-opt,
 * with the distance of two sites the mean of their two medians.  Metric
 * status colours each pair MaDDash style by its status against the
 * thresholds (advisor/status.h), its numbers and reasons on hover.
 */
#define _DEFAULT_SOURCE
#include "plot.h"
#include "svg.h"
#include "base/numfmt.h"
#include "db/query.h"
#include "advisor/status.h"
#include "estimators/fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct grid {
    size_t n;
    char **name;              /* owned */
    double *v;                /* n x n metric, NAN = no pair */
    double *med;              /* n x n median RTT, for the order */
    size_t *order;
    bool *hl;
    char **why;               /* status: n x n hover texts, malloc'd (NULL: none) */
};

struct pair_id {
    int64_t src, dst;
    long a, b;                /* their grid indices */
};

struct pair_list {
    struct grid *g;
    struct pair_id *v;
    size_t n, cap;
    bool too_many;
};

bool gt_plot_metric_parse(const char *s, enum gt_plot_metric *m)
{
    static const char *const names[] = {"median", "p99", "loss", "alpha", "status"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i])) {
            *m = (enum gt_plot_metric)i;
            return true;
        }
    return false;
}

static const char *metric_label(enum gt_plot_metric m)
{
    static const char *const labels[] = {"median RTT (ms)", "p99 RTT (ms)", "loss (%)",
                                         "Pareto \u03b1", "status"};
    return labels[m];
}

static long site_index(const struct grid *g, const char *name)
{
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp(g->name[i], name))
            return (long)i;
    return -1;
}

static long add_site(struct grid *g, const char *name)
{
    long i = site_index(g, name);
    if (i >= 0 || g->n == GT_PLOT_MAX_SITES)
        return i;
    if (!(g->name[g->n] = strdup(name)))
        return -1;
    return (long)g->n++;
}

static int collect_pair(void *ctx, int64_t src, const char *src_name, int64_t dst,
                        const char *dst_name)
{
    struct pair_list *l = ctx;
    long a = add_site(l->g, src_name), b = add_site(l->g, dst_name);
    if (a < 0 || b < 0) {
        l->too_many = true;
        return 1;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        struct pair_id *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        l->v = v, l->cap = cap;
    }
    l->v[l->n++] = (struct pair_id){src, dst, a, b};
    return 0;
}

/* The metric and the median of one pair's newest samples (rtt[0..n),
 * oldest first, NAN = lost); sorted is scratch of n. */
static void pair_metric(const struct gt_plot_matrix_opts *o, const int64_t *ts,
                        const double *rtt, size_t n, double *sorted, double *metric,
                        double *median)
{
    size_t valid = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(rtt[i]))
            sorted[valid++] = rtt[i];
    qsort(sorted, valid, sizeof *sorted, gt_cmp_double);
    *median = valid ? gt_quantile_sorted(sorted, valid, 0.5) : NAN;
    *metric = NAN;
    switch (o->metric) {
    case GT_PLOT_MEDIAN: *metric = *median; break;
    case GT_PLOT_P99: *metric = valid ? gt_quantile_sorted(sorted, valid, 0.99) : NAN; break;
    case GT_PLOT_LOSS: *metric = n ? 100.0 * (double)(n - valid) / (double)n : NAN; break;
    case GT_PLOT_ALPHA: {
        size_t w = n < o->window ? n : o->window;
        struct gt_fit f;
        struct gt_error err = {0};
        if (w && gt_fit_series(rtt + n - w, ts + n - w, w, NAN, 0, GT_FIT_PARETO, &f, &err) ==
                     GT_OK && f.pareto.ok)
            *metric = f.pareto.p[1];
        break;
    }
    case GT_PLOT_STATUS: break;   /* status_cells */
    }
}

/* metric status: each pair's state, its code as the cell's value and its
 * numbers and reasons as the cell's hover text */
static int status_cells(struct gt_db *db, const struct gt_plot_matrix_opts *o, struct grid *g,
                        struct gt_error *err)
{
    struct gt_pair_state *v;
    size_t n;
    if (!o->thresholds)
        return gt_error_set(err, GT_EUSAGE, NULL, "metric status needs the thresholds");
    if (!(g->why = calloc(g->n * g->n, sizeof *g->why)))
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    int rc = gt_pair_states(db, o->thresholds, o->at, NULL, NULL, &v, &n, err);
    if (rc)
        return rc;
    for (size_t i = 0; rc == GT_OK && i < n; i++) {
        long a = site_index(g, v[i].src), b = site_index(g, v[i].dst);
        if (a < 0 || b < 0)
            continue;
        size_t k = (size_t)a * g->n + (size_t)b;
        char text[600], med[32], p99[32];
        gt_svg_num(v[i].median_ms, med, sizeof med);
        gt_svg_num(v[i].p99_ms, p99, sizeof p99);
        int len = snprintf(text, sizeof text, "%s (median %s ms, p99 %s ms, loss %.2f %%)",
                           gt_status_name(v[i].status), med, p99, 100 * v[i].loss);
        for (size_t r = 0; r < v[i].nreasons && len > 0 && (size_t)len < sizeof text; r++)
            len += snprintf(text + len, sizeof text - (size_t)len, "%s%s", r ? "; " : ": ",
                            v[i].reasons[r]);
        g->v[k] = (double)v[i].status;
        if (!(g->why[k] = strdup(text)))
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    gt_pair_states_free(v, n);
    return rc;
}

/* Each pair's newest o->samples samples at or before o->at. */
static int read_pairs(struct gt_db *db, const struct gt_plot_matrix_opts *o,
                      const struct pair_list *l, struct grid *g, struct gt_error *err)
{
    size_t cap = o->samples;
    int64_t *ts = malloc(cap * sizeof *ts);
    double *rtt = malloc(cap * sizeof *rtt), *sorted = malloc(cap * sizeof *sorted);
    struct gt_series_reader *r = NULL;
    int rc = ts && rtt && sorted ? gt_series_reader_new(db, &r, err)
                                 : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < l->n; i++) {
        const struct pair_id *p = &l->v[i];
        size_t n = 0;
        struct gt_prior prior;
        rc = gt_series_read(r, p->src, p->dst, o->at, cap, ts, rtt, cap, &n, NULL, &prior, err);
        if (rc == GT_OK && n)
            pair_metric(o, ts, rtt, n, sorted, &g->v[p->a * (long)g->n + p->b],
                        &g->med[p->a * (long)g->n + p->b]);
    }
    gt_series_reader_free(r);
    free(ts), free(rtt), free(sorted);
    return rc;
}

static int fill(struct gt_db *db, const struct gt_plot_matrix_opts *o, struct grid *g,
                struct gt_error *err)
{
    size_t cap = GT_PLOT_MAX_SITES;
    struct pair_list l = {g, NULL, 0, 0, false};
    g->name = calloc(cap, sizeof *g->name);
    g->order = malloc(cap * sizeof *g->order);
    g->hl = calloc(cap, sizeof *g->hl);
    if (!g->name || !g->order || !g->hl)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (o->samples < 1 || o->samples > GT_PLOT_MAX_MATRIX_SAMPLES)
        return gt_error_set(err, GT_EUSAGE, "--samples", "must be 1 to %d",
                            GT_PLOT_MAX_MATRIX_SAMPLES);
    int rc = gt_query_pair_ids(db, collect_pair, &l, err);
    if (l.too_many)
        rc = gt_error_set(err, GT_ETOOBIG, NULL, "the store has more than %d sites with "
                          "pairs, more than a matrix shows", GT_PLOT_MAX_SITES);
    else if (rc == GT_ENOMEM)
        rc = gt_error_set(err, rc, NULL, "out of memory");
    else if (rc == GT_OK && g->n == 0)
        rc = gt_error_set(err, GT_ENOTFOUND, NULL, "the store holds no pairs");
    if (rc == GT_OK && (!(g->v = malloc(g->n * g->n * sizeof *g->v)) ||
                        !(g->med = malloc(g->n * g->n * sizeof *g->med))))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < g->n * g->n; i++)
        g->v[i] = g->med[i] = NAN;
    if (rc == GT_OK)
        rc = read_pairs(db, o, &l, g, err);
    if (rc == GT_OK && o->metric == GT_PLOT_STATUS)
        rc = status_cells(db, o, g, err);
    free(l.v);
    for (size_t i = 0; rc == GT_OK && i < o->nhighlight; i++) {
        long k = site_index(g, o->highlight[i]);
        if (k < 0)
            return gt_error_set(err, GT_ENOTFOUND, NULL, "site %s (to highlight) has no pairs "
                                "in the store", o->highlight[i]);
        g->hl[k] = true;
    }
    return rc;
}

/* ------------------------------------------------------------ order */

static double distance(const struct grid *g, size_t a, size_t b, double far)
{
    double x = g->med[a * g->n + b], y = g->med[b * g->n + a];
    double d = isnan(x) ? y : isnan(y) ? x : (x + y) / 2;
    return isnan(d) ? far : d;
}

static double path_length(const struct grid *g, const size_t *p, const double *dm)
{
    double len = 0;
    for (size_t i = 0; i + 1 < g->n; i++)
        len += dm[p[i] * g->n + p[i + 1]];
    return len;
}

static void nearest_chain(const struct grid *g, const double *dm, size_t start, size_t *p,
                          bool *used)
{
    memset(used, 0, g->n * sizeof *used);
    p[0] = start, used[start] = true;
    for (size_t k = 1; k < g->n; k++) {
        size_t best = 0;
        double bd = INFINITY;
        for (size_t j = 0; j < g->n; j++)
            if (!used[j] && dm[p[k - 1] * g->n + j] < bd)
                bd = dm[p[k - 1] * g->n + j], best = j;
        p[k] = best, used[best] = true;
    }
}

/* reverse segments p[i..j] while that shortens the open path */
static void two_opt(const struct grid *g, const double *dm, size_t *p)
{
    size_t n = g->n;
    for (int pass = 0; pass < 100; pass++) {
        bool better = false;
        for (size_t i = 0; i + 1 < n; i++)
            for (size_t j = i + 1; j < n; j++) {
                double before = (i ? dm[p[i - 1] * n + p[i]] : 0) +
                                (j + 1 < n ? dm[p[j] * n + p[j + 1]] : 0);
                double after = (i ? dm[p[i - 1] * n + p[j]] : 0) +
                               (j + 1 < n ? dm[p[i] * n + p[j + 1]] : 0);
                if (after < before - 1e-9) {
                    for (size_t a = i, b = j; a < b; a++, b--) {
                        size_t t = p[a];
                        p[a] = p[b], p[b] = t;
                    }
                    better = true;
                }
            }
        if (!better)
            break;
    }
}

static int seriate(struct grid *g, bool by_name)
{
    size_t n = g->n;
    for (size_t i = 0; i < n; i++)
        g->order[i] = i;
    if (by_name || n < 3) {
        /* pairs come by source id: sort the names */
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && strcmp(g->name[g->order[j - 1]], g->name[g->order[j]]) > 0; j--) {
                size_t t = g->order[j];
                g->order[j] = g->order[j - 1], g->order[j - 1] = t;
            }
        return GT_OK;
    }
    double far = 0;
    for (size_t i = 0; i < n * n; i++)
        far = isnan(g->med[i]) ? far : fmax(far, g->med[i]);
    double *dm = malloc(n * n * sizeof *dm);
    size_t *p = malloc(n * sizeof *p);
    bool *used = malloc(n * sizeof *used);
    if (!dm || !p || !used) {
        free(dm), free(p), free(used);
        return GT_ENOMEM;
    }
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++)
            dm[a * n + b] = a == b ? 0 : distance(g, a, b, 2 * far + 1);
    double best = INFINITY;
    for (size_t s = 0; s < n; s++) {
        nearest_chain(g, dm, s, p, used);
        double len = path_length(g, p, dm);
        if (len < best) {
            best = len;
            memcpy(g->order, p, n * sizeof *p);
        }
    }
    two_opt(g, dm, g->order);
    free(dm), free(p), free(used);
    return GT_OK;
}

/* ------------------------------------------------------------ drawing */

/* MaDDash's colours: ok green, warning yellow, critical red, no data grey */
static const char *const status_fill[] = {"#1a9850", "#fee08b", "#d73027", "#bdbdbd"};

static void cell(struct gt_svg *s, const struct grid *g, const struct gt_axis *c, size_t a,
                 size_t b, double x, double y, double size)
{
    double v = g->v[a * g->n + b];
    const char *why = g->why ? g->why[a * g->n + b] : NULL;
    char col[8] = "";
    if (g->why && !isnan(v))
        snprintf(col, sizeof col, "%s", status_fill[(int)v]);
    else if (!isnan(v) && (c->kind != GT_AXIS_LOG || v > 0))
        gt_svg_sequential(gt_axis_frac(c, v), col);
    gt_svg_raw(s, "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"%s%s%s "
                  "data-src=\"", col[0] ? "cell" : "missing", x, y, size, size,
               col[0] ? " fill=\"" : "", col, col[0] ? "\"" : "");
    gt_svg_escaped(s, g->name[a]);
    gt_svg_raw(s, "\" data-dst=\"");
    gt_svg_escaped(s, g->name[b]);
    char vt[GT_FMT_DOUBLE_SIZE];
    gt_fmt_double(vt, v);
    gt_svg_raw(s, "\" data-v=\"%s\"><title>", vt);
    gt_svg_escaped(s, g->name[a]);
    gt_svg_raw(s, " \u2192 ");
    gt_svg_escaped(s, g->name[b]);
    char num[32];
    gt_svg_num(v, num, sizeof num);
    gt_svg_raw(s, ": ");
    if (why)
        gt_svg_escaped(s, why);
    else
        gt_svg_raw(s, "%s", isnan(v) ? "no data" : num);
    gt_svg_raw(s, "</title></rect>\n");
}

/* metric status: a square and a word for each status, not a colour bar */
static void status_legend(struct gt_svg *s, double x, double y)
{
    for (int i = 0; i < 4; i++) {
        gt_svg_raw(s, "<rect class=\"legend\" x=\"%.2f\" y=\"%.2f\" width=\"14\" "
                      "height=\"14\" fill=\"%s\"/>\n", x, y + 22.0 * i, status_fill[i]);
        gt_svg_text(s, x + 20, y + 22.0 * i + 11, "start", "legend", "%s",
                    gt_status_name((enum gt_pair_status)i));
    }
}

static void labels(struct gt_svg *s, const struct grid *g, double x0, double y0, double size)
{
    for (size_t i = 0; i < g->n; i++) {
        size_t k = g->order[i];
        const char *cls = g->hl[k] ? "tick hl" : "tick";
        double cy = y0 + size * ((double)i + 0.5), cx = x0 + size * ((double)i + 0.5);
        gt_svg_text(s, x0 - 5, cy + 4, "end", cls, "%s", g->name[k]);
        gt_svg_raw(s, "<g transform=\"rotate(-60 %.2f %.2f)\">", cx, y0 - 5);
        gt_svg_text(s, cx, y0 - 5, "start", cls, "%s", g->name[k]);
        gt_svg_raw(s, "</g>\n");
    }
}

static int draw(const struct grid *g, const struct gt_plot_matrix_opts *o, struct gt_buf *out)
{
    double size = fmin(28, fmax(6, 640.0 / (double)g->n));
    double x0 = 120, y0 = 130, side = size * (double)g->n;
    struct gt_svg s;
    char title[200];
    snprintf(title, sizeof title, "%s of each pair's newest %zu samples (rows: source, "
             "columns: destination)", metric_label(o->metric),
             o->metric == GT_PLOT_STATUS                        ? o->thresholds->samples
             : o->metric == GT_PLOT_ALPHA && o->window < o->samples ? o->window
                                                                    : o->samples);
    gt_svg_begin(&s, out, fmax(x0 + side + 150, 560), y0 + side + 30, title);
    double lo = INFINITY, hi = -INFINITY;
    bool logscale = o->metric != GT_PLOT_LOSS;
    for (size_t i = 0; i < g->n * g->n; i++)
        if (!isnan(g->v[i]) && (!logscale || g->v[i] > 0))
            lo = fmin(lo, g->v[i]), hi = fmax(hi, g->v[i]);
    struct gt_axis c = {.kind = logscale ? GT_AXIS_LOG : GT_AXIS_LINEAR,
                        .label = metric_label(o->metric)};
    gt_axis_extend(&c, lo, hi, !logscale);
    gt_svg_raw(&s, "<g class=\"matrix\" data-sites=\"%zu\" data-x0=\"%.2f\" data-y0=\"%.2f\" "
                   "data-cell=\"%.3f\">\n", g->n, x0, y0, size);
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; j < g->n; j++)
            cell(&s, g, &c, g->order[i], g->order[j], x0 + size * (double)j,
                 y0 + size * (double)i, size);
    gt_svg_raw(&s, "</g>\n");
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; j < g->n; j++)
            if (i != j && g->hl[g->order[i]] && g->hl[g->order[j]])
                gt_svg_raw(&s, "<rect class=\"hl\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                               "height=\"%.2f\"/>\n", x0 + size * (double)j + 1,
                           y0 + size * (double)i + 1, size - 2, size - 2);
    labels(&s, g, x0, y0, size);
    if (o->metric == GT_PLOT_STATUS)
        status_legend(&s, x0 + side + 24, y0);
    else
        gt_svg_colorbar(&s, &c, x0 + side + 24, y0 + fmin(side, 320), y0, gt_svg_sequential);
    return gt_svg_end(&s);
}

int gt_plot_matrix(struct gt_db *db, const struct gt_plot_matrix_opts *o, struct gt_buf *out,
                   struct gt_error *err)
{
    struct grid g = {0};
    int rc = fill(db, o, &g, err);
    if (rc == GT_OK && seriate(&g, o->by_name))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK && (rc = draw(&g, o, out)))
        gt_error_set(err, rc, NULL, rc == GT_ETOOBIG ? "the plot is larger than its limit"
                                                     : "out of memory");
    for (size_t i = 0; g.name && i < g.n; i++)
        free(g.name[i]);
    for (size_t i = 0; g.why && i < g.n * g.n; i++)
        free(g.why[i]);
    free(g.name), free(g.v), free(g.med), free(g.order), free(g.hl), free(g.why);
    return rc;
}
