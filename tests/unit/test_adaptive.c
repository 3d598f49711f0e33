/* test_adaptive.c - adaptive's live choice (adaptive.h) on series whose
 * errors are worked by hand.  One probe a minute, window m = 8, a
 * horizon of 120 s (lead tau = 2 samples), the last H = 50 moments.  A
 * forecast at moment t is made from the samples t - m .. t - 1 and scored
 * against the sample at t + tau (METHOD.md section 6), so:
 *  - on a ramp rising d a sample, `last` (the sample at t - 1) is off by
 *    d (tau + 1), the window's mean (normal) by d ((m - 1) / 2 + tau + 1):
 *    last is chosen, with those RMSEs;
 *  - on 90, 110, 90, ... (m even: every window four of each, mean 100),
 *    `last` is off by 20 every time (t - 1 and t + 2 are three samples
 *    apart), the mean by 10: normal is chosen (empirical's mean is the
 *    same, and ties go to the first candidate); pareto's mean is off by
 *    unequal amounts up and down, so over an even number of moments (as
 *    many 90s as 110s) its RMSE is above 10.
 * Then the fit cache: a saved replay is read back at the same anchor,
 * and replayed when the anchor moves, the query is earlier, or the
 * collective is not the root's whole one. */
#include "testutil.h"
#include "advisor/adaptive.h"
#include "advisor/backtest.h"

#define T0 1795305600
#define IV 60
#define N 200
#define M 8
#define TAU 2
#define H 50

enum { PARETO, NORMAL, LAST, EMPIRICAL };

struct store {
    char *dir;
    struct gt_db *db;
};

/* root r with partners p1 (f1) and, when f2, p2; samples 0..n-1. */
static void write_csv(const char *csv, double (*f1)(int), double (*f2)(int), int from, int n)
{
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "ts,src,dst,rtt_ms\n");
    for (int i = from; i < n; i++) {
        fprintf(f, "%lld,r,p1,%.17g\n", (long long)T0 + IV * i, f1(i));
        if (f2)
            fprintf(f, "%lld,r,p2,%.17g\n", (long long)T0 + IV * i, f2(i));
    }
    fclose(f);
}

static void make_store(struct store *s, double (*f1)(int), double (*f2)(int))
{
    s->dir = tmpdir_new();
    char path[256], csv[256];
    snprintf(path, sizeof path, "%s/a.db", s->dir);
    snprintf(csv, sizeof csv, "%s/in.csv", s->dir);
    write_csv(csv, f1, f2, 0, N);
    struct gt_error err = {0};
    assert_int_equal(gt_db_open(path, GT_DB_CREATE, 1000, &s->db, &err), GT_OK);
    ingest_csv(s->db, csv);
}

static void free_store(struct store *s)
{
    gt_db_close(s->db);
    tmpdir_free(s->dir);
}

#define D 0.1
static double ramp(int i)
{
    return 100 + D * i;
}

static double alternating(int i)
{
    return i % 2 ? 110 : 90;
}

static double low(int i)
{
    (void)i;
    return 20;
}

static struct gt_adapt_opts opts(void)
{
    struct gt_adapt_opts o = {0};
    o.window = M;
    o.horizon_s = TAU * IV;
    o.outcomes = H;
    o.at = INT64_MAX;
    return o;
}

static void replay(struct store *s, const struct gt_adapt_opts *o, struct gt_adapt *a)
{
    struct gt_error err = {0};
    assert_int_equal(gt_adapt_replay(s->db, "r", o, a, &err), GT_OK);
    assert_false(a->cached);
}

