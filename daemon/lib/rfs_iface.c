// SPDX-License-Identifier: GPL-2.0
/* One interface: attach and adopt, its pins, config map and counters, the
 * flows of a sampling window, and the live changes to it.  Its instance
 * of the XDP program shares the core maps and has its own dev flow table;
 * until its config is written it passes every frame, so a half-made
 * attach steers nothing, and one cut short by a crash is swept by the
 * next rfsd (rfs_dp_sweep_orphans()). */
#include <signal.h>
#include <stdlib.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "log.h"
#include "rfs_dp.h"
#include "rfs_order.h"
#include "rfs_xdp.skel.h"

static const struct rfs_pin if_pins[] = {
#define P(n, fd, size) { NULL, n, offsetof(struct rfs_if, fd), size }
	P("prog", prog_fd, 0),
	P(RFS_MAP_IF_CFG, cfg_fd, sizeof(struct rfs_if_config)),
	P(RFS_MAP_DEV_OUTER, dev_outer_fd, 0),
	P(RFS_MAP_DEV_FLOWS, dev_flows_fd, sizeof(struct rfs_dev_flow)),
	P(RFS_MAP_IF_STATS, stats_fd, sizeof(struct rfs_if_stats)),
	P(RFS_MAP_FLOW_HITS, hits_fd, sizeof(struct rfs_flow_hit)),
#undef P
};
#define N_IF_PINS (sizeof(if_pins) / sizeof(if_pins[0]))

static enum xdp_attach_mode rfs_iface_libxdp_mode(enum rfs_xdp_mode m)
{
	return m == RFS_XDP_NATIVE ? XDP_MODE_NATIVE :
	       m == RFS_XDP_GENERIC ? XDP_MODE_SKB : XDP_MODE_UNSPEC;
}

static struct rfs_if *rfs_iface_new(const char *name)
{
	struct rfs_if *ifc = calloc(1, sizeof(*ifc));

	if (!ifc)
		return NULL;
	snprintf(ifc->name, sizeof(ifc->name), "%s", name);
	rfs_pins_reset(ifc, if_pins, N_IF_PINS, false);
	return ifc;
}

void rfs_iface_free(struct rfs_if *ifc)
{
	rfs_pins_reset(ifc, if_pins, N_IF_PINS, true);
	free(ifc);
}

static int rfs_iface_dir(struct rfs_dp *dp, const char *name, char *path)
{
	return rfs_path(path, "%s/if/%s", dp->base, name);
}

void rfs_iface_unpin(struct rfs_dp *dp, const char *name)
{
	char path[PATH_MAX];

	if (!rfs_iface_dir(dp, name, path))
		rfs_pin_walk(path, true, NULL, NULL);
}

int rfs_if_rename(struct rfs_dp *dp, struct rfs_if *ifc, const char *name)
{
	char from[PATH_MAX], to[PATH_MAX];

	if (!strcmp(ifc->name, name) || strlen(name) >= IF_NAMESIZE)
		return 0;
	if (!ifc->no_attach &&
	    (rfs_iface_dir(dp, ifc->name, from) ||
	     rfs_iface_dir(dp, name, to) || rename(from, to))) {
		pr_warn("%s: can't move its pins to %s: %s\n", ifc->name, to,
			strerror(errno));
		return -errno;
	}
	rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
		      "renamed to '%s': pins moved", name);
	snprintf(ifc->name, sizeof(ifc->name), "%s", name);
	return 0;
}

/* The programs on an interface: a legacy one, or a dispatcher's. */
static struct xdp_program *rfs_xdp_next(struct xdp_multiprog *mp,
					struct xdp_program *p)
{
	if (xdp_multiprog__is_legacy(mp))
		return p ? NULL : xdp_multiprog__main_prog(mp);
	return xdp_multiprog__next_prog(p, mp);
}

