// SPDX-License-Identifier: GPL-2.0
/*
 * The config applied to the datapath: configured interfaces are attached
 * at start, on SIGHUP, and when they appear (an interface missing at start,
 * or deleted and created again, is attached as soon as netlink reports
 * it).  Adopted interfaces are kept as they are, and nothing is detached
 * on reload: rfsctl detach does that, and then the interface stays
 * detached until rfsctl attach (or a restart).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "ifaces.h"
#include "log.h"
#include "netns.h"

static struct rfsd_ifstate *ifstate(struct rfsd_ifaces *ifs, const char *name,
				    bool create)
{
	struct rfsd_ifstate *s;
	size_t i;

	for (i = 0; i < ifs->n; i++)
		if (!strcmp(ifs->st[i].name, name))
			return &ifs->st[i];
	if (!create)
		return NULL;
	s = realloc(ifs->st, (ifs->n + 1) * sizeof(*s));
	if (!s)
		return NULL;
	ifs->st = s;
	s = &s[ifs->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

void rfsd_ifaces_free(struct rfsd_ifaces *ifs)
{
	free(ifs->st);
	ifs->st = NULL;
	ifs->n = 0;
}

static int attach_cfg(struct rfsd_ifaces *ifs, const struct rfsd_iface_cfg *ic,
		      const char *why)
{
	struct rfs_if_opts o = {
		.cpus = ic->cpus, .flow_cnt = ic->flow_cnt, .mode = ic->mode,
		.allow_unordered = ifs->cfg->allow_unordered,
	};
	struct rfsd_ifstate *st = ifstate(ifs, ic->name, true);
	char err[RFS_ERR_LEN] = "", desc[128];
	struct rfs_if *ifc;
	int r;

	r = rfs_if_attach(ifs->dp, ic->name, &o, &ifc, err);
	if (st)
		st->last_err = r;
	if (r) {
		bool missing = !if_nametoindex(ic->name);

		if (st)
			st->last_err = missing ? -ENODEV : r;
		pr_warn("%s%s\n", err[0] ? err : strerror(-r),
			missing ? "; attaching it when it appears" : "");
		return r;
	}
	rfs_if_describe(ifc, desc, sizeof(desc));
	pr_debug("attached %s: %s\n", desc, why);
	return 0;
}

static bool cfg_matches(const struct rfsd_iface_cfg *ic, const struct rfs_if *ifc)
{
	struct rfs_cpuset cpus, active;
	__u32 flow_cnt = ic->flow_cnt ? ic->flow_cnt : RFS_FLOW_CNT_DEFAULT;

	rfs_if_cpus(ifc, &cpus, &active);
	if (rfs_cpuset_count(&ic->cpus) && !rfs_cpuset_equal(&ic->cpus, &cpus))
		return false;
	if (ic->mode != RFS_XDP_AUTO && ic->mode != rfs_if_mode(ifc))
		return false;
	return flow_cnt == rfs_if_flow_cnt(ifc);
}

void rfsd_ifaces_start(struct rfsd_ifaces *ifs)
{
	size_t i;

	for (i = 0; i < ifs->cfg->n_ifs; i++) {
		const struct rfsd_iface_cfg *ic = &ifs->cfg->ifs[i];
		struct rfs_if *ifc = rfs_dp_if_find(ifs->dp, ic->name);
		char desc[128];

		if (!ifc) {
			attach_cfg(ifs, ic, "configured");
			continue;
		}
		rfs_if_describe(ifc, desc, sizeof(desc));
		pr_info("kept adopted %s%s\n", desc,
			cfg_matches(ic, ifc) ? "" :
			" as it is; the config differs (rfsctl set, or detach and restart, to apply it)");
	}
}

/* The set "all online CPUs" as rfs_if_set_cpus() takes it. */
static int cfg_cpus(const struct rfsd_iface_cfg *ic, struct rfs_cpuset *set)
{
	if (rfs_cpuset_count(&ic->cpus)) {
		*set = ic->cpus;
		return 0;
	}
	return rfs_cpuset_online(set);
}

static void apply_changes(struct rfsd_ifaces *ifs, struct rfs_if *ifc,
			  const struct rfsd_iface_cfg *was,
			  const struct rfsd_iface_cfg *now)
{
	char err[RFS_ERR_LEN] = "", list[128];
	struct rfs_cpuset set;
	__u32 n;
	int r;

	if (!rfs_cpuset_equal(&was->cpus, &now->cpus)) {
		rfs_cpulist_format(&now->cpus, list, sizeof(list));
		r = cfg_cpus(now, &set);
		if (!r)
			r = rfs_if_set_cpus(ifs->dp, ifc, &set, err);
		if (r)
			pr_warn("reload: %s\n", err[0] ? err : strerror(-r));
		else
			pr_info("reload: %s: cpus now %s\n", now->name,
				list[0] ? list : "all online");
	}
	if (was->flow_cnt != now->flow_cnt) {
		n = now->flow_cnt ? now->flow_cnt : RFS_FLOW_CNT_DEFAULT;
		err[0] = '\0';
		r = rfs_if_set_flow_cnt(ifs->dp, ifc, n, err);
		if (r)
			pr_warn("reload: %s\n", err[0] ? err : strerror(-r));
		else
			pr_info("reload: %s: flow_cnt now %u\n", now->name, n);
	}
	if (was->mode != now->mode)
		pr_warn("reload: %s: a new mode takes a detach and attach; still %s\n",
			now->name, rfs_xdp_mode_name(rfs_if_mode(ifc)));
}

