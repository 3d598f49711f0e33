/*
 * placement.c - the placement search (see placement.h): each root's
 * candidates scored alone, the exact search with its bounds in batches
 * on the advisor's threads (gt_advisor_estimate_many), the heuristic's
 * greedy starts and swaps, and the best sets answered in full.
 */
#define _POSIX_C_SOURCE 200809L
#include "placement.h"
#include "advisor_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void gt_place_result_clear(struct gt_place_result *r)
{
    for (size_t i = 0; i < r->nbest; i++)
        gt_estimate_clear(&r->best[i]);
    free(r->best);
    for (size_t i = 0; i < r->nexcluded; i++)
        free(r->excluded[i]);
    memset(r, 0, sizeof *r);
}

/* e clearly better than best: ordered before it, and not by rounding. */
static bool better(const struct gt_estimate *e, const struct gt_estimate *best)
{
    if (isfinite(e->cut_x0) != isfinite(best->cut_x0))
        return !isfinite(e->cut_x0);
    return e->objective_ms < best->objective_ms * (1 - 1e-12);
}

/* Keep e among the best (lowest iteration time) r->nbest of at most keep;
 * takes ownership of e's contents. */
static void keep_best(struct gt_place_result *r, size_t keep, struct gt_estimate *e)
{
    size_t pos = r->nbest;
    while (pos > 0 && gt_estimate_cmp(&r->best[pos - 1], e) > 0)
        pos--;
    if (pos >= keep) {
        gt_estimate_clear(e);
        return;
    }
    if (r->nbest == keep)
        gt_estimate_clear(&r->best[--r->nbest]);
    memmove(&r->best[pos + 1], &r->best[pos], (r->nbest - pos) * sizeof *r->best);
    r->best[pos] = *e;
    r->nbest++;
    memset(e, 0, sizeof *e);
}

struct cand {
    const struct gt_site_req *site;
    double score;    /* the partner's own quantile at 1 - 1/(K+1): lower is better */
};

static int by_score(const void *x, const void *y)
{
    double a = ((const struct cand *)x)->score, b = ((const struct cand *)y)->score;
    return (a > b) - (a < b);
}

/* Say why a site was left out, once: an unknown pool site is unknown
 * from every root. */
static void exclude(struct gt_place_result *r, const char *why)
{
    for (size_t i = 0; i < r->nexcluded; i++)
        if (r->excluded[i] && !strcmp(r->excluded[i], why))
            return;
    if (r->nexcluded < 64)
        r->excluded[r->nexcluded++] = strdup(why);
}

/* Partners of root with data, scored; the rest reported as excluded. */
static int candidates(struct gt_advisor *a, const char *root, const struct gt_site_req *pool,
                      size_t npool, size_t k, struct cand *out, size_t *nout,
                      struct gt_place_result *r, struct gt_error *err)
{
    *nout = 0;
    const struct gt_pairfit **fits = malloc((npool ? npool : 1) * sizeof *fits);
    bool *rev = malloc((npool ? npool : 1) * sizeof *rev);
    struct gt_site_req *kept = malloc((npool ? npool : 1) * sizeof *kept);
    int rc = fits && rev && kept ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < npool; i++) {
        if (!strcmp(pool[i].name, root))
            continue;
        const struct gt_pairfit *f;
        bool reversed;
        if ((rc = advisor_pair_fit(a, root, pool[i].name, &f, &reversed, err)))
            break;
        char why[300];
        if (!f->found) {
            exclude(r, f->why);
        } else if (advisor_too_lossy(a, f, root, pool[i].name, why, sizeof why)) {
            exclude(r, why);
        } else {
            out[*nout].site = &pool[i];
            fits[*nout] = f, rev[*nout] = reversed, kept[*nout] = pool[i];
            (*nout)++;
        }
    }
    /* the model: with adaptive, tracked over the sites the search may use */
    struct gt_placement pl = {root, kept, *nout};
    enum gt_adv_model model;
    if (rc == GT_OK)
        rc = tracked_root_model(a, &pl, &model, NULL, NULL, err);
    for (size_t i = 0; rc == GT_OK && i < *nout; i++) {
        struct gt_dist d = {0};
        const char *name = out[i].site->name;
        if ((rc = advisor_partner_dist(a, model, fits[i], rev[i] ? name : root,
                                       rev[i] ? root : name, &d, err)))
            break;
        double level = 1 - 1.0 / (double)(k + 1);
        out[i].score = gt_dist_quantile0(&d, level);
    }
    free(fits), free(rev), free(kept);
    if (rc)
        return rc;
    qsort(out, *nout, sizeof *out, by_score);
    return GT_OK;
}

