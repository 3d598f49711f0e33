/*
 * calibrate.c - see calibrate.h.
 *
 * The replay reports each moment's quantiles at the levels asked
 * (gt_bt_opts.levels); the calibrators are run here over that stream
 * with the backtest's rule of when an outcome is known (its moment plus
 * the lead is at most the current moment less one sample), so that a
 * quantile answered live is calibrated as the backtest scores it.
 *
 * A kept state is the replay and its calibrators suspended after the
 * last "settled" moment: the one before the newest whose outcome is
 * stored, so that everything it read lies in slots before the anchor's
 * (the anchor's slot may still receive samples).  Resumed, it is fed the
 * moments after that one and gives, bit for bit, what one replay from the
 * same first moment gives: the replay engine hands its own state
 * (sliders, E[max] starts; backtest.h's suspend), the calibrators theirs
 * (conformal.h), and the moments whose outcomes they have not seen yet
 * are kept with their raw and issued quantiles.  The answer at an anchor
 * adds the newest moment to a copy.
 */
#define _POSIX_C_SOURCE 200809L
#include "calibrate.h"
#include "adaptive.h"
#include "db/fitcache.h"
#include "db/query.h"
#include "estimators/conformal.h"
#include "parallel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXL GT_BT_MAX_LEVELS

/* One replayed moment of the method calibrated. */
struct moment {
    int64_t t;
    double actual;
    double raw[MAXL], issued[MAXL];
};

/* The replay's moments, in order: each one's time, then its outcome and
 * raw quantiles (1 + nlevels values; a struct moment holds every level's
 * room twice, ten times what 3 levels need). */
struct stream {
    int method;
    size_t nlevels;
    int64_t *t;
    double *v;
    size_t n, cap;
    bool nomem;
};

static bool stream_grow(struct stream *s)
{
    size_t cap = s->cap ? 2 * s->cap : 256;
    int64_t *t = realloc(s->t, cap * sizeof *t);
    if (t)
        s->t = t;
    double *v = t ? realloc(s->v, cap * (1 + s->nlevels) * sizeof *v) : NULL;
    if (!v)
        return false;
    s->v = v, s->cap = cap;
    return true;
}

/* Moment i of s into m (its time, outcome and raw quantiles). */
static const struct moment *stream_at(const struct stream *s, size_t i, struct moment *m)
{
    const double *v = s->v + i * (1 + s->nlevels);
    m->t = s->t[i];
    m->actual = v[0];
    memcpy(m->raw, v + 1, s->nlevels * sizeof *m->raw);
    return m;
}

static void stream_free(struct stream *s)
{
    free(s->t);
    free(s->v);
}

static void on_moment(void *ctx, const struct gt_bt_moment *bm)
{
    struct stream *s = ctx;
    if (bm->method != s->method || !bm->lq || s->nomem)
        return;
    if (s->n == s->cap && !stream_grow(s)) {
        s->nomem = true;
        return;
    }
    double *v = s->v + s->n * (1 + s->nlevels);
    s->t[s->n++] = bm->t;
    v[0] = bm->actual;
    memcpy(v + 1, bm->lq, s->nlevels * sizeof *v);
}

/* The replay engine's state, as backtest.h's suspend hands it. */
struct engine {
    void *buf;
    size_t len;
    int64_t at;     /* the moment it was taken after (s) */
    bool taken, nomem;
};

static void on_suspend(void *ctx, const void *state, size_t len, int64_t at)
{
    struct engine *e = ctx;
    free(e->buf);
    e->buf = state ? malloc(len) : NULL;
    e->nomem = !e->buf;
    if (e->buf)
        memcpy(e->buf, state, len);
    e->len = e->buf ? len : 0;
    e->at = at;
    e->taken = e->buf != NULL;
}

/* ---------------------------------------------------------------- calibrators */

/* The calibrators of the levels and the moments whose outcomes they have
 * not seen yet. */
struct cal {
    size_t nlevels;
    double levels[MAXL];
    struct gt_conf *c[MAXL];
    struct moment *pend;
    size_t npend, cap;
    int64_t iv, lead;         /* s; samples */
    int64_t origin, last;     /* the first and the last moment fed (s) */
    int64_t moments;          /* fed in all */
};

static void cal_free(struct cal *k)
{
    for (size_t l = 0; l < k->nlevels; l++)
        gt_conf_free(k->c[l]);
    free(k->pend);
    memset(k, 0, sizeof *k);
}

static int cal_new(struct cal *k, const double *levels, size_t nl, size_t window, int64_t iv,
                   int64_t lead, struct gt_error *err)
{
    memset(k, 0, sizeof *k);
    struct gt_conf_opts co = {window, GT_BT_CAL_GAMMA};
    k->nlevels = nl, k->iv = iv, k->lead = lead;
    k->origin = k->last = INT64_MIN;
    memcpy(k->levels, levels, nl * sizeof *levels);
    for (size_t l = 0; l < nl; l++)
        if (!(k->c[l] = gt_conf_new(levels[l], &co))) {
            cal_free(k);
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        }
    return GT_OK;
}

