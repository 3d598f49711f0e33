/* test_calibrate.c - the live calibration of the quantiles (calibrate.h).
 *
 * By hand: one partner answering 90, 110, 90, ... a minute apart, method
 * normal, window m = 8 (every window four of each: mean 100, sigma
 * sqrt(800 / 7), m - 1 divisor, METHOD.md 1), so every raw quantile q_p is
 * the same, and the W = 50 outcomes give 25 scores ln(90 / q_p) and 25
 * ln(110 / q_p).  The factor is exp of the ceil(a (n + 1))-th smallest
 * score (METHOD.md 5, "Calibrated quantiles"), a within 50 x gamma = 0.05
 * of p: at p = 0.9 the 46th of 50 (a 110), at p = 0.3 the 16th (a 90), so
 * the calibrated quantiles are 110 and 90 whatever q_p; a p99 needs 99
 * outcomes, and before then it is only ever raised by the largest score,
 * here ln(110 / q_0.99) < 0: factor 1, not ready.
 *
 * By Monte Carlo: i.i.d. lognormal(0, 1.5) samples, whose normal median
 * (the mean, e^1.125) covers Phi(0.75) = 77 % of outcomes; calibrated on
 * the last 200 outcomes, the p50 answered at 400 moments, each the
 * normal's median of the last m samples (computed here) times the
 * factor, covers half of the outcomes tau samples later.
 *
 * Then the fit cache: kept, read back, and replayed when a level is
 * missing, the anchor moves or a partner is left out. */
#include "testutil.h"
#include "advisor/calibrate.h"
#include "db/backend.h"
#include "db/fitcache.h"

#define T0 1795305600
#define IV 60
#define M 8
#define TAU 2

struct store {
    char *dir;
    struct gt_db *db;
};

static void write_csv(const char *csv, const double *v, int from, int n, bool second)
{
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "ts,src,dst,rtt_ms\n");
    for (int i = from; i < n; i++) {
        fprintf(f, "%lld,r,p1,%.17g\n", (long long)T0 + IV * i, v[i]);
        if (second)
            fprintf(f, "%lld,r,p2,20\n", (long long)T0 + IV * i);
    }
    fclose(f);
}

static void make_store(struct store *s, const double *v, int n, bool second)
{
    s->dir = tmpdir_new();
    char path[256], csv[256];
    snprintf(path, sizeof path, "%s/a.db", s->dir);
    snprintf(csv, sizeof csv, "%s/in.csv", s->dir);
    write_csv(csv, v, 0, n, second);
    struct gt_error err = {0};
    assert_int_equal(gt_db_open(path, GT_DB_CREATE, 1000, &s->db, &err), GT_OK);
    ingest_csv(s->db, csv);
}

static void free_store(struct store *s)
{
    gt_db_close(s->db);
    tmpdir_free(s->dir);
}

static const double levels[3] = {0.3, 0.9, 0.99};
/* Phi^-1 of the levels (to 16 digits) */
static const double z[3] = {-0.52440051270804067, 1.2815515655446004, 2.3263478740408408};

static struct gt_calib_opts opts(size_t outcomes)
{
    struct gt_calib_opts o = {0};
    o.window = M;
    o.horizon_s = TAU * IV;
    o.outcomes = outcomes;
    o.method = GT_BT_NORMAL;
    o.at = INT64_MAX;
    o.levels = levels;
    o.nlevels = 3;
    return o;
}

static double alternating[200];

static void fill_alternating(void)
{
    for (int i = 0; i < 200; i++)
        alternating[i] = i % 2 ? 110 : 90;
}

