/*
 * advisor.c - estimates of placements from stored pair fits, ranking and
 * placement search.
 */
#define _POSIX_C_SOURCE 200809L
#include "advisor.h"
#include "pairfits.h"
#include "estimators/companion/extrap.h"
#include "estimators/companion/flowsim.h"
#include "estimators/companion/topology.h"
#include "base/util.h"
#include "db/query.h"

#include <math.h>
#include <stdatomic.h>
#include <threads.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
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

struct gt_advisor {
    struct gt_db *db;
    struct gt_adv_opts o;
    struct gt_pairfits *fits;
    struct root_choice *choices;
    size_t nchoices;
    struct worker *main_worker;
    _Atomic(const char *) stopped;   /* o.stop's first reason */
};

/* o.stop's verdict now, kept once given: every later step stops too. */
static bool should_stop(struct gt_advisor *a)
{
    if (atomic_load_explicit(&a->stopped, memory_order_relaxed))
        return true;
    const char *why = a->o.stop ? a->o.stop(a->o.stop_ctx) : NULL;
    if (!why)
        return false;
    const char *none = NULL;
    atomic_compare_exchange_strong(&a->stopped, &none, why);
    return true;
}

bool gt_advisor_should_stop(struct gt_advisor *a)
{
    return should_stop(a);
}

const char *gt_advisor_stopped(const struct gt_advisor *a)
{
    return atomic_load_explicit(&a->stopped, memory_order_relaxed);
}

/* What one thread needs to estimate: the E[max] engine's workspace and
 * scratch for the partners of one placement. */
struct worker {
    struct gt_emax_ws *ws;
    struct gt_partner_group *groups;
    double *p_slowest;
    double *loss_cost;        /* per partner: E[max] less E[max] with it loss-free */
    double *wire_ms;          /* --bytes over site links: per partner */
    size_t cap;
};

static struct worker *worker_new(void)
{
    struct worker *w = calloc(1, sizeof *w);
    if (w && !(w->ws = gt_emax_ws_new())) {
        free(w);
        return NULL;
    }
    return w;
}

static void worker_free(struct worker *w)
{
    if (!w)
        return;
    gt_emax_ws_free(w->ws);
    free(w->groups);
    free(w->p_slowest);
    free(w->loss_cost);
    free(w->wire_ms);
    free(w);
}

/* Scratch for n partners. */
static int reserve(struct worker *w, size_t n)
{
    if (n <= w->cap && w->groups)
        return GT_OK;
    size_t cap = n > 2 * w->cap ? n : 2 * w->cap;
    struct gt_partner_group *g = realloc(w->groups, (cap ? cap : 1) * sizeof *g);
    if (g)
        w->groups = g;
    double *ps = g ? realloc(w->p_slowest, (cap ? cap : 1) * sizeof *ps) : NULL;
    if (ps)
        w->p_slowest = ps;
    double *lc = ps ? realloc(w->loss_cost, (cap ? cap : 1) * sizeof *lc) : NULL;
    if (lc)
        w->loss_cost = lc;
    double *wire = lc ? realloc(w->wire_ms, (cap ? cap : 1) * sizeof *wire) : NULL;
    if (!wire)
        return GT_ENOMEM;
    w->wire_ms = wire;
    w->cap = cap;
    return GT_OK;
}

static enum gt_fit_choice fit_choice(enum gt_adv_model m)
{
    return m == GT_ADV_PARETO ? GT_FIT_PARETO : m == GT_ADV_NORMAL ? GT_FIT_NORMAL
                                                                   : GT_FIT_AUTO;
}

struct gt_advisor *gt_advisor_new(struct gt_db *db, const struct gt_adv_opts *o)
{
    struct gt_advisor *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->db = db;
    a->o = *o;
    if (!(a->fits = gt_pairfits_new(db, o->window, fit_choice(o->model), o->at, NULL)) ||
        !(a->main_worker = worker_new())) {
        gt_advisor_free(a);
        return NULL;
    }
    return a;
}

void gt_advisor_free(struct gt_advisor *a)
{
    if (!a)
        return;
    gt_pairfits_free(a->fits);
    worker_free(a->main_worker);
    for (size_t i = 0; i < a->nchoices; i++) {
        free(a->choices[i].root);
        drop_scope(&a->choices[i]);
    }
    free(a->choices);
    free(a);
}

void gt_advisor_set_detail(struct gt_advisor *a, enum gt_adv_detail d)
{
    a->o.detail = d;
}

size_t gt_advisor_fits(const struct gt_advisor *a)
{
    return gt_pairfits_fitted(a->fits);
}

size_t gt_advisor_cached_fits(const struct gt_advisor *a)
{
    return gt_pairfits_cached(a->fits);
}

int gt_advisor_save_fits(struct gt_advisor *a, size_t *saved, struct gt_error *err)
{
    bool stale;
    return gt_pairfits_save(a->fits, false, saved, &stale, err);
}

/* ------------------------------------------------------------ estimate */

