/*
 * pairfits.c - pair fits for the advisor: the fit cache first, samples
 * second, a memo in front of both.
 *
 * Sites are interned (name -> index, with the store's id); a pair is the
 * key src index << 32 | dst index into an open-addressing table of entry
 * numbers.  Entries live in fixed chunks so the pointers handed out stay
 * put while the table grows.  The cache records of one source site at a
 * time sit in a reused buffer: callers ask for a root's pairs together, and
 * touching fresh memory for every root's records would cost more than
 * reading them again (a page fault per 4 KiB).  Each site keeps the
 * records of current windows fitted here, to be written back.
 */
#define _POSIX_C_SOURCE 200809L
#include "pairfits.h"
#include "base/interrupt.h"
#include "base/prefault.h"
#include "base/util.h"
#include "db/fitcache.h"
#include "db/query.h"

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 4096

struct site {
    char *name;
    uint64_t hash;
    int64_t id;                   /* 0: the store has no such site */
    struct gt_fit_rec *fresh;     /* current windows fitted here */
    size_t nfresh, capfresh;
};

struct entry {
    uint64_t key;
    struct gt_pairfit f;
    char *why;
    double *xs;                   /* the window's values, once asked for */
    size_t nxs;
};

struct gt_pairfits {
    struct gt_db *db;
    size_t window;
    enum gt_fit_choice choice;
    int64_t at;
    struct gt_series_reader *reader;
    bool in_txn;
    int64_t data_version;

    struct site *sites;
    size_t nsites, capsites;
    uint32_t *site_slots;         /* index + 1, 0 = empty */
    size_t site_cap;

    struct entry **chunks;
    size_t nentries, capchunks;
    uint32_t *slots;              /* entry number + 1, 0 = empty */
    size_t cap;

    struct gt_fit_rec *recs;      /* cache records of site recs_site */
    size_t nrecs, caprecs;
    uint32_t recs_site;           /* UINT32_MAX: none loaded */

    int64_t *ts_buf;
    double *v_buf, *sort_buf;
    size_t fitted, cached;
    void (*progress)(void *ctx, size_t pairs);   /* see gt_pairfits_on_progress */
    void *progress_ctx;
    size_t visited;
};

