/*
 * neighbor.h - neighbour exchange on nodes with several NICs (METHOD.md
 * section 5).  A process sends M bytes to each of N neighbours through C
 * devices (N > C > 1), every device and link of bandwidth B, latency L.
 * The usual algorithm posts everything at once: ceil(N/C) rounds of
 * whole messages, the last one leaving devices idle.  The proposed one
 * cuts each message into C' = C/g segments (g = gcd(N, C)) and sends N'
 * = N/g steps of C segments, every device busy in every step.
 */
#ifndef GT_NEIGHBOR_H
#define GT_NEIGHBOR_H

#include <stdbool.h>
#include <stddef.h>

struct gt_neighbor {
    long n, c;                /* neighbours, devices */
    long g, n1, c1;           /* gcd, N' = N/g, C' = C/g */
    long rounds_prev;         /* ceil(N/C) */
    double segment_bytes;     /* M / C' */
    double d_prev, d_proposed;    /* seconds */
    double speedup;           /* d_prev / d_proposed at this M */
    double speedup_large;     /* (C'/N') ceil(N/C): M -> infinity */
    double crossover_bytes;   /* M above which the proposed one is faster;
                                 0: always, INFINITY: never */
};

/* NULL when (n, c) is out of the model's domain, else why not. */
const char *gt_neighbor_check(long n, long c);

/* Both times for M bytes per neighbour, latency (s), bandwidth (bytes/s).
 * Returns false (and *why) outside the domain or for bad numbers. */
bool gt_neighbor_eval(long n, long c, double bytes, double latency_s, double bandwidth,
                      struct gt_neighbor *out, const char **why);

struct gt_neighbor_slot {
    long step, device, neighbor, segment;
};

/* Algorithm 2's schedule: N' steps x C devices, slot (i, j) sends segment
 * (j + iC) div N to neighbour (j + iC) mod N.  out holds N' * C slots. */
void gt_neighbor_schedule(long n, long c, struct gt_neighbor_slot *out);

/* A schedule (slots in step order) is sound when no step sends two
 * segments to one neighbour and every neighbour gets each of its C'
 * segments exactly once; NULL if so, else what is wrong. */
const char *gt_neighbor_schedule_check(long n, long c, const struct gt_neighbor_slot *s,
                                       size_t count);

#endif
