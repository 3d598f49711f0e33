/* test_store.c - the store interface's contract (db/backend.h), the same
 * tests on every backend: SQLite on a temporary file, and PostgreSQL on a
 * fresh database of the run's server (tests/pg/server.sh; GT_PG_URL), or
 * skipped, saying why, when there is none.  Expected values are worked
 * by hand from the inputs. */
#include "testutil.h"
#include "db/ingest.h"
#include "db/query.h"
#include "db/fitcache.h"
#include "db/store.h"

#include <libpq-fe.h>
#include <pthread.h>

/* The backend the group runs on, and a fresh store for each test. */
static const char *backend;   /* "sqlite" or "postgresql" */
static char *tmp;             /* this test's folder (both backends) */
static char addr[512];

/* The run's server with another database name: fresh_pg_db's. */
static int fresh_pg_db(char *out, size_t size)
{
    static int serial;
    const char *url = getenv("GT_PG_URL");
    const char *slash = url ? strrchr(url, '/') : NULL;
    if (!slash || slash - url < 12)
        return -1;
    char name[64];
    snprintf(name, sizeof name, "gt_unit_%ld_%d", (long)getpid(), ++serial);
    PGconn *c = PQconnectdb(url);
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    PGresult *res = PQexec(c, sql);
    int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    if (!ok)
        fprintf(stderr, "%s: %s", sql, PQerrorMessage(c));
    PQclear(res);
    PQfinish(c);
    snprintf(out, size, "%.*s/%s", (int)(slash - url), url, name);
    return ok ? 0 : -1;
}

