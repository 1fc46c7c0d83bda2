// SPDX-License-Identifier: GPL-2.0
/*
 * The config applied to the datapath: this netns's links are matched
 * against its sections at start and on SIGHUP, and one that appears, is
 * renamed or gets a default route when netlink says so; one named and
 * missing attaches when it appears.  An attach that failed is not retried
 * on link events (they come for any change).  Adopted interfaces are kept
 * as they are, and nothing is detached on reload: rfsctl detach does that,
 * and the interface stays detached until rfsctl attach (or a restart).
 */
#include <stdlib.h>

#include "commands.h"
#include "log.h"
#include "rfsd.h"

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

static int attach_cfg(struct rfsd_ifaces *ifs, const struct rfsd_iface_cfg *ic,
		      const char *name, const char *why)
{
	struct rfs_if_opts o = {
		.flow_cnt = ic->flow_cnt, .mode = ic->mode,
		/* the config was refused without --unsafe-noguard */
		.noguard = ic->noguard,
		.allow_unordered = ifs->cfg->allow_unordered,
	};
	struct rfsd_ifstate *st = ifstate(ifs, name, true);
	char err[RFS_ERR_LEN] = "", desc[160], label[300];
	struct rfs_if *ifc;
	bool missing;
	int r;

	if (st)
		st->user_detached = false;
	r = rfsd_iface_cpus(ic, &o.cpus, desc, sizeof(desc));
	if (r)
		snprintf(err, sizeof(err), "can't attach '%s': %s", name, desc);
	else
		r = rfs_if_attach(ifs->dp, name, &o, &ifc, err);
	if (r) {
		missing = !if_nametoindex(name);
		if (st)
			st->last_err = missing ? -ENODEV : r;
		pr_warn("%s%s\n", err[0] ? err : strerror(-r),
			missing ? "; attaching it when it appears" : "");
		return r;
	}
	if (st)
		st->last_err = 0;
	rfs_if_describe(ifc, desc, sizeof(desc));
	rfs_log_iface(RFS_LOG_INFO, name, ifc->ifindex,
		      "attached, %s: %s (%s)", desc, why,
		      rfsd_iface_cfg_label(ic, label, sizeof(label)));
	return 0;
}

static bool cfg_matches(const struct rfsd_iface_cfg *ic, const struct rfs_if *ifc)
{
	__u32 flow_cnt = ic->flow_cnt ? ic->flow_cnt : RFS_FLOW_CNT_DEFAULT;
	struct rfs_cpuset want;
	char err[128];

	if (rfsd_iface_cpus(ic, &want, err, sizeof(err)) ||
	    (rfs_cpuset_count(&want) &&
	     !rfs_cpuset_equal(&want, &ifc->configured)))
		return false;
	if (ic->mode != RFS_XDP_AUTO && ic->mode != ifc->mode)
		return false;
	return ic->noguard == ifc->noguard && flow_cnt == ifc->flow_cnt;
}

static void apply_changes(struct rfsd_ifaces *ifs, struct rfs_if *ifc,
			  const struct rfsd_iface_cfg *was,
			  const struct rfsd_iface_cfg *now)
{
	__u32 n = now->flow_cnt ? now->flow_cnt : RFS_FLOW_CNT_DEFAULT;
	char err[RFS_ERR_LEN] = "";
	struct rfs_cpuset set;
	int r;

	/* every failure here says why in err */
	r = rfsd_iface_cpus(now, &set, err, sizeof(err));
	if (!r && !rfs_cpuset_equal(&set, &ifc->configured))
		r = rfs_if_set_cpus(ifs->dp, ifc, &set, "config reload", err);
	if (r)
		pr_warn("reload: %s: %s\n", ifc->name, err);
	if (rfs_if_set_flow_cnt(ifs->dp, ifc, n, "config reload", err))
		pr_warn("reload: %s\n", err);
	if (was->noguard != now->noguard &&
	    rfs_if_set_noguard(ifs->dp, ifc, now->noguard, err))
		pr_warn("reload: %s\n", err);
	if (was->mode != now->mode)
		pr_warn("reload: %s: a new mode takes a detach and attach; still %s\n",
			ifc->name, rfs_xdp_mode_name(ifc->mode));
}

/* An adopted interface keeps what it has, but for noguard: the in-order
 * rule is off exactly where the config says so. */
