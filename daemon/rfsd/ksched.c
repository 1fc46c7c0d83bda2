// SPDX-License-Identifier: GPL-2.0
/* cpumap_kthread_sched, the wait warning and the flood step-down. */
#include <sched.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "commands.h"
#include "log.h"
#include "rfsd.h"

void rfsd_ksched_set(struct rfsd_kscheds *k, const struct rfsd_ksched *want)
{
	char a[32], b[32];

	if (want->kind == k->want.kind && want->prio == k->want.prio)
		return;
	rfsd_ksched_name(&k->want, a, sizeof(a));
	rfsd_ksched_name(want, b, sizeof(b));
	pr_info("cpumap_kthread_sched: %s -> %s\n", a, b);
	k->want = *want;
	k->gen++;
}

static void policy_name(const struct rfsd_ksched *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s %d", rfsd_ksched_kinds[p->kind].policy_name,
		 p->prio);
}

/* rfs_kthread_open() for this datapath, its state not wanted */
static int kthread_open(const struct rfsd_kscheds *k, __u32 pid, int cpu,
			char *why, size_t len)
{
	char state;

	return rfs_kthread_open(pid, cpu, k->dp->globals.cpumap_id, &state,
				why, len);
}

/* rfs_cpu_queue.ksched_note: the kernel's policy numbers, not rfsd's
 * enum, so that another build of rfsd reads it the same. */
static __u64 note_pack(__u32 pid, const struct rfsd_ksched *p)
{
	return (__u64)pid << 32 |
	       (__u64)rfsd_ksched_kinds[p->kind].policy << 16 | (__u16)p->prio;
}

static bool note_unpack(__u64 note, __u32 *pid, struct rfsd_ksched *p)
{
	int policy = (note >> 16) & 0xffff, i;

	*pid = note >> 32;
	p->prio = (__s16)(note & 0xffff);
	p->kind = RFSD_KSCHED_KERNEL;
	for (i = RFSD_KSCHED_BATCH; i > RFSD_KSCHED_KERNEL; i--)
		if (rfsd_ksched_kinds[i].policy == policy)
			p->kind = i;
	return *pid && p->kind != RFSD_KSCHED_KERNEL;
}

static void write_note(struct rfsd_kscheds *k, int cpu, __u64 note)
{
	int e = rfs_dp_write_ksched_note(k->dp, cpu, note);

	if (e)
		pr_warn("can't note cpu %d's cpumap kthread policy with the datapath: %s; a restarted rfsd won't know that this one changed it\n",
			cpu, strerror(-e));
}

/* Set p on pid while a pidfd shows it is CPU cpu's kthread: alive after
 * the set, the PID was that task's when it was set.  The policy first for
 * a nice: the kthread may be SCHED_FIFO now; nice 0 with SCHED_FIFO, or a
 * nice set before would count again back in SCHED_OTHER. */
static int set_checked(const struct rfsd_kscheds *k, int cpu, __u32 pid,
		       const struct rfsd_ksched *p, char *why, size_t len)
{
	bool fifo = p->kind == RFSD_KSCHED_FIFO;
	struct sched_param sp = { .sched_priority = fifo ? p->prio : 0 };
	int fd = kthread_open(k, pid, cpu, why, len), e = 0;

	if (fd < 0)
		return fd;
	if ((fifo && setpriority(PRIO_PROCESS, pid, 0)) ||
	    sched_setscheduler(pid, rfsd_ksched_kinds[p->kind].policy, &sp) ||
	    (!fifo && setpriority(PRIO_PROCESS, pid, p->prio)))
		e = -errno;
	if (!e && !rfs_pidfd_alive(fd)) {
		snprintf(why, len, "pid %u exited while its policy was set",
			 pid);
		e = -ESRCH;
	}
	close(fd);
	return e;
}

