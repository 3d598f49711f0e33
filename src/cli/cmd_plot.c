/*
 * cmd_plot.c - `gridtail plot KIND`: the plots of src/plot/ as SVG files
 * (-o FILE, written atomically) or on standard output when it is not a
 * terminal.  `plot emax` runs the placement search of `place` once per
 * size and takes its options (advopts.h).
 */
#define _DEFAULT_SOURCE
#include "advopts.h"
#include "advout.h"
#include "cli.h"
#include "advisor/events.h"
#include "advisor/status.h"
#include "plot/plot.h"
#include "base/interrupt.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char plot_usage[] =
    "usage: gridtail plot ccdf --src A --dst B [--window M] [--at T] [-o FILE]\n"
    "       gridtail plot series --src A --dst B [--from T] [--to T] [--bins N]\n"
    "                            [--window M] [--log] [-o FILE]\n"
    "       gridtail plot matrix [--metric median|p99|loss|alpha|status] [--samples N]\n"
    "                            [--window M]\n"
    "                            [--at T] [--place-json F | --highlight A,B,...] [--by-name]\n"
    "                            [-o FILE]\n"
    "       gridtail plot emax --pool A,B,... --sizes K1..K2 [--root R] [-o FILE]\n"
    "                            [the options of place]\n"
    "       gridtail plot backtest REPORT.json [-o FILE]\n"
    "\n"
    "Draw an SVG image (written to FILE atomically, or to standard output when\n"
    "that is not a terminal):\n"
    "  ccdf      a pair's last M samples (default: [estimate] window) as the\n"
    "            empirical CCDF P(RTT >= x) on log-log axes, with the fitted Pareto\n"
    "            and normal curves, the selected one bold, the loss mixture dashed\n"
    "            when the window lost probes; k, alpha, mu, sigma, the fit index\n"
    "            and KS in the legend\n"
    "  series    a pair's RTT over time, SmokePing-style: per time bin (--bins,\n"
    "            default 240) the median and the 25-75 % and 10-90 % bands, loss as\n"
    "            red bars, level shifts dashed where the offline segmentation of\n"
    "            the period cuts it, the pair's events (gridtail events) marked:\n"
    "            outages and silences as spans; the fit window shaded;\n"
    "            the period ends at --to (default: the pair's newest sample) and\n"
    "            starts at --from (default: a day before its end); the RTT axis\n"
    "            is log when the bins' 90 % point is over 10 times their 10 %\n"
    "            point (the axis label says so), or always with --log\n"
    "  matrix    every pair as a cell, source rows by destination columns,\n"
    "            coloured by the median or p99 RTT or the loss of its newest N\n"
    "            samples at or before T (default 1440: a day at one a minute), or\n"
    "            the Pareto alpha of the newest M of them, or (status) by each\n"
    "            pair's status against [thresholds] (pairs --status), MaDDash's\n"
    "            colours, the numbers and reasons on hover; sites seriated so that\n"
    "            close sites sit together\n"
    "            (--by-name: alphabetical); the sites of a placement framed in red\n"
    "            (--place-json: the best candidate of `place --json`)\n"
    "  emax      E[max] and p99 of the best set of each size K1..K2 (at most 32\n"
    "            sizes) found by `place` over the pool, to choose the size\n"
    "  backtest  a `backtest --json` report: RMSE per method over (m, tau), the\n"
    "            improvement over normal with p < 0.05 dotted, the calibration\n"
    "Limits: series reads at most 2,000,000 samples and 2,000 bins; matrix\n"
    "shows at most 200 sites and reads at most 100,000 samples a pair; no\n"
    "document is larger than 64 MiB.\n";

enum { P_SRC = 400, P_DST, P_WINDOW, P_AT, P_FROM, P_TO, P_BINS, P_LOG, P_METRIC,
       P_PLACE, P_HIGHLIGHT, P_BYNAME, P_SAMPLES };

static const struct option plot_options[] = {
    {"help", no_argument, NULL, 'h'}, {"output", required_argument, NULL, 'o'},
    {"src", required_argument, NULL, P_SRC}, {"dst", required_argument, NULL, P_DST},
    {"window", required_argument, NULL, P_WINDOW}, {"at", required_argument, NULL, P_AT},
    {"from", required_argument, NULL, P_FROM}, {"to", required_argument, NULL, P_TO},
    {"bins", required_argument, NULL, P_BINS}, {"log", no_argument, NULL, P_LOG},
    {"metric", required_argument, NULL, P_METRIC},
    {"place-json", required_argument, NULL, P_PLACE},
    {"highlight", required_argument, NULL, P_HIGHLIGHT},
    {"by-name", no_argument, NULL, P_BYNAME}, {"samples", required_argument, NULL, P_SAMPLES},
    {NULL, 0, NULL, 0}};

