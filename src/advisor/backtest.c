/*
 * backtest.c - the replay: roots shared out over threads (a team of
 * parallel.h, each member on a connection of its own), each root's
 * partners aligned on slots, sliding fits per window, one E[max] per
 * (moment, window, method), scores per lead time; the roots' scores
 * merged in root order, so that the output does not depend on the
 * threads.
 *
 * Work per root and window is one pass over the slots: each partner's
 * slider (estimators/sliding.h) takes one sample per slot in O(1), and
 * only at moments are fits turned into forecasts.  Predictions wait in a
 * queue per lead time until their outcome has been observed (slot t' +
 * tau <= t - 1) before they count for adaptive, so it never looks ahead.
 */
#define _DEFAULT_SOURCE
#include "backtest.h"
#include "parallel.h"
#include "base/interrupt.h"
#include "base/util.h"
#include "db/db.h"
#include "db/query.h"
#include "estimators/changepoint.h"
#include "estimators/conformal.h"
#include "estimators/emax.h"
#include "estimators/fit.h"
#include "estimators/sliding.h"
#include "estimators/tracker.h"

#include <assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

const double gt_bt_quantiles[GT_BT_NQ] = {0.5, 0.9, 0.99};

static const char *const method_names[GT_BT_NMETHODS] = {
    "pareto", "normal", "last", "chi2", "empirical", "regime", "auto", "adaptive", "combined"
};

const char *gt_bt_method_name(int method)
{
    return method >= 0 && method < GT_BT_NMETHODS ? method_names[method] : "?";
}

int gt_bt_method_find(const char *name)
{
    for (int i = 0; i < GT_BT_NMETHODS; i++)
        if (!strcmp(name, method_names[i]))
            return i;
    return -1;
}

/* ---------------------------------------------------------------- results */

struct cell {
    double n, ncal;
    struct gt_ksum e, ae, se;
    double below[GT_BT_NQ], covered[GT_BT_NQ];   /* raw and calibrated quantiles */
    double ready;           /* calibrations resting on enough outcomes */
    struct gt_errdist *abs;
};

struct gt_bt_result {
    struct gt_bt_opts o;
    int64_t interval;
    size_t roots, pairs, dropped;
    double evaluations, unanswered, shifts;
    double moments[GT_BT_MAX_WINDOWS], alpha_le1[GT_BT_MAX_WINDOWS];
    double auto_fits[GT_BT_MAX_WINDOWS], fallbacks[GT_BT_MAX_WINDOWS];   /* auto */
    double switched[GT_BT_MAX_WINDOWS];
    struct cell *cells;     /* [window][tau][method][regime] */
    double *chosen;         /* [window][tau][method] */
};

static size_t ncells(const struct gt_bt_opts *o)
{
    return o->nwindows * o->ntaus * GT_BT_NMETHODS * GT_BT_NREGIMES;
}

static struct cell *cell_at(const struct gt_bt_result *r, size_t wi, size_t ti, int method,
                            int regime)
{
    return &r->cells[((wi * r->o.ntaus + ti) * GT_BT_NMETHODS + (size_t)method) *
                         GT_BT_NREGIMES + (size_t)regime];
}

static double *chosen_at(const struct gt_bt_result *r, size_t wi, size_t ti, int method)
{
    return &r->chosen[(wi * r->o.ntaus + ti) * GT_BT_NMETHODS + (size_t)method];
}

static struct gt_bt_result *result_new(const struct gt_bt_opts *o)
{
    struct gt_bt_result *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->o = *o;
    r->cells = calloc(ncells(o), sizeof *r->cells);
    r->chosen = calloc(o->nwindows * o->ntaus * GT_BT_NMETHODS, sizeof *r->chosen);
    if (!r->cells || !r->chosen) {
        gt_bt_result_free(r);
        return NULL;
    }
    return r;
}

void gt_bt_result_free(struct gt_bt_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->cells && i < ncells(&r->o); i++)
        gt_errdist_free(r->cells[i].abs);
    free(r->cells);
    free(r->chosen);
    free(r);
}

/* false on ENOMEM; q and qc: the raw and calibrated quantiles, or NULL */
static bool cell_add(struct cell *c, double pred, double actual, const double *q,
                     const double *qc, bool ready)
{
    double e = pred - actual;
    if (!c->abs && !(c->abs = gt_errdist_new()))
        return false;
    if (!gt_errdist_add(c->abs, e))
        return false;
    c->n++;
    gt_ksum_add(&c->e, e);
    gt_ksum_add(&c->ae, fabs(e));
    gt_ksum_add(&c->se, e * e);
    if (q) {
        c->ncal++;
        c->ready += ready;
        for (int k = 0; k < GT_BT_NQ; k++) {
            c->below[k] += actual <= q[k];
            c->covered[k] += actual <= qc[k];
        }
    }
    return true;
}

static bool cell_merge(struct cell *c, const struct cell *from)
{
    if (from->abs) {
        if (!c->abs && !(c->abs = gt_errdist_new()))
            return false;
        if (!gt_errdist_merge(c->abs, from->abs))
            return false;
    }
    c->n += from->n;
    c->ncal += from->ncal;
    gt_ksum_add(&c->e, gt_ksum_get(&from->e));
    gt_ksum_add(&c->ae, gt_ksum_get(&from->ae));
    gt_ksum_add(&c->se, gt_ksum_get(&from->se));
    c->ready += from->ready;
    for (int k = 0; k < GT_BT_NQ; k++) {
        c->below[k] += from->below[k];
        c->covered[k] += from->covered[k];
    }
    return true;
}

static bool result_merge(struct gt_bt_result *r, const struct gt_bt_result *from)
{
    r->roots += from->roots;
    r->pairs += from->pairs;
    r->dropped += from->dropped;
    r->evaluations += from->evaluations;
    r->unanswered += from->unanswered;
    r->shifts += from->shifts;
    for (size_t w = 0; w < r->o.nwindows; w++) {
        r->moments[w] += from->moments[w];
        r->alpha_le1[w] += from->alpha_le1[w];
        r->auto_fits[w] += from->auto_fits[w];
        r->fallbacks[w] += from->fallbacks[w];
        r->switched[w] += from->switched[w];
    }
    for (size_t i = 0; i < r->o.nwindows * r->o.ntaus * GT_BT_NMETHODS; i++)
        r->chosen[i] += from->chosen[i];
    for (size_t i = 0; i < ncells(&r->o); i++)
        if (!cell_merge(&r->cells[i], &from->cells[i]))
            return false;
    return true;
}

void gt_bt_summary(const struct gt_bt_result *r, struct gt_bt_summary *s)
{
    *s = (struct gt_bt_summary){r->interval, r->roots, r->pairs, r->dropped, r->evaluations,
                                r->unanswered, r->shifts};
}

void gt_bt_moments(const struct gt_bt_result *r, size_t wi, double *moments, double *alpha_le1)
{
    *moments = wi < r->o.nwindows ? r->moments[wi] : 0;
    *alpha_le1 = wi < r->o.nwindows ? r->alpha_le1[wi] : 0;
}

void gt_bt_fallbacks(const struct gt_bt_result *r, size_t wi, double *partners,
                     double *switched, double *fell_back)
{
    bool in = wi < r->o.nwindows;
    *partners = in ? r->auto_fits[wi] : 0;
    *switched = in ? r->switched[wi] : 0;
    *fell_back = in ? r->fallbacks[wi] : 0;
}

double gt_bt_chosen(const struct gt_bt_result *r, size_t wi, size_t ti, int method)
{
    return *chosen_at(r, wi, ti, method);
}

/* The cell of one regime, or both merged into tmp. */
static const struct cell *stats_cell(const struct gt_bt_result *r, size_t wi, size_t ti,
                                     int method, int regime, struct cell *tmp, bool *ok)
{
    *ok = true;
    if (regime != GT_BT_ALL)
        return cell_at(r, wi, ti, method, regime);
    memset(tmp, 0, sizeof *tmp);
    for (int g = 0; g < GT_BT_NREGIMES; g++)
        *ok = *ok && cell_merge(tmp, cell_at(r, wi, ti, method, g));
    return tmp;
}

int gt_bt_stats(const struct gt_bt_result *r, size_t wi, size_t ti, int method, int regime,
                struct gt_bt_stats *s, struct gt_error *err)
{
    struct cell tmp, tmpn;
    bool ok, okn = true;
    const struct cell *c = stats_cell(r, wi, ti, method, regime, &tmp, &ok);
    const struct cell *cn = NULL;
    bool have_normal = (r->o.methods & (1u << GT_BT_NORMAL)) && method != GT_BT_NORMAL;
    if (have_normal)
        cn = stats_cell(r, wi, ti, GT_BT_NORMAL, regime, &tmpn, &okn);
    *s = (struct gt_bt_stats){.n = c->n, .improvement = NAN, .mwu = {NAN, NAN, NAN},
                              .worst1 = NAN};
    s->rmse = c->n ? sqrt(fmax(gt_ksum_get(&c->se), 0) / c->n) : NAN;
    s->mae = c->n ? gt_ksum_get(&c->ae) / c->n : NAN;
    s->bias = c->n ? gt_ksum_get(&c->e) / c->n : NAN;
    for (int k = 0; k < GT_BT_NQ; k++) {
        s->below[k] = c->ncal ? c->below[k] / c->ncal : NAN;
        s->covered[k] = c->ncal ? c->covered[k] / c->ncal : NAN;
    }
    s->ready = c->ncal ? c->ready / c->ncal : NAN;
    s->ncal = c->ncal;
    if (ok && c->abs)
        s->worst1 = gt_errdist_top_share(c->abs, 0.01);
    if (method == GT_BT_NORMAL)
        s->improvement = c->n ? 0 : NAN;
    if (cn && cn->n && c->n) {
        double rn = sqrt(fmax(gt_ksum_get(&cn->se), 0) / cn->n);
        s->improvement = rn > 0 ? (rn - s->rmse) / rn : NAN;
        if (ok && okn && c->abs && cn->abs && !gt_errdist_mwu(c->abs, cn->abs, &s->mwu))
            ok = false;
    }
    if (regime == GT_BT_ALL) {
        gt_errdist_free(tmp.abs);
        if (cn)
            gt_errdist_free(tmpn.abs);
    }
    return ok && okn ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
}

/* ---------------------------------------------------------------- one root */

/* A partner's aligned series: slot values filled forward (NAN before
 * the first valid sample). */
