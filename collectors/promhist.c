/*
 * promhist.c - Prometheus latency histograms back into samples (promhist.h).
 */
#include "promhist.h"
#include "promql.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long gt_promhist_lost(long d, long dn, bool has_next)
{
    long lost = has_next && dn < 0 ? d + dn : d;
    return lost > 0 ? lost : 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool gt_promhist_key(const json_t *series, char *key, size_t n)
{
    const json_t *metric = json_object_get(series, "metric");
    const char *names[64];
    size_t k = 0;
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)metric, name, v) {
        if (!strcmp(name, "__name__") || !strcmp(name, "le"))
            continue;
        if (k == sizeof names / sizeof names[0])
            return false;
        names[k++] = name;
    }
    qsort(names, k, sizeof names[0], cmp_str);
    size_t used = 0;
    key[0] = '\0';
    for (size_t i = 0; i < k; i++) {
        const json_t *val = json_object_get(metric, names[i]);
        int w = snprintf(key + used, n - used, "%s=%s\x1f", names[i],
                         json_is_string(val) ? json_string_value(val) : "");
        if (w < 0 || (size_t)w >= n - used)
            return false;
        used += (size_t)w;
    }
    return true;
}

/* The points of the histogram, each series' values at the times of the
 * +Inf bucket's points (NAN where a series has none). */
struct grid {
    size_t n_t, n_b;
    int64_t *t;
    double *le;        /* n_b bounds, ascending; the last +Inf */
    double *cum;       /* n_b x n_t cumulative counts */
    double *sum, *req; /* n_t each, or NULL */
};

static void grid_free(struct grid *g)
{
    free(g->t), free(g->le), free(g->cum), free(g->sum), free(g->req);
}

/* values of series at the times g->t (both in time order) into out;
 * born: 0 at the times before the series' first point (a histogram
 * series appears with its first answer: its counts were 0 before). */
static void align(const json_t *series, const struct grid *g, bool born, double *out)
{
    const json_t *vals = json_object_get(series, "values");
    size_t j = 0, n = json_array_size(vals);
    int64_t first = INT64_MAX;
    double v0;
    if (born && n && !gt_prom_point(json_array_get(vals, 0), &first, &v0))
        first = INT64_MIN;   /* not a point: no zeros made up */
    for (size_t i = 0; i < g->n_t; i++) {
        out[i] = born && g->t[i] < first ? 0 : NAN;
        for (; j < n; j++) {
            int64_t t;
            double v;
            if (!gt_prom_point(json_array_get(vals, j), &t, &v) || t > g->t[i])
                break;
            if (t == g->t[i])
                out[i] = v;
        }
    }
}

static double bound_of(const json_t *series)
{
    const char *le = gt_prom_label(series, "le");
    if (!le)
        return NAN;
    if (!strcmp(le, "+Inf"))
        return INFINITY;
    if (!(*le >= '0' && *le <= '9') && *le != '.')
        return NAN;   /* "", " 5", "-0", "0x10": not how a bound is written */
    char *end;
    double v = strtod(le, &end);
    return *end || end == le || !(v >= 0) || isinf(v) || strchr(le, 'x') ? NAN : v;
}

struct bucket_ref {
    double le;
    const json_t *series;
};

static int cmp_bucket(const void *a, const void *b)
{
    double x = ((const struct bucket_ref *)a)->le, y = ((const struct bucket_ref *)b)->le;
    return x < y ? -1 : x > y;
}

static const char oom[] = "out of memory";

/* The points of series (the +Inf bucket, or the requests of a histogram
 * without buckets) as the times; false (why set) when they are not. */
static bool grid_times(const json_t *series, struct grid *g, const char **why)
{
    const json_t *vals = json_object_get(series, "values");
    size_t n = json_array_size(vals);
    g->t = malloc((n ? n : 1) * sizeof *g->t);
    if (!g->t)
        return *why = oom, false;
    for (size_t i = 0; i < n; i++) {
        double v;
        if (!gt_prom_point(json_array_get(vals, i), &g->t[g->n_t], &v))
            return *why = "a point that is not [time, \"value\"]", false;
        if (g->n_t && g->t[g->n_t] <= g->t[g->n_t - 1])
            return *why = "points not in time order", false;
        g->n_t++;
    }
    return true;
}

