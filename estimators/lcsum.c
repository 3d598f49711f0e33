/*
 * lcsum.c - the vectorized log-CDF sum behind E[max].
 *
 * The kernels are plain loops over arrays; compiled with -O3
 * -fno-math-errno -fopenmp-simd (see the Makefile) GCC turns the calls to
 * exp, log1p, log and erfc below into calls to their libmvec variants,
 * declared here the way glibc's math-vector.h declares them under
 * -ffast-math (which the rest of gridtail must not use).  target_clones
 * adds an AVX2 build of each kernel, picked at load time where the CPU
 * has it.  Accuracy: libmvec's functions are within 4 ulp.
 */
#include "lcsum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SIMD_DECL __attribute__((simd("notinbranch")))
#define CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SIMD_DECL
#define CLONES
#endif

double exp(double) SIMD_DECL;
double log(double) SIMD_DECL;
double log1p(double) SIMD_DECL;
double erfc(double) SIMD_DECL;

struct block {
    size_t start, end;    /* Pareto partners [start, end) share a shift */
    double shift;
};

struct gt_lcsum {
    size_t np, nn, nd, nblocks;
    double *p_logk, *p_alpha, *p_count;
    struct block *blocks;
    double *n_shift, *n_mu, *n_isig, *n_count;
    double *d_point, *d_count;
    double *mem;
};

/* sum of count * log(1 - (k/y)^alpha) over a block with log y given;
 * *tmax > 0 or = 0 means some y <= k (F = 0). */
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

double gt_lcsum_eval(const struct gt_lcsum *s, double x)
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
        acc += pareto_kernel(s->p_logk + bl->start, s->p_alpha + bl->start,
                             s->p_count + bl->start, bl->end - bl->start, log(y), &tmax);
        if (tmax >= 0)
            return -INFINITY;
    }
    if (s->nn)
        acc += normal_kernel(s->n_shift, s->n_mu, s->n_isig, s->n_count, s->nn, x);
    return acc;
}

struct pareto_row {
    double shift, logk, alpha, count;
};

static int by_shift(const void *a, const void *b)
{
    double x = ((const struct pareto_row *)a)->shift, y = ((const struct pareto_row *)b)->shift;
    return (x > y) - (x < y);
}

static void fill_pareto(struct gt_lcsum *s, struct pareto_row *rows)
{
    qsort(rows, s->np, sizeof *rows, by_shift);
    for (size_t i = 0; i < s->np; i++) {
        s->p_logk[i] = rows[i].logk;
        s->p_alpha[i] = rows[i].alpha;
        s->p_count[i] = rows[i].count;
        if (i == 0 || rows[i].shift != rows[i - 1].shift) {
            if (s->nblocks)
                s->blocks[s->nblocks - 1].end = i;
            s->blocks[s->nblocks++] = (struct block){i, s->np, rows[i].shift};
        }
    }
}

struct gt_lcsum *gt_lcsum_new(const struct gt_partner_group *g, size_t ng)
{
    struct gt_lcsum *s = calloc(1, sizeof *s);
    struct pareto_row *rows = calloc(ng ? ng : 1, sizeof *rows);
    if (!s || !rows || !(s->mem = calloc(9 * (ng ? ng : 1), sizeof(double))) ||
        !(s->blocks = calloc(ng ? ng : 1, sizeof *s->blocks))) {
        free(rows);
        gt_lcsum_free(s);
        return NULL;
    }
    double *m = s->mem;
    s->p_logk = m, s->p_alpha = m + ng, s->p_count = m + 2 * ng;
    s->n_shift = m + 3 * ng, s->n_mu = m + 4 * ng, s->n_isig = m + 5 * ng;
    s->n_count = m + 6 * ng, s->d_point = m + 7 * ng, s->d_count = m + 8 * ng;
    for (size_t i = 0; i < ng; i++) {
        const struct gt_dist *d = &g[i].dist;
        if (d->model == &gt_model_pareto) {
            rows[s->np++] = (struct pareto_row){d->shift, log(d->p[0]), d->p[1], g[i].count};
        } else if (d->model == &gt_model_normal) {
            s->n_shift[s->nn] = d->shift;
            s->n_mu[s->nn] = d->p[0];
            s->n_isig[s->nn] = 1 / d->p[1];
            s->n_count[s->nn++] = g[i].count;
        } else {
            s->d_point[s->nd] = d->p[0] + d->shift;
            s->d_count[s->nd++] = g[i].count;
        }
    }
    fill_pareto(s, rows);
    free(rows);
    return s;
}

void gt_lcsum_free(struct gt_lcsum *s)
{
    if (!s)
        return;
    free(s->mem);
    free(s->blocks);
    free(s);
}
