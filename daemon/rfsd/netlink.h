/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Link events (rtnetlink RTMGRP_LINK, libmnl): an attached interface that
 * disappears is forgotten, a configured one that appears is attached.
 */
#ifndef RFSD_NETLINK_H
#define RFSD_NETLINK_H

#include <stdbool.h>
#include <stddef.h>

struct rfsd;

int rfsd_netlink_open(struct rfsd *d, char *err, size_t len);
void rfsd_netlink_close(struct rfsd *d);
/* Detach prog_fd from ifindex in the netns known here as nsid. */
int rfsd_netlink_xdp_detach_moved(int nsid, int ifindex, int prog_fd,
				  bool generic);
/* The datapath is free again: handle the events that waited. */
void rfsd_netlink_resume(struct rfsd *d);

#endif /* RFSD_NETLINK_H */
