/*
 * backtest.h - replaying the stored history to score forecasts of the
 * collective time (METHOD.md section 3).
 *
 * For each root site, its partners' series are aligned on the nominal
 * interval (slot s holds the sample nearest s * interval; a missing or
 * lost one takes the previous valid value, as everywhere in gridtail).
 * At each moment t (slots, every `stride`), each window m fits every
 * partner on slots t-m .. t-1, each method predicts E[max_i L_i], and
 * each lead tau scores it against the actual max_i L_i at slot t + tau.
 * Results are kept per (window, tau, method, regime), the regime being
 * whether some partner's Pareto fit has alpha <= 1.
 *
 * Methods: pareto and normal (every partner by that model), last (the
 * max at t-1), chi2 (each partner by the smaller fit index), empirical
 * (the windows' samples), adaptive (per root and (m, tau), the method
 * with the smallest squared error over the last H outcomes already
 * observed at t-1, after the Network Weather Service), combined (the
 * fixed methods' forecasts weighted by their errors over the same
 * outcomes, estimators/tracker.h).
 *
 * With calibration, each method's quantiles are also calibrated by its
 * own past misses per root and (m, tau), from the outcomes observed at
 * t-1 (estimators/conformal.h), and both are scored.
 */
#ifndef GT_BACKTEST_H
#define GT_BACKTEST_H

#include "base/error.h"
#include "db/db.h"
#include "errdist.h"
#include "estimators/fit.h"
#include "estimators/tracker.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gt_bt_method {
    GT_BT_PARETO, GT_BT_NORMAL, GT_BT_LAST, GT_BT_CHI2, GT_BT_EMPIRICAL, GT_BT_REGIME,
    GT_BT_AUTO, GT_BT_ADAPTIVE, GT_BT_COMBINED, GT_BT_NMETHODS
};

/* Whether a method chooses among or combines the others (adaptive,
 * combined) rather than forecasting on its own. */
#define GT_BT_IS_META(m) ((m) == GT_BT_ADAPTIVE || (m) == GT_BT_COMBINED)

/* "pareto", ...; gt_bt_method_find: the enum value, or -1. */
const char *gt_bt_method_name(int method);
int gt_bt_method_find(const char *name);

/* Regimes of a moment at a window; GT_BT_ALL (-1) asks for both. */
enum { GT_BT_ALPHA_GT1, GT_BT_ALPHA_LE1, GT_BT_NREGIMES, GT_BT_ALL = -1 };

#define GT_BT_MAX_WINDOWS 16
#define GT_BT_MAX_TAUS 16
#define GT_BT_MAX_WINDOW 65536      /* samples */
#define GT_BT_MAX_TAU 1000000       /* slots */
#define GT_BT_MAX_SLOTS 50000000    /* one root's slots: 95 years of minutes */
#define GT_BT_MAX_VALUES 134217728  /* slots x partners held for one root (1 GiB) */
#define GT_BT_MAX_THREADS 64
#define GT_BT_NQ 3                  /* calibration quantiles 0.5, 0.9, 0.99 */
#define GT_BT_MAX_LEVELS 33         /* extra levels (the advisor's 32 and its objective) */

extern const double gt_bt_quantiles[GT_BT_NQ];

/* One scored prediction, for --moments. */
struct gt_bt_moment {
    const char *root;
    int64_t t;              /* the moment, unix s (slot t x interval) */
    size_t window;
    long tau;
    int method;
    int regime;
    double predicted, actual;
    const double *q, *qcal;     /* GT_BT_NQ raw and calibrated quantiles, or
                                   NULL (no calibration, or `last`) */
    const double *lq;           /* the raw quantiles at the options' extra
                                   levels, where q is given */
};

