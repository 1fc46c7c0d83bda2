/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What rfsd's core parts share: the config (rfsd(8) CONFIGURATION has its
 * keys), the links and interfaces, the event loop, the kernel and the
 * cpumap kthreads (HACKING.md has the map).
 */
#ifndef RFSD_H
#define RFSD_H

#include <stdint.h>

#include <json.h>

#include "rfs_dp.h"	/* and the libc headers it takes */

#define RFSD_CONFIG_DEFAULT	"/etc/rfs/rfsd.conf"
#define RFSD_CONFIG_ERR_LEN	512

/* A drain normally takes a ring's latency plus a GRO flush, well under a
 * second: ten seconds is far past any flow that leaves gaps, and short
 * enough for an operator waiting on a removal. */
#define RFSD_LEAVING_WARN_DEFAULT	10
#define RFSD_LEAVING_WARN_MAX		86400

/* The keys as rfsd(8) describes them; 0 or NULL where not set. */
struct rfsd_iface_cfg {
	char name[IF_NAMESIZE];		/* [interface NAME]; "" for a pattern */
	char *match;			/* the words of a pattern section */
	char *cpus;			/* as written, resolved per node */
	__u32 flow_cnt;
	enum rfs_xdp_mode mode;
	bool noguard;			/* only under --unsafe-noguard */
	unsigned int set;		/* keys seen, for duplicates */
};

/* cpumap_kthread_sched (ksched.c): the default is SCHED_FIFO 1, which
 * preempts tasks the way kernel RFS's softirq does; the kernel's
 * SCHED_OTHER can be kept off its CPU for long (docs/design.md). */
enum rfsd_ksched_kind {
	RFSD_KSCHED_KERNEL,
	RFSD_KSCHED_NICE,		/* SCHED_OTHER at nice prio */
	RFSD_KSCHED_FIFO,		/* SCHED_FIFO at rt priority prio */
	RFSD_KSCHED_BATCH,		/* SCHED_BATCH at nice prio */
};

#define RFSD_KSCHED_DEFAULT \
	((struct rfsd_ksched){ .kind = RFSD_KSCHED_FIFO, .prio = 1 })

struct rfsd_ksched {
	enum rfsd_ksched_kind kind;
	int prio;
};

/* Each kind: as the config spells it ("fifo:N", N in lo..hi), the
 * kernel's policy, as the log names it, and what would let a kthread
 * kept waiting in sooner. */
extern const struct rfsd_ksched_kind_info {
	const char *name;
	int lo, hi;
	int policy;
	const char *policy_name, *hint;
} rfsd_ksched_kinds[];

struct rfsd_config {
	__u32 sock_flow_entries;
	char *socket;
	char *socket_group;		/* NULL: RFS_CTL_GROUP (peercred.h) */
	char *admin_group;		/* NULL: RFSD_ADMIN_GROUP */
	__u64 budget_iface;		/* bytes; 0: from MemTotal */
	__u64 budget_total;
	char *pin_dir;
	char *cgroup;
	bool detach_on_exit;
	char *metrics_listen;		/* "[::1]:9464"; NULL: off */
	struct rfsd_ksched ksched;
	bool allow_unordered;
	bool early_drop;
	__u32 leaving_warn_s;		/* 0: never warn */
	char *exclude;
	unsigned int set;
	struct rfsd_iface_cfg *ifs;
	size_t n_ifs;
};

/* Parse path into cfg: a missing file is an empty config unless
 * must_exist; noguard is refused (-EPERM) unless unsafe_noguard.  0 or
 * -errno with the reason in err, cfg then empty; _parse reads f (NULL: no
 * file), path only names it. */
int rfsd_config_load(const char *path, bool must_exist, bool unsafe_noguard,
		     struct rfsd_config *cfg, char *err);
int rfsd_config_parse(FILE *f, const char *path, struct rfsd_config *cfg,
		      char *err);
void rfsd_config_free(struct rfsd_config *cfg);
/* The value back as the config spells it: "kernel", "nice:-5", "fifo:1". */
void rfsd_ksched_name(const struct rfsd_ksched *k, char *buf, size_t len);
/* The section naming name exactly, or NULL. */
const struct rfsd_iface_cfg *rfsd_config_iface(const struct rfsd_config *cfg,
					       const char *name);