static bool rfs_iface_prog_attached(int ifindex, __u32 prog_id, __u32 *other,
				    char *other_name, size_t len,
				    enum rfs_xdp_mode *mode)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p;
	bool found = false;

	if (other)
		*other = 0;
	if (!mp || libxdp_get_error(mp))
		return false;
	if (mode)
		*mode = xdp_multiprog__attach_mode(mp) == XDP_MODE_SKB ?
			RFS_XDP_GENERIC : RFS_XDP_NATIVE;
	for (p = rfs_xdp_next(mp, NULL); p; p = rfs_xdp_next(mp, p)) {
		if (xdp_program__id(p) == prog_id) {
			found = true;
		} else if (other && xdp_multiprog__is_legacy(mp)) {
			*other = xdp_program__id(p);
			snprintf(other_name, len, "%s", xdp_program__name(p));
		}
	}
	xdp_multiprog__close(mp);
	return found;
}

bool rfs_if_prog_on(int ifindex, __u32 prog_id)
{
	return rfs_iface_prog_attached(ifindex, prog_id, NULL, NULL, 0, NULL);
}

static int rfs_iface_xdp_off(const struct rfs_if *ifc)
{
	struct xdp_program *xp = xdp_program__from_fd(ifc->prog_fd);
	int e = libxdp_get_error(xp);

	if (e)
		return e;
	e = xdp_program__detach(xp, ifc->ifindex,
				rfs_iface_libxdp_mode(ifc->mode), 0);
	xdp_program__close(xp);
	return e;
}

static int rfs_iface_check_cpus(struct rfs_dp *dp, const char *what,
				const struct rfs_cpuset *set, char *err)
{
	unsigned int cpu;

	if (!rfs_cpuset_count(set))
		return rfs_errf(err, EINVAL, "%s: no CPU given", what);
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++) {
		if (!rfs_cpuset_has(set, cpu))
			continue;
		if (cpu >= (unsigned int)dp->nr_cpus)
			return rfs_errf(err, EINVAL,
					"%s: CPU %u does not exist (CPUs 0-%d)",
					what, cpu, dp->nr_cpus - 1);
		if (!rfs_cpuset_has(&dp->online, cpu))
			return rfs_errf(err, EINVAL, "%s: CPU %u is not online",
					what, cpu);
	}
	return 0;
}

static int rfs_iface_check_flow_cnt(const char *what, __u32 n, char *err)
{
	if (rfs_check_pow2(n, RFS_FLOW_CNT_MIN, RFS_FLOW_CNT_MAX))
		return rfs_errf(err, EINVAL,
				"%s: %u is not a power of two (%u..%u)",
				what, n, RFS_FLOW_CNT_MIN, RFS_FLOW_CNT_MAX);
	return 0;
}

int rfs_if_read_config(int cfg_fd, struct rfs_if_config *out)
{
	__u32 slot = 0;

	if (bpf_map_lookup_elem(cfg_fd, &slot, out))
		return -errno;
	slot = 1;
	if (out->active_slot && bpf_map_lookup_elem(cfg_fd, &slot, out))
		return -errno;
	return 0;
}

/*
 * Wait for every BPF program that is running to end: an update of a
 * map-in-map slot does (maybe_wait_bpf_programs), so give the dev table's
 * slot the table it holds.  1 where there is none to update.
 */
static int rfs_if_wait_readers(struct rfs_if *ifc)
{
	__u32 zero = 0;

	if (ifc->dev_outer_fd < 0 || ifc->dev_flows_fd < 0)
		return 1;
	if (bpf_map_update_elem(ifc->dev_outer_fd, &zero, &ifc->dev_flows_fd,
				BPF_ANY))
		return -errno;
	return 0;
}

/*
 * A frame reads a whole configuration (rfs_common.h), and reads slot 0's
 * first line for active_slot anyway: so the configuration lives in slot
 * 0, and slot 1 only carries frames across a change.  Write slot 1 and
 * flip to it; once slot 0's readers are gone, write slot 0 (active_slot
 * still 1, so no frame reads the rest of it) and flip back; wait for
 * slot 1's readers before the next push may write it.  A frame then
 * reads two lines of configuration, not three.
 */