static void test_hand(void **state)
{
    (void)state;
    fill_alternating();
    struct store s;
    make_store(&s, alternating, 200, false);
    struct gt_calib_opts o = opts(50);
    struct gt_calib c;
    struct gt_error err = {0};
    assert_int_equal(gt_calib_replay(s.db, "r", &o, &c, &err), GT_OK);
    assert_int_equal(c.outcomes, 50);
    assert_int_equal(c.lead, TAU);
    assert_int_equal(c.interval, IV);
    assert_int_equal(c.anchor, T0 + IV * 199);
    assert_false(c.stopped);
    assert_false(c.cached);
    double sigma = sqrt(800.0 / 7);
    double q[3];
    for (int k = 0; k < 3; k++)
        q[k] = 100 + sigma * z[k];
    assert_true(fabs(q[0] * c.factor[0] / 90 - 1) < 1e-5);
    assert_true(fabs(q[1] * c.factor[1] / 110 - 1) < 1e-5);
    assert_true(c.factor[2] == 1);
    assert_true(c.ready[0] && c.ready[1] && !c.ready[2]);
    gt_calib_release(&c);
    /* the same with the p99 ready: 120 outcomes, ceil(0.99 x 121) = 120,
       the largest, a 110 */
    o = opts(120);
    assert_int_equal(gt_calib_replay(s.db, "r", &o, &c, &err), GT_OK);
    assert_int_equal(c.outcomes, 120);
    assert_true(c.ready[2]);
    assert_true(fabs(q[2] * c.factor[2] / 110 - 1) < 1e-5);
    assert_true(fabs(q[1] * c.factor[1] / 110 - 1) < 1e-5);
    gt_calib_release(&c);
    /* every outcome counts by the end, the last tau + 1 too: a p99 is
       ready at 99 scores (p / (1 - p)), not at 98 */
    o = opts(99);
    assert_int_equal(gt_calib_replay(s.db, "r", &o, &c, &err), GT_OK);
    assert_true(c.ready[2]);
    gt_calib_release(&c);
    o = opts(98);
    assert_int_equal(gt_calib_replay(s.db, "r", &o, &c, &err), GT_OK);
    assert_false(c.ready[2]);
    assert_true(c.factor[2] == 1);
    gt_calib_release(&c);
    free_store(&s);
}

static double rng_gauss(uint64_t *st)
{
    return sqrt(-2 * log(test_uniform(st))) * cos(2 * M_PI * test_uniform(st));
}

/* The normal's median (its mean) of v[from..to). */
static double mean_of(const double *v, int from, int to)
{
    double s = 0;
    for (int i = from; i < to; i++)
        s += v[i];
    return s / (to - from);
}

static void test_coverage(void **state)
{
    (void)state;
    enum { W = 200, MC = 400, MW = 30, NS = W + MW + TAU + MC + 40 };
    static double v[NS];
    uint64_t st = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < NS; i++)
        v[i] = 10 * exp(1.5 * rng_gauss(&st));
    struct store s;
    make_store(&s, v, NS, false);
    static const double p50[1] = {0.5};
    struct gt_calib_opts o = opts(W);
    o.window = MW;
    o.levels = p50, o.nlevels = 1;
    int covered = 0, raw_covered = 0;
    struct gt_error err = {0};
    for (int i = 0; i < MC; i++) {
        int a = NS - TAU - 1 - MC + i;   /* the anchor; its outcome a + TAU is stored */
        o.at = T0 + (int64_t)IV * a;
        struct gt_calib c;
        assert_int_equal(gt_calib_replay(s.db, "r", &o, &c, &err), GT_OK);
        assert_int_equal(c.outcomes, W);
        assert_true(c.ready[0]);
        double raw = mean_of(v, a - MW + 1, a + 1);
        covered += v[a + TAU] <= raw * c.factor[0];
        gt_calib_release(&c);
        raw_covered += v[a + TAU] <= raw;
    }
    /* the binomial's sd is 0.025: 0.5 +- 0.08; the raw median covers
       about 0.77 */
    fprintf(stderr, "coverage: calibrated %.3f, raw %.3f\n", (double)covered / MC,
            (double)raw_covered / MC);
    assert_true(fabs((double)covered / MC - 0.5) < 0.08);
    assert_true((double)raw_covered / MC > 0.65);
    free_store(&s);
}

