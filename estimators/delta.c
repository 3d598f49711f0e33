/*
 * delta.c - a point mass at x0: what a window of identical samples fits
 * (METHOD.md section 1.1, alpha = infinity, sigma = 0).
 */
#include "model.h"

#include <math.h>

static const char *delta_check(const double *p)
{
    return isfinite(p[0]) ? NULL : "the point must be a finite number";
}

static double delta_cdf(const double *p, double x)
{
    return x >= p[0] ? 1 : 0;
}

static double delta_sf(const double *p, double x)
{
    return x < p[0] ? 1 : 0;
}

static double delta_logcdf(const double *p, double x)
{
    return x >= p[0] ? 0 : -INFINITY;
}

static double delta_pdf(const double *p, double x)
{
    (void)p, (void)x;
    return 0;
}

static double delta_quantile(const double *p, double q)
{
    (void)q;
    return p[0];
}

static double delta_mean(const double *p)
{
    return p[0];
}

static double delta_sample(const double *p, double u, double u2)
{
    (void)u, (void)u2;
    return p[0];
}

static double delta_tail_integral(const double *p, double x)
{
    return x >= p[0] ? 0 : INFINITY;   /* -log F is 0 above the point */
}

const struct gt_model gt_model_delta = {
    "delta", {"x", NULL}, 1, delta_check, delta_cdf, delta_logcdf, delta_pdf,
    delta_quantile, delta_mean, delta_mean, delta_sample, delta_tail_integral, delta_sf};
