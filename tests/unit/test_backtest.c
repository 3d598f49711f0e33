/* test_backtest.c - the backtest's statistics: the Mann-Whitney U test
 * against a hand-worked case and a brute-force count over all pairs with
 * midrank ties (exact and binned), the worst-1% share by hand, the
 * adaptive tracker's choices and the guard's by hand, the combination weights by hand and
 * against a search of the simplex, and the conformal calibrator by hand
 * and against the coverage bound of adaptive conformal inference. */
#include "testutil.h"
#include "advisor/backtest.h"
#include "advisor/errdist.h"
#include "estimators/conformal.h"
#include "estimators/tracker.h"

#include <math.h>

static struct gt_errdist *dist_of(const double *x, size_t n)
{
    struct gt_errdist *d = gt_errdist_new();
    assert_non_null(d);
    for (size_t i = 0; i < n; i++)
        assert_true(gt_errdist_add(d, x[i]));
    return d;
}

/* A = {1, 2, 3}, B = {2, 4, 5, 6}: midranks 1, 2.5, 2.5, 4, 5, 6, 7,
 * R_A = 7.5, U_A = 7.5 - 6 = 1.5; one tie of two: sum(t^3 - t) = 6,
 * var = 3*4/12 (8 - 6/42). */
static void test_mwu_hand(void **state)
{
    (void)state;
    double a[] = {1, -2, 3}, b[] = {2, 4, 5, 6};   /* signs: |e| is what counts */
    struct gt_errdist *da = dist_of(a, 3), *db = dist_of(b, 4);
    struct gt_mwu r;
    assert_true(gt_errdist_mwu(da, db, &r));
    assert_true(r.u == 1.5);
    double z = (1.5 - 6) / sqrt(8 - 6.0 / 42);
    assert_true(fabs(r.z - z) < 1e-12);
    assert_true(fabs(r.p - erfc(fabs(z) / sqrt(2))) < 1e-12);
    assert_true(fabs(r.p - 0.108399) < 1e-5);
    /* the other way round: U_B = n_a n_b - U_A */
    assert_true(gt_errdist_mwu(db, da, &r));
    assert_true(r.u == 10.5);
    gt_errdist_free(da);
    gt_errdist_free(db);
}

/* Brute force: U over all pairs, the variance from the tie counts. */
static void brute_mwu(const double *a, size_t na, const double *b, size_t nb, double *u,
                      double *p)
{
    double s = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            s += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
    /* tie counts over the values 0..400 */
    static double cnt[401];
    memset(cnt, 0, sizeof cnt);
    for (size_t i = 0; i < na; i++)
        cnt[(int)a[i]]++;
    for (size_t j = 0; j < nb; j++)
        cnt[(int)b[j]]++;
    double ties = 0, n = (double)(na + nb);
    for (int k = 0; k <= 400; k++)
        ties += cnt[k] * cnt[k] * cnt[k] - cnt[k];
    double var = (double)na * (double)nb / 12 * ((n + 1) - ties / (n * (n - 1)));
    *u = s;
    *p = erfc(fabs((s - (double)na * (double)nb / 2) / sqrt(var)) / sqrt(2));
}

static void check_against_brute(size_t na, size_t nb, bool binned)
{
    double *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
    unsigned long x = 12345;
    for (size_t i = 0; i < na; i++) {
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        a[i] = (double)((x >> 33) % 301);            /* 0..300, many ties */
    }
    for (size_t j = 0; j < nb; j++) {
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        b[j] = (double)((x >> 33) % 281) + 60;        /* shifted up */
    }
    struct gt_errdist *da = dist_of(a, na), *db = dist_of(b, nb);
    assert_true(gt_errdist_exact(da) == !binned);
    struct gt_mwu r;
    double u, p;
    assert_true(gt_errdist_mwu(da, db, &r));
    brute_mwu(a, na, b, nb, &u, &p);
    /* whole numbers 1..300 are more than a bin apart: binning keeps them */
    assert_true(r.u == u);
    assert_true(fabs(r.p - p) <= 1e-9 * p + 1e-300);
    assert_true(r.p < 0.05);
    gt_errdist_free(da);
    gt_errdist_free(db);
    free(a);
    free(b);
}