static void warn(struct gt_estimate *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void warn(struct gt_estimate *e, const char *fmt, ...)
{
    if (e->nwarn == GT_ADV_MAX_WARN)
        return;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    e->warnings[e->nwarn] = strdup(buf);
    if (e->warnings[e->nwarn])
        e->nwarn++;
}

void gt_estimate_clear(struct gt_estimate *e)
{
    if (!e)
        return;
    free(e->root);
    for (size_t i = 0; e->partners && i < e->n; i++)
        free(e->partners[i].site);
    free(e->partners);
    free(e->q_values);
    free(e->q_model);
    for (size_t i = 0; i < e->nwarn; i++)
        free(e->warnings[i]);
    memset(e, 0, sizeof *e);
}

/* The distribution a fit stands for under the advisor's model choice. */
/* The window's loss rate: lost rows over all rows. */
static double pair_loss(const struct gt_pairfit *f)
{
    return f->samples ? (double)(f->samples - f->valid) / (double)f->samples : 0;
}

/* Whether max_loss leaves the pair out (not with loss ignore); why into
 * buf, in words for every front end: the setting by its name in the
 * config and in a request (max_loss), not by a command-line flag. */
static bool too_lossy(const struct gt_advisor *a, const struct gt_pairfit *f, const char *root,
                      const char *site, char *why, size_t size)
{
    if (a->o.loss_ignore || !(f->valid == 0 || pair_loss(f) > a->o.max_loss))
        return false;
    snprintf(why, size, "%s -> %s: loss %.1f%% is above the maximum loss %.1f%% (max_loss)%s",
             root, site, 100 * pair_loss(f), 100 * a->o.max_loss,
             f->valid == 0 ? ", unreachable" : "");
    return true;
}

/* The distribution a fit stands for under model m: its selected model,
 * the one m names when the fit has both candidates (adaptive chose it),
 * the last value (last), or the window's samples xs when given
 * (empirical). */
static void fit_dist(const struct gt_advisor *a, enum gt_adv_model m, const struct gt_pairfit *f,
                     bool other, const double *xs, size_t nx, struct gt_dist *d)
{
    const struct gt_model *want = m == GT_ADV_PARETO ? &gt_model_pareto
                                : m == GT_ADV_NORMAL ? &gt_model_normal
                                : other ? f->other : NULL;
    if (xs) {
        gt_dist_set_empirical(d, xs, nx);
    } else if (m == GT_ADV_LAST) {
        d->model = &gt_model_delta;
        d->p[0] = f->last_value;
    } else if (want && f->model != want && f->other == want) {
        d->model = f->other;
        d->p[0] = f->other_p[0];
        d->p[1] = f->other_p[1];
    } else {
        d->model = f->model;
        d->p[0] = f->p[0];
        d->p[1] = f->p[1];
    }
    /* a lost probe is a lost message, resent after the RTO (METHOD.md 2.1) */
    double p = pair_loss(f);
    if (!a->o.loss_ignore && p > 0 && p < 1) {
        d->loss_p = p;
        d->rto_ms = a->o.rto_ms;
    }
}

/* What of a verdict says the model would change the answer, shortly,
 * into buf; those flags. */
static unsigned misfit(const struct gt_adv_opts *o, const struct gt_model *m, const double *p,
                       double ks, double chi2, const struct gt_quantile_bounds *b, char *buf,
                       size_t size)
{
    unsigned flags = gt_verdict_flags(m, p, ks, chi2, b, &o->verdict);
    char what[48];
    gt_verdict_short(flags, what, sizeof what);
    snprintf(buf, size, "%s %s", m->name, what);
    return flags & GT_VERDICT_MISFIT;
}

/* What --model auto uses of a pair's fit (METHOD.md 3, verdicts). */
enum auto_use { USE_FIT, USE_OTHER, USE_SAMPLES };

/* --fallback empirical: the selected fit unless its verdict says it would
 * change the answer, then the other candidate unless it would too (not
 * applicable counts as flagged), then the window's samples; why says
 * why the selected one was not used.  A point mass fits its window
 * exactly. */
static enum auto_use auto_use(const struct gt_adv_opts *o, enum gt_adv_model m,
                              const struct gt_pairfit *f, char *why, size_t size)
{
    if (m != GT_ADV_AUTO || !o->fallback_empirical ||
        (f->model != &gt_model_pareto && f->model != &gt_model_normal))
        return USE_FIT;
    char sel[64], oth[64] = "";
    if (!misfit(o, f->model, f->p, f->ks, f->chi2, &f->bounds, sel, sizeof sel))
        return USE_FIT;
    bool other_ok = f->other && !misfit(o, f->other, f->other_p, f->other_ks, f->other_chi2,
                                        &f->bounds, oth, sizeof oth);
    snprintf(why, size, "%s%s%s", sel, f->other && !other_ok ? "; " : "", other_ok ? "" : oth);
    return other_ok ? USE_OTHER : USE_SAMPLES;
}

enum gt_fit_regime gt_adv_fit_regime(const struct gt_adv_opts *o, const struct gt_pairfit *f)
{
    char why[160];
    if (!f->found || !f->model)
        return GT_REGIME_NONE;
    enum gt_adv_model m = gt_adv_tracked(o->model) ? GT_ADV_AUTO : o->model;
    enum auto_use u = auto_use(o, m, f, why, sizeof why);
    if (u == USE_SAMPLES)
        return GT_REGIME_FALLBACK;
    const struct gt_model *used = u == USE_OTHER ? f->other : f->model;
    double alpha = u == USE_OTHER ? f->other_p[1] : f->p[1];
    if (used == &gt_model_pareto && alpha <= 1)
        return GT_REGIME_HEAVY;
    return GT_REGIME_FIT;
}

const char *gt_fit_regime_name(enum gt_fit_regime r)
{
    static const char *const names[] = {"fit", "heavy", "fallback", "none"};
    return r >= 0 && r <= GT_REGIME_NONE ? names[r] : "none";
}

/* The partner's distribution into d: the fit's, the other candidate's,
 * or the window's samples (--model empirical, or auto's verdict: *use
 * says which, why says why). */
static int partner_dist(struct gt_advisor *a, enum gt_adv_model m, const struct gt_pairfit *f,
                        const char *src, const char *dst, struct gt_dist *d,
                        enum auto_use *use, char *why, size_t size, struct gt_error *err)
{
    *use = auto_use(&a->o, m, f, why, size);
    const double *xs = NULL;
    size_t nx = 0;
    if (m == GT_ADV_EMPIRICAL || *use == USE_SAMPLES) {
        int rc = gt_pairfits_samples(a->fits, src, dst, &xs, &nx, err);
        if (rc)
            return rc;
        if (!nx)
            return gt_error_set(err, GT_ENOTFOUND, NULL, "%s -> %s: no samples", src, dst);
    }
    fit_dist(a, m, f, *use == USE_OTHER, xs, nx, d);
    return GT_OK;
}

/* Intra-site latency of a site: the median of its self-pair window. */
static int intra_site(struct gt_advisor *a, const char *site, double *ms, bool *known,
                      struct gt_error *err)
{
    const struct gt_pairfit *f;
    int rc = gt_pairfits_get(a->fits, site, site, &f, err);
    if (rc)
        return rc;
    *ms = f->found ? f->median : a->o.intra_site_ms;
    *known = f->found || a->o.intra_site_ms > 0;
    return GT_OK;
}

/* --bytes: the partner also sends a message to the root.  Above S the
 * rendezvous costs one more round trip: the partner's RTT twice (the two
 * trips taken as seeing the same network, so the distribution scales by
 * 2).  The LogGPS cost of the bytes beyond a zero-byte message, with all
 * partners' messages sharing the root's bandwidth, shifts it. */
static void add_message(const struct gt_advisor *a, struct gt_estimate *e, struct gt_dist *d,
                        double senders, double wire_ms)
{
    if (!(a->o.bytes > 0) || !a->o.loggps)
        return;
    const struct gt_loggps *m = a->o.loggps;
    double k = a->o.bytes;
    e->rendezvous = k > m->S;
    if (e->rendezvous) {
        d->p[0] *= 2;
        if (d->model == &gt_model_normal)
            d->p[1] *= 2;
    }
    /* with site bandwidths the wire time is simulated; LogGPS keeps the
       per-byte software overheads */
    double cost = isnan(wire_ms)
                  ? (gt_loggps_time(m, k, senders, 0) - gt_loggps_time(m, 0, 1, 0)) / 1e6
                  : wire_ms + k * ((k > m->S ? m->Osl + m->Orl : m->Oss + m->Ors)) / 1e6;
    e->message_ms = fmax(e->message_ms, cost);
    d->shift += cost;
}

/* ------------------------------------------------------------ site links */

struct gather {
    size_t root;
    double bytes;
};

static bool gather_next(void *ctx, size_t node, size_t k, size_t *dst, double *bytes)
{
    const struct gather *g = ctx;
    *dst = g->root;
    *bytes = g->bytes;
    return k == 0 && node != g->root;
}

static size_t gather_route(void *ctx, size_t src, size_t dst, uint32_t *out, size_t cap)
{
    (void)ctx, (void)cap;
    out[0] = (uint32_t)(2 * src);          /* the partner site's uplink */
    out[1] = (uint32_t)(2 * dst + 1);      /* the root site's downlink */
    return 2;
}

static int site_links(const struct gt_topology *t, const char *name, double *up, double *down,
                      struct gt_error *err)
{
    for (size_t i = 0; i < t->nnodes; i++)
        if (!strcmp(t->names[i], name)) {
            *up = t->bw[2 * i];
            *down = t->bw[2 * i + 1];
            return GT_OK;
        }
    return gt_error_set(err, GT_EINPUT, NULL, "site %s has no bandwidth in the site "
                        "bandwidth file ([advisor] site_bandwidths)", name);
}

/* Every partner sends the message to the root at once over its site's
 * uplink and the root's downlink, max-min shared (estimators/flowsim.h):
 * each partner's arrival time, ms. */
static int gather_times(const struct gt_advisor *a, const struct gt_placement *pl,
                        double *wire_ms, struct gt_error *err)
{
    size_t n = pl->n + 1;
    double *bw = malloc(2 * n * sizeof *bw), *fin = malloc(n * sizeof *fin);
    int rc = bw && fin ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < pl->n; i++)
        rc = site_links(a->o.sites, pl->sites[i].name, &bw[2 * i], &bw[2 * i + 1], err);
    if (rc == GT_OK)
        rc = site_links(a->o.sites, pl->root, &bw[2 * pl->n], &bw[2 * pl->n + 1], err);
    struct gather g = {pl->n, a->o.bytes};
    struct gt_sim_net net = {.nnodes = n, .nlinks = 2 * n, .max_path = 2, .bw = bw,
                             .next = gather_next, .route = gather_route, .ctx = &g};
    struct gt_sim_result r = {0};
    if (rc == GT_OK)
        rc = gt_sim_run(&net, 0, fin, &r, err);
    for (size_t i = 0; rc == GT_OK && i < pl->n; i++)
        wire_ms[i] = fin[i] * 1e3;   /* partners start first: in order */
    free(bw);
    free(fin);
    return rc;
}

