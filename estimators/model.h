/*
 * model.h - latency distribution models as tables of functions.
 *
 * A model (Pareto, normal, delta, empirical) is one file filling a struct
 * gt_model; models.c registers them.  Parameters live in a plain
 * double[2]; a struct gt_dist pairs a model with its parameters, a
 * constant shift (intra-site latency, compute time), the loss mixture
 * and, for the empirical model, the window's samples, so the E[max]
 * engine can treat every partner the same way.  Evaluate a gt_dist with
 * the gt_dist_* functions below, never through its model's table: the
 * empirical model's table has no samples to evaluate.
 */
#ifndef GT_MODEL_H
#define GT_MODEL_H

#include <stdbool.h>
#include <stddef.h>

struct gt_model {
    const char *name;
    const char *param_names[2];
    int nparams;
    /* NULL if the parameters are valid, else why not. */
    const char *(*check)(const double *p);
    double (*cdf)(const double *p, double x);
    double (*logcdf)(const double *p, double x);   /* -INFINITY where cdf = 0 */
    double (*pdf)(const double *p, double x);      /* 0 for the delta */
    double (*quantile)(const double *p, double q); /* q in [0, 1) */
    double (*mean)(const double *p);               /* INFINITY if none */
    double (*lower)(const double *p);              /* support's lower end */
    /* A random variate from a uniform u in (0, 1) (Monte Carlo tests). */
    double (*sample)(const double *p, double u, double u2);
    /* integral_x^inf -log F(y) dy, for x far enough in the upper tail
     * that -log F(x) <= 1e-10 (E[max] integrates its tail in closed
     * form); INFINITY where it diverges (Pareto alpha <= 1). */
    double (*tail_integral)(const double *p, double x);
    /* 1 - cdf computed directly, so that it keeps its relative accuracy
     * in the upper tail, where 1 - cdf would cancel to 0. */
    double (*sf)(const double *p, double x);
};

extern const struct gt_model gt_model_pareto;
extern const struct gt_model gt_model_normal;
extern const struct gt_model gt_model_delta;
extern const struct gt_model gt_model_empirical;

/* By name, or NULL. */
const struct gt_model *gt_model_find(const char *name);

/* One partner's latency: model(p) + shift, and with loss_p > 0 the
 * retransmissions of a lossy path (METHOD.md 2.1): a message lost K times
 * before it gets through, P(K = j) = (1 - p) p^j, waits the backoff
 * D_K = sum_{i<K} min(R 2^i, 120 s) more (R = rto_ms, the Linux minimum
 * RTO by default, doubled per retry and capped at Linux's TCP_RTO_MAX),
 * so F(x) = sum_j (1 - p) p^j F_model(x - shift - D_j). */
struct gt_dist {
    const struct gt_model *model;
    double p[2];
    double shift;
    double loss_p;            /* 0: no loss; < 1 */
    double rto_ms;            /* R, with loss_p > 0 */
    const double *xs;         /* model empirical: the window's nx samples, */
    size_t nx;                /* ascending (borrowed); p[0] scales them */
};

/* ---- the empirical model (empirical.c, METHOD.md 2.2) ---- */

#define GT_EMP_MAX_SAMPLES 1048576

/* d becomes the step CDF of the n ascending samples xs (borrowed), scale
 * 1; its shift and loss stay. */
void gt_dist_set_empirical(struct gt_dist *d, const double *xs, size_t n);
/* NULL if d's samples are usable, else why not. */
const char *gt_emp_check(const struct gt_dist *d);
double gt_emp_cdf(const struct gt_dist *d, double x);
double gt_emp_logcdf(const struct gt_dist *d, double x);
/* Loss-free, shift included: the smallest sample point with F >= q. */
double gt_emp_quantile(const struct gt_dist *d, double q);
double gt_emp_mean(const struct gt_dist *d);
/* The points in (from, to) where d's CDF jumps, loss retries included,
 * into out[cap] in no particular order; returns how many there are (more
 * than cap: only cap were written). */
size_t gt_emp_points(const struct gt_dist *d, double from, double to, double *out, size_t cap);

#define GT_RTO_MAX_MS 120000.0   /* Linux TCP_RTO_MAX */

/* The loss mixture (models.c): terms j = 0.. until the weight left is
 * below 1e-17 (at most GT_LOSS_MAX_TERMS). */
#define GT_LOSS_MAX_TERMS 4096
double gt_dist_mix_cdf(const struct gt_dist *d, double x);
double gt_dist_mix_logcdf(const struct gt_dist *d, double x);
double gt_dist_mix_pdf(const struct gt_dist *d, double x);
/* The backoff D_j after j losses, ms. */
double gt_loss_delay(double rto_ms, int j);
/* How many mixture terms carry all but 1e-17 of the weight. */
int gt_loss_terms(double p);
/* The first term's weight over n terms, renormalised: (1 - p) / (1 - p^n);
 * term j weighs that times p^j. */
double gt_loss_weight0(double p, int n);

static inline bool gt_dist_is_step(const struct gt_dist *d)
{
    return d->model == &gt_model_empirical;
}

static inline double gt_dist_cdf(const struct gt_dist *d, double x)
{
    if (gt_dist_is_step(d))
        return gt_emp_cdf(d, x);
    if (d->loss_p > 0)
        return gt_dist_mix_cdf(d, x);
    return d->model->cdf(d->p, x - d->shift);
}

static inline double gt_dist_logcdf(const struct gt_dist *d, double x)
{
    if (gt_dist_is_step(d))
        return gt_emp_logcdf(d, x);
    if (d->loss_p > 0)
        return gt_dist_mix_logcdf(d, x);
    return d->model->logcdf(d->p, x - d->shift);
}

/* The density; 0 for a step CDF (its mass sits on points). */
static inline double gt_dist_pdf(const struct gt_dist *d, double x)
{
    if (gt_dist_is_step(d))
        return 0;
    if (d->loss_p > 0)
        return gt_dist_mix_pdf(d, x);
    return d->model->pdf(d->p, x - d->shift);
}

/* Where the support starts (a loss retry only comes later), shift included. */
static inline double gt_dist_lower(const struct gt_dist *d)
{
    if (gt_dist_is_step(d))
        return d->xs[0] * d->p[0] + d->shift;
    return d->model->lower(d->p) + d->shift;
}

/* The q-quantile without the loss retries, shift included. */
static inline double gt_dist_quantile0(const struct gt_dist *d, double q)
{
    if (gt_dist_is_step(d))
        return gt_emp_quantile(d, q);
    return d->model->quantile(d->p, q) + d->shift;
}

/* The mean without the loss retries, shift included. */
static inline double gt_dist_mean0(const struct gt_dist *d)
{
    if (gt_dist_is_step(d))
        return gt_emp_mean(d);
    return d->model->mean(d->p) + d->shift;
}

#endif
