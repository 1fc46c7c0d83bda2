/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sock flow table (rfs_socktab.c), as the socket programs find it: in
 * slot 0 of rfs_sock_outer, indexed by hash & rfs_globals.sock_flow_mask,
 * each entry the CPU a flow's application last ran on.  Making it,
 * resizing it live, reading one flow's CPU.  Pinning it is the caller's.
 */
#ifndef RFS_SOCKTAB_H
#define RFS_SOCKTAB_H

#include <linux/types.h>

#include "rfs_common.h"

/* A table of entries entries put in the outer slot: its fd or -errno
 * with the reason in err.  globals_fd lends it its BTF. */
int rfs_socktab_create(int globals_fd, int outer_fd, __u32 entries,
		       char *err);
/* Replace the table in the slot (*flows_fd) with one of n entries that
 * holds the same flows, and the mask in rfs_globals (*g) with n - 1. */
int rfs_socktab_resize(int globals_fd, int outer_fd, int *flows_fd,
		       struct rfs_globals *g, __u32 n, char *err);
/* The desired CPU recorded for a hash, or RFS_NO_CPU. */
__u32 rfs_socktab_desired_cpu(int flows_fd, const struct rfs_globals *g,
			      __u32 hash);

#endif /* RFS_SOCKTAB_H */
