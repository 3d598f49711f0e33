/*
 * cmd_pairs.c - `gridtail pairs`: a summary of each stored pair (samples,
 * loss, first/last, min/median/p99), or its status.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "advisor/advice.h"
#include "advisor/status.h"
#include "base/util.h"
#include "db/query.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char pairs_usage[] =
    "usage: gridtail pairs [--json] [--src NAME] [--dst NAME]\n"
    "                      [--sort KEY] [--reverse] [--limit N]\n"
    "       gridtail pairs --status [--only STATUS] [--at TIME] [--json] [--src NAME]\n"
    "                      [--dst NAME] [--limit N]\n"
    "\n"
    "--status: each pair's status, worst first: critical, no_data, warning,\n"
    "ok, with the reasons, from the median, p99 and loss of its newest\n"
    "samples ([thresholds] samples, else [estimate] window) against the\n"
    "[thresholds] limits (per site group with groups_file); no_data when the\n"
    "pair has been silent for [thresholds] silent_s (docs/ADVISOR.md,\n"
    "'Thresholds and status').  --only shows one status; --at judges the\n"
    "store as it was then.  Exit status 0 whatever the statuses.\n"
    "\n"
    "Per directed pair: samples, loss %, first and last sample time, and\n"
    "min / median / p99 RTT in ms over the probes that were not lost\n"
    "(quantiles interpolate between order statistics).  KEY is name\n"
    "(default), samples, loss, min, median or p99.  The last line sums\n"
    "all matching pairs, also those cut by --limit.\n";

enum pair_key { KEY_NAME, KEY_SAMPLES, KEY_LOSS, KEY_MIN, KEY_MEDIAN, KEY_P99 };
static enum pair_key sort_key;

static double pair_metric(const struct gt_pair_row *r)
{
    switch (sort_key) {
    case KEY_SAMPLES: return (double)r->samples;
    case KEY_LOSS: return (double)r->lost / (double)r->samples;
    case KEY_MIN: return r->min_ms;
    case KEY_MEDIAN: return r->median_ms;
    case KEY_P99: return r->p99_ms;
    default: return 0;
    }
}

static int cmp_pairs(const void *a, const void *b)
{
    const struct gt_pair_row *x = a, *y = b;
    double u = pair_metric(x), v = pair_metric(y);
    /* NAN (all lost) sorts last */
    if (isnan(u) != isnan(v))
        return isnan(u) ? 1 : -1;
    if (u != v && !isnan(u))
        return (u > v) - (u < v);
    int c = strcmp(x->src, y->src);
    return c ? c : strcmp(x->dst, y->dst);
}

static void print_states(const struct gt_pair_state *v, size_t n, int only, size_t limit)
{
    size_t counts[4] = {0}, shown = 0, matching = 0;
    printf("%-16s %-16s %-8s %9s %9s %6s %8s  %s\n", "SRC", "DST", "STATUS", "MEDIAN_MS",
           "P99_MS", "LOSS%", "AGE_S", "REASONS");
    for (size_t i = 0; i < n; i++) {
        const struct gt_pair_state *s = &v[i];
        counts[s->status]++;
        if (only >= 0 && (int)s->status != only)
            continue;
        if (matching++ >= limit)
            continue;
        char med[32], p99[32], loss[32], age[32];
        printf("%-16s %-16s %-8s %9s %9s %6s %8s  ", s->src, s->dst,
               gt_status_name(s->status), gt_cli_num(med, sizeof med, 3, s->median_ms),
               gt_cli_num(p99, sizeof p99, 3, s->p99_ms),
               gt_cli_num(loss, sizeof loss, 2, 100 * s->loss),
               gt_cli_num(age, sizeof age, 0, s->age_s));
        for (size_t k = 0; k < s->nreasons; k++)
            printf("%s%s", k ? "; " : "", s->reasons[k]);
        if (s->group)
            printf("%s[group %s]", s->nreasons ? " " : "", s->group);
        putchar('\n');
        shown++;
    }
    if (shown < matching)
        printf("... %zu more pairs (--limit)\n", matching - shown);
    printf("%zu pairs: %zu ok, %zu warning, %zu critical, %zu no data\n", n, counts[0],
           counts[1], counts[2], counts[3]);
}

/* pairs --status: the states at `at`, printed; an exit code. */
static int pairs_status(struct gt_cli *cli, const struct gt_pair_filter *f, int64_t at,
                        int only, long limit, bool json)
{
    struct gt_thresholds t;
    struct gt_error err = {0};
    int rc = gt_thresholds_load(&t, &cli->cfg, (size_t)cli->cfg.window, &err), code;
    if (rc)
        return gt_cli_fail(&err, rc);
    struct gt_db *db = gt_cli_open_db(cli, GT_DB_READ, &code);
    if (!db) {
        gt_thresholds_free(&t);
        return code;
    }
    struct gt_pair_state *v;
    size_t n;
    rc = gt_pair_states(db, &t, at, f->src, f->dst, &v, &n, &err);
    gt_db_close(db);
    if (rc) {
        gt_thresholds_free(&t);
        return gt_cli_fail(&err, rc);
    }
    gt_pair_states_sort(v, n);
    size_t shown = limit >= 0 ? (size_t)limit : SIZE_MAX;
    if (json)
        gt_cli_print_json(gt_status_json(v, n, &t, at, only, 0, shown));
    else
        print_states(v, n, only, shown);
    gt_pair_states_free(v, n);
    gt_thresholds_free(&t);
    return (f->src || f->dst) && n == 0 ? (fprintf(stderr, "gridtail: no pair matches\n"),
                                           GT_EXIT_INPUT) : GT_EXIT_OK;
}

