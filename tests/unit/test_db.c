/* test_db.c - the SQLite backend's own: migrating a version-1 file
 * forward, the version guard on a file, kept statements.  The store's
 * contract on every backend is test_store.c's. */
#include "testutil.h"
#include "db/sqlite/sqlite.h"   /* this backend's own statements and file */
#include "db/ingest.h"
#include "db/query.h"
#include "db/fitcache.h"

/* tests/data/schema-v1.sql, read whole (caller frees). */
static char *schema_v1_sql(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/schema-v1.sql",
             getenv("GT_ROOT") ? getenv("GT_ROOT") : ".");
    FILE *f = fopen(path, "rb");
    if (!f)
        fprintf(stderr, "%s: cannot open (run from the source tree or set GT_ROOT)\n", path);
    assert_non_null(f);
    char *sql = calloc(1, 65536);
    assert_non_null(sql);
    size_t n = fread(sql, 1, 65535, f);
    assert_true(n > 0 && feof(f));
    fclose(f);
    return sql;
}

struct exported {
    int n;
    char line[8][96];
};

static int export_row(void *ctx, int64_t ts, const char *src, const char *dst, int64_t seq,
                      double rtt_ms)
{
    struct exported *e = ctx;
    assert_true(e->n < 8);
    snprintf(e->line[e->n++], sizeof e->line[0], "%s %s %lld %lld %g", src, dst, (long long)ts,
             (long long)seq, rtt_ms);
    return 0;
}

/* A version-1 store as the version-1 gridtail wrote it: the schema SQL of
 * that release (tests/data/schema-v1.sql, from git history) run by sqlite3
 * alone, rows put in by hand.  Today's gridtail upgrades it to its latest
 * version and every row reads back as it went in. */
static void test_migrate_old_database_forward(void **state)
{
    (void)state;
    char *d = tmpdir_new(), path[256];
    snprintf(path, sizeof path, "%s/old.db", d);
    sqlite3 *h;
    char *sql = schema_v1_sql();
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    free(sql);
    assert_int_equal(sqlite3_exec(h, "INSERT INTO sites(name, cluster, domain, latitude, longitude) "
                                     "  VALUES ('a', 'c1', 'a.example', 46.25, 6.5), ('b', NULL, NULL, NULL, NULL);"
                                     "INSERT INTO pairs(src, dst) VALUES (1, 2), (2, 1);"
                                     "INSERT INTO samples VALUES (1, 100, 0, 5.0), (1, 160, 0, NULL),"
                                     "  (1, 160, 1, 5.5), (2, 100, 0, 7.25);",
                                  NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    struct gt_db *db;
    struct gt_error err = {0};
    int rc = gt_db_open(path, GT_DB_EXISTING, 1000, &db, &err);
    if (rc)
        fprintf(stderr, "upgrading a version-1 store: %s\n", err.msg);
    assert_int_equal(rc, GT_OK);
    int v;
    assert_int_equal(gt_db_version(db, &v, &err), GT_OK);
    assert_int_equal(v, gt_db_latest_version());
    assert_true(v >= 4);   /* db/schema.c had 0 -> 1 ... 3 -> 4 when this was written */
    /* every sample as it went in, a lost one included */
    struct exported e = {0};
    struct gt_export_filter all = {0};
    assert_int_equal(gt_query_export(db, &all, export_row, &e, &err), GT_OK);
    assert_int_equal(e.n, 4);
    assert_string_equal(e.line[0], "a b 100 0 5");
    assert_string_equal(e.line[1], "a b 160 0 nan");
    assert_string_equal(e.line[2], "a b 160 1 5.5");
    assert_string_equal(e.line[3], "b a 100 0 7.25");
    struct gt_site_row *sites;
    size_t ns;
    assert_int_equal(gt_query_sites(db, &sites, &ns, &err), GT_OK);
    assert_int_equal(ns, 2);
    assert_string_equal(sites[0].name, "a");
    assert_string_equal(sites[0].cluster, "c1");
    assert_string_equal(sites[0].domain, "a.example");
    assert_true(sites[0].has_coords && sites[0].latitude == 46.25 && sites[0].longitude == 6.5);
    assert_true(sites[1].cluster == NULL && !sites[1].has_coords);
    gt_sites_free(sites, ns);
    /* the later tables are there and empty, and the old keys still hold:
       a sample already stored is a duplicate, a new one is stored */
    assert_int_equal(sql_int(db, "SELECT count(*) FROM ingest_log"), 0);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM fit_cache"), 0);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM pragma_table_info('ingest_log') "
                                 "WHERE name = 'conflicts'"), 1);
    struct gt_store *st;
    struct gt_store_outcome out;
    int64_t sa, sb, pab;
    assert_int_equal(gt_store_open(db, &st, &err), GT_OK);
    assert_int_equal(gt_db_begin(db, &err), GT_OK);
    assert_int_equal(gt_store_site(st, "a", 1, &sa, &err), GT_OK);
    assert_int_equal(gt_store_site(st, "b", 1, &sb, &err), GT_OK);
    assert_int_equal(sa, 1);
    assert_int_equal(sb, 2);
    assert_int_equal(gt_store_pair(st, sa, sb, &pab, &err), GT_OK);
    assert_int_equal(pab, 1);
    assert_int_equal(gt_store_sample(st, pab, 100, 0, 5.0, false, &out, &err), GT_OK);
    assert_int_equal(out.what, GT_SAMPLE_DUPLICATE);
    assert_int_equal(gt_store_sample(st, pab, 220, 0, 6.0, false, &out, &err), GT_OK);
    assert_int_equal(out.what, GT_SAMPLE_STORED);
    assert_int_equal(gt_db_commit(db, &err), GT_OK);
    gt_store_free(st);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM samples"), 5);
    gt_db_close(db);
    tmpdir_free(d);
}

