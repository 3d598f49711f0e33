/* test_util.c - number, time and UTF-8 parsers, buffers, quantiles; the
 * shortest text of a double and the JSON writer that uses it. */
#include "testutil.h"

#include <float.h>
#include <malloc.h>

#include "base/jsonout.h"
#include "base/jsonscan.h"
#include "base/lazylib.h"
#include "base/numfmt.h"
#include "advisor/exports.h"

static void test_parse_i64(void **state)
{
    (void)state;
    int64_t v;
    assert_true(gt_parse_i64("0", 1, &v) && v == 0);
    assert_true(gt_parse_i64("-42", 3, &v) && v == -42);
    assert_true(gt_parse_i64("9223372036854775807", 19, &v) && v == INT64_MAX);
    assert_true(gt_parse_i64("-9223372036854775808", 20, &v) && v == INT64_MIN);
    assert_false(gt_parse_i64("9223372036854775808", 19, &v));
    assert_false(gt_parse_i64("", 0, &v));
    assert_false(gt_parse_i64("-", 1, &v));
    assert_false(gt_parse_i64("12a", 3, &v));
    assert_false(gt_parse_i64(" 1", 2, &v));
}

/* The fast path must agree bit for bit with strtod (an independent,
 * correctly rounded parser) on random short decimals. */
static void test_parse_double_matches_strtod(void **state)
{
    (void)state;
    srand(12345);
    for (int i = 0; i < 200000; i++) {
        char buf[64];
        int ip = rand() % 100000, fp = rand(), fd = rand() % 10;
        int n = fd ? snprintf(buf, sizeof buf, "%s%d.%0*d", rand() % 7 ? "" : "-", ip, fd,
                              fp % (int)pow(10, fd))
                   : snprintf(buf, sizeof buf, "%d", ip);
        double got, want = strtod(buf, NULL);
        assert_true(gt_parse_double(buf, (size_t)n, &got));
        assert_memory_equal(&got, &want, sizeof got);
    }
    double v;
    assert_true(gt_parse_double("1e3", 3, &v) && v == 1000);
    assert_true(gt_parse_double("0.1", 3, &v) && v == 0.1);
    assert_true(gt_parse_double("123456789012345678901234", 24, &v) &&
                v == 123456789012345678901234.0);
    assert_true(gt_parse_double("nan", 3, &v) && isnan(v));
    assert_false(gt_parse_double("", 0, &v));
    assert_false(gt_parse_double("1.2.3", 5, &v));
    assert_false(gt_parse_double("0x10", 4, &v));
    assert_false(gt_parse_double(" 5", 2, &v));
    assert_false(gt_parse_double(".", 1, &v));
}

/* Expected values from Python's calendar.timegm. */
static void test_parse_time(void **state)
{
    (void)state;
    struct { const char *s; int64_t t; } ok[] = {
        {"2026-11-22T00:00:00Z", 1795305600},
        {"2026-11-22", 1795305600},
        {"2026-11-22 00:00:00", 1795305600},
        {"2000-02-29T12:34:56Z", 951827696},
        {"2000-02-29T12:34:56.999Z", 951827696},
        {"2024-12-31T23:59:59+00:00", 1735689599},
        {"2026-11-22T10:00:00+05:30", 1795321800},
        {"2026-11-22T10:00:00+0530", 1795321800},
        {"1970-01-01T00:00:00Z", 0},
        {"1969-12-31T23:59:59Z", -1},
        {"1795305600", 1795305600},
        {"1795305600.75", 1795305600},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t t;
        assert_true(gt_parse_time(ok[i].s, strlen(ok[i].s), &t));
        assert_int_equal(t, ok[i].t);
    }
    const char *bad[] = {"", "2026-13-01", "2026-02-30", "2025-02-29", "2026-11-22T25:00",
                         "2026-11-22T10:00:00+", "yesterday", "2026-11-22T10:00:00Zjunk",
                         "1e400", "nan"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t t;
        assert_false(gt_parse_time(bad[i], strlen(bad[i]), &t));
    }
}

static void test_format_time_roundtrip(void **state)
{
    (void)state;
    for (int64_t t = -86400 * 800; t < 86400LL * 365 * 300; t += 86400 * 37 + 3599) {
        char buf[32];
        int64_t back;
        gt_format_time(t, buf, sizeof buf);
        assert_true(gt_parse_time(buf, strlen(buf), &back));
        assert_int_equal(back, t);
    }
    char buf[32];
    gt_format_time(951827696, buf, sizeof buf);
    assert_string_equal(buf, "2000-02-29T12:34:56Z");
}

