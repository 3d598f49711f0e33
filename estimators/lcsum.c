/*
 * lcsum.c - the vectorized log-CDF sum behind E[max].
 *
 * The kernels are plain loops over arrays; compiled with -O3
 * -fno-math-errno -fopenmp-simd (see the Makefile) GCC turns the calls to
 * exp, log1p, log and erfc below into calls to their libmvec variants,
 * declared here the way glibc's math-vector.h declares them under
 * -ffast-math (which the rest of gridtail must not use).  target_clones
 * adds AVX-512 and AVX2 builds of each kernel, picked at load time by
 * what the CPU has.  Accuracy: libmvec's functions are within 4 ulp.
 *
 * Two things keep the work per evaluation small.  Single Pareto partners
 * need one exp each and no log1p: in chunks of 64, lanes carry the
 * product of (1 - w) and its complement (one log1p a chunk, or a run of
 * chunks); a block of fewer takes -log(1 - w) as a short series where w
 * is small and a running product of (1 - w) where it is not.  A coarse
 * sum (gt_lcsum_set_coarse) puts every w into the product: S is then
 * exact to n ulp of 1 rather than to its own last bits, a tenth of the
 * work per partner saved where the caller's tolerance is loose.  And each
 * partner carries a cut-off above which it is no longer evaluated (see
 * lcsum.h); partners are sorted by cut-off, so the ones still active at x
 * are a prefix found by binary search.
 */
#include "lcsum.h"

#include <float.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SIMD_DECL __attribute__((simd("notinbranch")))
#define CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SIMD_DECL
#define CLONES
#endif

double exp(double) SIMD_DECL;
double log(double) SIMD_DECL;
double log1p(double) SIMD_DECL;
double erfc(double) SIMD_DECL;

/* w below SMALL_W takes the series -log(1 - w) = w (1 + w/2 + ... +
 * w^10/11), whose remainder is below 2^-55 / 12 relative; larger w go
 * into the product, whose rounding then costs at most 32 ulp of S. */
#define SMALL_W 0.03125
#define CHUNK 64
#define LN2 0.69314718055994530942

struct block {
    size_t start, end;    /* Pareto partners [start, end) share a shift */
    double shift;
    bool single;          /* every count is 1: the exp-only kernel */
};

struct gt_lcsum {
    size_t np, nn, nn1, nd, nblocks;   /* nn1: normals of count 1, first */
    double *p_logk, *p_alpha, *p_count, *p_cut, *p_k;
    struct block *blocks;
    double *n_shift, *n_mu, *n_isig, *n_count, *n_cut;
    double *d_point;
    double *mem;
    char *scratch;                     /* rows, indices and radix keys */
    size_t cap, blocks_cap;            /* groups mem/scratch hold; blocks */
    bool coarse;                       /* every factor into the product */
    bool exact_starts;                 /* near a start, log F to its last digits */
    /* the lossy groups, compiled: nm ladders, their counts, their arrays
       in lmem; ladder_of[i] the ladder of input group i, or -1 */
    size_t nm, lmem_cap, mix_cap, of_cap;
    struct gt_ladder *mix;
    double *mix_count, *lmem;
    long *ladder_of;
};

static const double ones[CHUNK] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

/* -log(1 - w) / w for w < SMALL_W */
static inline double log1m_series(double w)
{
    double s = 1.0 / 11;
    s = s * w + 1.0 / 10, s = s * w + 1.0 / 9, s = s * w + 1.0 / 8;
    s = s * w + 1.0 / 7, s = s * w + 1.0 / 6, s = s * w + 1.0 / 5;
    s = s * w + 1.0 / 4, s = s * w + 1.0 / 3, s = s * w + 1.0 / 2;
    return s * w + 1;
}

/* sum of count * log(1 - (k/y)^alpha) over a block with log y given;
 * *tmax >= 0 means some y <= k (F = 0). */
CLONES static double pareto_kernel(const double *restrict logk, const double *restrict alpha,
                                   const double *restrict count, size_t n, double logy,
                                   double *tmax_out)
{
    double acc = 0, tmax = -INFINITY;
#pragma omp simd reduction(+ : acc) reduction(max : tmax)
    for (size_t i = 0; i < n; i++) {
        double t = alpha[i] * (logk[i] - logy);   /* log of the tail (k/y)^alpha */
        tmax = t > tmax ? t : tmax;
        double tc = t < 0 ? t : -1;               /* keep the lane finite */
        acc += count[i] * log1p(-exp(tc));
    }
    *tmax_out = tmax;
    return acc;
}

