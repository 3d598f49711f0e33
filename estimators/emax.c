/*
 * emax.c - E[max] (emax.h): which method answers a call, the closed forms
 * where one exists and is accurate, and the integral of 1 - G otherwise.
 *
 * A call is validated, its context built (emaxcdf.h), and run() picks
 * the method: every partner a point mass; one Pareto group (eq. 8);
 * one lossy partner's mean; Pareto groups by inclusion-exclusion; else
 * the integral of 1 - G (emax_integrated): the fit over step tables and
 * ladders (emaxfit.h), a bulk and a closed-form tail, or the general
 * numerical integral (emaxquad.h).  Then the quantiles (emaxcdf.h), the
 * shares of being slowest (slowest.h) and the loss costs, from the fit
 * or by one more E[max] per lossy group.
 */
#include "emax.h"
#include "emaxcdf.h"
#include "emaxfit.h"
#include "emaxquad.h"
#include "slowest.h"
#include "base/util.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <threads.h>
#include <stdlib.h>
#include <string.h>

/* Inclusion-exclusion costs (terms x groups); integration about 220
 * evaluations x groups.  Measured crossover (scripts/bench/closed_form.sh):
 * 255 terms (8 distinct partners) 0.013 ms against 0.016 ms integrating,
 * 1,023 terms 0.064 ms against 0.016 ms. */
#define MAX_CLOSED_TERMS 256

double gt_emax_cut_for_window(const struct gt_partner_group *g, size_t ng, double m)
{
    double x0 = INFINITY;
    bool any = false;
    for (size_t i = 0; i < ng; i++) {
        const struct gt_dist *d = &g[i].dist;
        if (d->model != &gt_model_pareto || d->p[1] > 1)
            continue;
        double c = d->p[0] * exp(log(m) / d->p[1]) + d->shift;
        x0 = !any || c > x0 ? c : x0;
        any = true;
    }
    return x0;
}

/* eq. 8, using Gamma(-1/a) / a = -Gamma(1 - 1/a) and Gamma(n) /
 * Gamma(n + 1 - 1/a) = 1 / poch(n, 1 - 1/a), which stays accurate for
 * large n where a difference of lgammas would not. */
static double pareto_iid(double k, double alpha, double n)
{
    double b = 1 - 1 / alpha;
    return n * k * gsl_sf_gamma(b) * exp(-gsl_sf_lnpoch(n, b));
}

/* Inclusion-exclusion (METHOD.md section 2) over multiplicities j_g in
 * [0, count_g], C(count_g, j_g) subsets each.  Returns false when the
 * term count is too large or the cancellation it measures (sum of |terms|
 * against the result) would cost more than 1e-12 relative. */
static bool pareto_closed(const struct gt_partner_group *g, size_t ng, double *e_out,
                          double *err_out)
{
    double K = 0, terms = 1;
    for (size_t i = 0; i < ng; i++) {
        K = g[i].dist.p[0] > K ? g[i].dist.p[0] : K;
        terms *= g[i].count + 1;
    }
    if (ng > 64 || terms > MAX_CLOSED_TERMS)
        return false;
    long j[64] = {0};
    /* what every term takes of a group, computed once: the same values
       the terms would compute each (most groups are one process, j 0 or 1) */
    double log_k[64], lnc1[64], log_K = log(K);
    for (size_t h = 0; h < ng; h++) {
        log_k[h] = log(g[h].dist.p[0] / K);
        lnc1[h] = gsl_sf_lnchoose((unsigned)g[h].count, 1);
    }
    double sum = K, comp = 0, abs_sum = K;
    for (;;) {
        size_t i = 0;
        while (i < ng && j[i] == (long)g[i].count)
            j[i++] = 0;
        if (i == ng)
            break;
        j[i]++;
        double a_s = 0, log_t = log_K;
        long J = 0;
        for (size_t h = 0; h < ng; h++) {
            if (!j[h])
                continue;
            a_s += (double)j[h] * g[h].dist.p[1];
            log_t += (double)j[h] * g[h].dist.p[1] * log_k[h] +
                     (j[h] == 1 ? lnc1[h]
                                : gsl_sf_lnchoose((unsigned)g[h].count, (unsigned)j[h]));
            J += j[h];
        }
        double t = exp(log_t) / (a_s - 1) * (J % 2 ? 1 : -1);
        double s2 = sum + t;   /* Neumaier compensated summation */
        comp += fabs(sum) >= fabs(t) ? (sum - s2) + t : (t - s2) + sum;
        sum = s2;
        abs_sum += fabs(t);
    }
    double e = sum + comp, err = abs_sum * 4 * 2.2e-16;
    if (!(e > 0) || err > 1e-12 * e)
        return false;
    *e_out = e;
    *err_out = err;
    return true;
}

