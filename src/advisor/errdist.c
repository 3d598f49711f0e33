/*
 * errdist.c - exact-then-binned absolute errors, the U test and the
 * worst-moment share.
 *
 * Both tests walk the values in ascending order as (key, count) runs:
 * exact values sorted and grouped, or the bins in order.  When one side
 * is binned and the other exact, the exact side is binned too, so both
 * use one resolution.
 */
#define _DEFAULT_SOURCE
#include "errdist.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BINS_PER_OCTAVE 256
#define LOW_EXP (-20)       /* 2^-20 ms ~ 1 ns: everything below, one bin */
#define HIGH_EXP 27         /* 2^27 ms ~ 37 h: everything above, one bin */
#define NBINS ((HIGH_EXP - LOW_EXP) * BINS_PER_OCTAVE + 2)   /* + zero, + overflow */

struct gt_errdist {
    double n;
    double *exact;          /* n values while exact; NULL once binned */
    size_t cap;
    unsigned *bins;         /* NBINS counts once binned: 0 = zeros, then
                               ascending, the last one everything above */
};

struct gt_errdist *gt_errdist_new(void)
{
    return calloc(1, sizeof(struct gt_errdist));
}

void gt_errdist_free(struct gt_errdist *d)
{
    if (!d)
        return;
    free(d->exact);
    free(d->bins);
    free(d);
}

static size_t bin_of(double e)
{
    if (!(e > 0))
        return 0;
    double b = floor((log2(e) - LOW_EXP) * BINS_PER_OCTAVE);
    if (b < 0)
        return 1;
    if (b >= NBINS - 2)
        return NBINS - 1;
    return (size_t)b + 1;
}

/* A bin's representative value: its geometric centre. */
static double bin_value(size_t b)
{
    if (b == 0)
        return 0;
    return exp2(LOW_EXP + ((double)(b - 1) + 0.5) / BINS_PER_OCTAVE);
}

static bool to_bins(struct gt_errdist *d)
{
    if (d->bins)
        return true;
    if (!(d->bins = calloc(NBINS, sizeof *d->bins)))
        return false;
    for (size_t i = 0; i < (size_t)d->n; i++)
        d->bins[bin_of(d->exact[i])]++;
    free(d->exact);
    d->exact = NULL;
    d->cap = 0;
    return true;
}

bool gt_errdist_add(struct gt_errdist *d, double e)
{
    e = fabs(e);
    if (!d->bins && d->n >= GT_ERRDIST_EXACT && !to_bins(d))
        return false;
    if (d->bins) {
        d->bins[bin_of(e)]++;
    } else {
        if ((size_t)d->n == d->cap) {
            size_t cap = d->cap ? 2 * d->cap : 64;
            double *x = realloc(d->exact, cap * sizeof *x);
            if (!x)
                return false;
            d->exact = x, d->cap = cap;
        }
        d->exact[(size_t)d->n] = e;
    }
    d->n++;
    return true;
}

bool gt_errdist_merge(struct gt_errdist *d, const struct gt_errdist *from)
{
    if (from->bins || d->n + from->n > GT_ERRDIST_EXACT) {
        if (!to_bins(d))
            return false;
        if (from->bins)
            for (size_t b = 0; b < NBINS; b++)
                d->bins[b] += from->bins[b];
        else
            for (size_t i = 0; i < (size_t)from->n; i++)
                d->bins[bin_of(from->exact[i])]++;
        d->n += from->n;
        return true;
    }
    for (size_t i = 0; i < (size_t)from->n; i++)
        if (!gt_errdist_add(d, from->exact[i]))
            return false;
    return true;
}

double gt_errdist_count(const struct gt_errdist *d)
{
    return d->n;
}

bool gt_errdist_exact(const struct gt_errdist *d)
{
    return !d->bins;
}

/* ---- ascending (key, count) runs ---- */

struct runs {
    double *key, *count;
    size_t n;
};

