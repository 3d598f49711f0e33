/* test_plot.c - the plots (src/plot/plot.h) drawn from small hand-made
 * stores and read back: which points, bands, bars and cells are drawn
 * and where, against the bins' quantiles, the axis ranges and the
 * data -> pixel maps worked out by hand (linear, log, time), the log
 * switch of the series, the matrix's colours, order and highlights, and
 * the errors that name their option. */
#include "testutil.h"
#include "svgread.h"
#include "plot/plot.h"
#include "advisor/events.h"
#include "advisor/status.h"
#include "estimators/segment.h"
#include "tests/ref/pelt.h"

#define T0 1795305600   /* 2026-11-22T00:00:00Z */

struct store {
    char *dir;
    struct gt_db *db;
};

static void open_store(struct store *s, const char *csv_text)
{
    s->dir = tmpdir_new();
    char path[256], csv[256];
    snprintf(path, sizeof path, "%s/s.db", s->dir);
    snprintf(csv, sizeof csv, "%s/in.csv", s->dir);
    write_file(csv, csv_text, strlen(csv_text));
    struct gt_error err = {0};
    assert_int_equal(gt_db_open(path, GT_DB_CREATE, 1000, &s->db, &err), GT_OK);
    ingest_csv(s->db, csv);
}

static void close_store(struct store *s)
{
    gt_db_close(s->db);
    tmpdir_free(s->dir);
}

/* text of CSV rows, appended */
struct csv {
    char *text;
    size_t len;
    FILE *f;
};

static void csv_begin(struct csv *c)
{
    c->f = open_memstream(&c->text, &c->len);
    fprintf(c->f, "ts,src,dst,rtt_ms\n");
}

static void row(struct csv *c, long long ts, const char *src, const char *dst, double rtt)
{
    if (isnan(rtt))
        fprintf(c->f, "%lld,%s,%s,loss\n", ts, src, dst);
    else
        fprintf(c->f, "%lld,%s,%s,%.6f\n", ts, src, dst, rtt);
}

static void csv_end(struct csv *c)
{
    fclose(c->f);
}

/* An axis as the document describes it (data-kind, -lo, -hi, -p0, -p1). */
struct axis_read {
    bool log;
    double lo, hi, p0, p1;
};

static struct axis_read read_axis(const char *doc, const char *which)
{
    char needle[64];
    snprintf(needle, sizeof needle, "<g class=\"axis %s\"", which);
    const char *g = strstr(doc, needle);
    if (!g)
        fail_msg("no %s axis", which);
    struct axis_read a = {!strcmp(svg_str(g, "data-kind"), "log"), svg_num(g, "data-lo"),
                          svg_num(g, "data-hi"), svg_num(g, "data-p0"), svg_num(g, "data-p1")};
    return a;
}

/* The pixel of v on an axis, the closed form: linear, or log10 linear. */
static double px(double lo, double hi, double p0, double p1, bool log, double v)
{
    double t = log ? (log10(v) - log10(lo)) / (log10(hi) - log10(lo)) : (v - lo) / (hi - lo);
    return p0 + t * (p1 - p0);
}

/* The numbers of a path's d (M, L and V coordinates) into v. */
static size_t path_numbers(const char *elem, double *v, size_t max)
{
    const char *d = strstr(elem, " d=\"") + 4;
    size_t n = 0;
    while (*d && *d != '"' && n < max) {
        if (*d == 'M' || *d == 'L' || *d == 'V' || *d == ' ') {
            d++;
            continue;
        }
        if (*d == 'Z')
            break;
        char *end;
        v[n++] = strtod(d, &end);
        assert_true(end > d);
        d = end;
    }
    return n;
}

/* ------------------------------------------------------------ series */

/* A -> B from T0 to T0 + 600 in two bins of 300 s:
 *   bin 0: 1..10 ms at T0 + 30 i: q10 1.9, q25 3.25, q50 5.5, q75 7.75,
 *          q90 9.1 (linear interpolation at h = p (n - 1))
 *   bin 1: 10, 11, 12, lost, 13, lost, 14, 15, lost, 16 at T0 + 300 + 30 i:
 *          loss 0.3; of 10..16: q10 10.6, q25 11.5, q50 13, q75 14.5,
 *          q90 15.4
 * and 500 ms before and after the period (not drawn).
 * A -> C: 1 ms in bin 0 and 100 ms in bin 1 (max / min 100).
 * A -> D: every 10 s, 10 ms (+ 0, 0.2, 0.4 in turn) up to T0 + 290, then
 *         30 ms (likewise) from T0 + 300: one level shift, at T0 + 300. */
