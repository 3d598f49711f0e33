/*
 * cmd_advise.c - `gridtail estimate`, `gridtail rank`, `gridtail place`:
 * the advisor on the command line, with output for people (a table) and
 * for brokers (--json, --format gridway|classad|tsv); `export-topology`,
 * its pair costs for the schedulers that read a matrix.
 */
#define _POSIX_C_SOURCE 200809L
#include "advisor/advice.h"
#include "advisor/events.h"
#include "advisor/exports.h"
#include "advisor/pairfits.h"
#include "advisor/rootcache.h"
#include "cli.h"
#include "plot/plot.h"
#include "base/interrupt.h"
#include "base/jsonout.h"
#include "base/progress.h"
#include "base/util.h"
#include "db/query.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <threads.h>
#include <time.h>

enum out_format { OUT_TABLE, OUT_JSON, OUT_GRIDWAY, OUT_CLASSAD, OUT_TSV };

enum { O_WINDOW = 300, O_MODEL, O_AT, O_COMPUTE, O_ITER, O_QUANT, O_SKIP, O_JSON, O_FORMAT,
       O_ROOT, O_SITES, O_CANDS, O_POOL, O_POOLFILE, O_SIZE, O_TOP, O_EXACT,
       O_THREADS, O_COMPUTE_FROM, O_BYTES, O_LOGGPS, O_SITE_BW, O_CUT, O_SYMMETRIC,
       O_OBJECTIVE, O_LOSS, O_MAX_LOSS, O_FALLBACK, O_HORIZON, O_MAP, O_STAT, O_UNIT,
       O_KNAME, O_NSPACE, O_CONFIGMAP, O_UPDATE, O_CALIB, O_CALIBRATE };

/* The options the advisor's commands share, each with its --help lines;
 * a command takes some of them (struct adv_cmd) and refuses the others. */
static const struct {
    int opt;
    const char *help;
} adv_help[] = {
    {O_WINDOW, "  --window M          samples per pair fit (config [estimate] window)\n"},
    {O_MODEL, "  --model auto|pareto|normal|last|empirical|adaptive|combined\n"
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
    {O_HORIZON, "  --horizon D         adaptive, combined: how far ahead the job runs,\n"
                "                      e.g. 90s, 10m, 2h (default: with --iterations the\n"
                "                      job's length at the collective's last observed\n"
                "                      time, else [advisor] horizon_s, 600)\n"},
    {O_CALIB, "  --calibration W     the quantiles answered are the model's calibrated by\n"
              "                      the root's own misses over the last W moments,\n"
              "                      --horizon ahead (docs/METHOD.md section 5; default\n"
              "                      [advisor] calibration_outcomes, 3000; 0: the model's\n"
              "                      own)\n"},
    {O_CALIBRATE, "  --calibrate         also keep each root's calibration (default [advisor]\n"
                  "                      refit_calibration, 0)\n"},
    {O_FALLBACK, "  --fallback empirical|none\n"
                 "                      with auto, a pair whose selected fit would change\n"
                 "                      the answer (its verdict: quantiles off, mass below\n"
                 "                      0 ms, no finite index) takes the other fit, and one\n"
                 "                      whose two fits both would its samples as they are,\n"
                 "                      with a warning (empirical, the default: [advisor]\n"
                 "                      fallback_empirical); none keeps the selected fit\n"},
    {O_AT, "  --at TIME           use samples up to TIME (default: now)\n"},
    {O_CUT, "  --cut censor|paper  a fitted alpha <= 1 has no mean; E[max] is cut at\n"
            "                      x0 = k m^(1/alpha): censor (default) E[min(max, x0)],\n"
            "                      never below the partners' minima; paper: eq. 12 as\n"
            "                      written, the mass beyond x0 dropped (docs/METHOD.md)\n"},
    {O_COMPUTE, "  --compute C         compute time per iteration, ms\n"},
    {O_COMPUTE_FROM, "  --compute-from F    compute time per iteration measured at a few process\n"
                     "                      counts ('n ms' per line), extrapolated to each\n"
                     "                      placement's processes (1 + the partners'); the\n"
                     "                      classic model of `gridtail extrapolate`\n"},
    {O_ITER, "  --iterations I      also the job time I x (C + E[max])\n"},
    {O_QUANT, "  --quantile Q,...    quantiles of the collective time (0.5,0.9,0.99)\n"},
    {O_SKIP, "  --skip-missing      leave out partners without samples (a warning)\n"},
    {O_LOSS, "  --loss model|ignore a lost probe is a lost message, resent after the\n"
             "                      retransmission timeout ([advisor] rto_ms, 200),\n"
             "                      doubling per retry (model, the default); ignore: the\n"
             "                      paper's way, lost samples only take the previous value\n"},
    {O_MAX_LOSS, "  --max-loss P        rank and place leave out partners whose window lost\n"
                 "                      more than P (default [advisor] max_loss, 0.10);\n"
                 "                      estimate warns\n"},
    {O_OBJECTIVE, "  --objective mean|pNN  rank and place by compute + E[max] (mean, the\n"
                  "                      default) or + that quantile of the collective time\n"
                  "                      (p99: the time 99% of collectives stay under)\n"},
    {O_SYMMETRIC, "  --symmetric         a pair A -> B without samples takes B -> A's (an RTT\n"
                  "                      is a round trip), with a warning ([advisor]\n"
                  "                      assume_symmetric)\n"},
    {O_JSON, "  --json              JSON (see docs/ADVISOR.md for the fields)\n"},
    {O_FORMAT, "  --format F          gridway (KEY=value, integers), classad, tsv, table\n"},
    {O_BYTES, "  --bytes K           each partner also sends K bytes to the root: the\n"
              "                      LogGPS cost (all partners sharing the root's\n"
              "                      bandwidth) shifts it; above the set's S the\n"
              "                      rendezvous counts its RTT twice (suffix k, M, G)\n"},
    {O_LOGGPS, "  --loggps SET        LogGPS set for --bytes: myrinet, fast-ethernet\n"
               "                      (default: [advisor] loggps) or a file (see\n"
               "                      gridtail loggps --help)\n"},
    {O_SITE_BW, "  --site-bandwidths F with --bytes: sites' uplinks and downlinks ('NAME\n"
                "                      UP_MBps [DOWN_MBps]' per line; default [advisor]\n"
                "                      site_bandwidths): the messages' wire time is\n"
                "                      simulated over them, max-min shared\n"},
    {O_THREADS, "  --threads N         threads (default: one per CPU, at most 8)\n"},
};

static const char procs_usage[] =
    "A SITE may carry a process count, SITE:PROCS; a site running more than\n"
    "one process adds its intra-site latency (the median of its samples to\n"
    "itself, else [advisor] intra_site_ms).\n";

/* A command of this file: its name, its own usage text and the options
 * of adv_options it takes, a bit per O_ code (its own ones, described in
 * its usage, and the shared ones of adv_help).  Any other is refused, so
 * that no option is accepted and then ignored. */
struct adv_cmd {
    const char *name, *usage;
    uint64_t takes;
    const char *const *formats;   /* --format's own names (NULL: the output formats) */
};

#define OPT(o) (UINT64_C(1) << ((o) - O_WINDOW))
/* what a fit of a window takes */
#define TAKES_FIT (OPT(O_WINDOW) | OPT(O_MODEL) | OPT(O_HORIZON) | OPT(O_CUT))
/* what a question about a placement takes */
#define TAKES_ASK (TAKES_FIT | OPT(O_FALLBACK) | OPT(O_AT) | OPT(O_COMPUTE) | \
                   OPT(O_COMPUTE_FROM) | OPT(O_ITER) | OPT(O_QUANT) | OPT(O_SKIP) | OPT(O_LOSS) | \
                   OPT(O_MAX_LOSS) | OPT(O_OBJECTIVE) | OPT(O_SYMMETRIC) | OPT(O_BYTES) | \
                   OPT(O_LOGGPS) | OPT(O_SITE_BW) | OPT(O_CALIB))
#define TAKES_OUT (OPT(O_JSON) | OPT(O_FORMAT))
#define TAKES_PROCS (OPT(O_SITES) | OPT(O_CANDS) | OPT(O_POOL) | OPT(O_POOLFILE))

struct adv_args {
    struct gt_advice ad;
    enum out_format fmt;
    /* command specific */
    const char *root, *sites, *candidates, *pool, *pool_file;
    long size, top;
    double exact_limit;
    int format;                   /* index in adv_cmd.formats, -1 none */
    const char *map, *statistic, *unit, *kname, *nspace, *configmap;
    bool update;
    bool calibrate;               /* refit --calibrate */
    struct {                      /* rank's and place's roots calibrated */
        struct gt_progress line;
        bool on;
    } calib;
};

