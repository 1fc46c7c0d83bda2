// SPDX-License-Identifier: GPL-2.0
/*
 * BPF_PROG_TEST_RUN of the real XDP object (build/rfs_xdp.bpf.o through its
 * skeleton, loaded by rfs_if_attach() with no_attach), on frames built by
 * frames.h.  Each test checks the verdict, the counters in rfs_if_stats and
 * the dev flow table against the hash computed here with rfs_flow_hash().
 *
 * In plain test-run mode a redirected frame is never enqueued: the XDP
 * program advances a CPU's tail and this CPU's unflushed count, but
 * nothing flushes the bulk queue or advances head and done.  That is what
 * makes the in-order rule testable: the frames of a flow stay "queued"
 * until the test writes done (and zeroes unflushed) itself.  The
 * live-frames test then pushes frames through the real cpumap to check
 * the other half: the flush, and head and done advancing on the target
 * CPU.
 *
 * The socket-side programs are detached for these tests (see
 * rfs_xt_detach_sock_side()): the desired CPUs come from the test alone.
 *
 * The RX queue comes from ctx_in.  The kernel only takes a nonzero
 * rx_queue_index together with the ifindex of a real device that has that
 * many queues (xdp_convert_md_to_buff()), so the tests create a veth
 * pair with 4 RX queues and name one end as the ingress device; without
 * it only queue 0 is tested.  Frames shorter than an Ethernet header are
 * refused by the kernel (-EINVAL) before the program runs.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <netinet/in.h>

#include "frames.h"
#include "rfs_decide.h"
#include "log.h"
#include "rfs_dp_int.h"
#include "rfs_test_util.h"

#define RFS_XT_RXQ		2	/* rx_queues of the test interface */
#define RFS_XT_FLOWS		64	/* its flow_cnt */
#define RFS_XT_SOCK_ENTRIES	1024
#define RFS_XT_INGRESS_RXQ	4	/* queues of the ingress veth */
#define RFS_XT_NSTAT		(sizeof(struct rfs_if_stats) / sizeof(__u64))
#define RFS_XT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static struct {
	struct rfs_dp *dp;
	struct rfs_if *ifc;
	struct rfs_globals g;
	int ncpus;
	char pin_dir[64];
	char ingress[IF_NAMESIZE];
	int ingress_ifindex;	/* 0: none, only RX queue 0 is tested */
} xt;

/* ---- setup ------------------------------------------------------------ */

static void rfs_xt_cleanup(void)
{
	if (xt.dp) {
		rfs_dp_close(xt.dp, true);
		xt.dp = NULL;
		xt.ifc = NULL;
	}
	if (xt.ingress[0]) {
		rfs_tu_sh("ip link del %s", xt.ingress);
		xt.ingress[0] = 0;
	}
}

static bool rfs_xt_is_sock_prog(__u32 id)
{
	struct rfs_dp_prog_ids ids;

	rfs_dp_prog_ids(xt.dp, &ids);
	return id && (id == ids.recv || id == ids.send || id == ids.sockops);
}

/* Links of the socket-side programs still in the kernel. */
static int rfs_xt_sock_links(void)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_link_get_next_id(id, &id)) {
		struct bpf_link_info li = {};
		__u32 len = sizeof(li);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &li, &len) &&
		    rfs_xt_is_sock_prog(li.prog_id))
			n++;
		close(fd);
	}
	return n;
}

/*
 * The socket-side programs record every connected socket on the machine
 * into our sock flow table; unrelated traffic would then overwrite the
 * desired CPUs these tests write.  They are not under test here: detach
 * them.  bpf_link_detach() refuses tp_btf links (EOPNOTSUPP), so a link
 * goes when its last reference does: its pin, and any fd of it this
 * process still holds.  Drop both.
 */
static int rfs_xt_detach_sock_side(void)
{
	char dir[PATH_MAX + 16], path[PATH_MAX + 16 + 256];
	struct dirent *de;
	DIR *d, *fdd;
	int i;

	snprintf(dir, sizeof(dir), "%s/links", xt.dp->base);
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "test_xdp: can't open %s\n", dir);
		return -1;
	}
	while ((de = readdir(d))) {
		/* only the socket side: the cpumap-side links (enqueue drops,
		 * the GRO delivery barrier) are what the live tests need */
		if (strncmp(de->d_name, "rfs_tp_", 7) &&
		    strncmp(de->d_name, "rfs_kp_", 7) &&
		    strcmp(de->d_name, "rfs_sockops"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path)) {
			fprintf(stderr, "test_xdp: can't unpin %s: %s\n", path,
				strerror(errno));
			closedir(d);
			return -1;
		}
	}
	closedir(d);

	fdd = opendir("/proc/self/fd");
	if (!fdd)
		return -1;
	while ((de = readdir(fdd))) {
		struct bpf_link_info li = {};
		__u32 len = sizeof(li);
		int fd = atoi(de->d_name);

		if (de->d_name[0] == '.' || fd == dirfd(fdd))
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &li, &len) &&
		    len >= offsetof(struct bpf_link_info, prog_id) + 4 &&
		    li.type && rfs_xt_is_sock_prog(li.prog_id))
			close(fd);
	}
	closedir(fdd);

	/* a link is freed from a work item: give it a moment */
	for (i = 0; i < 100 && rfs_xt_sock_links(); i++)
		rfs_tu_sleep_ms(10);
	if (rfs_xt_sock_links()) {
		fprintf(stderr, "test_xdp: socket-side links still attached\n");
		return -1;
	}
	return 0;
}

