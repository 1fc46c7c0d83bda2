// SPDX-License-Identifier: GPL-2.0
/*
 * The command table (commands.h) and the handlers not in a file of their
 * own.  Every argument is checked for presence and type before any
 * datapath call; ranges that are the datapath's business (powers of two,
 * online CPUs) are left to it, so that its error strings reach the user
 * unchanged.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "ksched.h"
#include "log.h"
#include "rfs_commit.h"
#include "rfsd.h"
#include "server.h"

static struct json_object *do_version(struct rfsd_cmd_ctx *x,
				      struct rfsd_client *c,
				      struct json_object *req)
{
	struct json_object *o = json_object_new_object();

	rfsd_add(o, "version", rfsd_jstr(RFS_VERSION));
	rfsd_add(o, "commit", rfsd_jstr(RFS_COMMIT));
	return rfsd_reply_ok(o);
}

static struct json_object *do_status(struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c,
				     struct json_object *req)
{
	struct json_object *o = json_object_new_object(), *p, *ifs;
	struct rfs_dp_prog_ids ids;
	size_t i;

	rfs_dp_prog_ids(x->dp, &ids);
	rfsd_add(o, "version", rfsd_jstr(RFS_VERSION));
	rfsd_add(o, "commit", rfsd_jstr(RFS_COMMIT));
	rfsd_add(o, "pin_dir", rfsd_jstr(rfs_dp_pin_dir(x->dp)));
	rfsd_add(o, "cgroup", rfsd_jstr(rfs_dp_cgroup(x->dp)));
	rfsd_add(o, "trace_mode",
		 rfsd_jstr(rfs_trace_mode_name(rfs_dp_trace_mode(x->dp))));
	rfsd_add(o, "sock_flow_entries",
		 rfsd_jint(rfs_dp_sock_flow_entries(x->dp)));
	rfsd_add(o, "nr_cpus", rfsd_jint(rfs_dp_nr_cpus(x->dp)));
	rfsd_add(o, "parser_pid", rfsd_jint(x->parser_pid));
	p = json_object_new_object();
	rfsd_add(p, "cpumap", rfsd_jint(ids.cpumap));
	rfsd_add(p, "enqueue", rfsd_jint(ids.enqueue));
	rfsd_add(p, "sockops", rfsd_jint(ids.sockops));
	rfsd_add(p, "recv", rfsd_jint(ids.recv));
	rfsd_add(p, "send", rfsd_jint(ids.send));
	rfsd_add(o, "programs", p);
	rfsd_add(o, "cpumap_kthreads", rfsd_ksched_json(x->ksched));
	ifs = json_object_new_array();
	for (i = 0; i < rfs_dp_if_count(x->dp); i++) {
		struct rfs_if *ifc = rfs_dp_if_at(x->dp, i);
		struct json_object *io = rfsd_if_json(ifc);

		rfsd_if_leaving_json(x->dp, ifc, io);
		json_object_array_add(ifs, io);
	}
	rfsd_add(o, "interfaces", ifs);
	rfsd_add(o, "lost", rfsd_ifaces_lost_json(x->ifaces));
	rfsd_add(o, "kernel",
		 rfsd_kernel_json(x->dp, x->ifaces->cfg->allow_unordered));
	return rfsd_reply_ok(o);
}

static struct json_object *do_attach(struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c,
				     struct json_object *req)
{
	struct rfs_if_opts opts = { .mode = RFS_XDP_AUTO };
	struct json_object *reply = NULL;
	char err[RFS_ERR_LEN] = "", what[128], desc[160];
	const char *name, *mode;
	struct rfs_if *ifc;
	long long n;
	int r;

	if (rfsd_arg_iface(req, true, &name, &reply) < 0 ||
	    rfsd_arg_cpus(req, "cpus", false, &opts.cpus, &reply) < 0)
		return reply;
	/* 0 would mean the default to rfs_if_attach(): not the user's */
	r = rfsd_arg_int(req, "flow_cnt", false, 1, UINT32_MAX, &n, &reply);
	if (r < 0)
		return reply;
	if (!r)
		opts.flow_cnt = n;
	r = rfsd_arg_str(req, "mode", false, &mode, &reply);
	if (r < 0)
		return reply;
	if (!r && rfs_xdp_mode_parse(mode, &opts.mode))
		return rfsd_reply_err(EINVAL,
				      "bad request: 'mode' must be \"auto\", \"native\" or \"generic\"");
	if (rfsd_arg_bool(req, "allow_unordered", false, &opts.allow_unordered,
			  &reply) < 0)
		return reply;
	/* the config in effect, reloads included */
	opts.allow_unordered |= x->ifaces->cfg->allow_unordered;
	snprintf(what, sizeof(what), "attach %s", name);
	r = rfs_if_attach(x->dp, name, &opts, &ifc, err);
	if (r)
		return rfsd_reply_dp_err(r, err, what);
	rfsd_ifaces_user_attach(x->ifaces, name);
	rfs_if_describe(ifc, desc, sizeof(desc));
	rfs_log_iface(RFS_LOG_INFO, name, rfs_if_ifindex(ifc),
		      "attached, %s: rfsctl attach, uid %u pid %d", desc,
		      rfsd_client_uid(c), rfsd_client_pid(c));
	return rfsd_reply_ok(rfsd_if_json(ifc));
}

