/*
 * cmd_export.c - `gridtail export`, the stored samples as CSV or JSON,
 * and `gridtail export-topology`, every pair's latency as an integer
 * cost for the schedulers that read a matrix (Kubernetes
 * NetworkTopology, Rucio distances; its options are advopts.h's).
 */
#define _POSIX_C_SOURCE 200809L
#include "advopts.h"
#include "advisor/exports.h"
#include "base/interrupt.h"
#include "base/jsonout.h"
#include "base/numfmt.h"
#include "base/util.h"
#include "db/query.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ export */

static const char export_usage[] =
    "usage: gridtail export [--json] [--src NAME] [--dst NAME] [--from TIME]\n"
    "                       [--to TIME] [--iso] [-o FILE]\n"
    "\n"
    "Write stored samples, grouped by pair in time order, as CSV with the header\n"
    "ts,src,dst,seq,rtt_ms (a lost probe has an empty rtt_ms), which the\n"
    "'csv' ingest format reads back; or with --json a list of objects.\n"
    "--from is inclusive, --to exclusive.  --iso writes ISO-8601 times.\n"
    "-o FILE writes atomically (temporary file, then rename).\n";

struct export_ctx {
    FILE *out;
    bool json, iso, first;
};

static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static int export_row(void *ctx, int64_t ts, const char *src, const char *dst, int64_t seq,
                      double rtt)
{
    struct export_ctx *x = ctx;
    char t[32];
    if (x->iso)
        gt_format_time(ts, t, sizeof t);
    else
        snprintf(t, sizeof t, "%lld", (long long)ts);
    if (x->json) {
        json_t *o = json_pack("{s:s, s:s, s:I}", "src", src, "dst", dst, "seq", (json_int_t)seq);
        json_object_set_new(o, "ts", x->iso ? json_string(t) : json_integer(ts));
        json_object_set_new(o, "rtt_ms", gt_json_real_or_null(rtt));
        fputs(x->first ? "[\n  " : ",\n  ", x->out);
        gt_json_dumpf(o, x->out, JSON_COMPACT);
        json_decref(o);
    } else {
        fprintf(x->out, "%s,", t);
        csv_field(x->out, src);
        fputc(',', x->out);
        csv_field(x->out, dst);
        char num[GT_FMT_DOUBLE_SIZE] = "";
        if (!isnan(rtt))
            gt_fmt_double(num, rtt);
        fprintf(x->out, ",%lld,%s\n", (long long)seq, num);
    }
    x->first = false;
    return ferror(x->out) ? GT_EIO : GT_OK;
}

struct export_args {
    struct gt_export_filter f;
    struct export_ctx x;
    const char *output;
};

static int export_parse(int argc, char **argv, struct export_args *a)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"src", required_argument, NULL, 's'}, {"dst", required_argument, NULL, 'd'},
        {"from", required_argument, NULL, 'f'}, {"to", required_argument, NULL, 't'},
        {"iso", no_argument, NULL, 'i'}, {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'h': return gt_cli_help(export_usage);
        case 'j': a->x.json = true; break;
        case 'i': a->x.iso = true; break;
        case 's': a->f.src = optarg; break;
        case 'd': a->f.dst = optarg; break;
        case 'o': a->output = optarg; break;
        case 'f':
            if (!gt_opt_time("export", "--from", optarg, &a->f.from))
                return GT_EXIT_USAGE;
            a->f.from_set = true;
            break;
        case 't':
            if (!gt_opt_time("export", "--to", optarg, &a->f.to))
                return GT_EXIT_USAGE;
            a->f.to_set = true;
            break;
        default: return gt_cli_usage_error("export", "bad option");
        }
    }
    if (optind < argc)
        return gt_cli_usage_error("export", "unexpected argument '%s'", argv[optind]);
    return -1;
}

int cmd_export(struct gt_cli *cli, int argc, char **argv)
{
    struct export_args a = {0};
    a.x.first = true;
    int code = export_parse(argc, argv, &a);
    if (code >= 0)
        return code;
    char *tmp = NULL;
    struct gt_error err = {0};
    a.x.out = stdout;
    if (a.output && !(a.x.out = gt_cli_atomic_open(a.output, &tmp, &err)))
        return gt_cli_fail(&err, err.code);
    struct gt_db *db = gt_cli_open_db(cli, GT_DB_READ, &code);
    int rc = db ? GT_OK : GT_EIO;
    if (db) {
        if (!a.x.json)
            fputs("ts,src,dst,seq,rtt_ms\n", a.x.out);
        rc = gt_query_export(db, &a.f, export_row, &a.x, &err);
        if (a.x.json)
            fputs(a.x.first ? "[]\n" : "\n]\n", a.x.out);
        gt_db_close(db);
    }
    if (a.output) {
        rc = gt_cli_atomic_close(a.x.out, tmp, a.output, rc, &err);
    } else if (fflush(stdout) != 0 && rc == GT_OK) {
        rc = gt_error_set(&err, GT_EIO, "stdout", "write error");
    }
    if (!db)
        return code;
    return rc ? gt_cli_fail(&err, rc) : GT_EXIT_OK;
}