struct gt_bt_opts {
    size_t windows[GT_BT_MAX_WINDOWS];
    size_t nwindows;
    long taus[GT_BT_MAX_TAUS];
    size_t ntaus;
    unsigned methods;       /* 1 << enum gt_bt_method */
    size_t horizon;         /* adaptive: last H known outcomes; 0: all */
    size_t combine_horizon; /* combined: likewise, its own */
    long stride;            /* a moment every stride slots */
    int64_t from, to;       /* moments in [from, to], unix s */
    int64_t interval;       /* seconds; 0: the median spacing of the data */
    double drop_loss;       /* pairs losing >= this share of their probes
                               are left out (the paper: 0.1); > 1: none */
    bool cut_paper;         /* alpha <= 1: the paper's eq. 12, else censored */
    bool calibration;       /* quantiles of every forecast, raw and calibrated */
    size_t cal_window;      /* calibration: scores kept (conformal.h's W) */
    double cal_gamma;       /* calibration: the level's step */
    double shrink;          /* combined: shrinkage of the errors' second
                               moments towards their diagonal, in [0, 1] */
    struct gt_verdict_limits verdict;   /* auto: what flags a fit ([advisor]'s) */
    bool verdict_ks;        /* auto: the old rule, a KS distance above max_ks
                               flags (for comparison); else the quantiles */
    int64_t until;          /* samples after this time are not read (a
                               replay as of an --at in the past); 0: all */
    const double *levels;   /* calibration: quantiles at these levels too, */
    size_t nlevels;         /* for the moment callback only (the advisor's
                               own calibration); at most GT_BT_MAX_LEVELS */
    bool levels_only;       /* and (up to 5 levels) those alone: the
                               method's own p50/p90/p99 and their
                               calibrators are not computed (a live replay),
                               nor E[max] unless adaptive or combined track
                               it: a moment's pred is then the first
                               level's quantile */
    double epsrel;          /* E[max] relative tolerance */
    const char *root;       /* NULL: every site with partners */
    const char *const *sites;   /* roots and partners among these; NULL: all */
    size_t nsites;
    int threads;
    /* every scored prediction, in order per root (calls are serialized;
       with several threads the roots' calls interleave as the threads
       run, with one in root order); with unscored, also each fixed
       method's forecast at moments whose outcome is not stored (actual
       NAN, no quantiles) */
    void (*moment)(void *ctx, const struct gt_bt_moment *m);
    bool unscored;
    int64_t skip_after;     /* moments after this (s) but the last one are not
                               replayed (a live replay's scored moments, then
                               its latest); 0: none skipped */
    void *moment_ctx;
    /* asked between moments: non-NULL (a reason) stops the replay with
       GT_EINTR, as an interrupt does (the advisor's request budget) */
    const char *(*stop)(void *ctx);
    void *stop_ctx;
    /* One root, one window, one lead (the live calibration, calibrate.h):
     * go on from a suspended replay (resume, resume_len: what suspend was
     * handed; moments then start right after the one it was taken at),
     * and/or hand suspend the replay's state after the moment at
     * suspend_at (a slot's time, s): each partner's slider and each
     * method's E[max] start, so that a replay resumed from it gives every
     * later moment bit for bit as one that never stopped.  A resume that
     * does not fit (other partners, window or moments) is GT_EINPUT. */
    const void *resume;
    size_t resume_len;
    int64_t suspend_at;
    void (*suspend)(void *ctx, const void *state, size_t len, int64_t at);
    void *suspend_ctx;
    /* (root, window) units done of total, from one thread */
    void (*progress)(void *ctx, double done, double total);
    void *progress_ctx;
};

struct gt_bt_result;

/* The partners' names a suspended replay (what suspend was handed) was
 * taken with, in its order (caller frees with gt_bt_names_free); NULL
 * when buf is not one, or out of memory. */
char **gt_bt_suspended_partners(const void *buf, size_t len, size_t *n);
void gt_bt_names_free(char **names, size_t n);

/* The nominal interval of root's pairs as a live replay detects it: the
 * median spacing of up to 16 partners' last GT_BT_INTERVAL_SAMPLES
 * samples, in seconds.  (The backtest command reads up to 20,000 a pair.) */
#define GT_BT_INTERVAL_SAMPLES 256
int gt_bt_interval(struct gt_db *db, const char *root, int64_t *out, struct gt_error *err);

/* The options of a replay of root's last n moments whose outcome
 * horizon_s ahead is known at anchor, at one window, for the live uses
 * (adaptive.h, calibrate.h): the interval, the lead (samples, >= 1),
 * moments from/to, stride 1, no pair left out, one thread, no sample read
 * after anchor, and the sites (the root and these partners; NULL: all),
 * which *sites_buf holds until the caller frees it.  Methods,
 * calibration and the callback are the caller's.  interval: the one a
 * replay resumed began with (s), or 0 to detect it (gt_bt_interval). */
int gt_bt_last_moments(struct gt_db *db, const char *root, size_t window, double horizon_s,
                       size_t n, int64_t anchor, int64_t interval, const char **sites,
                       size_t nsites, struct gt_bt_opts *bo, const char ***sites_buf,
                       struct gt_error *err);

/* Which of root's pairs a replay of its collective with the partners
 * names[0..n) (NULL: all) takes: names that are not its partners take
 * no part, so two requests whose named partners are the same replay the
 * same.  count: the partners taken; hash: of their site ids (FNV-1a 64
 * over the sorted ids), what a cached replay is kept under; all: they
 * are all root's `partners` pairs.  One index probe: the root's pairs
 * (root is its name, root_id its id). */
struct gt_bt_scope {
    size_t count;
    uint64_t hash;
    bool all;
};
int gt_bt_scope_of(struct gt_db *db, const char *root, int64_t root_id, int64_t partners,
                   const char **names, size_t n, struct gt_bt_scope *out, struct gt_error *err);