/* The fit of root -> site; with --symmetric, site -> root's when root ->
 * site has none (an RTT is a round trip: the probe's view of the pair
 * answers for the root's), *reversed then set. */
static int pair_fit(struct gt_advisor *a, const char *root, const char *site,
                    const struct gt_pairfit **f, bool *reversed, struct gt_error *err);

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
        int rc = pair_fit(a, pl->root, pl->sites[i].name, &f, &reversed, err);
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
                                  o->stop_ctx, o->verdict};
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
static int root_model(struct gt_advisor *a, const struct gt_placement *pl, enum gt_adv_model *m,
                      const struct gt_adapt **adapt, const struct gt_calib **cal,
                      struct gt_error *err)
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
    free(jobs);
    free(levels);
    free(of);
    return rc;
}

/* Adaptive, before rank's estimates: each root tracked with the union of
 * its candidates' partners. */
static int adapt_scopes(struct gt_advisor *a, const struct gt_placement *pl, size_t n,
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

static int pair_fit(struct gt_advisor *a, const char *root, const char *site,
                    const struct gt_pairfit **f, bool *reversed, struct gt_error *err)
{
    *reversed = false;
    int rc = gt_pairfits_get(a->fits, root, site, f, err);
    if (rc || (*f)->found || !a->o.symmetric)
        return rc;
    const struct gt_pairfit *back;
    if ((rc = gt_pairfits_get(a->fits, site, root, &back, err)) == GT_OK && back->found) {
        *f = back;
        *reversed = true;
    }
    return rc;
}

int gt_advisor_takes(struct gt_advisor *a, const char *root, const char *site, bool *takes,
                     struct gt_error *err)
{
    const struct gt_pairfit *f;
    bool reversed;
    char why[300];
    int rc = pair_fit(a, root, site, &f, &reversed, err);
    *takes = rc == GT_OK && f->found && !too_lossy(a, f, root, site, why, sizeof why);
    return rc;
}

static int add_partner(struct gt_advisor *a, struct gt_estimate *e, const char *root,
                       const struct gt_site_req *s, size_t senders, double wire_ms,
                       struct gt_partner_group *g, int64_t *oldest, struct gt_error *err)
{
    const struct gt_pairfit *f;
    bool reversed;
    int rc = pair_fit(a, root, s->name, &f, &reversed, err);
    if (rc)
        return rc;
    if (reversed)
        warn(e, "%s -> %s has no samples: %s -> %s's are used (symmetric)", root, s->name,
             s->name, root);
    if (f->found && !a->o.loss_ignore && f->valid == 0) {   /* 100 % loss */
        char since[32];
        gt_format_time(f->outage_since, since, sizeof since);
        snprintf(e->reason, sizeof e->reason, "%s -> %s: unreachable: no answer since %s",
                 root, s->name, since);
        if (!a->o.skip_missing)
            return gt_error_set(err, GT_ENOTFOUND, NULL, "%s (loss = ignore uses its last "
                                "value; skip_missing leaves it out)", e->reason);
        warn(e, "%s: left out", e->reason);
        return GT_OK;
    }
    char why[300];
    if (f->found && too_lossy(a, f, root, s->name, why, sizeof why)) {
        if (a->o.enforce_max_loss) {
            snprintf(e->reason, sizeof e->reason, "%s", why);
            return gt_error_set(err, GT_ENOTFOUND, NULL, "%s", why);
        }
        warn(e, "%s", why);
    }
    if (!f->found) {
        if (!a->o.skip_missing) {
            snprintf(e->reason, sizeof e->reason, "%s", f->why);
            return gt_error_set(err, GT_ENOTFOUND, NULL, "%s (skip_missing leaves the site "
                                "out)",
                                f->why);
        }
        warn(e, "%s: left out", f->why);
        return GT_OK;
    }
    double intra = 0;
    bool intra_known = true;
    if (s->procs > 1 && (rc = intra_site(a, s->name, &intra, &intra_known, err)))
        return rc;
    if (!intra_known)
        warn(e, "%s:%ld: no intra-site latency known (no samples of %s to itself, "
             "[advisor] intra_site_ms is 0): its processes add nothing", s->name, s->procs,
             s->name);
    memset(&g[e->n], 0, sizeof g[e->n]);
    g[e->n].count = 1;
    g[e->n].dist.shift = intra;
    enum auto_use use;
    char misfits[160];
    if ((rc = partner_dist(a, e->model, f, reversed ? s->name : root, reversed ? root : s->name,
                           &g[e->n].dist, &use, misfits, sizeof misfits, err)))
        return rc;
    add_message(a, e, &g[e->n].dist, (double)senders, wire_ms);
    const struct gt_dist *d = &g[e->n].dist;
    if (d->model == &gt_model_pareto && d->p[1] <= 1) {
        /* this window's own m; several such partners: the largest x0 */
        double x0 = gt_cut_x0(d->p[0], d->p[1], (double)f->samples) + d->shift;
        e->cut_x0 = isfinite(e->cut_x0) && e->cut_x0 > x0 ? e->cut_x0 : x0;
    }
    if (f->last_valid_ts < *oldest)
        *oldest = f->last_valid_ts;
    e->processes += s->procs;
    if (a->o.detail == GT_ADV_EMAX_ONLY) {   /* no per-partner detail */
        e->n++;
        return GT_OK;
    }
    struct gt_partner_est *p = &e->partners[e->n];
    if (!(p->site = strdup(s->name)))
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    p->model = g[e->n].dist.model->name;
    memcpy(p->p, g[e->n].dist.p, sizeof p->p);
    p->fallback = use == USE_SAMPLES;
    p->other_fit = use == USE_OTHER;
    if (gt_dist_is_step(d)) {   /* the samples are the model: their median and count */
        p->p[0] = gt_quantile_sorted(d->xs, d->nx, 0.5);
        p->p[1] = (double)d->nx;
    }
    if (use == USE_SAMPLES)
        warn(e, "%s -> %s: both fits would change the answer (%s): the window's %zu samples "
             "are used as they are (empirical; fallback = none keeps the %s)", root, s->name,
             misfits, d->nx, f->model->name);
    else if (use == USE_OTHER)
        warn(e, "%s -> %s: the %s fit would change the answer (%s): the %s fit is used "
             "(fallback = none keeps the %s)", root, s->name, f->model->name, misfits,
             f->other->name, f->model->name);
    p->shift_ms = d->shift;
    p->samples = f->samples;
    p->loss = pair_loss(f);
    p->valid = f->valid;
    p->filled = f->filled;
    p->first_ts = f->first_ts;
    p->last_ts = f->last_ts;
    p->procs = s->procs;
    if (f->valid == 0) {
        char since[32];
        gt_format_time(f->outage_since, since, sizeof since);
        warn(e, "%s -> %s: no answer in the whole window, an outage since %s: its last "
             "value %.6g ms is used", root, s->name, since, f->last_value);
    }
    bool oth = use == USE_OTHER;   /* the verdict of the model used */
    struct gt_verdict v = {.model = oth ? f->other : f->model,
                           .p = {oth ? f->other_p[0] : f->p[0], oth ? f->other_p[1] : f->p[1]},
                           .ks = oth ? f->other_ks : f->ks, .chi2 = oth ? f->other_chi2 : f->chi2,
                           .m = f->samples, .window = a->o.window, .bounds = &f->bounds};
    gt_verdict_check(&v, &a->o.verdict);
    if (gt_dist_is_step(d))   /* its own samples: only the fill can be said */
        v.flags &= GT_VERDICT_NOT_FULL;
    if (f->samples < (size_t)a->o.min_samples) {
        warn(e, "%s -> %s: only %zu samples in the window", root, s->name, f->samples);
        v.flags &= ~(unsigned)GT_VERDICT_NOT_FULL;   /* said already */
    }
    char lines[GT_VERDICT_MAX_LINES][GT_VERDICT_LINE];
    int nl = gt_verdict_lines(&v, &a->o.verdict, lines, GT_VERDICT_MAX_LINES);
    for (int k = 0; k < nl; k++)
        warn(e, "%s -> %s: %s", root, s->name, lines[k]);
    p->verdict = v.flags;
    e->n++;
    return GT_OK;
}

/* The partners of a placement into w's scratch and e: everything that
 * reads pair fits (not thread-safe: under the caller's lock). */
static int by_name_ptr(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* GT_EUSAGE naming the first site given twice, with the hint to write
 * its processes instead. */
int gt_sites_check_unique(const struct gt_site_req *sites, size_t n, const char *what,
                          struct gt_error *err)
{
    if (n < 2)
        return GT_OK;
    const char **names = malloc(n * sizeof *names);
    if (!names)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++)
        names[i] = sites[i].name;
    qsort(names, n, sizeof *names, by_name_ptr);
    int rc = GT_OK;
    for (size_t i = 1; i < n && rc == GT_OK; i++)
        if (!strcmp(names[i], names[i - 1]))
            rc = gt_error_set(err, GT_EUSAGE, what, "site '%s' is listed twice (for two "
                              "processes at one site write %s:2)", names[i], names[i]);
    free(names);
    return rc;
}

/* The placement as asked: a root is one process, partners are distinct. */
static int check_placement(const struct gt_placement *pl, struct gt_error *err)
{
    if (strchr(pl->root, ':'))
        return gt_error_set(err, GT_EUSAGE, "root", "'%s': the root is one process and "
                            "takes no :PROCS (processes go on partner sites)", pl->root);
    return gt_sites_check_unique(pl->sites, pl->n, "sites", err);
}

/* e's partners from pl under the root's model, or the model forced (>= 0:
 * a candidate of combined's), ready for compute (not thread-safe: under
 * the caller's lock). */
static int prepare(struct gt_advisor *a, struct worker *w, const struct gt_placement *pl,
                   int forced, struct gt_estimate *e, int64_t *oldest, struct gt_error *err)
{
    memset(e, 0, sizeof *e);
    e->window = a->o.window;
    e->q = a->o.q;
    bool full = a->o.detail == GT_ADV_FULL, listed = a->o.detail != GT_ADV_EMAX_ONLY;
    e->detail = a->o.detail;
    e->nq = full ? a->o.nq : 0;
    e->cut_x0 = INFINITY;
    e->processes = 1;
    e->root = strdup(pl->root);
    if (listed) {
        e->partners = calloc(pl->n ? pl->n : 1, sizeof *e->partners);
        e->q_values = calloc(e->nq ? e->nq : 1, sizeof *e->q_values);
    }
    int rc = GT_OK;
    *oldest = INT64_MAX;
    if (!e->root || (listed && (!e->partners || !e->q_values)) || reserve(w, pl->n))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK && (rc = check_placement(pl, err)) != GT_OK)
        snprintf(e->reason, sizeof e->reason, "%s", err ? err->msg : "bad placement");
    const struct gt_adapt *adapt = NULL;
    const struct gt_calib *cal = NULL;
    if (rc == GT_OK)
        rc = root_model(a, pl, &e->model, &adapt, (full && e->nq) || a->o.objective_q > 0
                                                      ? &cal : NULL, err);
    if (rc == GT_OK && forced >= 0)
        e->model = (enum gt_adv_model)forced;
    if (cal && cal->stopped && a->o.detail == GT_ADV_FULL)
        warn(e, "the model's quantiles, not calibrated: %s stopped the calibration",
             a->stopped ? a->stopped : "the request's budget");
    if (cal && !cal->stopped) {
        e->calibrated = true;
        e->cal = *cal;
    }
    if (rc == GT_OK && cal && e->nq && !(e->q_model = calloc(e->nq, sizeof *e->q_model)))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (adapt) {
        e->adaptive = true;
        e->adapt = *adapt;
        if (adapt->chosen < 0 && a->o.detail == GT_ADV_FULL)
            warn(e, "%s: no forecast of %s's collective %.0f s ahead can be scored yet "
                 "(too few samples stored): answered with auto",
                 a->o.model == GT_ADV_COMBINED ? "combined" : "adaptive", pl->root,
                 a->o.horizon_s);
    }
    bool wired = rc == GT_OK && a->o.bytes > 0 && a->o.sites;
    if (wired)
        rc = gather_times(a, pl, w->wire_ms, err);
    for (size_t i = 0; rc == GT_OK && i < pl->n; i++)
        rc = add_partner(a, e, pl->root, &pl->sites[i], pl->n, wired ? w->wire_ms[i] : NAN,
                         w->groups, oldest, err);
    if (rc == GT_OK && e->n == 0) {
        snprintf(e->reason, sizeof e->reason, "no partner with data");
        rc = gt_error_set(err, GT_ENOTFOUND, NULL, "%s: no partner site has data", pl->root);
    }
    return rc;
}

