// SPDX-License-Identifier: GPL-2.0
/* What the kernel and an interface offer, found by looking (BTF, the
 * kprobe PMU, a trial fentry attach, CONFIG_HZ, sysfs), never by version:
 * backports make versions lie.  Then what each means for the in-order
 * rule: a missing hook that only withholds proofs degrades (flows stay,
 * in order); a place that holds frames the proof can't see (a cpumap GRO
 * stage it can't read) breaks it: only that is UNSAFE. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <zlib.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "rfs_dp.h"

static const struct btf_type *rfs_btf_struct(const struct btf *btf,
					     const char *name)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);

	return id > 0 ? btf__type_by_id(btf, id) : NULL;
}

/* The member of struct t called name, or NULL; also inside anonymous
 * structs and unions (napi_gro_cb's age is), as C and CO-RE reach it. */
static const struct btf_member *rfs_btf_member(const struct btf *btf,
					       const struct btf_type *t,
					       const char *name)
{
	const struct btf_member *m, *in;
	int i;

	if (!t || !(btf_is_struct(t) || btf_is_union(t)))
		return NULL;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		int id;

		if (n && *n) {
			if (!strcmp(n, name))
				return m;
			continue;
		}
		id = btf__resolve_type(btf, m->type);
		in = id > 0 ? rfs_btf_member(btf, btf__type_by_id(btf, id),
					     name) : NULL;
		if (in)
			return in;
	}
	return NULL;
}

static bool rfs_btf_has(const struct btf *btf, const char *sname,
			const char *member)
{
	return rfs_btf_member(btf, rfs_btf_struct(btf, sname), member);
}

/* The name of a member's type, through typedefs and qualifiers. */
static const char *rfs_btf_member_type(const struct btf *btf,
				       const struct btf_member *m)
{
	int id = btf__resolve_type(btf, m->type);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;

	return t ? btf__name_by_offset(btf, t->name_off) : "";
}

/* Number of arguments of the tracepoint's btf_trace_<tp> (its first, the
 * hidden context, included); -1 if the kernel has no such type. */
static int rfs_btf_tp_args(const struct btf *btf, const char *tp)
{
	const struct btf_type *t;
	char name[96];
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return -1;
	t = btf__type_by_id(btf, id);		/* typedef -> pointer */
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;
	return t && btf_is_func_proto(t) ? btf_vlen(t) : -1;
}

static bool rfs_btf_has_enumerator(const struct btf *btf, const char *name)
{
	__u32 n = btf__type_cnt(btf), id;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;
		int i;

		if (!btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (i = 0; i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
				return true;
	}
	return false;
}

/* The cpumap kthread's GRO stage (struct gro_node gro): readable when
 * every field rfs_gro.bpf.c reads is there; a gro without them, or a GRO
 * or NAPI context under another name, is a stage the proof can't see. */
static enum rfs_cpumap_gro rfs_btf_cpumap_gro(const struct btf *btf)
{
	const struct btf_type *e = rfs_btf_struct(btf, "bpf_cpu_map_entry");
	const struct btf_member *m;
	int i;

	if (!e)
		return RFS_GRO_UNREADABLE;	/* can't tell: assume the worst */
	m = rfs_btf_member(btf, e, "gro");
	if (m && !strcmp(rfs_btf_member_type(btf, m), "gro_node") &&
	    rfs_btf_has(btf, "gro_node", "bitmask") &&
	    rfs_btf_has(btf, "gro_node", "hash") &&
	    rfs_btf_has(btf, "gro_node", "rx_count") &&
	    rfs_btf_has(btf, "gro_list", "list") &&
	    rfs_btf_has(btf, "napi_gro_cb", "age"))
		return RFS_GRO_READABLE;
	if (m)
		return RFS_GRO_UNREADABLE;
	m = btf_members(e);
	for (i = 0; i < btf_vlen(e); i++, m++) {
		const char *tn = rfs_btf_member_type(btf, m);

		if (!strcmp(tn, "gro_node") || !strcmp(tn, "napi_struct"))
			return RFS_GRO_UNREADABLE;
	}
	return RFS_GRO_NONE;
}

/* fentry works only where the kernel builds BPF trampolines, which BTF
 * does not say: attach an empty program to bpf_fentry_test1 (called only
 * by BPF_PROG_TEST_RUN) and take it off again. */
static bool rfs_probe_fentry(const struct btf *btf)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = BPF_TRACE_FENTRY);
	int id, prog, link;

	id = btf__find_by_name_kind(btf, "bpf_fentry_test1", BTF_KIND_FUNC);
	if (id <= 0)
		return false;
	o.attach_btf_id = id;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "rfs_probe", "GPL", insns,
			     2, &o);
	if (prog < 0)
		return false;
	link = bpf_link_create(prog, 0, BPF_TRACE_FENTRY, NULL);
	close(prog);
	if (link < 0)
		return false;
	close(link);
	return true;
}

