/*
 * cmd_serve.c - `gridtail serve`: the advisor's HTTP JSON API for grid
 * brokers (src/server.h) until SIGINT or SIGTERM.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "advisor/status.h"
#include "server/auth.h"
#include "server/server.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static const char serve_usage[] =
    "usage: gridtail serve [--listen ADDR:PORT] [--threads N] [--advisor-threads N]\n"
    "                      [--max-body-mb M] [--timeout S] [--port-file F] [--quiet]\n"
    "                      [--tls-cert PEM --tls-key PEM]\n"
    "\n"
    "Answer grid brokers over HTTP with JSON, until SIGINT or SIGTERM (requests\n"
    "in progress are finished):\n"
    "  GET  /v1/health    {\"status\": \"ok\", \"version\", \"schema\"}\n"
    "  POST /v1/estimate  {\"root\": R, \"sites\": [\"A\", \"B:4\", ...], OPTIONS}\n"
    "  POST /v1/rank      {\"candidates\": [{\"root\": R, \"sites\": [...]}, ...],\n"
    "                      \"top\": K, OPTIONS}\n"
    "  POST /v1/place     {\"pool\": [...], \"size\": K, \"root\": R|\"auto\", \"top\": N,\n"
    "                      \"exact_limit\": S, OPTIONS}\n"
    "  GET  /v1/sites     the sites, as sites --json\n"
    "  GET  /v1/pairs     ?src=&dst=&limit=: pair summaries, as pairs --json; with\n"
    "                     src and dst, the pair's current fit too\n"
    "  POST /v1/samples   samples pushed by remote collectors (text/csv or a JSON\n"
    "                     array; a write token): ingest --push sends them\n"
    "  GET  /v1/plot/matrix, /v1/plot/ccdf, /v1/plot/series   SVG plots\n"
    "  GET  /             the dashboard; /v1/openapi.json: this API, OpenAPI 3.1\n"
    "  GET  /healthz      alive (never touches the store)\n"
    "  GET  /readyz       the store reads, and with [server] ready_max_age_s a\n"
    "                     sample is that recent; else 503 saying which\n"
    "  GET  /metrics      Prometheus text: requests by endpoint and status,\n"
    "                     latency histogram, in flight, newest-sample age per site\n"
    "OPTIONS are the command line's in JSON: \"window\", \"model\", \"at\",\n"
    "\"compute\", \"compute_from\" ([[processes, ms], ...]), \"iterations\",\n"
    "\"quantiles\", \"skip_missing\", \"bytes\", \"loggps\" (a built-in set).  The\n"
    "answers are what estimate, rank and place print with --json\n"
    "(docs/ADVISOR.md); errors are {\"error\", \"field\"} with status 400, 404,\n"
    "405, 413, 422 (a pair without data), 503 (database busy) or 500.\n"
    "\n"
    "  --listen A:P        numeric address (or localhost) and port (default\n"
    "                      [server] listen, 127.0.0.1:8080; IPv6 as [::1]:8080;\n"
    "                      port 0: any free port)\n"
    "  --threads N         answers computed at once, on N workers whatever\n"
    "                      connection they came on ([server] threads, 4)\n"
    "  --advisor-threads N threads of one rank or place (default: one per\n"
    "                      CPU, at most 8)\n"
    "  --max-body-mb M     largest request body ([server] max_body_mb, 16)\n"
    "  --timeout S         close idle connections after S s ([server] timeout_s)\n"
    "  --port-file F       write the port to F once listening (for port 0)\n"
    "  --quiet             no request log (default: a JSON line per request on\n"
    "                      stderr: time, client, method, path, status, ms)\n"
    "  --tls-cert PEM, --tls-key PEM\n"
    "                      serve HTTPS with this certificate (chain) and key\n"
    "                      ([server] tls_cert, tls_key)\n"
    "Tokens ([server] tokens_file, gridtail token new) are read again on SIGHUP;\n"
    "reads are open to loopback clients unless [server] read_auth = 1, writes\n"
    "always need a write token.\n";

struct serve_args {
    const char *listen, *port_file, *tls_cert, *tls_key;
    long threads, adv_threads, max_body_mb, timeout_s;
    bool quiet;
};

static int serve_parse(struct gt_cli *cli, int argc, char **argv, struct serve_args *a)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"listen", required_argument, NULL, 'l'},
        {"threads", required_argument, NULL, 't'},
        {"advisor-threads", required_argument, NULL, 'a'},
        {"max-body-mb", required_argument, NULL, 'm'}, {"timeout", required_argument, NULL, 'o'},
        {"port-file", required_argument, NULL, 'p'}, {"quiet", no_argument, NULL, 'q'},
        {"tls-cert", required_argument, NULL, 'c'}, {"tls-key", required_argument, NULL, 'k'},
        {NULL, 0, NULL, 0}};
    a->listen = cli->cfg.server_listen;
    a->threads = cli->cfg.server_threads;
    a->max_body_mb = cli->cfg.server_max_body_mb;
    a->timeout_s = cli->cfg.server_timeout_s;
    a->tls_cert = cli->cfg.server_tls_cert[0] ? cli->cfg.server_tls_cert : NULL;
    a->tls_key = cli->cfg.server_tls_key[0] ? cli->cfg.server_tls_key : NULL;
    int c;
    bool ok = true;
    optind = 1;
    while (ok && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(serve_usage, stdout); return gt_cli_help("");
        case 'l': a->listen = optarg; break;
        case 't': ok = gt_opt_long("serve", "--threads", optarg, 1, 1024, &a->threads); break;
        case 'a': ok = gt_opt_long("serve", "--advisor-threads", optarg, 1, 8, &a->adv_threads);
                  break;
        case 'm': ok = gt_opt_long("serve", "--max-body-mb", optarg, 1, 4096, &a->max_body_mb);
                  break;
        case 'o': ok = gt_opt_long("serve", "--timeout", optarg, 1, 3600, &a->timeout_s); break;
        case 'p': a->port_file = optarg; break;
        case 'q': a->quiet = true; break;
        case 'c': a->tls_cert = optarg; break;
        case 'k': a->tls_key = optarg; break;
        default: return gt_cli_usage_error("serve", "bad option");
        }
    }
    if (!ok)
        return GT_EXIT_USAGE;
    if (optind < argc)
        return gt_cli_usage_error("serve", "unexpected argument '%s'", argv[optind]);
    if (!a->tls_cert != !a->tls_key)
        return gt_cli_usage_error("serve", "--tls-cert and --tls-key go together");
    return -1;
}

/* A PEM file into a malloc'd string (at most 1 MiB), or NULL (said). */
static char *read_pem(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct gt_buf b;
    gt_buf_init(&b, 1 << 20);
    int rc = f ? gt_buf_read_stream(&b, f) : GT_EIO;
    if (f)
        fclose(f);
    if (rc || !b.data || !strstr(b.data, "-----BEGIN ")) {
        fprintf(stderr, "gridtail: %s: %s\n", path, !f ? strerror(errno)
                : rc == GT_ETOOBIG ? "larger than 1 MiB" : "not a PEM file");
        gt_buf_free(&b);
        return NULL;
    }
    return b.data;
}

