/* test_models.c - the companion models against hand-worked cases:
 * neighbour exchange times, crossover and schedule (METHOD.md 5), and the
 * extrapolation models' fits, scores and choices (METHOD.md 7). */
#include "testutil.h"
#include "estimators/companion/extrap.h"
#include "estimators/companion/loggps.h"
#include "estimators/companion/neighbor.h"
#include "estimators/companion/topology.h"

#define NEAR(a, b, tol) assert_true(fabs((double)(a) - (double)(b)) <= (tol))

/* The paper's example: 6 neighbours, 4 NICs. */
static void test_neighbor_six_over_four(void **state)
{
    (void)state;
    struct gt_neighbor r;
    const char *why;
    /* L = 2 us, B = 1e9 B/s, M = 1e6 B: D_prev = 2 L + 2 M/B, D_prop = 3 L + 1.5 M/B */
    assert_true(gt_neighbor_eval(6, 4, 1e6, 2e-6, 1e9, &r, &why));
    assert_int_equal(r.g, 2);
    assert_int_equal(r.n1, 3);
    assert_int_equal(r.c1, 2);
    assert_int_equal(r.rounds_prev, 2);
    NEAR(r.segment_bytes, 5e5, 0);
    NEAR(r.d_prev, 4e-6 + 2e-3, 1e-15);
    NEAR(r.d_proposed, 6e-6 + 1.5e-3, 1e-15);
    NEAR(r.speedup_large, 4.0 / 3, 1e-15);
    /* crossover: 2 L + 2 M/B = 3 L + 1.5 M/B at M = 2 L B */
    NEAR(r.crossover_bytes, 2 * 2e-6 * 1e9, 1e-9);
    struct gt_neighbor at;
    assert_true(gt_neighbor_eval(6, 4, r.crossover_bytes, 2e-6, 1e9, &at, &why));
    NEAR(at.d_prev, at.d_proposed, 1e-15);
    /* C divides N: no idle devices, never faster; N' <= ceil(N/C): always */
    assert_true(gt_neighbor_eval(8, 4, 1e6, 2e-6, 1e9, &r, &why));
    assert_true(isinf(r.crossover_bytes));
    NEAR(r.d_prev, r.d_proposed, 1e-15);
    assert_true(gt_neighbor_eval(5, 3, 1e6, 2e-6, 1e9, &r, &why));   /* N' = 5 > 2 */
    assert_true(r.crossover_bytes > 0 && isfinite(r.crossover_bytes));
    /* outside the domain, with the paper's reasons */
    assert_false(gt_neighbor_eval(4, 4, 1, 1, 1, &r, &why));
    assert_non_null(strstr(why, "N > C"));
    assert_false(gt_neighbor_eval(6, 1, 1, 1, 1, &r, &why));
    assert_non_null(strstr(why, "C > 1"));
}

static void test_neighbor_schedules(void **state)
{
    (void)state;
    struct gt_neighbor_slot s[64 * 64];
    gt_neighbor_schedule(6, 4, s);
    /* Fig. 4: step 1 sends segment 0 to neighbours 4, 5 and segment 1 to 0, 1 */
    assert_int_equal(s[4].neighbor, 4);
    assert_int_equal(s[4].segment, 0);
    assert_int_equal(s[6].neighbor, 0);
    assert_int_equal(s[6].segment, 1);
    assert_null(gt_neighbor_schedule_check(6, 4, s, 12));
    for (long n = 3; n <= 40; n++)
        for (long c = 2; c < n && c <= 40; c++) {
            struct gt_neighbor r;
            const char *why;
            assert_true(gt_neighbor_eval(n, c, 1, 1, 1, &r, &why));
            gt_neighbor_schedule(n, c, s);
            assert_null(gt_neighbor_schedule_check(n, c, s, (size_t)(r.n1 * c)));
        }
    /* the check catches a broken schedule */
    gt_neighbor_schedule(6, 4, s);
    s[1].neighbor = 0;
    assert_non_null(gt_neighbor_schedule_check(6, 4, s, 12));
}

