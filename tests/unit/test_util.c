/* test_util.c - number, time and UTF-8 parsers, buffers, quantiles. */
#include "testutil.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_i64),
        cmocka_unit_test(test_parse_double_matches_strtod),
        cmocka_unit_test(test_parse_time),
        cmocka_unit_test(test_format_time_roundtrip),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_buf_cap),
        cmocka_unit_test(test_quantile),
        cmocka_unit_test(test_duration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
