/*
 * probe.c - see probe.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "probe.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH 512            /* sockets open at once (fd limits) */
#define DEFAULT_TIMEOUT_MS 2000

/* ------------------------------------------------------------ targets */

const char *gt_probe_parse_target(const char *line, size_t len, unsigned default_port,
                                  const char **site, size_t *site_len, const char **host,
                                  size_t *host_len, unsigned *port)
{
    size_t a = 0;
    while (a < len && line[a] != ' ' && line[a] != '\t')
        a++;
    size_t b = a;
    while (b < len && (line[b] == ' ' || line[b] == '\t'))
        b++;
    if (a == 0 || b == len)
        return "expected 'SITE HOST[:PORT]'";
    const char *h = line + b, *end = line + len;
    if (memchr(h, ' ', (size_t)(end - h)) || memchr(h, '\t', (size_t)(end - h)))
        return "expected 'SITE HOST[:PORT]': more than two fields";
    const char *colon = NULL;
    if (*h == '[') {   /* [IPv6]:PORT or [IPv6] */
        const char *close = memchr(h, ']', (size_t)(end - h));
        if (!close || close == h + 1 || (close + 1 < end && close[1] != ':'))
            return "an IPv6 address is written [ADDR] or [ADDR]:PORT";
        *host = h + 1;
        *host_len = (size_t)(close - h - 1);
        colon = close + 1 < end ? close + 1 : NULL;
    } else {
        colon = memchr(h, ':', (size_t)(end - h));
        if (colon && memchr(colon + 1, ':', (size_t)(end - colon - 1)))
            return "an IPv6 address is written [ADDR] or [ADDR]:PORT";
        *host = h;
        *host_len = colon ? (size_t)(colon - h) : (size_t)(end - h);
    }
    if (*host_len == 0 || *host_len > 253)
        return "the host must be 1-253 characters";
    *port = default_port;
    if (colon) {
        int64_t v;
        if (!gt_parse_i64(colon + 1, (size_t)(end - colon - 1), &v) || v < 1 || v > 65535)
            return "the port must be a number in [1, 65535]";
        *port = (unsigned)v;
    }
    *site = line;
    *site_len = a;
    return gt_site_name_problem(line, a);
}

struct target {
    char site[GT_SITE_NAME_MAX + 1];
    struct sockaddr_storage addr;
    size_t addr_len;
};

struct targets {
    struct target *v;
    size_t n, cap;
};

/* The first address of host:port (names through the resolver). */
static const char *resolve(const char *host, size_t hlen, unsigned port, struct target *t)
{
    char name[256], serv[8];
    snprintf(name, sizeof name, "%.*s", (int)hlen, host);
    snprintf(serv, sizeof serv, "%u", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV}, *res = NULL;
    int rc = getaddrinfo(name, serv, &hints, &res);
    if (rc || !res || res->ai_addrlen > sizeof t->addr) {
        if (res)
            freeaddrinfo(res);
        return rc ? gai_strerror(rc) : "no usable address";
    }
    memcpy(&t->addr, res->ai_addr, res->ai_addrlen);
    t->addr_len = res->ai_addrlen;
    freeaddrinfo(res);
    return NULL;
}

/* One line into the list, or its reason for rejection. */
static const char *add_target(struct targets *l, const char *line, size_t len, unsigned port0)
{
    const char *site, *host, *why;
    size_t slen, hlen;
    unsigned port;
    if ((why = gt_probe_parse_target(line, len, port0, &site, &slen, &host, &hlen, &port)))
        return why;
    for (size_t i = 0; i < l->n; i++)
        if (strlen(l->v[i].site) == slen && !memcmp(l->v[i].site, site, slen))
            return "this site is already a target";
    if (l->n == GT_PROBE_MAX_TARGETS)
        return "more than 4096 targets";
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct target *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return "out of memory";
        l->v = v;
        l->cap = cap;
    }
    struct target *t = &l->v[l->n];
    memset(t, 0, sizeof *t);
    if ((why = resolve(host, hlen, port, t)))
        return why;
    memcpy(t->site, site, slen);
    l->n++;
    return NULL;
}

