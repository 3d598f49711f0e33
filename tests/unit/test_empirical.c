/* test_empirical.c - the empirical model (METHOD.md 2.2): its step CDF,
 * and E[max], quantiles and slowest-partner shares over empirical
 * partners against brute-force sums over every combination of samples,
 * against closed forms and against the engine's other paths. */
#include "testutil.h"
#include "estimators/emax.h"
#include "estimators/emaxmc.h"
#include "estimators/steps.h"

#include <gsl/gsl_cdf.h>

#define REL(a, b) (fabs((double)(a) - (double)(b)) / fabs((double)(b)))

static struct gt_partner_group emp(const double *xs, size_t n, double count, double shift)
{
    struct gt_partner_group g = {{0}, count};
    g.dist.shift = shift;
    gt_dist_set_empirical(&g.dist, xs, n);
    return g;
}

static struct gt_partner_group param(const struct gt_model *m, double a, double b, double shift)
{
    struct gt_partner_group g = {{m, {a, b}, shift, 0, 0, NULL, 0}, 1};
    return g;
}

static struct gt_partner_group lossy(struct gt_partner_group g, double p, double rto)
{
    g.dist.loss_p = p;
    g.dist.rto_ms = rto;
    return g;
}

static int run_full(const struct gt_partner_group *g, size_t ng, const double *q, size_t nq,
                    double *qv, double *ps, struct gt_emax_result *r)
{
    struct gt_emax_opts o = {INFINITY, false, q, nq, ps != NULL, false, NULL, 0, NULL, false, false};
    *r = (struct gt_emax_result){0, 0, NULL, 0, qv, ps, NULL};
    struct gt_error err = {0};
    int rc = gt_emax(g, ng, &o, r, &err);
    if (rc)
        fprintf(stderr, "gt_emax: %s\n", err.msg);
    return rc;
}

static double emax_of(const struct gt_partner_group *g, size_t ng, const char **method)
{
    struct gt_emax_result r;
    assert_int_equal(run_full(g, ng, NULL, 0, NULL, NULL, &r), GT_OK);
    if (method)
        *method = r.method;
    return r.e_max;
}

static void test_step_cdf(void **state)
{
    (void)state;
    static const double xs[] = {10, 20, 20, 30, 50};
    struct gt_partner_group g = emp(xs, 5, 1, 1);
    assert_null(gt_emp_check(&g.dist));
    assert_true(gt_dist_cdf(&g.dist, 10.999) == 0);
    assert_true(gt_dist_cdf(&g.dist, 11) == 0.2);
    assert_true(gt_dist_cdf(&g.dist, 21) == 0.6);
    assert_true(gt_dist_cdf(&g.dist, 50) == 0.8);
    assert_true(gt_dist_cdf(&g.dist, 51) == 1);
    assert_true(gt_dist_logcdf(&g.dist, 5) == -INFINITY);
    assert_true(fabs(gt_dist_logcdf(&g.dist, 31) - log(0.8)) < 1e-15);
    assert_true(gt_dist_lower(&g.dist) == 11);
    assert_true(gt_dist_quantile0(&g.dist, 0.5) == 21);   /* F(21) = 0.6 >= 0.5 */
    assert_true(gt_dist_quantile0(&g.dist, 0.6) == 21);
    assert_true(gt_dist_quantile0(&g.dist, 0.61) == 31);
    assert_true(fabs(gt_dist_mean0(&g.dist) - 27) < 1e-12);
    g.dist.p[0] = 2;   /* a rendezvous: every sample twice */
    assert_true(gt_dist_cdf(&g.dist, 60.5) == 0.6 && gt_dist_cdf(&g.dist, 61) == 0.8);
    assert_true(gt_dist_lower(&g.dist) == 21);
    /* bad samples are refused by the engine */
    static const double unsorted[] = {3, 2}, nan_[] = {1, NAN};
    struct gt_partner_group b1 = emp(unsorted, 2, 1, 0), b2 = emp(nan_, 2, 1, 0);
    struct gt_partner_group b3 = emp(xs, 0, 1, 0);
    struct gt_emax_result r;
    struct gt_emax_opts o = {INFINITY, false, NULL, 0, false, false, NULL, 0, NULL, false, false};
    struct gt_error err = {0};
    assert_int_equal(gt_emax(&b1, 1, &o, &r, &err), GT_EINPUT);
    assert_non_null(strstr(err.msg, "ascending"));
    assert_int_equal(gt_emax(&b2, 1, &o, &r, &err), GT_EINPUT);
    assert_int_equal(gt_emax(&b3, 1, &o, &r, &err), GT_EINPUT);
}

