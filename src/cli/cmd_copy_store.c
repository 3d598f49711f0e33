/*
 * cmd_copy_store.c - `gridtail copy-store`: a whole store copied into another
 * (SQLite to PostgreSQL and back) and the two compared (db/copy.h); this
 * file parses the options and reports.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "base/interrupt.h"
#include "base/numfmt.h"
#include "base/progress.h"
#include "db/copy.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

static const char copy_usage[] =
    "usage: gridtail copy-store --from STORE --to STORE [--verify-only] [--json]\n"
    "\n"
    "Copy a whole store into another, between backends or not (a file path is\n"
    "SQLite, postgresql://user@host:port/db is PostgreSQL): the sites with their\n"
    "cluster, domain and coordinates, the pairs, every sample (lost ones as\n"
    "lost) and the sources' ingest cursors.  --to is created if needed (a\n"
    "PostgreSQL database must exist: its tables are made); it should be new,\n"
    "or an earlier copy of --from.  --from is read in one snapshot, so\n"
    "collectors may go on writing to it (what they write after the copy\n"
    "starts is not copied: run it again to bring --to up to date).\n"
    "\n"
    "Each pair is written in transactions of its own (at most 65536 samples\n"
    "each): a copy that stopped (Ctrl-C, kill -9, a lost connection) goes on\n"
    "when run again.  A pair whose samples --to holds already is skipped, and\n"
    "a sample sent again counts as already there, never stored twice.  A key\n"
    "(pair, ts, seq) that --to holds with another value is a conflict: named,\n"
    "kept as it is in --to, and the exit status is 2.\n"
    "\n"
    "Then both stores are compared pair by pair: the number of samples and a\n"
    "checksum of every sample's (ts, seq, rtt) in any order, computed from each\n"
    "store's samples; and the sites by name, attributes and pairs.  A pair or a\n"
    "site that differs is named and the exit status is 2.  --verify-only only\n"
    "compares.\n"
    "\n"
    "Not copied: the fit cache (derived, and keyed by the store's own ids:\n"
    "'gridtail --db TO refit' rebuilds it) and the ingest log.  Progress goes\n"
    "to stderr when it is a terminal; the summary to stdout.  --db is not used.\n"
    "\n"
    "Options:\n"
    "  --from STORE    the store to copy (it must exist)\n"
    "  --to STORE      the store to copy into (created if needed)\n"
    "  --verify-only   compare the two, copy nothing (--to must exist)\n"
    "  --json          the summary as JSON\n";

/* Lines of conflicts and differences shown on stderr (all are counted). */
#define SHOWN_MAX 20
/* Differences listed in the JSON summary. */
#define LISTED_MAX 1000

struct report {
    const char *from, *to;
    long shown;
    json_t *diffs;            /* with --json */
    struct gt_progress prog;
    int phase;                /* of prog; -1 before the first */
    char what[3][64];
};

static void show_progress(void *ctx, enum gt_copy_phase phase, long long done,
                          long long total)
{
    struct report *r = ctx;
    if (r->phase != (int)phase) {
        gt_progress_end(&r->prog);
        gt_progress_start(&r->prog, r->what[phase], "samples", (double)total);
        r->phase = (int)phase;
    }
    gt_progress_update(&r->prog, (double)done);
}

/* One more line for stderr, unless enough were shown. */
static bool show(struct report *r)
{
    if (r->shown++ >= SHOWN_MAX)
        return false;
    gt_progress_end(&r->prog);
    r->phase = -1;
    return true;
}

static void fmt_rtt(char buf[GT_FMT_DOUBLE_SIZE], double v)
{
    if (isnan(v))
        strcpy(buf, "lost");
    else
        gt_fmt_double(buf, v);
}

static void on_conflict(void *ctx, const char *src, const char *dst, int64_t ts,
                        int64_t seq, double from_rtt, double to_rtt)
{
    struct report *r = ctx;
    char a[GT_FMT_DOUBLE_SIZE], b[GT_FMT_DOUBLE_SIZE];
    fmt_rtt(a, from_rtt);
    fmt_rtt(b, to_rtt);
    if (show(r))
        fprintf(stderr, "gridtail: copy-store: conflict: pair %s -> %s, ts %" PRId64
                ", seq %" PRId64 ": %s in %s, %s in %s (kept)\n", src, dst, ts, seq, a,
                r->from, b, r->to);
}