static void test_ramp_picks_last(void **state)
{
    (void)state;
    struct store s;
    make_store(&s, ramp, NULL);
    struct gt_adapt_opts o = opts();
    struct gt_adapt a;
    replay(&s, &o, &a);
    assert_int_equal(a.lead, TAU);
    assert_int_equal(a.interval, IV);
    assert_int_equal(a.anchor, T0 + IV * (N - 1));
    assert_int_equal(a.of_outcomes, H);
    assert_int_equal(a.outcomes, H);
    assert_int_equal(a.chosen, LAST);
    assert_string_equal(gt_adapt_name(a.chosen), "last");
    assert_int_equal(a.left_out, 0);
    assert_true(fabs(a.rmse[LAST] - D * (TAU + 1)) < 1e-9);
    assert_true(fabs(a.rmse[NORMAL] - D * ((M - 1) / 2.0 + TAU + 1)) < 1e-9);
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        assert_true(j == LAST || a.rmse[j] > a.rmse[LAST] + D);
    assert_true(isnan(a.rmse_combined));   /* not combined */
    /* asked at an earlier time: the anchor is that time, the outcomes
       still H */
    o.at = T0 + IV * 120;
    replay(&s, &o, &a);
    assert_int_equal(a.anchor, T0 + IV * 120);
    assert_int_equal(a.outcomes, H);
    assert_int_equal(a.chosen, LAST);
    /* a longer horizon: tau = 5, last off by 6 d */
    o.horizon_s = 5 * IV;
    replay(&s, &o, &a);
    assert_int_equal(a.lead, 5);
    assert_true(fabs(a.rmse[LAST] - D * 6) < 1e-9);
    assert_int_equal(a.chosen, LAST);
    free_store(&s);
}

static void test_alternating_picks_normal(void **state)
{
    (void)state;
    struct store s;
    make_store(&s, alternating, NULL);
    struct gt_adapt_opts o = opts();
    struct gt_adapt a;
    replay(&s, &o, &a);
    assert_int_equal(a.outcomes, H);
    assert_true(fabs(a.rmse[NORMAL] - 10) < 1e-9);
    assert_true(fabs(a.rmse[LAST] - 20) < 1e-9);
    assert_true(fabs(a.rmse[EMPIRICAL] - 10) < 1e-9);
    assert_true(a.rmse[PARETO] > 10);
    assert_int_equal(a.chosen, NORMAL);
    assert_string_equal(gt_adapt_name(a.chosen), "normal");
    free_store(&s);
    /* a second partner always below the first: the collective's max is
       the first's sample, and the choice the same */
    make_store(&s, alternating, low);
    replay(&s, &o, &a);
    assert_true(fabs(a.rmse[LAST] - 20) < 1e-9);
    assert_true(fabs(a.rmse[NORMAL] - 10) < 1e-6);
    assert_int_equal(a.chosen, NORMAL);
    /* only the low partner named: every method exact, the first wins */
    const char *sites[] = {"p2"};
    o.sites = sites, o.nsites = 1;
    replay(&s, &o, &a);
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        assert_true(a.rmse[j] < 1e-9);
    assert_int_equal(a.chosen, PARETO);
    free_store(&s);
}

/* combined: the weights of the candidates kept sum to 1, none negative;
 * on the ramp every forecast lags, so every error has one sign (last's,
 * normal's and empirical's are constants), last's the smallest, and all
 * the weight goes to last. */
static void test_combine(void **state)
{
    (void)state;
    struct store s;
    make_store(&s, ramp, NULL);
    struct gt_adapt_opts o = opts();
    o.combine = true;
    struct gt_adapt a;
    replay(&s, &o, &a);
    /* combined's H: at least 16 leads (32), here the 50 asked */
    assert_int_equal(a.of_outcomes, H);
    double sum = 0;
    for (int j = 0; j < GT_ADAPT_NCAND; j++) {
        assert_false(isnan(a.weight[j]));
        assert_true(a.weight[j] >= 0);
        sum += a.weight[j];
    }
    assert_true(fabs(sum - 1) < 1e-12);
    /* by hand, in magnitudes: minimizing (1 - l) (w.e)^2 + l sum w_j^2
       e_j^2 over the simplex, with every e_j of one sign and |e_last| =
       0.3 the smallest (normal's 0.65, pareto's about as much), the
       vertex w_last = 1 is optimal while each other gradient 2 (1 - l)
       0.3 |e_j| passes last's 0.18, that is for l < 1 - 0.3 / 0.65 =
       0.54; l = max(shrink, 4 / 50) */
    assert_true(GT_BT_SHRINK < 0.5);
    assert_true(fabs(a.weight[LAST] - 1) < 1e-9);
    assert_int_equal(a.chosen, LAST);
    /* the combination's own error at each moment is a mean of errors of
       one sign, the smallest 0.3: its RMSE is no less */
    assert_false(isnan(a.rmse_combined));
    assert_true(a.rmse_combined >= D * (TAU + 1) - 1e-9);
    free_store(&s);
}