static void apply(struct rfsd_kscheds *k, int cpu, __u32 pid)
{
	struct rfsd_ksched_cpu *c = &k->cpu[cpu];
	struct rfsd_ksched p = k->want;
	char name[48], why[128];
	bool reset = false;
	int e;

	if (p.kind == RFSD_KSCHED_KERNEL) {
		/* kernel: leave alone what rfsd never touched; put back
		 * what it did, on this same kthread */
		if (!c->applied || c->done_pid != pid) {
			c->applied = false;
			c->err[0] = '\0';
			goto done;
		}
		p = (struct rfsd_ksched){ .kind = RFSD_KSCHED_NICE, .prio = 0 };
		reset = true;
	}
	policy_name(&p, name, sizeof(name));
	e = set_checked(k, cpu, pid, &p, why, sizeof(why));
	if (!e) {
		pr_info("cpu %d: cpumap kthread pid %u -> %s%s\n", cpu, pid,
			name, reset ? " (cpumap_kthread_sched = kernel)" : "");
		c->flood = RFSD_KFLOOD_NO;
		c->applied = !reset;
		c->policy = p;
		c->err[0] = '\0';
		write_note(k, cpu, reset ? 0 : note_pack(pid, &p));
		goto done;
	}
	/* Outside the host's PID namespace (a container) every PID the
	 * datapath records fails the check, and nothing else is touched */
	c->applied = false;
	if (e == -ESRCH)
		snprintf(c->err, sizeof(c->err), "%s (the kthread went, or rfsd is not in the host's PID namespace)",
			 why);
	else
		snprintf(c->err, sizeof(c->err), "%s%s", strerror(-e),
			 e == -EPERM && !k->can_nice ?
			 " (rfsd drops CAP_SYS_NICE when started with cpumap_kthread_sched = kernel: restart it)" :
			 "");
	/* said once: the next try is at the next change */
	pr_warn("can't set cpu %d's cpumap kthread (pid %u) to %s: %s\n", cpu,
		pid, name, c->err);
done:
	c->done_pid = pid;
	c->done_gen = k->gen;
}

void rfsd_ksched_adopt(struct rfsd_kscheds *k)
{
	int n = k->dp->nr_cpus, cpu;	/* <= RFS_MAX_CPUS */
	struct rfs_cpu_queue *q;
	struct rfsd_ksched p;
	char name[48], why[128];
	__u32 pid;
	int fd;

	q = rfs_dp_queues(k->dp);
	if (!q)
		return;
	for (cpu = 0; cpu < n; cpu++) {
		struct rfsd_ksched_cpu *c = &k->cpu[cpu];

		if (!note_unpack(q[cpu].ksched_note, &pid, &p))
			continue;
		/* the kthread may have gone with its entry (a CPU offline
		 * while no rfsd ran): its successor is the kernel's */
		fd = kthread_open(k, pid, cpu, why, sizeof(why));
		if (fd < 0) {
			write_note(k, cpu, 0);
			continue;
		}
		close(fd);
		policy_name(&p, name, sizeof(name));
		pr_info("cpu %d: cpumap kthread pid %u has %s from an earlier rfsd\n",
			cpu, pid, name);
		/* as if this rfsd had set it: redone, or undone (kernel) */
		c->applied = true;
		c->pid = c->found_pid = c->done_pid = pid;
		apply(k, cpu, pid);
	}
	free(q);
}

static void kwait_look(struct rfsd_kscheds *k, int cpu, __u32 pid)
{
	struct rfsd_ksched_cpu *c = &k->cpu[cpu];
	struct rfsd_kthread_wait now = {};
	__u64 per_run;

	if (pid && !rfsd_ksched_wait(k, cpu, pid, &now) &&
	    rfsd_kwait_excess(&c->wait, &now, &per_run) &&
	    (!c->warned || k->ticks - c->warned >= RFSD_KWAIT_QUIET)) {
		pr_warn("cpu %d: its cpumap kthread (pid %u) waited %.1f ms per run for the CPU over the last %d s (%llu runs): frames steered to cpu %d wait as long for the other tasks there; %s\n",
			cpu, pid, per_run / 1e6, RFSD_KWAIT_WINDOW,
			(unsigned long long)(now.runs - c->wait.runs), cpu,
			rfsd_ksched_kinds[k->want.kind].hint);
		c->warned = k->ticks;
	}
	c->wait = now;
}

void rfsd_ksched_tick(struct rfsd_kscheds *k)
{
	int n = k->dp->nr_cpus, cpu;	/* <= RFS_MAX_CPUS */
	bool look = !(++k->ticks % RFSD_KWAIT_WINDOW);
	struct rfs_cpu_queue *q;

	q = rfs_dp_queues(k->dp);
	if (!q)
		return;
	for (cpu = 0; cpu < n; cpu++) {
		struct rfsd_ksched_cpu *c = &k->cpu[cpu];
		__u32 pid = q[cpu].kthread_pid;

		/* the datapath names the kthread whose batch ran last: the
		 * one made since (found by rfsd_ksched_new_kthreads()) is
		 * this CPU's until it has run */
		if (c->found_pid && (!pid || pid == c->stale_pid))
			pid = c->found_pid;

		c->pid = pid;
		if (pid && (pid != c->done_pid || k->gen != c->done_gen))
			apply(k, cpu, pid);
		if (look)
			kwait_look(k, cpu, pid);
	}
	free(q);
}

