/*
 * plots.c - GET /v1/plot/matrix, /v1/plot/ccdf and /v1/plot/series: the
 * SVG plots of src/plot for the dashboard, drawn from the store now.
 * The query (?metric=&highlight=&window=&bins=&samples=, and ?src=&dst=
 * for a pair's plots) is checked against the plots' own bounds and
 * [server] max_window before the store is opened.
 */
#define _DEFAULT_SOURCE   /* strdup, strtok_r */
#include "endpoints.h"
#include "dbconn.h"
#include "advisor/events.h"
#include "advisor/status.h"
#include "plot/plot.h"
#include "base/util.h"

#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The query's numbers and metric; status 0 when they are good. */
static struct gt_answer plot_query(const struct gt_req *r, int64_t *window, int64_t *bins,
                                   int64_t *samples, enum gt_plot_metric *metric)
{
    const struct gt_server_opts *o = r->o;
    if (r->window && (!gt_parse_i64(r->window, strlen(r->window), window) || *window < 2))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "window", "expected an integer >= 2");
    if (*window > o->cfg->server_max_window)
        return GT_TOO_MUCH("window", *window, o->cfg->server_max_window, "max_window");
    if (r->bins && (!gt_parse_i64(r->bins, strlen(r->bins), bins) || *bins < 1 ||
                    *bins > GT_PLOT_MAX_BINS))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "bins", "expected an integer 1 to %d",
                              GT_PLOT_MAX_BINS);
    if (r->samples && (!gt_parse_i64(r->samples, strlen(r->samples), samples) ||
                       *samples < 1 || *samples > GT_PLOT_MAX_MATRIX_SAMPLES))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "samples", "expected an integer 1 to %d",
                              GT_PLOT_MAX_MATRIX_SAMPLES);
    if (r->metric && !gt_plot_metric_parse(r->metric, metric))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, "metric",
                              "expected median, p99, loss, alpha or status");
    return (struct gt_answer){.status = 0};
}

/* The matrix: every pair's metric, the named sites highlighted. */
static int draw_matrix(const struct gt_server_opts *o, struct gt_db *db,
                       enum gt_plot_metric metric, int64_t samples, int64_t window,
                       char **names, size_t nnames, struct gt_buf *doc, struct gt_error *err)
{
    struct gt_thresholds t = {0};
    struct gt_plot_matrix_opts po = {metric, (size_t)samples, (size_t)window,
                                     (int64_t)time(NULL),
                                     (const char *const *)names, nnames, false, &t};
    int rc = metric == GT_PLOT_STATUS
                 ? gt_thresholds_load(&t, o->cfg, (size_t)o->cfg->window, err)
                 : GT_OK;
    if (rc == GT_OK)
        rc = gt_plot_matrix(db, &po, doc, err);
    gt_thresholds_free(&t);
    return rc;
}

struct gt_answer gt_serve_plot(struct gt_req *r)
{
    const struct gt_server_opts *o = r->o;
    const char *kind = r->path + strlen("/v1/plot/");
    int64_t window = o->cfg->window, bins = 240, samples = 1440;
    enum gt_plot_metric metric = GT_PLOT_MEDIAN;
    struct gt_answer a = plot_query(r, &window, &bins, &samples, &metric);
    if (a.status)
        return a;
    bool pair = strcmp(kind, "matrix") != 0;
    if (pair && (!r->src || !r->dst))
        return gt_answer_fail(MHD_HTTP_BAD_REQUEST, r->src ? "dst" : "src",
                              "?src=A&dst=B is needed");
    char *names[GT_PLOT_MAX_SITES], *copy = r->highlight ? strdup(r->highlight) : NULL;
    size_t nnames = 0;
    for (char *save, *t = copy ? strtok_r(copy, ",", &save) : NULL; t;
         t = strtok_r(NULL, ",", &save))
        if (nnames < GT_PLOT_MAX_SITES)
            names[nnames++] = t;
    struct gt_db *db;
    a = gt_dbconn_open(o, &db);
    if (a.status) {
        free(copy);
        return a;
    }
    struct gt_buf doc;
    struct gt_error err = {0};
    gt_buf_init(&doc, GT_PLOT_MAX_BYTES);
    int rc;
    if (!strcmp(kind, "ccdf")) {
        struct gt_plot_pair_opts po = {r->src, r->dst, (size_t)window, (int64_t)time(NULL),
                                       o->cfg->rto_ms, o->cfg};
        rc = gt_plot_ccdf(db, &po, &doc, &err);
    } else if (!strcmp(kind, "series")) {
        struct gt_event_opts eo = gt_event_opts_of(o->cfg);
        struct gt_plot_series_opts po = {r->src, r->dst, 0, 0, (size_t)bins, (size_t)window,
                                         false, &eo};
        rc = gt_plot_series(db, &po, &doc, &err);
    } else {
        rc = draw_matrix(o, db, metric, samples, window, names, nnames, &doc, &err);
    }
    gt_db_close(db);
    free(copy);
    if (rc) {
        gt_buf_free(&doc);
        a = gt_answer_err(&err, rc);
        if (rc == GT_ENOTFOUND)   /* the plot of a pair or site that is not there */
            a.status = MHD_HTTP_NOT_FOUND;
        return a;
    }
    return gt_answer_text(doc.data, "image/svg+xml");
}
