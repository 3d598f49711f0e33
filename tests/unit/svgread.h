/*
 * svgread.h - reading back the SVG the plots write, for the tests of
 * src/plot: elements found by a piece of their text, their attributes as
 * text or numbers, and a check that a document is well-formed XML (tags
 * balanced, no raw '<' or stray '&' in text or attribute values).  A
 * test reads what was drawn; it never asks the writer how it drew it.
 */
#ifndef GT_SVGREAD_H
#define GT_SVGREAD_H

#include "testutil.h"

#include <ctype.h>

/* The value of attribute name of the element that starts at elem (up to
 * its '>'), into out; false when the element has none. */
static inline bool svg_attr(const char *elem, const char *name, char *out, size_t size)
{
    const char *end = strchr(elem, '>');
    size_t nl = strlen(name);
    for (const char *p = elem; p && p < end; p++) {
        p = strstr(p, name);
        if (!p || p >= end)
            return false;
        if (isspace((unsigned char)p[-1]) && p[nl] == '=' && p[nl + 1] == '"') {
            const char *v = p + nl + 2, *q = strchr(v, '"');
            snprintf(out, size, "%.*s", (int)(q - v), v);
            return true;
        }
    }
    return false;
}

static inline double svg_num(const char *elem, const char *name)
{
    char v[128];
    if (!svg_attr(elem, name, v, sizeof v))
        fail_msg("no attribute %s in %.80s", name, elem);
    char *end;
    double x = strtod(v, &end);
    if (*end)
        fail_msg("attribute %s=\"%s\" is not a number", name, v);
    return x;
}

static inline const char *svg_str(const char *elem, const char *name)
{
    static char v[4096];
    if (!svg_attr(elem, name, v, sizeof v))
        fail_msg("no attribute %s in %.80s", name, elem);
    return v;
}

/* How often needle occurs in [from, to) (to NULL: the end). */
static inline int svg_count(const char *from, const char *to, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(from, needle); p && (!to || p < to); p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The element content after the element at elem, up to the next '<',
 * into out. */
static inline void svg_content(const char *elem, char *out, size_t size)
{
    const char *p = strchr(elem, '>') + 1, *q = strchr(p, '<');
    snprintf(out, size, "%.*s", (int)(q - p), p);
}

/* Tags balanced and nested, text and attribute values free of '<' and of
 * '&' that does not start an entity. */
static inline void svg_well_formed(const char *doc)
{
    const char *stack[256];
    size_t sl[256], depth = 0;
    const char *p = doc;
    if (!strncmp(p, "<?xml", 5))
        p = strstr(p, "?>") + 2;
    for (; *p; p++) {
        if (*p == '&') {
            static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
            bool ok = false;
            for (int i = 0; i < 5; i++)
                ok |= !strncmp(p, ents[i], strlen(ents[i]));
            if (!ok)
                fail_msg("a stray & at %.40s", p);
            continue;
        }
        if (*p != '<')
            continue;
        if (p[1] == '/') {
            size_t n = strcspn(p + 2, ">");
            if (!depth || sl[depth - 1] != n || strncmp(stack[depth - 1], p + 2, n))
                fail_msg("</%.*s> closes nothing open", (int)n, p + 2);
            depth--;
            p += n + 2;
            continue;
        }
        const char *name = p + 1;
        size_t n = strcspn(name, " \t\n/>");
        const char *q = name + n;
        bool in_value = false;
        for (; *q && (in_value || (*q != '>')); q++) {
            if (*q == '"')
                in_value = !in_value;
            else if (*q == '<')
                fail_msg("a '<' inside the tag %.40s", p);
            else if (*q == '&' && in_value) {
                static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;"};
                bool ok = false;
                for (int i = 0; i < 4; i++)
                    ok |= !strncmp(q, ents[i], strlen(ents[i]));
                if (!ok)
                    fail_msg("a stray & in an attribute at %.40s", q);
            }
        }
        assert_true(*q == '>');
        if (q[-1] != '/') {
            assert_true(depth < 256);
            stack[depth] = name, sl[depth++] = n;
        }
        p = q;
    }
    if (depth)
        fail_msg("<%.*s> is never closed", (int)sl[depth - 1], stack[depth - 1]);
}

#endif
