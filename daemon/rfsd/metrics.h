/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /metrics over HTTP (libmicrohttpd), when [global] metrics_listen is set:
 * the Prometheus exposition of daemon/lib/rfs_prom.h, gathered by running
 * status and stats through the same command table and request parser as
 * the control socket (struct rfsd_dispatch).
 *
 * MHD runs inside rfsd's event loop, not in a thread of its own: its epoll
 * fd and a timerfd for its timeouts are two watches of the loop, and
 * MHD_run() is called from them.  So the exposition is built in the loop
 * thread, between two control requests, and sees the datapath the way a
 * stats request does: never in the middle of a resize's table swap or of
 * an attach or detach changing the interface list -- with no lock, since
 * nothing else touches them.  A slow or stuck scraper costs nothing: MHD's
 * sockets are non-blocking, the reply is built whole in memory and written
 * as the peer takes it, and a peer idle for RFSD_METRICS_TIMEOUT s is
 * dropped.
 *
 * A scrape is not free (status and a stats per interface, in rfsd's only
 * loop), and the peers need not be polite, so:
 *  - one snapshot serves every scrape within RFSD_METRICS_SNAP_MS of it:
 *    however many scrape, the datapath is read once a second at most;
 *  - one address holds RFSD_METRICS_PER_IP connections at most;
 *  - a request must be answered within RFSD_METRICS_DEADLINE s of the
 *    connection's accept (or of the answer to its last request, kept
 *    alive), whatever the peer is doing: one that trickles a byte now
 *    and then is never idle, so the idle timeout alone would keep it;
 *  - an address that is not loopback (0.0.0.0, a NIC's) is served, since
 *    someone wrote it in the config, but logged as a warning: there is no
 *    authentication.
 */
#ifndef RFSD_METRICS_H
#define RFSD_METRICS_H

#include <stddef.h>

#include "loop.h"

#define RFSD_METRICS_MAX_CONNS	16	/* at once; more wait in the backlog */
#define RFSD_METRICS_TIMEOUT	10	/* s without progress: dropped */
#define RFSD_METRICS_PER_IP	4	/* at once from one address */
#define RFSD_METRICS_DEADLINE	10	/* s from accept: dropped */
#define RFSD_METRICS_SNAP_MS	1000	/* a snapshot serves this long */

struct rfsd_dispatch;
struct rfsd_metrics;

/* Listen on addr ("127.0.0.1:9464", "[::1]:9464") and serve in loop.
 * 0, or -errno with "can't serve metrics on '<addr>': <cause>" in err. */
int rfsd_metrics_open(struct rfsd_metrics **m, struct rfsd_loop *loop,
		      const struct rfsd_dispatch *dispatch, const char *addr,
		      char *err, size_t len);
/* NULL is fine. */
void rfsd_metrics_close(struct rfsd_metrics *m);
/* What it listens on, as configured. */
const char *rfsd_metrics_addr(const struct rfsd_metrics *m);

#endif /* RFSD_METRICS_H */
