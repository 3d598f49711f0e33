/* test_events.c - what happened on each pair (events.h), on series made
 * by hand: a level shift found at its first sample with the medians of
 * the 30 valid samples either side (computed here), spikes of 1 to 4
 * samples that are not shifts however tall, a shift smaller than
 * shift_min that is not reported; runs of lost probes by the documented
 * thresholds (burst_min in a row, outage_s long) and silences (silent_s
 * between samples, or to the end); the names, the detail sentence and
 * the JSON list;
 * and on a store, that a query answers the same before and after
 * gt_events_record stores the events, and a second record finds the
 * same. */
#include "testutil.h"
#include "advisor/events.h"
#include "db/ingest.h"

#define T0 1795305600
#define IV 60

static const struct gt_event_opts OPTS = {3, 300, 900, 0.05};

/* A steady series around level with a small deterministic ripple
 * (+-0.5 %, period 7), n samples IV apart from T0. */
static void steady(int64_t *ts, double *rtt, size_t from, size_t to, double level)
{
    static const double ripple[7] = {0, 0.003, -0.002, 0.005, -0.004, 0.001, -0.005};
    for (size_t i = from; i < to; i++) {
        ts[i] = T0 + IV * (int64_t)i;
        rtt[i] = level * (1 + ripple[i % 7]);
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of rtt[from..to), by sorting a copy (the average of the two
 * middle values when even). */
static double median(const double *rtt, size_t from, size_t to)
{
    double v[64];
    size_t k = 0;
    for (size_t i = from; i < to; i++)
        v[k++] = rtt[i];
    qsort(v, k, sizeof *v, cmp);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

static size_t events(const int64_t *ts, const double *rtt, size_t n, int64_t end,
                     const struct gt_event_opts *o, struct gt_event **ev)
{
    size_t nev = 99;
    assert_int_equal(gt_events_of_series(ts, rtt, n, end, o, ev, &nev), GT_OK);
    return nev;
}

/* 100 samples at 10 ms, then 100 at 15 ms: one shift, at the 101st
 * sample, between the medians of samples 70..99 and 100..129. */
static void test_level_shift(void **state)
{
    (void)state;
    int64_t ts[200];
    double rtt[200];
    steady(ts, rtt, 0, 100, 10);
    steady(ts, rtt, 100, 200, 15);
    struct gt_event *ev;
    size_t n = events(ts, rtt, 200, ts[199], &OPTS, &ev);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].kind, GT_EV_SHIFT);
    assert_int_equal(ev[0].ts, T0 + 100 * IV);
    assert_true(ev[0].until == INT64_MIN);
    assert_true(ev[0].before_ms == median(rtt, 70, 100));
    assert_true(ev[0].after_ms == median(rtt, 100, 130));
    assert_true(fabs(ev[0].before_ms - 10) < 0.05 && fabs(ev[0].after_ms - 15) < 0.075);
    free(ev);
    /* a lost probe inside the 30 after: the medians take 30 valid ones */
    rtt[105] = NAN;
    n = events(ts, rtt, 200, ts[199], &OPTS, &ev);
    size_t shifts = 0;
    for (size_t i = 0; i < n; i++)
        if (ev[i].kind == GT_EV_SHIFT) {
            shifts++;
            assert_int_equal(ev[i].ts, T0 + 100 * IV);
            double v[30];
            for (size_t j = 100, k = 0; k < 30; j++)
                if (!isnan(rtt[j]))
                    v[k++] = rtt[j];
            assert_true(ev[i].after_ms == median(v, 0, 30));
        }
    assert_int_equal(shifts, 1);
    free(ev);
    /* down again: a shift the other way, reported with its medians */
    steady(ts, rtt, 0, 100, 15);
    steady(ts, rtt, 100, 200, 10);
    n = events(ts, rtt, 200, ts[199], &OPTS, &ev);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].ts, T0 + 100 * IV);
    assert_true(ev[0].before_ms == median(rtt, 70, 100));
    assert_true(ev[0].after_ms == median(rtt, 100, 130));
    free(ev);
}