static void observe(struct cal *k, const struct moment *m)
{
    for (size_t l = 0; l < k->nlevels; l++)
        gt_conf_observe(k->c[l], m->raw[l], m->issued[l], m->actual);
}

/* The next moment: the outcomes known by then (moment + lead <= it - one
 * slot) first, then its quantiles issued as calibrated now. */
static int cal_feed(struct cal *k, const struct moment *m, struct gt_error *err)
{
    size_t known = 0;
    while (known < k->npend && k->pend[known].t + k->lead * k->iv <= m->t - k->iv)
        observe(k, &k->pend[known++]);
    if (known)
        memmove(k->pend, k->pend + known, (k->npend - known) * sizeof *k->pend);
    k->npend -= known;
    if (k->npend == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 16;
        struct moment *p = realloc(k->pend, cap * sizeof *p);
        if (!p)
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        k->pend = p, k->cap = cap;
    }
    struct moment *p = &k->pend[k->npend++];
    *p = *m;
    for (size_t l = 0; l < k->nlevels; l++)
        p->issued[l] = gt_conf_adjust(k->c[l], m->raw[l]);
    if (k->origin == INT64_MIN)
        k->origin = m->t;
    k->last = m->t;
    k->moments++;
    return GT_OK;
}

/* Every outcome counted (the answer's end: they are all stored). */
static void cal_finish(struct cal *k)
{
    for (size_t i = 0; i < k->npend; i++)
        observe(k, &k->pend[i]);
    k->npend = 0;
}

/* ---------------------------------------------------------------- kept states */

/* A kept state after its gt_calibstate_head: this, then the pending
 * moments (t, actual, raw and issued at each level), the engine's bytes
 * and each level's calibrator. */
#define STATE_VERSION 1u
struct saved {
    uint32_t version, nlevels;
    int64_t iv, lead, origin, last, moments;
    int64_t settled;          /* the engine's last moment (s) */
    int64_t answered;         /* the anchor of the answer below; INT64_MIN: none */
    int64_t outcomes, ready;
    double levels[MAXL], factor[MAXL];
    uint64_t npend, engine_len, conf_len[MAXL];
};

static size_t moment_bytes(size_t nl)
{
    return 2 * sizeof(int64_t) + 2 * nl * sizeof(double);
}

/* k and the engine's bytes as a state to keep (head first); NULL on
 * ENOMEM. */
static char *state_encode(const struct cal *k, const struct engine *e, int64_t read_before,
                          size_t *len)
{
    struct saved h = {STATE_VERSION, (uint32_t)k->nlevels, k->iv, k->lead, k->origin, k->last,
                      k->moments, e->at, INT64_MIN, 0, 0, {0}, {0}, k->npend, e->len, {0}};
    memcpy(h.levels, k->levels, k->nlevels * sizeof *k->levels);
    size_t n = sizeof(struct gt_calibstate_head) + sizeof h + k->npend * moment_bytes(k->nlevels) +
               e->len;
    for (size_t l = 0; l < k->nlevels; l++)
        n += h.conf_len[l] = gt_conf_state_size(k->c[l]);
    char *buf = malloc(n), *p = buf;
    if (!buf)
        return NULL;
    /* used: the newest moment fed, later the anchor answered (answer()):
       "least recently used" in the data's time, the same for any thread
       or run that keeps it */
    struct gt_calibstate_head head = {read_before, INT64_MIN, k->last};
    memcpy(p, &head, sizeof head), p += sizeof head;
    memcpy(p, &h, sizeof h), p += sizeof h;
    for (size_t i = 0; i < k->npend; i++) {
        const struct moment *m = &k->pend[i];
        double actual = m->actual;
        memcpy(p, &m->t, sizeof m->t), p += sizeof m->t;
        memcpy(p, &actual, sizeof actual), p += sizeof(int64_t);
        memcpy(p, m->raw, k->nlevels * sizeof *m->raw), p += k->nlevels * sizeof *m->raw;
        memcpy(p, m->issued, k->nlevels * sizeof *m->issued), p += k->nlevels * sizeof(double);
    }
    if (e->len)   /* (none for adaptive's and combined's answers) */
        memcpy(p, e->buf, e->len), p += e->len;
    for (size_t l = 0; l < k->nlevels; l++)
        gt_conf_state_save(k->c[l], p), p += h.conf_len[l];
    *len = n;
    return buf;
}

/* Times and lengths a state this build wrote can hold (a corrupt one
 * must not reach the arithmetic). */
#define STATE_TIME_MAX (INT64_C(1) << 61)
#define STATE_IV_MAX (INT64_C(1) << 31)

