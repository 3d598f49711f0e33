/* test_status.c - each pair's status against the thresholds
 * (src/advisor/status.h): hand-made sample times and RTTs whose median,
 * p99, loss and age are worked out by hand below, judged against default
 * and per group limits; the silent boundary to the second; the groups
 * file's errors with file:line; the worst-first order and the JSON
 * document's counts and paging. */
#include "testutil.h"
#include "advisor/status.h"
#include "db/query.h"

#include <jansson.h>

#define T0 1795305600           /* 2026-11-22T00:00:00Z */
#define AT (T0 + 6000)          /* the moment the states are judged at */
#define WINDOW 10               /* the newest samples judged */

struct store {
    char *dir;
    struct gt_db *db;
};

/* n samples of src -> dst a minute apart, the newest at `newest`; rtt[i]
 * (NAN: lost) for the i-th oldest. */
static void pair_rows(FILE *f, const char *src, const char *dst, int64_t newest,
                      const double *rtt, int n)
{
    for (int i = 0; i < n; i++) {
        long long ts = (long long)newest - 60LL * (n - 1 - i);
        if (isnan(rtt[i]))
            fprintf(f, "%lld,%s,%s,loss\n", ts, src, dst);
        else
            fprintf(f, "%lld,%s,%s,%.6f\n", ts, src, dst, rtt[i]);
    }
}

/* The pairs, each named for what it shows (hand-worked, WINDOW = 10):
 *   A -> B  five 1000 ms samples, then 1..10 ms ending at AT: the window
 *           is 1..10 (the 1000s are older), median at h = 4.5: 5.5, p99
 *           at h = 8.91: 9 + 0.91 = 9.91, loss 0
 *   A -> C  20 ms with the 3rd and 7th of ten lost: loss 2/10 = 0.2,
 *           median = p99 = 20
 *   B -> A  3 ms, newest at AT - 900: age 900 s, not over silent_s 900
 *   B -> C  3 ms, newest at AT - 901: age 901 s, silent
 *   C -> A  samples only after AT: none at or before it
 *   C -> B  60 ms, ending at AT: median = p99 = 60
 *   C -> C  a self pair, never listed */
static void make_store(struct store *s)
{
    s->dir = tmpdir_new();
    char path[256], csv[256];
    snprintf(path, sizeof path, "%s/s.db", s->dir);
    snprintf(csv, sizeof csv, "%s/in.csv", s->dir);
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "ts,src,dst,rtt_ms\n");
    double ab[15], ac[10], c3[10], c20[10], c60[10];
    for (int i = 0; i < 15; i++)
        ab[i] = i < 5 ? 1000 : i - 4;
    for (int i = 0; i < 10; i++) {
        ac[i] = i == 2 || i == 6 ? NAN : 20;
        c3[i] = 3, c20[i] = 20, c60[i] = 60;
    }
    pair_rows(f, "A", "B", AT, ab, 15);
    pair_rows(f, "A", "C", AT, ac, 10);
    pair_rows(f, "B", "A", AT - 900, c3, 10);
    pair_rows(f, "B", "C", AT - 901, c3, 10);
    pair_rows(f, "C", "A", AT + 6000, c20, 10);
    pair_rows(f, "C", "B", AT, c60, 10);
    pair_rows(f, "C", "C", AT, c3, 10);
    fclose(f);
    struct gt_error err = {0};
    assert_int_equal(gt_db_open(path, GT_DB_CREATE, 1000, &s->db, &err), GT_OK);
    ingest_csv(s->db, csv);
}

static void free_store(struct store *s)
{
    gt_db_close(s->db);
    tmpdir_free(s->dir);
}

/* the defaults with p99 limits 9 / 200 ms and median 50 / 100 ms */
static void test_config(struct gt_config *cfg)
{
    gt_config_defaults(cfg);
    cfg->th_p99_ms[0] = 9, cfg->th_p99_ms[1] = 200;
    cfg->th_median_ms[0] = 50, cfg->th_median_ms[1] = 100;
}