struct series {
    char *name;
    double *f;
    int64_t first_valid;    /* slot */
};

/* A prediction whose outcome is not yet observed: the fixed methods'
 * errors (for adaptive and combined, in w->base order) and every
 * method's raw and issued quantiles (for the calibrators, by method). */
struct pending {
    int64_t due;            /* the outcome's slot */
    double actual;
    double e[GT_BT_NMETHODS];
    double q[GT_BT_NMETHODS][GT_BT_NQ], qc[GT_BT_NMETHODS][GT_BT_NQ];
};

/* A queue per lead time of predictions waiting for their outcome. */
struct queue {
    struct pending *q;
    size_t cap, head, n;
};

struct worker {
    const struct gt_bt_opts *o;
    struct gt_db *db;
    struct gt_bt_result *r;
    struct gt_emax_ws *ws;
    /* per method, the last partition of its E[max] integral: the next
       moment's starts from it (reset per window, so a root's answers do
       not depend on which root the thread replayed before) */
    struct gt_emax_warm warm[GT_BT_NMETHODS];
    struct gt_error err;
    int rc;
    /* per root */
    const char *root;
    struct series *s;
    size_t ns;
    int64_t s0, nslots;     /* slots s0 .. s0 + nslots - 1 */
    double *y;              /* actual max per slot */
    /* per moment */
    struct gt_slider **sl;
    /* regime: per partner a shift detector, and a slider restarted at
       each detected shift (its window never reaches back past one) */
    struct gt_cpd **cpd;
    struct gt_slider **rsl;
    struct gt_slider_params *par;
    size_t *nwin;           /* regime: each partner's window in samples */
    struct gt_partner_group *g;
    double *win, *emp;      /* a window; every partner's sorted window */
    double *lwin;           /* the window's logs (both fit indices) */
    struct gt_quantile_ranks ranks;   /* auto: of the window's bounds, */
    size_t ranks_m;                   /* for windows of this size */
    int base[GT_BT_NMETHODS];   /* the fixed methods asked for, in order */
    int nbase;
    size_t wi;              /* the window index of the pass */
    struct gt_tracker *trk[GT_BT_MAX_TAUS];   /* adaptive's errors, */
    struct gt_tracker *ctrk[GT_BT_MAX_TAUS];  /* combined's (its own horizon) */
    struct gt_conf *conf[GT_BT_MAX_TAUS][GT_BT_NMETHODS][GT_BT_NQ];
    struct queue qs[GT_BT_MAX_TAUS];
    struct shared *sh;
    bool first;             /* draws the progress line */
    bool lent;              /* db is the caller's (gt_backtest_run_on) */
};

static bool wants(const struct gt_bt_opts *o, int method)
{
    return o->methods & (1u << method);
}

/* Whether the methods' errors are tracked: for adaptive or combined. */
static bool tracked(const struct gt_bt_opts *o)
{
    return wants(o, GT_BT_ADAPTIVE) || wants(o, GT_BT_COMBINED);
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return q - ((a % b != 0) && ((a < 0) != (b < 0)));
}

static int64_t slot_of(int64_t ts, int64_t interval)
{
    return floor_div(ts + interval / 2, interval);
}

/* slot * interval, held inside (INT64_MIN, INT64_MAX): an anchor ages
 * beyond int64 away (a probe with a broken clock) makes a range that
 * holds no sample, not an overflow; the limits themselves mean "no
 * bound" to the replay, so they are not reached either */
static int64_t time_of_slot(int64_t slot, int64_t interval)
{
    if (slot >= (INT64_MAX - 1) / interval)
        return INT64_MAX - 1;
    if (slot <= (INT64_MIN + 1) / interval)
        return INT64_MIN + 1;
    return slot * interval;
}

static void free_series(struct worker *w)
{
    for (size_t i = 0; w->s && i < w->ns; i++) {
        free(w->s[i].name);
        free(w->s[i].f);
    }
    free(w->s);
    free(w->y);
    w->s = NULL, w->y = NULL, w->ns = 0;
}

struct raw {
    int64_t *ts;
    double *rtt;
    size_t n;
};

/* Whether a pair loses too much over its own period (drop_loss), or has
 * no valid sample. */
static bool pair_dropped(const struct gt_bt_opts *o, const struct raw *p, int64_t interval)
{
    size_t valid = 0;
    for (size_t i = 0; i < p->n; i++)
        valid += !isnan(p->rtt[i]);
    if (!valid)
        return true;
    int64_t span = slot_of(p->ts[p->n - 1], interval) - slot_of(p->ts[0], interval) + 1;
    double loss = 1 - (double)valid / (double)(span > (int64_t)valid ? span : (int64_t)valid);
    return o->drop_loss <= 1 && loss >= o->drop_loss;
}

/* Fill s->f over the root's slots from the raw series. */
static void align(struct worker *w, struct series *s, const struct raw *p)
{
    int64_t iv = w->r->interval;
    for (int64_t k = 0; k < w->nslots; k++)
        s->f[k] = NAN;
    /* several samples in one slot: a valid one wins, the later of two */
    for (size_t i = 0; i < p->n; i++) {
        int64_t k = slot_of(p->ts[i], iv) - w->s0;
        if (k >= 0 && k < w->nslots && (!isnan(p->rtt[i]) || isnan(s->f[k])))
            s->f[k] = p->rtt[i];
    }
    /* the last valid sample at or before the first slot */
    double prior = NAN;
    for (size_t i = 0; i < p->n && slot_of(p->ts[i], iv) < w->s0; i++)
        if (!isnan(p->rtt[i]))
            prior = p->rtt[i];
    s->first_valid = INT64_MAX;
    for (int64_t k = 0; k < w->nslots; k++) {
        if (isnan(s->f[k]))
            s->f[k] = prior;
        else
            prior = s->f[k];
        if (!isnan(s->f[k]) && s->first_valid == INT64_MAX)
            s->first_valid = w->s0 + k;
    }
}

/* What the threads share.  The roots' results are merged in root order
 * (see "root order" below): under `order`, the next root to take, the
 * roots merged so far into total, and the results of roots done before
 * their turn, root ri's at held[ri % cap]. */
struct shared {
    const struct gt_bt_opts *o;
    char **roots;
    size_t nroots;
    char ***partners;       /* per root, NULL-terminated */
    atomic_size_t done;
    mtx_t lock;             /* the moment callback */
    int64_t max_window, max_tau;
    int64_t history;        /* slots read before the first moment, less one */
    mtx_t order;
    cnd_t room;             /* a root merged, or the replay stopped */
    size_t next, merged, cap;
    struct gt_bt_result **held;
    struct gt_bt_result *total;
    bool stop;              /* a thread failed: no more roots */
};

/* A pair's samples: all of them, or, when --from and --to bound the
 * moments, those their windows and outcomes need, read back from the end
 * in growing pieces until one reaches past the first needed slot (the
 * advisor replays minutes of a store that may hold a year).  The last
 * valid sample before a piece that starts lost is put in front of it, for
 * the alignment's fill. */
static int read_pair(struct worker *w, const char *root, const char *dst, struct raw *p,
                     struct gt_error *err)
{
    const struct gt_bt_opts *o = w->o;
    int64_t iv = w->r->interval;
    struct gt_prior prior;
    int64_t until = o->until ? o->until : INT64_MAX;
    if (o->from == INT64_MIN || o->to == INT64_MAX)
        return gt_query_series(w->db, root, dst, until, 0, &p->ts, &p->rtt, &p->n, &prior, err);
    int64_t first = time_of_slot(floor_div(o->from, iv) - w->sh->history - 1, iv);
    int64_t last = time_of_slot(floor_div(o->to, iv) + w->sh->max_tau + 2, iv);
    last = last < until ? last : until;
    size_t limit = (last > first ? (size_t)(((uint64_t)last - (uint64_t)first) / (uint64_t)iv) : 0) + 64;
    for (;;) {
        int rc = gt_query_series(w->db, root, dst, last, limit, &p->ts, &p->rtt, &p->n, &prior,
                                 err);
        if (rc || p->n < limit || p->ts[0] < first)
            break;
        free(p->ts), free(p->rtt);
        p->ts = NULL, p->rtt = NULL;
        if (limit > GT_BT_MAX_SLOTS)
            return gt_error_set(err, GT_ETOOBIG, NULL, "%s -> %s: more than %d samples in the "
                                "replayed period", root, dst, GT_BT_MAX_SLOTS);
        limit *= 4;
    }
    if (!prior.found || !p->n)
        return GT_OK;
    int64_t *ts = realloc(p->ts, (p->n + 1) * sizeof *ts);
    double *rtt = ts ? realloc(p->rtt, (p->n + 1) * sizeof *rtt) : NULL;
    if (ts)
        p->ts = ts;
    if (!rtt)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    p->rtt = rtt;
    memmove(ts + 1, ts, p->n * sizeof *ts);
    memmove(rtt + 1, rtt, p->n * sizeof *rtt);
    ts[0] = prior.ts, rtt[0] = prior.rtt;
    p->n++;
    return GT_OK;
}