/* Spikes of 1, 2, 3 and 4 samples, ten times the level, far apart: no
 * event of any kind (a median of 9 cannot be moved by 4). */
static void test_spikes_are_not_shifts(void **state)
{
    (void)state;
    for (int len = 1; len <= 4; len++) {
        int64_t ts[300];
        double rtt[300];
        steady(ts, rtt, 0, 300, 10);
        for (int s = 60; s < 300; s += 60)
            for (int k = 0; k < len; k++)
                rtt[s + k] = 100 + k;
        struct gt_event *ev;
        size_t n = events(ts, rtt, 300, ts[299], &OPTS, &ev);
        if (n)
            fprintf(stderr, "spike of %d: %zu events, the first %d at %lld\n", len, n,
                    (int)ev[0].kind, (long long)ev[0].ts);
        assert_int_equal(n, 0);
        free(ev);
    }
}

/* A 3 % step on a quiet series: the detector's 1 % would take it, but
 * shift_min 5 % does not report it; at shift_min 2 % it is reported. */
static void test_shift_min(void **state)
{
    (void)state;
    int64_t ts[200];
    double rtt[200];
    for (size_t i = 0; i < 200; i++) {
        ts[i] = T0 + IV * (int64_t)i;
        rtt[i] = (i < 100 ? 10 : 10.3) * (1 + 0.0005 * (double)(i % 3));
    }
    struct gt_event *ev;
    size_t n = events(ts, rtt, 200, ts[199], &OPTS, &ev);
    assert_int_equal(n, 0);
    free(ev);
    struct gt_event_opts o = OPTS;
    o.shift_min = 0.02;
    n = events(ts, rtt, 200, ts[199], &o, &ev);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].kind, GT_EV_SHIFT);
    assert_true(fabs(ev[0].after_ms / ev[0].before_ms - 1.03) < 1e-3);
    free(ev);
}

/* Lost runs, one probe a minute, burst_min 3, outage 300 s: 2 lost is
 * nothing, 3 and 4 are bursts until the next answer, 5 lost (the answer
 * 300 s after the first) an outage and its end, 6 lost at the end an
 * outage still going (until INT64_MIN, no end). */
static void test_losses(void **state)
{
    (void)state;
    int64_t ts[80];
    double rtt[80];
    steady(ts, rtt, 0, 80, 10);
    /* runs at 10 (2), 20 (3), 30 (4), 40 (5), 74.. (6, to the end) */
    const int start[] = {10, 20, 30, 40, 74}, len[] = {2, 3, 4, 5, 6};
    for (int r = 0; r < 5; r++)
        for (int k = 0; k < len[r]; k++)
            rtt[start[r] + k] = NAN;
    struct gt_event *ev;
    size_t n = events(ts, rtt, 80, ts[79], &OPTS, &ev);
    struct gt_event want[] = {
        {T0 + 20 * IV, GT_EV_LOSS_BURST, T0 + 23 * IV, 3, NAN, NAN},
        {T0 + 30 * IV, GT_EV_LOSS_BURST, T0 + 34 * IV, 4, NAN, NAN},
        {T0 + 40 * IV, GT_EV_OUTAGE, T0 + 45 * IV, 5, NAN, NAN},
        {T0 + 45 * IV, GT_EV_OUTAGE_END, INT64_MIN, 5, NAN, NAN},
        {T0 + 74 * IV, GT_EV_OUTAGE, INT64_MIN, 6, NAN, NAN},
    };
    assert_int_equal(n, 5);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(ev[i].kind, want[i].kind);
        assert_int_equal(ev[i].ts, want[i].ts);
        assert_true(ev[i].until == want[i].until);
        assert_int_equal(ev[i].count, want[i].count);
    }
    free(ev);
    /* four lost at the end (180 s from the first to the last): a burst
       still going */
    steady(ts, rtt, 0, 80, 10);
    for (int k = 76; k < 80; k++)
        rtt[k] = NAN;
    n = events(ts, rtt, 80, ts[79], &OPTS, &ev);
    assert_int_equal(n, 1);
    assert_int_equal(ev[0].kind, GT_EV_LOSS_BURST);
    assert_int_equal(ev[0].count, 4);
    assert_true(ev[0].until == INT64_MIN);
    free(ev);
}