static const struct gt_pair_state *find(const struct gt_pair_state *v, size_t n,
                                        const char *src, const char *dst)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].src, src) && !strcmp(v[i].dst, dst))
            return &v[i];
    fail_msg("no state of %s -> %s", src, dst);
    return NULL;
}

static void load(struct gt_thresholds *t, const struct gt_config *cfg)
{
    struct gt_error err = {0};
    if (gt_thresholds_load(t, cfg, WINDOW, &err))
        fail_msg("%s: %s", err.where, err.msg);
}

static void states(struct store *s, const struct gt_thresholds *t, int64_t at,
                   struct gt_pair_state **v, size_t *n)
{
    struct gt_error err = {0};
    int rc = gt_pair_states(s->db, t, at, NULL, NULL, v, n, &err);
    if (rc)
        fail_msg("gt_pair_states: %s", err.msg);
}

static void test_names(void **state)
{
    (void)state;
    static const char *const want[] = {"ok", "warning", "critical", "no_data"};
    for (int i = 0; i < 4; i++) {
        enum gt_pair_status s = GT_STATUS_NO_DATA;
        assert_string_equal(gt_status_name((enum gt_pair_status)i), want[i]);
        assert_true(gt_status_parse(want[i], &s));
        assert_int_equal(s, i);
    }
    enum gt_pair_status s = GT_STATUS_OK;
    assert_false(gt_status_parse("late", &s));
    assert_false(gt_status_parse("OK", &s));
    assert_false(gt_status_parse("", &s));
    assert_int_equal(s, GT_STATUS_OK);
}

/* The config's limits are taken as they are; samples 0 means the window,
 * and the window is capped. */
static void test_thresholds_from_config(void **state)
{
    (void)state;
    struct gt_config cfg;
    test_config(&cfg);
    struct gt_thresholds t;
    load(&t, &cfg);
    assert_int_equal(t.samples, WINDOW);
    assert_true(t.def.p99_ms[0] == 9 && t.def.p99_ms[1] == 200);
    assert_true(t.def.median_ms[0] == 50 && t.def.median_ms[1] == 100);
    assert_true(t.def.loss[0] == 0.02 && t.def.loss[1] == 0.10);
    assert_int_equal(t.def.silent_s, 900);
    assert_int_equal(t.ngroups, 0);
    gt_thresholds_free(&t);
    cfg.th_samples = 25;
    load(&t, &cfg);
    assert_int_equal(t.samples, 25);
    gt_thresholds_free(&t);
    struct gt_error err = {0};
    cfg.th_samples = 0;
    assert_int_equal(gt_thresholds_load(&t, &cfg, 5000000, &err), GT_OK);
    assert_int_equal(t.samples, GT_STATUS_MAX_SAMPLES);
    gt_thresholds_free(&t);
}

/* Every pair's state under the default limits (the store's comment has
 * the hand-worked numbers). */
