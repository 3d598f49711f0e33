/*
 * advopts.c - see advopts.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "advopts.h"
#include "base/interrupt.h"
#include "base/util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The options the advisor's commands share, each with its --help lines;
 * a command takes some of them (struct adv_cmd) and refuses the others. */
static const struct {
    int opt;
    const char *help;
} adv_help[] = {
    {AO_WINDOW, "  --window M          samples per pair fit (config [estimate] window)\n"},
    {AO_MODEL, "  --model auto|pareto|normal|last|empirical|adaptive|combined\n"
              "                      auto: the smaller chi-square per pair; last: the\n"
              "                      last observed RTT of each pair (a point mass);\n"
              "                      empirical: each window's own samples (a step CDF);\n"
              "                      adaptive: per root, whichever of pareto, normal,\n"
              "                      last and empirical forecast its collective best\n"
              "                      over the last [advisor] adaptive_outcomes moments\n"
              "                      (50), --horizon ahead, unless its forecast now is\n"
              "                      far from the others'; answers carry its RMSE;\n"
              "                      combined: per root, the four weighted by least\n"
              "                      squares over their last max(500, 16 x lead)\n"
              "                      outcomes --horizon ahead (docs/METHOD.md 5)\n"},
    {AO_HORIZON, "  --horizon D         adaptive, combined: how far ahead the job runs,\n"
                "                      e.g. 90s, 10m, 2h (default: with --iterations the\n"
                "                      job's length at the collective's last observed\n"
                "                      time, else [advisor] horizon_s, 600)\n"},
    {AO_CALIB, "  --calibration W     the quantiles answered are the model's calibrated by\n"
              "                      the root's own misses over the last W moments,\n"
              "                      --horizon ahead (docs/METHOD.md section 5; default\n"
              "                      [advisor] calibration_outcomes, 3000; 0: the model's\n"
              "                      own)\n"},
    {AO_CALIBRATE, "  --calibrate         also keep each root's calibration (default [advisor]\n"
                  "                      refit_calibration, 0)\n"},
    {AO_FALLBACK, "  --fallback empirical|none\n"
                 "                      with auto, a pair whose selected fit would change\n"
                 "                      the answer (its verdict: quantiles off, mass below\n"
                 "                      0 ms, no finite index) takes the other fit, and one\n"
                 "                      whose two fits both would its samples as they are,\n"
                 "                      with a warning (empirical, the default: [advisor]\n"
                 "                      fallback_empirical); none keeps the selected fit\n"},
    {AO_AT, "  --at TIME           use samples up to TIME (default: now)\n"},
    {AO_CUT, "  --cut censor|paper  a fitted alpha <= 1 has no mean; E[max] is cut at\n"
            "                      x0 = k m^(1/alpha): censor (default) E[min(max, x0)],\n"
            "                      never below the partners' minima; paper: eq. 12 as\n"
            "                      written, the mass beyond x0 dropped (docs/METHOD.md)\n"},
    {AO_COMPUTE, "  --compute C         compute time per iteration, ms\n"},
    {AO_COMPUTE_FROM, "  --compute-from F    compute time per iteration measured at a few process\n"
                     "                      counts ('n ms' per line), extrapolated to each\n"
                     "                      placement's processes (1 + the partners'); the\n"
                     "                      classic model of `gridtail extrapolate`\n"},
    {AO_ITER, "  --iterations I      also the job time I x (C + E[max])\n"},
    {AO_QUANT, "  --quantile Q,...    quantiles of the collective time (0.5,0.9,0.99)\n"},
    {AO_SKIP, "  --skip-missing      leave out partners without samples (a warning)\n"},
    {AO_LOSS, "  --loss model|ignore a lost probe is a lost message, resent after the\n"
             "                      retransmission timeout ([advisor] rto_ms, 200),\n"
             "                      doubling per retry (model, the default); ignore: the\n"
             "                      paper's way, lost samples only take the previous value\n"},
    {AO_MAX_LOSS, "  --max-loss P        rank and place leave out partners whose window lost\n"
                 "                      more than P (default [advisor] max_loss, 0.10);\n"
                 "                      estimate warns\n"},
    {AO_OBJECTIVE, "  --objective mean|pNN  rank and place by compute + E[max] (mean, the\n"
                  "                      default) or + that quantile of the collective time\n"
                  "                      (p99: the time 99% of collectives stay under)\n"},
    {AO_SYMMETRIC, "  --symmetric         a pair A -> B without samples takes B -> A's (an RTT\n"
                  "                      is a round trip), with a warning ([advisor]\n"
                  "                      assume_symmetric)\n"},
    {AO_JSON, "  --json              JSON (see docs/ADVISOR.md for the fields)\n"},
    {AO_FORMAT, "  --format F          gridway (KEY=value, integers), classad, tsv, table\n"},
    {AO_BYTES, "  --bytes K           each partner also sends K bytes to the root: the\n"
              "                      LogGPS cost (all partners sharing the root's\n"
              "                      bandwidth) shifts it; above the set's S the\n"
              "                      rendezvous counts its RTT twice (suffix k, M, G)\n"},
    {AO_LOGGPS, "  --loggps SET        LogGPS set for --bytes: myrinet, fast-ethernet\n"
               "                      (default: [advisor] loggps) or a file (see\n"
               "                      gridtail loggps --help)\n"},
    {AO_SITE_BW, "  --site-bandwidths F with --bytes: sites' uplinks and downlinks ('NAME\n"
                "                      UP_MBps [DOWN_MBps]' per line; default [advisor]\n"
                "                      site_bandwidths): the messages' wire time is\n"
                "                      simulated over them, max-min shared\n"},
    {AO_THREADS, "  --threads N         threads (default: one per CPU, at most 8)\n"},
};

