/*
 * copy.c - see copy.h.  The source is read in one snapshot, in export
 * order (pair, ts, seq): once for its digests, once to copy.  Sites are
 * made in the source's id order and pairs in its pair order, so that the
 * target's export lists the pairs in the same order as the source's.
 */
#define _POSIX_C_SOURCE 200809L
#include "copy.h"
#include "query.h"
#include "store.h"
#include "base/interrupt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROGRESS_EVERY 4096

/* ------------------------------------------------------------ digests */

struct digests {
    struct gt_copy_digest *v;
    size_t n, cap;
    long long total;
    enum gt_copy_phase phase;
    const struct gt_copy_opts *o;
};

static void digests_free(struct digests *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].src);
        free(d->v[i].dst);
    }
    free(d->v);
    memset(d, 0, sizeof *d);
}

/* splitmix64's finalizer: every input bit moves about half the output */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* A lost sample's bits: a NaN that no stored RTT has. */
#define LOST_BITS 0xfff8000000000001ULL

static uint64_t sample_hash(int64_t ts, int64_t seq, double rtt)
{
    uint64_t bits = LOST_BITS;
    if (!isnan(rtt)) {
        double v = rtt == 0 ? 0.0 : rtt;   /* -0 and 0 are one value */
        memcpy(&bits, &v, sizeof bits);
    }
    return mix(mix(mix((uint64_t)ts) ^ (uint64_t)seq) ^ bits);
}

static void progress(const struct gt_copy_opts *o, enum gt_copy_phase phase, long long done,
                     long long total)
{
    if (o->on_progress && done % PROGRESS_EVERY == 0)
        o->on_progress(o->ctx, phase, done, total);
}

static int digest_push(struct digests *d, const char *src, const char *dst)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 256;
        struct gt_copy_digest *v = realloc(d->v, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        d->v = v, d->cap = cap;
    }
    struct gt_copy_digest *g = &d->v[d->n];
    *g = (struct gt_copy_digest){strdup(src), strdup(dst), 0, 0};
    if (!g->src || !g->dst) {
        free(g->src);
        free(g->dst);
        return GT_ENOMEM;
    }
    d->n++;
    return GT_OK;
}

static bool same_pair(const struct gt_copy_digest *g, const char *src, const char *dst)
{
    return g && !strcmp(g->src, src) && !strcmp(g->dst, dst);
}

static int digest_row(void *ctx, int64_t ts, const char *src, const char *dst, int64_t seq,
                      double rtt)
{
    struct digests *d = ctx;
    if (gt_interrupted())
        return GT_EINTR;
    int rc;
    if (!same_pair(d->n ? &d->v[d->n - 1] : NULL, src, dst) &&
        (rc = digest_push(d, src, dst)) != GT_OK)
        return rc;
    struct gt_copy_digest *g = &d->v[d->n - 1];
    g->samples++;
    g->sum += sample_hash(ts, seq, rtt);
    progress(d->o, d->phase, ++d->total, 0);
    return GT_OK;
}

/* Every pair's digest of db, in its export order. */
static int digest(struct gt_db *db, enum gt_copy_phase phase, const struct gt_copy_opts *o,
                  struct digests *d, struct gt_error *err)
{
    memset(d, 0, sizeof *d);
    d->phase = phase;
    d->o = o;
    struct gt_export_filter all = {0};
    progress(o, phase, 0, 0);
    int rc = gt_query_export(db, &all, digest_row, d, err);
    if (rc)
        gt_error_set(err, rc, gt_db_address(db), "%s", gt_strerror(rc));
    return rc;
}

static int cmp_names(const void *a, const void *b)
{
    const struct gt_copy_digest *x = a, *y = b;
    int c = strcmp(x->src, y->src);
    return c ? c : strcmp(x->dst, y->dst);
}

/* d sorted by names, for find */
static void digests_sort(struct digests *d)
{
    if (d->n)
        qsort(d->v, d->n, sizeof *d->v, cmp_names);
}

static const struct gt_copy_digest *find(const struct digests *sorted, const char *src,
                                         const char *dst)
{
    struct gt_copy_digest key = {(char *)src, (char *)dst, 0, 0};
    return sorted->n ? bsearch(&key, sorted->v, sorted->n, sizeof key, cmp_names) : NULL;
}

