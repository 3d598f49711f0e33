/*
 * store.c - the ingest hot path.  A name -> site id and a (src, dst) ->
 * pair id hash table (open addressing, power-of-two sizes) keep the
 * database out of the lookup for all but the first sample of a pair; the
 * last looked-up name is checked first since consecutive rows usually
 * share it.  The writes themselves are the backend's (db/backend.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "store.h"
#include "backend.h"
#include "fitcache.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct name_slot {
    char *name;      /* NULL = empty slot */
    size_t len;
    uint64_t hash;
    int64_t id;
};

struct pair_slot {
    uint64_t key;    /* src << 32 | dst; 0 = empty (site ids start at 1) */
    int64_t id;
    bool changed;    /* a sample was stored since the last flush */
    int64_t oldest;  /* the oldest of them */
};

struct gt_store {
    struct gt_db *db;
    struct gt_db_writer *w;      /* the backend's statements */
    struct name_slot *names;
    size_t names_cap, names_used;
    struct pair_slot *pairs;
    size_t pairs_cap, pairs_used;
    /* samples queued for the next put_samples (gt_store_queue), and an
     * index of their keys (slot = queue position + 1, 0 = empty) */
    struct gt_sample_put *q;
    uint64_t *qpair;              /* each one's pair key (0: not known) */
    size_t nq, qmax;
    uint32_t *qindex;
    size_t qindex_cap;
    bool q_replace;
    gt_store_written_fn written;
    void *written_ctx;
    const struct name_slot *last;
    struct pair_slot *current;    /* the last gt_store_pair answer */
    bool changed_unknown;         /* a sample stored for a pair not seen there */
};

static uint64_t hash_bytes(const char *p, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
    return h;
}

static uint64_t hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

int gt_store_open(struct gt_db *db, struct gt_store **out, struct gt_error *err)
{
    struct gt_store *s = calloc(1, sizeof *s);
    if (!s)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    s->db = db;
    int rc = db->be->writer_open(db, &s->w, err);
    if (rc) {
        gt_store_free(s);
        return rc;
    }
    *out = s;
    return GT_OK;
}

void gt_store_forget(struct gt_store *s)
{
    s->nq = 0;
    if (s->qindex)
        memset(s->qindex, 0, s->qindex_cap * sizeof *s->qindex);
    for (size_t i = 0; i < s->names_cap; i++)
        free(s->names[i].name);
    free(s->names);
    free(s->pairs);
    s->names = NULL;
    s->pairs = NULL;
    s->names_cap = s->names_used = s->pairs_cap = s->pairs_used = 0;
    s->last = NULL;
    s->current = NULL;
    s->changed_unknown = false;
}

void gt_store_free(struct gt_store *s)
{
    if (!s)
        return;
    gt_store_forget(s);
    free(s->q);
    free(s->qpair);
    free(s->qindex);
    if (s->w)
        s->db->be->writer_free(s->w);
    free(s);
}

static struct name_slot *name_find(struct gt_store *s, const char *p, size_t len,
                                   uint64_t h)
{
    if (!s->names_cap)
        return NULL;
    size_t mask = s->names_cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        struct name_slot *slot = &s->names[i];
        if (!slot->name)
            return slot;
        if (slot->hash == h && slot->len == len && !memcmp(slot->name, p, len))
            return slot;
    }
}

static int names_grow(struct gt_store *s)
{
    size_t cap = s->names_cap ? s->names_cap * 2 : 1024;
    struct name_slot *old = s->names;
    size_t old_cap = s->names_cap;
    s->names = calloc(cap, sizeof *s->names);
    if (!s->names) {
        s->names = old;
        return GT_ENOMEM;
    }
    s->names_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].name)
            *name_find(s, old[i].name, old[i].len, old[i].hash) = old[i];
    free(old);
    s->last = NULL;
    return GT_OK;
}

