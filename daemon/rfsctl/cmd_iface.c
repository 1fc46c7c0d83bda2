// SPDX-License-Identifier: GPL-2.0
/*
 * Commands that change an interface or a setting: attach, detach and the
 * set group.  Each sends one request; rfsd does the range checks (power of
 * two, online CPUs) and its message is shown as it is.
 */
#include <stdlib.h>

#include "parse.h"
#include "rfsctl.h"

#define XSTR(x)	#x
#define STR(x)	XSTR(x)

const struct rfs_opt attach_opts[] = {
	DEFINE_OPTION("iface", OPT_IFNAME, struct attach_cfg, iface,
		      .positional = true, .metavar = "IFACE",
		      .help = "interface to attach to"),
	DEFINE_OPTION("cpus", OPT_CPULIST, struct attach_cfg, cpus,
		      .metavar = "LIST",
		      .help = "CPUs to steer to (default: every online CPU)"),
	DEFINE_OPTION("flow-cnt", OPT_UINT, struct attach_cfg, flow_cnt,
		      .metavar = "N",
		      .help = "entries per RX queue, a power of two (default: "
			      STR(RFS_FLOW_CNT_DEFAULT) ")"),
	DEFINE_OPTION("mode", OPT_ENUM, struct attach_cfg, mode,
		      .metavar = "MODE", .values = rfs_xdp_mode_names,
		      .help = "XDP attach mode (default: auto)"),
	DEFINE_OPTION("allow-unordered", OPT_BOOL, struct attach_cfg,
		      allow_unordered,
		      .help = "attach where the kernel can't keep flows in order"),
	END_OPTIONS
};
const struct attach_cfg attach_defaults;

const struct rfs_opt detach_opts[] = {
	DEFINE_OPTION("iface", OPT_IFNAME, struct iface_cfg, iface,
		      .positional = true, .metavar = "IFACE",
		      .help = "interface to detach from"),
	END_OPTIONS
};
const struct iface_cfg detach_defaults;

const struct rfs_opt set_sock_flow_entries_opts[] = {
	DEFINE_OPTION("value", OPT_UINT, struct set_num_cfg, value,
		      .positional = true, .metavar = "N",
		      .help = "entries, a power of two from 256 to 16777216"),
	END_OPTIONS
};
const struct set_num_cfg set_sock_flow_entries_defaults;

const struct rfs_opt set_flow_cnt_opts[] = {
	DEFINE_OPTION("iface", OPT_IFNAME, struct set_iface_num_cfg, iface,
		      .positional = true, .metavar = "IFACE",
		      .help = "an attached interface"),
	DEFINE_OPTION("value", OPT_UINT, struct set_iface_num_cfg, value,
		      .positional = true, .metavar = "N",
		      .help = "entries per RX queue, a power of two from 64 to 1048576"),
	END_OPTIONS
};
const struct set_iface_num_cfg set_flow_cnt_defaults;

const struct rfs_opt set_cpus_opts[] = {
	DEFINE_OPTION("iface", OPT_IFNAME, struct set_cpus_cfg, iface,
		      .positional = true, .metavar = "IFACE",
		      .help = "an attached interface"),
	DEFINE_OPTION("cpus", OPT_CPULIST, struct set_cpus_cfg, cpus,
		      .positional = true, .metavar = "LIST",
		      .help = "online CPUs; flows leave a removed CPU in order"),
	END_OPTIONS
};
const struct set_cpus_cfg set_cpus_defaults;

static long long jnum(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ?
	       json_object_get_int64(v) : -1;
}

/* A CPU taken out of the set whose flows have not all drained yet: it
 * stays usable, and is released once they have (rfsctl(8), status). */
static void print_leaving(struct json_object *c)
{
	struct json_object *held, *why;
	long long flows = jnum(c, "flows"), shown = 0;
	size_t i;

	printf("  %-18s cpu %lld, removed %lld.%lld s ago, waits for %lld flow%s to drain (no new flows; released once none is in flight)\n",
	       "leaving", jnum(c, "cpu"), jnum(c, "waited_ms") / 1000,
	       jnum(c, "waited_ms") % 1000 / 100, flows,
	       flows == 1 ? "" : "s");
	if (!json_object_object_get_ex(c, "held", &held) ||
	    !json_object_is_type(held, json_type_array))
		return;
	for (i = 0; i < json_object_array_length(held); i++) {
		struct json_object *h = json_object_array_get_idx(held, i);

		if (json_object_object_get_ex(h, "why", &why))
			printf("    %s\n", json_object_get_string(why));
		shown++;
	}
	if (flows > shown)
		printf("    and %lld more\n", flows - shown);
}

