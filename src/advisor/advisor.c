/*
 * advisor.c - one estimate of a placement (see advisor.h): each
 * partner's pair fit, from the store's fit cache or fitted, into the
 * distribution its model says (auto's verdicts, the window's samples,
 * the loss, the intra-site latency, the message), then E[max] and the
 * quantiles of the collective time, calibrated by the root's factors,
 * and the job's time.  The model and the factors a root's placements
 * take come from its tracked forecasts (tracked.c).  Many estimates
 * share the work on the advisor's threads (parallel.h), pair fits and
 * the roots' tracked state under one lock.
 */
#define _POSIX_C_SOURCE 200809L
#include "advisor.h"
#include "advisor_internal.h"
#include "parallel.h"
#include "tracked.h"
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
struct advisor_worker {
    struct gt_emax_ws *ws;
    struct gt_partner_group *groups;
    double *p_slowest;
    double *loss_cost;        /* per partner: E[max] less E[max] with it loss-free */
    double *wire_ms;          /* --bytes over site links: per partner */
    size_t cap;
};

static struct advisor_worker *worker_new(void)
{
    struct advisor_worker *w = calloc(1, sizeof *w);
    if (w && !(w->ws = gt_emax_ws_new())) {
        free(w);
        return NULL;
    }
    return w;
}

static void worker_free(struct advisor_worker *w)
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
static int reserve(struct advisor_worker *w, size_t n)
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
    tracked_free(a);
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

/* gt_pairfits_save_also's: the calibrations this advisor replayed. */
static int save_calibrations(void *ctx, struct gt_db *db, struct gt_error *err)
{
    return tracked_save_calibrations(ctx, db, err);
}

int gt_advisor_save_fits(struct gt_advisor *a, size_t *saved, struct gt_error *err)
{
    bool stale;
    return gt_pairfits_save_also(a->fits, false, true,
                                 tracked_unsaved_calibrations(a) ? save_calibrations : NULL, a,
                                 saved, &stale, err);
}

void gt_advisor_calibrations(const struct gt_advisor *a, size_t *kept, size_t *resumed,
                             size_t *replayed)
{
    tracked_calibrations(a, kept, resumed, replayed);
}

