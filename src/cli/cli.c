/*
 * cli.c - global options, configuration and database discovery, and the
 * command table.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "base/jsonout.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_CONFIG "/etc/gridtail/gridtail.conf"
#include "base/version.h"

const char gt_exit_codes_help[] =
    "Exit status: 0 ok; 1 usage error; 2 bad input (records rejected, input\n"
    "refused, unknown name); 3 I/O or database error (a missing file, no\n"
    "database, a store locked too long).\n";

/* In the order --help lists them: a group starts where 'group' is set. */
static const struct gt_command commands[] = {
    {"init", cmd_init, "create the database (idempotent)", "The everyday workflow"},
    {"ingest", cmd_ingest, "load RTT samples from files, stdin or URLs", NULL},
    {"pairs", cmd_pairs, "per-pair summary: samples, loss, first/last, min/median/p99", NULL},
    {"events", cmd_events, "what happened on each pair: level shifts, loss bursts, outages, silences",
     NULL},
    {"fit", cmd_fit, "fit Pareto and normal models to a window of samples", NULL},
    {"estimate", cmd_estimate, "E[max] of a placement (root + partner sites) from stored data", NULL},
    {"rank", cmd_rank, "estimate candidate placements, best first", NULL},
    {"place", cmd_place, "choose the partner sites (and root) that minimise the collective time",
     NULL},
    {"backtest", cmd_backtest, "replay the history: how well each forecasting method held", NULL},
    {"plot", cmd_plot, "draw a pair's tail or history, the site matrix, E[max] by size, a backtest (SVG)",
     NULL},
    {"alerts", cmd_alerts, "send the pairs' warnings and criticals to Alertmanager or a webhook",
     NULL},
    {"export-topology", cmd_export_topology,
     "pair costs for schedulers: Kubernetes NetworkTopology, Rucio distances", NULL},
    {"serve", cmd_serve, "the advisor as an HTTP JSON API for grid brokers", NULL},
    {"token", cmd_token, "make an API token for serve and the line for its tokens_file", NULL},
    {"refit", cmd_refit, "fit every pair's newest window into the store's fit cache",
     "The store and tools"},
    {"synth", cmd_synth, "write realistic synthetic RTT series (the demo's data)", NULL},
    {"sites", cmd_sites, "list sites; import site attributes", NULL},
    {"export", cmd_export, "write stored samples as CSV (or JSON)", NULL},
    {"prune", cmd_prune, "delete samples older than the retention period", NULL},
    {"copy-store", cmd_copy_store, "copy a whole store into another (SQLite, PostgreSQL), "
     "resumable, verified", NULL},
    {"emax", cmd_emax, "expected collective time E[max] over partner distributions", NULL},
    {"formats", cmd_formats, "list the input formats", NULL},
    {"config", cmd_config, "show the effective configuration", NULL},
    {"loggps", cmd_loggps, "LogGPS message costs, and parameters from ping-pong times",
     "Companion models (docs/MODELS.md)"},
    {"neighbor", cmd_neighbor, "neighbour exchange over several NICs: both algorithms' times", NULL},
    {"simulate", cmd_simulate, "flow-level simulation of a collective's link contention", NULL},
    {"extrapolate", cmd_extrapolate, "extrapolate a time measured at a few process counts", NULL},
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gridtail [--db PATH|URL] [--config FILE] COMMAND [ARGS...]\n"
            "       gridtail COMMAND --help\n\n"
            "A grid scheduling advisor: collects RTT time series between sites\n"
            "into a store (an SQLite file, or PostgreSQL), fits their long-tailed\n"
            "distributions, and estimates, ranks and chooses site sets for\n"
            "synchronous jobs by the expected collective time E[max].  The method:\n"
            "docs/METHOD.md.\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (commands[i].group)
            fprintf(out, "\n%s:\n", commands[i].group);
        /* a name longer than the column has its summary on the next line */
        if (strlen(commands[i].name) > 11)
            fprintf(out, "  %s\n  %-11s %s\n", commands[i].name, "", commands[i].summary);
        else
            fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
    }
    fprintf(out,
            "\nGlobal options:\n"
            "  --db PATH|URL   the store: an SQLite file, or a PostgreSQL address\n"
            "                  postgresql://USER@HOST:PORT/DB (no password in it:\n"
            "                  ~/.pgpass, a service file or a client certificate)\n"
            "                  (default: $GRIDTAIL_DB, else [database] url, else\n"
            "                  [database] path of the config file, else ./gridtail.db)\n"
            "  --config FILE   config file (default: $GRIDTAIL_CONFIG, else\n"
            "                  " DEFAULT_CONFIG " if present)\n"
            "  -h, --help      this text;  --version  print the version\n\n%s",
            gt_exit_codes_help);
}

