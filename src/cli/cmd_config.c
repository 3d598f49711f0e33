/*
 * cmd_config.c - `gridtail config`: the effective configuration and
 * where each part of it came from.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

static const char config_usage[] =
    "usage: gridtail config\n"
    "\n"
    "Print the effective settings: the database path and where it came\n"
    "from, the config file read, and every key (see etc/gridtail.conf).\n";

int cmd_config(struct gt_cli *cli, int argc, char **argv)
{
    int code = gt_cli_simple_opts("config", config_usage, argc, argv, NULL);
    if (code >= 0)
        return code;
    printf("# config file: %s\n", cli->config_path ? cli->config_path : "(none)");
    printf("# database: %s (from %s)\n", cli->db_path, cli->db_from);
    gt_config_dump(&cli->cfg, stdout);
    return GT_EXIT_OK;
}
