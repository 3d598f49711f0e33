/* test_advisor.c - the advisor against the estimators it wires together:
 * fits from the right window, shifts, compute and iterations, missing
 * pairs, the fit cache, and exact against heuristic placement. */
#include "testutil.h"
#include "db/ingest.h"
#include "advisor/advisor.h"
#include "advisor/advice.h"
#include "advisor/placement.h"
#include <limits.h>
#include "db/query.h"
#include "db/fitcache.h"
#include "advisor/pairfits.h"

#define REL(a, b) (fabs((double)(a) - (double)(b)) / fabs((double)(b)))

struct store {
    char *dir;
    struct gt_db *db;
};

/* A store of n sites, every ordered pair (and every self pair) with 80
 * samples a minute apart: Pareto with pair-specific k and alpha, drawn
 * from a seed; the self pairs are constant (a delta) at 0.5 + i ms.
 * With lossy, a third of the pairs lose one probe in 20 (the loss model
 * applies). */
static void make_store(struct store *s, int n, unsigned seed, int skip_pair, bool lossy)
{
    s->dir = tmpdir_new();
    char path[256], csv[256];
    snprintf(path, sizeof path, "%s/a.db", s->dir);
    snprintf(csv, sizeof csv, "%s/in.csv", s->dir);
    FILE *f = fopen(csv, "w");
    fprintf(f, "ts,src,dst,rtt_ms\n");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i * n + j == skip_pair)
                continue;
            double k = 10 + (double)(rand_r(&seed) % 400) / 10;
            double a = 1.5 + (double)(rand_r(&seed) % 200) / 10;
            for (int t = 0; t < 80; t++) {
                double u = (rand_r(&seed) + 1.0) / (RAND_MAX + 2.0);
                double v = i == j ? 0.5 + i : k * pow(u, -1 / a);
                /* a third of the pairs lose a probe in 20 (loss model) */
                if (lossy && i != j && (i + j) % 3 == 0 && t % 20 == 7)
                    fprintf(f, "%d,s%d,s%d,loss\n", 1795305600 + 60 * t, i, j);
                else
                    fprintf(f, "%d,s%d,s%d,%.6f\n", 1795305600 + 60 * t, i, j, v);
            }
        }
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

static struct gt_adv_opts opts(void)
{
    static const double q[] = {0.5, 0.99};
    struct gt_adv_opts o = {0};
    o.window = 60;
    o.at = 1795305600 + 60 * 79;
    o.q = q;
    o.nq = 2;
    o.stale_after_s = 3600;
    o.min_samples = 10;
    return o;
}

/* The advisor's answer equals gt_emax on fits of the same windows made
 * directly, with the intra-site shift of a multi-process partner. */
static void test_estimate_matches_direct_fits(void **state)
{
    (void)state;
    struct store s;
    make_store(&s, 4, 11, -1, false);
    struct gt_adv_opts o = opts();
    o.compute_ms = 2;
    o.iterations = 10;
    struct gt_advisor *a = gt_advisor_new(s.db, &o);
    struct gt_site_req sites[] = {{"s1", 1}, {"s2", 3}, {"s3", 1}};
    struct gt_estimate e;
    struct gt_error err = {0};
    assert_int_equal(gt_advisor_estimate(a, "s0", sites, 3, &e, &err), GT_OK);
    struct gt_partner_group g[3];
    for (int i = 0; i < 3; i++) {
        int64_t *ts;
        double *v;
        size_t n;
        assert_int_equal(gt_query_series(s.db, "s0", sites[i].name, o.at, 60, &ts, &v, &n,
                                         NULL, &err), GT_OK);
        assert_int_equal(n, 60);
        assert_int_equal(ts[0], 1795305600 + 60 * 20);   /* the last 60 of 80 */
        struct gt_fit f;
        assert_int_equal(gt_fit_window(v, n, GT_FIT_AUTO, &f, &err), GT_OK);
        g[i] = (struct gt_partner_group){{f.selected, {f.p[0], f.p[1]}, 0, 0, 0, NULL, 0}, 1};
        free(ts);
        free(v);
    }
    g[1].dist.shift = 2.5;   /* s2 runs 3 processes: its self pair is 0.5 + 2 ms */
    struct gt_emax_opts eo = {gt_emax_cut_for_window(g, 3, 60), false, NULL, 0, false, false,
                              NULL, 0, NULL, false, false};
    struct gt_emax_result r = {0};
    assert_int_equal(gt_emax(g, 3, &eo, &r, &err), GT_OK);
    assert_true(REL(e.e_max, r.e_max) < 1e-12);
    assert_true(e.partners[1].shift_ms == 2.5);
    assert_true(REL(e.iteration_ms, 2 + r.e_max) < 1e-12);
    assert_true(REL(e.job_ms, 10 * (2 + r.e_max)) < 1e-12);
    assert_true(e.data_age_s == 0);
    double total = 0;
    for (size_t i = 0; i < e.n; i++)
        total += e.partners[i].p_slowest;
    assert_true(fabs(total - 1) < 1e-6);
    /* the cache: the same placement again fits nothing new */
    size_t fits = gt_advisor_fits(a);
    gt_estimate_clear(&e);
    assert_int_equal(gt_advisor_estimate(a, "s0", sites, 3, &e, &err), GT_OK);
    assert_int_equal(gt_advisor_fits(a), fits);
    gt_estimate_clear(&e);
    gt_advisor_free(a);
    /* --model last: the newest samples as point masses */
    o.model = GT_ADV_LAST;
    a = gt_advisor_new(s.db, &o);
    assert_int_equal(gt_advisor_estimate(a, "s0", sites, 1, &e, &err), GT_OK);
    assert_string_equal(e.method, "delta");
    gt_estimate_clear(&e);
    gt_advisor_free(a);
    free_store(&s);
}

