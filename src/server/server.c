/*
 * server.c - see server.h.
 *
 * libmicrohttpd calls the handler once when the headers are in, then
 * with each piece of the body, then once more with none.  Whatever the
 * headers decide (Host, Origin, Content-Type, the token, the declared
 * length) is decided on the first call, and a request refused there is
 * answered at once, its body never read.  Otherwise the body is gathered
 * (up to its limit, the rest discarded and answered 413; counted against
 * the server's and the client address's budgets) and the request
 * answered on the last call.  The requests that read or write
 * the store are computed on the server's workers (workers.h): the
 * connection is suspended, a worker computes and renders the answer and
 * resumes it, and MHD's thread, called once more, sends it.  Each worker
 * keeps its own database connection, so requests share nothing but the
 * read-only options and site table.
 */
#define _GNU_SOURCE   /* POLLRDHUP */
#include "server.h"
#include "assets.h"
#include "auth.h"
#include "metrics.h"
#include "peers.h"
#include "samples.h"
#include "workers.h"
#include "advisor/advice.h"
#include "advisor/events.h"
#include "advisor/status.h"
#include "plot/plot.h"
#include "base/jsonout.h"
#include "base/jsonscan.h"
#include "base/util.h"
#include "base/version.h"

#include <arpa/inet.h>
#include <poll.h>
#include <stdatomic.h>
#include <stddef.h>
#include <jansson.h>
#include <netdb.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

/* One open connection, watched for its header deadline. */
struct conn_watch {
    int fd;
    double since_ms;          /* opened, or its last answer went out */
    bool in_request;          /* the current request's headers are in */
    bool cut;                 /* shut down for being too slow, or refused */
    bool refused;             /* past max_connections_per_ip: never answered */
    struct gt_peer *peer;     /* the client's address: what it holds */
    struct conn_watch *prev, *next;
};

struct gt_server {
    struct MHD_Daemon *d;
    struct gt_server_opts o;
    unsigned port;
    pthread_mutex_t log_lock;
    struct gt_metrics *metrics;
    pthread_rwlock_t tokens_lock;   /* held to read tokens; written on reload */
    struct gt_tokens *tokens;       /* [server] tokens_file, or NULL */
    atomic_bool stopping;
    atomic_size_t body_bytes;       /* request bodies held now, in all */
    atomic_uint pushing;            /* POST /v1/samples on the workers now */
    struct gt_peers *peers;         /* per client address: connections, bytes */
    pthread_mutex_t watch_lock;     /* the open connections, for the header deadline */
    struct conn_watch *watched;
    pthread_t sweeper;
    bool sweeping;
    atomic_bool sweep_stop;     /* gt_server_stop: requests end their searches */
    struct gt_workers *workers; /* compute the answers that touch the store */
};

#define DRAIN_MS 5000   /* stop: how long answers in progress may take to go out */

/* One request beyond its method, path and body: its query arguments,
 * and what the advisor asks while it runs (gt_adv_opts.stop). */
struct req_ctx {
    const char *src, *dst, *limit;   /* GET /v1/pairs: ?src=&dst=&limit= */
    const char *status, *offset;     /* GET /v1/status: ?status=&offset= */
    const char *from, *to, *kind;    /* GET /v1/events: ?from=&to=&kind= */
    const char *metric, *highlight, *window, *bins, *samples;   /* GET /v1/plot/... */
    const char *content_type;     /* POST /v1/samples: the body's type */
    char client[64];              /* the client's address, for the ingest log */
    struct gt_server *s;          /* NULL without a server (gt_server_answer) */
    struct gt_peer *peer;         /* the client's address, or NULL */
    double deadline_ms;           /* gt_monotonic_ms() */
    int fd;                       /* the client's socket, or -1 */
    _Atomic double next_poll_ms;  /* the socket is looked at every 50 ms */
    char budget[96];
};

/* The peer closed its side (or the socket failed): nobody will read the
 * answer.  Bytes waiting (a pipelined request) are not a close. */
