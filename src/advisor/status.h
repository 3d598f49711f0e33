/*
 * status.h - each pair's status, MaDDash style (issue 28, part 2): ok,
 * warning, critical or no data, with the reasons, from the median, p99
 * and loss of its newest samples against [thresholds], and how long it
 * has been silent.
 *
 * Limits are per default ([thresholds] in the config) and per site group
 * ([thresholds] groups_file): a pair takes the limits of the first group
 * holding both its sites, else the default ones.  A group holds the sites
 * it lists (sites=A,B,...), or else the sites whose cluster or domain
 * (`sites --import`) is its name.  docs/ADVISOR.md, "Thresholds and
 * status".
 */
#ifndef GT_STATUS_H
#define GT_STATUS_H

#include "advisor/events.h"
#include "base/config.h"
#include "base/error.h"
#include "db/db.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GT_STATUS_MAX_GROUPS 256
#define GT_STATUS_MAX_SAMPLES 100000

enum gt_pair_status { GT_STATUS_OK, GT_STATUS_WARNING, GT_STATUS_CRITICAL, GT_STATUS_NO_DATA };

/* [0] warning, [1] critical; 0 = no such limit */
struct gt_limits {
    double p99_ms[2], median_ms[2], loss[2];
    long silent_s;
};

struct gt_status_group {
    char *name;
    char **sites;             /* NULL: by cluster or domain */
    size_t nsites;
    struct gt_limits lim;
};

struct gt_thresholds {
    struct gt_limits def;
    struct gt_status_group *groups;
    size_t ngroups;
    size_t samples;           /* the newest this many samples of a pair */
    struct gt_event_opts events;   /* what makes a level shift, from the config */
};

/* The config's limits, and its groups_file read (errors name file:line:
 * field); window is the samples used when [thresholds] samples is 0. */
int gt_thresholds_load(struct gt_thresholds *t, const struct gt_config *cfg, size_t window,
                       struct gt_error *err);
void gt_thresholds_free(struct gt_thresholds *t);

#define GT_STATUS_MAX_REASONS 4

/* The limits a pair is judged by, each with its own level */
enum gt_status_check { GT_CHECK_LOSS, GT_CHECK_P99, GT_CHECK_MEDIAN, GT_NCHECKS };
extern const char *const gt_status_check_names[GT_NCHECKS];   /* "loss", "p99", "median" */

struct gt_pair_state {
    char *src, *dst;
    const char *group;        /* NULL: the default limits (borrowed from t) */
    enum gt_pair_status status;
    enum gt_pair_status check[GT_NCHECKS];   /* ok, warning or critical each */
    char reasons[GT_STATUS_MAX_REASONS][96];
    size_t nreasons;
    size_t samples, lost;
    double median_ms, p99_ms, loss;   /* NAN when no valid sample */
    int64_t newest;           /* the newest sample at or before at, lost or not;
                                 INT64_MIN: none */
    double age_s;             /* at - newest; INFINITY: none */
    double shift;             /* the last level shift in those samples (events.h):
                                 after / before - 1 of its medians; 0: none */
    int regime;               /* enum gt_fit_regime refit noted last; -1: none */
    double fit_age_s;         /* at - that refit's time; INFINITY: none */
};

/* Every stored pair's state at time at (self pairs aside), by source and
 * destination name; filters src and dst (NULL = any).  Caller frees with
 * gt_pair_states_free. */
int gt_pair_states(struct gt_db *db, const struct gt_thresholds *t, int64_t at,
                   const char *src, const char *dst, struct gt_pair_state **out, size_t *n,
                   struct gt_error *err);
void gt_pair_states_free(struct gt_pair_state *v, size_t n);

/* The same, asking stop between pairs: a reason it gives ends the work
 * with GT_EINTR and the reason (a server request's time budget). */
struct gt_stop {
    const char *(*ask)(void *ctx);
    void *ctx;
};
int gt_pair_states_until(struct gt_db *db, const struct gt_thresholds *t, int64_t at,
                         const char *src, const char *dst, const struct gt_stop *stop,
                         struct gt_pair_state **out, size_t *n, struct gt_error *err);

/* Worst first: critical, no_data, warning, ok; then by source and
 * destination name. */
void gt_pair_states_sort(struct gt_pair_state *v, size_t n);

/* "ok", "warning", "critical", "no_data" */
const char *gt_status_name(enum gt_pair_status s);
bool gt_status_parse(const char *s, enum gt_pair_status *out);

/* The document `pairs --status --json` prints and GET /v1/status answers:
 * {"at", "samples", "counts": {ok, warning, critical, no_data}, "total",
 * "pairs": [the states shown: only those of status only when only >= 0,
 * from offset, at most limit]}. */
json_t *gt_status_json(const struct gt_pair_state *v, size_t n, const struct gt_thresholds *t,
                       int64_t at, int only, size_t offset, size_t limit);

#endif