static void series_store(struct store *s)
{
    struct csv c;
    csv_begin(&c);
    static const double b1[] = {10, 11, 12, NAN, 13, NAN, 14, 15, NAN, 16};
    row(&c, T0 - 60, "A", "B", 500);
    for (int i = 0; i < 10; i++) {
        row(&c, T0 + 30 * i, "A", "B", i + 1);
        row(&c, T0 + 30 * i, "A", "C", 1);
    }
    for (int i = 0; i < 10; i++) {
        row(&c, T0 + 300 + 30 * i, "A", "B", b1[i]);
        row(&c, T0 + 300 + 30 * i, "A", "C", 100);
    }
    row(&c, T0 + 660, "A", "B", 500);
    for (int i = 0; i < 60; i++)
        row(&c, T0 + 10 * i, "A", "D", (i < 30 ? 10 : 30) + 0.2 * (i % 3));
    csv_end(&c);
    open_store(s, c.text);
    free(c.text);
}

static int series(struct store *s, const char *dst, int64_t from, int64_t to, size_t bins,
                  bool log_y, struct gt_buf *b, struct gt_error *err)
{
    struct gt_config cfg;
    gt_config_defaults(&cfg);
    struct gt_event_opts ev = gt_event_opts_of(&cfg);
    struct gt_plot_series_opts o = {"A", dst, from, to, bins, 5, log_y, &ev};
    gt_buf_init(b, GT_PLOT_MAX_BYTES);
    return gt_plot_series(s->db, &o, b, err);
}

/* The bins' medians and bands where the quantiles by hand put them. */
static void test_series_bins(void **state)
{
    (void)state;
    struct store s;
    series_store(&s);
    struct gt_buf b;
    struct gt_error err = {0};
    assert_int_equal(series(&s, "B", T0, T0 + 600, 2, false, &b, &err), GT_OK);
    const char *doc = b.data;
    svg_well_formed(doc);
    /* x: the period as it is; y: 1.9..15.4 from zero, step 2 (15.4 / 5 =
       3.08 -> 2): 0..16, linear as 15.4 / 1.9 < 10 */
    struct axis_read x = read_axis(doc, "x"), y = read_axis(doc, "y");
    assert_false(x.log || y.log);
    assert_float_equal(x.lo, T0, 0);
    assert_float_equal(x.hi, T0 + 600, 0);
    assert_float_equal(y.lo, 0, 0);
    assert_float_equal(y.hi, 16, 0);
    assert_non_null(strstr(doc, ">RTT (ms)</text>"));
    static const double t[2] = {T0 + 150, T0 + 450};
    static const double q[2][5] = {{1.9, 3.25, 5.5, 7.75, 9.1}, {10.6, 11.5, 13, 14.5, 15.4}};
    /* a mark per bin at (its middle, its median), with its values */
    const char *m = strstr(doc, "<circle class=\"bin\"");
    for (int k = 0; k < 2; k++, m = strstr(m + 1, "<circle class=\"bin\"")) {
        assert_non_null(m);
        assert_float_equal(svg_num(m, "data-x"), t[k], 0);
        assert_float_equal(svg_num(m, "data-y"), q[k][2], 1e-12);
        assert_float_equal(svg_num(m, "cx"), px(x.lo, x.hi, x.p0, x.p1, false, t[k]), 0.006);
        assert_float_equal(svg_num(m, "cy"), px(y.lo, y.hi, y.p0, y.p1, false, q[k][2]), 0.006);
    }
    assert_null(m);
    /* the median line through both; x by hand: 80 + 150 / 600 x 790 */
    assert_float_equal(px(x.lo, x.hi, x.p0, x.p1, false, t[0]), 277.5, 1e-9);
    double v[32];
    const char *line = strstr(doc, "<path class=\"median\"");
    assert_int_equal(path_numbers(line, v, 32), 4);
    for (int k = 0; k < 2; k++) {
        assert_float_equal(v[2 * k], px(x.lo, x.hi, x.p0, x.p1, false, t[k]), 0.006);
        assert_float_equal(v[2 * k + 1], px(y.lo, y.hi, y.p0, y.p1, false, q[k][2]), 0.006);
    }
    /* the bands: over the tops (q90, q75), back over the bottoms */
    static const struct {
        const char *cls;
        int lo, hi;
    } bands[] = {{"band2", 0, 4}, {"band1", 1, 3}};
    for (int i = 0; i < 2; i++) {
        char needle[64];
        snprintf(needle, sizeof needle, "<path class=\"%s\"", bands[i].cls);
        const char *p = strstr(doc, needle);
        assert_non_null(p);
        assert_int_equal(path_numbers(p, v, 32), 8);
        double want[8] = {t[0], q[0][bands[i].hi], t[1], q[1][bands[i].hi],
                          t[1], q[1][bands[i].lo], t[0], q[0][bands[i].lo]};
        for (int j = 0; j < 4; j++) {
            assert_float_equal(v[2 * j], px(x.lo, x.hi, x.p0, x.p1, false, want[2 * j]), 0.006);
            assert_float_equal(v[2 * j + 1],
                               px(y.lo, y.hi, y.p0, y.p1, false, want[2 * j + 1]), 0.006);
        }
    }
    gt_buf_free(&b);
    close_store(&s);
}

