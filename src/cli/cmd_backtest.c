/*
 * cmd_backtest.c - `gridtail backtest`: replay the store (advisor/backtest.h) and
 * show how well each forecasting method held, as a table, JSON, CSV or a
 * Markdown report.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "advisor/advice.h"
#include "advisor/backtest.h"
#include "base/interrupt.h"
#include "base/numfmt.h"
#include "base/progress.h"
#include "base/util.h"
#include "estimators/conformal.h"
#include "estimators/tracker.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: gridtail backtest [--root R] [--sites A,B,...] [--window LIST] [--tau LIST]\n"
    "                         [--method LIST] [--horizon H] [--stride N] [--from T] [--to T]\n"
    "                         [--interval D] [--drop-loss P] [--cut censor|paper] [--paper]\n"
    "                         [--no-calibration] [--cal-window W] [--cal-gamma G]\n"
    "                         [--combine-horizon H] [--shrink S] [--tolerance E]\n"
    "                         [--threads N]\n"
    "                         [--json | --csv] [--report FILE] [--moments FILE]\n"
    "\n"
    "Replay the stored history as the paper evaluates its method (docs/METHOD.md,\n"
    "'Backtest'): for each root site and each moment t, fit every partner pair on\n"
    "the m samples before t, predict the collective time max_i L_i with each\n"
    "method, and score the prediction against the actual max at t + tau.  Samples\n"
    "are aligned on the nominal interval; a lost or missing sample takes the\n"
    "previous valid value.  Scores per (window, tau, method), all moments and\n"
    "split by regime (every Pareto alpha > 1, or some alpha <= 1): RMSE, MAE,\n"
    "bias, the improvement over normal's RMSE with a Mann-Whitney U test of the\n"
    "absolute errors, calibration (how often the actual max fell at or below the\n"
    "predicted p50, p90, p99, as the model gives them and as calibrated by the\n"
    "method's own past misses) and the share of squared error in the worst 1 %.\n"
    "\n"
    "What is replayed:\n"
    "  --root R          one root (default: every site with partner pairs)\n"
    "  --sites A,B,...   roots and partners only among these sites\n"
    "  --from T, --to T  moments in [T, T] (Unix time or ISO-8601; default all)\n"
    "  --stride N        a moment every N samples (default 1)\n"
    "  --interval D      the nominal interval, e.g. 60s (default: the median\n"
    "                    spacing of the stored samples)\n"
    "  --drop-loss P     leave out pairs that lost a share >= P of their probes\n"
    "                    over the period (default: keep every pair); with both\n"
    "                    --from and --to, over the samples those moments read\n"
    "How:\n"
    "  --window LIST     windows m, e.g. 2,4,8 (default 2,4,...,1024; at most 16,\n"
    "                    each 2..65536)\n"
    "  --tau LIST        lead times in samples (default 1,2,4,...,256; at most 16)\n"
    "  --method LIST     pareto, normal, last, chi2, empirical, regime, auto,\n"
    "                    adaptive, combined (default pareto,normal,last,adaptive,\n"
    "                    combined); chi2: the fit index's choice; auto: that,\n"
    "                    else the other fit where only the choice is flagged,\n"
    "                    else the window's samples (the advisor's --model\n"
    "                    auto); regime: Pareto on the samples\n"
    "                    since the partner's last detected level shift (at most\n"
    "                    m); adaptive: the method of the smallest recent error;\n"
    "                    combined: the methods' forecasts weighted by their\n"
    "                    recent errors\n"
    "  --verdict R       auto: what flags a fit: quantiles (default: a p50, p90\n"
    "                    or p99 beyond the window's bounds by more than\n"
    "                    [advisor] quantile_margin) or ks (the old rule: a KS\n"
    "                    distance above [advisor] max_ks)\n"
    "  --quantile-margin M  auto: that margin, 0..10 (default: the config's)\n"
    "  --horizon H       adaptive: the last H outcomes (default 50, as\n"
    "                    adaptive_outcomes' default; 0 = all)\n"
    "  --combine-horizon H  combined: the last H outcomes, at a lead of tau samples\n"
    "                       at least 16 tau (default 500; 0 = all)\n"
    "  --shrink S        combined: shrink the errors' second moments towards\n"
    "                    their diagonal by S in [0, 1], at least k/n for k\n"
    "                    methods and n outcomes (default 0: the least-squares\n"
    "                    weights from a few hundred outcomes on; 1 = weights\n"
    "                    inverse to the mean squared errors)\n"
    "  --cut censor|paper  alpha <= 1: E[min(max, x0)] (default) or eq. 12\n"
    "  --paper           the paper's protocol: --drop-loss 0.1 --cut paper and\n"
    "                    (without --method) pareto,normal,last\n"
    "  --no-calibration  skip the quantiles (faster)\n"
    "  --cal-window W    calibration: by the last W outcomes (default 3000)\n"
    "  --cal-gamma G     calibration: the level's step per outcome (default 0.001)\n"
    "  --tolerance E     relative tolerance of each E[max] (default 1e-6)\n"
    "  --threads N       roots shared over N threads (default: one per CPU)\n"
    "Output:\n"
    "  --json, --csv     every cell and regime (default: a table of all moments)\n"
    "  --report FILE     also a Markdown report: alpha <= 1 shares, the best\n"
    "                    method per regime, improvement over normal, adaptive\n"
    "  --moments FILE    every scored prediction as CSV (root, t, window, tau,\n"
    "                    method, regime, predicted_ms, actual_ms, then the raw\n"
    "                    and calibrated p50, p90, p99 where the method has them),\n"
    "                    by root\n";

enum { O_ROOT = 256, O_SITES, O_FROM, O_TO, O_STRIDE, O_INTERVAL, O_DROP, O_WINDOW, O_TAU,
       O_METHOD, O_HORIZON, O_CUT, O_PAPER, O_NOCAL, O_TOL, O_THREADS, O_JSON, O_CSV,
       O_REPORT, O_MOMENTS, O_SHRINK, O_CALW, O_CALG, O_VERDICT, O_MARGIN, O_CHORIZON };

struct bt_args {
    struct gt_bt_opts o;
    char *sites_buf;
    const char *sites[1024];
    bool json, csv, methods_set, paper;
    const char *report, *moments;
};

/* "a,b,c" of positive whole numbers into out[cap]; false (said) if bad. */
static bool parse_counts(const char *opt, const char *v, long max, long *out, size_t cap,
                         size_t *n)
{
    *n = 0;
    const char *p = v;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int64_t x;
        if (*n == cap)
            return gt_cli_usage_error("backtest", "%s: at most %zu values", opt, cap), false;
        if (!gt_parse_i64(p, len, &x) || x < 1 || x > max)
            return gt_cli_usage_error("backtest", "%s: '%.*s' is not a whole number in "
                                      "[1, %ld]", opt, (int)len, p, max), false;
        for (size_t i = 0; i < *n; i++)
            if (out[i] == x)
                return gt_cli_usage_error("backtest", "%s: %lld given twice", opt,
                                          (long long)x), false;
        out[(*n)++] = (long)x;
        if (!comma)
            return true;
        p = comma + 1;
    }
}