static void test_utf8(void **state)
{
    (void)state;
    assert_true(gt_utf8_valid("abc", 3));
    assert_true(gt_utf8_valid("\xe6\x9d\xb1\xe4\xba\xac", 6));          /* 東京 */
    assert_true(gt_utf8_valid("\xf0\x9f\x98\x80", 4));                  /* U+1F600 */
    assert_false(gt_utf8_valid("\xc0\xaf", 2));                         /* overlong */
    assert_false(gt_utf8_valid("\xed\xa0\x80", 3));                     /* surrogate */
    assert_false(gt_utf8_valid("\xf4\x90\x80\x80", 4));                 /* > U+10FFFF */
    assert_false(gt_utf8_valid("\xe6\x9d", 2));                         /* truncated */
    assert_false(gt_utf8_valid("a\0b", 3));
    assert_false(gt_utf8_valid("\xff", 1));
    /* escaped: sequences kept, stray bytes as \xHH, cut at a character */
    char out[32];
    gt_utf8_escape("(\xa8", out, sizeof out);
    assert_string_equal(out, "(\\xA8");
    gt_utf8_escape("\xe6\x9d\xb1\xe6\x9d x\xc0\xaf", out, sizeof out);
    assert_string_equal(out, "\xe6\x9d\xb1\\xE6\\x9D x\\xC0\\xAF");
    assert_true(gt_utf8_valid(out, strlen(out)));
    gt_utf8_escape("ab\xe6\x9d\xb1", out, 5);   /* 東 does not fit in 4 */
    assert_string_equal(out, "ab");
    gt_utf8_escape("a\xff", out, 5);             /* \xFF does not fit in 4 */
    assert_string_equal(out, "a");
}

/* two ascending runs merged by the double each element starts with, the
 * left one first among equal keys; runs in order are left as they are */
static void test_merge_runs(void **state)
{
    (void)state;
    double d[] = {1, 4, 9, 2, 3, 10, 11};
    assert_true(gt_merge_runs(d, sizeof *d, 3, 7));
    for (int i = 0; i < 6; i++)
        assert_true(d[i] <= d[i + 1]);
    assert_true(d[0] == 1 && d[2] == 3 && d[4] == 9 && d[6] == 11);
    struct { double t; int id; } p[] = {{5, 0}, {7, 1}, {5, 2}, {6, 3}, {8, 4}};
    assert_true(gt_merge_runs(p, sizeof *p, 2, 5));
    static const int order[] = {0, 2, 3, 1, 4};
    for (int i = 0; i < 5; i++)
        assert_int_equal(p[i].id, order[i]);
    double in_order[] = {1, 2, 3, 4};
    assert_true(gt_merge_runs(in_order, sizeof *in_order, 2, 4) && in_order[1] == 2);
}

static void test_buf_cap(void **state)
{
    (void)state;
    struct gt_buf b;
    gt_buf_init(&b, 10);
    assert_int_equal(gt_buf_append(&b, "0123456789", 10), GT_OK);
    assert_int_equal(gt_buf_append(&b, "x", 1), GT_ETOOBIG);
    assert_int_equal(b.len, 10);
    assert_string_equal(b.data, "0123456789");
    gt_buf_reset(&b);
    assert_int_equal(gt_buf_printf(&b, "%d-%s", 42, "ab"), GT_OK);
    assert_string_equal(b.data, "42-ab");
    gt_buf_free(&b);
    /* no limit: SIZE_MAX (max + 1 wraps: it once capped the size at 0) */
    gt_buf_init(&b, SIZE_MAX);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(gt_buf_printf(&b, "%s%d", i ? "," : "", i), GT_OK);
    assert_int_equal(b.len, 10 + 2 * 90 + 3 * 900 + 999);
    assert_memory_equal(b.data + b.len - 8, ",998,999", 8);
    gt_buf_free(&b);
}

/* A small text input read with its bounds (issue 45, point 10): lines,
 * a line too long said at once and skipped, a NUL byte and the whole
 * input's bound ending it, each at its FILE:LINE; /dev/zero at once. */
