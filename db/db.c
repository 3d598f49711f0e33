/*
 * db.c - opening a store through the backend that claims its address,
 * and the connection-level functions of db.h, which call that backend
 * (db/backend.h).  Nothing here knows a database's SQL.
 */
#include "db.h"
#include "backend.h"

#include <stddef.h>
#include <stdio.h>

/* The backends, asked in order; the last claims every plain path. */
static const struct gt_db_backend *const backends[] = {
    &gt_db_postgres,
    &gt_db_sqlite,
};

static const struct gt_db_backend *backend_for(const char *addr)
{
    for (size_t i = 0; i < sizeof backends / sizeof *backends; i++)
        if (backends[i]->claims(addr))
            return backends[i];
    return NULL;
}

bool gt_db_is_file(const char *addr)
{
    return backend_for(addr) == &gt_db_sqlite;
}

int gt_db_latest_version(void)
{
    return gt_db_sqlite.latest_version();
}

const char *gt_db_library_versions(void)
{
    static char v[96];
    snprintf(v, sizeof v, "%s, libpq %s", gt_db_sqlite.library_version(),
             gt_db_postgres.library_version());
    return v;
}

int gt_db_open(const char *addr, enum gt_db_mode mode, long busy_timeout_ms,
               struct gt_db **out, struct gt_error *err)
{
    *out = NULL;
    const struct gt_db_backend *be = backend_for(addr);
    if (!be)
        return gt_error_set(err, GT_EUSAGE, NULL,
                            "%s: not a store this gridtail can open (a file path, or "
                            "postgresql://...)", addr);
    return be->open(addr, mode, busy_timeout_ms, out, err);
}

void gt_db_close(struct gt_db *db)
{
    if (db)
        db->be->close(db);
}

const char *gt_db_address(const struct gt_db *db)
{
    return db->addr;
}

long gt_db_busy_ms(const struct gt_db *db)
{
    return db->busy_ms;
}

void gt_db_set_deadline(struct gt_db *db, int64_t deadline_ns)
{
    db->deadline_ns = deadline_ns;
}

bool gt_db_usable(struct gt_db *db)
{
    return !db->be->usable || db->be->usable(db);
}

bool gt_db_readonly(const struct gt_db *db)
{
    return db->readonly;
}

bool gt_db_created(const struct gt_db *db)
{
    return db->created;
}

int gt_db_reclaim(struct gt_db *db, bool full, long long *before, long long *after,
                  struct gt_error *err)
{
    return db->be->reclaim(db, full, before, after, err);
}

int gt_db_version(struct gt_db *db, int *version, struct gt_error *err)
{
    return db->be->version(db, version, err);
}

int gt_db_migrate_to(struct gt_db *db, int version, struct gt_error *err)
{
    return db->be->migrate_to(db, version, err);
}

int gt_db_exec(struct gt_db *db, const char *sql, struct gt_error *err)
{
    return db->be->exec(db, sql, err);
}

int gt_db_scalar(struct gt_db *db, const char *sql, long long *v, struct gt_error *err)
{
    return db->be->scalar(db, sql, v, err);
}

int gt_db_begin(struct gt_db *db, struct gt_error *err)
{
    return db->be->begin_write(db, err);
}

int gt_db_commit(struct gt_db *db, struct gt_error *err)
{
    return db->be->commit(db, err);
}

int gt_db_try_begin(struct gt_db *db)
{
    return db->be->try_begin_write(db, 0);
}

int gt_db_try_begin_within(struct gt_db *db, long wait_ms)
{
    return db->be->try_begin_write(db, wait_ms < db->busy_ms ? wait_ms : db->busy_ms);
}

int gt_db_data_version(struct gt_db *db, int64_t *version, struct gt_error *err)
{
    return db->be->data_version(db, version, err);
}

void gt_db_rollback(struct gt_db *db)
{
    db->be->rollback(db);
}

bool gt_db_in_transaction(struct gt_db *db)
{
    return db->be->in_transaction(db);
}

int gt_db_begin_read(struct gt_db *db, struct gt_error *err)
{
    return db->be->begin_read(db, err);
}

int gt_db_lock(struct gt_db *db, const char *name, void (*on_wait)(const char *name),
               struct gt_error *err)
{
    bool got = false;
    int rc = db->be->lock(db, name, false, &got, err);
    if (rc || got)
        return rc;
    if (on_wait)
        on_wait(name);
    return db->be->lock(db, name, true, &got, err);
}

void gt_db_unlock(struct gt_db *db, const char *name)
{
    db->be->unlock(db, name);
}

int gt_db_set_cache_mb(struct gt_db *db, long mb, struct gt_error *err)
{
    return db->be->set_cache_mb(db, mb, err);
}
