/*
 * store.h - writing samples: site and pair ids behind an in-memory cache,
 * and prepared inserts.  One gt_store per connection; the caller owns the
 * transaction.  After a rollback call gt_store_forget, since ids created
 * inside the rolled-back transaction no longer exist.  The store also
 * notes which pairs got new samples, so derived fits can be dropped.
 */
#ifndef GT_STORE_H
#define GT_STORE_H

#include "db.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gt_store;

/* Caller frees with gt_store_free; db is borrowed and must outlive it. */
int gt_store_open(struct gt_db *db, struct gt_store **out, struct gt_error *err);
void gt_store_free(struct gt_store *s);

/* Site id for a name, creating the site if it is new. */
int gt_store_site(struct gt_store *s, const char *name, size_t len, int64_t *id,
                  struct gt_error *err);

/* Pair id for (src, dst), creating the pair if it is new. */
int gt_store_pair(struct gt_store *s, int64_t src, int64_t dst, int64_t *id,
                  struct gt_error *err);

/* What became of one sample. */
enum gt_sample_fate {
    GT_SAMPLE_STORED,     /* a new key */
    GT_SAMPLE_DUPLICATE,  /* the key holds the same value (NULL = NULL) */
    GT_SAMPLE_CONFLICT,   /* the key holds another value, which was kept */
    GT_SAMPLE_REPLACED    /* the key held another value, now replaced */
};

struct gt_store_outcome {
    enum gt_sample_fate what;
    double stored_rtt;    /* the value found under a taken key (NAN = lost) */
};

/* One sample to write, and what became of it. */
struct gt_sample_put {
    int64_t pair, ts, seq;
    double rtt_ms;                /* NAN: lost */
    struct gt_store_outcome out;
};

/* Insert one sample; rtt_ms NAN is stored as NULL (lost).  A key (pair,
 * ts, seq) already stored with another value is a conflict: the stored
 * value is kept, or replaced when replace is true. */
int gt_store_sample(struct gt_store *s, int64_t pair, int64_t ts, int64_t seq, double rtt_ms,
                    bool replace, struct gt_store_outcome *out, struct gt_error *err);

/* Samples queued for writing in batches (as many as the backend takes
 * at once): gt_store_queue adds one, and writes the queue first when it
 * is full or already holds the key; gt_store_drain writes what is
 * queued.  Each write calls done() for the written samples in queue
 * order, with their outcomes; a non-zero return stops and is returned.
 * Set done with gt_store_on_written before queueing. */
typedef int (*gt_store_written_fn)(void *ctx, const struct gt_sample_put *v, size_t n);
void gt_store_on_written(struct gt_store *s, gt_store_written_fn done, void *ctx);
int gt_store_queue(struct gt_store *s, int64_t pair, int64_t ts, int64_t seq, double rtt_ms,
                   bool replace, struct gt_error *err);
int gt_store_drain(struct gt_store *s, struct gt_error *err);
/* How many samples are queued and not yet written. */
size_t gt_store_queued(const struct gt_store *s);

/* Forget the cached fits (db/fitcache.h) of every source site that got a
 * new sample since the last flush; call inside the transaction that
 * stored them, before its commit. */
int gt_store_flush_changes(struct gt_store *s, struct gt_error *err);

/* Drop cached ids and queued samples (after a rollback). */
void gt_store_forget(struct gt_store *s);

#endif
