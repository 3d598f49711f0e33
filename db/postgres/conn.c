/*
 * conn.c - the PostgreSQL backend's connection: opening by a libpq
 * address, schema migrations under an advisory lock, transactions, the
 * statements prepared once per connection, reconnection after a lost
 * connection, and the backend's table of functions.
 *
 * A read is one snapshot (REPEATABLE READ, READ ONLY); a write is READ
 * COMMITTED (the duplicate and conflict rules need a concurrent writer's
 * committed keys), and its commit moves gt_meta.data_version, which
 * stands for SQLite's PRAGMA data_version.
 */
#define _POSIX_C_SOURCE 200809L
#include "pg.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libpq's messages end in a newline; ours do not. */
static const char *trimmed(const char *msg, char *buf, size_t size)
{
    snprintf(buf, size, "%s", msg && *msg ? msg : "unknown error");
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return buf;
}

int pg_fail(struct gt_db *db, struct gt_error *err, const char *what, const PGresult *res)
{
    char buf[512];
    /* the primary message: not the "LINE 1: ..." context that follows */
    const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (!msg || !*msg)
        msg = PQerrorMessage(pg(db)->conn);
    /* the server went away (stopped, restarted, a standby promoted):
       not this statement's fault, and worth a try again later */
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    bool gone = PQstatus(pg(db)->conn) == CONNECTION_BAD ||
                (state && (!strncmp(state, "08", 2) || !strncmp(state, "57P", 3)));
    if (gone)
        return gt_error_set(err, GT_EDB, db->addr, "%s: the database server is not "
                            "available: %s", what, trimmed(msg, buf, sizeof buf));
    return gt_error_set(err, GT_EDB, db->addr, "%s: %s", what, trimmed(msg, buf, sizeof buf));
}

void pg_i64(char *buf, size_t size, int64_t v)
{
    snprintf(buf, size, "%" PRId64, v);
}

const char *pg_f64(char *buf, size_t size, double v)
{
    if (isnan(v))
        return NULL;
    snprintf(buf, size, "%.17g", v);   /* reads back to the same double */
    return buf;
}

int64_t pg_col_i64(const PGresult *res, int row, int col)
{
    return strtoll(PQgetvalue(res, row, col), NULL, 10);
}

double pg_col_f64(const PGresult *res, int row, int col)
{
    return PQgetisnull(res, row, col) ? NAN : strtod(PQgetvalue(res, row, col), NULL);
}

/* 8 bytes of network order, or 0 when the value is not 8 bytes long */
static uint64_t bin_u64(const PGresult *res, int row, int col)
{
    const unsigned char *p = (const unsigned char *)PQgetvalue(res, row, col);
    uint64_t v = 0;
    if (PQgetlength(res, row, col) != 8)
        return 0;
    for (int k = 0; k < 8; k++)
        v = v << 8 | p[k];
    return v;
}

int64_t pg_bin_i64(const PGresult *res, int row, int col)
{
    return (int64_t)bin_u64(res, row, col);
}

double pg_bin_f64(const PGresult *res, int row, int col)
{
    if (PQgetisnull(res, row, col))
        return NAN;
    uint64_t v = bin_u64(res, row, col);
    double d;
    memcpy(&d, &v, sizeof d);   /* IEEE 754 binary64 on both ends */
    return d;
}

char *pg_col_dup(const PGresult *res, int row, int col)
{
    return PQgetisnull(res, row, col) ? NULL : strdup(PQgetvalue(res, row, col));
}

static bool ok(const PGresult *res)
{
    ExecStatusType s = PQresultStatus(res);
    return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK || s == PGRES_SINGLE_TUPLE;
}

/* A lost connection comes back between transactions: the server keeps
 * answering once PostgreSQL is up again, without a restart. */
static void reconnect_if_lost(struct gt_db *db)
{
    struct pg_db *p = pg(db);
    if (PQstatus(p->conn) == CONNECTION_OK)
        return;
    PQreset(p->conn);
    memset(p->prepared, 0, sizeof p->prepared);
    p->writing = false;
    p->stage_made = false;
}

/* A statement sent between transactions found the connection gone (the
 * server restarted since the last one; libpq notices only on use): a
 * fresh connection, on which it runs again.  Outside a transaction this
 * backend sends only reads, BEGIN, settings and upserts, which running
 * twice leaves as once.  Inside a transaction the error stands: the
 * transaction is lost with the connection, and its caller rolls back. */