/* Killed or interrupted: still remove the pins and the veth pair. */
static void rfs_xt_on_signal(int sig)
{
	rfs_xt_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int rfs_xt_group_setup(void **state)
{
	char err[RFS_ERR_LEN] = "";
	__u32 zero = 0;
	int e;

	xt.ncpus = libbpf_num_possible_cpus();
	if (xt.ncpus < 2) {
		fprintf(stderr, "test_xdp: needs 2 CPUs, have %d\n", xt.ncpus);
		return -1;
	}
	snprintf(xt.pin_dir, sizeof(xt.pin_dir), "/sys/fs/bpf/rfs-test-xdp-%d",
		 (int)getpid());
	atexit(rfs_xt_cleanup);
	signal(SIGINT, rfs_xt_on_signal);
	signal(SIGTERM, rfs_xt_on_signal);
	signal(SIGHUP, rfs_xt_on_signal);
	/* A closed stdout (| head) must not kill us before the cleanup. */
	signal(SIGPIPE, SIG_IGN);
	e = rfs_tu_dp_open(&xt.dp, xt.pin_dir, RFS_TRACE_AUTO,
			   RFS_XT_SOCK_ENTRIES, err);
	if (e) {
		fprintf(stderr, "test_xdp: can't open the datapath: %s\n", err);
		return -1;
	}
	if (bpf_map_lookup_elem(xt.dp->globals_fd, &zero, &xt.g)) {
		fprintf(stderr, "test_xdp: can't read %s\n", RFS_MAP_GLOBALS);
		return -1;
	}
	if (rfs_xt_detach_sock_side())
		return -1;

	/* An ingress device of our own for nonzero rx_queue_index (a veth
	 * pair: this kernel has no dummy driver); it stays down. */
	snprintf(xt.ingress, sizeof(xt.ingress), "rfsx%d",
		 (int)getpid() % 1000000);
	if (rfs_tu_sh("ip link add %s numtxqueues %d numrxqueues %d "
		      "type veth peer name rfsy%d", xt.ingress,
		      RFS_XT_INGRESS_RXQ, RFS_XT_INGRESS_RXQ,
		      (int)getpid() % 1000000)) {
		fprintf(stderr, "test_xdp: can't create a veth pair; testing RX queue 0 only\n");
		xt.ingress[0] = 0;
	} else {
		xt.ingress_ifindex = if_nametoindex(xt.ingress);
	}
	return 0;
}

static int rfs_xt_group_teardown(void **state)
{
	rfs_xt_cleanup();
	return 0;
}

static void rfs_xt_flush_bulk(void);

/* Empty dev flow table, sock flow table, queue and bulk counters. */
static void rfs_xt_reset_flows(void)
{
	struct rfs_dev_flow df = {};
	struct rfs_cpu_queue q = {};
	rfs_sock_entry_t se = 0;
	__u32 i;

	for (i = 0; i < RFS_XT_FLOWS * RFS_XT_RXQ; i++)
		assert_int_equal(bpf_map_update_elem(xt.ifc->dev_flows_fd, &i,
						     &df, BPF_ANY), 0);
	for (i = 0; i <= xt.g.sock_flow_mask; i++)
		assert_int_equal(bpf_map_update_elem(xt.dp->sock_flows_fd, &i,
						     &se, BPF_ANY), 0);
	for (i = 0; i < (__u32)xt.ncpus; i++)
		assert_int_equal(bpf_map_update_elem(xt.dp->cpu_queues_fd, &i,
						     &q, BPF_ANY), 0);
	rfs_xt_flush_bulk();
}

/* A fresh interface per test: its own table, counters and config. */
static int rfs_xt_setup(void **state)
{
	struct rfs_if_opts o = {
		.no_attach = true,
		.rx_queues = RFS_XT_RXQ,
		.flow_cnt = RFS_XT_FLOWS,
	};
	char err[RFS_ERR_LEN] = "";

	if (!xt.dp)
		return -1;
	if (rfs_if_attach(xt.dp, "t0", &o, &xt.ifc, err)) {
		fprintf(stderr, "test_xdp: %s\n", err);
		return -1;
	}
	rfs_xt_reset_flows();
	return 0;
}

static int rfs_xt_teardown(void **state)
{
	char err[RFS_ERR_LEN];

	if (xt.ifc && rfs_if_detach(xt.dp, xt.ifc, err))
		fprintf(stderr, "test_xdp: %s\n", err);
	xt.ifc = NULL;
	return 0;
}

/* ---- helpers ---------------------------------------------------------- */

static void rfs_xt_set_cpus(const char *list)
{
	char err[RFS_ERR_LEN] = "";
	struct rfs_cpuset set;

	assert_int_equal(rfs_cpulist_parse(list, &set), 0);
	if (rfs_if_set_cpus(xt.dp, xt.ifc, &set, err))
		fail_msg("set cpus %s: %s", list, err);
}

static void rfs_xt_stats(struct rfs_if_stats *sum)
{
	struct rfs_if_stats *v = calloc(xt.ncpus, sizeof(*v));

	assert_non_null(v);
	assert_int_equal(rfs_if_read_stats(xt.ifc, v), 0);
	rfs_tu_sum_u64(v, sizeof(*v), xt.ncpus, sum);
	free(v);
}

static struct rfs_if_stats rfs_xt_delta(const struct rfs_if_stats *before)
{
	struct rfs_if_stats now, d;
	const __u64 *a = (const __u64 *)before, *b = (const __u64 *)&now;
	__u64 *o = (__u64 *)&d;
	size_t i;

	rfs_xt_stats(&now);
	for (i = 0; i < RFS_XT_NSTAT; i++)
		o[i] = b[i] - a[i];
	return d;
}

/*
 * One test run of len bytes of frame on an RX queue.  The kernel refuses
 * (-EINVAL) a frame shorter than an Ethernet header, even one put behind
 * a metadata prefix: the program never sees fewer than 14 bytes here.
 */
static int rfs_xt_run_q(const __u8 *frame, size_t len, __u32 rxq,
			__u32 *retval)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	struct xdp_md ctx = {};

	ctx.data_end = len;
	ctx.ingress_ifindex = xt.ingress_ifindex;
	ctx.rx_queue_index = rxq;
	o.data_in = frame;
	o.data_size_in = len;
	o.ctx_in = &ctx;
	o.ctx_size_in = sizeof(ctx);
	o.repeat = 1;
	if (bpf_prog_test_run_opts(rfs_if_prog_fd(xt.ifc), &o))
		return -errno;
	*retval = o.retval;
	return 0;
}

static __u32 rfs_xt_run(const __u8 *frame, size_t len)
{
	__u32 ret = ~0u;

	assert_int_equal(rfs_xt_run_q(frame, len, 0, &ret), 0);
	return ret;
}

static __u32 rfs_xt_hash(const struct rfs_frame *f)
{
	struct rfs_flow_key k;

	rfs_frame_key(f, &k);
	return rfs_flow_hash(&k, xt.g.hash_seed);
}

static __u32 rfs_xt_idx(__u32 hash, __u32 rxq)
{
	return (hash & (RFS_XT_FLOWS - 1)) * RFS_XT_RXQ + rxq;
}

static struct rfs_dev_flow rfs_xt_entry(__u32 hash, __u32 rxq)
{
	struct rfs_dev_flow e = {};
	__u32 idx = rfs_xt_idx(hash, rxq);

	assert_int_equal(bpf_map_lookup_elem(xt.ifc->dev_flows_fd, &idx, &e), 0);
	return e;
}

/* How many dev flow entries are valid; the index of the last one. */
static int rfs_xt_valid_entries(__u32 *last)
{
	struct rfs_dev_flow e;
	int n = 0;
	__u32 i;

	for (i = 0; i < RFS_XT_FLOWS * RFS_XT_RXQ; i++) {
		assert_int_equal(bpf_map_lookup_elem(xt.ifc->dev_flows_fd, &i,
						     &e), 0);
		if (e.flags & RFS_DEV_FLOW_VALID) {
			n++;
			if (last)
				*last = i;
		}
	}
	return n;
}

static struct rfs_cpu_queue rfs_xt_queue(__u32 cpu)
{
	struct rfs_cpu_queue q;

	assert_int_equal(bpf_map_lookup_elem(xt.dp->cpu_queues_fd, &cpu, &q), 0);
	return q;
}

/*
 * Simulate the other side of a CPU's queue: the cpumap program (head),
 * delivery to the stack (done: head once GRO holds nothing), and ring
 * drops (the enqueue tracepoint).
 */
static void rfs_xt_set_queue(__u32 cpu, __u32 tail, __u32 drops, __u32 head,
			     __u32 done)
{
	struct rfs_cpu_queue q = rfs_xt_queue(cpu);

	q.tail = tail;
	q.drops = drops;
	q.head = head;
	q.done = done;
	assert_int_equal(bpf_map_update_elem(xt.dp->cpu_queues_fd, &cpu, &q,
					     BPF_ANY), 0);
}

/* Every frame of CPU 0's queue up to n dequeued and delivered. */
static void rfs_xt_deliver(__u32 cpu, __u32 n)
{
	struct rfs_cpu_queue q = rfs_xt_queue(cpu);

	rfs_xt_set_queue(cpu, q.tail, q.drops, n, n);
}

/* Frames the CPUs redirected to cpu that still sit in their bulk queues
 * (summed over the producer CPUs). */
