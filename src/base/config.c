/*
 * config.c - table-driven INI configuration (redis.conf style: one table,
 * one loader).  Lines are "[section]", "key = value", blank, or comments
 * starting with '#' or ';'.
 */
#include "config.h"
#include "util.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum setting_type { SET_LONG, SET_DOUBLE, SET_PATH };

struct setting {
    const char *section;
    const char *key;
    enum setting_type type;
    size_t offset;
    long min, max;
    const char *def;
};

#define F(field) offsetof(struct gt_config, field)
static const struct setting settings[] = {
    {"database", "path", SET_PATH, F(db_path), 0, 0, ""},
    {"database", "url", SET_PATH, F(db_url), 0, 0, ""},
    {"database", "read_url", SET_PATH, F(db_read_url), 0, 0, ""},
    {"database", "busy_timeout_ms", SET_LONG, F(busy_timeout_ms), 0, 3600000, "300000"},
    {"database", "cache_mb", SET_LONG, F(cache_mb), 2, 65536, "256"},
    {"retention", "keep_days", SET_LONG, F(keep_days), 0, 1000000, "0"},
    {"http", "timeout_s", SET_LONG, F(http_timeout_s), 1, 86400, "120"},
    {"http", "connect_timeout_s", SET_LONG, F(http_connect_timeout_s), 1, 3600, "10"},
    {"http", "retries", SET_LONG, F(http_retries), 0, 20, "3"},
    {"http", "retry_delay_ms", SET_LONG, F(http_retry_delay_ms), 0, 600000, "1000"},
    {"http", "max_mb", SET_LONG, F(http_max_bytes_mb), 1, 65536, "512"},
    {"http", "max_json_mb", SET_LONG, F(http_max_json_mb), 1, 65536, "16"},
    {"http", "ca_file", SET_PATH, F(http_ca_file), 0, 0, ""},
    {"alerts", "timeout_s", SET_LONG, F(alerts_timeout_s), 1, 3600, "30"},
    {"http", "lookback_s", SET_LONG, F(http_lookback_s), 1, 100000000, "86400"},
    {"ingest", "max_errors", SET_LONG, F(max_errors), 0, 1000000000, "50"},
    {"ingest", "max_rows", SET_LONG, F(max_rows), 1, 2000000000, "20000000"},
    {"ingest", "spool_dir", SET_PATH, F(spool_dir), 0, 0, ""},
    {"estimate", "window", SET_LONG, F(window), 2, 100000000, "60"},
    {"advisor", "intra_site_ms", SET_DOUBLE, F(intra_site_ms), 0, 1000000, "0"},
    {"advisor", "stale_after_s", SET_LONG, F(stale_after_s), 1, 100000000, "3600"},
    {"advisor", "min_samples", SET_LONG, F(min_samples), 2, 100000000, "10"},
    {"advisor", "assume_symmetric", SET_LONG, F(assume_symmetric), 0, 1, "0"},
    {"advisor", "max_ks", SET_DOUBLE, F(max_ks), 0, 1, "0.2"},
    {"advisor", "quantile_margin", SET_DOUBLE, F(quantile_margin), 0, 10, "0.1"},
    {"advisor", "fallback_empirical", SET_LONG, F(fallback_empirical), 0, 1, "1"},
    {"advisor", "rto_ms", SET_DOUBLE, F(rto_ms), 1, 120000, "200"},
    {"advisor", "max_loss", SET_DOUBLE, F(max_loss), 0, 1, "0.10"},
    {"advisor", "horizon_s", SET_LONG, F(horizon_s), 1, 2592000, "600"},
    {"advisor", "adaptive_outcomes", SET_LONG, F(adaptive_outcomes), 1, 10000, "50"},
    {"advisor", "calibration_outcomes", SET_LONG, F(calibration_outcomes), 0, 10000, "3000"},
    {"advisor", "refit_calibration", SET_LONG, F(refit_calibration), 0, 1, "0"},
    {"advisor", "loggps", SET_PATH, F(loggps), 0, 0, "fast-ethernet"},
    {"advisor", "site_bandwidths", SET_PATH, F(site_bandwidths), 0, 0, ""},
    {"server", "listen", SET_PATH, F(server_listen), 0, 0, "127.0.0.1:8080"},
    {"server", "threads", SET_LONG, F(server_threads), 1, 1024, "4"},
    {"server", "read_threads", SET_LONG, F(server_read_threads), 1, 1024, "2"},
    {"server", "calib_states", SET_LONG, F(server_calib_states), 1, 100000, "256"},
    {"server", "calib_states_mb", SET_LONG, F(server_calib_states_mb), 1, 65536, "64"},
    {"server", "max_body_mb", SET_LONG, F(server_max_body_mb), 1, 4096, "16"},
    {"server", "timeout_s", SET_LONG, F(server_timeout_s), 1, 3600, "30"},
    {"server", "max_partners", SET_LONG, F(server_max_partners), 1, 100000, "1024"},
    {"server", "max_candidates", SET_LONG, F(server_max_candidates), 1, 10000000, "10000"},
    {"server", "max_pool", SET_LONG, F(server_max_pool), 2, 4096, "1024"},
    {"server", "max_top", SET_LONG, F(server_max_top), 1, 1000000, "1000"},
    {"server", "max_rank_partners", SET_LONG, F(server_max_rank_partners), 1, 100000000,
     "200000"},
    {"server", "max_exact_limit", SET_DOUBLE, F(server_max_exact_limit), 0, 1e12, "1e7"},
    {"server", "max_window", SET_LONG, F(server_max_window), 2, 1000000, "100000"},
    {"server", "save_fits", SET_LONG, F(server_save_fits), 0, 1, "0"},
    {"server", "ready_max_age_s", SET_LONG, F(server_ready_max_age_s), 0, 31536000, "0"},
    {"server", "request_budget_s", SET_LONG, F(server_request_budget_s), 1, 86400, "30"},
    {"server", "allowed_origins", SET_PATH, F(server_allowed_origins), 0, 0, ""},
    {"server", "allowed_hosts", SET_PATH, F(server_allowed_hosts), 0, 0, ""},
    {"server", "tokens_file", SET_PATH, F(server_tokens_file), 0, 0, ""},
    {"server", "read_auth", SET_LONG, F(server_read_auth), 0, 1, "0"},
    {"server", "max_connections", SET_LONG, F(server_max_connections), 1, 100000, "1000"},
    {"server", "max_connections_per_ip", SET_LONG, F(server_max_connections_per_ip), 1, 100000,
     "64"},
    {"server", "max_buffered_mb", SET_LONG, F(server_max_buffered_mb), 1, 65536, "256"},
    {"server", "max_buffered_per_client_mb", SET_LONG, F(server_max_buffered_per_client_mb), 1,
     65536, "64"},
    {"server", "max_request_kb", SET_LONG, F(server_max_request_kb), 1, 4194304, "4096"},
    {"server", "trusted_proxies", SET_PATH, F(server_trusted_proxies), 0, 0, ""},
    {"server", "push_wait_ms", SET_LONG, F(server_push_wait_ms), 0, 600000, "2000"},
    {"server", "header_timeout_s", SET_LONG, F(server_header_timeout_s), 1, 3600, "10"},
    {"server", "body_timeout_s", SET_LONG, F(server_body_timeout_s), 1, 86400, "60"},
    {"server", "tls_cert", SET_PATH, F(server_tls_cert), 0, 0, ""},
    {"server", "tls_key", SET_PATH, F(server_tls_key), 0, 0, ""},
    {"server", "tls_priorities", SET_PATH, F(server_tls_priorities), 0, 0,
     GT_TLS_PRIORITIES_DEFAULT},
    {"server", "max_status_pairs", SET_LONG, F(server_max_status_pairs), 1, 10000000, "10000"},
    {"server", "collectives", SET_PATH, F(server_collectives), 0, 0, ""},
    {"thresholds", "p99_warning_ms", SET_DOUBLE, F(th_p99_ms[0]), 0, 1e7, "0"},
    {"thresholds", "p99_critical_ms", SET_DOUBLE, F(th_p99_ms[1]), 0, 1e7, "0"},
    {"thresholds", "median_warning_ms", SET_DOUBLE, F(th_median_ms[0]), 0, 1e7, "0"},
    {"thresholds", "median_critical_ms", SET_DOUBLE, F(th_median_ms[1]), 0, 1e7, "0"},
    {"thresholds", "loss_warning", SET_DOUBLE, F(th_loss[0]), 0, 1, "0.02"},
    {"thresholds", "loss_critical", SET_DOUBLE, F(th_loss[1]), 0, 1, "0.10"},
    {"thresholds", "silent_s", SET_LONG, F(th_silent_s), 1, 100000000, "900"},
    {"thresholds", "samples", SET_LONG, F(th_samples), 0, 100000, "0"},
    {"thresholds", "burst_min", SET_LONG, F(th_burst_min), 2, 100000, "3"},
    {"thresholds", "outage_s", SET_LONG, F(th_outage_s), 1, 100000000, "300"},
    {"thresholds", "shift_min", SET_DOUBLE, F(th_shift_min), 0, 10, "0.01"},
    {"thresholds", "groups_file", SET_PATH, F(th_groups_file), 0, 0, ""},
};
#undef F

