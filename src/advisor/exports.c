/*
 * exports.c - pair costs as the matrices schedulers read (exports.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "exports.h"

#include "base/util.h"
#include "db/query.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ names */

static bool alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

bool gt_export_label_value(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63 || !alnum(s[0]) || !alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

bool gt_export_dns_label(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

bool gt_export_dns_subdomain(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 253)
        return false;
    for (const char *p = s;;) {   /* labels separated by dots */
        size_t len = strcspn(p, ".");
        char label[64];
        if (len == 0 || len > 63)
            return false;
        memcpy(label, p, len);
        label[len] = '\0';
        if (!gt_export_dns_label(label))
            return false;
        if (!p[len])
            return true;
        p += len + 1;
    }
}

bool gt_export_rse_name(const char *s)
{
    bool after_sep = true;   /* a separator may not start, end or repeat */
    if (!*s || strlen(s) > 255)
        return false;
    for (; *s; s++) {
        bool upper = (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9');
        if (!upper && !((*s == '_' || *s == '-') && !after_sep))
            return false;
        after_sep = !upper;
    }
    return !after_sep;
}

/* ------------------------------------------------------------ the map */

void gt_export_map_free(struct gt_export_map *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].site);
        free(m->v[i].name);
        free(m->v[i].region);
    }
    free(m->v);
    m->v = NULL;
    m->n = 0;
}

static char *span_dup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* The fields of a line, trimmed, at most 4 (one more than any format
 * takes, so that a fourth is seen and refused). */
static size_t split_fields(const char *line, const char **f, size_t *len)
{
    size_t n = 0;
    for (const char *p = line; n < 4;) {
        size_t l = strcspn(p, ",");
        f[n] = p;
        len[n] = l;
        gt_trim_span(&f[n], &len[n]);
        n++;
        if (!p[l])
            break;
        p += l + 1;
    }
    return n;
}

static const char *name_rule(enum gt_export_format fmt)
{
    return fmt == GT_EXPORT_RUCIO
               ? "not an RSE name (Rucio's default schema: upper-case letters and digits, "
                 "single - or _ between them)"
               : "not a Kubernetes label value (at most 63 of A-Z a-z 0-9 - _ ., "
                 "alphanumeric at both ends)";
}

static bool name_ok(enum gt_export_format fmt, const char *s)
{
    return fmt == GT_EXPORT_RUCIO ? gt_export_rse_name(s) : gt_export_label_value(s);
}

/* A map line's own checks: its fields, the site's and names' form. */
static int parse_entry(const char *line, enum gt_export_format fmt, const char *where,
                       struct gt_export_entry *e, struct gt_error *err)
{
    const char *f[4];
    size_t len[4];
    size_t n = split_fields(line, f, len);
    size_t most = fmt == GT_EXPORT_RUCIO ? 2 : 3;
    if (n < 2)
        return gt_error_set(err, GT_EINPUT, where, "expected SITE,%s",
                            fmt == GT_EXPORT_RUCIO ? "RSE" : "ZONE[,REGION]");
    if (n > most)
        return gt_error_set(err, GT_EINPUT, where, "more than %zu fields", most);
    static const char *field[] = {"site", "name", "region"};
    for (size_t i = 0; i < n; i++)
        if (len[i] == 0 || gt_has_control(f[i], len[i]) || !gt_utf8_valid(f[i], len[i]))
            return gt_error_set(err, GT_EINPUT, where, "%s: empty, or not UTF-8 text",
                                field[i]);
    e->site = span_dup(f[0], len[0]);
    e->name = span_dup(f[1], len[1]);
    e->region = n == 3 ? span_dup(f[2], len[2]) : NULL;
    if (!e->site || !e->name || (n == 3 && !e->region))
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (!name_ok(fmt, e->name))
        return gt_error_set(err, GT_EINPUT, where, "%s: '%s' is %s",
                            fmt == GT_EXPORT_RUCIO ? "rse" : "zone", e->name, name_rule(fmt));
    if (e->region && !gt_export_label_value(e->region))
        return gt_error_set(err, GT_EINPUT, where, "region: '%s' is %s", e->region,
                            name_rule(fmt));
    return GT_OK;
}

/* Against the lines before: a site in one zone, a zone in one region, an
 * RSE at one site, and regions on every line or none. */