static void test_missing_pairs_and_stale_data(void **state)
{
    (void)state;
    struct store s;
    make_store(&s, 3, 12, 0 * 3 + 2, false);   /* no samples s0 -> s2 */
    struct gt_adv_opts o = opts();
    o.at += 7200;                        /* two hours after the newest sample */
    struct gt_advisor *a = gt_advisor_new(s.db, &o);
    struct gt_site_req sites[] = {{"s1", 1}, {"s2", 1}};
    struct gt_estimate e;
    struct gt_error err = {0};
    assert_int_equal(gt_advisor_estimate(a, "s0", sites, 2, &e, &err), GT_ENOTFOUND);
    assert_non_null(strstr(e.reason, "s0 -> s2"));
    gt_estimate_clear(&e);
    gt_advisor_free(a);
    o.skip_missing = true;
    a = gt_advisor_new(s.db, &o);
    gt_error_clear(&err);
    assert_int_equal(gt_advisor_estimate(a, "s0", sites, 2, &e, &err), GT_OK);
    assert_int_equal(e.n, 1);
    bool left_out = false, stale = false;
    for (size_t i = 0; i < e.nwarn; i++) {
        left_out = left_out || strstr(e.warnings[i], "s0 -> s2");
        stale = stale || strstr(e.warnings[i], "stale");
    }
    assert_true(left_out && stale);
    assert_true(e.data_age_s == 7200);
    gt_estimate_clear(&e);
    gt_advisor_free(a);
    free_store(&s);
}

/* Store one CSV text through the ingest path. */
static void ingest_text(struct store *s, const char *text)
{
    char csv[256];
    snprintf(csv, sizeof csv, "%s/more.csv", s->dir);
    write_file(csv, text, strlen(text));
    ingest_csv(s->db, csv);
}

static void cache_count(struct store *s, long long *rows, long long *records)
{
    struct gt_error err = {0};
    assert_int_equal(gt_fitcache_count(s->db, rows, records, &err), GT_OK);
}

static double estimate_once(struct store *s, const struct gt_adv_opts *o, size_t *fitted,
                            size_t *cached, size_t *saved)
{
    struct gt_advisor *a = gt_advisor_new(s->db, o);
    struct gt_site_req sites[] = {{"s1", 1}, {"s2", 1}};
    struct gt_estimate e;
    struct gt_error err = {0};
    assert_int_equal(gt_advisor_estimate(a, "s0", sites, 2, &e, &err), GT_OK);
    double v = e.e_max;
    gt_estimate_clear(&e);
    *fitted = gt_advisor_fits(a);
    *cached = gt_advisor_cached_fits(a);
    assert_int_equal(gt_advisor_save_fits(a, saved, &err), GT_OK);
    gt_advisor_free(a);
    return v;
}

/* The persistent fit cache: what it answers equals what fitting gives,
 * it only answers queries at or after a window's end, ingest drops the
 * fits of the sites it changes (and only when it stores something), a
 * store changed under a query's snapshot is never cached, prune empties
 * it, and a blob in another format reads as absent. */
