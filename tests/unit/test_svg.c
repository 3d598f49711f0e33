/* test_svg.c - the SVG writer (src/plot/svg.h) read back as text: XML
 * escaping, number labels, the data -> pixel map of linear, log and
 * time axes worked by hand, the range an axis widens to, the ticks it
 * draws, the coordinates of lines, bands and marks, the colour scales at
 * their stops, ids, the buffer's cap, and well-formed documents. */
#include "testutil.h"
#include "svgread.h"
#include "plot/svg.h"

#define T0 1795305600   /* 2026-11-22T00:00:00Z, a midnight */

struct doc {
    struct gt_buf b;
    struct gt_svg s;
};

/* a writer into a fresh buffer, no header: only what the test writes */
static void bare(struct doc *d)
{
    gt_buf_init(&d->b, 1 << 20);
    d->s = (struct gt_svg){&d->b, 0, 100, 100, 0, "pX"};
}

static const char *text_of(struct doc *d)
{
    return d->b.data ? d->b.data : "";
}

static void test_escape(void **state)
{
    (void)state;
    struct doc d;
    bare(&d);
    gt_svg_escaped(&d.s, "a<b>&\"c'd\x01\x1f\te \xe2\x86\x92 f");
    /* the five specials of XML: the apostrophe may stay (the writer
       quotes attributes with "), control bytes go, a tab and UTF-8 stay */
    assert_string_equal(text_of(&d), "a&lt;b&gt;&amp;&quot;c'd\te \xe2\x86\x92 f");
    assert_int_equal(d.s.status, GT_OK);
    gt_buf_free(&d.b);
}

static void test_text(void **state)
{
    (void)state;
    struct doc d;
    bare(&d);
    gt_svg_text(&d.s, 10, 20.26, "end", "tick", "%s & %d", "<x>", 5);
    gt_svg_text(&d.s, 0.04, 1, "start", NULL, "\"q\"");
    assert_string_equal(text_of(&d),
                        "<text x=\"10.0\" y=\"20.3\" text-anchor=\"end\" class=\"tick\">"
                        "&lt;x&gt; &amp; 5</text>\n"
                        "<text x=\"0.0\" y=\"1.0\" text-anchor=\"start\">&quot;q&quot;</text>\n");
    gt_buf_free(&d.b);
}

/* 3 significant digits, exponent only from 1e6 and under 1e-3 */
static void test_number_labels(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {0, "0"},           {-0.0, "0"},         {1, "1"},
        {12.5, "12.5"},     {0.2, "0.2"},        {999999, "999999"},
        {1e6, "1e+06"},     {1234567, "1.23e+06"}, {0.001, "0.001"},
        {0.0001234, "0.000123"}, {-250, "-250"}, {123.456789, "123.457"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[32];
        gt_svg_num(cases[i].v, buf, sizeof buf);
        assert_string_equal(buf, cases[i].want);
    }
}

/* The pixel of a value: linear and logarithmic, by hand, and clamped. */
static void test_axis_mapping(void **state)
{
    (void)state;
    struct gt_axis x = {.kind = GT_AXIS_LINEAR, .lo = 0, .hi = 100, .p0 = 80, .p1 = 730};
    assert_float_equal(gt_axis_px(&x, 25), 80 + 0.25 * 650, 1e-9);   /* 242.5 */
    assert_float_equal(gt_axis_px(&x, 0), 80, 1e-9);
    assert_float_equal(gt_axis_px(&x, 100), 730, 1e-9);
    assert_float_equal(gt_axis_frac(&x, 150), 1.5, 1e-12);
    /* far outside: clamped to one axis length beyond either end */
    assert_float_equal(gt_axis_px(&x, 1e9), 80 + 2 * 650, 1e-9);
    assert_float_equal(gt_axis_px(&x, -1e9), 80 - 650, 1e-9);
    assert_float_equal(gt_axis_frac(&x, NAN), -1, 0);

    /* log 1..1000 downwards: 10 is a third of the way, 420 - 380 / 3 */
    struct gt_axis y = {.kind = GT_AXIS_LOG, .lo = 1, .hi = 1000, .p0 = 420, .p1 = 40};
    assert_float_equal(gt_axis_px(&y, 10), 420 - 380.0 / 3, 1e-9);
    assert_float_equal(gt_axis_px(&y, 100), 420 - 2 * 380.0 / 3, 1e-9);
    assert_float_equal(gt_axis_px(&y, sqrt(10)), 420 - 380.0 / 6, 1e-9);
    assert_float_equal(gt_axis_frac(&y, 0), -1, 0);   /* not on a log axis */
    assert_float_equal(gt_axis_frac(&y, -5), -1, 0);

    struct gt_axis t = {.kind = GT_AXIS_TIME, .lo = T0, .hi = T0 + 3600, .p0 = 0, .p1 = 360};
    assert_float_equal(gt_axis_px(&t, T0 + 900), 90, 1e-9);
}

