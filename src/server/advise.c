/*
 * advise.c - the advisor's endpoints: POST /v1/estimate, /v1/rank and
 * /v1/place, each a JSON body of the command line's options (advice.h)
 * and its own fields, answered with the document the CLI prints with
 * --json.
 *
 * A body is weighed before it is parsed (its longest array, and what its
 * JSON takes parsed, counted against the server's budgets like a body),
 * then each field is checked against [server]'s bounds (422 naming it)
 * before the advisor runs on the worker's own store connection.  The
 * advisor stops between steps when gt_req_stop says so.
 */
#include "endpoints.h"
#include "dbconn.h"
#include "metrics.h"
#include "route.h"
#include "advisor/advice.h"
#include "base/jsonscan.h"
#include "base/util.h"

#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One advisor endpoint: its own fields, what it computes. */
struct advisor_ep {
    const char *const *keys;     /* the fields beside the options */
    bool enforce_max_loss;       /* rank, place: drop sets past max_loss */
    struct gt_answer (*run)(const struct gt_server_opts *o, struct gt_advisor *adv,
                            const json_t *req, const struct gt_advice *ad);
};

static struct gt_answer do_estimate(const struct gt_server_opts *o, struct gt_advisor *adv,
                                    const json_t *req, const struct gt_advice *ad)
{
    const json_t *root = json_object_get(req, "root");
    if (!json_is_string(root) || !json_string_length(root))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "root", "expected a site name");
    struct gt_site_list sites = {0};
    const char *why;
    if (!gt_sites_from_json(&sites, json_object_get(req, "sites"), &why)) {
        gt_sites_clear(&sites);
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "sites", "%s", why);
    }
    if ((long)sites.n > o->cfg->server_max_partners) {
        size_t n = sites.n;
        gt_sites_clear(&sites);
        return GT_TOO_MUCH("sites", n, o->cfg->server_max_partners, "max_partners");
    }
    struct gt_estimate e;
    struct gt_error err = {0};
    int rc = gt_advisor_estimate(adv, json_string_value(root), sites.v, sites.n, &e, &err);
    struct gt_answer a = rc ? gt_answer_err(&err, rc)
                            : gt_answer_ok(gt_advice_estimate_json(&e, ad));
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

/* The candidates within max_candidates, each within max_partners, and
 * all their partners within max_rank_partners (every candidate's
 * estimate is held until the best are chosen: they bound the request's
 * memory); status 0 when they are. */
static struct gt_answer rank_bounds(const struct gt_server_opts *o, const struct gt_cand_list *l)
{
    if ((long)l->n > o->cfg->server_max_candidates)
        return GT_TOO_MUCH("candidates", l->n, o->cfg->server_max_candidates, "max_candidates");
    size_t total = 0;
    for (size_t i = 0; i < l->n; i++) {
        total += l->v[i].sites.n;
        if ((long)l->v[i].sites.n > o->cfg->server_max_partners)
            return GT_TOO_MUCH("candidates", l->v[i].sites.n, o->cfg->server_max_partners,
                               "max_partners");
    }
    if ((long)total > o->cfg->server_max_rank_partners)
        return GT_TOO_MUCH("candidates", total, o->cfg->server_max_rank_partners,
                           "max_rank_partners");
    return (struct gt_answer){.status = 0};
}

static struct gt_answer do_rank(const struct gt_server_opts *o, struct gt_advisor *adv,
                                const json_t *req, const struct gt_advice *ad)
{
    long top = -1;
    if (!optional_long(req, "top", 1, 1000000, &top))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "top", "expected an integer in [1, 1000000]");
    if (top > o->cfg->server_max_top)
        return GT_TOO_MUCH("top", top, o->cfg->server_max_top, "max_top");
    struct gt_cand_list l = {0};
    size_t bad;
    const char *why;
    if (!gt_cands_from_json(&l, json_object_get(req, "candidates"), &bad, &why)) {
        gt_cands_clear(&l);
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "candidates", "[%zu]: %s", bad, why);
    }
    struct gt_answer a = rank_bounds(o, &l);
    if (a.status) {
        gt_cands_clear(&l);
        return a;
    }
    struct gt_rank_answer r;
    struct gt_error err = {0};
    int rc = gt_advice_rank(adv, &l, top, &r, &err);
    const char *stopped = gt_advisor_stopped(adv);
    a = rc ? gt_answer_err(&err, rc)
        : stopped && r.ok == 0
            ? gt_answer_fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "stopped before any "
                             "candidate was estimated: %s", stopped)
            : gt_answer_ok(gt_advice_rank_json(adv, &r, ad));
    gt_rank_answer_clear(&r);
    gt_cands_clear(&l);
    return a;
}

