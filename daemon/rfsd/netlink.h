/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Link and default route events (rtnetlink, libmnl), handed to the
 * interfaces (ifaces.c).
 */
#ifndef RFSD_NETLINK_H
#define RFSD_NETLINK_H

#include <stddef.h>

#include "loop.h"

struct rfsd_ifaces;
struct rfsd_netlink;

/* Subscribe, and watch the socket in loop. */
int rfsd_netlink_open(struct rfsd_netlink **nl, struct rfsd_loop *loop,
		      struct rfsd_ifaces *ifs, char *err, size_t len);
void rfsd_netlink_close(struct rfsd_netlink *nl);	/* NULL is fine */

#endif /* RFSD_NETLINK_H */
