/*
 * calibmemo.c - see calibmemo.h.  A few hundred copies at most: a list
 * searched from end to end under one lock, its recency a tick.
 */
#define _POSIX_C_SOURCE 200809L   /* strdup */
#include "calibmemo.h"

#include <stdlib.h>
#include <string.h>
#include <threads.h>

struct copy {
    int64_t root;
    long window;
    char *key;
    void *buf;
    size_t len;
    uint64_t used;            /* the tick of its last get or put */
};

struct gt_calib_memo {
    mtx_t lock;
    struct copy *v;
    size_t n, max_states, bytes, max_bytes;
    uint64_t tick, hits, misses;
};

struct gt_calib_memo *gt_calib_memo_new(size_t max_states, size_t max_bytes)
{
    struct gt_calib_memo *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->max_states = max_states ? max_states : 1;
    m->max_bytes = max_bytes;
    if (!(m->v = calloc(m->max_states, sizeof *m->v)) ||
        mtx_init(&m->lock, mtx_plain) != thrd_success) {
        free(m->v);
        free(m);
        return NULL;
    }
    return m;
}

static void drop(struct gt_calib_memo *m, size_t i)
{
    m->bytes -= m->v[i].len;
    free(m->v[i].key);
    free(m->v[i].buf);
    m->v[i] = m->v[--m->n];
}

void gt_calib_memo_free(struct gt_calib_memo *m)
{
    if (!m)
        return;
    while (m->n)
        drop(m, m->n - 1);
    mtx_destroy(&m->lock);
    free(m->v);
    free(m);
}

static struct copy *find(struct gt_calib_memo *m, int64_t root, long window, const char *key)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].root == root && m->v[i].window == window && !strcmp(m->v[i].key, key))
            return &m->v[i];
    return NULL;
}

bool gt_calib_memo_get(struct gt_calib_memo *m, int64_t root, long window, const char *key,
                       const void *prefix, size_t plen, void **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    mtx_lock(&m->lock);
    struct copy *c = find(m, root, window, key);
    bool same = c && c->len >= plen && !memcmp(c->buf, prefix, plen);
    if (same && (*buf = malloc(c->len))) {
        memcpy(*buf, c->buf, c->len);
        *len = c->len;
        c->used = ++m->tick;
    }
    if (*buf)
        m->hits++;
    else
        m->misses++;
    mtx_unlock(&m->lock);
    return *buf != NULL;
}

/* The least recently used copy's index (m->n > 0). */
static size_t oldest(const struct gt_calib_memo *m)
{
    size_t o = 0;
    for (size_t i = 1; i < m->n; i++)
        if (m->v[i].used < m->v[o].used)
            o = i;
    return o;
}

void gt_calib_memo_put(struct gt_calib_memo *m, int64_t root, long window, const char *key,
                       const void *buf, size_t len)
{
    if (len > m->max_bytes)
        return;
    char *k = strdup(key);
    void *b = malloc(len ? len : 1);
    if (!k || !b) {
        free(k);
        free(b);
        return;   /* (a copy is only ever a saving) */
    }
    memcpy(b, buf, len);
    mtx_lock(&m->lock);
    struct copy *c = find(m, root, window, key);
    if (c)
        drop(m, (size_t)(c - m->v));
    while (m->n && (m->n == m->max_states || m->bytes + len > m->max_bytes))
        drop(m, oldest(m));
    m->v[m->n++] = (struct copy){root, window, k, b, len, ++m->tick};
    m->bytes += len;
    mtx_unlock(&m->lock);
}

void gt_calib_memo_stats(struct gt_calib_memo *m, struct gt_calib_memo_stats *s)
{
    mtx_lock(&m->lock);
    *s = (struct gt_calib_memo_stats){m->n, m->bytes, m->max_states, m->max_bytes, m->hits,
                                      m->misses};
    mtx_unlock(&m->lock);
}
