/*
 * status.c - each pair's status against the thresholds (status.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "status.h"

#include "base/util.h"
#include "db/eventlog.h"
#include "db/query.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {"ok", "warning", "critical", "no_data"};
const char *const gt_status_check_names[GT_NCHECKS] = {"loss", "p99", "median"};

const char *gt_status_name(enum gt_pair_status s)
{
    return names[s];
}

bool gt_status_parse(const char *s, enum gt_pair_status *out)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) {
            *out = (enum gt_pair_status)i;
            return true;
        }
    return false;
}

/* ------------------------------------------------------------ limits */

static void limits_from_config(struct gt_limits *l, const struct gt_config *cfg)
{
    for (int k = 0; k < 2; k++) {
        l->p99_ms[k] = cfg->th_p99_ms[k];
        l->median_ms[k] = cfg->th_median_ms[k];
        l->loss[k] = cfg->th_loss[k];
    }
    l->silent_s = cfg->th_silent_s;
}

/* A key of a groups_file line: where it goes, and its range. */
static double *limit_field(struct gt_limits *l, const char *key, size_t len, double *max)
{
    static const struct {
        const char *key;
        size_t offset;
        double max;
    } keys[] = {
        {"p99_warning_ms", offsetof(struct gt_limits, p99_ms[0]), 1e7},
        {"p99_critical_ms", offsetof(struct gt_limits, p99_ms[1]), 1e7},
        {"median_warning_ms", offsetof(struct gt_limits, median_ms[0]), 1e7},
        {"median_critical_ms", offsetof(struct gt_limits, median_ms[1]), 1e7},
        {"loss_warning", offsetof(struct gt_limits, loss[0]), 1},
        {"loss_critical", offsetof(struct gt_limits, loss[1]), 1},
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strlen(keys[i].key) == len && !strncmp(keys[i].key, key, len)) {
            *max = keys[i].max;
            return (double *)((char *)l + keys[i].offset);
        }
    return NULL;
}

static int group_sites(struct gt_status_group *g, const char *v, size_t len, const char *where,
                       struct gt_error *err)
{
    size_t n = 1;
    for (size_t i = 0; i < len; i++)
        n += v[i] == ',';
    g->sites = calloc(n, sizeof *g->sites);
    if (!g->sites)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0, start = 0; i <= len; i++) {
        if (i < len && v[i] != ',')
            continue;
        const char *s = v + start;
        size_t sl = i - start;
        gt_trim_span(&s, &sl);
        if (!sl)
            return gt_error_set(err, GT_EINPUT, where, "sites: an empty site name");
        if (!(g->sites[g->nsites] = malloc(sl + 1)))
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        memcpy(g->sites[g->nsites], s, sl);
        g->sites[g->nsites++][sl] = '\0';
        start = i + 1;
    }
    return GT_OK;
}

/* One KEY=VALUE of a group's line. */
static int group_setting(struct gt_status_group *g, const char *tok, size_t len,
                         const char *where, struct gt_error *err)
{
    const char *eq = memchr(tok, '=', len);
    if (!eq || eq == tok)
        return gt_error_set(err, GT_EINPUT, where, "'%.*s' is not KEY=VALUE", (int)len, tok);
    size_t klen = (size_t)(eq - tok), vlen = len - klen - 1;
    if (klen == 5 && !strncmp(tok, "sites", 5))
        return g->sites ? gt_error_set(err, GT_EINPUT, where, "sites: given twice")
                        : group_sites(g, eq + 1, vlen, where, err);
    double v, max;
    if (klen == 8 && !strncmp(tok, "silent_s", 8)) {
        if (!gt_parse_double(eq + 1, vlen, &v) || !(v >= 1 && v <= 1e8) || v != floor(v))
            return gt_error_set(err, GT_EINPUT, where, "silent_s: '%.*s' is not a whole "
                                "number of seconds from 1 to 100000000", (int)vlen, eq + 1);
        g->lim.silent_s = (long)v;
        return GT_OK;
    }
    double *field = limit_field(&g->lim, tok, klen, &max);
    if (!field)
        return gt_error_set(err, GT_EINPUT, where, "unknown key '%.*s'", (int)klen, tok);
    if (!gt_parse_double(eq + 1, vlen, &v) || !(v >= 0 && v <= max))
        return gt_error_set(err, GT_EINPUT, where, "%.*s: '%.*s' is not a number from 0 to %g",
                            (int)klen, tok, (int)vlen, eq + 1, max);
    *field = v;
    return GT_OK;
}