static bool parse_methods(const char *v, unsigned *out)
{
    char buf[256];
    if (strlen(v) >= sizeof buf)
        return gt_cli_usage_error("backtest", "--method: list too long"), false;
    strcpy(buf, v);
    *out = 0;
    for (char *save, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int m = gt_bt_method_find(t);
        if (m < 0)
            return gt_cli_usage_error("backtest", "--method: '%s' is not pareto, normal, "
                                      "last, chi2, empirical, regime, adaptive or combined",
                                      t), false;
        *out |= 1u << m;
    }
    if (!(*out & ~(1u << GT_BT_ADAPTIVE | 1u << GT_BT_COMBINED)))
        return gt_cli_usage_error("backtest", "--method: adaptive and combined need other "
                                  "methods to choose from"), false;
    return true;
}

static bool parse_sites(struct bt_args *a, const char *v)
{
    free(a->sites_buf);
    if (!(a->sites_buf = strdup(v)))
        return false;
    a->o.nsites = 0;
    for (char *save, *t = strtok_r(a->sites_buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (a->o.nsites == sizeof a->sites / sizeof *a->sites)
            return gt_cli_usage_error("backtest", "--sites: at most %zu sites",
                                      sizeof a->sites / sizeof *a->sites), false;
        a->sites[a->o.nsites++] = t;
    }
    a->o.sites = a->sites;
    return a->o.nsites > 0 || (gt_cli_usage_error("backtest", "--sites: no site named"), false);
}

static void defaults(struct bt_args *a)
{
    memset(a, 0, sizeof *a);
    for (size_t m = 2; m <= 1024; m *= 2)
        a->o.windows[a->o.nwindows++] = m;
    for (long t = 1; t <= 256; t *= 2)
        a->o.taus[a->o.ntaus++] = t;
    a->o.methods = 1u << GT_BT_PARETO | 1u << GT_BT_NORMAL | 1u << GT_BT_LAST |
                   1u << GT_BT_ADAPTIVE | 1u << GT_BT_COMBINED;
    a->o.horizon = 50;
    a->o.shrink = GT_BT_SHRINK;
    a->o.combine_horizon = GT_BT_COMBINE_HORIZON;
    a->o.cal_window = GT_BT_CAL_WINDOW;
    a->o.cal_gamma = GT_BT_CAL_GAMMA;
    a->o.stride = 1;
    a->o.from = INT64_MIN;
    a->o.to = INT64_MAX;
    a->o.drop_loss = 2;
    a->o.calibration = true;
    a->o.epsrel = 1e-6;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    a->o.threads = cpus > 0 ? (int)(cpus < GT_BT_MAX_THREADS ? cpus : GT_BT_MAX_THREADS) : 1;
}

/* Returns -1 to go on, else the exit code. */
static int parse(int argc, char **argv, struct bt_args *a)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"root", required_argument, NULL, O_ROOT},
        {"sites", required_argument, NULL, O_SITES}, {"from", required_argument, NULL, O_FROM},
        {"to", required_argument, NULL, O_TO}, {"stride", required_argument, NULL, O_STRIDE},
        {"interval", required_argument, NULL, O_INTERVAL},
        {"drop-loss", required_argument, NULL, O_DROP},
        {"window", required_argument, NULL, O_WINDOW}, {"tau", required_argument, NULL, O_TAU},
        {"method", required_argument, NULL, O_METHOD},
        {"horizon", required_argument, NULL, O_HORIZON}, {"cut", required_argument, NULL, O_CUT},
        {"paper", no_argument, NULL, O_PAPER}, {"no-calibration", no_argument, NULL, O_NOCAL},
        {"tolerance", required_argument, NULL, O_TOL},
        {"threads", required_argument, NULL, O_THREADS}, {"json", no_argument, NULL, O_JSON},
        {"csv", no_argument, NULL, O_CSV}, {"report", required_argument, NULL, O_REPORT},
        {"moments", required_argument, NULL, O_MOMENTS},
        {"shrink", required_argument, NULL, O_SHRINK},
        {"combine-horizon", required_argument, NULL, O_CHORIZON},
        {"cal-window", required_argument, NULL, O_CALW},
        {"cal-gamma", required_argument, NULL, O_CALG},
        {"verdict", required_argument, NULL, O_VERDICT},
        {"quantile-margin", required_argument, NULL, O_MARGIN}, {NULL, 0, NULL, 0}};
    const char *cmd = "backtest";
    bool cut_set = false, drop_set = false, verdict_set = false;
    long v, list[GT_BT_MAX_WINDOWS];
    size_t n;
    int64_t secs;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        bool ok = true;
        switch (c) {
        case 'h': fputs(usage, stdout); return gt_cli_help("");
        case O_ROOT: a->o.root = optarg; break;
        case O_SITES: ok = parse_sites(a, optarg); break;
        case O_FROM: ok = gt_opt_time(cmd, "--from", optarg, &a->o.from); break;
        case O_TO: ok = gt_opt_time(cmd, "--to", optarg, &a->o.to); break;
        case O_STRIDE:
            ok = gt_opt_long(cmd, "--stride", optarg, 1, 1000000, &a->o.stride);
            break;
        case O_INTERVAL:
            if (!(ok = gt_parse_duration(optarg, &secs) && secs >= 1 && secs <= 86400 * 366))
                gt_cli_usage_error(cmd, "--interval: '%s' is not a duration of 1 s to a year "
                                   "(e.g. 60s, 5m)", optarg);
            a->o.interval = secs;
            break;
        case O_DROP:
            ok = gt_opt_double(cmd, "--drop-loss", optarg, 0, 1, &a->o.drop_loss);
            drop_set = true;
            break;
        case O_WINDOW:
            if ((ok = parse_counts("--window", optarg, GT_BT_MAX_WINDOW, list,
                                   GT_BT_MAX_WINDOWS, &n))) {
                for (size_t i = 0; ok && i < n; i++)
                    if (list[i] < 2) {
                        gt_cli_usage_error(cmd, "--window: %ld is below 2", list[i]);
                        ok = false;
                    }
                for (size_t i = 0; ok && i < n; i++)
                    a->o.windows[i] = (size_t)list[i];
                a->o.nwindows = n;
            }
            break;
        case O_TAU:
            ok = parse_counts("--tau", optarg, GT_BT_MAX_TAU, a->o.taus, GT_BT_MAX_TAUS,
                              &a->o.ntaus);
            break;
        case O_METHOD:
            ok = parse_methods(optarg, &a->o.methods);
            a->methods_set = true;
            break;
        case O_HORIZON:
            ok = gt_opt_long(cmd, "--horizon", optarg, 0, GT_TRACK_MAX_HORIZON, &v);
            a->o.horizon = (size_t)v;
            break;
        case O_CHORIZON:
            ok = gt_opt_long(cmd, "--combine-horizon", optarg, 0, GT_TRACK_MAX_HORIZON, &v);
            a->o.combine_horizon = (size_t)v;
            break;
        case O_CUT:
            v = gt_opt_choice(cmd, "--cut", optarg, gt_cut_words);
            a->o.cut_paper = v == 1;
            ok = v >= 0, cut_set = true;
            break;
        case O_PAPER: a->paper = true; break;
        case O_NOCAL: a->o.calibration = false; break;
        case O_SHRINK: ok = gt_opt_double(cmd, "--shrink", optarg, 0, 1, &a->o.shrink); break;
        case O_CALW:
            ok = gt_opt_long(cmd, "--cal-window", optarg, 1, GT_CONF_MAX_WINDOW, &v);
            a->o.cal_window = (size_t)v;
            break;
        case O_CALG: ok = gt_opt_double(cmd, "--cal-gamma", optarg, 0, 1, &a->o.cal_gamma); break;
        case O_VERDICT:
            v = gt_opt_choice(cmd, "--verdict", optarg, (const char *const[]){"quantiles", "ks",
                                                                                NULL});
            a->o.verdict_ks = v == 1;
            ok = v >= 0, verdict_set = true;
            break;
        case O_MARGIN:
            ok = gt_opt_double(cmd, "--quantile-margin", optarg, 0, GT_VERDICT_MAX_MARGIN,
                               &a->o.verdict.margin);
            verdict_set = true;
            break;
        case O_TOL: ok = gt_opt_double(cmd, "--tolerance", optarg, 1e-12, 0.01, &a->o.epsrel); break;
        case O_THREADS:
            ok = gt_opt_long(cmd, "--threads", optarg, 1, GT_BT_MAX_THREADS, &v);
            a->o.threads = (int)v;
            break;
        case O_JSON: a->json = true; break;
        case O_CSV: a->csv = true; break;
        case O_REPORT: a->report = optarg; break;
        case O_MOMENTS: a->moments = optarg; break;
        default: return GT_EXIT_USAGE;
        }
        if (!ok)
            return GT_EXIT_USAGE;
    }
    if (optind < argc)
        return gt_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (verdict_set && !(a->o.methods & (1u << GT_BT_AUTO)))
        return gt_cli_usage_error(cmd, "--verdict and --quantile-margin are auto's: add auto "
                                  "to --method");
    if (a->json && a->csv)
        return gt_cli_usage_error(cmd, "--json and --csv exclude each other");
    if (a->o.from > a->o.to)
        return gt_cli_usage_error(cmd, "--from is after --to");
    if (a->paper) {
        if (!cut_set)
            a->o.cut_paper = true;
        if (!drop_set)
            a->o.drop_loss = 0.1;
        if (!a->methods_set)
            a->o.methods = 1u << GT_BT_PARETO | 1u << GT_BT_NORMAL | 1u << GT_BT_LAST;
    }
    return -1;
}

