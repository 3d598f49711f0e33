/* test_alerts.c - the pairs' states as Alertmanager alerts (alerts.h):
 * which alerts fire for given statuses, with the names, labels and
 * summaries the Prometheus rules give them; a second run that resolves
 * what cleared (endsAt now, last summary) and keeps the first startsAt of
 * what still fires; the state document's check; the webhook (version 4)
 * and /api/v2/alerts payloads.  Every time is checked against a string
 * made here with gmtime_r and strftime, not with gt_format_time. */
#include "testutil.h"
#include "advisor/alerts.h"

#include <time.h>

#define T0 1795305600   /* 2026-11-22T00:00:00Z */

/* ISO-8601 UTC of t, made independently of the code under test. */
static const char *iso(int64_t t, char *buf, size_t size)
{
    time_t tt = (time_t)t;
    struct tm tm;
    assert_non_null(gmtime_r(&tt, &tm));
    assert_true(strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0);
    return buf;
}

static struct gt_pair_state pair(const char *src, const char *dst, enum gt_pair_status loss,
                                 enum gt_pair_status p99, enum gt_pair_status median)
{
    struct gt_pair_state s;
    memset(&s, 0, sizeof s);
    s.src = (char *)src;
    s.dst = (char *)dst;
    s.check[GT_CHECK_LOSS] = loss;
    s.check[GT_CHECK_P99] = p99;
    s.check[GT_CHECK_MEDIAN] = median;
    s.status = loss > p99 ? loss : p99;
    s.status = median > s.status ? median : s.status;
    return s;
}

static void reason(struct gt_pair_state *s, const char *text)
{
    snprintf(s->reasons[s->nreasons++], sizeof s->reasons[0], "%s", text);
}

/* The alert of alerts whose alertname, src and dst are these; NULL if
 * none (and fails if more than one). */
static json_t *find(const json_t *alerts, const char *name, const char *src, const char *dst)
{
    json_t *found = NULL, *a;
    size_t i;
    json_array_foreach((json_t *)alerts, i, a) {
        json_t *l = json_object_get(a, "labels");
        if (!strcmp(json_string_value(json_object_get(l, "alertname")), name) &&
            !strcmp(json_string_value(json_object_get(l, "src")), src) &&
            !strcmp(json_string_value(json_object_get(l, "dst")), dst)) {
            assert_null(found);
            found = a;
        }
    }
    return found;
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    assert_non_null(s);
    return s;
}

static const char *summary(const json_t *a)
{
    return str(json_object_get(a, "annotations"), "summary");
}

/* One alert's whole shape: labels (severity, check or none), status,
 * summary, startsAt and endsAt. */
static void check_alert(const json_t *a, const char *severity, const char *check,
                        const char *status, const char *sum, int64_t starts, int64_t ends)
{
    char buf[32];
    assert_non_null(a);
    json_t *l = json_object_get(a, "labels");
    assert_string_equal(str(l, "severity"), severity);
    if (check) {
        assert_string_equal(str(l, "check"), check);
        assert_int_equal(json_object_size(l), 5);
    } else {
        assert_null(json_object_get(l, "check"));
        assert_int_equal(json_object_size(l), 4);
    }
    assert_string_equal(str(a, "status"), status);
    assert_string_equal(summary(a), sum);
    assert_string_equal(str(a, "startsAt"), iso(starts, buf, sizeof buf));
    assert_string_equal(str(a, "endsAt"), iso(ends, buf, sizeof buf));
    assert_string_equal(str(a, "generatorURL"), "gridtail://pairs");
}

/* A first run: a fine pair fires nothing; a pair with loss critical and
 * p99 warning fires two (each summary the reason that names its check);
 * a pair without data fires GridtailPairNoData, warning, without a check
 * label, with its first reason; a median-only warning fires one whose
 * summary falls back to the first reason, as no reason names "median". */