static const char procs_usage[] =
    "A SITE may carry a process count, SITE:PROCS; a site running more than\n"
    "one process adds its intra-site latency (the median of its samples to\n"
    "itself, else [advisor] intra_site_ms).\n";

static const struct option adv_options[] = {
    {"help", no_argument, NULL, 'h'}, {"window", required_argument, NULL, AO_WINDOW},
    {"model", required_argument, NULL, AO_MODEL}, {"at", required_argument, NULL, AO_AT},
    {"compute", required_argument, NULL, AO_COMPUTE},
    {"iterations", required_argument, NULL, AO_ITER},
    {"quantile", required_argument, NULL, AO_QUANT},
    {"skip-missing", no_argument, NULL, AO_SKIP}, {"json", no_argument, NULL, AO_JSON},
    {"format", required_argument, NULL, AO_FORMAT}, {"root", required_argument, NULL, AO_ROOT},
    {"sites", required_argument, NULL, AO_SITES},
    {"candidates", required_argument, NULL, AO_CANDS},
    {"pool", required_argument, NULL, AO_POOL}, {"pool-file", required_argument, NULL, AO_POOLFILE},
    {"size", required_argument, NULL, AO_SIZE}, {"top", required_argument, NULL, AO_TOP},
    {"exact-limit", required_argument, NULL, AO_EXACT},
    {"threads", required_argument, NULL, AO_THREADS},
    {"compute-from", required_argument, NULL, AO_COMPUTE_FROM},
    {"bytes", required_argument, NULL, AO_BYTES}, {"loggps", required_argument, NULL, AO_LOGGPS},
    {"site-bandwidths", required_argument, NULL, AO_SITE_BW},
    {"calibration", required_argument, NULL, AO_CALIB},
    {"calibrate", no_argument, NULL, AO_CALIBRATE},
    {"cut", required_argument, NULL, AO_CUT}, {"symmetric", no_argument, NULL, AO_SYMMETRIC},
    {"objective", required_argument, NULL, AO_OBJECTIVE},
    {"loss", required_argument, NULL, AO_LOSS}, {"max-loss", required_argument, NULL, AO_MAX_LOSS},
    {"fallback", required_argument, NULL, AO_FALLBACK},
    {"horizon", required_argument, NULL, AO_HORIZON},
    {"map", required_argument, NULL, AO_MAP}, {"statistic", required_argument, NULL, AO_STAT},
    {"unit", required_argument, NULL, AO_UNIT}, {"name", required_argument, NULL, AO_KNAME},
    {"namespace", required_argument, NULL, AO_NSPACE},
    {"configmap", required_argument, NULL, AO_CONFIGMAP},
    {"update", no_argument, NULL, AO_UPDATE},
    {NULL, 0, NULL, 0}};

