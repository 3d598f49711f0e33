/*
 * advice.c - see advice.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "advice.h"
#include "base/util.h"
#include "estimators/companion/extrap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ options */

void gt_advice_defaults(struct gt_advice *ad, const struct gt_config *cfg, int64_t now)
{
    memset(ad, 0, sizeof *ad);
    ad->o.window = (size_t)cfg->window;
    ad->o.at = now;
    ad->o.intra_site_ms = cfg->intra_site_ms;
    ad->o.stale_after_s = cfg->stale_after_s;
    ad->o.min_samples = cfg->min_samples;
    ad->o.symmetric = cfg->assume_symmetric != 0;
    ad->o.verdict = gt_advice_verdict_limits(cfg);
    ad->o.fallback_empirical = cfg->fallback_empirical != 0;
    ad->o.rto_ms = cfg->rto_ms;
    ad->o.max_loss = cfg->max_loss;
    ad->o.horizon_s = (double)cfg->horizon_s;
    ad->o.outcomes = (size_t)cfg->adaptive_outcomes;
    ad->o.cal_outcomes = (size_t)cfg->calibration_outcomes;
    ad->q[0] = 0.5, ad->q[1] = 0.9, ad->q[2] = 0.99;
    ad->o.q = ad->q;
    ad->o.nq = 3;
    ad->model_name = "auto";
    snprintf(ad->objective, sizeof ad->objective, "mean");
    ad->loggps_spec = cfg->loggps;
}

bool gt_advice_set_model(struct gt_advice *ad, const char *name)
{
    static const char *const names[] = {"auto", "pareto", "normal", "last", "empirical",
                                        "adaptive", "combined"};
    for (int i = 0; i < 7; i++)
        if (!strcmp(name, names[i])) {
            ad->o.model = (enum gt_adv_model)i;
            ad->model_name = names[i];
            return true;
        }
    return false;
}

bool gt_advice_set_objective(struct gt_advice *ad, const char *name)
{
    double pct;
    if (!strcmp(name, "mean")) {
        ad->o.objective_q = 0;
    } else if (name[0] == 'p' && strlen(name) < sizeof ad->objective &&
               gt_parse_double(name + 1, strlen(name + 1), &pct) && pct > 0 && pct < 100) {
        ad->o.objective_q = pct / 100;
    } else {
        return false;
    }
    snprintf(ad->objective, sizeof ad->objective, "%s", name);
    return true;
}

bool gt_advice_set_cut(struct gt_advice *ad, const char *name)
{
    if (strcmp(name, "censor") && strcmp(name, "paper"))
        return false;
    ad->o.cut_paper = name[0] == 'p';
    return true;
}

void gt_advice_set_horizon(struct gt_advice *ad, double seconds)
{
    ad->o.horizon_s = seconds;
    ad->horizon_set = true;
}

int gt_advice_finish(struct gt_advice *ad, struct gt_error *err)
{
    if (ad->o.iterations && !ad->horizon_set)
        ad->o.horizon_s = 0;   /* the advisor takes the job's length */
    if (!(ad->o.bytes > 0))
        return GT_OK;
    int rc = gt_loggps_load(ad->loggps_spec, &ad->loggps, err);
    if (rc == GT_OK)
        ad->o.loggps = &ad->loggps;
    return rc;
}

int gt_advice_compute_from(struct gt_advice *ad, const double *n, const double *t, size_t m,
                           struct gt_error *err)
{
    struct gt_extrap x;
    int rc = gt_extrap_run(n, t, m, 1, &x, err);
    if (rc)
        return rc;
    ad->o.compute_extrap = true;
    ad->o.compute_model = x.classic;
    memcpy(ad->o.compute_p, x.fit[x.classic].p, sizeof ad->o.compute_p);
    ad->compute_model_name = gt_xmodel_name(x.classic);
    return GT_OK;
}

/* A JSON number in [lo, hi] (integers too). */
static bool json_number_in(const json_t *v, double lo, double hi, double *out)
{
    if (!json_is_number(v))
        return false;
    *out = json_number_value(v);
    return isfinite(*out) && *out >= lo && *out <= hi;
}

bool gt_json_long_in(const json_t *v, long lo, long hi, long *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return false;
    *out = (long)json_integer_value(v);
    return true;
}

static int bad_field(struct gt_error *err, const char *key, const char *what)
{
    return gt_error_set(err, GT_EUSAGE, key, "%s", what);
}