static bool peer_closed(int fd)
{
    struct pollfd p = {fd, POLLIN | POLLRDHUP, 0};
    if (poll(&p, 1, 0) <= 0)
        return false;
    if (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
        return true;
    char c;
    return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

static const char *request_stop(void *ctx)
{
    struct req_ctx *q = ctx;
    if (q->s && atomic_load_explicit(&q->s->stopping, memory_order_relaxed))
        return "the server is stopping";
    double now = gt_monotonic_ms();
    if (now > q->deadline_ms)
        return q->budget;
    if (q->fd >= 0 && now >= atomic_load_explicit(&q->next_poll_ms, memory_order_relaxed)) {
        atomic_store_explicit(&q->next_poll_ms, now + 50, memory_order_relaxed);
        if (peer_closed(q->fd))
            return "the client went away";
    }
    return NULL;
}

/* n more bytes in memory for a request of peer: within max_buffered_mb
 * in all and max_buffered_per_client_mb for its address, else false and
 * nothing counted */
static bool hold(struct gt_server *s, struct gt_peer *peer, size_t n)
{
    size_t budget = (size_t)s->o.cfg->server_max_buffered_mb << 20;
    if (atomic_fetch_add(&s->body_bytes, n) + n > budget) {
        atomic_fetch_sub(&s->body_bytes, n);
        return false;
    }
    if (!gt_peers_hold(s->peers, peer, n)) {
        atomic_fetch_sub(&s->body_bytes, n);
        return false;
    }
    return true;
}

/* The most one request of peer can ever hold: its address's share, and
 * the server's budget; past it the answer is 413, not "try again". */
static size_t most_held(const struct gt_server *s, const struct gt_peer *peer)
{
    size_t budget = (size_t)s->o.cfg->server_max_buffered_mb << 20,
           share = gt_peers_share(s->peers, peer);
    return share < budget ? share : budget;
}

static void unhold(struct gt_server *s, struct gt_peer *peer, size_t n)
{
    atomic_fetch_sub(&s->body_bytes, n);
    gt_peers_release(s->peers, peer, n);
}

/* An answer: a status and a JSON document, or a text of a type. */
struct answer {
    unsigned status;
    json_t *doc;
    const char *allow;        /* 405: the methods the path takes */
    char *text;               /* malloc'd, instead of doc (/metrics) */
    const char *type;         /* text's Content-Type */
    bool page;                /* the dashboard's own files: a strict policy */
    bool challenge;           /* 401: say how to authenticate */
};

/* One request in progress. */
struct request {
    struct gt_buf body;
    bool too_big;
    bool over_budget;         /* the server held too many bodies' bytes at once */
    bool beyond_share;        /* larger than this client may ever hold: 413 */
    size_t held;              /* bytes of this body counted in body_bytes */
    struct gt_peer *peer;     /* the client's address */
    double t0;
    /* computed on a worker (the connection suspended meanwhile): */
    struct gt_job job;
    struct gt_server *s;
    struct MHD_Connection *c;
    const char *method, *url, *upload;   /* upload: the body, or NULL when too big */
    struct req_ctx q;
    struct answer a;          /* rendered: text set */
    atomic_bool answered;     /* a is ready: send it on the next call */
};

static struct answer ok_json(json_t *doc)
{
    return (struct answer){.status = MHD_HTTP_OK, .doc = doc};
}

/* ------------------------------------------------------------ errors */

static unsigned http_status(int code)
{
    switch (code) {
    case GT_EUSAGE:
    case GT_EINPUT: return MHD_HTTP_BAD_REQUEST;
    case GT_ENOTFOUND: return MHD_HTTP_UNPROCESSABLE_CONTENT;
    case GT_ETOOBIG: return MHD_HTTP_CONTENT_TOO_LARGE;
    default: return MHD_HTTP_INTERNAL_SERVER_ERROR;
    }
}

static struct answer fail(unsigned status, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static struct answer fail(unsigned status, const char *field, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char text[4 * sizeof msg];   /* it may quote a client's bytes, not UTF-8 */
    gt_utf8_escape(msg, text, sizeof text);
    json_t *doc = json_pack("{s:s, s:o}", "error", text, "field",
                            field && *field ? json_string(field) : json_null());
    return (struct answer){.status = status, .doc = doc};
}

/* A library error: its where names the field for request errors. */
static struct answer fail_err(const struct gt_error *err, int rc)
{
    unsigned status = http_status(rc);
    bool is_field = rc == GT_EUSAGE;
    /* the store busy, or its database server gone: try again later */
    if (status == MHD_HTTP_INTERNAL_SERVER_ERROR &&
        (strstr(err->msg, "locked") || strstr(err->msg, "server is not available")))
        status = MHD_HTTP_SERVICE_UNAVAILABLE;
    /* where a store or file error happened is the operator's business (the
       database path), not the client's: the request log has the status */
    bool say_where = !is_field && err->where[0] && rc != GT_EDB && rc != GT_EIO &&
                     rc != GT_ESCHEMA;
    return fail(status, is_field ? err->where : NULL, "%s%s%s", say_where ? err->where : "",
                say_where ? ": " : "", err->msg[0] ? err->msg : gt_strerror(rc));
}

/* ------------------------------------------------------------ endpoints */

/* The largest body a path takes: the samples' max_body, a few MiB of
 * JSON for the advisor (and the paths that take none) */
static size_t body_limit(const struct gt_server_opts *o, const char *url)
{
    size_t advisor = (size_t)o->cfg->server_max_request_kb << 10;
    return !strcmp(url, "/v1/samples") || o->max_body < advisor ? o->max_body : advisor;
}

static const char *const estimate_keys[] = {"root", "sites", NULL};
static const char *const rank_keys[] = {"candidates", "top", NULL};
static const char *const place_keys[] = {"pool", "size", "root", "top", "exact_limit", NULL};

/* A request past one of [server]'s bounds: 422 naming the field. */
#define TOO_MUCH(field, got, max, key)                                                      \
    fail(MHD_HTTP_UNPROCESSABLE_CONTENT, field, "%s: %.15g is more than this server takes " \
         "(at most %.15g, [server] " key ")", field, (double)(got), (double)(max))

static struct answer do_estimate(const struct gt_server_opts *o, struct gt_advisor *adv,
                                 const json_t *req, const struct gt_advice *ad)
{
    const json_t *root = json_object_get(req, "root");
    if (!json_is_string(root) || !json_string_length(root))
        return fail(MHD_HTTP_BAD_REQUEST, "root", "expected a site name");
    struct gt_site_list sites = {0};
    const char *why;
    if (!gt_sites_from_json(&sites, json_object_get(req, "sites"), &why)) {
        gt_sites_clear(&sites);
        return fail(MHD_HTTP_BAD_REQUEST, "sites", "%s", why);
    }
    if ((long)sites.n > o->cfg->server_max_partners) {
        size_t n = sites.n;
        gt_sites_clear(&sites);
        return TOO_MUCH("sites", n, o->cfg->server_max_partners, "max_partners");
    }
    struct gt_estimate e;
    struct gt_error err = {0};
    int rc = gt_advisor_estimate(adv, json_string_value(root), sites.v, sites.n, &e, &err);
    struct answer a = rc ? fail_err(&err, rc)
                         : ok_json(gt_advice_estimate_json(&e, ad));
    gt_estimate_clear(&e);
    gt_sites_clear(&sites);
    return a;
}

/* An absent field keeps *out. */
static bool optional_long(const json_t *req, const char *key, long lo, long hi, long *out)
{
    const json_t *v = json_object_get(req, key);
    return !v || gt_json_long_in(v, lo, hi, out);
}

static struct answer do_rank(const struct gt_server_opts *o, struct gt_advisor *adv,
                             const json_t *req, const struct gt_advice *ad)
{
    long top = -1;
    if (!optional_long(req, "top", 1, 1000000, &top))
        return fail(MHD_HTTP_BAD_REQUEST, "top", "expected an integer in [1, 1000000]");
    if (top > o->cfg->server_max_top)
        return TOO_MUCH("top", top, o->cfg->server_max_top, "max_top");
    struct gt_cand_list l = {0};
    size_t bad;
    const char *why;
    if (!gt_cands_from_json(&l, json_object_get(req, "candidates"), &bad, &why)) {
        gt_cands_clear(&l);
        return fail(MHD_HTTP_BAD_REQUEST, "candidates", "[%zu]: %s", bad, why);
    }
    if ((long)l.n > o->cfg->server_max_candidates) {
        size_t n = l.n;
        gt_cands_clear(&l);
        return TOO_MUCH("candidates", n, o->cfg->server_max_candidates, "max_candidates");
    }
    size_t total = 0;
    for (size_t i = 0; i < l.n; i++) {
        total += l.v[i].sites.n;
        if ((long)l.v[i].sites.n > o->cfg->server_max_partners) {
            size_t n = l.v[i].sites.n;
            gt_cands_clear(&l);
            return TOO_MUCH("candidates", n, o->cfg->server_max_partners, "max_partners");
        }
    }
    /* every candidate's estimate is held until the best are chosen: the
       partners of all of them bound the request's memory */
    if ((long)total > o->cfg->server_max_rank_partners) {
        gt_cands_clear(&l);
        return TOO_MUCH("candidates", total, o->cfg->server_max_rank_partners,
                        "max_rank_partners");
    }
    struct gt_rank_answer r;
    struct gt_error err = {0};
    int rc = gt_advice_rank(adv, &l, top, &r, &err);
    const char *stopped = gt_advisor_stopped(adv);
    struct answer a = rc ? fail_err(&err, rc)
                      : stopped && r.ok == 0
                          ? fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "stopped before any "
                                 "candidate was estimated: %s", stopped)
                          : ok_json(gt_advice_rank_json(adv, &r, ad));
    gt_rank_answer_clear(&r);
    gt_cands_clear(&l);
    return a;
}

static struct answer do_place(const struct gt_server_opts *o, struct gt_advisor *adv,
                              const json_t *req, const struct gt_advice *ad)
{
    long size = 0, top = 1;
    const json_t *root = json_object_get(req, "root"), *limit = json_object_get(req, "exact_limit");
    if (!json_object_get(req, "size") || !optional_long(req, "size", 1, 256, &size))
        return fail(MHD_HTTP_BAD_REQUEST, "size", "expected an integer in [1, 256]");
    if (!optional_long(req, "top", 1, 1000000, &top))
        return fail(MHD_HTTP_BAD_REQUEST, "top", "expected an integer in [1, 1000000]");
    if (root && (!json_is_string(root) || !json_string_length(root)))
        return fail(MHD_HTTP_BAD_REQUEST, "root", "expected a site name or \"auto\"");
    if (limit && !(json_is_number(limit) && json_number_value(limit) >= 0))
        return fail(MHD_HTTP_BAD_REQUEST, "exact_limit", "expected a number >= 0");
    if (limit && json_number_value(limit) > o->cfg->server_max_exact_limit)
        return TOO_MUCH("exact_limit", json_number_value(limit), o->cfg->server_max_exact_limit,
                        "max_exact_limit");
    if (top > o->cfg->server_max_top)
        return TOO_MUCH("top", top, o->cfg->server_max_top, "max_top");
    struct gt_site_list pool = {0};
    const char *why;
    if (!gt_sites_from_json(&pool, json_object_get(req, "pool"), &why)) {
        gt_sites_clear(&pool);
        return fail(MHD_HTTP_BAD_REQUEST, "pool", "%s", why);
    }
    if ((long)pool.n > o->cfg->server_max_pool) {
        size_t n = pool.n;
        gt_sites_clear(&pool);
        return TOO_MUCH("pool", n, o->cfg->server_max_pool, "max_pool");
    }
    const char *r_name = root ? json_string_value(root) : "auto";
    struct gt_place_opts po = {(size_t)size, strcmp(r_name, "auto") ? r_name : NULL,
                               limit ? json_number_value(limit) : 1e5, (size_t)top, NULL, NULL};
    struct gt_place_result r;
    struct gt_error err = {0};
    int64_t t0 = gt_monotonic_ns();
    int rc = gt_advisor_place(adv, pool.v, pool.n, &po, &r, &err);
    const char *stopped = gt_advisor_stopped(adv);
    struct answer a = rc ? fail_err(&err, rc)
                      : stopped && r.nbest == 0
                          ? fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "stopped before any "
                                 "placement was estimated: %s", stopped)
                          : ok_json(gt_advice_place_json(
                                adv, &r, gt_elapsed_ms(t0), ad));
    gt_place_result_clear(&r);
    gt_sites_clear(&pool);
    return a;
}

/* Where reads go: [database] read_url (a hot standby), else the store
 * that writes (pushes) go to. */
static const char *read_addr(const struct gt_server_opts *o)
{
    const char *r = o->cfg->db_read_url;
    return r && r[0] ? r : o->db_path;
}

/* Why the store cannot be read, for a client: a file store's reason
 * names no path (the path is in err's where); a database server's
 * (libpq's) names its host, port and database, which are the operator's
 * business: `gridtail --db URL health`-like commands show them. */
static const char *unavailable_reason(const struct gt_server_opts *o, const struct gt_error *err,
                                      const char *otherwise)
{
    if (!gt_db_is_file(read_addr(o)))
        return "its database server cannot be reached or refused the connection";
    return err->msg[0] ? err->msg : otherwise;
}

/* Open the store for reading; status 0, or the 503 to answer (which
 * never names the database path). */
static struct answer open_store(const struct gt_server_opts *o, struct gt_db **db)
{
    struct gt_error err = {0};
    if (gt_db_open(read_addr(o), GT_DB_READ, o->cfg->busy_timeout_ms, db, &err))
        return fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "the store is not available: %s",
                    unavailable_reason(o, &err, "cannot open it"));
    return (struct answer){.status = 0};
}

static struct answer health(const struct gt_server_opts *o)
{
    struct gt_db *db;
    struct gt_error err = {0};
    struct answer a = open_store(o, &db);
    if (a.status)
        return a;
    int version = 0;
    int rc = gt_db_version(db, &version, &err);
    gt_db_close(db);
    if (rc)
        return fail_err(&err, rc);
    return ok_json(json_pack("{s:s, s:s, s:i}", "status", "ok", "version", GT_VERSION, "schema",
                             version));
}

/* GET /v1/sites: every site, as `gridtail sites --json`. */
static struct answer sites(const struct gt_server_opts *o)
{
    struct gt_db *db;
    struct gt_error err = {0};
    struct answer a = open_store(o, &db);
    if (a.status)
        return a;
    struct gt_site_row *v = NULL;
    size_t n = 0;
    int rc = gt_query_sites(db, &v, &n, &err);
    gt_db_close(db);
    a = rc ? fail_err(&err, rc) : ok_json(gt_advice_sites_json(v, n));
    gt_sites_free(v, n);
    return a;
}

/* One pair's current window fitted, as `fit --json` prints it (with
 * [estimate] window and [advisor] max_ks, quantile_margin), or null when it cannot be. */
static json_t *current_fit(const struct gt_server_opts *o, struct gt_db *db, const char *src,
                           const char *dst)
{
    int64_t *ts = NULL;
    double *rtt = NULL;
    size_t m = 0;
    struct gt_prior prior = {0};
    struct gt_error err = {0};
    struct gt_fit f;
    json_t *j = json_null();
    if (gt_query_series(db, src, dst, (int64_t)time(NULL), (size_t)o->cfg->window, &ts, &rtt,
                        &m, &prior, &err) == GT_OK && m &&
        gt_fit_series(rtt, ts, m, prior.found ? prior.rtt : NAN, prior.ts, GT_FIT_AUTO, &f,
                      &err) == GT_OK) {
        json_decref(j);
        struct gt_verdict_limits lim = gt_advice_verdict_limits(o->cfg);
        j = gt_advice_fit_json(&f, (size_t)o->cfg->window, &lim);
    }
    free(ts);
    free(rtt);
    return j;
}

