/*
 * route.c - see route.h.
 *
 * The table's order is the order the 404 names the paths in.  The
 * compiled-in files are one route (path NULL, asked of assets.h) for
 * those the table does not name: the API's description among them has a
 * route of its own so that the 404 names it.
 */
#include "route.h"
#include "assets.h"
#include "base/util.h"

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gt_route routes[] = {
    {"GET", "/v1/health", gt_serve_health, GT_SCOPE_READ, 0, NULL},
    {"POST", "/v1/estimate", gt_serve_estimate, GT_SCOPE_READ, GT_ROUTE_STORE | GT_ROUTE_JSON,
     "use POST with a JSON body"},
    {"POST", "/v1/rank", gt_serve_rank, GT_SCOPE_READ, GT_ROUTE_STORE | GT_ROUTE_JSON,
     "use POST with a JSON body"},
    {"POST", "/v1/place", gt_serve_place, GT_SCOPE_READ, GT_ROUTE_STORE | GT_ROUTE_JSON,
     "use POST with a JSON body"},
    {"GET", "/v1/sites", gt_serve_sites, GT_SCOPE_READ, 0, NULL},
    {"GET", "/v1/pairs", gt_serve_pairs, GT_SCOPE_READ, GT_ROUTE_STORE | GT_ROUTE_READS,
     NULL},
    {"GET", "/v1/status", gt_serve_status, GT_SCOPE_READ, GT_ROUTE_STORE | GT_ROUTE_READS,
     NULL},
    {"GET", "/v1/events", gt_serve_events, GT_SCOPE_READ, GT_ROUTE_STORE | GT_ROUTE_READS,
     NULL},
    {"GET", "/v1/plot/matrix", gt_serve_plot, GT_SCOPE_READ, GT_ROUTE_STORE | GT_ROUTE_READS,
     NULL},
    {"GET", "/v1/plot/ccdf", gt_serve_plot, GT_SCOPE_READ, GT_ROUTE_STORE | GT_ROUTE_READS,
     NULL},
    {"GET", "/v1/plot/series", gt_serve_plot, GT_SCOPE_READ, GT_ROUTE_STORE | GT_ROUTE_READS,
     NULL},
    {"POST", "/v1/samples", gt_serve_push, GT_SCOPE_WRITE, GT_ROUTE_STORE | GT_ROUTE_BULK,
     "use POST with text/csv or a JSON array"},
    {"GET", "/v1/openapi.json", gt_serve_page, GT_SCOPE_NONE, 0, NULL},
    {"GET", "/healthz", gt_serve_alive, GT_SCOPE_NONE, 0, NULL},
    {"GET", "/readyz", gt_serve_ready, GT_SCOPE_NONE, 0, NULL},
    {"GET", "/metrics", gt_serve_metrics, GT_SCOPE_READ, 0, NULL},
    {"GET", "/metrics/pairs", gt_serve_metrics_pairs, GT_SCOPE_READ,
     GT_ROUTE_STORE | GT_ROUTE_READS, NULL},
    {"GET", NULL, gt_serve_page, GT_SCOPE_NONE, 0, NULL},   /* the dashboard's files */
};

#define NROUTES (sizeof routes / sizeof routes[0])

/* A path the table names (rather than finds among the files) */
static bool named(const char *path)
{
    for (size_t i = 0; i < NROUTES; i++)
        if (routes[i].path && !strcmp(routes[i].path, path))
            return true;
    return false;
}

/* The files' route has the files the table does not name: each path's
 * routes are its own. */
static bool has_path(const struct gt_route *rt, const char *path)
{
    return rt->path ? !strcmp(rt->path, path) : gt_asset_find(path) && !named(path);
}

static bool takes(const struct gt_route *rt, const char *method)
{
    return !strcmp(method, rt->method) ||
           (!strcmp(rt->method, "GET") && !strcmp(method, "HEAD"));
}