int rfs_if_push_config(struct rfs_if *ifc, __u32 sample_flows)
{
	struct rfs_if_config cfg = {
		.flow_mask = ifc->flow_cnt - 1,
		.rx_queues = ifc->rx_queues,
		.sample_flows = sample_flows || ifc->sampling,
		.local_path = ifc->local_path,
		.local_handover = ifc->local_handover,
		.local_drain_jiffies = ifc->local_drain_jiffies,
		.noguard = ifc->noguard,
		.xdp_mode = ifc->mode,
		.ifindex = ifc->ifindex,
	};
	struct rfs_if_config c0;
	__u32 zero = 0, one = 1, cpu;
	int e;

	memcpy(cfg.allowed, ifc->allowed.bits, sizeof(cfg.allowed));
	memcpy(cfg.usable, ifc->usable.bits, sizeof(cfg.usable));
	memcpy(cfg.configured, ifc->configured.bits, sizeof(cfg.configured));
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		if (rfs_cpuset_has(&ifc->allowed, cpu))
			cfg.allowed_list[cfg.n_allowed++] = cpu;
	if (bpf_map_lookup_elem(ifc->cfg_fd, &zero, &c0))
		return -errno;
	/* slot 1 already in use (a push cut short, or one that could not
	 * wait): no frame reads slot 0, which is written straight away */
	if (!c0.active_slot) {
		cfg.active_slot = c0.active_slot = 1;
		if (bpf_map_update_elem(ifc->cfg_fd, &one, &cfg, BPF_ANY) ||
		    bpf_map_update_elem(ifc->cfg_fd, &zero, &c0, BPF_ANY))
			return -errno;
		e = rfs_if_wait_readers(ifc);
		if (e)
			return e > 0 ? 0 : e;	/* left on slot 1 */
	}
	cfg.active_slot = 1;
	if (bpf_map_update_elem(ifc->cfg_fd, &zero, &cfg, BPF_ANY))
		return -errno;
	cfg.active_slot = 0;
	if (bpf_map_update_elem(ifc->cfg_fd, &zero, &cfg, BPF_ANY))
		return -errno;
	e = rfs_if_wait_readers(ifc);
	return e > 0 ? 0 : e;
}

int rfs_iface_detach(struct rfs_dp *dp, struct rfs_if *ifc, char *err)
{
	int e;

	if (ifc->no_attach)
		return 0;
	if (rfs_if_prog_on(ifc->ifindex, ifc->prog_id)) {
		e = rfs_iface_xdp_off(ifc);
		if (e)
			return rfs_errf(err, e,
					"detach %s: can't detach XDP: %m",
					ifc->name);
	}
	rfs_iface_unpin(dp, ifc->name);
	pr_debug("detached from %s\n", ifc->name);	/* callers say why */
	return 0;
}

/* A row of dev flow entries per RX queue the device allocated
 * (dev->num_rx_queues), which no rx_queue_index passes: ethtool -L may
 * raise the real count up to it at any time, and a queue without a row
 * can't keep order (two RX CPUs would write one entry).  sysfs, which
 * lists only the real queues, is the fallback without CONFIG_RPS. */
