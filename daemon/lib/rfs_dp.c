// SPDX-License-Identifier: GPL-2.0
/*
 * The shared datapath: the core BPF object (cpumap program, enqueue
 * tracepoint, socket-side programs), its maps, and their pins.  Created
 * once, pinned, then only ever handled through the pinned objects, so a
 * new rfsd adopts exactly what an old one left running.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "parse.h"
#include "rfs_core.skel.h"
#include "rfs_decide.h"
#include "rfs_dp_int.h"
#include "rfs_pin.h"

/* Smallest 2^k - 1 that holds cpu + 1 for every CPU: see rfs_common.h. */
static __u32 rfs_cpu_mask_for(int nr_cpus)
{
	__u32 m = 1;

	while (m < (__u32)nr_cpus)
		m = (m << 1) | 1;
	return m;
}

static __u32 rfs_prog_id_of_link(int link_fd)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(link_fd, &info, &len))
		return 0;
	return info.prog_id;
}

/*
 * Give every online CPU a cpumap queue with our cpumap program on it.  A
 * CPU that goes offline keeps its entry: its kthread moves to another CPU
 * and keeps draining in order while the interfaces stop sending it new
 * flows.  It lost its binding, though, so when the CPU comes back the
 * entry is made anew, once no flow has frames in flight there (replacing
 * it earlier would let two kthreads hold the same CPU's frames).
 */
static int rfs_dp_sync_cpumap(struct rfs_dp *dp, char *err)
{
	struct bpf_cpumap_val val = {
		.qsize = dp->qsize,
		.bpf_prog.fd = dp->cpumap_prog_fd,
	};
	struct bpf_cpumap_val cur;
	__u32 cpu;
	size_t i;

	for (cpu = 0; cpu < (__u32)dp->nr_cpus; cpu++) {
		bool present = !bpf_map_lookup_elem(dp->cpu_map_fd, &cpu, &cur);
		bool busy = false;

		if (present)
			rfs_cpuset_add(&dp->in_cpumap, cpu);
		if (!rfs_cpuset_has(&dp->online, cpu)) {
			if (present)
				rfs_cpuset_add(&dp->unbound, cpu);
			continue;
		}
		if (present && !rfs_cpuset_has(&dp->unbound, cpu))
			continue;
		for (i = 0; present && i < dp->n_ifs && !busy; i++)
			busy = rfs_devtab_in_flight(dp, dp->ifs[i], cpu) != 0;
		if (busy)
			continue;	/* the next refresh tries again */
		if (bpf_map_update_elem(dp->cpu_map_fd, &cpu, &val, BPF_ANY))
			return rfs_errf(err, errno,
					"can't add CPU %u to the cpumap: %s",
					cpu, strerror(errno));
		if (present)
			pr_info("CPU %u: cpumap queue remade (back online)\n", cpu);
		rfs_cpuset_add(&dp->in_cpumap, cpu);
		dp->unbound.bits[cpu / 64] &= ~(1ULL << (cpu % 64));
	}
	return 0;
}

static bool rfs_kernel_has_tp_btf(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	bool ok;

	if (!vmlinux)
		return false;
	ok = btf__find_by_name_kind(vmlinux, "btf_trace_sock_recv_length",
				    BTF_KIND_TYPEDEF) > 0 &&
	     btf__find_by_name_kind(vmlinux, "btf_trace_sock_send_length",
				    BTF_KIND_TYPEDEF) > 0;
	btf__free(vmlinux);
	return ok;
}

static struct bpf_program *const *rfs_core_progs(struct rfs_core *skel,
						  size_t *n)
{
	static struct bpf_program *progs[16];
	size_t i = 0;

	progs[i++] = skel->progs.rfs_tp_recv;
	progs[i++] = skel->progs.rfs_tp_send;
	progs[i++] = skel->progs.rfs_kp_tcp_recv;
	progs[i++] = skel->progs.rfs_kp_tcp_send;
	progs[i++] = skel->progs.rfs_kp_udp_recv;
	progs[i++] = skel->progs.rfs_kp_udp_send;
	progs[i++] = skel->progs.rfs_kp_udp6_recv;
	progs[i++] = skel->progs.rfs_kp_udp6_send;
	*n = i;
	return progs;
}

static int rfs_attach_pin(struct rfs_dp *dp, struct bpf_program *prog,
			  struct bpf_link *link, char *err)
{
	const char *name = bpf_program__name(prog);
	char path[PATH_MAX];
	long e = libbpf_get_error(link);

