// SPDX-License-Identifier: GPL-2.0
/*
 * One interface: its own instance of the XDP program (so its settings are
 * one array slot away, no per-frame lookup by ifindex), its dev flow
 * table, counters and config, attached with libxdp and pinned under
 * <pin dir>/v2/if/<name>/.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "log.h"
#include "parse.h"
#include "rfs_decide.h"
#include "rfs_dp_int.h"
#include "rfs_features.h"
#include "rfs_order.h"
#include "rfs_pin.h"
#include "rfs_xdp.skel.h"

static const char *const if_pins[] = {
	"prog", RFS_MAP_IF_CFG, RFS_MAP_DEV_OUTER, RFS_MAP_DEV_FLOWS,
	RFS_MAP_IF_STATS, RFS_MAP_FLOW_HITS,
};
#define N_IF_PINS (sizeof(if_pins) / sizeof(if_pins[0]))

static int *if_pin_fd(struct rfs_if *ifc, size_t i)
{
	int *fds[N_IF_PINS] = {
		&ifc->prog_fd, &ifc->cfg_fd, &ifc->dev_outer_fd,
		&ifc->dev_flows_fd, &ifc->stats_fd, &ifc->hits_fd,
	};

	return fds[i];
}

static struct rfs_if *rfs_if_new(const char *name)
{
	struct rfs_if *ifc = calloc(1, sizeof(*ifc));
	size_t i;

	if (!ifc)
		return NULL;
	snprintf(ifc->name, sizeof(ifc->name), "%s", name);
	for (i = 0; i < N_IF_PINS; i++)
		*if_pin_fd(ifc, i) = -1;
	return ifc;
}

void rfs_if_free(struct rfs_if *ifc)
{
	size_t i;

	if (!ifc)
		return;
	for (i = 0; i < N_IF_PINS; i++)
		if (*if_pin_fd(ifc, i) >= 0)
			close(*if_pin_fd(ifc, i));
	free(ifc);
}

static int rfs_dp_if_add(struct rfs_dp *dp, struct rfs_if *ifc)
{
	struct rfs_if **v = realloc(dp->ifs, (dp->n_ifs + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	dp->ifs = v;
	dp->ifs[dp->n_ifs++] = ifc;
	return 0;
}

static int if_dir(const struct rfs_dp *dp, const char *name, char *path)
{
	return rfs_path(path, "%s/if/%s", dp->base, name);
}

static void if_unpin(const struct rfs_dp *dp, const char *name)
{
	char path[PATH_MAX];

	if (!if_dir(dp, name, path))
		rfs_pin_remove_tree_dir(path);
}

static enum xdp_attach_mode to_libxdp(enum rfs_xdp_mode m)
{
	return m == RFS_XDP_NATIVE ? XDP_MODE_NATIVE :
	       m == RFS_XDP_GENERIC ? XDP_MODE_SKB : XDP_MODE_UNSPEC;
}

/* Is prog_id what runs on ifindex, alone or under a libxdp dispatcher?
 * Sets *other to the id of a foreign legacy program found there. */
static bool rfs_prog_attached(int ifindex, __u32 prog_id, __u32 *other,
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
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		if (p && xdp_program__id(p) == prog_id) {
			found = true;
		} else if (p && other) {
			*other = xdp_program__id(p);
			snprintf(other_name, len, "%s", xdp_program__name(p));
		}
	} else {
		for (p = xdp_multiprog__next_prog(NULL, mp); p;
		     p = xdp_multiprog__next_prog(p, mp))
			if (xdp_program__id(p) == prog_id)
				found = true;
	}
	xdp_multiprog__close(mp);
	return found;
}

static __u32 rfs_count_rx_queues(const char *name)
{
	char path[PATH_MAX];
	struct dirent *de;
	__u32 n = 0;
	DIR *d;

	if (rfs_path(path, "/sys/class/net/%s/queues", name))
		return 1;
	d = opendir(path);
	if (!d)
		return 1;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "rx-", 3))
			n++;
	closedir(d);
	if (!n)
		n = 1;
	return n > RFS_MAX_RX_QUEUES ? RFS_MAX_RX_QUEUES : n;
}

