/*
 * peers.c - see peers.h.  A hash table of the addresses with a connection
 * open or bytes held, under one lock (taken once per connection and once
 * per piece of a body: never contended long).
 */
#define _POSIX_C_SOURCE 200809L   /* strdup */
#include "peers.h"
#include "base/util.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 1024
#define ADDR_MAX 64   /* INET6_ADDRSTRLEN and some */

struct gt_peer {
    char addr[ADDR_MAX];
    size_t conns, bytes;
    bool trusted;
    struct gt_peer *next;
};

struct gt_peers {
    pthread_mutex_t lock;
    size_t max_conns, max_bytes;
    char *trusted;
    struct gt_peer *bucket[BUCKETS];
};

/* The list with each IP address as inet_ntop writes it, the form the
 * clients' addresses are compared in ("0:0::1" is "::1") */
static char *canonical_list(const char *list)
{
    size_t cap = 2 * strlen(list) + 64, used = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    out[0] = 0;
    for (const char *s = list; *s && used < cap;) {
        size_t k = strcspn(s, ", ");
        char item[64] = "", text[64];
        unsigned char addr[16];
        if (k < sizeof item) {
            memcpy(item, s, k);
            item[k] = 0;
        }
        int family = inet_pton(AF_INET6, item, addr) == 1 ? AF_INET6
                     : inet_pton(AF_INET, item, addr) == 1 ? AF_INET : 0;
        const char *name = family && inet_ntop(family, addr, text, sizeof text) ? text : item;
        used += (size_t)snprintf(out + used, cap - used, "%s%s", used ? "," : "", name);
        s += k;
        s += strspn(s, ", ");
    }
    return out;
}

struct gt_peers *gt_peers_new(size_t max_conns, size_t max_bytes, const char *trusted)
{
    struct gt_peers *p = calloc(1, sizeof *p);
    if (!p || !(p->trusted = canonical_list(trusted ? trusted : ""))) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->lock, NULL);
    p->max_conns = max_conns, p->max_bytes = max_bytes;
    return p;
}

void gt_peers_free(struct gt_peers *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < BUCKETS; i++)
        for (struct gt_peer *e = p->bucket[i], *next; e; e = next) {
            next = e->next;
            free(e);
        }
    pthread_mutex_destroy(&p->lock);
    free(p->trusted);
    free(p);
}

static size_t hash(const char *addr)
{
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (; *addr; addr++)
        h = (h ^ (unsigned char)*addr) * 16777619u;
    return h % BUCKETS;
}

static bool is_trusted(const struct gt_peers *p, const char *addr)
{
    return gt_listed(p->trusted, addr, false);
}

/* addr's entry (lock held); made when make, else NULL if none */
static struct gt_peer *find(struct gt_peers *p, const char *addr, bool make)
{
    struct gt_peer **head = &p->bucket[hash(addr)];
    for (struct gt_peer *e = *head; e; e = e->next)
        if (!strcmp(e->addr, addr))
            return e;
    struct gt_peer *e = make ? calloc(1, sizeof *e) : NULL;
    if (e) {
        snprintf(e->addr, sizeof e->addr, "%s", addr);
        e->trusted = is_trusted(p, addr);
        e->next = *head;
        *head = e;
    }
    return e;
}

/* peer off the table once it holds nothing (lock held) */
static void drop_if_idle(struct gt_peers *p, struct gt_peer *peer)
{
    if (peer->conns || peer->bytes)
        return;
    for (struct gt_peer **at = &p->bucket[hash(peer->addr)]; *at; at = &(*at)->next)
        if (*at == peer) {
            *at = peer->next;
            free(peer);
            return;
        }
}

bool gt_peers_admit(struct gt_peers *p, const char *addr)
{
    pthread_mutex_lock(&p->lock);
    struct gt_peer *e = find(p, addr, false);
    bool ok = !e || e->trusted || e->conns < p->max_conns;
    pthread_mutex_unlock(&p->lock);
    return ok;
}

struct gt_peer *gt_peers_open(struct gt_peers *p, const char *addr, bool *refused)
{
    pthread_mutex_lock(&p->lock);
    struct gt_peer *e = find(p, addr, true);
    *refused = e && !e->trusted && e->conns >= p->max_conns;
    if (*refused) {
        drop_if_idle(p, e);
        e = NULL;
    } else if (e) {
        e->conns++;
    }
    pthread_mutex_unlock(&p->lock);
    return e;
}

void gt_peers_close(struct gt_peers *p, struct gt_peer *peer)
{
    if (!peer)
        return;
    pthread_mutex_lock(&p->lock);
    if (peer->conns)
        peer->conns--;
    drop_if_idle(p, peer);
    pthread_mutex_unlock(&p->lock);
}

size_t gt_peers_share(const struct gt_peers *p, const struct gt_peer *peer)
{
    return !peer || peer->trusted ? SIZE_MAX : p->max_bytes;
}

bool gt_peers_hold(struct gt_peers *p, struct gt_peer *peer, size_t n)
{
    if (!peer)
        return true;   /* not counted (out of memory at open): the global budget holds */
    pthread_mutex_lock(&p->lock);
    bool ok = peer->trusted || peer->bytes + n <= p->max_bytes;
    if (ok)
        peer->bytes += n;
    pthread_mutex_unlock(&p->lock);
    return ok;
}

void gt_peers_release(struct gt_peers *p, struct gt_peer *peer, size_t n)
{
    if (!peer || !n)
        return;
    pthread_mutex_lock(&p->lock);
    peer->bytes -= n < peer->bytes ? n : peer->bytes;
    drop_if_idle(p, peer);
    pthread_mutex_unlock(&p->lock);
}
