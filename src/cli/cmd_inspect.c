/*
 * cmd_inspect.c - `gridtail sites`, `gridtail pairs`, `gridtail export`.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "advisor/advice.h"
#include "advisor/events.h"
#include "advisor/status.h"
#include "base/jsonout.h"
#include "base/numfmt.h"
#include "base/util.h"
#include "db/query.h"
#include "collectors/csvread.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ sites */

static const char sites_usage[] =
    "usage: gridtail sites [--json] [--import FILE]\n"
    "\n"
    "List the sites with their attributes and how many pairs start (out)\n"
    "and end (in) at each.  --import FILE sets attributes from a CSV file\n"
    "with the header name,cluster,domain,latitude,longitude (any subset\n"
    "after name; empty fields leave a value as it is), in one transaction.\n";

static int import_row(struct gt_db *db, const struct csv_record *rec, const int *col,
                      const char *file, struct gt_error *err)
{
    char where[GT_ERR_WHERE];
    snprintf(where, sizeof where, "%s:%ld", file, rec->line);
    char *val[5] = {NULL};
    double num[2];
    bool has_num[2] = {false, false};
    int rc = GT_OK;
    for (int k = 0; k < 5 && rc == GT_OK; k++) {
        if (col[k] < 0 || rec->f[col[k]].len == 0)
            continue;
        const struct csv_field *f = &rec->f[col[k]];
        if (k >= 3) {
            double lim = k == 3 ? 90 : 180;
            if (!gt_parse_double(f->p, f->len, &num[k - 3]) || !(fabs(num[k - 3]) <= lim))
                rc = gt_error_set(err, GT_EINPUT, where, "%s: not a number in [-%g, %g]",
                                  k == 3 ? "latitude" : "longitude", lim, lim);
            has_num[k - 3] = true;
        } else if (!gt_utf8_valid(f->p, f->len) || f->len > 255 || gt_has_control(f->p, f->len)) {
            rc = gt_error_set(err, GT_EINPUT, where,
                              "field %d: not UTF-8 up to 255 bytes without control characters",
                              k + 1);
        } else if (!(val[k] = strndup(f->p, f->len))) {
            rc = gt_error_set(err, GT_ENOMEM, where, "out of memory");
        }
    }
    if (rc == GT_OK && !val[0])
        rc = gt_error_set(err, GT_EINPUT, where, "name: empty site name");
    if (rc == GT_OK)
        rc = gt_site_set_attrs(db, val[0], val[1], val[2], has_num[0] ? &num[0] : NULL,
                               has_num[1] ? &num[1] : NULL, err);
    for (int k = 0; k < 3; k++)
        free(val[k]);
    return rc;
}

static int import_sites(struct gt_db *db, const char *file, long *count, struct gt_error *err)
{
    static const char *names[5] = {"name", "cluster", "domain", "latitude", "longitude"};
    FILE *f = fopen(file, "rb");
    if (!f)
        return gt_error_set(err, GT_EIO, file, "cannot open: %s", strerror(errno));
    struct csv_reader *r = csv_open(f, ',');
    struct csv_record rec;
    int col[5] = {-1, -1, -1, -1, -1}, rc = r ? csv_next(r, &rec) : GT_ENOMEM;
    if (rc == 1) {
        rc = GT_OK;
        for (int i = 0; i < rec.n; i++)
            for (int k = 0; k < 5; k++)
                if (gt_span_ieq(rec.f[i].p, rec.f[i].len, names[k]))
                    col[k] = i;
        if (col[0] < 0)
            rc = gt_error_set(err, GT_EINPUT, file, "header has no 'name' column");
    } else if (rc == 0) {
        rc = gt_error_set(err, GT_EINPUT, file, "empty file");
    }
    int ncols = rec.n;
    if (rc == GT_OK)
        rc = gt_db_begin(db, err);
    while (rc == GT_OK && (rc = csv_next(r, &rec)) == 1) {
        rc = GT_OK;
        if (rec.problem || rec.total != ncols) {
            char where[GT_ERR_WHERE];
            snprintf(where, sizeof where, "%s:%ld", file, rec.line);
            rc = gt_error_set(err, GT_EINPUT, where, "%s", rec.problem ? rec.problem :
                              "wrong number of fields");
        } else if ((rc = import_row(db, &rec, col, file, err)) == GT_OK) {
            (*count)++;
        }
    }
    if (rc == 0)
        rc = gt_db_commit(db, err);
    if (rc < 0 && err->code == GT_OK)
        gt_error_set(err, rc, file, "%s", gt_strerror(rc));
    if (rc)
        gt_db_rollback(db);
    csv_close(r);
    fclose(f);
    return rc;
}