struct range_case {
    enum gt_axis_kind kind;
    double lo, hi;
    bool from_zero;
    double want_lo, want_hi;
};

/* The range an axis widens to: ticks of 1, 2 or 5 x 10^k (steps by hand:
 * range / 5 rounded to 1, 2, 5 x 10^k) */
static void test_axis_extend(void **state)
{
    (void)state;
    static const struct range_case cases[] = {
        /* 94 / 5 = 18.8 -> step 20: [0, 100] */
        {GT_AXIS_LINEAR, 3, 97, false, 0, 100},
        /* 57 / 5 = 11.4 -> step 10: [40, 100]; from zero 97 / 5 -> 20 */
        {GT_AXIS_LINEAR, 40, 97, false, 40, 100},
        {GT_AXIS_LINEAR, 40, 97, true, 0, 100},
        /* 0.34 / 5 = 0.068 -> step 0.05: [0.1, 0.5] exactly */
        {GT_AXIS_LINEAR, 0.13, 0.47, false, 0.1, 0.5},
        /* a single value: +-10 %, 4.5..5.5, step 0.2: [4.4, 5.6] */
        {GT_AXIS_LINEAR, 5, 5, false, 4.4, 5.6},
        /* zero alone: +-1, step 0.5 (2 / 5 = 0.4 -> 0.5): [-1, 1] */
        {GT_AXIS_LINEAR, 0, 0, false, -1, 1},
        /* negative data are not moved to zero */
        {GT_AXIS_LINEAR, -7, -3, true, -7, -3},
        /* log: 3 -> 2 (between 2 and 5), 470 -> 500 */
        {GT_AXIS_LOG, 3, 470, false, 2, 500},
        /* log: 0.012 -> 0.01, 0.9 -> 1 */
        {GT_AXIS_LOG, 0.012, 0.9, false, 0.01, 1},
        /* log: exact decades and 5s stay */
        {GT_AXIS_LOG, 10, 1000, false, 10, 1000},
        {GT_AXIS_LOG, 5, 20, false, 5, 20},
        /* log with nothing positive below: a decade under the top, 4,
           down to 2 */
        {GT_AXIS_LOG, 0, 40, false, 2, 50},
        /* time: as it is, a single moment gets a minute */
        {GT_AXIS_TIME, T0, T0 + 7, false, T0, T0 + 7},
        {GT_AXIS_TIME, T0, T0, false, T0, T0 + 60},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct range_case *c = &cases[i];
        struct gt_axis a = {.kind = c->kind};
        gt_axis_extend(&a, c->lo, c->hi, c->from_zero);
        if (a.lo != c->want_lo || a.hi != c->want_hi)
            fail_msg("case %zu: [%.17g, %.17g] widened to [%.17g, %.17g], want [%g, %g]", i,
                     c->lo, c->hi, a.lo, a.hi, c->want_lo, c->want_hi);
    }
}

/* One axis group of a document: its start and its end. */
static const char *axis_group(const char *doc, const char *which, const char **end)
{
    char needle[64];
    snprintf(needle, sizeof needle, "<g class=\"axis %s\"", which);
    const char *g = strstr(doc, needle);
    assert_non_null(g);
    *end = strstr(g, "</g>");
    return g;
}

/* The labelled ticks of an axis group as "data-v=label" joined by " ". */
static void tick_list(const char *g, const char *end, char *out, size_t size)
{
    size_t len = 0;
    out[0] = 0;
    for (const char *p = strstr(g, "<text class=\"tick\""); p && p < end;
         p = strstr(p + 1, "<text class=\"tick\"")) {
        char label[64];
        svg_content(p, label, sizeof label);
        len += (size_t)snprintf(out + len, size - len, "%s%s=%s", len ? " " : "",
                                svg_str(p, "data-v"), label);
    }
}

