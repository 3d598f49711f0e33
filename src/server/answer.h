/*
 * answer.h - what the server answers a request: a status and a JSON
 * document, or a text of a type (the dashboard's files, /metrics, SVG),
 * with the few headers some answers carry.  The error answers are
 * {"error": text, "field": name or null}; a library error (gt_error) is
 * mapped to its HTTP status here, and only here.
 */
#ifndef GT_ANSWER_H
#define GT_ANSWER_H

#include "base/error.h"

#include <jansson.h>
#include <stdbool.h>

struct gt_answer {
    unsigned status;          /* 0: no answer yet (a check let the request on) */
    json_t *doc;              /* owned */
    char allow[40];           /* 405: the methods the path takes ("GET, HEAD") */
    char *text;               /* malloc'd, owned, instead of doc (/metrics) */
    const char *type;         /* text's Content-Type (static) */
    bool page;                /* the dashboard's own files: a strict policy */
    bool challenge;           /* 401: say how to authenticate */
};

/* 200 with doc (takes ownership). */
struct gt_answer gt_answer_ok(json_t *doc);
/* 200 with text (takes ownership of the malloc'd text) of a type. */
struct gt_answer gt_answer_text(char *text, const char *type);
/* An error of status, naming field (NULL or "": none); the message is
 * cut at 1 KiB and made valid UTF-8 (it may quote a client's bytes). */
struct gt_answer gt_answer_fail(unsigned status, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A library error rc: its status (400, 422, 413, 503 when the store is
 * busy or gone, else 500); a usage error names err->where as the field. */
struct gt_answer gt_answer_err(const struct gt_error *err, int rc);

/* A request past one of [server]'s bounds: 422 naming the field. */
#define GT_TOO_MUCH(field, got, max, key)                                                \
    gt_answer_fail(422, field, "%s: %.15g is more than this server takes "             \
                   "(at most %.15g, [server] " key ")", field, (double)(got), (double)(max))

/* The document rendered as its text (the document freed), ending in a
 * newline; out of memory, a fixed 500. */
void gt_answer_render(struct gt_answer *a);

#endif