static bool lost_between_transactions(struct gt_db *db, bool was_idle)
{
    if (!was_idle || PQstatus(pg(db)->conn) != CONNECTION_BAD)
        return false;
    reconnect_if_lost(db);
    return PQstatus(pg(db)->conn) == CONNECTION_OK;
}

static int prepare(struct gt_db *db, enum pg_stmt id, struct gt_error *err)
{
    struct pg_db *p = pg(db);
    if (p->prepared[id])
        return GT_OK;
    char name[16];
    snprintf(name, sizeof name, "gt%d", (int)id);
    PGresult *res = PQprepare(p->conn, name, pg_stmt_sql(id), pg_stmt_nparams(id), NULL);
    int rc = ok(res) ? GT_OK : pg_fail(db, err, "preparing a statement", res);
    PQclear(res);
    p->prepared[id] = rc == GT_OK;
    return rc;
}

int pg_prepared(struct gt_db *db, enum pg_stmt id, char name[16], struct gt_error *err)
{
    if (!pg_in_transaction(db))
        reconnect_if_lost(db);
    snprintf(name, 16, "gt%d", (int)id);
    return prepare(db, id, err);
}

int pg_run(struct gt_db *db, enum pg_stmt id, const char *const *values, const int *lengths,
           const int *formats, bool result_binary, PGresult **res, struct gt_error *err)
{
    *res = NULL;
    char name[16];
    int rc = pg_prepared(db, id, name, err);
    if (rc)
        return rc;
    bool idle = !pg_in_transaction(db);
    *res = PQexecPrepared(pg(db)->conn, name, pg_stmt_nparams(id), values, lengths, formats,
                          result_binary);
    if (!ok(*res) && lost_between_transactions(db, idle)) {   /* once more, reconnected */
        PQclear(*res);
        *res = NULL;
        if ((rc = pg_prepared(db, id, name, err)))
            return rc;
        *res = PQexecPrepared(pg(db)->conn, name, pg_stmt_nparams(id), values, lengths,
                              formats, result_binary);
    }
    if (ok(*res))
        return GT_OK;
    rc = pg_fail(db, err, "running a statement", *res);
    PQclear(*res);
    *res = NULL;
    return rc;
}

int pg_query(struct gt_db *db, const char *sql, PGresult **res, struct gt_error *err)
{
    bool idle = !pg_in_transaction(db);
    if (idle)
        reconnect_if_lost(db);
    *res = PQexec(pg(db)->conn, sql);
    if (!ok(*res) && lost_between_transactions(db, idle)) {   /* once more, reconnected */
        PQclear(*res);
        *res = PQexec(pg(db)->conn, sql);
    }
    if (ok(*res))
        return GT_OK;
    int rc = pg_fail(db, err, "running SQL", *res);
    PQclear(*res);
    *res = NULL;
    return rc;
}

int pg_exec(struct gt_db *db, const char *sql, struct gt_error *err)
{
    PGresult *res;
    int rc = pg_query(db, sql, &res, err);
    PQclear(res);
    return rc;
}

int pg_scalar(struct gt_db *db, const char *sql, long long *v, struct gt_error *err)
{
    PGresult *res;
    int rc = pg_query(db, sql, &res, err);
    if (rc)
        return rc;
    *v = PQntuples(res) && PQnfields(res) && !PQgetisnull(res, 0, 0) ? pg_col_i64(res, 0, 0)
                                                                     : 0;
    PQclear(res);
    return GT_OK;
}

int pg_exec_text(struct gt_db *db, const char *sql, struct gt_error *err)
{
    return pg_exec(db, sql, err);
}

bool pg_in_transaction(struct gt_db *db)
{
    PGTransactionStatusType t = PQtransactionStatus(pg(db)->conn);
    return t != PQTRANS_IDLE && t != PQTRANS_UNKNOWN;
}