/* The table of a lossy empirical partner agrees with its CDF at every
 * point, just below it, and between points. */
static void test_step_table(void **state)
{
    (void)state;
    static const double xs[] = {12.5, 12.5, 13, 40, 41.25, 90};
    struct gt_partner_group g = lossy(emp(xs, 6, 1, 0.75), 0.2, 200);
    struct gt_steps t;
    assert_int_equal(gt_steps_build(&g.dist, &t), GT_OK);
    assert_true(gt_steps_size(&g.dist) == 6.0 * gt_loss_terms(0.2));
    for (size_t k = 0; k < t.n; k++) {
        double x = t.t[k], below = nextafter(x, -INFINITY);
        assert_true(k == 0 || t.t[k] > t.t[k - 1]);
        assert_true(fabs(t.lcdf[k] - gt_dist_logcdf(&g.dist, x)) < 1e-14);
        double lb = k ? t.lcdf[k - 1] : -INFINITY;
        double want = gt_dist_logcdf(&g.dist, below);
        assert_true(lb == want || fabs(lb - want) < 1e-14);
    }
    assert_true(gt_steps_logcdf(&t, 1e9) > -1e-15);
    gt_steps_free(&t);
    /* samples spread over many RTOs: the retries' runs of points
       interleave (merged, not sorted, since the runs are ascending), and
       one lands on another's point (5 ms at the fourth try, 5 + 700 ms
       later, on the sample 705: their weights add) */
    static const double wide[] = {5, 105, 150, 260, 420, 700, 705, 900, 1500};
    struct gt_partner_group h = lossy(emp(wide, 9, 1, 0), 0.3, 100);
    assert_int_equal(gt_steps_build(&h.dist, &t), GT_OK);
    assert_true((double)t.n < gt_steps_size(&h.dist));   /* repeats merged */
    for (size_t k = 0; k < t.n; k++) {
        assert_true(k == 0 || t.t[k] > t.t[k - 1]);
        assert_true(fabs(t.lcdf[k] - gt_dist_logcdf(&h.dist, t.t[k])) < 1e-13);
        double lb = k ? t.lcdf[k - 1] : -INFINITY;
        double want = gt_dist_logcdf(&h.dist, nextafter(t.t[k], -INFINITY));
        assert_true(lb == want || fabs(lb - want) < 1e-13);
    }
    /* the tail integral from below every point is the mean less x: the
       samples' mean plus the retries' sum_j w_j D_j; from beyond, 0;
       between, the mean less x plus the integral of F up to x */
    int terms = gt_loss_terms(0.3);
    double mean = 0, w = gt_loss_weight0(0.3, terms);
    for (int k = 0; k < 9; k++)
        mean += wide[k] / 9;
    for (int j = 0; j < terms; j++, w *= 0.3)
        mean += w * gt_loss_delay(100, j);
    assert_true(REL(gt_steps_tail(&t, 1), mean - 1) < 1e-13);
    assert_true(gt_steps_tail(&t, t.t[t.n - 1]) == 0);
    double x = 200, below = 0;   /* F up to 200: steps at 5, 105, 150 (and 105 = 5 + 100) */
    for (size_t k = 0; k + 1 < t.n && t.t[k] < x; k++)
        below += exp(t.lcdf[k]) * (fmin(t.t[k + 1], x) - t.t[k]);
    assert_true(REL(gt_steps_tail(&t, x), mean - x + below) < 1e-13);
    gt_steps_free(&t);
}

/* Every combination of one sample per partner member. */
struct combo {
    const struct gt_partner_group *g;
    size_t ng;
    size_t members;
    size_t idx[8];
    size_t of[8];    /* member -> group */
};

static bool combo_next(struct combo *c)
{
    for (size_t m = 0; m < c->members; m++) {
        if (++c->idx[m] < c->g[c->of[m]].dist.nx)
            return true;
        c->idx[m] = 0;
    }
    return false;
}