/* The same for count-1 partners, CHUNK of them at most: returns the
 * series part, *prod_out the product of the large-w factors (1 - w).
 * For a few partners (fewer than CHUNK): cheaper there than the lanes
 * below, which pad to LANES and end with a log1p. */
CLONES static double pareto_series_kernel(const double *restrict logk,
                                          const double *restrict alpha, size_t n, double logy,
                                          double *tmax_out, double *prod_out)
{
    double acc = 0, tmax = -INFINITY, prod = 1;
#pragma omp simd reduction(+ : acc) reduction(max : tmax) reduction(* : prod)
    for (size_t i = 0; i < n; i++) {
        double t = alpha[i] * (logk[i] - logy);
        tmax = t > tmax ? t : tmax;
        double w = exp(t < 0 ? t : -1);
        bool small = w < SMALL_W;
        acc -= small ? w * log1m_series(w) : 0;
        prod *= small ? 1 : 1 - w;
    }
    *tmax_out = tmax;
    *prod_out = prod;
    return acc;
}

/* LANES partners into each lane's product p of (1 - w) and its
 * complement a = 1 - p (see pareto_single_kernel). */
#define LANES 8
static inline void pareto_lanes(const double *restrict logk, const double *restrict alpha,
                                double logy, double *restrict a, double *restrict p,
                                double *restrict tm)
{
#pragma omp simd
    for (size_t j = 0; j < LANES; j++) {
        double t = alpha[j] * (logk[j] - logy);
        tm[j] = t > tm[j] ? t : tm[j];
        double w = exp(t < 0 ? t : -1);
        p[j] *= 1 - w;
        a[j] = a[j] + w - a[j] * w;
    }
}

/* The same for count-1 partners, CHUNK of them at most, as the product
 * P of their (1 - w) and its complement A = 1 - P, each lane carrying
 * both: p *= 1 - w, a += w - a w.  a keeps its own relative precision
 * however small (a step rounds it by a few ulp of itself), where 1 - p
 * would keep only that of 1; p keeps its own where a is near 1.  So
 * log P is log1p(-A) while P > 1/2, else log P: to a few tens of ulp of
 * log P either way, with one exp a partner and no log1p or series.
 * The last lanes of a chunk are padded with w = 0. */
CLONES static void pareto_single_kernel(const double *restrict logk,
                                        const double *restrict alpha, size_t n, double logy,
                                        double *tmax_out, double *a_out, double *p_out)
{
    double a[LANES] = {0}, p[LANES] = {1, 1, 1, 1, 1, 1, 1, 1}, tm[LANES];
    for (size_t j = 0; j < LANES; j++)
        tm[j] = -INFINITY;
    size_t full = n / LANES * LANES;
    for (size_t i = 0; i < full; i += LANES)
        pareto_lanes(logk + i, alpha + i, logy, a, p, tm);
    if (full < n) {
        double lk[LANES], al[LANES];
        for (size_t j = 0; j < LANES; j++) {
            lk[j] = full + j < n ? logk[full + j] : logy - 1e3;   /* w = e^-1000 = 0 */
            al[j] = full + j < n ? alpha[full + j] : 1;
        }
        pareto_lanes(lk, al, logy, a, p, tm);
    }
    double A = 0, P = 1, T = -INFINITY;
    for (size_t j = 0; j < LANES; j++) {
        A = A + a[j] - A * a[j];
        P *= p[j];
        T = tm[j] > T ? tm[j] : T;
    }
    *tmax_out = T;
    *a_out = A;
    *p_out = P;
}

/* The coarse kernel: every factor (1 - w) into the product, no series. */
CLONES static void pareto_prod_kernel(const double *restrict logk, const double *restrict alpha,
                                      size_t n, double logy, double *tmax_out,
                                      double *prod_out)
{
    double tmax = -INFINITY, prod = 1;
#pragma omp simd reduction(max : tmax) reduction(* : prod)
    for (size_t i = 0; i < n; i++) {
        double t = alpha[i] * (logk[i] - logy);
        tmax = t > tmax ? t : tmax;
        prod *= 1 - exp(t < 0 ? t : -1);
    }
    *tmax_out = tmax;
    *prod_out = prod;
}