static int check_entry(const struct gt_export_map *m, enum gt_export_format fmt,
                       const struct gt_export_entry *e, const char *where,
                       struct gt_error *err)
{
    if (m->n && (e->region != NULL) != m->regions)
        return gt_error_set(err, GT_EINPUT, where, "region: %s (line %ld %s)",
                            e->region ? "given here only" : "missing", m->v[0].line,
                            m->regions ? "gives one" : "gives none");
    for (size_t i = 0; i < m->n; i++) {
        const struct gt_export_entry *o = &m->v[i];
        if (fmt == GT_EXPORT_RUCIO && !strcmp(o->name, e->name))
            return gt_error_set(err, GT_EINPUT, where, "rse: %s is mapped on line %ld already "
                                "(an RSE is at one site)", e->name, o->line);
        if (fmt == GT_EXPORT_NETWORKTOPOLOGY && !strcmp(o->site, e->site))
            return gt_error_set(err, GT_EINPUT, where, "site: %s is mapped on line %ld already "
                                "(a site is in one zone)", e->site, o->line);
        if (e->region && !strcmp(o->name, e->name) && strcmp(o->region, e->region))
            return gt_error_set(err, GT_EINPUT, where, "region: zone %s is in region %s on "
                                "line %ld", e->name, o->region, o->line);
    }
    return GT_OK;
}

int gt_export_map_load(const char *path, enum gt_export_format fmt, struct gt_export_map *m,
                       struct gt_error *err)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f)
        return gt_error_set(err, GT_EIO, path, "%s", strerror(errno));
    char line[GT_EXPORT_MAP_LINE], where[GT_ERR_WHERE];
    long lineno = 0;
    size_t cap = 0;
    struct gt_lines in;
    gt_lines_init(&in, f, path, 0);
    int got, rc = GT_OK;
    while (rc == GT_OK && (got = gt_lines_next(&in, line, sizeof line, err)) != 0) {
        lineno = in.line;
        snprintf(where, sizeof where, "%s", in.where);
        const char *p = line;
        size_t len = strcspn(line, "#");
        gt_trim_span(&p, &len);
        if (got < 0) {
            rc = got == GT_ETOOBIG ? GT_EINPUT : got;
        } else if (lineno > GT_EXPORT_MAP_MAX_LINES) {
            rc = gt_error_set(err, GT_EINPUT, where, "more than %d lines",
                              GT_EXPORT_MAP_MAX_LINES);
        } else if (len) {
            ((char *)p)[len] = '\0';
            if (m->n == cap) {
                size_t c2 = cap ? 2 * cap : 64;
                struct gt_export_entry *v = realloc(m->v, c2 * sizeof *v);
                if (!v) {
                    rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
                    break;
                }
                m->v = v;
                cap = c2;
            }
            struct gt_export_entry *e = &m->v[m->n];
            memset(e, 0, sizeof *e);
            e->line = lineno;
            rc = parse_entry(p, fmt, where, e, err);
            if (rc == GT_OK)
                rc = check_entry(m, fmt, e, where, err);
            m->regions = m->n ? m->regions : e->region != NULL;
            m->n++;   /* kept even when refused, so that it is freed */
        }
    }
    if (rc == GT_OK && ferror(f))
        rc = gt_error_set(err, GT_EIO, path, "%s", strerror(errno));
    fclose(f);
    if (rc == GT_OK && m->n == 0)
        rc = gt_error_set(err, GT_EINPUT, path, "no SITE,NAME lines");
    if (rc != GT_OK)
        gt_export_map_free(m);
    return rc;
}

/* ------------------------------------------------------------ pair costs */

struct pair {
    char *src, *dst;
    double ms;   /* NAN: no estimate */
};

/* The map's entries by site, for the pairs to find theirs by halving. */
struct site_index {
    const struct gt_export_entry **e;
    size_t n;
};

static int by_site(const void *a, const void *b)
{
    return strcmp((*(const struct gt_export_entry *const *)a)->site,
                  (*(const struct gt_export_entry *const *)b)->site);
}

static bool index_map(struct site_index *x, const struct gt_export_map *m)
{
    x->n = m ? m->n : 0;
    x->e = malloc((x->n ? x->n : 1) * sizeof *x->e);
    for (size_t i = 0; x->e && i < x->n; i++)
        x->e[i] = &m->v[i];
    if (x->e)
        qsort(x->e, x->n, sizeof *x->e, by_site);
    return x->e != NULL;
}

/* [*lo, returned end) of x's entries for site */
static size_t site_range(const struct site_index *x, const char *site, size_t *lo)
{
    size_t a = 0, b = x->n;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (strcmp(x->e[mid]->site, site) < 0)
            a = mid + 1;
        else
            b = mid;
    }
    *lo = a;
    while (b < x->n && !strcmp(x->e[b]->site, site))
        b++;
    return b;
}

