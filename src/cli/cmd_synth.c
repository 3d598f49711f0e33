/*
 * cmd_synth.c - `gridtail synth`: synthetic RTT series (collectors/synth.h)
 * written as amp-csv or csv, and the sites' coordinates for `sites
 * --import`.  Files are written atomically (temp file, then rename).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "base/interrupt.h"
#include "base/progress.h"
#include "base/util.h"
#include "collectors/synth.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char synth_usage[] =
    "usage: gridtail synth [OPTIONS] [-o FILE]\n"
    "\n"
    "Write realistic synthetic RTT series, one sample per interval for every\n"
    "directed pair of a set of sites, as amp-csv (default) or csv on stdout or\n"
    "to FILE; feed them to `gridtail ingest amp-csv FILE` (or `-` from a pipe).\n"
    "Each pair: a base RTT from the great-circle distance, Lomax (Pareto II)\n"
    "queueing jitter with the pair's own tail index and a diurnal load cycle,\n"
    "route changes (level shifts), short spikes, Bernoulli and bursty loss, and\n"
    "outages (docs/METHOD.md, 'Synthetic data').  The same seed gives the same\n"
    "output byte for byte; a pair's series does not depend on the other sites.\n"
    "\n"
    "Sites (default: the built-in preset of 27 research-grid computing centres):\n"
    "  --sites FILE         CSV with a header naming name, latitude, longitude\n"
    "                       (cluster, domain optional); at most 1000 sites\n"
    "  --count N            only the first N sites of the list\n"
    "  --list-sites         print the sites as CSV (for `gridtail sites --import`)\n"
    "                       and exit\n"
    "  --sites-out FILE     also write that CSV to FILE\n"
    "Time:\n"
    "  --start TIME         first sample (default: the last sample is now,\n"
    "                       rounded down to the interval)\n"
    "  --span DURATION      how long, e.g. 3d, 36h (default 2d)\n"
    "  --samples N          per pair, instead of --span (at most 10,000,000;\n"
    "                       pairs x samples at most 1,000,000,000)\n"
    "  --interval DURATION  between samples (default 60s)\n"
    "  --seed N             random seed (default 1)\n"
    "Output:\n"
    "  --format F           amp-csv (default) or csv\n"
    "  -o, --output FILE    write to FILE (atomically) instead of stdout\n"
    "The model (default in brackets):\n"
    "  --fibre KM_PER_MS    speed of light in fibre [200]\n"
    "  --stretch F          route length over great-circle distance [1.5]\n"
    "  --access MS          mean access delay of a site, each end [1.0]\n"
    "  --jitter F           queueing scale as a fraction of the base RTT [0.05]\n"
    "  --alpha-min A, --alpha-max A   pairs' tail indices, uniform [1.5, 4]\n"
    "  --max-queue MS       cap of one queueing delay [1000]\n"
    "  --diurnal F          load at 16:00 over load at 04:00 local, minus 1 [1.0]\n"
    "  --shift-rate R       route changes per pair per day [0.5]\n"
    "  --shift-min D, --shift-max D   their length, log-uniform [10m, 2d]\n"
    "  --shift-size F       their mean size as a fraction of the base RTT [0.3]\n"
    "  --spike-prob P       chance that a sample starts a 1-3 sample spike [0.002]\n"
    "  --spike-ms MS        mean spike size, exponential [150]\n"
    "  --loss P             mean Bernoulli loss rate of a pair, exponential over\n"
    "                       the pairs, at most 0.5 [0.005]\n"
    "  --burst-prob P       chance that a sample starts a loss burst [0.0005]\n"
    "  --burst-len N        mean burst length in samples, geometric [5]\n"
    "  --outage-rate R      outages per pair per day [0.1]\n"
    "  --outage-min D, --outage-max D   their length, log-uniform [5m, 6h]\n";

enum { OPT_DOUBLE, OPT_DURATION };

/* The model's numeric options: --name -> a field of the parameters. */
struct num_opt {
    const char *name;
    int kind;
    size_t offset;
};