/* The first shown of n pairs, and a line of totals over all n. */
static void print_pairs_table(const struct gt_pair_row *v, size_t n, size_t shown)
{
    long pairs = (long)n, samples = 0, lost = 0;
    for (size_t i = 0; i < n; i++)
        samples += v[i].samples, lost += v[i].lost;
    printf("%-16s %-16s %8s %6s %-20s %-20s %9s %9s %9s\n", "SRC", "DST", "SAMPLES",
           "LOSS%", "FIRST", "LAST", "MIN_MS", "MEDIAN_MS", "P99_MS");
    for (size_t i = 0; i < shown; i++) {
        const struct gt_pair_row *r = &v[i];
        char first[32], last[32], lo[32], med[32], p99[32];
        gt_format_time(r->first_ts, first, sizeof first);
        gt_format_time(r->last_ts, last, sizeof last);
        printf("%-16s %-16s %8ld %6.2f %-20s %-20s %9s %9s %9s\n", r->src, r->dst, r->samples,
               100.0 * (double)r->lost / (double)r->samples, first, last,
               gt_cli_num(lo, sizeof lo, 3, r->min_ms),
               gt_cli_num(med, sizeof med, 3, r->median_ms),
               gt_cli_num(p99, sizeof p99, 3, r->p99_ms));
    }
    if ((long)shown < pairs)
        printf("... %ld more pairs (--limit)\n", pairs - (long)shown);
    printf("%ld pairs, %ld samples, %ld lost (%.2f%%)\n", pairs, samples, lost,
           samples ? 100.0 * (double)lost / (double)samples : 0.0);
}

int cmd_pairs(struct gt_cli *cli, int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"src", required_argument, NULL, 's'}, {"dst", required_argument, NULL, 'd'},
        {"sort", required_argument, NULL, 'k'}, {"reverse", no_argument, NULL, 'r'},
        {"limit", required_argument, NULL, 'n'}, {"status", no_argument, NULL, 'S'},
        {"only", required_argument, NULL, 'o'}, {"at", required_argument, NULL, 'a'},
        {NULL, 0, NULL, 0}};
    static const char *const keys[] = {"name", "samples", "loss", "min", "median", "p99", NULL};
    struct gt_pair_filter f = {0};
    bool json = false, reverse = false, status = false, sorted = false, at_set = false;
    long limit = -1;
    int64_t at = (int64_t)time(NULL);
    enum gt_pair_status only = GT_STATUS_OK;
    bool only_set = false;
    int c, code;
    sort_key = KEY_NAME;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': return gt_cli_help(pairs_usage);
        case 'j': json = true; break;
        case 's': f.src = optarg; break;
        case 'd': f.dst = optarg; break;
        case 'r': reverse = true; break;
        case 'S': status = true; break;
        case 'o':
            if (!gt_status_parse(optarg, &only))
                return gt_cli_usage_error("pairs", "--only: '%s' is not ok, warning, critical "
                                          "or no_data", optarg);
            only_set = true;
            break;
        case 'a':
            if (!gt_opt_time("pairs", "--at", optarg, &at))
                return GT_EXIT_USAGE;
            at_set = true;
            break;
        case 'n':
            if (!gt_opt_long("pairs", "--limit", optarg, 0, 1000000000, &limit))
                return GT_EXIT_USAGE;
            break;
        case 'k': {
            int k = gt_opt_choice("pairs", "--sort", optarg, keys);
            if (k < 0)
                return GT_EXIT_USAGE;
            sort_key = (enum pair_key)k;
            sorted = true;
            break;
        }
        default: return gt_cli_usage_error("pairs", "bad option");
        }
    }
    if (optind < argc)
        return gt_cli_usage_error("pairs", "unexpected argument '%s'", argv[optind]);
    if (!status && (only_set || at_set))
        return gt_cli_usage_error("pairs", "--only and --at go with --status");
    if (status && (sorted || reverse))
        return gt_cli_usage_error("pairs", "--status orders worst first: no --sort, --reverse");
    if (status)
        return pairs_status(cli, &f, at, only_set ? (int)only : -1, limit, json);
    struct gt_db *db = gt_cli_open_db(cli, GT_DB_READ, &code);
    if (!db)
        return code;
    struct gt_pair_row *v;
    size_t n;
    struct gt_error err = {0};
    int rc = gt_query_pairs(db, &f, &v, &n, &err);
    gt_db_close(db);
    if (rc)
        return gt_cli_fail(&err, rc);
    if (sort_key != KEY_NAME)
        qsort(v, n, sizeof *v, cmp_pairs);
    if (reverse)
        for (size_t i = 0; i < n / 2; i++) {
            struct gt_pair_row t = v[i];
            v[i] = v[n - 1 - i];
            v[n - 1 - i] = t;
        }
    size_t shown = limit >= 0 && (size_t)limit < n ? (size_t)limit : n;
    if (json)
        gt_cli_print_json(gt_advice_pairs_json(v, n, shown));
    else
        print_pairs_table(v, n, shown);
    gt_pairs_free(v, n);
    return (f.src || f.dst) && n == 0 ? (fprintf(stderr, "gridtail: no pair matches\n"),
                                          GT_EXIT_INPUT) : GT_EXIT_OK;
}
