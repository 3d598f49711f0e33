/*
 * cmd_ingest.c - `gridtail ingest FORMAT [INPUT...]`.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "base/interrupt.h"
#include "base/progress.h"
#include "base/util.h"
#include "advisor/events.h"
#include "collectors/sitemap.h"
#include "db/ingest.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char ingest_usage[] =
    "usage: gridtail ingest [OPTIONS] FORMAT [FILE|DIR|URL|-]...\n"
    "\n"
    "Load RTT samples into the database.  Each input is one transaction:\n"
    "malformed records are reported as FILE:LINE: reason, counted and\n"
    "skipped; the good ones are committed together; an input that is not\n"
    "FORMAT at all is refused with nothing written.  Re-ingesting the same\n"
    "input stores nothing new (the rows are counted as duplicates).  With no\n"
    "input, or '-', reads standard input.  Run 'gridtail formats' for FORMAT.\n"
    "\n"
    "  --json               machine-readable summary on stdout\n"
    "  -q, --quiet          no notes or per-input lines (errors still shown)\n"
    "  --max-errors N       rejected records shown per input (config: 50)\n"
    "  --max-rows N         records one input may hold; past it the input is\n"
    "                       refused whole (config [ingest] max_rows: 20000000)\n"
    "  --on-conflict keep|replace\n"
    "                       a sample whose (pair, time, seq) is stored with\n"
    "                       another RTT is a conflict, reported as\n"
    "                       FILE:LINE: and counted; keep (default) keeps the\n"
    "                       stored value (exit status 2), replace stores the new\n"
    "  --since TIME         store only samples at or after TIME; for URLs\n"
    "                       the {start} value (default: the source's cursor + 1;\n"
    "                       for a new source now - [http] lookback_s, one day)\n"
    "  --src NAME, --dst NAME\n"
    "                       the pair (esmond; {src}/{dst} in URL templates)\n"
    "matrix format (these and probe's are refused with another format):\n"
    "  --sites FILE         site names, one per line, in matrix order\n"
    "  --site-prefix P      name sites P001, P002... (default: s)\n"
    "  --start TIME         time of slice 1 (default 1970-01-01T00:00:00Z)\n"
    "  --interval SECONDS   time between slices (default 60)\n"
    "  --slice N            the slice number t of a single matrix file (default:\n"
    "                       the number ending its name, else 1, said in a note)\n"
    "  --unit s|ms          unit of the values (default ms)\n"
    "  --zero-is-missing    an off-diagonal 0 is a lost probe\n"
    "atlas and pscheduler formats (RIPE Atlas ping results: an API page or a\n"
    "daily dump; perfSONAR 5 rtt, latency and latencybg runs from OpenSearch:\n"
    "https://HOST/opensearch/pscheduler/_search, or a saved answer; rtt in\n"
    "seconds (ISO 8601 durations), latency in units of test.spec.bucket-width):\n"
    "  --site-map FILE      KEY,SITE lines: the site of a probe (prb6001, or its\n"
    "                       'from' address), of a destination (its dst_name or\n"
    "                       dst_addr), of a perfSONAR host (hostname or ip);\n"
    "                       without a line a probe is the site prb<ID> and a host\n"
    "                       its name, told once each in a note\n"
    "prometheus format (blackbox_exporter probes from Prometheus: INPUT its base\n"
    "URL, http://HOST:9090, or a saved query_range answer; needs --src):\n"
    "  --query PROMQL       the RTT in seconds, a series a destination (default\n"
    "                       probe_icmp_duration_seconds{phase=\"rtt\"})\n"
    "  --success-query Q    1 answered, 0 lost (default probe_success), joined by\n"
    "                       the destination label and job\n"
    "  --dst-label NAME     the label naming the destination (default instance)\n"
    "  --step SECONDS       one sample a step (default 60: a scrape a minute)\n"
    "  --exporter smokeping smokeping_prober's latency histograms instead: --query\n"
    "                       NAME or NAME{MATCHERS} of the histogram (default\n"
    "                       smokeping_response_duration_seconds), --success-query\n"
    "                       the pings sent (default: smokeping_requests_total\n"
    "                       with the same MATCHERS), --dst-label host.  Each answer\n"
    "                       of a step is a sample (seq 0, 1, ...) within its\n"
    "                       bucket, placed so that the step's answers add up to\n"
    "                       the histogram's sum (their mean exact; exact with one\n"
    "                       ping a step); pings not answered by the next step are\n"
    "                       lost.  Steps are read at multiples of --step, 30 s\n"
    "                       after they end\n"
    "  --site-map FILE      as above: the site of --src and of each destination\n"
    "probe format (INPUT: 'SITE HOST[:PORT]' per line; needs --src):\n"
    "  --count N            probe rounds, one sample per target each (default 1)\n"
    "  --probe-timeout MS   wait for an answer, per round (default 2000)\n"
    "  --port P             port of targets without one (default 22)\n"
    "                       Samples that cannot be stored (the store locked past\n"
    "                       [database] busy_timeout_ms) are kept in [ingest]\n"
    "                       spool_dir and stored first by the next probe run.\n"
    "Remote collectors:\n"
    "  --push URL           send the samples to the gridtail serve at URL (POST\n"
    "                       URL/v1/samples) instead of storing them here; what\n"
    "                       cannot be sent is kept in [ingest] spool_dir and sent\n"
    "                       first by the next push; what it refuses whole goes to\n"
    "                       spool_dir/rejected/.  Inputs: files, stdin, probes\n"
    "                       (at most 15 MiB of samples each), and the URLs of\n"
    "                       atlas, pscheduler and prometheus (from the cursor\n"
    "                       this host keeps in spool_dir, in parts of 15 MiB)\n"
    "  --token-file F       the write token (first line; default $GRIDTAIL_TOKEN)\n"
    "HTTP (URLs may use {src} {dst} {start} {end}; TLS is always verified):\n"
    "  --timeout SECONDS    whole-request timeout (config: 120)\n"
    "  --retries N          retries on connection errors and HTTP 408/429/5xx\n"
    "                       with exponential back-off (config: 3)\n"
    "\n"
    "TIME is Unix seconds or ISO-8601 (2026-11-22T10:00:00Z).\n";

struct report {
    long max_errors;
    long shown;
    bool quiet;
    json_t *notes;      /* notes of the current input, for --json */
    struct gt_progress prog;   /* of the current input (a terminal only) */
};