static void draw_axes(struct doc *d, const struct gt_axis *x, const struct gt_axis *y)
{
    gt_buf_init(&d->b, 1 << 20);
    gt_svg_begin(&d->s, &d->b, 800, 480, "axes");
    gt_svg_axes(&d->s, x, y);
    assert_int_equal(gt_svg_end(&d->s), GT_OK);
    svg_well_formed(d->b.data);
}

/* Linear ticks at the step's multiples, placed by hand: x 0..100 over
 * 80..730 puts 20 at 210; log ticks: every 1..9 x 10^k as grid lines,
 * the decades labelled. */
static void test_ticks_linear_and_log(void **state)
{
    (void)state;
    struct gt_axis x = {.kind = GT_AXIS_LINEAR, .lo = 0, .hi = 100, .p0 = 80, .p1 = 730,
                        .label = "RTT <ms>"};
    struct gt_axis y = {.kind = GT_AXIS_LOG, .lo = 1, .hi = 1000, .p0 = 420, .p1 = 40,
                        .label = "P & Q"};
    struct doc d;
    draw_axes(&d, &x, &y);
    const char *end, *g = axis_group(d.b.data, "x", &end);
    assert_string_equal(svg_str(g, "data-kind"), "linear");
    assert_float_equal(svg_num(g, "data-lo"), 0, 0);
    assert_float_equal(svg_num(g, "data-hi"), 100, 0);
    assert_float_equal(svg_num(g, "data-p0"), 80, 0);
    assert_float_equal(svg_num(g, "data-p1"), 730, 0);
    char ticks[512];
    tick_list(g, end, ticks, sizeof ticks);
    assert_string_equal(ticks, "0=0 20=20 40=40 60=60 80=80 100=100");
    const char *t40 = strstr(g, "data-v=\"40\"");
    assert_float_equal(svg_num(t40, "x"), 80 + 0.4 * 650, 0.005);
    assert_float_equal(svg_num(t40, "y"), 420 + 18, 0.005);
    assert_int_equal(svg_count(g, end, "class=\"grid\""), 6);

    g = axis_group(d.b.data, "y", &end);
    assert_string_equal(svg_str(g, "data-kind"), "log");
    tick_list(g, end, ticks, sizeof ticks);
    assert_string_equal(ticks, "1=1 10=10 100=100 1000=1000");
    /* 1..9, 10..90, 100..900 and 1000: 28 lines, 24 of them minor */
    assert_int_equal(svg_count(g, end, "class=\"grid minor\""), 24);
    assert_int_equal(svg_count(g, end, "class=\"grid\""), 4);
    const char *t10 = strstr(g, "data-v=\"10\"");
    assert_float_equal(svg_num(t10, "y"), 420 - 380.0 / 3 + 4, 0.005);
    assert_float_equal(svg_num(t10, "x"), 80 - 8, 0.005);
    /* the axis labels, escaped; the frame; the clip of the plot area */
    assert_non_null(strstr(d.b.data, ">RTT &lt;ms&gt;</text>"));
    assert_non_null(strstr(d.b.data, ">P &amp; Q</text>"));
    assert_non_null(strstr(d.b.data, "<rect class=\"frame\" x=\"80.00\" y=\"40.00\" "
                                     "width=\"650.00\" height=\"380.00\"/>"));
    assert_non_null(strstr(d.b.data, "<rect x=\"80.00\" y=\"40.00\" width=\"650.00\" "
                                     "height=\"380.00\"/></clipPath>"));
    gt_buf_free(&d.b);
}

/* Narrow log axes label 2 and 5 too; decimal steps read as decimals
 * (0.6, not 0.6000000000000001); integer axes tick every whole number. */
