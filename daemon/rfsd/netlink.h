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

/* Subscribe, and watch the socket in loop.  While *dp_busy the events
 * stay queued in the socket (rfsd_netlink_resume()). */
int rfsd_netlink_open(struct rfsd_netlink **nl, struct rfsd_loop *loop,
		      struct rfsd_ifaces *ifs, const bool *dp_busy, char *err,
		      size_t len);
/* NULL is fine. */
void rfsd_netlink_close(struct rfsd_netlink *nl);
/* The datapath is free again: handle the events that waited. */
void rfsd_netlink_resume(struct rfsd_netlink *nl);

#endif /* RFSD_NETLINK_H */