/* Loss bars on the strip (44..66 px): bin 1 lost 3 of 10; the fit
 * window's shade over the last 5 samples. */
static void test_series_loss_and_window(void **state)
{
    (void)state;
    struct store s;
    series_store(&s);
    struct gt_buf b;
    struct gt_error err = {0};
    assert_int_equal(series(&s, "B", T0, T0 + 600, 2, false, &b, &err), GT_OK);
    const char *doc = b.data;
    assert_int_equal(svg_count(doc, NULL, "<rect class=\"lossbar\""), 1);
    const char *bar = strstr(doc, "<rect class=\"lossbar\"");
    assert_float_equal(svg_num(bar, "data-loss"), 0.3, 1e-12);
    assert_float_equal(svg_num(bar, "data-t"), T0 + 450, 0);
    /* 790 px / 2 bins wide, centred on 672.5; 0.3 of 22 px high */
    assert_float_equal(svg_num(bar, "width"), 395, 0.006);
    assert_float_equal(svg_num(bar, "x"), 672.5 - 197.5, 0.006);
    assert_float_equal(svg_num(bar, "height"), 6.6, 0.006);
    assert_float_equal(svg_num(bar, "y"), 44 + 22 * 0.7, 0.006);
    /* the window: the last 5 samples, T0 + 450 to T0 + 570 */
    const char *w = strstr(doc, "<rect class=\"window\" x=");
    assert_float_equal(svg_num(w, "data-from"), T0 + 450, 0);
    assert_float_equal(svg_num(w, "data-to"), T0 + 570, 0);
    struct axis_read x = read_axis(doc, "x");
    assert_float_equal(svg_num(w, "x"), px(x.lo, x.hi, x.p0, x.p1, false, T0 + 450), 0.006);
    assert_float_equal(svg_num(w, "width"), 120.0 / 600 * 790, 0.006);
    gt_buf_free(&b);
    close_store(&s);
}

/* A -> D's level shift: a dashed line across the plot at T0 + 300, the
 * middle of the x axis, and counted in the legend (the offline
 * segmentation's, estimators/segment.h). */
static void test_series_shift(void **state)
{
    (void)state;
    struct store s;
    series_store(&s);
    struct gt_buf b;
    struct gt_error err = {0};
    assert_int_equal(series(&s, "D", T0, T0 + 600, 2, false, &b, &err), GT_OK);
    const char *doc = b.data;
    assert_int_equal(svg_count(doc, NULL, "<path class=\"shift\" data-t"), 1);
    const char *p = strstr(doc, "<path class=\"shift\" data-t");
    assert_float_equal(svg_num(p, "data-t"), T0 + 300, 0);
    struct axis_read x = read_axis(doc, "x"), y = read_axis(doc, "y");
    double v[4];
    assert_int_equal(path_numbers(p, v, 4), 3);   /* M x y0 V y1 */
    assert_float_equal(v[0], (80 + 870) / 2.0, 0.006);
    assert_float_equal(v[1], y.p0, 0.006);
    assert_float_equal(v[2], y.p1, 0.006);
    assert_float_equal(x.p0, 80, 0);
    assert_non_null(strstr(doc, ">level shift (1)</text>"));
    gt_buf_free(&b);
    /* A -> B rises 16-fold over its 20 samples of the period: the dashed
       lines are where optimal partitioning with the segmentation's penalty
       and minimum length (tests/ref/pelt.h) cuts the same samples */
    assert_int_equal(series(&s, "B", T0, T0 + 600, 2, false, &b, &err), GT_OK);
    static const double b1[] = {10, 11, 12, NAN, 13, NAN, 14, 15, NAN, 16};
    double ab[20];
    long at[20];
    for (int i = 0; i < 20; i++)
        ab[i] = i < 10 ? i + 1 : b1[i - 10];
    long n = gt_optpart(ab, 20, gt_seg_defaults.penalty, (size_t)gt_seg_defaults.min_len, at);
    assert_true(n >= 1);
    assert_int_equal(svg_count(b.data, NULL, "<path class=\"shift\" data-t"), n);
    p = b.data;
    for (long j = 0; j < n; j++) {
        p = strstr(p, "<path class=\"shift\" data-t");
        assert_float_equal(svg_num(p, "data-t"), T0 + 30 * at[j], 0);
        p++;
    }
    char legend[64];
    snprintf(legend, sizeof legend, ">level shift (%ld)</text>", n);
    assert_non_null(strstr(b.data, legend));
    gt_buf_free(&b);
    close_store(&s);
}