static int setup(void **state)
{
    backend = *state;
    tmp = tmpdir_new();
    if (!strcmp(backend, "sqlite")) {
        snprintf(addr, sizeof addr, "%s/s.db", tmp);
        return 0;
    }
    addr[0] = '\0';
    if (getenv("GT_PG_URL"))
        assert_int_equal(fresh_pg_db(addr, sizeof addr), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tmpdir_free(tmp);
    return 0;
}

/* A skip that says why, when this backend has no server here. */
#define NEED_STORE()                                                                  \
    do {                                                                              \
        if (!addr[0]) {                                                               \
            fprintf(stderr, "skipped: no PostgreSQL server for the tests (%s)\n",     \
                    getenv("GT_PG_SKIP") ? getenv("GT_PG_SKIP") : "GT_PG_URL unset");  \
            skip();                                                                   \
        }                                                                             \
    } while (0)

static struct gt_db *open_store(void)
{
    struct gt_db *db;
    struct gt_error err = {0};
    int rc = gt_db_open(addr, GT_DB_CREATE, 5000, &db, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", addr, err.msg);
    assert_int_equal(rc, GT_OK);
    return db;
}

static void ingest_text(struct gt_db *db, const char *text, struct gt_ingest_result *res,
                        struct gt_ingest_opts *o)
{
    char csv[600];
    snprintf(csv, sizeof csv, "%s/in.csv", tmp);
    write_file(csv, text, strlen(text));
    struct gt_store *st;
    struct gt_error err = {0};
    assert_int_equal(gt_store_open(db, &st, &err), GT_OK);
    struct gt_ingest_opts plain = {0};
    if (!o)
        o = &plain;
    o->format = gt_collector_find("csv");
    struct gt_ingest_result mine;
    int rc = gt_ingest_input(db, st, csv, o, res ? res : &mine);
    if (rc)
        fprintf(stderr, "ingest: %s\n", (res ? res : &mine)->err.msg);
    gt_store_free(st);
}

static int64_t site_id(struct gt_db *db, const char *name)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT id FROM sites WHERE name = '%s'", name);
    return sql_int(db, sql);
}

/* Ids found again, created once; duplicates, conflicts, lost vs lost,
 * replace; a rolled-back id is not remembered. */
static void test_ids_and_duplicates(void **state)
{
    (void)state;
    NEED_STORE();
    struct gt_db *db = open_store();
    struct gt_store *st;
    struct gt_error err = {0};
    assert_int_equal(gt_store_open(db, &st, &err), GT_OK);
    assert_int_equal(gt_db_begin(db, &err), GT_OK);
    for (int i = 0; i < 300; i++) {
        char a[32], b[32];
        int64_t x, y, p, x2, p2;
        struct gt_store_outcome out;
        snprintf(a, sizeof a, "site-%d", i);
        snprintf(b, sizeof b, "site-%d", (i * 7) % 300);
        assert_int_equal(gt_store_site(st, a, strlen(a), &x, &err), GT_OK);
        assert_int_equal(gt_store_site(st, b, strlen(b), &y, &err), GT_OK);
        assert_int_equal(gt_store_pair(st, x, y, &p, &err), GT_OK);
        assert_int_equal(gt_store_site(st, a, strlen(a), &x2, &err), GT_OK);
        assert_int_equal(x, x2);
        assert_int_equal(gt_store_pair(st, x, y, &p2, &err), GT_OK);
        assert_int_equal(p, p2);
        assert_int_equal(gt_store_sample(st, p, 60, 0, 1.5, false, &out, &err), GT_OK);
        assert_int_equal(out.what, GT_SAMPLE_STORED);
        assert_int_equal(gt_store_sample(st, p, 60, 0, 1.5, false, &out, &err), GT_OK);
        assert_int_equal(out.what, GT_SAMPLE_DUPLICATE);
        assert_int_equal(gt_store_sample(st, p, 60, 0, 9.0, false, &out, &err), GT_OK);
        assert_int_equal(out.what, GT_SAMPLE_CONFLICT);
        assert_true(out.stored_rtt == 1.5);
    }
    assert_int_equal(gt_db_commit(db, &err), GT_OK);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM sites"), 300);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM samples"), 300);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM samples WHERE rtt_ms <> 1.5"), 0);
    struct gt_store_outcome out;
    int64_t a1, b1, pp;
    assert_int_equal(gt_db_begin(db, &err), GT_OK);
    assert_int_equal(gt_store_site(st, "site-1", 6, &a1, &err), GT_OK);
    assert_int_equal(gt_store_site(st, "site-2", 6, &b1, &err), GT_OK);
    assert_int_equal(gt_store_pair(st, a1, b1, &pp, &err), GT_OK);
    assert_int_equal(gt_store_sample(st, pp, 120, 0, NAN, false, &out, &err), GT_OK);
    assert_int_equal(out.what, GT_SAMPLE_STORED);
    assert_int_equal(gt_store_sample(st, pp, 120, 0, NAN, false, &out, &err), GT_OK);
    assert_int_equal(out.what, GT_SAMPLE_DUPLICATE);
    assert_int_equal(gt_store_sample(st, pp, 120, 0, 4.25, false, &out, &err), GT_OK);
    assert_int_equal(out.what, GT_SAMPLE_CONFLICT);
    assert_true(isnan(out.stored_rtt));
    assert_int_equal(gt_store_sample(st, pp, 120, 0, 4.25, true, &out, &err), GT_OK);
    assert_int_equal(out.what, GT_SAMPLE_REPLACED);
    assert_int_equal(gt_store_sample(st, pp, 120, 0, 4.25, true, &out, &err), GT_OK);
    assert_int_equal(out.what, GT_SAMPLE_DUPLICATE);
    assert_int_equal(gt_db_commit(db, &err), GT_OK);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM samples WHERE ts = 120 AND rtt_ms = 4.25"),
                     1);
    int64_t id, id2;
    assert_int_equal(gt_db_begin(db, &err), GT_OK);
    assert_int_equal(gt_store_site(st, "ghost", 5, &id, &err), GT_OK);
    gt_db_rollback(db);
    gt_store_forget(st);
    assert_int_equal(gt_db_begin(db, &err), GT_OK);
    assert_int_equal(gt_store_site(st, "ghost", 5, &id2, &err), GT_OK);
    assert_int_equal(gt_db_commit(db, &err), GT_OK);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM sites WHERE name = 'ghost'"), 1);
    gt_store_free(st);
    gt_db_close(db);
}