static void combo_init(struct combo *c, const struct gt_partner_group *g, size_t ng)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->ng = ng;
    for (size_t i = 0; i < ng; i++)
        for (double k = 0; k < g[i].count; k++)
            c->of[c->members++] = i;
}

static double member_value(const struct combo *c, size_t m)
{
    const struct gt_dist *d = &c->g[c->of[m]].dist;
    return d->xs[c->idx[m]] * d->p[0] + d->shift;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* E[max], its quantiles and the groups' shares by brute force. */
static void test_brute_force(void **state)
{
    (void)state;
    /* ties within and across partners, a group of two, a shift */
    static const double a[] = {20, 21, 21, 25, 60}, b[] = {19, 21, 33}, c[] = {15, 16, 17, 21};
    struct gt_partner_group g[] = {emp(a, 5, 1, 0), emp(b, 3, 2, 0), emp(c, 4, 1, 4)};
    static const double q[] = {0.1, 0.5, 0.9, 0.99};
    double qv[4], ps[3];
    struct gt_emax_result r;
    assert_int_equal(run_full(g, 3, q, 4, qv, ps, &r), GT_OK);
    assert_string_equal(r.method, "steps");
    struct combo cb;
    combo_init(&cb, g, 3);
    double sum = 0, hold[3] = {0}, maxes[5 * 3 * 3 * 4];
    size_t N = 0;
    do {
        double gm[3] = {-INFINITY, -INFINITY, -INFINITY}, mx = -INFINITY;
        for (size_t m = 0; m < cb.members; m++) {
            double v = member_value(&cb, m);
            gm[cb.of[m]] = fmax(gm[cb.of[m]], v);
            mx = fmax(mx, v);
        }
        for (int i = 0; i < 3; i++)
            hold[i] += gm[i] == mx;
        sum += mx;
        maxes[N++] = mx;
    } while (combo_next(&cb));
    assert_int_equal(N, 5 * 3 * 3 * 4);
    assert_true(REL(r.e_max, sum / (double)N) < 1e-14);
    qsort(maxes, N, sizeof *maxes, cmp_d);
    for (int k = 0; k < 4; k++) {   /* the smallest max value with P(max <= v) >= q */
        size_t i = 0;
        while ((double)(i + 1) / (double)N < q[k] - 1e-15)
            i++;
        assert_true(qv[k] == maxes[i]);
    }
    double total = 0;
    for (int i = 0; i < 3; i++) {
        assert_true(fabs(ps[i] - hold[i] / (double)N) < 1e-14);
        total += ps[i];
    }
    assert_true(total > 1);   /* ties count for every group in them */
}

/* E[max(x, Y)] for a Pareto Y, closed form. */
static double max_with_pareto(double x, double k, double alpha)
{
    if (x <= k)
        return k * alpha / (alpha - 1);
    return x + pow(k, alpha) * pow(x, 1 - alpha) / (alpha - 1);
}

static void test_mixed_with_parametric(void **state)
{
    (void)state;
    static const double a[] = {38, 40, 41, 47, 52, 70, 130};
    /* one empirical and one Pareto partner: a closed form per sample */
    struct gt_partner_group g[] = {emp(a, 7, 1, 0), param(&gt_model_pareto, 40, 2.5, 0)};
    double want = 0;
    for (int k = 0; k < 7; k++)
        want += max_with_pareto(a[k], 40, 2.5) / 7;
    const char *method;
    assert_true(REL(emax_of(g, 2, &method), want) < 1e-9);
    assert_string_equal(method, "integration");
    /* with a normal too: the mean over samples of the engine's point-mass
       path (no step tables there) */
    struct gt_partner_group h[] = {emp(a, 7, 2, 1), param(&gt_model_pareto, 40, 2.5, 0),
                                   param(&gt_model_normal, 45, 6, 0)};
    double ref = 0;
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++) {
            double top = fmax(a[i], a[j]) + 1;
            struct gt_partner_group d[] = {param(&gt_model_delta, top, 0, 0), h[1], h[2]};
            ref += emax_of(d, 3, NULL) / 49;
        }
    assert_true(REL(emax_of(h, 3, NULL), ref) < 1e-9);
    assert_true(REL(gt_emax_monte_carlo(h, 3, INFINITY, false, 400000, 5), ref) < 3e-3);
    /* shares against a normal: P(sample >= N) = mean of Phi((x - mu) / s) */
    struct gt_partner_group e2[] = {emp(a, 7, 1, 0), param(&gt_model_normal, 50, 8, 0)};
    double ps[2], pe = 0;
    struct gt_emax_result r;
    assert_int_equal(run_full(e2, 2, NULL, 0, NULL, ps, &r), GT_OK);
    for (int k = 0; k < 7; k++)
        pe += gsl_cdf_ugaussian_P((a[k] - 50) / 8) / 7;
    assert_true(fabs(ps[0] - pe) < 1e-9);
    assert_true(fabs(ps[1] - (1 - pe)) < 1e-8);
    /* a quantile solves G(x) = q where G is continuous there */
    double q[] = {0.95}, qv[1];
    assert_int_equal(run_full(e2, 2, q, 1, qv, NULL, &r), GT_OK);
    double G = gt_dist_cdf(&e2[0].dist, qv[0]) * gt_dist_cdf(&e2[1].dist, qv[0]);
    double Gb = gt_dist_cdf(&e2[0].dist, nextafter(qv[0], 0)) *
                gt_dist_cdf(&e2[1].dist, nextafter(qv[0], 0));
    assert_true(G >= 0.95 - 1e-12 && Gb < 0.95 + 1e-12);
}

