/*
 * ingest_push.c - `gridtail ingest FORMAT INPUT... --push URL`: a remote
 * collector parses its inputs as ingest does and sends the samples to a
 * central `gridtail serve` (POST URL/v1/samples, a write token) instead
 * of a local store.  What cannot be sent (the server unreachable, busy,
 * or refusing the token) is kept in the spool directory and sent first by
 * the next push: nothing is lost, and the server's idempotent store
 * means nothing is doubled when an answer, not the request, was lost.
 * What the server refuses whole (400, 413, 415: a proxy's answer, a server
 * of another version or with a smaller body limit, a spool file edited
 * by hand) is kept in the spool's
 * rejected/ for a person to look at: never deleted, never retried.
 * A URL of a format that fetches for itself (a site's Prometheus, its
 * perfSONAR archive, RIPE Atlas) is read from where this host keeps its
 * cursor, in the spool directory: the central store's cursor is not this
 * host's to read, and the server's idempotent store makes an overlap
 * harmless.
 */
#define _DEFAULT_SOURCE
#include "cli.h"
#include "collectors/http.h"
#include "collectors/push.h"
#include "db/ingest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* one request's CSV: below the server's default body limit (16 MiB) */
#define PUSH_MAX_BYTES ((size_t)15 << 20)
#define PUSH_SPOOL_FILES 10000
#define REJECTED_DIR "rejected"

struct push {
    char endpoint[2048];
    char token[512];
    const struct gt_http_opts *http;
    const char *spool;
    long max_errors, shown;
    bool quiet, down;         /* down: the server could not be reached */
    const char *input;        /* the input being parsed, for its rejects */
    json_t *list;             /* --json: one object per input or spooled file */
};

struct where {
    const char *input;
    const long *origin;       /* pushed CSV line -> the input's line, or NULL */
    size_t nlines;
};

static int read_token(const char *path, char *out, size_t size)
{
    const char *env = getenv("GRIDTAIL_TOKEN");
    if (!path) {
        snprintf(out, size, "%s", env ? env : "");
        return out[0] ? GT_EXIT_OK : gt_cli_usage_error("ingest", "--push needs a write token: "
                                                       "--token-file F or $GRIDTAIL_TOKEN");
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "gridtail: %s: %s\n", path, strerror(errno));
        return GT_EXIT_IO;
    }
    struct gt_lines in;
    struct gt_error err = {0};
    gt_lines_init(&in, f, path, 0);
    int got = gt_lines_next(&in, out, size, &err);
    fclose(f);
    out[strcspn(out, " \t\r")] = 0;
    if (got < 0) {
        fprintf(stderr, "gridtail: %s: token: %s\n", in.where, err.msg);
        return gt_exit_code(got == GT_ETOOBIG ? GT_EINPUT : got);
    }
    if (got == 0 || !out[0]) {
        fprintf(stderr, "gridtail: %s:1: token: expected the token on the first line\n", path);
        return GT_EXIT_INPUT;
    }
    return GT_EXIT_OK;
}

static void on_reject(void *ctx, const char *loc, const char *msg)
{
    struct push *p = ctx;
    if (p->shown++ < p->max_errors)
        fprintf(stderr, "gridtail: %s:%s: %s\n", p->input, loc, msg);
}

/* The server's "line N" as the input's FILE:LINE when known. */
static void say_rejects(struct push *p, const struct where *w, const json_t *list,
                        const char *what)
{
    size_t i;
    const json_t *r;
    json_array_foreach(list, i, r) {
        const char *at = json_string_value(json_object_get(r, "where"));
        const char *why = json_string_value(json_object_get(r, "reason"));
        long line = 0;
        if (at && sscanf(at, "line %ld", &line) == 1 && w->origin && line > 0 &&
            (size_t)line < w->nlines && w->origin[line] > 0)
            line = w->origin[line];
        if (p->shown++ < p->max_errors)
            fprintf(stderr, "gridtail: %s:%ld: %s%s\n", w->input, line, what, why ? why : "");
    }
}