static const struct option adv_options[] = {
    {"help", no_argument, NULL, 'h'}, {"window", required_argument, NULL, O_WINDOW},
    {"model", required_argument, NULL, O_MODEL}, {"at", required_argument, NULL, O_AT},
    {"compute", required_argument, NULL, O_COMPUTE},
    {"iterations", required_argument, NULL, O_ITER},
    {"quantile", required_argument, NULL, O_QUANT},
    {"skip-missing", no_argument, NULL, O_SKIP}, {"json", no_argument, NULL, O_JSON},
    {"format", required_argument, NULL, O_FORMAT}, {"root", required_argument, NULL, O_ROOT},
    {"sites", required_argument, NULL, O_SITES},
    {"candidates", required_argument, NULL, O_CANDS},
    {"pool", required_argument, NULL, O_POOL}, {"pool-file", required_argument, NULL, O_POOLFILE},
    {"size", required_argument, NULL, O_SIZE}, {"top", required_argument, NULL, O_TOP},
    {"exact-limit", required_argument, NULL, O_EXACT},
    {"threads", required_argument, NULL, O_THREADS},
    {"compute-from", required_argument, NULL, O_COMPUTE_FROM},
    {"bytes", required_argument, NULL, O_BYTES}, {"loggps", required_argument, NULL, O_LOGGPS},
    {"site-bandwidths", required_argument, NULL, O_SITE_BW},
    {"calibration", required_argument, NULL, O_CALIB},
    {"calibrate", no_argument, NULL, O_CALIBRATE},
    {"cut", required_argument, NULL, O_CUT}, {"symmetric", no_argument, NULL, O_SYMMETRIC},
    {"objective", required_argument, NULL, O_OBJECTIVE},
    {"loss", required_argument, NULL, O_LOSS}, {"max-loss", required_argument, NULL, O_MAX_LOSS},
    {"fallback", required_argument, NULL, O_FALLBACK},
    {"horizon", required_argument, NULL, O_HORIZON},
    {"map", required_argument, NULL, O_MAP}, {"statistic", required_argument, NULL, O_STAT},
    {"unit", required_argument, NULL, O_UNIT}, {"name", required_argument, NULL, O_KNAME},
    {"namespace", required_argument, NULL, O_NSPACE},
    {"configmap", required_argument, NULL, O_CONFIGMAP},
    {"update", no_argument, NULL, O_UPDATE},
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
        a->fmt = (enum out_format)i;
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
    for (size_t i = 0; i < sizeof adv_help / sizeof adv_help[0]; i++)
        if (ac->takes & OPT(adv_help[i].opt))
            fputs(adv_help[i].help, stdout);
    if (ac->takes & TAKES_PROCS)
        fputs(procs_usage, stdout);
    return gt_cli_help("");
}

