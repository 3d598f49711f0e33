/*
 * loggps.c - see loggps.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "loggps.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The paper's Table 5 (ns, bytes). */
static const struct gt_loggps builtins[] = {
    {"myrinet", 850, 6730, 5.02, 4.72, 4.80, 3.86, 15.17, 0.04, 8191, 16383},
    {"fast-ethernet", 24580, 22340, 12.37, 11.53, 9.73, 9.89, 188.77, 65.09, 1023, 16383},
};

const struct gt_loggps *gt_loggps_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (!strcmp(name, builtins[i].name))
            return &builtins[i];
    return NULL;
}

/* ------------------------------------------------------------ files */

struct key {
    const char *name;
    size_t off;
};

#define K(f) {#f, offsetof(struct gt_loggps, f)}
static const struct key keys[] = {K(L), K(o), K(Oss), K(Ors), K(Osl), K(Orl), K(Gs), K(Gl),
                                  K(s), K(S)};
#define NKEYS (sizeof keys / sizeof keys[0])

int gt_loggps_read(FILE *f, const char *fname, struct gt_loggps *out, struct gt_error *err)
{
    memset(out, 0, sizeof *out);
    bool seen[NKEYS] = {false};
    char line[512];
    struct gt_lines in;
    gt_lines_init(&in, f, fname, 0);
    int got;
    while ((got = gt_lines_next(&in, line, sizeof line, err)) != 0) {
        if (got < 0)
            return got == GT_ETOOBIG ? GT_EINPUT : got;
        const char *where = in.where;
        const char *p = line;
        size_t len = strcspn(line, "#\n");
        gt_trim_span(&p, &len);
        if (!len)
            continue;
        const char *eq = memchr(p, '=', len);
        if (!eq)
            return gt_error_set(err, GT_EINPUT, where, "expected 'name = value'");
        const char *kp = p, *vp = eq + 1;
        size_t kl = (size_t)(eq - p), vl = len - kl - 1;
        gt_trim_span(&kp, &kl);
        gt_trim_span(&vp, &vl);
        if (kl == 4 && !memcmp(kp, "name", 4)) {
            snprintf(out->name, sizeof out->name, "%.*s", (int)vl, vp);
            continue;
        }
        if (kl == 2 && !memcmp(kp, "o'", 2))
            kl = 1;   /* o' and o are the same parameter */
        size_t i = 0;
        while (i < NKEYS && !(strlen(keys[i].name) == kl && !memcmp(keys[i].name, kp, kl)))
            i++;
        if (i == NKEYS)
            return gt_error_set(err, GT_EINPUT, where, "unknown parameter '%.*s' (L, o, Oss, "
                                "Ors, Osl, Orl, Gs, Gl, s, S, name)", (int)kl, kp);
        double v;
        if (!gt_parse_double(vp, vl, &v) || !isfinite(v) || v < 0)
            return gt_error_set(err, GT_EINPUT, where, "%s: '%.*s' is not a number >= 0",
                                keys[i].name, (int)vl, vp);
        *(double *)((char *)out + keys[i].off) = v;
        seen[i] = true;
    }
    for (size_t i = 0; i < NKEYS; i++)
        if (!seen[i])
            return gt_error_set(err, GT_EINPUT, fname, "parameter %s is missing", keys[i].name);
    if (out->s > out->S)
        return gt_error_set(err, GT_EINPUT, fname, "s = %g is above S = %g", out->s, out->S);
    return GT_OK;
}

int gt_loggps_load(const char *spec, struct gt_loggps *out, struct gt_error *err)
{
    const struct gt_loggps *b = gt_loggps_builtin(spec);
    if (b) {
        *out = *b;
        return GT_OK;
    }
    FILE *f = fopen(spec, "r");
    if (!f)
        return gt_error_set(err, GT_EINPUT, spec, "not a built-in set (myrinet, "
                            "fast-ethernet) nor a readable file");
    int rc = gt_loggps_read(f, spec, out, err);
    fclose(f);
    if (rc == GT_OK && !out->name[0])
        snprintf(out->name, sizeof out->name, "%s", spec);
    return rc;
}

