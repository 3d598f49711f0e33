/*
 * conformal.h - calibrating a forecast quantile by its own past misses:
 * online conformal prediction with adaptive conformal inference (Gibbs
 * and Candes, "Adaptive conformal inference under distribution shift",
 * NeurIPS 2021; METHOD.md section 5, "Calibrated quantiles").
 *
 * One calibrator follows one forecast quantile of nominal level p (say
 * the p99 of a root's collective time at one window and lead time).  Each
 * known outcome gives a score, log(actual / raw quantile): how far above
 * or below the model's quantile the outcome fell, as a factor, so that
 * one calibrator serves RTTs of 1 ms and of 1 s.  The calibrated quantile
 * is the raw one times exp(the level-a_t empirical quantile of the last
 * W scores), and a_t follows the misses: a_{t+1} = a_t + gamma (miss -
 * (1 - p)), miss = 1 when the outcome exceeded the quantile issued for it
 * (a_t kept in [0, 1]).  So a
 * model whose p99 is too low (or too high) is corrected by the factor it
 * has been off by, and a correction that still misses too often is
 * raised until it does not.
 */
#ifndef GT_CONFORMAL_H
#define GT_CONFORMAL_H

#include <stdbool.h>
#include <stddef.h>

#define GT_CONF_MAX_WINDOW 100000

struct gt_conf_opts {
    size_t window;   /* W: scores kept (the last W outcomes) */
    double gamma;    /* step of the level per outcome */
};

/* W = 3000, gamma = 0.001 (Gibbs and Candes used 0.005; a smaller step
 * holds better at long lead times, whose misses arrive late); docs/EVALUATION.md
 * measures them. */
extern const struct gt_conf_opts gt_conf_defaults;

struct gt_conf;

/* A calibrator for nominal level p in (0, 1); NULL opts: the defaults.
 * NULL on ENOMEM or a bad argument. */
struct gt_conf *gt_conf_new(double p, const struct gt_conf_opts *o);
void gt_conf_free(struct gt_conf *c);

/* The calibrated quantile for the raw one: raw itself while no outcome
 * is known, or when raw is not a positive finite number; while fewer
 * outcomes are known than the level needs (gt_conf_ready), raw raised by
 * the largest score if that is positive, never lowered. */
double gt_conf_adjust(const struct gt_conf *c, double raw);

/* Outcomes the calibration rests on (at most W). */
size_t gt_conf_count(const struct gt_conf *c);

/* Whether enough outcomes are known for the level asked: n >= p / (1 -
 * p) (99 for a p99). */
bool gt_conf_ready(const struct gt_conf *c);

/* The level a_t the scores are read at now (p at the start). */
double gt_conf_level(const struct gt_conf *c);

/* An outcome known: the raw quantile predicted for it, the quantile
 * issued then (gt_conf_adjust's answer at the time), and the actual
 * value.  Outcomes must come in the order the predictions were made.
 * A raw or actual value that is not positive and finite is skipped. */
void gt_conf_observe(struct gt_conf *c, double raw, double issued, double actual);

/* A calibrator's state as bytes (its level, the scores held in arrival
 * order), so that one suspended between two outcomes goes on later as if
 * it had never stopped; gt_conf_state_size bytes go to buf.
 * gt_conf_state_load makes a calibrator of level p and options o (NULL:
 * the defaults) from them: NULL when they are not a state of such a
 * calibrator, or on ENOMEM. */
size_t gt_conf_state_size(const struct gt_conf *c);
void gt_conf_state_save(const struct gt_conf *c, void *buf);
struct gt_conf *gt_conf_state_load(double p, const struct gt_conf_opts *o, const void *buf,
                                   size_t len);

#endif
