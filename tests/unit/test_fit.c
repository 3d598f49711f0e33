/* test_fit.c - latency models and window fits: closed forms against
 * numerical integration, MLE on simulated data, hand-worked fit indices
 * (reference values from an independent Python computation), the
 * degenerate windows, and the selection rules. */
#include "testutil.h"
#include "estimators/fit.h"

#include <gsl/gsl_integration.h>

#define NEAR(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol) * fmax(1, fabs((double)(b))))

struct moment { const struct gt_model *m; const double *p; int power; double mu; };

static double moment_integrand(double x, void *arg)
{
    const struct moment *mo = arg;
    double d = mo->power == 1 ? x : (x - mo->mu) * (x - mo->mu);
    return d * mo->m->pdf(mo->p, x);
}

static double integrate_moment(const struct gt_model *m, const double *p, int power, double mu)
{
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
    struct moment mo = {m, p, power, mu};
    gsl_function f = {moment_integrand, &mo};
    double r, e;
    if (m == &gt_model_pareto)
        gsl_integration_qagiu(&f, p[0], 0, 1e-12, 1000, w, &r, &e);
    else
        gsl_integration_qagi(&f, 0, 1e-12, 1000, w, &r, &e);
    gsl_integration_workspace_free(w);
    return r;
}

/* METHOD.md section 1: the paper's moment-matching pairs. */
static void test_moment_matching_pairs(void **state)
{
    (void)state;
    double p1[2] = {41.7, 16.9}, p2[2] = {41.0, 27.7};
    double mean1 = integrate_moment(&gt_model_pareto, p1, 1, 0);
    NEAR(gt_model_pareto.mean(p1), mean1, 1e-10);
    NEAR(mean1, 44.3, 0.001);
    NEAR(sqrt(integrate_moment(&gt_model_pareto, p1, 2, mean1)), 2.8, 0.01);
    double mean2 = integrate_moment(&gt_model_pareto, p2, 1, 0);
    NEAR(mean2, 42.5, 0.001);
    NEAR(sqrt(integrate_moment(&gt_model_pareto, p2, 2, mean2)), 1.59, 0.005);
    double pn[2] = {44.3, 2.8};
    NEAR(integrate_moment(&gt_model_normal, pn, 1, 0), 44.3, 1e-10);
}

static void test_cdf_quantile_logcdf(void **state)
{
    (void)state;
    const struct gt_model *ms[] = {&gt_model_pareto, &gt_model_normal};
    double ps[][2] = {{41.7, 16.9}, {44.3, 2.8}};
    for (int k = 0; k < 2; k++)
        for (double q = 0.001; q < 1; q += 0.0137) {
            double x = ms[k]->quantile(ps[k], q);
            NEAR(ms[k]->cdf(ps[k], x), q, 1e-12);
            NEAR(ms[k]->logcdf(ps[k], x), log(q), 1e-11);
        }
    /* deep tails stay finite where the CDF itself rounds to 0 or 1 */
    double pn[2] = {0, 1};
    NEAR(gt_model_normal.logcdf(pn, -40), -804.608442013754, 1e-12);
    double pp[2] = {1, 2};
    NEAR(gt_model_pareto.logcdf(pp, 1e9), -1e-18, 1e-12);
    assert_true(isinf(gt_model_pareto.logcdf(pp, 1)));
    assert_null(gt_model_pareto.check(pp));
    double bad[2] = {-1, 2};
    assert_non_null(gt_model_pareto.check(bad));
    bad[0] = 1, bad[1] = 0;
    assert_non_null(gt_model_pareto.check(bad));
    bad[1] = NAN;
    assert_non_null(gt_model_normal.check(bad));
}