/* Parse the options; returns -1 to go on, else an exit code. */
static int parse_adv(struct gt_cli *cli, const struct adv_cmd *ac, int argc, char **argv,
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
        if (c >= O_WINDOW && !(ac->takes & OPT(c)))
            return gt_cli_usage_error(cmd, "--%s is not an option of %s", adv_options[at].name,
                                      cmd);
        switch (c) {
        case 'h': return adv_usage(ac);
        case O_WINDOW:
            if (!gt_opt_long(cmd, "--window", optarg, 2, 1000000, &v))
                return GT_EXIT_USAGE;
            a->ad.o.window = (size_t)v;
            break;
        case O_MODEL: code = set_model(a, cmd, optarg); break;
        case O_FORMAT: code = set_format(a, ac, optarg); break;
        case O_MAP: a->map = optarg; break;
        case O_STAT: a->statistic = optarg; break;
        case O_UNIT: a->unit = optarg; break;
        case O_KNAME: a->kname = optarg; break;
        case O_NSPACE: a->nspace = optarg; break;
        case O_CONFIGMAP: a->configmap = optarg; break;
        case O_UPDATE: a->update = true; break;
        case O_CALIBRATE: a->calibrate = true; break;
        case O_CUT:
            if (!gt_advice_set_cut(&a->ad, optarg))
                return gt_cli_usage_error(cmd, "--cut: '%s' is not censor or paper", optarg);
            break;
        case O_JSON: a->fmt = OUT_JSON; break;
        case O_AT:
            if (!gt_opt_time(cmd, "--at", optarg, &a->ad.o.at))
                return GT_EXIT_USAGE;
            break;
        case O_COMPUTE: code = set_number(cmd, "--compute", optarg, 0, &a->ad.o.compute_ms); break;
        case O_ITER:
            if (!gt_opt_long(cmd, "--iterations", optarg, 1, 1000000000, &a->ad.o.iterations))
                return GT_EXIT_USAGE;
            break;
        case O_QUANT:
            if (!parse_list_q(optarg, a->ad.q, &a->ad.o.nq))
                return gt_cli_usage_error(cmd, "--quantile: '%s' is not a list of numbers "
                                          "in (0, 1)", optarg);
            break;
        case O_SKIP: a->ad.o.skip_missing = true; break;
        case O_SYMMETRIC: a->ad.o.symmetric = true; break;
        case O_LOSS:
            v = gt_opt_choice(cmd, "--loss", optarg,
                              (const char *const[]){"model", "ignore", NULL});
            if (v < 0)
                return GT_EXIT_USAGE;
            a->ad.o.loss_ignore = v == 1;
            break;
        case O_MAX_LOSS:
            if (!gt_opt_double(cmd, "--max-loss", optarg, 0, 1, &a->ad.o.max_loss))
                return GT_EXIT_USAGE;
            break;
        case O_FALLBACK:
            v = gt_opt_choice(cmd, "--fallback", optarg,
                              (const char *const[]){"empirical", "none", NULL});
            if (v < 0)
                return GT_EXIT_USAGE;
            a->ad.o.fallback_empirical = v == 0;
            break;
        case O_CALIB: {
            long w;
            if (!gt_opt_long(cmd, "--calibration", optarg, 0, GT_CALIB_MAX_OUTCOMES, &w))
                return GT_EXIT_USAGE;
            a->ad.o.cal_outcomes = (size_t)w;
            break;
        }
        case O_HORIZON: {
            int64_t secs;
            if (!gt_parse_duration(optarg, &secs) || secs < 1 ||
                secs > (int64_t)GT_ADAPT_MAX_HORIZON_S)
                return gt_cli_usage_error(cmd, "--horizon: '%s' is not a duration of 1 s to 30 "
                                          "days (90s, 10m, 2h, 1d)", optarg);
            gt_advice_set_horizon(&a->ad, (double)secs);
            break;
        }
        case O_OBJECTIVE:
            if (!gt_advice_set_objective(&a->ad, optarg))
                return gt_cli_usage_error(cmd, "--objective: '%s' is not mean or pNN (p99, "
                                          "p99.9, ...)", optarg);
            break;
        case O_ROOT: a->root = optarg; break;
        case O_SITES: a->sites = optarg; break;
        case O_CANDS: a->candidates = optarg; break;
        case O_POOL: a->pool = optarg; break;
        case O_POOLFILE: a->pool_file = optarg; break;
        case O_SIZE:
            if (!gt_opt_long(cmd, "--size", optarg, 1, 256, &a->size))
                return GT_EXIT_USAGE;
            break;
        case O_TOP:
            if (!gt_opt_long(cmd, "--top", optarg, 1, 1000000, &a->top))
                return GT_EXIT_USAGE;
            break;
        case O_EXACT: code = set_number(cmd, "--exact-limit", optarg, 0, &a->exact_limit);
            d = a->exact_limit;
            (void)d;
            break;
        case O_COMPUTE_FROM: code = compute_from(a, cmd, optarg); break;
        case O_BYTES:
            if (!gt_opt_bytes(cmd, "--bytes", optarg, &a->ad.o.bytes))
                return GT_EXIT_USAGE;
            break;
        case O_LOGGPS: a->ad.loggps_spec = optarg; break;
        case O_SITE_BW: site_bw = optarg; break;
        case O_THREADS:
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

/* ------------------------------------------------------------ output */

/* The partners as the input writes them: SITE, or SITE:PROCS when a site
 * runs more than one process.  Whole, however long (a broker places what
 * it reads); "" if out of memory, freed by the caller. */
static char *sites_joined(const struct gt_estimate *e)
{
    struct gt_buf b;
    gt_buf_init(&b, SIZE_MAX);
    int rc = gt_buf_append(&b, "", 0);
    for (size_t i = 0; rc == GT_OK && i < e->n; i++) {
        const struct gt_partner_est *p = &e->partners[i];
        rc = p->procs > 1 ? gt_buf_printf(&b, "%s%s:%ld", i ? "," : "", p->site, p->procs)
                          : gt_buf_printf(&b, "%s%s", i ? "," : "", p->site);
    }
    if (rc != GT_OK)
        gt_buf_free(&b);
    return b.data ? b.data : strdup("");
}

/* The machine formats show the iteration time (the order of rank and
 * place) when there is a compute phase. */
static bool has_compute(const struct adv_args *a)
{
    return a->ad.o.compute_ms > 0 || a->ad.o.compute_extrap;
}

static long long us(double ms)
{
    return isfinite(ms) ? llround(ms * 1000) : -1;
}

static void print_gridway(const struct gt_estimate *e, size_t rank, const struct adv_args *a)
{
    char *sites = sites_joined(e);
    printf("CANDIDATE=%zu ROOT=\"%s\" SITES=\"%s\" PARTNERS=%zu EMAX_US=%lld", rank, e->root,
           sites ? sites : "", e->n, us(e->e_max));
    free(sites);
    for (size_t k = 0; k < e->nq; k++) {
        char name[32];
        gt_advice_q_name(e->q[k], name, sizeof name);
        for (char *p = name; *p; p++)
            *p = *p == '.' ? '_' : (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
        printf(" %s_US=%lld", name, us(e->q_values[k]));
    }
    if (has_compute(a))
        printf(" ITERATION_US=%lld", us(e->iteration_ms));
    if (a->ad.o.iterations)
        printf(" JOB_US=%lld", us(e->job_ms));
    printf(" OBJECTIVE=\"%s\" OBJECTIVE_US=%lld", a->ad.objective, us(e->objective_ms));
    printf(" WINDOW=%zu DATA_AGE_S=%.0f WARNINGS=%zu MODEL=\"%s\"\n", e->window,
           e->data_age_s, e->nwarn, a->ad.model_name);
}

static void print_classad(const struct gt_estimate *e, size_t rank, const struct adv_args *a)
{
    char *sites = sites_joined(e);
    printf("GridtailRank = %zu\nGridtailRoot = \"%s\"\nGridtailSites = \"%s\"\n"
           "GridtailPartners = %zu\nGridtailEmaxMs = %.6f\n", rank, e->root,
           sites ? sites : "", e->n, e->e_max);
    free(sites);
    for (size_t k = 0; k < e->nq; k++) {
        char name[32];
        gt_advice_q_name(e->q[k], name, sizeof name);
        for (char *p = name; *p; p++)
            *p = *p == '.' ? '_' : *p;
        printf("Gridtail%c%sMs = %.6f\n", 'P', name + 1, e->q_values[k]);
    }
    if (has_compute(a))
        printf("GridtailIterationMs = %.6f\n", e->iteration_ms);
    if (a->ad.o.iterations)
        printf("GridtailJobMs = %.3f\n", e->job_ms);
    printf("GridtailObjective = \"%s\"\nGridtailObjectiveMs = %.6f\n", a->ad.objective,
           e->objective_ms);
    printf("GridtailWindow = %zu\nGridtailDataAgeS = %.0f\nGridtailModel = \"%s\"\n"
           "GridtailWarnings = %zu\n-\n", e->window, e->data_age_s, a->ad.model_name, e->nwarn);
}

static void print_tsv_header(const struct adv_args *a)
{
    printf("rank\troot\tsites\tpartners\te_max_ms");
    for (size_t k = 0; k < a->ad.o.nq; k++) {
        char name[32];
        gt_advice_q_name(a->ad.q[k], name, sizeof name);
        printf("\t%s_ms", name);
    }
    printf("%s%s\tobjective\tobjective_ms\twindow\tdata_age_s\tmodel\tmethod\twarnings\n",
           has_compute(a) ? "\titeration_ms" : "", a->ad.o.iterations ? "\tjob_ms" : "");
}

static void print_tsv(const struct gt_estimate *e, size_t rank, const struct adv_args *a)
{
    char *sites = sites_joined(e);
    printf("%zu\t%s\t%s\t%zu\t%.6f", rank, e->root, sites ? sites : "", e->n, e->e_max);
    free(sites);
    for (size_t k = 0; k < e->nq; k++)
        printf("\t%.6f", e->q_values[k]);
    if (has_compute(a))
        printf("\t%.6f", e->iteration_ms);
    if (a->ad.o.iterations)
        printf("\t%.3f", e->job_ms);
    printf("\t%s\t%.6f", a->ad.objective, e->objective_ms);
    printf("\t%zu\t%.0f\t%s\t%s\t%zu\n", e->window, e->data_age_s, a->ad.model_name, e->method,
           e->nwarn);
}

/* --model combined: the weights, and each candidate's recent error. */
static void print_weights(const struct gt_adapt *t)
{
    char num[32], w[32];
    printf("  combined: recent RMSE %s ms; weights over %zu forecasts %ld x %llds ahead (",
           gt_cli_num(num, sizeof num, 3, t->rmse_combined), t->outcomes, t->lead,
           (long long)t->interval);
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        printf("%s%s %s, RMSE %s ms%s", j ? "; " : "", gt_adapt_name(j),
               isnan(t->weight[j]) ? "-" : gt_cli_num(w, sizeof w, 3, t->weight[j]),
               gt_cli_num(num, sizeof num, 3, t->rmse[j]),
               t->left_out >> j & 1 ? ", its forecast now far from the others': left out" : "");
    printf(")\n");
}

/* --model adaptive: the choice and its error bar, and the others'. */
static void print_adapt(const struct gt_estimate *e, const char *asked)
{
    char num[32];
    const struct gt_adapt *t = &e->adapt;
    if (t->chosen < 0) {
        printf("  %s: nothing to %s by yet (answered with auto)\n", asked,
               strcmp(asked, "combined") ? "choose" : "weigh");
        return;
    }
    if (e->model == GT_ADV_COMBINED) {
        print_weights(t);
        return;
    }
    printf("  adaptive: %s, recent RMSE %s ms over %zu forecasts %ld x %llds ahead%s (",
           gt_adapt_name(t->chosen), gt_cli_num(num, sizeof num, 3, t->rmse[t->chosen]),
           t->outcomes, t->lead, (long long)t->interval, t->cached ? ", cached" : "");
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        printf("%s%s %s%s", j ? ", " : "", gt_adapt_name(j),
               gt_cli_num(num, sizeof num, 3, t->rmse[j]),
               t->left_out >> j & 1 ? " (its forecast now far from the others': left out)" : "");
    printf(")\n");
}

/* What the quantiles rest on, and the model's own beside them. */
static void print_calib(const struct gt_estimate *e)
{
    char num[32];
    if (!e->cal.outcomes) {
        printf("  quantiles: the model's (no outcome of this root %ld x %llds ahead to "
               "calibrate on yet)\n", e->cal.lead, (long long)e->cal.interval);
        return;
    }
    printf("  quantiles calibrated on %zu outcomes %ld x %llds ahead (model's:", e->cal.outcomes,
           e->cal.lead, (long long)e->cal.interval);
    for (size_t k = 0; k < e->nq; k++) {
        char name[32];
        gt_advice_q_name(e->q[k], name, sizeof name);
        printf("%s %s %s%s", k ? "," : "", name,
               gt_cli_num(num, sizeof num, 3, e->q_model ? e->q_model[k] : NAN),
               k < GT_BT_MAX_LEVELS && e->cal.ready[k] ? "" : " (too few outcomes: raised only)");
    }
    printf(")\n");
}

static void print_table(const struct gt_estimate *e, size_t rank, const struct adv_args *a)
{
    char age[32];
    gt_format_time(e->data_ts, age, sizeof age);
    if (rank)
        printf("#%zu ", rank);
    printf("root %s, %zu partners; window %zu samples, model %s; data up to %s (%.0f s old)\n",
           e->root, e->n, e->window, a->ad.model_name, age, e->data_age_s);
    char num[32];
    printf("  E[max] = %s ms per collective (%s)", gt_cli_num(num, sizeof num, 3, e->e_max),
           e->method);
    for (size_t k = 0; k < e->nq; k++) {
        char name[32];
        gt_advice_q_name(e->q[k], name, sizeof name);
        printf("%s %s %s", k ? "," : ";", name,
               gt_cli_num(num, sizeof num, 3, e->q_values[k]));
    }
    printf(" ms\n");
    if (e->calibrated && e->nq)
        print_calib(e);
    if (e->adaptive)
        print_adapt(e, a->ad.model_name);
    if (a->ad.o.objective_q > 0)
        printf("  objective %s: %s ms (compute + the %s of the collective time)\n",
               a->ad.objective, gt_cli_num(num, sizeof num, 3, e->objective_ms),
               a->ad.objective);
    if (a->ad.o.bytes > 0)
        printf("  message of %.6g bytes (%s): %.6f ms per partner%s\n", a->ad.o.bytes,
               a->ad.loggps.name, e->message_ms,
               e->rendezvous ? ", rendezvous: each RTT counted twice" : "");
    bool compute = e->compute_ms > 0 || a->ad.o.iterations || a->ad.o.compute_extrap;
    if (compute)
        printf("  per iteration (compute %.3f ms%s%s%s): %.3f ms", e->compute_ms,
               a->ad.compute_model_name ? ", " : "",
               a->ad.compute_model_name ? a->ad.compute_model_name : "",
               a->ad.compute_model_name ? " model at this many processes" : "", e->iteration_ms);
    if (a->ad.o.iterations)
        printf("; %ld iterations: %.3f s", a->ad.o.iterations, e->job_ms / 1000);
    if (compute)
        putchar('\n');
    printf("  %-20s %5s %-9s %-28s %8s %7s %9s %6s %9s\n", "PARTNER", "PROCS", "MODEL",
           "PARAMETERS", "SHIFT_MS", "SAMPLES", "P_SLOWEST", "LOSS%", "LOSS_MS");
    for (size_t i = 0; i < e->n; i++) {
        const struct gt_partner_est *p = &e->partners[i];
        char params[64];
        const char *other = p->other_fit ? " (other fit)" : "";
        if (!strcmp(p->model, "pareto"))
            snprintf(params, sizeof params, "k=%.4g alpha=%.4g%s", p->p[0], p->p[1], other);
        else if (!strcmp(p->model, "normal"))
            snprintf(params, sizeof params, "mu=%.4g sigma=%.4g%s", p->p[0], p->p[1], other);
        else if (!strcmp(p->model, "empirical"))
            snprintf(params, sizeof params, "n=%.0f median=%.4g%s", p->p[1], p->p[0],
                     p->fallback ? " (fallback)" : "");
        else
            snprintf(params, sizeof params, "x=%.4g", p->p[0]);
        char shift[32], cost[32];
        printf("  %-20s %5ld %-9s %-28s %8s %7zu %9s %6.2f %9s\n", p->site, p->procs, p->model,
               params, gt_cli_num(shift, sizeof shift, 3, p->shift_ms), p->samples,
               gt_cli_num(num, sizeof num, 4, p->p_slowest), 100 * p->loss,
               gt_cli_num(cost, sizeof cost, 3, p->loss_cost_ms));
    }
    for (size_t i = 0; i < e->nwarn; i++)
        printf("  warning: %s\n", e->warnings[i]);
}

static void print_one(const struct gt_estimate *e, size_t rank, const struct adv_args *a)
{
    switch (a->fmt) {
    case OUT_GRIDWAY: print_gridway(e, rank ? rank : 1, a); break;
    case OUT_CLASSAD: print_classad(e, rank ? rank : 1, a); break;
    case OUT_TSV: print_tsv(e, rank ? rank : 1, a); break;
    default: print_table(e, rank, a); break;
    }
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
static int after_search(int code)
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

static struct gt_advisor *open_advisor(struct gt_cli *cli, struct adv_args *a,
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

static void close_advisor(struct gt_advisor *adv, struct gt_db *db)
{
    struct gt_error err = {0};
    if (gt_advice_close(adv, db, true, &err) != GT_OK)
        fprintf(stderr, "gridtail: note: fits not cached: %s\n", err.msg);
}

/* ------------------------------------------------------------ estimate */

static const char estimate_usage[] =
    "usage: gridtail estimate --root R --sites A,B[:PROCS],... [OPTIONS]\n"
    "\n"
    "Expected time of one collective rooted at R with partners A, B...:\n"
    "E[max] over the partners of the R<->partner RTT, its quantiles, which\n"
    "partner is most often the slowest, the per-partner models, sample\n"
    "counts and data age, and warnings (stale data, few samples, alpha <= 1\n"
    "cut-off, partners left out).  A pair without samples is an error\n"
    "naming the pair (status 2) unless --skip-missing.\n\n";
static const struct adv_cmd estimate_cmd = {
    "estimate", estimate_usage, TAKES_ASK | TAKES_OUT | OPT(O_ROOT) | OPT(O_SITES), NULL};

int cmd_estimate(struct gt_cli *cli, int argc, char **argv)
{
    struct adv_args a = {0};
    int code = parse_adv(cli, &estimate_cmd, argc, argv, &a);
    if (code >= 0)
        return code;
    if (!a.root || !a.sites)
        return gt_cli_usage_error("estimate", "--root and --sites are required");
    struct gt_site_list sites = {0};
    const char *why;
    if (!gt_sites_parse(&sites, a.sites, &why)) {
        gt_sites_clear(&sites);
        return gt_cli_usage_error("estimate", "--sites: %s", why);
    }
    struct gt_db *db;
    code = GT_EXIT_OK;
    struct gt_advisor *adv = open_advisor(cli, &a, &db, &code);
    if (adv) {
        struct gt_estimate e;
        struct gt_error err = {0};
        int rc = gt_advisor_estimate(adv, a.root, sites.v, sites.n, &e, &err);
        if (rc) {
            code = gt_cli_fail(&err, rc);
        } else if (a.fmt == OUT_JSON) {
            gt_cli_print_json(gt_advice_estimate_json(&e, &a.ad));
        } else {
            if (a.fmt == OUT_TSV)
                print_tsv_header(&a);
            print_one(&e, 0, &a);
        }
        gt_estimate_clear(&e);
        close_advisor(adv, db);
    }
    gt_sites_clear(&sites);
    return code;
}

/* ------------------------------------------------------------ rank */

static int cands_from_json(const char *name, const char *text, size_t len,
                           struct gt_cand_list *l)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    size_t bad;
    const char *why;
    int code = GT_EXIT_OK;
    if (!root) {
        fprintf(stderr, "gridtail: %s:%d: %s\n", name, jerr.line, jerr.text);
        code = GT_EXIT_INPUT;
    } else if (!gt_cands_from_json(l, root, &bad, &why)) {
        fprintf(stderr, "gridtail: %s: [%zu]: %s\n", name, bad, why);
        code = GT_EXIT_INPUT;
    }
    json_decref(root);
    return code;
}

static int cands_from_lines(const char *name, char *text, struct gt_cand_list *l)
{
    long lineno = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        const char *p = line;
        size_t len = strcspn(line, "#");
        gt_trim_span(&p, &len);
        const char *colon = len ? memchr(p, ':', len) : NULL;
        const char *why = NULL;
        if (len && !colon)
            why = "expected 'root: site,site,...'";
        if (len && !why) {
            size_t rl = (size_t)(colon - p);
            const char *rp = p;
            gt_trim_span(&rp, &rl);
            struct gt_candidate *c = rl ? gt_cands_push(l, rp, rl) : NULL;
            if (!c)
                why = rl ? "out of memory" : "empty root";
            char *rest = strndup(colon + 1, len - (size_t)(colon - p) - 1);
            if (!why && (!rest || !gt_sites_parse(&c->sites, rest, &why)) && !why)
                why = "out of memory";
            free(rest);
        }
        if (why) {
            fprintf(stderr, "gridtail: %s:%ld: %s\n", name, lineno, why);
            return GT_EXIT_INPUT;
        }
        line = nl ? nl + 1 : NULL;
    }
    return GT_EXIT_OK;
}

static int read_candidates(const char *path, struct gt_cand_list *l)
{
    const char *name;
    FILE *f = gt_cli_open_input(path, &name);
    if (!f)
        return GT_EXIT_IO;
    struct gt_buf b;
    gt_buf_init(&b, (size_t)64 << 20);
    int rc = gt_buf_read_stream(&b, f);
    gt_cli_close_input(f);
    int code = GT_EXIT_OK;
    if (rc) {
        fprintf(stderr, "gridtail: %s: %s\n", name, rc == GT_ETOOBIG ? "larger than 64 MiB"
                                                                     : "read error");
        code = GT_EXIT_INPUT;
    } else {
        const char *p = b.data + strspn(b.data, " \t\r\n");
        code = *p == '[' ? cands_from_json(name, b.data, b.len, l)
                         : cands_from_lines(name, b.data, l);
        if (code == GT_EXIT_OK && l->n == 0) {
            fprintf(stderr, "gridtail: %s: no candidates\n", name);
            code = GT_EXIT_INPUT;
        }
    }
    gt_buf_free(&b);
    return code;
}

/* A list of answers: JSON (doc, with them as "candidates") or lines. */
static void print_many(const struct gt_estimate *v, size_t n, const struct adv_args *a,
                       json_t *doc)
{
    if (a->fmt == OUT_JSON) {
        gt_cli_print_json(doc);
        return;
    }
    json_decref(doc);
    if (a->fmt == OUT_TSV)
        print_tsv_header(a);
    for (size_t i = 0; i < n; i++)
        print_one(&v[i], i + 1, a);
}

static const char rank_usage[] =
    "usage: gridtail rank --candidates FILE|- [--top K] [OPTIONS]\n"
    "\n"
    "Estimate candidate placements and print them best first: the lowest\n"
    "iteration time, compute + E[max] (with no compute time or one for all,\n"
    "the lowest E[max]).  FILE is a JSON list of {\"root\": R, \"sites\": [\"A\", \"B:4\",\n"
    "{\"site\": \"C\", \"procs\": 2}]} or one 'ROOT: SITE,SITE:PROCS,...' per\n"
    "line ('#' comments).  A candidate with a pair that has no samples is\n"
    "left out with the reason (JSON: \"rejected\").\n\n";
static const struct adv_cmd rank_cmd = {
    "rank", rank_usage, TAKES_ASK | TAKES_OUT | OPT(O_CANDS) | OPT(O_TOP) | OPT(O_THREADS),
    NULL};

int cmd_rank(struct gt_cli *cli, int argc, char **argv)
{
    struct adv_args a = {0};
    int code = parse_adv(cli, &rank_cmd, argc, argv, &a);
    if (code >= 0)
        return code;
    if (!a.candidates)
        return gt_cli_usage_error("rank", "--candidates FILE|- is required");
    struct gt_cand_list l = {0};
    if ((code = read_candidates(a.candidates, &l)) != GT_EXIT_OK) {
        gt_cands_clear(&l);
        return code;
    }
    struct gt_db *db;
    code = GT_EXIT_OK;
    a.ad.o.enforce_max_loss = true;   /* rank leaves lossier partners out */
    struct gt_advisor *adv = open_advisor(cli, &a, &db, &code);
    if (adv) {
        struct gt_rank_answer r;
        struct gt_error err = {0};
        int rc = gt_advice_rank(adv, &l, a.top, &r, &err);
        size_t i;
        json_t *rej;
        if (a.fmt != OUT_JSON)
            json_array_foreach(r.rejected, i, rej)
                fprintf(stderr, "gridtail: candidate %lld (root %s) left out: %s\n",
                        (long long)json_integer_value(json_object_get(rej, "candidate")) + 1,
                        json_string_value(json_object_get(rej, "root")),
                        json_string_value(json_object_get(rej, "reason")));
        if (rc)
            code = gt_cli_fail(&err, rc);
        else
            print_many(r.best, r.nbest, &a, gt_advice_rank_json(adv, &r, &a.ad));
        if (rc == GT_OK && r.ok == 0)
            code = GT_EXIT_INPUT;
        code = after_search(code);
        gt_rank_answer_clear(&r);
        close_advisor(adv, db);
    }
    gt_cands_clear(&l);
    return code;
}

/* ------------------------------------------------------------ place */

static const char place_usage[] =
    "usage: gridtail place --pool A,B,...|--pool-file F --size K [--root R|auto]\n"
    "                      [--top N] [--exact-limit S] [OPTIONS]\n"
    "\n"
    "Choose the K partner sites (and, with --root auto, the default, the\n"
    "root too) from the pool that minimise the objective: compute + E[max]\n"
    "(with one compute time for all: E[max]), or with --objective pNN\n"
    "compute + that quantile of the collective time.  Partners lossier than\n"
    "--max-loss are left out with the reason.  While the number of\n"
    "candidate sets is at most S (default 100000) every set is estimated\n"
    "(search \"exact\"), but for those whose worst partner alone already does\n"
    "worse than the best kept (\"pruned\": a max is at least each of its\n"
    "partners); beyond, each root starts from its K partners with the\n"
    "lowest own quantile at 1 - 1/(K+1), and the 4 best roots then swap the\n"
    "partner most often slowest for one of the 16 best unused ones while\n"
    "the time drops (search \"greedy+swap\").  Pool sites without data for a root are left\n"
    "out with the reason.  --pool-file has one SITE[:PROCS] per line.\n\n";
static const struct adv_cmd place_cmd = {
    "place", place_usage, TAKES_ASK | TAKES_OUT | OPT(O_POOL) | OPT(O_POOLFILE) | OPT(O_SIZE) |
                          OPT(O_ROOT) | OPT(O_TOP) | OPT(O_EXACT) | OPT(O_THREADS),
    NULL};

static int read_pool(const char *path, struct gt_site_list *l)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "gridtail: %s: %s\n", path, strerror(errno));
        return GT_EXIT_IO;
    }
    char line[1024];
    long lineno = 0;
    int code = GT_EXIT_OK;
    while (code == GT_EXIT_OK && fgets(line, sizeof line, f)) {
        lineno++;
        const char *p = line, *why;
        size_t len = strcspn(line, "#\n");
        gt_trim_span(&p, &len);
        if (len && !gt_sites_add(l, p, len, &why)) {
            fprintf(stderr, "gridtail: %s:%ld: %s\n", path, lineno, why);
            code = GT_EXIT_INPUT;
        }
    }
    fclose(f);
    return code;
}