static void test_persistent_fit_cache(void **state)
{
    (void)state;
    struct store s;
    make_store(&s, 3, 21, -1, false);
    struct gt_adv_opts o = opts();
    size_t fitted, cached, saved;
    long long rows, records;
    double fresh = estimate_once(&s, &o, &fitted, &cached, &saved);
    assert_int_equal(fitted, 2);
    assert_int_equal(cached, 0);
    assert_int_equal(saved, 2);
    cache_count(&s, &rows, &records);
    assert_true(rows == 1 && records == 2);
    double again = estimate_once(&s, &o, &fitted, &cached, &saved);
    assert_int_equal(fitted, 0);
    assert_int_equal(cached, 2);
    assert_int_equal(saved, 0);
    assert_true(again == fresh);              /* the same fits, bit for bit */

    /* an earlier time than the cached windows' end: fitted, not cached */
    struct gt_adv_opts past = o;
    past.at -= 600;
    estimate_once(&s, &past, &fitted, &cached, &saved);
    assert_int_equal(fitted, 2);
    assert_int_equal(saved, 0);

    /* refit everything: 9 pairs (self pairs too) over 3 sources */
    struct gt_error err = {0};
    struct gt_pairfits *p = gt_pairfits_new(s.db, 60, GT_FIT_AUTO, INT64_MAX, &err);
    assert_non_null(p);
    bool stale;
    assert_int_equal(gt_pairfits_all(p, &err), GT_OK);
    assert_int_equal(gt_pairfits_save(p, true, &saved, &stale, &err), GT_OK);
    assert_false(stale);
    assert_int_equal(gt_pairfits_fitted(p) + gt_pairfits_cached(p), 9);
    gt_pairfits_free(p);
    cache_count(&s, &rows, &records);
    assert_true(rows == 3 && records == 9);

    /* a duplicate changes nothing; a new sample s1 -> s2 drops that pair's
       fit, and s1's other fits stay */
    ingest_text(&s, "ts,src,dst,rtt_ms\n1795305600,s1,s2,99\n");
    cache_count(&s, &rows, &records);
    assert_true(rows == 3 && records == 9);
    ingest_text(&s, "ts,src,dst,rtt_ms\n1795310400,s1,s2,25\n");
    cache_count(&s, &rows, &records);
    assert_true(rows == 3 && records == 8);

    /* changed under the snapshot: not cached */
    struct gt_advisor *a = gt_advisor_new(s.db, &o);
    struct gt_site_req one[] = {{"s2", 1}};
    struct gt_estimate e;
    assert_int_equal(gt_advisor_estimate(a, "s1", one, 1, &e, &err), GT_OK);
    gt_estimate_clear(&e);
    char path[256];
    snprintf(path, sizeof path, "%s/a.db", s.dir);
    struct gt_db *other;
    assert_int_equal(gt_db_open(path, GT_DB_EXISTING, 1000, &other, &err), GT_OK);
    assert_int_equal(gt_db_exec(other, "INSERT INTO samples VALUES (1, 1795310460, 0, 7)",
                                &err), GT_OK);
    gt_db_close(other);
    assert_int_equal(gt_advisor_save_fits(a, &saved, &err), GT_OK);
    assert_int_equal(saved, 0);
    gt_advisor_free(a);

    /* a blob in another format is absent */
    assert_int_equal(gt_db_exec(s.db, "UPDATE fit_cache SET fits = x'00112233'", &err), GT_OK);
    struct gt_fit_rec *buf = NULL;
    size_t cap = 0, n = 7;
    assert_int_equal(gt_fitcache_load(s.db, 60, "auto", 1, &buf, &cap, &n, &err), GT_OK);
    assert_int_equal(n, 0);
    free(buf);

    /* prune empties the cache */
    long long removed;
    assert_int_equal(gt_prune(s.db, 1795305600 + 60, false, &removed, &err), GT_OK);
    assert_true(removed > 0);
    cache_count(&s, &rows, &records);
    assert_true(rows == 0 && records == 0);
    free_store(&s);
}

/* Many estimates on two threads give what one at a time gives, missing
 * pairs included. */
