/*
 * alerts.c - the pairs' states as Alertmanager alerts (alerts.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "alerts.h"

#include "base/util.h"

#include <stdio.h>
#include <string.h>

static const char *const check_titles[GT_NCHECKS] = {"Loss", "P99", "Median"};

static const char *iso(int64_t t, char *buf, size_t size)
{
    gt_format_time(t, buf, size);
    return buf;
}

/* One condition of a pair: its alert's labels and summary. */
static json_t *labels_of(const struct gt_pair_state *s, int check, const char **severity)
{
    char name[64];
    if (check < 0) {
        snprintf(name, sizeof name, "GridtailPairNoData");
        *severity = "warning";
        return json_pack("{s:s, s:s, s:s, s:s}", "alertname", name, "src", s->src, "dst",
                         s->dst, "severity", *severity);
    }
    bool critical = s->check[check] == GT_STATUS_CRITICAL;
    *severity = critical ? "critical" : "warning";
    snprintf(name, sizeof name, "GridtailPair%s%s", check_titles[check],
             critical ? "Critical" : "Warning");
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "alertname", name, "src", s->src, "dst",
                     s->dst, "severity", *severity, "check", gt_status_check_names[check]);
}

/* The reason of the pair that names check (its first word), or the
 * first reason. */
static const char *reason_of(const struct gt_pair_state *s, int check)
{
    if (check >= 0) {
        const char *w = gt_status_check_names[check];
        size_t n = strlen(w);
        for (size_t i = 0; i < s->nreasons; i++)
            if (!strncmp(s->reasons[i], w, n) && s->reasons[i][n] == ' ')
                return s->reasons[i];
    }
    return s->nreasons ? s->reasons[0] : "";
}

static char *key_of(const json_t *labels)
{
    char *key = NULL;
    const char *a = json_string_value(json_object_get(labels, "alertname"));
    const char *s = json_string_value(json_object_get(labels, "src"));
    const char *d = json_string_value(json_object_get(labels, "dst"));
    size_t n = strlen(a) + strlen(s) + strlen(d) + 3;
    if ((key = malloc(n)))
        snprintf(key, n, "%s\x1f%s\x1f%s", a, s, d);
    return key;
}

/* One firing alert into alerts and state. */
static int fire(json_t *alerts, json_t *state, const json_t *previous,
                const struct gt_pair_state *s, int check, int64_t now, long interval_s)
{
    const char *severity;
    json_t *labels = labels_of(s, check, &severity);
    char *key = labels ? key_of(labels) : NULL;
    char starts[32], ends[32], summary[200];
    if (!key) {
        json_decref(labels);
        return -1;
    }
    const json_t *was = previous ? json_object_get(json_object_get(previous, "alerts"), key)
                                 : NULL;
    const char *since = json_string_value(json_object_get(was, "startsAt"));
    if (!since)
        since = iso(now, starts, sizeof starts);
    snprintf(summary, sizeof summary, "%s -> %s: %s", s->src, s->dst, reason_of(s, check));
    json_t *a = json_pack("{s:O, s:{s:s}, s:s, s:s, s:s, s:s}", "labels", labels,
                          "annotations", "summary", summary, "status", "firing",
                          "startsAt", since, "endsAt",
                          iso(now + 3 * (int64_t)interval_s, ends, sizeof ends),
                          "generatorURL", "gridtail://pairs");
    int rc = a && !json_array_append_new(alerts, a) &&
                     !json_object_set_new(state, key, json_pack("{s:O, s:s, s:s}", "labels",
                                                                labels, "startsAt", since,
                                                                "summary", summary))
                 ? 0
                 : -1;
    json_decref(labels);
    free(key);
    return rc;
}

/* Each alert of previous that did not fire now, resolved. */
static int resolve(json_t *alerts, const json_t *state, const json_t *previous, int64_t now)
{
    const char *key;
    json_t *was;
    char ends[32];
    json_object_foreach(json_object_get(previous, "alerts"), key, was) {
        if (json_object_get(state, key))
            continue;
        const char *summary = json_string_value(json_object_get(was, "summary"));
        json_t *a = json_pack("{s:O, s:{s:s}, s:s, s:O, s:s, s:s}", "labels",
                              json_object_get(was, "labels"), "annotations", "summary",
                              summary ? summary : "", "status", "resolved", "startsAt",
                              json_object_get(was, "startsAt"), "endsAt",
                              iso(now, ends, sizeof ends), "generatorURL", "gridtail://pairs");
        if (!a || json_array_append_new(alerts, a))
            return -1;
    }
    return 0;
}

json_t *gt_alerts_build(const struct gt_pair_state *v, size_t n, const json_t *previous,
                        int64_t now, long interval_s, json_t **state_out)
{
    json_t *alerts = json_array(), *state = json_object();
    int rc = alerts && state ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (v[i].status == GT_STATUS_NO_DATA) {
            rc = fire(alerts, state, previous, &v[i], -1, now, interval_s);
            continue;
        }
        for (int c = 0; rc == 0 && c < GT_NCHECKS; c++)
            if (v[i].check[c] != GT_STATUS_OK)
                rc = fire(alerts, state, previous, &v[i], c, now, interval_s);
    }
    if (rc == 0 && previous)
        rc = resolve(alerts, state, previous, now);
    *state_out = rc == 0 ? json_pack("{s:o}", "alerts", state) : NULL;
    if (rc || !*state_out) {
        json_decref(alerts);
        if (rc)
            json_decref(state);
        return NULL;
    }
    return alerts;
}

bool gt_alerts_state_valid(const json_t *state)
{
    const json_t *alerts = json_object_get(state, "alerts");
    const char *key;
    const json_t *a;
    if (!json_is_object(alerts))
        return false;
    json_object_foreach((json_t *)alerts, key, a) {
        const json_t *labels = json_object_get(a, "labels");
        if (!json_is_object(labels) || !json_is_string(json_object_get(a, "startsAt")) ||
            !json_is_string(json_object_get(labels, "alertname")) ||
            !json_is_string(json_object_get(labels, "src")) ||
            !json_is_string(json_object_get(labels, "dst")))
            return false;
    }
    return true;
}

json_t *gt_alerts_webhook(const json_t *alerts)
{
    bool firing = false;
    size_t i;
    json_t *a;
    json_array_foreach((json_t *)alerts, i, a)
        firing = firing || !strcmp(json_string_value(json_object_get(a, "status")), "firing");
    return json_pack("{s:s, s:s, s:s, s:O, s:{}, s:{}, s:{}, s:s}", "version", "4", "receiver",
                     "gridtail", "status", firing ? "firing" : "resolved", "alerts", alerts,
                     "groupLabels", "commonLabels", "commonAnnotations", "externalURL", "");
}

json_t *gt_alerts_postable(const json_t *alerts)
{
    json_t *list = json_deep_copy(alerts);
    size_t i;
    json_t *a;
    json_array_foreach(list, i, a)
        json_object_del(a, "status");
    return list;
}
