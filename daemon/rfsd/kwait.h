/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tell the operator when a CPU's cpumap kthread keeps waiting for its
 * CPU.  The kthread is a task: where other tasks keep that CPU busy, the
 * frames steered there wait with it before the stack sees them (what
 * that costs next to a busy loop: docs/performance.md), and nothing else
 * in rfsd's log would say so.  Every RFSD_KWAIT_WINDOW seconds rfsd compares each
 * kthread's wait and runs (the kernel's schedstat, ksched.h) with the
 * window before, and when it ran often and waited RFSD_KWAIT_WARN_NS or
 * more per run, says so once (then not again for that CPU within
 * RFSD_KWAIT_QUIET seconds), naming what would help.
 */
#ifndef RFSD_KWAIT_H
#define RFSD_KWAIT_H

#include <stdbool.h>

#include "ksched.h"

#define RFSD_KWAIT_WINDOW	10		/* seconds (ticks) per look */
#define RFSD_KWAIT_MIN_RUNS	100		/* fewer runs say little */
#define RFSD_KWAIT_WARN_NS	1000000ULL	/* 1 ms per run */
#define RFSD_KWAIT_QUIET	600		/* seconds between two warnings */

struct rfsd_kwait_cpu {
	__u32 pid;		/* the kthread the figures are of */
	bool have;		/* wait_ns and runs were read */
	__u64 wait_ns, runs;	/* at the last look */
	unsigned long warned;	/* tick of the last warning; 0: none */
};

struct rfsd_kwaits {
	unsigned long ticks;
	struct rfsd_kwait_cpu cpu[RFS_MAX_CPUS];
};

/*
 * The decision, pure (tests/unit/test_kwait.c): did the kthread pid, now
 * at wait_ns and runs, wait RFSD_KWAIT_WARN_NS or more per run, over at
 * least RFSD_KWAIT_MIN_RUNS runs, since the last look c?  Not when there
 * was none, or it was of another kthread, or the counters went back (a
 * kthread made anew under a reused PID).  *per_run: the average wait.
 */
static inline bool rfsd_kwait_excess(const struct rfsd_kwait_cpu *c,
				     __u32 pid, __u64 wait_ns, __u64 runs,
				     __u64 *per_run)
{
	__u64 n;

	*per_run = 0;
	if (!c->have || c->pid != pid || runs < c->runs ||
	    wait_ns < c->wait_ns)
		return false;
	n = runs - c->runs;
	if (n < RFSD_KWAIT_MIN_RUNS)
		return false;
	*per_run = (wait_ns - c->wait_ns) / n;
	return *per_run >= RFSD_KWAIT_WARN_NS;
}

/* Once a second, from rfsd's timer, right after rfsd_ksched_tick(),
 * whose PIDs (k->cpu[].pid) it reads. */
void rfsd_kwait_tick(struct rfsd_kwaits *w, const struct rfsd_kscheds *k);

#endif /* RFSD_KWAIT_H */