/* Words separated by blanks, each given to fn until it returns nonzero. */
int rfsd_for_words(const char *s, int (*fn)(const char *w, void *arg),
		   void *arg);
/* "[interface eth1]", "[interface eth* !eth9]" */
const char *rfsd_iface_cfg_label(const struct rfsd_iface_cfg *ic, char *buf,
				 size_t len);

/*
 * A cpus value on this node: words, each a CPU list, "all" (online),
 * "isolated" (isolcpus and nohz_full), "housekeeping" (online, not
 * isolated), "!" before a word takes it away; no word to add from means
 * all.  root prefixes /sys (""; tests give a fake one); NULL only checks
 * the spelling.  out empty: every online CPU, following hotplug (no cpus,
 * or just "all").  0; -EINVAL, -ERANGE a bad word, -ENOENT no CPU left.
 */
int rfsd_cpus_resolve(const char *spec, const char *root,
		      struct rfs_cpuset *out);
/* ic's cpus on this node; the reason in err if they can't be had. */
int rfsd_iface_cpus(const struct rfsd_iface_cfg *ic, struct rfs_cpuset *set,
		    char *err, size_t len);

/* What a node knows of a link, for the sections to match against. */
struct rfsd_link {
	char name[IF_NAMESIZE];
	int ifindex;
	unsigned short type;		/* ARPHRD_* */
	unsigned int flags;		/* IFF_* */
	bool default_route;		/* an oif of a main-table default */
};

#define RFSD_NL_BUF	(64 * 1024)	/* a netlink read (netns.c) */

struct rfsd_link_msg {
	struct rfsd_link l;
	int nsid, new_ifindex;		/* a move to another netns */
	bool has_xdp;
	__u32 xdp_prog;			/* the XDP program it runs now */
};

struct nlmsghdr;

/* An RTM_NEWLINK or RTM_DELLINK into m: 0, or -1 for another message. */
int rfsd_link_parse(const struct nlmsghdr *nlh, struct rfsd_link_msg *m);
/* The output interfaces of a main-table unicast default route (IPv4 or
 * IPv6, one or several next hops) into oifs; how many, 0 for another
 * message. */
int rfsd_route_default_oifs(const struct nlmsghdr *nlh, int *oifs, int max);
/* The links of this netns into *out (free() it), default_route set only
 * if routes.  0 or -errno. */
int rfsd_netns_links(struct rfsd_link **out, size_t *n, bool routes);
/* Detach prog_fd from ifindex in the netns known here as nsid.  0 or
 * -errno: -ENOENT when no named namespace nor process holds it, -EACCES
 * when none rfsd may read does and it lacks CAP_SYS_PTRACE. */
int rfsd_netns_xdp_detach(int nsid, int ifindex, int prog_fd, bool generic);

/*
 * Which section attaches l: the one naming it, else the first pattern
 * section whose words pick it.  NULL to attach with *ic, or why not
 * (*ic then names the pattern that picked it, or is NULL: none did).  A
 * pattern never picks an excluded, loopback or non-Ethernet link.
 */
const char *rfsd_config_match(const struct rfsd_config *cfg,
			      const struct rfsd_link *l,
			      const struct rfsd_iface_cfg **ic);
bool rfsd_config_wants_routes(const struct rfsd_config *cfg);

/* rfsd --check-config: what the config at path would attach in this netns
 * and with what, what it picks but skips and why, as text or JSON on
 * stdout; attaches nothing.  The exit code: 0 if all is well. */
int rfsd_check_config(const char *path, bool must_exist, bool unsafe_noguard,
		      bool json);

/* The config applied to the datapath (ifaces.c), and what rfsd knows of
 * each interface beyond it. */
struct rfsd_ifstate {
	char name[IF_NAMESIZE];
	bool user_detached;	/* rfsctl detach: don't bring it back */
	int last_err;		/* last attach attempt; -ENODEV: wait for it */
	__u32 lost_to;		/* the program that replaced ours; 0: none */
	bool lost;
};