int rfs_if_push_config(struct rfs_if *ifc, __u32 sample_flows)
{
	struct rfs_if_config cfg = {
		.flow_mask = ifc->flow_cnt - 1,
		.rx_queues = ifc->rx_queues,
		.sample_flows = sample_flows,
		.local_path = ifc->local_path,
		.local_handover = ifc->local_handover,
		.local_drain_jiffies = ifc->local_drain_jiffies,
		.xdp_mode = ifc->mode,
		.ifindex = ifc->ifindex,
	};
	__u32 zero = 0, cpu;

	memcpy(cfg.allowed, ifc->allowed.bits, sizeof(cfg.allowed));
	memcpy(cfg.usable, ifc->usable.bits, sizeof(cfg.usable));
	memcpy(cfg.configured, ifc->configured.bits, sizeof(cfg.configured));
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		if (rfs_cpuset_has(&ifc->allowed, cpu))
			cfg.allowed_list[cfg.n_allowed++] = cpu;
	if (bpf_map_update_elem(ifc->cfg_fd, &zero, &cfg, BPF_ANY))
		return -errno;
	return 0;
}

/* Every CPU in set must exist and be online. */
static int rfs_check_cpus(struct rfs_dp *dp, const char *what,
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

static int rfs_check_flow_cnt(const char *what, __u32 n, char *err)
{
	if (rfs_check_pow2(n, RFS_FLOW_CNT_MIN, RFS_FLOW_CNT_MAX))
		return rfs_errf(err, EINVAL,
				"%s: %u is not a power of two (%u..%u)",
				what, n, RFS_FLOW_CNT_MIN, RFS_FLOW_CNT_MAX);
	return 0;
}

static int rfs_if_pin_all(struct rfs_dp *dp, struct rfs_if *ifc, char *err)
{
	char dir[PATH_MAX], path[PATH_MAX];
	size_t i;

	if (if_dir(dp, ifc->name, dir) || rfs_pin_mkdirs(dir))
		return rfs_errf(err, errno, "attach %s: can't create pin dir: %s",
				ifc->name, strerror(errno));
	for (i = 0; i < N_IF_PINS; i++) {
		if (rfs_path(path, "%s/%s", dir, if_pins[i]))
			return rfs_errf(err, ENAMETOOLONG, "pin path too long");
		rfs_pin_unlink(path);
		if (bpf_obj_pin(*if_pin_fd(ifc, i), path))
			return rfs_errf(err, errno, "attach %s: can't pin '%s': %s",
					ifc->name, path, strerror(errno));
	}
	return 0;
}

/* Open this interface's XDP object with the shared maps reused. */
static struct rfs_xdp *rfs_if_open_obj(struct rfs_dp *dp, struct rfs_if *ifc,
				       char *err)
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
	ifc->dev_flows_fd = rfs_devtab_create(dp->globals_fd, ifc->flow_cnt,
					      ifc->rx_queues);
	if (ifc->dev_flows_fd < 0) {
		rfs_errf(err, ifc->dev_flows_fd,
			 "attach %s: can't create the flow table: %s",
			 ifc->name, strerror(-ifc->dev_flows_fd));
		ifc->dev_flows_fd = -1;
		rfs_xdp__destroy(skel);
		return NULL;
	}
	e = bpf_map__reuse_fd(skel->maps.rfs_sock_outer, dp->sock_outer_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_cpu_queues, dp->cpu_queues_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_cpu_map, dp->cpu_map_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_globals, dp->globals_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_gstats, dp->gstats_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_tx_seq, dp->tx_seq_fd) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_rx_track, dp->rx_track_fd) ?:
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
		e = xdp_program__attach(xp, ifc->ifindex, to_libxdp(want), 0);
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
	e = rfs_if_take_fds(ifc, skel, xdp_program__fd(xp));
	if (e) {
		/* live already: take it off before saying it failed */
		rfs_prog_attached(ifc->ifindex, xdp_program__id(xp), NULL,
				  NULL, 0, &got);
		xdp_program__detach(xp, ifc->ifindex, to_libxdp(got), 0);
		xdp_program__close(xp);
		return rfs_errf(err, e, "attach %s: out of file descriptors",
				ifc->name);
	}
	xdp_program__close(xp);
	rfs_prog_attached(ifc->ifindex, ifc->prog_id, NULL, NULL, 0, &got);
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

