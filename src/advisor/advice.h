/*
 * advice.h - the advisor's questions and answers as data: what a request
 * asks (struct gt_advice: the options of estimate, rank and place), site
 * and candidate lists, and the answers as JSON documents.  The CLI's
 * --json and the HTTP server (src/server.h) read and print the same
 * documents through here, so a broker sees one format whichever it uses.
 */
#ifndef GT_ADVICE_H
#define GT_ADVICE_H

#include "advisor.h"
#include "placement.h"
#include "base/config.h"
#include "base/error.h"
#include "db/query.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The options of one request, with what the answers name. */
struct gt_advice {
    struct gt_adv_opts o;
    double q[GT_ADV_MAX_Q];           /* o.q points here */
    const char *model_name;           /* "auto", "pareto", ..., "adaptive" */
    bool horizon_set;                 /* adaptive's horizon given, not derived */
    char objective[16];               /* "mean" or "p99", "p99.9"... */
    const char *compute_model_name;   /* compute extrapolated: its model */
    const char *loggps_spec;          /* for o.bytes: a set's name or file */
    struct gt_loggps loggps;          /* ...loaded by gt_advice_finish */
};

/* Defaults: the config's window and advisor keys, quantiles 0.5, 0.9,
 * 0.99, model auto, at = now. */
void gt_advice_defaults(struct gt_advice *ad, const struct gt_config *cfg, int64_t now);

/* Adaptive's horizon, s (1 s .. 30 days). */
void gt_advice_set_horizon(struct gt_advice *ad, double seconds);

/* After the options: with o.bytes, load the LogGPS set (o.loggps); with
 * --iterations and no horizon given, adaptive's horizon is the job's. */
int gt_advice_finish(struct gt_advice *ad, struct gt_error *err);

/* Set the model by name; false if unknown. */
bool gt_advice_set_model(struct gt_advice *ad, const char *name);

/* What rank and place order by: "mean" (compute + E[max]) or "pNN" with
 * NN in (0, 100) (compute + that quantile of the collective time, e.g.
 * p99); false for anything else. */
bool gt_advice_set_objective(struct gt_advice *ad, const char *name);

/* The alpha <= 1 cut: "censor" (E[min(max, x0)], the default) or "paper"
 * (eq. 12, mass beyond x0 dropped); false for any other name. */
bool gt_advice_set_cut(struct gt_advice *ad, const char *name);

/* The compute time per iteration measured at m process counts n[i]:
 * extrapolated to each placement's processes by the classic model of
 * estimators/extrap.h. */
int gt_advice_compute_from(struct gt_advice *ad, const double *n, const double *t, size_t m,
                           struct gt_error *err);

/* The common options from a JSON request object (window, model, at,
 * compute, compute_from, iterations, quantiles, skip_missing, bytes,
 * loggps); unknown keys other than `allowed` (a NULL-ended list of the
 * endpoint's own) are refused.  A named LogGPS set must be built in: a
 * request never names a file.  Errors name the field. */
int gt_advice_from_json(struct gt_advice *ad, const json_t *req, const char *const *allowed,
                        struct gt_error *err);

/* A JSON integer in [lo, hi] into *out; false (and *out kept) if not. */
bool gt_json_long_in(const json_t *v, long lo, long hi, long *out);

/* An advisor for one request on its own connection to the store at path
 * (which must exist); NULL with err. */
struct gt_advisor *gt_advice_open(const char *path, long busy_timeout_ms,
                                  const struct gt_advice *ad, struct gt_db **db,
                                  struct gt_error *err);

/* With save_fits, keep the fits of current windows made for the answer
 * in the fit cache (best effort: the
 * answer is out already; the status says whether they were kept); then
 * free the advisor and close its connection. */
int gt_advice_close(struct gt_advisor *adv, struct gt_db *db, bool save_fits,
                    struct gt_error *err);

/* ---- site and candidate lists ---- */

