/*
 * model.h - latency distribution models as tables of functions.
 *
 * A model (Pareto, normal, delta) is one file filling a struct gt_model;
 * models.c registers them.  Parameters live in a plain double[2]; a
 * struct gt_dist pairs a model with its parameters, a constant shift
 * (intra-site latency, compute time) and nothing else, so the E[max]
 * engine can treat every partner the same way.
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

/* By name, or NULL. */
const struct gt_model *gt_model_find(const char *name);

/* One partner's latency: model(p) + shift. */
struct gt_dist {
    const struct gt_model *model;
    double p[2];
    double shift;
};

static inline double gt_dist_cdf(const struct gt_dist *d, double x)
{
    return d->model->cdf(d->p, x - d->shift);
}

static inline double gt_dist_logcdf(const struct gt_dist *d, double x)
{
    return d->model->logcdf(d->p, x - d->shift);
}

static inline double gt_dist_pdf(const struct gt_dist *d, double x)
{
    return d->model->pdf(d->p, x - d->shift);
}

#endif