struct tally {
    long stored, dup, conflict, replaced, calls, seen;
    int64_t last_ts;
    bool in_order;
};

static int count_written(void *ctx, const struct gt_sample_put *v, size_t n)
{
    struct tally *t = ctx;
    t->calls++;
    for (size_t i = 0; i < n; i++, t->seen++) {
        if (t->seen && v[i].ts != t->last_ts + 1 && v[i].ts != 0)
            t->in_order = false;
        t->last_ts = v[i].ts;
        switch (v[i].out.what) {
        case GT_SAMPLE_STORED: t->stored++; break;
        case GT_SAMPLE_DUPLICATE: t->dup++; break;
        case GT_SAMPLE_CONFLICT: t->conflict++; break;
        case GT_SAMPLE_REPLACED: t->replaced++; break;
        }
    }
    return 0;
}

/* Queued writes: 150,000 samples (three of PostgreSQL's batches) come
 * back in queue order with the outcomes the one-by-one rules give. */
static void test_queued_batches(void **state)
{
    (void)state;
    NEED_STORE();
    struct gt_db *db = open_store();
    struct gt_store *st;
    struct gt_error err = {0};
    int64_t a, b, p;
    assert_int_equal(gt_store_open(db, &st, &err), GT_OK);
    struct tally t = {.in_order = true};
    gt_store_on_written(st, count_written, &t);
    assert_int_equal(gt_db_begin(db, &err), GT_OK);
    assert_int_equal(gt_store_site(st, "a", 1, &a, &err), GT_OK);
    assert_int_equal(gt_store_site(st, "b", 1, &b, &err), GT_OK);
    assert_int_equal(gt_store_pair(st, a, b, &p, &err), GT_OK);
    for (int i = 1; i <= 150000; i++)
        assert_int_equal(gt_store_queue(st, p, i, 0, i % 97 ? 1.0 + i % 13 : NAN, false, &err),
                         GT_OK);
    assert_int_equal(gt_store_drain(st, &err), GT_OK);
    assert_int_equal(gt_store_queued(st), 0);
    assert_int_equal(t.stored, 150000);
    assert_true(t.in_order);
    /* again: duplicates; then other values for the first 100: conflicts,
       replaced on the next pass; a key twice in one queue meets the
       first one's value */
    struct tally u = {.in_order = true};
    gt_store_on_written(st, count_written, &u);
    for (int i = 1; i <= 150000; i++)
        assert_int_equal(gt_store_queue(st, p, i, 0, i % 97 ? 1.0 + i % 13 : NAN, false, &err),
                         GT_OK);
    for (int i = 1; i <= 100; i++)
        assert_int_equal(gt_store_queue(st, p, i, 0, 50.0, false, &err), GT_OK);
    for (int i = 1; i <= 100; i++)
        assert_int_equal(gt_store_queue(st, p, i, 0, 50.0, true, &err), GT_OK);
    assert_int_equal(gt_store_queue(st, p, 300000, 0, 7.0, false, &err), GT_OK);
    assert_int_equal(gt_store_queue(st, p, 300000, 0, 7.0, false, &err), GT_OK);
    assert_int_equal(gt_store_queue(st, p, 300000, 0, 8.0, false, &err), GT_OK);
    assert_int_equal(gt_store_drain(st, &err), GT_OK);
    assert_int_equal(gt_db_commit(db, &err), GT_OK);
    assert_int_equal(u.dup, 150000 + 1);
    assert_int_equal(u.conflict, 100 + 1);   /* 1..100 (97, lost, too), and 300000's 8 */
    assert_int_equal(u.replaced, 100);
    assert_int_equal(u.stored, 1);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM samples"), 150001);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM samples WHERE rtt_ms = 50"), 100);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM samples WHERE rtt_ms IS NULL"),
                     150000 / 97 - 1);   /* 97 replaced by 50 */
    gt_store_free(st);
    gt_db_close(db);
}

