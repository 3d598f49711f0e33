/*
 * csvformat.h - the engine behind the CSV-shaped formats (amp-csv, csv).
 *
 * A format is a header (column names and roles) plus a rule for the RTT
 * field; the engine maps the header, validates every row and emits the
 * samples.  Columns may come in any order; unknown or missing required
 * columns refuse the file before anything is emitted.
 */
#ifndef GT_CSVFORMAT_H
#define GT_CSVFORMAT_H

#include "collector.h"

enum csv_role { COL_TS, COL_SRC, COL_DST, COL_RTT, COL_SEQ, COL_COUNT, COL_TEXT };

struct csv_column {
    const char *name;
    enum csv_role role;
    bool required;
};

enum rtt_verdict { RTT_OK, RTT_LOST, RTT_BAD };

struct csv_format {
    const char *name;
    const struct csv_column *cols;
    int ncols;
    /* Classify an RTT field; on RTT_BAD *why says what is wrong. */
    enum rtt_verdict (*rtt)(const char *p, size_t len, double *ms,
                            const char **why);
};

int csv_format_parse(const struct csv_format *fmt, const struct gt_input *in,
                     const struct gt_collect_opts *o, const struct gt_sink *sink,
                     struct gt_error *err);

#endif
