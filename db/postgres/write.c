/*
 * write.c - the PostgreSQL backend's writes: site and pair ids, batches
 * of samples by COPY, sources' cursors and the ingest log.
 *
 * A batch (keys distinct: db/store.c sees to it) is sent in key order in
 * COPY's binary format (no number printed or parsed as text).  A batch
 * whose keys are new goes straight into samples, inside a savepoint, as
 * psql's \copy would load it.  One that may hold a taken key goes the
 * careful way: copied into gt_stage, a temporary table of this connection,
 * and inserted into samples in one statement that skips taken keys and
 * returns the keys it stored; the others' stored values are read in a
 * statement of their own, which sees another writer's committed rows too:
 * each is a duplicate (same value, NULL = NULL) or a conflict, replaced
 * with --on-conflict replace.  "May hold": samples has a row of one of its
 * pairs in that pair's time range in the batch (one index probe a pair;
 * none for a pair whose rows all come after those this writer last stored
 * new, so a load in time order probes its first batch only).  A key taken
 * all the same, by a concurrent writer, fails the COPY with a unique
 * violation: the savepoint undoes the batch, which then goes the careful
 * way.  Two collectors writing the same keys at once each count the
 * other's as duplicates: nothing is lost or stored twice.
 *
 * A batch is a subtransaction: past 64 in one transaction (4 M samples at
 * batch_max 65,536) PostgreSQL's per-session cache of them overflows, and
 * while that input's transaction is open other sessions' visibility checks
 * of its rows look up pg_subtrans.
 */
#define _POSIX_C_SOURCE 200809L
#include "pg.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A batch in key order: the order its rows are inserted in, so that two
 * writers of the same keys wait for each other in one order, and the
 * index takes each pair's rows on one page after another. */
struct keyed {
    int64_t pair, ts, seq;
    uint32_t i;                   /* its place in the queue */
};

/* The newest time of a pair up to which this writer found every key new
 * and stored it: its next batch's rows after it are new but for another
 * writer's, and go without a probe.  INT64_MAX: a batch met a taken key
 * of the pair, whose stored rows may go on (a rerun): probe it again. */
struct newest {
    int64_t pair, ts;
    bool used;
};

struct pg_writer {
    struct gt_db_writer base;
    unsigned char *copybuf;   /* the batch as COPY binary data */
    size_t copycap;
    struct keyed *keys;       /* the batch in key order */
    size_t keycap;
    char *ranges[3];          /* pairs to probe, each one's first and last time ("{...}") */
    size_t rangecap;
    struct newest *newest;    /* by pair (open addressing, a power of two) */
    size_t newest_cap, newest_used;
};

int pg_writer_open(struct gt_db *db, struct gt_db_writer **out, struct gt_error *err)
{
    struct pg_writer *w = calloc(1, sizeof *w);
    if (!w)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    w->base.db = db;
    *out = &w->base;
    return GT_OK;
}

void pg_writer_free(struct gt_db_writer *base)
{
    struct pg_writer *w = (struct pg_writer *)base;
    if (!w)
        return;
    free(w->copybuf);
    free(w->keys);
    for (int i = 0; i < 3; i++)
        free(w->ranges[i]);
    free(w->newest);
    free(w);
}

/* The id a select or an insert returns; a concurrent insert of the same
 * name makes ours return nothing, and the select then finds it. */
static int find_or_make(struct gt_db *db, enum pg_stmt sel, enum pg_stmt ins,
                        const char *const *values, int64_t *id, const char *what,
                        struct gt_error *err)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        PGresult *res;
        int rc = pg_run(db, sel, values, NULL, NULL, false, &res, err);
        if (rc)
            return rc;
        bool found = PQntuples(res) > 0;
        if (found)
            *id = pg_col_i64(res, 0, 0);
        PQclear(res);
        if (found)
            return GT_OK;
        if ((rc = pg_run(db, ins, values, NULL, NULL, false, &res, err)))
            return rc;
        found = PQntuples(res) > 0;
        if (found)
            *id = pg_col_i64(res, 0, 0);
        PQclear(res);
        if (found)
            return GT_OK;
    }
    return gt_error_set(err, GT_EDB, db->addr, "%s: neither found nor added", what);
}

