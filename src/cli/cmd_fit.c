/*
 * cmd_fit.c - `gridtail fit`: the Pareto and normal fits of a window of
 * samples, from a file or the store, or of every window of a series.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "advisor/advice.h"
#include "base/jsonout.h"
#include "base/util.h"
#include "db/query.h"
#include "estimators/fit.h"
#include "estimators/sliding.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char fit_usage[] =
    "usage: gridtail fit [--json] [--window M] [--model auto|pareto|normal]\n"
    "                    [--all-windows [--params-only]] [FILE|-]\n"
    "       gridtail fit [OPTIONS] --src A --dst B [--at TIME]\n"
    "\n"
    "Fit the latency distribution of the last M samples (default: [estimate]\n"
    "window of the config, 60): Pareto by maximum likelihood (k = minimum,\n"
    "alpha = M / sum ln(x/k)) and normal (mean, sd with M-1), each with its\n"
    "chi-square fit index (on log data, Scott's rule classes) and its\n"
    "Kolmogorov-Smirnov distance; the smaller chi-square is selected (ties\n"
    "and infinities: smaller KS).  A window of equal samples is a delta.\n"
    "Lost samples take the previous valid value.  Samples come from FILE\n"
    "(one RTT in ms per line; 'loss' or an empty line is a lost probe; '#'\n"
    "starts a comment) or standard input, or from the stored pair A -> B\n"
    "up to TIME (default now).\n"
    "\n"
    "  --all-windows   every window of the series, one line per step\n"
    "  --params-only   with --all-windows: parameters only, O(1) per step\n";

struct series {
    double *v;
    int64_t *ts;      /* NULL for samples from a file */
    size_t n;
    struct gt_prior prior;   /* a stored pair's last valid sample before v */
};

/* A samples file (--input): 256 MiB, some 30 million samples. */
#define GT_FIT_INPUT_MAX_BYTES (256u << 20)

static int read_samples(const char *path, struct series *s)
{
    const char *name;
    FILE *f = gt_cli_open_input(path, &name);
    if (!f)
        return GT_EXIT_IO;
    char line[GT_LINE_MAX];
    struct gt_lines in;
    gt_lines_init(&in, f, name, GT_FIT_INPUT_MAX_BYTES);
    long lineno = 0;
    size_t cap = 0;
    int code = GT_EXIT_OK, got;
    while ((got = gt_cli_read_line(&in, line)) != 0) {
        lineno = in.line;
        if (got < 0) {
            code = gt_exit_code(got == GT_ETOOBIG ? GT_EINPUT : got);
            break;
        }
        const char *p = line;
        size_t len = strcspn(line, "\n#");
        gt_trim_span(&p, &len);
        bool comment_only = len == 0 && line[strspn(line, " \t")] == '#';
        if (comment_only)
            continue;
        double v = NAN;
        if (len && !gt_span_ieq(p, len, "loss") &&
            (!gt_parse_double(p, len, &v) || !isfinite(v) || v < 0)) {
            fprintf(stderr, "gridtail: %s:%ld: '%.*s' is not an RTT in ms, 'loss' or empty\n",
                    name, lineno, (int)(len > 40 ? 40 : len), p);
            code = GT_EXIT_INPUT;
            break;
        }
        if (s->n == cap) {
            cap = cap ? cap * 2 : 1024;
            double *nv = realloc(s->v, cap * sizeof *nv);
            if (!nv) {
                code = GT_EXIT_IO;
                break;
            }
            s->v = nv;
        }
        s->v[s->n++] = v;
    }
    gt_cli_close_input(f);
    return code;
}

static void print_models(const struct gt_fit *f);

static void print_fit(const struct gt_fit *f, size_t window, const struct gt_verdict_limits *lim,
                      bool json)
{
    char lines[GT_VERDICT_MAX_LINES][GT_VERDICT_LINE];
    int nl = gt_advice_fit_verdict(f, window, lim, lines);
    if (json) {
        gt_cli_print_json(gt_advice_fit_json(f, window, lim));
        return;
    }
    printf("window: %zu samples, %zu valid", f->m, f->valid);
    if (f->filled)
        printf(" (%zu lost, each filled with the previous value)", f->filled);
    if (f->dropped)
        printf(" (%zu leading lost with no value before them: dropped)", f->dropped);
    if (f->timed) {
        char a[32], b[32];
        gt_format_time(f->first_ts, a, sizeof a);
        gt_format_time(f->last_ts, b, sizeof b);
        printf(", %s .. %s", a, b);
    }
    putchar('\n');
    if (f->valid == 0) {
        char t[32] = "before the window";
        if (f->timed)
            gt_format_time(f->outage_since, t, sizeof t);
        printf("no answer in the whole window: an outage since %s; its last value %.6g ms "
               "is used (a delta)\n", t, f->p[0]);
    } else if (f->degenerate) {
        printf("all samples equal %.6g ms: a delta (alpha = infinity, sigma = 0)\n", f->p[0]);
    } else {
        print_models(f);
    }
    if (nl == 0)
        printf("verdict: ok\n");
    for (int k = 0; k < nl; k++)
        printf("verdict: %s\n", lines[k]);
}