/* ?limit=: how many to list, [server] max_top by default and at most
 * (past it 422); status 0 when it is fine. */
static struct answer query_limit(const struct gt_server_opts *o, const struct req_ctx *q,
                                 int64_t *limit)
{
    *limit = o->cfg->server_max_top;
    if (q->limit && (!gt_parse_i64(q->limit, strlen(q->limit), limit) || *limit < 0))
        return fail(MHD_HTTP_BAD_REQUEST, "limit", "expected an integer >= 0");
    if (*limit > o->cfg->server_max_top)
        return TOO_MUCH("limit", *limit, o->cfg->server_max_top, "max_top");
    return (struct answer){.status = 0};
}

/* GET /v1/pairs?src=&dst=&limit=: the pairs' summaries, as `gridtail
 * pairs --json`.  Each summary reads all of its pair's samples, so a
 * request without src or dst is refused past [server] max_partners pairs
 * (422), and at most max_top are listed (the totals count them all). */
/* How well each forecasting method has lately predicted this pair (as a
 * one-partner collective from src) at the advisor's horizon: the
 * adaptive model's tracked errors (adaptive.h), or null before any
 * outcome is known. */
static json_t *tracked_errors(const struct gt_server_opts *o, struct gt_db *db, const char *src,
                              const char *dst)
{
    const char *sites[1] = {dst};
    struct gt_adapt_opts ao = {(size_t)o->cfg->window, (double)o->cfg->horizon_s,
                               (size_t)o->cfg->adaptive_outcomes, false, (int64_t)time(NULL),
                               sites, 1, false, NULL, NULL};
    struct gt_adapt t;
    struct gt_error err = {0};
    if (gt_adapt_track(db, src, &ao, &t, &err) != GT_OK || t.chosen < 0)
        return json_null();
    json_t *rmse = json_object();
    for (int k = 0; k < GT_ADAPT_NCAND; k++)
        json_object_set_new(rmse, gt_adapt_name(k), gt_json_real_or_null(t.rmse[k]));
    return json_pack("{s:s, s:I, s:I, s:I, s:o}", "best", gt_adapt_name(t.chosen), "horizon_s",
                     (json_int_t)o->cfg->horizon_s, "outcomes", (json_int_t)t.outcomes, "lead_samples",
                     (json_int_t)t.lead, "rmse_ms", rmse);
}

static struct answer pairs(const struct gt_server_opts *o, const struct req_ctx *q)
{
    int64_t limit;
    struct answer a = query_limit(o, q, &limit);
    if (a.status)
        return a;
    struct gt_db *db;
    struct gt_error err = {0};
    a = open_store(o, &db);
    if (a.status)
        return a;
    long count = 0;
    int rc = q->src || q->dst ? GT_OK : gt_query_pair_count(db, &count, &err);
    struct gt_pair_row *v = NULL;
    size_t n = 0;
    if (rc) {
        a = fail_err(&err, rc);
    } else if (count > o->cfg->server_max_partners) {
        a = fail(MHD_HTTP_UNPROCESSABLE_CONTENT, "src", "%ld pairs: name a src or a dst "
                 "(at most %ld pairs without one, [server] max_partners)", count,
                 o->cfg->server_max_partners);
    } else {
        struct gt_pair_filter f = {q->src, q->dst};
        rc = gt_query_pairs(db, &f, &v, &n, &err);
        a = rc ? fail_err(&err, rc)
               : ok_json(gt_advice_pairs_json(v, n, (size_t)limit < n ? (size_t)limit : n));
        if (!rc && q->src && q->dst && n == 1 && limit > 0) {
            json_t *pair = json_array_get(json_object_get(a.doc, "pairs"), 0);
            json_object_set_new(pair, "fit", current_fit(o, db, q->src, q->dst));
            json_object_set_new(pair, "tracked", tracked_errors(o, db, q->src, q->dst));
        }
    }
    gt_pairs_free(v, n);
    gt_db_close(db);
    return a;
}

/* Every pair's state now (or only src's, dst's), worst first: for
 * /v1/status and /metrics/pairs.  More pairs than [server]
 * max_status_pairs without src or dst is 422. */
static struct answer pair_states(const struct gt_server_opts *o, const struct req_ctx *q,
                                 struct gt_thresholds *t, struct gt_pair_state **v, size_t *n)
{
    struct gt_error err = {0};
    int rc = gt_thresholds_load(t, o->cfg, (size_t)o->cfg->window, &err);
    if (rc)
        return fail(MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "[thresholds]: %s%s%s",
                    err.where, err.where[0] ? ": " : "", err.msg);
    struct gt_db *db;
    struct answer a = open_store(o, &db);
    if (a.status) {
        gt_thresholds_free(t);
        return a;
    }
    long count = 0;
    rc = q->src || q->dst ? GT_OK : gt_query_pair_count(db, &count, &err);
    if (rc)
        a = fail_err(&err, rc);
    else if (count > o->cfg->server_max_status_pairs)
        a = fail(MHD_HTTP_UNPROCESSABLE_CONTENT, "src", "%ld pairs, more than [server] "
                 "max_status_pairs (%ld) at once: name a src or a dst, or raise it", count,
                 o->cfg->server_max_status_pairs);
    else if ((rc = gt_pair_states(db, t, (int64_t)time(NULL), q->src, q->dst, v, n, &err)))
        a = fail_err(&err, rc);
    else
        gt_pair_states_sort(*v, *n);
    gt_db_close(db);
    if (a.status)
        gt_thresholds_free(t);
    return a;
}

/* GET /v1/status?src=&dst=&status=&limit=&offset=: each pair's status, as
 * `gridtail pairs --status --json`, worst first, a page at a time. */
static struct answer status(const struct gt_server_opts *o, const struct req_ctx *q)
{
    int64_t limit, offset = 0;
    enum gt_pair_status only = GT_STATUS_OK;
    struct answer a = query_limit(o, q, &limit);
    if (a.status)
        return a;
    if (q->offset && (!gt_parse_i64(q->offset, strlen(q->offset), &offset) || offset < 0))
        return fail(MHD_HTTP_BAD_REQUEST, "offset", "expected an integer >= 0");
    if (q->status && !gt_status_parse(q->status, &only))
        return fail(MHD_HTTP_BAD_REQUEST, "status", "expected ok, warning, critical or no_data");
    struct gt_thresholds t;
    struct gt_pair_state *v = NULL;
    size_t n = 0;
    a = pair_states(o, q, &t, &v, &n);
    if (a.status)
        return a;
    a = ok_json(gt_status_json(v, n, &t, (int64_t)time(NULL), q->status ? (int)only : -1,
                               (size_t)offset, (size_t)limit));
    gt_pair_states_free(v, n);
    gt_thresholds_free(&t);
    return a;
}

/* GET /v1/events?src=&dst=&from=&to=&kind=&limit=: what happened on the
 * pairs, as `gridtail events --json`; more than GT_EVENTS_MAX_SAMPLES
 * samples to read is 422 (name a pair, narrow the range). */
static struct answer events(const struct gt_server_opts *o, const struct req_ctx *q)
{
    int64_t limit, to = (int64_t)time(NULL), from;
    enum gt_event_kind kind = GT_EV_SHIFT;
    struct answer a = query_limit(o, q, &limit);
    if (a.status)
        return a;
    if (q->to && !gt_parse_time(q->to, strlen(q->to), &to))
        return fail(MHD_HTTP_BAD_REQUEST, "to", "expected a time (seconds or ISO 8601)");
    from = to - 86400;
    if (q->from && !gt_parse_time(q->from, strlen(q->from), &from))
        return fail(MHD_HTTP_BAD_REQUEST, "from", "expected a time (seconds or ISO 8601)");
    if (from >= to)
        return fail(MHD_HTTP_BAD_REQUEST, "from", "must be before to");
    if (q->kind && !gt_event_parse(q->kind, &kind))
        return fail(MHD_HTTP_BAD_REQUEST, "kind", "expected shift, loss_burst, outage, "
                    "outage_end, silent, reporting or fit_regime");
    struct gt_db *db;
    a = open_store(o, &db);
    if (a.status)
        return a;
    struct gt_event_opts eo = gt_event_opts_of(o->cfg);
    struct gt_pair_event *v = NULL;
    size_t n = 0;
    struct gt_error err = {0};
    int rc = gt_events_query(db, q->src, q->dst, from, to, q->kind ? (int)kind : -1, &eo, &v,
                             &n, &err);
    gt_db_close(db);
    if (rc == GT_ETOOBIG)
        a = fail(MHD_HTTP_UNPROCESSABLE_CONTENT, "from", "%s", err.msg);
    else if (rc)
        a = fail_err(&err, rc);
    else
        a = ok_json(gt_events_json(v, n, from, to, (size_t)limit));
    gt_pair_events_free(v, n);
    return a;
}

static struct gt_db *worker_db(const struct gt_server_opts *o, struct gt_error *err);

/* The collective's tracked forecast errors (adaptive.h), as
 * `estimate --model adaptive` keeps them; none when not known. */
static void collective_errors(const struct gt_server_opts *o, struct gt_db *db,
                              const char *root, const struct gt_site_list *sites,
                              struct gt_collective_metric *c)
{
    const char **names = malloc(sites->n * sizeof *names);
    if (!names)
        return;
    for (size_t i = 0; i < sites->n; i++)
        names[i] = sites->v[i].name;
    struct gt_adapt_opts ao = {(size_t)o->cfg->window, (double)o->cfg->horizon_s,
                               (size_t)o->cfg->adaptive_outcomes, false, (int64_t)time(NULL),
                               names, sites->n, false, NULL, NULL};
    struct gt_adapt t;
    struct gt_error err = {0};
    if (gt_adapt_track(db, root, &ao, &t, &err) == GT_OK && t.chosen >= 0) {
        c->outcomes = t.outcomes;
        for (int k = 0; k < GT_ADAPT_NCAND && k < 4; k++)
            c->rmse_ms[k] = t.rmse[k];
    }
    free(names);
}