static void test_ticks_narrow_decimal_integer(void **state)
{
    (void)state;
    struct gt_axis x = {.kind = GT_AXIS_LINEAR, .lo = 0, .hi = 1, .p0 = 80, .p1 = 730};
    struct gt_axis y = {.kind = GT_AXIS_LOG, .lo = 2, .hi = 50, .p0 = 420, .p1 = 40};
    struct doc d;
    draw_axes(&d, &x, &y);
    char ticks[512];
    const char *end, *g = axis_group(d.b.data, "x", &end);
    tick_list(g, end, ticks, sizeof ticks);
    assert_string_equal(ticks, "0=0 0.2=0.2 0.4=0.4 0.6=0.6 0.8=0.8 1=1");
    g = axis_group(d.b.data, "y", &end);
    tick_list(g, end, ticks, sizeof ticks);
    /* log10(50 / 2) < 2: 2, 5, 10, 20, 50 labelled; 2..9 and 10..50 drawn */
    assert_string_equal(ticks, "2=2 5=5 10=10 20=20 50=50");
    assert_int_equal(svg_count(g, end, "<line class=\"grid"), 8 + 5);
    gt_buf_free(&d.b);

    struct gt_axis xi = {.kind = GT_AXIS_LINEAR, .lo = 0, .hi = 10, .p0 = 80, .p1 = 730};
    draw_axes(&d, &xi, &y);
    g = axis_group(d.b.data, "x", &end);
    tick_list(g, end, ticks, sizeof ticks);
    assert_string_equal(ticks, "0=0 2=2 4=4 6=6 8=8 10=10");
    gt_buf_free(&d.b);
    xi.integer = true;
    draw_axes(&d, &xi, &y);
    g = axis_group(d.b.data, "x", &end);
    tick_list(g, end, ticks, sizeof ticks);
    assert_string_equal(ticks, "0=0 1=1 2=2 3=3 4=4 5=5 6=6 7=7 8=8 9=9 10=10");
    gt_buf_free(&d.b);
}

/* Time ticks: an hour in 10 minute steps (60, 120, 300 would give more
 * than 8), the day on the first and where it changes; ten days in steps
 * of two, on even days since the epoch. */
static void test_ticks_time(void **state)
{
    (void)state;
    struct gt_axis x = {.kind = GT_AXIS_TIME, .lo = T0, .hi = T0 + 3600, .p0 = 80, .p1 = 730};
    struct gt_axis y = {.kind = GT_AXIS_LINEAR, .lo = 0, .hi = 1, .p0 = 420, .p1 = 40};
    struct doc d;
    draw_axes(&d, &x, &y);
    char ticks[1024];
    const char *end, *g = axis_group(d.b.data, "x", &end);
    size_t n = 0;
    char want[1024] = "";
    static const char *const labels[] = {"11-22 00:00", "00:10", "00:20", "00:30",
                                         "00:40",       "00:50", "01:00"};
    for (int i = 0; i < 7; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, "%s%d=%s", i ? " " : "",
                              T0 + 600 * i, labels[i]);
    tick_list(g, end, ticks, sizeof ticks);
    assert_string_equal(ticks, want);
    gt_buf_free(&d.b);

    x.lo = T0 - 1800, x.hi = T0 + 1800;
    draw_axes(&d, &x, &y);
    g = axis_group(d.b.data, "x", &end);
    static const char *const over[] = {"11-21 23:30", "23:40", "23:50", "11-22 00:00",
                                       "00:10",       "00:20", "00:30"};
    n = 0;
    for (int i = 0; i < 7; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, "%s%d=%s", i ? " " : "",
                              T0 - 1800 + 600 * i, over[i]);
    tick_list(g, end, ticks, sizeof ticks);
    assert_string_equal(ticks, want);
    gt_buf_free(&d.b);

    x.lo = T0, x.hi = T0 + 10 * 86400;
    draw_axes(&d, &x, &y);
    g = axis_group(d.b.data, "x", &end);
    static const char *const days[] = {"11-23", "11-25", "11-27", "11-29", "12-01"};
    n = 0;
    for (int i = 0; i < 5; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, "%s%d=%s", i ? " " : "",
                              T0 + 86400 * (1 + 2 * i), days[i]);
    tick_list(g, end, ticks, sizeof ticks);
    assert_string_equal(ticks, want);
    gt_buf_free(&d.b);
}

/* x 0..10 over 0..100, y 0..10 over 100..0: value v is at 10 v across
 * and 100 - 10 v down. */
static const struct gt_axis X10 = {.kind = GT_AXIS_LINEAR, .lo = 0, .hi = 10, .p0 = 0, .p1 = 100};
static const struct gt_axis Y10 = {.kind = GT_AXIS_LINEAR, .lo = 0, .hi = 10, .p0 = 100, .p1 = 0};