static void adopted(struct rfsd_ifaces *ifs, struct rfs_if *ifc,
		    const struct rfsd_iface_cfg *ic)
{
	char err[RFS_ERR_LEN] = "";

	if (ifc->noguard && !(ic && ic->noguard)) {
		if (rfs_if_set_noguard(ifs->dp, ifc, false, err))
			pr_warn("%s\n", err);
		else
			pr_warn("adopted %s with noguard on; the config does not ask for it: in-order rule on again\n",
				ifc->name);
	}
	/* adopting it was its state change (logged) */
	if (ic && !cfg_matches(ic, ifc))
		rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
			      "kept as adopted; the config differs (rfsctl set, or detach and restart, to apply it)");
}

/* The links as netlink gives them, or none (logged). */
static size_t links_of(const struct rfsd_config *a,
		       const struct rfsd_config *b, struct rfsd_link **l)
{
	size_t n = 0;
	int e = rfsd_netns_links(l, &n, rfsd_config_wants_routes(a) ||
				   (b && rfsd_config_wants_routes(b)));

	if (e)
		pr_warn("can't list the interfaces: %s; only named ones attach\n",
			strerror(-e));
	return n;
}

/* The sections naming an interface not listed (listed: the links were):
 * missing, they wait for it. */
static void attach_named(struct rfsd_ifaces *ifs, const struct rfsd_config *old,
			 bool listed)
{
	size_t i;

	for (i = 0; i < ifs->cfg->n_ifs; i++) {
		const struct rfsd_iface_cfg *ic = &ifs->cfg->ifs[i];
		struct rfsd_ifstate *st = ifstate(ifs, ic->name, false);

		if (ic->match || rfs_dp_if_find(ifs->dp, ic->name) ||
		    (listed && if_nametoindex(ic->name)))
			continue;
		if (old && st && st->user_detached && rfsd_config_iface(old, ic->name))
			continue;
		attach_cfg(ifs, ic, ic->name, old ? "in the config (reload)" :
			   "in the config");
	}
}

void rfsd_ifaces_start(struct rfsd_ifaces *ifs)
{
	const struct rfsd_iface_cfg *ic;
	struct rfsd_link *l = NULL;
	size_t i, n = links_of(ifs->cfg, NULL, &l);
	struct rfs_if *ifc;
	const char *why;

	for (i = 0; i < n; i++) {
		why = rfsd_config_match(ifs->cfg, &l[i], &ic);
		ifc = rfs_dp_if_find_index(ifs->dp, l[i].ifindex);
		if (ifc)
			adopted(ifs, ifc, why ? NULL : ic);
		else if (!why)
			attach_cfg(ifs, ic, l[i].name, "in the config");
		else if (ic)
			pr_info("%s: skipped: %s\n", l[i].name, why);
	}
	free(l);
	attach_named(ifs, NULL, n);
}

static bool str_changed(const char *a, const char *b)
{
	return (a || b) && (!a || !b || strcmp(a, b));
}

void rfsd_ifaces_reload(struct rfsd_ifaces *ifs, const struct rfsd_config *old)
{
	const struct rfsd_config *cfg = ifs->cfg;
	const struct rfsd_iface_cfg *now, *was;
	char err[RFS_ERR_LEN] = "";
	__u32 was_n = ifs->dp->globals.sock_flow_mask + 1;
	struct rfsd_link *l = NULL;
	size_t i, n = links_of(cfg, old, &l);
	struct rfsd_ifstate *st;
	struct rfs_if *ifc;
	const char *name;
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
				was_n, ifs->dp->globals.sock_flow_mask + 1);
	}
	for (i = 0; i < n; i++) {
		name = l[i].name;
		if (rfsd_config_match(cfg, &l[i], &now))
			now = NULL;
		if (rfsd_config_match(old, &l[i], &was))
			was = NULL;
		ifc = rfs_dp_if_find_index(ifs->dp, l[i].ifindex);
		st = ifstate(ifs, name, false);
		if (ifc && was && now)
			apply_changes(ifs, ifc, was, now);
		else if (ifc && now)
			pr_info("reload: %s newly configured, already attached; kept as it is\n",
				name);
		else if (ifc && was)
			pr_info("reload: %s no longer configured; left attached (rfsctl detach %s to remove it)\n",
				name, name);
		else if (ifc || !now)
			continue;
		else if (was && st && st->user_detached)
			pr_info("reload: %s was detached by rfsctl; left detached\n",
				name);
		else
			attach_cfg(ifs, now, name, was ? "in the config (reload)" :
				   "newly in the config (reload)");
	}
	free(l);
	attach_named(ifs, old, n);
}

