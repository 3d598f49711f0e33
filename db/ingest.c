/*
 * ingest.c - runs a collector over one input and stores what it emits.
 *
 * Everything an input adds (sites, pairs, samples, cursor, log line) is
 * one IMMEDIATE transaction, so a killed process leaves either all of it
 * or none, and a rerun of the same input finds only duplicates.
 */
#define _DEFAULT_SOURCE
#include "ingest.h"
#include "backend.h"
#include "collectors/push.h"
#include "base/interrupt.h"
#include "base/util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* A queued sample's report data, until its write says what became of it. */
struct pending {
    long line;
    const char *member;      /* interned in the run */
    char *where;             /* formats without lines: its time and pair */
};

/* A reject that came while samples were queued: reported after the first
 * `after` samples of the run, so messages keep the input's order. */
struct held_reject {
    long after;
    char *loc, *msg;
};

struct run {
    struct gt_db *db;
    struct gt_store *store;
    const struct gt_ingest_opts *o;
    struct gt_ingest_result *res;
    const char *input;
    struct gt_error *err;    /* the first fatal (database) error */
    bool in_tx;
    int failed;              /* with a spool: the store failed, spool only */
    FILE *fp;                /* the input's stream, for progress */
    struct pending *pend;    /* queued samples, in queue order from pend_head */
    size_t pend_head, npend, pend_cap;
    long queued, written;    /* samples queued and written so far */
    struct held_reject *held;
    size_t nheld, held_cap;
    char **members;          /* interned archive member names */
    size_t nmembers;
    int64_t now;             /* the run's clock, for samples in the future */
    bool archive;            /* GT_ARCHIVE_EPOCH applies (gt_time_problem) */
};

/* Past this many held rejects the queue is written, to report them. */
#define HELD_MAX 1024

/* Past --max-rows the input is refused whole. */
static int count_row(struct run *r)
{
    if (r->o->max_rows > 0 && ++r->res->read > r->o->max_rows)
        return gt_error_set(r->err, GT_ETOOBIG, r->input,
                            "more than %ld records in one input ([ingest] max_rows, "
                            "--max-rows); nothing stored", r->o->max_rows);
    if (r->o->max_rows <= 0)
        r->res->read++;
    return GT_OK;
}

/* The write transaction starts with the first good sample, not before the
 * parse: a collector that measures before it emits (probe) or reads a long
 * preamble holds no lock meanwhile. */
static int begin_once(struct run *r)
{
    if (r->in_tx)
        return GT_OK;
    int rc = gt_db_begin(r->db, r->err);
    r->in_tx = rc == GT_OK;
    return rc;
}

/* "member:line", "line", or the sample's time and pair when the format
 * has no lines. */
static void sample_loc(const struct gt_sample *s, char *loc, size_t size)
{
    if (s->line > 0 && s->member)
        snprintf(loc, size, "%s:%ld", s->member, s->line);
    else if (s->line > 0)
        snprintf(loc, size, "%ld", s->line);
    else {
        char t[32];
        gt_format_time(s->ts, t, sizeof t);
        snprintf(loc, size, "%s %.*s -> %.*s", t, (int)s->src_len, s->src, (int)s->dst_len,
                 s->dst);
    }
}

static void pending_loc(const struct pending *p, char *loc, size_t size)
{
    if (p->where)
        snprintf(loc, size, "%s", p->where);
    else if (p->member)
        snprintf(loc, size, "%s:%ld", p->member, p->line);
    else
        snprintf(loc, size, "%ld", p->line);
}