static int apply(struct gt_config *cfg, const struct setting *s,
                 const char *value, const char *where, struct gt_error *err)
{
    char *field = (char *)cfg + s->offset;
    if (s->type == SET_PATH) {
        size_t n = strlen(value);
        if (n >= GT_PATH_MAX)
            return gt_error_set(err, GT_EINPUT, where, "%s.%s: path too long",
                                s->section, s->key);
        memcpy(field, value, n + 1);
        return GT_OK;
    }
    if (s->type == SET_DOUBLE) {
        double d;
        if (!gt_parse_double(value, strlen(value), &d) || !(d >= s->min && d <= s->max))
            return gt_error_set(err, GT_EINPUT, where,
                                "%s.%s: '%s' is not a number in [%ld, %ld]",
                                s->section, s->key, value, s->min, s->max);
        *(double *)(void *)field = d;
        return GT_OK;
    }
    int64_t v;
    if (!gt_parse_i64(value, strlen(value), &v) || v < s->min || v > s->max)
        return gt_error_set(err, GT_EINPUT, where,
                            "%s.%s: '%s' is not an integer in [%ld, %ld]",
                            s->section, s->key, value, s->min, s->max);
    *(long *)(void *)field = (long)v;
    return GT_OK;
}

void gt_config_defaults(struct gt_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
        apply(cfg, &settings[i], settings[i].def, NULL, NULL);
}

