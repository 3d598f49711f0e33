/* test_collectors.c - every format on good and bad input, without a db. */
#include "testutil.h"
#include "collectors/promhist.h"
#include "collectors/push.h"
#include "collectors/jsonin.h"

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

/* A saved answer of smokeping_prober's series (--exporter smokeping),
 * worked by hand: host h has buckets 1, 2, 4 ms and +Inf, its sum and its
 * pings sent at t = 100..103, the counters restarting at 103.
 *   101: 1 answer in (0, 1], 2 in (1, 2]: at fraction t of each width,
 *        0 + t + 2 (1 + t) = 4.5 ms gives t = 5/6: 0.8333 and 1.8333 ms
 *        twice; 4 pings, 3 answered, but the next step answers one more
 *        than it sent: that one was in flight, none is lost.
 *   102: 1 answer in (2, 4], the sum rose by 3 ms: 3 ms (t = 1/2).
 *   103: restarted: 1 answer in (1, 2] of sum 1.5 ms: 1.5 ms; 2 pings sent
 *        and no next step: 1 lost.
 * Host g only counts pings (no answer ever: no histogram): 3 lost at 101.
 * Host b's histogram appears with its first answer, at 102 (its counts 0
 * before): 101's 2 pings lost; 102 and 103 one answer and one lost each
 * (1 in (0, 1] of sum 0.5 ms: 0.5 ms; 1 past the last bound: 1 ms).
 * Hosts w and x have a bound that is no number ("" and "abc"), y counts
 * that shrink at 101, then
 * one answer past its last bound at 102: kept at that bound, 1 ms.  Host
 * z sent more pings in a step than the bound. */
#define PT(t, v) "[" #t ",\"" #v "\"]"
#define SERIES(labels, ...) "{\"metric\":{" labels "},\"values\":[" __VA_ARGS__ "]}"
#define BUCKET(host, le, a, b, c, d) \
    SERIES("\"__name__\":\"x_bucket\",\"host\":\"" host "\",\"le\":\"" le "\"", \
           PT(100, a) "," PT(101, b) "," PT(102, c) "," PT(103, d))