static void test_default_limits(void **state)
{
    (void)state;
    struct store s;
    make_store(&s);
    struct gt_config cfg;
    test_config(&cfg);
    struct gt_thresholds t;
    load(&t, &cfg);
    struct gt_pair_state *v;
    size_t n;
    states(&s, &t, AT, &v, &n);
    assert_int_equal(n, 6);   /* C -> C left out */
    for (size_t i = 0; i < n; i++)
        assert_string_not_equal(v[i].src, v[i].dst);

    const struct gt_pair_state *p = find(v, n, "A", "B");
    assert_int_equal(p->samples, 10);
    assert_int_equal(p->lost, 0);
    assert_float_equal(p->median_ms, 5.5, 1e-9);
    assert_float_equal(p->p99_ms, 9.91, 1e-9);
    assert_float_equal(p->loss, 0, 0);
    assert_true(p->newest == AT);
    assert_float_equal(p->age_s, 0, 0);
    assert_null(p->group);
    assert_int_equal(p->status, GT_STATUS_WARNING);
    assert_int_equal(p->check[GT_CHECK_P99], GT_STATUS_WARNING);
    assert_int_equal(p->check[GT_CHECK_LOSS], GT_STATUS_OK);
    assert_int_equal(p->check[GT_CHECK_MEDIAN], GT_STATUS_OK);
    assert_int_equal(p->nreasons, 1);
    assert_string_equal(p->reasons[0], "p99 9.91 ms over 9 ms (warning)");

    /* loss 0.2 over 0.10: critical; p99 20 over 9 but not over 200 */
    p = find(v, n, "A", "C");
    assert_int_equal(p->samples, 10);
    assert_int_equal(p->lost, 2);
    assert_float_equal(p->loss, 0.2, 1e-12);
    assert_float_equal(p->median_ms, 20, 1e-9);
    assert_int_equal(p->status, GT_STATUS_CRITICAL);
    assert_int_equal(p->check[GT_CHECK_LOSS], GT_STATUS_CRITICAL);
    assert_int_equal(p->check[GT_CHECK_P99], GT_STATUS_WARNING);
    assert_int_equal(p->check[GT_CHECK_MEDIAN], GT_STATUS_OK);
    assert_int_equal(p->nreasons, 2);
    assert_string_equal(p->reasons[0], "loss 20 % over 10 % (critical)");
    assert_string_equal(p->reasons[1], "p99 20 ms over 9 ms (warning)");

    /* silent exactly silent_s: still judged (3 ms: ok) */
    p = find(v, n, "B", "A");
    assert_float_equal(p->age_s, 900, 0);
    assert_int_equal(p->status, GT_STATUS_OK);
    assert_int_equal(p->nreasons, 0);

    p = find(v, n, "B", "C");
    assert_float_equal(p->age_s, 901, 0);
    assert_int_equal(p->status, GT_STATUS_NO_DATA);
    assert_int_equal(p->nreasons, 1);
    assert_string_equal(p->reasons[0], "silent for 901 s (over 900)");

    p = find(v, n, "C", "A");
    assert_int_equal(p->samples, 0);
    assert_true(p->newest == INT64_MIN);
    assert_true(isinf(p->age_s));
    assert_true(isnan(p->median_ms) && isnan(p->p99_ms) && isnan(p->loss));
    assert_int_equal(p->status, GT_STATUS_NO_DATA);
    assert_string_equal(p->reasons[0], "no samples");

    /* median 60 over 50: warning, and p99 60 over 9: warning */
    p = find(v, n, "C", "B");
    assert_int_equal(p->status, GT_STATUS_WARNING);
    assert_int_equal(p->check[GT_CHECK_MEDIAN], GT_STATUS_WARNING);
    assert_int_equal(p->check[GT_CHECK_P99], GT_STATUS_WARNING);
    assert_int_equal(p->nreasons, 2);
    assert_string_equal(p->reasons[0], "p99 60 ms over 9 ms (warning)");
    assert_string_equal(p->reasons[1], "median 60 ms over 50 ms (warning)");
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(v[i].regime, -1);   /* no refit recorded */
        assert_true(isinf(v[i].fit_age_s));
    }
    gt_pair_states_free(v, n);
    gt_thresholds_free(&t);
    free_store(&s);
}

/* The same pair an hour later and a second later: A -> B's newest is at
 * AT, so at AT + 900 it is 900 s old (judged), at AT + 901 silent; before
 * its oldest window sample the window is what was there then. */
