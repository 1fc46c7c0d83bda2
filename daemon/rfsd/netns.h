/* SPDX-License-Identifier: GPL-2.0 */
/* rtnetlink's answers about network namespaces (netns.c). */
#ifndef RFSD_NETNS_H
#define RFSD_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/netlink.h>

#include "config.h"

#define RFSD_NL_BUF	(64 * 1024)

struct rfsd_link_msg {
	struct rfsd_link l;
	int nsid, new_ifindex;		/* a move to another netns */
	bool has_xdp;
	__u32 xdp_prog;			/* the XDP program it runs now */
};

/* An RTM_NEWLINK or RTM_DELLINK into m: 0, or -1 for another message. */
int rfsd_link_parse(const struct nlmsghdr *nlh, struct rfsd_link_msg *m);
/* The output interfaces of a main-table unicast default route (IPv4 or
 * IPv6, one or several next hops) into oifs; how many, 0 for another
 * message. */
int rfsd_route_default_oifs(const struct nlmsghdr *nlh, int *oifs, int max);
/* The links of this netns into *out (free() it), default_route set only
 * if routes.  0 or -errno. */
int rfsd_netns_links(struct rfsd_link **out, size_t *n, bool routes);
/* Detach prog_fd from ifindex in the netns known here as nsid.  0 or
 * -errno: -ENOENT when no named namespace nor process holds it, -EACCES
 * when none rfsd may read does and it lacks CAP_SYS_PTRACE. */
int rfsd_netns_xdp_detach(int nsid, int ifindex, int prog_fd, bool generic);

#endif /* RFSD_NETNS_H */
