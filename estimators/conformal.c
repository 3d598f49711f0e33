/*
 * conformal.c - the calibrator of conformal.h.
 *
 * The last W scores are kept twice: in arrival order (a ring, to know
 * which leaves) and sorted (to read a quantile in O(1)); an outcome costs
 * two binary searches and one move of at most W doubles (gt_sorted_replace).
 */
#include "conformal.h"
#include "base/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const struct gt_conf_opts gt_conf_defaults = {3000, 0.001};

struct gt_conf {
    double p, gamma, level;
    size_t window, n, next;   /* scores held; ring slot of the next */
    double *ring, *sorted;
};

struct gt_conf *gt_conf_new(double p, const struct gt_conf_opts *o)
{
    if (!o)
        o = &gt_conf_defaults;
    if (!(p > 0 && p < 1) || o->window < 1 || o->window > GT_CONF_MAX_WINDOW ||
        !(o->gamma >= 0 && o->gamma <= 1))
        return NULL;
    struct gt_conf *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->ring = malloc(o->window * sizeof *c->ring);
    c->sorted = malloc(o->window * sizeof *c->sorted);
    if (!c->ring || !c->sorted) {
        gt_conf_free(c);
        return NULL;
    }
    c->p = c->level = p;
    c->gamma = o->gamma;
    c->window = o->window;
    return c;
}

void gt_conf_free(struct gt_conf *c)
{
    if (!c)
        return;
    free(c->ring);
    free(c->sorted);
    free(c);
}

size_t gt_conf_count(const struct gt_conf *c)
{
    return c->n;
}

double gt_conf_level(const struct gt_conf *c)
{
    return c->level;
}

/* The rank (1-based) of the level-L quantile among n scores with the
 * conformal (n + 1) correction, before clamping to n. */
static double rank_of(double level, size_t n)
{
    return ceil(level * (double)(n + 1) - 1e-9);
}

bool gt_conf_ready(const struct gt_conf *c)
{
    return c->n && rank_of(c->p, c->n) <= (double)c->n;
}

double gt_conf_adjust(const struct gt_conf *c, double raw)
{
    if (!c->n || !(raw > 0 && isfinite(raw)))
        return raw;
    if (!gt_conf_ready(c))   /* too few to lower it: only raised by the worst miss */
        return raw * exp(fmax(0, c->sorted[c->n - 1]));
    double r = rank_of(c->level, c->n);
    size_t i = r < 1 ? 0 : r > (double)c->n ? c->n - 1 : (size_t)r - 1;
    return raw * exp(c->sorted[i]);
}

static void add_score(struct gt_conf *c, double s)
{
    if (c->n == c->window) {   /* the oldest leaves, s takes its place */
        gt_sorted_replace(c->sorted, c->n, c->ring[c->next], s);
    } else {
        gt_sorted_insert(c->sorted, c->n, s);
        c->n++;
    }
    c->ring[c->next] = s;
    c->next = (c->next + 1) % c->window;
}

void gt_conf_observe(struct gt_conf *c, double raw, double issued, double actual)
{
    if (!(raw > 0 && isfinite(raw) && actual > 0 && isfinite(actual)))
        return;
    double s = log(actual / raw);
    if (!isfinite(s))
        return;
    add_score(c, s);
    if (isnan(issued))
        return;
    double miss = actual > issued;
    c->level = fmin(1, fmax(0, c->level + c->gamma * (miss - (1 - c->p))));
}

/* A saved state: this header, then the n scores oldest first. */
struct saved {
    double level;
    uint64_t window, n;
};

size_t gt_conf_state_size(const struct gt_conf *c)
{
    return sizeof(struct saved) + c->n * sizeof(double);
}

void gt_conf_state_save(const struct gt_conf *c, void *buf)
{
    struct saved h = {c->level, c->window, c->n};
    char *p = buf;
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    /* oldest first: while fewer than W, the ring holds them from slot 0 */
    size_t first = c->n == c->window ? c->next : 0;
    for (size_t i = 0; i < c->n; i++, p += sizeof(double))
        memcpy(p, &c->ring[(first + i) % c->window], sizeof(double));
}

struct gt_conf *gt_conf_state_load(double p, const struct gt_conf_opts *o, const void *buf,
                                   size_t len)
{
    struct saved h;
    if (len < sizeof h)
        return NULL;
    memcpy(&h, buf, sizeof h);
    struct gt_conf *c = gt_conf_new(p, o);
    if (!c || h.window != c->window || h.n > c->window ||
        len != sizeof h + h.n * sizeof(double) || !(h.level >= 0 && h.level <= 1)) {
        gt_conf_free(c);
        return NULL;
    }
    c->level = h.level;
    c->n = (size_t)h.n;
    memcpy(c->ring, (const char *)buf + sizeof h, c->n * sizeof *c->ring);
    c->next = c->n % c->window;
    memcpy(c->sorted, c->ring, c->n * sizeof *c->sorted);
    qsort(c->sorted, c->n, sizeof *c->sorted, gt_cmp_double);
    return c;
}