/* The levels of the collective time's quantiles computed into qs: those
 * asked (with full detail), then the objective's; how many. */
static size_t levels_of(const struct gt_advisor *a, const struct gt_estimate *e, double *qs)
{
    size_t nq = e->nq < GT_ADV_MAX_Q ? e->nq : GT_ADV_MAX_Q;
    for (size_t k = 0; k < nq; k++)
        qs[k] = a->o.q[k];
    if (a->o.objective_q > 0)
        qs[nq++] = a->o.objective_q;
    return nq;
}

/* E[max] of w's partners under e's model, its quantiles at levels_of's
 * levels into qv, and each partner's share of being the slowest and the
 * cost of its loss (thread-safe). */
static int compute_model(const struct gt_advisor *a, struct worker *w, struct gt_estimate *e,
                         double *qv, struct gt_error *err)
{
    bool full = a->o.detail == GT_ADV_FULL;
    double qs[GT_ADV_MAX_Q + 1];
    size_t nq = levels_of(a, e, qs);
    struct gt_emax_opts eo = {e->cut_x0, a->o.cut_paper, qs, nq, full, false, w->ws, 0, NULL,
                              full && e->partners};
    struct gt_emax_result r = {0, 0, NULL, 0, qv, w->p_slowest, w->loss_cost};
    int rc = gt_emax(w->groups, e->n, &eo, &r, err);
    if (rc)
        return rc;
    e->e_max = r.e_max;
    e->method = r.method;
    for (size_t i = 0; full && e->partners && i < e->n; i++) {
        e->partners[i].p_slowest = w->p_slowest[i];
        /* what its loss costs: E[max] less E[max] with it loss-free */
        e->partners[i].loss_cost_ms = w->loss_cost[i];
    }
    return GT_OK;
}