/* Values 1 and 100 ms: max / min 100 > 10 makes the y axis log, 1..100,
 * so 1 sits on the bottom edge and 100 on the top; asked for, A -> B is
 * drawn on a log axis too. */
static void test_series_log_axis(void **state)
{
    (void)state;
    struct store s;
    series_store(&s);
    struct gt_buf b;
    struct gt_error err = {0};
    assert_int_equal(series(&s, "C", T0, T0 + 600, 2, false, &b, &err), GT_OK);
    struct axis_read y = read_axis(b.data, "y");
    assert_true(y.log);
    assert_float_equal(y.lo, 1, 0);
    assert_float_equal(y.hi, 100, 0);
    assert_non_null(strstr(b.data, ">RTT (ms), log scale: max/min 100 &gt; 10</text>"));
    const char *m = strstr(b.data, "<circle class=\"bin\"");
    assert_float_equal(svg_num(m, "cy"), y.p0, 0.006);
    m = strstr(m + 1, "<circle class=\"bin\"");
    assert_float_equal(svg_num(m, "cy"), y.p1, 0.006);
    gt_buf_free(&b);

    /* A -> B asked for log: 1.9..15.4 widens to 1..20 */
    assert_int_equal(series(&s, "B", T0, T0 + 600, 2, true, &b, &err), GT_OK);
    y = read_axis(b.data, "y");
    assert_true(y.log);
    assert_float_equal(y.lo, 1, 0);
    assert_float_equal(y.hi, 20, 0);
    assert_non_null(strstr(b.data, ">RTT (ms), log scale</text>"));
    m = strstr(b.data, "<circle class=\"bin\"");
    assert_float_equal(svg_num(m, "cy"), px(1, 20, y.p0, y.p1, true, 5.5), 0.006);
    gt_buf_free(&b);
    close_store(&s);
}

/* Without --to the pair's newest sample (T0 + 660) ends the period and
 * it starts a day earlier; bad options name themselves. */
static void test_series_period_and_errors(void **state)
{
    (void)state;
    struct store s;
    series_store(&s);
    struct gt_buf b;
    struct gt_error err = {0};
    assert_int_equal(series(&s, "B", 0, 0, 4, false, &b, &err), GT_OK);
    struct axis_read x = read_axis(b.data, "x");
    assert_float_equal(x.lo, T0 + 660 - 86400, 0);
    assert_float_equal(x.hi, T0 + 660, 0);
    gt_buf_free(&b);

    assert_int_equal(series(&s, "B", T0, T0 + 600, 0, false, &b, &err), GT_EUSAGE);
    assert_string_equal(err.where, "--bins");
    gt_buf_free(&b);
    err = (struct gt_error){0};
    assert_int_equal(series(&s, "B", T0, T0 + 600, GT_PLOT_MAX_BINS + 1, false, &b, &err),
                     GT_EUSAGE);
    gt_buf_free(&b);
    err = (struct gt_error){0};
    assert_int_equal(series(&s, "B", T0 + 600, T0, 2, false, &b, &err), GT_EUSAGE);
    assert_string_equal(err.where, "--to");
    gt_buf_free(&b);
    err = (struct gt_error){0};
    assert_int_equal(series(&s, "Z", 0, 0, 2, false, &b, &err), GT_ENOTFOUND);
    assert_string_equal(err.msg, "no pair A -> Z in the store");
    gt_buf_free(&b);
    err = (struct gt_error){0};
    assert_int_equal(series(&s, "B", T0 + 5000, T0 + 6000, 2, false, &b, &err), GT_ENOTFOUND);
    assert_string_equal(err.msg, "no samples of A -> B in the period");
    gt_buf_free(&b);
    close_store(&s);
}

/* ------------------------------------------------------------ ccdf */

/* P -> Q: 20 samples 12..31 ms in a scrambled order (12 + 7 i mod 20);
 * R -> S: 7 ms ten times; U -> V: one answered sample and one lost. */
static void ccdf_store(struct store *s)
{
    struct csv c;
    csv_begin(&c);
    for (int i = 0; i < 20; i++)
        row(&c, T0 + 60 * i, "P", "Q", 12 + (7 * i) % 20);
    for (int i = 0; i < 10; i++)
        row(&c, T0 + 60 * i, "R", "S", 7);
    row(&c, T0, "U", "V", NAN);
    row(&c, T0 + 60, "U", "V", 5);
    csv_end(&c);
    open_store(s, c.text);
    free(c.text);
}