static bool alike(const struct gt_copy_digest *a, const struct gt_copy_digest *b)
{
    return a && b && a->samples == b->samples && a->sum == b->sum;
}

/* ------------------------------------------------------------ comparing */

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* Why two sites of one name differ, or NULL. */
static const char *site_difference(const struct gt_site_row *a, const struct gt_site_row *b)
{
    if (!same_text(a->cluster, b->cluster) || !same_text(a->domain, b->domain) ||
        a->has_coords != b->has_coords ||
        (a->has_coords && (a->latitude != b->latitude || a->longitude != b->longitude)))
        return "its attributes differ";
    if (a->pairs_out != b->pairs_out || a->pairs_in != b->pairs_in)
        return "its pairs differ";
    return NULL;
}

static void site_mismatch(const struct gt_copy_opts *o, struct gt_copy_result *res,
                          const char *name, const char *why)
{
    res->mismatches++;
    if (o->on_site_mismatch)
        o->on_site_mismatch(o->ctx, name, why);
}

/* Both stores' sites, by name in both (byte order). */
static int compare_sites(struct gt_db *from, struct gt_db *to, const struct gt_copy_opts *o,
                         struct gt_copy_result *res, struct gt_error *err)
{
    struct gt_site_row *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    int rc = gt_query_sites(from, &a, &na, err);
    if (rc == GT_OK)
        rc = gt_query_sites(to, &b, &nb, err);
    res->sites = (long)na;
    for (size_t i = 0, j = 0; rc == GT_OK && (i < na || j < nb);) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].name, b[j].name);
        const char *why = c < 0 ? "not in the target" : c > 0 ? "not in the source"
                                                      : site_difference(&a[i], &b[j]);
        if (why)
            site_mismatch(o, res, c > 0 ? b[j].name : a[i].name, why);
        i += c <= 0;
        j += c >= 0;
    }
    gt_sites_free(a, na);
    gt_sites_free(b, nb);
    return rc;
}

static void pair_mismatch(const struct gt_copy_opts *o, struct gt_copy_result *res,
                          const struct gt_copy_digest *a, const struct gt_copy_digest *b)
{
    res->mismatches++;
    if (o->on_mismatch)
        o->on_mismatch(o->ctx, a, b);
}

