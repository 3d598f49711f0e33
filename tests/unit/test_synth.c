/*
 * test_synth.c - the synthetic RTT generator against values worked out
 * another way: distances by the spherical law of cosines and a hand-worked
 * case, the Lomax tail index by its maximum-likelihood estimate, loss and
 * burst rates, exact outage and route-change lengths, the diurnal ratio,
 * reproducibility, and the sites file's errors.
 */
#include "testutil.h"
#include "collectors/synth.h"

/* One pair's series out of a run. */
struct series {
    const char *src, *dst;
    double *x;
    long n, cap;
    long total;   /* every pair's samples */
};

static int keep(void *ctx, const struct gt_sample *s)
{
    struct series *se = ctx;
    se->total++;
    if (strcmp(s->src, se->src) || strcmp(s->dst, se->dst))
        return GT_OK;
    assert_true(se->n < se->cap);
    se->x[se->n++] = s->rtt_ms;
    return GT_OK;
}

static const struct gt_synth_site two[] = {
    {"A", NULL, NULL, 0.0, 0.0},
    {"B", NULL, NULL, 0.0, 90.0},
};

/* Parameters with every random effect off: rtt = base exactly. */
static void quiet_params(struct gt_synth_params *p, long samples)
{
    gt_synth_defaults(p);
    p->samples = samples;
    p->jitter = 0;
    p->diurnal = 0;
    p->shift_per_day = 0;
    p->spike_prob = 0;
    p->loss = 0;
    p->burst_prob = 0;
    p->outage_per_day = 0;
}

static void run_pair(const struct gt_synth_params *p, const struct gt_synth_site *sites,
                     size_t n, struct series *se)
{
    se->cap = p->samples;
    se->x = calloc((size_t)se->cap, sizeof *se->x);
    se->n = se->total = 0;
    struct gt_sink sink = {se, keep, NULL, NULL};
    struct gt_error err = {0};
    assert_int_equal(gt_synth_run(p, sites, n, &sink, NULL, NULL, &err), GT_OK);
    assert_int_equal(se->n, p->samples);
}

static void test_distance_and_base(void **state)
{
    (void)state;
    /* a quarter of a great circle: pi/2 x 6371 km */
    assert_true(fabs(gt_synth_distance_km(&two[0], &two[1]) - 10007.5431) < 1e-3);
    size_t n;
    const struct gt_synth_site *s = gt_synth_preset(&n);
    assert_true(n >= 20 && n <= 30);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double la = s[i].lat * M_PI / 180, lb = s[j].lat * M_PI / 180;
            double dl = (s[j].lon - s[i].lon) * M_PI / 180;
            double c = sin(la) * sin(lb) + cos(la) * cos(lb) * cos(dl);
            double cosines = 6371.0 * acos(c > 1 ? 1 : c < -1 ? -1 : c);
            assert_true(fabs(gt_synth_distance_km(&s[i], &s[j]) - cosines) < 1e-3);
        }
    struct gt_synth_params p;
    quiet_params(&p, 50);
    p.access_ms = 0;
    assert_true(fabs(gt_synth_base_ms(&p, &two[0], &two[1]) -
                     2 * 10007.5431 * 1.5 / 200) < 1e-4);
    p.access_ms = 1;
    struct series se = {"B", "A", 0, 0, 0, 0};
    run_pair(&p, two, 2, &se);
    double base = gt_synth_base_ms(&p, &two[1], &two[0]);
    assert_true(base > 150.0937 + 1.0 - 1e-9 && base < 150.0937 + 3.0);
    for (long i = 0; i < se.n; i++)
        assert_true(se.x[i] == base);
    assert_int_equal(se.total, 2 * 50);
    free(se.x);
}

static void test_tail_index(void **state)
{
    (void)state;
    struct gt_synth_params p;
    quiet_params(&p, 200000);
    p.jitter = 0.1;
    p.alpha_min = p.alpha_max = 2.5;
    p.max_queue_ms = 60000;
    struct series se = {"A", "B", 0, 0, 0, 0};
    run_pair(&p, two, 2, &se);
    double base = gt_synth_base_ms(&p, &two[0], &two[1]), s = 0.1 * base, sum = 0;
    for (long i = 0; i < se.n; i++)
        sum += log1p((se.x[i] - base) / s);
    double alpha = (double)se.n / sum;   /* Lomax MLE with known scale */
    assert_true(fabs(alpha - 2.5) < 0.03);
    free(se.x);
}

