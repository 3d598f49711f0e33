/*
 * conns.c - see conns.h.
 */
#define _GNU_SOURCE   /* nanosleep */
#include "conns.h"
#include "mhd_lazy.h"
#include "base/util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

/* One open connection, watched for its header deadline. */
struct conn_watch {
    int fd;
    double since_ms;          /* opened, or its last answer went out */
    bool in_request;          /* the current request's headers are in */
    bool cut;                 /* shut down for being too slow, or refused */
    bool refused;             /* past max_connections_per_ip: never answered */
    struct gt_peer *peer;     /* the client's address: what it holds */
    struct conn_watch *prev, *next;
};

struct gt_conns {
    struct gt_peers *peers;         /* per client address: connections, bytes */
    double header_timeout_ms;
    pthread_mutex_t lock;           /* the open connections, for the header deadline */
    struct conn_watch *watched;
    pthread_t sweeper;
    bool sweeping;
    atomic_bool sweep_stop;
};

struct gt_conns *gt_conns_new(struct gt_peers *peers, long header_timeout_s)
{
    struct gt_conns *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->peers = peers;
    w->header_timeout_ms = 1e3 * (double)header_timeout_s;
    pthread_mutex_init(&w->lock, NULL);
    return w;
}

void gt_conns_free(struct gt_conns *w)
{
    if (!w)
        return;
    gt_conns_sweep_stop(w);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

/* an address as text, or "" */
static void address_text(const struct sockaddr *sa, char *out, size_t size)
{
    out[0] = 0;
    if (sa && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)size);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)size);
}

void gt_conns_client(struct MHD_Connection *c, char *out, size_t size)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    address_text(ci ? ci->client_addr : NULL, out, size);
}

/* A new connection: refused when its address has max_connections_per_ip
 * open already (unless [server] trusted_proxies lists it) */
enum MHD_Result gt_conns_admit(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    (void)addrlen;
    struct gt_conns *w = cls;
    char text[64];
    address_text(addr, text, sizeof text);
    return gt_peers_admit(w->peers, text) ? MHD_YES : MHD_NO;
}

/* A connection opened: counted against its address, and watched. */
static void watch(struct gt_conns *w, struct MHD_Connection *c, void **socket_context)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    struct conn_watch *cw;
    if (!ci || !(cw = calloc(1, sizeof *cw)))
        return;
    char addr[64];
    bool refused;
    gt_conns_client(c, addr, sizeof addr);
    /* counted here, under the peers' lock: admit() only looked, and the
       pool's threads accept at once */
    struct gt_peer *peer = gt_peers_open(w->peers, addr, &refused);
    *cw = (struct conn_watch){ci->connect_fd, gt_monotonic_ms(), false, refused, refused,
                              peer, NULL, w->watched};
    if (refused)
        shutdown(ci->connect_fd, SHUT_RDWR);
    if (w->watched)
        w->watched->prev = cw;
    w->watched = cw;
    *socket_context = cw;
}

/* A connection closed: its address lets it go. */
static void unwatch(struct gt_conns *w, struct conn_watch *cw, void **socket_context)
{
    if (cw->prev)
        cw->prev->next = cw->next;
    else
        w->watched = cw->next;
    if (cw->next)
        cw->next->prev = cw->prev;
    gt_peers_close(w->peers, cw->peer);
    free(cw);
    *socket_context = NULL;
}

void gt_conns_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                     enum MHD_ConnectionNotificationCode toe)
{
    struct gt_conns *w = cls;
    struct conn_watch *cw = *socket_context;
    pthread_mutex_lock(&w->lock);
    if (toe == MHD_CONNECTION_NOTIFY_STARTED)
        watch(w, c, socket_context);
    else if (cw)
        unwatch(w, cw, socket_context);
    pthread_mutex_unlock(&w->lock);
}

static struct conn_watch *connection_watch(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

void gt_conns_headers_in(struct gt_conns *w, struct MHD_Connection *c, bool in)
{
    struct conn_watch *cw = connection_watch(c);
    if (!cw)
        return;
    pthread_mutex_lock(&w->lock);
    cw->in_request = in;
    cw->since_ms = gt_monotonic_ms();
    pthread_mutex_unlock(&w->lock);
}

bool gt_conns_refused(struct MHD_Connection *c)
{
    const struct conn_watch *cw = connection_watch(c);
    return cw && cw->refused;
}

struct gt_peer *gt_conns_peer(struct MHD_Connection *c)
{
    const struct conn_watch *cw = connection_watch(c);
    return cw ? cw->peer : NULL;
}

/* Twice a second: a connection whose request headers are not all in
 * header_timeout_s after it opened (or after its last answer) is shut
 * down; libmicrohttpd then closes it.  Its idle timeout alone lets a
 * client that sends a header line every few seconds hold it forever.
 * Shutting down by fd cannot hit a reused descriptor: libmicrohttpd
 * notifies MHD_CONNECTION_NOTIFY_CLOSED (gt_conns_notify, which takes
 * the lock to unlink the watch) before it closes the socket, so while
 * the sweeper holds the lock every fd on the list is still the one it
 * watched. */
static void *sweep(void *arg)
{
    struct gt_conns *w = arg;
    while (!atomic_load(&w->sweep_stop)) {
        nanosleep(&(struct timespec){0, 500 * 1000 * 1000}, NULL);
        double now = gt_monotonic_ms();
        pthread_mutex_lock(&w->lock);
        for (struct conn_watch *cw = w->watched; cw; cw = cw->next)
            if (!cw->in_request && !cw->cut && now - cw->since_ms > w->header_timeout_ms) {
                shutdown(cw->fd, SHUT_RDWR);
                cw->cut = true;
            }
        pthread_mutex_unlock(&w->lock);
    }
    return NULL;
}

bool gt_conns_sweep_start(struct gt_conns *w)
{
    w->sweeping = pthread_create(&w->sweeper, NULL, sweep, w) == 0;
    return w->sweeping;
}

void gt_conns_sweep_stop(struct gt_conns *w)
{
    atomic_store(&w->sweep_stop, true);
    if (w->sweeping)
        pthread_join(w->sweeper, NULL);
    w->sweeping = false;
}