static int read_root(struct worker *w, size_t ri, struct gt_error *err)
{
    const struct gt_bt_opts *o = w->o;
    struct shared *sh = w->sh;
    char **names = sh->partners[ri];
    size_t n = 0;
    while (names[n])
        n++;
    struct raw *raw = calloc(n ? n : 1, sizeof *raw);
    w->s = calloc(n ? n : 1, sizeof *w->s);
    if (!raw || !w->s) {
        free(raw);
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    /* a snapshot of its own, unless the connection lent is in one */
    bool own = !gt_db_in_transaction(w->db);
    int rc = own ? gt_db_begin_read(w->db, err) : GT_OK;
    int64_t lo = INT64_MAX, hi = INT64_MIN, iv = w->r->interval;
    for (size_t i = 0; rc == GT_OK && i < n; i++) {
        rc = read_pair(w, sh->roots[ri], names[i], &raw[i], err);
        if (rc == GT_ENOTFOUND)
            rc = GT_OK;
        if (rc || !raw[i].n)
            continue;
        if (pair_dropped(o, &raw[i], iv)) {
            w->r->dropped++;
            raw[i].n = 0;
            continue;
        }
        lo = slot_of(raw[i].ts[0], iv) < lo ? slot_of(raw[i].ts[0], iv) : lo;
        hi = slot_of(raw[i].ts[raw[i].n - 1], iv) > hi ? slot_of(raw[i].ts[raw[i].n - 1], iv) : hi;
    }
    if (own)
        gt_db_rollback(w->db);
    /* only the slots some moment or outcome needs */
    if (rc == GT_OK && lo <= hi) {
        /* (no clipping at the open ends: the sums would overflow) */
        int64_t from = o->from == INT64_MIN ? INT64_MIN
                                             : floor_div(o->from, iv) - sh->history - 1;
        int64_t to = o->to == INT64_MAX ? INT64_MAX : floor_div(o->to, iv) + sh->max_tau + 1;
        w->s0 = lo > from ? lo : from;
        int64_t end = hi < to ? hi : to;
        w->nslots = end - w->s0 + 1;
        if (w->nslots > GT_BT_MAX_SLOTS || (double)w->nslots * (double)n > GT_BT_MAX_VALUES)
            rc = gt_error_set(err, GT_ETOOBIG, NULL, "root %s: %lld slots x %zu partners "
                              "is more than a replay holds (%d values): narrow --from/--to",
                              sh->roots[ri], (long long)w->nslots, n, GT_BT_MAX_VALUES);
    }
    for (size_t i = 0; rc == GT_OK && lo <= hi && w->nslots > 0 && i < n; i++) {
        if (!raw[i].n)
            continue;
        struct series *s = &w->s[w->ns];
        if (!(s->f = malloc((size_t)w->nslots * sizeof *s->f)) || !(s->name = strdup(names[i]))) {
            free(s->f);
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
            break;
        }
        align(w, s, &raw[i]);
        if (s->first_valid == INT64_MAX) {
            free(s->f), free(s->name);
            w->r->dropped++;
            continue;
        }
        w->ns++;
    }
    for (size_t i = 0; i < n; i++)
        free(raw[i].ts), free(raw[i].rtt);
    free(raw);
    if (rc == GT_OK && w->ns && !(w->y = malloc((size_t)w->nslots * sizeof *w->y)))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (int64_t k = 0; rc == GT_OK && w->ns && k < w->nslots; k++) {
        double m = -INFINITY;
        for (size_t i = 0; i < w->ns; i++)
            m = isnan(w->s[i].f[k]) || isnan(m) ? NAN : fmax(m, w->s[i].f[k]);
        w->y[k] = m;
    }
    w->r->pairs += w->ns;
    return rc;
}

/* ---------------------------------------------------------------- forecasts */

static void set_delta(struct gt_dist *d, double at)
{
    *d = (struct gt_dist){.model = &gt_model_delta, .p = {at, 0}};
}

/* Each partner's fit index choice between its two fits (gt_fit_select's
 * rule), the fits into fp and fn; NULL when neither applies. */
static const struct gt_model *index_choice(struct worker *w, size_t i, size_t m,
                                           struct gt_model_fit *fp, struct gt_model_fit *fn)
{
    const struct gt_slider_params *q = &w->par[i];
    *fp = (struct gt_model_fit){.ok = isfinite(q->alpha) && q->k > 0, .p = {q->k, q->alpha},
                                .ks = NAN};
    *fn = (struct gt_model_fit){.ok = q->sigma > 0, .p = {q->mu, q->sigma}, .ks = NAN};
    int classes;
    if ((fp->ok || fn->ok) && !gt_slider_window_logs(w->sl[i], w->lwin)) {
        gt_slider_window(w->sl[i], w->win);   /* a 0 ms sample: log 0 = -inf */
        for (size_t k = 0; k < m; k++)
            w->lwin[k] = log(w->win[k]);
    }
    if (fp->ok || fn->ok)
        gt_fit_index_logs2(fp->ok ? &gt_model_pareto : NULL, fp->p, &fp->chi2,
                           fn->ok ? &gt_model_normal : NULL, fn->p, &fn->chi2, w->lwin,
                           gt_slider_sorted_logs(w->sl[i]), m, &classes);
    if (fp->ok && fn->ok && (isnan(fp->chi2) || isnan(fn->chi2) || fp->chi2 == fn->chi2)) {
        const double *xs = gt_slider_sorted(w->sl[i]);
        fp->ks = gt_ks_distance(&gt_model_pareto, fp->p, xs, m);
        fn->ks = gt_ks_distance(&gt_model_normal, fn->p, xs, m);
    }
    return gt_fit_select(fp, fn);
}

static const struct gt_model *by_index(struct worker *w, size_t i, size_t m, double *p)
{
    struct gt_model_fit fp, fn;
    const struct gt_model *sel = index_choice(w, i, m, &fp, &fn);
    if (sel)
        memcpy(p, sel == &gt_model_pareto ? fp.p : fn.p, 2 * sizeof *p);
    return sel;
}

/* Whether a fit would change the answer by auto's verdict (METHOD.md 3):
 * by the window's bounds b, or (--verdict ks) by the KS distance to its
 * samples xs, ascending then. */
static bool misfits(struct worker *w, const struct gt_model *model, struct gt_model_fit *f,
                    const double *xs, size_t m, const struct gt_quantile_bounds *b)
{
    if (!f->ok)
        return true;   /* not applicable counts as flagged, as live */
    if (w->o->verdict_ks && isnan(f->ks))
        f->ks = gt_ks_distance(model, f->p, xs, m);
    unsigned flags = gt_verdict_flags(model, f->p, f->ks, f->chi2,
                                      w->o->verdict_ks ? NULL : b, &w->o->verdict);
    unsigned mask = w->o->verdict_ks
                        ? GT_VERDICT_POOR_FIT | GT_VERDICT_NEG_MASS | GT_VERDICT_NO_INDEX
                        : GT_VERDICT_MISFIT;
    return flags & mask;
}

/* auto as the advisor answers it (--fallback empirical): the fit index's
 * choice, else the other fit where only the choice is flagged, else the
 * window's samples. */
static bool auto_partner(struct worker *w, size_t i, size_t m, struct gt_dist *d)
{
    struct gt_model_fit fp, fn;
    const struct gt_model *sel = index_choice(w, i, m, &fp, &fn);
    if (!sel)
        return false;
    const double *xs = gt_slider_sorted(w->sl[i]);
    if (w->ranks_m != m) {
        gt_quantile_ranks_of(m, &w->ranks);
        w->ranks_m = m;
    }
    struct gt_quantile_bounds b = {0};
    if (!w->o->verdict_ks)
        gt_quantile_bounds_at(xs, m, &w->ranks, &b);
    w->r->auto_fits[w->wi]++;
    /* the other fit's flags matter only where the choice is flagged */
    bool pareto = sel == &gt_model_pareto;
    struct gt_model_fit *fs = pareto ? &fp : &fn, *fo = pareto ? &fn : &fp;
    const struct gt_model *other = pareto ? &gt_model_normal : &gt_model_pareto;
    bool sbad = misfits(w, sel, fs, xs, m, &b);
    bool obad = sbad && misfits(w, other, fo, xs, m, &b);
    /* (the old rule kept the selected fit unless both were flagged) */
    if (!w->o->verdict_ks && sbad && !obad) {
        sel = other;
        w->r->switched[w->wi]++;
    }
    if (!sbad || !obad) {
        d->model = sel;
        memcpy(d->p, sel == &gt_model_pareto ? fp.p : fn.p, sizeof d->p);
        return true;
    }
    w->r->fallbacks[w->wi]++;
    double *emp = w->emp + i * m;   /* the distribution keeps the samples */
    memcpy(emp, xs, m * sizeof *emp);
    gt_dist_set_empirical(d, emp, m);
    return true;
}

/* A regime younger than this many samples is not fitted on its own: two
 * samples give any alpha, and one just above 1 a mean of k alpha /
 * (alpha - 1) without bound. */
#define REGIME_MIN 8

/* Partner i's distribution under a method; false when it has none. */
static bool partner(struct worker *w, int method, size_t i, size_t m, struct gt_dist *d)
{
    const struct gt_slider_params *q = &w->par[i];
    if (q->degenerate) {
        set_delta(d, q->min);
        return true;
    }
    *d = (struct gt_dist){0};
    switch (method) {
    case GT_BT_PARETO:
        if (!isfinite(q->alpha) || !(q->k > 0))
            return false;
        d->model = &gt_model_pareto;
        d->p[0] = q->k, d->p[1] = q->alpha;
        return true;
    case GT_BT_NORMAL:
        if (!(q->sigma > 0)) {
            set_delta(d, q->mu);
            return true;
        }
        d->model = &gt_model_normal;
        d->p[0] = q->mu, d->p[1] = q->sigma;
        return true;
    case GT_BT_CHI2:
        return (d->model = by_index(w, i, m, d->p)) != NULL;
    case GT_BT_AUTO:
        return auto_partner(w, i, m, d);
    case GT_BT_REGIME: {
        struct gt_slider_params r;
        size_t n = gt_slider_count(w->rsl[i]);
        if (n < REGIME_MIN) {
            /* too young to fit: as pareto over the window m */
            w->nwin[i] = m;
            return partner(w, GT_BT_PARETO, i, m, d);
        }
        w->nwin[i] = n;
        gt_slider_params(w->rsl[i], &r);
        if (r.degenerate) {
            set_delta(d, r.min);
            return true;
        }
        if (!isfinite(r.alpha) || !(r.k > 0))
            return false;
        d->model = &gt_model_pareto;
        d->p[0] = r.k, d->p[1] = r.alpha;
        return true;
    }
    case GT_BT_EMPIRICAL: {
        double *xs = w->emp + i * m;
        memcpy(xs, gt_slider_sorted(w->sl[i]), m * sizeof *xs);
        gt_dist_set_empirical(d, xs, m);
        return true;
    }
    default:
        return false;
    }
}

/* The alpha <= 1 cut-off (METHOD.md 1.1) when each partner's window is
 * its own: the largest k n^(1/alpha) over those partners. */
static double regime_cut(const struct worker *w)
{
    double x0 = INFINITY;
    for (size_t i = 0; i < w->ns; i++) {
        const struct gt_dist *d = &w->g[i].dist;
        if (d->model != &gt_model_pareto || d->p[1] > 1)
            continue;
        double c = d->p[0] * exp(log((double)w->nwin[i]) / d->p[1]);
        x0 = isinf(x0) || c > x0 ? c : x0;
    }
    return x0;
}

/* The smallest window from which the last moment's partition and
 * brackets are a good start: a window of m samples moves by 1/m per
 * moment.  Measured on 99 partners over a day (integrand evaluations,
 * warm against cold): Pareto m = 8 +51 %, 16 -22 %, 32 -20 %, 64 -43 %,
 * 1024 -42 %; normal m = 8 +65 %, 16 +20 %, 32 -3 %, 64 -19 %, 1024 -31 %
 * (a normal's bulk moves with every sample; a Pareto's minimum and tail
 * hold). */
static size_t warm_from(int method)
{
    return method == GT_BT_NORMAL || method == GT_BT_EMPIRICAL ? 64 : 16;
}

/* The quantile levels a forecast computes: the calibration's, then the
 * options' extra ones. */
static size_t levels_of(const struct gt_bt_opts *o, double *lv)
{
    if (!o->calibration)
        return 0;
    memcpy(lv, gt_bt_quantiles, sizeof gt_bt_quantiles);
    if (o->nlevels)
        memcpy(lv + GT_BT_NQ, o->levels, o->nlevels * sizeof *lv);
    return GT_BT_NQ + o->nlevels;
}

/* The extra levels alone (a live calibration asks nothing else of the
 * quantiles): their root finds start where they would after the method's
 * own three levels' (the integrator's warm slots are per level index),
 * so each gives what it gives when all are computed. */
static bool levels_only(const struct gt_bt_opts *o)
{
    return o->levels_only && o->calibration && o->nlevels &&
           GT_BT_NQ + o->nlevels <= GT_EMAX_WARM_NQ;
}

/* gt_emax over the partners w->g with warm's quantile slots shifted by
 * GT_BT_NQ: the extra levels' only (levels_only). */
static int emax_levels(struct worker *w, struct gt_emax_opts *eo, struct gt_emax_result *res,
                       struct gt_error *e)
{
    struct gt_emax_warm *wm = eo->warm, shifted;
    if (wm) {
        shifted = *wm;
        memcpy(&shifted.at[GT_EMAX_WARM_Q0], &wm->at[GT_EMAX_WARM_Q0 + GT_BT_NQ],
               eo->nq * sizeof *wm->at);
        eo->warm = &shifted;
    }
    int rc = gt_emax(w->g, w->ns, eo, res, e);
    if (wm) {   /* back in their own slots; the three others as they were */
        double own[GT_BT_NQ];
        memcpy(own, &wm->at[GT_EMAX_WARM_Q0], sizeof own);
        *wm = shifted;
        memcpy(&wm->at[GT_EMAX_WARM_Q0 + GT_BT_NQ], &shifted.at[GT_EMAX_WARM_Q0],
               eo->nq * sizeof *wm->at);
        memcpy(&wm->at[GT_EMAX_WARM_Q0], own, sizeof own);
    }
    return rc;
}

/* One method's forecast at the current moment: E[max] and, with
 * calibration, its quantiles into q (levels_of's; with levels_only the
 * extra levels alone, q[0 .. GT_BT_NQ) NAN); NAN when the method cannot
 * answer. */
static double forecast(struct worker *w, int method, int64_t t, size_t m, double *q)
{
    const struct gt_bt_opts *o = w->o;
    double lv[GT_BT_NQ + GT_BT_MAX_LEVELS];
    size_t nl = levels_of(o, lv);
    for (size_t k = 0; k < GT_BT_NQ + GT_BT_MAX_LEVELS; k++)
        q[k] = NAN;
    if (method == GT_BT_LAST)
        return w->y[t - 1 - w->s0];   /* a value, no distribution: no quantiles */
    for (size_t i = 0; i < w->ns; i++) {
        w->g[i].count = 1;
        if (!partner(w, method, i, m, &w->g[i].dist))
            return NAN;
    }
    bool only = levels_only(o), no_mean = only && !tracked(o);
    struct gt_emax_opts eo = {
        method == GT_BT_REGIME ? regime_cut(w) : gt_emax_cut_for_window(w->g, w->ns, (double)m),
        o->cut_paper,
        only ? o->levels : nl ? lv : NULL, only ? o->nlevels : nl, false, false, w->ws,
        o->epsrel, m >= warm_from(method) ? &w->warm[method] : NULL, false, no_mean
    };
    struct gt_emax_result res = {.q_values = !o->calibration ? NULL : only ? q + GT_BT_NQ : q};
    struct gt_error e = {0};
    w->r->evaluations++;
    int rc = only ? emax_levels(w, &eo, &res, &e) : gt_emax(w->g, w->ns, &eo, &res, &e);
    if (rc == GT_OK && no_mean)   /* the first level's quantile stands for E[max] */
        res.e_max = q[GT_BT_NQ];
    if (rc || !isfinite(res.e_max)) {
        w->r->unanswered++;
        for (size_t k = 0; k < nl; k++)
            q[k] = NAN;
        return NAN;
    }
    return res.e_max;
}

static struct pending *queue_push(struct queue *qu)
{
    if (qu->n == qu->cap) {
        size_t cap = qu->cap ? 2 * qu->cap : 16;
        struct pending *p = malloc(cap * sizeof *p);
        if (!p)
            return NULL;
        for (size_t i = 0; i < qu->n; i++)
            p[i] = qu->q[(qu->head + i) % qu->cap];
        free(qu->q);
        qu->q = p, qu->cap = cap, qu->head = 0;
    }
    return &qu->q[(qu->head + qu->n++) % qu->cap];
}

/* Whether predictions wait in a queue for their outcome: for adaptive,
 * combined or the calibrators. */
static bool queued(const struct gt_bt_opts *o)
{
    return o->calibration || tracked(o);
}

/* Outcomes observed by slot t - 1 now count for adaptive, combined and
 * the calibrators. */
static void settle(struct worker *w, size_t ti, int64_t t)
{
    struct queue *qu = &w->qs[ti];
    while (qu->n && qu->q[qu->head].due <= t - 1) {
        const struct pending *pd = &qu->q[qu->head];
        if (w->trk[ti])
            gt_tracker_add(w->trk[ti], pd->e);
        if (w->ctrk[ti])
            gt_tracker_add(w->ctrk[ti], pd->e);
        for (int m = 0; m < GT_BT_NMETHODS; m++)
            for (int k = 0; w->conf[ti][m][0] && k < GT_BT_NQ; k++)
                gt_conf_observe(w->conf[ti][m][k], pd->q[m][k], pd->qc[m][k], pd->actual);
        qu->head = (qu->head + 1) % qu->cap;
        qu->n--;
    }
}

/* One method's forecast at a moment, as scored. */
struct outlook {
    double pred;
    double q[GT_BT_NQ + GT_BT_MAX_LEVELS];   /* raw, then at the extra levels */
    double qc[GT_BT_NQ];                     /* calibrated */
    bool has_q, ready;
};

static void report(struct worker *w, int64_t t, size_t m, long tau, int method, int regime,
                   double actual, const struct outlook *ol)
{
    if (!w->o->moment)
        return;
    struct gt_bt_moment mo = {w->root, t * w->r->interval, m, tau, method, regime, ol->pred,
                              actual, ol->has_q ? ol->q : NULL, ol->has_q ? ol->qc : NULL,
                              ol->has_q && w->o->nlevels ? ol->q + GT_BT_NQ : NULL};
    mtx_lock(&w->sh->lock);
    w->o->moment(w->o->moment_ctx, &mo);
    mtx_unlock(&w->sh->lock);
}

/* One scored prediction of a method into its cell (quantiles for the
 * calibration where the method has them) and the moments file. */
static int score(struct worker *w, size_t wi, size_t ti, int method, int regime, double actual,
                 const struct outlook *ol, int64_t t)
{
    const double *q = ol->has_q ? ol->q : NULL;
    if (!cell_add(cell_at(w->r, wi, ti, method, regime), ol->pred, actual, q, ol->qc, ol->ready))
        return gt_error_set(&w->err, GT_ENOMEM, NULL, "out of memory");
    report(w, t, w->o->windows[wi], w->o->taus[ti], method, regime, actual, ol);
    return GT_OK;
}

/* The median of v[0..n), sorting v; NAN when n is 0. */
static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, gt_cmp_double);
    return n ? gt_quantile_sorted(v, (size_t)n, 0.5) : NAN;
}