const struct gt_route *gt_route_find(const char *method, const char *path)
{
    for (size_t i = 0; i < NROUTES; i++)
        if (has_path(&routes[i], path) && takes(&routes[i], method))
            return &routes[i];
    return NULL;
}

/* s appended to out (of size), after sep when out is not empty */
static void append(char *out, size_t size, const char *sep, const char *s)
{
    size_t n = strlen(out);
    snprintf(out + n, size - n, "%s%s", n ? sep : "", s);
}

bool gt_route_allow(const char *path, char *allow, size_t size)
{
    allow[0] = 0;
    for (size_t i = 0; i < NROUTES; i++)
        if (has_path(&routes[i], path))
            append(allow, size, ", ", !strcmp(routes[i].method, "GET") ? "GET, HEAD"
                                                                       : routes[i].method);
    return allow[0] != 0;
}

/* 405: what the path's routes advise, and the methods they take. */
static struct gt_answer wrong_method(const char *path)
{
    char use[256] = "";
    for (size_t i = 0; i < NROUTES; i++) {
        if (!has_path(&routes[i], path))
            continue;
        char own[64];
        snprintf(own, sizeof own, "use %s", routes[i].method);
        append(use, sizeof use, " or ", routes[i].use ? routes[i].use : own);
    }
    struct gt_answer a = gt_answer_fail(MHD_HTTP_METHOD_NOT_ALLOWED, NULL, "%s: %s", path, use);
    gt_route_allow(path, a.allow, sizeof a.allow);
    return a;
}

/* 404: the paths there are, in the table's order. */
static struct gt_answer no_route(const char *path)
{
    char paths[512] = "";
    for (size_t i = 0; i < NROUTES; i++) {
        bool again = false;   /* a path of several methods is named once */
        for (size_t k = 0; k < i && routes[i].path; k++)
            again = again || (routes[k].path && !strcmp(routes[k].path, routes[i].path));
        if (routes[i].path && !again)
            append(paths, sizeof paths, ", ", routes[i].path);
    }
    return gt_answer_fail(MHD_HTTP_NOT_FOUND, NULL, "no endpoint %s (see %s; the dashboard "
                          "is at /)", path, paths);
}

struct gt_answer gt_route_answer(struct gt_req *r)
{
    const struct gt_route *rt = gt_route_find(r->method, r->path);
    if (rt)
        return rt->run(r);
    char allow[40];
    return gt_route_allow(r->path, allow, sizeof allow) ? wrong_method(r->path)
                                                         : no_route(r->path);
}

enum gt_scope gt_route_scope(const char *path)
{
    bool known = false;
    enum gt_scope most = GT_SCOPE_NONE;
    for (size_t i = 0; i < NROUTES; i++)
        if (has_path(&routes[i], path)) {
            known = true;
            most = routes[i].scope > most ? routes[i].scope : most;
        }
    return known ? most : GT_SCOPE_READ;
}

bool gt_route_bulk(const char *path)
{
    for (size_t i = 0; i < NROUTES; i++)
        if (has_path(&routes[i], path) && (routes[i].flags & GT_ROUTE_BULK))
            return true;
    return false;
}

size_t gt_route_body_limit(const struct gt_server_opts *o, const char *path)
{
    size_t advisor = (size_t)o->cfg->server_max_request_kb << 10;
    return gt_route_bulk(path) || o->max_body < advisor ? o->max_body : advisor;
}

unsigned gt_server_answer(const struct gt_server_opts *o, const char *method, const char *path,
                          const char *body, size_t len, json_t **doc)
{
    struct gt_req r = {.o = o, .method = method, .path = path, .body = body ? body : "",
                       .len = len, .fd = -1,
                       .deadline_ms = gt_monotonic_ms() +
                                      1e3 * (double)o->cfg->server_request_budget_s};
    snprintf(r.budget, sizeof r.budget, "the time budget ([server] request_budget_s = %ld) ran "
             "out", o->cfg->server_request_budget_s);
    struct gt_answer a = gt_route_answer(&r);
    free(a.text);
    *doc = a.doc;
    return a.status;
}
