/*
 * push.c - see push.h.  The format's own parser runs with a sink that
 * writes CSV lines instead of storing samples.
 */
#include "push.h"
#include "base/numfmt.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

struct push_sink {
    struct gt_push_batch *b;
    void (*on_reject)(void *ctx, const char *loc, const char *msg);
    int (*flush)(void *ctx, const struct gt_push_batch *b);   /* NULL: one batch */
    size_t flush_at;
    void *ctx;
    int64_t now;         /* the clock: a sample past now + the skew is refused */
    bool archive;        /* GT_ARCHIVE_EPOCH applies (gt_time_problem) */
};

/* A full batch handed on, and the batch empty again (its header kept). */
static int flush_part(struct push_sink *p)
{
    struct gt_push_batch *b = p->b;
    int rc = p->flush(p->ctx, b);
    b->csv.len = b->header_len;
    b->csv.data[b->csv.len] = '\0';
    b->lines = 2;
    b->samples = 0;
    return rc;
}

/* A site name as a CSV field: quoted (its quotes doubled) when it holds a
 * comma, a quote or a line break, as csvread.h reads it back; a name
 * from a quoted CSV field, an Atlas dst_name or a Prometheus instance
 * that is a URL may hold any of them. */
static int name_field(struct gt_buf *b, const char *s, size_t n)
{
    if (!memchr(s, ',', n) && !memchr(s, '"', n) && !memchr(s, '\n', n) &&
        !memchr(s, '\r', n))
        return gt_buf_append(b, s, n);
    int rc = gt_buf_append(b, "\"", 1);
    for (size_t i = 0; rc == GT_OK && i < n; i++)
        rc = s[i] == '"' ? gt_buf_append(b, "\"\"", 2) : gt_buf_append(b, s + i, 1);
    return rc ? rc : gt_buf_append(b, "\"", 1);
}

int gt_sample_csv_line(struct gt_buf *b, const struct gt_sample *s)
{
    char rtt[GT_FMT_DOUBLE_SIZE] = "";   /* lost: empty */
    if (!isnan(s->rtt_ms))
        gt_fmt_double(rtt, s->rtt_ms);
    int rc = gt_buf_printf(b, "%lld,", (long long)s->ts);
    if (rc == GT_OK)
        rc = name_field(b, s->src, s->src_len);
    if (rc == GT_OK)
        rc = gt_buf_append(b, ",", 1);
    if (rc == GT_OK)
        rc = name_field(b, s->dst, s->dst_len);
    return rc ? rc : gt_buf_printf(b, ",%s,%lld\n", rtt, (long long)s->seq);
}

/* A sample whose time cannot be stored, refused here as ingest refuses
 * it: never sent, and never moving the cursor of a fetched range. */
static bool refuse_time(struct push_sink *p, const struct gt_sample *s)
{
    const char *why = gt_time_problem(s->ts, p->now, p->archive);
    if (!why)
        return false;
    char loc[GT_ERR_WHERE], t[32], msg[256];
    gt_format_time(s->ts, t, sizeof t);
    if (s->line > 0 && s->member)
        snprintf(loc, sizeof loc, "%s:%ld", s->member, s->line);
    else if (s->line > 0)
        snprintf(loc, sizeof loc, "%ld", s->line);
    else
        snprintf(loc, sizeof loc, "%s %.*s -> %.*s", t, (int)s->src_len, s->src,
                 (int)s->dst_len, s->dst);
    snprintf(msg, sizeof msg, "ts: %s: %s", t, why);
    gt_text_safe(loc);
    if (p->on_reject)
        p->on_reject(p->ctx, loc, msg);
    return true;
}

static int emit(void *ctx, const struct gt_sample *s)
{
    struct push_sink *p = ctx;
    struct gt_push_batch *b = p->b;
    if (refuse_time(p, s))
        return GT_OK;
    int rc = p->flush && b->csv.len >= p->flush_at ? flush_part(p) : GT_OK;
    if (rc)
        return rc;
    if (b->lines == b->cap) {
        size_t cap = b->cap * 2;
        long *o = realloc(b->origin, cap * sizeof *o);
        if (!o)
            return GT_ENOMEM;
        b->origin = o, b->cap = cap;
    }
    rc = gt_sample_csv_line(&b->csv, s);
    if (rc == GT_OK) {
        b->origin[b->lines++] = s->member ? 0 : s->line;
        b->samples++;
        if (!b->all_samples++ || s->ts > b->max_ts)
            b->max_ts = s->ts;
    }
    return rc;
}

