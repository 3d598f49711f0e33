/*
 * cmd_estimate.c - `gridtail emax` and `gridtail fit`.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "advisor/advice.h"
#include "base/jsonout.h"
#include "base/util.h"
#include "db/query.h"
#include "estimators/emax.h"
#include "estimators/fit.h"
#include "estimators/sliding.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ emax */

static const char emax_usage[] =
    "usage: gridtail emax [--json] [--window M [--cut censor|paper]]\n"
    "                     [--quantile Q[,Q...]] [--slowest] SPEC...\n"
    "\n"
    "Expected time of a one-stage collective, E[max_i L_i] in ms, over\n"
    "independent partners.  SPEC is pareto:K,ALPHA or normal:MU,SIGMA or\n"
    "delta:X, optionally followed by +C (shift by C ms: intra-site latency,\n"
    "compute time) and/or xN (N identical partners), e.g.\n"
    "  gridtail emax pareto:41.7,16.9x64 normal:44.3,2.8+1.5\n"
    "or empirical:FILE, a partner whose latency is one of the RTTs in FILE\n"
    "(ms, separated by blanks, commas or lines; # starts a comment; at most\n"
    "1,048,576 of them) with equal probability, as it stands (no +C, xN).\n"
    "\n"
    "  --window M          samples behind the fits: a Pareto partner with\n"
    "                      ALPHA <= 1 has no mean, and the integral is cut at\n"
    "                      x0 = K M^(1/ALPHA) (the largest such x0)\n"
    "  --cut censor|paper  censor (default): E[min(max, x0)], which never\n"
    "                      falls below the partners' minima; paper: eq. 12 as\n"
    "                      written, the max's mass beyond x0 dropped\n"
    "  --quantile Q,...    also quantiles of the max (0 < Q < 1)\n"
    "  --slowest           each partner's probability of being the slowest\n"
    "  --json              machine-readable output\n"
    "\n"
    "Method: one Pareto group: closed form (eq. 8); Pareto groups with\n"
    "ALPHA > 1 and no shifts: inclusion-exclusion while its measured\n"
    "cancellation allows; all empirical or delta: an exact sum over their\n"
    "values; otherwise GSL adaptive integration (between the values of\n"
    "empirical partners).\n";

/* empirical:FILE: the RTTs of FILE, ascending, into g (*xs owned by the
 * caller); errors name the file and line. */
static int load_empirical(const char *path, struct gt_partner_group *g, double **xs)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) {
        fprintf(stderr, "gridtail emax: %s: %s\n", path, strerror(errno));
        return GT_EXIT_IO;
    }
    size_t n = 0, cap = 0, line = 0, bufsize = 0;
    char *buf = NULL;
    ssize_t len;
    int code = GT_EXIT_OK;
    *xs = NULL;
    while (code == GT_EXIT_OK && (len = getline(&buf, &bufsize, f)) >= 0) {
        line++;
        if (len > 64 << 20) {   /* a number per byte pair at most: bounded by the count */
            fprintf(stderr, "gridtail emax: %s:%zu: line longer than 64 MiB\n", path, line);
            code = GT_EXIT_INPUT;
            break;
        }
        buf[strcspn(buf, "#")] = '\0';
        for (char *tok = strtok(buf, " \t\r\n,"); tok && code == GT_EXIT_OK;
             tok = strtok(NULL, " \t\r\n,")) {
            double v;
            if (!gt_parse_double(tok, strlen(tok), &v) || !isfinite(v) || v < 0) {
                fprintf(stderr, "gridtail emax: %s:%zu: rtt: '%.40s' is not a finite RTT "
                        ">= 0\n", path, line, tok);
                code = GT_EXIT_INPUT;
            } else if (n == GT_EMP_MAX_SAMPLES) {
                fprintf(stderr, "gridtail emax: %s:%zu: more than %d RTTs\n", path, line,
                        GT_EMP_MAX_SAMPLES);
                code = GT_EXIT_INPUT;
            } else {
                if (n == cap) {
                    cap = cap ? 2 * cap : 1024;
                    double *v2 = realloc(*xs, cap * sizeof *v2);
                    if (!v2) {
                        fprintf(stderr, "gridtail emax: out of memory\n");
                        code = GT_EXIT_IO;
                        break;
                    }
                    *xs = v2;
                }
                (*xs)[n++] = v;
            }
        }
    }
    free(buf);
    if (code == GT_EXIT_OK && ferror(f)) {
        fprintf(stderr, "gridtail emax: %s: %s\n", path, strerror(errno));
        code = GT_EXIT_IO;
    }
    if (code == GT_EXIT_OK && n == 0) {
        fprintf(stderr, "gridtail emax: %s: no RTTs\n", path);
        code = GT_EXIT_INPUT;
    }
    if (f != stdin)
        fclose(f);
    if (code == GT_EXIT_OK) {
        qsort(*xs, n, sizeof **xs, gt_cmp_double);
        memset(g, 0, sizeof *g);
        g->count = 1;
        gt_dist_set_empirical(&g->dist, *xs, n);
    }
    return code;
}