static void test_mwu_brute(void **state)
{
    (void)state;
    check_against_brute(300, 200, false);
    check_against_brute(6000, 5000, true);
}

static void test_top_share(void **state)
{
    (void)state;
    double x[100];
    for (int i = 0; i < 100; i++)
        x[i] = i + 1;
    struct gt_errdist *d = dist_of(x, 100);
    /* the worst 1 % of 100 values: 100^2 / sum k^2 = 10000 / 338350 */
    assert_true(fabs(gt_errdist_top_share(d, 0.01) - 10000.0 / 338350) < 1e-15);
    /* the worst 10 %: 91^2 + ... + 100^2 */
    double top = 0;
    for (int k = 91; k <= 100; k++)
        top += (double)k * k;
    assert_true(fabs(gt_errdist_top_share(d, 0.1) - top / 338350) < 1e-15);
    /* binned: 100 copies of each value; the worst 1 % is the 100 copies
       of 100, taken at their bin's centre (within half a bin, 0.14 %) */
    struct gt_errdist *big = gt_errdist_new();
    for (int c = 0; c < 100; c++)
        for (int i = 0; i < 100; i++)
            assert_true(gt_errdist_add(big, x[i]));
    assert_false(gt_errdist_exact(big));
    assert_true(fabs(gt_errdist_top_share(big, 0.01) / (10000.0 / 338350) - 1) < 0.003);
    /* merging: counts add, the result bins */
    assert_true(gt_errdist_merge(d, big));
    assert_true(gt_errdist_count(d) == 10100);
    assert_false(gt_errdist_exact(d));
    struct gt_errdist *z = gt_errdist_new();
    assert_true(isnan(gt_errdist_top_share(z, 0.01)));
    assert_true(gt_errdist_add(z, 0));
    assert_true(isnan(gt_errdist_top_share(z, 0.01)));   /* all zero */
    gt_errdist_free(z);
    gt_errdist_free(big);
    gt_errdist_free(d);
}

/* Two methods, horizon 3: the best is the smaller mean of the last three
 * squared errors, by hand. */
static void test_tracker_hand(void **state)
{
    (void)state;
    struct gt_tracker *t = gt_tracker_new(2, 3);
    assert_non_null(t);
    double rmse;
    assert_int_equal(gt_tracker_best(t, &rmse), -1);
    assert_true(isnan(rmse));
    /* errors; their squares are {1, 4}, {1, 4}, {100, 4}, ... */
    double o[][2] = {{1, -2}, {-1, 2}, {10, 2}, {1, -2}, {-1, -2}, {1, 2}};
    int want[] = {0, 0, 1, 1, 1, 0};
    /* after 3: means 34 vs 4 -> 1; after 5: (100+1+1)/3 vs 4 -> 1;
       after 6: the 100 has left: 1 vs 4 -> 0 */
    for (int i = 0; i < 6; i++) {
        gt_tracker_add(t, o[i]);
        assert_int_equal(gt_tracker_best(t, &rmse), want[i]);
    }
    assert_true(fabs(rmse - 1) < 1e-15);
    assert_true(fabs(gt_tracker_rmse(t, 1) - 2) < 1e-15);
    assert_int_equal(gt_tracker_count(t), 3);
    /* an outcome a method could not predict is not counted */
    double skip[2] = {NAN, 0};
    gt_tracker_add(t, skip);
    assert_int_equal(gt_tracker_best(t, NULL), 0);
    gt_tracker_free(t);
    /* horizon 0: every outcome */
    t = gt_tracker_new(2, 0);
    for (int i = 0; i < 6; i++)
        gt_tracker_add(t, o[i]);
    assert_int_equal(gt_tracker_count(t), 6);
    assert_int_equal(gt_tracker_best(t, &rmse), 1);    /* 105/6 vs 4 */
    assert_true(fabs(gt_tracker_rmse(t, 0) - sqrt(105.0 / 6)) < 1e-14);
    gt_tracker_free(t);
    assert_null(gt_tracker_new(0, 3));
    assert_null(gt_tracker_new(GT_TRACK_MAX_METHODS + 1, 3));
}