static void report_conflict(struct run *r, const struct pending *p,
                            const struct gt_sample_put *v)
{
    if (!r->o->on_conflict)
        return;
    const struct gt_store_outcome *out = &v->out;
    char loc[GT_ERR_WHERE], was[32], now[32];
    pending_loc(p, loc, sizeof loc);
    snprintf(was, sizeof was, isnan(out->stored_rtt) ? "lost" : "%.6g ms", out->stored_rtt);
    snprintf(now, sizeof now, isnan(v->rtt_ms) ? "lost" : "%.6g ms", v->rtt_ms);
    char msg[256];
    snprintf(msg, sizeof msg, "rtt: %s conflicts with the stored value %s; %s", now, was,
             out->what == GT_SAMPLE_REPLACED ? "replaced (--on-conflict replace)"
                                             : "kept the stored value");
    r->o->on_conflict(r->o->cb_ctx, r->input, loc, msg);
}

/* A reject, at once when no sample waits in the queue, else held until
 * the samples before it are written. */
static void reject_now(struct run *r, const char *loc, const char *msg)
{
    r->res->rejected++;
    if (r->o->on_reject)
        r->o->on_reject(r->o->cb_ctx, r->input, loc, msg);
}

static void report_held(struct run *r)
{
    size_t k = 0;
    for (; k < r->nheld && r->held[k].after <= r->written; k++) {
        reject_now(r, r->held[k].loc, r->held[k].msg);
        free(r->held[k].loc);
        free(r->held[k].msg);
    }
    if (k == 0)
        return;
    memmove(r->held, r->held + k, (r->nheld - k) * sizeof *r->held);
    r->nheld -= k;
}

/* gt_store's callback: n queued samples written, in queue order */
static int on_written(void *ctx, const struct gt_sample_put *v, size_t n)
{
    struct run *r = ctx;
    struct gt_ingest_result *res = r->res;
    for (size_t i = 0; i < n; i++) {
        struct pending *p = &r->pend[r->pend_head++];
        report_held(r);
        switch (v[i].out.what) {
        case GT_SAMPLE_STORED:
            res->stored++;
            res->lost += isnan(v[i].rtt_ms);
            break;
        case GT_SAMPLE_DUPLICATE:
            res->duplicates++;
            break;
        case GT_SAMPLE_REPLACED:
            res->replaced++;
            /* fall through */
        case GT_SAMPLE_CONFLICT:
            res->conflicts++;
            report_conflict(r, p, &v[i]);
            break;
        }
        free(p->where);
        r->written++;
        long seen = res->stored + res->duplicates + res->conflicts;
        if (seen == 1 || v[i].ts < res->min_ts)
            res->min_ts = v[i].ts;
        if (seen == 1 || v[i].ts > res->max_ts)
            res->max_ts = v[i].ts;
    }
    report_held(r);
    if (r->pend_head == r->npend)
        r->pend_head = r->npend = 0;
    return GT_OK;
}

static const char *intern_member(struct run *r, const char *member)
{
    if (!member)
        return NULL;
    if (r->nmembers && !strcmp(r->members[r->nmembers - 1], member))
        return r->members[r->nmembers - 1];
    char **v = realloc(r->members, (r->nmembers + 1) * sizeof *v);
    if (!v)
        return NULL;
    r->members = v;
    if (!(v[r->nmembers] = strdup(member)))
        return NULL;
    return v[r->nmembers++];
}

/* What the report of a queued sample needs, kept until it is written. */
static int hold_sample(struct run *r, const struct gt_sample *s)
{
    if (r->npend == r->pend_cap) {
        size_t cap = r->pend_cap ? 2 * r->pend_cap : 64;
        struct pending *v = realloc(r->pend, cap * sizeof *v);
        if (!v)
            return gt_error_set(r->err, GT_ENOMEM, NULL, "out of memory");
        r->pend = v, r->pend_cap = cap;
    }
    struct pending *p = &r->pend[r->npend];
    *p = (struct pending){s->line, NULL, NULL};
    if (s->line > 0 && s->member && !(p->member = intern_member(r, s->member)))
        return gt_error_set(r->err, GT_ENOMEM, NULL, "out of memory");
    if (s->line <= 0) {
        char loc[GT_ERR_WHERE];
        sample_loc(s, loc, sizeof loc);
        if (!(p->where = strdup(loc)))
            return gt_error_set(r->err, GT_ENOMEM, NULL, "out of memory");
    }
    r->npend++;
    r->queued++;
    return GT_OK;
}

