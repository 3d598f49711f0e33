/*
 * chebfit.c - piecewise Chebyshev fits and their integrals (chebfit.h).
 *
 * On a panel [lo, hi], t = (2x - lo - hi) / (hi - lo) in [-1, 1]; f is
 * sampled at t_j = cos(pi (j + 1/2) / M), its series sum a_k T_k(t) comes
 * from the discrete cosine sums, and the antiderivative's series sum B_k T_k
 * from B_k = (a_{k-1} - a_{k+1}) / (2k) (a_0 counted twice for k = 1),
 * B_0 chosen so that it is 0 at t = -1.  A panel's integral up to x is
 * then (hi - lo) / 2 times that series at t(x), by Clenshaw's recurrence.
 */
#define _DEFAULT_SOURCE
#include "chebfit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#define N GT_CHEB_N       /* the finest level's nodes */
#define NB (N + 1)       /* the antiderivative's coefficients, at most */
/* a function's record in a panel: its total, the totals before (cum), the
 * antiderivative's coefficients B and the series' own A */
#define PER (2 + 2 * NB)
#define REC_B 2
#define REC_A (2 + NB)
#define NOISE 1e-13      /* a tail this small against the values is their rounding */

struct panel {
    double lo, hi;       /* in w = ln(x - origin) */
    double origin, xlo;  /* xlo = origin + e^lo, where it starts in x */
    int nb;              /* coefficients used: the level's M + 1 */
};

struct gt_cheb {
    struct panel *p;
    /* the fit in hand: the caller's function, and its segment's origin */
    void (*f)(double, void *, double *);
    void *ctx;
    double origin;
    double *rec;         /* m records of PER doubles per panel */
    double a, b;         /* the range fitted, as given */
    size_t n, cap, m;
    size_t evals;

    /* scratch: values at the N + 1 points and one panel's records */
    double *v, *work;
    size_t m_cap;
};

/* The nodes and the cosine sums' matrices of the two levels, made once
 * for every thread. */
static struct {
    double cosines[4 * N];   /* cos(pi k / (2 N)) */
    double dct1[N / 3][N / 3], dct2[N][N];   /* cos(pi k (j + 1/2) / M) */
    double dct1t[N / 3][N / 3], dct2t[N][N]; /* the same transposed: [j][k] */
} tables;
static once_flag tables_once = ONCE_FLAG_INIT;

static void make_tables(void)
{
    for (int k = 0; k < 4 * N; k++)
        tables.cosines[k] = cos(M_PI * k / (2 * N));
    for (int k = 0; k < N / 3; k++)
        for (int j = 0; j < N / 3; j++)
            tables.dct1[k][j] = tables.dct1t[j][k] = cos(M_PI * k * (j + 0.5) / (N / 3));
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            tables.dct2[k][j] = tables.dct2t[j][k] = cos(M_PI * k * (j + 0.5) / N);
}

struct gt_cheb *gt_cheb_new(void)
{
    call_once(&tables_once, make_tables);
    return calloc(1, sizeof(struct gt_cheb));
}

void gt_cheb_free(struct gt_cheb *c)
{
    if (!c)
        return;
    free(c->p);
    free(c->rec);
    free(c->v);
    free(c->work);
    free(c);
}

size_t gt_cheb_evaluations(const struct gt_cheb *c)
{
    return c->evals;
}

/* sum_{k < nb} B_k T_k(t) */
static double clenshaw(const double *B, int nb, double t)
{
    double b1 = 0, b2 = 0;
    for (int k = nb - 1; k >= 1; k--) {
        double b0 = B[k] + 2 * t * b1 - b2;
        b2 = b1;
        b1 = b0;
    }
    return B[0] + t * b1 - b2;
}

/* a_k = 2/M sum_j v_j cos(pi k (j + 1/2) / M) from one function's values
 * at the M nodes of a level (v[j], j = 0..M-1, t_j = cos(pi (j + 1/2) /
 * M)); series() makes its record (total, -, B) in rec, a_0 halved. */
static double coefficient(const double *v, int M, int k)
{
    const double *row = M == N ? tables.dct2[k] : tables.dct1[k];
    double s = 0;
    for (int j = 0; j < M; j++)
        s += v[j] * row[j];
    return s * 2 / M;
}

/* The size of the last three coefficients: the test of a fit, before
 * the whole series is worth computing. */