struct rfsd_ifaces {
	struct rfs_dp *dp;
	const struct rfsd_config *cfg;	/* the config in effect */
	struct rfsd_ifstate *st;	/* malloc()ed */
	size_t n;
};

void rfsd_ifaces_start(struct rfsd_ifaces *ifs);
void rfsd_ifaces_reload(struct rfsd_ifaces *ifs,
			const struct rfsd_config *old);
/* What link events (netlink.c) say, for the interfaces. */
void rfsd_ifaces_link_new(struct rfsd_ifaces *ifs, const struct rfsd_link *l);
void rfsd_ifaces_rescan(struct rfsd_ifaces *ifs);
void rfsd_ifaces_link_gone(struct rfsd_ifaces *ifs, int ifindex);
void rfsd_ifaces_link_xdp(struct rfsd_ifaces *ifs, int ifindex,
			  __u32 prog_id);
void rfsd_ifaces_link_moved(struct rfsd_ifaces *ifs, int ifindex, int nsid,
			    int new_ifindex);
void rfsd_ifaces_resync(struct rfsd_ifaces *ifs);
/* status: the interfaces lost to another tool, [{"name", "replaced_by"}] */
struct json_object *rfsd_ifaces_lost_json(struct rfsd_ifaces *ifs);
const struct rfsd_ifstate *rfsd_ifaces_lost(struct rfsd_ifaces *ifs,
					    const char *name);
/* rfsctl attach (all forgotten) or detach (kept detached) of name. */
void rfsd_ifaces_user(struct rfsd_ifaces *ifs, const char *name, bool detach);
/* Named in the config, not attached, not detached by rfsctl. */
size_t rfsd_ifaces_waiting(struct rfsd_ifaces *ifs);

/* ---- the event loop (loop.c), link events and the kernel ---- */

/* An fd and where its events go.  A module embeds it in its own struct
 * and finds that again (rfsd_container_of()): handlers need no global. */
struct rfsd_watch {
	int fd;
	uint32_t events;	/* as registered */
	void (*fn)(struct rfsd_watch *w, uint32_t events);
};

struct rfsd_loop {
	int epfd;		/* epoll_create1()'s */
	bool stop;		/* rfsd_loop_run() returns once it is set */
	unsigned long removed;	/* watches removed so far */
};

#define rfsd_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

int rfsd_watch_add(struct rfsd_loop *l, struct rfsd_watch *w, uint32_t events);
int rfsd_watch_mod(struct rfsd_loop *l, struct rfsd_watch *w, uint32_t events);
void rfsd_watch_del(struct rfsd_loop *l, struct rfsd_watch *w);
/* A timerfd firing every ms as w: 0 or -errno.  Its handler takes the
 * expirations with rfsd_timer_ack(), or it fires again at once. */
int rfsd_timer_add(struct rfsd_loop *l, struct rfsd_watch *w, long ms);
void rfsd_timer_ack(struct rfsd_watch *w);
/* Run the handlers of the events until l->stop: 0, or -errno if epoll
 * fails.  A handler that removes a watch (a client it freed) ends the
 * batch: a later event of it would point to freed memory. */
int rfsd_loop_run(struct rfsd_loop *l);

struct rfsd_netlink;

/* Link and default route events, handed to the interfaces. */
int rfsd_netlink_open(struct rfsd_netlink **nl, struct rfsd_loop *loop,
		      struct rfsd_ifaces *ifs, char *err, size_t len);
void rfsd_netlink_close(struct rfsd_netlink *nl);	/* NULL is fine */

/* The cgroup2 root into buf: 0, or -errno with the reason in err. */
int rfsd_cgroup_root(char *buf, size_t size, char *err, size_t len);

/* rfsd --features: the kernel's lines on out (NULL: in the log); true if
 * flows are kept in order.  rfsd_log_kernel(): at start, and what that
 * means for attach. */