static int compute_from_json(struct gt_advice *ad, const json_t *v, struct gt_error *err)
{
    double n[64], t[64];
    size_t m = json_array_size(v), i;
    const json_t *p;
    if (!json_is_array(v) || m < 3 || m > 64)
        return bad_field(err, "compute_from", "expected 3 to 64 [processes, ms] pairs");
    json_array_foreach(v, i, p) {
        if (json_array_size(p) != 2 || !json_number_in(json_array_get(p, 0), 1, 1e12, &n[i]) ||
            !json_number_in(json_array_get(p, 1), 0, 1e15, &t[i]))
            return bad_field(err, "compute_from", "each entry is [processes >= 1, ms >= 0]");
    }
    struct gt_error e = {0};
    if (gt_advice_compute_from(ad, n, t, m, &e) != GT_OK)
        return bad_field(err, "compute_from", e.msg);
    return GT_OK;
}

static int quantiles_from_json(struct gt_advice *ad, const json_t *v, struct gt_error *err)
{
    size_t m = json_array_size(v), i;
    const json_t *q;
    if (!json_is_array(v) || m < 1 || m > 32)
        return bad_field(err, "quantiles", "expected a list of 1 to 32 numbers in (0, 1)");
    json_array_foreach(v, i, q) {
        if (!json_number_in(q, 0, 1, &ad->q[i]) || ad->q[i] <= 0 || ad->q[i] >= 1)
            return bad_field(err, "quantiles", "expected numbers in (0, 1)");
    }
    ad->o.nq = m;
    return GT_OK;
}

static int at_from_json(struct gt_advice *ad, const json_t *v, struct gt_error *err)
{
    if (json_is_integer(v)) {
        ad->o.at = (int64_t)json_integer_value(v);
        return GT_OK;
    }
    if (json_is_string(v) &&
        gt_parse_time(json_string_value(v), json_string_length(v), &ad->o.at))
        return GT_OK;
    return bad_field(err, "at", "expected a time: ISO 8601 UTC or Unix seconds");
}

/* One common option; 1 if key is not one. */
static int option_from_json(struct gt_advice *ad, const char *key, const json_t *v,
                            struct gt_error *err)
{
    long l;
    if (!strcmp(key, "window")) {
        if (!gt_json_long_in(v, 2, 1000000, &l))
            return bad_field(err, key, "expected an integer in [2, 1000000]");
        ad->o.window = (size_t)l;
    } else if (!strcmp(key, "model")) {
        if (!json_is_string(v) || !gt_advice_set_model(ad, json_string_value(v)))
            return bad_field(err, key, "expected \"auto\", \"pareto\", \"normal\", "
                             "\"last\", \"empirical\", \"adaptive\" or \"combined\"");
    } else if (!strcmp(key, "horizon_s")) {
        double h;
        if (!json_number_in(v, 1, GT_ADAPT_MAX_HORIZON_S, &h))
            return bad_field(err, key, "expected seconds in [1, 2592000]");
        gt_advice_set_horizon(ad, h);
    } else if (!strcmp(key, "calibration_outcomes")) {
        double w;
        if (!json_number_in(v, 0, GT_CALIB_MAX_OUTCOMES, &w) || w != floor(w))
            return bad_field(err, key, "expected an integer in [0, 10000]");
        ad->o.cal_outcomes = (size_t)w;
    } else if (!strcmp(key, "fallback")) {
        if (!json_is_string(v) || (strcmp(json_string_value(v), "empirical") &&
                                   strcmp(json_string_value(v), "none")))
            return bad_field(err, key, "expected \"empirical\" or \"none\"");
        ad->o.fallback_empirical = json_string_value(v)[0] == 'e';
    } else if (!strcmp(key, "loss")) {
        if (!json_is_string(v) || (strcmp(json_string_value(v), "model") &&
                                   strcmp(json_string_value(v), "ignore")))
            return bad_field(err, key, "expected \"model\" or \"ignore\"");
        ad->o.loss_ignore = json_string_value(v)[0] == 'i';
    } else if (!strcmp(key, "max_loss")) {
        if (!json_number_in(v, 0, 1, &ad->o.max_loss))
            return bad_field(err, key, "expected a number in [0, 1]");
    } else if (!strcmp(key, "objective")) {
        if (!json_is_string(v) || !gt_advice_set_objective(ad, json_string_value(v)))
            return bad_field(err, key, "expected \"mean\" or \"pNN\" such as \"p99\"");
    } else if (!strcmp(key, "cut")) {
        if (!json_is_string(v) || !gt_advice_set_cut(ad, json_string_value(v)))
            return bad_field(err, key, "expected \"censor\" or \"paper\"");
    } else if (!strcmp(key, "at")) {
        return at_from_json(ad, v, err);
    } else if (!strcmp(key, "compute")) {
        if (!json_number_in(v, 0, 1e15, &ad->o.compute_ms))
            return bad_field(err, key, "expected a number of ms >= 0");
    } else if (!strcmp(key, "compute_from")) {
        return compute_from_json(ad, v, err);
    } else if (!strcmp(key, "iterations")) {
        if (!gt_json_long_in(v, 1, 1000000000, &ad->o.iterations))
            return bad_field(err, key, "expected an integer in [1, 1e9]");
    } else if (!strcmp(key, "quantiles")) {
        return quantiles_from_json(ad, v, err);
    } else if (!strcmp(key, "symmetric")) {
        if (!json_is_boolean(v))
            return bad_field(err, key, "expected true or false");
        ad->o.symmetric = json_is_true(v);
    } else if (!strcmp(key, "skip_missing")) {
        if (!json_is_boolean(v))
            return bad_field(err, key, "expected true or false");
        ad->o.skip_missing = json_is_true(v);
    } else if (!strcmp(key, "bytes")) {
        if (!json_number_in(v, 0, 1e15, &ad->o.bytes))
            return bad_field(err, key, "expected a number of bytes >= 0");
    } else if (!strcmp(key, "loggps")) {
        if (!json_is_string(v) || !gt_loggps_builtin(json_string_value(v)))
            return bad_field(err, key, "expected a built-in set: \"myrinet\" or "
                             "\"fast-ethernet\"");
        ad->loggps_spec = json_string_value(v);
    } else {
        return 1;
    }
    return GT_OK;
}