/* ------------------------------------------------------------ costs */

const char *gt_loggps_regime(const struct gt_loggps *m, double k)
{
    return k <= m->s ? "short" : k <= m->S ? "eager" : "rendezvous";
}

/* T2 or T2': the wire time of k bytes with p senders sharing. */
static double wire(const struct gt_loggps *m, double k, double p)
{
    if (k <= m->s)
        return k * m->Gs * p + m->L;
    return m->s * m->Gs * p + (k - m->s) * m->Gl * p + m->L;
}

double gt_loggps_time(const struct gt_loggps *m, double k, double p, double d)
{
    double o = m->o;
    if (k <= m->S)
        return (o + k * m->Oss) + wire(m, k, p) + (o + k * m->Ors);
    double t4 = fmax(o + m->L, d) + o, t5 = o + m->L + o;
    return t4 + t5 + (o + k * m->Osl) + wire(m, k, p) + (o + k * m->Orl);
}

void gt_loggps_calls(const struct gt_loggps *m, double k, double p, double d, double after,
                     struct gt_loggps_calls *c)
{
    double o = m->o, t5 = o + m->L + o;
    double t1 = o + k * m->Oss, t3 = o + k * m->Ors;
    double t1l = o + k * m->Osl, t3l = o + k * m->Orl, t2 = wire(m, k, p);
    if (k <= m->S) {
        c->send = t1;                                            /* (4) */
        c->recv = fmax(t1 + t2 - d, 0) + t3;                     /* (7), (8) */
    } else {
        c->send = fmax(o + m->L, d) + o + t5 + t1l;              /* (5) */
        c->recv = fmax(o + m->L - d, 0) + o + t5 + t1l + t2 + t3l;   /* (9) */
    }
    c->isend = c->irecv = o;                                     /* (6), (10) */
    /* (11): the blocking time less what passed since the nonblocking call */
    c->wait_send = fmax(c->send - after, o);
    c->wait_recv = fmax(c->recv - after, o);
}

/* ------------------------------------------------------------ fitting */

struct pt {
    double k, t;
};

static int by_k(const void *a, const void *b)
{
    double x = ((const struct pt *)a)->k, y = ((const struct pt *)b)->k;
    return (x > y) - (x < y);
}

/* Prefix sums for O(1) least-squares lines over any run of points. */
struct sums {
    double *n, *x, *y, *xx, *xy, *yy;
};

static void line_of(const struct sums *s, size_t i, size_t j, double *a, double *b,
                    double *ssr)
{
    double n = s->n[j] - s->n[i], sx = s->x[j] - s->x[i], sy = s->y[j] - s->y[i];
    double sxx = s->xx[j] - s->xx[i], sxy = s->xy[j] - s->xy[i], syy = s->yy[j] - s->yy[i];
    double vxx = sxx - sx * sx / n, vxy = sxy - sx * sy / n, vyy = syy - sy * sy / n;
    *b = vxy / vxx;
    *a = (sy - *b * sx) / n;
    *ssr = fmax(vyy - *b * vxy, 0);
}

/* Regime boundaries at distinct-size indices: u[i] = first point of the
 * i-th distinct size. */
static size_t distinct_starts(const struct pt *p, size_t n, size_t *u)
{
    size_t nu = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || p[i].k != p[i - 1].k)
            u[nu++] = i;
    u[nu] = n;
    return nu;
}