/* "ADDR:PORT" or "[ADDR6]:PORT" into addr (a copy) and port. */
static bool split_listen(const char *s, char *addr, size_t size, unsigned *port)
{
    const char *colon = s[0] == '[' ? strstr(s, "]:") : strrchr(s, ':');
    if (!colon)
        return false;
    const char *a = s[0] == '[' ? s + 1 : s, *p = colon + (s[0] == '[' ? 2 : 1);
    size_t alen = (size_t)(colon - a);
    int64_t v;
    if (alen == 0 || alen >= size || !gt_parse_i64(p, strlen(p), &v) || v < 0 || v > 65535)
        return false;
    memcpy(addr, a, alen);
    addr[alen] = 0;
    *port = (unsigned)v;
    return true;
}

static int write_port_file(const char *path, unsigned port)
{
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%u\n", port) < 0 || fclose(f) != 0) {
        fprintf(stderr, "gridtail serve: cannot write the port file %s\n", path);
        return GT_EXIT_IO;
    }
    return GT_EXIT_OK;
}

/* The site bandwidths of the config, for requests with "bytes". */
static int load_sites(const struct gt_cli *cli, struct gt_topology *t, bool *have)
{
    *have = cli->cfg.site_bandwidths[0] != 0;
    if (!*have)
        return GT_EXIT_OK;
    struct gt_error err = {0};
    int rc = gt_topology_sites(cli->cfg.site_bandwidths, t, &err);
    return rc ? gt_cli_fail(&err, rc) : GT_EXIT_OK;
}

