/*
 * collectors.c - the format registry and helpers every format shares.
 */
#include "collector.h"
#include "base/util.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

extern const struct gt_collector gt_collector_amp_csv;
extern const struct gt_collector gt_collector_csv;
extern const struct gt_collector gt_collector_amp_json;
extern const struct gt_collector gt_collector_esmond;
extern const struct gt_collector gt_collector_matrix;
extern const struct gt_collector gt_collector_probe;
extern const struct gt_collector gt_collector_atlas;
extern const struct gt_collector gt_collector_pscheduler;
extern const struct gt_collector gt_collector_prometheus;

static const struct gt_collector *const registry[] = {
    &gt_collector_amp_csv,
    &gt_collector_csv,
    &gt_collector_amp_json,
    &gt_collector_esmond,
    &gt_collector_matrix,
    &gt_collector_probe,
    &gt_collector_atlas,
    &gt_collector_pscheduler,
    &gt_collector_prometheus,
    NULL,
};

const struct gt_collector *gt_collector_find(const char *name)
{
    for (size_t i = 0; registry[i]; i++)
        if (!strcmp(registry[i]->name, name))
            return registry[i];
    return NULL;
}

const struct gt_collector *const *gt_collector_all(void)
{
    return registry;
}

bool gt_collector_is_archive(const struct gt_collector *f)
{
    return f && f->fetch;
}

const char *gt_time_problem(int64_t ts, int64_t now, bool archive)
{
    if (now < INT64_MAX - GT_CLOCK_SKEW_S && ts > now + GT_CLOCK_SKEW_S)
        return "in the future, more than a day after now (a clock gone wrong?): not stored";
    if (archive && ts < GT_ARCHIVE_EPOCH)
        return "before 2000-01-01, older than any archive of this kind (a clock gone "
               "wrong?): not stored";
    return NULL;
}

const char *gt_site_name_problem(const char *s, size_t len)
{
    if (len == 0)
        return "empty site name";
    if (len > GT_SITE_NAME_MAX)
        return "site name longer than 255 bytes";
    if (!gt_utf8_valid(s, len))
        return "site name is not valid UTF-8";
    long cp = gt_first_control(s, len);
    if (cp >= 0 && cp < 0x100)
        return "site name holds a control character (C0, DEL or C1)";
    if (cp >= 0)
        return "site name holds a character that reorders or breaks the text (a bidirectional "
               "control, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069, U+061C, or U+2028, "
               "U+2029)";
    return NULL;
}

/* Window [a, b], or its halves (on step boundaries from a) while its
 * answer is too large and they are longer than least. */
static int window_or_halves(int64_t a, int64_t b, int64_t step, int64_t least,
                            int (*each)(void *ctx, int64_t a, int64_t b), void *ctx,
                            const struct gt_sink *sink, struct gt_error *err)
{
    int rc = each(ctx, a, b);
    int64_t steps = (b - a) / step;
    if (rc == GT_ETOOBIG && (steps < 1 || b - a < 2 * least)) {
        char why[sizeof err->msg], where[sizeof err->where];
        snprintf(why, sizeof why, "%s", err->msg);
        snprintf(where, sizeof where, "%s", err->where);
        gt_error_clear(err);
        return gt_error_set(err, rc, where, "%s even for [%lld, %lld], a %dth of a window: "
                            "raise [http] max_json_mb", why, (long long)a, (long long)b,
                            GT_WINDOW_SPLITS);
    }
    if (rc != GT_ETOOBIG)
        return rc;
    gt_error_clear(err);
    int64_t mid = a + (steps - 1) / 2 * step;
    if (sink)
        gt_note(sink, "the answer for [%lld, %lld] is too large: asked in halves",
                (long long)a, (long long)b);
    rc = window_or_halves(a, mid, step, least, each, ctx, sink, err);
    return rc ? rc : window_or_halves(mid + step, b, step, least, each, ctx, sink, err);
}

int gt_each_window(int64_t from, int64_t to, int64_t span, int64_t step,
                   int (*each)(void *ctx, int64_t a, int64_t b), void *ctx,
                   const struct gt_sink *sink, struct gt_error *err)
{
    int rc = GT_OK;
    int64_t least = span / GT_WINDOW_SPLITS > step ? span / GT_WINDOW_SPLITS : step;
    for (int64_t a = from; rc == GT_OK && a <= to;) {
        int64_t b = to - a > span - step ? a + span - step : to;
        rc = window_or_halves(a, b, step, least, each, ctx, sink, err);
        if (b == to)
            break;
        a = b + step;
    }
    return rc;
}

void gt_reject(const struct gt_sink *sink, const char *loc, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gt_text_safe(msg);   /* it may quote the record */
    sink->reject(sink->ctx, loc, msg);
}

void gt_rejectl(const struct gt_sink *sink, long line, const char *fmt, ...)
{
    char msg[512], loc[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gt_text_safe(msg);
    snprintf(loc, sizeof loc, "%ld", line);
    sink->reject(sink->ctx, loc, msg);
}

void gt_note(const struct gt_sink *sink, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gt_text_safe(msg);
    if (sink->note)
        sink->note(sink->ctx, msg);
}

int gt_input_slurp(const struct gt_input *in, const struct gt_collect_opts *o,
                   struct gt_buf *out, struct gt_error *err)
{
    if (!in->fp)
        return gt_error_set(err, GT_EINPUT, in->name, "is a directory, not a file");
    gt_buf_init(out, o->max_input_bytes ? o->max_input_bytes : (size_t)1 << 30);
    int rc = gt_buf_read_stream(out, in->fp);
    if (rc == GT_ETOOBIG)
        return gt_error_set(err, rc, in->name, "input larger than %zu bytes",
                            out->max);
    if (rc)
        return gt_error_set(err, rc, in->name, "read error");
    return GT_OK;
}

bool gt_looks_binary(const char *p, size_t len)
{
    /* Text formats never hold NUL or many control bytes; a stray invalid
     * UTF-8 byte in a record is that record's problem, not the file's. */
    if (len > 4096)
        len = 4096;
    if (memchr(p, '\0', len))
        return true;
    size_t control = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        control += (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
    }
    return control * 8 > len;
}