static void show_progress(void *ctx, const char *input, long records, double done,
                          double total)
{
    struct report *rep = ctx;
    (void)input;
    if (total > 0) {
        rep->prog.total = total;
        rep->prog.unit = "bytes";
        gt_progress_update(&rep->prog, done);
    } else {
        rep->prog.unit = "records";
        gt_progress_update(&rep->prog, (double)records);
    }
}

static void print_reject(void *ctx, const char *input, const char *loc, const char *msg)
{
    struct report *rep = ctx;
    if (rep->shown++ < rep->max_errors)
        fprintf(stderr, "gridtail: %s:%s: %s\n", input, loc, msg);
}

static void print_note(void *ctx, const char *input, const char *msg)
{
    struct report *rep = ctx;
    (void)input;
    if (rep->notes)
        json_array_append_new(rep->notes, json_string(msg));
    if (!rep->quiet)
        fprintf(stderr, "gridtail: note: %s\n", msg);
}

enum { OPT_JSON = 256, OPT_MAXERR, OPT_SINCE, OPT_SRC, OPT_DST, OPT_SITES, OPT_PREFIX,
       OPT_START, OPT_INTERVAL, OPT_UNIT, OPT_ZERO, OPT_TIMEOUT, OPT_RETRIES, OPT_COUNT,
       OPT_PROBE_TIMEOUT, OPT_PORT, OPT_CONFLICT, OPT_SLICE, OPT_MAXROWS, OPT_PUSH,
       OPT_TOKEN_FILE, OPT_SITE_MAP, OPT_QUERY, OPT_SUCCESS_QUERY, OPT_DST_LABEL, OPT_STEP,
       OPT_EXPORTER };