int gt_store_site(struct gt_store *s, const char *p, size_t len, int64_t *id,
                  struct gt_error *err)
{
    const struct name_slot *last = s->last;
    if (last && last->len == len && !memcmp(last->name, p, len)) {
        *id = last->id;
        return GT_OK;
    }
    uint64_t h = hash_bytes(p, len);
    struct name_slot *slot = name_find(s, p, len, h);
    if (slot && slot->name) {
        s->last = slot;
        *id = slot->id;
        return GT_OK;
    }
    int rc = s->db->be->site_id(s->w, p, len, id, err);
    if (rc)
        return rc;
    if ((s->names_used + 1) * 2 > s->names_cap) {
        if (names_grow(s))
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    slot = name_find(s, p, len, h);
    slot->name = malloc(len + 1);
    if (!slot->name)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    memcpy(slot->name, p, len);
    slot->name[len] = '\0';
    slot->len = len;
    slot->hash = h;
    slot->id = *id;
    s->names_used++;
    s->last = slot;
    return GT_OK;
}

static struct pair_slot *pair_find(struct gt_store *s, uint64_t key)
{
    size_t mask = s->pairs_cap - 1;
    for (size_t i = hash_u64(key) & mask;; i = (i + 1) & mask)
        if (s->pairs[i].key == key || s->pairs[i].key == 0)
            return &s->pairs[i];
}

static int pairs_grow(struct gt_store *s)
{
    size_t cap = s->pairs_cap ? s->pairs_cap * 2 : 4096;
    struct pair_slot *old = s->pairs;
    size_t old_cap = s->pairs_cap;
    s->pairs = calloc(cap, sizeof *s->pairs);
    if (!s->pairs) {
        s->pairs = old;
        return GT_ENOMEM;
    }
    s->pairs_cap = cap;
    s->current = NULL;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key)
            *pair_find(s, old[i].key) = old[i];
    free(old);
    return GT_OK;
}

int gt_store_pair(struct gt_store *s, int64_t src, int64_t dst, int64_t *id,
                  struct gt_error *err)
{
    uint64_t key = ((uint64_t)src << 32) ^ (uint64_t)dst;
    if (src <= 0 || dst <= 0 || src > UINT32_MAX || dst > UINT32_MAX)
        return gt_error_set(err, GT_EDB, NULL, "site id out of range");
    if ((s->pairs_used + 1) * 2 > s->pairs_cap && pairs_grow(s))
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    struct pair_slot *slot = pair_find(s, key);
    s->current = slot;
    if (slot->key) {
        *id = slot->id;
        return GT_OK;
    }
    int rc = s->db->be->pair_id(s->w, src, dst, id, err);
    if (rc)
        return rc;
    slot->key = key;
    slot->id = *id;
    slot->changed = false;
    slot->oldest = INT64_MAX;
    s->pairs_used++;
    return GT_OK;
}

static void mark_changed(struct pair_slot *slot, int64_t ts)
{
    slot->changed = true;
    if (ts < slot->oldest)
        slot->oldest = ts;
}

static void note_changed(struct gt_store *s, int64_t pair, int64_t ts)
{
    if (s->current && s->current->key && s->current->id == pair)
        mark_changed(s->current, ts);
    else
        s->changed_unknown = true;
}

int gt_store_sample(struct gt_store *s, int64_t pair, int64_t ts, int64_t seq, double rtt_ms,
                    bool replace, struct gt_store_outcome *out, struct gt_error *err)
{
    struct gt_sample_put one = {pair, ts, seq, rtt_ms, {GT_SAMPLE_STORED, NAN}};
    int rc = s->db->be->put_samples(s->w, &one, 1, replace, err);
    if (rc)
        return rc;
    *out = one.out;
    if (out->what == GT_SAMPLE_STORED || out->what == GT_SAMPLE_REPLACED)
        note_changed(s, pair, ts);
    return GT_OK;
}

void gt_store_on_written(struct gt_store *s, gt_store_written_fn done, void *ctx)
{
    s->written = done;
    s->written_ctx = ctx;
}

size_t gt_store_queued(const struct gt_store *s)
{
    return s->nq;
}

static uint64_t sample_key_hash(int64_t pair, int64_t ts, int64_t seq)
{
    return hash_u64((uint64_t)pair * 0x9e3779b97f4a7c15ULL ^ hash_u64((uint64_t)ts) ^
                    (uint64_t)seq);
}

/* The queue slot holding the key, or the empty index entry for it. */
static uint32_t *queued_slot(struct gt_store *s, int64_t pair, int64_t ts, int64_t seq)
{
    size_t mask = s->qindex_cap - 1;
    for (size_t i = sample_key_hash(pair, ts, seq) & mask;; i = (i + 1) & mask) {
        uint32_t *e = &s->qindex[i];
        if (!*e)
            return e;
        const struct gt_sample_put *p = &s->q[*e - 1];
        if (p->pair == pair && p->ts == ts && p->seq == seq)
            return e;
    }
}