/* What each kind takes besides -o, a bit per P_ code (as its usage line
 * says); any other option is refused, not ignored. */
#define POPT(o) (UINT32_C(1) << ((o) - P_SRC))
static const struct {
    const char *kind;
    uint32_t takes;
} plot_kinds[] = {
    {"ccdf", POPT(P_SRC) | POPT(P_DST) | POPT(P_WINDOW) | POPT(P_AT)},
    {"series", POPT(P_SRC) | POPT(P_DST) | POPT(P_FROM) | POPT(P_TO) | POPT(P_BINS) |
               POPT(P_WINDOW) | POPT(P_LOG)},
    {"matrix", POPT(P_METRIC) | POPT(P_SAMPLES) | POPT(P_WINDOW) | POPT(P_AT) | POPT(P_PLACE) |
               POPT(P_HIGHLIGHT) | POPT(P_BYNAME)},
    {"backtest", 0},
};

struct plot_args {
    const char *kind, *out, *src, *dst, *place_json, *highlight;
    uint32_t takes;
    long window, bins, samples;
    int64_t at, from, to;
    bool log_y, by_name, at_set;
    enum gt_plot_metric metric;
};

/* Write the document to a.out (atomically) or stdout. */
static int emit(const struct plot_args *a, const struct gt_buf *doc)
{
    if (!a->out) {
        if (fwrite(doc->data, 1, doc->len, stdout) != doc->len || fflush(stdout)) {
            fprintf(stderr, "gridtail: writing standard output failed\n");
            return GT_EXIT_IO;
        }
        return GT_EXIT_OK;
    }
    return gt_cli_write_atomic(a->out, doc->data, doc->len);
}

static int parse(struct gt_cli *cli, int argc, char **argv, struct plot_args *a)
{
    a->window = cli->cfg.window;
    a->bins = 240;
    a->samples = 1440;
    a->at = (int64_t)time(NULL);
    int c, at = -1;
    optind = 2;
    while ((c = getopt_long(argc, argv, "ho:", plot_options, &at)) != -1) {
        if (c >= P_SRC && !(a->takes & POPT(c)))
            return gt_cli_usage_error("plot", "--%s is not an option of plot %s",
                                      plot_options[at].name, a->kind);
        switch (c) {
        case 'h': return gt_cli_help(plot_usage);
        case 'o': a->out = optarg; break;
        case P_SRC: a->src = optarg; break;
        case P_DST: a->dst = optarg; break;
        case P_LOG: a->log_y = true; break;
        case P_BYNAME: a->by_name = true; break;
        case P_PLACE: a->place_json = optarg; break;
        case P_HIGHLIGHT: a->highlight = optarg; break;
        case P_WINDOW:
            if (!gt_opt_long("plot", "--window", optarg, 2, 1000000, &a->window))
                return GT_EXIT_USAGE;
            break;
        case P_SAMPLES:
            if (!gt_opt_long("plot", "--samples", optarg, 1, GT_PLOT_MAX_MATRIX_SAMPLES,
                             &a->samples))
                return GT_EXIT_USAGE;
            break;
        case P_BINS:
            if (!gt_opt_long("plot", "--bins", optarg, 1, GT_PLOT_MAX_BINS, &a->bins))
                return GT_EXIT_USAGE;
            break;
        case P_AT:
            if (!gt_opt_time("plot", "--at", optarg, &a->at))
                return GT_EXIT_USAGE;
            a->at_set = true;
            break;
        case P_FROM:
            if (!gt_opt_time("plot", "--from", optarg, &a->from))
                return GT_EXIT_USAGE;
            break;
        case P_TO:
            if (!gt_opt_time("plot", "--to", optarg, &a->to))
                return GT_EXIT_USAGE;
            break;
        case P_METRIC:
            if (!gt_plot_metric_parse(optarg, &a->metric))
                return gt_cli_usage_error("plot", "--metric: '%s' is not median, p99, loss, "
                                          "alpha or status", optarg);
            break;
        default: return gt_cli_usage_error("plot", "bad option");
        }
    }
    if (!a->out && isatty(STDOUT_FILENO))
        return gt_cli_usage_error("plot", "an SVG image: give -o FILE or redirect the output");
    return -1;
}