static void print_sites(const struct gt_site_row *v, size_t n, bool json)
{
    if (json) {
        gt_cli_print_json(gt_advice_sites_json(v, n));
        return;
    }
    printf("%-24s %-12s %-20s %9s %9s %5s %5s\n", "SITE", "CLUSTER", "DOMAIN", "LAT", "LON",
           "OUT", "IN");
    for (size_t i = 0; i < n; i++) {
        printf("%-24s %-12s %-20s ", v[i].name, v[i].cluster ? v[i].cluster : "-",
               v[i].domain ? v[i].domain : "-");
        if (v[i].has_coords)
            printf("%9.4f %9.4f", v[i].latitude, v[i].longitude);
        else
            printf("%9s %9s", "-", "-");
        printf(" %5ld %5ld\n", v[i].pairs_out, v[i].pairs_in);
    }
    printf("%zu sites\n", n);
}

int cmd_sites(struct gt_cli *cli, int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"import", required_argument, NULL, 'i'}, {NULL, 0, NULL, 0}};
    bool json = false;
    const char *import = NULL;
    int c, code;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            return gt_cli_help(sites_usage);
        } else if (c == 'j') {
            json = true;
        } else if (c == 'i') {
            import = optarg;
        } else {
            return gt_cli_usage_error("sites", "bad option");
        }
    }
    if (optind < argc)
        return gt_cli_usage_error("sites", "unexpected argument '%s'", argv[optind]);
    struct gt_db *db = gt_cli_open_db(cli, import ? GT_DB_EXISTING : GT_DB_READ, &code);
    if (!db)
        return code;
    struct gt_error err = {0};
    int rc = GT_OK;
    if (import) {
        long count = 0;
        rc = import_sites(db, import, &count, &err);
        if (rc == GT_OK)
            fprintf(stderr, "gridtail: %s: attributes set for %ld sites\n", import, count);
    }
    struct gt_site_row *v = NULL;
    size_t n = 0;
    if (rc == GT_OK && (rc = gt_query_sites(db, &v, &n, &err)) == GT_OK)
        print_sites(v, n, json);
    gt_sites_free(v, n);
    gt_db_close(db);
    return rc ? gt_cli_fail(&err, rc) : GT_EXIT_OK;
}

/* ------------------------------------------------------------ pairs */

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

/* ------------------------------------------------------------ events */

static const char events_usage[] =
    "usage: gridtail events [--src NAME] [--dst NAME] [--from TIME] [--to TIME]\n"
    "                       [--kind KIND] [--limit N] [--json]\n"
    "\n"
    "What happened on each pair in [--from, --to) (default: the last day), one\n"
    "line an event, by time: level shifts of the median (the online detector\n"
    "of `backtest --method regime`, with the step's size, at least [thresholds]\n"
    "shift_min), loss bursts (burst_min lost probes in a row), outages (every\n"
    "probe lost for outage_s) and their end, pairs that stopped storing\n"
    "samples for silent_s and started again, and fits that changed regime at\n"
    "a refit (fit, heavy: Pareto alpha <= 1, fallback: the samples).\n"
    "\n"
    "Events are stored as ingest and refit find them, and pruned with the\n"
    "samples; samples stored since (a push to the server) are judged as\n"
    "asked, from an hour before, at --to.  KIND: shift, loss_burst, outage,\n"
    "outage_end, silent, reporting, fit_regime.  At most 20,000,000 samples\n"
    "are read for one call.\n";