	if (!link || e)
		return rfs_errf(err, e ? e : EINVAL, "can't attach %s: %s",
				name, strerror(e ? -e : EINVAL));
	if (rfs_path(path, "%s/links/%s", dp->base, name) ||
	    bpf_link__pin(link, path)) {
		e = errno;
		bpf_link__destroy(link);
		return rfs_errf(err, e, "can't pin link '%s': %s", path,
				strerror(e));
	}
	/* The pin keeps it attached once our fd is closed; unlinking the
	 * pin (with no fd left open anywhere) is what detaches it, since
	 * bpf_link_detach() refuses tracepoint links. */
	bpf_link__destroy(link);
	return 0;
}

static int rfs_dp_install_sock_table(struct rfs_dp *dp, __u32 entries,
				     char *err)
{
	__u32 zero = 0;
	int fd;

	fd = rfs_create_table(dp->globals_fd, RFS_MAP_SOCK_FLOWS,
			      "rfs_sock_entry_t", sizeof(rfs_sock_entry_t),
			      entries);
	if (fd < 0)
		return rfs_errf(err, fd, "can't create sock flow table of %u entries: %s",
				entries, strerror(-fd));
	if (bpf_map_update_elem(dp->sock_outer_fd, &zero, &fd, BPF_ANY)) {
		int e = errno;

		close(fd);
		return rfs_errf(err, e, "can't install sock flow table: %s",
				strerror(e));
	}
	dp->sock_flows_fd = fd;
	return rfs_pin_at(dp->base, fd, "maps", RFS_MAP_SOCK_FLOWS, err);
}