static bool str_changed(const char *a, const char *b)
{
	return (a || b) && (!a || !b || strcmp(a, b));
}

void rfsd_ifaces_reload(struct rfsd_ifaces *ifs, const struct rfsd_config *old)
{
	const struct rfsd_config *cfg = ifs->cfg;
	char err[RFS_ERR_LEN] = "";
	size_t i;
	int r;

	if (str_changed(old->socket, cfg->socket))
		pr_warn("reload: a new socket takes a restart\n");
	if (str_changed(old->pin_dir, cfg->pin_dir))
		pr_warn("reload: a new pin_dir takes a restart\n");
	if (str_changed(old->cgroup, cfg->cgroup))
		pr_warn("reload: a new cgroup takes a restart\n");
	if (old->sock_flow_entries != cfg->sock_flow_entries &&
	    cfg->sock_flow_entries) {
		r = rfs_dp_set_sock_flow_entries(ifs->dp, cfg->sock_flow_entries, err);
		if (r)
			pr_warn("reload: %s\n", err[0] ? err : strerror(-r));
		else
			pr_info("reload: sock_flow_entries now %u\n",
				cfg->sock_flow_entries);
	}

	for (i = 0; i < cfg->n_ifs; i++) {
		const struct rfsd_iface_cfg *ic = &cfg->ifs[i];
		const struct rfsd_iface_cfg *was = rfsd_config_iface(old, ic->name);
		struct rfs_if *ifc = rfs_dp_if_find(ifs->dp, ic->name);
		struct rfsd_ifstate *st = ifstate(ifs, ic->name, false);

		if (ifc && was) {
			apply_changes(ifs, ifc, was, ic);
		} else if (ifc) {
			pr_info("reload: %s newly configured, already attached; kept as it is\n",
				ic->name);
		} else if (!was) {
			if (st)
				st->user_detached = false;
			attach_cfg(ifs, ic, "newly configured");
		} else if (st && st->user_detached) {
			pr_info("reload: %s was detached by rfsctl; left detached\n",
				ic->name);
		} else {
			attach_cfg(ifs, ic, "configured");
		}
	}
	for (i = 0; i < old->n_ifs; i++) {
		const char *name = old->ifs[i].name;

		if (!rfsd_config_iface(cfg, name) && rfs_dp_if_find(ifs->dp, name))
			pr_info("reload: %s no longer configured; left attached (rfsctl detach %s to remove it)\n",
				name, name);
	}
}

void rfsd_ifaces_link_new(struct rfsd_ifaces *ifs, int ifindex,
			  const char *name)
{
	const struct rfsd_iface_cfg *ic;
	struct rfsd_ifstate *st;
	struct rfs_if *ifc;

	ifc = rfs_dp_if_find_index(ifs->dp, ifindex);
	if (ifc) {
		if (strcmp(rfs_if_name(ifc), name))
			rfs_if_rename(ifs->dp, ifc, name);
		return;
	}
	ic = rfsd_config_iface(ifs->cfg, name);
	if (!ic || rfs_dp_if_find(ifs->dp, name))
		return;
	st = ifstate(ifs, name, false);
	/* only one that was missing: link flaps must not retry an
	 * attach that failed for good */
	if (!st || st->user_detached || st->last_err != -ENODEV)
		return;
	attach_cfg(ifs, ic, "configured; it appeared");
}

static void forget(struct rfsd_ifaces *ifs, struct rfs_if *ifc)
{
	char name[IF_NAMESIZE];
	struct rfsd_ifstate *st;
	int ifindex = rfs_if_ifindex(ifc);

	snprintf(name, sizeof(name), "%s", rfs_if_name(ifc));
	rfs_if_forget(ifs->dp, ifc);
	pr_info("interface %s (ifindex %d) disappeared; dropped\n", name, ifindex);
	if (rfsd_config_iface(ifs->cfg, name)) {
		st = ifstate(ifs, name, true);
		if (st && !st->user_detached)
			st->last_err = -ENODEV;
	}
}

void rfsd_ifaces_link_gone(struct rfsd_ifaces *ifs, int ifindex)
{
	struct rfs_if *ifc = rfs_dp_if_find_index(ifs->dp, ifindex);
	char buf[IF_NAMESIZE];

	if (!ifc)
		return;
	/* still here (the event was about something else): keep it */
	if (if_indextoname(ifindex, buf))
		return;
	forget(ifs, ifc);
}

