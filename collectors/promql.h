/*
 * promql.h - what the Prometheus readers share: one query_range request
 * and the pieces of its answer (a matrix of series, each with its labels
 * and its [time, "value"] points).  prometheus.c reads blackbox_exporter
 * series with it, promhist.c smokeping_prober's histograms.
 */
#ifndef GT_PROMQL_H
#define GT_PROMQL_H

#include "collector.h"

#include <jansson.h>

/* The series of a query_range answer (data.result of a matrix), or NULL
 * when root is not one. */
const json_t *gt_prom_matrix(const json_t *root);

/* A point of a series: [time, "value"]; false when not one.  A value
 * that is no finite number ("NaN", "+Inf") is NAN. */
bool gt_prom_point(const json_t *p, int64_t *ts, double *v);

/* The value of a series' label, or NULL. */
const char *gt_prom_label(const json_t *series, const char *name);

/* query over [from, to] every step seconds, from the Prometheus at base
 * (its /api/v1/query_range added unless base has it): the answer's root,
 * a matrix (caller decrefs); an answer that is not one is GT_EINPUT with
 * Prometheus' own error text. */
int gt_prom_query_range(const char *base, const char *query, int64_t from, int64_t to,
                        long step, const struct gt_http_opts *h, json_t **root,
                        struct gt_error *err);

#endif