static int ccdf(struct store *s, const char *src, const char *dst, size_t window,
                struct gt_buf *b, struct gt_error *err)
{
    struct gt_plot_pair_opts o = {src, dst, window, T0 + 3600, 1000, NULL};
    gt_buf_init(b, GT_PLOT_MAX_BYTES);
    return gt_plot_ccdf(s->db, &o, b, err);
}

/* The empirical CCDF: the i-th smallest of m at P(RTT >= x) = (m - i) / m
 * on log-log axes 10..50 by 0.05..1 (by hand: 12 -> 10, 31 -> 50; 1/20
 * is a 5, 1 a decade). */
static void test_ccdf_points(void **state)
{
    (void)state;
    struct store s;
    ccdf_store(&s);
    struct gt_buf b;
    struct gt_error err = {0};
    assert_int_equal(ccdf(&s, "P", "Q", 20, &b, &err), GT_OK);
    const char *doc = b.data;
    svg_well_formed(doc);
    assert_non_null(strstr(doc, "<title>P \xe2\x86\x92 Q: the tail of the last 20 samples"));
    struct axis_read x = read_axis(doc, "x"), y = read_axis(doc, "y");
    assert_true(x.log && y.log);
    assert_float_equal(x.lo, 10, 0);
    assert_float_equal(x.hi, 50, 0);
    assert_float_equal(y.lo, 0.05, 0);
    assert_float_equal(y.hi, 1, 0);
    const char *g = strstr(doc, "<g class=\"points\">"), *end = strstr(g, "</g>");
    assert_int_equal(svg_count(g, end, "<circle"), 20);
    const char *m = strstr(g, "<circle");
    for (int i = 0; i < 20; i++, m = strstr(m + 1, "<circle")) {
        double xv = 12 + i, yv = (20.0 - i) / 20;
        assert_float_equal(svg_num(m, "data-x"), xv, 1e-12);
        assert_float_equal(svg_num(m, "data-y"), yv, 1e-12);
        assert_float_equal(svg_num(m, "cx"), px(10, 50, 80, 730, true, xv), 0.006);
        assert_float_equal(svg_num(m, "cy"), px(0.05, 1, 420, 40, true, yv), 0.006);
    }
    assert_non_null(strstr(doc, ">data, the empirical model: 20 samples, 0 lost</text>"));
    gt_buf_free(&b);

    /* a window of 5: the newest five, (12 + 7 i) mod 20 for i = 15..19:
       17, 24, 31, 18, 25 -> 17, 18, 24, 25, 31 */
    assert_int_equal(ccdf(&s, "P", "Q", 5, &b, &err), GT_OK);
    g = strstr(b.data, "<g class=\"points\">"), end = strstr(g, "</g>");
    assert_int_equal(svg_count(g, end, "<circle"), 5);
    static const double five[] = {17, 18, 24, 25, 31};
    m = strstr(g, "<circle");
    for (int i = 0; i < 5; i++, m = strstr(m + 1, "<circle")) {
        assert_float_equal(svg_num(m, "data-x"), five[i], 1e-12);
        assert_float_equal(svg_num(m, "data-y"), (5.0 - i) / 5, 1e-12);
    }
    gt_buf_free(&b);
    close_store(&s);
}

/* The Pareto curve is the closed form (k / x)^alpha of the k and alpha
 * its legend line shows, to the legend's digits. */
static void test_ccdf_pareto_curve(void **state)
{
    (void)state;
    struct store s;
    ccdf_store(&s);
    struct gt_buf b;
    struct gt_error err = {0};
    assert_int_equal(ccdf(&s, "P", "Q", 20, &b, &err), GT_OK);
    const char *leg = strstr(b.data, ">Pareto k = ");
    assert_non_null(leg);
    double k, alpha;
    assert_int_equal(sscanf(leg, ">Pareto k = %lf ms, \xce\xb1 = %lf", &k, &alpha), 2);
    assert_true(k > 6 && k <= 12);   /* at most the smallest sample */
    const char *curve = strstr(b.data, "<path class=\"pareto");
    assert_non_null(curve);
    static double v[2 * 240];
    size_t n = path_numbers(curve, v, 2 * 240);
    assert_true(n >= 20 && n % 2 == 0);
    for (size_t i = 0; i < n; i += 2) {
        /* the pixel back to data on 10..50 by 0.05..1 */
        double xv = 10 * pow(5, (v[i] - 80) / 650);
        double want = xv <= k ? 1 : pow(k / xv, alpha);
        double want_px = px(0.05, 1, 420, 40, true, want);
        if (fabs(v[i + 1] - want_px) > 1.5)
            fail_msg("at x %g the curve is at %g px, (k / x)^alpha at %g px", xv, v[i + 1],
                     want_px);
    }
    gt_buf_free(&b);
    close_store(&s);
}

