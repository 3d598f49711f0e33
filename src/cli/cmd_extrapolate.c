/*
 * cmd_extrapolate.c - `gridtail extrapolate`: a time measured at a few
 * process counts extrapolated to others (docs/MODELS.md).  It computes
 * from its arguments alone.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "base/util.h"
#include "estimators/companion/extrap.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