struct collect {
    const struct site_index *map;   /* NULL: every site */
    struct pair *v;
    size_t n, cap;
    struct gt_export_report *rep;
};

static bool mapped(const struct site_index *x, const char *site)
{
    size_t lo;
    return !x || site_range(x, site, &lo) > lo;
}

/* Each site left out once in the report (the sources come in order). */
static void note_unmapped(struct gt_export_report *rep, const char *site)
{
    for (size_t i = 0; i < rep->unmapped_sites && i < GT_EXPORT_NAMED; i++)
        if (!strcmp(rep->unmapped_named[i], site))
            return;
    if (rep->unmapped_sites < GT_EXPORT_NAMED)
        snprintf(rep->unmapped_named[rep->unmapped_sites], sizeof rep->unmapped_named[0],
                 "%s", site);
    rep->unmapped_sites++;
}

static int collect_pair(void *ctx, int64_t src, const char *src_name, int64_t dst,
                        const char *dst_name)
{
    struct collect *c = ctx;
    if (src == dst)
        return 0;   /* a site to itself: intra-site, not a cost between names */
    bool a = mapped(c->map, src_name), b = mapped(c->map, dst_name);
    if (!a)
        note_unmapped(c->rep, src_name);
    if (!b)
        note_unmapped(c->rep, dst_name);
    if (!a || !b)
        return 0;
    size_t most = (size_t)GT_EXPORT_MAX_SITES * GT_EXPORT_MAX_SITES;
    if (c->n == most)
        return GT_ETOOBIG;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        cap = cap < most ? cap : most;
        struct pair *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return GT_ENOMEM;
        c->v = v;
        c->cap = cap;
    }
    struct pair *p = &c->v[c->n];
    p->src = strdup(src_name);
    p->dst = strdup(dst_name);
    p->ms = NAN;
    c->n += p->src && p->dst;
    if (!p->src || !p->dst) {
        free(p->src);
        free(p->dst);
        return GT_ENOMEM;
    }
    return 0;
}

static void pairs_free(struct pair *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].src);
        free(v[i].dst);
    }
    free(v);
}

/* Why pair p has no cost: the advisor's reason (it names the pair). */
static void name_missing(char *buf, size_t size, const struct pair *p, int rc,
                         const struct gt_estimate *e)
{
    if (rc != -1 && e->reason[0])
        snprintf(buf, size, "%s", e->reason);
    else
        snprintf(buf, size, "%s -> %s: %s", p->src, p->dst,
                 rc == -1 ? "not estimated (stopped)" : "no estimate");
}

#define CHUNK 1024   /* pairs estimated at once: an estimate is about 2 kB */

/* The statistic of v[0..n): one estimate per pair, the partner alone. */
static int estimate_chunk(struct gt_advisor *adv, struct pair *v, size_t n,
                          struct gt_export_report *rep, struct gt_error *err)
{
    struct gt_site_req req[CHUNK];
    struct gt_placement pl[CHUNK] = {{0}};
    int rc[CHUNK];
    struct gt_estimate *out = calloc(n, sizeof *out);
    if (!out)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        req[i] = (struct gt_site_req){v[i].dst, 1};
        pl[i] = (struct gt_placement){v[i].src, &req[i], 1};
    }
    int status = gt_advisor_estimate_many(adv, pl, n, out, rc, err);
    for (size_t i = 0; i < n; i++) {
        if (status == GT_OK && rc[i] == GT_OK && out[i].ok && isfinite(out[i].objective_ms) &&
            out[i].objective_ms >= 0) {
            v[i].ms = out[i].objective_ms;
            rep->estimated++;
        } else if (status == GT_OK) {
            if (rep->missing < GT_EXPORT_NAMED)
                name_missing(rep->missing_named[rep->missing], sizeof rep->missing_named[0],
                             &v[i], rc[i], &out[i]);
            rep->missing++;
        }
        if (rc[i] != -1)
            gt_estimate_clear(&out[i]);
    }
    free(out);
    return status;
}

static int estimate_pairs(struct gt_advisor *adv, struct pair *v, size_t n,
                          struct gt_export_report *rep, struct gt_error *err)
{
    int rc = GT_OK;
    for (size_t i = 0; rc == GT_OK && i < n && !gt_advisor_stopped(adv); i += CHUNK)
        rc = estimate_chunk(adv, v + i, n - i < CHUNK ? n - i : CHUNK, rep, err);
    if (rc == GT_OK && gt_advisor_stopped(adv))
        rc = gt_error_set(err, GT_EINTR, NULL, "%s", gt_advisor_stopped(adv));
    return rc;
}