static void test_prometheus_histograms(void **state)
{
    (void)state;
    static struct capture c;
    struct gt_error err = {0};
    const char text[] =
        "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
        BUCKET("h", "0.001", 0, 1, 1, 0) "," BUCKET("h", "0.002", 0, 3, 3, 1) ","
        BUCKET("h", "+Inf", 0, 3, 4, 1) "," BUCKET("h", "0.004", 0, 3, 4, 1) ","
        SERIES("\"__name__\":\"x_sum\",\"host\":\"h\"",
               PT(100, 0) "," PT(101, 0.0045) "," PT(102, 0.0075) "," PT(103, 0.0015)) ","
        SERIES("\"__name__\":\"x_count\",\"host\":\"h\"", PT(101, 99)) ","
        SERIES("\"__name__\":\"smokeping_requests_total\",\"host\":\"h\"",
               PT(100, 0) "," PT(101, 4) "," PT(102, 4) "," PT(103, 2)) ","
        SERIES("\"__name__\":\"smokeping_requests_total\",\"host\":\"g\"",
               PT(100, 0) "," PT(101, 3)) ","
        SERIES("\"__name__\":\"smokeping_requests_total\",\"host\":\"b\"",
               PT(100, 0) "," PT(101, 2) "," PT(102, 4) "," PT(103, 6)) ","
        SERIES("\"__name__\":\"x_bucket\",\"host\":\"b\",\"le\":\"0.001\"",
               PT(102, 1) "," PT(103, 1)) ","
        SERIES("\"__name__\":\"x_bucket\",\"host\":\"b\",\"le\":\"+Inf\"",
               PT(102, 1) "," PT(103, 2)) ","
        SERIES("\"__name__\":\"x_sum\",\"host\":\"b\"", PT(102, 0.0005) "," PT(103, 0.0015)) ","
        BUCKET("x", "abc", 0, 1, 1, 1) "," BUCKET("x", "+Inf", 0, 1, 1, 1) ","
        BUCKET("w", "", 0, 1, 1, 1) "," BUCKET("w", "+Inf", 0, 1, 1, 1) ","
        BUCKET("y", "0.001", 0, 2, 2, 2) "," BUCKET("y", "+Inf", 0, 1, 2, 2) ","
        SERIES("\"__name__\":\"smokeping_requests_total\",\"host\":\"z\"",
               PT(100, 0) "," PT(101, 200000))
        "]}}";
    struct gt_collect_opts o = {0};
    o.src = "me";
    o.histogram = true;
    assert_int_equal(collect_text("prometheus", TEXT(text), &o, &c, &err), GT_OK);
    assert_int_equal(c.emitted, 6 + 3 + 6 + 1);
    const struct { int64_t ts, seq; double rtt; } born[] = {
        {101, 0, NAN}, {101, 1, NAN}, {102, 0, 0.5}, {102, 1, NAN}, {103, 0, 1}, {103, 1, NAN}};
    for (int i = 0; i < 6; i++)   /* b, sorted first */
        assert_true(!strcmp(c.s[i].dst, "b") && c.s[i].ts == born[i].ts &&
                    c.s[i].seq == born[i].seq &&
                    (isnan(born[i].rtt) ? isnan(c.s[i].rtt)
                                        : fabs(c.s[i].rtt - born[i].rtt) < 1e-12));
    for (int i = 6; i < 9; i++)   /* g: never answered */
        assert_true(!strcmp(c.s[i].dst, "g") && c.s[i].ts == 101 && c.s[i].seq == i - 6 &&
                    isnan(c.s[i].rtt));
    const struct { int64_t ts, seq; double rtt; } want[] = {
        {101, 0, 5.0 / 6}, {101, 1, 1 + 5.0 / 6}, {101, 2, 1 + 5.0 / 6},
        {102, 0, 3}, {103, 0, 1.5}, {103, 1, NAN}};
    for (int i = 0; i < 6; i++) {
        assert_string_equal(c.s[9 + i].src, "me");
        assert_string_equal(c.s[9 + i].dst, "h");
        assert_int_equal(c.s[9 + i].ts, want[i].ts);
        assert_int_equal(c.s[9 + i].seq, want[i].seq);
        if (isnan(want[i].rtt))
            assert_true(isnan(c.s[9 + i].rtt));
        else
            assert_true(fabs(c.s[9 + i].rtt - want[i].rtt) < 1e-12);
    }
    assert_true(!strcmp(c.s[15].dst, "y") && c.s[15].ts == 102 && c.s[15].rtt == 1);
    assert_int_equal(c.rejected, 4);
    assert_non_null(strstr(c.reject_loc[0], "host=w"));
    assert_non_null(strstr(c.reject_msg[0], "le is not a bound"));
    assert_non_null(strstr(c.reject_loc[1], "host=x"));
    assert_non_null(strstr(c.reject_msg[1], "le is not a bound"));
    assert_non_null(strstr(c.reject_loc[2], "host=y"));
    assert_non_null(strstr(c.reject_msg[2], "at 101: bucket counts"));
    assert_non_null(strstr(c.reject_loc[3], "host=z"));
    assert_non_null(strstr(c.reject_msg[3], "at 101: more than 100000 pings"));
}

/* The in-flight rule of lost pings, case by case (promhist.h). */
static void test_promhist_lost(void **state)
{
    (void)state;
    assert_int_equal(gt_promhist_lost(1, 0, true), 1);    /* lost, nothing in flight */
    assert_int_equal(gt_promhist_lost(1, -1, true), 0);   /* in flight, answered next */
    assert_int_equal(gt_promhist_lost(2, -1, true), 1);   /* one of each */
    assert_int_equal(gt_promhist_lost(-1, 1, true), 0);   /* answers of the step before */
    assert_int_equal(gt_promhist_lost(1, -1, false), 1);  /* no next step: counted */
    assert_int_equal(gt_promhist_lost(0, 0, false), 0);
}