static const char *choice_name(enum gt_fit_choice c)
{
    return c == GT_FIT_PARETO ? "pareto" : c == GT_FIT_NORMAL ? "normal" : "auto";
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static uint64_t hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* Start (or restart) the snapshot every read goes through. */
static int begin_snapshot(struct gt_pairfits *p, struct gt_error *err)
{
    p->in_txn = false;
    if (gt_db_in_transaction(p->db))
        return GT_OK;   /* the caller's transaction */
    int rc = gt_db_begin_read(p->db, err);
    if (rc == GT_OK)
        p->in_txn = true;
    return rc ? rc : gt_db_data_version(p->db, &p->data_version, err);
}

struct gt_pairfits *gt_pairfits_new(struct gt_db *db, size_t window, enum gt_fit_choice choice,
                                    int64_t at, struct gt_error *err)
{
    struct gt_pairfits *p = calloc(1, sizeof *p);
    if (!p) {
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    p->db = db;
    p->window = window;
    p->choice = choice;
    p->at = at;
    p->cap = 1024;
    p->site_cap = 256;
    p->recs_site = UINT32_MAX;
    p->slots = calloc(p->cap, sizeof *p->slots);
    p->site_slots = calloc(p->site_cap, sizeof *p->site_slots);
    p->ts_buf = malloc(window * sizeof *p->ts_buf);
    p->v_buf = malloc(window * sizeof *p->v_buf);
    p->sort_buf = malloc(window * sizeof *p->sort_buf);
    if (!p->slots || !p->site_slots || !p->ts_buf || !p->v_buf || !p->sort_buf) {
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        gt_pairfits_free(p);
        return NULL;
    }
    if (gt_series_reader_new(db, &p->reader, err) != GT_OK ||
        begin_snapshot(p, err) != GT_OK) {
        gt_pairfits_free(p);
        return NULL;
    }
    return p;
}

void gt_pairfits_free(struct gt_pairfits *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nsites; i++) {
        free(p->sites[i].name);
        free(p->sites[i].fresh);
    }
    free(p->sites);
    free(p->site_slots);
    for (size_t i = 0; i < p->nentries; i++) {
        free(p->chunks[i / CHUNK][i % CHUNK].why);
        free(p->chunks[i / CHUNK][i % CHUNK].xs);
    }
    for (size_t i = 0; i * CHUNK < p->nentries; i++) {
        if (i == 0)
            free(p->chunks[i]);
        else
            gt_prefault_free(p->chunks[i], CHUNK * sizeof **p->chunks);
    }
    free(p->chunks);
    free(p->slots);
    free(p->recs);
    free(p->ts_buf);
    free(p->v_buf);
    free(p->sort_buf);
    gt_series_reader_free(p->reader);
    if (p->in_txn)
        gt_db_rollback(p->db);
    free(p);
}

size_t gt_pairfits_fitted(const struct gt_pairfits *p)
{
    return p->fitted;
}

size_t gt_pairfits_cached(const struct gt_pairfits *p)
{
    return p->cached;
}

/* ------------------------------------------------------------ sites */

static uint32_t *site_slot(uint32_t *slots, size_t cap, const struct site *sites,
                           const char *name, uint64_t h)
{
    for (size_t i = h & (cap - 1);; i = (i + 1) & (cap - 1))
        if (!slots[i] || (sites[slots[i] - 1].hash == h && !strcmp(sites[slots[i] - 1].name, name)))
            return &slots[i];
}

static int sites_grow(struct gt_pairfits *p)
{
    size_t cap = p->site_cap * 2;
    uint32_t *s = calloc(cap, sizeof *s);
    if (!s)
        return GT_ENOMEM;
    for (size_t i = 0; i < p->nsites; i++)
        *site_slot(s, cap, p->sites, p->sites[i].name, p->sites[i].hash) = (uint32_t)i + 1;
    free(p->site_slots);
    p->site_slots = s;
    p->site_cap = cap;
    return GT_OK;
}

/* The index of site `name`; id < 0: look it up in the store. */
static int intern_site(struct gt_pairfits *p, const char *name, int64_t id, uint32_t *out,
                       struct gt_error *err)
{
    uint64_t h = hash_str(name);
    uint32_t *slot = site_slot(p->site_slots, p->site_cap, p->sites, name, h);
    if (*slot) {
        *out = *slot - 1;
        return GT_OK;
    }
    if (p->nsites >= UINT32_MAX - 1)
        return gt_error_set(err, GT_ENOMEM, NULL, "too many sites");
    if (id < 0) {
        int rc = gt_series_site(p->reader, name, &id, err);
        if (rc == GT_ENOTFOUND)
            id = 0;
        else if (rc)
            return rc;
    }
    if (p->nsites == p->capsites) {
        size_t cap = p->capsites ? p->capsites * 2 : 64;
        struct site *s = realloc(p->sites, cap * sizeof *s);
        if (!s)
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        p->sites = s;
        p->capsites = cap;
    }
    struct site *s = &p->sites[p->nsites];
    memset(s, 0, sizeof *s);
    if (!(s->name = strdup(name)))
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    s->hash = h;
    s->id = id;
    *slot = (uint32_t)p->nsites + 1;
    *out = (uint32_t)p->nsites++;
    if (p->nsites * 2 > p->site_cap && sites_grow(p))
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    return GT_OK;
}

static int by_dst(const void *a, const void *b)
{
    int64_t x = ((const struct gt_fit_rec *)a)->dst, y = ((const struct gt_fit_rec *)b)->dst;
    return (x > y) - (x < y);
}

static const struct gt_fit_rec *cached_rec(struct gt_pairfits *p, uint32_t si, int64_t dst,
                                           struct gt_error *err, int *rc)
{
    *rc = GT_OK;
    if (p->recs_site != si) {
        p->recs_site = UINT32_MAX;
        *rc = gt_fitcache_load(p->db, (long)p->window, choice_name(p->choice), p->sites[si].id,
                               &p->recs, &p->caprecs, &p->nrecs, err);
        if (*rc)
            return NULL;
        p->recs_site = si;
    }
    struct gt_fit_rec key = {.dst = dst};
    return p->nrecs ? bsearch(&key, p->recs, p->nrecs, sizeof key, by_dst) : NULL;
}

/* ------------------------------------------------------------ entries */

static uint32_t *entry_slot(const struct gt_pairfits *p, uint32_t *slots, size_t cap,
                            uint64_t key)
{
    for (size_t i = hash_u64(key) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        uint32_t e = slots[i];
        if (!e || p->chunks[(e - 1) / CHUNK][(e - 1) % CHUNK].key == key)
            return &slots[i];
    }
}

static int entries_grow(struct gt_pairfits *p)
{
    size_t cap = p->cap * 2;
    uint32_t *s = calloc(cap, sizeof *s);
    if (!s)
        return GT_ENOMEM;
    for (size_t i = 0; i < p->nentries; i++)
        *entry_slot(p, s, cap, p->chunks[i / CHUNK][i % CHUNK].key) = (uint32_t)i + 1;
    free(p->slots);
    p->slots = s;
    p->cap = cap;
    return GT_OK;
}

static struct entry *new_entry(struct gt_pairfits *p, uint64_t key)
{
    if ((p->nentries + 1) * 2 > p->cap && entries_grow(p))
        return NULL;
    if (p->nentries % CHUNK == 0) {
        size_t c = p->nentries / CHUNK;
        if (c == p->capchunks) {
            size_t cap = p->capchunks ? p->capchunks * 2 : 16;
            struct entry **ch = realloc(p->chunks, cap * sizeof *ch);
            if (!ch)
                return NULL;
            p->chunks = ch;
            p->capchunks = cap;
        }
        /* the first chunk from malloc: a request of a few pairs touches a
           page or two of it, where populating all of it cost a quarter of
           a served estimate; searches over many pairs fill the rest */
        p->chunks[c] = c ? gt_prefault_alloc(CHUNK * sizeof **p->chunks)
                         : malloc(CHUNK * sizeof **p->chunks);
        if (!p->chunks[c])
            return NULL;
    }
    struct entry *e = &p->chunks[p->nentries / CHUNK][p->nentries % CHUNK];
    memset(e, 0, sizeof *e);
    e->key = key;
    e->f.median = NAN;
    *entry_slot(p, p->slots, p->cap, key) = (uint32_t)++p->nentries;
    return e;
}

static void set_why(struct entry *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_why(struct entry *e, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    if (len >= 0 && (e->why = malloc((size_t)len + 1)))
        vsnprintf(e->why, (size_t)len + 1, fmt, ap2);
    va_end(ap2);
    va_end(ap);
    e->f.why = e->why ? e->why : "no usable samples";
}

/* ------------------------------------------------------------ fitting */

_Static_assert(sizeof ((struct gt_fit_rec *)0)->bounds_lo ==
               sizeof ((struct gt_quantile_bounds *)0)->lo, "a record holds every bound");

static void from_rec(struct entry *e, const struct gt_fit_rec *r, const char *src,
                     const char *dst)
{
    struct gt_pairfit *f = &e->f;
    f->model = r->model[0] ? gt_model_find(r->model) : NULL;
    f->found = f->model != NULL;
    f->p[0] = r->p[0];
    f->p[1] = r->p[1];
    f->samples = (size_t)r->samples;
    f->first_ts = r->first_ts;
    f->last_ts = r->last_ts;
    f->last_valid_ts = r->last_valid_ts;
    f->last_value = r->last_value;
    f->median = r->median;
    f->valid = (size_t)r->valid;
    f->filled = (size_t)r->filled;
    f->outage_since = r->outage_since;
    f->ks = r->ks;
    f->chi2 = r->chi2;
    f->other = r->other_model[0] ? gt_model_find(r->other_model) : NULL;
    f->other_p[0] = r->other_p[0];
    f->other_p[1] = r->other_p[1];
    f->other_ks = r->other_ks;
    f->other_chi2 = r->other_chi2;
    memcpy(f->bounds.lo, r->bounds_lo, sizeof f->bounds.lo);
    memcpy(f->bounds.hi, r->bounds_hi, sizeof f->bounds.hi);
    f->bounds.hi_max = (unsigned)r->bounds_hi_max;
    if (!f->found)
        set_why(e, "fewer than 2 valid samples for %s -> %s up to the given time", src, dst);
}

static struct gt_fit_rec to_rec(const struct gt_pairfit *f, int64_t dst)
{
    struct gt_fit_rec r;
    memset(&r, 0, sizeof r);
    r.dst = dst;
    r.samples = (int64_t)f->samples;
    r.first_ts = f->first_ts;
    r.last_ts = f->last_ts;
    r.last_valid_ts = f->last_valid_ts;
    r.last_value = f->last_value;
    r.median = f->median;
    r.valid = (int64_t)f->valid;
    r.filled = (int64_t)f->filled;
    r.outage_since = f->outage_since;
    r.ks = f->ks;
    r.chi2 = f->chi2;
    r.p[0] = f->p[0];
    r.p[1] = f->p[1];
    if (f->found)
        snprintf(r.model, sizeof r.model, "%s", f->model->name);
    r.other_p[0] = f->other_p[0];
    r.other_p[1] = f->other_p[1];
    r.other_ks = f->other_ks;
    r.other_chi2 = f->other_chi2;
    memcpy(r.bounds_lo, f->bounds.lo, sizeof r.bounds_lo);
    memcpy(r.bounds_hi, f->bounds.hi, sizeof r.bounds_hi);
    r.bounds_hi_max = f->bounds.hi_max;
    if (f->other)
        snprintf(r.other_model, sizeof r.other_model, "%s", f->other->name);
    return r;
}

static int keep_fresh(struct site *s, const struct gt_fit_rec *r)
{
    if (s->nfresh == s->capfresh) {
        size_t cap = s->capfresh ? s->capfresh * 2 : 64;
        struct gt_fit_rec *v = realloc(s->fresh, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        s->fresh = v;
        s->capfresh = cap;
    }
    s->fresh[s->nfresh++] = *r;
    return GT_OK;
}

/* Read and fit the window of s -> d at p->at into e. */
static int fit_from_samples(struct gt_pairfits *p, struct site *s, const struct site *d,
                            struct entry *e, struct gt_error *err)
{
    struct gt_pairfit *f = &e->f;
    size_t n;
    int64_t newest;
    struct gt_prior prior;
    int rc = gt_series_read(p->reader, s->id, d->id, p->at, p->window, p->ts_buf, p->v_buf,
                            p->window, &n, &newest, &prior, err);
    if (rc == GT_ENOTFOUND) {
        set_why(e, "no samples for %s -> %s", s->name, d->name);
        return GT_OK;
    }
    if (rc)
        return rc;
    p->fitted++;
    size_t valid = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(p->v_buf[i])) {
            p->sort_buf[valid++] = p->v_buf[i];
            f->last_value = p->v_buf[i];
            f->last_valid_ts = p->ts_buf[i];
        }
    f->samples = n;
    if (n) {
        f->first_ts = p->ts_buf[0];
        f->last_ts = p->ts_buf[n - 1];
    }
    if (s == d && valid) {
        qsort(p->sort_buf, valid, sizeof *p->sort_buf, gt_cmp_double);
        f->median = gt_quantile_sorted(p->sort_buf, valid, 0.5);
    }
    if (valid == 0 && prior.found) {   /* an outage: the data are as old as the prior */
        f->last_value = prior.rtt;
        f->last_valid_ts = prior.ts;
    }
    struct gt_fit fit;
    struct gt_error ferr = {0};
    int frc = n ? gt_fit_series(p->v_buf, p->ts_buf, n, prior.found ? prior.rtt : NAN,
                                prior.ts, p->choice, &fit, &ferr)
                : GT_EINPUT;
    if (frc == GT_OK) {
        f->found = true;
        f->model = fit.selected;
        f->p[0] = fit.p[0];
        f->p[1] = fit.p[1];
        f->first_ts = fit.first_ts;
        f->valid = fit.valid;
        f->filled = fit.filled;
        f->outage_since = fit.outage_since;
        f->bounds = fit.bounds;
        const struct gt_model_fit *sel = fit.selected == &gt_model_pareto ? &fit.pareto
                                       : fit.selected == &gt_model_normal ? &fit.normal : NULL;
        f->ks = sel ? sel->ks : NAN;
        f->chi2 = sel ? sel->chi2 : NAN;
        const struct gt_model_fit *oth = !sel ? NULL : sel == &fit.pareto ? &fit.normal
                                                                           : &fit.pareto;
        if (oth && oth->ok) {
            f->other = sel == &fit.pareto ? &gt_model_normal : &gt_model_pareto;
            memcpy(f->other_p, oth->p, sizeof f->other_p);
            f->other_ks = oth->ks;
            f->other_chi2 = oth->chi2;
        }
    } else if (n == 0 || fit.m < 2) {
        set_why(e, "fewer than 2 valid samples for %s -> %s up to the given time", s->name,
                d->name);
    } else {
        set_why(e, "%s -> %s: %s", s->name, d->name, ferr.msg);
        return GT_OK;   /* not cached: the reason would be lost */
    }
    /* only the pair's current window describes it for later queries */
    bool current = n > 0 && newest <= p->at;
    if (current) {
        struct gt_fit_rec r = to_rec(f, d->id);
        if (keep_fresh(s, &r))
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    return GT_OK;
}

static int lookup(struct gt_pairfits *p, uint32_t si, uint32_t di,
                  const struct gt_pairfit **out, struct gt_error *err)
{
    uint64_t key = (uint64_t)si << 32 | di;
    uint32_t *slot = entry_slot(p, p->slots, p->cap, key);
    if (*slot) {
        *out = &p->chunks[(*slot - 1) / CHUNK][(*slot - 1) % CHUNK].f;
        return GT_OK;
    }
    struct entry *e = new_entry(p, key);
    if (!e)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    *out = &e->f;
    struct site *s = &p->sites[si], *d = &p->sites[di];
    if (!s->id || !d->id) {   /* told apart from a known pair without samples */
        set_why(e, "unknown site '%s' (not in the store)", !s->id ? s->name : d->name);
        return GT_OK;
    }
    int rc;
    const struct gt_fit_rec *r = cached_rec(p, si, d->id, err, &rc);
    if (rc)
        return rc;
    if (r && r->last_ts <= p->at) {
        p->cached++;
        from_rec(e, r, s->name, d->name);
        return GT_OK;
    }
    return fit_from_samples(p, s, d, e, err);
}

int gt_pairfits_get(struct gt_pairfits *p, const char *src, const char *dst,
                    const struct gt_pairfit **out, struct gt_error *err)
{
    uint32_t si, di;
    int rc;
    if ((rc = intern_site(p, src, -1, &si, err)) || (rc = intern_site(p, dst, -1, &di, err)))
        return rc;
    return lookup(p, si, di, out, err);
}

/* Read s -> d's window at p->at again, its values into e (the fit itself
 * may have come from the cache, which keeps no samples). */
static int read_values(struct gt_pairfits *p, const struct site *s, const struct site *d,
                       struct entry *e, struct gt_error *err)
{
    size_t n;
    int64_t newest;
    struct gt_prior prior;
    int rc = gt_series_read(p->reader, s->id, d->id, p->at, p->window, p->ts_buf, p->v_buf,
                            p->window, &n, &newest, &prior, err);
    if (rc == GT_ENOTFOUND)
        return GT_OK;
    if (rc)
        return rc;
    if (!(e->xs = malloc((n ? n : 1) * sizeof *e->xs)))
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    e->nxs = gt_fit_window_values(p->v_buf, n, prior.found ? prior.rtt : NAN, e->xs);
    return GT_OK;
}

int gt_pairfits_samples(struct gt_pairfits *p, const char *src, const char *dst,
                        const double **xs, size_t *n, struct gt_error *err)
{
    uint32_t si, di;
    const struct gt_pairfit *f;
    int rc;
    *xs = NULL;
    *n = 0;
    if ((rc = intern_site(p, src, -1, &si, err)) || (rc = intern_site(p, dst, -1, &di, err)) ||
        (rc = lookup(p, si, di, &f, err)))
        return rc;
    struct entry *e = (struct entry *)((char *)f - offsetof(struct entry, f));
    if (!f->found)
        return GT_OK;
    if (!e->xs && (rc = read_values(p, &p->sites[si], &p->sites[di], e, err)))
        return rc;
    *xs = e->xs;
    *n = e->nxs;
    return GT_OK;
}

struct all_ctx {
    struct gt_pairfits *p;
    struct gt_error *err;
    int64_t part, nparts;
};

static int fit_one(void *ctx, int64_t src, const char *src_name, int64_t dst,
                   const char *dst_name)
{
    struct all_ctx *c = ctx;
    uint32_t si, di;
    const struct gt_pairfit *f;
    int rc;
    if (src % c->nparts != c->part)
        return GT_OK;
    if (gt_interrupted())
        return gt_error_set(c->err, GT_EINTR, NULL, "interrupted");
    if (c->p->progress && ++c->p->visited % 64 == 0)
        c->p->progress(c->p->progress_ctx, c->p->visited);
    if ((rc = intern_site(c->p, src_name, src, &si, c->err)) ||
        (rc = intern_site(c->p, dst_name, dst, &di, c->err)))
        return rc;
    return lookup(c->p, si, di, &f, c->err);
}

void gt_pairfits_on_progress(struct gt_pairfits *p, void (*fn)(void *ctx, size_t pairs),
                             void *ctx)
{
    p->progress = fn;
    p->progress_ctx = ctx;
}

int gt_pairfits_all(struct gt_pairfits *p, struct gt_error *err)
{
    return gt_pairfits_all_part(p, 0, 1, err);
}

int gt_pairfits_all_part(struct gt_pairfits *p, int part, int nparts, struct gt_error *err)
{
    struct all_ctx c = {p, err, part, nparts};
    return gt_query_pair_ids(p->db, fit_one, &c, err);
}

int gt_pairfits_adopt(struct gt_pairfits *p, struct gt_pairfits *from, struct gt_error *err)
{
    for (size_t i = 0; i < from->nsites; i++) {
        struct site *s = &from->sites[i];
        uint32_t si;
        int rc = s->nfresh ? intern_site(p, s->name, s->id, &si, err) : GT_OK;
        for (size_t k = 0; rc == GT_OK && k < s->nfresh; k++)
            if (keep_fresh(&p->sites[si], &s->fresh[k]))
                rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        if (rc)
            return rc;
        s->nfresh = 0;
    }
    p->fitted += from->fitted;
    p->cached += from->cached;
    from->fitted = from->cached = 0;
    return GT_OK;
}

/* ------------------------------------------------------------ saving */

/* s's stored records with its fresh ones (which win), by dst, into *out. */
static int merged(struct gt_pairfits *p, struct site *s, struct gt_fit_rec **out, size_t *n,
                  struct gt_error *err)
{
    struct gt_fit_rec *old = NULL;
    size_t cap = 0, nold = 0;
    int rc = gt_fitcache_load(p->db, (long)p->window, choice_name(p->choice), s->id, &old,
                              &cap, &nold, err);
    if (rc) {
        free(old);
        return rc;
    }
    qsort(s->fresh, s->nfresh, sizeof *s->fresh, by_dst);
    if (!(*out = malloc((nold + s->nfresh) * sizeof **out))) {
        free(old);
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    size_t i = 0, j = 0, k = 0;
    while (i < nold || j < s->nfresh) {
        if (j == s->nfresh || (i < nold && old[i].dst < s->fresh[j].dst))
            (*out)[k++] = old[i++];
        else {
            i += i < nold && old[i].dst == s->fresh[j].dst;
            (*out)[k++] = s->fresh[j++];
        }
    }
    *n = k;
    free(old);
    return GT_OK;
}

static int save_sites(struct gt_pairfits *p, size_t *saved, struct gt_error *err)
{
    for (size_t i = 0; i < p->nsites; i++) {
        struct site *s = &p->sites[i];
        if (!s->nfresh)
            continue;
        struct gt_fit_rec *all = NULL;
        size_t n = 0;
        int rc = merged(p, s, &all, &n, err);
        if (rc == GT_OK)
            rc = gt_fitcache_save(p->db, (long)p->window, choice_name(p->choice), s->id, all,
                                  n, err);
        free(all);
        if (rc)
            return rc;
        *saved += s->nfresh;
        s->nfresh = 0;
    }
    p->recs_site = UINT32_MAX;   /* what the buffer holds may be out of date */
    return GT_OK;
}

int gt_pairfits_save(struct gt_pairfits *p, bool wait, size_t *saved, bool *stale,
                     struct gt_error *err)
{
    return gt_pairfits_save_also(p, wait, true, NULL, NULL, saved, stale, err);
}

int gt_pairfits_save_also(struct gt_pairfits *p, bool wait, bool fits,
                          int (*also)(void *ctx, struct gt_db *db, struct gt_error *err),
                          void *ctx, size_t *saved, bool *stale, struct gt_error *err)
{
    *saved = 0;
    *stale = false;
    size_t pending = 0;
    for (size_t i = 0; fits && i < p->nsites; i++)
        pending += p->sites[i].nfresh;
    if ((!pending && !also) || !p->in_txn)
        return GT_OK;
    gt_db_rollback(p->db);   /* end the read snapshot */
    p->in_txn = false;
    int64_t version;
    int rc = GT_OK;
    if (wait && (rc = gt_db_begin(p->db, err)) != GT_OK) {
        /* waited the whole busy timeout: the lock's holder is the cause */
    } else if (!wait && (also ? gt_db_try_begin_within(p->db, GT_PAIRFITS_SAVE_WAIT_MS)
                              : gt_db_try_begin(p->db)) != GT_OK) {
        *stale = true;
    } else {
        rc = gt_db_data_version(p->db, &version, err);
        *stale = rc == GT_OK && version != p->data_version;
        if (rc == GT_OK && !*stale && fits)
            rc = save_sites(p, saved, err);
        if (rc == GT_OK && !*stale && also)
            rc = also(ctx, p->db, err);
        if (rc == GT_OK)
            rc = gt_db_commit(p->db, err);
        if (rc) {
            gt_db_rollback(p->db);
            *saved = 0;
        }
    }
    int rc2 = begin_snapshot(p, rc ? NULL : err);
    return rc ? rc : rc2;
}
