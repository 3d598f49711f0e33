/*
 * util.c - capped buffers, strict parsers and UTF-8 checks.
 *
 * The number parsers are on the ingest hot path (millions of fields), so
 * they work on spans without copying and only fall back to strtod for the
 * rare inputs the exact fast path cannot handle.
 */
#define _POSIX_C_SOURCE 200809L
#include "util.h"
#include "error.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

void gt_buf_init(struct gt_buf *b, size_t max)
{
    b->data = NULL;
    b->len = 0;
    b->alloc = 0;
    b->max = max;
}

static int buf_reserve(struct gt_buf *b, size_t need)
{
    if (need > b->max)
        return GT_ETOOBIG;
    if (need + 1 <= b->alloc)
        return GT_OK;
    size_t n = b->alloc ? b->alloc : 256;
    while (n < need + 1)
        n = n > SIZE_MAX / 2 ? need + 1 : n * 2;
    if (b->max < SIZE_MAX && n > b->max + 1)   /* max + 1 would wrap at SIZE_MAX */
        n = b->max + 1;
    char *p = realloc(b->data, n);
    if (!p)
        return GT_ENOMEM;
    b->data = p;
    b->alloc = n;
    return GT_OK;
}

int gt_buf_append(struct gt_buf *b, const void *p, size_t n)
{
    if (n > SIZE_MAX - b->len - 1)
        return GT_ETOOBIG;
    int rc = buf_reserve(b, b->len + n);
    if (rc)
        return rc;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return GT_OK;
}

int gt_buf_printf(struct gt_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return GT_EIO;
    int rc = buf_reserve(b, b->len + (size_t)n);
    if (rc)
        return rc;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return GT_OK;
}

void gt_buf_reset(struct gt_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void gt_buf_free(struct gt_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->alloc = 0;
}

int gt_buf_read_stream(struct gt_buf *b, FILE *f)
{
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        int rc = gt_buf_append(b, chunk, n);
        if (rc)
            return rc;
    }
    if (ferror(f))
        return GT_EIO;
    if (!b->data)
        return gt_buf_append(b, "", 0);
    return GT_OK;
}