int gt_loggps_fit(const double *k, const double *t, size_t n, double o_known,
                  struct gt_loggps_fit *f, struct gt_error *err)
{
    memset(f, 0, sizeof *f);
    if (n < 4)
        return gt_error_set(err, GT_EINPUT, NULL, "need at least 4 ping-pong samples, got %zu",
                            n);
    struct pt *p = malloc(n * sizeof *p);
    size_t *u = malloc((n + 1) * sizeof *u);
    double *mem = calloc(6 * (n + 1), sizeof *mem);
    if (!p || !u || !mem) {
        free(p), free(u), free(mem);
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        p[i] = (struct pt){k[i], t[i]};
    qsort(p, n, sizeof *p, by_k);
    struct sums s = {mem, mem + n + 1, mem + 2 * (n + 1), mem + 3 * (n + 1),
                     mem + 4 * (n + 1), mem + 5 * (n + 1)};
    for (size_t i = 0; i < n; i++) {
        s.n[i + 1] = s.n[i] + 1;
        s.x[i + 1] = s.x[i] + p[i].k;
        s.y[i + 1] = s.y[i] + p[i].t;
        s.xx[i + 1] = s.xx[i] + p[i].k * p[i].k;
        s.xy[i + 1] = s.xy[i] + p[i].k * p[i].t;
        s.yy[i + 1] = s.yy[i] + p[i].t * p[i].t;
    }
    size_t nu = distinct_starts(p, n, u);
    int rc = GT_OK;
    if (nu < 2) {
        rc = gt_error_set(err, GT_EINPUT, NULL, "need at least 2 message sizes");
        goto done;
    }
    /* regimes [0, u[i]), [u[i], u[j]), [u[j], n); each used one needs two
       sizes; i = nu: one regime, j = nu: no rendezvous */
    double best = INFINITY;
    size_t bi = nu, bj = nu;
    for (size_t i = 2; i <= nu; i++)
        for (size_t j = i; j <= nu; j++) {
            size_t r2 = j - i, r3 = nu - j;
            if ((r2 && r2 < 2) || (r3 && r3 < 2))
                continue;
            double a, b, ssr = 0, part;
            line_of(&s, 0, u[i], &a, &b, &part);
            ssr += part;
            if (r2)
                line_of(&s, u[i], u[j], &a, &b, &part), ssr += part;
            if (r3)
                line_of(&s, u[j], n, &a, &b, &part), ssr += part;
            int params = 2 + (r2 ? 3 : 0) + (r3 ? 3 : 0);
            double bic = (double)n * log(fmax(ssr, 1e-300) / (double)n) +
                         params * log((double)n);
            if (bic < best)
                best = bic, bi = i, bj = j;
        }
    double part;
    f->regimes = 1;
    for (int r = 0; r < 3; r++)
        f->c[r] = f->b[r] = NAN;
    line_of(&s, 0, u[bi], &f->c[0], &f->b[0], &part);
    f->a0 = f->c[0];
    f->s_lo = f->s_hi = f->S_lo = f->S_hi = f->s_est = INFINITY;
    if (bj > bi) {
        line_of(&s, u[bi], u[bj], &f->c[1], &f->b[1], &part);
        f->s_lo = p[u[bi] - 1].k;
        f->s_hi = p[u[bi]].k - 1;
        f->s_est = (f->c[1] - f->c[0]) / (f->b[0] - f->b[1]);
        f->regimes++;
    }
    if (bj < nu) {
        line_of(&s, u[bj], n, &f->c[2], &f->b[2], &part);
        f->S_lo = p[u[bj] - 1].k;
        f->S_hi = p[u[bj]].k - 1;
        if (bj == bi)
            f->s_lo = f->s_hi = f->S_lo;   /* no eager sizes: s <= S */
        f->regimes++;
    }
    double ss = 0;
    for (size_t i = 0; i < n; i++) {
        double r = p[i].t - gt_loggps_fit_time(f, p[i].k);
        ss += r * r;
        if (p[i].t > 0)
            f->max_rel = fmax(f->max_rel, fabs(r) / p[i].t);
    }
    f->rms = sqrt(ss / (double)n);
    f->o = o_known;
    f->L = isnan(o_known) ? NAN : f->a0 - 2 * o_known;
done:
    free(p);
    free(u);
    free(mem);
    return rc;
}

double gt_loggps_fit_time(const struct gt_loggps_fit *f, double k)
{
    int r = k <= f->s_lo ? 0 : isfinite(f->c[1]) && k <= f->S_lo ? 1 : isfinite(f->c[2]) ? 2 : 1;
    if (!isfinite(f->c[r]))
        r = 0;
    return f->c[r] + f->b[r] * k;
}