/* ---------------------------------------------------------------- moments */

static void write_moment(void *ctx, const struct gt_bt_moment *m)
{
    char pred[GT_FMT_DOUBLE_SIZE], act[GT_FMT_DOUBLE_SIZE], q[GT_FMT_DOUBLE_SIZE];
    gt_fmt_double(pred, m->predicted);
    gt_fmt_double(act, m->actual);
    fprintf(ctx, "%s,%lld,%zu,%ld,%s,%s,%s,%s", m->root, (long long)m->t, m->window,
            m->tau, gt_bt_method_name(m->method),
            m->regime == GT_BT_ALPHA_LE1 ? "alpha<=1" : "alpha>1", pred, act);
    for (int k = 0; k < 2 * GT_BT_NQ; k++) {
        const double *v = k < GT_BT_NQ ? m->q : m->qcal;
        if (v)
            gt_fmt_double(q, v[k % GT_BT_NQ]);
        fprintf(ctx, ",%s", v ? q : "");
    }
    fputc('\n', ctx);
}

static void draw_progress(void *ctx, double done, double total)
{
    struct gt_progress *p = ctx;
    p->total = total;
    gt_progress_update(p, done);
}

/* ---------------------------------------------------------------- output */

static const char *regime_name(int regime)
{
    return regime == GT_BT_ALL ? "all" : regime == GT_BT_ALPHA_LE1 ? "alpha<=1" : "alpha>1";
}

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static int methods_list(const struct gt_bt_opts *o, int *out)
{
    int n = 0;
    for (int j = 0; j < GT_BT_NMETHODS; j++)
        if (o->methods & (1u << j))
            out[n++] = j;
    return n;
}

