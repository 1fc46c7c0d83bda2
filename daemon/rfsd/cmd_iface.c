// SPDX-License-Identifier: GPL-2.0
/*
 * What the command handlers share about an attached interface: finding
 * the one a request names (or the reply that says why not), and the JSON
 * object status, attach and set answer with.
 */
#include <errno.h>
#include <net/if.h>

#include "commands.h"

struct rfs_if *rfsd_find_if(struct rfsd_cmd_ctx *x, const char *what,
			    const char *name, struct json_object **reply)
{
	struct rfs_if *ifc = rfs_dp_if_find(x->dp, name);

	if (ifc)
		return ifc;
	if (!if_nametoindex(name))
		*reply = rfsd_reply_err(ENODEV, "%s %s: no such interface", what,
					name);
	else
		*reply = rfsd_reply_err(ENOENT, "%s %s: not attached", what, name);
	return NULL;
}

struct json_object *rfsd_if_json(const struct rfs_if *ifc)
{
	struct json_object *o = json_object_new_object();
	struct rfs_cpuset cpus, active;

	rfs_if_cpus(ifc, &cpus, &active);
	rfsd_add(o, "name", rfsd_jstr(rfs_if_name(ifc)));
	rfsd_add(o, "ifindex", rfsd_jint(rfs_if_ifindex(ifc)));
	rfsd_add(o, "mode", rfsd_jstr(rfs_xdp_mode_name(rfs_if_mode(ifc))));
	rfsd_add(o, "rx_queues", rfsd_jint(rfs_if_rx_queues(ifc)));
	rfsd_add(o, "flow_cnt", rfsd_jint(rfs_if_flow_cnt(ifc)));
	rfsd_add(o, "cpus", rfsd_cpus_json(&cpus));
	rfsd_add(o, "active_cpus", rfsd_cpus_json(&active));
	rfsd_add(o, "noguard", rfsd_jbool(rfs_if_noguard(ifc)));
	rfsd_add(o, "kernel_rps", rfsd_jbool(rfs_if_kernel_rps(ifc)));
	rfsd_add(o, "prog_id", rfsd_jint(rfs_if_prog_id(ifc)));
	return o;
}
