// SPDX-License-Identifier: GPL-2.0
/*
 * The command table (commands.h), the handlers not in a file of their
 * own, and what they share about an attached interface: its object, with
 * the CPUs still leaving it (the flows and their reasons from
 * rfs_if_holds(), judged by the test that decides the removal).  The
 * parser checked every argument's type and range; ranges that are the
 * datapath's business (powers of two, online CPUs) are left to it, so
 * that its error strings reach the user unchanged.
 */
#include <stdlib.h>

#include "log.h"
#include "rfs_commit.h"
#include "server.h"

/* The interface object of status, attach and set replies. */
static struct json_object *if_json(const struct rfs_if *ifc)
{
	struct json_object *o = json_object_new_object();

	rfsd_add(o, "name", rfsd_jstr(ifc->name));
	rfsd_add(o, "ifindex", rfsd_jint(ifc->ifindex));
	rfsd_add(o, "mode", rfsd_jstr(rfs_xdp_mode_name(ifc->mode)));
	rfsd_add(o, "rx_queues", rfsd_jint(ifc->rx_queues));
	rfsd_add(o, "flow_cnt", rfsd_jint(ifc->flow_cnt));
	rfsd_add(o, "cpus", rfsd_cpus_json(&ifc->configured));
	rfsd_add(o, "active_cpus", rfsd_cpus_json(&ifc->allowed));
	rfsd_add(o, "noguard", rfsd_jbool(ifc->noguard));
	rfsd_add(o, "kernel_rps", rfsd_jbool(ifc->kernel_rps));
	rfsd_add(o, "prog_id", rfsd_jint(ifc->prog_id));
	return o;
}

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

/*
 * A CPU taken out of an interface's set keeps its flows until each is
 * proven drained (include/rfs_order.h), and a flow that never leaves a
 * gap never is: "leaving" (per CPU: since when, the flows it waits for
 * and why) and "held_flows", added to ifc's object o (neither if the
 * flows can't be read).
 */
static void if_leaving_json(struct rfs_dp *dp, struct rfs_if *ifc,
			    struct json_object *o)
{
	struct rfs_hold_cpu *cs = NULL;
	struct json_object *a;
	char err[RFS_ERR_LEN] = "";
	__u64 now_ms = rfs_mono_ms(), held = 0;
	time_t now = time(NULL);
	size_t n = 0, i;

