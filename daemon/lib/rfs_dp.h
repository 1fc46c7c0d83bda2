/* SPDX-License-Identifier: GPL-2.0 */
/* The datapath as userspace sees it: the shared BPF state (rfs_dp) and
 * one interface (rfs_if), pinned under <pin_dir>/<RFS_PIN_LAYOUT> so that
 * after a crash it keeps steering and the next rfs_dp_open() adopts it.
 * Functions return 0 or -errno and on failure write a one-line reason
 * into err, which the control socket sends back. */
#ifndef RFS_DP_H
#define RFS_DP_H

#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"
#include "rfs_common.h"
#include "rfs_decide.h"
#include "rfs_hash.h"

#define RFS_ERR_LEN 256

/* ---- what the kernel and an interface offer (rfs_features.c) ---- */
struct rfs_local_params {
	__u32 drain_jiffies;	/* rfs_if_config.local_drain_jiffies */
	bool handover;		/* rfs_if_config.local_handover */
	bool safe;		/* the drain is known: else no local path */
};

/* Where the cpumap kthread can hold skbs after our cpumap program ran. */
enum rfs_cpumap_gro {
	RFS_GRO_NONE,		/* no GRO stage: a batch goes straight up */
	RFS_GRO_READABLE,	/* bpf_cpu_map_entry.gro, read by the proof */
	RFS_GRO_UNREADABLE,	/* a GRO stage the proof can't look into */
};

struct rfs_kfeatures {
	char release[65];	/* uname -r */
	bool btf;		/* /sys/kernel/btf/vmlinux: CO-RE, tp_btf */
	bool tp_sock_len;	/* btf_trace_sock_recv_length + _send_length */
	bool kprobes;		/* the kprobe PMU (perf_event_open kprobes) */
	bool fentry;		/* BTF of tcp_recvmsg + direct-call trampolines */
	bool func_ret;		/* bpf_get_func_ret (5.17): fexit socket hooks */
	bool sockops_state;	/* BPF_SOCK_OPS_STATE_CB (a socket's close) */
	bool tp_enqueue;	/* tp_btf/xdp_cpumap_enqueue */
	bool tp_sock_full;	/* tp_btf/udp_fail_queue_rcv_skb (early drop) */
	bool tp_sock_full_skb;	/* ... with the refused skb (6.10) */
	bool tp_kthread;	/* tp_btf/xdp_cpumap_kthread with its stats arg */
	bool kthread_data;	/* task->worker_private->data is the cpumap entry */
	bool task_state;	/* task_struct.__state (is the kthread asleep) */
	bool cpumap_prog;	/* bpf_cpumap_val.bpf_prog: cpumap programs */
	bool frame_meta;	/* xdp_frame.metasize: metadata crosses the ring */
	enum rfs_cpumap_gro cpumap_gro;
	int hz;			/* CONFIG_HZ; 0: unknown */
	bool faked;		/* RFS_TEST_FEATURES changed something */
};

/* Then, for tests, RFS_TEST_FEATURES ("name=value,...") overrides f. */
void rfs_kfeatures_detect(struct rfs_kfeatures *f);
/* One feature by its field's name: bools 0/1, cpumap_gro
 * none/readable/unreadable, hz a number; -EINVAL for anything else. */
int rfs_kfeat_set(struct rfs_kfeatures *f, const char *name,
		  const char *value);

/* ---- what each feature means (pure) ---- */

enum rfs_feat_level {
	RFS_FEAT_OK,		/* as the design wants it */
	RFS_FEAT_DEGRADED,	/* still in order; less local, or costlier */
	RFS_FEAT_UNSAFE,	/* the in-order rule can't be kept */
};

#define RFS_FEAT_MAX 16

struct rfs_feat_line {
	const char *name;	/* "cpumap_gro", "socket_hooks", ... */
	enum rfs_feat_level level;
	char value[48];		/* what was found / chosen */
	char why[200];		/* what it means, one sentence */
};

struct rfs_feat_report {
	struct rfs_feat_line line[RFS_FEAT_MAX];
	int n;
	bool order_kept;	/* no line is RFS_FEAT_UNSAFE */
};

void rfs_kjudge(const struct rfs_kfeatures *f, struct rfs_feat_report *r);