int gt_advice_from_json(struct gt_advice *ad, const json_t *req, const char *const *allowed,
                        struct gt_error *err)
{
    if (!json_is_object(req))
        return gt_error_set(err, GT_EUSAGE, NULL, "the request must be a JSON object");
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)req, key, v) {
        int rc = option_from_json(ad, key, v, err);
        if (rc <= 0) {
            if (rc)
                return rc;
            continue;
        }
        bool known = false;
        for (size_t i = 0; allowed && allowed[i] && !known; i++)
            known = !strcmp(key, allowed[i]);
        if (!known)
            return bad_field(err, key, "unknown field");
    }
    return gt_advice_finish(ad, err);
}

struct gt_advisor *gt_advice_open(const char *path, long busy_timeout_ms,
                                  const struct gt_advice *ad, struct gt_db **db,
                                  struct gt_error *err)
{
    if (gt_db_open(path, GT_DB_READ, busy_timeout_ms, db, err) != GT_OK)
        return NULL;
    struct gt_advisor *adv = gt_advisor_new(*db, &ad->o);
    if (!adv) {
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        gt_db_close(*db);
    }
    return adv;
}

int gt_advice_close(struct gt_advisor *adv, struct gt_db *db, bool save_fits,
                    struct gt_error *err)
{
    size_t saved;
    int rc = save_fits ? gt_advisor_save_fits(adv, &saved, err) : GT_OK;
    gt_advisor_free(adv);
    gt_db_close(db);
    return rc;
}

/* ------------------------------------------------------------ site lists */

void gt_sites_clear(struct gt_site_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].name);
    free(l->v);
    memset(l, 0, sizeof *l);
}

bool gt_sites_add(struct gt_site_list *l, const char *p, size_t len, const char **why)
{
    gt_trim_span(&p, &len);
    long procs = 1;
    const char *colon = memchr(p, ':', len);
    size_t nlen = colon ? (size_t)(colon - p) : len;
    if (colon) {
        int64_t v;
        if (!gt_parse_i64(colon + 1, len - nlen - 1, &v) || v < 1 || v > 1000000)
            return *why = "PROCS must be a whole number in [1, 1e6]", false;
        procs = (long)v;
    }
    if (nlen == 0 || nlen > 255 || !gt_utf8_valid(p, nlen) || gt_has_control(p, nlen))
        return *why = "a site name must be 1-255 bytes of UTF-8 without control characters",
               false;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        struct gt_site_req *nv = realloc(l->v, cap * sizeof *nv);
        if (!nv)
            return *why = "out of memory", false;
        l->v = nv;
        l->cap = cap;
    }
    if (!(l->v[l->n].name = strndup(p, nlen)))
        return *why = "out of memory", false;
    l->v[l->n++].procs = procs;
    return true;
}

bool gt_sites_parse(struct gt_site_list *l, const char *s, const char **why)
{
    while (*s) {
        size_t n = strcspn(s, ",");
        if (!gt_sites_add(l, s, n, why))
            return false;
        s += n + (s[n] == ',');
    }
    return l->n > 0 || (*why = "no sites", false);
}