struct said {
    int n;
    char what[16][192];
};

static void said_reject(void *ctx, const char *input, const char *loc, const char *msg)
{
    (void)input, (void)msg;
    struct said *s = ctx;
    if (s->n < 16)
        snprintf(s->what[s->n++], sizeof s->what[0], "reject %s", loc);
}

static void said_conflict(void *ctx, const char *input, const char *loc, const char *msg)
{
    (void)input;
    struct said *s = ctx;
    if (s->n < 16)
        snprintf(s->what[s->n++], sizeof s->what[0], "conflict %s: %s", loc, msg);
}

/* Rejects and conflicts are told in the input's line order, whether the
 * backend writes each sample at once or in batches. */
static void test_messages_in_input_order(void **state)
{
    (void)state;
    NEED_STORE();
    struct gt_db *db = open_store();
    struct gt_ingest_result res;
    ingest_text(db, "ts,src,dst,rtt_ms\n60,a,b,4\n120,a,b,5\n", &res, NULL);
    assert_int_equal(res.stored, 2);
    struct said s = {0};
    struct gt_ingest_opts o = {0};
    o.on_reject = said_reject;
    o.on_conflict = said_conflict;
    o.cb_ctx = &s;
    ingest_text(db, "ts,src,dst,rtt_ms\n60,a,b,4.5\nx,y\n180,a,b,6\n120,a,b,5.5\n"
                    "240,a,b,99999\n", &res, &o);
    assert_int_equal(res.stored, 1);
    assert_int_equal(res.conflicts, 2);
    assert_int_equal(res.rejected, 2);
    assert_int_equal(s.n, 4);
    assert_string_equal(s.what[0], "conflict 2: rtt: 4.5 ms conflicts with the stored value 4 ms; "
                                   "kept the stored value");
    assert_string_equal(s.what[1], "reject 3");
    assert_string_equal(s.what[2], "conflict 5: rtt: 5.5 ms conflicts with the stored value 5 ms; "
                                   "kept the stored value");
    assert_string_equal(s.what[3], "reject 6");
    gt_db_close(db);
}

/* Pair summary statistics against values computed by hand. */
static void test_pair_summary(void **state)
{
    (void)state;
    NEED_STORE();
    struct gt_db *db = open_store();
    struct gt_error err = {0};
    ingest_text(db, "ts,src,dst,rtt_ms\n1,a,b,4\n2,a,b,1\n3,a,b,loss\n4,a,b,3\n5,a,b,2\n"
                    "6,a,b,10\n1,b,a,7\n", NULL, NULL);
    struct gt_pair_row *rows;
    size_t n;
    assert_int_equal(gt_query_pairs(db, NULL, &rows, &n, &err), GT_OK);
    assert_int_equal(n, 2);
    assert_string_equal(rows[0].src, "a");
    assert_int_equal(rows[0].samples, 6);
    assert_int_equal(rows[0].lost, 1);
    assert_int_equal(rows[0].first_ts, 1);
    assert_int_equal(rows[0].last_ts, 6);
    assert_true(rows[0].min_ms == 1);
    assert_true(fabs(rows[0].median_ms - 3) < 1e-12);        /* 1 2 3 4 10 */
    assert_true(fabs(rows[0].p99_ms - 9.76) < 1e-12);        /* 4 + 0.96 * 6 */
    assert_string_equal(rows[1].src, "b");
    assert_int_equal(rows[1].samples, 1);
    gt_pairs_free(rows, n);
    gt_db_close(db);
}

/* A new sample forgets its own pair's cached fit and its source's tracked
 * errors, not the source's other fits. */