static int store_sample(struct run *r, const struct gt_sample *s)
{
    if (r->o->since_set && s->ts < r->o->since) {
        r->res->skipped++;
        return GT_OK;
    }
    int64_t src, dst, pair;
    int rc;
    if ((rc = begin_once(r)) ||
        (rc = gt_store_site(r->store, s->src, s->src_len, &src, r->err)) ||
        (rc = gt_store_site(r->store, s->dst, s->dst_len, &dst, r->err)) ||
        (rc = gt_store_pair(r->store, src, dst, &pair, r->err)) ||
        (rc = hold_sample(r, s)))
        return rc;
    return gt_store_queue(r->store, pair, s->ts, s->seq, s->rtt_ms, r->o->replace_conflicts,
                          r->err);
}

/* Drop what is held (after a failure: nothing of it was stored). */
static void release_held(struct run *r)
{
    for (size_t i = r->pend_head; i < r->npend; i++)
        free(r->pend[i].where);
    free(r->pend);
    for (size_t i = 0; i < r->nheld; i++) {
        free(r->held[i].loc);
        free(r->held[i].msg);
    }
    free(r->held);
    for (size_t i = 0; i < r->nmembers; i++)
        free(r->members[i]);
    free(r->members);
}

/* A record refused, already counted as read. */
static void reject(struct run *r, const char *loc, const char *msg)
{
    if (r->queued == r->written) {
        reject_now(r, loc, msg);
        return;
    }
    if (r->nheld == HELD_MAX && !r->failed &&
        gt_store_drain(r->store, r->err) == GT_OK && r->queued == r->written) {
        reject_now(r, loc, msg);
        return;
    }
    if (r->nheld == r->held_cap) {
        size_t cap = r->held_cap ? 2 * r->held_cap : 16;
        struct held_reject *v = realloc(r->held, cap * sizeof *v);
        if (!v) {
            reject_now(r, loc, msg);   /* out of order rather than lost */
            return;
        }
        r->held = v, r->held_cap = cap;
    }
    char *l = strdup(loc), *m = strdup(msg);
    if (!l || !m) {
        free(l);
        free(m);
        reject_now(r, loc, msg);
        return;
    }
    r->held[r->nheld++] = (struct held_reject){r->queued, l, m};
}

/* NULL if an RTT is plausible, else why not: every format's samples pass
 * here, so a unit slip shows whatever the input. */
static const char *implausible(const struct gt_sample *s)
{
    if (isnan(s->rtt_ms))
        return NULL;
    if (!isfinite(s->rtt_ms))
        return "not a finite number (a unit conversion overflowed?)";
    if (s->rtt_ms > GT_RTT_MAX_MS)
        return "above 60 s: not a plausible round-trip time (a unit error?)";
    bool self = s->src_len == s->dst_len && !memcmp(s->src, s->dst, s->src_len);
    if (s->rtt_ms == 0 && !self)
        return "0 ms between two sites is not a measurement (a lost probe? the matrix "
               "format has --zero-is-missing)";
    return NULL;
}

#define PROGRESS_EVERY 8192

static void progress(struct run *r)
{
    struct stat sb;
    double done = 0, total = 0;
    if (r->fp && fstat(fileno(r->fp), &sb) == 0 && S_ISREG(sb.st_mode)) {
        off_t at = ftello(r->fp);
        done = at > 0 ? (double)at : 0;
        total = (double)sb.st_size;
    }
    r->o->on_progress(r->o->cb_ctx, r->input, r->res->read, done, total);
}