static void test_hand_worked_fits(void **state)
{
    (void)state;
    struct gt_fit f;
    struct gt_error err = {0};
    double a[] = {1, 2, 4};
    assert_int_equal(gt_fit_window(a, 3, GT_FIT_PARETO, &f, &err), GT_OK);
    NEAR(f.pareto.p[0], 1, 1e-15);
    NEAR(f.pareto.p[1], 1 / log(2), 1e-14);            /* 3 / (3 ln 2) */
    assert_true(isinf(f.cut_x0));                        /* alpha > 1 */
    double b[] = {1, 2, 3, 4};
    assert_int_equal(gt_fit_window(b, 4, GT_FIT_NORMAL, &f, &err), GT_OK);
    NEAR(f.normal.p[0], 2.5, 1e-15);
    NEAR(f.normal.p[1], sqrt(5.0 / 3), 1e-15);
    /* Python reference (the same formulas written independently) */
    double c[] = {1, 2, 4, 8};
    assert_int_equal(gt_fit_window(c, 4, GT_FIT_AUTO, &f, &err), GT_OK);
    assert_int_equal(f.classes, 2);
    NEAR(f.pareto.p[1], 0.9617966939259757, 1e-14);
    NEAR(f.pareto.chi2, 0.25541218630645673, 1e-12);
    NEAR(f.normal.p[1], 3.095695936834452, 1e-14);
    NEAR(f.normal.chi2, 0.2453042503579679, 1e-12);
    NEAR(f.pareto.ks, 0.25, 1e-15);
    assert_ptr_equal(f.selected, &gt_model_normal);      /* smaller chi2 */
    /* alpha <= 1: cut at x0 = k m^(1/alpha); here alpha = 1/ln 10 */
    double d[] = {1, 10, 100};
    assert_int_equal(gt_fit_window(d, 3, GT_FIT_PARETO, &f, &err), GT_OK);
    NEAR(f.pareto.p[1], 1 / log(10), 1e-14);
    NEAR(f.cut_x0, pow(3, log(10)), 1e-12);
}

static void test_degenerate_and_lost(void **state)
{
    (void)state;
    struct gt_fit f;
    struct gt_error err = {0};
    double same[] = {5, 5, NAN, 5};
    assert_int_equal(gt_fit_window(same, 4, GT_FIT_AUTO, &f, &err), GT_OK);
    assert_true(f.degenerate);
    assert_ptr_equal(f.selected, &gt_model_delta);
    assert_true(f.p[0] == 5);
    assert_int_equal(f.filled, 1);
    /* lost samples take the previous valid value; leading ones drop */
    double lost[] = {NAN, NAN, 1, NAN, 2, 4};
    assert_int_equal(gt_fit_window(lost, 6, GT_FIT_PARETO, &f, &err), GT_OK);
    assert_int_equal(f.m, 4);
    assert_int_equal(f.dropped, 2);
    NEAR(f.pareto.p[1], 4 / (log(2) + log(4)), 1e-14);  /* {1, 1, 2, 4} */
    assert_false(f.timed);
    /* a timed window spans its first used sample to its last slot */
    int64_t ts[] = {60, 120, 180, 240, 300, 360};
    double tail_lost[] = {NAN, NAN, 1, NAN, 2, NAN};
    assert_int_equal(gt_fit_series(tail_lost, ts, 6, NAN, 0, GT_FIT_AUTO, &f, &err), GT_OK);
    assert_true(f.timed);
    assert_int_equal(f.m, 4);
    assert_int_equal(f.first_ts, 180);
    assert_int_equal(f.last_ts, 360);
    assert_int_equal(gt_fit_series(lost, ts, 6, NAN, 0, GT_FIT_PARETO, &f, &err), GT_OK);
    NEAR(f.pareto.p[1], 4 / (log(2) + log(4)), 1e-14);  /* same fit as untimed */
    /* with a valid sample before the window, the leading lost take it:
       {3, 3, 1, 1, 2, 4}, k = 1, alpha = 6 / (2 ln 3 + ln 2 + ln 4) */
    assert_int_equal(gt_fit_series(lost, ts, 6, 3, 30, GT_FIT_PARETO, &f, &err), GT_OK);
    assert_int_equal(f.m, 6);
    assert_int_equal(f.valid, 3);
    assert_int_equal(f.filled, 3);
    assert_int_equal(f.dropped, 0);
    assert_int_equal(f.first_ts, 60);
    NEAR(f.pareto.p[1], 6 / (2 * log(3) + log(2) + log(4)), 1e-14);
    /* no valid sample in the window: a delta at the prior, outage since it */
    double none[] = {NAN, NAN, NAN};
    assert_int_equal(gt_fit_series(none, ts, 3, 7.5, 30, GT_FIT_AUTO, &f, &err), GT_OK);
    assert_true(f.degenerate);
    assert_true(f.p[0] == 7.5);
    assert_int_equal(f.valid, 0);
    assert_int_equal(f.outage_since, 30);
    assert_int_equal(gt_fit_series(none, ts, 3, NAN, 0, GT_FIT_AUTO, &f, &err), GT_EINPUT);
    gt_error_clear(&err);
    double one[] = {NAN, 3};
    assert_int_equal(gt_fit_window(one, 2, GT_FIT_AUTO, &f, &err), GT_EINPUT);
    gt_error_clear(&err);
    double neg[] = {1, -2};
    assert_int_equal(gt_fit_window(neg, 2, GT_FIT_AUTO, &f, &err), GT_EINPUT);
    gt_error_clear(&err);
    double zero[] = {0, 1, 2};
    assert_int_equal(gt_fit_window(zero, 3, GT_FIT_AUTO, &f, &err), GT_OK);
    assert_false(f.pareto.ok);
    assert_ptr_equal(f.selected, &gt_model_normal);
    assert_int_equal(gt_fit_window(zero, 3, GT_FIT_PARETO, &f, &err), GT_EINPUT);
}