/* With loss: the direct sum over retry counts of loss-free answers. */
static void test_lossy_empirical(void **state)
{
    (void)state;
    static const double a[] = {30, 31, 35, 80};
    double p = 0.1, rto = 200;
    struct gt_partner_group g[] = {lossy(emp(a, 4, 1, 0), p, rto),
                                   param(&gt_model_normal, 40, 4, 0)};
    double ref = 0;
    int terms = gt_loss_terms(p);
    double w = gt_loss_weight0(p, terms);
    for (int j = 0; j < terms; j++, w *= p) {
        struct gt_partner_group h[] = {emp(a, 4, 1, gt_loss_delay(rto, j)), g[1]};
        ref += w * emax_of(h, 2, NULL);
    }
    assert_true(REL(emax_of(g, 2, NULL), ref) < 1e-9);
    /* every partner a step CDF: lossy empirical and lossy point mass */
    struct gt_partner_group s[] = {lossy(emp(a, 4, 1, 0), p, rto),
                                   lossy(param(&gt_model_delta, 33, 0, 0), 0.05, rto)};
    const char *method;
    double e = emax_of(s, 2, &method);
    assert_string_equal(method, "steps");
    double ref2 = 0, wa = gt_loss_weight0(p, terms);
    int t2 = gt_loss_terms(0.05);
    for (int j = 0; j < terms; j++, wa *= p) {
        double wb = gt_loss_weight0(0.05, t2);
        for (int l = 0; l < t2; l++, wb *= 0.05)
            for (int k = 0; k < 4; k++)
                ref2 += wa * wb / 4 *
                        fmax(a[k] + gt_loss_delay(rto, j), 33 + gt_loss_delay(rto, l));
    }
    assert_true(REL(e, ref2) < 1e-12);
    assert_true(REL(gt_emax_monte_carlo(s, 2, INFINITY, false, 400000, 3), e) < 3e-3);
}

/* A steep lossy Pareto, a loss-free one and 120 samples (a placement's
 * set on the demo store): the direct sum over retry counts of loss-free
 * answers, each integrated interval by interval between the samples. */
static void test_lossy_steep_with_samples(void **state)
{
    (void)state;
    double xs[120], p = 1.0 / 120, rto = 200;
    for (int i = 0; i < 120; i++)   /* ascending, 7.2 .. ~16 ms, a long upper tail */
        xs[i] = 7.2 + 0.02 * i + (i > 100 ? 0.4 * (i - 100) : 0);
    struct gt_partner_group g[] = {lossy(param(&gt_model_pareto, 2.971, 49.87771410809823, 0),
                                         p, rto),
                                   param(&gt_model_pareto, 6.521, 40.67201613103729, 0),
                                   emp(xs, 120, 1, 0)};
    int terms = gt_loss_terms(p);
    double ref = 0, w = gt_loss_weight0(p, terms);
    for (int j = 0; j < terms; j++, w *= p) {
        struct gt_partner_group h[] = {param(&gt_model_pareto, 2.971, 49.87771410809823,
                                             gt_loss_delay(rto, j)), g[1], g[2]};
        ref += w * emax_of(h, 3, NULL);
    }
    double e = emax_of(g, 3, NULL);
    assert_true(REL(e, ref) < 1e-9);
}