const char *gt_cli_num(char *buf, size_t size, int decimals, double v)
{
    if (!isfinite(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.*f", decimals, v);
    return buf;
}

FILE *gt_cli_atomic_open(const char *path, char **tmp, struct gt_error *err)
{
    /* a device or a pipe (-o /dev/stdout, a FIFO) is written in place:
       renaming a file over it would replace /dev/null for everyone */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        *tmp = NULL;
        FILE *fp = S_ISDIR(st.st_mode) ? (errno = EISDIR, NULL) : fopen(path, "w");
        if (!fp)
            gt_error_set(err, GT_EIO, path, "cannot write it: %s", strerror(errno));
        return fp;
    }
    size_t len = strlen(path) + 16;
    *tmp = malloc(len);
    if (!*tmp) {
        gt_error_set(err, GT_ENOMEM, path, "out of memory");
        return NULL;
    }
    snprintf(*tmp, len, "%s.tmpXXXXXX", path);
    int fd = mkstemp(*tmp);
    mode_t mask = umask(0);   /* mkstemp makes 0600; give what open() would */
    umask(mask);
    if (fd >= 0)
        fchmod(fd, 0666 & ~mask);
    FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!fp) {
        gt_error_set(err, GT_EIO, path, "cannot create a temporary file beside it: %s",
                     strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(*tmp);
        }
        free(*tmp);
        *tmp = NULL;
    }
    return fp;
}

/* The directory entry of path made durable (a rename is a change of its
 * directory: without this a power loss can leave the old entry, or an
 * empty file under the new name). */
static int sync_dir_of(const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    return gt_cli_sync_dir(dir);
}

int gt_cli_sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int gt_cli_atomic_close(FILE *fp, char *tmp, const char *path, int rc, struct gt_error *err)
{
    /* the data reaches the disk before the name does: renamed unsynced,
       a power loss can leave an empty file under the final name */
    bool bad = ferror(fp) != 0 || (tmp && (fflush(fp) != 0 || fsync(fileno(fp)) != 0));
    if (fclose(fp) != 0 || bad) {
        if (rc == GT_OK)
            rc = gt_error_set(err, GT_EIO, path, "write error: %s", strerror(errno));
    }
    if (!tmp)
        return rc;   /* written in place (a device or a pipe) */
    if (rc == GT_OK && rename(tmp, path) != 0)
        rc = gt_error_set(err, GT_EIO, path, "cannot rename into place: %s", strerror(errno));
    /* a directory that cannot be opened to read (EACCES) or synced at
       all (EINVAL: FUSE, 9p, CIFS) leaves the file written, unsynced */
    if (rc == GT_OK && sync_dir_of(path) != 0 && errno != EACCES && errno != EINVAL)
        rc = gt_error_set(err, GT_EIO, path, "written, but its directory cannot be synced: %s",
                          strerror(errno));
    if (rc != GT_OK)
        unlink(tmp);
    free(tmp);
    return rc;
}

int gt_cli_write_atomic(const char *path, const char *data, size_t len)
{
    struct gt_error err = {0};
    char *tmp;
    FILE *f = gt_cli_atomic_open(path, &tmp, &err);
    if (!f)
        return gt_cli_fail(&err, err.code);
    int rc = fwrite(data, 1, len, f) == len ? GT_OK : GT_EIO;
    rc = gt_cli_atomic_close(f, tmp, path, rc, &err);
    return rc ? gt_cli_fail(&err, rc) : GT_EXIT_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t gt_cli_spool_files(const char *dir, const char *prefix, char **names, size_t max)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0, plen = strlen(prefix);
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        size_t len = strlen(de->d_name);
        if (!strncmp(de->d_name, prefix, plen) && len > plen + 4 &&
            !strcmp(de->d_name + len - 4, ".csv") && (names[n] = strdup(de->d_name)))
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    return n;
}

FILE *gt_cli_open_input(const char *path, const char **name)
{
    bool std = !strcmp(path, "-");
    *name = std ? "<stdin>" : path;
    FILE *f = std ? stdin : fopen(path, "r");
    if (!f)
        fprintf(stderr, "gridtail: %s: %s\n", path, strerror(errno));
    return f;
}

void gt_cli_close_input(FILE *f)
{
    if (f && f != stdin)
        fclose(f);
}