/* The rest of e from its E[max] and the model's quantiles qv: those
 * calibrated, the objective, the job's time, the warnings. */
static void finish(const struct gt_advisor *a, struct gt_estimate *e, double *qv,
                   int64_t oldest)
{
    bool full = a->o.detail == GT_ADV_FULL;
    double qs[GT_ADV_MAX_Q + 1];
    size_t nq = levels_of(a, e, qs);
    /* calibrated: the model's quantile times its level's factor (the
       objective's is the calibration's level after those asked) */
    for (size_t k = 0; e->calibrated && k < nq; k++) {
        size_t lk = k < e->nq ? k : a->o.nq;
        if (k < e->nq && e->q_model)
            e->q_model[k] = qv[k];
        qv[k] *= lk < GT_BT_MAX_LEVELS ? e->cal.factor[lk] : 1;
    }
    /* each level calibrated alone may cross another: a quantile is at
       least every one of a lower level (sorting them never makes them
       worse: Chernozhukov, Fernandez-Val and Galichon 2010) */
    double low[GT_ADV_MAX_Q + 1];
    memcpy(low, qv, nq * sizeof *qv);
    for (size_t k = 0; e->calibrated && k < nq; k++)
        for (size_t j = 0; j < nq; j++)
            if (qs[j] < qs[k] && low[j] > qv[k])
                qv[k] = low[j];
    for (size_t k = 0; k < e->nq && k < GT_ADV_MAX_Q; k++)
        e->q_values[k] = qv[k];
    e->ok = true;
    e->data_age_s = (double)a->o.at - (double)oldest;   /* no int64 overflow */
    e->data_ts = oldest;
    e->compute_ms = a->o.compute_extrap
                        ? fmax(0, gt_xmodel_eval(a->o.compute_model, a->o.compute_p,
                                                 (double)e->processes))
                        : a->o.compute_ms;
    e->iteration_ms = e->compute_ms + e->e_max;
    e->objective_ms = e->compute_ms + (a->o.objective_q > 0 ? qv[nq - 1] : e->e_max);
    e->job_ms = (double)a->o.iterations * e->iteration_ms;
    if (e->data_age_s > (double)a->o.stale_after_s && full)
        warn(e, "stale data: the oldest partner's newest sample is %.0f s old", e->data_age_s);
    if (isfinite(e->cut_x0) && full)
        warn(e, "a partner's fitted alpha <= 1 (no mean): E[max] %s at x0 = %.6g ms",
             a->o.cut_paper ? "cut as the paper's eq. 12 (mass beyond x0 dropped)"
                            : "censored (E[min(max, x0)])", e->cut_x0);
}

/* E[max] and the rest of e from w's partners (thread-safe). */
static int compute(const struct gt_advisor *a, struct worker *w, struct gt_estimate *e,
                   int64_t oldest, struct gt_error *err)
{
    double qv[GT_ADV_MAX_Q + 1];
    int rc = compute_model(a, w, e, qv, err);
    if (rc == GT_OK)
        finish(a, e, qv, oldest);
    return rc;
}

/* prepare under lock (NULL: none). */
static int prepare_locked(struct gt_advisor *a, struct worker *w, const struct gt_placement *pl,
                          int forced, struct gt_estimate *e, int64_t *oldest, mtx_t *lock,
                          struct gt_error *err)
{
    if (lock)
        mtx_lock(lock);
    int rc = prepare(a, w, pl, forced, e, oldest, err);
    if (lock)
        mtx_unlock(lock);
    return rc;
}

/* The root's combined weights into *comb; *combines: the root has them
 * (else its model answers: auto while nothing is known). */