static void reject(void *ctx, const char *loc, const char *msg)
{
    struct push_sink *p = ctx;
    if (p->on_reject)
        p->on_reject(p->ctx, loc, msg);
}

static void note(void *ctx, const char *msg)
{
    (void)ctx, (void)msg;
}

static int batch_init(struct gt_push_batch *b, size_t max_bytes, const char *input,
                      struct gt_error *err)
{
    memset(b, 0, sizeof *b);
    gt_buf_init(&b->csv, max_bytes);
    b->cap = 1024;
    if (!(b->origin = malloc(b->cap * sizeof *b->origin)))
        return gt_error_set(err, GT_ENOMEM, input, "out of memory");
    b->origin[0] = b->origin[1] = 0;   /* line 0 unused, line 1 the header */
    b->lines = 2;
    int rc = gt_buf_printf(&b->csv, "ts,src,dst,rtt_ms,seq\n");
    b->header_len = b->csv.len;
    return rc;
}

static int too_big(int rc, const char *input, size_t max_bytes, const char *how,
                   struct gt_error *err)
{
    if (rc == GT_ETOOBIG && !err->msg[0])
        gt_error_set(err, rc, input, "more than %zu bytes of samples: %s", max_bytes, how);
    return rc;
}

int gt_push_fetch(const struct gt_collector *format, const char *url,
                  const struct gt_collect_opts *c, const struct gt_http_opts *h,
                  size_t max_bytes, struct gt_push_batch *b,
                  void (*on_reject)(void *ctx, const char *loc, const char *msg),
                  int (*flush)(void *ctx, const struct gt_push_batch *b), void *ctx,
                  struct gt_error *err)
{
    int rc = batch_init(b, max_bytes, url, err);
    /* a sample's line is well under 4 KiB: a batch at flush_at takes one more */
    struct push_sink p = {b, on_reject, flush, max_bytes > 8192 ? max_bytes - 4096 : 0, ctx,
                          (int64_t)time(NULL), gt_collector_is_archive(format)};
    struct gt_sink sink = {&p, emit, reject, note};
    if (rc == GT_OK)
        rc = format->fetch(url, c, h, &sink, err);
    return too_big(rc, url, max_bytes, "push a shorter range (--since)", err);
}

int gt_push_parse(const struct gt_collector *format, const char *input,
                  const struct gt_collect_opts *c, size_t max_bytes, struct gt_push_batch *b,
                  void (*on_reject)(void *ctx, const char *loc, const char *msg), void *ctx,
                  struct gt_error *err)
{
    int rc = batch_init(b, max_bytes, input, err);
    bool std = !strcmp(input, "-");
    struct gt_input in = {std ? "<stdin>" : input, std ? NULL : input, std ? stdin : NULL, NULL};
    struct stat st;
    if (!std && stat(input, &st) != 0)
        return gt_error_set(err, GT_EIO, input, "%s", strerror(errno));
    if (!std && S_ISDIR(st.st_mode) && !format->needs_directory_ok)
        return gt_error_set(err, GT_EINPUT, input,
                            "is a directory; only the matrix format reads directories");
    if (!std && !S_ISDIR(st.st_mode) && !(in.fp = fopen(input, "rb")))
        return gt_error_set(err, GT_EIO, input, "cannot open: %s", strerror(errno));
    struct push_sink p = {b, on_reject, NULL, 0, ctx, (int64_t)time(NULL),
                          gt_collector_is_archive(format)};
    struct gt_sink sink = {&p, emit, reject, note};
    if (rc == GT_OK)
        rc = format->parse(&in, c, &sink, err);
    too_big(rc, input, max_bytes, "push it in parts", err);
    if (in.fp && in.fp != stdin)
        fclose(in.fp);
    return rc;
}

void gt_push_batch_free(struct gt_push_batch *b)
{
    gt_buf_free(&b->csv);
    free(b->origin);
    memset(b, 0, sizeof *b);
}
