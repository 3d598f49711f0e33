/*
 * query.c - reading the store back, the same for every backend: the
 * functions of query.h call the store's backend (db/backend.h), and the
 * per-pair summary is computed here from the samples in key order.
 *
 * The pair summary reads samples in primary-key order (pair, ts, seq), so
 * each pair's values arrive together and are sorted once in memory for
 * the median and p99: one pass over the table, no SQL sort.
 */
#define _POSIX_C_SOURCE 200809L
#include "query.h"
#include "backend.h"
#include "fitcache.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gt_sites_free(struct gt_site_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++) {
        free(rows[i].name);
        free(rows[i].cluster);
        free(rows[i].domain);
    }
    free(rows);
}

int gt_query_sites(struct gt_db *db, struct gt_site_row **rows, size_t *n,
                   struct gt_error *err)
{
    return db->be->sites(db, rows, n, err);
}

int gt_site_set_attrs(struct gt_db *db, const char *name, const char *cluster,
                      const char *domain, const double *lat, const double *lon,
                      struct gt_error *err)
{
    return db->be->site_set_attrs(db, name, cluster, domain, lat, lon, err);
}

int gt_query_sources(struct gt_db *db, gt_source_fn each, void *ctx, struct gt_error *err)
{
    return db->be->sources(db, each, ctx, err);
}

int gt_source_set(struct gt_db *db, const struct gt_source_row *s, struct gt_error *err)
{
    int64_t id;
    return db->be->source_advance(db, s->key, s->format, s->has_cursor, s->cursor, s->updated,
                                  INT64_MAX, &id, err);
}

void gt_pairs_free(struct gt_pair_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++) {
        free(rows[i].src);
        free(rows[i].dst);
    }
    free(rows);
}

struct pair_acc {
    double *v;
    size_t n, cap;
};

static void summarize(struct gt_pair_row *row, struct pair_acc *acc)
{
    if (acc->n == 0) {
        row->min_ms = row->median_ms = row->p99_ms = NAN;
        return;
    }
    qsort(acc->v, acc->n, sizeof *acc->v, gt_cmp_double);
    row->min_ms = acc->v[0];
    row->median_ms = gt_quantile_sorted(acc->v, acc->n, 0.5);
    row->p99_ms = gt_quantile_sorted(acc->v, acc->n, 0.99);
}

static int acc_push(struct pair_acc *acc, double x)
{
    if (acc->n == acc->cap) {
        size_t cap = acc->cap ? acc->cap * 2 : 1024;
        double *v = realloc(acc->v, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        acc->v = v;
        acc->cap = cap;
    }
    acc->v[acc->n++] = x;
    return GT_OK;
}

/* The summaries being built: export's callback appends a row when the
 * pair changes (rows come by pair, so a pair's names change only there). */
struct pairs_run {
    struct gt_pair_row *v;
    size_t cnt, cap;
    struct pair_acc acc;
};

static int pair_start(struct pairs_run *p, const char *src, const char *dst, int64_t ts)
{
    if (p->cnt)
        summarize(&p->v[p->cnt - 1], &p->acc);
    p->acc.n = 0;
    if (p->cnt == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        struct gt_pair_row *nv = realloc(p->v, cap * sizeof *nv);
        if (!nv)
            return GT_ENOMEM;
        p->v = nv, p->cap = cap;
    }
    struct gt_pair_row *row = &p->v[p->cnt++];
    memset(row, 0, sizeof *row);
    row->src = strdup(src);
    row->dst = strdup(dst);
    row->first_ts = ts;
    return row->src && row->dst ? GT_OK : GT_ENOMEM;
}

static int pair_sample(void *ctx, int64_t ts, const char *src, const char *dst, int64_t seq,
                       double rtt_ms)
{
    (void)seq;
    struct pairs_run *p = ctx;
    struct gt_pair_row *row = p->cnt ? &p->v[p->cnt - 1] : NULL;
    if ((!row || strcmp(row->src, src) || strcmp(row->dst, dst)) &&
        pair_start(p, src, dst, ts))
        return GT_ENOMEM;
    row = &p->v[p->cnt - 1];
    row->samples++;
    row->last_ts = ts;
    if (isnan(rtt_ms))
        row->lost++;
    else if (acc_push(&p->acc, rtt_ms))
        return GT_ENOMEM;
    return GT_OK;
}

static int cmp_pair_names(const void *a, const void *b)
{
    const struct gt_pair_row *x = a, *y = b;
    int c = strcmp(x->src, y->src);
    return c ? c : strcmp(x->dst, y->dst);
}

int gt_query_pairs(struct gt_db *db, const struct gt_pair_filter *f,
                   struct gt_pair_row **rows, size_t *n, struct gt_error *err)
{
    struct gt_export_filter ef = {f ? f->src : NULL, f ? f->dst : NULL, 0, 0, false, false};
    struct pairs_run p = {0};
    int rc = db->be->export(db, &ef, pair_sample, &p, err);
    if (rc == GT_ENOMEM && err && !err->code)
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK && p.cnt)
        summarize(&p.v[p.cnt - 1], &p.acc);
    free(p.acc.v);
    if (rc) {
        gt_pairs_free(p.v, p.cnt);
        return rc;
    }
    /* ts order within a pair gives first/last; names give the row order */
    if (p.cnt)
        qsort(p.v, p.cnt, sizeof *p.v, cmp_pair_names);
    *rows = p.v;
    *n = p.cnt;
    return GT_OK;
}

