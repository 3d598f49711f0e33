/* test_metrics.c - the server's counters and their Prometheus text
 * exposition (src/server/metrics.h), read back by a small parser of the
 * format (0.0.4) written here: names and label values unescaped, every
 * sample's family given HELP then TYPE once, before it; the counts, the
 * histogram's buckets (cumulative, +Inf = count, the sum) and the
 * per-pair and collective series against hand-worked values, label
 * escaping of hostile names, and counts from many threads at once. */
#include "testutil.h"
#include "server/metrics.h"
#include "base/version.h"

#include <ctype.h>
#include <pthread.h>

/* ------------------------------------------------------------ a parser */

#define MAX_SAMPLES 4096
#define MAX_FAMILIES 64

struct sample {
    char name[128];
    char labels[512];   /* unescaped, "k=v,k=v" in their order */
    double value;
};

struct family {
    char name[128], type[16];
    bool help;
};

struct expo {
    struct sample s[MAX_SAMPLES];
    size_t n;
    struct family f[MAX_FAMILIES];
    size_t nf;
};

static bool metric_name(const char *s, size_t len)
{
    if (!len || !(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == ':'))
        return false;
    for (size_t i = 1; i < len; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == ':'))
            return false;
    return true;
}

static struct family *family(struct expo *e, const char *name)
{
    for (size_t i = 0; i < e->nf; i++)
        if (!strcmp(e->f[i].name, name))
            return &e->f[i];
    return NULL;
}

/* The family a sample belongs to: a histogram's _bucket, _sum, _count
 * are its own name's. */
static struct family *family_of(struct expo *e, const char *name)
{
    struct family *f = family(e, name);
    if (f)
        return f;
    static const char *const suffixes[] = {"_bucket", "_sum", "_count"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(name), sl = strlen(suffixes[i]);
        if (n > sl && !strcmp(name + n - sl, suffixes[i])) {
            char base[128];
            snprintf(base, sizeof base, "%.*s", (int)(n - sl), name);
            f = family(e, base);
            if (f && !strcmp(f->type, "histogram"))
                return f;
        }
    }
    return NULL;
}

static void comment_line(struct expo *e, const char *line)
{
    char kind[8], name[128];
    int off = 0;
    if (sscanf(line, "# %7s %127s %n", kind, name, &off) < 2)
        fail_msg("a bad comment line: %s", line);
    assert_true(metric_name(name, strlen(name)));
    struct family *f = family(e, name);
    if (!strcmp(kind, "HELP")) {
        if (f)
            fail_msg("a second HELP of %s", name);
        assert_true(e->nf < MAX_FAMILIES);
        f = &e->f[e->nf++];
        snprintf(f->name, sizeof f->name, "%s", name);
        f->help = strlen(line + off) > 0;
        if (!f->help)
            fail_msg("an empty HELP of %s", name);
    } else if (!strcmp(kind, "TYPE")) {
        if (!f || f->type[0])
            fail_msg("TYPE of %s without its HELP before, or twice", name);
        snprintf(f->type, sizeof f->type, "%s", line + off);
        if (strcmp(f->type, "counter") && strcmp(f->type, "gauge") &&
            strcmp(f->type, "histogram"))
            fail_msg("%s: type %s", name, f->type);
    } else {
        fail_msg("a comment of kind %s", kind);
    }
}

/* {k="v",...}: the values unescaped (\\, \", \n only) */
static const char *labels(const char *p, char *out, size_t size)
{
    size_t n = 0;
    out[0] = 0;
    assert_true(*p == '{');
    p++;
    while (*p != '}') {
        size_t kl = strcspn(p, "=");
        assert_true(metric_name(p, kl));
        n += (size_t)snprintf(out + n, size - n, "%s%.*s=", n ? "," : "", (int)kl, p);
        p += kl;
        assert_true(p[0] == '=' && p[1] == '"');
        for (p += 2; *p != '"'; p++) {
            assert_true(*p && *p != '\n');
            char c = *p;
            if (c == '\\') {
                p++;
                c = *p == 'n' ? '\n' : *p;
                if (*p != 'n' && *p != '\\' && *p != '"')
                    fail_msg("an escape \\%c", *p);
            }
            assert_true(n + 1 < size);
            out[n++] = c, out[n] = 0;
        }
        p++;
        if (*p == ',')
            p++;
        else
            assert_true(*p == '}');
    }
    return p + 1;
}