static __u32 rfs_xt_unflushed(__u32 cpu)
{
	size_t stride = rfs_percpu_stride(sizeof(struct rfs_producer));
	char *buf = calloc(xt.ncpus, stride);
	__u32 zero = 0, n = 0;
	int c;

	assert_non_null(buf);
	assert_int_equal(bpf_map_lookup_elem(xt.dp->producer_fd, &zero, buf), 0);
	for (c = 0; c < xt.ncpus; c++)
		n += ((struct rfs_producer *)(buf + c * stride))->unflushed[cpu];
	free(buf);
	return n;
}

/* Simulate the end of the NAPI poll: every bulk queue flushed into the
 * rings (in a plain test run nothing ever flushes them). */
static void rfs_xt_flush_bulk(void)
{
	size_t stride = rfs_percpu_stride(sizeof(struct rfs_producer));
	char *buf = calloc(xt.ncpus, stride);
	__u32 zero = 0;

	assert_non_null(buf);
	assert_int_equal(bpf_map_update_elem(xt.dp->producer_fd, &zero, buf,
					     BPF_ANY), 0);
	free(buf);
}

/* What the socket side writes when the application runs on cpu. */
static void rfs_xt_set_desired(__u32 hash, __u32 cpu)
{
	rfs_sock_entry_t e = rfs_sock_entry_make(hash, cpu, xt.g.cpu_mask);
	__u32 idx = hash & xt.g.sock_flow_mask;

	assert_int_equal(bpf_map_update_elem(xt.dp->sock_flows_fd, &idx, &e,
					     BPF_ANY), 0);
	if (rfs_dp_desired_cpu(xt.dp, hash) != cpu) {
		rfs_sock_entry_t now = 0;

		bpf_map_lookup_elem(xt.dp->sock_flows_fd, &idx, &now);
		fail_msg("sock slot %u: wrote %08x (cpu %u), reads back %08x",
			 idx, e, cpu, now);
	}
}

/*
 * Run f once on rxq, expect it steered, and check the dev flow entry the
 * program must have written: at the slot of the hash computed here, valid,
 * and with last_tail equal to tail - drops of the CPU it went to.  Returns
 * the counter deltas; *cpu gets the CPU.
 */
static struct rfs_if_stats rfs_xt_steer_q(const struct rfs_frame *f,
					  __u32 rxq, __u32 *cpu)
{
	struct rfs_if_stats before, d;
	struct rfs_frame_layout lay;
	__u8 buf[RFS_FR_MAX];
	struct rfs_dev_flow e;
	__u32 ret = ~0u, hash = rfs_xt_hash(f);

	rfs_frame_build(f, buf, &lay);
	rfs_xt_stats(&before);
	assert_int_equal(rfs_xt_run_q(buf, lay.len, rxq, &ret), 0);
	d = rfs_xt_delta(&before);
	assert_int_equal(ret, XDP_REDIRECT);
	assert_int_equal(d.seen, 1);
	assert_int_equal(d.steered, 1);
	assert_int_equal(d.to_desired + d.spread + d.held, 1);
	assert_int_equal(d.redirect_err, 0);
	e = rfs_xt_entry(hash, rxq < RFS_XT_RXQ ? rxq : 0);
	assert_true(e.flags & RFS_DEV_FLOW_VALID);
	assert_in_range(e.cpu, 0, xt.ncpus - 1);
	assert_int_equal(e.last_tail,
			 rfs_xt_queue(e.cpu).tail - rfs_xt_queue(e.cpu).drops);
	if (cpu)
		*cpu = e.cpu;
	return d;
}

static struct rfs_if_stats rfs_xt_steer(const struct rfs_frame *f, __u32 *cpu)
{
	return rfs_xt_steer_q(f, 0, cpu);
}

/* Run f (cut to len bytes if len) and expect it passed for one reason. */
static void rfs_xt_expect_pass(const struct rfs_frame *f, size_t len,
			       size_t reason_off, const char *what)
{
	struct rfs_if_stats before, d;
	struct rfs_frame_layout lay;
	__u8 buf[RFS_FR_MAX];
	__u32 ret;

	rfs_frame_build(f, buf, &lay);
	rfs_xt_stats(&before);
	ret = rfs_xt_run(buf, len ? len : lay.len);
	d = rfs_xt_delta(&before);
	if (ret != XDP_PASS || d.seen != 1 || d.steered != 0 ||
	    *(__u64 *)((char *)&d + reason_off) != 1)
		fail_msg("%s: ret %u seen %llu steered %llu, reason counter %llu",
			 what, ret, (unsigned long long)d.seen,
			 (unsigned long long)d.steered,
			 (unsigned long long)*(__u64 *)((char *)&d + reason_off));
	assert_int_equal(rfs_xt_valid_entries(NULL), 0);
}

#define RFS_XT_PASS(f, len, field, what) \
	rfs_xt_expect_pass(f, len, offsetof(struct rfs_if_stats, field), what)

/* ---- tests ------------------------------------------------------------ */

struct rfs_xt_variant {
	const char *name;
	__u8 v6, opts, proto, vlans;
};

static const struct rfs_xt_variant rfs_xt_variants[] = {
	{ "ipv4 tcp", 0, 0, IPPROTO_TCP, 0 },
	{ "ipv4 udp", 0, 0, IPPROTO_UDP, 0 },
	{ "ipv4+options tcp", 0, 1, IPPROTO_TCP, 0 },
	{ "ipv4+options udp", 0, 1, IPPROTO_UDP, 0 },
	{ "ipv6 tcp", 1, 0, IPPROTO_TCP, 0 },
	{ "ipv6 udp", 1, 0, IPPROTO_UDP, 0 },
	{ "ipv6+hop-by-hop tcp", 1, 1, IPPROTO_TCP, 0 },
	{ "ipv6+hop-by-hop udp", 1, 1, IPPROTO_UDP, 0 },
	{ "vlan ipv4 tcp", 0, 0, IPPROTO_TCP, 1 },
	{ "qinq ipv4 udp", 0, 0, IPPROTO_UDP, 2 },
	{ "vlan ipv6 udp", 1, 0, IPPROTO_UDP, 1 },
	{ "qinq ipv6+hop-by-hop tcp", 1, 1, IPPROTO_TCP, 2 },
};

static void rfs_xt_variant_frame(const struct rfs_xt_variant *v, __u16 sport,
				 struct rfs_frame *f)
{
	if (v->v6)
		rfs_frame_v6(f, v->proto, "2001:db8::2", sport,
			     "2001:db8::1", 8080);
	else
		rfs_frame_v4(f, v->proto, "192.0.2.2", sport, "192.0.2.1", 8080);
	f->opts = v->opts;
	f->vlans = v->vlans;
}

/* Every IP/L4 combination is steered under the hash computed here: with
 * no desired CPU by hash (spread), with one to that CPU (to_desired). */
static void test_steer_variants(void **state)
{
	size_t i;
	__u32 cpu, want, slot;

	for (i = 0; i < RFS_XT_ARRAY_SIZE(rfs_xt_variants); i++) {
		const struct rfs_xt_variant *v = &rfs_xt_variants[i];
		struct rfs_if_stats d;
		struct rfs_frame f;

		rfs_xt_variant_frame(v, 40000 + i, &f);
		print_message("  %s: hash %08x\n", v->name, rfs_xt_hash(&f));

		rfs_xt_reset_flows();
		d = rfs_xt_steer(&f, &cpu);
		assert_int_equal(d.spread, 1);
		assert_int_equal(d.switches + d.held, 0);
		assert_int_equal(rfs_xt_valid_entries(&slot), 1);
		assert_int_equal(slot, rfs_xt_idx(rfs_xt_hash(&f), 0));

		for (want = 0; want < 2; want++) {
			rfs_xt_reset_flows();
			rfs_xt_set_desired(rfs_xt_hash(&f), want);
			d = rfs_xt_steer(&f, &cpu);
			assert_int_equal(d.to_desired, 1);
			assert_int_equal(cpu, want);
			assert_int_equal(rfs_xt_queue(want).tail, 1);
			assert_int_equal(rfs_xt_queue(!want).tail, 0);
		}
	}
}

