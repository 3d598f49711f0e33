/*
 * cmd_neighbor.c - `gridtail neighbor`: a neighbour exchange over several
 * NICs, the times of both algorithms (docs/MODELS.md).  It computes
 * from its arguments alone.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "base/util.h"
#include "estimators/companion/neighbor.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char neighbor_usage[] =
    "usage: gridtail neighbor --neighbors N --devices C --bytes M --latency L\n"
    "                         --bandwidth B [--schedule] [--json]\n"
    "\n"
    "Neighbour exchange of M bytes to each of N neighbours from a node with C\n"
    "network devices (N > C > 1), each device and link of bandwidth B, latency\n"
    "L (METHOD.md section 5): the time of posting every message at once\n"
    "(D_prev = L ceil(N/C) + ceil(N/C) M/B) and of the segmented algorithm\n"
    "(D_proposed = L N' + (N'/C') M/B, g = gcd(N, C), N' = N/g, C' = C/g),\n"
    "the speed-up, its limit for large M, and the message size above which\n"
    "the segmented algorithm wins.\n"
    "\n"
    "  --bytes M         bytes per neighbour (suffix k, M, G: powers of 1024)\n"
    "  --latency L       microseconds\n"
    "  --bandwidth B     MB/s (10^6 bytes per second) per device and link\n"
    "  --schedule        also the segment schedule (step, device, neighbour,\n"
    "                    segment), checked never to send two segments to one\n"
    "                    neighbour in a step\n";

struct nb_args {
    long n, c;
    double bytes, lat_us, bw_mbs;
    bool schedule, json, have_bytes, have_lat, have_bw;
};

static int neighbor_parse(int argc, char **argv, struct nb_args *a)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"neighbors", required_argument, NULL, 'n'}, {"neighbours", required_argument, NULL, 'n'},
        {"devices", required_argument, NULL, 'c'}, {"bytes", required_argument, NULL, 'm'},
        {"latency", required_argument, NULL, 'l'}, {"bandwidth", required_argument, NULL, 'b'},
        {"schedule", no_argument, NULL, 's'}, {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        bool ok = true;
        switch (c) {
        case 'h': fputs(neighbor_usage, stdout); return gt_cli_help("");
        case 'j': a->json = true; break;
        case 's': a->schedule = true; break;
        case 'n': ok = gt_opt_long("neighbor", "--neighbors", optarg, 0, 1000000, &a->n); break;
        case 'c': ok = gt_opt_long("neighbor", "--devices", optarg, 0, 1000000, &a->c); break;
        case 'm': ok = gt_opt_bytes("neighbor", "--bytes", optarg, &a->bytes);
                  a->have_bytes = true; break;
        case 'l': ok = gt_opt_double("neighbor", "--latency", optarg, 0, 1e12, &a->lat_us);
                  a->have_lat = true; break;
        case 'b': ok = gt_opt_double("neighbor", "--bandwidth", optarg, 1e-9, 1e15, &a->bw_mbs);
                  a->have_bw = true; break;
        default: return gt_cli_usage_error("neighbor", "bad option");
        }
        if (!ok)
            return GT_EXIT_USAGE;
    }
    if (optind < argc)
        return gt_cli_usage_error("neighbor", "unexpected argument '%s'", argv[optind]);
    if (!a->n || !a->c || !a->have_bytes || !a->have_lat || !a->have_bw)
        return gt_cli_usage_error("neighbor", "--neighbors, --devices, --bytes, --latency and "
                                  "--bandwidth are required");
    return -1;
}

static json_t *schedule_json(const struct gt_neighbor_slot *s, size_t n)
{
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, json_pack("{s:I, s:I, s:I, s:I}", "step",
                                              (json_int_t)s[i].step, "device",
                                              (json_int_t)s[i].device, "neighbor",
                                              (json_int_t)s[i].neighbor, "segment",
                                              (json_int_t)s[i].segment));
    return list;
}

static void neighbor_print(const struct nb_args *a, const struct gt_neighbor *r,
                           const struct gt_neighbor_slot *s, size_t ns)
{
    if (a->json) {
        json_t *o = json_pack("{s:I, s:I, s:f, s:f, s:f, s:I, s:I, s:I, s:f, s:f, s:f, s:f, "
                              "s:f}", "neighbors", (json_int_t)r->n, "devices",
                              (json_int_t)r->c, "bytes", a->bytes, "latency_us", a->lat_us,
                              "bandwidth_mbs", a->bw_mbs, "gcd", (json_int_t)r->g,
                              "steps_prev", (json_int_t)r->rounds_prev, "steps_proposed",
                              (json_int_t)r->n1, "segment_bytes", r->segment_bytes,
                              "d_prev_us", r->d_prev * 1e6, "d_proposed_us",
                              r->d_proposed * 1e6, "speedup", r->speedup,
                              "speedup_large_m", r->speedup_large);
        json_object_set_new(o, "crossover_bytes", gt_json_real_or_null(r->crossover_bytes));
        if (s)
            json_object_set_new(o, "schedule", schedule_json(s, ns));
        gt_cli_print_json(o);
        return;
    }
    printf("N = %ld neighbours, C = %ld devices: g = %ld, N' = %ld, C' = %ld\n", r->n, r->c,
           r->g, r->n1, r->c1);
    printf("D_prev     = %.3f us (%ld rounds of whole messages)\n", r->d_prev * 1e6,
           r->rounds_prev);
    printf("D_proposed = %.3f us (%ld steps of %.6g-byte segments)\n", r->d_proposed * 1e6,
           r->n1, r->segment_bytes);
    printf("speed-up %.4f at this size, %.4f for large messages\n", r->speedup,
           r->speedup_large);
    if (isinf(r->crossover_bytes))
        printf("the segmented algorithm is never faster (C divides N: no idle devices)\n");
    else
        printf("the segmented algorithm is faster above %.6g bytes\n", r->crossover_bytes);
    if (s) {
        printf("step\tdevice\tneighbor\tsegment\n");
        for (size_t i = 0; i < ns; i++)
            printf("%ld\t%ld\t%ld\t%ld\n", s[i].step, s[i].device, s[i].neighbor, s[i].segment);
    }
}

int cmd_neighbor(struct gt_cli *cli, int argc, char **argv)
{
    (void)cli;
    struct nb_args a = {0};
    int code = neighbor_parse(argc, argv, &a);
    if (code >= 0)
        return code;
    struct gt_neighbor r;
    const char *why;
    if (!gt_neighbor_eval(a.n, a.c, a.bytes, a.lat_us * 1e-6, a.bw_mbs * 1e6, &r, &why)) {
        fprintf(stderr, "gridtail neighbor: N = %ld, C = %ld: %s\n", a.n, a.c, why);
        return GT_EXIT_INPUT;
    }
    struct gt_neighbor_slot *s = NULL;
    size_t ns = 0;
    if (a.schedule) {
        ns = (size_t)(r.n1 * r.c);
        if (ns > 10000000 || !(s = malloc(ns * sizeof *s))) {
            fprintf(stderr, "gridtail neighbor: the schedule (%zu slots) is too large\n", ns);
            return GT_EXIT_INPUT;
        }
        gt_neighbor_schedule(a.n, a.c, s);
        if ((why = gt_neighbor_schedule_check(a.n, a.c, s, ns))) {
            fprintf(stderr, "gridtail neighbor: schedule check failed: %s\n", why);
            free(s);
            return GT_EXIT_IO;
        }
    }
    neighbor_print(&a, &r, s, ns);
    free(s);
    return GT_EXIT_OK;
}
