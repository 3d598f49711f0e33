/*
 * sitemap.c - KEY,SITE files and the set of keys told (sitemap.h).  Both
 * are open-addressing hash tables of strings: a map has up to 100,000
 * lines, and a dump of a day meets each probe thousands of times.
 */
#define _POSIX_C_SOURCE 200809L
#include "sitemap.h"
#include "base/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct slot {
    char *key, *site;   /* key NULL: empty */
    long line;
};

struct table {
    struct slot *v;
    size_t cap, n;      /* cap a power of two, at most half full */
};

struct gt_site_map {
    struct table t;
};

struct gt_key_set {
    struct table t;
};

static uint64_t hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603u;   /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

static struct slot *lookup(const struct table *t, const char *key, size_t len)
{
    if (!t->cap)
        return NULL;
    for (size_t i = hash(key, len) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        struct slot *s = &t->v[i];
        if (!s->key || (strlen(s->key) == len && !memcmp(s->key, key, len)))
            return s;
    }
}

static bool grow(struct table *t)
{
    if (2 * (t->n + 1) <= t->cap)
        return true;
    size_t cap = t->cap ? 2 * t->cap : 64;
    struct slot *v = calloc(cap, sizeof *v);
    if (!v)
        return false;
    struct table bigger = {v, cap, 0};
    for (size_t i = 0; i < t->cap; i++)
        if (t->v[i].key) {
            *lookup(&bigger, t->v[i].key, strlen(t->v[i].key)) = t->v[i];
            bigger.n++;
        }
    free(t->v);
    *t = bigger;
    return true;
}

static void table_free(struct table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->v[i].key), free(t->v[i].site);
    free(t->v);
}

/* One KEY,SITE line (trimmed, comment cut) into the map. */
static int map_line(struct gt_site_map *m, const char *p, size_t len, long lineno,
                    const char *where, struct gt_error *err)
{
    const char *comma = memchr(p, ',', len);
    if (!comma)
        return gt_error_set(err, GT_EINPUT, where, "expected KEY,SITE");
    const char *key = p, *site = comma + 1;
    size_t klen = (size_t)(comma - p), slen = len - klen - 1;
    gt_trim_span(&key, &klen);
    gt_trim_span(&site, &slen);
    if (memchr(site, ',', slen))
        return gt_error_set(err, GT_EINPUT, where, "site: more than two fields");
    if (!klen || gt_has_control(key, klen) || !gt_utf8_valid(key, klen))
        return gt_error_set(err, GT_EINPUT, where, "key: empty, or not printable UTF-8");
    const char *why = gt_site_name_problem(site, slen);
    if (why)
        return gt_error_set(err, GT_EINPUT, where, "site: %s", why);
    if (!grow(&m->t))
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    struct slot *s = lookup(&m->t, key, klen);
    if (s->key) {
        if (strlen(s->site) == slen && !memcmp(s->site, site, slen))
            return GT_OK;
        return gt_error_set(err, GT_EINPUT, where, "key: '%.*s' is site %s on line %ld", (int)klen,
                            key, s->site, s->line);
    }
    s->key = strndup(key, klen);
    s->site = strndup(site, slen);
    s->line = lineno;
    if (!s->key || !s->site) {
        free(s->key), free(s->site);
        s->key = s->site = NULL;
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    m->t.n++;
    return GT_OK;
}

int gt_site_map_load(const char *path, struct gt_site_map **out, struct gt_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return gt_error_set(err, GT_EIO, path, "%s", strerror(errno));
    struct gt_site_map *m = calloc(1, sizeof *m);
    char line[GT_SITE_MAP_LINE], where[GT_ERR_WHERE];
    long lineno = 0;
    struct gt_lines in;
    gt_lines_init(&in, f, path, 0);
    int got, rc = m ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    while (rc == GT_OK && (got = gt_lines_next(&in, line, sizeof line, err)) != 0) {
        lineno = in.line;
        snprintf(where, sizeof where, "%s", in.where);
        const char *p = line;
        size_t len = strcspn(line, "#");
        gt_trim_span(&p, &len);
        if (got < 0)
            rc = got == GT_ETOOBIG ? GT_EINPUT : got;
        else if (lineno > GT_SITE_MAP_MAX_LINES)
            rc = gt_error_set(err, GT_EINPUT, where, "more than %d lines",
                              GT_SITE_MAP_MAX_LINES);
        else if (len)
            rc = map_line(m, p, len, lineno, where, err);
    }
    if (rc == GT_OK && ferror(f))
        rc = gt_error_set(err, GT_EIO, path, "%s", strerror(errno));
    fclose(f);
    if (rc == GT_OK && m->t.n == 0)
        rc = gt_error_set(err, GT_EINPUT, path, "no KEY,SITE lines");
    if (rc != GT_OK) {
        gt_site_map_free(m);
        return rc;
    }
    *out = m;
    return GT_OK;
}

void gt_site_map_free(struct gt_site_map *m)
{
    if (m)
        table_free(&m->t);
    free(m);
}

const char *gt_site_map_find(const struct gt_site_map *m, const char *key, size_t len)
{
    const struct slot *s = m ? lookup(&m->t, key, len) : NULL;
    return s && s->key ? s->site : NULL;
}

const char *gt_site_map_name(const struct gt_site_map *m, struct gt_key_set *told,
                             const struct gt_sink *sink, const char *format, const char *what,
                             const char *const keys[2])
{
    for (int i = 0; i < 2; i++) {
        const char *site = keys[i] ? gt_site_map_find(m, keys[i], strlen(keys[i])) : NULL;
        if (site)
            return site;
    }
    if (m && gt_key_set_first(told, keys[0], strlen(keys[0])))
        gt_note(sink, "%s: %s %s%s%s%s has no --site-map line: stored as site %s", format, what,
                keys[0], keys[1] ? " (" : "", keys[1] ? keys[1] : "", keys[1] ? ")" : "",
                keys[0]);
    return keys[0];
}

struct gt_key_set *gt_key_set_new(void)
{
    return calloc(1, sizeof(struct gt_key_set));
}

bool gt_key_set_first(struct gt_key_set *s, const char *key, size_t len)
{
    if (!s || !grow(&s->t))
        return true;   /* told again rather than never */
    struct slot *k = lookup(&s->t, key, len);
    if (k->key)
        return false;
    if ((k->key = strndup(key, len)))
        s->t.n++;
    return true;
}

void gt_key_set_free(struct gt_key_set *s)
{
    if (s)
        table_free(&s->t);
    free(s);
}