static int need_pair(const struct plot_args *a)
{
    if (!a->src || !a->dst)
        return gt_cli_usage_error("plot", "%s needs --src and --dst", a->kind);
    return -1;
}

/* the best candidate's root and sites of a `place --json` answer */
static int place_sites(const char *path, json_t **doc, const char ***names, size_t *n)
{
    json_error_t je;
    *doc = json_load_file(path, 0, &je);
    if (!*doc) {
        fprintf(stderr, "gridtail: %s:%d: %s\n", path, je.line, je.text);
        return GT_EXIT_INPUT;
    }
    const json_t *c = json_array_get(json_object_get(*doc, "candidates"), 0);
    const json_t *root = json_object_get(c, "root"), *sites = json_object_get(c, "sites");
    if (!json_is_string(root) || !json_is_array(sites)) {
        fprintf(stderr, "gridtail: %s: candidates[0]: no root and sites (an answer of "
                "`place --json` is needed)\n", path);
        return GT_EXIT_INPUT;
    }
    *names = calloc(json_array_size(sites) + 1, sizeof **names);
    if (!*names)
        return GT_EXIT_IO;
    (*names)[(*n)++] = json_string_value(root);
    for (size_t i = 0; i < json_array_size(sites); i++) {
        const json_t *s = json_array_get(sites, i);
        if (!json_is_string(s)) {
            fprintf(stderr, "gridtail: %s: candidates[0].sites[%zu]: not a string\n", path, i);
            return GT_EXIT_INPUT;
        }
        (*names)[(*n)++] = json_string_value(s);
    }
    return GT_EXIT_OK;
}

/* --highlight A,B,... split in place (a copy of the argument) */
static int highlight_list(const char *arg, char **copy, const char ***names, size_t *n)
{
    *copy = strdup(arg);
    *names = calloc(strlen(arg) / 2 + 2, sizeof **names);
    if (!*copy || !*names)
        return GT_EXIT_IO;
    for (char *tok = strtok(*copy, ","); tok; tok = strtok(NULL, ","))
        (*names)[(*n)++] = tok;
    return GT_EXIT_OK;
}

static int run_db(struct gt_cli *cli, const struct plot_args *a, struct gt_buf *doc)
{
    int code = -1;
    json_t *pj = NULL;
    const char **names = NULL;
    char *copy = NULL;
    size_t nnames = 0;
    if (a->place_json && a->highlight)
        return gt_cli_usage_error("plot", "--place-json or --highlight, not both");
    if (a->place_json)
        code = place_sites(a->place_json, &pj, &names, &nnames);
    else if (a->highlight)
        code = highlight_list(a->highlight, &copy, &names, &nnames);
    if (code > 0) {
        json_decref(pj), free(names), free(copy);
        return code;
    }
    struct gt_db *db = gt_cli_open_db(cli, GT_DB_READ, &code);
    struct gt_error err = {0};
    int rc = GT_OK;
    if (!db) {
        json_decref(pj), free(names), free(copy);
        return code;
    }
    if (!strcmp(a->kind, "ccdf")) {
        struct gt_plot_pair_opts o = {a->src, a->dst, (size_t)a->window, a->at, cli->cfg.rto_ms,
                                       &cli->cfg};
        rc = gt_plot_ccdf(db, &o, doc, &err);
    } else if (!strcmp(a->kind, "series")) {
        struct gt_event_opts eo = gt_event_opts_of(&cli->cfg);
        struct gt_plot_series_opts o = {a->src, a->dst, a->from, a->to, (size_t)a->bins,
                                        (size_t)a->window, a->log_y, &eo};
        rc = gt_plot_series(db, &o, doc, &err);
    } else {
        struct gt_thresholds t = {0};
        struct gt_plot_matrix_opts o = {a->metric, (size_t)a->samples, (size_t)a->window, a->at,
                                        names, nnames,
                                        a->by_name, &t};
        rc = a->metric == GT_PLOT_STATUS
                 ? gt_thresholds_load(&t, &cli->cfg, (size_t)cli->cfg.window, &err)
                 : GT_OK;
        if (rc == GT_OK)
            rc = gt_plot_matrix(db, &o, doc, &err);
        gt_thresholds_free(&t);
    }
    gt_db_close(db);
    json_decref(pj), free(names), free(copy);
    return rc ? gt_cli_fail(&err, rc) : -1;
}