/* The guard's median forecast and scale (see gt_bt_guard). */
static double guard_scale(const double *pred, const struct gt_tracker *t, int k, double *med)
{
    double v[GT_TRACK_MAX_METHODS], r[GT_TRACK_MAX_METHODS];
    int n = 0;
    for (int j = 0; j < k; j++) {
        r[j] = gt_tracker_rmse(t, j);
        if (!isnan(pred[j]))
            v[n++] = pred[j];
    }
    *med = median_of(v, n);
    double scale = median_of(r, k);
    if (isnan(scale)) {   /* no outcome yet: the forecasts' own spread */
        for (int j = 0; j < n; j++)
            v[j] = fabs(v[j] - *med);
        scale = median_of(v, n);
    }
    return fmax(scale, 1e-3 * fabs(*med));   /* tied forecasts: not all others out */
}

void gt_bt_guard(const double *pred, const struct gt_tracker *t, int k, bool *use)
{
    double med, scale = guard_scale(pred, t, k, &med), v[GT_TRACK_MAX_METHODS];
    int kept = 0, n = 0;
    for (int j = 0; j < k; j++) {
        use[j] = !isnan(pred[j]) && !(fabs(pred[j] - med) > GT_BT_GUARD * scale);
        kept += use[j];
        if (!isnan(pred[j]))
            v[n++] = pred[j];
    }
    if (kept || !n)
        return;
    /* all far apart: the middle one or two, those the median is made of */
    qsort(v, (size_t)n, sizeof *v, gt_cmp_double);
    for (int j = 0; j < k; j++)
        use[j] = !isnan(pred[j]) && (pred[j] == v[(n - 1) / 2] || pred[j] == v[n / 2]);
}

int gt_bt_adaptive_pick(const double *pred, const struct gt_tracker *t, int k, bool *use)
{
    gt_bt_guard(pred, t, k, use);
    int b = gt_tracker_best_of(t, use, NULL);
    for (int j = 0; b < 0 && j < k; j++)   /* no outcome yet: the first kept */
        if (use[j])
            b = j;
    return b;
}

/* Adaptive: the kept forecast (gt_bt_adaptive_pick) whose method has the
 * smallest tracked error. */
static void adaptive_outlook(struct worker *w, size_t ti, const struct outlook *base,
                             struct outlook *out)
{
    double pred[GT_BT_NMETHODS];
    bool use[GT_BT_NMETHODS];
    for (int j = 0; j < w->nbase; j++)
        pred[j] = base[j].pred;
    int b = gt_bt_adaptive_pick(pred, w->trk[ti], w->nbase, use);
    if (b < 0) {   /* no method answers */
        *out = base[0];
        return;
    }
    *out = base[b];
    *chosen_at(w->r, w->wi, ti, w->base[b]) += 1;
}

