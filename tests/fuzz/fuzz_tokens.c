/*
 * fuzz_tokens.c - a tokens file ([server] tokens_file, read at start and
 * on SIGHUP) and Authorization headers against it.  The input's first
 * line is the header tried; the rest is the file.
 */
#include "fuzz.h"
#include "server/auth.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    const uint8_t *nl = memchr(data, '\n', len);
    size_t hlen = nl ? (size_t)(nl - data) : len;
    char header[512];
    if (hlen >= sizeof header)
        hlen = sizeof header - 1;
    memcpy(header, data, hlen);
    header[hlen] = 0;
    size_t skip = nl ? (size_t)(nl - data) + 1 : len;
    const char *path = fuzz_file("tokens", data + skip, len - skip);
    struct gt_tokens *t = NULL;
    struct gt_error err = {0};
    int rc = gt_tokens_load(path, &t, &err);
    if (rc == GT_OK) {
        bool sent;
        enum gt_scope s = gt_tokens_scope(t, header, &sent);
        if (s != GT_SCOPE_NONE && !sent)
            abort();   /* granted without a token */
        gt_tokens_free(t);
    } else if (t || !err.msg[0]) {
        abort();   /* refused without saying why, or half-loaded */
    }
    gt_error_clear(&err);
    return 0;
}
