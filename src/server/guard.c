/*
 * guard.c - see guard.h.
 *
 * The checks run in a fixed order, and the first refusal is the answer:
 * Host (421), Origin (403), a JSON endpoint's Content-Type (415), then
 * the token (401 or 403).  Reads from loopback need no token unless
 * [server] read_auth.
 */
#define _DEFAULT_SOURCE   /* strcasecmp, strncasecmp */
#include "guard.h"
#include "auth.h"
#include "mhd_lazy.h"
#include "route.h"
#include "base/util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

struct gt_guard {
    const struct gt_config *cfg;
    pthread_rwlock_t lock;      /* held to read tokens; written on reload */
    struct gt_tokens *tokens;   /* [server] tokens_file, or NULL */
};

struct gt_guard *gt_guard_new(const struct gt_config *cfg, struct gt_error *err)
{
    struct gt_guard *g = calloc(1, sizeof *g);
    if (!g) {
        gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
        return NULL;
    }
    g->cfg = cfg;
    pthread_rwlock_init(&g->lock, NULL);
    if (cfg->server_read_auth && !cfg->server_tokens_file[0]) {
        gt_error_set(err, GT_EUSAGE, "read_auth", "[server] read_auth = 1 needs a tokens_file");
        gt_guard_free(g);
        return NULL;
    }
    if (cfg->server_tokens_file[0] &&
        gt_tokens_load(cfg->server_tokens_file, &g->tokens, err) != GT_OK) {
        gt_guard_free(g);
        return NULL;
    }
    return g;
}

void gt_guard_free(struct gt_guard *g)
{
    if (!g)
        return;
    pthread_rwlock_destroy(&g->lock);
    gt_tokens_free(g->tokens);
    free(g);
}

int gt_guard_reload(struct gt_guard *g, size_t *ntokens, struct gt_error *err)
{
    struct gt_tokens *t = NULL;
    const char *path = g->cfg->server_tokens_file;
    int rc = path[0] ? gt_tokens_load(path, &t, err) : GT_OK;
    if (rc)
        return rc;   /* the tokens before stay */
    pthread_rwlock_wrlock(&g->lock);
    struct gt_tokens *old = g->tokens;
    g->tokens = t;
    pthread_rwlock_unlock(&g->lock);
    gt_tokens_free(old);
    *ntokens = gt_tokens_count(t);
    return GT_OK;
}

size_t gt_guard_tokens(struct gt_guard *g)
{
    pthread_rwlock_rdlock(&g->lock);
    size_t n = gt_tokens_count(g->tokens);
    pthread_rwlock_unlock(&g->lock);
    return n;
}

/* ------------------------------------------------------------ Host, Origin */

/* The name of a Host value (or an Origin's rest) without its port or an
 * IPv6 literal's brackets into name; false if there is none or it is too
 * long to be an address or localhost. */
static bool host_name(const char *host, char *name, size_t size)
{
    size_t n = host[0] == '[' ? strcspn(host + 1, "]") : strcspn(host, ":");
    if (n == 0 || n >= size)
        return false;
    memcpy(name, host + (host[0] == '['), n);
    name[n] = 0;
    return true;
}

/* An IP address or localhost: a name no one else can point at us */
static bool local_name(const char *name)
{
    unsigned char addr[16];
    return !strcasecmp(name, "localhost") || inet_pton(AF_INET, name, addr) == 1 ||
           inet_pton(AF_INET6, name, addr) == 1;
}

/* Origin is this server itself, the dashboard's page: scheme://Host with
 * Host an IP address or localhost.  A name is not enough: a page whose
 * name an attacker re-points at this address (DNS rebinding) would be
 * "same origin" too; a dashboard reached by name goes into
 * [server] allowed_origins. */
static bool same_origin(struct MHD_Connection *c, const char *origin)
{
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    const char *rest = !strncmp(origin, "http://", 7) ? origin + 7
                       : !strncmp(origin, "https://", 8) ? origin + 8 : NULL;
    char name[64];
    if (!host || !*host || !rest || strcmp(rest, host) || !host_name(host, name, sizeof name))
        return false;
    return local_name(name);
}

