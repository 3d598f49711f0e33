/* test_fuzz.c - every collector on mutated inputs must neither crash nor
 * emit an invalid sample.  Deterministic (seeded), so a failure repeats;
 * `make asan` runs it under ASan+UBSan. */
#include "testutil.h"
#include "estimators/companion/extrap.h"
#include "estimators/companion/loggps.h"
#include "estimators/companion/neighbor.h"
#include "estimators/companion/topology.h"

static const char *const seeds[][2] = {
    {"amp-csv", "timestamp,src,dst,testType,testSubType,packet_size_bytes,rtt_ms\n"
                "1700000000,a,b,icmp,icmp,84,12.5\n1700000060,\"a,\"\"x\",b,i,i,84,loss\n"},
    {"csv", "ts,src,dst,rtt_ms,seq\n2026-11-22T10:00:00Z,a,b,1.5,0\n5,a,b,,1\n"},
    {"amp-json", "[{\"metadata\":{\"source\":\"a\",\"destination\":\"b\"},"
                 "\"data\":[{\"timestamp\":1,\"rtts\":[1,null]},{\"timestamp\":2,\"median\":3}]}]"},
    {"esmond", "[{\"ts\":1,\"val\":{\"1.5\":2,\"3\":1}},{\"ts\":2,\"val\":null}]"},
    {"matrix", "0\t0.5\t0.25\n0.1\t0\t0.2\n0.3 0.4 0\n"},
    {"atlas", "[{\"fw\":5020,\"type\":\"ping\",\"prb_id\":1,\"timestamp\":1,\"dst_name\":\"d\","
              "\"result\":[{\"rtt\":1.5},{\"x\":\"*\"},{\"error\":\"e\"},{\"rtt\":2,\"dup\":1}]},"
              "{\"fw\":1,\"prb_id\":2,\"timestamp\":1,\"name\":\"d\",\"sent\":3,\"rcvd\":3,"
              "\"min\":1,\"avg\":2,\"max\":3}]"},
    {"atlas", "{\"fw\":4420,\"prb_id\":1,\"timestamp\":1,\"addr\":\"d\",\"result\":[{\"rtt\":1}]}\n"
              "{\"fw\":4790,\"type\":\"ping\",\"prb_id\":3,\"timestamp\":2,\"dst_addr\":\"e\","
              "\"result\":[{\"x\":\"*\"}]}\n"},
    {"pscheduler", "{\"hits\":{\"hits\":[{\"_source\":{\"test\":{\"type\":\"rtt\"},"
                   "\"pscheduler\":{\"start_time\":\"2026-11-22T00:00:00+00:00\"},"
                   "\"meta\":{\"source\":{\"hostname\":\"a\"},\"destination\":{\"ip\":\"b\"}},"
                   "\"result\":{\"packets\":{\"sent\":3,\"json\":[{\"seq\":1,\"rtt\":\"PT0.01S\"},"
                   "{\"seq\":2,\"error\":\"x\"}]}}}}]}}"},
    {"pscheduler", "[{\"test\":{\"type\":\"latency\",\"spec\":{\"bucket-width\":0.001}},"
                   "\"pscheduler\":{\"start_time\":1},\"meta\":{\"source\":{\"ip\":\"a\"},"
                   "\"destination\":{\"hostname\":\"b\"}},\"result\":{\"packets\":{\"lost\":1},"
                   "\"latency\":{\"histogram\":{\"values\":[\"1.5\"],\"counts\":[2]}}}},"
                   "{\"test\":{\"type\":\"rtt\"},\"pscheduler\":{\"start_time\":2},\"meta\":"
                   "{\"source\":{\"ip\":\"a\"},\"destination\":{\"ip\":\"b\"}},\"result\":"
                   "{\"packets\":{\"received\":3,\"lost\":1},\"rtt\":{\"min\":0.1,\"mean\":0.2,"
                   "\"max\":0.3}}}]"},
    {"prometheus", "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
                   "{\"metric\":{\"__name__\":\"probe_duration_seconds\",\"instance\":\"h:1\","
                   "\"job\":\"bb\"},\"values\":[[1795305600,\"0.0125\"],[1795305660.5,\"NaN\"],"
                   "[1795305720,\"+Inf\"]]},{\"metric\":{\"instance\":\"\"},\"values\":[[1,\"1\"]]}]}}"},
    {"prometheus", "{\"data\":{\"resultType\":\"matrix\",\"result\":["
                   "{\"metric\":{\"host\":\"h\",\"le\":\"0.001\"},\"values\":[[1,\"0\"],[2,\"2\"]]},"
                   "{\"metric\":{\"host\":\"h\",\"le\":\"+Inf\"},\"values\":[[1,\"0\"],[2,\"3\"]]},"
                   "{\"metric\":{\"__name__\":\"a_sum\",\"host\":\"h\"},\"values\":[[1,\"0\"],[2,\"0.01\"]]},"
                   "{\"metric\":{\"__name__\":\"r\",\"host\":\"h\"},\"values\":[[1,\"0\"],[2,\"1e9\"]]},"
                   "{\"metric\":{\"__name__\":\"r\",\"host\":\"g\"},\"values\":[[1,\"0\"],[2,\"4\"]]}]}}"},
};