static bool rfs_have_kprobes(void)
{
	/* libbpf uses the PMU, or tracefs' kprobe_events where it is older */
	return !access("/sys/bus/event_source/devices/kprobe/type", F_OK) ||
	       !access("/sys/kernel/tracing/kprobe_events", F_OK) ||
	       !access("/sys/kernel/debug/tracing/kprobe_events", F_OK);
}

static void rfs_kfeatures_btf(struct rfs_kfeatures *f)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int n;

	if (!btf) {
		f->cpumap_gro = RFS_GRO_UNREADABLE;
		return;
	}
	f->btf = true;
	f->tp_sock_len = rfs_btf_tp_args(btf, "sock_recv_length") > 0 &&
			 rfs_btf_tp_args(btf, "sock_send_length") > 0;
	f->fentry = btf__find_by_name_kind(btf, "tcp_recvmsg",
					   BTF_KIND_FUNC) > 0 &&
		    rfs_probe_fentry(btf);
	/* the fexit socket hooks read the return value with it: the
	 * kernel's helper ids are an enum in its BTF */
	f->func_ret = rfs_btf_has_enumerator(btf, "BPF_FUNC_get_func_ret");
	f->sockops_state = rfs_btf_has_enumerator(btf, "BPF_SOCK_OPS_STATE_CB");
	f->tp_enqueue = rfs_btf_tp_args(btf, "xdp_cpumap_enqueue") == 5;
	/* the prototypes count the tracepoint's context first: ctx, rc, sk,
	 * and since 6.10 skb */
	n = rfs_btf_tp_args(btf, "udp_fail_queue_rcv_skb");
	f->tp_sock_full = n >= 3;
	f->tp_sock_full_skb = n >= 4;
	/* ctx, map_id, processed, drops, sched, xdp_cpumap_stats */
	f->tp_kthread = rfs_btf_tp_args(btf, "xdp_cpumap_kthread") == 6;
	f->kthread_data = rfs_btf_has(btf, "task_struct", "worker_private") &&
			  rfs_btf_has(btf, "kthread", "data") &&
			  rfs_btf_has(btf, "bpf_cpu_map_entry", "kthread") &&
			  rfs_btf_has(btf, "bpf_cpu_map_entry", "cpu");
	f->task_state = rfs_btf_has(btf, "task_struct", "__state");
	f->cpumap_prog = rfs_btf_has(btf, "bpf_cpumap_val", "bpf_prog");
	f->frame_meta = rfs_btf_has(btf, "xdp_frame", "metasize");
	f->cpumap_gro = rfs_btf_cpumap_gro(btf);
	btf__free(btf);
}

int rfs_kfeat_set(struct rfs_kfeatures *f, const char *name,
		  const char *value)
{
	static const struct {
		const char *name;
		size_t off;
	} bools[] = {
#define B(x) { #x, offsetof(struct rfs_kfeatures, x) }
		B(btf), B(tp_sock_len), B(kprobes), B(fentry), B(func_ret),
		B(sockops_state), B(tp_enqueue), B(tp_sock_full),
		B(tp_sock_full_skb), B(tp_kthread),
		B(kthread_data), B(task_state), B(cpumap_prog), B(frame_meta),
#undef B
	};
	static const char *const gro[] = {
		[RFS_GRO_NONE] = "none", [RFS_GRO_READABLE] = "readable",
		[RFS_GRO_UNREADABLE] = "unreadable",
	};
	size_t i;

	for (i = 0; !strcmp(name, "cpumap_gro") && i < 3; i++)
		if (!strcmp(value, gro[i])) {
			f->cpumap_gro = i;
			return 0;
		}
	if (!strcmp(name, "hz")) {
		__u32 v;

		if (rfs_parse_u32(value, &v) || v > 100000)
			return -EINVAL;
		f->hz = (int)v;
		return 0;
	}
	for (i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		if (strcmp(name, bools[i].name))
			continue;
		if (strcmp(value, "0") && strcmp(value, "1"))
			return -EINVAL;
		*(bool *)((char *)f + bools[i].off) = value[0] == '1';
		return 0;
	}
	return -EINVAL;
}