static int root_weights(struct gt_advisor *a, const struct gt_placement *pl,
                        struct gt_adapt *comb, bool *combines, mtx_t *lock,
                        struct gt_error *err)
{
    enum gt_adv_model m;
    const struct gt_adapt *t;
    if (lock)
        mtx_lock(lock);
    int rc = root_model(a, pl, &m, &t, NULL, err);
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
static int estimate_combined(struct gt_advisor *a, struct worker *w,
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
        rc = prepare_locked(a, w, pl, chosen_model[j], ej, i ? &old : &oldest, lock, err);
        if (rc == GT_OK)
            rc = compute_model(a, w, ej, qv, err);
        if (rc) {
            if (i)
                gt_estimate_clear(ej);
            break;
        }
        size_t nq = levels_of(a, ej, qs);
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
    finish(a, e, mix, oldest);
    return GT_OK;
}

static int estimate_with(struct gt_advisor *a, struct worker *w, const struct gt_placement *pl,
                         struct gt_estimate *e, mtx_t *lock, struct gt_error *err)
{
    int64_t oldest;
    struct gt_adapt comb;
    bool combines = false;
    memset(e, 0, sizeof *e);
    int rc = a->o.model == GT_ADV_COMBINED ? root_weights(a, pl, &comb, &combines, lock, err)
                                           : GT_OK;
    if (rc == GT_OK && combines)
        rc = estimate_combined(a, w, pl, &comb, e, lock, err);
    else if (rc == GT_OK && (rc = prepare_locked(a, w, pl, -1, e, &oldest, lock, err)) == GT_OK)
        rc = compute(a, w, e, oldest, err);
    if (rc && !e->reason[0] && err)
        snprintf(e->reason, sizeof e->reason, "%s", err->msg);
    return rc;
}

int gt_advisor_estimate(struct gt_advisor *a, const char *root,
                        const struct gt_site_req *sites, size_t n,
                        struct gt_estimate *e, struct gt_error *err)
{
    struct gt_placement pl = {root, sites, n};
    return estimate_with(a, a->main_worker, &pl, e, NULL, err);
}

/* ------------------------------------------------------------ many */

struct pool {
    struct gt_advisor *a;
    const struct gt_placement *pl;
    struct gt_estimate *out;
    int *rc;
    size_t n, next;
    mtx_t lock;               /* pair fits, next, fatal */
    int fatal;
    struct gt_error fatal_err;
};

/* Take placements in order until none is left or one fails fatally. */
static int run_worker(struct pool *p, struct worker *w)
{
    for (;;) {
        if (should_stop(p->a))
            return 0;
        mtx_lock(&p->lock);
        size_t i = p->next++;
        bool stop = i >= p->n || p->fatal;
        mtx_unlock(&p->lock);
        if (stop)
            return 0;
        struct gt_error err = {0};
        p->rc[i] = estimate_with(p->a, w, &p->pl[i], &p->out[i], &p->lock, &err);
        if (p->rc[i] && p->rc[i] != GT_ENOTFOUND) {
            mtx_lock(&p->lock);
            if (!p->fatal) {
                p->fatal = p->rc[i];
                p->fatal_err = err;
            }
            mtx_unlock(&p->lock);
        }
    }
}

struct thread_arg {
    struct pool *p;
    struct worker *w;
};

static int thread_main(void *arg)
{
    struct thread_arg *t = arg;
    return run_worker(t->p, t->w);
}

int gt_advisor_threads(long requested)
{
    if (requested > 0)
        return (int)requested;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (int)(cpus < GT_ADV_MAX_THREADS ? cpus : GT_ADV_MAX_THREADS) : 1;
}

static int thread_count(const struct gt_advisor *a, size_t n)
{
    int t = gt_advisor_threads(a->o.threads);
    return n < 2 * (size_t)t ? 1 : t;
}

int gt_advisor_estimate_many(struct gt_advisor *a, const struct gt_placement *pl, size_t n,
                             struct gt_estimate *out, int *rc, struct gt_error *err)
{
    struct pool p = {.a = a, .pl = pl, .out = out, .rc = rc, .n = n};
    memset(out, 0, n * sizeof *out);
    for (size_t i = 0; i < n; i++)
        rc[i] = -1;   /* not reached */
    int rc0 = adapt_scopes(a, pl, n, err);
    if (rc0)
        return rc0;
    if (mtx_init(&p.lock, mtx_plain) != thrd_success)
        return gt_error_set(err, GT_ENOMEM, NULL, "cannot create a lock");
    int nt = thread_count(a, n);
    thrd_t th[GT_ADV_MAX_THREADS];
    struct thread_arg args[GT_ADV_MAX_THREADS];
    int started = 0;
    for (int t = 1; t < nt && t < GT_ADV_MAX_THREADS; t++) {
        args[started] = (struct thread_arg){&p, worker_new()};
        if (!args[started].w)
            break;
        if (thrd_create(&th[started], thread_main, &args[started]) != thrd_success) {
            worker_free(args[started].w);
            break;
        }
        started++;
    }
    run_worker(&p, a->main_worker);   /* this thread works too */
    for (int t = 0; t < started; t++) {
        thrd_join(th[t], NULL);
        worker_free(args[t].w);
    }
    mtx_destroy(&p.lock);
    if (p.fatal && err)
        *err = p.fatal_err;
    return p.fatal;
}

/* ------------------------------------------------------------ placement */

void gt_place_result_clear(struct gt_place_result *r)
{
    for (size_t i = 0; i < r->nbest; i++)
        gt_estimate_clear(&r->best[i]);
    free(r->best);
    for (size_t i = 0; i < r->nexcluded; i++)
        free(r->excluded[i]);
    memset(r, 0, sizeof *r);
}

int gt_estimate_cmp(const struct gt_estimate *x, const struct gt_estimate *y)
{
    bool cx = isfinite(x->cut_x0), cy = isfinite(y->cut_x0);
    if (cx != cy)
        return cx ? 1 : -1;
    return (x->objective_ms > y->objective_ms) - (x->objective_ms < y->objective_ms);
}

/* e clearly better than best: ordered before it, and not by rounding. */
static bool better(const struct gt_estimate *e, const struct gt_estimate *best)
{
    if (isfinite(e->cut_x0) != isfinite(best->cut_x0))
        return !isfinite(e->cut_x0);
    return e->objective_ms < best->objective_ms * (1 - 1e-12);
}

/* Keep e among the best (lowest iteration time) r->nbest of at most keep;
 * takes ownership of e's contents. */
static void keep_best(struct gt_place_result *r, size_t keep, struct gt_estimate *e)
{
    size_t pos = r->nbest;
    while (pos > 0 && gt_estimate_cmp(&r->best[pos - 1], e) > 0)
        pos--;
    if (pos >= keep) {
        gt_estimate_clear(e);
        return;
    }
    if (r->nbest == keep)
        gt_estimate_clear(&r->best[--r->nbest]);
    memmove(&r->best[pos + 1], &r->best[pos], (r->nbest - pos) * sizeof *r->best);
    r->best[pos] = *e;
    r->nbest++;
    memset(e, 0, sizeof *e);
}

struct cand {
    const struct gt_site_req *site;
    double score;    /* the partner's own quantile at 1 - 1/(K+1): lower is better */
};

static int by_score(const void *x, const void *y)
{
    double a = ((const struct cand *)x)->score, b = ((const struct cand *)y)->score;
    return (a > b) - (a < b);
}

/* Say why a site was left out, once: an unknown pool site is unknown
 * from every root. */
static void exclude(struct gt_place_result *r, const char *why)
{
    for (size_t i = 0; i < r->nexcluded; i++)
        if (r->excluded[i] && !strcmp(r->excluded[i], why))
            return;
    if (r->nexcluded < 64)
        r->excluded[r->nexcluded++] = strdup(why);
}

/* Partners of root with data, scored; the rest reported as excluded. */
static int candidates(struct gt_advisor *a, const char *root, const struct gt_site_req *pool,
                      size_t npool, size_t k, struct cand *out, size_t *nout,
                      struct gt_place_result *r, struct gt_error *err)
{
    *nout = 0;
    const struct gt_pairfit **fits = malloc((npool ? npool : 1) * sizeof *fits);
    bool *rev = malloc((npool ? npool : 1) * sizeof *rev);
    struct gt_site_req *kept = malloc((npool ? npool : 1) * sizeof *kept);
    int rc = fits && rev && kept ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < npool; i++) {
        if (!strcmp(pool[i].name, root))
            continue;
        const struct gt_pairfit *f;
        bool reversed;
        if ((rc = pair_fit(a, root, pool[i].name, &f, &reversed, err)))
            break;
        char why[300];
        if (!f->found) {
            exclude(r, f->why);
        } else if (too_lossy(a, f, root, pool[i].name, why, sizeof why)) {
            exclude(r, why);
        } else {
            out[*nout].site = &pool[i];
            fits[*nout] = f, rev[*nout] = reversed, kept[*nout] = pool[i];
            (*nout)++;
        }
    }
    /* the model: with adaptive, tracked over the sites the search may use */
    struct gt_placement pl = {root, kept, *nout};
    enum gt_adv_model model;
    if (rc == GT_OK)
        rc = root_model(a, &pl, &model, NULL, NULL, err);
    for (size_t i = 0; rc == GT_OK && i < *nout; i++) {
        struct gt_dist d = {0};
        enum auto_use use;
        char why[300];
        const char *name = out[i].site->name;
        if ((rc = partner_dist(a, model, fits[i], rev[i] ? name : root, rev[i] ? root : name,
                               &d, &use, why, sizeof why, err)))
            break;
        double level = 1 - 1.0 / (double)(k + 1);
        out[i].score = gt_dist_quantile0(&d, level);
    }
    free(fits), free(rev), free(kept);
    if (rc)
        return rc;
    qsort(out, *nout, sizeof *out, by_score);
    return GT_OK;
}

/* Estimate root with the candidates idx[0..k) at the given detail. */
static int estimate_set(struct gt_advisor *a, const char *root, struct cand *c,
                        const size_t *idx, size_t k, struct gt_site_req *buf,
                        enum gt_adv_detail detail, struct gt_estimate *e,
                        struct gt_error *err)
{
    for (size_t i = 0; i < k; i++)
        buf[i] = *c[idx[i]].site;
    enum gt_adv_detail keep = a->o.detail;
    a->o.detail = detail;
    int rc = gt_advisor_estimate(a, root, buf, k, e, err);
    a->o.detail = keep;
    return rc;
}

