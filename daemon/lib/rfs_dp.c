// SPDX-License-Identifier: GPL-2.0
/* The datapath: the core object and its maps, handled only through their
 * pins once made (rfs_dp.h); the cpumap, the sock flow table, the list of
 * interfaces, and the sweep of our orphans. */
#include <dirent.h>
#include <fcntl.h>
#include <net/if_arp.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "rfs_core.skel.h"
#include "rfs_dp.h"

/* ---- the sock flow table: in slot 0 of rfs_sock_outer, so a resize is
 * one swap; rfs_globals holds its mask ---- */

static int rfs_socktab_new(const struct rfs_dp *dp, __u32 entries)
{
	return rfs_create_table(dp->globals_fd, RFS_MAP_SOCK_FLOWS,
				"rfs_sock_entry_t", sizeof(rfs_sock_entry_t),
				entries);
}

/* Entries written into the old table between the copy and the swap:
 * once no program can still write it, copy each changed one where the
 * new slot still holds what the copy put there.  A write racing this
 * costs one flow its hint until its next recv or send, never order. */
static void rfs_sock_resize_catch_up(int old_fd, const rfs_sock_entry_t *copied,
				     __u32 old_n, int new_fd,
				     const rfs_sock_entry_t *filled, __u32 n)
{
	rfs_sock_entry_t *now, cur;
	__u32 k, j;

	rfs_wait_rcu();
	now = rfs_array_read(old_fd, sizeof(*now), old_n);
	for (k = 0; now && k < old_n; k++) {
		if (now[k] == copied[k] || !now[k])
			continue;
		/* growing: every new slot that folds onto k had its copy */
		for (j = k & (n - 1); j < n; j += old_n)
			if (!bpf_map_lookup_elem(new_fd, &j, &cur) &&
			    cur == filled[j])
				bpf_map_update_elem(new_fd, &j, &now[k], BPF_ANY);
	}
	free(now);
}

/* Entries carry their hash's high bits, so they move: growing, new slot
 * j takes old slot j & old_mask; shrinking, the first non-empty old slot
 * that folds onto j.  A mask must never index past the table in the
 * slot: grow swaps the table first, shrink narrows the mask first. */
int rfs_dp_set_sock_flow_entries(struct rfs_dp *dp, __u32 n, char *err)
{
	__u32 old_n = dp->globals.sock_flow_mask + 1, zero = 0, j, k;
	rfs_sock_entry_t *old_t = NULL, *new_t = NULL;
	int old_fd = dp->sock_flows_fd, new_fd = -1, e = -ENOMEM;
	struct rfs_globals g = dp->globals;
	const char *step = "read the table";

	if (rfs_check_pow2(n, RFS_SOCK_FLOW_MIN, RFS_SOCK_FLOW_MAX))
		return rfs_errf(err, EINVAL,
				"set sock-flow-entries: %u is not a power of two (%u..%u)",
				n, RFS_SOCK_FLOW_MIN, RFS_SOCK_FLOW_MAX);
	if (n == old_n)
		return 0;
	new_t = calloc(n, sizeof(*new_t));
	old_t = new_t ? rfs_array_read(old_fd, sizeof(*old_t), old_n) : NULL;
	if (!old_t) {
		e = new_t ? -errno : -ENOMEM;
		goto fail;
	}
	for (j = 0; j < n; j++) {
		if (n > old_n) {
			new_t[j] = old_t[j & (old_n - 1)];
			continue;
		}
		for (k = j; k < old_n && !new_t[j]; k += n)
			new_t[j] = old_t[k];
	}
	step = "create the new table";
	e = new_fd = rfs_socktab_new(dp, n);
	if (e < 0)
		goto fail;
	step = "fill the new table";
	e = rfs_write_array(new_fd, sizeof(*new_t), n, new_t);
	if (e)
		goto fail;
	step = "swap tables";
	g.sock_flow_mask = n - 1;
	if ((n < old_n &&
	     bpf_map_update_elem(dp->globals_fd, &zero, &g, BPF_ANY)) ||
	    bpf_map_update_elem(dp->sock_outer_fd, &zero, &new_fd, BPF_ANY) ||
	    (n > old_n &&
	     bpf_map_update_elem(dp->globals_fd, &zero, &g, BPF_ANY))) {
		e = -errno;
		goto fail;
	}
	dp->globals = g;
	dp->sock_flows_fd = new_fd;
	new_fd = old_fd;	/* closed below */
	rfs_sock_resize_catch_up(old_fd, old_t, old_n, dp->sock_flows_fd,
				 new_t, n);
	pr_debug("sock flow table: %u -> %u entries\n", old_n, n);	/* callers say why */
	e = rfs_pin_at(dp->base, dp->sock_flows_fd, "maps",
		       RFS_MAP_SOCK_FLOWS, err);
	goto out;
fail:
	e = rfs_errf(err, e, "set sock-flow-entries: can't %s: %m", step);
out:
	if (new_fd >= 0)
		close(new_fd);
	free(old_t);
	free(new_t);
	return e;
}

