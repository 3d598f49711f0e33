/*
 * reads.c - what the store holds, read as the CLI's --json prints it:
 * GET /v1/sites, /v1/pairs (with one pair's fit and tracked errors),
 * /v1/status (each pair's state, a page at a time) and /v1/events.
 *
 * Every listing is bounded: ?limit= at most [server] max_top, and a
 * request that would read every pair's samples is refused past
 * max_partners (pairs) or max_status_pairs (status) unless it names a
 * src or a dst.
 */
#include "endpoints.h"
#include "dbconn.h"
#include "advisor/advice.h"
#include "advisor/events.h"
#include "advisor/status.h"
#include "base/jsonout.h"
#include "base/util.h"

#include <math.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* GET /v1/sites: every site, as `gridtail sites --json`. */
struct gt_answer gt_serve_sites(struct gt_req *r)
{
    struct gt_db *db;
    struct gt_error err = {0};
    struct gt_answer a = gt_dbconn_open(r->o, &db);
    if (a.status)
        return a;
    struct gt_site_row *v = NULL;
    size_t n = 0;
    int rc = gt_query_sites(db, &v, &n, &err);
    gt_db_close(db);
    a = rc ? gt_answer_err(&err, rc) : gt_answer_ok(gt_advice_sites_json(v, n));
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
static struct gt_answer query_limit(const struct gt_req *r, int64_t *limit)
{
    const struct gt_server_opts *o = r->o;
    *limit = o->cfg->server_max_top;
    if (r->limit && (!gt_parse_i64(r->limit, strlen(r->limit), limit) || *limit < 0))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "limit", "expected an integer >= 0");
    if (*limit > o->cfg->server_max_top)
        return GT_TOO_MUCH("limit", *limit, o->cfg->server_max_top, "max_top");
    return (struct gt_answer){.status = 0};
}

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
                     (json_int_t)o->cfg->horizon_s, "outcomes", (json_int_t)t.outcomes,
                     "lead_samples", (json_int_t)t.lead, "rmse_ms", rmse);
}

/* The pairs' summaries from an open store: one pair named by src and
 * dst has its fit and tracked errors too. */
static struct gt_answer list_pairs(const struct gt_req *r, struct gt_db *db, int64_t limit)
{
    const struct gt_server_opts *o = r->o;
    struct gt_error err = {0};
    long count = 0;
    int rc = r->src || r->dst ? GT_OK : gt_query_pair_count(db, &count, &err);
    if (rc)
        return gt_answer_err(&err, rc);
    if (count > o->cfg->server_max_partners)
        return gt_answer_fail(MHD_HTTP_UNPROCESSABLE_CONTENT, "src", "%ld pairs: name a src "
                              "or a dst (at most %ld pairs without one, [server] "
                              "max_partners)", count, o->cfg->server_max_partners);
    struct gt_pair_row *v = NULL;
    size_t n = 0;
    struct gt_pair_filter f = {r->src, r->dst};
    rc = gt_query_pairs(db, &f, &v, &n, &err);
    struct gt_answer a = rc ? gt_answer_err(&err, rc)
                            : gt_answer_ok(gt_advice_pairs_json(v, n, (size_t)limit < n
                                                                          ? (size_t)limit : n));
    if (!rc && r->src && r->dst && n == 1 && limit > 0) {
        json_t *pair = json_array_get(json_object_get(a.doc, "pairs"), 0);
        json_object_set_new(pair, "fit", current_fit(o, db, r->src, r->dst));
        json_object_set_new(pair, "tracked", tracked_errors(o, db, r->src, r->dst));
    }
    gt_pairs_free(v, n);
    return a;
}

/* GET /v1/pairs?src=&dst=&limit=: the pairs' summaries, as `gridtail
 * pairs --json`.  Each summary reads all of its pair's samples, so a
 * request without src or dst is refused past [server] max_partners pairs
 * (422), and at most max_top are listed (the totals count them all). */
struct gt_answer gt_serve_pairs(struct gt_req *r)
{
    int64_t limit;
    struct gt_answer a = query_limit(r, &limit);
    if (a.status)
        return a;
    struct gt_db *db;
    a = gt_dbconn_open(r->o, &db);
    if (a.status)
        return a;
    a = list_pairs(r, db, limit);
    gt_db_close(db);
    return a;
}