/* Whether a request's Host may be answered: none (HTTP/1.0), an IP
 * address, localhost, or a name [server] allowed_hosts lists.  A page
 * that DNS rebinding re-pointed at this address sends its own name, and
 * would otherwise read the store from a browser on this host without
 * any Origin (a GET of its "own" site). */
static bool host_allowed(const struct gt_config *cfg, struct MHD_Connection *c)
{
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    char name[256];
    if (!host || !*host)
        return true;
    if (!host_name(host, name, sizeof name))
        return false;
    return local_name(name) || gt_listed(cfg->server_allowed_hosts, name, true);
}

/* A web page in a browser must not drive the API: a POST carries JSON
 * (a form or text/plain is what a page can send without asking), and a
 * request from a page of another origin is refused unless [server]
 * allowed_origins lists it (the server's own page is let through, see
 * same_origin).  status 0: go on. */
static struct gt_answer browser_check(const struct gt_config *cfg, struct MHD_Connection *c,
                                      const char *method, const char *url)
{
    /* the JSON endpoints' own method; another is answered 404/405 */
    const struct gt_route *rt = gt_route_find(method, url);
    bool json = rt && (rt->flags & GT_ROUTE_JSON);
    if (!host_allowed(cfg, c))
        return gt_answer_fail(421, NULL, "this server does not answer to that Host name: an "
                              "IP address, localhost or a name in [server] allowed_hosts");
    const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    if (origin && *origin && !same_origin(c, origin) &&
        !gt_listed(cfg->server_allowed_origins, origin, false))
        return gt_answer_fail(MHD_HTTP_FORBIDDEN, NULL, "requests from the origin '%.200s' are "
                              "refused ([server] allowed_origins)", origin);
    if (json) {
        const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                       MHD_HTTP_HEADER_CONTENT_TYPE);
        if (!type || strncasecmp(type, "application/json", 16) ||
            (type[16] && type[16] != ';' && type[16] != ' '))
            return gt_answer_fail(MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, NULL, "a POST body must be "
                                  "sent as Content-Type: application/json");
    }
    return (struct gt_answer){.status = 0};
}

/* ------------------------------------------------------------ tokens */

static bool loopback(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = ci ? ci->client_addr : NULL;
    if (sa && sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa && sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return false;
}

/* Reads are open to loopback clients unless [server] read_auth; beyond,
 * the bearer token's scope must cover what the request needs: 401 (with
 * a challenge) without a known token, 403 with one of too small a scope. */
static struct gt_answer authorize(struct gt_guard *g, struct MHD_Connection *c, const char *url)
{
    enum gt_scope need = gt_route_scope(url);
    if (need == GT_SCOPE_NONE ||
        (need == GT_SCOPE_READ && !g->cfg->server_read_auth && loopback(c)))
        return (struct gt_answer){.status = 0};
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_AUTHORIZATION);
    bool sent;
    pthread_rwlock_rdlock(&g->lock);
    enum gt_scope got = gt_tokens_scope(g->tokens, h, &sent);
    bool any = g->tokens != NULL;
    pthread_rwlock_unlock(&g->lock);
    if (got >= need)
        return (struct gt_answer){.status = 0};
    struct gt_answer a;
    if (got != GT_SCOPE_NONE)
        a = gt_answer_fail(MHD_HTTP_FORBIDDEN, NULL, "%s needs a token of scope %s; this "
                           "one's is %s", url, gt_scope_name(need), gt_scope_name(got));
    else if (!any)
        a = gt_answer_fail(MHD_HTTP_UNAUTHORIZED, NULL, "%s needs a token of scope %s, and "
                           "this server has none ([server] tokens_file)", url,
                           gt_scope_name(need));
    else
        a = gt_answer_fail(MHD_HTTP_UNAUTHORIZED, NULL, sent ? "the token is not known here"
                           : "a token is needed: Authorization: Bearer TOKEN (scope %s)",
                           gt_scope_name(need));
    a.challenge = got == GT_SCOPE_NONE;
    return a;
}

struct gt_answer gt_guard_check(struct gt_guard *g, struct MHD_Connection *c,
                                const char *method, const char *url)
{
    struct gt_answer a = browser_check(g->cfg, c, method, url);
    return a.status ? a : authorize(g, c, url);
}
