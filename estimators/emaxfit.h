/*
 * emaxfit.h - inside the E[max] engine (emax.h): E[max], the loss costs
 * and the shares of being slowest from one fit of the smooth part of G,
 * for partners with step tables or ladders among them (and for a few
 * loss-free groups' shares).  Not public API: emax.c and slowest.c call
 * it; callers use emax.h.
 */
#ifndef GT_EMAXFIT_H
#define GT_EMAXFIT_H

#include "emaxcdf.h"
#include "emaxquad.h"

#include <stdbool.h>
#include <stddef.h>

/* What the fit answers beside E[max]: NULL, or per group arrays for the
 * loss costs and the shares of being slowest.  A ladder group's cost is
 * its function's integral weighted by e^T on each interval; a tabled
 * lossy group's is, on each, (e^T with its loss-free table's log F -
 * e^T) times the integral of e^S; beyond end, a ladder's is its
 * retries' part of the tail.  A fitted group's share is its density's
 * integral weighted by e^T (beyond end the max lies with probability
 * below 1e-10); a tabled group's is a sum over its points
 * (emax_slowest_steps), a point mass's is G without it at the point. */
struct emax_asks {
    double *costs, *shares;
    struct gt_steps *free_tabs;  /* the tabled lossy groups' loss-free tables */
    size_t mc, ms;
    size_t *cost_who, *share_who;
};

/* Leave out of k what the fit cannot answer well (sets costs or shares
 * to NULL); free what the fit allocated in k (not costs and shares, the
 * caller's). */
void emax_asks_trim(const struct emax_ctx *c, struct emax_asks *k);
void emax_asks_free(struct emax_asks *k, size_t ng);

/* the groups whose shares a fit carries: neither tabled nor point masses */
size_t emax_fitted_groups(const struct emax_ctx *c);

/* int_flat^inf (1 - G) into *out by the fit, with what k asks on the same
 * points; false: nothing done, the caller integrates another way. */
bool emax_fitted_one_minus_G(const struct emax_ctx *c, double n, double flat,
                             struct emax_quad *qd, struct emax_asks *k, double *out);

/* Every group's share of being slowest into ps[0..ng) by a fit of the
 * densities; false: the fit failed (or ENOMEM). */
bool emax_fitted_shares(const struct emax_ctx *base, double n, double *ps);

#endif