/* A format that fetches 1,000 samples (ts 1,700,000,000 + i, an archive's
 * time after 2000-01-01; rtt = (1000 + i) / 10). */
static int fetch_thousand(const char *url, const struct gt_collect_opts *o,
                          const struct gt_http_opts *h, const struct gt_sink *sink,
                          struct gt_error *err)
{
    (void)url, (void)o, (void)h, (void)err;
    struct gt_sample s = {"a", 1, "b", 1, 0, 0, 0, NULL, 0};
    int rc = GT_OK;
    for (int i = 0; rc == GT_OK && i < 1000; i++) {
        s.ts = 1700000000 + i;
        s.rtt_ms = (1000 + i) / 10.0;
        rc = sink->emit(sink->ctx, &s);
    }
    return rc;
}

struct parts_seen {
    char csv[65536];
    size_t len;
    int parts;
    size_t largest;
};

static int keep_part(void *ctx, const struct gt_push_batch *b)
{
    struct parts_seen *seen = ctx;
    const char *body = strchr(b->csv.data, '\n') + 1;   /* past the header */
    size_t n = strlen(body);
    assert_true(seen->len + n < sizeof seen->csv);
    memcpy(seen->csv + seen->len, body, n + 1);
    seen->len += n;
    seen->parts++;
    if (b->csv.len > seen->largest)
        seen->largest = b->csv.len;
    return GT_OK;
}

/* --push of a fetched range larger than a request: parts of at most
 * max_bytes, each sample in exactly one, in order; the cursor's max. */
