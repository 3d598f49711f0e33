/*
 * error.h - status codes and the error record every layer reports through.
 *
 * Functions return an int status (GT_OK or a negative GT_E* code) and, when
 * given a non-NULL struct gt_error, keep the FIRST error with where it came
 * from ("file:line: field") and a human message.  There is no global error
 * state.  Exit codes of the CLI are derived from the status (gt_exit_code).
 */
#ifndef GT_ERROR_H
#define GT_ERROR_H

enum gt_status {
    GT_OK = 0,
    GT_EUSAGE = -1,    /* bad command line or API misuse by the caller */
    GT_EINPUT = -2,    /* bad input data (a record, a file, a config) */
    GT_EIO = -3,       /* file or network I/O failed */
    GT_EDB = -4,       /* SQLite reported an error */
    GT_ENOMEM = -5,    /* allocation failed */
    GT_ETOOBIG = -6,   /* a buffer would grow past its cap */
    GT_ENOTFOUND = -7, /* a named thing (site, pair, file) does not exist */
    GT_ESCHEMA = -8,   /* database schema newer than this binary */
    GT_EINTR = -9      /* stopped by Ctrl-C or SIGTERM (base/interrupt.h) */
};

/* Process exit codes, documented in --help and docs/gridtail.1. */
enum gt_exit {
    GT_EXIT_OK = 0,
    GT_EXIT_USAGE = 1,
    GT_EXIT_INPUT = 2,
    GT_EXIT_IO = 3,
    GT_EXIT_INTERRUPTED = 130   /* 128 + SIGINT, as shells report it */
};

#define GT_ERR_WHERE 512
#define GT_ERR_MSG 512

struct gt_error {
    int code;                  /* GT_OK while nothing has been recorded */
    char where[GT_ERR_WHERE];  /* "file:line: field" or "" */
    char msg[GT_ERR_MSG];
};

/* Make s safe to print and to store as text, in place: each control
 * character (C0 but the tab, DEL, C1) and each byte that is not part of
 * valid UTF-8 becomes '?', so that text a remote server or an input
 * supplied (an error body, a record) can neither drive a terminal (ESC[2J,
 * an OSC title, BEL) nor be refused by a database as invalid UTF-8. */
void gt_text_safe(char *s);

/* Record an error unless one is already recorded; returns code so callers
 * can write `return gt_error_set(err, GT_EIO, path, "...")`.  err may be
 * NULL.  where may be NULL.  The message and where are made safe
 * (gt_text_safe): they often quote what a server or an input said. */
int gt_error_set(struct gt_error *err, int code, const char *where,
                 const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

void gt_error_clear(struct gt_error *err);

/* Static text for a status code. */
const char *gt_strerror(int code);

/* The process exit code for a status. */
int gt_exit_code(int code);

/* Print "gridtail: where: msg" (or the bare code text) to stderr. */
void gt_error_print(const struct gt_error *err, int code);

#endif
