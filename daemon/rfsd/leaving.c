// SPDX-License-Identifier: GPL-2.0
/*
 * CPUs leaving an interface (commands.h).  The flows and their reasons
 * come from the library (rfs_if_holds), judged by the test that decides
 * the removal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "log.h"
#include "mono.h"

static struct json_object *held_json(const struct rfs_held_flow *h)
{
	struct json_object *o = json_object_new_object();
	bool local = h->f.flags & RFS_DEV_FLOW_LOCAL;
	char why[512];

	rfsd_add(o, "table", rfsd_jstr(h->prev_table ? "previous" : "current"));
	/* the table index, explain's "slot" */
	rfsd_add(o, "slot", rfsd_jint(h->index));
	rfsd_add(o, "rx_queue", rfsd_jint(h->rxq));
	/* what the slot says of the hash: rfs_dev_index() */
	rfsd_add(o, "hash_mask", rfsd_jhex32(h->flow_mask << 8));
	rfsd_add(o, "hash_bits", rfsd_jhex32(h->slot << 8));
	rfsd_add(o, "path", rfsd_jstr(local ? "local" : "cpumap"));
	rfsd_add(o, "cpu", rfsd_jint(h->f.cpu));
	rfsd_add(o, "rx_cpu", rfsd_jint(h->f.rx_cpu));
	rfsd_add(o, local ? "jiffy" : "seq", rfsd_jint(h->f.last));
	rfsd_add(o, "reason", rfsd_jstr(rfs_hold_why_name(h->why)));
	rfsd_add(o, "kthread_asleep",
		 local ? NULL : rfsd_jbool(h->kthread_asleep));
	rfsd_add(o, "why", rfsd_jstr(rfs_hold_flow_words(h, why, sizeof(why))));
	return o;
}

static struct json_object *cpu_json(const struct rfs_hold_cpu *c,
				    __u64 now_ms, time_t now)
{
	struct json_object *o = json_object_new_object(), *a;
	__u64 waited = now_ms > c->since_ms ? now_ms - c->since_ms : 0;
	__u32 i;

	rfsd_add(o, "cpu", rfsd_jint(c->cpu));
	rfsd_add(o, "since", rfsd_jint((int64_t)now - (int64_t)(waited / 1000)));
	rfsd_add(o, "waited_ms", rfsd_jint(waited));
	rfsd_add(o, "flows", rfsd_jint(c->flows));
	a = json_object_new_array();
	for (i = 0; i < c->shown; i++)
		json_object_array_add(a, held_json(&c->first[i]));
	rfsd_add(o, "held", a);
	return o;
}

void rfsd_if_leaving_json(struct rfs_dp *dp, struct rfs_if *ifc,
			  struct json_object *o)
{
	struct rfs_hold_cpu *cs = NULL;
	struct json_object *a;
	char err[RFS_ERR_LEN] = "";
	__u64 now_ms = rfs_mono_ms(), held = 0;
	time_t now = time(NULL);
	size_t n = 0, i;

	if (rfs_if_holds(dp, ifc, &cs, &n, err)) {
		pr_debug("status %s: %s\n", rfs_if_name(ifc), err);
		return;
	}
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		json_object_array_add(a, cpu_json(&cs[i], now_ms, now));
		held += cs[i].flows;
	}
	rfsd_add(o, "leaving", a);
	rfsd_add(o, "held_flows", rfsd_jint(held));
	free(cs);
}

/* The warning for one leaving CPU c of ifc: its flows by name. */
static void warn_cpu(const struct rfs_if *ifc, const struct rfs_hold_cpu *c,
		     __u64 waited_ms)
{
	char flows[1400], one[512];
	size_t used = 0;
	__u32 i;

	flows[0] = '\0';
	for (i = 0; i < c->shown && used < sizeof(flows); i++) {
		int k = snprintf(flows + used, sizeof(flows) - used, "%s%s",
				 i ? "; " : "",
				 rfs_hold_flow_words(&c->first[i], one,
						     sizeof(one)));

		if (k > 0)
			used += (size_t)k;
	}
	if (c->flows > c->shown && used < sizeof(flows))
		snprintf(flows + used, sizeof(flows) - used, "; and %u more",
			 c->flows - c->shown);
	rfs_log_iface(RFS_LOG_WARN, rfs_if_name(ifc), rfs_if_ifindex(ifc),
		      "CPU %u still leaving after %llu s, kept usable by %u flow%s not yet proven drained there (a flow whose frames never leave a gap never moves; rfsctl status): %s",
		      c->cpu, (unsigned long long)(waited_ms / 1000), c->flows,
		      c->flows == 1 ? "" : "s", c->flows ? flows : "none now");
}

void rfsd_leaving_tick(struct rfs_dp *dp, __u32 bound_s)
{
	__u64 now_ms = rfs_mono_ms(), bound_ms = (__u64)bound_s * 1000;
	size_t i;

	if (!bound_ms)
		return;
	for (i = 0; i < rfs_dp_if_count(dp); i++) {
		struct rfs_if *ifc = rfs_dp_if_at(dp, i);
		struct rfs_hold_cpu *cs = NULL;
		char err[RFS_ERR_LEN] = "";
		struct rfs_cpuset due;
		unsigned int cpu;
		size_t n = 0, k;
		bool any = false;

		rfs_cpuset_zero(&due);
		for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
			if (rfs_if_leaving_warn_due(ifc, cpu, now_ms, bound_ms)) {
				rfs_cpuset_add(&due, cpu);
				any = true;
			}
		/* the flows are read only when a warning is due */
		if (!any)
			continue;
		if (rfs_if_holds(dp, ifc, &cs, &n, err)) {
			pr_warn("%s: can't name the flows of a leaving CPU: %s\n",
				rfs_if_name(ifc), err);
			continue;
		}
		for (k = 0; k < n; k++)
			if (rfs_cpuset_has(&due, cs[k].cpu))
				warn_cpu(ifc, &cs[k],
					 now_ms - rfs_if_leaving_since(ifc,
								       cs[k].cpu));
		free(cs);
	}
}