static int count_lost(void *ctx, const struct gt_sample *s)
{
    long *c = ctx;
    c[0] += isnan(s->rtt_ms);
    c[1]++;
    return GT_OK;
}

static void test_loss_and_bursts(void **state)
{
    (void)state;
    size_t n;
    const struct gt_synth_site *sites = gt_synth_preset(&n);
    struct gt_synth_params p;
    quiet_params(&p, 2000);
    p.loss = 0.02;
    /* mean loss over all pairs: E[min(0.5, 0.02 E)] = 0.02 (1 - e^-25) */
    long c[2] = {0, 0};   /* lost, all */
    struct gt_sink sink = {c, count_lost, NULL, NULL};
    struct gt_error err = {0};
    assert_int_equal(gt_synth_run(&p, sites, n, &sink, NULL, NULL, &err), GT_OK);
    assert_int_equal(c[1], (long)(n * (n - 1)) * 2000);
    double rate = (double)c[0] / (double)c[1];
    assert_true(fabs(rate - 0.02) < 0.003);

    /* bursts only: runs of losses with a geometric length of mean 5 */
    quiet_params(&p, 200000);
    p.burst_prob = 0.005;
    p.burst_len = 5;
    struct series se = {"A", "B", 0, 0, 0, 0};
    run_pair(&p, two, 2, &se);
    long runs = 0, lost = 0;
    for (long i = 0; i < se.n; i++) {
        if (isnan(se.x[i])) {
            lost++;
            runs += i == 0 || !isnan(se.x[i - 1]);
        }
    }
    double mean = (double)lost / (double)runs;
    assert_true(runs > 500);
    assert_true(mean > 4.5 && mean < 5.6);
    free(se.x);
}

/* Runs of lost (or shifted) samples: every run but a last one cut by the
 * end of the series lasts len samples, or a multiple when one event began
 * right as the previous ended. */
static long runs_of_length(const double *x, long n, double base, bool lost, long len)
{
    long runs = 0, i = 0;
    while (i < n) {
        bool in = lost ? isnan(x[i]) : x[i] > base;
        if (!in) {
            i++;
            continue;
        }
        long j = i;
        while (j < n && (lost ? isnan(x[j]) : x[j] > base))
            j++;
        if (j < n)
            assert_int_equal((j - i) % len, 0);
        runs++;
        i = j;
    }
    return runs;
}

static void test_outages_and_shifts(void **state)
{
    (void)state;
    struct gt_synth_params p;
    quiet_params(&p, 100000);
    p.outage_per_day = 24;
    p.outage_min_s = p.outage_max_s = 600;   /* exactly 10 samples */
    struct series se = {"A", "B", 0, 0, 0, 0};
    run_pair(&p, two, 2, &se);
    double base = gt_synth_base_ms(&p, &two[0], &two[1]);
    long runs = runs_of_length(se.x, se.n, base, true, 10);
    /* starts: 1/60 per sample while not in an outage (~ 100000/70) */
    assert_true(runs > 1200 && runs < 1650);
    free(se.x);

    quiet_params(&p, 100000);
    p.shift_per_day = 24;
    p.shift_min_s = p.shift_max_s = 3600;    /* exactly 60 samples */
    p.shift_size = 0.3;
    run_pair(&p, two, 2, &se);
    runs = runs_of_length(se.x, se.n, base, false, 60);
    assert_true(runs > 600 && runs < 1000);
    for (long i = 0; i < se.n; i++)   /* size in [0.15, 0.45] x base */
        assert_true(se.x[i] == base ||
                    (se.x[i] >= base * 1.15 - 1e-9 && se.x[i] <= base * 1.45 + 1e-9));
    free(se.x);
}

static void test_diurnal(void **state)
{
    (void)state;
    struct gt_synth_params p;
    quiet_params(&p, 60 * 24 * 60);   /* 60 days */
    p.jitter = 0.1;
    p.alpha_min = p.alpha_max = 4;
    p.diurnal = 1.0;
    p.start = 1793491200;             /* a midnight UTC */
    struct series se = {"A", "B", 0, 0, 0, 0};   /* A at longitude 0 */
    run_pair(&p, two, 2, &se);
    double base = gt_synth_base_ms(&p, &two[0], &two[1]), peak = 0, trough = 0;
    long np = 0, nt = 0;
    for (long i = 0; i < se.n; i++) {
        int minute = (int)(i % 1440);
        if (minute >= 16 * 60 - 30 && minute < 16 * 60 + 30) {
            peak += se.x[i] - base;
            np++;
        } else if (minute >= 4 * 60 - 30 && minute < 4 * 60 + 30) {
            trough += se.x[i] - base;
            nt++;
        }
    }
    double ratio = (peak / (double)np) / (trough / (double)nt);
    assert_true(ratio > 1.9 && ratio < 2.1);   /* load 2 against 1 */
    free(se.x);
}