static void test_many_on_threads(void **state)
{
    (void)state;
    struct store s;
    make_store(&s, 6, 33, 2 * 6 + 5, false);   /* no samples s2 -> s5 */
    struct gt_adv_opts o = opts();
    o.threads = 2;
    struct gt_advisor *a = gt_advisor_new(s.db, &o);
    static const char *names[] = {"s0", "s1", "s2", "s3", "s4", "s5"};
    struct gt_site_req sites[40][3];
    struct gt_placement pl[40];
    for (int i = 0; i < 40; i++) {
        for (int j = 0; j < 3; j++)
            sites[i][j] = (struct gt_site_req){(char *)names[(i + j + 1) % 6], 1 + (i + j) % 2};
        pl[i] = (struct gt_placement){names[(i * 7) % 6], sites[i], 3};
    }
    struct gt_estimate out[40];
    int rc[40];
    struct gt_error err = {0};
    assert_int_equal(gt_advisor_estimate_many(a, pl, 40, out, rc, &err), GT_OK);
    int missing = 0;
    for (int i = 0; i < 40; i++) {
        struct gt_estimate e;
        int want = gt_advisor_estimate(a, pl[i].root, pl[i].sites, 3, &e, &err);
        gt_error_clear(&err);
        assert_int_equal(rc[i], want);
        if (want == GT_OK)
            assert_true(out[i].e_max == e.e_max && out[i].n == e.n);
        else
            assert_string_equal(out[i].reason, e.reason), missing++;
        gt_estimate_clear(&e);
        gt_estimate_clear(&out[i]);
    }
    assert_true(missing > 0);
    gt_advisor_free(a);
    free_store(&s);
}

/* stop after `after` questions: a request's budget running out */
struct stop_after {
    long asked, after;
};

static const char *stop_after(void *ctx)
{
    struct stop_after *s = ctx;
    return ++s->asked > s->after ? "the budget ran out" : NULL;
}

/* A rank stops in the phase that estimates the shown sets in full too
 * (it ran to the end whatever the budget): told to stop just after the
 * E[max] of every candidate, it shows fewer sets and says why. */
static void test_rank_stops_showing(void **state)
{
    (void)state;
    struct store s;
    make_store(&s, 6, 35, -1, false);
    static const char *names[] = {"s0", "s1", "s2", "s3", "s4", "s5"};
    struct gt_cand_list l = {0};
    for (int i = 0; i < 30; i++) {
        struct gt_candidate *c = gt_cands_push(&l, names[i % 6], 2);
        assert_non_null(c);
        for (int j = 1; j <= 3; j++) {
            const char *site = names[(i % 6 + j + (i / 6) % 2) % 6], *why;
            assert_true(gt_sites_add(&c->sites, site, strlen(site), &why));
        }
    }
    long asked[2] = {0, 0};
    for (int run = 0; run < 2; run++) {
        struct stop_after stop = {0, run ? asked[0] + 3 : LONG_MAX};
        struct gt_adv_opts o = opts();
        o.threads = 1;
        o.stop = stop_after;
        o.stop_ctx = &stop;
        struct gt_advisor *a = gt_advisor_new(s.db, &o);
        struct gt_rank_answer r;
        struct gt_error err = {0};
        if (run == 0) {
            /* how many questions the E[max] phase asks: all of a rank
               with top 1 (one set shown) but one */
            assert_int_equal(gt_advice_rank(a, &l, 1, &r, &err), GT_OK);
            asked[0] = stop.asked - 1;
            assert_null(gt_advisor_stopped(a));
        } else {
            assert_int_equal(gt_advice_rank(a, &l, 20, &r, &err), GT_OK);
            assert_int_equal(r.ok, 30);           /* every E[max] done */
            assert_true(r.nbest >= 1 && r.nbest < 20);
            assert_non_null(gt_advisor_stopped(a));
        }
        gt_rank_answer_clear(&r);
        gt_advisor_free(a);
    }
    gt_cands_clear(&l);
    free_store(&s);
}

/* A rank with model adaptive whose budget runs out during a root's
 * replay of its forecasts answers, as with auto (each such root with
 * auto, saying so), instead of failing with "interrupted" (issue 45). */
