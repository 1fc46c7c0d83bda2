/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The datapath as userspace sees it: load or adopt the shared BPF state
 * (rfs_dp), and attach, configure and read one interface (rfs_if).
 * Everything the kernel runs is pinned under <pin_dir>/<RFS_PIN_LAYOUT>,
 * so after a crash the datapath keeps steering and the next rfs_dp_open()
 * adopts it.  Functions return 0 or -errno and on failure write a
 * one-line reason into err, which the control socket sends back.
 */
#ifndef RFS_DP_H
#define RFS_DP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "rfs_common.h"
#include "cpulist.h"
#include "rfs_features.h"
#include "parse.h"

#define RFS_ERR_LEN 256

/*
 * ---- budgets for the interfaces' flow tables (rfs_budget.c, pure) ----
 *
 * The largest flow_cnt on a NIC with many queues is gigabytes of kernel
 * memory that one control request could ask for; a budget turns that into
 * a refusal naming the limit.  The defaults are a share of MemTotal,
 * generous next to the default table and small enough that a burst of
 * attaches can't push the host into reclaim.  A resized table's old one
 * lives until drained: MemoryMax= in the unit leaves room for two.
 */
#define RFS_BUDGET_IFACE_SHIFT	6	/* MemTotal / 64 per interface */
#define RFS_BUDGET_TOTAL_SHIFT	4	/* MemTotal / 16 in total */
#define RFS_BUDGET_IFACE_FALLBACK	(64ull << 20)
#define RFS_BUDGET_TOTAL_FALLBACK	(256ull << 20)

struct rfs_budget {
	__u64 iface;	/* bytes one interface's flow table may take */
	__u64 total;	/* ... every interface's together */
};

/* The bytes of a table of flow_cnt entries per RX queue. */
__u64 rfs_table_bytes(__u32 flow_cnt, __u32 rx_queues);

/* May such a table join others bytes of the other interfaces'?  0, or
 * -ENOSPC with "<what>: its flow table would take 64.0 MiB (...), over
 * the budget of 16.0 MiB per interface (...)" in err. */
int rfs_budget_check(const struct rfs_budget *b, const char *what,
		     __u32 flow_cnt, __u32 rx_queues, __u64 others,
		     char *err, size_t len);

/* The defaults for memtotal bytes (0: unknown, the fallbacks). */
void rfs_budget_default(__u64 memtotal, struct rfs_budget *b);

/* MemTotal of a /proc/meminfo at path, in bytes: 0 or -errno. */
int rfs_meminfo_total(const char *path, __u64 *bytes);

/* "64.0 MiB", "512 KiB", "100 bytes" */
void rfs_budget_fmt(__u64 bytes, char *buf, size_t len);

struct rfs_dp_opts {
	const char *pin_dir;		/* default RFS_PIN_DIR_DEFAULT */
	const char *cgroup;		/* cgroup v2 dir for sockops; NULL: root */
	__u32 sock_flow_entries;	/* 0: RFS_SOCK_FLOW_DEFAULT */
	__u32 cpumap_qsize;		/* 0: RFS_CPUMAP_QSIZE */
	enum rfs_trace_mode trace_mode;
	bool allow_unordered;		/* rfsd's allow_unordered */
	/* NULL or 0: no limit; read at each attach and resize, so its
	 * owner may change it (SIGHUP) */
	const struct rfs_budget *budget;
};

struct rfs_dp;
struct rfs_if;

/* libbpf's and libxdp's own messages into log.c, shown at -v only. */
void rfs_log_hook_libs(void);

/* Load and pin the datapath, or adopt the one pinned under pin_dir (then
 * *adopted is set and the pinned sizes win over the opts').  Holds an
 * flock() on the pin dir while dp is open: a second rfsd gets -EBUSY. */
int rfs_dp_open(struct rfs_dp **dp, const struct rfs_dp_opts *opts,
		bool *adopted, char *err);
/* teardown: detach every interface and program and remove the pins; else
 * just release the handles and leave the datapath running. */
void rfs_dp_close(struct rfs_dp *dp, bool teardown);

/*
 * Detach every XDP program on ifindex (0: on every interface of this
 * network namespace) that uses dp's maps but is none of its interfaces'
 * (rfs_cleanup.c says why).  Returns how many it removed, or -errno.
 */