static int on_emit(void *ctx, const struct gt_sample *s)
{
    struct run *r = ctx;
    int rc = count_row(r);
    if (rc)
        return rc;
    if (r->res->read % PROGRESS_EVERY == 0) {
        if (gt_interrupted())
            return gt_error_set(r->err, GT_EINTR, r->input, "interrupted");
        if (r->o->on_progress)
            progress(r);
    }
    if (r->o->spool && gt_sample_csv_line(r->o->spool, s) != GT_OK)
        return gt_error_set(r->err, GT_ETOOBIG, r->input, "the spool buffer is full");
    const char *why = implausible(s);
    if (why) {
        char loc[GT_ERR_WHERE], msg[200];
        sample_loc(s, loc, sizeof loc);
        snprintf(msg, sizeof msg, "rtt: %g ms: %s", s->rtt_ms, why);
        reject(r, loc, msg);
        return GT_OK;
    }
    if ((why = gt_time_problem(s->ts, r->now, r->archive))) {
        char loc[GT_ERR_WHERE], msg[200], t[32];
        sample_loc(s, loc, sizeof loc);
        gt_format_time(s->ts, t, sizeof t);
        snprintf(msg, sizeof msg, "ts: %s: %s", t, why);
        reject(r, loc, msg);
        return GT_OK;
    }
    if (r->failed)
        return GT_OK;
    rc = store_sample(r, s);
    if (rc && r->o->spool && rc != GT_ETOOBIG) {
        r->failed = rc;   /* keep reading into the spool */
        return GT_OK;
    }
    return rc;
}

static void on_reject(void *ctx, const char *loc, const char *msg)
{
    struct run *r = ctx;
    (void)count_row(r);   /* past max_rows: the parse stops at the next emit, or after */
    reject(r, loc, msg);
}

static void on_note(void *ctx, const char *msg)
{
    struct run *r = ctx;
    if (r->o->on_note)
        r->o->on_note(r->o->cb_ctx, r->input, msg);
}

static bool is_url(const char *s)
{
    return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8);
}

/* "#src=S#query=Q#success=Q#step=N[#exporter=smokeping]" onto key (unset
 * queries left out). */
static int query_key(const struct gt_collect_opts *c, struct gt_buf *key)
{
    const char *name[] = {"#src=", "#query=", "#success="};
    const char *value[] = {c->src, c->query, c->success_query};
    int rc = GT_OK;
    for (size_t i = 0; rc == GT_OK && i < 3; i++)
        if (value[i] && !(rc = gt_buf_append(key, name[i], strlen(name[i]))))
            rc = gt_buf_append(key, value[i], strlen(value[i]));
    char step[48];
    snprintf(step, sizeof step, "#step=%ld%s", c->step, c->histogram ? "#exporter=smokeping" : "");
    return rc ? rc : gt_buf_append(key, step, strlen(step));
}

/* The key a source's cursor is kept under: the URL with {src}/{dst}
 * filled in but {start}/{end} kept, or the file's absolute path.  A URL
 * a format fetches for a probing site (prometheus) is a source a site,
 * query and step: the key says them after a '#', which no request sends. */
int gt_ingest_source_key(const char *input, const struct gt_ingest_opts *o,
                         struct gt_buf *key, struct gt_error *err)
{
    const struct gt_collect_opts *c = &o->collect;
    if (is_url(input)) {
        int rc = gt_url_expand(input, c->src, c->dst, NULL, NULL, key, err);
        if (rc == GT_OK && o->format->fetch && c->src)
            rc = query_key(c, key);
        return rc;
    }
    char *abs = realpath(input, NULL);
    int rc = gt_buf_append(key, abs ? abs : input, strlen(abs ? abs : input));
    free(abs);
    return rc;
}

/* The source's cursor moves to the newest sample the input had, but
 * never past limit (the end of the range asked for, now + the clock
 * skew): a sample past it is asked again next time, a duplicate then.
 * A cursor stored more than the skew ahead of the clock is replaced. */
static int source_advance(struct gt_db *db, const char *key, const struct gt_ingest_opts *o,
                          const struct gt_ingest_result *res, int64_t limit, int64_t *id,
                          struct gt_error *err)
{
    bool any = res->stored + res->duplicates + res->conflicts > 0;
    int64_t now = (int64_t)time(NULL);
    return db->be->source_advance(db, key, o->format->name, any,
                                  res->max_ts < limit ? res->max_ts : limit, now,
                                  now + GT_CLOCK_SKEW_S, id, err);
}

