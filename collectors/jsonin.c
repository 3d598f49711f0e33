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
