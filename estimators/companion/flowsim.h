/*
 * flowsim.h - flow-level network simulation (METHOD.md section 6).
 *
 * Directed links with bandwidths; every node sends its messages one at a
 * time, in order (its active message is a flow along a static route);
 * receivers take any number at once.  Rates are the exact max-min fair
 * shares, computed by progressive filling (the tightest link fixes the
 * rate of its flows, its leftover goes to the others, and so on) - not a
 * fixed-point loop with a threshold.  Completions come from a heap, and a
 * start or end recomputes only the flows connected to it through shared
 * links (max-min shares decompose over those components).
 *
 * The network and the traffic come from callbacks (estimators/topology.h
 * builds them), so routes are made when a message starts, not stored.
 */
#ifndef GT_FLOWSIM_H
#define GT_FLOWSIM_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gt_sim_net {
    size_t nnodes, nlinks;
    size_t max_path;          /* links on the longest route */
    const double *bw;         /* bytes per second, per link */
    /* the k-th message of a node (dst, bytes); false when it has no more */
    bool (*next)(void *ctx, size_t node, size_t k, size_t *dst, double *bytes);
    /* the links from src to dst, in order: stores at most cap, returns how
       many the route has (a longer route than max_path is an error) */
    size_t (*route)(void *ctx, size_t src, size_t dst, uint32_t *links, size_t cap);
    void *ctx;
};

struct gt_sim_result {
    double time;              /* when the last message arrived, s */
    size_t flows;             /* messages simulated */
    size_t events;            /* completions processed */
    size_t recomputed;        /* flow rates set, over all recomputations */
    bool stopped;             /* max_events reached first */
    uint32_t *peak_flows;     /* per link: most flows at once (caller's
                                 array of nlinks, or NULL) */
    double *peak_util;        /* per link: highest rate sum / bandwidth */
};

/* Run until every message has arrived, or max_events completions (0 = no
 * limit).  finish, when not NULL, receives each message's arrival time in
 * start order (caller's array of at least as many messages). */
int gt_sim_run(const struct gt_sim_net *net, size_t max_events, double *finish,
               struct gt_sim_result *out, struct gt_error *err);

#endif
