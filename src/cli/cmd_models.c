/*
 * cmd_models.c - the companion models' commands (docs/MODELS.md):
 * neighbor (multi-NIC neighbour exchange), extrapolate (timing from a
 * few process counts), loggps (message costs, and their parameters from
 * ping-pong times) and simulate (flow-level link contention).  They compute from their arguments alone.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "base/util.h"
#include "estimators/companion/extrap.h"
#include "estimators/companion/loggps.h"
#include "estimators/companion/neighbor.h"
#include "estimators/companion/topology.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ neighbor */

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

/* ------------------------------------------------------------ extrapolate */

static const char extrapolate_usage[] =
    "usage: gridtail extrapolate --at N [--model auto|loo|MODEL] [--json] n:t ...\n"
    "\n"
    "Extrapolate a time t measured at a few process counts n (at least 3\n"
    "samples) to N processes.  The four models of METHOD.md section 7 -\n"
    "constant, linear, inverse (k/n), inverse-constant (k/n + c) - are fitted\n"
    "exactly as written there and scored by d, the smallest winning (--model\n"
    "auto, the default, reproduces that method).  A wider family adds power\n"
    "(a n^p + c) and log (a + b ln n); every model is also scored by\n"
    "leave-one-out relative error, and --model loo picks the best of all six\n"
    "that way.  Both choices are always shown; a warning says when N is more\n"
    "than 4 times the largest sampled n.  --model MODEL forces one model.\n"
    "Samples may also come from --input FILE: 'n t' or 'n,t' per line, '#'\n"
    "comments.\n";

static int parse_point(const char *s, double *n, double *t)
{
    const char *colon = strchr(s, ':');
    return colon && gt_parse_double(s, (size_t)(colon - s), n) &&
           gt_parse_double(colon + 1, strlen(colon + 1), t);
}

static json_t *xfit_json(const struct gt_extrap *x, int k)
{
    const struct gt_xfit *f = &x->fit[k];
    if (!f->ok)
        return json_pack("{s:s, s:b, s:s}", "model", gt_xmodel_name(k), "ok", 0, "why", f->why);
    json_t *p = json_object();
    const char *const *names = gt_xmodel_params(k);
    for (int i = 0; names[i]; i++)
        json_object_set_new(p, names[i], gt_json_real_or_null(f->p[i]));
    json_t *o = json_pack("{s:s, s:b, s:o, s:b}", "model", gt_xmodel_name(k), "ok", 1,
                          "params", p, "classic", k < GT_X_CLASSIC);
    json_object_set_new(o, "score", gt_json_real_or_null(f->score));
    json_object_set_new(o, "loo_error", gt_json_real_or_null(f->loo));
    json_object_set_new(o, "prediction", gt_json_real_or_null(f->prediction));
    if (f->dropped >= 0)
        json_object_set_new(o, "dropped_sample", json_integer(f->dropped));
    return o;
}

static void extrapolate_print(const struct gt_extrap *x, int chosen, double at, bool json,
                              const char *warning)
{
    const struct gt_xfit *c = &x->fit[chosen];
    if (json) {
        json_t *all = json_array();
        for (int k = 0; k < GT_X_NMODELS; k++)
            json_array_append_new(all, xfit_json(x, k));
        json_t *o = json_pack("{s:f, s:s, s:o, s:o, s:o, s:s, s:s, s:o}", "at", at, "model",
                              gt_xmodel_name(chosen), "prediction",
                              gt_json_real_or_null(c->prediction), "score",
                              gt_json_real_or_null(c->score), "loo_error",
                              gt_json_real_or_null(c->loo), "classic_choice",
                              gt_xmodel_name(x->classic), "loo_choice",
                              x->loo_best >= 0 ? gt_xmodel_name(x->loo_best) : "none",
                              "models", all);
        json_object_set_new(o, "warning", warning ? json_string(warning) : json_null());
        gt_cli_print_json(o);
        return;
    }
    printf("%-17s %-30s %12s %12s %14s\n", "model", "parameters", "score d", "loo error",
           "prediction");
    for (int k = 0; k < GT_X_NMODELS; k++) {
        const struct gt_xfit *f = &x->fit[k];
        char params[128] = "", *p = params;
        const char *const *names = gt_xmodel_params(k);
        for (int i = 0; f->ok && names[i]; i++)
            p += snprintf(p, sizeof params - (size_t)(p - params), "%s%s=%.6g", i ? " " : "",
                          names[i], f->p[i]);
        if (!f->ok)
            printf("%-17s not fitted: %s\n", gt_xmodel_name(k), f->why);
        else
            printf("%-17s %-30s %12.6g %12.6g %14.6g%s%s\n", gt_xmodel_name(k), params,
                   f->score, f->loo, f->prediction, k == x->classic ? "  <- classic (d)" : "",
                   k == x->loo_best ? "  <- leave-one-out" : "");
    }
    printf("at n = %g: %.6g (%s)\n", at, c->prediction, gt_xmodel_name(chosen));
    if (warning)
        printf("warning: %s\n", warning);
}

