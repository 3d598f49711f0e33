/* test_route.c - the server's routing table (src/server/route.h) in
 * process, without a network: each route reaches its own endpoint, an
 * unknown path is 404 naming the paths there are, a known path with
 * another method is 405 with an Allow header of the methods it takes,
 * and what each path asks before its body is read (scope, body limit,
 * JSON body, a worker). */
#include "testutil.h"
#include "server/route.h"

#include <jansson.h>

#define LIST "/v1/health, /v1/estimate, /v1/rank, /v1/place, /v1/sites, /v1/pairs, " \
             "/v1/status, /v1/events, /v1/plot/matrix, /v1/plot/ccdf, /v1/plot/series, " \
             "/v1/samples, /v1/openapi.json, /healthz, /readyz, /metrics, /metrics/pairs"

struct fixture {
    struct gt_config cfg;
    struct gt_server_opts o;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    gt_config_defaults(&f->cfg);
    f->o = (struct gt_server_opts){"/nonexistent/routes.db", &f->cfg, NULL, "127.0.0.1", 0, 1,
                                   1, (size_t)16 << 20, 10, NULL, NULL, NULL};
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

/* method path answered through the table: the status; the error text
 * into msg (or ""), the Allow header into allow. */
static unsigned ask(struct fixture *f, const char *method, const char *path, char *msg,
                    size_t size, char *allow)
{
    struct gt_req r = {.o = &f->o, .method = method, .path = path, .body = "", .fd = -1,
                       .deadline_ms = gt_monotonic_ms() + 10e3};
    struct gt_answer a = gt_route_answer(&r);
    const json_t *e = json_object_get(a.doc, "error");
    snprintf(msg, size, "%s", json_is_string(e) ? json_string_value(e) : "");
    if (a.doc && json_object_get(a.doc, "error"))
        assert_true(json_is_null(json_object_get(a.doc, "field")));
    strcpy(allow, a.allow);
    json_decref(a.doc);
    free(a.text);
    return a.status;
}

static void test_unknown_path_is_404(void **state)
{
    struct fixture *f = *state;
    char msg[1024], allow[40];
    const char *unknown[] = {"/nope", "/v2/estimate", "/v1/health/", "/V1/HEALTH", "/v1/",
                             "/v1/plot/other", "/metrics/", "//v1/health", ""};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        for (int m = 0; m < 3; m++) {
            const char *method = (const char *[]){"GET", "POST", "DELETE"}[m];
            assert_int_equal(ask(f, method, unknown[i], msg, sizeof msg, allow), 404);
            char want[1024];
            snprintf(want, sizeof want, "no endpoint %s (see " LIST "; the dashboard is at /)",
                     unknown[i]);
            assert_string_equal(msg, want);
            assert_string_equal(allow, "");
            assert_null(gt_route_find(method, unknown[i]));
            assert_false(gt_route_allow(unknown[i], allow, sizeof allow));
        }
    }
}

static void test_wrong_method_is_405_with_allow(void **state)
{
    struct fixture *f = *state;
    static const struct {
        const char *method, *path, *msg, *allow;
    } cases[] = {
        {"GET", "/v1/estimate", "/v1/estimate: use POST with a JSON body", "POST"},
        {"HEAD", "/v1/rank", "/v1/rank: use POST with a JSON body", "POST"},
        {"PUT", "/v1/place", "/v1/place: use POST with a JSON body", "POST"},
        {"GET", "/v1/samples", "/v1/samples: use POST with text/csv or a JSON array", "POST"},
        {"POST", "/v1/health", "/v1/health: use GET", "GET, HEAD"},
        {"DELETE", "/v1/sites", "/v1/sites: use GET", "GET, HEAD"},
        {"POST", "/v1/pairs", "/v1/pairs: use GET", "GET, HEAD"},
        {"OPTIONS", "/v1/status", "/v1/status: use GET", "GET, HEAD"},
        {"POST", "/v1/events", "/v1/events: use GET", "GET, HEAD"},
        {"POST", "/v1/plot/ccdf", "/v1/plot/ccdf: use GET", "GET, HEAD"},
        {"POST", "/healthz", "/healthz: use GET", "GET, HEAD"},
        {"PATCH", "/readyz", "/readyz: use GET", "GET, HEAD"},
        {"POST", "/metrics", "/metrics: use GET", "GET, HEAD"},
        {"POST", "/metrics/pairs", "/metrics/pairs: use GET", "GET, HEAD"},
        {"POST", "/", "/: use GET", "GET, HEAD"},
        {"PUT", "/dashboard.js", "/dashboard.js: use GET", "GET, HEAD"},
        {"POST", "/v1/openapi.json", "/v1/openapi.json: use GET", "GET, HEAD"},
        {"get", "/v1/health", "/v1/health: use GET", "GET, HEAD"},   /* methods are exact */
    };
    char msg[1024], allow[40];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(ask(f, cases[i].method, cases[i].path, msg, sizeof msg, allow), 405);
        assert_string_equal(msg, cases[i].msg);
        assert_string_equal(allow, cases[i].allow);
        assert_null(gt_route_find(cases[i].method, cases[i].path));
    }
}