static int check_emit(void *ctx, const struct gt_sample *s)
{
    (void)ctx;
    /* the contract every collector promises the store */
    assert_null(gt_site_name_problem(s->src, s->src_len));
    assert_null(gt_site_name_problem(s->dst, s->dst_len));
    assert_true(isnan(s->rtt_ms) || (isfinite(s->rtt_ms) && s->rtt_ms >= 0));
    assert_true(s->seq >= 0);
    return GT_OK;
}

static void ignore_reject(void *ctx, const char *loc, const char *msg)
{
    (void)ctx, (void)loc, (void)msg;
}

static void mutate(unsigned char *buf, size_t *len, size_t cap, unsigned *rng)
{
    int edits = 1 + (int)(rand_r(rng) % 8);
    static const char tokens[][8] = {",", "\"", "\n", "\r\n", "\t", "null", "{", "}", "[",
                                     "]", ":", "-", "1e999", "\xff", "\0", "loss", "0"};
    for (int e = 0; e < edits; e++) {
        size_t pos = *len ? (size_t)rand_r(rng) % *len : 0;
        switch (rand_r(rng) % 4) {
        case 0: if (*len) buf[pos] = (unsigned char)rand_r(rng); break;
        case 1: if (*len) { memmove(buf + pos, buf + pos + 1, *len - pos - 1); (*len)--; } break;
        case 2: {
            const char *t = tokens[rand_r(rng) % (sizeof tokens / sizeof tokens[0])];
            size_t tl = t[0] ? strlen(t) : 1;
            if (*len + tl < cap) {
                memmove(buf + pos + tl, buf + pos, *len - pos);
                memcpy(buf + pos, t, tl);
                *len += tl;
            }
            break;
        }
        case 3: if (*len > 2 && *len * 2 < cap) { memcpy(buf + *len, buf, *len); *len *= 2; } break;
        }
    }
}

static void test_fuzz_collectors(void **state)
{
    (void)state;
    unsigned rng = 20261122;
    static unsigned char buf[1 << 16];
    struct gt_sink sink = {NULL, check_emit, ignore_reject, NULL};
    for (size_t s = 0; s < sizeof seeds / sizeof seeds[0]; s++) {
        const struct gt_collector *col = gt_collector_find(seeds[s][0]);
        for (int iter = 0; iter < 20000; iter++) {
            size_t len = strlen(seeds[s][1]);
            memcpy(buf, seeds[s][1], len);
            mutate(buf, &len, sizeof buf, &rng);
            FILE *f = len ? fmemopen(buf, len, "r") : fopen("/dev/null", "r");
            assert_non_null(f);
            struct gt_input in = {"fuzz", NULL, f, NULL};
            struct gt_collect_opts o = {0};
            o.src = "x";
            o.dst = "y";
            o.max_input_bytes = 1 << 20;
            o.histogram = iter & 1;   /* prometheus: smokeping's histograms */
            struct gt_error err = {0};
            int rc = col->parse(&in, &o, &sink, &err);
            assert_true(rc == GT_OK || rc == GT_EINPUT || rc == GT_EUSAGE);
            fclose(f);
        }
    }
}

