/*
 * cmd_simulate.c - `gridtail simulate`: a flow-level simulation of a
 * collective's link contention (docs/MODELS.md).  It computes from its
 * arguments alone.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "base/util.h"
#include "estimators/companion/topology.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char simulate_usage[] =
    "usage: gridtail simulate --topology T --pattern P --bytes M [--bandwidth B]\n"
    "                         [--max-events N] [--links K] [--json]\n"
    "\n"
    "Flow-level simulation of a collective (METHOD.md section 6): every node\n"
    "sends its messages one at a time, flows share links max-min fairly\n"
    "(exact progressive filling), the clock jumps from arrival to arrival.\n"
    "Prints the completion time, flows, events, and the links with the most\n"
    "flows at once and their peak utilisation.\n"
    "\n"
    "  --topology T   crossbar:N, fattree:N[,A] (A-port switches, fat links),\n"
    "                 mesh:X[,Y[,Z]], torus:X[,Y[,Z]] (dimension-order routes),\n"
    "                 sites:FILE ('NAME UP_MBps [DOWN_MBps]' per line)\n"
    "  --pattern P    alltoall-spread, alltoall-pairwise, ring, bcast\n"
    "  --bytes M      bytes per message (suffix k, M, G: powers of 1024)\n"
    "  --bandwidth B  MB/s per link (default 1000; sites: the file's)\n"
    "  --max-events N stop after N arrivals (benchmarks); the report says so\n"
    "  --links K      how many of the busiest links to list (default 5; most\n"
    "                 flows at once first, then the higher utilisation)\n";

struct link_load {
    uint32_t flows;
    double util;
    size_t link;
};

/* Most flows at once first, then the higher utilisation, then by number. */
static int busier(const void *pa, const void *pb)
{
    const struct link_load *a = pa, *b = pb;
    if (a->flows != b->flows)
        return a->flows > b->flows ? -1 : 1;
    if (a->util != b->util)
        return a->util > b->util ? -1 : 1;
    return (a->link > b->link) - (a->link < b->link);
}

/* The used links, busiest first (sorted in full: --links may ask for all);
 * how many, or SIZE_MAX when out of memory. */
static size_t busiest(const struct gt_sim_result *r, size_t nl, struct link_load **out)
{
    size_t n = 0;
    for (size_t l = 0; l < nl; l++)
        n += r->peak_flows[l] > 0;
    if (!(*out = malloc((n ? n : 1) * sizeof **out)))
        return SIZE_MAX;
    n = 0;
    for (size_t l = 0; l < nl; l++)
        if (r->peak_flows[l])
            (*out)[n++] = (struct link_load){r->peak_flows[l], r->peak_util[l], l};
    qsort(*out, n, sizeof **out, busier);
    return n;
}