/* Silences: a gap of 899 s is none, one of 900 s is a silence from the
 * sample before to the one after and a "reporting" at that one; the end
 * counts when it is silent_s after the last sample. */
static void test_silences(void **state)
{
    (void)state;
    int64_t ts[40];
    double rtt[40];
    steady(ts, rtt, 0, 40, 10);
    /* 10 comes 899 s after 9, 20 900 s after 19, 30 5060 s after 29 */
    for (int i = 1; i < 40; i++)
        ts[i] = ts[i - 1] + (i == 10 ? 899 : i == 20 ? 900 : i == 30 ? 5060 : IV);
    struct gt_event *ev;
    size_t n = events(ts, rtt, 40, ts[39] + 899, &OPTS, &ev);
    assert_int_equal(n, 4);
    struct gt_event want[] = {
        {ts[19], GT_EV_SILENT, ts[20], 0, NAN, NAN},
        {ts[20], GT_EV_REPORTING, INT64_MIN, 0, NAN, NAN},
        {ts[29], GT_EV_SILENT, ts[30], 0, NAN, NAN},
        {ts[30], GT_EV_REPORTING, INT64_MIN, 0, NAN, NAN},
    };
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(ev[i].kind, want[i].kind);
        assert_int_equal(ev[i].ts, want[i].ts);
        assert_true(ev[i].until == want[i].until);
    }
    free(ev);
    /* judged 900 s after the last sample: a silence still going */
    n = events(ts, rtt, 40, ts[39] + 900, &OPTS, &ev);
    assert_int_equal(n, 5);
    assert_int_equal(ev[4].kind, GT_EV_SILENT);
    assert_int_equal(ev[4].ts, ts[39]);
    assert_true(ev[4].until == INT64_MIN);
    free(ev);
    /* no sample: no event */
    n = events(ts, rtt, 0, ts[39], &OPTS, &ev);
    assert_int_equal(n, 0);
    free(ev);
}

static void test_names_and_detail(void **state)
{
    (void)state;
    const char *names[] = {"shift", "loss_burst", "outage", "outage_end", "silent",
                           "reporting", "fit_regime"};
    for (int k = 0; k < GT_EV_NKINDS; k++) {
        enum gt_event_kind p;
        assert_string_equal(gt_event_name((enum gt_event_kind)k), names[k]);
        assert_true(gt_event_parse(names[k], &p));
        assert_int_equal(p, k);
    }
    enum gt_event_kind p;
    assert_false(gt_event_parse("shifts", &p));
    char buf[160];
    struct gt_event e = {T0, GT_EV_SHIFT, INT64_MIN, 0, 10, 15};
    gt_event_detail(&e, buf, sizeof buf);
    assert_string_equal(buf, "median 10 -> 15 ms (+50.0 %)");
    e = (struct gt_event){T0, GT_EV_LOSS_BURST, T0 + 180, 3, NAN, NAN};
    gt_event_detail(&e, buf, sizeof buf);
    assert_string_equal(buf, "3 probes lost in a row, until 2026-11-22T00:03:00Z");
    e = (struct gt_event){T0, GT_EV_SILENT, INT64_MIN, 0, NAN, NAN};
    gt_event_detail(&e, buf, sizeof buf);
    assert_string_equal(buf, "no sample stored until still going");
}

/* The JSON list: the fields docs/ADVISOR.md names, times as ISO-8601,
 * null for what an event has not (a burst's medians, a shift's end), a
 * regime's names instead of its medians, at most `limit` with the total
 * of all. */