static void print_models(const struct gt_fit *f)
{
    if (f->pareto.ok)
        printf("pareto: k = %.6g ms, alpha = %.6g, chi2 = %.6g, ks = %.4f\n", f->pareto.p[0],
               f->pareto.p[1], f->pareto.chi2, f->pareto.ks);
    else
        printf("pareto: not applicable (%s)\n", f->pareto.why);
    printf("normal: mu = %.6g ms, sigma = %.6g ms, chi2 = %.6g, ks = %.4f\n", f->normal.p[0],
           f->normal.p[1], f->normal.chi2, f->normal.ks);
    printf("selected: %s\n", f->selected->name);
    if (isfinite(f->cut_x0))
        printf("alpha <= 1: no mean; E[max] integrals are cut at x0 = %.6g ms\n", f->cut_x0);
}

/* A fit index for a table: inf is meaningful (the model puts no mass
 * where two samples are), an index not computed is '-'. */
static const char *index_text(double v, char *buf, size_t size)
{
    if (isnan(v))
        return "-";
    if (isinf(v))
        return "inf";
    snprintf(buf, size, "%.10g", v);
    return buf;
}

static int all_windows(const struct series *s, size_t m, enum gt_fit_choice choice,
                       bool params_only, bool json)
{
    struct gt_slider *sl = gt_slider_new(m);
    double *win = malloc(m * sizeof *win);
    if (!sl || !win) {
        gt_slider_free(sl);
        free(win);
        return GT_EXIT_IO;
    }
    if (json)
        fputs("{\"window\": ", stdout), printf("%zu, \"steps\": [", m);
    else
        printf("step\tts\tk\talpha\tmu\tsigma%s\n",
               params_only ? "" : "\tchi2_pareto\tchi2_normal\tselected");
    bool first = true;
    for (size_t i = 0; i < s->n; i++) {
        if (!gt_slider_push(sl, s->v[i]) || gt_slider_count(sl) < m)
            continue;
        struct gt_slider_params p;
        gt_slider_params(sl, &p);
        const char *sel = "";
        double chi2[2] = {NAN, NAN};   /* pareto, normal */
        if (!params_only) {
            struct gt_fit f;
            gt_slider_window(sl, win);
            bool ok = gt_fit_window(win, m, choice, &f, NULL) == GT_OK;
            sel = ok ? f.selected->name : "none";
            if (ok && f.pareto.ok)
                chi2[0] = f.pareto.chi2;
            if (ok && f.normal.ok)
                chi2[1] = f.normal.chi2;
        }
        char ts[32] = "-";
        if (s->ts)
            snprintf(ts, sizeof ts, "%lld", (long long)s->ts[i]);
        if (json) {
            json_t *o = json_pack("{s:I, s:f, s:f, s:f}", "step", (json_int_t)i, "k", p.k,
                                  "mu", p.mu, "sigma", p.sigma);
            json_object_set_new(o, "alpha", gt_json_real_or_null(p.alpha));
            if (s->ts)
                json_object_set_new(o, "ts", json_integer(s->ts[i]));
            if (!params_only) {
                json_object_set_new(o, "chi2_pareto", gt_json_real_or_null(chi2[0]));
                json_object_set_new(o, "chi2_normal", gt_json_real_or_null(chi2[1]));
                json_object_set_new(o, "selected", json_string(sel));
            }
            fputs(first ? "\n  " : ",\n  ", stdout);
            gt_json_dumpf(o, stdout, JSON_COMPACT);
            json_decref(o);
        } else {
            printf("%zu\t%s\t%.10g\t%.10g\t%.10g\t%.10g", i, ts, p.k, p.alpha, p.mu, p.sigma);
            if (!params_only) {
                char c0[32], c1[32];
                printf("\t%s\t%s\t%s", index_text(chi2[0], c0, sizeof c0),
                       index_text(chi2[1], c1, sizeof c1), sel);
            }
            putchar('\n');
        }
        first = false;
    }
    if (json)
        fputs("\n]}\n", stdout);
    gt_slider_free(sl);
    free(win);
    return first ? (fprintf(stderr, "gridtail: fewer than %zu samples: no window\n", m),
                    GT_EXIT_INPUT) : GT_EXIT_OK;
}