bool gt_sites_from_json(struct gt_site_list *l, const json_t *list, const char **why)
{
    size_t i;
    const json_t *s;
    if (!json_is_array(list) || !json_array_size(list))
        return *why = "expected a non-empty list of sites", false;
    json_array_foreach(list, i, s) {
        char buf[512];
        const json_t *name = json_object_get(s, "site"), *procs = json_object_get(s, "procs");
        if (json_is_string(s) && json_string_length(s) < sizeof buf &&
            !memchr(json_string_value(s), 0, json_string_length(s))) {
            snprintf(buf, sizeof buf, "%s", json_string_value(s));
        } else if (json_is_object(s) && json_is_string(name) && json_string_length(name) < 256 &&
                   !memchr(json_string_value(name), ':', json_string_length(name)) &&
                   (!procs || json_is_integer(procs))) {
            snprintf(buf, sizeof buf, "%s:%lld", json_string_value(name),
                     procs ? (long long)json_integer_value(procs) : 1LL);
        } else {
            return *why = "a site is \"NAME[:PROCS]\" or {\"site\": NAME, \"procs\": N}", false;
        }
        if (!gt_sites_add(l, buf, strlen(buf), why))
            return false;
    }
    return true;
}

void gt_cands_clear(struct gt_cand_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].root);
        gt_sites_clear(&l->v[i].sites);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

struct gt_candidate *gt_cands_push(struct gt_cand_list *l, const char *root, size_t len)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        struct gt_candidate *nv = realloc(l->v, cap * sizeof *nv);
        if (!nv)
            return NULL;
        l->v = nv;
        l->cap = cap;
    }
    struct gt_candidate *c = &l->v[l->n];
    memset(c, 0, sizeof *c);
    if (!(c->root = strndup(root, len)))
        return NULL;
    l->n++;
    return c;
}

bool gt_cands_from_json(struct gt_cand_list *l, const json_t *list, size_t *bad,
                        const char **why)
{
    size_t i;
    const json_t *c;
    if (!json_is_array(list) || !json_array_size(list)) {
        *bad = 0;
        return *why = "expected a non-empty list of {\"root\": ..., \"sites\": [...]}", false;
    }
    json_array_foreach(list, i, c) {
        const json_t *r = json_object_get(c, "root");
        struct gt_candidate *cand = NULL;
        *bad = i;
        if (!json_is_string(r) || !json_string_length(r) || json_string_length(r) > 255)
            return *why = "needs a \"root\": a site name", false;
        if (!(cand = gt_cands_push(l, json_string_value(r), json_string_length(r))))
            return *why = "out of memory", false;
        if (!gt_sites_from_json(&cand->sites, json_object_get(c, "sites"), why))
            return false;
    }
    return true;
}

/* ------------------------------------------------------------ answers */

void gt_advice_q_name(double q, char *buf, size_t size)
{
    snprintf(buf, size, "p%g", q * 100);
}

static json_t *partner_json(const struct gt_partner_est *p)
{
    const struct gt_model *m = gt_model_find(p->model);
    json_t *params = json_object();
    for (int k = 0; m && k < m->nparams; k++)
        json_object_set_new(params, m->param_names[k], gt_json_real_or_null(p->p[k]));
    if (m == &gt_model_empirical) {   /* the samples are the model: say which */
        json_object_set_new(params, "median", gt_json_real_or_null(p->p[0]));
        json_object_set_new(params, "n", json_integer((json_int_t)p->p[1]));
    }
    json_t *verdict = json_array();
    static const char *const names[] = {"poor_fit", "negative_mass", "not_full", "no_index",
                                        "quantiles_off"};
    for (int k = 0; k < 5; k++)
        if (p->verdict & (1u << k))
            json_array_append_new(verdict, json_string(names[k]));
    return json_pack("{s:s, s:I, s:s, s:o, s:b, s:b, s:o, s:f, s:I, s:I, s:I, s:f, s:o, s:I, "
                     "s:I, s:f}",
                     "site",
                     p->site, "procs", (json_int_t)p->procs, "model", p->model, "params",
                     params, "fallback", p->fallback, "other_fit", p->other_fit,
                     "verdict", verdict, "shift_ms", p->shift_ms, "samples", (json_int_t)p->samples,
                     "valid", (json_int_t)p->valid, "filled", (json_int_t)p->filled,
                     "loss", p->loss, "loss_cost_ms", gt_json_real_or_null(p->loss_cost_ms),
                     "first_ts", (json_int_t)p->first_ts, "last_ts", (json_int_t)p->last_ts,
                     "p_slowest", p->p_slowest);
}

/* What the quantiles rest on: calibrated by how many of the root's
 * outcomes, and the model's own quantiles; null when not calibrated. */
