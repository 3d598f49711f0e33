/*
 * normal.c - the normal distribution (mu, sigma > 0).  The log-CDF uses
 * GSL's log erfc so far lower tails do not underflow to log(0).
 */
#define _DEFAULT_SOURCE
#include "model.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_erf.h>
#include <math.h>

static const char *normal_check(const double *p)
{
    if (!isfinite(p[0]))
        return "mean mu must be a finite number";
    if (!(p[1] > 0) || !isfinite(p[1]))
        return "standard deviation sigma must be a finite number > 0";
    return NULL;
}

static double normal_cdf(const double *p, double x)
{
    /* erfc keeps relative accuracy in the lower tail and is several times
       cheaper than gsl_cdf_gaussian_P (fits call this per sample) */
    return 0.5 * erfc((p[0] - x) / p[1] * M_SQRT1_2);
}

static double normal_sf(const double *p, double x)
{
    return 0.5 * erfc((x - p[0]) / p[1] * M_SQRT1_2);
}

static double normal_logcdf(const double *p, double x)
{
    double z = (x - p[0]) / p[1];
    if (z > 5)
        return log1p(-gsl_cdf_ugaussian_Q(z));
    return -M_LN2 + gsl_sf_log_erfc(-z / M_SQRT2);
}

static double normal_pdf(const double *p, double x)
{
    return gsl_ran_gaussian_pdf(x - p[0], p[1]);
}

static double normal_quantile(const double *p, double q)
{
    return p[0] + gsl_cdf_gaussian_Pinv(q, p[1]);
}

static double normal_mean(const double *p)
{
    return p[0];
}

static double normal_lower(const double *p)
{
    (void)p;
    return -INFINITY;
}

static double normal_sample(const double *p, double u, double u2)
{
    /* Box-Muller */
    return p[0] + p[1] * sqrt(-2 * log(u)) * cos(2 * M_PI * u2);
}

/* With Q(z) <= 1e-10, -log Phi = Q + Q^2/2 + ...: the first term's
 * integral is sigma (phi(z) - z Q(z)); the rest is below 1e-10 of it. */
static double normal_tail_integral(const double *p, double x)
{
    double z = (x - p[0]) / p[1];
    if (z > 38.6)
        return 0;   /* phi(z) < 1e-323: spares exp's slow underflow path */
    return p[1] * (gsl_ran_ugaussian_pdf(z) - z * gsl_cdf_ugaussian_Q(z));
}

const struct gt_model gt_model_normal = {
    "normal", {"mu", "sigma"}, 2, normal_check, normal_cdf, normal_logcdf, normal_pdf,
    normal_quantile, normal_mean, normal_lower, normal_sample, normal_tail_integral, normal_sf};