static json_t *digest_json(const struct gt_copy_digest *d)
{
    char sum[17];
    snprintf(sum, sizeof sum, "%016" PRIx64, d ? d->sum : 0);
    return json_pack("{s:I, s:s}", "samples", (json_int_t)(d ? d->samples : 0), "checksum",
                     sum);
}

static void on_mismatch(void *ctx, const struct gt_copy_digest *from,
                        const struct gt_copy_digest *to)
{
    struct report *r = ctx;
    const struct gt_copy_digest *p = from ? from : to;
    if (show(r))
        fprintf(stderr, "gridtail: copy-store: pair %s -> %s differs: %lld samples "
                "(checksum %016" PRIx64 ") in %s, %lld (checksum %016" PRIx64 ") in %s\n",
                p->src, p->dst, from ? from->samples : 0, from ? from->sum : 0, r->from,
                to ? to->samples : 0, to ? to->sum : 0, r->to);
    if (r->diffs && json_array_size(r->diffs) < LISTED_MAX)
        json_array_append_new(r->diffs, json_pack("{s:s, s:s, s:s, s:o, s:o}", "kind", "pair",
                                                  "src", p->src, "dst", p->dst, "from",
                                                  digest_json(from), "to", digest_json(to)));
}

static void on_site_mismatch(void *ctx, const char *name, const char *why)
{
    struct report *r = ctx;
    if (show(r))
        fprintf(stderr, "gridtail: copy-store: site %s: %s\n", name, why);
    if (r->diffs && json_array_size(r->diffs) < LISTED_MAX)
        json_array_append_new(r->diffs, json_pack("{s:s, s:s, s:s}", "kind", "site", "name",
                                                  name, "why", why));
}

static void print_text(const struct report *r, const struct gt_copy_result *res,
                       bool verify_only, double secs)
{
    if (!verify_only)
        printf("copied %s -> %s: %ld sites, %ld pairs (%ld with samples, %ld written), "
               "%lld samples: %lld copied, %lld already there, %lld conflicts; "
               "cursors of %ld sources; %.1f s\n", r->from, r->to, res->sites, res->pairs,
               res->pairs_sampled, res->pairs_written, res->samples, res->copied,
               res->already, res->conflicts, res->sources, secs);
    if (res->mismatches == 0)
        printf("verified: %ld pairs, %lld samples: counts and checksums match; %ld sites "
               "alike\n", res->pairs_sampled, res->samples, res->sites);
    else
        printf("verification failed: %ld pairs or sites differ\n", res->mismatches);
    if (r->shown > SHOWN_MAX)
        fprintf(stderr, "gridtail: copy-store: %ld more lines not shown\n",
                r->shown - SHOWN_MAX);
}

static void print_json(struct report *r, const struct gt_copy_result *res, bool verify_only,
                       double secs)
{
    json_t *o = json_pack("{s:s, s:s, s:b, s:I, s:I, s:I, s:b, s:I, s:o}", "from", r->from,
                          "to", r->to, "verify_only", verify_only, "sites",
                          (json_int_t)res->sites, "pairs_with_samples",
                          (json_int_t)res->pairs_sampled, "samples",
                          (json_int_t)res->samples, "verified",
                          res->mismatches == 0 && res->conflicts == 0, "differences",
                          (json_int_t)res->mismatches, "differing", r->diffs);
    r->diffs = NULL;
    if (!verify_only) {
        json_object_set_new(o, "pairs", json_integer(res->pairs));
        json_object_set_new(o, "pairs_written", json_integer(res->pairs_written));
        json_object_set_new(o, "copied", json_integer(res->copied));
        json_object_set_new(o, "already", json_integer(res->already));
        json_object_set_new(o, "conflicts", json_integer(res->conflicts));
        json_object_set_new(o, "sources", json_integer(res->sources));
    }
    json_object_set_new(o, "seconds", json_real(round(secs * 1000) / 1000));
    gt_cli_print_json(o);
}

