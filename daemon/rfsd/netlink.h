/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtnetlink (libmnl), for the interfaces (ifaces.h): link and default
 * route events, the links of this network namespace, and reaching an
 * interface that moved to another one.
 */
#ifndef RFSD_NETLINK_H
#define RFSD_NETLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/netlink.h>

#include "config.h"
#include "loop.h"

struct rfsd_ifaces;
struct rfsd_netlink;

/* Subscribe, and watch the socket in loop. */
int rfsd_netlink_open(struct rfsd_netlink **nl, struct rfsd_loop *loop,
		      struct rfsd_ifaces *ifs, char *err, size_t len);
void rfsd_netlink_close(struct rfsd_netlink *nl);	/* NULL is fine */
/* The links of this netns into *out (free() it), default_route set only
 * if routes.  0 or -errno. */
int rfsd_netlink_links(struct rfsd_link **out, size_t *n, bool routes);
/* The output interfaces of a main-table unicast default route (IPv4 or
 * IPv6, one or several next hops) into oifs; how many, 0 for another
 * message. */
int rfsd_route_default_oifs(const struct nlmsghdr *nlh, int *oifs, int max);
/* Detach prog_fd from ifindex in the netns known here as nsid. */
int rfsd_netns_xdp_detach(int nsid, int ifindex, int prog_fd, bool generic);

#endif /* RFSD_NETLINK_H */
