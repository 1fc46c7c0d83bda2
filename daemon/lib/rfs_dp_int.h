/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The datapath's own state (struct rfs_dp), for rfs_dp.c (open, close,
 * the list of interfaces), rfs_core.c (the core BPF object and its pins)
 * and rfs_cpumap.c (the cpumap and the online CPUs); tests/prog reads
 * its fds.  The code below them is handed what it needs instead.
 */
#ifndef RFS_DP_INT_H
#define RFS_DP_INT_H

#include <limits.h>
#include <net/if.h>

#include "rfs_bpf.h"
#include "rfs_devtab.h"
#include "rfs_dp.h"
#include "rfs_iface.h"

struct rfs_dp {
	char pin_dir[PATH_MAX];
	char base[PATH_MAX];		/* pin_dir/RFS_PIN_LAYOUT */
	char cgroup[PATH_MAX];
	int lock_fd;
	int nr_cpus;			/* possible CPUs, <= RFS_MAX_CPUS */
	int nr_rx_cpus;			/* possible CPUs, <= RFS_MAX_RX_CPUS */
	__u32 qsize;
	enum rfs_trace_mode trace_mode;
	struct rfs_kfeatures feat;	/* found at open */
	bool allow_unordered;
	const struct rfs_budget *budget;	/* the opts' */
	struct rfs_globals globals;

	int sock_outer_fd;
	int sock_flows_fd;		/* the table in the slot now */
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
	 * its binding (rfs_cpumap_sync()) */
	struct rfs_cpuset unbound;
	struct rfs_cpuset new_kthreads;	/* rfs_dp_take_new_kthreads() */
	/* when each CPU's kthread was first seen asleep (0: awake) */
	__u64 asleep_since_ms[RFS_MAX_CPUS];
	struct rfs_if **ifs;
	size_t n_ifs;
};

static inline __u64 rfs_dp_tables_bytes(const struct rfs_dp *dp)
{
	__u64 n = 0;
	size_t i;

	for (i = 0; i < dp->n_ifs; i++)
		n += rfs_table_bytes(dp->ifs[i]->flow_cnt,
				     dp->ifs[i]->rx_queues);
	return n;
}

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

/* Load the core object, write and pin its maps, attach and pin its
 * programs, into an empty pin dir. */
int rfs_core_create(struct rfs_dp *dp, const struct rfs_dp_opts *o,
		    char *err);
/* Take the core maps over from their pins. */
int rfs_core_adopt(struct rfs_dp *dp, char *err);
/* -EPROTO if the pin dir holds another pin layout than this build's. */
int rfs_core_other_layout(const struct rfs_dp *dp, char *err);
/* Every fd of the core's pinned objects to -1, closed first if asked. */
void rfs_core_reset_fds(struct rfs_dp *dp, bool close_them);
/* dp->ids and dp->trace_mode from the pinned links. */
void rfs_core_fill_ids(struct rfs_dp *dp);
/* Detach the pinned links the kernel lets go of (cgroup links); the
 * rest go when their pins are removed. */
void rfs_core_detach_links(const struct rfs_dp *dp);

/* The flow hash seed (rfs_seed.c, a leaf so that test_seed can make
 * getrandom() fail): whoever guesses it can send flows that all land in
 * one slot, so it comes from the kernel's CSPRNG or rfsd does not start. */
int rfs_seed_random(__u32 *seed, char *err, size_t len);

/* ---- rfs_cpumap.c ---- */

/* A cpumap queue for every online CPU. */
int rfs_cpumap_sync(struct rfs_dp *dp, char *err);

#endif /* RFS_DP_INT_H */