/* l is not attached: attach it if the config picks it and it is new, or
 * back (deleted and made again), and rfsctl did not detach it. */
static void maybe_attach(struct rfsd_ifaces *ifs, const struct rfsd_link *l,
			 const char *how)
{
	const struct rfsd_iface_cfg *ic;
	const char *why = rfsd_config_match(ifs->cfg, l, &ic);
	struct rfsd_ifstate *st = ifstate(ifs, l->name, false);

	if (why && ic)
		pr_debug("%s: skipped: %s\n", l->name, why);
	if (why || (st && (st->user_detached || st->last_err != -ENODEV)))
		return;
	attach_cfg(ifs, ic, l->name, how);
}

/* Attach the links not attached that the config picks, as netlink lists
 * them (an event says nothing of routes): how many it listed. */
static size_t rescan(struct rfsd_ifaces *ifs, const char *how)
{
	struct rfsd_link *l = NULL;
	size_t i, n = links_of(ifs->cfg, NULL, &l);

	for (i = 0; i < n; i++)
		if (!rfs_dp_if_find_index(ifs->dp, l[i].ifindex))
			maybe_attach(ifs, &l[i], how);
	free(l);
	return n;
}

void rfsd_ifaces_link_new(struct rfsd_ifaces *ifs, const struct rfsd_link *l)
{
	struct rfs_if *ifc = rfs_dp_if_find_index(ifs->dp, l->ifindex);
	const char *how = "in the config, and the interface appeared";

	if (ifc) {
		if (strcmp(ifc->name, l->name))
			rfs_if_rename(ifs->dp, ifc, l->name);
	} else if (!rfsd_config_wants_routes(ifs->cfg) || !rescan(ifs, how)) {
		maybe_attach(ifs, l, how);
	}
}

void rfsd_ifaces_rescan(struct rfsd_ifaces *ifs)
{
	if (rfsd_config_wants_routes(ifs->cfg))
		rescan(ifs, "in the config, with a new default route");
}

/* Drop ifc, and log why (NULL: the caller did).  Its state, or NULL. */
static struct rfsd_ifstate *forget(struct rfsd_ifaces *ifs,
				   struct rfs_if *ifc, const char *why)
{
	char name[IF_NAMESIZE];
	struct rfsd_ifstate *st;
	int ifindex = ifc->ifindex;

	snprintf(name, sizeof(name), "%s", ifc->name);
	rfs_if_forget(ifs->dp, ifc);
	if (why)
		rfs_log_iface(RFS_LOG_INFO, name, ifindex, "%s", why);
	st = ifstate(ifs, name, true);
	if (st && !st->user_detached)
		st->last_err = -ENODEV;
	return st;
}

void rfsd_ifaces_link_gone(struct rfsd_ifaces *ifs, int ifindex)
{
	struct rfs_if *ifc = rfs_dp_if_find_index(ifs->dp, ifindex);
	char buf[IF_NAMESIZE];

	/* still here (the event was about something else): keep it */
	if (ifc && !if_indextoname(ifindex, buf))
		forget(ifs, ifc, "gone: the interface was deleted; its pins dropped");
}