/* Estimate root with the candidates idx[0..k) at the given detail. */
static int estimate_set(struct gt_advisor *a, const char *root, struct cand *c,
                        const size_t *idx, size_t k, struct gt_site_req *buf,
                        enum gt_adv_detail detail, struct gt_estimate *e,
                        struct gt_error *err)
{
    for (size_t i = 0; i < k; i++)
        buf[i] = *c[idx[i]].site;
    enum gt_adv_detail keep = a->o.detail;
    a->o.detail = detail;
    int rc = gt_advisor_estimate(a, root, buf, k, e, err);
    a->o.detail = keep;
    return rc;
}

/* C(n, k) as a double, the product of (n - k + i) / i: lgamma writes the
 * global signgam, a data race between the advisor's threads */
static double choose(double n, double k)
{
    if (k > n)
        return 0;
    k = fmin(k, n - k);
    double logc = 0;
    for (double i = 1; i <= k; i++)
        logc += log((n - k + i) / i);
    return exp(logc);
}

/* The next k-subset of m in lexicographic order; false after the last. */
static bool next_subset(size_t *idx, size_t k, size_t m)
{
    size_t i = k;
    while (i > 0 && idx[i - 1] == m - k + i - 1)
        i--;
    if (i == 0)
        return false;
    idx[i - 1]++;
    for (size_t j = i; j < k; j++)
        idx[j] = idx[j - 1] + 1;
    return true;
}

#define EXACT_BATCH 1024

/* A bound on what a set can do (METHOD.md, "Placement"): the max of
 * independent partners is at least each of them, in mean and in every
 * quantile, so no set does better than its worst member alone.  Each
 * candidate's objective alone less the compute phase is its bound;
 * cut[i] says its fit has alpha <= 1, which puts every set holding it
 * after the sets without.  false: no bounds here (the paper's cut, whose
 * expectation is not monotone; messages or an extrapolated compute
 * phase, which depend on the whole set), or ENOMEM. */
struct bounds {
    double *lb;
    bool *cut;
};

static bool bounds_apply(const struct gt_advisor *a)
{
    return !a->o.cut_paper && !(a->o.bytes > 0) && !a->o.compute_extrap;
}

static int partner_bounds(struct gt_advisor *a, const char *root, const struct cand *c,
                          size_t m, struct bounds *b, struct gt_error *err)
{
    struct gt_placement *pl = calloc(m ? m : 1, sizeof *pl);
    struct gt_estimate *out = calloc(m ? m : 1, sizeof *out);
    int *rcs = calloc(m ? m : 1, sizeof *rcs);
    b->lb = malloc((m ? m : 1) * sizeof *b->lb);
    b->cut = malloc((m ? m : 1) * sizeof *b->cut);
    int rc = pl && out && rcs && b->lb && b->cut
                 ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < m; i++)
        pl[i] = (struct gt_placement){root, c[i].site, 1};
    if (rc == GT_OK)
        rc = gt_advisor_estimate_many(a, pl, m, out, rcs, err);
    for (size_t i = 0; i < m; i++) {
        bool ok = rc == GT_OK && rcs[i] == GT_OK;
        b->lb[i] = ok ? out[i].objective_ms - out[i].compute_ms : NAN;
        b->cut[i] = ok && isfinite(out[i].cut_x0);
        gt_estimate_clear(&out[i]);
    }
    free(pl);
    free(out);
    free(rcs);
    return rc;
}