/* [server] collectives, "ROOT:A,B[:PROCS],...; ...": each one's E[max]
 * and p99 into c (its root and sites point into text, cut in place);
 * how many, at most GT_METRICS_MAX_COLLECTIVES.  One that is not
 * estimable (or not parsed) has NANs. */
static size_t collective_metrics(const struct gt_server_opts *o, char *text,
                                 struct gt_collective_metric *c)
{
    size_t n = 0;
    struct gt_advice ad;
    gt_advice_defaults(&ad, o->cfg, (int64_t)time(NULL));
    ad.q[0] = 0.99;
    ad.o.nq = 1;
    ad.o.threads = 1;
    struct gt_error err = {0};
    struct gt_db *db = text[0] ? worker_db(o, &err) : NULL;
    struct gt_advisor *adv = db ? gt_advisor_new(db, &ad.o) : NULL;
    for (char *save = NULL, *spec = strtok_r(text, ";", &save);
         spec && n < GT_METRICS_MAX_COLLECTIVES; spec = strtok_r(NULL, ";", &save)) {
        spec += strspn(spec, " \t");
        char *colon = strchr(spec, ':');
        if (!colon)
            continue;
        *colon = '\0';
        c[n] = (struct gt_collective_metric){spec, colon + 1, NAN, NAN, {NAN, NAN, NAN, NAN}, 0};
        struct gt_site_list sites = {0};
        const char *why;
        struct gt_estimate e;
        if (adv && gt_sites_parse(&sites, colon + 1, &why) &&
            gt_advisor_estimate(adv, spec, sites.v, sites.n, &e, &err) == GT_OK) {
            if (e.ok)
                c[n].emax_ms = e.e_max, c[n].p99_ms = e.q_values[0];
            gt_estimate_clear(&e);
            collective_errors(o, db, spec, &sites, &c[n]);
        }
        gt_error_clear(&err);
        gt_sites_clear(&sites);
        n++;
    }
    if (adv)
        gt_advisor_free(adv);
    return n;
}

/* GET /metrics/pairs: each pair's series for Prometheus, apart from the
 * server's own /metrics so that a scrape of that stays small. */
static struct answer metrics_pairs(const struct gt_server_opts *o, const struct req_ctx *q)
{
    struct gt_thresholds t;
    struct gt_pair_state *v = NULL;
    size_t n = 0;
    struct req_ctx all = *q;
    all.src = all.dst = NULL;   /* the whole matrix, bounded by max_status_pairs */
    struct answer a = pair_states(o, &all, &t, &v, &n);
    if (a.status)
        return a;
    char spec[sizeof o->cfg->server_collectives];
    struct gt_collective_metric c[GT_METRICS_MAX_COLLECTIVES];
    snprintf(spec, sizeof spec, "%s", o->cfg->server_collectives);
    size_t nc = collective_metrics(o, spec, c);
    char *text = gt_metrics_pairs_text(v, n, c, nc);
    gt_pair_states_free(v, n);
    gt_thresholds_free(&t);
    if (!text)
        return fail(MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "out of memory");
    return (struct answer){.status = MHD_HTTP_OK, .text = text,
                           .type = "text/plain; version=0.0.4; charset=utf-8"};
}

/* GET /readyz: the store opens, and (with [server] ready_max_age_s) some
 * sample is that recent.  503 says which is not so. */
static struct answer ready(const struct gt_server_opts *o)
{
    struct gt_db *db;
    struct gt_error err = {0};
    if (gt_db_open(read_addr(o), GT_DB_READ, o->cfg->busy_timeout_ms, &db, &err))
        return fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "not ready: the store is not "
                    "available: %s", unavailable_reason(o, &err, "cannot open it"));
    struct gt_newest_row *rows;
    size_t n;
    int rc = gt_query_newest_by_src(db, &rows, &n, &err);
    gt_db_close(db);
    if (rc)
        return fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "not ready: the store cannot be "
                    "read: %s", err.msg);
    int64_t newest = INT64_MIN, now = (int64_t)time(NULL);
    for (size_t i = 0; i < n; i++)
        newest = rows[i].newest > newest ? rows[i].newest : newest;
    gt_newest_free(rows, n);
    long max_age = o->cfg->server_ready_max_age_s;
    if (max_age > 0 && (newest == INT64_MIN || now - newest > max_age))
        return fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "not ready: the newest sample is %s "
                    "([server] ready_max_age_s = %ld)", newest == INT64_MIN ? "missing"
                    : "too old", max_age);
    json_t *doc = json_pack("{s:s, s:o}", "status", "ready", "newest_sample_age_s",
                            newest == INT64_MIN ? json_null() : json_integer(now - newest));
    return ok_json(doc);
}

/* GET /metrics: the counters, and each source site's newest sample when
 * the store can be read. */
static struct answer metrics(const struct gt_server_opts *o, const struct gt_metrics *m)
{
    if (!m)
        return fail(MHD_HTTP_NOT_FOUND, NULL, "/metrics: only a running server keeps them");
    struct gt_db *db;
    struct gt_error err = {0};
    struct gt_newest_row *rows = NULL;
    size_t n = 0;
    bool up = gt_db_open(read_addr(o), GT_DB_READ, o->cfg->busy_timeout_ms, &db, &err) == GT_OK;
    if (up) {
        up = gt_query_newest_by_src(db, &rows, &n, &err) == GT_OK;
        gt_db_close(db);
    }
    char *text = gt_metrics_text(m, up, rows, n, (int64_t)time(NULL));
    gt_newest_free(rows, n);
    if (!text)
        return fail(MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "out of memory");
    return (struct answer){.status = MHD_HTTP_OK, .text = text,
                           .type = "text/plain; version=0.0.4; charset=utf-8"};
}

/* GET /v1/plot/KIND: one of src/plot's SVGs, for the dashboard. */
static struct answer plot(const struct gt_server_opts *o, const struct req_ctx *q,
                          const char *kind)
{
    int64_t window = o->cfg->window, bins = 240;
    if (q->window && (!gt_parse_i64(q->window, strlen(q->window), &window) || window < 2))
        return fail(MHD_HTTP_BAD_REQUEST, "window", "expected an integer >= 2");
    if (window > o->cfg->server_max_window)
        return TOO_MUCH("window", window, o->cfg->server_max_window, "max_window");
    if (q->bins && (!gt_parse_i64(q->bins, strlen(q->bins), &bins) || bins < 1 ||
                    bins > GT_PLOT_MAX_BINS))
        return fail(MHD_HTTP_BAD_REQUEST, "bins", "expected an integer 1 to %d", GT_PLOT_MAX_BINS);
    int64_t samples = 1440;
    if (q->samples && (!gt_parse_i64(q->samples, strlen(q->samples), &samples) ||
                       samples < 1 || samples > GT_PLOT_MAX_MATRIX_SAMPLES))
        return fail(MHD_HTTP_BAD_REQUEST, "samples", "expected an integer 1 to %d",
                    GT_PLOT_MAX_MATRIX_SAMPLES);
    enum gt_plot_metric metric = GT_PLOT_MEDIAN;
    if (q->metric && !gt_plot_metric_parse(q->metric, &metric))
        return fail(MHD_HTTP_BAD_REQUEST, "metric", "expected median, p99, loss, alpha or status");
    bool pair = strcmp(kind, "matrix") != 0;
    if (pair && (!q->src || !q->dst))
        return fail(MHD_HTTP_BAD_REQUEST, q->src ? "dst" : "src", "?src=A&dst=B is needed");
    char *names[GT_PLOT_MAX_SITES], *copy = q->highlight ? strdup(q->highlight) : NULL;
    size_t nnames = 0;
    for (char *save, *t = copy ? strtok_r(copy, ",", &save) : NULL; t;
         t = strtok_r(NULL, ",", &save))
        if (nnames < GT_PLOT_MAX_SITES)
            names[nnames++] = t;
    struct gt_db *db;
    struct answer a = open_store(o, &db);
    if (a.status) {
        free(copy);
        return a;
    }
    struct gt_buf doc;
    struct gt_error err = {0};
    gt_buf_init(&doc, GT_PLOT_MAX_BYTES);
    int rc;
    if (!strcmp(kind, "ccdf")) {
        struct gt_plot_pair_opts po = {q->src, q->dst, (size_t)window, (int64_t)time(NULL),
                                       o->cfg->rto_ms, o->cfg};
        rc = gt_plot_ccdf(db, &po, &doc, &err);
    } else if (!strcmp(kind, "series")) {
        struct gt_event_opts eo = gt_event_opts_of(o->cfg);
        struct gt_plot_series_opts po = {q->src, q->dst, 0, 0, (size_t)bins, (size_t)window,
                                         false, &eo};
        rc = gt_plot_series(db, &po, &doc, &err);
    } else {
        struct gt_thresholds t = {0};
        struct gt_plot_matrix_opts po = {metric, (size_t)samples, (size_t)window,
                                         (int64_t)time(NULL),
                                         (const char *const *)names, nnames, false, &t};
        rc = metric == GT_PLOT_STATUS
                 ? gt_thresholds_load(&t, o->cfg, (size_t)o->cfg->window, &err)
                 : GT_OK;
        if (rc == GT_OK)
            rc = gt_plot_matrix(db, &po, &doc, &err);
        gt_thresholds_free(&t);
    }
    gt_db_close(db);
    free(copy);
    if (rc) {
        gt_buf_free(&doc);
        struct answer e = fail_err(&err, rc);
        if (rc == GT_ENOTFOUND)   /* the plot of a pair or site that is not there */
            e.status = MHD_HTTP_NOT_FOUND;
        return e;
    }
    return (struct answer){.status = MHD_HTTP_OK, .text = doc.data, .type = "image/svg+xml"};
}

