/* test_http.c - HTTP ingest against a loopback libmicrohttpd server that
 * serves canned replies: amp-json with a cursor, retries after 503, no
 * retry after 404, esmond with archive metadata, size cap. */
#include "testutil.h"
#include "db/ingest.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>

static int flaky_left;
static unsigned port_of_server;   /* for the Location of a redirect */
static char last_start[64];
static int requests;

static const char amp_body[] =
    "[{\"metadata\": {\"source\": \"%s\", \"destination\": \"%s\"},"
    "  \"data\": [{\"timestamp\": 1795305600, \"rtts\": [1000, 2000, null]},"
    "            {\"timestamp\": 1795305660, \"rtts\": [1500]}]}]";
static const char esmond_meta[] =
    "{\"source\": \"10.0.0.1\", \"destination\": \"10.0.0.2\","
    " \"input-source\": \"ps1.example.org\", \"input-destination\": \"ps2.example.org\"}";
static const char esmond_data[] = "[{\"ts\": 1795305600, \"val\": {\"5.5\": 3}}]";

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body,
                                                             MHD_RESPMEM_MUST_COPY);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version,
                               const char *upload, size_t *upload_size, void **con_cls)
{
    (void)cls, (void)method, (void)version, (void)upload, (void)upload_size, (void)con_cls;
    requests++;
    char body[2048];
    if (!strncmp(url, "/amp/", 5)) {
        const char *start = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "start");
        snprintf(last_start, sizeof last_start, "%s", start ? start : "");
        char src[64] = "", dst[64] = "";
        sscanf(url, "/amp/%63[^/]/%63s", src, dst);
        snprintf(body, sizeof body, amp_body, src, dst);
        return reply(c, 200, body);
    }
    if (!strcmp(url, "/flaky"))
        return flaky_left-- > 0 ? reply(c, 503, "busy")
                                : reply(c, 200, "ts,src,dst,rtt_ms\n1795305600,f1,f2,3\n");
    if (!strcmp(url, "/esmond/perfsonar/archive/abc123/"))
        return reply(c, 200, esmond_meta);
    if (!strcmp(url, "/esmond/perfsonar/archive/abc123/histogram-rtt/base"))
        return reply(c, 200, esmond_data);
    /* redirects: to the same host (followed), to another name of it,
       "localhost" (not followed), for ever (not followed past 5) */
    if (!strncmp(url, "/redir-", 7)) {
        char to[160];
        if (!strcmp(url, "/redir-same"))
            snprintf(to, sizeof to, "http://127.0.0.1:%u/flaky", port_of_server);
        else if (!strcmp(url, "/redir-other"))
            snprintf(to, sizeof to, "http://localhost:%u/flaky", port_of_server);
        else if (!strcmp(url, "/redir-relative"))
            snprintf(to, sizeof to, "/flaky");
        else
            snprintf(to, sizeof to, "/redir-loop");
        struct MHD_Response *r = MHD_create_response_from_buffer(0, (void *)"",
                                                                 MHD_RESPMEM_PERSISTENT);
        MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, to);
        enum MHD_Result ret = MHD_queue_response(c, 302, r);
        MHD_destroy_response(r);
        return ret;
    }
    if (!strcmp(url, "/big")) {
        static char big[300000];
        memset(big, 'x', sizeof big - 1);
        return reply(c, 200, big);
    }
    return reply(c, 404, "not found");
}

