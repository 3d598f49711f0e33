/*
 * tracked.c - the advisor's tracked forecasts (see tracked.h): per root,
 * once per advisor, adaptive's choice or combined's weights (adaptive.h)
 * and the calibration of its quantiles (calibrate.h), each replayed over
 * the root's scope; the model a root's placements are estimated with;
 * and combined's estimate, its candidates' estimates weighted.
 *
 * The roots' entries live in the advisor (advisor_internal.h) and are
 * read and added under the estimates' lock.
 */
#define _POSIX_C_SOURCE 200809L
#include "tracked.h"
#include "advisor_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A root's adaptive choice and calibration, each asked once per advisor
 * over the same scope: the partners the request names for the root
 * (estimate: its sites; rank: every candidate's; place: the pool) and the
 * lead.  The calibration only when quantiles are answered for the root. */
struct root_choice {
    char *root;
    char **names;             /* the scope's partners */
    size_t nnames;
    double horizon_s;
    enum gt_adv_model model;
    struct gt_adapt adapt;
    bool calibrated;
    struct gt_calib cal;
};

bool gt_adv_tracked(enum gt_adv_model m)
{
    return m == GT_ADV_ADAPTIVE || m == GT_ADV_COMBINED;
}

static void drop_scope(struct root_choice *c)
{
    for (size_t j = 0; j < c->nnames; j++)
        free(c->names[j]);
    free(c->names);
}

/* Without a horizon, the job's length: iterations x (the compute phase +
 * the collective's last observed time, the largest of the placement's
 * partners' newest RTTs), at least one second. */
static int job_horizon(struct gt_advisor *a, const struct gt_placement *pl, double *horizon_s,
                       struct gt_error *err)
{
    double last = 0;
    for (size_t i = 0; i < pl->n; i++) {
        const struct gt_pairfit *f;
        bool reversed;
        if (!strcmp(pl->sites[i].name, pl->root))
            continue;
        int rc = advisor_pair_fit(a, pl->root, pl->sites[i].name, &f, &reversed, err);
        if (rc)
            return rc;
        if (f->found && f->valid)
            last = fmax(last, f->last_value);
    }
    double compute = a->o.compute_extrap ? 0 : a->o.compute_ms;
    *horizon_s = fmin(fmax(1, (double)a->o.iterations * (compute + last) / 1000),
                      GT_ADAPT_MAX_HORIZON_S);
    return GT_OK;
}

/* Candidate j of adaptive and combined (adaptive.h) as the model it is. */
static const enum gt_adv_model chosen_model[GT_ADAPT_NCAND] = {
    GT_ADV_PARETO, GT_ADV_NORMAL, GT_ADV_LAST, GT_ADV_EMPIRICAL};

bool gt_adv_calibrates(const struct gt_adv_opts *o)
{
    return o->cal_outcomes > 0 && o->model != GT_ADV_LAST && (o->nq > 0 || o->objective_q > 0);
}

static bool calibrates(const struct gt_advisor *a)
{
    return gt_adv_calibrates(&a->o);
}

/* Whether root_choice entries are kept: adaptive or calibration. */
static bool scoped(const struct gt_advisor *a)
{
    return gt_adv_tracked(a->o.model) || calibrates(a);
}

struct gt_calib_opts gt_adv_calib_opts(const struct gt_adv_opts *o, double horizon_s,
                                       const char **names, size_t n, double *levels)
{
    static const int bt_method[] = {
        [GT_ADV_AUTO] = GT_BT_AUTO, [GT_ADV_PARETO] = GT_BT_PARETO,
        [GT_ADV_NORMAL] = GT_BT_NORMAL, [GT_ADV_EMPIRICAL] = GT_BT_EMPIRICAL,
        [GT_ADV_ADAPTIVE] = GT_BT_ADAPTIVE, [GT_ADV_LAST] = GT_BT_LAST,
        [GT_ADV_COMBINED] = GT_BT_COMBINED};
    size_t nl = 0;
    for (size_t k = 0; k < o->nq && nl < GT_BT_MAX_LEVELS - 1; k++)
        levels[nl++] = o->q[k];
    if (o->objective_q > 0)
        levels[nl++] = o->objective_q;
    int method = o->model == GT_ADV_AUTO && !o->fallback_empirical ? GT_BT_CHI2
                                                                   : bt_method[o->model];
    return (struct gt_calib_opts){o->window, horizon_s, o->cal_outcomes, method, o->outcomes,
                                  o->cut_paper, o->at, names, n, levels, nl, o->stop,
                                  o->stop_ctx, o->verdict, o->calib_memo};
}

struct gt_adapt_opts gt_adv_adapt_opts(const struct gt_adv_opts *o, double horizon_s,
                                       const char **names, size_t n)
{
    bool combine = o->model == GT_ADV_COMBINED;
    return (struct gt_adapt_opts){o->window, horizon_s,
                                  combine ? GT_BT_COMBINE_HORIZON : o->outcomes, o->cut_paper,
                                  o->at, names, n, combine, o->stop, o->stop_ctx};
}

/* The calibration of root's quantiles over the partners names. */
static int calib_root(struct gt_advisor *a, const char *root, const char **names, size_t n,
                      double horizon_s, struct gt_calib *cal, struct gt_error *err)
{
    double levels[GT_BT_MAX_LEVELS];
    struct gt_calib_opts co = gt_adv_calib_opts(&a->o, horizon_s, names, n, levels);
    return gt_calib_track(a->db, root, &co, cal, err);
}

/* The distinct partners pl names (its sites less the root) into names. */
static size_t partner_names(const struct gt_placement *pl, const char **names)
{
    size_t n = 0;
    for (size_t i = 0; i < pl->n; i++) {
        size_t j = 0;
        while (j < n && strcmp(names[j], pl->sites[i].name))
            j++;
        if (j == n && strcmp(pl->sites[i].name, pl->root))
            names[n++] = pl->sites[i].name;
    }
    return n;
}

/* The calibration of root's quantiles over its scope (struct
 * root_choice), once: the first time its quantiles are needed. */
static int calib_scope(struct gt_advisor *a, struct root_choice *c, struct gt_error *err)
{
    if (c->calibrated)
        return GT_OK;
    int rc = calib_root(a, c->root, (const char **)c->names, c->nnames, c->horizon_s, &c->cal,
                        err);
    c->calibrated = rc == GT_OK;
    return rc;
}

/* root's entry, or NULL. */
static struct root_choice *choice_of(struct gt_advisor *a, const char *root)
{
    for (size_t j = 0; j < a->nchoices; j++)
        if (!strcmp(a->choices[j].root, root))
            return &a->choices[j];
    return NULL;
}

/* Keep names[0..n) as c's scope. */
static int keep_scope(struct root_choice *c, const char **names, size_t n, double horizon_s)
{
    c->horizon_s = horizon_s;
    if (!(c->names = calloc(n ? n : 1, sizeof *c->names)))
        return GT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (!(c->names[c->nnames++] = strdup(names[i])))
            return GT_ENOMEM;
    return GT_OK;
}

/* Adaptive: track root's collective with the partners pl names (its
 * sites less the root, each once), once per advisor: the request's whole
 * say about that root (estimate: its sites; rank: every candidate's;
 * place: the pool it chooses from), kept as the root's scope. */
static int adapt_scope(struct gt_advisor *a, const struct gt_placement *pl, struct gt_error *err)
{
    if (choice_of(a, pl->root))
        return GT_OK;
    struct root_choice *c = realloc(a->choices, (a->nchoices + 1) * sizeof *c);
    const char **names = malloc((pl->n ? pl->n : 1) * sizeof *names);
    if (c)
        a->choices = c;
    if (!c || !names) {
        free(names);
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    struct gt_adapt_opts ao = gt_adv_adapt_opts(&a->o, a->o.horizon_s, names,
                                                partner_names(pl, names));
    struct root_choice *rc_ = &c[a->nchoices];
    memset(rc_, 0, sizeof *rc_);
    int rc = a->o.horizon_s > 0 ? GT_OK : job_horizon(a, pl, &ao.horizon_s, err);
    if (rc == GT_OK && gt_adv_tracked(a->o.model))
        rc = gt_adapt_track(a->db, pl->root, &ao, &rc_->adapt, err);
    if (rc == GT_EINTR && ao.stop && ao.stop(ao.stop_ctx)) {
        /* the request's budget ran out mid-replay: no choice (auto), as a
           stopped calibration gives the model's quantiles; the request
           itself then ends with what it has */
        gt_error_clear(err);
        rc = GT_OK;
        rc_->adapt.chosen = -1;
        rc_->adapt.stopped = true;
    }
    if (rc == GT_OK && (keep_scope(rc_, names, ao.nsites, ao.horizon_s) ||
                        !(rc_->root = strdup(pl->root))))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    free(names);
    if (rc) {
        drop_scope(rc_);
        return rc;
    }
    rc_->model = !gt_adv_tracked(a->o.model) ? a->o.model
                 : rc_->adapt.chosen < 0 ? GT_ADV_AUTO
                 : ao.combine ? GT_ADV_COMBINED : chosen_model[rc_->adapt.chosen];
    a->nchoices++;
    return GT_OK;
}

/* The model of root's placements: the one asked, or with adaptive the
 * root's choice (auto while nothing is known), tracked over pl's partners
 * unless the request said more before (not thread-safe: under the
 * caller's lock). */
int tracked_root_model(struct gt_advisor *a, const struct gt_placement *pl,
                       enum gt_adv_model *m, const struct gt_adapt **adapt,
                       const struct gt_calib **cal, struct gt_error *err)
{
    *m = a->o.model;
    if (adapt)
        *adapt = NULL;
    if (cal)
        *cal = NULL;
    if (!scoped(a))
        return GT_OK;
    int rc = adapt_scope(a, pl, err);
    if (rc)
        return rc;
    struct root_choice *c = choice_of(a, pl->root);
    *m = c->model;
    if (adapt && gt_adv_tracked(a->o.model))
        *adapt = &c->adapt;
    if (cal && calibrates(a) && (rc = calib_scope(a, c, err)))
        return rc;
    if (cal && c->calibrated)
        *cal = &c->cal;
    return GT_OK;
}

/* Whether one of pl[0..n) is rooted at root. */
static bool roots_at(const struct gt_placement *pl, size_t n, const char *root)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(pl[i].root, root))
            return true;
    return false;
}