static void test_selection_rules(void **state)
{
    (void)state;
    struct gt_model_fit p = {true, NULL, {1, 2}, 1.0, 0.2};
    struct gt_model_fit n = {true, NULL, {1, 2}, 2.0, 0.1};
    assert_ptr_equal(gt_fit_select(&p, &n), &gt_model_pareto);
    p.chi2 = INFINITY;
    assert_ptr_equal(gt_fit_select(&p, &n), &gt_model_normal);
    n.chi2 = INFINITY;                       /* both infinite: smaller KS */
    assert_ptr_equal(gt_fit_select(&p, &n), &gt_model_normal);
    p.chi2 = n.chi2 = 3;                     /* tie: smaller KS */
    p.ks = 0.05;
    assert_ptr_equal(gt_fit_select(&p, &n), &gt_model_pareto);
    p.ks = n.ks;                             /* full tie: Pareto */
    assert_ptr_equal(gt_fit_select(&p, &n), &gt_model_pareto);
    p.ok = false;
    assert_ptr_equal(gt_fit_select(&p, &n), &gt_model_normal);
}

/* MLE on simulated Pareto data recovers the parameters, and the
 * chi-square index prefers the true model. */
static void test_mle_on_simulated_data(void **state)
{
    (void)state;
    size_t m = 20000;
    double *x = malloc(m * sizeof *x), p[2] = {40, 3};
    unsigned seed = 7;
    for (size_t i = 0; i < m; i++)
        x[i] = gt_model_pareto.sample(p, (rand_r(&seed) + 1.0) / (RAND_MAX + 2.0), 0);
    struct gt_fit f;
    struct gt_error err = {0};
    assert_int_equal(gt_fit_window(x, m, GT_FIT_AUTO, &f, &err), GT_OK);
    NEAR(f.pareto.p[1], 3, 0.03);            /* sd of alpha-hat ~ alpha/sqrt(m) */
    NEAR(f.pareto.p[0], 40, 0.001);
    assert_ptr_equal(f.selected, &gt_model_pareto);
    assert_true(f.pareto.ks < 0.02);
    free(x);
}

/* METHOD.md 3, verdicts: the ranks of the quantile bounds, against the
 * exact binomial in rational arithmetic (Python's fractions: the largest
 * l with P(Bin >= l) >= 199/200, the smallest h with P(Bin >= h) <=
 * 1/200; none: 0 and m + 1). */
static void test_quantile_ranks(void **state)
{
    (void)state;
    static const struct { size_t m, r[3][2]; } want[] = {
        {2, {{0, 3}, {0, 3}, {1, 3}}},          {7, {{0, 8}, {4, 8}, {6, 8}}},
        {8, {{1, 8}, {4, 9}, {7, 9}}},          {16, {{3, 14}, {11, 17}, {14, 17}}},
        {50, {{16, 35}, {39, 51}, {47, 51}}},   {51, {{16, 36}, {40, 51}, {48, 52}}},
        {60, {{20, 41}, {47, 60}, {57, 61}}},   {527, {{234, 294}, {456, 492}, {515, 528}}},
        {528, {{234, 295}, {457, 493}, {516, 528}}},
        {1000, {{459, 542}, {875, 925}, {981, 998}}},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        struct gt_quantile_ranks r;
        gt_quantile_ranks_of(want[i].m, &r);
        for (int k = 0; k < GT_VERDICT_NQ; k++) {
            assert_int_equal(r.lo[k], want[i].r[k][0]);
            assert_int_equal(r.hi[k], want[i].r[k][1]);
        }
    }
}