/* What auto did per window: the partner windows it fitted, those that
 * took the other fit and those that fell back to the samples, with
 * their shares. */
static json_t *fallback_json(const struct gt_bt_result *r, const struct gt_bt_opts *o)
{
    json_t *list = json_array();
    for (size_t wi = 0; wi < o->nwindows; wi++) {
        double n, sw, fb;
        gt_bt_fallbacks(r, wi, &n, &sw, &fb);
        json_array_append_new(list, json_pack("{s:I, s:f, s:f, s:f, s:o, s:o}", "window",
                                              (json_int_t)o->windows[wi], "partner_windows", n,
                                              "other_fit", sw, "fell_back", fb,
                                              "other_share", num(n ? sw / n : NAN),
                                              "share", num(n ? fb / n : NAN)));
    }
    json_t *doc = json_pack("{s:s, s:f, s:f, s:o}", "verdict",
                            o->verdict_ks ? "ks" : "quantiles", "max_ks", o->verdict.max_ks,
                            "quantile_margin", o->verdict.margin, "windows", list);
    return doc;
}

static int emit_json(const struct gt_bt_result *r, const struct bt_args *a, double seconds,
                     struct gt_error *err)
{
    const struct gt_bt_opts *o = &a->o;
    struct gt_bt_summary sm;
    gt_bt_summary(r, &sm);
    int ms[GT_BT_NMETHODS], nm = methods_list(o, ms);
    json_t *doc = json_object(), *win = json_array(), *taus = json_array(),
           *meth = json_array(), *share = json_array(), *cells = json_array(),
           *chosen = json_array();
    for (size_t i = 0; i < o->nwindows; i++)
        json_array_append_new(win, json_integer((json_int_t)o->windows[i]));
    for (size_t i = 0; i < o->ntaus; i++)
        json_array_append_new(taus, json_integer(o->taus[i]));
    for (int j = 0; j < nm; j++)
        json_array_append_new(meth, json_string(gt_bt_method_name(ms[j])));
    json_object_set_new(doc, "interval_s", json_integer(sm.interval));
    json_object_set_new(doc, "roots", json_integer((json_int_t)sm.roots));
    json_object_set_new(doc, "pairs", json_integer((json_int_t)sm.pairs));
    json_object_set_new(doc, "pairs_dropped", json_integer((json_int_t)sm.dropped));
    json_object_set_new(doc, "stride", json_integer(o->stride));
    json_object_set_new(doc, "cut", json_string(o->cut_paper ? "paper" : "censor"));
    json_object_set_new(doc, "horizon", json_integer((json_int_t)o->horizon));
    json_object_set_new(doc, "combine_horizon", json_integer((json_int_t)o->combine_horizon));
    json_object_set_new(doc, "shrink", json_real(o->shrink));
    json_object_set_new(doc, "tolerance", json_real(o->epsrel));
    json_object_set_new(doc, "windows", win);
    json_object_set_new(doc, "taus", taus);
    json_object_set_new(doc, "methods", meth);
    json_object_set_new(doc, "emax_evaluations", json_real(sm.evaluations));
    json_object_set_new(doc, "emax_failed", json_real(sm.unanswered));
    if (o->methods & (1u << GT_BT_REGIME))
        json_object_set_new(doc, "shifts_detected", json_real(sm.shifts));
    json_object_set_new(doc, "seconds", json_real(seconds));
    for (size_t wi = 0; wi < o->nwindows; wi++) {
        double n, le1;
        gt_bt_moments(r, wi, &n, &le1);
        json_array_append_new(share, json_pack("{s:I, s:f, s:f, s:o}", "window",
                                               (json_int_t)o->windows[wi], "moments", n,
                                               "alpha_le1", le1, "share", num(n ? le1 / n : NAN)));
    }
    json_object_set_new(doc, "alpha_le1", share);
    if (o->methods & (1u << GT_BT_AUTO))
        json_object_set_new(doc, "auto_fallback", fallback_json(r, o));
    int rc = GT_OK;
    for (size_t wi = 0; rc == GT_OK && wi < o->nwindows; wi++)
        for (size_t ti = 0; rc == GT_OK && ti < o->ntaus; ti++) {
            for (int j = 0; rc == GT_OK && j < nm; j++)
                for (int g = GT_BT_ALL; rc == GT_OK && g < GT_BT_NREGIMES; g++) {
                    struct gt_bt_stats s;
                    if ((rc = gt_bt_stats(r, wi, ti, ms[j], g, &s, err)))
                        break;
                    json_t *cal = json_object();
                    json_object_set_new(cal, "p50", num(s.below[0]));
                    json_object_set_new(cal, "p90", num(s.below[1]));
                    json_object_set_new(cal, "p99", num(s.below[2]));
                    json_t *cc = json_object();
                    json_object_set_new(cc, "p50", num(s.covered[0]));
                    json_object_set_new(cc, "p90", num(s.covered[1]));
                    json_object_set_new(cc, "p99", num(s.covered[2]));
                    json_object_set_new(cc, "ready", num(s.ready));
                    json_array_append_new(cells, json_pack(
                        "{s:I, s:I, s:s, s:s, s:f, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
                        "s:o}",
                        "window", (json_int_t)o->windows[wi], "tau", (json_int_t)o->taus[ti],
                        "method", gt_bt_method_name(ms[j]), "regime", regime_name(g), "n", s.n,
                        "rmse_ms", num(s.rmse), "mae_ms", num(s.mae), "bias_ms", num(s.bias),
                        "improvement", num(s.improvement), "u", num(s.mwu.u),
                        "z", num(s.mwu.z), "p", num(s.mwu.p), "calibration", cal,
                        "calibrated", cc, "worst1_share", num(s.worst1)));
                }
            if (o->methods & (1u << GT_BT_ADAPTIVE)) {
                json_t *cnt = json_object();
                for (int j = 0; j < nm; j++)
                    if (!GT_BT_IS_META(ms[j]))
                        json_object_set_new(cnt, gt_bt_method_name(ms[j]),
                                            json_real(gt_bt_chosen(r, wi, ti, ms[j])));
                json_array_append_new(chosen, json_pack("{s:I, s:I, s:o}", "window",
                                                        (json_int_t)o->windows[wi], "tau",
                                                        (json_int_t)o->taus[ti], "chosen", cnt));
            }
        }
    json_object_set_new(doc, "cells", cells);
    json_object_set_new(doc, "adaptive_chosen", chosen);
    if (rc == GT_OK)
        gt_cli_print_json(doc);
    else
        json_decref(doc);
    return rc;
}