static void run(const double *n, const double *t, size_t m, double at, struct gt_extrap *x)
{
    struct gt_error err = {0};
    assert_int_equal(gt_extrap_run(n, t, m, at, x, &err), GT_OK);
}

/* The four classic models on hand-worked samples. */
static void test_extrap_classic(void **state)
{
    (void)state;
    struct gt_extrap x;
    /* constant: mean 12.5, 20 dropped, c = 10, sd 1: d = 0.1 */
    double n1[] = {1, 2, 4, 8}, t1[] = {9, 10, 11, 20};
    run(n1, t1, 4, 64, &x);
    NEAR(x.fit[GT_X_CONSTANT].p[0], 10, 1e-12);
    NEAR(x.fit[GT_X_CONSTANT].score, 0.1, 1e-12);
    assert_int_equal(x.fit[GT_X_CONSTANT].dropped, 3);
    /* linear on (1,1) (2,2) (3,4): a = 1.5, b = -2/3, d = sqrt(1/6) / (7/3) */
    double n2[] = {1, 2, 3}, t2[] = {1, 2, 4};
    run(n2, t2, 3, 10, &x);
    NEAR(x.fit[GT_X_LINEAR].p[0], 1.5, 1e-12);
    NEAR(x.fit[GT_X_LINEAR].p[1], -2.0 / 3, 1e-12);
    NEAR(x.fit[GT_X_LINEAR].score, sqrt(1.0 / 6) / (7.0 / 3), 1e-12);
    NEAR(x.fit[GT_X_LINEAR].prediction, 15 - 2.0 / 3, 1e-12);
    /* inverse: k_i = 100, 100, 100, 130 -> 130 dropped, k = 100, d = 0 */
    double n3[] = {1, 2, 4, 10}, t3[] = {100, 50, 25, 13};
    run(n3, t3, 4, 100, &x);
    NEAR(x.fit[GT_X_INVERSE].p[0], 100, 1e-12);
    NEAR(x.fit[GT_X_INVERSE].score, 0, 1e-15);
    assert_int_equal(x.classic, GT_X_INVERSE);
    NEAR(x.fit[GT_X_INVERSE].prediction, 1, 1e-12);
    /* inverse-constant exact: t = 100/n + 3; inverse's d > 0 */
    double n4[] = {2, 4, 8, 16}, t4[4];
    for (int i = 0; i < 4; i++)
        t4[i] = 100 / n4[i] + 3;
    run(n4, t4, 4, 64, &x);
    NEAR(x.fit[GT_X_INVERSE_CONSTANT].p[0], 100, 1e-9);
    NEAR(x.fit[GT_X_INVERSE_CONSTANT].p[1], 3, 1e-9);
    assert_int_equal(x.classic, GT_X_INVERSE_CONSTANT);
    NEAR(x.fit[x.classic].prediction, 100.0 / 64 + 3, 1e-9);
    assert_true(x.fit[GT_X_INVERSE].score > 0.01);
    NEAR(x.fit[GT_X_INVERSE_CONSTANT].loo, 0, 1e-9);   /* exact data predicts itself */
    NEAR(x.reach, 4, 0);
}

