/* test_backtest.c - the backtest's statistics: the Mann-Whitney U test
 * against a hand-worked case and a brute-force count over all pairs with
 * midrank ties (exact and binned), the worst-1% share by hand, and the
 * adaptive tracker's choices by hand. */
#include "testutil.h"
#include "advisor/errdist.h"
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
    double o[][2] = {{1, 4}, {1, 4}, {100, 4}, {1, 4}, {1, 4}, {1, 4}};
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
    double big[1] = {1e30}, small[1] = {1e-6};
    gt_tracker_add(t, big);
    for (int i = 0; i < 25; i++)
        gt_tracker_add(t, small);
    assert_true(fabs(gt_tracker_rmse(t, 0) - 1e-3) < 1e-18);
    gt_tracker_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mwu_hand),
        cmocka_unit_test(test_mwu_brute),
        cmocka_unit_test(test_top_share),
        cmocka_unit_test(test_tracker_hand),
        cmocka_unit_test(test_tracker_spike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
