/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel and interface facts the local path's ordering depends on. */
#ifndef RFS_FEATURES_H
#define RFS_FEATURES_H

#include <stdbool.h>
#include <linux/types.h>

struct rfs_local_params {
	int hz;			/* CONFIG_HZ, or the assumed 1000 */
	__u32 drain_jiffies;	/* rfs_if_config.local_drain_jiffies */
	bool handover;		/* rfs_if_config.local_handover */
};

int rfs_kernel_hz(void);
long long rfs_if_gro_flush_timeout(const char *ifname);
void rfs_local_path_params(const char *ifname, bool no_attach,
			   struct rfs_local_params *p);

#endif /* RFS_FEATURES_H */