int pg_site_id(struct gt_db_writer *w, const char *name, size_t len, int64_t *id,
               struct gt_error *err)
{
    char *copy = strndup(name, len);
    if (!copy)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    const char *v[1] = {copy};
    int rc = find_or_make(w->db, PG_SITE_SEL, PG_SITE_INS, v, id, "a site", err);
    free(copy);
    return rc;
}

int pg_pair_id(struct gt_db_writer *w, int64_t src, int64_t dst, int64_t *id,
               struct gt_error *err)
{
    char a[24], b[24];
    pg_i64(a, sizeof a, src);
    pg_i64(b, sizeof b, dst);
    const char *v[2] = {a, b};
    return find_or_make(w->db, PG_PAIR_SEL, PG_PAIR_INS, v, id, "a pair", err);
}

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->pair != y->pair)
        return x->pair < y->pair ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int sort_batch(struct pg_writer *w, const struct gt_sample_put *v, size_t n,
                      struct gt_error *err)
{
    if (n > w->keycap) {
        struct keyed *k = realloc(w->keys, n * sizeof *k);
        if (!k)
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        w->keys = k, w->keycap = n;
    }
    bool sorted = true;
    for (size_t i = 0; i < n; i++) {
        w->keys[i] = (struct keyed){v[i].pair, v[i].ts, v[i].seq, (uint32_t)i};
        sorted = sorted && (i == 0 || cmp_keyed(&w->keys[i - 1], &w->keys[i]) < 0);
    }
    if (!sorted)
        qsort(w->keys, n, sizeof *w->keys, cmp_keyed);
    return GT_OK;
}

/* COPY's binary format: big-endian integers, doubles as their IEEE bits */
static unsigned char *put16(unsigned char *p, uint16_t x)
{
    p[0] = (unsigned char)(x >> 8), p[1] = (unsigned char)x;
    return p + 2;
}

static unsigned char *put32(unsigned char *p, uint32_t x)
{
    for (int b = 3; b >= 0; b--, x >>= 8)
        p[b] = (unsigned char)x;
    return p + 4;
}

static unsigned char *put64(unsigned char *p, uint64_t x)
{
    for (int b = 7; b >= 0; b--, x >>= 8)
        p[b] = (unsigned char)x;
    return p + 8;
}

static unsigned char *put_i64(unsigned char *p, int64_t x)
{
    return put64(put32(p, 8), (uint64_t)x);
}

/* The batch in key order as COPY ... (FORMAT binary) data: (pair, ts,
 * seq, rtt_ms), with the queue place (ord) first when with_ord.  No
 * number is printed: the server reads the bits. */
static int copy_binary(struct pg_writer *w, const struct gt_sample_put *v, size_t n,
                       bool with_ord, size_t *len, struct gt_error *err)
{
    static const unsigned char head[19] = "PGCOPY\n\377\r\n";   /* flags, extension: 0 */
    size_t need = sizeof head + n * 58 + 2;
    if (need > w->copycap) {
        unsigned char *b = realloc(w->copybuf, need);
        if (!b)
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        w->copybuf = b, w->copycap = need;
    }
    unsigned char *p = w->copybuf;
    memcpy(p, head, sizeof head);
    p += sizeof head;
    for (size_t k = 0; k < n; k++) {
        const struct gt_sample_put *s = &v[w->keys[k].i];
        p = put16(p, with_ord ? 5 : 4);
        if (with_ord)
            p = put32(put32(p, 4), w->keys[k].i);
        p = put_i64(put_i64(put_i64(p, s->pair), s->ts), s->seq);
        if (isnan(s->rtt_ms)) {
            p = put32(p, UINT32_MAX);   /* -1: NULL */
        } else {
            uint64_t bits;
            memcpy(&bits, &s->rtt_ms, sizeof bits);
            p = put64(put32(p, 8), bits);
        }
    }
    p = put16(p, UINT16_MAX);   /* -1: the end */
    *len = (size_t)(p - w->copybuf);
    return GT_OK;
}

