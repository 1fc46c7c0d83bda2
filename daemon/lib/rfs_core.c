// SPDX-License-Identifier: GPL-2.0
/*
 * The core BPF object and its maps: loaded, written and pinned once, then
 * only ever handled through the pins, so a new rfsd adopts exactly what
 * an old one left running.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "parse.h"
#include "rfs_core.skel.h"
#include "rfs_decide.h"
#include "rfs_dp_int.h"

static __u32 rfs_prog_id_of_link(int link_fd)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(link_fd, &info, &len))
		return 0;
	return info.prog_id;
}

/* The core's pinned objects; value sizes are checked at adopt (0: not). */
static const struct {
	const char *dir, *name;
	size_t fd;		/* offsetof(struct rfs_dp, its fd) */
	__u32 value_size;
} rfs_core_pins[] = {
#define M(name, fd, size) { "maps", name, offsetof(struct rfs_dp, fd), size }
	M(RFS_MAP_GLOBALS, globals_fd, sizeof(struct rfs_globals)),
	M(RFS_MAP_SOCK_OUTER, sock_outer_fd, 0),
	M(RFS_MAP_SOCK_FLOWS, sock_flows_fd, sizeof(rfs_sock_entry_t)),
	M(RFS_MAP_CPU_QUEUES, cpu_queues_fd, sizeof(struct rfs_cpu_queue)),
	M(RFS_MAP_CPUMAP, cpu_map_fd, 0),
	M(RFS_MAP_GSTATS, gstats_fd, sizeof(struct rfs_global_stats)),
	M(RFS_MAP_TX_SEQ, tx_seq_fd, sizeof(struct rfs_tx_seq)),
	M(RFS_MAP_RX_TRACK, rx_track_fd, sizeof(struct rfs_rx_track)),
#undef M
	{ "progs", "rfs_cpumap", offsetof(struct rfs_dp, cpumap_prog_fd), 0 },
};
#define RFS_CORE_PINS	(sizeof(rfs_core_pins) / sizeof(rfs_core_pins[0]))

static int *rfs_core_fd(struct rfs_dp *dp, size_t i)
{
	return (int *)((char *)dp + rfs_core_pins[i].fd);
}

void rfs_core_reset_fds(struct rfs_dp *dp, bool close_them)
{
	size_t i;

	for (i = 0; i < RFS_CORE_PINS; i++) {
		if (close_them && *rfs_core_fd(dp, i) >= 0)
			close(*rfs_core_fd(dp, i));
		*rfs_core_fd(dp, i) = -1;
	}
}

/* The trace mode that loads a socket-side program (or link), by its
 * name's prefix; RFS_TRACE_NONE for the other programs. */
static enum rfs_trace_mode rfs_sock_prog_mode(const char *n)
{
	return !strncmp(n, "rfs_tp_", 7) ? RFS_TRACE_TP_BTF :
	       !strncmp(n, "rfs_fx_", 7) ? RFS_TRACE_FEXIT :
	       !strncmp(n, "rfs_kp_", 7) ? RFS_TRACE_KPROBE : RFS_TRACE_NONE;
}

/* BTF for fn in vmlinux or the ipv6 module?  An fexit program whose
 * target has none fails the whole object. */
static bool rfs_core_btf_func(const char *fn)
{
	struct btf *vmlinux = btf__load_vmlinux_btf(), *mod;
	bool found;

	if (!vmlinux)
		return false;
	found = btf__find_by_name_kind(vmlinux, fn, BTF_KIND_FUNC) > 0;
	if (!found) {
		mod = btf__parse_split("/sys/kernel/btf/ipv6", vmlinux);
		found = mod && btf__find_by_name_kind(mod, fn, BTF_KIND_FUNC) > 0;
		btf__free(mod);
	}
	btf__free(vmlinux);
	return found;
}

/* The socket hooks asked for, or the best the kernel has: tracepoints,
 * then fexit (only calls that moved data), then kprobes (every call).
 * RFS_TRACE_AUTO: none works. */