int rfs_dp_sweep_orphans(struct rfs_dp *dp, int ifindex);
/* Remove all the datapath under pin_dir attached or pinned, then every
 * other program that uses a map pinned there; -EBUSY while an rfsd holds
 * the pin dir.  Nothing pinned is not an error. */
int rfs_dp_cleanup(const char *pin_dir, char *err);

__u32 rfs_dp_sock_flow_entries(const struct rfs_dp *dp);
int rfs_dp_set_sock_flow_entries(struct rfs_dp *dp, __u32 n, char *err);
int rfs_dp_nr_cpus(const struct rfs_dp *dp);	/* possible CPUs */
/* The cpumap's id: its kthreads are "cpumap/<cpu>/map:<id>". */
__u32 rfs_dp_cpumap_id(const struct rfs_dp *dp);
/* The CPUs whose cpumap entry (and kthread) was made since the last call. */
void rfs_dp_take_new_kthreads(struct rfs_dp *dp, struct rfs_cpuset *out);
const char *rfs_dp_pin_dir(const struct rfs_dp *dp);
const char *rfs_dp_cgroup(const struct rfs_dp *dp);
enum rfs_trace_mode rfs_dp_trace_mode(const struct rfs_dp *dp);
/* What the kernel offers (found at open) and what it means for order. */
const struct rfs_kfeatures *rfs_dp_kfeatures(const struct rfs_dp *dp);
void rfs_dp_kjudge(const struct rfs_dp *dp, struct rfs_feat_report *r);

struct rfs_dp_prog_ids {
	__u32 cpumap, enqueue, sockops, recv, send;	/* 0: not loaded */
};
void rfs_dp_prog_ids(const struct rfs_dp *dp, struct rfs_dp_prog_ids *ids);

/* Per-CPU values: out has rfs_dp_nr_cpus() entries. */
int rfs_dp_read_gstats(const struct rfs_dp *dp, struct rfs_global_stats *out);
int rfs_dp_read_queues(const struct rfs_dp *dp, struct rfs_cpu_queue *out);
/* Frames in each CPU's cpumap ring, not yet dequeued (an estimate). */
int rfs_dp_read_backlog(const struct rfs_dp *dp, __u64 *out);
/* rfs_dp_read_queues() into a new array (free() it), or NULL. */
struct rfs_cpu_queue *rfs_dp_queues(const struct rfs_dp *dp);
/* Store rfsd's note on a CPU's kthread policy (ksched_note) without
 * touching the datapath's fields beside it. */
int rfs_dp_write_ksched_note(const struct rfs_dp *dp, int cpu, __u64 note);
/* The desired CPU recorded for a hash, or RFS_NO_CPU. */
__u32 rfs_dp_desired_cpu(const struct rfs_dp *dp, __u32 hash);

/* Follow the online CPUs in every interface and the cpumap (rfsd's timer). */
int rfs_dp_refresh_cpus(struct rfs_dp *dp, char *err);

/* The interfaces attached now, adopted ones too, in attach order. */
size_t rfs_dp_if_count(const struct rfs_dp *dp);
struct rfs_if *rfs_dp_if_at(struct rfs_dp *dp, size_t i);
struct rfs_if *rfs_dp_if_find(struct rfs_dp *dp, const char *name);
struct rfs_if *rfs_dp_if_find_index(struct rfs_dp *dp, int ifindex);

struct rfs_if_opts {
	struct rfs_cpuset cpus;		/* empty: every online CPU */
	__u32 flow_cnt;			/* 0: RFS_FLOW_CNT_DEFAULT */
	enum rfs_xdp_mode mode;
	/* tests only: load for BPF_PROG_TEST_RUN, attach nowhere; name
	 * is then just a label */
	bool no_attach;
	__u32 rx_queues;		/* no_attach only; 0: 1 */
	/* every frame through the cpumap, also for the RX CPU's own flows */
	bool no_local_path;
	/* benchmarks only (--unsafe-noguard): the in-order rule off */
	bool noguard;
	bool allow_unordered;
};

/* Refuses: no such interface, already attached, another XDP program there
 * (never replaced), a kernel that can't keep flows in order (unless
 * allow_unordered), a bad flow_cnt, a CPU that is not online.  Pinned
 * under <layout>/if/<name>/. */
int rfs_if_attach(struct rfs_dp *dp, const char *name,
		  const struct rfs_if_opts *opts, struct rfs_if **out,
		  char *err);
int rfs_if_detach(struct rfs_dp *dp, struct rfs_if *ifc, char *err);
/* The interface vanished: forget it and its pins, nothing to detach. */
void rfs_if_forget(struct rfs_dp *dp, struct rfs_if *ifc);

