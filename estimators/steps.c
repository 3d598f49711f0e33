/*
 * steps.c - see steps.h.
 *
 * A point's weight is w_j / n (loss term j, n samples).  F is summed up
 * the sorted points and 1 - F down them, both with compensation, and
 * log F taken from whichever is below 1/2, so neither end of the table
 * loses its digits to cancellation.  Without loss the counts give both
 * exactly.
 */
#include "steps.h"
#include "base/error.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct point {
    double t, w;
};

/* The terms' runs of nx points, each ascending (the samples are, and a
 * point is xs[k] * scale + offset, whose rounding keeps their order),
 * merged into one ascending array, a run at a time: runs a retry apart
 * mostly do not overlap and cost one comparison, where sorting the
 * points cost O(n log n) calls of a comparison per E[max] (a tenth of a
 * placement's time).  GT_ENOMEM. */
static int merge_runs(struct point *pt, size_t nx, int terms)
{
    for (size_t j = 1; j < (size_t)terms; j++)
        if (!gt_merge_runs(pt, sizeof *pt, j * nx, (j + 1) * nx))
            return GT_ENOMEM;
    return GT_OK;
}

double gt_steps_size(const struct gt_dist *d)
{
    double samples = gt_dist_is_step(d) ? (double)d->nx : 1;
    return samples * (d->loss_p > 0 ? gt_loss_terms(d->loss_p) : 1);
}

/* tail[k] = 1 - F(t_k) becomes sum_{j >= k} (1 - F(t_j)) (t_{j+1} - t_j),
 * in place from the top with compensation: a tail integral from any x
 * is then one search */
static void tail_sums(struct gt_steps *s)
{
    struct gt_ksum acc = {0, 0};
    if (!s->n)
        return;
    s->tail[s->n - 1] = 0;   /* F = 1 at the last point */
    for (size_t k = s->n - 1; k-- > 0;) {
        gt_ksum_add(&acc, s->tail[k] * (s->t[k + 1] - s->t[k]));
        s->tail[k] = gt_ksum_get(&acc);
    }
}

int gt_steps_build(const struct gt_dist *d, struct gt_steps *s)
{
    bool emp = gt_dist_is_step(d);
    size_t nx = emp ? d->nx : 1;
    int terms = d->loss_p > 0 ? gt_loss_terms(d->loss_p) : 1;
    size_t n = nx * (size_t)terms;
    struct point *pt = malloc(n * sizeof *pt);
    s->t = malloc(n * sizeof *s->t);
    s->lcdf = malloc(n * sizeof *s->lcdf);
    s->tail = malloc(n * sizeof *s->tail);
    s->n = 0;
    if (!pt || !s->t || !s->lcdf || !s->tail) {
        free(pt);
        gt_steps_free(s);
        return GT_ENOMEM;
    }
    double w = terms > 1 ? gt_loss_weight0(d->loss_p, terms) : 1, delay = 0, r = d->rto_ms;
    for (int j = 0; j < terms; j++) {
        double off = d->shift + delay;   /* as gt_emp_cdf forms it */
        for (size_t k = 0; k < nx; k++)
            pt[(size_t)j * nx + k] = (struct point){
                emp ? d->xs[k] * d->p[0] + off : d->p[0] + off, w / (double)nx};
        w *= d->loss_p;
        delay += r < GT_RTO_MAX_MS ? r : GT_RTO_MAX_MS;
        r *= 2;
    }
    if (terms > 1 && merge_runs(pt, nx, terms)) {
        free(pt);
        gt_steps_free(s);
        return GT_ENOMEM;
    }
    /* merge repeated points: their weights add, and (no loss: the points
       ascend with the samples) the count of samples <= t is the last
       repeat's index + 1 */
    size_t m = 0;
    double *count = s->lcdf;   /* replaced by the logs below */
    for (size_t i = 0; i < n; i++) {
        if (m && pt[i].t == s->t[m - 1]) {
            pt[m - 1].w += pt[i].w;
            count[m - 1] = (double)i + 1;
            continue;
        }
        s->t[m] = pt[i].t;
        pt[m] = pt[i];
        count[m] = (double)i + 1;
        m++;
    }
    /* 1 - F(t[k]) into tail[], which tail_sums then turns into the
       integrals: without loss from the counts, else the weight above */
    double *sf = s->tail;
    if (terms == 1) {
        for (size_t k = 0; k < m; k++) {
            double cdf = count[k] / (double)nx;
            sf[k] = ((double)nx - count[k]) / (double)nx;
            s->lcdf[k] = sf[k] < 0.5 ? log1p(-sf[k]) : log(cdf);
        }
    } else {
        struct gt_ksum lo = {0, 0}, up = {0, 0};
        for (size_t k = m; k-- > 0;) {
            sf[k] = gt_ksum_get(&up);
            gt_ksum_add(&up, pt[k].w);
        }
        for (size_t k = 0; k < m; k++) {
            gt_ksum_add(&lo, pt[k].w);
            double cdf = gt_ksum_get(&lo);
            s->lcdf[k] = sf[k] < 0.5 ? log1p(-sf[k]) : log(cdf);
        }
    }
    free(pt);
    s->n = m;
    tail_sums(s);
    return GT_OK;
}

void gt_steps_free(struct gt_steps *s)
{
    free(s->t);
    free(s->lcdf);
    free(s->tail);
    s->t = s->lcdf = s->tail = NULL;
    s->n = 0;
}