/* "NAME KEY=VALUE ..." into g, over the default limits. */
static int parse_group(char *line, const struct gt_thresholds *t, struct gt_status_group *g,
                       const char *where, struct gt_error *err)
{
    g->lim = t->def;
    size_t n = strcspn(line, " \t");
    if (!(g->name = malloc(n + 1)))
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    memcpy(g->name, line, n);
    g->name[n] = '\0';
    if (gt_has_control(g->name, n) || !gt_utf8_valid(g->name, n))
        return gt_error_set(err, GT_EINPUT, where, "group: not UTF-8 text");
    for (const struct gt_status_group *o = t->groups; o < g; o++)
        if (!strcmp(o->name, g->name))
            return gt_error_set(err, GT_EINPUT, where, "group: %s is given twice", g->name);
    int rc = GT_OK;
    for (char *p = line + n; rc == GT_OK;) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, " \t");
        if (!len)
            break;
        rc = group_setting(g, p, len, where, err);
        p += len;
    }
    return rc;
}

static void group_free(struct gt_status_group *g)
{
    for (size_t i = 0; i < g->nsites; i++)
        free(g->sites[i]);
    free(g->sites);
    free(g->name);
}

static int load_groups(struct gt_thresholds *t, const char *path, struct gt_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gt_error_set(err, GT_EIO, path, "%s", strerror(errno));
    char line[4096], where[GT_ERR_WHERE];
    struct gt_lines in;
    gt_lines_init(&in, f, path, 0);
    int got, rc = GT_OK;
    while (rc == GT_OK && (got = gt_lines_next(&in, line, sizeof line, err)) != 0) {
        snprintf(where, sizeof where, "%s", in.where);
        line[strcspn(line, "#\r")] = '\0';
        char *p = line + strspn(line, " \t");
        if (got < 0)
            rc = got == GT_ETOOBIG ? GT_EINPUT : got;
        else if (!*p)
            continue;
        else if (t->ngroups == GT_STATUS_MAX_GROUPS)
            rc = gt_error_set(err, GT_EINPUT, where, "more than %d groups",
                              GT_STATUS_MAX_GROUPS);
        else {
            struct gt_status_group *g = &t->groups[t->ngroups++];
            rc = parse_group(p, t, g, where, err);
        }
    }
    if (rc == GT_OK && ferror(f))
        rc = gt_error_set(err, GT_EIO, path, "%s", strerror(errno));
    fclose(f);
    return rc;
}

int gt_thresholds_load(struct gt_thresholds *t, const struct gt_config *cfg, size_t window,
                       struct gt_error *err)
{
    memset(t, 0, sizeof *t);
    limits_from_config(&t->def, cfg);
    t->events = gt_event_opts_of(cfg);
    t->samples = cfg->th_samples > 0 ? (size_t)cfg->th_samples : window;
    if (t->samples > GT_STATUS_MAX_SAMPLES)
        t->samples = GT_STATUS_MAX_SAMPLES;
    if (!cfg->th_groups_file[0])
        return GT_OK;
    t->groups = calloc(GT_STATUS_MAX_GROUPS, sizeof *t->groups);
    if (!t->groups)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    int rc = load_groups(t, cfg->th_groups_file, err);
    if (rc != GT_OK)
        gt_thresholds_free(t);
    return rc;
}

void gt_thresholds_free(struct gt_thresholds *t)
{
    for (size_t i = 0; i < t->ngroups; i++)
        group_free(&t->groups[i]);
    free(t->groups);
    t->groups = NULL;
    t->ngroups = 0;
}

/* ------------------------------------------------------------ groups of sites */

struct site_attrs {
    const struct gt_site_row *v;
    size_t n;
};

static const struct gt_site_row *site_row(const struct site_attrs *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].name, name))
            return &s->v[i];
    return NULL;
}

static bool in_group(const struct gt_status_group *g, const struct gt_site_row *r,
                     const char *site)
{
    if (g->sites) {
        for (size_t i = 0; i < g->nsites; i++)
            if (!strcmp(g->sites[i], site))
                return true;
        return false;
    }
    return r && ((r->cluster && !strcmp(r->cluster, g->name)) ||
                 (r->domain && !strcmp(r->domain, g->name)));
}