static void test_silent_boundary_and_time(void **state)
{
    (void)state;
    struct store s;
    make_store(&s);
    struct gt_config cfg;
    test_config(&cfg);
    struct gt_thresholds t;
    load(&t, &cfg);
    struct gt_pair_state *v;
    size_t n;
    struct gt_error err = {0};
    assert_int_equal(gt_pair_states(s.db, &t, AT + 900, "A", "B", &v, &n, &err), GT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(v[0].status, GT_STATUS_WARNING);
    assert_float_equal(v[0].age_s, 900, 0);
    gt_pair_states_free(v, n);
    assert_int_equal(gt_pair_states(s.db, &t, AT + 901, "A", "B", &v, &n, &err), GT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(v[0].status, GT_STATUS_NO_DATA);
    assert_string_equal(v[0].reasons[0], "silent for 901 s (over 900)");
    gt_pair_states_free(v, n);
    /* at AT - 180 the newest is the 12th sample (7 ms): the window is
       1000 x 3 and 1..7 ms, sorted {1..7, 1000, 1000, 1000}: median at
       h = 4.5 between 5 and 6 is 5.5, p99 at h = 8.91 between 1000 and
       1000 is 1000 */
    assert_int_equal(gt_pair_states(s.db, &t, AT - 180, "A", "B", &v, &n, &err), GT_OK);
    assert_int_equal(n, 1);
    assert_float_equal(v[0].median_ms, 5.5, 1e-9);
    assert_float_equal(v[0].p99_ms, 1000, 1e-9);
    assert_int_equal(v[0].status, GT_STATUS_CRITICAL);   /* 1000 over 200 */
    assert_string_equal(v[0].reasons[0], "p99 1000 ms over 200 ms (critical)");
    gt_pair_states_free(v, n);
    gt_thresholds_free(&t);
    free_store(&s);
}

/* Filters: only the pairs of source C, only those to A. */
static void test_filters(void **state)
{
    (void)state;
    struct store s;
    make_store(&s);
    struct gt_config cfg;
    test_config(&cfg);
    struct gt_thresholds t;
    load(&t, &cfg);
    struct gt_pair_state *v;
    size_t n;
    struct gt_error err = {0};
    assert_int_equal(gt_pair_states(s.db, &t, AT, "C", NULL, &v, &n, &err), GT_OK);
    assert_int_equal(n, 2);   /* C -> A, C -> B; not C -> C */
    for (size_t i = 0; i < n; i++)
        assert_string_equal(v[i].src, "C");
    gt_pair_states_free(v, n);
    assert_int_equal(gt_pair_states(s.db, &t, AT, NULL, "A", &v, &n, &err), GT_OK);
    assert_int_equal(n, 2);   /* B -> A, C -> A */
    for (size_t i = 0; i < n; i++)
        assert_string_equal(v[i].dst, "A");
    gt_pair_states_free(v, n);
    assert_int_equal(gt_pair_states(s.db, &t, AT, "nowhere", NULL, &v, &n, &err), GT_OK);
    assert_int_equal(n, 0);
    gt_pair_states_free(v, n);
    gt_thresholds_free(&t);
    free_store(&s);
}

static char *groups_file(const struct store *s, const char *text)
{
    static char path[300];
    snprintf(path, sizeof path, "%s/groups", s->dir);
    write_file(path, text, strlen(text));
    return path;
}

/* Per group limits: a pair takes the first group holding both its sites,
 * by list or by cluster / domain, over the defaults it does not set. */
static void test_groups(void **state)
{
    (void)state;
    struct store s;
    make_store(&s);
    struct gt_error err = {0};
    assert_int_equal(gt_site_set_attrs(s.db, "C", "eu", NULL, NULL, NULL, &err), GT_OK);
    assert_int_equal(gt_site_set_attrs(s.db, "B", NULL, "eu", NULL, NULL, &err), GT_OK);
    struct gt_config cfg;
    test_config(&cfg);
    snprintf(cfg.th_groups_file, sizeof cfg.th_groups_file, "%s",
             groups_file(&s, "# per group limits\n"
                             "\n"
                             "fast sites=A,B p99_warning_ms=5 p99_critical_ms=9.5\n"
                             "  eu\tp99_warning_ms=100 loss_critical=0.5   # by cluster\n"
                             "slow sites=B,C silent_s=1000\n"));
    struct gt_thresholds t;
    load(&t, &cfg);
    assert_int_equal(t.ngroups, 3);
    assert_string_equal(t.groups[0].name, "fast");
    assert_int_equal(t.groups[0].nsites, 2);
    assert_string_equal(t.groups[0].sites[1], "B");
    assert_null(t.groups[1].sites);
    assert_true(t.groups[1].lim.median_ms[0] == 50);   /* from the defaults */
    assert_true(t.groups[1].lim.loss[1] == 0.5);
    assert_int_equal(t.groups[2].lim.silent_s, 1000);
    struct gt_pair_state *v;
    size_t n;
    states(&s, &t, AT, &v, &n);
    /* A -> B in fast: p99 9.91 over 9.5 */
    const struct gt_pair_state *p = find(v, n, "A", "B");
    assert_string_equal(p->group, "fast");
    assert_int_equal(p->status, GT_STATUS_CRITICAL);
    assert_string_equal(p->reasons[0], "p99 9.91 ms over 9.5 ms (critical)");
    /* B -> A in fast too (the list is unordered): 3 ms is ok */
    p = find(v, n, "B", "A");
    assert_string_equal(p->group, "fast");
    assert_int_equal(p->status, GT_STATUS_OK);
    /* C -> B in eu (C by cluster, B by domain): p99 60 not over 100,
       median 60 over the default 50 */
    p = find(v, n, "C", "B");
    assert_string_equal(p->group, "eu");
    assert_int_equal(p->status, GT_STATUS_WARNING);
    assert_int_equal(p->nreasons, 1);
    assert_string_equal(p->reasons[0], "median 60 ms over 50 ms (warning)");
    /* B -> C: eu comes before slow, so silent_s stays 900 */
    p = find(v, n, "B", "C");
    assert_string_equal(p->group, "eu");
    assert_int_equal(p->status, GT_STATUS_NO_DATA);
    /* A -> C: no group holds A and C */
    p = find(v, n, "A", "C");
    assert_null(p->group);
    assert_int_equal(p->status, GT_STATUS_CRITICAL);
    gt_pair_states_free(v, n);
    gt_thresholds_free(&t);

    /* with slow alone, B -> C's 901 s are within its 1000 */
    groups_file(&s, "slow sites=B,C silent_s=1000\n");
    load(&t, &cfg);
    states(&s, &t, AT, &v, &n);
    p = find(v, n, "B", "C");
    assert_string_equal(p->group, "slow");
    assert_int_equal(p->status, GT_STATUS_OK);
    assert_float_equal(p->age_s, 901, 0);
    gt_pair_states_free(v, n);
    gt_thresholds_free(&t);
    free_store(&s);
}

/* A bad groups file: GT_EINPUT naming file:line and what is wrong. */
static void test_groups_file_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int line;
        const char *msg;
    } cases[] = {
        {"a p99_warning_ms=abc\n", 1, "p99_warning_ms: 'abc' is not a number from 0 to 1e+07"},
        {"# c\n\na loss_critical=1.5\n", 3, "loss_critical: '1.5' is not a number from 0 to 1"},
        {"a p99_warning_ms=-1\n", 1, "p99_warning_ms: '-1' is not a number from 0 to 1e+07"},
        {"a colour=red\n", 1, "unknown key 'colour'"},
        {"a b\n", 1, "'b' is not KEY=VALUE"},
        {"a =5\n", 1, "'=5' is not KEY=VALUE"},
        {"a\nb\na\n", 3, "group: a is given twice"},
        {"a sites=X sites=Y\n", 1, "sites: given twice"},
        {"a sites=X,,Y\n", 1, "sites: an empty site name"},
        {"a silent_s=1.5\n", 1,
         "silent_s: '1.5' is not a whole number of seconds from 1 to 100000000"},
        {"a silent_s=0\n", 1,
         "silent_s: '0' is not a whole number of seconds from 1 to 100000000"},
    };
    char *dir = tmpdir_new();
    char path[300];
    snprintf(path, sizeof path, "%s/groups", dir);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        write_file(path, cases[i].text, strlen(cases[i].text));
        struct gt_config cfg;
        test_config(&cfg);
        snprintf(cfg.th_groups_file, sizeof cfg.th_groups_file, "%s", path);
        struct gt_thresholds t;
        struct gt_error err = {0};
        assert_int_equal(gt_thresholds_load(&t, &cfg, WINDOW, &err), GT_EINPUT);
        char where[400];
        snprintf(where, sizeof where, "%s:%d", path, cases[i].line);
        assert_string_equal(err.where, where);
        assert_string_equal(err.msg, cases[i].msg);
        assert_null(t.groups);   /* freed on error */
    }
    /* a missing file: GT_EIO naming it */
    struct gt_config cfg;
    test_config(&cfg);
    snprintf(cfg.th_groups_file, sizeof cfg.th_groups_file, "%s/none", dir);
    struct gt_thresholds t;
    struct gt_error err = {0};
    assert_int_equal(gt_thresholds_load(&t, &cfg, WINDOW, &err), GT_EIO);
    assert_string_equal(err.where, cfg.th_groups_file);
    tmpdir_free(dir);
}

