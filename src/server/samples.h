/*
 * samples.h - POST /v1/samples: samples a remote collector pushes, as the
 * csv format (text/csv) or a JSON array of {"ts", "src", "dst", "rtt_ms",
 * "seq"} objects (rtt_ms null = lost), through the same validation,
 * idempotency and conflict rules as `gridtail ingest`: one transaction,
 * the good records stored, the bad ones counted and named.
 */
#ifndef GT_SAMPLES_H
#define GT_SAMPLES_H

#include <jansson.h>
#include <stddef.h>

#define GT_PUSH_MAX_REPORTED 100   /* rejects and conflicts listed in an answer */

/* Store one request body into the store at db_path; name is what the
 * ingest log calls it (e.g. "POST /v1/samples from 10.0.0.5").  Returns
 * the answer and sets *status: 200 with {read, stored, duplicates,
 * conflicts, rejected, lost, rejects: [{where, reason}], conflicts_list},
 * 400 for a body that is neither format, 415 for another type, 503 when
 * the store cannot be written. */
json_t *gt_samples_push(const char *db_path, long busy_timeout_ms, const char *content_type,
                        const char *body, size_t len, const char *name, unsigned *status);

#endif