int cmd_extrapolate(struct gt_cli *cli, int argc, char **argv)
{
    (void)cli;
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"at", required_argument, NULL, 'a'}, {"model", required_argument, NULL, 'm'},
        {"input", required_argument, NULL, 'i'}, {NULL, 0, NULL, 0}};
    double at = 0, n[64], t[64];
    const char *model = "auto", *input = NULL;
    bool json = false;
    size_t m = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(extrapolate_usage, stdout); return gt_cli_help("");
        case 'j': json = true; break;
        case 'a':
            if (!gt_opt_double("extrapolate", "--at", optarg, 1, 1e12, &at))
                return GT_EXIT_USAGE;
            break;
        case 'm': model = optarg; break;
        case 'i': input = optarg; break;
        default: return gt_cli_usage_error("extrapolate", "bad option");
        }
    }
    int forced = gt_xmodel_find(model);
    if (forced < 0 && strcmp(model, "auto") && strcmp(model, "loo"))
        return gt_cli_usage_error("extrapolate", "--model: '%s' is not auto, loo, constant, "
                                  "linear, inverse, inverse-constant, power or log", model);
    if (at == 0)
        return gt_cli_usage_error("extrapolate", "--at N is required");
    if (input && optind < argc)
        return gt_cli_usage_error("extrapolate", "give samples as arguments or --input, "
                                  "not both");
    if (input && (c = gt_read_points(input, n, t, 64, &m)) != GT_EXIT_OK)
        return c;
    for (int i = optind; i < argc; i++) {
        if (m == 64)
            return gt_cli_usage_error("extrapolate", "more than 64 samples");
        if (!parse_point(argv[i], &n[m], &t[m]))
            return gt_cli_usage_error("extrapolate", "'%s' is not a sample n:t", argv[i]);
        m++;
    }
    struct gt_extrap x;
    struct gt_error err = {0};
    int rc = gt_extrap_run(n, t, m, at, &x, &err);
    if (rc)
        return gt_cli_fail(&err, rc);
    int chosen = forced >= 0 ? forced : !strcmp(model, "loo") && x.loo_best >= 0 ? x.loo_best
                                                                                 : x.classic;
    if (!x.fit[chosen].ok) {
        fprintf(stderr, "gridtail extrapolate: model %s: %s\n", model, x.fit[chosen].why);
        return GT_EXIT_INPUT;
    }
    char warning[160];
    bool far = x.reach > 4;
    if (far)
        snprintf(warning, sizeof warning, "n = %g is %.3g times the largest sampled n (%g): "
                 "the models agree only as far as the data goes", at, x.reach, x.n_max);
    extrapolate_print(&x, chosen, at, json, far ? warning : NULL);
    return GT_EXIT_OK;
}

/* ------------------------------------------------------------ loggps */

static const char loggps_usage[] =
    "usage: gridtail loggps cost --params NAME|FILE --bytes K [--senders P]\n"
    "                            [--ts T --tr T] [--wait-after W] [--json]\n"
    "       gridtail loggps fit --input FILE [--round-trip] [--overhead O] [--json]\n"
    "\n"
    "LogGPS message costs (METHOD.md section 4), in nanoseconds and bytes.\n"
    "cost: the time to deliver K bytes (short k <= s, eager k <= S, else\n"
    "rendezvous), P senders sharing the receiver's bandwidth, and the MPI call\n"
    "times of the paper's Table 4 for send and receive calls at times ts, tr\n"
    "(default 0); a wait issued W ns after its nonblocking call.  --params is a\n"
    "built-in set (myrinet, fast-ethernet: the paper's Table 5) or a file of\n"
    "'name = value' lines (etc/loggps/*.conf).\n"
    "fit: estimate from ping-pong times ('bytes time_ns' or 'bytes,time_ns'\n"
    "per line; one-way times, or whole round trips with --round-trip) the\n"
    "zero-byte time 2o' + L, each regime's per-byte slope and the breakpoints\n"
    "s and S, by a least-squares line per regime with the breakpoints searched\n"
    "over the sizes (BIC chooses how many).  Ping-pong times alone cannot\n"
    "separate L from o': give --overhead O (o', e.g. the time of MPI_Isend)\n"
    "to get L.\n";