/* A spike that leaves the horizon leaves nothing behind: the sums are
 * recomputed, so a method's error returns to exactly its own. */
static void test_tracker_spike(void **state)
{
    (void)state;
    struct gt_tracker *t = gt_tracker_new(1, 10);
    double big[1] = {1e15}, small[1] = {-1e-3};
    gt_tracker_add(t, big);
    for (int i = 0; i < 25; i++)
        gt_tracker_add(t, small);
    assert_true(fabs(gt_tracker_rmse(t, 0) - 1e-3) < 1e-18);
    gt_tracker_free(t);
}

static struct gt_tracker *tracker_of(int k, const double *e, size_t n)
{
    struct gt_tracker *t = gt_tracker_new(k, 0);
    assert_non_null(t);
    for (size_t i = 0; i < n; i++)
        gt_tracker_add(t, e + i * (size_t)k);
    return t;
}

/* The guard and adaptive's pick by hand.  One outcome with errors (1, 3,
 * 5, 2): RMSEs 1, 3, 5, 2, median 2.5, so a forecast more than 10 from
 * the forecasts' median is left out.  Forecasts (100, 50, 52, 47): median
 * 51, the first is 49 away and out though its record is the best; of the
 * rest the last has the best record (2).  Forecasts (0, 30, 60, 90):
 * median 45, all 15 or more away: the guard keeps the middle two, 30 and
 * 60, and of those the first has the better record (3 against 5).  No outcome yet, forecasts (10, 11, 12, 100):
 * median 11.5, distances 1.5, 0.5, 0.5, 88.5 with median 1, so 100 is out
 * and the first kept is taken.  No forecast at all: -1. */
static void test_guard_hand(void **state)
{
    (void)state;
    const double e[4] = {1, 3, 5, 2};
    struct gt_tracker *t = tracker_of(4, e, 1), *none = gt_tracker_new(4, 0);
    assert_non_null(none);
    bool use[4];
    const double a[4] = {100, 50, 52, 47}, b[4] = {0, 30, 60, 90};
    const double c[4] = {10, 11, 12, 100}, d[4] = {NAN, NAN, NAN, NAN};
    assert_int_equal(gt_tracker_best(t, NULL), 0);
    assert_int_equal(gt_bt_adaptive_pick(a, t, 4, use), 3);
    assert_true(!use[0] && use[1] && use[2] && use[3]);
    assert_int_equal(gt_tracker_best_of(t, use, NULL), 3);
    assert_int_equal(gt_bt_adaptive_pick(b, t, 4, use), 1);
    assert_true(!use[0] && use[1] && use[2] && !use[3]);
    assert_int_equal(gt_bt_adaptive_pick(c, none, 4, use), 0);
    assert_true(use[0] && use[1] && use[2] && !use[3]);
    assert_int_equal(gt_bt_adaptive_pick(d, t, 4, use), -1);
    gt_tracker_free(t);
    gt_tracker_free(none);
}

/* Two methods with errors e1 = (1, 2), e2 = (3, -1): S11 = 5, S22 = 10,
 * S12 = 1.  The least-squares weight of the first is (S22 - S12) / (S11 +
 * S22 - 2 S12) = 9/13; fully shrunk, the weights are inverse to S11 and
 * S22: 2/3 and 1/3; half shrunk, S12 counts half: (10 - 0.5) / (15 - 1) =
 * 19/28. */
