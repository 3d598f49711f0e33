/*
 * jsonin.c - JSON input helpers shared by the JSON formats: amp-json,
 * esmond, and the archives' pages (atlas, pscheduler, prometheus), where
 * one value jansson refuses costs its record, not the page
 * (gt_json_load_page, issue 45).
 */
#include "jsonin.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int gt_json_load(const struct gt_input *in, const struct gt_collect_opts *o,
                 const char *format, json_t **root, struct gt_error *err)
{
    return gt_json_load_records(in, o, format, NULL, root, err);
}

int gt_json_load_records(const struct gt_input *in, const struct gt_collect_opts *o,
                         const char *format, const char *records, json_t **root,
                         struct gt_error *err)
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
    *root = records ? gt_json_load_page(buf.data, buf.len, records, &jerr)
                    : json_loadb(buf.data, buf.len, 0, &jerr);
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

static bool value_error(const json_error_t *jerr);

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
        if (!doc && lineno == 1 && !value_error(&jerr))   /* not one bad value: not JSON */
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

/* ---- pages whose bad values cost one record ---- */

static size_t skip_ws(const char *p, size_t len, size_t i)
{
    while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    return i;
}

/* i at a quote: the index after the closing one (len if none) */
static size_t skip_string(const char *p, size_t len, size_t i)
{
    for (i++; i < len && p[i] != '"'; i++)
        if (p[i] == '\\')
            i++;
    return i < len ? i + 1 : len;
}

/* One value from i (whitespace first), not checked: its end.  A bad
 * byte or number is only text here; json_loadb judges it. */
static size_t skip_value(const char *p, size_t len, size_t i)
{
    i = skip_ws(p, len, i);
    if (i < len && p[i] == '"')
        return skip_string(p, len, i);
    if (i < len && (p[i] == '{' || p[i] == '[')) {
        size_t depth = 0;
        while (i < len) {
            char c = p[i];
            if (c == '"') {
                i = skip_string(p, len, i);
                continue;
            }
            i++;
            if (c == '{' || c == '[')
                depth++;
            else if ((c == '}' || c == ']') && --depth == 0)
                return i;
        }
        return len;
    }
    while (i < len && !strchr(",]} \t\r\n", p[i]))
        i++;
    return i;
}

/* The array at path (keys joined by '.') in text: the index of its '[',
 * or len when the text does not have it there. */
static size_t find_array(const char *p, size_t len, const char *path)
{
    size_t i = skip_ws(p, len, 0);
    while (*path) {
        const char *dot = strchr(path, '.');
        size_t klen = dot ? (size_t)(dot - path) : strlen(path);
        if (i >= len || p[i] != '{')
            return len;
        i = skip_ws(p, len, i + 1);
        for (;;) {
            if (i >= len || p[i] != '"')
                return len;
            size_t k = i + 1, end = skip_string(p, len, i);
            bool match = end - k == klen + 1 && !memcmp(p + k, path, klen);
            i = skip_ws(p, len, end);
            if (i >= len || p[i] != ':')
                return len;
            i = skip_ws(p, len, i + 1);
            if (match)
                break;
            i = skip_ws(p, len, skip_value(p, len, i));
            if (i >= len || p[i] != ',')
                return len;
            i = skip_ws(p, len, i + 1);
        }
        path += klen + (dot != NULL);
    }
    return i < len && p[i] == '[' ? i : len;
}

static bool value_error(const json_error_t *jerr)
{
    enum json_error_code c = json_error_code(jerr);
    return c == json_error_invalid_utf8 || c == json_error_null_character ||
           c == json_error_numeric_overflow;
}

void gt_json_error_text(const json_error_t *jerr, char *buf, size_t size)
{
    snprintf(buf, size, "line %d column %d: %s", jerr->line, jerr->column, jerr->text);
}

const char *gt_json_dropped(const json_t *v)
{
    return json_is_string(v) && json_string_length(v) > 0 && json_string_value(v)[0] == '\0'
               ? json_string_value(v) + 1
               : NULL;
}

