// SPDX-License-Identifier: GPL-2.0
/*
 * cpumap_kthread_sched (ksched.h): give this datapath's cpumap kthreads
 * the scheduling policy the config asks for, whenever one appears.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "ksched.h"
#include "log.h"
#include "parse.h"

#define RFSD_PF_KTHREAD	0x00200000	/* task flags, include/linux/sched.h */
#define RFSD_COMM_MAX	15		/* TASK_COMM_LEN - 1 */

void rfsd_ksched_init(struct rfsd_kscheds *k, struct rfs_dp *dp,
		      const struct rfsd_ksched *want, bool can_nice)
{
	memset(k, 0, sizeof(*k));
	k->dp = dp;
	k->want = *want;
	k->gen = 1;
	k->can_nice = can_nice;
}

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
	if (p->kind == RFSD_KSCHED_FIFO)
		snprintf(buf, len, "SCHED_FIFO %d", p->prio);
	else if (p->kind == RFSD_KSCHED_BATCH)
		snprintf(buf, len, "SCHED_BATCH nice %d", p->prio);
	else
		snprintf(buf, len, "SCHED_OTHER nice %d", p->prio);
}

/* PID's name and task flags from /proc/PID/stat: 0, or -ESRCH (gone, or
 * not readable as expected). */
static int read_task(__u32 pid, char *comm, size_t len, unsigned int *flags)
{
	char path[64], buf[512];
	char *open, *close;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	open = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* "pid (comm) state ppid pgrp session tty tpgid flags ...": a comm
	 * may hold ')' and blanks, so from the last ')' on */
	close = open ? strrchr(buf, ')') : NULL;
	open = open ? strchr(buf, '(') : NULL;
	if (!open || !close || close < open ||
	    sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %u", flags) != 1)
		return -ESRCH;
	n = close - open - 1;
	snprintf(comm, len, "%.*s", (int)(n < len - 1 ? n : len - 1), open + 1);
	return 0;
}

/*
 * Is pid still CPU cpu's kthread of cpumap map_id?  Its PID is the
 * datapath's record, and the PID may since be another task's.  Kernels
 * that keep a kthread's full name show it whole in /proc; others cut it
 * to the 15 characters of a task's comm, and then what is left must
 * agree.  0, or -ESRCH with the reason in why.
 */
static int is_cpumap_kthread(__u32 pid, int cpu, __u32 map_id, char *why,
			     size_t len)
{
	char want[64], comm[64];
	unsigned int flags = 0;
	size_t n;

	if (read_task(pid, comm, sizeof(comm), &flags)) {
		snprintf(why, len, "pid %u is gone", pid);
		return -ESRCH;
	}
	n = snprintf(want, sizeof(want), "cpumap/%d/map:%u", cpu, map_id);
	if (!(flags & RFSD_PF_KTHREAD) ||
	    (strcmp(comm, want) &&
	     (n <= RFSD_COMM_MAX || strlen(comm) != RFSD_COMM_MAX ||
	      strncmp(comm, want, RFSD_COMM_MAX)))) {
		snprintf(why, len, "pid %u is no longer its cpumap kthread ('%.24s', not '%.24s')",
			 pid, comm, want);
		return -ESRCH;
	}
	return 0;
}

/* The policy first for a nice: the kthread may be SCHED_FIFO now; nice 0
 * with SCHED_FIFO, so that a nice set before does not linger (it would
 * count again if the kthread went back to SCHED_OTHER). */
static int set_policy(__u32 pid, const struct rfsd_ksched *p)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (p->kind == RFSD_KSCHED_FIFO) {
		sp.sched_priority = p->prio;
		if (setpriority(PRIO_PROCESS, pid, 0) ||
		    sched_setscheduler(pid, SCHED_FIFO, &sp))
			return -errno;
		return 0;
	}
	if (sched_setscheduler(pid, p->kind == RFSD_KSCHED_BATCH ?
				    SCHED_BATCH : SCHED_OTHER, &sp) ||
	    setpriority(PRIO_PROCESS, pid, p->prio))
		return -errno;
	return 0;
}

/* rfs_cpu_queue.ksched_note: the kernel's policy numbers, not rfsd's
 * enum, so that another build of rfsd reads it the same. */
static __u64 note_pack(__u32 pid, const struct rfsd_ksched *p)
{
	__u64 policy = p->kind == RFSD_KSCHED_FIFO ? SCHED_FIFO :
		       p->kind == RFSD_KSCHED_BATCH ? SCHED_BATCH : SCHED_OTHER;

	return (__u64)pid << 32 | policy << 16 | (__u16)p->prio;
}

