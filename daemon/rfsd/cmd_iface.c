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
	json_object_object_add(o, "name", json_object_new_string(rfs_if_name(ifc)));
	json_object_object_add(o, "ifindex", json_object_new_int(rfs_if_ifindex(ifc)));
	json_object_object_add(o, "mode",
			       json_object_new_string(rfs_xdp_mode_name(rfs_if_mode(ifc))));
	json_object_object_add(o, "rx_queues",
			       json_object_new_int64(rfs_if_rx_queues(ifc)));
	json_object_object_add(o, "flow_cnt",
			       json_object_new_int64(rfs_if_flow_cnt(ifc)));
	json_object_object_add(o, "cpus", rfsd_cpus_json(&cpus));
	json_object_object_add(o, "active_cpus", rfsd_cpus_json(&active));
	json_object_object_add(o, "noguard",
			       json_object_new_boolean(rfs_if_noguard(ifc)));
	json_object_object_add(o, "kernel_rps",
			       json_object_new_boolean(rfs_if_kernel_rps(ifc)));
	json_object_object_add(o, "prog_id",
			       json_object_new_int64(rfs_if_prog_id(ifc)));
	return o;
}