/* GET / and the dashboard's other files (compiled in). */
static struct answer asset(const struct gt_asset *f)
{
    char *text = malloc(f->len + 1);
    if (!text)
        return fail(MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "out of memory");
    memcpy(text, f->data, f->len + 1);
    return (struct answer){.status = MHD_HTTP_OK, .text = text, .type = f->type, .page = true};
}

typedef struct answer (*endpoint_fn)(const struct gt_server_opts *, struct gt_advisor *,
                                     const json_t *, const struct gt_advice *);

static const struct {
    const char *path;
    endpoint_fn run;
    const char *const *keys;
} endpoints[] = {
    {"/v1/estimate", do_estimate, estimate_keys},
    {"/v1/rank", do_rank, rank_keys},
    {"/v1/place", do_place, place_keys},
};

/* Each server thread keeps its own connection to the store across
 * requests: opening one (pragmas, reading the schema) cost a third of a
 * served estimate.  Nothing is held between requests, so each request
 * still reads a fresh snapshot; a store that was replaced or removed
 * (another inode at the path) is opened again, or answered 503. */
struct worker_db {
    struct gt_db *db;
    dev_t dev;
    ino_t ino;
    char *path;
};

static pthread_key_t worker_db_key;
static pthread_once_t worker_db_once = PTHREAD_ONCE_INIT;

static void worker_db_free(void *p)
{
    struct worker_db *w = p;
    if (w) {
        gt_db_close(w->db);
        free(w->path);
        free(w);
    }
}

static void worker_db_key_make(void)
{
    pthread_key_create(&worker_db_key, worker_db_free);
}

static struct gt_db *worker_db(const struct gt_server_opts *o, struct gt_error *err)
{
    pthread_once(&worker_db_once, worker_db_key_make);
    struct worker_db *w = pthread_getspecific(worker_db_key);
    struct stat st = {0};
    /* a store at a URL has no inode to watch: its connection reconnects */
    const char *addr = read_addr(o);
    bool there = !gt_db_is_file(addr) || stat(addr, &st) == 0;
    if (w && (!there || w->dev != st.st_dev || w->ino != st.st_ino || strcmp(w->path, addr))) {
        worker_db_free(w);
        pthread_setspecific(worker_db_key, w = NULL);
    }
    if (w)
        return w->db;
    if (!there) {
        gt_error_set(err, GT_EIO, NULL, "cannot open it");
        return NULL;
    }
    struct gt_db *db;
    if (gt_db_open(addr, GT_DB_READ, o->cfg->busy_timeout_ms, &db, err) != GT_OK)
        return NULL;
    if (!(w = calloc(1, sizeof *w)) || !(w->path = strdup(addr))) {
        free(w);
        gt_db_close(db);
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    *w = (struct worker_db){db, st.st_dev, st.st_ino, w->path};
    pthread_setspecific(worker_db_key, w);
    return db;
}

/* The longest array an advisor request may hold before it is parsed: a
 * guard well past the bounds on candidates, a pool and a set's sites,
 * which the fields' own checks answer 422 by name */
static size_t longest_array(const struct gt_server_opts *o)
{
    long most = o->cfg->server_max_candidates;
    if (o->cfg->server_max_pool > most)
        most = o->cfg->server_max_pool;
    if (o->cfg->server_max_partners + 1 > most)
        most = o->cfg->server_max_partners + 1;
    return 2 * (size_t)most + 1024;
}

/* Before parsing an advisor body: its arrays within the server's bounds,
 * and what it takes parsed (10 to 75 times its size) counted against the
 * budgets like a body.  status 0: go on, with *held bytes to give back. */
static struct answer parse_cost(const struct gt_server_opts *o, struct req_ctx *q,
                                const char *body, size_t len, size_t *held)
{
    struct gt_json_cost cost;
    gt_json_cost(body, len, &cost);
    *held = 0;
    if (cost.longest > longest_array(o))
        return fail(MHD_HTTP_CONTENT_TOO_LARGE, NULL, "an array of %zu elements: more than "
                    "this server takes (at most %zu: [server] max_candidates, max_pool, "
                    "max_partners)", cost.longest, longest_array(o));
    if (!q->s)
        return (struct answer){.status = 0};
    if (cost.bytes + len > most_held(q->s, q->peer))   /* the body itself is held too */
        return fail(MHD_HTTP_CONTENT_TOO_LARGE, NULL, "parsed, this body would take %.0f MiB: "
                    "more than one client may hold ([server] max_buffered_per_client_mb, "
                    "max_buffered_mb)", (double)cost.bytes / 1048576);
    if (!hold(q->s, q->peer, cost.bytes))
        return fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "the server holds too many requests "
                    "in memory now ([server] max_buffered_mb, max_buffered_per_client_mb): "
                    "try again shortly");
    *held = cost.bytes;
    return (struct answer){.status = 0};
}

/* An advisor request parsed: the options, the advisor, the answer. */
static struct answer advise_parsed(const struct gt_server_opts *o, struct req_ctx *q, size_t ep,
                                   const char *body, size_t len)
{
    json_error_t jerr;
    json_t *req = json_loadb(body ? body : "", len, 0, &jerr);
    if (!req)
        return fail(MHD_HTTP_BAD_REQUEST, NULL, "the body is not JSON: line %d, column %d: %s",
                    jerr.line, jerr.column, jerr.text);
    struct gt_advice ad;
    gt_advice_defaults(&ad, o->cfg, (int64_t)time(NULL));
    ad.o.threads = o->adv_threads;
    ad.o.sites = o->sites;
    ad.o.enforce_max_loss = endpoints[ep].run != do_estimate;   /* rank, place */
    ad.o.stop = request_stop;
    ad.o.stop_ctx = q;
    struct gt_error err = {0};
    int rc = gt_advice_from_json(&ad, req, endpoints[ep].keys, &err);
    struct answer a;
    if (rc) {
        a = fail_err(&err, rc);
    } else if ((long)ad.o.window > o->cfg->server_max_window) {
        a = TOO_MUCH("window", ad.o.window, o->cfg->server_max_window, "max_window");
    } else {
        struct gt_db *db = worker_db(o, &err);
        struct gt_advisor *adv = db ? gt_advisor_new(db, &ad.o) : NULL;
        if (!adv) {   /* the store is not there or cannot be read: try again later */
            a = fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "the store is not available: %s",
                     unavailable_reason(o, &err, db ? "cannot read it" : "cannot open it"));
        } else {
            a = endpoints[ep].run(o, adv, req, &ad);
            if (q->s)
                gt_metrics_fits(q->s->metrics, gt_advisor_fits(adv), gt_advisor_cached_fits(adv));
            size_t saved;
            struct gt_error ignored = {0};   /* the answer stands either way */
            if (o->cfg->server_save_fits)
                gt_advisor_save_fits(adv, &saved, &ignored);
            gt_advisor_free(adv);
        }
    }
    json_decref(req);
    return a;
}

/* A POST to an advisor endpoint: the options, the advisor, the answer. */
static struct answer advise(const struct gt_server_opts *o, struct req_ctx *q, size_t ep,
                            const char *body, size_t len)
{
    size_t held;
    struct answer refused = parse_cost(o, q, body ? body : "", len, &held);
    if (refused.status)
        return refused;
    struct answer a = advise_parsed(o, q, ep, body, len);
    if (q->s)
        unhold(q->s, q->peer, held);
    return a;
}

/* POST /v1/samples (write scope, checked before): the body into the store. */
static struct answer push(const struct gt_server_opts *o, struct gt_metrics *m,
                          const struct req_ctx *q, const char *method, const char *body,
                          size_t len)
{
    if (strcmp(method, "POST")) {
        struct answer a = fail(MHD_HTTP_METHOD_NOT_ALLOWED, NULL, "/v1/samples: use POST "
                               "with text/csv or a JSON array");
        a.allow = "POST";
        return a;
    }
    if (!body)
        return fail(MHD_HTTP_CONTENT_TOO_LARGE, NULL, "the body is larger than %zu bytes: send "
                    "the samples in parts", o->max_body);
    /* writes must not starve reads: a push waits push_wait_ms for the
       store's write lock (another writer, a long cron ingest), and at
       most half the workers push at once; past either it is 503 and the
       pusher keeps the samples in its spool */
    unsigned most = o->threads > 1 ? o->threads / 2 : 1;
    if (q->s && atomic_fetch_add(&q->s->pushing, 1) >= most) {
        atomic_fetch_sub(&q->s->pushing, 1);
        return fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "%u pushes are being stored already "
                    "(at most half the workers push at once): try again shortly", most);
    }
    char name[128];
    snprintf(name, sizeof name, "POST /v1/samples from %s", q->client[0] ? q->client : "?");
    unsigned status;
    json_t *doc = gt_samples_push(o->db_path, o->cfg->server_push_wait_ms, q->content_type, body,
                                  len, name, &status);
    if (q->s)
        atomic_fetch_sub(&q->s->pushing, 1);
    if (!doc)
        return fail(MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "out of memory");
    if (status == 200 && m)
        gt_metrics_pushed(m, json_integer_value(json_object_get(doc, "stored")),
                          json_integer_value(json_object_get(doc, "duplicates")),
                          json_integer_value(json_object_get(doc, "conflicts")),
                          json_integer_value(json_object_get(doc, "rejected")));
    return (struct answer){.status = status, .doc = doc};
}

