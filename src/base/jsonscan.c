/*
 * jsonscan.c - see jsonscan.h.  The costs are jansson 2.14's on 64-bit
 * glibc, rounded up (measured with mallinfo2 over 10^5 values of each
 * shape; test_util checks the estimate stays above the real figure).
 */
#include "jsonscan.h"

#include <string.h>

enum {
    COST_OBJECT = 256,   /* json_object_t and its first hash buckets */
    COST_ARRAY = 160,    /* json_array_t and its first 8 slots */
    COST_SLOT = 16,      /* a container's slot, with its doubling growth */
    COST_MEMBER = 112,   /* an object's key/value pair, its key aside */
    COST_STRING = 96,    /* json_string_t and its copy, the text aside */
    COST_NUMBER = 48,    /* json_integer_t, json_real_t */
    MAX_DEPTH = 2048     /* jansson refuses deeper nesting */
};

struct level {
    size_t count;        /* elements or members so far */
    bool object, want_key;
};

struct scan {
    const char *p;
    size_t len, i;
    int depth;
    struct level stack[MAX_DEPTH + 1];
    struct gt_json_cost *c;
};

/* the bytes of a string starting at its quote, the quotes aside */
static size_t string_length(struct scan *s)
{
    size_t start = ++s->i;
    while (s->i < s->len && s->p[s->i] != '"')
        s->i += s->p[s->i] == '\\' ? 2 : 1;
    size_t n = (s->i < s->len ? s->i : s->len) - start;
    s->i++;
    return n;
}

static bool scalar_byte(char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           ch == '-' || ch == '+' || ch == '.';
}

/* a value begins: counted in its container */
static void value(struct scan *s, size_t cost)
{
    s->c->values++;
    s->c->bytes += cost;
    if (s->depth > 0) {
        struct level *l = &s->stack[s->depth - 1];
        l->count++;
        s->c->bytes += COST_SLOT;
        if (l->count > s->c->longest)
            s->c->longest = l->count;
    }
}

/* one token; false when the first value has ended */
static bool step(struct scan *s)
{
    char ch = s->p[s->i];
    struct level *top = s->depth > 0 ? &s->stack[s->depth - 1] : NULL;
    if (ch == '"') {
        bool key = top && top->object && top->want_key;
        size_t n = string_length(s);
        if (key)
            s->c->bytes += COST_MEMBER + n;
        else
            value(s, COST_STRING + n);
        return s->depth > 0;
    }
    if (ch == '{' || ch == '[') {
        value(s, ch == '{' ? COST_OBJECT : COST_ARRAY);
        s->i++;
        if (s->depth == MAX_DEPTH)
            return false;   /* jansson stops here too */
        s->stack[s->depth++] = (struct level){0, ch == '{', ch == '{'};
        return true;
    }
    if (ch == '}' || ch == ']') {
        s->i++;
        if (s->depth > 0)
            s->depth--;
        return s->depth > 0;
    }
    if (ch == ':' || ch == ',') {
        if (top)
            top->want_key = ch == ',' && top->object;
        s->i++;
        return true;
    }
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
        s->i++;
        return true;
    }
    /* a number or a literal (null, true and false are shared: a slot) */
    size_t start = s->i;
    while (s->i < s->len && scalar_byte(s->p[s->i]))
        s->i++;
    if (s->i == start)
        s->i++;   /* a stray byte: json_loadb names it */
    value(s, ch == 'n' || ch == 't' || ch == 'f' ? 0 : COST_NUMBER);
    return s->depth > 0;
}

void gt_json_cost(const char *p, size_t len, struct gt_json_cost *c)
{
    static _Thread_local struct scan s;   /* 32 KB of levels: off the stack */
    memset(c, 0, sizeof *c);
    s.p = p, s.len = len, s.i = 0, s.depth = 0, s.c = c;
    while (s.i < len && (p[s.i] == ' ' || p[s.i] == '\t' || p[s.i] == '\r' || p[s.i] == '\n'))
        s.i++;
    bool more = s.i < len;
    while (more && s.i < len)
        more = step(&s);
    c->complete = c->values > 0 && !more && s.depth == 0 && s.i <= len;
    c->end = s.i < len ? s.i : len;
}
