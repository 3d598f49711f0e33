/*
 * extrap.c - see extrap.h.  Every fit is closed-form least squares except
 * the power law's exponent, found by a grid over [-3, 3] refined by golden
 * section (for a fixed p the model is linear in a and c).
 */
#include "extrap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[GT_X_NMODELS] = {
    "constant", "linear", "inverse", "inverse-constant", "power", "log"};

static const char *const params[GT_X_NMODELS][4] = {
    {"c", NULL}, {"a", "b", NULL}, {"k", NULL}, {"k", "c", NULL},
    {"a", "p", "c", NULL}, {"a", "b", NULL}};

const char *gt_xmodel_name(int model)
{
    return model >= 0 && model < GT_X_NMODELS ? names[model] : "?";
}

int gt_xmodel_find(const char *name)
{
    for (int i = 0; i < GT_X_NMODELS; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

const char *const *gt_xmodel_params(int model)
{
    return params[model];
}

double gt_xmodel_eval(int model, const double *p, double n)
{
    switch (model) {
    case GT_X_CONSTANT: return p[0];
    case GT_X_LINEAR: return p[0] * n + p[1];
    case GT_X_INVERSE: return p[0] / n;
    case GT_X_INVERSE_CONSTANT: return p[0] / n + p[1];
    case GT_X_POWER: return p[0] * pow(n, p[1]) + p[2];
    case GT_X_LOG: return p[0] + p[1] * log(n);
    default: return NAN;
    }
}

/* ------------------------------------------------------------ pieces */

/* Least squares y = a x + b; false when every x is equal. */
static bool line(const double *x, const double *y, size_t m, double *a, double *b)
{
    double mx = 0, my = 0;
    for (size_t i = 0; i < m; i++)
        mx += x[i], my += y[i];
    mx /= (double)m, my /= (double)m;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < m; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (!(sxx > 0))
        return false;
    *a = sxy / sxx;
    *b = my - *a * mx;
    return true;
}

/* Mean of v without the value farthest from the mean (the first of
 * equals), and the sample sd of what is left (NAN with one left). */
static double mean_dropping_farthest(const double *v, size_t m, long *dropped, double *sd)
{
    double mean = 0;
    for (size_t i = 0; i < m; i++)
        mean += v[i];
    mean /= (double)m;
    size_t far = 0;
    for (size_t i = 1; i < m; i++)
        if (fabs(v[i] - mean) > fabs(v[far] - mean))
            far = i;
    double sum = 0;
    for (size_t i = 0; i < m; i++)
        sum += i == far ? 0 : v[i];
    double rest = sum / (double)(m - 1), ss = 0;
    for (size_t i = 0; i < m; i++)
        ss += i == far ? 0 : (v[i] - rest) * (v[i] - rest);
    *dropped = (long)far;
    *sd = m > 2 ? sqrt(ss / (double)(m - 2)) : NAN;
    return rest;
}

/* sqrt(SSR) / mean of the fitted values of model over (x, y). */
static double residual_score(int model, const double *p, const double *n, const double *t,
                             size_t m, bool times_n)
{
    double ss = 0, fit_sum = 0;
    for (size_t i = 0; i < m; i++) {
        double f = gt_xmodel_eval(model, p, n[i]), y = t[i];
        if (times_n)
            f *= n[i], y *= n[i];
        ss += (y - f) * (y - f);
        fit_sum += f;
    }
    double mean = fit_sum / (double)m;
    return mean != 0 ? sqrt(ss) / fabs(mean) : NAN;
}

/* For a fixed exponent: a and c by least squares, and the SSR. */
static double power_at(double pw, const double *n, const double *t, size_t m, double *a,
                       double *c)
{
    double x[64] = {0};
    for (size_t i = 0; i < m; i++)
        x[i] = pow(n[i], pw);
    if (!line(x, t, m, a, c))
        return INFINITY;
    double ss = 0;
    for (size_t i = 0; i < m; i++)
        ss += (t[i] - (*a * x[i] + *c)) * (t[i] - (*a * x[i] + *c));
    return ss;
}

static bool fit_power(const double *n, const double *t, size_t m, double *p)
{
    double best = INFINITY, bp = 0, a, c;
    for (int k = -300; k <= 300; k++) {
        double pw = k / 100.0;
        if (k == 0)
            continue;   /* n^0 = 1: the same column as c */
        double ss = power_at(pw, n, t, m, &a, &c);
        if (ss < best)
            best = ss, bp = pw;
    }
    if (!isfinite(best))
        return false;
    /* golden section in the grid cell around the best point */
    double lo = bp - 0.01, hi = bp + 0.01, g = (sqrt(5) - 1) / 2;
    double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
    double f1 = power_at(x1, n, t, m, &a, &c), f2 = power_at(x2, n, t, m, &a, &c);
    for (int it = 0; it < 60; it++) {
        if (f1 < f2)
            hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo),
            f1 = power_at(x1, n, t, m, &a, &c);
        else
            lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo),
            f2 = power_at(x2, n, t, m, &a, &c);
    }
    double pw = (lo + hi) / 2;
    if (fabs(pw) < 1e-9 || power_at(pw, n, t, m, &a, &c) > best)
        pw = bp;
    power_at(pw, n, t, m, &a, &c);
    p[0] = a, p[1] = pw, p[2] = c;
    return true;
}