/* body == NULL: larger than o->max_body. */
static struct answer route(const struct gt_server_opts *o, struct gt_metrics *m,
                           struct req_ctx *q, const char *method, const char *url,
                           const char *body, size_t len)
{
    static const char *const gets[] = {"/v1/health", "/healthz", "/readyz", "/metrics",
                                       "/v1/sites", "/v1/pairs", "/v1/status",
                                       "/metrics/pairs", "/v1/events", "/v1/plot/matrix",
                                       "/v1/plot/ccdf", "/v1/plot/series"};
    const struct gt_asset *file = gt_asset_find(url);
    if (file) {
        if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
            struct answer a = fail(MHD_HTTP_METHOD_NOT_ALLOWED, NULL, "%s: use GET", url);
            a.allow = "GET, HEAD";
            return a;
        }
        return asset(file);
    }
    for (size_t i = 0; i < sizeof gets / sizeof gets[0]; i++) {
        if (strcmp(url, gets[i]))
            continue;
        if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
            struct answer a = fail(MHD_HTTP_METHOD_NOT_ALLOWED, NULL, "%s: use GET", url);
            a.allow = "GET, HEAD";
            return a;
        }
        switch (i) {
        case 0: return health(o);
        case 1: return ok_json(json_pack("{s:s}", "status", "alive"));   /* no store */
        case 2: return ready(o);
        case 3: return metrics(o, m);
        case 4: return sites(o);
        case 5: return pairs(o, q);
        case 6: return status(o, q);
        case 7: return metrics_pairs(o, q);
        case 8: return events(o, q);
        default: return plot(o, q, url + strlen("/v1/plot/"));
        }
    }
    if (!strcmp(url, "/v1/samples"))
        return push(o, m, q, method, body, len);
    for (size_t i = 0; i < sizeof endpoints / sizeof endpoints[0]; i++) {
        if (strcmp(url, endpoints[i].path))
            continue;
        if (strcmp(method, "POST")) {
            struct answer a = fail(MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
                                   "%s: use POST with a JSON body", url);
            a.allow = "POST";
            return a;
        }
        if (!body)
            return fail(MHD_HTTP_CONTENT_TOO_LARGE, NULL, "the body is larger than %zu bytes "
                        "([server] max_request_kb)", body_limit(o, url));
        return advise(o, q, i, body, len);
    }
    return fail(MHD_HTTP_NOT_FOUND, NULL, "no endpoint %s (see /v1/health, /v1/estimate, "
                "/v1/rank, /v1/place, /v1/sites, /v1/pairs, /v1/status, /v1/events, "
                "/v1/plot/matrix, "
                "/v1/plot/ccdf, /v1/plot/series, /v1/samples, /v1/openapi.json, /healthz, "
                "/readyz, /metrics, /metrics/pairs; the dashboard "
                "is at /)", url);
}

unsigned gt_server_answer(const struct gt_server_opts *o, const char *method, const char *path,
                          const char *body, size_t len, json_t **doc)
{
    struct req_ctx q = {.deadline_ms = gt_monotonic_ms() + 1e3 * (double)o->cfg->server_request_budget_s,
                         .fd = -1};
    snprintf(q.budget, sizeof q.budget, "the time budget ([server] request_budget_s = %ld) ran "
             "out", o->cfg->server_request_budget_s);
    struct answer a = route(o, NULL, &q, method, path, body ? body : "", len);
    free(a.text);
    *doc = a.doc;
    return a.status;
}

/* ------------------------------------------------------------ MHD glue */

/* What a client sent, safe for a log line: control bytes, quotes,
 * backslashes and non-ASCII as \xHH (a decoded %0A must not start a forged
 * line), cut at 512 bytes of output. */
static const char *log_safe(const char *in, char *out, size_t size)
{
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && k + 5 < size; p++) {
        if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\')
            k += (size_t)snprintf(out + k, size - k, "\\x%02x", *p);
        else
            out[k++] = (char)*p;
    }
    out[k] = '\0';
    return out;
}

/* an address as text, or "" */
static void address_text(const struct sockaddr *sa, char *out, size_t size)
{
    out[0] = 0;
    if (sa && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)size);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)size);
}

/* the client's address as text, or "" */
static void client_name(struct MHD_Connection *c, char *out, size_t size)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    address_text(ci ? ci->client_addr : NULL, out, size);
}

/* One JSON line a request: time, client, method, path (what the client
 * sent, made safe: log_safe), status, ms. */
static void log_request(struct gt_server *s, struct MHD_Connection *c, const char *method,
                        const char *url, unsigned status, double ms)
{
    if (!s->o.log)
        return;
    char when[32], host[INET6_ADDRSTRLEN], m[64], u[520];
    gt_format_time((int64_t)time(NULL), when, sizeof when);
    client_name(c, host, sizeof host);
    json_t *line = json_pack("{s:s, s:s, s:s, s:s, s:i, s:f}", "time", when, "client",
                             host[0] ? host : "?", "method", log_safe(method, m, sizeof m),
                             "path", log_safe(url, u, sizeof u), "status", (int)status, "ms",
                             round(ms * 10) / 10);
    /* ms is rounded to 0.1: its shortest text reads as such (0.4) */
    char *text = line ? gt_json_dumps(line, JSON_COMPACT) : NULL;
    json_decref(line);
    if (!text)
        return;
    pthread_mutex_lock(&s->log_lock);
    fprintf(s->o.log, "%s\n", text);
    fflush(s->o.log);
    pthread_mutex_unlock(&s->log_lock);
    free(text);
}

/* The answer's JSON document rendered as its text (the document freed),
 * on the thread that computed it: the rendering is a fifth of an answer. */
static void render(struct answer *a)
{
    if (a->text)
        return;
    char *text = a->doc ? gt_json_dumps(a->doc, JSON_INDENT(2)) : NULL;
    json_decref(a->doc);
    a->doc = NULL;
    if (!text) {
        static const char oom[] = "{\"error\": \"out of memory\", \"field\": null}\n";
        a->status = MHD_HTTP_INTERNAL_SERVER_ERROR;
        text = strdup(oom);
    }
    size_t len = text ? strlen(text) : 0;
    if (text && len && text[len - 1] != '\n') {
        char *t = realloc(text, len + 2);
        if (t) {
            t[len++] = '\n';
            t[len] = 0;
            text = t;
        }
    }
    a->text = text;
}

static enum MHD_Result send_answer(struct MHD_Connection *c, struct answer a)
{
    render(&a);
    char *text = a.text;
    size_t len = text ? strlen(text) : 0;
    struct MHD_Response *r = MHD_create_response_from_buffer(len, text ? text : "",
                                                             text ? MHD_RESPMEM_MUST_FREE
                                                                  : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                            a.text && a.type ? a.type : "application/json");
    if (a.allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, a.allow);
    if (a.challenge)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"gridtail\"");
    if (a.page) {
        /* the page runs only its own script and reaches only this server;
           the plots' SVG carry their own <style>, hence inline styles */
        MHD_add_response_header(r, "Content-Security-Policy",
                                "default-src 'self'; script-src 'self'; style-src 'self' "
                                "'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'");
        MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    }
    enum MHD_Result ret = MHD_queue_response(c, a.status, r);
    MHD_destroy_response(r);
    return ret;
}

/* The name of a Host value (or an Origin's rest) without its port or an
 * IPv6 literal's brackets into name; false if there is none or it is too
 * long to be an address or localhost. */
static bool host_name(const char *host, char *name, size_t size)
{
    size_t n = host[0] == '[' ? strcspn(host + 1, "]") : strcspn(host, ":");
    if (n == 0 || n >= size)
        return false;
    memcpy(name, host + (host[0] == '['), n);
    name[n] = 0;
    return true;
}

/* An IP address or localhost: a name no one else can point at us */
static bool local_name(const char *name)
{
    unsigned char addr[16];
    return !strcasecmp(name, "localhost") || inet_pton(AF_INET, name, addr) == 1 ||
           inet_pton(AF_INET6, name, addr) == 1;
}

/* Origin is this server itself, the dashboard's page: scheme://Host with
 * Host an IP address or localhost.  A name is not enough: a page whose
 * name an attacker re-points at this address (DNS rebinding) would be
 * "same origin" too; a dashboard reached by name goes into
 * [server] allowed_origins. */
static bool same_origin(struct MHD_Connection *c, const char *origin)
{
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    const char *rest = !strncmp(origin, "http://", 7) ? origin + 7
                       : !strncmp(origin, "https://", 8) ? origin + 8 : NULL;
    char name[64];
    if (!host || !*host || !rest || strcmp(rest, host) || !host_name(host, name, sizeof name))
        return false;
    return local_name(name);
}

/* Whether a request's Host may be answered: none (HTTP/1.0), an IP
 * address, localhost, or a name [server] allowed_hosts lists.  A page
 * that DNS rebinding re-pointed at this address sends its own name, and
 * would otherwise read the store from a browser on this host without
 * any Origin (a GET of its "own" site). */
static bool host_allowed(const struct gt_server_opts *o, struct MHD_Connection *c)
{
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    char name[256];
    if (!host || !*host)
        return true;
    if (!host_name(host, name, sizeof name))
        return false;
    return local_name(name) || gt_listed(o->cfg->server_allowed_hosts, name, true);
}

/* A web page in a browser must not drive the API: a POST carries JSON
 * (a form or text/plain is what a page can send without asking), and a
 * request from a page of another origin is refused unless [server]
 * allowed_origins lists it (the server's own page is let through, see
 * same_origin).  status 0: go on. */
static struct answer browser_check(const struct gt_server_opts *o, struct MHD_Connection *c,
                                   const char *method, const char *url)
{
    bool advisor = false;   /* the JSON endpoints; other paths answer 404/405 */
    for (size_t i = 0; i < sizeof endpoints / sizeof endpoints[0]; i++)
        advisor = advisor || !strcmp(url, endpoints[i].path);
    if (!host_allowed(o, c))
        return fail(421, NULL, "this server does not answer to that Host name: an IP "
                    "address, localhost or a name in [server] allowed_hosts");
    const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    if (origin && *origin && !same_origin(c, origin) &&
        !gt_listed(o->cfg->server_allowed_origins, origin, false))
        return fail(MHD_HTTP_FORBIDDEN, NULL, "requests from the origin '%.200s' are "
                    "refused ([server] allowed_origins)", origin);
    if (advisor && !strcmp(method, "POST")) {
        const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                       MHD_HTTP_HEADER_CONTENT_TYPE);
        if (!type || strncasecmp(type, "application/json", 16) ||
            (type[16] && type[16] != ';' && type[16] != ' '))
            return fail(MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL, "a POST body must be sent as "
                        "Content-Type: application/json");
    }
    return (struct answer){.status = 0};
}

