/*
 * csv.c - generic CSV: ts,src,dst,rtt_ms with a header, plus an optional
 * seq column (what `gridtail export` writes, so exports round-trip).
 * ts is Unix seconds or ISO-8601; an empty RTT, "loss", "NaN" or a
 * negative number means a lost probe.
 */
#include "csvformat.h"

#include <math.h>

static const struct csv_column columns[] = {
    {"ts", COL_TS, true},
    {"src", COL_SRC, true},
    {"dst", COL_DST, true},
    {"rtt_ms", COL_RTT, true},
    {"seq", COL_SEQ, false},
};

static enum rtt_verdict generic_rtt(const char *p, size_t len, double *ms,
                                    const char **why)
{
    if (len == 0 || gt_span_ieq(p, len, "loss") || gt_span_ieq(p, len, "nan"))
        return RTT_LOST;
    if (!gt_parse_double(p, len, ms) || !isfinite(*ms)) {
        *why = "not a number, 'loss', 'NaN' or empty";
        return RTT_BAD;
    }
    return *ms < 0 ? RTT_LOST : RTT_OK;
}

static const struct csv_format generic_csv = {
    "csv", columns, sizeof columns / sizeof columns[0], generic_rtt};

static int parse(const struct gt_input *in, const struct gt_collect_opts *o,
                 const struct gt_sink *sink, struct gt_error *err)
{
    return csv_format_parse(&generic_csv, in, o, sink, err);
}

const struct gt_collector gt_collector_csv = {
    "csv", "generic CSV: ts,src,dst,rtt_ms[,seq] with a header", parse, NULL, false, NULL};