static struct json_object *do_detach(struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c,
				     struct json_object *req)
{
	const struct rfsd_ifstate *st;
	struct json_object *reply = NULL;
	char err[RFS_ERR_LEN] = "", what[64], name[IF_NAMESIZE];
	const char *iface;
	struct rfs_if *ifc;
	int r, ifindex;

	if (rfsd_arg_iface(req, true, &iface, &reply) < 0)
		return reply;
	st = rfsd_ifaces_lost(x->ifaces, iface);
	if (!rfs_dp_if_find(x->dp, iface) && st) {
		if (st->lost_to)
			return rfsd_reply_err(ENOENT,
					      "detach %s: not attached: another tool replaced our XDP program with program %u",
					      iface, st->lost_to);
		return rfsd_reply_err(ENOENT,
				      "detach %s: not attached: another tool detached our XDP program",
				      iface);
	}
	ifc = rfsd_find_if(x, "detach", iface, &reply);
	if (!ifc)
		return reply;
	snprintf(name, sizeof(name), "%s", iface);
	ifindex = rfs_if_ifindex(ifc);
	snprintf(what, sizeof(what), "detach %s", name);
	r = rfs_if_detach(x->dp, ifc, err);
	if (r)
		return rfsd_reply_dp_err(r, err, what);
	rfsd_ifaces_user_detach(x->ifaces, name);
	rfs_log_iface(RFS_LOG_INFO, name, ifindex,
		      "detached: rfsctl detach, uid %u pid %d",
		      rfsd_client_uid(c), rfsd_client_pid(c));
	return rfsd_reply_ok(json_object_new_object());
}

static struct json_object *set_sock_flow(struct rfsd_cmd_ctx *x,
					 struct rfsd_client *c,
					 struct json_object *req)
{
	struct json_object *reply = NULL, *o;
	char err[RFS_ERR_LEN] = "";
	__u32 old = rfs_dp_sock_flow_entries(x->dp);
	long long v;
	int r;

	if (rfsd_arg_int(req, "value", true, 0, UINT32_MAX, &v, &reply) < 0)
		return reply;
	r = rfs_dp_set_sock_flow_entries(x->dp, v, err);
	if (r)
		return rfsd_reply_dp_err(r, err, "set sock-flow-entries");
	if (old != rfs_dp_sock_flow_entries(x->dp))
		pr_info("sock flow table: %u -> %u entries: rfsctl set sock-flow-entries, uid %u pid %d\n",
			old, rfs_dp_sock_flow_entries(x->dp),
			rfsd_client_uid(c), rfsd_client_pid(c));
	o = json_object_new_object();
	rfsd_add(o, "sock_flow_entries",
		 rfsd_jint(rfs_dp_sock_flow_entries(x->dp)));
	return rfsd_reply_ok(o);
}

static struct json_object *set_iface(struct rfsd_cmd_ctx *x,
				     struct rfsd_client *c,
				     struct json_object *req, bool cpus)
{
	struct json_object *reply = NULL, *o;
	char err[RFS_ERR_LEN] = "", what[64], was[256], now[256];
	const char *key = cpus ? "set cpus" : "set flow-cnt";
	struct rfs_cpuset set, conf, active;
	__u32 old_n;
	const char *name;
	struct rfs_if *ifc;
	long long v = 0;
	int r;