/* 802.1Q and 802.1ad+802.1Q tagged frames hash like the untagged frame:
 * the desired CPU written under the untagged hash steers them (the entry
 * tag holds 30 bits of that hash), in the untagged frame's slot. */
static void test_vlan_same_hash(void **state)
{
	static const struct rfs_xt_variant base[] = {
		{ "ipv4 tcp", 0, 0, IPPROTO_TCP, 0 },
		{ "ipv6 udp", 1, 0, IPPROTO_UDP, 0 },
		{ "ipv6+hop-by-hop tcp", 1, 1, IPPROTO_TCP, 0 },
	};
	__u32 cpu, want, slot;
	__u8 tags;
	size_t i;

	for (i = 0; i < RFS_XT_ARRAY_SIZE(base); i++) {
		struct rfs_frame f;
		__u32 hash;

		rfs_xt_variant_frame(&base[i], 41000 + i, &f);
		hash = rfs_xt_hash(&f);
		for (tags = 1; tags <= 2; tags++) {
			for (want = 0; want < 2; want++) {
				struct rfs_if_stats d;

				f.vlans = tags;
				rfs_xt_reset_flows();
				rfs_xt_set_desired(hash, want);
				d = rfs_xt_steer(&f, &cpu);
				assert_int_equal(d.to_desired, 1);
				assert_int_equal(cpu, want);
				assert_int_equal(rfs_xt_valid_entries(&slot), 1);
				assert_int_equal(slot, rfs_xt_idx(hash, 0));
			}
		}
	}
}

static void test_fragments(void **state)
{
	struct rfs_frame f;

	rfs_frame_v4(&f, IPPROTO_UDP, "192.0.2.2", 5000, "192.0.2.1", 53);
	f.frag_off = RFS_FR_IP_MF;
	RFS_XT_PASS(&f, 0, pass_fragment, "ipv4 first fragment (MF)");
	f.frag_off = 185;
	RFS_XT_PASS(&f, 0, pass_fragment, "ipv4 last fragment (offset)");
	f.frag_off = RFS_FR_IP_MF | 185;
	RFS_XT_PASS(&f, 0, pass_fragment, "ipv4 middle fragment");
	f.vlans = 2;
	RFS_XT_PASS(&f, 0, pass_fragment, "qinq ipv4 fragment");
	f.proto = IPPROTO_TCP;
	f.vlans = 0;
	f.opts = 1;
	RFS_XT_PASS(&f, 0, pass_fragment, "ipv4+options tcp fragment");

	rfs_frame_v6(&f, IPPROTO_UDP, "2001:db8::2", 5000, "2001:db8::1", 53);
	f.v6_frag = 1;
	f.v6_frag_off = 1;			/* offset 0, M */
	RFS_XT_PASS(&f, 0, pass_fragment, "ipv6 first fragment");
	f.v6_frag_off = 100 << 3;		/* offset 800, last */
	RFS_XT_PASS(&f, 0, pass_fragment, "ipv6 last fragment");
	f.opts = 1;
	RFS_XT_PASS(&f, 0, pass_fragment, "ipv6 hop-by-hop + fragment");
	f.vlans = 1;
	RFS_XT_PASS(&f, 0, pass_fragment, "vlan ipv6 fragment");

	/* DF is not a fragment: steered. */
	rfs_frame_v4(&f, IPPROTO_TCP, "192.0.2.2", 5001, "192.0.2.1", 80);
	f.frag_off = 0x4000;
	rfs_xt_steer(&f, NULL);
}

static void test_other_proto(void **state)
{
	static const __u8 v4[] = { IPPROTO_ICMP, IPPROTO_GRE, IPPROTO_SCTP,
				   IPPROTO_ESP };
	static const __u8 v6[] = { IPPROTO_ICMPV6, IPPROTO_SCTP, 59 /* none */,
				   IPPROTO_IPIP };
	struct rfs_frame f;
	size_t i;

	for (i = 0; i < sizeof(v4); i++) {
		rfs_frame_v4(&f, v4[i], "192.0.2.2", 0, "192.0.2.1", 0);
		f.opts = i & 1;
		f.vlans = i % 3;
		RFS_XT_PASS(&f, 0, pass_other_proto, "ipv4 other protocol");
	}
	for (i = 0; i < sizeof(v6); i++) {
		rfs_frame_v6(&f, v6[i], "2001:db8::2", 0, "2001:db8::1", 0);
		f.opts = i & 1;
		f.vlans = i % 3;
		RFS_XT_PASS(&f, 0, pass_other_proto, "ipv6 other protocol");
	}
}

static void test_not_ip(void **state)
{
	static const __u16 types[] = { RFS_FR_ETH_P_ARP, RFS_FR_ETH_P_LLDP,
				       0x8847 /* MPLS */, 0x0001 };
	struct rfs_frame f;
	size_t i;
	__u8 tags;

	for (i = 0; i < RFS_XT_ARRAY_SIZE(types); i++) {
		for (tags = 0; tags <= 2; tags++) {
			rfs_frame_v4(&f, IPPROTO_UDP, "192.0.2.2", 1,
				     "192.0.2.1", 2);
			f.ethertype = types[i];
			f.vlans = tags;
			RFS_XT_PASS(&f, 0, pass_not_ip, "non-IP ethertype");
		}
	}
	/* A third tag: the parser reads two, then sees a VLAN type. */
	f.ethertype = RFS_FR_ETH_P_8021Q;
	f.vlans = 2;
	RFS_XT_PASS(&f, 0, pass_not_ip, "three VLAN tags");
}

/* Every cut shorter than the end of the L4 ports passes as truncated (it
 * never reads past data_end: the verifier would not allow it, and the
 * result must be a pass, not a redirect); the cut at the end of the
 * ports is enough to steer. */
static void test_truncated(void **state)
{
	size_t i, len;

	for (i = 0; i < RFS_XT_ARRAY_SIZE(rfs_xt_variants); i++) {
		const struct rfs_xt_variant *v = &rfs_xt_variants[i];
		struct rfs_frame_layout lay;
		__u8 buf[RFS_FR_MAX];
		struct rfs_frame f;

		rfs_xt_variant_frame(v, 42000 + i, &f);
		rfs_frame_build(&f, buf, &lay);
		for (len = 0; len < lay.ports_end; len++) {
			struct rfs_if_stats before, d;
			__u32 ret = ~0u;
			int e;

			rfs_xt_stats(&before);
			e = rfs_xt_run_q(buf, len, 0, &ret);
			d = rfs_xt_delta(&before);
			if (len < 14) {
				/* refused by the kernel, never run */
				assert_int_equal(e, -EINVAL);
				assert_int_equal(d.seen, 0);
				continue;
			}
			assert_int_equal(e, 0);
			if (ret != XDP_PASS || d.seen != 1 || d.steered ||
			    d.pass_truncated + d.pass_not_ip != 1)
				fail_msg("%s cut at %zu: ret %u seen %llu steered %llu truncated %llu not_ip %llu",
					 v->name, len, ret,
					 (unsigned long long)d.seen,
					 (unsigned long long)d.steered,
					 (unsigned long long)d.pass_truncated,
					 (unsigned long long)d.pass_not_ip);
			/* Every cut of an IP frame is a truncated IP frame:
			 * the ethertype is read only when all 14 (18, 22)
			 * bytes are there. */
			assert_int_equal(d.pass_truncated, 1);
		}
		assert_int_equal(rfs_xt_valid_entries(NULL), 0);
		assert_int_equal(rfs_xt_run(buf, lay.ports_end), XDP_REDIRECT);
		assert_int_equal(rfs_xt_valid_entries(NULL), 1);
		rfs_xt_reset_flows();
	}
}