struct rfs_if_facts {
	bool native;		/* native XDP (else generic: skb mode) */
	long long gro_flush_timeout;	/* ns; -1: unreadable */
};
/* One interface's lines, appended to r (as "<what>" names). */
void rfs_kjudge_iface(const struct rfs_kfeatures *f,
		      const struct rfs_if_facts *i, struct rfs_feat_report *r);
const char *rfs_feat_level_name(enum rfs_feat_level l);

/* ---- the local path ---- */

/* bpf_jiffies64() now, as the programs stamp it */
bool rfs_read_jiffies(__u64 *out);
long long rfs_if_gro_flush_timeout(const char *ifname);	/* ns; -1: unreadable */
/* The interface's RX queues in sysfs (0: no such interface); rps (may be
 * NULL) gets the first rps_cpus with a CPU in it: kernel RPS on, else "". */
unsigned int rfs_sysfs_rx_queues(const char *ifname, char *rps, size_t len);
#define RFS_RPS_WHY \
	"it moves the frames xdp-rfs steers into other CPUs' backlogs, past the in-order rule"
void rfs_local_path_params(const char *ifname, bool no_attach,
			   struct rfs_local_params *p);

/* ---- what rtnetlink tells of a link that sysfs does not (rfs_link.c) ---- */

/* IFLA_NUM_RX_QUEUES: -ENODEV no such link, -EOPNOTSUPP no CONFIG_RPS. */
int rfs_link_num_rx_queues(int ifindex, __u32 *out);
/* Its answer from the socket; -EPROTO: no netlink message of seq, portid. */
int rfs_link_parse_rxq(const void *buf, size_t len, unsigned int seq,
		       unsigned int portid, __u32 *out);

/* ---- budgets for the flow tables (rfs_budget.c, pure): one request
 * could ask for gigabytes of kernel memory; a share of MemTotal keeps a
 * burst of attaches out of reclaim ---- */
#define RFS_BUDGET_IFACE_SHIFT	6	/* MemTotal / 64 per interface */
#define RFS_BUDGET_TOTAL_SHIFT	4	/* MemTotal / 16 in total */
#define RFS_BUDGET_IFACE_FALLBACK	(64ull << 20)
#define RFS_BUDGET_TOTAL_FALLBACK	(256ull << 20)

struct rfs_budget {
	__u64 iface;	/* bytes one interface's flow table may take */
	__u64 total;	/* ... every interface's together */
};

__u64 rfs_table_bytes(__u32 flow_cnt, __u32 rx_queues);
/* May such a table join others bytes of the other interfaces'? */
int rfs_budget_check(const struct rfs_budget *b, const char *what,
		     __u32 flow_cnt, __u32 rx_queues, __u64 others,
		     char *err, size_t len);
void rfs_budget_default(__u64 memtotal, struct rfs_budget *b);
int rfs_meminfo_total(const char *path, __u64 *bytes);
/* rfs_text_u64() (parse.h) on the file at path */
int rfs_file_u64(const char *path, const char *key, __u64 *out);
void rfs_budget_fmt(__u64 bytes, char *buf, size_t len);	/* "64.0 MiB" */

/* ---- why a flow still holds a leaving CPU (rfs_hold.c, pure:
 * rfs_devtab.c reads the maps): status, explain and the log say why ---- */
enum rfs_hold_why {	/* in words: rfs_hold_why_words() */
	RFS_HOLD_NONE,		/* drained: free to leave */
	RFS_HOLD_LOCAL,
	RFS_HOLD_QUEUED,
	RFS_HOLD_NO_PROOF,
};

struct rfs_hold_in {
	struct rfs_dev_flow f;
	bool in_cpumap;		/* its CPU has a cpumap entry */
	/* remote: the target's marks for f.rx_cpu and its delivered epoch */
	struct rfs_rx_track track;
	__u32 delivered;
	bool idle;		/* target's kthread asleep after the reads */
	bool quiet;		/* ... and at every look for a second */
	bool settled;		/* no frame can be sent to f.cpu on this
				   entry any more, since an RCU wait that
				   ended before idle was read: a replaced
				   table, or a CPU out of the allowed set */
	bool have_tx;		/* dropped_upto could be read */
	__u32 dropped_upto;	/* f.rx_cpu's last flush to f.cpu that
				   found the ring full */
	/* local: jiffies now (read after the entry) */
	bool have_jiffies;
	__u64 jiffies;
	__u32 drain_jiffies;
};

