/*
 * advisor.h - the advisor: what one collective of a grid job costs on a
 * placement, from the stored pair fits (METHOD.md section 2).
 *
 * A placement is a root site and partner sites, each with a process
 * count.  One collective costs max over partners of the root<->partner
 * RTT, a partner running several processes adding its intra-site latency
 * c_i (the median of its stored self-pair window, else [advisor]
 * intra_site_ms); a compute phase c per iteration shifts every partner.
 * Pair fits come from the store over the last m samples at a time
 * (pairfits.h): from its fit cache when that holds the pair's current
 * window, else fitted, and kept for the advisor's lifetime, so that
 * estimating many placements never refits a pair.  Each partner's fit
 * becomes a distribution under the model asked (auto's verdicts may take
 * the other fit or the window's samples), and the estimate is E[max] of
 * the partners, the quantiles of the collective time, each partner's
 * share of being the slowest, the job's time and the warnings.
 *
 * With --model adaptive or combined, or with calibrated quantiles, a
 * root's model, weights and factors come from its own past (tracked.h).
 * Many placements are estimated at once on several threads
 * (gt_advisor_estimate_many: rank, exports, the placement search of
 * placement.h).
 */
#ifndef GT_ADVISOR_H
#define GT_ADVISOR_H

#include "adaptive.h"
#include "calibrate.h"
#include "base/error.h"
#include "db/db.h"
#include "estimators/emax.h"
#include "estimators/fit.h"
#include "estimators/companion/loggps.h"
#include "estimators/companion/topology.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gt_adv_model {
    GT_ADV_AUTO, GT_ADV_PARETO, GT_ADV_NORMAL, GT_ADV_LAST, GT_ADV_EMPIRICAL,
    GT_ADV_ADAPTIVE,          /* per root, whichever of the four before has
                                 forecast best lately (tracked.h) */
    GT_ADV_COMBINED           /* per root, the four weighted by their
                                 tracked errors (tracked.h) */
};

/* How much an estimate computes: searches compare many placements by
 * E[max] alone and fill in the rest for those they show. */
enum gt_adv_detail {
    GT_ADV_FULL,              /* quantiles, p_slowest, partners, warnings */
    GT_ADV_PARTNERS,          /* E[max] and the partners, no quantiles or p_slowest */
    GT_ADV_EMAX_ONLY          /* E[max] only (ranking many candidates) */
};

struct gt_adv_opts {
    size_t window;            /* samples per fit (m) */
    int64_t at;               /* fits use samples at or before this time */
    enum gt_adv_model model;
    double compute_ms;        /* compute phase per iteration (shifts all) */
    bool compute_extrap;      /* compute_ms is instead compute_model (of
                                 estimators/extrap.h) with compute_p at the
                                 placement's process count (root + partners) */
    int compute_model;
    double compute_p[3];
    double bytes;             /* > 0: each partner also sends this many bytes */
    const struct gt_loggps *loggps;   /* their cost (estimators/loggps.h) */
    const struct gt_topology *sites;  /* sites:FILE: each site's up and down
                                         link; the wire time of the bytes is
                                         then simulated (flowsim.h) */
    long iterations;          /* job length; 0 = not asked */
    const double *q;          /* quantiles of the collective time */
    size_t nq;
    bool skip_missing;        /* drop partners without samples (warning) */
    enum gt_adv_detail detail;
    double intra_site_ms;     /* fallback intra-site latency */
    long stale_after_s;
    long threads;             /* for many estimates; 0 = one per CPU (<= 8) */
    long min_samples;
    bool cut_paper;           /* alpha <= 1: the paper's eq. 12, not censored */
    bool symmetric;           /* a pair without samples takes the reverse pair's */
    struct gt_verdict_limits verdict;   /* what flags a fit (fit.h) */
    bool fallback_empirical;  /* model auto: a pair whose two parametric fits
                                 are both flagged takes its samples' step CDF */
    bool loss_ignore;         /* --loss ignore: lost probes cost nothing (the paper) */
    double rto_ms;            /* the retransmission timeout R of the loss model */
    double max_loss;          /* rank and place leave out partners lossier than this */
    bool enforce_max_loss;    /* set by rank and place (estimate only warns) */
    double horizon_s;         /* model adaptive: the lead its errors are */
    size_t outcomes;          /* tracked at, s, and over how many moments */
    size_t cal_outcomes;      /* the quantiles answered are calibrated by the
                                 root's last W outcomes (calibrate.h); 0: the
                                 model's own */
    double objective_q;       /* 0: rank by the mean (E[max]); else by this
                                 quantile of the collective time, e.g. 0.99 */
    /* Asked between placements and between search steps (from any of the
     * advisor's threads): a reason to stop early (a request's time budget
     * ran out, its client went away, the server is stopping), or NULL to
     * go on.  NULL: never stop. */
    const char *(*stop)(void *ctx);
    void *stop_ctx;
    /* Told how many of the roots a request calibrates at once (rank,
     * place: before their estimates) are done, for a progress line; from
     * one thread.  NULL: not told. */
    void (*calib_progress)(void *ctx, double done, double total);
    void *calib_progress_ctx;
    /* a server's copies of the calibration states (calibmemo.h); NULL */
    struct gt_calib_memo *calib_memo;
};