/* The spool directory, or (refused) its rejected/, made if missing. */
static int spool_dir(const struct push *p, bool refused, char *dir, size_t size)
{
    snprintf(dir, size, "%s%s", p->spool, refused ? "/" REJECTED_DIR : "");
    if ((mkdir(p->spool, 0700) != 0 && errno != EEXIST) ||
        (refused && mkdir(dir, 0700) != 0 && errno != EEXIST)) {
        fprintf(stderr, "gridtail: %s: %s\n", dir, strerror(errno));
        return GT_EXIT_IO;
    }
    return GT_EXIT_OK;
}

/* Keep csv in the spool (refused: in its rejected/) as
 * push-TIME-PID-N.csv, written atomically and synced. */
static int spool_keep(const struct push *p, const struct gt_buf *csv, bool refused, char *path,
                      size_t size)
{
    static int seq;
    char dir[4096];
    int code = spool_dir(p, refused, dir, sizeof dir);
    if (code != GT_EXIT_OK)
        return code;
    snprintf(path, size, "%s/push-%lld-%ld-%d.csv", dir, (long long)time(NULL),
             (long)getpid(), seq++);
    return gt_cli_write_atomic(path, csv->data, csv->len);
}

/* A spooled file the server refused, moved into rejected/. */
static void spool_reject(const struct push *p, const char *path, const char *name)
{
    char dir[4096], to[8300];
    if (spool_dir(p, true, dir, sizeof dir) != GT_EXIT_OK)
        return;
    snprintf(to, sizeof to, "%s/%s", dir, name);
    if (rename(path, to) != 0) {
        fprintf(stderr, "gridtail: %s: cannot move it to %s: %s; it stays and is sent again\n",
                path, dir, strerror(errno));
        return;
    }
    gt_cli_sync_dir(dir);
    gt_cli_sync_dir(p->spool);
    fprintf(stderr, "gridtail: %s: the server refused it; kept as %s: correct it and push it "
            "with `gridtail ingest csv %s --push URL`\n", path, to, to);
}

/* Send one CSV body.  Returns the exit code of its outcome; *sent says
 * whether the server took it (stored or judged every record), *refused
 * whether it refused the body whole. */
static int send_csv(struct push *p, const struct where *w, const struct gt_buf *csv,
                    bool *sent, bool *refused)
{
    struct gt_buf answer;
    struct gt_error err = {0};
    long status = 0;
    gt_buf_init(&answer, 1 << 20);
    *sent = *refused = false;
    int rc = p->down ? gt_error_set(&err, GT_EIO, p->endpoint, "not reachable a moment ago")
                     : gt_http_post(p->endpoint, p->http, "text/csv", p->token, csv->data,
                                    csv->len, &status, &answer, &err);
    json_t *doc = rc == GT_OK ? json_loadb(answer.data ? answer.data : "", answer.len, 0, NULL)
                              : NULL;
    gt_buf_free(&answer);
    int code;
    if (rc == GT_OK && status == 200 && json_is_object(doc)) {
        *sent = true;
        long stored = (long)json_integer_value(json_object_get(doc, "stored"));
        long dup = (long)json_integer_value(json_object_get(doc, "duplicates"));
        long conf = (long)json_integer_value(json_object_get(doc, "conflicts"));
        long rej = (long)json_integer_value(json_object_get(doc, "rejected"));
        say_rejects(p, w, json_object_get(doc, "rejects"), "");
        say_rejects(p, w, json_object_get(doc, "conflicts_list"), "conflict: ");
        if (!p->quiet && !p->list)
            printf("%s: pushed: stored %ld, duplicates %ld, conflicts %ld, rejected %ld\n",
                   w->input, stored, dup, conf, rej);
        if (p->list)
            json_array_append_new(p->list, json_pack("{s:s, s:s, s:I, s:I, s:I, s:I}", "input",
                                                     w->input, "status", "sent", "stored",
                                                     (json_int_t)stored, "duplicates",
                                                     (json_int_t)dup, "conflicts",
                                                     (json_int_t)conf, "rejected",
                                                     (json_int_t)rej));
        code = rej || conf ? GT_EXIT_INPUT : GT_EXIT_OK;
    } else if (rc == GT_OK && (status == 400 || status == 413 || status == 415)) {
        *refused = true;   /* sent again as it is, it would be refused again */
        fprintf(stderr, "gridtail: %s: the server refused the samples (HTTP %ld): %s\n",
                w->input, status, json_string_value(json_object_get(doc, "error")));
        code = GT_EXIT_INPUT;
    } else {
        if (rc != GT_OK && status == 0)
            p->down = true;
        const char *said = json_string_value(json_object_get(doc, "error"));
        if (rc != GT_OK)
            fprintf(stderr, "gridtail: %s: not sent: %s\n", w->input, err.msg);
        else
            fprintf(stderr, "gridtail: %s: not sent: HTTP %ld: %s\n", w->input, status,
                    said ? said : "no reason given");
        code = GT_EXIT_IO;
    }
    json_decref(doc);
    return code;
}