static const struct option ingest_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"quiet", no_argument, NULL, 'q'},
    {"json", no_argument, NULL, OPT_JSON},
    {"max-errors", required_argument, NULL, OPT_MAXERR},
    {"since", required_argument, NULL, OPT_SINCE},
    {"src", required_argument, NULL, OPT_SRC},
    {"dst", required_argument, NULL, OPT_DST},
    {"sites", required_argument, NULL, OPT_SITES},
    {"site-prefix", required_argument, NULL, OPT_PREFIX},
    {"start", required_argument, NULL, OPT_START},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"unit", required_argument, NULL, OPT_UNIT},
    {"zero-is-missing", no_argument, NULL, OPT_ZERO},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"retries", required_argument, NULL, OPT_RETRIES},
    {"count", required_argument, NULL, OPT_COUNT},
    {"probe-timeout", required_argument, NULL, OPT_PROBE_TIMEOUT},
    {"port", required_argument, NULL, OPT_PORT},
    {"on-conflict", required_argument, NULL, OPT_CONFLICT},
    {"slice", required_argument, NULL, OPT_SLICE},
    {"max-rows", required_argument, NULL, OPT_MAXROWS},
    {"push", required_argument, NULL, OPT_PUSH},
    {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
    {"site-map", required_argument, NULL, OPT_SITE_MAP},
    {"query", required_argument, NULL, OPT_QUERY},
    {"success-query", required_argument, NULL, OPT_SUCCESS_QUERY},
    {"dst-label", required_argument, NULL, OPT_DST_LABEL},
    {"step", required_argument, NULL, OPT_STEP},
    {"exporter", required_argument, NULL, OPT_EXPORTER},
    {NULL, 0, NULL, 0},
};

/* The options of one format only: given with another they would be
 * ignored, so they are refused. */
static const struct {
    int opt;
    const char *format;
} format_options[] = {
    {OPT_SITES, "matrix"}, {OPT_PREFIX, "matrix"}, {OPT_START, "matrix"},
    {OPT_INTERVAL, "matrix"}, {OPT_SLICE, "matrix"}, {OPT_UNIT, "matrix"},
    {OPT_ZERO, "matrix"}, {OPT_COUNT, "probe"}, {OPT_PROBE_TIMEOUT, "probe"},
    {OPT_PORT, "probe"}, {OPT_SITE_MAP, "atlas"}, {OPT_SITE_MAP, "pscheduler"},
    {OPT_SITE_MAP, "prometheus"}, {OPT_QUERY, "prometheus"}, {OPT_SUCCESS_QUERY, "prometheus"},
    {OPT_DST_LABEL, "prometheus"}, {OPT_STEP, "prometheus"}, {OPT_EXPORTER, "prometheus"},
};

/* A usage error for the first format option in seen (a bit per OPT_
 * code) that is not format's; -1 if none. */
static int refuse_others(uint32_t seen, const char *format)
{
    size_t n = sizeof format_options / sizeof format_options[0];
    for (size_t i = 0; i < n; i++) {
        int opt = format_options[i].opt;
        bool mine = false;
        char owners[128] = "";
        for (size_t j = 0; j < n; j++)
            if (format_options[j].opt == opt) {
                mine = mine || !strcmp(format, format_options[j].format);
                snprintf(owners + strlen(owners), sizeof owners - strlen(owners), "%s%s",
                         owners[0] ? " and " : "", format_options[j].format);
            }
        if (!(seen & (UINT32_C(1) << (opt - OPT_JSON))) || mine)
            continue;
        const char *name = "";
        for (const struct option *o = ingest_options; o->name; o++)
            if (o->val == opt)
                name = o->name;
        return gt_cli_usage_error("ingest", "--%s is an option of the %s format%s, not of %s",
                                  name, owners, strchr(owners, ' ') ? "s" : "", format);
    }
    return -1;
}

/* True when one of the inputs contains text (a URL template's {src}, or
 * "http" at its start for a URL). */
static bool an_input_has(int argc, char **argv, const char *text, bool at_start)
{
    for (int i = optind; i < argc; i++) {
        const char *at = strstr(argv[i], text);
        if (at && (!at_start || at == argv[i]))
            return true;
    }
    return false;
}

/* The options whose use depends on the inputs: --src and --dst name the
 * pair of an esmond archive, the source of a probe, or fill a URL
 * template's {src} and {dst}; --timeout and --retries are for URLs and
 * the --push client.  Given where nothing uses them, they are refused
 * rather than ignored.  -1 to go on, else an exit code. */
