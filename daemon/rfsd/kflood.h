/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A SCHED_FIFO cpumap kthread (rfsd's default, ksched.h) under a flood of
 * frames steered to its CPU runs before every task there, the receiving
 * application's too, which then falls behind and drops: with 400 000
 * datagrams/s to a reader on that CPU it lost 9-31 %, where a SCHED_OTHER
 * kthread lost none (README, Known limits).  The kernel's own receive
 * path bounds the same thing: softirq hands its work to ksoftirqd, an
 * ordinary task, once it has run 2 ms.  rfsd looks every
 * RFSD_KFLOOD_TICK_MS: a kthread it made SCHED_FIFO that ran more than
 * RFSD_KFLOOD_HIGH_PCT of that time, or in runs of RFSD_KFLOOD_RUN_NS or
 * more on average (bursts: 64 UDP readers lost 7 % more datagrams to a
 * SCHED_FIFO kthread that ran 13 % of its CPU in 2.6 ms runs than to a
 * SCHED_OTHER one; request/response and steady floods ran 10-30 us
 * runs), is set to SCHED_OTHER nice 0, and back to its policy at the
 * first look in which it ran less than RFSD_KFLOOD_LOW_PCT; after long
 * runs not before RFSD_KFLOOD_HOLD_LOOKS (a kthread cut short by fair
 * scheduling no longer shows its runs' length, so the hold is what
 * spaces the tries).  It reads a kthread's schedstat only when its CPU
 * dequeued RFSD_KFLOOD_MIN_FRAMES or more since the last look, or it is
 * flooded: an idle host costs one map read a look.  A flooded
 * SCHED_OTHER kthread always has work, so it is not the sleeper the
 * scheduler passed over for 200 ms (ksched.h) that SCHED_FIFO is for.
 */
#ifndef RFSD_KFLOOD_H
#define RFSD_KFLOOD_H

#include <stdbool.h>

#include "ksched.h"
#include "loop.h"

#define RFSD_KFLOOD_TICK_MS	200	/* between two looks */
#define RFSD_KFLOOD_HIGH_PCT	50	/* of that on its CPU: flooded */
#define RFSD_KFLOOD_RUN_NS	2000000ULL	/* or runs this long on average
						   (the kernel's MAX_SOFTIRQ_TIME) */
#define RFSD_KFLOOD_LOW_PCT	25	/* and below this: no longer */
#define RFSD_KFLOOD_HOLD_LOOKS	10	/* but not before this many looks */
#define RFSD_KFLOOD_MIN_FRAMES	2000	/* dequeued in a look: worth one */
#define RFSD_KFLOOD_QUIET_NS	(600ULL * 1000000000ULL)	/* between two log lines */

struct rfsd_kflood_cpu {
	__u32 pid;		/* the kthread the figures are of */
	bool have;		/* on_cpu_ns and at_ns were read */
	__u64 on_cpu_ns;	/* its schedstat run time at the last look */
	__u64 runs;		/* and its number of runs */
	unsigned int looks;	/* looks since it stepped down */
	__u64 at_ns;		/* CLOCK_MONOTONIC then */
	__u64 dequeued;		/* its CPU's frames dequeued at the last look */
	bool dq_seen;		/* dequeued was read */
	__u64 logged_ns;	/* when a step down was last logged; 0: never */
	bool said;		/* the current one was: say its end too */
};

struct rfsd_kfloods {
	struct rfsd_watch tmr;
	struct rfsd_kscheds *k;
	struct rfsd_kflood_cpu cpu[RFS_MAX_CPUS];
};

/* One look's window: its length, and the kthread's run time and number
 * of runs in it (schedstat). */
struct rfsd_kflood_window {
	__u64 wall_ns;
	__u64 ran_ns;
	__u64 runs;
};

/* The decision, pure (tests/unit/test_kflood.c): the state after window
 * w, from state, looks after the step down.  A run still going counts as
 * one: a window it fills has runs 0.  A window of no length changes
 * nothing. */
static inline enum rfsd_kflood_state
rfsd_kflood_next(enum rfsd_kflood_state state, unsigned int looks,
		 const struct rfsd_kflood_window *w)
{
	__u64 runs = w->runs ? w->runs : 1;

	if (!w->wall_ns)
		return state;
	if (state == RFSD_KFLOOD_NO) {
		if (w->ran_ns * 100 > w->wall_ns * RFSD_KFLOOD_HIGH_PCT)
			return RFSD_KFLOOD_SHARE;
		if (w->ran_ns >= runs * RFSD_KFLOOD_RUN_NS)
			return RFSD_KFLOOD_RUNS;
		return RFSD_KFLOOD_NO;
	}
	if (state == RFSD_KFLOOD_RUNS && looks < RFSD_KFLOOD_HOLD_LOOKS)
		return state;
	return w->ran_ns * 100 >= w->wall_ns * RFSD_KFLOOD_LOW_PCT ? state :
								     RFSD_KFLOOD_NO;
}

/* Look every RFSD_KFLOOD_TICK_MS from loop (its own timerfd) at k's
 * kthreads; f must stay where it is.  0 or -errno. */
int rfsd_kflood_start(struct rfsd_kfloods *f, struct rfsd_kscheds *k,
		      struct rfsd_loop *loop);
void rfsd_kflood_stop(struct rfsd_kfloods *f, struct rfsd_loop *loop);

#endif /* RFSD_KFLOOD_H */