/* Whether the set idx[0..k) cannot enter the keep best found so far:
 * its bound is clearly (beyond the integrals' tolerance) above the
 * worst kept one's, or it is cut-off and the worst kept one is not. */
static bool cannot_enter(const struct gt_place_result *r, size_t keep, const struct bounds *b,
                         const size_t *idx, size_t k)
{
    if (!b->lb || r->nbest < keep || !keep)
        return false;
    const struct gt_estimate *worst = &r->best[r->nbest - 1];
    if (isfinite(worst->cut_x0))
        return false;
    double bound = -INFINITY;
    for (size_t i = 0; i < k; i++) {
        double v = b->lb[idx[i]];
        if (isnan(v))
            return false;
        if (b->cut[idx[i]])
            return true;
        bound = fmax(bound, v);
    }
    /* clearly above, whatever the sign (a normal fit's mean may be < 0) */
    return bound + worst->compute_ms >
           worst->objective_ms + 1e-9 * fabs(worst->objective_ms);
}

/* Every k-subset of the candidates, lexicographically, estimated by
 * E[max] in batches on the advisor's threads, but for those whose bound
 * shows they cannot be among the best (counted as pruned). */
static int place_exact(struct gt_advisor *a, const char *root, struct cand *c, size_t m,
                       const struct gt_place_opts *po, struct gt_place_result *r,
                       struct gt_error *err)
{
    size_t k = po->size, idx[256] = {0};
    for (size_t i = 0; i < k; i++)
        idx[i] = i;
    struct gt_site_req *sites = calloc(EXACT_BATCH * k, sizeof *sites);
    struct gt_placement *pl = calloc(EXACT_BATCH, sizeof *pl);
    struct gt_estimate *out = calloc(EXACT_BATCH, sizeof *out);
    int *rcs = calloc(EXACT_BATCH, sizeof *rcs);
    struct bounds b = {NULL, NULL};
    int rc = sites && pl && out && rcs ? GT_OK
             : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    enum gt_adv_detail keep = a->o.detail;
    a->o.detail = GT_ADV_PARTNERS;
    if (rc == GT_OK && k > 1 && bounds_apply(a))
        rc = partner_bounds(a, root, c, m, &b, err);
    for (bool more = true, stop = false; rc == GT_OK && more && !stop;) {
        size_t n = 0;
        for (; more && n < EXACT_BATCH && !stop; more = next_subset(idx, k, m)) {
            if (cannot_enter(r, po->keep, &b, idx, k)) {
                /* a long run of pruned sets still hears Ctrl-C and shows progress */
                if (fmod(++r->pruned, 65536) == 0) {
                    stop = gt_advisor_should_stop(a);
                    if (po->progress)
                        po->progress(po->progress_ctx, r->evaluated + r->pruned, r->sets);
                }
                continue;
            }
            for (size_t i = 0; i < k; i++)
                sites[n * k + i] = *c[idx[i]].site;
            pl[n] = (struct gt_placement){root, &sites[n * k], k};
            n++;
        }
        rc = gt_advisor_estimate_many(a, pl, n, out, rcs, err);
        for (size_t j = 0; j < n; j++) {
            r->evaluated += rcs[j] != -1;
            if (rc == GT_OK && rcs[j] == GT_OK)
                keep_best(r, po->keep, &out[j]);
            else
                gt_estimate_clear(&out[j]);
        }
        if (po->progress)
            po->progress(po->progress_ctx, r->evaluated + r->pruned, r->sets);
        stop = stop || gt_advisor_should_stop(a);
    }
    a->o.detail = keep;
    free(sites);
    free(pl);
    free(out);
    free(rcs);
    free(b.lb);
    free(b.cut);
    return rc;
}

/* Greedy start (the k best-scored partners), then swaps: the partner most
 * often the slowest is replaced by the first of the SWAP_TRIES best-scored
 * unused candidates that lowers the iteration time, until no swap helps. */
