/*
 * auth.h - the API's tokens.  [server] tokens_file holds one line per
 * token, "SCOPE SHA256HEX": the scope (read, write or admin; each takes
 * in the ones before it) and the hex SHA-256 of the token, so the file
 * holds no secret.  A request's "Authorization: Bearer TOKEN" is hashed
 * and compared with every line in constant time.  `gridtail token new`
 * makes a token and its line.
 */
#ifndef GT_AUTH_H
#define GT_AUTH_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

enum gt_scope { GT_SCOPE_NONE, GT_SCOPE_READ, GT_SCOPE_WRITE, GT_SCOPE_ADMIN };

#define GT_TOKENS_MAX 10000     /* lines of a tokens file */
#define GT_TOKEN_LEN 43         /* a new token: 32 random bytes, base64url */

/* "read", "write", "admin" -> scope; false when unknown. */
bool gt_scope_parse(const char *s, enum gt_scope *out);
const char *gt_scope_name(enum gt_scope s);

struct gt_tokens;

/* Read a tokens file: '#' comments and blank lines are skipped; a bad
 * line is GT_EINPUT with where = "FILE:LINE: field".  Caller frees. */
int gt_tokens_load(const char *path, struct gt_tokens **out, struct gt_error *err);
void gt_tokens_free(struct gt_tokens *t);
size_t gt_tokens_count(const struct gt_tokens *t);

/* The scope an Authorization header value grants: GT_SCOPE_NONE when
 * there is none (*sent false) or it is not "Bearer TOKEN" of a listed
 * token (*sent true).  t may be NULL (no tokens: nothing is granted). */
enum gt_scope gt_tokens_scope(const struct gt_tokens *t, const char *authorization,
                              bool *sent);

/* A new random token (GT_TOKEN_LEN characters and a NUL) and the hex
 * SHA-256 that goes into the tokens file (64 and a NUL). */
int gt_token_new(char token[GT_TOKEN_LEN + 1], char hex[65], struct gt_error *err);

/* The hex SHA-256 of a token. */
void gt_token_hash_hex(const char *token, size_t len, char hex[65]);

#endif