/* ------------------------------------------------------------ grouping */

/* One level of names (zones, regions or RSEs) and the largest cost of
 * the site pairs between each two. */
struct level {
    char **names;     /* sorted, distinct */
    size_t k;
    double *ms;       /* k x k, NAN where no site pair has an estimate */
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static long name_index(const struct level *l, const char *name)
{
    char *const *hit = bsearch(&name, l->names, l->k, sizeof *l->names, cmp_str);
    return hit ? hit - l->names : -1;
}

/* The names of one level: the map's (region when by_region), or the
 * pairs' sites when there is no map. */
static int level_names(struct level *l, const struct gt_export_map *m, bool by_region,
                       const struct pair *v, size_t n, struct gt_error *err)
{
    size_t most = m ? m->n : 2 * n;
    l->names = malloc((most ? most : 1) * sizeof *l->names);
    if (!l->names)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < most; i++)
        l->names[l->k++] = m ? (by_region ? m->v[i].region : m->v[i].name)
                             : i % 2 ? v[i / 2].dst : v[i / 2].src;
    qsort(l->names, l->k, sizeof *l->names, cmp_str);
    size_t u = 0;
    for (size_t i = 0; i < l->k; i++)
        if (!u || strcmp(l->names[u - 1], l->names[i]))
            l->names[u++] = l->names[i];
    l->k = u;
    if (l->k > GT_EXPORT_MAX_NAMES)
        return gt_error_set(err, GT_ETOOBIG, NULL, "%zu names to export, more than %d",
                            l->k, GT_EXPORT_MAX_NAMES);
    l->ms = malloc((l->k ? l->k * l->k : 1) * sizeof *l->ms);
    if (!l->ms)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < l->k * l->k; i++)
        l->ms[i] = NAN;
    return GT_OK;
}

static void level_raise(struct level *l, const char *a, const char *b, double ms)
{
    long i = name_index(l, a), j = name_index(l, b);
    if (i < 0 || j < 0 || i == j)
        return;   /* two sites of one zone: no cost between names */
    double *c = &l->ms[(size_t)i * l->k + (size_t)j];
    if (isnan(*c) || ms > *c)
        *c = ms;
}

/* The level's costs from the estimated pairs, through the map (x NULL:
 * the sites are the names). */
static void level_fill(struct level *l, const struct site_index *x, bool by_region,
                       const struct pair *v, size_t n)
{
    for (size_t p = 0; p < n; p++) {
        if (isnan(v[p].ms))
            continue;
        if (!x) {
            level_raise(l, v[p].src, v[p].dst, v[p].ms);
            continue;
        }
        size_t a0, b0, a1 = site_range(x, v[p].src, &a0), b1 = site_range(x, v[p].dst, &b0);
        for (size_t i = a0; i < a1; i++)
            for (size_t j = b0; j < b1; j++)
                level_raise(l, by_region ? x->e[i]->region : x->e[i]->name,
                            by_region ? x->e[j]->region : x->e[j]->name, v[p].ms);
    }
}

static void level_free(struct level *l)
{
    free(l->names);
    free(l->ms);
}

static json_int_t cost_of(double ms, double scale)
{
    return (json_int_t)llround(ms * scale);
}

/* ------------------------------------------------------------ documents */

static json_t *origin_list(const struct level *l, double scale)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < l->k; i++) {
        json_t *costs = json_array();
        for (size_t j = 0; costs && j < l->k; j++) {
            double ms = l->ms[i * l->k + j];
            if (!isnan(ms))
                json_array_append_new(costs, json_pack("{s:s, s:I}", "destination",
                                                       l->names[j], "networkCost",
                                                       cost_of(ms, scale)));
        }
        if (costs && json_array_size(costs))
            json_array_append_new(list, json_pack("{s:s, s:o}", "origin", l->names[i],
                                                  "costList", costs));
        else
            json_decref(costs);
    }
    return list;
}

static json_t *annotations(const struct gt_export_req *r)
{
    char at[32], window[32];
    gt_format_time(r->at, at, sizeof at);
    snprintf(window, sizeof window, "%zu", r->window);
    return json_pack("{s:s, s:s, s:s, s:s}", "gridtail/statistic", r->statistic,
                     "gridtail/unit", r->unit, "gridtail/window", window, "gridtail/at", at);
}