__u32 rfs_dp_desired_cpu(const struct rfs_dp *dp, __u32 hash)
{
	return rfs_sock_desired_cpu(dp->sock_flows_fd, &dp->globals, hash);
}

/* ---- the cpumap: a queue (and kthread) per online CPU, kept in step with
 * hotplug on rfsd's timer, interfaces first ---- */

/* A CPU that goes offline keeps its entry: its kthread moves elsewhere
 * and keeps draining in order.  Unbound, it is made anew when the CPU is
 * back and no flow has frames in flight there: earlier, two kthreads
 * could hold the same CPU's frames. */
static int rfs_cpumap_sync(struct rfs_dp *dp, char *err)
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
					"can't add CPU %u to the cpumap: %m",
					cpu);
		if (present)
			pr_info("CPU %u: cpumap queue remade (back online)\n", cpu);
		rfs_cpuset_add(&dp->in_cpumap, cpu);
		rfs_cpuset_add(&dp->new_kthreads, cpu);
		dp->unbound.bits[cpu / 64] &= ~(1ULL << (cpu % 64));
	}
	return 0;
}

/* ---- the core object ---- */

static const struct rfs_pin rfs_core_pins[] = {
#define M(n, fd, size) { "maps", n, offsetof(struct rfs_dp, fd), size }
	M(RFS_MAP_GLOBALS, globals_fd, sizeof(struct rfs_globals)),
	M(RFS_MAP_SOCK_OUTER, sock_outer_fd, 0),
	M(RFS_MAP_SOCK_FLOWS, sock_flows_fd, sizeof(rfs_sock_entry_t)),
	M(RFS_MAP_CPU_QUEUES, cpu_queues_fd, sizeof(struct rfs_cpu_queue)),
	M(RFS_MAP_CPUMAP, cpu_map_fd, 0),
	M(RFS_MAP_GSTATS, gstats_fd, sizeof(struct rfs_global_stats)),
	M(RFS_MAP_TX_SEQ, tx_seq_fd, sizeof(struct rfs_tx_seq)),
	M(RFS_MAP_RX_TRACK, rx_track_fd, sizeof(struct rfs_rx_track)),
	M(RFS_MAP_SOCK_FULL, sock_full_fd, sizeof(__u64)),
#undef M
	{ "progs", "rfs_cpumap", offsetof(struct rfs_dp, cpumap_prog_fd), 0 },
};
#define RFS_CORE_PINS	(sizeof(rfs_core_pins) / sizeof(rfs_core_pins[0]))

/* A socket hook's trace mode, by its name's prefix, else RFS_TRACE_NONE. */
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

static int rfs_attach_pin(struct rfs_dp *dp, struct bpf_program *prog,
			  struct bpf_link *link, char *err)
{
	const char *name = bpf_program__name(prog);
	char path[PATH_MAX];
	long e = libbpf_get_error(link);

