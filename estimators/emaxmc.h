/*
 * emaxmc.h - a Monte Carlo estimate of E[max] (emax.h), for the tests
 * to check the engine against: slow, and right only to its sampling
 * error.
 */
#ifndef GT_EMAXMC_H
#define GT_EMAXMC_H

#include "emax.h"

#include <stdbool.h>

/* Monte Carlo estimate of the same quantity (tests only): mean over
 * draws of max_i L_i, each draw beyond cut_x0 counted as x0 (censored) or
 * as 0 (cut_paper).  Reproducible for a given seed. */
double gt_emax_monte_carlo(const struct gt_partner_group *g, size_t ng, double cut_x0,
                           bool cut_paper, long draws, unsigned long seed);

#endif