/* The wider family: a power law recovered, leave-one-out preferring it. */
static void test_extrap_wider(void **state)
{
    (void)state;
    struct gt_extrap x;
    double n[] = {1, 2, 4, 8, 16, 32}, t[6];
    for (int i = 0; i < 6; i++)
        t[i] = 5 * sqrt(n[i]) + 2;
    run(n, t, 6, 1024, &x);
    NEAR(x.fit[GT_X_POWER].p[1], 0.5, 1e-6);
    NEAR(x.fit[GT_X_POWER].p[0], 5, 1e-5);
    NEAR(x.fit[GT_X_POWER].p[2], 2, 1e-5);
    assert_int_equal(x.loo_best, GT_X_POWER);
    NEAR(x.fit[GT_X_POWER].prediction, 5 * 32 + 2, 1e-3);
    /* log data: a + b ln n */
    for (int i = 0; i < 6; i++)
        t[i] = 7 + 3 * log(n[i]);
    run(n, t, 6, 64, &x);
    NEAR(x.fit[GT_X_LOG].p[0], 7, 1e-9);
    NEAR(x.fit[GT_X_LOG].p[1], 3, 1e-9);
    assert_true(x.fit[GT_X_LOG].loo < 1e-9);
    /* bad input */
    struct gt_error err = {0};
    double bad_n[] = {1, 2}, bad_t[] = {1, 2};
    assert_int_equal(gt_extrap_run(bad_n, bad_t, 2, 8, &x, &err), GT_EINPUT);
    gt_error_clear(&err);
    double zero_n[] = {0, 2, 4};
    assert_int_equal(gt_extrap_run(zero_n, t, 3, 8, &x, &err), GT_EINPUT);
    gt_error_clear(&err);
    /* every n equal: only the constant and inverse models fit */
    double same_n[] = {4, 4, 4}, same_t[] = {1, 2, 3};
    run(same_n, same_t, 3, 8, &x);
    assert_false(x.fit[GT_X_LINEAR].ok);
    assert_true(x.fit[GT_X_CONSTANT].ok);
}

/* LogGPS costs worked by hand from the Myrinet set (METHOD.md 4). */
static void test_loggps_costs(void **state)
{
    (void)state;
    const struct gt_loggps *m = gt_loggps_builtin("myrinet");
    assert_non_null(m);
    /* short, 4096 B: T1 + T2 + T3 */
    double t1 = 6730 + 4096 * 5.02, t2 = 4096 * 15.17 + 850, t3 = 6730 + 4096 * 4.72;
    NEAR(gt_loggps_time(m, 4096, 1, 0), t1 + t2 + t3, 1e-6);
    assert_string_equal(gt_loggps_regime(m, 4096), "short");
    /* eager, 12000 B: T2' = s Gs + (k - s) Gl + L */
    double e2 = 8191 * 15.17 + (12000 - 8191) * 0.04 + 850;
    NEAR(gt_loggps_time(m, 12000, 1, 0), 6730 + 12000 * 5.02 + e2 + 6730 + 12000 * 4.72, 1e-6);
    /* rendezvous, 20000 B: T4 + T5 + T1' + T2' + T3' = 340859.83 */
    NEAR(gt_loggps_time(m, 20000, 1, 0), 340859.83, 1e-6);
    /* a late receiver (tr - ts = 1e5) delays the ACK: T4 = 1e5 + o' */
    NEAR(gt_loggps_time(m, 20000, 1, 1e5) - gt_loggps_time(m, 20000, 1, 0),
         1e5 - (6730 + 850), 1e-6);
    /* 4 senders share the receiver: the gap terms four times */
    NEAR(gt_loggps_time(m, 4096, 4, 0) - gt_loggps_time(m, 4096, 1, 0), 3 * 4096 * 15.17,
         1e-6);
    /* Table 4 */
    struct gt_loggps_calls c;
    gt_loggps_calls(m, 4096, 1, 0, 0, &c);
    NEAR(c.send, t1, 1e-9);
    NEAR(c.recv, t1 + t2 + t3, 1e-6);
    NEAR(c.isend, 6730, 0);
    gt_loggps_calls(m, 4096, 1, 200000, 1e9, &c);   /* the data waits for the receiver */
    NEAR(c.recv, t3, 1e-9);
    NEAR(c.wait_send, 6730, 0);                      /* long done: o' */
    gt_loggps_calls(m, 20000, 1, 0, 0, &c);
    NEAR(c.send, 14310 + 14310 + 6730 + 20000 * 4.80, 1e-6);
    NEAR(c.recv, 340859.83, 1e-6);
}