static __u32 rfs_count_rx_queues(const char *name, int ifindex)
{
	__u32 n = 0;
	int e = rfs_link_num_rx_queues(ifindex, &n);

	if (e) {
		n = rfs_sysfs_rx_queues(name, NULL, 0);
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

static struct rfs_xdp *rfs_if_open_obj(struct rfs_dp *dp, struct rfs_if *ifc,
				       char *err)
{
	struct rfs_xdp *skel = rfs_xdp__open();
	int e;

	if (!skel) {
		rfs_errf(err, errno, "attach %s: can't open the XDP object: %m",
			 ifc->name);
		return NULL;
	}
	/* header written: the program finds its geometry from frame one */
	e = rfs_devtab_create(dp->globals_fd, ifc->flow_cnt, ifc->rx_queues);
	if (e < 0) {
		rfs_errf(err, e, "attach %s: can't create the flow table: %m",
			 ifc->name);
		goto fail;
	}
	ifc->dev_flows_fd = e;
	e = bpf_map__reuse_fd(skel->maps.rfs_sock_outer, dp->sock_outer_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_cpu_queues, dp->cpu_queues_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_cpu_map, dp->cpu_map_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_globals, dp->globals_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_gstats, dp->gstats_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_tx_seq, dp->tx_seq_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_rx_track, dp->rx_track_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_sock_full, dp->sock_full_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_dev_flows, ifc->dev_flows_fd) ?:
	    /* the outer map's template is our table too: 6.1 refuses an
	     * inner map whose BTF differs from the template's */
	    bpf_map__set_inner_map_fd(skel->maps.rfs_dev_outer,
				      ifc->dev_flows_fd);
	if (!e)
		return skel;
	rfs_errf(err, e, "attach %s: can't share maps: %m", ifc->name);
fail:
	rfs_xdp__destroy(skel);
	return NULL;
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
				"attach %s: can't prepare the XDP program: %m",
				ifc->name);
	e = xdp_program__attach(xp, ifc->ifindex, rfs_iface_libxdp_mode(
			want == RFS_XDP_AUTO ? RFS_XDP_NATIVE : want), 0);
	if (e && want == RFS_XDP_AUTO)
		e = xdp_program__attach(xp, ifc->ifindex, XDP_MODE_SKB, 0);
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
		return rfs_errf(err, e,
				"load %s: can't load the XDP program: %m",
				ifc->name);
	e = rfs_if_take_fds(ifc, skel, bpf_program__fd(skel->progs.rfs_xdp));
	return e ? rfs_errf(err, e, "load %s: out of file descriptors",
			    ifc->name) : 0;
}

static int rfs_if_prepare(struct rfs_dp *dp, struct rfs_if *ifc,
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
		rfs_sysfs_rx_queues(name, rps, sizeof(rps));
		if (rps[0])
			return rfs_errf(err, EBUSY,
					"attach %s: kernel RPS is on (%s is not 0): "
					RFS_RPS_WHY "; write 0 there first",
					name, rps);
	}
	snprintf(what, sizeof(what), "attach %s", name);
	snprintf(cant, sizeof(cant), "can't attach '%s'", name);
	e = rfs_iface_check_flow_cnt(what, ifc->flow_cnt, err) ?:
	    rfs_budget_check(dp->budget, cant, ifc->flow_cnt,
			     ifc->rx_queues, rfs_dp_tables_bytes(dp), err,
			     RFS_ERR_LEN) ?:
	    (rfs_cpuset_count(&o->cpus) ?
	     rfs_iface_check_cpus(dp, what, &o->cpus, err) : 0);
	if (e)
		return e;
	ifc->configured = rfs_cpuset_count(&o->cpus) ? o->cpus : dp->online;
	rfs_cpuset_and(&ifc->allowed, &ifc->configured, &dp->online);
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

int rfs_iface_attach(struct rfs_dp *dp, const char *name,
		     const struct rfs_if_opts *o, struct rfs_if **out,
		     char *err)
{
	char dir[PATH_MAX], sub[IF_NAMESIZE + 3], desc[160];
	struct rfs_xdp *skel;
	struct rfs_if *ifc;
	int e;

	*out = NULL;
	ifc = rfs_iface_new(name);
	if (!ifc)
		return rfs_errf(err, ENOMEM, "attach %s: out of memory", name);
	e = rfs_if_prepare(dp, ifc, name, o, err);
	if (e)
		goto fail;
	skel = rfs_if_open_obj(dp, ifc, err);
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
	e = rfs_if_push_config(ifc, 0);
	if (e) {
		e = rfs_errf(err, e, "attach %s: can't write config: %m", name);
		goto fail_detach;
	}
	if (!o->no_attach) {
		rfs_test_pause("configured");
		snprintf(sub, sizeof(sub), "if/%s", name);
		e = rfs_iface_dir(dp, name, dir) ?: rfs_pin_mkdirs(dir);
		e = e ? rfs_errf(err, e, "attach %s: can't create pin dir: %m",
				 name) :
			rfs_pins_pin(dp->base, sub, ifc, if_pins, N_IF_PINS,
				     err);
		if (e)
			goto fail_detach;
		rfs_test_pause("pinned");
		/* the caller logs it, with its cause */
		rfs_if_describe(ifc, desc, sizeof(desc));
		pr_debug("attached to %s (ifindex %d, %s, local drain %u jiffies%s)\n",
			 name, ifc->ifindex, desc, ifc->local_drain_jiffies,
			 ifc->local_handover ? ", handover" : "");
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
		rfs_iface_unpin(dp, name);
	}
fail:
	rfs_iface_free(ifc);
	return e;
}

/* Kept only if our program still runs there (found by the ifindex in its
 * config: a rename while rfsd was down is followed); whatever can no
 * longer be used is unpinned, another build's pins left alone. */
int rfs_iface_adopt(struct rfs_dp *dp, const char *name, struct rfs_if **out,
		    char *err)
{
	char desc[160], sub[IF_NAMESIZE + 3], why[RFS_ERR_LEN] = "";
	struct rfs_if_config cfg;
	struct rfs_dev_flow hdr;
	struct rfs_if *ifc;
	__u32 zero = 0;
	int e;

	*out = NULL;
	ifc = rfs_iface_new(name);
	if (!ifc)
		return rfs_errf(err, ENOMEM, "adopt %s: out of memory", name);
	snprintf(sub, sizeof(sub), "if/%s", name);
	e = rfs_pins_open(dp->base, sub, ifc, if_pins, N_IF_PINS, why);
	if (e && why[0]) {	/* another build's: leave its pins alone */
		e = rfs_errf(err, e, "adopt %s: %s", name, why);
		goto free;
	}
	if (e) {
		rfs_errf(err, e, "adopt %s: pins incomplete (%m); dropped them",
			 name);
		goto drop;
	}
	e = rfs_if_read_config(ifc->cfg_fd, &cfg);
	if (e) {
		e = rfs_errf(err, e, "adopt %s: can't read config: %m", name);
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
			 !rfs_if_rename(dp, ifc, now))
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
	if (bpf_map_lookup_elem(ifc->dev_flows_fd, &zero, &hdr) ||
	    !rfs_dev_table_ok(&hdr)) {
		e = rfs_errf(err, EINVAL,
			     "adopt %s: flow table has no header (made by another version?); dropped it",
			     name);
		goto drop;
	}
	ifc->flow_cnt = hdr.last + 1;
	ifc->rx_queues = hdr.rx_cpu;
	ifc->local_path = cfg.local_path;
	ifc->local_handover = cfg.local_handover;
	ifc->local_drain_jiffies = cfg.local_drain_jiffies;
	ifc->noguard = cfg.noguard;
	memcpy(ifc->configured.bits, cfg.configured, sizeof(cfg.configured));
	memcpy(ifc->allowed.bits, cfg.allowed, sizeof(cfg.allowed));
	memcpy(ifc->usable.bits, cfg.usable, sizeof(cfg.usable));
	rfs_if_describe(ifc, desc, sizeof(desc));
	rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
		      "adopted, %s: attached by an earlier rfsd", desc);
	*out = ifc;
	return 0;
drop:
	rfs_iface_unpin(dp, name);
free:
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

		if (ifindex && (int)i->if_index != ifindex)
			continue;
		mp = xdp_multiprog__get_from_ifindex(i->if_index);
		if (!mp || libxdp_get_error(mp))
			continue;
		for (p = rfs_xdp_next(mp, NULL); p; p = rfs_xdp_next(mp, p)) {
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

void rfs_if_describe(const struct rfs_if *ifc, char *buf, size_t len)
{
	char list[128];

	rfs_cpulist_format(&ifc->configured, list, sizeof(list));
	snprintf(buf, len, "mode %s, %u rx queue%s, flow_cnt %u, cpus %s, local path %s%s",
		 rfs_xdp_mode_name(ifc->mode), ifc->rx_queues,
		 ifc->rx_queues == 1 ? "" : "s", ifc->flow_cnt,
		 list[0] ? list : "all", ifc->local_path ? "on" : "off",
		 ifc->noguard ? ", NOGUARD: in-order rule off" : "");
}

int rfs_if_read_stats(const struct rfs_if *ifc, struct rfs_if_stats *out)
{
	return rfs_read_percpu(ifc->stats_fd, 0, sizeof(*out), out,
			       RFS_MAX_CPUS);
}

static int cmp_frames_desc(const void *a, const void *b)
{
	const struct rfs_flow_sample *x = a, *y = b;

	return x->frames < y->frames ? 1 : x->frames > y->frames ? -1 : 0;
}

int rfs_if_sample_start(struct rfs_dp *dp, struct rfs_if *ifc, char *err)
{
	size_t stride = rfs_percpu_stride(sizeof(struct rfs_flow_hit));
	int ncpu = libbpf_num_possible_cpus(), e;
	__u32 slot;
	char *buf;

	if (ifc->sampling)
		return rfs_errf(err, EBUSY, "flows %s: already being sampled",
				ifc->name);
	buf = calloc(ncpu, stride);
	if (!buf)
		return rfs_errf(err, ENOMEM, "flows: out of memory");
	for (slot = 0; slot < RFS_FLOW_HITS; slot++)
		bpf_map_update_elem(ifc->hits_fd, &slot, buf, BPF_ANY);
	free(buf);
	ifc->sampling = true;
	e = rfs_if_push_config(ifc, 1);
	if (e) {
		ifc->sampling = false;
		return rfs_errf(err, e, "flows %s: can't start sampling: %m",
				ifc->name);
	}
	return 0;
}

void rfs_if_sample_stop(struct rfs_if *ifc)
{
	if (!ifc->sampling)
		return;
	ifc->sampling = false;
	rfs_if_push_config(ifc, 0);
}

int rfs_if_sample_collect(struct rfs_dp *dp, struct rfs_if *ifc, size_t limit,
			  struct rfs_flow_sample **out, size_t *n, char *err)
{
	size_t stride = rfs_percpu_stride(sizeof(struct rfs_flow_hit));
	struct rfs_flow_sample *v = NULL, *nvp;
	size_t nv = 0, cap = 0, i, first;
	char *buf = NULL;
	int ncpu, c, e = 0;
	__u32 slot;

	*out = NULL;
	*n = 0;
	rfs_if_sample_stop(ifc);
	for (slot = 0; slot < RFS_FLOW_HITS; slot++) {
		free(buf);
		buf = rfs_lookup_percpu(ifc->hits_fd, slot,
					sizeof(struct rfs_flow_hit), &ncpu);
		/* a hash has one slot: its other CPUs' counts are here */
		for (c = 0, first = nv; buf && c < ncpu; c++) {
			const struct rfs_flow_hit *h = (void *)(buf + c * stride);

			if (!h->frames)
				continue;
			for (i = first; i < nv && v[i].hash != h->hash; i++)
				;
			if (i == nv) {
				if (nv == cap) {
					cap = cap ? cap * 2 : 64;
					nvp = realloc(v, cap * sizeof(*v));
					if (!nvp) {
						e = -ENOMEM;
						goto out;
					}
					v = nvp;
				}
				v[nv++] = (struct rfs_flow_sample){
					.hash = h->hash, .rx_queue = h->rx_queue,
				};
			}
			v[i].frames += h->frames;
		}
	}
	for (i = 0; i < nv; i++) {
		struct rfs_dev_flow f,
			hdr = rfs_dev_table_header(ifc->flow_cnt, ifc->rx_queues);
		__u32 idx = rfs_dev_index(&hdr, v[i].hash, v[i].rx_queue);

		v[i].current_cpu = RFS_NO_CPU;
		if (idx && !bpf_map_lookup_elem(ifc->dev_flows_fd, &idx, &f) &&
		    (f.flags & RFS_DEV_FLOW_VALID)) {
			v[i].current_cpu = f.cpu;
			v[i].local = !!(f.flags & RFS_DEV_FLOW_LOCAL);
		}
		v[i].desired_cpu = rfs_sock_desired_cpu(dp->sock_flows_fd,
							&dp->globals, v[i].hash);
	}
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_frames_desc);
	if (limit && nv > limit)
		nv = limit;
	*out = v;
	*n = nv;
	v = NULL;
out:
	free(v);
	free(buf);
	return e ? rfs_errf(err, e, "flows %s: %m", ifc->name) : 0;
}

/* ---- live changes, in order (rfs_dp.h) ---- */

/* A CPU that left the set (or went offline) stays usable, not allowed,
 * while a flow has frames in flight there: none is ever forced off.  The
 * previous flow table goes once drained. */
void rfs_iface_refresh(struct rfs_dp *dp, struct rfs_if *ifc)
{
	struct rfs_cpuset usable = ifc->usable, allowed, ok;
	char rps[600] = "";
	unsigned int cpu;
	bool rps_on;

	/* Refused at attach; turned on since: say so, once, and when off. */
	if (!ifc->no_attach)
		rfs_sysfs_rx_queues(ifc->name, rps, sizeof(rps));
	rps_on = rps[0];
	if (rps_on != ifc->kernel_rps) {
		if (rps_on)
			rfs_log_iface(RFS_LOG_WARN, ifc->name, ifc->ifindex,
				      "kernel RPS turned on (%s is not 0): "
				      RFS_RPS_WHY "; write 0 there",
				      rps);
		else
			rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
				      "kernel RPS off again");
		ifc->kernel_rps = rps_on;
	}

	/* A CPU whose cpumap entry awaits remaking gets no new flows. */
	rfs_cpuset_and(&ok, &dp->online, &dp->in_cpumap);
	for (cpu = 0; cpu < RFS_CPU_WORDS; cpu++)
		ok.bits[cpu] &= ~dp->unbound.bits[cpu];
	rfs_cpuset_and(&allowed, &ifc->configured, &ok);
	for (cpu = 0; cpu < (unsigned int)dp->nr_cpus; cpu++) {
		if (rfs_cpuset_has(&allowed, cpu)) {
			rfs_cpuset_add(&usable, cpu);
			continue;
		}
		if (!rfs_cpuset_has(&usable, cpu))
			continue;
		if (rfs_cpuset_has(&dp->in_cpumap, cpu) &&
		    rfs_devtab_in_flight(dp, ifc, cpu) != 0)
			continue;	/* still draining: keep it usable */
		usable.bits[cpu / 64] &= ~(1ULL << (cpu % 64));
		rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
			      "CPU %u removed: no flow in flight there any more",
			      cpu);
	}
	rfs_devtab_retire(dp, ifc);
	if (rfs_cpuset_equal(&usable, &ifc->usable) &&
	    rfs_cpuset_equal(&allowed, &ifc->allowed))
		return;
	if (!rfs_cpuset_equal(&allowed, &ifc->allowed)) {
		char was[256], now[256];

		rfs_cpulist_format(&ifc->allowed, was, sizeof(was));
		rfs_cpulist_format(&allowed, now, sizeof(now));
		rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
			      "active cpus %s -> %s: online CPUs changed",
			      was[0] ? was : "none", now[0] ? now : "none");
	}
	ifc->usable = usable;
	ifc->allowed = allowed;
	if (rfs_if_push_config(ifc, 0))
		pr_warn("can't update config of %s: %s\n", ifc->name,
			strerror(errno));
}

