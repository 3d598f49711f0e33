/*
 * dbconn.h - how the endpoints reach the store: where reads go
 * ([database] read_url, a hot standby, else the store pushes write to),
 * a connection opened per request, or the one each worker thread keeps,
 * and the 503 a client gets when the store cannot be read, which never
 * names the database path (that is the operator's business).
 */
#ifndef GT_DBCONN_H
#define GT_DBCONN_H

#include "answer.h"
#include "server.h"
#include "db/db.h"

/* Where reads go (borrowed from o). */
const char *gt_dbconn_addr(const struct gt_server_opts *o);

/* Why the store cannot be read, for a client: err's text for a file
 * store (its where has the path), a fixed sentence for a database server
 * (libpq's text names its host, port and database); otherwise when err
 * says nothing. */
const char *gt_dbconn_unavailable(const struct gt_server_opts *o, const struct gt_error *err,
                                  const char *otherwise);

/* Open the store for reading (caller closes *db): status 0, or the 503
 * to answer. */
struct gt_answer gt_dbconn_open(const struct gt_server_opts *o, struct gt_db **db);

/* The calling thread's own connection (borrowed: it lives as long as the
 * thread), opened again when the store at the path was replaced; NULL
 * with err when it cannot be opened. */
struct gt_db *gt_dbconn_worker(const struct gt_server_opts *o, struct gt_error *err);

#endif