static void sample_line(struct expo *e, const char *line)
{
    assert_true(e->n < MAX_SAMPLES);
    struct sample *s = &e->s[e->n++];
    size_t nl = strcspn(line, "{ ");
    assert_true(metric_name(line, nl));
    snprintf(s->name, sizeof s->name, "%.*s", (int)nl, line);
    const char *p = line + nl;
    s->labels[0] = 0;
    if (*p == '{')
        p = labels(p, s->labels, sizeof s->labels);
    assert_true(*p == ' ');
    p++;
    if (!strcmp(p, "NaN"))
        s->value = NAN;
    else if (!strcmp(p, "+Inf"))
        s->value = INFINITY;
    else {
        char *end;
        s->value = strtod(p, &end);
        if (end == p || *end)
            fail_msg("%s: value '%s'", s->name, p);
    }
    struct family *f = family_of(e, s->name);
    if (!f || !f->type[0])
        fail_msg("%s comes before its family's HELP and TYPE", s->name);
}

/* Parse text (and free it); every line checked as it is read. */
static void parse(struct expo *e, char *text)
{
    assert_non_null(text);
    memset(e, 0, sizeof *e);
    size_t len = strlen(text);
    assert_true(len > 0 && text[len - 1] == '\n');
    for (char *line = text, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        *nl = 0;
        assert_true(*line);   /* no blank lines */
        if (*line == '#')
            comment_line(e, line);
        else
            sample_line(e, line);
    }
    free(text);
}

/* The value of name{labels}; NAN-safe: missing fails. */
static double value(const struct expo *e, const char *name, const char *lab)
{
    for (size_t i = 0; i < e->n; i++)
        if (!strcmp(e->s[i].name, name) && !strcmp(e->s[i].labels, lab))
            return e->s[i].value;
    fail_msg("no sample %s{%s}", name, lab);
    return NAN;
}

static int count(const struct expo *e, const char *name)
{
    int n = 0;
    for (size_t i = 0; i < e->n; i++)
        n += !strcmp(e->s[i].name, name);
    return n;
}

static const char *type_of(struct expo *e, const char *name)
{
    struct family *f = family(e, name);
    assert_non_null(f);
    return f->type;
}

static struct expo E;   /* large: not on the stack */

/* ------------------------------------------------------------ /metrics */

#define DUR "gridtail_http_request_duration_seconds"

static void test_fresh(void **state)
{
    (void)state;
    struct gt_metrics *m = gt_metrics_new();
    assert_non_null(m);
    parse(&E, gt_metrics_text(m, true, NULL, 0, 1000));
    char lab[64];
    snprintf(lab, sizeof lab, "version=%s", GT_VERSION);
    assert_float_equal(value(&E, "gridtail_build_info", lab), 1, 0);
    assert_float_equal(value(&E, "gridtail_http_requests_in_flight", ""), 0, 0);
    assert_string_equal(type_of(&E, "gridtail_http_requests_total"), "counter");
    assert_string_equal(type_of(&E, DUR), "histogram");
    assert_string_equal(type_of(&E, "gridtail_store_up"), "gauge");
    assert_int_equal(count(&E, "gridtail_http_requests_total"), 0);
    assert_int_equal(count(&E, DUR "_bucket"), 0);
    assert_float_equal(value(&E, "gridtail_pair_fits_total", "source=samples"), 0, 0);
    assert_float_equal(value(&E, "gridtail_pair_fits_total", "source=cache"), 0, 0);
    static const char *const results[] = {"stored", "duplicate", "conflict", "rejected"};
    for (int i = 0; i < 4; i++) {
        snprintf(lab, sizeof lab, "result=%s", results[i]);
        assert_float_equal(value(&E, "gridtail_samples_pushed_total", lab), 0, 0);
    }
    assert_float_equal(value(&E, "gridtail_store_up", ""), 1, 0);
    assert_int_equal(count(&E, "gridtail_newest_sample_age_seconds"), 0);
    parse(&E, gt_metrics_text(m, false, NULL, 0, 1000));
    assert_float_equal(value(&E, "gridtail_store_up", ""), 0, 0);
    gt_metrics_free(m);
    gt_metrics_free(NULL);
}

