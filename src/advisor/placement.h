/*
 * placement.h - the placement search (METHOD.md section 3.1): the best
 * K partner sites of a pool for a root, or the best root and partners,
 * by the iteration time of the collective as the advisor estimates it
 * (advisor.h; the order of gt_estimate_cmp).
 *
 * Exact while the candidate sets are few enough (exact_limit): every
 * set is estimated, but for those whose bound (each partner alone)
 * shows they cannot be among the best.  Beyond that a heuristic: each
 * root's K best-scored partners, then swaps from the most promising
 * roots.  Either way the best sets found are answered in full.
 */
#ifndef GT_PLACEMENT_H
#define GT_PLACEMENT_H

#include "advisor.h"
#include "base/error.h"

#include <stddef.h>

struct gt_place_opts {
    size_t size;              /* K partner sites */
    const char *root;         /* NULL = choose the root too */
    double exact_limit;       /* enumerate while candidate sets <= this */
    size_t keep;              /* how many best candidates to return */
    /* Called after each batch of the exact search: sets estimated so
     * far, and in all (for a progress line); may be NULL. */
    void (*progress)(void *ctx, double done, double total);
    void *progress_ctx;
};

struct gt_place_result {
    struct gt_estimate *best; /* keep entries, best first */
    size_t nbest;
    const char *search;       /* "exact" or "greedy+swap" */
    double evaluated;         /* candidate sets estimated */
    double pruned;            /* exact search: sets left out by their bound,
                                 which shows they cannot be among the best */
    double sets;              /* candidate sets there are (all roots) */
    char *excluded[64];       /* sites dropped for missing data, with reason */
    size_t nexcluded;
};

/* Search the pool's sites (unique; at most 4096) for the best po->keep
 * placements of po->size partners (1 .. 256), rooted at po->root or at
 * any pool site.  GT_ENOTFOUND: no root has po->size partners with data.
 * Once the advisor's stop says so the search ends early with what it
 * found (gt_advisor_stopped).  Caller frees r with
 * gt_place_result_clear, whatever the return. */
int gt_advisor_place(struct gt_advisor *a, const struct gt_site_req *pool, size_t npool,
                     const struct gt_place_opts *po, struct gt_place_result *r,
                     struct gt_error *err);
void gt_place_result_clear(struct gt_place_result *r);

#endif
