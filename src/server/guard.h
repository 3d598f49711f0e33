/*
 * guard.h - who may ask the server what, decided from a request's
 * headers alone, before any of its body is read: the Host it was sent
 * to (DNS rebinding), the page it came from (Origin), the type of a
 * JSON endpoint's body (what a page cannot send without asking), and
 * the bearer token's scope against what the route needs (route.h).
 * The guard holds [server] tokens_file's tokens, replaced at once on a
 * reload.
 */
#ifndef GT_GUARD_H
#define GT_GUARD_H

#include "answer.h"
#include "base/config.h"
#include "base/error.h"

#include <microhttpd.h>
#include <stddef.h>

struct gt_guard;

/* A guard for cfg (borrowed, kept while the guard lives), with the
 * tokens of [server] tokens_file; NULL with err when they cannot be
 * read, or read_auth is asked without them.  Caller frees. */
struct gt_guard *gt_guard_new(const struct gt_config *cfg, struct gt_error *err);
void gt_guard_free(struct gt_guard *g);

/* Read tokens_file again: the new tokens replace the old ones at once;
 * on an error (err says file:line) the old ones stay.  *ntokens: how
 * many there are now. */
int gt_guard_reload(struct gt_guard *g, size_t *ntokens, struct gt_error *err);
size_t gt_guard_tokens(struct gt_guard *g);

/* The request's headers on connection c let it in: status 0; else the
 * answer (421, 403, 415, 401 with a challenge) to give at once. */
struct gt_answer gt_guard_check(struct gt_guard *g, struct MHD_Connection *c,
                                const char *method, const char *url);

#endif
