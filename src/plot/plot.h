/*
 * plot.h - gridtail's plots, each one SVG document (svg.h) written into a
 * caller's capped buffer: a pair's tail on log-log axes with the fitted
 * models (ccdf), its history SmokePing-style (series), the site x site
 * matrix of a metric (matrix), E[max] of the best set against its size
 * (emax) and a backtest report's heatmaps and calibration (backtest).
 * The command line and the server's dashboard draw with the same code.
 * Errors name the field or option they are about; the store is borrowed.
 */
#ifndef GT_PLOT_H
#define GT_PLOT_H

#include "base/config.h"
#include "base/error.h"
#include "base/util.h"
#include "db/db.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits: a plot never holds more than this much of the store. */
#define GT_PLOT_MAX_SAMPLES 2000000   /* series: samples in [from, to] */
#define GT_PLOT_MAX_BINS 2000         /* series: time bins */
#define GT_PLOT_MAX_SITES 200         /* matrix: sites */
#define GT_PLOT_MAX_BYTES (64u << 20) /* any document */

struct gt_plot_pair_opts {
    const char *src, *dst;
    size_t window;            /* samples fitted (the advisor's window) */
    int64_t at;               /* the window ends at or before this time */
    double rto_ms;            /* the loss model's retransmission timeout */
    const struct gt_config *cfg;   /* the advisor's settings (max_ks, fallback,
                                      loss), borrowed; NULL: the defaults */
};

/* The window's empirical CCDF, P(RTT >= x), on log-log axes with the
 * fitted Pareto and normal curves (and, when the window lost probes, the
 * selected model with the loss mixture the advisor uses), k, alpha, mu,
 * sigma, the fit index, KS and each fit's verdict in the legend, and the
 * model the advisor uses for the pair (its estimate of src -> dst at the
 * same window and time) drawn bold and named: the selected fit, or the
 * window's own samples when both fits are flagged.  GT_ENOTFOUND for an
 * unknown pair, GT_EINPUT for a window with fewer than two answered
 * samples. */
int gt_plot_ccdf(struct gt_db *db, const struct gt_plot_pair_opts *o, struct gt_buf *out,
                 struct gt_error *err);

struct gt_plot_series_opts {
    const char *src, *dst;
    int64_t from, to;         /* [from, to]; to 0: the pair's newest sample;
                                 from 0: a day before to */
    size_t bins;              /* time bins (1 .. GT_PLOT_MAX_BINS) */
    size_t window;            /* the current fit window, shaded */
    bool log_y;               /* a log RTT axis; false: chosen from the data */
    const struct gt_event_opts *events;   /* what makes an event (advisor/events.h:
                                             gt_event_opts_of the config) */
};

/* The series' RTT axis is logarithmic, unless asked for, when the largest
 * value plotted is more than this many times the smallest. */
#define GT_PLOT_LOG_RATIO 10.0

/* Per time bin the median RTT and the 25-75 % and 10-90 % bands, the
 * bins' loss as red bars along the bottom, level shifts where the offline
 * segmentation of the period's samples (estimators/segment.h) cuts them
 * as dashed vertical lines,
 * and the last `window` samples shaded.  The RTT axis is linear, or
 * logarithmic when asked (log_y) or when the values span more than
 * GT_PLOT_LOG_RATIO (the axis label says so). */
int gt_plot_series(struct gt_db *db, const struct gt_plot_series_opts *o, struct gt_buf *out,
                   struct gt_error *err);

enum gt_plot_metric { GT_PLOT_MEDIAN, GT_PLOT_P99, GT_PLOT_LOSS, GT_PLOT_ALPHA, GT_PLOT_STATUS };

/* "median", "p99", "loss", "alpha", "status" -> metric; false when
 * unknown. */
bool gt_plot_metric_parse(const char *s, enum gt_plot_metric *m);

#define GT_PLOT_MAX_MATRIX_SAMPLES 100000   /* matrix: samples per pair */

struct gt_plot_matrix_opts {
    enum gt_plot_metric metric;
    size_t samples;           /* each pair's newest samples the metric is of */
    size_t window;            /* alpha: the Pareto fit of the newest window of those */
    int64_t at;               /* at or before this time */
    const char *const *highlight;   /* sites to mark (a placement), borrowed */
    size_t nhighlight;
    bool by_name;             /* rows in name order instead of seriated */
    const struct gt_thresholds *thresholds;   /* status: the limits (advisor/status.h) */
};

/* Source rows x destination columns coloured by the metric of each
 * pair's newest samples (median and p99 RTT and alpha on log scales,
 * loss in % of the probes), sites seriated so that sites close
 * to each other sit together (a nearest-neighbour chain improved by 2-opt
 * on the symmetrised median RTT), highlighted sites framed in red. */
int gt_plot_matrix(struct gt_db *db, const struct gt_plot_matrix_opts *o, struct gt_buf *out,
                   struct gt_error *err);

struct gt_plot_emax_point {
    double size;              /* partner sites */
    double e_max, p99;        /* ms; NAN when not estimable */
    const char *sites;        /* the best set, e.g. "A,B,C" (borrowed) */
};

/* E[max] and p99 of the best set against its size, each point labelled
 * with its sites. */
int gt_plot_emax(const char *root, const struct gt_plot_emax_point *pts, size_t n,
                 struct gt_buf *out, struct gt_error *err);

/* From a `backtest --json` report: an RMSE heatmap over (window, tau)
 * per method, the improvement over normal per method with significant
 * cells (p < 0.05) dotted, and the calibration (the share of outcomes at
 * or below the predicted p50, p90, p99 against those levels).  Fields
 * missing or of the wrong type are GT_EINPUT naming them. */
int gt_plot_backtest(const json_t *report, struct gt_buf *out, struct gt_error *err);

#endif