/* C(n, k) as a double, the product of (n - k + i) / i: lgamma writes the
 * global signgam, a data race between the advisor's threads */
static double choose(double n, double k)
{
    if (k > n)
        return 0;
    k = fmin(k, n - k);
    double logc = 0;
    for (double i = 1; i <= k; i++)
        logc += log((n - k + i) / i);
    return exp(logc);
}

/* The next k-subset of m in lexicographic order; false after the last. */
static bool next_subset(size_t *idx, size_t k, size_t m)
{
    size_t i = k;
    while (i > 0 && idx[i - 1] == m - k + i - 1)
        i--;
    if (i == 0)
        return false;
    idx[i - 1]++;
    for (size_t j = i; j < k; j++)
        idx[j] = idx[j - 1] + 1;
    return true;
}

#define EXACT_BATCH 1024

/* A bound on what a set can do (METHOD.md, "Placement"): the max of
 * independent partners is at least each of them, in mean and in every
 * quantile, so no set does better than its worst member alone.  Each
 * candidate's objective alone less the compute phase is its bound;
 * cut[i] says its fit has alpha <= 1, which puts every set holding it
 * after the sets without.  false: no bounds here (the paper's cut, whose
 * expectation is not monotone; messages or an extrapolated compute
 * phase, which depend on the whole set), or ENOMEM. */
struct bounds {
    double *lb;
    bool *cut;
};

static bool bounds_apply(const struct gt_advisor *a)
{
    return !a->o.cut_paper && !(a->o.bytes > 0) && !a->o.compute_extrap;
}

static int partner_bounds(struct gt_advisor *a, const char *root, const struct cand *c,
                          size_t m, struct bounds *b, struct gt_error *err)
{
    struct gt_placement *pl = calloc(m ? m : 1, sizeof *pl);
    struct gt_estimate *out = calloc(m ? m : 1, sizeof *out);
    int *rcs = calloc(m ? m : 1, sizeof *rcs);
    b->lb = malloc((m ? m : 1) * sizeof *b->lb);
    b->cut = malloc((m ? m : 1) * sizeof *b->cut);
    int rc = pl && out && rcs && b->lb && b->cut
                 ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < m; i++)
        pl[i] = (struct gt_placement){root, c[i].site, 1};
    if (rc == GT_OK)
        rc = gt_advisor_estimate_many(a, pl, m, out, rcs, err);
    for (size_t i = 0; i < m; i++) {
        bool ok = rc == GT_OK && rcs[i] == GT_OK;
        b->lb[i] = ok ? out[i].objective_ms - out[i].compute_ms : NAN;
        b->cut[i] = ok && isfinite(out[i].cut_x0);
        gt_estimate_clear(&out[i]);
    }
    free(pl);
    free(out);
    free(rcs);
    return rc;
}

/* Whether the set idx[0..k) cannot enter the keep best found so far:
 * its bound is clearly (beyond the integrals' tolerance) above the
 * worst kept one's, or it is cut-off and the worst kept one is not. */
static bool cannot_enter(const struct gt_place_result *r, size_t keep, const struct bounds *b,
                         const size_t *idx, size_t k)
{
    if (!b->lb || r->nbest < keep || !keep)
        return false;
    const struct gt_estimate *worst = &r->best[r->nbest - 1];
    if (isfinite(worst->cut_x0))
        return false;
    double bound = -INFINITY;
    for (size_t i = 0; i < k; i++) {
        double v = b->lb[idx[i]];
        if (isnan(v))
            return false;
        if (b->cut[idx[i]])
            return true;
        bound = fmax(bound, v);
    }
    /* clearly above, whatever the sign (a normal fit's mean may be < 0) */
    return bound + worst->compute_ms >
           worst->objective_ms + 1e-9 * fabs(worst->objective_ms);
}

/* Every k-subset of the candidates, lexicographically, estimated by
 * E[max] in batches on the advisor's threads, but for those whose bound
 * shows they cannot be among the best (counted as pruned). */
static int place_exact(struct gt_advisor *a, const char *root, struct cand *c, size_t m,
                       const struct gt_place_opts *po, struct gt_place_result *r,
                       struct gt_error *err)
{
    size_t k = po->size, idx[256] = {0};
    for (size_t i = 0; i < k; i++)
        idx[i] = i;
    struct gt_site_req *sites = calloc(EXACT_BATCH * k, sizeof *sites);
    struct gt_placement *pl = calloc(EXACT_BATCH, sizeof *pl);
    struct gt_estimate *out = calloc(EXACT_BATCH, sizeof *out);
    int *rcs = calloc(EXACT_BATCH, sizeof *rcs);
    struct bounds b = {NULL, NULL};
    int rc = sites && pl && out && rcs ? GT_OK
             : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    enum gt_adv_detail keep = a->o.detail;
    a->o.detail = GT_ADV_PARTNERS;
    if (rc == GT_OK && k > 1 && bounds_apply(a))
        rc = partner_bounds(a, root, c, m, &b, err);
    for (bool more = true, stop = false; rc == GT_OK && more && !stop;) {
        size_t n = 0;
        for (; more && n < EXACT_BATCH && !stop; more = next_subset(idx, k, m)) {
            if (cannot_enter(r, po->keep, &b, idx, k)) {
                /* a long run of pruned sets still hears Ctrl-C and shows progress */
                if (fmod(++r->pruned, 65536) == 0) {
                    stop = should_stop(a);
                    if (po->progress)
                        po->progress(po->progress_ctx, r->evaluated + r->pruned, r->sets);
                }
                continue;
            }
            for (size_t i = 0; i < k; i++)
                sites[n * k + i] = *c[idx[i]].site;
            pl[n] = (struct gt_placement){root, &sites[n * k], k};
            n++;
        }
        rc = gt_advisor_estimate_many(a, pl, n, out, rcs, err);
        for (size_t j = 0; j < n; j++) {
            r->evaluated += rcs[j] != -1;
            if (rc == GT_OK && rcs[j] == GT_OK)
                keep_best(r, po->keep, &out[j]);
            else
                gt_estimate_clear(&out[j]);
        }
        if (po->progress)
            po->progress(po->progress_ctx, r->evaluated + r->pruned, r->sets);
        stop = stop || should_stop(a);
    }
    a->o.detail = keep;
    free(sites);
    free(pl);
    free(out);
    free(rcs);
    free(b.lb);
    free(b.cut);
    return rc;
}

/* Greedy start (the k best-scored partners), then swaps: the partner most
 * often the slowest is replaced by the first of the SWAP_TRIES best-scored
 * unused candidates that lowers the iteration time, until no swap helps. */