static int rfs_dp_create(struct rfs_dp *dp, const struct rfs_dp_opts *o,
			 char *err)
{
	struct rfs_core *skel;
	struct bpf_program *const *progs;
	size_t n_progs, i;
	bool use_tp;
	int cg_fd = -1, err_ = 0;
	__u32 zero = 0;
	__u32 entries = o->sock_flow_entries ? o->sock_flow_entries :
					       RFS_SOCK_FLOW_DEFAULT;

	if (rfs_check_pow2(entries, RFS_SOCK_FLOW_MIN, RFS_SOCK_FLOW_MAX))
		return rfs_errf(err, EINVAL,
				"sock_flow_entries %u is not a power of two (%u..%u)",
				entries, RFS_SOCK_FLOW_MIN, RFS_SOCK_FLOW_MAX);

	switch (o->trace_mode) {
	case RFS_TRACE_TP_BTF:
		use_tp = true;
		break;
	case RFS_TRACE_KPROBE:
		use_tp = false;
		break;
	default:
		use_tp = rfs_kernel_has_tp_btf();
		break;
	}
	dp->trace_mode = use_tp ? RFS_TRACE_TP_BTF : RFS_TRACE_KPROBE;

	skel = rfs_core__open();
	if (!skel)
		return rfs_errf(err, errno, "can't open the core BPF object: %s",
				strerror(errno));
	progs = rfs_core_progs(skel, &n_progs);
	for (i = 0; i < n_progs; i++) {
		bool tp = i < 2;

		bpf_program__set_autoload(progs[i], tp == use_tp);
	}
	err_ = rfs_core__load(skel);
	if (err_) {
		err_ = rfs_errf(err, err_, "can't load the core BPF programs: %s (run with -v for the verifier log)",
				strerror(-err_));
		goto out;
	}

	dp->globals_fd = dup(bpf_map__fd(skel->maps.rfs_globals));
	dp->sock_outer_fd = dup(bpf_map__fd(skel->maps.rfs_sock_outer));
	dp->cpu_queues_fd = dup(bpf_map__fd(skel->maps.rfs_cpu_queues));
	dp->cpu_map_fd = dup(bpf_map__fd(skel->maps.rfs_cpu_map));
	dp->gstats_fd = dup(bpf_map__fd(skel->maps.rfs_gstats));
	dp->tx_seq_fd = dup(bpf_map__fd(skel->maps.rfs_tx_seq));
	dp->rx_track_fd = dup(bpf_map__fd(skel->maps.rfs_rx_track));
	dp->cpumap_prog_fd = dup(bpf_program__fd(skel->progs.rfs_cpumap));

	/* Batch epochs start at 1: delivered = 0 then proves nothing. */
	for (i = 0; i < (size_t)dp->nr_cpus; i++) {
		struct rfs_cpu_queue q = { .epoch = 1 };
		__u32 cpu = i;

		if (bpf_map_update_elem(dp->cpu_queues_fd, &cpu, &q, BPF_ANY)) {
			err_ = rfs_errf(err, errno, "can't write %s: %s",
					RFS_MAP_CPU_QUEUES, strerror(errno));
			goto out;
		}
	}
	dp->globals.sock_flow_mask = entries - 1;
	dp->globals.cpu_mask = rfs_cpu_mask_for(dp->nr_cpus);
	dp->globals.nr_cpus = dp->nr_cpus;
	dp->globals.cpumap_id = rfs_obj_id(dp->cpu_map_fd);
	if (getrandom(&dp->globals.hash_seed, sizeof(dp->globals.hash_seed), 0) < 0)
		dp->globals.hash_seed = (__u32)getpid() * 2654435761u;
	if (bpf_map_update_elem(dp->globals_fd, &zero, &dp->globals, BPF_ANY)) {
		err_ = rfs_errf(err, errno, "can't write %s: %s",
				RFS_MAP_GLOBALS, strerror(errno));
		goto out;
	}

	err_ = rfs_pin_at(dp->base, dp->globals_fd, "maps", RFS_MAP_GLOBALS, err) ?:
	       rfs_pin_at(dp->base, dp->sock_outer_fd, "maps", RFS_MAP_SOCK_OUTER, err) ?:
	       rfs_pin_at(dp->base, dp->cpu_queues_fd, "maps", RFS_MAP_CPU_QUEUES, err) ?:
	       rfs_pin_at(dp->base, dp->cpu_map_fd, "maps", RFS_MAP_CPUMAP, err) ?:
	       rfs_pin_at(dp->base, dp->gstats_fd, "maps", RFS_MAP_GSTATS, err) ?:
	       rfs_pin_at(dp->base, dp->tx_seq_fd, "maps", RFS_MAP_TX_SEQ, err) ?:
	       rfs_pin_at(dp->base, dp->rx_track_fd, "maps", RFS_MAP_RX_TRACK, err) ?:
	       rfs_pin_at(dp->base, dp->cpumap_prog_fd, "progs", "rfs_cpumap", err) ?:
	       rfs_dp_install_sock_table(dp, entries, err) ?:
	       rfs_dp_sync_cpumap(dp, err);
	if (err_)
		goto out;

	cg_fd = open(dp->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg_fd < 0) {
		err_ = rfs_errf(err, errno, "can't open cgroup '%s': %s",
				dp->cgroup, strerror(errno));
		goto out;
	}
	err_ = rfs_attach_pin(dp, skel->progs.rfs_sockops,
			      bpf_program__attach_cgroup(skel->progs.rfs_sockops,
							 cg_fd), err) ?:
	       rfs_attach_pin(dp, skel->progs.rfs_enqueue,
			      bpf_program__attach(skel->progs.rfs_enqueue), err);
	/* The delivery proof goes in before any XDP program can steer. */
	if (!err_)
		err_ = rfs_attach_pin(dp, skel->progs.rfs_kthread_batch,
				      bpf_program__attach(skel->progs.rfs_kthread_batch), err);
	for (i = 0; !err_ && i < n_progs; i++) {
		struct bpf_link *l;

		if (!bpf_program__autoload(progs[i]))
			continue;
		l = bpf_program__attach(progs[i]);
		/* udpv6_* is absent when IPv6 is built as a module not
		 * loaded: steer what we can and say so. */
		if (!use_tp && libbpf_get_error(l) &&
		    strstr(bpf_program__name(progs[i]), "udp6")) {
			pr_warn("can't attach %s: %s; IPv6 UDP flows won't be recorded\n",
				bpf_program__name(progs[i]),
				strerror(-(int)libbpf_get_error(l)));
			continue;
		}
		err_ = rfs_attach_pin(dp, progs[i], l, err);
	}
out:
	if (cg_fd >= 0)
		close(cg_fd);
	rfs_core__destroy(skel);
	return err_;
}