static FILE *text_of(const char *s, size_t n)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(s, 1, n, f), n);
    rewind(f);
    return f;
}

#define TEXT(s) text_of(s, sizeof s - 1)

static void test_lines(void **state)
{
    (void)state;
    char buf[8];
    struct gt_lines r;
    struct gt_error err = {0};
    FILE *f = TEXT("ab\r\n\n0123456789xyz\nlast");
    gt_lines_init(&r, f, "t.txt", 0);
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), 1);
    assert_string_equal(buf, "ab\r");
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), 1);
    assert_string_equal(buf, "");
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), GT_ETOOBIG);
    assert_string_equal(err.where, "t.txt:3");
    assert_string_equal(err.msg, "line longer than 7 bytes");
    assert_int_equal(err.code, GT_EINPUT);
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), 1);   /* on with line 4 */
    assert_string_equal(buf, "last");
    assert_string_equal(r.where, "t.txt:4");
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), 0);
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), 0);
    fclose(f);

    gt_error_clear(&err);
    f = TEXT("a\nb\0c\nd\n");
    gt_lines_init(&r, f, "n.txt", 0);
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), 1);
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), GT_EINPUT);
    assert_string_equal(err.where, "n.txt:2");
    assert_string_equal(err.msg, "a NUL byte: not a text file");
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), 0);   /* ended */
    fclose(f);

    gt_error_clear(&err);   /* 10 bytes at most: the third line passes it */
    f = TEXT("abc\ndef\nghi\n");
    gt_lines_init(&r, f, "m.txt", 10);
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), 1);
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), 1);
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), GT_EINPUT);
    assert_string_equal(err.where, "m.txt:3");
    assert_string_equal(err.msg, "more than 10 bytes in all: not a small text input");
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), 0);
    fclose(f);

    gt_error_clear(&err);   /* a line too long whose rest passes the bound */
    f = TEXT("0123456789abcdef\nx\n");
    gt_lines_init(&r, f, "s.txt", 12);
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), GT_ETOOBIG);
    gt_error_clear(&err);
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), GT_EINPUT);
    assert_string_equal(err.where, "s.txt:1");
    assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), 0);
    fclose(f);

    f = fopen("/dev/zero", "r");
    if (f) {
        gt_error_clear(&err);
        gt_lines_init(&r, f, "/dev/zero", 0);
        assert_int_equal(gt_lines_next(&r, buf, sizeof buf, &err), GT_EINPUT);
        assert_string_equal(err.where, "/dev/zero:1");
        fclose(f);
    }
}

/* Control code points in names (issue 45, point 13): C0, DEL, C1, the
 * bidirectional controls and the line separators; other text is not. */
static void test_first_control(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        long cp;
    } cases[] = {
        {"CERN", -1}, {"Zürich-ÉTH", -1}, {"東京", -1}, {"a\tb", '\t'}, {"a\033[2J", 033},
        {"a\177", 0x7f}, {"g\302\205h", 0x85}, {"\302\233" "2J", 0x9b}, {"\302\240nbsp", -1},
        {"f\342\200\256gpj.exe", 0x202e}, {"\342\200\252", 0x202a}, {"x\342\200\216", 0x200e},
        {"x\342\200\217", 0x200f}, {"\342\201\246i", 0x2066}, {"\342\201\251", 0x2069},
        {"\330\234", 0x061c}, {"a\342\200\250b", 0x2028}, {"a\342\200\251b", 0x2029},
        {"\342\200\224dash", -1}, {"\342\200\257", -1}, {"\342\201\245", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(gt_first_control(cases[i].s, strlen(cases[i].s)), cases[i].cp);
        assert_int_equal(gt_has_control(cases[i].s, strlen(cases[i].s)), cases[i].cp >= 0);
    }
}

/* Type-7 quantiles, checked against numpy.quantile by hand. */
static void test_quantile(void **state)
{
    (void)state;
    double x[] = {1, 2, 3, 4, 10};
    assert_true(fabs(gt_quantile_sorted(x, 5, 0.5) - 3) < 1e-12);
    assert_true(fabs(gt_quantile_sorted(x, 5, 0.99) - 9.76) < 1e-12);
    assert_true(fabs(gt_quantile_sorted(x, 5, 0.25) - 2) < 1e-12);
    assert_true(fabs(gt_quantile_sorted(x, 4, 0.5) - 2.5) < 1e-12);
    assert_true(gt_quantile_sorted(x, 1, 0.9) == 1);
}

