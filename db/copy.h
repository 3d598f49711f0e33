/*
 * copy.h - a whole store copied into another, whatever their backends
 * (SQLite to PostgreSQL and back), and two stores compared.
 *
 * Only the store's public functions are used (query.h, store.h), so the
 * two stores keep ids of their own: sites and pairs are matched by name.
 * The source is read in one snapshot; the target is written a pair at a
 * time, in transactions of at most GT_COPY_CHUNK samples, so a copy that
 * stops half-way is completed by running it again: a pair whose samples
 * are all in the target already is skipped, and a sample written again
 * is a duplicate under store.h's rules, never a second row.  A key the
 * target holds with another value is a conflict: reported and kept.
 *
 * The comparison is per pair: the number of samples and a checksum that
 * does not depend on their order, the sum of a 64-bit hash of each
 * sample's (ts, seq, rtt bits or lost), computed from each store's export.
 * Sites are compared by name and attributes, and by how many pairs start
 * and end at each.  The fit cache and the ingest log are not copied: the
 * fits are derived (and name the store's own ids), and refit rebuilds them.
 */
#ifndef GT_COPY_H
#define GT_COPY_H

#include "db.h"

#include <stdbool.h>
#include <stdint.h>

/* The most samples one transaction of the target holds. */
#define GT_COPY_CHUNK 65536

/* One pair's samples in one store. */
struct gt_copy_digest {
    char *src, *dst;
    long long samples;
    uint64_t sum;
};

enum gt_copy_phase {
    GT_COPY_READ_FROM,   /* the source's digests (total unknown) */
    GT_COPY_READ_TO,     /* the target's, before copying or to compare */
    GT_COPY_WRITE        /* copying (total: the source's samples) */
};

struct gt_copy_opts {
    /* every few thousand samples: how far a phase is (total 0: unknown) */
    void (*on_progress)(void *ctx, enum gt_copy_phase phase, long long done,
                        long long total);
    /* a key the target holds with another value (kept there) */
    void (*on_conflict)(void *ctx, const char *src, const char *dst, int64_t ts,
                        int64_t seq, double from_rtt, double to_rtt);
    /* a pair whose samples differ; from or to is NULL when that store has
     * none of the pair's samples */
    void (*on_mismatch)(void *ctx, const struct gt_copy_digest *from,
                        const struct gt_copy_digest *to);
    /* a site missing from one store, or with other attributes or pairs */
    void (*on_site_mismatch)(void *ctx, const char *name, const char *why);
    void *ctx;
};

struct gt_copy_result {
    long sites, pairs, sources;   /* in the source (pairs: with samples or not) */
    long pairs_sampled;           /* pairs with samples in the source */
    long pairs_written;           /* of those, pairs not complete in the target before */
    long long samples;            /* in the source */
    long long copied;             /* written to the target */
    long long already;            /* there before: skipped pairs' and duplicates */
    long long conflicts;          /* held in the target with another value */
    long mismatches;              /* pairs and sites that differ after */
};

/* Copy every site (with its attributes), pair, sample and source cursor
 * of from into to, then compare the two.  GT_OK when the copy ran; the
 * stores are alike when res->conflicts and res->mismatches are both 0.
 * GT_EINTR when interrupted (base/interrupt.h): what was committed stays,
 * a rerun goes on.  from and to are borrowed, and must be two stores. */
int gt_copy_store(struct gt_db *from, struct gt_db *to, const struct gt_copy_opts *o,
                  struct gt_copy_result *res, struct gt_error *err);

/* Only the comparison: res->sites, pairs_sampled, samples and
 * mismatches are filled. */
int gt_copy_verify(struct gt_db *from, struct gt_db *to, const struct gt_copy_opts *o,
                   struct gt_copy_result *res, struct gt_error *err);

#endif
