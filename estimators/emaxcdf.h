/*
 * emaxcdf.h - inside the E[max] engine (emax.h): the context of one
 * call, the CDF of the max G(x) = prod_g F_g(x)^count_g over it, and
 * G's quantiles.  Not public API: only the engine's files (emax.c,
 * emaxquad.c, emaxfit.c, slowest.c) include it, to share the context
 * and its evaluation; callers use emax.h.
 */
#ifndef GT_EMAXCDF_H
#define GT_EMAXCDF_H

#include "emax.h"
#include "chebfit.h"
#include "ladder.h"
#include "lcsum.h"
#include "steps.h"
#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

/* The partners as one call evaluates them: most in one compiled fast
 * sum of log-CDFs (lcsum.h), loss mixtures as its ladders (ladder.h);
 * with an empirical partner among them, every step CDF as a table of
 * its points (steps.h), summed beside it.  Built by emax_make_ctx;
 * borrows the partners, the tables and the workspace's sum and fit. */
struct emax_ctx {
    const struct gt_partner_group *g;
    size_t ng;
    long skip;            /* group whose one member is excluded (slowest) */
    double log_g_cut;     /* log G(x0) for the cut-off integrand */
    const struct gt_lcsum *sum;   /* the fast sum over the other partners */
    bool extra;           /* some partner is a tabled step CDF (steps.h):
                             those are summed here, outside the compiled sum */
    bool mixed;           /* some partner of the compiled sum is a loss
                             mixture (its ladder, ladder.h) */
    bool steps;           /* some partner is empirical: every step CDF
                             (empirical or delta) is then tabled */
    bool only_steps;      /* every partner is: 1 - G is piecewise constant */
    const struct gt_steps *tabs;  /* per group; n > 0: its step table */
    struct gt_cheb *cheb;         /* the workspace's fit (chebfit.h) */
    double scale;                 /* the largest partner median: E[max] >= scale / 2 */
};

/* whether group i is a step table (summed beside the compiled sum) */
static inline bool tabled(const struct emax_ctx *c, size_t i)
{
    return c->tabs && c->tabs[i].n > 0;
}

/* whether group i is outside the compiled sum: the tabled ones */
static inline bool extra_at(const struct emax_ctx *c, size_t i)
{
    return tabled(c, i);
}

/* group i's compiled loss mixture, or NULL */
static inline const struct gt_ladder *ladder_at(const struct emax_ctx *c, size_t i)
{
    return c->mixed && !tabled(c, i) ? gt_lcsum_ladder(c->sum, i) : NULL;
}

/* ---- building the context (once per call) ---- */

/* The step tables of a call, when some partner needs them: *out is NULL
 * or ng entries (n = 0 for the groups not tabled), caller frees with
 * emax_free_tables.  GT_EINPUT beyond GT_STEPS_MAX_POINTS points. */
int emax_build_tables(const struct gt_partner_group *g, size_t ng, struct gt_steps **out,
                      struct gt_error *err);
void emax_free_tables(struct gt_steps *t, size_t ng);   /* NULL: no-op */

/* Fill *c for partners g (n of them in all), compiling the fast sum into
 * sum (borrowed, as are g and tabs); GT_ENOMEM on failure. */
int emax_make_ctx(const struct gt_partner_group *g, size_t ng, double n,
                  const struct gt_emax_opts *o, struct gt_steps *tabs, struct gt_lcsum *sum,
                  struct gt_cheb *cheb, struct emax_ctx *c);

/* ---- G ---- */

double emax_group_logcdf(const struct emax_ctx *c, size_t i, double x);
/* sum over the tabled partners of count * log F(x) */
double emax_log_extra(const struct emax_ctx *c, double x);
/* log G(x), less one member of group c->skip when skip >= 0 */
double emax_log_G(const struct emax_ctx *c, double x);
/* integrands for GSL, p a struct emax_ctx: 1 - G, G, and the cut-off's
 * G(x0) - G (c->log_g_cut) */
double emax_f_one_minus_G(double x, void *p);
double emax_f_G(double x, void *p);
double emax_f_cut(double x, void *p);
/* the largest lower end of the partners' supports (-INFINITY: none) */
double emax_lower_bound(const struct gt_partner_group *g, size_t ng);

/* ---- quantiles of the max ---- */

/* Bracket the x where G(x) = q to relative width tol (0: to the last
 * bit): log G(*lo) < log q <= log G(*hi). */
void emax_bracket(const struct emax_ctx *base, double n, double q, double tol, double *lo_out,
                  double *hi_out);
/* The same from the answer kept in warm slot (if wm), where it then keeps this one. */
void emax_bracket_warm(const struct emax_ctx *base, double n, double q, double tol,
                       struct gt_emax_warm *wm, int slot, double *lo_out, double *hi_out);
/* the q-quantile of the max (emax_bracket's hi) */
double emax_quantile(const struct emax_ctx *base, double n, double q, double tol);

#endif
