/* test_rootcache.c - what `gridtail refit` keeps per root (rootcache.h):
 * which roots' adaptive errors and calibrations are kept, counted by
 * hand from the store; that each is found again (the answers read it,
 * and it equals a fresh replay); that a root's calibration is kept for
 * the partners rank and place take when max_loss leaves one out, and for
 * no other collective; that a newer sample of one root invalidates its
 * records and no other root's; and that an interrupted refresh keeps
 * nothing.
 *
 * The store: roots r1 (partners a, b, c; r1 -> b loses every fifth probe,
 * 20 % > max_loss 10 %) and r2 (partner a), one probe a minute; a, b and
 * c send nothing, so they are no roots.  Kept: adaptive for r1 and r2
 * (2), calibrated r1 and r2 (2), calibrations 3: r1 whole, r1 {a, c},
 * r2 whole (r2's only partner is taken: no second collective). */
#include "testutil.h"
#include "advisor/rootcache.h"

#include <signal.h>
#include "base/interrupt.h"

#define T0 1795305600
#define IV 60
#define N 150
#define M 8

struct store {
    char *dir;
    struct gt_db *db;
};

static double value(int pair, int i)
{
    return 20 + 10 * pair + (i % 2 ? 5 : 0) + (i % 3 ? 1 : 0);
}

static void write_csv(const char *csv, int from, int to, bool only_r2)
{
    static const char *const pairs[4][2] = {{"r1", "a"}, {"r1", "b"}, {"r1", "c"}, {"r2", "a"}};
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "ts,src,dst,rtt_ms\n");
    for (int i = from; i < to; i++)
        for (int p = only_r2 ? 3 : 0; p < 4; p++) {
            long long ts = (long long)T0 + IV * i;
            if (p == 1 && i % 5 == 0)
                fprintf(f, "%lld,%s,%s,loss\n", ts, pairs[p][0], pairs[p][1]);
            else
                fprintf(f, "%lld,%s,%s,%.17g\n", ts, pairs[p][0], pairs[p][1], value(p, i));
        }
    fclose(f);
}

static void make_store(struct store *s)
{
    s->dir = tmpdir_new();
    char path[256], csv[256];
    snprintf(path, sizeof path, "%s/a.db", s->dir);
    snprintf(csv, sizeof csv, "%s/in.csv", s->dir);
    write_csv(csv, 0, N, false);
    struct gt_error err = {0};
    assert_int_equal(gt_db_open(path, GT_DB_CREATE, 1000, &s->db, &err), GT_OK);
    ingest_csv(s->db, csv);
}

static void free_store(struct store *s)
{
    gt_db_close(s->db);
    tmpdir_free(s->dir);
}

static const double levels[2] = {0.5, 0.9};

struct all_opts {
    struct gt_adv_opts adv;
    struct gt_adapt_opts adapt;
    struct gt_calib_opts calib;
    struct gt_rootcache_opts rc;
};

static void make_opts(struct all_opts *a, int threads)
{
    memset(a, 0, sizeof *a);
    a->adv.window = 60;
    a->adv.at = INT64_MAX;
    a->adv.stale_after_s = 3600;
    a->adv.min_samples = 10;
    a->adv.max_loss = 0.1;
    a->adapt.window = M;
    a->adapt.horizon_s = 2 * IV;
    a->adapt.outcomes = 30;
    a->adapt.at = INT64_MAX;
    a->calib.window = M;
    a->calib.horizon_s = 2 * IV;
    a->calib.outcomes = 40;
    a->calib.method = GT_BT_NORMAL;
    a->calib.at = INT64_MAX;
    a->calib.levels = levels;
    a->calib.nlevels = 2;
    a->rc = (struct gt_rootcache_opts){&a->adv, &a->adapt, &a->calib, threads, NULL};
}

/* root's adaptive record is read back, and equals a replay. */
static void check_adapt(struct gt_db *db, const char *root, const struct gt_adapt_opts *o,
                        bool cached)
{
    struct gt_adapt t, r;
    struct gt_error err = {0};
    assert_int_equal(gt_adapt_track(db, root, o, &t, &err), GT_OK);
    if (t.cached != cached)
        fprintf(stderr, "adaptive of %s: cached %d, not %d\n", root, t.cached, cached);
    assert_true(t.cached == cached);
    assert_int_equal(gt_adapt_replay(db, root, o, &r, &err), GT_OK);
    assert_int_equal(t.chosen, r.chosen);
    assert_int_equal(t.outcomes, r.outcomes);
    assert_int_equal(t.anchor, r.anchor);
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        assert_true(t.rmse[j] == r.rmse[j]);
}