static void test_loggps_files(void **state)
{
    (void)state;
    static const char *files[] = {"myrinet", "fast-ethernet"};
    for (int i = 0; i < 2; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/etc/loggps/%s.conf", getenv("GT_ROOT") ?
                 getenv("GT_ROOT") : "../..", files[i]);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        struct gt_loggps m;
        struct gt_error err = {0};
        assert_int_equal(gt_loggps_read(f, path, &m, &err), GT_OK);
        fclose(f);
        const struct gt_loggps *b = gt_loggps_builtin(files[i]);
        assert_string_equal(m.name, b->name);
        assert_memory_equal(&m.L, &b->L, 10 * sizeof(double));
    }
    static const char bad[] = "L = 1\no = 2\nOss = x\n";
    FILE *f = fmemopen((void *)bad, sizeof bad - 1, "r");
    struct gt_loggps m;
    struct gt_error err = {0};
    assert_int_equal(gt_loggps_read(f, "p.conf", &m, &err), GT_EINPUT);
    assert_string_equal(err.where, "p.conf:3");
    fclose(f);
    static const char missing[] = "L = 1\n";
    f = fmemopen((void *)missing, sizeof missing - 1, "r");
    gt_error_clear(&err);
    assert_int_equal(gt_loggps_read(f, "p.conf", &m, &err), GT_EINPUT);
    assert_non_null(strstr(err.msg, "missing"));
    fclose(f);
}

/* Ping-pong times made from the Myrinet set with 1 % noise: the fit finds
 * the breakpoints and slopes it was made from. */
static void test_loggps_fit(void **state)
{
    (void)state;
    const struct gt_loggps *m = gt_loggps_builtin("myrinet");
    double k[400], t[400];
    size_t n = 0;
    unsigned seed = 7;
    for (int e = 0; e <= 16; e++)
        for (int j = 0; j < 4; j++) {
            double sz = e == 0 ? j : (1 << e) * (1 + j / 4.0);
            for (int r = 0; sz <= 65536 && r < 3; r++) {
                double u = (rand_r(&seed) + 0.5) / (RAND_MAX + 1.0);
                k[n] = sz;
                t[n++] = gt_loggps_time(m, sz, 1, 0) * (1 + 0.01 * (u - 0.5));
            }
        }
    struct gt_loggps_fit f;
    struct gt_error err = {0};
    assert_int_equal(gt_loggps_fit(k, t, n, 6730, &f, &err), GT_OK);
    assert_int_equal(f.regimes, 3);
    assert_true(f.s_lo <= 8191 && 8191 <= f.s_hi);
    assert_true(f.S_lo <= 16383 && 16383 <= f.S_hi);
    assert_true(fabs(f.a0 / (2 * 6730 + 850) - 1) < 0.01);
    assert_true(fabs(f.b[0] / (5.02 + 15.17 + 4.72) - 1) < 0.01);
    assert_true(fabs(f.b[1] / (5.02 + 0.04 + 4.72) - 1) < 0.02);
    assert_true(fabs(f.b[2] / (4.80 + 3.86 + 0.04) - 1) < 0.02);
    assert_true(fabs(f.L - 850) < 100);
    assert_true(f.max_rel < 0.01);
    /* one line: one regime, no breakpoints */
    double k1[] = {0, 100, 200, 300, 400}, t1[] = {10, 20, 30, 40, 50};
    assert_int_equal(gt_loggps_fit(k1, t1, 5, NAN, &f, &err), GT_OK);
    assert_int_equal(f.regimes, 1);
    NEAR(f.b[0], 0.1, 1e-12);
    assert_true(isnan(f.L));
    assert_int_equal(gt_loggps_fit(k1, t1, 3, NAN, &f, &err), GT_EINPUT);
}

/* A hand-made network: sender i sends one message along paths[i]. */
struct custom {
    const uint32_t (*paths)[3];
    const size_t *plen;
    double bytes;
};

static bool custom_next(void *ctx, size_t node, size_t k, size_t *dst, double *bytes)
{
    struct custom *c = ctx;
    *dst = node + 100;   /* anywhere else: the route says how */
    *bytes = c->bytes;
    return k == 0;
}