static const struct setting *find_setting(const char *section, const char *key)
{
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
        if (!strcmp(settings[i].section, section) && !strcmp(settings[i].key, key))
            return &settings[i];
    return NULL;
}

static bool section_known(const char *section)
{
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
        if (!strcmp(settings[i].section, section))
            return true;
    return false;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' ||
                 s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

static int load_line(struct gt_config *cfg, char *line, char *section,
                     size_t section_size, const char *where,
                     struct gt_error *err)
{
    char *s = trim(line);
    if (*s == '\0' || *s == '#' || *s == ';')
        return GT_OK;
    if (*s == '[') {
        char *end = strchr(s, ']');
        if (!end || end[1] != '\0')
            return gt_error_set(err, GT_EINPUT, where, "malformed section header");
        *end = '\0';
        char *name = trim(s + 1);
        if (!section_known(name))
            return gt_error_set(err, GT_EINPUT, where, "unknown section [%s]", name);
        snprintf(section, section_size, "%s", name);
        return GT_OK;
    }
    char *eq = strchr(s, '=');
    if (!eq)
        return gt_error_set(err, GT_EINPUT, where, "expected 'key = value'");
    *eq = '\0';
    char *key = trim(s), *value = trim(eq + 1);
    if (!section[0])
        return gt_error_set(err, GT_EINPUT, where, "key '%s' outside a [section]", key);
    const struct setting *st = find_setting(section, key);
    if (!st)
        return gt_error_set(err, GT_EINPUT, where, "unknown key '%s' in [%s]",
                            key, section);
    return apply(cfg, st, value, where, err);
}

int gt_config_load(struct gt_config *cfg, const char *path, struct gt_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gt_error_set(err, GT_EIO, path, "cannot open config: %s",
                            strerror(errno));
    char line[8192], section[64] = "", where[GT_ERR_WHERE];
    struct gt_lines in;
    gt_lines_init(&in, f, path, 0);
    int rc = GT_OK, got;
    while (rc == GT_OK && (got = gt_lines_next(&in, line, sizeof line, err)) != 0) {
        snprintf(where, sizeof where, "%s", in.where);
        if (got < 0)
            rc = got == GT_ETOOBIG ? GT_EINPUT : got;
        else
            rc = load_line(cfg, line, section, sizeof section, where, err);
    }
    fclose(f);
    return rc;
}

void gt_config_dump(const struct gt_config *cfg, FILE *out)
{
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        const struct setting *s = &settings[i];
        const char *field = (const char *)cfg + s->offset;
        if (s->type == SET_PATH)
            fprintf(out, "%s.%s = %s\n", s->section, s->key, field);
        else if (s->type == SET_DOUBLE)
            fprintf(out, "%s.%s = %g\n", s->section, s->key,
                    *(const double *)(const void *)field);
        else
            fprintf(out, "%s.%s = %ld\n", s->section, s->key,
                    *(const long *)(const void *)field);
    }
}