static enum rfs_trace_mode rfs_core_pick_mode(const struct rfs_kfeatures *f,
					      enum rfs_trace_mode asked)
{
	if (asked != RFS_TRACE_AUTO)
		return asked;
	if (f->tp_sock_len)
		return RFS_TRACE_TP_BTF;
	if (f->fentry && f->func_ret)
		return RFS_TRACE_FEXIT;
	if (f->kprobes)
		return RFS_TRACE_KPROBE;
	return RFS_TRACE_AUTO;
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
	/* the pin keeps it attached; removing the pin detaches it, as
	 * bpf_link_detach() refuses tracepoint links */
	bpf_link__destroy(link);
	return 0;
}

static const char rfs_kprobe_hint[] =
	"under systemd allow it in a drop-in: SystemCallFilter=perf_event_open (docs/operations.md)";

/* Undo the socket hooks' pins made so far. */
static void rfs_core_unpin_sock(const struct rfs_dp *dp, struct bpf_object *o)
{
	struct bpf_program *p;
	char path[PATH_MAX];

	bpf_object__for_each_program(p, o)
		if (rfs_sock_prog_mode(bpf_program__name(p)) != RFS_TRACE_NONE &&
		    !rfs_path(path, "%s/links/%s", dp->base, bpf_program__name(p)))
			unlink(path);
}

static int rfs_core_load(const struct rfs_dp *dp,
			 const struct rfs_kfeatures *f,
			 enum rfs_trace_mode mode, struct rfs_core **out,
			 char *err)
{
	struct bpf_program *p;
	struct rfs_core *skel;
	int e;

	*out = NULL;
	skel = rfs_core__open();
	if (!skel)
		return rfs_errf(err, errno, "can't open the core BPF object: %s",
				strerror(errno));
	bpf_object__for_each_program(p, skel->obj) {
		enum rfs_trace_mode m = rfs_sock_prog_mode(bpf_program__name(p));
		bool load = m == mode;

		if (m == RFS_TRACE_NONE)
			continue;

		/* udpv6_* has no BTF while the ipv6 module is not loaded:
		 * steer what we can and say so (kprobes: at attach) */
		if (load && mode == RFS_TRACE_FEXIT &&
		    !rfs_core_btf_func(bpf_program__section_name(p) +
				       strlen("fexit/"))) {
			pr_warn("can't load %s: no BTF for %s (ipv6 not loaded?); IPv6 UDP flows won't be recorded\n",
				bpf_program__name(p),
				bpf_program__section_name(p) + strlen("fexit/"));
			load = false;
		}
		bpf_program__set_autoload(p, load);
	}
	/* without them flows stay in order, only less mobile; loading them
	 * would fail the whole object */
	if (!(f->tp_kthread && f->kthread_data))
		bpf_program__set_autoload(skel->progs.rfs_kthread_batch, false);
	if (!f->tp_enqueue)
		bpf_program__set_autoload(skel->progs.rfs_enqueue, false);
	/* one track per (target, possible RX CPU): rfs_rx_track_index() */
	e = bpf_map__set_max_entries(skel->maps.rfs_rx_track,
				     rfs_rx_track_entries(dp->nr_cpus,
							  dp->nr_rx_cpus));
	if (!e)
		e = rfs_core__load(skel);
	if (e) {
		rfs_core__destroy(skel);
		return rfs_errf(err, e, "can't load the core BPF programs%s: %s (run with -v for the verifier log)",
				mode == RFS_TRACE_FEXIT ? " with fexit socket hooks" : "",
				strerror(-e));
	}
	*out = skel;
	return 0;
}

