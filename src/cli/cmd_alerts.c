/*
 * cmd_alerts.c - `gridtail alerts`: the pairs' states against
 * [thresholds], sent as firing and resolved alerts to Alertmanager or a
 * webhook (advisor/alerts.h), for sites without Prometheus; cron-friendly.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "advisor/alerts.h"
#include "base/jsonout.h"
#include "collectors/http.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char alerts_usage[] =
    "usage: gridtail alerts [--alertmanager URL] [--webhook URL] [--state FILE]\n"
    "                       [--interval S] [--dry-run] [--json]\n"
    "\n"
    "Judge every pair as `pairs --status` does ([thresholds]) and send what\n"
    "is wrong as alerts, named as etc/prometheus/gridtail-rules.yml names\n"
    "them (GridtailPairNoData, GridtailPairLossCritical, ...; labels\n"
    "alertname, src, dst, severity, check; the reason as the summary).  A\n"
    "condition that has cleared since the last run is sent once as resolved;\n"
    "a firing one keeps its first startsAt and ends interval x 3 ahead, so\n"
    "that Alertmanager resolves it by itself when the runs stop.  Run it from\n"
    "cron every --interval seconds.\n"
    "\n"
    "  --alertmanager URL  POST to URL/api/v2/alerts (Alertmanager's API v2)\n"
    "  --webhook URL       POST Alertmanager's webhook payload (version 4) to URL\n"
    "  --state FILE        what fired last run (default: the store's path +\n"
    "                      .alerts.json; required with a PostgreSQL store);\n"
    "                      written atomically once every target took the alerts\n"
    "  --interval S        how often the runs come, seconds (default 300)\n"
    "  --dry-run           print the alerts, send nothing, keep the state\n"
    "  --json              print the alerts sent\n"
    "\n"
    "Exit status 0 when every target took the alerts (whatever they say), 3\n"
    "when one could not be reached or refused them (the state is then kept,\n"
    "so the next run sends the resolved ones again).\n";

struct alerts_args {
    const char *alertmanager, *webhook, *state;
    long interval;
    bool dry_run, json;
};

static int parse(int argc, char **argv, struct alerts_args *a)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"alertmanager", required_argument, NULL, 'a'},
        {"webhook", required_argument, NULL, 'w'}, {"state", required_argument, NULL, 's'},
        {"interval", required_argument, NULL, 'i'}, {"dry-run", no_argument, NULL, 'n'},
        {"json", no_argument, NULL, 'j'}, {NULL, 0, NULL, 0}};
    int c;
    a->interval = 300;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': return gt_cli_help(alerts_usage);
        case 'a': a->alertmanager = optarg; break;
        case 'w': a->webhook = optarg; break;
        case 's': a->state = optarg; break;
        case 'i':
            if (!gt_opt_long("alerts", "--interval", optarg, 10, 86400, &a->interval))
                return GT_EXIT_USAGE;
            break;
        case 'n': a->dry_run = true; break;
        case 'j': a->json = true; break;
        default: return gt_cli_usage_error("alerts", "bad option");
        }
    }
    if (optind < argc)
        return gt_cli_usage_error("alerts", "unexpected argument '%s'", argv[optind]);
    if (!a->alertmanager && !a->webhook && !a->dry_run)
        return gt_cli_usage_error("alerts", "--alertmanager URL, --webhook URL or --dry-run "
                                  "is needed");
    return -1;
}

/* The previous run's state: NULL and GT_EXIT_OK when there is none. */
static int read_state(const char *path, json_t **out)
{
    json_error_t jerr;
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? GT_EXIT_OK
                               : (fprintf(stderr, "gridtail: %s: %s\n", path, strerror(errno)),
                                  GT_EXIT_IO);
    *out = json_loadf(f, 0, &jerr);
    fclose(f);
    if (!*out || !gt_alerts_state_valid(*out)) {
        fprintf(stderr, "gridtail: %s:%d: %s (remove it to start afresh)\n", path,
                *out ? 1 : jerr.line, *out ? "not a gridtail alerts state" : jerr.text);
        json_decref(*out);
        *out = NULL;
        return GT_EXIT_INPUT;
    }
    return GT_EXIT_OK;
}

static int post(const struct gt_cli *cli, const char *url, const json_t *body)
{
    const struct gt_config *cfg = &cli->cfg;
    /* a target's attempts end within [alerts] timeout_s however it fails
       (under [http]'s archive timeouts a hung one held a run 488 s, past
       cron's interval): each attempt its share, at most two retries,
       0.5 s then 1 s apart */
    long attempts = 1 + (cfg->http_retries < 2 ? cfg->http_retries : 2);
    long each = cfg->alerts_timeout_s / attempts > 0 ? cfg->alerts_timeout_s / attempts : 1;
    struct gt_http_opts h = {each < cfg->http_timeout_s ? each : cfg->http_timeout_s,
                             each < cfg->http_connect_timeout_s ? each
                                                                : cfg->http_connect_timeout_s,
                             attempts - 1,
                             cfg->http_retry_delay_ms < 500 ? cfg->http_retry_delay_ms : 500,
                             1 << 20, cfg->http_ca_file, 0};
    char *text = gt_json_dumps(body, JSON_COMPACT);
    struct gt_buf answer;
    struct gt_error err = {0};
    long status = 0;
    gt_buf_init(&answer, 1 << 20);
    int rc = text ? gt_http_post(url, &h, "application/json", NULL, text, strlen(text),
                                 &status, &answer, &err)
                  : gt_error_set(&err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK && (status < 200 || status > 299))
        rc = gt_error_set(&err, GT_EIO, url, "HTTP %ld: %.200s", status,
                          answer.len ? answer.data : "");
    free(text);
    gt_buf_free(&answer);
    if (rc)
        gt_error_print(&err, rc);
    return rc ? GT_EXIT_IO : GT_EXIT_OK;
}