#define P(field) offsetof(struct gt_synth_params, field)
static const struct num_opt num_opts[] = {
    {"fibre", OPT_DOUBLE, P(fibre_km_per_ms)},   {"stretch", OPT_DOUBLE, P(stretch)},
    {"access", OPT_DOUBLE, P(access_ms)},        {"jitter", OPT_DOUBLE, P(jitter)},
    {"alpha-min", OPT_DOUBLE, P(alpha_min)},     {"alpha-max", OPT_DOUBLE, P(alpha_max)},
    {"max-queue", OPT_DOUBLE, P(max_queue_ms)},  {"diurnal", OPT_DOUBLE, P(diurnal)},
    {"shift-rate", OPT_DOUBLE, P(shift_per_day)}, {"shift-min", OPT_DURATION, P(shift_min_s)},
    {"shift-max", OPT_DURATION, P(shift_max_s)}, {"shift-size", OPT_DOUBLE, P(shift_size)},
    {"spike-prob", OPT_DOUBLE, P(spike_prob)},   {"spike-ms", OPT_DOUBLE, P(spike_ms)},
    {"loss", OPT_DOUBLE, P(loss)},               {"burst-prob", OPT_DOUBLE, P(burst_prob)},
    {"burst-len", OPT_DOUBLE, P(burst_len)},     {"outage-rate", OPT_DOUBLE, P(outage_per_day)},
    {"outage-min", OPT_DURATION, P(outage_min_s)},
    {"outage-max", OPT_DURATION, P(outage_max_s)},
};
#undef P
#define NUM_OPTS (sizeof num_opts / sizeof num_opts[0])
#define NUM_BASE 1000   /* getopt value of num_opts[0] */

struct synth_cli {
    struct gt_synth_params p;
    const char *sites_file, *sites_out, *output, *format;
    long count;
    int64_t span;
    bool samples_set, start_set, list_sites;
};

static bool set_num(const struct num_opt *o, const char *v, struct gt_synth_params *p)
{
    double *field = (double *)((char *)p + o->offset);
    int64_t secs;
    if (o->kind == OPT_DURATION) {
        if (!gt_parse_duration(v, &secs)) {
            gt_cli_usage_error("synth", "--%s: '%s' is not a duration (e.g. 90s, 10m, 6h, 2d)",
                               o->name, v);
            return false;
        }
        *field = (double)secs;
        return true;
    }
    return gt_opt_double("synth", o->name, v, -INFINITY, INFINITY, field);
}

static bool set_duration(const char *opt, const char *v, int64_t *out)
{
    if (gt_parse_duration(v, out) && *out > 0)
        return true;
    gt_cli_usage_error("synth", "%s: '%s' is not a duration (e.g. 90s, 10m, 6h, 2d)", opt, v);
    return false;
}