static void test_new_sample_forgets_its_pair(void **state)
{
    (void)state;
    NEED_STORE();
    struct gt_db *db = open_store();
    struct gt_error err = {0};
    ingest_text(db, "ts,src,dst,rtt_ms\n60,a,b,4\n60,a,c,5\n60,b,a,6\n", NULL, NULL);
    int64_t a = site_id(db, "a"), b = site_id(db, "b"), c = site_id(db, "c");
    struct gt_fit_rec ra[2] = {{.dst = b, .last_ts = 60}, {.dst = c, .last_ts = 60}};
    struct gt_fit_rec rb[1] = {{.dst = a, .last_ts = 60}};
    struct gt_track_rec tr = {.anchor = 60};
    assert_int_equal(gt_db_begin(db, &err), GT_OK);
    assert_int_equal(gt_fitcache_save(db, 60, "auto", a, ra, 2, &err), GT_OK);
    assert_int_equal(gt_fitcache_save(db, 30, "auto", a, ra + 1, 1, &err), GT_OK);
    assert_int_equal(gt_fitcache_save(db, 60, "auto", b, rb, 1, &err), GT_OK);
    assert_int_equal(gt_trackcache_save(db, 60, "track:x", a, &tr, &err), GT_OK);
    assert_int_equal(gt_db_commit(db, &err), GT_OK);

    ingest_text(db, "ts,src,dst,rtt_ms\n120,a,b,7\n", NULL, NULL);
    struct gt_fit_rec *buf = NULL;
    size_t cap = 0, n = 0;
    assert_int_equal(gt_fitcache_load(db, 60, "auto", a, &buf, &cap, &n, &err), GT_OK);
    assert_int_equal(n, 1);                       /* a -> b gone, a -> c kept */
    assert_int_equal(buf[0].dst, c);
    assert_int_equal(gt_fitcache_load(db, 30, "auto", a, &buf, &cap, &n, &err), GT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(gt_fitcache_load(db, 60, "auto", b, &buf, &cap, &n, &err), GT_OK);
    assert_int_equal(n, 1);                       /* another source: untouched */
    bool found = true;
    assert_int_equal(gt_trackcache_load(db, 60, "track:x", a, &tr, &found, &err), GT_OK);
    assert_false(found);

    ingest_text(db, "ts,src,dst,rtt_ms\n120,a,c,8\n", NULL, NULL);
    long long rows, records;
    assert_int_equal(gt_fitcache_count(db, &rows, &records, &err), GT_OK);
    assert_int_equal(rows, 1);                    /* b's only */
    assert_int_equal(records, 1);
    free(buf);
    gt_db_close(db);
}

/* The window read: the last M samples at or before t, oldest first; the
 * valid sample before a window that starts lost; the pair's newest. */
static void test_window_read(void **state)
{
    (void)state;
    NEED_STORE();
    struct gt_db *db = open_store();
    struct gt_error err = {0};
    /* 60..600 every 60 s; 180 and 240 lost */
    ingest_text(db, "ts,src,dst,rtt_ms\n60,a,b,1\n120,a,b,2\n180,a,b,loss\n240,a,b,loss\n"
                    "300,a,b,5\n360,a,b,6\n420,a,b,7\n480,a,b,8\n540,a,b,9\n600,a,b,10\n",
                    NULL, NULL);
    int64_t *ts;
    double *rtt;
    size_t n;
    struct gt_prior prior;
    assert_int_equal(gt_query_series(db, "a", "b", 400, 4, &ts, &rtt, &n, &prior, &err), GT_OK);
    assert_int_equal(n, 4);
    assert_int_equal(ts[0], 180);
    assert_int_equal(ts[3], 360);
    assert_true(isnan(rtt[0]) && isnan(rtt[1]) && rtt[2] == 5 && rtt[3] == 6);
    assert_true(prior.found && prior.ts == 120 && prior.rtt == 2);
    free(ts);
    free(rtt);
    assert_int_equal(gt_query_series(db, "a", "b", 10000, 0, &ts, &rtt, &n, NULL, &err), GT_OK);
    assert_int_equal(n, 10);
    free(ts);
    free(rtt);
    assert_int_equal(gt_query_series(db, "b", "a", 400, 4, &ts, &rtt, &n, NULL, &err),
                     GT_ENOTFOUND);
    gt_error_clear(&err);

    /* a sparse pair, one sample every 10 days: the window reaches back
       past the recent weeks the read looks at first */
    ingest_text(db, "ts,src,dst,rtt_ms\n100,c,d,1\n864100,c,d,2\n1728100,c,d,3\n"
                    "2592100,c,d,4\n", NULL, NULL);
    assert_int_equal(gt_query_series(db, "c", "d", 2592100, 3, &ts, &rtt, &n, NULL, &err),
                     GT_OK);
    assert_int_equal(n, 3);
    assert_true(ts[0] == 864100 && ts[2] == 2592100 && rtt[0] == 2 && rtt[2] == 4);
    free(ts);
    free(rtt);

    struct gt_series_reader *r;
    int64_t a, b, newest, wts[8];
    double wrtt[8];
    assert_int_equal(gt_series_reader_new(db, &r, &err), GT_OK);
    assert_int_equal(gt_series_site(r, "a", &a, &err), GT_OK);
    assert_int_equal(gt_series_site(r, "b", &b, &err), GT_OK);
    assert_int_equal(gt_series_site(r, "zz", &newest, &err), GT_ENOTFOUND);
    assert_int_equal(gt_series_read(r, a, b, 300, 3, wts, wrtt, 8, &n, &newest, &prior, &err),
                     GT_OK);
    assert_int_equal(n, 3);                      /* 180 240 300 */
    assert_int_equal(wts[0], 180);
    assert_true(prior.found && prior.ts == 120);
    assert_int_equal(newest, 600);
    assert_int_equal(gt_series_read(r, b, a, 300, 3, wts, wrtt, 8, &n, NULL, NULL, &err),
                     GT_ENOTFOUND);
    gt_series_reader_free(r);
    gt_db_close(db);
}

/* Retention: what is older than the cutoff goes, counted; the rest stays;
 * the fit cache empties.  Samples across four weeks (PostgreSQL's
 * partitions): the cutoff in the third. */
static void test_prune(void **state)
{
    (void)state;
    NEED_STORE();
    struct gt_db *db = open_store();
    struct gt_error err = {0};
    char text[4096] = "ts,src,dst,rtt_ms\n";
    const long week = 604800, base = 2920 * week;   /* ts on week boundaries */
    for (int w = 0; w < 4; w++)
        for (int k = 0; k < 3; k++) {
            char line[64];
            snprintf(line, sizeof line, "%ld,a,b,%d\n", base + w * week + k * 86400, 10 + k);
            strcat(text, line);
        }
    ingest_text(db, text, NULL, NULL);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM samples"), 12);
    long long removed = -1;
    int64_t cutoff = base + 2 * week + 86400;   /* week 2's first sample goes */
    assert_int_equal(gt_prune(db, cutoff, true, &removed, &err), GT_OK);
    assert_int_equal(removed, 7);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM samples"), 12);
    assert_int_equal(gt_prune(db, cutoff, false, &removed, &err), GT_OK);
    assert_int_equal(removed, 7);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM samples"), 5);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT min(ts) FROM samples");
    assert_int_equal(sql_int(db, sql), cutoff);
    if (!strcmp(backend, "postgresql")) {
        /* weeks 0 and 1 dropped whole; this week's and the next 4 made */
        assert_int_equal(sql_int(db, "SELECT (to_regclass('samples_w2920') IS NULL)::int"
                                     " + (to_regclass('samples_w2921') IS NULL)::int"
                                     " + (to_regclass('samples_w2922') IS NOT NULL)::int"
                                     " + (to_regclass('samples_w2923') IS NOT NULL)::int"), 4);
        char ahead[160];
        snprintf(ahead, sizeof ahead, "SELECT count(*) FROM pg_class WHERE relname IN"
                 " ('samples_w%ld', 'samples_w%ld')", (long)(time(NULL) / week),
                 (long)(time(NULL) / week + 4));
        assert_int_equal(sql_int(db, ahead), 2);
    }
    /* old samples again: their partition is made again */
    ingest_text(db, text, NULL, NULL);
    assert_int_equal(sql_int(db, "SELECT count(*) FROM samples"), 12);
    gt_db_close(db);
}