#define SWAP_TRIES 16
#define SWAP_ROOTS 4
static int place_greedy(struct gt_advisor *a, const char *root, struct cand *c, size_t m,
                        const struct gt_place_opts *po, struct gt_place_result *r,
                        struct gt_site_req *buf, bool search, struct gt_estimate *best,
                        struct gt_error *err)
{
    size_t k = po->size, idx[256] = {0};
    bool used[4096] = {false};
    for (size_t i = 0; i < k; i++)
        idx[i] = i, used[i] = true;
    int rc = estimate_set(a, root, c, idx, k, buf, GT_ADV_FULL, best, err);
    r->evaluated++;
    for (int round = 0;
         rc == GT_OK && search && round < (int)(4 * k) && !gt_advisor_should_stop(a);
         round++) {
        size_t worst = 0;
        for (size_t i = 1; i < best->n; i++)
            if (best->partners[i].p_slowest > best->partners[worst].p_slowest)
                worst = i;
        bool improved = false;
        size_t tried = 0;
        for (size_t j = 0; rc == GT_OK && j < m && !improved && tried < SWAP_TRIES &&
                           !gt_advisor_should_stop(a); j++) {
            if (used[j])
                continue;
            tried++;
            size_t old = idx[worst];
            idx[worst] = j;
            struct gt_estimate e;
            rc = estimate_set(a, root, c, idx, k, buf, GT_ADV_PARTNERS, &e, err);
            r->evaluated++;
            if (rc == GT_OK && better(&e, best)) {
                used[old] = false;
                used[j] = true;
                gt_estimate_clear(best);
                gt_estimate_clear(&e);
                /* the next round needs who is most often the slowest */
                rc = estimate_set(a, root, c, idx, k, buf, GT_ADV_FULL, best, err);
                improved = true;
            } else {
                idx[worst] = old;
                gt_estimate_clear(&e);
            }
        }
        if (!improved)
            break;
    }
    return rc;
}

/* Re-estimate e (made at a lower detail) in full from its partner list. */
static int fill_in(struct gt_advisor *a, struct gt_estimate *e, struct gt_error *err)
{
    if (e->detail == GT_ADV_FULL || !e->partners || e->n == 0)
        return GT_OK;
    struct gt_site_req *sites = calloc(e->n, sizeof *sites);
    if (!sites)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < e->n; i++)
        sites[i] = (struct gt_site_req){e->partners[i].site, e->partners[i].procs};
    enum gt_adv_detail keep = a->o.detail;
    a->o.detail = GT_ADV_FULL;
    struct gt_estimate full;
    int rc = gt_advisor_estimate(a, e->root, sites, e->n, &full, err);
    a->o.detail = keep;
    free(sites);
    if (rc) {
        gt_estimate_clear(&full);
        return rc;
    }
    gt_estimate_clear(e);
    *e = full;
    return GT_OK;
}

/* Every root's greedy start (its K best-scored partners), estimated
 * together: they are independent, so they go to gt_advisor_estimate_many. */
static int greedy_starts(struct gt_advisor *a, const struct gt_site_req *pool, size_t nroots,
                         const struct gt_place_opts *po, struct cand **cands,
                         const size_t *ncand, struct gt_place_result *r,
                         struct gt_estimate *start, struct gt_error *err)
{
    size_t k = po->size, n = 0;
    struct gt_placement *pl = calloc(nroots, sizeof *pl);
    struct gt_site_req *sites = calloc(nroots * k, sizeof *sites);
    size_t *root_of = calloc(nroots, sizeof *root_of);
    struct gt_estimate *out = calloc(nroots, sizeof *out);
    int *rcs = calloc(nroots, sizeof *rcs);
    int rc = pl && sites && root_of && out && rcs ? GT_OK
             : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < nroots; i++) {
        if (ncand[i] < k)
            continue;
        for (size_t j = 0; j < k; j++)
            sites[n * k + j] = *cands[i][j].site;
        pl[n] = (struct gt_placement){po->root ? po->root : pool[i].name, &sites[n * k], k};
        root_of[n++] = i;
    }
    enum gt_adv_detail detail = a->o.detail;
    a->o.detail = GT_ADV_EMAX_ONLY;   /* E[max] alone picks the roots to search from */
    if (rc == GT_OK)
        rc = gt_advisor_estimate_many(a, pl, n, out, rcs, err);
    a->o.detail = detail;
    for (size_t j = 0; j < n; j++) {
        r->evaluated += rcs[j] != -1;
        if (rcs[j] == GT_OK)
            start[root_of[j]] = out[j];
        else
            gt_estimate_clear(&out[j]);
    }
    free(pl);
    free(sites);
    free(root_of);
    free(out);
    free(rcs);
    return rc;
}