/* root's calibration over sites (NULL: all) is read back or not, and
 * equals a replay. */
static void check_calib(struct gt_db *db, const char *root, const struct gt_calib_opts *base,
                        const char **sites, size_t nsites, bool cached)
{
    struct gt_calib_opts o = *base;
    o.sites = sites, o.nsites = nsites;
    struct gt_calib t, r;
    struct gt_error err = {0};
    assert_int_equal(gt_calib_track(db, root, &o, &t, &err), GT_OK);
    if (t.cached != cached)
        fprintf(stderr, "calibration of %s over %zu partners (%s...): cached %d, not %d\n",
                root, nsites, nsites ? sites[0] : "all", t.cached, cached);
    assert_true(t.cached == cached);
    assert_int_equal(gt_calib_replay(db, root, &o, &r, &err), GT_OK);
    assert_int_equal(t.outcomes, r.outcomes);
    assert_true(t.outcomes > 0);
    for (size_t k = 0; k < o.nlevels; k++) {
        assert_true(t.factor[k] == r.factor[k]);
        assert_true(t.ready[k] == r.ready[k]);
    }
    gt_calib_release(&t);
    gt_calib_release(&r);
}

static void refresh(struct store *s, const struct gt_rootcache_opts *o,
                    struct gt_rootcache_counts *c)
{
    struct gt_error err = {0};
    int rc = gt_rootcache_refresh(s->db, o, c, &err);
    if (rc)
        fprintf(stderr, "refresh: %s\n", err.msg);
    assert_int_equal(rc, GT_OK);
}

static void test_kept_and_found(void **state)
{
    (void)state;
    for (int threads = 1; threads <= 2; threads++) {
        struct store s;
        make_store(&s);
        struct all_opts a;
        make_opts(&a, threads);
        const char *ac[] = {"a", "c"}, *abc[] = {"a", "b", "c"}, *ab[] = {"a", "b"};
        /* nothing kept yet */
        check_adapt(s.db, "r1", &a.adapt, false);
        check_calib(s.db, "r1", &a.calib, NULL, 0, false);
        struct gt_rootcache_counts c;
        refresh(&s, &a.rc, &c);
        assert_int_equal(c.tracked, 2);
        assert_int_equal(c.calibrated, 2);
        assert_int_equal(c.calibrations, 3);
        /* eight rows of the replays' window: 2 adaptive, 3 calibrations'
           states and their answers */
        assert_int_equal(sql_int(s.db, "SELECT count(*) FROM fit_cache WHERE window = 8"), 8);
        check_adapt(s.db, "r1", &a.adapt, true);
        check_adapt(s.db, "r2", &a.adapt, true);
        check_calib(s.db, "r1", &a.calib, NULL, 0, true);
        check_calib(s.db, "r1", &a.calib, abc, 3, true);   /* all named: the same */
        check_calib(s.db, "r1", &a.calib, ac, 2, true);    /* what rank and place take */
        check_calib(s.db, "r1", &a.calib, ab, 2, false);   /* no other */
        check_calib(s.db, "r2", &a.calib, NULL, 0, true);
        /* other options: not what was kept */
        struct gt_calib_opts other = a.calib;
        other.outcomes = 41;
        check_calib(s.db, "r1", &other, NULL, 0, false);
        struct gt_adapt_opts other_a = a.adapt;
        other_a.outcomes = 31;
        check_adapt(s.db, "r1", &other_a, false);
        /* a newer sample of r2: its records go, r1's stay */
        char csv[256];
        snprintf(csv, sizeof csv, "%s/more.csv", s.dir);
        write_csv(csv, N, N + 1, true);
        ingest_csv(s.db, csv);
        check_adapt(s.db, "r2", &a.adapt, false);
        check_calib(s.db, "r2", &a.calib, NULL, 0, false);
        check_adapt(s.db, "r1", &a.adapt, true);
        check_calib(s.db, "r1", &a.calib, NULL, 0, true);
        check_calib(s.db, "r1", &a.calib, ac, 2, true);
        /* refreshed: found again at the new anchor */
        refresh(&s, &a.rc, &c);
        assert_int_equal(c.calibrations, 3);
        check_adapt(s.db, "r2", &a.adapt, true);
        check_calib(s.db, "r2", &a.calib, NULL, 0, true);
        free_store(&s);
    }
}