/* Parse argv into s; -1 = go on, else the exit code. */
static int parse_args(int argc, char **argv, struct synth_cli *s)
{
    struct option opts[NUM_OPTS + 16];
    static const struct option fixed[] = {
        {"help", no_argument, NULL, 'h'},         {"sites", required_argument, NULL, 'S'},
        {"count", required_argument, NULL, 'c'},  {"list-sites", no_argument, NULL, 'l'},
        {"sites-out", required_argument, NULL, 'O'}, {"start", required_argument, NULL, 't'},
        {"span", required_argument, NULL, 'd'},   {"samples", required_argument, NULL, 'n'},
        {"interval", required_argument, NULL, 'i'}, {"seed", required_argument, NULL, 'r'},
        {"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
    };
    size_t nfixed = sizeof fixed / sizeof fixed[0];
    memcpy(opts, fixed, sizeof fixed);
    for (size_t i = 0; i < NUM_OPTS; i++)
        opts[nfixed + i] = (struct option){num_opts[i].name, required_argument, NULL,
                                           NUM_BASE + (int)i};
    memset(&opts[nfixed + NUM_OPTS], 0, sizeof opts[0]);
    int64_t interval = 60, start = 0;
    long samples = 0, seed = 1;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        bool ok = true;
        switch (c) {
        case 'h': return gt_cli_help(synth_usage);
        case 'S': s->sites_file = optarg; break;
        case 'c': ok = gt_opt_long("synth", "--count", optarg, 2, GT_SYNTH_MAX_SITES, &s->count); break;
        case 'l': s->list_sites = true; break;
        case 'O': s->sites_out = optarg; break;
        case 't': ok = gt_opt_time("synth", "--start", optarg, &start); s->start_set = true; break;
        case 'd': ok = set_duration("--span", optarg, &s->span); break;
        case 'n':
            ok = gt_opt_long("synth", "--samples", optarg, 1, GT_SYNTH_MAX_SAMPLES, &samples);
            s->samples_set = true;
            break;
        case 'i': ok = set_duration("--interval", optarg, &interval); break;
        case 'r': ok = gt_opt_long("synth", "--seed", optarg, 0, LONG_MAX, &seed); break;
        case 'f': s->format = optarg; break;
        case 'o': s->output = optarg; break;
        default:
            if (c >= NUM_BASE && c < NUM_BASE + (int)NUM_OPTS)
                ok = set_num(&num_opts[c - NUM_BASE], optarg, &s->p);
            else
                return gt_cli_usage_error("synth", "bad option");
        }
        if (!ok)
            return GT_EXIT_USAGE;
    }
    if (optind < argc)
        return gt_cli_usage_error("synth", "unexpected argument '%s'", argv[optind]);
    if (strcmp(s->format, "amp-csv") && strcmp(s->format, "csv"))
        return gt_cli_usage_error("synth", "--format: '%s' is neither amp-csv nor csv",
                                  s->format);
    if (s->samples_set && s->span)
        return gt_cli_usage_error("synth", "give --span or --samples, not both");
    s->p.interval = interval;
    s->p.seed = (uint64_t)seed;
    if (!s->samples_set) {
        int64_t span = s->span ? s->span : 2 * 86400;
        if (span / interval > GT_SYNTH_MAX_SAMPLES)
            return gt_cli_usage_error("synth", "--span: more than %ld samples per pair",
                                      GT_SYNTH_MAX_SAMPLES);
        samples = (long)(span / interval);
        if (samples < 1)
            return gt_cli_usage_error("synth", "--span is shorter than one --interval");
    }
    s->p.samples = samples;
    if (s->start_set) {
        s->p.start = start;
    } else {   /* the last sample is the latest whole interval: data "now" */
        int64_t now = (int64_t)time(NULL) / interval * interval;
        s->p.start = now - (int64_t)(samples - 1) * interval;
    }
    return -1;
}

/* ---- writing ---- */

struct writer {
    FILE *fp;
    bool amp;
};

static int write_sample(void *ctx, const struct gt_sample *s)
{
    struct writer *w = ctx;
    int n;
    if (w->amp) {
        if (isnan(s->rtt_ms))
            n = fprintf(w->fp, "%lld,%s,%s,icmp,icmp,84,loss\n", (long long)s->ts, s->src,
                        s->dst);
        else
            n = fprintf(w->fp, "%lld,%s,%s,icmp,icmp,84,%.3f\n", (long long)s->ts, s->src,
                        s->dst, s->rtt_ms);
    } else {
        if (isnan(s->rtt_ms))
            n = fprintf(w->fp, "%lld,%s,%s,\n", (long long)s->ts, s->src, s->dst);
        else
            n = fprintf(w->fp, "%lld,%s,%s,%.3f\n", (long long)s->ts, s->src, s->dst,
                        s->rtt_ms);
    }
    return n < 0 ? GT_EIO : GT_OK;
}

