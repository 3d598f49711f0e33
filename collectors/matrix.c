/*
 * matrix.c - all-pairs snapshot matrices: a directory or an archive
 * (.tar.xz, .tar.gz, .zip... via libarchive; a single plain file is one
 * slice) of files, one per time slice, entry (i, j) = RTT from site i to
 * site j, whitespace separated.
 *
 * The source has no timestamps and no site names, so the slice numbered t
 * (the number ending its file name, else its position in name order) is
 * stamped start + (t - 1) * interval, and sites are named from --sites or
 * PREFIX001...; every assumption is reported through sink->note.  The
 * diagonal (a site to itself) is not a measurement and is skipped.
 */
#define _DEFAULT_SOURCE
#include "archive_lazy.h"
#include "collector.h"
#include "base/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct slice {
    char *name;
    char *data;
    size_t len;
    long number;    /* trailing number of the name, -1 if none */
    long t;         /* 1-based slice index used for the timestamp */
    bool whole;     /* the input itself (a plain file), not a member of it */
};

struct slices {
    struct slice *v;
    size_t n, cap;
    size_t bytes, max_bytes;
};

struct sitenames {
    char **name;
    size_t n;
};

static void slices_free(struct slices *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].name);
        free(s->v[i].data);
    }
    free(s->v);
}

static long trailing_number(const char *name)
{
    size_t n = strlen(name), i = n;
    while (i > 0 && isdigit((unsigned char)name[i - 1]))
        i--;
    if (i == n || n - i > 9)
        return -1;
    return strtol(name + i, NULL, 10);
}

static int slices_add(struct slices *s, const char *name, char *data, size_t len,
                      struct gt_error *err, const char *where)
{
    if (len > s->max_bytes - s->bytes) {
        free(data);
        return gt_error_set(err, GT_ETOOBIG, where, "matrices larger than %zu bytes",
                            s->max_bytes);
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        struct slice *v = realloc(s->v, cap * sizeof *v);
        if (!v) {
            free(data);
            return gt_error_set(err, GT_ENOMEM, where, "out of memory");
        }
        s->v = v;
        s->cap = cap;
    }
    struct slice *sl = &s->v[s->n];
    sl->name = strdup(name);
    if (!sl->name) {
        free(data);
        return gt_error_set(err, GT_ENOMEM, where, "out of memory");
    }
    sl->data = data;
    sl->len = len;
    sl->whole = false;
    sl->number = trailing_number(name);
    s->n++;
    s->bytes += len;
    return GT_OK;
}

/* A single plain (maybe compressed) file is one slice named after the
 * file, less a compression suffix, so that the number ending its name is
 * its slice number however it is passed (SeattleData_2.xz -> 2). */
static const char *raw_name(const char *input, char *buf, size_t size)
{
    static const char *const suffixes[] = {".xz", ".gz", ".bz2", ".zst", ".lz4", ".lzma", ".Z"};
    const char *base = strrchr(input, '/');
    snprintf(buf, size, "%s", base ? base + 1 : input);
    size_t len = strlen(buf);
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t sl = strlen(suffixes[i]);
        if (len > sl && !strcmp(buf + len - sl, suffixes[i])) {
            buf[len - sl] = '\0';
            break;
        }
    }
    return buf;
}

static int read_archive(const struct gt_input *in, struct slices *s,
                        struct gt_error *err)
{
    int loaded = archive_lazy_load(err);
    if (loaded)
        return loaded;
    struct archive *a = archive_read_new();
    if (!a)
        return gt_error_set(err, GT_ENOMEM, in->name, "out of memory");
    archive_read_support_filter_all(a);
    archive_read_support_format_all(a);
    archive_read_support_format_raw(a);
    int rc = GT_OK;
    if (archive_read_open_FILE(a, in->fp) != ARCHIVE_OK) {
        rc = gt_error_set(err, GT_EINPUT, in->name, "not a matrix archive: %s",
                          archive_error_string(a));
        goto out;
    }
    struct archive_entry *e;
    int r;
    while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        if (archive_entry_filetype(e) != AE_IFREG)
            continue;
        const char *name = archive_entry_pathname(e);
        char own[256];
        if (archive_format(a) == ARCHIVE_FORMAT_RAW || !name)
            name = raw_name(in->name, own, sizeof own);
        const char *base = strrchr(name, '/');
        base = base ? base + 1 : name;
        if (base[0] == '.')
            continue;   /* ._* resource forks, hidden files */
        struct gt_buf b;
        gt_buf_init(&b, s->max_bytes - s->bytes);
        char chunk[65536];
        la_ssize_t n;
        while (rc == GT_OK && (n = archive_read_data(a, chunk, sizeof chunk)) > 0)
            if (gt_buf_append(&b, chunk, (size_t)n))
                rc = gt_error_set(err, GT_ETOOBIG, in->name,
                                  "matrices larger than %zu bytes", s->max_bytes);
        if (rc == GT_OK && n < 0)
            rc = gt_error_set(err, GT_EINPUT, in->name, "%s: %s", name,
                              archive_error_string(a));
        if (rc == GT_OK && !b.data)
            rc = gt_buf_append(&b, "", 0);
        if (rc != GT_OK) {
            gt_buf_free(&b);
            goto out;
        }
        if ((rc = slices_add(s, name, b.data, b.len, err, in->name)) != GT_OK)
            goto out;
        s->v[s->n - 1].whole = archive_format(a) == ARCHIVE_FORMAT_RAW;
    }
    if (r != ARCHIVE_EOF)
        rc = gt_error_set(err, GT_EINPUT, in->name, "not a matrix archive: %s",
                          archive_error_string(a));