/* Runs sql (ending in a COPY ... FROM STDIN) and sends it the data;
 * state gets the SQLSTATE of a failure ("" when none was given). */
static int copy_in(struct gt_db *db, const char *sql, const char *what,
                   const unsigned char *data, size_t len, char state[6], struct gt_error *err)
{
    PGconn *c = pg(db)->conn;
    state[0] = '\0';
    PGresult *res = PQexec(c, sql);
    int rc = GT_OK;
    if (PQresultStatus(res) != PGRES_COPY_IN) {
        const char *s = PQresultErrorField(res, PG_DIAG_SQLSTATE);
        snprintf(state, 6, "%s", s ? s : "");
        rc = pg_fail(db, err, what, res);
        PQclear(res);
        return rc;
    }
    PQclear(res);
    if (PQputCopyData(c, (const char *)data, (int)len) != 1 || PQputCopyEnd(c, NULL) != 1)
        return pg_fail(db, err, what, NULL);
    while ((res = PQgetResult(c))) {
        if (rc == GT_OK && PQresultStatus(res) != PGRES_COMMAND_OK) {
            const char *s = PQresultErrorField(res, PG_DIAG_SQLSTATE);
            snprintf(state, 6, "%s", s ? s : "");
            rc = pg_fail(db, err, what, res);
        }
        PQclear(res);
    }
    return rc;
}

/* The weeks the batch falls in, each made a partition if it is new. */
static int partitions_for(struct gt_db *db, const struct gt_sample_put *v, size_t n,
                          struct gt_error *err)
{
    int64_t weeks[64];
    size_t nw = 0;
    int rc = GT_OK;
    for (size_t i = 0; rc == GT_OK && i < n; i++) {
        int64_t wk = pg_week_of(v[i].ts);
        bool seen = false;
        for (size_t j = 0; j < nw && !seen; j++)
            seen = weeks[j] == wk;
        if (seen)
            continue;
        if (nw == sizeof weeks / sizeof *weeks) {
            rc = pg_partitions_ensure(db, weeks, nw, err);
            nw = 0;
        }
        weeks[nw++] = wk;
    }
    return rc ? rc : pg_partitions_ensure(db, weeks, nw, err);
}

static struct newest *newest_of(const struct pg_writer *w, int64_t pair)
{
    size_t mask = w->newest_cap - 1;
    for (size_t i = ((uint64_t)pair * 0x9e3779b97f4a7c15ULL) >> 32 & mask;; i = (i + 1) & mask)
        if (!w->newest[i].used || w->newest[i].pair == pair)
            return &w->newest[i];
}

static int newest_grow(struct pg_writer *w)
{
    struct newest *old = w->newest;
    size_t old_cap = w->newest_cap, cap = old_cap ? 2 * old_cap : 1024;
    if (!(w->newest = calloc(cap, sizeof *w->newest))) {
        w->newest = old;
        return GT_ENOMEM;
    }
    w->newest_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].used)
            *newest_of(w, old[i].pair) = old[i];
    free(old);
    return GT_OK;
}

/* The batch's keys (in w->keys) are all in samples now: each pair's
 * newest time is noted when they were all new, or that the pair must be
 * probed again. */
static int note_newest(struct pg_writer *w, size_t n, bool all_new, struct gt_error *err)
{
    for (size_t k = 0; k < n; k++) {
        if (k + 1 < n && w->keys[k + 1].pair == w->keys[k].pair)
            continue;   /* the pair's last key: its newest time */
        if ((w->newest_used + 1) * 2 > w->newest_cap && newest_grow(w))
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        struct newest *e = newest_of(w, w->keys[k].pair);
        w->newest_used += !e->used;
        *e = (struct newest){w->keys[k].pair, all_new ? w->keys[k].ts : INT64_MAX, true};
    }
    return GT_OK;
}

/* Might a key of the batch be taken?  True when samples holds a row of
 * one of its pairs between that pair's first and last time in the batch;
 * pairs whose rows all come after their newest (w->newest) are not
 * probed. */