/* The first group holding both sites, or NULL. */
static const struct gt_status_group *group_of(const struct gt_thresholds *t,
                                              const struct site_attrs *s, const char *src,
                                              const char *dst)
{
    const struct gt_site_row *a = site_row(s, src), *b = site_row(s, dst);
    for (size_t i = 0; i < t->ngroups; i++)
        if (in_group(&t->groups[i], a, src) && in_group(&t->groups[i], b, dst))
            return &t->groups[i];
    return NULL;
}

/* ------------------------------------------------------------ a pair's state */

static void reason(struct gt_pair_state *p, enum gt_pair_status level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void reason(struct gt_pair_state *p, enum gt_pair_status level, const char *fmt, ...)
{
    p->status = level > p->status ? level : p->status;
    if (p->nreasons == GT_STATUS_MAX_REASONS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->reasons[p->nreasons++], sizeof p->reasons[0], fmt, ap);
    va_end(ap);
}

/* value against [warning, critical]: check c's level, and a reason */
static void judge(struct gt_pair_state *p, enum gt_status_check c, const double lim[2],
                  double value, double scale, const char *unit)
{
    const char *what = gt_status_check_names[c];
    for (int k = 1; k >= 0; k--)
        if (lim[k] > 0 && value > lim[k]) {
            p->check[c] = k ? GT_STATUS_CRITICAL : GT_STATUS_WARNING;
            reason(p, k ? GT_STATUS_CRITICAL : GT_STATUS_WARNING, "%s %.4g%s over %.4g%s (%s)",
                   what, value * scale, unit, lim[k] * scale, unit, k ? "critical" : "warning");
            return;
        }
}

/* The state from the pair's newest samples rtt[0..n) (NAN = lost). */
static void judge_window(struct gt_pair_state *p, const struct gt_limits *l, const double *rtt,
                         size_t n, double *sorted, int64_t at)
{
    size_t valid = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(rtt[i]))
            sorted[valid++] = rtt[i];
    qsort(sorted, valid, sizeof *sorted, gt_cmp_double);
    p->samples = n;
    p->lost = n - valid;
    p->loss = n ? (double)p->lost / (double)n : NAN;
    p->median_ms = valid ? gt_quantile_sorted(sorted, valid, 0.5) : NAN;
    p->p99_ms = valid ? gt_quantile_sorted(sorted, valid, 0.99) : NAN;
    p->age_s = p->newest == INT64_MIN ? INFINITY : (double)at - (double)p->newest;
    p->status = GT_STATUS_OK;
    if (!n || p->age_s > (double)l->silent_s) {
        p->status = GT_STATUS_NO_DATA;
        if (n)
            snprintf(p->reasons[p->nreasons++], sizeof p->reasons[0],
                     "silent for %.0f s (over %ld)", p->age_s, l->silent_s);
        else
            snprintf(p->reasons[p->nreasons++], sizeof p->reasons[0], "no samples");
        return;
    }
    judge(p, GT_CHECK_LOSS, l->loss, p->loss, 100, " %");
    if (valid) {
        judge(p, GT_CHECK_P99, l->p99_ms, p->p99_ms, 1, " ms");
        judge(p, GT_CHECK_MEDIAN, l->median_ms, p->median_ms, 1, " ms");
    }
}

struct pair_ref {
    int64_t src, dst;
    char *src_name, *dst_name;
};

struct pair_list {
    struct pair_ref *v;
    size_t n, cap;
    const char *src, *dst;
};

static int collect_pair(void *ctx, int64_t src, const char *src_name, int64_t dst,
                        const char *dst_name)
{
    struct pair_list *l = ctx;
    if (src == dst || (l->src && strcmp(l->src, src_name)) ||
        (l->dst && strcmp(l->dst, dst_name)))
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        struct pair_ref *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        l->v = v, l->cap = cap;
    }
    struct pair_ref *p = &l->v[l->n];
    p->src = src, p->dst = dst;
    p->src_name = strdup(src_name);
    p->dst_name = strdup(dst_name);
    if (!p->src_name || !p->dst_name) {
        free(p->src_name), free(p->dst_name);
        return GT_ENOMEM;
    }
    l->n++;
    return 0;
}