struct writer {
    const char *csv;
    struct gt_ingest_result res;
    int rc;
};

static void *write_one(void *arg)
{
    struct writer *w = arg;
    struct gt_db *db;
    struct gt_store *st;
    struct gt_error err = {0};
    w->rc = gt_db_open(addr, GT_DB_EXISTING, 60000, &db, &err);
    if (w->rc)
        return NULL;
    if ((w->rc = gt_store_open(db, &st, &err)) == GT_OK) {
        struct gt_ingest_opts o = {0};
        o.format = gt_collector_find("csv");
        w->rc = gt_ingest_input(db, st, w->csv, &o, &w->res);
        gt_store_free(st);
    }
    gt_db_close(db);
    return NULL;
}

/* Two collectors ingest the same samples at the same moment: each is
 * stored once, and the two runs' counts add up to it. */
static void test_two_writers(void **state)
{
    (void)state;
    NEED_STORE();
    gt_db_close(open_store());
    char csv[2][600];
    for (int k = 0; k < 2; k++) {
        snprintf(csv[k], sizeof csv[k], "%s/w%d.csv", tmp, k);
        FILE *f = fopen(csv[k], "w");
        assert_non_null(f);
        fputs("ts,src,dst,rtt_ms\n", f);
        for (int i = 0; i < 30000; i++)
            fprintf(f, "%d,s%d,s%d,%d.25\n", 60 * (i / 6 + 1), i % 3, 3 + i % 2, i % 40);
        fclose(f);
    }
    struct writer w[2] = {{csv[0], {0}, 0}, {csv[1], {0}, 0}};
    pthread_t t[2];
    for (int k = 0; k < 2; k++)
        assert_int_equal(pthread_create(&t[k], NULL, write_one, &w[k]), 0);
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    for (int k = 0; k < 2; k++) {
        if (w[k].rc)
            fprintf(stderr, "writer %d: %s\n", k, w[k].res.err.msg);
        assert_int_equal(w[k].rc, GT_OK);
    }
    assert_int_equal(w[0].res.stored + w[1].res.stored, 30000);
    assert_int_equal(w[0].res.duplicates + w[1].res.duplicates, 30000);
    assert_int_equal(w[0].res.conflicts + w[1].res.conflicts, 0);
    struct gt_db *db = open_store();
    assert_int_equal(sql_int(db, "SELECT count(*) FROM samples"), 30000);
    gt_db_close(db);
}

