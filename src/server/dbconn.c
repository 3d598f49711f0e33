/*
 * dbconn.c - see dbconn.h.
 *
 * Each server thread keeps its own connection to the store across
 * requests: opening one (pragmas, reading the schema) cost a third of a
 * served estimate.  Nothing is held between requests, so each request
 * still reads a fresh snapshot; a store that was replaced or removed
 * (another inode at the path) is opened again, or answered 503.
 */
#define _DEFAULT_SOURCE   /* strdup */
#include "dbconn.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

const char *gt_dbconn_addr(const struct gt_server_opts *o)
{
    const char *r = o->cfg->db_read_url;
    return r && r[0] ? r : o->db_path;
}

const char *gt_dbconn_unavailable(const struct gt_server_opts *o, const struct gt_error *err,
                                  const char *otherwise)
{
    if (!gt_db_is_file(gt_dbconn_addr(o)))
        return "its database server cannot be reached or refused the connection";
    return err->msg[0] ? err->msg : otherwise;
}

/* Whether reads have a primary to fall back on: a read_url apart from
 * the store pushes write to. */
static bool has_fallback(const struct gt_server_opts *o)
{
    const char *r = o->cfg->db_read_url;
    return r && r[0] && strcmp(r, o->db_path) != 0;
}

/* Open the store for reading: read_url, else (it cannot be reached) the
 * primary, so that a standby down is not every read's 503. */
static int open_read(const struct gt_server_opts *o, const char **addr, struct gt_db **db,
                     struct gt_error *err)
{
    *addr = gt_dbconn_addr(o);
    int rc = gt_db_open(*addr, GT_DB_READ, o->cfg->busy_timeout_ms, db, err);
    if (rc && has_fallback(o)) {
        gt_error_clear(err);
        *addr = o->db_path;
        rc = gt_db_open(*addr, GT_DB_READ, o->cfg->busy_timeout_ms, db, err);
    }
    return rc;
}

struct gt_answer gt_dbconn_open(const struct gt_server_opts *o, struct gt_db **db)
{
    struct gt_error err = {0};
    const char *addr;
    if (open_read(o, &addr, db, &err))
        return gt_answer_fail(MHD_HTTP_SERVICE_UNAVAILABLE, NULL,
                              "the store is not available: %s",
                              gt_dbconn_unavailable(o, &err, "cannot open it"));
    return (struct gt_answer){.status = 0};
}

struct worker_db {
    struct gt_db *db;
    dev_t dev;
    ino_t ino;
    char *path;
    time_t fell_back;         /* on the primary since (read_url down); 0: not */
};

/* A worker on the primary tries read_url again this often. */
#define STANDBY_RETRY_S 10

static pthread_key_t worker_db_key;
static pthread_once_t worker_db_once = PTHREAD_ONCE_INIT;

static void worker_db_free(void *p)
{
    struct worker_db *w = p;
    if (w) {
        gt_db_close(w->db);
        free(w->path);
        free(w);
    }
}

static void worker_db_key_make(void)
{
    pthread_key_create(&worker_db_key, worker_db_free);
}

struct gt_db *gt_dbconn_worker(const struct gt_server_opts *o, struct gt_error *err)
{
    pthread_once(&worker_db_once, worker_db_key_make);
    struct worker_db *w = pthread_getspecific(worker_db_key);
    struct stat st = {0};
    /* a store at a URL has no inode to watch: its connection reconnects */
    const char *addr = gt_dbconn_addr(o);
    bool there = !gt_db_is_file(addr) || stat(addr, &st) == 0;
    /* on the primary since read_url went down: back to it when it answers */
    bool retry = w && w->fell_back && time(NULL) - w->fell_back >= STANDBY_RETRY_S;
    if (w && (retry || !there || w->dev != st.st_dev || w->ino != st.st_ino ||
              (!w->fell_back && strcmp(w->path, addr)) || !gt_db_usable(w->db))) {
        worker_db_free(w);
        pthread_setspecific(worker_db_key, w = NULL);
    }
    if (w)
        return w->db;
    if (!there) {
        gt_error_set(err, GT_EIO, NULL, "cannot open it");
        return NULL;
    }
    struct gt_db *db;
    const char *opened;
    if (open_read(o, &opened, &db, err) != GT_OK)
        return NULL;
    if (!(w = calloc(1, sizeof *w)) || !(w->path = strdup(addr))) {
        free(w);
        gt_db_close(db);
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    *w = (struct worker_db){db, st.st_dev, st.st_ino, w->path,
                            opened != addr ? time(NULL) : 0};
    pthread_setspecific(worker_db_key, w);
    return db;
}
