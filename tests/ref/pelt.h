/*
 * pelt.h - an offline reference for the level-shift detector
 * (estimators/changepoint.h), for its tests and docs/EVALUATION.md: the
 * optimal segmentation of a whole series into levels, by PELT (Killick,
 * Fearnhead and Eckley, "Optimal detection of changepoints with a linear
 * computational cost", JASA 2012), with a BIC-type penalty.
 *
 * On log RTT with lost samples dropped: each sample is first kept within
 * 3 sigma of the median of the 7 around it (winsorized: spikes and heavy
 * jitter cut down), then the segmentation minimizes the sum over segments
 * of sum (x - segment mean)^2 / sigma^2 plus beta per change, sigma the
 * noise of the whole series (1.4826 MAD of the samples' distances to
 * their local median, at least 0.01 %) and beta = penalty x ln n.  It sees the future,
 * so it places changes better than any online detector can; it is the
 * yardstick, not a product.
 *
 * gt_optpart is the same segmentation with a minimum segment length by
 * plain optimal partitioning (Jackson et al., "An algorithm for optimal
 * partitioning of data on an interval", IEEE SPL 12 (2005)): every last
 * change tried at every t, no pruning, O(n^2); the reference of the
 * offline segmentation (estimators/segment.h) and its tests.
 */
#ifndef GT_PELT_H
#define GT_PELT_H

#include <stddef.h>

/* Changes of x[0..n) (RTT, NAN or <= 0 = lost): the indices of the first
 * sample of each new segment, ascending, into at (room for n), their
 * number returned; -1 on ENOMEM.  penalty: beta / ln n (2: BIC with a
 * level and a place per change; 10 leaves the winsorized spikes alone). */
long gt_pelt(const double *x, size_t n, double penalty, long *at);

/* The same with every segment at least min_len valid samples (none when
 * fewer than 2 min_len), by optimal partitioning. */
long gt_optpart(const double *x, size_t n, double penalty, size_t min_len, long *at);

#endif
