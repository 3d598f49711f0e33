/*
 * http.c - libcurl GET into a capped buffer, with retries.
 *
 * Only http and https are allowed, also across redirects, so a hostile
 * archive cannot bounce gridtail to file:// or other schemes.  A GET
 * follows a redirect (at most GT_HTTP_MAX_REDIRECTS) only to the same host
 * and never from https to http: an archive cannot send gridtail to another
 * host (an internal address, a cloud metadata service).  libcurl's own
 * following is off; the redirects are followed here, each checked.
 */
#define _POSIX_C_SOURCE 200809L
#include "http.h"

#include "curl_lazy.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct sink_state {
    struct gt_buf *body;
    int rc;
};

static size_t on_data(char *p, size_t size, size_t n, void *userdata)
{
    struct sink_state *st = userdata;
    int rc = gt_buf_append(st->body, p, size * n);
    if (rc) {
        st->rc = rc;
        return 0;   /* makes curl fail with CURLE_WRITE_ERROR */
    }
    return size * n;
}

size_t gt_http_json_cap(const struct gt_http_opts *o)
{
    size_t all = o->max_bytes ? o->max_bytes : (size_t)1 << 30;
    return o->max_json_bytes && o->max_json_bytes < all ? o->max_json_bytes : all;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static bool transient_curl(CURLcode c)
{
    switch (c) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
        return true;
    default:
        return false;
    }
}

static bool transient_http(long status)
{
    return status == 408 || status == 429 || status >= 500;
}

static CURL *make_handle(const char *url, const struct gt_http_opts *o,
                         struct sink_state *st, char *errbuf)
{
    CURL *h = curl_easy_init();
    if (!h)
        return NULL;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, st);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, o->timeout_s);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, o->connect_timeout_s);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);   /* followed by gt_http_get, checked */
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_USERAGENT, "gridtail/0.1");
    if (o->ca_file && o->ca_file[0])
        curl_easy_setopt(h, CURLOPT_CAINFO, o->ca_file);
    return h;
}

/* The host of an http(s) URL, [*host, *host + *len): after "://" and any
 * user info, before the port, path, query or fragment (an IPv6 literal
 * with its brackets); false when there is none. */
static bool url_host(const char *url, const char **host, size_t *len)
{
    const char *p = strstr(url, "://");
    if (!p)
        return false;
    p += 3;
    size_t auth = strcspn(p, "/?#");
    const char *at = NULL;
    for (size_t i = 0; i < auth; i++)
        if (p[i] == '@')
            at = p + i;
    if (at) {
        auth -= (size_t)(at + 1 - p);
        p = at + 1;
    }
    size_t n = auth;
    if (*p == '[') {
        const char *close = memchr(p, ']', auth);
        n = close ? (size_t)(close - p) + 1 : auth;
    } else {
        const char *colon = memchr(p, ':', auth);
        n = colon ? (size_t)(colon - p) : auth;
    }
    *host = p, *len = n;
    return n > 0;
}

/* Why a redirect from `from` to `to` is not followed, or NULL: it must
 * stay on the same host (any port), and never go from https to http. */
static const char *redirect_refused(const char *from, const char *to)
{
    const char *a, *b;
    size_t na, nb;
    if (!url_host(from, &a, &na) || !url_host(to, &b, &nb))
        return "not an http or https URL with a host";
    if (na != nb || strncasecmp(a, b, na))
        return "another host";
    if (!strncasecmp(from, "https:", 6) && strncasecmp(to, "https:", 6))
        return "from https to http";
    return NULL;
}

int gt_http_get(const char *url, const struct gt_http_opts *o,
                struct gt_buf *body, int *attempts, struct gt_error *err)
{
    if (attempts)
        *attempts = 0;
    int loaded = curl_lazy_load(err);
    if (loaded)
        return loaded;
    size_t base_len = body->len, saved_max = body->max;
    if (o->max_bytes && base_len + o->max_bytes < body->max)
        body->max = base_len + o->max_bytes;
    struct sink_state st = {body, GT_OK};
    char errbuf[CURL_ERROR_SIZE];
    long delay = o->retry_delay_ms;
    int rc = GT_EIO, tries = 0;
    for (long attempt = 0; attempt <= o->retries; attempt++) {
        body->len = base_len;
        st.rc = GT_OK;
        errbuf[0] = '\0';
        /* this attempt: the URL, then each redirect followed */
        char *at = strdup(url), refused[512] = "";
        CURLcode c = CURLE_OK;
        long status = 0;
        int hops = 0;
        bool nomem = !at;
        while (at) {
            body->len = base_len;
            CURL *h = make_handle(at, o, &st, errbuf);
            if (!h) {
                nomem = true;
                break;
            }
            if (hops == 0)
                tries++;
            c = curl_easy_perform(h);
            status = 0;
            curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
            char *next = NULL;
            if (c == CURLE_OK && status >= 300 && status < 400)
                curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &next);
            const char *why = NULL;
            if (next && hops == GT_HTTP_MAX_REDIRECTS)
                why = "more than " GT_HTTP_MAX_REDIRECTS_TEXT " redirects";
            else if (next)
                why = redirect_refused(at, next);
            if (next && why)
                snprintf(refused, sizeof refused, "redirected to %.300s: not followed (%s)", next,
                         why);
            char *follow = next && !why ? strdup(next) : NULL;
            curl_easy_cleanup(h);
            free(at);
            at = follow;
            if (!at)
                break;
            hops++;
        }
        free(at);   /* NULL but when a handle could not be made */
        if (nomem) {
            rc = gt_error_set(err, GT_ENOMEM, url, "curl_easy_init failed");
            break;
        }
        if (refused[0]) {
            rc = gt_error_set(err, GT_EIO, url, "%s", refused);
            break;
        }
        if (st.rc) {
            rc = gt_error_set(err, st.rc, url, "response larger than %zu bytes", body->max);
            break;
        }
        bool last = attempt == o->retries;
        if (c == CURLE_OK && status >= 200 && status < 300) {
            rc = GT_OK;
            break;
        }
        if (c == CURLE_OK && !transient_http(status)) {
            rc = gt_error_set(err, GT_EIO, url, "HTTP status %ld", status);
            break;
        }
        if (c != CURLE_OK && !transient_curl(c)) {
            rc = gt_error_set(err, GT_EIO, url, "%s",
                              errbuf[0] ? errbuf : curl_easy_strerror(c));
            break;
        }
        if (last) {
            if (c == CURLE_OK)
                rc = gt_error_set(err, GT_EIO, url, "HTTP status %ld after %d attempts",
                                  status, tries);
            else
                rc = gt_error_set(err, GT_EIO, url, "%s (after %d attempts)",
                                  errbuf[0] ? errbuf : curl_easy_strerror(c), tries);
            break;
        }
        sleep_ms(delay);
        delay = delay > 300000 ? 600000 : delay * 2;
    }
    body->max = saved_max;
    if (rc != GT_OK)
        body->len = base_len;
    if (body->data)
        body->data[body->len] = '\0';
    if (attempts)
        *attempts = tries;
    return rc;
}