/*
 * Random and mutated frames (fixed seed) with random desired CPUs in the
 * sock table, including CPU 0 (not allowed) and a CPU that does not
 * exist: only XDP_PASS or XDP_REDIRECT, and nothing ever goes to CPU 0.
 */
static void test_garbage(void **state)
{
	struct rfs_if_stats before, d;
	struct rfs_dev_flow e;
	__u32 i, n_redirect = 0, tail1;
	unsigned int seed = 0x5eed;

	rfs_xt_set_cpus("1");
	assert_int_equal(rfs_xt_queue(0).tail, 0);
	rfs_xt_stats(&before);
	for (i = 0; i < 20000; i++) {
		const struct rfs_xt_variant *v =
			&rfs_xt_variants[rand_r(&seed) %
					 RFS_XT_ARRAY_SIZE(rfs_xt_variants)];
		struct rfs_frame_layout lay;
		__u8 buf[RFS_FR_MAX];
		struct rfs_frame f;
		size_t len, k, n;
		__u32 ret;

		rfs_xt_variant_frame(v, rand_r(&seed), &f);
		if (rand_r(&seed) & 1)
			rfs_xt_set_desired(rfs_xt_hash(&f), rand_r(&seed) % 3);
		rfs_frame_build(&f, buf, &lay);
		switch (rand_r(&seed) % 3) {
		case 0:		/* pure noise */
			len = 14 + rand_r(&seed) % 286;
			for (k = 0; k < len; k++)
				buf[k] = rand_r(&seed);
			break;
		case 1: {	/* noise behind a plausible ethertype */
			static const __u16 t[] = {
				RFS_FR_ETH_P_IP, RFS_FR_ETH_P_IPV6,
				RFS_FR_ETH_P_8021Q, RFS_FR_ETH_P_8021AD,
			};

			len = 14 + rand_r(&seed) % 286;
			for (k = 14; k < len; k++)
				buf[k] = rand_r(&seed);
			rfs_fr_put16(buf + 12, t[rand_r(&seed) % 4]);
			break;
		}
		default:	/* a real frame with a few bytes flipped */
			len = lay.len;
			n = rand_r(&seed) % 4;
			for (k = 0; k < n; k++)
				buf[rand_r(&seed) % len] ^= 1 << (rand_r(&seed) % 8);
			if (rand_r(&seed) % 4 == 0)
				len = 14 + rand_r(&seed) % (len - 13);
			break;
		}
		ret = rfs_xt_run(buf, len);
		if (ret != XDP_PASS && ret != XDP_REDIRECT)
			fail_msg("garbage frame %u: verdict %u", i, ret);
		n_redirect += ret == XDP_REDIRECT;
	}
	d = rfs_xt_delta(&before);
	print_message("  garbage: %u frames, %u redirected\n", i, n_redirect);
	assert_true(n_redirect > 0);
	assert_int_equal(d.seen, i);
	assert_int_equal(d.steered, n_redirect);
	assert_int_equal(d.steered + d.pass_not_ip + d.pass_fragment +
			 d.pass_other_proto + d.pass_truncated + d.pass_no_table +
			 d.redirect_err, i);
	/* CPU 0 was never given a frame; every flow sits on CPU 1. */
	assert_int_equal(rfs_xt_queue(0).tail, 0);
	tail1 = rfs_xt_queue(1).tail;
	assert_int_equal(tail1, n_redirect);
	for (i = 0; i < RFS_XT_FLOWS * RFS_XT_RXQ; i++) {
		assert_int_equal(bpf_map_lookup_elem(xt.ifc->dev_flows_fd, &i,
						     &e), 0);
		if (e.flags & RFS_DEV_FLOW_VALID)
			assert_int_equal(e.cpu, 1);
	}
}

/* ctx_in picks the RX queue: one flow has one entry per queue, and a
 * queue beyond rx_queues shares queue 0's. */
static void test_rx_queue(void **state)
{
	struct rfs_frame f;
	__u32 ret, slot;
	__u8 buf[RFS_FR_MAX];
	struct rfs_frame_layout lay;
	int e;

	rfs_frame_v4(&f, IPPROTO_TCP, "192.0.2.2", 43000, "192.0.2.1", 80);
	rfs_frame_build(&f, buf, &lay);
	if (!xt.ingress_ifindex) {
		/* Without a device the kernel takes queue 0 only. */
		e = rfs_xt_run_q(buf, lay.len, 1, &ret);
		print_message("  rx_queue_index 1 without ingress_ifindex: %s\n",
			      e ? strerror(-e) : "accepted");
		skip();
	}
	rfs_xt_steer_q(&f, 1, NULL);
	assert_int_equal(rfs_xt_valid_entries(&slot), 1);
	assert_int_equal(slot, rfs_xt_idx(rfs_xt_hash(&f), 1));
	rfs_xt_steer_q(&f, 0, NULL);
	assert_int_equal(rfs_xt_valid_entries(NULL), 2);
	assert_true(rfs_xt_entry(rfs_xt_hash(&f), 0).flags & RFS_DEV_FLOW_VALID);

	/* Queue 3 of a 4-queue device, interface configured with 2. */
	rfs_xt_reset_flows();
	rfs_xt_steer_q(&f, 3, NULL);
	assert_int_equal(rfs_xt_valid_entries(&slot), 1);
	assert_int_equal(slot, rfs_xt_idx(rfs_xt_hash(&f), 0));

	/* The kernel refuses a queue the device does not have. */
	e = rfs_xt_run_q(buf, lay.len, RFS_XT_INGRESS_RXQ, &ret);
	assert_int_equal(e, -EINVAL);
}

/* No desired CPU: a CPU from the allowed set; a desired CPU outside it
 * (or one that does not exist) is ignored and the flow spread. */
static void test_allowed_set(void **state)
{
	struct rfs_if_stats d;
	struct rfs_frame f;
	__u32 cpu, want, i;
	const char *sets[] = { "0", "1" };

	for (want = 0; want < 2; want++) {
		rfs_xt_set_cpus(sets[want]);
		for (i = 0; i < 32; i++) {
			rfs_frame_v4(&f, IPPROTO_UDP, "192.0.2.2", 44000 + i,
				     "192.0.2.1", 53);
			f.v6 = 0;
			d = rfs_xt_steer(&f, &cpu);
			assert_int_equal(d.spread, 1);
			assert_int_equal(cpu, want);
		}
		rfs_xt_reset_flows();
	}

	/* Allowed {1}: desired 0 (not allowed) and 2 (no such CPU). */
	for (want = 0; want <= 2; want += 2) {
		rfs_frame_v6(&f, IPPROTO_TCP, "2001:db8::2", 45000 + want,
			     "2001:db8::1", 443);
		rfs_xt_set_desired(rfs_xt_hash(&f), want);
		d = rfs_xt_steer(&f, &cpu);
		assert_int_equal(d.spread, 1);
		assert_int_equal(d.to_desired, 0);
		assert_int_equal(cpu, 1);
	}

	/* And both allowed: both CPUs get spread flows. */
	rfs_xt_set_cpus("0-1");
	{
		int seen[2] = { 0, 0 };

		for (i = 0; i < 64; i++) {
			rfs_frame_v4(&f, IPPROTO_TCP, "192.0.2.3", 46000 + i,
				     "192.0.2.1", 80);
			rfs_xt_reset_flows();
			rfs_xt_steer(&f, &cpu);
			seen[cpu]++;
		}
		assert_true(seen[0] > 0 && seen[1] > 0);
	}
}