static size_t custom_route(void *ctx, size_t src, size_t dst, uint32_t *out, size_t cap)
{
    struct custom *c = ctx;
    (void)dst, (void)cap;
    memcpy(out, c->paths[src], c->plen[src] * sizeof *out);
    return c->plen[src];
}

static void run_custom(const uint32_t (*paths)[3], const size_t *plen, size_t n,
                       const double *bw, size_t nl, double *finish)
{
    struct custom c = {paths, plen, 1};
    struct gt_sim_net net = {.nnodes = n, .nlinks = nl, .max_path = 3, .bw = bw,
                             .next = custom_next, .route = custom_route, .ctx = &c};
    struct gt_sim_result r = {0};
    struct gt_error err = {0};
    assert_int_equal(gt_sim_run(&net, 0, finish, &r, &err), GT_OK);
    assert_int_equal(r.events, n);
}

/* Max-min shares by hand: two flows on one link; the paper's leftover
 * example (f1 held to 1/3 on l1, so f0 gets 2/3 of l0, not 1/2). */
static void test_flow_shares(void **state)
{
    (void)state;
    double bw[] = {1, 1, 1, 1, 1, 1};
    static const uint32_t two[][3] = {{1, 0}, {2, 0}};
    static const size_t two_len[] = {2, 2};
    double fin[4];
    run_custom(two, two_len, 2, bw, 3, fin);
    NEAR(fin[0], 2, 1e-12);
    NEAR(fin[1], 2, 1e-12);
    /* l0 = 0, l1 = 1; f0: l0; f1: l0, l1; f2, f3: l1 (via private links) */
    static const uint32_t paper[][3] = {{0}, {0, 1}, {2, 1}, {3, 1}};
    static const size_t paper_len[] = {1, 2, 2, 2};
    run_custom(paper, paper_len, 4, bw, 4, fin);
    NEAR(fin[0], 1.5, 1e-12);     /* rate 1/2 + 1/6 = 2/3 */
    NEAR(fin[1], 3, 1e-12);       /* 1/3 each on l1 */
    NEAR(fin[2], 3, 1e-12);
    NEAR(fin[3], 3, 1e-12);
    /* a flow freed early hands its share on: f1 alone after f0 ends */
    static const uint32_t late[][3] = {{0}, {0, 1}};
    static const size_t late_len[] = {1, 2};
    double bw2[] = {1, 0.25};
    run_custom(late, late_len, 2, bw2, 2, fin);
    NEAR(fin[0], 1 / 0.75, 1e-12);   /* f1 held to 1/4 by l1: f0 gets 3/4 */
    NEAR(fin[1], 4, 1e-12);
}

static double simulate(const char *spec, enum gt_pattern p, double bytes, double bw)
{
    struct gt_topology t;
    struct gt_error err = {0};
    assert_int_equal(gt_topology_new(spec, bw, &t, &err), GT_OK);
    struct gt_sim_net net;
    gt_topology_net(&t, p, bytes, &net);
    struct gt_sim_result r = {0};
    assert_int_equal(gt_sim_run(&net, 0, NULL, &r, &err), GT_OK);
    gt_topology_free(&t);
    return r.time;
}

