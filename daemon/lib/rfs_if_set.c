// SPDX-License-Identifier: GPL-2.0
/* Live changes to an attached interface, in order (rfs_dp.h); the
 * refresh on rfsd's timer finishes them.  Until then a CPU taken out is
 * leaving: since when, and the flows it waits for (rfs_hold_judge()). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mono.h"
#include "rfs_dp_int.h"

/* A CPU that left the set (or went offline) stays usable, not allowed,
 * while a flow has frames in flight there: none is ever forced off.  The
 * previous flow table goes once drained. */
void rfs_iface_refresh(const struct rfs_if_env *env, struct rfs_if *ifc)
{
	struct rfs_cpuset usable = ifc->usable, allowed, ok;
	char rps[600];
	unsigned int cpu;
	bool rps_on;

	/* Refused at attach; turned on since: say so, once, and when off. */
	rps_on = !ifc->no_attach && rfs_if_rps_on(ifc->name, rps, sizeof(rps));
	if (rps_on != ifc->rps_on) {
		if (rps_on)
			rfs_log_iface(RFS_LOG_WARN, ifc->name, ifc->ifindex,
				      "kernel RPS turned on (%s is not 0): "
				      RFS_RPS_WHY "; write 0 there",
				      rps);
		else
			rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
				      "kernel RPS off again");
		ifc->rps_on = rps_on;
	}

	/* A CPU whose cpumap entry awaits remaking gets no new flows. */
	rfs_cpuset_and(&ok, env->online, env->in_cpumap);
	for (cpu = 0; cpu < RFS_CPU_WORDS; cpu++)
		ok.bits[cpu] &= ~env->unbound->bits[cpu];
	rfs_cpuset_and(&allowed, &ifc->configured, &ok);
	for (cpu = 0; cpu < (unsigned int)env->nr_cpus; cpu++) {
		if (rfs_cpuset_has(&allowed, cpu)) {
			rfs_cpuset_add(&usable, cpu);
			continue;
		}
		if (!rfs_cpuset_has(&usable, cpu))
			continue;
		if (rfs_cpuset_has(env->in_cpumap, cpu) &&
		    rfs_devtab_in_flight(env, ifc, cpu) != 0)
			continue;	/* still draining: keep it usable */
		usable.bits[cpu / 64] &= ~(1ULL << (cpu % 64));
		rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
			      "CPU %u removed: no flow in flight there any more",
			      cpu);
	}
	rfs_devtab_retire(env, ifc);
	if (rfs_cpuset_equal(&usable, &ifc->usable) &&
	    rfs_cpuset_equal(&allowed, &ifc->allowed))
		return;
	if (!rfs_cpuset_equal(&allowed, &ifc->allowed)) {
		char was[256], now[256];

		rfs_cpulist_format(&ifc->allowed, was, sizeof(was));
		rfs_cpulist_format(&allowed, now, sizeof(now));
		rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
			      "active cpus %s -> %s: online CPUs changed",
			      was[0] ? was : "none", now[0] ? now : "none");
	}
	ifc->usable = usable;
	ifc->allowed = allowed;
	if (rfs_if_push_config(ifc, 0))
		pr_warn("can't update config of %s: %s\n", ifc->name,
			strerror(errno));
}

int rfs_if_set_cpus(struct rfs_dp *dp, struct rfs_if *ifc,
		    const struct rfs_cpuset *cpus, char *err)
{
	const struct rfs_if_env env = rfs_dp_env(dp);
	struct rfs_cpuset old_allowed = ifc->allowed, old_usable = ifc->usable;
	char what[64];
	unsigned int cpu;
	int e;

	snprintf(what, sizeof(what), "set cpus %s", ifc->name);
	e = rfs_iface_check_cpus(&env, what, cpus, err);
	if (e)
		return e;
	ifc->configured = *cpus;
	rfs_cpuset_and(&ifc->allowed, cpus, env.online);
	/* removed CPUs stay usable until drained (rfs_iface_refresh()) */
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		if (rfs_cpuset_has(&ifc->allowed, cpu))
			rfs_cpuset_add(&ifc->usable, cpu);
	e = rfs_if_push_config(ifc, 0);
	if (e) {
		ifc->allowed = old_allowed;
		ifc->usable = old_usable;
		return rfs_errf(err, e, "%s: can't write config: %s", what,
				strerror(-e));
	}
	rfs_iface_refresh(&env, ifc);
	/* a removal that waits starts now, not at the next refresh */
	rfs_iface_note_leaving(ifc, rfs_mono_ms());
	return 0;
}

