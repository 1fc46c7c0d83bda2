/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One interface inside the library (struct rfs_if): rfs_iface.c (the
 * object, pins, XDP hook, config map), rfs_if_attach.c, rfs_if_adopt.c,
 * rfs_if_set.c (live changes, the CPUs leaving), rfs_if_sample.c,
 * rfs_if_explain.c.  None of them sees struct rfs_dp or the list of
 * interfaces (rfs_dp.c's): each call is handed a struct rfs_if_env.
 */
#ifndef RFS_IFACE_H
#define RFS_IFACE_H

#include <limits.h>
#include <net/if.h>

#include <xdp/libxdp.h>

#include "rfs_dp.h"
#include "rfs_explain.h"
#include "rfs_hold.h"

/* What an interface's code needs of the datapath, built for each call
 * (rfs_dp_env()).  The sets are the datapath's own, so a cpumap entry a
 * refresh adds is seen at once; rfs_devtab_busy() writes asleep_since_ms. */
struct rfs_if_env {
	const char *base;		/* <pin_dir>/v4: pins go in if/<name>/ */
	int nr_cpus;			/* possible CPUs, <= RFS_MAX_CPUS */
	int nr_rx_cpus;			/* possible CPUs, <= RFS_MAX_RX_CPUS */
	const struct rfs_globals *globals;
	const struct rfs_cpuset *online;
	const struct rfs_cpuset *in_cpumap;
	const struct rfs_cpuset *unbound;
	__u64 *asleep_since_ms;
	int globals_fd;			/* the core maps */
	int sock_outer_fd;
	int sock_flows_fd;		/* the table in the outer slot now */
	int cpu_queues_fd;
	int cpu_map_fd;
	int gstats_fd;
	int tx_seq_fd;
	int rx_track_fd;
	struct rfs_budget budget;
	__u64 tables_bytes;		/* every interface's tables now */
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
	bool sampling;			/* rfsctl flows is counting */
	bool noguard;			/* in-order rule off (bench only) */
	bool rps_on;			/* kernel RPS seen on (logged once) */
	/* per CPU leaving it (usable, not allowed): since when (monotonic
	 * ms, 0: not leaving), and the wait of the next warning */
	__u64 leaving_since_ms[RFS_MAX_CPUS];
	__u64 leaving_warn_ms[RFS_MAX_CPUS];

	int prog_fd;
	__u32 prog_id;
	int cfg_fd;
	int dev_outer_fd;
	int dev_flows_fd;
	int stats_fd;
	int hits_fd;
};

/* ---- rfs_iface.c ---- */

/* A new interface object with no fds; free closes them. */
struct rfs_if *rfs_iface_new(const char *name);
void rfs_iface_free(struct rfs_if *ifc);

/* <base>/if/<name> into path (PATH_MAX). */
int rfs_iface_dir(const struct rfs_if_env *env, const char *name, char *path);
/* Pin, open the pins of, unpin the program and maps under rfs_iface_dir(). */
int rfs_iface_pin_all(const struct rfs_if_env *env, struct rfs_if *ifc,
		      char *err);
int rfs_iface_open_pins(const struct rfs_if_env *env, struct rfs_if *ifc);
void rfs_iface_unpin(const struct rfs_if_env *env, const char *name);
int rfs_iface_rename(const struct rfs_if_env *env, struct rfs_if *ifc,
		     const char *name);

static inline enum xdp_attach_mode rfs_iface_libxdp_mode(enum rfs_xdp_mode m)
{
	return m == RFS_XDP_NATIVE ? XDP_MODE_NATIVE :
	       m == RFS_XDP_GENERIC ? XDP_MODE_SKB : XDP_MODE_UNSPEC;
}
/* Detach every XDP program on ifindex (0: every interface of this
 * network namespace) that uses a map in ours (ids) and is not in keep:
 * ours by what it is, never by its name (rfs_cleanup.c).  How many, or
 * -errno. */
int rfs_iface_sweep(const __u32 *ours, size_t n_ours, const __u32 *keep,
		    size_t n_keep, int ifindex);
/* Is prog_id what runs on ifindex, alone or under a libxdp dispatcher?
 * *other: a foreign legacy program there; *mode: the hook's mode. */
bool rfs_iface_prog_attached(int ifindex, __u32 prog_id, __u32 *other,
			     char *other_name, size_t len,
			     enum rfs_xdp_mode *mode);
int rfs_iface_xdp_off(const struct rfs_if *ifc);

/* Every CPU in set exists and is online; a table size is a power of two
 * in RFS_FLOW_CNT_MIN..MAX.  Else "<what>: <why>" in err. */
int rfs_iface_check_cpus(const struct rfs_if_env *env, const char *what,
			 const struct rfs_cpuset *set, char *err);
int rfs_iface_check_flow_cnt(const char *what, __u32 n, char *err);
/* Rewrite the config map from ifc: returns once no frame can see the
 * configuration it replaced. */
int rfs_if_push_config(struct rfs_if *ifc, __u32 sample_flows);
/* The configuration in use (the active slot) of an rfs_if_cfg map. */
int rfs_if_read_config(int cfg_fd, struct rfs_if_config *out);

/* Take the program off (if still ours) and remove the pins. */
int rfs_iface_detach(const struct rfs_if_env *env, struct rfs_if *ifc,
		     char *err);

/* ---- rfs_if_attach.c, rfs_if_adopt.c ---- */

/* rfs_if_attach() (rfs_dp.h) but for the list. */
int rfs_iface_attach(const struct rfs_if_env *env, const char *name,
		     const struct rfs_if_opts *opts, struct rfs_if **out,
		     char *err);
/* The interface pinned under if/<name>, if its program still runs there;
 * unusable pins are removed, another build's (-EPROTO) left alone. */
int rfs_iface_adopt(const struct rfs_if_env *env, const char *name,
		    struct rfs_if **out, char *err);

/* ---- rfs_if_set.c, rfs_if_sample.c: the rfs_if_* calls of rfs_dp.h,
 * handed env by rfs_dp.c ---- */
int rfs_iface_set_cpus(const struct rfs_if_env *env, struct rfs_if *ifc,
		       const struct rfs_cpuset *cpus, char *err);
int rfs_iface_set_flow_cnt(const struct rfs_if_env *env, struct rfs_if *ifc,
			   __u32 n, char *err);
int rfs_iface_holds(const struct rfs_if_env *env, struct rfs_if *ifc,
		    struct rfs_hold_cpu **out, size_t *n, char *err);
int rfs_iface_sample_collect(const struct rfs_if_env *env, struct rfs_if *ifc,
			     size_t limit, struct rfs_flow_sample **out,
			     size_t *n, char *err);

/* Follow the online CPUs; finish removals whose flows have drained. */
void rfs_iface_refresh(const struct rfs_if_env *env, struct rfs_if *ifc);
/* Stamp the CPUs that started leaving at now_ms, forget those that stopped. */
void rfs_iface_note_leaving(struct rfs_if *ifc, __u64 now_ms);

/* ---- rfs_explain.c ---- */

int rfs_iface_explain(const struct rfs_if_env *env, struct rfs_if *ifc,
		      struct rfs_explain_in *in,
		      struct rfs_explain_queue **out, size_t *n, char *err);

/* ---- rfs_socktab.c: the sock flow table, datapath-wide ---- */

/* A table in rfs_sock_outer's slot 0: its fd, or -errno. */
int rfs_socktab_create(int globals_fd, int outer_fd, __u32 entries,
		       char *err);
/* Replace the table in the slot (*flows_fd) with one of n entries that
 * holds the same flows, and the mask in rfs_globals (*g) with n - 1. */
int rfs_socktab_resize(int globals_fd, int outer_fd, int *flows_fd,
		       struct rfs_globals *g, __u32 n, char *err);
/* The desired CPU recorded for a hash, or RFS_NO_CPU. */
__u32 rfs_socktab_desired_cpu(int flows_fd, const struct rfs_globals *g,
			      __u32 hash);

#endif /* RFS_IFACE_H */