static void save(struct store *s, const struct gt_calib_opts *o, const struct gt_calib *c)
{
    struct gt_error err = {0};
    assert_int_equal(gt_db_begin(s->db, &err), GT_OK);
    assert_int_equal(gt_calib_save(s->db, o, c, &err), GT_OK);
    assert_int_equal(gt_db_commit(s->db, &err), GT_OK);
}

static const char *stop_now(void *ctx)
{
    (void)ctx;
    return "budget";
}

static void test_cache(void **state)
{
    (void)state;
    fill_alternating();
    struct store s;
    make_store(&s, alternating, 150, true);
    struct gt_calib_opts o = opts(50);
    struct gt_calib c, d;
    struct gt_error err = {0};
    assert_int_equal(gt_calib_track(s.db, "r", &o, &c, &err), GT_OK);
    assert_false(c.cached);
    assert_int_equal(c.scope.count, 2);
    save(&s, &o, &c);
    assert_int_equal(gt_calib_track(s.db, "r", &o, &d, &err), GT_OK);
    assert_true(d.cached);
    assert_int_equal(d.outcomes, 50);
    for (int k = 0; k < 3; k++) {
        assert_true(d.factor[k] == c.factor[k]);
        assert_true(d.ready[k] == c.ready[k]);
    }
    /* a subset of the levels, in another order: read per level */
    static const double two[2] = {0.99, 0.3};
    o.levels = two, o.nlevels = 2;
    gt_calib_release(&d);
    assert_int_equal(gt_calib_track(s.db, "r", &o, &d, &err), GT_OK);
    assert_true(d.cached);
    assert_true(d.factor[0] == c.factor[2] && d.factor[1] == c.factor[0]);
    /* a level the record lacks: replayed */
    static const double other[2] = {0.9, 0.5};
    o.levels = other;
    gt_calib_release(&d);
    assert_int_equal(gt_calib_track(s.db, "r", &o, &d, &err), GT_OK);
    assert_false(d.cached);
    assert_true(d.factor[0] == c.factor[1]);
    o.levels = levels, o.nlevels = 3;
    /* one partner named: another scope, replayed */
    const char *p1[] = {"p1"};
    o.sites = p1, o.nsites = 1;
    gt_calib_release(&d);
    assert_int_equal(gt_calib_track(s.db, "r", &o, &d, &err), GT_OK);
    assert_false(d.cached);
    assert_int_equal(d.scope.count, 1);
    o.sites = NULL, o.nsites = 0;
    /* a newer sample: the anchor moves, replayed */
    char csv[256];
    snprintf(csv, sizeof csv, "%s/more.csv", s.dir);
    write_csv(csv, alternating, 150, 151, true);
    ingest_csv(s.db, csv);
    gt_calib_release(&d);
    assert_int_equal(gt_calib_track(s.db, "r", &o, &d, &err), GT_OK);
    assert_false(d.cached);
    assert_int_equal(d.anchor, T0 + IV * 150);
    /* a stopped replay: the model's quantiles, and nothing kept */
    o.stop = stop_now;
    gt_calib_release(&d);
    assert_int_equal(gt_calib_track(s.db, "r", &o, &d, &err), GT_OK);
    assert_true(d.stopped);
    assert_int_equal(d.outcomes, 0);
    assert_true(d.factor[0] == 1 && d.factor[1] == 1 && d.factor[2] == 1);
    save(&s, &o, &d);
    o.stop = NULL;
    gt_calib_release(&d);
    assert_int_equal(gt_calib_track(s.db, "r", &o, &d, &err), GT_OK);
    assert_false(d.cached);
    gt_calib_release(&d);
    gt_calib_release(&c);
    free_store(&s);
}