void rfsd_ifaces_link_xdp(struct rfsd_ifaces *ifs, int ifindex, __u32 prog_id)
{
	struct rfs_if *ifc = rfs_dp_if_find_index(ifs->dp, ifindex);

	if (!ifc || prog_id == rfs_if_prog_id(ifc))
		return;
	/* under a libxdp dispatcher the link runs the dispatcher, and ours
	 * is one of its programs: ask libxdp before calling it lost */
	if (prog_id && rfs_if_prog_on(ifindex, rfs_if_prog_id(ifc)))
		return;
	rfsd_ifaces_link_lost(ifs, ifindex, prog_id);
}

void rfsd_ifaces_link_lost(struct rfsd_ifaces *ifs, int ifindex, __u32 prog_id)
{
	struct rfs_if *ifc = rfs_dp_if_find_index(ifs->dp, ifindex);
	char name[IF_NAMESIZE];
	struct rfsd_ifstate *st;
	__u32 ours;

	if (!ifc)
		return;
	snprintf(name, sizeof(name), "%s", rfs_if_name(ifc));
	ours = rfs_if_prog_id(ifc);
	if (prog_id)
		pr_warn("%s: our XDP program (id %u) was replaced by program %u by another tool; %s is no longer steered and its pins are dropped (rfsctl attach %s once that program is gone)\n",
			name, ours, prog_id, name, name);
	else
		pr_warn("%s: our XDP program (id %u) was detached by another tool; %s is no longer steered and its pins are dropped\n",
			name, ours, name);
	rfs_if_forget(ifs->dp, ifc);
	st = ifstate(ifs, name, true);
	if (st) {
		st->lost = true;
		st->lost_to = prog_id;
		st->user_detached = true;	/* not re-attached on reload */
	}
}

const struct rfsd_ifstate *rfsd_ifaces_lost(struct rfsd_ifaces *ifs,
					    const char *name)
{
	const struct rfsd_ifstate *st = ifstate(ifs, name, false);

	return st && st->lost ? st : NULL;
}

struct json_object *rfsd_ifaces_lost_json(struct rfsd_ifaces *ifs)
{
	struct json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < ifs->n; i++) {
		const struct rfsd_ifstate *st = &ifs->st[i];
		struct json_object *o;

		if (!st->lost)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "name",
				       json_object_new_string(st->name));
		json_object_object_add(o, "replaced_by",
				       st->lost_to ?
				       json_object_new_int64(st->lost_to) : NULL);
		json_object_array_add(a, o);
	}
	return a;
}

void rfsd_ifaces_link_moved(struct rfsd_ifaces *ifs, int ifindex, int nsid,
			    int new_ifindex)
{
	struct rfs_if *ifc = rfs_dp_if_find_index(ifs->dp, ifindex);
	int e;

	if (!ifc)
		return;
	/* The event comes as the move starts: give it a moment to land. */
	for (int i = 0; i < 5; i++) {
		e = rfsd_netns_xdp_detach(nsid, new_ifindex,
					  rfs_if_prog_fd(ifc),
					  rfs_if_mode(ifc) == RFS_XDP_GENERIC);
		if (!e)
			break;
		usleep(20000);
	}
	if (e)
		pr_warn("interface %s moved to another network namespace (netns id %d, ifindex %d); can't detach XDP there: %s\n",
			rfs_if_name(ifc), nsid, new_ifindex, strerror(-e));
	else
		pr_info("interface %s moved to another network namespace (netns id %d); detached XDP there\n",
			rfs_if_name(ifc), nsid);
	forget(ifs, ifc);
}

void rfsd_ifaces_resync(struct rfsd_ifaces *ifs)
{
	char buf[IF_NAMESIZE];
	size_t i = rfs_dp_if_count(ifs->dp);

	while (i--) {
		struct rfs_if *ifc = rfs_dp_if_at(ifs->dp, i);

		if (ifc && !if_indextoname(rfs_if_ifindex(ifc), buf) &&
		    (errno == ENXIO || errno == ENODEV))
			forget(ifs, ifc);
	}
}

void rfsd_ifaces_user_attach(struct rfsd_ifaces *ifs, const char *name)
{
	struct rfsd_ifstate *st = ifstate(ifs, name, false);

	if (st) {
		st->user_detached = false;
		st->last_err = 0;
		st->lost = false;
		st->lost_to = 0;
	}
}

void rfsd_ifaces_user_detach(struct rfsd_ifaces *ifs, const char *name)
{
	struct rfsd_ifstate *st;

	if (!rfsd_config_iface(ifs->cfg, name))
		return;
	st = ifstate(ifs, name, true);
	if (st)
		st->user_detached = true;
}

size_t rfsd_ifaces_waiting(const struct rfsd_ifaces *ifs)
{
	size_t i, n = 0;

	for (i = 0; i < ifs->cfg->n_ifs; i++) {
		const char *name = ifs->cfg->ifs[i].name;
		size_t k;
		bool detached = false;

		if (rfs_dp_if_find(ifs->dp, name))
			continue;
		for (k = 0; k < ifs->n; k++)
			if (!strcmp(ifs->st[k].name, name))
				detached = ifs->st[k].user_detached;
		if (!detached)
			n++;
	}
	return n;
}