/* Sites in byte order of their names, with attributes; each source's
 * newest sample; a root's partners and newest. */
static void test_sites_and_newest(void **state)
{
    (void)state;
    NEED_STORE();
    struct gt_db *db = open_store();
    struct gt_error err = {0};
    ingest_text(db, "ts,src,dst,rtt_ms\n60,b,a,1\n120,b,A,loss\n60,A,b,3\n", NULL, NULL);
    double lat = 46.25, lon = -6.5;
    assert_int_equal(gt_site_set_attrs(db, "b", "c1", NULL, &lat, &lon, &err), GT_OK);
    assert_int_equal(gt_site_set_attrs(db, "new", NULL, "x.example", NULL, NULL, &err), GT_OK);
    struct gt_site_row *s;
    size_t n;
    assert_int_equal(gt_query_sites(db, &s, &n, &err), GT_OK);
    assert_int_equal(n, 4);
    assert_string_equal(s[0].name, "A");
    assert_string_equal(s[1].name, "a");
    assert_string_equal(s[2].name, "b");
    assert_string_equal(s[3].name, "new");
    assert_true(s[2].has_coords && s[2].latitude == 46.25 && s[2].longitude == -6.5);
    assert_string_equal(s[2].cluster, "c1");
    assert_null(s[2].domain);
    assert_int_equal(s[2].pairs_out, 2);
    assert_int_equal(s[2].pairs_in, 1);
    assert_string_equal(s[3].domain, "x.example");
    assert_false(s[3].has_coords);
    gt_sites_free(s, n);
    struct gt_newest_row *nr;
    assert_int_equal(gt_query_newest_by_src(db, &nr, &n, &err), GT_OK);
    assert_int_equal(n, 2);
    assert_string_equal(nr[0].src, "A");
    assert_int_equal(nr[0].newest, 60);
    assert_string_equal(nr[1].src, "b");
    assert_int_equal(nr[1].newest, 120);   /* a lost probe counts */
    gt_newest_free(nr, n);
    int64_t id, partners, newest;
    assert_int_equal(gt_query_root_newest(db, "b", &id, &partners, &newest, &err), GT_OK);
    assert_int_equal(partners, 2);
    assert_int_equal(newest, 120);
    assert_int_equal(gt_query_root_newest(db, "new", &id, &partners, &newest, &err), GT_OK);
    assert_int_equal(partners, 0);
    assert_true(newest == INT64_MIN);
    assert_int_equal(gt_query_root_newest(db, "nope", &id, &partners, &newest, &err),
                     GT_ENOTFOUND);
    long np;
    gt_error_clear(&err);
    assert_int_equal(gt_query_pair_count(db, &np, &err), GT_OK);
    assert_int_equal(np, 3);
    gt_db_close(db);
}

