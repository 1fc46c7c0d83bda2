/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cpumap kthreads' scheduling, the wait warning and the flood
 * step-down (docs/design.md, "The kthread policy, and why").  A kthread is
 * known by what only the kernel can make (rfs_kthread_open()); every
 * change goes through a pidfd and is noted with the pins (ksched_note), so
 * that a restarted rfsd knows which kthreads an earlier one changed.
 */
#ifndef RFSD_KSCHED_H
#define RFSD_KSCHED_H

#include <stdbool.h>

#include <json.h>

#include "config.h"
#include "rfs_dp.h"
#include "rfsd.h"

/* The wait warning: a kthread that waited RFSD_KWAIT_WARN_NS or more per
 * run for its CPU, over RFSD_KWAIT_MIN_RUNS runs or more in a look. */
#define RFSD_KWAIT_WINDOW	10		/* seconds (ticks) per look */
#define RFSD_KWAIT_MIN_RUNS	100
#define RFSD_KWAIT_WARN_NS	1000000ULL
#define RFSD_KWAIT_QUIET	600		/* seconds between two warnings */

/* The flood step-down: a SCHED_FIFO kthread on its CPU more than
 * HIGH_PCT of a look, or in runs of RUN_NS on average (the kernel's
 * MAX_SOFTIRQ_TIME), is SCHED_OTHER until it runs under LOW_PCT; stepped
 * down for long runs, not before HOLD_LOOKS.  Setting the policy again
 * ends it. */
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

struct rfsd_kflood_cpu {
	struct rfsd_kthread_wait last;
	unsigned int looks;	/* since it stepped down */
	__u64 dequeued;		/* its CPU's frames dequeued */
	bool dq_seen;
	__u64 logged_ns;	/* a step down was last logged; 0: never */
	bool said;		/* the current one was: say its end too */
};

struct rfsd_ksched_cpu {
	__u32 pid;		/* this CPU's kthread: the datapath's record,
				   or found_pid until the new one has run */
	__u32 found_pid;	/* found when it was made */
	__u32 stale_pid;	/* and the one it replaced */
	__u32 done_pid;		/* the last attempt was for this PID */
	__u32 done_gen;		/* and this generation of want */
	bool applied;		/* and set a policy */
	enum rfsd_kflood_state flood;
	struct rfsd_ksched policy;	/* what it set (SCHED_OTHER nice 0
					   while flooded) */
	char err[160];		/* why it failed; "" if it did not */
	struct rfsd_kthread_wait wait;	/* the last look for the warning */
	unsigned long warned;	/* tick of the last warning; 0: none */
	struct rfsd_kflood_cpu fl;
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

/* A reload: the new policy at the next tick; kernel puts SCHED_OTHER
 * nice 0 (as the kernel makes them) back on those rfsd changed. */
void rfsd_ksched_set(struct rfsd_kscheds *k, const struct rfsd_ksched *want);
/* At start, before capabilities are dropped: the kthreads an earlier rfsd
 * noted get this one's policy now (with kernel, SCHED_OTHER nice 0). */
void rfsd_ksched_adopt(struct rfsd_kscheds *k);
/* Once a second: the policy on a PID that appeared or changed, and the
 * wait warning. */
void rfsd_ksched_tick(struct rfsd_kscheds *k);
/* After loading the datapath and each refresh of the online CPUs: the
 * kthreads of the cpumap entries made since, before their first batch. */
void rfsd_ksched_new_kthreads(struct rfsd_kscheds *k);
/* Look for floods every RFSD_KFLOOD_TICK_MS, on a timerfd of its own in
 * loop.  0 or -errno. */
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

#endif /* RFSD_KSCHED_H */