static void test_reproducible(void **state)
{
    (void)state;
    size_t n;
    const struct gt_synth_site *sites = gt_synth_preset(&n);
    struct gt_synth_params p;
    gt_synth_defaults(&p);
    p.samples = 3000;
    struct series a = {"CERN", "FNAL", 0, 0, 0, 0}, b = a, c = a;
    run_pair(&p, sites, 3, &a);
    run_pair(&p, sites, n, &b);       /* with every other site too */
    assert_memory_equal(a.x, b.x, sizeof(double) * 3000);
    p.seed = 2;
    run_pair(&p, sites, 3, &c);
    assert_memory_not_equal(a.x, c.x, sizeof(double) * 3000);
    free(a.x);
    free(b.x);
    free(c.x);
}

static void check_sites_error(const char *dir, const char *text, const char *where,
                              const char *msg)
{
    char path[512];
    snprintf(path, sizeof path, "%s/sites.csv", dir);
    write_file(path, text, strlen(text));
    struct gt_synth_site *s = NULL;
    size_t n = 99;
    struct gt_error err = {0};
    assert_int_equal(gt_synth_load_sites(path, &s, &n, &err), GT_EINPUT);
    assert_null(s);
    assert_int_equal(n, 0);
    if (!strstr(err.where, where)) {
        printf("where: %s / %s\n", err.where, err.msg);
        fail();
    }
    assert_non_null(strstr(err.msg, msg));
}

static void test_sites_file(void **state)
{
    (void)state;
    char *dir = tmpdir_new(), path[512];
    snprintf(path, sizeof path, "%s/ok.csv", dir);
    const char *ok = "name,latitude,longitude,domain\nhere,10.5,-20,example.org\nthere,-1,179.5,\n";
    write_file(path, ok, strlen(ok));
    struct gt_synth_site *s;
    size_t n;
    struct gt_error err = {0};
    assert_int_equal(gt_synth_load_sites(path, &s, &n, &err), GT_OK);
    assert_int_equal(n, 2);
    assert_string_equal(s[1].name, "there");
    assert_true(s[0].lat == 10.5 && s[1].lon == 179.5);
    assert_string_equal(s[0].domain, "example.org");
    assert_null(s[1].domain);
    assert_null(s[0].cluster);
    gt_synth_sites_free(s, n);
    check_sites_error(dir, "name,latitude,longitude\na,1,2\nb,91,2\n", ":3: latitude",
                      "not a number in [-90, 90]");
    check_sites_error(dir, "name,latitude,longitude\na,1,2\na,1,3\n", ":3", "listed twice");
    check_sites_error(dir, "name,latitude\na,1\n", "sites.csv", "no 'longitude' column");
    check_sites_error(dir, "name,latitude,longitude\na,1\n", ":2: longitude", "missing");
    snprintf(path, sizeof path, "%s/none.csv", dir);
    assert_int_equal(gt_synth_load_sites(path, &s, &n, &err), GT_EIO);
    tmpdir_free(dir);
}

static void test_limits(void **state)
{
    (void)state;
    struct gt_synth_params p;
    gt_synth_defaults(&p);
    struct gt_error err = {0};
    assert_int_equal(gt_synth_check(&p, 27, &err), GT_OK);
    p.alpha_max = 1;   /* below alpha_min */
    assert_int_equal(gt_synth_check(&p, 27, &err), GT_EUSAGE);
    assert_string_equal(err.where, "--alpha-max");
    gt_synth_defaults(&p);
    gt_error_clear(&err);
    assert_int_equal(gt_synth_check(&p, 1, &err), GT_EUSAGE);
    gt_error_clear(&err);
    p.samples = GT_SYNTH_MAX_SAMPLES;   /* 702 pairs x 1e7 > 1e9 rows */
    assert_int_equal(gt_synth_check(&p, 27, &err), GT_EUSAGE);
    assert_non_null(strstr(err.msg, "rows"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance_and_base),
        cmocka_unit_test(test_tail_index),
        cmocka_unit_test(test_loss_and_bursts),
        cmocka_unit_test(test_outages_and_shifts),
        cmocka_unit_test(test_diurnal),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_sites_file),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