static void test_push_fetch_in_parts(void **state)
{
    (void)state;
    const struct gt_collector fake = {"fake", "", NULL, NULL, false, fetch_thousand};
    struct gt_collect_opts o = {0};
    struct gt_http_opts h = {0};
    struct gt_push_batch b;
    struct gt_error err = {0};
    static struct parts_seen seen;
    assert_int_equal(gt_push_fetch(&fake, "http://x", &o, &h, 10000, &b, NULL, keep_part, &seen,
                                   &err), GT_OK);
    keep_part(&seen, &b);   /* the last part, as the caller sends it */
    assert_true(seen.parts >= 3);
    assert_true(seen.largest <= 10000);
    char want[65536];
    size_t len = 0;
    for (int i = 0; i < 1000; i++)
        len += (size_t)snprintf(want + len, sizeof want - len, "%d,a,b,%g,0\n", 1700000000 + i,
                                (1000 + i) / 10.0);
    assert_string_equal(seen.csv, want);
    assert_int_equal(b.all_samples, 1000);
    assert_int_equal(b.max_ts, 1700000999);
    gt_push_batch_free(&b);
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

/* Samples as gt_sample_csv_line writes them (a push's body, the spool)
 * read back by the csv format: names with commas and quotes come back
 * whole (issue 45: a push lost them; a line break is refused as a
 * control character before any sample holds it). */
static void test_sample_line_round_trip(void **state)
{
    (void)state;
    const char *names[] = {"plain", "a,b", "say \"hi\"", "\"", "https://h:9/x?a=1,2"};
    size_t nn = sizeof names / sizeof *names;
    struct gt_buf b = {NULL, 0, 0, 1 << 20};
    assert_int_equal(gt_buf_printf(&b, "ts,src,dst,rtt_ms,seq\n"), GT_OK);
    for (size_t i = 0; i < nn; i++) {
        struct gt_sample s = {0};
        s.ts = 1700000000 + 60 * (int64_t)i;
        s.src = names[i], s.src_len = strlen(names[i]);
        s.dst = names[(i + 1) % nn], s.dst_len = strlen(names[(i + 1) % nn]);
        s.rtt_ms = i == 2 ? NAN : 10.5 + (double)i;
        assert_int_equal(gt_sample_csv_line(&b, &s), GT_OK);
    }
    static struct capture c;
    struct gt_error err = {0};
    struct gt_collect_opts o = {0};
    assert_int_equal(collect_text("csv", b.data, b.len, &o, &c, &err), GT_OK);
    assert_int_equal(c.emitted, (int)nn);
    assert_int_equal(c.rejected, 0);
    for (size_t i = 0; i < nn; i++) {
        assert_string_equal(c.s[i].src, names[i]);
        assert_string_equal(c.s[i].dst, names[(i + 1) % nn]);
        assert_true(i == 2 ? isnan(c.s[i].rtt) : c.s[i].rtt == 10.5 + (double)i);
    }
    free(b.data);
}

/* An archive's page (issue 45, point 12): a value jansson refuses costs
 * its record of the array named, marked for the reader; one outside that
 * array, or a page that is not JSON, refuses it with a place; a string
 * of the input never passes for the marker. */
static void test_json_page_bad_values(void)
{
    const char page[] = "{\"took\": 1, \"hits\": {\"total\": 3, \"hits\": [{\"a\": 1},\n"
                        " {\"a\": 99999999999999999999}, {\"a\": \"x\\u0000\"},\n"
                        " {\"a\": \"\xff\"}, \"plain\", [1e999], {\"a\": [2]}]}}";
    json_error_t jerr;
    json_t *root = gt_json_load_page(page, strlen(page), "hits.hits", &jerr);
    assert_non_null(root);
    const json_t *hits = json_object_get(json_object_get(root, "hits"), "hits");
    assert_int_equal(json_array_size(hits), 7);
    assert_null(gt_json_dropped(json_array_get(hits, 0)));
    assert_int_equal(json_integer_value(json_object_get(json_array_get(hits, 0), "a")), 1);
    const char *why = gt_json_dropped(json_array_get(hits, 1));
    assert_non_null(why);
    assert_non_null(strstr(why, "invalid JSON: too big integer"));
    assert_non_null(strstr(gt_json_dropped(json_array_get(hits, 2)), "\\u0000"));
    assert_non_null(strstr(gt_json_dropped(json_array_get(hits, 3)), "unable to decode byte"));
    assert_null(gt_json_dropped(json_array_get(hits, 4)));   /* a string of the input */
    assert_non_null(strstr(gt_json_dropped(json_array_get(hits, 5)), "real number overflow"));
    assert_true(json_is_array(json_object_get(json_array_get(hits, 6), "a")));
    json_decref(root);
    /* the same value outside the records: the page is refused, with where */
    const char envelope[] = "{\"took\": 99999999999999999999, \"hits\": {\"hits\": [{}]}}";
    assert_null(gt_json_load_page(envelope, strlen(envelope), "hits.hits", &jerr));
    assert_int_equal(jerr.line, 1);
    assert_non_null(strstr(jerr.text, "too big integer"));
    /* the root as the records; not JSON at all: refused */
    root = gt_json_load_page("[1, 99999999999999999999, 3]", 28, "", &jerr);
    assert_non_null(root);
    assert_non_null(gt_json_dropped(json_array_get(root, 1)));
    assert_int_equal(json_integer_value(json_array_get(root, 2)), 3);
    json_decref(root);
    assert_null(gt_json_load_page("[1, {\"a\": 2", 12, "", &jerr));
    /* valid JSON as json_loadb gives it, whatever its shape */
    root = gt_json_load_page("{\"hits\": 1}", 11, "hits.hits", &jerr);
    assert_non_null(root);
    json_decref(root);
}

static void test_json_page(void **state)
{
    (void)state;
    test_json_page_bad_values();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_line_round_trip),
        cmocka_unit_test(test_amp_csv_good_and_bad_rows),
        cmocka_unit_test(test_amp_csv_refuses_wrong_files),
        cmocka_unit_test(test_site_name_limits),
        cmocka_unit_test(test_csv_loss_markers_and_seq),
        cmocka_unit_test(test_amp_json),
        cmocka_unit_test(test_esmond),
        cmocka_unit_test(test_matrix_single_file),
        cmocka_unit_test(test_matrix_refuses_binary),
        cmocka_unit_test(test_prometheus_histograms),
        cmocka_unit_test(test_promhist_lost),
        cmocka_unit_test(test_push_fetch_in_parts),
        cmocka_unit_test(test_json_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
