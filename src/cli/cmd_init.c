/*
 * cmd_init.c - `gridtail init`: the store created, or upgraded to the
 * current schema.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

static const char init_usage[] =
    "usage: gridtail init\n"
    "\n"
    "Create the database (see --db) with the current schema, or upgrade an\n"
    "existing one.  Running it again changes nothing.\n";

int cmd_init(struct gt_cli *cli, int argc, char **argv)
{
    int code = gt_cli_simple_opts("init", init_usage, argc, argv, NULL);
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