static void csv_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.10g", v);
    else
        fputs(",", f);
}

static int emit_csv(const struct gt_bt_result *r, const struct gt_bt_opts *o,
                    struct gt_error *err)
{
    int ms[GT_BT_NMETHODS], nm = methods_list(o, ms);
    puts("window,tau,method,regime,n,rmse_ms,mae_ms,bias_ms,improvement,u,p,"
         "below_p50,below_p90,below_p99,worst1_share,covered_p50,covered_p90,covered_p99,"
         "calibration_ready");
    for (size_t wi = 0; wi < o->nwindows; wi++)
        for (size_t ti = 0; ti < o->ntaus; ti++)
            for (int j = 0; j < nm; j++)
                for (int g = GT_BT_ALL; g < GT_BT_NREGIMES; g++) {
                    struct gt_bt_stats s;
                    int rc = gt_bt_stats(r, wi, ti, ms[j], g, &s, err);
                    if (rc)
                        return rc;
                    printf("%zu,%ld,%s,%s,%.0f", o->windows[wi], o->taus[ti],
                           gt_bt_method_name(ms[j]), regime_name(g), s.n);
                    double v[] = {s.rmse, s.mae, s.bias, s.improvement, s.mwu.u, s.mwu.p,
                                  s.below[0], s.below[1], s.below[2], s.worst1,
                                  s.covered[0], s.covered[1], s.covered[2], s.ready};
                    for (size_t k = 0; k < sizeof v / sizeof *v; k++)
                        csv_num(stdout, v[k]);
                    putchar('\n');
                }
    return GT_OK;
}