int rfs_core_create(struct rfs_dp *dp, const struct rfs_dp_opts *o,
		    char *err)
{
	const struct rfs_kfeatures *f = &dp->feat;
	enum rfs_trace_mode mode;
	struct bpf_program *p;
	struct rfs_core *skel;
	int cg_fd = -1, err_ = 0;
	size_t i;
	__u32 zero = 0;
	__u32 entries = o->sock_flow_entries ? o->sock_flow_entries :
					       RFS_SOCK_FLOW_DEFAULT;

	if (rfs_check_pow2(entries, RFS_SOCK_FLOW_MIN, RFS_SOCK_FLOW_MAX))
		return rfs_errf(err, EINVAL,
				"sock_flow_entries %u is not a power of two (%u..%u)",
				entries, RFS_SOCK_FLOW_MIN, RFS_SOCK_FLOW_MAX);

	mode = rfs_core_pick_mode(f, o->trace_mode);
	dp->trace_mode = mode == RFS_TRACE_AUTO ? RFS_TRACE_NONE : mode;
	if (mode == RFS_TRACE_FEXIT && !(f->fentry && f->func_ret))
		return rfs_errf(err, EOPNOTSUPP,
				"can't use trace mode 'fexit': %s; use auto, tp_btf or kprobe",
				!f->fentry ? "this kernel can't attach fentry/fexit programs (no BPF trampolines)" :
					     "this kernel has no bpf_get_func_ret helper (5.17+)");

	err_ = rfs_core_load(dp, f, mode, &skel, err);
	/* auto: fexit that doesn't load here (a verifier or a target the
	 * checks above can't see) leaves kprobes, as before fexit */
	if (err_ && o->trace_mode == RFS_TRACE_AUTO &&
	    mode == RFS_TRACE_FEXIT && f->kprobes) {
		pr_warn("%s; the socket hooks use kprobes instead of fexit\n",
			err);
		mode = dp->trace_mode = RFS_TRACE_KPROBE;
		err_ = rfs_core_load(dp, f, mode, &skel, err);
	}
	if (err_)
		return err_;
	for (i = 0; i < RFS_CORE_PINS; i++) {
		const char *name = rfs_core_pins[i].name;
		struct bpf_map *m = bpf_object__find_map_by_name(skel->obj, name);

		if (m)
			*rfs_core_fd(dp, i) = dup(bpf_map__fd(m));
	}
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
	dp->globals.cpu_mask = rfs_sock_cpu_mask(dp->nr_cpus);
	dp->globals.nr_cpus = dp->nr_cpus;
	dp->globals.nr_rx_cpus = dp->nr_rx_cpus;
	dp->globals.cpumap_id = rfs_obj_id(dp->cpu_map_fd);
	err_ = rfs_seed_random(&dp->globals.hash_seed, err, RFS_ERR_LEN);
	if (err_)
		goto out;
	if (bpf_map_update_elem(dp->globals_fd, &zero, &dp->globals, BPF_ANY)) {
		err_ = rfs_errf(err, errno, "can't write %s: %s",
				RFS_MAP_GLOBALS, strerror(errno));
		goto out;
	}

	dp->sock_flows_fd = rfs_socktab_create(dp->globals_fd, dp->sock_outer_fd,
					       entries, err);
	err_ = dp->sock_flows_fd < 0 ? dp->sock_flows_fd : 0;
	for (i = 0; !err_ && i < RFS_CORE_PINS; i++)
		err_ = rfs_pin_at(dp->base, *rfs_core_fd(dp, i),
				  rfs_core_pins[i].dir, rfs_core_pins[i].name, err);
	err_ = err_ ?: rfs_cpumap_sync(dp, err);
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
							 cg_fd), err);
	if (!err_ && bpf_program__autoload(skel->progs.rfs_enqueue))
		err_ = rfs_attach_pin(dp, skel->progs.rfs_enqueue,
				      bpf_program__attach(skel->progs.rfs_enqueue), err);
	/* The delivery proof goes in before any XDP program can steer. */
	if (!err_ && bpf_program__autoload(skel->progs.rfs_kthread_batch))
		err_ = rfs_attach_pin(dp, skel->progs.rfs_kthread_batch,
				      bpf_program__attach(skel->progs.rfs_kthread_batch), err);
	bpf_object__for_each_program(p, skel->obj) {
		struct bpf_link *l;

		if (err_ || rfs_sock_prog_mode(bpf_program__name(p)) == RFS_TRACE_NONE ||
		    !bpf_program__autoload(p))
			continue;
		l = bpf_program__attach(p);
		/* kprobes this process may not attach (perf_event_open
		 * filtered out, as in the systemd unit): auto goes without
		 * socket hooks rather than without rfsd */
		if (mode == RFS_TRACE_KPROBE && libbpf_get_error(l) == -EPERM) {
			if (o->trace_mode != RFS_TRACE_AUTO) {
				err_ = rfs_errf(err, EPERM, "can't attach kprobes (perf_event_open: %s); %s",
						strerror(EPERM), rfs_kprobe_hint);
				break;
			}
			pr_warn("can't attach kprobes (perf_event_open: %s): no socket hooks, flows are spread by hash; %s\n",
				strerror(EPERM), rfs_kprobe_hint);
			rfs_core_unpin_sock(dp, skel->obj);
			dp->trace_mode = RFS_TRACE_NONE;
			break;
		}
		/* udpv6_* is absent when IPv6 is built as a module not
		 * loaded: steer what we can and say so. */
		if (mode == RFS_TRACE_KPROBE && libbpf_get_error(l) &&
		    strstr(bpf_program__name(p), "udp6")) {
			pr_warn("can't attach %s: %s; IPv6 UDP flows won't be recorded\n",
				bpf_program__name(p),
				strerror(-(int)libbpf_get_error(l)));
			continue;
		}
		err_ = rfs_attach_pin(dp, p, l, err);
	}