static bool parse_list_q(const char *s, double *q, size_t *nq)
{
    *nq = 0;
    while (*s) {
        size_t n = strcspn(s, ",");
        if (*nq == 32 || !gt_parse_double(s, n, &q[*nq]) || !(q[*nq] > 0 && q[*nq] < 1))
            return false;
        (*nq)++;
        s += n + (s[n] == ',');
    }
    return *nq > 0;
}

static int set_model(struct adv_args *a, const char *cmd, const char *v)
{
    if (gt_advice_set_model(&a->ad, v))
        return -1;
    return gt_cli_usage_error(cmd, "--model: '%s' is not auto, pareto, normal, last, "
                              "empirical, adaptive or combined", v);
}

static int set_format(struct adv_args *a, const struct adv_cmd *ac, const char *v)
{
    static const char *const names[] = {"table", "json", "gridway", "classad", "tsv", NULL};
    int i = gt_opt_choice(ac->name, "--format", v, ac->formats ? ac->formats : names);
    if (i < 0)
        return GT_EXIT_USAGE;
    if (ac->formats)
        a->format = i;
    else
        a->fmt = (enum adv_out)i;
    return -1;
}

static int set_number(const char *cmd, const char *opt, const char *v, double lo, double *out)
{
    if (gt_parse_double(v, strlen(v), out) && isfinite(*out) && *out >= lo)
        return -1;
    return gt_cli_usage_error(cmd, "%s: '%s' is not a number >= %g", opt, v, lo);
}

/* --bytes over site links: the sites file, loaded once per process. */
static struct gt_topology site_table;

static void free_site_table(void)
{
    gt_topology_free(&site_table);
}

static int load_site_table(const char *path, const struct gt_topology **out)
{
    struct gt_error err = {0};
    int rc = gt_topology_sites(path, &site_table, &err);
    if (rc)
        return gt_cli_fail(&err, rc);
    atexit(free_site_table);
    *out = &site_table;
    return -1;
}

/* --compute-from: fit the classic extrapolation model once. */
static int compute_from(struct adv_args *a, const char *cmd, const char *path)
{
    double n[64], t[64];
    size_t m = 0;
    int code = gt_read_points(path, n, t, 64, &m);
    if (code != GT_EXIT_OK)
        return code;
    struct gt_error err = {0};
    if (gt_advice_compute_from(&a->ad, n, t, m, &err) != GT_OK) {
        fprintf(stderr, "gridtail %s: --compute-from %s: %s\n", cmd, path, err.msg);
        return GT_EXIT_INPUT;
    }
    return -1;
}

/* The usage of ac, then the shared options it takes. */
static int adv_usage(const struct adv_cmd *ac)
{
    fputs(ac->usage, stdout);
    fputs("Options:\n", stdout);
    for (size_t i = 0; i < sizeof adv_help / sizeof adv_help[0]; i++) {
        /* a command with --format names of its own describes them in its
         * usage: the output formats' line would contradict it */
        if (adv_help[i].opt == AO_FORMAT && ac->formats)
            continue;
        if (ac->takes & OPT(adv_help[i].opt))
            fputs(adv_help[i].help, stdout);
    }
    if (ac->takes & TAKES_PROCS)
        fputs(procs_usage, stdout);
    return gt_cli_help("");
}