static bool note_unpack(__u64 note, __u32 *pid, struct rfsd_ksched *p)
{
	int policy = (note >> 16) & 0xffff;

	*pid = note >> 32;
	p->prio = (__s16)(note & 0xffff);
	p->kind = policy == SCHED_FIFO ? RFSD_KSCHED_FIFO :
		  policy == SCHED_BATCH ? RFSD_KSCHED_BATCH :
		  policy == SCHED_OTHER ? RFSD_KSCHED_NICE : RFSD_KSCHED_KERNEL;
	return *pid && p->kind != RFSD_KSCHED_KERNEL;
}

static void write_note(struct rfsd_kscheds *k, int cpu, __u64 note)
{
	int e = rfs_dp_write_ksched_note(k->dp, cpu, note);

	if (e)
		pr_warn("can't note cpu %d's cpumap kthread policy with the datapath: %s; a restarted rfsd won't know that this one changed it\n",
			cpu, strerror(-e));
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
	e = is_cpumap_kthread(pid, cpu, rfs_dp_cpumap_id(k->dp), why,
			      sizeof(why));
	if (!e)
		e = set_policy(pid, &p);
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
	c->applied = false;
	if (e == -ESRCH)
		snprintf(c->err, sizeof(c->err), "%s", why);
	else
		snprintf(c->err, sizeof(c->err), "%s%s", strerror(-e),
			 e == -EPERM && !k->can_nice ?
			 " (rfsd drops CAP_SYS_NICE when started with cpumap_kthread_sched = kernel: restart it)" :
			 "");
	/* said once: the next try is at the next change.  In a PID
	 * namespace other than the host's (a container) no kthread is
	 * visible, and the datapath's PIDs are the host's: every PID
	 * fails the check, and nothing else is touched. */
	if (e == -ESRCH)
		pr_warn("cpu %d: %s; not setting it to %s (the kthread went, or rfsd is not in the host's PID namespace)\n",
			cpu, c->err, name);
	else
		pr_warn("can't set cpu %d's cpumap kthread (pid %u) to %s: %s\n",
			cpu, pid, name, c->err);
done:
	c->done_pid = pid;
	c->done_gen = k->gen;
}

void rfsd_ksched_adopt(struct rfsd_kscheds *k)
{
	int n = rfs_dp_nr_cpus(k->dp), cpu;	/* <= RFS_MAX_CPUS */
	struct rfs_cpu_queue *q;
	struct rfsd_ksched p;
	char name[48], why[128];
	__u32 pid;

	q = rfs_dp_queues(k->dp);
	if (!q)
		return;
	for (cpu = 0; cpu < n; cpu++) {
		struct rfsd_ksched_cpu *c = &k->cpu[cpu];

		if (!note_unpack(q[cpu].ksched_note, &pid, &p))
			continue;
		/* the kthread may have gone with its entry (a CPU offline
		 * while no rfsd ran): its successor is the kernel's */
		if (is_cpumap_kthread(pid, cpu, rfs_dp_cpumap_id(k->dp), why,
				      sizeof(why))) {
			write_note(k, cpu, 0);
			continue;
		}
		policy_name(&p, name, sizeof(name));
		pr_info("cpu %d: cpumap kthread pid %u has %s from an earlier rfsd\n",
			cpu, pid, name);
		/* as if this rfsd had set it: apply() redoes it, or with
		 * kernel undoes it */
		c->applied = true;
		c->pid = c->found_pid = c->done_pid = pid;
		apply(k, cpu, pid);
	}
	free(q);
}

void rfsd_ksched_tick(struct rfsd_kscheds *k)
{
	int n = rfs_dp_nr_cpus(k->dp), cpu;	/* <= RFS_MAX_CPUS */
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
		if (!pid || (pid == c->done_pid && k->gen == c->done_gen))
			continue;
		apply(k, cpu, pid);
	}
	free(q);
}

/* PID, if it is the kthread of a CPU in made (this cpumap's, made since
 * the last look) other than the one it replaced: that CPU's, given the
 * policy now, and out of made.  1 if it was. */
static int take_if_made(struct rfsd_kscheds *k, struct rfs_cpuset *made,
			__u32 pid)
{
	unsigned int flags;
	char comm[64];
	int cpu, end = 0;
	__u32 id;

	if (!pid || read_task(pid, comm, sizeof(comm), &flags) ||
	    !(flags & RFSD_PF_KTHREAD))
		return 0;
	/* the whole name only: a cut one may be another cpumap's */
	if (sscanf(comm, "cpumap/%d/map:%u%n", &cpu, &id, &end) != 2 ||
	    !end || comm[end] || id != rfs_dp_cpumap_id(k->dp) || cpu < 0 ||
	    cpu >= RFS_MAX_CPUS || !rfs_cpuset_has(made, cpu))
		return 0;
	/* the kthread a remade entry replaced has the same name until it
	 * has drained and gone: not that one */
	if (pid == k->cpu[cpu].pid || pid == k->cpu[cpu].done_pid)
		return 0;
	k->cpu[cpu].stale_pid = k->cpu[cpu].pid;
	k->cpu[cpu].found_pid = pid;
	k->cpu[cpu].pid = pid;
	apply(k, cpu, pid);
	made->bits[cpu / 64] &= ~(1ULL << (cpu % 64));
	return 1;
}