int rfs_if_set_noguard(struct rfs_dp *dp, struct rfs_if *ifc, bool on,
		       char *err)
{
	bool was = ifc->noguard;
	int e;

	if (on == was)
		return 0;
	ifc->noguard = on;
	e = rfs_if_push_config(ifc, 0);
	if (e) {
		ifc->noguard = was;
		return rfs_errf(err, e, "set noguard %s: can't write config: %s",
				ifc->name, strerror(-e));
	}
	if (on)
		pr_warn("%s: NOGUARD: the in-order rule is now OFF: flows move at once and may be reordered (benchmarks only)\n",
			ifc->name);
	else
		pr_info("%s: the in-order rule is on again (noguard off)\n",
			ifc->name);
	return 0;
}

int rfs_if_set_flow_cnt(struct rfs_dp *dp, struct rfs_if *ifc, __u32 n,
			char *err)
{
	const struct rfs_if_env env = rfs_dp_env(dp);
	__u32 old_n = ifc->flow_cnt;
	char what[64];
	int e;

	snprintf(what, sizeof(what), "set flow-cnt %s", ifc->name);
	e = rfs_iface_check_flow_cnt(what, n, err);
	if (e || n == old_n)
		return e;
	/* the old table drains beside the new one, briefly: the budget is
	 * for what stays (rfs_dp.h) */
	snprintf(what, sizeof(what), "can't set flow_cnt of '%s' to %u",
		 ifc->name, n);
	e = rfs_budget_check(&env.budget, what, n, ifc->rx_queues,
			     env.tables_bytes -
			     rfs_table_bytes(old_n, ifc->rx_queues), err,
			     RFS_ERR_LEN);
	if (e)
		return e;
	e = rfs_devtab_resize(&env, ifc, n, ifc->rx_queues, err);
	if (e)
		return e;
	e = rfs_if_push_config(ifc, 0);
	if (e)
		pr_warn("%s: can't update config: %s\n", ifc->name,
			strerror(-e));
	pr_debug("%s: flow_cnt %u -> %u\n", ifc->name, old_n, n);	/* callers say why */
	return 0;
}

/* ---- the CPUs leaving ---- */

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

int rfs_if_holds(struct rfs_dp *dp, struct rfs_if *ifc,
		 struct rfs_hold_cpu **out, size_t *n, char *err)
{
	const struct rfs_if_env env = rfs_dp_env(dp);
	struct rfs_hold_cpu *by_cpu, *res;
	struct rfs_cpuset leaving;
	unsigned int cpu;
	size_t k = 0, count;
	int e;

	*out = NULL;
	*n = 0;
	rfs_iface_note_leaving(ifc, rfs_mono_ms());
	rfs_cpuset_zero(&leaving);
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		if (rfs_iface_cpu_leaving(ifc, cpu))
			rfs_cpuset_add(&leaving, cpu);
	count = rfs_cpuset_count(&leaving);
	if (!count)
		return 0;
	by_cpu = calloc(RFS_MAX_CPUS, sizeof(*by_cpu));
	res = calloc(count, sizeof(*res));
	e = by_cpu && res ? rfs_devtab_holds(&env, ifc, &leaving, by_cpu) :
			    -ENOMEM;
	if (e) {
		free(by_cpu);
		free(res);
		return rfs_errf(err, e, "can't read the flows of '%s': %s",
				ifc->name, strerror(-e));
	}
	for (cpu = 0; k < count; cpu++) {
		if (!rfs_cpuset_has(&leaving, cpu))
			continue;
		res[k] = by_cpu[cpu];
		res[k].cpu = cpu;
		res[k++].since_ms = ifc->leaving_since_ms[cpu];
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