/* Parse the options; returns -1 to go on, else an exit code. */
int adv_parse(struct gt_cli *cli, const struct adv_cmd *ac, int argc, char **argv,
                     struct adv_args *a)
{
    const char *cmd = ac->name;
    gt_advice_defaults(&a->ad, &cli->cfg, (int64_t)time(NULL));
    a->format = -1;
    a->top = -1;
    a->exact_limit = 1e5;
    const char *site_bw = cli->cfg.site_bandwidths;
    long v;
    double d;
    int c, code = -1, at = -1;
    optind = 1;
    while (code < 0 && (c = getopt_long(argc, argv, "h", adv_options, &at)) != -1) {
        if (c >= AO_WINDOW && !(ac->takes & OPT(c)))
            return gt_cli_usage_error(cmd, "--%s is not an option of %s", adv_options[at].name,
                                      cmd);
        switch (c) {
        case 'h': return adv_usage(ac);
        case AO_WINDOW:
            if (!gt_opt_long(cmd, "--window", optarg, 2, 1000000, &v))
                return GT_EXIT_USAGE;
            a->ad.o.window = (size_t)v;
            break;
        case AO_MODEL: code = set_model(a, cmd, optarg); break;
        case AO_FORMAT: code = set_format(a, ac, optarg); break;
        case AO_MAP: a->map = optarg; break;
        case AO_STAT: a->statistic = optarg; break;
        case AO_UNIT: a->unit = optarg; break;
        case AO_KNAME: a->kname = optarg; break;
        case AO_NSPACE: a->nspace = optarg; break;
        case AO_CONFIGMAP: a->configmap = optarg; break;
        case AO_UPDATE: a->update = true; break;
        case AO_CALIBRATE: a->calibrate = true; break;
        case AO_CUT:
            if (!gt_advice_set_cut(&a->ad, optarg))
                return gt_cli_usage_error(cmd, "--cut: '%s' is not censor or paper", optarg);
            break;
        case AO_JSON: a->fmt = AOUT_JSON; break;
        case AO_AT:
            if (!gt_opt_time(cmd, "--at", optarg, &a->ad.o.at))
                return GT_EXIT_USAGE;
            break;
        case AO_COMPUTE: code = set_number(cmd, "--compute", optarg, 0, &a->ad.o.compute_ms); break;
        case AO_ITER:
            if (!gt_opt_long(cmd, "--iterations", optarg, 1, 1000000000, &a->ad.o.iterations))
                return GT_EXIT_USAGE;
            break;
        case AO_QUANT:
            if (!parse_list_q(optarg, a->ad.q, &a->ad.o.nq))
                return gt_cli_usage_error(cmd, "--quantile: '%s' is not a list of numbers "
                                          "in (0, 1)", optarg);
            break;
        case AO_SKIP: a->ad.o.skip_missing = true; break;
        case AO_SYMMETRIC: a->ad.o.symmetric = true; break;
        case AO_LOSS:
            v = gt_opt_choice(cmd, "--loss", optarg,
                              (const char *const[]){"model", "ignore", NULL});
            if (v < 0)
                return GT_EXIT_USAGE;
            a->ad.o.loss_ignore = v == 1;
            break;
        case AO_MAX_LOSS:
            if (!gt_opt_double(cmd, "--max-loss", optarg, 0, 1, &a->ad.o.max_loss))
                return GT_EXIT_USAGE;
            break;
        case AO_FALLBACK:
            v = gt_opt_choice(cmd, "--fallback", optarg,
                              (const char *const[]){"empirical", "none", NULL});
            if (v < 0)
                return GT_EXIT_USAGE;
            a->ad.o.fallback_empirical = v == 0;
            break;
        case AO_CALIB: {
            long w;
            if (!gt_opt_long(cmd, "--calibration", optarg, 0, GT_CALIB_MAX_OUTCOMES, &w))
                return GT_EXIT_USAGE;
            a->ad.o.cal_outcomes = (size_t)w;
            break;
        }
        case AO_HORIZON: {
            int64_t secs;
            if (!gt_parse_duration(optarg, &secs) || secs < 1 ||
                secs > (int64_t)GT_ADAPT_MAX_HORIZON_S)
                return gt_cli_usage_error(cmd, "--horizon: '%s' is not a duration of 1 s to 30 "
                                          "days (90s, 10m, 2h, 1d)", optarg);
            gt_advice_set_horizon(&a->ad, (double)secs);
            break;
        }
        case AO_OBJECTIVE:
            if (!gt_advice_set_objective(&a->ad, optarg))
                return gt_cli_usage_error(cmd, "--objective: '%s' is not mean or pNN (p99, "
                                          "p99.9, ...)", optarg);
            break;
        case AO_ROOT: a->root = optarg; break;
        case AO_SITES: a->sites = optarg; break;
        case AO_CANDS: a->candidates = optarg; break;
        case AO_POOL: a->pool = optarg; break;
        case AO_POOLFILE: a->pool_file = optarg; break;
        case AO_SIZE:
            if (!gt_opt_long(cmd, "--size", optarg, 1, 256, &a->size))
                return GT_EXIT_USAGE;
            break;
        case AO_TOP:
            if (!gt_opt_long(cmd, "--top", optarg, 1, 1000000, &a->top))
                return GT_EXIT_USAGE;
            break;
        case AO_EXACT: code = set_number(cmd, "--exact-limit", optarg, 0, &a->exact_limit);
            d = a->exact_limit;
            (void)d;
            break;
        case AO_COMPUTE_FROM: code = compute_from(a, cmd, optarg); break;
        case AO_BYTES:
            if (!gt_opt_bytes(cmd, "--bytes", optarg, &a->ad.o.bytes))
                return GT_EXIT_USAGE;
            break;
        case AO_LOGGPS: a->ad.loggps_spec = optarg; break;
        case AO_SITE_BW: site_bw = optarg; break;
        case AO_THREADS:
            if (!gt_opt_long(cmd, "--threads", optarg, 1, GT_ADV_MAX_THREADS, &a->ad.o.threads))
                return GT_EXIT_USAGE;
            break;
        default: return gt_cli_usage_error(cmd, "bad option");
        }
    }
    if (code >= 0)
        return code;
    if (optind < argc)
        return gt_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    struct gt_error err = {0};
    int rc = gt_advice_finish(&a->ad, &err);
    if (rc)
        return gt_cli_fail(&err, rc);
    if (a->ad.o.bytes > 0 && site_bw[0] && (code = load_site_table(site_bw, &a->ad.o.sites)) >= 0)
        return code;
    return -1;
}

