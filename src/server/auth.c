/*
 * auth.c - see auth.h.  SHA-256 from nettle (GnuTLS's own hash library,
 * already a dependency of libmicrohttpd), random bytes from getrandom().
 */
#define _DEFAULT_SOURCE
#include "auth.h"
#include "base/util.h"

#include <errno.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>

struct entry {
    uint8_t hash[SHA256_DIGEST_SIZE];
    enum gt_scope scope;
};

struct gt_tokens {
    struct entry *v;
    size_t n;
};

static const char *const scope_names[] = {"none", "read", "write", "admin"};

bool gt_scope_parse(const char *s, enum gt_scope *out)
{
    for (int i = GT_SCOPE_READ; i <= GT_SCOPE_ADMIN; i++)
        if (!strcmp(s, scope_names[i])) {
            *out = (enum gt_scope)i;
            return true;
        }
    return false;
}

const char *gt_scope_name(enum gt_scope s)
{
    return scope_names[s];
}

static void hash(const char *token, size_t len, uint8_t out[SHA256_DIGEST_SIZE])
{
    struct sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, len, (const uint8_t *)token);
    sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

void gt_token_hash_hex(const char *token, size_t len, char hex[65])
{
    uint8_t h[SHA256_DIGEST_SIZE];
    hash(token, len, h);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", h[i]);
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* "SCOPE HEX" (spaces or tabs between, around) into e; NULL or why not */
static const char *parse_line(char *line, struct entry *e, const char **field)
{
    char *save = NULL, *scope = strtok_r(line, " \t\r", &save);
    char *hex = strtok_r(NULL, " \t\r", &save), *extra = strtok_r(NULL, " \t\r", &save);
    *field = "scope";
    if (!scope || !gt_scope_parse(scope, &e->scope))
        return "expected read, write or admin";
    *field = "sha256";
    if (!hex || strlen(hex) != 2 * SHA256_DIGEST_SIZE)
        return "expected the 64 hex digits of the token's SHA-256 (gridtail token new)";
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return "not a hex digit";
        e->hash[i] = (uint8_t)(hi << 4 | lo);
    }
    *field = "line";
    return extra ? "more than SCOPE SHA256HEX" : NULL;
}

int gt_tokens_load(const char *path, struct gt_tokens **out, struct gt_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return gt_error_set(err, GT_EIO, path, "%s",
                            strerror(errno));
    /* a directory opens and reads as empty: it would load no token */
    struct stat st;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fclose(f);
        return gt_error_set(err, GT_EIO, path, "not a regular file");
    }
    struct gt_tokens *t = calloc(1, sizeof *t);
    size_t cap = 0;
    char line[512];
    struct gt_lines in;
    gt_lines_init(&in, f, path, 0);
    int rc = t ? GT_OK : gt_error_set(err, GT_ENOMEM, path, "out of memory");
    int got;
    while (rc == GT_OK && (got = gt_lines_next(&in, line, sizeof line, err)) != 0) {
        const char *where = in.where;
        if (got < 0) {
            rc = got == GT_ETOOBIG ? GT_EINPUT : got;
            break;
        }
        char *p = line + strspn(line, " \t");
        if (!*p || *p == '#' || *p == '\r')
            continue;
        if (t->n == GT_TOKENS_MAX) {
            rc = gt_error_set(err, GT_EINPUT, where, "more than %d tokens", GT_TOKENS_MAX);
            break;
        }
        if (t->n == cap) {
            size_t nc = cap ? 2 * cap : 16;
            struct entry *v = realloc(t->v, nc * sizeof *v);
            if (!v) {
                rc = gt_error_set(err, GT_ENOMEM, path, "out of memory");
                break;
            }
            t->v = v, cap = nc;
        }
        const char *field, *why = parse_line(p, &t->v[t->n], &field);
        if (why) {
            char at[GT_TEXT_WHERE + 64];
            snprintf(at, sizeof at, "%s: %s", where, field);
            rc = gt_error_set(err, GT_EINPUT, at, "%s", why);
        } else {
            t->n++;
        }
    }
    if (rc == GT_OK && ferror(f))
        rc = gt_error_set(err, GT_EIO, path, "read error");
    fclose(f);
    if (rc) {
        gt_tokens_free(t);
        return rc;
    }
    *out = t;
    return GT_OK;
}

void gt_tokens_free(struct gt_tokens *t)
{
    if (t) {
        free(t->v);
        free(t);
    }
}

size_t gt_tokens_count(const struct gt_tokens *t)
{
    return t ? t->n : 0;
}

enum gt_scope gt_tokens_scope(const struct gt_tokens *t, const char *authorization, bool *sent)
{
    *sent = authorization && *authorization;
    if (!*sent || strncasecmp(authorization, "Bearer ", 7))
        return GT_SCOPE_NONE;
    const char *token = authorization + 7;
    token += strspn(token, " ");
    size_t len = strcspn(token, " \t\r\n");
    uint8_t h[SHA256_DIGEST_SIZE];
    hash(token, len, h);
    /* every line is compared, whole: the time taken does not depend on
       which line (if any) matches, nor where a hash first differs */
    unsigned best = GT_SCOPE_NONE;
    for (size_t i = 0; t && i < t->n; i++) {
        unsigned diff = 0;
        for (int k = 0; k < SHA256_DIGEST_SIZE; k++)
            diff |= (unsigned)(t->v[i].hash[k] ^ h[k]);
        unsigned match = (unsigned)-(int)((diff | -diff) >> 31 ^ 1);   /* all ones if equal */
        unsigned s = (unsigned)t->v[i].scope & match;
        unsigned more = (unsigned)-(int)(s > best);
        best = (best & ~more) | (s & more);
    }
    return len ? (enum gt_scope)best : GT_SCOPE_NONE;
}

int gt_token_new(char token[GT_TOKEN_LEN + 1], char hex[65], struct gt_error *err)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    uint8_t raw[33] = {0};
    size_t got = 0;
    while (got < 32) {
        ssize_t r = getrandom(raw + got, 32 - got, 0);
        if (r < 0 && errno != EINTR)
            return gt_error_set(err, GT_EIO, NULL, "getrandom: %s", strerror(errno));
        got += r > 0 ? (size_t)r : 0;
    }
    /* 32 bytes = 256 bits as 43 base64url characters (6 bits each) */
    for (int i = 0; i < GT_TOKEN_LEN; i++) {
        int bit = 6 * i, byte = bit / 8, off = bit % 8;
        unsigned v = ((unsigned)raw[byte] << 8 | raw[byte + 1]) >> (10 - off);
        token[i] = b64[v & 63];
    }
    token[GT_TOKEN_LEN] = 0;
    gt_token_hash_hex(token, GT_TOKEN_LEN, hex);
    return GT_OK;
}
