/*
 * emax.h - the expected collective time E[max_i L_i] over independent
 * partners (METHOD.md section 2), quantiles of the max, and each
 * partner's probability of being the slowest.
 *
 * Partners come in groups of identical distributions (count > 1 costs
 * nothing extra).  The engine picks the method:
 *   "delta"          every partner a point mass without loss;
 *   "pareto-iid"     one Pareto group: eq. 8 through lgamma (any n);
 *   "pareto-closed"  Pareto groups, all alpha > 1, no shifts: inclusion-
 *                    exclusion over group multiplicities, used only while
 *                    the cancellation it measures costs < 1e-12 relative;
 *   "integration"    everything else: 1 - prod F_i integrated with GSL's
 *                    adaptive Gauss-Kronrod routines, the product kept in
 *                    log space.
 *   "loss-mean"      one lossy Pareto or normal partner: its mean plus the
 *                    mean delay of its retries, sum_j w_j D_j;
 *   "steps"          every partner a step CDF (empirical, or a point mass
 *                    among them): 1 - G is constant between the partners'
 *                    sample points, and E[max] their finite sum.
 * Empirical partners mixed with parametric ones are integrated interval
 * by interval between their sample points (METHOD.md 2.2); quantiles of
 * a max with jumps are the smallest x where G reaches q, found by
 * bisection to the last bit.
 * With a cut-off x0 (some alpha <= 1, METHOD.md 1.1) the expectation is
 * censored at x0 by default, E = E[min(max L, x0)] = integral_0^x0 (1 - G),
 * which lies in [max_i k_i, x0]; cut_paper gives the paper's eq. 12
 * instead, E = integral_0^x0 x dG(x), which drops the mass beyond x0 and
 * can fall below every partner's minimum.
 *
 * The engine's files: emax.c picks the method and holds the closed
 * forms; emaxcdf.c evaluates G and finds its quantiles; emaxquad.c
 * integrates numerically; emaxfit.c fits G's smooth part once where step
 * tables or ladders are among the partners; slowest.c computes the shares
 * of being slowest.  Their headers are internal; this one is the API
 * (and emaxmc.h the tests' Monte Carlo check).
 */
#ifndef GT_EMAX_H
#define GT_EMAX_H

#include "model.h"
#include "base/error.h"

#include <stddef.h>

struct gt_partner_group {
    struct gt_dist dist;
    double count;           /* identical partners in the group (>= 1, whole) */
};

/* Scratch memory of the engine, reused across calls: one per thread. */
struct gt_emax_ws;
struct gt_emax_ws *gt_emax_ws_new(void);   /* NULL on ENOMEM */
void gt_emax_ws_free(struct gt_emax_ws *ws);

/* The partition an integral ended with, offered to the next call as its
 * starting break points.  A backtest asks for nearly the same integral
 * moment after moment (the window slides by one sample); starting from
 * the last partition skips the bisections that found it.  The answer
 * still meets the tolerance whatever the points are: they only move the
 * work.  Zero-initialise; one per sequence of similar calls. */
#define GT_EMAX_WARM_MAX 48
#define GT_EMAX_WARM_NQ 8
enum { GT_EMAX_WARM_FLAT, GT_EMAX_WARM_TOP, GT_EMAX_WARM_Q0,
       GT_EMAX_WARM_SLOTS = GT_EMAX_WARM_Q0 + GT_EMAX_WARM_NQ };
struct gt_emax_warm {
    int kind;               /* which integral the points are for; 0: none */
    size_t n;
    double pts[GT_EMAX_WARM_MAX];
    /* the last answers of the root finds (where G reaches 1e-17 and
       1 - 1e-10, the quantiles asked for); 0: none yet */
    double at[GT_EMAX_WARM_SLOTS];
};

struct gt_emax_opts {
    double cut_x0;          /* INFINITY: no cut-off */
    bool cut_paper;         /* the paper's eq. 12 (mass beyond x0 dropped) */
    const double *q;        /* quantiles of the max to compute, each in (0,1) */
    size_t nq;
    bool slowest;           /* compute each group's probability of being slowest */
    bool force_integration; /* tests: skip the closed forms */
    struct gt_emax_ws *ws;  /* NULL: allocated for the call */
    /* Relative tolerance of the integrals and quantiles; 0: the default
     * (1e-10 per rule, quantiles to the last bit).  A backtest asks for
     * 1e-6: its errors are percents, and each answer costs fewer points. */
    double epsrel;
    struct gt_emax_warm *warm;  /* NULL: every integral starts cold */
    /* compute what each lossy group's loss costs (gt_emax_result.loss_cost) */
    bool loss_cost;
    /* the quantiles q alone: e_max is NAN, method "quantiles".  Each
     * quantile is the one a full call gives (its root find reads only the
     * partners and its own warm slot): a live calibration asks nothing
     * else, and E[max] costs it more than they do. */
    bool quantiles_only;
};

struct gt_emax_result {
    double e_max;
    double n;               /* partners in all */
    const char *method;
    double abserr;          /* the method's own error estimate */
    double *q_values;       /* caller's array of nq, or NULL */
    /* caller's array of ngroups, or NULL: P(the group's slowest member is
     * at least every other partner).  With step CDFs or point masses ties
     * have weight and count for every group in them, so the values can
     * sum to more than 1. */
    double *p_slowest;
    /* caller's array of ngroups, or NULL (with opts.loss_cost): E[max]
     * less E[max] with that group loss-free, 0 for a loss-free group.
     * With step tables or ladders among the partners, from the same fit
     * as E[max] (the integral of the difference of the two G); else one
     * more E[max] per lossy group. */
    double *loss_cost;
};

/* The largest alpha <= 1 cut-off over Pareto groups for a window of m
 * samples, or INFINITY when every alpha > 1. */
double gt_emax_cut_for_window(const struct gt_partner_group *g, size_t ng, double m);

int gt_emax(const struct gt_partner_group *g, size_t ng, const struct gt_emax_opts *o,
            struct gt_emax_result *r, struct gt_error *err);

#endif
