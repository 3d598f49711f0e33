/*
 * push.h - a collector's samples for a central `gridtail serve` instead
 * of a local store: an input parsed by its format into the csv format
 * (what POST /v1/samples takes), remembering where each line came from so
 * that the server's verdicts on a line can be told as the input's
 * FILE:LINE.
 */
#ifndef GT_PUSH_H
#define GT_PUSH_H

#include "collector.h"
#include "base/util.h"

struct gt_push_batch {
    struct gt_buf csv;        /* "ts,src,dst,rtt_ms,seq" and a line a sample */
    long *origin;             /* CSV line -> the input's line (0: unknown) */
    size_t lines, cap;        /* lines so far (the header is line 1) */
    long samples;             /* in csv */
    long all_samples;         /* with those of the parts flushed before */
    int64_t max_ts;           /* of all the samples; valid when all_samples > 0 */
    size_t header_len;
};

/* Parse input (a path, or "-" for stdin; not a URL) with format into b
 * (initialised here, at most max_bytes of CSV: GT_ETOOBIG past it).
 * Records the format refuses go to on_reject(ctx, loc, msg) as ingest
 * reports them.  Free with gt_push_batch_free. */
int gt_push_parse(const struct gt_collector *format, const char *input,
                  const struct gt_collect_opts *c, size_t max_bytes, struct gt_push_batch *b,
                  void (*on_reject)(void *ctx, const char *loc, const char *msg), void *ctx,
                  struct gt_error *err);
/* The same for a format that fetches for itself (format->fetch): url
 * with {src}/{dst} expanded, its range c->range_from..range_to.  A range
 * may hold more than max_bytes: each time the batch is nearly full it is
 * handed to flush(ctx, b) (non-OK stops) and starts again empty. */
int gt_push_fetch(const struct gt_collector *format, const char *url,
                  const struct gt_collect_opts *c, const struct gt_http_opts *h,
                  size_t max_bytes, struct gt_push_batch *b,
                  void (*on_reject)(void *ctx, const char *loc, const char *msg),
                  int (*flush)(void *ctx, const struct gt_push_batch *b), void *ctx,
                  struct gt_error *err);
void gt_push_batch_free(struct gt_push_batch *b);

/* One sample as a line of the csv format (lost: an empty rtt_ms; names
 * quoted where they must be). */
int gt_sample_csv_line(struct gt_buf *b, const struct gt_sample *s);

#endif
