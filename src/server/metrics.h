/*
 * metrics.h - what the server counts for GET /metrics, and its
 * Prometheus text exposition (format 0.0.4): requests by endpoint and
 * status, a latency histogram by endpoint, requests in flight, and each
 * source site's newest-sample age.  Endpoints are a fixed list (anything
 * else counts as "other"), so no client can grow the label set.
 */
#ifndef GT_METRICS_H
#define GT_METRICS_H

#include "advisor/calibmemo.h"
#include "advisor/status.h"
#include "db/query.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gt_metrics;

struct gt_metrics *gt_metrics_new(void);   /* NULL on ENOMEM */
void gt_metrics_free(struct gt_metrics *m);

/* A request's headers arrived / its connection let it go. */
void gt_metrics_begin(struct gt_metrics *m);
void gt_metrics_done(struct gt_metrics *m);
long gt_metrics_in_flight(const struct gt_metrics *m);
/* Pair windows an advisor request fitted from samples, and found in the
 * store's fit cache. */
void gt_metrics_fits(struct gt_metrics *m, size_t fitted, size_t cached);
/* The roots' calibrations an advisor request asked: read from a kept
 * answer, a kept state gone on, replayed whole. */
void gt_metrics_calibrations(struct gt_metrics *m, size_t kept, size_t resumed,
                             size_t replayed);
/* The server's copies of calibration states (calibmemo.h; borrowed, kept
 * while m lives), shown with the rest: their count and bytes against
 * their caps, and the answers that found their state among them. */
void gt_metrics_calib_memo(struct gt_metrics *m, struct gt_calib_memo *memo);
/* Samples a POST /v1/samples stored, found stored already, found stored
 * with another value, and refused. */
void gt_metrics_pushed(struct gt_metrics *m, long stored, long duplicates, long conflicts,
                       long rejected);

/* A request to path was answered with status after seconds. */
void gt_metrics_observe(struct gt_metrics *m, const char *path, unsigned status,
                        double seconds);

/* The exposition, malloc'd (NULL on ENOMEM); store_up: the store could
 * be read, and newest[0..nnewest) is each source site's newest sample. */
char *gt_metrics_text(const struct gt_metrics *m, bool store_up,
                      const struct gt_newest_row *newest, size_t nnewest, int64_t now);

/* GET /metrics/pairs: each pair's median, p99, loss, newest-sample age
 * and status (0 ok, 1 warning, 2 critical, 3 no data), malloc'd (NULL
 * on ENOMEM). */
/* A configured collective ([server] collectives): its E[max] and p99, ms
 * (NAN: not estimable). */
struct gt_collective_metric {
    const char *root, *sites;
    double emax_ms, p99_ms;
    /* the forecast methods' tracked errors over the last outcomes (the
       adaptive model's, src/advisor/adaptive.h), by candidate; outcomes
       0: none known yet */
    double rmse_ms[4];
    size_t outcomes;
};
#define GT_METRICS_MAX_COLLECTIVES 64

char *gt_metrics_pairs_text(const struct gt_pair_state *v, size_t n,
                            const struct gt_collective_metric *c, size_t nc);

#endif
