/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What rtnetlink tells about a link that sysfs does not (rfs_link.c).
 */
#ifndef RFS_LINK_H
#define RFS_LINK_H

#include <stddef.h>
#include <linux/types.h>

/*
 * The number of RX queues the device allocated (dev->num_rx_queues, the
 * IFLA_NUM_RX_QUEUES of RTM_GETLINK): the real count (the rx-* of sysfs)
 * can be raised up to it at any time (ethtool -L), never past it.  0 and
 * *out set, or -errno: -ENODEV no such link, -EOPNOTSUPP the kernel does
 * not report it (built without CONFIG_RPS).
 */
int rfs_link_num_rx_queues(int ifindex, __u32 *out);
/* Its answer, len bytes from the socket: the same results, -EPROTO for
 * bytes that are no netlink message of seq and portid (0: any). */
int rfs_link_parse_rxq(const void *buf, size_t len, unsigned int seq,
		       unsigned int portid, __u32 *out);

#endif /* RFS_LINK_H */