/* Collectives with known times on topologies with known routes. */
static void test_flow_topologies(void **state)
{
    (void)state;
    /* crossbar all-to-all: N - 1 rounds of a permutation, M/B each */
    for (int n = 2; n <= 17; n += 5) {
        char spec[32];
        snprintf(spec, sizeof spec, "crossbar:%d", n);
        NEAR(simulate(spec, GT_PAT_SPREAD, 1e6, 1e9), (n - 1) * 1e-3, 1e-12);
        NEAR(simulate(spec, GT_PAT_PAIRWISE, 1e6, 1e9), (n - 1) * 1e-3, 1e-12);
        NEAR(simulate(spec, GT_PAT_BCAST, 1e6, 1e9), (n - 1) * 1e-3, 1e-12);
    }
    /* ring on a ring: one hop each, nothing shared */
    NEAR(simulate("torus:8", GT_PAT_RING, 1e6, 1e9), 1e-3, 1e-15);
    /* a full-bisection fat tree behaves like a crossbar */
    NEAR(simulate("fattree:64,4", GT_PAT_SPREAD, 1e6, 1e9), 63e-3, 1e-12);
    /* a 1-D mesh: all-to-all spread puts up to N/2 flows on a middle link */
    assert_true(simulate("mesh:8", GT_PAT_SPREAD, 1e6, 1e9) > 7e-3);
    /* routes */
    struct gt_topology t;
    struct gt_error err = {0};
    uint32_t path[16];
    struct gt_sim_net net;
    assert_int_equal(gt_topology_new("torus:8", 1, &t, &err), GT_OK);
    gt_topology_net(&t, GT_PAT_RING, 1, &net);
    assert_int_equal(net.route(net.ctx, 0, 5, path, 16), 2 + 3);  /* backwards */
    assert_int_equal(path[1], 0 * 4 + 3);                        /* (0) x- */
    assert_int_equal(net.route(net.ctx, 0, 4, path, 16), 2 + 4);  /* tie: forward */
    assert_int_equal(path[1], 0 * 4 + 2);
    gt_topology_free(&t);
    assert_int_equal(gt_topology_new("mesh:4,4", 1, &t, &err), GT_OK);
    gt_topology_net(&t, GT_PAT_RING, 1, &net);
    /* (0,0) -> (3,2): x first (3 hops), then y (2 hops) */
    assert_int_equal(net.route(net.ctx, 0, 3 + 2 * 4, path, 16), 2 + 5);
    assert_int_equal(path[3], 2 * 6 + 2);                        /* (2,0) x+ */
    assert_int_equal(path[4], 3 * 6 + 4);                        /* (3,0) y+ */
    char name[64];
    gt_topology_link_name(&t, path[4], name, sizeof name);
    assert_string_equal(name, "(3,0) y+");
    gt_topology_free(&t);
    /* the longest routes: counted in full, and no longer than max_path */
    static const struct { const char *spec; size_t src, dst, len, max; } far[] = {
        {"mesh:300", 299, 0, 301, 301},        /* 299 hops back along the line */
        {"torus:1000", 0, 500, 502, 502},      /* the tie: 500 forward */
        {"mesh:40,30", 40 * 30 - 1, 0, 2 + 39 + 29, 2 + 39 + 29},
        {"fattree:64,4", 0, 63, 6, 6},         /* up to the root and down */
        {"crossbar:9", 0, 8, 2, 2},
    };
    for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) {
        assert_int_equal(gt_topology_new(far[i].spec, 1, &t, &err), GT_OK);
        gt_topology_net(&t, GT_PAT_RING, 1, &net);
        assert_int_equal(net.max_path, far[i].max);
        assert_int_equal(net.route(net.ctx, far[i].src, far[i].dst, path, 0), far[i].len);
        gt_topology_free(&t);
    }
    /* a ring on a line: every message but the last is one hop; the way
       back takes the whole line, alone on each link, so M/B as well */
    NEAR(simulate("mesh:300", GT_PAT_RING, 1e6, 1e9), 1e-3, 1e-15);
    assert_int_equal(gt_topology_new("cube:4", 1, &t, &err), GT_EUSAGE);
    assert_int_equal(gt_topology_new("torus:0", 1, &t, &err), GT_EUSAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_neighbor_six_over_four),
        cmocka_unit_test(test_neighbor_schedules),
        cmocka_unit_test(test_extrap_classic),
        cmocka_unit_test(test_extrap_wider),
        cmocka_unit_test(test_loggps_costs),
        cmocka_unit_test(test_loggps_files),
        cmocka_unit_test(test_loggps_fit),
        cmocka_unit_test(test_flow_shares),
        cmocka_unit_test(test_flow_topologies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