void rfsd_ksched_new_kthreads(struct rfsd_kscheds *k)
{
	struct rfs_cpuset made;
	struct dirent *de;
	int cpu, left = 0;
	__u32 pid;
	FILE *f;
	DIR *d;

	rfs_dp_take_new_kthreads(k->dp, &made);
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		left += rfs_cpuset_has(&made, cpu);
	if (!left)
		return;
	/* Every kthread is a child of kthreadd (PID 2): its list of children
	 * (CONFIG_PROC_CHILDREN) is a few hundred PIDs where /proc may hold
	 * a hundred thousand tasks.  All of /proc where that list is
	 * missing or lacks one (PID 2 is not kthreadd in a PID namespace). */
	f = fopen("/proc/2/task/2/children", "re");
	if (f) {
		while (left && fscanf(f, "%u", &pid) == 1)
			left -= take_if_made(k, &made, pid);
		fclose(f);
	}
	if (!left)
		return;
	d = opendir("/proc");
	if (!d)
		return;
	while (left && (de = readdir(d)))
		if (!rfs_parse_u32(de->d_name, &pid))
			left -= take_if_made(k, &made, pid);
	closedir(d);
}

int rfsd_ksched_wait(const struct rfsd_kscheds *k, int cpu, __u32 pid,
		     struct rfsd_kthread_wait *out)
{
	unsigned long long on_cpu, wait, runs;
	char path[64], why[128];
	int e, n;
	FILE *f;

	e = is_cpumap_kthread(pid, cpu, rfs_dp_cpumap_id(k->dp), why,
			      sizeof(why));
	if (e)
		return e;
	snprintf(path, sizeof(path), "/proc/%u/schedstat", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%llu %llu %llu", &on_cpu, &wait, &runs);
	fclose(f);
	if (n != 3)
		return -EIO;	/* a kernel without CONFIG_SCHED_INFO */
	out->on_cpu_ns = on_cpu;
	out->wait_ns = wait;
	out->runs = runs;
	return 0;
}

__u32 rfsd_ksched_fifo_pid(const struct rfsd_kscheds *k, int cpu)
{
	const struct rfsd_ksched_cpu *c = &k->cpu[cpu];

	return c->applied && c->done_pid == c->pid && c->done_gen == k->gen &&
	       k->want.kind == RFSD_KSCHED_FIFO ? c->pid : 0;
}

enum rfsd_kflood_state rfsd_ksched_flood_state(const struct rfsd_kscheds *k,
					       int cpu)
{
	return k->cpu[cpu].flood;
}

int rfsd_ksched_flood(struct rfsd_kscheds *k, int cpu,
		      enum rfsd_kflood_state state)
{
	struct rfsd_ksched_cpu *c = &k->cpu[cpu];
	struct rfsd_ksched p = state != RFSD_KFLOOD_NO ?
		(struct rfsd_ksched){ .kind = RFSD_KSCHED_NICE, .prio = 0 } :
		k->want;
	char why[128];
	int e;

	e = is_cpumap_kthread(c->pid, cpu, rfs_dp_cpumap_id(k->dp), why,
			      sizeof(why));
	if (!e)
		e = set_policy(c->pid, &p);
	if (e)
		return e;
	c->flood = state;
	c->policy = p;
	return 0;
}

struct json_object *rfsd_ksched_json(const struct rfsd_kscheds *k)
{
	struct json_object *o = json_object_new_object(), *a, *e;
	int n = rfs_dp_nr_cpus(k->dp), cpu;
	char name[48];

	rfsd_ksched_name(&k->want, name, sizeof(name));
	json_object_object_add(o, "sched", json_object_new_string(name));
	a = json_object_new_array();
	for (cpu = 0; cpu < n && cpu < RFS_MAX_CPUS; cpu++) {
		const struct rfsd_ksched_cpu *c = &k->cpu[cpu];

		e = json_object_new_object();
		json_object_object_add(e, "cpu", json_object_new_int(cpu));
		json_object_object_add(e, "pid", c->pid ?
				       json_object_new_int64(c->pid) : NULL);
		name[0] = '\0';
		if (c->applied && c->done_pid == c->pid)
			policy_name(&c->policy, name, sizeof(name));
		json_object_object_add(e, "policy", name[0] ?
				       json_object_new_string(name) : NULL);
		if (c->flood != RFSD_KFLOOD_NO && name[0])
			json_object_object_add(e, "flooded",
					       json_object_new_boolean(true));
		if (c->err[0] && c->done_pid == c->pid)
			json_object_object_add(e, "error",
					       json_object_new_string(c->err));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "kthreads", a);
	return o;
}