static void place_progress(void *ctx, double done, double total)
{
    struct gt_progress *line = ctx;
    line->total = total;
    gt_progress_update(line, done);
}

int cmd_place(struct gt_cli *cli, int argc, char **argv)
{
    struct adv_args a = {0};
    int code = parse_adv(cli, &place_cmd, argc, argv, &a);
    if (code >= 0)
        return code;
    if (!a.pool == !a.pool_file)
        return gt_cli_usage_error("place", "give --pool or --pool-file");
    if (a.size < 1)
        return gt_cli_usage_error("place", "--size K is required");
    struct gt_site_list pool = {0};
    const char *why;
    if (a.pool && !gt_sites_parse(&pool, a.pool, &why)) {
        gt_sites_clear(&pool);
        return gt_cli_usage_error("place", "--pool: %s", why);
    }
    if (a.pool_file && (code = read_pool(a.pool_file, &pool)) != GT_EXIT_OK) {
        gt_sites_clear(&pool);
        return code;
    }
    code = -1;
    struct gt_db *db;
    a.ad.o.enforce_max_loss = true;
    struct gt_advisor *adv = open_advisor(cli, &a, &db, &code);
    if (adv) {
        code = GT_EXIT_OK;
        struct gt_progress line;
        gt_progress_start(&line, "place: exact search", "sets", 0);
        struct gt_place_opts po = {(size_t)a.size, a.root && strcmp(a.root, "auto") ? a.root : NULL,
                                   a.exact_limit, a.top > 0 ? (size_t)a.top : 1, place_progress,
                                   &line};
        struct gt_place_result r;
        struct gt_error err = {0};
        int64_t t0 = gt_monotonic_ns();
        int rc = gt_advisor_place(adv, pool.v, pool.n, &po, &r, &err);
        gt_progress_end(&line);
        double elapsed = gt_elapsed_ms(t0);
        if (rc) {
            code = gt_cli_fail(&err, rc);
        } else {
            if (a.fmt == OUT_TABLE)
                printf("search: %s, %.0f candidate sets estimated, %.0f left out by their "
                       "bound, %zu pair windows fitted, %zu from the fit cache, %.0f ms\n",
                       r.search, r.evaluated, r.pruned, gt_advisor_fits(adv),
                       gt_advisor_cached_fits(adv), elapsed);
            if (a.fmt == OUT_TABLE)
                for (size_t i = 0; i < r.nexcluded; i++)
                    printf("left out: %s\n", r.excluded[i]);
            print_many(r.best, r.nbest, &a, gt_advice_place_json(adv, &r, elapsed, &a.ad));
        }
        code = after_search(code);
        gt_place_result_clear(&r);
        close_advisor(adv, db);
    }
    gt_sites_clear(&pool);
    return code;
}

