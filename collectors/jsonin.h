/*
 * jsonin.h - helpers for the JSON-shaped formats (amp-json, esmond):
 * loading an input as one JSON document and reading timestamps and
 * numbers out of it.
 */
#ifndef GT_JSONIN_H
#define GT_JSONIN_H

#include "collector.h"

#include <jansson.h>

/* Read and decode the whole input; a decode error refuses the input
 * ("not a FORMAT file: line L column C: ...").  Caller json_decref()s. */
int gt_json_load(const struct gt_input *in, const struct gt_collect_opts *o,
                 const char *format, json_t **root, struct gt_error *err);

/* The same for an archive's saved page: a bad value in an element of the
 * array at records costs that element (gt_json_load_page). */
int gt_json_load_records(const struct gt_input *in, const struct gt_collect_opts *o,
                         const char *format, const char *records, json_t **root,
                         struct gt_error *err);

/* JSON lines (a dump: one document a line, blank lines skipped): take()
 * called with each decoded one and its line number as loc; a line that
 * is not JSON is rejected, unless it is the first, which refuses the
 * input ("not a FORMAT file: WHAT"); a line refused for one value (an
 * integer past int64, \u0000, a byte not UTF-8) is only rejected.  Stops at take()'s first error. */
int gt_json_lines(const char *text, size_t len, const char *name, const char *format,
                  const char *what, const struct gt_sink *sink,
                  int (*take)(void *ctx, const json_t *doc, const char *loc), void *ctx,
                  struct gt_error *err);

/* An archive's page of records, decoded as json_loadb(text, len, 0)
 * does, but a value jansson refuses (an integer past int64, a real past
 * double, \u0000, a byte that is not UTF-8) costs only the record that
 * holds it: the element of the array at records (object keys joined by
 * '.': "hits.hits", "data.result"; "" the root) becomes a marker
 * (gt_json_dropped says why) for the reader to reject under its own name
 * and go on.  Anything else wrong, or such a value outside that array,
 * refuses the page: NULL, and *jerr says why and where (line, column).
 * Caller json_decref()s. */
json_t *gt_json_load_page(const char *text, size_t len, const char *records,
                          json_error_t *jerr);

/* The reason of a record gt_json_load_page replaced ("invalid JSON: too
 * big integer near ..."), or NULL for any other value (the marker is a
 * string that begins with a NUL byte, which no decoded input holds). */
const char *gt_json_dropped(const json_t *v);

/* "line L column C: TEXT" of a decode error. */
void gt_json_error_text(const json_error_t *jerr, char *buf, size_t size);

/* A JSON integer, real or time string as Unix seconds. */
bool gt_json_time(const json_t *v, int64_t *ts);

/* A JSON integer or real as a finite double. */
bool gt_json_number(const json_t *v, double *out);

#endif
