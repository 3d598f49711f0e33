/*
 * extrap.h - extrapolating a time measured at a few process counts to a
 * larger one (METHOD.md section 7).
 *
 * The four classic models (ScalaExtrap) are fitted exactly as METHOD.md
 * writes them and compared by their score d, the smallest winning:
 *   constant          t = c        (the sample farthest from the mean
 *                                   dropped; d = sd / c)
 *   linear            t = a n + b  (least squares; d = sqrt(SSR) / mean
 *                                   of the fitted t_i)
 *   inverse           t = k / n    (k_i = t_i n_i, the farthest dropped;
 *                                   d = sd / k)
 *   inverse-constant  t = k / n + c (t n = c n + k by least squares;
 *                                   d = sqrt(SSR) / mean fitted t_i n_i)
 * A wider family adds
 *   power             t = a n^p + c (p searched in [-3, 3])
 *   log               t = a + b ln n
 * (their d is sqrt(SSR) / mean fitted t_i), and every model is also
 * judged by leave-one-out: refit without each sample in turn, predict it,
 * and average the relative errors.  The classic choice (smallest d) and
 * the leave-one-out choice are both reported.
 */
#ifndef GT_EXTRAP_H
#define GT_EXTRAP_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

enum gt_xmodel {
    GT_X_CONSTANT, GT_X_LINEAR, GT_X_INVERSE, GT_X_INVERSE_CONSTANT,
    GT_X_POWER, GT_X_LOG, GT_X_NMODELS
};
#define GT_X_CLASSIC 4            /* the first four */

struct gt_xfit {
    bool ok;                      /* false: the model cannot be fitted (why) */
    const char *why;
    double p[3];                  /* see gt_xmodel_params */
    double score;                 /* d; NAN when undefined (too few samples) */
    double loo;                   /* mean |prediction - t| / t leaving one out;
                                     NAN when too few samples */
    double prediction;            /* at the asked n */
    long dropped;                 /* constant, inverse: the dropped sample, else -1 */
};

struct gt_extrap {
    struct gt_xfit fit[GT_X_NMODELS];
    int classic;                  /* smallest d of the first four, -1 if none */
    int loo_best;                 /* smallest leave-one-out error, -1 if none */
    double n_max;                 /* the largest sampled count */
    double reach;                 /* at / n_max */
};

/* Needs at least 3 samples with n >= 1 and t >= 0 finite; at >= 1. */
int gt_extrap_run(const double *n, const double *t, size_t m, double at,
                  struct gt_extrap *out, struct gt_error *err);

const char *gt_xmodel_name(int model);
int gt_xmodel_find(const char *name);                /* -1 if unknown */
const char *const *gt_xmodel_params(int model);      /* names, NULL-ended */
double gt_xmodel_eval(int model, const double *p, double n);

#endif