static void test_duration(void **state)
{
    (void)state;
    int64_t s;
    assert_true(gt_parse_duration("30d", &s) && s == 30 * 86400);
    assert_true(gt_parse_duration("90m", &s) && s == 5400);
    assert_true(gt_parse_duration("45", &s) && s == 45);
    assert_false(gt_parse_duration("-1d", &s));
    assert_false(gt_parse_duration("d", &s));
}

/* Worked by hand: the neighbours of each double and which decimals fall
 * between the midpoints. */
static void test_fmt_double_cases(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        {14.499, "14.499"},      /* %.17g: 14.499000000000001 */
        {0.1, "0.1"},
        {0.05, "0.05"},          /* %.17g: 0.050000000000000003 */
        {0.1 + 0.2, "0.30000000000000004"},   /* 0.3 is the double below */
        {112.135, "112.135"},
        {4200, "4200"},          /* fixed as %.17g lays it out, not 4.2e+03 */
        {0.0009765625, "0.0009765625"},       /* 2^-10, exact */
        {0.0001, "0.0001"},
        {1e-5, "1e-05"},
        {1e16, "10000000000000000"},
        {1e17, "1e+17"},
        {1e23, "1e+23"},         /* the double is 9.999999999999999161e22 */
        {1e300, "1e+300"},
        {9223372036854775808.0, "9.223372036854776e+18"},   /* 2^63: gap 1024 below */
        {(double)0.1f, "0.10000000149011612"},  /* 13421773 * 2^-27 */
        {9007199254740993.0, "9007199254740992"},   /* 2^53 + 1 rounds to 2^53 */
        {DBL_MAX, "1.7976931348623157e+308"},
        {DBL_MIN, "2.2250738585072014e-308"},
        {4.9406564584124654e-324, "5e-324"},   /* the smallest subnormal */
        {-2.5, "-2.5"},
        {0.0, "0"},
        {-0.0, "-0"},
        {NAN, "nan"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[GT_FMT_DOUBLE_SIZE];
        int n = gt_fmt_double(buf, cases[i].v);
        assert_string_equal(buf, cases[i].text);
        assert_int_equal(n, (int)strlen(cases[i].text));
    }
}

/* The significant digits of a number's text: no sign, point, exponent,
 * leading or trailing zeros. */
static int significant_digits(const char *t, char *d)
{
    int n = 0;
    for (; *t && *t != 'e'; t++)
        if (*t >= '0' && *t <= '9' && (n || *t != '0'))
            d[n++] = *t;
    while (n > 1 && d[n - 1] == '0')
        n--;
    d[n] = '\0';
    return n;
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random doubles from bit patterns, against printf and strtod: the text
 * reads back to the same bits, it has the digits %.Ne gives for its N
 * (correctly rounded), and no shorter %.Ng reads back. */
static void test_fmt_double_shortest(void **state)
{
    (void)state;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 40000; i++) {
        uint64_t bits = xorshift(&seed);
        if (i % 4 == 1)          /* 1e-15 .. 1e17, the exact path */
            bits = (bits & 0x800fffffffffffffull) | (uint64_t)(1023 - 49 + i % 105) << 52;
        else if (i % 4 == 2) {   /* short decimals, as RTTs are */
            double dec = (double)(xorshift(&seed) % 10000000) / pow(10, (double)(i % 9));
            memcpy(&bits, &dec, sizeof bits);
        }
        else if (i % 64 == 3)    /* powers of two: a narrower gap below */
            bits = (xorshift(&seed) % 2046 + 1) << 52;
        double v, back;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v))
            continue;
        char text[GT_FMT_DOUBLE_SIZE], d[32], want[400], wd[400];
        gt_fmt_double(text, v);
        back = strtod(text, NULL);
        assert_memory_equal(&back, &v, sizeof v);
        int n = significant_digits(text, d);
        if (v == 0)
            continue;
        snprintf(want, sizeof want, "%.*e", n - 1, v);
        significant_digits(want, wd);
        assert_string_equal(d, wd);
        for (int p = 1; p < n; p++) {
            snprintf(want, sizeof want, "%.*g", p, v);
            assert_true(strtod(want, NULL) != v);
        }
    }
}