static int refuse_unused(uint32_t seen, const char *format, bool push, int argc, char **argv)
{
#define SEEN(opt) (seen & (UINT32_C(1) << ((opt) - OPT_JSON)))
    bool esmond = !strcmp(format, "esmond"), probe = !strcmp(format, "probe");
    bool prom = !strcmp(format, "prometheus");
    if (SEEN(OPT_SRC) && !esmond && !probe && !prom && !an_input_has(argc, argv, "{src}", false))
        return gt_cli_usage_error("ingest", "--src is used by the esmond, probe and prometheus "
                                  "formats and by a URL's {src}; %s with these inputs has no "
                                  "use for it", format);
    if (SEEN(OPT_DST) && !esmond && !an_input_has(argc, argv, "{dst}", false))
        return gt_cli_usage_error("ingest", "--dst is used by the esmond format and by a "
                                  "URL's {dst}; %s with these inputs has no use for it",
                                  format);
    if ((SEEN(OPT_TIMEOUT) || SEEN(OPT_RETRIES)) && !push && !an_input_has(argc, argv, "http", true))
        return gt_cli_usage_error("ingest", "--%s is for http(s) inputs and --push; "
                                  "these inputs are files", SEEN(OPT_TIMEOUT) ? "timeout"
                                                                               : "retries");
    return -1;
#undef SEEN
}

struct ingest_args {
    bool json;
    const char *push, *token_file;   /* --push URL: to a central server */
    const char *site_map;            /* --site-map FILE */
    struct report rep;
    struct gt_ingest_opts o;
};

