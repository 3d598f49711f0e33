/*
 * changepoint.c - the online CUSUM of changepoint.h.
 *
 * Why log RTT and a robust level: a route change moves the RTT by a
 * factor (83 -> 118 ms), spikes are many times the level, and one spike
 * must not count as a change.  Why the sums start anew at each change and
 * the level is re-estimated from the new regime's first samples: an
 * episode of three samples on another path is two changes (there and
 * back), and the second is found only against the episode's own level.
 */
#include "changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HIST 256      /* recent samples kept: an excursion's samples seed the new regime */
#define YOUNG 32      /* the level is re-estimated at every sample until the regime has
                         this many, and then from this many recent samples */
#define REFRESH 16    /* how often an older regime's level is refreshed (while in control) */

const struct gt_cpd_opts gt_cpd_defaults = {1, 6, 6, 0.05};

struct gt_cpd {
    struct gt_cpd_opts o;
    int64_t n;            /* samples fed: the index of the next */
    int64_t start;        /* the current regime's first sample */
    double hist[HIST];    /* log RTT of samples n - HIST .. n - 1 (NAN: lost) */
    double mu, scale;     /* the regime's level and scale; scale 0: no level yet */
    double sp, sm;        /* upward and downward sums */
    int64_t sp0, sm0;     /* where each sum last left zero */
    int since_fit;
};

struct gt_cpd *gt_cpd_new(const struct gt_cpd_opts *o)
{
    struct gt_cpd *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->o = o ? *o : gt_cpd_defaults;
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

/* Level and scale from the regime's valid samples in [from, n): median
 * and 1.4826 MAD (the normal's sigma), floored. */
static void fit_level(struct gt_cpd *d, int64_t from)
{
    double v[YOUNG];
    size_t k = 0;
    if (from < d->start)
        from = d->start;
    if (from < d->n - YOUNG)
        from = d->n - YOUNG;
    for (int64_t i = from; i < d->n; i++) {
        double x = d->hist[i % HIST];
        if (!isnan(x))
            v[k++] = x;
    }
    d->since_fit = 0;
    if (k == 0) {
        d->scale = 0;
        return;
    }
    sort_small(v, k);
    d->mu = median_sorted(v, k);
    for (size_t i = 0; i < k; i++)
        v[i] = fabs(v[i] - d->mu);
    sort_small(v, k);
    d->scale = fmax(1.4826 * median_sorted(v, k), d->o.min_scale);
}

/* One sum's step: s <- max(0, s + z - k), noting where it leaves zero. */
static void step(double *s, int64_t *s0, double z, double k, int64_t idx)
{
    double next = *s + z - k;
    if (next <= 0) {
        *s = 0;
        return;
    }
    if (*s == 0)
        *s0 = idx;
    *s = next;
}

bool gt_cpd_push(struct gt_cpd *d, double rtt, int64_t *at)
{
    int64_t idx = d->n++;
    bool valid = rtt > 0 && isfinite(rtt);
    d->hist[idx % HIST] = valid ? log(rtt) : NAN;
    if (!valid)
        return false;
    bool young = idx - d->start < YOUNG;
    if (d->scale > 0) {
        double z = (d->hist[idx % HIST] - d->mu) / d->scale;
        z = fmax(-d->o.clip, fmin(d->o.clip, z));
        step(&d->sp, &d->sp0, z, d->o.k, idx);
        step(&d->sm, &d->sm0, -z, d->o.k, idx);
        if (d->sp > d->o.h || d->sm > d->o.h) {
            d->start = d->sp > d->o.h ? d->sp0 : d->sm0;
            d->sp = d->sm = 0;
            fit_level(d, d->start);
            if (at)
                *at = d->start;
            return true;
        }
    }
    d->since_fit++;
    if (young || d->scale == 0 || (d->since_fit >= REFRESH && d->sp == 0 && d->sm == 0))
        fit_level(d, d->start);
    return false;
}