/* Replay the store at db_path (opened read-only once per thread).  The
 * result is the same bit for bit for any number of threads (the roots'
 * scores are merged in root order).  GT_EINTR when interrupted
 * (base/interrupt.h). */
int gt_backtest_run(const char *db_path, long busy_timeout_ms, const struct gt_bt_opts *o,
                    struct gt_bt_result **out, struct gt_error *err);

/* The same on one thread on the caller's connection db (a live replay:
 * no connection of its own to open; inside the caller's read snapshot
 * when one is open). */
int gt_backtest_run_on(struct gt_db *db, const struct gt_bt_opts *o, struct gt_bt_result **out,
                       struct gt_error *err);
void gt_bt_result_free(struct gt_bt_result *r);

/* What was replayed. */
struct gt_bt_summary {
    int64_t interval;
    size_t roots;           /* with at least one scored moment */
    size_t pairs, dropped;  /* partner pairs used; left out by drop_loss or
                               without a valid sample */
    double evaluations;     /* E[max] computed */
    double unanswered;      /* of those, failed (not scored) */
    double shifts;          /* level shifts detected over all pairs (regime) */
};
void gt_bt_summary(const struct gt_bt_result *r, struct gt_bt_summary *s);

/* Moments at window index wi, and those with some alpha <= 1. */
void gt_bt_moments(const struct gt_bt_result *r, size_t wi, double *moments, double *alpha_le1);

/* auto at window index wi: partner windows it fitted, those where it took
 * the other fit (only the chosen one flagged), and those where it fell
 * back to the samples (both flagged). */
void gt_bt_fallbacks(const struct gt_bt_result *r, size_t wi, double *partners,
                     double *switched, double *fell_back);

/* The scores of one cell (regime GT_BT_ALL: both together). */
struct gt_bt_stats {
    double n;
    double rmse, mae, bias;     /* bias: mean of predicted - actual */
    double improvement;         /* (RMSE_normal - RMSE) / RMSE_normal; NAN
                                   without normal */
    struct gt_mwu mwu;          /* |errors| against normal's */
    double below[GT_BT_NQ];     /* share of outcomes <= the predicted
                                   quantile; NAN where the method has none */
    double ncal;                /* outcomes with quantiles */
    double covered[GT_BT_NQ];   /* the same for the calibrated quantile */
    double ready;               /* share of those whose calibration rested
                                   on enough outcomes (conformal.h) */
    double worst1;              /* share of sum e^2 in the worst 1 % */
};
int gt_bt_stats(const struct gt_bt_result *r, size_t wi, size_t ti, int method, int regime,
                struct gt_bt_stats *s, struct gt_error *err);

/* The default calibration and combination settings of the options. */
#define GT_BT_CAL_WINDOW 3000
#define GT_BT_CAL_GAMMA 0.001
#define GT_BT_SHRINK 0.0
#define GT_BT_COMBINE_HORIZON 500
/* combined's memory at a lead of tau samples is at least this many leads
 * (docs/EVALUATION.md): consecutive outcomes tau ahead share most of
 * their future, so H of them hold about H / tau independent ones. */
#define GT_BT_COMBINE_LEADS 16

/* The shrinkage of combined's weights over n outcomes of k methods: the
 * one asked, but at least k / n (1 before any outcome). */
double gt_bt_combine_shrink(double shrink, int k, size_t n);

/* combined's memory at lead tau: max(H, GT_BT_COMBINE_LEADS tau) outcomes,
 * at most GT_TRACK_MAX_HORIZON; 0 (all) stays 0. */
size_t gt_bt_combine_horizon(size_t h, long tau);

/* The guard of adaptive and combined (METHOD.md section 6): of the k
 * methods' forecasts pred[] now (NAN: none), use[j] keeps those not
 * farther from their median than GT_BT_GUARD times the median of the
 * methods' RMSEs tracked in t (before any outcome, of the forecasts'
 * distances to their median; at least 1e-3 of the median); when that
 * leaves none, the middle one or two (those the median is made of) are
 * kept.  A Pareto
 * window with alpha near 1 can forecast 100 times the others (10^7 times
 * on Seattle), and the record it earned while it was right would carry
 * that into the answer (measured: docs/EVALUATION.md). */
#define GT_BT_GUARD 4.0
void gt_bt_guard(const double *pred, const struct gt_tracker *t, int k, bool *use);

/* adaptive's method now: of the forecasts the guard keeps (use[], as
 * gt_bt_guard's), the one whose method has the smallest tracked error (the
 * first of equal ones; the first kept before any outcome); -1 when no
 * method forecasts. */
int gt_bt_adaptive_pick(const double *pred, const struct gt_tracker *t, int k, bool *use);

/* How often adaptive chose each method at (wi, ti). */
double gt_bt_chosen(const struct gt_bt_result *r, size_t wi, size_t ti, int method);

#endif