static int rfs_dp_adopt(struct rfs_dp *dp, char *err)
{
	char path[PATH_MAX], why[RFS_ERR_LEN];
	struct dirent *de;
	__u32 zero = 0;
	DIR *d;
	int fd, e;

	dp->globals_fd = rfs_get_pinned(dp->base, "maps", RFS_MAP_GLOBALS);
	dp->sock_outer_fd = rfs_get_pinned(dp->base, "maps", RFS_MAP_SOCK_OUTER);
	dp->sock_flows_fd = rfs_get_pinned(dp->base, "maps", RFS_MAP_SOCK_FLOWS);
	dp->cpu_queues_fd = rfs_get_pinned(dp->base, "maps", RFS_MAP_CPU_QUEUES);
	dp->cpu_map_fd = rfs_get_pinned(dp->base, "maps", RFS_MAP_CPUMAP);
	dp->gstats_fd = rfs_get_pinned(dp->base, "maps", RFS_MAP_GSTATS);
	dp->tx_seq_fd = rfs_get_pinned(dp->base, "maps", RFS_MAP_TX_SEQ);
	dp->rx_track_fd = rfs_get_pinned(dp->base, "maps", RFS_MAP_RX_TRACK);
	dp->cpumap_prog_fd = rfs_get_pinned(dp->base, "progs", "rfs_cpumap");
	{
		const struct rfs_map_check maps[] = {
			{ dp->globals_fd, RFS_MAP_GLOBALS, sizeof(struct rfs_globals) },
			{ dp->sock_flows_fd, RFS_MAP_SOCK_FLOWS, sizeof(rfs_sock_entry_t) },
			{ dp->cpu_queues_fd, RFS_MAP_CPU_QUEUES, sizeof(struct rfs_cpu_queue) },
			{ dp->gstats_fd, RFS_MAP_GSTATS, sizeof(struct rfs_global_stats) },
			{ dp->tx_seq_fd, RFS_MAP_TX_SEQ, sizeof(struct rfs_tx_seq) },
			{ dp->rx_track_fd, RFS_MAP_RX_TRACK, sizeof(struct rfs_rx_track) },
		};

		e = rfs_check_maps(maps, sizeof(maps) / sizeof(maps[0]), err);
	}
	if (e)
		return rfs_errf(err, e,
				"%s; under '%s' (stop the rfsd using it, run rfsd --cleanup --pin-dir %s, or pick another --pin-dir)",
				(snprintf(why, sizeof(why), "%s", err), why),
				dp->base, dp->pin_dir);
	if (dp->globals_fd < 0 || dp->sock_outer_fd < 0 ||
	    dp->sock_flows_fd < 0 || dp->cpu_queues_fd < 0 ||
	    dp->cpu_map_fd < 0 || dp->gstats_fd < 0 || dp->tx_seq_fd < 0 ||
	    dp->rx_track_fd < 0 ||
	    dp->cpumap_prog_fd < 0)
		return rfs_errf(err, ENOENT,
				"pinned datapath under '%s' is incomplete; remove it or run rfsd with another --pin-dir",
				dp->base);
	if (bpf_map_lookup_elem(dp->globals_fd, &zero, &dp->globals))
		return rfs_errf(err, errno, "can't read %s: %s",
				RFS_MAP_GLOBALS, strerror(errno));
	if (dp->globals.nr_cpus != (__u32)dp->nr_cpus)
		return rfs_errf(err, EINVAL,
				"pinned datapath was made for %u CPUs, this system has %d",
				dp->globals.nr_cpus, dp->nr_cpus);

	fd = rfs_get_pinned(dp->base, "links", "rfs_tp_recv");
	dp->trace_mode = fd >= 0 ? RFS_TRACE_TP_BTF : RFS_TRACE_KPROBE;
	if (fd >= 0)
		close(fd);
	if (rfs_dp_sync_cpumap(dp, err))
		return -EIO;

	if (rfs_path(path, "%s/if", dp->base))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		/* one adopted under its new name is seen again here */
		if (de->d_name[0] == '.' || rfs_dp_if_find(dp, de->d_name))
			continue;
		e = rfs_if_adopt(dp, de->d_name, why);
		if (e == -EPROTO) {
			closedir(d);
			return rfs_errf(err, e,
					"%s (stop the rfsd using it, run rfsd --cleanup --pin-dir %s, or pick another --pin-dir)",
					why, dp->pin_dir);
		}
		if (e)
			pr_warn("%s\n", why);
	}
	closedir(d);
	return 0;
}