/* The same ranks for windows of 10^5 to 10^8 samples, against SciPy's
 * binomial survival function (Boost's incomplete beta; every threshold
 * is met by more than 10^-8): the walk sums up to 10^6 terms there, and
 * the pmf's log, near -10^6, must not drift on the way. */
static void test_quantile_ranks_large(void **state)
{
    (void)state;
    static const struct { size_t m; double p; size_t kl, kh; } want[] = {
        {100000, 0.5, 49593, 50408},        {100000, 0.9, 89755, 90245},
        {100000, 0.99, 98918, 99081},       {1000000, 0.5, 498712, 501289},
        {1000000, 0.9, 899227, 900773},     {1000000, 0.99, 989743, 990256},
        {10000000, 0.9, 8997556, 9002444},  {10000000, 0.99, 9899189, 9900811},
        {100000000, 0.99, 98997436, 99002563},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        size_t kl, kh;
        gt_quantile_ranks(want[i].m, want[i].p, GT_VERDICT_CONFIDENCE, &kl, &kh);
        assert_int_equal(kl, want[i].kl);
        assert_int_equal(kh, want[i].kh);
    }
}

/* The verdict by hand on the window 1, 2, ..., 16: bounds p50 [3, 14],
 * p90 [11, 16] and p99 [14, 16] (no upper rank: the largest sample). */
