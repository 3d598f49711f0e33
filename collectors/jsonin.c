/*
 * jsonin.c - JSON input helpers shared by amp-json and esmond.
 */
#include "jsonin.h"
#include "base/util.h"

#include <math.h>
#include <string.h>

int gt_json_load(const struct gt_input *in, const struct gt_collect_opts *o,
                 const char *format, json_t **root, struct gt_error *err)
{
    struct gt_buf buf;
    int rc = gt_input_slurp(in, o, &buf, err);
    if (rc) {
        gt_buf_free(&buf);
        return rc;
    }
    if (gt_looks_binary(buf.data, buf.len)) {
        gt_buf_free(&buf);
        return gt_error_set(err, GT_EINPUT, in->name, "not a %s file: binary data",
                            format);
    }
    json_error_t jerr;
    *root = json_loadb(buf.data, buf.len, 0, &jerr);
    gt_buf_free(&buf);
    if (!*root) {
        char where[GT_ERR_WHERE];
        snprintf(where, sizeof where, "%s:%d", in->name, jerr.line);
        return gt_error_set(err, GT_EINPUT, where,
                            "not a %s file: invalid JSON at column %d: %s", format,
                            jerr.column, jerr.text);
    }
    return GT_OK;
}

int gt_json_lines(const char *text, size_t len, const char *name, const char *format,
                  const char *what, const struct gt_sink *sink,
                  int (*take)(void *ctx, const json_t *doc, const char *loc), void *ctx,
                  struct gt_error *err)
{
    int rc = GT_OK;
    long lineno = 0;
    for (size_t pos = 0; rc == GT_OK && pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        const char *line = text + pos;
        size_t n = end - pos;
        pos = end + 1;
        lineno++;
        gt_trim_span(&line, &n);
        if (!n)
            continue;
        json_error_t jerr;
        json_t *doc = json_loadb(line, n, 0, &jerr);
        char loc[32];
        snprintf(loc, sizeof loc, "%ld", lineno);
        if (!doc && lineno == 1)
            return gt_error_set(err, GT_EINPUT, name, "not a%s %s file: %s",
                                strchr("aeiou", format[0]) ? "n" : "", format, what);
        if (!doc)
            gt_reject(sink, loc, "not JSON: %s", jerr.text);
        else
            rc = take(ctx, doc, loc);
        json_decref(doc);
    }
    return rc;
}

bool gt_json_time(const json_t *v, int64_t *ts)
{
    if (json_is_integer(v)) {
        *ts = (int64_t)json_integer_value(v);
        return true;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (!isfinite(d) || d < -9.2e18 || d > 9.2e18)
            return false;
        *ts = (int64_t)floor(d);
        return true;
    }
    if (json_is_string(v))
        return gt_parse_time(json_string_value(v), json_string_length(v), ts);
    return false;
}

bool gt_json_number(const json_t *v, double *out)
{
    if (json_is_integer(v))
        *out = (double)json_integer_value(v);
    else if (json_is_real(v))
        *out = json_real_value(v);
    else
        return false;
    return isfinite(*out);
}
