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
		/* the config was refused without --unsafe-noguard */
		.noguard = ic->noguard,
		.allow_unordered = ifs->cfg->allow_unordered,
	};
	struct rfsd_ifstate *st = ifstate(ifs, ic->name, true);
	char err[RFS_ERR_LEN] = "", desc[160];
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
	rfs_log_iface(RFS_LOG_INFO, ic->name, rfs_if_ifindex(ifc),
		      "attached, %s: %s", desc, why);
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
	if (ic->noguard != rfs_if_noguard(ifc))
		return false;
	return flow_cnt == rfs_if_flow_cnt(ifc);
}

/*
 * The in-order rule is off exactly where the config says noguard = yes
 * (which rfsd only loads under --unsafe-noguard): an adopted interface an
 * earlier rfsd left in noguard gets its rule back unless asked for again.
 */
static void noguard_adopted(struct rfsd_ifaces *ifs)
{
	char err[RFS_ERR_LEN] = "";
	size_t i;

	for (i = 0; i < rfs_dp_if_count(ifs->dp); i++) {
		struct rfs_if *ifc = rfs_dp_if_at(ifs->dp, i);
		const struct rfsd_iface_cfg *ic;
		bool want;

		if (!ifc || !rfs_if_noguard(ifc))
			continue;
		ic = rfsd_config_iface(ifs->cfg, rfs_if_name(ifc));
		want = ic && ic->noguard;
		if (want)
			continue;
		if (rfs_if_set_noguard(ifs->dp, ifc, false, err))
			pr_warn("%s\n", err);
		else
			pr_warn("adopted %s with noguard on; the config does not ask for it: in-order rule on again\n",
				rfs_if_name(ifc));
	}
}

void rfsd_ifaces_start(struct rfsd_ifaces *ifs)
{
	size_t i;

	noguard_adopted(ifs);
	for (i = 0; i < ifs->cfg->n_ifs; i++) {
		const struct rfsd_iface_cfg *ic = &ifs->cfg->ifs[i];
		struct rfs_if *ifc = rfs_dp_if_find(ifs->dp, ic->name);
		if (!ifc) {
			attach_cfg(ifs, ic, "in the config");
			continue;
		}
		/* adopting it was its state change (logged); the config is
		 * not applied over it */
		if (!cfg_matches(ic, ifc))
			rfs_log_iface(RFS_LOG_INFO, ic->name, rfs_if_ifindex(ifc),
				      "kept as adopted; the config differs (rfsctl set, or detach and restart, to apply it)");
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
	char err[RFS_ERR_LEN] = "", list[128], old[128];
	struct rfs_cpuset set, conf, active;
	__u32 n, old_n = rfs_if_flow_cnt(ifc);
	int r;

	if (!rfs_cpuset_equal(&was->cpus, &now->cpus)) {
		rfs_if_cpus(ifc, &conf, &active);
		rfs_cpulist_format(&conf, old, sizeof(old));
		r = cfg_cpus(now, &set);
		if (!r)
			r = rfs_if_set_cpus(ifs->dp, ifc, &set, err);
		rfs_if_cpus(ifc, &conf, &active);
		rfs_cpulist_format(&conf, list, sizeof(list));
		if (r)
			pr_warn("reload: %s\n", err[0] ? err : strerror(-r));
		else
			rfs_log_iface(RFS_LOG_INFO, now->name, rfs_if_ifindex(ifc),
				      "cpus %s -> %s: config reload",
				      old[0] ? old : "all", list[0] ? list : "all");
	}
	if (was->flow_cnt != now->flow_cnt) {
		n = now->flow_cnt ? now->flow_cnt : RFS_FLOW_CNT_DEFAULT;
		err[0] = '\0';
		r = rfs_if_set_flow_cnt(ifs->dp, ifc, n, err);
		if (r)
			pr_warn("reload: %s\n", err[0] ? err : strerror(-r));
		else if (n != old_n)
			rfs_log_iface(RFS_LOG_INFO, now->name, rfs_if_ifindex(ifc),
				      "flow_cnt %u -> %u: config reload", old_n, n);
	}
	if (was->noguard != now->noguard) {
		err[0] = '\0';
		r = rfs_if_set_noguard(ifs->dp, ifc, now->noguard, err);
		if (r)
			pr_warn("reload: %s\n", err[0] ? err : strerror(-r));
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
	__u32 was_n = rfs_dp_sock_flow_entries(ifs->dp);
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
			pr_info("sock flow table: %u -> %u entries: config reload\n",
				was_n, rfs_dp_sock_flow_entries(ifs->dp));
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
			attach_cfg(ifs, ic, "newly in the config (reload)");
		} else if (st && st->user_detached) {
			pr_info("reload: %s was detached by rfsctl; left detached\n",
				ic->name);
		} else {
			attach_cfg(ifs, ic, "in the config (reload)");
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
	attach_cfg(ifs, ic, "in the config, and the interface appeared");
}

/* Drop ifc; why (NULL: the caller said it) goes into the log line. */
static void forget(struct rfsd_ifaces *ifs, struct rfs_if *ifc,
		   const char *why)
{
	char name[IF_NAMESIZE];
	struct rfsd_ifstate *st;
	int ifindex = rfs_if_ifindex(ifc);

	snprintf(name, sizeof(name), "%s", rfs_if_name(ifc));
	rfs_if_forget(ifs->dp, ifc);
	if (why)
		rfs_log_iface(RFS_LOG_INFO, name, ifindex, "%s", why);
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
	forget(ifs, ifc, "gone: the interface was deleted; its pins dropped");
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
		rfs_log_iface(RFS_LOG_WARN, name, ifindex,
			      "lost: our XDP program (id %u) was replaced by program %u by another tool; no longer steered, pins dropped (rfsctl attach %s once that program is gone)",
			      ours, prog_id, name);
	else
		rfs_log_iface(RFS_LOG_WARN, name, ifindex,
			      "lost: our XDP program (id %u) was detached by another tool; no longer steered, pins dropped",
			      ours);
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
		rfs_log_iface(RFS_LOG_WARN, rfs_if_name(ifc), ifindex,
			      "moved to another network namespace (netns id %d, ifindex %d there): can't detach XDP there: %s; pins dropped",
			      nsid, new_ifindex, strerror(-e));
	else
		rfs_log_iface(RFS_LOG_INFO, rfs_if_name(ifc), ifindex,
			      "moved to another network namespace (netns id %d): detached XDP there, pins dropped",
			      nsid);
	forget(ifs, ifc, NULL);
}

void rfsd_ifaces_resync(struct rfsd_ifaces *ifs)
{
	char buf[IF_NAMESIZE];
	size_t i = rfs_dp_if_count(ifs->dp);

	while (i--) {
		struct rfs_if *ifc = rfs_dp_if_at(ifs->dp, i);

		if (ifc && !if_indextoname(rfs_if_ifindex(ifc), buf) &&
		    (errno == ENXIO || errno == ENODEV))
			forget(ifs, ifc, "gone: the interface was deleted (found at a resync after lost link events); its pins dropped");
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