/* Every sample equal: a point mass, all marks at 7 ms, axis 5..10. */
static void test_ccdf_point_mass_and_errors(void **state)
{
    (void)state;
    struct store s;
    ccdf_store(&s);
    struct gt_buf b;
    struct gt_error err = {0};
    assert_int_equal(ccdf(&s, "R", "S", 10, &b, &err), GT_OK);
    struct axis_read x = read_axis(b.data, "x"), y = read_axis(b.data, "y");
    assert_float_equal(x.lo, 5, 0);
    assert_float_equal(x.hi, 10, 0);
    assert_float_equal(y.lo, 0.1, 0);
    assert_float_equal(y.hi, 1, 0);
    const char *g = strstr(b.data, "<g class=\"points\">"), *end = strstr(g, "</g>");
    assert_int_equal(svg_count(g, end, "data-x=\"7\""), 10);
    assert_non_null(strstr(b.data, ">every sample equal: a point mass at 7 ms</text>"));
    assert_null(strstr(b.data, "<path class=\"pareto"));
    gt_buf_free(&b);

    assert_int_equal(ccdf(&s, "P", "Z", 20, &b, &err), GT_ENOTFOUND);
    gt_buf_free(&b);
    err = (struct gt_error){0};
    assert_int_equal(ccdf(&s, "U", "V", 20, &b, &err), GT_EINPUT);
    assert_string_equal(err.msg, "U -> V: fewer than two answered samples at or before the "
                                 "time asked");
    gt_buf_free(&b);
    close_store(&s);
}

/* ------------------------------------------------------------ matrix */

/* Sites A, B, C, D, every ordered pair, 5 samples each of one value:
 * A-C and B-D 1 ms, B-C 10 ms, the rest 100 ms; A -> C loses 1 of 5.
 * The shortest open path through them is A C B D (1 + 10 + 1). */
static double matrix_rtt(char a, char b)
{
    char lo = a < b ? a : b, hi = a < b ? b : a;
    return (lo == 'A' && hi == 'C') || (lo == 'B' && hi == 'D') ? 1
           : lo == 'B' && hi == 'C'                              ? 10
                                                                 : 100;
}

static void matrix_store(struct store *s)
{
    struct csv c;
    csv_begin(&c);
    for (char a = 'A'; a <= 'D'; a++)
        for (char b = 'A'; b <= 'D'; b++) {
            if (a == b)
                continue;
            char src[2] = {a, 0}, dst[2] = {b, 0};
            for (int t = 0; t < 5; t++)
                row(&c, T0 + 60 * t, src, dst,
                    a == 'A' && b == 'C' && t == 2 ? NAN : matrix_rtt(a, b));
        }
    csv_end(&c);
    open_store(s, c.text);
    free(c.text);
}

static int matrix(struct store *s, struct gt_plot_matrix_opts *o, struct gt_buf *b,
                  struct gt_error *err)
{
    if (!o->samples)
        o->samples = 5;
    o->at = T0 + 240;
    gt_buf_init(b, GT_PLOT_MAX_BYTES);
    return gt_plot_matrix(s->db, o, b, err);
}

/* the row labels, top down, as one string */
static void row_order(const char *doc, char *out)
{
    int n = 0;
    for (const char *p = strstr(doc, "text-anchor=\"end\" class=\"tick"); p;
         p = strstr(p + 1, "text-anchor=\"end\" class=\"tick")) {
        char name[8];
        svg_content(p, name, sizeof name);
        out[n++] = name[0];
    }
    out[n] = 0;
}

/* Each cell at its row and column, with its value and colour: median 1
 * at the bottom of the log scale 1..100 (viridis' first stop, #440154),
 * 10 in the middle (its middle stop, #21908d), 100 at the top (#fde725);
 * self pairs empty. */
