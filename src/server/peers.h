/*
 * peers.h - what each client address holds of the server: its open
 * connections and the request bytes it has in memory (bodies, and what
 * their JSON takes parsed).  One address may open at most max_conns
 * connections and hold at most max_bytes, so one host cannot take the
 * connections or the body budget the others need; addresses in the
 * trusted list (a reverse proxy, which carries many clients) are exempt.
 */
#ifndef GT_PEERS_H
#define GT_PEERS_H

#include <stdbool.h>
#include <stddef.h>

struct gt_peers;
struct gt_peer;

/* trusted: IP addresses, comma- or space-separated (copied); NULL when
 * out of memory. */
struct gt_peers *gt_peers_new(size_t max_conns, size_t max_bytes, const char *trusted);
void gt_peers_free(struct gt_peers *p);

/* Whether one more connection from addr (an IP address as text) is let in. */
bool gt_peers_admit(struct gt_peers *p, const char *addr);
/* A connection from addr opened / closed: its peer; NULL when it is not
 * counted: *refused (past max_conns: the caller closes it; gt_peers_admit
 * let it in racing with others) or out of memory. */
struct gt_peer *gt_peers_open(struct gt_peers *p, const char *addr, bool *refused);
void gt_peers_close(struct gt_peers *p, struct gt_peer *peer);

/* The most peer may hold at once: max_bytes, or SIZE_MAX for a trusted
 * proxy (or a peer not counted). */
size_t gt_peers_share(const struct gt_peers *p, const struct gt_peer *peer);

/* n more bytes held by peer: false, and nothing counted, past its share. */
bool gt_peers_hold(struct gt_peers *p, struct gt_peer *peer, size_t n);
void gt_peers_release(struct gt_peers *p, struct gt_peer *peer, size_t n);

#endif
