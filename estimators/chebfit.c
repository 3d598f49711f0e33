/*
 * chebfit.c - piecewise Chebyshev fits and their integrals (chebfit.h).
 *
 * On a panel [lo, hi], t = (2x - lo - hi) / (hi - lo) in [-1, 1]; f is
 * sampled at t_j = cos(pi j / n), its series sum a_k T_k(t) comes from
 * the discrete cosine sums, and the antiderivative's series sum B_k T_k
 * from B_k = (a_{k-1} - a_{k+1}) / (2k) (a_0 counted twice for k = 1),
 * B_0 chosen so that it is 0 at t = -1.  A panel's integral up to x is
 * then (hi - lo) / 2 times that series at t(x), by Clenshaw's recurrence.
 */
#define _DEFAULT_SOURCE
#include "chebfit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N GT_CHEB_N
#define NB (N + 2)       /* the antiderivative's coefficients, at most */
#define PER (NB + 2)     /* a function's record in a panel: total, cum, B */

struct panel {
    double lo, hi;
    int nb;              /* coefficients used: the level's n + 2 */
};

struct gt_cheb {
    struct panel *p;
    double *rec;         /* m records of PER doubles per panel */
    size_t n, cap, m;
    size_t evals;
    double cosines[2 * N];   /* cos(pi k / N) */
    /* scratch: values at the N + 1 points and one panel's records */
    double *v, *work;
    size_t m_cap;
};

struct gt_cheb *gt_cheb_new(void)
{
    struct gt_cheb *c = calloc(1, sizeof *c);
    if (c)
        for (int k = 0; k < 2 * N; k++)
            c->cosines[k] = cos(M_PI * k / N);
    return c;
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

/* From the n + 1 values v[j * (N / n)] (j = 0..n) of one function, its
 * record (total, -, B) in rec; returns its series' tail. */
static double series(const struct gt_cheb *c, const double *v, int n, double half, double *rec)
{
    int step = N / n;
    double a[N + 2];
    for (int k = 0; k <= n; k++) {
        double s = (v[0] + (k % 2 ? -v[N] : v[N])) / 2;
        for (int j = 1; j < n; j++)
            s += v[j * step] * c->cosines[(j * k * step) % (2 * N)];
        a[k] = s * 2 / n;
    }
    a[0] /= 2;
    a[n] /= 2;
    a[n + 1] = 0;
    double *B = rec + 2, at_minus1 = 0;
    for (int k = 1; k < n + 2; k++) {
        B[k] = (a[k - 1] * (k == 1 ? 2 : 1) - (k + 1 <= n ? a[k + 1] : 0)) / (2 * k);
        at_minus1 += k % 2 ? -B[k] : B[k];
    }
    B[0] = -at_minus1;
    rec[0] = half * clenshaw(B, n + 2, 1);
    return fabs(a[n - 2]) + fabs(a[n - 1]) + fabs(a[n]);
}

/* Fit [lo, hi] at 9, 17, then 33 points; true (records in c->work, *nb
 * set) when every function's tail is within per_width. */
static bool fit_panel(struct gt_cheb *c, void (*f)(double, void *, double *), void *ctx,
                      double lo, double hi, double per_width, int *nb)
{
    double mid = (lo + hi) / 2, half = (hi - lo) / 2;
    size_t m = c->m;
    for (int n = 8, done = 0; n <= N; done = n, n *= 2) {
        int step = N / n;
        for (int j = 0; j <= n; j++) {
            if (done && j % 2 == 0)
                continue;   /* the last level's point */
            f(mid + half * c->cosines[j * step], ctx, c->v + (size_t)(j * step) * m);
            c->evals++;
        }
        bool ok = true;
        double col[N + 1];
        for (size_t i = 0; i < m; i++) {
            for (int j = 0; j <= N; j += step)
                col[j] = c->v[(size_t)j * m + i];
            double tail = series(c, col, n, half, c->work + i * PER);
            ok = ok && tail <= per_width;
        }
        if (ok) {
            *nb = n + 2;
            return true;
        }
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
    c->p[c->n++] = (struct panel){lo, hi, nb};
    return true;
}

/* Fit [lo, hi] in panels, left to right, halving where the tails are too
 * large: a stack of the segments still to do, the leftmost on top. */
static bool fit_segment(struct gt_cheb *c, void (*f)(double, void *, double *), void *ctx,
                        double lo, double hi, double per_width)
{
    struct { double lo, hi; } stack[64];
    int top = 0;
    stack[top].lo = lo, stack[top].hi = hi, top++;
    while (top > 0) {
        top--;
        double l = stack[top].lo, h = stack[top].hi, m = l + (h - l) / 2;
        int nb;
        if (fit_panel(c, f, ctx, l, h, per_width, &nb)) {
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
    double *v = malloc((N + 1) * m * sizeof *v), *work = malloc(m * PER * sizeof *work);
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
                 double a, double b, const double *bp, size_t nbp, double tol)
{
    c->n = 0;
    c->evals = 0;
    if (!reserve(c, m ? m : 1))
        return false;
    if (c->m != m) {   /* records of another size: start the panels anew */
        free(c->rec);
        c->rec = NULL;
        c->cap = 0;
    }
    c->m = m;
    if (!(b > a))
        return true;
    /* a panel's error is at most about twice its tail times its half width */
    double per_width = tol / (b - a) / 2;
    double lo = a;
    for (size_t i = 0; i <= nbp; i++) {
        double hi = i < nbp ? bp[i] : b;
        if (!(hi > lo) || hi > b)
            continue;
        if (!fit_segment(c, f, ctx, lo, hi, per_width))
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
        if (c->p[mid].lo <= x)
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
    double half = (pn->hi - pn->lo) / 2;
    double t = (2 * x - pn->lo - pn->hi) / (pn->hi - pn->lo);
    t = t < -1 ? -1 : t > 1 ? 1 : t;
    return half * clenshaw(c->rec + (k * c->m + i) * PER + 2, pn->nb, t);
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