static json_t *networktopology(const struct gt_export_req *r, const struct level *zones,
                               const struct level *regions)
{
    json_t *topo = json_array();
    if (topo && regions)
        json_array_append_new(topo, json_pack("{s:s, s:o}", "topologyKey",
                                              "topology.kubernetes.io/region", "originList",
                                              origin_list(regions, r->scale)));
    if (topo)
        json_array_append_new(topo, json_pack("{s:s, s:o}", "topologyKey",
                                              "topology.kubernetes.io/zone", "originList",
                                              origin_list(zones, r->scale)));
    return json_pack("{s:s, s:s, s:{s:s, s:s, s:o}, s:{s:s, s:[{s:s, s:o}]}}", "apiVersion",
                     "networktopology.diktyo.x-k8s.io/v1alpha1", "kind", "NetworkTopology",
                     "metadata", "name", r->name, "namespace", r->nspace, "annotations",
                     annotations(r), "spec", "configmapName", r->configmap, "weights", "name",
                     r->weights, "topologyList", topo);
}

static json_t *rucio(const struct gt_export_req *r, const struct level *rses)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < rses->k; i++)
        for (size_t j = 0; j < rses->k; j++) {
            double ms = rses->ms[i * rses->k + j];
            if (!isnan(ms))
                json_array_append_new(list, json_pack("{s:s, s:s, s:I, s:f}", "source",
                                                      rses->names[i], "destination",
                                                      rses->names[j], "distance",
                                                      cost_of(ms, r->scale), "ms", ms));
        }
    char at[32];
    gt_format_time(r->at, at, sizeof at);
    return json_pack("{s:s, s:s, s:I, s:s, s:o}", "statistic", r->statistic, "unit", r->unit,
                     "window", (json_int_t)r->window, "at", at, "distances", list);
}

/* Without a map every site is a zone: its name must be a label value. */
static int check_site_zones(const struct level *l, struct gt_error *err)
{
    for (size_t i = 0; i < l->k; i++)
        if (!gt_export_label_value(l->names[i]))
            return gt_error_set(err, GT_EINPUT, NULL, "site '%s' is %s: name its zone with "
                                "--map (SITE,ZONE lines)", l->names[i],
                                name_rule(GT_EXPORT_NETWORKTOPOLOGY));
    return GT_OK;
}

static int build_doc(const struct gt_export_req *r, const struct site_index *x,
                     const struct pair *v, size_t n, json_t **doc, struct gt_error *err)
{
    struct level names = {0}, regions = {0};
    bool by_region = r->format == GT_EXPORT_NETWORKTOPOLOGY && r->map && r->map->regions;
    int rc = level_names(&names, r->map, false, v, n, err);
    if (rc == GT_OK && !r->map)
        rc = check_site_zones(&names, err);
    if (rc == GT_OK && by_region)
        rc = level_names(&regions, r->map, true, v, n, err);
    if (rc == GT_OK) {
        level_fill(&names, r->map ? x : NULL, false, v, n);
        if (by_region)
            level_fill(&regions, x, true, v, n);
        *doc = r->format == GT_EXPORT_RUCIO
                   ? rucio(r, &names)
                   : networktopology(r, &names, by_region ? &regions : NULL);
        if (!*doc)
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    level_free(&names);
    level_free(&regions);
    return rc;
}

int gt_export_build(struct gt_advisor *adv, struct gt_db *db, const struct gt_export_req *r,
                    json_t **doc, struct gt_export_report *rep, struct gt_error *err)
{
    memset(rep, 0, sizeof *rep);
    *doc = NULL;
    struct site_index x;
    if (!index_map(&x, r->map))
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    struct collect c = {r->map ? &x : NULL, NULL, 0, 0, rep};
    int rc = gt_query_pair_ids(db, collect_pair, &c, err);
    if (rc == GT_ETOOBIG)
        rc = gt_error_set(err, rc, NULL, "more than %d x %d pairs to export",
                          GT_EXPORT_MAX_SITES, GT_EXPORT_MAX_SITES);
    else if (rc == GT_ENOMEM)
        rc = gt_error_set(err, rc, NULL, "out of memory");
    rep->pairs = c.n;
    if (rc == GT_OK)
        rc = estimate_pairs(adv, c.v, c.n, rep, err);
    if (rc == GT_OK && rep->estimated == 0)
        rc = gt_error_set(err, GT_ENOTFOUND, NULL, "no pair between %s has an estimate%s",
                          r->map ? "mapped sites" : "two sites",
                          c.n ? "" : " (no such pair is stored)");
    if (rc == GT_OK)
        rc = build_doc(r, &x, c.v, c.n, doc, err);
    pairs_free(c.v, c.n);
    free(x.e);
    return rc;
}
