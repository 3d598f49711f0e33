/*
 * jsonout.c - a jansson tree as text, its reals as the shortest text that
 * reads back to them.
 *
 * The layout follows jansson 2.14's dump.c so that a document without
 * reals is byte for byte what json_dumps wrote: with JSON_INDENT(n) a
 * container opens onto a new line indented n spaces deeper and closes on
 * its parent's indentation, items end in ",\n"; without an indent, items
 * are separated by ", " (or "," when JSON_COMPACT) and an object's key
 * by ": " (or ":" when JSON_COMPACT); empty containers are "[]" and "{}";
 * objects keep their insertion order.  Strings escape '"', '\\' and the
 * control characters (\b \f \n \r \t by name, the rest as \u00XX in
 * upper-case hex); '/' and non-ASCII are written as they are.  (jansson
 * refuses a string that is not UTF-8, which only its *_nocheck setters
 * make and gridtail does not use; this writes its bytes.)
 *
 * A tree is written into one buffer and then, for a file, with one
 * fwrite: no callback a token, as jansson does; integers without printf.
 */
#include "jsonout.h"

#include "base/error.h"
#include "base/numfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define JSON_TAKEN_FLAGS                                                                  \
    (JSON_MAX_INDENT | JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER |             \
     JSON_REAL_PRECISION(31))
#define MAX_DEPTH 2048

struct writer {
    struct gt_buf *b;
    int indent;     /* spaces a level, 0 for none */
    bool compact;
    int rc;         /* the first error of b */
    size_t used;    /* bytes of chunk not yet in b */
    char chunk[4096];
};

static int flush(struct writer *w)
{
    if (w->rc == GT_OK && w->used)
        w->rc = gt_buf_append(w->b, w->chunk, w->used);
    w->used = 0;
    return w->rc;
}

/* Tokens are small and many (a served answer has thousands): they are
 * gathered in chunk and reach b a few kilobytes at a time. */
static int put(struct writer *w, const char *s, size_t n)
{
    if (n > sizeof w->chunk - w->used && flush(w) == GT_OK && n > sizeof w->chunk)
        w->rc = gt_buf_append(w->b, s, n);
    else if (w->rc == GT_OK) {
        memcpy(w->chunk + w->used, s, n);
        w->used += n;
    }
    return w->rc;
}

/* What jansson's dump_indent writes between items: a new line and the
 * depth's indentation, or " " after a comma unless compact. */
static int put_break(struct writer *w, int depth, bool after_comma)
{
    static const char spaces[] = "                                ";   /* 32 */
    if (w->indent > 0) {
        int rc = put(w, "\n", 1);
        for (long left = (long)depth * w->indent; rc == GT_OK && left > 0; left -= 32)
            rc = put(w, spaces, left < 32 ? (size_t)left : 32);
        return rc;
    }
    return after_comma && !w->compact ? put(w, " ", 1) : GT_OK;
}

static int put_string(struct writer *w, const char *s, size_t len)
{
    int rc = put(w, "\"", 1);
    size_t run = 0;   /* bytes written as they are, since the last escape */
    for (size_t i = 0; rc == GT_OK && i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        rc = put(w, s + run, i - run);
        run = i + 1;
        char esc[8];
        const char *named = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b"
                          : c == '\f' ? "\\f" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
                          : c == '\t' ? "\\t" : NULL;
        if (!named) {
            snprintf(esc, sizeof esc, "\\u%04X", (unsigned)c);
            named = esc;
        }
        if (rc == GT_OK)
            rc = put(w, named, strlen(named));
    }
    if (rc == GT_OK)
        rc = put(w, s + run, len - run);
    return rc == GT_OK ? put(w, "\"", 1) : rc;
}

/* A real as gt_fmt_double prints it, with jansson's rules on top: a '.'
 * or an exponent always (2 -> 2.0), and the exponent without '+' or
 * leading zeros (1e-05 -> 1e-5). */