/* Requests by endpoint and code: unknown paths and codes are "other", so
 * the label set stays fixed. */
static void test_requests(void **state)
{
    (void)state;
    struct gt_metrics *m = gt_metrics_new();
    gt_metrics_observe(m, "/v1/estimate", 200, 0.01);
    gt_metrics_observe(m, "/v1/estimate", 200, 0.01);
    gt_metrics_observe(m, "/v1/estimate", 422, 0.01);
    gt_metrics_observe(m, "/v1/rank", 503, 0.01);
    gt_metrics_observe(m, "/v1/estimate?x=1", 200, 0.01);
    gt_metrics_observe(m, "/etc/passwd", 404, 0.01);
    gt_metrics_observe(m, "/metrics", 418, 0.01);
    gt_metrics_observe(m, "/v1/estimate/", 200, 0.01);
    parse(&E, gt_metrics_text(m, true, NULL, 0, 0));
    const char *r = "gridtail_http_requests_total";
    assert_int_equal(count(&E, r), 6);
    assert_float_equal(value(&E, r, "endpoint=/v1/estimate,code=200"), 2, 0);
    assert_float_equal(value(&E, r, "endpoint=/v1/estimate,code=422"), 1, 0);
    assert_float_equal(value(&E, r, "endpoint=/v1/rank,code=503"), 1, 0);
    assert_float_equal(value(&E, r, "endpoint=other,code=200"), 2, 0);
    assert_float_equal(value(&E, r, "endpoint=other,code=404"), 1, 0);
    assert_float_equal(value(&E, r, "endpoint=/metrics,code=other"), 1, 0);
    double total = 0;
    for (size_t i = 0; i < E.n; i++)
        if (!strcmp(E.s[i].name, r))
            total += E.s[i].value;
    assert_float_equal(total, 8, 0);
    gt_metrics_free(m);
}

/* The latency histogram by hand: 3 ms twice, 5 ms exactly (a bucket's
 * bound is in it: le), 200 ms, 60 s (only +Inf) on /v1/estimate:
 *   le 0.001 0, 0.0025 0, 0.005 3, 0.01 3, ..., 0.1 3, 0.25 4, ..., 10 4,
 *   +Inf 5 = count; sum 0.003 + 0.003 + 0.005 + 0.2 + 60 = 60.211 */
