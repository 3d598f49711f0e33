/*
 * route.h - the server's routing table: which endpoint (endpoints.h)
 * answers which method on which path, and what each route asks of the
 * request before its body is read: the token's scope, the body's type
 * and size, and whether it is computed on a worker.  A path no route
 * has is 404 (naming the paths there are); a path whose routes take
 * other methods is 405 with an Allow header listing them.  GET takes
 * HEAD too.  Paths are matched exactly, as the client sent them.
 */
#ifndef GT_ROUTE_H
#define GT_ROUTE_H

#include "answer.h"
#include "auth.h"
#include "endpoints.h"
#include "server.h"

#include <stdbool.h>
#include <stddef.h>

enum {
    GT_ROUTE_STORE = 1,   /* reads or writes the store: computed on a worker */
    GT_ROUTE_JSON = 2,    /* its body must be sent as application/json */
    GT_ROUTE_BULK = 4,    /* its body may be max_body, not [server] max_request_kb */
    GT_ROUTE_READS = 8,   /* a read of the store's pairs, events or series: on the
                             readers ([server] read_threads), never holding the
                             workers the advisor's answers and pushes need */
};

struct gt_route {
    const char *method;   /* "GET" (and HEAD) or "POST" */
    const char *path;     /* NULL: any of the compiled-in files (assets.h) */
    gt_endpoint_fn run;
    enum gt_scope scope;  /* what the request's token must cover */
    unsigned flags;       /* GT_ROUTE_* */
    const char *use;      /* a wrong method's advice (405); NULL: "use METHOD" */
};

/* The route that takes method on path, or NULL (404 or 405). */
const struct gt_route *gt_route_find(const char *method, const char *path);

/* Route r->method, r->path: the endpoint's answer, or 404 or 405. */
struct gt_answer gt_route_answer(struct gt_req *r);

/* The methods path takes, as an Allow header says them ("GET, HEAD"),
 * into allow; false when no route has path. */
bool gt_route_allow(const char *path, char *allow, size_t size);

/* The scope a request for path needs whatever its method: the most its
 * routes need, read for a path no route has (its 404 is for the
 * authorized only). */
enum gt_scope gt_route_scope(const char *path);

/* Whether path takes bulk bodies (samples): up to max_body, to be sent
 * in parts past it. */
bool gt_route_bulk(const char *path);
/* The largest body path takes: max_body for bulk routes, else at most
 * [server] max_request_kb (also for the paths that take none). */
size_t gt_route_body_limit(const struct gt_server_opts *o, const char *path);

#endif
