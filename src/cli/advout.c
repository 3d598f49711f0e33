/*
 * advout.c - see advout.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "advout.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

char *adv_sites_joined(const struct gt_estimate *e)
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
    char *sites = adv_sites_joined(e);
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
    char *sites = adv_sites_joined(e);
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

void adv_print_tsv_header(const struct adv_args *a)
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
    char *sites = adv_sites_joined(e);
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

void adv_print_one(const struct gt_estimate *e, size_t rank, const struct adv_args *a)
{
    switch (a->fmt) {
    case AOUT_GRIDWAY: print_gridway(e, rank ? rank : 1, a); break;
    case AOUT_CLASSAD: print_classad(e, rank ? rank : 1, a); break;
    case AOUT_TSV: print_tsv(e, rank ? rank : 1, a); break;
    default: print_table(e, rank, a); break;
    }
}

/* A list of answers: JSON (doc, with them as "candidates") or lines. */
void adv_print_many(const struct gt_estimate *v, size_t n, const struct adv_args *a, json_t *doc)
{
    if (a->fmt == AOUT_JSON) {
        gt_cli_print_json(doc);
        return;
    }
    json_decref(doc);
    if (a->fmt == AOUT_TSV)
        adv_print_tsv_header(a);
    for (size_t i = 0; i < n; i++)
        adv_print_one(&v[i], i + 1, a);
}
