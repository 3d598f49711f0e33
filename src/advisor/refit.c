/*
 * refit.c - see refit.h.  The parts of the pairs run as gt_par_run's
 * jobs: each job fits its part on the connection of the thread that runs
 * it, with a pairfits of its own begun there (after the caller's, so
 * that a change to the store in between makes the save stale), and
 * hands its fits to the caller's pairfits, which saves them all.
 */
#define _POSIX_C_SOURCE 200809L
#include "refit.h"
#include "base/interrupt.h"
#include "base/progress.h"
#include "db/query.h"
#include "pairfits.h"
#include "parallel.h"

#include <stdint.h>
#include <threads.h>
#include <time.h>

/* Refit's progress line, drawn from the first part's count: the parts
 * share the pairs evenly enough for an estimate of the whole. */
struct refit_progress {
    struct gt_progress line;
    int nparts;
};

static void refit_progress(void *ctx, size_t pairs)
{
    struct refit_progress *rp = ctx;
    gt_progress_update(&rp->line, (double)pairs * rp->nparts);
}

/* The parts' jobs: all fit into p, under lock (the jobs end on several
 * threads at once). */
struct parts {
    struct gt_pairfits *p;
    size_t window;
    enum gt_fit_choice choice;
    int nparts;
    struct refit_progress *rp;
    mtx_t lock;
};

/* gt_par_run's job: part i of the pairs on db, handed to the whole. */
static int part_job(void *ctx, struct gt_db *db, size_t i, struct gt_error *err)
{
    struct parts *ps = ctx;
    struct gt_pairfits *part = gt_pairfits_new(db, ps->window, ps->choice, INT64_MAX, err);
    if (!part)
        return err->code ? err->code : GT_ENOMEM;
    if (i == 0)
        gt_pairfits_on_progress(part, refit_progress, ps->rp);
    int rc = gt_pairfits_all_part(part, (int)i, ps->nparts, err);
    if (rc == GT_OK) {
        mtx_lock(&ps->lock);
        rc = gt_pairfits_adopt(ps->p, part, err);
        mtx_unlock(&ps->lock);
    }
    gt_pairfits_free(part);   /* before gt_par_run closes its connection */
    return rc;
}

/* Fit every pair into p: in n parts on as many threads, or here. */
static int fit_all(struct gt_db *db, struct gt_pairfits *p, size_t window,
                   enum gt_fit_choice choice, int n, struct refit_progress *rp,
                   struct gt_error *err)
{
    rp->nparts = n > 1 ? n : 1;
    if (n <= 1) {
        gt_pairfits_on_progress(p, refit_progress, rp);
        return gt_pairfits_all(p, err);
    }
    struct parts ps = {.p = p, .window = window, .choice = choice, .nparts = n, .rp = rp};
    if (mtx_init(&ps.lock, mtx_plain) != thrd_success)
        return gt_error_set(err, GT_ENOMEM, NULL, "cannot make a lock");
    int rc = gt_par_run(db, (size_t)n, n, part_job, &ps, NULL, NULL, err);
    mtx_destroy(&ps.lock);
    return rc;
}

/* One attempt: fit, save against the snapshot, note the regimes. */
static int refit_once(struct gt_db *db, const struct gt_refit_opts *o,
                      struct gt_refit_result *run, struct gt_error *err)
{
    const struct gt_adv_opts *a = o->adv;
    enum gt_fit_choice choice = a->model == GT_ADV_PARETO ? GT_FIT_PARETO
                              : a->model == GT_ADV_NORMAL ? GT_FIT_NORMAL : GT_FIT_AUTO;
    struct gt_pairfits *p = gt_pairfits_new(db, a->window, choice, INT64_MAX, err);
    if (!p)
        return err->code ? err->code : GT_ENOMEM;
    struct refit_progress rp;
    long total = 0;
    gt_query_pair_count(db, &total, NULL);
    gt_progress_start(&rp.line, "refit", "pairs", (double)total);
    int rc = fit_all(db, p, a->window, choice, gt_advisor_threads(a->threads), &rp, err);
    gt_progress_end(&rp.line);
    if (rc == GT_OK && gt_interrupted())   /* Ctrl-C while the last part finished */
        rc = gt_error_set(err, GT_EINTR, NULL, "interrupted");
    if (rc == GT_OK)
        rc = gt_pairfits_save(p, true, &run->saved, &run->stale, err);
    run->fitted = gt_pairfits_fitted(p);
    run->cached = gt_pairfits_cached(p);   /* before the regimes' reads count too */
    struct gt_regimes *regimes = NULL;
    if (rc == GT_OK && !run->stale)
        rc = gt_events_judge_regimes(db, p, a, &regimes, err);
    gt_pairfits_free(p);   /* its snapshot ended: the regimes can be written */
    if (rc == GT_OK && regimes)
        rc = gt_events_note_regimes(db, regimes, (int64_t)time(NULL), &run->regimes, err);
    gt_regimes_free(regimes);
    return rc;
}

/* Every root's tracked errors (--model adaptive or combined) and with
 * calibrate its calibration (unless --calibration 0), replayed and
 * cached. */
static int refit_roots(struct gt_db *db, const struct gt_adv_opts *a, bool calibrate,
                       struct gt_rootcache_counts *kept, struct gt_error *err)
{
    struct gt_adapt_opts ao = gt_adv_adapt_opts(a, a->horizon_s, NULL, 0);
    ao.at = INT64_MAX;
    double levels[GT_BT_MAX_LEVELS];
    struct gt_calib_opts co = gt_adv_calib_opts(a, a->horizon_s, NULL, 0, levels);
    co.at = INT64_MAX;
    struct gt_progress line;
    struct gt_rootcache_opts ro = {a, gt_adv_tracked(a->model) ? &ao : NULL,
                                   calibrate ? &co : NULL, gt_advisor_threads(a->threads),
                                   &line};
    return gt_rootcache_refresh(db, &ro, kept, err);
}

int gt_refit_run(struct gt_db *db, const struct gt_refit_opts *o, struct gt_refit_result *out,
                 struct gt_error *err)
{
    *out = (struct gt_refit_result){0};
    int rc = gt_db_lock(db, "gridtail refit", o->waits, err);
    while (rc == GT_OK) {
        rc = refit_once(db, o, out, err);
        if (rc || !out->stale || ++out->attempts >= GT_REFIT_ATTEMPTS)
            break;
    }
    out->fits_saved = rc == GT_OK && !out->stale;
    if (out->fits_saved)
        rc = refit_roots(db, o->adv, o->calibrate, &out->kept, err);
    if (rc == GT_OK && !out->stale)
        rc = gt_events_record(db, o->events, (int64_t)time(NULL), &out->event_pairs,
                              &out->events, err);
    return rc;
}
