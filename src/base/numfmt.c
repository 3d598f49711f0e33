/*
 * numfmt.c - a double as the shortest text that reads back to it.
 *
 * The answer is defined by printf and strtod: the smallest P in 1..17
 * such that the P-digit decimal %.Pg prints (v correctly rounded, ties to
 * even) reads back to v.  Asking printf and strtod up to 17 times costs
 * ~4,000 instructions a try, and a served answer prints hundreds of
 * reals, so most doubles take an exact integer path instead:
 *
 *   v = m 2^e (m < 2^53), scaled by 10^s to 17 integer digits, is the
 *   fraction m 5^s 2^(e+s); so are the bounds of the interval of reals
 *   that round to v, v -+ half its gap to each neighbour.  With s <= 31
 *   every numerator fits 128 bits, and the denominator is a power of two,
 *   so rounding to P digits and "does it read back" (does it lie in the
 *   interval, a bound counting when m is even: strtod's ties go to even)
 *   are exact integer comparisons.
 *
 * That covers 1e-15 < |v| < 1e17 for normal doubles (every RTT, every
 * probability that is not tiny); the rest (subnormals, huge and tiny
 * values) asks printf and strtod, which define the answer anyway.
 */
#include "numfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

static const uint64_t pow10_u64[19] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
    100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull, 1000000000000000000ull};

/* The decimal found: value = 0.d1 d2 ... dn x 10^(x + 1), i.e. d1.d2..dn
 * x 10^x, digits without trailing zeros. */
struct decimal {
    char d[24];
    int n;
    int x;
};

/* num / 2^sh as its integer part and the numerator of its fraction
 * (< 2^sh; 0 when sh <= 0, the quotient then an integer). */
struct fixed {
    u128 i;
    u128 f;
};

static struct fixed split(u128 num, int sh)
{
    struct fixed r = {num, 0};
    if (sh > 0) {
        r.i = num >> sh;
        r.f = num & (((u128)1 << sh) - 1);
    } else if (sh < 0) {
        r.i = num << -sh;
    }
    return r;
}

/* 5^k for k <= 18: 10^k / 2^k. */
static uint64_t pow5(int k)
{
    return pow10_u64[k] >> k;
}

/* floor(t log10(2)) for |t| < 1650, in integers (78913 / 2^18). */
static int floor_log10_pow2(int t)
{
    long p = (long)t * 78913;
    return (int)(p >= 0 ? p / 262144 : -((-p + 262143) / 262144));
}

static void set_digits(struct decimal *out, uint64_t c, int x)
{
    while (c % 10 == 0) {                 /* trailing zeros: c > 0 */
        c /= 10;
        x++;
    }
    char tmp[24];
    int n = 0;
    for (; c; c /= 10)
        tmp[n++] = (char)('0' + c % 10);
    out->x = x + n - 1;
    out->n = n;
    for (int k = 0; k < n; k++)
        out->d[k] = tmp[n - 1 - k];
}

/* The exact path for a positive normal double; false when v is out of
 * its range (the caller asks printf). */