static void test_json(void **state)
{
    (void)state;
    struct gt_pair_event v[3] = {
        {"a", "b", {T0, GT_EV_SHIFT, INT64_MIN, 0, 10, 15}},
        {"a", "b", {T0 + 60, GT_EV_LOSS_BURST, T0 + 240, 3, NAN, NAN}},
        {"b", "a", {T0 + 120, GT_EV_REGIME, INT64_MIN, 0, 0, 1}},
    };
    json_t *j = gt_events_json(v, 3, T0 - 86400, T0 + 3600, 10);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "from")), "2026-11-21T00:00:00Z");
    assert_string_equal(json_string_value(json_object_get(j, "to")), "2026-11-22T01:00:00Z");
    assert_int_equal(json_integer_value(json_object_get(j, "total")), 3);
    json_t *ev = json_object_get(j, "events");
    assert_int_equal(json_array_size(ev), 3);
    json_t *e = json_array_get(ev, 0);
    assert_string_equal(json_string_value(json_object_get(e, "ts")), "2026-11-22T00:00:00Z");
    assert_string_equal(json_string_value(json_object_get(e, "src")), "a");
    assert_string_equal(json_string_value(json_object_get(e, "kind")), "shift");
    assert_string_equal(json_string_value(json_object_get(e, "detail")),
                        "median 10 -> 15 ms (+50.0 %)");
    assert_true(json_is_null(json_object_get(e, "until")));
    assert_true(json_real_value(json_object_get(e, "before_ms")) == 10);
    assert_true(json_real_value(json_object_get(e, "after_ms")) == 15);
    e = json_array_get(ev, 1);
    assert_string_equal(json_string_value(json_object_get(e, "kind")), "loss_burst");
    assert_string_equal(json_string_value(json_object_get(e, "until")), "2026-11-22T00:04:00Z");
    assert_int_equal(json_integer_value(json_object_get(e, "lost")), 3);
    assert_true(json_is_null(json_object_get(e, "before_ms")));
    e = json_array_get(ev, 2);
    assert_string_equal(json_string_value(json_object_get(e, "kind")), "fit_regime");
    assert_string_equal(json_string_value(json_object_get(e, "regime_before")), "fit");
    assert_string_equal(json_string_value(json_object_get(e, "regime_after")), "heavy");
    assert_true(json_is_null(json_object_get(e, "before_ms")));
    assert_string_equal(json_string_value(json_object_get(e, "detail")),
                        "the fitted model -> a Pareto with alpha <= 1 (heavy)");
    json_decref(j);
    j = gt_events_json(v, 3, T0, T0 + 3600, 1);
    assert_int_equal(json_integer_value(json_object_get(j, "total")), 3);
    assert_int_equal(json_array_size(json_object_get(j, "events")), 1);
    json_decref(j);
}

/* A store with two pairs: a->b with a shift at sample 100 and a burst of
 * 3 at 150, b->a steady with an outage of 6 at 40.  The query before any
 * record finds the events of the samples; after record the same; a
 * second record finds as many and changes nothing. */
static void same_events(const struct gt_pair_event *x, size_t nx, const struct gt_pair_event *y,
                        size_t ny)
{
    assert_int_equal(nx, ny);
    for (size_t i = 0; i < nx; i++) {
        assert_string_equal(x[i].src, y[i].src);
        assert_string_equal(x[i].dst, y[i].dst);
        assert_int_equal(x[i].ev.kind, y[i].ev.kind);
        assert_int_equal(x[i].ev.ts, y[i].ev.ts);
        assert_true(x[i].ev.until == y[i].ev.until);
        assert_int_equal(x[i].ev.count, y[i].ev.count);
        assert_true(x[i].ev.kind != GT_EV_SHIFT || (x[i].ev.before_ms == y[i].ev.before_ms &&
                                                     x[i].ev.after_ms == y[i].ev.after_ms));
    }
}

