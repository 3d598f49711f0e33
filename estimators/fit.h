/*
 * fit.h - fitting a window of RTT samples (METHOD.md section 1.1-1.2):
 * Pareto by maximum likelihood over all m samples, normal by mean and
 * standard deviation (m - 1 divisor), the degenerate cases (all samples
 * equal: a delta; alpha <= 1: the expectation is cut at
 * x0 = k m^(1/alpha)), the chi-square fit index on log data, the
 * Kolmogorov-Smirnov distance, and the choice between the two.
 */
#ifndef GT_FIT_H
#define GT_FIT_H

#include "model.h"
#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gt_model_fit {
    bool ok;            /* false: not applicable (why says so) */
    const char *why;
    double p[2];
    double chi2;        /* lambda-hat squared; INFINITY if a class expects 0 */
    double ks;          /* sup |F_n - F| */
};

struct gt_fit {
    size_t m;           /* samples used */
    bool timed;         /* first_ts/last_ts are known (gt_fit_series) */
    int64_t first_ts;   /* the window's first used sample (unix s) */
    int64_t last_ts;    /* and its last one */
    size_t valid;       /* samples of the window that were answered */
    size_t filled;      /* lost samples replaced by the previous valid one
                           (also one before the window: the prior) */
    size_t dropped;     /* leading lost samples with nothing before them */
    int64_t outage_since;   /* no valid sample in the window: the prior's
                               time (the window is a delta at its value); 0 */
    bool degenerate;    /* every sample equal: the fit is a delta */
    struct gt_model_fit pareto, normal;
    const struct gt_model *selected;
    double p[2];        /* parameters of the selected model */
    double cut_x0;      /* Pareto alpha <= 1: k m^(1/alpha); else INFINITY */
    int classes;        /* chi-square classes used (0 for a delta) */
};

/* Which model to report as selected. */
enum gt_fit_choice { GT_FIT_AUTO, GT_FIT_PARETO, GT_FIT_NORMAL };

/* Fit the n values x (NAN = lost; each is replaced by the previous valid
 * one, leading lost ones are dropped).  Needs at least 2 valid samples;
 * a negative or non-finite sample is GT_EINPUT. */
int gt_fit_window(const double *x, size_t n, enum gt_fit_choice choice,
                  struct gt_fit *out, struct gt_error *err);

/* The same for a timed window: ts[i] is the time of x[i] (ascending), and
 * the result carries the window's first and last timestamp (the first
 * after any dropped leading lost samples, the last slot's even if lost:
 * it was filled).  prior (NAN: none) is the last valid sample before the
 * window, at prior_ts: leading lost samples take its value instead of
 * being dropped (METHOD.md 1.1), and a window with no valid sample at
 * all is then a delta at it (outage_since = prior_ts); with no prior
 * either, it is GT_EINPUT.  The one rule for every window: fit, estimate
 * and fit --all-windows alike. */
int gt_fit_series(const double *x, const int64_t *ts, size_t n, double prior,
                  int64_t prior_ts, enum gt_fit_choice choice, struct gt_fit *out,
                  struct gt_error *err);

/* The m values gt_fit_series fits for the same window (lost ones filled,
 * leading lost ones without a prior dropped), ascending, into out[n]:
 * the empirical model's samples (METHOD.md 2.2). */
size_t gt_fit_window_values(const double *x, size_t n, double prior, double *out);

/* The chi-square fit index of model(p) on m positive samples, classes on
 * log x by Scott's rule; *classes receives N.  NAN when every sample is
 * equal (no classes). */
double gt_fit_index(const struct gt_model *model, const double *p, const double *x,
                    size_t m, int *classes);

/* Kolmogorov-Smirnov distance of model(p) to the sorted sample xs. */
double gt_ks_distance(const struct gt_model *model, const double *p, const double *xs,
                      size_t m);

/* Pick a model from two fitted candidates: the smaller chi-square wins;
 * a tie or two infinite values go to the smaller KS distance, and a full
 * tie to Pareto (the paper's finding on AMP data).  Not-ok fits lose. */
const struct gt_model *gt_fit_select(const struct gt_model_fit *pareto,
                                     const struct gt_model_fit *normal);

/* ---- verdicts: when a fit should not be trusted as it is ---- */

enum gt_verdict_flag {
    GT_VERDICT_POOR_FIT = 1,    /* the selected model's KS distance > max_ks */
    GT_VERDICT_NEG_MASS = 2,    /* a normal with > max_neg_mass below 0 ms */
    GT_VERDICT_NOT_FULL = 4,    /* fewer samples than the window asked */
    GT_VERDICT_NO_INDEX = 8     /* the selected model's fit index is not finite */
};

#define GT_VERDICT_MAX_KS 0.2        /* [advisor] max_ks default */
#define GT_VERDICT_MAX_NEG_MASS 0.01 /* a normal's mass below 0 ms */

/* What a verdict is drawn from: the selected model and its parameters,
 * its KS distance and fit index, and the window's fill. */
struct gt_verdict {
    const struct gt_model *model;
    double p[2];
    double ks, chi2;          /* NAN when not computed (a delta) */
    size_t m, window;         /* samples used; samples asked for */
    unsigned flags;           /* set by gt_verdict_check */
};

/* Set v->flags (0: nothing to say). */
void gt_verdict_check(struct gt_verdict *v, double max_ks);

/* One line per flag, "poor fit: ..." etc., into out[max] of 160 bytes
 * each; returns how many. */
int gt_verdict_lines(const struct gt_verdict *v, double max_ks, char (*out)[160], int max);

/* Shared by fit and the sliding windows: Pareto and normal parameters
 * from sums, and the alpha <= 1 cut-off. */
double gt_pareto_alpha(double m, double sum_log, double log_min);
double gt_cut_x0(double k, double alpha, double m);

#endif