struct gt_answer gt_reads_pair_states(const struct gt_req *r, struct gt_thresholds *t,
                                      struct gt_pair_state **v, size_t *n)
{
    const struct gt_server_opts *o = r->o;
    struct gt_error err = {0};
    int rc = gt_thresholds_load(t, o->cfg, (size_t)o->cfg->window, &err);
    if (rc)
        return gt_answer_fail(MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "[thresholds]: %s%s%s",
                              err.where, err.where[0] ? ": " : "", err.msg);
    struct gt_db *db;
    struct gt_answer a = gt_dbconn_open(o, &db);
    if (a.status) {
        gt_thresholds_free(t);
        return a;
    }
    long count = 0;
    rc = r->src || r->dst ? GT_OK : gt_query_pair_count(db, &count, &err);
    if (rc)
        a = gt_answer_err(&err, rc);
    else if (count > o->cfg->server_max_status_pairs)
        a = gt_answer_fail(MHD_HTTP_UNPROCESSABLE_CONTENT, "src", "%ld pairs, more than "
                           "[server] max_status_pairs (%ld) at once: name a src or a dst, or "
                           "raise it", count, o->cfg->server_max_status_pairs);
    else if ((rc = gt_pair_states_until(db, t, (int64_t)time(NULL), r->src, r->dst,
                                        &(struct gt_stop){gt_req_stop, (void *)r}, v, n,
                                        &err)))
        a = rc == GT_EINTR ? gt_answer_fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "%s: try "
                                            "again later, or name a src or a dst", err.msg)
                           : gt_answer_err(&err, rc);
    else
        gt_pair_states_sort(*v, *n);
    gt_db_close(db);
    if (a.status)
        gt_thresholds_free(t);
    return a;
}

/* GET /v1/status?src=&dst=&status=&limit=&offset=: each pair's status, as
 * `gridtail pairs --status --json`, worst first, a page at a time. */
struct gt_answer gt_serve_status(struct gt_req *r)
{
    int64_t limit, offset = 0;
    enum gt_pair_status only = GT_STATUS_OK;
    struct gt_answer a = query_limit(r, &limit);
    if (a.status)
        return a;
    if (r->offset && (!gt_parse_i64(r->offset, strlen(r->offset), &offset) || offset < 0))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "offset", "expected an integer >= 0");
    if (r->status && !gt_status_parse(r->status, &only))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "status",
                              "expected ok, warning, critical or no_data");
    struct gt_thresholds t;
    struct gt_pair_state *v = NULL;
    size_t n = 0;
    a = gt_reads_pair_states(r, &t, &v, &n);
    if (a.status)
        return a;
    a = gt_answer_ok(gt_status_json(v, n, &t, (int64_t)time(NULL), r->status ? (int)only : -1,
                                    (size_t)offset, (size_t)limit));
    gt_pair_states_free(v, n);
    gt_thresholds_free(&t);
    return a;
}

/* ?from=&to=&kind= of /v1/events: to is now and from a day before unless
 * given; status 0 when they are good. */
static struct gt_answer event_range(const struct gt_req *r, int64_t *from, int64_t *to,
                                    enum gt_event_kind *kind)
{
    *to = (int64_t)time(NULL);
    if (r->to && !gt_parse_time(r->to, strlen(r->to), to))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "to", "expected a time (seconds or ISO 8601)");
    *from = *to - 86400;
    if (r->from && !gt_parse_time(r->from, strlen(r->from), from))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "from",
                              "expected a time (seconds or ISO 8601)");
    if (*from >= *to)
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "from", "must be before to");
    if (r->kind && !gt_event_parse(r->kind, kind))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "kind", "expected shift, loss_burst, "
                              "outage, outage_end, silent, reporting or fit_regime");
    return (struct gt_answer){.status = 0};
}

/* GET /v1/events?src=&dst=&from=&to=&kind=&limit=: what happened on the
 * pairs, as `gridtail events --json`; more than GT_EVENTS_MAX_SAMPLES
 * samples to read is 422 (name a pair, narrow the range). */
struct gt_answer gt_serve_events(struct gt_req *r)
{
    int64_t limit, to, from;
    enum gt_event_kind kind = GT_EV_SHIFT;
    struct gt_answer a = query_limit(r, &limit);
    if (a.status)
        return a;
    if ((a = event_range(r, &from, &to, &kind)).status)
        return a;
    struct gt_db *db;
    a = gt_dbconn_open(r->o, &db);
    if (a.status)
        return a;
    struct gt_event_opts eo = gt_event_opts_of(r->o->cfg);
    struct gt_pair_event *v = NULL;
    size_t n = 0;
    struct gt_error err = {0};
    int rc = gt_events_query(db, r->src, r->dst, from, to, r->kind ? (int)kind : -1, &eo, &v,
                             &n, &err);
    gt_db_close(db);
    if (rc == GT_ETOOBIG)
        a = gt_answer_fail(MHD_HTTP_UNPROCESSABLE_CONTENT, "from", "%s", err.msg);
    else if (rc)
        a = gt_answer_err(&err, rc);
    else
        a = gt_answer_ok(gt_events_json(v, n, from, to, (size_t)limit));
    gt_pair_events_free(v, n);
    return a;
}