/* Every target takes the alerts: an exit code. */
static int send_all(const struct gt_cli *cli, const struct alerts_args *a, const json_t *alerts)
{
    int code = GT_EXIT_OK;
    if (a->alertmanager) {
        size_t n = strlen(a->alertmanager);
        bool whole = n >= 14 && !strcmp(a->alertmanager + n - 14, "/api/v2/alerts");
        char *url = malloc(n + 16);
        json_t *body = gt_alerts_postable(alerts);
        if (!url || !body) {
            fprintf(stderr, "gridtail: out of memory\n");
            code = GT_EXIT_IO;
        } else {
            snprintf(url, n + 16, "%s%s", a->alertmanager,
                     whole ? "" : a->alertmanager[n - 1] == '/' ? "api/v2/alerts"
                                                                : "/api/v2/alerts");
            code = post(cli, url, body);
        }
        free(url);
        json_decref(body);
    }
    if (a->webhook && code == GT_EXIT_OK) {
        json_t *body = gt_alerts_webhook(alerts);
        code = body ? post(cli, a->webhook, body) : GT_EXIT_IO;
        json_decref(body);
    }
    return code;
}

static int save_state(const char *path, json_t *state)
{
    char *text = gt_json_dumps(state, JSON_INDENT(1));
    int code = text ? gt_cli_write_atomic(path, text, strlen(text)) : GT_EXIT_IO;
    free(text);
    return code;
}

/* The counts, and where they went: "sent" only when sent (sent: every
 * target took them; the failure itself was said above). */
static void summary(const json_t *alerts, const struct alerts_args *a, bool sent)
{
    size_t i, firing = 0, resolved = 0;
    json_t *x;
    json_array_foreach((json_t *)alerts, i, x) {
        bool f = !strcmp(json_string_value(json_object_get(x, "status")), "firing");
        firing += f;
        resolved += !f;
    }
    bool some = firing || resolved, told = !a->dry_run && some;
    printf("gridtail alerts: %zu firing, %zu resolved%s%s%s%s%s\n", firing, resolved,
           a->dry_run ? " (dry run: nothing sent)" : "",
           told && sent && a->alertmanager ? ", sent to Alertmanager" : "",
           told && sent && a->webhook ? ", sent to the webhook" : "",
           told && !sent ? ", NOT sent (see above; the state is kept as it was)" : "",
           !a->dry_run && !some ? " (nothing to send)" : "");
}

static int run(struct gt_cli *cli, const struct alerts_args *a, const char *state_path)
{
    struct gt_thresholds t;
    struct gt_error err = {0};
    int code, rc = gt_thresholds_load(&t, &cli->cfg, (size_t)cli->cfg.window, &err);
    if (rc)
        return gt_cli_fail(&err, rc);
    json_t *previous, *state = NULL, *alerts = NULL;
    struct gt_pair_state *v = NULL;
    size_t n = 0;
    int64_t now = (int64_t)time(NULL);
    struct gt_db *db = NULL;
    if ((code = read_state(state_path, &previous)) == GT_EXIT_OK &&
        (db = gt_cli_open_db(cli, GT_DB_READ, &code))) {
        rc = gt_pair_states(db, &t, now, NULL, NULL, &v, &n, &err);
        gt_db_close(db);
        if (rc)
            code = gt_cli_fail(&err, rc);
        else if (!(alerts = gt_alerts_build(v, n, previous, now, a->interval, &state)))
            code = (fprintf(stderr, "gridtail: out of memory\n"), GT_EXIT_IO);
    }
    if (alerts && !a->dry_run && json_array_size(alerts))
        code = send_all(cli, a, alerts);
    bool sent = code == GT_EXIT_OK;
    if (alerts && code == GT_EXIT_OK && !a->dry_run)
        code = save_state(state_path, state);
    if (alerts && (a->json || a->dry_run))
        gt_cli_print_json(json_incref(alerts));
    if (alerts && !a->json)
        summary(alerts, a, sent);
    json_decref(alerts);
    json_decref(state);
    json_decref(previous);
    gt_pair_states_free(v, n);
    gt_thresholds_free(&t);
    return code;
}

int cmd_alerts(struct gt_cli *cli, int argc, char **argv)
{
    struct alerts_args a = {0};
    int code = parse(argc, argv, &a);
    if (code >= 0)
        return code;
    char path[GT_PATH_MAX + 16];
    if (a.state)
        snprintf(path, sizeof path, "%s", a.state);
    else if (gt_db_is_file(cli->db_path))
        snprintf(path, sizeof path, "%s.alerts.json", cli->db_path);
    else
        return gt_cli_usage_error("alerts", "a PostgreSQL store: give --state FILE");
    return run(cli, &a, path);
}
