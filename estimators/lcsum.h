/*
 * lcsum.h - S(x) = sum over partner groups of count * log F(x - shift),
 * the log of the max's CDF, evaluated fast for thousands of partners.
 *
 * The E[max] engine spends nearly all its time here: every integrand
 * point costs one log-CDF per distinct partner.  The groups are compiled
 * into structure-of-arrays blocks per model (Pareto blocks share a shift,
 * so log(x - shift) is taken once per block), and the loops call glibc's
 * vector math (libmvec) so each step handles several partners at once.
 * A lossy Pareto or normal partner is compiled into a ladder (ladder.h)
 * and summed with the others: below its first retry it costs what a
 * loss-free partner costs, plus one add.
 */
#ifndef GT_LCSUM_H
#define GT_LCSUM_H

#include "emax.h"
#include "ladder.h"

struct gt_lcsum;

/* Compile the groups; caller frees with gt_lcsum_free.  NULL on ENOMEM.
 * drop > 0 lets each group fall out of the sum above the x beyond which
 * its count * integral of -log F is at most count * drop and its -log F
 * below 1e-17: integral (1 - G) then moves by at most n * drop (n
 * partners in all) and S by at most n * 1e-17 anywhere.  drop = 0: every
 * group everywhere, S exact to rounding. */
struct gt_lcsum *gt_lcsum_new(const struct gt_partner_group *g, size_t ng, double drop);
void gt_lcsum_free(struct gt_lcsum *s);

/* Compile other groups into s, reusing its memory (the E[max] engine's
 * workspace keeps one across calls).  false on ENOMEM: s then holds no
 * groups but can still be freed or rebuilt.  Lossy groups get the
 * ladders of gt_loss_terms (1e-17 of the weight left out). */
bool gt_lcsum_build(struct gt_lcsum *s, const struct gt_partner_group *g, size_t ng,
                    double drop);

struct gt_lcsum_opts {
    double drop;            /* as above */
    double loss_budget;     /* per lossy partner, ms (gt_ladder_terms); 0: 1e-17 rule */
    const bool *skip;       /* NULL, or ng flags: groups left out of the sum (the
                               caller's step tables; a lossy point mass or an
                               empirical partner must be left out) */
};
bool gt_lcsum_compile(struct gt_lcsum *s, const struct gt_partner_group *g, size_t ng,
                      const struct gt_lcsum_opts *o);

/* Group i's ladder (i as given to the build), or NULL if it has none. */
const struct gt_ladder *gt_lcsum_ladder(const struct gt_lcsum *s, size_t i);
/* How many of the groups are ladders. */
size_t gt_lcsum_ladders(const struct gt_lcsum *s);

/* Coarse (false after gt_lcsum_new): S to an absolute error of about n
 * ulp of 1 (n count-1 partners) instead of a few ulp of S itself, where
 * S is small; the integral of 1 - G = -expm1(S) moves by that much of
 * its range, so callers whose tolerance is 1e-9 or looser may ask. */
void gt_lcsum_set_coarse(struct gt_lcsum *s, bool coarse);

/* Exact starts (false after gt_lcsum_new): where some Pareto partner is
 * in the first half of its climb, its block's log F to the last digits,
 * as the models' log-CDF has it, at the cost of summing that block
 * twice: for whoever subtracts one partner's log F from S (the shares of
 * being slowest). */
void gt_lcsum_set_exact_starts(struct gt_lcsum *s, bool exact);

/* sum_g count_g log F_g(x); -INFINITY where some F_g(x) = 0. */
double gt_lcsum_eval(const struct gt_lcsum *s, double x);
/* The same, keeping each ladder's log F, density and loss-free log F0 at
 * x in logf, pdf and log0 (gt_lcsum_ladders entries each, in the order
 * of gt_lcsum_slot): what the shares and loss costs need beside S. */
double gt_lcsum_eval_keep(const struct gt_lcsum *s, double x, double *logf, double *pdf,
                          double *log0);
/* Group i's place among the ladders, or -1. */
long gt_lcsum_slot(const struct gt_lcsum *s, size_t i);

/* max over groups of the group's quantile at p = exp(log_p) (shift
 * included), or at p^(1/count) when by_count; every group counts, cut-off
 * or not.  O(n) multiply-adds: no per-partner transcendental.  A ladder
 * counts with its loss-free quantile, which is at most its own: a lower
 * bound of the max's quantile still, an upper one no longer. */
double gt_lcsum_quantile_max(const struct gt_lcsum *s, double log_p, bool by_count);

#endif
