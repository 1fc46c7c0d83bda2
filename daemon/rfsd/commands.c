// SPDX-License-Identifier: GPL-2.0
/*
 * Control commands (docs/protocol.md): the table of commands, and their
 * handlers, which check their arguments, call the datapath and build the
 * result.  request.c has parsed the line and refused unknown commands and
 * arguments by then.  Every argument is checked for presence and type
 * here, before any datapath call; ranges that are the datapath's business
 * (powers of two, online CPUs) are left to it so that its error strings
 * reach the user unchanged.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "rfsd.h"
#include "server.h"

static int arg_iface(struct json_object *req, bool required, const char **out,
		     struct json_object **reply)
{
	int r = rfsd_arg_str(req, "iface", required, out, reply);

	if (r)
		return r;
	if (!**out || strlen(*out) >= IF_NAMESIZE) {
		*reply = rfsd_reply_err(EINVAL,
					"bad request: 'iface' must be an interface name (1..%d characters)",
					IF_NAMESIZE - 1);
		return -EINVAL;
	}
	return 0;
}

struct rfs_if *rfsd_find_if(struct rfsd *d, const char *what, const char *name,
			    struct json_object **reply)
{
	struct rfs_if *ifc = rfs_dp_if_find(d->dp, name);

	if (ifc)
		return ifc;
	if (!if_nametoindex(name))
		*reply = rfsd_reply_err(ENODEV, "%s %s: no such interface", what,
					name);
	else
		*reply = rfsd_reply_err(ENOENT, "%s %s: not attached", what, name);
	return NULL;
}

static struct json_object *cpus_json(const struct rfs_cpuset *set)
{
	struct json_object *a = json_object_new_array();
	unsigned int cpu;

	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		if (rfs_cpuset_has(set, cpu))
			json_object_array_add(a, json_object_new_int(cpu));
	return a;
}

struct json_object *rfsd_if_json(const struct rfs_if *ifc)
{
	struct json_object *o = json_object_new_object();
	struct rfs_cpuset cpus, active;

	rfs_if_cpus(ifc, &cpus, &active);
	json_object_object_add(o, "name", json_object_new_string(rfs_if_name(ifc)));
	json_object_object_add(o, "ifindex", json_object_new_int(rfs_if_ifindex(ifc)));
	json_object_object_add(o, "mode",
			       json_object_new_string(rfs_xdp_mode_name(rfs_if_mode(ifc))));
	json_object_object_add(o, "rx_queues",
			       json_object_new_int64(rfs_if_rx_queues(ifc)));
	json_object_object_add(o, "flow_cnt",
			       json_object_new_int64(rfs_if_flow_cnt(ifc)));
	json_object_object_add(o, "cpus", cpus_json(&cpus));
	json_object_object_add(o, "active_cpus", cpus_json(&active));
	json_object_object_add(o, "prog_id",
			       json_object_new_int64(rfs_if_prog_id(ifc)));
	return o;
}

static struct json_object *do_version(struct rfsd *d, struct rfsd_client *c,
				      struct json_object *req)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "version", json_object_new_string(RFS_VERSION));
	return rfsd_reply_ok(o);
}

static struct json_object *do_status(struct rfsd *d, struct rfsd_client *c,
				     struct json_object *req)
{
	struct json_object *o = json_object_new_object(), *p, *ifs;
	const char *cg = rfs_dp_cgroup(d->dp);
	struct rfs_dp_prog_ids ids;
	size_t i;

	rfs_dp_prog_ids(d->dp, &ids);
	json_object_object_add(o, "version", json_object_new_string(RFS_VERSION));
	json_object_object_add(o, "pin_dir",
			       json_object_new_string(rfs_dp_pin_dir(d->dp)));
	json_object_object_add(o, "cgroup", cg ? json_object_new_string(cg) : NULL);
	json_object_object_add(o, "trace_mode",
			       json_object_new_string(rfs_trace_mode_name(rfs_dp_trace_mode(d->dp))));
	json_object_object_add(o, "sock_flow_entries",
			       json_object_new_int64(rfs_dp_sock_flow_entries(d->dp)));
	json_object_object_add(o, "nr_cpus",
			       json_object_new_int(rfs_dp_nr_cpus(d->dp)));
	p = json_object_new_object();
	json_object_object_add(p, "cpumap", json_object_new_int64(ids.cpumap));
	json_object_object_add(p, "enqueue", json_object_new_int64(ids.enqueue));
	json_object_object_add(p, "sockops", json_object_new_int64(ids.sockops));
	json_object_object_add(p, "recv", json_object_new_int64(ids.recv));
	json_object_object_add(p, "send", json_object_new_int64(ids.send));
	json_object_object_add(o, "programs", p);
	ifs = json_object_new_array();
	for (i = 0; i < rfs_dp_if_count(d->dp); i++)
		json_object_array_add(ifs, rfsd_if_json(rfs_dp_if_at(d->dp, i)));
	json_object_object_add(o, "interfaces", ifs);
	json_object_object_add(o, "lost", rfsd_ifaces_lost_json(d));
	return rfsd_reply_ok(o);
}

static struct json_object *do_attach(struct rfsd *d, struct rfsd_client *c,
				     struct json_object *req)
{
	struct rfs_if_opts opts = { .mode = RFS_XDP_AUTO };
	struct json_object *reply = NULL;
	char err[RFS_ERR_LEN] = "", what[128];
	const char *name, *mode;
	struct rfs_if *ifc;
	long long n;
	int r;

	if (arg_iface(req, true, &name, &reply) < 0 ||
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
	snprintf(what, sizeof(what), "attach %s", name);
	r = rfs_if_attach(d->dp, name, &opts, &ifc, err);
	if (r)
		return rfsd_reply_dp_err(r, err, what);
	rfsd_ifaces_user_attach(d, name);
	pr_info("%s: attached for uid %u (pid %d)\n", name, rfsd_client_uid(c),
		rfsd_client_pid(c));
	return rfsd_reply_ok(rfsd_if_json(ifc));
}

static struct json_object *do_detach(struct rfsd *d, struct rfsd_client *c,
				     struct json_object *req)
{
	struct json_object *reply = NULL;
	char err[RFS_ERR_LEN] = "", what[64], name[IF_NAMESIZE];
	const char *iface;
	struct rfs_if *ifc;
	int r;

	if (arg_iface(req, true, &iface, &reply) < 0)
		return reply;
	if (!rfs_dp_if_find(d->dp, iface) && rfsd_ifaces_lost(d, iface)) {
		const struct rfsd_ifstate *st = rfsd_ifaces_lost(d, iface);

		if (st->lost_to)
			return rfsd_reply_err(ENOENT,
					      "detach %s: not attached: another tool replaced our XDP program with program %u",
					      iface, st->lost_to);
		return rfsd_reply_err(ENOENT,
				      "detach %s: not attached: another tool detached our XDP program",
				      iface);
	}
	ifc = rfsd_find_if(d, "detach", iface, &reply);
	if (!ifc)
		return reply;
	snprintf(name, sizeof(name), "%s", iface);
	snprintf(what, sizeof(what), "detach %s", name);
	r = rfs_if_detach(d->dp, ifc, err);
	if (r)
		return rfsd_reply_dp_err(r, err, what);
	rfsd_ifaces_user_detach(d, name);
	pr_info("%s: detached for uid %u (pid %d)\n", name, rfsd_client_uid(c),
		rfsd_client_pid(c));
	return rfsd_reply_ok(json_object_new_object());
}

static struct json_object *set_sock_flow(struct rfsd *d, struct rfsd_client *c,
					 struct json_object *req)
{
	struct json_object *reply = NULL, *o;
	char err[RFS_ERR_LEN] = "";
	__u32 old = rfs_dp_sock_flow_entries(d->dp);
	long long v;
	int r;

	if (rfsd_arg_int(req, "value", true, 0, UINT32_MAX, &v, &reply) < 0)
		return reply;
	r = rfs_dp_set_sock_flow_entries(d->dp, v, err);
	if (r)
		return rfsd_reply_dp_err(r, err, "set sock-flow-entries");
	if (old != rfs_dp_sock_flow_entries(d->dp))
		pr_info("sock_flow_entries set to %u for uid %u (pid %d)\n",
			rfs_dp_sock_flow_entries(d->dp), rfsd_client_uid(c),
			rfsd_client_pid(c));
	o = json_object_new_object();
	json_object_object_add(o, "sock_flow_entries",
			       json_object_new_int64(rfs_dp_sock_flow_entries(d->dp)));
	return rfsd_reply_ok(o);
}

static struct json_object *set_iface(struct rfsd *d, struct rfsd_client *c,
				     struct json_object *req, bool cpus)
{
	struct json_object *reply = NULL;
	char err[RFS_ERR_LEN] = "", what[64], desc[128];
	const char *key = cpus ? "set cpus" : "set flow-cnt";
	struct rfs_cpuset set;
	const char *name;
	struct rfs_if *ifc;
	long long v = 0;
	int r;

	if (arg_iface(req, true, &name, &reply) < 0)
		return reply;
	if (cpus)
		r = rfsd_arg_cpus(req, "cpus", true, &set, &reply);
	else
		r = rfsd_arg_int(req, "value", true, 0, UINT32_MAX, &v, &reply);
	if (r < 0)
		return reply;
	ifc = rfsd_find_if(d, key, name, &reply);
	if (!ifc)
		return reply;
	snprintf(what, sizeof(what), "%s %s", key, name);
	if (cpus)
		r = rfs_if_set_cpus(d->dp, ifc, &set, err);
	else
		r = rfs_if_set_flow_cnt(d->dp, ifc, v, err);
	if (r)
		return rfsd_reply_dp_err(r, err, what);
	rfsd_if_describe(ifc, desc, sizeof(desc));
	pr_info("%s for uid %u (pid %d): now %s\n", what, rfsd_client_uid(c),
		rfsd_client_pid(c), desc);
	return rfsd_reply_ok(rfsd_if_json(ifc));
}

static struct json_object *do_set(struct rfsd *d, struct rfsd_client *c,
				  struct json_object *req)
{
	struct json_object *reply = NULL;
	const char *key;

	if (rfsd_arg_str(req, "key", true, &key, &reply) < 0)
		return reply;
	if (!strcmp(key, "sock_flow_entries") || !strcmp(key, "sock-flow-entries"))
		return set_sock_flow(d, c, req);
	if (!strcmp(key, "flow_cnt") || !strcmp(key, "flow-cnt"))
		return set_iface(d, c, req, false);
	if (!strcmp(key, "cpus"))
		return set_iface(d, c, req, true);
	return rfsd_reply_err(EINVAL,
			      "bad request: unknown key '%s' (sock_flow_entries, flow_cnt, cpus)",
			      key);
}

static const char *const no_args[] = { NULL };
static const char *const attach_args[] = { "iface", "cpus", "flow_cnt", "mode", NULL };
static const char *const iface_args[] = { "iface", NULL };
static const char *const flows_args[] = { "iface", "limit", "interval_ms", NULL };
static const char *const set_args[] = { "key", "value", "iface", "cpus", NULL };

static struct json_object *do_stats(struct rfsd *d, struct rfsd_client *c,
				    struct json_object *req)
{
	return rfsd_cmd_stats(d, req);
}

static const struct rfsd_cmd rfsd_cmds[] = {
	{ "version", no_args, false, do_version, NULL },
	{ "status", no_args, true, do_status, NULL },
	{ "attach", attach_args, true, do_attach, NULL },
	{ "detach", iface_args, true, do_detach, NULL },
	{ "stats", iface_args, true, do_stats, NULL },
	{ "flows", flows_args, true, NULL, rfsd_cmd_flows },
	{ "set", set_args, true, do_set, NULL },
	{ NULL },
};

enum rfsd_cmd_rc rfsd_cmd_run(struct rfsd *d, struct rfsd_client *c,
			      const char *line, size_t len,
			      struct json_object **reply)
{
	return rfsd_request_run(rfsd_cmds, rfsd_dp_busy(d), d, c, line, len,
				reply);
}
