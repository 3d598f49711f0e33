/*
 * changes_driver.c - scores the change detector (estimators/changepoint)
 * on RTT traces with known change moments, the rtt-changes set's format:
 * a header line, then "YYYY-mm-dd HH:MM:SS;RTT;CP" with a decimal comma
 * in RTT and CP = 1 on the first sample after a change.  Each argument is
 * a trace file; options before them: -w W (match window in samples,
 * default 5), -k K, -H H, -c CLIP, -s MIN_SCALE (the detector's).
 * Detections and true changes are matched one to one, nearest first,
 * within W samples.  Prints per file and in all: true changes, detections,
 * matched, precision, recall, F1 and the mean |distance| of the matched.
 * Built and run by scripts/eval/changes.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include "estimators/changepoint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SAMPLES 1000000

struct score {
    long truth, found, matched;
    double dist;
};

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* One-to-one matching, nearest pairs first: every (true, detected) pair
 * within w, by distance, taken while both are free. */
static void match(const long *t, long nt, const long *d, long nd, long w, struct score *s)
{
    long cap = 0, n = 0;
    long (*pairs)[3] = NULL;
    for (long i = 0, j0 = 0; i < nt; i++) {
        while (j0 < nd && d[j0] < t[i] - w)
            j0++;
        for (long j = j0; j < nd && d[j] <= t[i] + w; j++) {
            if (n == cap) {
                cap = cap ? 2 * cap : 256;
                pairs = realloc(pairs, (size_t)cap * sizeof *pairs);
                if (!pairs)
                    exit(3);
            }
            pairs[n][0] = labs(d[j] - t[i]), pairs[n][1] = i, pairs[n][2] = j;
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
    }
    s->truth += nt;
    s->found += nd;
    free(pairs), free(ut), free(ud);
}

static void print(const char *name, const struct score *s)
{
    double p = s->found ? (double)s->matched / (double)s->found : NAN;
    double r = s->truth ? (double)s->matched / (double)s->truth : NAN;
    printf("%-12s %6ld %6ld %6ld  %6.3f %6.3f %6.3f  %5.2f\n", name, s->truth, s->found, s->matched,
           p, r, 2 * p * r / (p + r), s->matched ? s->dist / (double)s->matched : NAN);
}

static int score_file(const char *path, const struct gt_cpd_opts *o, long w, struct score *s)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 3;
    }
    char line[256];
    long *t = malloc(MAX_SAMPLES * sizeof *t), *d = malloc(MAX_SAMPLES * sizeof *d);
    long nt = 0, nd = 0, i = 0, lineno = 1;
    struct gt_cpd *cpd = gt_cpd_new(o);
    if (!t || !d || !cpd)
        exit(3);
    if (!fgets(line, sizeof line, f)) {
        fprintf(stderr, "%s: empty\n", path);
        return 2;
    }
    while (fgets(line, sizeof line, f) && i < MAX_SAMPLES) {
        lineno++;
        char *rtt = strchr(line, ';'), *cp = rtt ? strchr(rtt + 1, ';') : NULL;
        if (!cp) {
            fprintf(stderr, "%s:%ld: expected 3 fields\n", path, lineno);
            return 2;
        }
        for (char *c = rtt + 1; c < cp; c++)
            if (*c == ',')
                *c = '.';
        double x = cp > rtt + 1 ? strtod(rtt + 1, NULL) : NAN;
        if (atoi(cp + 1) == 1)
            t[nt++] = i;
        int64_t at;
        if (gt_cpd_push(cpd, x, &at))
            d[nd++] = (long)at;
        i++;
    }
    fclose(f);
    /* a detection's place can precede an earlier one's: keep them sorted */
    qsort(d, (size_t)nd, sizeof *d, cmp_long);
    struct score one = {0};
    match(t, nt, d, nd, w, &one);
    const char *base = strrchr(path, '/');
    print(base ? base + 1 : path, &one);
    s->truth += one.truth, s->found += one.found, s->matched += one.matched, s->dist += one.dist;
    gt_cpd_free(cpd);
    free(t), free(d);
    return 0;
}

int main(int argc, char **argv)
{
    struct gt_cpd_opts o = gt_cpd_defaults;
    long w = 5;
    int c;
    while ((c = getopt(argc, argv, "w:k:H:c:s:")) != -1) {
        switch (c) {
        case 'w': w = atol(optarg); break;
        case 'k': o.k = atof(optarg); break;
        case 'H': o.h = atof(optarg); break;
        case 'c': o.clip = atof(optarg); break;
        case 's': o.min_scale = atof(optarg); break;
        default:
            fprintf(stderr, "usage: changes_driver [-w W] [-k K] [-H H] [-c CLIP] [-s SCALE] TRACE...\n");
            return 1;
        }
    }
    printf("%-12s %6s %6s %6s  %6s %6s %6s  %5s\n", "trace", "true", "found", "match",
           "prec", "recall", "F1", "dist");
    struct score all = {0};
    for (int a = optind; a < argc; a++)
        if (score_file(argv[a], &o, w, &all))
            return 2;
    print("all", &all);
    return 0;
}