static int log_run(struct gt_db *db, int64_t source, const char *input, const char *format,
                   const struct gt_ingest_result *res, int64_t started, struct gt_error *err)
{
    struct gt_log_row row = {
        .source = source, .format = format, .input = input, .status = res->status,
        .message = res->err.code ? res->err.msg : NULL,
        .started = started, .finished = (int64_t)time(NULL),
        .read = res->read, .stored = res->stored, .duplicates = res->duplicates,
        .rejected = res->rejected, .skipped = res->skipped, .conflicts = res->conflicts,
    };
    return db->be->log_run(db, &row, err);
}

/* Fetch a URL input into body and open it as a stream; for a format
 * that fetches for itself, only expand it into url (kept by the caller). */
static int fetch_url(const char *input, struct gt_ingest_opts *o, struct gt_collect_opts *c,
                     int64_t start, struct gt_buf *body, struct gt_buf *url,
                     struct gt_input *in, struct gt_ingest_result *res)
{
    char s[32], e[32];
    snprintf(s, sizeof s, "%lld", (long long)start);
    snprintf(e, sizeof e, "%lld", (long long)o->now);
    c->range_from = start;
    c->range_to = o->now;
    bool own = o->format->fetch != NULL;   /* it pages: {start} {end} are its */
    int rc = gt_url_expand(input, c->src, c->dst, own ? NULL : s, own ? NULL : e, url,
                           &res->err);
    if (rc == GT_OK && own) {
        snprintf(res->fetched, sizeof res->fetched, "%s", url->data);
        in->url = url->data;
        return GT_OK;
    }
    if (rc == GT_OK && o->format->prepare_url)
        rc = o->format->prepare_url(url->data, c, &o->http, &res->err);
    if (rc == GT_OK) {
        snprintf(res->fetched, sizeof res->fetched, "%s", url->data);
        rc = gt_http_get(url->data, &o->http, body, &res->attempts, &res->err);
    }
    if (rc)
        return rc;
    in->fp = body->len ? fmemopen(body->data, body->len, "r") : fopen("/dev/null", "r");
    if (!in->fp)
        return gt_error_set(&res->err, GT_EIO, input, "fmemopen: %s", strerror(errno));
    return GT_OK;
}

/* Open a path or stdin as a collector input. */
static int open_local(const char *input, const struct gt_ingest_opts *o,
                      struct gt_input *in, struct gt_ingest_result *res)
{
    if (!strcmp(input, "-")) {
        in->fp = stdin;
        return GT_OK;
    }
    struct stat sb;
    if (stat(input, &sb) != 0)
        return gt_error_set(&res->err, GT_EIO, input, "%s", strerror(errno));
    if (S_ISDIR(sb.st_mode)) {
        if (!o->format->needs_directory_ok)
            return gt_error_set(&res->err, GT_EINPUT, input,
                                "is a directory; only the matrix format reads directories");
        in->path = input;
        return GT_OK;
    }
    in->path = input;
    in->fp = fopen(input, "rb");
    if (!in->fp)
        return gt_error_set(&res->err, GT_EIO, input, "cannot open: %s", strerror(errno));
    return GT_OK;
}

static int run_collector(struct run *r, const struct gt_input *in,
                         const struct gt_collect_opts *c)
{
    struct gt_sink sink = {r, on_emit, on_reject, on_note};
    const struct gt_collector *f = r->o->format;
    int rc = in->url && f->fetch ? f->fetch(in->url, c, &r->o->http, &sink, r->err)
                                 : f->parse(in, c, &sink, r->err);
    if (rc == GT_OK && r->err->code == GT_ETOOBIG)
        rc = GT_ETOOBIG;   /* max_rows passed in a reject, which cannot stop the parse */
    if (rc == GT_OK && !r->failed)
        rc = gt_store_drain(r->store, r->err);
    if (rc == GT_OK && r->failed)
        rc = r->failed;
    return rc ? rc : begin_once(r);
}

