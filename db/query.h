/*
 * query.h - reading the store back: sites, per-pair summaries, sample
 * export, and retention pruning.  Results are plain structs; formatting
 * is the caller's job.
 */
#ifndef GT_QUERY_H
#define GT_QUERY_H

#include "db.h"

#include <stddef.h>
#include <stdint.h>

struct gt_site_row {
    int64_t id;
    char *name;
    char *cluster, *domain;   /* NULL when unset */
    double latitude, longitude;
    bool has_coords;
    long pairs_out, pairs_in;
};

struct gt_newest_row {
    char *src;
    int64_t newest;      /* ts of the source's newest sample, lost or not */
};

/* Per source site with pairs, its newest sample (one index probe per
 * pair), by name.  Caller frees with gt_newest_free. */
int gt_query_newest_by_src(struct gt_db *db, struct gt_newest_row **rows, size_t *n,
                           struct gt_error *err);
void gt_newest_free(struct gt_newest_row *rows, size_t n);

/* Site `name`'s id, how many pairs it has to other sites, and their
 * newest sample (INT64_MIN when none): one index probe per pair.
 * GT_ENOTFOUND for an unknown site. */
int gt_query_root_newest(struct gt_db *db, const char *name, int64_t *id, int64_t *partners,
                         int64_t *newest, struct gt_error *err);

/* All sites by name.  Caller frees with gt_sites_free. */
int gt_query_sites(struct gt_db *db, struct gt_site_row **rows, size_t *n,
                   struct gt_error *err);
void gt_sites_free(struct gt_site_row *rows, size_t n);

/* Set a site's attributes (creating the site if new); NULL leaves a
 * field as it is. */
int gt_site_set_attrs(struct gt_db *db, const char *name, const char *cluster,
                      const char *domain, const double *lat, const double *lon,
                      struct gt_error *err);

/* A source an ingest keeps a cursor for (a URL's latest sample time). */
struct gt_source_row {
    const char *key, *format;     /* borrowed: valid during the call */
    bool has_cursor;
    int64_t cursor, updated;
};
typedef int (*gt_source_fn)(void *ctx, const struct gt_source_row *s);

/* Calls each() for every source, by key; a non-zero return stops and is
 * returned. */
int gt_query_sources(struct gt_db *db, gt_source_fn each, void *ctx, struct gt_error *err);

/* Record a source as s says, in the caller's write transaction: created
 * if new, its cursor only moved forward (as an ingest moves it). */
int gt_source_set(struct gt_db *db, const struct gt_source_row *s, struct gt_error *err);

struct gt_pair_row {
    char *src, *dst;
    long samples, lost;            /* lost: NULL RTTs */
    int64_t first_ts, last_ts;
    double min_ms, median_ms, p99_ms;   /* NAN when every probe was lost */
};

struct gt_pair_filter {
    const char *src, *dst;   /* NULL = any */
};

/* Per-pair summary of every pair with samples, in (src, dst) order.
 * Caller frees with gt_pairs_free. */
int gt_query_pairs(struct gt_db *db, const struct gt_pair_filter *f,
                   struct gt_pair_row **rows, size_t *n, struct gt_error *err);
void gt_pairs_free(struct gt_pair_row *rows, size_t n);

struct gt_export_filter {
    const char *src, *dst;      /* NULL = any */
    int64_t from, to;           /* [from, to) */
    bool from_set, to_set;
};

/* Calls row() for every matching sample in (pair, ts, seq) order; rtt_ms
 * is NAN for a lost probe.  A non-zero return from row() stops and is
 * returned. */
int gt_query_export(struct gt_db *db, const struct gt_export_filter *f,
                    int (*row)(void *ctx, int64_t ts, const char *src, const char *dst,
                               int64_t seq, double rtt_ms),
                    void *ctx, struct gt_error *err);

/* One pair's samples (by pair id, eventlog.h's marks give it) in [from,
 * to), in (ts, seq) order down the samples' primary key; rtt NAN for a
 * lost probe.  A non-zero return from row() stops and is returned. */
int gt_query_pair_range(struct gt_db *db, int64_t pair, int64_t from, int64_t to,
                        int (*row)(void *ctx, int64_t ts, double rtt_ms), void *ctx,
                        struct gt_error *err);

/* Delete samples older than cutoff (or count them with dry_run). */
int gt_prune(struct gt_db *db, int64_t cutoff, bool dry_run, long long *removed,
             struct gt_error *err);


/* The last valid sample before a window, which the window's leading lost
 * samples take (METHOD.md 1.1).  Filled by the series readers when the
 * window starts with a lost sample; found is false when there is none. */
struct gt_prior {
    bool found;
    int64_t ts;
    double rtt;
};

/* The last `limit` samples (all if limit = 0) of pair src -> dst at or
 * before `at`, oldest first: times and RTTs (NAN = lost), caller frees
 * both.  GT_ENOTFOUND when the pair does not exist. */
int gt_query_series(struct gt_db *db, const char *src, const char *dst, int64_t at,
                    size_t limit, int64_t **ts, double **rtt, size_t *n,
                    struct gt_prior *prior, struct gt_error *err);

/* Calls pair() for every stored pair, by source then destination id; a
 * non-zero return stops and is returned. */
int gt_query_pair_ids(struct gt_db *db,
                      int (*pair)(void *ctx, int64_t src, const char *src_name, int64_t dst,
                                  const char *dst_name),
                      void *ctx, struct gt_error *err);

/* The same for the pairs whose source is src_name alone (an index probe,
 * not a scan of every pair). */
int gt_query_pair_ids_of(struct gt_db *db, const char *src_name,
                         int (*pair)(void *ctx, int64_t src, const char *src_name, int64_t dst,
                                     const char *dst_name),
                         void *ctx, struct gt_error *err);

/* How many pairs are stored. */
int gt_query_pair_count(struct gt_db *db, long *n, struct gt_error *err);

/* A reusable reader of pair windows (prepared statements kept), for
 * callers that read many pairs.  Caller frees with gt_series_reader_free. */
struct gt_series_reader;
int gt_series_reader_new(struct gt_db *db, struct gt_series_reader **out,
                         struct gt_error *err);
void gt_series_reader_free(struct gt_series_reader *r);

/* A site's id by name; GT_ENOTFOUND when the store has no such site. */
int gt_series_site(struct gt_series_reader *r, const char *name, int64_t *id,
                   struct gt_error *err);

/* Like gt_query_series for the pair of site ids src -> dst, into caller
 * buffers of cap entries (the last min(limit, cap) samples); *n = 0 and
 * GT_OK when the pair has none, GT_ENOTFOUND when the pair is unknown.
 * newest, when not NULL, receives the time of the pair's newest sample
 * at any time (INT64_MIN if none): the window is the pair's current one
 * when *newest <= at. */
int gt_series_read(struct gt_series_reader *r, int64_t src, int64_t dst, int64_t at,
                   size_t limit, int64_t *ts, double *rtt, size_t cap, size_t *n,
                   int64_t *newest, struct gt_prior *prior, struct gt_error *err);

#endif
