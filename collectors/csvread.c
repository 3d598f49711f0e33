/*
 * csvread.c - streaming CSV records out of a fixed buffer.
 *
 * Most records have no quotes: they are split with memchr straight out of
 * the buffer.  A record with a quote is first delimited (its end is the
 * first newline outside quotes), then unescaped in place; the unescaped
 * text is never longer than the raw text, so no copy is needed.
 */
#include "csvread.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

#define BUF_SIZE (CSV_MAX_RECORD + 65536u)

struct csv_reader {
    FILE *fp;
    char delim;
    char *buf;
    size_t pos, end;
    bool eof;
    bool started;
    long line;        /* line number of buf[pos] */
};

struct csv_reader *csv_open(FILE *fp, char delim)
{
    struct csv_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->buf = malloc(BUF_SIZE + 1);
    if (!r->buf) {
        free(r);
        return NULL;
    }
    r->fp = fp;
    r->delim = delim;
    r->line = 1;
    return r;
}

void csv_close(struct csv_reader *r)
{
    if (!r)
        return;
    free(r->buf);
    free(r);
}

/* Move the unread bytes to the front and read more; 0 or GT_EIO. */
static int refill(struct csv_reader *r)
{
    if (r->eof)
        return GT_OK;
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->end - r->pos);
        r->end -= r->pos;
        r->pos = 0;
    }
    while (r->end < BUF_SIZE) {
        size_t n = fread(r->buf + r->end, 1, BUF_SIZE - r->end, r->fp);
        r->end += n;
        if (n == 0) {
            if (ferror(r->fp))
                return GT_EIO;
            r->eof = true;
            break;
        }
        if (r->end - r->pos >= 65536)
            break;
    }
    if (!r->started) {
        r->started = true;
        if (r->end >= 3 && !memcmp(r->buf, "\xEF\xBB\xBF", 3))
            r->pos = 3;   /* UTF-8 byte order mark */
    }
    return GT_OK;
}

const char *csv_peek(struct csv_reader *r, size_t *len)
{
    if (!r->started && refill(r) != GT_OK) {
        *len = 0;
        return r->buf;
    }
    *len = r->end - r->pos;
    return r->buf + r->pos;
}

static void split_plain(struct csv_reader *r, char *s, size_t len,
                        struct csv_record *rec)
{
    rec->n = rec->total = 0;
    for (;;) {
        char *d = memchr(s, r->delim, len);
        size_t flen = d ? (size_t)(d - s) : len;
        if (rec->n < CSV_MAX_FIELDS) {
            rec->f[rec->n].p = s;
            rec->f[rec->n].len = flen;
            rec->f[rec->n].quoted = false;
            rec->n++;
        }
        rec->total++;
        if (!d)
            break;
        s = d + 1;
        len -= flen + 1;
    }
}

static void add_field(struct csv_record *rec, char *p, size_t len, bool quoted)
{
    if (rec->n < CSV_MAX_FIELDS) {
        rec->f[rec->n].p = p;
        rec->f[rec->n].len = len;
        rec->f[rec->n].quoted = quoted;
        rec->n++;
    }
    rec->total++;
}

/* Unescape a complete quoted record [s, s+len) in place. */
static void split_quoted(char delim, char *s, size_t len, struct csv_record *rec)
{
    rec->n = rec->total = 0;
    char *w = s, *field = s;
    bool inq = false, quoted = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (inq) {
            if (c == '"') {
                if (i + 1 < len && s[i + 1] == '"')
                    *w++ = '"', i++;
                else
                    inq = false;
            } else {
                *w++ = c;
            }
        } else if (c == '"' && w == field && !quoted) {
            inq = quoted = true;
        } else if (c == delim) {
            add_field(rec, field, (size_t)(w - field), quoted);
            field = ++w;   /* w <= s+i, so the slot is free */
            w = field;
            quoted = false;
        } else {
            *w++ = c;
        }
    }
    if (inq)
        rec->problem = "unterminated quoted field";
    add_field(rec, field, (size_t)(w - field), quoted);
}

/* Find the end of a record starting at pos that contains quotes.  Returns
 * the offset of its terminating newline (or end of data at EOF), counts
 * embedded newlines; -1 when more data is needed. */
static long quoted_end(struct csv_reader *r, long *newlines)
{
    bool inq = false;
    *newlines = 0;
    for (size_t i = r->pos; i < r->end; i++) {
        char c = r->buf[i];
        if (c == '"')
            inq = !inq;
        else if (c == '\n') {
            if (!inq)
                return (long)i;
            (*newlines)++;
        }
    }
    return r->eof ? (long)r->end : -1;
}

static bool is_blank(const char *s, size_t len)
{
    return len == 0 || (len == 1 && s[0] == '\r');
}

/* Skip the rest of an over-long record up to the next newline. */
static int skip_line(struct csv_reader *r)
{
    for (;;) {
        char *nl = memchr(r->buf + r->pos, '\n', r->end - r->pos);
        if (nl) {
            r->pos = (size_t)(nl - r->buf) + 1;
            r->line++;
            return GT_OK;
        }
        r->pos = r->end;
        if (r->eof)
            return GT_OK;
        int rc = refill(r);
        if (rc)
            return rc;
    }
}

/* Report an over-long record as a problem and skip to its end. */
static int too_long(struct csv_reader *r, struct csv_record *rec)
{
    rec->line = r->line;
    rec->n = rec->total = 0;
    rec->problem = "record longer than 1 MiB";
    int rc = skip_line(r);
    return rc ? rc : 1;
}

void csv_split(char *s, size_t len, char delim, struct csv_record *rec)
{
    rec->problem = NULL;
    split_quoted(delim, s, len, rec);
}

int csv_next(struct csv_reader *r, struct csv_record *rec)
{
    rec->problem = NULL;
    for (;;) {
        if (r->pos >= r->end) {
            if (r->eof && r->started)
                return 0;
            int rc = refill(r);
            if (rc)
                return rc;
            if (r->pos >= r->end)
                return 0;
        }
        char *s = r->buf + r->pos;
        size_t avail = r->end - r->pos;
        char *nl = memchr(s, '\n', avail);
        if (!nl && !r->eof) {
            if (avail >= CSV_MAX_RECORD)
                return too_long(r, rec);
            int rc = refill(r);
            if (rc)
                return rc;
            continue;
        }
        size_t len = nl ? (size_t)(nl - s) : avail;
        if (len > CSV_MAX_RECORD)
            return too_long(r, rec);
        if (!memchr(s, '"', len)) {
            rec->line = r->line;
            r->pos += len + (nl ? 1 : 0);
            r->line++;
            if (is_blank(s, len))
                continue;
            if (s[len - 1] == '\r')
                len--;
            split_plain(r, s, len, rec);
            return 1;
        }
        long newlines, end = quoted_end(r, &newlines);
        if (end < 0) {
            if (avail >= CSV_MAX_RECORD)
                return too_long(r, rec);
            int rc = refill(r);
            if (rc)
                return rc;
            continue;
        }
        len = (size_t)end - r->pos;
        rec->line = r->line;
        r->pos = (size_t)end + (end < (long)r->end ? 1 : 0);
        r->line += newlines + 1;
        if (len && s[len - 1] == '\r')
            len--;
        split_quoted(r->delim, s, len, rec);
        return 1;
    }
}