/* Returns -1 to go on, else an exit code. */
static int parse_args(struct gt_cli *cli, int argc, char **argv, struct ingest_args *a)
{
    const struct gt_config *cfg = &cli->cfg;
    a->rep.max_errors = cfg->max_errors;
    struct gt_ingest_opts *o = &a->o;
    o->http = (struct gt_http_opts){cfg->http_timeout_s, cfg->http_connect_timeout_s,
                                    cfg->http_retries, cfg->http_retry_delay_ms,
                                    (size_t)cfg->http_max_bytes_mb << 20, cfg->http_ca_file,
                                    (size_t)cfg->http_max_json_mb << 20};
    o->collect.max_input_bytes = (size_t)cfg->http_max_bytes_mb << 20;
    o->cache_mb = cfg->cache_mb;
    o->max_rows = cfg->max_rows;
    o->lookback_s = cfg->http_lookback_s;
    long v;
    int c;
    uint32_t seen = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hq", ingest_options, NULL)) != -1) {
        if (c >= OPT_JSON)
            seen |= UINT32_C(1) << (c - OPT_JSON);
        switch (c) {
        case 'h': return gt_cli_help(ingest_usage);
        case 'q': a->rep.quiet = true; break;
        case OPT_JSON: a->json = true; break;
        case OPT_MAXERR:
            if (!gt_opt_long("ingest", "--max-errors", optarg, 0, 1000000000, &a->rep.max_errors))
                return GT_EXIT_USAGE;
            break;
        case OPT_SINCE:
            if (!gt_opt_time("ingest", "--since", optarg, &o->since))
                return GT_EXIT_USAGE;
            o->since_set = true;
            break;
        case OPT_SRC: o->collect.src = optarg; break;
        case OPT_DST: o->collect.dst = optarg; break;
        case OPT_SITES: o->collect.sites_file = optarg; break;
        case OPT_PREFIX: o->collect.site_prefix = optarg; break;
        case OPT_START:
            if (!gt_opt_time("ingest", "--start", optarg, &o->collect.start))
                return GT_EXIT_USAGE;
            o->collect.start_set = true;
            break;
        case OPT_INTERVAL:
            if (!gt_opt_long("ingest", "--interval", optarg, 1, 100000000, &v))
                return GT_EXIT_USAGE;
            o->collect.interval = v;
            o->collect.interval_set = true;
            break;
        case OPT_UNIT: {
            int w = gt_opt_choice("ingest", "--unit", optarg,
                                  (const char *const[]){"s", "ms", NULL});
            if (w < 0)
                return GT_EXIT_USAGE;
            o->collect.unit_ms = w == 0 ? 1000.0 : 1.0;
            o->collect.unit_set = true;
            break;
        }
        case OPT_ZERO: o->collect.zero_is_missing = true; break;
        case OPT_TIMEOUT:
            if (!gt_opt_long("ingest", "--timeout", optarg, 1, 86400, &o->http.timeout_s))
                return GT_EXIT_USAGE;
            break;
        case OPT_RETRIES:
            if (!gt_opt_long("ingest", "--retries", optarg, 0, 20, &o->http.retries))
                return GT_EXIT_USAGE;
            break;
        case OPT_COUNT:
            if (!gt_opt_long("ingest", "--count", optarg, 1, 1000, &o->collect.probe_count))
                return GT_EXIT_USAGE;
            break;
        case OPT_PROBE_TIMEOUT:
            if (!gt_opt_long("ingest", "--probe-timeout", optarg, 1, 600000,
                             &o->collect.probe_timeout_ms))
                return GT_EXIT_USAGE;
            break;
        case OPT_PORT: {
            long port;
            if (!gt_opt_long("ingest", "--port", optarg, 1, 65535, &port))
                return GT_EXIT_USAGE;
            o->collect.probe_port = (unsigned)port;
            break;
        }
        case OPT_CONFLICT: {
            int w = gt_opt_choice("ingest", "--on-conflict", optarg,
                                  (const char *const[]){"keep", "replace", NULL});
            if (w < 0)
                return GT_EXIT_USAGE;
            o->replace_conflicts = w == 1;
            break;
        }
        case OPT_PUSH: a->push = optarg; break;
        case OPT_TOKEN_FILE: a->token_file = optarg; break;
        case OPT_SITE_MAP: a->site_map = optarg; break;
        case OPT_QUERY: o->collect.query = optarg; break;
        case OPT_SUCCESS_QUERY: o->collect.success_query = optarg; break;
        case OPT_DST_LABEL: o->collect.dst_label = optarg; break;
        case OPT_EXPORTER: {
            int w = gt_opt_choice("ingest", "--exporter", optarg,
                                  (const char *const[]){"blackbox", "smokeping", NULL});
            if (w < 0)
                return GT_EXIT_USAGE;
            o->collect.histogram = w == 1;
            break;
        }
        case OPT_STEP:
            if (!gt_opt_long("ingest", "--step", optarg, 1, 86400, &o->collect.step))
                return GT_EXIT_USAGE;
            break;
        case OPT_MAXROWS:
            if (!gt_opt_long("ingest", "--max-rows", optarg, 1, 2000000000, &o->max_rows))
                return GT_EXIT_USAGE;
            break;
        case OPT_SLICE:
            if (!gt_opt_long("ingest", "--slice", optarg, 1, 1000000000, &o->collect.slice))
                return GT_EXIT_USAGE;
            break;
        default: return gt_cli_usage_error("ingest", "bad option");
        }
    }
    if (optind >= argc)
        return gt_cli_usage_error("ingest", "missing FORMAT");
    o->format = gt_collector_find(argv[optind]);
    if (!o->format)
        return gt_cli_usage_error("ingest", "unknown format '%s' (see 'gridtail formats')",
                                  argv[optind]);
    optind++;
    int rc = refuse_others(seen, o->format->name);
    return rc >= 0 ? rc : refuse_unused(seen, o->format->name, a->push != NULL, argc, argv);
}

static json_t *result_json(const char *input, const struct gt_ingest_result *r,
                           json_t *notes)
{
    json_t *j = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
                          "input", input, "status", r->status,
                          "read", (json_int_t)r->read, "stored", (json_int_t)r->stored,
                          "duplicates", (json_int_t)r->duplicates,
                          "conflicts", (json_int_t)r->conflicts,
                          "replaced", (json_int_t)r->replaced,
                          "rejected", (json_int_t)r->rejected,
                          "skipped", (json_int_t)r->skipped, "lost", (json_int_t)r->lost);
    if (r->stored + r->duplicates + r->conflicts > 0) {
        json_object_set_new(j, "first_ts", json_integer(r->min_ts));
        json_object_set_new(j, "last_ts", json_integer(r->max_ts));
    }
    if (r->fetched[0]) {
        json_object_set_new(j, "url", json_string(r->fetched));
        json_object_set_new(j, "attempts", json_integer(r->attempts));
    }
    if (r->err.code)
        json_object_set_new(j, "error", json_string(r->err.msg));
    json_object_set_new(j, "notes", notes);
    return j;
}