/* The drain test of include/rfs_order.h, as its reason. */
enum rfs_hold_why rfs_hold_judge(const struct rfs_hold_in *in);
/* "local", "queued", "no_proof" ("none"), and the reason in words. */
const char *rfs_hold_why_name(enum rfs_hold_why why);
const char *rfs_hold_why_words(enum rfs_hold_why why);

#define RFS_HOLD_SHOW	4	/* flows shown per CPU; the rest counted */

struct rfs_held_flow {
	__u32 index;		/* in its dev table (explain's dev slot) */
	__u32 slot;		/* (hash >> 8) & flow_mask */
	__u32 rxq;
	__u32 flow_mask;	/* its table's */
	bool prev_table;	/* the table before the last resize */
	struct rfs_dev_flow f;
	enum rfs_hold_why why;
	bool kthread_asleep;	/* the target's kthread, as judged */
};

struct rfs_hold_cpu {
	__u32 cpu;
	__u64 since_ms;		/* monotonic ms it started leaving */
	__u32 flows;		/* held there, all tables */
	__u32 shown;		/* the first ones, kept by rfs_hold_add() */
	struct rfs_held_flow first[RFS_HOLD_SHOW];
};

void rfs_hold_add(struct rfs_hold_cpu *c, const struct rfs_held_flow *h);
/* "dev slot 25 (rx queue 0, hash & 0x000fff00 = 0x00000c00), RX CPU 0
 * -> CPU 1, seq 77: <why>" (the table index, as explain shows it). */
char *rfs_hold_flow_words(const struct rfs_held_flow *h, char *buf,
			  size_t len);
/* Warn of a CPU still leaving at bound_ms (0: never), then each time the
 * wait doubles: named again without flooding the log.  *next_ms: 0. */
bool rfs_hold_warn_due(__u64 waited_ms, __u64 bound_ms, __u64 *next_ms);

struct rfs_dp_opts {
	const char *pin_dir;		/* default RFS_PIN_DIR_DEFAULT */
	/* where this mount namespace reaches pin_dir, if elsewhere (under
	 * rfsd.service, which can't enter /sys/fs/bpf); NULL: pin_dir */
	const char *pin_at;
	const char *cgroup;		/* cgroup v2 dir for sockops; NULL: root */
	__u32 sock_flow_entries;	/* 0: RFS_SOCK_FLOW_DEFAULT */
	__u32 cpumap_qsize;		/* 0: RFS_CPUMAP_QSIZE */
	enum rfs_trace_mode trace_mode;
	bool allow_unordered;
	/* NULL or 0: none; read at each attach and resize (SIGHUP) */
	const struct rfs_budget *budget;
};

struct rfs_dp_prog_ids {
	__u32 cpumap, enqueue, sockops, recv, send;	/* 0: not loaded */
};

/* One interface has its own instance of the XDP program, so its settings
 * are one array slot away, not a per-frame lookup by ifindex. */
struct rfs_if {
	char name[IF_NAMESIZE];
	int ifindex;
	bool no_attach;
	enum rfs_xdp_mode mode;		/* as attached: native or generic */
	__u32 rx_queues;
	__u32 flow_cnt;
	struct rfs_cpuset configured;	/* the set asked for */
	struct rfs_cpuset allowed;	/* ... steered to now (online ones) */
	struct rfs_cpuset usable;	/* allowed, and those still draining */
	/* the local path: XDP_PASS for flows whose app runs on the RX CPU */
	bool local_path;
	bool local_handover;
	__u32 local_drain_jiffies;
	bool sampling;			/* rfsctl flows is counting */
	bool noguard;			/* in-order rule off (bench only) */
	bool kernel_rps;		/* RPS turned on since attach (logged) */
	/* per CPU leaving it (usable, not allowed): since when (monotonic
	 * ms, 0: not leaving), and the wait of the next warning */
	__u64 leaving_since_ms[RFS_MAX_CPUS];
	__u64 leaving_warn_ms[RFS_MAX_CPUS];

	int prog_fd;			/* also for BPF_PROG_TEST_RUN */
	__u32 prog_id;
	int cfg_fd;
	int dev_outer_fd;
	int dev_flows_fd;
	int stats_fd;
	int hits_fd;
};

