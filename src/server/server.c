/*
 * server.c - see server.h: the daemon (start, stop, reload), the request
 * lifecycle, and the limits that hold whatever the endpoint.  Which
 * endpoint answers is route.h's table; who may ask is guard.h's; the
 * open connections are conns.h's.
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
#include "answer.h"
#include "conns.h"
#include "endpoints.h"
#include "guard.h"
#include "metrics.h"
#include "mhd_lazy.h"
#include "peers.h"
#include "route.h"
#include "workers.h"
#include "base/jsonout.h"
#include "base/util.h"

#include <arpa/inet.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

struct gt_server {
    struct MHD_Daemon *d;
    struct gt_server_opts o;
    unsigned port;
    pthread_mutex_t log_lock;
    struct gt_metrics *metrics;
    struct gt_guard *guard;         /* Host, Origin, the tokens */
    atomic_bool stopping;
    atomic_size_t body_bytes;       /* request bodies held now, in all */
    atomic_uint pushing;            /* POST /v1/samples on the workers now */
    struct gt_peers *peers;         /* per client address: connections, bytes */
    struct gt_conns *conns;         /* the open connections, for the header deadline */
    struct gt_workers *workers;     /* compute the answers that touch the store */
    struct gt_calib_memo *memo;     /* copies of the calibration states answers kept */
    struct gt_workers *readers;     /* and the plain reads (GT_ROUTE_READS): apart,
                                       so that a crowd of heavy reads cannot hold
                                       the workers an estimate needs */
};

#define DRAIN_MS 5000   /* stop: how long answers in progress may take to go out */

/* ------------------------------------------------------------ limits */

bool gt_server_hold(struct gt_server *s, struct gt_peer *peer, size_t n)
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

size_t gt_server_most_held(const struct gt_server *s, const struct gt_peer *peer)
{
    size_t budget = (size_t)s->o.cfg->server_max_buffered_mb << 20,
           share = gt_peers_share(s->peers, peer);
    return share < budget ? share : budget;
}

void gt_server_unhold(struct gt_server *s, struct gt_peer *peer, size_t n)
{
    atomic_fetch_sub(&s->body_bytes, n);
    gt_peers_release(s->peers, peer, n);
}

bool gt_server_push_begin(struct gt_server *s, unsigned most)
{
    if (atomic_fetch_add(&s->pushing, 1) < most)
        return true;
    atomic_fetch_sub(&s->pushing, 1);
    return false;
}

void gt_server_push_end(struct gt_server *s)
{
    atomic_fetch_sub(&s->pushing, 1);
}

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

const char *gt_req_stop(void *req)
{
    struct gt_req *q = req;
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

static struct gt_answer beyond_share(const struct gt_server *s, const struct gt_peer *peer)
{
    return gt_answer_fail(MHD_HTTP_CONTENT_TOO_LARGE, NULL, "the body is larger than one "
                          "client may hold at once (%zu bytes: [server] "
                          "max_buffered_per_client_mb, max_buffered_mb): send it in parts",
                          gt_server_most_held(s, peer));
}

/* Who may ask (guard.h), then the declared length against the path's
 * limit and what the client may hold: all in the headers.  status 0:
 * read the body. */
static struct gt_answer header_checks(struct gt_server *s, struct MHD_Connection *c,
                                      const char *method, const char *url)
{
    struct gt_answer a = gt_guard_check(s->guard, c, method, url);
    const char *declared = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                       MHD_HTTP_HEADER_CONTENT_LENGTH);
    char *end;
    unsigned long long n = declared ? strtoull(declared, &end, 10) : 0;
    size_t limit = gt_route_body_limit(&s->o, url);
    if (!a.status && n > limit)
        a = gt_answer_fail(MHD_HTTP_CONTENT_TOO_LARGE, NULL, "the body is larger than %zu "
                           "bytes%s", limit, gt_route_bulk(url) ? ": send the samples in parts"
                                                          : " ([server] max_request_kb)");
    if (!a.status && n > gt_server_most_held(s, gt_conns_peer(c)))
        a = beyond_share(s, gt_conns_peer(c));
    return a;
}

/* ------------------------------------------------------------ the request log */

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

/* One JSON line a request: time, client, method, path (what the client
 * sent, made safe: log_safe), status, ms. */