static void test_first_run(void **state)
{
    (void)state;
    struct gt_pair_state v[4];
    v[0] = pair("a", "b", GT_STATUS_OK, GT_STATUS_OK, GT_STATUS_OK);
    reason(&v[0], "all fine");
    v[1] = pair("b", "c", GT_STATUS_CRITICAL, GT_STATUS_WARNING, GT_STATUS_OK);
    reason(&v[1], "p99 310 ms > 200 ms");
    reason(&v[1], "loss 12.0 % > 10 %");
    reason(&v[1], "lossy 1 %");   /* "loss" but not followed by a space */
    v[2] = pair("c", "d", GT_STATUS_OK, GT_STATUS_OK, GT_STATUS_OK);
    v[2].status = GT_STATUS_NO_DATA;
    v[2].check[GT_CHECK_LOSS] = GT_STATUS_CRITICAL;   /* no data: the checks are not sent */
    reason(&v[2], "no sample for 2 h");
    v[3] = pair("d", "a", GT_STATUS_OK, GT_STATUS_OK, GT_STATUS_WARNING);
    reason(&v[3], "shift +30 %");
    json_t *st = NULL;
    json_t *al = gt_alerts_build(v, 4, NULL, T0, 300, &st);
    assert_non_null(al);
    assert_non_null(st);
    assert_int_equal(json_array_size(al), 4);
    int64_t ends = T0 + 3 * 300;   /* three intervals ahead */
    check_alert(find(al, "GridtailPairLossCritical", "b", "c"), "critical", "loss", "firing",
                "b -> c: loss 12.0 % > 10 %", T0, ends);
    check_alert(find(al, "GridtailPairP99Warning", "b", "c"), "warning", "p99", "firing",
                "b -> c: p99 310 ms > 200 ms", T0, ends);
    check_alert(find(al, "GridtailPairNoData", "c", "d"), "warning", NULL, "firing",
                "c -> d: no sample for 2 h", T0, ends);
    check_alert(find(al, "GridtailPairMedianWarning", "d", "a"), "warning", "median", "firing",
                "d -> a: shift +30 %", T0, ends);
    assert_null(find(al, "GridtailPairLossCritical", "c", "d"));
    /* the state: the four keys, each with labels, startsAt and summary */
    assert_true(gt_alerts_state_valid(st));
    assert_int_equal(json_object_size(json_object_get(st, "alerts")), 4);
    json_decref(al);
    json_decref(st);
    /* nothing wrong: no alert, an empty state */
    al = gt_alerts_build(v, 1, NULL, T0, 300, &st);
    assert_int_equal(json_array_size(al), 0);
    assert_int_equal(json_object_size(json_object_get(st, "alerts")), 0);
    json_decref(al);
    json_decref(st);
}

/* Three runs five minutes apart.  Run 2: b -> c's loss is still critical
 * (startsAt stays T0, the summary is the new reason), its p99 cleared
 * (resolved: startsAt T0, endsAt now, the summary it had), c -> d reports
 * again (resolved), and b -> c's median turns critical (fires anew).
 * Run 3: loss drops from critical to warning: a new alert name, so the
 * critical one resolves and the warning one starts now. */
static void test_resolve_and_keep(void **state)
{
    (void)state;
    struct gt_pair_state v[2];
    v[0] = pair("b", "c", GT_STATUS_CRITICAL, GT_STATUS_WARNING, GT_STATUS_OK);
    reason(&v[0], "loss 12.0 % > 10 %");
    reason(&v[0], "p99 310 ms > 200 ms");
    v[1] = pair("c", "d", GT_STATUS_OK, GT_STATUS_OK, GT_STATUS_OK);
    v[1].status = GT_STATUS_NO_DATA;
    reason(&v[1], "no sample for 2 h");
    json_t *st1, *st2, *st3;
    json_t *al = gt_alerts_build(v, 2, NULL, T0, 300, &st1);
    assert_int_equal(json_array_size(al), 3);
    json_decref(al);

    int64_t t1 = T0 + 300;
    v[0] = pair("b", "c", GT_STATUS_CRITICAL, GT_STATUS_OK, GT_STATUS_CRITICAL);
    reason(&v[0], "loss 15.0 % > 10 %");
    reason(&v[0], "median 80 ms > 50 ms");
    v[1] = pair("c", "d", GT_STATUS_OK, GT_STATUS_OK, GT_STATUS_OK);
    al = gt_alerts_build(v, 2, st1, t1, 300, &st2);
    assert_non_null(al);
    assert_int_equal(json_array_size(al), 4);
    check_alert(find(al, "GridtailPairLossCritical", "b", "c"), "critical", "loss", "firing",
                "b -> c: loss 15.0 % > 10 %", T0, t1 + 900);
    check_alert(find(al, "GridtailPairMedianCritical", "b", "c"), "critical", "median",
                "firing", "b -> c: median 80 ms > 50 ms", t1, t1 + 900);
    check_alert(find(al, "GridtailPairP99Warning", "b", "c"), "warning", "p99", "resolved",
                "b -> c: p99 310 ms > 200 ms", T0, t1);
    check_alert(find(al, "GridtailPairNoData", "c", "d"), "warning", NULL, "resolved",
                "c -> d: no sample for 2 h", T0, t1);
    /* what resolved is not kept: only the two firing */
    assert_int_equal(json_object_size(json_object_get(st2, "alerts")), 2);
    json_decref(al);

    int64_t t2 = t1 + 300;
    v[0] = pair("b", "c", GT_STATUS_WARNING, GT_STATUS_OK, GT_STATUS_CRITICAL);
    reason(&v[0], "loss 6.0 % > 5 %");
    reason(&v[0], "median 81 ms > 50 ms");
    al = gt_alerts_build(v, 2, st2, t2, 60, &st3);
    assert_int_equal(json_array_size(al), 3);
    check_alert(find(al, "GridtailPairLossWarning", "b", "c"), "warning", "loss", "firing",
                "b -> c: loss 6.0 % > 5 %", t2, t2 + 180);
    check_alert(find(al, "GridtailPairLossCritical", "b", "c"), "critical", "loss",
                "resolved", "b -> c: loss 15.0 % > 10 %", T0, t2);
    check_alert(find(al, "GridtailPairMedianCritical", "b", "c"), "critical", "median",
                "firing", "b -> c: median 81 ms > 50 ms", t1, t2 + 180);
    /* a resolved alert is sent once: a fourth run with the same states
       sends the two firing only */
    json_t *st4;
    json_decref(al);
    al = gt_alerts_build(v, 2, st3, t2 + 60, 60, &st4);
    assert_int_equal(json_array_size(al), 2);
    assert_null(find(al, "GridtailPairLossCritical", "b", "c"));
    json_decref(al);
    json_decref(st1);
    json_decref(st2);
    json_decref(st3);
    json_decref(st4);
}