/* Anyone reads a field, only the library writes one. */
struct rfs_dp {
	char pin_dir[PATH_MAX];		/* rfs_dp_opts' pin_dir, for users */
	char pin_at[PATH_MAX];		/* rfs_dp_opts' pin_at, else pin_dir */
	char base[PATH_MAX];		/* pin_at/RFS_PIN_LAYOUT */
	char cgroup[PATH_MAX];
	int lock_fd;
	int nr_cpus;			/* possible CPUs, <= RFS_MAX_CPUS */
	int nr_rx_cpus;			/* possible CPUs, <= RFS_MAX_RX_CPUS */
	__u32 qsize;
	enum rfs_trace_mode trace_mode;
	struct rfs_kfeatures feat;	/* at open */
	bool allow_unordered;
	const struct rfs_budget *budget;	/* the opts' */
	struct rfs_globals globals;

	int globals_fd;			/* the core maps */
	int sock_outer_fd;
	int sock_flows_fd;		/* the table in the outer slot now */
	int cpu_queues_fd;
	int cpu_map_fd;
	int gstats_fd;
	int tx_seq_fd;
	int rx_track_fd;
	int sock_full_fd;
	int cpumap_prog_fd;
	struct rfs_dp_prog_ids ids;

	struct rfs_cpuset online;
	struct rfs_cpuset in_cpumap;	/* CPUs with a cpumap entry */
	/* offline since their cpumap entry was made: kthread unbound */
	struct rfs_cpuset unbound;
	struct rfs_cpuset new_kthreads;	/* rfs_dp_take_new_kthreads() */
	/* when each CPU's kthread was first seen asleep (0: awake) */
	__u64 asleep_since_ms[RFS_MAX_CPUS];
	/* the interfaces attached now, adopted ones too, in attach order */
	struct rfs_if **ifs;
	size_t n_ifs;
};

/* libbpf's and libxdp's messages at -v only */
void rfs_log_hook_libs(void);

/* Load and pin the datapath, or adopt the one pinned under pin_dir (then
 * *adopted is set and the pinned sizes win over the opts').  Holds an
 * flock() on the pin dir while dp is open: a second rfsd gets -EBUSY. */
int rfs_dp_open(struct rfs_dp **dp, const struct rfs_dp_opts *opts,
		bool *adopted, char *err);
/* teardown: detach every interface and program and remove the pins; else
 * just release the handles and leave the datapath running. */
void rfs_dp_close(struct rfs_dp *dp, bool teardown);

/* Detach the XDP programs on ifindex (0: all) that use dp's maps but are
 * none of its interfaces': how many, or -errno. */
int rfs_dp_sweep_orphans(struct rfs_dp *dp, int ifindex);
/* Remove all the datapath under pin_dir attached or pinned, then every
 * other program that uses a map pinned there; -EBUSY while an rfsd holds
 * the pin dir.  Nothing pinned is not an error. */
int rfs_dp_cleanup(const char *pin_dir, char *err);

int rfs_dp_set_sock_flow_entries(struct rfs_dp *dp, __u32 n, char *err);
/* Early drop on (a window from the kernel's HZ, rfs_full_window) or off. */
int rfs_dp_set_early_drop(struct rfs_dp *dp, bool on);
/* The CPUs whose cpumap entry (and kthread) was made since the last call. */
void rfs_dp_take_new_kthreads(struct rfs_dp *dp, struct rfs_cpuset *out);

/* out has nr_cpus entries */
int rfs_dp_read_gstats(const struct rfs_dp *dp, struct rfs_global_stats *out);
/* A new array (free() it), or NULL with errno. */
struct rfs_cpu_queue *rfs_dp_queues(const struct rfs_dp *dp);
/* Frames in each CPU's cpumap ring, not yet dequeued (an estimate). */
int rfs_dp_read_backlog(const struct rfs_dp *dp, __u64 *out);
int rfs_dp_write_ksched_note(const struct rfs_dp *dp, int cpu, __u64 note);
__u32 rfs_dp_desired_cpu(const struct rfs_dp *dp, __u32 hash);
/* Follow the online CPUs in every interface and the cpumap (rfsd's timer). */
int rfs_dp_refresh_cpus(struct rfs_dp *dp, char *err);

struct rfs_if *rfs_dp_if_find(struct rfs_dp *dp, const char *name);
struct rfs_if *rfs_dp_if_find_index(struct rfs_dp *dp, int ifindex);