/* The calibrations of pl's roots whose scope is not yet calibrated, on
 * the advisor's threads (calibrate.h: each on its own connection). */
static int calib_scopes(struct gt_advisor *a, const struct gt_placement *pl, size_t npl,
                        struct gt_error *err)
{
    size_t n = 0;
    struct gt_calib_job *jobs = calloc(a->nchoices ? a->nchoices : 1, sizeof *jobs);
    double (*levels)[GT_BT_MAX_LEVELS] = calloc(a->nchoices ? a->nchoices : 1,
                                                sizeof *levels);
    size_t *of = calloc(a->nchoices ? a->nchoices : 1, sizeof *of);
    int rc = jobs && levels && of ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t j = 0; rc == GT_OK && j < a->nchoices; j++) {
        struct root_choice *c = &a->choices[j];
        if (c->calibrated || !roots_at(pl, npl, c->root))
            continue;
        jobs[n].root = c->root;
        jobs[n].o = gt_adv_calib_opts(&a->o, c->horizon_s, (const char **)c->names, c->nnames,
                                      levels[n]);
        of[n++] = j;
    }
    if (rc == GT_OK && n)
        rc = gt_calib_track_many(a->db, jobs, n, gt_advisor_threads(a->o.threads),
                                 n > 1 ? a->o.calib_progress : NULL,   /* one: no line */
                                 a->o.calib_progress_ctx, err);
    for (size_t k = 0; rc == GT_OK && k < n; k++) {
        a->choices[of[k]].cal = jobs[k].out;
        a->choices[of[k]].calibrated = true;
    }
    for (size_t k = 0; rc != GT_OK && jobs && k < n; k++)
        gt_calib_release(&jobs[k].out);
    free(jobs);
    free(levels);
    free(of);
    return rc;
}

