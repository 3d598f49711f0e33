/*
 * probe.h - gridtail's own RTT probes: the `probe` format.
 *
 * Its input is a targets file, "SITE HOST[:PORT]" per line ('#'
 * comments; IPv6 as [ADDR]:PORT); `--src` names the site the probes are
 * sent from.  Every target is probed at once, --count rounds (default 1,
 * one sample a minute per pair when cron runs it every minute, as AMP
 * does): the RTT is the time a TCP connection takes to open (SYN to
 * SYN-ACK), or to be refused (the RST is a reply too); no answer within
 * --probe-timeout ms, or an unreachable network, is a lost probe (NULL).
 * Nothing needs root: no raw sockets.  Measuring comes before the first
 * sample is emitted, so ingest holds no database lock while it waits.
 */
#ifndef GT_PROBE_H
#define GT_PROBE_H

#include "collector.h"

#include <stddef.h>
#include <sys/socket.h>

#define GT_PROBE_DEFAULT_PORT 22
#define GT_PROBE_MAX_TARGETS 4096

/* One targets-file line (comments and blanks already removed): the site
 * name and host as spans into line, the port (default_port when none).
 * NULL if fine, else what is wrong. */
const char *gt_probe_parse_target(const char *line, size_t len, unsigned default_port,
                                  const char **site, size_t *site_len, const char **host,
                                  size_t *host_len, unsigned *port);

/* Open a TCP connection to each of the n addresses at once and wait at
 * most timeout_ms: rtt_ms[i] is the time to connect or be refused, NAN
 * when lost (no answer, or the network reports no route).  A failure of
 * this host's own (no socket, no free port) is GT_EIO: it is not a loss
 * and nothing should be stored. */
int gt_probe_connect_all(const struct sockaddr_storage *addrs, const size_t *addr_lens,
                         size_t n, long timeout_ms, double *rtt_ms, struct gt_error *err);

#endif