out:
    archive_read_free(a);
    return rc;
}

static int read_directory(const struct gt_input *in, struct slices *s,
                          struct gt_error *err)
{
    DIR *d = opendir(in->path);
    if (!d)
        return gt_error_set(err, GT_EIO, in->name, "cannot open directory: %s",
                            strerror(errno));
    int rc = GT_OK;
    struct dirent *de;
    while (rc == GT_OK && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[GT_ERR_WHERE];
        snprintf(path, sizeof path, "%s/%s", in->path, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        FILE *f = fopen(path, "rb");
        if (!f) {
            rc = gt_error_set(err, GT_EIO, path, "cannot open: %s", strerror(errno));
            break;
        }
        struct gt_buf b;
        gt_buf_init(&b, s->max_bytes - s->bytes);
        int r = gt_buf_read_stream(&b, f);
        fclose(f);
        if (r) {
            gt_buf_free(&b);
            rc = gt_error_set(err, r, path, "%s", r == GT_ETOOBIG ?
                              "matrices too large" : "read error");
            break;
        }
        rc = slices_add(s, de->d_name, b.data, b.len, err, path);
    }
    closedir(d);
    return rc;
}

static int by_number(const void *a, const void *b)
{
    const struct slice *x = a, *y = b;
    if (x->number != y->number)
        return (x->number > y->number) - (x->number < y->number);
    return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct slice *)a)->name, ((const struct slice *)b)->name);
}

/* Order slices and give each its t; returns true if names were numbered. */
static bool order_slices(struct slices *s, long slice)
{
    if (slice > 0) {   /* --slice, checked to go with a single file */
        s->v[0].t = slice;
        return true;
    }
    bool numbered = true;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].number < 1)
            numbered = false;
    qsort(s->v, s->n, sizeof *s->v, numbered ? by_number : by_name);
    for (size_t i = 0; i < s->n; i++)
        s->v[i].t = numbered ? s->v[i].number : (long)i + 1;
    return numbered;
}

static void sites_free(struct sitenames *sn)
{
    for (size_t i = 0; i < sn->n; i++)
        free(sn->name[i]);
    free(sn->name);
}

static int load_site_file(const char *path, struct sitenames *sn, struct gt_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gt_error_set(err, GT_EIO, path, "cannot open sites file: %s",
                            strerror(errno));
    char line[1024], where[GT_ERR_WHERE];
    size_t cap = 0;
    struct gt_lines in;
    gt_lines_init(&in, f, path, 0);
    int rc = GT_OK, got;
    while (rc == GT_OK && (got = gt_lines_next(&in, line, sizeof line, err)) != 0) {
        if (got < 0) {
            rc = got == GT_ETOOBIG ? GT_EINPUT : got;
            break;
        }
        snprintf(where, sizeof where, "%s", in.where);
        const char *p = line;
        size_t len = strlen(line);
        gt_trim_span(&p, &len);
        const char *why = gt_site_name_problem(p, len);
        if (why) {
            rc = gt_error_set(err, GT_EINPUT, where, "%s", why);
            break;
        }
        if (sn->n == cap) {
            cap = cap ? cap * 2 : 128;
            char **v = realloc(sn->name, cap * sizeof *v);
            if (!v) {
                rc = gt_error_set(err, GT_ENOMEM, where, "out of memory");
                break;
            }
            sn->name = v;
        }
        sn->name[sn->n] = strndup(p, len);
        if (!sn->name[sn->n++])
            rc = gt_error_set(err, GT_ENOMEM, where, "out of memory");
    }
    fclose(f);
    if (rc == GT_OK && sn->n == 0)
        rc = gt_error_set(err, GT_EINPUT, path, "sites file names no sites");
    return rc;
}

