/*
 * archive_lazy.h - libarchive, loaded on its first use instead of at
 * start-up.
 *
 * Linked, libarchive and what it needs (liblzma, libzstd, libbz2, liblz4,
 * libxml2 with ICU and libstdc++, libacl) were mapped by every start of
 * gridtail, though only the atlas and matrix formats read through it
 * (base/lazylib.h says why that matters).  Here its functions are a table
 * filled by dlsym, and the macros below send the calls of atlas.c and
 * matrix.c through it unchanged.  archive.h and archive_entry.h still
 * give the types and constants: libarchive-dev stays a build dependency,
 * its runtime package libarchive13 a run-time one.
 *
 * archive_lazy_load() must have succeeded before any other call: it
 * opens the library once per process (thread-safe).
 */
#ifndef GT_ARCHIVE_LAZY_H
#define GT_ARCHIVE_LAZY_H

#include "base/error.h"
#include "base/lazylib.h"

#include <archive.h>
#include <archive_entry.h>

/* The SONAME the binary was linked with (objdump -p): these headers' ABI. */
#define ARCHIVE_LAZY_SONAME "libarchive.so.13"

/* The functions gridtail calls. */
#define ARCHIVE_LAZY_FUNCS(X)                                                      \
    X(archive_read_new) X(archive_read_support_filter_all)                         \
    X(archive_read_support_format_all) X(archive_read_support_format_raw)          \
    X(archive_read_open_FILE) X(archive_read_next_header) X(archive_read_data)     \
    X(archive_read_free) X(archive_errno) X(archive_error_string) X(archive_format) \
    X(archive_entry_filetype) X(archive_entry_pathname)

struct archive_lazy_table {
    ARCHIVE_LAZY_FUNCS(GT_LAZY_FIELD)
};

/* Filled by archive_lazy_load; read-only afterwards. */
extern struct archive_lazy_table archive_lazy;

/* GT_OK when libarchive is loaded (the first call loads it); else GT_EIO,
 * "libarchive.so.13 cannot be loaded: ..." in err (may be NULL). */
int archive_lazy_load(struct gt_error *err);

/* The calls, through the table. */
#define archive_read_new(...) archive_lazy.archive_read_new(__VA_ARGS__)
#define archive_read_support_filter_all(...) \
    archive_lazy.archive_read_support_filter_all(__VA_ARGS__)
#define archive_read_support_format_all(...) \
    archive_lazy.archive_read_support_format_all(__VA_ARGS__)
#define archive_read_support_format_raw(...) \
    archive_lazy.archive_read_support_format_raw(__VA_ARGS__)
#define archive_read_open_FILE(...) archive_lazy.archive_read_open_FILE(__VA_ARGS__)
#define archive_read_next_header(...) archive_lazy.archive_read_next_header(__VA_ARGS__)
#define archive_read_data(...) archive_lazy.archive_read_data(__VA_ARGS__)
#define archive_read_free(...) archive_lazy.archive_read_free(__VA_ARGS__)
#define archive_errno(...) archive_lazy.archive_errno(__VA_ARGS__)
#define archive_error_string(...) archive_lazy.archive_error_string(__VA_ARGS__)
#define archive_format(...) archive_lazy.archive_format(__VA_ARGS__)
#define archive_entry_filetype(...) archive_lazy.archive_entry_filetype(__VA_ARGS__)
#define archive_entry_pathname(...) archive_lazy.archive_entry_pathname(__VA_ARGS__)

#endif