static int maybe_taken(struct pg_writer *w, size_t n, bool *maybe, struct gt_error *err)
{
    size_t need = n * 21 + 3;
    if (need > w->rangecap) {
        for (int i = 0; i < 3; i++) {
            char *b = realloc(w->ranges[i], need);
            if (!b)
                return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
            w->ranges[i] = b;
        }
        w->rangecap = need;
    }
    char *at[3] = {w->ranges[0], w->ranges[1], w->ranges[2]};
    size_t probed = 0;
    for (size_t k = 0; k < n;) {
        size_t last = k;
        while (last + 1 < n && w->keys[last + 1].pair == w->keys[k].pair)
            last++;
        const struct newest *e = w->newest_cap ? newest_of(w, w->keys[k].pair) : NULL;
        if (!e || !e->used || w->keys[k].ts <= e->ts) {
            int64_t v[3] = {w->keys[k].pair, w->keys[k].ts, w->keys[last].ts};
            for (int i = 0; i < 3; i++)
                at[i] += sprintf(at[i], "%c%lld", probed ? ',' : '{', (long long)v[i]);
            probed++;
        }
        k = last + 1;
    }
    *maybe = false;
    if (!probed)
        return GT_OK;
    for (int i = 0; i < 3; i++)
        strcpy(at[i], "}");
    const char *p[3] = {w->ranges[0], w->ranges[1], w->ranges[2]};
    PGresult *res;
    int rc = pg_run(w->base.db, PG_STAGE_PROBE, p, NULL, NULL, false, &res, err);
    if (rc)
        return rc;
    *maybe = !strcmp(PQgetvalue(res, 0, 0), "t");
    PQclear(res);
    return GT_OK;
}

/* The batch straight into samples, in a savepoint: all stored (true), or
 * a key was taken and nothing was (false: the savepoint undid it). */
static int copy_direct(struct pg_writer *w, const struct gt_sample_put *v, size_t n,
                       bool *stored, struct gt_error *err)
{
    struct gt_db *db = w->base.db;
    size_t len;
    char state[6];
    int rc = copy_binary(w, v, n, false, &len, err);
    if (rc)
        return rc;
    struct gt_error why = {0};
    rc = copy_in(db, "SAVEPOINT gt_batch;"
                     " COPY samples (pair, ts, seq, rtt_ms) FROM STDIN (FORMAT binary)",
                 "storing samples", w->copybuf, len, state, &why);
    *stored = rc == GT_OK;
    /* a taken key (unique_violation), or a deadlock with a writer of the
       same keys whose batches split them otherwise: the careful way.
       Anything else is the input's failure. */
    if (rc && strcmp(state, "23505") && strcmp(state, "40P01"))
        return gt_error_set(err, why.code, why.where[0] ? why.where : NULL, "%s", why.msg);
    return pg_exec(db, rc ? "ROLLBACK TO SAVEPOINT gt_batch; RELEASE SAVEPOINT gt_batch"
                          : "RELEASE SAVEPOINT gt_batch", err);
}

/* The staging table, once per connection (it lives as long as the
 * session; its rows as long as the transaction), emptied and filled. */
static int stage_fill(struct pg_writer *w, const struct gt_sample_put *v, size_t n,
                      struct gt_error *err)
{
    struct gt_db *db = w->base.db;
    size_t len;
    char state[6];
    int rc = copy_binary(w, v, n, true, &len, err);
    if (rc == GT_OK && !pg(db)->stage_made) {
        rc = pg_exec(db, "CREATE TEMP TABLE IF NOT EXISTS gt_stage (ord integer NOT NULL,"
                         " pair bigint NOT NULL, ts bigint NOT NULL, seq bigint NOT NULL,"
                         " rtt_ms double precision) ON COMMIT DELETE ROWS", err);
        pg(db)->stage_made = rc == GT_OK;   /* until a rollback (pg_rollback) */
    }
    return rc ? rc : copy_in(db, "TRUNCATE gt_stage; COPY gt_stage (ord, pair, ts, seq, rtt_ms)"
                                 " FROM STDIN (FORMAT binary)", "staging samples", w->copybuf,
                             len, state, err);
}

