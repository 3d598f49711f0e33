/*
 * synth.h - realistic synthetic RTT series for a set of sites (`gridtail
 * synth`): the data the demo and the examples run on, and a known ground
 * truth for tests.
 *
 * Every directed pair (A, B), A != B, gets one sample per interval:
 *
 *   rtt = base + shift + queue + spike,   or lost
 *
 *   base   2 d stretch / fibre + access(A) + access(B): d the great-circle
 *          distance, fibre the speed of light in fibre (km/ms), stretch
 *          how much longer the route is than the great circle, access a
 *          per-site last-mile delay drawn once per site;
 *   shift  a level shift (route change) that starts at random (a rate per
 *          day), lasts a log-uniform time and adds a fraction of base;
 *   queue  Lomax (Pareto II) queueing delay s (U^(-1/alpha) - 1), capped at
 *          max_queue_ms, with the pair's own tail index alpha and s =
 *          jitter * base scaled by a diurnal load cycle of A's local time
 *          (lowest at 04:00, highest at 16:00, sun time from longitude);
 *   spike  a short spike of 1-3 samples, exponential size;
 *   lost   during an outage of the pair (log-uniform length), during a
 *          loss burst (geometric length), or with the pair's own
 *          Bernoulli loss rate (exponential around the mean rate).
 *
 * Every draw comes from the pair's own random stream, seeded from the
 * seed and the two site names, so a pair's series is the same whichever
 * other sites are generated with it, and the same seed gives the same
 * output byte for byte.  Samples are emitted time by time, pairs in site
 * order, through a collector sink (collector.h).
 */
#ifndef GT_SYNTH_H
#define GT_SYNTH_H

#include "collector.h"

#include <stddef.h>
#include <stdint.h>

/* Limits of one run (documented in `gridtail synth --help`). */
#define GT_SYNTH_MAX_SITES 1000
#define GT_SYNTH_MAX_SAMPLES 10000000L       /* per pair */
#define GT_SYNTH_MAX_ROWS 1000000000LL       /* pairs x samples */

struct gt_synth_site {
    char *name, *cluster, *domain;   /* cluster, domain may be NULL */
    double lat, lon;                 /* degrees */
};

struct gt_synth_params {
    uint64_t seed;
    int64_t start;             /* Unix time of the first sample */
    int64_t interval;          /* seconds between samples */
    long samples;              /* per pair */
    double fibre_km_per_ms;    /* speed of light in fibre */
    double stretch;            /* route length / great-circle distance */
    double access_ms;          /* mean per-site access delay (each end) */
    double jitter;             /* queueing scale as a fraction of base */
    double alpha_min, alpha_max;  /* the pairs' tail indices, uniform */
    double max_queue_ms;       /* a router buffer's worth of queueing */
    double diurnal;            /* load at the daily peak / trough - 1 */
    double shift_per_day;      /* route changes per pair per day */
    double shift_min_s, shift_max_s;  /* their length, log-uniform */
    double shift_size;         /* mean size as a fraction of base */
    double spike_prob;         /* chance a sample starts a spike */
    double spike_ms;           /* mean spike size */
    double loss;               /* mean Bernoulli loss rate of a pair */
    double burst_prob;         /* chance a sample starts a loss burst */
    double burst_len;          /* mean burst length in samples */
    double outage_per_day;     /* outages per pair per day */
    double outage_min_s, outage_max_s;  /* their length, log-uniform */
};

/* The documented defaults (`gridtail synth --help`); start is 0. */
void gt_synth_defaults(struct gt_synth_params *p);

/* GT_EUSAGE with the parameter named when one is out of its range. */
int gt_synth_check(const struct gt_synth_params *p, size_t nsites, struct gt_error *err);

/* The built-in list of research-grid sites (borrowed, static). */
const struct gt_synth_site *gt_synth_preset(size_t *n);

/* Sites from a CSV file with a header naming at least name, latitude and
 * longitude (cluster and domain are kept if present); errors name
 * file:line: field.  Caller frees with gt_synth_sites_free. */
int gt_synth_load_sites(const char *path, struct gt_synth_site **sites, size_t *n,
                        struct gt_error *err);
void gt_synth_sites_free(struct gt_synth_site *sites, size_t n);

/* Great-circle distance in km (haversine, mean Earth radius 6371 km). */
double gt_synth_distance_km(const struct gt_synth_site *a, const struct gt_synth_site *b);

/* The pair's base RTT in ms: propagation there and back plus both sites'
 * access delays (the same draw gt_synth_run uses). */
double gt_synth_base_ms(const struct gt_synth_params *p, const struct gt_synth_site *a,
                        const struct gt_synth_site *b);

/* Generate every pair's series into sink.  progress (may be NULL) is
 * called after each time step with the steps done. */
int gt_synth_run(const struct gt_synth_params *p, const struct gt_synth_site *sites,
                 size_t n, const struct gt_sink *sink,
                 void (*progress)(void *ctx, long done, long total), void *progress_ctx,
                 struct gt_error *err);

#endif