int gt_query_export(struct gt_db *db, const struct gt_export_filter *f,
                    int (*row)(void *ctx, int64_t ts, const char *src, const char *dst,
                               int64_t seq, double rtt_ms),
                    void *ctx, struct gt_error *err)
{
    return db->be->export(db, f, row, ctx, err);
}

int gt_query_pair_range(struct gt_db *db, int64_t pair, int64_t from, int64_t to,
                        int (*row)(void *ctx, int64_t ts, double rtt_ms), void *ctx,
                        struct gt_error *err)
{
    return db->be->pair_range(db, pair, from, to, row, ctx, err);
}

int gt_prune(struct gt_db *db, int64_t cutoff, bool dry_run, long long *removed,
             struct gt_error *err)
{
    if (dry_run)
        return db->be->prune(db, cutoff, true, removed, err);
    int rc = db->be->begin_write(db, err);
    if (rc)
        return rc;
    rc = db->be->prune(db, cutoff, false, removed, err);
    /* fitted windows may have reached back into what went */
    if (rc == GT_OK && *removed > 0)
        rc = gt_fitcache_forget(db, NULL, 0, err);
    if (rc == GT_OK)
        rc = db->be->commit(db, err);
    if (rc)
        db->be->rollback(db);
    return rc;
}

void gt_series_reverse(int64_t *ts, double *rtt, size_t n)
{
    for (size_t i = 0; i < n / 2; i++) {
        int64_t t = ts[i];
        ts[i] = ts[n - 1 - i];
        ts[n - 1 - i] = t;
        double v = rtt[i];
        rtt[i] = rtt[n - 1 - i];
        rtt[n - 1 - i] = v;
    }
}

int gt_query_series(struct gt_db *db, const char *src, const char *dst, int64_t at,
                    size_t limit, int64_t **ts, double **rtt, size_t *n,
                    struct gt_prior *prior, struct gt_error *err)
{
    return db->be->series(db, src, dst, at, limit, ts, rtt, n, prior, err);
}

void gt_newest_free(struct gt_newest_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++)
        free(rows[i].src);
    free(rows);
}

int gt_query_newest_by_src(struct gt_db *db, struct gt_newest_row **rows, size_t *n,
                           struct gt_error *err)
{
    return db->be->newest_by_src(db, rows, n, err);
}

int gt_query_root_newest(struct gt_db *db, const char *name, int64_t *id, int64_t *partners,
                         int64_t *newest, struct gt_error *err)
{
    return db->be->root_newest(db, name, id, partners, newest, err);
}

int gt_query_pair_count(struct gt_db *db, long *n, struct gt_error *err)
{
    return db->be->pair_count(db, n, err);
}

int gt_query_pair_ids(struct gt_db *db,
                      int (*pair)(void *ctx, int64_t src, const char *src_name, int64_t dst,
                                  const char *dst_name),
                      void *ctx, struct gt_error *err)
{
    return db->be->pair_ids(db, NULL, pair, ctx, err);
}

int gt_query_pair_ids_of(struct gt_db *db, const char *src_name,
                         int (*pair)(void *ctx, int64_t src, const char *src_name, int64_t dst,
                                     const char *dst_name),
                         void *ctx, struct gt_error *err)
{
    return db->be->pair_ids(db, src_name, pair, ctx, err);
}

int gt_series_reader_new(struct gt_db *db, struct gt_series_reader **out,
                         struct gt_error *err)
{
    return db->be->reader_new(db, out, err);
}

void gt_series_reader_free(struct gt_series_reader *r)
{
    if (r)
        r->db->be->reader_free(r);
}

int gt_series_site(struct gt_series_reader *r, const char *name, int64_t *id,
                   struct gt_error *err)
{
    return r->db->be->reader_site(r, name, id, err);
}

int gt_series_read(struct gt_series_reader *r, int64_t src, int64_t dst, int64_t at,
                   size_t limit, int64_t *ts, double *rtt, size_t cap, size_t *n,
                   int64_t *newest, struct gt_prior *prior, struct gt_error *err)
{
    return r->db->be->reader_read(r, src, dst, at, limit, ts, rtt, cap, n, newest, prior,
                                  err);
}