static void rfs_dp_fill_ids(struct rfs_dp *dp)
{
	static const struct {
		const char *link;
		size_t off;
	} links[] = {
		{ "rfs_enqueue", offsetof(struct rfs_dp_prog_ids, enqueue) },
		{ "rfs_sockops", offsetof(struct rfs_dp_prog_ids, sockops) },
		{ "rfs_tp_recv", offsetof(struct rfs_dp_prog_ids, recv) },
		{ "rfs_tp_send", offsetof(struct rfs_dp_prog_ids, send) },
		{ "rfs_kp_tcp_recv", offsetof(struct rfs_dp_prog_ids, recv) },
		{ "rfs_kp_tcp_send", offsetof(struct rfs_dp_prog_ids, send) },
	};
	size_t i;

	dp->ids.cpumap = rfs_obj_id(dp->cpumap_prog_fd);
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		int fd = rfs_get_pinned(dp->base, "links", links[i].link);

		if (fd < 0)
			continue;
		*(__u32 *)((char *)&dp->ids + links[i].off) =
			rfs_prog_id_of_link(fd);
		close(fd);
	}
}

/*
 * A datapath pinned by a build with another pin layout (v1/, v3/ ... next
 * to our v2/): it would keep steering beside a new one, both holding the
 * interfaces' XDP hooks.  Refused with what to do; no migration: the
 * layouts differ in what the programs record.
 */
static int rfs_other_layout(struct rfs_dp *dp, char *err)
{
	struct dirent *de;
	int e = 0;
	DIR *d;

	d = opendir(dp->pin_dir);
	if (!d)
		return 0;
	while (!e && (de = readdir(d))) {
		if (de->d_name[0] != 'v' || de->d_name[1] < '0' ||
		    de->d_name[1] > '9' || !strcmp(de->d_name, RFS_PIN_LAYOUT))
			continue;
		e = rfs_errf(err, EPROTO,
			     "pin dir '%s' holds a datapath of pin layout %s (another build of xdp-rfs); this build uses %s: stop it, run rfsd --cleanup --pin-dir %s, then start again",
			     dp->pin_dir, de->d_name, RFS_PIN_LAYOUT,
			     dp->pin_dir);
	}
	closedir(d);
	return e;
}

int rfs_dp_open(struct rfs_dp **out, const struct rfs_dp_opts *o,
		bool *adopted, char *err)
{
	struct rfs_dp *dp;
	char path[PATH_MAX];
	int e, n;

	*out = NULL;
	if (adopted)
		*adopted = false;
	dp = calloc(1, sizeof(*dp));
	if (!dp)
		return rfs_errf(err, ENOMEM, "out of memory");
	dp->lock_fd = dp->globals_fd = dp->sock_outer_fd = dp->sock_flows_fd = -1;
	dp->cpu_queues_fd = dp->cpu_map_fd = dp->gstats_fd = -1;
	dp->tx_seq_fd = dp->rx_track_fd = -1;
	dp->cpumap_prog_fd = -1;
	snprintf(dp->pin_dir, sizeof(dp->pin_dir), "%s",
		 o->pin_dir ? o->pin_dir : RFS_PIN_DIR_DEFAULT);
	snprintf(dp->cgroup, sizeof(dp->cgroup), "%s",
		 o->cgroup ? o->cgroup : "/sys/fs/cgroup");
	dp->qsize = o->cpumap_qsize ? o->cpumap_qsize : RFS_CPUMAP_QSIZE;
	if (rfs_path(dp->base, "%s/%s", dp->pin_dir, RFS_PIN_LAYOUT)) {
		e = rfs_errf(err, ENAMETOOLONG, "pin dir too long");
		goto fail;
	}
	n = libbpf_num_possible_cpus();
	if (n <= 0) {
		e = rfs_errf(err, n ? n : EINVAL, "can't count possible CPUs");
		goto fail;
	}
	dp->nr_cpus = n > RFS_MAX_CPUS ? RFS_MAX_CPUS : n;
	if (n > RFS_MAX_CPUS)
		pr_warn("%d possible CPUs: steering only to the first %d\n", n,
			RFS_MAX_CPUS);
	e = rfs_cpuset_online(&dp->online);
	if (e) {
		e = rfs_errf(err, e, "can't read online CPUs: %s", strerror(-e));
		goto fail;
	}

	e = rfs_pin_ensure_bpffs(dp->pin_dir, err, RFS_ERR_LEN);
	if (e)
		goto fail;
	e = rfs_pin_mkdirs(dp->pin_dir);
	if (e) {
		e = rfs_errf(err, e, "can't create pin dir '%s': %s",
			     dp->pin_dir, strerror(-e));
		goto fail;
	}
	dp->lock_fd = rfs_pin_lock(dp->pin_dir);
	if (dp->lock_fd < 0) {
		e = rfs_errf(err, dp->lock_fd,
			     dp->lock_fd == -EBUSY ?
			     "pin dir '%s' is in use by another rfsd" :
			     "can't lock pin dir '%s': %s",
			     dp->pin_dir, strerror(-dp->lock_fd));
		dp->lock_fd = -1;
		goto fail;
	}

	if (rfs_path(path, "%s/maps/%s", dp->base, RFS_MAP_GLOBALS)) {
		e = rfs_errf(err, ENAMETOOLONG, "pin dir '%s' too long", dp->pin_dir);
		goto fail;
	}
	if (rfs_pin_exists(path)) {
		e = rfs_dp_adopt(dp, err);
		if (e)
			goto fail;
		if (adopted)
			*adopted = true;
	} else if ((e = rfs_other_layout(dp, err))) {
		goto fail;
	} else {
		static const char *const dirs[] = { "maps", "links", "progs", "if" };
		size_t i;

		for (i = 0; i < 4; i++) {
			if (rfs_path(path, "%s/%s", dp->base, dirs[i]) ||
			    rfs_pin_mkdirs(path)) {
				e = rfs_errf(err, errno, "can't create '%s': %s",
					     path, strerror(errno));
				goto fail;
			}
		}
		e = rfs_dp_create(dp, o, err);
		if (e) {
			rfs_dp_close(dp, true);
			return e;
		}
	}
	rfs_dp_fill_ids(dp);
	*out = dp;
	return 0;
fail:
	rfs_dp_close(dp, false);
	return e ? e : -EINVAL;
}

