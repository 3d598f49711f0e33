/*
 * lazylib.h - a shared library opened on its first use (dlopen), not by
 * the dynamic linker at every start of gridtail.
 *
 * Why: a few libraries only some commands use (libcurl to fetch, libpq
 * for a PostgreSQL store, ...) bring, linked, dozens of others (TLS,
 * Kerberos, LDAP, HTTP/2, compressors) that every start of gridtail
 * mapped and relocated: most of the CPU time of a short command, and
 * make check starts gridtail thousands of times.
 *
 * Each such library has a small module that names its functions in a
 * table (collectors/curl_lazy.h, db/postgres/pq_lazy.h, ...) and fills
 * it with these calls, once per process under call_once.  The library
 * then stays open until the process ends.
 */
#ifndef GT_LAZYLIB_H
#define GT_LAZYLIB_H

#include <stdbool.h>

#include "base/error.h"

/* A module's table has one field per function, named and typed as the
 * library's header declares it (an X-macro list of the names):
 *
 *     #define CURL_LAZY_FUNCS(X) X(curl_easy_init) X(curl_easy_perform) ...
 *     struct curl_lazy_table { CURL_LAZY_FUNCS(GT_LAZY_FIELD) };
 *
 * and a function-like macro per name sends the calls through the table:
 *
 *     #define curl_easy_init(...) curl_lazy.curl_easy_init(__VA_ARGS__)
 *
 * (a macro does not expand itself again, and a name not followed by "("
 * is left alone, so the fields keep the library's own names). */
#define GT_LAZY_FIELD(f) __typeof__(f) *f;

/* The call that fills field f of table from lib (in the load function). */
#define GT_LAZY_SYM(table, lib, f) (table).f = (__typeof__((table).f))gt_lazylib_sym(lib, #f);

/* What dlsym gives, as a function pointer (the caller casts it to the
 * function's own type). */
typedef void (*gt_lazyfn)(void);

struct gt_lazylib {
    const char *soname;   /* the name the build linked: "libcurl.so.4" */
    void *handle;         /* NULL until opened */
    char why[256];        /* "" while nothing failed: dlerror()'s text */
};

/* Open lib->soname (RTLD_NOW | RTLD_LOCAL).  false with lib->why set. */
bool gt_lazylib_open(struct gt_lazylib *lib);

/* The function name of the opened library; NULL with lib->why set (the
 * first name missing is kept). */
gt_lazyfn gt_lazylib_sym(struct gt_lazylib *lib, const char *name);

/* GT_OK once the library and all its names were found; else GT_EIO with
 * "<soname> cannot be loaded: <why>" in err (may be NULL). */
int gt_lazylib_status(const struct gt_lazylib *lib, struct gt_error *err);

#endif