static struct gt_pair_state mk(const char *src, const char *dst, enum gt_pair_status st)
{
    struct gt_pair_state p = {0};
    p.src = strdup(src), p.dst = strdup(dst);
    p.status = st;
    p.median_ms = p.p99_ms = p.loss = NAN;
    p.newest = INT64_MIN;
    p.age_s = INFINITY;
    return p;
}

/* Worst first: critical, no_data, warning, ok, then by names. */
static void test_sort(void **state)
{
    (void)state;
    struct gt_pair_state v[] = {
        mk("b", "a", GT_STATUS_OK),       mk("a", "b", GT_STATUS_OK),
        mk("z", "a", GT_STATUS_WARNING),  mk("c", "d", GT_STATUS_NO_DATA),
        mk("c", "a", GT_STATUS_CRITICAL), mk("a", "z", GT_STATUS_CRITICAL),
        mk("a", "y", GT_STATUS_CRITICAL),
    };
    static const char *const want[] = {"a>y", "a>z", "c>a", "c>d", "z>a", "a>b", "b>a"};
    size_t n = sizeof v / sizeof *v;
    gt_pair_states_sort(v, n);
    for (size_t i = 0; i < n; i++) {
        char got[16];
        snprintf(got, sizeof got, "%s>%s", v[i].src, v[i].dst);
        assert_string_equal(got, want[i]);
        free(v[i].src), free(v[i].dst);
    }
}