static double pareto_single(const double *logk, const double *alpha, size_t n, double logy,
                            bool coarse, double *tmax_out)
{
    double acc = 0, tmax = -INFINITY, run = 0;   /* run: 1 - the product of chunks */
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK;
        double tm, prod, a = 1, part = 0;
        if (coarse)
            pareto_prod_kernel(logk + i, alpha + i, m, logy, &tm, &prod);
        else if (n < CHUNK)
            part = pareto_series_kernel(logk + i, alpha + i, m, logy, &tm, &prod);
        else
            pareto_single_kernel(logk + i, alpha + i, m, logy, &tm, &a, &prod);
        tmax = tm > tmax ? tm : tmax;
        if (a < 0.5) {   /* the complement, to its own last digits, joins the run's */
            double joined = run + a - run * a;
            if (joined >= 0.5)
                acc += log1p(-run), joined = a;
            run = joined;
            continue;
        }
        /* a product near underflow (many partners close to their k): the
           chunk again with one log1p each */
        if (!(prod > DBL_MIN * 0x1p64))
            acc += pareto_kernel(logk + i, alpha + i, ones, m, logy, &tm);
        else
            acc += part + log(prod);
    }
    *tmax_out = tmax;
    return acc + log1p(-run);
}

/* sum of count * log Phi(z), z = (x - shift - mu) / sigma, with
 * Q(|z|) = erfc(|z|/sqrt 2)/2: log1p(-Q) above the mean, log Q below. */
CLONES static double normal_kernel(const double *restrict shift, const double *restrict mu,
                                   const double *restrict isig, const double *restrict count,
                                   size_t n, double x)
{
    double acc = 0;
#pragma omp simd reduction(+ : acc)
    for (size_t i = 0; i < n; i++) {
        double z = (x - shift[i] - mu[i]) * isig[i];
        double q = 0.5 * erfc(fabs(z) * 0.70710678118654752440);
        double l = z >= 0 ? log1p(-q) : log(q);
        acc += count[i] * l;
    }
    return acc;
}

/* The same for count-1 partners, CHUNK at most: Q below SMALL_W above
 * the mean takes the series, every other lane goes into the product
 * (1 - Q above the mean, Q below). */
CLONES static double normal_single_kernel(const double *restrict shift,
                                          const double *restrict mu,
                                          const double *restrict isig, size_t n, double x,
                                          double *prod_out)
{
    double acc = 0, prod = 1;
#pragma omp simd reduction(+ : acc) reduction(* : prod)
    for (size_t i = 0; i < n; i++) {
        double z = (x - shift[i] - mu[i]) * isig[i];
        double q = 0.5 * erfc(fabs(z) * 0.70710678118654752440);
        bool small = z >= 0 && q < SMALL_W;
        acc -= small ? q * log1m_series(q) : 0;
        prod *= small ? 1 : z >= 0 ? 1 - q : q;
    }
    *prod_out = prod;
    return acc;
}

/* The coarse kernel: every lane into the product. */
CLONES static double normal_prod_kernel(const double *restrict shift, const double *restrict mu,
                                        const double *restrict isig, size_t n, double x)
{
    double prod = 1;
#pragma omp simd reduction(* : prod)
    for (size_t i = 0; i < n; i++) {
        double z = (x - shift[i] - mu[i]) * isig[i];
        double q = 0.5 * erfc(fabs(z) * 0.70710678118654752440);
        prod *= z >= 0 ? 1 - q : q;
    }
    return prod;
}

static double normal_single(const double *shift, const double *mu, const double *isig,
                            size_t n, double x, bool coarse)
{
    double acc = 0;
    for (size_t i = 0; i < n; i += CHUNK) {
        size_t m = n - i < CHUNK ? n - i : CHUNK;
        double prod, part = 0;
        if (coarse)
            prod = normal_prod_kernel(shift + i, mu + i, isig + i, m, x);
        else
            part = normal_single_kernel(shift + i, mu + i, isig + i, m, x, &prod);
        if (!(prod > DBL_MIN * 0x1p64))
            part = normal_kernel(shift + i, mu + i, isig + i, ones, m, x), prod = 1;
        acc += part + log(prod);
    }
    return acc;
}

/* sum of count * log(1 - (k/y)^alpha), each term from whichever of
 * log1p(-e^t) and log(-expm1(t)) keeps its digits, t as pareto.c's
 * log-CDF takes it: the path for when some partner is near its start. */
static double pareto_near_k(const double *k, const double *alpha, const double *count,
                            size_t n, double y)
{
    double acc = 0;
    for (size_t i = 0; i < n; i++) {
        /* log(k / y), not log k - log y: near k the difference of two
           logs keeps only the digits the two share */
        double t = alpha[i] * log(k[i] / y);
        acc += count[i] * (t < -LN2 ? log1p(-exp(t)) : log(-expm1(t)));
    }
    return acc;
}