struct gt_site_req {
    char *name;               /* owned by the request */
    long procs;               /* >= 1 */
};

struct gt_partner_est {
    char *site;
    const char *model;        /* "pareto", "normal", "delta", "empirical" */
    double p[2];              /* its parameters; empirical: median, samples */
    bool fallback;            /* empirical because both fits were flagged */
    bool other_fit;           /* the other fit: the index's choice was flagged */
    double shift_ms;          /* intra-site latency + the message (--bytes) */
    size_t samples;
    size_t valid, filled;     /* of those: answered, and lost ones filled */
    unsigned verdict;         /* GT_VERDICT_* flags of its fit (fit.h) */
    double loss;              /* the window's loss rate, lost / rows */
    double loss_cost_ms;      /* E[max] less E[max] with this partner loss-free */
    int64_t first_ts, last_ts;  /* the fitted window's span */
    double p_slowest;
    long procs;
};

#define GT_ADV_MAX_WARN 16
#define GT_ADV_MAX_Q 32           /* quantiles of the collective time asked at once */

struct gt_estimate {
    char *root;
    struct gt_partner_est *partners;
    size_t n;
    double e_max;             /* ms, one collective incl. shifts */
    double *q_values;         /* nq values: calibrated when calibrated is */
    double *q_model;          /* nq values: the model's own */
    size_t nq;
    bool calibrated;          /* cal says on what */
    struct gt_calib cal;
    const double *q;
    double cut_x0;            /* INFINITY unless some alpha <= 1 */
    const char *method;
    enum gt_adv_model model;  /* the model used: with adaptive, the chosen one
                                 (auto when nothing is known yet) */
    bool adaptive;            /* model adaptive was asked: adapt says what */
    struct gt_adapt adapt;    /* the root's tracked errors and choice */
    double data_age_s;
    int64_t data_ts;          /* the oldest partner's newest sample: at - data_age_s */
    size_t window;
    double compute_ms;        /* the compute phase used */
    double message_ms;        /* LogGPS cost of the bytes added to each
                                 partner (all partners sharing the root) */
    bool rendezvous;          /* bytes > S: each partner's RTT counted twice */
    long processes;           /* 1 (root) + the partners' process counts */
    double iteration_ms, job_ms;   /* compute + e_max; iterations x that */
    double objective_ms;      /* what rank and place order by: compute + e_max
                                 (objective mean) or + the objective quantile
                                 of the collective time */
    char *warnings[GT_ADV_MAX_WARN];
    size_t nwarn;
    bool ok;                  /* false: not estimable (reason says why) */
    enum gt_adv_detail detail;    /* what was computed */
    char reason[1200];
};

struct gt_advisor;

/* db is borrowed.  Caller frees with gt_advisor_free. */
struct gt_advisor *gt_advisor_new(struct gt_db *db, const struct gt_adv_opts *o);
void gt_advisor_free(struct gt_advisor *a);

/* Estimate one placement.  A pair without samples makes the estimate not
 * ok (GT_ENOTFOUND, reason names the pair) unless skip_missing.  Caller
 * frees out with gt_estimate_clear. */
int gt_advisor_estimate(struct gt_advisor *a, const char *root,
                        const struct gt_site_req *sites, size_t n,
                        struct gt_estimate *out, struct gt_error *err);