static double tail_of(const double *v, int M)
{
    return fabs(coefficient(v, M, M - 3)) + fabs(coefficient(v, M, M - 2)) +
           fabs(coefficient(v, M, M - 1));
}

static void series(const double *v, int M, double half, double *rec)
{
    /* all coefficients at once, a value at a time: the M sums are
       independent, where one sum's adds would wait on each other */
    double a[N + 2] = {0};
    for (int j = 0; j < M; j++) {
        const double *col = M == N ? tables.dct2t[j] : tables.dct1t[j];
        for (int k = 0; k < M; k++)
            a[k] += v[j] * col[k];
    }
    for (int k = 0; k < M; k++)
        a[k] *= 2.0 / M;
    a[0] /= 2;
    double *B = rec + REC_B, at_minus1 = 0;
    memcpy(rec + REC_A, a, (size_t)M * sizeof *a);
    for (int k = 1; k <= M; k++) {
        B[k] = (a[k - 1] * (k == 1 ? 2 : 1) - a[k + 1]) / (2 * k);
        at_minus1 += k % 2 ? -B[k] : B[k];
    }
    B[0] = -at_minus1;
    rec[0] = half * clenshaw(B, M + 1, 1);
}

/* The caller's m functions at w (x = origin + e^w), times dx/dw. */
static void eval_at(struct gt_cheb *c, double w, double *out)
{
    double d = exp(w), x = c->origin + d;
    c->f(x, c->ctx, out);
    for (size_t i = 0; i < c->m; i++)
        out[i] = isfinite(d) ? out[i] * d : 0;
}

/* Fit [lo, hi] at 11, then 33 Chebyshev points of the first kind (inside
 * the panel: a function that jumps at an end, a density at its partner's
 * start, is never asked there); true (records in c->work, *nb set) when
 * every function's tail is within per_width. */
static bool fit_panel(struct gt_cheb *c, double lo, double hi, const double *tol, double span,
                      int *nb)
{
    double mid = (lo + hi) / 2, half = (hi - lo) / 2;
    /* x = origin + e^w is rounded to |x|'s ulp, |x| / hx of the
       panel's width hx in x: a function resolved on the panel (a partner
       shifted far, climbing within it) carries that much more noise.  A
       panel passed at that floor is off by NOISE |x| / hx times its
       values times its width in w, hx / (x - origin): NOISE of them. */
    double hx = exp(lo) * expm1(hi - lo);
    double ax = fmax(fabs(c->origin + exp(lo)), fabs(c->origin + exp(hi)));
    double noise = NOISE * (1 + ax / hx);
    size_t m = c->m;
    for (int M = N / 3, done = 0; M <= N; done = M, M *= 3) {
        int step = N / M;
        for (int j = step / 2; j < N; j += step) {
            if (done && j % 3 == 1)
                continue;   /* the coarser level's node */
            /* node j: t = cos(pi (j + 1/2) / N) */
            eval_at(c, mid + half * tables.cosines[2 * j + 1], c->v + (size_t)j * m);
            c->evals++;
        }
        bool ok = true;
        double col[N];
        for (size_t i = 0; i < m && ok; i++) {
            double big = 0;
            for (int j = step / 2, jl = 0; j < N; j += step, jl++)
                big = fmax(big, fabs(col[jl] = c->v[(size_t)j * m + i]));
            /* the values' rounding is a floor no panel gets below
               however small: a steep function's x rounded costs more
               than its own ulp.  A panel whose whole error is a
               4 * GT_CHEB_MAX_PANELS-th of the tolerance passes too. */
            double tail = tail_of(col, M);
            double per_width = tol[i] / span / 2, floor_abs = tol[i] / (4.0 * GT_CHEB_MAX_PANELS);
            ok = tail <= per_width || tail <= noise * big || 2 * half * tail <= floor_abs;
        }
        if (!ok)
            continue;
        for (size_t i = 0; i < m; i++) {
            for (int j = step / 2, jl = 0; j < N; j += step, jl++)
                col[jl] = c->v[(size_t)j * m + i];
            series(col, M, half, c->work + i * PER);
        }
        *nb = M + 1;
        return true;
    }
    return false;
}

