/*
 * config.h - the gridtail configuration: one table describes every setting
 * (section, key, type, range, default), and the INI loader, the defaults
 * and `gridtail config` all read that table.  etc/gridtail.conf documents
 * every key.
 */
#ifndef GT_CONFIG_H
#define GT_CONFIG_H

#include "error.h"

#include <stdio.h>

#define GT_PATH_MAX 4096

/* TLS 1.2 and 1.3 only, forward-secret key exchanges only (no static RSA),
 * the server's order of preference: GnuTLS's priority string */
#define GT_TLS_PRIORITIES_DEFAULT "SECURE128:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-RSA:-MAC-ALL:+AEAD:%SERVER_PRECEDENCE"

struct gt_config {
    char db_path[GT_PATH_MAX];      /* [database] path; "" = not set */
    char db_url[GT_PATH_MAX];       /* [database] url (postgresql://...); wins over path */
    char db_read_url[GT_PATH_MAX];  /* [database] read_url: serve's reads (a standby) */
    long busy_timeout_ms;           /* [database] busy_timeout_ms */
    long cache_mb;                  /* [database] cache_mb (ingest cache) */
    long keep_days;                 /* [retention] keep_days; 0 = keep all */
    long http_timeout_s;            /* [http] timeout_s */
    long http_connect_timeout_s;    /* [http] connect_timeout_s */
    long http_retries;              /* [http] retries */
    long http_retry_delay_ms;       /* [http] retry_delay_ms (doubles) */
    long alerts_timeout_s;          /* [alerts] timeout_s: a target's attempts, all */
    long http_max_bytes_mb;         /* [http] max_mb */
    long http_max_json_mb;          /* [http] max_json_mb: a JSON answer decoded at once */
    char http_ca_file[GT_PATH_MAX]; /* [http] ca_file; "" = system store */
    long http_lookback_s;           /* [http] lookback_s: {start} of a new source */
    long max_errors;                /* [ingest] max_errors printed/input */
    long max_rows;                  /* [ingest] max_rows: records per input */
    char spool_dir[GT_PATH_MAX];    /* [ingest] spool_dir; "" = DB path + .spool */
    long window;                    /* [estimate] window (samples) */
    double intra_site_ms;           /* [advisor] intra_site_ms */
    long stale_after_s;             /* [advisor] stale_after_s */
    long min_samples;               /* [advisor] min_samples */
    long assume_symmetric;          /* [advisor] assume_symmetric: 0 or 1 */
    double max_ks;                  /* [advisor] max_ks: a poorer fit is flagged */
    double quantile_margin;         /* [advisor] quantile_margin: beyond the window's
                                       quantile bounds by more, a fit misfits */
    long fallback_empirical;        /* [advisor] fallback_empirical: 0 or 1 */
    double rto_ms;                  /* [advisor] rto_ms: TCP's retransmission timeout */
    double max_loss;                /* [advisor] max_loss: rank/place leave lossier out */
    long horizon_s;                 /* [advisor] horizon_s: --model adaptive's lead */
    long adaptive_outcomes;         /* [advisor] adaptive_outcomes: its H */
    long calibration_outcomes;      /* [advisor] calibration_outcomes: W, 0 off */
    long refit_calibration;         /* [advisor] refit_calibration: refit keeps
                                       each root's calibration (0 or 1) */
    char loggps[GT_PATH_MAX];       /* [advisor] loggps: set for --bytes */
    char site_bandwidths[GT_PATH_MAX];  /* [advisor] site_bandwidths: a
                                       sites file; "" = not set */
    char server_listen[GT_PATH_MAX];    /* [server] listen: ADDR:PORT */
    long server_threads;            /* [server] threads: requests at once */
    long server_read_threads;       /* [server] read_threads: the plain reads' workers */
    long server_calib_states;       /* [server] calib_states: copies kept in memory */
    long server_calib_states_mb;    /* [server] calib_states_mb: their bytes at most */
    long server_max_body_mb;        /* [server] max_body_mb */
    long server_timeout_s;          /* [server] timeout_s: idle connections */
    /* [server] bounds on one request's work: partners of a placement,
       candidates of a rank, sites of a place pool, answers returned, the
       exact search's candidate sets, samples per pair fit */
    long server_max_partners, server_max_candidates, server_max_pool, server_max_top;
    long server_max_rank_partners;  /* [server] max_rank_partners: of a rank's candidates, in all */
    double server_max_exact_limit;
    long server_max_window;
    long server_save_fits;          /* [server] save_fits: 1 lets requests fill the fit cache */
    long server_ready_max_age_s;    /* [server] ready_max_age_s: /readyz wants a sample
                                       this recent (0: any) */
    long server_request_budget_s;   /* [server] request_budget_s: a rank or place
                                       stops here and answers with what it has */
    char server_allowed_hosts[GT_PATH_MAX];    /* [server] allowed_hosts: names Host
                                                  may carry beside IP addresses and
                                                  localhost (else 421) */
    char server_allowed_origins[GT_PATH_MAX];  /* [server] allowed_origins: web
                                       origins that may call the API, comma list */
    char server_tokens_file[GT_PATH_MAX];  /* [server] tokens_file: SCOPE SHA256HEX lines */
    long server_read_auth;          /* [server] read_auth: 1 = reads need a token too
                                       (0: open to loopback clients) */
    long server_max_connections;    /* [server] max_connections: open at once, in all */
    long server_max_connections_per_ip;   /* [server] max_connections_per_ip */
    long server_max_buffered_mb;    /* [server] max_buffered_mb: request bodies held
                                       in memory at once, in all */
    long server_max_buffered_per_client_mb;   /* [server] max_buffered_per_client_mb:
                                       of those, what one client address may hold */
    long server_max_request_kb;     /* [server] max_request_kb: a body of the advisor
                                       endpoints (estimate, rank, place) */
    char server_trusted_proxies[GT_PATH_MAX];   /* [server] trusted_proxies: addresses
                                       exempt from the per-address caps */
    long server_push_wait_ms;       /* [server] push_wait_ms: a push's wait for the
                                       store's write lock before 503 */
    char server_tls_cert[GT_PATH_MAX], server_tls_key[GT_PATH_MAX];   /* PEM: HTTPS */
    char server_tls_priorities[GT_PATH_MAX];   /* [server] tls_priorities: GnuTLS's
                                                  priority string */
    long server_header_timeout_s;   /* [server] header_timeout_s: a request's headers
                                       must be in by then, however slowly they come */
    long server_body_timeout_s;     /* [server] body_timeout_s: and its body by then */
    long server_max_status_pairs;   /* [server] max_status_pairs: pairs judged at once by
                                       /v1/status (without src or dst) and /metrics/pairs */
    char server_collectives[GT_PATH_MAX];   /* [server] collectives: "ROOT:A,B,...;
                                       ..." whose E[max] and p99 /metrics/pairs gives */
    /* [thresholds]: a pair's status (src/advisor/status.h), [0] warning and
       [1] critical, 0 = no such limit */
    double th_p99_ms[2];            /* p99_warning_ms, p99_critical_ms */
    double th_median_ms[2];         /* median_warning_ms, median_critical_ms */
    double th_loss[2];              /* loss_warning, loss_critical: fractions */
    long th_silent_s;               /* silent_s: no sample for this long = no data */
    long th_samples;                /* samples: the newest this many (0: [estimate] window) */
    long th_burst_min;              /* burst_min: lost probes in a row that are an event */
    long th_outage_s;               /* outage_s: lost this long is an outage */
    double th_shift_min;            /* shift_min: a level shift event moves the median
                                       by this fraction at least */
    char th_groups_file[GT_PATH_MAX];   /* groups_file: per group limits */
};

/* Fill every field with its default. */
void gt_config_defaults(struct gt_config *cfg);

/* Load an INI file over the current values.  Unknown sections or keys,
 * values out of range and malformed lines are errors naming file:line. */
int gt_config_load(struct gt_config *cfg, const char *path,
                   struct gt_error *err);

/* Print "section.key = value" for every setting. */
void gt_config_dump(const struct gt_config *cfg, FILE *out);

#endif