int rfs_if_attach(struct rfs_dp *dp, const char *name,
		  const struct rfs_if_opts *o, struct rfs_if **out, char *err)
{
	char other_name[64] = "";
	struct rfs_xdp *skel = NULL;
	struct rfs_if *ifc = NULL;
	__u32 other = 0;
	int e;

	if (out)
		*out = NULL;
	if (!name[0] || strlen(name) >= IF_NAMESIZE || strchr(name, '/'))
		return rfs_errf(err, ENODEV, "attach %s: no such interface", name);
	if (rfs_dp_if_find(dp, name))
		return rfs_errf(err, EEXIST, "attach %s: already attached", name);
	ifc = rfs_if_new(name);
	if (!ifc)
		return rfs_errf(err, ENOMEM, "attach %s: out of memory", name);
	ifc->no_attach = o->no_attach;
	ifc->flow_cnt = o->flow_cnt ? o->flow_cnt : RFS_FLOW_CNT_DEFAULT;
	if (!o->no_attach) {
		ifc->ifindex = if_nametoindex(name);
		if (!ifc->ifindex) {
			e = rfs_errf(err, ENODEV, "attach %s: no such interface", name);
			goto fail;
		}
		if (!rfs_prog_attached(ifc->ifindex, 0, &other, other_name,
				       sizeof(other_name), NULL) && other) {
			e = rfs_errf(err, EBUSY,
				     "attach %s: another XDP program is attached (id %u, %s); xdp-rfs never replaces it",
				     name, other, other_name);
			goto fail;
		}
		ifc->rx_queues = rfs_count_rx_queues(name);
	} else {
		ifc->rx_queues = o->rx_queues ? o->rx_queues : 1;
	}
	{
		char what[64];

		snprintf(what, sizeof(what), "attach %s", name);
		e = rfs_check_flow_cnt(what, ifc->flow_cnt, err);
		if (e)
			goto fail;
	}
	if (rfs_cpuset_count(&o->cpus)) {
		char what[64];

		snprintf(what, sizeof(what), "attach %s", name);
		e = rfs_check_cpus(dp, what, &o->cpus, err);
		if (e)
			goto fail;
		ifc->configured = o->cpus;
	} else {
		ifc->configured = dp->online;
	}
	rfs_cpuset_and(&ifc->allowed, &ifc->configured, &dp->online);
	ifc->usable = ifc->allowed;
	{
		struct rfs_local_params lp;

		rfs_local_path_params(name, o->no_attach, &lp);
		ifc->local_path = !o->no_local_path;
		ifc->local_handover = lp.handover;
		ifc->local_drain_jiffies = lp.drain_jiffies;
	}

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
	/* Until this write the program passes every frame (no CPU allowed). */
	e = rfs_if_push_config(ifc, 0);
	if (e) {
		e = rfs_errf(err, e, "attach %s: can't write config: %s", name,
			     strerror(-e));
		goto fail_detach;
	}
	if (!o->no_attach) {
		e = rfs_if_pin_all(dp, ifc, err);
		if (e)
			goto fail_detach;
	}
	e = rfs_dp_if_add(dp, ifc);
	if (e) {
		rfs_errf(err, e, "attach %s: out of memory", name);
		goto fail_detach;
	}
	if (!o->no_attach)
		pr_info("attached to %s (ifindex %d, %s mode, %u rx queues, flow_cnt %u, local path %s%s, local drain %u jiffies)\n",
			name, ifc->ifindex, rfs_xdp_mode_name(ifc->mode),
			ifc->rx_queues, ifc->flow_cnt,
			ifc->local_path ? "on" : "off",
			ifc->local_handover ? " with handover" : "",
			ifc->local_drain_jiffies);
	if (!o->no_attach && ifc->mode == RFS_XDP_GENERIC)
		pr_warn("%s: generic XDP: the kernel does not pass XDP metadata to the cpumap program, so flows keep the CPU they were first given; use native mode to let them follow their application\n",
			name);
	if (out)
		*out = ifc;
	return 0;
fail_detach:
	if (!o->no_attach) {
		struct xdp_program *xp = xdp_program__from_fd(ifc->prog_fd);

		if (!libxdp_get_error(xp)) {
			xdp_program__detach(xp, ifc->ifindex, to_libxdp(ifc->mode), 0);
			xdp_program__close(xp);
		}
		if_unpin(dp, name);
	}
fail:
	rfs_if_free(ifc);
	return e;
}

