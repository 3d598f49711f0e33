/*
 * cmd_refit.c - `gridtail refit`: the store's fit cache brought up to
 * date (the work is advisor/refit.h's), said in one line or as JSON.
 */
#define _POSIX_C_SOURCE 200809L
#include "advopts.h"
#include "advisor/refit.h"
#include "base/interrupt.h"
#include "base/util.h"

#include <stdio.h>

static const char refit_usage[] =
    "usage: gridtail refit [--window M]\n"
    "                      [--model auto|pareto|normal|adaptive|combined]\n"
    "                      [--horizon D] [--cut censor|paper] [--calibrate]\n"
    "                      [--calibration W] [--quantile Q,...]\n"
    "                      [--fallback empirical|none] [--threads N] [--json]\n"
    "\n"
    "Fit every stored pair's newest window of M samples and keep the fits in\n"
    "the store's fit cache, so that estimate, rank and place read them\n"
    "instead of fitting.  Run it from cron after ingest (gridtail-cron does):\n"
    "ingest drops the cached fits of every site it stores new samples for.\n"
    "Pairs whose cached fit is still current are not fitted again.  The\n"
    "pairs, then the roots' replays below, are shared out over --threads\n"
    "threads (default one per CPU, at most 8), each with its own connection.\n"
    "If another process changes the store meanwhile, the run starts over (at\n"
    "most 3 times; then status 3).  With --model adaptive it also replays\n"
    "each root's collective (all its partners) over the last [advisor]\n"
    "adaptive_outcomes moments, --horizon ahead ([advisor] horizon_s), E[max]\n"
    "cut as --cut says, and keeps the errors and choice of --model adaptive\n"
    "beside the fits; with --model combined, its weights over the last\n"
    "max(500, 16 x lead) moments.  With --calibrate ([advisor]\n"
    "refit_calibration) it also\n"
    "replays each root's collective over the last --calibration W moments and\n"
    "keeps the calibration of the --quantile levels (0.5,0.9,0.99) of\n"
    "--model, --horizon ahead: for all the root's partners, and where\n"
    "[advisor] max_loss leaves some out, for those rank and place take; an\n"
    "answer over either collective with those options then reads it instead\n"
    "of replaying, until a new sample of the root arrives.  Those replays are\n"
    "the costliest part of a refit (docs/BENCHMARKS.md).  The options of a\n"
    "question (--at, --compute, --bytes, --format...) are estimate's, rank's\n"
    "and place's, not refit's.\n\n";
static const struct adv_cmd refit_cmd = {
    "refit", refit_usage,
    TAKES_FIT | OPT(AO_CALIBRATE) | OPT(AO_CALIB) | OPT(AO_QUANT) | OPT(AO_FALLBACK) |
        OPT(AO_THREADS) | OPT(AO_JSON),
    NULL};

/* Another host's refit holds the store's refit lock. */
static void refit_waits(const char *name)
{
    (void)name;
    fprintf(stderr, "gridtail refit: another refit of this store is running; waiting for it\n");
}

int cmd_refit(struct gt_cli *cli, int argc, char **argv)
{
    struct adv_args a = {0};
    int code = adv_parse(cli, &refit_cmd, argc, argv, &a);
    if (code >= 0)
        return code;
    if (a.ad.o.model == GT_ADV_LAST || a.ad.o.model == GT_ADV_EMPIRICAL)
        return gt_cli_usage_error("refit", "--model %s needs no fits (it reads the samples)",
                                  a.ad.model_name);
    struct gt_db *db = gt_cli_open_db(cli, GT_DB_EXISTING, &code);
    if (!db)
        return code;
    bool calibrate = (a.calibrate || cli->cfg.refit_calibration) && gt_adv_calibrates(&a.ad.o);
    struct gt_event_opts eo = gt_event_opts_of(&cli->cfg);
    struct gt_refit_opts ro = {&a.ad.o, calibrate, &eo, refit_waits};
    struct gt_refit_result run;
    struct gt_error err = {0};
    gt_interrupt_catch();
    int64_t t0 = gt_monotonic_ns();
    int rc = gt_refit_run(db, &ro, &run, &err);
    double elapsed = gt_elapsed_ms(t0);
    gt_db_close(db);
    if (rc == GT_EINTR) {
        fprintf(stderr, run.fits_saved ? "gridtail refit: interrupted: the fits are saved, "
                                         "the roots' replays (adaptive, calibration) are not\n"
                                       : "gridtail refit: interrupted: no fits saved, the fit "
                                         "cache is as it was\n");
        return GT_EXIT_INTERRUPTED;
    }
    if (rc)
        return gt_cli_fail(&err, rc);
    if (run.stale) {
        fprintf(stderr, "gridtail refit: the store changed during each of %d attempts; "
                "no fits cached\n", run.attempts);
        return GT_EXIT_IO;
    }
    if (a.fmt == AOUT_JSON)
        gt_cli_print_json(json_pack("{s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
                                    "s:f, s:{s:I, s:I, s:I}}",
                                    "window", (json_int_t)a.ad.o.window, "model",
                                    a.ad.model_name, "pairs",
                                    (json_int_t)(run.fitted + run.cached), "fitted",
                                    (json_int_t)run.fitted, "already_cached",
                                    (json_int_t)run.cached, "saved", (json_int_t)run.saved,
                                    "roots_tracked", (json_int_t)run.kept.tracked,
                                    "roots_calibrated", (json_int_t)run.kept.calibrated,
                                    "calibrations", (json_int_t)run.kept.calibrations,
                                    "answers_advanced", (json_int_t)run.kept.advanced,
                                    "elapsed_ms", elapsed,
                                    "events", "pairs", (json_int_t)run.event_pairs, "found",
                                    (json_int_t)run.events, "regime_changes",
                                    (json_int_t)run.regimes));
    else
        printf("refit: %zu pairs, window %zu, model %s: %zu fitted, %zu already cached, "
               "%zu fits saved", run.fitted + run.cached, a.ad.o.window, a.ad.model_name,
               run.fitted, run.cached, run.saved);
    if (a.fmt != AOUT_JSON && a.ad.o.model == GT_ADV_ADAPTIVE)
        printf(", %zu roots' forecast errors tracked %.0f s ahead", run.kept.tracked,
               a.ad.o.horizon_s);
    if (a.fmt != AOUT_JSON && calibrate)
        printf(", %zu roots' quantiles calibrated %.0f s ahead (%zu collectives; %zu "
               "answers' kept states gone on)", run.kept.calibrated, a.ad.o.horizon_s,
               run.kept.calibrations, run.kept.advanced);
    if (a.fmt != AOUT_JSON)
        printf(", events of %zu pairs found from their last scan on (%zu; %zu fit regime "
               "changes), %.0f ms\n", run.event_pairs, run.events, run.regimes, elapsed);
    return GT_EXIT_OK;
}