/* No CPU allowed at all (config written by hand): pass, pass_no_table;
 * a CPU missing from the cpumap: pass, redirect_err, entry untouched. */
static void test_no_table_and_redirect_err(void **state)
{
	struct rfs_if_config cfg, saved;
	struct rfs_if_stats before, d;
	struct rfs_frame_layout lay;
	struct bpf_cpumap_val val;
	__u8 buf[RFS_FR_MAX];
	struct rfs_frame f;
	__u32 zero = 0, cpu = 1;
	char err[RFS_ERR_LEN];

	rfs_frame_v4(&f, IPPROTO_TCP, "192.0.2.2", 47000, "192.0.2.1", 80);
	rfs_frame_build(&f, buf, &lay);

	assert_int_equal(bpf_map_lookup_elem(xt.ifc->cfg_fd, &zero, &saved), 0);
	cfg = saved;
	memset(cfg.allowed, 0, sizeof(cfg.allowed));
	memset(cfg.usable, 0, sizeof(cfg.usable));
	cfg.n_allowed = 0;
	assert_int_equal(bpf_map_update_elem(xt.ifc->cfg_fd, &zero, &cfg,
					     BPF_ANY), 0);
	RFS_XT_PASS(&f, 0, pass_no_table, "no CPU allowed");
	assert_int_equal(bpf_map_update_elem(xt.ifc->cfg_fd, &zero, &saved,
					     BPF_ANY), 0);

	/* Take CPU 1 out of the cpumap behind the datapath's back. */
	assert_int_equal(bpf_map_lookup_elem(xt.dp->cpu_map_fd, &cpu, &val), 0);
	assert_int_equal(bpf_map_delete_elem(xt.dp->cpu_map_fd, &cpu), 0);
	rfs_xt_set_desired(rfs_xt_hash(&f), 1);
	rfs_xt_stats(&before);
	assert_int_equal(rfs_xt_run(buf, lay.len), XDP_PASS);
	d = rfs_xt_delta(&before);
	/* sync the cpumap back before asserting: a failure must not leave
	 * CPU 1 without a queue for the tests after this one */
	assert_int_equal(rfs_dp_refresh_cpus(xt.dp, err), 0);
	assert_int_equal(d.redirect_err, 1);
	assert_int_equal(d.steered, 0);
	assert_int_equal(rfs_xt_valid_entries(NULL), 0);
	assert_int_equal(rfs_xt_queue(1).tail, 0);
	assert_int_equal(bpf_map_lookup_elem(xt.dp->cpu_map_fd, &cpu, &val), 0);
	assert_int_equal(rfs_xt_run(buf, lay.len), XDP_REDIRECT);
}

/*
 * Put a flow on CPU 0 with n frames "queued" there (tail start + n, head
 * and done at start), its bulk queue flushed; returns its hash.
 */
static __u32 rfs_xt_flow_on_cpu0(struct rfs_frame *f, __u16 sport,
				 __u32 start, int n)
{
	__u32 hash, cpu;
	int i;

	rfs_frame_v4(f, IPPROTO_TCP, "192.0.2.2", sport, "192.0.2.1", 80);
	hash = rfs_xt_hash(f);
	rfs_xt_set_queue(0, start, 0, start, start);
	rfs_xt_set_desired(hash, 0);
	for (i = 0; i < n; i++) {
		rfs_xt_steer(f, &cpu);
		assert_int_equal(cpu, 0);
	}
	assert_int_equal(rfs_xt_entry(hash, 0).last_tail, start + n);
	/* each redirected frame waits in the bulk queue until the flush */
	assert_int_equal(rfs_xt_unflushed(0), n);
	rfs_xt_flush_bulk();
	return hash;
}

/* Run a frame of a flow that wants to leave CPU 0: it must stay, and
 * wait for this frame too. */
static void rfs_xt_expect_held(const struct rfs_frame *f, __u32 hash)
{
	struct rfs_cpu_queue q = rfs_xt_queue(0);
	struct rfs_dev_flow after;
	struct rfs_if_stats d;
	__u32 cpu;

	d = rfs_xt_steer(f, &cpu);
	after = rfs_xt_entry(hash, 0);
	assert_int_equal(d.held, 1);
	assert_int_equal(d.switches, 0);
	assert_int_equal(cpu, 0);
	assert_int_equal(after.cpu, 0);
	assert_int_equal(after.last_tail, q.tail + 1 - q.drops);
}

static void rfs_xt_expect_switch(const struct rfs_frame *f, __u32 hash,
				 __u32 to)
{
	struct rfs_cpu_queue q = rfs_xt_queue(to);
	struct rfs_if_stats d;
	__u32 cpu;

	d = rfs_xt_steer(f, &cpu);
	assert_int_equal(d.switches, 1);
	assert_int_equal(d.held, 0);
	assert_int_equal(cpu, to);
	assert_int_equal(rfs_xt_entry(hash, 0).cpu, to);
	assert_int_equal(rfs_xt_entry(hash, 0).last_tail, q.tail + 1 - q.drops);
}

/*
 * The in-order rule: a flow on CPU 0 whose application moves to CPU 1
 * stays on CPU 0 while any of its frames may still be ahead of the stack
 * there: queued, dequeued but held by GRO (head passed, done not), or
 * still in this RX CPU's bulk queue.  It moves on the first frame after
 * CPU 0's done has reached its last tail with the bulk queue flushed.
 */
static void test_inorder_head(void **state)
{
	struct rfs_cpu_queue q;
	struct rfs_frame f;
	__u32 hash, t;

	hash = rfs_xt_flow_on_cpu0(&f, 48000, 0, 3);
	q = rfs_xt_queue(0);
	assert_int_equal(q.head, 0);
	assert_int_equal(q.done, 0);
	rfs_xt_set_desired(hash, 1);
	rfs_xt_expect_held(&f, hash);
	rfs_xt_expect_held(&f, hash);
	rfs_xt_flush_bulk();

	/* All but the flow's last frame delivered: still held. */
	t = rfs_xt_entry(hash, 0).last_tail;
	assert_int_equal(t, 5);
	rfs_xt_deliver(0, t - 1);
	rfs_xt_expect_held(&f, hash);
	rfs_xt_flush_bulk();

	/* Every frame dequeued (head) but the last still held in GRO. */
	t = rfs_xt_entry(hash, 0).last_tail;
	q = rfs_xt_queue(0);
	rfs_xt_set_queue(0, q.tail, q.drops, t, t - 1);
	rfs_xt_expect_held(&f, hash);

	/* done has reached last_tail, but this RX CPU's bulk queue still
	 * holds a frame for CPU 0 (the one just sent): held once more. */
	t = rfs_xt_entry(hash, 0).last_tail;
	rfs_xt_deliver(0, t);
	assert_int_equal(rfs_xt_unflushed(0), 1);
	rfs_xt_expect_held(&f, hash);

	/* Flushed and delivered: it moves. */
	t = rfs_xt_entry(hash, 0).last_tail;
	rfs_xt_flush_bulk();
	rfs_xt_deliver(0, t);
	rfs_xt_expect_switch(&f, hash, 1);

	/* On CPU 1 now: it stays there (KEEP), CPU 0's tail does not move,
	 * though CPU 1's bulk queue is not flushed: nothing waits on it. */
	t = rfs_xt_queue(0).tail;
	assert_int_equal(rfs_xt_unflushed(1), 1);
	rfs_xt_steer(&f, NULL);
	assert_int_equal(rfs_xt_entry(hash, 0).cpu, 1);
	assert_int_equal(rfs_xt_queue(0).tail, t);
}