int rfs_if_adopt(struct rfs_dp *dp, const char *name, char *err)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct rfs_if_config cfg;
	struct rfs_if *ifc;
	__u32 zero = 0;
	size_t i;
	int e;

	ifc = rfs_if_new(name);
	if (!ifc)
		return rfs_errf(err, ENOMEM, "adopt %s: out of memory", name);
	e = if_dir(dp, name, dir);
	for (i = 0; !e && i < N_IF_PINS; i++) {
		if (rfs_path(path, "%s/%s", dir, if_pins[i]))
			e = -ENAMETOOLONG;
		else if ((*if_pin_fd(ifc, i) = bpf_obj_get(path)) < 0)
			e = -errno;
	}
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
		rfs_if_free(ifc);
		return e;
	}
	if (bpf_map_lookup_elem(ifc->cfg_fd, &zero, &cfg)) {
		e = rfs_errf(err, errno, "adopt %s: can't read config: %s",
			     name, strerror(errno));
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
	if (!rfs_prog_attached(ifc->ifindex, ifc->prog_id, NULL, NULL, 0,
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
		ifc->rx_queues = hdr.cpu;
	}
	ifc->local_path = cfg.local_path;
	ifc->local_handover = cfg.local_handover;
	ifc->local_drain_jiffies = cfg.local_drain_jiffies;
	memcpy(ifc->configured.bits, cfg.configured, sizeof(cfg.configured));
	memcpy(ifc->allowed.bits, cfg.allowed, sizeof(cfg.allowed));
	memcpy(ifc->usable.bits, cfg.usable, sizeof(cfg.usable));
	e = rfs_dp_if_add(dp, ifc);
	if (e)
		goto drop;
	pr_info("adopted %s (ifindex %d, %s mode, flow_cnt %u)\n", ifc->name,
		ifc->ifindex, rfs_xdp_mode_name(ifc->mode), ifc->flow_cnt);
	return 0;
drop:
	if_unpin(dp, name);
	rfs_if_free(ifc);
	return e;
}

bool rfs_if_prog_on(int ifindex, __u32 prog_id)
{
	return rfs_prog_attached(ifindex, prog_id, NULL, NULL, 0, NULL);
}

int rfs_if_rename(struct rfs_dp *dp, struct rfs_if *ifc, const char *name)
{
	char from[PATH_MAX], to[PATH_MAX];

	if (!strcmp(ifc->name, name) || strlen(name) >= IF_NAMESIZE)
		return 0;
	if (!ifc->no_attach &&
	    (if_dir(dp, ifc->name, from) || if_dir(dp, name, to) ||
	     rename(from, to))) {
		pr_warn("%s: can't move its pins to %s: %s\n", ifc->name, to,
			strerror(errno));
		return -errno;
	}
	pr_info("interface %s (ifindex %d) is now called %s; pins moved\n",
		ifc->name, ifc->ifindex, name);
	snprintf(ifc->name, sizeof(ifc->name), "%s", name);
	return 0;
}

int rfs_if_detach(struct rfs_dp *dp, struct rfs_if *ifc, char *err)
{
	struct xdp_program *xp;
	int e = 0;

	if (!ifc->no_attach &&
	    rfs_prog_attached(ifc->ifindex, ifc->prog_id, NULL, NULL, 0, NULL)) {
		xp = xdp_program__from_fd(ifc->prog_fd);
		e = libxdp_get_error(xp);
		if (!e) {
			e = xdp_program__detach(xp, ifc->ifindex,
						to_libxdp(ifc->mode), 0);
			xdp_program__close(xp);
		}
		if (e)
			return rfs_errf(err, e, "detach %s: can't detach XDP: %s",
					ifc->name, strerror(-e));
	}
	if (!ifc->no_attach) {
		if_unpin(dp, ifc->name);
		pr_info("detached from %s\n", ifc->name);
	}
	rfs_dp_if_remove(dp, ifc);
	return 0;
}

void rfs_if_forget(struct rfs_dp *dp, struct rfs_if *ifc)
{
	if_unpin(dp, ifc->name);
	rfs_dp_if_remove(dp, ifc);
}

const char *rfs_if_name(const struct rfs_if *ifc)
{
	return ifc->name;
}

int rfs_if_ifindex(const struct rfs_if *ifc)
{
	return ifc->ifindex;
}

enum rfs_xdp_mode rfs_if_mode(const struct rfs_if *ifc)
{
	return ifc->mode;
}

__u32 rfs_if_rx_queues(const struct rfs_if *ifc)
{
	return ifc->rx_queues;
}

__u32 rfs_if_flow_cnt(const struct rfs_if *ifc)
{
	return ifc->flow_cnt;
}

void rfs_if_cpus(const struct rfs_if *ifc, struct rfs_cpuset *configured,
		 struct rfs_cpuset *allowed)
{
	if (configured)
		*configured = ifc->configured;
	if (allowed)
		*allowed = ifc->allowed;
}

__u32 rfs_if_prog_id(const struct rfs_if *ifc)
{
	return ifc->prog_id;
}

int rfs_if_prog_fd(const struct rfs_if *ifc)
{
	return ifc->prog_fd;
}

/*
 * Follow the online CPUs and finish removals: a CPU that left the set (or
 * went offline) stays usable, not allowed, for as long as a flow still has
 * frames in flight there, so its flows leave it in order and none is ever
 * forced off.  Also drops the previous flow table once it has drained.
 */
void rfs_if_refresh(struct rfs_dp *dp, struct rfs_if *ifc)
{
	struct rfs_cpuset usable = ifc->usable, allowed, ok;
	unsigned int cpu;

	/* A CPU whose cpumap entry awaits remaking gets no new flows. */
	rfs_cpuset_and(&ok, &dp->online, &dp->in_cpumap);
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		if (rfs_cpuset_has(&dp->unbound, cpu))
			ok.bits[cpu / 64] &= ~(1ULL << (cpu % 64));
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
		pr_info("%s: CPU %u has no flow in flight any more; removed\n",
			ifc->name, cpu);
	}
	rfs_devtab_retire(dp, ifc);
	if (rfs_cpuset_equal(&usable, &ifc->usable) &&
	    rfs_cpuset_equal(&allowed, &ifc->allowed))
		return;
	ifc->usable = usable;
	ifc->allowed = allowed;
	if (rfs_if_push_config(ifc, 0))
		pr_warn("can't update config of %s: %s\n", ifc->name,
			strerror(errno));
}