struct rfs_if_opts {
	struct rfs_cpuset cpus;		/* empty: every online CPU */
	__u32 flow_cnt;			/* 0: RFS_FLOW_CNT_DEFAULT */
	enum rfs_xdp_mode mode;
	/* tests: load for BPF_PROG_TEST_RUN only; name is a label */
	bool no_attach;
	__u32 rx_queues;		/* no_attach only; 0: 1 */
	/* every frame through the cpumap, also for the RX CPU's own flows */
	bool no_local_path;
	bool noguard;			/* benchmarks only: in-order rule off */
	bool allow_unordered;
};

/* Refuses: no such interface, already attached, another XDP program there
 * (never replaced), a kernel that can't keep flows in order (unless
 * allow_unordered), a bad flow_cnt, a CPU not online. */
int rfs_if_attach(struct rfs_dp *dp, const char *name,
		  const struct rfs_if_opts *opts, struct rfs_if **out,
		  char *err);
int rfs_if_detach(struct rfs_dp *dp, struct rfs_if *ifc, char *err);
/* The interface vanished: nothing to detach. */
void rfs_if_forget(struct rfs_dp *dp, struct rfs_if *ifc);
int rfs_if_rename(struct rfs_dp *dp, struct rfs_if *ifc, const char *name);
bool rfs_if_prog_on(int ifindex, __u32 prog_id);

/* "mode native, 1 rx queue, flow_cnt 4096, cpus 0-1, local path on" */
void rfs_if_describe(const struct rfs_if *ifc, char *buf, size_t len);

/* Live changes, in order (include/rfs_order.h): a CPU removed gets no new
 * flows and keeps its own until their frames there are delivered; a
 * resized table starts empty, the old one read until drained; logged, why
 * given ("config reload"). */
int rfs_if_set_cpus(struct rfs_dp *dp, struct rfs_if *ifc,
		    const struct rfs_cpuset *cpus, const char *why, char *err);
int rfs_if_set_flow_cnt(struct rfs_dp *dp, struct rfs_if *ifc, __u32 n,
			const char *why, char *err);
/* Each CPU leaving ifc and the flows it waits for (caller frees *out). */
int rfs_if_holds(struct rfs_dp *dp, struct rfs_if *ifc,
		 struct rfs_hold_cpu **out, size_t *n, char *err);
bool rfs_if_leaving_warn_due(struct rfs_if *ifc, unsigned int cpu,
			     __u64 now_ms, __u64 bound_ms);
int rfs_if_set_noguard(struct rfs_dp *dp, struct rfs_if *ifc, bool on,
		       char *err);

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

/* ---- rfsctl explain (rfs_explain.c): what one flow's next frame will do,
 * and why.  rfs_if_explain() reads the state rfs_xdp reads for the flow;
 * the pure half (tests/unit/test_explain.c) feeds it to the code the XDP
 * program runs, in its order: the hash, the sock slot, the dev table's
 * entry (or the previous table's), rfs_pick_cpu(), and on HELD the drain
 * test and rfs_pick_cpu() again.  Two inputs exist only in the kernel at
 * frame time: the CPU the frame arrives on (each case is one RX CPU), and
 * whether the target's cpumap kthread is asleep then (both are answered).
 * ---- */

/* The state rfs_xdp reads for a flow, as the maps hold it now. */
struct rfs_explain_in {
	struct rfs_flow_key key;
	bool steerable;			/* TCP or UDP with ports */
	struct rfs_globals g;		/* hash seed, sock mask, cpu mask */
	struct rfs_if_config cfg;	/* the interface's rfs_if_cfg */
	bool have_sock;			/* its sock slot could be read */
	rfs_sock_entry_t sock_entry;
	bool have_jiffies;		/* jiffies read (rfs_read_jiffies()) */
	__u64 jiffies;
	__u64 in_cpumap[RFS_CPU_WORDS];	/* CPUs with a cpumap entry */
};