static int run_backtest(int argc, char **argv, struct gt_buf *doc)
{
    if (optind + 1 != argc)
        return gt_cli_usage_error("plot", "backtest needs one report file (backtest --json)");
    const char *path = argv[optind];
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    if (!r) {
        fprintf(stderr, "gridtail: %s:%d: %s\n", path, je.line, je.text);
        return GT_EXIT_INPUT;
    }
    struct gt_error err = {0};
    int rc = gt_plot_backtest(r, doc, &err);
    json_decref(r);
    if (rc && !err.where[0])
        snprintf(err.where, sizeof err.where, "%s", path);
    return rc ? gt_cli_fail(&err, rc) : -1;
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
    "plot emax", plot_emax_usage, (TAKES_ASK & ~OPT(AO_QUANT)) | OPT(AO_POOL) | OPT(AO_POOLFILE) |
                                  OPT(AO_ROOT) | OPT(AO_EXACT) | OPT(AO_THREADS),
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
            char *joined = adv_sites_joined(&r.best[0]);
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

/* `plot emax`: argv[0] = "emax" */
static int plot_emax(struct gt_cli *cli, int argc, char **argv)
{
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    const char *out = NULL, *sizes = NULL;
    int nrest;
    if (!rest)
        return GT_EXIT_IO;
    struct adv_args a = {0};
    int code = plot_emax_args(argc, argv, rest, &nrest, &out, &sizes);
    if (code < 0)
        code = adv_parse(cli, &plot_emax_cmd, nrest, rest, &a);
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
    if (a.pool_file && (code = adv_read_pool(a.pool_file, &pool)) != GT_EXIT_OK) {
        gt_sites_clear(&pool);
        return code;
    }
    size_t iq = want_p99(&a.ad);
    a.ad.o.enforce_max_loss = true;
    struct gt_db *db;
    struct gt_advisor *adv = adv_open(cli, &a, &db, &code);
    struct gt_plot_emax_point pts[PLOT_MAX_SIZES];
    char *labels[PLOT_MAX_SIZES] = {0};
    if (adv) {
        code = plot_emax_points(adv, &a, &pool, lo, hi, iq, pts, labels);
        adv_close(adv, db);
    }
    bool any = false;
    for (long k = 0; adv && k <= hi - lo; k++)
        any = any || isfinite(pts[k].e_max);
    if (code == GT_EXIT_OK || (code == GT_EXIT_INTERRUPTED && any)) {
        struct gt_buf doc;
        struct gt_error err = {0};
        gt_buf_init(&doc, GT_PLOT_MAX_BYTES);
        int rc = gt_plot_emax(a.root ? a.root : "auto", pts, (size_t)(hi - lo + 1), &doc, &err);
        struct plot_args pa = {.out = out};
        int done = rc ? gt_cli_fail(&err, rc) : emit(&pa, &doc);
        code = code == GT_EXIT_INTERRUPTED ? code : done;
        gt_buf_free(&doc);
    }
    for (long k = 0; k <= hi - lo; k++)
        free(labels[k]);
    gt_sites_clear(&pool);
    return code;
}

/* ------------------------------------------------------------ the command */

int cmd_plot(struct gt_cli *cli, int argc, char **argv)
{
    struct plot_args a = {0};
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return argc < 2 ? gt_cli_usage_error("plot", "which plot: ccdf, series, matrix, emax "
                                             "or backtest")
                        : gt_cli_help(plot_usage);
    a.kind = argv[1];
    if (!strcmp(a.kind, "emax"))
        return plot_emax(cli, argc - 1, argv + 1);
    bool known = false;
    for (size_t i = 0; !known && i < sizeof plot_kinds / sizeof plot_kinds[0]; i++)
        if ((known = !strcmp(a.kind, plot_kinds[i].kind)))
            a.takes = plot_kinds[i].takes;
    if (!known)
        return gt_cli_usage_error("plot", "'%s' is not ccdf, series, matrix, emax or backtest",
                                  a.kind);
    int code = parse(cli, argc, argv, &a);
    if (code >= 0)
        return code;
    bool pair = !strcmp(a.kind, "ccdf") || !strcmp(a.kind, "series");
    if (pair && (code = need_pair(&a)) >= 0)
        return code;
    if (strcmp(a.kind, "backtest") && optind < argc)
        return gt_cli_usage_error("plot", "unexpected argument '%s'", argv[optind]);
    struct gt_buf doc;
    gt_buf_init(&doc, GT_PLOT_MAX_BYTES);
    code = !strcmp(a.kind, "backtest") ? run_backtest(argc, argv, &doc) : run_db(cli, &a, &doc);
    if (code < 0)
        code = emit(&a, &doc);
    gt_buf_free(&doc);
    return code;
}