/* ------------------------------------------------------------ plot emax */

static const char plot_emax_usage[] =
    "usage: gridtail plot emax --pool A,B,...|--pool-file F --sizes K1..K2\n"
    "                          [--root R|auto] [--exact-limit S] [-o FILE] [OPTIONS]\n"
    "\n"
    "Run `place` for each size K from K1 to K2 (at most 32 sizes, each 1..256)\n"
    "and draw E[max] and the p99 of the collective time of each size's best set\n"
    "against K, each point labelled with its sites: where a larger job stops\n"
    "paying for itself.  The image is written to FILE atomically, or to standard\n"
    "output when that is not a terminal.  It takes the options of place but\n"
    "those of its answer (--size, --top, --quantile, --json, --format).  On a\n"
    "terminal a progress line counts the sizes; Ctrl-C stops after the size in\n"
    "hand and draws the sizes searched before it, with status 130.\n\n";
/* place's options but those of its answer (one best set a size, drawn) */
static const struct adv_cmd plot_emax_cmd = {
    "plot emax", plot_emax_usage, (TAKES_ASK & ~OPT(O_QUANT)) | OPT(O_POOL) | OPT(O_POOLFILE) |
                                  OPT(O_ROOT) | OPT(O_EXACT) | OPT(O_THREADS),
    NULL};

#define PLOT_MAX_SIZES 32

/* "K" or "K1..K2" */
static bool parse_sizes(const char *v, long *lo, long *hi)
{
    char *end;
    *lo = strtol(v, &end, 10);
    if (end == v)
        return false;
    *hi = *lo;
    if (!strncmp(end, "..", 2)) {
        const char *b = end + 2;
        *hi = strtol(b, &end, 10);
        if (end == b)
            return false;
    }
    return !*end && *lo >= 1 && *hi >= *lo && *hi <= 256 && *hi - *lo < PLOT_MAX_SIZES;
}

/* argv without -o/--output FILE and --sizes S, which are taken out */
static int plot_emax_args(int argc, char **argv, char **rest, int *nrest, const char **out,
                          const char **sizes)
{
    *nrest = 0;
    for (int i = 0; i < argc; i++) {
        const char *v = argv[i];
        const char **slot = !strcmp(v, "-o") || !strcmp(v, "--output") ? out
                            : !strcmp(v, "--sizes") ? sizes : NULL;
        if (i > 0 && slot) {
            if (i + 1 >= argc)
                return gt_cli_usage_error("plot emax", "%s needs a value", v);
            *slot = argv[++i];
        } else if (i > 0 && !strncmp(v, "--output=", 9)) {
            *out = v + 9;
        } else if (i > 0 && !strncmp(v, "--sizes=", 8)) {
            *sizes = v + 8;
        } else {
            rest[(*nrest)++] = argv[i];
        }
    }
    rest[*nrest] = NULL;
    return -1;
}

/* index of 0.99 among the quantiles asked, which it is added to */
static size_t want_p99(struct gt_advice *ad)
{
    for (size_t k = 0; k < ad->o.nq; k++)
        if (ad->q[k] == 0.99)
            return k;
    if (ad->o.nq == GT_ADV_MAX_Q)
        ad->o.nq--;
    ad->q[ad->o.nq] = 0.99;
    return ad->o.nq++;
}