/* One RX queue's entry for the flow and the ordering state behind it. */
struct rfs_explain_queue {
	__u32 rxq;
	bool have_table;		/* a current table with a header */
	__u32 index;			/* rfs_dev_index() in it */
	struct rfs_dev_flow entry;
	bool have_prev;			/* a previous table (after a resize) */
	__u32 prev_index;
	struct rfs_dev_flow prev_entry;
	/* rfs_xdp's st.cur: entry, or prev_entry if only that is valid */
	struct rfs_dev_flow cur;
	bool cur_from_prev;
	/* for a remote cur: the target's mark row for cur.rx_cpu, its
	 * queue, the RX CPU's sequence counters toward it */
	bool have_track;
	struct rfs_rx_track track;
	bool have_cpu_queue;
	struct rfs_cpu_queue q;
	bool have_tx;
	__u32 tx_seq;			/* last seq cur.rx_cpu sent to cur.cpu */
	__u32 tx_dropped_upto;
	int kthread_asleep_now;		/* -1: unknown; seen in /proc now */
	enum rfs_hold_why hold;		/* rfs_hold_judge() on cur */
	__u64 leaving_since_ms;		/* cur.cpu leaving since (mono ms) */
};

enum rfs_explain_drain {
	RFS_XD_NOT_ASKED,	/* not HELD: the program doesn't ask */
	RFS_XD_LOCAL,		/* rfs_local_drained() */
	RFS_XD_REMOTE,		/* rfs_remote_drained() */
	RFS_XD_NO_STATE,	/* remote, but no track/queue entry: 0 */
};

enum rfs_explain_action {
	RFS_XA_PASS_PROTO,	/* not TCP/UDP: pass_other_proto */
	RFS_XA_PASS_NO_TABLE,	/* no table or no CPU allowed: pass_no_table */
	RFS_XA_LOCAL,		/* XDP_PASS on the RX CPU (local path) */
	RFS_XA_REDIRECT,	/* into cpu's cpumap queue */
	RFS_XA_REDIRECT_ERR,	/* cpu has no cpumap entry: redirect_err */
};

/* What one frame arriving on rx_cpu does. */
struct rfs_explain_case {
	__u32 rx_cpu;
	struct rfs_choice first;	/* rfs_pick_cpu(cur_drained = 0) */
	enum rfs_explain_drain drain;
	bool age_known;			/* RFS_XD_LOCAL: the last local */
	__s32 age;			/* frame's age, in jiffies */
	bool proven;			/* RFS_XD_REMOTE: drained without */
	bool if_asleep;			/* and with the kthread asleep */
	/* drained as the program will see it: 1, 0, or -1 when it depends
	 * on what only the kernel knows then (kthread asleep, jiffies) */
	int drained;
	struct rfs_choice then;		/* rfs_pick_cpu(cur_drained = 1) */
	struct rfs_choice result;	/* with drained as known (0 if -1) */
	enum rfs_explain_action action;
	enum rfs_explain_action action_drained;	/* when drained is -1 */
};

/* The hash and the desired CPU as rfs_xdp computes them. */
static inline __u32 rfs_explain_hash(const struct rfs_explain_in *in)
{
	return rfs_flow_hash(&in->key, in->g.hash_seed);
}

static inline __u32 rfs_explain_desired(const struct rfs_explain_in *in,
					__u32 hash)
{
	return in->have_sock ? rfs_sock_entry_cpu(in->sock_entry, hash,
						  in->g.cpu_mask) : RFS_NO_CPU;
}

/* The frame's fate when it arrives on rx_cpu from queue q. */
void rfs_explain_case(const struct rfs_explain_in *in,
		      const struct rfs_explain_queue *q, __u32 rx_cpu,
		      struct rfs_explain_case *out);
/* Names for JSON: "new", "keep", ...; "pass", "local", "cpumap"; the
 * case in one word ("held_or_switch": as only the kernel will know). */
const char *rfs_explain_verdict_name(__u8 verdict);
const char *rfs_explain_action_name(enum rfs_explain_action a);
const char *rfs_explain_next(const struct rfs_explain_case *c);
/* The case in words: "keep: ... because ...".  Returns buf. */
char *rfs_explain_words(const struct rfs_explain_in *in,
			const struct rfs_explain_queue *q,
			const struct rfs_explain_case *c, char *buf,
			size_t len);
/* in's state from the maps; *out one per RX queue (caller frees). */
int rfs_if_explain(struct rfs_dp *dp, struct rfs_if *ifc,
		   struct rfs_explain_in *in,
		   struct rfs_explain_queue **out, size_t *n, char *err);