/* Many at once on two threads: as one at a time. */
static void test_many(void **state)
{
    (void)state;
    fill_alternating();
    struct store s;
    make_store(&s, alternating, 150, true);
    struct gt_calib_job jobs[3];
    const char *p1[] = {"p1"}, *p2[] = {"p2"};
    for (int i = 0; i < 3; i++) {
        jobs[i].root = "r";
        jobs[i].o = opts(40 + 5 * (size_t)i);
    }
    jobs[1].o.sites = p1, jobs[1].o.nsites = 1;
    jobs[2].o.sites = p2, jobs[2].o.nsites = 1;
    struct gt_error err = {0};
    assert_int_equal(gt_calib_track_many(s.db, jobs, 3, 2, NULL, NULL, &err), GT_OK);
    for (int i = 0; i < 3; i++) {
        struct gt_calib c;
        assert_int_equal(gt_calib_replay(s.db, "r", &jobs[i].o, &c, &err), GT_OK);
        assert_int_equal(jobs[i].out.outcomes, 40 + 5 * i);
        for (int k = 0; k < 3; k++)
            assert_true(jobs[i].out.factor[k] == c.factor[k]);
        gt_calib_release(&c);
    }
    /* p2 alone answers 20 every time: a point mass, every score 0 */
    for (int k = 0; k < 3; k++)
        assert_true(jobs[2].out.factor[k] == 1);
    for (int i = 0; i < 3; i++)
        gt_calib_release(&jobs[i].out);
    free_store(&s);
}

static void test_none_and_bounds(void **state)
{
    (void)state;
    fill_alternating();
    struct store s;
    make_store(&s, alternating, 60, false);
    struct gt_calib_opts o = opts(50);
    struct gt_calib c;
    struct gt_error err = {0};
    assert_int_equal(gt_calib_track(s.db, "nowhere", &o, &c, &err), GT_OK);
    assert_int_equal(c.outcomes, 0);
    assert_true(c.factor[0] == 1 && c.factor[1] == 1 && c.factor[2] == 1);
    struct gt_calib_opts bad[4] = {opts(50), opts(0), opts(GT_CALIB_MAX_OUTCOMES + 1),
                                   opts(50)};
    bad[0].method = GT_BT_LAST;
    bad[3].nlevels = 0;
    for (int i = 0; i < 4; i++) {
        gt_error_clear(&err);
        assert_int_equal(gt_calib_replay(s.db, "r", &bad[i], &c, &err), GT_EUSAGE);
    }
    free_store(&s);
}

/* ---- kept states: advanced, they are one replay from the same first moment */

/* Three partners over NS slots: p1 lognormal with losses (empty rtt),
 * p2 the same scaled, p3 half a minute off the minute either way and now
 * and then twice in a slot; rows [from, to) of p1 and p3, and of p2 up to
 * p2_to, into csv. */
enum { NS = 420 };
static double xs[3][NS];

static void make_series(void)
{
    uint64_t st = 0x243f6a8885a308d3ull;
    for (int i = 0; i < NS; i++)
        for (int j = 0; j < 3; j++)
            xs[j][i] = (j + 1) * 20 * exp(0.6 * sqrt(-2 * log(test_uniform(&st))) *
                                          cos(2 * M_PI * test_uniform(&st)));
}

static void write_rows(const char *csv, int from, int to, int p2_from, int p2_to)
{
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "ts,src,dst,rtt_ms\n");
    for (int i = from; i < to; i++) {
        long long t = (long long)T0 + IV * i;
        if (i % 17 == 5)
            fprintf(f, "%lld,r,p1,\n", t);   /* lost */
        else
            fprintf(f, "%lld,r,p1,%.17g\n", t, xs[0][i]);
        fprintf(f, "%lld,r,p3,%.17g\n", t + (i % 2 ? 25 : -25), xs[2][i]);
        if (i % 29 == 3)
            fprintf(f, "%lld,r,p3,%.17g\n", t + 10, 1.5 * xs[2][i]);
    }
    for (int i = p2_from; i < p2_to; i++)
        fprintf(f, "%lld,r,p2,%.17g\n", (long long)T0 + IV * i, xs[1][i]);
    fclose(f);
}