int rfs_if_set_cpus(struct rfs_dp *dp, struct rfs_if *ifc,
		    const struct rfs_cpuset *cpus, char *err)
{
	struct rfs_cpuset old_allowed = ifc->allowed, old_usable = ifc->usable;
	char what[64];
	unsigned int cpu;
	int e;

	snprintf(what, sizeof(what), "set cpus %s", ifc->name);
	e = rfs_check_cpus(dp, what, cpus, err);
	if (e)
		return e;
	ifc->configured = *cpus;
	rfs_cpuset_and(&ifc->allowed, cpus, &dp->online);
	/* Removed CPUs stay usable (not allowed) until their queue drains:
	 * rfs_if_refresh() finishes the removal. */
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		if (rfs_cpuset_has(&ifc->allowed, cpu))
			rfs_cpuset_add(&ifc->usable, cpu);
	e = rfs_if_push_config(ifc, 0);
	if (e) {
		ifc->allowed = old_allowed;
		ifc->usable = old_usable;
		return rfs_errf(err, e, "%s: can't write config: %s", what,
				strerror(-e));
	}
	rfs_if_refresh(dp, ifc);
	return 0;
}

int rfs_if_set_flow_cnt(struct rfs_dp *dp, struct rfs_if *ifc, __u32 n,
			char *err)
{
	__u32 old_n = ifc->flow_cnt;
	char what[64];
	int e;

	snprintf(what, sizeof(what), "set flow-cnt %s", ifc->name);
	e = rfs_check_flow_cnt(what, n, err);
	if (e || n == old_n)
		return e;
	e = rfs_devtab_resize(dp, ifc, n, ifc->rx_queues, err);
	if (e)
		return e;
	e = rfs_if_push_config(ifc, 0);
	if (e)
		pr_warn("%s: can't update config: %s\n", ifc->name,
			strerror(-e));
	pr_info("%s: flow_cnt %u -> %u\n", ifc->name, old_n, n);
	return 0;
}

