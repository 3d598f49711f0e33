/*
 * changes_driver.c - scores the change detectors on RTT traces with known
 * change moments, the format of the rtt-changes and rtt-real-dev sets: a
 * header line, then "EPOCH;RTT;CP" (the epoch is not read; RTT with a
 * decimal point or comma, negative or empty = no answer) with CP = 1 on
 * the first sample after a change.  Each argument is a trace file;
 * options before them: -w W (match window in samples, default 5); the
 * online detector (estimators/changepoint.h) with its defaults, or -a its
 * alert settings (gt_cpd_alerts, behind `gridtail events`), -W WINDOW, -z
 * Z, -m MIN_REL; -s the offline segmentation (estimators/segment.h)
 * instead, -K PENALTY and -L MIN_LEN its options; -p PENALTY the old
 * offline reference (tests/ref/pelt.h) instead; -g N (N synthetic traces
 * with known shifts and spikes instead of files).
 * Detections and true changes are matched one to one, nearest first,
 * within W samples.  Prints per file and in all: true changes, detections,
 * matched, precision, recall, F1, the mean |distance| of the matched and
 * their mean delay (samples from the true change to the sample that
 * raised the detection; the offline methods raise all at the end).
 * Built and run by scripts/eval/changes.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include "estimators/changepoint.h"
#include "estimators/segment.h"
#include "tests/ref/pelt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SAMPLES 1000000

static int offline;                 /* -s: the segmentation */
static struct gt_seg_opts seg_opts;

struct score {
    long truth, found, matched;
    double dist, delay;     /* sums over the matched */
};

/* A detection: where the change is placed, and the sample that raised it. */
struct found {
    long at, when;
};

