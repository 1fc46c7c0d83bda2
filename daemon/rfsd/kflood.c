// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_FIFO cpumap kthreads step down under a flood (ksched.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "ksched.h"
#include "log.h"
#include "mono.h"

static void kflood_log(struct rfsd_kflood_cpu *c, int cpu, __u32 pid,
		       enum rfsd_kflood_state state,
		       const struct rfsd_kflood_window *w, __u64 now)
{
	unsigned long long pct = w->ran_ns * 100 / w->wall_ns;
	unsigned long long run_us = w->ran_ns / (w->runs ? w->runs : 1) / 1000;
	char hold[48] = "";

	if (state == RFSD_KFLOOD_NO) {
		if (c->said)
			pr_info("cpu %d: its cpumap kthread (pid %u) ran %llu%% of the last %d ms: back to its policy\n",
				cpu, pid, pct, RFSD_KFLOOD_TICK_MS);
		c->said = false;
		return;
	}
	c->said = false;
	if (c->logged_ns && now - c->logged_ns < RFSD_KFLOOD_QUIET_NS)
		return;
	if (state == RFSD_KFLOOD_RUNS)
		snprintf(hold, sizeof(hold), ", %d ms on at the earliest",
			 RFSD_KFLOOD_HOLD_LOOKS * RFSD_KFLOOD_TICK_MS);
	pr_warn("cpu %d: its cpumap kthread (pid %u) ran %llu%% of the last %d ms, in runs of %llu us on average: SCHED_OTHER nice 0 while it runs over %d%% or in runs over %llu us, so that the tasks there (the receiving application too) share the CPU with it, as the kernel's ksoftirqd does; its policy again under %d%%%s (rfsd(8), cpumap_kthread_sched)\n",
		cpu, pid, pct, RFSD_KFLOOD_TICK_MS, run_us,
		RFSD_KFLOOD_HIGH_PCT, RFSD_KFLOOD_RUN_NS / 1000,
		RFSD_KFLOOD_LOW_PCT, hold);
	c->logged_ns = now;
	c->said = true;
}

static void kflood_look(struct rfsd_kfloods *f, int cpu, __u64 dequeued,
			__u64 now)
{
	struct rfsd_kflood_cpu *c = &f->cpu[cpu];
	struct rfsd_kscheds *k = f->k;
	enum rfsd_kflood_state was = k->cpu[cpu].flood, next;
	__u32 pid = rfsd_ksched_fifo_pid(k, cpu);
	struct rfsd_kflood_window win;
	struct rfsd_kthread_wait w;
	bool busy = c->dq_seen &&
		    dequeued - c->dequeued >= RFSD_KFLOOD_MIN_FRAMES;
	int e;

	c->dequeued = dequeued;
	c->dq_seen = true;
	/* too few frames to flood anything: no schedstat read; a busy
	 * look after it only takes the run time to measure from */
	if (!pid || (was == RFSD_KFLOOD_NO && !busy)) {
		c->have = false;
		return;
	}
	if (rfsd_ksched_wait(k, cpu, pid, &w)) {
		c->have = false;
		return;
	}
	if (c->have && c->pid == pid && w.on_cpu_ns >= c->on_cpu_ns &&
	    w.runs >= c->runs && now > c->at_ns) {
		win = (struct rfsd_kflood_window){
			.wall_ns = now - c->at_ns,
			.ran_ns = w.on_cpu_ns - c->on_cpu_ns,
			.runs = w.runs - c->runs,
		};
		next = rfsd_kflood_next(was, c->looks, &win);
		c->looks++;
		/* a flooded state only ever goes back to NO (ksched.h) */
		if (next != was) {
			e = rfsd_ksched_flood(k, cpu, next);
			if (e)
				pr_warn("cpu %d: can't set its cpumap kthread (pid %u) to %s: %s\n",
					cpu, pid, next != RFSD_KFLOOD_NO ?
					"SCHED_OTHER" : "its policy",
					strerror(-e));
			else
				kflood_log(c, cpu, pid, next, &win, now);
			c->looks = 0;
		}
	}
	c->pid = pid;
	c->have = true;
	c->on_cpu_ns = w.on_cpu_ns;
	c->runs = w.runs;
	c->at_ns = now;
}

static void on_kflood_timer(struct rfsd_watch *w, uint32_t ev)
{
	struct rfsd_kfloods *f = rfsd_container_of(w, struct rfsd_kfloods, tmr);
	int n = rfs_dp_nr_cpus(f->k->dp), cpu;
	struct rfs_cpu_queue *q;
	uint64_t ticks;
	__u64 now;

	if (read(w->fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		pr_debug("can't read the flood timerfd: %s\n", strerror(errno));
	q = rfs_dp_queues(f->k->dp);
	if (!q)
		return;
	now = rfs_mono_ns();
	for (cpu = 0; cpu < n; cpu++)
		kflood_look(f, cpu, q[cpu].dequeued, now);
	free(q);
}

int rfsd_kflood_start(struct rfsd_kfloods *f, struct rfsd_kscheds *k,
		      struct rfsd_loop *loop)
{
	struct itimerspec its = {
		.it_interval.tv_nsec = RFSD_KFLOOD_TICK_MS * 1000000L,
		.it_value.tv_nsec = RFSD_KFLOOD_TICK_MS * 1000000L,
	};

	memset(f, 0, sizeof(*f));
	f->k = k;
	f->tmr.fn = on_kflood_timer;
	f->tmr.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (f->tmr.fd < 0)
		return -errno;
	if (timerfd_settime(f->tmr.fd, 0, &its, NULL) ||
	    rfsd_watch_add(loop, &f->tmr, EPOLLIN)) {
		int e = -errno;

		close(f->tmr.fd);
		f->tmr.fd = -1;
		return e;
	}
	return 0;
}

void rfsd_kflood_stop(struct rfsd_kfloods *f, struct rfsd_loop *loop)
{
	if (f->tmr.fd < 0 || !f->k)
		return;
	rfsd_watch_del(loop, &f->tmr);
	close(f->tmr.fd);
	f->tmr.fd = -1;
}
