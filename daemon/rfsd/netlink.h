/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Link events (rtnetlink RTMGRP_LINK, libmnl), handed to the configured
 * interfaces (ifaces.h): an attached interface that disappears is
 * forgotten, a configured one that appears is attached.
 */
#ifndef RFSD_NETLINK_H
#define RFSD_NETLINK_H

#include <stdbool.h>
#include <stddef.h>

#include "loop.h"

struct rfsd_ifaces;
struct rfsd_netlink;

/* Subscribe, and watch the socket in loop. */
int rfsd_netlink_open(struct rfsd_netlink **nl, struct rfsd_loop *loop,
		      struct rfsd_ifaces *ifs, char *err,
		      size_t len);
/* NULL is fine. */
void rfsd_netlink_close(struct rfsd_netlink *nl);

#endif /* RFSD_NETLINK_H */