static int loggps_cost(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"params", required_argument, NULL, 'p'}, {"bytes", required_argument, NULL, 'k'},
        {"senders", required_argument, NULL, 'n'}, {"ts", required_argument, NULL, 's'},
        {"tr", required_argument, NULL, 'r'}, {"wait-after", required_argument, NULL, 'w'},
        {NULL, 0, NULL, 0}};
    const char *params = NULL;
    double k = -1, ts = 0, tr = 0, after = 0;
    long senders = 1;
    bool json = false, ok = true;
    int c;
    optind = 1;
    while (ok && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(loggps_usage, stdout); return gt_cli_help("");
        case 'j': json = true; break;
        case 'p': params = optarg; break;
        case 'k': ok = gt_opt_bytes("loggps cost", "--bytes", optarg, &k); break;
        case 'n': ok = gt_opt_long("loggps cost", "--senders", optarg, 1, 1000000, &senders);
                  break;
        case 's': ok = gt_opt_double("loggps cost", "--ts", optarg, -1e15, 1e15, &ts); break;
        case 'r': ok = gt_opt_double("loggps cost", "--tr", optarg, -1e15, 1e15, &tr); break;
        case 'w': ok = gt_opt_double("loggps cost", "--wait-after", optarg, 0, 1e15, &after);
                  break;
        default: return gt_cli_usage_error("loggps cost", "bad option");
        }
    }
    if (!ok)
        return GT_EXIT_USAGE;
    if (!params || k < 0)
        return gt_cli_usage_error("loggps cost", "--params and --bytes are required");
    struct gt_loggps m;
    struct gt_error err = {0};
    int rc = gt_loggps_load(params, &m, &err);
    if (rc)
        return gt_cli_fail(&err, rc);
    double d = tr - ts, t = gt_loggps_time(&m, k, (double)senders, d);
    struct gt_loggps_calls calls;
    gt_loggps_calls(&m, k, (double)senders, d, after, &calls);
    const char *regime = gt_loggps_regime(&m, k);
    if (json) {
        gt_cli_print_json(json_pack("{s:s, s:f, s:I, s:s, s:f, s:{s:f, s:f, s:f, s:f, s:f, "
                                    "s:f}}", "params", m.name, "bytes", k, "senders",
                                    (json_int_t)senders, "regime", regime, "time_ns", t,
                                    "calls_ns", "send", calls.send, "isend", calls.isend,
                                    "recv", calls.recv, "irecv", calls.irecv, "wait_send",
                                    calls.wait_send, "wait_recv", calls.wait_recv));
        return GT_EXIT_OK;
    }
    printf("%s: %.6g bytes, %ld sender%s: %s, %.3f ns (%.6g us)\n", m.name, k, senders,
           senders > 1 ? "s" : "", regime, t, t / 1000);
    printf("MPI_Send %.3f, MPI_Isend %.3f, MPI_Recv %.3f, MPI_Irecv %.3f ns\n", calls.send,
           calls.isend, calls.recv, calls.irecv);
    printf("MPI_Wait %.3f after an Isend, %.3f after an Irecv (issued %.6g ns later)\n",
           calls.wait_send, calls.wait_recv, after);
    return GT_EXIT_OK;
}

