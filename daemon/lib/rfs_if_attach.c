// SPDX-License-Identifier: GPL-2.0
/*
 * An interface joins the list attached, or adopted (below).  Attaching:
 * its instance of the XDP program is opened with the core maps reused and
 * a dev flow table of its own, loaded, put on the interface's XDP hook
 * (never in place of another program), given its config, then pinned.
 * Until the config is written the program passes every frame, so a
 * half-made attach steers nothing; one cut short by a crash is ours by
 * its maps, placed by the next rfsd (rfs_dp.c).
 */
#include <errno.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "log.h"
#include "rfs_dp_int.h"
#include "rfs_order.h"
#include "rfs_xdp.skel.h"

/*
 * The dev flow table has a row of entries per RX queue the device
 * allocated (dev->num_rx_queues), not per queue it has now: ethtool -L
 * can raise the real count at any time up to the allocated one, and a
 * frame from a queue the table has no row for can't be kept in order
 * (two RX CPUs would write one entry).  No frame's rx_queue_index reaches
 * past the allocated count.  sysfs lists only the real queues: it is the
 * fallback when rtnetlink can't tell (a kernel without CONFIG_RPS).
 * Past RFS_MAX_RX_QUEUES frames go up the stack unsteered.
 */
static __u32 rfs_count_rx_queues(const char *name, int ifindex)
{
	__u32 n = 0;
	int e = rfs_link_num_rx_queues(ifindex, &n);

	if (e) {
		n = rfs_sysfs_rx_queues(name, NULL, NULL);
		pr_debug("%s: can't read how many RX queues it allocated (rtnetlink): %s; sized for the %u it has now (sysfs), queues added later are not steered\n",
			 name, strerror(-e), n);
	}
	if (!n)
		n = 1;
	if (n > RFS_MAX_RX_QUEUES) {
		pr_warn("%s: %u RX queues, xdp-rfs steers the first %u: frames from the others go up the stack unsteered\n",
			name, n, RFS_MAX_RX_QUEUES);
		n = RFS_MAX_RX_QUEUES;
	}
	return n;
}

/* Open this interface's XDP object with the shared maps reused. */
static struct rfs_xdp *rfs_if_open_obj(const struct rfs_if_env *env,
				       struct rfs_if *ifc, char *err)
{
	struct rfs_xdp *skel = rfs_xdp__open();
	int e;

	if (!skel) {
		rfs_errf(err, errno, "attach %s: can't open the XDP object: %s",
			 ifc->name, strerror(errno));
		return NULL;
	}
	/* The first table comes with its header written, so the program
	 * finds its geometry from the first frame on. */
	ifc->dev_flows_fd = rfs_devtab_create(env->globals_fd, ifc->flow_cnt,
					      ifc->rx_queues);
	if (ifc->dev_flows_fd < 0) {
		rfs_errf(err, ifc->dev_flows_fd,
			 "attach %s: can't create the flow table: %s",
			 ifc->name, strerror(-ifc->dev_flows_fd));
		ifc->dev_flows_fd = -1;
		rfs_xdp__destroy(skel);
		return NULL;
	}
	e = bpf_map__reuse_fd(skel->maps.rfs_sock_outer, env->sock_outer_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_cpu_queues, env->cpu_queues_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_cpu_map, env->cpu_map_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_globals, env->globals_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_gstats, env->gstats_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_tx_seq, env->tx_seq_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_rx_track, env->rx_track_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_dev_flows, ifc->dev_flows_fd) ?:
	    /* the outer map's template is our table too: 6.1 refuses an
	     * inner map whose BTF differs from the template's */
	    bpf_map__set_inner_map_fd(skel->maps.rfs_dev_outer,
				      ifc->dev_flows_fd);
	if (e) {
		rfs_errf(err, e, "attach %s: can't share maps: %s", ifc->name,
			 strerror(-e));
		rfs_xdp__destroy(skel);
		return NULL;
	}
	return skel;
}