void rfs_print_iface_plain(struct json_object *ifc)
{
	static const char *const order[] = {
		"ifindex", "mode", "prog_id", "rx_queues", "flow_cnt",
		"cpus", "active_cpus", NULL
	};
	static const char *const skip[] = { "name", "noguard", "kernel_rps",
					    "leaving", "held_flows", NULL };
	struct json_object *name, *ng, *rps, *lv;
	size_t i;

	printf("interface %s\n",
	       json_object_object_get_ex(ifc, "name", &name) ?
	       json_object_get_string(name) : "?");
	rfs_print_kv(stdout, ifc, "  ", order, skip);
	/* said so that nobody takes a noguard figure for xdp-rfs's own */
	if (json_object_object_get_ex(ifc, "noguard", &ng))
		printf("  %-18s %s\n", "noguard",
		       json_object_get_boolean(ng) ?
		       "YES: in-order rule OFF, flows may be reordered (rfsd --unsafe-noguard)" :
		       "no");
	/* only when on: it undoes the steering (rfsd's log names the file) */
	if (json_object_object_get_ex(ifc, "kernel_rps", &rps) &&
	    json_object_get_boolean(rps))
		printf("  %-18s %s\n", "kernel_rps",
		       "ON: kernel RPS moves the frames xdp-rfs steers to other CPUs; write 0 to rps_cpus");
	if (!json_object_object_get_ex(ifc, "leaving", &lv) ||
	    !json_object_is_type(lv, json_type_array))
		return;
	for (i = 0; i < json_object_array_length(lv); i++)
		print_leaving(json_object_array_get_idx(lv, i));
}

/* The reply of attach and set is an interface object, or the setting. */
static int print_changed(const struct rfsctl_cfg *g,
			 struct json_object *result, const char *what)
{
	if (rfs_expect(result, json_type_object, what))
		return EXIT_FAILURE;
	if (g->json)
		p_json(result);
	else if (json_object_object_get_ex(result, "name", NULL))
		rfs_print_iface_plain(result);
	else
		rfs_print_kv(stdout, result, "", NULL, NULL);
	return EXIT_SUCCESS;
}

static int send_and_print(const struct rfsctl_cfg *g, struct json_object *req,
			  const char *what)
{
	struct json_object *reply, *result;
	int ret;

	ret = rfs_call(g, req, 0, &reply, &result);
	if (!ret)
		ret = print_changed(g, result, what);
	json_object_put(reply);
	return ret;
}

int do_attach(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct attach_cfg *c = cfg;
	struct json_object *req = rfs_req_new("attach");

	rfs_req_add_str(req, "iface", c->iface);
	/* no "cpus": rfsd takes every online CPU */
	if (c->cpus.given)
		rfs_req_add_cpus(req, "cpus", &c->cpus.cpus);
	if (c->flow_cnt)
		rfs_req_add_int(req, "flow_cnt", c->flow_cnt);
	if (c->mode)
		rfs_req_add_str(req, "mode", c->mode);
	if (c->allow_unordered)
		json_object_object_add(req, "allow_unordered",
				       json_object_new_boolean(1));
	return send_and_print(g, req, "the attach result");
}

int do_detach(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct iface_cfg *c = cfg;
	struct json_object *req = rfs_req_new("detach");
	struct json_object *reply, *result;
	int ret;

	rfs_req_add_str(req, "iface", c->iface);
	ret = rfs_call(g, req, 0, &reply, &result);
	/* plain: silent on success; JSON: rfsd's {} */
	if (!ret && g->json)
		p_json(result);
	json_object_put(reply);
	return ret;
}

static struct json_object *set_req(const char *key)
{
	struct json_object *req = rfs_req_new("set");

	rfs_req_add_str(req, "key", key);
	return req;
}

int do_set_sock_flow_entries(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct set_num_cfg *c = cfg;
	struct json_object *req = set_req("sock_flow_entries");

	rfs_req_add_int(req, "value", c->value);
	return send_and_print(g, req, "the set result");
}

int do_set_flow_cnt(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct set_iface_num_cfg *c = cfg;
	struct json_object *req = set_req("flow_cnt");

	rfs_req_add_str(req, "iface", c->iface);
	rfs_req_add_int(req, "value", c->value);
	return send_and_print(g, req, "the set result");
}

int do_set_cpus(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct set_cpus_cfg *c = cfg;
	struct json_object *req = set_req("cpus");

	rfs_req_add_str(req, "iface", c->iface);
	rfs_req_add_cpus(req, "cpus", &c->cpus.cpus);
	return send_and_print(g, req, "the set result");
}