static bool state_sane(const struct saved *h)
{
    bool ok = h->version == STATE_VERSION && h->nlevels >= 1 && h->nlevels <= MAXL &&
              h->npend <= 1000000 && h->iv > 0 && h->iv <= STATE_IV_MAX && h->lead >= 1 &&
              h->lead <= GT_BT_MAX_TAU && h->moments >= 0;
    int64_t t[3] = {h->origin, h->last, h->settled};
    for (int i = 0; i < 3; i++)
        ok = ok && (t[i] == INT64_MIN || (t[i] > -STATE_TIME_MAX && t[i] < STATE_TIME_MAX));
    return ok;
}

/* A kept state read back: its head h, k and the engine's bytes (into e,
 * pointing into buf); false when buf is not one this build wrote for
 * window W, whole: every length is checked against what is left before
 * it is read. */
static bool state_decode(const char *buf, size_t len, size_t window, struct saved *h,
                         struct cal *k, struct engine *e)
{
    if (len < sizeof(struct gt_calibstate_head) + sizeof *h)
        return false;
    const char *p = buf + sizeof(struct gt_calibstate_head);
    size_t left = len - sizeof(struct gt_calibstate_head) - sizeof *h;
    memcpy(h, p, sizeof *h), p += sizeof *h;
    if (!state_sane(h))
        return false;
    size_t mb = moment_bytes(h->nlevels), need = (size_t)h->npend * mb;
    if (need > left || h->engine_len > left - need)
        return false;
    uint64_t rest = left - need - h->engine_len, total = 0;
    for (size_t l = 0; l < h->nlevels; l++) {
        if (h->conf_len[l] > rest - total)
            return false;
        total += h->conf_len[l];
    }
    if (total != rest)
        return false;
    struct gt_error err = {0};
    if (cal_new(k, h->levels, h->nlevels, window, h->iv, h->lead, &err)) {
        gt_error_clear(&err);
        return false;
    }
    k->origin = h->origin, k->last = h->last, k->moments = h->moments;
    if (!(k->pend = malloc((h->npend + 1) * sizeof *k->pend))) {
        cal_free(k);
        return false;
    }
    k->cap = (size_t)h->npend + 1;
    for (size_t i = 0; i < h->npend; i++, k->npend++) {
        struct moment *m = &k->pend[i];
        memcpy(&m->t, p, sizeof m->t), p += sizeof m->t;
        memcpy(&m->actual, p, sizeof m->actual), p += sizeof(int64_t);
        memcpy(m->raw, p, h->nlevels * sizeof *m->raw), p += h->nlevels * sizeof(double);
        memcpy(m->issued, p, h->nlevels * sizeof *m->issued), p += h->nlevels * sizeof(double);
        if (!(m->t > -STATE_TIME_MAX && m->t < STATE_TIME_MAX)) {
            cal_free(k);
            return false;
        }
    }
    e->buf = (void *)p, e->len = (size_t)h->engine_len, e->at = h->settled, e->taken = true;
    p += h->engine_len;
    for (size_t l = 0; l < h->nlevels; l++) {
        gt_conf_free(k->c[l]);
        struct gt_conf_opts co = {window, GT_BT_CAL_GAMMA};
        k->c[l] = gt_conf_state_load(h->levels[l], &co, p, (size_t)h->conf_len[l]);
        p += h->conf_len[l];
        if (!k->c[l]) {
            cal_free(k);
            return false;
        }
    }
    return true;
}

/* Level index of x in levels[0..n), or -1. */
static int level_index(const double *levels, size_t n, double x)
{
    for (size_t l = 0; l < n; l++)
        if (levels[l] == x)
            return (int)l;
    return -1;
}

/* ---------------------------------------------------------------- the answer */

static int check(const struct gt_calib_opts *o, struct gt_error *err)
{
    if (o->outcomes < 1 || o->outcomes > GT_CALIB_MAX_OUTCOMES || o->nlevels < 1 ||
        o->nlevels > GT_BT_MAX_LEVELS || o->method == GT_BT_LAST || o->method < 0 ||
        o->method >= GT_BT_NMETHODS)
        return gt_error_set(err, GT_EUSAGE, "calibration", "calibration: 1 to %d outcomes "
                            "and 1 to %d levels of a method with quantiles",
                            GT_CALIB_MAX_OUTCOMES, GT_BT_MAX_LEVELS);
    return GT_OK;
}

/* out as the model's quantiles (factor 1, nothing replayed) at anchor. */
static void none(struct gt_calib *out, int64_t anchor)
{
    bool current = out->current;
    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < GT_BT_MAX_LEVELS; k++)
        out->factor[k] = 1;
    out->anchor = anchor;
    out->current = current;
}

void gt_calib_release(struct gt_calib *c)
{
    free(c->state);
    c->state = NULL;
    c->state_len = 0;
}

/* The cache key: every option the factors depend on but the window (the
 * row's own) and the levels (the state's), and the partners replayed. */
