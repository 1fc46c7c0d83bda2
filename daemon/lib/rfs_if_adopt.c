// SPDX-License-Identifier: GPL-2.0
/*
 * Adopting an interface an earlier rfsd attached: its pins are opened and
 * checked against this build's sizes (another build's are left alone),
 * it is found by the ifindex in its config (a rename while rfsd was down
 * is followed), and kept only if our program still runs there.  Whatever
 * can no longer be used is unpinned.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>

#include "log.h"
#include "rfs_bpf.h"
#include "rfs_iface.h"
#include "rfs_order.h"

int rfs_iface_adopt(const struct rfs_if_env *env, const char *name,
		    struct rfs_if **out, char *err)
{
	struct rfs_if_config cfg;
	struct rfs_if *ifc;
	__u32 zero = 0;
	int e;

	*out = NULL;
	ifc = rfs_iface_new(name);
	if (!ifc)
		return rfs_errf(err, ENOMEM, "adopt %s: out of memory", name);
	e = rfs_iface_open_pins(env, ifc);
	if (e) {
		rfs_errf(err, e, "adopt %s: pins incomplete (%s); dropped them",
			 name, strerror(-e));
		goto drop;
	}
	{
		const struct rfs_map_check maps[] = {
			{ ifc->cfg_fd, RFS_MAP_IF_CFG, sizeof(struct rfs_if_config) },
			{ ifc->dev_flows_fd, RFS_MAP_DEV_FLOWS, sizeof(struct rfs_dev_flow) },
			{ ifc->stats_fd, RFS_MAP_IF_STATS, sizeof(struct rfs_if_stats) },
			{ ifc->hits_fd, RFS_MAP_FLOW_HITS, sizeof(struct rfs_flow_hit) },
		};

		e = rfs_check_maps(maps, sizeof(maps) / sizeof(maps[0]), err);
	}
	if (e) {
		char why[RFS_ERR_LEN];

		/* another build's: leave its pins alone */
		snprintf(why, sizeof(why), "%s", err);
		rfs_errf(err, e, "adopt %s: %s", name, why);
		rfs_iface_free(ifc);
		return e;
	}
	e = rfs_if_read_config(ifc->cfg_fd, &cfg);
	if (e) {
		e = rfs_errf(err, e, "adopt %s: can't read config: %s",
			     name, strerror(-e));
		goto drop;
	}
	ifc->prog_id = rfs_obj_id(ifc->prog_fd);
	/* By ifindex: renamed while rfsd was down, it is still ours. */
	ifc->ifindex = cfg.ifindex ? (int)cfg.ifindex : (int)if_nametoindex(name);
	if (cfg.ifindex) {
		char now[IF_NAMESIZE];

		if (!if_indextoname(cfg.ifindex, now))
			ifc->ifindex = 0;
		else if (strcmp(now, name) &&
			 rfs_if_prog_on(cfg.ifindex, ifc->prog_id) &&
			 !rfs_iface_rename(env, ifc, now))
			pr_info("adopt %s: renamed %s while rfsd was down; pins moved\n",
				name, now);
	}
	if (!ifc->ifindex) {
		e = rfs_errf(err, ENODEV,
			     "adopt %s: interface disappeared while rfsd was down; dropped it",
			     name);
		goto drop;
	}
	if (!rfs_iface_prog_attached(ifc->ifindex, ifc->prog_id, NULL, NULL, 0,
				     &ifc->mode)) {
		e = rfs_errf(err, ENOENT,
			     "adopt %s: our XDP program is no longer attached; dropped it",
			     name);
		goto drop;
	}
	{
		struct rfs_dev_flow hdr;

		if (bpf_map_lookup_elem(ifc->dev_flows_fd, &zero, &hdr) ||
		    !rfs_dev_table_ok(&hdr)) {
			e = rfs_errf(err, EINVAL,
				     "adopt %s: flow table has no header (made by another version?); dropped it",
				     name);
			goto drop;
		}
		ifc->flow_cnt = hdr.last + 1;
		ifc->rx_queues = hdr.rx_cpu;
	}
	ifc->local_path = cfg.local_path;
	ifc->local_handover = cfg.local_handover;
	ifc->local_drain_jiffies = cfg.local_drain_jiffies;
	ifc->noguard = cfg.noguard;
	memcpy(ifc->configured.bits, cfg.configured, sizeof(cfg.configured));
	memcpy(ifc->allowed.bits, cfg.allowed, sizeof(cfg.allowed));
	memcpy(ifc->usable.bits, cfg.usable, sizeof(cfg.usable));
	{
		char desc[160];

		rfs_if_describe(ifc, desc, sizeof(desc));
		rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
			      "adopted, %s: attached by an earlier rfsd", desc);
	}
	*out = ifc;
	return 0;
drop:
	rfs_iface_unpin(env, name);
	rfs_iface_free(ifc);
	return e;
}