int cmd_events(struct gt_cli *cli, int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"src", required_argument, NULL, 's'}, {"dst", required_argument, NULL, 'd'},
        {"from", required_argument, NULL, 'f'}, {"to", required_argument, NULL, 't'},
        {"kind", required_argument, NULL, 'k'}, {"limit", required_argument, NULL, 'n'},
        {NULL, 0, NULL, 0}};
    const char *src = NULL, *dst = NULL;
    int64_t to = (int64_t)time(NULL), from = INT64_MIN;
    enum gt_event_kind kind = GT_EV_SHIFT;
    bool json = false, kind_set = false;
    long limit = -1;
    int c, code;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': return gt_cli_help(events_usage);
        case 'j': json = true; break;
        case 's': src = optarg; break;
        case 'd': dst = optarg; break;
        case 'f':
            if (!gt_opt_time("events", "--from", optarg, &from))
                return GT_EXIT_USAGE;
            break;
        case 't':
            if (!gt_opt_time("events", "--to", optarg, &to))
                return GT_EXIT_USAGE;
            break;
        case 'k':
            if (!gt_event_parse(optarg, &kind))
                return gt_cli_usage_error("events", "--kind: '%s' is not shift, loss_burst, "
                                          "outage, outage_end, silent, reporting or "
                                          "fit_regime", optarg);
            kind_set = true;
            break;
        case 'n':
            if (!gt_opt_long("events", "--limit", optarg, 0, 1000000000, &limit))
                return GT_EXIT_USAGE;
            break;
        default: return gt_cli_usage_error("events", "bad option");
        }
    }
    if (optind < argc)
        return gt_cli_usage_error("events", "unexpected argument '%s'", argv[optind]);
    if (from == INT64_MIN)
        from = to - 86400;
    if (from >= to)
        return gt_cli_usage_error("events", "--from must be before --to");
    struct gt_db *db = gt_cli_open_db(cli, GT_DB_READ, &code);
    if (!db)
        return code;
    struct gt_event_opts eo = gt_event_opts_of(&cli->cfg);
    struct gt_pair_event *v;
    size_t n;
    struct gt_error err = {0};
    int rc = gt_events_query(db, src, dst, from, to, kind_set ? (int)kind : -1, &eo, &v, &n,
                             &err);
    gt_db_close(db);
    if (rc)
        return gt_cli_fail(&err, rc);
    size_t shown = limit >= 0 && (size_t)limit < n ? (size_t)limit : n;
    if (json) {
        gt_cli_print_json(gt_events_json(v, n, from, to, shown));
    } else {
        printf("%-20s %-16s %-16s %-10s %s\n", "TIME", "SRC", "DST", "EVENT", "DETAIL");
        for (size_t i = 0; i < shown; i++) {
            char ts[32], detail[160];
            gt_format_time(v[i].ev.ts, ts, sizeof ts);
            gt_event_detail(&v[i].ev, detail, sizeof detail);
            printf("%-20s %-16s %-16s %-10s %s\n", ts, v[i].src, v[i].dst,
                   gt_event_name(v[i].ev.kind), detail);
        }
        if (shown < n)
            printf("... %zu more events (--limit)\n", n - shown);
        printf("%zu events\n", n);
    }
    gt_pair_events_free(v, n);
    return GT_EXIT_OK;
}

/* ------------------------------------------------------------ export */

static const char export_usage[] =
    "usage: gridtail export [--json] [--src NAME] [--dst NAME] [--from TIME]\n"
    "                       [--to TIME] [--iso] [-o FILE]\n"
    "\n"
    "Write stored samples, grouped by pair in time order, as CSV with the header\n"
    "ts,src,dst,seq,rtt_ms (a lost probe has an empty rtt_ms), which the\n"
    "'csv' ingest format reads back; or with --json a list of objects.\n"
    "--from is inclusive, --to exclusive.  --iso writes ISO-8601 times.\n"
    "-o FILE writes atomically (temporary file, then rename).\n";