static void test_line(void **state)
{
    (void)state;
    struct doc d;
    bare(&d);
    double xs[] = {1, 2, 3, 4, 5}, ys[] = {1, NAN, 3, 4.5, INFINITY};
    gt_svg_line(&d.s, &X10, &Y10, xs, ys, 5, "c1");
    /* broken at the NAN: a second M; the infinity is left out */
    assert_string_equal(text_of(&d), "<path class=\"c1\" clip-path=\"url(#pX-area0)\" "
                                     "d=\" M10.00 90.00 M30.00 70.00 L40.00 55.00\"/>\n");
    gt_buf_reset(&d.b);
    /* on a log axis 0 and negatives break the line; nothing drawable,
       nothing written */
    struct gt_axis ly = {.kind = GT_AXIS_LOG, .lo = 1, .hi = 100, .p0 = 100, .p1 = 0};
    double lx[] = {1, 2, 3, 4}, lv[] = {10, 0, 100, -1};
    gt_svg_line(&d.s, &X10, &ly, lx, lv, 4, "c2");
    assert_string_equal(text_of(&d), "<path class=\"c2\" clip-path=\"url(#pX-area0)\" "
                                     "d=\" M10.00 50.00 M30.00 0.00\"/>\n");
    gt_buf_reset(&d.b);
    double none[] = {0, -1};
    gt_svg_line(&d.s, &X10, &ly, lx, none, 2, "c3");
    assert_string_equal(text_of(&d), "");
    gt_buf_free(&d.b);
}

static void test_band_and_mark(void **state)
{
    (void)state;
    struct doc d;
    bare(&d);
    double xs[] = {1, 2, 3, 4, 5}, lo[] = {1, 2, 3, NAN, 5}, hi[] = {2, 4, 6, 8, 6};
    gt_svg_band(&d.s, &X10, &Y10, xs, lo, hi, 5, "band1");
    /* along the tops, back along the bottoms, closed; the NAN splits it
       and a lone point is a degenerate band of its own */
    assert_string_equal(text_of(&d),
                        "<path class=\"band1\" clip-path=\"url(#pX-area0)\" d=\"M10.00 80.00 "
                        "L20.00 60.00 L30.00 40.00 L30.00 70.00 L20.00 80.00 L10.00 90.00 "
                        "Z\"/>\n"
                        "<path class=\"band1\" clip-path=\"url(#pX-area0)\" d=\"M50.00 40.00 "
                        "L50.00 50.00 Z\"/>\n");
    gt_buf_reset(&d.b);
    gt_svg_mark(&d.s, &X10, &Y10, 2.5, 7.25, "data");
    gt_svg_mark(&d.s, &X10, &Y10, 0.1, NAN, "data");
    /* the values as the shortest decimals that read back */
    assert_string_equal(text_of(&d), "<circle class=\"data\" cx=\"25.00\" cy=\"27.50\" "
                                     "r=\"2.2\" data-x=\"2.5\" data-y=\"7.25\"/>\n");
    gt_buf_reset(&d.b);
    gt_svg_mark(&d.s, &X10, &Y10, 0.1, 1.0 / 3, "data");
    assert_string_equal(svg_str(text_of(&d), "data-x"), "0.1");
    assert_string_equal(svg_str(text_of(&d), "data-y"), "0.3333333333333333");
    gt_buf_free(&d.b);
}