	if (!link || e)
		return rfs_errf(err, e ? e : EINVAL, "can't attach %s: %m",
				name);
	if (rfs_path(path, "%s/links/%s", dp->base, name) ||
	    bpf_link__pin(link, path)) {
		e = errno;
		bpf_link__destroy(link);
		return rfs_errf(err, e, "can't pin link '%s': %m", path);
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
		return rfs_errf(err, errno,
				"can't open the core BPF object: %m");
	bpf_object__for_each_program(p, skel->obj) {
		enum rfs_trace_mode m = rfs_sock_prog_mode(bpf_program__name(p));
		const char *fn =
			bpf_program__section_name(p) + strlen("fexit/");
		bool load = m == mode;

		if (m == RFS_TRACE_NONE)
			continue;
		/* udpv6_* is missing while the ipv6 module is not loaded:
		 * steer what we can and say so (kprobes: at attach) */
		if (load && mode == RFS_TRACE_FEXIT && !rfs_core_btf_func(fn)) {
			pr_warn("can't load %s: no BTF for %s (ipv6 not loaded?); IPv6 UDP flows won't be recorded\n",
				bpf_program__name(p), fn);
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
	/* early drop: the refused skb's own flow where the tracepoint has
	 * it, else the connected socket's */
	bpf_program__set_autoload(skel->progs.rfs_sock_full_mark,
				  f->tp_sock_full && f->tp_sock_full_skb);
	bpf_program__set_autoload(skel->progs.rfs_sock_full_conn,
				  f->tp_sock_full && !f->tp_sock_full_skb);
	/* one track per (target, possible RX CPU): rfs_rx_track_index() */
	e = bpf_map__set_max_entries(skel->maps.rfs_rx_track,
				     rfs_rx_track_entries(dp->nr_cpus,
							  dp->nr_rx_cpus));
	if (!e)
		e = rfs_core__load(skel);
	if (e) {
		rfs_core__destroy(skel);
		return rfs_errf(err, e, "can't load the core BPF programs%s: %m (run with -v for the verifier log)",
				mode == RFS_TRACE_FEXIT ? " with fexit socket hooks" : "");
	}
	*out = skel;
	return 0;
}

int rfs_seed_random(__u32 *seed, char *err)
{
	__u32 v;
	ssize_t n;

	/* flags 0: block until the pool is initialised rather than take
	 * early-boot bytes; a 4-byte read is never short once it is */
	do {
		n = getrandom(&v, sizeof(v), 0);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(v))
		return rfs_errf(err, n < 0 ? errno : EIO,
				"can't seed the flow hash: getrandom: %s; refusing to start with a predictable seed",
				n < 0 ? strerror(errno) : "short read");
	*seed = v;
	return 0;
}

/* The core object into an empty pin dir. */
static int rfs_core_create(struct rfs_dp *dp, const struct rfs_dp_opts *o,
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

	/* The socket hooks asked for, or the best the kernel has: tracepoints,
	 * then fexit (only calls that moved data), then kprobes (every call);
	 * RFS_TRACE_AUTO: none works. */
	mode = o->trace_mode != RFS_TRACE_AUTO ? o->trace_mode :
	       f->tp_sock_len ? RFS_TRACE_TP_BTF :
	       f->fentry && f->func_ret ? RFS_TRACE_FEXIT :
	       f->kprobes ? RFS_TRACE_KPROBE : RFS_TRACE_AUTO;
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
		int *fd = rfs_pin_fd(dp, &rfs_core_pins[i]);

		if (m)
			*fd = dup(bpf_map__fd(m));
	}
	dp->cpumap_prog_fd = dup(bpf_program__fd(skel->progs.rfs_cpumap));

	/* Batch epochs start at 1: delivered = 0 then proves nothing. */
	for (i = 0; i < (size_t)dp->nr_cpus; i++) {
		struct rfs_cpu_queue q = { .epoch = 1 };
		__u32 cpu = i;

		if (bpf_map_update_elem(dp->cpu_queues_fd, &cpu, &q, BPF_ANY)) {
			err_ = rfs_errf(err, errno, "can't write %s: %m",
					RFS_MAP_CPU_QUEUES);
			goto out;
		}
	}
	dp->globals.sock_flow_mask = entries - 1;
	dp->globals.cpu_mask = rfs_sock_cpu_mask(dp->nr_cpus);
	dp->globals.nr_cpus = dp->nr_cpus;
	dp->globals.nr_rx_cpus = dp->nr_rx_cpus;
	dp->globals.cpumap_id = rfs_obj_id(dp->cpu_map_fd);
	err_ = rfs_seed_random(&dp->globals.hash_seed, err);
	if (err_)
		goto out;
	if (bpf_map_update_elem(dp->globals_fd, &zero, &dp->globals, BPF_ANY)) {
		err_ = rfs_errf(err, errno, "can't write %s: %m",
				RFS_MAP_GLOBALS);
		goto out;
	}

	dp->sock_flows_fd = rfs_socktab_new(dp, entries);
	if (dp->sock_flows_fd < 0 ||
	    bpf_map_update_elem(dp->sock_outer_fd, &zero,
				&dp->sock_flows_fd, BPF_ANY)) {
		err_ = rfs_errf(err, dp->sock_flows_fd < 0 ?
				dp->sock_flows_fd : errno,
				"can't create sock flow table of %u entries: %m",
				entries);
		goto out;
	}
	err_ = rfs_pins_pin(dp->base, NULL, dp, rfs_core_pins, RFS_CORE_PINS,
			    err) ?:
	       rfs_cpumap_sync(dp, err);
	if (err_)
		goto out;

	cg_fd = open(dp->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg_fd < 0) {
		err_ = rfs_errf(err, errno, "can't open cgroup '%s': %m",
				dp->cgroup);
		goto out;
	}
	err_ = rfs_attach_pin(dp, skel->progs.rfs_sockops,
			      bpf_program__attach_cgroup(skel->progs.rfs_sockops,
							 cg_fd), err);
	/* The rest, the delivery proof among them: all before any XDP
	 * program can steer. */
	bpf_object__for_each_program(p, skel->obj) {
		bool kp = rfs_sock_prog_mode(bpf_program__name(p)) ==
			  RFS_TRACE_KPROBE;
		struct bpf_link *l;

		if (err_ || p == skel->progs.rfs_sockops ||
		    p == skel->progs.rfs_cpumap || !bpf_program__autoload(p))
			continue;
		l = bpf_program__attach(p);
		/* kprobes this process may not attach (perf_event_open
		 * filtered out, as in the systemd unit): auto goes without
		 * socket hooks rather than without rfsd */
		if (kp && libbpf_get_error(l) == -EPERM) {
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
		if (kp && libbpf_get_error(l) &&
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

static int rfs_core_adopt(struct rfs_dp *dp, char *err)
{
	char why[RFS_ERR_LEN] = "";
	__u32 zero = 0;
	int e;

	e = rfs_pins_open(dp->base, NULL, dp, rfs_core_pins, RFS_CORE_PINS,
			  why);
	if (e && why[0])
		return rfs_errf(err, e,
				"%s; under '%s' (stop the rfsd using it, run rfsd --cleanup --pin-dir %s, or pick another --pin-dir)",
				why, dp->base, dp->pin_dir);
	if (e)
		return rfs_errf(err, ENOENT,
				"pinned datapath under '%s' is incomplete; remove it or run rfsd with another --pin-dir",
				dp->base);
	if (bpf_map_lookup_elem(dp->globals_fd, &zero, &dp->globals))
		return rfs_errf(err, errno, "can't read %s: %m",
				RFS_MAP_GLOBALS);
	if (dp->globals.nr_cpus != (__u32)dp->nr_cpus ||
	    dp->globals.nr_rx_cpus != (__u32)dp->nr_rx_cpus)
		return rfs_errf(err, EINVAL,
				"pinned datapath was made for %u CPUs (%u RX CPUs), this system has %d (%d)",
				dp->globals.nr_cpus, dp->globals.nr_rx_cpus,
				dp->nr_cpus, dp->nr_rx_cpus);

	return rfs_cpumap_sync(dp, err) ? -EIO : 0;
}

/* dp->ids and dp->trace_mode from the pinned links. */
static void rfs_core_fill_ids(struct rfs_dp *dp)
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
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
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
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			*id = info.prog_id;
		close(fd);
	}
	closedir(d);
}

/* A pin layout's tree under the pin dir: v1/, v2/ ... */
static bool rfs_is_layout(const char *n)
{
	return n[0] == 'v' && n[1] >= '0' && n[1] <= '9';
}

/* Another layout's datapath (v1/ beside ours) would keep steering beside
 * ours on the same hooks: refused; the layouts record different things. */
static int rfs_core_other_layout(const struct rfs_dp *dp, char *err)
{
	DIR *d = opendir(dp->pin_at);
	struct dirent *de;
	int e = 0;

	while (d && !e && (de = readdir(d))) {
		if (!rfs_is_layout(de->d_name) ||
		    !strcmp(de->d_name, RFS_PIN_LAYOUT))
			continue;
		e = rfs_errf(err, EPROTO,
			     "pin dir '%s' holds a datapath of pin layout %s (another build of xdp-rfs); this build uses %s: stop it, run rfsd --cleanup --pin-dir %s, then start again",
			     dp->pin_dir, de->d_name, RFS_PIN_LAYOUT,
			     dp->pin_dir);
	}
	if (d)
		closedir(d);
	return e;
}

static void rfs_link_detach(const char *path, void *ctx)
{
	int fd = bpf_obj_get(path);

	if (fd >= 0) {
		bpf_link_detach(fd);
		close(fd);
	}
}

/* ---- the handle and its interfaces ---- */

/* Room for one more interface, taken before it is made: once attached
 * it is listed, never left behind for want of memory. */
static int rfs_dp_if_reserve(struct rfs_dp *dp)
{
	struct rfs_if **v = realloc(dp->ifs, (dp->n_ifs + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	dp->ifs = v;
	return 0;
}

static bool rfs_if_is_loopback(const char *name)
{
	char path[PATH_MAX];
	__u64 type;

	return !rfs_path(path, "/sys/class/net/%s/type", name) &&
	       !rfs_file_u64(path, "", &type) && type == ARPHRD_LOOPBACK;
}

int rfs_dp_set_early_drop(struct rfs_dp *dp, bool on)
{
	struct rfs_globals g = dp->globals;
	__u32 zero = 0;

	/* HZ unknown: the shortest window it could mean, the least lost */
	g.early_drop_jiffies = on ? rfs_full_window(dp->feat.hz ?: 100) : 0;
	if (g.early_drop_jiffies == dp->globals.early_drop_jiffies)
		return 0;
	if (bpf_map_update_elem(dp->globals_fd, &zero, &g, BPF_ANY))
		return -errno;
	dp->globals = g;
	return 0;
}

/* Loopback sockets are recorded only while a loopback interface is
 * steered: else their entries only push steered flows out of the sock
 * flow table.  Called whenever the list of interfaces changes. */
static void rfs_dp_sync_loopback(struct rfs_dp *dp)
{
	__u32 want = 0, zero = 0;
	size_t i;

	for (i = 0; i < dp->n_ifs && !want; i++)
		want = rfs_if_is_loopback(dp->ifs[i]->name);
	if (want == dp->globals.steer_loopback)
		return;
	dp->globals.steer_loopback = want;
	if (bpf_map_update_elem(dp->globals_fd, &zero, &dp->globals, BPF_ANY))
		pr_warn("can't write %s: %s; loopback sockets %s recorded\n",
			RFS_MAP_GLOBALS, strerror(errno),
			want ? "are still not" : "are still");
	else
		pr_info("loopback sockets %s recorded: %s\n",
			want ? "now" : "no longer",
			want ? "a loopback interface is steered" :
			       "no loopback interface is steered");
}

static void rfs_dp_if_remove(struct rfs_dp *dp, struct rfs_if *ifc)
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
	rfs_iface_free(ifc);
	rfs_dp_sync_loopback(dp);
}

static int rfs_dp_lock(const char *dir, const char *name, char *err)
{
	int fd = rfs_pin_lock(dir);

	return fd >= 0 ? fd : rfs_errf(err, fd, fd == -EBUSY ?
		"pin dir '%s' is in use by a running rfsd; stop it first" :
		"can't lock pin dir '%s': %m", name);
}

/* Every interface pinned under if/ whose program still runs there. */
static int rfs_dp_adopt_ifs(struct rfs_dp *dp, char *err)
{
	char path[PATH_MAX], why[RFS_ERR_LEN];
	struct rfs_if *ifc;
	struct dirent *de;
	DIR *d;
	int e;

	if (rfs_path(path, "%s/if", dp->base))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		/* one adopted under its new name is seen again here */
		if (de->d_name[0] == '.' || rfs_dp_if_find(dp, de->d_name))
			continue;
		e = rfs_dp_if_reserve(dp);
		if (e)
			rfs_errf(why, e, "adopt %s: out of memory", de->d_name);
		else
			e = rfs_iface_adopt(dp, de->d_name, &ifc, why);
		if (!e)
			dp->ifs[dp->n_ifs++] = ifc;
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
	rfs_dp_sync_loopback(dp);
	return 0;
}

/* Everything of rfs_dp_open() that can fail; *teardown once it may have
 * begun to load and pin. */
static int rfs_dp_setup(struct rfs_dp *dp, const struct rfs_dp_opts *o,
			bool *adopted, bool *teardown, char *err)
{
	static const char *const dirs[] = { "maps", "links", "progs", "if" };
	char path[PATH_MAX];
	size_t i;
	int e, n;

	if (rfs_path(dp->base, "%s/%s", dp->pin_at, RFS_PIN_LAYOUT))
		return rfs_errf(err, ENAMETOOLONG, "pin dir too long");
	n = libbpf_num_possible_cpus();
	if (n <= 0)
		return rfs_errf(err, n ? n : EINVAL, "can't count possible CPUs");
	dp->nr_cpus = n > RFS_MAX_CPUS ? RFS_MAX_CPUS : n;
	dp->nr_rx_cpus = n > RFS_MAX_RX_CPUS ? RFS_MAX_RX_CPUS : n;
	if (n > RFS_MAX_CPUS)
		pr_warn("%d possible CPUs: steering only to the first %d\n", n,
			RFS_MAX_CPUS);
	if (n > RFS_MAX_RX_CPUS)
		pr_warn("%d possible CPUs: frames arriving on CPUs past %d go up the stack unsteered\n",
			n, RFS_MAX_RX_CPUS - 1);
	e = rfs_cpuset_online(&dp->online);
	if (e)
		return rfs_errf(err, e, "can't read online CPUs: %m");

	e = rfs_pin_ensure_bpffs(dp->pin_at, err);
	if (e)
		return e;
	e = rfs_pin_mkdirs(dp->pin_at);
	if (e)
		return rfs_errf(err, e, "can't create pin dir '%s': %m",
				dp->pin_dir);
	e = dp->lock_fd = rfs_dp_lock(dp->pin_at, dp->pin_dir, err);
	if (e < 0)
		return e;

	if (rfs_path(path, "%s/maps/%s", dp->base, RFS_MAP_GLOBALS))
		return rfs_errf(err, ENAMETOOLONG, "pin dir '%s' too long",
				dp->pin_dir);
	if (!access(path, F_OK)) {
		e = rfs_core_adopt(dp, err) ?: rfs_dp_adopt_ifs(dp, err);
		if (!e && adopted)
			*adopted = true;
		return e;
	}
	e = rfs_core_other_layout(dp, err);
	if (e)
		return e;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if ((e = rfs_path(path, "%s/%s", dp->base, dirs[i])) ||
		    (e = rfs_pin_mkdirs(path)))
			return rfs_errf(err, e, "can't create '%s': %m", path);
	*teardown = true;
	return rfs_core_create(dp, o, err);
}

int rfs_dp_open(struct rfs_dp **out, const struct rfs_dp_opts *o,
		bool *adopted, char *err)
{
	bool teardown = false;
	struct rfs_dp *dp;
	int e;

	*out = NULL;
	if (adopted)
		*adopted = false;
	dp = calloc(1, sizeof(*dp));
	if (!dp)
		return rfs_errf(err, ENOMEM, "out of memory");
	dp->lock_fd = -1;
	rfs_pins_reset(dp, rfs_core_pins, RFS_CORE_PINS, false);
	snprintf(dp->pin_dir, sizeof(dp->pin_dir), "%s",
		 o->pin_dir ? o->pin_dir : RFS_PIN_DIR_DEFAULT);
	snprintf(dp->pin_at, sizeof(dp->pin_at), "%s",
		 o->pin_at ? o->pin_at : dp->pin_dir);
	snprintf(dp->cgroup, sizeof(dp->cgroup), "%s",
		 o->cgroup ? o->cgroup : "/sys/fs/cgroup");
	dp->qsize = o->cpumap_qsize ? o->cpumap_qsize : RFS_CPUMAP_QSIZE;
	dp->allow_unordered = o->allow_unordered;
	dp->budget = o->budget;
	rfs_kfeatures_detect(&dp->feat);
	e = rfs_dp_setup(dp, o, adopted, &teardown, err);
	if (e) {
		rfs_dp_close(dp, teardown);
		return e;
	}
	rfs_core_fill_ids(dp);
	*out = dp;
	return 0;
}

/* Every layout's tree (v1/, v2/ ...; all false: this build's only), then
 * pin_dir if empty: anything else in it is someone else's. */
static void rfs_remove_layouts(const char *pin_dir, bool all)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(pin_dir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if ((all ? rfs_is_layout(de->d_name) :
			   !strcmp(de->d_name, RFS_PIN_LAYOUT)) &&
		    !rfs_path(path, "%s/%s", pin_dir, de->d_name))
			rfs_pin_walk(path, true, NULL, NULL);
	closedir(d);
	rmdir(pin_dir);
}

void rfs_dp_close(struct rfs_dp *dp, bool teardown)
{
	char why[RFS_ERR_LEN], path[PATH_MAX];
	__u32 cpu;

	if (!dp)
		return;
	while (dp->n_ifs) {
		struct rfs_if *ifc = dp->ifs[dp->n_ifs - 1];

		if (teardown && rfs_iface_detach(dp, ifc, why))
			pr_warn("%s\n", why);
		else if (teardown)
			rfs_log_iface(RFS_LOG_INFO, ifc->name, ifc->ifindex,
				      "detached: rfsd is exiting (detach_on_exit)");
		rfs_dp_if_remove(dp, ifc);
	}
	if (teardown) {
		/* The links the kernel lets go of (cgroup links); the rest
		 * go when their pins are removed. */
		if (!rfs_path(path, "%s/links", dp->base))
			rfs_pin_walk(path, false, rfs_link_detach, NULL);
		/* Empty the cpumap: that stops its kthreads now. */
		for (cpu = 0; cpu < (__u32)dp->nr_cpus; cpu++)
			bpf_map_delete_elem(dp->cpu_map_fd, &cpu);
		rfs_remove_layouts(dp->pin_at, false);
	}
	free(dp->ifs);
	rfs_pins_reset(dp, rfs_core_pins, RFS_CORE_PINS, true);
	if (dp->lock_fd >= 0)
		close(dp->lock_fd);
	free(dp);
}

int rfs_dp_read_gstats(const struct rfs_dp *dp, struct rfs_global_stats *out)
{
	return rfs_read_percpu(dp->gstats_fd, 0, sizeof(*out), out,
			       dp->nr_cpus);
}

struct rfs_cpu_queue *rfs_dp_queues(const struct rfs_dp *dp)
{
	return rfs_array_read(dp->cpu_queues_fd,
			      sizeof(struct rfs_cpu_queue), dp->nr_cpus);
}

/* A map update would write the whole value over the counters BPF keeps
 * in it: one word through the array's mmap instead, mapped for the call
 * only (a policy change is rare). */
int rfs_dp_write_ksched_note(const struct rfs_dp *dp, int cpu, __u64 note)
{
	const size_t len = sizeof(struct rfs_cpu_queue) * RFS_MAX_CPUS;
	struct rfs_cpu_queue *q;

	if (cpu < 0 || cpu >= dp->nr_cpus)
		return -EINVAL;
	q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 dp->cpu_queues_fd, 0);
	if (q == MAP_FAILED)
		return -errno;
	__atomic_store_n(&q[cpu].ksched_note, note, __ATOMIC_RELAXED);
	munmap(q, len);
	return 0;
}

/* Per target and RX CPU: the last sequence number sent (rfs_tx_seq)
 * against the newest marked dequeued (rfs_rx_track).  Frames up to a
 * full-ring flush are dequeued or lost for good: not counted, so the
 * figure may be short but never stays above zero once traffic stops.
 * Sent is read first: a frame dequeued between the reads only makes a
 * pair negative, counted as none. */
int rfs_dp_read_backlog(const struct rfs_dp *dp, __u64 *out)
{
	const size_t stride =
		rfs_percpu_stride(sizeof(struct rfs_tx_seq)) / sizeof(__u32);
	__u32 *tx, key, sent, done, dropped;
	struct rfs_rx_track tr;
	int nr = dp->nr_cpus, ncpu, rx, t, e = 0;

	tx = rfs_lookup_percpu(dp->tx_seq_fd, 0, sizeof(struct rfs_tx_seq),
			       &ncpu);
	if (!tx)
		return -errno;
	for (t = 0; t < nr; t++) {
		out[t] = 0;
		for (rx = 0; rx < dp->nr_rx_cpus && rx < ncpu; rx++) {
			sent = tx[(size_t)rx * stride + t];
			if (!sent)	/* never sent there: no lookup */
				continue;
			key = rfs_rx_track_index(t, rx, dp->nr_rx_cpus);
			if (bpf_map_lookup_elem(dp->rx_track_fd, &key, &tr)) {
				e = -errno;
				goto out;
			}
			done = (__u32)tr.last;		/* the mark's seq */
			dropped = tx[(size_t)rx * stride + RFS_MAX_CPUS + t];
			if ((__s32)(dropped - done) > 0)
				done = dropped;
			if ((__s32)(sent - done) > 0)
				out[t] += sent - done;
		}
	}
out:
	free(tx);
	return e;
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

/* ---- the rfs_if_* calls that change the list or need the datapath ---- */

int rfs_if_attach(struct rfs_dp *dp, const char *name,
		  const struct rfs_if_opts *o, struct rfs_if **out, char *err)
{
	struct rfs_if *ifc;
	int e;

	if (out)
		*out = NULL;
	if (rfs_dp_if_find(dp, name))
		return rfs_errf(err, EEXIST, "attach %s: already attached", name);
	if (!o->no_attach && !o->allow_unordered && !dp->allow_unordered) {
		struct rfs_feat_report r;
		int i;

		rfs_kjudge(&dp->feat, &r);
		for (i = 0; !r.order_kept && i < r.n; i++)
			if (r.line[i].level == RFS_FEAT_UNSAFE)
				return rfs_errf(err, EOPNOTSUPP,
						"attach %s: this kernel can't keep flows in order (%s: %s); set allow_unordered = yes in [global] or use rfsctl attach --allow-unordered to steer anyway",
						name, r.line[i].name,
						r.line[i].value);
	}
	if (rfs_dp_if_reserve(dp))
		return rfs_errf(err, ENOMEM, "attach %s: out of memory", name);
	/* our own orphan there is replaced, never another's program */
	if (!o->no_attach && if_nametoindex(name))
		rfs_dp_sweep_orphans(dp, if_nametoindex(name));
	e = rfs_iface_attach(dp, name, o, &ifc, err);
	if (e)
		return e;
	dp->ifs[dp->n_ifs++] = ifc;
	rfs_dp_sync_loopback(dp);
	if (out)
		*out = ifc;
	return 0;
}

int rfs_if_detach(struct rfs_dp *dp, struct rfs_if *ifc, char *err)
{
	int e = rfs_iface_detach(dp, ifc, err);

	if (!e)
		rfs_dp_if_remove(dp, ifc);
	return e;
}

void rfs_if_forget(struct rfs_dp *dp, struct rfs_if *ifc)
{
	rfs_iface_unpin(dp, ifc->name);
	rfs_dp_if_remove(dp, ifc);
}

/* Ours by a map pinned under our pin dir (every interface's program
 * shares the core's cpumap), never by name, so another rfsd's is never
 * touched; the kernel records a program's maps at load, before any XDP
 * link exists, so one cut short between attach and pin is found too. */
int rfs_dp_sweep_orphans(struct rfs_dp *dp, int ifindex)
{
	__u32 *keep = calloc(dp->n_ifs + 1, sizeof(*keep));
	size_t i;
	int n;

	if (!keep)
		return -ENOMEM;
	for (i = 0; i < dp->n_ifs; i++)
		keep[i] = dp->ifs[i]->prog_id;
	n = rfs_iface_sweep(&dp->globals.cpumap_id, 1, keep, dp->n_ifs,
			    ifindex);
	free(keep);
	return n;
}

struct rfs_ids {
	__u32 *v;
	size_t n;
};

static void rfs_note_map(const char *path, void *ctx)
{
	struct rfs_ids *s = ctx;
	int fd = bpf_obj_get(path);
	__u32 *v = fd >= 0 ? realloc(s->v, (s->n + 1) * sizeof(*v)) : NULL;

	if (v) {
		s->v = v;
		s->v[s->n++] = rfs_obj_id(fd);
	}
	if (fd >= 0)
		close(fd);
}

int rfs_dp_cleanup(const char *pin_dir, char *err)
{
	struct rfs_dp_opts o = { .pin_dir = pin_dir };
	struct rfs_ids ours = { 0 };
	char path[PATH_MAX];
	struct rfs_dp *dp;
	int e, lock;

	if (rfs_path(path, "%s/%s/maps/%s", pin_dir, RFS_PIN_LAYOUT,
		     RFS_MAP_GLOBALS))
		return rfs_errf(err, ENAMETOOLONG, "pin dir '%s' too long",
				pin_dir);
	lock = rfs_dp_lock(pin_dir, pin_dir, err);
	if (lock == -EBUSY)
		return lock;
	/* What is ours, whatever the layout: the maps pinned here. */
	rfs_pin_walk(pin_dir, false, rfs_note_map, &ours);
	if (lock >= 0)
		close(lock);	/* adopting takes it again */
	e = -ENOENT;
	if (!access(path, F_OK)) {
		e = rfs_dp_open(&dp, &o, NULL, err);
		if (e && e != -EPROTO)
			goto out;
		if (!e) {
			rfs_dp_close(dp, true);
			pr_info("removed the datapath pinned under %s\n",
				pin_dir);
		}
	}
	if (!access(pin_dir, F_OK)) {
		/* Another build's pins, or half made: every layout's tree */
		lock = rfs_dp_lock(pin_dir, pin_dir, err);
		if (lock < 0) {
			e = lock;
			goto out;
		}
		rfs_remove_layouts(pin_dir, true);
		close(lock);
		if (e)
			pr_info("removed the pins under %s\n", pin_dir);
	}
	e = ours.n ? rfs_iface_sweep(ours.v, ours.n, NULL, 0, 0) : 0;
	e = e < 0 ? rfs_errf(err, e, "can't list interfaces: %m") : 0;
out:
	free(ours.v);
	return e;
}

void rfs_dp_take_new_kthreads(struct rfs_dp *dp, struct rfs_cpuset *out)
{
	*out = dp->new_kthreads;
	rfs_cpuset_zero(&dp->new_kthreads);
}

int rfs_dp_refresh_cpus(struct rfs_dp *dp, char *err)
{
	struct rfs_cpuset online;
	size_t i;
	int e;

	e = rfs_cpuset_online(&online);
	if (e)
		return rfs_errf(err, e, "can't read online CPUs: %m");
	if (!rfs_cpuset_equal(&online, &dp->online)) {
		char was[256], now[256];
		unsigned int cpu;

		rfs_cpulist_format(&dp->online, was, sizeof(was));
		rfs_cpulist_format(&online, now, sizeof(now));
		for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
			if (rfs_cpuset_has(&dp->online, cpu) !=
			    rfs_cpuset_has(&online, cpu))
				pr_info("CPU %u: %s (online CPUs %s -> %s)\n", cpu,
					rfs_cpuset_has(&online, cpu) ?
					"came online" : "went offline", was, now);
	}
	dp->online = online;
	/* Interfaces first: no flow may be sent to a queue about to go. */
	for (i = 0; i < dp->n_ifs; i++) {
		rfs_iface_refresh(dp, dp->ifs[i]);
		rfs_iface_note_leaving(dp->ifs[i], rfs_mono_ms());
	}
	return rfs_cpumap_sync(dp, err);
}