bool rfsd_print_kernel(FILE *out, const struct rfs_kfeatures *f);
void rfsd_log_kernel(const struct rfs_dp *dp, bool allow_unordered);
/* status: {"release", "order_kept", "allow_unordered", "faked",
 * "features": [..], "interfaces": {name: [..]}} */
struct json_object *rfsd_kernel_json(struct rfs_dp *dp, bool allow_unordered);

/* ---- the cpumap kthreads (ksched.c) ---- */

/* Policy, wait warning and flood step-down: docs/design.md.  A kthread is
 * known by what only the kernel can make (rfs_kthread_open()); each change
 * is noted with the pins, for a restarted rfsd. */

/* The wait warning: a kthread that waited RFSD_KWAIT_WARN_NS or more per
 * run for its CPU, over RFSD_KWAIT_MIN_RUNS runs or more in a look. */
#define RFSD_KWAIT_WINDOW	10		/* seconds (ticks) per look */
#define RFSD_KWAIT_MIN_RUNS	100
#define RFSD_KWAIT_WARN_NS	1000000ULL
#define RFSD_KWAIT_QUIET	600		/* seconds between two warnings */

/* The flood step-down (rfsd_kflood_next()); RUN_NS is the kernel's
 * MAX_SOFTIRQ_TIME. */
#define RFSD_KFLOOD_TICK_MS	200
#define RFSD_KFLOOD_HIGH_PCT	50
#define RFSD_KFLOOD_RUN_NS	2000000ULL
#define RFSD_KFLOOD_LOW_PCT	25
#define RFSD_KFLOOD_HOLD_LOOKS	10
#define RFSD_KFLOOD_MIN_FRAMES	2000	/* dequeued in a look: worth one */
#define RFSD_KFLOOD_QUIET_NS	(600ULL * 1000000000ULL)	/* between two log lines */

enum rfsd_kflood_state {
	RFSD_KFLOOD_NO,
	RFSD_KFLOOD_SHARE,	/* stepped down by the share */
	RFSD_KFLOOD_RUNS,	/* by the runs' length */
};

/* One look at a kthread's /proc/PID/schedstat (rfsd_ksched_wait()), or
 * what changed between two (rfsd_kthread_since()). */
struct rfsd_kthread_wait {
	__u32 pid;		/* 0: none taken */
	__u64 at_ns;		/* CLOCK_MONOTONIC; of a change, its length */
	__u64 on_cpu_ns, wait_ns, runs;
};

struct rfsd_ksched_cpu {
	__u32 pid;		/* the datapath's record, or found_pid */
	__u32 found_pid;	/* found when it was made */
	__u32 stale_pid;	/* and the one it replaced */
	__u32 done_pid;		/* the last attempt was for this PID */
	__u32 done_gen;		/* and this generation of want */
	bool applied;		/* and set a policy */
	enum rfsd_kflood_state flood;
	struct rfsd_ksched policy;	/* what it set, flooded or not */
	char err[224];		/* why it failed; "" if it did not */
	struct rfsd_kthread_wait wait;	/* the last look for the warning */
	unsigned long warned;	/* tick of the last warning; 0: none */
	struct rfsd_kthread_wait fl_last;	/* the last flood look */
	unsigned int fl_looks;	/* since it stepped down */
	__u64 fl_dequeued;	/* its CPU's frames dequeued */
	bool fl_dq_seen;
	__u64 fl_logged_ns;	/* a step down was last logged; 0: never */
	bool fl_said;		/* the current one was: say its end too */
};

struct rfsd_kscheds {
	struct rfs_dp *dp;
	struct rfsd_ksched want;
	__u32 gen;		/* bumped when want changes; from 1 */
	bool can_nice;		/* CAP_SYS_NICE kept (caps.c) */
	unsigned long ticks;
	struct rfsd_loop *loop;	/* the flood timer's; NULL: not started */
	struct rfsd_watch flood_tmr;
	struct rfsd_ksched_cpu cpu[RFS_MAX_CPUS];
};

