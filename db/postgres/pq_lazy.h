/*
 * pq_lazy.h - libpq, loaded on its first use instead of at start-up.
 *
 * Linked, libpq and what it pulls in (OpenSSL, Kerberos, LDAP) were
 * mapped by every start of gridtail, though only a PostgreSQL store needs
 * them (base/lazylib.h says why that matters).  Here libpq's functions
 * are a table filled by dlsym, and the macros below send the calls of
 * db/postgres/ through it unchanged.  libpq-fe.h still gives the types
 * and constants: libpq-dev stays a build dependency, its runtime package
 * libpq5 a run-time one.
 *
 * pq_lazy_load() must have succeeded before any other call (pg_open and
 * the backend's library_version call it): it opens the library once per
 * process (thread-safe).
 */
#ifndef GT_PQ_LAZY_H
#define GT_PQ_LAZY_H

#include "base/error.h"
#include "base/lazylib.h"

#include <libpq-fe.h>

/* The SONAME the binary was linked with (objdump -p): these headers' ABI. */
#define PQ_LAZY_SONAME "libpq.so.5"

/* The functions gridtail calls. */
#define PQ_LAZY_FUNCS(X) \
    X(PQclear) X(PQconnectdb) X(PQconninfoFree) X(PQconninfoParse) X(PQerrorMessage) \
    X(PQexec) X(PQexecParams) X(PQexecPrepared) X(PQfinish) X(PQfreemem)             \
    X(PQgetResult) X(PQgetisnull) X(PQgetlength) X(PQgetvalue) X(PQlibVersion)       \
    X(PQnfields) X(PQntuples) X(PQprepare) X(PQputCopyData) X(PQputCopyEnd)          \
    X(PQreset) X(PQresultErrorField) X(PQresultErrorMessage) X(PQresultStatus)       \
    X(PQsendQueryPrepared) X(PQsetNoticeProcessor) X(PQsetSingleRowMode) X(PQstatus) \
    X(PQtransactionStatus) X(PQunescapeBytea)

struct pq_lazy_table {
    PQ_LAZY_FUNCS(GT_LAZY_FIELD)
};

/* Filled by pq_lazy_load; read-only afterwards. */
extern struct pq_lazy_table pq_lazy;

/* GT_OK when libpq is loaded (the first call loads it); else GT_EIO,
 * "libpq.so.5 cannot be loaded: ..." in err (may be NULL). */
int pq_lazy_load(struct gt_error *err);

/* The calls, through the table. */
#define PQclear(...) pq_lazy.PQclear(__VA_ARGS__)
#define PQconnectdb(...) pq_lazy.PQconnectdb(__VA_ARGS__)
#define PQconninfoFree(...) pq_lazy.PQconninfoFree(__VA_ARGS__)
#define PQconninfoParse(...) pq_lazy.PQconninfoParse(__VA_ARGS__)
#define PQerrorMessage(...) pq_lazy.PQerrorMessage(__VA_ARGS__)
#define PQexec(...) pq_lazy.PQexec(__VA_ARGS__)
#define PQexecParams(...) pq_lazy.PQexecParams(__VA_ARGS__)
#define PQexecPrepared(...) pq_lazy.PQexecPrepared(__VA_ARGS__)
#define PQfinish(...) pq_lazy.PQfinish(__VA_ARGS__)
#define PQfreemem(...) pq_lazy.PQfreemem(__VA_ARGS__)
#define PQgetResult(...) pq_lazy.PQgetResult(__VA_ARGS__)
#define PQgetisnull(...) pq_lazy.PQgetisnull(__VA_ARGS__)
#define PQgetlength(...) pq_lazy.PQgetlength(__VA_ARGS__)
#define PQgetvalue(...) pq_lazy.PQgetvalue(__VA_ARGS__)
#define PQlibVersion(...) pq_lazy.PQlibVersion(__VA_ARGS__)
#define PQnfields(...) pq_lazy.PQnfields(__VA_ARGS__)
#define PQntuples(...) pq_lazy.PQntuples(__VA_ARGS__)
#define PQprepare(...) pq_lazy.PQprepare(__VA_ARGS__)
#define PQputCopyData(...) pq_lazy.PQputCopyData(__VA_ARGS__)
#define PQputCopyEnd(...) pq_lazy.PQputCopyEnd(__VA_ARGS__)
#define PQreset(...) pq_lazy.PQreset(__VA_ARGS__)
#define PQresultErrorField(...) pq_lazy.PQresultErrorField(__VA_ARGS__)
#define PQresultErrorMessage(...) pq_lazy.PQresultErrorMessage(__VA_ARGS__)
#define PQresultStatus(...) pq_lazy.PQresultStatus(__VA_ARGS__)
#define PQsendQueryPrepared(...) pq_lazy.PQsendQueryPrepared(__VA_ARGS__)
#define PQsetNoticeProcessor(...) pq_lazy.PQsetNoticeProcessor(__VA_ARGS__)
#define PQsetSingleRowMode(...) pq_lazy.PQsetSingleRowMode(__VA_ARGS__)
#define PQstatus(...) pq_lazy.PQstatus(__VA_ARGS__)
#define PQtransactionStatus(...) pq_lazy.PQtransactionStatus(__VA_ARGS__)
#define PQunescapeBytea(...) pq_lazy.PQunescapeBytea(__VA_ARGS__)

#endif