int rfs_if_read_stats(const struct rfs_if *ifc, struct rfs_if_stats *out)
{
	int n = libbpf_num_possible_cpus();

	return rfs_read_percpu(ifc->stats_fd, 0, sizeof(*out), out,
			       n > RFS_MAX_CPUS ? RFS_MAX_CPUS : n);
}

static int cmp_frames_desc(const void *a, const void *b)
{
	const struct rfs_flow_sample *x = a, *y = b;

	return x->frames < y->frames ? 1 : x->frames > y->frames ? -1 : 0;
}

int rfs_if_sample_flows(struct rfs_dp *dp, struct rfs_if *ifc,
			unsigned int ms, size_t limit,
			struct rfs_flow_sample **out, size_t *n, char *err)
{
	size_t stride = rfs_percpu_stride(sizeof(struct rfs_flow_hit));
	int ncpu = libbpf_num_possible_cpus(), c;
	struct rfs_flow_sample *v = NULL;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	size_t nv = 0, cap = 0, i;
	char *buf;
	__u32 slot;
	int e = 0;

	*out = NULL;
	*n = 0;
	buf = calloc(ncpu, stride);
	if (!buf)
		return rfs_errf(err, ENOMEM, "flows: out of memory");
	for (slot = 0; slot < RFS_FLOW_HITS; slot++)
		bpf_map_update_elem(ifc->hits_fd, &slot, buf, BPF_ANY);
	e = rfs_if_push_config(ifc, 1);
	if (e) {
		free(buf);
		return rfs_errf(err, e, "flows %s: can't start sampling: %s",
				ifc->name, strerror(-e));
	}
	nanosleep(&ts, NULL);
	rfs_if_push_config(ifc, 0);

	for (slot = 0; slot < RFS_FLOW_HITS; slot++) {
		if (bpf_map_lookup_elem(ifc->hits_fd, &slot, buf))
			continue;
		for (c = 0; c < ncpu; c++) {
			const struct rfs_flow_hit *h = (void *)(buf + c * stride);

			if (!h->frames)
				continue;
			for (i = 0; i < nv && v[i].hash != h->hash; i++)
				;
			if (i == nv) {
				if (nv == cap) {
					struct rfs_flow_sample *nvp;

					cap = cap ? cap * 2 : 64;
					nvp = realloc(v, cap * sizeof(*v));
					if (!nvp) {
						e = -ENOMEM;
						goto out;
					}
					v = nvp;
				}
				memset(&v[nv], 0, sizeof(v[nv]));
				v[nv].hash = h->hash;
				v[nv].rx_queue = h->rx_queue;
				nv++;
			}
			v[i].frames += h->frames;
		}
	}
	for (i = 0; i < nv; i++) {
		struct rfs_dev_flow f,
			hdr = rfs_dev_table_header(ifc->flow_cnt, ifc->rx_queues);
		__u32 idx = rfs_dev_index(&hdr, v[i].hash, v[i].rx_queue);

		v[i].current_cpu = RFS_NO_CPU;
		if (!bpf_map_lookup_elem(ifc->dev_flows_fd, &idx, &f) &&
		    (f.flags & RFS_DEV_FLOW_VALID)) {
			v[i].current_cpu = f.cpu;
			v[i].local = !!(f.flags & RFS_DEV_FLOW_LOCAL);
		}
		v[i].desired_cpu = rfs_dp_desired_cpu(dp, v[i].hash);
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
	return e ? rfs_errf(err, e, "flows %s: %s", ifc->name, strerror(-e)) : 0;
}