int gt_cli_help(const char *usage)
{
    fputs(usage, stdout);
    fputs(gt_exit_codes_help, stdout);
    return GT_EXIT_OK;
}

int gt_cli_simple_opts(const char *cmd, const char *usage, int argc, char **argv, bool *json)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'},
        {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            return gt_cli_help(usage);
        }
        if (c != 'j' || !json)
            return gt_cli_usage_error(cmd, "bad option");
        *json = true;
    }
    if (optind < argc)
        return gt_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return -1;
}

int gt_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "gridtail%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(try 'gridtail%s%s --help')\n", cmd ? " " : "", cmd ? cmd : "");
    return GT_EXIT_USAGE;
}

int gt_cli_fail(const struct gt_error *err, int rc)
{
    gt_error_print(err, rc);
    return gt_exit_code(rc);
}

void gt_cli_print_json(json_t *doc)
{
    gt_json_dumpf(doc, stdout, JSON_INDENT(2));
    fputc('\n', stdout);
    json_decref(doc);
}

bool gt_opt_time(const char *cmd, const char *opt, const char *v, int64_t *out)
{
    if (gt_parse_time(v, strlen(v), out))
        return true;
    gt_cli_usage_error(cmd, "%s: '%s' is not a Unix time or ISO-8601 date", opt, v);
    return false;
}

bool gt_opt_long(const char *cmd, const char *opt, const char *v, long min, long max,
                 long *out)
{
    int64_t x;
    if (gt_parse_i64(v, strlen(v), &x) && x >= min && x <= max) {
        *out = (long)x;
        return true;
    }
    gt_cli_usage_error(cmd, "%s: '%s' is not an integer in [%ld, %ld]", opt, v, min, max);
    return false;
}

bool gt_opt_double(const char *cmd, const char *opt, const char *v, double min, double max,
                   double *out)
{
    if (gt_parse_double(v, strlen(v), out) && *out >= min && *out <= max)
        return true;
    gt_cli_usage_error(cmd, "%s: '%s' is not a number in [%g, %g]", opt, v, min, max);
    return false;
}

bool gt_opt_bytes(const char *cmd, const char *opt, const char *v, double *out)
{
    size_t len = strlen(v);
    double scale = 1;
    if (len > 1 && strchr("kKMG", v[len - 1])) {
        scale = v[len - 1] == 'G' ? 1073741824.0 : v[len - 1] == 'M' ? 1048576.0 : 1024.0;
        len--;
    }
    if (gt_parse_double(v, len, out) && *out >= 0 && isfinite(*out * scale)) {
        *out *= scale;
        return true;
    }
    gt_cli_usage_error(cmd, "%s: '%s' is not a size in bytes (a number, optionally with "
                       "k, M or G = 1024, 1024^2, 1024^3)", opt, v);
    return false;
}

const char *const gt_cut_words[] = {"censor", "paper", NULL};