/* SIGHUP: the tokens file again; a bad one leaves the tokens as they were */
static void reload(struct gt_server *s, const char *path)
{
    size_t n;
    struct gt_error err = {0};
    if (gt_server_reload(s, &n, &err) == GT_OK)
        fprintf(stderr, "gridtail serve: SIGHUP: %zu tokens from %s\n", n, path[0] ? path : "(no tokens_file)");
    else
        fprintf(stderr, "gridtail serve: SIGHUP: %s%s%s; the %zu tokens before stay\n",
                err.where, err.where[0] ? ": " : "", err.msg, gt_server_tokens(s));
}

int cmd_serve(struct gt_cli *cli, int argc, char **argv)
{
    struct serve_args a = {0};
    int code = serve_parse(cli, argc, argv, &a);
    if (code >= 0)
        return code;
    char addr[256];
    unsigned port;
    if (!split_listen(a.listen, addr, sizeof addr, &port))
        return gt_cli_usage_error("serve", "--listen: '%s' is not ADDR:PORT or [ADDR]:PORT",
                                  a.listen);
    /* the store must exist before anyone asks */
    struct gt_db *db = gt_cli_open_db(cli, GT_DB_READ, &code);
    if (!db)
        return code;
    gt_db_close(db);
    struct gt_topology sites;
    bool have_sites;
    if ((code = load_sites(cli, &sites, &have_sites)) != GT_EXIT_OK)
        return code;
    /* the signals go to sigwait below, not to the server's threads */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);
    char *cert = a.tls_cert ? read_pem(a.tls_cert) : NULL;
    char *key = a.tls_key ? read_pem(a.tls_key) : NULL;
    if (a.tls_cert && (!cert || !key)) {
        free(cert);
        free(key);
        if (have_sites)
            gt_topology_free(&sites);
        return GT_EXIT_IO;
    }
    struct gt_thresholds th;   /* read per request; a bad groups_file fails here, first */
    struct gt_error terr = {0};
    int trc = gt_thresholds_load(&th, &cli->cfg, (size_t)cli->cfg.window, &terr);
    gt_thresholds_free(&th);
    if (trc) {
        free(cert);
        free(key);
        if (have_sites)
            gt_topology_free(&sites);
        return gt_cli_fail(&terr, trc);
    }
    struct gt_server_opts o = {cli->db_path, &cli->cfg, have_sites ? &sites : NULL, addr, port,
                               (unsigned)a.threads, a.adv_threads,
                               (size_t)a.max_body_mb << 20, (unsigned)a.timeout_s,
                               a.quiet ? NULL : stderr, cert, key};
    struct gt_error err = {0};
    struct gt_server *s = gt_server_start(&o, &err);
    if (!s) {
        code = gt_cli_fail(&err, err.code ? err.code : GT_EIO);
    } else {
        fprintf(stderr, "gridtail serve: listening on %s%s%s%s:%u, database %s%s%s\n",
                cert ? "https://" : "", strchr(addr, ':') ? "[" : "", addr,
                strchr(addr, ':') ? "]" : "", gt_server_port(s), cli->db_path,
                cli->cfg.db_read_url[0] ? ", reading from " : "", cli->cfg.db_read_url);
        if (cli->cfg.server_tokens_file[0])
            fprintf(stderr, "gridtail serve: %zu tokens from %s\n", gt_server_tokens(s),
                    cli->cfg.server_tokens_file);
        code = a.port_file ? write_port_file(a.port_file, gt_server_port(s)) : GT_EXIT_OK;
        int sig = 0;
        while (code == GT_EXIT_OK && (sigwait(&stop, &sig), sig == SIGHUP))
            reload(s, cli->cfg.server_tokens_file);
        gt_server_stop(s);
        if (sig)
            fprintf(stderr, "gridtail serve: %s: stopped\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    }
    if (have_sites)
        gt_topology_free(&sites);
    free(cert);
    free(key);
    return code;
}
