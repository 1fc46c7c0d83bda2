/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The datapath's own state (struct rfs_dp), for the files that keep it:
 *
 *	rfs_dp.c	open and close; the list of interfaces, and the
 *			rfs_if_* calls of rfs_dp.h that go through it
 *	rfs_core.c	the core BPF object: load and pin it, or adopt its
 *			pins; its links and program ids
 *	rfs_cpumap.c	the cpumap queues and the online CPUs
 *
 * Below them, and handed what they need instead of struct rfs_dp: the
 * interface code (rfs_iface.h, through rfs_dp_env()), the dev and sock
 * flow tables (rfs_devtab.h, rfs_socktab.h) and libbpf helpers
 * (rfs_bpf.h).  The tests in tests/prog read the fds here too.
 */
#ifndef RFS_DP_INT_H
#define RFS_DP_INT_H

#include <limits.h>
#include <net/if.h>

#include "rfs_bpf.h"
#include "rfs_devtab.h"
#include "rfs_dp.h"
#include "rfs_iface.h"
#include "rfs_socktab.h"

struct rfs_dp {
	char pin_dir[PATH_MAX];
	char base[PATH_MAX];		/* pin_dir/v4 (RFS_PIN_LAYOUT) */
	char cgroup[PATH_MAX];
	int lock_fd;
	int nr_cpus;			/* possible CPUs, <= RFS_MAX_CPUS */
	int nr_rx_cpus;			/* possible CPUs, <= RFS_MAX_RX_CPUS */
	__u32 qsize;
	enum rfs_trace_mode trace_mode;
	struct rfs_kfeatures feat;	/* found at open */
	bool allow_unordered;
	const struct rfs_budget *budget;	/* the opts' (rfs_budget.h) */
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
	/* entries made since rfs_dp_take_new_kthreads() last asked: each
	 * has a new kthread, with the kernel's SCHED_OTHER */
	struct rfs_cpuset new_kthreads;
	/* when each CPU's cpumap kthread was first seen asleep, in a run
	 * of sightings (0: not asleep at the last look) */
	__u64 asleep_since_ms[RFS_MAX_CPUS];
	struct rfs_if **ifs;
	size_t n_ifs;
};

/* What every interface's flow table takes now. */
static inline __u64 rfs_dp_tables_bytes(const struct rfs_dp *dp)
{
	__u64 n = 0;
	size_t i;

	for (i = 0; i < dp->n_ifs; i++)
		n += rfs_table_bytes(dp->ifs[i]->flow_cnt,
				     dp->ifs[i]->rx_queues);
	return n;
}

/* What the interface code gets of dp for one call. */
static inline struct rfs_if_env rfs_dp_env(struct rfs_dp *dp)
{
	return (struct rfs_if_env){
		.budget = dp->budget ? *dp->budget : (struct rfs_budget){ 0 },
		.tables_bytes = rfs_dp_tables_bytes(dp),
		.base = dp->base,
		.nr_cpus = dp->nr_cpus,
		.nr_rx_cpus = dp->nr_rx_cpus,
		.globals = &dp->globals,
		.online = &dp->online,
		.in_cpumap = &dp->in_cpumap,
		.unbound = &dp->unbound,
		.asleep_since_ms = dp->asleep_since_ms,
		.globals_fd = dp->globals_fd,
		.sock_outer_fd = dp->sock_outer_fd,
		.sock_flows_fd = dp->sock_flows_fd,
		.cpu_queues_fd = dp->cpu_queues_fd,
		.cpu_map_fd = dp->cpu_map_fd,
		.gstats_fd = dp->gstats_fd,
		.tx_seq_fd = dp->tx_seq_fd,
		.rx_track_fd = dp->rx_track_fd,
	};
}

/* ---- rfs_core.c ---- */

/* Load the core object, write its maps, pin them, attach and pin its
 * programs: dp's pin dir is empty, its layout dirs made. */
int rfs_core_create(struct rfs_dp *dp, const struct rfs_dp_opts *o,
		    char *err);
/* Take the core maps over from their pins (interfaces: rfs_dp.c). */
int rfs_core_adopt(struct rfs_dp *dp, char *err);
/* -EPROTO if the pin dir holds another pin layout than this build's. */
int rfs_core_other_layout(const struct rfs_dp *dp, char *err);
/* dp->ids from the pinned links. */
void rfs_core_fill_ids(struct rfs_dp *dp);
/* Detach the pinned links the kernel lets go of (cgroup links). */
void rfs_core_detach_links(const struct rfs_dp *dp);

/* ---- rfs_cpumap.c ---- */

/* A cpumap queue for every online CPU; remade for one back online once
 * no flow of any interface is in flight there. */
int rfs_cpumap_sync(struct rfs_dp *dp, char *err);

#endif /* RFS_DP_INT_H */