static void rfs_kfeatures_fake(struct rfs_kfeatures *f)
{
	const char *env = getenv("RFS_TEST_FEATURES");
	char buf[512], *tok, *save = NULL;

	if (!env || !*env)
		return;
	snprintf(buf, sizeof(buf), "%s", env);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			continue;
		*eq = 0;
		if (!rfs_kfeat_set(f, tok, eq + 1))
			f->faked = true;
	}
}

/* From /boot/config-<release> or /proc/config.gz; 0 if unknown. */
static int rfs_kernel_hz(void)
{
	char path[300], line[256];
	struct utsname u;
	gzFile f = NULL;
	__u64 hz = 0;

	if (!uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = gzopen(path, "r");	/* reads plain files too */
	}
	if (!f)
		f = gzopen("/proc/config.gz", "r");
	if (!f)
		return 0;
	while (gzgets(f, line, sizeof(line)) &&
	       rfs_text_u64(line, strlen(line), "CONFIG_HZ=", &hz) == -ENOENT)
		;
	gzclose(f);
	return hz <= 100000 ? (int)hz : 0;
}

void rfs_kfeatures_detect(struct rfs_kfeatures *f)
{
	struct utsname u;

	memset(f, 0, sizeof(*f));
	if (!uname(&u))
		snprintf(f->release, sizeof(f->release), "%s", u.release);
	rfs_kfeatures_btf(f);
	f->kprobes = rfs_have_kprobes();
	f->hz = rfs_kernel_hz();
	rfs_kfeatures_fake(f);
}

unsigned int rfs_sysfs_rx_queues(const char *ifname, char *rps, size_t len)
{
	char dir[300], file[600], text[512];
	unsigned int n = 0;
	struct dirent *de;
	FILE *f;
	DIR *d;

	if (rps)
		rps[0] = '\0';
	snprintf(dir, sizeof(dir), "/sys/class/net/%s/queues", ifname);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "rx-", 3))
			continue;
		n++;
		snprintf(file, sizeof(file), "%s/%s/rps_cpus", dir, de->d_name);
		/* no rps_cpus: no CONFIG_RPS */
		if (!rps || rps[0] || !(f = fopen(file, "re")))
			continue;
		if (fgets(text, sizeof(text), f) &&
		    rfs_mask_text_any(text, strlen(text)))
			snprintf(rps, len, "%s", file);
		fclose(f);
	}
	closedir(d);
	return n;
}

long long rfs_if_gro_flush_timeout(const char *ifname)
{
	char path[300];
	__u64 v;

	snprintf(path, sizeof(path), "/sys/class/net/%s/gro_flush_timeout",
		 ifname);
	return rfs_file_u64(path, "", &v) || v > LLONG_MAX ? -1 : (long long)v;
}

void rfs_local_path_params(const char *ifname, bool no_attach,
			   struct rfs_local_params *p)
{
	int hz = rfs_kernel_hz();
	long long timeout = no_attach ? 0 : rfs_if_gro_flush_timeout(ifname);
	long long jiffy_ns;

	/* unreadable: no drain time is known long enough, no local path */
	p->safe = timeout >= 0;
	if (timeout < 0)
		timeout = 0;
	/* unknown: the shortest jiffy, which asks for the most waiting */
	if (!hz)
		hz = 1000;
	jiffy_ns = 1000000000LL / hz;
	/* A NAPI poll lasts less than a jiffy.  With HZ < 1000 every poll
	 * end flushes NAPI GRO fully, so a frame passed up at jiffy J is out
	 * by J + 2.  With HZ >= 1000 a poll that used its whole budget
	 * flushes only skbs older than the current jiffy: the frame leaves
	 * at the first poll end at J + 1 or later, which a poll running from
	 * J + 1 into J + 2 may put after a frame of the same flow sent
	 * elsewhere in J + 2; so wait one jiffy more.  A gro_flush_timeout
	 * defers the flush by up to the timeout. */
	p->drain_jiffies = hz >= 1000 ? 3 : 2;
	if (timeout > 0)
		p->drain_jiffies += (__u32)((timeout + jiffy_ns - 1) / jiffy_ns);
	/* Full flush at every poll end: a frame sent through this CPU's own
	 * cpumap queue is processed only after that poll ended. */
	p->handover = hz < 1000 && timeout == 0;
}