/* The advisor's stop hook on the command line: Ctrl-C (or SIGTERM) ends
 * a rank or place search with the best it has, as a request's time
 * budget does in the server; a second Ctrl-C ends the process. */
static const char *interrupted(void *ctx)
{
    (void)ctx;
    return gt_interrupted() ? "interrupted (Ctrl-C): the best of the sets estimated so far"
                            : NULL;
}

/* After a search: say so when Ctrl-C ended it; the exit code. */
int adv_after_search(int code)
{
    if (!gt_interrupted())
        return code;
    fprintf(stderr, "gridtail: interrupted: the answer is the best of the sets estimated "
            "before Ctrl-C\n");
    return GT_EXIT_INTERRUPTED;
}

/* The progress line of the roots rank and place calibrate before their
 * estimates: drawn from the first report, cleared at the last. */
static void calib_progress(void *ctx, double done, double total)
{
    struct adv_args *a = ctx;
    if (!a->calib.on) {
        gt_progress_start(&a->calib.line, "calibrating", "roots", total);
        a->calib.on = true;
    }
    gt_progress_update(&a->calib.line, done);
    if (done >= total) {
        gt_progress_end(&a->calib.line);
        a->calib.on = false;
    }
}

struct gt_advisor *adv_open(struct gt_cli *cli, struct adv_args *a,
                            struct gt_db **db, int *code)
{
    gt_interrupt_catch();
    a->ad.o.stop = interrupted;
    a->ad.o.stop_ctx = NULL;
    a->ad.o.calib_progress = calib_progress;
    a->ad.o.calib_progress_ctx = a;
    struct gt_error err = {0};
    struct gt_advisor *adv = gt_advice_open(cli->db_path, cli->cfg.busy_timeout_ms, &a->ad, db,
                                            &err);
    if (!adv)
        *code = gt_cli_fail(&err, err.code ? err.code : GT_EIO);
    return adv;
}

void adv_close(struct gt_advisor *adv, struct gt_db *db)
{
    struct gt_error err = {0};
    if (gt_advice_close(adv, db, true, &err) != GT_OK)
        fprintf(stderr, "gridtail: note: fits not cached: %s\n", err.msg);
}


int adv_read_pool(const char *path, struct gt_site_list *l)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "gridtail: %s: %s\n", path, strerror(errno));
        return GT_EXIT_IO;
    }
    char line[1024];
    struct gt_lines in;
    gt_lines_init(&in, f, path, 0);
    struct gt_error err = {0};
    int code = GT_EXIT_OK, got;
    while (code == GT_EXIT_OK && (got = gt_lines_next(&in, line, sizeof line, &err)) != 0) {
        if (got < 0) {
            gt_error_print(&err, got);
            code = gt_exit_code(got == GT_ETOOBIG ? GT_EINPUT : got);
            break;
        }
        const char *p = line, *why;
        size_t len = strcspn(line, "#");
        gt_trim_span(&p, &len);
        if (len && !gt_sites_add(l, p, len, &why)) {
            fprintf(stderr, "gridtail: %s: %s\n", in.where, why);
            code = GT_EXIT_INPUT;
        }
    }
    fclose(f);
    return code;
}