/* ------------------------------------------------------------ deadlines */

static void watch_headers_in(struct gt_server *s, struct MHD_Connection *c, bool in)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct conn_watch *w = ci ? ci->socket_context : NULL;
    if (!w)
        return;
    pthread_mutex_lock(&s->watch_lock);
    w->in_request = in;
    w->since_ms = gt_monotonic_ms();
    pthread_mutex_unlock(&s->watch_lock);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    struct gt_server *s = cls;
    struct conn_watch *w = *socket_context;
    pthread_mutex_lock(&s->watch_lock);
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (ci && (w = calloc(1, sizeof *w))) {
            char addr[64];
            bool refused;
            client_name(c, addr, sizeof addr);
            /* counted here, under the peers' lock: admit() only looked,
               and the pool's threads accept at once */
            struct gt_peer *peer = gt_peers_open(s->peers, addr, &refused);
            *w = (struct conn_watch){ci->connect_fd, gt_monotonic_ms(), false, refused, refused,
                                     peer, NULL, s->watched};
            if (refused)
                shutdown(ci->connect_fd, SHUT_RDWR);
            if (s->watched)
                s->watched->prev = w;
            s->watched = w;
            *socket_context = w;
        }
    } else if (w) {
        if (w->prev)
            w->prev->next = w->next;
        else
            s->watched = w->next;
        if (w->next)
            w->next->prev = w->prev;
        gt_peers_close(s->peers, w->peer);
        free(w);
        *socket_context = NULL;
    }
    pthread_mutex_unlock(&s->watch_lock);
}

/* A new connection: refused when its address has max_connections_per_ip
 * open already (unless [server] trusted_proxies lists it) */
static enum MHD_Result admit(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)addrlen;
    struct gt_server *s = cls;
    char text[64];
    address_text(addr, text, sizeof text);
    return gt_peers_admit(s->peers, text) ? MHD_YES : MHD_NO;
}

static const struct conn_watch *connection_watch(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

/* The client address of a connection, as on_connection counted it */
static struct gt_peer *connection_peer(struct MHD_Connection *c)
{
    const struct conn_watch *w = connection_watch(c);
    return w ? w->peer : NULL;
}

/* Twice a second: a connection whose request headers are not all in
 * header_timeout_s after it opened (or after its last answer) is shut
 * down; libmicrohttpd then closes it.  Its idle timeout alone lets a
 * client that sends a header line every few seconds hold it forever.
 * Shutting down by fd cannot hit a reused descriptor: libmicrohttpd
 * notifies MHD_CONNECTION_NOTIFY_CLOSED (on_connection, which takes
 * watch_lock to unlink the watch) before it closes the socket, so while
 * the sweeper holds the lock every fd on the list is still the one it
 * watched. */
static void *sweep(void *arg)
{
    struct gt_server *s = arg;
    double limit = 1e3 * (double)s->o.cfg->server_header_timeout_s;
    while (!atomic_load(&s->sweep_stop)) {
        nanosleep(&(struct timespec){0, 500 * 1000 * 1000}, NULL);
        double now = gt_monotonic_ms();
        pthread_mutex_lock(&s->watch_lock);
        for (struct conn_watch *w = s->watched; w; w = w->next)
            if (!w->in_request && !w->cut && now - w->since_ms > limit) {
                shutdown(w->fd, SHUT_RDWR);
                w->cut = true;
            }
        pthread_mutex_unlock(&s->watch_lock);
    }
    return NULL;
}

/* The scope a request needs: none for the probes and the dashboard's own
 * files (they hold no data), write to store samples, read otherwise. */
static enum gt_scope scope_needed(const char *url)
{
    if (!strcmp(url, "/healthz") || !strcmp(url, "/readyz") || gt_asset_find(url))
        return GT_SCOPE_NONE;
    return !strcmp(url, "/v1/samples") ? GT_SCOPE_WRITE : GT_SCOPE_READ;
}


static bool loopback(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;
    if (sa && sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa && sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return false;
}

/* Reads are open to loopback clients unless [server] read_auth; beyond,
 * the bearer token's scope must cover what the request needs: 401 (with
 * a challenge) without a known token, 403 with one of too small a scope. */
static struct answer authorize(struct gt_server *s, struct MHD_Connection *c, const char *url)
{
    enum gt_scope need = scope_needed(url);
    if (need == GT_SCOPE_NONE ||
        (need == GT_SCOPE_READ && !s->o.cfg->server_read_auth && loopback(c)))
        return (struct answer){.status = 0};
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_AUTHORIZATION);
    bool sent;
    pthread_rwlock_rdlock(&s->tokens_lock);
    enum gt_scope got = gt_tokens_scope(s->tokens, h, &sent);
    bool any = s->tokens != NULL;
    pthread_rwlock_unlock(&s->tokens_lock);
    if (got >= need)
        return (struct answer){.status = 0};
    struct answer a;
    if (got != GT_SCOPE_NONE)
        a = fail(MHD_HTTP_FORBIDDEN, NULL, "%s needs a token of scope %s; this one's is %s", url,
                 gt_scope_name(need), gt_scope_name(got));
    else if (!any)
        a = fail(MHD_HTTP_UNAUTHORIZED, NULL, "%s needs a token of scope %s, and this server "
                 "has none ([server] tokens_file)", url, gt_scope_name(need));
    else
        a = fail(MHD_HTTP_UNAUTHORIZED, NULL, sent ? "the token is not known here"
                 : "a token is needed: Authorization: Bearer TOKEN (scope %s)",
                 gt_scope_name(need));
    a.challenge = got == GT_SCOPE_NONE;
    return a;
}

static struct answer beyond_share(const struct gt_server *s, const struct gt_peer *peer)
{
    return fail(MHD_HTTP_CONTENT_TOO_LARGE, NULL, "the body is larger than one client may hold "
                "at once (%zu bytes: [server] max_buffered_per_client_mb, max_buffered_mb): "
                "send it in parts", most_held(s, peer));
}

/* Host, Origin, Content-Type, the token's scope and the declared length:
 * all in the headers.  status 0: read the body. */
static struct answer header_checks(struct gt_server *s, struct MHD_Connection *c,
                                   const char *method, const char *url)
{
    struct answer a = browser_check(&s->o, c, method, url);
    if (!a.status)
        a = authorize(s, c, url);
    const char *declared = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                       MHD_HTTP_HEADER_CONTENT_LENGTH);
    char *end;
    unsigned long long n = declared ? strtoull(declared, &end, 10) : 0;
    if (!a.status && n > body_limit(&s->o, url))
        a = fail(MHD_HTTP_CONTENT_TOO_LARGE, NULL, "the body is larger than %zu bytes%s",
                 body_limit(&s->o, url), strcmp(url, "/v1/samples")
                     ? " ([server] max_request_kb)" : ": send the samples in parts");
    if (!a.status && n > most_held(s, connection_peer(c)))
        a = beyond_share(s, connection_peer(c));
    return a;
}

/* What the request's handlers ask of it beyond method, path and body. */
static void request_context(struct gt_server *s, struct MHD_Connection *c, struct request *r)
{
    struct req_ctx *q = &r->q;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    long budget = s->o.cfg->server_request_budget_s;
    q->s = s;
    q->peer = r->peer;
    q->deadline_ms = r->t0 + 1e3 * (double)budget;
    q->fd = ci ? ci->connect_fd : -1;
    q->src = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "src");
    q->dst = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "dst");
    q->limit = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
    q->status = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "status");
    q->offset = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "offset");
    q->from = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "from");
    q->to = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "to");
    q->kind = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "kind");
    q->metric = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "metric");
    q->highlight = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "highlight");
    q->window = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "window");
    q->bins = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "bins");
    q->samples = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "samples");
    q->content_type = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                  MHD_HTTP_HEADER_CONTENT_TYPE);
    client_name(c, q->client, sizeof q->client);
    snprintf(q->budget, sizeof q->budget, "the time budget ([server] request_budget_s = %ld) "
             "ran out", budget);
}

/* The requests computed on the workers: those that read or write the
 * store.  The probes, /metrics, the sites and the dashboard's files stay
 * on the connection's thread: cheap, and never queued behind a search. */
static bool touches_store(const char *url)
{
    return !strncmp(url, "/v1/plot/", 9) || !strcmp(url, "/v1/pairs") ||
           !strcmp(url, "/v1/status") || !strcmp(url, "/metrics/pairs") ||
           !strcmp(url, "/v1/events") ||
           !strcmp(url, "/v1/samples") || !strcmp(url, "/v1/estimate") ||
           !strcmp(url, "/v1/rank") || !strcmp(url, "/v1/place");
}

/* A worker's job: route the request, render its answer, resume the
 * connection (whose thread then sends it: handler -> finish). */
static void compute(struct gt_job *job)
{
    struct request *r = (struct request *)((char *)job - offsetof(struct request, job));
    struct answer a = route(&r->s->o, r->s->metrics, &r->q, r->method, r->url, r->upload,
                            r->body.len);
    render(&a);
    r->a = a;
    atomic_store(&r->answered, true);
    MHD_resume_connection(r->c);
}

