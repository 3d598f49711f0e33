/*
 * changepoint.c - the online median-shift detector of changepoint.h.
 *
 * Why medians of log RTT: a route change moves the RTT by a factor (83 ->
 * 118 ms, or 1 % when only the last hop changes), spikes are many times
 * the level, and a person marking changes ignores a spike of a few
 * samples however tall.  A median of W samples ignores any (W - 1) / 2 of
 * them; its standard error is about 1.2533 sigma / sqrt(W) for normal
 * noise, sigma taken robustly (1.4826 MAD) from the regime's samples
 * before the window, so that the test scales with each path's own jitter
 * and finds a 1 % shift on a quiet path.  Why the reference ends where
 * the window begins: a shift under test must not leak into the level it
 * is tested against.
 */
#include "changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HIST 64       /* recent valid samples kept (log RTT and index) */
#define REF 32        /* the level: the median of up to this many regime samples */
#define MIN_REF 5     /* before the window; no test with fewer */
#define MAX_W 31

const struct gt_cpd_opts gt_cpd_defaults = {9, 8, 0.01};
const struct gt_cpd_opts gt_cpd_alerts = {11, 32, 0.01};

struct gt_cpd {
    struct gt_cpd_opts o;
    int64_t n;            /* samples fed: the index of the next */
    int64_t start;        /* the current regime's first sample */
    int64_t nv;           /* valid samples fed */
    double val[HIST];     /* the last HIST valid ones, by nv % HIST: so a */
    int64_t idx[HIST];    /* long outage does not push the level out */
};

struct gt_cpd *gt_cpd_new(const struct gt_cpd_opts *o)
{
    if (!o)
        o = &gt_cpd_defaults;
    if (o->window < 5 || o->window > MAX_W || o->window % 2 == 0 || !(o->z > 0) ||
        !(o->min_rel >= 0 && o->min_rel < 1))
        return NULL;
    struct gt_cpd *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->o = *o;
    return d;
}

void gt_cpd_free(struct gt_cpd *d)
{
    free(d);
}

int64_t gt_cpd_regime_start(const struct gt_cpd *d)
{
    return d->start;
}

static void sort_small(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static double median_sorted(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The last w valid samples of the regime, newest last, with their
 * indices; false if the regime has fewer. */
static bool last_valid(const struct gt_cpd *d, int w, double *x, int64_t *idx)
{
    int k = w;
    for (int64_t j = d->nv - 1; k > 0 && j >= 0 && j >= d->nv - HIST; j--) {
        if (d->idx[j % HIST] < d->start)
            break;
        k--;
        x[k] = d->val[j % HIST];
        idx[k] = d->idx[j % HIST];
    }
    return k == 0;
}

/* The level and sigma of the regime's valid samples before the w newest,
 * up to REF of the latest; false with fewer than MIN_REF. */
static bool reference(const struct gt_cpd *d, int w, double *mu, double *sigma)
{
    double v[REF];
    size_t k = 0;
    for (int64_t j = d->nv - 1 - w; k < REF && j >= 0 && j >= d->nv - HIST; j--) {
        if (d->idx[j % HIST] < d->start)
            break;
        v[k++] = d->val[j % HIST];
    }
    if (k < MIN_REF)
        return false;
    sort_small(v, k);
    *mu = median_sorted(v, k);
    for (size_t i = 0; i < k; i++)
        v[i] = fabs(v[i] - *mu);
    sort_small(v, k);
    /* the larger of the MAD's sigma and that of the mean of the smallest
       3/4 of the deviations (for normal noise, 0.5147 sigma): a path whose
       RTT takes two values in turn has a MAD of 0, and a mean over all
       deviations would take in the spikes */
    double sum = 0;
    size_t low = (3 * k + 3) / 4;
    for (size_t i = 0; i < low; i++)
        sum += v[i];
    *sigma = fmax(1.4826 * median_sorted(v, k), sum / (double)low / 0.5147);
    return true;
}

/* Where in the window x[0..w) the new level begins: the split s
 * least in absolute deviation from
 * mu before and from the median of x[s..w) after. */
static int split(const double *x, int w, double mu)
{
    int best = w - 1;
    double low = INFINITY;
    for (int s = 0; s < w; s++) {
        double after[MAX_W], cost = 0;
        int na = 0;
        for (int i = s; i < w; i++)
            after[na++] = x[i];
        sort_small(after, (size_t)na);
        double m = median_sorted(after, (size_t)na);
        for (int i = 0; i < w; i++)
            cost += fabs(x[i] - (i < s ? mu : m));
        if (cost < low)
            low = cost, best = s;
    }
    return best;
}

bool gt_cpd_push(struct gt_cpd *d, double rtt, int64_t *at)
{
    int64_t i = d->n++;
    if (!(rtt > 0 && isfinite(rtt)))
        return false;
    d->val[d->nv % HIST] = log(rtt);
    d->idx[d->nv % HIST] = i;
    d->nv++;
    int w = d->o.window;
    double x[MAX_W], sorted[MAX_W], mu, sigma;
    int64_t ix[MAX_W];
    if (!last_valid(d, w, x, ix) || !reference(d, w, &mu, &sigma))
        return false;
    memcpy(sorted, x, (size_t)w * sizeof *x);
    sort_small(sorted, (size_t)w);
    double shift = median_sorted(sorted, (size_t)w) - mu;
    double need = fmax(d->o.z * 1.2533 * sigma / sqrt((double)w), log1p(d->o.min_rel));
    if (!(fabs(shift) > need))
        return false;
    d->start = ix[split(x, w, mu)];
    if (at)
        *at = d->start;
    return true;
}
