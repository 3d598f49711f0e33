/*
 * topology.c - see topology.h.  Link numbering:
 *   crossbar, sites: 2i up (node -> switch), 2i + 1 down
 *   mesh, torus: node i owns links i*S .. i*S + S-1 with S = 2 + 2*ndims:
 *     injection, ejection, then per dimension the + and - going links
 *   fattree: vertex v (nodes 0..N-1, then switches level by level) owns
 *     2v (up to its parent) and 2v + 1 (down from it); the root none
 */
#define _POSIX_C_SOURCE 200809L
#include "topology.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const pattern_names[] = {"alltoall-spread", "alltoall-pairwise", "ring",
                                            "bcast"};

int gt_pattern_find(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, pattern_names[i]))
            return i;
    return -1;
}

/* ------------------------------------------------------------ building */

static int parse_sizes(const char *s, size_t *v, size_t max, size_t *n)
{
    *n = 0;
    while (*s) {
        char *end;
        long x = strtol(s, &end, 10);
        if (end == s || x < 1 || x > 1000000 || *n == max || (*end && *end != ','))
            return -1;
        v[(*n)++] = (size_t)x;
        s = *end ? end + 1 : end;
    }
    return *n ? 0 : -1;
}

static void build_grid(struct gt_topology *t, bool torus)
{
    t->kind = torus ? GT_TOPO_TORUS : GT_TOPO_MESH;
    t->nnodes = 1;
    for (size_t d = 0; d < t->ndims; d++)
        t->nnodes *= t->dims[d];
    t->nlinks = t->nnodes * (2 + 2 * t->ndims);
    t->max_path = 2;   /* injection, ejection and the farthest way per dimension */
    for (size_t d = 0; d < t->ndims; d++)
        t->max_path += torus ? t->dims[d] / 2 : t->dims[d] - 1;
}

static int build_fattree(struct gt_topology *t)
{
    size_t n = t->nnodes, a = t->arity, total = n, level = n;
    while (level > 1) {
        level = (level + a - 1) / a;
        total += level;
    }
    t->nverts = total;
    if (!(t->parent = malloc(total * sizeof *t->parent)))
        return -1;
    size_t first = 0;
    level = n;
    while (level > 1) {
        size_t up = (level + a - 1) / a;
        for (size_t i = 0; i < level; i++)
            t->parent[first + i] = first + level + i / a;
        first += level;
        level = up;
        t->max_path += 2;   /* a level more to climb and to come down */
    }
    t->parent[total - 1] = SIZE_MAX;   /* the root */
    t->nlinks = 2 * total;
    return 0;
}

/* Nodes under each fattree vertex, for the fat link bandwidths. */
static int fattree_bw(struct gt_topology *t, double bw)
{
    size_t *below = calloc(t->nverts, sizeof *below);
    if (!below)
        return -1;
    for (size_t v = 0; v < t->nverts; v++) {
        below[v] += v < t->nnodes;
        if (t->parent[v] != SIZE_MAX)
            below[t->parent[v]] += below[v];
    }
    for (size_t v = 0; v < t->nverts; v++)
        t->bw[2 * v] = t->bw[2 * v + 1] = bw * (double)below[v];
    free(below);
    return 0;
}

/* Whitespace-separated fields of a line, at most max; the count, or
 * max + 1 when there are more. */
static size_t split_fields(char *line, char **field, size_t max)
{
    size_t n = 0;
    for (char *p = line;;) {
        p += strspn(p, " \t\r");
        if (!*p)
            return n;
        if (n == max)
            return max + 1;
        field[n++] = p;
        p += strcspn(p, " \t\r");
        if (*p)
            *p++ = 0;
    }
}

/* A bandwidth field in MB/s: a number > 0, all of the field. */
static bool parse_mbps(const char *s, double *bytes_per_s)
{
    double v;
    if (!gt_parse_double(s, strlen(s), &v) || !(v > 0 && isfinite(v)))
        return false;
    *bytes_per_s = v * 1e6;
    return true;
}