static int make_site_names(const char *prefix, size_t n, struct sitenames *sn,
                           struct gt_error *err)
{
    int width = 3;
    for (size_t k = n; k >= 1000; k /= 10)
        width++;
    sn->name = calloc(n ? n : 1, sizeof *sn->name);
    if (!sn->name)
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (strlen(prefix) > GT_SITE_NAME_MAX - 12)
        return gt_error_set(err, GT_EUSAGE, NULL, "--site-prefix too long");
    for (size_t i = 0; i < n; i++) {
        char buf[GT_SITE_NAME_MAX + 32];
        snprintf(buf, sizeof buf, "%s%0*zu", prefix, width > 12 ? 12 : width, i + 1);
        sn->name[i] = strdup(buf);
        sn->n = i + 1;
        if (!sn->name[i])
            return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    return GT_OK;
}

static size_t split_ws(const char *p, const char *end, const char **tok,
                       size_t *tlen, size_t max);

/* The number of values on the first non-blank line: the site count. */
static size_t count_columns(const char *p, size_t len)
{
    const char *end = p + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = split_ws(p, nl ? nl : end, NULL, NULL, 0);
        if (n)
            return n;
        p = nl ? nl + 1 : end;
    }
    return 0;
}

/* Split a line into whitespace-separated spans; returns how many (may
 * exceed max, only max stored). */
static size_t split_ws(const char *p, const char *end, const char **tok,
                       size_t *tlen, size_t max)
{
    size_t n = 0;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p >= end)
            break;
        const char *s = p;
        while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
            p++;
        if (n < max) {
            tok[n] = s;
            tlen[n] = (size_t)(p - s);
        }
        n++;
    }
    return n;
}

struct matrix_ctx {
    const struct gt_collect_opts *o;
    const struct gt_sink *sink;
    const struct sitenames *sites;
    double unit_ms;
    int64_t start, interval;
    const char **tok;
    size_t *tlen;
    long positive, below_one;   /* values > 0, and of those < 1 (unit check) */
};

static int emit_row(struct matrix_ctx *c, const struct slice *sl, size_t row,
                    long lineno, size_t ntok, int64_t ts)
{
    const struct sitenames *sn = c->sites;
    char loc[GT_ERR_WHERE];
    if (sl->whole)
        snprintf(loc, sizeof loc, "%ld", lineno);
    else
        snprintf(loc, sizeof loc, "%s:%ld", sl->name, lineno);
    if (row >= sn->n) {
        gt_reject(c->sink, loc, "row %zu beyond the %zu sites", row + 1, sn->n);
        return GT_OK;
    }
    if (ntok != sn->n) {
        gt_reject(c->sink, loc, "expected %zu values, found %zu", sn->n, ntok);
        return GT_OK;
    }
    struct gt_sample s = {0};
    s.member = sl->whole ? NULL : sl->name;
    s.line = lineno;
    s.src = sn->name[row];
    s.src_len = strlen(s.src);
    s.ts = ts;
    for (size_t j = 0; j < ntok; j++) {
        if (j == row)
            continue;
        double v;
        if (!gt_parse_double(c->tok[j], c->tlen[j], &v) || !isfinite(v) || v < 0) {
            gt_reject(c->sink, loc, "column %zu: '%.*s': not a non-negative number",
                      j + 1, (int)(c->tlen[j] > 40 ? 40 : c->tlen[j]), c->tok[j]);
            continue;
        }
        c->positive += v > 0;
        c->below_one += v > 0 && v < 1;
        s.dst = sn->name[j];
        s.dst_len = strlen(s.dst);
        s.rtt_ms = (v == 0 && c->o->zero_is_missing) ? NAN : v * c->unit_ms;
        int rc = c->sink->emit(c->sink->ctx, &s);
        if (rc)
            return rc;
    }
    return GT_OK;
}

static int parse_slice(struct matrix_ctx *c, const struct slice *sl)
{
    const char *p = sl->data, *end = sl->data + sl->len;
    int64_t ts;
    if (!gt_i64_add_mul(c->start, sl->t - 1, c->interval, &ts)) {
        gt_reject(c->sink, sl->whole ? "1" : sl->name,
                  "slice %ld: --start + (t-1) x --interval is out of range", sl->t);
        return GT_OK;
    }
    size_t row = 0;
    long lineno = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        lineno++;
        size_t ntok = split_ws(p, e, c->tok, c->tlen, c->sites->n);
        p = nl ? nl + 1 : end;
        if (ntok == 0)
            continue;
        int rc = emit_row(c, sl, row++, lineno, ntok, ts);
        if (rc)
            return rc;
    }
    if (row < c->sites->n)
        gt_reject(c->sink, sl->whole ? "end" : sl->name, "only %zu rows for %zu sites", row,
                  c->sites->n);
    return GT_OK;
}

