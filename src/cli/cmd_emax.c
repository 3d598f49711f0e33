/*
 * cmd_emax.c - `gridtail emax`: E[max] of a collective over partner
 * distributions given on the command line (no store), with its
 * quantiles and each partner's chance of being the slowest.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "base/jsonout.h"
#include "base/util.h"
#include "estimators/emax.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

#define EMP_LINE_MAX (64u << 20)
#define EMP_FILE_MAX (256u << 20)

/* empirical:FILE: the RTTs of FILE, ascending, into g (*xs owned by the
 * caller); errors name the file and line. */
static int load_empirical(const char *path, struct gt_partner_group *g, double **xs)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) {
        fprintf(stderr, "gridtail emax: %s: %s\n", path, strerror(errno));
        return GT_EXIT_IO;
    }
    /* a line of 64 MiB (a number per byte pair at most: bounded by the
       count), the file 256 MiB; the buffer's pages are touched only as a
       line fills them */
    size_t n = 0, cap = 0, line = 0;
    char *buf = malloc(EMP_LINE_MAX + 1);
    struct gt_lines in;
    struct gt_error err = {0};
    gt_lines_init(&in, f, strcmp(path, "-") ? path : "<stdin>", EMP_FILE_MAX);
    int code = buf ? GT_EXIT_OK : GT_EXIT_IO, got;
    if (!buf)
        fprintf(stderr, "gridtail emax: out of memory\n");
    *xs = NULL;
    while (code == GT_EXIT_OK && (got = gt_lines_next(&in, buf, EMP_LINE_MAX + 1, &err)) != 0) {
        line = (size_t)in.line;
        if (got < 0) {
            fprintf(stderr, "gridtail emax: %s: %s\n", in.where, err.msg);
            code = gt_exit_code(got == GT_ETOOBIG ? GT_EINPUT : got);
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
        struct gt_emax_opts o = {cut, cut_paper, q, nq, slowest, false, NULL, 0, NULL, false, false};
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