static json_t *calib_json(const struct gt_estimate *e)
{
    if (!e->calibrated || !e->nq)
        return json_null();
    json_t *model = json_object(), *ready = json_object();
    for (size_t k = 0; k < e->nq; k++) {
        char name[32];
        gt_advice_q_name(e->q[k], name, sizeof name);
        json_object_set_new(model, name, gt_json_real_or_null(e->q_model ? e->q_model[k] : NAN));
        json_object_set_new(ready, name, json_boolean(k < GT_BT_MAX_LEVELS && e->cal.ready[k]));
    }
    return json_pack("{s:I, s:I, s:I, s:o, s:o, s:b}", "outcomes",
                     (json_int_t)e->cal.outcomes, "lead_samples", (json_int_t)e->cal.lead,
                     "interval_s", (json_int_t)e->cal.interval, "ready", ready,
                     "model_quantiles", model, "cached", e->cal.cached);
}

/* --model adaptive or combined: what was chosen (combined: the heaviest,
 * and the weights) and how each candidate has done. */
static json_t *adapt_json(const struct gt_estimate *e)
{
    const struct gt_adapt *t = &e->adapt;
    json_t *c = json_object();
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        json_object_set_new(c, gt_adapt_name(j), gt_json_real_or_null(t->rmse[j]));
    json_t *o = json_object();
    json_object_set_new(o, "chosen", t->chosen >= 0 ? json_string(gt_adapt_name(t->chosen))
                                                    : json_null());
    json_object_set_new(o, "rmse_ms", gt_json_real_or_null(t->chosen < 0 ? NAN
                                                           : e->model == GT_ADV_COMBINED
                                                           ? t->rmse_combined
                                                           : t->rmse[t->chosen]));
    json_object_set_new(o, "outcomes", json_integer((json_int_t)t->outcomes));
    json_object_set_new(o, "horizon_s", json_integer((json_int_t)(t->lead * t->interval)));
    json_object_set_new(o, "lead_samples", json_integer(t->lead));
    json_object_set_new(o, "interval_s", json_integer((json_int_t)t->interval));
    json_object_set_new(o, "of_outcomes", json_integer((json_int_t)t->of_outcomes));
    json_object_set_new(o, "cached", json_boolean(t->cached));
    json_object_set_new(o, "rmse_by_method", c);
    json_t *out = json_array();
    for (int j = 0; j < GT_ADAPT_NCAND; j++)
        if (t->left_out >> j & 1)
            json_array_append_new(out, json_string(gt_adapt_name(j)));
    json_object_set_new(o, "left_out", out);
    if (e->model == GT_ADV_COMBINED) {
        json_t *w = json_object();
        for (int j = 0; j < GT_ADAPT_NCAND; j++)
            if (!isnan(t->weight[j]))
                json_object_set_new(w, gt_adapt_name(j), json_real(t->weight[j]));
        json_object_set_new(o, "weights", w);
    }
    return o;
}

json_t *gt_advice_estimate_json(const struct gt_estimate *e, const struct gt_advice *ad)
{
    json_t *o = json_object(), *sites = json_array(), *qs = json_object(), *w = json_array(),
           *ps = json_array();
    json_object_set_new(o, "root", json_string(e->root));
    for (size_t i = 0; i < e->n; i++) {
        json_array_append_new(sites, json_string(e->partners[i].site));
        json_array_append_new(ps, partner_json(&e->partners[i]));
    }
    json_object_set_new(o, "sites", sites);
    json_object_set_new(o, "e_max", gt_json_real_or_null(e->e_max));
    for (size_t k = 0; k < e->nq; k++) {
        char name[32];
        gt_advice_q_name(e->q[k], name, sizeof name);
        json_object_set_new(qs, name, gt_json_real_or_null(e->q_values[k]));
    }
    json_object_set_new(o, "quantiles", qs);
    json_object_set_new(o, "calibration", calib_json(e));
    json_object_set_new(o, "window", json_integer((json_int_t)e->window));
    /* an age beyond int64 (samples of the far past asked about at the far
       future) stays a number: llround of it was -2^63 */
    double age = e->data_age_s;
    json_object_set_new(o, "data_age_s", !isfinite(age)   ? json_null()
                                         : fabs(age) < 9e18 ? json_integer((json_int_t)llround(age))
                                                            : json_real(age));
    json_object_set_new(o, "model", json_string(ad->model_name));
    json_object_set_new(o, "objective", json_string(ad->objective));
    json_object_set_new(o, "objective_ms", gt_json_real_or_null(e->objective_ms));
    json_object_set_new(o, "method", json_string(e->method ? e->method : ""));
    if (e->adaptive)
        json_object_set_new(o, ad->o.model == GT_ADV_COMBINED ? "combined" : "adaptive",
                            adapt_json(e));
    json_object_set_new(o, "cut_x0", gt_json_real_or_null(e->cut_x0));
    json_object_set_new(o, "cut", isfinite(e->cut_x0)
                                      ? json_string(ad->o.cut_paper ? "paper" : "censor")
                                      : json_null());
    json_object_set_new(o, "processes", json_integer(e->processes));
    if (ad->o.bytes > 0) {
        json_object_set_new(o, "bytes", json_real(ad->o.bytes));
        json_object_set_new(o, "loggps", json_string(ad->loggps.name));
        json_object_set_new(o, "message_ms", json_real(e->message_ms));
        json_object_set_new(o, "rendezvous", json_boolean(e->rendezvous));
    }
    json_object_set_new(o, "compute_ms", gt_json_real_or_null(e->compute_ms));
    if (ad->compute_model_name)
        json_object_set_new(o, "compute_model", json_string(ad->compute_model_name));
    json_object_set_new(o, "iteration_ms", gt_json_real_or_null(e->iteration_ms));
    if (ad->o.iterations)
        json_object_set_new(o, "job_ms", gt_json_real_or_null(e->job_ms));
    for (size_t i = 0; i < e->nwarn; i++)
        json_array_append_new(w, json_string(e->warnings[i]));
    json_object_set_new(o, "warnings", w);
    json_object_set_new(o, "partners", ps);
    return o;
}