static bool closed_form_applies(const struct gt_partner_group *g, size_t ng)
{
    for (size_t i = 0; i < ng; i++)
        if (g[i].dist.model != &gt_model_pareto || !(g[i].dist.p[1] > 1) ||
            g[i].dist.loss_p > 0 ||
            g[i].dist.shift != g[0].dist.shift)
            return false;
    return true;
}

/* E[max] as an integral over G (with a cut-off, censored or the paper's
 * eq. 12): by the fit where step tables or ladders are among the
 * partners, else as a bulk and a closed-form tail, else numerically.
 * k: what the fit may answer beside E[max]; *fitted says whether it did */
static double emax_integrated(const struct emax_ctx *base, double n, double cut, bool cut_paper,
                              struct emax_quad *qd, struct emax_asks *k, bool *fitted)
{
    const struct gt_partner_group *g = base->g;
    size_t ng = base->ng;
    struct emax_ctx c = *base;
    double a = emax_lower_bound(g, ng);
    if (!isinf(cut) && !cut_paper) {
        /* E[min(max, x0)] = int_0^x0 (1 - G): 1 - G is 1 below from */
        double from = a > 0 ? a : 0;
        if (!(cut > from))
            return cut;
        return from + emax_integrate(qd, emax_f_one_minus_G, &c, &c, n, from, cut);
    }
    if (!isinf(cut)) {
        /* E = int_0^x0 x dG = from G(x0) + int_from^x0 (G(x0) - G(x)) dx */
        double from = a > 0 ? a : 0;
        c.log_g_cut = emax_log_G(&c, cut);
        if (!(cut > from) || c.log_g_cut == -INFINITY)
            return 0;
        return from * exp(c.log_g_cut) + emax_integrate(qd, emax_f_cut, &c, &c, n, from, cut);
    }
    if (isfinite(a)) {
        /* below the point where G reaches 1e-17, 1 - G is 1 to double
           precision: that stretch integrates to its length exactly */
        double flat, hi, tail;
        emax_bracket_warm(&c, n, 1e-17, 1e-3, qd->warm, GT_EMAX_WARM_FLAT, &flat, &hi);
        if (!(flat > a))
            flat = a;
        if ((c.extra || c.mixed) && !c.only_steps &&
            emax_fitted_one_minus_G(&c, n, flat, qd, k, &tail)) {
            *fitted = true;
            return flat + tail;
        }
        /* with ladders, one rule over many retries' break points can
           pass its own error test and miss by 1e-5 (a narrow lossy normal
           at 50 % loss): the fit, else one rule per interval */
        if (flat > 0 && !c.mixed && emax_bulk_and_tail(&c, n, flat, qd, &tail))
            return flat + tail;
        return flat + emax_integrate(qd, emax_f_one_minus_G, &c, &c, n, flat, INFINITY);
    }
    /* only normal partners: E = b + int_b^inf (1 - G) - int_-inf^b G.
       Where G has reached only 1e-17 at a positive flat (RTT fits), the
       part below flat is below 1e-17 of the scale and the rest is a
       bulk and a closed-form tail, as for the bounded models: a third of
       the evaluations of integrating both tails numerically. */
    double flat, hi, tail;
    emax_bracket_warm(&c, n, 1e-17, 1e-3, qd->warm, GT_EMAX_WARM_FLAT, &flat, &hi);
    if ((c.extra || c.mixed) && !c.only_steps &&
        emax_fitted_one_minus_G(&c, n, flat, qd, k, &tail)) {
        *fitted = true;
        return flat + tail;
    }
    if (flat > 0 && !c.mixed && emax_bulk_and_tail(&c, n, flat, qd, &tail))
        return flat + tail;
    double b = emax_quantile(&c, n, 0.5, 0), r = 0, e = 0;
    double up = emax_integrate(qd, emax_f_one_minus_G, &c, &c, n, b, INFINITY);
    gsl_function fn = {emax_f_G, &c};
    emax_quad_add(qd, &e,
                  gsl_integration_qagil(&fn, b, 0, qd->epsrel, EMAX_WORKSPACE, qd->w, &r, &e));
    return b + up - r;
}