static void cache_key(const struct gt_calib_opts *o, const struct gt_bt_scope *sc, char *buf,
                      size_t size)
{
    /* "calib3": the state of the replay and its calibrators, resumed */
    snprintf(buf, size, "calib3:%s:%.17gs:%zu:%zu:%s:%.17g:%.17g:%zu:%016llx",
             gt_bt_method_name(o->method), o->horizon_s, o->outcomes, o->adaptive_outcomes,
             o->cut_paper ? "paper" : "censor", o->verdict.max_ks, o->verdict.margin, sc->count,
             (unsigned long long)sc->hash);
}

/* The key of a state's answer row: its head alone, read first. */
static void answer_key(const char *key, char *buf, size_t size)
{
    size_t n = strlen(key) + 2;   /* "calib3" + 'a' + the rest, NUL */
    if (n > size)
        n = size;
    buf[0] = '\0';
    if (size < 8)
        return;
    memcpy(buf, "calib3a", 7);
    memcpy(buf + 7, key + 6, n - 8);
    buf[n - 1] = '\0';
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return q - (a % b != 0 && (a < 0) != (b < 0));
}

/* The slot of a time, as the replay aligns samples (backtest.c). */
static int64_t slot_of(int64_t ts, int64_t iv)
{
    return floor_div(ts + iv / 2, iv);
}

/* What one answer runs: the replay's options, the levels it computes,
 * the moments it feeds and where the kept part ends. */
struct plan {
    struct gt_bt_opts bo;
    const char **sites;       /* bo's site list (freed) */
    double levels[MAXL];
    size_t nlevels;
    int64_t last;             /* the newest moment whose outcome is stored (s) */
    int64_t settled;          /* the moment before it: the kept part's end (s) */
};

/* The replay of root's moments in [first, last] as o asks it, at the
 * levels of plan (set by the caller), resumed from e when it is given. */
static int run_replay(struct gt_db *db, struct plan *pl, const struct gt_calib_opts *o,
                      int64_t first, const struct engine *resume, struct stream *s,
                      struct engine *suspended, struct gt_error *err)
{
    struct gt_bt_opts bo = pl->bo;
    bo.from = first;
    bo.methods = 1u << o->method;
    if (GT_BT_IS_META(o->method))   /* adaptive, combined: and their candidates */
        bo.methods |= gt_adapt_methods();
    bo.horizon = o->adaptive_outcomes;
    bo.verdict = o->verdict;
    bo.cut_paper = o->cut_paper;
    bo.calibration = true;
    bo.levels = pl->levels, bo.nlevels = pl->nlevels;
    bo.levels_only = true;
    bo.moment = on_moment, bo.moment_ctx = s;
    bo.stop = o->stop, bo.stop_ctx = o->stop_ctx;
    /* adaptive's and combined's trackers are not kept: replayed whole */
    bool keep = !GT_BT_IS_META(o->method);
    if (keep && resume)
        bo.resume = resume->buf, bo.resume_len = resume->len;
    if (keep && pl->settled >= first)
        bo.suspend = on_suspend, bo.suspend_ctx = suspended, bo.suspend_at = pl->settled;
    struct gt_bt_result *r = NULL;
    int rc = gt_backtest_run_on(db, &bo, &r, err);
    gt_bt_result_free(r);
    if (rc == GT_OK && (s->nomem || suspended->nomem))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    return rc;
}

/* Feed s's moments to k: those up to the kept part's end, then (into the
 * state to keep, *state) a snapshot when the engine e was taken there,
 * then the rest.  Without an engine's state (adaptive's and combined's
 * trackers are not kept) the state to keep is the answer alone, made of
 * every sample up to the anchor. */
static int feed(struct cal *k, const struct stream *s, const struct plan *pl,
                const struct engine *e, int64_t read_before, int64_t anchor, char **state,
                size_t *state_len, struct gt_error *err)
{
    size_t i = 0;
    int rc = GT_OK;
    struct moment m;
    for (; rc == GT_OK && i < s->n && s->t[i] <= pl->settled; i++)
        rc = cal_feed(k, stream_at(s, i, &m), err);
    bool resumable = e->taken && e->at == pl->settled;
    if (rc == GT_OK && resumable && !(*state = state_encode(k, e, read_before, state_len)))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (; rc == GT_OK && i < s->n; i++)
        rc = cal_feed(k, stream_at(s, i, &m), err);
    if (rc == GT_OK)
        cal_finish(k);
    struct engine none = {NULL, 0, INT64_MIN, false, false};
    if (rc == GT_OK && !resumable && !(*state = state_encode(k, &none, anchor + 1, state_len)))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    return rc;
}

/* The answer of k (finished) at o's levels into out; the state to keep,
 * if any, learns it too. */