int gt_http_escape(struct gt_buf *out, const char *s, struct gt_error *err)
{
    int rc = curl_lazy_load(err);
    if (rc)
        return rc;
    char *e = curl_easy_escape(NULL, s, 0);
    if (!e)
        return GT_ENOMEM;
    rc = gt_buf_append(out, e, strlen(e));
    curl_free(e);
    return rc;
}

int gt_url_expand(const char *tmpl, const char *src, const char *dst,
                  const char *start, const char *end, struct gt_buf *out,
                  struct gt_error *err)
{
    const char *p = tmpl;
    int rc = GT_OK;
    while (*p && rc == GT_OK) {
        const char *brace = strchr(p, '{');
        if (!brace)
            return gt_buf_append(out, p, strlen(p));
        rc = gt_buf_append(out, p, (size_t)(brace - p));
        if (rc)
            break;
        if (!strncmp(brace, "{src}", 5) || !strncmp(brace, "{dst}", 5)) {
            const char *v = brace[1] == 's' ? src : dst;
            if (!v)
                return gt_error_set(err, GT_EUSAGE, tmpl,
                                    "URL uses %.5s but no --%.3s was given",
                                    brace, brace + 1);
            rc = gt_http_escape(out, v, err);
            p = brace + 5;
        } else if (!strncmp(brace, "{start}", 7)) {
            rc = gt_buf_append(out, start ? start : brace, start ? strlen(start) : 7);
            p = brace + 7;
        } else if (!strncmp(brace, "{end}", 5)) {
            rc = gt_buf_append(out, end ? end : brace, end ? strlen(end) : 5);
            p = brace + 5;
        } else {
            rc = gt_buf_append(out, "{", 1);
            p = brace + 1;
        }
    }
    if (rc == GT_OK && !out->data)
        rc = gt_buf_append(out, "", 0);
    return rc;
}

int gt_http_post(const char *url, const struct gt_http_opts *o, const char *content_type,
                 const char *bearer, const char *body, size_t len, long *status,
                 struct gt_buf *answer, struct gt_error *err)
{
    *status = 0;
    int loaded = curl_lazy_load(err);
    if (loaded)
        return loaded;
    struct sink_state st = {answer, GT_OK};
    char errbuf[CURL_ERROR_SIZE], type[128], auth[512];
    snprintf(type, sizeof type, "Content-Type: %s", content_type);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", bearer ? bearer : "");
    long delay = o->retry_delay_ms;
    int rc = GT_EIO;
    for (long attempt = 0; attempt <= o->retries; attempt++) {
        gt_buf_reset(answer);
        st.rc = GT_OK;
        errbuf[0] = '\0';
        CURL *h = make_handle(url, o, &st, errbuf);
        struct curl_slist *hdr = curl_slist_append(NULL, type);
        if (hdr && bearer && *bearer)
            hdr = curl_slist_append(hdr, auth);
        if (!h || !hdr) {
            curl_slist_free_all(hdr);
            if (h)
                curl_easy_cleanup(h);
            return gt_error_set(err, GT_ENOMEM, url, "out of memory");
        }
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
        curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);   /* a POST is not redirected */
        CURLcode c = curl_easy_perform(h);
        long code = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
        curl_easy_cleanup(h);
        curl_slist_free_all(hdr);
        if (st.rc)
            return gt_error_set(err, st.rc, url, "answer larger than %zu bytes", answer->max);
        if (c == CURLE_OK && !transient_http(code)) {
            *status = code;
            return GT_OK;
        }
        if (c == CURLE_OK)
            *status = code;
        rc = c == CURLE_OK ? gt_error_set(err, GT_EIO, url, "HTTP status %ld", code)
                           : gt_error_set(err, GT_EIO, url, "%s",
                                          errbuf[0] ? errbuf : curl_easy_strerror(c));
        if ((c != CURLE_OK && !transient_curl(c)) || attempt == o->retries)
            break;
        if (err)
            err->code = GT_OK;   /* a later attempt may still get through */
        sleep_ms(delay);
        delay *= 2;
    }
    return rc;
}