out:
	if (cg_fd >= 0)
		close(cg_fd);
	rfs_core__destroy(skel);
	return err_;
}

int rfs_core_adopt(struct rfs_dp *dp, char *err)
{
	char why[RFS_ERR_LEN];
	bool incomplete = false;
	__u32 zero = 0;
	int e = 0;
	size_t i;

	for (i = 0; i < RFS_CORE_PINS; i++) {
		const struct rfs_map_check c = {
			rfs_get_pinned(dp->base, rfs_core_pins[i].dir,
				       rfs_core_pins[i].name),
			rfs_core_pins[i].name, rfs_core_pins[i].value_size,
		};

		*rfs_core_fd(dp, i) = c.fd;
		incomplete |= c.fd < 0;
		if (!e && c.value_size)
			e = rfs_check_maps(&c, 1, err);
	}
	if (e)
		return rfs_errf(err, e,
				"%s; under '%s' (stop the rfsd using it, run rfsd --cleanup --pin-dir %s, or pick another --pin-dir)",
				(snprintf(why, sizeof(why), "%s", err), why),
				dp->base, dp->pin_name);
	if (incomplete)
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
	if (dp->globals.nr_rx_cpus != (__u32)dp->nr_rx_cpus)
		return rfs_errf(err, EINVAL,
				"pinned datapath was made for %u possible CPUs, this system has %d",
				dp->globals.nr_rx_cpus, dp->nr_rx_cpus);

	if (rfs_cpumap_sync(dp, err))
		return -EIO;
	return 0;
}

void rfs_core_fill_ids(struct rfs_dp *dp)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	dp->ids.cpumap = rfs_obj_id(dp->cpumap_prog_fd);
	dp->trace_mode = RFS_TRACE_NONE;
	if (rfs_path(path, "%s/links", dp->base) || !(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		enum rfs_trace_mode m = rfs_sock_prog_mode(n);
		__u32 *id = !strcmp(n, "rfs_enqueue") ? &dp->ids.enqueue :
			    !strcmp(n, "rfs_sockops") ? &dp->ids.sockops : NULL;
		int fd;

		/* a mode's TCP hook (or tracepoint) stands for its socket
		 * hooks; the mode is the one whose links are pinned */
		if (m != RFS_TRACE_NONE) {
			dp->trace_mode = m;
			if (!strcmp(n + 7, "recv") || !strcmp(n + 7, "tcp_recv"))
				id = &dp->ids.recv;
			if (!strcmp(n + 7, "send") || !strcmp(n + 7, "tcp_send"))
				id = &dp->ids.send;
		}
		if (!id || (fd = rfs_get_pinned(dp->base, "links", n)) < 0)
			continue;
		*id = rfs_prog_id_of_link(fd);
		close(fd);
	}
	closedir(d);
}

/* Another layout's datapath (v1/ beside ours) would keep steering beside
 * ours on the same hooks: refused; the layouts record different things. */
int rfs_core_other_layout(const struct rfs_dp *dp, char *err)
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
			     dp->pin_name, de->d_name, RFS_PIN_LAYOUT,
			     dp->pin_name);
	}
	closedir(d);
	return e;
}

void rfs_core_detach_links(const struct rfs_dp *dp)
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