static void rfs_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Detach every link we pinned where the kernel allows it (cgroup links);
 * the rest go when their pins are removed. */
static void rfs_dp_detach_links(struct rfs_dp *dp)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (rfs_path(path, "%s/links", dp->base))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		int fd;

		if (de->d_name[0] == '.')
			continue;
		fd = rfs_get_pinned(dp->base, "links", de->d_name);
		if (fd >= 0) {
			bpf_link_detach(fd);
			close(fd);
		}
	}
	closedir(d);
}

void rfs_dp_close(struct rfs_dp *dp, bool teardown)
{
	char why[RFS_ERR_LEN];
	__u32 cpu;

	if (!dp)
		return;
	if (teardown) {
		while (dp->n_ifs) {
			struct rfs_if *ifc = dp->ifs[dp->n_ifs - 1];

			if (rfs_if_detach(dp, ifc, why)) {
				pr_warn("%s\n", why);
				rfs_dp_if_remove(dp, ifc);
			}
		}
		rfs_dp_detach_links(dp);
		/* Empty the cpumap: that stops its kthreads now. */
		for (cpu = 0; dp->cpu_map_fd >= 0 && cpu < (__u32)dp->nr_cpus; cpu++)
			bpf_map_delete_elem(dp->cpu_map_fd, &cpu);
		rfs_pin_remove_tree(dp->pin_dir);
	} else {
		while (dp->n_ifs)
			rfs_dp_if_remove(dp, dp->ifs[dp->n_ifs - 1]);
	}
	free(dp->ifs);
	rfs_close_fd(&dp->globals_fd);
	rfs_close_fd(&dp->sock_outer_fd);
	rfs_close_fd(&dp->sock_flows_fd);
	rfs_close_fd(&dp->cpu_queues_fd);
	rfs_close_fd(&dp->cpu_map_fd);
	rfs_close_fd(&dp->gstats_fd);
	rfs_close_fd(&dp->tx_seq_fd);
	rfs_close_fd(&dp->rx_track_fd);
	rfs_close_fd(&dp->cpumap_prog_fd);
	rfs_close_fd(&dp->lock_fd);
	free(dp);
}

__u32 rfs_dp_sock_flow_entries(const struct rfs_dp *dp)
{
	return dp->globals.sock_flow_mask + 1;
}

int rfs_dp_nr_cpus(const struct rfs_dp *dp)
{
	return dp->nr_cpus;
}