int gt_advisor_save_calibrations(struct gt_advisor *a, struct gt_error *err)
{
    bool stale;
    size_t saved;
    if (!tracked_unsaved_calibrations(a))
        return GT_OK;
    return gt_pairfits_save_also(a->fits, false, false, save_calibrations, a, &saved, &stale,
                                 err);
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

/* The window's loss rate: lost rows over all rows. */
static double pair_loss(const struct gt_pairfit *f)
{
    return f->samples ? (double)(f->samples - f->valid) / (double)f->samples : 0;
}

/* Whether max_loss leaves the pair out (not with loss ignore); why into
 * buf, in words for every front end: the setting by its name in the
 * config and in a request (max_loss), not by a command-line flag. */
bool advisor_too_lossy(const struct gt_advisor *a, const struct gt_pairfit *f,
                       const char *root, const char *site, char *why, size_t size)
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

int advisor_partner_dist(struct gt_advisor *a, enum gt_adv_model m, const struct gt_pairfit *f,
                         const char *src, const char *dst, struct gt_dist *d,
                         struct gt_error *err)
{
    enum auto_use use;
    char why[300];
    return partner_dist(a, m, f, src, dst, d, &use, why, sizeof why, err);
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
int advisor_pair_fit(struct gt_advisor *a, const char *root, const char *site,
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
    int rc = advisor_pair_fit(a, root, site, &f, &reversed, err);
    *takes = rc == GT_OK && f->found && !advisor_too_lossy(a, f, root, site, why, sizeof why);
    return rc;
}

static int add_partner(struct gt_advisor *a, struct gt_estimate *e, const char *root,
                       const struct gt_site_req *s, size_t senders, double wire_ms,
                       struct gt_partner_group *g, int64_t *oldest, struct gt_error *err)
{
    const struct gt_pairfit *f;
    bool reversed;
    int rc = advisor_pair_fit(a, root, s->name, &f, &reversed, err);
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
    if (f->found && advisor_too_lossy(a, f, root, s->name, why, sizeof why)) {
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
static int prepare(struct gt_advisor *a, struct advisor_worker *w, const struct gt_placement *pl,
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
        rc = tracked_root_model(a, pl, &e->model, &adapt, (full && e->nq) || a->o.objective_q > 0
                                                      ? &cal : NULL, err);
    if (rc == GT_OK && forced >= 0)
        e->model = (enum gt_adv_model)forced;
    if (cal && cal->stopped && a->o.detail == GT_ADV_FULL)
        warn(e, "the model's quantiles, not calibrated: %s stopped the calibration",
             a->stopped ? a->stopped : "the request's budget");
    if (cal && !cal->stopped) {
        e->calibrated = true;
        e->cal = *cal;
        e->cal.state = NULL;   /* the root's to keep and free, not the estimate's */
    }
    if (rc == GT_OK && cal && e->nq && !(e->q_model = calloc(e->nq, sizeof *e->q_model)))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (adapt) {
        e->adaptive = true;
        e->adapt = *adapt;
        if (adapt->stopped && a->o.detail == GT_ADV_FULL)
            warn(e, "%s: answered with auto, not %s: %s stopped its replay", pl->root,
                 a->o.model == GT_ADV_COMBINED ? "combined" : "adaptive",
                 a->stopped ? a->stopped : "the request's budget");
        else if (adapt->chosen < 0 && a->o.detail == GT_ADV_FULL)
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
size_t advisor_levels(const struct gt_advisor *a, const struct gt_estimate *e, double *qs)
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
int advisor_compute_model(const struct gt_advisor *a, struct advisor_worker *w,
                          struct gt_estimate *e, double *qv, struct gt_error *err)
{
    bool full = a->o.detail == GT_ADV_FULL;
    double qs[GT_ADV_MAX_Q + 1];
    size_t nq = advisor_levels(a, e, qs);
    struct gt_emax_opts eo = {e->cut_x0, a->o.cut_paper, qs, nq, full, false, w->ws, 0, NULL,
                              full && e->partners, false};
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
void advisor_finish(const struct gt_advisor *a, struct gt_estimate *e, double *qv,
                    int64_t oldest)
{
    bool full = a->o.detail == GT_ADV_FULL;
    double qs[GT_ADV_MAX_Q + 1];
    size_t nq = advisor_levels(a, e, qs);
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
static int compute(const struct gt_advisor *a, struct advisor_worker *w, struct gt_estimate *e,
                   int64_t oldest, struct gt_error *err)
{
    double qv[GT_ADV_MAX_Q + 1];
    int rc = advisor_compute_model(a, w, e, qv, err);
    if (rc == GT_OK)
        advisor_finish(a, e, qv, oldest);
    return rc;
}

/* prepare under lock (NULL: none). */
int advisor_prepare(struct gt_advisor *a, struct advisor_worker *w,
                    const struct gt_placement *pl, int forced, struct gt_estimate *e,
                    int64_t *oldest, mtx_t *lock, struct gt_error *err)
{
    if (lock)
        mtx_lock(lock);
    int rc = prepare(a, w, pl, forced, e, oldest, err);
    if (lock)
        mtx_unlock(lock);
    return rc;
}

/* One estimate of pl on w's scratch: with combined, the root's weights
 * mix its candidates' (tracked.c), else the root's model alone. */
static int estimate_with(struct gt_advisor *a, struct advisor_worker *w,
                         const struct gt_placement *pl, struct gt_estimate *e, mtx_t *lock,
                         struct gt_error *err)
{
    int64_t oldest;
    struct gt_adapt comb;
    bool combines = false;
    memset(e, 0, sizeof *e);
    int rc = a->o.model == GT_ADV_COMBINED ? tracked_weights(a, pl, &comb, &combines, lock, err)
                                           : GT_OK;
    if (rc == GT_OK && combines)
        rc = tracked_estimate_combined(a, w, pl, &comb, e, lock, err);
    else if (rc == GT_OK && (rc = advisor_prepare(a, w, pl, -1, e, &oldest, lock, err)) == GT_OK)
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
static void run_worker(struct pool *p, struct advisor_worker *w)
{
    for (;;) {
        if (should_stop(p->a))
            return;
        mtx_lock(&p->lock);
        size_t i = p->next++;
        bool stop = i >= p->n || p->fatal;
        mtx_unlock(&p->lock);
        if (stop)
            return;
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

/* Member i of the team of gt_advisor_estimate_many: the caller (0) on
 * the advisor's own scratch, the others each on scratch of its own (none
 * to be had: its share is the others'). */
static void pool_member(void *ctx, int i)
{
    struct pool *p = ctx;
    if (i == 0) {
        run_worker(p, p->a->main_worker);
        return;
    }
    struct advisor_worker *w = worker_new();
    if (!w)
        return;
    run_worker(p, w);
    worker_free(w);
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
    int rc0 = tracked_scopes(a, pl, n, err);
    if (rc0)
        return rc0;
    if (mtx_init(&p.lock, mtx_plain) != thrd_success)
        return gt_error_set(err, GT_ENOMEM, NULL, "cannot create a lock");
    int nt = thread_count(a, n);
    gt_par_team_run(nt < GT_ADV_MAX_THREADS ? nt : GT_ADV_MAX_THREADS, pool_member, &p);
    mtx_destroy(&p.lock);
    if (p.fatal && err)
        *err = p.fatal_err;
    return p.fatal;
}

int gt_estimate_cmp(const struct gt_estimate *x, const struct gt_estimate *y)
{
    bool cx = isfinite(x->cut_x0), cy = isfinite(y->cut_x0);
    if (cx != cy)
        return cx ? 1 : -1;
    return (x->objective_ms > y->objective_ms) - (x->objective_ms < y->objective_ms);
}
