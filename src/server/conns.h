/*
 * conns.h - the server's open connections: each one counted against its
 * client address as it opens (peers.h: one connection too many is shut
 * down unanswered), and watched for its header deadline: a connection
 * whose request headers are not all in [server] header_timeout_s after
 * it opened (or after its last answer) is shut down by a sweeper thread.
 * The functions taking a connection find its watch through
 * libmicrohttpd's socket context (gt_conns_notify sets it).
 */
#ifndef GT_CONNS_H
#define GT_CONNS_H

#include "peers.h"

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

struct gt_conns;

/* peers borrowed, kept while the connections are; NULL when out of
 * memory. */
struct gt_conns *gt_conns_new(struct gt_peers *peers, long header_timeout_s);
/* Once every connection is closed (the daemon stopped). */
void gt_conns_free(struct gt_conns *w);

/* The sweeper: started (false when it cannot be), stopped and joined. */
bool gt_conns_sweep_start(struct gt_conns *w);
void gt_conns_sweep_stop(struct gt_conns *w);

/* libmicrohttpd's accept policy (MHD_AcceptPolicyCallback) and
 * connection notification (MHD_NotifyConnectionCallback), cls the
 * gt_conns. */
enum MHD_Result gt_conns_admit(void *cls, const struct sockaddr *addr, socklen_t addrlen);
void gt_conns_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                     enum MHD_ConnectionNotificationCode toe);

/* c's request headers are in (in), or its answer went out: its deadline
 * starts again. */
void gt_conns_headers_in(struct gt_conns *w, struct MHD_Connection *c, bool in);
/* c is one connection too many from its address: never answered. */
bool gt_conns_refused(struct MHD_Connection *c);
/* c's client address, as gt_conns_notify counted it, or NULL. */
struct gt_peer *gt_conns_peer(struct MHD_Connection *c);
/* c's client address as text, or "". */
void gt_conns_client(struct MHD_Connection *c, char *out, size_t size);

#endif
