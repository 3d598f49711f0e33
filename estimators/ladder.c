/*
 * ladder.c - the loss mixture compiled (ladder.h, METHOD.md 2.1).
 *
 * A term j whose copy has not started at x (x - s - D_j at or below the
 * copy's rise) has F0 = 0 there: it adds its weight to 1 - F and nothing
 * to F.  The terms are in delay order, so the ones started at x are a
 * prefix, and what the others add is rest[] of the last started one.
 */
#define _DEFAULT_SOURCE
#include "ladder.h"

#include <math.h>

int gt_ladder_terms(double loss_p, double rto_ms, double budget)
{
    if (!(loss_p > 0))
        return 1;
    if (!(budget > 0))
        return gt_loss_terms(loss_p);
    /* P(K >= n) = p^n; given that, the delay is on average at most D_n
       plus the capped retries still to come, sum_{m >= 1} p^m 120 s */
    double tail = GT_RTO_MAX_MS * loss_p / (1 - loss_p), pn = loss_p, d = 0, r = rto_ms;
    for (int n = 1; n < GT_LOSS_MAX_TERMS; n++) {
        d += r < GT_RTO_MAX_MS ? r : GT_RTO_MAX_MS;
        r *= 2;
        if (pn * (d + tail) <= budget)
            return n;
        pn *= loss_p;
    }
    return GT_LOSS_MAX_TERMS;
}

/* where y = x - shift - D_j leaves w (1 - F0(y)) below GT_LADDER_GONE:
 * a Pareto's (k / y)^alpha, a normal's Q(z) <= e^(-z^2 / 2) for z >= 1 */
static double gone_after(const struct gt_dist *d, double w)
{
    double r = log(w / GT_LADDER_GONE);
    if (!(r > 0))
        return -INFINITY;
    if (d->model == &gt_model_pareto)
        return d->p[0] * exp(r / d->p[1]);
    return d->p[0] + d->p[1] * fmax(1, sqrt(2 * r));
}

void gt_ladder_compile(const struct gt_dist *d, int n, double *mem, struct gt_ladder *l)
{
    double *delay = mem, *w = mem + n, *rest = mem + 2 * n, *gone = mem + 3 * n;
    double p = d->loss_p, w0 = gt_loss_weight0(p, n), wj = w0, dl = 0, r = d->rto_ms;
    for (int j = 0; j < n; j++) {
        delay[j] = dl;
        w[j] = wj;
        dl += r < GT_RTO_MAX_MS ? r : GT_RTO_MAX_MS;
        r *= 2;
        wj *= p;
    }
    rest[n - 1] = 0;
    for (int j = n - 2; j >= 0; j--)
        rest[j] = rest[j + 1] + w[j + 1];
    for (int j = 0; j < n; j++)
        gone[j] = gone_after(d, w[j]);
    bool pareto = d->model == &gt_model_pareto;
    *l = (struct gt_ladder){d->model, {d->p[0], d->p[1]}, d->shift, p, log(w0), n,
                            delay, w, rest, gone,
                            pareto ? d->p[0] : d->p[0] - 38.5 * d->p[1],
                            exp((double)n * log(p)) * (dl + GT_RTO_MAX_MS * p / (1 - p))};
}

/* the retries started at y = x - shift: the largest J with y - D_J above
 * the rise (0 when only the first copy has) */
static int started(const struct gt_ladder *l, double y)
{
    int J = 0;
    while (J + 1 < l->n && y - l->delay[J + 1] > l->rise)
        J++;
    return J;
}

/* the loss-free survival at y (shift taken off) */
static double sf0(const struct gt_ladder *l, double y)
{
    if (l->model == &gt_model_pareto)
        return y > l->p[0] ? exp(l->p[1] * log(l->p[0] / y)) : 1;
    return 0.5 * erfc((y - l->p[0]) / l->p[1] * M_SQRT1_2);
}

/* sum_j w_j (1 - F0(y - D_j)) over the started terms, plus the weight
 * of the rest */