/* Send what earlier pushes kept, oldest first; a file sent is removed. */
static int drain(struct push *p)
{
    char **names = malloc(PUSH_SPOOL_FILES * sizeof *names);
    if (!names)
        return GT_EXIT_IO;
    size_t n = gt_cli_spool_files(p->spool, "push-", names, PUSH_SPOOL_FILES);
    int worst = GT_EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", p->spool, names[i] ? names[i] : "");
        struct gt_buf csv;
        gt_buf_init(&csv, PUSH_MAX_BYTES + 4096);
        FILE *f = names[i] ? fopen(path, "rb") : NULL;
        int rc = f ? gt_buf_read_stream(&csv, f) : GT_EIO;
        if (f)
            fclose(f);
        bool sent = false, refused = false;
        struct where w = {path, NULL, 0};
        int code = rc == GT_OK ? send_csv(p, &w, &csv, &sent, &refused) : GT_EXIT_IO;
        if (sent) {
            unlink(path);
            if (!p->quiet && !p->list)
                printf("%s: a spooled push, sent and removed\n", path);
        } else if (refused) {
            spool_reject(p, path, names[i]);
        }
        worst = code > worst ? code : worst;
        gt_buf_free(&csv);
        free(names[i]);
    }
    free(names);
    return worst;
}

/* ---- the cursors of fetched URLs, one file each in the spool ---- */

/* spool/cursor-HASH for key (FNV-1a 64; the file names its key). */
static void cursor_path(const struct push *p, const char *key, char *path, size_t size)
{
    uint64_t h = 14695981039346656037ULL;
    for (const unsigned char *c = (const unsigned char *)key; *c; c++)
        h = (h ^ *c) * 1099511628211ULL;
    snprintf(path, size, "%s/cursor-%016llx", p->spool, (unsigned long long)h);
}

/* The cursor kept for key: false when none (or the file is another's). */
static bool cursor_read(const char *path, const char *key, int64_t *ts)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = strlen(key);
    char *line = malloc(n + 2);
    long long t = 0;
    bool ok = line && fgets(line, (int)n + 2, f) && !strncmp(line, key, n) &&
              line[n] == '\n' && fscanf(f, "%lld", &t) == 1;
    free(line);
    fclose(f);
    *ts = t;
    return ok;
}

static int cursor_write(const struct push *p, const char *path, const char *key, int64_t ts)
{
    char dir[4096];
    int code = spool_dir(p, false, dir, sizeof dir);
    struct gt_buf text;
    gt_buf_init(&text, strlen(key) + 64);
    if (code == GT_EXIT_OK && gt_buf_printf(&text, "%s\n%lld\n", key, (long long)ts) == GT_OK)
        code = gt_cli_write_atomic(path, text.data, text.len);
    gt_buf_free(&text);
    return code;
}

