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

/* JSON lines (a dump: one document a line, blank lines skipped): take()
 * called with each decoded one and its line number as loc; a line that
 * is not JSON is rejected, unless it is the first, which refuses the
 * input ("not a FORMAT file: WHAT").  Stops at take()'s first error. */
int gt_json_lines(const char *text, size_t len, const char *name, const char *format,
                  const char *what, const struct gt_sink *sink,
                  int (*take)(void *ctx, const json_t *doc, const char *loc), void *ctx,
                  struct gt_error *err);

/* A JSON integer, real or time string as Unix seconds. */
bool gt_json_time(const json_t *v, int64_t *ts);

/* A JSON integer or real as a finite double. */
bool gt_json_number(const json_t *v, double *out);

#endif
