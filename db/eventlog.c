/*
 * eventlog.c - the event log's functions (eventlog.h), through the
 * store's backend.
 */
#include "eventlog.h"
#include "backend.h"

int gt_eventlog_marks(struct gt_db *db, const char *src, const char *dst,
                      int (*each)(void *ctx, const struct gt_event_mark *m), void *ctx,
                      struct gt_error *err)
{
    return db->be->event_marks(db, src, dst, each, ctx, err);
}

int gt_eventlog_replace(struct gt_db *db, int64_t pair, int64_t since,
                        const struct gt_event_row *rows, size_t n, int64_t redo_from,
                        struct gt_error *err)
{
    return db->be->events_replace(db, pair, since, rows, n, redo_from, err);
}

int gt_eventlog_fit(struct gt_db *db, int64_t pair, const struct gt_event_row *row,
                    int regime, int64_t fitted_at, struct gt_error *err)
{
    return db->be->event_fit(db, pair, row, regime, fitted_at, err);
}

int gt_eventlog_read(struct gt_db *db, const char *src, const char *dst, int64_t from,
                     int64_t to, int kind,
                     int (*each)(void *ctx, int64_t pair, const char *src, const char *dst,
                                 const struct gt_event_row *row),
                     void *ctx, struct gt_error *err)
{
    return db->be->events_read(db, src, dst, from, to, kind, each, ctx, err);
}
