/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An interface's dev flow tables (rfs_devtab.c): making one, asking
 * whether a flow in one still has frames in flight on a CPU, resizing
 * live, dropping the old table once it drained.
 */
#ifndef RFS_DEVTAB_H
#define RFS_DEVTAB_H

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
/* Per CPU (env->nr_cpus entries): its cpumap kthread is asleep now, by
 * /proc; quiet: asleep at every look for a second or more. */
void rfs_kthreads_idle(const struct rfs_if_env *env, bool *idle, bool *quiet);
void rfs_devtab_retire(const struct rfs_if_env *env, struct rfs_if *ifc);

#endif /* RFS_DEVTAB_H */
