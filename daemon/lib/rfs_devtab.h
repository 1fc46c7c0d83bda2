/* SPDX-License-Identifier: GPL-2.0 */
/* Dev flow tables (rfs_devtab.c) and the cpumap kthreads they wait on. */
#ifndef RFS_DEVTAB_H
#define RFS_DEVTAB_H

#include <stdio.h>
#include <string.h>

#include "rfs_hold.h"
#include "rfs_iface.h"

/* A new table with its header entry written; its fd or -errno. */
int rfs_devtab_create(int btf_src_fd, __u32 flow_cnt, __u32 rx_queues);
/* 1 when a flow in the table has frames in flight on cpu (RFS_NO_CPU: on
 * any CPU), a local flow there counting until drain_jiffies after its
 * last frame; 0 when none has, or -errno.  allowed: the set the
 * datapath's configuration allows, pushed (NULL: a replaced table). */
int rfs_devtab_busy(const struct rfs_if_env *env, int table_fd, __u32 cpu,
		    __u32 drain_jiffies, const struct rfs_cpuset *allowed);
/* The flows of the interface's current and previous table held on a CPU
 * of cpus, counted into by_cpu[their cpu] (RFS_MAX_CPUS entries, zeroed
 * by the caller).  0 or -errno. */
int rfs_devtab_holds(const struct rfs_if_env *env, const struct rfs_if *ifc,
		     const struct rfs_cpuset *cpus, struct rfs_hold_cpu *by_cpu);
/* The same over the interface's current and previous table. */
int rfs_devtab_in_flight(const struct rfs_if_env *env,
			 const struct rfs_if *ifc, __u32 cpu);
int rfs_devtab_resize(const struct rfs_if_env *env, struct rfs_if *ifc,
		      __u32 flow_cnt, __u32 rx_queues, char *err);
/* Per CPU (env->nr_cpus entries): its cpumap kthread is asleep now;
 * quiet: asleep at every look for a second or more. */
void rfs_kthreads_idle(const struct rfs_if_env *env, bool *idle, bool *quiet);
void rfs_devtab_retire(const struct rfs_if_env *env, struct rfs_if *ifc);

/*
 * Cpumap kthreads, known by what only the kernel can make: PF_KTHREAD,
 * and the datapath's record of their PID (rfs_cpu_queue.kthread_pid), a
 * name only as a check; a process named like one changes nothing.
 */
#define RFS_PF_KTHREAD	0x00200000	/* task flags, include/linux/sched.h */

/* "pid (comm) state ppid pgrp session tty tpgid flags ...", from the last
 * ')' on, since a comm may hold ')' and blanks.  0, or -EINVAL.  Pure:
 * tests/fuzz/fuzz_task_stat.c. */
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

/* A pidfd on CPU cpu's kthread of cpumap map_id, PID pid, and its state
 * ('S': asleep); -ESRCH, with the reason in why, if pid is not that now.
 * What was read was that task's: it still lived after the read. */
int rfs_kthread_open(__u32 pid, int cpu, __u32 map_id, char *state,
		     char *why, size_t len);
/* The task behind pidfd has not exited: its PID is still its own. */
bool rfs_pidfd_alive(int pidfd);
/* fn(ctx, cpu, pid, state) for each kthread of cpumap map_id, found among
 * kthreadd's children (all of /proc where that list is missing), until fn
 * returns nonzero.  For a kthread whose first batch has not run yet. */
void rfs_kthreads_scan(__u32 map_id, int (*fn)(void *ctx, int cpu, __u32 pid,
					       char state), void *ctx);

#endif /* RFS_DEVTAB_H */