/* Send a batch, else keep it in the spool (refused: in rejected/, for a
 * person).  *safe: its samples are the server's or kept in a file. */
static int deliver(struct push *p, const struct where *w, const struct gt_push_batch *b,
                   bool *safe)
{
    bool sent, refused;
    int code = send_csv(p, w, &b->csv, &sent, &refused);
    char kept[8300];
    *safe = sent;
    if (!sent && spool_keep(p, &b->csv, refused, kept, sizeof kept) == GT_EXIT_OK) {
        /* refused ones too: fetching them again would only refuse them again */
        *safe = true;
        fprintf(stderr, refused ? "gridtail: %s: %ld samples kept in %s for a person to "
                                  "look at: the server refused them\n"
                                : "gridtail: %s: %ld samples kept in %s: the next push "
                                  "sends them\n",
                w->input, b->samples, kept);
    }
    return code;
}

/* A fetched range's parts, delivered as they fill. */
struct parts {
    struct push *p;
    int worst;
    bool safe;   /* every part so far */
};

static void part_reject(void *ctx, const char *loc, const char *msg)
{
    on_reject(((struct parts *)ctx)->p, loc, msg);
}

static int deliver_part(void *ctx, const struct gt_push_batch *b)
{
    struct parts *parts = ctx;
    struct where w = {parts->p->input, NULL, 0};
    bool safe;
    int code = deliver(parts->p, &w, b, &safe);
    parts->worst = code > parts->worst ? code : parts->worst;
    parts->safe = parts->safe && safe;
    return GT_OK;
}

/* What a fetched range is, when not the plain "from the cursor to now":
 * a cursor ahead of the clock set aside, or a range that asks nothing. */
static void tell_range(const struct push *p, const struct gt_ingest_opts *o, bool has,
                       int64_t cursor, int64_t start)
{
    char a[32], b[32];
    if (p->quiet)
        return;
    if (!o->since_set && gt_ingest_cursor_ahead(o, has, cursor)) {
        gt_format_time(cursor, a, sizeof a);
        fprintf(stderr, "gridtail: %s: note: this host's cursor, %s, is more than a day ahead "
                "of the clock (a sample from a wrong clock, kept before): set aside, the range "
                "asked starts at the look-back\n", p->input, a);
    }
    if (start > o->now) {
        gt_format_time(start, a, sizeof a);
        gt_format_time(o->now, b, sizeof b);
        fprintf(stderr, "gridtail: %s: note: the range is empty: it would start at %s (%s), "
                "after its end, now (%s); nothing new to ask for\n", p->input, a,
                o->since_set ? "--since" : "the cursor + 1", b);
    }
}

/* The samples of a fetched URL from after its cursor (--since, the
 * look-back) to now, full parts delivered on the way; key and cursor get
 * where its cursor is kept. */
static int fetch_batch(struct parts *parts, const struct gt_ingest_opts *o, const char *input,
                       struct gt_push_batch *b, struct gt_buf *key, char *cursor,
                       size_t cursor_size, struct gt_error *err)
{
    struct push *p = parts->p;
    struct gt_collect_opts c = o->collect;
    struct gt_buf url;
    gt_buf_init(&url, 8192);
    int64_t last = 0;
    int rc = gt_ingest_source_key(input, o, key, err);
    if (rc == GT_OK && (rc = gt_buf_printf(key, "#push=%s", p->endpoint)))   /* a server's own */
        rc = gt_error_set(err, rc, input, "cannot name its cursor: %s", gt_strerror(rc));
    if (rc == GT_OK) {
        cursor_path(p, key->data, cursor, cursor_size);
        bool has = cursor_read(cursor, key->data, &last);
        c.range_from = gt_ingest_url_start(o, has, last);
        c.range_to = o->now;
        tell_range(p, o, has, last, c.range_from);
        rc = gt_url_expand(input, c.src, c.dst, NULL, NULL, &url, err);
    }
    if (rc == GT_OK)
        rc = gt_push_fetch(o->format, url.data, &c, &o->http, PUSH_MAX_BYTES, b, part_reject,
                           deliver_part, parts, err);
    gt_buf_free(&url);
    return rc;
}