/* The document: counts of all states, the shown ones filtered by status
 * and paged; numbers, nulls and the newest time as text. */
static void test_json(void **state)
{
    (void)state;
    struct gt_pair_state v[] = {
        mk("a", "b", GT_STATUS_CRITICAL), mk("a", "c", GT_STATUS_WARNING),
        mk("b", "a", GT_STATUS_WARNING),  mk("b", "c", GT_STATUS_WARNING),
        mk("c", "a", GT_STATUS_OK),       mk("c", "b", GT_STATUS_NO_DATA),
    };
    size_t n = sizeof v / sizeof *v;
    v[2].samples = 10, v[2].lost = 1, v[2].loss = 0.1, v[2].median_ms = 4.5;
    v[2].p99_ms = 12.25, v[2].newest = T0 + 3600, v[2].age_s = 60;
    v[2].nreasons = 1;
    snprintf(v[2].reasons[0], sizeof v[2].reasons[0], "loss 10 %% over 2 %% (warning)");
    struct gt_thresholds t = {0};
    t.samples = 10;
    /* the warnings from the 2nd on, at most 1: b -> a */
    json_t *d = gt_status_json(v, n, &t, T0, GT_STATUS_WARNING, 1, 1);
    assert_non_null(d);
    assert_string_equal(json_string_value(json_object_get(d, "at")), "2026-11-22T00:00:00Z");
    assert_int_equal(json_integer_value(json_object_get(d, "samples")), 10);
    json_t *c = json_object_get(d, "counts");
    assert_int_equal(json_integer_value(json_object_get(c, "ok")), 1);
    assert_int_equal(json_integer_value(json_object_get(c, "warning")), 3);
    assert_int_equal(json_integer_value(json_object_get(c, "critical")), 1);
    assert_int_equal(json_integer_value(json_object_get(c, "no_data")), 1);
    assert_int_equal(json_integer_value(json_object_get(d, "total")), 3);
    json_t *pairs = json_object_get(d, "pairs");
    assert_int_equal(json_array_size(pairs), 1);
    json_t *p = json_array_get(pairs, 0);
    assert_string_equal(json_string_value(json_object_get(p, "src")), "b");
    assert_string_equal(json_string_value(json_object_get(p, "dst")), "a");
    assert_string_equal(json_string_value(json_object_get(p, "status")), "warning");
    assert_true(json_is_null(json_object_get(p, "group")));
    assert_int_equal(json_integer_value(json_object_get(p, "samples")), 10);
    assert_int_equal(json_integer_value(json_object_get(p, "lost")), 1);
    assert_float_equal(json_real_value(json_object_get(p, "loss")), 0.1, 0);
    assert_float_equal(json_real_value(json_object_get(p, "median_ms")), 4.5, 0);
    assert_float_equal(json_real_value(json_object_get(p, "p99_ms")), 12.25, 0);
    assert_string_equal(json_string_value(json_object_get(p, "newest")),
                        "2026-11-22T01:00:00Z");
    assert_float_equal(json_real_value(json_object_get(p, "age_s")), 60, 0);
    json_t *r = json_object_get(p, "reasons");
    assert_int_equal(json_array_size(r), 1);
    assert_string_equal(json_string_value(json_array_get(r, 0)), "loss 10 % over 2 % (warning)");
    json_decref(d);

    /* all of them (only -1), from offset 4: c -> a and c -> b, whose
       numbers are null */
    d = gt_status_json(v, n, &t, T0, -1, 4, 100);
    assert_int_equal(json_integer_value(json_object_get(d, "total")), 6);
    pairs = json_object_get(d, "pairs");
    assert_int_equal(json_array_size(pairs), 2);
    p = json_array_get(pairs, 1);
    assert_string_equal(json_string_value(json_object_get(p, "status")), "no_data");
    assert_true(json_is_null(json_object_get(p, "median_ms")));
    assert_true(json_is_null(json_object_get(p, "newest")));
    assert_true(json_is_null(json_object_get(p, "age_s")));
    json_decref(d);
    for (size_t i = 0; i < n; i++)
        free(v[i].src), free(v[i].dst);
}