/* One kind only: the other is not kept; neither: nothing at all. */
static void test_one_kind(void **state)
{
    (void)state;
    struct store s;
    make_store(&s);
    struct all_opts a;
    make_opts(&a, 1);
    struct gt_rootcache_counts c;
    a.rc.calib = NULL;
    refresh(&s, &a.rc, &c);
    assert_int_equal(c.tracked, 2);
    assert_int_equal(c.calibrated, 0);
    assert_int_equal(c.calibrations, 0);
    check_adapt(s.db, "r1", &a.adapt, true);
    check_calib(s.db, "r1", &a.calib, NULL, 0, false);
    free_store(&s);

    make_store(&s);
    a.rc.calib = &a.calib;
    a.rc.adapt = NULL;
    refresh(&s, &a.rc, &c);
    assert_int_equal(c.tracked, 0);
    assert_int_equal(c.calibrated, 2);
    assert_int_equal(c.calibrations, 3);
    check_adapt(s.db, "r1", &a.adapt, false);
    check_calib(s.db, "r1", &a.calib, NULL, 0, true);
    free_store(&s);

    make_store(&s);
    a.rc.calib = NULL;
    refresh(&s, &a.rc, &c);
    assert_int_equal(c.tracked + c.calibrated + c.calibrations, 0);
    free_store(&s);
}

/* Interrupted (a caught SIGINT): GT_EINTR and nothing kept.  The flag
 * stays up for the process, so this runs last. */
static void test_interrupted(void **state)
{
    (void)state;
    struct store s;
    make_store(&s);
    struct all_opts a;
    make_opts(&a, 1);
    gt_interrupt_catch();
    assert_int_equal(raise(SIGINT), 0);
    assert_true(gt_interrupted());
    struct gt_rootcache_counts c;
    struct gt_error err = {0};
    assert_int_equal(gt_rootcache_refresh(s.db, &a.rc, &c, &err), GT_EINTR);
    assert_int_equal(c.tracked + c.calibrated + c.calibrations, 0);
    /* no record of the replays' window (the answers cannot be asked
       now: they replay, and are interrupted too) */
    assert_int_equal(sql_int(s.db, "SELECT count(*) FROM fit_cache WHERE window = 8"), 0);
    free_store(&s);
}

/* A state an answer kept for other options (another lead, two of r1's
 * partners) goes on with the refresh: the next such answer reads it
 * (cached) at the newest anchor, and it is one replay from the answer's
 * origin, bit for bit; the answer kept at refit's own options is refit's
 * own job, not gone on twice. */
static void test_answers_advanced(void **state)
{
    (void)state;
    struct store s;
    make_store(&s);
    struct all_opts a;
    make_opts(&a, 1);
    struct gt_error err = {0};
    static const char *ac[] = {"a", "c"};
    struct gt_calib_opts o2 = a.calib, own = a.calib;
    o2.horizon_s = 3 * IV;
    o2.sites = ac, o2.nsites = 2;
    struct gt_calib c2, c1;
    assert_int_equal(gt_calib_track(s.db, "r1", &o2, &c2, &err), GT_OK);
    assert_int_equal(gt_calib_track(s.db, "r1", &own, &c1, &err), GT_OK);
    assert_int_equal(gt_db_begin(s.db, &err), GT_OK);
    assert_int_equal(gt_calib_save(s.db, &o2, &c2, &err), GT_OK);
    assert_int_equal(gt_calib_save(s.db, &own, &c1, &err), GT_OK);
    assert_int_equal(gt_db_commit(s.db, &err), GT_OK);
    int64_t origin = c2.origin;
    gt_calib_release(&c2);
    gt_calib_release(&c1);
    char csv[256];
    snprintf(csv, sizeof csv, "%s/more.csv", s.dir);
    write_csv(csv, N, N + 6, false);
    ingest_csv(s.db, csv);
    struct gt_rootcache_counts c;
    refresh(&s, &a.rc, &c);
    assert_int_equal(c.advanced, 1);
    assert_int_equal(c.calibrations, 3);
    struct gt_calib t, r;
    assert_int_equal(gt_calib_track(s.db, "r1", &o2, &t, &err), GT_OK);
    assert_true(t.cached);
    assert_true(t.origin == origin);
    assert_int_equal(gt_calib_replay_from(s.db, "r1", &o2, origin, &r, &err), GT_OK);
    assert_int_equal(t.outcomes, r.outcomes);
    for (size_t k = 0; k < o2.nlevels; k++) {
        assert_true(t.factor[k] == r.factor[k]);
        assert_true(t.ready[k] == r.ready[k]);
    }
    gt_calib_release(&t);
    gt_calib_release(&r);
    free_store(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kept_and_found),
        cmocka_unit_test(test_one_kind),
        cmocka_unit_test(test_answers_advanced),
        cmocka_unit_test(test_interrupted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