static int rfs_if_take_fds(struct rfs_if *ifc, struct rfs_xdp *skel, int prog_fd)
{
	ifc->prog_fd = dup(prog_fd);
	ifc->cfg_fd = dup(bpf_map__fd(skel->maps.rfs_if_cfg));
	ifc->dev_outer_fd = dup(bpf_map__fd(skel->maps.rfs_dev_outer));
	ifc->stats_fd = dup(bpf_map__fd(skel->maps.rfs_if_stats));
	ifc->hits_fd = dup(bpf_map__fd(skel->maps.rfs_flow_hits));
	ifc->prog_id = rfs_obj_id(ifc->prog_fd);
	return ifc->prog_fd < 0 || ifc->cfg_fd < 0 || ifc->dev_outer_fd < 0 ||
	       ifc->dev_flows_fd < 0 || ifc->stats_fd < 0 || ifc->hits_fd < 0 ?
	       -EMFILE : 0;
}

/* A test stops rfsd here to kill it in the window (HACKING.md). */
static void rfs_test_pause(const char *point)
{
	const char *p = getenv("RFSD_TEST_PAUSE");

	if (p && !strcmp(p, point))
		raise(SIGSTOP);
}

static int rfs_if_xdp_attach(struct rfs_if *ifc, struct rfs_xdp *skel,
			     enum rfs_xdp_mode want, char *err)
{
	struct xdp_program *xp;
	enum rfs_xdp_mode got;
	char buf[128];
	int e;

	xp = xdp_program__from_bpf_obj(skel->obj, "xdp");
	e = libxdp_get_error(xp);
	if (!xp || e)
		return rfs_errf(err, e ? e : EINVAL,
				"attach %s: can't prepare the XDP program: %s",
				ifc->name, strerror(e ? -e : EINVAL));
	if (want == RFS_XDP_AUTO) {
		e = xdp_program__attach(xp, ifc->ifindex, XDP_MODE_NATIVE, 0);
		if (e)
			e = xdp_program__attach(xp, ifc->ifindex, XDP_MODE_SKB, 0);
	} else {
		e = xdp_program__attach(xp, ifc->ifindex,
					rfs_iface_libxdp_mode(want), 0);
	}
	if (e) {
		libxdp_strerror(e, buf, sizeof(buf));
		xdp_program__close(xp);
		return rfs_errf(err, e, "attach %s: can't attach XDP in %s mode: %s%s",
				ifc->name, rfs_xdp_mode_name(want), buf,
				want == RFS_XDP_NATIVE ?
				" (try --mode generic)" : "");
	}
	got = want == RFS_XDP_GENERIC ? RFS_XDP_GENERIC : RFS_XDP_NATIVE;
	rfs_iface_prog_attached(ifc->ifindex, xdp_program__id(xp), NULL, NULL,
				0, &got);
	e = rfs_if_take_fds(ifc, skel, xdp_program__fd(xp));
	if (e)	/* live already: take it off before saying it failed */
		xdp_program__detach(xp, ifc->ifindex, rfs_iface_libxdp_mode(got),
				    0);
	xdp_program__close(xp);
	if (e)
		return rfs_errf(err, e, "attach %s: out of file descriptors",
				ifc->name);
	ifc->mode = got;
	return 0;
}

static int rfs_if_test_load(struct rfs_if *ifc, struct rfs_xdp *skel, char *err)
{
	int e = rfs_xdp__load(skel);

	if (e)
		return rfs_errf(err, e, "load %s: can't load the XDP program: %s",
				ifc->name, strerror(-e));
	e = rfs_if_take_fds(ifc, skel, bpf_program__fd(skel->progs.rfs_xdp));
	return e ? rfs_errf(err, e, "load %s: out of file descriptors",
			    ifc->name) : 0;
}

