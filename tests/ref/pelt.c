/*
 * pelt.c - PELT and optimal partitioning of pelt.h.
 */
#include "pelt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define HALF 3   /* the local median: of the 2 HALF + 1 samples around */

/* The median of the samples around each, into m. */
static void local_median(const double *y, double *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double w[2 * HALF + 1];
        size_t lo = i < HALF ? 0 : i - HALF, hi = i + HALF + 1 < n ? i + HALF + 1 : n, k = 0;
        for (size_t j = lo; j < hi; j++)
            w[k++] = y[j];
        m[i] = median(w, k);
    }
}

/* The noise: 1.4826 MAD of the samples' distances to their local median
 * (the jitter a level carries, whatever its tail and correlation). */
static double noise_sigma(const double *y, const double *m, size_t n)
{
    double *d = malloc((n ? n : 1) * sizeof *d);
    if (!d || n < 3) {
        free(d);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        d[i] = fabs(y[i] - m[i]);
    double s = 1.4826 * median(d, n);
    free(d);
    return s > 1e-4 ? s : 1e-4;   /* 0.01 %: a constant path has no noise */
}

/* Spikes and heavy jitter winsorized: each sample kept within CLIP
 * sigmas of its local median. */
#define CLIP 3.0
static void winsorize(const double *y, const double *m, double s, double *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = fmin(m[i] + CLIP * s, fmax(m[i] - CLIP * s, y[i]));
}

/* The valid samples of x as winsorized log RTT about their median, in
 * units of sigma, into v (their indices in x into orig); their number,
 * and beta into *beta. */
static size_t prepare(const double *x, size_t n, double penalty, double *v, size_t *orig,
                      double *scratch, double *beta)
{
    size_t m = 0;
    double *y = calloc(n ? n : 1, sizeof *y);   /* (zeroed: gcc cannot see m <= n) */
    if (!y)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] > 0 && isfinite(x[i]))
            orig[m] = i, y[m++] = log(x[i]);
    local_median(y, scratch, m);
    double sigma = noise_sigma(y, scratch, m);
    *beta = penalty * log(m > 1 ? (double)m : 2.0);
    winsorize(y, scratch, sigma, v, m);
    memcpy(scratch, v, m * sizeof *v);
    double center = m ? median(scratch, m) : 0;
    for (size_t i = 0; i < m; i++)
        v[i] = (v[i] - center) / sigma;
    free(y);
    return m;
}

long gt_optpart(const double *x, size_t n, double penalty, size_t min_len, long *at)
{
    double *v = malloc((n + 1) * sizeof *v), *tmp = malloc((n + 1) * sizeof *tmp);
    double *f = malloc((n + 1) * sizeof *f);
    size_t *orig = malloc((n + 1) * sizeof *orig), *last = malloc((n + 1) * sizeof *last);
    long nat = -1;
    if (!v || !tmp || !f || !orig || !last)
        goto out;
    double beta;
    size_t m = prepare(x, n, penalty, v, orig, tmp, &beta);
    nat = 0;
    if (m < 2 * min_len)
        goto out;
    /* f[t]: the least cost of v[0..t) in segments of at least min_len, each
       costing the sum of its squared deviations from its mean (summed
       afresh, two passes) plus beta */
    f[0] = -beta;
    for (size_t t = 1; t <= m; t++) {
        f[t] = INFINITY;
        last[t] = 0;
        for (size_t s = 0; s + min_len <= t; s++) {
            if (s > 0 && s < min_len)
                continue;
            if (!isfinite(f[s]))
                continue;
            double mean = 0, c = 0;
            for (size_t i = s; i < t; i++)
                mean += v[i];
            mean /= (double)(t - s);
            for (size_t i = s; i < t; i++)
                c += (v[i] - mean) * (v[i] - mean);
            if (f[s] + c + beta < f[t])
                f[t] = f[s] + c + beta, last[t] = s;
        }
    }
    for (size_t t = m; t > 0 && last[t] > 0; t = last[t])
        at[nat++] = (long)orig[last[t]];
    for (long i = 0; i < nat / 2; i++) {
        long sw = at[i];
        at[i] = at[nat - 1 - i], at[nat - 1 - i] = sw;
    }
out:
    free(v), free(tmp), free(f), free(orig), free(last);
    return nat;
}

long gt_pelt(const double *x, size_t n, double penalty, long *at)
{
    size_t m = 0;
    double *y = calloc(n ? n : 1, sizeof *y), *z = malloc((n ? n : 1) * sizeof *z);
    size_t *orig = malloc((n ? n : 1) * sizeof *orig);
    double *s1 = malloc((n + 1) * sizeof *s1), *s2 = malloc((n + 1) * sizeof *s2);
    double *f = malloc((n + 1) * sizeof *f);
    size_t *last = malloc((n + 1) * sizeof *last), *cand = malloc((n + 1) * sizeof *cand);
    long nat = -1;
    if (!y || !z || !orig || !s1 || !s2 || !f || !last || !cand)
        goto out;
    for (size_t i = 0; i < n; i++)
        if (x[i] > 0 && isfinite(x[i]))
            orig[m] = i, y[m++] = log(x[i]);
    local_median(y, s1, m);   /* (s1 as scratch before the sums) */
    double sigma = noise_sigma(y, s1, m), beta = penalty * log(m > 1 ? (double)m : 2.0);
    winsorize(y, s1, sigma, z, m);
    /* about the series' median, so that the running sums do not cancel */
    memcpy(s2, z, m * sizeof *z);
    double center = m ? median(s2, m) : 0;
    for (size_t i = 0; i < m; i++)
        z[i] -= center;
    s1[0] = s2[0] = 0;
    for (size_t i = 0; i < m; i++) {
        double v = z[i] / sigma;
        s1[i + 1] = s1[i] + v;
        s2[i + 1] = s2[i] + v * v;
    }
    /* f[t]: the best cost of z[0..t); segments (s, t] cost sum (v - mean)^2 */
    size_t nc = 1;
    cand[0] = 0;
    f[0] = -beta;
    for (size_t t = 1; t <= m; t++) {
        double best = INFINITY;
        size_t arg = 0;
        for (size_t c = 0; c < nc; c++) {
            size_t s = cand[c];
            double len = (double)(t - s), sum = s1[t] - s1[s];
            double v = f[s] + (s2[t] - s2[s]) - sum * sum / len + beta;
            if (v < best)
                best = v, arg = s;
        }
        f[t] = best;
        last[t] = arg;
        size_t keep = 0;   /* prune: s can never be better than t as the last change */
        for (size_t c = 0; c < nc; c++) {
            size_t s = cand[c];
            double len = (double)(t - s), sum = s1[t] - s1[s];
            if (f[s] + (s2[t] - s2[s]) - sum * sum / len < f[t])
                cand[keep++] = s;
        }
        cand[keep++] = t;
        nc = keep;
    }
    nat = 0;
    for (size_t t = m; t > 0 && last[t] > 0; t = last[t])
        at[nat++] = (long)orig[last[t]];
    for (long i = 0; i < nat / 2; i++) {
        long tmp = at[i];
        at[i] = at[nat - 1 - i], at[nat - 1 - i] = tmp;
    }
out:
    free(y), free(z), free(orig), free(s1), free(s2), free(f), free(last), free(cand);
    return nat;
}
