/*
 * metrics.c - the counters of metrics.h, lock-free (relaxed atomics:
 * a scrape may see one request counted and its latency not yet, which
 * Prometheus tolerates), and their text exposition.
 */
#define _POSIX_C_SOURCE 200809L
#include "metrics.h"
#include "base/version.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const paths[] = {"/v1/health", "/v1/estimate", "/v1/rank", "/v1/place",
                                    "/v1/samples", "/v1/status", "/v1/events", "/healthz",
                                    "/readyz",
                                    "/metrics", "/metrics/pairs", "other"};
static const char *const push_results[] = {"stored", "duplicate", "conflict", "rejected"};
#define NPUSH 4
#define NPATHS (sizeof paths / sizeof paths[0])
static const unsigned codes[] = {200, 400, 401, 403, 404, 405, 413, 415, 422, 500, 503, 0};
#define NCODES (sizeof codes / sizeof codes[0])   /* 0: any other */
static const double buckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                 1, 2.5, 5, 10};
#define NBUCKETS (sizeof buckets / sizeof buckets[0])

struct gt_metrics {
    atomic_ulong requests[NPATHS][NCODES];
    atomic_ulong le[NPATHS][NBUCKETS];         /* observations <= bucket */
    atomic_ulong count[NPATHS];
    atomic_ullong sum_us[NPATHS];              /* seconds, in microseconds */
    atomic_long in_flight;
    atomic_ulong pushed[NPUSH];                /* samples of POST /v1/samples, by result */
    atomic_ulong fits[2];                      /* pair windows fitted, from the cache */
    atomic_ulong calibrations[3];              /* kept answer, resumed, replayed */
    struct gt_calib_memo *memo;                /* NULL: none */
};

struct gt_metrics *gt_metrics_new(void)
{
    return calloc(1, sizeof(struct gt_metrics));
}

void gt_metrics_free(struct gt_metrics *m)
{
    free(m);
}

void gt_metrics_calib_memo(struct gt_metrics *m, struct gt_calib_memo *memo)
{
    m->memo = memo;
}

/* The copies of calibration states a server keeps. */
static void calib_memo(FILE *f, struct gt_calib_memo *memo)
{
    struct gt_calib_memo_stats s;
    if (!memo)
        return;
    gt_calib_memo_stats(memo, &s);
    fprintf(f, "# HELP gridtail_calibration_states_kept Calibration states this server keeps "
               "copies of ([server] calib_states at most).\n"
               "# TYPE gridtail_calibration_states_kept gauge\n"
               "gridtail_calibration_states_kept %zu\n"
               "# HELP gridtail_calibration_states_kept_max The most it keeps.\n"
               "# TYPE gridtail_calibration_states_kept_max gauge\n"
               "gridtail_calibration_states_kept_max %zu\n"
               "# HELP gridtail_calibration_states_bytes Their bytes ([server] "
               "calib_states_mb at most).\n"
               "# TYPE gridtail_calibration_states_bytes gauge\n"
               "gridtail_calibration_states_bytes %zu\n"
               "# HELP gridtail_calibration_states_bytes_max The most bytes it keeps.\n"
               "# TYPE gridtail_calibration_states_bytes_max gauge\n"
               "gridtail_calibration_states_bytes_max %zu\n"
               "# HELP gridtail_calibration_state_copies_total Answers that went on "
               "from a kept state and looked for this server's copy of it, by whether "
               "they found one (else they read the store).\n"
               "# TYPE gridtail_calibration_state_copies_total counter\n"
               "gridtail_calibration_state_copies_total{result=\"found\"} %llu\n"
               "gridtail_calibration_state_copies_total{result=\"missing\"} %llu\n",
            s.states, s.max_states, s.bytes, s.max_bytes, (unsigned long long)s.hits,
            (unsigned long long)s.misses);
}

void gt_metrics_begin(struct gt_metrics *m)
{
    atomic_fetch_add_explicit(&m->in_flight, 1, memory_order_relaxed);
}

void gt_metrics_done(struct gt_metrics *m)
{
    atomic_fetch_sub_explicit(&m->in_flight, 1, memory_order_relaxed);
}

void gt_metrics_fits(struct gt_metrics *m, size_t fitted, size_t cached)
{
    atomic_fetch_add_explicit(&m->fits[0], fitted, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->fits[1], cached, memory_order_relaxed);
}