/* What attach checks and sets before anything is loaded. */
static int rfs_if_prepare(const struct rfs_if_env *env, struct rfs_if *ifc,
			  const char *name, const struct rfs_if_opts *o,
			  char *err)
{
	char other_name[64] = "", what[64], cant[64], rps[600];
	struct rfs_local_params lp;
	__u32 other = 0;
	int e;

	ifc->no_attach = o->no_attach;
	ifc->flow_cnt = o->flow_cnt ? o->flow_cnt : RFS_FLOW_CNT_DEFAULT;
	if (o->no_attach) {
		ifc->rx_queues = o->rx_queues ? o->rx_queues : 1;
	} else {
		ifc->ifindex = if_nametoindex(name);
		if (!ifc->ifindex)
			return rfs_errf(err, ENODEV,
					"attach %s: no such interface", name);
		if (!rfs_iface_prog_attached(ifc->ifindex, 0, &other,
					     other_name, sizeof(other_name),
					     NULL) && other)
			return rfs_errf(err, EBUSY,
					"attach %s: another XDP program is attached (id %u, %s); xdp-rfs never replaces it",
					name, other, other_name);
		ifc->rx_queues = rfs_count_rx_queues(name, ifc->ifindex);
		if (rfs_if_rps_on(name, rps, sizeof(rps)))
			return rfs_errf(err, EBUSY,
					"attach %s: kernel RPS is on (%s is not 0): "
					RFS_RPS_WHY "; write 0 there first",
					name, rps);
	}
	snprintf(what, sizeof(what), "attach %s", name);
	snprintf(cant, sizeof(cant), "can't attach '%s'", name);
	e = rfs_iface_check_flow_cnt(what, ifc->flow_cnt, err) ?:
	    rfs_budget_check(&env->budget, cant, ifc->flow_cnt,
			     ifc->rx_queues, env->tables_bytes, err,
			     RFS_ERR_LEN) ?:
	    (rfs_cpuset_count(&o->cpus) ?
	     rfs_iface_check_cpus(env, what, &o->cpus, err) : 0);
	if (e)
		return e;
	ifc->configured = rfs_cpuset_count(&o->cpus) ? o->cpus : *env->online;
	rfs_cpuset_and(&ifc->allowed, &ifc->configured, env->online);
	ifc->usable = ifc->allowed;
	rfs_local_path_params(name, o->no_attach, &lp);
	/* unknown GRO hold time: no drain is long enough */
	ifc->local_path = !o->no_local_path && lp.safe;
	if (!o->no_local_path && !lp.safe)
		pr_warn("%s: can't read its gro_flush_timeout: local path off (every frame through the cpumap)\n",
			name);
	ifc->noguard = o->noguard;
	ifc->local_handover = lp.handover;
	ifc->local_drain_jiffies = lp.drain_jiffies;
	return 0;
}

int rfs_iface_attach(const struct rfs_if_env *env, const char *name,
		     const struct rfs_if_opts *o, struct rfs_if **out,
		     char *err)
{
	struct rfs_xdp *skel;
	struct rfs_if *ifc;
	int e;

	*out = NULL;
	if (!name[0] || strlen(name) >= IF_NAMESIZE || strchr(name, '/'))
		return rfs_errf(err, ENODEV, "attach %s: no such interface", name);
	ifc = rfs_iface_new(name);
	if (!ifc)
		return rfs_errf(err, ENOMEM, "attach %s: out of memory", name);
	e = rfs_if_prepare(env, ifc, name, o, err);
	if (e)
		goto fail;
	skel = rfs_if_open_obj(env, ifc, err);
	if (!skel) {
		e = -EINVAL;
		goto fail;
	}
	e = o->no_attach ? rfs_if_test_load(ifc, skel, err) :
			   rfs_if_xdp_attach(ifc, skel, o->mode, err);
	rfs_xdp__destroy(skel);
	if (e)
		goto fail;
	rfs_test_pause("attached");
	/* Until this write the program passes every frame (no CPU allowed). */
	e = rfs_if_push_config(ifc, 0);
	if (e) {
		e = rfs_errf(err, e, "attach %s: can't write config: %s", name,
			     strerror(-e));
		goto fail_detach;
	}
	if (!o->no_attach) {
		rfs_test_pause("configured");
		e = rfs_iface_pin_all(env, ifc, err);
		if (e)
			goto fail_detach;
		rfs_test_pause("pinned");
		/* the caller logs it, with its cause */
		pr_debug("attached to %s (ifindex %d, %s mode, %u rx queues, flow_cnt %u, local path %s%s, local drain %u jiffies)\n",
			 name, ifc->ifindex, rfs_xdp_mode_name(ifc->mode),
			 ifc->rx_queues, ifc->flow_cnt,
			 ifc->local_path ? "on" : "off",
			 ifc->local_handover ? " with handover" : "",
			 ifc->local_drain_jiffies);
		if (ifc->noguard)
			pr_warn("%s: NOGUARD: the in-order rule is OFF: a flow moves to its new CPU at once and its frames may be reordered (benchmarks only)\n",
				name);
		if (ifc->mode == RFS_XDP_GENERIC)
			pr_warn("%s: generic XDP: the kernel does not pass XDP metadata to the cpumap program, so flows keep the CPU they were first given; use native mode to let them follow their application\n",
				name);
	}
	*out = ifc;
	return 0;
fail_detach:
	if (!o->no_attach) {
		rfs_iface_xdp_off(ifc);
		rfs_iface_unpin(env, name);
	}
fail:
	rfs_iface_free(ifc);
	return e;
}