static void test_store(void **state)
{
    (void)state;
    char *dir = tmpdir_new(), path[256], csv[256];
    snprintf(path, sizeof path, "%s/a.db", dir);
    snprintf(csv, sizeof csv, "%s/in.csv", dir);
    int64_t ts[200];
    double ab[200], ba[200];
    steady(ts, ab, 0, 100, 10);
    steady(ts, ab, 100, 200, 15);
    steady(ts, ba, 0, 200, 20);
    for (int k = 150; k < 153; k++)
        ab[k] = NAN;
    for (int k = 40; k < 46; k++)
        ba[k] = NAN;
    FILE *f = fopen(csv, "w");
    fprintf(f, "ts,src,dst,rtt_ms\n");
    for (int i = 0; i < 200; i++) {
        fprintf(f, isnan(ab[i]) ? "%lld,a,b,loss\n" : "%lld,a,b,%.17g\n", (long long)ts[i], ab[i]);
        fprintf(f, isnan(ba[i]) ? "%lld,b,a,loss\n" : "%lld,b,a,%.17g\n", (long long)ts[i], ba[i]);
    }
    fclose(f);
    struct gt_db *db;
    struct gt_error err = {0};
    assert_int_equal(gt_db_open(path, GT_DB_CREATE, 1000, &db, &err), GT_OK);
    ingest_csv(db, csv);
    int64_t to = ts[199] + 1;
    struct gt_pair_event *q1, *q2, *q3;
    size_t n1, n2, n3;
    assert_int_equal(gt_events_query(db, NULL, NULL, T0, to, -1, &OPTS, &q1, &n1, &err), GT_OK);
    /* by time: a->b's shift at 100, its burst at 150; b->a's outage at 40
       and its end at 46 */
    assert_int_equal(n1, 4);
    assert_int_equal(q1[0].ev.kind, GT_EV_OUTAGE);
    assert_string_equal(q1[0].src, "b");
    assert_int_equal(q1[0].ev.ts, T0 + 40 * IV);
    assert_int_equal(q1[0].ev.count, 6);
    assert_int_equal(q1[1].ev.kind, GT_EV_OUTAGE_END);
    assert_int_equal(q1[1].ev.ts, T0 + 46 * IV);
    assert_int_equal(q1[2].ev.kind, GT_EV_SHIFT);
    assert_string_equal(q1[2].src, "a");
    assert_int_equal(q1[2].ev.ts, T0 + 100 * IV);
    assert_true(q1[2].ev.before_ms == median(ab, 70, 100));
    assert_true(q1[2].ev.after_ms == median(ab, 100, 130));
    assert_int_equal(q1[3].ev.kind, GT_EV_LOSS_BURST);
    assert_int_equal(q1[3].ev.ts, T0 + 150 * IV);
    assert_true(q1[3].ev.until == T0 + 153 * IV);
    size_t pairs, found, found2;
    assert_int_equal(gt_events_record(db, &OPTS, to, &pairs, &found, &err), GT_OK);
    assert_int_equal(pairs, 2);
    assert_int_equal(found, 4);
    assert_int_equal(gt_events_query(db, NULL, NULL, T0, to, -1, &OPTS, &q2, &n2, &err), GT_OK);
    same_events(q1, n1, q2, n2);
    assert_int_equal(gt_events_record(db, &OPTS, to, &pairs, &found2, &err), GT_OK);
    assert_int_equal(gt_events_query(db, NULL, NULL, T0, to, -1, &OPTS, &q3, &n3, &err), GT_OK);
    same_events(q1, n1, q3, n3);
    /* one kind, one pair, one range */
    gt_pair_events_free(q3, n3);
    assert_int_equal(gt_events_query(db, "a", "b", T0, to, GT_EV_LOSS_BURST, &OPTS, &q3, &n3,
                                     &err), GT_OK);
    assert_int_equal(n3, 1);
    assert_int_equal(q3[0].ev.ts, T0 + 150 * IV);
    gt_pair_events_free(q3, n3);
    assert_int_equal(gt_events_query(db, NULL, NULL, T0 + 41 * IV, T0 + 150 * IV, -1, &OPTS,
                                     &q3, &n3, &err), GT_OK);
    assert_int_equal(n3, 2);   /* the outage's end and the shift */
    assert_int_equal(q3[0].ev.kind, GT_EV_OUTAGE_END);
    assert_int_equal(q3[1].ev.kind, GT_EV_SHIFT);
    gt_pair_events_free(q1, n1);
    gt_pair_events_free(q2, n2);
    gt_pair_events_free(q3, n3);
    gt_db_close(db);
    tmpdir_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_level_shift),
        cmocka_unit_test(test_spikes_are_not_shifts),
        cmocka_unit_test(test_shift_min),
        cmocka_unit_test(test_losses),
        cmocka_unit_test(test_silences),
        cmocka_unit_test(test_names_and_detail),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