/* The companion models' file formats and numeric entry points on
 * mutated and random inputs: an answer or a clean error, never a crash. */
static void test_fuzz_model_inputs(void **state)
{
    (void)state;
    unsigned rng = 5;
    static unsigned char buf[1 << 12];
    static const char params[] = "name = x\nL = 850\no' = 6730\nOss = 5.02\nOrs = 4.72\n"
                                 "Osl = 4.8\nOrl = 3.86\nGs = 15.17\nGl = 0.04\ns = 8191\n"
                                 "S = 16383  # eager\n";
    static const char sites[] = "a 100 50\nb 10\n# c\nc 1e3\n";
    char *dir = tmpdir_new(), path[256], spec[300];
    snprintf(path, sizeof path, "%s/sites.txt", dir);
    snprintf(spec, sizeof spec, "sites:%s", path);
    for (int iter = 0; iter < 4000; iter++) {
        size_t len = sizeof params - 1;
        memcpy(buf, params, len);
        mutate(buf, &len, sizeof buf, &rng);
        FILE *f = len ? fmemopen(buf, len, "r") : fopen("/dev/null", "r");
        struct gt_loggps m;
        struct gt_error err = {0};
        int rc = gt_loggps_read(f, "fuzz", &m, &err);
        assert_true(rc == GT_OK || rc == GT_EINPUT);
        fclose(f);
        len = sizeof sites - 1;
        memcpy(buf, sites, len);
        mutate(buf, &len, sizeof buf, &rng);
        write_file(path, (const char *)buf, len);
        struct gt_topology t;
        gt_error_clear(&err);
        rc = gt_topology_new(spec, 1, &t, &err);
        assert_true(rc == GT_OK || rc == GT_EINPUT);
        if (rc == GT_OK) {
            struct gt_sim_net net;
            gt_topology_net(&t, (enum gt_pattern)(iter % 4), 1000, &net);
            struct gt_sim_result r = {0};
            assert_int_equal(gt_sim_run(&net, 0, NULL, &r, &err), GT_OK);
            assert_true(r.time >= 0 && isfinite(r.time));
            gt_topology_free(&t);
        }
    }
    for (int iter = 0; iter < 2000; iter++) {
        double n[8], t[8];
        size_t m = 3 + (size_t)rand_r(&rng) % 6;
        for (size_t i = 0; i < m; i++) {
            n[i] = (double)(rand_r(&rng) % 5);                  /* repeats, zeros */
            t[i] = (rand_r(&rng) % 3) ? rand_r(&rng) % 100 : 0;
        }
        struct gt_extrap x;
        struct gt_error err = {0};
        int rc = gt_extrap_run(n, t, m, 1 + rand_r(&rng) % 100, &x, &err);
        assert_true(rc == GT_OK || rc == GT_EINPUT);
        struct gt_loggps_fit lf;
        gt_error_clear(&err);
        rc = gt_loggps_fit(n, t, m, NAN, &lf, &err);
        assert_true(rc == GT_OK || rc == GT_EINPUT);
        struct gt_neighbor nb;
        const char *why;
        gt_neighbor_eval(rand_r(&rng) % 50 - 5, rand_r(&rng) % 50 - 5, t[0], n[0], n[1], &nb,
                         &why);
    }
    tmpdir_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fuzz_collectors),
        cmocka_unit_test(test_fuzz_model_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
