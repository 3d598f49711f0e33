/*
 * models.c - the registry of latency models.
 */
#include "model.h"

#include <math.h>

#include <string.h>

static const struct gt_model *const models[] = {
    &gt_model_pareto, &gt_model_normal, &gt_model_delta, &gt_model_empirical, NULL};

const struct gt_model *gt_model_find(const char *name)
{
    for (size_t i = 0; models[i]; i++)
        if (!strcmp(models[i]->name, name))
            return models[i];
    return NULL;
}

/* ---- the loss mixture (model.h) ---- */

double gt_loss_delay(double rto_ms, int j)
{
    double d = 0, r = rto_ms;
    for (int i = 0; i < j; i++) {
        d += r < GT_RTO_MAX_MS ? r : GT_RTO_MAX_MS;
        r *= 2;
    }
    return d;
}

int gt_loss_terms(double p)
{
    if (!(p > 0))
        return 1;
    double t = ceil(log(1e-17) / log(p));
    return t < 1 ? 1 : t > GT_LOSS_MAX_TERMS ? GT_LOSS_MAX_TERMS : (int)t;
}

/* The mixture's terms carry (1 - p) p^j / (1 - p^n) for j < n, so that
 * they sum to 1 and the CDF reaches 1: a remainder left out would leave
 * 1 - G > 0 everywhere and the tail integral of E[max] would diverge. */
double gt_loss_weight0(double p, int n)
{
    return (1 - p) / -expm1((double)n * log(p));
}

/* 1 - F of the mixture from the terms' survival functions: exact in the
 * upper tail, where 1 - sum w_j F_j would cancel. */
static double mix_sf(const struct gt_dist *d, double x)
{
    int n = gt_loss_terms(d->loss_p);
    double s = 0, w = gt_loss_weight0(d->loss_p, n), delay = 0, r = d->rto_ms;
    for (int j = 0; j < n; j++) {
        s += w * (d->model->sf ? d->model->sf(d->p, x - d->shift - delay)
                               : 1 - d->model->cdf(d->p, x - d->shift - delay));
        w *= d->loss_p;
        delay += r < GT_RTO_MAX_MS ? r : GT_RTO_MAX_MS;
        r *= 2;
    }
    return s;
}

/* sum_j w_j F_j relative to the first term: the lower tail's digits. */
static double mix_log_lower(const struct gt_dist *d, double x)
{
    double l0 = d->model->logcdf(d->p, x - d->shift);
    if (l0 == -INFINITY)
        return -INFINITY;
    int n = gt_loss_terms(d->loss_p);
    double s = 0, w = d->loss_p, delay = 0, r = d->rto_ms;
    for (int j = 1; j < n; j++) {
        delay += r < GT_RTO_MAX_MS ? r : GT_RTO_MAX_MS;
        r *= 2;
        double lj = d->model->logcdf(d->p, x - d->shift - delay);
        if (lj == -INFINITY)
            break;
        s += w * exp(lj - l0);
        w *= d->loss_p;
    }
    return log(gt_loss_weight0(d->loss_p, n)) + l0 + log1p(s);
}

double gt_dist_mix_cdf(const struct gt_dist *d, double x)
{
    double sf = mix_sf(d, x);
    return sf < 0.5 ? 1 - sf : exp(mix_log_lower(d, x));
}

double gt_dist_mix_logcdf(const struct gt_dist *d, double x)
{
    double sf = mix_sf(d, x);
    return sf < 0.5 ? log1p(-sf) : mix_log_lower(d, x);
}

double gt_dist_mix_pdf(const struct gt_dist *d, double x)
{
    int n = gt_loss_terms(d->loss_p);
    double s = 0, w = gt_loss_weight0(d->loss_p, n), delay = 0, r = d->rto_ms;
    for (int j = 0; j < n; j++) {
        if (x - d->shift - delay < d->model->lower(d->p))
            break;
        s += w * d->model->pdf(d->p, x - d->shift - delay);
        w *= d->loss_p;
        delay += r < GT_RTO_MAX_MS ? r : GT_RTO_MAX_MS;
        r *= 2;
    }
    return s;
}