static json_t *estimates_json(const struct gt_estimate *v, size_t n, const struct gt_advice *ad)
{
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, gt_advice_estimate_json(&v[i], ad));
    return list;
}

json_t *gt_advice_sites_json(const struct gt_site_row *v, size_t n)
{
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_pack("{s:s, s:I, s:I}", "name", v[i].name,
                              "pairs_out", (json_int_t)v[i].pairs_out,
                              "pairs_in", (json_int_t)v[i].pairs_in);
        json_object_set_new(o, "cluster", v[i].cluster ? json_string(v[i].cluster) : json_null());
        json_object_set_new(o, "domain", v[i].domain ? json_string(v[i].domain) : json_null());
        json_object_set_new(o, "latitude", v[i].has_coords ? json_real(v[i].latitude) : json_null());
        json_object_set_new(o, "longitude",
                            v[i].has_coords ? json_real(v[i].longitude) : json_null());
        json_array_append_new(list, o);
    }
    return json_pack("{s:o}", "sites", list);
}

static json_t *model_fit_json(const struct gt_model_fit *mf, const char *a, const char *b)
{
    if (!mf->ok)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, a, gt_json_real_or_null(mf->p[0]));
    json_object_set_new(o, b, gt_json_real_or_null(mf->p[1]));
    json_object_set_new(o, "chi2", gt_json_real_or_null(mf->chi2));
    json_object_set_new(o, "ks", gt_json_real_or_null(mf->ks));
    return o;
}

struct gt_verdict_limits gt_advice_verdict_limits(const struct gt_config *cfg)
{
    return (struct gt_verdict_limits){cfg->max_ks, cfg->quantile_margin};
}

int gt_advice_fit_verdict(const struct gt_fit *f, size_t window,
                          const struct gt_verdict_limits *lim, char (*lines)[GT_VERDICT_LINE])
{
    const struct gt_model_fit *sel = f->selected == &gt_model_pareto ? &f->pareto
                                   : f->selected == &gt_model_normal ? &f->normal : NULL;
    struct gt_verdict v = {.model = f->selected, .p = {f->p[0], f->p[1]},
                           .ks = sel ? sel->ks : NAN, .chi2 = sel ? sel->chi2 : NAN,
                           .m = f->m, .window = window, .bounds = &f->bounds};
    gt_verdict_check(&v, lim);
    return gt_verdict_lines(&v, lim, lines, GT_VERDICT_MAX_LINES);
}