/* ---- what each feature means (pure) ---- */

const char *rfs_feat_level_name(enum rfs_feat_level l)
{
	return l == RFS_FEAT_OK ? "ok" : l == RFS_FEAT_DEGRADED ? "degraded" :
	       "unsafe";
}

static void rfs_line(struct rfs_feat_report *r, const char *name,
		     enum rfs_feat_level level, const char *value,
		     const char *why)
{
	struct rfs_feat_line *l;

	if (r->n >= RFS_FEAT_MAX)
		return;
	l = &r->line[r->n++];
	l->name = name;
	l->level = level;
	snprintf(l->value, sizeof(l->value), "%s", value);
	snprintf(l->why, sizeof(l->why), "%s", why);
	if (level == RFS_FEAT_UNSAFE)
		r->order_kept = false;
}

/* A line that is OK when ok, else at level bad. */
static void rfs_judge(struct rfs_feat_report *r, const char *name, bool ok,
		      enum rfs_feat_level bad, const char *yes,
		      const char *yes_why, const char *no, const char *no_why)
{
	rfs_line(r, name, ok ? RFS_FEAT_OK : bad, ok ? yes : no,
		 ok ? yes_why : no_why);
}

void rfs_kjudge(const struct rfs_kfeatures *f, struct rfs_feat_report *r)
{
	char v[48];

	memset(r, 0, sizeof(*r));
	r->order_kept = true;

	rfs_judge(r, "btf", f->btf, RFS_FEAT_UNSAFE, "yes",
		  "vmlinux BTF: CO-RE and tp_btf", "no",
		  "no /sys/kernel/btf/vmlinux: the programs (CO-RE, tp_btf) can't load, and a cpumap GRO stage can't be ruled out");

	switch (f->cpumap_gro) {
	case RFS_GRO_NONE:
		rfs_line(r, "cpumap_gro", RFS_FEAT_OK, "none",
			 "the cpumap kthread hands each batch straight to the stack: a batch is delivered when the next begins");
		break;
	case RFS_GRO_READABLE:
		rfs_line(r, "cpumap_gro", RFS_FEAT_OK, "gro_node",
			 "the cpumap kthread runs GRO; the delivery proof reads its GRO node");
		break;
	default:
		rfs_line(r, "cpumap_gro", RFS_FEAT_UNSAFE, "unreadable",
			 "the cpumap kthread may hold skbs where the delivery proof can't look: a flow could move while its frames are held");
		break;
	}

	rfs_judge(r, "delivery_proof", f->tp_kthread && f->kthread_data,
		  RFS_FEAT_DEGRADED, "tp_btf/xdp_cpumap_kthread",
		  "once per cpumap batch: flows leave a busy CPU once their frames are proven delivered",
		  "none", !f->tp_kthread ?
		  "no tp_btf/xdp_cpumap_kthread with its stats argument: flows leave a CPU only when its cpumap kthread sleeps" :
		  "the kthread's cpumap entry can't be found (no task_struct.worker_private): flows leave a CPU only when its cpumap kthread sleeps");

	rfs_judge(r, "kthread_state", f->task_state, RFS_FEAT_DEGRADED,
		  "__state", "an idle target proves its frames delivered at once",
		  "no", "no task_struct.__state: rfs_xdp can't see a target asleep (and won't load)");

	rfs_judge(r, "cpumap_meta", f->cpumap_prog && f->frame_meta,
		  RFS_FEAT_DEGRADED, "yes",
		  "XDP metadata reaches the cpumap program (native XDP): the target marks the frames a move must prove delivered",
		  "no", "no cpumap program or no metadata in xdp_frame: nothing is marked, flows keep the CPU they were first given");

	if (f->tp_sock_len)
		rfs_line(r, "socket_hooks", RFS_FEAT_OK,
			 "tp_btf/sock_recv_length",
			 "tp_btf/sock_recv_length and sock_send_length record where the application reads");
	else if (f->fentry && f->func_ret)
		rfs_line(r, "socket_hooks", RFS_FEAT_OK, "fexit",
			 "no sock_recv_length tracepoint: fexit on tcp_/udp_recvmsg and _sendmsg records the calls that moved data");
	else if (f->kprobes)
		rfs_line(r, "socket_hooks", RFS_FEAT_OK, "kprobe",
			 "no sock_recv_length tracepoint nor fexit: kprobes on tcp_/udp_recvmsg and _sendmsg record every call, also those that move no data");
	else
		rfs_line(r, "socket_hooks", RFS_FEAT_DEGRADED, "none",
			 "no sock_recv_length tracepoints, fexit or kprobes: flows are spread by hash and don't follow the application");

	rfs_judge(r, "kprobes", f->kprobes, RFS_FEAT_OK, "yes",
		  "kprobes can be placed (the socket hooks' last fallback)", "no",
		  "no kprobes (needed only without the sock_*_length tracepoints and fexit)");
	rfs_judge(r, "sockops", f->sockops_state, RFS_FEAT_DEGRADED,
		  "established, state",
		  "sockops records a connection at establishment and forgets it at close",
		  "established",
		  "no BPF_SOCK_OPS_STATE_CB: a closed connection's entry stays until overwritten");
	rfs_judge(r, "enqueue_drops", f->tp_enqueue, RFS_FEAT_DEGRADED,
		  "tp_btf/xdp_cpumap_enqueue",
		  "ring drops are counted, and a lost last frame holds up no CPU removal",
		  "none", "ring drops are not counted; removing a CPU may wait for traffic");
	if (f->tp_sock_full && f->tp_sock_full_skb)
		rfs_line(r, "early_drop", RFS_FEAT_OK,
			 "tp_btf/udp_fail_queue_rcv_skb",
			 "a UDP socket's refusal marks the refused datagram's flow, connected or not: its next frames are dropped at the RX CPU, those already on the ring by the target's cpumap program");
	else if (f->tp_sock_full)
		rfs_line(r, "early_drop", RFS_FEAT_DEGRADED, "connected only",
			 "udp_fail_queue_rcv_skb passes no skb (before 6.10): a connected UDP socket's refusal marks its flow; an unconnected socket's flows are not dropped early");
	else
		rfs_line(r, "early_drop", RFS_FEAT_DEGRADED, "none",
			 "no udp_fail_queue_rcv_skb tracepoint: under overload the targets build skbs that a full socket refuses");

	rfs_line(r, "fentry", RFS_FEAT_OK, f->fentry ? "yes" : "no",
		 !f->fentry ? "no BPF trampolines (the socket hooks' fallback without the tracepoints)" :
		 f->tp_sock_len ? "BPF trampolines work (not used: the tracepoints are there)" :
		 f->func_ret ? "BPF trampolines work: the socket hooks use fexit" :
			       "BPF trampolines work, but no bpf_get_func_ret (5.17) for the fexit socket hooks");

	snprintf(v, sizeof(v), "%d", f->hz);
	rfs_judge(r, "hz", f->hz > 0, RFS_FEAT_DEGRADED, v, f->hz >= 1000 ?
		  "HZ >= 1000: busy NAPI polls flush only old GRO packets; local flows drain 3 jiffies" :
		  "HZ < 1000: every NAPI poll flushes GRO fully; local flows drain 2 jiffies or hand over",
		  "unknown", "no kernel config to read CONFIG_HZ from: 1000 assumed, the longest local drain");
}

void rfs_kjudge_iface(const struct rfs_kfeatures *f,
		      const struct rfs_if_facts *i, struct rfs_feat_report *r)
{
	char v[48];

	rfs_judge(r, "xdp_mode", i->native, RFS_FEAT_DEGRADED, "native",
		  f->cpumap_prog && f->frame_meta ?
		  "native XDP: frames carry their sequence number to the target" :
		  "native XDP, but the kernel's cpumap can't mark frames (cpumap_meta)",
		  "generic", "generic XDP: the kernel passes no XDP metadata to the cpumap program, so flows keep the CPU they were first given");
	snprintf(v, sizeof(v), "%lld ns", i->gro_flush_timeout);
	rfs_judge(r, "gro_flush_timeout", i->gro_flush_timeout >= 0,
		  RFS_FEAT_DEGRADED, v, i->gro_flush_timeout ?
		  "local flows wait the timeout out before they move" :
		  "no deferred GRO flush", "unknown",
		  "unreadable: how long NAPI GRO holds a frame is unknown, so the local path is off (every frame goes through the cpumap)");
}