int rfs_if_set_cpus(struct rfs_dp *dp, struct rfs_if *ifc,
		    const struct rfs_cpuset *cpus, const char *why, char *err)
{
	struct rfs_cpuset old_allowed = ifc->allowed, old_usable = ifc->usable;
	char what[64], was[256], now[256];
	unsigned int cpu;
	int e;

	snprintf(what, sizeof(what), "set cpus %s", ifc->name);
	e = rfs_iface_check_cpus(dp, what, cpus, err);
	if (e)
		return e;
	rfs_cpulist_format(&ifc->configured, was, sizeof(was));
	rfs_cpulist_format(cpus, now, sizeof(now));
	ifc->configured = *cpus;
	rfs_cpuset_and(&ifc->allowed, cpus, &dp->online);
	/* removed CPUs stay usable until drained (rfs_iface_refresh()) */
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		if (rfs_cpuset_has(&ifc->allowed, cpu))
			rfs_cpuset_add(&ifc->usable, cpu);
	e = rfs_if_push_config(ifc, 0);
	if (e) {
		ifc->allowed = old_allowed;
		ifc->usable = old_usable;
		return rfs_errf(err, e, "%s: can't write config: %m", what);
	}
	rfs_iface_refresh(dp, ifc);
	/* a removal that waits starts now, not at the next refresh */
	rfs_iface_note_leaving(ifc, rfs_mono_ms());
	if (strcmp(was, now))
		rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
			      "cpus %s -> %s: %s", was[0] ? was : "all", now,
			      why);
	return 0;
}