	if (rfs_if_holds(dp, ifc, &cs, &n, err)) {
		pr_debug("status %s: %s\n", ifc->name, err);
		return;
	}
	a = json_object_new_array();
	for (i = 0; i < n; i++) {
		const struct rfs_hold_cpu *c = &cs[i];
		__u64 waited = now_ms > c->since_ms ? now_ms - c->since_ms : 0;
		struct json_object *co = json_object_new_object();
		struct json_object *h = json_object_new_array();
		__u32 k;

		rfsd_add(co, "cpu", rfsd_jint(c->cpu));
		rfsd_add(co, "since",
			 rfsd_jint((int64_t)now - (int64_t)(waited / 1000)));
		rfsd_add(co, "waited_ms", rfsd_jint(waited));
		rfsd_add(co, "flows", rfsd_jint(c->flows));
		for (k = 0; k < c->shown; k++)
			json_object_array_add(h, held_json(&c->first[k]));
		rfsd_add(co, "held", h);
		json_object_array_add(a, co);
		held += c->flows;
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
	for (i = 0; i < c->shown && used < sizeof(flows); i++)
		used += snprintf(flows + used, sizeof(flows) - used, "%s%s",
				 i ? "; " : "",
				 rfs_hold_flow_words(&c->first[i], one,
						     sizeof(one)));
	if (c->flows > c->shown && used < sizeof(flows))
		snprintf(flows + used, sizeof(flows) - used, "; and %u more",
			 c->flows - c->shown);
	rfs_log_iface(RFS_LOG_WARN, ifc->name, ifc->ifindex,
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
	for (i = 0; i < dp->n_ifs; i++) {
		struct rfs_if *ifc = dp->ifs[i];
		struct rfs_hold_cpu *cs = NULL;
		char err[RFS_ERR_LEN] = "";
		struct rfs_cpuset due;
		unsigned int cpu;
		size_t n = 0, k;

		rfs_cpuset_zero(&due);
		for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
			if (rfs_if_leaving_warn_due(ifc, cpu, now_ms, bound_ms))
				rfs_cpuset_add(&due, cpu);
		/* the flows are read only when a warning is due */
		if (!rfs_cpuset_count(&due))
			continue;
		if (rfs_if_holds(dp, ifc, &cs, &n, err)) {
			pr_warn("%s: can't name the flows of a leaving CPU: %s\n",
				ifc->name, err);
			continue;
		}
		for (k = 0; k < n; k++)
			if (rfs_cpuset_has(&due, cs[k].cpu))
				warn_cpu(ifc, &cs[k], now_ms - cs[k].since_ms);
		free(cs);
	}
}

static struct json_object *rfsd_cmd_version(struct rfsd_cmd_ctx *x,
					    struct rfsd_client *c,
					    const struct rfsd_req *r)
{
	struct json_object *o = json_object_new_object();

	rfsd_add(o, "version", rfsd_jstr(RFS_VERSION));
	rfsd_add(o, "commit", rfsd_jstr(RFS_COMMIT));
	return rfsd_reply_ok(o);
}

static struct json_object *rfsd_cmd_status(struct rfsd_cmd_ctx *x,
					   struct rfsd_client *c,
					   const struct rfsd_req *r)
{
	struct json_object *o = json_object_new_object(), *p, *ifs;
	const struct rfs_dp_prog_ids *ids = &x->dp->ids;
	size_t i;

	rfsd_add(o, "version", rfsd_jstr(RFS_VERSION));
	rfsd_add(o, "commit", rfsd_jstr(RFS_COMMIT));
	rfsd_add(o, "pin_dir", rfsd_jstr(x->dp->pin_dir));
	rfsd_add(o, "cgroup", rfsd_jstr(x->dp->cgroup));
	rfsd_add(o, "trace_mode",
		 rfsd_jstr(rfs_trace_mode_name(x->dp->trace_mode)));
	rfsd_add(o, "sock_flow_entries",
		 rfsd_jint(x->dp->globals.sock_flow_mask + 1));
	rfsd_add(o, "nr_cpus", rfsd_jint(x->dp->nr_cpus));
	rfsd_add(o, "parser_pid", rfsd_jint(x->parser ? x->parser->pid : 0));
	rfsd_add(o, "http_pid",
		 rfsd_jint(x->metrics ? rfsd_metrics_pid(*x->metrics) : 0));
	p = json_object_new_object();
	rfsd_add(p, "cpumap", rfsd_jint(ids->cpumap));
	rfsd_add(p, "enqueue", rfsd_jint(ids->enqueue));
	rfsd_add(p, "sockops", rfsd_jint(ids->sockops));
	rfsd_add(p, "recv", rfsd_jint(ids->recv));
	rfsd_add(p, "send", rfsd_jint(ids->send));
	rfsd_add(o, "programs", p);
	rfsd_add(o, "cpumap_kthreads", rfsd_ksched_json(x->ksched));
	ifs = json_object_new_array();
	for (i = 0; i < x->dp->n_ifs; i++) {
		struct rfs_if *ifc = x->dp->ifs[i];
		struct json_object *io = if_json(ifc);

		if_leaving_json(x->dp, ifc, io);
		json_object_array_add(ifs, io);
	}
	rfsd_add(o, "interfaces", ifs);
	rfsd_add(o, "lost", rfsd_ifaces_lost_json(x->ifaces));
	rfsd_add(o, "kernel",
		 rfsd_kernel_json(x->dp, x->ifaces->cfg->allow_unordered));
	return rfsd_reply_ok(o);
}

static struct json_object *rfsd_cmd_attach(struct rfsd_cmd_ctx *x,
					   struct rfsd_client *c,
					   const struct rfsd_req *r)
{
	struct rfs_if_opts opts = {
		.mode = RFS_XDP_AUTO,
		.cpus = r->cpus,
		.flow_cnt = r->flow_cnt,
		/* the config in effect, reloads included */
		.allow_unordered = r->allow_unordered ||
				   x->ifaces->cfg->allow_unordered,
	};
	char err[RFS_ERR_LEN] = "", desc[160];
	struct rfs_if *ifc;
	int e;

	if (r->mode && rfs_xdp_mode_parse(r->mode, &opts.mode))
		return rfsd_reply_err(EINVAL,
				      "bad request: 'mode' must be \"auto\", \"native\" or \"generic\"");
	e = rfs_if_attach(x->dp, r->iface, &opts, &ifc, err);
	if (e)
		return rfsd_reply_dp_err(e, err, "attach %s", r->iface);
	rfsd_ifaces_user(x->ifaces, r->iface, false);
	rfs_if_describe(ifc, desc, sizeof(desc));
	rfs_log_iface(RFS_LOG_INFO, r->iface, ifc->ifindex,
		      "attached, %s: rfsctl attach, %s", desc,
		      rfsd_client_who(c));
	return rfsd_reply_ok(if_json(ifc));
}

static struct json_object *rfsd_cmd_detach(struct rfsd_cmd_ctx *x,
					   struct rfsd_client *c,
					   const struct rfsd_req *r)
{
	const struct rfsd_ifstate *st = rfsd_ifaces_lost(x->ifaces, r->iface);
	struct json_object *reply = NULL;
	char err[RFS_ERR_LEN] = "";
	struct rfs_if *ifc;
	int e, ifindex;

	if (!rfs_dp_if_find(x->dp, r->iface) && st) {
		if (st->lost_to)
			return rfsd_reply_err(ENOENT,
					      "detach %s: not attached: another tool replaced our XDP program with program %u",
					      r->iface, st->lost_to);
		return rfsd_reply_err(ENOENT,
				      "detach %s: not attached: another tool detached our XDP program",
				      r->iface);
	}
	ifc = rfsd_find_if(x, "detach", r->iface, &reply);
	if (!ifc)
		return reply;
	ifindex = ifc->ifindex;
	e = rfs_if_detach(x->dp, ifc, err);
	if (e)
		return rfsd_reply_dp_err(e, err, "detach %s", r->iface);
	rfsd_ifaces_user(x->ifaces, r->iface, true);
	rfs_log_iface(RFS_LOG_INFO, r->iface, ifindex,
		      "detached: rfsctl detach, %s", rfsd_client_who(c));
	return rfsd_reply_ok(json_object_new_object());
}

/* One path for every key: check, find, call, reply; the datapath logs a
 * change of an interface, with why. */
static struct json_object *rfsd_cmd_set(struct rfsd_cmd_ctx *x,
					struct rfsd_client *c,
					const struct rfsd_req *r)
{
	bool sfe = !strcmp(r->key, "sock_flow_entries") ||
		   !strcmp(r->key, "sock-flow-entries");
	bool cpus = !strcmp(r->key, "cpus");
	const char *words = sfe ? "sock-flow-entries" : cpus ? "cpus" :
			    "flow-cnt", *miss;
	__u32 was = x->dp->globals.sock_flow_mask + 1, now;
	char err[RFS_ERR_LEN] = "", what[64], why[128];
	struct json_object *reply = NULL, *o;
	struct rfs_if *ifc = NULL;
	int e;

	if (!sfe && !cpus && strcmp(r->key, "flow_cnt") &&
	    strcmp(r->key, "flow-cnt"))
		return rfsd_reply_err(EINVAL,
				      "bad request: unknown key '%s' (sock_flow_entries, flow_cnt, cpus)",
				      r->key);
	miss = !sfe && !r->iface ? "iface" :
	       r->has & (cpus ? RFSD_ARG(CPUS) : RFSD_ARG(VALUE)) ? NULL :
	       cpus ? "cpus" : "value";
	if (miss)
		return rfsd_reply_err(EINVAL, "bad request: missing '%s'",
				      miss);
	snprintf(what, sizeof(what), "set %s", words);
	if (!sfe && !(ifc = rfsd_find_if(x, what, r->iface, &reply)))
		return reply;
	snprintf(why, sizeof(why), "rfsctl %s, %s", what, rfsd_client_who(c));
	if (sfe)
		e = rfs_dp_set_sock_flow_entries(x->dp, r->value, err);
	else if (cpus)
		e = rfs_if_set_cpus(x->dp, ifc, &r->cpus, why, err);
	else
		e = rfs_if_set_flow_cnt(x->dp, ifc, r->value, why, err);
	if (e)
		return rfsd_reply_dp_err(e, err, "%s%s%s", what, ifc ? " " : "",
					 ifc ? r->iface : "");
	if (ifc) {
		o = if_json(ifc);
		/* set cpus returns at once: a removal still waiting on
		 * flows is in the reply, as in status, not waited for */
		if (cpus)
			if_leaving_json(x->dp, ifc, o);
		return rfsd_reply_ok(o);
	}
	now = x->dp->globals.sock_flow_mask + 1;
	if (now != was)
		pr_info("sock flow table: %u -> %u entries: %s\n", was, now,
			why);
	o = json_object_new_object();
	rfsd_add(o, "sock_flow_entries", rfsd_jint(now));
	return rfsd_reply_ok(o);
}

#define RUN(n)		rfsd_cmd_##n, NULL
#define START(n)	NULL, rfsd_cmd_##n
const struct rfsd_cmd rfsd_cmds[] = {
	RFSD_CMDS(RFSD_CMD_ROW)
	{ NULL },
};