/* plot emax's progress line: sizes done, the current one by its sets */
struct emax_progress {
    struct gt_progress line;
    double size_done;
};

static void emax_size_progress(void *ctx, double done, double total)
{
    struct emax_progress *ep = ctx;
    gt_progress_update(&ep->line, ep->size_done + (total > 0 ? fmin(done / total, 1) : 0));
}

/* The best set of each size lo..hi, one placement search each on the
 * same advisor (the pair fits read or fitted once for all sizes; each
 * size estimates the candidates alone again for its bound, cheap beside
 * the search).  Ctrl-C stops after the size in hand, which is left
 * out (its search was cut short): the plot shows the sizes done, and the
 * exit status says 130. */
static int plot_emax_points(struct gt_advisor *adv, const struct adv_args *a,
                            const struct gt_site_list *pool, long lo, long hi, size_t iq,
                            struct gt_plot_emax_point *pts, char **labels)
{
    struct emax_progress ep = {.size_done = 0};
    gt_progress_start(&ep.line, "plot emax", "sizes", (double)(hi - lo + 1));
    int code = GT_EXIT_OK;
    for (long k = lo; k <= hi; k++)
        pts[k - lo] = (struct gt_plot_emax_point){(double)k, NAN, NAN, NULL};
    for (long k = lo; k <= hi && code == GT_EXIT_OK; k++, ep.size_done++) {
        struct gt_place_opts po = {(size_t)k, a->root && strcmp(a->root, "auto") ? a->root : NULL,
                                   a->exact_limit, 1, emax_size_progress, &ep};
        struct gt_place_result r;
        struct gt_error err = {0};
        int rc = gt_advisor_place(adv, pool->v, pool->n, &po, &r, &err);
        if (gt_interrupted()) {
            code = GT_EXIT_INTERRUPTED;
        } else if (rc) {
            code = gt_cli_fail(&err, rc);
        } else if (r.nbest && r.best[0].ok) {
            struct gt_plot_emax_point *p = &pts[k - lo];
            char *joined = sites_joined(&r.best[0]);
            size_t len = strlen(r.best[0].root) + strlen(joined) + 3;
            if ((labels[k - lo] = malloc(len)))
                snprintf(labels[k - lo], len, "%s: %s", r.best[0].root, joined);
            free(joined);
            p->e_max = r.best[0].e_max;
            p->p99 = iq < r.best[0].nq ? r.best[0].q_values[iq] : NAN;
            p->sites = labels[k - lo];
        }
        gt_place_result_clear(&r);
    }
    gt_progress_end(&ep.line);
    if (code == GT_EXIT_INTERRUPTED)
        fprintf(stderr, "gridtail: interrupted: the plot shows the sizes searched before "
                "Ctrl-C\n");
    return code;
}

int gt_cli_plot_emax(struct gt_cli *cli, int argc, char **argv)
{
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    const char *out = NULL, *sizes = NULL;
    int nrest;
    if (!rest)
        return GT_EXIT_IO;
    struct adv_args a = {0};
    int code = plot_emax_args(argc, argv, rest, &nrest, &out, &sizes);
    if (code < 0)
        code = parse_adv(cli, &plot_emax_cmd, nrest, rest, &a);
    free(rest);
    if (code >= 0)
        return code;
    long lo, hi;
    if (!sizes || !parse_sizes(sizes, &lo, &hi))
        return gt_cli_usage_error("plot emax", "--sizes K1..K2 is required: sizes 1 to 256, "
                                  "at most %d of them", PLOT_MAX_SIZES);
    if (!a.pool == !a.pool_file)
        return gt_cli_usage_error("plot emax", "give --pool or --pool-file");
    if (!out && isatty(STDOUT_FILENO))
        return gt_cli_usage_error("plot emax", "an SVG image: give -o FILE or redirect the "
                                  "output");
    struct gt_site_list pool = {0};
    const char *why;
    if (a.pool && !gt_sites_parse(&pool, a.pool, &why)) {
        gt_sites_clear(&pool);
        return gt_cli_usage_error("plot emax", "--pool: %s", why);
    }
    if (a.pool_file && (code = read_pool(a.pool_file, &pool)) != GT_EXIT_OK) {
        gt_sites_clear(&pool);
        return code;
    }
    size_t iq = want_p99(&a.ad);
    a.ad.o.enforce_max_loss = true;
    struct gt_db *db;
    struct gt_advisor *adv = open_advisor(cli, &a, &db, &code);
    struct gt_plot_emax_point pts[PLOT_MAX_SIZES];
    char *labels[PLOT_MAX_SIZES] = {0};
    if (adv) {
        code = plot_emax_points(adv, &a, &pool, lo, hi, iq, pts, labels);
        close_advisor(adv, db);
    }
    bool any = false;
    for (long k = 0; adv && k <= hi - lo; k++)
        any = any || isfinite(pts[k].e_max);
    if (code == GT_EXIT_OK || (code == GT_EXIT_INTERRUPTED && any)) {
        struct gt_buf doc;
        struct gt_error err = {0};
        gt_buf_init(&doc, GT_PLOT_MAX_BYTES);
        int rc = gt_plot_emax(a.root ? a.root : "auto", pts, (size_t)(hi - lo + 1), &doc, &err);
        int done = rc ? gt_cli_fail(&err, rc) : gt_cli_plot_emit(out, &doc);
        code = code == GT_EXIT_INTERRUPTED ? code : done;
        gt_buf_free(&doc);
    }
    for (long k = 0; k <= hi - lo; k++)
        free(labels[k]);
    gt_sites_clear(&pool);
    return code;
}

/* ------------------------------------------------------------ refit */

static const char refit_usage[] =
    "usage: gridtail refit [--window M]\n"
    "                      [--model auto|pareto|normal|adaptive|combined]\n"
    "                      [--horizon D] [--cut censor|paper] [--calibrate]\n"
    "                      [--calibration W] [--quantile Q,...]\n"
    "                      [--fallback empirical|none] [--threads N] [--json]\n"
    "\n"
    "Fit every stored pair's newest window of M samples and keep the fits in\n"
    "the store's fit cache, so that estimate, rank and place read them\n"
    "instead of fitting.  Run it from cron after ingest (gridtail-cron does):\n"
    "ingest drops the cached fits of every site it stores new samples for.\n"
    "Pairs whose cached fit is still current are not fitted again.  The\n"
    "pairs, then the roots' replays below, are shared out over --threads\n"
    "threads (default one per CPU, at most 8), each with its own connection.\n"
    "If another process changes the store meanwhile, the run starts over (at\n"
    "most 3 times; then status 3).  With --model adaptive it also replays\n"
    "each root's collective (all its partners) over the last [advisor]\n"
    "adaptive_outcomes moments, --horizon ahead ([advisor] horizon_s), E[max]\n"
    "cut as --cut says, and keeps the errors and choice of --model adaptive\n"
    "beside the fits; with --model combined, its weights over the last\n"
    "max(500, 16 x lead) moments.  With --calibrate ([advisor]\n"
    "refit_calibration) it also\n"
    "replays each root's collective over the last --calibration W moments and\n"
    "keeps the calibration of the --quantile levels (0.5,0.9,0.99) of\n"
    "--model, --horizon ahead: for all the root's partners, and where\n"
    "[advisor] max_loss leaves some out, for those rank and place take; an\n"
    "answer over either collective with those options then reads it instead\n"
    "of replaying, until a new sample of the root arrives.  Those replays are\n"
    "the costliest part of a refit (docs/BENCHMARKS.md).  The options of a\n"
    "question (--at, --compute, --bytes, --format...) are estimate's, rank's\n"
    "and place's, not refit's.\n\n";
static const struct adv_cmd refit_cmd = {
    "refit", refit_usage,
    TAKES_FIT | OPT(O_CALIBRATE) | OPT(O_CALIB) | OPT(O_QUANT) | OPT(O_FALLBACK) |
        OPT(O_THREADS) | OPT(O_JSON),
    NULL};

struct refit_run {
    size_t fitted, cached, saved;
    bool stale;
    size_t regimes;           /* fits that changed regime */
    size_t event_pairs, events;   /* pairs scanned for events, events found */
};

/* One part of the store's pairs, on its own connection and thread. */
struct refit_part {
    struct gt_db *db;
    struct gt_pairfits *p;
    int part, nparts, rc;
    struct gt_error err;
};

/* Refit's progress line, drawn from the first part's count: the parts
 * share the pairs evenly enough for an estimate of the whole. */
struct refit_progress {
    struct gt_progress line;
    int nparts;
};

static void refit_progress(void *ctx, size_t pairs)
{
    struct refit_progress *rp = ctx;
    gt_progress_update(&rp->line, (double)pairs * rp->nparts);
}

static int refit_part_main(void *arg)
{
    struct refit_part *w = arg;
    w->rc = gt_pairfits_all_part(w->p, w->part, w->nparts, &w->err);
    return 0;
}

/* Fit every pair into p: on n threads, each with its own connection and
 * pairfits made after p's snapshot, their fits then handed to p. */
