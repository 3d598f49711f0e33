/*
 * mhd_lazy.h - libmicrohttpd, loaded when the server starts instead of
 * at every start of gridtail.
 *
 * Linked, libmicrohttpd and its TLS stack (GnuTLS, nettle, p11-kit,
 * libtasn1, ...) were mapped by every start of gridtail, though only
 * `gridtail serve` answers HTTP (base/lazylib.h says why that matters).
 * Here its functions are a table filled by dlsym, and the macros below
 * send the calls of server.c, guard.c and conns.c through it unchanged.
 * microhttpd.h still gives the types and constants (and is what the
 * server's headers include): libmicrohttpd-dev stays a build dependency,
 * its runtime package libmicrohttpd12 a run-time one.
 *
 * mhd_lazy_load() must have succeeded before any other call:
 * gt_server_start calls it, and every other call works on the daemon it
 * started or one of its connections.  It opens the library once per
 * process (thread-safe).
 */
#ifndef GT_MHD_LAZY_H
#define GT_MHD_LAZY_H

#include "base/error.h"
#include "base/lazylib.h"

#include <microhttpd.h>

/* The SONAME the binary was linked with (objdump -p): these headers' ABI. */
#define MHD_LAZY_SONAME "libmicrohttpd.so.12"

/* The functions gridtail calls. */
#define MHD_LAZY_FUNCS(X)                                                          \
    X(MHD_start_daemon) X(MHD_stop_daemon) X(MHD_quiesce_daemon)                   \
    X(MHD_get_daemon_info) X(MHD_get_connection_info) X(MHD_lookup_connection_value) \
    X(MHD_suspend_connection) X(MHD_resume_connection)                             \
    X(MHD_create_response_from_buffer) X(MHD_add_response_header)                  \
    X(MHD_queue_response) X(MHD_destroy_response)

struct mhd_lazy_table {
    MHD_LAZY_FUNCS(GT_LAZY_FIELD)
};

/* Filled by mhd_lazy_load; read-only afterwards. */
extern struct mhd_lazy_table mhd_lazy;

/* GT_OK when libmicrohttpd is loaded (the first call loads it); else
 * GT_EIO, "libmicrohttpd.so.12 cannot be loaded: ..." in err (may be
 * NULL). */
int mhd_lazy_load(struct gt_error *err);

/* The calls, through the table. */
#define MHD_start_daemon(...) mhd_lazy.MHD_start_daemon(__VA_ARGS__)
#define MHD_stop_daemon(...) mhd_lazy.MHD_stop_daemon(__VA_ARGS__)
#define MHD_quiesce_daemon(...) mhd_lazy.MHD_quiesce_daemon(__VA_ARGS__)
#define MHD_get_daemon_info(...) mhd_lazy.MHD_get_daemon_info(__VA_ARGS__)
#define MHD_get_connection_info(...) mhd_lazy.MHD_get_connection_info(__VA_ARGS__)
#define MHD_lookup_connection_value(...) mhd_lazy.MHD_lookup_connection_value(__VA_ARGS__)
#define MHD_suspend_connection(...) mhd_lazy.MHD_suspend_connection(__VA_ARGS__)
#define MHD_resume_connection(...) mhd_lazy.MHD_resume_connection(__VA_ARGS__)
#define MHD_create_response_from_buffer(...) \
    mhd_lazy.MHD_create_response_from_buffer(__VA_ARGS__)
#define MHD_add_response_header(...) mhd_lazy.MHD_add_response_header(__VA_ARGS__)
#define MHD_queue_response(...) mhd_lazy.MHD_queue_response(__VA_ARGS__)
#define MHD_destroy_response(...) mhd_lazy.MHD_destroy_response(__VA_ARGS__)

#endif