void gt_estimate_clear(struct gt_estimate *e);

/* The order of rank and place: by the iteration time, compute + E[max]
 * (with one compute time for all, by E[max]; with --compute-from a
 * bigger placement may compute faster), except that an estimate cut at
 * x0 (a partner with alpha <= 1, whose true mean is infinite: METHOD.md
 * 1.1) comes after every estimate that was not cut.  qsort-style. */
int gt_estimate_cmp(const struct gt_estimate *x, const struct gt_estimate *y);

/* One placement to estimate. */
struct gt_placement {
    const char *root;
    const struct gt_site_req *sites;
    size_t n;
};

#define GT_ADV_MAX_THREADS 8

/* Threads to use: requested if > 0, else one per CPU, at most
 * GT_ADV_MAX_THREADS. */
int gt_advisor_threads(long requested);

/* What a pair's fit makes of its partner, for the event list: its model,
 * a Pareto with alpha <= 1 (an infinite mean, cut: METHOD.md 1.1), or
 * its samples (--fallback empirical: both parametric fits misfit).  As
 * the estimate would judge it with these options (adaptive as auto). */
struct gt_pairfit;
enum gt_fit_regime { GT_REGIME_FIT, GT_REGIME_HEAVY, GT_REGIME_FALLBACK, GT_REGIME_NONE };
enum gt_fit_regime gt_adv_fit_regime(const struct gt_adv_opts *o, const struct gt_pairfit *f);
const char *gt_fit_regime_name(enum gt_fit_regime r);

/* Whether rank and place would take site as a partner of root's: its
 * pair (or with symmetric its reverse) has a fit that max_loss does not
 * leave out. */
int gt_advisor_takes(struct gt_advisor *a, const char *root, const char *site, bool *takes,
                     struct gt_error *err);

/* Estimate n placements, on several threads (o.threads) once there are
 * enough of them: out[i] and rc[i] as gt_advisor_estimate would give;
 * once o.stop gives a reason, the placements not yet begun keep rc[i] =
 * -1 (gt_advisor_stopped says why).
 * Returns GT_OK, or the first error other than GT_ENOTFOUND (err says
 * it), after which the remaining placements have rc[i] = -1 and an
 * empty out[i].  Placements are taken in order, so giving those with
 * one root together keeps their pair fits' reads together. */
int gt_advisor_estimate_many(struct gt_advisor *a, const struct gt_placement *pl, size_t n,
                             struct gt_estimate *out, int *rc, struct gt_error *err);

/* Whether to stop now: asks gt_adv_opts.stop (once it said stop, always
 * true); for the callers' own loops over the advisor's work. */
bool gt_advisor_should_stop(struct gt_advisor *a);

/* Why the advisor stopped early (gt_adv_opts.stop's first reason), or
 * NULL: every placement asked for was estimated. */
const char *gt_advisor_stopped(const struct gt_advisor *a);

/* What estimates compute from now on (gt_adv_opts.detail). */
void gt_advisor_set_detail(struct gt_advisor *a, enum gt_adv_detail d);

/* Pair windows fitted from samples, and answered by the store's cache. */
size_t gt_advisor_fits(const struct gt_advisor *a);
size_t gt_advisor_cached_fits(const struct gt_advisor *a);

/* Write the fits of current windows made here to the store's fit cache
 * (see gt_pairfits_save: skipped when the store changed meanwhile). */
int gt_advisor_save_fits(struct gt_advisor *a, size_t *saved, struct gt_error *err);

/* Only the calibrations the answers replayed (small records, one per
 * root, partners and options: the next answer over the same scope at
 * the same newest sample reads its factors), without waiting for the
 * write lock, as gt_advisor_save_fits keeps them beside the fits. */
int gt_advisor_save_calibrations(struct gt_advisor *a, struct gt_error *err);

/* The roots' calibrations this advisor asked, by where they came from: a
 * kept answer read, a kept state gone on, a replay of the last W moments
 * (METHOD.md section 5, "Kept states"). */
void gt_advisor_calibrations(const struct gt_advisor *a, size_t *kept, size_t *resumed,
                             size_t *replayed);

/* GT_EUSAGE (where = what) naming the first site listed twice in sites. */
int gt_sites_check_unique(const struct gt_site_req *sites, size_t n, const char *what,
                          struct gt_error *err);

#endif
