/*
 * error.c - the first-error-wins record and the status/exit-code tables.
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int gt_error_set(struct gt_error *err, int code, const char *where,
                 const char *fmt, ...)
{
    if (!err || err->code != GT_OK)
        return code;
    err->code = code;
    snprintf(err->where, sizeof err->where, "%s", where ? where : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

void gt_error_clear(struct gt_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

const char *gt_strerror(int code)
{
    switch (code) {
    case GT_OK: return "success";
    case GT_EUSAGE: return "usage error";
    case GT_EINPUT: return "bad input";
    case GT_EIO: return "I/O error";
    case GT_EDB: return "database error";
    case GT_ENOMEM: return "out of memory";
    case GT_ETOOBIG: return "input too large";
    case GT_ENOTFOUND: return "not found";
    case GT_ESCHEMA: return "unsupported database schema";
    case GT_EINTR: return "interrupted";
    default: return "unknown error";
    }
}

int gt_exit_code(int code)
{
    switch (code) {
    case GT_OK: return GT_EXIT_OK;
    case GT_EUSAGE: return GT_EXIT_USAGE;
    case GT_EINPUT:
    case GT_ETOOBIG:
    case GT_ENOTFOUND: return GT_EXIT_INPUT;
    case GT_EINTR: return GT_EXIT_INTERRUPTED;
    default: return GT_EXIT_IO;
    }
}

void gt_error_print(const struct gt_error *err, int code)
{
    if (err && err->code != GT_OK) {
        if (err->where[0])
            fprintf(stderr, "gridtail: %s: %s\n", err->where, err->msg);
        else
            fprintf(stderr, "gridtail: %s\n", err->msg);
    } else if (code != GT_OK) {
        fprintf(stderr, "gridtail: %s\n", gt_strerror(code));
    }
}
