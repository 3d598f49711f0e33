/* test_sliding.c - the O(1) sliding window against refitting every
 * window from scratch, over a long series with losses, plateaus of
 * equal values and zeros. */
#include "testutil.h"
#include "estimators/fit.h"
#include "estimators/sliding.h"

/* Feed x[0..n) to a slider of m and, at every step its window is full,
 * compare it with the batch fit of the raw series' last m samples: lost
 * ones are carried by gt_fit_series from the last answer before them,
 * also one before the window (METHOD.md 1.1), so the reference never sees
 * the slider's own copy of its window.  Leading lost samples (before any
 * answer) are not part of any window. */
static void check_series(const double *x, size_t n, size_t m)
{
    struct gt_slider *s = gt_slider_new(m);
    assert_non_null(s);
    int64_t *ts = malloc(n * sizeof *ts);
    assert_non_null(ts);
    for (size_t t = 0; t < n; t++)
        ts[t] = (int64_t)t;
    size_t first = 0;
    while (first < n && isnan(x[first]))
        first++;
    double prior = NAN;           /* the last answer before the window */
    size_t checked = 0, from_before = 0;   /* windows opening with a lost sample */
    for (size_t t = 0; t < n; t++) {
        assert_true(gt_slider_push(s, x[t]) == (t >= first));
        if (t < first + m - 1) {
            assert_true(t < first || gt_slider_count(s) == t - first + 1);
            continue;
        }
        assert_int_equal(gt_slider_count(s), m);
        size_t start = t + 1 - m;
        if (start > first && !isnan(x[start - 1]))
            prior = x[start - 1];
        struct gt_slider_params p;
        gt_slider_params(s, &p);
        struct gt_fit f;
        struct gt_error err = {0};
        assert_int_equal(gt_fit_series(x + start, ts + start, m, prior, 0, GT_FIT_AUTO, &f,
                                       &err), GT_OK);
        assert_int_equal(f.m, m);
        checked++;
        from_before += isnan(x[start]);
        if (f.degenerate) {
            assert_true(p.degenerate);
            assert_true(p.k == f.p[0]);
            continue;
        }
        assert_false(p.degenerate);
        assert_true(fabs(p.mu - f.normal.p[0]) <= 1e-12 * fabs(f.normal.p[0]));
        assert_true(fabs(p.sigma - f.normal.p[1]) <= 1e-9 * f.normal.p[1]);
        if (f.pareto.ok) {
            assert_true(p.k == f.pareto.p[0]);
            assert_true(fabs(p.alpha - f.pareto.p[1]) <= 1e-9 * f.pareto.p[1]);
        } else {
            assert_true(isnan(p.alpha));
        }
    }
    assert_int_equal(checked, n - first - m + 1);
    assert_true(from_before > 0);
    free(ts);
    gt_slider_free(s);
}

static void test_sliding_matches_refit(void **state)
{
    (void)state;
    size_t n = 20000;
    double *x = malloc(n * sizeof *x);
    unsigned seed = 99;
    for (size_t i = 0; i < n; i++) {
        double u = (rand_r(&seed) + 1.0) / (RAND_MAX + 2.0);
        x[i] = 40 * pow(u, -1 / 6.0);                       /* Pareto-ish RTTs */
        if (rand_r(&seed) % 50 == 0)
            x[i] = NAN;                                      /* lost */
        if (i >= 5000 && i < 5300)
            x[i] = 42.5;                                     /* a flat stretch */
        if (i >= 9000 && i < 9010)
            x[i] = 0;                                        /* zero RTTs */
    }
    x[0] = x[1] = NAN;                                       /* leading losses */
    check_series(x, n, 2);
    check_series(x, n, 60);
    check_series(x, n, 1024);
    free(x);
}

/* A slider reset mid-series (its window full, deques and sums in use)
 * answers exactly as a new one fed the same samples. */
static void test_reset_is_new(void **state)
{
    (void)state;
    struct gt_slider *used = gt_slider_new(16), *fresh = gt_slider_new(16);
    assert_non_null(used);
    assert_non_null(fresh);
    unsigned seed = 7;
    for (int i = 0; i < 100; i++)
        gt_slider_push(used, 10 + rand_r(&seed) % 100);
    gt_slider_reset(used);
    assert_int_equal(gt_slider_count(used), 0);
    assert_false(gt_slider_push(used, NAN));   /* a leading loss, as in a new one */
    for (int i = 0; i < 40; i++) {
        double x = i == 5 ? NAN : 20 + rand_r(&seed) % 50;
        gt_slider_push(used, x);
        gt_slider_push(fresh, x);
        struct gt_slider_params a, b;
        gt_slider_params(used, &a);
        gt_slider_params(fresh, &b);
        assert_true(a.m == b.m && a.min == b.min && a.max == b.max && a.k == b.k);
        assert_true(a.mu == b.mu && a.sigma == b.sigma && a.degenerate == b.degenerate);
        assert_true(a.alpha == b.alpha || (isnan(a.alpha) && isnan(b.alpha)));
    }
    gt_slider_free(used);
    gt_slider_free(fresh);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The sorted window and the window's logarithms against a sort and log()
 * of the window copied out, at every step of a series with losses,
 * repeats, zeros and ties, for a window that fills and one that never
 * does. */
static void test_sorted_and_logs(void **state)
{
    (void)state;
    size_t sizes[] = {2, 7, 64, 5000};
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        size_t m = sizes[z];
        struct gt_slider *s = gt_slider_new(m);
        assert_non_null(s);
        assert_true(gt_slider_keep_sorted(s));
        double *win = malloc(m * sizeof *win), *lw = malloc(m * sizeof *lw);
        assert_non_null(win);
        assert_non_null(lw);
        unsigned seed = 11;
        for (int i = 0; i < 3000; i++) {
            double x = 5 + rand_r(&seed) % 40;      /* many ties */
            if (i % 97 == 3)
                x = NAN;                              /* lost: the last value again */
            if (i >= 1500 && i < 1505)
                x = 0;                                /* zero RTTs */
            if (i % 13 == 0)
                x += 0.25;
            gt_slider_push(s, x);
            size_t n = gt_slider_count(s);
            gt_slider_window(s, win);
            bool zero = false;
            for (size_t k = 0; k < n; k++)
                zero = zero || win[k] == 0;
            assert_true(gt_slider_window_logs(s, lw) == !zero);
            for (size_t k = 0; !zero && k < n; k++)
                assert_true(lw[k] == log(win[k]));
            if (!zero) {   /* the logs ascending */
                qsort(lw, n, sizeof *lw, cmp);
                assert_memory_equal(gt_slider_sorted_logs(s), lw, n * sizeof *lw);
            } else {
                assert_null(gt_slider_sorted_logs(s));
            }
            qsort(win, n, sizeof *win, cmp);
            assert_memory_equal(gt_slider_sorted(s), win, n * sizeof *win);
        }
        free(win);
        free(lw);
        gt_slider_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reset_is_new),
        cmocka_unit_test(test_sliding_matches_refit),
        cmocka_unit_test(test_sorted_and_logs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