/* The last level shift of the window, as gridtail events would list it. */
static int last_shift(struct gt_pair_state *s, const struct gt_event_opts *o, const int64_t *ts,
                      const double *rtt, size_t n, int64_t at)
{
    struct gt_event *ev;
    size_t nev;
    int rc = gt_events_of_series(ts, rtt, n, at, o, &ev, &nev);
    for (size_t i = 0; rc == GT_OK && i < nev; i++)
        if (ev[i].kind == GT_EV_SHIFT)
            s->shift = ev[i].after_ms / ev[i].before_ms - 1;
    if (rc == GT_OK)
        free(ev);
    return rc == GT_OK ? GT_OK : GT_ENOMEM;
}

/* Asked every this many pairs whether to stop. */
#define STOP_EVERY 64

static int read_states(struct gt_db *db, const struct gt_thresholds *t,
                       const struct site_attrs *sa, const struct pair_list *l, int64_t at,
                       const struct gt_stop *stop, struct gt_pair_state *out,
                       struct gt_error *err)
{
    size_t cap = t->samples ? t->samples : 1;
    int64_t *ts = malloc(cap * sizeof *ts);
    double *rtt = malloc(cap * sizeof *rtt), *sorted = malloc(cap * sizeof *sorted);
    struct gt_series_reader *r = NULL;
    int rc = ts && rtt && sorted ? gt_series_reader_new(db, &r, err)
                                 : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < l->n; i++) {
        const char *why = stop && stop->ask && i % STOP_EVERY == 0 ? stop->ask(stop->ctx) : NULL;
        if (why) {
            rc = gt_error_set(err, GT_EINTR, NULL, "%s", why);
            break;
        }
        const struct pair_ref *p = &l->v[i];
        struct gt_pair_state *s = &out[i];
        const struct gt_status_group *g = group_of(t, sa, p->src_name, p->dst_name);
        size_t n = 0;
        struct gt_prior prior;
        s->src = p->src_name, s->dst = p->dst_name;
        s->group = g ? g->name : NULL;
        rc = gt_series_read(r, p->src, p->dst, at, cap, ts, rtt, cap, &n, NULL, &prior, err);
        s->newest = n ? ts[n - 1] : INT64_MIN;
        if (rc == GT_OK && (rc = last_shift(s, &t->events, ts, rtt, n, at)))
            gt_error_set(err, rc, NULL, "out of memory");
        if (rc == GT_OK)
            judge_window(s, g ? &g->lim : &t->def, rtt, n, sorted, at);
    }
    gt_series_reader_free(r);
    free(ts), free(rtt), free(sorted);
    return rc;
}

/* The fit regime and refit time of each state (db/eventlog.h), found by
 * names through an index sorted by them. */
struct name_ref {
    const char *src, *dst;
    struct gt_pair_state *state;
};

static int cmp_name_ref(const void *a, const void *b)
{
    const struct name_ref *x = a, *y = b;
    int c = strcmp(x->src, y->src);
    return c ? c : strcmp(x->dst, y->dst);
}

struct fit_marks {
    struct name_ref *refs;
    size_t n;
    int64_t at;
};

static int take_fit_mark(void *ctx, const struct gt_event_mark *m)
{
    struct fit_marks *f = ctx;
    struct name_ref key = {m->src, m->dst, NULL};
    struct name_ref *r = bsearch(&key, f->refs, f->n, sizeof *f->refs, cmp_name_ref);
    if (r && m->fitted) {
        r->state->regime = m->regime;
        r->state->fit_age_s = (double)(f->at - m->fitted_at);
    }
    return GT_OK;
}

static int read_fit_marks(struct gt_db *db, const char *src, const char *dst, int64_t at,
                          struct gt_pair_state *v, size_t n, struct gt_error *err)
{
    for (size_t i = 0; i < n; i++)
        v[i].regime = -1, v[i].fit_age_s = INFINITY;
    if (!n)
        return GT_OK;
    struct fit_marks f = {malloc(n * sizeof(struct name_ref)), n, at};
    if (!f.refs)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++)
        f.refs[i] = (struct name_ref){v[i].src, v[i].dst, &v[i]};
    qsort(f.refs, n, sizeof *f.refs, cmp_name_ref);
    int rc = gt_eventlog_marks(db, src, dst, take_fit_mark, &f, err);
    free(f.refs);
    return rc;
}

