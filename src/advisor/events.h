/*
 * events.h - what happened on each pair, one event each with its time
 * (issue 28, part 1): level shifts (the online detector of
 * estimators/changepoint.h with its alert settings, with the size of the
 * step), loss bursts,
 * outages and their end, a pair that stopped reporting and started
 * again, and a fit that changed regime (alpha <= 1, the fallback).
 *
 * The sample-found events are stored as they are found: at ingest and
 * refit, gt_events_record scans each pair's samples from its redo point
 * (db/eventlog.h) and replaces what it finds from there; refit notes the
 * regimes.  A query reads the stored events and finds those of samples
 * not scanned yet (a push to the server, say) as it goes, so it answers
 * the same before and after a scan (docs/ADVISOR.md, "Events").
 */
#ifndef GT_EVENTS_H
#define GT_EVENTS_H

#include "base/config.h"
#include "base/error.h"
#include "db/db.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

enum gt_event_kind {
    GT_EV_SHIFT,        /* the median moved: before_ms -> after_ms */
    GT_EV_LOSS_BURST,   /* a run of lost probes shorter than an outage */
    GT_EV_OUTAGE,       /* every probe lost for outage_s or longer */
    GT_EV_OUTAGE_END,   /* the first answer after an outage */
    GT_EV_SILENT,       /* no sample at all for silent_s or longer: stopped reporting */
    GT_EV_REPORTING,    /* the first sample after such a silence */
    GT_EV_REGIME,       /* refit found the fit in another regime: before_ms and
                           after_ms hold the enum gt_fit_regime (advisor.h) */
    GT_EV_NKINDS
};

struct gt_event_opts {
    long burst_min;     /* lost probes in a row that make a burst (3) */
    long outage_s;      /* a run of lost probes this long is an outage (300) */
    long silent_s;      /* a gap between samples this long is a silence (900) */
    double shift_min;   /* a shift moves the median by this fraction at least (0.01) */
};

struct gt_event {
    int64_t ts;         /* when: the change's first sample, the run's first
                           lost probe, the last sample before a silence */
    enum gt_event_kind kind;
    int64_t until;      /* bursts, outages, silences: their end (the next
                           answer or sample); INT64_MIN: still going */
    long count;         /* bursts and outages: probes lost */
    double before_ms, after_ms;   /* shifts: the medians either side */
};

/* What makes an event, from [thresholds] burst_min, outage_s, silent_s
 * and shift_min. */
struct gt_event_opts gt_event_opts_of(const struct gt_config *cfg);

/* "shift", "loss_burst", "outage", "outage_end", "silent", "reporting" */
const char *gt_event_name(enum gt_event_kind k);
bool gt_event_parse(const char *s, enum gt_event_kind *out);

/* The events of one pair's samples ts[0..n) (ascending; rtt NAN = lost),
 * judged up to time `end` (a silence still going at end is one).  *out
 * malloc'd (caller frees), *nout of them, in time order.  GT_ENOMEM. */
int gt_events_of_series(const int64_t *ts, const double *rtt, size_t n, int64_t end,
                        const struct gt_event_opts *o, struct gt_event **out, size_t *nout);

/* One event of a pair, for the store-wide list. */
struct gt_pair_event {
    char *src, *dst;
    struct gt_event ev;
};

#define GT_EVENTS_MAX_SAMPLES 20000000   /* read for one call, in all */
#define GT_EVENTS_LEAD_S 3600            /* read before `from`, for the detector */

/* Every event of the stored pairs (src, dst: NULL = any) in [from, to),
 * by time then pair; only of one kind when kind >= 0: the stored ones
 * before each pair's redo point, and those found in its samples after it
 * (read from GT_EVENTS_LEAD_S before it, or before `from` if later;
 * judged at `to`).  GT_ETOOBIG past GT_EVENTS_MAX_SAMPLES samples.
 * Caller frees with gt_pair_events_free. */
int gt_events_query(struct gt_db *db, const char *src, const char *dst, int64_t from,
                    int64_t to, int kind, const struct gt_event_opts *o,
                    struct gt_pair_event **out, size_t *n, struct gt_error *err);
void gt_pair_events_free(struct gt_pair_event *v, size_t n);

/* Find the events of every pair's samples from its redo point on, judged
 * at `now` (a silence still going at now is one), and store them in one
 * transaction of its own: idempotent (a second run finds and stores the
 * same).  *pairs scanned and *found events (either may be NULL).  A
 * pair's read is bounded by GT_EVENTS_MAX_SAMPLES (GT_ETOOBIG). */
int gt_events_record(struct gt_db *db, const struct gt_event_opts *o, int64_t now,
                     size_t *pairs, size_t *found, struct gt_error *err);

/* Refit's regimes: every pair's fit in fits judged as the estimate would
 * with o (gt_adv_fit_regime), while fits' snapshot is open; then noted
 * with the time `now` in a transaction of their own: a regime other than
 * the one noted before is a fit_regime event at the fit's newest sample
 * (*changed of them). */
struct gt_pairfits;
struct gt_adv_opts;
struct gt_regimes;
int gt_events_judge_regimes(struct gt_db *db, struct gt_pairfits *fits,
                            const struct gt_adv_opts *o, struct gt_regimes **out,
                            struct gt_error *err);
int gt_events_note_regimes(struct gt_db *db, const struct gt_regimes *r, int64_t now,
                           size_t *changed, struct gt_error *err);
void gt_regimes_free(struct gt_regimes *r);

/* A human sentence for the event: "median 10.1 -> 15.1 ms (+49.5 %)". */
void gt_event_detail(const struct gt_event *e, char *buf, size_t size);

/* {"from", "to", "total", "events": [{"ts", "src", "dst", "kind", "detail",
 * "until", "lost", "before_ms", "after_ms"}]} of the first `limit`. */
json_t *gt_events_json(const struct gt_pair_event *v, size_t n, int64_t from, int64_t to,
                       size_t limit);

#endif