/* Which base forecasts the combination takes now. */
static void combine_mask(struct worker *w, size_t ti, const struct outlook *base, bool *use)
{
    double pred[GT_BT_NMETHODS];
    for (int j = 0; j < w->nbase; j++)
        pred[j] = base[j].pred;
    gt_bt_guard(pred, w->ctrk[ti], w->nbase, use);
}

/* With few outcomes per method the least-squares weights fit the noise
 * of those few (with fewer outcomes than methods they are not even
 * determined: any weights that cancel the one error seen will do); a
 * memory of hundreds of outcomes lets them be used as they are
 * (EVALUATION.md). */
double gt_bt_combine_shrink(double shrink, int k, size_t n)
{
    return n ? fmax(shrink, fmin(1, (double)k / (double)n)) : 1;
}

/* Combined: the fixed methods' forecasts taken now weighted by their
 * tracked errors (the weights solved over those alone); the quantiles
 * likewise, renormalized over the methods that have them (equally when
 * those carry no weight). */
static void combined_outlook(struct worker *w, size_t ti, const struct outlook *base,
                             struct outlook *out)
{
    double wt[GT_TRACK_MAX_METHODS], sp = 0, sq = 0, nq = 0;
    bool use[GT_BT_NMETHODS];
    combine_mask(w, ti, base, use);
    gt_tracker_weights(w->ctrk[ti], gt_bt_combine_shrink(w->o->shrink, w->nbase,
                                                         gt_tracker_count(w->ctrk[ti])),
                       use, wt);
    *out = (struct outlook){.pred = 0, .has_q = false};
    for (int j = 0; j < w->nbase; j++) {
        if (!use[j])
            continue;
        out->pred += wt[j] * base[j].pred;
        sp += wt[j];
        if (base[j].has_q) {
            out->has_q = true;
            sq += wt[j];
            nq++;
        }
    }
    out->pred = sp > 0 ? out->pred / sp : NAN;
    size_t nl = GT_BT_NQ + w->o->nlevels;
    for (size_t k = 0; k < nl; k++)
        out->q[k] = 0;
    for (int j = 0; out->has_q && j < w->nbase; j++) {
        if (!use[j] || !base[j].has_q)
            continue;
        double c = sq > 0 ? wt[j] / sq : 1 / nq;
        for (size_t k = 0; k < nl; k++)
            out->q[k] += c * base[j].q[k];
    }
}

/* The calibrated quantiles of a method's outlook at lead index ti. */
static void calibrate(struct worker *w, size_t ti, int method, struct outlook *ol)
{
    struct gt_conf **c = w->conf[ti][method];
    ol->ready = ol->has_q && c[0] && gt_conf_ready(c[GT_BT_NQ - 1]);
    for (int k = 0; k < GT_BT_NQ; k++)
        ol->qc[k] = ol->has_q && c[0] ? gt_conf_adjust(c[k], ol->q[k]) : ol->q[k];
}

/* Score one method's outlook and queue what its calibrators need. */
static int score_method(struct worker *w, size_t wi, size_t ti, int method, int regime,
                        double actual, struct outlook *ol, struct pending *pd, int64_t t)
{
    if (isnan(ol->pred))
        return GT_OK;
    calibrate(w, ti, method, ol);
    if (pd && ol->has_q) {
        memcpy(pd->q[method], ol->q, sizeof pd->q[method]);
        memcpy(pd->qc[method], ol->qc, sizeof ol->qc);
    }
    return score(w, wi, ti, method, regime, actual, ol, t);
}

static int moment(struct worker *w, size_t wi, int64_t t)
{
    const struct gt_bt_opts *o = w->o;
    size_t m = o->windows[wi];
    bool le1 = false;
    for (size_t i = 0; i < w->ns; i++) {
        gt_slider_params(w->sl[i], &w->par[i]);
        le1 = le1 || (!w->par[i].degenerate && w->par[i].alpha <= 1);
    }
    int regime = le1 ? GT_BT_ALPHA_LE1 : GT_BT_ALPHA_GT1;
    w->r->moments[wi]++;
    w->r->alpha_le1[wi] += le1;
    w->wi = wi;
    struct outlook base[GT_BT_NMETHODS], meta;
    for (int j = 0; j < w->nbase; j++) {
        base[j].pred = forecast(w, w->base[j], t, m, base[j].q);
        base[j].has_q = o->calibration && w->base[j] != GT_BT_LAST &&
                        !isnan(base[j].q[levels_only(o) ? GT_BT_NQ : 0]);
    }
    for (size_t ti = 0; ti < o->ntaus; ti++) {
        long tau = o->taus[ti];
        int64_t k = t + tau - w->s0;
        double actual = k < w->nslots ? w->y[k] : NAN;
        if (queued(o))
            settle(w, ti, t);
        if (isnan(actual)) {
            for (int j = 0; o->unscored && j < w->nbase; j++)
                report(w, t, m, tau, w->base[j], regime, NAN,
                       &(struct outlook){.pred = base[j].pred, .has_q = false});
            continue;
        }
        struct pending *pd = queued(o) ? queue_push(&w->qs[ti]) : NULL;
        if (queued(o) && !pd)
            return gt_error_set(&w->err, GT_ENOMEM, NULL, "out of memory");
        if (pd) {
            pd->due = t + tau;
            pd->actual = actual;
            for (int j = 0; j < GT_BT_NMETHODS; j++)
                for (int q = 0; q < GT_BT_NQ; q++)
                    pd->q[j][q] = pd->qc[j][q] = NAN;   /* a method that does not answer */
            for (int j = 0; j < w->nbase; j++)
                pd->e[j] = base[j].pred - actual;
        }
        int rc = GT_OK;
        for (int j = 0; rc == GT_OK && j < w->nbase; j++)
            rc = score_method(w, wi, ti, w->base[j], regime, actual, &base[j], pd, t);
        /* (each meta method's quantiles have calibrators of their own) */
        if (rc == GT_OK && wants(o, GT_BT_ADAPTIVE)) {
            adaptive_outlook(w, ti, base, &meta);
            rc = score_method(w, wi, ti, GT_BT_ADAPTIVE, regime, actual, &meta, pd, t);
        }
        if (rc == GT_OK && wants(o, GT_BT_COMBINED)) {
            combined_outlook(w, ti, base, &meta);
            rc = score_method(w, wi, ti, GT_BT_COMBINED, regime, actual, &meta, pd, t);
        }
        if (rc)
            return rc;
    }
    return GT_OK;
}

/* The detectors see each partner's history from its first slot; a
 * shift found at slot s, placed at slot at, restarts the partner's
 * regime slider with the slots at .. s.  count: add the shifts to the
 * result (once per root, on the first window's pass). */
static void regime_feed(struct worker *w, size_t i, int64_t s, bool count)
{
    int64_t at;
    double x = w->s[i].f[s - w->s0];
    if (!gt_cpd_push(w->cpd[i], x, &at)) {
        gt_slider_push(w->rsl[i], x);
        return;
    }
    w->r->shifts += count;
    gt_slider_reset(w->rsl[i]);
    for (int64_t k = w->s0 + at; k <= s; k++)   /* the detector counts from slot s0 */
        gt_slider_push(w->rsl[i], w->s[i].f[k - w->s0]);
}

static void regime_push(struct worker *w, int64_t s, bool count)
{
    for (size_t i = 0; i < w->ns; i++)
        regime_feed(w, i, s, count);
}

/* Detectors and regime sliders for a pass whose first pushed slot is
 * first: the detectors are fed every slot before it. */
static int regime_start(struct worker *w, size_t m, int64_t first, bool count)
{
    w->cpd = calloc(w->ns, sizeof *w->cpd);
    w->rsl = calloc(w->ns, sizeof *w->rsl);
    if (!w->cpd || !w->rsl)
        return gt_error_set(&w->err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < w->ns; i++) {
        if (!(w->cpd[i] = gt_cpd_new(NULL)) || !(w->rsl[i] = gt_slider_new(m)))
            return gt_error_set(&w->err, GT_ENOMEM, NULL, "out of memory");
        for (int64_t s = w->s0; s < first; s++)
            regime_feed(w, i, s, count);
    }
    return GT_OK;
}

static void window_free(struct worker *w)
{
    for (size_t i = 0; w->sl && i < w->ns; i++)
        gt_slider_free(w->sl[i]);
    for (size_t i = 0; w->rsl && i < w->ns; i++)
        gt_slider_free(w->rsl[i]);
    for (size_t i = 0; w->cpd && i < w->ns; i++)
        gt_cpd_free(w->cpd[i]);
    free(w->sl), free(w->rsl), free(w->cpd);
    w->sl = w->rsl = NULL;
    w->cpd = NULL;
    for (size_t ti = 0; ti < GT_BT_MAX_TAUS; ti++) {
        gt_tracker_free(w->trk[ti]);
        gt_tracker_free(w->ctrk[ti]);
        free(w->qs[ti].q);
        w->trk[ti] = w->ctrk[ti] = NULL;
        w->qs[ti] = (struct queue){0};
        for (int m = 0; m < GT_BT_NMETHODS; m++)
            for (int k = 0; k < GT_BT_NQ; k++) {
                gt_conf_free(w->conf[ti][m][k]);
                w->conf[ti][m][k] = NULL;
            }
    }
}

size_t gt_bt_combine_horizon(size_t h, long tau)
{
    double leads = (double)GT_BT_COMBINE_LEADS * (double)(tau > 0 ? tau : 1);
    if (h == 0 || (double)h >= leads)
        return h;
    return leads >= GT_TRACK_MAX_HORIZON ? GT_TRACK_MAX_HORIZON : (size_t)leads;
}

/* The trackers (adaptive, combined) and calibrators of lead index ti. */
static int trackers_new(struct worker *w, size_t ti)
{
    const struct gt_bt_opts *o = w->o;
    size_t ch = gt_bt_combine_horizon(o->combine_horizon, o->taus[ti]);
    if ((wants(o, GT_BT_ADAPTIVE) && !(w->trk[ti] = gt_tracker_new(w->nbase, o->horizon))) ||
        (wants(o, GT_BT_COMBINED) && !(w->ctrk[ti] = gt_tracker_new(w->nbase, ch))))
        return gt_error_set(&w->err, GT_ENOMEM, NULL, "out of memory");
    struct gt_conf_opts co = {o->cal_window, o->cal_gamma};
    for (int m = 0; o->calibration && !levels_only(o) && m < GT_BT_NMETHODS; m++) {
        if (!wants(o, m) || m == GT_BT_LAST)
            continue;
        for (int k = 0; k < GT_BT_NQ; k++)
            if (!(w->conf[ti][m][k] = gt_conf_new(gt_bt_quantiles[k], &co)))
                return gt_error_set(&w->err, GT_ENOMEM, NULL, "out of memory");
    }
    return GT_OK;
}