/* Length of a number starting at s: digits, '.', and signs only at the
 * start or after an exponent. */
static size_t number_len(const char *s)
{
    size_t i = 0;
    while (s[i]) {
        char c = s[i];
        bool sign_ok = i == 0 || s[i - 1] == 'e' || s[i - 1] == 'E';
        if ((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' ||
            ((c == '+' || c == '-') && sign_ok))
            i++;
        else
            break;
    }
    return i;
}

static bool take_number(const char **p, double *v)
{
    size_t n = number_len(*p);
    if (!n || !gt_parse_double(*p, n, v) || !isfinite(*v))
        return false;
    *p += n;
    return true;
}

/* Parse one SPEC; on failure *why says what is wrong. */
static bool parse_spec(const char *spec, struct gt_partner_group *g, const char **why)
{
    const char *colon = strchr(spec, ':');
    char name[16];
    if (!colon || (size_t)(colon - spec) >= sizeof name)
        return *why = "expected MODEL:PARAMS (pareto, normal, delta or empirical:FILE)", false;
    memcpy(name, spec, (size_t)(colon - spec));
    name[colon - spec] = '\0';
    const struct gt_model *m = gt_model_find(name);
    if (!m)
        return *why = "unknown model (pareto, normal, delta or empirical:FILE)", false;
    memset(g, 0, sizeof *g);
    g->dist.model = m;
    g->count = 1;
    const char *p = colon + 1;
    for (int k = 0; k < m->nparams; k++) {
        if (k && *p++ != ',')
            return *why = m->nparams == 2 ? "expected two parameters" : "bad parameters", false;
        if (!take_number(&p, &g->dist.p[k]))
            return *why = "a parameter is not a finite number", false;
    }
    bool shifted = false, counted = false;
    while (*p) {
        if (*p == '+' && !shifted) {
            p++;
            if (!take_number(&p, &g->dist.shift))
                return *why = "+C: not a finite number", false;
            shifted = true;
        } else if (*p == 'x' && !counted) {
            int64_t c;
            size_t n = strspn(p + 1, "0123456789");
            if (!n || !gt_parse_i64(p + 1, n, &c) || c < 1 || c > 1000000000)
                return *why = "xN: N must be a whole number in [1, 1e9]", false;
            g->count = (double)c;
            p += 1 + n;
            counted = true;
        } else {
            return *why = "unexpected text after the parameters", false;
        }
    }
    if ((*why = m->check(g->dist.p)))
        return false;
    return true;
}

static bool parse_quantiles(const char *s, double *q, size_t *nq, size_t max)
{
    *nq = 0;
    while (*s) {
        size_t n = strcspn(s, ",");
        if (*nq == max || !gt_parse_double(s, n, &q[*nq]) || !(q[*nq] > 0 && q[*nq] < 1))
            return false;
        (*nq)++;
        s += n + (s[n] == ',');
    }
    return *nq > 0;
}

static json_t *partner_json(const char *spec, const struct gt_partner_group *g, double ps,
                            bool slowest)
{
    const struct gt_model *m = g->dist.model;
    json_t *params = json_object();
    for (int k = 0; k < m->nparams; k++)
        json_object_set_new(params, m->param_names[k], json_real(g->dist.p[k]));
    if (gt_dist_is_step(&g->dist)) {
        json_object_set_new(params, "median",
                            json_real(gt_quantile_sorted(g->dist.xs, g->dist.nx, 0.5)));
        json_object_set_new(params, "n", json_integer((json_int_t)g->dist.nx));
    }
    json_t *o = json_pack("{s:s, s:s, s:o, s:f, s:I}", "spec", spec, "model", m->name,
                          "params", params, "shift", g->dist.shift,
                          "count", (json_int_t)g->count);
    if (slowest)
        json_object_set_new(o, "p_slowest", gt_json_real_or_null(ps));
    return o;
}

static void print_emax(char **specs, const struct gt_partner_group *g, size_t ng,
                       const struct gt_emax_result *r, const double *q, size_t nq,
                       double cut, bool cut_paper, bool slowest, bool json)
{
    if (json) {
        json_t *o = json_pack("{s:o, s:I, s:s, s:o}", "e_max", gt_json_real_or_null(r->e_max),
                              "n", (json_int_t)r->n, "method", r->method, "abserr",
                              gt_json_real_or_null(r->abserr));
        json_object_set_new(o, "cut_x0", gt_json_real_or_null(cut));
        json_object_set_new(o, "cut", isfinite(cut) ? json_string(cut_paper ? "paper" : "censor")
                                                    : json_null());
        if (nq) {
            json_t *qs = json_object();
            for (size_t k = 0; k < nq; k++) {
                char key[32];
                snprintf(key, sizeof key, "%g", q[k]);
                json_object_set_new(qs, key, gt_json_real_or_null(r->q_values[k]));
            }
            json_object_set_new(o, "quantiles", qs);
        }
        json_t *ps = json_array();
        for (size_t i = 0; i < ng; i++)
            json_array_append_new(ps, partner_json(specs[i], &g[i],
                                                   slowest ? r->p_slowest[i] : 0, slowest));
        json_object_set_new(o, "partners", ps);
        gt_cli_print_json(o);
        return;
    }
    printf("E[max] = %.6f ms over %.0f partners (method: %s)\n", r->e_max, r->n, r->method);
    if (isfinite(cut))
        printf(cut_paper ? "cut-off: alpha <= 1, the max's mass beyond x0 = %.6f ms is dropped "
                           "(--cut paper)\n"
                         : "cut-off: alpha <= 1, the max is censored at x0 = %.6f ms: "
                           "E[min(max, x0)]\n", cut);
    for (size_t k = 0; k < nq; k++)
        printf("quantile %g of the max: %.6f ms\n", q[k], r->q_values[k]);
    if (slowest)
        for (size_t i = 0; i < ng; i++)
            printf("P(slowest in %s) = %.6f\n", specs[i], r->p_slowest[i]);
}

int cmd_emax(struct gt_cli *cli, int argc, char **argv)
{
    (void)cli;
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"window", required_argument, NULL, 'w'}, {"quantile", required_argument, NULL, 'q'},
        {"slowest", no_argument, NULL, 's'}, {"cut", required_argument, NULL, 'c'},
        {NULL, 0, NULL, 0}};
    bool json = false, slowest = false, cut_paper = false;
    long window = 0;
    double q[64];
    size_t nq = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': return gt_cli_help(emax_usage);
        case 'j': json = true; break;
        case 's': slowest = true; break;
        case 'c': {
            int v = gt_opt_choice("emax", "--cut", optarg, gt_cut_words);
            if (v < 0)
                return GT_EXIT_USAGE;
            cut_paper = v == 1;
            break;
        }
        case 'w':
            if (!gt_opt_long("emax", "--window", optarg, 2, 1000000000, &window))
                return GT_EXIT_USAGE;
            break;
        case 'q':
            if (!parse_quantiles(optarg, q, &nq, 64))
                return gt_cli_usage_error("emax", "--quantile: '%s' is not a list of numbers "
                                          "in (0, 1)", optarg);
            break;
        default: return gt_cli_usage_error("emax", "bad option");
        }
    }
    size_t ng = (size_t)(argc - optind);
    if (ng == 0)
        return gt_cli_usage_error("emax", "no partner SPEC given");
    struct gt_partner_group *g = calloc(ng, sizeof *g);
    double *qv = calloc(nq ? nq : 1, sizeof *qv), *ps = calloc(ng, sizeof *ps);
    double **samples = calloc(ng, sizeof *samples);
    int code = g && qv && ps && samples ? GT_EXIT_OK : GT_EXIT_IO;
    for (size_t i = 0; i < ng && code == GT_EXIT_OK; i++) {
        const char *why, *spec = argv[optind + (int)i];
        if (!strncmp(spec, "empirical:", 10)) {
            code = load_empirical(spec + 10, &g[i], &samples[i]);
        } else if (!parse_spec(spec, &g[i], &why)) {
            fprintf(stderr, "gridtail emax: '%s': %s\n", argv[optind + (int)i], why);
            code = GT_EXIT_INPUT;
        }
    }
    if (code == GT_EXIT_OK) {
        double cut = window ? gt_emax_cut_for_window(g, ng, (double)window) : INFINITY;
        struct gt_emax_opts o = {cut, cut_paper, q, nq, slowest, false, NULL, 0, NULL, false};
        struct gt_emax_result r = {0, 0, NULL, 0, qv, ps, NULL};
        struct gt_error err = {0};
        int rc = gt_emax(g, ng, &o, &r, &err);
        if (rc) {
            code = gt_cli_fail(&err, rc);
        } else {
            print_emax(argv + optind, g, ng, &r, q, nq, cut, cut_paper, slowest, json);
            if (!isfinite(r.e_max)) {   /* an answer, but not one to act on */
                fprintf(stderr, "gridtail emax: E[max] is not finite: the partners' values "
                        "overflow a double, or a Pareto alpha <= 1 has no mean (give --window "
                        "to cut it as METHOD.md says)\n");
                code = GT_EXIT_INPUT;
            }
        }
    }
    for (size_t i = 0; samples && i < ng; i++)
        free(samples[i]);
    free(samples);
    free(g);
    free(qv);
    free(ps);
    return code;
}

/* ------------------------------------------------------------ fit */

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

static int read_samples(const char *path, struct series *s)
{
    const char *name;
    FILE *f = gt_cli_open_input(path, &name);
    if (!f)
        return GT_EXIT_IO;
    char line[GT_LINE_MAX];
    long lineno = 0;
    size_t cap = 0;
    int code = GT_EXIT_OK, got;
    while ((got = gt_cli_read_line(f, name, &lineno, line)) != 0) {
        if (got < 0) {
            code = GT_EXIT_INPUT;
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