static void print_line(const char *input, const struct gt_ingest_result *r)
{
    if (strcmp(r->status, "ok") != 0) {
        fprintf(stderr, "gridtail: %s%s%s: %s (%s, nothing stored)\n", r->err.where,
                r->err.where[0] ? ": " : "", r->err.msg, r->status, input);
        return;
    }
    printf("%s: read %ld, stored %ld, duplicates %ld, rejected %ld", input, r->read,
           r->stored, r->duplicates, r->rejected);
    if (r->conflicts)
        printf(", conflicts %ld (%s)", r->conflicts,
               r->replaced ? "replaced" : "stored values kept");
    if (r->skipped)
        printf(", skipped %ld (before --since)", r->skipped);
    if (r->stored)
        printf(", lost %ld (%.2f%%)", r->lost, 100.0 * (double)r->lost / (double)r->stored);
    putchar('\n');
}

/* ---- the probe spool: measurements kept when the store could not take them ---- */

#define SPOOL_MAX_BYTES ((size_t)256 << 20)

static void spool_dir(const struct gt_cli *cli, char *buf, size_t size)
{
    if (cli->cfg.spool_dir[0])
        snprintf(buf, size, "%s", cli->cfg.spool_dir);
    else if (!gt_db_is_file(cli->db_path))   /* a server's store: here */
        snprintf(buf, size, "gridtail.spool");
    else
        snprintf(buf, size, "%s.spool", cli->db_path);
}

#define SPOOL_PATH 4200

/* FILE.csv (the samples, csv format) and FILE.csv.why ("STARTED READ\n"
 * then the error), each written atomically. */
static int write_spool(const char *dir, const struct gt_buf *b, int64_t started,
                       const struct gt_ingest_result *res, char path[SPOOL_PATH],
                       struct gt_error *err)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return gt_error_set(err, GT_EIO, dir, "%s", strerror(errno));
    char why[SPOOL_PATH + 8];
    snprintf(path, SPOOL_PATH, "%.4096s/probe-%lld-%ld.csv", dir, (long long)started,
             (long)getpid());
    snprintf(why, sizeof why, "%s.why", path);
    const char *what[2] = {path, why};
    int rc = GT_OK;
    for (int k = 0; k < 2 && rc == GT_OK; k++) {
        char *tmp;
        FILE *f = gt_cli_atomic_open(what[k], &tmp, err);
        if (!f)
            return err->code;
        if (k == 0) {
            fputs("ts,src,dst,rtt_ms,seq\n", f);
            fwrite(b->data, 1, b->len, f);
        } else {
            fprintf(f, "%lld %ld\n%s\n", (long long)started, res->read, res->err.msg);
        }
        rc = gt_cli_atomic_close(f, tmp, what[k], GT_OK, err);
    }
    return rc;
}

/* Store one spooled file; on success log the run that could not store it
 * and remove the file. */
static int drain_one(struct gt_db *db, struct gt_store *store, const char *dir, const char *name,
                     struct gt_ingest_opts *o)
{
    char path[SPOOL_PATH], why[SPOOL_PATH + 8], msg[GT_ERR_MSG] = "";
    snprintf(path, sizeof path, "%.4096s/%s", dir, name);
    snprintf(why, sizeof why, "%s.why", path);
    long long started = 0;
    long read = 0;
    FILE *f = fopen(why, "r");
    if (f) {
        if (fscanf(f, "%lld %ld\n", &started, &read) != 2 || !fgets(msg, sizeof msg, f))
            msg[0] = '\0';
        msg[strcspn(msg, "\n")] = '\0';
        fclose(f);
    }
    struct gt_ingest_result res;
    int rc = gt_ingest_input(db, store, path, o, &res);
    if (rc != GT_OK) {
        fprintf(stderr, "gridtail: %s: spooled samples still not stored, kept: %s\n", path,
                res.err.msg);
        return rc;
    }
    char text[GT_ERR_MSG + 128];
    snprintf(text, sizeof text, "%s (its %ld samples were spooled to %s and stored later)",
             msg[0] ? msg : "could not be stored", res.read, name);
    struct gt_error ignored = {0};
    gt_ingest_log_failed(db, "probe", name, started, read, text, &ignored);
    unlink(path);
    unlink(why);
    fprintf(stderr, "gridtail: %s: stored %ld spooled probe samples (%ld duplicates) from a "
            "run that could not store them: %s\n", path, res.stored, res.duplicates,
            msg[0] ? msg : "unknown cause");
    return GT_OK;
}

