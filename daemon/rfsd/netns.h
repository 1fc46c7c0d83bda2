/* SPDX-License-Identifier: GPL-2.0 */
/* Reaching an interface that moved to another network namespace (netns.c). */
#ifndef RFSD_NETNS_H
#define RFSD_NETNS_H

#include <stdbool.h>

/* Detach prog_fd from ifindex in the netns known here as nsid. */
int rfsd_netns_xdp_detach(int nsid, int ifindex, int prog_fd, bool generic);

#endif /* RFSD_NETNS_H */