static void test_histogram(void **state)
{
    (void)state;
    struct gt_metrics *m = gt_metrics_new();
    static const double obs[] = {0.003, 0.003, 0.005, 0.2, 60};
    for (int i = 0; i < 5; i++)
        gt_metrics_observe(m, "/v1/estimate", 200, obs[i]);
    gt_metrics_observe(m, "/v1/health", 200, 0.0000004);   /* rounds to 0 us */
    parse(&E, gt_metrics_text(m, true, NULL, 0, 0));
    static const struct {
        const char *le;
        double n;
    } want[] = {{"0.001", 0}, {"0.0025", 0}, {"0.005", 3}, {"0.01", 3}, {"0.025", 3},
                {"0.05", 3},  {"0.1", 3},    {"0.25", 4},  {"0.5", 4},  {"1", 4},
                {"2.5", 4},   {"5", 4},      {"10", 4},    {"+Inf", 5}};
    char lab[96];
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        snprintf(lab, sizeof lab, "endpoint=/v1/estimate,le=%s", want[i].le);
        if (value(&E, DUR "_bucket", lab) != want[i].n)
            fail_msg("bucket le=%s holds %g, want %g", want[i].le,
                     value(&E, DUR "_bucket", lab), want[i].n);
    }
    assert_float_equal(value(&E, DUR "_count", "endpoint=/v1/estimate"), 5, 0);
    assert_float_equal(value(&E, DUR "_sum", "endpoint=/v1/estimate"), 60.211, 1e-9);
    /* every endpoint's buckets: cumulative, ascending bounds, the last
       +Inf equal to its count */
    const char *endpoints[] = {"/v1/estimate", "/v1/health"};
    for (int k = 0; k < 2; k++) {
        double prev_le = -1, prev_n = -1, last = -1;
        int buckets = 0;
        char prefix[64];
        snprintf(prefix, sizeof prefix, "endpoint=%s,le=", endpoints[k]);
        for (size_t i = 0; i < E.n; i++) {
            if (strcmp(E.s[i].name, DUR "_bucket") || strncmp(E.s[i].labels, prefix, strlen(prefix)))
                continue;
            const char *le = E.s[i].labels + strlen(prefix);
            double b = !strcmp(le, "+Inf") ? INFINITY : strtod(le, NULL);
            assert_true(b > prev_le);
            assert_true(E.s[i].value >= prev_n);
            prev_le = b, prev_n = last = E.s[i].value;
            buckets++;
        }
        assert_int_equal(buckets, 14);
        assert_true(isinf(prev_le));
        snprintf(prefix, sizeof prefix, "endpoint=%s", endpoints[k]);
        assert_float_equal(last, value(&E, DUR "_count", prefix), 0);
    }
    assert_float_equal(value(&E, DUR "_bucket", "endpoint=/v1/health,le=0.001"), 1, 0);
    assert_float_equal(value(&E, DUR "_sum", "endpoint=/v1/health"), 0, 0);
    gt_metrics_free(m);
}

static void test_gauges_and_counters(void **state)
{
    (void)state;
    struct gt_metrics *m = gt_metrics_new();
    gt_metrics_begin(m);
    gt_metrics_begin(m);
    gt_metrics_begin(m);
    gt_metrics_done(m);
    assert_int_equal(gt_metrics_in_flight(m), 2);
    gt_metrics_fits(m, 7, 3);
    gt_metrics_fits(m, 1, 0);
    gt_metrics_calibrations(m, 4, 1, 2);
    gt_metrics_calibrations(m, 1, 0, 0);
    gt_metrics_pushed(m, 10, 2, 1, 4);
    gt_metrics_pushed(m, 5, -3, 0, 0);   /* negatives count as nothing */
    parse(&E, gt_metrics_text(m, true, NULL, 0, 0));
    assert_float_equal(value(&E, "gridtail_http_requests_in_flight", ""), 2, 0);
    assert_float_equal(value(&E, "gridtail_pair_fits_total", "source=samples"), 8, 0);
    assert_float_equal(value(&E, "gridtail_pair_fits_total", "source=cache"), 3, 0);
    assert_float_equal(value(&E, "gridtail_calibrations_total", "source=kept_answer"), 5, 0);
    assert_float_equal(value(&E, "gridtail_calibrations_total", "source=resumed"), 1, 0);
    assert_float_equal(value(&E, "gridtail_calibrations_total", "source=replayed"), 2, 0);
    const char *p = "gridtail_samples_pushed_total";
    assert_float_equal(value(&E, p, "result=stored"), 15, 0);
    assert_float_equal(value(&E, p, "result=duplicate"), 2, 0);
    assert_float_equal(value(&E, p, "result=conflict"), 1, 0);
    assert_float_equal(value(&E, p, "result=rejected"), 4, 0);
    gt_metrics_free(m);
}

/* Each source's newest-sample age, its name escaped as the format wants
 * (backslash, quote, newline) and read back as it was. */