static const char *const json_docs[] = {
    "{}",
    "[]",
    "{\"a\": [], \"b\": {}, \"c\": [[], [{}], {\"d\": []}], \"e\": [1, [2, [3, []]]]}",
    "[null, true, false, 0, -1, 9223372036854775807, -9223372036854775808]",
    "{\"\\u00e9t\\u00e9\": \"h\\u00e9llo \\u2603 \\ud834\\udd1e\", \"\": \"\"}",
    "[\"\\u0001\\u001f\\b\\f\\n\\r\\t\\\"\\\\/ \\u007f\", \"a/b\", \"\\u0000x\"]",
    "{\"k\\ney\": {\"inner\": [\"x\", {\"y\": null}]}, \"z\": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]}",
};

/* Without reals, byte for byte what json_dumps writes, for every layout
 * the code uses and a few it does not. */
static void test_json_matches_jansson(void **state)
{
    (void)state;
    static const size_t flags[] = {
        JSON_INDENT(2), JSON_COMPACT, JSON_COMPACT | JSON_PRESERVE_ORDER, 0,
        JSON_INDENT(4) | JSON_COMPACT, JSON_INDENT(2) | JSON_REAL_PRECISION(15),
        JSON_INDENT(31),
    };
    for (size_t i = 0; i < sizeof json_docs / sizeof json_docs[0]; i++) {
        json_error_t je;
        json_t *doc = json_loads(json_docs[i], JSON_ALLOW_NUL, &je);
        assert_non_null(doc);
        for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
            char *want = json_dumps(doc, flags[f]), *got = gt_json_dumps(doc, flags[f]);
            assert_non_null(want);
            assert_non_null(got);
            assert_string_equal(got, want);
            free(want);
            free(got);
        }
        json_decref(doc);
    }
    /* a root that is not a container only with JSON_ENCODE_ANY, as there */
    json_t *s = json_string("x");
    assert_null(gt_json_dumps(s, JSON_COMPACT));
    char *got = gt_json_dumps(s, JSON_ENCODE_ANY);
    assert_string_equal(got, "\"x\"");
    free(got);
    json_decref(s);
    /* a flag not taken is refused, not dropped */
    json_t *o = json_object();
    assert_null(gt_json_dumps(o, JSON_SORT_KEYS));
    json_decref(o);
}

/* Reals: the shortest text, a '.' or an exponent always, jansson's
 * exponent; and random ones read back to the same bits. */
/* where the first value ends, its longest container, values counted */
static void test_json_cost_shape(void **state)
{
    (void)state;
    struct gt_json_cost c;
    static const char doc[] = " {\"a\": [1, \"x]\\\"\", null], \"b\": {}} [2]";
    gt_json_cost(doc, sizeof doc - 1, &c);
    assert_true(c.complete);
    assert_int_equal(c.end, strlen(" {\"a\": [1, \"x]\\\"\", null], \"b\": {}}"));
    assert_int_equal(c.values, 6);   /* {}, [], 1, "x]\"", null, {} */
    assert_int_equal(c.longest, 3);
    gt_json_cost("[1, [2, 3", 9, &c);
    assert_false(c.complete);
    assert_int_equal(c.end, 9);
    gt_json_cost("  42 ", 5, &c);
    assert_true(c.complete);
    assert_int_equal(c.end, 4);
    gt_json_cost("", 0, &c);
    assert_false(c.complete);
    /* past jansson's depth: stops there, not complete */
    char deep[5000];
    memset(deep, '[', sizeof deep);
    gt_json_cost(deep, sizeof deep, &c);
    assert_false(c.complete);
    assert_true(c.end <= 2049);
}

/* n copies of el, comma-separated, inside open ... close */
static char *repeated(const char *open, const char *el, int n, const char *close)
{
    size_t k = strlen(el), len = strlen(open) + (k + 1) * (size_t)n + strlen(close) + 1;
    char *s = malloc(len), *p = s;
    p += sprintf(p, "%s", open);
    for (int i = 0; i < n; i++)
        p += sprintf(p, "%s%s", i ? "," : "", el);
    sprintf(p, "%s", close);
    return s;
}

/* The estimate is above what json_loadb really allocates (glibc's count
 * of bytes in use, before and after) and not wildly above: shapes from
 * the densest ({} and [] in an array) to ordinary sample records. */