void gt_metrics_calibrations(struct gt_metrics *m, size_t kept, size_t resumed,
                             size_t replayed)
{
    atomic_fetch_add_explicit(&m->calibrations[0], kept, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->calibrations[1], resumed, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->calibrations[2], replayed, memory_order_relaxed);
}

void gt_metrics_pushed(struct gt_metrics *m, long stored, long duplicates, long conflicts,
                       long rejected)
{
    long v[NPUSH] = {stored, duplicates, conflicts, rejected};
    for (int i = 0; i < NPUSH; i++)
        atomic_fetch_add_explicit(&m->pushed[i], (unsigned long)(v[i] > 0 ? v[i] : 0),
                                  memory_order_relaxed);
}

long gt_metrics_in_flight(const struct gt_metrics *m)
{
    return atomic_load_explicit(&m->in_flight, memory_order_relaxed);
}

static size_t path_index(const char *path)
{
    for (size_t i = 0; i + 1 < NPATHS; i++)
        if (!strcmp(path, paths[i]))
            return i;
    return NPATHS - 1;
}

void gt_metrics_observe(struct gt_metrics *m, const char *path, unsigned status,
                        double seconds)
{
    size_t p = path_index(path), c = NCODES - 1;
    for (size_t i = 0; i + 1 < NCODES; i++)
        if (codes[i] == status)
            c = i;
    atomic_fetch_add_explicit(&m->requests[p][c], 1, memory_order_relaxed);
    for (size_t b = 0; b < NBUCKETS; b++)
        if (seconds <= buckets[b])
            atomic_fetch_add_explicit(&m->le[p][b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->count[p], 1, memory_order_relaxed);
    unsigned long long us = seconds > 0 ? (unsigned long long)(seconds * 1e6 + 0.5) : 0;
    atomic_fetch_add_explicit(&m->sum_us[p], us, memory_order_relaxed);
}

/* A label value: backslash, double quote and newline escaped (the
 * format's rules); other bytes as they are. */
static void label_value(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fprintf(f, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
}

static unsigned long get(const atomic_ulong *a)
{
    return atomic_load_explicit(a, memory_order_relaxed);
}

static void requests(FILE *f, const struct gt_metrics *m)
{
    fputs("# HELP gridtail_http_requests_total Requests answered, by endpoint and status.\n"
          "# TYPE gridtail_http_requests_total counter\n", f);
    for (size_t p = 0; p < NPATHS; p++)
        for (size_t c = 0; c < NCODES; c++) {
            unsigned long n = get(&m->requests[p][c]);
            if (!n)
                continue;
            fprintf(f, "gridtail_http_requests_total{endpoint=\"%s\",code=\"", paths[p]);
            if (codes[c])
                fprintf(f, "%u", codes[c]);
            else
                fputs("other", f);
            fprintf(f, "\"} %lu\n", n);
        }
}

static void latency(FILE *f, const struct gt_metrics *m)
{
    fputs("# HELP gridtail_http_request_duration_seconds Time from a request's headers to "
          "its answer, by endpoint.\n"
          "# TYPE gridtail_http_request_duration_seconds histogram\n", f);
    for (size_t p = 0; p < NPATHS; p++) {
        unsigned long n = get(&m->count[p]);
        if (!n)
            continue;
        for (size_t b = 0; b < NBUCKETS; b++)
            fprintf(f, "gridtail_http_request_duration_seconds_bucket{endpoint=\"%s\","
                    "le=\"%g\"} %lu\n", paths[p], buckets[b], get(&m->le[p][b]));
        fprintf(f, "gridtail_http_request_duration_seconds_bucket{endpoint=\"%s\","
                "le=\"+Inf\"} %lu\n", paths[p], n);
        fprintf(f, "gridtail_http_request_duration_seconds_sum{endpoint=\"%s\"} %.6f\n",
                paths[p], (double)atomic_load_explicit(&m->sum_us[p], memory_order_relaxed) / 1e6);
        fprintf(f, "gridtail_http_request_duration_seconds_count{endpoint=\"%s\"} %lu\n",
                paths[p], n);
    }
}

static void store(FILE *f, bool up, const struct gt_newest_row *newest, size_t n, int64_t now)
{
    fprintf(f, "# HELP gridtail_store_up Whether the store could be read for this scrape.\n"
               "# TYPE gridtail_store_up gauge\n"
               "gridtail_store_up %d\n", up ? 1 : 0);
    fputs("# HELP gridtail_newest_sample_age_seconds Age of the newest stored sample, by "
          "source site.\n"
          "# TYPE gridtail_newest_sample_age_seconds gauge\n", f);
    for (size_t i = 0; newest && i < n; i++) {
        fputs("gridtail_newest_sample_age_seconds{src=\"", f);
        label_value(f, newest[i].src);
        fprintf(f, "\"} %lld\n", (long long)(now - newest[i].newest));
    }
}

char *gt_metrics_text(const struct gt_metrics *m, bool store_up,
                      const struct gt_newest_row *newest, size_t nnewest, int64_t now)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fprintf(f, "# HELP gridtail_build_info The running gridtail's version.\n"
               "# TYPE gridtail_build_info gauge\n"
               "gridtail_build_info{version=\"%s\"} 1\n", GT_VERSION);
    fprintf(f, "# HELP gridtail_http_requests_in_flight Requests received and not yet let go.\n"
               "# TYPE gridtail_http_requests_in_flight gauge\n"
               "gridtail_http_requests_in_flight %ld\n",
            atomic_load_explicit(&m->in_flight, memory_order_relaxed));
    requests(f, m);
    latency(f, m);
    fprintf(f, "# HELP gridtail_pair_fits_total Pair windows the advisor requests needed, by "
               "where the fit came from (fitted from samples, or the store's fit cache).\n"
               "# TYPE gridtail_pair_fits_total counter\n"
               "gridtail_pair_fits_total{source=\"samples\"} %lu\n"
               "gridtail_pair_fits_total{source=\"cache\"} %lu\n",
            atomic_load_explicit(&m->fits[0], memory_order_relaxed),
            atomic_load_explicit(&m->fits[1], memory_order_relaxed));
    fprintf(f, "# HELP gridtail_calibrations_total Roots' calibrations the advisor requests "
               "asked, by where they came from (a kept answer, a kept state gone on with the "
               "moments since, a replay of the last W moments).\n"
               "# TYPE gridtail_calibrations_total counter\n"
               "gridtail_calibrations_total{source=\"kept_answer\"} %lu\n"
               "gridtail_calibrations_total{source=\"resumed\"} %lu\n"
               "gridtail_calibrations_total{source=\"replayed\"} %lu\n",
            atomic_load_explicit(&m->calibrations[0], memory_order_relaxed),
            atomic_load_explicit(&m->calibrations[1], memory_order_relaxed),
            atomic_load_explicit(&m->calibrations[2], memory_order_relaxed));
    fprintf(f, "# HELP gridtail_samples_pushed_total Samples received on POST /v1/samples, by "
               "what became of them.\n# TYPE gridtail_samples_pushed_total counter\n");
    for (int i = 0; i < NPUSH; i++)
        fprintf(f, "gridtail_samples_pushed_total{result=\"%s\"} %lu\n", push_results[i],
                atomic_load_explicit(&m->pushed[i], memory_order_relaxed));
    calib_memo(f, m->memo);
    store(f, store_up, newest, nnewest, now);
    if (fclose(f)) {
        free(text);
        return NULL;
    }
    return text;
}

/* One series of every pair: "NAME{src=..,dst=..} value". */
static void pair_series(FILE *f, const char *name, const struct gt_pair_state *s, double v)
{
    fprintf(f, "%s{src=\"", name);
    label_value(f, s->src);
    fputs("\",dst=\"", f);
    label_value(f, s->dst);
    if (isnan(v))
        fputs("\"} NaN\n", f);
    else if (isinf(v))
        fputs("\"} +Inf\n", f);
    else
        fprintf(f, "\"} %.9g\n", v);
}

/* Each limit's own level, so that alert rules tell loss from p99. */
static void checks(FILE *f, const struct gt_pair_state *v, size_t n)
{
    fputs("# HELP gridtail_pair_check Each limit of the pair against [thresholds]: 0 ok, "
          "1 warning, 2 critical (check: loss, p99, median; all 0 while it has no data).\n"
          "# TYPE gridtail_pair_check gauge\n", f);
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < GT_NCHECKS; c++) {
            fputs("gridtail_pair_check{src=\"", f);
            label_value(f, v[i].src);
            fputs("\",dst=\"", f);
            label_value(f, v[i].dst);
            fprintf(f, "\",check=\"%s\"} %d\n", gt_status_check_names[c], (int)v[i].check[c]);
        }
}