static void check_cells(const char *doc, const char *order, const char *want_fill[3],
                        double (*want_v)(char, char))
{
    const char *g = strstr(doc, "<g class=\"matrix\"");
    assert_float_equal(svg_num(g, "data-sites"), 4, 0);
    assert_float_equal(svg_num(g, "data-cell"), 28, 0);   /* min(28, 640 / 4) */
    int cells = 0;
    for (const char *p = strstr(g, "<rect class="); p && p < strstr(g, "</g>");
         p = strstr(p + 1, "<rect class=")) {
        char src = svg_str(p, "data-src")[0], dst = svg_str(p, "data-dst")[0];
        int i = (int)(strchr(order, src) - order), j = (int)(strchr(order, dst) - order);
        assert_float_equal(svg_num(p, "x"), 120 + 28 * j, 0.006);
        assert_float_equal(svg_num(p, "y"), 130 + 28 * i, 0.006);
        if (src == dst) {
            assert_string_equal(svg_str(p, "class"), "missing");
            assert_string_equal(svg_str(p, "data-v"), "nan");
        } else {
            double v = want_v(src, dst);
            assert_string_equal(svg_str(p, "class"), "cell");
            assert_float_equal(svg_num(p, "data-v"), v, 1e-12);
            if (want_fill)
                assert_string_equal(svg_str(p, "fill"),
                                    want_fill[v == 1 ? 0 : v == 10 ? 1 : 2]);
        }
        cells++;
    }
    assert_int_equal(cells, 16);
}

static void test_matrix_median(void **state)
{
    (void)state;
    struct store s;
    matrix_store(&s);
    struct gt_plot_matrix_opts o = {.metric = GT_PLOT_MEDIAN};
    struct gt_buf b;
    struct gt_error err = {0};
    assert_int_equal(matrix(&s, &o, &b, &err), GT_OK);
    svg_well_formed(b.data);
    char order[8];
    row_order(b.data, order);
    if (strcmp(order, "ACBD") && strcmp(order, "DBCA"))
        fail_msg("rows in order %s, want ACBD or DBCA", order);
    static const char *fill[3] = {"#440154", "#21908d", "#fde725"};
    check_cells(b.data, order, fill, matrix_rtt);
    struct axis_read c = read_axis(b.data, "colorbar");
    assert_true(c.log);
    assert_float_equal(c.lo, 1, 0);
    assert_float_equal(c.hi, 100, 0);
    gt_buf_free(&b);

    o.by_name = true;
    assert_int_equal(matrix(&s, &o, &b, &err), GT_OK);
    row_order(b.data, order);
    assert_string_equal(order, "ABCD");
    check_cells(b.data, order, fill, matrix_rtt);
    gt_buf_free(&b);
    close_store(&s);
}

static double loss_pct(char a, char b)
{
    return a == 'A' && b == 'C' ? 20 : 0;
}

/* Loss in %: A -> C lost 1 of 5, 20 %, the top of a linear 0..20 scale. */
static void test_matrix_loss_and_highlight(void **state)
{
    (void)state;
    struct store s;
    matrix_store(&s);
    static const char *const hl[] = {"A", "B"};
    struct gt_plot_matrix_opts o = {.metric = GT_PLOT_LOSS, .highlight = hl, .nhighlight = 2,
                                    .by_name = true};
    struct gt_buf b;
    struct gt_error err = {0};
    assert_int_equal(matrix(&s, &o, &b, &err), GT_OK);
    check_cells(b.data, "ABCD", NULL, loss_pct);
    struct axis_read c = read_axis(b.data, "colorbar");
    assert_false(c.log);
    assert_float_equal(c.lo, 0, 0);
    assert_float_equal(c.hi, 20, 0);
    const char *ac = strstr(b.data, "data-src=\"A\" data-dst=\"C\"");
    assert_non_null(ac);
    const char *cell = ac;
    while (strncmp(cell, "<rect", 5))
        cell--;
    assert_string_equal(svg_str(cell, "fill"), "#fde725");
    const char *ab = strstr(b.data, "data-src=\"A\" data-dst=\"B\"");
    for (cell = ab; strncmp(cell, "<rect", 5);)
        cell--;
    assert_string_equal(svg_str(cell, "fill"), "#440154");
    /* A and B framed: the cells A -> B and B -> A, their labels red */
    assert_int_equal(svg_count(b.data, NULL, "<rect class=\"hl\""), 2);
    const char *f = strstr(b.data, "<rect class=\"hl\"");
    assert_float_equal(svg_num(f, "x"), 120 + 28 + 1, 0.006);   /* A -> B: row 0, col 1 */
    assert_float_equal(svg_num(f, "y"), 130 + 1, 0.006);
    assert_int_equal(svg_count(b.data, NULL, "class=\"tick hl\">A</text>"), 2);
    assert_int_equal(svg_count(b.data, NULL, "class=\"tick hl\">C</text>"), 0);
    gt_buf_free(&b);
    close_store(&s);
}

/* Status: median limits 5 / 50 ms make 1 ok, 10 warning, 100 critical;
 * A -> C's 20 % loss is critical; the colours are MaDDash's. */
