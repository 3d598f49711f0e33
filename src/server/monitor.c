/*
 * monitor.c - what monitoring asks: GET /v1/health (the version and the
 * store's schema), the probes /healthz (the process is up, no store
 * access) and /readyz (the store opens, and with [server] ready_max_age_s
 * has a sample that recent), and the Prometheus scrapes /metrics (the
 * server's own counters, metrics.h) and /metrics/pairs (each pair's
 * state and [server] collectives' estimates, apart so that a scrape of
 * /metrics stays small).
 */
#define _DEFAULT_SOURCE   /* strtok_r */
#include "endpoints.h"
#include "dbconn.h"
#include "metrics.h"
#include "advisor/advice.h"
#include "advisor/status.h"
#include "base/util.h"
#include "base/version.h"

#include <math.h>
#include <microhttpd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROMETHEUS_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* GET /v1/health: the version and the store's schema. */
struct gt_answer gt_serve_health(struct gt_req *r)
{
    struct gt_db *db;
    struct gt_error err = {0};
    struct gt_answer a = gt_dbconn_open(r->o, &db);
    if (a.status)
        return a;
    int version = 0;
    int rc = gt_db_version(db, &version, &err);
    gt_db_close(db);
    if (rc)
        return gt_answer_err(&err, rc);
    return gt_answer_ok(json_pack("{s:s, s:s, s:i}", "status", "ok", "version", GT_VERSION,
                                  "schema", version));
}

/* GET /healthz: no store access. */
struct gt_answer gt_serve_alive(struct gt_req *r)
{
    (void)r;
    return gt_answer_ok(json_pack("{s:s}", "status", "alive"));
}

/* GET /readyz: the store opens, and (with [server] ready_max_age_s) some
 * sample is that recent.  503 says which is not so. */
struct gt_answer gt_serve_ready(struct gt_req *r)
{
    const struct gt_server_opts *o = r->o;
    struct gt_db *db;
    struct gt_error err = {0};
    if (gt_db_open(gt_dbconn_addr(o), GT_DB_READ, o->cfg->busy_timeout_ms, &db, &err))
        return gt_answer_fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "not ready: the store is not "
                              "available: %s", gt_dbconn_unavailable(o, &err, "cannot open it"));
    struct gt_newest_row *rows;
    size_t n;
    int rc = gt_query_newest_by_src(db, &rows, &n, &err);
    gt_db_close(db);
    if (rc)
        return gt_answer_fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "not ready: the store cannot "
                              "be read: %s", err.msg);
    int64_t newest = INT64_MIN, now = (int64_t)time(NULL);
    for (size_t i = 0; i < n; i++)
        newest = rows[i].newest > newest ? rows[i].newest : newest;
    gt_newest_free(rows, n);
    long max_age = o->cfg->server_ready_max_age_s;
    if (max_age > 0 && (newest == INT64_MIN || now - newest > max_age))
        return gt_answer_fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL, "not ready: the newest sample "
                              "is %s ([server] ready_max_age_s = %ld)",
                              newest == INT64_MIN ? "missing" : "too old", max_age);
    json_t *doc = json_pack("{s:s, s:o}", "status", "ready", "newest_sample_age_s",
                            newest == INT64_MIN ? json_null() : json_integer(now - newest));
    return gt_answer_ok(doc);
}

/* GET /metrics: the counters, and each source site's newest sample when
 * the store can be read. */
struct gt_answer gt_serve_metrics(struct gt_req *r)
{
    const struct gt_server_opts *o = r->o;
    if (!r->m)
        return gt_answer_fail(MHD_HTTP_NOT_FOUND, NULL,
                              "/metrics: only a running server keeps them");
    struct gt_db *db;
    struct gt_error err = {0};
    struct gt_newest_row *rows = NULL;
    size_t n = 0;
    bool up = gt_db_open(gt_dbconn_addr(o), GT_DB_READ, o->cfg->busy_timeout_ms, &db,
                         &err) == GT_OK;
    if (up) {
        up = gt_query_newest_by_src(db, &rows, &n, &err) == GT_OK;
        gt_db_close(db);
    }
    char *text = gt_metrics_text(r->m, up, rows, n, (int64_t)time(NULL));
    gt_newest_free(rows, n);
    if (!text)
        return gt_answer_fail(MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "out of memory");
    return gt_answer_text(text, PROMETHEUS_TYPE);
}

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
    struct gt_db *db = text[0] ? gt_dbconn_worker(o, &err) : NULL;
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

/* GET /metrics/pairs: each pair's series for Prometheus. */
struct gt_answer gt_serve_metrics_pairs(struct gt_req *r)
{
    const struct gt_server_opts *o = r->o;
    struct gt_thresholds t;
    struct gt_pair_state *v = NULL;
    size_t n = 0;
    struct gt_req all = *r;
    all.src = all.dst = NULL;   /* the whole matrix, bounded by max_status_pairs */
    struct gt_answer a = gt_reads_pair_states(&all, &t, &v, &n);
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
        return gt_answer_fail(MHD_HTTP_INTERNAL_SERVER_ERROR, NULL, "out of memory");
    return gt_answer_text(text, PROMETHEUS_TYPE);
}