/* ------------------------------------------------------------ export-topology */

static const char topology_usage[] =
    "usage: gridtail export-topology --format networktopology|rucio [--map FILE]\n"
    "                                [--statistic pNN|mean] [--unit ms|us] [OPTIONS]\n"
    "\n"
    "Every stored pair's latency as an integer cost, for the schedulers that\n"
    "read a matrix rather than ask (docs/INTEGRATION.md).  A pair's cost is\n"
    "its statistic as `estimate` gives it for the partner alone (the loss\n"
    "model, the fallback and the window as there), rounded; a map groups\n"
    "sites, and two groups take the largest cost of their site pairs.\n"
    "Pairs without an estimate and sites not in the map are left out, and\n"
    "said on stderr.\n"
    "\n"
    "  --format networktopology  a Kubernetes NetworkTopology resource (YAML;\n"
    "                      --json for JSON) for scheduler-plugins' network-aware\n"
    "                      scheduling: zone costs (topology.kubernetes.io/zone),\n"
    "                      and region costs when the map gives regions; without\n"
    "                      --map each site is a zone of its own name\n"
    "  --format rucio      distances between RSEs: rucio-admin commands (--json:\n"
    "                      {distances: [{source, destination, distance, ms}]},\n"
    "                      for the client's add_distance); --map is required\n"
    "  --map FILE          SITE,ZONE[,REGION] lines (networktopology: a site in\n"
    "                      one zone, a zone in one region) or SITE,RSE lines\n"
    "                      (rucio: a site may hold several RSEs); # comments\n"
    "  --statistic S       p99 (the default: the time 99% of round trips stay\n"
    "                      under), any pNN, or mean (E[max] of the pair alone)\n"
    "  --unit ms|us        the cost's unit (default ms; us for sub-ms networks)\n"
    "  --name N            the resource's name (default gridtail)\n"
    "  --namespace NS      its namespace (default default)\n"
    "  --configmap N       its spec.configmapName (default netperf-metrics)\n"
    "  --update            rucio: `rse update-distance` (distances already set)\n"
    "                      instead of `rse add-distance`\n"
    "\n"
    "Limits: at most 1,000 x 1,000 pairs and 1,000 zones, regions or RSEs;\n"
    "a map of at most 100,000 lines of 1,023 bytes.\n\n";

static const char *const topology_formats[] = {"networktopology", "rucio", NULL};

static const struct adv_cmd topology_cmd = {
    "export-topology", topology_usage,
    TAKES_FIT | OPT(AO_FALLBACK) | OPT(AO_AT) | OPT(AO_LOSS) | OPT(AO_SYMMETRIC) | OPT(AO_THREADS) |
        OPT(AO_JSON) | OPT(AO_FORMAT) | OPT(AO_MAP) | OPT(AO_STAT) | OPT(AO_UNIT) | OPT(AO_KNAME) |
        OPT(AO_NSPACE) | OPT(AO_CONFIGMAP) | OPT(AO_UPDATE),
    topology_formats};

/* The options' own checks, into r; -1 to go on, else an exit code. */
static int topology_request(struct adv_args *a, struct gt_export_req *r)
{
    const char *cmd = topology_cmd.name;
    if (a->format < 0)
        return gt_cli_usage_error(cmd, "--format networktopology or rucio is required");
    r->format = a->format ? GT_EXPORT_RUCIO : GT_EXPORT_NETWORKTOPOLOGY;
    if (r->format == GT_EXPORT_RUCIO && !a->map)
        return gt_cli_usage_error(cmd, "--format rucio needs --map FILE (SITE,RSE lines)");
    if (a->update && r->format != GT_EXPORT_RUCIO)
        return gt_cli_usage_error(cmd, "--update is for --format rucio");
    r->statistic = a->statistic ? a->statistic : "p99";
    if (!gt_advice_set_objective(&a->ad, r->statistic))
        return gt_cli_usage_error(cmd, "--statistic: '%s' is not mean or pNN (p50, p99, "
                                  "p99.9, ...)", r->statistic);
    r->unit = a->unit ? a->unit : "ms";
    int unit = gt_opt_choice(cmd, "--unit", r->unit, (const char *const[]){"ms", "us", NULL});
    if (unit < 0)
        return GT_EXIT_USAGE;
    r->scale = unit == 1 ? 1000 : 1;
    r->name = a->kname ? a->kname : "gridtail";
    r->nspace = a->nspace ? a->nspace : "default";
    r->configmap = a->configmap ? a->configmap : "netperf-metrics";
    r->weights = "UserDefined";
    if (!gt_export_dns_subdomain(r->name))
        return gt_cli_usage_error(cmd, "--name: '%s' is not a Kubernetes object name (a DNS "
                                  "subdomain: lower-case letters, digits, - and .)", r->name);
    if (!gt_export_dns_label(r->nspace))
        return gt_cli_usage_error(cmd, "--namespace: '%s' is not a DNS label (lower-case "
                                  "letters, digits and -, at most 63)", r->nspace);
    if (!gt_export_dns_subdomain(r->configmap))
        return gt_cli_usage_error(cmd, "--configmap: '%s' is not a ConfigMap name (a DNS "
                                  "subdomain)", r->configmap);
    r->window = a->ad.o.window;
    r->at = a->ad.o.at;
    return -1;
}