/* How many of cut[0..n), sorted descending, are above x. */
static size_t active(const double *cut, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cut[mid] > x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static double eval_plain(const struct gt_lcsum *s, double x);

double gt_lcsum_eval(const struct gt_lcsum *s, double x)
{
    double acc = eval_plain(s, x);
    for (size_t m = 0; m < s->nm && acc > -INFINITY; m++)
        acc += s->mix_count[m] * gt_ladder_logcdf(&s->mix[m], x);
    return acc;
}

double gt_lcsum_eval_keep(const struct gt_lcsum *s, double x, double *logf, double *pdf,
                          double *log0)
{
    double acc = eval_plain(s, x);
    for (size_t m = 0; m < s->nm; m++) {
        logf[m] = gt_ladder_eval(&s->mix[m], x, &pdf[m], &log0[m]);
        acc += s->mix_count[m] * logf[m];
    }
    return acc > -INFINITY ? acc : -INFINITY;
}

long gt_lcsum_slot(const struct gt_lcsum *s, size_t i)
{
    return s->nm ? s->ladder_of[i] : -1;
}

/* the sum over the Pareto, normal and point-mass groups */
static double eval_plain(const struct gt_lcsum *s, double x)
{
    double acc = 0;
    for (size_t i = 0; i < s->nd; i++) {
        if (x < s->d_point[i])
            return -INFINITY;
    }
    for (size_t b = 0; b < s->nblocks; b++) {
        const struct block *bl = &s->blocks[b];
        double y = x - bl->shift, tmax;
        if (!(y > 0))
            return -INFINITY;
        size_t st = bl->start, n = active(s->p_cut + st, bl->end - st, x);
        double part;
        if (bl->single)
            part = pareto_single(s->p_logk + st, s->p_alpha + st, n, log(y), s->coarse, &tmax);
        else
            part = pareto_kernel(s->p_logk + st, s->p_alpha + st, s->p_count + st, n, log(y),
                                 &tmax);
        if (tmax >= 0)
            return -INFINITY;
        /* a partner in the first half of its climb (1 - F > 1/2): there
           1 - e^t cancels, and the kernels' log F loses digits as x nears
           k (1e-9 of it at 1e-7 ms from k), which the shares of being
           slowest, log G less the partner's own log F, would keep; asked
           for by them only (the block summed twice, and with thousands of
           partners one is always near its start) */
        if (tmax > -LN2 && s->exact_starts)
            part = pareto_near_k(s->p_k + st, s->p_alpha + st, s->p_count + st, n, y);
        acc += part;
    }
    size_t n1 = s->nn1, nm = s->nn - n1;
    acc += normal_single(s->n_shift, s->n_mu, s->n_isig, active(s->n_cut, n1, x), x, s->coarse);
    size_t am = active(s->n_cut + n1, nm, x);
    if (am)
        acc += normal_kernel(s->n_shift + n1, s->n_mu + n1, s->n_isig + n1, s->n_count + n1,
                             am, x);
    return acc;
}

/* max over i of log(k_i) + L / alpha_i: the log of the largest Pareto
 * quantile at 1 - p = exp(-L) */
CLONES static double pareto_qmax_kernel(const double *restrict logk,
                                        const double *restrict alpha, size_t n, double L)
{
    double m = -INFINITY;
#pragma omp simd reduction(max : m)
    for (size_t i = 0; i < n; i++) {
        double v = logk[i] + L / alpha[i];
        m = v > m ? v : m;
    }
    return m;
}

/* max over i of mu_i + shift_i + z / isig_i */
CLONES static double normal_qmax_kernel(const double *restrict shift, const double *restrict mu,
                                        const double *restrict isig, size_t n, double z)
{
    double m = -INFINITY;
#pragma omp simd reduction(max : m)
    for (size_t i = 0; i < n; i++) {
        double v = mu[i] + shift[i] + z / isig[i];
        m = v > m ? v : m;
    }
    return m;
}

/* -log(1 - p) and the standard normal quantile of p = exp(log_p) */
static void quantile_args(double log_p, double *L, double *z)
{
    double p = exp(log_p), one_minus = -expm1(log_p);
    *L = -log(one_minus);
    *z = p < 0.5 ? gsl_cdf_ugaussian_Pinv(p) : gsl_cdf_ugaussian_Qinv(one_minus);
}

double gt_lcsum_quantile_max(const struct gt_lcsum *s, double log_p, bool by_count)
{
    double L, z, best = -INFINITY;
    quantile_args(log_p, &L, &z);
    for (size_t b = 0; b < s->nblocks; b++) {
        const struct block *bl = &s->blocks[b];
        for (size_t i = bl->start; i < bl->end && !bl->single && by_count; i++) {
            double Li, zi;
            quantile_args(log_p / s->p_count[i], &Li, &zi);
            best = fmax(best, bl->shift + exp(s->p_logk[i] + Li / s->p_alpha[i]));
        }
        if (bl->single || !by_count)
            best = fmax(best, bl->shift + exp(pareto_qmax_kernel(s->p_logk + bl->start,
                                                                 s->p_alpha + bl->start,
                                                                 bl->end - bl->start, L)));
    }
    size_t n1 = by_count ? s->nn1 : s->nn;
    best = fmax(best, normal_qmax_kernel(s->n_shift, s->n_mu, s->n_isig, n1, z));
    for (size_t i = n1; i < s->nn; i++) {
        double Li, zi;
        quantile_args(log_p / s->n_count[i], &Li, &zi);
        best = fmax(best, s->n_mu[i] + s->n_shift[i] + zi / s->n_isig[i]);
    }
    for (size_t i = 0; i < s->nd; i++)
        best = fmax(best, s->d_point[i]);
    for (size_t m = 0; m < s->nm; m++) {
        const struct gt_ladder *l = &s->mix[m];
        double Lm = L, zm = z;
        if (by_count && s->mix_count[m] != 1)
            quantile_args(log_p / s->mix_count[m], &Lm, &zm);
        best = fmax(best, l->shift + (l->model == &gt_model_pareto
                                          ? l->p[0] * exp(Lm / l->p[1])
                                          : l->p[0] + zm * l->p[1]));
    }
    return best;
}

/* Where n normal partners may stop being evaluated: beyond it, a
 * partner's tail integral of -log F is at most drop and -log F itself
 * below 1e-17.  For z >= 1, -log Phi <= 1.19 Q and int_z^inf Q =
 * phi(z) - z Q(z) <= phi(z).  Vectorized, as pareto_setup_kernel below.
 * drop > 0. */
CLONES static void normal_setup_kernel(const double *restrict mu, const double *restrict sigma,
                                       const double *restrict shift, size_t n, double drop,
                                       double *restrict cut)
{
#pragma omp simd
    for (size_t i = 0; i < n; i++) {
        double l = log(1.19 * sigma[i] / (drop * 2.5066282746310002));
        double z = l > 0 ? sqrt(2 * l) : 0;
        z = z > 8.5 ? z : 8.5;
        cut[i] = shift[i] + mu[i] + sigma[i] * z;
    }
}

/* log k and the cut-off of n Pareto partners: beyond it a partner's tail
 * integral of -log F is at most drop and -log F itself below 1e-17 (with
 * w = (k/y)^alpha <= 1/2 the integral is at most x w / ((alpha - 1)(1 -
 * w)) <= 2 x w / (alpha - 1)); none for alpha <= 1.  Vectorized: with
 * thousands of partners a log and an exp each, called one by one, cost a
 * tenth of an E[max].  drop > 0. */
CLONES static void pareto_setup_kernel(const double *restrict k, const double *restrict alpha,
                                       const double *restrict shift, size_t n, double drop,
                                       double *restrict logk, double *restrict cut)
{
#pragma omp simd
    for (size_t i = 0; i < n; i++) {
        double a = alpha[i], am1 = a > 1 ? a - 1 : 1;   /* a <= 1: the lane kept finite */
        double s = log(2 * k[i] / (am1 * drop)) / am1, s2 = 39.2 / a, s3 = 0.6932 / a;
        s = s > s2 ? s : s2;
        s = s > s3 ? s : s3;
        double c = shift[i] + k[i] * exp(s);
        cut[i] = a > 1 ? c : INFINITY;
        logk[i] = log(k[i]);
    }
}

struct row {
    double shift, a, b, count, cut;   /* a, b: log k and alpha, or mu and sigma */
    double k;
};

/* v's bits as an unsigned key in the same order as v (no NaNs here) */
static uint64_t ordered_bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

#define DIGIT_BITS 11
#define DIGITS_MAX 6   /* 64 bits in digits of 11 */

/* Stable LSD radix sort of idx by the bits of key[idx[j]] from bit lo up,
 * DIGIT_BITS a pass; every digit's counts come from one read of the keys,
 * and a digit that all keys share (all shifts 0, say) costs no pass.
 * qsort's comparison calls cost more than the evaluations for a few
 * hundred partners. */
static void radix_by(uint32_t *idx, uint32_t *tmp, const uint64_t *key, size_t n, int lo)
{
    enum { B = 1 << DIGIT_BITS };
    static _Thread_local uint32_t cnt[DIGITS_MAX][B + 1];
    int nd = (64 - lo + DIGIT_BITS - 1) / DIGIT_BITS;
    if (n < 64) {   /* insertion: fewer steps than clearing the counts */
        uint64_t mask = lo ? ~UINT64_C(0) << lo : ~UINT64_C(0);
        for (size_t j = 1; j < n; j++) {
            uint32_t v = idx[j];
            size_t i = j;
            for (; i > 0 && (key[idx[i - 1]] & mask) > (key[v] & mask); i--)
                idx[i] = idx[i - 1];
            idx[i] = v;
        }
        return;
    }
    memset(cnt, 0, (size_t)nd * sizeof cnt[0]);
    for (size_t j = 0; j < n; j++)
        for (int d = 0; d < nd; d++)
            cnt[d][((key[idx[j]] >> (lo + d * DIGIT_BITS)) & (B - 1)) + 1]++;
    for (int d = 0; d < nd; d++) {
        int sh = lo + d * DIGIT_BITS;
        uint32_t *c = cnt[d];
        if (c[((key[idx[0]] >> sh) & (B - 1)) + 1] == n)
            continue;
        for (int b = 0; b < B; b++)
            c[b + 1] += c[b];
        for (size_t j = 0; j < n; j++)
            tmp[c[(key[idx[j]] >> sh) & (B - 1)]++] = idx[j];
        memcpy(idx, tmp, n * sizeof *idx);
    }
}

/* idx: rows by shift (when by_shift), then count-1 partners first, then
 * cut-off descending.  The cut-offs are ordered by their leading 33 bits
 * only (three passes, not six): monotone_cuts then raises each to the
 * largest after it, so the partners active at x are still a prefix. */
static void order_rows(const struct row *rows, size_t n, bool by_shift, uint32_t *idx,
                       uint32_t *tmp, uint64_t *key)
{
    for (size_t i = 0; i < n; i++) {
        idx[i] = (uint32_t)i;
        key[i] = ~ordered_bits(rows[i].cut);
    }
    if (n < 2)
        return;
    radix_by(idx, tmp, key, n, 64 - 3 * DIGIT_BITS);
    size_t singles = 0, others = 0;   /* stable: count-1 rows first */
    for (size_t j = 0; j < n; j++)
        singles += rows[idx[j]].count == 1;
    for (size_t j = 0; j < n; j++) {
        size_t at = rows[idx[j]].count == 1 ? j - others : singles + others++;
        tmp[at] = idx[j];
    }
    memcpy(idx, tmp, n * sizeof *idx);
    if (!by_shift)
        return;
    for (size_t i = 0; i < n; i++)
        key[i] = ordered_bits(rows[i].shift);
    radix_by(idx, tmp, key, n, 0);
}

/* cut[from..to) made non-increasing by raising each to the largest after
 * it: a cut-off is where a partner may leave the sum, so a later one only
 * keeps it a little longer (exactly evaluated, never a term lost) */
static void monotone_cuts(double *cut, size_t from, size_t to)
{
    for (size_t j = to; j > from + 1; j--)
        if (cut[j - 2] < cut[j - 1])
            cut[j - 2] = cut[j - 1];
}

static bool fill_pareto(struct gt_lcsum *s, const struct row *rows, const uint32_t *idx)
{
    size_t nb = 0;
    for (size_t j = 0; j < s->np; j++) {
        const struct row *r = &rows[idx[j]], *prev = j ? &rows[idx[j - 1]] : NULL;
        nb += !prev || r->shift != prev->shift || (r->count == 1) != (prev->count == 1);
    }
    if (nb > s->blocks_cap) {
        struct block *b = realloc(s->blocks, nb * sizeof *b);
        if (!b)
            return false;
        s->blocks = b;
        s->blocks_cap = nb;
    }
    for (size_t j = 0; j < s->np; j++) {
        const struct row *r = &rows[idx[j]], *prev = j ? &rows[idx[j - 1]] : NULL;
        s->p_logk[j] = r->a;
        s->p_k[j] = r->k;
        s->p_alpha[j] = r->b;
        s->p_count[j] = r->count;
        s->p_cut[j] = r->cut;
        if (!prev || r->shift != prev->shift || (r->count == 1) != (prev->count == 1)) {
            if (s->nblocks)
                s->blocks[s->nblocks - 1].end = j;
            s->blocks[s->nblocks++] = (struct block){j, s->np, r->shift, r->count == 1};
        }
    }
    for (size_t b = 0; b < s->nblocks; b++)
        monotone_cuts(s->p_cut, s->blocks[b].start, s->blocks[b].end);
    return true;
}

static void fill_normal(struct gt_lcsum *s, const struct row *rows, const uint32_t *idx)
{
    for (size_t j = 0; j < s->nn; j++) {
        const struct row *r = &rows[idx[j]];
        s->n_shift[j] = r->shift;
        s->n_mu[j] = r->a;
        s->n_isig[j] = 1 / r->b;
        s->n_count[j] = r->count;
        s->n_cut[j] = r->cut;
        s->nn1 += r->count == 1;
    }
    monotone_cuts(s->n_cut, 0, s->nn1);
    monotone_cuts(s->n_cut, s->nn1, s->nn);
}

/* Room for ng groups, keeping what is there when it is enough. */
static bool reserve(struct gt_lcsum *s, size_t ng)
{
    if (ng <= s->cap)
        return true;
    size_t cap = ng > 2 * s->cap ? ng : 2 * s->cap;
    double *mem = malloc(12 * cap * sizeof *mem);
    char *scratch = malloc(cap * (sizeof(struct row) + 2 * sizeof(uint32_t) +
                                  sizeof(uint64_t)));
    if (!mem || !scratch) {
        free(mem);
        free(scratch);
        return false;
    }
    free(s->mem);
    free(s->scratch);
    s->mem = mem;
    s->scratch = scratch;
    s->cap = cap;
    return true;
}

/* Room for nm ladders of ng groups; only asked for when there are some
 * (a loss-free call allocates and touches nothing more). */
static bool reserve_ladders(struct gt_lcsum *s, size_t nm, size_t ng)
{
    if (nm > s->mix_cap) {
        struct gt_ladder *mix = realloc(s->mix, nm * sizeof *mix);
        if (!mix)
            return false;
        s->mix = mix;
        s->mix_cap = nm;
    }
    if (ng > s->of_cap) {
        long *of = realloc(s->ladder_of, ng * sizeof *of);
        if (!of)
            return false;
        s->ladder_of = of;
        s->of_cap = ng;
    }
    return true;
}

/* Compile the lossy groups into ladders; false on ENOMEM. */
static bool fill_ladders(struct gt_lcsum *s, const struct gt_partner_group *g, size_t ng,
                         const struct gt_lcsum_opts *o)
{
    size_t need = 0, nl = 0;
    int *terms = (int *)s->scratch;   /* the rows are not needed any more */
    for (size_t i = 0; i < ng; i++) {
        const struct gt_dist *d = &g[i].dist;
        bool lossy = !(o->skip && o->skip[i]) && d->loss_p > 0 &&
                     (d->model == &gt_model_pareto || d->model == &gt_model_normal);
        terms[i] = lossy ? gt_ladder_terms(d->loss_p, d->rto_ms, o->loss_budget) : 0;
        need += GT_LADDER_PER_TERM * (size_t)terms[i];
        nl += lossy;
    }
    if (!nl)
        return true;
    if (!reserve_ladders(s, nl, ng))
        return false;
    if (need > s->lmem_cap) {
        double *m = malloc(need * sizeof *m);
        if (!m)
            return false;
        free(s->lmem);
        s->lmem = m;
        s->lmem_cap = need;
    }
    size_t at = 0;
    for (size_t i = 0; i < ng; i++) {
        s->ladder_of[i] = terms[i] ? (long)s->nm : -1;
        if (!terms[i])
            continue;
        gt_ladder_compile(&g[i].dist, terms[i], s->lmem + at, &s->mix[s->nm]);
        s->mix_count[s->nm++] = g[i].count;
        at += GT_LADDER_PER_TERM * (size_t)terms[i];
    }
    return true;
}

bool gt_lcsum_build(struct gt_lcsum *s, const struct gt_partner_group *g, size_t ng,
                    double drop)
{
    struct gt_lcsum_opts o = {drop, 0, NULL};
    return gt_lcsum_compile(s, g, ng, &o);
}

/* whether group i goes into the Pareto or normal rows: loss-free, not skipped */
static bool plain(const struct gt_partner_group *g, size_t i, const struct gt_lcsum_opts *o,
                  const struct gt_model *m)
{
    return g[i].dist.model == m && !(g[i].dist.loss_p > 0) && !(o->skip && o->skip[i]);
}

bool gt_lcsum_compile(struct gt_lcsum *s, const struct gt_partner_group *g, size_t ng,
                      const struct gt_lcsum_opts *o)
{
    double drop = o->drop;
    s->np = s->nn = s->nn1 = s->nd = s->nblocks = s->nm = 0;
    if (!reserve(s, ng ? ng : 1))
        return false;
    size_t n1 = s->cap;
    struct row *rows = (struct row *)s->scratch;
    uint64_t *key = (uint64_t *)(rows + n1);
    uint32_t *idx = (uint32_t *)(key + n1), *tmp = idx + n1;
    double *m = s->mem;
    s->p_logk = m, s->p_alpha = m + n1, s->p_count = m + 2 * n1, s->p_cut = m + 3 * n1;
    s->n_shift = m + 4 * n1, s->n_mu = m + 5 * n1, s->n_isig = m + 6 * n1;
    s->n_count = m + 7 * n1, s->n_cut = m + 8 * n1, s->d_point = m + 9 * n1;
    s->mix_count = m + 10 * n1, s->p_k = m + 11 * n1;
    for (size_t i = 0; i < ng; i++) {
        const struct gt_dist *d = &g[i].dist;
        if (plain(g, i, o, &gt_model_pareto)) {
            s->p_k[s->np] = d->p[0], s->p_alpha[s->np] = d->p[1];
            s->p_count[s->np] = d->shift;   /* the arrays lend room until fill_pareto */
            rows[s->np++] = (struct row){d->shift, 0, d->p[1], g[i].count, INFINITY, d->p[0]};
        }
    }
    if (drop > 0) {
        pareto_setup_kernel(s->p_k, s->p_alpha, s->p_count, s->np, drop, s->p_logk, s->p_cut);
        for (size_t i = 0; i < s->np; i++)
            rows[i].a = s->p_logk[i], rows[i].cut = s->p_cut[i];
    } else {
        for (size_t i = 0; i < s->np; i++)
            rows[i].a = log(rows[i].k);
    }
    order_rows(rows, s->np, true, idx, tmp, key);
    if (!fill_pareto(s, rows, idx)) {
        s->np = s->nblocks = 0;
        return false;
    }
    for (size_t i = 0; i < ng; i++) {
        const struct gt_dist *d = &g[i].dist;
        if (plain(g, i, o, &gt_model_normal)) {
            s->n_mu[s->nn] = d->p[0], s->n_isig[s->nn] = d->p[1];
            s->n_shift[s->nn] = d->shift;   /* room lent until fill_normal */
            rows[s->nn++] = (struct row){d->shift, d->p[0], d->p[1], g[i].count, INFINITY, 0};
        } else if (d->model != &gt_model_pareto && d->model != &gt_model_normal &&
                 !(o->skip && o->skip[i]))
            s->d_point[s->nd++] = d->p[0] + d->shift;
    }
    if (drop > 0) {
        normal_setup_kernel(s->n_mu, s->n_isig, s->n_shift, s->nn, drop, s->n_cut);
        for (size_t i = 0; i < s->nn; i++)
            rows[i].cut = s->n_cut[i];
    }
    order_rows(rows, s->nn, false, idx, tmp, key);
    fill_normal(s, rows, idx);
    if (!fill_ladders(s, g, ng, o)) {
        s->np = s->nn = s->nn1 = s->nd = s->nblocks = 0;
        return false;
    }
    return true;
}

const struct gt_ladder *gt_lcsum_ladder(const struct gt_lcsum *s, size_t i)
{
    return s->nm && s->ladder_of[i] >= 0 ? &s->mix[s->ladder_of[i]] : NULL;
}

size_t gt_lcsum_ladders(const struct gt_lcsum *s)
{
    return s->nm;
}

void gt_lcsum_set_coarse(struct gt_lcsum *s, bool coarse)
{
    s->coarse = coarse;
}

void gt_lcsum_set_exact_starts(struct gt_lcsum *s, bool exact)
{
    s->exact_starts = exact;
}

struct gt_lcsum *gt_lcsum_new(const struct gt_partner_group *g, size_t ng, double drop)
{
    struct gt_lcsum *s = calloc(1, sizeof *s);
    if (s && !gt_lcsum_build(s, g, ng, drop)) {
        gt_lcsum_free(s);
        return NULL;
    }
    return s;
}

void gt_lcsum_free(struct gt_lcsum *s)
{
    if (!s)
        return;
    free(s->mem);
    free(s->scratch);
    free(s->blocks);
    free(s->mix);
    free(s->ladder_of);
    free(s->lmem);
    free(s);
}
