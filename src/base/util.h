/*
 * util.h - small shared helpers: a capped growable buffer, strict number
 * and time parsers, UTF-8 validation.  No I/O policy lives here; every
 * parser takes (pointer, length) so callers can parse fields in place.
 */
#ifndef GT_UTIL_H
#define GT_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>

struct gt_error;
#define GT_TEXT_WHERE 512

/* A JSON real, or null for NAN and infinities (JSON has neither). */
json_t *gt_json_real_or_null(double v);

/* ---- growable buffer with a hard cap (curl dynbuf style) ---- */
struct gt_buf {
    char *data;     /* always NUL-terminated when non-NULL */
    size_t len;
    size_t alloc;
    size_t max;     /* appending past this fails with GT_ETOOBIG */
};

void gt_buf_init(struct gt_buf *b, size_t max);
int gt_buf_append(struct gt_buf *b, const void *p, size_t n);
int gt_buf_printf(struct gt_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void gt_buf_reset(struct gt_buf *b);   /* len = 0, keeps memory */
void gt_buf_free(struct gt_buf *b);    /* safe on a zeroed buffer */

/* Read all of f into b (appending).  GT_ETOOBIG past b->max, GT_EIO on a
 * read error. */
int gt_buf_read_stream(struct gt_buf *b, FILE *f);

/* ---- strict parsers: the whole [s, s+len) must be consumed ---- */
bool gt_parse_i64(const char *s, size_t len, int64_t *out);
/* Decimal or exponent notation, also "nan"/"inf" (callers check
 * isfinite).  Correctly rounded (fast path for short decimals). */
bool gt_parse_double(const char *s, size_t len, double *out);

/* A point in time as Unix seconds: either an integer/decimal number of
 * seconds since the epoch or ISO-8601 "YYYY-MM-DD[THH:MM[:SS[.frac]]]"
 * with 'T' or ' ', and 'Z', "+HH:MM", "+HHMM" or nothing (UTC).
 * Fractions of a second are dropped (floor): samples have one-second
 * resolution.  Rejects out-of-range fields. */
bool gt_parse_time(const char *s, size_t len, int64_t *out);

/* "YYYY-MM-DDTHH:MM:SSZ" into buf (at least 21 bytes). */
void gt_format_time(int64_t t, char *buf, size_t size);

/* ---- a small text input, line by line, bounded ----
 * Site maps, probe targets, groups files, pool files, site lists, token
 * files, the config file: every small text input is read through this one
 * reader, with three bounds, so that /dev/zero, a FIFO or an endless line
 * ends at once with an error naming FILE:LINE instead of running for ever:
 * a line holds at most size - 1 bytes (the caller's buffer), the whole
 * input at most max bytes (GT_TEXT_MAX_BYTES unless the caller says), and
 * no NUL byte (text has none). */
#define GT_TEXT_MAX_BYTES (16u << 20)

struct gt_lines {
    FILE *f;                   /* borrowed */
    const char *name;          /* borrowed: the input's name in messages */
    long line;                 /* the line last read, 1-based */
    size_t bytes;              /* read so far */
    size_t max;                /* bound on bytes */
    bool done;                 /* end of input or a fatal error seen */
    bool skip;                 /* the rest of a line too long is still to drop */
    char where[GT_TEXT_WHERE]; /* "name:line" of the line last read */
};

/* Read f (borrowed) as name; max 0 means GT_TEXT_MAX_BYTES. */
void gt_lines_init(struct gt_lines *r, FILE *f, const char *name, size_t max);

/* The next line into buf (NUL-terminated, without its newline; a CR before
 * it is kept):
 *   1           a line;
 *   0           end of input (and after any error but GT_ETOOBIG);
 *   GT_ETOOBIG  the line is longer than size - 1 bytes: said at once (an
 *               endless line ends here), buf holds its start; a caller
 *               that goes on gets the next line (the rest of this one is
 *               dropped, within max);
 *   GT_EINPUT   a NUL byte, or more than max bytes: reading ends;
 *   GT_EIO      a read error: reading ends.
 * Each error is recorded in err (may be NULL) at r->where ("FILE:LINE"),
 * e.g. "line longer than 1023 bytes", as GT_EINPUT but a read error. */
int gt_lines_next(struct gt_lines *r, char *buf, size_t size, struct gt_error *err);

/* *out = a + b * c; false (and *out unset) when that overflows int64. */
bool gt_i64_add_mul(int64_t a, int64_t b, int64_t c, int64_t *out);

/* Relative durations for --retention style options: "30d", "12h", "90m",
 * "45s" or plain seconds. */
bool gt_parse_duration(const char *s, int64_t *seconds);

/* Well-formed UTF-8 (no overlongs, surrogates or code points > U+10FFFF),
 * no NUL bytes. */
bool gt_utf8_valid(const char *s, size_t len);
/* a[0..mid) and a[mid..end), elements of size bytes each ascending by the
 * double it starts with, become one ascending run (the right one first
 * only where its key is smaller); false on ENOMEM. */
bool gt_merge_runs(void *a, size_t size, size_t mid, size_t end);
/* The first control code point of s, or -1: a C0 control character or
 * DEL (an ESC sequence in a site name reaches an operator's terminal
 * through `sites` and `pairs`), a C1 control (U+0080..U+009F: U+0085
 * breaks a line, U+009B is a CSI), or a character that reorders or
 * breaks the text around it: the bidirectional marks, embeddings,
 * overrides and isolates (U+061C, U+200E, U+200F, U+202A..U+202E,
 * U+2066..U+2069: "U+202E" shows "abc" as "cba") and the line and
 * paragraph separators (U+2028, U+2029).  Only well-formed UTF-8
 * sequences are decoded (callers check gt_utf8_valid). */
long gt_first_control(const char *s, size_t len);
/* gt_first_control(s, len) >= 0. */
bool gt_has_control(const char *s, size_t len);
/* Whether the comma- or space-separated list holds item (in any case
 * when fold: host names). */
bool gt_listed(const char *list, const char *item, bool fold);
/* The string s as UTF-8 text for a JSON document or a terminal: each
 * well-formed sequence as it is, each other byte as the four characters
 * \xHH; cut at a character within size (>= 1), always NUL-terminated. */
void gt_utf8_escape(const char *s, char *out, size_t size);

/* Trim ASCII spaces and tabs (and a trailing CR) in place on a span. */
void gt_trim_span(const char **s, size_t *len);

/* Equal spans, ASCII case-insensitive against a NUL-terminated word. */
bool gt_span_ieq(const char *s, size_t len, const char *word);

/* Quantile p in [0,1] of sorted x[0..n-1], linear interpolation between
 * order statistics (Hyndman & Fan type 7, numpy's default).  n > 0. */
double gt_quantile_sorted(const double *x, size_t n, double p);

/* Milliseconds on a monotonic clock (for deadlines and timeouts). */
double gt_monotonic_ms(void);
/* Nanoseconds on a monotonic clock, for a duration that is printed or
 * stored: (double)(t1 - t0) / 1e6 is the duration in ms to the
 * nanosecond (0.021601), while the difference of two gt_monotonic_ms
 * readings carries their rounding (0.0216009999858215). */
int64_t gt_monotonic_ns(void);
/* Milliseconds since since_ns (a gt_monotonic_ns reading), to the ns. */
double gt_elapsed_ms(int64_t since_ns);

/* qsort comparator for doubles. */
int gt_cmp_double(const void *a, const void *b);
/* Reorder x[lo..hi] (inclusive, no NANs) so that x[k] holds the value
 * the ascending order puts there, none after it smaller, none before it
 * larger (Hoare's selection, median-of-three pivots: O(hi - lo) on
 * average); returns x[k].  lo <= k <= hi. */
double gt_select(double *x, size_t lo, size_t hi, size_t k);

/* The index of the first of the n ascending values v not below x (n when
 * none): where x goes in v, or where a value equal to it is. */
size_t gt_lower_bound(const double *v, size_t n, double x);

/* The n ascending values v with x added in its place (v holds n + 1). */
void gt_sorted_insert(double *v, size_t n, double x);

/* The n ascending values v with old (one of them) replaced by x, in
 * x's place: one move of the values between the two. */
void gt_sorted_replace(double *v, size_t n, double old, double x);
int gt_cmp_int64(const void *a, const void *b);   /* int64_t, for qsort */
/* Neumaier's compensated running sum: a long sum of terms of mixed size
 * or sign keeps its digits. */
struct gt_ksum {
    double s, c;
};

static inline void gt_ksum_add(struct gt_ksum *k, double v)
{
    double t = k->s + v;
    k->c += fabs(k->s) >= fabs(v) ? (k->s - t) + v : (v - t) + k->s;
    k->s = t;
}

static inline double gt_ksum_get(const struct gt_ksum *k)
{
    return k->s + k->c;
}

#endif