/* E[max] and p99 of each configured collective. */
static void collective_labels(FILE *f, const char *name, const struct gt_collective_metric *c)
{
    fprintf(f, "%s{root=\"", name);
    label_value(f, c->root);
    fputs("\",sites=\"", f);
    label_value(f, c->sites);
}

static void print_value(FILE *f, double v)
{
    if (isnan(v))
        fputs(" NaN\n", f);
    else
        fprintf(f, " %.9g\n", v);
}

/* How well each method forecast the collective's time lately: the
 * errors `--model adaptive` picks by. */
static void forecast_errors(FILE *f, const struct gt_collective_metric *c, size_t nc)
{
    static const char *const methods[] = {"pareto", "normal", "last", "empirical"};
    const char *name = "gridtail_collective_forecast_rmse_seconds";
    fprintf(f, "# HELP %s The root-mean-square error of each forecast method's E[max] of the "
            "collective against the times that followed ([advisor] horizon_s ahead, over the "
            "last adaptive_outcomes moments; NaN: none known yet).\n# TYPE %s gauge\n",
            name, name);
    for (size_t i = 0; i < nc; i++)
        for (int k = 0; k < 4; k++) {
            collective_labels(f, name, &c[i]);
            fprintf(f, "\",method=\"%s\"}", methods[k]);
            print_value(f, c[i].outcomes ? c[i].rmse_ms[k] / 1e3 : NAN);
        }
    name = "gridtail_collective_forecast_outcomes";
    fprintf(f, "# HELP %s The moments those errors are over.\n# TYPE %s gauge\n", name, name);
    for (size_t i = 0; i < nc; i++) {
        collective_labels(f, name, &c[i]);
        fputs("\"}", f);
        print_value(f, (double)c[i].outcomes);
    }
}