struct made_scan {
	struct rfsd_kscheds *k;
	struct rfs_cpuset made;
	int left;
};

/* A kthread of a CPU made since the last look, other than the one it
 * replaced (same name until it has drained and gone), gets the policy. */
static int take_if_made(void *ctx, int cpu, __u32 pid, char state)
{
	struct made_scan *m = ctx;
	struct rfsd_ksched_cpu *c = &m->k->cpu[cpu];

	if (!rfs_cpuset_has(&m->made, cpu) || pid == c->pid ||
	    pid == c->done_pid)
		return 0;
	c->stale_pid = c->pid;
	c->found_pid = c->pid = pid;
	apply(m->k, cpu, pid);
	m->made.bits[cpu / 64] &= ~(1ULL << (cpu % 64));
	return !--m->left;
}

void rfsd_ksched_new_kthreads(struct rfsd_kscheds *k)
{
	struct made_scan m = { .k = k };
	int cpu;

	rfs_dp_take_new_kthreads(k->dp, &m.made);
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		m.left += rfs_cpuset_has(&m.made, cpu);
	if (m.left)
		rfs_kthreads_scan(k->dp->globals.cpumap_id, take_if_made, &m);
}

int rfsd_ksched_wait(const struct rfsd_kscheds *k, int cpu, __u32 pid,
		     struct rfsd_kthread_wait *out)
{
	char path[64], why[128];
	int e, n, fd;
	FILE *f;

	*out = (struct rfsd_kthread_wait){ .at_ns = rfs_mono_ns() };
	fd = kthread_open(k, pid, cpu, why, sizeof(why));
	if (fd < 0)
		return fd;
	snprintf(path, sizeof(path), "/proc/%u/schedstat", pid);
	f = fopen(path, "re");
	n = f ? fscanf(f, "%llu %llu %llu", &out->on_cpu_ns, &out->wait_ns,
		       &out->runs) : -1;
	if (f)
		fclose(f);
	e = !rfs_pidfd_alive(fd) ? -ESRCH : n != 3 ? -EIO : 0;
	close(fd);
	out->pid = e ? 0 : pid;
	return e;
}

struct json_object *rfsd_ksched_json(const struct rfsd_kscheds *k)
{
	struct json_object *o = json_object_new_object(), *a, *e;
	int n = k->dp->nr_cpus, cpu;
	char name[48];

	rfsd_ksched_name(&k->want, name, sizeof(name));
	rfsd_add(o, "sched", rfsd_jstr(name));
	a = json_object_new_array();
	for (cpu = 0; cpu < n && cpu < RFS_MAX_CPUS; cpu++) {
		const struct rfsd_ksched_cpu *c = &k->cpu[cpu];
		bool mine = c->done_pid == c->pid;

		e = json_object_new_object();
		rfsd_add(e, "cpu", rfsd_jint(cpu));
		rfsd_add(e, "pid", c->pid ? rfsd_jint(c->pid) : NULL);
		name[0] = '\0';
		if (c->applied && mine)
			policy_name(&c->policy, name, sizeof(name));
		rfsd_add(e, "policy", name[0] ? rfsd_jstr(name) : NULL);
		if (c->flood != RFSD_KFLOOD_NO && name[0])
			rfsd_add(e, "flooded", rfsd_jbool(true));
		if (c->err[0] && mine)
			rfsd_add(e, "error", rfsd_jstr(c->err));
		json_object_array_add(a, e);
	}
	rfsd_add(o, "kthreads", a);
	return o;
}