/* The answers that need no store: the probe, the compiled-in files, and
 * /metrics without a server; HEAD is answered as GET. */
static void test_routes_reach_their_endpoints(void **state)
{
    struct fixture *f = *state;
    char msg[1024], allow[40];
    assert_int_equal(ask(f, "GET", "/healthz", msg, sizeof msg, allow), 200);
    assert_int_equal(ask(f, "HEAD", "/healthz", msg, sizeof msg, allow), 200);
    assert_int_equal(ask(f, "GET", "/", msg, sizeof msg, allow), 200);
    assert_int_equal(ask(f, "HEAD", "/v1/openapi.json", msg, sizeof msg, allow), 200);
    assert_int_equal(ask(f, "GET", "/metrics", msg, sizeof msg, allow), 404);
    assert_string_equal(msg, "/metrics: only a running server keeps them");
    /* the store is not there: each reader says so, none is 404 or 405 */
    assert_int_equal(ask(f, "GET", "/v1/health", msg, sizeof msg, allow), 503);
    assert_int_equal(ask(f, "GET", "/v1/sites", msg, sizeof msg, allow), 503);
    struct gt_req r = {.o = &f->o, .method = "GET", .path = "/", .body = "", .fd = -1};
    struct gt_answer a = gt_route_answer(&r);
    assert_true(a.page);
    assert_non_null(a.text);
    assert_string_equal(a.type, "text/html; charset=utf-8");
    free(a.text);
}

/* What the table says of each path before the body is read. */
static void test_what_paths_ask(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(gt_route_scope("/healthz"), GT_SCOPE_NONE);
    assert_int_equal(gt_route_scope("/readyz"), GT_SCOPE_NONE);
    assert_int_equal(gt_route_scope("/"), GT_SCOPE_NONE);
    assert_int_equal(gt_route_scope("/dashboard.js"), GT_SCOPE_NONE);
    assert_int_equal(gt_route_scope("/v1/openapi.json"), GT_SCOPE_NONE);
    assert_int_equal(gt_route_scope("/v1/samples"), GT_SCOPE_WRITE);
    assert_int_equal(gt_route_scope("/v1/estimate"), GT_SCOPE_READ);
    assert_int_equal(gt_route_scope("/metrics"), GT_SCOPE_READ);
    assert_int_equal(gt_route_scope("/nope"), GT_SCOPE_READ);   /* a 404 is for the authorized */
    size_t kb = (size_t)f->cfg.server_max_request_kb << 10,
           advisor = kb < f->o.max_body ? kb : f->o.max_body;
    assert_int_equal(gt_route_body_limit(&f->o, "/v1/samples"), f->o.max_body);
    assert_int_equal(gt_route_body_limit(&f->o, "/v1/estimate"), advisor);
    assert_int_equal(gt_route_body_limit(&f->o, "/nope"), advisor);
    assert_true(gt_route_bulk("/v1/samples"));
    assert_false(gt_route_bulk("/v1/estimate"));
    /* a JSON body only for the advisor's POSTs; the store on the workers */
    const char *json[] = {"/v1/estimate", "/v1/rank", "/v1/place"};
    for (size_t i = 0; i < 3; i++) {
        assert_true(gt_route_find("POST", json[i])->flags & GT_ROUTE_JSON);
        assert_true(gt_route_find("POST", json[i])->flags & GT_ROUTE_STORE);
    }
    assert_false(gt_route_find("POST", "/v1/samples")->flags & GT_ROUTE_JSON);
    assert_true(gt_route_find("POST", "/v1/samples")->flags & GT_ROUTE_BULK);
    assert_true(gt_route_find("HEAD", "/v1/pairs")->flags & GT_ROUTE_STORE);
    assert_false(gt_route_find("GET", "/v1/health")->flags & GT_ROUTE_STORE);
    assert_false(gt_route_find("GET", "/")->flags & GT_ROUTE_STORE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_path_is_404),
        cmocka_unit_test(test_wrong_method_is_405_with_allow),
        cmocka_unit_test(test_routes_reach_their_endpoints),
        cmocka_unit_test(test_what_paths_ask),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