static void log_request(struct gt_server *s, struct MHD_Connection *c, const char *method,
                        const char *url, unsigned status, double ms)
{
    if (!s->o.log)
        return;
    char when[32], host[INET6_ADDRSTRLEN], m[64], u[520];
    gt_format_time((int64_t)time(NULL), when, sizeof when);
    gt_conns_client(c, host, sizeof host);
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

/* ------------------------------------------------------------ a request's life */

/* One request in progress. */
struct request {
    struct gt_buf body;
    bool too_big;
    bool over_budget;         /* the server held too many bodies' bytes at once */
    bool reads;               /* a plain read (GT_ROUTE_READS): on the readers */
    bool beyond_share;        /* larger than this client may ever hold: 413 */
    size_t held;              /* bytes of this body counted in body_bytes */
    struct gt_peer *peer;     /* the client's address */
    double t0;
    /* computed on a worker (the connection suspended meanwhile): */
    struct gt_job job;
    struct MHD_Connection *c;
    struct gt_req q;          /* method, path and body, query: what the endpoint gets */
    struct gt_answer a;       /* rendered: text set */
    atomic_bool answered;     /* a is ready: send it on the next call */
};

static enum MHD_Result send_answer(struct MHD_Connection *c, struct gt_answer a)
{
    gt_answer_render(&a);
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
    if (a.allow[0])
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

/* What the request's endpoint gets beyond method, path and body. */
static void request_context(struct gt_server *s, struct MHD_Connection *c, struct request *r)
{
    struct gt_req *q = &r->q;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    long budget = s->o.cfg->server_request_budget_s;
    q->o = &s->o;
    q->s = s;
    q->m = s->metrics;
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
    gt_conns_client(c, q->client, sizeof q->client);
    snprintf(q->budget, sizeof q->budget, "the time budget ([server] request_budget_s = %ld) "
             "ran out", budget);
}

/* A worker's job: route the request, render its answer, resume the
 * connection (whose thread then sends it: handler -> finish). */
static void compute(struct gt_job *job)
{
    struct request *r = (struct request *)((char *)job - offsetof(struct request, job));
    /* a read that waited its whole budget in the queue is not begun (an
       advisor's request is: it stops at once and answers with what it
       has, as it does whenever its budget runs out) */
    bool late = r->reads && gt_monotonic_ms() > r->q.deadline_ms;
    struct gt_answer a = late ? gt_answer_fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
                                               "%s before a reader was free: try again "
                                               "later", r->q.budget)
                              : gt_route_answer(&r->q);
    gt_answer_render(&a);
    r->a = a;
    atomic_store(&r->answered, true);
    MHD_resume_connection(r->c);
}

static enum MHD_Result finish(struct gt_server *s, struct MHD_Connection *c, struct request *r,
                              struct gt_answer a, const char *method, const char *url)
{
    unsigned status = a.status;
    enum MHD_Result ret = send_answer(c, a);
    r->a = (struct gt_answer){0};
    double ms = gt_monotonic_ms() - r->t0;
    gt_metrics_observe(s->metrics, url, status, ms / 1e3);
    log_request(s, c, method, url, status, ms);
    return ret;
}

/* Query arguments of one request: the API reads a dozen names at most.
 * libmicrohttpd keeps each argument in the connection's 32 KiB memory
 * pool before the handler runs; some 500 of them (3.4 KB of query) used
 * it up, and the 431 it tried to send then never went out: the client
 * waited for header_timeout_s and got nothing (issue 45, point 11). */
#define GT_SERVER_MAX_QUERY_ARGS 64

/* A request with more query arguments than that, as the handler finds
 * it: its con_cls until begin replaces it with the request. */
static char too_many_args;

/* The request line as it came, before libmicrohttpd parses the query:
 * past GT_SERVER_MAX_QUERY_ARGS arguments, the query's separators are
 * overwritten in its buffer (uri points into it, writable), so that it
 * parses as one argument, and the request is answered 414. */
static void *uri_seen(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls, (void)c;
    char *q = strchr(uri, '?');
    if (!q)
        return NULL;
    size_t n = 1;
    for (const char *p = q; (p = strchr(p + 1, '&')) != NULL;)
        n++;
    if (n <= GT_SERVER_MAX_QUERY_ARGS)
        return NULL;
    for (char *p = q; (p = strchr(p + 1, '&')) != NULL;)
        *p = '_';
    return &too_many_args;
}

/* The headers are in: what they decide is decided now. */
static enum MHD_Result begin(struct gt_server *s, struct MHD_Connection *c, const char *url,
                             const char *method, void **con_cls)
{
    bool many_args = *con_cls == &too_many_args;
    *con_cls = NULL;
    if (gt_conns_refused(c))
        return MHD_NO;   /* one connection too many from its address */
    gt_conns_headers_in(s->conns, c, true);
    struct request *r = calloc(1, sizeof *r);
    if (!r)
        return MHD_NO;
    gt_buf_init(&r->body, gt_route_body_limit(&s->o, url));
    r->t0 = gt_monotonic_ms();
    r->peer = gt_conns_peer(c);
    *con_cls = r;
    gt_metrics_begin(s->metrics);
    /* refused for its headers: answered before any of the body is read
       (libmicrohttpd discards the body and closes) */
    struct gt_answer a = header_checks(s, c, method, url);
    if (!a.status && many_args)
        a = gt_answer_fail(MHD_HTTP_URI_TOO_LONG, NULL, "more than %d query arguments",
                           GT_SERVER_MAX_QUERY_ARGS);
    return a.status ? finish(s, c, r, a, method, url) : MHD_YES;
}

/* A piece of the body: kept while it fits its limit and the budgets. */
static enum MHD_Result take(struct gt_server *s, struct request *r, const char *upload,
                            size_t *upload_size)
{
    if (gt_monotonic_ms() - r->t0 > 1e3 * (double)s->o.cfg->server_body_timeout_s)
        return MHD_NO;   /* trickling past body_timeout_s: the connection goes */
    size_t n = *upload_size;
    if (r->held + n > gt_server_most_held(s, r->peer))
        r->beyond_share = true;   /* never fits (a chunked body says no length) */
    if (!r->too_big && !r->over_budget && !r->beyond_share) {
        /* every connection's body counts against one budget and its
           address's share: slow uploads cannot add up to max_body times
           the connections, nor one host take it all */
        if (!gt_server_hold(s, r->peer, n)) {
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

/* The body is in: answered here, or on a worker when its route reads
 * or writes the store. */
static enum MHD_Result answer(struct gt_server *s, struct MHD_Connection *c, struct request *r,
                              const char *url, const char *method)
{
    struct gt_answer a = {0};
    if (r->beyond_share)
        a = beyond_share(s, r->peer);
    else if (r->over_budget)
        a = gt_answer_fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "the server holds more request "
                           "bodies than [server] max_buffered_mb at once, or this client "
                           "address more than max_buffered_per_client_mb: try again shortly");
    if (a.status)
        return finish(s, c, r, a, method, url);
    request_context(s, c, r);
    r->q.method = method;
    r->q.path = url;
    r->q.body = r->too_big ? NULL : r->body.data ? r->body.data : "";
    r->q.len = r->body.len;
    const struct gt_route *rt = gt_route_find(method, url);
    if (rt && (rt->flags & GT_ROUTE_STORE)) {
        r->job.run = compute;
        r->c = c;
        /* suspended before it is queued: the worker's resume must find it
           suspended */
        MHD_suspend_connection(c);
        r->reads = rt->flags & GT_ROUTE_READS;
        if (!gt_workers_push(r->reads ? s->readers : s->workers, &r->job))
            compute(&r->job);   /* stopping: answered here, resumed at once */
        return MHD_YES;
    }
    return finish(s, c, r, gt_route_answer(&r->q), method, url);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    (void)version;
    struct gt_server *s = cls;
    struct request *r = *con_cls;
    if (!r || r == (void *)&too_many_args)
        return begin(s, c, url, method, con_cls);
    if (*upload_size)
        return take(s, r, upload, upload_size);
    if (atomic_load(&r->answered))   /* resumed: a worker computed it */
        return finish(s, c, r, r->a, method, url);
    return answer(s, c, r, url, method);
}

static void request_done(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    struct gt_server *s = cls;
    struct request *r = *con_cls;
    gt_conns_headers_in(s->conns, c, false);   /* the next request's deadline starts now */
    if (r == (void *)&too_many_args) {   /* ended before its headers were in */
        *con_cls = NULL;
    } else if (r) {
        gt_server_unhold(s, r->peer, r->held);
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
    gt_conns_free(s->conns);
    gt_guard_free(s->guard);
    gt_peers_free(s->peers);
    gt_metrics_free(s->metrics);
    gt_workers_free(s->workers);
    gt_workers_free(s->readers);
    gt_calib_memo_free(s->memo);
    free(s);
}

int gt_server_reload(struct gt_server *s, size_t *ntokens, struct gt_error *err)
{
    return gt_guard_reload(s->guard, ntokens, err);
}

size_t gt_server_tokens(struct gt_server *s)
{
    return gt_guard_tokens(s->guard);
}

/* The daemon on o's address, every connection through s's handler. */
static struct MHD_Daemon *daemon_start(struct gt_server *s, const struct gt_server_opts *o,
                                       struct gt_error *err)
{
    struct sockaddr_storage ss;
    /* AUTO: epoll where there is one, so connections are not capped by
       select's FD_SETSIZE */
    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG | MHD_USE_ITC |
                     MHD_ALLOW_SUSPEND_RESUME | (o->tls_cert ? MHD_USE_TLS : 0);
    if (bind_address(o->addr, o->port, &ss, &flags, err) != GT_OK)
        return NULL;
    struct MHD_Daemon *d =
        MHD_start_daemon(flags, (uint16_t)o->port, gt_conns_admit, s->conns, handler, s,
                         MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                         MHD_OPTION_THREAD_POOL_SIZE, o->threads ? o->threads : 1,
                         MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s,
                         MHD_OPTION_CONNECTION_LIMIT, (unsigned)o->cfg->server_max_connections,
                         MHD_OPTION_NOTIFY_COMPLETED, request_done, s,
                         MHD_OPTION_NOTIFY_CONNECTION, gt_conns_notify, s->conns,
                         MHD_OPTION_URI_LOG_CALLBACK, uri_seen, NULL,
                         o->tls_cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END,
                         o->tls_cert, MHD_OPTION_HTTPS_MEM_KEY, o->tls_key,
                         MHD_OPTION_HTTPS_PRIORITIES, o->cfg->server_tls_priorities,
                         MHD_OPTION_END);
    if (!d)
        gt_error_set(err, GT_EIO, o->addr, "cannot listen on port %u (in use, or not "
                     "permitted%s)", o->port, o->tls_cert ? "; or the TLS certificate "
                     "and key do not go together, or [server] tls_priorities is not a "
                     "GnuTLS priority string" : "");
    return d;
}

struct gt_server *gt_server_start(const struct gt_server_opts *o, struct gt_error *err)
{
    if (mhd_lazy_load(err))
        return NULL;
    struct gt_server *s = calloc(1, sizeof *s);
    if (!s) {
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    s->o = *o;
    if (!(s->metrics = gt_metrics_new()) ||
        !(s->memo = gt_calib_memo_new((size_t)o->cfg->server_calib_states,
                                      (size_t)o->cfg->server_calib_states_mb << 20))) {
        gt_metrics_free(s->metrics);
        free(s);
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    gt_metrics_calib_memo(s->metrics, s->memo);
    pthread_mutex_init(&s->log_lock, NULL);
    if (!(s->guard = gt_guard_new(o->cfg, err))) {
        gt_server_stop_early(s);
        return NULL;
    }
    s->peers = gt_peers_new((size_t)o->cfg->server_max_connections_per_ip,
                            (size_t)o->cfg->server_max_buffered_per_client_mb << 20,
                            o->cfg->server_trusted_proxies);
    if (!s->peers || !(s->conns = gt_conns_new(s->peers, o->cfg->server_header_timeout_s))) {
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        gt_server_stop_early(s);
        return NULL;
    }
    if (!(s->workers = gt_workers_start(o->threads ? o->threads : 1)) ||
        !(s->readers = gt_workers_start((size_t)o->cfg->server_read_threads))) {
        gt_error_set(err, GT_ENOMEM, NULL, "cannot start %u worker and %ld reader threads",
                     o->threads, o->cfg->server_read_threads);
        gt_server_stop_early(s);
        return NULL;
    }
    if (!(s->d = daemon_start(s, o, err))) {
        gt_server_stop_early(s);
        return NULL;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di ? di->port : o->port;
    gt_conns_sweep_start(s->conns);
    return s;
}

struct gt_calib_memo *gt_server_calib_memo(struct gt_server *s)
{
    return s->memo;
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
    gt_conns_sweep_stop(s->conns);
    /* every queued request is answered and its connection resumed: MHD
       must not be stopped with a connection suspended */
    gt_workers_stop(s->workers);
    gt_workers_stop(s->readers);
    MHD_stop_daemon(s->d);
    gt_server_stop_early(s);
}