static double sf_sum(const struct gt_ladder *l, double y, int J)
{
    double tot = l->rest[J];
    for (int j = 0; j <= J; j++)
        tot += l->w[j] * sf0(l, y - l->delay[j]);
    return tot;
}

double gt_ladder_sf(const struct gt_ladder *l, double x)
{
    double y = x - l->shift;
    return sf_sum(l, y, started(l, y));
}

/* the loss-free survival and density at y (shift taken off) */
static double sf0_pdf(const struct gt_ladder *l, double y, double *pdf)
{
    if (l->model == &gt_model_pareto) {
        if (!(y > l->p[0])) {
            *pdf = 0;
            return 1;
        }
        double s = exp(l->p[1] * log(l->p[0] / y));
        *pdf = l->p[1] / y * s;
        return s;
    }
    double z = (y - l->p[0]) / l->p[1];
    *pdf = exp(-0.5 * z * z) / (l->p[1] * 2.5066282746310002);
    return 0.5 * erfc(z * M_SQRT1_2);
}

double gt_ladder_eval(const struct gt_ladder *l, double x, double *pdf, double *log0)
{
    double y = x - l->shift;
    int J = started(l, y);
    if (J == 0) {
        double l0 = l->model->logcdf(l->p, y);
        if (pdf)
            *pdf = l->w[0] * l->model->pdf(l->p, y);
        if (log0)
            *log0 = l0;
        return l->log_w0 + l0;
    }
    double tot = l->rest[J], dens = 0, s0 = 0;
    for (int j = 0; j <= J; j++) {
        double yj = y - l->delay[j], f, s;
        if (yj > l->gone[j])
            continue;   /* its climb is behind: w_j (1 - F0) < 1e-20 */
        s = sf0_pdf(l, yj, &f);
        tot += l->w[j] * s;
        dens += l->w[j] * f;
        s0 = j ? s0 : s;
    }
    if (pdf)
        *pdf = dens;
    if (log0)   /* its own last digits where 1 - s0 would cancel */
        *log0 = s0 < 0.5 ? log1p(-s0) : l->model->logcdf(l->p, y);
    return tot < 0.5 ? log1p(-tot) : gt_ladder_logcdf(l, x);
}

double gt_ladder_logcdf(const struct gt_ladder *l, double x)
{
    double y = x - l->shift;
    int J = started(l, y);
    double l0 = l->model->logcdf(l->p, y);
    if (J == 0)
        return l->log_w0 + l0;
    double tot = sf_sum(l, y, J);
    if (tot < 0.5)
        return log1p(-tot);
    /* F <= 1/2: a sum of CDFs relative to the first term, which keeps
       the lower tail's digits where 1 - tot would cancel */
    double s = 0;
    for (int j = 1; j <= J; j++) {
        double lj = l->model->logcdf(l->p, y - l->delay[j]);
        if (lj == -INFINITY)
            break;
        s += l->w[j] / l->w[0] * exp(lj - l0);
    }
    return l->log_w0 + l0 + log1p(s);
}

/* integral_a^inf (1 - F0(u)) du */
static double sf0_integral(const struct gt_ladder *l, double a)
{
    if (l->model == &gt_model_pareto) {
        double k = l->p[0], al = l->p[1];
        if (!(al > 1))
            return INFINITY;
        if (a <= k)
            return k - a + k / (al - 1);
        return a * exp(al * log(k / a)) / (al - 1);
    }
    double z = (a - l->p[0]) / l->p[1];
    double q = 0.5 * erfc(z * M_SQRT1_2), phi = exp(-0.5 * z * z) / 2.5066282746310002;
    return l->p[1] * (phi - z * q);
}

double gt_ladder_sf_integral(const struct gt_ladder *l, double x)
{
    double s = 0;
    for (int j = 0; j < l->n; j++)
        s += l->w[j] * sf0_integral(l, x - l->shift - l->delay[j]);
    return s;
}

double gt_ladder_start(const struct gt_ladder *l, int j)
{
    return l->shift + l->p[0] + l->delay[j];
}
