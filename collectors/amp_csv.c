/*
 * amp_csv.c - the AMP raw CSV export:
 *   timestamp,src,dst,testType,testSubType,packet_size_bytes,rtt_ms
 * with rtt_ms in milliseconds or the literal "loss".
 */
#include "csvformat.h"

#include <math.h>

static const struct csv_column columns[] = {
    {"timestamp", COL_TS, true},
    {"src", COL_SRC, true},
    {"dst", COL_DST, true},
    {"testType", COL_TEXT, true},
    {"testSubType", COL_TEXT, true},
    {"packet_size_bytes", COL_COUNT, true},
    {"rtt_ms", COL_RTT, true},
};

static enum rtt_verdict amp_rtt(const char *p, size_t len, double *ms,
                                const char **why)
{
    if (len == 4 && p[0] == 'l' && p[1] == 'o' && p[2] == 's' && p[3] == 's')
        return RTT_LOST;
    if (!gt_parse_double(p, len, ms) || !isfinite(*ms)) {
        *why = "not a number or 'loss'";
        return RTT_BAD;
    }
    if (*ms < 0) {
        *why = "negative RTT";
        return RTT_BAD;
    }
    return RTT_OK;
}

static const struct csv_format amp_csv = {
    "amp-csv", columns, sizeof columns / sizeof columns[0], amp_rtt};

static int parse(const struct gt_input *in, const struct gt_collect_opts *o,
                 const struct gt_sink *sink, struct gt_error *err)
{
    return csv_format_parse(&amp_csv, in, o, sink, err);
}

const struct gt_collector gt_collector_amp_csv = {
    "amp-csv",
    "AMP raw export: timestamp,src,dst,testType,testSubType,packet_size_bytes,rtt_ms",
    parse, NULL, false, NULL};
