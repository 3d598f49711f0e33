/*
 * answer.c - see answer.h.
 */
#define _DEFAULT_SOURCE   /* strdup */
#include "answer.h"
#include "base/jsonout.h"
#include "base/util.h"

#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gt_answer gt_answer_ok(json_t *doc)
{
    return (struct gt_answer){.status = MHD_HTTP_OK, .doc = doc};
}

struct gt_answer gt_answer_text(char *text, const char *type)
{
    return (struct gt_answer){.status = MHD_HTTP_OK, .text = text, .type = type};
}

static unsigned http_status(int code)
{
    switch (code) {
    case GT_EUSAGE:
    case GT_EINPUT: return MHD_HTTP_BAD_REQUEST;
    case GT_ENOTFOUND: return MHD_HTTP_UNPROCESSABLE_CONTENT;
    case GT_ETOOBIG: return MHD_HTTP_CONTENT_TOO_LARGE;
    default: return MHD_HTTP_INTERNAL_SERVER_ERROR;
    }
}

struct gt_answer gt_answer_fail(unsigned status, const char *field, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char text[4 * sizeof msg];   /* it may quote a client's bytes, not UTF-8 */
    gt_utf8_escape(msg, text, sizeof text);
    json_t *doc = json_pack("{s:s, s:o}", "error", text, "field",
                            field && *field ? json_string(field) : json_null());
    return (struct gt_answer){.status = status, .doc = doc};
}

struct gt_answer gt_answer_err(const struct gt_error *err, int rc)
{
    unsigned status = http_status(rc);
    bool is_field = rc == GT_EUSAGE;
    /* the store busy, or its database server gone: try again later */
    if (status == MHD_HTTP_INTERNAL_SERVER_ERROR &&
        (strstr(err->msg, "locked") || strstr(err->msg, "server is not available")))
        status = MHD_HTTP_SERVICE_UNAVAILABLE;
    /* where a store or file error happened is the operator's business (the
       database path), not the client's: the request log has the status */
    bool say_where = !is_field && err->where[0] && rc != GT_EDB && rc != GT_EIO &&
                     rc != GT_ESCHEMA;
    return gt_answer_fail(status, is_field ? err->where : NULL, "%s%s%s",
                          say_where ? err->where : "", say_where ? ": " : "",
                          err->msg[0] ? err->msg : gt_strerror(rc));
}

/* Rendered on the thread that computed the answer: the rendering is a
 * fifth of an answer. */
void gt_answer_render(struct gt_answer *a)
{
    if (a->text)
        return;
    char *text = a->doc ? gt_json_dumps(a->doc, JSON_INDENT(2)) : NULL;
    json_decref(a->doc);
    a->doc = NULL;
    if (!text) {
        static const char oom[] = "{\"error\": \"out of memory\", \"field\": null}\n";
        a->status = MHD_HTTP_INTERNAL_SERVER_ERROR;
        text = strdup(oom);
    }
    size_t len = text ? strlen(text) : 0;
    if (text && len && text[len - 1] != '\n') {
        char *t = realloc(text, len + 2);
        if (t) {
            t[len++] = '\n';
            t[len] = 0;
            text = t;
        }
    }
    a->text = text;
}