static int put_real(struct writer *w, double v)
{
    char t[GT_FMT_DOUBLE_SIZE + 2], out[GT_FMT_DOUBLE_SIZE + 2];
    if (!isfinite(v))
        return GT_EUSAGE;   /* json_real refuses these: not reached */
    int n = gt_fmt_double(t, v);
    char *e = strchr(t, 'e');
    if (!e) {
        if (!strchr(t, '.')) {
            memcpy(t + n, ".0", 3);
            n += 2;
        }
        return put(w, t, (size_t)n);
    }
    size_t head = (size_t)(e - t) + 1;
    memcpy(out, t, head);
    const char *x = e + 1;
    if (*x == '-')
        out[head++] = *x;
    if (*x == '+' || *x == '-')
        x++;
    while (*x == '0' && x[1])
        x++;
    size_t tail = strlen(x);
    memcpy(out + head, x, tail);
    return put(w, out, head + tail);
}

/* As "%" JSON_INTEGER_FORMAT prints it, without printf's cost. */
static int put_integer(struct writer *w, json_int_t v)
{
    char t[24], *p = t + sizeof t;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    return put(w, p, (size_t)(t + sizeof t - p));
}

static int put_value(struct writer *w, const json_t *j, int depth);

static int put_array(struct writer *w, const json_t *a, int depth)
{
    size_t n = json_array_size(a);
    int rc = put(w, "[", 1);
    if (n && rc == GT_OK)
        rc = put_break(w, depth + 1, false);
    for (size_t i = 0; rc == GT_OK && i < n; i++) {
        rc = put_value(w, json_array_get(a, i), depth + 1);
        if (rc == GT_OK && i + 1 < n)
            rc = put(w, ",", 1);
        if (rc == GT_OK)
            rc = i + 1 < n ? put_break(w, depth + 1, true) : put_break(w, depth, false);
    }
    return rc == GT_OK ? put(w, "]", 1) : rc;
}

static int put_object(struct writer *w, const json_t *o, int depth)
{
    void *it = json_object_iter((json_t *)o);
    int rc = put(w, "{", 1);
    if (it && rc == GT_OK)
        rc = put_break(w, depth + 1, false);
    while (rc == GT_OK && it) {
        void *next = json_object_iter_next((json_t *)o, it);
        rc = put_string(w, json_object_iter_key(it), json_object_iter_key_len(it));
        if (rc == GT_OK)
            rc = w->compact ? put(w, ":", 1) : put(w, ": ", 2);
        if (rc == GT_OK)
            rc = put_value(w, json_object_iter_value(it), depth + 1);
        if (rc == GT_OK && next)
            rc = put(w, ",", 1);
        if (rc == GT_OK)
            rc = next ? put_break(w, depth + 1, true) : put_break(w, depth, false);
        it = next;
    }
    return rc == GT_OK ? put(w, "}", 1) : rc;
}

static int put_value(struct writer *w, const json_t *j, int depth)
{
    if (!j || depth > MAX_DEPTH)
        return GT_EUSAGE;
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        return put_object(w, j, depth);
    case JSON_ARRAY:
        return put_array(w, j, depth);
    case JSON_STRING:
        return put_string(w, json_string_value(j), json_string_length(j));
    case JSON_INTEGER:
        return put_integer(w, json_integer_value(j));
    case JSON_REAL:
        return put_real(w, json_real_value(j));
    case JSON_TRUE:
        return put(w, "true", 4);
    case JSON_FALSE:
        return put(w, "false", 5);
    case JSON_NULL:
        return put(w, "null", 4);
    }
    return GT_EUSAGE;
}

int gt_json_write(struct gt_buf *b, const json_t *doc, size_t flags)
{
    if (flags & ~(size_t)JSON_TAKEN_FLAGS)
        return GT_EUSAGE;
    if (!(flags & JSON_ENCODE_ANY) && !json_is_array(doc) && !json_is_object(doc))
        return GT_EUSAGE;
    struct writer w;
    w.b = b;
    w.indent = (int)(flags & JSON_MAX_INDENT);
    w.compact = (flags & JSON_COMPACT) != 0;
    w.rc = GT_OK;
    w.used = 0;
    int rc = put_value(&w, doc, 0);
    return flush(&w) != GT_OK ? w.rc : rc;
}