static void test_json_cost_bounds_jansson(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip();   /* ASan's allocator is not glibc's: mallinfo2 does not see it */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    skip();
#endif
#endif
    static const char *const shapes[][3] = {
        {"[", "{}", "]"}, {"[", "[]", "]"}, {"[", "null", "]"}, {"[", "1", "]"},
        {"[", "1.5", "]"}, {"[", "\"\"", "]"}, {"[", "\"abcdefghij\"", "]"},
        {"[", "{\"ts\":1795305600,\"src\":\"abc\",\"dst\":\"def\",\"rtt_ms\":12.5,\"seq\":3}", "]"},
        {"[", "{\"a\":1}", "]"}, {"[", "[[[[[[[[1]]]]]]]]", "]"}, {"{\"k\":[", "\"\\u00e9\"", "]}"},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char *text = repeated(shapes[i][0], shapes[i][1], 20000, shapes[i][2]);
        size_t len = strlen(text);
        struct gt_json_cost c;
        gt_json_cost(text, len, &c);
        assert_true(c.complete);
        assert_int_equal(c.end, len);
        assert_true(c.longest == 20000);
        struct mallinfo2 before = mallinfo2();
        json_t *doc = json_loadb(text, len, 0, NULL);
        struct mallinfo2 after = mallinfo2();
        assert_non_null(doc);
        size_t real = after.uordblks - before.uordblks;
        if (c.bytes < real || c.bytes > 4 * real + 64)
            fail_msg("%s: estimated %zu bytes, json_loadb took %zu", shapes[i][1], c.bytes, real);
        json_decref(doc);
        free(text);
    }
}

static void test_json_reals(void **state)
{
    (void)state;
    json_t *doc = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "two", 2.0, "rtt", 14.499,
                            "small", 1e-5, "big", 1e300, "neg", -0.0, "sum", 0.1 + 0.2,
                            "p", 5.21896890788606e-33);
    char *got = gt_json_dumps(doc, JSON_COMPACT);
    assert_string_equal(got, "{\"two\":2.0,\"rtt\":14.499,\"small\":1e-5,\"big\":1e300,"
                             "\"neg\":-0.0,\"sum\":0.30000000000000004,"
                             "\"p\":5.21896890788606e-33}");
    free(got);
    json_decref(doc);

    json_t *a = json_array();
    uint64_t seed = 42;
    for (int i = 0; i < 2000; i++) {
        uint64_t bits = xorshift(&seed);
        double v;
        memcpy(&v, &bits, sizeof v);
        if (isfinite(v))
            json_array_append_new(a, json_real(i % 2 ? v : ldexp(v, -(int)(bits % 60))));
    }
    char *text = gt_json_dumps(a, JSON_INDENT(2));
    json_error_t je;
    json_t *back = json_loads(text, 0, &je);
    assert_non_null(back);
    assert_int_equal(json_array_size(back), json_array_size(a));
    for (size_t i = 0; i < json_array_size(a); i++) {
        double want = json_real_value(json_array_get(a, i));
        double read = json_real_value(json_array_get(back, i));
        assert_true(json_is_real(json_array_get(back, i)));
        assert_memory_equal(&read, &want, sizeof want);
    }
    /* to a file, the same text */
    FILE *f = tmpfile();
    assert_int_equal(gt_json_dumpf(a, f, JSON_INDENT(2)), 0);
    long len = ftell(f);
    assert_int_equal(len, (long)strlen(text));
    char *filed = calloc(1, (size_t)len + 1);
    rewind(f);
    assert_int_equal(fread(filed, 1, (size_t)len, f), (size_t)len);
    assert_string_equal(filed, text);
    fclose(f);
    free(filed);
    free(text);
    json_decref(back);
    json_decref(a);
}

/* gt_yaml_write against its output worked out by hand: nesting, lists
 * of objects and of lists, empty containers, keys YAML 1.1 would read as
 * booleans (n, on, yes) or that are not plain, and strings as their JSON
 * text. */
