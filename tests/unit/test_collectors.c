/* test_collectors.c - every format on good and bad input, without a db. */
#include "testutil.h"

#define TEXT(s) s, sizeof(s) - 1

static void test_amp_csv_good_and_bad_rows(void **state)
{
    (void)state;
    static struct capture c;
    struct gt_error err = {0};
    const char text[] =
        "timestamp,src,dst,testType,testSubType,packet_size_bytes,rtt_ms\n"
        "1700000000,a,b,icmp,icmp,84,12.5\n"
        "1700000060,a,b,icmp,icmp,84,loss\n"
        "1700000120,a,b,icmp,icmp,84\n"                      /* missing field */
        "1700000180,a,b,icmp,icmp,84,1,extra\n"              /* extra field */
        "yesterday,a,b,icmp,icmp,84,1\n"                     /* bad time */
        "1700000240,a,b,icmp,icmp,84,-3\n"                   /* negative */
        "1700000300,a,b,icmp,icmp,84,inf\n"                  /* not finite */
        "1700000360,,b,icmp,icmp,84,1\n"                     /* empty site */
        "1700000420,\"x,\"\"y\"\"\",b,icmp,icmp,84,2\n"      /* quoted name */
        "2023-11-14T22:15:00Z,a,b,icmp,icmp,,7\n";
    assert_int_equal(collect_text("amp-csv", TEXT(text), NULL, &c, &err), GT_OK);
    assert_int_equal(c.emitted, 4);
    assert_int_equal(c.rejected, 6);
    assert_int_equal(c.s[0].ts, 1700000000);
    assert_true(c.s[0].rtt == 12.5);
    assert_true(isnan(c.s[1].rtt));
    assert_string_equal(c.s[2].src, "x,\"y\"");
    assert_int_equal(c.s[3].ts, 1700000100);
    assert_string_equal(c.reject_loc[0], "4");
    assert_non_null(strstr(c.reject_msg[0], "expected 7 fields, found 6"));
    assert_string_equal(c.reject_loc[2], "6");
    assert_non_null(strstr(c.reject_msg[2], "timestamp"));
    assert_non_null(strstr(c.reject_msg[3], "negative"));
    assert_non_null(strstr(c.reject_msg[5], "empty site name"));
}