static bool shortest_exact(double v, struct decimal *out)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int be = (int)(bits >> 52 & 0x7ff);
    uint64_t frac = bits & ((1ull << 52) - 1);
    if (be == 0 || be == 0x7ff)
        return false;
    uint64_t m = frac | 1ull << 52;
    int e = be - 1075;                    /* v = m 2^e */
    bool even = (m & 1) == 0;
    /* the gap below a power of two is half the gap above */
    uint64_t lo4 = frac == 0 && be > 1 ? 4 * m - 1 : 4 * m - 2;
    int s = 16 - floor_log10_pow2(e + 52);
    for (int tries = 0; tries < 2; tries++, s--) {
        if (s < 0 || s > 31)
            return false;
        u128 p5 = s <= 18 ? pow5(s) : (u128)pow5(18) * pow5(s - 18);
        int sh = 2 - (e + s);             /* numerators below carry a factor 4 */
        if (sh >= 127)
            return false;
        struct fixed val = split((u128)(4 * m) * p5, sh);
        if (val.i >= pow10_u64[17])
            continue;                     /* the estimate of log10 was one short */
        if (val.i < pow10_u64[16])
            return false;
        struct fixed lo = split((u128)lo4 * p5, sh), hi = split((u128)(4 * m + 2) * p5, sh);
        u128 half = sh > 0 ? (u128)1 << (sh - 1) : 0;
        uint64_t vi = (uint64_t)val.i;
        /* 15 digits first: their spacing is wider than the interval, so
           at most one 15-digit decimal reads back to v, and when one
           does, every shorter decimal that reads back is it with its
           trailing zeros (set_digits drops them).  Else 16, else 17. */
        for (int digits = 15; digits <= 17; digits++) {
            uint64_t pk = pow10_u64[17 - digits], q = vi / pk, r = vi % pk;
            bool up;
            if (pk == 1)
                up = sh > 0 && (val.f > half || (val.f == half && (q & 1)));
            else
                up = r > pk / 2 || (r == pk / 2 && (val.f != 0 || (q & 1)));
            uint64_t c = (q + up) * pk;
            bool in_lo = c > lo.i || (c == lo.i && lo.f == 0 && even);
            bool in_hi = c < hi.i || (c == hi.i && (hi.f != 0 || even));
            if (in_lo && in_hi) {
                set_digits(out, q + up, 17 - digits - s);
                return true;
            }
        }
        return false;                     /* 17 digits always read back: not reached */
    }
    return false;
}

/* printf and strtod, for the doubles the exact path does not take. */
static void shortest_printf(double v, struct decimal *out)
{
    char buf[40];
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
        if (strtod(buf, NULL) == v || digits == 17)
            break;
    }
    /* buf is d[.ddd]e[+-]XX */
    char *ex = strchr(buf, 'e');
    int n = 0;
    for (const char *p = buf; p < ex; p++)
        if (*p != '.')
            out->d[n++] = *p;
    while (n > 1 && out->d[n - 1] == '0')
        n--;
    out->n = n;
    out->x = atoi(ex + 1);
}

/* The digits laid out as %.17g does. */
static int layout(char *buf, bool neg, const struct decimal *d)
{
    char *p = buf;
    if (neg)
        *p++ = '-';
    if (d->x < -4 || d->x >= 17) {
        *p++ = d->d[0];
        if (d->n > 1) {
            *p++ = '.';
            memcpy(p, d->d + 1, (size_t)d->n - 1);
            p += d->n - 1;
        }
        p += sprintf(p, "e%c%02d", d->x < 0 ? '-' : '+', abs(d->x));
    } else if (d->x < 0) {
        *p++ = '0';
        *p++ = '.';
        for (int k = -1; k > d->x; k--)
            *p++ = '0';
        memcpy(p, d->d, (size_t)d->n);
        p += d->n;
    } else {
        int whole = d->x + 1;
        for (int k = 0; k < whole; k++)
            *p++ = k < d->n ? d->d[k] : '0';
        if (d->n > whole) {
            *p++ = '.';
            memcpy(p, d->d + whole, (size_t)(d->n - whole));
            p += d->n - whole;
        }
    }
    *p = '\0';
    return (int)(p - buf);
}

int gt_fmt_double(char buf[GT_FMT_DOUBLE_SIZE], double v)
{
    bool neg = signbit(v);
    const char *word = isnan(v) ? "nan" : isinf(v) ? (neg ? "-inf" : "inf")
                     : v == 0 ? (neg ? "-0" : "0") : NULL;
    if (word) {
        strcpy(buf, word);
        return (int)strlen(buf);
    }
    double a = fabs(v);
    struct decimal d;
    if (!shortest_exact(a, &d))
        shortest_printf(a, &d);
    return layout(buf, neg, &d);
}
