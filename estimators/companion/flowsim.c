/*
 * flowsim.c - see flowsim.h.
 *
 * A node has at most one active flow, so flows live in per-node slots.
 * Each link keeps the list of nodes whose flow crosses it; an indexed
 * binary heap keyed by projected arrival holds one entry per active flow,
 * moved (not duplicated) when its rate changes.
 */
#include "flowsim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct flow {
    bool live;
    size_t k;                 /* messages this node has started */
    size_t index;             /* start order, for finish[] */
    double rem, rate, t_last;
    uint32_t *path;           /* plen links, room for pcap */
    size_t plen, pcap;
};

struct list {
    uint32_t *v;
    size_t n, cap;
};

struct sim {
    const struct gt_sim_net *net;
    struct flow *f;
    struct list *on;          /* per link: nodes whose flow crosses it */
    uint32_t *heap;           /* nodes by projected arrival */
    size_t *pos, nheap;
    double *key;
    /* component search and progressive filling scratch */
    uint32_t *lstamp, *nstamp, stamp;
    uint32_t *clinks, *cnodes, *queue;
    size_t ncl, ncn;
    double *cap;
    uint32_t *cnt;
    bool *frozen;
    uint32_t *seeds;
    size_t nseeds, capseeds;
    uint32_t *batch;          /* nodes arriving at one instant */
    uint32_t *route;          /* max_path links: a route as it is made */
    double now;
    size_t started;
    double *finish;
    struct gt_sim_result *out;
};

/* ------------------------------------------------------------ heap */

static void heap_swap(struct sim *s, size_t i, size_t j)
{
    uint32_t a = s->heap[i], b = s->heap[j];
    s->heap[i] = b, s->heap[j] = a;
    s->pos[b] = i, s->pos[a] = j;
}

static void heap_fix(struct sim *s, size_t i)
{
    while (i > 0 && s->key[s->heap[(i - 1) / 2]] > s->key[s->heap[i]]) {
        heap_swap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->nheap && s->key[s->heap[l]] < s->key[s->heap[m]])
            m = l;
        if (r < s->nheap && s->key[s->heap[r]] < s->key[s->heap[m]])
            m = r;
        if (m == i)
            return;
        heap_swap(s, i, m);
        i = m;
    }
}

static void heap_set(struct sim *s, uint32_t node, double key)
{
    s->key[node] = key;
    if (s->pos[node] == SIZE_MAX) {
        s->heap[s->nheap] = node;
        s->pos[node] = s->nheap++;
    }
    heap_fix(s, s->pos[node]);
}

static uint32_t heap_pop(struct sim *s)
{
    uint32_t top = s->heap[0];
    heap_swap(s, 0, --s->nheap);
    s->pos[top] = SIZE_MAX;
    if (s->nheap)
        heap_fix(s, 0);
    return top;
}

/* ------------------------------------------------------------ lists */

static bool list_add(struct list *l, uint32_t v)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 4;
        uint32_t *n = realloc(l->v, cap * sizeof *n);
        if (!n)
            return false;
        l->v = n;
        l->cap = cap;
    }
    l->v[l->n++] = v;
    return true;
}

static void list_remove(struct list *l, uint32_t v)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] == v) {
            l->v[i] = l->v[--l->n];
            return;
        }
}

static bool add_seed(struct sim *s, uint32_t link)
{
    if (s->nseeds == s->capseeds) {
        size_t cap = s->capseeds ? 2 * s->capseeds : 64;
        uint32_t *n = realloc(s->seeds, cap * sizeof *n);
        if (!n)
            return false;
        s->seeds = n;
        s->capseeds = cap;
    }
    s->seeds[s->nseeds++] = link;
    return true;
}

/* ------------------------------------------------------------ rates */

/* The flows and links connected to the seed links through shared links. */
static void component(struct sim *s)
{
    s->stamp++;
    s->ncl = s->ncn = 0;
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < s->nseeds; i++)
        if (s->lstamp[s->seeds[i]] != s->stamp) {
            s->lstamp[s->seeds[i]] = s->stamp;
            s->queue[tail++] = s->seeds[i];
        }
    while (head < tail) {
        uint32_t l = s->queue[head++];
        s->clinks[s->ncl++] = l;
        for (size_t i = 0; i < s->on[l].n; i++) {
            uint32_t node = s->on[l].v[i];
            if (s->nstamp[node] == s->stamp)
                continue;
            s->nstamp[node] = s->stamp;
            s->cnodes[s->ncn++] = node;
            const struct flow *f = &s->f[node];
            for (size_t h = 0; h < f->plen; h++)
                if (s->lstamp[f->path[h]] != s->stamp) {
                    s->lstamp[f->path[h]] = s->stamp;
                    s->queue[tail++] = f->path[h];
                }
        }
    }
}

