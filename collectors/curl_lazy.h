/*
 * curl_lazy.h - libcurl, loaded on its first use instead of at start-up.
 *
 * Linked, libcurl and what it pulls in (OpenSSL, Kerberos, LDAP, nghttp2,
 * ...) were mapped by every start of gridtail, though only fetching a URL
 * needs them (base/lazylib.h says why that matters).  Here libcurl's
 * functions are a table filled by dlsym, and the macros below send the
 * calls of http.c, the only user, through it unchanged.  curl/curl.h
 * still gives the types and constants: libcurl4-openssl-dev stays a build
 * dependency, its runtime package libcurl4 a run-time one.
 *
 * curl_lazy_load() must have succeeded before any other call: it opens
 * the library once per process (thread-safe) and runs curl_global_init.
 */
#ifndef GT_CURL_LAZY_H
#define GT_CURL_LAZY_H

#include "base/error.h"
#include "base/lazylib.h"

#include <curl/curl.h>

/* The SONAME the binary was linked with (objdump -p): these headers' ABI. */
#define CURL_LAZY_SONAME "libcurl.so.4"

/* The functions gridtail calls. */
#define CURL_LAZY_FUNCS(X)                                                         \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_perform) \
    X(curl_easy_getinfo) X(curl_easy_cleanup) X(curl_easy_strerror)                \
    X(curl_easy_escape) X(curl_free) X(curl_slist_append) X(curl_slist_free_all)

struct curl_lazy_table {
    CURL_LAZY_FUNCS(GT_LAZY_FIELD)
};

/* Filled by curl_lazy_load; read-only afterwards. */
extern struct curl_lazy_table curl_lazy;

/* GT_OK when libcurl is loaded (the first call loads it); else GT_EIO,
 * "libcurl.so.4 cannot be loaded: ..." in err (may be NULL). */
int curl_lazy_load(struct gt_error *err);

/* The calls, through the table.  typecheck-gcc.h made the first two
 * macros that check their arguments' types: that check is given up. */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_easy_setopt(...) curl_lazy.curl_easy_setopt(__VA_ARGS__)
#define curl_easy_getinfo(...) curl_lazy.curl_easy_getinfo(__VA_ARGS__)
#define curl_global_init(...) curl_lazy.curl_global_init(__VA_ARGS__)
#define curl_easy_init(...) curl_lazy.curl_easy_init(__VA_ARGS__)
#define curl_easy_perform(...) curl_lazy.curl_easy_perform(__VA_ARGS__)
#define curl_easy_cleanup(...) curl_lazy.curl_easy_cleanup(__VA_ARGS__)
#define curl_easy_strerror(...) curl_lazy.curl_easy_strerror(__VA_ARGS__)
#define curl_easy_escape(...) curl_lazy.curl_easy_escape(__VA_ARGS__)
#define curl_free(...) curl_lazy.curl_free(__VA_ARGS__)
#define curl_slist_append(...) curl_lazy.curl_slist_append(__VA_ARGS__)
#define curl_slist_free_all(...) curl_lazy.curl_slist_free_all(__VA_ARGS__)

#endif
