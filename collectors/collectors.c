/*
 * collectors.c - the format registry and helpers every format shares.
 */
#include "collector.h"
#include "base/util.h"

#include <stdarg.h>
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

int gt_each_window(int64_t from, int64_t to, int64_t span, int64_t step,
                   int (*each)(void *ctx, int64_t a, int64_t b), void *ctx)
{
    int rc = GT_OK;
    for (int64_t a = from; rc == GT_OK && a <= to;) {
        int64_t b = to - a > span - step ? a + span - step : to;
        rc = each(ctx, a, b);
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