/* ---- cpumap kthreads (rfs_devtab.c), known by what only the kernel
 * makes: PF_KTHREAD and rfs_cpu_queue.kthread_pid; a name only checks */
#define RFS_PF_KTHREAD	0x00200000	/* task flags, include/linux/sched.h */

/* "pid (comm) state ppid pgrp session tty tpgid flags ...", from the last
 * ')' on, since a comm may hold ')' and blanks.  0, or -EINVAL. */
static inline int rfs_parse_task_stat(const char *buf, char *comm, size_t len,
				      char *state, unsigned int *flags)
{
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	size_t n;

	if (!open || !close || close < open || !len ||
	    sscanf(close + 1, " %c %*d %*d %*d %*d %*d %u", state, flags) != 2)
		return -EINVAL;
	n = close - open - 1;
	snprintf(comm, len, "%.*s", (int)(n < len - 1 ? n : len - 1), open + 1);
	return 0;
}

/* A pidfd on CPU cpu's kthread of cpumap map_id and its state ('S':
 * asleep), read while it lived; else -ESRCH, the reason in why. */
int rfs_kthread_open(__u32 pid, int cpu, __u32 map_id, char *state,
		     char *why, size_t len);
/* Its PID is still its own. */
bool rfs_pidfd_alive(int pidfd);
/* fn(ctx, cpu, pid, state) for each kthread of cpumap map_id until fn
 * returns nonzero: for a kthread whose first batch has not run yet. */
void rfs_kthreads_scan(__u32 map_id, int (*fn)(void *ctx, int cpu, __u32 pid,
					       char state), void *ctx);

/* ---- inside the library: only rfs_dp.c changes the list of interfaces;
 * rfs_bpf.c knows no struct of the datapath ---- */

