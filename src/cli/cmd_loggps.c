/*
 * cmd_loggps.c - `gridtail loggps`: LogGPS message costs, and the
 * parameters from ping-pong times (docs/MODELS.md).  It computes from
 * its arguments alone.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "base/util.h"
#include "estimators/companion/loggps.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