/*
 * Adopting an interface an earlier rfsd attached: its pins are checked
 * against this build's sizes (another build's are left alone), it is
 * found by the ifindex in its config (a rename while rfsd was down is
 * followed), and kept only if our program still runs there.  Whatever
 * can no longer be used is unpinned.
 */
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

static bool rfs_id_in(const __u32 *ids, size_t n, __u32 id)
{
	while (n--)
		if (ids[n] == id)
			return true;
	return false;
}

/* Whether program id uses a map in ours: what makes it ours. */
static bool rfs_prog_ours(__u32 id, const __u32 *ours, size_t n_ours)
{
	__u32 maps[64], len = sizeof(struct bpf_prog_info), i;
	struct bpf_prog_info info = {
		.nr_map_ids = sizeof(maps) / sizeof(maps[0]),
		.map_ids = (__u64)(unsigned long)maps,
	};
	bool yes = false;
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return false;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		for (i = 0; i < info.nr_map_ids && i < 64 && !yes; i++)
			yes = rfs_id_in(ours, n_ours, maps[i]);
	close(fd);
	return yes;
}

int rfs_iface_sweep(const __u32 *ours, size_t n_ours, const __u32 *keep,
		    size_t n_keep, int ifindex)
{
	struct if_nameindex *ifs, *i;
	int removed = 0;

	ifs = if_nameindex();
	if (!ifs)
		return -errno;
	for (i = ifs; i->if_index; i++) {
		struct xdp_multiprog *mp;
		struct xdp_program *p;
		bool legacy;

		if (ifindex && (int)i->if_index != ifindex)
			continue;
		mp = xdp_multiprog__get_from_ifindex(i->if_index);
		if (!mp || libxdp_get_error(mp))
			continue;
		legacy = xdp_multiprog__is_legacy(mp);
		p = legacy ? xdp_multiprog__main_prog(mp) :
			     xdp_multiprog__next_prog(NULL, mp);
		for (; p; p = legacy ? NULL : xdp_multiprog__next_prog(p, mp)) {
			__u32 id = xdp_program__id(p);
			int e;

			if (rfs_id_in(keep, n_keep, id) ||
			    !rfs_prog_ours(id, ours, n_ours))
				continue;
			e = xdp_program__detach(p, i->if_index,
						xdp_multiprog__attach_mode(mp), 0);
			if (e) {
				pr_warn("%s: can't detach our orphaned XDP program (id %u): %s\n",
					i->if_name, id, strerror(-e));
				continue;
			}
			rfs_log_iface(RFS_LOG_INFO, i->if_name, i->if_index,
				      "detached our orphaned XDP program (id %u): no pin of ours names it",
				      id);
			removed++;
		}
		xdp_multiprog__close(mp);
	}
	if_freenameindex(ifs);
	return removed;
}
