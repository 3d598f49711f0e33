/*
 * window.c - times the window read, "the last M samples of a pair at or
 * before t" (gt_series_read, as serve and refit read a pair: the window,
 * the prior value when it starts lost, and the pair's newest time), on a
 * store of either backend.  READS reads of random pairs at random times
 * in [T0, T1] (a fixed seed: the same reads on every store), after 200
 * untimed ones, in one read snapshot; prints one line:
 *
 *   M READS p50_us p99_us max_us mean_rows
 *
 * usage: window ADDR M READS T0 T1   (built and run by scripts/bench/store.sh)
 */
#define _POSIX_C_SOURCE 200809L
#include "db/db.h"
#include "db/query.h"
#include "base/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct pairs {
    int64_t (*id)[2];
    size_t n, cap;
};

static int add_pair(void *ctx, int64_t src, const char *src_name, int64_t dst,
                    const char *dst_name)
{
    (void)src_name, (void)dst_name;
    struct pairs *p = ctx;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        int64_t(*v)[2] = realloc(p->id, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        p->id = v, p->cap = cap;
    }
    p->id[p->n][0] = src, p->id[p->n][1] = dst;
    p->n++;
    return GT_OK;
}

/* xorshift64*: the same sequence of reads on every store */
static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: window ADDR M READS T0 T1\n");
        return 1;
    }
    size_t m = strtoul(argv[2], NULL, 10), reads = strtoul(argv[3], NULL, 10);
    int64_t t0 = strtoll(argv[4], NULL, 10), t1 = strtoll(argv[5], NULL, 10);
    struct gt_error err = {0};
    struct gt_db *db;
    struct gt_series_reader *r = NULL;
    struct pairs p = {0};
    int64_t *ts = malloc(m * sizeof *ts);
    double *rtt = malloc(m * sizeof *rtt), *us = malloc(reads * sizeof *us);
    if (!ts || !rtt || !us || m == 0 || reads == 0 || t1 < t0)
        return 1;
    int rc = gt_db_open(argv[1], GT_DB_EXISTING, 5000, &db, &err);
    if (rc == GT_OK && (rc = gt_query_pair_ids(db, add_pair, &p, &err)) == GT_OK &&
        (rc = gt_db_begin_read(db, &err)) == GT_OK)
        rc = gt_series_reader_new(db, &r, &err);
    if (rc == GT_OK && p.n == 0)
        rc = gt_error_set(&err, GT_ENOTFOUND, argv[1], "no pairs");
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    double rows = 0;
    for (size_t i = 0; rc == GT_OK && i < 200 + reads; i++) {
        const int64_t *pair = p.id[next(&seed) % p.n];
        int64_t at = t0 + (int64_t)(next(&seed) % (uint64_t)(t1 - t0 + 1)), newest;
        struct gt_prior prior;
        size_t n;
        int64_t start = gt_monotonic_ns();
        rc = gt_series_read(r, pair[0], pair[1], at, m, ts, rtt, m, &n, &newest, &prior, &err);
        if (i >= 200) {
            us[i - 200] = gt_elapsed_ms(start) * 1000;
            rows += (double)n;
        }
    }
    if (rc) {
        fprintf(stderr, "window: %s\n", err.msg);
        return 3;
    }
    qsort(us, reads, sizeof *us, cmp);
    printf("%zu %zu %.0f %.0f %.0f %.0f\n", m, reads, us[reads / 2],
           us[(size_t)((double)reads * 0.99)], us[reads - 1], rows / (double)reads);
    gt_series_reader_free(r);
    gt_db_rollback(db);
    gt_db_close(db);
    free(p.id);
    free(ts), free(rtt), free(us);
    return 0;
}