#define SWAP_TRIES 16
#define SWAP_ROOTS 4
static int place_greedy(struct gt_advisor *a, const char *root, struct cand *c, size_t m,
                        const struct gt_place_opts *po, struct gt_place_result *r,
                        struct gt_site_req *buf, bool search, struct gt_estimate *best,
                        struct gt_error *err)
{
    size_t k = po->size, idx[256] = {0};
    bool used[4096] = {false};
    for (size_t i = 0; i < k; i++)
        idx[i] = i, used[i] = true;
    int rc = estimate_set(a, root, c, idx, k, buf, GT_ADV_FULL, best, err);
    r->evaluated++;
    for (int round = 0; rc == GT_OK && search && round < (int)(4 * k) && !should_stop(a);
         round++) {
        size_t worst = 0;
        for (size_t i = 1; i < best->n; i++)
            if (best->partners[i].p_slowest > best->partners[worst].p_slowest)
                worst = i;
        bool improved = false;
        size_t tried = 0;
        for (size_t j = 0; rc == GT_OK && j < m && !improved && tried < SWAP_TRIES &&
                           !should_stop(a); j++) {
            if (used[j])
                continue;
            tried++;
            size_t old = idx[worst];
            idx[worst] = j;
            struct gt_estimate e;
            rc = estimate_set(a, root, c, idx, k, buf, GT_ADV_PARTNERS, &e, err);
            r->evaluated++;
            if (rc == GT_OK && better(&e, best)) {
                used[old] = false;
                used[j] = true;
                gt_estimate_clear(best);
                gt_estimate_clear(&e);
                /* the next round needs who is most often the slowest */
                rc = estimate_set(a, root, c, idx, k, buf, GT_ADV_FULL, best, err);
                improved = true;
            } else {
                idx[worst] = old;
                gt_estimate_clear(&e);
            }
        }
        if (!improved)
            break;
    }
    return rc;
}

/* Re-estimate e (made at a lower detail) in full from its partner list. */
static int fill_in(struct gt_advisor *a, struct gt_estimate *e, struct gt_error *err)
{
    if (e->detail == GT_ADV_FULL || !e->partners || e->n == 0)
        return GT_OK;
    struct gt_site_req *sites = calloc(e->n, sizeof *sites);
    if (!sites)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < e->n; i++)
        sites[i] = (struct gt_site_req){e->partners[i].site, e->partners[i].procs};
    enum gt_adv_detail keep = a->o.detail;
    a->o.detail = GT_ADV_FULL;
    struct gt_estimate full;
    int rc = gt_advisor_estimate(a, e->root, sites, e->n, &full, err);
    a->o.detail = keep;
    free(sites);
    if (rc) {
        gt_estimate_clear(&full);
        return rc;
    }
    gt_estimate_clear(e);
    *e = full;
    return GT_OK;
}

/* Every root's greedy start (its K best-scored partners), estimated
 * together: they are independent, so they go to gt_advisor_estimate_many. */
static int greedy_starts(struct gt_advisor *a, const struct gt_site_req *pool, size_t nroots,
                         const struct gt_place_opts *po, struct cand **cands,
                         const size_t *ncand, struct gt_place_result *r,
                         struct gt_estimate *start, struct gt_error *err)
{
    size_t k = po->size, n = 0;
    struct gt_placement *pl = calloc(nroots, sizeof *pl);
    struct gt_site_req *sites = calloc(nroots * k, sizeof *sites);
    size_t *root_of = calloc(nroots, sizeof *root_of);
    struct gt_estimate *out = calloc(nroots, sizeof *out);
    int *rcs = calloc(nroots, sizeof *rcs);
    int rc = pl && sites && root_of && out && rcs ? GT_OK
             : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < nroots; i++) {
        if (ncand[i] < k)
            continue;
        for (size_t j = 0; j < k; j++)
            sites[n * k + j] = *cands[i][j].site;
        pl[n] = (struct gt_placement){po->root ? po->root : pool[i].name, &sites[n * k], k};
        root_of[n++] = i;
    }
    enum gt_adv_detail detail = a->o.detail;
    a->o.detail = GT_ADV_EMAX_ONLY;   /* E[max] alone picks the roots to search from */
    if (rc == GT_OK)
        rc = gt_advisor_estimate_many(a, pl, n, out, rcs, err);
    a->o.detail = detail;
    for (size_t j = 0; j < n; j++) {
        r->evaluated += rcs[j] != -1;
        if (rcs[j] == GT_OK)
            start[root_of[j]] = out[j];
        else
            gt_estimate_clear(&out[j]);
    }
    free(pl);
    free(sites);
    free(root_of);
    free(out);
    free(rcs);
    return rc;
}

int gt_advisor_place(struct gt_advisor *a, const struct gt_site_req *pool, size_t npool,
                     const struct gt_place_opts *po, struct gt_place_result *r,
                     struct gt_error *err)
{
    memset(r, 0, sizeof *r);
    if (po->size < 1 || po->size > 256 || npool > 4096)
        return gt_error_set(err, GT_EUSAGE, NULL, "--size must be 1..256, the pool at most "
                            "4096 sites");
    int rc0 = gt_sites_check_unique(pool, npool, "pool", err);
    if (rc0)
        return rc0;
    if (po->root && strchr(po->root, ':'))
        return gt_error_set(err, GT_EUSAGE, "root", "'%s': the root is one process and "
                            "takes no :PROCS", po->root);
    size_t nroots = po->root ? 1 : npool;
    struct cand **cands = calloc(nroots, sizeof *cands);
    size_t *ncand = calloc(nroots, sizeof *ncand);
    struct gt_site_req *buf = calloc(po->size, sizeof *buf);
    r->best = calloc(po->keep ? po->keep : 1, sizeof *r->best);
    int rc = cands && ncand && buf && r->best ? GT_OK
             : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    double sets = 0;
    for (size_t i = 0; rc == GT_OK && i < nroots; i++) {
        const char *root = po->root ? po->root : pool[i].name;
        if (!(cands[i] = calloc(npool ? npool : 1, sizeof **cands)))
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        else
            rc = candidates(a, root, pool, npool, po->size, cands[i], &ncand[i], r, err);
        sets += choose((double)ncand[i], (double)po->size);
    }
    r->search = sets <= po->exact_limit ? "exact" : "greedy+swap";
    r->sets = sets;
    /* exact: every set; heuristic: a greedy start for every root, then
       swap search from the SWAP_ROOTS most promising roots */
    struct gt_estimate *start = calloc(nroots, sizeof *start);
    if (rc == GT_OK && !start)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && sets <= po->exact_limit && i < nroots; i++)
        if (ncand[i] >= po->size)
            rc = place_exact(a, po->root ? po->root : pool[i].name, cands[i], ncand[i], po,
                             r, err);
    if (rc == GT_OK && start && sets > po->exact_limit)
        rc = greedy_starts(a, pool, nroots, po, cands, ncand, r, start, err);
    for (int pick = 0; rc == GT_OK && sets > po->exact_limit && pick < SWAP_ROOTS &&
                       !should_stop(a); pick++) {
        size_t bi = nroots;
        for (size_t i = 0; i < nroots; i++)
            if (start[i].ok && (bi == nroots || gt_estimate_cmp(&start[i], &start[bi]) < 0))
                bi = i;
        if (bi == nroots)
            break;
        struct gt_estimate e;
        gt_estimate_clear(&start[bi]);
        rc = place_greedy(a, po->root ? po->root : pool[bi].name, cands[bi], ncand[bi], po,
                          r, buf, true, &e, err);
        if (rc == GT_OK)
            keep_best(r, po->keep, &e);
        else
            gt_estimate_clear(&e);
    }
    for (size_t i = 0; i < nroots; i++) {
        if (start)
            gt_estimate_clear(&start[i]);
        if (cands)
            free(cands[i]);
    }
    free(start);
    free(cands);
    free(ncand);
    free(buf);
    for (size_t i = 0; rc == GT_OK && i < r->nbest; i++)
        rc = fill_in(a, &r->best[i], err);
    if (rc == GT_OK && r->nbest == 0)
        rc = gt_error_set(err, GT_ENOTFOUND, NULL, "no root has %zu partner sites with data",
                          po->size);
    return rc;
}
