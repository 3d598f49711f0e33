/*
 * cmd_formats.c - `gridtail formats`: the input formats that ingest
 * reads.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "collectors/collector.h"

static const char formats_usage[] =
    "usage: gridtail formats [--json]\n"
    "\n"
    "List the input formats 'gridtail ingest' reads.\n";

int cmd_formats(struct gt_cli *cli, int argc, char **argv)
{
    (void)cli;
    bool json = false;
    int code = gt_cli_simple_opts("formats", formats_usage, argc, argv, &json);
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
