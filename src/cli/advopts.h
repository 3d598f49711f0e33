/*
 * advopts.h - the options that the advisor's commands share (estimate,
 * rank, place, refit, plot emax, export-topology): one getopt_long table,
 * each option with its --help lines, and a command takes some of them
 * (struct adv_cmd) and refuses the others; with them the advisor opened
 * and closed as those commands open it (Ctrl-C, progress lines).
 */
#ifndef GT_ADVOPTS_H
#define GT_ADVOPTS_H

#include "advisor/advice.h"
#include "base/progress.h"
#include "cli.h"

#include <stdbool.h>
#include <stdint.h>

/* --json and --format: how an answer is printed (advout.h) */
enum adv_out { AOUT_TABLE, AOUT_JSON, AOUT_GRIDWAY, AOUT_CLASSAD, AOUT_TSV };

/* the options, getopt_long's codes */
enum { AO_WINDOW = 300, AO_MODEL, AO_AT, AO_COMPUTE, AO_ITER, AO_QUANT, AO_SKIP, AO_JSON,
       AO_FORMAT, AO_ROOT, AO_SITES, AO_CANDS, AO_POOL, AO_POOLFILE, AO_SIZE, AO_TOP, AO_EXACT,
       AO_THREADS, AO_COMPUTE_FROM, AO_BYTES, AO_LOGGPS, AO_SITE_BW, AO_CUT, AO_SYMMETRIC,
       AO_OBJECTIVE, AO_LOSS, AO_MAX_LOSS, AO_FALLBACK, AO_HORIZON, AO_MAP, AO_STAT, AO_UNIT,
       AO_KNAME, AO_NSPACE, AO_CONFIGMAP, AO_UPDATE, AO_CALIB, AO_CALIBRATE };

/* A command of the advisor: its name, its own usage text and the options
 * of the table it takes, a bit per AO_ code (its own ones, described in
 * its usage, and the shared ones, whose --help lines advopts.c keeps).
 * Any other is refused, so that no option is accepted and then ignored. */
struct adv_cmd {
    const char *name, *usage;
    uint64_t takes;
    const char *const *formats;   /* --format's own names (NULL: the output formats) */
};

#define OPT(o) (UINT64_C(1) << ((o) - AO_WINDOW))
/* what a fit of a window takes */
#define TAKES_FIT (OPT(AO_WINDOW) | OPT(AO_MODEL) | OPT(AO_HORIZON) | OPT(AO_CUT))
/* what a question about a placement takes */
#define TAKES_ASK (TAKES_FIT | OPT(AO_FALLBACK) | OPT(AO_AT) | OPT(AO_COMPUTE) | \
                   OPT(AO_COMPUTE_FROM) | OPT(AO_ITER) | OPT(AO_QUANT) | OPT(AO_SKIP) | \
                   OPT(AO_LOSS) | OPT(AO_MAX_LOSS) | OPT(AO_OBJECTIVE) | OPT(AO_SYMMETRIC) | \
                   OPT(AO_BYTES) | OPT(AO_LOGGPS) | OPT(AO_SITE_BW) | OPT(AO_CALIB))
#define TAKES_OUT (OPT(AO_JSON) | OPT(AO_FORMAT))
#define TAKES_PROCS (OPT(AO_SITES) | OPT(AO_CANDS) | OPT(AO_POOL) | OPT(AO_POOLFILE))

/* What the options said: the advisor's question, and each command's own. */
struct adv_args {
    struct gt_advice ad;
    enum adv_out fmt;
    /* command specific */
    const char *root, *sites, *candidates, *pool, *pool_file;
    long size, top;
    double exact_limit;
    int format;                   /* index in adv_cmd.formats, -1 none */
    const char *map, *statistic, *unit, *kname, *nspace, *configmap;
    bool update;
    bool calibrate;               /* refit --calibrate */
    struct {                      /* rank's and place's roots calibrated */
        struct gt_progress line;
        bool on;
    } calib;
};

/* Parse the options of ac into a (its defaults from the config first);
 * returns -1 to go on, else an exit code (--help printed: 0). */
int adv_parse(struct gt_cli *cli, const struct adv_cmd *ac, int argc, char **argv,
              struct adv_args *a);

/* The advisor over the store, with Ctrl-C ending a search with the best
 * so far and a progress line for the roots calibrated; NULL with *code
 * set (the error printed).  Close with adv_close, which saves the fits. */
struct gt_advisor *adv_open(struct gt_cli *cli, struct adv_args *a, struct gt_db **db,
                            int *code);
void adv_close(struct gt_advisor *adv, struct gt_db *db);

/* After a search: say so when Ctrl-C ended it; the exit code. */
int adv_after_search(int code);

/* --pool-file: one SITE[:PROCS] per line ('#' comments) into l; an exit
 * code, the error printed. */
int adv_read_pool(const char *path, struct gt_site_list *l);

#endif