static void collectives(FILE *f, const struct gt_collective_metric *c, size_t nc)
{
    static const char *const names[] = {"gridtail_collective_emax_seconds",
                                         "gridtail_collective_p99_seconds"};
    static const char *const helps[] = {"E[max] of a collective of [server] collectives, one "
                                        "iteration's time (NaN: not estimable).",
                                        "The p99 of that collective's time."};
    for (int k = 0; k < 2 && nc; k++) {
        fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", names[k], helps[k], names[k]);
        for (size_t i = 0; i < nc; i++) {
            collective_labels(f, names[k], &c[i]);
            fputs("\"}", f);
            print_value(f, (k ? c[i].p99_ms : c[i].emax_ms) / 1e3);
        }
    }
    if (nc)
        forecast_errors(f, c, nc);
}

char *gt_metrics_pairs_text(const struct gt_pair_state *v, size_t n,
                            const struct gt_collective_metric *c, size_t nc)
{
    static const struct {
        const char *name, *help;
    } families[] = {
        {"gridtail_pair_rtt_median_seconds", "Median RTT of the pair's newest samples (NaN: "
                                             "none answered)."},
        {"gridtail_pair_rtt_p99_seconds", "99th percentile RTT of the pair's newest samples."},
        {"gridtail_pair_loss_ratio", "Lost probes of the pair's newest samples, a fraction."},
        {"gridtail_pair_newest_sample_age_seconds", "Age of the pair's newest sample, lost or "
                                                    "not (+Inf: none)."},
        {"gridtail_pair_status", "The pair's status against [thresholds]: 0 ok, 1 warning, "
                                 "2 critical, 3 no data."},
        {"gridtail_pair_level_shift_ratio", "The last level shift in the pair's newest samples "
                                            "(gridtail events): the median after it over the "
                                            "median before, less 1; 0: none."},
        {"gridtail_pair_fit_age_seconds", "Time since a refit last judged the pair's fit "
                                          "(+Inf: never)."},
        {"gridtail_pair_fit_regime", "What that refit's fit makes of the partner: 0 its "
                                     "model, 1 a Pareto with alpha <= 1, 2 its samples "
                                     "(fallback); NaN: not judged."},
    };
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    for (size_t k = 0; k < sizeof families / sizeof *families; k++) {
        fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", families[k].name, families[k].help,
                families[k].name);
        for (size_t i = 0; i < n; i++) {
            const struct gt_pair_state *s = &v[i];
            double x = k == 0   ? s->median_ms / 1e3
                       : k == 1 ? s->p99_ms / 1e3
                       : k == 2 ? s->loss
                       : k == 3 ? s->age_s
                       : k == 4 ? (double)s->status
                       : k == 5 ? s->shift
                       : k == 6 ? s->fit_age_s
                                : (s->regime < 0 ? NAN : (double)s->regime);
            pair_series(f, families[k].name, s, x);
        }
    }
    checks(f, v, n);
    collectives(f, c, nc);
    if (fclose(f)) {
        free(text);
        return NULL;
    }
    return text;
}
