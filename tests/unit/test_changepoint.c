/* test_changepoint.c - the online change detector by hand: a level of
 * 100 ms with +-0.5 % noise has the scale floor 0.05, so a step to 150 ms
 * (z = ln 1.5 / 0.05 = 8.1, clipped to 6) adds 5 to the upward sum and
 * alarms on its second sample, placed at its first; a single spike of
 * 10x adds 5 and decays by about 1 a sample, never alarming; an episode
 * of three samples is two changes; lost samples count as indices only. */
#include "testutil.h"
#include "estimators/changepoint.h"

#include <math.h>

static double noisy(double level, long i)
{
    return level * (1 + (i % 2 ? 0.005 : -0.005));
}

/* Feeds x[0..n) and records the detections (index fed, place). */
static size_t run(struct gt_cpd *d, const double *x, size_t n, long *when, long *where)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t at = -1;
        if (gt_cpd_push(d, x[i], &at)) {
            when[k] = (long)i;
            where[k++] = (long)at;
        }
    }
    return k;
}

static void test_steps_spikes_episodes(void **state)
{
    (void)state;
    enum { N = 420 };
    double x[N];
    for (long i = 0; i < N; i++) {
        double level = i < 200 ? 100 : i < 300 ? 150 : i < 303 ? 200 : i < 360 ? 150 : 100;
        x[i] = noisy(level, i);
        if (i % 25 == 0 && i > 0 && i < 190)
            x[i] = 1000;   /* one spike: never a change */
    }
    x[250] = NAN;          /* lost probes inside a regime */
    x[251] = 0;
    long when[16], where[16];
    struct gt_cpd *d = gt_cpd_new(NULL);
    assert_non_null(d);
    size_t k = run(d, x, N, when, where);
    assert_int_equal(k, 4);
    long want_when[] = {201, 301, 304, 361}, want_where[] = {200, 300, 303, 360};
    for (size_t j = 0; j < k; j++) {
        assert_int_equal(when[j], want_when[j]);
        assert_int_equal(where[j], want_where[j]);
    }
    assert_int_equal(gt_cpd_regime_start(d), 360);
    gt_cpd_free(d);
}

/* Two spikes in a row are an episode of two samples (the designed
 * limit: one never alarms, two do); a slow drift of 0.1 % a sample over
 * 100 samples is followed, not flagged, as the level is refreshed. */
static void test_two_spikes_and_drift(void **state)
{
    (void)state;
    enum { N = 300 };
    double x[N];
    for (long i = 0; i < N; i++)
        x[i] = noisy(100 * pow(1.001, i > 100 ? (double)(i - 100) : 0), i);
    long when[16], where[16];
    struct gt_cpd *d = gt_cpd_new(NULL);
    assert_int_equal(run(d, x, N, when, where), 0);
    gt_cpd_free(d);
    x[50] = x[51] = 1000;
    d = gt_cpd_new(NULL);
    size_t k = run(d, x, N, when, where);
    assert_true(k >= 2);
    assert_int_equal(where[0], 50);
    assert_int_equal(where[1], 52);
    gt_cpd_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_spikes_episodes),
        cmocka_unit_test(test_two_spikes_and_drift),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