static void test_newer_database_refused(void **state)
{
    (void)state;
    char *d = tmpdir_new(), path[256];
    snprintf(path, sizeof path, "%s/new.db", d);
    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, "PRAGMA user_version = 1000", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    struct gt_db *db;
    struct gt_error err = {0};
    assert_int_equal(gt_db_open(path, GT_DB_EXISTING, 1000, &db, &err), GT_ESCHEMA);
    assert_null(db);
    assert_non_null(strstr(err.msg, "newer"));
    gt_error_clear(&err);
    char junk[4096];
    memset(junk, 'j', sizeof junk);
    write_file(path, junk, sizeof junk);
    assert_int_not_equal(gt_db_open(path, GT_DB_EXISTING, 1000, &db, &err), GT_OK);
    tmpdir_free(d);
}
static long count_sites(struct gt_db *db, sqlite3_stmt **used)
{
    sqlite3_stmt *st;
    struct gt_error err = {0};
    assert_int_equal(sq_borrow(db, "SELECT count(*) FROM sites", &st, &err), GT_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long n = sqlite3_column_int(st, 0);
    sq_giveback(db, st);
    if (used)
        *used = st;
    return n;
}

static int open_statements(struct gt_db *db)
{
    int n = 0;
    for (sqlite3_stmt *st = sqlite3_next_stmt(sq(db)->h, NULL); st; st = sqlite3_next_stmt(sq(db)->h, st))
        n++;
    return n;
}

/* Kept statements: the same one comes back for the same SQL, reset, so it
 * sees what another connection committed since and holds no snapshot;
 * one lent out is not lent twice; past the bound they are finalized. */
static void test_kept_statements(void **state)
{
    (void)state;
    char *d = tmpdir_new(), path[256];
    snprintf(path, sizeof path, "%s/k.db", d);
    struct gt_db *db, *other;
    struct gt_error err = {0};
    assert_int_equal(gt_db_open(path, GT_DB_CREATE, 1000, &db, &err), GT_OK);
    assert_int_equal(gt_db_open(path, GT_DB_EXISTING, 1000, &other, &err), GT_OK);

    sqlite3_stmt *first, *again;
    assert_int_equal(count_sites(db, &first), 0);
    assert_int_equal(gt_db_exec(other, "INSERT INTO sites(name) VALUES ('a')", &err), GT_OK);
    assert_int_equal(count_sites(db, &again), 1);       /* a fresh read, ... */
    assert_ptr_equal(again, first);                      /* ... not a fresh prepare */

    /* lent out: a second borrower gets its own statement */
    sqlite3_stmt *a, *b;
    assert_int_equal(sq_borrow(db, "SELECT name FROM sites", &a, &err), GT_OK);
    assert_int_equal(sqlite3_step(a), SQLITE_ROW);       /* mid-result */
    assert_int_equal(sq_borrow(db, "SELECT name FROM sites", &b, &err), GT_OK);
    assert_ptr_not_equal(a, b);
    sq_giveback(db, b);
    sq_giveback(db, a);
    assert_false(sqlite3_stmt_busy(a));                  /* no read snapshot kept */

    /* a read transaction is one snapshot until it ends */
    assert_int_equal(gt_db_begin_read(db, &err), GT_OK);
    assert_int_equal(count_sites(db, NULL), 1);
    assert_int_equal(gt_db_exec(other, "INSERT INTO sites(name) VALUES ('b')", &err), GT_OK);
    assert_int_equal(count_sites(db, NULL), 1);
    gt_db_rollback(db);
    assert_true(sqlite3_get_autocommit(sq(db)->h));
    assert_int_equal(count_sites(db, NULL), 2);

    /* bounded: statements past GT_DB_KEPT_MAX are finalized when given back */
    sqlite3_stmt *many[GT_DB_KEPT_MAX + 4];
    char sql[GT_DB_KEPT_MAX + 4][32];
    for (int i = 0; i < GT_DB_KEPT_MAX + 4; i++) {
        snprintf(sql[i], sizeof sql[i], "SELECT %d", i);
        assert_int_equal(sq_borrow(db, sql[i], &many[i], &err), GT_OK);
    }
    for (int i = 0; i < GT_DB_KEPT_MAX + 4; i++)
        sq_giveback(db, many[i]);
    assert_int_equal(sq(db)->nkept, GT_DB_KEPT_MAX);
    assert_int_equal(open_statements(db), GT_DB_KEPT_MAX);
    assert_int_equal(err.code, GT_OK);
    gt_db_close(other);
    gt_db_close(db);
    tmpdir_free(d);
}

/* A deadline ends every wait for another writer's lock (issue 45, point
 * 13: a push waited once per statement, 4.1 s against push_wait_ms 2 s):
 * with a busy timeout of ten minutes, a begin under a held lock fails
 * busy once the deadline is past, and so does the next one, at once;
 * without a deadline the lock is taken when it is free. */
static void test_lock_deadline(void **state)
{
    (void)state;
    char *d = tmpdir_new(), path[256];
    snprintf(path, sizeof path, "%s/w.db", d);
    struct gt_db *db, *other;
    struct gt_error err = {0};
    assert_int_equal(gt_db_open(path, GT_DB_CREATE, 600000, &db, &err), GT_OK);
    assert_int_equal(gt_db_open(path, GT_DB_EXISTING, 1000, &other, &err), GT_OK);
    assert_int_equal(gt_db_begin(other, &err), GT_OK);   /* the other writer's lock */
    gt_db_set_deadline(db, gt_monotonic_ns() + 50 * 1000000LL);
    assert_int_equal(gt_db_begin(db, &err), GT_EDB);
    assert_non_null(strstr(err.msg, "locked by another writer"));
    gt_error_clear(&err);
    assert_int_equal(gt_db_begin(db, &err), GT_EDB);     /* past it: no wait at all */
    gt_error_clear(&err);
    assert_int_equal(gt_db_try_begin_within(db, 600000), GT_EDB);
    assert_int_equal(gt_db_exec(other, "INSERT INTO sites(name) VALUES ('a')", &err), GT_OK);
    assert_int_equal(gt_db_commit(other, &err), GT_OK);
    gt_db_set_deadline(db, 0);
    assert_int_equal(gt_db_begin(db, &err), GT_OK);
    assert_int_equal(gt_db_commit(db, &err), GT_OK);
    gt_db_close(other);
    gt_db_close(db);
    tmpdir_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_migrate_old_database_forward),
        cmocka_unit_test(test_newer_database_refused),
        cmocka_unit_test(test_kept_statements),
        cmocka_unit_test(test_lock_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
