/*
 * progress.h - one updating status line on stderr for long work (ingest,
 * synth, refit, placement search): what, how many of how many, the rate
 * and the time left.  Shown only when stderr is a terminal, so pipes, cron
 * and logs get nothing; GRIDTAIL_PROGRESS=1 forces it on (tests), =0 off.
 * Updates are drawn at most ten times a second, so calling gt_progress_update
 * per item is cheap.
 */
#ifndef GT_PROGRESS_H
#define GT_PROGRESS_H

#include <stdbool.h>

struct gt_progress {
    bool on;
    const char *what;    /* borrowed: "ingest rtt.csv", "refit" */
    const char *unit;    /* borrowed: "rows", "pairs" */
    double total;        /* 0 = unknown */
    double started_ms, drawn_ms;
    bool drawn;
};

/* Begin; total 0 when the amount of work is not known. */
void gt_progress_start(struct gt_progress *p, const char *what, const char *unit,
                       double total);

/* done items so far (redrawn when 100 ms have passed since the last draw). */
void gt_progress_update(struct gt_progress *p, double done);

/* Clear the line (nothing is left on the terminal). */
void gt_progress_end(struct gt_progress *p);

#endif