/* ---------------------------------------------------------------- suspend */

/* A suspended replay (gt_bt_opts.resume): this header, the partners' names
 * (each NUL-terminated), every method's E[max] start, then per partner
 * its slider's state, its size first. */
#define SUSPEND_MAGIC 0x47544253u   /* "GTBS" */
struct suspended {
    uint32_t magic, warm_size;
    uint64_t ns, m, at;        /* partners, window, the last moment's slot */
};

static void suspend_state(struct worker *w, size_t m, int64_t t)
{
    size_t len = sizeof(struct suspended) + sizeof w->warm;
    for (size_t i = 0; i < w->ns; i++)
        len += strlen(w->s[i].name) + 1 + sizeof(uint64_t) + gt_slider_state_size(w->sl[i]);
    char *buf = malloc(len), *p = buf;
    if (!buf) {
        w->o->suspend(w->o->suspend_ctx, NULL, 0, t * w->r->interval);   /* said: no state */
        return;
    }
    struct suspended h = {SUSPEND_MAGIC, (uint32_t)sizeof w->warm, w->ns, m, (uint64_t)t};
    memcpy(p, &h, sizeof h), p += sizeof h;
    for (size_t i = 0; i < w->ns; i++) {
        size_t n = strlen(w->s[i].name) + 1;
        memcpy(p, w->s[i].name, n), p += n;
    }
    memcpy(p, w->warm, sizeof w->warm), p += sizeof w->warm;
    for (size_t i = 0; i < w->ns; i++) {
        uint64_t n = gt_slider_state_size(w->sl[i]);
        memcpy(p, &n, sizeof n), p += sizeof n;
        gt_slider_state_save(w->sl[i], p), p += n;
    }
    w->o->suspend(w->o->suspend_ctx, buf, len, t * w->r->interval);
    free(buf);
}

char **gt_bt_suspended_partners(const void *buf, size_t len, size_t *n)
{
    const char *p = buf, *end = p + len;
    struct suspended h;
    *n = 0;
    if (len < sizeof h)
        return NULL;
    memcpy(&h, p, sizeof h), p += sizeof h;
    if (h.magic != SUSPEND_MAGIC || h.ns == 0 || h.ns > (uint64_t)(end - p))
        return NULL;   /* (each name takes a byte at least) */
    char **names = calloc((size_t)h.ns, sizeof *names);
    for (size_t i = 0; names && i < h.ns; i++) {
        const char *nul = memchr(p, '\0', (size_t)(end - p));
        if (!nul || !(names[i] = strdup(p))) {
            gt_bt_names_free(names, i);
            return NULL;
        }
        p = nul + 1;
    }
    if (names)
        *n = (size_t)h.ns;
    return names;
}

void gt_bt_names_free(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

/* Load o->resume into the pass of window m whose first moment is lo:
 * false when it is not a state of this root's partners, window and
 * moments. */
static bool resume_state(struct worker *w, size_t m, int64_t lo)
{
    const char *p = w->o->resume, *end = p + w->o->resume_len;
    struct suspended h;
    if (w->o->resume_len < sizeof h)
        return false;
    memcpy(&h, p, sizeof h), p += sizeof h;
    if (h.magic != SUSPEND_MAGIC || h.warm_size != sizeof w->warm || h.ns != w->ns ||
        h.m != m || (int64_t)h.at != lo - 1)
        return false;
    for (size_t i = 0; i < w->ns; i++) {
        size_t n = strlen(w->s[i].name) + 1;
        if ((size_t)(end - p) < n || memcmp(p, w->s[i].name, n))
            return false;
        p += n;
    }
    if ((size_t)(end - p) < sizeof w->warm)
        return false;
    memcpy(w->warm, p, sizeof w->warm), p += sizeof w->warm;
    for (size_t i = 0; i < w->ns; i++) {
        uint64_t n;
        if ((size_t)(end - p) < sizeof n)
            return false;
        memcpy(&n, p, sizeof n), p += sizeof n;
        if ((uint64_t)(end - p) < n || !gt_slider_state_load(w->sl[i], p, (size_t)n))
            return false;
        p += n;
    }
    return p == end;
}

/* One pass over the root's slots for window index wi. */
static int replay_window(struct worker *w, size_t wi)
{
    const struct gt_bt_opts *o = w->o;
    size_t m = o->windows[wi];
    int64_t iv = w->r->interval, last = w->s0 + w->nslots - 1, ready = INT64_MIN;
    memset(w->warm, 0, sizeof w->warm);
    for (size_t i = 0; i < w->ns; i++)
        ready = w->s[i].first_valid > ready ? w->s[i].first_valid : ready;
    /* moments t: every partner has m filled slots before t (resumed: the
       slot before t, the sliders hold the rest), t - 1 is stored, t in
       [from, to], t on the stride's grid */
    int64_t lo = ready + (o->resume ? 1 : (int64_t)m), from = floor_div(o->from + iv - 1, iv);
    lo = lo > from ? lo : from;
    lo = floor_div(lo + o->stride - 1, o->stride) * o->stride;
    int64_t hi = floor_div(o->to, iv);
    hi = hi < last + 1 ? hi : last + 1;
    int64_t skip = o->skip_after ? floor_div(o->skip_after, iv) : INT64_MAX;
    if (lo > hi)
        return GT_OK;
    w->sl = calloc(w->ns, sizeof *w->sl);
    int rc = w->sl ? GT_OK : gt_error_set(&w->err, GT_ENOMEM, NULL, "out of memory");
    /* the methods that ask order statistics at every moment keep each
       window sorted as it slides */
    bool sorted = wants(o, GT_BT_AUTO) || wants(o, GT_BT_EMPIRICAL) || wants(o, GT_BT_CHI2);
    for (size_t i = 0; rc == GT_OK && i < w->ns; i++)
        if (!(w->sl[i] = gt_slider_new(m)) || (sorted && !gt_slider_keep_sorted(w->sl[i])))
            rc = gt_error_set(&w->err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK && wants(o, GT_BT_REGIME))
        rc = regime_start(w, m, lo - (int64_t)m, wi == 0);
    for (size_t ti = 0; rc == GT_OK && ti < o->ntaus; ti++)
        rc = trackers_new(w, ti);
    /* resumed: the sliders hold the slots before the moment lo - 1 */
    int64_t begin = lo - (int64_t)m;
    if (rc == GT_OK && o->resume) {
        if (!resume_state(w, m, lo))
            rc = gt_error_set(&w->err, GT_EINPUT, NULL, "root %s: the suspended replay does "
                              "not fit this one", w->root);
        begin = lo - 1;
    }
    for (int64_t s = begin; rc == GT_OK && s < hi; s++) {
        for (size_t i = 0; i < w->ns; i++)
            gt_slider_push(w->sl[i], w->s[i].f[s - w->s0]);
        if (w->cpd)
            regime_push(w, s, wi == 0);
        int64_t t = s + 1;
        if (t < lo || (t - lo) % o->stride || (t > skip && t < hi))
            continue;
        if (gt_interrupted() || (o->stop && o->stop(o->stop_ctx)))
            rc = gt_error_set(&w->err, GT_EINTR, NULL, "interrupted");
        else
            rc = moment(w, wi, t);
        if (rc == GT_OK && o->suspend && t * iv == o->suspend_at)
            suspend_state(w, m, t);
    }
    window_free(w);
    return rc;
}

static int replay_root(struct worker *w, size_t ri)
{
    struct shared *sh = w->sh;
    const struct gt_bt_opts *o = w->o;
    w->root = sh->roots[ri];
    int rc = read_root(w, ri, &w->err);
    size_t maxm = 0;
    for (size_t wi = 0; wi < o->nwindows; wi++)
        maxm = o->windows[wi] > maxm ? o->windows[wi] : maxm;
    if (rc == GT_OK && w->ns) {
        free(w->par), free(w->g), free(w->win), free(w->lwin), free(w->emp), free(w->nwin);
        w->par = malloc(w->ns * sizeof *w->par);
        w->nwin = malloc(w->ns * sizeof *w->nwin);
        w->g = malloc(w->ns * sizeof *w->g);
        w->win = malloc(maxm * sizeof *w->win);
        w->lwin = malloc(maxm * sizeof *w->lwin);
        bool emp = wants(o, GT_BT_EMPIRICAL) || wants(o, GT_BT_AUTO);
        w->emp = emp ? malloc(w->ns * maxm * sizeof *w->emp) : NULL;
        if (!w->par || !w->g || !w->win || !w->lwin || !w->nwin || (emp && !w->emp))
            rc = gt_error_set(&w->err, GT_ENOMEM, NULL, "out of memory");
    }
    double before = 0, after = 0;
    for (size_t wi = 0; wi < o->nwindows; wi++)
        before += w->r->moments[wi];
    for (size_t wi = 0; wi < o->nwindows; wi++) {
        if (rc == GT_OK && w->ns)
            rc = replay_window(w, wi);
        size_t done = atomic_fetch_add(&sh->done, 1) + 1;
        if (o->progress && w->first)
            o->progress(o->progress_ctx, (double)done, (double)(sh->nroots * o->nwindows));
    }
    for (size_t wi = 0; wi < o->nwindows; wi++)
        after += w->r->moments[wi];
    if (after > before)
        w->r->roots++;
    free_series(w);
    return rc;
}

/* ---------------------------------------------------------------- the run */

static bool site_allowed(const struct gt_bt_opts *o, const char *name)
{
    for (size_t i = 0; o->sites && i < o->nsites; i++)
        if (!strcmp(o->sites[i], name))
            return true;
    return !o->sites;
}

struct collect {
    struct shared *sh;
    size_t *npartners;
};

static int add_name(char ***list, size_t *n, const char *name)
{
    char **l = realloc(*list, (*n + 2) * sizeof *l);
    if (!l)
        return GT_ENOMEM;
    *list = l;
    if (!(l[*n] = strdup(name)))
        return GT_ENOMEM;
    l[++*n] = NULL;
    return GT_OK;
}

/* The pairs arrive by source: a new source opens a new root. */
static int collect_pair(void *ctx, int64_t src, const char *src_name, int64_t dst,
                        const char *dst_name)
{
    struct collect *c = ctx;
    struct shared *sh = c->sh;
    const struct gt_bt_opts *o = sh->o;
    if (src == dst || (o->root ? strcmp(o->root, src_name) != 0 : !site_allowed(o, src_name)) ||
        !site_allowed(o, dst_name))
        return GT_OK;
    if (!sh->nroots || strcmp(sh->roots[sh->nroots - 1], src_name)) {
        char ***p = realloc(sh->partners, (sh->nroots + 1) * sizeof *p);
        size_t *np = realloc(c->npartners, (sh->nroots + 1) * sizeof *np);
        if (p)
            sh->partners = p;
        if (np)
            c->npartners = np;
        size_t n = sh->nroots;
        if (!p || !np || add_name(&sh->roots, &n, src_name))
            return GT_ENOMEM;
        sh->partners[sh->nroots] = NULL;
        c->npartners[sh->nroots] = 0;
        sh->nroots++;
    }
    size_t r = sh->nroots - 1;
    return add_name(&sh->partners[r], &c->npartners[r], dst_name);
}

static void shared_free(struct shared *sh)
{
    for (size_t r = 0; r < sh->nroots; r++) {
        for (size_t i = 0; sh->partners && sh->partners[r] && sh->partners[r][i]; i++)
            free(sh->partners[r][i]);
        if (sh->partners)
            free(sh->partners[r]);
        free(sh->roots[r]);
    }
    free(sh->partners);
    free(sh->roots);
}

/* The median spacing of the first pairs' last `limit` samples, in
 * seconds. */
static int detect_interval(struct gt_db *db, struct shared *sh, size_t limit, int64_t *out,
                           struct gt_error *err)
{
    int64_t *d = NULL;
    size_t nd = 0, seen = 0;
    int rc = GT_OK;
    for (size_t r = 0; rc == GT_OK && r < sh->nroots && seen < 16; r++)
        for (size_t i = 0; rc == GT_OK && sh->partners[r][i] && seen < 16; i++, seen++) {
            int64_t *ts;
            double *rtt;
            size_t n;
            struct gt_prior prior;
            rc = gt_query_series(db, sh->roots[r], sh->partners[r][i], INT64_MAX, limit, &ts,
                                 &rtt, &n, &prior, err);
            if (rc)
                break;
            /* (a pair with one sample has no spacing: nothing to add) */
            int64_t *nd2 = n > 1 ? realloc(d, (nd + n - 1) * sizeof *d) : d;
            if (n > 1 && !nd2)
                rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
            for (size_t k = 1; n > 1 && nd2 && k < n; k++)
                if (ts[k] > ts[k - 1])
                    nd2[nd++] = ts[k] - ts[k - 1];
            d = nd2 ? nd2 : d;
            free(ts);
            free(rtt);
        }
    if (rc == GT_OK && !nd)
        rc = gt_error_set(err, GT_EINPUT, NULL, "too few samples to tell the interval between "
                          "them: give --interval");
    if (rc == GT_OK) {
        qsort(d, nd, sizeof *d, gt_cmp_int64);
        *out = d[nd / 2];
    }
    free(d);
    return rc;
}

int gt_bt_interval(struct gt_db *db, const char *root, int64_t *out, struct gt_error *err)
{
    struct gt_bt_opts o = {.root = root};
    struct shared sh = {.o = &o};
    struct collect c = {&sh, NULL};
    int rc = gt_query_pair_ids_of(db, root, collect_pair, &c, err);
    if (rc == GT_ENOMEM)
        gt_error_set(err, rc, NULL, "out of memory");
    free(c.npartners);
    if (rc == GT_OK && !sh.nroots)
        rc = gt_error_set(err, GT_ENOTFOUND, NULL, "root %s has no partner pairs in the store",
                          root);
    if (rc == GT_OK)   /* (a regular series shows its spacing in far fewer) */
        rc = detect_interval(db, &sh, GT_BT_INTERVAL_SAMPLES, out, err);
    shared_free(&sh);
    return rc;
}

int gt_bt_last_moments(struct gt_db *db, const char *root, size_t window, double horizon_s,
                       size_t n, int64_t anchor, int64_t interval, const char **sites,
                       size_t nsites, struct gt_bt_opts *bo, const char ***sites_buf,
                       struct gt_error *err)
{
    int64_t iv = interval;
    *sites_buf = NULL;
    int rc = iv > 0 ? GT_OK : gt_bt_interval(db, root, &iv, err);
    if (rc)
        return rc;
    double lead = fmax(1, round(horizon_s / (double)iv));
    long tau = lead > GT_BT_MAX_TAU ? GT_BT_MAX_TAU : (long)lead;
    int64_t last = slot_of(anchor, iv) - tau;   /* the anchor's sample is in its nearest slot */
    *bo = (struct gt_bt_opts){
        .windows = {window}, .nwindows = 1, .taus = {tau}, .ntaus = 1, .stride = 1,
        .from = time_of_slot(last - (int64_t)n + 1, iv), .to = time_of_slot(last, iv),
        .interval = iv, .drop_loss = 2,
        .epsrel = 1e-6, .root = root, .threads = 1, .cal_window = GT_BT_CAL_WINDOW,
        .cal_gamma = GT_BT_CAL_GAMMA, .shrink = GT_BT_SHRINK,
        .combine_horizon = GT_BT_COMBINE_HORIZON, .until = anchor,
        .verdict = {GT_VERDICT_MAX_KS, GT_VERDICT_MARGIN},
    };
    if (!sites)
        return GT_OK;
    /* the partners named, and the root (the replay's site filter has both) */
    if (!(*sites_buf = malloc((nsites + 1) * sizeof **sites_buf)))
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    memcpy(*sites_buf, sites, nsites * sizeof *sites);
    (*sites_buf)[nsites] = root;
    bo->sites = *sites_buf, bo->nsites = nsites + 1;
    return GT_OK;
}

/* The ids of the partners taken, growing as they come. */
struct id_list {
    int64_t root, *v;
    size_t n, cap;
};

static int id_push(struct id_list *l, int64_t id)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        int64_t *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        l->v = v, l->cap = cap;
    }
    l->v[l->n++] = id;
    return GT_OK;
}