bool gt_parse_i64(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    if (i == len)
        return false;
    uint64_t v = 0;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; i < len; i++) {
        unsigned d = (unsigned char)s[i] - '0';
        if (d > 9)
            return false;
        if (v > (limit - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static const double pow10_exact[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static bool parse_double_slow(const char *s, size_t len, double *out)
{
    char tmp[128];
    if (len == 0 || len >= sizeof tmp)
        return false;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    /* strtod accepts leading space and hex; a strict field does not. */
    if (isspace((unsigned char)tmp[0]))
        return false;
    for (size_t i = 0; i < len; i++)
        if (tmp[i] == 'x' || tmp[i] == 'X')
            return false;
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    if (end != tmp + len)
        return false;
    *out = v;
    return true;
}

bool gt_parse_double(const char *s, size_t len, double *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    uint64_t mant = 0;
    int digits = 0, frac_digits = 0;
    bool any = false;
    for (; i < len && (unsigned)(s[i] - '0') <= 9; i++, any = true) {
        if (mant == 0 && s[i] == '0')
            continue;
        if (++digits > 19)
            return parse_double_slow(s, len, out);
        mant = mant * 10 + (uint64_t)(s[i] - '0');
    }
    if (i < len && s[i] == '.') {
        for (i++; i < len && (unsigned)(s[i] - '0') <= 9; i++, any = true) {
            frac_digits++;
            if (mant == 0 && s[i] == '0')
                continue;
            if (++digits > 19)
                return parse_double_slow(s, len, out);
            mant = mant * 10 + (uint64_t)(s[i] - '0');
        }
    }
    if (!any)
        return parse_double_slow(s, len, out);   /* "nan", "inf", junk */
    int exp10 = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E'))
        return parse_double_slow(s, len, out);
    if (i != len)
        return false;
    exp10 -= frac_digits;
    if (mant > (1ULL << 53) || exp10 < -22 || exp10 > 22)
        return parse_double_slow(s, len, out);
    double v = (double)mant;
    v = exp10 < 0 ? v / pow10_exact[-exp10] : v * pow10_exact[exp10];
    *out = neg ? -v : v;
    return true;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static bool take_digits(const char *s, size_t len, size_t *i, int n, int *out)
{
    int v = 0;
    for (int k = 0; k < n; k++, (*i)++) {
        if (*i >= len || (unsigned)(s[*i] - '0') > 9)
            return false;
        v = v * 10 + (s[*i] - '0');
    }
    *out = v;
    return true;
}

static bool parse_iso8601(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int y, mo, d, h = 0, mi = 0, se = 0;
    if (!take_digits(s, len, &i, 4, &y) || i >= len || s[i++] != '-' ||
        !take_digits(s, len, &i, 2, &mo) || i >= len || s[i++] != '-' ||
        !take_digits(s, len, &i, 2, &d))
        return false;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1])
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo == 2 && d == 29 && !leap)
        return false;
    int64_t offset = 0;
    if (i < len && (s[i] == 'T' || s[i] == 't' || s[i] == ' ')) {
        i++;
        if (!take_digits(s, len, &i, 2, &h) || i >= len || s[i++] != ':' ||
            !take_digits(s, len, &i, 2, &mi))
            return false;
        if (i < len && s[i] == ':') {
            i++;
            if (!take_digits(s, len, &i, 2, &se))
                return false;
            if (i < len && (s[i] == '.' || s[i] == ',')) {
                size_t start = ++i;
                while (i < len && (unsigned)(s[i] - '0') <= 9)
                    i++;
                if (i == start)
                    return false;
            }
        }
        if (h > 23 || mi > 59 || se > 60)
            return false;
        if (i < len && (s[i] == 'Z' || s[i] == 'z')) {
            i++;
        } else if (i < len && (s[i] == '+' || s[i] == '-')) {
            int sign = s[i++] == '-' ? -1 : 1, oh, om = 0;
            if (!take_digits(s, len, &i, 2, &oh))
                return false;
            if (i < len && s[i] == ':')
                i++;
            if (i < len && !take_digits(s, len, &i, 2, &om))
                return false;
            if (oh > 23 || om > 59)
                return false;
            offset = sign * (oh * 3600 + om * 60);
        }
    }
    if (i != len)
        return false;
    *out = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 +
           h * 3600 + mi * 60 + se - offset;
    return true;
}

bool gt_parse_time(const char *s, size_t len, int64_t *out)
{
    if (len == 0)
        return false;
    if (len >= 10 && s[4] == '-')
        return parse_iso8601(s, len, out);
    if (gt_parse_i64(s, len, out))
        return true;
    double v;
    if (!gt_parse_double(s, len, &v) || !isfinite(v) ||
        v < -9.2e18 || v > 9.2e18)
        return false;
    *out = (int64_t)floor(v);
    return true;
}

void gt_format_time(int64_t t, char *buf, size_t size)
{
    /* Years 1..9999 as ISO-8601; beyond, the number of seconds (the
     * calendar arithmetic below would overflow near INT64_MIN/MAX). */
    if (t < -62135596800LL || t > 253402300799LL) {
        snprintf(buf, size, "%lld", (long long)t);
        return;
    }
    int64_t days = t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
    int64_t secs = t - days * 86400;
    /* civil_from_days (H. Hinnant) */
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    unsigned d = doy - (153 * mp + 2) / 5 + 1;
    unsigned m = mp < 10 ? mp + 3 : mp - 9;
    y += m <= 2;
    snprintf(buf, size, "%04lld-%02u-%02uT%02d:%02d:%02dZ", (long long)y, m, d,
             (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
}

bool gt_i64_add_mul(int64_t a, int64_t b, int64_t c, int64_t *out)
{
    int64_t bc;
    return !__builtin_mul_overflow(b, c, &bc) && !__builtin_add_overflow(a, bc, out);
}

bool gt_parse_duration(const char *s, int64_t *seconds)
{
    size_t len = strlen(s);
    if (len == 0)
        return false;
    int64_t mult = 1;
    switch (s[len - 1]) {
    case 'd': mult = 86400; len--; break;
    case 'h': mult = 3600; len--; break;
    case 'm': mult = 60; len--; break;
    case 's': len--; break;
    default: break;
    }
    int64_t v;
    if (!gt_parse_i64(s, len, &v) || v < 0 || v > INT64_MAX / mult)
        return false;
    *seconds = v * mult;
    return true;
}

/* The length of the well-formed UTF-8 sequence at s (left bytes there),
 * 0 if it is not one (or is NUL). */
static size_t utf8_sequence(const unsigned char *s, size_t left)
{
    unsigned c = s[0];
    if (c == 0)
        return 0;
    if (c < 0x80)
        return 1;
    int n;
    unsigned cp, min;
    if ((c & 0xE0) == 0xC0) { n = 1; cp = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { n = 2; cp = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { n = 3; cp = c & 0x07; min = 0x10000; }
    else return 0;
    if (left <= (size_t)n)
        return 0;
    for (int k = 1; k <= n; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return (size_t)n + 1;
}

bool gt_utf8_valid(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0, n; i < len; i += n)
        if (!(n = utf8_sequence(s + i, len - i)))
            return false;
    return true;
}

static double key_at(const char *p)
{
    double d;
    memcpy(&d, p, sizeof d);
    return d;
}

bool gt_merge_runs(void *a, size_t size, size_t mid, size_t end)
{
    char *p = a;
    if (mid == 0 || mid >= end || key_at(p + (mid - 1) * size) <= key_at(p + mid * size))
        return true;   /* already in order: runs that do not overlap */
    char *tmp = malloc(end * size);
    if (!tmp)
        return false;
    size_t i = 0, j = mid, o = 0;
    while (i < mid && j < end) {
        bool right = key_at(p + j * size) < key_at(p + i * size);
        memcpy(tmp + o++ * size, p + (right ? j++ : i++) * size, size);
    }
    memcpy(tmp + o * size, p + i * size, (mid - i) * size);
    o += mid - i;
    memcpy(tmp + o * size, p + j * size, (end - j) * size);
    memcpy(a, tmp, end * size);
    free(tmp);
    return true;
}

bool gt_listed(const char *list, const char *item, bool fold)
{
    size_t n = strlen(item);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ", ");
        if (k == n && !(fold ? strncasecmp(p, item, n) : strncmp(p, item, n)))
            return true;
        p += k;
        p += strspn(p, ", ");
    }
    return false;
}

long gt_first_control(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < len; i++) {
        unsigned b = s[i];
        if (b < 0x20 || b == 0x7f)
            return (long)b;
        if (b == 0xC2 && i + 1 < len && s[i + 1] >= 0x80 && s[i + 1] <= 0x9F)
            return (long)s[i + 1];   /* C1: U+0080..U+009F */
        if (b == 0xD8 && i + 1 < len && s[i + 1] == 0x9C)
            return 0x061C;           /* ARABIC LETTER MARK */
        if (b == 0xE2 && i + 2 < len) {
            long cp = ((long)(b & 0x0F) << 12) | ((long)(s[i + 1] & 0x3F) << 6) |
                      (long)(s[i + 2] & 0x3F);
            if (cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) ||
                (cp >= 0x2066 && cp <= 0x2069))
                return cp;
        }
    }
    return -1;
}

bool gt_has_control(const char *s, size_t len)
{
    return gt_first_control(s, len) >= 0;
}

void gt_utf8_escape(const char *str, char *out, size_t size)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t len = strlen(str), o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_sequence(s + i, len - i);
        size_t need = n ? n : 4;
        if (o + need >= size)
            break;
        if (n)
            memcpy(out + o, s + i, n);
        else
            snprintf(out + o, 5, "\\x%02X", s[i]);
        o += need;
        i += n ? n : 1;
    }
    out[o] = '\0';
}