/* place's fields but the pool: status 0 when they are good. */
static struct gt_answer place_fields(const struct gt_server_opts *o, const json_t *req,
                                     long *size, long *top)
{
    const json_t *root = json_object_get(req, "root"), *limit = json_object_get(req, "exact_limit");
    if (!json_object_get(req, "size") || !optional_long(req, "size", 1, 256, size))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "size", "expected an integer in [1, 256]");
    if (!optional_long(req, "top", 1, 1000000, top))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "top", "expected an integer in [1, 1000000]");
    if (root && (!json_is_string(root) || !json_string_length(root)))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "root", "expected a site name or \"auto\"");
    if (limit && !(json_is_number(limit) && json_number_value(limit) >= 0))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "exact_limit", "expected a number >= 0");
    if (limit && json_number_value(limit) > o->cfg->server_max_exact_limit)
        return GT_TOO_MUCH("exact_limit", json_number_value(limit),
                           o->cfg->server_max_exact_limit, "max_exact_limit");
    if (*top > o->cfg->server_max_top)
        return GT_TOO_MUCH("top", *top, o->cfg->server_max_top, "max_top");
    return (struct gt_answer){.status = 0};
}

static struct gt_answer do_place(const struct gt_server_opts *o, struct gt_advisor *adv,
                                 const json_t *req, const struct gt_advice *ad)
{
    long size = 0, top = 1;
    struct gt_answer a = place_fields(o, req, &size, &top);
    if (a.status)
        return a;
    const json_t *root = json_object_get(req, "root"), *limit = json_object_get(req, "exact_limit");
    struct gt_site_list pool = {0};
    const char *why;
    if (!gt_sites_from_json(&pool, json_object_get(req, "pool"), &why)) {
        gt_sites_clear(&pool);
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "pool", "%s", why);
    }
    if ((long)pool.n > o->cfg->server_max_pool) {
        size_t n = pool.n;
        gt_sites_clear(&pool);
        return GT_TOO_MUCH("pool", n, o->cfg->server_max_pool, "max_pool");
    }
    const char *r_name = root ? json_string_value(root) : "auto";
    struct gt_place_opts po = {(size_t)size, strcmp(r_name, "auto") ? r_name : NULL,
                               limit ? json_number_value(limit) : 1e5, (size_t)top, NULL, NULL};
    struct gt_place_result r;
    struct gt_error err = {0};
    int64_t t0 = gt_monotonic_ns();
    int rc = gt_advisor_place(adv, pool.v, pool.n, &po, &r, &err);
    const char *stopped = gt_advisor_stopped(adv);
    a = rc ? gt_answer_err(&err, rc)
        : stopped && r.nbest == 0
            ? gt_answer_fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "stopped before any "
                             "placement was estimated: %s", stopped)
            : gt_answer_ok(gt_advice_place_json(adv, &r, gt_elapsed_ms(t0), ad));
    gt_place_result_clear(&r);
    gt_sites_clear(&pool);
    return a;
}

static const char *const estimate_keys[] = {"root", "sites", NULL};
static const char *const rank_keys[] = {"candidates", "top", NULL};
static const char *const place_keys[] = {"pool", "size", "root", "top", "exact_limit", NULL};

static const struct advisor_ep estimate_ep = {estimate_keys, false, do_estimate},
                               rank_ep = {rank_keys, true, do_rank},
                               place_ep = {place_keys, true, do_place};

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
static struct gt_answer parse_cost(const struct gt_req *r, const char *body, size_t len,
                                   size_t *held)
{
    const struct gt_server_opts *o = r->o;
    struct gt_json_cost cost;
    gt_json_cost(body, len, &cost);
    *held = 0;
    if (cost.longest > longest_array(o))
        return gt_answer_fail(MHD_HTTP_CONTENT_TOO_LARGE, NULL, "an array of %zu elements: "
                              "more than this server takes (at most %zu: [server] "
                              "max_candidates, max_pool, max_partners)", cost.longest,
                              longest_array(o));
    if (!r->s)
        return (struct gt_answer){.status = 0};
    if (cost.bytes + len > gt_server_most_held(r->s, r->peer))   /* the body itself is held too */
        return gt_answer_fail(MHD_HTTP_CONTENT_TOO_LARGE, NULL, "parsed, this body would take "
                              "%.0f MiB: more than one client may hold ([server] "
                              "max_buffered_per_client_mb, max_buffered_mb)",
                              (double)cost.bytes / 1048576);
    if (!gt_server_hold(r->s, r->peer, cost.bytes))
        return gt_answer_fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "the server holds too many "
                              "requests in memory now ([server] max_buffered_mb, "
                              "max_buffered_per_client_mb): try again shortly");
    *held = cost.bytes;
    return (struct gt_answer){.status = 0};
}

