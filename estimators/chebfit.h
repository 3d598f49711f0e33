/*
 * chebfit.h - a smooth function's integral between many points, from one
 * piecewise Chebyshev fit.
 *
 * E[max] with step CDFs among the partners (empirical ones, and lossy
 * ones whose retries multiply their points) integrates the smooth part
 * of the max's CDF between thousands of consecutive step points.  One
 * adaptive rule per interval costs 21 evaluations or more each; a fit of
 * the smooth part, made once over the whole range in panels split at its
 * own kinks (the retries' starts), gives every interval's integral from
 * its antiderivative's series, with no evaluation at all.
 *
 * Each panel is interpolated at 11, then 33 Chebyshev points of the first
 * kind (nested: the second level reuses the first one's values; never at
 * the panel's ends, where a density may jump) and halved when even 33 do
 * not show, by the last coefficients, that its integral
 * is within tol * (its width / the range's width): the whole range then
 * holds tol.  Several functions can be fitted at once on the same
 * points (E[max]'s shares: one density per partner, one G shared).
 */
#ifndef GT_CHEBFIT_H
#define GT_CHEBFIT_H

#include <stdbool.h>
#include <stddef.h>

#define GT_CHEB_N 33
#define GT_CHEB_MAX_PANELS 4096

struct gt_cheb;

struct gt_cheb *gt_cheb_new(void);   /* NULL on ENOMEM */
void gt_cheb_free(struct gt_cheb *c);

/* Fit the m functions f fills into out[0..m) at x over [a, b], split at
 * the break points bp[0..nbp) (ascending; those outside (a, b) are
 * skipped) into segments, segment i (ending at bp[i], the last at b) in
 * the variable w = ln(x - origin[i]) (origin[i] below its start: a
 * function that falls like a power of x - origin is smooth in w, and a
 * steep start at the segment's left end is spread out), function i to
 * an absolute integral error of tol[i] over the range.  false on
 * ENOMEM, or when it needs more than GT_CHEB_MAX_PANELS panels (a
 * function not smooth enough between the break points, or not finite). */
bool gt_cheb_fit(struct gt_cheb *c, void (*f)(double x, void *ctx, double *out), void *ctx,
                 size_t m, double a, double b, const double *bp, const double *origin,
                 size_t nbp, const double *tol);

/* integral of function i's fit over [x0, x1], a <= x0 <= x1 <= b */
double gt_cheb_integral(const struct gt_cheb *c, size_t i, double x0, double x1);

/* The integrals of every function over [x[j - 1], x[j]] for ascending
 * x[0..n) within the range, into out[(j - 1) * m + i] (function i): one
 * evaluation of each fit per point.  false on ENOMEM. */
bool gt_cheb_intervals(const struct gt_cheb *c, const double *x, size_t n, double *out);

/* Function i's fit's values at x[0..n) (best ascending) into out; 0
 * outside the range. */
void gt_cheb_values(const struct gt_cheb *c, size_t i, const double *x, size_t n, double *out);

/* How many evaluations of f the last fit took (tests, benchmarks). */
size_t gt_cheb_evaluations(const struct gt_cheb *c);

#endif