static bool push_panel(struct gt_cheb *c, double lo, double hi, int nb)
{
    size_t m = c->m;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        struct panel *p = realloc(c->p, cap * sizeof *p);
        if (p)
            c->p = p;
        double *rec = p ? realloc(c->rec, cap * m * PER * sizeof *rec) : NULL;
        if (!rec)
            return false;
        c->rec = rec;
        c->cap = cap;
    }
    double *r = c->rec + c->n * m * PER;
    memcpy(r, c->work, m * PER * sizeof *r);
    for (size_t i = 0; i < m; i++) {
        const double *prev = c->n ? r - m * PER + i * PER : NULL;
        r[i * PER + 1] = prev ? prev[1] + prev[0] : 0;
    }
    c->p[c->n++] = (struct panel){lo, hi, c->origin, c->origin + exp(lo), nb};
    return true;
}

/* Fit [lo, hi] in panels, left to right, halving where the tails are too
 * large: a stack of the segments still to do, the leftmost on top. */
static bool fit_segment(struct gt_cheb *c, double lo, double hi, const double *tol, double span)
{
    struct { double lo, hi; } stack[64];
    int top = 0;
    stack[top].lo = lo, stack[top].hi = hi, top++;
    while (top > 0) {
        top--;
        double l = stack[top].lo, h = stack[top].hi, m = l + (h - l) / 2;
        int nb;
        if (fit_panel(c, l, h, tol, span, &nb)) {
            if (c->n >= GT_CHEB_MAX_PANELS || !push_panel(c, l, h, nb))
                return false;
            continue;
        }
        if (!(m > l && m < h) || top >= 62)
            return false;
        stack[top].lo = m, stack[top].hi = h, top++;
        stack[top].lo = l, stack[top].hi = m, top++;
    }
    return true;
}

static bool reserve(struct gt_cheb *c, size_t m)
{
    if (m <= c->m_cap)
        return true;
    double *v = malloc(N * m * sizeof *v), *work = malloc(m * PER * sizeof *work);
    if (!v || !work) {
        free(v);
        free(work);
        return false;
    }
    free(c->v);
    free(c->work);
    free(c->rec);
    c->v = v;
    c->work = work;
    c->rec = NULL;
    c->cap = 0;
    c->m_cap = m;
    return true;
}

bool gt_cheb_fit(struct gt_cheb *c, void (*f)(double, void *, double *), void *ctx, size_t m,
                 double a, double b, const double *bp, const double *origin, size_t nbp,
                 const double *tol)
{
    c->n = 0;
    c->evals = 0;
    c->a = a;
    c->b = b;
    if (!reserve(c, m ? m : 1))
        return false;
    if (c->m != m) {   /* records of another size: start the panels anew */
        free(c->rec);
        c->rec = NULL;
        c->cap = 0;
    }
    c->m = m;
    c->f = f;
    c->ctx = ctx;
    /* a panel's error is at most about twice its tail times its half
       width: tails within tol / W / 2, W the segments' widths in w in
       all, keep the range within tol */
    double span = 0, lo = a;
    for (size_t i = 0; i <= nbp; i++) {
        double hi = i < nbp ? fmin(bp[i], b) : b;
        if (!(hi > lo))
            continue;
        span += log((hi - origin[i]) / (lo - origin[i]));
        lo = hi;
    }
    lo = a;
    for (size_t i = 0; i <= nbp && span > 0; i++) {
        double hi = i < nbp ? fmin(bp[i], b) : b;
        if (!(hi > lo))
            continue;
        c->origin = origin[i];
        if (!(lo > origin[i]) ||
            !fit_segment(c, log(lo - origin[i]), log(hi - origin[i]), tol, span))
            return false;
        lo = hi;
    }
    return true;
}