static void ingest_rows(struct store *s, int from, int to, int p2_from, int p2_to)
{
    char csv[256];
    snprintf(csv, sizeof csv, "%s/rows.csv", s->dir);
    write_rows(csv, from, to, p2_from, p2_to);
    ingest_csv(s->db, csv);
}

/* c (a kept state's answer) against one replay from its first moment:
 * the same factors bit for bit, the same readiness and outcomes. */
static void same_as_replay(struct store *s, const struct gt_calib_opts *o,
                           const struct gt_calib *c, int64_t origin)
{
    struct gt_calib r;
    struct gt_error err = {0};
    assert_int_equal(gt_calib_replay_from(s->db, "r", o, origin, &r, &err), GT_OK);
    assert_true(r.origin == origin);
    assert_true(r.outcomes == c->outcomes);
    for (size_t k = 0; k < o->nlevels; k++) {
        if (r.factor[k] != c->factor[k])
            fprintf(stderr, "level %zu: kept %.17g, replay %.17g\n", k, c->factor[k],
                    r.factor[k]);
        assert_true(r.factor[k] == c->factor[k]);
        assert_true(r.ready[k] == c->ready[k]);
    }
    gt_calib_release(&r);
}

static void track_and_keep(struct store *s, const struct gt_calib_opts *o, struct gt_calib *c)
{
    struct gt_error err = {0};
    assert_int_equal(gt_calib_track(s->db, "r", o, c, &err), GT_OK);
    save(s, o, c);
}

/* A store of the three partners' first 150 slots. */
static void series_store(struct store *s)
{
    make_series();
    s->dir = tmpdir_new();
    char path[256];
    snprintf(path, sizeof path, "%s/a.db", s->dir);
    struct gt_error err = {0};
    assert_int_equal(gt_db_open(path, GT_DB_CREATE, 1000, &s->db, &err), GT_OK);
    ingest_rows(s, 0, 150, 0, 150);
}