/*
 * Frames the ring dropped are never delivered: the next frame's last_tail
 * leaves them out (tail - drops), so the flow does not wait for them.
 */
static void test_inorder_drops(void **state)
{
	struct rfs_frame f;
	__u32 hash, t;

	hash = rfs_xt_flow_on_cpu0(&f, 48100, 0, 4);
	rfs_xt_set_desired(hash, 1);
	t = rfs_xt_entry(hash, 0).last_tail;
	assert_int_equal(t, 4);
	/* 2 of the 4 dropped, the other 2 delivered: done can only reach 2,
	 * the flow's last_tail (4) predates the drops: held ... */
	rfs_xt_set_queue(0, 4, 2, 2, 2);
	rfs_xt_expect_held(&f, hash);
	/* ... but the held frame's last_tail is 5 - 2 = 3 */
	t = rfs_xt_entry(hash, 0).last_tail;
	assert_int_equal(t, 3);
	rfs_xt_flush_bulk();
	rfs_xt_deliver(0, t - 1);
	rfs_xt_expect_held(&f, hash);
	t = rfs_xt_entry(hash, 0).last_tail;
	assert_int_equal(t, 4);
	rfs_xt_flush_bulk();
	rfs_xt_deliver(0, t);
	rfs_xt_expect_switch(&f, hash, 1);
}

/* The counters wrap: done "before" a wrapped last_tail is still behind. */
static void test_inorder_wrap(void **state)
{
	struct rfs_frame f;
	__u32 hash, t;

	hash = rfs_xt_flow_on_cpu0(&f, 48200, 0xfffffffeu, 4);
	t = rfs_xt_entry(hash, 0).last_tail;
	assert_int_equal(t, 2);		/* wrapped */
	rfs_xt_set_desired(hash, 1);
	rfs_xt_deliver(0, 0xffffffffu);
	rfs_xt_expect_held(&f, hash);
	rfs_xt_flush_bulk();
	t = rfs_xt_entry(hash, 0).last_tail;
	rfs_xt_deliver(0, t - 1);
	rfs_xt_expect_held(&f, hash);
	rfs_xt_flush_bulk();
	t = rfs_xt_entry(hash, 0).last_tail;
	rfs_xt_deliver(0, t);
	rfs_xt_expect_switch(&f, hash, 1);
}

/*
 * Removing CPU 0 while a flow has frames queued there: the flow stays on
 * CPU 0 (held) until they are delivered, then moves; no new flow is ever
 * given CPU 0 after the removal, even one whose application runs there.
 */
static void test_remove_cpu(void **state)
{
	struct rfs_if_config cfg;
	struct rfs_frame f, g;
	__u32 hash, zero = 0, cpu, i, t;

	hash = rfs_xt_flow_on_cpu0(&f, 48300, 0, 3);
	rfs_xt_set_cpus("1");
	/* CPU 0 left the allowed set but stays usable until it drains. */
	assert_int_equal(bpf_map_lookup_elem(xt.ifc->cfg_fd, &zero, &cfg), 0);
	assert_false(rfs_cpu_in(cfg.allowed, 0));
	assert_true(rfs_cpu_in(cfg.usable, 0));
	assert_int_equal(cfg.n_allowed, 1);
	assert_int_equal(cfg.allowed_list[0], 1);

	/* The application still runs on CPU 0: the flow is held there. */
	rfs_xt_expect_held(&f, hash);
	/* It moves to CPU 1 instead: held all the same. */
	rfs_xt_set_desired(hash, 1);
	rfs_xt_expect_held(&f, hash);
	/* And with no desired CPU at all. */
	{
		rfs_sock_entry_t zero_e = 0;
		__u32 idx = hash & xt.g.sock_flow_mask;

		assert_int_equal(bpf_map_update_elem(xt.dp->sock_flows_fd,
						     &idx, &zero_e, BPF_ANY), 0);
	}
	rfs_xt_expect_held(&f, hash);

	/* New flows, with and without desired CPU 0: never CPU 0. */
	t = rfs_xt_queue(0).tail;
	for (i = 0; i < 32; i++) {
		rfs_frame_v4(&g, IPPROTO_UDP, "192.0.2.4", 49000 + i,
			     "192.0.2.1", 53);
		if (rfs_xt_entry(rfs_xt_hash(&g), 0).flags & RFS_DEV_FLOW_VALID)
			continue;	/* shares the held flow's slot */
		if (i & 1)
			rfs_xt_set_desired(rfs_xt_hash(&g), 0);
		rfs_xt_steer(&g, &cpu);
		assert_int_equal(cpu, 1);
	}
	assert_int_equal(rfs_xt_queue(0).tail, t);

	/* CPU 0's queue drains: the flow moves on its next frame. */
	t = rfs_xt_entry(hash, 0).last_tail;
	rfs_xt_flush_bulk();
	rfs_xt_deliver(0, t);
	rfs_xt_expect_switch(&f, hash, 1);

	/* Drained: the next refresh (rfsd's timer) finishes the removal. */
	{
		char err[RFS_ERR_LEN];

		assert_int_equal(rfs_dp_refresh_cpus(xt.dp, err), 0);
	}
	assert_int_equal(bpf_map_lookup_elem(xt.ifc->cfg_fd, &zero, &cfg), 0);
	assert_false(rfs_cpu_in(cfg.usable, 0));
}

/* Removing a CPU whose queue has already drained is immediate: its flows
 * leave on their next frame (forced: the CPU is not usable any more). */
static void test_remove_cpu_drained(void **state)
{
	struct rfs_if_config cfg;
	struct rfs_frame f;
	__u32 hash, zero = 0;

	hash = rfs_xt_flow_on_cpu0(&f, 48350, 0, 3);
	rfs_xt_deliver(0, rfs_xt_entry(hash, 0).last_tail);
	rfs_xt_set_cpus("1");
	assert_int_equal(bpf_map_lookup_elem(xt.ifc->cfg_fd, &zero, &cfg), 0);
	assert_false(rfs_cpu_in(cfg.usable, 0));
	assert_false(rfs_cpu_in(cfg.allowed, 0));
	rfs_xt_expect_switch(&f, hash, 1);
}

/*
 * A removed CPU whose queue never drains (a stuck kthread) is given up
 * after RFS_LEAVE_REFRESHES refreshes: the flow is then forced off it.
 */