static void answer(const struct cal *k, const struct gt_calib_opts *o, int64_t anchor,
                   char *state, struct gt_calib *out)
{
    size_t W = o->outcomes;
    out->outcomes = (size_t)(k->moments < (int64_t)W ? k->moments : (int64_t)W);
    out->origin = k->origin;
    int64_t ready = 0;
    for (size_t l = 0; l < k->nlevels; l++)
        ready |= (int64_t)gt_conf_ready(k->c[l]) << l;
    for (size_t q = 0; q < o->nlevels; q++) {
        int l = level_index(k->levels, k->nlevels, o->levels[q]);
        out->factor[q] = gt_conf_adjust(k->c[l], 1);
        out->ready[q] = (ready >> l) & 1;
    }
    if (!state)
        return;
    struct saved h;
    char *p = state + sizeof(struct gt_calibstate_head);
    memcpy(&h, p, sizeof h);
    h.answered = anchor;
    h.outcomes = (int64_t)out->outcomes;
    h.ready = ready;
    for (size_t l = 0; l < k->nlevels; l++)
        h.factor[l] = gt_conf_adjust(k->c[l], 1);
    memcpy(p, &h, sizeof h);
    struct gt_calibstate_head head;
    memcpy(&head, state, sizeof head);
    head.answer_before = anchor + 1;   /* a sample up to the anchor redoes the answer */
    head.used = anchor;
    memcpy(state, &head, sizeof head);
}

/* out from a kept state's answer (buf, len bytes), when it is for this
 * anchor and was not made stale since, and holds every level asked: read
 * from its head alone. */
static bool from_answer(const char *buf, size_t len, int64_t anchor,
                        const struct gt_calib_opts *o, struct gt_calib *out)
{
    struct gt_calibstate_head head;
    struct saved sv, *h = &sv;
    if (!buf || len < sizeof head + sizeof sv)
        return false;
    memcpy(&head, buf, sizeof head);
    memcpy(&sv, buf + sizeof head, sizeof sv);
    if (!state_sane(&sv) || h->answered != anchor || head.answer_before != anchor + 1)
        return false;
    for (size_t q = 0; q < o->nlevels; q++)
        if (level_index(h->levels, h->nlevels, o->levels[q]) < 0)
            return false;
    out->outcomes = (size_t)h->outcomes;
    out->origin = h->origin;
    out->lead = h->lead;
    out->interval = h->iv;
    for (size_t q = 0; q < o->nlevels; q++) {
        int l = level_index(h->levels, h->nlevels, o->levels[q]);
        out->factor[q] = h->factor[l];
        out->ready[q] = (h->ready >> l) & 1;
    }
    out->cached = true;
    return true;
}

/* The levels a replay computes: the kept state's (when it has every one
 * asked), else those asked and, room permitting, the state's too. */
static void plan_levels(struct plan *pl, const struct gt_calib_opts *o, const struct saved *h,
                        bool *covers)
{
    *covers = h != NULL;
    for (size_t q = 0; h && q < o->nlevels; q++)
        *covers = *covers && level_index(h->levels, h->nlevels, o->levels[q]) >= 0;
    if (*covers) {
        memcpy(pl->levels, h->levels, h->nlevels * sizeof *h->levels);
        pl->nlevels = h->nlevels;
        return;
    }
    memcpy(pl->levels, o->levels, o->nlevels * sizeof *o->levels);
    pl->nlevels = o->nlevels;
    for (size_t l = 0; h && l < h->nlevels && pl->nlevels < MAXL; l++)
        if (level_index(pl->levels, pl->nlevels, h->levels[l]) < 0)
            pl->levels[pl->nlevels++] = h->levels[l];
}

/* Whether the kept state h can go on to this answer: the same interval
 * and lead, not past its newest moment, and at most W moments behind
 * (further, a new replay of W moments costs less). */
static bool resumable(const struct saved *h, const struct plan *pl, size_t W)
{
    int64_t iv = pl->bo.interval;
    return h->engine_len && h->iv == iv && h->lead == pl->bo.taus[0] &&
           h->settled <= pl->settled && (pl->settled - h->settled) / iv <= (int64_t)W;
}

/* The interval a kept state began with (0: none, or not a state that can
 * go on): it goes on at that one (detecting it reads a thousand samples
 * of 16 partners). */
static int64_t kept_interval(const char *buf, size_t len)
{
    struct saved h;
    if (!buf || len < sizeof(struct gt_calibstate_head) + sizeof h)
        return 0;
    memcpy(&h, buf + sizeof(struct gt_calibstate_head), sizeof h);
    return state_sane(&h) && h.engine_len ? h.iv : 0;
}

static int calibrate_at(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                        int64_t anchor, const char *buf, size_t len, int64_t first,
                        struct gt_calib *out, struct gt_error *err);

/* A new replay (no state) at the levels o asks and those the state h
 * kept, so that the state it makes serves both; out at o's levels. */
