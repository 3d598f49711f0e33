/*
 * cmd_token.c - `gridtail token new`: an API token for serve, and the
 * line of its tokens_file (its SHA-256, no secret).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "server/auth.h"

#include <getopt.h>
#include <string.h>

static const char token_usage[] =
    "usage: gridtail token new --scope read|write|admin [--json]\n"
    "\n"
    "Make a new API token for gridtail serve: 32 random bytes (getrandom) as\n"
    "43 base64url characters.  Prints the token, which only the client keeps,\n"
    "and the line to add to [server] tokens_file, which holds the token's\n"
    "SHA-256 and no secret; then send the server SIGHUP.  Scopes: read (estimate,\n"
    "rank, place, sites, pairs, plots, metrics), write (also POST /v1/samples),\n"
    "admin (everything).\n";

int cmd_token(struct gt_cli *cli, int argc, char **argv)
{
    (void)cli;
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"scope", required_argument, NULL, 's'},
        {"json", no_argument, NULL, 'j'}, {NULL, 0, NULL, 0}};
    if (argc < 2 || strcmp(argv[1], "new"))
        return argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
                   ? gt_cli_help(token_usage)
                   : gt_cli_usage_error("token", "the only subcommand is: token new --scope S");
    enum gt_scope scope = GT_SCOPE_NONE;
    bool json = false;
    int c;
    optind = 2;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': return gt_cli_help(token_usage);
        case 'j': json = true; break;
        case 's':
            if (!gt_scope_parse(optarg, &scope))
                return gt_cli_usage_error("token", "--scope: '%s' is not read, write or admin",
                                          optarg);
            break;
        default: return gt_cli_usage_error("token", "bad option");
        }
    }
    if (optind < argc)
        return gt_cli_usage_error("token", "unexpected argument '%s'", argv[optind]);
    if (scope == GT_SCOPE_NONE)
        return gt_cli_usage_error("token", "--scope read|write|admin is required");
    char token[GT_TOKEN_LEN + 1], hex[65];
    struct gt_error err = {0};
    int rc = gt_token_new(token, hex, &err);
    if (rc)
        return gt_cli_fail(&err, rc);
    if (json) {
        char line[100];
        snprintf(line, sizeof line, "%s %s", gt_scope_name(scope), hex);
        gt_cli_print_json(json_pack("{s:s, s:s, s:s, s:s}", "token", token, "scope",
                                    gt_scope_name(scope), "sha256", hex, "line", line));
    } else {
        printf("token: %s\n", token);
        printf("line for [server] tokens_file: %s %s\n", gt_scope_name(scope), hex);
    }
    return GT_EXIT_OK;
}