/* The target's digests against the source's (fd, in the source's order). */
static int compare(struct gt_db *from, struct gt_db *to, const struct digests *fd,
                   const struct gt_copy_opts *o, struct gt_copy_result *res,
                   struct gt_error *err)
{
    struct digests td = {0};
    int rc = gt_db_begin_read(to, err);
    if (rc == GT_OK && (rc = digest(to, GT_COPY_READ_TO, o, &td, err)) == GT_OK)
        rc = compare_sites(from, to, o, res, err);
    gt_db_rollback(to);
    if (rc) {
        digests_free(&td);
        return rc;
    }
    digests_sort(&td);
    bool *seen = calloc(td.n ? td.n : 1, sizeof *seen);
    if (!seen) {
        digests_free(&td);
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    for (size_t i = 0; i < fd->n; i++) {
        const struct gt_copy_digest *t = find(&td, fd->v[i].src, fd->v[i].dst);
        if (t)
            seen[t - td.v] = true;
        if (!alike(&fd->v[i], t))
            pair_mismatch(o, res, &fd->v[i], t);
    }
    for (size_t j = 0; j < td.n; j++)
        if (!seen[j])
            pair_mismatch(o, res, NULL, &td.v[j]);
    free(seen);
    digests_free(&td);
    return GT_OK;
}

/* ------------------------------------------------------------ copying */

struct copier {
    struct gt_db *to;
    struct gt_store *store;
    const struct gt_copy_opts *o;
    struct gt_copy_result *res;
    const struct digests *from;    /* the source's digests, in its order */
    const struct digests *there;   /* the target's before the copy, sorted */
    size_t next;                   /* the source's digest of the next pair */
    const struct gt_copy_digest *cur;   /* the pair being read */
    bool writing;                  /* its samples go to the target (a transaction is open) */
    int64_t pair;                  /* its id in the target */
    long in_txn;                   /* samples queued since the last commit */
    long long done;                /* samples read */
    long long copied, already, conflicts;   /* not committed yet */
    struct gt_error *err;
};

static int on_written(void *ctx, const struct gt_sample_put *v, size_t n)
{
    struct copier *c = ctx;
    for (size_t i = 0; i < n; i++) {
        enum gt_sample_fate f = v[i].out.what;
        if (f == GT_SAMPLE_DUPLICATE) {
            c->already++;
        } else if (f == GT_SAMPLE_CONFLICT) {
            c->conflicts++;
            if (c->o->on_conflict)
                c->o->on_conflict(c->o->ctx, c->cur->src, c->cur->dst, v[i].ts, v[i].seq,
                                  v[i].rtt_ms, v[i].out.stored_rtt);
        } else {
            c->copied++;
        }
    }
    return GT_OK;
}

static int commit(struct copier *c)
{
    int rc = gt_store_drain(c->store, c->err);
    if (rc == GT_OK)
        rc = gt_store_flush_changes(c->store, c->err);
    if (rc == GT_OK)
        rc = gt_db_commit(c->to, c->err);
    if (rc)
        return rc;
    c->res->copied += c->copied;
    c->res->already += c->already;
    c->res->conflicts += c->conflicts;
    c->copied = c->already = c->conflicts = 0;
    c->in_txn = 0;
    return GT_OK;
}

/* The next pair of the source starts: skipped when the target holds its
 * samples already, else written in a transaction of its own. */
static int pair_begin(struct copier *c, const char *src, const char *dst)
{
    if (c->next >= c->from->n || !same_pair(&c->from->v[c->next], src, dst))
        return gt_error_set(c->err, GT_EDB, NULL, "%s -> %s: the source's samples came in "
                            "another order on the second read of one snapshot", src, dst);
    c->cur = &c->from->v[c->next++];
    if (alike(c->cur, find(c->there, src, dst))) {
        c->res->already += c->cur->samples;
        return GT_OK;
    }
    c->res->pairs_written++;
    int64_t a, b;
    int rc = gt_db_begin(c->to, c->err);
    c->writing = rc == GT_OK;
    if (rc == GT_OK)
        rc = gt_store_site(c->store, src, strlen(src), &a, c->err);
    if (rc == GT_OK)
        rc = gt_store_site(c->store, dst, strlen(dst), &b, c->err);
    if (rc == GT_OK)
        rc = gt_store_pair(c->store, a, b, &c->pair, c->err);
    return rc;
}

static int pair_end(struct copier *c)
{
    if (!c->writing)
        return GT_OK;
    c->writing = false;
    return commit(c);
}

static int copy_row(void *ctx, int64_t ts, const char *src, const char *dst, int64_t seq,
                    double rtt)
{
    struct copier *c = ctx;
    if (gt_interrupted())
        return gt_error_set(c->err, GT_EINTR, NULL, "interrupted");
    int rc;
    if (!same_pair(c->cur, src, dst) &&
        ((rc = pair_end(c)) != GT_OK || (rc = pair_begin(c, src, dst)) != GT_OK))
        return rc;
    progress(c->o, GT_COPY_WRITE, ++c->done, c->from->total);
    if (!c->writing)
        return GT_OK;
    rc = gt_store_queue(c->store, c->pair, ts, seq, rtt, false, c->err);
    if (rc == GT_OK && ++c->in_txn >= GT_COPY_CHUNK && (rc = commit(c)) == GT_OK)
        rc = gt_db_begin(c->to, c->err);
    return rc;
}

static int cmp_site_id(const void *a, const void *b)
{
    const struct gt_site_row *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Every site with its attributes, made in the source's id order. */
static int copy_sites(struct gt_db *from, struct gt_db *to, struct gt_error *err)
{
    struct gt_site_row *v;
    size_t n;
    int rc = gt_query_sites(from, &v, &n, err);
    if (rc)
        return rc;
    if (n)
        qsort(v, n, sizeof *v, cmp_site_id);
    rc = gt_db_begin(to, err);
    for (size_t i = 0; rc == GT_OK && i < n; i++) {
        const struct gt_site_row *s = &v[i];
        rc = gt_site_set_attrs(to, s->name, s->cluster, s->domain,
                               s->has_coords ? &s->latitude : NULL,
                               s->has_coords ? &s->longitude : NULL, err);
    }
    if (rc == GT_OK)
        rc = gt_db_commit(to, err);
    gt_sites_free(v, n);
    return rc;
}

static int copy_pair(void *ctx, int64_t src, const char *src_name, int64_t dst,
                     const char *dst_name)
{
    (void)src, (void)dst;
    struct copier *c = ctx;
    int64_t a, b, id;
    c->res->pairs++;
    int rc = gt_store_site(c->store, src_name, strlen(src_name), &a, c->err);
    if (rc == GT_OK)
        rc = gt_store_site(c->store, dst_name, strlen(dst_name), &b, c->err);
    return rc ? rc : gt_store_pair(c->store, a, b, &id, c->err);
}

static int copy_source(void *ctx, const struct gt_source_row *s)
{
    struct copier *c = ctx;
    c->res->sources++;
    return gt_source_set(c->to, s, c->err);
}

/* The pairs without samples (the others are there already) and the
 * sources' cursors, in one transaction. */
static int copy_rest(struct gt_db *from, struct copier *c)
{
    int rc = gt_db_begin(c->to, c->err);
    if (rc == GT_OK)
        rc = gt_query_pair_ids(from, copy_pair, c, c->err);
    if (rc == GT_OK)
        rc = gt_query_sources(from, copy_source, c, c->err);
    return rc ? rc : gt_db_commit(c->to, c->err);
}

static int copy_samples(struct gt_db *from, struct copier *c)
{
    struct gt_export_filter all = {0};
    progress(c->o, GT_COPY_WRITE, 0, c->from->total);
    int rc = gt_query_export(from, &all, copy_row, c, c->err);
    if (rc == GT_OK)
        rc = pair_end(c);
    if (rc)
        gt_error_set(c->err, rc, gt_db_address(from), "%s", gt_strerror(rc));
    return rc;
}

static int copy(struct gt_db *from, struct gt_db *to, const struct gt_copy_opts *o,
                struct gt_copy_result *res, struct digests *fd, struct digests *td,
                struct gt_store *store, struct gt_error *err)
{
    struct copier c = {.to = to, .store = store, .o = o, .res = res, .from = fd,
                       .there = td, .err = err};
    int rc = copy_sites(from, to, err);
    if (rc == GT_OK && (rc = digest(from, GT_COPY_READ_FROM, o, fd, err)) == GT_OK)
        rc = digest(to, GT_COPY_READ_TO, o, td, err);
    if (rc == GT_OK) {
        digests_sort(td);
        res->samples = fd->total;
        res->pairs_sampled = (long)fd->n;
        gt_store_on_written(store, on_written, &c);
        rc = copy_samples(from, &c);
        if (rc == GT_OK)
            rc = copy_rest(from, &c);
        gt_store_on_written(store, NULL, NULL);
    }
    if (rc) {
        gt_db_rollback(to);
        gt_store_forget(store);
    }
    return rc;
}

int gt_copy_store(struct gt_db *from, struct gt_db *to, const struct gt_copy_opts *o,
                  struct gt_copy_result *res, struct gt_error *err)
{
    memset(res, 0, sizeof *res);
    struct gt_store *store;
    int rc = gt_store_open(to, &store, err);
    if (rc)
        return rc;
    struct digests fd = {0}, td = {0};
    /* one snapshot of the source for every read: the digests, the copy
       and the comparison see the same samples */
    if ((rc = gt_db_begin_read(from, err)) == GT_OK &&
        (rc = copy(from, to, o, res, &fd, &td, store, err)) == GT_OK)
        rc = compare(from, to, &fd, o, res, err);
    gt_db_rollback(from);
    digests_free(&fd);
    digests_free(&td);
    gt_store_free(store);
    return rc;
}

int gt_copy_verify(struct gt_db *from, struct gt_db *to, const struct gt_copy_opts *o,
                   struct gt_copy_result *res, struct gt_error *err)
{
    memset(res, 0, sizeof *res);
    struct digests fd = {0};
    int rc = gt_db_begin_read(from, err);
    if (rc == GT_OK && (rc = digest(from, GT_COPY_READ_FROM, o, &fd, err)) == GT_OK) {
        res->samples = fd.total;
        res->pairs_sampled = (long)fd.n;
        rc = compare(from, to, &fd, o, res, err);
    }
    gt_db_rollback(from);
    digests_free(&fd);
    return rc;
}