/* Store what earlier probe runs spooled, oldest first.  Returns the exit
 * code (the first file that still fails stops the drain). */
static int drain_spool(struct gt_db *db, struct gt_store *store, const char *dir,
                       const struct ingest_args *a)
{
    char *names[1024];
    size_t n = gt_cli_spool_files(dir, "probe-", names, 1024);
    struct gt_ingest_opts o = a->o;
    o.format = gt_collector_find("csv");
    o.spool = NULL;
    int rc = GT_OK;
    for (size_t i = 0; i < n; i++) {
        if (rc == GT_OK)
            rc = drain_one(db, store, dir, names[i], &o);
        free(names[i]);
    }
    return rc == GT_OK ? GT_EXIT_OK : gt_exit_code(rc);
}

/* A new input that stored nothing: say why instead of a quiet success. */
static void explain_nothing_new(const char *input, const struct gt_ingest_opts *o,
                                const struct gt_ingest_result *r)
{
    if (!r->new_source || r->stored > 0 || r->duplicates + r->conflicts == 0)
        return;
    fprintf(stderr,
            "gridtail: %s: nothing new stored: this input was never ingested before, yet all "
            "%ld of its samples have a (pair, time) that is already stored (%ld with the same "
            "RTT, %ld with another)%s\n",
            input, r->duplicates + r->conflicts, r->duplicates, r->conflicts,
            strcmp(o->format->name, "matrix") == 0
                ? "; matrix slices are stamped --start + (t-1) x --interval, t from the number "
                  "ending the file name or --slice N"
                : "");
}

/* The events of what was stored, found and kept (src/advisor/events.h):
 * {pairs, found}, or null when that failed (said on stderr: the samples
 * stay, and a query finds their events as it reads). */
struct ingest_args;
static int ingest_inputs(struct gt_cli *cli, struct ingest_args *ap, int argc, char **argv);

static json_t *record_events(struct gt_cli *cli, struct gt_db *db)
{
    struct gt_event_opts eo = gt_event_opts_of(&cli->cfg);
    struct gt_error err = {0};
    size_t pairs, found;
    int rc = gt_events_record(db, &eo, (int64_t)time(NULL), &pairs, &found, &err);
    if (rc) {
        fprintf(stderr, "gridtail: the samples are stored, their events not yet (a query "
                "finds them; the next ingest or refit stores them): %s\n", err.msg);
        return json_null();
    }
    return json_pack("{s:I, s:I}", "pairs", (json_int_t)pairs, "found", (json_int_t)found);
}

int cmd_ingest(struct gt_cli *cli, int argc, char **argv)
{
    struct ingest_args a = {0};
    int code = parse_args(cli, argc, argv, &a);
    if (code >= 0)
        return code;
    if (a.token_file && !a.push)
        return gt_cli_usage_error("ingest", "--token-file goes with --push");
    struct gt_site_map *map = NULL;
    if (a.site_map) {
        struct gt_error merr = {0};
        int mrc = gt_site_map_load(a.site_map, &map, &merr);
        if (mrc)
            return gt_cli_fail(&merr, mrc);
        a.o.collect.site_map = map;
    }
    code = ingest_inputs(cli, &a, argc, argv);
    gt_site_map_free(map);
    return code;
}