/* Every line of the targets file; bad ones rejected with their number. */
static int read_targets(FILE *f, unsigned port0, const struct gt_sink *sink, struct targets *l,
                        long *lines)
{
    char line[1024];
    struct gt_lines in;
    gt_lines_init(&in, f, "targets", 0);
    int got;
    for (;;) {
        struct gt_error err = {0};
        if ((got = gt_lines_next(&in, line, sizeof line, &err)) == 0)
            break;
        long lineno = in.line;
        if (got == GT_ETOOBIG) {
            gt_rejectl(sink, lineno, "%s", err.msg);   /* that line, then the next */
            continue;
        }
        if (got < 0) {
            gt_rejectl(sink, lineno, "%s", err.msg);
            return got;
        }
        size_t len = strcspn(line, "#\r\n");
        const char *p = line;
        gt_trim_span(&p, &len);
        if (!len)
            continue;
        (*lines)++;
        const char *why = add_target(l, p, len, port0);
        if (why)
            gt_rejectl(sink, lineno, "%s", why);
    }
    return GT_OK;
}

/* ------------------------------------------------------------ probing */

/* The network's own "no": the probe is lost.  Any other failure is this
 * host's (no sockets, no ports, a local firewall) and must not be stored
 * as a loss. */
static bool network_failure(int e)
{
    return e == ENETUNREACH || e == EHOSTUNREACH || e == ETIMEDOUT || e == ENETDOWN ||
           e == EHOSTDOWN || e == ECONNRESET;
}

/* Start connecting: *fd the socket to poll, or -1 when the answer is in
 * already (rtt set, or NAN for an unreachable network).  GT_EIO with err
 * for a local failure. */
static int start_connect(const struct sockaddr_storage *a, size_t len, int64_t *t0, double *rtt,
                         int *fd, struct gt_error *err)
{
    *rtt = NAN;
    *fd = socket(a->ss_family, SOCK_STREAM, 0);
    if (*fd < 0 || fcntl(*fd, F_SETFL, O_NONBLOCK) < 0 || fcntl(*fd, F_SETFD, FD_CLOEXEC) < 0)
        goto local;
    *t0 = gt_monotonic_ns();
    if (connect(*fd, (const struct sockaddr *)a, (socklen_t)len) == 0 || errno == ECONNREFUSED) {
        *rtt = gt_elapsed_ms(*t0);
    } else if (errno == EINPROGRESS) {
        return GT_OK;
    } else if (!network_failure(errno)) {
        goto local;
    }
    close(*fd);
    *fd = -1;
    return GT_OK;
local:
    gt_error_set(err, GT_EIO, NULL, "probe: cannot open a connection from this host: %s "
                 "(nothing stored: not a network loss)", strerror(errno));
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
    return GT_EIO;
}

