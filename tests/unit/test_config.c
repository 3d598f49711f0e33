/* test_config.c - INI loading: values, defaults, errors with file:line. */
#include "testutil.h"
#include "base/config.h"

static void load_text(const char *text, struct gt_config *cfg, int *rc,
                      struct gt_error *err)
{
    char *d = tmpdir_new(), path[256];
    snprintf(path, sizeof path, "%s/g.conf", d);
    write_file(path, text, strlen(text));
    gt_config_defaults(cfg);
    memset(err, 0, sizeof *err);
    *rc = gt_config_load(cfg, path, err);
    tmpdir_free(d);
}

static void test_defaults_and_values(void **state)
{
    (void)state;
    struct gt_config cfg;
    struct gt_error err;
    int rc;
    load_text("# comment\n[database]\npath = /var/lib/gridtail/g.db\n\n"
              "[retention]\n  keep_days=30  \n; other comment\n[http]\nretries = 0\n",
              &cfg, &rc, &err);
    assert_int_equal(rc, GT_OK);
    assert_string_equal(cfg.db_path, "/var/lib/gridtail/g.db");
    assert_int_equal(cfg.keep_days, 30);
    assert_int_equal(cfg.http_retries, 0);
    assert_int_equal(cfg.http_timeout_s, 120);   /* default kept */
    assert_int_equal(cfg.max_errors, 50);
}

static void test_errors_name_line(void **state)
{
    (void)state;
    struct gt_config cfg;
    struct gt_error err;
    int rc;
    load_text("[database]\npath = x\nbogus = 1\n", &cfg, &rc, &err);
    assert_int_equal(rc, GT_EINPUT);
    assert_non_null(strstr(err.where, "g.conf:3"));
    assert_non_null(strstr(err.msg, "unknown key 'bogus'"));
    load_text("[http]\nretries = 99\n", &cfg, &rc, &err);
    assert_int_equal(rc, GT_EINPUT);
    assert_non_null(strstr(err.where, ":2"));
    assert_non_null(strstr(err.msg, "[0, 20]"));
    load_text("keep_days = 1\n", &cfg, &rc, &err);
    assert_int_equal(rc, GT_EINPUT);
    load_text("[nosuch]\n", &cfg, &rc, &err);
    assert_int_equal(rc, GT_EINPUT);
    load_text("[http\n", &cfg, &rc, &err);
    assert_int_equal(rc, GT_EINPUT);
    load_text("[http]\njunk line\n", &cfg, &rc, &err);
    assert_int_equal(rc, GT_EINPUT);
    assert_int_equal(gt_config_load(&cfg, "/nonexistent/x.conf", &err), GT_EIO);
}

static void test_shipped_config_loads(void **state)
{
    (void)state;
    struct gt_config cfg;
    struct gt_error err = {0};
    gt_config_defaults(&cfg);
    assert_int_equal(gt_config_load(&cfg, "etc/gridtail.conf", &err), GT_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_values),
        cmocka_unit_test(test_errors_name_line),
        cmocka_unit_test(test_shipped_config_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
