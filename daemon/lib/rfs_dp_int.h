/* SPDX-License-Identifier: GPL-2.0 */
/* Internals shared by rfs_dp.c (global state) and rfs_iface.c. */
#ifndef RFS_DP_INT_H
#define RFS_DP_INT_H

#include <limits.h>
#include <net/if.h>

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

/* errors: "<fmt>" into err (RFS_ERR_LEN), returns -e */
int rfs_errf(char *err, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* BTF-typed array for a swapped-in table, BTF taken from a map that has
 * it; value type looked up by name. Returns fd or -errno. */
int rfs_create_table(int btf_src_fd, const char *name, const char *value_type,
		     __u32 value_size, __u32 entries);
/* Read a whole array map (value_size each) into buf. */
int rfs_read_array(int fd, __u32 value_size, __u32 entries, void *buf);
int rfs_write_array(int fd, __u32 value_size, __u32 entries, const void *buf);
/* fd (a pinned map, or -1) has u32 keys and value_size values, else
 * -EPROTO: made by another build (rfs_dp.c). */
int rfs_check_map(int fd, const char *name, __u32 value_size, char *err);
/* The id of a prog or map fd, 0 if it can't be had. */
__u32 rfs_obj_id(int fd);
/* One per-CPU value into out[0..n), each size bytes (not the stride). */
int rfs_read_percpu(int fd, __u32 key, size_t size, void *out, int n);
/* Per-CPU value stride as the kernel lays it out. */
static inline size_t rfs_percpu_stride(size_t size)
{
	return (size + 7) & ~(size_t)7;
}

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
