/*
 * jsonout.h - a jansson tree as text, its reals as the shortest text that
 * reads back to them.
 *
 * jansson prints a real with one printf precision for the whole document
 * (JSON_REAL_PRECISION): at 15 digits most computed values do not read
 * back, at 17 short ones carry noise.  These writers print everything
 * else byte for byte as jansson 2.14's json_dumps does with the same
 * flags, and a real as gt_fmt_double does, keeping jansson's rule that a
 * real always shows a '.' or an exponent (2.0, 1e-5, 1e300).
 */
#ifndef GT_JSONOUT_H
#define GT_JSONOUT_H

#include <jansson.h>
#include <stdio.h>

#include "base/util.h"

/* The flags taken: JSON_INDENT(n), JSON_COMPACT, JSON_ENCODE_ANY,
 * JSON_PRESERVE_ORDER (a no-op since jansson 2.8, as there) and
 * JSON_REAL_PRECISION (ignored: reals are always shortest).  Any other
 * flag is refused (GT_EUSAGE), never silently dropped. */

/* Append doc's text to b.  GT_OK; GT_EUSAGE for a flag not taken, a
 * root that is not an array or object without JSON_ENCODE_ANY, or a tree
 * deeper than 2048 levels (a cycle); GT_ETOOBIG / GT_ENOMEM from b. */
int gt_json_write(struct gt_buf *b, const json_t *doc, size_t flags);

/* doc as a YAML block document (what kubectl users read and write): an
 * object's keys plain where YAML reads them back as strings, else
 * quoted; every string value, and every scalar, as its JSON text, which
 * is valid YAML with the same value; empty containers as [] and {}.
 * GT_OK, GT_EUSAGE for a tree deeper than 2048 levels, or b's error. */
int gt_yaml_write(struct gt_buf *b, const json_t *doc);

/* doc's text, NUL-terminated, caller frees; NULL on any error above. */
char *gt_json_dumps(const json_t *doc, size_t flags);

/* doc's text to f: 0, or -1 on an error above or a write error (as
 * json_dumpf). */
int gt_json_dumpf(const json_t *doc, FILE *f, size_t flags);

#endif