/* Adaptive, before rank's estimates: each root tracked with the union of
 * its candidates' partners. */
int tracked_scopes(struct gt_advisor *a, const struct gt_placement *pl, size_t n,
                   struct gt_error *err)
{
    if (!scoped(a))
        return GT_OK;
    /* calibrated here too when quantiles are answered: before the estimates'
       threads, over all the root's placements, so that no thread's timing
       decides; the roots' calibrations on threads of their own */
    bool cal = calibrates(a) && (a->o.detail == GT_ADV_FULL || a->o.objective_q > 0);
    int rc = GT_OK;
    for (size_t i = 0; rc == GT_OK && i < n; i++) {
        struct root_choice *c = choice_of(a, pl[i].root);
        if (c)
            continue;
        size_t total = 0;
        for (size_t k = i; k < n; k++)
            total += strcmp(pl[k].root, pl[i].root) ? 0 : pl[k].n;
        struct gt_site_req *all = malloc((total ? total : 1) * sizeof *all);
        if (!all)
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        size_t m = 0;
        for (size_t k = i; k < n; k++)
            for (size_t s = 0; !strcmp(pl[k].root, pl[i].root) && s < pl[k].n; s++)
                all[m++] = pl[k].sites[s];
        struct gt_placement u = {pl[i].root, all, m};
        rc = adapt_scope(a, &u, err);
        free(all);
    }
    return rc == GT_OK && cal ? calib_scopes(a, pl, n, err) : rc;
}