static int validate(const struct gt_partner_group *g, size_t ng, const struct gt_emax_opts *o,
                    struct gt_error *err)
{
    if (ng == 0)
        return gt_error_set(err, GT_EINPUT, NULL, "no partners");
    for (size_t i = 0; i < ng; i++) {
        const char *why = gt_dist_is_step(&g[i].dist) ? gt_emp_check(&g[i].dist)
                                                      : g[i].dist.model->check(g[i].dist.p);
        if (why)
            return gt_error_set(err, GT_EINPUT, NULL, "partner %zu (%s): %s", i + 1,
                                g[i].dist.model->name, why);
        double k = g[i].count;   /* in range before the cast: whole without a floor call */
        if (!(k >= 1 && k <= 1e9) || k != (double)(int64_t)k)
            return gt_error_set(err, GT_EINPUT, NULL, "partner %zu: count must be a whole "
                                "number in [1, 1e9]", i + 1);
        if (!isfinite(g[i].dist.shift))
            return gt_error_set(err, GT_EINPUT, NULL, "partner %zu: shift is not finite", i + 1);
        if (!(g[i].dist.loss_p >= 0 && g[i].dist.loss_p < 1) ||
            (g[i].dist.loss_p > 0 && !(g[i].dist.rto_ms > 0 && g[i].dist.rto_ms < 1e9)))
            return gt_error_set(err, GT_EINPUT, NULL, "partner %zu: loss must be in [0, 1) "
                                "with a retransmission timeout > 0", i + 1);
        if (g[i].dist.model == &gt_model_pareto && g[i].dist.p[1] <= 1 && isinf(o->cut_x0))
            return gt_error_set(err, GT_EINPUT, NULL, "partner %zu: alpha = %g <= 1 has no "
                                "mean; give the window size for the cut-off", i + 1,
                                g[i].dist.p[1]);
    }
    for (size_t k = 0; k < o->nq; k++)
        if (!(o->q[k] > 0 && o->q[k] < 1))
            return gt_error_set(err, GT_EINPUT, NULL, "quantile %g is not in (0, 1)", o->q[k]);
    if (o->quantiles_only && o->loss_cost)   /* a cost is a difference of E[max]s */
        return gt_error_set(err, GT_EUSAGE, NULL, "loss costs need E[max]");
    return GT_OK;
}

/* GSL's default handler aborts; the engine checks every status itself.
 * Set once: the handler is global state shared by threads. */
static once_flag gsl_quiet = ONCE_FLAG_INIT;

static void silence_gsl(void)
{
    gsl_set_error_handler_off();
}

struct gt_emax_ws {
    gsl_integration_workspace *w;
    struct gt_lcsum *sum;
    struct gt_cheb *cheb;
};

struct gt_emax_ws *gt_emax_ws_new(void)
{
    struct gt_emax_ws *ws = calloc(1, sizeof *ws);
    if (ws && (!(ws->w = gsl_integration_workspace_alloc(EMAX_WORKSPACE)) ||
               !(ws->sum = gt_lcsum_new(NULL, 0, 0)) || !(ws->cheb = gt_cheb_new()))) {
        gt_emax_ws_free(ws);
        return NULL;
    }
    return ws;
}

void gt_emax_ws_free(struct gt_emax_ws *ws)
{
    if (!ws)
        return;
    if (ws->w)
        gsl_integration_workspace_free(ws->w);
    gt_lcsum_free(ws->sum);
    gt_cheb_free(ws->cheb);
    free(ws);
}

/* Each lossy group's loss cost as E[max] less E[max] with it loss-free,
 * for when the fit did not give them. */
static int costs_one_by_one(const struct gt_partner_group *g, size_t ng,
                            const struct gt_emax_opts *o, struct gt_emax_result *r,
                            struct gt_emax_ws *ws, struct gt_error *err)
{
    struct gt_partner_group *h = malloc(ng * sizeof *h);
    if (!h)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    memcpy(h, g, ng * sizeof *h);
    int rc = GT_OK;
    for (size_t i = 0; i < ng && rc == GT_OK; i++) {
        r->loss_cost[i] = 0;
        if (!(g[i].dist.loss_p > 0))
            continue;
        h[i].dist.loss_p = 0;
        struct gt_emax_opts o0 = {o->cut_x0, o->cut_paper, NULL, 0, false, false, ws,
                                  o->epsrel, NULL, false, false};
        struct gt_emax_result r0 = {0};
        rc = gt_emax(h, ng, &o0, &r0, err);
        r->loss_cost[i] = r->e_max - r0.e_max;
        h[i].dist.loss_p = g[i].dist.loss_p;
    }
    free(h);
    return rc;
}

