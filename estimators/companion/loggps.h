/*
 * loggps.h - message costs under the LogGPS model (METHOD.md section 4).
 *
 * Times in nanoseconds, sizes in bytes.  A message of k bytes is short
 * (k <= s: one packet), eager (s < k <= S) or rendezvous (k > S: REQ,
 * ACK, then the data).  p senders into one receiver share its bandwidth
 * (1/Gs and 1/Gl divided by p).  Parameter sets are files of
 * "name = value" lines; the paper's Myrinet and Fast Ethernet sets are
 * built in and bundled under etc/loggps/.  gt_loggps_fit estimates what
 * ping-pong times determine: the zero-byte time 2o' + L, the per-byte
 * slope of each regime and the breakpoints s and S.
 */
#ifndef GT_LOGGPS_H
#define GT_LOGGPS_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct gt_loggps {
    char name[64];
    double L, o;              /* latency, per-message overhead o' */
    double Oss, Ors;          /* per-byte send / receive overhead, k <= S */
    double Osl, Orl;          /* the same for k > S */
    double Gs, Gl;            /* per-byte gap: the first s bytes, the rest */
    double s, S;              /* one-packet limit, eager limit */
};

/* A built-in set by name ("myrinet", "fast-ethernet"), or NULL. */
const struct gt_loggps *gt_loggps_builtin(const char *name);

/* Read "name = value" lines ('#' comments); every parameter is required.
 * Errors name the file, line and key. */
int gt_loggps_read(FILE *f, const char *fname, struct gt_loggps *out, struct gt_error *err);

/* A built-in set's name, else a file to read (errors name it). */
int gt_loggps_load(const char *spec, struct gt_loggps *out, struct gt_error *err);

/* "short", "eager" or "rendezvous". */
const char *gt_loggps_regime(const struct gt_loggps *m, double k);

/* Time from the send call to the data at the receiver, p senders sharing
 * the receiver; d = tr - ts (the receive call's time minus the send's). */
double gt_loggps_time(const struct gt_loggps *m, double k, double p, double d);

/* The MPI call times of the paper's Table 4 for the call times ts, tr
 * (d = tr - ts); a wait issued `after` ns past its nonblocking call. */
struct gt_loggps_calls {
    double send, isend, recv, irecv, wait_send, wait_recv;
};
void gt_loggps_calls(const struct gt_loggps *m, double k, double p, double d, double after,
                     struct gt_loggps_calls *out);

/* ---- fitting ping-pong times ---- */

struct gt_loggps_fit {
    double a0;                /* 2o' + L: the zero-byte one-way time */
    double c[3];              /* each regime's intercept (c[0] = a0); the
                                 model has c[1] = a0 + s (b[0] - b[1]) and
                                 c[2] = c[1] + 2 a0 (the REQ and ACK) */
    double b[3];              /* per-byte slope: short (Oss+Gs+Ors), eager
                                 (Oss+Gl+Ors), rendezvous (Osl+Gl+Orl);
                                 NAN for a regime without samples */
    double s_est;             /* s where the short and eager lines meet */
    double s_lo, s_hi;        /* s lies in [s_lo, s_hi]; INFINITY if no
                                 eager or rendezvous sample */
    double S_lo, S_hi;        /* the same for S */
    int regimes;              /* 1 to 3 */
    double rms, max_rel;      /* residuals: root mean square, largest |r|/t */
    double L, o;              /* with a known o': L = a0 - 2o'; else NAN */
};

/* Piecewise linear least squares in k (a line per regime) with the
 * breakpoints searched over the observed sizes, the number of regimes
 * chosen by BIC.  t[i] is the
 * one-way time of k[i] bytes (half a ping-pong).  o_known: o' if
 * measured (separates L), else NAN.  Needs >= 4 samples, 2 sizes. */
int gt_loggps_fit(const double *k, const double *t, size_t n, double o_known,
                  struct gt_loggps_fit *out, struct gt_error *err);

/* The one-way time the fit predicts for k bytes. */
double gt_loggps_fit_time(const struct gt_loggps_fit *f, double k);

#endif