/* the panel holding x: the last one starting at or below it */
static size_t panel_of(const struct gt_cheb *c, double x)
{
    size_t lo = 0, hi = c->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->p[mid].xlo <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* function i's integral over panel k from its start to x */
static double upto(const struct gt_cheb *c, size_t k, size_t i, double x)
{
    const struct panel *pn = &c->p[k];
    double half = (pn->hi - pn->lo) / 2, w = x > pn->origin ? log(x - pn->origin) : pn->lo;
    double t = (2 * w - pn->lo - pn->hi) / (pn->hi - pn->lo);
    t = t < -1 ? -1 : t > 1 ? 1 : t;
    return half * clenshaw(c->rec + (k * c->m + i) * PER + REC_B, pn->nb, t);
}

double gt_cheb_integral(const struct gt_cheb *c, size_t i, double x0, double x1)
{
    if (!c->n || !(x1 > x0))
        return 0;
    size_t k0 = panel_of(c, x0), k1 = panel_of(c, x1);
    double a = upto(c, k0, i, x0), b = upto(c, k1, i, x1);
    if (k0 == k1)
        return b - a;
    const double *r0 = c->rec + (k0 * c->m + i) * PER, *r1 = c->rec + (k1 * c->m + i) * PER;
    const double *rn = c->rec + ((k0 + 1) * c->m + i) * PER;
    return (r0[0] - a) + (r1[1] - rn[1]) + b;
}

/* sum_{k < nb} B_k T_k(t) for the m records at rec (stride PER), their B
 * at offset off, into out: m recurrences side by side, whose steps do
 * not wait on each other as one recurrence's do */
static void clenshaw_many(const double *rec, size_t m, size_t off, int nb, double t,
                          double *b1, double *b2, double *out)
{
    if (m == 1) {   /* E[max] alone (a placement's sets): in registers */
        out[0] = clenshaw(rec + off, nb, t);
        return;
    }
    for (size_t i = 0; i < m; i++)
        b1[i] = b2[i] = 0;
    for (int k = nb - 1; k >= 1; k--)
        for (size_t i = 0; i < m; i++) {
            double b0 = rec[i * PER + off + (size_t)k] + 2 * t * b1[i] - b2[i];
            b2[i] = b1[i];
            b1[i] = b0;
        }
    for (size_t i = 0; i < m; i++)
        out[i] = rec[i * PER + off] + t * b1[i] - b2[i];
}

/* t of x in panel k */
static double t_of(const struct panel *pn, double x)
{
    double w = x > pn->origin ? log(x - pn->origin) : pn->lo;
    double t = (2 * w - pn->lo - pn->hi) / (pn->hi - pn->lo);
    return t < -1 ? -1 : t > 1 ? 1 : t;
}

void gt_cheb_values(const struct gt_cheb *c, size_t i, const double *x, size_t n, double *out)
{
    size_t m = c->m;
    for (size_t j = 0, k = 0; j < n; j++) {
        /* the range as given, not the panels' ends in x: origin + e^lo
           may round above a (a table's lowest point at a took 0 there,
           and its share of the max 1 / n too much) */
        if (!c->n || x[j] < c->a || x[j] > c->b) {
            out[j] = 0;
            continue;
        }
        if (j && x[j] < x[j - 1])
            k = 0;   /* not ascending: search from the start */
        while (k + 1 < c->n && c->p[k + 1].xlo <= x[j])
            k++;
        const struct panel *pn = &c->p[k];
        /* the fit is of f dx/dw */
        out[j] = clenshaw(c->rec + (k * m + i) * PER + REC_A, pn->nb - 1, t_of(pn, x[j])) /
                 (x[j] - pn->origin);
    }
}

bool gt_cheb_intervals(const struct gt_cheb *c, const double *x, size_t n, double *out)
{
    size_t m = c->m;
    if (n < 2)
        return true;
    if (!c->n) {
        memset(out, 0, (n - 1) * m * sizeof *out);
        return true;
    }
    double *prev = malloc(4 * m * sizeof *prev), *cur = prev + m, *b = prev + 2 * m;
    if (!prev)
        return false;
    size_t k = panel_of(c, x[0]);
    const struct panel *pk = &c->p[k];
    clenshaw_many(c->rec + k * m * PER, m, REC_B, pk->nb, t_of(pk, x[0]), b, b + m, prev);
    for (size_t j = 1; j < n; j++) {
        size_t kb = k;
        while (kb + 1 < c->n && c->p[kb + 1].xlo <= x[j])
            kb++;
        const struct panel *pb = &c->p[kb];
        clenshaw_many(c->rec + kb * m * PER, m, REC_B, pb->nb, t_of(pb, x[j]), b, b + m, cur);
        for (size_t i = 0; i < m; i++) {
            double hb = (pb->hi - pb->lo) / 2 * cur[i], ha = (pk->hi - pk->lo) / 2 * prev[i];
            double *o = &out[(j - 1) * m + i];
            if (kb == k) {
                *o = hb - ha;
            } else {
                const double *rk = c->rec + (k * m + i) * PER, *rb = c->rec + (kb * m + i) * PER;
                const double *rn = c->rec + ((k + 1) * m + i) * PER;
                *o = (rk[0] - ha) + (rb[1] - rn[1]) + hb;
            }
            prev[i] = cur[i];
        }
        k = kb;
        pk = pb;
    }
    free(prev);
    return true;
}
