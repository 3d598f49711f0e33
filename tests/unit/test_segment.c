/* test_segment.c - the offline segmentation (estimators/segment.h) by
 * hand and against two references computed another way
 * (tests/ref/pelt.h): PELT without a minimum length (the yardstick of the
 * online detector, written before) and optimal partitioning, every last
 * change tried at every sample with the sums taken afresh, O(n^3).
 *
 * By hand: 100 ms with +-0.1 % noise, 120 ms from sample 100, 90 ms from
 * 180: the changes are 100 and 180 exactly, whatever the penalty from 2
 * to 800 ln n; a spike of 1, 2 or 3 samples, however tall, is never a
 * segment with min_len 4 (it is one with min_len 1 and BIC's penalty,
 * where the winsorizing at 3 sigma leaves it a step of 3 sigma). */
#include "testutil.h"
#include "estimators/segment.h"
#include "tests/ref/pelt.h"
#include "base/error.h"

static double noisy(double level, long i)
{
    return level * (1 + (i % 2 ? 0.001 : -0.001));
}

static void test_hand(void **state)
{
    (void)state;
    enum { N = 300 };
    double x[N];
    size_t at[N], k;
    for (long i = 0; i < N; i++)
        x[i] = noisy(i < 100 ? 100 : i < 180 ? 120 : 90, i);
    x[30] = 500;           /* a spike of one sample */
    x[140] = NAN;          /* a lost probe, and one answered 0 */
    x[141] = 0;
    for (int p = 0; p < 3; p++) {
        struct gt_seg_opts o = {p == 0 ? 2 : p == 1 ? 10 : 800, 4};
        assert_int_equal(gt_segment(x, N, &o, at, &k), GT_OK);
        assert_int_equal(k, 2);
        assert_int_equal(at[0], 100);
        assert_int_equal(at[1], 180);
    }
    /* the defaults are 800 ln n and 4 */
    assert_int_equal(gt_segment(x, N, NULL, at, &k), GT_OK);
    assert_int_equal(k, 2);
    assert_true(gt_seg_defaults.penalty == 800 && gt_seg_defaults.min_len == 4);
    /* too few samples for two segments: none; options out of range */
    assert_int_equal(gt_segment(x, 7, NULL, at, &k), GT_OK);
    assert_int_equal(k, 0);
    assert_int_equal(gt_segment(x, N, &(struct gt_seg_opts){0, 4}, at, &k), GT_EUSAGE);
    assert_int_equal(gt_segment(x, N, &(struct gt_seg_opts){NAN, 4}, at, &k), GT_EUSAGE);
    assert_int_equal(gt_segment(x, N, &(struct gt_seg_opts){8, 0}, at, &k), GT_EUSAGE);
    assert_int_equal(gt_segment(x, N, &(struct gt_seg_opts){8, 1001}, at, &k), GT_EUSAGE);
    /* a constant path of 200,000 samples has no change */
    enum { M = 200000 };
    static double c[M];
    static size_t cat[M];
    for (long i = 0; i < M; i++)
        c[i] = 83;
    assert_int_equal(gt_segment(c, M, NULL, cat, &k), GT_OK);
    assert_int_equal(k, 0);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static double uniform(void)
{
    return test_uniform(&rng_state);
}

static double gauss(void)
{
    double u1 = uniform(), u2 = uniform();
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* Spikes of 1, 2 and 3 samples of 1.5 to 20 times the level on a noisy
 * flat path: no change with min_len 4 and BIC's penalty (2 ln n) or the
 * default; with min_len 1 and BIC's, some spike is cut out. */
static void test_spikes(void **state)
{
    (void)state;
    enum { N = 2000 };
    static double x[N];
    static size_t at[N];
    size_t k, cut = 0, bic4 = 0, ten4 = 0;
    for (int draw = 0; draw < 20; draw++) {
        for (long i = 0; i < N; i++)
            x[i] = 50 * exp(0.003 * gauss());
        for (long s = 100; s + 3 < N; s += 60 + (long)(60 * uniform())) {
            long len = 1 + (long)(3 * uniform());
            double f = 1.5 + 18.5 * uniform();
            for (long i = s; i < s + len; i++)
                x[i] *= f;
        }
        assert_int_equal(gt_segment(x, N, &(struct gt_seg_opts){2, 4}, at, &k), GT_OK);
        bic4 += k;
        assert_int_equal(gt_segment(x, N, &(struct gt_seg_opts){10, 4}, at, &k), GT_OK);
        ten4 += k;
        assert_int_equal(gt_segment(x, N, NULL, at, &k), GT_OK);
        assert_int_equal(k, 0);
        assert_int_equal(gt_segment(x, N, &(struct gt_seg_opts){2, 1}, at, &k), GT_OK);
        cut += k;
    }
    print_message("cuts at spikes: min_len 1, 2 ln n: %zu; min_len 4, 2 ln n: %zu; 10 ln n: %zu\n",
                  cut, bic4, ten4);
    assert_true(cut > 0);
}

/* A random path: shifts of 1 to 30 % lasting 5 to 300 samples, lognormal
 * noise of 0.2 to 2 %, spikes of 1 to 3 samples, 1 % lost. */
static void random_path(double *x, long n)
{
    double level = 20 + 180 * uniform(), shift = 0, noise = 0.002 * pow(10, uniform());
    long next = 20 + (long)(100 * uniform()), spike = 0;
    for (long i = 0; i < n; i++) {
        if (i == next) {
            shift = shift != 0 ? 0 : 0.01 * pow(30, uniform()) * (uniform() < 0.5 ? -1 : 1);
            next = i + 5 + (long)(295 * uniform());
        }
        x[i] = level * (1 + shift) * exp(noise * gauss());
        if (spike == 0 && uniform() < 0.005)
            spike = 1 + (long)(3 * uniform());
        if (spike > 0) {
            x[i] *= 3;
            spike--;
        }
        if (uniform() < 0.01)
            x[i] = NAN;
    }
}

static void assert_same(const size_t *a, size_t na, const long *b, long nb)
{
    assert_int_equal((long)na, nb);
    for (long i = 0; i < nb; i++)
        assert_int_equal((long)a[i], b[i]);
}

/* min_len 1: the same changes as the reference PELT, for penalties from
 * BIC's to the default; on paths of 3,000 samples. */
static void test_against_pelt(void **state)
{
    (void)state;
    enum { N = 3000 };
    static double x[N];
    static size_t at[N];
    static long ref[N];
    size_t k, total = 0;
    const double pen[] = {2, 10, 100, 800};
    for (int draw = 0; draw < 10; draw++) {
        random_path(x, N);
        for (int p = 0; p < 4; p++) {
            assert_int_equal(gt_segment(x, N, &(struct gt_seg_opts){pen[p], 1}, at, &k), GT_OK);
            assert_same(at, k, ref, gt_pelt(x, N, pen[p], ref));
            total += k;
        }
    }
    print_message("%zu changes, as the reference PELT\n", total);
    assert_true(total > 100);
}

/* min_len 2 to 8: the same changes as optimal partitioning (which knows
 * nothing of pruning nor of the candidates' cap); on paths of 600. */
static void test_against_optpart(void **state)
{
    (void)state;
    enum { N = 600 };
    static double x[N];
    static size_t at[N];
    static long ref[N];
    size_t k, total = 0;
    for (int draw = 0; draw < 12; draw++) {
        random_path(x, N);
        size_t len = 2 + (size_t)draw % 7;
        double pen = draw % 3 == 0 ? 2 : draw % 3 == 1 ? 20 : 800;
        assert_int_equal(gt_segment(x, N, &(struct gt_seg_opts){pen, (int)len}, at, &k), GT_OK);
        assert_same(at, k, ref, gt_optpart(x, N, pen, len, ref));
        total += k;
    }
    print_message("%zu changes, as optimal partitioning\n", total);
    assert_true(total > 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand),
        cmocka_unit_test(test_spikes),
        cmocka_unit_test(test_against_pelt),
        cmocka_unit_test(test_against_optpart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