struct fit_args {
    bool json, all, params_only;
    long window;
    enum gt_fit_choice choice;
    const char *src, *dst;
    int64_t at;
};

static int fit_parse(struct gt_cli *cli, int argc, char **argv, struct fit_args *a)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"window", required_argument, NULL, 'w'}, {"model", required_argument, NULL, 'm'},
        {"all-windows", no_argument, NULL, 'a'}, {"params-only", no_argument, NULL, 'p'},
        {"src", required_argument, NULL, 's'}, {"dst", required_argument, NULL, 'd'},
        {"at", required_argument, NULL, 't'}, {NULL, 0, NULL, 0}};
    a->window = cli->cfg.window;
    a->at = (int64_t)time(NULL);
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': return gt_cli_help(fit_usage);
        case 'j': a->json = true; break;
        case 'a': a->all = true; break;
        case 'p': a->params_only = true; break;
        case 's': a->src = optarg; break;
        case 'd': a->dst = optarg; break;
        case 'w':
            if (!gt_opt_long("fit", "--window", optarg, 2, 100000000, &a->window))
                return GT_EXIT_USAGE;
            break;
        case 't':
            if (!gt_opt_time("fit", "--at", optarg, &a->at))
                return GT_EXIT_USAGE;
            break;
        case 'm': {
            static const int choices[] = {GT_FIT_AUTO, GT_FIT_PARETO, GT_FIT_NORMAL};
            int v = gt_opt_choice("fit", "--model", optarg,
                                  (const char *const[]){"auto", "pareto", "normal", NULL});
            if (v < 0)
                return GT_EXIT_USAGE;
            a->choice = choices[v];
            break;
        }
        default: return gt_cli_usage_error("fit", "bad option");
        }
    }
    if (!a->src != !a->dst)
        return gt_cli_usage_error("fit", "--src and --dst go together");
    if (a->src && optind < argc)
        return gt_cli_usage_error("fit", "give a stored pair or a file, not both");
    if (optind + 1 < argc)
        return gt_cli_usage_error("fit", "one input at most");
    return -1;
}

static int load_stored(struct gt_cli *cli, const struct fit_args *a, struct series *s)
{
    int code;
    struct gt_db *db = gt_cli_open_db(cli, GT_DB_READ, &code);
    if (!db)
        return code;
    struct gt_error err = {0};
    int rc = gt_query_series(db, a->src, a->dst, a->at, a->all ? 0 : (size_t)a->window,
                             &s->ts, &s->v, &s->n, &s->prior, &err);
    gt_db_close(db);
    return rc ? gt_cli_fail(&err, rc) : GT_EXIT_OK;
}

int cmd_fit(struct gt_cli *cli, int argc, char **argv)
{
    struct fit_args a = {0};
    int code = fit_parse(cli, argc, argv, &a);
    if (code >= 0)
        return code;
    struct series s = {0};
    code = a.src ? load_stored(cli, &a, &s) : read_samples(optind < argc ? argv[optind] : "-", &s);
    if (code == GT_EXIT_OK && a.all) {
        code = all_windows(&s, (size_t)a.window, a.choice, a.params_only, a.json);
    } else if (code == GT_EXIT_OK) {
        size_t first = s.n > (size_t)a.window ? s.n - (size_t)a.window : 0;
        /* the last valid sample before the window: in the input, else stored */
        double prior = s.prior.found ? s.prior.rtt : NAN;
        int64_t prior_ts = s.prior.ts;
        for (size_t i = first; i-- > 0;)
            if (!isnan(s.v[i])) {
                prior = s.v[i];
                prior_ts = s.ts ? s.ts[i] : 0;
                break;
            }
        struct gt_fit f;
        struct gt_error err = {0};
        struct gt_verdict_limits lim = gt_advice_verdict_limits(&cli->cfg);
        int rc = gt_fit_series(s.v + first, s.ts ? s.ts + first : NULL, s.n - first, prior,
                               prior_ts, a.choice, &f, &err);
        if (rc)
            code = gt_cli_fail(&err, rc);
        else
            print_fit(&f, (size_t)a.window, &lim, a.json);
    }
    free(s.v);
    free(s.ts);
    return code;
}