/* The scales at and between their stops (viridis, ColorBrewer RdBu). */
static void test_colours(void **state)
{
    (void)state;
    static const struct {
        bool diverging;
        double t;
        const char *want;
    } cases[] = {
        {false, 0, "#440154"},  {false, 1, "#fde725"},  {false, 0.5, "#21908d"},
        {false, -3, "#440154"}, {false, 2, "#fde725"},  {false, NAN, "#440154"},
        /* halfway between (68,1,84) and (71,44,122): 69.5, 22.5, 103
           rounded half away from zero */
        {false, 1.0 / 16, "#461767"},
        {true, 0, "#b2182b"},   {true, 0.5, "#f7f7f7"}, {true, 1, "#2166ac"},
        /* a quarter: the 3rd stop, (244,165,130) */
        {true, 0.25, "#f4a582"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char c[8];
        (cases[i].diverging ? gt_svg_diverging : gt_svg_sequential)(cases[i].t, c);
        assert_string_equal(c, cases[i].want);
    }
}

/* FNV-1a of "foobar" is 0xbf9cf968 (the published test vector). */
static void test_document(void **state)
{
    (void)state;
    struct gt_buf b;
    gt_buf_init(&b, 1 << 20);
    struct gt_svg s;
    gt_svg_begin(&s, &b, 300, 200, "foobar");
    assert_string_equal(s.id, "pbf9cf968");
    struct gt_axis x = X10, y = Y10;
    gt_svg_axes(&s, &x, &y);
    gt_svg_axes(&s, &x, &y);
    double xs[] = {1, 2}, ys[] = {1, 2};
    gt_svg_line(&s, &x, &y, xs, ys, 2, "data");
    gt_svg_legend(&s, 200, 30, 2, "c0", "%s", "a<b");
    assert_int_equal(gt_svg_end(&s), GT_OK);
    const char *t = b.data;
    static const char head[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns="
                               "\"http://www.w3.org/2000/svg\" width=\"300\" height=\"200\" "
                               "viewBox=\"0 0 300 200\">\n<title>foobar</title>\n<style>";
    assert_true(!strncmp(t, head, strlen(head)));
    assert_string_equal(t + b.len - 7, "</svg>\n");
    assert_non_null(strstr(t, "<clipPath id=\"pbf9cf968-area1\">"));
    assert_non_null(strstr(t, "<clipPath id=\"pbf9cf968-area2\">"));
    /* lines clip to the latest plot area */
    assert_non_null(strstr(t, "clip-path=\"url(#pbf9cf968-area2)\" d=\" M10.00 90.00 L20.00 80.00\""));
    /* the legend's row 2: 14 + 2 x 17 below its top, the sample 4 higher */
    assert_non_null(strstr(t, "<path class=\"c0\" d=\"M200.0 74.0 h22\"/>"));
    assert_non_null(strstr(t, "<text x=\"228.0\" y=\"78.0\" text-anchor=\"start\" "
                              "class=\"small\">a&lt;b</text>"));
    /* the title as a heading, centred */
    assert_non_null(strstr(t, "<text x=\"150.0\" y=\"22.0\" text-anchor=\"middle\" "
                              "class=\"title\">foobar</text>"));
    svg_well_formed(t);
    gt_buf_free(&b);

    /* a title of markup is escaped in both places */
    gt_buf_init(&b, 1 << 20);
    gt_svg_begin(&s, &b, 300, 200, "<a & \"b\">");
    assert_int_equal(gt_svg_end(&s), GT_OK);
    assert_non_null(strstr(b.data, "<title>&lt;a &amp; &quot;b&quot;&gt;</title>"));
    svg_well_formed(b.data);
    gt_buf_free(&b);
}

/* A colour bar: its axis spans the bar, 48 slices, ticks labelled. */
static void test_colorbar(void **state)
{
    (void)state;
    struct doc d;
    bare(&d);
    struct gt_axis c = {.kind = GT_AXIS_LINEAR, .lo = 0, .hi = 100, .label = "loss (%)"};
    gt_svg_colorbar(&d.s, &c, 500, 300, 100, gt_svg_sequential);
    assert_float_equal(c.p0, 300, 0);
    assert_float_equal(c.p1, 100, 0);
    const char *t = text_of(&d);
    assert_int_equal(svg_count(t, NULL, "width=\"14\" height=\"4.47\""), 48);   /* 200/48+.3 */
    /* the first slice at the bottom, the darkest end; the last at the top */
    assert_non_null(strstr(t, "y=\"295.83\" width=\"14\" height=\"4.47\" fill=\"#"));
    const char *end, *g = axis_group(t, "colorbar", &end);
    char ticks[256];
    tick_list(g, end, ticks, sizeof ticks);
    assert_string_equal(ticks, "0=0 20=20 40=40 60=60 80=80 100=100");
    /* 60 is at 300 - 0.6 x 200 = 180, its label 4 lower */
    assert_float_equal(svg_num(strstr(g, "data-v=\"60\""), "y"), 184, 0.005);
    gt_buf_free(&d.b);
}

/* Past the buffer's cap: GT_ETOOBIG, kept to the end. */
static void test_cap(void **state)
{
    (void)state;
    struct gt_buf b;
    gt_buf_init(&b, 200);
    struct gt_svg s;
    gt_svg_begin(&s, &b, 300, 200, "title");
    assert_int_equal(s.status, GT_ETOOBIG);
    gt_svg_raw(&s, "x");
    assert_int_equal(gt_svg_end(&s), GT_ETOOBIG);
    assert_true(b.len <= 200);
    gt_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_number_labels),
        cmocka_unit_test(test_axis_mapping),
        cmocka_unit_test(test_axis_extend),
        cmocka_unit_test(test_ticks_linear_and_log),
        cmocka_unit_test(test_ticks_narrow_decimal_integer),
        cmocka_unit_test(test_ticks_time),
        cmocka_unit_test(test_line),
        cmocka_unit_test(test_band_and_mark),
        cmocka_unit_test(test_colours),
        cmocka_unit_test(test_document),
        cmocka_unit_test(test_colorbar),
        cmocka_unit_test(test_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