int rfs_if_set_noguard(struct rfs_dp *dp, struct rfs_if *ifc, bool on,
		       char *err)
{
	bool was = ifc->noguard;
	int e;

	if (on == was)
		return 0;
	ifc->noguard = on;
	e = rfs_if_push_config(ifc, 0);
	if (e) {
		ifc->noguard = was;
		return rfs_errf(err, e,
				"set noguard %s: can't write config: %m",
				ifc->name);
	}
	if (on)
		pr_warn("%s: NOGUARD: the in-order rule is now OFF: flows move at once and may be reordered (benchmarks only)\n",
			ifc->name);
	else
		pr_info("%s: the in-order rule is on again (noguard off)\n",
			ifc->name);
	return 0;
}

int rfs_if_set_flow_cnt(struct rfs_dp *dp, struct rfs_if *ifc, __u32 n,
			const char *why, char *err)
{
	__u32 old_n = ifc->flow_cnt;
	char what[64];
	int e;

	snprintf(what, sizeof(what), "set flow-cnt %s", ifc->name);
	e = rfs_iface_check_flow_cnt(what, n, err);
	if (e || n == old_n)
		return e;
	/* the old table drains beside the new one, briefly: the budget is
	 * for what stays (rfs_dp.h) */
	snprintf(what, sizeof(what), "can't set flow_cnt of '%s' to %u",
		 ifc->name, n);
	e = rfs_budget_check(dp->budget, what, n, ifc->rx_queues,
			     rfs_dp_tables_bytes(dp) -
			     rfs_table_bytes(old_n, ifc->rx_queues), err,
			     RFS_ERR_LEN);
	if (e)
		return e;
	e = rfs_devtab_resize(dp, ifc, n, err);
	if (e)
		return e;
	e = rfs_if_push_config(ifc, 0);
	if (e)
		pr_warn("%s: can't update config: %s\n", ifc->name,
			strerror(-e));
	rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
		      "flow_cnt %u -> %u: %s", old_n, n, why);
	return 0;
}

