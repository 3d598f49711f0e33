/*
 * emaxmc.c - E[max] by Monte Carlo (emaxmc.h): the tests' independent
 * check of the engine (emax.h), draw by draw.
 */
#include "emaxmc.h"

#include <gsl/gsl_rng.h>
#include <math.h>

/* One loss-free draw of d, shift included. */
static double draw0(const struct gt_dist *d, gsl_rng *rng)
{
    if (gt_dist_is_step(d))
        return d->xs[gsl_rng_uniform_int(rng, d->nx)] * d->p[0] + d->shift;
    return d->model->quantile(d->p, gsl_rng_uniform_pos(rng) * (1 - 1e-16)) + d->shift;
}

double gt_emax_monte_carlo(const struct gt_partner_group *g, size_t ng, double cut_x0,
                           bool cut_paper, long draws, unsigned long seed)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    double sum = 0, comp = 0;
    for (long k = 0; k < draws; k++) {
        double mx = -INFINITY;
        for (size_t i = 0; i < ng; i++) {
            const struct gt_dist *d = &g[i].dist;
            /* the max of count iid draws is F^-1(U^(1/count)) */
            double u = gsl_rng_uniform_pos(rng), x;
            if (d->loss_p > 0) {   /* each member: its own retries */
                x = -INFINITY;
                for (double m = 0; m < g[i].count; m++) {
                    int losses = 0;
                    while (losses < GT_LOSS_MAX_TERMS && gsl_rng_uniform(rng) < d->loss_p)
                        losses++;
                    double v = draw0(d, rng) + gt_loss_delay(d->rto_ms, losses);
                    x = v > x ? v : x;
                }
                (void)u;
            } else if (gt_dist_is_step(d)) {
                x = -INFINITY;
                for (double m = 0; m < g[i].count; m++)
                    x = fmax(x, draw0(d, rng));
            } else {
                if (d->model == &gt_model_normal)
                    x = d->model->quantile(d->p, exp(log(u) / g[i].count));
                else if (d->model == &gt_model_pareto)
                    x = d->p[0] * exp(-log(-expm1(log(u) / g[i].count)) / d->p[1]);
                else
                    x = d->p[0];
                x += d->shift;
            }
            mx = x > mx ? x : mx;
        }
        double v = mx <= cut_x0 ? mx : cut_paper ? 0 : cut_x0;
        double y = v - comp, t = sum + y;   /* Kahan */
        comp = (t - sum) - y;
        sum = t;
    }
    gsl_rng_free(rng);
    return sum / (double)draws;
}
