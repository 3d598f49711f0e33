/*
 * neighbor.c - see neighbor.h.
 */
#include "neighbor.h"

#include <math.h>
#include <stdlib.h>

static long gcd(long a, long b)
{
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

const char *gt_neighbor_check(long n, long c)
{
    if (c <= 1)
        return "the model needs C > 1 devices: with one device the usual exchange already "
               "uses all its bandwidth";
    if (n <= c)
        return "the model needs N > C: with at least as many devices as neighbours, one "
               "device per neighbour already fills every link (device and link bandwidth "
               "are equal), so segmenting cannot help";
    if (n > 1000000 || c > 1000000)
        return "N and C must be at most 1,000,000";
    return NULL;
}

bool gt_neighbor_eval(long n, long c, double bytes, double latency_s, double bandwidth,
                      struct gt_neighbor *o, const char **why)
{
    if ((*why = gt_neighbor_check(n, c)))
        return false;
    if (!(bytes >= 0 && isfinite(bytes)) || !(latency_s >= 0 && isfinite(latency_s)) ||
        !(bandwidth > 0 && isfinite(bandwidth))) {
        *why = "message size and latency must be >= 0, bandwidth > 0";
        return false;
    }
    o->n = n;
    o->c = c;
    o->g = gcd(n, c);
    o->n1 = n / o->g;
    o->c1 = c / o->g;
    o->rounds_prev = (n + c - 1) / c;
    o->segment_bytes = bytes / (double)o->c1;
    double r = (double)o->rounds_prev, n1 = (double)o->n1, c1 = (double)o->c1;
    o->d_prev = latency_s * r + r * bytes / bandwidth;
    o->d_proposed = latency_s * n1 + (n1 / c1) * bytes / bandwidth;
    o->speedup = o->d_proposed > 0 ? o->d_prev / o->d_proposed : 1;
    o->speedup_large = (c1 / n1) * r;
    /* L r + r M/B = L N' + (N'/C') M/B, solved for M */
    double per_byte = r - n1 / c1, fixed = n1 - r;
    if (per_byte <= 0)
        o->crossover_bytes = INFINITY;          /* bandwidth terms never favour it */
    else if (fixed <= 0)
        o->crossover_bytes = 0;                 /* no more steps, less data per step */
    else
        o->crossover_bytes = latency_s * bandwidth * fixed / per_byte;
    return true;
}

void gt_neighbor_schedule(long n, long c, struct gt_neighbor_slot *out)
{
    long n1 = n / gcd(n, c);
    for (long i = 0; i < n1; i++)
        for (long j = 0; j < c; j++) {
            long slot = j + i * c;
            out[i * c + j] = (struct gt_neighbor_slot){i, j, slot % n, slot / n};
        }
}

const char *gt_neighbor_schedule_check(long n, long c, const struct gt_neighbor_slot *s,
                                       size_t count)
{
    long g = gcd(n, c), c1 = c / g;
    if (count != (size_t)(n / g * c))
        return "the schedule has the wrong number of slots";
    char *got = calloc((size_t)(n * c1), 1);
    long *last_step = malloc((size_t)n * sizeof *last_step);
    const char *bad = got && last_step ? NULL : "out of memory";
    for (long k = 0; k < n && last_step; k++)
        last_step[k] = -1;
    for (size_t k = 0; !bad && k < count; k++) {
        const struct gt_neighbor_slot *x = &s[k];
        if (x->neighbor < 0 || x->neighbor >= n || x->segment < 0 || x->segment >= c1)
            bad = "a slot names a neighbour or segment that does not exist";
        else if (last_step[x->neighbor] == x->step)
            bad = "a step sends two segments to one neighbour";
        else if (got[x->neighbor * c1 + x->segment]++)
            bad = "a neighbour gets one segment twice";
        else
            last_step[x->neighbor] = x->step;
    }
    free(got);
    free(last_step);
    return bad;
}