/* ---- YAML, block style ---- */

/* A key YAML reads back as that string unquoted: an identifier-like word
 * that is none of YAML 1.1's booleans and nulls. */
static bool yaml_plain_key(const char *s, size_t n)
{
    static const char *const special[] = {"y", "n", "yes", "no", "on", "off", "true",
                                          "false", "null"};
    if (!n || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || strchr("_./-", s[i])))
            return false;
    for (size_t i = 0; i < sizeof special / sizeof *special; i++)
        if (gt_span_ieq(s, n, special[i]))
            return false;
    return true;
}

static bool yaml_block(const json_t *j)
{
    return (json_is_object(j) && json_object_size(j)) || (json_is_array(j) && json_array_size(j));
}

static int yaml_indent(struct writer *w, int col)
{
    int rc = put(w, "\n", 1);
    for (int i = 0; rc == GT_OK && i < col; i++)
        rc = put(w, " ", 1);
    return rc;
}

/* j at column col; inline_first: its first line continues the current
 * one (after "- " or at the document's start). */
static int yaml_node(struct writer *w, const json_t *j, int col, bool inline_first, int depth)
{
    if (depth > MAX_DEPTH)
        return GT_EUSAGE;
    int rc = GT_OK;
    if (json_is_array(j)) {
        for (size_t i = 0; rc == GT_OK && i < json_array_size(j); i++) {
            const json_t *v = json_array_get(j, i);
            if (i || !inline_first)
                rc = yaml_indent(w, col);
            if (rc == GT_OK)
                rc = put(w, "- ", 2);
            if (rc == GT_OK)
                rc = yaml_block(v) ? yaml_node(w, v, col + 2, true, depth + 1)
                                   : put_value(w, v, depth + 1);
        }
        return rc;
    }
    bool first = true;
    for (void *it = json_object_iter((json_t *)j); rc == GT_OK && it;
         it = json_object_iter_next((json_t *)j, it), first = false) {
        const char *k = json_object_iter_key(it);
        size_t kn = json_object_iter_key_len(it);
        const json_t *v = json_object_iter_value(it);
        if (!first || !inline_first)
            rc = yaml_indent(w, col);
        if (rc == GT_OK)
            rc = yaml_plain_key(k, kn) ? put(w, k, kn) : put_string(w, k, kn);
        if (rc == GT_OK)
            rc = put(w, ":", 1);
        if (rc == GT_OK && yaml_block(v))
            rc = yaml_node(w, v, col + 2, false, depth + 1);
        else if (rc == GT_OK && (rc = put(w, " ", 1)) == GT_OK)
            rc = put_value(w, v, depth + 1);
    }
    return rc;
}

int gt_yaml_write(struct gt_buf *b, const json_t *doc)
{
    struct writer w = {.b = b, .indent = 0, .compact = false, .rc = GT_OK, .used = 0};
    if (!doc)
        return GT_EUSAGE;
    int rc = yaml_block(doc) ? yaml_node(&w, doc, 0, true, 0) : put_value(&w, doc, 0);
    if (rc == GT_OK)
        rc = put(&w, "\n", 1);
    return flush(&w) != GT_OK ? w.rc : rc;
}

char *gt_json_dumps(const json_t *doc, size_t flags)
{
    struct gt_buf b;
    gt_buf_init(&b, SIZE_MAX);
    if (gt_json_write(&b, doc, flags) != GT_OK) {   /* else b.data holds at least "[]" */
        gt_buf_free(&b);
        return NULL;
    }
    return b.data;
}

int gt_json_dumpf(const json_t *doc, FILE *f, size_t flags)
{
    struct gt_buf b;
    gt_buf_init(&b, SIZE_MAX);
    int rc = gt_json_write(&b, doc, flags);
    if (rc == GT_OK && b.len && fwrite(b.data, 1, b.len, f) != b.len)
        rc = GT_EIO;
    gt_buf_free(&b);
    return rc == GT_OK ? 0 : -1;
}
