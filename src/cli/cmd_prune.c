/*
 * cmd_prune.c - `gridtail prune`: samples older than the retention
 * period deleted.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "base/util.h"
#include "db/query.h"

#include <getopt.h>
#include <time.h>

static const char prune_usage[] =
    "usage: gridtail prune [--keep-days N] [--now TIME] [--dry-run] [--vacuum] [--json]\n"
    "\n"
    "Delete samples older than N days before now (default: [retention]\n"
    "keep_days of the config; 0 keeps everything).  Sites, pairs and the\n"
    "ingest log are kept.  --dry-run only counts.  The space the samples\n"
    "took goes back to the file system (stores created by gridtail 4 and\n"
    "later free it incrementally; --vacuum rewrites an older store once so\n"
    "that it does too), and the sizes before and after are reported.\n";

int cmd_prune(struct gt_cli *cli, int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"keep-days", required_argument, NULL, 'k'}, {"now", required_argument, NULL, 'n'},
        {"dry-run", no_argument, NULL, 'd'}, {"vacuum", no_argument, NULL, 'v'},
        {NULL, 0, NULL, 0}};
    long keep = cli->cfg.keep_days;
    int64_t now = (int64_t)time(NULL);
    bool json = false, dry = false, vacuum = false;
    int c, code;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': return gt_cli_help(prune_usage);
        case 'j': json = true; break;
        case 'v': vacuum = true; break;
        case 'd': dry = true; break;
        case 'k':
            if (!gt_opt_long("prune", "--keep-days", optarg, 0, 1000000, &keep))
                return GT_EXIT_USAGE;
            break;
        case 'n':
            if (!gt_opt_time("prune", "--now", optarg, &now))
                return GT_EXIT_USAGE;
            break;
        default: return gt_cli_usage_error("prune", "bad option");
        }
    }
    if (optind < argc)
        return gt_cli_usage_error("prune", "unexpected argument '%s'", argv[optind]);
    int64_t cutoff;
    if (!gt_i64_add_mul(now, -(int64_t)keep, 86400, &cutoff))
        return gt_cli_usage_error("prune", "--now minus --keep-days is out of range");
    struct gt_db *db = gt_cli_open_db(cli, GT_DB_EXISTING, &code);
    if (!db)
        return code;
    long long removed = 0, before = 0, after = 0;
    struct gt_error err = {0};
    /* keeping everything, a database server's store still gets its weeks'
       partitions made ahead (prune's other job); a file has none, and its
       samples are not scanned for nothing */
    int rc = keep > 0 ? gt_prune(db, cutoff, dry, &removed, &err)
             : gt_db_is_file(gt_db_address(db)) ? GT_OK
                                                 : gt_prune(db, INT64_MIN, dry, &removed, &err);
    if (rc == GT_OK && !dry && (removed > 0 || vacuum))
        rc = gt_db_reclaim(db, vacuum, &before, &after, &err);
    gt_db_close(db);
    if (rc)
        return gt_cli_fail(&err, rc);
    char t[32];
    gt_format_time(cutoff, t, sizeof t);
    if (json)
        gt_cli_print_json(json_pack("{s:I, s:b, s:I, s:o, s:I, s:I}", "keep_days",
                                    (json_int_t)keep, "dry_run", dry, "removed",
                                    (json_int_t)removed, "cutoff_ts",
                                    keep > 0 ? json_integer(cutoff) : json_null(),
                                    "bytes_before", (json_int_t)before, "bytes_after",
                                    (json_int_t)after));
    else if (keep == 0 && !vacuum)
        printf("retention keeps all samples (keep_days = 0): nothing pruned\n");
    else if (keep > 0)
        printf("%s %lld samples older than %s (%ld days)\n", dry ? "would remove" : "removed",
               removed, t, keep);
    if (!json && before > 0)
        printf("database %.1f MiB -> %.1f MiB (%.1f MiB given back)\n", before / 1048576.0,
               after / 1048576.0, (before - after) / 1048576.0);
    return GT_EXIT_OK;
}