static void test_weights_hand(void **state)
{
    (void)state;
    double e[] = {1, 3, 2, -1}, w[3];
    struct gt_tracker *t = gt_tracker_new(2, 0);
    gt_tracker_weights(t, 0, NULL, w);
    assert_true(w[0] == 0.5 && w[1] == 0.5);   /* no outcome yet: equal */
    gt_tracker_free(t);
    t = tracker_of(2, e, 2);
    gt_tracker_weights(t, 0, NULL, w);
    assert_true(fabs(w[0] - 9.0 / 13) < 1e-11 && fabs(w[1] - 4.0 / 13) < 1e-11);
    gt_tracker_weights(t, 1, NULL, w);
    assert_true(fabs(w[0] - 2.0 / 3) < 1e-11 && fabs(w[1] - 1.0 / 3) < 1e-11);
    gt_tracker_weights(t, 0.5, NULL, w);
    assert_true(fabs(w[0] - 19.0 / 28) < 1e-11 && fabs(w[1] - 9.0 / 28) < 1e-11);
    gt_tracker_free(t);
    /* the same errors, the second twice as large: the unconstrained
       optimum (w1 = 2) is outside the simplex, so all on the first */
    double same[] = {1, 2, 1, 2};
    t = tracker_of(2, same, 2);
    gt_tracker_weights(t, 0, NULL, w);
    assert_true(w[0] == 1 && w[1] == 0);
    gt_tracker_free(t);
    /* a method without error takes everything */
    double exact[] = {1, 0, 2, -1, 0, 3};
    t = tracker_of(3, exact, 2);
    gt_tracker_weights(t, 0.5, NULL, w);
    assert_true(w[0] == 0 && w[1] == 1 && w[2] == 0);
    /* ...unless it is left out: then the others, as if it were not there
       (S11 = 2, S33 = 13, S13 = -1; shrink 1: 13/15 and 2/15) */
    bool use[3] = {true, false, true};
    gt_tracker_weights(t, 1, use, w);
    assert_true(fabs(w[0] - 13.0 / 15) < 1e-11 && w[1] == 0 && fabs(w[2] - 2.0 / 15) < 1e-11);
    bool none[3] = {false, false, false};
    gt_tracker_weights(t, 1, none, w);
    assert_true(w[0] == 0 && w[1] == 0 && w[2] == 0);
    gt_tracker_free(t);
    /* errors exactly opposite: with no shrinkage the combination cancels
       them, half and half (the ridge keeps the system solvable) */
    double opposite[] = {1, -1, -2, 2};
    t = tracker_of(2, opposite, 2);
    gt_tracker_weights(t, 0, NULL, w);
    assert_true(fabs(w[0] - 0.5) < 1e-9 && fabs(w[1] - 0.5) < 1e-9);
    gt_tracker_free(t);
}

static uint64_t rng_state = 88172645463325252ull;

static double uniform(void)
{
    return test_uniform(&rng_state);
}

static double gauss(void)
{
    return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* Mean squared error of the combination w of three methods' errors. */
static double mse_of(const double *e, size_t n, const double *w)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double c = w[0] * e[3 * i] + w[1] * e[3 * i + 1] + w[2] * e[3 * i + 2];
        s += c * c;
    }
    return s / (double)n;
}

/* Three correlated methods, 40 outcomes, 20 draws: the weights reach the
 * smallest MSE a search of the simplex on a grid of 1/400 finds, or
 * better, and are within a grid step of the grid's best point. */
