/*
 * pareto.c - the Pareto distribution, location k > 0 (the minimum), shape
 * alpha > 0:  F(x) = 1 - (k/x)^alpha for x >= k (METHOD.md section 1).
 * The log-CDF is computed from whichever of log1p / expm1 keeps digits,
 * since the E[max] engine sums thousands of them.
 */
#include "model.h"

#include <math.h>

static const char *pareto_check(const double *p)
{
    if (!(p[0] > 0) || !isfinite(p[0]))
        return "scale k must be a finite number > 0";
    if (!(p[1] > 0) || !isfinite(p[1]))
        return "shape alpha must be a finite number > 0";
    return NULL;
}

static double pareto_cdf(const double *p, double x)
{
    if (!(x > p[0]))
        return 0;
    return -expm1(p[1] * log(p[0] / x));
}

static double pareto_sf(const double *p, double x)
{
    if (!(x > p[0]))
        return 1;
    return exp(p[1] * log(p[0] / x));
}

static double pareto_logcdf(const double *p, double x)
{
    if (!(x > p[0]))
        return -INFINITY;
    double t = p[1] * log(p[0] / x);   /* log of the tail (k/x)^alpha, < 0 */
    return t < -0.693 ? log1p(-exp(t)) : log(-expm1(t));
}

static double pareto_pdf(const double *p, double x)
{
    if (x < p[0])
        return 0;
    return p[1] / x * exp(p[1] * log(p[0] / x));
}

static double pareto_quantile(const double *p, double q)
{
    return p[0] * exp(-log1p(-q) / p[1]);
}

static double pareto_mean(const double *p)
{
    return p[1] > 1 ? p[1] * p[0] / (p[1] - 1) : INFINITY;
}

static double pareto_lower(const double *p)
{
    return p[0];
}

static double pareto_sample(const double *p, double u, double u2)
{
    (void)u2;
    return p[0] * exp(-log(u) / p[1]);   /* u in (0,1): inverse of the tail */
}

/* -log F = sum_j u^j / j with u = (k/y)^alpha, and integral_x^inf
 * (k/y)^(j alpha) dy = x u(x)^j / (j alpha - 1). */
static double pareto_tail_integral(const double *p, double x)
{
    if (p[1] <= 1)
        return INFINITY;
    double u = exp(p[1] * log(p[0] / x)), uj = u, sum = 0;
    for (int j = 1; j < 200; j++) {
        double term = uj / (j * (j * p[1] - 1));
        sum += term;
        if (term <= 1e-17 * sum)
            break;
        uj *= u;
    }
    return x * sum;
}

const struct gt_model gt_model_pareto = {
    "pareto", {"k", "alpha"}, 2, pareto_check, pareto_cdf, pareto_logcdf, pareto_pdf,
    pareto_quantile, pareto_mean, pareto_lower, pareto_sample, pareto_tail_integral, pareto_sf};
