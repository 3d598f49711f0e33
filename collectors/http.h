/*
 * http.h - fetching a URL into memory with libcurl: timeouts, bounded
 * retries with exponential back-off on transient failures, TLS
 * verification always on, a size cap.  libcurl is loaded by the first
 * call (curl_lazy.h); when it cannot be, the call fails with GT_EIO.
 */
#ifndef GT_HTTP_H
#define GT_HTTP_H

#include "base/error.h"
#include "base/util.h"

struct gt_http_opts {
    long timeout_s;
    long connect_timeout_s;
    long retries;           /* extra attempts after the first */
    long retry_delay_ms;    /* first back-off; doubles each retry */
    size_t max_bytes;
    const char *ca_file;    /* NULL or "" = system CA store */
    /* a JSON answer is decoded whole (jansson's tree takes some 20 times
       its text): the largest one taken ([http] max_json_mb); 0: max_bytes */
    size_t max_json_bytes;
};

/* The cap of a JSON answer's buffer under o: max_json_bytes, at most
 * max_bytes (1 GiB where neither is set). */
size_t gt_http_json_cap(const struct gt_http_opts *o);

/* A GET follows at most this many redirects, each to the same host only
 * (any port) and never from https to http; past them, or to another host,
 * it fails naming where it was sent. */
#define GT_HTTP_MAX_REDIRECTS 5
#define GT_HTTP_MAX_REDIRECTS_TEXT "5"

/* GET url into body (appended).  Retries connection failures, timeouts,
 * HTTP 408/429/5xx; other HTTP errors fail at once.  *attempts (may be
 * NULL) receives how many requests were made. */
int gt_http_get(const char *url, const struct gt_http_opts *o,
                struct gt_buf *body, int *attempts, struct gt_error *err);

/* POST body (len bytes of content_type) to url, with "Authorization:
 * Bearer bearer" unless bearer is NULL or "".  GT_OK when the server
 * answered anything but 408/429/5xx (*status, the answer in answer);
 * those and connection failures are retried as GET does, then GT_EIO
 * with *status the last HTTP status or 0 when none came. */
int gt_http_post(const char *url, const struct gt_http_opts *o, const char *content_type,
                 const char *bearer, const char *body, size_t len, long *status,
                 struct gt_buf *answer, struct gt_error *err);
/* s percent-encoded (RFC 3986) onto out.  GT_EIO (in err, may be NULL)
 * when libcurl cannot be loaded, GT_ENOMEM without a message. */
int gt_http_escape(struct gt_buf *out, const char *s, struct gt_error *err);

/* Expand {src} {dst} {start} {end} in a URL template.  src/dst are
 * percent-encoded and must be given if used; start/end NULL keeps those
 * placeholders as they are (for the cursor key of a source). */
int gt_url_expand(const char *tmpl, const char *src, const char *dst,
                  const char *start, const char *end, struct gt_buf *out,
                  struct gt_error *err);

#endif