/* A store written by a newer gridtail is refused, not misread. */
static void test_newer_schema_refused(void **state)
{
    (void)state;
    NEED_STORE();
    struct gt_db *db = open_store();
    struct gt_error err = {0};
    assert_int_equal(gt_db_exec(db, !strcmp(backend, "sqlite")
                                        ? "PRAGMA user_version = 1000"
                                        : "UPDATE gt_meta SET schema_version = 1000", &err),
                     GT_OK);
    gt_db_close(db);
    assert_int_equal(gt_db_open(addr, GT_DB_EXISTING, 1000, &db, &err), GT_ESCHEMA);
    assert_null(db);
    assert_non_null(strstr(err.msg, "newer"));
}

/* PostgreSQL: a password in the address is refused, and not repeated. */
static void test_password_refused(void **state)
{
    (void)state;
    struct gt_db *db;
    struct gt_error err = {0};
    assert_int_equal(gt_db_open("postgresql://u:s3cretpw@127.0.0.1:1/x", GT_DB_EXISTING, 100,
                                &db, &err), GT_EUSAGE);
    assert_null(strstr(err.msg, "s3cretpw"));
    assert_non_null(strstr(err.msg, "password"));
    gt_error_clear(&err);
    assert_int_equal(gt_db_open("postgresql://127.0.0.1:1/x?password=s3cretpw", GT_DB_EXISTING,
                                100, &db, &err), GT_EUSAGE);
    assert_null(strstr(err.msg, "s3cretpw"));
    gt_error_clear(&err);
    /* a server that is not there: an error naming the address, no crash */
    assert_int_not_equal(gt_db_open("postgresql://nobody@127.0.0.1:1/x", GT_DB_EXISTING, 100,
                                    &db, &err), GT_OK);
    assert_non_null(strstr(err.msg, "cannot connect"));
}

/* Each test twice, named by its backend: one group, one count. */
#define STORE_TEST(f)                                                             \
    {"sqlite: " #f, f, setup, teardown, (void *)"sqlite"},                        \
    {"postgresql: " #f, f, setup, teardown, (void *)"postgresql"}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STORE_TEST(test_ids_and_duplicates),
        STORE_TEST(test_queued_batches),
        STORE_TEST(test_messages_in_input_order),
        STORE_TEST(test_pair_summary),
        STORE_TEST(test_new_sample_forgets_its_pair),
        STORE_TEST(test_window_read),
        STORE_TEST(test_prune),
        STORE_TEST(test_two_writers),
        STORE_TEST(test_sites_and_newest),
        STORE_TEST(test_newer_schema_refused),
        {"postgresql: test_password_refused", test_password_refused, setup, teardown,
         (void *)"postgresql"},
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