/* Max-min fair rates of the component by progressive filling. */
static void fill(struct sim *s)
{
    const double *bw = s->net->bw;
    for (size_t i = 0; i < s->ncl; i++) {
        uint32_t l = s->clinks[i];
        s->cap[l] = bw[l];
        s->cnt[l] = (uint32_t)s->on[l].n;
    }
    for (size_t i = 0; i < s->ncn; i++)
        s->frozen[s->cnodes[i]] = false;
    for (;;) {
        double share = INFINITY;
        uint32_t tight = UINT32_MAX;
        for (size_t i = 0; i < s->ncl; i++) {
            uint32_t l = s->clinks[i];
            if (s->cnt[l] && s->cap[l] / s->cnt[l] < share)
                share = s->cap[l] / s->cnt[l], tight = l;
        }
        if (tight == UINT32_MAX)
            return;
        for (size_t i = 0; i < s->on[tight].n; i++) {
            uint32_t node = s->on[tight].v[i];
            if (s->frozen[node])
                continue;
            s->frozen[node] = true;
            struct flow *f = &s->f[node];
            f->rate = share;
            for (size_t h = 0; h < f->plen; h++) {
                uint32_t l = f->path[h];
                s->cap[l] = fmax(s->cap[l] - share, 0);
                s->cnt[l]--;
            }
        }
    }
}

static void recompute(struct sim *s)
{
    component(s);
    for (size_t i = 0; i < s->ncn; i++) {
        struct flow *f = &s->f[s->cnodes[i]];
        f->rem = fmax(f->rem - f->rate * (s->now - f->t_last), 0);
        f->t_last = s->now;
    }
    fill(s);
    s->out->recomputed += s->ncn;
    for (size_t i = 0; i < s->ncn; i++) {
        uint32_t node = s->cnodes[i];
        heap_set(s, node, s->now + s->f[node].rem / s->f[node].rate);
    }
    for (size_t i = 0; i < s->ncl; i++) {
        uint32_t l = s->clinks[i];
        if (s->out->peak_flows && s->on[l].n > s->out->peak_flows[l])
            s->out->peak_flows[l] = (uint32_t)s->on[l].n;
        if (s->out->peak_util) {
            double sum = 0;
            for (size_t k = 0; k < s->on[l].n; k++)
                sum += s->f[s->on[l].v[k]].rate;
            s->out->peak_util[l] = fmax(s->out->peak_util[l], sum / s->net->bw[l]);
        }
    }
    s->nseeds = 0;
}

/* ------------------------------------------------------------ flows */

static void record(struct sim *s, size_t index)
{
    if (s->finish)
        s->finish[index] = s->now;
    s->out->time = fmax(s->out->time, s->now);
}

/* The route from node to dst into the flow's own path (grown to fit:
 * a node's routes are as long as they need, not all max_path). */
static int set_path(struct sim *s, struct flow *f, size_t node, size_t dst,
                    struct gt_error *err)
{
    const struct gt_sim_net *net = s->net;
    f->plen = dst == node ? 0 : net->route(net->ctx, node, dst, s->route, net->max_path);
    if (f->plen > net->max_path)
        return gt_error_set(err, GT_EINPUT, NULL, "the route from node %zu to %zu has %zu "
                            "links, more than the network's longest (%zu)", node, dst,
                            f->plen, net->max_path);
    if (f->plen > f->pcap) {
        uint32_t *p = realloc(f->path, f->plen * sizeof *p);
        if (!p)
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        f->path = p;
        f->pcap = f->plen;
    }
    if (f->plen)
        memcpy(f->path, s->route, f->plen * sizeof *f->path);
    return GT_OK;
}

/* Start node's next message with a path; empty ones arrive at once. */
static int start_next(struct sim *s, uint32_t node, struct gt_error *err)
{
    struct flow *f = &s->f[node];
    size_t dst;
    double bytes;
    while (s->net->next(s->net->ctx, node, f->k, &dst, &bytes)) {
        f->k++;
        f->index = s->started++;
        s->out->flows++;
        int rc = set_path(s, f, node, dst, err);
        if (rc)
            return rc;
        if (!(bytes > 0) || f->plen == 0) {
            record(s, f->index);
            continue;
        }
        f->live = true;
        f->rem = bytes;
        f->rate = 0;
        f->t_last = s->now;
        for (size_t h = 0; h < f->plen; h++)
            if (!list_add(&s->on[f->path[h]], node) || !add_seed(s, f->path[h]))
                return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        return GT_OK;
    }
    return GT_OK;
}

