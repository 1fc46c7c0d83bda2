// SPDX-License-Identifier: GPL-2.0
/*
 * Warn when a CPU's cpumap kthread waits long for its CPU (kwait.h).
 */
#include "kwait.h"
#include "log.h"

/* What would let the kthread in sooner, by the policy it has now. */
static const char *kwait_hint(const struct rfsd_ksched *want)
{
	switch (want->kind) {
	case RFSD_KSCHED_FIFO:
		return "it is SCHED_FIFO already: real-time tasks or interrupts hold that CPU";
	case RFSD_KSCHED_BATCH:
		return "cpumap_kthread_sched = batch never preempts the task running there; fifo:1 (the default) does (rfsd(8))";
	default:
		return "cpumap_kthread_sched = fifo:1 (the default) lets it preempt them (rfsd(8))";
	}
}

static void kwait_look(struct rfsd_kwaits *w, const struct rfsd_kscheds *k,
		       int cpu, __u32 pid)
{
	struct rfsd_kwait_cpu *c = &w->cpu[cpu];
	struct rfsd_kthread_wait now;
	__u64 per_run;

	if (!pid || rfsd_ksched_wait(k, cpu, pid, &now)) {
		c->have = false;
		return;
	}
	if (rfsd_kwait_excess(c, pid, now.wait_ns, now.runs, &per_run) &&
	    (!c->warned || w->ticks - c->warned >= RFSD_KWAIT_QUIET)) {
		pr_warn("cpu %d: its cpumap kthread (pid %u) waited %.1f ms per run for the CPU over the last %d s (%llu runs): frames steered to cpu %d wait as long for the other tasks there; %s\n",
			cpu, pid, per_run / 1e6, RFSD_KWAIT_WINDOW,
			(unsigned long long)(now.runs - c->runs), cpu,
			kwait_hint(&k->want));
		c->warned = w->ticks;
	}
	c->pid = pid;
	c->have = true;
	c->wait_ns = now.wait_ns;
	c->runs = now.runs;
}

void rfsd_kwait_tick(struct rfsd_kwaits *w, const struct rfsd_kscheds *k)
{
	int n = rfs_dp_nr_cpus(k->dp), cpu;

	if (++w->ticks % RFSD_KWAIT_WINDOW)
		return;
	/* the PIDs rfsd_ksched_tick() just read from the datapath */
	for (cpu = 0; cpu < n && cpu < RFS_MAX_CPUS; cpu++)
		kwait_look(w, k, cpu, k->cpu[cpu].pid);
}