/* ------------------------------------------------------------ models */

/* Fit one model to m samples: parameters, d and the dropped sample. */
static bool fit_model(int model, const double *n, const double *t, size_t m,
                      struct gt_xfit *f)
{
    double x[64], sd;
    f->dropped = -1;
    f->score = NAN;
    switch (model) {
    case GT_X_CONSTANT:
        f->p[0] = mean_dropping_farthest(t, m, &f->dropped, &sd);
        f->score = f->p[0] != 0 ? sd / fabs(f->p[0]) : NAN;
        return true;
    case GT_X_INVERSE:
        for (size_t i = 0; i < m; i++)
            x[i] = t[i] * n[i];
        f->p[0] = mean_dropping_farthest(x, m, &f->dropped, &sd);
        f->score = f->p[0] != 0 ? sd / fabs(f->p[0]) : NAN;
        return true;
    case GT_X_LINEAR:
        if (!line(n, t, m, &f->p[0], &f->p[1]))
            return false;
        f->score = residual_score(model, f->p, n, t, m, false);
        return true;
    case GT_X_INVERSE_CONSTANT:
        for (size_t i = 0; i < m; i++)
            x[i] = t[i] * n[i];
        if (!line(n, x, m, &f->p[1], &f->p[0]))    /* t n = c n + k */
            return false;
        f->score = residual_score(model, f->p, n, t, m, true);
        return true;
    case GT_X_LOG:
        for (size_t i = 0; i < m; i++)
            x[i] = log(n[i]);
        if (!line(x, t, m, &f->p[1], &f->p[0]))
            return false;
        f->score = residual_score(model, f->p, n, t, m, false);
        return true;
    case GT_X_POWER:
        if (m < 3 || !fit_power(n, t, m, f->p))
            return false;
        f->score = residual_score(model, f->p, n, t, m, false);
        return true;
    }
    return false;
}

/* Smallest number of samples a model's leave-one-out refit needs. */
static size_t loo_min(int model)
{
    return model == GT_X_POWER ? 4 : 3;
}

static double leave_one_out(int model, const double *n, const double *t, size_t m)
{
    if (m < loo_min(model))
        return NAN;
    double err = 0, nn[64], tt[64];
    for (size_t out = 0; out < m; out++) {
        size_t k = 0;
        for (size_t i = 0; i < m; i++)
            if (i != out)
                nn[k] = n[i], tt[k++] = t[i];
        struct gt_xfit f;
        if (!fit_model(model, nn, tt, k, &f))
            return NAN;
        double pred = gt_xmodel_eval(model, f.p, n[out]);
        err += t[out] != 0 ? fabs(pred - t[out]) / t[out] : fabs(pred);
    }
    return err / (double)m;
}

int gt_extrap_run(const double *n, const double *t, size_t m, double at,
                  struct gt_extrap *out, struct gt_error *err)
{
    memset(out, 0, sizeof *out);
    if (m < 3 || m > 64)
        return gt_error_set(err, GT_EINPUT, NULL, "need 3 to 64 samples n:t, got %zu", m);
    if (!(at >= 1 && isfinite(at)))
        return gt_error_set(err, GT_EINPUT, NULL, "the target count must be >= 1");
    for (size_t i = 0; i < m; i++) {
        if (!(n[i] >= 1 && isfinite(n[i])))
            return gt_error_set(err, GT_EINPUT, NULL, "sample %zu: n = %g is not >= 1", i + 1,
                                n[i]);
        if (!(t[i] >= 0 && isfinite(t[i])))
            return gt_error_set(err, GT_EINPUT, NULL, "sample %zu: t = %g is not a time >= 0",
                                i + 1, t[i]);
        out->n_max = n[i] > out->n_max ? n[i] : out->n_max;
    }
    out->reach = at / out->n_max;
    out->classic = out->loo_best = -1;
    for (int k = 0; k < GT_X_NMODELS; k++) {
        struct gt_xfit *f = &out->fit[k];
        f->ok = fit_model(k, n, t, m, f);
        if (!f->ok) {
            f->why = "every sample has the same n";
            f->score = f->loo = f->prediction = NAN;
            continue;
        }
        f->prediction = gt_xmodel_eval(k, f->p, at);
        f->loo = leave_one_out(k, n, t, m);
        if (k < GT_X_CLASSIC && isfinite(f->score) &&
            (out->classic < 0 || f->score < out->fit[out->classic].score))
            out->classic = k;
        if (isfinite(f->loo) && (out->loo_best < 0 || f->loo < out->fit[out->loo_best].loo))
            out->loo_best = k;
    }
    if (out->classic < 0)
        return gt_error_set(err, GT_EINPUT, NULL, "no model could be fitted to these samples");
    return GT_OK;
}