static void test_newest_labels(void **state)
{
    (void)state;
    struct gt_metrics *m = gt_metrics_new();
    struct gt_newest_row rows[] = {{(char *)"CERN", 900}, {(char *)"a\"b\\c\nd e,f=g", 400},
                                   {(char *)"\xc3\xa9t\xc3\xa9", 1000}};
    char *text = gt_metrics_text(m, true, rows, 3, 1000);
    /* the escaped form on the wire */
    assert_non_null(strstr(text, "gridtail_newest_sample_age_seconds{src=\"a\\\"b\\\\c\\nd "
                                 "e,f=g\"} 600\n"));
    parse(&E, text);
    const char *n = "gridtail_newest_sample_age_seconds";
    assert_int_equal(count(&E, n), 3);
    assert_float_equal(value(&E, n, "src=CERN"), 100, 0);
    assert_float_equal(value(&E, n, "src=a\"b\\c\nd e,f=g"), 600, 0);
    assert_float_equal(value(&E, n, "src=\xc3\xa9t\xc3\xa9"), 0, 0);
    gt_metrics_free(m);
}

struct worker {
    struct gt_metrics *m;
    int id;
};

static void *observe_many(void *arg)
{
    struct worker *w = arg;
    for (int i = 0; i < 20000; i++) {
        gt_metrics_begin(w->m);
        gt_metrics_observe(w->m, w->id % 2 ? "/v1/rank" : "/v1/place", 200,
                           i % 2 ? 0.004 : 0.3);
        gt_metrics_done(w->m);
    }
    return NULL;
}

/* Four threads at once lose no count: 2 x 20000 per endpoint, half of
 * them at 4 ms (in le 0.005), half at 300 ms; the sum 20000 x 0.304. */