static int fit_all(struct gt_cli *cli, struct gt_pairfits *p, const struct adv_args *a,
                   enum gt_fit_choice choice, int n, struct refit_progress *rp,
                   struct gt_error *err)
{
    rp->nparts = n > 1 ? n : 1;
    if (n <= 1) {
        gt_pairfits_on_progress(p, refit_progress, rp);
        return gt_pairfits_all(p, err);
    }
    struct refit_part *w = calloc((size_t)n, sizeof *w);
    thrd_t *th = calloc((size_t)n, sizeof *th);
    bool *started = calloc((size_t)n, sizeof *started);
    int rc = w && th && started ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (int i = 0; rc == GT_OK && i < n; i++) {
        w[i].part = i, w[i].nparts = n;
        rc = gt_db_open(cli->db_path, GT_DB_EXISTING, cli->cfg.busy_timeout_ms, &w[i].db, err);
        if (rc == GT_OK &&
            !(w[i].p = gt_pairfits_new(w[i].db, a->ad.o.window, choice, INT64_MAX, err)))
            rc = err->code ? err->code : GT_ENOMEM;
    }
    if (rc == GT_OK)
        gt_pairfits_on_progress(w[0].p, refit_progress, rp);
    for (int i = 0; rc == GT_OK && i < n; i++)
        if (!(started[i] = thrd_create(&th[i], refit_part_main, &w[i]) == thrd_success))
            refit_part_main(&w[i]);   /* no thread: this part here */
    for (int i = 0; w && i < n; i++) {
        if (started && started[i])
            thrd_join(th[i], NULL);
        if (rc == GT_OK && w[i].p && w[i].rc) {
            *err = w[i].err;
            rc = w[i].rc;
        }
        if (rc == GT_OK && w[i].p)
            rc = gt_pairfits_adopt(p, w[i].p, err);
        gt_pairfits_free(w[i].p);
        if (w[i].db)
            gt_db_close(w[i].db);
    }
    free(w);
    free(th);
    free(started);
    return rc;
}

static int refit_once(struct gt_cli *cli, struct gt_db *db, const struct adv_args *a,
                      struct refit_run *run, struct gt_error *err)
{
    enum gt_fit_choice choice = a->ad.o.model == GT_ADV_PARETO ? GT_FIT_PARETO
                              : a->ad.o.model == GT_ADV_NORMAL ? GT_FIT_NORMAL : GT_FIT_AUTO;
    struct gt_pairfits *p = gt_pairfits_new(db, a->ad.o.window, choice, INT64_MAX, err);
    if (!p)
        return err->code ? err->code : GT_ENOMEM;
    struct refit_progress rp;
    long total = 0;
    gt_query_pair_count(db, &total, NULL);
    gt_progress_start(&rp.line, "refit", "pairs", (double)total);
    int rc = fit_all(cli, p, a, choice, gt_advisor_threads(a->ad.o.threads), &rp, err);
    gt_progress_end(&rp.line);
    if (rc == GT_OK && gt_interrupted())   /* Ctrl-C while the last part finished */
        rc = gt_error_set(err, GT_EINTR, NULL, "interrupted");
    if (rc == GT_OK)
        rc = gt_pairfits_save(p, true, &run->saved, &run->stale, err);
    run->fitted = gt_pairfits_fitted(p);
    run->cached = gt_pairfits_cached(p);   /* before the regimes' reads count too */
    struct gt_regimes *regimes = NULL;
    if (rc == GT_OK && !run->stale)
        rc = gt_events_judge_regimes(db, p, &a->ad.o, &regimes, err);
    gt_pairfits_free(p);   /* its snapshot ended: the regimes can be written */
    if (rc == GT_OK && regimes)
        rc = gt_events_note_regimes(db, regimes, (int64_t)time(NULL), &run->regimes, err);
    gt_regimes_free(regimes);
    return rc;
}

/* Every root's tracked errors (--model adaptive or combined) and with calibrate its
 * calibration (unless --calibration 0), replayed and cached. */
static int refit_roots(struct gt_db *db, const struct adv_args *a, bool calibrate,
                       struct gt_rootcache_counts *kept, struct gt_error *err)
{
    struct gt_adapt_opts ao = gt_adv_adapt_opts(&a->ad.o, a->ad.o.horizon_s, NULL, 0);
    ao.at = INT64_MAX;
    double levels[GT_BT_MAX_LEVELS];
    struct gt_calib_opts co = gt_adv_calib_opts(&a->ad.o, a->ad.o.horizon_s, NULL, 0, levels);
    co.at = INT64_MAX;
    struct gt_progress line;
    struct gt_rootcache_opts ro = {&a->ad.o, gt_adv_tracked(a->ad.o.model) ? &ao : NULL,
                                   calibrate ? &co : NULL,
                                   gt_advisor_threads(a->ad.o.threads), &line};
    return gt_rootcache_refresh(db, &ro, kept, err);
}

/* Another host's refit holds the store's refit lock. */
static void refit_waits(const char *name)
{
    (void)name;
    fprintf(stderr, "gridtail refit: another refit of this store is running; waiting for it\n");
}

int cmd_refit(struct gt_cli *cli, int argc, char **argv)
{
    struct adv_args a = {0};
    int code = parse_adv(cli, &refit_cmd, argc, argv, &a);
    if (code >= 0)
        return code;
    if (a.ad.o.model == GT_ADV_LAST || a.ad.o.model == GT_ADV_EMPIRICAL)
        return gt_cli_usage_error("refit", "--model %s needs no fits (it reads the samples)",
                                  a.ad.model_name);
    struct gt_db *db = gt_cli_open_db(cli, GT_DB_EXISTING, &code);
    if (!db)
        return code;
    struct refit_run run = {0};
    struct gt_error err = {0};
    gt_interrupt_catch();
    int64_t t0 = gt_monotonic_ns();
    int rc = gt_db_lock(db, "gridtail refit", refit_waits, &err), attempts = 0;
    while (rc == GT_OK) {
        rc = refit_once(cli, db, &a, &run, &err);
        if (rc || !run.stale || ++attempts >= 3)
            break;
    }
    struct gt_rootcache_counts kept = {0, 0, 0};
    bool fits_saved = rc == GT_OK && !run.stale;
    bool calibrate = (a.calibrate || cli->cfg.refit_calibration) && gt_adv_calibrates(&a.ad.o);
    if (fits_saved)
        rc = refit_roots(db, &a, calibrate, &kept, &err);
    struct gt_event_opts eo = gt_event_opts_of(&cli->cfg);
    if (rc == GT_OK && !run.stale)
        rc = gt_events_record(db, &eo, (int64_t)time(NULL), &run.event_pairs, &run.events,
                              &err);
    double elapsed = gt_elapsed_ms(t0);
    gt_db_close(db);
    if (rc == GT_EINTR) {
        fprintf(stderr, fits_saved ? "gridtail refit: interrupted: the fits are saved, the "
                                     "roots' replays (adaptive, calibration) are not\n"
                                   : "gridtail refit: interrupted: no fits saved, the fit "
                                     "cache is as it was\n");
        return GT_EXIT_INTERRUPTED;
    }
    if (rc)
        return gt_cli_fail(&err, rc);
    if (run.stale) {
        fprintf(stderr, "gridtail refit: the store changed during each of %d attempts; "
                "no fits cached\n", attempts);
        return GT_EXIT_IO;
    }
    if (a.fmt == OUT_JSON)
        gt_cli_print_json(json_pack("{s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, "
                                    "s:{s:I, s:I, s:I}}",
                                    "window", (json_int_t)a.ad.o.window, "model",
                                    a.ad.model_name, "pairs",
                                    (json_int_t)(run.fitted + run.cached), "fitted",
                                    (json_int_t)run.fitted, "already_cached",
                                    (json_int_t)run.cached, "saved", (json_int_t)run.saved,
                                    "roots_tracked", (json_int_t)kept.tracked,
                                    "roots_calibrated", (json_int_t)kept.calibrated,
                                    "calibrations", (json_int_t)kept.calibrations,
                                    "elapsed_ms", elapsed,
                                    "events", "pairs", (json_int_t)run.event_pairs, "found",
                                    (json_int_t)run.events, "regime_changes",
                                    (json_int_t)run.regimes));
    else
        printf("refit: %zu pairs, window %zu, model %s: %zu fitted, %zu already cached, "
               "%zu fits saved", run.fitted + run.cached, a.ad.o.window, a.ad.model_name,
               run.fitted, run.cached, run.saved);
    if (a.fmt != OUT_JSON && a.ad.o.model == GT_ADV_ADAPTIVE)
        printf(", %zu roots' forecast errors tracked %.0f s ahead", kept.tracked,
               a.ad.o.horizon_s);
    if (a.fmt != OUT_JSON && calibrate)
        printf(", %zu roots' quantiles calibrated %.0f s ahead (%zu collectives)",
               kept.calibrated, a.ad.o.horizon_s, kept.calibrations);
    if (a.fmt != OUT_JSON)
        printf(", events of %zu pairs found from their last scan on (%zu; %zu fit regime "
               "changes), %.0f ms\n", run.event_pairs, run.events, run.regimes, elapsed);
    return GT_EXIT_OK;
}

/* ------------------------------------------------------------ export-topology */