static int cmp_found(const void *a, const void *b)
{
    const struct found *x = a, *y = b;
    return (x->at > y->at) - (x->at < y->at);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* One-to-one matching, nearest pairs first: every (true, detected) pair
 * within w, by distance, taken while both are free. */
static void match(const long *t, long nt, const struct found *d, long nd, long w,
                  struct score *s)
{
    long cap = 0, n = 0;
    long (*pairs)[3] = NULL;
    for (long i = 0, j0 = 0; i < nt; i++) {
        while (j0 < nd && d[j0].at < t[i] - w)
            j0++;
        for (long j = j0; j < nd && d[j].at <= t[i] + w; j++) {
            if (n == cap) {
                cap = cap ? 2 * cap : 256;
                pairs = realloc(pairs, (size_t)cap * sizeof *pairs);
                if (!pairs)
                    exit(3);
            }
            pairs[n][0] = labs(d[j].at - t[i]), pairs[n][1] = i, pairs[n][2] = j;
            n++;
        }
    }
    qsort(pairs, (size_t)n, sizeof *pairs, cmp_long);
    char *ut = calloc((size_t)nt + 1, 1), *ud = calloc((size_t)nd + 1, 1);
    if (!ut || !ud)
        exit(3);
    for (long p = 0; p < n; p++) {
        if (ut[pairs[p][1]] || ud[pairs[p][2]])
            continue;
        ut[pairs[p][1]] = ud[pairs[p][2]] = 1;
        s->matched++;
        s->dist += (double)pairs[p][0];
        s->delay += (double)(d[pairs[p][2]].when - t[pairs[p][1]]);
    }
    s->truth += nt;
    s->found += nd;
    free(pairs), free(ut), free(ud);
}

static void print(const char *name, const struct score *s)
{
    double p = s->found ? (double)s->matched / (double)s->found : NAN;
    double r = s->truth ? (double)s->matched / (double)s->truth : NAN;
    printf("%-12s %6ld %6ld %6ld  %6.3f %6.3f %6.3f  %5.2f %5.2f\n", name, s->truth, s->found,
           s->matched, p, r, 2 * p * r / (p + r), s->matched ? s->dist / (double)s->matched : NAN,
           s->matched ? s->delay / (double)s->matched : NAN);
}

/* The detector's changes of x[0..n) into d, sorted by place; their
 * number.  The offline reference raises each at the end of the series. */
static long detect(const double *x, long n, const struct gt_cpd_opts *o, double pelt,
                   struct found *d, long *scratch)
{
    long nd = 0;
    if (offline) {
        size_t ns, *at = malloc(((size_t)n + 1) * sizeof *at);
        if (!at || gt_segment(x, (size_t)n, &seg_opts, at, &ns))
            exit(3);
        for (size_t j = 0; j < ns; j++)
            d[j] = (struct found){(long)at[j], n - 1};
        free(at);
        return (long)ns;
    }
    if (pelt > 0) {
        nd = gt_pelt(x, (size_t)n, pelt, scratch);
        for (long j = 0; j < nd; j++)
            d[j] = (struct found){scratch[j], n - 1};
        return nd;
    }
    struct gt_cpd *cpd = gt_cpd_new(o);
    if (!cpd)
        exit(1);
    for (long i = 0; i < n; i++) {
        int64_t at;
        if (gt_cpd_push(cpd, x[i], &at))
            d[nd++] = (struct found){(long)at, i};
    }
    gt_cpd_free(cpd);
    /* a detection's place can precede an earlier one's: keep them sorted */
    qsort(d, (size_t)nd, sizeof *d, cmp_found);
    return nd;
}

/* A trace file into x and its true changes into t; the count of samples. */
static long read_trace(const char *path, double *x, long *t, long *nt)
{
    FILE *f = fopen(path, "r");
    char line[256];
    long i = 0, lineno = 1;
    if (!f) {
        perror(path);
        exit(3);
    }
    if (!fgets(line, sizeof line, f)) {
        fprintf(stderr, "%s: empty\n", path);
        exit(2);
    }
    *nt = 0;
    while (fgets(line, sizeof line, f) && i < MAX_SAMPLES) {
        lineno++;
        char *rtt = strchr(line, ';'), *cp = rtt ? strchr(rtt + 1, ';') : NULL;
        if (!cp) {
            fprintf(stderr, "%s:%ld: expected 3 fields\n", path, lineno);
            exit(2);
        }
        for (char *c = rtt + 1; c < cp; c++)
            if (*c == ',')
                *c = '.';
        x[i] = cp > rtt + 1 ? strtod(rtt + 1, NULL) : NAN;   /* < 0: no answer */
        if (atoi(cp + 1) == 1)
            t[(*nt)++] = i;
        i++;
    }
    fclose(f);
    return i;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double unif(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

/* A synthetic trace of n samples with known changes (-g): a level of 20
 * to 200 ms; Lomax jitter (alpha 3) of 0.3 to 2 % of it; level shifts
 * one every 400 samples on average, of 1 to 30 % (log-uniform, up or
 * down), lasting 8 to 1,000 samples (log-uniform), each a change at its
 * start and at its end; spikes of 1 to 3 samples (0.5 % of samples
 * start one) of 1.5 to 10 times the level; 0.5 % lost. */
static long gen_trace(double *x, long n, long *t, long *nt)
{
    double base = 20 * pow(10, unif()), jit = 0.003 * pow(2 / 0.3, unif());
    long end = -1, spike = 0;
    double shift = 0, size = 0;
    *nt = 0;
    for (long i = 0; i < n; i++) {
        if (i == end) {
            shift = 0;
            t[(*nt)++] = i;
        }
        if (i > end && unif() < 1.0 / 400 && i + 8 < n) {
            size = 0.01 * pow(30, unif()) * (unif() < 0.5 ? -1 : 1);
            shift = size;
            end = i + (long)(8 * pow(125, unif()));
            t[(*nt)++] = i;
        }
        double v = base * (1 + shift) * (1 + jit * (pow(unif(), -1.0 / 3) - 1));
        if (spike == 0 && unif() < 0.005)
            spike = 1 + (long)(3 * unif());
        if (spike > 0) {
            v *= 1.5 + 8.5 * unif();
            spike--;
        }
        x[i] = unif() < 0.005 ? NAN : v;
    }
    if (*nt && t[*nt - 1] >= n)
        (*nt)--;
    return n;
}

static void score_trace(const char *name, const double *x, long n, const long *t, long nt,
                        const struct gt_cpd_opts *o, double pelt, long w, struct score *s,
                        struct found *d, long *scratch)
{
    long nd = detect(x, n, o, pelt, d, scratch);
    struct score one = {0};
    match(t, nt, d, nd, w, &one);
    print(name, &one);
    s->truth += one.truth, s->found += one.found, s->matched += one.matched, s->dist += one.dist;
    s->delay += one.delay;
}

int main(int argc, char **argv)
{
    struct gt_cpd_opts o = gt_cpd_defaults;
    long w = 5, gen = 0;
    double pelt = 0;
    int c;
    seg_opts = gt_seg_defaults;
    while ((c = getopt(argc, argv, "w:aW:z:m:sK:L:p:g:")) != -1) {
        switch (c) {
        case 'a': o = gt_cpd_alerts; break;
        case 's': offline = 1; break;
        case 'K': seg_opts.penalty = atof(optarg); break;
        case 'L': seg_opts.min_len = atoi(optarg); break;
        case 'w': w = atol(optarg); break;
        case 'W': o.window = atoi(optarg); break;
        case 'z': o.z = atof(optarg); break;
        case 'm': o.min_rel = atof(optarg); break;
        case 'p': pelt = atof(optarg); break;
        case 'g': gen = atol(optarg); break;
        default:
            fprintf(stderr, "usage: changes_driver [-w W] [-a] [-W WINDOW] [-z Z] [-m MIN_REL] "
                    "[-s [-K PENALTY] [-L MIN_LEN] | -p PENALTY] [-g N | TRACE...]\n");
            return 1;
        }
    }
    double *x = malloc(MAX_SAMPLES * sizeof *x);
    long *t = malloc(MAX_SAMPLES * sizeof *t), *sc = malloc(MAX_SAMPLES * sizeof *sc);
    struct found *d = malloc(MAX_SAMPLES * sizeof *d);
    if (!x || !t || !d || !sc)
        return 3;
    printf("%-12s %6s %6s %6s  %6s %6s %6s  %5s %5s\n", "trace", "true", "found", "match",
           "prec", "recall", "F1", "dist", "delay");
    struct score all = {0};
    for (long g = 0; g < gen; g++) {
        long nt, n = gen_trace(x, 6000, t, &nt);
        char name[32];
        snprintf(name, sizeof name, "synthetic-%ld", g + 1);
        score_trace(name, x, n, t, nt, &o, pelt, w, &all, d, sc);
    }
    for (int a = optind; a < argc; a++) {
        long nt, n = read_trace(argv[a], x, t, &nt);
        const char *base = strrchr(argv[a], '/');
        score_trace(base ? base + 1 : argv[a], x, n, t, nt, &o, pelt, w, &all, d, sc);
    }
    print("all", &all);
    free(x), free(t), free(d), free(sc);
    return 0;
}