const char *rfs_dp_pin_dir(const struct rfs_dp *dp)
{
	return dp->pin_dir;
}

const char *rfs_dp_cgroup(const struct rfs_dp *dp)
{
	return dp->cgroup;
}

enum rfs_trace_mode rfs_dp_trace_mode(const struct rfs_dp *dp)
{
	return dp->trace_mode;
}

void rfs_dp_prog_ids(const struct rfs_dp *dp, struct rfs_dp_prog_ids *ids)
{
	*ids = dp->ids;
}

/*
 * Entries the socket programs wrote into the old table between the copy
 * and the swap: once no program can still write it (an RCU grace period,
 * via membarrier), copy each changed one into the new table where the new
 * slot still holds what the copy put there.  Entries are hints (where an
 * application last ran); a write racing this one costs one flow its hint
 * until its next recv or send, never order.
 */
static void rfs_sock_resize_catch_up(int old_fd, const rfs_sock_entry_t *copied,
				     __u32 old_n, int new_fd,
				     const rfs_sock_entry_t *filled, __u32 n)
{
	rfs_sock_entry_t *now = calloc(old_n, sizeof(*now));
	rfs_sock_entry_t cur;
	__u32 k, j;

	if (!now)
		return;
	rfs_wait_rcu();
	if (rfs_read_array(old_fd, sizeof(*now), old_n, now))
		goto out;
	for (k = 0; k < old_n; k++) {
		if (now[k] == copied[k] || !now[k])
			continue;
		/* growing: every new slot that folds onto k had its copy */
		for (j = k & (n - 1); j < n; j += old_n)
			if (!bpf_map_lookup_elem(new_fd, &j, &cur) &&
			    cur == filled[j])
				bpf_map_update_elem(new_fd, &j, &now[k], BPF_ANY);
	}
out:
	free(now);
}

/*
 * Resize the sock flow table.  Entries carry their hash's high bits, so
 * they move: growing, slot j of the new table takes old slot j & old_mask
 * (the same entries, just found under more index bits); shrinking, new
 * slot j takes the first non-empty of the old slots that fold onto it.
 * Order of the two writes: a mask must never index past the table in
 * the slot, so grow swaps the table first, shrink narrows the mask first.
 */
int rfs_dp_set_sock_flow_entries(struct rfs_dp *dp, __u32 n, char *err)
{
	__u32 old_n = rfs_dp_sock_flow_entries(dp), zero = 0, j, k;
	rfs_sock_entry_t *old_t = NULL, *new_t = NULL;
	int old_fd = dp->sock_flows_fd, new_fd = -1, e;
	struct rfs_globals g = dp->globals;

	if (rfs_check_pow2(n, RFS_SOCK_FLOW_MIN, RFS_SOCK_FLOW_MAX))
		return rfs_errf(err, EINVAL,
				"set sock-flow-entries: %u is not a power of two (%u..%u)",
				n, RFS_SOCK_FLOW_MIN, RFS_SOCK_FLOW_MAX);
	if (n == old_n)
		return 0;
	old_t = calloc(old_n, sizeof(*old_t));
	new_t = calloc(n, sizeof(*new_t));
	if (!old_t || !new_t) {
		e = rfs_errf(err, ENOMEM, "set sock-flow-entries: out of memory");
		goto out;
	}
	e = rfs_read_array(old_fd, sizeof(*old_t), old_n, old_t);
	if (e) {
		e = rfs_errf(err, e, "set sock-flow-entries: can't read the table: %s",
			     strerror(-e));
		goto out;
	}
	for (j = 0; j < n; j++) {
		if (n > old_n) {
			new_t[j] = old_t[j & (old_n - 1)];
			continue;
		}
		for (k = j; k < old_n && !new_t[j]; k += n)
			new_t[j] = old_t[k];
	}
	new_fd = rfs_create_table(dp->globals_fd, RFS_MAP_SOCK_FLOWS,
				  "rfs_sock_entry_t", sizeof(rfs_sock_entry_t), n);
	if (new_fd < 0) {
		e = rfs_errf(err, new_fd, "set sock-flow-entries: can't create a table of %u: %s",
			     n, strerror(-new_fd));
		goto out;
	}
	e = rfs_write_array(new_fd, sizeof(*new_t), n, new_t);
	if (e) {
		e = rfs_errf(err, e, "set sock-flow-entries: can't fill the table: %s",
			     strerror(-e));
		goto out;
	}
	g.sock_flow_mask = n - 1;
	if (n < old_n &&
	    bpf_map_update_elem(dp->globals_fd, &zero, &g, BPF_ANY))
		goto fail_errno;
	if (bpf_map_update_elem(dp->sock_outer_fd, &zero, &new_fd, BPF_ANY))
		goto fail_errno;
	if (n > old_n &&
	    bpf_map_update_elem(dp->globals_fd, &zero, &g, BPF_ANY))
		goto fail_errno;
	dp->globals = g;
	dp->sock_flows_fd = new_fd;
	new_fd = old_fd;	/* closed below */
	rfs_sock_resize_catch_up(old_fd, old_t, old_n, dp->sock_flows_fd,
				 new_t, n);
	e = rfs_pin_at(dp->base, dp->sock_flows_fd, "maps", RFS_MAP_SOCK_FLOWS, err);
	pr_info("sock flow table: %u -> %u entries\n", old_n, n);
	goto out;
fail_errno:
	e = rfs_errf(err, errno, "set sock-flow-entries: can't swap tables: %s",
		     strerror(errno));
out:
	if (new_fd >= 0)
		close(new_fd);
	free(old_t);
	free(new_t);
	return e;
}