int cmd_simulate(struct gt_cli *cli, int argc, char **argv)
{
    (void)cli;
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"topology", required_argument, NULL, 't'}, {"pattern", required_argument, NULL, 'p'},
        {"bytes", required_argument, NULL, 'm'}, {"bandwidth", required_argument, NULL, 'b'},
        {"max-events", required_argument, NULL, 'e'}, {"links", required_argument, NULL, 'l'},
        {NULL, 0, NULL, 0}};
    const char *topo = NULL, *pattern = NULL;
    double bytes = -1, bw = 1000;
    long max_events = 0, nlinks_shown = 5;
    bool json = false, ok = true;
    int c;
    optind = 1;
    while (ok && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(simulate_usage, stdout); return gt_cli_help("");
        case 'j': json = true; break;
        case 't': topo = optarg; break;
        case 'p': pattern = optarg; break;
        case 'm': ok = gt_opt_bytes("simulate", "--bytes", optarg, &bytes); break;
        case 'b': ok = gt_opt_double("simulate", "--bandwidth", optarg, 1e-6, 1e12, &bw); break;
        case 'e': ok = gt_opt_long("simulate", "--max-events", optarg, 1, 4000000000L,
                                   &max_events); break;
        case 'l': ok = gt_opt_long("simulate", "--links", optarg, 0, 1000000000L,
                                   &nlinks_shown);
                  break;
        default: return gt_cli_usage_error("simulate", "bad option");
        }
    }
    if (!ok)
        return GT_EXIT_USAGE;
    if (!topo || !pattern || bytes < 0)
        return gt_cli_usage_error("simulate", "--topology, --pattern and --bytes are required");
    int pat = gt_pattern_find(pattern);
    if (pat < 0)
        return gt_cli_usage_error("simulate", "--pattern: '%s' is not alltoall-spread, "
                                  "alltoall-pairwise, ring or bcast", pattern);
    struct gt_topology t;
    struct gt_error err = {0};
    int rc = gt_topology_new(topo, bw * 1e6, &t, &err);
    if (rc)
        return rc == GT_EUSAGE ? gt_cli_usage_error("simulate", "%s", err.msg)
                               : gt_cli_fail(&err, rc);
    struct gt_sim_net net;
    gt_topology_net(&t, (enum gt_pattern)pat, bytes, &net);
    struct gt_sim_result r = {0};
    r.peak_flows = calloc(t.nlinks, sizeof *r.peak_flows);
    r.peak_util = calloc(t.nlinks, sizeof *r.peak_util);
    struct link_load *top = NULL;
    int64_t t0 = gt_monotonic_ns();
    rc = r.peak_flows && r.peak_util
         ? gt_sim_run(&net, (size_t)max_events, NULL, &r, &err)
         : gt_error_set(&err, GT_ENOMEM, NULL, "out of memory");
    double wall = (double)(gt_monotonic_ns() - t0) / 1e9;
    size_t nb = rc ? 0 : busiest(&r, t.nlinks, &top);
    if (nb == SIZE_MAX)
        rc = gt_error_set(&err, GT_ENOMEM, NULL, "out of memory");
    int code = GT_EXIT_OK;
    if (rc) {
        code = gt_cli_fail(&err, rc);
    } else {
        if (nb > (size_t)nlinks_shown)
            nb = (size_t)nlinks_shown;
        char name[128];
        if (json) {
            json_t *links = json_array();
            for (size_t i = 0; i < nb; i++) {
                gt_topology_link_name(&t, top[i].link, name, sizeof name);
                json_array_append_new(links, json_pack("{s:s, s:I, s:f}", "link", name,
                                      "peak_flows", (json_int_t)top[i].flows,
                                      "peak_utilization", top[i].util));
            }
            gt_cli_print_json(json_pack("{s:s, s:s, s:f, s:I, s:I, s:f, s:I, s:I, s:b, s:f, "
                                        "s:f, s:o}", "topology", topo, "pattern", pattern,
                                        "bytes", bytes, "nodes", (json_int_t)t.nnodes,
                                        "links", (json_int_t)t.nlinks, "time_s", r.time,
                                        "flows", (json_int_t)r.flows, "events",
                                        (json_int_t)r.events, "stopped", r.stopped,
                                        "wall_s", wall, "events_per_s",
                                        wall > 0 ? (double)r.events / wall : 0.0,
                                        "busiest_links", links));
        } else {
            printf("%s, %s, %.6g bytes: %zu nodes, %zu links\n", topo, pattern, bytes,
                   t.nnodes, t.nlinks);
            printf("completion %.9g s%s; %zu flows, %zu events (%.0f events/s)\n", r.time,
                   r.stopped ? " (stopped at --max-events: the time so far)" : "", r.flows,
                   r.events, wall > 0 ? (double)r.events / wall : 0.0);
            for (size_t i = 0; i < nb; i++) {
                gt_topology_link_name(&t, top[i].link, name, sizeof name);
                printf("  %-28s peak %u flows, utilisation %.3f\n", name, top[i].flows,
                       top[i].util);
            }
        }
    }
    free(r.peak_flows);
    free(r.peak_util);
    free(top);
    gt_topology_free(&t);
    return code;
}