static void test_threads(void **state)
{
    (void)state;
    struct gt_metrics *m = gt_metrics_new();
    pthread_t th[4];
    struct worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (struct worker){m, i};
        assert_int_equal(pthread_create(&th[i], NULL, observe_many, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(gt_metrics_in_flight(m), 0);
    parse(&E, gt_metrics_text(m, true, NULL, 0, 0));
    const char *eps[] = {"/v1/rank", "/v1/place"};
    for (int k = 0; k < 2; k++) {
        char lab[96];
        snprintf(lab, sizeof lab, "endpoint=%s,code=200", eps[k]);
        assert_float_equal(value(&E, "gridtail_http_requests_total", lab), 40000, 0);
        snprintf(lab, sizeof lab, "endpoint=%s,le=0.005", eps[k]);
        assert_float_equal(value(&E, DUR "_bucket", lab), 20000, 0);
        snprintf(lab, sizeof lab, "endpoint=%s,le=+Inf", eps[k]);
        assert_float_equal(value(&E, DUR "_bucket", lab), 40000, 0);
        snprintf(lab, sizeof lab, "endpoint=%s", eps[k]);
        assert_float_equal(value(&E, DUR "_sum", lab), 20000 * 0.304, 1e-6);
    }
    gt_metrics_free(m);
}

/* ------------------------------------------------------------ /metrics/pairs */

static struct gt_pair_state state_of(const char *src, const char *dst)
{
    struct gt_pair_state p = {0};
    p.src = (char *)src, p.dst = (char *)dst;
    p.regime = -1;
    return p;
}

/* Two pairs by hand: ms become seconds, NAN is NaN, an infinite age
 * +Inf, a regime of -1 NaN; each check its own series. */
static void test_pairs(void **state)
{
    (void)state;
    struct gt_pair_state v[2] = {state_of("A", "B\"x"), state_of("C\\", "D")};
    v[0].median_ms = 12.5, v[0].p99_ms = 250, v[0].loss = 0.125, v[0].age_s = 30;
    v[0].status = GT_STATUS_CRITICAL, v[0].shift = -0.25, v[0].fit_age_s = 3600;
    v[0].regime = 1;
    v[0].check[GT_CHECK_LOSS] = GT_STATUS_CRITICAL;
    v[0].check[GT_CHECK_P99] = GT_STATUS_WARNING;
    v[1].median_ms = v[1].p99_ms = v[1].loss = NAN, v[1].age_s = INFINITY;
    v[1].status = GT_STATUS_NO_DATA, v[1].fit_age_s = INFINITY;
    parse(&E, gt_metrics_pairs_text(v, 2, NULL, 0));
    static const struct {
        const char *name;
        double a, c;   /* A -> B"x, C\ -> D */
    } want[] = {
        {"gridtail_pair_rtt_median_seconds", 0.0125, NAN},
        {"gridtail_pair_rtt_p99_seconds", 0.25, NAN},
        {"gridtail_pair_loss_ratio", 0.125, NAN},
        {"gridtail_pair_newest_sample_age_seconds", 30, INFINITY},
        {"gridtail_pair_status", 2, 3},
        {"gridtail_pair_level_shift_ratio", -0.25, 0},
        {"gridtail_pair_fit_age_seconds", 3600, INFINITY},
        {"gridtail_pair_fit_regime", 1, NAN},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        assert_string_equal(type_of(&E, want[i].name), "gauge");
        assert_int_equal(count(&E, want[i].name), 2);
        double a = value(&E, want[i].name, "src=A,dst=B\"x");
        double c = value(&E, want[i].name, "src=C\\,dst=D");
        if (!(a == want[i].a) || !(c == want[i].c || (isnan(c) && isnan(want[i].c))))
            fail_msg("%s: %g and %g, want %g and %g", want[i].name, a, c, want[i].a, want[i].c);
    }
    const char *ck = "gridtail_pair_check";
    assert_int_equal(count(&E, ck), 6);
    assert_float_equal(value(&E, ck, "src=A,dst=B\"x,check=loss"), 2, 0);
    assert_float_equal(value(&E, ck, "src=A,dst=B\"x,check=p99"), 1, 0);
    assert_float_equal(value(&E, ck, "src=A,dst=B\"x,check=median"), 0, 0);
    assert_float_equal(value(&E, ck, "src=C\\,dst=D,check=loss"), 0, 0);
    /* no collectives: none of their families */
    assert_null(family(&E, "gridtail_collective_emax_seconds"));
    assert_null(family(&E, "gridtail_collective_forecast_rmse_seconds"));
}

/* Collectives: E[max] and p99 in seconds, the four methods' RMSE in
 * seconds once outcomes are known (NaN before), and the outcomes. */
static void test_collectives(void **state)
{
    (void)state;
    struct gt_collective_metric c[2] = {
        {"CERN", "A,B", 1500, 2750, {100, 250, 1000, 50}, 12},
        {"r\"oot", "x\\y\nz", NAN, NAN, {1, 2, 3, 4}, 0},
    };
    parse(&E, gt_metrics_pairs_text(NULL, 0, c, 2));
    assert_int_equal(count(&E, "gridtail_pair_status"), 0);
    const char *em = "gridtail_collective_emax_seconds", *p99 = "gridtail_collective_p99_seconds";
    assert_float_equal(value(&E, em, "root=CERN,sites=A,B"), 1.5, 1e-12);
    assert_float_equal(value(&E, p99, "root=CERN,sites=A,B"), 2.75, 1e-12);
    assert_true(isnan(value(&E, em, "root=r\"oot,sites=x\\y\nz")));
    const char *rm = "gridtail_collective_forecast_rmse_seconds";
    static const char *const methods[] = {"pareto", "normal", "last", "empirical"};
    static const double secs[] = {0.1, 0.25, 1, 0.05};
    for (int k = 0; k < 4; k++) {
        char lab[96];
        snprintf(lab, sizeof lab, "root=CERN,sites=A,B,method=%s", methods[k]);
        assert_float_equal(value(&E, rm, lab), secs[k], 1e-12);
        snprintf(lab, sizeof lab, "root=r\"oot,sites=x\\y\nz,method=%s", methods[k]);
        assert_true(isnan(value(&E, rm, lab)));
    }
    const char *out = "gridtail_collective_forecast_outcomes";
    assert_float_equal(value(&E, out, "root=CERN,sites=A,B"), 12, 0);
    assert_float_equal(value(&E, out, "root=r\"oot,sites=x\\y\nz"), 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fresh),
        cmocka_unit_test(test_requests),
        cmocka_unit_test(test_histogram),
        cmocka_unit_test(test_gauges_and_counters),
        cmocka_unit_test(test_newest_labels),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_pairs),
        cmocka_unit_test(test_collectives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
