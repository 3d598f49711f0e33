/*
 * errdist.h - the distribution of a forecaster's absolute errors over a
 * backtest, for what needs more than sums: the Mann-Whitney U test
 * between two forecasters and the share of squared error carried by the
 * worst moments.
 *
 * Values are kept exactly up to GT_ERRDIST_EXACT of them; beyond, they
 * move into logarithmic bins 2^(1/256) wide (0.27 %), so that a cell of
 * millions of moments costs 48 KiB and not its moments.  Binned values
 * compare equal within a bin: the U test then counts them as ties (its
 * tie correction holds them), and the worst share takes each bin at its
 * geometric centre.  Zeros (a forecast exactly right) keep a bin of
 * their own.
 */
#ifndef GT_ERRDIST_H
#define GT_ERRDIST_H

#include <stdbool.h>
#include <stddef.h>

#define GT_ERRDIST_EXACT 4096

struct gt_errdist;

struct gt_errdist *gt_errdist_new(void);     /* NULL on ENOMEM */
void gt_errdist_free(struct gt_errdist *d);

/* Add |e| (e finite).  false on ENOMEM (the value is not counted). */
bool gt_errdist_add(struct gt_errdist *d, double e);

/* Add every value of from into d.  false on ENOMEM. */
bool gt_errdist_merge(struct gt_errdist *d, const struct gt_errdist *from);

double gt_errdist_count(const struct gt_errdist *d);
bool gt_errdist_exact(const struct gt_errdist *d);

/* The share of sum(e^2) carried by the largest ceil(share * n) values
 * (share in (0, 1]); NAN when empty or all zero. */
double gt_errdist_top_share(const struct gt_errdist *d, double share);

struct gt_mwu {
    double u;        /* U of a: pairs (x in a, y in b) with x < y count 0,
                        x > y count 1, ties 1/2 (so U small: a's errors
                        are smaller) */
    double z;        /* (U - n_a n_b / 2) / sd, sd with the tie correction */
    double p;        /* two-sided, normal approximation, no continuity
                        correction; NAN when either side is empty or every
                        value ties */
};

/* The Mann-Whitney U test of a's values against b's.  false on ENOMEM. */
bool gt_errdist_mwu(const struct gt_errdist *a, const struct gt_errdist *b,
                    struct gt_mwu *out);

#endif