static int64_t get64(const char *p)
{
    uint64_t x = 0;
    for (int b = 0; b < 8; b++)
        x = x << 8 | (unsigned char)p[b];
    return (int64_t)x;
}

/* The staged batch into samples, skipping taken keys; *taken gets the
 * queue places of the rows it skipped (caller frees), *nt their number. */
static int stage_insert(struct pg_writer *w, size_t n, int **taken, size_t *nt,
                        struct gt_error *err)
{
    PGresult *res;
    int rc = pg_run(w->base.db, PG_STAGE_INSERT, NULL, NULL, NULL, true, &res, err);
    if (rc)
        return rc;
    /* the inserted keys, found in the batch (sorted) and crossed off */
    bool *in = calloc(n ? n : 1, sizeof *in);
    *taken = malloc((n ? n : 1) * sizeof **taken);
    *nt = 0;
    if (!in || !*taken)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (int r = 0; rc == GT_OK && r < PQntuples(res); r++) {
        struct keyed k = {get64(PQgetvalue(res, r, 0)), get64(PQgetvalue(res, r, 1)),
                          get64(PQgetvalue(res, r, 2)), 0};
        struct keyed *hit = bsearch(&k, w->keys, n, sizeof k, cmp_keyed);
        if (hit)
            in[hit - w->keys] = true;
    }
    PQclear(res);
    for (size_t k = 0; rc == GT_OK && k < n; k++)
        if (!in[k])
            (*taken)[(*nt)++] = (int)w->keys[k].i;
    free(in);
    return rc;
}

/* "{1,5,9}": the staged rows of the given order numbers */
static char *ord_array(const int *ords, size_t n)
{
    char *s = malloc(n * 12 + 3), *p = s;
    if (!s)
        return NULL;
    *p++ = '{';
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s%d", i ? "," : "", ords[i]);
    *p++ = '}';
    *p = '\0';
    return s;
}

/* The rows insert skipped: their stored values, then duplicate or
 * conflict (and replaced). */
static int settle_taken(struct gt_db *db, struct gt_sample_put *v, const int *ords, size_t n,
                        bool replace, struct gt_error *err)
{
    char *arr = ord_array(ords, n);
    if (!arr)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    const char *p[1] = {arr};
    PGresult *res;
    int rc = pg_run(db, PG_STAGE_STORED, p, NULL, NULL, false, &res, err);
    size_t conflicts = 0;
    for (int i = 0; rc == GT_OK && i < PQntuples(res); i++) {
        struct gt_sample_put *s = &v[pg_col_i64(res, i, 0)];
        double was = pg_col_f64(res, i, 1);
        bool same = isnan(s->rtt_ms) ? isnan(was) : s->rtt_ms == was;
        s->out = (struct gt_store_outcome){same ? GT_SAMPLE_DUPLICATE : GT_SAMPLE_CONFLICT, was};
        conflicts += !same;
    }
    PQclear(res);
    if (rc == GT_OK && replace && conflicts) {
        if ((rc = pg_run(db, PG_STAGE_REPLACE, p, NULL, NULL, false, &res, err)) == GT_OK)
            PQclear(res);
        for (size_t i = 0; rc == GT_OK && i < n; i++)
            if (v[ords[i]].out.what == GT_SAMPLE_CONFLICT)
                v[ords[i]].out.what = GT_SAMPLE_REPLACED;
    }
    free(arr);
    return rc;
}

/* A batch whose keys are all new goes straight into samples by COPY; one
 * that may hold a taken key (samples has rows in one of its pairs' time
 * ranges) goes through the staging table, whose insert skips taken keys,
 * and so does one whose COPY met a key taken since (a concurrent writer's),
 * undone by its savepoint. */