static int emit_table(const struct gt_bt_result *r, const struct gt_bt_opts *o, double seconds,
                      struct gt_error *err)
{
    struct gt_bt_summary sm;
    gt_bt_summary(r, &sm);
    int ms[GT_BT_NMETHODS], nm = methods_list(o, ms);
    char b[9][32];
    printf("backtest: %zu roots, %zu pairs (%zu left out), interval %llds, %.0f E[max] in "
           "%.1f s\n", sm.roots, sm.pairs, sm.dropped, (long long)sm.interval, sm.evaluations,
           seconds);
    if (sm.unanswered)
        printf("warning: %.0f E[max] did not converge and were not scored\n", sm.unanswered);
    if (o->methods & (1u << GT_BT_REGIME))
        printf("regime: %.0f level shifts detected over the pairs\n", sm.shifts);
    printf("\n%7s %5s %-10s %9s %11s %11s %11s %8s %8s %6s %6s %6s %6s\n", "window", "tau",
           "method", "n", "rmse_ms", "mae_ms", "bias_ms", "vs_norm", "p", "p90ok", "p99ok",
           "p90cal", "p99cal");
    for (size_t wi = 0; wi < o->nwindows; wi++)
        for (size_t ti = 0; ti < o->ntaus; ti++)
            for (int j = 0; j < nm; j++) {
                struct gt_bt_stats s;
                int rc = gt_bt_stats(r, wi, ti, ms[j], GT_BT_ALL, &s, err);
                if (rc)
                    return rc;
                printf("%7zu %5ld %-10s %9.0f %11s %11s %11s %7s%% %8s %5s%% %5s%% %5s%% %5s%%\n",
                       o->windows[wi], o->taus[ti], gt_bt_method_name(ms[j]), s.n,
                       gt_cli_num(b[0], 32, 3, s.rmse), gt_cli_num(b[1], 32, 3, s.mae),
                       gt_cli_num(b[2], 32, 3, s.bias),
                       gt_cli_num(b[3], 32, 1, 100 * s.improvement),
                       gt_cli_num(b[4], 32, 4, s.mwu.p), gt_cli_num(b[5], 32, 0, 100 * s.below[1]),
                       gt_cli_num(b[6], 32, 1, 100 * s.below[2]),
                       gt_cli_num(b[7], 32, 0, 100 * s.covered[1]),
                       gt_cli_num(b[8], 32, 1, 100 * s.covered[2]));
            }
    printf("\n%7s %9s %9s %7s\n", "window", "moments", "alpha<=1", "share");
    for (size_t wi = 0; wi < o->nwindows; wi++) {
        double n, le1;
        gt_bt_moments(r, wi, &n, &le1);
        printf("%7zu %9.0f %9.0f %6s%%\n", o->windows[wi], n, le1,
               gt_cli_num(b[0], 32, 1, n ? 100 * le1 / n : NAN));
    }
    if (!(o->methods & (1u << GT_BT_AUTO)))
        return GT_OK;
    printf("\nauto took the other fit or the samples (verdict: %s):\n%7s %9s %9s %7s %9s "
           "%7s\n", o->verdict_ks ? "ks" : "quantiles", "window", "partners", "other", "share",
           "samples", "share");
    for (size_t wi = 0; wi < o->nwindows; wi++) {
        double n, sw, fb;
        gt_bt_fallbacks(r, wi, &n, &sw, &fb);
        printf("%7zu %9.0f %9.0f %6s%% %9.0f %6s%%\n", o->windows[wi], n, sw,
               gt_cli_num(b[0], 32, 1, n ? 100 * sw / n : NAN), fb,
               gt_cli_num(b[1], 32, 1, n ? 100 * fb / n : NAN));
    }
    return GT_OK;
}

/* ---------------------------------------------------------------- report */

/* Pooled over the grid: sqrt(sum n rmse^2 / sum n) of one method. */
static double pooled_rmse(const struct gt_bt_result *r, const struct gt_bt_opts *o, int method,
                          int regime)
{
    double se = 0, n = 0;
    for (size_t wi = 0; wi < o->nwindows; wi++)
        for (size_t ti = 0; ti < o->ntaus; ti++) {
            struct gt_bt_stats s;
            struct gt_error e = {0};
            if (gt_bt_stats(r, wi, ti, method, regime, &s, &e) || !s.n)
                continue;
            se += s.n * s.rmse * s.rmse;
            n += s.n;
        }
    return n ? sqrt(se / n) : NAN;
}

static void report_best(FILE *f, const struct gt_bt_result *r, const struct gt_bt_opts *o,
                        const int *ms, int nm, int regime)
{
    fprintf(f, "\n### Best method by lead time, %s\n\n| tau | window | method | RMSE (ms) "
            "| n |\n|---|---|---|---|---|\n", regime == GT_BT_ALL ? "all moments"
            : regime == GT_BT_ALPHA_LE1 ? "some alpha <= 1" : "all alpha > 1");
    for (size_t ti = 0; ti < o->ntaus; ti++) {
        double best = INFINITY, bn = 0;
        size_t bw = 0;
        int bm = -1;
        for (size_t wi = 0; wi < o->nwindows; wi++)
            for (int j = 0; j < nm; j++) {
                struct gt_bt_stats s;
                struct gt_error e = {0};
                if (gt_bt_stats(r, wi, ti, ms[j], regime, &s, &e) || !s.n || !(s.rmse < best))
                    continue;
                best = s.rmse, bw = wi, bm = ms[j], bn = s.n;
            }
        if (bm >= 0)
            fprintf(f, "| %ld | %zu | %s | %.3f | %.0f |\n", o->taus[ti], o->windows[bw],
                    gt_bt_method_name(bm), best, bn);
    }
}

static void report_improvement(FILE *f, const struct gt_bt_result *r, const struct gt_bt_opts *o,
                               int method)
{
    fprintf(f, "\n### %s over normal: (RMSE_normal - RMSE) / RMSE_normal, all moments\n\n"
            "`*`: Mann-Whitney p < 0.05 on the absolute errors.\n\n| m \\ tau |",
            gt_bt_method_name(method));
    for (size_t ti = 0; ti < o->ntaus; ti++)
        fprintf(f, " %ld |", o->taus[ti]);
    fputs("\n|---|", f);
    for (size_t ti = 0; ti < o->ntaus; ti++)
        fputs("---|", f);
    for (size_t wi = 0; wi < o->nwindows; wi++) {
        fprintf(f, "\n| %zu |", o->windows[wi]);
        for (size_t ti = 0; ti < o->ntaus; ti++) {
            struct gt_bt_stats s;
            struct gt_error e = {0};
            if (gt_bt_stats(r, wi, ti, method, GT_BT_ALL, &s, &e) || !isfinite(s.improvement))
                fputs(" - |", f);
            else
                fprintf(f, " %+.1f %%%s |", 100 * s.improvement, s.mwu.p < 0.05 ? "*" : "");
        }
    }
    fputc('\n', f);
}

