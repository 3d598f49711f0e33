/*
 * slowest.h - inside the E[max] engine (emax.h): each partner group's
 * probability of holding the slowest partner (gt_emax_opts.slowest).
 * Not public API: emax.c asks for the shares, emaxfit.c uses a share's
 * density and a step table's share; callers use emax.h.
 */
#ifndef GT_SLOWEST_H
#define GT_SLOWEST_H

#include "emaxcdf.h"

#include <stddef.h>

/* Every group's share into ps[0..base->ng). */
void emax_all_slowest(const struct emax_ctx *base, double n, double *ps);

/* f(x) G(x) / F(x) of one member of partner d, S = log G, G = e^S */
double emax_density_over_cdf(const struct gt_dist *d, double x, double S, double G);

/* The share of tabled group i, exactly, by a sum over its points. */
double emax_slowest_steps(const struct emax_ctx *all, size_t i);

#endif