static int run(const struct emax_ctx *base, double n, const struct gt_emax_opts *o,
               struct gt_emax_result *r, struct gt_emax_ws *ws, struct gt_error *err)
{
    const struct gt_partner_group *g = base->g;
    size_t ng = base->ng;
    struct emax_quad qd = {ws->w, 0, 0, o->epsrel > 0 ? o->epsrel : EMAX_EPSREL, o->warm};
    double shift = g[0].dist.shift, e;
    bool all_delta = !base->tabs, fitted = false;
    struct emax_asks asks = {o->loss_cost ? r->loss_cost : NULL,
                             o->slowest && ng > 1 ? r->p_slowest : NULL, NULL, 0, 0, NULL, NULL};
    for (size_t i = 0; i < ng; i++)
        all_delta = all_delta && g[i].dist.model == &gt_model_delta;
    emax_asks_trim(base, &asks);
    int rc = GT_OK;
    if (o->quantiles_only) {
        r->method = "quantiles";
        r->e_max = NAN;
    } else if (all_delta) {
        r->method = "delta";
        r->e_max = emax_lower_bound(g, ng);
        if (!isinf(o->cut_x0) && r->e_max > o->cut_x0)
            r->e_max = o->cut_paper ? 0 : o->cut_x0;
    } else if (!o->force_integration && isinf(o->cut_x0) && ng == 1 && !base->extra &&
               closed_form_applies(g, ng)) {
        r->method = "pareto-iid";
        r->e_max = shift + pareto_iid(g[0].dist.p[0], g[0].dist.p[1], n);
    } else if (!o->force_integration && isinf(o->cut_x0) && n == 1 && ladder_at(base, 0) &&
               isfinite(gt_dist_mean0(&g[0].dist))) {
        /* one lossy partner: E[L + D_K] = E[L] + sum_j w_j D_j */
        const struct gt_ladder *l = ladder_at(base, 0);
        struct gt_ksum sum = {0, 0};
        gt_ksum_add(&sum, gt_dist_mean0(&g[0].dist));
        for (int j = 1; j < l->n; j++)
            gt_ksum_add(&sum, l->w[j] * l->delay[j]);
        r->method = "loss-mean";
        r->e_max = gt_ksum_get(&sum);
    } else if (!o->force_integration && isinf(o->cut_x0) && closed_form_applies(g, ng) &&
               pareto_closed(g, ng, &e, &r->abserr)) {
        r->method = "pareto-closed";
        r->e_max = shift + e;
    } else {
        r->method = base->only_steps ? "steps" : "integration";
        r->e_max = emax_integrated(base, n, o->cut_x0, o->cut_paper, &qd, &asks, &fitted);
        r->abserr = qd.abserr;
        if (qd.status == GSL_ENOMEM)
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        else if (qd.status && qd.abserr > fmax(1e-9, 10 * qd.epsrel) * fabs(r->e_max))
            rc = gt_error_set(err, GT_EINPUT, NULL, "integration did not converge: %s "
                              "(estimated error %g)", gsl_strerror(qd.status), qd.abserr);
    }
    for (size_t k = 0; rc == GT_OK && r->q_values && k < o->nq; k++) {
        double lo, tol = o->epsrel > 0 ? o->epsrel : 0;
        if (o->warm && k < GT_EMAX_WARM_NQ)
            emax_bracket_warm(base, n, o->q[k], tol, o->warm, GT_EMAX_WARM_Q0 + (int)k, &lo,
                              &r->q_values[k]);
        else
            r->q_values[k] = emax_quantile(base, n, o->q[k], tol);
    }
    emax_asks_free(&asks, ng);
    if (rc == GT_OK && o->slowest && r->p_slowest && !(fitted && asks.shares))
        emax_all_slowest(base, n, r->p_slowest);
    /* last: another E[max] rebuilds the workspace base lives in */
    if (rc == GT_OK && o->loss_cost && r->loss_cost && !(fitted && asks.costs))
        rc = costs_one_by_one(g, ng, o, r, ws, err);
    return rc;
}

int gt_emax(const struct gt_partner_group *g, size_t ng, const struct gt_emax_opts *o,
            struct gt_emax_result *r, struct gt_error *err)
{
    int rc = validate(g, ng, o, err);
    if (rc)
        return rc;
    call_once(&gsl_quiet, silence_gsl);
    double n = 0;
    for (size_t i = 0; i < ng; i++)
        n += g[i].count;
    r->n = n;
    r->abserr = 0;
    struct gt_steps *tabs;
    if ((rc = emax_build_tables(g, ng, &tabs, err)))
        return rc;
    struct gt_emax_ws *ws = o->ws ? o->ws : gt_emax_ws_new();
    struct emax_ctx base;
    if (!ws || emax_make_ctx(g, ng, n, o, tabs, ws->sum, ws->cheb, &base))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    else
        rc = run(&base, n, o, r, ws, err);
    if (ws != o->ws)
        gt_emax_ws_free(ws);
    emax_free_tables(tabs, ng);
    return rc;
}
