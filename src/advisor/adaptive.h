/*
 * adaptive.h - choosing how to forecast a root's collective by how each
 * way has been doing lately, live (METHOD.md section 5, "Adaptive, live"): the backtest's
 * `adaptive` method asked at one moment, after the Network Weather
 * Service.
 *
 * For a root, the advisor's window m and a lead of tau samples (the job's
 * horizon over the nominal interval), the last H moments t whose outcome
 * at t + tau is already stored are replayed (advisor/backtest.h, with all
 * the root's partners the request names): each candidate (pareto, normal, last, empirical)
 * predicted E[max] at t from the window before t, and is scored against
 * the max RTT at t + tau.  The candidate with the smallest RMSE over the
 * moments where all of them predicted is chosen, among those whose
 * forecast now the guard keeps (backtest.h: not far from the others'),
 * and that RMSE, in ms, is the answer's error bar.  `gridtail refit` keeps the result in the fit
 * cache (db/fitcache.h) for the configured horizon; it holds until a new
 * sample of the root arrives.
 */
#ifndef GT_ADAPTIVE_H
#define GT_ADAPTIVE_H

#include "base/error.h"
#include "db/db.h"
#include "db/fitcache.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_ADAPT_NCAND GT_TRACK_NCAND      /* pareto, normal, last, empirical */

/*
 * Combined, live (`--model combined`, METHOD.md section 5): the same
 * replay over the last max(GT_BT_COMBINE_HORIZON, 16 tau) moments gives
 * the candidates' weights instead of one choice, as the backtest's
 * `combined` weighs them at that moment: least squares over the tracked
 * errors, w >= 0, sum 1, shrunk by max(0, k / n), over the forecasts now
 * that the guard keeps (at most GT_ADAPT_MAX_OUTCOMES moments).  Kept by
 * refit as adaptive's choice is, under a key of its own.
 */
#define GT_ADAPT_MAX_OUTCOMES 10000
#define GT_ADAPT_MAX_HORIZON_S (30 * 86400.0)

/* "pareto", "normal", "last", "empirical" by candidate index. */
const char *gt_adapt_name(int cand);

/* The candidates as backtest methods: 1 << enum gt_bt_method each. */
unsigned gt_adapt_methods(void);

struct gt_adapt_opts {
    size_t window;            /* m, samples */
    double horizon_s;         /* how far ahead the job runs, s (> 0) */
    size_t outcomes;          /* H: the last H moments (1 .. GT_ADAPT_MAX_OUTCOMES) */
    bool cut_paper;
    int64_t at;               /* the query's time: outcomes at or before it */
    const char **sites;       /* the partners of the collective tracked; */
    size_t nsites;            /* NULL: all the root's (what refit keeps) */
    bool combine;             /* weigh the candidates (outcomes: the
                                 combination's H) instead of choosing one */
    const char *(*stop)(void *ctx);   /* asked between moments: non-NULL */
    void *stop_ctx;                   /* stops the replay (GT_EINTR); NULL: never */
};

struct gt_adapt {
    int chosen;               /* candidate index; -1: no outcome known yet */
    unsigned left_out;        /* bit j: candidate j's forecast now was left
                                 out by the guard (far from the others') */
    double rmse_combined;     /* combine: the combination's own RMSE over the
                                 moments replayed (its error bar), ms */
    double weight[GT_ADAPT_NCAND];  /* combine: candidate j's weight, sum 1
                                       over those kept; NAN: not kept (left
                                       out, or no forecast now); chosen is
                                       then the heaviest */
    double rmse[GT_ADAPT_NCAND];   /* ms over the counted outcomes; NAN if none */
    size_t outcomes;          /* moments counted (all candidates predicted) */
    size_t of_outcomes;       /* H: the moments replayed */
    long lead;                /* tau, samples */
    int64_t interval;         /* nominal interval, s */
    int64_t anchor;           /* newest outcome time the replay may score:
                                 min(at, the root's newest sample) */
    bool cached;              /* read from the fit cache */
    bool stopped;             /* the replay was stopped (the request's budget):
                                 no choice, auto answers */
};

/* The choice for root, from the fit cache when it holds one for this
 * anchor and the collective is all of the root's partners, else replayed.  A root without partner samples is not an
 * error: chosen is -1 and outcomes 0. */
int gt_adapt_track(struct gt_db *db, const char *root, const struct gt_adapt_opts *o,
                   struct gt_adapt *out, struct gt_error *err);

/* The replay alone, without the cache. */
int gt_adapt_replay(struct gt_db *db, const char *root, const struct gt_adapt_opts *o,
                    struct gt_adapt *out, struct gt_error *err);

/* Keep a replay's result in the fit cache (`gridtail refit`), inside the
 * caller's write transaction. */
int gt_adapt_save(struct gt_db *db, const char *root, const struct gt_adapt_opts *o,
                  const struct gt_adapt *a, struct gt_error *err);

#endif