static void test_weights_search(void **state)
{
    (void)state;
    for (int draw = 0; draw < 20; draw++) {
        double e[120];
        for (int i = 0; i < 40; i++) {
            double common = gauss();
            for (int j = 0; j < 3; j++)
                e[3 * i + j] = (0.5 + j) * (0.8 * common + gauss()) + 0.3 * j;
        }
        struct gt_tracker *t = tracker_of(3, e, 40);
        double w[3], g[3], bw[3] = {0}, best = INFINITY;
        gt_tracker_weights(t, 0, NULL, w);
        assert_true(w[0] >= 0 && w[1] >= 0 && w[2] >= 0 && fabs(w[0] + w[1] + w[2] - 1) < 1e-12);
        for (int a = 0; a <= 400; a++)
            for (int b = 0; a + b <= 400; b++) {
                g[0] = a / 400.0, g[1] = b / 400.0, g[2] = (400 - a - b) / 400.0;
                double v = mse_of(e, 40, g);
                if (v < best)
                    best = v, memcpy(bw, g, sizeof bw);
            }
        assert_true(mse_of(e, 40, w) <= best * (1 + 1e-12));
        for (int j = 0; j < 3; j++)
            assert_true(fabs(w[j] - bw[j]) < 0.01);
        gt_tracker_free(t);
    }
}

/* Scores by hand: raw 10 and actual 20, 5, 10 give log 2, log 1/2, 0. */
static void test_conf_hand(void **state)
{
    (void)state;
    struct gt_conf_opts o = {3, 0};
    struct gt_conf *med = gt_conf_new(0.5, &o), *p90 = gt_conf_new(0.9, &o);
    assert_non_null(med);
    assert_true(gt_conf_adjust(med, 8) == 8 && gt_conf_count(med) == 0);   /* nothing yet */
    double actual[] = {20, 5, 10};
    for (int i = 0; i < 3; i++) {
        gt_conf_observe(med, 10, 10, actual[i]);
        gt_conf_observe(p90, 10, 10, actual[i]);
    }
    /* the median: rank ceil(0.5 x 4) = 2 of {-log 2, 0, log 2}: 0 */
    assert_true(gt_conf_adjust(med, 8) == 8);
    /* p90: not ready before 9 outcomes, so raised by the largest score,
       log 2 */
    assert_true(fabs(gt_conf_adjust(p90, 8) - 16) < 1e-13);
    assert_false(gt_conf_ready(p90));
    assert_true(gt_conf_ready(med));
    /* a fourth score, log 3, pushes out the oldest (log 2): the median
       of {-log 2, 0, log 3} is still 0, the largest is log 3 */
    gt_conf_observe(p90, 10, 10, 30);
    assert_true(fabs(gt_conf_adjust(p90, 8) - 24) < 1e-13);
    assert_int_equal(gt_conf_count(p90), 3);
    /* not a positive finite value: no score, and raw passes through */
    gt_conf_observe(p90, 0, 0, 30);
    gt_conf_observe(p90, 10, 10, NAN);
    assert_int_equal(gt_conf_count(p90), 3);
    assert_true(isnan(gt_conf_adjust(p90, NAN)));
    /* ...but never lowered before then: scores log 1/2 only */
    struct gt_conf *low = gt_conf_new(0.9, &o);
    gt_conf_observe(low, 10, 10, 5);
    assert_true(gt_conf_adjust(low, 8) == 8);
    gt_conf_free(low);
    gt_conf_free(med);
    gt_conf_free(p90);
    /* the level: a miss raises it by gamma p, a cover lowers it by
       gamma (1 - p) */
    struct gt_conf_opts step = {10, 0.1};
    struct gt_conf *c = gt_conf_new(0.9, &step);
    gt_conf_observe(c, 10, 10, 20);
    assert_true(fabs(gt_conf_level(c) - 0.99) < 1e-15);
    gt_conf_observe(c, 10, 40, 20);
    assert_true(fabs(gt_conf_level(c) - 0.98) < 1e-15);
    gt_conf_free(c);
    assert_null(gt_conf_new(1, NULL));
    assert_null(gt_conf_new(0.5, &(struct gt_conf_opts){0, 0.005}));
}