static void test_state_valid(void **state)
{
    (void)state;
    const char *good = "{\"alerts\": {\"k\": {\"labels\": {\"alertname\": \"A\", \"src\": "
                       "\"a\", \"dst\": \"b\"}, \"startsAt\": \"x\", \"summary\": \"s\"}}}";
    const char *bad[] = {
        "{}",
        "{\"alerts\": []}",
        "{\"alerts\": {\"k\": {\"startsAt\": \"x\"}}}",
        "{\"alerts\": {\"k\": {\"labels\": {\"alertname\": \"A\", \"src\": \"a\", \"dst\": "
        "\"b\"}}}}",
        "{\"alerts\": {\"k\": {\"labels\": {\"alertname\": \"A\", \"src\": \"a\"}, "
        "\"startsAt\": \"x\"}}}",
        "{\"alerts\": {\"k\": {\"labels\": {\"alertname\": 1, \"src\": \"a\", \"dst\": "
        "\"b\"}, \"startsAt\": \"x\"}}}",
    };
    json_t *j = json_loads(good, 0, NULL);
    assert_true(gt_alerts_state_valid(j));
    json_decref(j);
    j = json_loads("{\"alerts\": {}}", 0, NULL);
    assert_true(gt_alerts_state_valid(j));
    json_decref(j);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        j = json_loads(bad[i], 0, NULL);
        assert_non_null(j);
        assert_false(gt_alerts_state_valid(j));
        json_decref(j);
    }
}

/* The webhook: Alertmanager's version 4 payload, status firing when any
 * alert fires, resolved when all resolved; the postable list: each alert
 * without its status, the rest as it was. */
static void test_payloads(void **state)
{
    (void)state;
    struct gt_pair_state v[1];
    v[0] = pair("b", "c", GT_STATUS_OK, GT_STATUS_CRITICAL, GT_STATUS_OK);
    reason(&v[0], "p99 310 ms > 200 ms");
    json_t *st1, *st2;
    json_t *fired = gt_alerts_build(v, 1, NULL, T0, 300, &st1);
    v[0] = pair("b", "c", GT_STATUS_OK, GT_STATUS_OK, GT_STATUS_OK);
    json_t *cleared = gt_alerts_build(v, 1, st1, T0 + 300, 300, &st2);
    assert_int_equal(json_array_size(fired), 1);
    assert_int_equal(json_array_size(cleared), 1);

    json_t *w = gt_alerts_webhook(fired);
    assert_non_null(w);
    assert_string_equal(str(w, "version"), "4");
    assert_string_equal(str(w, "receiver"), "gridtail");
    assert_string_equal(str(w, "status"), "firing");
    assert_string_equal(str(w, "externalURL"), "");
    assert_true(json_equal(json_object_get(w, "alerts"), fired));
    const char *objs[] = {"groupLabels", "commonLabels", "commonAnnotations"};
    for (int i = 0; i < 3; i++) {
        assert_true(json_is_object(json_object_get(w, objs[i])));
        assert_int_equal(json_object_size(json_object_get(w, objs[i])), 0);
    }
    assert_int_equal(json_object_size(w), 8);
    json_decref(w);
    w = gt_alerts_webhook(cleared);
    assert_string_equal(str(w, "status"), "resolved");
    json_decref(w);
    /* one firing among resolved ones: firing */
    json_t *mixed = json_deep_copy(cleared);
    json_array_extend(mixed, fired);
    w = gt_alerts_webhook(mixed);
    assert_string_equal(str(w, "status"), "firing");
    json_decref(w);

    json_t *p = gt_alerts_postable(mixed);
    assert_int_equal(json_array_size(p), 2);
    for (size_t i = 0; i < 2; i++) {
        json_t *a = json_array_get(p, i), *orig = json_array_get(mixed, i);
        assert_null(json_object_get(a, "status"));
        assert_int_equal(json_object_size(a), 5);
        const char *keys[] = {"labels", "annotations", "startsAt", "endsAt", "generatorURL"};
        for (int k = 0; k < 5; k++)
            assert_true(json_equal(json_object_get(a, keys[k]), json_object_get(orig, keys[k])));
    }
    assert_non_null(json_object_get(json_array_get(mixed, 0), "status"));   /* a copy */
    json_decref(p);
    json_decref(mixed);
    json_decref(fired);
    json_decref(cleared);
    json_decref(st1);
    json_decref(st2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_run),
        cmocka_unit_test(test_resolve_and_keep),
        cmocka_unit_test(test_state_valid),
        cmocka_unit_test(test_payloads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