int gt_opt_choice(const char *cmd, const char *opt, const char *v,
                  const char *const *words)
{
    char list[256] = "";
    size_t n = 0, used = 0;
    for (; words[n]; n++)
        if (!strcmp(v, words[n]))
            return (int)n;
    for (size_t i = 0; i < n && used < sizeof list; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        int w = snprintf(list + used, sizeof list - used, "%s%s", sep, words[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    gt_cli_usage_error(cmd, "%s: '%s' is not %s", opt, v, list);
    return -1;
}

int gt_cli_read_line(struct gt_lines *in, char line[GT_LINE_MAX])
{
    struct gt_error err = {0};
    int got = gt_lines_next(in, line, GT_LINE_MAX, &err);
    if (got < 0)
        gt_error_print(&err, got);
    return got;
}

int gt_read_points(const char *path, double *n, double *t, size_t cap, size_t *m)
{
    const char *name;
    FILE *f = gt_cli_open_input(path, &name);
    if (!f)
        return GT_EXIT_IO;
    char line[GT_LINE_MAX];
    struct gt_lines in;
    gt_lines_init(&in, f, name, 0);
    long lineno = 0;
    int code = GT_EXIT_OK, got;
    bool header_done = false;
    while (code == GT_EXIT_OK && (got = gt_cli_read_line(&in, line)) != 0) {
        lineno = in.line;
        if (got < 0) {
            code = gt_exit_code(got == GT_ETOOBIG ? GT_EINPUT : got);
            break;
        }
        line[strcspn(line, "#")] = 0;
        char *p = line + strspn(line, " \t\r");
        if (!*p)
            continue;
        char *end;
        double a = strtod(p, &end);
        bool first = *m == 0 && !header_done;
        header_done = true;
        if (end == p && first)
            continue;   /* a header line: "bytes,time_ns" */
        if (end == p || !isfinite(a) ||
            (*end != ',' && *end != ' ' && *end != '\t' && *end != ':')) {
            fprintf(stderr, "gridtail: %s:%ld: expected 'n t' or 'n,t'\n", name, lineno);
            code = GT_EXIT_INPUT;
            break;
        }
        p = end + 1;
        p += strspn(p, " \t");
        double b = strtod(p, &end);
        if (end == p || !isfinite(b) || end[strspn(end, " \t\r")] != 0) {
            fprintf(stderr, "gridtail: %s:%ld: field 2: not a number\n", name, lineno);
            code = GT_EXIT_INPUT;
        } else if (*m == cap) {
            fprintf(stderr, "gridtail: %s:%ld: more than %zu samples\n", name, lineno, cap);
            code = GT_EXIT_INPUT;
        } else {
            n[*m] = a, t[(*m)++] = b;
        }
    }
    gt_cli_close_input(f);
    return code;
}

struct gt_db *gt_cli_open_db(struct gt_cli *cli, enum gt_db_mode mode, int *exit_code)
{
    struct gt_db *db;
    struct gt_error err = {0};
    int rc = gt_db_open(cli->db_path, mode,
                        cli->cfg.busy_timeout_ms, &db, &err);
    if (rc) {
        *exit_code = gt_cli_fail(&err, rc);
        return NULL;
    }
    return db;
}

static int load_config(struct gt_cli *cli, const char *opt_config)
{
    gt_config_defaults(&cli->cfg);
    const char *path = opt_config ? opt_config : getenv("GRIDTAIL_CONFIG");
    struct stat sb;
    if (!path && stat(DEFAULT_CONFIG, &sb) == 0)
        path = DEFAULT_CONFIG;
    if (!path || !path[0])
        return GT_EXIT_OK;
    struct gt_error err = {0};
    int rc = gt_config_load(&cli->cfg, path, &err);
    if (rc)
        return gt_cli_fail(&err, rc);
    cli->config_path = path;
    return GT_EXIT_OK;
}

static void resolve_db(struct gt_cli *cli, const char *opt_db)
{
    const char *env = getenv("GRIDTAIL_DB");
    if (opt_db) {
        cli->db_path = opt_db;
        cli->db_from = "--db";
    } else if (env && env[0]) {
        cli->db_path = env;
        cli->db_from = "$GRIDTAIL_DB";
    } else if (cli->cfg.db_url[0]) {
        cli->db_path = cli->cfg.db_url;
        cli->db_from = "config";
    } else if (cli->cfg.db_path[0]) {
        cli->db_path = cli->cfg.db_path;
        cli->db_from = "config";
    } else {
        cli->db_path = "./gridtail.db";
        cli->db_from = "default";
    }
}

/* Take "--opt VALUE" or "--opt=VALUE" at argv[*i]; NULL if not this opt. */
static const char *global_value(int argc, char **argv, int *i, const char *opt, bool *bad)
{
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *bad = true;
        return NULL;
    }
    return argv[++*i];
}

int gt_cli_main(int argc, char **argv)
{
    struct gt_cli cli = {0};
    const char *opt_db = NULL, *opt_config = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        bool bad = false;
        const char *v;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return GT_EXIT_OK;
        } else if (!strcmp(argv[i], "--version")) {
            printf("gridtail %s (schema %d, SQLite %s)\n", GT_VERSION,
                   gt_db_latest_version(), gt_db_library_versions());
            return GT_EXIT_OK;
        } else if ((v = global_value(argc, argv, &i, "--db", &bad))) {
            opt_db = v;
        } else if ((v = global_value(argc, argv, &i, "--config", &bad))) {
            opt_config = v;
        } else {
            return gt_cli_usage_error(NULL, bad ? "%s needs a value" : "unknown option '%s'",
                                      argv[i]);
        }
    }
    if (i >= argc) {
        usage(stderr);
        return GT_EXIT_USAGE;
    }
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        if (strcmp(argv[i], commands[k].name) != 0)
            continue;
        int rc = load_config(&cli, opt_config);
        if (rc)
            return rc;
        resolve_db(&cli, opt_db);
        return commands[k].run(&cli, argc - i, argv + i);
    }
    return gt_cli_usage_error(NULL, "unknown command '%s'", argv[i]);
}