static void test_yaml_by_hand(void **state)
{
    (void)state;
    json_t *doc = json_pack("{s:s, s:{s:[{s:s, s:i}, {s:b}], s:[], s:{}}, s:[[i, f], n], "
                            "s:s, s:s}",
                            "kind", "K\"q\n", "spec", "list", "a", "x y", "n", 3, "on", 1,
                            "empty", "none", "deep", 1, 2.5, "yes", "no", "a key", "\xc3\xa9");
    assert_non_null(doc);
    struct gt_buf b;
    gt_buf_init(&b, 1 << 20);
    assert_int_equal(gt_yaml_write(&b, doc), GT_OK);
    assert_int_equal(gt_buf_append(&b, "", 1), GT_OK);
    const char *want = "kind: \"K\\\"q\\n\"\n"
                       "spec:\n"
                       "  list:\n"
                       "    - a: \"x y\"\n"
                       "      \"n\": 3\n"
                       "    - \"on\": true\n"
                       "  empty: []\n"
                       "  none: {}\n"
                       "deep:\n"
                       "  - - 1\n"
                       "    - 2.5\n"
                       "  - null\n"
                       "\"yes\": \"no\"\n"
                       "\"a key\": \"\xc3\xa9\"\n";
    assert_string_equal(b.data, want);
    gt_buf_free(&b);
    json_decref(doc);
}

/* The names an export writes, as Kubernetes and Rucio define them. */
static void test_export_names(void **state)
{
    (void)state;
    assert_true(gt_export_label_value("eu-west-1"));
    assert_true(gt_export_label_value("Zone_B.2"));
    assert_false(gt_export_label_value("zone_"));
    assert_false(gt_export_label_value("-zone"));
    assert_false(gt_export_label_value(""));
    assert_false(gt_export_label_value("a b"));
    assert_true(gt_export_label_value("a23456789012345678901234567890123456789012345678901234567890123"));
    assert_false(gt_export_label_value("a234567890123456789012345678901234567890123456789012345678901234"));
    assert_true(gt_export_dns_subdomain("grid.costs-1"));
    assert_false(gt_export_dns_subdomain("Grid"));
    assert_false(gt_export_dns_subdomain("a..b"));
    assert_false(gt_export_dns_subdomain("a-.b"));
    assert_true(gt_export_dns_label("sched"));
    assert_false(gt_export_dns_label("a.b"));
    assert_true(gt_export_rse_name("CERN-PROD_DATADISK"));
    assert_true(gt_export_rse_name("T2_US_MIT"));
    assert_false(gt_export_rse_name("cern_disk"));
    assert_false(gt_export_rse_name("CERN__DISK"));
    assert_false(gt_export_rse_name("_CERN"));
    assert_false(gt_export_rse_name("CERN-"));
    assert_false(gt_export_rse_name(""));
}

/* gt_select against a full sort: every k of arrays of 1 to 120 values,
 * few distinct (ties) or many, and the partition it leaves. */
static void test_select(void **state)
{
    (void)state;
    unsigned seed = 12345;
    double x[120], y[120];
    for (size_t n = 1; n <= 120; n++)
        for (int distinct = 3; distinct <= 1000; distinct *= 333)
            for (size_t k = 0; k < n; k++) {
                for (size_t i = 0; i < n; i++) {
                    seed = seed * 1103515245u + 12345u;
                    x[i] = y[i] = (double)((seed >> 16) % (unsigned)distinct);
                }
                qsort(y, n, sizeof *y, gt_cmp_double);
                size_t hi = k + (n - 1 - k) / 2;
                assert_true(gt_select(x, 0, n - 1, k) == y[k]);
                for (size_t i = 0; i < n; i++)
                    assert_true(i < k ? x[i] <= x[k] : x[i] >= x[k]);
                /* a second selection within the part above k */
                if (hi > k)
                    assert_true(gt_select(x, k, n - 1, hi) == y[hi]);
            }
}

/* A library loaded on first use: found, or a failure that names it and
 * says why (what a command then prints instead of crashing). */
static void test_lazylib(void **state)
{
    (void)state;
    struct gt_lazylib m = {.soname = "libm.so.6"};
    assert_true(gt_lazylib_open(&m));
    double (*cosine)(double) = (double (*)(double))gt_lazylib_sym(&m, "cos");
    assert_non_null(cosine);
    assert_true(cosine(0.0) == 1.0);
    struct gt_error err = {0};
    assert_int_equal(gt_lazylib_status(&m, &err), GT_OK);
    assert_null(gt_lazylib_sym(&m, "gt_no_such_function"));
    assert_int_equal(gt_lazylib_status(&m, &err), GT_EIO);
    assert_non_null(strstr(err.msg, "libm.so.6 cannot be loaded: "));
    assert_non_null(strstr(err.msg, "gt_no_such_function"));

    struct gt_lazylib none = {.soname = "libgridtail-none.so.0"};
    assert_false(gt_lazylib_open(&none));
    gt_error_clear(&err);
    assert_int_equal(gt_lazylib_status(&none, &err), GT_EIO);
    assert_non_null(strstr(err.msg, "libgridtail-none.so.0 cannot be loaded: "));
}