json_t *gt_advice_fit_json(const struct gt_fit *f, size_t window,
                           const struct gt_verdict_limits *lim)
{
    char lines[GT_VERDICT_MAX_LINES][GT_VERDICT_LINE];
    int nl = gt_advice_fit_verdict(f, window, lim, lines);
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:s, s:I}", "m", (json_int_t)f->m,
                          "valid", (json_int_t)f->valid, "filled", (json_int_t)f->filled,
                          "dropped", (json_int_t)f->dropped, "selected", f->selected->name,
                          "classes", (json_int_t)f->classes);
    json_object_set_new(o, "outage_since",
                        f->valid == 0 && f->timed ? json_integer(f->outage_since)
                                                  : json_null());
    if (f->degenerate) {
        json_object_set_new(o, "pareto", json_pack("{s:f, s:n, s:n, s:n}", "k", f->p[0],
                                                   "alpha", "chi2", "ks"));
        json_object_set_new(o, "normal", json_pack("{s:f, s:f, s:n, s:n}", "mu", f->p[0],
                                                   "sigma", 0.0, "chi2", "ks"));
        json_object_set_new(o, "delta", json_pack("{s:f}", "x", f->p[0]));
    } else {
        json_object_set_new(o, "pareto", model_fit_json(&f->pareto, "k", "alpha"));
        json_object_set_new(o, "normal", model_fit_json(&f->normal, "mu", "sigma"));
    }
    json_object_set_new(o, "cut_x0", gt_json_real_or_null(f->cut_x0));
    json_t *verdict = json_array();
    for (int k = 0; k < nl; k++)
        json_array_append_new(verdict, json_string(lines[k]));
    json_object_set_new(o, "verdict", verdict);
    if (f->timed) {
        json_object_set_new(o, "first_ts", json_integer(f->first_ts));
        json_object_set_new(o, "last_ts", json_integer(f->last_ts));
    }
    return o;
}

json_t *gt_advice_pairs_json(const struct gt_pair_row *v, size_t n, size_t shown)
{
    json_t *list = json_array();
    long samples = 0, lost = 0;
    for (size_t i = 0; i < n; i++)
        samples += v[i].samples, lost += v[i].lost;
    for (size_t i = 0; i < shown && i < n; i++) {
        const struct gt_pair_row *r = &v[i];
        json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:f, s:I, s:I}", "src", r->src,
                              "dst", r->dst, "samples", (json_int_t)r->samples,
                              "lost", (json_int_t)r->lost,
                              "loss_pct", 100.0 * (double)r->lost / (double)r->samples,
                              "first_ts", (json_int_t)r->first_ts,
                              "last_ts", (json_int_t)r->last_ts);
        json_object_set_new(o, "min_ms", gt_json_real_or_null(r->min_ms));
        json_object_set_new(o, "median_ms", gt_json_real_or_null(r->median_ms));
        json_object_set_new(o, "p99_ms", gt_json_real_or_null(r->p99_ms));
        json_array_append_new(list, o);
    }
    return json_pack("{s:o, s:{s:I, s:I, s:I}}", "pairs", list, "total", "pairs", (json_int_t)n,
                     "samples", (json_int_t)samples, "lost", (json_int_t)lost);
}

/* "complete", and "stopped" with the reason when the advisor stopped
 * early (gt_adv_opts.stop): the answer is then the best of what was
 * estimated. */
static json_t *with_completion(json_t *o, const struct gt_advisor *adv)
{
    const char *why = gt_advisor_stopped(adv);
    json_object_set_new(o, "complete", json_boolean(!why));
    if (why)
        json_object_set_new(o, "stopped", json_string(why));
    return o;
}

json_t *gt_advice_rank_json(const struct gt_advisor *adv, const struct gt_rank_answer *r,
                            const struct gt_advice *ad)
{
    return with_completion(json_pack("{s:I, s:I, s:I, s:f, s:O, s:o}", "evaluated",
                                     (json_int_t)r->evaluated, "fits",
                                     (json_int_t)gt_advisor_fits(adv), "cached_fits",
                                     (json_int_t)gt_advisor_cached_fits(adv), "elapsed_ms",
                                     r->elapsed_ms, "rejected", r->rejected, "candidates",
                                     estimates_json(r->best, r->nbest, ad)), adv);
}

json_t *gt_advice_place_json(const struct gt_advisor *adv, const struct gt_place_result *r,
                             double elapsed_ms, const struct gt_advice *ad)
{
    json_t *ex = json_array();
    for (size_t i = 0; i < r->nexcluded; i++)
        json_array_append_new(ex, json_string(r->excluded[i]));
    return with_completion(json_pack("{s:s, s:I, s:I, s:I, s:I, s:f, s:o, s:o}", "search",
                                     r->search, "evaluated", (json_int_t)llround(r->evaluated),
                                     "pruned", (json_int_t)llround(r->pruned), "fits",
                                     (json_int_t)gt_advisor_fits(adv), "cached_fits",
                                     (json_int_t)gt_advisor_cached_fits(adv), "elapsed_ms",
                                     elapsed_ms, "excluded", ex, "candidates",
                                     estimates_json(r->best, r->nbest, ad)), adv);
}

/* ------------------------------------------------------------ rank */

struct ranked {
    struct gt_estimate e;
    size_t pos;               /* the candidate's index */
};