/* Shares by hand: samples above a normal's bulk, so the max starts at
 * the lowest sample (the fit's range starts there, and its value there
 * was taken as outside: the sample's share 1 - Phi(1) = 4 % too much);
 * and a Pareto shifted far beyond samples, the max almost surely
 * (its climb under x's rounding made the fit fail: shares 1.001). */
static void test_shares_by_hand(void **state)
{
    (void)state;
    static const double xs[] = {300, 310, 320, 330}, low[] = {2, 30, 60, 102};
    struct gt_partner_group g[] = {emp(xs, 4, 1, 0), param(&gt_model_normal, 290, 10, 0)};
    double ps[2], want = 0;
    struct gt_emax_result r;
    assert_int_equal(run_full(g, 2, NULL, 0, NULL, ps, &r), GT_OK);
    for (int k = 0; k < 4; k++)   /* P(the max is sample k) = Phi((x_k - 290) / 10) / 4 */
        want += 0.25 * 0.5 * erfc(-(xs[k] - 290) / 10 * M_SQRT1_2);
    assert_true(fabs(ps[0] - want) < 1e-10);
    assert_true(fabs(ps[0] + ps[1] - 1) < 1e-10);
    for (double shift = 1e3; shift <= 1e6; shift *= 10) {
        struct gt_partner_group h[] = {param(&gt_model_pareto, 6.44291, 48.2649, shift),
                                       emp(low, 4, 1, 0)};
        assert_int_equal(run_full(h, 2, NULL, 0, NULL, ps, &r), GT_OK);
        assert_true(fabs(ps[0] - 1) < 1e-9 && ps[1] == 0);
        assert_true(REL(r.e_max, shift + 6.44291 * 48.2649 / 47.2649) < 1e-12);
    }
}

/* A point mass without loss among lossy partners holds the max when
 * every other is at or below it: its share was 0 before. */
static void test_point_mass_share(void **state)
{
    (void)state;
    struct gt_partner_group g[] = {param(&gt_model_delta, 48, 0, 0),
                                   lossy(param(&gt_model_normal, 45, 3, 0), 0.1, 200)};
    double ps[2];
    struct gt_emax_result r;
    assert_int_equal(run_full(g, 2, NULL, 0, NULL, ps, &r), GT_OK);
    double want = gt_dist_cdf(&g[1].dist, 48);
    assert_true(fabs(ps[0] - want) < 1e-12);
    assert_true(fabs(ps[0] + ps[1] - 1) < 1e-6);
}

static void test_limits(void **state)
{
    (void)state;
    size_t n = GT_EMP_MAX_SAMPLES;
    double *xs = malloc(n * sizeof *xs);
    assert_non_null(xs);
    for (size_t k = 0; k < n; k++)
        xs[k] = 10 + (double)k * 1e-3;
    /* one partner of the largest window: 2^20 points, allowed */
    struct gt_partner_group g[] = {emp(xs, n, 1, 0), emp(xs, n, 1, 0), emp(xs, n, 1, 0)};
    struct gt_emax_result r;
    struct gt_emax_opts o = {INFINITY, false, NULL, 0, false, false, NULL, 0, NULL, false, false};
    struct gt_error err = {0};
    assert_int_equal(gt_emax(g, 1, &o, &r, &err), GT_OK);
    assert_true(REL(r.e_max, 10 + (double)(n - 1) * 1e-3 / 2) < 1e-12);
    /* three of them are more points than a call may table */
    assert_int_equal(gt_emax(g, 3, &o, &r, &err), GT_EINPUT);
    assert_non_null(strstr(err.msg, "more than"));
    g[0].dist.nx = n + 1;
    assert_int_equal(gt_emax(g, 1, &o, &r, &err), GT_EINPUT);
    free(xs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_cdf),
        cmocka_unit_test(test_step_table),
        cmocka_unit_test(test_brute_force),
        cmocka_unit_test(test_mixed_with_parametric),
        cmocka_unit_test(test_lossy_empirical),
        cmocka_unit_test(test_lossy_steep_with_samples),
        cmocka_unit_test(test_shares_by_hand),
        cmocka_unit_test(test_point_mass_share),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