/* Runs of d: exact values grouped when binned is false, else bins (key =
 * bin index, count > 0 only).  false on ENOMEM. */
static bool make_runs(const struct gt_errdist *d, bool binned, struct runs *r)
{
    size_t cap = binned ? NBINS : (size_t)d->n;
    r->n = 0;
    r->key = malloc((cap ? cap : 1) * sizeof *r->key);
    r->count = malloc((cap ? cap : 1) * sizeof *r->count);
    if (!r->key || !r->count) {
        free(r->key), free(r->count);
        return false;
    }
    if (binned && d->bins) {
        for (size_t b = 0; b < NBINS; b++)
            if (d->bins[b] > 0)
                r->key[r->n] = (double)b, r->count[r->n++] = d->bins[b];
    } else {
        for (size_t i = 0; i < (size_t)d->n; i++) {
            r->key[r->n] = binned ? (double)bin_of(d->exact[i]) : d->exact[i];
            r->count[r->n++] = 1;
        }
        qsort(r->key, r->n, sizeof *r->key, gt_cmp_double);
    }
    /* group equal keys */
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (k && r->key[k - 1] == r->key[i]) {
            r->count[k - 1] += r->count[i];
        } else {
            r->key[k] = r->key[i];
            r->count[k++] = r->count[i];
        }
    }
    r->n = k;
    return true;
}

static void free_runs(struct runs *r)
{
    free(r->key);
    free(r->count);
}

double gt_errdist_top_share(const struct gt_errdist *d, double share)
{
    struct runs r;
    if (!(d->n > 0) || !(share > 0 && share <= 1) || !make_runs(d, d->bins != NULL, &r))
        return NAN;
    double want = ceil(share * d->n - 1e-9), total = 0, top = 0;
    for (size_t i = 0; i < r.n; i++) {
        double v = d->bins ? bin_value((size_t)r.key[i]) : r.key[i];
        total += r.count[i] * v * v;
    }
    for (size_t i = r.n; i-- > 0 && want > 0;) {
        double v = d->bins ? bin_value((size_t)r.key[i]) : r.key[i];
        double take = r.count[i] < want ? r.count[i] : want;
        top += take * v * v;
        want -= take;
    }
    free_runs(&r);
    return total > 0 ? top / total : NAN;
}

bool gt_errdist_mwu(const struct gt_errdist *a, const struct gt_errdist *b, struct gt_mwu *out)
{
    *out = (struct gt_mwu){NAN, NAN, NAN};
    bool binned = a->bins || b->bins;
    struct runs ra, rb;
    if (!make_runs(a, binned, &ra))
        return false;
    if (!make_runs(b, binned, &rb)) {
        free_runs(&ra);
        return false;
    }
    /* walk both runs in ascending key order: U = sum over a's values of
       (b's values below) + half (b's values equal); ties across both
       sides feed the correction sum(t^3 - t) */
    double u = 0, below_b = 0, ties = 0;
    size_t i = 0, j = 0;
    while (i < ra.n || j < rb.n) {
        double ka = i < ra.n ? ra.key[i] : INFINITY, kb = j < rb.n ? rb.key[j] : INFINITY;
        double key = ka < kb ? ka : kb;
        double ca = ka == key ? ra.count[i++] : 0, cb = kb == key ? rb.count[j++] : 0;
        u += ca * (below_b + cb / 2);
        below_b += cb;
        double t = ca + cb;
        ties += t * t * t - t;
    }
    double na = a->n, nb = b->n, n = na + nb;
    out->u = na > 0 && nb > 0 ? u : NAN;
    double var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)));
    if (na > 0 && nb > 0 && var > 0) {
        out->z = (u - na * nb / 2) / sqrt(var);
        out->p = erfc(fabs(out->z) / M_SQRT2);
    }
    free_runs(&ra);
    free_runs(&rb);
    return true;
}