static int push_input(struct push *p, const struct gt_ingest_opts *o, const char *input)
{
    bool url = !strncmp(input, "http://", 7) || !strncmp(input, "https://", 8);
    if (url && !o->format->fetch)
        return gt_cli_usage_error("ingest", "--push sends what this host parses from files, "
                                  "stdin, probes, or the URLs of the archives atlas, "
                                  "pscheduler and prometheus read; a %s URL is best ingested "
                                  "where it is stored", o->format->name);
    struct gt_push_batch b = {0};
    struct gt_error err = {0};
    struct gt_buf key;
    char cursor[4200] = "";
    gt_buf_init(&key, 8192);
    p->shown = 0;
    p->input = strcmp(input, "-") ? input : "<stdin>";
    struct parts parts = {p, GT_EXIT_OK, true};
    int rc = url ? fetch_batch(&parts, o, input, &b, &key, cursor, sizeof cursor, &err)
                 : gt_push_parse(o->format, input, &o->collect, PUSH_MAX_BYTES, &b, on_reject,
                                 p, &err);
    int code;
    if (rc) {
        code = gt_cli_fail(&err, rc);   /* the parts delivered stay delivered */
        code = parts.worst > code ? parts.worst : code;
    } else {
        struct where w = {p->input, b.origin, b.lines};
        long refused_here = p->shown;   /* records the format refused before sending */
        bool safe = true;
        /* the last part, unless it is empty after parts went */
        code = b.samples || b.all_samples == b.samples ? deliver(p, &w, &b, &safe) : GT_EXIT_OK;
        code = parts.worst > code ? parts.worst : code;
        if (refused_here && code == GT_EXIT_OK)
            code = GT_EXIT_INPUT;
        /* the cursor moves past samples the server has or a file keeps */
        /* ... never past the range's end (now): what came stamped later
         * (within the clock skew) is asked again, a duplicate then */
        if (url && safe && parts.safe && b.all_samples > 0 &&
            cursor_write(p, cursor, key.data, b.max_ts < o->now ? b.max_ts : o->now))
            code = code > GT_EXIT_IO ? code : GT_EXIT_IO;
        if (p->shown > p->max_errors)
            fprintf(stderr, "gridtail: %s: %ld more rejected records not shown\n", w.input,
                    p->shown - p->max_errors);
    }
    gt_push_batch_free(&b);
    gt_buf_free(&key);
    return code;
}

int gt_cli_push(struct gt_cli *cli, const struct gt_ingest_opts *o, const char *url,
                const char *token_file, const char *spool, char **inputs, int n, bool json,
                bool quiet, long max_errors)
{
    struct push p = {.http = o->http.timeout_s ? &o->http : NULL, .spool = spool,
                     .max_errors = max_errors, .quiet = quiet};
    (void)cli;
    if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
        return gt_cli_usage_error("ingest", "--push: '%s' is not an http(s):// URL", url);
    size_t len = strlen(url);
    snprintf(p.endpoint, sizeof p.endpoint, "%.*s/v1/samples",
             (int)(len && url[len - 1] == '/' ? len - 1 : len), url);
    int worst = read_token(token_file, p.token, sizeof p.token);
    if (worst != GT_EXIT_OK)
        return worst;
    p.http = &o->http;
    if (json)
        p.list = json_array();
    worst = drain(&p);
    for (int i = 0; i < n; i++) {
        int code = push_input(&p, o, inputs[i]);
        worst = code > worst ? code : worst;
    }
    if (json)
        gt_cli_print_json(json_pack("{s:o}", "pushed", p.list));
    return worst;
}