static void test_matrix_status(void **state)
{
    (void)state;
    struct store s;
    matrix_store(&s);
    struct gt_config cfg;
    gt_config_defaults(&cfg);
    cfg.th_median_ms[0] = 5, cfg.th_median_ms[1] = 50;
    struct gt_thresholds t;
    struct gt_error err = {0};
    assert_int_equal(gt_thresholds_load(&t, &cfg, 5, &err), GT_OK);
    struct gt_plot_matrix_opts o = {.metric = GT_PLOT_STATUS, .by_name = true, .thresholds = &t};
    struct gt_buf b;
    assert_int_equal(matrix(&s, &o, &b, &err), GT_OK);
    svg_well_formed(b.data);
    static const struct {
        const char *pair, *fill, *title;
    } want[] = {
        {"data-src=\"B\" data-dst=\"D\"", "#1a9850", "B \xe2\x86\x92 D: ok (median 1 ms, p99 1 ms, "
                                                    "loss 0.00 %)</title>"},
        {"data-src=\"C\" data-dst=\"B\"", "#fee08b", "C \xe2\x86\x92 B: warning (median 10 ms, "
                                                    "p99 10 ms, loss 0.00 %): median 10 ms over "
                                                    "5 ms (warning)</title>"},
        {"data-src=\"D\" data-dst=\"A\"", "#d73027", "D \xe2\x86\x92 A: critical (median 100 ms, "
                                                    "p99 100 ms, loss 0.00 %): median 100 ms over "
                                                    "50 ms (critical)</title>"},
        {"data-src=\"A\" data-dst=\"C\"", "#d73027", "A \xe2\x86\x92 C: critical (median 1 ms, "
                                                    "p99 1 ms, loss 20.00 %): loss 20 % over 10 % "
                                                    "(critical)</title>"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const char *p = strstr(b.data, want[i].pair);
        assert_non_null(p);
        const char *cell = p;
        while (strncmp(cell, "<rect", 5))
            cell--;
        assert_string_equal(svg_str(cell, "fill"), want[i].fill);
        char title[300];
        svg_content(strstr(p, "<title>"), title, sizeof title);
        char got[320];
        snprintf(got, sizeof got, "%s</title>", title);
        assert_string_equal(got, want[i].title);
    }
    /* the legend: a square and a word per status */
    assert_non_null(strstr(b.data, ">no_data</text>"));
    assert_int_equal(svg_count(b.data, NULL, "<rect class=\"legend\""), 4);
    gt_buf_free(&b);
    gt_thresholds_free(&t);
    close_store(&s);
}

static void test_matrix_errors_and_metrics(void **state)
{
    (void)state;
    static const char *const names[] = {"median", "p99", "loss", "alpha", "status"};
    for (int i = 0; i < 5; i++) {
        enum gt_plot_metric m = GT_PLOT_MEDIAN;
        assert_true(gt_plot_metric_parse(names[i], &m));
        assert_int_equal(m, i);
    }
    enum gt_plot_metric m;
    assert_false(gt_plot_metric_parse("mean", &m));
    struct store s;
    matrix_store(&s);
    struct gt_buf b;
    struct gt_error err = {0};
    struct gt_plot_matrix_opts o = {.metric = GT_PLOT_MEDIAN, .samples = GT_PLOT_MAX_MATRIX_SAMPLES + 1};
    assert_int_equal(matrix(&s, &o, &b, &err), GT_EUSAGE);
    assert_string_equal(err.where, "--samples");
    gt_buf_free(&b);
    static const char *const hl[] = {"Q"};
    o = (struct gt_plot_matrix_opts){.metric = GT_PLOT_MEDIAN, .highlight = hl, .nhighlight = 1};
    err = (struct gt_error){0};
    assert_int_equal(matrix(&s, &o, &b, &err), GT_ENOTFOUND);
    assert_string_equal(err.msg, "site Q (to highlight) has no pairs in the store");
    gt_buf_free(&b);
    o = (struct gt_plot_matrix_opts){.metric = GT_PLOT_STATUS};
    err = (struct gt_error){0};
    assert_int_equal(matrix(&s, &o, &b, &err), GT_EUSAGE);
    gt_buf_free(&b);
    close_store(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_series_bins),
        cmocka_unit_test(test_series_loss_and_window),
        cmocka_unit_test(test_series_shift),
        cmocka_unit_test(test_series_log_axis),
        cmocka_unit_test(test_series_period_and_errors),
        cmocka_unit_test(test_ccdf_points),
        cmocka_unit_test(test_ccdf_pareto_curve),
        cmocka_unit_test(test_ccdf_point_mass_and_errors),
        cmocka_unit_test(test_matrix_median),
        cmocka_unit_test(test_matrix_loss_and_highlight),
        cmocka_unit_test(test_matrix_status),
        cmocka_unit_test(test_matrix_errors_and_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
