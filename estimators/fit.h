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

/* The levels a verdict holds a model's quantiles to (p50, p90, p99: the
 * advisor's answer), and how sure the window's bounds on them are. */
#define GT_VERDICT_NQ 3
extern const double gt_verdict_levels[GT_VERDICT_NQ];

/* model's quantile at gt_verdict_levels[k], bit for bit what
 * model->quantile gives, from constants of the level computed once. */
double gt_verdict_quantile(const struct gt_model *model, const double *p, int k);
#define GT_VERDICT_CONFIDENCE 0.99

/* Distribution-free bounds on the window's quantiles at those levels:
 * order statistics of its samples (METHOD.md 3).  Where the window is too
 * short to bound a quantile from below, lo is 0; from above, hi is its
 * largest sample: a model's tail beyond all the window has seen is the
 * tail that changes the answer (measured: docs/EVALUATION.md). */
struct gt_quantile_bounds {
    double lo[GT_VERDICT_NQ], hi[GT_VERDICT_NQ];
    unsigned hi_max;          /* bit k: hi[k] is the largest sample */
};

/* The ranks of the bounds of the conf confidence interval of the
 * p-quantile of the distribution behind m samples: the largest kl with
 * P(Bin(m, p) >= kl) >= (1 + conf) / 2 and the smallest kh with
 * P(Bin(m, p) < kh) >= (1 + conf) / 2 (Hahn & Meeker 1991, 5.2); kl = 0
 * when there is none, kh = m + 1.  They depend on m alone. */
void gt_quantile_ranks(size_t m, double p, double conf, size_t *kl, size_t *kh);

/* The bounds at the verdict's levels: ranks for m samples, then the
 * samples at those ranks of m ascending ones (0 and the largest for none). */
struct gt_quantile_ranks {
    size_t lo[GT_VERDICT_NQ], hi[GT_VERDICT_NQ];
};
void gt_quantile_ranks_of(size_t m, struct gt_quantile_ranks *r);
void gt_quantile_bounds_at(const double *xs, size_t m, const struct gt_quantile_ranks *r,
                           struct gt_quantile_bounds *b);
/* The same from m samples in any order, which it reorders (selection of
 * the few ranks, O(m) on average, rather than a sort). */
void gt_quantile_bounds_select(double *xs, size_t m, const struct gt_quantile_ranks *r,
                               struct gt_quantile_bounds *b);

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
    struct gt_quantile_bounds bounds;   /* the window's own quantiles */
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

/* The same with ln x given (lx[i] = log(x[i])), so that fitting both
 * models takes the logs once. */
double gt_fit_index_logs(const struct gt_model *model, const double *p, const double *lx,
                         size_t m, int *classes);

/* The indexes of two models (a or b NULL: not asked) on the same window:
 * its classes counted once; with sorted_lx (lx ascending, or NULL) by a
 * binary search per class edge instead of a division per sample. */
void gt_fit_index_logs2(const struct gt_model *a, const double *pa, double *ra,
                        const struct gt_model *b, const double *pb, double *rb,
                        const double *lx, const double *sorted_lx, size_t m, int *classes);

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
    GT_VERDICT_POOR_FIT = 1,    /* KS distance > max_ks: information only */
    GT_VERDICT_NEG_MASS = 2,    /* a normal with > max_neg_mass below 0 ms */
    GT_VERDICT_NOT_FULL = 4,    /* fewer samples than the window asked */
    GT_VERDICT_NO_INDEX = 8,    /* the model's fit index is not finite */
    GT_VERDICT_OFF_QUANTILE = 16    /* a quantile outside the window's bounds */
};

/* The flags that say a model would change the answer: the advisor falls
 * back to the samples when both candidates carry one (METHOD.md 3). */
#define GT_VERDICT_MISFIT (GT_VERDICT_OFF_QUANTILE | GT_VERDICT_NEG_MASS | GT_VERDICT_NO_INDEX)

#define GT_VERDICT_MAX_KS 0.2        /* [advisor] max_ks default */
#define GT_VERDICT_MARGIN 0.1        /* [advisor] quantile_margin default */
#define GT_VERDICT_MAX_MARGIN 10.0   /* and its largest value */
#define GT_VERDICT_MAX_NEG_MASS 0.01 /* a normal's mass below 0 ms */

/* What a verdict holds a fit to: the KS distance above which it is
 * called a poor fit, and how far (relative) a quantile may lie outside
 * the window's bounds. */
struct gt_verdict_limits {
    double max_ks, margin;
};

/* What a verdict is drawn from: the model and its parameters, its KS
 * distance and fit index, the window's fill and its quantile bounds. */
struct gt_verdict {
    const struct gt_model *model;
    double p[2];
    double ks, chi2;          /* NAN when not computed (a delta) */
    size_t m, window;         /* samples used; samples asked for */
    const struct gt_quantile_bounds *bounds;   /* NULL: not known */
    unsigned flags;           /* set by gt_verdict_check */
    int off;                  /* OFF_QUANTILE: the first level outside */
    double off_q;             /* and the model's quantile there */
};

/* Set v->flags (0: nothing to say). */
void gt_verdict_check(struct gt_verdict *v, const struct gt_verdict_limits *lim);

/* The flags of one candidate fit of a window (model, parameters p, its
 * KS distance and fit index, the window's bounds b or NULL), without
 * the window's fill: what auto, the CCDF legend and the backtest judge
 * a candidate by. */
unsigned gt_verdict_flags(const struct gt_model *model, const double *p, double ks, double chi2,
                          const struct gt_quantile_bounds *b,
                          const struct gt_verdict_limits *lim);

/* One line per flag, "poor fit: ..." etc., into out[max] of
 * GT_VERDICT_LINE bytes each; returns how many (at most
 * GT_VERDICT_MAX_LINES: one a flag). */
#define GT_VERDICT_MAX_LINES 5
#define GT_VERDICT_LINE 200
int gt_verdict_lines(const struct gt_verdict *v, const struct gt_verdict_limits *lim,
                     char (*out)[GT_VERDICT_LINE], int max);

/* The misfit flags shortly ("quantiles off, mass below 0 ms"), into buf. */
void gt_verdict_short(unsigned flags, char *buf, size_t size);

/* Shared by fit and the sliding windows: Pareto and normal parameters
 * from sums, and the alpha <= 1 cut-off. */
double gt_pareto_alpha(double m, double sum_log, double log_min);
double gt_cut_x0(double k, double alpha, double m);

#endif