struct gt_site_list {
    struct gt_site_req *v;
    size_t n, cap;
};

void gt_sites_clear(struct gt_site_list *l);
/* Add "NAME" or "NAME:PROCS" (a span); false with *why on bad input. */
bool gt_sites_add(struct gt_site_list *l, const char *p, size_t len, const char **why);
/* "A,B:4,C" */
bool gt_sites_parse(struct gt_site_list *l, const char *s, const char **why);
/* A JSON list of "NAME[:PROCS]" strings or {"site": NAME, "procs": N}. */
bool gt_sites_from_json(struct gt_site_list *l, const json_t *list, const char **why);

struct gt_candidate {
    char *root;
    struct gt_site_list sites;
};

struct gt_cand_list {
    struct gt_candidate *v;
    size_t n, cap;
};

void gt_cands_clear(struct gt_cand_list *l);
struct gt_candidate *gt_cands_push(struct gt_cand_list *l, const char *root, size_t len);
/* A JSON list of {"root": R, "sites": [...]}; on error *bad is the index. */
bool gt_cands_from_json(struct gt_cand_list *l, const json_t *list, size_t *bad,
                        const char **why);

/* ---- answers ---- */

/* The store's inventory as `gridtail sites --json` and `pairs --json`
 * print it (and GET /v1/sites, /v1/pairs answer): {"sites": [...]};
 * {"pairs": [the first shown], "total": {"pairs", "samples", "lost"}}
 * with the totals over all n. */
json_t *gt_advice_sites_json(const struct gt_site_row *v, size_t n);
json_t *gt_advice_pairs_json(const struct gt_pair_row *v, size_t n, size_t shown);
/* A window's fit as `fit --json` prints it: sizes, both models, the
 * selected one, the alpha <= 1 cut, the verdict lines (window: the
 * samples asked for; lim: [advisor] max_ks and quantile_margin).  Caller
 * owns. */
json_t *gt_advice_fit_json(const struct gt_fit *f, size_t window,
                           const struct gt_verdict_limits *lim);
/* The verdict lines of that fit into lines; returns how many (<=
 * GT_VERDICT_MAX_LINES). */
int gt_advice_fit_verdict(const struct gt_fit *f, size_t window,
                          const struct gt_verdict_limits *lim, char (*lines)[GT_VERDICT_LINE]);
/* [advisor] max_ks and quantile_margin as a verdict's limits. */
struct gt_verdict_limits gt_advice_verdict_limits(const struct gt_config *cfg);

/* A quantile's name in the answers: 0.99 -> "p99". */
void gt_advice_q_name(double q, char *buf, size_t size);

/* An estimate as docs/ADVISOR.md describes it. */
json_t *gt_advice_estimate_json(const struct gt_estimate *e, const struct gt_advice *ad);

/* rank: every candidate's E[max] (on the advisor's threads), best first;
 * the top ones (all if top <= 0) then estimated in full. */
struct gt_rank_answer {
    struct gt_estimate *best; /* shown, best first */
    size_t nbest;
    size_t ok;                /* candidates estimated */
    size_t evaluated;
    json_t *rejected;         /* [{root, candidate (index), reason}] */
    double elapsed_ms;
};

int gt_advice_rank(struct gt_advisor *adv, const struct gt_cand_list *l, long top,
                   struct gt_rank_answer *out, struct gt_error *err);
void gt_rank_answer_clear(struct gt_rank_answer *r);

/* {"evaluated", "fits", "cached_fits", "elapsed_ms", "rejected",
 * "candidates"} */
json_t *gt_advice_rank_json(const struct gt_advisor *adv, const struct gt_rank_answer *r,
                            const struct gt_advice *ad);
/* {"search", "evaluated", "fits", "cached_fits", "elapsed_ms", "excluded",
 * "candidates"} */
json_t *gt_advice_place_json(const struct gt_advisor *adv, const struct gt_place_result *r,
                             double elapsed_ms, const struct gt_advice *ad);

#endif
