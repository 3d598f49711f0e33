/*
 * topology.h - networks and traffic patterns for the flow simulator
 * (estimators/flowsim.h, METHOD.md section 6).
 *
 * Topologies, every link of bandwidth B unless said otherwise:
 *   crossbar:N      N nodes on one ideal switch: an up and a down link each
 *   fattree:N[,A]   N nodes under a tree of A-port switches (default 16)
 *                   whose links are fat: a link carries B times the nodes
 *                   below it (full bisection); routes go up to the lowest
 *                   common switch and down
 *   mesh:X[,Y[,Z]]  a router per node, links both ways to each grid
 *   torus:X[,Y[,Z]] neighbour (torus: wrapping around), plus the node's
 *                   own injection and ejection links; dimension-order
 *                   routes (torus: the shorter way, ties forward)
 *   sites:FILE      grid sites, one per line "NAME UP_MBps [DOWN_MBps]"
 *                   ('#' comments): each site's uplink and downlink to a
 *                   wide-area core that is not the bottleneck
 * Patterns, M bytes per message, each node's messages sent in order:
 *   alltoall-spread    node i sends to i+1, i+2, ... (mod N)
 *   alltoall-pairwise  step s = 1..N-1 to i XOR s (N a power of two),
 *                      else to i+s (mod N)
 *   ring               node i sends once to i+1 (mod N)
 *   bcast              node 0 sends to 1, 2, ..., N-1
 */
#ifndef GT_TOPOLOGY_H
#define GT_TOPOLOGY_H

#include "flowsim.h"

enum gt_topo_kind { GT_TOPO_CROSSBAR, GT_TOPO_FATTREE, GT_TOPO_MESH, GT_TOPO_TORUS,
                    GT_TOPO_SITES };
enum gt_pattern { GT_PAT_SPREAD, GT_PAT_PAIRWISE, GT_PAT_RING, GT_PAT_BCAST };

struct gt_topology {
    enum gt_topo_kind kind;
    size_t nnodes, nlinks;
    size_t max_path;          /* links on the longest route */
    double *bw;               /* bytes/s per link */
    size_t dims[3], ndims;    /* mesh, torus */
    size_t arity, nverts;     /* fattree: tree vertices (nodes first) */
    size_t *parent;           /* fattree: each vertex's parent */
    char **names;             /* sites */
    enum gt_pattern pattern;
    double bytes;
};

/* Build from a spec ("torus:16,16"), bandwidth B in bytes/s (sites: the
 * file's MB/s).  Errors name the spec or the file and line. */
int gt_topology_new(const char *spec, double bw, struct gt_topology *t, struct gt_error *err);
void gt_topology_free(struct gt_topology *t);

/* The same as "sites:PATH": grid sites and their links from a file. */
int gt_topology_sites(const char *path, struct gt_topology *t, struct gt_error *err);

/* By name ("alltoall-spread", ...), -1 if unknown. */
int gt_pattern_find(const char *name);

/* The simulator's view: t's links and routes, the pattern's messages. */
void gt_topology_net(struct gt_topology *t, enum gt_pattern p, double bytes,
                     struct gt_sim_net *net);

/* A link's name for reports ("node 3 up", "(1,2) x+"). */
void gt_topology_link_name(const struct gt_topology *t, size_t link, char *buf, size_t size);

#endif
