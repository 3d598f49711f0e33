/*
 * cli.h - the command-line front end: global options, the command table,
 * and the output helpers the commands share.  Commands parse their own
 * options (one getopt_long table each), call the library and format.
 */
#ifndef GT_CLI_H
#define GT_CLI_H

#include "base/config.h"
#include "base/error.h"
#include "db/db.h"
#include "base/util.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct gt_cli {
    const char *db_path;      /* resolved: --db, $GRIDTAIL_DB, config, ./gridtail.db */
    const char *db_from;      /* where db_path came from, for `config` */
    const char *config_path;  /* NULL when no config file was read */
    struct gt_config cfg;
};

/* Longest line of a small text input (fit FILE, --compute-from). */
#define GT_LINE_MAX 4096

struct gt_command {
    const char *name;
    int (*run)(struct gt_cli *cli, int argc, char **argv);
    const char *summary;
    const char *group; /* set on a group's first command (--help) */
};

/* Entry point used by main(): returns the process exit code. */
int gt_cli_main(int argc, char **argv);

/* ---- the commands (cmd_*.c) ---- */
int cmd_init(struct gt_cli *cli, int argc, char **argv);
int cmd_ingest(struct gt_cli *cli, int argc, char **argv);
int cmd_sites(struct gt_cli *cli, int argc, char **argv);
int cmd_pairs(struct gt_cli *cli, int argc, char **argv);
int cmd_export(struct gt_cli *cli, int argc, char **argv);
int cmd_prune(struct gt_cli *cli, int argc, char **argv);
int cmd_copy_store(struct gt_cli *cli, int argc, char **argv);
int cmd_refit(struct gt_cli *cli, int argc, char **argv);
int cmd_config(struct gt_cli *cli, int argc, char **argv);
int cmd_formats(struct gt_cli *cli, int argc, char **argv);
int cmd_emax(struct gt_cli *cli, int argc, char **argv);
int cmd_fit(struct gt_cli *cli, int argc, char **argv);
int cmd_estimate(struct gt_cli *cli, int argc, char **argv);
int cmd_rank(struct gt_cli *cli, int argc, char **argv);
int cmd_place(struct gt_cli *cli, int argc, char **argv);
int cmd_neighbor(struct gt_cli *cli, int argc, char **argv);
int cmd_extrapolate(struct gt_cli *cli, int argc, char **argv);
int cmd_loggps(struct gt_cli *cli, int argc, char **argv);
int cmd_simulate(struct gt_cli *cli, int argc, char **argv);
int cmd_serve(struct gt_cli *cli, int argc, char **argv);
int cmd_backtest(struct gt_cli *cli, int argc, char **argv);
int cmd_synth(struct gt_cli *cli, int argc, char **argv);
int cmd_plot(struct gt_cli *cli, int argc, char **argv);
int cmd_token(struct gt_cli *cli, int argc, char **argv);
int cmd_export_topology(struct gt_cli *cli, int argc, char **argv);
int cmd_alerts(struct gt_cli *cli, int argc, char **argv);
int cmd_events(struct gt_cli *cli, int argc, char **argv);
struct gt_ingest_opts;
/* ingest --push (ingest_push.c): the inputs parsed with o's format and sent
 * to the server at url; spool keeps what could not be sent.  Returns
 * the exit code. */
int gt_cli_push(struct gt_cli *cli, const struct gt_ingest_opts *o, const char *url,
                const char *token_file, const char *spool, char **inputs, int n, bool json,
                bool quiet, long max_errors);

/* ---- helpers for commands ---- */

/* Open the database (mode: db/db.h; GT_DB_READ for commands that only
 * read).  Prints the error and returns NULL on failure with *exit_code set. */
struct gt_db *gt_cli_open_db(struct gt_cli *cli, enum gt_db_mode mode, int *exit_code);

/* v with the given decimals, or "-" when v is not finite, so that tables
 * never show nan or inf.  Returns buf. */
const char *gt_cli_num(char *buf, size_t size, int decimals, double v);

/* One line of a text input (base/util.h gt_lines_next): 1 a line, 0 the
 * end, < 0 an error (a line too long, a NUL byte, too large, a read
 * error), said on stderr as name:line. */
int gt_cli_read_line(struct gt_lines *in, char line[GT_LINE_MAX]);

/* Writing a file atomically: gt_cli_atomic_open makes a temporary file
 * beside path (with the permissions a new file would get; *tmp, which
 * gt_cli_atomic_close frees), and gt_cli_atomic_close renames it into
 * place when rc is GT_OK and everything was written, or removes it; the
 * file and then its directory are synced, so a file that counts as written
 * survives a power loss.
 * A path that is not a regular file (/dev/null, /dev/stdout, a FIFO) is
 * written in place (*tmp NULL).  NULL / the error code with err set on
 * failure. */
FILE *gt_cli_atomic_open(const char *path, char **tmp, struct gt_error *err);
int gt_cli_atomic_close(FILE *fp, char *tmp, const char *path, int rc, struct gt_error *err);

/* fsync of a directory (its entries durable after a rename); 0 or -1. */
int gt_cli_sync_dir(const char *dir);

/* len bytes of data into path, atomically (as above); the exit code,
 * the error printed. */
int gt_cli_write_atomic(const char *path, const char *data, size_t len);

/* The spool's PREFIX*.csv files in dir, at most max, in name (= time)
 * order into names (malloc'd; caller frees each); how many. */
size_t gt_cli_spool_files(const char *dir, const char *prefix, char **names, size_t max);

/* Open path for reading ("-" = stdin); *name is what messages call it.
 * Prints the error and returns NULL on failure.  Close with
 * gt_cli_close_input. */
FILE *gt_cli_open_input(const char *path, const char **name);
void gt_cli_close_input(FILE *f);

/* Print a command's usage and the exit codes; returns GT_EXIT_OK. */
int gt_cli_help(const char *usage);

/* Parse the options of a command that takes only --help and, when json
 * is not NULL, --json; -1 to go on, else an exit code. */
int gt_cli_simple_opts(const char *cmd, const char *usage, int argc, char **argv, bool *json);

/* Print "gridtail CMD: msg" and return GT_EXIT_USAGE. */
int gt_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Report an error record and return its exit code. */
int gt_cli_fail(const struct gt_error *err, int rc);

/* Print a JSON document to stdout (2-space indent, 15 significant
 * digits), steal the reference. */
void gt_cli_print_json(json_t *doc);

/* Parse option values; print a usage error naming the option on failure. */
bool gt_opt_time(const char *cmd, const char *opt, const char *v, int64_t *out);
bool gt_opt_long(const char *cmd, const char *opt, const char *v, long min, long max,
                 long *out);
bool gt_opt_double(const char *cmd, const char *opt, const char *v, double min, double max,
                   double *out);
/* Bytes: a number >= 0 with an optional k, M or G suffix (powers of 1024). */
bool gt_opt_bytes(const char *cmd, const char *opt, const char *v, double *out);
/* One word of a NULL-terminated list: its index, or -1 after a usage
 * error that names the words ("'x' is not a, b or c"). */
int gt_opt_choice(const char *cmd, const char *opt, const char *v,
                  const char *const *words);
/* --cut's words: censor (0), paper (1). */
extern const char *const gt_cut_words[];

/* Pairs "n t" or "n,t" per line ('#' comments, a first line of names
 * skipped) from path or "-", at most cap; bad lines are reported as
 * file:line.  Returns an exit code. */
int gt_read_points(const char *path, double *n, double *t, size_t cap, size_t *m);

/* Exit codes, for every --help. */
extern const char gt_exit_codes_help[];

#endif