/* The inputs after the options, stored here or pushed. */
static int ingest_inputs(struct gt_cli *cli, struct ingest_args *ap, int argc, char **argv)
{
    struct ingest_args a = *ap;
    int code;
    if (a.push) {
        static char *stdin_in[] = {"-"};
        a.o.now = (int64_t)time(NULL);   /* the end of a fetched range */
        char spool[4096];
        spool_dir(cli, spool, sizeof spool);
        return gt_cli_push(cli, &a.o, a.push, a.token_file, spool,
                           optind < argc ? argv + optind : stdin_in,
                           optind < argc ? argc - optind : 1, a.json, a.rep.quiet,
                           a.rep.max_errors);
    }
    a.o.now = (int64_t)time(NULL);
    a.o.on_reject = print_reject;
    a.o.on_note = print_note;
    a.o.on_conflict = print_reject;   /* same line, counted against --max-errors */
    a.o.on_progress = show_progress;
    gt_interrupt_catch();
    a.o.cb_ctx = &a.rep;
    struct gt_db *db = gt_cli_open_db(cli, GT_DB_EXISTING, &code);
    if (!db)
        return code;
    struct gt_store *store;
    struct gt_error err = {0};
    int rc = gt_store_open(db, &store, &err);
    if (rc) {
        gt_db_close(db);
        return gt_cli_fail(&err, rc);
    }
    static char *stdin_only[] = {"-"};
    char **inputs = optind < argc ? argv + optind : stdin_only;
    int n = optind < argc ? argc - optind : 1;
    json_t *list = json_array();
    int worst = GT_EXIT_OK;
    long changed = 0;
    bool probe = !strcmp(a.o.format->name, "probe");
    char spool[4096];
    spool_dir(cli, spool, sizeof spool);
    struct gt_buf spooled;
    gt_buf_init(&spooled, SPOOL_MAX_BYTES);
    if (probe) {
        worst = drain_spool(db, store, spool, &a);
        a.o.spool = &spooled;
    }
    for (int i = 0; i < n; i++) {
        struct gt_ingest_result res;
        a.rep.shown = 0;
        a.rep.notes = json_array();
        int64_t started = (int64_t)time(NULL);
        gt_buf_reset(&spooled);
        char what[512];
        snprintf(what, sizeof what, "ingest %s", inputs[i]);
        gt_progress_start(&a.rep.prog, what, "records", 0);
        rc = gt_ingest_input(db, store, inputs[i], &a.o, &res);
        gt_progress_end(&a.rep.prog);
        if (rc == GT_EINTR) {
            fprintf(stderr, "gridtail: interrupted: %s rolled back (%ld records read, none "
                    "stored); %d input%s before it committed, %d not read\n", inputs[i],
                    res.read, i, i == 1 ? "" : "s", n - i - 1);
            json_array_append_new(list, result_json(inputs[i], &res, a.rep.notes));
            worst = GT_EXIT_INTERRUPTED;
            break;
        }
        if (probe && rc != GT_OK && spooled.len > 0) {
            char path[SPOOL_PATH];
            struct gt_error serr = {0};
            if (write_spool(spool, &spooled, started, &res, path, &serr) == GT_OK)
                fprintf(stderr, "gridtail: %s: %ld measured samples kept in %s; the next probe "
                        "run stores them\n", inputs[i], res.read, path);
            else
                fprintf(stderr, "gridtail: %s: cannot spool the measured samples: %s: %s\n",
                        inputs[i], serr.where, serr.msg);
        }
        if (a.rep.shown > a.rep.max_errors)
            fprintf(stderr, "gridtail: %s: %ld more rejected records not shown\n",
                    inputs[i], a.rep.shown - a.rep.max_errors);
        if (rc != GT_OK || (!a.rep.quiet && !a.json))
            print_line(inputs[i], &res);
        json_array_append_new(list, result_json(inputs[i], &res, a.rep.notes));
        if (rc == GT_OK)
            explain_nothing_new(inputs[i], &a.o, &res);
        changed += res.stored + res.replaced;
        bool refused_records = res.rejected || res.conflicts > res.replaced;
        int c = rc != GT_OK ? gt_exit_code(rc) : (refused_records ? GT_EXIT_INPUT : GT_EXIT_OK);
        if (c > worst)
            worst = c;
    }
    json_t *events = changed ? record_events(cli, db) : json_null();
    if (a.json)
        gt_cli_print_json(json_pack("{s:s, s:o, s:o}", "format", a.o.format->name, "inputs",
                                    list, "events", events));
    else
        json_decref(list), json_decref(events);
    gt_buf_free(&spooled);
    gt_store_free(store);
    gt_db_close(db);
    return worst;
}