int gt_advisor_place(struct gt_advisor *a, const struct gt_site_req *pool, size_t npool,
                     const struct gt_place_opts *po, struct gt_place_result *r,
                     struct gt_error *err)
{
    memset(r, 0, sizeof *r);
    if (po->size < 1 || po->size > 256 || npool > 4096)
        return gt_error_set(err, GT_EUSAGE, NULL, "--size must be 1..256, the pool at most "
                            "4096 sites");
    int rc0 = gt_sites_check_unique(pool, npool, "pool", err);
    if (rc0)
        return rc0;
    if (po->root && strchr(po->root, ':'))
        return gt_error_set(err, GT_EUSAGE, "root", "'%s': the root is one process and "
                            "takes no :PROCS", po->root);
    size_t nroots = po->root ? 1 : npool;
    struct cand **cands = calloc(nroots, sizeof *cands);
    size_t *ncand = calloc(nroots, sizeof *ncand);
    struct gt_site_req *buf = calloc(po->size, sizeof *buf);
    r->best = calloc(po->keep ? po->keep : 1, sizeof *r->best);
    int rc = cands && ncand && buf && r->best ? GT_OK
             : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    double sets = 0;
    for (size_t i = 0; rc == GT_OK && i < nroots; i++) {
        const char *root = po->root ? po->root : pool[i].name;
        if (!(cands[i] = calloc(npool ? npool : 1, sizeof **cands)))
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        else
            rc = candidates(a, root, pool, npool, po->size, cands[i], &ncand[i], r, err);
        sets += choose((double)ncand[i], (double)po->size);
    }
    r->search = sets <= po->exact_limit ? "exact" : "greedy+swap";
    r->sets = sets;
    /* exact: every set; heuristic: a greedy start for every root, then
       swap search from the SWAP_ROOTS most promising roots */
    struct gt_estimate *start = calloc(nroots, sizeof *start);
    if (rc == GT_OK && !start)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && sets <= po->exact_limit && i < nroots; i++)
        if (ncand[i] >= po->size)
            rc = place_exact(a, po->root ? po->root : pool[i].name, cands[i], ncand[i], po,
                             r, err);
    if (rc == GT_OK && start && sets > po->exact_limit)
        rc = greedy_starts(a, pool, nroots, po, cands, ncand, r, start, err);
    for (int pick = 0; rc == GT_OK && sets > po->exact_limit && pick < SWAP_ROOTS &&
                       !gt_advisor_should_stop(a); pick++) {
        size_t bi = nroots;
        for (size_t i = 0; i < nroots; i++)
            if (start[i].ok && (bi == nroots || gt_estimate_cmp(&start[i], &start[bi]) < 0))
                bi = i;
        if (bi == nroots)
            break;
        struct gt_estimate e;
        gt_estimate_clear(&start[bi]);
        rc = place_greedy(a, po->root ? po->root : pool[bi].name, cands[bi], ncand[bi], po,
                          r, buf, true, &e, err);
        if (rc == GT_OK)
            keep_best(r, po->keep, &e);
        else
            gt_estimate_clear(&e);
    }
    for (size_t i = 0; i < nroots; i++) {
        if (start)
            gt_estimate_clear(&start[i]);
        if (cands)
            free(cands[i]);
    }
    free(start);
    free(cands);
    free(ncand);
    free(buf);
    for (size_t i = 0; rc == GT_OK && i < r->nbest; i++)
        rc = fill_in(a, &r->best[i], err);
    if (rc == GT_OK && r->nbest == 0)
        rc = gt_error_set(err, GT_ENOTFOUND, NULL, "no root has %zu partner sites with data",
                          po->size);
    return rc;
}