static bool grid_build(const struct gt_promhist *h, struct grid *g, const char **why)
{
    if (h->n_buckets > GT_PROMHIST_MAX_BUCKETS)
        return *why = "more buckets than 256", false;
    struct bucket_ref b[GT_PROMHIST_MAX_BUCKETS];
    for (size_t i = 0; i < h->n_buckets; i++) {
        b[i].le = bound_of(h->buckets[i]);
        b[i].series = h->buckets[i];
        if (isnan(b[i].le))
            return *why = "a bucket's le is not a bound (a number >= 0 or +Inf)", false;
    }
    qsort(b, h->n_buckets, sizeof b[0], cmp_bucket);
    g->n_b = h->n_buckets;
    if (g->n_b && !isinf(b[g->n_b - 1].le))
        return *why = "no +Inf bucket", false;
    for (size_t i = 1; i < g->n_b; i++)
        if (b[i].le == b[i - 1].le)
            return *why = "two buckets with the same le", false;
    /* the times of the pings sent, where they are counted: a histogram
       appears with its first answer, and pings before it are lost */
    if (!grid_times(h->requests ? h->requests : g->n_b ? b[g->n_b - 1].series : NULL, g, why))
        return false;
    size_t nt = g->n_t ? g->n_t : 1;
    g->le = malloc((g->n_b ? g->n_b : 1) * sizeof *g->le);
    g->cum = malloc((g->n_b ? g->n_b : 1) * nt * sizeof *g->cum);
    g->sum = h->sum ? malloc(nt * sizeof *g->sum) : NULL;
    g->req = h->requests ? malloc(nt * sizeof *g->req) : NULL;
    if (!g->le || !g->cum || (h->sum && !g->sum) || (h->requests && !g->req))
        return *why = oom, false;
    bool born = h->requests != NULL;
    for (size_t i = 0; i < g->n_b; i++) {
        g->le[i] = b[i].le;
        align(b[i].series, g, born, g->cum + i * nt);
    }
    if (g->sum)
        align(h->sum, g, born, g->sum);
    if (g->req)
        align(h->requests, g, false, g->req);
    return true;
}

/* The increase of a counter from point k-1 to k; a drop is a restart,
 * counted from 0 as Prometheus' increase() does.  NAN when either is. */
static double increase(const double *v, size_t k)
{
    if (isnan(v[k]) || isnan(v[k - 1]))
        return NAN;
    return v[k] >= v[k - 1] ? v[k] - v[k - 1] : v[k];
}

/* A count as a whole number, or -1 when it is not one. */
static long whole(double v)
{
    double r = nearbyint(v);
    return isfinite(v) && r >= 0 && fabs(v - r) <= 1e-6 && r <= 1e15 ? (long)r : -1;
}

struct step {
    long n[GT_PROMHIST_MAX_BUCKETS];   /* responses in each bucket */
    long answered;
};

/* The responses of point k in each bucket; false (why) when they are no
 * counts; answered -1 when the point or the one before has no value. */
static bool step_counts(const struct grid *g, size_t k, struct step *s, const char **why)
{
    size_t nt = g->n_t;
    s->answered = -1;
    if (!g->n_b) {   /* no answer ever: a step where pings were counted */
        s->answered = isnan(increase(g->req, k)) ? -1 : 0;
        return true;
    }
    const double *inf = g->cum + (g->n_b - 1) * nt;
    bool reset = !isnan(inf[k]) && !isnan(inf[k - 1]) && inf[k] < inf[k - 1];
    long below = 0;
    for (size_t b = 0; b < g->n_b; b++) {
        const double *c = g->cum + b * nt;
        double d = reset ? c[k] : c[k] - c[k - 1];
        if (isnan(d))
            return true;   /* no value: not a step */
        long cum = whole(d);
        if (cum < 0 || cum < below)
            return *why = "bucket counts that are not whole, growing numbers", false;
        s->n[b] = cum - below;
        below = cum;
    }
    if (below > GT_PROMHIST_MAX_PER_STEP)
        return *why = "more than 100000 responses in one step", false;
    s->answered = below;
    return true;
}