/* Two addresses of one store: the same text, or one file by two paths. */
static bool same_store(const char *a, const char *b)
{
    struct stat x, y;
    if (!strcmp(a, b))
        return true;
    return gt_db_is_file(a) && gt_db_is_file(b) && stat(a, &x) == 0 && stat(b, &y) == 0 &&
           x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

static int parse(int argc, char **argv, const char **from, const char **to, bool *json,
                 bool *verify_only)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {"from", required_argument, NULL, 'f'}, {"to", required_argument, NULL, 't'},
        {"verify-only", no_argument, NULL, 'v'}, {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': return gt_cli_help(copy_usage);
        case 'j': *json = true; break;
        case 'f': *from = optarg; break;
        case 't': *to = optarg; break;
        case 'v': *verify_only = true; break;
        default: return gt_cli_usage_error("copy-store", "bad option");
        }
    }
    if (optind < argc)
        return gt_cli_usage_error("copy-store", "unexpected argument '%s'", argv[optind]);
    if (!*from || !*to)
        return gt_cli_usage_error("copy-store", "both --from and --to are needed");
    if (same_store(*from, *to))
        return gt_cli_usage_error("copy-store", "--from and --to are the same store");
    return -1;
}

/* Both stores open: --from as a reader, --to created unless only
 * compared.  The exit code, the error printed. */
static int open_both(struct gt_cli *cli, const char *from, const char *to, bool verify_only,
                     struct gt_db **a, struct gt_db **b)
{
    struct gt_error err = {0};
    long busy = cli->cfg.busy_timeout_ms;
    int rc = gt_db_open(from, GT_DB_READ, busy, a, &err);
    if (rc == GT_OK && (rc = gt_db_open(to, verify_only ? GT_DB_READ : GT_DB_CREATE, busy, b,
                                        &err)) != GT_OK) {
        gt_db_close(*a);
        *a = NULL;
    }
    return rc ? gt_cli_fail(&err, rc) : GT_EXIT_OK;
}

int cmd_copy_store(struct gt_cli *cli, int argc, char **argv)
{
    const char *from = NULL, *to = NULL;
    bool json = false, verify_only = false;
    int code = parse(argc, argv, &from, &to, &json, &verify_only);
    if (code >= 0)
        return code;
    struct gt_db *a, *b;
    if ((code = open_both(cli, from, to, verify_only, &a, &b)) != GT_EXIT_OK)
        return code;
    struct report r = {.from = gt_db_address(a), .to = gt_db_address(b),
                       .diffs = json ? json_array() : NULL, .phase = -1};
    snprintf(r.what[GT_COPY_READ_FROM], sizeof r.what[0], "copy-store: reading the source");
    snprintf(r.what[GT_COPY_READ_TO], sizeof r.what[0], "copy-store: reading the target");
    snprintf(r.what[GT_COPY_WRITE], sizeof r.what[0], "copy-store: copying");
    struct gt_copy_opts o = {show_progress, on_conflict, on_mismatch, on_site_mismatch, &r};
    struct gt_copy_result res;
    struct gt_error err = {0};
    gt_interrupt_catch();
    int64_t t0 = gt_monotonic_ns();
    int rc = verify_only ? gt_copy_verify(a, b, &o, &res, &err)
                         : gt_copy_store(a, b, &o, &res, &err);
    double secs = gt_elapsed_ms(t0) / 1000;
    gt_progress_end(&r.prog);
    if (rc == GT_EINTR && !verify_only)
        fprintf(stderr, "gridtail: copy-store: interrupted: %lld samples copied and committed "
                "(the transaction being written rolled back); run it again to go on\n",
                res.copied);
    if (rc)
        code = gt_cli_fail(&err, rc);
    else if (json)
        print_json(&r, &res, verify_only, secs);
    else
        print_text(&r, &res, verify_only, secs);
    json_decref(r.diffs);
    gt_db_close(a);
    gt_db_close(b);
    if (rc)
        return code;
    return res.mismatches || res.conflicts ? GT_EXIT_INPUT : GT_EXIT_OK;
}