/* gt_lower_bound against a linear scan, with ties, every x between and
 * beyond the values. */
static void test_lower_bound(void **state)
{
    (void)state;
    double v[] = {1, 2, 2, 2, 5, 7, 7, 9};
    size_t n = sizeof v / sizeof *v;
    for (double x = 0; x <= 10; x += 0.5) {
        size_t want = 0;
        while (want < n && v[want] < x)
            want++;
        assert_int_equal(gt_lower_bound(v, n, x), want);
    }
    assert_int_equal(gt_lower_bound(v, 0, 3), 0);
    /* gt_sorted_insert and gt_sorted_replace against a sort of a ring of
       values with many ties */
    double ring[16], kept[16], want[16];
    unsigned seed = 3;
    for (size_t i = 0; i < 200; i++) {
        double x = rand_r(&seed) % 9;
        size_t m = i < 16 ? i : 16;
        if (i < 16)
            gt_sorted_insert(kept, m, x);
        else
            gt_sorted_replace(kept, m, ring[i % 16], x);
        ring[i % 16] = x;
        m = i < 16 ? i + 1 : 16;
        memcpy(want, ring, m * sizeof *want);
        qsort(want, m, sizeof *want, gt_cmp_double);
        assert_memory_equal(kept, want, m * sizeof *want);
    }
}

/* gt_text_safe by hand: terminal escapes and invalid UTF-8 become '?',
 * valid UTF-8 (2, 3 and 4 bytes) and tabs stay; an error message quoting
 * a server's body is made safe as it is recorded. */
static void test_text_safe(void **state)
{
    (void)state;
    struct { const char *in, *out; } cases[] = {
        {"plain text", "plain text"},
        {"\x1b[2Jclear", "?[2Jclear"},                 /* ESC */
        {"\x1b]0;title\x07", "?]0;title?"},             /* an OSC title, BEL */
        {"tab\there\nline\r", "tab\there?line?"},
        {"Z\xc3\xbcrich \xe2\x82\xac \xf0\x9f\x98\x80", "Z\xc3\xbcrich \xe2\x82\xac \xf0\x9f\x98\x80"},
        {"bad \xff\xfe end", "bad ?? end"},
        {"cut \xe2\x82", "cut ??"},                       /* a sequence cut short */
        {"c1 \xc2\x9b[2J", "c1 ??[2J"},                   /* U+009B, an 8-bit CSI */
        {"over \xc0\xaf \xe0\x80\xaf", "over ?? ???"},    /* overlong */
        {"surrogate \xed\xa0\x80", "surrogate ???"},
        {"del \x7f", "del ?"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", cases[i].in);
        gt_text_safe(buf);
        assert_string_equal(buf, cases[i].out);
    }
    struct gt_error err = {0};
    gt_error_set(&err, GT_EIO, "http://h/\x1b[1m", "the server said: %s", "\x1b[2J\x07oops");
    assert_string_equal(err.where, "http://h/?[1m");
    assert_string_equal(err.msg, "the server said: ?[2J?oops");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_safe),
        cmocka_unit_test(test_lower_bound),
        cmocka_unit_test(test_parse_i64),
        cmocka_unit_test(test_parse_double_matches_strtod),
        cmocka_unit_test(test_parse_time),
        cmocka_unit_test(test_format_time_roundtrip),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_merge_runs),
        cmocka_unit_test(test_buf_cap),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_first_control),
        cmocka_unit_test(test_quantile),
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_fmt_double_cases),
        cmocka_unit_test(test_fmt_double_shortest),
        cmocka_unit_test(test_json_matches_jansson),
        cmocka_unit_test(test_json_reals),
        cmocka_unit_test(test_json_cost_shape),
        cmocka_unit_test(test_json_cost_bounds_jansson),
        cmocka_unit_test(test_yaml_by_hand),
        cmocka_unit_test(test_export_names),
        cmocka_unit_test(test_select),
        cmocka_unit_test(test_lazylib),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
