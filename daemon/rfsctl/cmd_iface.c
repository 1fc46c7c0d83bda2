// SPDX-License-Identifier: GPL-2.0
/* Commands that change an interface or a setting: one request each */
#include "rfsctl.h"

#define XSTR(x)	#x
#define STR(x)	XSTR(x)

/* One cfg for all: each command's table names the members it takes, its
 * defaults the request. */
struct iface_cfg {
	const char *cmd;		/* the request */
	const char *key;		/* set: the setting */
	const struct rfs_opt *opts;	/* the command's table */
	const char *what;		/* its result; NULL: nothing shown */
	const char *iface;
	struct rfs_cpuset cpus;
	unsigned int value;		/* flow_cnt of attach, N of set */
	const char *mode;
	bool allow_unordered;
};

static const struct rfs_opt attach_opts[] = {
	IFACE_OPTION(struct iface_cfg, "interface to attach to"),
	DEFINE_OPTION("cpus", OPT_CPULIST, struct iface_cfg, cpus,
		      .metavar = "LIST", .key = "cpus",
		      .help = "CPUs to steer to (default: every online CPU)"),
	DEFINE_OPTION("flow-cnt", OPT_UINT, struct iface_cfg, value,
		      .metavar = "N", .key = "flow_cnt",
		      .help = "entries per RX queue, a power of two (default: "
			      STR(RFS_FLOW_CNT_DEFAULT) ")"),
	DEFINE_OPTION("mode", OPT_ENUM, struct iface_cfg, mode,
		      .metavar = "MODE", .values = rfs_xdp_mode_names,
		      .key = "mode", .help = "XDP attach mode (default: auto)"),
	DEFINE_OPTION("allow-unordered", OPT_BOOL, struct iface_cfg,
		      allow_unordered, .key = "allow_unordered",
		      .help = "attach where the kernel can't keep flows in order"),
	END_OPTIONS
};

static const struct rfs_opt detach_opts[] = {
	IFACE_OPTION(struct iface_cfg, "interface to detach from"),
	END_OPTIONS
};

static const struct rfs_opt set_sock_flow_entries_opts[] = {
	DEFINE_OPTION("value", OPT_UINT, struct iface_cfg, value,
		      .positional = true, .metavar = "N", .key = "value",
		      .help = "entries, a power of two from 256 to 16777216"),
	END_OPTIONS
};

static const struct rfs_opt set_flow_cnt_opts[] = {
	IFACE_OPTION(struct iface_cfg, "an attached interface"),
	DEFINE_OPTION("value", OPT_UINT, struct iface_cfg, value,
		      .positional = true, .metavar = "N", .key = "value",
		      .help = "entries per RX queue, a power of two from 64 to 1048576"),
	END_OPTIONS
};

static const struct rfs_opt set_cpus_opts[] = {
	IFACE_OPTION(struct iface_cfg, "an attached interface"),
	DEFINE_OPTION("cpus", OPT_CPULIST, struct iface_cfg, cpus,
		      .positional = true, .metavar = "LIST", .key = "cpus",
		      .help = "online CPUs; flows leave a removed CPU in order"),
	END_OPTIONS
};

#define SET(_key, _cmd)	{ .cmd = "set", .key = (_key),		\
	.opts = set_##_cmd##_opts, .what = "the set result" }
static const struct iface_cfg set_sock_flow_entries_defaults =
	SET("sock_flow_entries", sock_flow_entries);
static const struct iface_cfg set_flow_cnt_defaults =
	SET("flow_cnt", flow_cnt);
static const struct iface_cfg set_cpus_defaults = SET("cpus", cpus);
static const struct iface_cfg attach_defaults = { .cmd = "attach",
	.opts = attach_opts, .what = "the attach result" };
static const struct iface_cfg detach_defaults = { .cmd = "detach",
	.opts = detach_opts };