static int replay_wider(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                        int64_t anchor, const struct saved *h, int64_t first,
                        struct gt_calib *out, struct gt_error *err)
{
    struct plan pl;
    bool covers;
    plan_levels(&pl, o, h, &covers);
    struct gt_calib_opts wider = *o;
    wider.levels = pl.levels, wider.nlevels = pl.nlevels;
    int rc = calibrate_at(db, root, &wider, anchor, NULL, 0, first, out, err);
    double factor[MAXL];
    bool ready[MAXL];
    memcpy(factor, out->factor, sizeof factor);
    memcpy(ready, out->ready, sizeof ready);
    for (size_t q = 0; rc == GT_OK && q < o->nlevels; q++) {   /* in the order asked */
        int l = level_index(pl.levels, pl.nlevels, o->levels[q]);
        out->factor[q] = factor[l];
        out->ready[q] = ready[l];
    }
    return rc;
}

/* The replay of pl from the kept state (k, kept; have) or from scratch,
 * fed to k: the state to keep and the answer into out.  GT_EINPUT when
 * the state does not fit the store's partners. */
static int run_and_feed(struct gt_db *db, const struct gt_calib_opts *o, int64_t anchor,
                        struct plan *pl, struct cal *k, const struct engine *kept,
                        const struct saved *h, int64_t from, struct gt_calib *out,
                        struct gt_error *err)
{
    int64_t iv = pl->bo.interval;
    struct stream s = {o->method, pl->nlevels, NULL, NULL, 0, 0, false};
    struct engine next = {0};
    int rc = run_replay(db, pl, o, from, h ? kept : NULL, &s, &next, err);
    /* everything kept read slots before the anchor's */
    int64_t read_before = (slot_of(anchor, iv) * iv) - iv / 2;
    char *state = NULL;
    if (rc == GT_OK) {   /* no moment to keep since: the engine as it was */
        const struct engine *e = h && pl->settled == h->settled ? kept : &next;
        rc = feed(k, &s, pl, e, read_before, anchor, &state, &out->state_len, err);
    }
    out->state = state;
    if (rc == GT_OK)
        answer(k, o, anchor, state, out);
    stream_free(&s);
    free(next.buf);
    return rc;
}

/* The calibration at anchor: from the kept state buf (len bytes; NULL:
 * none) when it fits, else replayed from W moments back (or from first,
 * a slot's time); the state to keep, and the answer, into out. */
static int calibrate_at(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                        int64_t anchor, const char *buf, size_t len, int64_t first,
                        struct gt_calib *out, struct gt_error *err)
{
    if (first != INT64_MIN)
        buf = NULL;   /* a replay from a given moment on: no state */
    if (from_answer(buf, len, anchor, o, out))
        return GT_OK;   /* nothing new since the answer kept */
    struct plan pl = {0};
    int rc = gt_bt_last_moments(db, root, o->window, o->horizon_s, o->outcomes, anchor,
                                kept_interval(buf, len), o->sites, o->nsites, &pl.bo,
                                &pl.sites, err);
    if (rc)
        return rc;
    out->lead = pl.bo.taus[0];
    out->interval = pl.bo.interval;
    pl.last = pl.bo.to;
    pl.settled = pl.last - pl.bo.interval;
    struct saved h;
    struct cal k = {0};
    struct engine kept = {0};
    bool have = buf && state_decode(buf, len, o->outcomes, &h, &k, &kept), covers;
    plan_levels(&pl, o, have ? &h : NULL, &covers);
    if (buf && (!have || !covers || !resumable(&h, &pl, o->outcomes))) {
        /* the state cannot go on: a new replay (that detects the interval) */
        cal_free(&k);
        free(pl.sites);
        return have ? replay_wider(db, root, o, anchor, &h, first, out, err)
                    : calibrate_at(db, root, o, anchor, NULL, 0, first, out, err);
    }
    int64_t from = have ? h.settled + pl.bo.interval : first != INT64_MIN ? first : pl.bo.from;
    out->resumed = have;
    if (!have)
        rc = cal_new(&k, pl.levels, pl.nlevels, o->outcomes, pl.bo.interval, out->lead, err);
    if (rc == GT_OK)
        rc = run_and_feed(db, o, anchor, &pl, &k, &kept, have ? &h : NULL, from, out, err);
    cal_free(&k);
    free(pl.sites);
    if (rc == GT_EINPUT && have) {   /* the state does not fit: a new replay */
        gt_error_clear(err);
        gt_calib_release(out);
        out->resumed = false;
        return calibrate_at(db, root, o, anchor, NULL, 0, first, out, err);
    }
    return rc;
}

/* calibrate_at, where nothing to replay or a stop gives the model's
 * quantiles. */
static int calibrate(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                     int64_t anchor, const char *buf, size_t len, int64_t first,
                     struct gt_calib *out, struct gt_error *err)
{
    int rc = calibrate_at(db, root, o, anchor, buf, len, first, out, err);
    if (rc == GT_ENOTFOUND || rc == GT_EINPUT || (rc == GT_EINTR && o->stop)) {
        /* nothing to replay (the partners named have no pairs, or too few
           samples to tell the interval), or stopped: the model's
           quantiles; the estimate says what is missing */
        gt_calib_release(out);
        none(out, anchor);
        out->stopped = rc == GT_EINTR;
        gt_error_clear(err);
        return GT_OK;
    }
    if (rc)
        gt_calib_release(out);
    return rc;
}