static void test_verdict_by_hand(void **state)
{
    (void)state;
    double xs[16];
    for (int i = 0; i < 16; i++)
        xs[i] = i + 1;
    struct gt_quantile_ranks r;
    struct gt_quantile_bounds b;
    gt_quantile_ranks_of(16, &r);
    gt_quantile_bounds_at(xs, 16, &r, &b);
    static const double lo[] = {3, 11, 14}, hi[] = {14, 16, 16};
    for (int k = 0; k < 3; k++) {
        assert_true(b.lo[k] == lo[k]);
        assert_true(b.hi[k] == hi[k]);
    }
    assert_int_equal(b.hi_max, 6);   /* p90 and p99: no upper rank at m = 16 */
    struct gt_verdict_limits lim = {0.2, 0.1};
    /* the normal of 1..16: mu 8.5, sigma sqrt(16 17 / 12); its p99
     * 8.5 + 2.326348 sigma = 19.576 > 16 x 1.1; 3.7 % below 0 ms */
    double sigma = sqrt(16.0 * 17 / 12);
    struct gt_verdict v = {.model = &gt_model_normal, .p = {8.5, sigma}, .ks = 0.05,
                           .chi2 = 1, .bounds = &b};
    gt_verdict_check(&v, &lim);
    assert_int_equal(v.flags, GT_VERDICT_OFF_QUANTILE | GT_VERDICT_NEG_MASS);
    assert_int_equal(v.off, 2);
    NEAR(v.off_q, 8.5 + 2.3263478740408408 * sigma, 1e-12);
    lim.margin = 0.25;   /* 19.576 < 16 x 1.25 */
    gt_verdict_check(&v, &lim);
    assert_int_equal(v.flags, GT_VERDICT_NEG_MASS);
    /* the Pareto MLE k 1, alpha 16 / ln 16!: p50 2^(1/alpha) = 3.78 is
     * within [3 / 1.25, 14 x 1.25], p90 10^(1/alpha) = 82.6 is not */
    double alpha = 16 / lgamma(17);
    v = (struct gt_verdict){.model = &gt_model_pareto, .p = {1, alpha}, .ks = 0.5, .chi2 = 1,
                            .bounds = &b};
    gt_verdict_check(&v, &lim);
    assert_int_equal(v.flags, GT_VERDICT_OFF_QUANTILE | GT_VERDICT_POOR_FIT);
    assert_int_equal(v.off, 1);
    NEAR(v.off_q, pow(10, 1 / alpha), 1e-12);
    assert_true(GT_VERDICT_MISFIT & GT_VERDICT_OFF_QUANTILE);
    assert_false(GT_VERDICT_MISFIT & GT_VERDICT_POOR_FIT);   /* KS informs only */
    char lines[GT_VERDICT_MAX_LINES][GT_VERDICT_LINE];
    assert_int_equal(gt_verdict_lines(&v, &lim, lines, GT_VERDICT_MAX_LINES), 2);
    assert_string_equal(lines[0], "quantiles off: the pareto's p90 82.6 ms is outside the "
                        "window's 11-16 ms (99% bounds; above, its largest sample, 25% margin)");
    /* the bounds by selection, from any order, are the sorted window's */
    unsigned seed = 7;
    for (size_t m = 2; m <= 700; m += 37) {
        double s[700], u[700];
        for (size_t i = 0; i < m; i++) {
            seed = seed * 1103515245u + 12345u;
            s[i] = u[i] = (double)((seed >> 16) % 50);   /* ties too */
        }
        qsort(s, m, sizeof *s, gt_cmp_double);
        struct gt_quantile_bounds bs, bu;
        gt_quantile_ranks_of(m, &r);
        gt_quantile_bounds_at(s, m, &r, &bs);
        gt_quantile_bounds_select(u, m, &r, &bu);
        assert_memory_equal(&bs, &bu, sizeof bs);
    }
    /* no bounds known: only what the model itself says */
    v.bounds = NULL;
    gt_verdict_check(&v, &lim);
    assert_int_equal(v.flags, GT_VERDICT_POOR_FIT);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The classes counted by a binary search per edge over the sorted logs
 * give the index the division per sample gives, bit for bit: windows of
 * 3 to 300 values, with ties, equal runs and values on class edges. */
static void test_index_sorted_logs(void **state)
{
    (void)state;
    uint64_t st = 12345;
    for (int trial = 0; trial < 400; trial++) {
        size_t m = 3 + (size_t)(test_uniform(&st) * 298);
        double x[300], lx[300], sorted[300];
        for (size_t i = 0; i < m; i++) {
            double u = test_uniform(&st);
            x[i] = trial % 3 ? 20 * pow(u, -1 / 2.5) : 10 + (double)(int)(u * 6);   /* ties */
            lx[i] = log(x[i]);
        }
        memcpy(sorted, lx, m * sizeof *lx);
        qsort(sorted, m, sizeof *sorted, cmp_d);
        double pp[2] = {10, 2.5}, pn[2] = {30, 8};
        double a1, b1, a2, b2;
        int c1, c2;
        gt_fit_index_logs2(&gt_model_pareto, pp, &a1, &gt_model_normal, pn, &b1, lx, NULL, m, &c1);
        gt_fit_index_logs2(&gt_model_pareto, pp, &a2, &gt_model_normal, pn, &b2, lx, sorted, m,
                           &c2);
        assert_int_equal(c1, c2);
        assert_true(memcmp(&a1, &a2, sizeof a1) == 0 && memcmp(&b1, &b2, sizeof b1) == 0);
    }
}

/* gt_verdict_quantile gives each level's quantile of the normal and the
 * Pareto bit for bit as the models' own quantile functions, over
 * parameters spread wide. */
static void test_verdict_quantile_bits(void **state)
{
    (void)state;
    uint64_t st = 777;
    for (int trial = 0; trial < 2000; trial++) {
        double a = exp(12 * test_uniform(&st) - 4), b = exp(10 * test_uniform(&st) - 5);
        double pn[2] = {a * (test_uniform(&st) < 0.2 ? -1 : 1), b}, pp[2] = {a, 0.3 + 20 * b};
        for (int k = 0; k < GT_VERDICT_NQ; k++) {
            double n1 = gt_verdict_quantile(&gt_model_normal, pn, k);
            double n2 = gt_model_normal.quantile(pn, gt_verdict_levels[k]);
            double p1 = gt_verdict_quantile(&gt_model_pareto, pp, k);
            double p2 = gt_model_pareto.quantile(pp, gt_verdict_levels[k]);
            assert_memory_equal(&n1, &n2, sizeof n1);
            assert_memory_equal(&p1, &p2, sizeof p1);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_sorted_logs),
        cmocka_unit_test(test_verdict_quantile_bits),
        cmocka_unit_test(test_moment_matching_pairs),
        cmocka_unit_test(test_cdf_quantile_logcdf),
        cmocka_unit_test(test_hand_worked_fits),
        cmocka_unit_test(test_degenerate_and_lost),
        cmocka_unit_test(test_selection_rules),
        cmocka_unit_test(test_mle_on_simulated_data),
        cmocka_unit_test(test_quantile_ranks),
        cmocka_unit_test(test_quantile_ranks_large),
        cmocka_unit_test(test_verdict_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