void rfsd_ifaces_link_xdp(struct rfsd_ifaces *ifs, int ifindex, __u32 prog_id)
{
	struct rfs_if *ifc = rfs_dp_if_find_index(ifs->dp, ifindex);
	struct rfsd_ifstate *st;
	const char *name;

	if (!ifc || prog_id == ifc->prog_id)
		return;
	/* the event may predate our attach (one queued while a new link
	 * was attached on its first event), and under a libxdp dispatcher
	 * the link runs the dispatcher, ours one of its programs: ask the
	 * kernel, through libxdp, before calling it lost */
	if (rfs_if_prog_on(ifindex, ifc->prog_id))
		return;
	name = ifc->name;
	if (prog_id)
		rfs_log_iface(RFS_LOG_WARN, name, ifindex,
			      "lost: our XDP program (id %u) was replaced by program %u by another tool; no longer steered, pins dropped (rfsctl attach %s once that program is gone)",
			      ifc->prog_id, prog_id, name);
	else
		rfs_log_iface(RFS_LOG_WARN, name, ifindex,
			      "lost: our XDP program (id %u) was detached by another tool; no longer steered, pins dropped",
			      ifc->prog_id);
	st = forget(ifs, ifc, NULL);
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
	struct json_object *a = json_object_new_array(), *o;
	size_t i;

	for (i = 0; i < ifs->n; i++) {
		if (!ifs->st[i].lost)
			continue;
		o = json_object_new_object();
		rfsd_add(o, "name", rfsd_jstr(ifs->st[i].name));
		rfsd_add(o, "replaced_by", ifs->st[i].lost_to ?
			 rfsd_jint(ifs->st[i].lost_to) : NULL);
		json_object_array_add(a, o);
	}
	return a;
}

void rfsd_ifaces_link_moved(struct rfsd_ifaces *ifs, int ifindex, int nsid,
			    int new_ifindex)
{
	struct rfs_if *ifc = rfs_dp_if_find_index(ifs->dp, ifindex);
	int e = 0;

	if (!ifc)
		return;
	/* The event comes as the move starts: give it a moment to land. */
	for (int i = 0; i < 5; i++) {
		e = rfsd_netns_xdp_detach(nsid, new_ifindex,
					  ifc->prog_fd,
					  ifc->mode == RFS_XDP_GENERIC);
		if (!e || e == -ENOENT || e == -EACCES)
			break;
		usleep(20000);
	}
	/* our program stays there, unpinned: say what would reach it */
	if (e == -ENOENT || e == -EACCES)
		rfs_log_iface(RFS_LOG_WARN, ifc->name, ifindex,
			      "moved to another network namespace (netns id %d, ifindex %d there): can't detach XDP there: the namespace is not named (/run/netns, /run/docker/netns) and %s; our program stays on it there, pins dropped; %s",
			      nsid, new_ifindex,
			      e == -ENOENT ? "no process rfsd sees holds it" :
			      "rfsd may not read the processes that hold it without CAP_SYS_PTRACE",
			      e == -ENOENT ? "name it (ip netns attach NAME PID) to have it detached" :
			      "name it (ip netns attach NAME PID), or add CAP_SYS_PTRACE to rfsd's CapabilityBoundingSet= in a drop-in, and to its AmbientCapabilities= (docs/operations.md), to have it detached");
	else if (e)
		rfs_log_iface(RFS_LOG_WARN, ifc->name, ifindex,
			      "moved to another network namespace (netns id %d, ifindex %d there): can't detach XDP there: %s; pins dropped",
			      nsid, new_ifindex, strerror(-e));
	else
		rfs_log_iface(RFS_LOG_INFO, ifc->name, ifindex,
			      "moved to another network namespace (netns id %d): detached XDP there, pins dropped",
			      nsid);
	forget(ifs, ifc, NULL);
}

void rfsd_ifaces_resync(struct rfsd_ifaces *ifs)
{
	char buf[IF_NAMESIZE];
	size_t i = ifs->dp->n_ifs;

	while (i--) {
		struct rfs_if *ifc = ifs->dp->ifs[i];

		if (ifc && !if_indextoname(ifc->ifindex, buf) &&
		    (errno == ENXIO || errno == ENODEV))
			forget(ifs, ifc, "gone: the interface was deleted (found at a resync after lost link events); its pins dropped");
	}
}

void rfsd_ifaces_user(struct rfsd_ifaces *ifs, const char *name, bool detach)
{
	struct rfsd_ifstate *st = ifstate(ifs, name, detach);

	if (st && !detach) {
		st->lost = false;
		st->last_err = st->lost_to = 0;
	}
	if (st)
		st->user_detached = detach;
}

size_t rfsd_ifaces_waiting(struct rfsd_ifaces *ifs)
{
	const struct rfsd_ifstate *st;
	size_t i, n = 0;

	for (i = 0; i < ifs->cfg->n_ifs; i++) {
		const char *name = ifs->cfg->ifs[i].name;

		st = ifstate(ifs, name, false);
		n += !ifs->cfg->ifs[i].match && !rfs_dp_if_find(ifs->dp, name) &&
		     !(st && st->user_detached);
	}
	return n;
}