int gt_probe_connect_all(const struct sockaddr_storage *addrs, const size_t *addr_lens,
                         size_t n, long timeout_ms, double *rtt_ms, struct gt_error *err)
{
    struct pollfd *pf = calloc(n ? n : 1, sizeof *pf);
    int64_t *t0 = calloc(n ? n : 1, sizeof *t0);   /* ns: an RTT is stored to the ns */
    if (!pf || !t0) {
        free(pf);
        free(t0);
        return gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    }
    size_t pending = 0;
    int rc = GT_OK;
    double deadline = gt_monotonic_ms() + (double)timeout_ms;
    for (size_t i = 0; i < n; i++)
        pf[i].fd = -1;
    for (size_t i = 0; rc == GT_OK && i < n; i++) {
        rc = start_connect(&addrs[i], addr_lens[i], &t0[i], &rtt_ms[i], &pf[i].fd, err);
        pf[i].events = POLLOUT;
        pending += pf[i].fd >= 0;
    }
    while (rc == GT_OK && pending) {
        double left = deadline - gt_monotonic_ms();
        if (left <= 0)
            break;
        int r = poll(pf, (nfds_t)n, (int)ceil(left));
        if (r < 0 && errno != EINTR)
            break;
        int64_t t = gt_monotonic_ns();
        for (size_t i = 0; r > 0 && i < n; i++) {
            if (pf[i].fd < 0 || !pf[i].revents)
                continue;
            int e = 0;
            socklen_t el = sizeof e;
            if (getsockopt(pf[i].fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
                e = errno;
            /* connected, or refused by the host: either way it answered */
            rtt_ms[i] = e == 0 || e == ECONNREFUSED ? (double)(t - t0[i]) / 1e6 : NAN;
            close(pf[i].fd);
            pf[i].fd = -1;
            pending--;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (pf[i].fd >= 0)
            close(pf[i].fd);   /* no answer in time: lost */
    free(pf);
    free(t0);
    return rc;
}

/* ------------------------------------------------------------ the format */

/* rounds x targets RTTs, measured before anything is emitted. */
static int measure(const struct targets *l, long rounds, long timeout_ms, double *rtt,
                   int64_t *ts, struct gt_error *err)
{
    struct sockaddr_storage *addrs = malloc(BATCH * sizeof *addrs);
    size_t *lens = malloc(BATCH * sizeof *lens);
    int rc = addrs && lens ? GT_OK : gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    for (long k = 0; rc == GT_OK && k < rounds; k++) {
        ts[k] = (int64_t)time(NULL);
        for (size_t first = 0; rc == GT_OK && first < l->n; first += BATCH) {
            size_t m = l->n - first < BATCH ? l->n - first : BATCH;
            for (size_t i = 0; i < m; i++) {
                addrs[i] = l->v[first + i].addr;
                lens[i] = l->v[first + i].addr_len;
            }
            rc = gt_probe_connect_all(addrs, lens, m, timeout_ms,
                                      rtt + (size_t)k * l->n + first, err);
        }
    }
    free(addrs);
    free(lens);
    return rc;
}

static int probe_parse(const struct gt_input *in, const struct gt_collect_opts *o,
                       const struct gt_sink *sink, struct gt_error *err)
{
    if (!o->src || gt_site_name_problem(o->src, strlen(o->src)))
        return gt_error_set(err, GT_EUSAGE, in->name, "probe: --src NAME is required (the "
                            "site the probes are sent from)");
    if (!in->fp)
        return gt_error_set(err, GT_EINPUT, in->name, "probe: expected a targets file");
    long rounds = o->probe_count > 0 ? o->probe_count : 1;
    long timeout = o->probe_timeout_ms > 0 ? o->probe_timeout_ms : DEFAULT_TIMEOUT_MS;
    struct targets l = {0};
    long lines = 0;
    int rc = read_targets(in->fp, o->probe_port ? o->probe_port : GT_PROBE_DEFAULT_PORT, sink,
                          &l, &lines);
    if (rc == GT_OK && l.n == 0)
        rc = gt_error_set(err, GT_EINPUT, in->name, lines ? "no usable target: not a targets "
                          "file ('SITE HOST[:PORT]' per line)" : "no targets");
    double *rtt = rc == GT_OK ? malloc((size_t)rounds * l.n * sizeof *rtt) : NULL;
    int64_t *ts = rc == GT_OK ? malloc((size_t)rounds * sizeof *ts) : NULL;
    if (rc == GT_OK && (!rtt || !ts))
        rc = gt_error_set(err, GT_ENOMEM, NULL, "out of memory");
    if (rc == GT_OK)
        rc = measure(&l, rounds, timeout, rtt, ts, err);
    for (long k = 0; rc == GT_OK && k < rounds; k++)
        for (size_t i = 0; rc == GT_OK && i < l.n; i++) {
            struct gt_sample s = {o->src, strlen(o->src), l.v[i].site, strlen(l.v[i].site),
                                  ts[k], k, rtt[(size_t)k * l.n + i], NULL, 0};
            rc = sink->emit(sink->ctx, &s);
        }
    free(rtt);
    free(ts);
    free(l.v);
    return rc;
}

const struct gt_collector gt_collector_probe = {
    "probe",
    "gridtail's own probes: TCP connect RTT from --src to each 'SITE HOST[:PORT]' of "
    "a targets file",
    probe_parse,
    NULL,
    false,
    NULL,
};
