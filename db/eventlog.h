/*
 * eventlog.h - the events found on each pair, kept in the store (issue
 * 28, part 1): what src/advisor/events.c finds in the samples at ingest
 * and refit, and the fit regimes refit judges.  The db layer keeps rows
 * and marks as plain data; it does not know what a kind means, only that
 * kinds below GT_EVROW_FIT_KINDS are found from samples (a rescan
 * replaces them) and the others are written once by refit.
 *
 * Each pair has a mark: redo_from, the time from which its
 * sample-found events are not final yet (the newest sample scanned, or
 * an event still going, or a run of lost probes still open); a rescan
 * reads from a little before it and replaces the events from it on.
 * And the fit regime refit saw last, with the time it saw it.
 */
#ifndef GT_EVENTLOG_H
#define GT_EVENTLOG_H

#include "db.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_EVROW_FIT_KINDS 64   /* kinds from here on: written by refit */

struct gt_event_row {
    int64_t ts;
    int kind;
    int64_t until;            /* INT64_MIN: none, or still going */
    long lost;
    double before, after;     /* NAN: none */
};

struct gt_event_mark {
    int64_t pair;
    const char *src, *dst;
    bool scanned;             /* false: never scanned (redo_from unset) */
    int64_t redo_from;
    bool fitted;              /* false: no regime judged yet */
    int regime;
    int64_t fitted_at;
};

/* Every pair (src, dst: NULL = any) with its mark, by pair id; the
 * strings live during the call. */
int gt_eventlog_marks(struct gt_db *db, const char *src, const char *dst,
                      int (*each)(void *ctx, const struct gt_event_mark *m), void *ctx,
                      struct gt_error *err);

/* Replace pair's sample-found events from `since` on (INT64_MIN: all)
 * with rows[0..n), and set its redo_from.  In the caller's transaction. */
int gt_eventlog_replace(struct gt_db *db, int64_t pair, int64_t since,
                        const struct gt_event_row *rows, size_t n, int64_t redo_from,
                        struct gt_error *err);

/* Record the fit regime refit judged at fitted_at, with the event row
 * (NULL: none) when it changed.  In the caller's transaction. */
int gt_eventlog_fit(struct gt_db *db, int64_t pair, const struct gt_event_row *row,
                    int regime, int64_t fitted_at, struct gt_error *err);

/* How far before a backfilled sample a pair's events are found again. */
#define GT_EVENTLOG_REWIND_S 86400

/* The stored events of [from, to) (src, dst: NULL = any; kind < 0: any),
 * by time, then source and destination name. */
int gt_eventlog_read(struct gt_db *db, const char *src, const char *dst, int64_t from,
                     int64_t to, int kind,
                     int (*each)(void *ctx, int64_t pair, const char *src, const char *dst,
                                 const struct gt_event_row *row),
                     void *ctx, struct gt_error *err);

#endif