static void kflood_log(struct rfsd_ksched_cpu *c, int cpu, __u32 pid,
		       enum rfsd_kflood_state state,
		       const struct rfsd_kthread_wait *w)
{
	unsigned long long pct = w->on_cpu_ns * 100 / w->at_ns;
	unsigned long long run_us = w->on_cpu_ns / (w->runs ?: 1) / 1000;
	__u64 now = rfs_mono_ns();
	char hold[48] = "";

	if (state == RFSD_KFLOOD_NO) {
		if (c->fl_said)
			pr_info("cpu %d: its cpumap kthread (pid %u) ran %llu%% of the last %d ms: back to its policy\n",
				cpu, pid, pct, RFSD_KFLOOD_TICK_MS);
		c->fl_said = false;
		return;
	}
	c->fl_said = false;
	if (c->fl_logged_ns && now - c->fl_logged_ns < RFSD_KFLOOD_QUIET_NS)
		return;
	if (state == RFSD_KFLOOD_RUNS)
		snprintf(hold, sizeof(hold), ", %d ms on at the earliest",
			 RFSD_KFLOOD_HOLD_LOOKS * RFSD_KFLOOD_TICK_MS);
	pr_warn("cpu %d: its cpumap kthread (pid %u) ran %llu%% of the last %d ms, in runs of %llu us on average: SCHED_OTHER nice 0 while it runs over %d%% or in runs over %llu us, so that the tasks there (the receiving application too) share the CPU with it, as the kernel's ksoftirqd does; its policy again under %d%%%s (rfsd(8), cpumap_kthread_sched)\n",
		cpu, pid, pct, RFSD_KFLOOD_TICK_MS, run_us,
		RFSD_KFLOOD_HIGH_PCT, RFSD_KFLOOD_RUN_NS / 1000,
		RFSD_KFLOOD_LOW_PCT, hold);
	c->fl_logged_ns = now;
	c->fl_said = true;
}

static void kflood_look(struct rfsd_kscheds *k, int cpu, __u64 dequeued)
{
	struct rfsd_ksched_cpu *c = &k->cpu[cpu];
	enum rfsd_kflood_state was = c->flood, next;
	struct rfsd_kthread_wait now = {}, win;
	/* only a kthread rfsd made SCHED_FIFO (SCHED_OTHER while flooded) */
	__u32 pid = c->applied && c->done_pid == c->pid &&
		    c->done_gen == k->gen &&
		    k->want.kind == RFSD_KSCHED_FIFO ? c->pid : 0;
	bool busy = c->fl_dq_seen &&
		    dequeued - c->fl_dequeued >= RFSD_KFLOOD_MIN_FRAMES;
	struct rfsd_ksched p;
	char why[128];
	int e;

	c->fl_dequeued = dequeued;
	c->fl_dq_seen = true;
	/* too few frames to flood anything: no schedstat read; a busy
	 * look after it only takes the run time to measure from */
	if (pid && (was != RFSD_KFLOOD_NO || busy))
		rfsd_ksched_wait(k, cpu, pid, &now);
	if (rfsd_kthread_since(&c->fl_last, &now, &win)) {
		next = rfsd_kflood_next(was, c->fl_looks++, &win);
		/* a flooded state only ever goes back to NO (rfsd.h), and
		 * any is SCHED_OTHER nice 0 */
		if (next != was) {
			p = k->want;
			if (next != RFSD_KFLOOD_NO)
				p = (struct rfsd_ksched){ RFSD_KSCHED_NICE, 0 };
			e = set_checked(k, cpu, pid, &p, why, sizeof(why));
			if (e) {
				pr_warn("cpu %d: can't set its cpumap kthread (pid %u) to %s: %s\n",
					cpu, pid, next != RFSD_KFLOOD_NO ?
					"SCHED_OTHER" : "its policy",
					strerror(-e));
			} else {
				c->flood = next;
				c->policy = p;
				kflood_log(c, cpu, pid, next, &win);
			}
			c->fl_looks = 0;
		}
	}
	c->fl_last = now;
}

static void on_kflood_timer(struct rfsd_watch *w, uint32_t ev)
{
	struct rfsd_kscheds *k = rfsd_container_of(w, struct rfsd_kscheds,
						   flood_tmr);
	int n = k->dp->nr_cpus, cpu;
	struct rfs_cpu_queue *q;

	rfsd_timer_ack(w);
	q = rfs_dp_queues(k->dp);
	if (!q)
		return;
	for (cpu = 0; cpu < n; cpu++)
		kflood_look(k, cpu, q[cpu].dequeued);
	free(q);
}

int rfsd_kflood_start(struct rfsd_kscheds *k, struct rfsd_loop *loop)
{
	int e;

	k->flood_tmr.fn = on_kflood_timer;
	e = rfsd_timer_add(loop, &k->flood_tmr, RFSD_KFLOOD_TICK_MS);
	k->loop = e ? NULL : loop;
	return e;
}

void rfsd_kflood_stop(struct rfsd_kscheds *k)
{
	if (!k->loop)
		return;
	rfsd_watch_del(k->loop, &k->flood_tmr);
	close(k->flood_tmr.fd);
	k->loop = NULL;
}