static void on_progress(void *ctx, long done, long total)
{
    (void)total;
    gt_progress_update(ctx, (double)done);
}

static void csv_field(FILE *fp, const char *s)
{
    if (s)
        fputs(s, fp);
}

static void write_sites(FILE *fp, const struct gt_synth_site *sites, size_t n)
{
    fputs("name,cluster,domain,latitude,longitude\n", fp);
    for (size_t i = 0; i < n; i++) {
        fputs(sites[i].name, fp);
        fputc(',', fp);
        csv_field(fp, sites[i].cluster);
        fputc(',', fp);
        csv_field(fp, sites[i].domain);
        fprintf(fp, ",%.4f,%.4f\n", sites[i].lat, sites[i].lon);
    }
}

static int write_sites_file(const char *path, const struct gt_synth_site *sites, size_t n,
                            struct gt_error *err)
{
    char *tmp;
    FILE *fp = gt_cli_atomic_open(path, &tmp, err);
    if (!fp)
        return err->code;
    write_sites(fp, sites, n);
    return gt_cli_atomic_close(fp, tmp, path, GT_OK, err);
}

static int generate(const struct synth_cli *s, const struct gt_synth_site *sites, size_t n,
                    struct gt_error *err)
{
    char *tmp = NULL;
    FILE *fp = s->output ? gt_cli_atomic_open(s->output, &tmp, err) : stdout;
    if (!fp)
        return err->code;
    struct writer w = {fp, !strcmp(s->format, "amp-csv")};
    fputs(w.amp ? "timestamp,src,dst,testType,testSubType,packet_size_bytes,rtt_ms\n"
                : "ts,src,dst,rtt_ms\n", fp);
    struct gt_sink sink = {&w, write_sample, NULL, NULL};
    struct gt_progress prog;
    gt_progress_start(&prog, "synth", "time steps", (double)s->p.samples);
    int rc = gt_synth_run(&s->p, sites, n, &sink, on_progress, &prog, err);
    gt_progress_end(&prog);
    if (s->output)
        return gt_cli_atomic_close(fp, tmp, s->output, rc, err);
    if (rc == GT_OK && (fflush(fp) != 0 || ferror(fp)))
        rc = gt_error_set(err, GT_EIO, "<stdout>", "write error: %s", strerror(errno));
    return rc;
}

int cmd_synth(struct gt_cli *cli, int argc, char **argv)
{
    (void)cli;
    struct synth_cli s = {.format = "amp-csv"};
    gt_synth_defaults(&s.p);
    int code = parse_args(argc, argv, &s);
    if (code >= 0)
        return code;
    gt_interrupt_catch();   /* Ctrl-C: the temporary -o file goes, nothing half-written stays */
    struct gt_error err = {0};
    struct gt_synth_site *loaded = NULL;
    const struct gt_synth_site *sites;
    size_t n = 0, loaded_n = 0;
    int rc = GT_OK;
    if (s.sites_file) {
        rc = gt_synth_load_sites(s.sites_file, &loaded, &loaded_n, &err);
        n = loaded_n;
        sites = loaded;
    } else {
        sites = gt_synth_preset(&n);
    }
    if (rc == GT_OK && s.count) {
        if ((size_t)s.count > n)
            rc = gt_error_set(&err, GT_EUSAGE, "--count", "%ld is more than the %zu sites listed",
                              s.count, n);
        else
            n = (size_t)s.count;
    }
    if (rc == GT_OK && s.list_sites)
        write_sites(stdout, sites, n);
    else if (rc == GT_OK && (rc = gt_synth_check(&s.p, n, &err)) == GT_OK) {
        if (s.sites_out)
            rc = write_sites_file(s.sites_out, sites, n, &err);
        if (rc == GT_OK)
            rc = generate(&s, sites, n, &err);
    }
    gt_synth_sites_free(loaded, loaded_n);
    return rc ? gt_cli_fail(&err, rc) : GT_EXIT_OK;
}
