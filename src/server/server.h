/*
 * server.h - the advisor over HTTP for grid brokers (libmicrohttpd).
 *
 *   GET  /v1/health     {"status": "ok", "version", "schema"}
 *   POST /v1/estimate   {"root": R, "sites": [...], options}
 *   POST /v1/rank       {"candidates": [{"root", "sites"}...], "top", options}
 *   POST /v1/place      {"pool": [...], "size": K, "root": R|"auto",
 *                        "top", "exact_limit", options}
 *   GET  /v1/sites      as `gridtail sites --json`
 *   GET  /v1/pairs      ?src=&dst=&limit=: as `gridtail pairs --json`
 *   GET  /healthz       {"status": "alive"} (no store access)
 *   GET  /readyz        {"status": "ready", "newest_sample_age_s"}, or 503
 *   GET  /metrics       Prometheus text (metrics.h)
 *
 * and the others of route.c's table (which is the whole list: /v1/status,
 * /v1/events, /v1/plot/..., POST /v1/samples, /metrics/pairs, the
 * dashboard's files and /v1/openapi.json).
 *
 * Options are those of the command line in JSON (src/advice.h:
 * window, model, at, compute, compute_from, iterations, quantiles,
 * skip_missing, bytes, loggps); answers are the documents the CLI prints
 * with --json.  Errors are {"error": text, "field": name or null} with
 * 400 (bad request), 404 (no such endpoint), 405 (wrong method), 413
 * (body too large), 422 (a pair without data), 503 (database busy) or
 * 500.  Each request reads the store in its own snapshot (each worker
 * thread keeps a connection), so ingest and refit may run meanwhile; a
 * request never names a file.
 */
#ifndef GT_SERVER_H
#define GT_SERVER_H

#include "base/config.h"
#include "base/error.h"
#include "estimators/companion/topology.h"

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

struct gt_server_opts {
    const char *db_path;
    const struct gt_config *cfg;      /* request defaults, busy timeout */
    const struct gt_topology *sites;  /* site bandwidths for "bytes", or NULL */
    const char *addr;                 /* IPv4 or IPv6 address to bind */
    unsigned port;                    /* 0: any free port (gt_server_port) */
    unsigned threads;                 /* MHD's threads, and as many workers */
    long adv_threads;                 /* the advisor's threads per request */
    size_t max_body;                  /* bytes */
    unsigned timeout_s;               /* idle connection timeout */
    FILE *log;                        /* a line per request, or NULL */
    const char *tls_cert, *tls_key;   /* PEM text (borrowed, kept while the server
                                         runs): HTTPS; NULL: HTTP */
};

struct gt_server;

/* One request answered without the network (tests, fuzzing): the HTTP
 * status, and the JSON document into *doc (the caller's reference). */
unsigned gt_server_answer(const struct gt_server_opts *o, const char *method, const char *path,
                          const char *body, size_t len, json_t **doc);

struct gt_server *gt_server_start(const struct gt_server_opts *o, struct gt_error *err);
unsigned gt_server_port(const struct gt_server *s);

/* The server's copies of the calibration states its answers kept. */
struct gt_calib_memo *gt_server_calib_memo(struct gt_server *s);
/* Read [server] tokens_file again (SIGHUP): the new tokens replace the
 * old ones at once; on an error (err says file:line) the old ones stay.
 * *ntokens: how many there are now. */
int gt_server_reload(struct gt_server *s, size_t *ntokens, struct gt_error *err);
/* How many tokens the server holds. */
size_t gt_server_tokens(struct gt_server *s);
/* Finish the requests in progress, then stop. */
void gt_server_stop(struct gt_server *s);

#endif