/* The interface was renamed: its pins follow. */
int rfs_if_rename(struct rfs_dp *dp, struct rfs_if *ifc, const char *name);
bool rfs_if_prog_on(int ifindex, __u32 prog_id);

const char *rfs_if_name(const struct rfs_if *ifc);
/* "mode native, 1 rx queue, flow_cnt 4096, cpus 0-1, local path on" */
void rfs_if_describe(const struct rfs_if *ifc, char *buf, size_t len);
int rfs_if_ifindex(const struct rfs_if *ifc);
enum rfs_xdp_mode rfs_if_mode(const struct rfs_if *ifc);	/* as attached */
__u32 rfs_if_rx_queues(const struct rfs_if *ifc);
__u32 rfs_if_flow_cnt(const struct rfs_if *ifc);
/* the set asked for, and the part of it steered to now (online ones) */
void rfs_if_cpus(const struct rfs_if *ifc, struct rfs_cpuset *configured,
		 struct rfs_cpuset *allowed);
__u32 rfs_if_prog_id(const struct rfs_if *ifc);
int rfs_if_prog_fd(const struct rfs_if *ifc);	/* for BPF_PROG_TEST_RUN */

/* Live changes, in order (include/rfs_order.h): a CPU removed from the
 * set gets no new flows, and its flows leave it once their frames there
 * are delivered; a resized table starts empty and the old one stays
 * readable until nothing in it is in flight. */
int rfs_if_set_cpus(struct rfs_dp *dp, struct rfs_if *ifc,
		    const struct rfs_cpuset *cpus, char *err);
int rfs_if_set_flow_cnt(struct rfs_dp *dp, struct rfs_if *ifc, __u32 n,
			char *err);
/* Each CPU leaving ifc (rfs_hold.h), since when, and the flows it waits
 * for with the reason; *out has *n entries (caller frees). */
struct rfs_hold_cpu;
int rfs_if_holds(struct rfs_dp *dp, struct rfs_if *ifc,
		 struct rfs_hold_cpu **out, size_t *n, char *err);
/* When cpu started leaving ifc, monotonic ms; 0: not leaving. */
__u64 rfs_if_leaving_since(const struct rfs_if *ifc, unsigned int cpu);
/* rfs_hold_warn_due() on the CPU's own record. */
bool rfs_if_leaving_warn_due(struct rfs_if *ifc, unsigned int cpu,
			     __u64 now_ms, __u64 bound_ms);
int rfs_if_set_noguard(struct rfs_dp *dp, struct rfs_if *ifc, bool on,
		       char *err);
bool rfs_if_noguard(const struct rfs_if *ifc);
/* Kernel RPS turned on since attach (rfs_if_rps_on()), at the last refresh. */
bool rfs_if_kernel_rps(const struct rfs_if *ifc);

/* out has rfs_dp_nr_cpus() entries. */
int rfs_if_read_stats(const struct rfs_if *ifc, struct rfs_if_stats *out);

struct rfs_flow_sample {
	__u32 hash;
	__u64 frames;		/* in the sampling window, all CPUs */
	__u32 rx_queue;		/* where the dev flow entry was found */
	__u32 current_cpu;	/* RFS_NO_CPU if the flow has none */
	__u32 desired_cpu;	/* RFS_NO_CPU if no socket recorded one */
	bool local;		/* passed up on its RX CPU (no cpumap) */
};
/* Flow sampling in two steps, so nothing waits for the window: start
 * counting frames per flow (-EBUSY if counting), then collect the flows
 * seen, busiest first (at most limit; caller frees *out). */
int rfs_if_sample_start(struct rfs_dp *dp, struct rfs_if *ifc, char *err);
void rfs_if_sample_stop(struct rfs_if *ifc);
int rfs_if_sample_collect(struct rfs_dp *dp, struct rfs_if *ifc, size_t limit,
			  struct rfs_flow_sample **out, size_t *n, char *err);

struct rfs_explain_in;
struct rfs_explain_queue;
/* rfsctl explain: what rfs_xdp reads for in->key per RX queue
 * (rfs_explain.h); caller frees *out. */
int rfs_if_explain(struct rfs_dp *dp, struct rfs_if *ifc,
		   struct rfs_explain_in *in,
		   struct rfs_explain_queue **out, size_t *n, char *err);

#endif /* RFS_DP_H */