/* Check o, find root and the anchor; *done when nothing is stored for
 * root (out then holds the model's quantiles). */
static int start(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                 int64_t *id, int64_t *partners, int64_t *anchor, bool *done,
                 struct gt_calib *out, struct gt_error *err)
{
    int64_t newest = INT64_MIN;
    out->current = false;
    none(out, INT64_MIN);
    *done = true;
    int rc = check(o, err);
    if (rc)
        return rc;
    if ((rc = gt_query_root_newest(db, root, id, partners, &newest, err)))
        return rc == GT_ENOTFOUND ? GT_OK : rc;   /* nothing stored: the model's */
    *anchor = newest < o->at ? newest : o->at;
    out->current = newest <= o->at;
    none(out, *anchor);
    *done = false;
    return GT_OK;
}

/* A replay from first (INT64_MIN: W moments back), or with a kept state
 * when use_kept. */
static int track(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                 bool use_kept, int64_t first, struct gt_calib *out, struct gt_error *err)
{
    int64_t id, partners, anchor;
    bool done;
    int rc = start(db, root, o, &id, &partners, &anchor, &done, out, err);
    if (rc || done)
        return rc;
    /* a newest sample near the ends of int64 (a probe with a broken clock)
       has no W moments before it to replay: the model's quantiles */
    if (!(anchor > -STATE_TIME_MAX && anchor < STATE_TIME_MAX))
        return GT_OK;
    struct gt_bt_scope sc;
    if ((rc = gt_bt_scope_of(db, root, id, partners, o->sites, o->nsites, &sc, err)))
        return rc;
    void *buf = NULL, *state;
    size_t len = 0, slen;
    bool found = false;
    bool keepable = sc.count;
    if (keepable && use_kept) {
        char key[200], akey[200];
        cache_key(o, &sc, key, sizeof key);
        answer_key(key, akey, sizeof akey);
        /* the answer's row first: a few hundred bytes where the state's
           are W scores a level */
        rc = gt_calibstate_load(db, (long)o->window, akey, id, &buf, &len, &found, err);
        if (rc == GT_OK && found && from_answer(buf, len, anchor, o, out)) {
            free(buf);
            out->root_id = id, out->scope = sc;
            return GT_OK;
        }
        /* the state: a server's copy when the answer row is its head */
        bool copied = rc == GT_OK && found && o->memo &&
                      gt_calib_memo_get(o->memo, id, (long)o->window, key, buf, len, &state,
                                        &slen);
        free(buf);
        buf = copied ? state : NULL;
        len = copied ? slen : 0;
        if (rc == GT_OK && !copied)
            rc = gt_calibstate_load(db, (long)o->window, key, id, &buf, &len, &found, err);
    }
    if (rc == GT_OK)
        rc = calibrate(db, root, o, anchor, found ? buf : NULL, len, first, out, err);
    free(buf);
    if (rc == GT_OK) {
        out->root_id = id, out->scope = sc;
        if (!keepable)
            gt_calib_release(out);
    }
    return rc;
}

int gt_calib_replay(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                    struct gt_calib *out, struct gt_error *err)
{
    return track(db, root, o, false, INT64_MIN, out, err);
}

int gt_calib_replay_from(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                         int64_t first, struct gt_calib *out, struct gt_error *err)
{
    return track(db, root, o, false, first, out, err);
}

int gt_calib_track(struct gt_db *db, const char *root, const struct gt_calib_opts *o,
                   struct gt_calib *out, struct gt_error *err)
{
    return track(db, root, o, true, INT64_MIN, out, err);
}

int gt_calib_save(struct gt_db *db, const struct gt_calib_opts *o, const struct gt_calib *c,
                  struct gt_error *err)
{
    if (!c->state || c->stopped || !c->scope.count)
        return GT_OK;   /* nothing to keep */
    char key[200], akey[200];
    cache_key(o, &c->scope, key, sizeof key);
    answer_key(key, akey, sizeof akey);
    size_t alen = sizeof(struct gt_calibstate_head) + sizeof(struct saved);
    int rc = gt_calibstate_save(db, (long)o->window, key, c->root_id, c->state, c->state_len,
                                err);
    if (rc == GT_OK && c->state_len >= alen)   /* its head: the answer alone */
        rc = gt_calibstate_save(db, (long)o->window, akey, c->root_id, c->state, alen, err);
    if (rc == GT_OK && o->memo && c->state_len >= alen)
        gt_calib_memo_put(o->memo, c->root_id, (long)o->window, key, c->state, c->state_len);
    return rc ? rc : gt_calibstate_trim(db, c->root_id, 2 * GT_CALIB_KEEP, err);
}