static const char export_usage[] =
    "usage: gridtail export-topology --format networktopology|rucio [--map FILE]\n"
    "                                [--statistic pNN|mean] [--unit ms|us] [OPTIONS]\n"
    "\n"
    "Every stored pair's latency as an integer cost, for the schedulers that\n"
    "read a matrix rather than ask (docs/INTEGRATION.md).  A pair's cost is\n"
    "its statistic as `estimate` gives it for the partner alone (the loss\n"
    "model, the fallback and the window as there), rounded; a map groups\n"
    "sites, and two groups take the largest cost of their site pairs.\n"
    "Pairs without an estimate and sites not in the map are left out, and\n"
    "said on stderr.\n"
    "\n"
    "  --format networktopology  a Kubernetes NetworkTopology resource (YAML;\n"
    "                      --json for JSON) for scheduler-plugins' network-aware\n"
    "                      scheduling: zone costs (topology.kubernetes.io/zone),\n"
    "                      and region costs when the map gives regions; without\n"
    "                      --map each site is a zone of its own name\n"
    "  --format rucio      distances between RSEs: rucio-admin commands (--json:\n"
    "                      {distances: [{source, destination, distance, ms}]},\n"
    "                      for the client's add_distance); --map is required\n"
    "  --map FILE          SITE,ZONE[,REGION] lines (networktopology: a site in\n"
    "                      one zone, a zone in one region) or SITE,RSE lines\n"
    "                      (rucio: a site may hold several RSEs); # comments\n"
    "  --statistic S       p99 (the default: the time 99% of round trips stay\n"
    "                      under), any pNN, or mean (E[max] of the pair alone)\n"
    "  --unit ms|us        the cost's unit (default ms; us for sub-ms networks)\n"
    "  --name N            the resource's name (default gridtail)\n"
    "  --namespace NS      its namespace (default default)\n"
    "  --configmap N       its spec.configmapName (default netperf-metrics)\n"
    "  --update            rucio: `rse update-distance` (distances already set)\n"
    "                      instead of `rse add-distance`\n"
    "\n"
    "Limits: at most 1,000 x 1,000 pairs and 1,000 zones, regions or RSEs;\n"
    "a map of at most 100,000 lines of 1,023 bytes.\n\n";

static const char *const export_formats[] = {"networktopology", "rucio", NULL};

static const struct adv_cmd export_cmd = {
    "export-topology", export_usage,
    TAKES_FIT | OPT(O_FALLBACK) | OPT(O_AT) | OPT(O_LOSS) | OPT(O_SYMMETRIC) | OPT(O_THREADS) |
        OPT(O_JSON) | OPT(O_FORMAT) | OPT(O_MAP) | OPT(O_STAT) | OPT(O_UNIT) | OPT(O_KNAME) |
        OPT(O_NSPACE) | OPT(O_CONFIGMAP) | OPT(O_UPDATE),
    export_formats};

/* The options' own checks, into r; -1 to go on, else an exit code. */
static int export_request(struct adv_args *a, struct gt_export_req *r)
{
    const char *cmd = export_cmd.name;
    if (a->format < 0)
        return gt_cli_usage_error(cmd, "--format networktopology or rucio is required");
    r->format = a->format ? GT_EXPORT_RUCIO : GT_EXPORT_NETWORKTOPOLOGY;
    if (r->format == GT_EXPORT_RUCIO && !a->map)
        return gt_cli_usage_error(cmd, "--format rucio needs --map FILE (SITE,RSE lines)");
    if (a->update && r->format != GT_EXPORT_RUCIO)
        return gt_cli_usage_error(cmd, "--update is for --format rucio");
    r->statistic = a->statistic ? a->statistic : "p99";
    if (!gt_advice_set_objective(&a->ad, r->statistic))
        return gt_cli_usage_error(cmd, "--statistic: '%s' is not mean or pNN (p50, p99, "
                                  "p99.9, ...)", r->statistic);
    r->unit = a->unit ? a->unit : "ms";
    int unit = gt_opt_choice(cmd, "--unit", r->unit, (const char *const[]){"ms", "us", NULL});
    if (unit < 0)
        return GT_EXIT_USAGE;
    r->scale = unit == 1 ? 1000 : 1;
    r->name = a->kname ? a->kname : "gridtail";
    r->nspace = a->nspace ? a->nspace : "default";
    r->configmap = a->configmap ? a->configmap : "netperf-metrics";
    r->weights = "UserDefined";
    if (!gt_export_dns_subdomain(r->name))
        return gt_cli_usage_error(cmd, "--name: '%s' is not a Kubernetes object name (a DNS "
                                  "subdomain: lower-case letters, digits, - and .)", r->name);
    if (!gt_export_dns_label(r->nspace))
        return gt_cli_usage_error(cmd, "--namespace: '%s' is not a DNS label (lower-case "
                                  "letters, digits and -, at most 63)", r->nspace);
    if (!gt_export_dns_subdomain(r->configmap))
        return gt_cli_usage_error(cmd, "--configmap: '%s' is not a ConfigMap name (a DNS "
                                  "subdomain)", r->configmap);
    r->window = a->ad.o.window;
    r->at = a->ad.o.at;
    return -1;
}

static void export_report(const struct gt_export_report *rep)
{
    if (rep->missing) {
        fprintf(stderr, "gridtail export-topology: %zu of %zu pairs without an estimate, "
                "left out:\n", rep->missing, rep->pairs);
        for (size_t i = 0; i < rep->missing && i < GT_EXPORT_NAMED; i++)
            fprintf(stderr, "  %s\n", rep->missing_named[i]);
        if (rep->missing > GT_EXPORT_NAMED)
            fprintf(stderr, "  and %zu more\n", rep->missing - GT_EXPORT_NAMED);
    }
    if (rep->unmapped_sites) {
        fprintf(stderr, "gridtail export-topology: %zu sites not in --map, left out:",
                rep->unmapped_sites);
        for (size_t i = 0; i < rep->unmapped_sites && i < GT_EXPORT_NAMED; i++)
            fprintf(stderr, " %s", rep->unmapped_named[i]);
        fprintf(stderr, "%s\n", rep->unmapped_sites > GT_EXPORT_NAMED ? " ..." : "");
    }
}

/* Rucio's distances as rucio-admin commands (RSE names are shell-safe:
 * gt_export_rse_name). */
static void print_rucio(const json_t *doc, bool update)
{
    printf("# gridtail export-topology --format rucio: %s RTT in %s, window %lld, at %s\n",
           json_string_value(json_object_get(doc, "statistic")),
           json_string_value(json_object_get(doc, "unit")),
           (long long)json_integer_value(json_object_get(doc, "window")),
           json_string_value(json_object_get(doc, "at")));
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(doc, "distances"), i, d)
        printf("rucio-admin rse %s --distance %lld %s %s\n",
               update ? "update-distance" : "add-distance",
               (long long)json_integer_value(json_object_get(d, "distance")),
               json_string_value(json_object_get(d, "source")),
               json_string_value(json_object_get(d, "destination")));
}

static int print_export(json_t *doc, const struct adv_args *a, enum gt_export_format f)
{
    if (a->fmt == OUT_JSON) {
        gt_cli_print_json(doc);
        return GT_EXIT_OK;
    }
    if (f == GT_EXPORT_RUCIO) {
        print_rucio(doc, a->update);
        json_decref(doc);
        return GT_EXIT_OK;
    }
    struct gt_buf b;
    gt_buf_init(&b, SIZE_MAX);
    int rc = gt_yaml_write(&b, doc);
    json_decref(doc);
    if (rc == GT_OK)
        fwrite(b.data, 1, b.len, stdout);
    gt_buf_free(&b);
    if (rc != GT_OK) {
        fprintf(stderr, "gridtail export-topology: %s\n", gt_strerror(rc));
        return GT_EXIT_IO;
    }
    return GT_EXIT_OK;
}

int cmd_export_topology(struct gt_cli *cli, int argc, char **argv)
{
    struct adv_args a = {0};
    struct gt_export_req r = {0};
    int code = parse_adv(cli, &export_cmd, argc, argv, &a);
    if (code >= 0 || (code = export_request(&a, &r)) >= 0)
        return code;
    a.ad.o.nq = 0;   /* the statistic is the objective: no other quantile */
    a.ad.o.detail = GT_ADV_EMAX_ONLY;
    struct gt_export_map map = {0};
    struct gt_error err = {0};
    int rc;
    if (a.map && (rc = gt_export_map_load(a.map, r.format, &map, &err)) != GT_OK)
        return gt_cli_fail(&err, rc);
    r.map = a.map ? &map : NULL;
    struct gt_db *db;
    code = GT_EXIT_OK;
    struct gt_advisor *adv = open_advisor(cli, &a, &db, &code);
    if (adv) {
        json_t *doc;
        struct gt_export_report rep;
        rc = gt_export_build(adv, db, &r, &doc, &rep, &err);
        export_report(&rep);
        code = rc ? gt_cli_fail(&err, rc) : print_export(doc, &a, r.format);
        close_advisor(adv, db);
    }
    gt_export_map_free(&map);
    return gt_interrupted() ? GT_EXIT_INTERRUPTED : code;
}