static void save(struct store *s, const struct gt_adapt_opts *o, const struct gt_adapt *a)
{
    struct gt_error err = {0};
    assert_int_equal(gt_db_begin(s->db, &err), GT_OK);
    assert_int_equal(gt_adapt_save(s->db, "r", o, a, &err), GT_OK);
    assert_int_equal(gt_db_commit(s->db, &err), GT_OK);
}

static void test_cache(void **state)
{
    (void)state;
    struct store s;
    make_store(&s, alternating, low);
    struct gt_adapt_opts o = opts();
    struct gt_adapt a, b;
    struct gt_error err = {0};
    assert_int_equal(gt_adapt_track(s.db, "r", &o, &b, &err), GT_OK);
    assert_false(b.cached);   /* nothing kept yet */
    replay(&s, &o, &a);
    save(&s, &o, &a);
    assert_int_equal(gt_adapt_track(s.db, "r", &o, &b, &err), GT_OK);
    assert_true(b.cached);
    assert_int_equal(b.chosen, NORMAL);
    assert_int_equal(b.outcomes, a.outcomes);
    assert_int_equal(b.lead, TAU);
    assert_int_equal(b.anchor, a.anchor);
    assert_true(fabs(b.rmse[LAST] - 20) < 1e-9);
    /* another horizon is another key: replayed */
    o.horizon_s = 3 * IV;
    assert_int_equal(gt_adapt_track(s.db, "r", &o, &b, &err), GT_OK);
    assert_false(b.cached);
    o.horizon_s = TAU * IV;
    /* asked before the newest sample: another anchor, replayed */
    o.at = T0 + IV * 150;
    assert_int_equal(gt_adapt_track(s.db, "r", &o, &b, &err), GT_OK);
    assert_false(b.cached);
    assert_int_equal(b.anchor, T0 + IV * 150);
    o.at = INT64_MAX;
    /* one partner named: not the whole collective, replayed; and a
       named collective is not saved */
    const char *sites[] = {"p1"};
    o.sites = sites, o.nsites = 1;
    assert_int_equal(gt_adapt_track(s.db, "r", &o, &b, &err), GT_OK);
    assert_false(b.cached);
    o.sites = NULL, o.nsites = 0;
    /* a newer sample: the anchor moves, replayed, 20 ms, 60 s on */
    char csv[256];
    snprintf(csv, sizeof csv, "%s/more.csv", s.dir);
    write_csv(csv, alternating, low, N, N + 1);
    ingest_csv(s.db, csv);
    assert_int_equal(gt_adapt_track(s.db, "r", &o, &b, &err), GT_OK);
    assert_false(b.cached);
    assert_int_equal(b.anchor, T0 + IV * N);
    assert_int_equal(b.chosen, NORMAL);
    /* saved again, read again */
    save(&s, &o, &b);
    assert_int_equal(gt_adapt_track(s.db, "r", &o, &a, &err), GT_OK);
    assert_true(a.cached);
    assert_int_equal(a.anchor, T0 + IV * N);
    free_store(&s);
}

/* An unknown root is no error: nothing chosen; options out of range are
 * a usage error. */
static void test_none_and_bounds(void **state)
{
    (void)state;
    struct store s;
    make_store(&s, ramp, NULL);
    struct gt_adapt_opts o = opts();
    struct gt_adapt a;
    struct gt_error err = {0};
    assert_int_equal(gt_adapt_track(s.db, "nowhere", &o, &a, &err), GT_OK);
    assert_int_equal(a.chosen, -1);
    assert_int_equal(a.outcomes, 0);
    assert_true(a.anchor == INT64_MIN);
    assert_string_equal(gt_adapt_name(-1), "none");
    struct gt_adapt_opts bad[4] = {opts(), opts(), opts(), opts()};
    bad[0].horizon_s = 0;
    bad[1].outcomes = 0;
    bad[2].outcomes = GT_ADAPT_MAX_OUTCOMES + 1;
    bad[3].window = 1;
    for (int i = 0; i < 4; i++) {
        gt_error_clear(&err);
        assert_int_equal(gt_adapt_replay(s.db, "r", &bad[i], &a, &err), GT_EUSAGE);
    }
    free_store(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ramp_picks_last),
        cmocka_unit_test(test_alternating_picks_normal),
        cmocka_unit_test(test_combine),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_none_and_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