static int queue_alloc(struct gt_store *s, struct gt_error *err)
{
    size_t max = s->db->be->batch_max ? s->db->be->batch_max : 1, cap = 16;
    while (cap < 2 * max)
        cap *= 2;
    s->q = malloc(max * sizeof *s->q);
    s->qpair = malloc(max * sizeof *s->qpair);
    s->qindex = calloc(cap, sizeof *s->qindex);
    if (!s->q || !s->qpair || !s->qindex) {
        free(s->q);
        free(s->qpair);
        free(s->qindex);
        s->q = NULL, s->qpair = NULL, s->qindex = NULL;
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    s->qmax = max;
    s->qindex_cap = cap;
    return GT_OK;
}

int gt_store_drain(struct gt_store *s, struct gt_error *err)
{
    if (!s->nq)
        return GT_OK;
    size_t n = s->nq;
    s->nq = 0;
    memset(s->qindex, 0, s->qindex_cap * sizeof *s->qindex);
    int rc = s->db->be->put_samples(s->w, s->q, n, s->q_replace, err);
    for (size_t i = 0; rc == GT_OK && i < n; i++) {
        enum gt_sample_fate f = s->q[i].out.what;
        if (f != GT_SAMPLE_STORED && f != GT_SAMPLE_REPLACED)
            continue;
        struct pair_slot *slot = s->qpair[i] ? pair_find(s, s->qpair[i]) : NULL;
        if (slot && slot->key == s->qpair[i])
            mark_changed(slot, s->q[i].ts);
        else
            s->changed_unknown = true;
    }
    if (rc == GT_OK && s->written)
        rc = s->written(s->written_ctx, s->q, n);
    return rc;
}

int gt_store_queue(struct gt_store *s, int64_t pair, int64_t ts, int64_t seq, double rtt_ms,
                   bool replace, struct gt_error *err)
{
    int rc;
    if (!s->q && (rc = queue_alloc(s, err)) != GT_OK)
        return rc;
    /* a key already queued (or another rule) waits for the queue's write,
       so that it meets the stored value as it would one by one */
    if (s->nq && (s->nq == s->qmax || replace != s->q_replace ||
                  *queued_slot(s, pair, ts, seq)) &&
        (rc = gt_store_drain(s, err)) != GT_OK)
        return rc;
    s->q_replace = replace;
    *queued_slot(s, pair, ts, seq) = (uint32_t)(s->nq + 1);
    /* the pair's slot is found again by its key: slots move as the table grows */
    s->qpair[s->nq] = s->current && s->current->key && s->current->id == pair
                          ? s->current->key : 0;
    s->q[s->nq++] = (struct gt_sample_put){pair, ts, seq, rtt_ms, {GT_SAMPLE_STORED, NAN}};
    return s->nq == s->qmax ? gt_store_drain(s, err) : GT_OK;
}

static int cmp_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int gt_store_flush_changes(struct gt_store *s, struct gt_error *err)
{
    if (s->changed_unknown) {
        for (size_t i = 0; i < s->pairs_cap; i++)
            s->pairs[i].changed = false;
        s->changed_unknown = false;
        int rc = gt_fitcache_forget(s->db, NULL, 0, err);
        return rc ? rc : s->db->be->event_rewind(s->db, -1, -1, 0, err);
    }
    size_t n = 0;
    for (size_t i = 0; i < s->pairs_cap; i++)
        n += s->pairs[i].changed;
    if (n == 0)
        return GT_OK;
    /* the key is src << 32 | dst (ids below 2^32): sorted, it orders the
       pairs by source, then destination */
    /* the key is followed by the pair's oldest new sample, to be sorted with it */
    uint64_t *keys = malloc(2 * n * sizeof *keys);
    int64_t *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst);
    int64_t *oldest = malloc(n * sizeof *oldest);
    int rc = keys && src && dst && oldest ? GT_OK
                                          : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK) {
        n = 0;
        for (size_t i = 0; rc == GT_OK && i < s->pairs_cap; i++)
            if (s->pairs[i].changed) {
                struct pair_slot *p = &s->pairs[i];
                keys[2 * n] = p->key;
                keys[2 * n + 1] = (uint64_t)p->oldest;
                n++;
                p->changed = false;
                /* samples before the pair's scanned point: its events again */
                rc = s->db->be->event_rewind(s->db, (int64_t)(p->key >> 32),
                                             (int64_t)(p->key & 0xffffffffu), p->oldest, err);
                p->oldest = INT64_MAX;
            }
        if (rc == GT_OK)
            qsort(keys, n, 2 * sizeof *keys, cmp_key);
        for (size_t i = 0; i < n; i++) {
            src[i] = (int64_t)(keys[2 * i] >> 32);
            dst[i] = (int64_t)(keys[2 * i] & 0xffffffffu);
            oldest[i] = (int64_t)keys[2 * i + 1];
        }
        if (rc == GT_OK)
            rc = gt_fitcache_forget_pairs(s->db, src, dst, oldest, n, err);
    }
    free(keys);
    free(src);
    free(dst);
    free(oldest);
    return rc;
}