/* A reload: the new policy at the next tick. */
void rfsd_ksched_set(struct rfsd_kscheds *k, const struct rfsd_ksched *want);
/* At start: this policy on the kthreads an earlier rfsd changed. */
void rfsd_ksched_adopt(struct rfsd_kscheds *k);
/* Once a second: the policy on a new or changed PID; the wait warning. */
void rfsd_ksched_tick(struct rfsd_kscheds *k);
/* After loading the datapath and each refresh of the online CPUs: the
 * kthreads of the cpumap entries made since, before their first batch. */
void rfsd_ksched_new_kthreads(struct rfsd_kscheds *k);
/* The flood look, on a timerfd of its own in loop.  0 or -errno. */
int rfsd_kflood_start(struct rfsd_kscheds *k, struct rfsd_loop *loop);
void rfsd_kflood_stop(struct rfsd_kscheds *k);

/* A look at CPU cpu's kthread pid (stats.c too).  0, or -errno (-ESRCH:
 * not that kthread, -EIO: a kernel without CONFIG_SCHED_INFO). */
int rfsd_ksched_wait(const struct rfsd_kscheds *k, int cpu, __u32 pid,
		     struct rfsd_kthread_wait *out);
/* status: {"sched": "fifo:1", "kthreads": [{"cpu", "pid", "policy"
 * (what rfsd set, or null), "flooded" (only while SCHED_OTHER for a
 * flood), "error" (only if it could not)}]} */
struct json_object *rfsd_ksched_json(const struct rfsd_kscheds *k);

/* Pure: now - last into *d, unless they are of two kthreads or the
 * counters went back (a reused PID). */
static inline bool rfsd_kthread_since(const struct rfsd_kthread_wait *last,
				      const struct rfsd_kthread_wait *now,
				      struct rfsd_kthread_wait *d)
{
	if (!last->pid || last->pid != now->pid || now->at_ns < last->at_ns ||
	    now->on_cpu_ns < last->on_cpu_ns || now->wait_ns < last->wait_ns ||
	    now->runs < last->runs)
		return false;
	*d = (struct rfsd_kthread_wait){
		.pid = now->pid,
		.at_ns = now->at_ns - last->at_ns,
		.on_cpu_ns = now->on_cpu_ns - last->on_cpu_ns,
		.wait_ns = now->wait_ns - last->wait_ns,
		.runs = now->runs - last->runs,
	};
	return true;
}

/* Pure (tests/unit/test_kwait.c): over the wait warning's bound since
 * last?  *per_run: the average wait. */
static inline bool rfsd_kwait_excess(const struct rfsd_kthread_wait *last,
				     const struct rfsd_kthread_wait *now,
				     __u64 *per_run)
{
	struct rfsd_kthread_wait d;

	*per_run = 0;
	if (!rfsd_kthread_since(last, now, &d) || d.runs < RFSD_KWAIT_MIN_RUNS)
		return false;
	*per_run = d.wait_ns / d.runs;
	return *per_run >= RFSD_KWAIT_WARN_NS;
}

/* Pure (tests/unit/test_kflood.c): the state after the look w (a change:
 * at_ns its length, on_cpu_ns the run time in it), from state, looks
 * after the step down.  A run still going counts as one (a window it
 * fills has runs 0); a window of no length changes nothing. */
static inline enum rfsd_kflood_state
rfsd_kflood_next(enum rfsd_kflood_state state, unsigned int looks,
		 const struct rfsd_kthread_wait *w)
{
	__u64 runs = w->runs ? w->runs : 1;

	if (!w->at_ns)
		return state;
	if (state == RFSD_KFLOOD_NO) {
		if (w->on_cpu_ns * 100 > w->at_ns * RFSD_KFLOOD_HIGH_PCT)
			return RFSD_KFLOOD_SHARE;
		if (w->on_cpu_ns >= runs * RFSD_KFLOOD_RUN_NS)
			return RFSD_KFLOOD_RUNS;
		return RFSD_KFLOOD_NO;
	}
	if (state == RFSD_KFLOOD_RUNS && looks < RFSD_KFLOOD_HOLD_LOOKS)
		return state;
	return w->on_cpu_ns * 100 >= w->at_ns * RFSD_KFLOOD_LOW_PCT ?
	       state : RFSD_KFLOOD_NO;
}

#endif /* RFSD_H */
