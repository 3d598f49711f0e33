/*
 * endpoints.h - the server's endpoints, as route.c's table calls them:
 * each takes the request (struct gt_req) and gives its answer (answer.h).
 * They live in files named for what they serve:
 *
 *   advise.c    POST /v1/estimate, /v1/rank, /v1/place
 *   reads.c     GET /v1/sites, /v1/pairs, /v1/status, /v1/events
 *   monitor.c   GET /v1/health, /healthz, /readyz, /metrics, /metrics/pairs
 *   plots.c     GET /v1/plot/matrix, /v1/plot/ccdf, /v1/plot/series
 *   pages.c     GET / and the dashboard's other files, /v1/openapi.json
 *   push.c      POST /v1/samples
 *
 * An endpoint is called only once its request is authorized and its body
 * is in (server.c), with the method its route names; it never names a
 * file, and it reads the store in its own snapshot (dbconn.h).  Below,
 * too, what the running server lends the endpoints (server.c): its
 * budgets of held bytes and of concurrent pushes, and the stop signal
 * of a request that runs long.
 */
#ifndef GT_ENDPOINTS_H
#define GT_ENDPOINTS_H

#include "answer.h"
#include "server.h"

#include <stdbool.h>
#include <stddef.h>

struct gt_server;
struct gt_peer;
struct gt_metrics;

/* One request: method, path and body, its query arguments, and what the
 * advisor asks while it runs (gt_adv_opts.stop: gt_req_stop).  Every
 * string is borrowed from the connection, for the request's life. */
struct gt_req {
    const struct gt_server_opts *o;
    struct gt_server *s;          /* NULL without a server (gt_server_answer) */
    struct gt_metrics *m;         /* the server's counters, or NULL */
    const char *method, *path;
    const char *body;             /* NULL: larger than the path's limit */
    size_t len;
    const char *src, *dst, *limit;   /* GET /v1/pairs: ?src=&dst=&limit= */
    const char *status, *offset;     /* GET /v1/status: ?status=&offset= */
    const char *from, *to, *kind;    /* GET /v1/events: ?from=&to=&kind= */
    const char *metric, *highlight, *window, *bins, *samples;   /* GET /v1/plot/... */
    const char *content_type;     /* POST /v1/samples: the body's type */
    char client[64];              /* the client's address, for the ingest log */
    struct gt_peer *peer;         /* the client's address, or NULL */
    double deadline_ms;           /* gt_monotonic_ms() */
    int fd;                       /* the client's socket, or -1 */
    _Atomic double next_poll_ms;  /* the socket is looked at every 50 ms */
    char budget[96];              /* what the stop says when the time is up */
};

typedef struct gt_answer (*gt_endpoint_fn)(struct gt_req *r);

/* ---- advise.c */
struct gt_answer gt_serve_estimate(struct gt_req *r);
struct gt_answer gt_serve_rank(struct gt_req *r);
struct gt_answer gt_serve_place(struct gt_req *r);

/* ---- reads.c */
struct gt_answer gt_serve_sites(struct gt_req *r);
struct gt_answer gt_serve_pairs(struct gt_req *r);
struct gt_answer gt_serve_status(struct gt_req *r);
struct gt_answer gt_serve_events(struct gt_req *r);
/* Every pair's state now (or only r->src's, r->dst's), worst first, into
 * *t, *v, *n (the caller frees them when status is 0): for /v1/status and
 * /metrics/pairs.  More pairs than [server] max_status_pairs without src
 * or dst is 422. */
struct gt_thresholds;
struct gt_pair_state;
struct gt_answer gt_reads_pair_states(const struct gt_req *r, struct gt_thresholds *t,
                                      struct gt_pair_state **v, size_t *n);

/* ---- monitor.c */
struct gt_answer gt_serve_health(struct gt_req *r);
struct gt_answer gt_serve_alive(struct gt_req *r);
struct gt_answer gt_serve_ready(struct gt_req *r);
struct gt_answer gt_serve_metrics(struct gt_req *r);
struct gt_answer gt_serve_metrics_pairs(struct gt_req *r);

/* ---- plots.c: the plot the path names (/v1/plot/KIND) */
struct gt_answer gt_serve_plot(struct gt_req *r);

/* ---- pages.c: the compiled-in file at the path (assets.h) */
struct gt_answer gt_serve_page(struct gt_req *r);

/* ---- push.c */
struct gt_answer gt_serve_push(struct gt_req *r);

/* ---- what the running server lends (server.c); s is never NULL */

/* n more bytes in memory for a request of peer: within [server]
 * max_buffered_mb in all and max_buffered_per_client_mb for its address,
 * else false and nothing counted. */
bool gt_server_hold(struct gt_server *s, struct gt_peer *peer, size_t n);
void gt_server_unhold(struct gt_server *s, struct gt_peer *peer, size_t n);
/* The most one request of peer can ever hold: past it the answer is 413,
 * not "try again". */
size_t gt_server_most_held(const struct gt_server *s, const struct gt_peer *peer);
/* One more push on the workers, when fewer than most are: else false. */
bool gt_server_push_begin(struct gt_server *s, unsigned most);
void gt_server_push_end(struct gt_server *s);
/* Whether a request (a struct gt_req) should stop, and why: the server
 * is stopping, its time budget ran out, or its client went away; NULL
 * to go on.  The advisor asks it between steps (gt_adv_opts.stop). */
const char *gt_req_stop(void *req);

#endif