int pg_put_samples(struct gt_db_writer *base, struct gt_sample_put *v, size_t n, bool replace,
                   struct gt_error *err)
{
    struct pg_writer *w = (struct pg_writer *)base;
    struct gt_db *db = base->db;
    bool maybe = false, stored = false;
    int rc;
    if ((rc = partitions_for(db, v, n, err)) || (rc = sort_batch(w, v, n, err)) ||
        (rc = maybe_taken(w, n, &maybe, err)) ||
        (!maybe && (rc = copy_direct(w, v, n, &stored, err))))
        return rc;
    for (size_t i = 0; i < n; i++)
        v[i].out = (struct gt_store_outcome){GT_SAMPLE_STORED, NAN};
    if (stored)
        return note_newest(w, n, true, err);
    int *taken = NULL;
    size_t nt = 0;
    if ((rc = stage_fill(w, v, n, err)) == GT_OK &&
        (rc = stage_insert(w, n, &taken, &nt, err)) == GT_OK && nt)
        rc = settle_taken(db, v, taken, nt, replace, err);
    free(taken);
    if (rc == GT_OK)
        rc = note_newest(w, n, nt == 0, err);
    return rc;
}

int pg_source_get(struct gt_db *db, const char *key, int64_t *id, int64_t *cursor,
                  bool *has_cursor, struct gt_error *err)
{
    const char *v[1] = {key};
    PGresult *res;
    int rc = pg_run(db, PG_SOURCE_GET, v, NULL, NULL, false, &res, err);
    if (rc)
        return rc;
    *id = 0;
    *has_cursor = false;
    if (PQntuples(res)) {
        *id = pg_col_i64(res, 0, 0);
        *has_cursor = !PQgetisnull(res, 0, 1);
        *cursor = *has_cursor ? pg_col_i64(res, 0, 1) : 0;
    }
    PQclear(res);
    return GT_OK;
}

int pg_source_advance(struct gt_db *db, const char *key, const char *format, bool has_ts,
                      int64_t max_ts, int64_t now, int64_t ahead, int64_t *id,
                      struct gt_error *err)
{
    char ts[24], at[24], past[24];
    pg_i64(ts, sizeof ts, max_ts);
    pg_i64(at, sizeof at, now);
    pg_i64(past, sizeof past, ahead);   /* a cursor past it is replaced */
    const char *v[5] = {key, format, has_ts ? ts : NULL, at, past};
    PGresult *res;
    int rc = pg_run(db, PG_SOURCE_ADVANCE, v, NULL, NULL, false, &res, err);
    if (rc)
        return rc;
    *id = PQntuples(res) ? pg_col_i64(res, 0, 0) : 0;
    PQclear(res);
    return GT_OK;
}

int pg_log_run(struct gt_db *db, const struct gt_log_row *row, struct gt_error *err)
{
    char n[9][24];
    pg_i64(n[0], sizeof n[0], row->source);
    pg_i64(n[1], sizeof n[1], row->started);
    pg_i64(n[2], sizeof n[2], row->finished);
    pg_i64(n[3], sizeof n[3], row->read);
    pg_i64(n[4], sizeof n[4], row->stored);
    pg_i64(n[5], sizeof n[5], row->duplicates);
    pg_i64(n[6], sizeof n[6], row->rejected);
    pg_i64(n[7], sizeof n[7], row->skipped);
    pg_i64(n[8], sizeof n[8], row->conflicts);
    const char *v[13] = {row->source ? n[0] : NULL, row->format, row->input, n[1], n[2],
                         n[3], n[4], n[5], n[6], n[7], row->status, row->message, n[8]};
    PGresult *res;
    int rc = pg_run(db, PG_LOG_RUN, v, NULL, NULL, false, &res, err);
    PQclear(res);
    return rc;
}

int pg_sources(struct gt_db *db, gt_source_fn each, void *ctx, struct gt_error *err)
{
    PGresult *res;
    int rc = pg_query(db, "SELECT url, format, cursor_ts, updated_at FROM sources"
                          " ORDER BY url COLLATE \"C\"", &res, err);
    for (int i = 0; rc == GT_OK && i < PQntuples(res); i++) {
        struct gt_source_row s = {PQgetvalue(res, i, 0), PQgetvalue(res, i, 1),
                                  !PQgetisnull(res, i, 2), pg_col_i64(res, i, 2),
                                  pg_col_i64(res, i, 3)};
        rc = each(ctx, &s);
    }
    PQclear(res);
    return rc;
}