static int arrive(struct sim *s, uint32_t node, struct gt_error *err)
{
    struct flow *f = &s->f[node];
    f->live = false;
    f->rate = 0;
    record(s, f->index);
    s->out->events++;
    for (size_t h = 0; h < f->plen; h++) {
        list_remove(&s->on[f->path[h]], node);
        if (!add_seed(s, f->path[h]))
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    return GT_OK;
}

static void sim_free(struct sim *s)
{
    for (size_t i = 0; s->f && i < s->net->nnodes; i++)
        free(s->f[i].path);
    for (size_t i = 0; s->on && i < s->net->nlinks; i++)
        free(s->on[i].v);
    free(s->f), free(s->on), free(s->heap), free(s->pos), free(s->key);
    free(s->lstamp), free(s->nstamp), free(s->clinks), free(s->cnodes), free(s->queue);
    free(s->cap), free(s->cnt), free(s->frozen), free(s->seeds), free(s->batch);
    free(s->route);
}

int gt_sim_run(const struct gt_sim_net *net, size_t max_events, double *finish,
               struct gt_sim_result *out, struct gt_error *err)
{
    uint32_t *pf = out->peak_flows;
    double *pu = out->peak_util;
    memset(out, 0, sizeof *out);
    out->peak_flows = pf, out->peak_util = pu;
    size_t nn = net->nnodes, nl = net->nlinks;
    if (pf)
        memset(pf, 0, nl * sizeof *pf);
    if (pu)
        memset(pu, 0, nl * sizeof *pu);
    for (size_t l = 0; l < nl; l++)
        if (!(net->bw[l] > 0 && isfinite(net->bw[l])))
            return gt_error_set(err, GT_EINPUT, NULL, "link %zu: bandwidth must be > 0", l);
    struct sim s = {.net = net, .finish = finish, .out = out};
    s.f = calloc(nn, sizeof *s.f);
    s.on = calloc(nl, sizeof *s.on);
    s.heap = calloc(nn, sizeof *s.heap);
    s.pos = malloc(nn * sizeof *s.pos);
    s.key = calloc(nn, sizeof *s.key);
    s.nstamp = calloc(nn, sizeof *s.nstamp);
    s.cnodes = calloc(nn, sizeof *s.cnodes);
    s.frozen = calloc(nn, sizeof *s.frozen);
    s.lstamp = calloc(nl, sizeof *s.lstamp);
    s.clinks = calloc(nl, sizeof *s.clinks);
    s.queue = calloc(nl, sizeof *s.queue);
    s.cap = calloc(nl, sizeof *s.cap);
    s.cnt = calloc(nl, sizeof *s.cnt);
    s.batch = calloc(nn, sizeof *s.batch);
    s.route = calloc(net->max_path ? net->max_path : 1, sizeof *s.route);
    int rc = s.f && s.on && s.heap && s.pos && s.key && s.nstamp && s.cnodes && s.frozen &&
             s.lstamp && s.clinks && s.queue && s.cap && s.cnt && s.batch && s.route
             ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; rc == GT_OK && i < nn; i++)
        s.pos[i] = SIZE_MAX;
    for (size_t i = 0; rc == GT_OK && i < nn; i++)
        rc = start_next(&s, (uint32_t)i, err);
    if (rc == GT_OK && s.nseeds)
        recompute(&s);
    while (rc == GT_OK && s.nheap) {
        if (max_events && out->events == max_events) {
            out->stopped = true;
            break;
        }
        /* every arrival at this instant first (to rounding), then the
           messages they free, then one recomputation */
        s.now = s.key[s.heap[0]];
        double same = s.now + 1e-12 * fabs(s.now);
        size_t nbatch = 0;
        while (rc == GT_OK && s.nheap && s.key[s.heap[0]] <= same &&
               (!max_events || out->events < max_events)) {
            uint32_t node = heap_pop(&s);
            s.batch[nbatch++] = node;
            rc = arrive(&s, node, err);
        }
        for (size_t i = 0; rc == GT_OK && i < nbatch; i++)
            rc = start_next(&s, s.batch[i], err);
        if (rc == GT_OK && s.nseeds)
            recompute(&s);
    }
    sim_free(&s);
    return rc;
}