struct export_ctx {
    FILE *out;
    bool json, iso, first;
};

static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static int export_row(void *ctx, int64_t ts, const char *src, const char *dst, int64_t seq,
                      double rtt)
{
    struct export_ctx *x = ctx;
    char t[32];
    if (x->iso)
        gt_format_time(ts, t, sizeof t);
    else
        snprintf(t, sizeof t, "%lld", (long long)ts);
    if (x->json) {
        json_t *o = json_pack("{s:s, s:s, s:I}", "src", src, "dst", dst, "seq", (json_int_t)seq);
        json_object_set_new(o, "ts", x->iso ? json_string(t) : json_integer(ts));
        json_object_set_new(o, "rtt_ms", gt_json_real_or_null(rtt));
        fputs(x->first ? "[\n  " : ",\n  ", x->out);
        gt_json_dumpf(o, x->out, JSON_COMPACT);
        json_decref(o);
    } else {
        fprintf(x->out, "%s,", t);
        csv_field(x->out, src);
        fputc(',', x->out);
        csv_field(x->out, dst);
        char num[GT_FMT_DOUBLE_SIZE] = "";
        if (!isnan(rtt))
            gt_fmt_double(num, rtt);
        fprintf(x->out, ",%lld,%s\n", (long long)seq, num);
    }
    x->first = false;
    return ferror(x->out) ? GT_EIO : GT_OK;
}

struct export_args {
    struct gt_export_filter f;
    struct export_ctx x;
    const char *output;
};

static int export_parse(int argc, char **argv, struct export_args *a)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"src", required_argument, NULL, 's'}, {"dst", required_argument, NULL, 'd'},
        {"from", required_argument, NULL, 'f'}, {"to", required_argument, NULL, 't'},
        {"iso", no_argument, NULL, 'i'}, {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'h': return gt_cli_help(export_usage);
        case 'j': a->x.json = true; break;
        case 'i': a->x.iso = true; break;
        case 's': a->f.src = optarg; break;
        case 'd': a->f.dst = optarg; break;
        case 'o': a->output = optarg; break;
        case 'f':
            if (!gt_opt_time("export", "--from", optarg, &a->f.from))
                return GT_EXIT_USAGE;
            a->f.from_set = true;
            break;
        case 't':
            if (!gt_opt_time("export", "--to", optarg, &a->f.to))
                return GT_EXIT_USAGE;
            a->f.to_set = true;
            break;
        default: return gt_cli_usage_error("export", "bad option");
        }
    }
    if (optind < argc)
        return gt_cli_usage_error("export", "unexpected argument '%s'", argv[optind]);
    return -1;
}

int cmd_export(struct gt_cli *cli, int argc, char **argv)
{
    struct export_args a = {0};
    a.x.first = true;
    int code = export_parse(argc, argv, &a);
    if (code >= 0)
        return code;
    char *tmp = NULL;
    struct gt_error err = {0};
    a.x.out = stdout;
    if (a.output && !(a.x.out = gt_cli_atomic_open(a.output, &tmp, &err)))
        return gt_cli_fail(&err, err.code);
    struct gt_db *db = gt_cli_open_db(cli, GT_DB_READ, &code);
    int rc = db ? GT_OK : GT_EIO;
    if (db) {
        if (!a.x.json)
            fputs("ts,src,dst,seq,rtt_ms\n", a.x.out);
        rc = gt_query_export(db, &a.f, export_row, &a.x, &err);
        if (a.x.json)
            fputs(a.x.first ? "[]\n" : "\n]\n", a.x.out);
        gt_db_close(db);
    }
    if (a.output) {
        rc = gt_cli_atomic_close(a.x.out, tmp, a.output, rc, &err);
    } else if (fflush(stdout) != 0 && rc == GT_OK) {
        rc = gt_error_set(&err, GT_EIO, "stdout", "write error");
    }
    if (!db)
        return code;
    return rc ? gt_cli_fail(&err, rc) : GT_EXIT_OK;
}