static void topology_report(const struct gt_export_report *rep)
{
    if (rep->missing) {
        fprintf(stderr, "gridtail export-topology: %zu of %zu pairs without an estimate, "
                "left out:\n", rep->missing, rep->pairs);
        for (size_t i = 0; i < rep->missing && i < GT_EXPORT_NAMED; i++)
            fprintf(stderr, "  %s\n", rep->missing_named[i]);
        if (rep->missing > GT_EXPORT_NAMED)
            fprintf(stderr, "  and %zu more\n", rep->missing - GT_EXPORT_NAMED);
    }
    if (rep->unmapped_sites) {
        fprintf(stderr, "gridtail export-topology: %zu sites not in --map, left out:",
                rep->unmapped_sites);
        for (size_t i = 0; i < rep->unmapped_sites && i < GT_EXPORT_NAMED; i++)
            fprintf(stderr, " %s", rep->unmapped_named[i]);
        fprintf(stderr, "%s\n", rep->unmapped_sites > GT_EXPORT_NAMED ? " ..." : "");
    }
}

/* Rucio's distances as rucio-admin commands (RSE names are shell-safe:
 * gt_export_rse_name). */
static void print_rucio(const json_t *doc, bool update)
{
    printf("# gridtail export-topology --format rucio: %s RTT in %s, window %lld, at %s\n",
           json_string_value(json_object_get(doc, "statistic")),
           json_string_value(json_object_get(doc, "unit")),
           (long long)json_integer_value(json_object_get(doc, "window")),
           json_string_value(json_object_get(doc, "at")));
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(doc, "distances"), i, d)
        printf("rucio-admin rse %s --distance %lld %s %s\n",
               update ? "update-distance" : "add-distance",
               (long long)json_integer_value(json_object_get(d, "distance")),
               json_string_value(json_object_get(d, "source")),
               json_string_value(json_object_get(d, "destination")));
}

static int print_topology(json_t *doc, const struct adv_args *a, enum gt_export_format f)
{
    if (a->fmt == AOUT_JSON) {
        gt_cli_print_json(doc);
        return GT_EXIT_OK;
    }
    if (f == GT_EXPORT_RUCIO) {
        print_rucio(doc, a->update);
        json_decref(doc);
        return GT_EXIT_OK;
    }
    struct gt_buf b;
    gt_buf_init(&b, SIZE_MAX);
    int rc = gt_yaml_write(&b, doc);
    json_decref(doc);
    if (rc == GT_OK)
        fwrite(b.data, 1, b.len, stdout);
    gt_buf_free(&b);
    if (rc != GT_OK) {
        fprintf(stderr, "gridtail export-topology: %s\n", gt_strerror(rc));
        return GT_EXIT_IO;
    }
    return GT_EXIT_OK;
}

int cmd_export_topology(struct gt_cli *cli, int argc, char **argv)
{
    struct adv_args a = {0};
    struct gt_export_req r = {0};
    int code = adv_parse(cli, &topology_cmd, argc, argv, &a);
    if (code >= 0 || (code = topology_request(&a, &r)) >= 0)
        return code;
    a.ad.o.nq = 0;   /* the statistic is the objective: no other quantile */
    a.ad.o.detail = GT_ADV_EMAX_ONLY;
    struct gt_export_map map = {0};
    struct gt_error err = {0};
    int rc;
    if (a.map && (rc = gt_export_map_load(a.map, r.format, &map, &err)) != GT_OK)
        return gt_cli_fail(&err, rc);
    r.map = a.map ? &map : NULL;
    struct gt_db *db;
    code = GT_EXIT_OK;
    struct gt_advisor *adv = adv_open(cli, &a, &db, &code);
    if (adv) {
        json_t *doc;
        struct gt_export_report rep;
        rc = gt_export_build(adv, db, &r, &doc, &rep, &err);
        topology_report(&rep);
        code = rc ? gt_cli_fail(&err, rc) : print_topology(doc, &a, r.format);
        adv_close(adv, db);
    }
    gt_export_map_free(&map);
    return gt_interrupted() ? GT_EXIT_INTERRUPTED : code;
}