/* The advisor on the worker's store connection, run on the request. */
static struct gt_answer run_advisor(struct gt_req *r, const struct advisor_ep *ep,
                                    const json_t *req, const struct gt_advice *ad)
{
    const struct gt_server_opts *o = r->o;
    struct gt_error err = {0};
    struct gt_db *db = gt_dbconn_worker(o, &err);
    struct gt_advisor *adv = db ? gt_advisor_new(db, &ad->o) : NULL;
    if (!adv)   /* the store is not there or cannot be read: try again later */
        return gt_answer_fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
                              "the store is not available: %s",
                              gt_dbconn_unavailable(o, &err, db ? "cannot read it"
                                                                : "cannot open it"));
    struct gt_answer a = ep->run(o, adv, req, ad);
    if (r->s) {
        size_t kept, resumed, replayed;
        gt_metrics_fits(r->m, gt_advisor_fits(adv), gt_advisor_cached_fits(adv));
        gt_advisor_calibrations(adv, &kept, &resumed, &replayed);
        gt_metrics_calibrations(r->m, kept, resumed, replayed);
    }
    size_t saved;
    struct gt_error ignored = {0};   /* the answer stands either way */
    if (o->cfg->server_save_fits)
        gt_advisor_save_fits(adv, &saved, &ignored);
    else   /* the calibrations are kept either way: see gt_advisor_save_calibrations */
        gt_advisor_save_calibrations(adv, &ignored);
    gt_advisor_free(adv);
    return a;
}

/* An advisor request parsed: the options, the advisor, the answer. */
static struct gt_answer advise_parsed(struct gt_req *r, const struct advisor_ep *ep,
                                      const char *body, size_t len)
{
    const struct gt_server_opts *o = r->o;
    json_error_t jerr;
    json_t *req = json_loadb(body ? body : "", len, 0, &jerr);
    if (!req)
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, NULL, "the body is not JSON: line %d, "
                              "column %d: %s", jerr.line, jerr.column, jerr.text);
    struct gt_advice ad;
    gt_advice_defaults(&ad, o->cfg, (int64_t)time(NULL));
    ad.o.threads = o->adv_threads;
    ad.o.sites = o->sites;
    ad.o.enforce_max_loss = ep->enforce_max_loss;
    ad.o.stop = gt_req_stop;
    ad.o.stop_ctx = r;
    ad.o.calib_memo = r->s ? gt_server_calib_memo(r->s) : NULL;
    struct gt_error err = {0};
    int rc = gt_advice_from_json(&ad, req, ep->keys, &err);
    struct gt_answer a;
    if (rc)
        a = gt_answer_err(&err, rc);
    else if ((long)ad.o.window > o->cfg->server_max_window)
        a = GT_TOO_MUCH("window", ad.o.window, o->cfg->server_max_window, "max_window");
    else
        a = run_advisor(r, ep, req, &ad);
    json_decref(req);
    return a;
}

/* A POST to an advisor endpoint: the body weighed, parsed and answered. */
static struct gt_answer advise(struct gt_req *r, const struct advisor_ep *ep)
{
    if (!r->body)
        return gt_answer_fail(MHD_HTTP_CONTENT_TOO_LARGE, NULL, "the body is larger than %zu "
                              "bytes ([server] max_request_kb)",
                              gt_route_body_limit(r->o, r->path));
    size_t held;
    struct gt_answer refused = parse_cost(r, r->body, r->len, &held);
    if (refused.status)
        return refused;
    struct gt_answer a = advise_parsed(r, ep, r->body, r->len);
    if (r->s)
        gt_server_unhold(r->s, r->peer, held);
    return a;
}

struct gt_answer gt_serve_estimate(struct gt_req *r)
{
    return advise(r, &estimate_ep);
}

struct gt_answer gt_serve_rank(struct gt_req *r)
{
    return advise(r, &rank_ep);
}

struct gt_answer gt_serve_place(struct gt_req *r)
{
    return advise(r, &place_ep);
}
