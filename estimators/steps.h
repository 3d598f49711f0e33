/*
 * steps.h - step CDFs compiled for the E[max] engine (METHOD.md 2.2).
 *
 * An empirical partner, with its loss retries, is one sorted table of
 * the points where its CDF jumps and log F at each, so F(x) costs one
 * binary search however many retries there are.  Among empirical
 * partners a point mass is tabled the same way, so that when every
 * partner is a step CDF, 1 - G is constant between the points of all
 * tables together and E[max] is a finite sum.
 */
#ifndef GT_STEPS_H
#define GT_STEPS_H

#include "model.h"

#include <math.h>
#include <stddef.h>

/* Points every table of one E[max] may hold in all (40 bytes each while
 * built, 24 kept). */
#define GT_STEPS_MAX_POINTS 2097152

struct gt_steps {
    double *t;          /* distinct jump points, ascending */
    double *lcdf;       /* log F(t[k]), F right-continuous */
    double *tail;       /* integral of 1 - F from t[k] on */
    size_t n;           /* 0: not a step CDF */
};

/* The points d's table would hold before merging repeats: samples (1 for
 * a point mass) times loss terms.  A double: it may be large. */
double gt_steps_size(const struct gt_dist *d);

/* d (empirical or delta) into s; GT_ENOMEM. */
int gt_steps_build(const struct gt_dist *d, struct gt_steps *s);
void gt_steps_free(struct gt_steps *s);

/* How many points are <= x. */
static inline size_t gt_steps_upto(const struct gt_steps *s, double x)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->t[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* integral_x^inf (1 - F): the part up to the next point, then the rest
 * summed once when the table was built */
static inline double gt_steps_tail(const struct gt_steps *s, double x)
{
    size_t j = gt_steps_upto(s, x);
    if (j == s->n)
        return 0;
    double sf = j ? -expm1(s->lcdf[j - 1]) : 1;
    return sf * (s->t[j] - x) + s->tail[j];
}

static inline double gt_steps_logcdf(const struct gt_steps *s, double x)
{
    size_t k = gt_steps_upto(s, x);
    return k ? s->lcdf[k - 1] : -1.0 / 0.0;
}

#endif
