/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One interface, inside the library: its instance of the XDP program, its
 * maps and pins, and what it was set to (struct rfs_if), and the functions
 * that attach, adopt, change, sample and detach it:
 *
 *	rfs_iface.c	the object, its pins, its XDP hook, its config map,
 *			detach; the accessors of rfs_dp.h
 *	rfs_if_attach.c	load, attach, pin (rfs_iface_attach)
 *	rfs_if_adopt.c	take it over from the pins an earlier rfsd left
 *	rfs_if_set.c	live changes: CPUs, table size, the CPU refresh
 *	rfs_if_sample.c	counters and flow sampling
 *	rfs_if_hold.c	the CPUs leaving it and the flows they wait for
 *
 * None of them sees struct rfs_dp or the list of interfaces: what they
 * need of the shared datapath is handed to every call as a struct
 * rfs_if_env (rfs_dp_env() builds it), and rfs_dp.c, which owns the list,
 * adds and removes the interfaces these functions make and unmake.
 */
#ifndef RFS_IFACE_H
#define RFS_IFACE_H

#include <limits.h>
#include <net/if.h>

#include <xdp/libxdp.h>

#include "rfs_budget.h"
#include "rfs_dp.h"
#include "rfs_explain.h"
#include "rfs_hold.h"

/*
 * What an interface's code needs of the shared datapath: where its pins
 * go, the core maps its program shares, the CPU sets.  Built from the
 * datapath for each call; the sets are the datapath's own (a refresh that
 * adds a cpumap entry is seen at once), asleep_since_ms is written by
 * rfs_devtab_busy().
 */
