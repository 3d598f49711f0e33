/*
 * csvread.h - a streaming RFC 4180 reader for the CSV-shaped formats.
 *
 * Records may be any size up to a cap; quoted fields may hold the
 * delimiter, quotes ("") and newlines.  Field spans point into the
 * reader's buffer and stay valid until the next csv_next call.  Line
 * numbers are physical lines of the input, 1-based.
 */
#ifndef GT_CSVREAD_H
#define GT_CSVREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CSV_MAX_FIELDS 64
#define CSV_MAX_RECORD (1u << 20)

struct csv_field {
    const char *p;
    size_t len;
    bool quoted;
};

struct csv_record {
    struct csv_field f[CSV_MAX_FIELDS];
    int n;                /* fields stored (at most CSV_MAX_FIELDS) */
    int total;            /* fields seen; > n means too many */
    long line;            /* line the record starts on */
    const char *problem;  /* non-NULL: malformed (unbalanced quote, too long) */
};

struct csv_reader;

/* Caller frees with csv_close.  fp is borrowed. */
struct csv_reader *csv_open(FILE *fp, char delim);
void csv_close(struct csv_reader *r);

/* 1 = a record (maybe with rec->problem), 0 = end of input, <0 = GT_EIO or
 * GT_ENOMEM.  Blank lines are skipped. */
int csv_next(struct csv_reader *r, struct csv_record *rec);

/* One record [s, s+len) already delimited (a line of a small text input
 * read by base/util.h gt_lines_next) split into rec, its quoted fields
 * unescaped in place; rec->problem for an unterminated quote.  rec->line
 * is left to the caller. */
void csv_split(char *s, size_t len, char delim, struct csv_record *rec);

/* The first bytes of the input, for format sniffing (may be fewer). */
const char *csv_peek(struct csv_reader *r, size_t *len);

#endif
