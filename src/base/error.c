/*
 * error.c - the first-error-wins record and the status/exit-code tables.
 */
#include "error.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at p (1 to 4), or 0. */
static int utf8_len(const unsigned char *p)
{
    unsigned char c = p[0];
    int n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
          : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;   /* (a NUL ends it here too) */
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F) ||   /* overlong, surrogate */
        (c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] > 0x8F))
        return 0;
    return n;
}

void gt_text_safe(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        int n = utf8_len(p);
        bool c1 = n == 2 && p[0] == 0xC2 && p[1] < 0xA0;   /* U+0080..U+009F */
        if (n == 0 || c1 || (n == 1 && ((*p < 0x20 && *p != '\t') || *p == 0x7F))) {
            for (int i = 0; i < (c1 ? 2 : 1); i++)
                *p++ = '?';
            continue;
        }
        p += n;
    }
}

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
    gt_text_safe(err->where);
    gt_text_safe(err->msg);
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