static int loggps_fit(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"input", required_argument, NULL, 'i'}, {"round-trip", no_argument, NULL, 'r'},
        {"overhead", required_argument, NULL, 'o'}, {NULL, 0, NULL, 0}};
    const char *input = NULL;
    double o = NAN;
    bool json = false, round_trip = false, ok = true;
    int c;
    optind = 1;
    while (ok && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(loggps_usage, stdout); return gt_cli_help("");
        case 'j': json = true; break;
        case 'i': input = optarg; break;
        case 'r': round_trip = true; break;
        case 'o': ok = gt_opt_double("loggps fit", "--overhead", optarg, 0, 1e15, &o); break;
        default: return gt_cli_usage_error("loggps fit", "bad option");
        }
    }
    if (!ok)
        return GT_EXIT_USAGE;
    if (!input)
        return gt_cli_usage_error("loggps fit", "--input FILE is required");
    enum { CAP = 100000 };
    double *k = malloc(CAP * sizeof *k), *t = malloc(CAP * sizeof *t);
    size_t n = 0;
    int code = k && t ? gt_read_points(input, k, t, CAP, &n) : GT_EXIT_IO;
    for (size_t i = 0; code == GT_EXIT_OK && round_trip && i < n; i++)
        t[i] /= 2;
    struct gt_loggps_fit f;
    struct gt_error err = {0};
    int rc = code == GT_EXIT_OK ? gt_loggps_fit(k, t, n, o, &f, &err) : GT_OK;
    free(k);
    free(t);
    if (code != GT_EXIT_OK)
        return code;
    if (rc)
        return gt_cli_fail(&err, rc);
    if (json) {
        json_t *doc = json_pack("{s:I, s:i, s:f, s:o, s:o}", "samples", (json_int_t)n,
                                "regimes", f.regimes, "zero_byte_ns", f.a0, "L", gt_json_real_or_null(f.L),
                                "o", gt_json_real_or_null(f.o));
        static const char *names[3] = {"short", "eager", "rendezvous"};
        for (int r = 0; r < 3; r++)
            json_object_set_new(doc, names[r], isfinite(f.b[r])
                                ? json_pack("{s:f, s:f}", "intercept_ns", f.c[r],
                                            "per_byte_ns", f.b[r]) : json_null());
        json_object_set_new(doc, "s", isfinite(f.s_lo) ? json_pack("{s:f, s:f, s:o}", "min",
                            f.s_lo, "max", f.s_hi, "lines_meet", gt_json_real_or_null(f.s_est))
                            : json_null());
        json_object_set_new(doc, "S", isfinite(f.S_lo) ? json_pack("{s:f, s:f}", "min",
                            f.S_lo, "max", f.S_hi) : json_null());
        json_object_set_new(doc, "residual_rms_ns", json_real(f.rms));
        json_object_set_new(doc, "residual_max_rel", json_real(f.max_rel));
        gt_cli_print_json(doc);
        return GT_EXIT_OK;
    }
    printf("%zu samples, %d regime%s\n", n, f.regimes, f.regimes > 1 ? "s" : "");
    printf("zero-byte time 2o' + L = %.3f ns", f.a0);
    if (isfinite(f.L))
        printf(" (o' = %.3f given: L = %.3f ns)", f.o, f.L);
    printf("\nshort:      %.6g ns/byte (Oss + Gs + Ors)\n", f.b[0]);
    if (isfinite(f.b[1]))
        printf("eager:      %.6g ns/byte (Oss + Gl + Ors), intercept %.3f ns\n", f.b[1], f.c[1]);
    if (isfinite(f.b[2]))
        printf("rendezvous: %.6g ns/byte (Osl + Gl + Orl), intercept %.3f ns\n", f.b[2],
               f.c[2]);
    if (isfinite(f.s_lo))
        printf("s in [%.0f, %.0f]%s", f.s_lo, f.s_hi, isfinite(f.s_est) ? "" : "\n");
    if (isfinite(f.s_lo) && isfinite(f.s_est))
        printf(" (the lines meet at %.0f)\n", f.s_est);
    if (isfinite(f.S_lo))
        printf("S in [%.0f, %.0f]\n", f.S_lo, f.S_hi);
    printf("residuals: rms %.3f ns, largest %.3g %%\n", f.rms, 100 * f.max_rel);
    return GT_EXIT_OK;
}

int cmd_loggps(struct gt_cli *cli, int argc, char **argv)
{
    (void)cli;
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(loggps_usage, stdout);
        return argc < 2 ? gt_cli_usage_error("loggps", "give 'cost' or 'fit'")
                        : gt_cli_help("");
    }
    if (!strcmp(argv[1], "cost"))
        return loggps_cost(argc - 1, argv + 1);
    if (!strcmp(argv[1], "fit"))
        return loggps_fit(argc - 1, argv + 1);
    return gt_cli_usage_error("loggps", "'%s' is not cost or fit", argv[1]);
}

/* ------------------------------------------------------------ simulate */

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
