/*
 * cmd_admin.c - `gridtail init`, `prune`, `config` and `formats`.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "base/util.h"
#include "db/query.h"
#include "collectors/collector.h"

#include <getopt.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Handle a command with only --help (and maybe --json); -1 = go on. */
static int simple_opts(const char *cmd, const char *usage, int argc, char **argv,
                       bool *json)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            return gt_cli_help(usage);
        }
        if (c != 'j' || !json)
            return gt_cli_usage_error(cmd, "bad option");
        *json = true;
    }
    if (optind < argc)
        return gt_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return -1;
}

static const char init_usage[] =
    "usage: gridtail init\n"
    "\n"
    "Create the database (see --db) with the current schema, or upgrade an\n"
    "existing one.  Running it again changes nothing.\n";

int cmd_init(struct gt_cli *cli, int argc, char **argv)
{
    int code = simple_opts("init", init_usage, argc, argv, NULL);
    if (code >= 0)
        return code;
    struct gt_db *db = gt_cli_open_db(cli, GT_DB_CREATE, &code);
    if (!db)
        return code;
    int version = 0;
    struct gt_error err = {0};
    if (gt_db_version(db, &version, &err) != GT_OK) {
        gt_db_close(db);
        return gt_cli_fail(&err, err.code);
    }
    printf("%s: %s (schema version %d)\n", cli->db_path,
           gt_db_created(db) ? "created" : "already initialised", version);
    gt_db_close(db);
    return GT_EXIT_OK;
}

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
    int rc = keep > 0 ? gt_prune(db, cutoff, dry, &removed, &err) : GT_OK;
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

static const char config_usage[] =
    "usage: gridtail config\n"
    "\n"
    "Print the effective settings: the database path and where it came\n"
    "from, the config file read, and every key (see etc/gridtail.conf).\n";

int cmd_config(struct gt_cli *cli, int argc, char **argv)
{
    int code = simple_opts("config", config_usage, argc, argv, NULL);
    if (code >= 0)
        return code;
    printf("# config file: %s\n", cli->config_path ? cli->config_path : "(none)");
    printf("# database: %s (from %s)\n", cli->db_path, cli->db_from);
    gt_config_dump(&cli->cfg, stdout);
    return GT_EXIT_OK;
}

static const char formats_usage[] =
    "usage: gridtail formats [--json]\n"
    "\n"
    "List the input formats 'gridtail ingest' reads.\n";

int cmd_formats(struct gt_cli *cli, int argc, char **argv)
{
    (void)cli;
    bool json = false;
    int code = simple_opts("formats", formats_usage, argc, argv, &json);
    if (code >= 0)
        return code;
    json_t *list = json_array();
    for (const struct gt_collector *const *c = gt_collector_all(); *c; c++) {
        if (json)
            json_array_append_new(list, json_pack("{s:s, s:s}", "name", (*c)->name,
                                                  "summary", (*c)->summary));
        else
            printf("%-9s %s\n", (*c)->name, (*c)->summary);
    }
    if (json)
        gt_cli_print_json(json_pack("{s:o}", "formats", list));
    else
        json_decref(list);
    return GT_EXIT_OK;
}