static enum MHD_Result finish(struct gt_server *s, struct MHD_Connection *c, struct request *r,
                              struct answer a, const char *method, const char *url)
{
    unsigned status = a.status;
    enum MHD_Result ret = send_answer(c, a);
    r->a = (struct answer){0};
    double ms = gt_monotonic_ms() - r->t0;
    gt_metrics_observe(s->metrics, url, status, ms / 1e3);
    log_request(s, c, method, url, status, ms);
    return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    (void)version;
    struct gt_server *s = cls;
    struct request *r = *con_cls;
    if (!r) {   /* the headers: what they decide is decided now */
        const struct conn_watch *w = connection_watch(c);
        if (w && w->refused)
            return MHD_NO;   /* one connection too many from its address */
        watch_headers_in(s, c, true);
        if (!(r = calloc(1, sizeof *r)))
            return MHD_NO;
        gt_buf_init(&r->body, body_limit(&s->o, url));
        r->t0 = gt_monotonic_ms();
        r->peer = connection_peer(c);
        *con_cls = r;
        gt_metrics_begin(s->metrics);
        /* refused for its headers: answered before any of the body is
           read (libmicrohttpd discards the body and closes) */
        struct answer a = header_checks(s, c, method, url);
        return a.status ? finish(s, c, r, a, method, url) : MHD_YES;
    }
    if (*upload_size) {   /* a piece of the body */
        if (gt_monotonic_ms() - r->t0 > 1e3 * (double)s->o.cfg->server_body_timeout_s)
            return MHD_NO;   /* trickling past body_timeout_s: the connection goes */
        size_t n = *upload_size;
        if (r->held + n > most_held(s, r->peer))
            r->beyond_share = true;   /* never fits (a chunked body says no length) */
        if (!r->too_big && !r->over_budget && !r->beyond_share) {
            /* every connection's body counts against one budget and its
               address's share: slow uploads cannot add up to max_body
               times the connections, nor one host take it all */
            if (!hold(s, r->peer, n)) {
                r->over_budget = true;
            } else {
                r->held += n;
                if (gt_buf_append(&r->body, upload, n) != GT_OK)
                    r->too_big = true;
            }
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (atomic_load(&r->answered))   /* resumed: a worker computed it */
        return finish(s, c, r, r->a, method, url);
    const char *body = r->too_big ? NULL : r->body.data ? r->body.data : "";
    struct answer a = {0};
    if (r->beyond_share)
        a = beyond_share(s, r->peer);
    else if (r->over_budget)
        a = fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "the server holds more request bodies "
                 "than [server] max_buffered_mb at once, or this client address more than "
                 "max_buffered_per_client_mb: try again shortly");
    if (!a.status) {
        request_context(s, c, r);
        if (touches_store(url)) {
            r->job.run = compute;
            r->s = s;
            r->c = c;
            r->method = method;
            r->url = url;
            r->upload = body;
            /* suspended before it is queued: the worker's resume must
               find it suspended */
            MHD_suspend_connection(c);
            if (!gt_workers_push(s->workers, &r->job))
                compute(&r->job);   /* stopping: answered here, resumed at once */
            return MHD_YES;
        }
        a = route(&s->o, s->metrics, &r->q, method, url, body, r->body.len);
    }
    return finish(s, c, r, a, method, url);
}

static void request_done(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)c, (void)toe;
    struct gt_server *s = cls;
    struct request *r = *con_cls;
    watch_headers_in(s, c, false);   /* the next request's deadline starts now */
    if (r) {
        unhold(s, r->peer, r->held);
        gt_metrics_done(s->metrics);
        gt_buf_free(&r->body);
        free(r->a.text);   /* computed, but the connection ended before it went out */
        free(r);
        *con_cls = NULL;
    }
}

/* ------------------------------------------------------------ start, stop */

/* The address to listen on: numeric (IPv4 or IPv6), or "localhost" for
 * 127.0.0.1.  No name lookups: a listening address is not worth a DNS
 * query at start-up. */
static int bind_address(const char *addr, unsigned port, struct sockaddr_storage *ss,
                        unsigned *flags, struct gt_error *err)
{
    char serv[8];
    snprintf(serv, sizeof serv, "%u", port);
    if (!strcmp(addr, "localhost"))
        addr = "127.0.0.1";
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV | AI_NUMERICHOST},
                    *res = NULL;
    int rc = getaddrinfo(addr, serv, &hints, &res);
    if (rc || !res || res->ai_addrlen > sizeof *ss) {
        if (res)
            freeaddrinfo(res);
        return gt_error_set(err, GT_EUSAGE, "--listen", "'%s': %s", addr,
                            rc ? gai_strerror(rc) : "no usable address");
    }
    memset(ss, 0, sizeof *ss);
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    if (res->ai_family == AF_INET6)
        *flags |= MHD_USE_IPv6;
    freeaddrinfo(res);
    return GT_OK;
}

/* what gt_server_start set up before the daemon, undone */
static void gt_server_stop_early(struct gt_server *s)
{
    pthread_mutex_destroy(&s->log_lock);
    pthread_rwlock_destroy(&s->tokens_lock);
    pthread_mutex_destroy(&s->watch_lock);
    gt_tokens_free(s->tokens);
    gt_peers_free(s->peers);
    gt_metrics_free(s->metrics);
    gt_workers_free(s->workers);
    free(s);
}

int gt_server_reload(struct gt_server *s, size_t *ntokens, struct gt_error *err)
{
    struct gt_tokens *t = NULL;
    const char *path = s->o.cfg->server_tokens_file;
    int rc = path[0] ? gt_tokens_load(path, &t, err) : GT_OK;
    if (rc)
        return rc;   /* the tokens before stay */
    pthread_rwlock_wrlock(&s->tokens_lock);
    struct gt_tokens *old = s->tokens;
    s->tokens = t;
    pthread_rwlock_unlock(&s->tokens_lock);
    gt_tokens_free(old);
    *ntokens = gt_tokens_count(t);
    return GT_OK;
}

size_t gt_server_tokens(struct gt_server *s)
{
    pthread_rwlock_rdlock(&s->tokens_lock);
    size_t n = gt_tokens_count(s->tokens);
    pthread_rwlock_unlock(&s->tokens_lock);
    return n;
}

struct gt_server *gt_server_start(const struct gt_server_opts *o, struct gt_error *err)
{
    struct gt_server *s = calloc(1, sizeof *s);
    if (!s) {
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    s->o = *o;
    if (!(s->metrics = gt_metrics_new())) {
        free(s);
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&s->log_lock, NULL);
    pthread_rwlock_init(&s->tokens_lock, NULL);
    pthread_mutex_init(&s->watch_lock, NULL);
    if (o->cfg->server_read_auth && !o->cfg->server_tokens_file[0]) {
        gt_error_set(err, GT_EUSAGE, "read_auth", "[server] read_auth = 1 needs a tokens_file");
        gt_server_stop_early(s);
        return NULL;
    }
    if (o->cfg->server_tokens_file[0] &&
        gt_tokens_load(o->cfg->server_tokens_file, &s->tokens, err) != GT_OK) {
        gt_server_stop_early(s);
        return NULL;
    }
    struct sockaddr_storage ss;
    /* AUTO: epoll where there is one, so connections are not capped by
       select's FD_SETSIZE */
    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG | MHD_USE_ITC |
                     MHD_ALLOW_SUSPEND_RESUME | (o->tls_cert ? MHD_USE_TLS : 0);
    s->peers = gt_peers_new((size_t)o->cfg->server_max_connections_per_ip,
                            (size_t)o->cfg->server_max_buffered_per_client_mb << 20,
                            o->cfg->server_trusted_proxies);
    if (!s->peers) {
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        gt_server_stop_early(s);
        return NULL;
    }
    if (!(s->workers = gt_workers_start(o->threads ? o->threads : 1))) {
        gt_error_set(err, GT_ENOMEM, NULL, "cannot start %u worker threads", o->threads);
        gt_server_stop_early(s);
        return NULL;
    }
    if (bind_address(o->addr, o->port, &ss, &flags, err) == GT_OK) {
        s->d = MHD_start_daemon(flags, (uint16_t)o->port, admit, s, handler, s,
                                MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                                MHD_OPTION_THREAD_POOL_SIZE, o->threads ? o->threads : 1,
                                MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s,
                                MHD_OPTION_CONNECTION_LIMIT,
                                (unsigned)o->cfg->server_max_connections,
                                MHD_OPTION_NOTIFY_COMPLETED, request_done, s,
                                MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
                                o->tls_cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END,
                                o->tls_cert, MHD_OPTION_HTTPS_MEM_KEY, o->tls_key,
                                MHD_OPTION_HTTPS_PRIORITIES, o->cfg->server_tls_priorities,
                                MHD_OPTION_END);
        if (!s->d)
            gt_error_set(err, GT_EIO, o->addr, "cannot listen on port %u (in use, or not "
                         "permitted%s)", o->port, o->tls_cert ? "; or the TLS certificate "
                         "and key do not go together, or [server] tls_priorities is not a "
                         "GnuTLS priority string" : "");
    }
    if (!s->d) {
        gt_server_stop_early(s);
        return NULL;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di ? di->port : o->port;
    s->sweeping = pthread_create(&s->sweeper, NULL, sweep, s) == 0;
    return s;
}

unsigned gt_server_port(const struct gt_server *s)
{
    return s->port;
}

void gt_server_stop(struct gt_server *s)
{
    if (!s)
        return;
    /* no new connections; searches in progress end at their next step and
       answer with what they have; then wait (at most DRAIN_MS) for those
       answers to go out before closing every connection */
    atomic_store(&s->stopping, true);
    MHD_quiesce_daemon(s->d);
    for (double t0 = gt_monotonic_ms();
         gt_metrics_in_flight(s->metrics) > 0 && gt_monotonic_ms() - t0 < DRAIN_MS;)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    atomic_store(&s->sweep_stop, true);
    if (s->sweeping)
        pthread_join(s->sweeper, NULL);
    /* every queued request is answered and its connection resumed: MHD
       must not be stopped with a connection suspended */
    gt_workers_stop(s->workers);
    MHD_stop_daemon(s->d);
    gt_server_stop_early(s);
}