/* "<fmt>" into err (RFS_ERR_LEN), %m naming e; returns -|e| */
int rfs_errf(char *err, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* An array for a swapped-in table, typed by value_type of btf_src_fd's BTF. */
int rfs_create_table(int btf_src_fd, const char *name, const char *value_type,
		     __u32 value_size, __u32 entries);
/* Into a new buffer (free() it), or NULL with errno; by the batch
 * syscalls, else (older kernels) one entry at a time. */
void *rfs_array_read(int fd, __u32 value_size, __u32 entries);
int rfs_write_array(int fd, __u32 value_size, __u32 entries, const void *buf);

__u32 rfs_obj_id(int fd);	/* of a prog or map fd, 0 if unknown */
/* The desired CPU flows_fd records for hash, or RFS_NO_CPU. */
__u32 rfs_sock_desired_cpu(int flows_fd, const struct rfs_globals *g,
			   __u32 hash);
/* One per-CPU value into out[0..n), each size bytes (not the stride). */
int rfs_read_percpu(int fd, __u32 key, size_t size, void *out, int n);
/* Per-CPU value stride, as the kernel lays it out. */
static inline size_t rfs_percpu_stride(size_t size)
{
	return (size + 7) & ~(size_t)7;
}
/* A per-CPU map's value for key, one stride per *possible* CPU (more
 * than RFS_MAX_CPUS may be), in a new buffer, or NULL with errno. */
void *rfs_lookup_percpu(int fd, __u32 key, size_t size, int *ncpu);

/* The object pinned at <base>/<dir>/<name>, and pinning there (replaces). */
int rfs_get_pinned(const char *base, const char *dir, const char *name);
int rfs_pin_at(const char *base, int fd, const char *dir, const char *name,
	       char *err);

/* A struct's pins: each at <base>/<dir or sub>/<name>, its fd at offset
 * fd.  Opening checks a map's sizes (-EPROTO: another build's pins); a
 * missing pin is -errno with the others opened. */
struct rfs_pin {
	const char *dir, *name;
	size_t fd;
	__u32 value_size;	/* 0: not checked */
};

static inline int *rfs_pin_fd(void *obj, const struct rfs_pin *p)
{
	return (int *)((char *)obj + p->fd);
}

int rfs_pins_open(const char *base, const char *sub, void *obj,
		  const struct rfs_pin *p, size_t n, char *err);
int rfs_pins_pin(const char *base, const char *sub, void *obj,
		 const struct rfs_pin *p, size_t n, char *err);
/* Every fd to -1, closing the open ones if close_them. */
void rfs_pins_reset(void *obj, const struct rfs_pin *p, size_t n,
		    bool close_them);

/* Return once every program that could still use a table it looked up
 * before a swap has ended: MEMBARRIER_CMD_GLOBAL waits out RCU. */
void rfs_wait_rcu(void);

/* Mount bpffs at /sys/fs/bpf unless pin_dir lies on one (not under systemd). */
int rfs_pin_ensure_bpffs(const char *pin_dir, char *err);
int rfs_pin_mkdirs(const char *path);	/* mkdir -p, mode 0700 */
/* flock(LOCK_EX|LOCK_NB) on the dir; returns the fd or -EBUSY. */
int rfs_pin_lock(const char *dir);
/* fn(path, ctx) on each pin under dir; remove: then unlink them and dir. */
typedef void (*rfs_pin_fn)(const char *path, void *ctx);
void rfs_pin_walk(const char *dir, bool remove, rfs_pin_fn fn, void *ctx);
/* snprintf into a PATH_MAX buffer, -ENAMETOOLONG if it does not fit. */
int rfs_path(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* What every interface's flow tables take now, for the budget. */
static inline __u64 rfs_dp_tables_bytes(const struct rfs_dp *dp)
{
	__u64 n = 0;
	size_t i;

	for (i = 0; i < dp->n_ifs; i++)
		n += rfs_table_bytes(dp->ifs[i]->flow_cnt,
				     dp->ifs[i]->rx_queues);
	return n;
}

/* The flow hash seed: whoever guesses it can send flows that all land in
 * one slot, so it comes from the kernel's CSPRNG or rfsd does not start. */
int rfs_seed_random(__u32 *seed, char *err);

/* ---- rfs_iface.c: one interface ---- */

void rfs_iface_free(struct rfs_if *ifc);	/* closes its fds */
void rfs_iface_unpin(struct rfs_dp *dp, const char *name);
int rfs_if_push_config(struct rfs_if *ifc, __u32 sample_flows);
/* The active slot of an rfs_if_cfg map. */
int rfs_if_read_config(int cfg_fd, struct rfs_if_config *out);
int rfs_iface_detach(struct rfs_dp *dp, struct rfs_if *ifc, char *err);
int rfs_iface_attach(struct rfs_dp *dp, const char *name,
		     const struct rfs_if_opts *opts, struct rfs_if **out,
		     char *err);
int rfs_iface_adopt(struct rfs_dp *dp, const char *name, struct rfs_if **out,
		    char *err);
/* rfs_dp_sweep_orphans() with the map ids in ours, sparing keep's. */
int rfs_iface_sweep(const __u32 *ours, size_t n_ours, const __u32 *keep,
		    size_t n_keep, int ifindex);
void rfs_iface_refresh(struct rfs_dp *dp, struct rfs_if *ifc);
void rfs_iface_note_leaving(struct rfs_if *ifc, __u64 now_ms);

/* ---- rfs_devtab.c: the dev flow tables ---- */

/* A new table, header written: its fd, or -errno. */
int rfs_devtab_create(int btf_src_fd, __u32 flow_cnt, __u32 rx_queues);
/* 1 when a flow in a replaced table has frames in flight (a local one
 * until drain_jiffies after its last), 0 when none has, or -errno. */
int rfs_devtab_busy(struct rfs_dp *dp, int table_fd, __u32 drain_jiffies);
/* The same on cpu, over the interface's current and previous table. */
int rfs_devtab_in_flight(struct rfs_dp *dp, const struct rfs_if *ifc,
			 __u32 cpu);
/* The flows of both tables held on cpus, into by_cpu[their cpu]. */
int rfs_devtab_holds(struct rfs_dp *dp, const struct rfs_if *ifc,
		     const struct rfs_cpuset *cpus, struct rfs_hold_cpu *by_cpu);
int rfs_devtab_resize(struct rfs_dp *dp, struct rfs_if *ifc, __u32 flow_cnt,
		      char *err);
/* Per CPU (dp->nr_cpus entries): its cpumap kthread is asleep now;
 * quiet: asleep at every look for a second or more. */
void rfs_kthreads_idle(struct rfs_dp *dp, bool *idle, bool *quiet);
void rfs_devtab_retire(struct rfs_dp *dp, struct rfs_if *ifc);

#endif /* RFS_DP_H */