static void test_rank_adaptive_stopped(void **state)
{
    (void)state;
    struct store s;
    make_store(&s, 6, 35, -1, false);
    static const char *names[] = {"s0", "s1", "s2", "s3", "s4", "s5"};
    struct gt_cand_list l = {0};
    for (int i = 0; i < 6; i++) {
        struct gt_candidate *c = gt_cands_push(&l, names[i], 2);
        assert_non_null(c);
        const char *site = names[(i + 1) % 6], *why;
        assert_true(gt_sites_add(&c->sites, site, strlen(site), &why));
    }
    struct stop_after stop = {0, 0};   /* out at the first question */
    struct gt_adv_opts o = opts();
    o.threads = 1;
    o.model = GT_ADV_ADAPTIVE;
    o.horizon_s = 120;
    o.outcomes = 50;
    o.stop = stop_after;
    o.stop_ctx = &stop;
    struct gt_advisor *a = gt_advisor_new(s.db, &o);
    struct gt_rank_answer r;
    struct gt_error err = {0};
    assert_int_equal(gt_advice_rank(a, &l, 3, &r, &err), GT_OK);   /* GT_EINTR before */
    assert_non_null(gt_advisor_stopped(a));
    for (size_t i = 0; i < r.nbest; i++) {   /* (any shown: auto, saying why) */
        assert_int_equal(r.best[i].model, GT_ADV_AUTO);
        bool said = false;
        for (size_t k = 0; k < r.best[i].nwarn; k++)
            said = said || strstr(r.best[i].warnings[k], "answered with auto, not adaptive");
        assert_true(said || o.detail != GT_ADV_FULL);
    }
    gt_rank_answer_clear(&r);
    gt_advisor_free(a);
    gt_cands_clear(&l);
    free_store(&s);
}

/* The heuristic against exhaustive search on small pools.  Stated bound
 * (docs/ADVISOR.md): optimal on at least 80 % of pools, never more than
 * 10 % above the optimum. */
static void test_heuristic_vs_exact(void **state)
{
    (void)state;
    int optimal = 0, pools = 0;
    double worst_gap = 0;
    for (unsigned seed = 1; seed <= 10; seed++) {
        struct store s;
        make_store(&s, 9, 100 + seed, -1, seed % 2 == 0);
        struct gt_site_req pool[9];
        char names[9][16];
        for (int i = 0; i < 9; i++) {
            snprintf(names[i], sizeof names[i], "s%d", i);
            pool[i] = (struct gt_site_req){names[i], 1};
        }
        struct gt_adv_opts o = opts();
        o.rto_ms = 200;      /* the even seeds' stores lose probes */
        o.max_loss = 0.10;
        struct gt_advisor *a = gt_advisor_new(s.db, &o);
        struct gt_place_opts exact = {3, NULL, 1e9, 1, NULL, NULL}, heur = {3, NULL, 0, 1, NULL, NULL};
        struct gt_place_result re, rh;
        struct gt_error err = {0};
        assert_int_equal(gt_advisor_place(a, pool, 9, &exact, &re, &err), GT_OK);
        assert_string_equal(re.search, "exact");
        /* 9 roots x C(8, 3), some left out by their bound */
        assert_true(re.evaluated + re.pruned == 9 * 56);
        /* the pruned search finds what estimating every set finds */
        double brute = INFINITY;
        for (int r = 0; r < 9; r++)
            for (int i = 0; i < 9; i++)
                for (int j = i + 1; j < 9; j++)
                    for (int k = j + 1; k < 9; k++) {
                        if (i == r || j == r || k == r)
                            continue;
                        struct gt_site_req set[3] = {pool[i], pool[j], pool[k]};
                        struct gt_estimate e;
                        assert_int_equal(gt_advisor_estimate(a, names[r], set, 3, &e, &err),
                                         GT_OK);
                        brute = fmin(brute, e.objective_ms);
                        gt_estimate_clear(&e);
                    }
        assert_true(fabs(re.best[0].objective_ms - brute) <= 1e-12 * brute);
        assert_int_equal(gt_advisor_place(a, pool, 9, &heur, &rh, &err), GT_OK);
        assert_string_equal(rh.search, "greedy+swap");
        double gap = rh.best[0].e_max / re.best[0].e_max - 1;
        assert_true(gap > -1e-12);                      /* exact is a lower bound */
        optimal += gap < 1e-9;
        worst_gap = gap > worst_gap ? gap : worst_gap;
        pools++;
        gt_place_result_clear(&re);
        gt_place_result_clear(&rh);
        gt_advisor_free(a);
        free_store(&s);
    }
    fprintf(stderr, "placement: heuristic optimal on %d of %d pools, worst gap %.3f %%\n",
            optimal, pools, 100 * worst_gap);
    assert_true(optimal * 10 >= pools * 8);
    assert_true(worst_gap <= 0.10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_estimate_matches_direct_fits),
        cmocka_unit_test(test_missing_pairs_and_stale_data),
        cmocka_unit_test(test_heuristic_vs_exact),
        cmocka_unit_test(test_persistent_fit_cache),
        cmocka_unit_test(test_many_on_threads),
        cmocka_unit_test(test_rank_stops_showing),
        cmocka_unit_test(test_rank_adaptive_stopped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
