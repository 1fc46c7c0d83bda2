/* SPDX-License-Identifier: GPL-2.0 */
/* Internals shared by rfs_dp.c (global state) and rfs_iface.c. */
#ifndef RFS_DP_INT_H
#define RFS_DP_INT_H

#include <limits.h>
#include <net/if.h>

#include "rfs_bpf.h"
#include "rfs_dp.h"

struct rfs_dp {
	char pin_dir[PATH_MAX];
	char base[PATH_MAX];		/* pin_dir/v1 */
	char cgroup[PATH_MAX];
	int lock_fd;
	int nr_cpus;			/* possible CPUs, <= RFS_MAX_CPUS */
	__u32 qsize;
	enum rfs_trace_mode trace_mode;
	struct rfs_globals globals;

	int sock_outer_fd;
	int sock_flows_fd;		/* the table in the outer slot now */
	int cpu_queues_fd;
	int cpu_map_fd;
	int globals_fd;
	int gstats_fd;
	int tx_seq_fd;
	int rx_track_fd;
	int cpumap_prog_fd;
	struct rfs_dp_prog_ids ids;

	struct rfs_cpuset online;
	struct rfs_cpuset in_cpumap;	/* CPUs with a cpumap entry */
	/* went offline since their cpumap entry was made: the kthread lost
	 * its binding, the entry is remade once no flow is in flight there */
	struct rfs_cpuset unbound;
	/* when each CPU's cpumap kthread was first seen asleep, in a run
	 * of sightings (0: not asleep at the last look) */
	__u64 asleep_since_ms[RFS_MAX_CPUS];
	struct rfs_if **ifs;
	size_t n_ifs;
};

struct rfs_if {
	char name[IF_NAMESIZE];
	int ifindex;
	bool no_attach;
	enum rfs_xdp_mode mode;		/* as attached: native or generic */
	__u32 rx_queues;
	__u32 flow_cnt;
	struct rfs_cpuset configured;
	struct rfs_cpuset allowed;
	struct rfs_cpuset usable;
	/* the local path: XDP_PASS for flows whose app runs on the RX CPU */
	bool local_path;
	bool local_handover;
	__u32 local_drain_jiffies;

	int prog_fd;
	__u32 prog_id;
	int cfg_fd;
	int dev_outer_fd;
	int dev_flows_fd;
	int stats_fd;
	int hits_fd;
};

/* Dev flow tables (rfs_devtab.c). */
int rfs_devtab_create(int btf_src_fd, __u32 flow_cnt, __u32 rx_queues);
/* 1 when a flow in the table has frames in flight on cpu (RFS_NO_CPU: on
 * any CPU), 0 when none has, or -errno. */
int rfs_devtab_busy(struct rfs_dp *dp, int table_fd, __u32 cpu);
/* The same over the interface's current and previous table. */
int rfs_devtab_in_flight(struct rfs_dp *dp, const struct rfs_if *ifc,
			 __u32 cpu);
int rfs_devtab_resize(struct rfs_dp *dp, struct rfs_if *ifc, __u32 flow_cnt,
		      __u32 rx_queues, char *err);
void rfs_devtab_retire(struct rfs_dp *dp, struct rfs_if *ifc);

int rfs_if_adopt(struct rfs_dp *dp, const char *name, char *err);
/* Rewrite the interface's config map from its sets. */
int rfs_if_push_config(struct rfs_if *ifc, __u32 sample_flows);
/* Drop offline CPUs; finish removals whose queue has drained. */
void rfs_if_refresh(struct rfs_dp *dp, struct rfs_if *ifc);
void rfs_if_free(struct rfs_if *ifc);
void rfs_dp_if_remove(struct rfs_dp *dp, struct rfs_if *ifc);

#endif /* RFS_DP_INT_H */
