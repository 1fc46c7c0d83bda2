// SPDX-License-Identifier: GPL-2.0
/* The CPUs leaving an interface and the flows they wait for: the reading
 * half (rfs_hold.h judges). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mono.h"
#include "rfs_bpf.h"
#include "rfs_devtab.h"
#include "rfs_iface.h"

static bool rfs_iface_cpu_leaving(const struct rfs_if *ifc, unsigned int cpu)
{
	return rfs_cpuset_has(&ifc->usable, cpu) &&
	       !rfs_cpuset_has(&ifc->allowed, cpu);
}

void rfs_iface_note_leaving(struct rfs_if *ifc, __u64 now_ms)
{
	unsigned int cpu;

	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++) {
		if (!rfs_iface_cpu_leaving(ifc, cpu)) {
			ifc->leaving_since_ms[cpu] = 0;
			ifc->leaving_warn_ms[cpu] = 0;
		} else if (!ifc->leaving_since_ms[cpu]) {
			/* 0 means "not leaving": a clock at 0 ms is moved on */
			ifc->leaving_since_ms[cpu] = now_ms ? now_ms : 1;
		}
	}
}

int rfs_iface_holds(const struct rfs_if_env *env, struct rfs_if *ifc,
		    struct rfs_hold_cpu **out, size_t *n, char *err)
{
	struct rfs_hold_cpu *by_cpu, *res;
	struct rfs_cpuset leaving;
	unsigned int cpu;
	size_t k = 0, count = 0;
	int e;

	*out = NULL;
	*n = 0;
	rfs_iface_note_leaving(ifc, rfs_mono_ms());
	rfs_cpuset_zero(&leaving);
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		if (rfs_iface_cpu_leaving(ifc, cpu)) {
			rfs_cpuset_add(&leaving, cpu);
			count++;
		}
	if (!count)
		return 0;
	by_cpu = calloc(RFS_MAX_CPUS, sizeof(*by_cpu));
	res = calloc(count, sizeof(*res));
	if (!by_cpu || !res) {
		free(by_cpu);
		free(res);
		return rfs_errf(err, ENOMEM, "%s: out of memory", ifc->name);
	}
	e = rfs_devtab_holds(env, ifc, &leaving, by_cpu);
	if (e) {
		free(by_cpu);
		free(res);
		return rfs_errf(err, e, "can't read the flows of '%s': %s",
				ifc->name, strerror(-e));
	}
	for (cpu = 0; cpu < RFS_MAX_CPUS && k < count; cpu++) {
		if (!rfs_cpuset_has(&leaving, cpu))
			continue;
		res[k] = by_cpu[cpu];
		res[k].cpu = cpu;
		res[k].since_ms = ifc->leaving_since_ms[cpu];
		k++;
	}
	free(by_cpu);
	*out = res;
	*n = k;
	return 0;
}

__u64 rfs_if_leaving_since(const struct rfs_if *ifc, unsigned int cpu)
{
	return cpu < RFS_MAX_CPUS ? ifc->leaving_since_ms[cpu] : 0;
}

bool rfs_if_leaving_warn_due(struct rfs_if *ifc, unsigned int cpu,
			     __u64 now_ms, __u64 bound_ms)
{
	__u64 since = rfs_if_leaving_since(ifc, cpu);

	return since && now_ms >= since &&
	       rfs_hold_warn_due(now_ms - since, bound_ms,
				 &ifc->leaving_warn_ms[cpu]);
}