int gt_pair_states(struct gt_db *db, const struct gt_thresholds *t, int64_t at,
                   const char *src, const char *dst, struct gt_pair_state **out, size_t *n,
                   struct gt_error *err)
{
    return gt_pair_states_until(db, t, at, src, dst, NULL, out, n, err);
}

int gt_pair_states_until(struct gt_db *db, const struct gt_thresholds *t, int64_t at,
                         const char *src, const char *dst, const struct gt_stop *stop,
                         struct gt_pair_state **out, size_t *n, struct gt_error *err)
{
    struct gt_site_row *sites = NULL;
    size_t nsites = 0;
    struct pair_list l = {NULL, 0, 0, src, dst};
    *out = NULL;
    *n = 0;
    int rc = t->ngroups ? gt_query_sites(db, &sites, &nsites, err) : GT_OK;
    if (rc == GT_OK && (rc = gt_query_pair_ids(db, collect_pair, &l, err)) == GT_ENOMEM)
        gt_error_set(err, rc, NULL, "out of memory");
    struct gt_pair_state *v = rc == GT_OK ? calloc(l.n ? l.n : 1, sizeof *v) : NULL;
    if (rc == GT_OK && !v)
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    struct site_attrs sa = {sites, nsites};
    if (rc == GT_OK)
        rc = read_states(db, t, &sa, &l, at, stop, v, err);
    if (rc == GT_OK)
        rc = read_fit_marks(db, src, dst, at, v, l.n, err);
    gt_sites_free(sites, nsites);
    if (rc != GT_OK) {
        for (size_t i = 0; i < l.n; i++)
            free(l.v[i].src_name), free(l.v[i].dst_name);
        free(v);
    } else {
        *out = v;
        *n = l.n;
    }
    free(l.v);
    return rc;
}

static int severity(enum gt_pair_status s)
{
    static const int rank[] = {3, 2, 0, 1};   /* ok, warning, critical, no_data */
    return rank[s];
}

static int cmp_states(const void *a, const void *b)
{
    const struct gt_pair_state *x = a, *y = b;
    int c = severity(x->status) - severity(y->status);
    if (!c)
        c = strcmp(x->src, y->src);
    return c ? c : strcmp(x->dst, y->dst);
}

void gt_pair_states_sort(struct gt_pair_state *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_states);
}

void gt_pair_states_free(struct gt_pair_state *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].src);
        free(v[i].dst);
    }
    free(v);
}

/* ------------------------------------------------------------ JSON */

static json_t *state_json(const struct gt_pair_state *s)
{
    char newest[32] = "";
    if (s->newest != INT64_MIN)
        gt_format_time(s->newest, newest, sizeof newest);
    json_t *reasons = json_array();
    for (size_t i = 0; reasons && i < s->nreasons; i++)
        json_array_append_new(reasons, json_string(s->reasons[i]));
    return json_pack("{s:s, s:s, s:s, s:o, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:o}", "src",
                     s->src, "dst", s->dst, "status", gt_status_name(s->status), "reasons",
                     reasons, "group", s->group ? json_string(s->group) : json_null(),
                     "samples", (json_int_t)s->samples, "lost", (json_int_t)s->lost,
                     "loss", gt_json_real_or_null(s->loss), "median_ms",
                     gt_json_real_or_null(s->median_ms), "p99_ms",
                     gt_json_real_or_null(s->p99_ms), "newest",
                     newest[0] ? json_string(newest) : json_null(), "age_s",
                     gt_json_real_or_null(s->age_s));
}

json_t *gt_status_json(const struct gt_pair_state *v, size_t n, const struct gt_thresholds *t,
                       int64_t at, int only, size_t offset, size_t limit)
{
    json_int_t counts[4] = {0};
    json_t *pairs = json_array();
    size_t matching = 0;
    for (size_t i = 0; pairs && i < n; i++) {
        counts[v[i].status]++;
        if (only >= 0 && (int)v[i].status != only)
            continue;
        if (matching >= offset && matching - offset < limit)
            json_array_append_new(pairs, state_json(&v[i]));
        matching++;
    }
    char when[32];
    gt_format_time(at, when, sizeof when);
    return json_pack("{s:s, s:I, s:{s:I, s:I, s:I, s:I}, s:I, s:o}", "at", when, "samples",
                     (json_int_t)t->samples, "counts", "ok", counts[0], "warning", counts[1],
                     "critical", counts[2], "no_data", counts[3], "total",
                     (json_int_t)matching, "pairs", pairs);
}