/* A meta method (adaptive, combined) against the fixed ones: pooled, and
 * the cells within 2 % of their best fixed method. */
static void report_meta(const struct gt_bt_result *r, const struct gt_bt_opts *o,
                        const int *ms, int nm, int meta, double *ad, double *best, int *bm,
                        double *within, double *cells)
{
    *best = INFINITY, *within = 0, *cells = 0, *bm = -1;
    for (int j = 0; j < nm; j++) {
        double p = pooled_rmse(r, o, ms[j], GT_BT_ALL);
        if (!GT_BT_IS_META(ms[j]) && p < *best)
            *best = p, *bm = ms[j];
    }
    *ad = pooled_rmse(r, o, meta, GT_BT_ALL);
    for (size_t wi = 0; wi < o->nwindows; wi++)
        for (size_t ti = 0; ti < o->ntaus; ti++) {
            double cb = INFINITY, ca = NAN;
            for (int j = 0; j < nm; j++) {
                struct gt_bt_stats s;
                struct gt_error e = {0};
                if (gt_bt_stats(r, wi, ti, ms[j], GT_BT_ALL, &s, &e) || !s.n)
                    continue;
                if (ms[j] == meta)
                    ca = s.rmse;
                else if (!GT_BT_IS_META(ms[j]) && s.rmse < cb)
                    cb = s.rmse;
            }
            if (isfinite(ca) && isfinite(cb)) {
                (*cells)++;
                *within += ca <= 1.02 * cb;
            }
        }
}

static void report_combined(FILE *f, const struct gt_bt_result *r, const struct gt_bt_opts *o,
                            const int *ms, int nm)
{
    double ad, best, within, cells;
    int bm;
    report_meta(r, o, ms, nm, GT_BT_COMBINED, &ad, &best, &bm, &within, &cells);
    fprintf(f, "\n## Combination (horizon %zu outcomes, shrinkage %.2f, at least k/n)\n\n"
            "Pooled over every (m, tau) cell: combined RMSE %.3f ms, the best fixed method "
            "(%s) %.3f ms: %+.1f %% (negative: the combination is better).  It is within 2 %% "
            "of the best fixed method in %.0f of %.0f cells.\n",
            o->combine_horizon, o->shrink, ad, bm >= 0 ? gt_bt_method_name(bm) : "-", best,
            100 * (ad - best) / best, within, cells);
}

/* Coverage of each method's quantiles, raw and calibrated: pooled over
 * the cells (weighted by their outcomes) and the lowest cell. */
static void report_calibration(FILE *f, const struct gt_bt_result *r,
                               const struct gt_bt_opts *o, const int *ms, int nm)
{
    fprintf(f, "\n## Calibration: outcomes at or below each quantile\n\n"
            "As the model gives it, then calibrated by the method's own past misses "
            "(window %zu outcomes, step %.3g); pooled over the cells, and the lowest cell.\n\n"
            "| method | p50 | p90 | p99 | p99, lowest cell | calibration ready |\n"
            "|---|---|---|---|---|---|\n", o->cal_window, o->cal_gamma);
    for (int j = 0; j < nm; j++) {
        double n = 0, raw[GT_BT_NQ] = {0}, cal[GT_BT_NQ] = {0}, low = INFINITY, ready = 0;
        for (size_t wi = 0; wi < o->nwindows; wi++)
            for (size_t ti = 0; ti < o->ntaus; ti++) {
                struct gt_bt_stats s;
                struct gt_error e = {0};
                if (gt_bt_stats(r, wi, ti, ms[j], GT_BT_ALL, &s, &e) || !(s.ncal > 0))
                    continue;
                n += s.ncal;
                ready += s.ncal * s.ready;
                for (int k = 0; k < GT_BT_NQ; k++)
                    raw[k] += s.ncal * s.below[k], cal[k] += s.ncal * s.covered[k];
                low = fmin(low, s.covered[GT_BT_NQ - 1]);
            }
        if (!(n > 0))
            continue;
        fprintf(f, "| %s |", gt_bt_method_name(ms[j]));
        for (int k = 0; k < GT_BT_NQ; k++)
            fprintf(f, " %.1f → %.1f %% |", 100 * raw[k] / n, 100 * cal[k] / n);
        fprintf(f, " %.1f %% | %.0f %% |\n", 100 * low, 100 * ready / n);
    }
}

static void report_adaptive(FILE *f, const struct gt_bt_result *r, const struct gt_bt_opts *o,
                            const int *ms, int nm)
{
    double ad, best, within, cells;
    int bm;
    report_meta(r, o, ms, nm, GT_BT_ADAPTIVE, &ad, &best, &bm, &within, &cells);
    fprintf(f, "\n## Adaptive selection (horizon %zu outcomes)\n\n"
            "Pooled over every (m, tau) cell: adaptive RMSE %.3f ms, the best fixed method "
            "(%s) %.3f ms: %+.1f %% (negative: adaptive is better).  Adaptive is within 2 %% "
            "of the best fixed method in %.0f of %.0f cells.\n",
            o->horizon, ad, bm >= 0 ? gt_bt_method_name(bm) : "-", best,
            100 * (ad - best) / best, within, cells);
    fputs("\nHow often each method was chosen, over all cells:\n\n| method | chosen |\n"
          "|---|---|\n", f);
    for (int j = 0; j < nm; j++) {
        double c = 0;
        if (GT_BT_IS_META(ms[j]))
            continue;
        for (size_t wi = 0; wi < o->nwindows; wi++)
            for (size_t ti = 0; ti < o->ntaus; ti++)
                c += gt_bt_chosen(r, wi, ti, ms[j]);
        fprintf(f, "| %s | %.0f |\n", gt_bt_method_name(ms[j]), c);
    }
}