static int64_t now_of(const struct gt_ingest_opts *o)
{
    return o->now > 0 ? o->now : (int64_t)time(NULL);
}

bool gt_ingest_cursor_ahead(const struct gt_ingest_opts *o, bool has_cursor, int64_t cursor)
{
    int64_t now = now_of(o);
    return has_cursor && now < INT64_MAX - GT_CLOCK_SKEW_S && cursor > now + GT_CLOCK_SKEW_S;
}

/* {start} of a URL: --since, else after the stored cursor (unless it is
 * ahead of the clock), else the look-back (never all history since 1970). */
int64_t gt_ingest_url_start(const struct gt_ingest_opts *o, bool has_cursor, int64_t cursor)
{
    if (o->since_set)
        return o->since;
    if (has_cursor && !gt_ingest_cursor_ahead(o, has_cursor, cursor))
        return cursor + 1;
    return o->lookback_s > 0 && o->now > o->lookback_s ? o->now - o->lookback_s : 0;
}

/* What a URL's run is about to ask, when it is not the plain "from the
 * cursor to now": a cursor ahead of the clock set aside, or a range that
 * asks for nothing. */
static void tell_range(struct run *r, bool has_cursor, int64_t cursor, int64_t start)
{
    char msg[400], a[32], b[32];
    if (!r->o->since_set && gt_ingest_cursor_ahead(r->o, has_cursor, cursor)) {
        gt_format_time(cursor, a, sizeof a);
        snprintf(msg, sizeof msg, "the source's cursor, %s, is more than a day ahead of the "
                 "clock (a sample from a wrong clock, stored before): set aside, the range "
                 "asked starts at the look-back", a);
        on_note(r, msg);
    }
    /* a URL that carries the range, or a format that asks by it */
    bool ranged = strstr(r->input, "{start}") || r->o->format->fetch;
    if (ranged && start > r->o->now) {
        gt_format_time(start, a, sizeof a);
        gt_format_time(r->o->now, b, sizeof b);
        snprintf(msg, sizeof msg, "the range is empty: it would start at %s (%s), after its "
                 "end, now (%s); nothing new to ask for", a,
                 r->o->since_set ? "--since" : "the cursor + 1", b);
        on_note(r, msg);
    }
}

/* input, or with mem the len bytes there under the name input (no
 * source cursor: a buffer has no place to come back to) */