void gt_calib_key(const struct gt_calib_opts *o, const struct gt_bt_scope *sc, char *buf,
                  size_t size)
{
    cache_key(o, sc, buf, size);
}

/* ---------------------------------------------------------------- states kept */

static int method_named(const char *name)
{
    for (int m = 0; m < GT_BT_NMETHODS; m++)
        if (!strcmp(gt_bt_method_name(m), name))
            return m;
    return -1;
}

/* The options and scope of key (cache_key's): false when it is not one
 * cache_key writes (read back, it must write the same key again). */
static bool opts_of_key(const char *key, struct gt_calib_opts *o, struct gt_bt_scope *sc)
{
    char method[32], cut[16], again[GT_CALIB_KEY_MAX];
    unsigned long long hash;
    int end = 0;
    if (sscanf(key, "calib3:%31[^:]:%lfs:%zu:%zu:%15[^:]:%lf:%lf:%zu:%llx%n", method,
               &o->horizon_s, &o->outcomes, &o->adaptive_outcomes, cut, &o->verdict.max_ks,
               &o->verdict.margin, &sc->count, &hash, &end) != 9 || key[end] ||
        (o->method = method_named(method)) < 0)
        return false;
    o->cut_paper = !strcmp(cut, "paper");
    sc->hash = hash;
    sc->all = false;
    cache_key(o, sc, again, sizeof again);
    return !strcmp(again, key);
}

struct kept_list {
    struct gt_calib_kept *v;
    size_t n, cap;
};

/* gt_calibstate_each's callback: a state that can go on, with its
 * options, levels and partners. */
static int take_kept(void *ctx, long window, const char *key, const void *buf, size_t len)
{
    struct kept_list *l = ctx;
    struct gt_calib_kept k;
    memset(&k, 0, sizeof k);
    struct gt_bt_scope sc;
    struct saved h;
    size_t at = sizeof(struct gt_calibstate_head) + sizeof h;
    if (window < 1 || strlen(key) >= sizeof k.key || !opts_of_key(key, &k.o, &sc) ||
        len < at)
        return GT_OK;
    memcpy(&h, (const char *)buf + sizeof(struct gt_calibstate_head), sizeof h);
    if (!state_sane(&h) || !h.engine_len)
        return GT_OK;   /* adaptive's and combined's: an answer alone */
    at += (size_t)h.npend * moment_bytes(h.nlevels);
    if (at > len || h.engine_len > len - at)
        return GT_OK;
    k.names = gt_bt_suspended_partners((const char *)buf + at, (size_t)h.engine_len, &k.nnames);
    if (!k.names || k.nnames != sc.count) {
        gt_bt_names_free(k.names, k.nnames);
        return GT_OK;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        struct gt_calib_kept *v = realloc(l->v, cap * sizeof *v);
        if (!v) {
            gt_bt_names_free(k.names, k.nnames);
            return GT_ENOMEM;
        }
        l->v = v, l->cap = cap;
    }
    snprintf(k.key, sizeof k.key, "%s", key);
    k.o.window = (size_t)window;
    k.o.at = INT64_MAX;
    memcpy(k.levels, h.levels, h.nlevels * sizeof *h.levels);
    k.o.nlevels = h.nlevels;
    l->v[l->n++] = k;
    return GT_OK;
}

int gt_calib_kept_list(struct gt_db *db, int64_t root_id, struct gt_calib_kept **out,
                       size_t *n, struct gt_error *err)
{
    struct kept_list l = {0};
    int rc = gt_calibstate_each(db, root_id, "calib3:", take_kept, &l, err);
    for (size_t i = 0; i < l.n; i++) {   /* where they stay now */
        l.v[i].o.levels = l.v[i].levels;
        l.v[i].o.sites = (const char **)l.v[i].names;
        l.v[i].o.nsites = l.v[i].nnames;
    }
    if (rc) {
        gt_calib_kept_free(l.v, l.n);
        l.v = NULL, l.n = 0;
    }
    *out = l.v;
    *n = l.n;
    return rc;
}

void gt_calib_kept_free(struct gt_calib_kept *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        gt_bt_names_free(v[i].names, v[i].nnames);
    free(v);
}

/* gt_par_run's job: calibration i. */
static int track_job(void *ctx, struct gt_db *db, size_t i, struct gt_error *err)
{
    struct gt_calib_job *j = (struct gt_calib_job *)ctx + i;
    return gt_calib_track(db, j->root, &j->o, &j->out, err);
}

int gt_calib_track_many(struct gt_db *db, struct gt_calib_job *jobs, size_t n, int threads,
                        void (*progress)(void *ctx, double done, double total),
                        void *progress_ctx, struct gt_error *err)
{
    return gt_par_run(db, n, threads, track_job, jobs, progress, progress_ctx, err);
}