static void check_states(int method, struct gt_calib_memo *memo)
{
    struct store s;
    series_store(&s);
    struct gt_error err = {0};
    struct gt_calib_opts o = opts(60);
    o.method = method;
    o.memo = memo;
    o.window = 16;
    struct gt_calib c;
    /* the first answer: a replay of the last W moments, kept */
    track_and_keep(&s, &o, &c);
    assert_false(c.cached);
    int64_t origin = c.origin;
    assert_true(origin == T0 + IV * (149 - TAU - 60 + 1));
    same_as_replay(&s, &o, &c, origin);
    gt_calib_release(&c);
    /* the same anchor: the kept answer */
    track_and_keep(&s, &o, &c);
    assert_true(c.cached);
    same_as_replay(&s, &o, &c, origin);
    gt_calib_release(&c);
    /* newer samples, p2 lagging 20 behind: advanced, not replayed */
    ingest_rows(&s, 150, 190, 150, 170);
    track_and_keep(&s, &o, &c);
    assert_false(c.cached);
    assert_true(c.origin == origin);
    same_as_replay(&s, &o, &c, origin);
    gt_calib_release(&c);
    /* one slot at a time, kept each time */
    for (int i = 190; i < 196; i++) {
        ingest_rows(&s, i, i + 1, 0, 0);
        track_and_keep(&s, &o, &c);
        same_as_replay(&s, &o, &c, origin);
        gt_calib_release(&c);
    }
    /* an --at in the past reads no sample after it: the last W moments
       before it replayed, as a fresh replay gives them, and nothing kept */
    struct gt_calib_opts past = o;
    past.at = T0 + IV * 170;
    assert_int_equal(gt_calib_track(s.db, "r", &past, &c, &err), GT_OK);
    assert_false(c.current);
    struct gt_calib f;
    assert_int_equal(gt_calib_replay(s.db, "r", &past, &f, &err), GT_OK);
    for (size_t k = 0; k < 3; k++)
        assert_true(c.factor[k] == f.factor[k]);
    gt_calib_release(&c);
    gt_calib_release(&f);
    /* an advance that is never kept (the answer killed before its write):
       the next one goes on from the state before, and is still right */
    ingest_rows(&s, 196, 205, 0, 0);
    assert_int_equal(gt_calib_track(s.db, "r", &o, &c, &err), GT_OK);
    gt_calib_release(&c);
    ingest_rows(&s, 205, 210, 0, 0);
    track_and_keep(&s, &o, &c);
    same_as_replay(&s, &o, &c, origin);
    gt_calib_release(&c);
    /* p2's late samples (older than what the state read): the state goes,
       the answer is a new replay of the last W moments */
    ingest_rows(&s, 0, 0, 170, 210);
    track_and_keep(&s, &o, &c);
    assert_false(c.cached);
    assert_true(c.origin == T0 + IV * (209 - TAU - 60 + 1));
    assert_int_equal(gt_calib_replay(s.db, "r", &o, &f, &err), GT_OK);
    for (size_t k = 0; k < 3; k++)
        assert_true(c.factor[k] == f.factor[k]);
    gt_calib_release(&f);
    int64_t origin2 = c.origin;
    gt_calib_release(&c);
    /* a sample in the anchor's own slot, older than the anchor: the kept
       answer goes, the state stays */
    ingest_rows(&s, 210, 240, 210, 240);
    track_and_keep(&s, &o, &c);
    gt_calib_release(&c);
    FILE *fp;
    char csv[256];
    snprintf(csv, sizeof csv, "%s/slot.csv", s.dir);
    assert_non_null(fp = fopen(csv, "w"));
    fprintf(fp, "ts,src,dst,rtt_ms\n%lld,r,p1,%.17g\n", (long long)T0 + IV * 239 - 5, 400.0);
    fclose(fp);
    ingest_csv(s.db, csv);
    track_and_keep(&s, &o, &c);
    assert_false(c.cached);
    assert_true(c.origin == origin2);
    same_as_replay(&s, &o, &c, origin2);
    gt_calib_release(&c);
    /* more than W moments later: a new replay of the last W */
    ingest_rows(&s, 240, 320, 240, 320);
    track_and_keep(&s, &o, &c);
    assert_true(c.origin == T0 + IV * (319 - TAU - 60 + 1));
    gt_calib_release(&c);
    free_store(&s);
}

static void test_states_normal(void **state)
{
    (void)state;
    check_states(GT_BT_NORMAL, NULL);
}

static void test_states_auto(void **state)
{
    (void)state;
    check_states(GT_BT_AUTO, NULL);
}

/* The same with a server's copies of the states (calibmemo.h): every
 * answer as without them, bit for bit, and the states gone on read from
 * the copies; a copy the store no longer holds as it is (a late sample
 * dropped or changed it) is not used. */
static void test_states_memo(void **state)
{
    (void)state;
    struct gt_calib_memo *memo = gt_calib_memo_new(8, 1 << 24);
    assert_non_null(memo);
    check_states(GT_BT_AUTO, memo);
    struct gt_calib_memo_stats st;
    gt_calib_memo_stats(memo, &st);
    assert_true(st.hits >= 5);
    assert_true(st.states >= 1 && st.bytes > 0);
    gt_calib_memo_free(memo);
}

/* blob_scan's callback: the first calibration state's key and bytes */
struct found_state {
    char key[200];
    long window;
    char *blob;
    size_t bytes;
};

static int take_first_state(void *ctx, long window, const char *key, int64_t src,
                            const void *blob, size_t bytes)
{
    (void)src;
    struct found_state *f = ctx;
    if (f->blob || strncmp(key, "calib3:", 7))
        return GT_OK;
    snprintf(f->key, sizeof f->key, "%s", key);
    f->window = window;
    f->blob = malloc(bytes);
    memcpy(f->blob, blob, bytes);
    f->bytes = bytes;
    return GT_OK;
}