static void test_amp_csv_refuses_wrong_files(void **state)
{
    (void)state;
    static struct capture c;
    struct gt_error err = {0};
    assert_int_equal(collect_text("amp-csv", TEXT("ts,src,dst,rtt_ms\n1,a,b,2\n"), NULL,
                                  &c, &err), GT_EINPUT);
    assert_non_null(strstr(err.msg, "not a amp-csv file"));
    assert_int_equal(c.emitted, 0);
    gt_error_clear(&err);
    assert_int_equal(collect_text("amp-csv", TEXT("\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), NULL,
                                  &c, &err), GT_EINPUT);
    assert_non_null(strstr(err.msg, "binary"));
    gt_error_clear(&err);
    assert_int_equal(collect_text("amp-csv", "", 0, NULL, &c, &err), GT_EINPUT);
}

static void test_site_name_limits(void **state)
{
    (void)state;
    static struct capture c;
    struct gt_error err = {0};
    char text[2048], n255[256], n256[257];
    memset(n255, 'a', 255);
    n255[255] = '\0';
    memset(n256, 'b', 256);
    n256[256] = '\0';
    int len = snprintf(text, sizeof text,
                       "ts,src,dst,rtt_ms\n1,%s,x,1\n2,%s,x,1\n3,\xe6\x9d\xb1\xe4\xba\xac,"
                       "'; DROP TABLE sites;--,1\n4,\xff\xfe,x,1\n", n255, n256);
    assert_int_equal(collect_text("csv", text, (size_t)len, NULL, &c, &err), GT_OK);
    assert_int_equal(c.emitted, 2);
    assert_int_equal(c.rejected, 2);
    assert_string_equal(c.s[0].src, n255);
    assert_string_equal(c.s[1].dst, "'; DROP TABLE sites;--");
    assert_non_null(strstr(c.reject_msg[0], "longer than 255"));
    assert_non_null(strstr(c.reject_msg[1], "UTF-8"));
}

static void test_csv_loss_markers_and_seq(void **state)
{
    (void)state;
    static struct capture c;
    struct gt_error err = {0};
    const char text[] = "src,dst,ts,rtt_ms,seq\n"
                        "a,b,10,,0\n" "a,b,10,loss,1\n" "a,b,10,NaN,2\n"
                        "a,b,10,-1,3\n" "a,b,10,5.25,4\n" "a,b,10,abc,5\n" "a,b,10,1,-2\n";
    assert_int_equal(collect_text("csv", TEXT(text), NULL, &c, &err), GT_OK);
    assert_int_equal(c.emitted, 5);
    assert_int_equal(c.rejected, 2);
    for (int i = 0; i < 4; i++)
        assert_true(isnan(c.s[i].rtt));
    assert_true(c.s[4].rtt == 5.25);
    assert_int_equal(c.s[4].seq, 4);
}

static void test_amp_json(void **state)
{
    (void)state;
    static struct capture c;
    struct gt_error err = {0};
    const char text[] =
        "[{\"metadata\": {\"source\": \"amp-a\", \"destination\": \"amp-b\", \"family\": \"ipv4\"},"
        "  \"data\": [{\"timestamp\": 1700000000, \"rtts\": [1500, null, 2500]},"
        "            {\"timestamp\": 1700000060, \"median\": 3000},"
        "            {\"timestamp\": 1700000120, \"rtts\": [1, \"x\"]},"
        "            {\"timestamp\": \"bad\", \"rtts\": [1]},"
        "            {\"timestamp\": 1700000180}]},"
        " {\"metadata\": [[\"source\", \"p\"], [\"destination\", \"q\"]],"
        "  \"data\": [{\"timestamp\": 1700000000, \"median\": null}]},"
        " {\"metadata\": {}, \"data\": []},"
        " 42]";
    assert_int_equal(collect_text("amp-json", TEXT(text), NULL, &c, &err), GT_OK);
    assert_int_equal(c.emitted, 5);
    assert_int_equal(c.rejected, 5);
    assert_true(c.s[0].rtt == 1.5);
    assert_true(isnan(c.s[1].rtt));
    assert_int_equal(c.s[2].seq, 2);
    assert_true(c.s[3].rtt == 3.0);
    assert_string_equal(c.s[4].src, "p");
    assert_true(isnan(c.s[4].rtt));
    assert_string_equal(c.reject_loc[0], "[0].data[2]");
    assert_non_null(strstr(c.reject_msg[0], "rtts[1]"));
    assert_int_equal(collect_text("amp-json", TEXT("[{\"data\": [}"), NULL, &c, &err),
                     GT_EINPUT);
    assert_non_null(strstr(err.msg, "invalid JSON"));
    gt_error_clear(&err);
    assert_int_equal(collect_text("amp-json", TEXT("\"just a string\""), NULL, &c, &err),
                     GT_EINPUT);
}

static void test_esmond(void **state)
{
    (void)state;
    static struct capture c;
    struct gt_error err = {0};
    const char text[] = "[{\"ts\": 1700000000, \"val\": {\"10.5\": 2, \"9.25\": 1}},"
                        " {\"ts\": 1700000060, \"val\": {\"x\": 1}},"
                        " {\"ts\": 1700000120, \"val\": {\"3\": -1}},"
                        " {\"ts\": 1700000180, \"val\": null},"
                        " {\"val\": {\"1\": 1}}]";
    assert_int_equal(collect_text("esmond", TEXT(text), NULL, &c, &err), GT_EUSAGE);
    assert_non_null(strstr(err.msg, "--src and --dst"));
    gt_error_clear(&err);
    struct gt_collect_opts o = {0};
    o.src = "ps-a";
    o.dst = "ps-b";
    assert_int_equal(collect_text("esmond", TEXT(text), &o, &c, &err), GT_OK);
    assert_int_equal(c.emitted, 3);
    assert_int_equal(c.rejected, 3);
    assert_true(c.s[0].rtt == 9.25 && c.s[0].seq == 0);
    assert_true(c.s[1].rtt == 10.5 && c.s[1].seq == 1);
    assert_true(c.s[2].rtt == 10.5 && c.s[2].seq == 2);
    assert_string_equal(c.s[0].dst, "ps-b");
}

static void test_matrix_single_file(void **state)
{
    (void)state;
    static struct capture c;
    struct gt_error err = {0};
    struct gt_collect_opts o = {0};
    o.unit_ms = 1000;
    o.unit_set = true;
    o.zero_is_missing = true;
    o.start = 1000;
    o.start_set = true;
    const char text[] = "0\t0.5\t0\n0.25\t0\tx\n0.1 0.2 0.3\n0.1\t0.2\n";
    assert_int_equal(collect_text("matrix", TEXT(text), &o, &c, &err), GT_OK);
    /* row 1: 2 off-diagonal (one lost); row 2: one good, one bad;
       row 3: 2 good; row 4: beyond the 3 sites */
    assert_int_equal(c.emitted, 5);
    assert_int_equal(c.rejected, 2);
    assert_true(c.notes >= 3);
    assert_string_equal(c.s[0].src, "s001");
    assert_string_equal(c.s[0].dst, "s002");
    assert_true(c.s[0].rtt == 500);
    assert_true(isnan(c.s[1].rtt));
    assert_int_equal(c.s[0].ts, 1000);
}

static void test_matrix_refuses_binary(void **state)
{
    (void)state;
    static struct capture c;
    struct gt_error err = {0};
    assert_int_equal(collect_text("matrix", TEXT("\0\1\2\3garbage"), NULL, &c, &err),
                     GT_EINPUT);
    assert_int_equal(c.emitted, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_amp_csv_good_and_bad_rows),
        cmocka_unit_test(test_amp_csv_refuses_wrong_files),
        cmocka_unit_test(test_site_name_limits),
        cmocka_unit_test(test_csv_loss_markers_and_seq),
        cmocka_unit_test(test_amp_json),
        cmocka_unit_test(test_esmond),
        cmocka_unit_test(test_matrix_single_file),
        cmocka_unit_test(test_matrix_refuses_binary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