/* A CPU taken out of the set, in use until its flows drain (rfsctl(8)) */
static void print_leaving(struct json_object *c)
{
	long long flows = rfs_num(c, "flows", -1);
	long long ms = rfs_num(c, "waited_ms", -1);
	struct json_object *held = rfs_get(c, "held");
	size_t i, n = rfs_len(held);

	printf("  %-18s cpu %lld, removed %lld.%lld s ago, waits for %lld flow%s to drain (no new flows; released once none is in flight)\n",
	       "leaving", rfs_num(c, "cpu", -1), ms / 1000, ms % 1000 / 100,
	       flows, flows == 1 ? "" : "s");
	if (!json_object_is_type(held, json_type_array))
		return;
	for (i = 0; i < n; i++) {
		struct json_object *h = json_object_array_get_idx(held, i);

		if (json_object_object_get_ex(h, "why", NULL))
			printf("    %s\n", rfs_str(h, "why", NULL));
	}
	if (flows > (long long)n)
		printf("    and %lld more\n", flows - (long long)n);
}

void rfs_print_iface_plain(struct json_object *ifc)
{
	static const char *const order[] = {
		"ifindex", "mode", "prog_id", "rx_queues", "flow_cnt",
		"cpus", "active_cpus", NULL
	};
	static const char *const skip[] = { "name", "noguard", "kernel_rps",
					    "leaving", "held_flows", NULL };
	struct json_object *ng, *lv = rfs_get(ifc, "leaving");
	size_t i;

	printf("interface %s\n", rfs_str(ifc, "name", "?"));
	rfs_print_kv(ifc, "  ", order, skip);
	/* said so that nobody takes a noguard figure for xdp-rfs's own */
	if (json_object_object_get_ex(ifc, "noguard", &ng))
		printf("  %-18s %s\n", "noguard",
		       json_object_get_boolean(ng) ?
		       "YES: in-order rule OFF, flows may be reordered (rfsd --unsafe-noguard)" :
		       "no");
	/* only when on: it undoes the steering (rfsd's log names the file) */
	if (rfs_bool(ifc, "kernel_rps"))
		printf("  %-18s %s\n", "kernel_rps",
		       "ON: kernel RPS moves the frames xdp-rfs steers to other CPUs; write 0 to rps_cpus");
	for (i = 0; i < rfs_len(lv); i++)
		print_leaving(json_object_array_get_idx(lv, i));
}

/* The reply of attach and set: an interface object, or the setting. */
static void changed_plain(struct json_object *r, const void *arg)
{
	if (json_object_object_get_ex(r, "name", NULL))
		rfs_print_iface_plain(r);
	else
		rfs_print_kv(r, "", NULL, NULL);
}

static int do_change(const struct rfsctl_cfg *g, const void *cfg)
{
	const struct iface_cfg *c = cfg;
	struct json_object *req = rfs_req_new(c->cmd, c->opts, cfg);

	if (c->key)
		json_object_object_add(req, "key",
				       json_object_new_string(c->key));
	return rfs_show(g, req, 0, NULL, json_type_object, c->what,
			c->what ? changed_plain : NULL, NULL);
}

const struct rfs_cmd rfs_cmd_attach = DEFINE_COMMAND("attach", attach,
	do_change, "Attach xdp-rfs to IFACE and steer its flows.");
const struct rfs_cmd rfs_cmd_detach = DEFINE_COMMAND("detach", detach,
	do_change, "Detach xdp-rfs from IFACE.");
const struct rfs_cmd rfs_cmd_set_sock_flow_entries = DEFINE_COMMAND(
	"sock-flow-entries", set_sock_flow_entries, do_change,
	"Resize the sock flow table (shared by all interfaces) to N entries.");
const struct rfs_cmd rfs_cmd_set_flow_cnt = DEFINE_COMMAND("flow-cnt",
	set_flow_cnt, do_change,
	"Resize the flow table of IFACE to N entries per RX queue.");
const struct rfs_cmd rfs_cmd_set_cpus = DEFINE_COMMAND("cpus", set_cpus,
	do_change, "Steer the flows of IFACE to the CPUs in LIST.");