int pg_begin_read(struct gt_db *db, struct gt_error *err)
{
    return pg_exec(db, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", err);
}

int pg_begin_write(struct gt_db *db, struct gt_error *err)
{
    if (db->readonly)
        return gt_error_set(err, GT_EDB, db->addr, "the store is read-only here (a standby)");
    int rc = pg_exec(db, "BEGIN", err);
    pg(db)->writing = rc == GT_OK;
    return rc;
}

/* Writers do not lock each other out of PostgreSQL: the same as begin. */
int pg_try_begin_write(struct gt_db *db, long wait_ms)
{
    (void)wait_ms;
    return pg_begin_write(db, NULL);
}

int pg_commit(struct gt_db *db, struct gt_error *err)
{
    int rc = GT_OK;
    if (pg(db)->writing) {
        PGresult *res;
        if ((rc = pg_run(db, PG_BUMP_VERSION, NULL, NULL, NULL, false, &res, err)) == GT_OK)
            PQclear(res);
    }
    pg(db)->writing = false;
    if (rc == GT_OK)
        rc = pg_exec(db, "COMMIT", err);
    if (rc)
        pg_rollback(db);
    return rc;
}

void pg_rollback(struct gt_db *db)
{
    pg(db)->writing = false;
    pg(db)->stage_made = false;   /* it may have been made in what rolls back */
    if (pg_in_transaction(db))
        PQclear(PQexec(pg(db)->conn, "ROLLBACK"));
}

int pg_data_version(struct gt_db *db, int64_t *version, struct gt_error *err)
{
    PGresult *res;
    int rc = pg_run(db, PG_DATA_VERSION, NULL, NULL, NULL, false, &res, err);
    if (rc)
        return rc;
    *version = PQntuples(res) ? pg_col_i64(res, 0, 0) : 0;
    PQclear(res);
    return GT_OK;
}

/* The cache is PostgreSQL's (shared_buffers), not this process's. */
int pg_set_cache_mb(struct gt_db *db, long mb, struct gt_error *err)
{
    (void)db, (void)mb, (void)err;
    return GT_OK;
}

/* A session advisory lock keyed by the name's hash: every host's
 * gridtail on this database sees it; it goes with the connection. */
static int pg_lock(struct gt_db *db, const char *name, bool wait, bool *got,
                   struct gt_error *err)
{
    const char *v[1] = {name};
    PGresult *res = PQexecParams(pg(db)->conn, wait
                                 ? "SELECT pg_advisory_lock(hashtext($1)), true"
                                 : "SELECT 0, pg_try_advisory_lock(hashtext($1))",
                                 1, NULL, v, NULL, NULL, 0);
    int rc = PQresultStatus(res) == PGRES_TUPLES_OK ? GT_OK
                                                    : pg_fail(db, err, "taking a lock", res);
    *got = rc == GT_OK && !strcmp(PQgetvalue(res, 0, 1), "t");
    PQclear(res);
    return rc;
}

static void pg_unlock(struct gt_db *db, const char *name)
{
    const char *v[1] = {name};
    PQclear(PQexecParams(pg(db)->conn, "SELECT pg_advisory_unlock(hashtext($1))", 1, NULL, v,
                         NULL, NULL, 0));
}

int pg_db_size(struct gt_db *db, long long *bytes, struct gt_error *err)
{
    PGresult *res;
    int rc = pg_query(db, "SELECT pg_database_size(current_database())", &res, err);
    if (rc == GT_OK) {
        *bytes = pg_col_i64(res, 0, 0);
        PQclear(res);
    }
    return rc;
}

/* Dropped partitions gave their space back already (the size before
 * them is prune's, size_before_prune); VACUUM makes the
 * space of deleted rows reusable (FULL: returns it to the file system,
 * locking each table while it rewrites it). */
int pg_reclaim(struct gt_db *db, bool full, long long *before, long long *after,
               struct gt_error *err)
{
    int rc;
    if ((rc = pg_db_size(db, before, err)) ||
        (rc = pg_exec(db, full ? "VACUUM FULL samples" : "VACUUM samples", err)))
        return rc;
    /* what prune's dropped partitions gave back counts too */
    if (pg(db)->size_before_prune > *before)
        *before = pg(db)->size_before_prune;
    pg(db)->size_before_prune = 0;
    return pg_db_size(db, after, err);
}

int pg_version(struct gt_db *db, int *version, struct gt_error *err)
{
    PGresult *res;
    int rc = pg_query(db, "SELECT to_regclass('gt_meta') IS NOT NULL", &res, err);
    if (rc)
        return rc;
    bool made = !strcmp(PQgetvalue(res, 0, 0), "t");
    PQclear(res);
    *version = 0;
    if (!made)
        return GT_OK;
    if ((rc = pg_query(db, "SELECT schema_version FROM gt_meta", &res, err)))
        return rc;
    *version = (int)pg_col_i64(res, 0, 0);
    PQclear(res);
    return GT_OK;
}

static int newer(struct gt_db *db, int version, struct gt_error *err)
{
    return gt_error_set(err, GT_ESCHEMA, db->addr,
                        "database schema version %d is newer than this gridtail supports "
                        "(%d): upgrade gridtail", version, pg_schema_count());
}

int pg_migrate_to(struct gt_db *db, int target, struct gt_error *err)
{
    int version, rc = pg_version(db, &version, err);
    if (rc)
        return rc;
    if (version > pg_schema_count())
        return newer(db, version, err);
    if (version >= target)
        return GT_OK;
    /* one migrator at a time; the version is read again under the lock */
    if ((rc = pg_exec(db, "BEGIN; SELECT pg_advisory_xact_lock(7368424)", err)) ||
        (rc = pg_version(db, &version, err)))
        goto fail;
    for (; version < target; version++) {
        char sql[96];
        snprintf(sql, sizeof sql, "UPDATE gt_meta SET schema_version = %d", version + 1);
        if ((rc = pg_exec(db, pg_schema_step(version), err)) || (rc = pg_exec(db, sql, err)))
            goto fail;
    }
    return pg_exec(db, "COMMIT", err);
fail:
    pg_rollback(db);
    return rc;
}

/* A password in the address would show in ps, shell history and logs:
 * libpq's own ways keep it (PGPASSFILE, ~/.pgpass, a service file,
 * client certificates).  The message does not repeat the address. */
static int refuse_password(const char *addr, struct gt_error *err)
{
    char *msg = NULL;
    PQconninfoOption *opts = PQconninfoParse(addr, &msg);
    if (!opts) {
        char buf[256];
        int rc = gt_error_set(err, GT_EUSAGE, NULL, "not a PostgreSQL address: %s",
                              trimmed(msg, buf, sizeof buf));
        PQfreemem(msg);
        return rc;
    }
    bool has = false;
    for (PQconninfoOption *o = opts; o->keyword; o++)
        if (!strcmp(o->keyword, "password") && o->val && *o->val)
            has = true;
    PQconninfoFree(opts);
    if (has)
        return gt_error_set(err, GT_EUSAGE, NULL,
                            "the database address holds a password: keep it out of "
                            "addresses (PGPASSFILE or ~/.pgpass, a service file, or a "
                            "client certificate)");
    return GT_OK;
}

/* Notices (a table that already exists, ...) are not the user's news. */
static void quiet(void *arg, const char *message)
{
    (void)arg, (void)message;
}

/* What libpq's message says went wrong, in the words an operator acts on
 * (the message itself follows): the password or method, the database or
 * role named, TLS, else the server (down, unreachable, refusing). */
static const char *connect_failure(const char *msg)
{
    if (strstr(msg, "password") || strstr(msg, "authentication"))
        return "authentication failed";
    if (strstr(msg, "database \"") && strstr(msg, "does not exist"))
        return "no such database";
    if (strstr(msg, "role \"") && strstr(msg, "does not exist"))
        return "no such role";
    if (strstr(msg, "SSL") || strstr(msg, "certificate") || strstr(msg, "TLS"))
        return "TLS refused";
    return "the database server is not available";
}

static int connect_db(struct pg_db *p, const char *addr, struct gt_error *err)
{
    p->conn = PQconnectdb(addr);
    if (!p->conn)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    PQsetNoticeProcessor(p->conn, quiet, NULL);
    if (PQstatus(p->conn) != CONNECTION_OK) {
        /* said as pg_fail says a server gone: a request that opens a
           connection of its own mid-answer (a replay's) then gets the
           same "try again later" as one whose connection dropped */
        char buf[512];
        const char *msg = trimmed(PQerrorMessage(p->conn), buf, sizeof buf);
        return gt_error_set(err, GT_EIO, addr, "cannot connect: %s: %s", connect_failure(msg),
                            msg);
    }
    /* doubles as the shortest text that reads back exactly; times are
       integers and need no zone */
    return pg_exec(&p->base, "SET extra_float_digits = 1; SET application_name = 'gridtail'",
                   err);
}

static int check_store(struct gt_db *db, enum gt_db_mode mode, struct gt_error *err)
{
    int version, rc;
    PGresult *res;
    if ((rc = pg_query(db, "SELECT pg_is_in_recovery()", &res, err)))
        return rc;
    db->readonly = !strcmp(PQgetvalue(res, 0, 0), "t");
    PQclear(res);
    if ((rc = pg_version(db, &version, err)))
        return rc;
    if (version > pg_schema_count())
        return newer(db, version, err);
    if (version == 0 && mode != GT_DB_CREATE)
        return gt_error_set(err, GT_EIO, db->addr,
                            "no gridtail store in this database (create it with 'gridtail "
                            "init')");
    if (db->readonly && version != pg_schema_count())
        return gt_error_set(err, GT_EIO, db->addr,
                            "read-only store (a standby) at schema version %d, this binary "
                            "reads %d (upgrade the primary: gridtail init)", version,
                            pg_schema_count());
    db->created = version == 0;
    return db->readonly ? GT_OK : pg_migrate_to(db, pg_schema_count(), err);
}

bool pg_usable(struct gt_db *db)
{
    return PQstatus(pg(db)->conn) == CONNECTION_OK;
}

int pg_open(const char *addr, enum gt_db_mode mode, long busy_ms, struct gt_db **out,
            struct gt_error *err)
{
    *out = NULL;
    int rc = pq_lazy_load(err);
    if (rc || (rc = refuse_password(addr, err)))
        return rc;
    struct pg_db *p = calloc(1, sizeof *p);
    if (!p || !(p->base.addr = strdup(addr))) {
        free(p);
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    p->base.be = &gt_db_postgres;
    p->base.busy_ms = busy_ms;
    if ((rc = connect_db(p, addr, err)) || (rc = check_store(&p->base, mode, err))) {
        pg_close(&p->base);
        return rc;
    }
    *out = &p->base;
    return GT_OK;
}

void pg_close(struct gt_db *db)
{
    if (!db)
        return;
    struct pg_db *p = pg(db);
    if (p->conn)
        PQfinish(p->conn);
    if (p->side)
        PQfinish(p->side);
    free(p->parts);
    free(db->addr);
    free(p);
}

static bool claims(const char *addr)
{
    return !strncmp(addr, "postgresql://", 13) || !strncmp(addr, "postgres://", 11);
}

/* Loads libpq: `gridtail --version` is the one command that maps it
 * without opening a store. */
static const char *library_version(void)
{
    static char v[32];
    if (pq_lazy_load(NULL))
        return "(cannot be loaded)";
    int n = PQlibVersion();
    snprintf(v, sizeof v, "%d.%d", n / 10000, n % 10000);
    return v;
}

const struct gt_db_backend gt_db_postgres = {
    .name = "postgresql",
    .claims = claims,
    .library_version = library_version,
    .latest_version = pg_schema_count,
    .open = pg_open,
    .usable = pg_usable,
    .close = pg_close,
    .version = pg_version,
    .migrate_to = pg_migrate_to,
    .exec = pg_exec_text,
    .scalar = pg_scalar,
    .begin_read = pg_begin_read,
    .begin_write = pg_begin_write,
    .try_begin_write = pg_try_begin_write,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .in_transaction = pg_in_transaction,
    .data_version = pg_data_version,
    .set_cache_mb = pg_set_cache_mb,
    .lock = pg_lock,
    .unlock = pg_unlock,
    .reclaim = pg_reclaim,
    .writer_open = pg_writer_open,
    .writer_free = pg_writer_free,
    .site_id = pg_site_id,
    .pair_id = pg_pair_id,
    .batch_max = 65536,   /* a COPY per batch: its set-up paid once per 65,536 samples */
    .put_samples = pg_put_samples,
    .source_get = pg_source_get,
    .source_advance = pg_source_advance,
    .log_run = pg_log_run,
    .sources = pg_sources,
    .sites = pg_sites,
    .site_set_attrs = pg_site_set_attrs,
    .pair_count = pg_pair_count,
    .pair_ids = pg_pair_ids,
    .newest_by_src = pg_newest_by_src,
    .root_newest = pg_root_newest,
    .export = pg_export,
    .prune = pg_prune,
    .series = pg_series,
    .reader_new = pg_reader_new,
    .reader_free = pg_reader_free,
    .reader_site = pg_reader_site,
    .reader_read = pg_reader_read,
    .blob_get = pg_blob_get,
    .blob_put = pg_blob_put,
    .blob_delete = pg_blob_delete,
    .blob_scan = pg_blob_scan,
    .blob_delete_src = pg_blob_delete_src,
    .event_marks = pg_event_marks,
    .events_replace = pg_events_replace,
    .event_fit = pg_event_fit,
    .events_read = pg_events_read,
    .pair_range = pg_pair_range,
    .event_rewind = pg_event_rewind,
};