	if (rfsd_arg_iface(req, true, &name, &reply) < 0)
		return reply;
	if (cpus)
		r = rfsd_arg_cpus(req, "cpus", true, &set, &reply);
	else
		r = rfsd_arg_int(req, "value", true, 0, UINT32_MAX, &v, &reply);
	if (r < 0)
		return reply;
	ifc = rfsd_find_if(x, key, name, &reply);
	if (!ifc)
		return reply;
	snprintf(what, sizeof(what), "%s %s", key, name);
	rfs_if_cpus(ifc, &conf, &active);
	rfs_cpulist_format(&conf, was, sizeof(was));
	old_n = rfs_if_flow_cnt(ifc);
	if (cpus)
		r = rfs_if_set_cpus(x->dp, ifc, &set, err);
	else
		r = rfs_if_set_flow_cnt(x->dp, ifc, v, err);
	if (r)
		return rfsd_reply_dp_err(r, err, what);
	rfs_if_cpus(ifc, &conf, &active);
	rfs_cpulist_format(&conf, now, sizeof(now));
	if (cpus && strcmp(was, now))
		rfs_log_iface(RFS_LOG_INFO, name, rfs_if_ifindex(ifc),
			      "cpus %s -> %s: rfsctl set cpus, uid %u pid %d",
			      was[0] ? was : "all", now[0] ? now : "all", rfsd_client_uid(c), rfsd_client_pid(c));
	else if (!cpus && old_n != rfs_if_flow_cnt(ifc))
		rfs_log_iface(RFS_LOG_INFO, name, rfs_if_ifindex(ifc),
			      "flow_cnt %u -> %u: rfsctl set flow-cnt, uid %u pid %d",
			      old_n, rfs_if_flow_cnt(ifc), rfsd_client_uid(c),
			      rfsd_client_pid(c));
	o = rfsd_if_json(ifc);
	/* set cpus returns at once: a removal still waiting on flows is
	 * in the reply, as in status, rather than waited for */
	if (cpus)
		rfsd_if_leaving_json(x->dp, ifc, o);
	return rfsd_reply_ok(o);
}

static struct json_object *do_set(struct rfsd_cmd_ctx *x,
				  struct rfsd_client *c,
				  struct json_object *req)
{
	struct json_object *reply = NULL;
	const char *key;

	if (rfsd_arg_str(req, "key", true, &key, &reply) < 0)
		return reply;
	if (!strcmp(key, "sock_flow_entries") || !strcmp(key, "sock-flow-entries"))
		return set_sock_flow(x, c, req);
	if (!strcmp(key, "flow_cnt") || !strcmp(key, "flow-cnt"))
		return set_iface(x, c, req, false);
	if (!strcmp(key, "cpus"))
		return set_iface(x, c, req, true);
	return rfsd_reply_err(EINVAL,
			      "bad request: unknown key '%s' (sock_flow_entries, flow_cnt, cpus)",
			      key);
}

static const char *const no_args[] = { NULL };
static const char *const attach_args[] = { "iface", "cpus", "flow_cnt", "mode",
					    "allow_unordered", NULL };
static const char *const iface_args[] = { "iface", NULL };
static const char *const flows_args[] = { "iface", "limit", "interval_ms", NULL };
static const char *const explain_args[] = {
	"iface", "src", "dst", "sport", "dport", "proto", "rx_cpu", NULL
};
static const char *const set_args[] = { "key", "value", "iface", "cpus", NULL };

const struct rfsd_cmd rfsd_cmds[] = {
	{ "version", no_args, do_version, NULL, false },
	{ "status", no_args, do_status, NULL, false },
	{ "attach", attach_args, do_attach, NULL, true },
	{ "detach", iface_args, do_detach, NULL, true },
	{ "stats", iface_args, rfsd_cmd_stats, NULL, false },
	{ "flows", flows_args, NULL, rfsd_cmd_flows, false },
	{ "set", set_args, do_set, NULL, true },
	{ "explain", explain_args, rfsd_cmd_explain, NULL, false },
	{ NULL },
};
