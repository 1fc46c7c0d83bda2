/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpumap_kthread_sched: the scheduling policy of the datapath's cpumap
 * kthreads.  The kernel makes them ordinary SCHED_OTHER threads, so the
 * frames in a CPU's cpumap ring wait for the scheduler, where kernel RFS
 * would run them in softirq before any task; and EEVDF has kept a woken
 * one off its CPU for over 200 ms while two tasks there woke each other,
 * holding its flows that long (spurious retransmits; README, Known
 * limits).  So rfsd makes them SCHED_FIFO 1 by default.  An operator may
 * ask for another priority, a nice, SCHED_BATCH (a batch task's wake-up
 * does not preempt the running task: no reschedule IPI and switch at
 * every flush into a server's CPU, for CPUs with time to spare; README,
 * "When it pays"), or kernel: leave them as the kernel made them.  A
 * SCHED_FIFO kthread steps down to SCHED_OTHER while a flood keeps it
 * busy (kflood.h).
 *
 * A kthread is made with its cpumap entry (at load, and when a CPU comes
 * back online): rfsd_ksched_new_kthreads() finds it in /proc by its whole
 * name and applies the policy before any frame reaches it, where the
 * kernel shows whole kthread names.  Elsewhere, and for a kthread rfsd
 * did not see made (one adopted from an earlier rfsd), the datapath's
 * record of its PID (rfs_cpu_queue.kthread_pid, written by its first
 * batch, bpf/rfs_gro.bpf.c) does: rfsd_ksched_tick(), once a second from
 * rfsd's timer, applies the policy to a PID that appeared or changed.
 * Either way rfsd first checks in /proc/PID/stat that it is a kernel
 * thread named for that CPU's cpumap (a PID can be reused), and says so
 * once per change.  Each policy set is noted with the pinned datapath
 * (rfs_cpu_queue.ksched_note), so that a restarted rfsd knows which
 * kthreads an earlier one changed (rfsd_ksched_adopt()): with kernel it
 * undoes exactly those, not an operator's own change.
 */
#ifndef RFSD_KSCHED_H
#define RFSD_KSCHED_H

#include <stdbool.h>

#include <json.h>

#include "config.h"
#include "rfs_dp.h"

/* Whether a SCHED_FIFO kthread is stepped down to SCHED_OTHER for a
 * flood, and by which of kflood.h's bounds: over the share, it is back as
 * soon as it runs under RFSD_KFLOOD_LOW_PCT (a busy many-connection CPU
 * passes the share too, and it wants SCHED_FIFO back soon); in long runs,
 * not before RFSD_KFLOOD_HOLD_LOOKS.  Kept here, with the policy it
 * explains: setting the policy again (a tick, a reload) ends it. */
enum rfsd_kflood_state {
	RFSD_KFLOOD_NO,
	RFSD_KFLOOD_SHARE,
	RFSD_KFLOOD_RUNS,
};

struct rfsd_ksched_cpu {
	__u32 pid;		/* this CPU's kthread: the datapath's record,
				   or found_pid until the new one has run;
				   0: none yet */
	__u32 found_pid;	/* found in /proc when it was made */
	__u32 stale_pid;	/* and the one it replaced */
	__u32 done_pid;		/* the PID the last attempt was for */
	__u32 done_gen;		/* and the generation of want it applied */
	bool applied;		/* that attempt set policy */
	enum rfsd_kflood_state flood;	/* SCHED_OTHER for now, and why */
	struct rfsd_ksched policy;	/* what it set (SCHED_OTHER nice 0
					   while flooded) */
	char err[160];		/* why it failed; "" if it did not */
};

struct rfsd_kscheds {
	struct rfs_dp *dp;
	struct rfsd_ksched want;
	__u32 gen;		/* bumped when want changes */
	bool can_nice;		/* CAP_SYS_NICE kept (caps.c) */
	struct rfsd_ksched_cpu cpu[RFS_MAX_CPUS];
};

void rfsd_ksched_init(struct rfsd_kscheds *k, struct rfs_dp *dp,
		      const struct rfsd_ksched *want, bool can_nice);
/* A reload: the kthreads get the new policy at the next tick; kernel sets
 * those rfsd changed back to SCHED_OTHER, nice 0 (what the kernel creates
 * them with), and leaves them alone from then on. */
void rfsd_ksched_set(struct rfsd_kscheds *k, const struct rfsd_ksched *want);
/* At start, before capabilities are dropped: the kthreads an earlier rfsd
 * of this datapath gave a policy (its note in rfs_cpu_queue.ksched_note)
 * get this one's now; with kernel, SCHED_OTHER nice 0 back. */
void rfsd_ksched_adopt(struct rfsd_kscheds *k);
void rfsd_ksched_tick(struct rfsd_kscheds *k);
/* The kthreads of the cpumap entries made since the last call, found in
 * /proc by their whole name: the policy now, not at their first batch.
 * After loading the datapath and after each refresh of the online CPUs. */
void rfsd_ksched_new_kthreads(struct rfsd_kscheds *k);
/* How long CPU cpu's cpumap kthread (pid, as the datapath recorded it)
 * has waited on a run queue for its CPU, and how many times it ran: the
 * kernel's sched_info (run_delay and pcount in /proc/PID/schedstat),
 * counted since the kthread was made.  What shows a CPU whose other
 * tasks keep its steered frames waiting (the default policy) and what
 * fifo:N removes.  Read after checking that pid is still that kthread.
 * 0, or -errno (-ESRCH: not that kthread). */
struct rfsd_kthread_wait {
	__u64 on_cpu_ns;	/* and how long it ran */
	__u64 wait_ns;
	__u64 runs;
};
int rfsd_ksched_wait(const struct rfsd_kscheds *k, int cpu, __u32 pid,
		     struct rfsd_kthread_wait *out);
/* kflood.c: the PID of CPU cpu's kthread if rfsd made it SCHED_FIFO (it
 * may be SCHED_OTHER for a flood now), else 0; whether it is flooded and
 * why; and setting that (SCHED_OTHER nice 0 for any state but
 * RFSD_KFLOOD_NO, which puts the policy back).  0 or -errno. */
__u32 rfsd_ksched_fifo_pid(const struct rfsd_kscheds *k, int cpu);
enum rfsd_kflood_state rfsd_ksched_flood_state(const struct rfsd_kscheds *k,
					       int cpu);
int rfsd_ksched_flood(struct rfsd_kscheds *k, int cpu,
		      enum rfsd_kflood_state state);
/* status: {"sched": "fifo:1", "kthreads": [{"cpu", "pid", "policy"
 * (what rfsd set, or null), "flooded" (only while SCHED_OTHER for a
 * flood), "error" (only if it could not)}]} */
struct json_object *rfsd_ksched_json(const struct rfsd_kscheds *k);

#endif /* RFSD_KSCHED_H */