static int ingest(struct gt_db *db, struct gt_store *store, const char *input, const char *mem,
                  size_t len, struct gt_ingest_opts *o, struct gt_ingest_result *res)
{
    memset(res, 0, sizeof *res);
    res->status = "failed";
    int64_t started = (int64_t)time(NULL), source = 0, cursor = 0;
    bool has_cursor = false, url = !mem && is_url(input);
    struct gt_collect_opts c = o->collect;
    struct gt_input in = {url || mem ? input : (strcmp(input, "-") ? input : "<stdin>"), NULL,
                          NULL, NULL};
    struct gt_buf key, body, expanded;
    gt_buf_init(&key, 8192);
    gt_buf_init(&body, (size_t)-1 / 2);
    gt_buf_init(&expanded, 8192);
    struct run r = {.db = db, .store = store, .o = o, .res = res, .input = in.name,
                    .err = &res->err, .now = (int64_t)time(NULL),
                    .archive = gt_collector_is_archive(o->format)};
    gt_store_on_written(store, on_written, &r);
    int rc = GT_OK;
    bool keyed = !mem && strcmp(input, "-") != 0;
    if (keyed && ((rc = gt_ingest_source_key(input, o, &key, &res->err)) ||
                  (rc = db->be->source_get(db, key.data, &source, &cursor, &has_cursor,
                                            &res->err))))
        goto done;
    res->new_source = source == 0;
    if (mem && !(in.fp = len ? fmemopen((void *)mem, len, "r") : fopen("/dev/null", "r"))) {
        rc = gt_error_set(&res->err, GT_EIO, input, "fmemopen: %s", strerror(errno));
    } else if (url) {
        int64_t start = gt_ingest_url_start(o, has_cursor, cursor);
        tell_range(&r, has_cursor, cursor, start);
        rc = fetch_url(input, o, &c, start, &body, &expanded, &in, res);
    } else if (!mem) {
        rc = open_local(input, o, &in, res);
    }
    if (rc)
        goto done;
    if (o->cache_mb && (rc = gt_db_set_cache_mb(db, o->cache_mb, &res->err)))
        goto done;
    r.fp = in.fp;
    rc = run_collector(&r, &in, &c);
    if (rc == GT_OK && gt_interrupted())   /* before the commit: all or nothing */
        rc = gt_error_set(&res->err, GT_EINTR, in.name, "interrupted");
    if (rc == GT_OK)
        rc = gt_store_flush_changes(store, &res->err);
    if (rc == GT_OK && keyed) {
        int64_t limit = r.now + GT_CLOCK_SKEW_S;
        if (url && c.range_to < limit)
            limit = c.range_to;
        rc = source_advance(db, key.data, o, res, limit, &source, &res->err);
    }
    if (rc == GT_OK) {
        res->status = "ok";
        rc = log_run(db, source, input, o->format->name, res, started, &res->err);
    }
    if (rc == GT_OK)
        rc = gt_db_commit(db, &res->err);
done:
    r.written = r.queued;   /* the queue is done with: what it held is told now */
    report_held(&r);
    release_held(&r);
    gt_store_on_written(store, NULL, NULL);
    if (rc != GT_OK) {
        gt_db_rollback(db);
        gt_store_forget(store);
        if (res->err.code == GT_OK)
            gt_error_set(&res->err, rc, in.name, "%s", gt_strerror(rc));
        bool refused = rc == GT_EINPUT || rc == GT_EUSAGE || rc == GT_ETOOBIG;
        res->status = refused ? "refused" : rc == GT_EINTR ? "interrupted" : "failed";
        res->stored = res->duplicates = res->lost = res->skipped = 0;
        res->conflicts = res->replaced = 0;
        struct gt_error ignored = {0};
        /* Best effort: the log line must not hide the real error. */
        if (gt_db_begin(db, &ignored) == GT_OK) {
            if (log_run(db, source, input, o->format->name, res, started, &ignored) == GT_OK)
                gt_db_commit(db, &ignored);
            gt_db_rollback(db);
        }
    }
    if (in.fp && in.fp != stdin)
        fclose(in.fp);
    gt_buf_free(&key);
    gt_buf_free(&body);
    gt_buf_free(&expanded);
    return rc;
}

int gt_ingest_input(struct gt_db *db, struct gt_store *store, const char *input,
                    struct gt_ingest_opts *o, struct gt_ingest_result *res)
{
    return ingest(db, store, input, NULL, 0, o, res);
}

int gt_ingest_buffer(struct gt_db *db, struct gt_store *store, const char *name,
                     const char *data, size_t len, struct gt_ingest_opts *o,
                     struct gt_ingest_result *res)
{
    return ingest(db, store, name, data, len, o, res);
}

int gt_ingest_log_failed(struct gt_db *db, const char *format, const char *input,
                         int64_t started, long read, const char *message,
                         struct gt_error *err)
{
    struct gt_ingest_result res = {0};
    res.status = "failed";
    res.read = read;
    gt_error_set(&res.err, GT_EDB, NULL, "%s", message);
    int rc = gt_db_begin(db, err);
    if (rc == GT_OK && (rc = log_run(db, 0, input, format, &res, started, err)) == GT_OK)
        return gt_db_commit(db, err);
    gt_db_rollback(db);
    return rc;
}