/* Where in its bucket each response goes: the fraction t of the width
 * that makes the responses add up to the sum's increase (0.5 without a
 * sum, or with no room to move); the +Inf bucket's at its lower bound. */
static double fraction(const struct grid *g, const struct step *s, double sum)
{
    double lo_total = 0, hi_total = 0, lo = 0;
    for (size_t b = 0; b < g->n_b; b++) {
        double hi = isinf(g->le[b]) ? lo : g->le[b];
        lo_total += (double)s->n[b] * lo;
        hi_total += (double)s->n[b] * hi;
        lo = hi;
    }
    if (isnan(sum) || !(hi_total > lo_total))
        return 0.5;
    double t = (sum - lo_total) / (hi_total - lo_total);
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

/* Pings sent and not answered at point k (its requests and the next's);
 * -1 past GT_PROMHIST_MAX_PER_STEP. */
static long lost_at(const struct grid *g, size_t k, long answered)
{
    if (!g->req)
        return 0;
    long sent = whole(increase(g->req, k));
    if (sent > GT_PROMHIST_MAX_PER_STEP)
        return -1;
    if (sent < 0)
        return 0;
    long dn = 0;
    bool has_next = false;
    if (k + 1 < g->n_t) {
        struct step next;
        const char *why = NULL;
        long sent_next = whole(increase(g->req, k + 1));
        if (sent_next >= 0 && step_counts(g, k + 1, &next, &why) && next.answered >= 0) {
            dn = sent_next - next.answered;
            has_next = true;
        }
    }
    return gt_promhist_lost(sent - answered, dn, has_next);
}

static int emit_step(const struct grid *g, size_t k, const struct step *s,
                     const struct gt_promhist_out *out, double *widest)
{
    long lost = lost_at(g, k, s->answered);
    if (lost < 0)
        return out->reject(out->ctx, g->t[k], "more than 100000 pings sent in one step"),
               GT_OK;
    double sum = g->sum ? increase(g->sum, k) : NAN;
    double t = fraction(g, s, sum), lo = 0;
    int64_t seq = 0;
    int rc = GT_OK;
    for (size_t b = 0; rc == GT_OK && b < g->n_b; b++) {
        double hi = isinf(g->le[b]) ? lo : g->le[b];
        if (s->n[b] && lo > 0 && hi / lo > *widest)
            *widest = hi / lo;
        for (long i = 0; rc == GT_OK && i < s->n[b]; i++)
            rc = out->emit(out->ctx, g->t[k], seq++, 1e3 * (lo + t * (hi - lo)));
        lo = hi;
    }
    for (long i = 0; rc == GT_OK && i < lost; i++)
        rc = out->emit(out->ctx, g->t[k], seq++, NAN);
    return rc;
}

int gt_promhist_samples(const struct gt_promhist *h, int64_t first, int64_t last,
                        const struct gt_promhist_out *out, double *bucket_bound)
{
    struct grid g = {0};
    const char *why = NULL;
    int rc = GT_OK;
    if (!grid_build(h, &g, &why)) {
        if (why != oom)
            out->reject(out->ctx, 0, why);
        grid_free(&g);
        return why == oom ? GT_ENOMEM : GT_OK;
    }
    for (size_t k = 1; rc == GT_OK && k < g.n_t; k++) {
        if (g.t[k] < first || g.t[k] > last)
            continue;
        struct step s;
        if (!step_counts(&g, k, &s, &why))
            out->reject(out->ctx, g.t[k], why);
        else if (s.answered >= 0)
            rc = emit_step(&g, k, &s, out, bucket_bound);
    }
    grid_free(&g);
    return rc;
}
