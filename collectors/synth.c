/*
 * synth.c - see synth.h for the model.
 *
 * Random numbers: xoshiro256** seeded through splitmix64 from the seed and
 * FNV-1a hashes of the site names, one stream per pair and one per site
 * (its access delay).  Each sample draws a fixed number of uniforms
 * whatever happens to it, so turning one effect off (say, spikes) leaves
 * the other effects' draws where they were.
 */
#define _POSIX_C_SOURCE 200809L
#include "synth.h"
#include "csvread.h"
#include "base/interrupt.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EARTH_RADIUS_KM 6371.0
#define PI 3.14159265358979323846
#define DEG (PI / 180.0)
#define DRAWS_PER_SAMPLE 12

/* ---- random streams ---- */

struct rng {
    uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

static void rng_seed(struct rng *r, uint64_t seed, const char *a, const char *b)
{
    uint64_t x = seed ^ fnv1a(a) ^ (b ? (fnv1a(b) * 0x9e3779b97f4a7c15ULL) : 0x5851f42d4c957f2dULL);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* Uniform on (0, 1): never 0 or 1, so logs and powers are finite. */
static double rng_uniform(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return ((double)(out >> 11) + 0.5) * 0x1.0p-53;
}

static double log_uniform(double u, double lo, double hi)
{
    return lo * exp(u * log(hi / lo));
}

/* Samples covering a duration in seconds (at least one). */
static long samples_for(double seconds, int64_t interval)
{
    double k = ceil(seconds / (double)interval);
    return k < 1 ? 1 : (long)k;
}

/* ---- parameters ---- */

void gt_synth_defaults(struct gt_synth_params *p)
{
    *p = (struct gt_synth_params){
        .seed = 1,
        .start = 0,
        .interval = 60,
        .samples = 2 * 1440,
        .fibre_km_per_ms = 200.0,
        .stretch = 1.5,
        .access_ms = 1.0,
        .jitter = 0.05,
        .alpha_min = 1.5,
        .alpha_max = 4.0,
        .max_queue_ms = 1000.0,
        .diurnal = 1.0,
        .shift_per_day = 0.5,
        .shift_min_s = 600,
        .shift_max_s = 2 * 86400,
        .shift_size = 0.3,
        .spike_prob = 0.002,
        .spike_ms = 150.0,
        .loss = 0.005,
        .burst_prob = 0.0005,
        .burst_len = 5.0,
        .outage_per_day = 0.1,
        .outage_min_s = 300,
        .outage_max_s = 6 * 3600,
    };
}

struct range {
    const char *name;
    double v, lo, hi;
};

int gt_synth_check(const struct gt_synth_params *p, size_t nsites, struct gt_error *err)
{
    const struct range r[] = {
        {"--interval", (double)p->interval, 1, 86400},
        {"--samples", (double)p->samples, 1, (double)GT_SYNTH_MAX_SAMPLES},
        {"--fibre", p->fibre_km_per_ms, 1, 300},
        {"--stretch", p->stretch, 1, 10},
        {"--access", p->access_ms, 0, 1000},
        {"--jitter", p->jitter, 0, 100},
        {"--alpha-min", p->alpha_min, 0.1, 100},
        {"--alpha-max", p->alpha_max, p->alpha_min, 100},
        {"--max-queue", p->max_queue_ms, 0, 60000},
        {"--diurnal", p->diurnal, 0, 100},
        {"--shift-rate", p->shift_per_day, 0, 1440},
        {"--shift-min", p->shift_min_s, 1, 365 * 86400.0},
        {"--shift-max", p->shift_max_s, p->shift_min_s, 365 * 86400.0},
        {"--shift-size", p->shift_size, 0, 100},
        {"--spike-prob", p->spike_prob, 0, 1},
        {"--spike-ms", p->spike_ms, 0, 60000},
        {"--loss", p->loss, 0, 1},
        {"--burst-prob", p->burst_prob, 0, 1},
        {"--burst-len", p->burst_len, 1, 1e6},
        {"--outage-rate", p->outage_per_day, 0, 1440},
        {"--outage-min", p->outage_min_s, 1, 365 * 86400.0},
        {"--outage-max", p->outage_max_s, p->outage_min_s, 365 * 86400.0},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (!(r[i].v >= r[i].lo && r[i].v <= r[i].hi))
            return gt_error_set(err, GT_EUSAGE, r[i].name, "%g is not in [%g, %g]",
                                r[i].v, r[i].lo, r[i].hi);
    if (nsites < 2 || nsites > GT_SYNTH_MAX_SITES)
        return gt_error_set(err, GT_EUSAGE, "sites", "%zu sites; between 2 and %d are needed",
                            nsites, GT_SYNTH_MAX_SITES);
    double rows = (double)nsites * (double)(nsites - 1) * (double)p->samples;
    if (rows > (double)GT_SYNTH_MAX_ROWS)
        return gt_error_set(err, GT_EUSAGE, "--samples",
                            "%.0f rows (pairs x samples) is more than the limit of %lld",
                            rows, (long long)GT_SYNTH_MAX_ROWS);
    if (p->start < 0 || p->start > INT64_MAX / 2 - (int64_t)p->samples * p->interval)
        return gt_error_set(err, GT_EUSAGE, "--start", "out of range");
    return GT_OK;
}

/* ---- sites ---- */

/* Public coordinates of the computing centres (approximate, to ~1 km). */
static const struct gt_synth_site preset[] = {
    {"CERN", "WLCG-T0", "cern.ch", 46.2330, 6.0557},
    {"FNAL", "US-T1", "fnal.gov", 41.8319, -88.2573},
    {"BNL", "US-T1", "bnl.gov", 40.8690, -72.8870},
    {"SLAC", "US-T2", "slac.stanford.edu", 37.4180, -122.2040},
    {"ANL", "US-HPC", "anl.gov", 41.7183, -87.9786},
    {"ORNL", "US-HPC", "ornl.gov", 35.9310, -84.3100},
    {"NERSC", "US-HPC", "nersc.gov", 37.8760, -122.2470},
    {"NCSA", "US-HPC", "ncsa.illinois.edu", 40.1150, -88.2250},
    {"TACC", "US-HPC", "tacc.utexas.edu", 30.3900, -97.7260},
    {"TRIUMF", "CA-T1", "triumf.ca", 49.2475, -123.2301},
    {"DESY", "DE", "desy.de", 53.5770, 9.8790},
    {"KIT", "DE-T1", "kit.edu", 49.0950, 8.4310},
    {"JSC", "DE-HPC", "fz-juelich.de", 50.9050, 6.4130},
    {"IN2P3", "FR-T1", "in2p3.fr", 45.7830, 4.8650},
    {"CNAF", "IT-T1", "cnaf.infn.it", 44.4990, 11.3560},
    {"PIC", "ES-T1", "pic.es", 41.5000, 2.1110},
    {"NIKHEF", "NL-T1", "nikhef.nl", 52.3560, 4.9510},
    {"RAL", "UK-T1", "stfc.ac.uk", 51.5720, -1.3150},
    {"NBI", "NDGF-T1", "nbi.ku.dk", 55.6970, 12.5710},
    {"JINR", "RU-T1", "jinr.ru", 56.7400, 37.1900},
    {"KEK", "JP", "kek.jp", 36.1480, 140.0760},
    {"ASGC", "TW-T1", "asgc.tw", 25.0430, 121.6140},
    {"KISTI", "KR-T1", "kisti.re.kr", 36.3750, 127.3610},
    {"IHEP", "CN", "ihep.ac.cn", 39.9100, 116.2450},
    {"TIFR", "IN", "tifr.res.in", 18.9070, 72.8060},
    {"SPRACE", "BR", "sprace.org.br", -23.5580, -46.7310},
    {"MELB", "AU", "unimelb.edu.au", -37.7980, 144.9610},
};

const struct gt_synth_site *gt_synth_preset(size_t *n)
{
    *n = sizeof preset / sizeof preset[0];
    return preset;
}

void gt_synth_sites_free(struct gt_synth_site *sites, size_t n)
{
    if (!sites)
        return;
    for (size_t i = 0; i < n; i++) {
        free(sites[i].name);
        free(sites[i].cluster);
        free(sites[i].domain);
    }
    free(sites);
}

static char *span_dup(const struct csv_field *f)
{
    char *s = malloc(f->len + 1);
    if (s) {
        memcpy(s, f->p, f->len);
        s[f->len] = '\0';
    }
    return s;
}

static int header_columns(const struct csv_record *rec, int col[5], const char *path,
                          struct gt_error *err)
{
    static const char *const names[5] = {"name", "latitude", "longitude", "cluster", "domain"};
    for (int k = 0; k < 5; k++)
        col[k] = -1;
    for (int i = 0; i < rec->n; i++) {
        const char *p = rec->f[i].p;
        size_t len = rec->f[i].len;
        gt_trim_span(&p, &len);
        for (int k = 0; k < 5; k++)
            if (gt_span_ieq(p, len, names[k]))
                col[k] = i;
    }
    for (int k = 0; k < 3; k++)
        if (col[k] < 0)
            return gt_error_set(err, GT_EINPUT, path,
                                "the header line names no '%s' column", names[k]);
    return GT_OK;
}

static int site_row(const struct csv_record *rec, const int col[5], struct gt_synth_site *s,
                    const char *path, struct gt_error *err)
{
    char where[GT_ERR_WHERE];
    static const char *const fields[3] = {"name", "latitude", "longitude"};
    double lim[3] = {0, 90, 180}, v[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        snprintf(where, sizeof where, "%s:%ld: %s", path, rec->line, fields[k]);
        if (col[k] >= rec->n)
            return gt_error_set(err, GT_EINPUT, where, "missing");
        const char *p = rec->f[col[k]].p;
        size_t len = rec->f[col[k]].len;
        gt_trim_span(&p, &len);
        if (k == 0) {
            const char *why = gt_site_name_problem(p, len);
            if (why)
                return gt_error_set(err, GT_EINPUT, where, "%s", why);
        } else if (!gt_parse_double(p, len, &v[k]) || fabs(v[k]) > lim[k]) {
            return gt_error_set(err, GT_EINPUT, where, "'%.*s' is not a number in [-%g, %g]",
                                (int)(len > 64 ? 64 : len), p, lim[k], lim[k]);
        }
    }
    s->lat = v[1];
    s->lon = v[2];
    s->name = span_dup(&rec->f[col[0]]);
    s->cluster = col[3] >= 0 && col[3] < rec->n && rec->f[col[3]].len
                     ? span_dup(&rec->f[col[3]]) : NULL;
    s->domain = col[4] >= 0 && col[4] < rec->n && rec->f[col[4]].len
                    ? span_dup(&rec->f[col[4]]) : NULL;
    return s->name ? GT_OK : gt_error_set(err, GT_ENOMEM, path, "out of memory");
}

static bool site_listed(const struct gt_synth_site *sites, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(sites[i].name, name))
            return true;
    return false;
}

static int read_sites(FILE *fp, const char *path, struct gt_synth_site **out, size_t *n,
                      struct gt_error *err)
{
    struct csv_reader *r = csv_open(fp, ',');
    if (!r)
        return gt_error_set(err, GT_ENOMEM, path, "out of memory");
    struct csv_record rec;
    int col[5], got, rc = GT_OK;
    bool header = false;
    while (rc == GT_OK && (got = csv_next(r, &rec)) == 1) {
        char where[GT_ERR_WHERE];
        snprintf(where, sizeof where, "%s:%ld", path, rec.line);
        if (rec.problem) {
            rc = gt_error_set(err, GT_EINPUT, where, "%s", rec.problem);
        } else if (!header) {
            rc = header_columns(&rec, col, path, err);
            header = true;
        } else if (*n >= GT_SYNTH_MAX_SITES) {
            rc = gt_error_set(err, GT_EINPUT, where, "more than %d sites", GT_SYNTH_MAX_SITES);
        } else {
            struct gt_synth_site *s = &(*out)[*n];
            memset(s, 0, sizeof *s);
            rc = site_row(&rec, col, s, path, err);
            if (rc == GT_OK && site_listed(*out, *n, s->name))
                rc = gt_error_set(err, GT_EINPUT, where, "site '%s' is listed twice", s->name);
            (*n)++;   /* counted even when bad, so that it is freed */
        }
    }
    if (rc == GT_OK && got < 0)
        rc = gt_error_set(err, got, path, "read error");
    csv_close(r);
    return rc;
}

int gt_synth_load_sites(const char *path, struct gt_synth_site **sites, size_t *n,
                        struct gt_error *err)
{
    *sites = NULL;
    *n = 0;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return gt_error_set(err, GT_EIO, path, "%s",
                            strerror(errno));
    struct gt_synth_site *s = calloc(GT_SYNTH_MAX_SITES, sizeof *s);
    if (!s) {
        fclose(fp);
        return gt_error_set(err, GT_ENOMEM, path, "out of memory");
    }
    int rc = read_sites(fp, path, &s, n, err);
    fclose(fp);
    if (rc) {
        gt_synth_sites_free(s, *n);
        *n = 0;
        return rc;
    }
    *sites = s;
    return GT_OK;
}

/* ---- the model ---- */

double gt_synth_distance_km(const struct gt_synth_site *a, const struct gt_synth_site *b)
{
    double dlat = (b->lat - a->lat) * DEG, dlon = (b->lon - a->lon) * DEG;
    double h = sin(dlat / 2) * sin(dlat / 2) +
               cos(a->lat * DEG) * cos(b->lat * DEG) * sin(dlon / 2) * sin(dlon / 2);
    return 2 * EARTH_RADIUS_KM * asin(sqrt(h < 1 ? h : 1));
}

/* A site's access delay: uniform on [0.5, 1.5] x the mean, from the
 * site's own stream. */
static double access_ms(const struct gt_synth_params *p, const struct gt_synth_site *s)
{
    struct rng r;
    rng_seed(&r, p->seed, s->name, NULL);
    return p->access_ms * (0.5 + rng_uniform(&r));
}

double gt_synth_base_ms(const struct gt_synth_params *p, const struct gt_synth_site *a,
                        const struct gt_synth_site *b)
{
    return 2 * gt_synth_distance_km(a, b) * p->stretch / p->fibre_km_per_ms +
           access_ms(p, a) + access_ms(p, b);
}

/* One directed pair's state between samples. */
struct pair {
    struct rng rng;
    double base, alpha, loss, lon;
    double shift_ms, spike_ms;
    long shift_left, spike_left, burst_left, outage_left;
};

static void pair_init(struct pair *q, const struct gt_synth_params *p,
                      const struct gt_synth_site *a, const struct gt_synth_site *b)
{
    memset(q, 0, sizeof *q);
    rng_seed(&q->rng, p->seed, a->name, b->name);
    q->base = gt_synth_base_ms(p, a, b);
    q->alpha = p->alpha_min + (p->alpha_max - p->alpha_min) * rng_uniform(&q->rng);
    double loss = -p->loss * log(rng_uniform(&q->rng));
    q->loss = loss < 0.5 ? loss : 0.5;
    q->lon = a->lon;
}

/* Load factor of the diurnal cycle at Unix time t for a site at lon. */
static double diurnal_load(double amplitude, int64_t t, double lon)
{
    double hour = fmod((double)(t % 86400) / 3600.0 + lon / 15.0 + 48.0, 24.0);
    return 1 + amplitude * 0.5 * (1 - cos(2 * PI * (hour - 4.0) / 24.0));
}

/* The next sample of a pair: its RTT, or NAN when lost. */
static double pair_next(struct pair *q, const struct gt_synth_params *p, int64_t t)
{
    double u[DRAWS_PER_SAMPLE];
    for (int i = 0; i < DRAWS_PER_SAMPLE; i++)
        u[i] = rng_uniform(&q->rng);
    double per_sample_day = (double)p->interval / 86400.0;

    if (q->outage_left == 0 && u[0] < p->outage_per_day * per_sample_day)
        q->outage_left = samples_for(log_uniform(u[1], p->outage_min_s, p->outage_max_s),
                                     p->interval);
    if (q->shift_left == 0 && u[2] < p->shift_per_day * per_sample_day) {
        q->shift_left = samples_for(log_uniform(u[3], p->shift_min_s, p->shift_max_s),
                                    p->interval);
        q->shift_ms = q->base * p->shift_size * (0.5 + u[4]);
    }
    if (q->spike_left == 0 && u[5] < p->spike_prob) {
        q->spike_left = 1 + (long)(3 * u[6]);
        q->spike_ms = -p->spike_ms * log(u[11]);
    }
    if (q->burst_left == 0 && u[7] < p->burst_prob)
        q->burst_left = 1 + (long)floor(log(u[8]) / log(1 - 1 / p->burst_len));

    double shift = q->shift_left > 0 ? q->shift_ms : 0;
    double spike = q->spike_left > 0 ? q->spike_ms : 0;
    bool lost = q->outage_left > 0 || q->burst_left > 0 || u[9] < q->loss;
    q->shift_left -= q->shift_left > 0;
    q->spike_left -= q->spike_left > 0;
    q->outage_left -= q->outage_left > 0;
    q->burst_left -= q->burst_left > 0;
    if (lost)
        return NAN;
    double scale = p->jitter * q->base * diurnal_load(p->diurnal, t, q->lon);
    double queue = scale * (pow(u[10], -1 / q->alpha) - 1);
    if (queue > p->max_queue_ms)
        queue = p->max_queue_ms;
    return q->base + shift + queue + spike;
}

int gt_synth_run(const struct gt_synth_params *p, const struct gt_synth_site *sites,
                 size_t n, const struct gt_sink *sink,
                 void (*progress)(void *ctx, long done, long total), void *progress_ctx,
                 struct gt_error *err)
{
    int rc = gt_synth_check(p, n, err);
    if (rc)
        return rc;
    size_t npairs = n * (n - 1);
    struct pair *pairs = malloc(npairs * sizeof *pairs);
    size_t *src = malloc(npairs * sizeof *src), *dst = malloc(npairs * sizeof *dst);
    if (!pairs || !src || !dst) {
        rc = gt_error_set(err, GT_ENOMEM, "synth", "out of memory for %zu pairs", npairs);
        goto done;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (i != j) {
                pair_init(&pairs[k], p, &sites[i], &sites[j]);
                src[k] = i;
                dst[k++] = j;
            }
    for (long step = 0; step < p->samples && rc == GT_OK; step++) {
        int64_t t = p->start + (int64_t)step * p->interval;
        for (k = 0; k < npairs && rc == GT_OK; k++) {
            const char *a = sites[src[k]].name, *b = sites[dst[k]].name;
            struct gt_sample s = {a, strlen(a), b, strlen(b), t, 0,
                                  pair_next(&pairs[k], p, t), NULL, 0};
            rc = sink->emit(sink->ctx, &s);
            if (rc)
                gt_error_set(err, rc, "synth", "%s", gt_strerror(rc));
        }
        if (progress)
            progress(progress_ctx, step + 1, p->samples);
        if (rc == GT_OK && gt_interrupted())
            rc = gt_error_set(err, GT_EINTR, "synth", "interrupted after %ld of %ld time steps",
                              step + 1, p->samples);
    }
done:
    free(pairs);
    free(src);
    free(dst);
    return rc;
}
