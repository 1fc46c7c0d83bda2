// SPDX-License-Identifier: GPL-2.0
/* The cpumap: a queue (and kthread) per online CPU, kept in step with
 * hotplug on rfsd's timer, interfaces first. */
#include <errno.h>
#include <string.h>

#include <bpf/bpf.h>

#include "log.h"
#include "rfs_dp_int.h"

/*
 * A CPU that goes offline keeps its entry: its kthread moves elsewhere
 * and keeps draining in order.  It lost its binding, so when the CPU
 * comes back the entry is made anew once no flow has frames in flight
 * there: earlier, two kthreads could hold the same CPU's frames.
 */
int rfs_cpumap_sync(struct rfs_dp *dp, char *err)
{
	struct bpf_cpumap_val val = {
		.qsize = dp->qsize,
		.bpf_prog.fd = dp->cpumap_prog_fd,
	};
	struct rfs_if_env env = rfs_dp_env(dp);
	struct bpf_cpumap_val cur;
	__u32 cpu;
	size_t i;

	for (cpu = 0; cpu < (__u32)dp->nr_cpus; cpu++) {
		bool present = !bpf_map_lookup_elem(dp->cpu_map_fd, &cpu, &cur);
		bool busy = false;

		if (present)
			rfs_cpuset_add(&dp->in_cpumap, cpu);
		if (!rfs_cpuset_has(&dp->online, cpu)) {
			if (present)
				rfs_cpuset_add(&dp->unbound, cpu);
			continue;
		}
		if (present && !rfs_cpuset_has(&dp->unbound, cpu))
			continue;
		for (i = 0; present && i < dp->n_ifs && !busy; i++)
			busy = rfs_devtab_in_flight(&env, dp->ifs[i], cpu) != 0;
		if (busy)
			continue;	/* the next refresh tries again */
		if (bpf_map_update_elem(dp->cpu_map_fd, &cpu, &val, BPF_ANY))
			return rfs_errf(err, errno,
					"can't add CPU %u to the cpumap: %s",
					cpu, strerror(errno));
		if (present)
			pr_info("CPU %u: cpumap queue remade (back online)\n", cpu);
		rfs_cpuset_add(&dp->in_cpumap, cpu);
		rfs_cpuset_add(&dp->new_kthreads, cpu);
		dp->unbound.bits[cpu / 64] &= ~(1ULL << (cpu % 64));
	}
	return 0;
}

void rfs_dp_take_new_kthreads(struct rfs_dp *dp, struct rfs_cpuset *out)
{
	*out = dp->new_kthreads;
	rfs_cpuset_zero(&dp->new_kthreads);
}

int rfs_dp_refresh_cpus(struct rfs_dp *dp, char *err)
{
	struct rfs_cpuset online;
	struct rfs_if_env env;
	size_t i;
	int e;

	e = rfs_cpuset_online(&online);
	if (e)
		return rfs_errf(err, e, "can't read online CPUs: %s", strerror(-e));
	if (!rfs_cpuset_equal(&online, &dp->online)) {
		char was[256], now[256];

		unsigned int cpu;

		rfs_cpulist_format(&dp->online, was, sizeof(was));
		rfs_cpulist_format(&online, now, sizeof(now));
		for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++) {
			bool a = rfs_cpuset_has(&dp->online, cpu);
			bool b = rfs_cpuset_has(&online, cpu);

			if (a != b)
				pr_info("CPU %u: %s (online CPUs %s -> %s)\n", cpu,
					b ? "came online" : "went offline",
					was, now);
		}
	}
	dp->online = online;
	/* Interfaces first: no flow may be sent to a queue about to go. */
	env = rfs_dp_env(dp);
	for (i = 0; i < dp->n_ifs; i++) {
		rfs_iface_refresh(&env, dp->ifs[i]);
		rfs_iface_note_leaving(dp->ifs[i], rfs_mono_ms());
	}
	return rfs_cpumap_sync(dp, err);
}