static void test_remove_cpu_timeout(void **state)
{
	struct rfs_if_config cfg;
	char err[RFS_ERR_LEN];
	struct rfs_frame f;
	__u32 hash, zero = 0;
	int i;

	hash = rfs_xt_flow_on_cpu0(&f, 48400, 0, 2);
	rfs_xt_set_cpus("1");		/* refresh 1 */
	for (i = 1; i < RFS_LEAVE_REFRESHES - 1; i++)
		assert_int_equal(rfs_dp_refresh_cpus(xt.dp, err), 0);
	assert_int_equal(bpf_map_lookup_elem(xt.ifc->cfg_fd, &zero, &cfg), 0);
	assert_true(rfs_cpu_in(cfg.usable, 0));
	rfs_xt_expect_held(&f, hash);

	assert_int_equal(rfs_dp_refresh_cpus(xt.dp, err), 0);
	assert_int_equal(bpf_map_lookup_elem(xt.ifc->cfg_fd, &zero, &cfg), 0);
	assert_false(rfs_cpu_in(cfg.usable, 0));
	rfs_xt_expect_switch(&f, hash, 1);	/* FORCED */
}

static __u64 rfs_xt_dequeued(__u32 cpu)
{
	size_t stride = rfs_percpu_stride(sizeof(struct rfs_global_stats));
	struct rfs_global_stats *gs;
	char *buf = calloc(xt.ncpus, stride);
	__u32 zero = 0;
	__u64 n;

	assert_non_null(buf);
	assert_int_equal(bpf_map_lookup_elem(xt.dp->gstats_fd, &zero, buf), 0);
	gs = (void *)(buf + cpu * stride);
	n = gs->dequeued;
	free(buf);
	return n;
}

/*
 * Live frames really go through bpf_redirect_map into the cpumap: the
 * test run flushes the bulk queue into the target's ring (the enqueue
 * tracepoint then zeroes unflushed), the target CPU's kthread runs
 * rfs_cpumap on each frame, which advances that CPU's head and dequeued
 * counter, and done follows once the frames are delivered, until both
 * reach the tail the XDP program claimed.  The test thread runs on CPU
 * 0, so target 1 is a remote CPU and target 0 the local one.
 *
 * No real ingress device is needed: without ingress_ifindex the kernel
 * uses RX queue 0 of the netns' loopback (target 0 runs that way); target
 * 1 names RX queue 1 of our veth.  The frames are addressed to a MAC no
 * device has, so after the cpumap the stack drops them (PACKET_OTHERHOST).
 */
static void test_live_frames(void **state)
{
	struct rfs_frame_layout lay;
	__u8 buf[RFS_FR_MAX];
	struct rfs_frame f;
	cpu_set_t set, old;
	__u32 target;
	int i, e;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
	for (target = 0; target < 2; target++) {
		LIBBPF_OPTS(bpf_test_run_opts, o);
		struct xdp_md ctx = {};
		struct rfs_cpu_queue q;
		__u64 deq0 = rfs_xt_dequeued(target);
		__u32 repeat = 64;

		rfs_xt_reset_flows();
		rfs_frame_v4(&f, IPPROTO_UDP, "192.0.2.2", 50000 + target,
			     "192.0.2.1", 9);
		rfs_frame_build(&f, buf, &lay);
		rfs_xt_set_desired(rfs_xt_hash(&f), target);
		ctx.data_end = lay.len;
		if (target == 1 && xt.ingress_ifindex) {
			ctx.ingress_ifindex = xt.ingress_ifindex;
			ctx.rx_queue_index = 1;
		}
		o.data_in = buf;
		o.data_size_in = lay.len;
		o.ctx_in = &ctx;
		o.ctx_size_in = sizeof(ctx);
		o.repeat = repeat;
		o.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
		e = bpf_prog_test_run_opts(rfs_if_prog_fd(xt.ifc), &o);
		if (e) {
			sched_setaffinity(0, sizeof(old), &old);
			fail_msg("live test run: %s", strerror(errno));
		}
		/* The kthread is woken at the end of each batch. */
		for (i = 0; i < 200; i++) {
			q = rfs_xt_queue(target);
			if (q.head == q.tail && q.tail == repeat &&
			    q.done == repeat)
				break;
			rfs_tu_sleep_ms(10);
		}
		print_message("  live -> CPU %u: tail %u head %u done %u drops %u dequeued +%llu\n",
			      target, q.tail, q.head, q.done, q.drops,
			      (unsigned long long)(rfs_xt_dequeued(target) - deq0));
		assert_int_equal(q.tail, repeat);
		assert_int_equal(q.head, repeat);
		assert_int_equal(q.done, repeat);
		assert_int_equal(q.drops, 0);
		/* the bulk queue was really flushed (enqueue tracepoint) */
		assert_int_equal(rfs_xt_unflushed(target), 0);
		assert_int_equal(rfs_xt_dequeued(target) - deq0, repeat);
		assert_int_equal(rfs_xt_queue(!target).tail, 0);
		assert_int_equal(rfs_xt_queue(!target).head, 0);
		/* Live frames run on a copy of the ingress queue's info
		 * that the kernel registers as queue 0 (xdp_test_run_setup),
		 * so rx_queue_index 1 arrives as 0. */
		{
			struct rfs_dev_flow e0 = rfs_xt_entry(rfs_xt_hash(&f), 0);
			struct rfs_dev_flow e1 = rfs_xt_entry(rfs_xt_hash(&f), 1);
			struct rfs_dev_flow *e = e1.flags ? &e1 : &e0;

			if (ctx.rx_queue_index)
				print_message("  live frames on rx_queue_index 1 seen on queue %d\n",
					      e == &e1);
			assert_true(e->flags & RFS_DEV_FLOW_VALID);
			assert_int_equal(e->cpu, target);
			assert_false((e0.flags & e1.flags) & RFS_DEV_FLOW_VALID);
		}
	}
	sched_setaffinity(0, sizeof(old), &old);
}

/* Printed, not asserted: the cost of a steered IPv4 TCP frame. */
static void test_cost(void **state)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	struct rfs_frame_layout lay;
	__u8 buf[RFS_FR_MAX];
	struct rfs_frame f;

	rfs_frame_v4(&f, IPPROTO_TCP, "192.0.2.2", 51000, "192.0.2.1", 80);
	rfs_frame_build(&f, buf, &lay);
	rfs_xt_set_desired(rfs_xt_hash(&f), 1);
	o.data_in = buf;
	o.data_size_in = lay.len;
	o.repeat = 1000000;
	assert_int_equal(bpf_prog_test_run_opts(rfs_if_prog_fd(xt.ifc), &o), 0);
	assert_int_equal(o.retval, XDP_REDIRECT);
	printf("cost: rfs_xdp %u ns/frame\n", o.duration);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, rfs_xt_setup, rfs_xt_teardown)
		T(test_steer_variants),
		T(test_vlan_same_hash),
		T(test_fragments),
		T(test_other_proto),
		T(test_not_ip),
		T(test_truncated),
		T(test_garbage),
		T(test_rx_queue),
		T(test_allowed_set),
		T(test_no_table_and_redirect_err),
		T(test_inorder_head),
		T(test_inorder_drops),
		T(test_inorder_wrap),
		T(test_remove_cpu),
		T(test_remove_cpu_drained),
		T(test_remove_cpu_timeout),
		T(test_live_frames),
		T(test_cost),
#undef T
	};

	rfs_log_init("test_xdp", getenv("V") != NULL);
	rfs_log_hook_libs();
	if (geteuid()) {
		fprintf(stderr, "test_xdp: needs root (BPF_PROG_TEST_RUN)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, rfs_xt_group_setup,
				      rfs_xt_group_teardown);
}
