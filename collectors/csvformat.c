/*
 * csvformat.c - header mapping and row validation for CSV-shaped formats.
 */
#include "csvformat.h"
#include "csvread.h"
#include "base/util.h"

#include <math.h>
#include <string.h>

#define MAX_COLS 16

struct header_map {
    int role_of[CSV_MAX_FIELDS];   /* column index -> index into fmt->cols */
    int ncols;
};

static int map_header(const struct csv_format *fmt, const struct csv_record *rec,
                      const struct gt_input *in, struct header_map *map,
                      struct gt_error *err)
{
    char where[GT_ERR_WHERE];
    snprintf(where, sizeof where, "%s:%ld", in->name, rec->line);
    if (rec->problem || rec->total > rec->n)
        return gt_error_set(err, GT_EINPUT, where, "not a %s file: bad header (%s)",
                            fmt->name, rec->problem ? rec->problem : "too many columns");
    bool seen[MAX_COLS] = {false};
    map->ncols = rec->n;
    for (int i = 0; i < rec->n; i++) {
        const char *p = rec->f[i].p;
        size_t len = rec->f[i].len;
        gt_trim_span(&p, &len);
        int found = -1;
        for (int c = 0; c < fmt->ncols; c++)
            if (gt_span_ieq(p, len, fmt->cols[c].name))
                found = c;
        if (found < 0)
            return gt_error_set(err, GT_EINPUT, where,
                                "not a %s file: unexpected column '%.*s'",
                                fmt->name, (int)(len > 64 ? 64 : len), p);
        if (seen[found])
            return gt_error_set(err, GT_EINPUT, where,
                                "not a %s file: column '%s' appears twice",
                                fmt->name, fmt->cols[found].name);
        seen[found] = true;
        map->role_of[i] = found;
    }
    for (int c = 0; c < fmt->ncols; c++)
        if (fmt->cols[c].required && !seen[c])
            return gt_error_set(err, GT_EINPUT, where,
                                "not a %s file: missing column '%s'",
                                fmt->name, fmt->cols[c].name);
    return GT_OK;
}

/* Validate one data row into *s; returns false after rejecting it. */
static bool parse_row(const struct csv_format *fmt, const struct header_map *map,
                      const struct csv_record *rec, const struct gt_sink *sink,
                      struct gt_sample *s)
{
    if (rec->problem) {
        gt_rejectl(sink, rec->line, "%s", rec->problem);
        return false;
    }
    if (rec->total != map->ncols) {
        gt_rejectl(sink, rec->line, "expected %d fields, found %d", map->ncols,
                   rec->total);
        return false;
    }
    memset(s, 0, sizeof *s);
    s->line = rec->line;
    for (int i = 0; i < rec->n; i++) {
        const struct csv_column *col = &fmt->cols[map->role_of[i]];
        const char *p = rec->f[i].p;
        size_t len = rec->f[i].len;
        const char *why = NULL;
        int64_t v;
        switch (col->role) {
        case COL_TS:
            gt_trim_span(&p, &len);
            if (!gt_parse_time(p, len, &s->ts))
                why = "not a Unix time or ISO-8601 date";
            break;
        case COL_SRC:
        case COL_DST:
            why = gt_site_name_problem(p, len);
            if (col->role == COL_SRC)
                s->src = p, s->src_len = len;
            else
                s->dst = p, s->dst_len = len;
            break;
        case COL_RTT:
            gt_trim_span(&p, &len);
            switch (fmt->rtt(p, len, &s->rtt_ms, &why)) {
            case RTT_LOST: s->rtt_ms = NAN; break;
            case RTT_OK: break;
            case RTT_BAD: if (!why) why = "bad RTT"; break;
            }
            break;
        case COL_SEQ:
            gt_trim_span(&p, &len);
            if (len && (!gt_parse_i64(p, len, &s->seq) || s->seq < 0))
                why = "not a non-negative integer";
            break;
        case COL_COUNT:
            gt_trim_span(&p, &len);
            if (len && (!gt_parse_i64(p, len, &v) || v < 0))
                why = "not a non-negative integer";
            break;
        case COL_TEXT:
            break;
        }
        if (why) {
            int shown = len > 40 ? 40 : (int)len;
            /* quoted only when it is plain text: a control byte (an ESC
               sequence) would reach the operator's terminal */
            if (gt_utf8_valid(p, (size_t)shown) && !gt_has_control(p, (size_t)shown))
                gt_rejectl(sink, rec->line, "%s: '%.*s%s': %s", col->name, shown, p,
                           (size_t)shown < len ? "..." : "", why);
            else
                gt_rejectl(sink, rec->line, "%s: %s", col->name, why);
            return false;
        }
    }
    return true;
}

int csv_format_parse(const struct csv_format *fmt, const struct gt_input *in,
                     const struct gt_collect_opts *o, const struct gt_sink *sink,
                     struct gt_error *err)
{
    if (!in->fp)
        return gt_error_set(err, GT_EINPUT, in->name, "is a directory, not a %s file",
                            fmt->name);
    struct csv_reader *r = csv_open(in->fp, ',');
    if (!r)
        return gt_error_set(err, GT_ENOMEM, in->name, "out of memory");
    size_t peek_len;
    const char *peek = csv_peek(r, &peek_len);
    int rc = GT_OK;
    struct csv_record rec;
    struct header_map map = {0};
    if (!o->judge_records && gt_looks_binary(peek, peek_len)) {
        rc = gt_error_set(err, GT_EINPUT, in->name,
                          "not a %s file: binary data", fmt->name);
        goto out;
    }
    rc = csv_next(r, &rec);
    if (rc == 0) {
        rc = gt_error_set(err, GT_EINPUT, in->name, "not a %s file: empty input",
                          fmt->name);
        goto out;
    }
    if (rc < 0 || (rc = map_header(fmt, &rec, in, &map, err)) != GT_OK)
        goto out;
    while ((rc = csv_next(r, &rec)) == 1) {
        struct gt_sample s;
        if (parse_row(fmt, &map, &rec, sink, &s) && (rc = sink->emit(sink->ctx, &s)))
            goto out;
    }
out:
    if (rc < 0 && err && err->code == GT_OK)
        gt_error_set(err, rc, in->name, "%s", gt_strerror(rc));
    csv_close(r);
    return rc < 0 ? rc : GT_OK;
}