struct rfs_if_env {
	const char *base;		/* <pin_dir>/v4: pins go in if/<name>/ */
	int nr_cpus;			/* possible CPUs, <= RFS_MAX_CPUS */
	int nr_rx_cpus;			/* possible CPUs, <= RFS_MAX_RX_CPUS */
	const struct rfs_globals *globals;
	const struct rfs_cpuset *online;
	const struct rfs_cpuset *in_cpumap;	/* CPUs with a cpumap entry */
	/* went offline since their cpumap entry was made (rfs_cpumap.c) */
	const struct rfs_cpuset *unbound;
	/* per CPU: when its cpumap kthread was first seen asleep */
	__u64 *asleep_since_ms;
	/* the core maps every interface's XDP program reuses */
	int globals_fd;
	int sock_outer_fd;
	int sock_flows_fd;		/* the table in the outer slot now */
	int cpu_queues_fd;
	int cpu_map_fd;
	int gstats_fd;
	int tx_seq_fd;
	int rx_track_fd;
	/* flow table budgets, and what every interface's tables take now */
	struct rfs_budget budget;
	__u64 tables_bytes;
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
	/* rfsctl flows is counting its frames (rfs_if_cfg.sample_flows):
	 * every push of the config keeps it on */
	bool sampling;
	bool noguard;			/* in-order rule off (bench only) */
	bool rps_on;			/* kernel RPS seen on (logged once) */
	/* per CPU leaving it (usable, not allowed: its flows drain): when
	 * that was first seen, monotonic ms (0: not leaving), and the wait
	 * at which rfsd warns next (rfs_hold_warn_due) */
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

/* A new interface object with no fds, and its release (closes them). */
struct rfs_if *rfs_iface_new(const char *name);
void rfs_iface_free(struct rfs_if *ifc);

/* <base>/if/<name> into path (PATH_MAX). */
int rfs_iface_dir(const struct rfs_if_env *env, const char *name, char *path);
/* Pin the program and the maps under rfs_iface_dir(). */
int rfs_iface_pin_all(const struct rfs_if_env *env, struct rfs_if *ifc,
		      char *err);
/* Open the program and the maps pinned under rfs_iface_dir(): 0, or the
 * -errno of the first that can't be. */
int rfs_iface_open_pins(const struct rfs_if_env *env, struct rfs_if *ifc);
/* Remove rfs_iface_dir() and every pin in it. */
void rfs_iface_unpin(const struct rfs_if_env *env, const char *name);
/* Follow a rename: the pins move to if/<name>. */
int rfs_iface_rename(const struct rfs_if_env *env, struct rfs_if *ifc,
		     const char *name);

static inline enum xdp_attach_mode rfs_iface_libxdp_mode(enum rfs_xdp_mode m)
{
	return m == RFS_XDP_NATIVE ? XDP_MODE_NATIVE :
	       m == RFS_XDP_GENERIC ? XDP_MODE_SKB : XDP_MODE_UNSPEC;
}
/* Is prog_id what runs on ifindex, alone or under a libxdp dispatcher?
 * Sets *other to the id of a foreign legacy program found there, *mode to
 * the mode the hook is in. */
bool rfs_iface_prog_attached(int ifindex, __u32 prog_id, __u32 *other,
			     char *other_name, size_t len,
			     enum rfs_xdp_mode *mode);
/* Take the interface's program off its XDP hook. */
int rfs_iface_xdp_off(const struct rfs_if *ifc);

/* Every CPU in set must exist and be online ("<what>: CPU 9 ..."). */
int rfs_iface_check_cpus(const struct rfs_if_env *env, const char *what,
			 const struct rfs_cpuset *set, char *err);
/* A table size: a power of two in RFS_FLOW_CNT_MIN..MAX. */
int rfs_iface_check_flow_cnt(const char *what, __u32 n, char *err);
/* Rewrite the interface's config map from its sets: returns once no
 * frame can see the configuration it replaced. */
int rfs_if_push_config(struct rfs_if *ifc, __u32 sample_flows);
/* The configuration in use of an rfs_if_cfg map (its active slot). */
int rfs_if_read_config(int cfg_fd, struct rfs_if_config *out);

/* Take the program off (if it is still ours) and remove the pins; the
 * caller forgets ifc once this succeeded. */
int rfs_iface_detach(const struct rfs_if_env *env, struct rfs_if *ifc,
		     char *err);

/* ---- rfs_if_attach.c, rfs_if_adopt.c ---- */

/* rfs_if_attach() (rfs_dp.h) but for the list: *out is the new interface,
 * attached and pinned. */
int rfs_iface_attach(const struct rfs_if_env *env, const char *name,
		     const struct rfs_if_opts *opts, struct rfs_if **out,
		     char *err);
/* The interface pinned under if/<name>, if its program still runs there;
 * pins that can no longer be used are removed, pins of another build
 * (-EPROTO) are left alone. */
int rfs_iface_adopt(const struct rfs_if_env *env, const char *name,
		    struct rfs_if **out, char *err);

/* ---- rfs_if_set.c ---- */

/* Follow the online CPUs; finish removals whose flows have drained. */
void rfs_iface_refresh(const struct rfs_if_env *env, struct rfs_if *ifc);
int rfs_iface_set_cpus(const struct rfs_if_env *env, struct rfs_if *ifc,
		       const struct rfs_cpuset *cpus, char *err);
int rfs_iface_set_flow_cnt(const struct rfs_if_env *env, struct rfs_if *ifc,
			   __u32 n, char *err);
int rfs_iface_set_noguard(struct rfs_if *ifc, bool on, char *err);

/* ---- rfs_if_sample.c ---- */

int rfs_iface_sample_start(const struct rfs_if_env *env, struct rfs_if *ifc,
			   char *err);
void rfs_iface_sample_stop(struct rfs_if *ifc);
int rfs_iface_sample_collect(const struct rfs_if_env *env, struct rfs_if *ifc,
			     size_t limit, struct rfs_flow_sample **out,
			     size_t *n, char *err);

/* ---- rfs_if_hold.c ---- */

/* Stamp the CPUs that started leaving (usable, not allowed) at now_ms
 * and forget those that stopped. */
void rfs_iface_note_leaving(struct rfs_if *ifc, __u64 now_ms);
/* Each leaving CPU with the flows it waits for: *out has *n (caller
 * frees; NULL and 0 when none leaves). */
int rfs_iface_holds(const struct rfs_if_env *env, struct rfs_if *ifc,
		    struct rfs_hold_cpu **out, size_t *n, char *err);

/* ---- rfs_if_explain.c ---- */

/* Read what rfs_xdp would read for in->key (set by the caller) on each
 * RX queue: *out has *n queues (caller frees). */
int rfs_iface_explain(const struct rfs_if_env *env, struct rfs_if *ifc,
		      struct rfs_explain_in *in,
		      struct rfs_explain_queue **out, size_t *n, char *err);

#endif /* RFS_IFACE_H */
