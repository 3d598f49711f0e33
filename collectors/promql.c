/*
 * promql.c - a Prometheus query_range request and its answer's pieces.
 */
#include "promql.h"
#include "jsonin.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const json_t *gt_prom_matrix(const json_t *root)
{
    const json_t *data = json_object_get(root, "data");
    const json_t *type = json_object_get(data, "resultType");
    if (!json_is_string(type) || strcmp(json_string_value(type), "matrix"))
        return NULL;
    const json_t *res = json_object_get(data, "result");
    return json_is_array(res) ? res : NULL;
}

bool gt_prom_point(const json_t *p, int64_t *ts, double *v)
{
    const json_t *t = json_array_get(p, 0), *s = json_array_get(p, 1);
    double d;
    if (json_array_size(p) != 2 || !gt_json_number(t, &d) || !json_is_string(s) ||
        !(fabs(d) < 1e15))   /* a time, not 1e300 (its cast undefined) */
        return false;
    *ts = (int64_t)floor(d);
    const char *text = json_string_value(s);
    if (!gt_parse_double(text, strlen(text), v))
        *v = NAN;   /* "NaN", "+Inf": no value */
    return true;
}

const char *gt_prom_label(const json_t *series, const char *name)
{
    const json_t *v = json_object_get(json_object_get(series, "metric"), name);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

int gt_prom_query_range(const char *base, const char *query, int64_t from, int64_t to,
                        long step, const struct gt_http_opts *h, json_t **root,
                        struct gt_error *err)
{
    struct gt_buf url, answer;
    gt_buf_init(&url, 65536);
    gt_buf_init(&answer, gt_http_json_cap(h));
    char tail[96];
    snprintf(tail, sizeof tail, "&start=%lld&end=%lld&step=%ld", (long long)from, (long long)to,
             step);
    size_t n = strlen(base);
    int rc = gt_buf_append(&url, base, n);
    if (rc == GT_OK && !strstr(base, "/api/v1/query_range"))
        rc = gt_buf_append(&url, n && base[n - 1] == '/' ? "api/v1/query_range"
                                                         : "/api/v1/query_range",
                           n && base[n - 1] == '/' ? 18 : 19);
    if (rc == GT_OK)
        rc = gt_buf_append(&url, strchr(base, '?') ? "&query=" : "?query=", 7);
    if (rc == GT_OK)
        rc = gt_http_escape(&url, query, err);
    if (rc == GT_OK)
        rc = gt_buf_append(&url, tail, strlen(tail));
    if (rc == GT_ENOMEM)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK)
        rc = gt_http_get(url.data, h, &answer, NULL, err);
    json_error_t jerr;
    *root = rc == GT_OK ? gt_json_load_page(answer.data ? answer.data : "", answer.len,
                                            "data.result", &jerr)
                        : NULL;
    if (rc == GT_OK && !*root) {
        char why[300];
        gt_json_error_text(&jerr, why, sizeof why);
        rc = gt_error_set(err, GT_EINPUT, url.data, "not a query_range answer: %s", why);
    } else if (rc == GT_OK && !gt_prom_matrix(*root)) {
        const char *e = json_is_string(json_object_get(*root, "error"))
                            ? json_string_value(json_object_get(*root, "error")) : "";
        rc = gt_error_set(err, GT_EINPUT, url.data, "not a query_range answer of a range "
                          "vector%s%s", *e ? ": " : "", e);
    }
    gt_buf_free(&url);
    gt_buf_free(&answer);
    return rc;
}