/* ---- the CPUs leaving ---- */

static bool rfs_iface_cpu_leaving(const struct rfs_if *ifc, unsigned int cpu)
{
	return rfs_cpuset_has(&ifc->usable, cpu) &&
	       !rfs_cpuset_has(&ifc->allowed, cpu);
}

void rfs_iface_note_leaving(struct rfs_if *ifc, __u64 now_ms)
{
	unsigned int cpu;

	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++) {
		if (!rfs_iface_cpu_leaving(ifc, cpu)) {
			ifc->leaving_since_ms[cpu] = 0;
			ifc->leaving_warn_ms[cpu] = 0;
		} else if (!ifc->leaving_since_ms[cpu]) {
			/* 0 means "not leaving": a clock at 0 ms is moved on */
			ifc->leaving_since_ms[cpu] = now_ms ? now_ms : 1;
		}
	}
}

int rfs_if_holds(struct rfs_dp *dp, struct rfs_if *ifc,
		 struct rfs_hold_cpu **out, size_t *n, char *err)
{
	struct rfs_hold_cpu *by_cpu;
	struct rfs_cpuset leaving;
	unsigned int cpu;
	size_t k = 0;
	int e;

	*out = NULL;
	*n = 0;
	rfs_iface_note_leaving(ifc, rfs_mono_ms());
	rfs_cpuset_zero(&leaving);
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		if (rfs_iface_cpu_leaving(ifc, cpu))
			rfs_cpuset_add(&leaving, cpu);
	if (!rfs_cpuset_count(&leaving))
		return 0;
	by_cpu = calloc(RFS_MAX_CPUS, sizeof(*by_cpu));
	e = by_cpu ? rfs_devtab_holds(dp, ifc, &leaving, by_cpu) : -ENOMEM;
	if (e) {
		free(by_cpu);
		return rfs_errf(err, e, "can't read the flows of '%s': %m",
				ifc->name);
	}
	/* the leaving CPUs' records to the front, in CPU order */
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++) {
		if (!rfs_cpuset_has(&leaving, cpu))
			continue;
		by_cpu[k] = by_cpu[cpu];
		by_cpu[k].cpu = cpu;
		by_cpu[k++].since_ms = ifc->leaving_since_ms[cpu];
	}
	*out = by_cpu;
	*n = k;
	return 0;
}

bool rfs_if_leaving_warn_due(struct rfs_if *ifc, unsigned int cpu,
			     __u64 now_ms, __u64 bound_ms)
{
	__u64 since = cpu < RFS_MAX_CPUS ? ifc->leaving_since_ms[cpu] : 0;

	return since && now_ms >= since &&
	       rfs_hold_warn_due(now_ms - since, bound_ms,
				 &ifc->leaving_warn_ms[cpu]);
}
