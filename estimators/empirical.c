/*
 * empirical.c - the window's own samples as a step CDF (METHOD.md 2.2):
 * the model that cannot misfit, for windows neither parametric model
 * describes.
 *
 * F(x) = #{k : x_k <= x} / n over the n samples of a window.  The
 * samples are borrowed through the struct gt_dist (xs, nx), so the
 * table's functions of a parameter array alone cannot evaluate it: every
 * caller goes through the gt_dist_* functions of model.h, which come
 * here.  p[0] scales every sample (1 as fitted; 2 for a rendezvous that
 * takes the round trip twice).
 *
 * A sample's point is always formed as xs[k] * scale + offset, offset =
 * shift + D_j (the backoff after j losses), and counted with the same
 * expression, so the CDF jumps exactly at the points gt_emp_points lists:
 * E[max] over step CDFs is then an exact finite sum.
 */
#include "model.h"

#include <math.h>
#include <stddef.h>

static const char *emp_check(const double *p)
{
    return isfinite(p[0]) && p[0] > 0 ? NULL : "the sample scale must be > 0";
}

/* Without the samples nothing can be evaluated: NAN, never called by the
 * gt_dist_* functions. */
static double emp_none(const double *p, double x)
{
    (void)p, (void)x;
    return NAN;
}

static double emp_none1(const double *p)
{
    (void)p;
    return NAN;
}

static double emp_none2(const double *p, double u, double u2)
{
    (void)p, (void)u, (void)u2;
    return NAN;
}

const struct gt_model gt_model_empirical = {
    "empirical", {NULL, NULL}, 0, emp_check, emp_none, emp_none, emp_none, emp_none,
    emp_none1, emp_none1, emp_none2, emp_none, emp_none};

void gt_dist_set_empirical(struct gt_dist *d, const double *xs, size_t n)
{
    d->model = &gt_model_empirical;
    d->p[0] = 1;
    d->p[1] = 0;
    d->xs = xs;
    d->nx = n;
}

const char *gt_emp_check(const struct gt_dist *d)
{
    if (!d->xs || d->nx == 0)
        return "no samples";
    if (d->nx > GT_EMP_MAX_SAMPLES)
        return "more samples than an empirical partner may have (1,048,576)";
    for (size_t k = 0; k < d->nx; k++)
        if (!isfinite(d->xs[k]) || (k && d->xs[k] < d->xs[k - 1]))
            return "the samples must be finite and ascending";
    return emp_check(d->p);
}

/* #{k : xs[k] * scale + off <= x}: the predicate is monotone in k (the
 * samples ascend and rounding is monotone), so a binary search finds it. */
static size_t count_le(const struct gt_dist *d, double off, double x)
{
    size_t lo = 0, hi = d->nx;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->xs[mid] * d->p[0] + off <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* 1 - F and F as sums over the loss terms (one term without loss), each
 * from whole counts: neither cancels. */
static void emp_cdf_sf(const struct gt_dist *d, double x, double *cdf, double *sf)
{
    double n = (double)d->nx;
    if (!(d->loss_p > 0)) {
        size_t c = count_le(d, d->shift, x);
        *cdf = (double)c / n;
        *sf = (double)(d->nx - c) / n;
        return;
    }
    int terms = gt_loss_terms(d->loss_p);
    double w = gt_loss_weight0(d->loss_p, terms), delay = 0, r = d->rto_ms, lo = 0, up = 0;
    for (int j = 0; j < terms; j++) {
        size_t c = count_le(d, d->shift + delay, x);
        lo += w * (double)c / n;
        up += w * (double)(d->nx - c) / n;
        w *= d->loss_p;
        delay += r < GT_RTO_MAX_MS ? r : GT_RTO_MAX_MS;
        r *= 2;
    }
    *cdf = lo;
    *sf = up;
}

double gt_emp_cdf(const struct gt_dist *d, double x)
{
    double cdf, sf;
    emp_cdf_sf(d, x, &cdf, &sf);
    return sf < 0.5 ? 1 - sf : cdf;
}

double gt_emp_logcdf(const struct gt_dist *d, double x)
{
    double cdf, sf;
    emp_cdf_sf(d, x, &cdf, &sf);
    if (cdf <= 0)
        return -INFINITY;
    return sf < 0.5 ? log1p(-sf) : log(cdf);
}

double gt_emp_quantile(const struct gt_dist *d, double q)
{
    /* the smallest sample with F >= q */
    double k = ceil(q * (double)d->nx);
    size_t i = k < 1 ? 0 : k >= (double)d->nx ? d->nx - 1 : (size_t)k - 1;
    return d->xs[i] * d->p[0] + d->shift;
}

double gt_emp_mean(const struct gt_dist *d)
{
    double s = 0;
    for (size_t k = 0; k < d->nx; k++)
        s += d->xs[k];
    return s / (double)d->nx * d->p[0] + d->shift;
}

size_t gt_emp_points(const struct gt_dist *d, double from, double to, double *out, size_t cap)
{
    int terms = d->loss_p > 0 ? gt_loss_terms(d->loss_p) : 1;
    double delay = 0, r = d->rto_ms;
    size_t n = 0;
    for (int j = 0; j < terms; j++) {
        double off = d->shift + delay;
        for (size_t k = count_le(d, off, from); k < d->nx; k++) {
            double t = d->xs[k] * d->p[0] + off;
            if (t >= to)
                break;
            if (n < cap)
                out[n] = t;
            n++;
        }
        delay += r < GT_RTO_MAX_MS ? r : GT_RTO_MAX_MS;
        r *= 2;
    }
    return n;
}
