/*
 * emaxquad.h - inside the E[max] engine (emax.h): numerical integration
 * of a function of G (emaxcdf.h) over a range of the max's support.  Not
 * public API: shared by the engine's files (emax.c integrates E[max],
 * emaxfit.c takes break points and kinks from here, slowest.c integrates
 * the shares' densities); callers use emax.h.
 */
#ifndef GT_EMAXQUAD_H
#define GT_EMAXQUAD_H

#include "emaxcdf.h"

#include <gsl/gsl_integration.h>
#include <stdbool.h>
#include <stddef.h>

#define EMAX_WORKSPACE 1000   /* intervals of a GSL integration workspace */
#define EMAX_EPSREL 1e-10     /* the default; gt_emax_opts.epsrel asks for less */

/* One integration's state: the workspace (borrowed), the error estimates
 * and first failure of its rules summed up (emax_quad_add). */
struct emax_quad {
    gsl_integration_workspace *w;
    double abserr;
    int status;
    double epsrel;        /* relative tolerance of every rule */
    struct gt_emax_warm *warm;   /* NULL: start cold */
};

void emax_quad_add(struct emax_quad *qd, const double *err, int status);

/* qsort's comparison of doubles, ascending */
int emax_cmp_double(const void *a, const void *b);

/* A Pareto or normal partner's climb from about 1e-12 to 1 - 1e-12: its
 * width (in ln x when logspace; NAN for other models), and its start,
 * median and end, shift included, in x[0..2]. */
double emax_climb_width(const struct gt_dist *g, bool logspace);
void emax_climb(const struct gt_dist *g, double *x);

/* The step tables' points in (from, to), with ladders also the retry
 * starts, ascending and distinct: malloc'd (caller frees), *np of them;
 * NULL on ENOMEM. */
double *emax_union_points(const struct emax_ctx *c, double from, double to, bool ladders,
                          size_t *np);

/* int_from^to f(x, param) dx (to may be INFINITY), its error added to qd */
double emax_integrate(struct emax_quad *qd, double (*f)(double, void *), void *param,
                      const struct emax_ctx *c, double n, double from, double to);

/* int_flat^inf (1 - G) as a bulk and a closed-form tail into *out;
 * false (nothing added) where that does not apply. */
bool emax_bulk_and_tail(const struct emax_ctx *c, double n, double flat, struct emax_quad *qd,
                        double *out);

#endif