/* One "NAME UP_MBps [DOWN_MBps]" line into slot t->nnodes (room made). */
static int site_line(struct gt_topology *t, char *line, double *up, double *down,
                     const char *where, struct gt_error *err)
{
    char *f[3];
    size_t n = split_fields(line, f, 3);
    size_t i = t->nnodes;
    if (n < 2 || n > 3 || !parse_mbps(f[1], &up[i]) || (n == 3 && !parse_mbps(f[2], &down[i])))
        return gt_error_set(err, GT_EINPUT, where, "expected 'NAME UP_MBps [DOWN_MBps]' "
                            "with bandwidths > 0");
    if (n == 2)
        down[i] = up[i];
    for (size_t k = 0; k < i; k++)
        if (!strcmp(t->names[k], f[0]))
            return gt_error_set(err, GT_EINPUT, where, "site '%s' is listed twice", f[0]);
    if (!(t->names[i] = strdup(f[0])))
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    t->nnodes++;
    return GT_OK;
}

static int read_sites(struct gt_topology *t, const char *path, struct gt_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gt_error_set(err, GT_EIO, path, "cannot open the sites file");
    char line[512];
    size_t cap = 0;
    struct gt_lines in;
    gt_lines_init(&in, f, path, 0);
    int rc = GT_OK, got;
    double *up = NULL, *down = NULL;
    while (rc == GT_OK && (got = gt_lines_next(&in, line, sizeof line, err)) != 0) {
        const char *where = in.where;
        if (got < 0) {
            rc = got == GT_ETOOBIG ? GT_EINPUT : got;
            break;
        }
        line[strcspn(line, "#\n")] = 0;
        if (!line[strspn(line, " \t\r")])
            continue;
        if (t->nnodes == cap) {
            cap = cap ? 2 * cap : 16;
            char **nn = realloc(t->names, cap * sizeof *nn);
            double *nu = nn ? realloc(up, cap * sizeof *nu) : NULL;
            double *nd = nu ? realloc(down, cap * sizeof *nd) : NULL;
            if (nn)
                t->names = nn;
            if (nu)
                up = nu;
            if (!nd) {
                rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
                break;
            }
            down = nd;
        }
        rc = site_line(t, line, up, down, where, err);
    }
    fclose(f);
    if (rc == GT_OK && t->nnodes < 2)
        rc = gt_error_set(err, GT_EINPUT, path, "needs at least 2 sites");
    if (rc == GT_OK) {
        t->nlinks = 2 * t->nnodes;
        t->max_path = 2;
        if ((t->bw = malloc(t->nlinks * sizeof *t->bw)))
            for (size_t i = 0; i < t->nnodes; i++)
                t->bw[2 * i] = up[i], t->bw[2 * i + 1] = down[i];
        else
            rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    free(up);
    free(down);
    return rc;
}

int gt_topology_sites(const char *path, struct gt_topology *t, struct gt_error *err)
{
    memset(t, 0, sizeof *t);
    int rc = read_sites(t, path, err);
    if (rc)
        gt_topology_free(t);
    return rc;
}

int gt_topology_new(const char *spec, double bw, struct gt_topology *t, struct gt_error *err)
{
    memset(t, 0, sizeof *t);
    const char *colon = strchr(spec, ':');
    if (!colon)
        return gt_error_set(err, GT_EUSAGE, NULL, "topology '%s': expected KIND:ARGS", spec);
    size_t kl = (size_t)(colon - spec), v[3], n;
    const char *args = colon + 1;
    if (kl == 5 && !memcmp(spec, "sites", 5))
        return gt_topology_sites(args, t, err);
    if (!(bw > 0 && isfinite(bw)))
        return gt_error_set(err, GT_EUSAGE, NULL, "bandwidth must be > 0");
    if (parse_sizes(args, v, 3, &n))
        return gt_error_set(err, GT_EUSAGE, NULL, "topology '%s': sizes must be 1 to 3 "
                            "integers in [1, 1000000]", spec);
    if (kl == 8 && !memcmp(spec, "crossbar", 8) && n == 1 && v[0] >= 2) {
        t->kind = GT_TOPO_CROSSBAR;
        t->nnodes = v[0];
        t->nlinks = 2 * v[0];
        t->max_path = 2;
    } else if (kl == 7 && !memcmp(spec, "fattree", 7) && n <= 2 && v[0] >= 2 &&
               (n == 1 || v[1] >= 2)) {
        t->kind = GT_TOPO_FATTREE;
        t->nnodes = v[0];
        t->arity = n == 2 ? v[1] : 16;
        if (build_fattree(t))
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    } else if ((kl == 4 && !memcmp(spec, "mesh", 4)) || (kl == 5 && !memcmp(spec, "torus", 5))) {
        t->ndims = n;
        memcpy(t->dims, v, n * sizeof *v);
        build_grid(t, kl == 5);
        if (t->nnodes < 2 || t->nnodes > 10000000)
            return gt_error_set(err, GT_EUSAGE, NULL, "topology '%s': 2 to 10^7 nodes", spec);
    } else {
        return gt_error_set(err, GT_EUSAGE, NULL, "topology '%s': not crossbar:N, "
                            "fattree:N[,A], mesh:X[,Y[,Z]], torus:X[,Y[,Z]] or sites:FILE", spec);
    }
    if (!(t->bw = malloc(t->nlinks * sizeof *t->bw)) ||
        (t->kind == GT_TOPO_FATTREE && fattree_bw(t, bw))) {
        gt_topology_free(t);
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    if (t->kind != GT_TOPO_FATTREE)
        for (size_t l = 0; l < t->nlinks; l++)
            t->bw[l] = bw;
    return GT_OK;
}

void gt_topology_free(struct gt_topology *t)
{
    for (size_t i = 0; t->names && i < t->nnodes; i++)
        free(t->names[i]);
    free(t->names);
    free(t->bw);
    free(t->parent);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------ routes */

/* Route builders count every link and store those that fit in cap. */
static void put(uint32_t *out, size_t cap, size_t *n, size_t link)
{
    if (*n < cap)
        out[*n] = (uint32_t)link;
    (*n)++;
}

static size_t grid_route(const struct gt_topology *t, size_t src, size_t dst, uint32_t *out,
                         size_t cap)
{
    size_t stride = 2 + 2 * t->ndims, n = 0, c[3], d[3], mul = 1;
    for (size_t k = 0; k < t->ndims; k++) {
        c[k] = src / mul % t->dims[k];
        d[k] = dst / mul % t->dims[k];
        mul *= t->dims[k];
    }
    put(out, cap, &n, src * stride);              /* injection */
    size_t at = src;
    mul = 1;
    for (size_t k = 0; k < t->ndims; k++) {
        size_t X = t->dims[k];
        bool fwd = d[k] > c[k];
        size_t hops = fwd ? d[k] - c[k] : c[k] - d[k];
        if (t->kind == GT_TOPO_TORUS && hops > X - hops) {   /* the other way round */
            fwd = !fwd;
            hops = X - hops;
        } else if (t->kind == GT_TOPO_TORUS && 2 * hops == X && !fwd) {
            fwd = true;   /* a tie: forward */
        }
        for (size_t h = 0; h < hops; h++) {
            put(out, cap, &n, at * stride + 2 + 2 * k + (fwd ? 0 : 1));
            size_t x = at / mul % X, nx = fwd ? (x + 1) % X : (x + X - 1) % X;
            at = at - x * mul + nx * mul;
        }
        mul *= X;
    }
    put(out, cap, &n, dst * stride + 1);          /* ejection */
    return n;
}

static size_t tree_route(const struct gt_topology *t, size_t src, size_t dst, uint32_t *out,
                         size_t cap)
{
    /* climb both to the lowest common vertex: a parent's id is above its
       children's, so the smaller id is never an ancestor of the other */
    size_t a = src, b = dst, n = 0, down[64], nd = 0;
    while (a != b && nd < 64) {
        if (a < b) {
            put(out, cap, &n, 2 * a);
            a = t->parent[a];
        } else {
            down[nd++] = b;
            b = t->parent[b];
        }
    }
    while (nd)
        put(out, cap, &n, 2 * down[--nd] + 1);
    return n;
}

static size_t route(void *ctx, size_t src, size_t dst, uint32_t *out, size_t cap)
{
    const struct gt_topology *t = ctx;
    switch (t->kind) {
    case GT_TOPO_CROSSBAR:
    case GT_TOPO_SITES: {
        size_t n = 0;
        put(out, cap, &n, 2 * src);
        put(out, cap, &n, 2 * dst + 1);
        return n;
    }
    case GT_TOPO_FATTREE: return tree_route(t, src, dst, out, cap);
    default: return grid_route(t, src, dst, out, cap);
    }
}

/* ------------------------------------------------------------ patterns */

static bool next(void *ctx, size_t node, size_t k, size_t *dst, double *bytes)
{
    const struct gt_topology *t = ctx;
    size_t n = t->nnodes;
    *bytes = t->bytes;
    switch (t->pattern) {
    case GT_PAT_SPREAD:
        *dst = (node + k + 1) % n;
        return k + 1 < n;
    case GT_PAT_PAIRWISE:
        *dst = (n & (n - 1)) == 0 ? node ^ (k + 1) : (node + k + 1) % n;
        return k + 1 < n;
    case GT_PAT_RING:
        *dst = (node + 1) % n;
        return k == 0;
    case GT_PAT_BCAST:
        *dst = k + 1;
        return node == 0 && k + 1 < n;
    }
    return false;
}

void gt_topology_net(struct gt_topology *t, enum gt_pattern p, double bytes,
                     struct gt_sim_net *net)
{
    t->pattern = p;
    t->bytes = bytes;
    *net = (struct gt_sim_net){.nnodes = t->nnodes, .nlinks = t->nlinks,
                               .max_path = t->max_path, .bw = t->bw, .next = next,
                               .route = route, .ctx = t};
}

void gt_topology_link_name(const struct gt_topology *t, size_t l, char *buf, size_t size)
{
    if (t->kind == GT_TOPO_CROSSBAR || t->kind == GT_TOPO_SITES) {
        size_t i = l / 2;
        if (t->names)
            snprintf(buf, size, "%s %s", t->names[i], l % 2 ? "down" : "up");
        else
            snprintf(buf, size, "node %zu %s", i, l % 2 ? "down" : "up");
    } else if (t->kind == GT_TOPO_FATTREE) {
        size_t v = l / 2;
        snprintf(buf, size, "%s %zu %s", v < t->nnodes ? "node" : "switch",
                 v < t->nnodes ? v : v - t->nnodes, l % 2 ? "down" : "up");
    } else {
        size_t stride = 2 + 2 * t->ndims, node = l / stride, k = l % stride, mul = 1;
        char at[64] = "(";
        for (size_t d = 0; d < t->ndims; d++) {
            snprintf(at + strlen(at), sizeof at - strlen(at), "%s%zu", d ? "," : "",
                     node / mul % t->dims[d]);
            mul *= t->dims[d];
        }
        static const char axis[] = "xyz";
        if (k < 2)
            snprintf(buf, size, "%s) %s", at, k ? "ejection" : "injection");
        else
            snprintf(buf, size, "%s) %c%c", at, axis[(k - 2) / 2], k % 2 ? '-' : '+');
    }
}