/* A model whose p90 is 1 while outcomes are lognormal(0.5, 1) (its true
 * p90 is e^1.78), and from the middle on three times larger: the issued
 * quantiles miss in 10 % of the T = 20,000 outcomes to within Gibbs and
 * Candes' bound (max(a_1, 1 - a_1) + gamma) / (gamma T) = 0.00905, in
 * each half. */
static void test_conf_coverage(void **state)
{
    (void)state;
    for (int p = 0; p < 2; p++) {
        double level = p ? 0.99 : 0.9;
        struct gt_conf *c = gt_conf_new(level, NULL);
        assert_non_null(c);
        double miss[2] = {0, 0};
        for (int i = 0; i < 20000; i++) {
            double actual = exp(0.5 + gauss()) * (i < 10000 ? 1 : 3);
            double issued = gt_conf_adjust(c, 1);
            miss[i >= 10000] += actual > issued;
            gt_conf_observe(c, 1, issued, actual);
        }
        double bound = (level + 0.005) / (0.005 * 10000);
        for (int h = 0; h < 2; h++)
            assert_true(fabs(miss[h] / 10000 - (1 - level)) <= bound);
        gt_conf_free(c);
    }
}

/* Options past their bounds are a usage error before any store is read
 * (the CLI caps them; a library caller may not): combined's horizon
 * among them, which once passed to the tracker and came back "out of
 * memory". */
/* combined's memory per lead, by hand: the H asked, or 16 leads when
 * that is more; all stays all; never past the tracker's bound. */
static void test_combine_horizon(void **state)
{
    (void)state;
    assert_int_equal(gt_bt_combine_horizon(500, 1), 500);
    assert_int_equal(gt_bt_combine_horizon(500, 16), 500);
    assert_int_equal(gt_bt_combine_horizon(500, 32), 512);
    assert_int_equal(gt_bt_combine_horizon(500, 128), 2048);
    assert_int_equal(gt_bt_combine_horizon(5000, 128), 5000);
    assert_int_equal(gt_bt_combine_horizon(0, 128), 0);
    assert_int_equal(gt_bt_combine_horizon(1, 100000000L), GT_TRACK_MAX_HORIZON);
}

static void test_opts_bounds(void **state)
{
    (void)state;
    struct gt_bt_opts o = {.windows = {8}, .nwindows = 1, .taus = {1}, .ntaus = 1,
                           .methods = 1u << GT_BT_NORMAL | 1u << GT_BT_COMBINED, .stride = 1,
                           .threads = 1, .drop_loss = 2, .shrink = 0, .epsrel = 1e-6,
                           .verdict = {0.2, 0.1}};
    struct gt_bt_result *r = NULL;
    struct gt_error err = {0};
    o.combine_horizon = GT_TRACK_MAX_HORIZON + 1;
    assert_int_equal(gt_backtest_run("/nonexistent/x.db", 0, &o, &r, &err), GT_EUSAGE);
    assert_null(r);
    o.combine_horizon = 500;
    o.horizon = GT_TRACK_MAX_HORIZON + 1;
    assert_int_equal(gt_backtest_run("/nonexistent/x.db", 0, &o, &r, &err), GT_EUSAGE);
    o.horizon = 50;
    o.shrink = 1.5;
    assert_int_equal(gt_backtest_run("/nonexistent/x.db", 0, &o, &r, &err), GT_EUSAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mwu_hand),
        cmocka_unit_test(test_mwu_brute),
        cmocka_unit_test(test_top_share),
        cmocka_unit_test(test_tracker_hand),
        cmocka_unit_test(test_tracker_spike),
        cmocka_unit_test(test_guard_hand),
        cmocka_unit_test(test_weights_hand),
        cmocka_unit_test(test_weights_search),
        cmocka_unit_test(test_conf_hand),
        cmocka_unit_test(test_conf_coverage),
        cmocka_unit_test(test_opts_bounds),
        cmocka_unit_test(test_combine_horizon),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