static int write_report(const struct gt_bt_result *r, const struct gt_bt_opts *o,
                        const char *path, double seconds, struct gt_error *err)
{
    char *tmp;
    FILE *f = gt_cli_atomic_open(path, &tmp, err);
    if (!f)
        return err->code;
    struct gt_bt_summary sm;
    gt_bt_summary(r, &sm);
    int ms[GT_BT_NMETHODS], nm = methods_list(o, ms);
    fprintf(f, "# gridtail backtest\n\n%zu roots, %zu partner pairs (%zu left out), interval "
            "%lld s, stride %ld, cut %s, %.0f E[max] evaluations (%.0f failed) in %.1f s.\n",
            sm.roots, sm.pairs, sm.dropped, (long long)sm.interval, o->stride,
            o->cut_paper ? "paper (eq. 12)" : "censored", sm.evaluations, sm.unanswered, seconds);
    fputs("\n## Moments with some alpha <= 1, by window (the paper's Table 2)\n\n"
          "| m | moments | some alpha <= 1 | share |\n|---|---|---|---|\n", f);
    for (size_t wi = 0; wi < o->nwindows; wi++) {
        double n, le1;
        gt_bt_moments(r, wi, &n, &le1);
        fprintf(f, "| %zu | %.0f | %.0f | %.1f %% |\n", o->windows[wi], n, le1,
                n ? 100 * le1 / n : 0.0);
    }
    if (o->methods & (1u << GT_BT_AUTO)) {
        fprintf(f, "\n## auto: partner windows that took the other fit or their samples "
                "(verdict: %s)\n\n| m | partner windows | other fit | share | samples | "
                "share |\n|---|---|---|---|---|---|\n",
                o->verdict_ks ? "KS above max_ks" : "quantiles off");
        for (size_t wi = 0; wi < o->nwindows; wi++) {
            double n, sw, fb;
            gt_bt_fallbacks(r, wi, &n, &sw, &fb);
            fprintf(f, "| %zu | %.0f | %.0f | %.1f %% | %.0f | %.1f %% |\n", o->windows[wi], n,
                    sw, n ? 100 * sw / n : 0.0, fb, n ? 100 * fb / n : 0.0);
        }
    }
    fputs("\n## Best (window, method) per lead time\n", f);
    for (int g = GT_BT_ALL; g < GT_BT_NREGIMES; g++)
        report_best(f, r, o, ms, nm, g);
    if (o->methods & (1u << GT_BT_NORMAL)) {
        fputs("\n## Improvement over normal\n", f);
        for (int j = 0; j < nm; j++)
            if (ms[j] != GT_BT_NORMAL)
                report_improvement(f, r, o, ms[j]);
    }
    if (o->methods & (1u << GT_BT_ADAPTIVE))
        report_adaptive(f, r, o, ms, nm);
    if (o->methods & (1u << GT_BT_COMBINED))
        report_combined(f, r, o, ms, nm);
    if (o->calibration)
        report_calibration(f, r, o, ms, nm);
    return gt_cli_atomic_close(f, tmp, path, GT_OK, err);
}

int cmd_backtest(struct gt_cli *cli, int argc, char **argv)
{
    struct bt_args a;
    defaults(&a);
    a.o.verdict = gt_advice_verdict_limits(&cli->cfg);
    int ex = parse(argc, argv, &a);
    if (ex >= 0) {
        free(a.sites_buf);
        return ex;
    }
    struct gt_error err = {0};
    char *mtmp = NULL;
    FILE *mf = NULL;
    if (a.moments) {
        if (!(mf = gt_cli_atomic_open(a.moments, &mtmp, &err))) {
            free(a.sites_buf);
            return gt_cli_fail(&err, err.code);
        }
        fputs("root,t,window,tau,method,regime,predicted_ms,actual_ms,"
              "p50_ms,p90_ms,p99_ms,p50_cal_ms,p90_cal_ms,p99_cal_ms\n", mf);
        a.o.moment = write_moment;
        a.o.moment_ctx = mf;
    }
    struct gt_progress line;
    gt_progress_start(&line, "backtest", "root-windows", 0);
    a.o.progress = draw_progress;
    a.o.progress_ctx = &line;
    gt_interrupt_catch();
    int64_t t0 = gt_monotonic_ns();
    struct gt_bt_result *r = NULL;
    int rc = gt_backtest_run(cli->db_path, cli->cfg.busy_timeout_ms, &a.o, &r, &err);
    double seconds = (double)(gt_monotonic_ns() - t0) / 1e9;
    gt_progress_end(&line);
    if (mf) {
        int mrc = gt_cli_atomic_close(mf, mtmp, a.moments, rc, rc ? NULL : &err);
        rc = rc ? rc : mrc;
    }
    if (rc == GT_OK && a.report)
        rc = write_report(r, &a.o, a.report, seconds, &err);
    if (rc == GT_OK)
        rc = a.json ? emit_json(r, &a, seconds, &err) : a.csv ? emit_csv(r, &a.o, &err)
                                                           : emit_table(r, &a.o, seconds, &err);
    gt_bt_result_free(r);
    free(a.sites_buf);
    return rc ? gt_cli_fail(&err, rc) : GT_EXIT_OK;
}