/* A kept state cut short or with its lengths and times corrupted is
 * refused whole, never read past its end: the answer is a new replay,
 * the one an answer without a state gives. */
static void test_corrupt_states(void **state)
{
    (void)state;
    struct store s;
    series_store(&s);
    struct gt_error err = {0};
    struct gt_calib_opts o = opts(60);
    o.window = 16;
    struct gt_calib c, fresh;
    track_and_keep(&s, &o, &c);
    gt_calib_release(&c);
    ingest_rows(&s, 150, 152, 150, 152);   /* the kept answer no longer fits */
    assert_int_equal(gt_calib_replay(s.db, "r", &o, &fresh, &err), GT_OK);
    struct found_state f = {{0}, 0, NULL, 0};
    int64_t root;
    assert_int_equal(gt_db_scalar(s.db, "SELECT id FROM sites WHERE name = 'r'",
                                  (long long *)&root, &err), GT_OK);
    assert_int_equal(s.db->be->blob_scan(s.db, root, take_first_state, &f, &err), GT_OK);
    assert_non_null(f.blob);
    /* the head (16 bytes of fitcache.c's) is not ours to break: the rest is */
    size_t cuts[] = {17, 40, 100, f.bytes / 2, f.bytes - 9, f.bytes - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts + 8; i++) {
        char *b = malloc(f.bytes);
        memcpy(b, f.blob, f.bytes);
        size_t n = f.bytes;
        size_t body = 16 + sizeof(struct gt_calibstate_head);   /* fitcache header + head */
        if (i < sizeof cuts / sizeof *cuts) {
            n = cuts[i];
        } else {   /* a field of struct saved made large, negative or odd */
            size_t at = body + 8 * (i - sizeof cuts / sizeof *cuts) * 7 % 200;
            int64_t v = i % 2 ? INT64_MAX : -5;
            memcpy(b + at, &v, sizeof v);
        }
        assert_int_equal(gt_db_begin(s.db, &err), GT_OK);
        assert_int_equal(s.db->be->blob_put(s.db, f.window, f.key, root, b, n, &err), GT_OK);
        assert_int_equal(gt_db_commit(s.db, &err), GT_OK);
        free(b);
        assert_int_equal(gt_calib_track(s.db, "r", &o, &c, &err), GT_OK);
        assert_false(c.cached);
        if (!c.resumed)   /* refused: a new replay of the last W moments */
            for (size_t k = 0; k < 3; k++)
                assert_true(c.factor[k] == fresh.factor[k]);
        gt_calib_release(&c);
    }
    free(f.blob);
    gt_calib_release(&fresh);
    free_store(&s);
}

/* A live answer and the backtest's own calibrator at the same moment,
 * same options and origin (METHOD.md 5, "Kept states"): the answer at
 * anchor A has seen every outcome up to A, as the backtest's calibrator
 * has when it issues the forecast of the moment after A (made from the
 * samples up to A).  Its calibrated quantiles are the raw ones times the
 * live answer's factors, bit for bit, on a store with losses, samples off
 * the minute and twice in a slot, and a lagging partner. */
struct bt_seen {
    int64_t t;
    double q[GT_BT_NQ], qc[GT_BT_NQ];
    bool found;
};

static void seen_moment(void *ctx, const struct gt_bt_moment *m)
{
    struct bt_seen *b = ctx;
    if (m->t != b->t || !m->q || !m->qcal)
        return;
    memcpy(b->q, m->q, sizeof b->q);
    memcpy(b->qc, m->qcal, sizeof b->qc);
    b->found = true;
}

