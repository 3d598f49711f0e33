/*
 * testutil.h - shared test helpers: cmocka, temporary directories, a
 * capturing sink, and running a collector over an in-memory text.
 */
#ifndef GT_TESTUTIL_H
#define GT_TESTUTIL_H

#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/collector.h"
#include "db/db.h"
#include "db/ingest.h"
#include "base/util.h"

/* A fresh temporary directory (caller frees the string). */
static inline char *tmpdir_new(void)
{
    char *d = strdup("/tmp/gridtail-test-XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static inline void tmpdir_free(char *d)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
    free(d);
}

static inline void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

/* Everything a collector reported. */
#define CAP_MAX 4096
struct capture {
    int emitted, rejected, notes;
    struct {
        char src[300], dst[300];
        int64_t ts, seq;
        double rtt;
    } s[CAP_MAX];
    char reject_loc[CAP_MAX][64];
    char reject_msg[CAP_MAX][256];
};

static inline int cap_emit(void *ctx, const struct gt_sample *s)
{
    struct capture *c = ctx;
    if (c->emitted < CAP_MAX) {
        snprintf(c->s[c->emitted].src, 300, "%.*s", (int)s->src_len, s->src);
        snprintf(c->s[c->emitted].dst, 300, "%.*s", (int)s->dst_len, s->dst);
        c->s[c->emitted].ts = s->ts;
        c->s[c->emitted].seq = s->seq;
        c->s[c->emitted].rtt = s->rtt_ms;
    }
    c->emitted++;
    return GT_OK;
}

static inline void cap_reject(void *ctx, const char *loc, const char *msg)
{
    struct capture *c = ctx;
    if (c->rejected < CAP_MAX) {
        snprintf(c->reject_loc[c->rejected], 64, "%s", loc);
        snprintf(c->reject_msg[c->rejected], 256, "%s", msg);
    }
    c->rejected++;
}

static inline void cap_note(void *ctx, const char *msg)
{
    (void)msg;
    ((struct capture *)ctx)->notes++;
}

/* Run format over text; returns parse()'s status. */
static inline int collect_text(const char *format, const char *text, size_t len,
                               const struct gt_collect_opts *opts, struct capture *c,
                               struct gt_error *err)
{
    const struct gt_collector *col = gt_collector_find(format);
    assert_non_null(col);
    memset(c, 0, sizeof *c);
    FILE *f = fmemopen((void *)text, len ? len : 1, "r");
    if (len == 0) {
        fclose(f);
        f = fopen("/dev/null", "r");
    }
    assert_non_null(f);
    struct gt_input in = {"mem", NULL, f, NULL};
    struct gt_sink sink = {c, cap_emit, cap_reject, cap_note};
    struct gt_collect_opts o = {0};
    if (opts)
        o = *opts;
    int rc = col->parse(&in, &o, &sink, err);
    fclose(f);
    return rc;
}

/* A csv-format file into db through the ingest path (one transaction). */
static inline void ingest_csv(struct gt_db *db, const char *path)
{
    struct gt_error err = {0};
    struct gt_store *st;
    assert_int_equal(gt_store_open(db, &st, &err), GT_OK);
    struct gt_ingest_opts o = {0};
    o.format = gt_collector_find("csv");
    struct gt_ingest_result res;
    assert_int_equal(gt_ingest_input(db, st, path, &o, &res), GT_OK);
    gt_store_free(st);
}

/* One integer from a SQL query. */
static inline long long sql_int(struct gt_db *db, const char *sql)
{
    long long v = -1;
    struct gt_error err = {0};
    if (gt_db_scalar(db, sql, &v, &err) != GT_OK)
        fprintf(stderr, "%s: %s\n", sql, err.msg);
    assert_int_equal(err.code, GT_OK);
    return v;
}

/* A reproducible uniform draw in (0, 1) (xorshift64) from *state, for
 * tests that draw random cases. */
static inline double test_uniform(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return ((double)(*state >> 11) + 0.5) / 9007199254740992.0;
}

#endif