/* The root's combined weights into *comb; *combines: the root has them
 * (else its model answers: auto while nothing is known). */
int tracked_weights(struct gt_advisor *a, const struct gt_placement *pl,
                    struct gt_adapt *comb, bool *combines, mtx_t *lock,
                    struct gt_error *err)
{
    enum gt_adv_model m;
    const struct gt_adapt *t;
    if (lock)
        mtx_lock(lock);
    int rc = tracked_root_model(a, pl, &m, &t, NULL, err);
    *combines = rc == GT_OK && m == GT_ADV_COMBINED && t;
    if (*combines)
        *comb = *t;   /* a->choices may move once the lock is released */
    if (lock)
        mtx_unlock(lock);
    return rc;
}

/* Which of combined's candidates pl's estimate computes: those weighed,
 * and when the quantiles' weight (all but last's) is 0 every kept one
 * that has quantiles (their weights, renormalized, or equal: the
 * backtest's), the heaviest first; how many, into order. */
static int combined_order(const struct gt_adapt *c, bool quantiles, int *order, double *qw)
{
    int n = 0;
    *qw = 0;
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        *qw += chosen_model[j] != GT_ADV_LAST && c->weight[j] > 0 ? c->weight[j] : 0;
    order[n++] = c->chosen;
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        if (j != c->chosen && !isnan(c->weight[j]) &&
            (c->weight[j] > 0 || (quantiles && !(*qw > 0) && chosen_model[j] != GT_ADV_LAST)))
            order[n++] = j;
    return n;
}

/* combined: the candidates' estimates of pl weighted (E[max] and the
 * models' quantiles; adaptive.h), into e, which is otherwise the
 * heaviest's: its partners, method and warnings. */