/* A stop asked between pairs ends the states with GT_EINTR and its
 * reason, nothing handed out (a server's request budget: issue 45,
 * point 6); one that never says stop changes nothing. */
static int asked;

static const char *stop_at_second_ask(void *ctx)
{
    (void)ctx;
    return ++asked >= 2 ? "the budget ran out" : NULL;
}

static const char *never(void *ctx)
{
    (void)ctx;
    return NULL;
}

static void test_states_stopped(void **state)
{
    (void)state;
    struct store s;
    make_store(&s);
    struct gt_config cfg;
    test_config(&cfg);
    struct gt_thresholds t;
    load(&t, &cfg);
    struct gt_pair_state *v = NULL, *w = NULL;
    size_t n = 7, m = 0;
    struct gt_error err = {0};
    asked = 0;
    struct gt_stop never_stop = {never, NULL}, stop = {stop_at_second_ask, NULL};
    assert_int_equal(gt_pair_states_until(s.db, &t, AT, NULL, NULL, &never_stop, &w, &m, &err),
                     GT_OK);
    assert_int_equal(gt_pair_states(s.db, &t, AT, NULL, NULL, &v, &n, &err), GT_OK);
    assert_int_equal(m, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(v[i].status, w[i].status);
    gt_pair_states_free(v, n);
    gt_pair_states_free(w, m);
    /* one ask per 64 pairs: a stop on the first ask stops before any */
    asked = 1;
    v = NULL, n = 7;
    assert_int_equal(gt_pair_states_until(s.db, &t, AT, NULL, NULL, &stop, &v, &n, &err),
                     GT_EINTR);
    assert_string_equal(err.msg, "the budget ran out");
    assert_null(v);
    assert_int_equal(n, 0);
    gt_thresholds_free(&t);
    free_store(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_states_stopped),
        cmocka_unit_test(test_thresholds_from_config),
        cmocka_unit_test(test_default_limits),
        cmocka_unit_test(test_silent_boundary_and_time),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_groups_file_errors),
        cmocka_unit_test(test_sort),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
