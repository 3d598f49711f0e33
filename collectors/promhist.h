/*
 * promhist.h - latency histograms scraped by Prometheus (smokeping_prober's
 * smokeping_response_duration_seconds) turned back into samples.
 *
 * A histogram keeps cumulative counts of responses at or under each bound
 * `le` and the running sum of their durations; smokeping_requests_total
 * counts the pings sent.  Between two points of a series the counts'
 * increase says how many responses fell in each bucket, the sum's
 * increase their total, the requests' increase how many were sent.  Each
 * response becomes a sample at the later point's time (seq 0, 1, ... as
 * the pings of a round), placed in its bucket at the same fraction t of
 * every bucket's width, t chosen so that the samples add up to the sum:
 * each sample is within its bucket and their mean is exact (with one
 * ping a step, each sample is exact).  Pings sent and not answered are
 * lost samples, counted so that a ping still in flight at a point is not
 * one (see gt_promhist_lost).  The points are those of the pings sent
 * (of the +Inf bucket without them); a histogram series appears with its
 * first answer, its counts 0 before.  METHOD.md §8 says why samples and
 * not the buckets themselves.
 */
#ifndef GT_PROMHIST_H
#define GT_PROMHIST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define GT_PROMHIST_MAX_BUCKETS 256       /* bounds a histogram may have */
#define GT_PROMHIST_MAX_PER_STEP 100000   /* pings a series may send a step */

/* One histogram series: its bucket series (any order; each has `le`),
 * its sum series and its requests series (NULL: none), all Prometheus
 * matrix series ({"metric": ..., "values": [[t, "v"], ...]}). */
struct gt_promhist {
    const json_t *const *buckets;
    size_t n_buckets;
    const json_t *sum, *requests;
};

struct gt_promhist_out {
    void *ctx;
    /* a sample: rtt in ms, NAN for a lost ping; non-OK stops */
    int (*emit)(void *ctx, int64_t ts, int64_t seq, double rtt_ms);
    /* a point that cannot be read: its time (0: the series) and why */
    void (*reject)(void *ctx, int64_t ts, const char *why);
};

/* The samples of h at its points with times in [first, last] (each needs
 * the point before it); stops at emit's first error and returns it.
 * *bucket_bound gets the widest relative bucket of a response stored
 * (hi/lo), for the resolution note. */
int gt_promhist_samples(const struct gt_promhist *h, int64_t first, int64_t last,
                        const struct gt_promhist_out *out, double *bucket_bound);

/* Pings lost in a step whose sent-minus-answered count is d, the next
 * step's dn (has_next false: none): max(0, min(d, d + dn)).  A ping in
 * flight at the point is answered in the next step, which then has more
 * answers than pings (dn < 0): it is not lost. */
long gt_promhist_lost(long d, long dn, bool has_next);

/* Labels of a series but __name__ and le, sorted, as "k=v\x1f..." into
 * key (size n); false when they do not fit.  Series of one histogram,
 * its sum and its requests have the same key. */
bool gt_promhist_key(const json_t *series, char *key, size_t n);

#endif