void gt_trim_span(const char **s, size_t *len)
{
    while (*len && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*len)--;
    }
    while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t' ||
                    (*s)[*len - 1] == '\r'))
        (*len)--;
}

bool gt_span_ieq(const char *s, size_t len, const char *word)
{
    size_t n = strlen(word);
    if (n != len)
        return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)s[i]) != tolower((unsigned char)word[i]))
            return false;
    return true;
}

double gt_quantile_sorted(const double *x, size_t n, double p)
{
    if (n == 1 || p <= 0)
        return x[0];
    if (p >= 1)
        return x[n - 1];
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return x[n - 1];
    return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}

int gt_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void swap_double(double *a, double *b)
{
    double t = *a;
    *a = *b, *b = t;
}

size_t gt_lower_bound(const double *v, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void gt_sorted_insert(double *v, size_t n, double x)
{
    size_t in = gt_lower_bound(v, n, x);
    memmove(v + in + 1, v + in, (n - in) * sizeof *v);
    v[in] = x;
}

void gt_sorted_replace(double *v, size_t n, double old, double x)
{
    size_t out = gt_lower_bound(v, n, old);
    if (x >= old) {   /* x goes right of old: shift the values between left */
        size_t in = gt_lower_bound(v + out + 1, n - out - 1, x) + out + 1;
        memmove(v + out, v + out + 1, (in - out - 1) * sizeof *v);
        v[in - 1] = x;
    } else {          /* x goes left of old: shift the values between right */
        size_t in = gt_lower_bound(v, out, x);
        memmove(v + in + 1, v + in, (out - in) * sizeof *v);
        v[in] = x;
    }
}

double gt_select(double *x, size_t lo, size_t hi, size_t k)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        /* median of three at mid, sentinels at lo and hi */
        if (x[mid] < x[lo])
            swap_double(&x[mid], &x[lo]);
        if (x[hi] < x[lo])
            swap_double(&x[hi], &x[lo]);
        if (x[hi] < x[mid])
            swap_double(&x[hi], &x[mid]);
        double pivot = x[mid];
        size_t i = lo, j = hi;
        while (i <= j) {   /* Hoare's partition: i never passes hi, j never lo */
            while (x[i] < pivot)
                i++;
            while (pivot < x[j])
                j--;
            if (i <= j) {
                swap_double(&x[i], &x[j]);
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        /* x[lo..j] <= pivot <= x[i..hi], and x[j+1..i-1] == pivot */
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return x[k];
    }
    return x[k];
}

int gt_cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int64_t gt_monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

double gt_monotonic_ms(void)
{
    return (double)gt_monotonic_ns() / 1e6;
}

double gt_elapsed_ms(int64_t since_ns)
{
    return (double)(gt_monotonic_ns() - since_ns) / 1e6;
}

json_t *gt_json_real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

void gt_lines_init(struct gt_lines *r, FILE *f, const char *name, size_t max)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->name = name;
    r->max = max ? max : GT_TEXT_MAX_BYTES;
}

