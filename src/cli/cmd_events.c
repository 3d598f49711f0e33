/*
 * cmd_events.c - `gridtail events`: what happened on each pair (level
 * shifts, loss bursts, outages, silences).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "advisor/events.h"
#include "base/util.h"

#include <getopt.h>
#include <stdlib.h>
#include <time.h>

static const char events_usage[] =
    "usage: gridtail events [--src NAME] [--dst NAME] [--from TIME] [--to TIME]\n"
    "                       [--kind KIND] [--limit N] [--json]\n"
    "\n"
    "What happened on each pair in [--from, --to) (default: the last day), one\n"
    "line an event, by time: level shifts of the median (the online detector,\n"
    "precision first, with the step's size, at least [thresholds] shift_min),\n"
    "loss bursts (burst_min lost probes in a row), outages (every\n"
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