/* The root's pairs, as one index probe lists them. */
struct root_pairs {
    struct id_list *l;
    char **names;           /* of l's ids, in order: n of them */
    size_t n, cap;
};

static void root_pairs_free(struct root_pairs *rp)
{
    for (size_t i = 0; i < rp->n; i++)
        free(rp->names[i]);
    free(rp->names);
}

/* gt_query_pair_ids_of's callback: a pair of the root */
static int take_named(void *ctx, int64_t src, const char *src_name, int64_t dst,
                      const char *dst_name)
{
    (void)src, (void)src_name;
    struct root_pairs *rp = ctx;
    if (rp->l->n == rp->cap) {
        size_t cap = rp->cap ? 2 * rp->cap : 64;
        char **v = realloc(rp->names, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        rp->names = v, rp->cap = cap;
    }
    if (!(rp->names[rp->n] = strdup(dst_name)))
        return GT_ENOMEM;
    rp->n++;
    return id_push(rp->l, dst);
}

/* Keep of l the ids of names[0..n) alone (names that are not partners
 * take no part). */
static int keep_named(struct id_list *l, char **pair_names, const char **names, size_t n)
{
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return GT_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < l->n; j++)
            if (!strcmp(names[i], pair_names[j])) {
                v[k++] = l->v[j];
                break;
            }
    free(l->v);
    l->v = v, l->n = k, l->cap = n ? n : 1;
    return GT_OK;
}

int gt_bt_scope_of(struct gt_db *db, const char *root, int64_t root_id, int64_t partners,
                   const char **names, size_t n, struct gt_bt_scope *out, struct gt_error *err)
{
    struct id_list l = {root_id, NULL, 0, 0};
    struct root_pairs rp = {&l, NULL, 0, 0};
    int rc = gt_query_pair_ids_of(db, root, take_named, &rp, err);
    if (rc == GT_OK && names)
        rc = keep_named(&l, rp.names, names, n);
    root_pairs_free(&rp);
    if (rc == GT_ENOMEM && !err->code)
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK) {
        if (l.n)   /* none named: no array to sort */
            qsort(l.v, l.n, sizeof *l.v, gt_cmp_int64);
        uint64_t h = 14695981039346656037ULL;
        size_t k = 0;
        for (size_t i = 0; i < l.n; i++) {
            if (i && l.v[i] == l.v[i - 1])
                continue;   /* named twice */
            for (int b = 0; b < 8; b++)
                h = (h ^ (uint64_t)((l.v[i] >> (8 * b)) & 0xff)) * 1099511628211ULL;
            k++;
        }
        *out = (struct gt_bt_scope){k, h, (int64_t)k == partners};
    }
    free(l.v);
    return rc;
}

/* ---------------------------------------------------------------- root order */

/* Each root is replayed into a result of its own, and the roots' results
 * are merged into the total in root order, whichever thread replayed
 * them and whenever it finished.  The errors' compensated sums (and any
 * floating-point sum) depend on the order of their terms: a running
 * result per thread, over the roots the thread happened to take, made
 * the last bits of RMSE, MAE and bias differ from run to run and with
 * --threads.  Merged in root order, the output is the same bit for bit
 * for any number of threads.
 *
 * A root done before its turn waits in the ring `held`; a thread takes
 * no root beyond the ring (merged + cap), so a slow root lets the others
 * run at most cap roots ahead, and at most cap roots' results (each the
 * size of a thread's result before) are alive at once. */

/* The next root to replay into *ri; false when none is left or the
 * replay stopped. */
static bool take_root(struct shared *sh, size_t *ri)
{
    mtx_lock(&sh->order);
    while (!sh->stop && sh->next < sh->nroots && sh->next >= sh->merged + sh->cap)
        cnd_wait(&sh->room, &sh->order);
    bool ok = !sh->stop && sh->next < sh->nroots;
    if (ok)
        *ri = sh->next++;
    mtx_unlock(&sh->order);
    return ok;
}

/* Root ri's result r (the ring takes ownership), then every result whose
 * turn has come merged into the total.  false on ENOMEM (the replay
 * stops). */