struct fixture {
    struct MHD_Daemon *d;
    unsigned port;
    char *dir;
    struct gt_db *db;
    struct gt_store *store;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    f->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handler, NULL,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
    assert_non_null(f->d);
    f->port = MHD_get_daemon_info(f->d, MHD_DAEMON_INFO_BIND_PORT)->port;
    port_of_server = f->port;
    f->dir = tmpdir_new();
    char path[256];
    snprintf(path, sizeof path, "%s/h.db", f->dir);
    struct gt_error err = {0};
    assert_int_equal(gt_db_open(path, GT_DB_CREATE, 1000, &f->db, &err), GT_OK);
    assert_int_equal(gt_store_open(f->db, &f->store, &err), GT_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    gt_store_free(f->store);
    gt_db_close(f->db);
    MHD_stop_daemon(f->d);
    tmpdir_free(f->dir);
    free(f);
    return 0;
}

static struct gt_ingest_opts opts(const char *format)
{
    struct gt_ingest_opts o = {0};
    o.format = gt_collector_find(format);
    o.http = (struct gt_http_opts){5, 2, 3, 10, 100000, NULL, 0};
    o.collect.max_input_bytes = 1 << 20;
    o.now = 1795400000;
    o.lookback_s = 86400;
    return o;
}

static void test_amp_json_cursor(void **state)
{
    struct fixture *f = *state;
    char url[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/amp/{src}/{dst}?start={start}&end={end}",
             f->port);
    struct gt_ingest_opts o = opts("amp-json");
    o.collect.src = "site a";
    o.collect.dst = "b/c";
    struct gt_ingest_result res;
    assert_int_equal(gt_ingest_input(f->db, f->store, url, &o, &res), GT_OK);
    assert_string_equal(last_start, "1795313600");   /* no cursor yet: now - 1 day */
    assert_int_equal(res.stored, 4);
    assert_int_equal(res.lost, 1);
    assert_non_null(strstr(res.fetched, "/amp/site%20a/b%2Fc?start=1795313600&end=1795400000"));
    assert_int_equal(sql_int(f->db, "SELECT count(*) FROM sites WHERE name = 'b/c'"), 1);
    /* second run: {start} = stored cursor + 1; same rows are duplicates */
    assert_int_equal(gt_ingest_input(f->db, f->store, url, &o, &res), GT_OK);
    assert_string_equal(last_start, "1795305661");
    assert_int_equal(res.stored, 0);
    assert_int_equal(res.duplicates, 4);
    assert_int_equal(sql_int(f->db, "SELECT cursor_ts FROM sources"), 1795305660);
}

static void test_retry_then_success(void **state)
{
    struct fixture *f = *state;
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/flaky", f->port);
    struct gt_ingest_opts o = opts("csv");
    struct gt_ingest_result res;
    flaky_left = 2;
    assert_int_equal(gt_ingest_input(f->db, f->store, url, &o, &res), GT_OK);
    assert_int_equal(res.attempts, 3);
    assert_int_equal(res.stored, 1);
    flaky_left = 10;   /* more failures than retries */
    assert_int_equal(gt_ingest_input(f->db, f->store, url, &o, &res), GT_EIO);
    assert_int_equal(res.attempts, 4);
    assert_non_null(strstr(res.err.msg, "503"));
}

static void test_404_is_not_retried(void **state)
{
    struct fixture *f = *state;
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/nothing-here", f->port);
    struct gt_ingest_opts o = opts("csv");
    struct gt_ingest_result res;
    assert_int_equal(gt_ingest_input(f->db, f->store, url, &o, &res), GT_EIO);
    assert_int_equal(res.attempts, 1);
    assert_non_null(strstr(res.err.msg, "404"));
    assert_string_equal(res.status, "failed");
}

static void test_esmond_metadata(void **state)
{
    struct fixture *f = *state;
    char url[160];
    snprintf(url, sizeof url,
             "http://127.0.0.1:%u/esmond/perfsonar/archive/abc123/histogram-rtt/base", f->port);
    struct gt_ingest_opts o = opts("esmond");
    struct gt_ingest_result res;
    assert_int_equal(gt_ingest_input(f->db, f->store, url, &o, &res), GT_OK);
    assert_int_equal(res.stored, 3);
    assert_int_equal(sql_int(f->db, "SELECT count(*) FROM pairs p JOIN sites a ON a.id = p.src"
                                    " WHERE a.name = 'ps1.example.org'"), 1);
}

static void test_size_cap_and_refused_connection(void **state)
{
    struct fixture *f = *state;
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/big", f->port);
    struct gt_ingest_opts o = opts("csv");
    struct gt_ingest_result res;
    assert_int_not_equal(gt_ingest_input(f->db, f->store, url, &o, &res), GT_OK);
    assert_non_null(strstr(res.err.msg, "larger than"));
    o.http.retries = 1;
    assert_int_equal(gt_ingest_input(f->db, f->store, "http://127.0.0.1:1/x", &o, &res), GT_EIO);
    assert_int_equal(res.attempts, 2);
    assert_int_equal(gt_ingest_input(f->db, f->store, "http://127.0.0.1:1/{src}", &o, &res),
                     GT_EUSAGE);
}

/* A GET follows redirects on the same host only (issue 45, point 13: an
 * archive's redirect to any other host was followed): to 127.0.0.1 again,
 * absolute or relative, it is stored; to "localhost" (another host name,
 * though the same server) it is refused, naming where; a loop ends after
 * 5 redirects. */
static void test_redirects_same_host_only(void **state)
{
    struct fixture *f = *state;
    char url[128];
    struct gt_ingest_opts o = opts("csv");
    struct gt_ingest_result res;
    flaky_left = 0;
    snprintf(url, sizeof url, "http://127.0.0.1:%u/redir-same", f->port);
    assert_int_equal(gt_ingest_input(f->db, f->store, url, &o, &res), GT_OK);
    assert_int_equal(res.attempts, 1);
    assert_int_equal(res.read, 1);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/redir-relative", f->port);
    assert_int_equal(gt_ingest_input(f->db, f->store, url, &o, &res), GT_OK);
    assert_int_equal(res.read, 1);
    snprintf(url, sizeof url, "http://127.0.0.1:%u/redir-other", f->port);
    requests = 0;
    assert_int_equal(gt_ingest_input(f->db, f->store, url, &o, &res), GT_EIO);
    assert_int_equal(requests, 1);   /* the other host was never asked */
    assert_non_null(strstr(res.err.msg, "redirected to http://localhost:"));
    assert_non_null(strstr(res.err.msg, "not followed (another host)"));
    snprintf(url, sizeof url, "http://127.0.0.1:%u/redir-loop", f->port);
    requests = 0;
    assert_int_equal(gt_ingest_input(f->db, f->store, url, &o, &res), GT_EIO);
    assert_int_equal(requests, 6);
    assert_non_null(strstr(res.err.msg, "more than 5 redirects"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_amp_json_cursor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_redirects_same_host_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retry_then_success, setup, teardown),
        cmocka_unit_test_setup_teardown(test_404_is_not_retried, setup, teardown),
        cmocka_unit_test_setup_teardown(test_esmond_metadata, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_cap_and_refused_connection, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