/* Past the bound: reading ends there. */
static int lines_too_big(struct gt_lines *r, struct gt_error *err)
{
    r->done = true;
    if (r->max % (1u << 20) == 0)
        return gt_error_set(err, GT_EINPUT, r->where, "more than %zu MiB in all: not a small "
                            "text input", r->max >> 20);
    return gt_error_set(err, GT_EINPUT, r->where, "more than %zu bytes in all: not a small "
                        "text input", r->max);
}

int gt_lines_next(struct gt_lines *r, char *buf, size_t size, struct gt_error *err)
{
    if (r->done)
        return 0;
    int c;
    if (r->skip) {   /* the rest of a line too long, dropped */
        r->skip = false;
        while ((c = getc(r->f)) != EOF && c != '\n')
            if (++r->bytes > r->max)
                return lines_too_big(r, err);
        if (c == EOF && ferror(r->f)) {
            r->done = true;
            return gt_error_set(err, GT_EIO, r->where, "%s", strerror(errno));
        }
        if (c == EOF) {
            r->done = true;
            return 0;
        }
        r->bytes++;
    }
    size_t len = 0;
    snprintf(r->where, sizeof r->where, "%s:%ld", r->name, r->line + 1);
    while ((c = getc(r->f)) != EOF) {
        if (++r->bytes > r->max) {
            r->line++;
            return lines_too_big(r, err);
        }
        if (c == '\n')
            break;
        if (c == '\0') {
            r->done = true;
            r->line++;
            return gt_error_set(err, GT_EINPUT, r->where, "a NUL byte: not a text file");
        }
        if (len + 1 >= size) {   /* too long: said now, its rest skipped by the next call */
            if (size)
                buf[len] = '\0';
            r->line++;
            r->skip = true;
            gt_error_set(err, GT_EINPUT, r->where, "line longer than %zu bytes",
                         size ? size - 1 : 0);
            return GT_ETOOBIG;
        }
        buf[len++] = (char)c;
    }
    if (size)
        buf[len] = '\0';
    if (c == EOF) {
        r->done = true;
        if (ferror(r->f))
            return gt_error_set(err, GT_EIO, r->where, "%s", strerror(errno));
        if (len == 0)
            return 0;
    }
    r->line++;
    return 1;
}