static bool hand_in(struct shared *sh, size_t ri, struct gt_bt_result *r)
{
    mtx_lock(&sh->order);
    sh->held[ri % sh->cap] = r;
    bool ok = true;
    struct gt_bt_result *h;
    while (ok && sh->merged < sh->next && (h = sh->held[sh->merged % sh->cap])) {
        ok = result_merge(sh->total, h);
        gt_bt_result_free(h);
        sh->held[sh->merged++ % sh->cap] = NULL;
    }
    sh->stop = sh->stop || !ok;
    cnd_broadcast(&sh->room);
    mtx_unlock(&sh->order);
    return ok;
}

static void stop_all(struct shared *sh)
{
    mtx_lock(&sh->order);
    sh->stop = true;
    cnd_broadcast(&sh->room);
    mtx_unlock(&sh->order);
}

/* Member i of the replay's team (parallel.h): worker i of the workers
 * (ctx), on its own connection, takes roots until none is left, each
 * into a result of its own handed in for the merge. */
static void worker_main(void *ctx, int i)
{
    struct worker *w = &((struct worker *)ctx)[i];
    size_t ri;
    while (!w->rc && take_root(w->sh, &ri)) {
        if (!(w->r = result_new(w->o))) {
            w->rc = gt_error_set(&w->err, GT_ENOMEM, NULL, "out of memory");
        } else {
            w->r->interval = w->sh->total->interval;
            w->rc = replay_root(w, ri);
        }
        if (!w->rc && !hand_in(w->sh, ri, w->r))
            w->rc = gt_error_set(&w->err, GT_ENOMEM, NULL, "out of memory");
        if (!w->rc)
            w->r = NULL;   /* the ring's now */
        else
            stop_all(w->sh);   /* the others stop too */
    }
}

static void worker_free(struct worker *w)
{
    window_free(w);
    free_series(w);
    free(w->par), free(w->g), free(w->win), free(w->lwin), free(w->emp), free(w->nwin);
    gt_emax_ws_free(w->ws);
    gt_bt_result_free(w->r);
    if (w->db && !w->lent)
        gt_db_close(w->db);
}

static int check_opts(const struct gt_bt_opts *o, struct gt_error *err)
{
    if (!o->nwindows || o->nwindows > GT_BT_MAX_WINDOWS || !o->ntaus ||
        o->ntaus > GT_BT_MAX_TAUS)
        return gt_error_set(err, GT_EUSAGE, NULL, "1 to %d windows and 1 to %d lead times",
                            GT_BT_MAX_WINDOWS, GT_BT_MAX_TAUS);
    for (size_t i = 0; i < o->nwindows; i++)
        if (o->windows[i] < 2 || o->windows[i] > GT_BT_MAX_WINDOW)
            return gt_error_set(err, GT_EUSAGE, NULL, "window %zu is not in [2, %d]",
                                o->windows[i], GT_BT_MAX_WINDOW);
    for (size_t i = 0; i < o->ntaus; i++)
        if (o->taus[i] < 1 || o->taus[i] > GT_BT_MAX_TAU)
            return gt_error_set(err, GT_EUSAGE, NULL, "lead time %ld is not in [1, %d]",
                                o->taus[i], GT_BT_MAX_TAU);
    unsigned meta = 1u << GT_BT_ADAPTIVE | 1u << GT_BT_COMBINED;
    if (!(o->methods & ((1u << GT_BT_NMETHODS) - 1)) || o->methods >> GT_BT_NMETHODS ||
        !(o->methods & ~meta))
        return gt_error_set(err, GT_EUSAGE, NULL, "no method to replay (adaptive and combined "
                            "need others to choose from)");
    if (o->calibration && (o->cal_window < 1 || o->cal_window > GT_CONF_MAX_WINDOW ||
                           !(o->cal_gamma >= 0 && o->cal_gamma <= 1)))
        return gt_error_set(err, GT_EUSAGE, NULL, "calibration: a window of 1 to %d outcomes "
                            "and a step in [0, 1]", GT_CONF_MAX_WINDOW);
    if (o->nlevels > GT_BT_MAX_LEVELS || (o->nlevels && !o->levels))
        return gt_error_set(err, GT_EUSAGE, NULL, "at most %d extra quantile levels",
                            GT_BT_MAX_LEVELS);
    for (size_t k = 0; k < o->nlevels; k++)
        if (!(o->levels[k] > 0 && o->levels[k] < 1))
            return gt_error_set(err, GT_EUSAGE, NULL, "a quantile level is in (0, 1)");
    if (!(o->shrink >= 0 && o->shrink <= 1))
        return gt_error_set(err, GT_EUSAGE, NULL, "the combination's shrinkage is in [0, 1]");
    if (!(o->verdict.max_ks >= 0 && o->verdict.max_ks <= 1) ||
        !(o->verdict.margin >= 0 && o->verdict.margin <= GT_VERDICT_MAX_MARGIN))
        return gt_error_set(err, GT_EUSAGE, NULL, "a verdict's KS limit is in [0, 1] and its "
                            "quantile margin in [0, %g]", GT_VERDICT_MAX_MARGIN);
    if (o->stride < 1 || o->interval < 0 || o->threads < 1 || o->threads > GT_BT_MAX_THREADS ||
        o->horizon > GT_TRACK_MAX_HORIZON || o->combine_horizon > GT_TRACK_MAX_HORIZON ||
        !(o->epsrel >= 0 && o->epsrel < 1))
        return gt_error_set(err, GT_EUSAGE, NULL, "bad stride, interval, threads, horizon "
                            "or tolerance");
    return GT_OK;
}

static int run(const char *db_path, long busy_timeout_ms, struct gt_db *lent,
               const struct gt_bt_opts *o, struct gt_bt_result **out, struct gt_error *err);

int gt_backtest_run(const char *db_path, long busy_timeout_ms, const struct gt_bt_opts *o,
                    struct gt_bt_result **out, struct gt_error *err)
{
    return run(db_path, busy_timeout_ms, NULL, o, out, err);
}

int gt_backtest_run_on(struct gt_db *db, const struct gt_bt_opts *o, struct gt_bt_result **out,
                       struct gt_error *err)
{
    return run(NULL, 0, db, o, out, err);
}

/* The replay on db_path's connections, or on one thread on lent. */
static int run(const char *db_path, long busy_timeout_ms, struct gt_db *lent,
               const struct gt_bt_opts *o, struct gt_bt_result **out, struct gt_error *err)
{
    *out = NULL;
    int rc = check_opts(o, err);
    if (rc)
        return rc;
    struct shared sh = {.o = o};
    struct collect c = {&sh, NULL};
    atomic_init(&sh.done, 0);
    for (size_t i = 0; i < o->nwindows; i++)
        sh.max_window = (int64_t)o->windows[i] > sh.max_window ? (int64_t)o->windows[i]
                                                                : sh.max_window;
    /* resumed, the sliders hold the windows: the slots from the one
       before the first moment are read, not a window's worth */
    sh.history = o->resume ? 1 : sh.max_window;
    for (size_t i = 0; i < o->ntaus; i++)
        sh.max_tau = o->taus[i] > sh.max_tau ? o->taus[i] : sh.max_tau;
    if (mtx_init(&sh.lock, mtx_plain) != thrd_success)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (mtx_init(&sh.order, mtx_plain) != thrd_success) {
        mtx_destroy(&sh.lock);
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    if (cnd_init(&sh.room) != thrd_success) {
        mtx_destroy(&sh.order);
        mtx_destroy(&sh.lock);
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    struct gt_db *db = lent;
    int64_t interval = o->interval;
    if (!lent)
        rc = gt_db_open(db_path, GT_DB_READ, busy_timeout_ms, &db, err);
    if (rc == GT_OK &&
        (rc = o->root ? gt_query_pair_ids_of(db, o->root, collect_pair, &c, err)
                      : gt_query_pair_ids(db, collect_pair, &c, err)) == GT_ENOMEM)
        gt_error_set(err, rc, NULL, "out of memory");
    free(c.npartners);
    if (rc == GT_OK && o->root && !sh.nroots)
        rc = gt_error_set(err, GT_ENOTFOUND, NULL, "root %s has no partner pairs in the store",
                          o->root);
    if (rc == GT_OK && !sh.nroots)
        rc = gt_error_set(err, GT_ENOTFOUND, NULL, "the store holds no pairs to replay");
    if (rc == GT_OK && !interval)
        rc = detect_interval(db, &sh, 20000, &interval, err);
    if (db && !lent)
        gt_db_close(db);
    int n = o->threads < (int)sh.nroots ? o->threads : (int)sh.nroots;
    n = lent && n > 1 ? 1 : n;
    struct worker *w = rc == GT_OK ? calloc((size_t)(n > 0 ? n : 1), sizeof *w) : NULL;
    /* a ring of twice the threads: each can be a root ahead of a slow one */
    sh.cap = 2 * (size_t)(n > 0 ? n : 1);
    if (rc == GT_OK && (!w || !(sh.held = calloc(sh.cap, sizeof *sh.held)) ||
                        !(sh.total = result_new(o))))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK)
        sh.total->interval = interval;
    for (int i = 0; rc == GT_OK && i < n; i++) {
        struct worker *x = &w[i];
        x->o = o, x->sh = &sh, x->first = i == 0;
        for (int j = 0; j < GT_BT_NMETHODS; j++)
            if (!GT_BT_IS_META(j) && wants(o, j))
                x->base[x->nbase++] = j;
        if (lent)
            x->db = lent, x->lent = true;
        else if ((rc = gt_db_open(db_path, GT_DB_READ, busy_timeout_ms, &x->db, err)))
            break;
        if (!(x->ws = gt_emax_ws_new()))
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    if (rc == GT_OK)
        gt_par_team_run(n, worker_main, w);
    for (int i = 0; rc == GT_OK && i < n; i++)
        if (w[i].rc) {
            *err = w[i].err;
            rc = w[i].rc;
        }
    if (rc == GT_OK) {   /* every root merged, in order */
        assert(sh.merged == sh.nroots);
        *out = sh.total;
        sh.total = NULL;
    }
    for (int i = 0; w && i < n; i++)
        worker_free(&w[i]);
    free(w);
    for (size_t i = 0; sh.held && i < sh.cap; i++)   /* left by a failure */
        gt_bt_result_free(sh.held[i]);
    free(sh.held);
    gt_bt_result_free(sh.total);
    shared_free(&sh);
    cnd_destroy(&sh.room);
    mtx_destroy(&sh.order);
    mtx_destroy(&sh.lock);
    return rc;
}