int rfs_dp_read_gstats(const struct rfs_dp *dp, struct rfs_global_stats *out)
{
	return rfs_read_percpu(dp->gstats_fd, 0, sizeof(*out), out, dp->nr_cpus);
}

int rfs_dp_read_queues(const struct rfs_dp *dp, struct rfs_cpu_queue *out)
{
	return rfs_read_array(dp->cpu_queues_fd, sizeof(*out), dp->nr_cpus, out);
}

__u32 rfs_dp_desired_cpu(const struct rfs_dp *dp, __u32 hash)
{
	__u32 idx = hash & dp->globals.sock_flow_mask;
	rfs_sock_entry_t e;

	if (bpf_map_lookup_elem(dp->sock_flows_fd, &idx, &e))
		return RFS_NO_CPU;
	return rfs_sock_entry_cpu(e, hash, dp->globals.cpu_mask);
}

int rfs_dp_refresh_cpus(struct rfs_dp *dp, char *err)
{
	struct rfs_cpuset online;
	size_t i;
	int e;

	e = rfs_cpuset_online(&online);
	if (e)
		return rfs_errf(err, e, "can't read online CPUs: %s", strerror(-e));
	if (!rfs_cpuset_equal(&online, &dp->online)) {
		char was[256], now[256];

		rfs_cpulist_format(&dp->online, was, sizeof(was));
		rfs_cpulist_format(&online, now, sizeof(now));
		pr_info("online CPUs changed: %s -> %s\n", was, now);
	}
	dp->online = online;
	/* Interfaces first: no flow may be sent to a queue about to go. */
	for (i = 0; i < dp->n_ifs; i++)
		rfs_if_refresh(dp, dp->ifs[i]);
	return rfs_dp_sync_cpumap(dp, err);
}

size_t rfs_dp_if_count(const struct rfs_dp *dp)
{
	return dp->n_ifs;
}

struct rfs_if *rfs_dp_if_at(struct rfs_dp *dp, size_t i)
{
	return i < dp->n_ifs ? dp->ifs[i] : NULL;
}

struct rfs_if *rfs_dp_if_find(struct rfs_dp *dp, const char *name)
{
	size_t i;

	for (i = 0; i < dp->n_ifs; i++)
		if (!strcmp(dp->ifs[i]->name, name))
			return dp->ifs[i];
	return NULL;
}

struct rfs_if *rfs_dp_if_find_index(struct rfs_dp *dp, int ifindex)
{
	size_t i;

	for (i = 0; i < dp->n_ifs; i++)
		if (!dp->ifs[i]->no_attach && dp->ifs[i]->ifindex == ifindex)
			return dp->ifs[i];
	return NULL;
}

void rfs_dp_if_remove(struct rfs_dp *dp, struct rfs_if *ifc)
{
	size_t i;

	for (i = 0; i < dp->n_ifs; i++) {
		if (dp->ifs[i] != ifc)
			continue;
		memmove(&dp->ifs[i], &dp->ifs[i + 1],
			(dp->n_ifs - i - 1) * sizeof(dp->ifs[0]));
		dp->n_ifs--;
		break;
	}
	rfs_if_free(ifc);
}
