/*
 * alerts.h - the pairs' states as Alertmanager alerts (issue 28, part 3,
 * for sites without Prometheus): `gridtail alerts` evaluates the same
 * thresholds as pairs --status and etc/prometheus/gridtail-rules.yml, and
 * sends firing and resolved alerts to Alertmanager's /api/v2/alerts or to
 * a webhook.
 *
 * An alert is one condition of one pair, named as the Prometheus rules
 * name it: GridtailPairNoData, or GridtailPair{Loss,P99,Median}{Critical,
 * Warning}, with labels alertname, src, dst, severity (and check) and the
 * reason as its summary.  What fired is kept in a state document between
 * runs, so that a condition that has cleared is sent once as resolved
 * (endsAt now, with its last summary), and a firing one keeps its first
 * startsAt.
 */
#ifndef GT_ALERTS_H
#define GT_ALERTS_H

#include "status.h"

#include <jansson.h>
#include <stdint.h>

/* The alerts to send at now from the states v[0..n): each condition that
 * holds, firing (startsAt: when previous first saw it, else now; endsAt:
 * now + 3 x interval_s, so that Alertmanager resolves it by itself if the
 * runs stop), and each condition of previous that no longer holds,
 * resolved (endsAt: now).  previous may be NULL (a first run).  *state:
 * the document to keep for the next run.  NULL on ENOMEM. */
json_t *gt_alerts_build(const struct gt_pair_state *v, size_t n, const json_t *previous,
                        int64_t now, long interval_s, json_t **state);

/* Whether a state document read back has the shape gt_alerts_build
 * writes ({"alerts": {KEY: {"labels": {...}, "startsAt": TIME,
 * "summary": TEXT}}}). */
bool gt_alerts_state_valid(const json_t *state);

/* Each alert of gt_alerts_build carries "status": "firing" or
 * "resolved".  A webhook's body for them: Alertmanager's webhook payload
 * (version 4: receiver, status firing when any alert fires, the alerts,
 * groupLabels, commonLabels, commonAnnotations, externalURL). */
json_t *gt_alerts_webhook(const json_t *alerts);

/* The alerts as Alertmanager's POST /api/v2/alerts takes them: labels,
 * annotations, startsAt, endsAt, generatorURL. */
json_t *gt_alerts_postable(const json_t *alerts);

#endif