static void live_as_backtest(int method)
{
    static const double bt_levels[GT_BT_NQ] = {0.5, 0.9, 0.99};
    struct store s;
    series_store(&s);
    ingest_rows(&s, 150, 240, 150, 220);   /* p2 20 behind */
    struct gt_error err = {0};
    for (int at = 160; at <= 220; at += 30) {   /* even slots: no sample after A in A's */
        struct gt_calib_opts o = opts(60);
        o.method = method;
        o.window = 16;
        o.levels = bt_levels;
        o.at = T0 + IV * at;
        struct gt_calib c;
        assert_int_equal(gt_calib_replay(s.db, "r", &o, &c, &err), GT_OK);
        assert_int_equal(c.outcomes, 60);
        struct bt_seen seen = {o.at + IV, {0}, {0}, false};
        struct gt_bt_opts bo = {
            .windows = {16}, .nwindows = 1, .taus = {TAU}, .ntaus = 1, .stride = 1,
            .methods = 1u << method, .from = c.origin, .to = o.at + IV, .interval = IV,
            .drop_loss = 2, .calibration = true, .cal_window = 60,
            .cal_gamma = GT_BT_CAL_GAMMA, .shrink = GT_BT_SHRINK,
            .combine_horizon = GT_BT_COMBINE_HORIZON,
            .verdict = {GT_VERDICT_MAX_KS, GT_VERDICT_MARGIN}, .epsrel = 1e-6, .root = "r",
            .threads = 1, .moment = seen_moment, .moment_ctx = &seen,
        };
        struct gt_bt_result *r = NULL;
        assert_int_equal(gt_backtest_run_on(s.db, &bo, &r, &err), GT_OK);
        gt_bt_result_free(r);
        assert_true(seen.found);
        for (int k = 0; k < GT_BT_NQ; k++) {
            double live = seen.q[k] * c.factor[k];
            if (memcmp(&live, &seen.qc[k], sizeof live))
                fprintf(stderr, "at %d, level %d: live %.17g, backtest %.17g\n", at, k, live,
                        seen.qc[k]);
            assert_memory_equal(&live, &seen.qc[k], sizeof live);
        }
        gt_calib_release(&c);
    }
    free_store(&s);
}

static void test_live_as_backtest(void **state)
{
    (void)state;
    live_as_backtest(GT_BT_NORMAL);
    live_as_backtest(GT_BT_AUTO);
}

/* A pair with one sample (a probe's first) has no spacing to tell the
 * interval by: its root's calibration is the model's quantiles, and
 * every other root's is unchanged (issue 45, point 5: "out of memory",
 * for the root's answers and refit --calibrate of the whole store). */
static void test_one_sample_pair(void **state)
{
    (void)state;
    struct store s;
    series_store(&s);
    char csv[256];
    snprintf(csv, sizeof csv, "%s/one.csv", s.dir);
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "ts,src,dst,rtt_ms\n%lld,q,r,12.5\n", (long long)T0 + IV * 149);
    fclose(f);
    ingest_csv(s.db, csv);
    struct gt_error err = {0};
    struct gt_calib_opts o = opts(60);
    o.window = 16;
    struct gt_calib c, r;
    assert_int_equal(gt_calib_track(s.db, "q", &o, &c, &err), GT_OK);
    assert_int_equal(c.outcomes, 0);
    for (size_t k = 0; k < 3; k++)
        assert_true(c.factor[k] == 1);
    gt_calib_release(&c);
    assert_int_equal(gt_calib_track(s.db, "r", &o, &c, &err), GT_OK);
    assert_int_equal(c.outcomes, 60);
    assert_int_equal(gt_calib_replay(s.db, "r", &o, &r, &err), GT_OK);
    for (size_t k = 0; k < 3; k++)
        assert_true(c.factor[k] == r.factor[k]);
    gt_calib_release(&c);
    gt_calib_release(&r);
    free_store(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand),
        cmocka_unit_test(test_coverage),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_many),
        cmocka_unit_test(test_none_and_bounds),
        cmocka_unit_test(test_states_normal),
        cmocka_unit_test(test_states_auto),
        cmocka_unit_test(test_states_memo),
        cmocka_unit_test(test_corrupt_states),
        cmocka_unit_test(test_live_as_backtest),
        cmocka_unit_test(test_one_sample_pair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