static int check_slices(const struct gt_input *in, const struct slices *s,
                        struct gt_error *err)
{
    if (s->n == 0)
        return gt_error_set(err, GT_EINPUT, in->name, "no matrix files found");
    for (size_t i = 0; i < s->n; i++)
        if (gt_looks_binary(s->v[i].data, s->v[i].len))
            return gt_error_set(err, GT_EINPUT, in->name,
                                "not a matrix: %s holds binary data", s->v[i].name);
    return GT_OK;
}

static const char *t_source(const struct gt_collect_opts *o, const struct slices *s,
                            bool numbered)
{
    if (o->slice > 0)
        return "--slice";
    if (numbered)
        return "the number ending each file name";
    return s->n == 1 ? "nothing: no number ends the file name, so t = 1 (give --slice N)"
                     : "file name order";
}

static void note_assumptions(const struct matrix_ctx *c, const struct gt_input *in,
                             const struct slices *s, bool numbered)
{
    const struct gt_collect_opts *o = c->o;
    char t0[32];
    gt_format_time(c->start, t0, sizeof t0);
    gt_note(c->sink, "%s: %zu slices, %zu sites (%s .. %s)%s", in->name, s->n,
            c->sites->n, c->sites->name[0], c->sites->name[c->sites->n - 1],
            o->sites_file ? " from --sites" : "");
    gt_note(c->sink, "%s: slice t stamped %s + (t-1) x %lld s (%s%s; t from %s)",
            in->name, t0, (long long)c->interval,
            o->start_set ? "--start" : "default start, no --start given",
            o->interval_set ? ", --interval" : ", default interval",
            t_source(o, s, numbered));
    gt_note(c->sink, "%s: values x %g = ms (%s); off-diagonal 0 %s; diagonal skipped",
            in->name, c->unit_ms, o->unit_set ? "--unit" : "default unit ms",
            o->zero_is_missing ? "= lost (--zero-is-missing)" : "stored as 0 ms");
}

static int parse(const struct gt_input *in, const struct gt_collect_opts *o,
                 const struct gt_sink *sink, struct gt_error *err)
{
    struct slices s = {0};
    s.max_bytes = o->max_input_bytes ? o->max_input_bytes : (size_t)1 << 31;
    struct sitenames sn = {0};
    struct matrix_ctx c = {o, sink, &sn, o->unit_set ? o->unit_ms : 1.0,
                           o->start_set ? o->start : 0,
                           o->interval_set ? o->interval : 60, NULL, NULL, 0, 0};
    int rc = in->fp ? read_archive(in, &s, err) : read_directory(in, &s, err);
    if (rc == GT_OK)
        rc = check_slices(in, &s, err);
    if (rc != GT_OK)
        goto out;
    if (o->slice > 0 && s.n != 1) {
        rc = gt_error_set(err, GT_EUSAGE, in->name,
                          "--slice numbers a single matrix file; this input holds %zu", s.n);
        goto out;
    }
    bool numbered = order_slices(&s, o->slice);
    if (o->sites_file)
        rc = load_site_file(o->sites_file, &sn, err);
    else
        rc = make_site_names(o->site_prefix ? o->site_prefix : "s",
                             count_columns(s.v[0].data, s.v[0].len), &sn, err);
    if (rc == GT_OK && sn.n < 2)
        rc = gt_error_set(err, GT_EINPUT, in->name,
                          "not a matrix: %s has fewer than 2 rows", s.v[0].name);
    if (rc != GT_OK)
        goto out;
    c.tok = malloc(sn.n * sizeof *c.tok);
    c.tlen = malloc(sn.n * sizeof *c.tlen);
    if (!c.tok || !c.tlen) {
        rc = gt_error_set(err, GT_ENOMEM, in->name, "out of memory");
        goto out;
    }
    note_assumptions(&c, in, &s, numbered);
    for (size_t i = 0; i < s.n && rc == GT_OK; i++)
        rc = parse_slice(&c, &s.v[i]);
    /* Wide-area RTTs below 1 ms are rare; nearly all of them is seconds
     * read as ms.  Said, not refused: a LAN matrix is possible. */
    if (rc == GT_OK && !o->unit_set && c.positive >= 4 && c.below_one * 10 >= c.positive * 9)
        gt_note(sink, "%s: warning: %ld of %ld values are below 1 but read as ms: if they "
                "are seconds, ingest again with --unit s (and --on-conflict replace)",
                in->name, c.below_one, c.positive);
out:
    free(c.tok);
    free(c.tlen);
    sites_free(&sn);
    slices_free(&s);
    return rc;
}

const struct gt_collector gt_collector_matrix = {
    "matrix", "all-pairs RTT matrices, one file per time slice (directory or archive)",
    parse, NULL, true, NULL};