struct dropped {
    size_t index;
    char why[200];
};

/* Each element of the array at p[a] decoded alone; those refused by
 * value become null in *out (malloc'd), listed in *bad. */
static bool drop_bad_elements(const char *p, size_t len, size_t a, char **out, size_t *out_len,
                              struct dropped **bad, size_t *nbad)
{
    size_t cap = 0;
    struct gt_buf t;
    gt_buf_init(&t, (size_t)-1 / 2);
    size_t i = skip_ws(p, len, a + 1), done = 0;
    bool ok = true;
    *bad = NULL, *nbad = 0;
    for (size_t k = 0; ok && i < len && p[i] != ']'; k++) {
        size_t s = i, e = skip_value(p, len, i);
        json_error_t jerr;
        json_t *one = json_loadb(p + s, e - s, JSON_DECODE_ANY, &jerr);
        json_decref(one);
        if (!one && value_error(&jerr)) {
            if (*nbad == cap) {
                cap = cap ? 2 * cap : 8;
                struct dropped *v = realloc(*bad, cap * sizeof *v);
                if (!v) {
                    ok = false;
                    break;
                }
                *bad = v;
            }
            (*bad)[*nbad].index = k;
            snprintf((*bad)[*nbad].why, sizeof (*bad)[*nbad].why, "invalid JSON: %s",
                     jerr.text);
            gt_text_safe((*bad)[*nbad].why);   /* it may quote the bad bytes */
            ok = gt_buf_append(&t, p + done, s - done) == GT_OK &&
                 gt_buf_append(&t, "null", 4) == GT_OK;
            done = e;
            ++*nbad;
        }
        i = skip_ws(p, len, e);
        if (i < len && p[i] == ',')
            i = skip_ws(p, len, i + 1);
        else if (i >= len || p[i] != ']')
            ok = false;   /* not an array's shape: json_loadb says what */
    }
    ok = ok && *nbad && gt_buf_append(&t, p + done, len - done) == GT_OK;
    *out = t.data, *out_len = t.len;
    if (!ok) {
        gt_buf_free(&t);
        *out = NULL;
    }
    return ok;
}

json_t *gt_json_load_page(const char *text, size_t len, const char *records,
                          json_error_t *jerr)
{
    json_error_t own;
    if (!jerr)
        jerr = &own;
    json_t *root = json_loadb(text, len, 0, jerr);
    if (root || !value_error(jerr))
        return root;
    size_t a = find_array(text, len, records);
    char *fixed = NULL;
    size_t fixed_len = 0, nbad = 0;
    struct dropped *bad = NULL;
    if (a == len || !drop_bad_elements(text, len, a, &fixed, &fixed_len, &bad, &nbad)) {
        free(bad);
        return NULL;   /* *jerr: the first refusal, outside the records */
    }
    json_error_t again;
    root = json_loadb(fixed, fixed_len, 0, &again);
    free(fixed);
    json_t *list = root;
    for (const char *k = records; list && *k;) {
        const char *dot = strchr(k, '.');
        size_t n = dot ? (size_t)(dot - k) : strlen(k);
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(n < 63 ? n : 63), k);
        list = json_object_get(list, key);
        k += n + (dot != NULL);
    }
    /* the array decoded must be the one scanned (a key given twice...) */
    bool ok = root && json_is_array(list);
    for (size_t i = 0; ok && i < nbad; i++) {
        char why[sizeof bad[i].why + 1] = "";
        memcpy(why + 1, bad[i].why, sizeof bad[i].why);
        ok = json_is_null(json_array_get(list, bad[i].index)) &&
             json_array_set_new(list, bad[i].index, json_stringn(why, 1 + strlen(why + 1))) == 0;
    }
    free(bad);
    if (!ok) {
        if (root)
            *jerr = (json_error_t){.line = -1, .column = -1, .text = "the records are not "
                                   "where they were scanned (a key given twice?)"};
        else
            *jerr = again;
        json_decref(root);
        return NULL;
    }
    return root;
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