/* Best first; equal ones keep their input order (a stable sort). */
static int by_rank(const void *x, const void *y)
{
    const struct ranked *a = x, *b = y;
    int c = gt_estimate_cmp(&a->e, &b->e);
    return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

struct by_root {
    const char *root;
    size_t pos;
};

static int cmp_by_root(const void *x, const void *y)
{
    const struct by_root *a = x, *b = y;
    int c = strcmp(a->root, b->root);
    return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/* Every candidate's E[max], grouped by root (the pair fits of one root
 * are read together: src/pairfits.h); the estimated ones into est (by
 * candidate index in pos), the others' reasons into r->rejected. */
static int estimate_all(struct gt_advisor *adv, const struct gt_cand_list *l,
                        struct ranked *est, struct gt_rank_answer *r, struct gt_error *err)
{
    size_t n = l->n ? l->n : 1;
    struct by_root *order = malloc(n * sizeof *order);
    struct gt_placement *pl = calloc(n, sizeof *pl);
    struct gt_estimate *out = calloc(n, sizeof *out);
    int *rcs = calloc(n, sizeof *rcs);
    char **why = calloc(n, sizeof *why);
    int rc = order && pl && out && rcs && why ? GT_OK
                                              : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < l->n; i++)
        order[i] = (struct by_root){l->v[i].root, i};
    if (rc == GT_OK) {
        qsort(order, l->n, sizeof *order, cmp_by_root);
        for (size_t k = 0; k < l->n; k++) {
            const struct gt_candidate *c = &l->v[order[k].pos];
            pl[k] = (struct gt_placement){c->root, c->sites.v, c->sites.n};
        }
        rc = gt_advisor_estimate_many(adv, pl, l->n, out, rcs, err);
    }
    r->evaluated = 0;
    for (size_t k = 0; rc == GT_OK && k < l->n; k++) {
        size_t i = order[k].pos;
        r->evaluated += rcs[k] != -1;   /* -1: not reached (stopped early) */
        if (rcs[k] == GT_OK) {
            est[r->ok].e = out[k];
            est[r->ok++].pos = i;
            continue;
        }
        if (rcs[k] == GT_ENOTFOUND)
            why[i] = strdup(out[k].reason);
        gt_estimate_clear(&out[k]);
    }
    for (size_t k = 0; rc != GT_OK && out && k < l->n; k++)
        gt_estimate_clear(&out[k]);   /* what the sets done before the error hold */
    for (size_t i = 0; why && i < l->n; i++)
        if (why[i]) {
            json_array_append_new(r->rejected, json_pack("{s:s, s:I, s:s}", "root",
                                  l->v[i].root, "candidate", (json_int_t)i, "reason", why[i]));
            free(why[i]);
        }
    free(why);
    free(order);
    free(pl);
    free(out);
    free(rcs);
    return rc;
}

int gt_advice_rank(struct gt_advisor *adv, const struct gt_cand_list *l, long top,
                   struct gt_rank_answer *r, struct gt_error *err)
{
    memset(r, 0, sizeof *r);
    int64_t t0 = gt_monotonic_ns();
    r->evaluated = l->n;
    r->rejected = json_array();
    struct ranked *est = calloc(l->n ? l->n : 1, sizeof *est);
    if (!est || !r->rejected) {
        free(est);
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    /* E[max] alone for every candidate; in full only for those shown */
    gt_advisor_set_detail(adv, GT_ADV_EMAX_ONLY);
    int rc = estimate_all(adv, l, est, r, err);
    gt_advisor_set_detail(adv, GT_ADV_FULL);
    if (rc == GT_OK) {
        qsort(est, r->ok, sizeof *est, by_rank);
        size_t shown = top > 0 && (size_t)top < r->ok ? (size_t)top : r->ok;
        if (!(r->best = calloc(shown ? shown : 1, sizeof *r->best)))
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        /* a request's budget, its client leaving and SIGTERM stop this
           phase too (1,000 shown sets of 8 took a minute): what is done
           is answered, the advisor saying why it stopped (the best set
           at least, once any E[max] is known) */
        for (size_t i = 0; rc == GT_OK && i < shown && (i == 0 || !gt_advisor_should_stop(adv));
             i++) {
            const struct gt_candidate *c = &l->v[est[i].pos];
            rc = gt_advisor_estimate(adv, c->root, c->sites.v, c->sites.n, &r->best[i], err);
            r->nbest = i + 1;
        }
    }
    for (size_t i = 0; i < r->ok; i++)
        gt_estimate_clear(&est[i].e);
    free(est);
    r->elapsed_ms = gt_elapsed_ms(t0);
    return rc;
}

void gt_rank_answer_clear(struct gt_rank_answer *r)
{
    for (size_t i = 0; r->best && i < r->nbest; i++)
        gt_estimate_clear(&r->best[i]);
    free(r->best);
    json_decref(r->rejected);
    memset(r, 0, sizeof *r);
}