int tracked_estimate_combined(struct gt_advisor *a, struct advisor_worker *w,
                             const struct gt_placement *pl, const struct gt_adapt *c,
                             struct gt_estimate *e, mtx_t *lock, struct gt_error *err)
{
    double qs[GT_ADV_MAX_Q + 1], qv[GT_ADV_MAX_Q + 1], mix[GT_ADV_MAX_Q + 1] = {0}, emax = 0;
    double qw, nqc = 0;
    int order[GT_ADAPT_NCAND];
    int n = combined_order(c, a->o.detail == GT_ADV_FULL || a->o.objective_q > 0, order, &qw);
    for (int i = 0; i < n; i++)   /* those with quantiles, weighed equally if need be */
        nqc += chosen_model[order[i]] != GT_ADV_LAST;
    int64_t oldest = 0, old;
    int rc = GT_OK;
    for (int i = 0; rc == GT_OK && i < n; i++) {
        int j = order[i];
        struct gt_estimate other, *ej = i ? &other : e;
        rc = advisor_prepare(a, w, pl, chosen_model[j], ej, i ? &old : &oldest, lock, err);
        if (rc == GT_OK)
            rc = advisor_compute_model(a, w, ej, qv, err);
        if (rc) {
            if (i)
                gt_estimate_clear(ej);
            break;
        }
        size_t nq = advisor_levels(a, ej, qs);
        double wj = c->weight[j] > 0 ? c->weight[j] : 0;
        emax += wj * ej->e_max;
        for (size_t k = 0; chosen_model[j] != GT_ADV_LAST && k < nq; k++)
            mix[k] += (qw > 0 ? wj / qw : 1 / nqc) * qv[k];
        if (i == 0 && !(nqc > 0))   /* last alone: its own quantiles */
            memcpy(mix, qv, nq * sizeof *qv);
        if (i)
            gt_estimate_clear(ej);
    }
    if (rc)
        return rc;
    e->e_max = emax;
    e->model = GT_ADV_COMBINED;
    advisor_finish(a, e, mix, oldest);
    return GT_OK;
}

/* Whether c's calibration is one an answer may keep. */
static bool keepable(const struct root_choice *c)
{
    return c->calibrated && c->cal.state && !c->cal.stopped && c->cal.current;
}

bool tracked_unsaved_calibrations(const struct gt_advisor *a)
{
    for (size_t i = 0; i < a->nchoices; i++)
        if (keepable(&a->choices[i]))
            return true;
    return false;
}

int tracked_save_calibrations(struct gt_advisor *a, struct gt_db *db, struct gt_error *err)
{
    int rc = GT_OK;
    for (size_t i = 0; rc == GT_OK && i < a->nchoices; i++) {
        struct root_choice *c = &a->choices[i];
        if (!keepable(c))
            continue;
        double levels[GT_BT_MAX_LEVELS];
        struct gt_calib_opts co = gt_adv_calib_opts(&a->o, c->horizon_s,
                                                    (const char **)c->names, c->nnames, levels);
        if ((rc = gt_calib_save(db, &co, &c->cal, err)) == GT_OK)
            gt_calib_release(&c->cal);   /* kept: not again */
    }
    return rc;
}

void tracked_calibrations(const struct gt_advisor *a, size_t *kept, size_t *resumed,
                          size_t *replayed)
{
    *kept = *resumed = *replayed = 0;
    for (size_t i = 0; i < a->nchoices; i++) {
        const struct root_choice *c = &a->choices[i];
        if (!c->calibrated || c->cal.stopped || !c->cal.lead)
            continue;   /* none asked, or the model's quantiles */
        *kept += c->cal.cached;
        *resumed += !c->cal.cached && c->cal.resumed;
        *replayed += !c->cal.cached && !c->cal.resumed;
    }
}

void tracked_free(struct gt_advisor *a)
{
    for (size_t i = 0; i < a->nchoices; i++) {
        free(a->choices[i].root);
        drop_scope(&a->choices[i]);
        gt_calib_release(&a->choices[i].cal);
    }
    free(a->choices);
}
