/*
 * ladder.h - a lossy partner's CDF compiled for the E[max] engine
 * (METHOD.md 2.1): the loss mixture F(x) = sum_{j<n} w_j F0(x - s - D_j)
 * as a fixed ladder of retry delays D_j with geometric weights w_j,
 * truncated where what it leaves out moves E[max] by less than a budget
 * the caller gives, its weights and the weight left above each rung
 * computed once.
 *
 * Evaluating it needs no weight, delay or term count again, and below
 * the first retry (where the max of a collective mostly lies) no more
 * than the loss-free model: log F = log w_0 + log F0.  Above it, each
 * retry that has started adds one term; the ones not yet started add
 * their weight, known in advance.
 *
 * Pareto and normal partners only: a lossy point mass or empirical
 * partner is a step CDF (steps.h).
 */
#ifndef GT_LADDER_H
#define GT_LADDER_H

#include "model.h"

#include <stddef.h>

struct gt_ladder {
    const struct gt_model *model;   /* &gt_model_pareto or &gt_model_normal */
    double p[2];
    double shift;
    double loss_p;
    double log_w0;            /* log of the first term's weight */
    /* n terms: delay[j] = D_j, w[j] its weight, rest[j] = sum_{i>j} w_i
     * (rest[n - 1] = 0).  The arrays belong to whoever compiled it. */
    int n;
    const double *delay, *w, *rest;
    /* gone[j]: x - shift - D_j beyond which w_j (1 - F0) is below
     * GT_LADDER_GONE, and gt_ladder_eval leaves term j out */
    const double *gone;
    /* where each retry's copy starts to rise, minus its delay: Pareto k,
     * normal mu - 38.5 sigma (below, its CDF is 0 in double) */
    double rise;
    double bound;             /* E[max] may move by at most this (ms, per partner) */
};

/* How many terms d's ladder keeps for a budget (ms): the fewest n with
 * p^n (D_n + 120 s p / (1 - p)) <= budget (METHOD.md 2.1 proves that
 * this bounds what the terms beyond n add to E[max], per partner), at
 * least 1, at most GT_LOSS_MAX_TERMS. */
int gt_ladder_terms(double loss_p, double rto_ms, double budget);

/* Doubles a term's arrays take; what a copy's term may leave out of
 * F and of 1 - F once its climb is that far behind (its weight's share
 * of 1 - F is 1e-20 there, below any tolerance of F, G or their logs:
 * the terms left out at once are at most GT_LOSS_MAX_TERMS) */
#define GT_LADDER_PER_TERM 4
#define GT_LADDER_GONE 1e-20

/* Compile d (Pareto or normal with loss_p > 0) with n terms (from
 * gt_ladder_terms) into l, its arrays in mem[GT_LADDER_PER_TERM n]. */
void gt_ladder_compile(const struct gt_dist *d, int n, double *mem, struct gt_ladder *l);

double gt_ladder_logcdf(const struct gt_ladder *l, double x);
/* log F at x, and from the same terms the density (pdf) and the
 * loss-free log F0 (log0); either pointer may be NULL.  Terms whose copy
 * has climbed past gone[] are left out (each below GT_LADDER_GONE). */
double gt_ladder_eval(const struct gt_ladder *l, double x, double *pdf, double *log0);
/* the mixture's survival 1 - F, with its relative accuracy in the upper tail */
double gt_ladder_sf(const struct gt_ladder *l, double x);
/* integral_x^inf (1 - F(y)) dy, in closed form (alpha > 1 for Pareto) */
double gt_ladder_sf_integral(const struct gt_ladder *l, double x);
/* x at or above which term j has started (its copy's lower end, or for
 * a normal its median), shift included */
double gt_ladder_start(const struct gt_ladder *l, int j);

#endif
