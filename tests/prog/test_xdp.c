// SPDX-License-Identifier: GPL-2.0
/*
 * BPF_PROG_TEST_RUN of the real datapath objects, loaded through
 * daemon/lib exactly as rfsd loads them (rfs_dp_open, and rfs_if_attach
 * with no_attach), on frames built by frames.h.  Each test checks the
 * verdict, the counters in rfs_if_stats, the dev flow entry at the index
 * computed here (rfs_dev_index through the table's header entry), the
 * per-(RX CPU, target) sequence numbers in rfs_tx_seq and the metadata
 * the frame carries out of rfs_xdp (data_out of the test run).
 *
 * The test thread is pinned to CPU 0 for the whole run, so the RX CPU
 * (bpf_get_smp_processor_id) is known: 0.  Most tests use an interface
 * with the local path off, where every frame goes through the cpumap, to
 * CPU 0 as well as to CPU 1; the local-path tests attach one with it on
 * (what rfsd does), where frames for CPU 0 are passed up (XDP_PASS).
 *
 * In a plain test run a redirected frame is never enqueued: no cpumap
 * program marks it and no kthread proves it delivered.  That is what
 * makes the in-order rule testable: the test plays the target side
 * itself, writing marks into rfs_rx_track and delivered epochs into
 * rfs_cpu_queues, and checks that a flow leaves its CPU exactly when
 * rfs_order.h says it may.  The target side's own code is tested two
 * ways: rfs_cpumap itself, loaded a second time from the core object as
 * a plain XDP program (the kernel refuses to test-run a cpumap program)
 * and run on the frames rfs_xdp put out, metadata and all; and live
 * frames (BPF_F_TEST_XDP_LIVE_FRAMES) through the real cpumap, its
 * kthreads and the xdp_cpumap_kthread tracepoint.
 *
 * The socket-side programs are detached (rfs_xt_detach_sock_side()): the
 * desired CPUs come from the test alone.
 *
 * The RX queue comes from ctx_in.  The kernel only takes a nonzero
 * rx_queue_index together with the ifindex of a real device that has that
 * many queues (xdp_convert_md_to_buff()), so the tests create a veth
 * pair with 4 RX queues and name one end as the ingress device; without
 * it only queue 0 is tested.  Frames shorter than an Ethernet header are
 * refused by the kernel (-EINVAL) before the program runs.
 *
 * Tests that reproduce a datapath bug fail with a "DATAPATH BUG"
 * message; RFS_XT_SKIP_KNOWN_BUGS=1 turns those into skips.
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
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <netinet/in.h>

#include "frames.h"
#include "rfs_decide.h"
#include "rfs_order.h"
#include "log.h"
#include "rfs_dp.h"
#include "rfs_test_util.h"
#include "rfs_core.skel.h"
#include "tests/bpf/layout.skel.h"
#include "tests/bpf/rearm.skel.h"
#include "bpf/rfs_layout.h"

#define RFS_XT_RXQ		2	/* rx_queues of the test interface */
#define RFS_XT_FLOWS		64	/* its flow_cnt */
#define RFS_XT_SOCK_ENTRIES	1024
#define RFS_XT_HASH_SEED	0x2f6b9c41u	/* fixed: see the group setup */
#define RFS_XT_INGRESS_RXQ	4	/* queues of the ingress veth */
#define RFS_XT_RX_CPU		0	/* the test thread runs here */
#define RFS_XT_META		((__u32)sizeof(struct rfs_frame_meta))
#define RFS_XT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

_Static_assert(sizeof(struct rfs_frame_meta) == 8, "metadata is 8 bytes");

static struct {
	struct rfs_dp *dp;
	struct rfs_if *ifc;
	struct rfs_globals g;
	int ncpus;		/* possible CPUs: per-CPU values */
	int nsteer;		/* the CPUs steering covers (capped) */
	char pin_dir[64];
	char ingress[IF_NAMESIZE];
	int ingress_ifindex;	/* 0: none, only RX queue 0 is tested */
	cpu_set_t old_affinity;
	bool pinned;
	/* rfs_cpumap from the core object, loaded as a plain XDP program
	 * on the datapath's maps; NULL if that failed (tests skip) */
	struct rfs_core *cm;
	/* rfs_cpu_queues[0..1] as rfs_dp_open() left them */
	struct rfs_cpu_queue q_fresh[2];
	bool skip_bugs;		/* RFS_XT_SKIP_KNOWN_BUGS: skip, don't fail */
} xt;

/* ---- setup ------------------------------------------------------------ */

static void rfs_xt_cleanup(void)
{
	if (xt.cm) {
		rfs_core__destroy(xt.cm);
		xt.cm = NULL;
	}
	if (xt.dp) {
		rfs_dp_close(xt.dp, true);
		xt.dp = NULL;
		xt.ifc = NULL;
	}
	if (xt.ingress[0]) {
		rfs_tu_sh("ip link del %s", xt.ingress);
		xt.ingress[0] = 0;
	}
	if (xt.pinned) {
		sched_setaffinity(0, sizeof(xt.old_affinity), &xt.old_affinity);
		xt.pinned = false;
	}
}

static bool rfs_xt_is_sock_prog(__u32 id)
{
	const struct rfs_dp_prog_ids *ids = &xt.dp->ids;

	return id && (id == ids->recv || id == ids->send || id == ids->sockops);
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
		 * the kthread's delivery proof) are what the live tests need */
		if (strncmp(de->d_name, "rfs_tp_", 7) &&
		    strncmp(de->d_name, "rfs_kp_", 7) &&
		    strncmp(de->d_name, "rfs_fx_", 7) &&
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

/*
 * rfs_cpumap as a plain XDP program: the same object, the same code, the
 * datapath's maps; only the expected attach type differs, since
 * BPF_PROG_TEST_RUN refuses BPF_XDP_CPUMAP programs.  Nothing else of
 * the core object is loaded.
 */
static int rfs_xt_load_cpumap_copy(void)
{
	struct bpf_program *p;
	struct rfs_core *cm;
	int e;

	cm = rfs_core__open();
	if (!cm)
		return -errno;
	bpf_object__for_each_program(p, cm->obj)
		bpf_program__set_autoload(p, p == cm->progs.rfs_cpumap);
	e = bpf_program__set_expected_attach_type(cm->progs.rfs_cpumap, BPF_XDP) ?:
		    bpf_map__reuse_fd(cm->maps.rfs_cpu_queues, xt.dp->cpu_queues_fd) ?:
		    bpf_map__reuse_fd(cm->maps.rfs_rx_track, xt.dp->rx_track_fd) ?:
		    bpf_map__reuse_fd(cm->maps.rfs_sock_outer, xt.dp->sock_outer_fd) ?:
		    bpf_map__reuse_fd(cm->maps.rfs_cpu_map, xt.dp->cpu_map_fd) ?:
		    bpf_map__reuse_fd(cm->maps.rfs_globals, xt.dp->globals_fd) ?:
		    bpf_map__reuse_fd(cm->maps.rfs_gstats, xt.dp->gstats_fd) ?:
		    bpf_map__reuse_fd(cm->maps.rfs_tx_seq, xt.dp->tx_seq_fd) ?:
		    bpf_map__reuse_fd(cm->maps.rfs_sock_full, xt.dp->sock_full_fd) ?:
		    rfs_core__load(cm);
	if (e) {
		rfs_core__destroy(cm);
		return e;
	}
	xt.cm = cm;
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
	__u32 zero = 0, cpu;
	int e;

	xt.skip_bugs = getenv("RFS_XT_SKIP_KNOWN_BUGS") != NULL;
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

	/* The RX CPU every test run sees. */
	if (rfs_tu_pin_cpu("test_xdp", RFS_XT_RX_CPU, &xt.old_affinity))
		return -1;
	xt.pinned = true;

	e = rfs_tu_dp_open(&xt.dp, xt.pin_dir, RFS_TRACE_AUTO,
			   RFS_XT_SOCK_ENTRIES, err);
	if (e) {
		fprintf(stderr, "test_xdp: can't open the datapath: %s\n", err);
		return -1;
	}
	/* On a machine with more possible CPUs than RFS_MAX_CPUS the
	 * per-CPU maps still hold one value per possible CPU, but the
	 * target and RX CPU tables stop at the cap. */
	xt.nsteer = xt.dp->nr_cpus;
	for (cpu = 0; cpu < 2; cpu++)
		if (bpf_map_lookup_elem(xt.dp->cpu_queues_fd, &cpu,
					&xt.q_fresh[cpu]))
			return -1;
	/* One hash seed for every run: the tests' flows are fixed frames, so
	 * with rfsd's random seed two of them shared a table slot now and
	 * then (1 run in ~1000 for a pair in the 1024-slot sock table), and
	 * a test failed by luck.  rfs_dp writes its own copy back when it
	 * changes the globals: set both. */
	xt.dp->globals.hash_seed = RFS_XT_HASH_SEED;
	if (bpf_map_update_elem(xt.dp->globals_fd, &zero, &xt.dp->globals,
				BPF_ANY)) {
		fprintf(stderr, "test_xdp: can't write %s\n", RFS_MAP_GLOBALS);
		return -1;
	}
	if (bpf_map_lookup_elem(xt.dp->globals_fd, &zero, &xt.g)) {
		fprintf(stderr, "test_xdp: can't read %s\n", RFS_MAP_GLOBALS);
		return -1;
	}
	if (rfs_xt_detach_sock_side())
		return -1;
	e = rfs_xt_load_cpumap_copy();
	if (e)
		fprintf(stderr, "test_xdp: can't load rfs_cpumap as a plain XDP program (%s); its tests skip\n",
			strerror(-e));

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

static void rfs_xt_reset_flows(void);

static int rfs_xt_attach(bool local_path)
{
	struct rfs_if_opts o = {
		.no_attach = true,
		.rx_queues = RFS_XT_RXQ,
		.flow_cnt = RFS_XT_FLOWS,
		.no_local_path = !local_path,
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

/* A fresh interface per test: its own table, counters and config.  The
 * local path is off: every frame goes through the cpumap. */
static int rfs_xt_setup(void **state)
{
	return rfs_xt_attach(false);
}

/* The same with the local path on, as rfsd attaches. */
static int rfs_xt_setup_local(void **state)
{
	return rfs_xt_attach(true);
}

static int rfs_xt_teardown(void **state)
{
	char err[RFS_ERR_LEN];

	if (xt.ifc && rfs_if_detach(xt.dp, xt.ifc, err))
		fprintf(stderr, "test_xdp: %s\n", err);
	xt.ifc = NULL;
	/* back on the RX CPU, whatever a failed test left */
	if (sched_getcpu() != RFS_XT_RX_CPU) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(RFS_XT_RX_CPU, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	return 0;
}

/* A datapath bug showed: fail with its description (or skip). */
static void rfs_xt_known_bug(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void rfs_xt_known_bug(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!xt.skip_bugs)
		fail_msg("DATAPATH BUG: %s", msg);
	print_message("  DATAPATH BUG (skipped: RFS_XT_SKIP_KNOWN_BUGS): %s\n",
		      msg);
	skip();
}

/* ---- map helpers ------------------------------------------------------ */

static void rfs_xt_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
	assert_int_equal(sched_getcpu(), cpu);
}

static __u32 rfs_xt_max_entries(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	assert_int_equal(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
	return info.max_entries;
}

static struct rfs_dev_flow rfs_xt_hdr(int table_fd)
{
	struct rfs_dev_flow h = {};
	__u32 zero = 0;

	assert_int_equal(bpf_map_lookup_elem(table_fd, &zero, &h), 0);
	return h;
}

/* The map id in a slot of the interface's rfs_dev_outer; 0 if empty. */
static __u32 rfs_xt_outer_id(__u32 slot)
{
	__u32 id = 0;

	if (bpf_map_lookup_elem(xt.ifc->dev_outer_fd, &slot, &id))
		return 0;
	return id;
}

static void rfs_xt_zero_percpu(int fd, size_t size)
{
	size_t stride = rfs_percpu_stride(size);
	char *buf = calloc(xt.ncpus, stride);
	__u32 zero = 0;

	assert_non_null(buf);
	assert_int_equal(bpf_map_update_elem(fd, &zero, buf, BPF_ANY), 0);
	free(buf);
}

/* rfs_tx_seq of RX CPU rx: the last sequence number it gave target t. */
static __u32 rfs_xt_tx_seq(__u32 rx, __u32 t)
{
	struct rfs_tx_seq *v = calloc(xt.ncpus, sizeof(*v));
	__u32 s;

	assert_non_null(v);
	assert_int_equal(rfs_read_percpu(xt.dp->tx_seq_fd, 0, sizeof(*v), v,
					 xt.ncpus), 0);
	s = v[rx].seq[t];
	free(v);
	return s;
}

static void rfs_xt_set_dropped_upto(__u32 rx, __u32 t, __u32 seq)
{
	size_t stride = rfs_percpu_stride(sizeof(struct rfs_tx_seq));
	char *buf = calloc(xt.ncpus, stride);
	__u32 zero = 0;

	assert_non_null(buf);
	assert_int_equal(bpf_map_lookup_elem(xt.dp->tx_seq_fd, &zero, buf),
			 0);
	((struct rfs_tx_seq *)(buf + rx * stride))->dropped_upto[t] = seq;
	assert_int_equal(bpf_map_update_elem(xt.dp->tx_seq_fd, &zero, buf,
					     BPF_ANY), 0);
	free(buf);
}

static void rfs_xt_set_tx_seq(__u32 rx, __u32 t, __u32 seq)
{
	size_t stride = rfs_percpu_stride(sizeof(struct rfs_tx_seq));
	char *buf = calloc(xt.ncpus, stride);
	__u32 zero = 0;

	assert_non_null(buf);
	assert_int_equal(bpf_map_lookup_elem(xt.dp->tx_seq_fd, &zero, buf),
			 0);
	((struct rfs_tx_seq *)(buf + rx * stride))->seq[t] = seq;
	assert_int_equal(bpf_map_update_elem(xt.dp->tx_seq_fd, &zero, buf,
					     BPF_ANY), 0);
	free(buf);
}

static void rfs_xt_gstats(struct rfs_global_stats *sum)
{
	struct rfs_global_stats *v = calloc(xt.ncpus, sizeof(*v));

	assert_non_null(v);
	assert_int_equal(rfs_dp_read_gstats(xt.dp, v), 0);
	rfs_tu_sum_u64(v, sizeof(*v), xt.ncpus, sum);
	free(v);
}

static struct rfs_cpu_queue rfs_xt_queue(__u32 cpu)
{
	struct rfs_cpu_queue q;

	assert_int_equal(
		bpf_map_lookup_elem(xt.dp->cpu_queues_fd, &cpu, &q), 0);
	return q;
}

/*
 * Play target cpu's kthread tracepoint: its current batch epoch, and
 * the highest epoch proven delivered.
 */
static void rfs_xt_set_epochs(__u32 cpu, __u32 epoch, __u32 delivered)
{
	struct rfs_cpu_queue q = rfs_xt_queue(cpu);

	q.epoch = epoch;
	q.delivered = delivered;
	assert_int_equal(bpf_map_update_elem(xt.dp->cpu_queues_fd, &cpu, &q,
					     BPF_ANY), 0);
}

static struct rfs_rx_track rfs_xt_track(__u32 t, __u32 rx)
{
	struct rfs_rx_track tr;
	__u32 key = rfs_rx_track_index(t, rx, xt.dp->globals.nr_rx_cpus);

	assert_int_equal(bpf_map_lookup_elem(xt.dp->rx_track_fd, &key, &tr),
			 0);
	return tr;
}

/* Play target t's cpumap program: what it has dequeued from RX CPU rx. */
static void rfs_xt_set_track(__u32 t, __u32 rx, __u64 last, __u64 prev)
{
	struct rfs_rx_track tr = { .last = last, .prev = prev };
	__u32 key = rfs_rx_track_index(t, rx, xt.dp->globals.nr_rx_cpus);

	assert_int_equal(bpf_map_update_elem(xt.dp->rx_track_fd, &key, &tr,
					     BPF_ANY), 0);
}

/* The same with every mark of the entry given. */
static void rfs_xt_put_track(__u32 t, __u32 rx, const struct rfs_rx_track *tr)
{
	__u32 key = rfs_rx_track_index(t, rx, xt.dp->globals.nr_rx_cpus);

	assert_int_equal(bpf_map_update_elem(xt.dp->rx_track_fd, &key, tr,
					     BPF_ANY), 0);
}

/* Play target cpu's tracepoint's jiffy (what rfs_cpumap rolls by). */
static void rfs_xt_set_jiffy(__u32 cpu, __u32 jiffy)
{
	struct rfs_cpu_queue q = rfs_xt_queue(cpu);

	q.jiffy = jiffy;
	assert_int_equal(bpf_map_update_elem(xt.dp->cpu_queues_fd, &cpu, &q,
					     BPF_ANY), 0);
}

/*
 * Everything a flow's path depends on back to a fresh state: the dev
 * flow table (header kept), the sock flow table, every target's queue
 * slot and rfs_rx_track rows, the sequence numbers.  Queue slots start
 * at epoch 1, delivered 0: nothing is proven (test_epoch_zero shows why
 * not epoch 0).
 */
static void rfs_xt_reset_flows(void)
{
	struct rfs_cpu_queue q = { .epoch = 1 };
	struct rfs_dev_flow df = {}, hdr;
	rfs_sock_entry_t se = 0;
	__u32 i, n, t, r;

	hdr = rfs_xt_hdr(xt.ifc->dev_flows_fd);
	assert_true(rfs_dev_table_ok(&hdr));
	n = rfs_xt_max_entries(xt.ifc->dev_flows_fd);
	for (i = 1; i < n; i++)
		assert_int_equal(bpf_map_update_elem(xt.ifc->dev_flows_fd, &i,
						     &df, BPF_ANY), 0);
	for (i = 0; i <= xt.g.sock_flow_mask; i++)
		assert_int_equal(bpf_map_update_elem(xt.dp->sock_flows_fd,
						     &i, &se, BPF_ANY),
				 0);
	for (t = 0; t < (__u32)xt.nsteer; t++) {
		assert_int_equal(bpf_map_update_elem(xt.dp->cpu_queues_fd,
						     &t, &q, BPF_ANY),
				 0);
		for (r = 0; r < (__u32)xt.nsteer; r++)
			rfs_xt_set_track(t, r, 0, 0);
	}
	rfs_xt_zero_percpu(xt.dp->tx_seq_fd, sizeof(struct rfs_tx_seq));
}

static void rfs_xt_set_cpus(const char *list)
{
	char err[RFS_ERR_LEN] = "";
	struct rfs_cpuset set;

	assert_int_equal(rfs_cpulist_parse(list, &set, false), 0);
	if (rfs_if_set_cpus(xt.dp, xt.ifc, &set, "test", err))
		fail_msg("set cpus %s: %s", list, err);
}

/* Change the configuration in use in place, as no rfsd would (its
 * pushes go through the other slot): for settings rfsd can't give. */
static void rfs_xt_put_cfg(const struct rfs_if_config *cfg)
{
	struct rfs_if_config c0;
	__u32 zero = 0, slot;

	assert_int_equal(bpf_map_lookup_elem(xt.ifc->cfg_fd, &zero, &c0), 0);
	slot = c0.active_slot ? 1 : 0;
	c0 = *cfg;
	c0.active_slot = slot;
	assert_int_equal(bpf_map_update_elem(xt.ifc->cfg_fd, &slot, &c0,
					     BPF_ANY), 0);
}

static struct rfs_if_config rfs_xt_cfg(void)
{
	struct rfs_if_config cfg;

	assert_int_equal(rfs_if_read_config(xt.ifc->cfg_fd, &cfg), 0);
	return cfg;
}

/* rfs_devtab_in_flight() for the test interface, as the datapath asks */
static int rfs_xt_in_flight(__u32 cpu)
{
	return rfs_devtab_in_flight(xt.dp, xt.ifc, cpu);
}

static void rfs_xt_refresh(void)
{
	char err[RFS_ERR_LEN] = "";

	if (rfs_dp_refresh_cpus(xt.dp, err))
		fail_msg("refresh: %s", err);
}

/* The local path's knobs, as rfsd would push them. */
static void rfs_xt_set_local(bool handover, __u32 drain_jiffies)
{
	xt.ifc->local_handover = handover;
	xt.ifc->local_drain_jiffies = drain_jiffies;
	assert_int_equal(rfs_if_push_config(xt.ifc, 0), 0);
	assert_int_equal(rfs_xt_cfg().local_handover, handover);
	assert_int_equal(rfs_xt_cfg().local_drain_jiffies, drain_jiffies);
}

static void rfs_xt_stats(struct rfs_if_stats *sum)
{
	assert_int_equal(rfs_tu_if_stats(xt.ifc, xt.ncpus, sum), 0);
}

static struct rfs_if_stats rfs_xt_delta(const struct rfs_if_stats *before)
{
	struct rfs_if_stats now;

	rfs_xt_stats(&now);
	return rfs_tu_stats_sub(&now, before);
}

/* ---- running frames --------------------------------------------------- */

/* What a test run gave back: the verdict and the buffer as the program
 * left it, metadata first (data_out starts at data_meta). */
struct rfs_xt_out {
	__u32 ret;
	__u32 meta_len;		/* ctx_out.data: bytes of metadata */
	__u32 len;		/* bytes in buf, metadata included */
	__u8 buf[RFS_FR_MAX + 64];
};

static int rfs_xt_run_prog(int prog_fd, const __u8 *in, size_t len,
			   __u32 meta_len, __u32 rxq, struct rfs_xt_out *out)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	struct xdp_md ctx = {}, ctx_out = {};

	memset(out, 0, sizeof(*out));
	ctx.data = meta_len;
	ctx.data_end = len;
	if (rxq) {
		ctx.ingress_ifindex = xt.ingress_ifindex;
		ctx.rx_queue_index = rxq;
	}
	o.data_in = in;
	o.data_size_in = len;
	o.data_out = out->buf;
	o.data_size_out = sizeof(out->buf);
	o.ctx_in = &ctx;
	o.ctx_size_in = sizeof(ctx);
	o.ctx_out = &ctx_out;
	o.ctx_size_out = sizeof(ctx_out);
	o.repeat = 1;
	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -errno;
	out->ret = o.retval;
	out->meta_len = ctx_out.data;
	out->len = o.data_size_out;
	return 0;
}

/*
 * One test run of len bytes of frame on an RX queue.  The kernel refuses
 * (-EINVAL) a frame shorter than an Ethernet header, even one put behind
 * a metadata prefix: the program never sees fewer than 14 bytes here.
 */
static int rfs_xt_run_q(const __u8 *frame, size_t len, __u32 rxq,
			struct rfs_xt_out *out)
{
	return rfs_xt_run_prog(xt.ifc->prog_fd, frame, len, 0, rxq, out);
}

static __u32 rfs_xt_run(const __u8 *frame, size_t len)
{
	struct rfs_xt_out out;

	assert_int_equal(rfs_xt_run_q(frame, len, 0, &out), 0);
	return out.ret;
}

/* The metadata rfs_xdp put in front of a redirected frame. */
static struct rfs_frame_meta rfs_xt_meta(const struct rfs_xt_out *out)
{
	struct rfs_frame_meta m;

	assert_int_equal(out->meta_len, RFS_XT_META);
	memcpy(&m, out->buf, sizeof(m));
	return m;
}

static __u32 rfs_xt_hash(const struct rfs_frame *f)
{
	struct rfs_flow_key k;

	rfs_frame_key(f, &k);
	return rfs_flow_hash(&k, xt.g.hash_seed);
}

/* Where the flow's entry is, written out here rather than through
 * rfs_dev_index(): entry 0 is the header, then queue-major, slot-minor
 * by the hash's high bits; a queue the table has no entries for has 0. */
static __u32 rfs_xt_idx_in(__u32 hash, __u32 rxq, __u32 flows, __u32 rxqs)
{
	return rxq < rxqs ? 1 + rxq * flows + ((hash >> 8) % flows) : 0;
}

static __u32 rfs_xt_idx(__u32 hash, __u32 rxq)
{
	return rfs_xt_idx_in(hash, rxq, RFS_XT_FLOWS, RFS_XT_RXQ);
}

/* A flow's entry in a table, found through that table's header. */
static struct rfs_dev_flow rfs_xt_entry_in(int table_fd, __u32 hash, __u32 rxq)
{
	struct rfs_dev_flow hdr = rfs_xt_hdr(table_fd), e = {};
	__u32 idx;

	assert_true(rfs_dev_table_ok(&hdr));
	idx = rfs_dev_index(&hdr, hash, rxq);
	assert_int_equal(idx, rfs_xt_idx_in(hash, rxq, hdr.last + 1, hdr.rx_cpu));
	assert_int_equal(bpf_map_lookup_elem(table_fd, &idx, &e), 0);
	return e;
}

static struct rfs_dev_flow rfs_xt_entry(__u32 hash, __u32 rxq)
{
	return rfs_xt_entry_in(xt.ifc->dev_flows_fd, hash, rxq);
}

/* How many flow entries of a table are valid; the index of the last. */
static int rfs_xt_valid_in(int table_fd, __u32 *last)
{
	__u32 n = rfs_xt_max_entries(table_fd), i;
	struct rfs_dev_flow e;
	int valid = 0;

	for (i = 1; i < n; i++) {
		assert_int_equal(bpf_map_lookup_elem(table_fd, &i, &e), 0);
		if (e.flags & RFS_DEV_FLOW_VALID) {
			valid++;
			if (last)
				*last = i;
		}
	}
	return valid;
}

static int rfs_xt_valid_entries(__u32 *last)
{
	return rfs_xt_valid_in(xt.ifc->dev_flows_fd, last);
}

/* Move g to another source port until neither its dev flow slot nor its
 * sock flow slot is f's: the dev table keeps no flow tag (as kernel RFS),
 * two flows in one slot share their state; in the sock table the later
 * write takes the slot, and the other flow then has no desired CPU. */
static void rfs_xt_other_slot(struct rfs_frame *g, const struct rfs_frame *f)
{
	__u32 hf = rfs_xt_hash(f), hg;

	for (;; g->sport++) {
		hg = rfs_xt_hash(g);
		if (rfs_xt_idx(hg, 0) != rfs_xt_idx(hf, 0) &&
		    (hg & xt.g.sock_flow_mask) != (hf & xt.g.sock_flow_mask))
			return;
	}
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

static void rfs_xt_clear_desired(__u32 hash)
{
	rfs_sock_entry_t e = 0;
	__u32 idx = hash & xt.g.sock_flow_mask;

	assert_int_equal(bpf_map_update_elem(xt.dp->sock_flows_fd, &idx, &e,
					     BPF_ANY), 0);
}

/*
 * Run f once on rxq and expect it redirected: the dev flow entry at the
 * index computed here is {cpu, rx_cpu = this CPU, last}.  A held frame is
 * marked (rfs_order.h, LAZY MARKS): last is the sequence number just
 * taken from rfs_tx_seq, and the frame carries the same in its metadata,
 * in front of the unchanged frame.  Any other goes bare: no number taken,
 * last is the next one (RFS_DEV_FLOW_BARE), the frame unchanged, no
 * metadata.  Returns the counter deltas; *cpu gets the target, *out (if
 * given) what the run put out.
 */
static struct rfs_if_stats rfs_xt_steer_out(const struct rfs_frame *f,
					    __u32 rxq, __u32 *cpu,
					    struct rfs_xt_out *out)
{
	struct rfs_if_stats before, d;
	struct rfs_frame_layout lay;
	struct rfs_frame_meta m;
	struct rfs_xt_out o, *po = out ? out : &o;
	__u8 buf[RFS_FR_MAX];
	struct rfs_dev_flow e;
	__u32 hash = rfs_xt_hash(f);

	rfs_frame_build(f, buf, &lay);
	rfs_xt_stats(&before);
	assert_int_equal(rfs_xt_run_q(buf, lay.len, rxq, po), 0);
	d = rfs_xt_delta(&before);
	assert_int_equal(po->ret, XDP_REDIRECT);
	assert_int_equal(d.seen, 1);
	assert_int_equal(d.steered, 1);
	assert_int_equal(d.to_desired + d.spread + d.held, 1);
	assert_int_equal(d.local, 0);
	assert_int_equal(d.redirect_err + d.no_meta, 0);
	e = rfs_xt_entry(hash, rxq);
	assert_true(e.flags & RFS_DEV_FLOW_VALID);
	assert_false(e.flags & RFS_DEV_FLOW_LOCAL);
	assert_in_range(e.cpu, 0, xt.nsteer - 1);
	assert_int_equal(e.rx_cpu, RFS_XT_RX_CPU);
	if (!d.held) {
		assert_int_equal(e.flags, RFS_DEV_FLOW_VALID |
					  RFS_DEV_FLOW_BARE);
		assert_int_equal(e.last,
				 rfs_xt_tx_seq(RFS_XT_RX_CPU, e.cpu) + 1);
		assert_int_equal(po->meta_len, 0);
		assert_int_equal(po->len, lay.len);
		assert_memory_equal(po->buf, buf, lay.len);
		if (cpu)
			*cpu = e.cpu;
		return d;
	}
	assert_int_equal(e.flags, RFS_DEV_FLOW_VALID);
	assert_int_equal(e.last, rfs_xt_tx_seq(RFS_XT_RX_CPU, e.cpu));
	m = rfs_xt_meta(po);
	assert_int_equal(m.magic, RFS_META_MAGIC);
	assert_int_equal(m.seq, e.last);
	assert_int_equal(m.rx_cpu, RFS_XT_RX_CPU);
	assert_int_equal(m.cpu, e.cpu);
	assert_int_equal(po->len, RFS_XT_META + lay.len);
	assert_memory_equal(po->buf + RFS_XT_META, buf, lay.len);
	if (cpu)
		*cpu = e.cpu;
	return d;
}

static struct rfs_if_stats rfs_xt_steer_q(const struct rfs_frame *f,
					  __u32 rxq, __u32 *cpu)
{
	return rfs_xt_steer_out(f, rxq, cpu, NULL);
}

static struct rfs_if_stats rfs_xt_steer(const struct rfs_frame *f, __u32 *cpu)
{
	return rfs_xt_steer_q(f, 0, cpu);
}

/*
 * Run f and expect it passed up here on the local path: XDP_PASS, no
 * metadata, no sequence number taken, and the entry {this CPU, LOCAL,
 * last = jiffies (low 32 bits) at the run}.  Returns the deltas.
 */
static struct rfs_if_stats rfs_xt_local(const struct rfs_frame *f)
{
	__u32 seq0 = rfs_xt_tx_seq(sched_getcpu(), sched_getcpu());
	struct rfs_if_stats before, d;
	struct rfs_frame_layout lay;
	__u8 buf[RFS_FR_MAX];
	struct rfs_xt_out out;
	struct rfs_dev_flow e;
	__u64 j0, j1;
	int cpu = sched_getcpu();

	rfs_frame_build(f, buf, &lay);
	rfs_xt_stats(&before);
	j0 = rfs_tu_jiffies();
	assert_int_equal(rfs_xt_run_q(buf, lay.len, 0, &out), 0);
	j1 = rfs_tu_jiffies();
	d = rfs_xt_delta(&before);
	assert_int_equal(out.ret, XDP_PASS);
	assert_int_equal(out.meta_len, 0);
	assert_int_equal(d.seen, 1);
	assert_int_equal(d.steered, 1);
	assert_int_equal(d.local, 1);
	assert_int_equal(d.to_desired + d.spread + d.held, 1);
	e = rfs_xt_entry(rfs_xt_hash(f), 0);
	assert_int_equal(e.flags, RFS_DEV_FLOW_VALID | RFS_DEV_FLOW_LOCAL);
	assert_int_equal(e.cpu, cpu);
	assert_int_equal(e.rx_cpu, cpu);
	if (j0 && j1) {
		/* jiffies when it was passed, wrap-safe */
		if ((__s32)(e.last - (__u32)j0) < 0 ||
		    (__s32)((__u32)j1 - e.last) < 0)
			fail_msg("local entry jiffies %u outside [%u, %u]",
				 e.last, (__u32)j0, (__u32)j1);
	}
	/* the local path takes no sequence number */
	assert_int_equal(rfs_xt_tx_seq(cpu, cpu), seq0);
	return d;
}

/* Run f (cut to len bytes if len) and expect it passed for one reason. */
static void rfs_xt_expect_pass(const struct rfs_frame *f, size_t len,
			       size_t reason_off, const char *what)
{
	struct rfs_if_stats before, d;
	struct rfs_frame_layout lay;
	__u8 buf[RFS_FR_MAX];
	struct rfs_xt_out out;

	rfs_frame_build(f, buf, &lay);
	rfs_xt_stats(&before);
	assert_int_equal(rfs_xt_run_q(buf, len ? len : lay.len, 0, &out), 0);
	d = rfs_xt_delta(&before);
	if (out.ret != XDP_PASS || d.seen != 1 || d.steered != 0 ||
	    *(__u64 *)((char *)&d + reason_off) != 1)
		fail_msg("%s: ret %u seen %llu steered %llu, reason counter %llu",
			 what, out.ret, (unsigned long long)d.seen,
			 (unsigned long long)d.steered,
			 (unsigned long long)*(__u64 *)((char *)&d + reason_off));
	assert_int_equal(out.meta_len, 0);
	assert_int_equal(rfs_xt_valid_entries(NULL), 0);
}

#define RFS_XT_PASS(f, len, field, what) \
	rfs_xt_expect_pass(f, len, offsetof(struct rfs_if_stats, field), what)

/*
 * Put a flow on cpu (remote: through the cpumap) with n frames; returns
 * its hash.  Its desired CPU is cpu.
 */
static __u32 rfs_xt_flow_on(struct rfs_frame *f, __u16 sport, __u32 cpu,
			    int n)
{
	struct rfs_if_stats d;
	__u32 hash, c;
	int i;

	rfs_frame_v4(f, IPPROTO_TCP, "192.0.2.2", sport, "192.0.2.1", 80);
	hash = rfs_xt_hash(f);
	rfs_xt_set_desired(hash, cpu);
	for (i = 0; i < n; i++) {
		d = rfs_xt_steer(f, &c);
		assert_int_equal(c, cpu);
		assert_int_equal(d.to_desired, 1);
		assert_int_equal(d.switches, 0);
	}
	return hash;
}

/* A TCP flow whose application runs on the RX CPU, its first frame
 * passed up here (the local path).  Returns its hash. */
static __u32 rfs_xt_local_flow(struct rfs_frame *f, __u16 sport)
{
	__u32 hash;

	rfs_frame_v4(f, IPPROTO_TCP, "192.0.2.2", sport, "192.0.2.1", 80);
	hash = rfs_xt_hash(f);
	rfs_xt_set_desired(hash, RFS_XT_RX_CPU);
	rfs_xt_local(f);
	return hash;
}

/* A frame of a flow that wants to leave cpu: it must stay there, and
 * its entry now waits for this frame too.  *out gets the frame. */
static void rfs_xt_expect_held_out(const struct rfs_frame *f, __u32 cpu,
				   struct rfs_xt_out *out)
{
	__u32 hash = rfs_xt_hash(f), seq = rfs_xt_tx_seq(RFS_XT_RX_CPU, cpu);
	struct rfs_if_stats d;
	__u32 c;

	d = rfs_xt_steer_out(f, 0, &c, out);
	if (d.held != 1 || d.switches || c != cpu)
		fail_msg("flow %08x: expected held on CPU %u, got CPU %u (held %llu switches %llu)",
			 hash, cpu, c, (unsigned long long)d.held,
			 (unsigned long long)d.switches);
	assert_int_equal(rfs_xt_entry(hash, 0).last, seq + 1);
}

static void rfs_xt_expect_held(const struct rfs_frame *f, __u32 cpu)
{
	rfs_xt_expect_held_out(f, cpu, NULL);
}

/* A frame of a flow that may leave: it moves to remote CPU to. */
static void rfs_xt_expect_switch(const struct rfs_frame *f, __u32 to)
{
	__u32 hash = rfs_xt_hash(f);
	struct rfs_if_stats d;
	__u32 c;

	d = rfs_xt_steer(f, &c);
	if (d.switches != 1 || d.held || c != to)
		fail_msg("flow %08x: expected a switch to CPU %u, got CPU %u (held %llu switches %llu)",
			 hash, to, c, (unsigned long long)d.held,
			 (unsigned long long)d.switches);
	assert_int_equal(rfs_xt_entry(hash, 0).cpu, to);
}

/* ---- steering and parsing --------------------------------------------- */

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
 * no desired CPU by hash (spread), with one to that CPU (to_desired);
 * none is held, so all go bare and take no sequence number. */
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
		assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, cpu), 0);

		for (want = 0; want < 2; want++) {
			rfs_xt_reset_flows();
			rfs_xt_set_desired(rfs_xt_hash(&f), want);
			d = rfs_xt_steer(&f, &cpu);
			assert_int_equal(d.to_desired, 1);
			assert_int_equal(cpu, want);
			d = rfs_xt_steer(&f, &cpu);
			assert_int_equal(d.to_desired, 1);
			assert_int_equal(cpu, want);
			assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, want), 0);
			assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, !want), 0);
		}
	}
}

/* 802.1Q and 802.1ad+802.1Q tagged frames hash like the untagged frame:
 * the desired CPU written under the untagged hash steers them, in the
 * untagged frame's slot. */
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
			struct rfs_xt_out out;
			int e;

			rfs_xt_stats(&before);
			e = rfs_xt_run_q(buf, len, 0, &out);
			d = rfs_xt_delta(&before);
			if (len < 14) {
				/* refused by the kernel, never run */
				assert_int_equal(e, -EINVAL);
				assert_int_equal(d.seen, 0);
				continue;
			}
			assert_int_equal(e, 0);
			if (out.ret != XDP_PASS || d.seen != 1 || d.steered ||
			    d.pass_truncated + d.pass_not_ip != 1)
				fail_msg("%s cut at %zu: ret %u seen %llu steered %llu truncated %llu not_ip %llu",
					 v->name, len, out.ret,
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
 * exist: only XDP_PASS or XDP_REDIRECT, nothing ever goes to CPU 0, and
 * the table's header entry is never written.
 */
static void test_garbage(void **state)
{
	struct rfs_dev_flow hdr0 = rfs_xt_hdr(xt.ifc->dev_flows_fd), hdr, e;
	struct rfs_if_stats before, d;
	__u32 i, n, n_redirect = 0;
	unsigned int seed = 0x5eed;

	rfs_xt_set_cpus("1");
	rfs_xt_stats(&before);
	for (i = 0; i < 20000; i++) {
		const struct rfs_xt_variant *v =
			&rfs_xt_variants[rand_r(&seed) %
					 RFS_XT_ARRAY_SIZE(rfs_xt_variants)];
		struct rfs_frame_layout lay;
		__u8 buf[RFS_FR_MAX];
		struct rfs_frame f;
		size_t len, k, nf;
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
			nf = rand_r(&seed) % 4;
			for (k = 0; k < nf; k++)
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
	/* CPU 0 was never given a frame; every flow sits on CPU 1, never
	 * held: every frame went bare, none took a number. */
	assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, 0), 0);
	assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, 1), 0);
	n = rfs_xt_max_entries(xt.ifc->dev_flows_fd);
	for (i = 1; i < n; i++) {
		assert_int_equal(bpf_map_lookup_elem(xt.ifc->dev_flows_fd, &i,
						     &e), 0);
		if (e.flags & RFS_DEV_FLOW_VALID)
			assert_int_equal(e.cpu, 1);
	}
	hdr = rfs_xt_hdr(xt.ifc->dev_flows_fd);
	assert_memory_equal(&hdr, &hdr0, sizeof(hdr));
}

/*
 * ctx_in picks the RX queue: one flow has one entry per queue, at
 * 1 + queue * flow_cnt + slot (entry 0 is the header), and a queue
 * beyond the table's rx_queues has none.
 */
static void test_rx_queue(void **state)
{
	struct rfs_frame_layout lay;
	struct rfs_dev_flow hdr;
	__u8 buf[RFS_FR_MAX];
	struct rfs_xt_out out;
	struct rfs_frame f;
	__u32 slot, hash;
	int e;

	hdr = rfs_xt_hdr(xt.ifc->dev_flows_fd);
	assert_int_equal(hdr.flags, RFS_DEV_TABLE_HDR);
	assert_int_equal(hdr.last, RFS_XT_FLOWS - 1);
	assert_int_equal(hdr.rx_cpu, RFS_XT_RXQ);
	assert_int_equal(rfs_xt_max_entries(xt.ifc->dev_flows_fd),
			 1 + RFS_XT_FLOWS * RFS_XT_RXQ);

	rfs_frame_v4(&f, IPPROTO_TCP, "192.0.2.2", 43000, "192.0.2.1", 80);
	rfs_frame_build(&f, buf, &lay);
	hash = rfs_xt_hash(&f);
	if (!xt.ingress_ifindex) {
		/* Without a device the kernel takes queue 0 only. */
		e = rfs_xt_run_q(buf, lay.len, 1, &out);
		print_message("  rx_queue_index 1 without ingress_ifindex: %s\n",
			      e ? strerror(-e) : "accepted");
		skip();
	}
	rfs_xt_steer_q(&f, 1, NULL);
	assert_int_equal(rfs_xt_valid_entries(&slot), 1);
	assert_int_equal(slot, rfs_xt_idx(hash, 1));
	assert_int_equal(slot,
			 1 + RFS_XT_FLOWS + ((hash >> 8) & (RFS_XT_FLOWS - 1)));
	rfs_xt_steer_q(&f, 0, NULL);
	assert_int_equal(rfs_xt_valid_entries(NULL), 2);
	assert_true(rfs_xt_entry(hash, 0).flags & RFS_DEV_FLOW_VALID);

	/* Queue 3 of a 4-queue device, table made for 2 (only past
	 * RFS_MAX_RX_QUEUES does rfsd make one smaller than the device):
	 * up the stack unsteered, never onto another queue's entry, whose
	 * one writer is the CPU polling that queue. */
	rfs_xt_reset_flows();
	{
		struct rfs_if_stats before, d;

		rfs_xt_stats(&before);
		assert_int_equal(rfs_xt_run_q(buf, lay.len, 3, &out), 0);
		d = rfs_xt_delta(&before);
		assert_int_equal(out.ret, XDP_PASS);
		assert_int_equal(d.pass_no_table, 1);
		assert_int_equal(d.steered, 0);
	}
	assert_int_equal(rfs_xt_valid_entries(NULL), 0);

	/* The kernel refuses a queue the device does not have. */
	e = rfs_xt_run_q(buf, lay.len, RFS_XT_INGRESS_RXQ, &out);
	assert_int_equal(e, -EINVAL);
}

/*
 * A table carries its own geometry: the program indexes by the header
 * in entry 0, not by the interface config.  A header that is not one
 * (flag missing, no queues) or no table at all: pass_no_table.
 */
static void test_dev_header(void **state)
{
	struct rfs_dev_flow hdr0 = rfs_xt_hdr(xt.ifc->dev_flows_fd), h;
	struct rfs_frame f;
	__u32 zero = 0, slot, hash;

	rfs_frame_v4(&f, IPPROTO_UDP, "192.0.2.2", 43500, "192.0.2.1", 53);
	hash = rfs_xt_hash(&f);

	/* 32 slots of 1 queue in the same map: index 1 + slot */
	h = rfs_dev_table_header(32, 1);
	assert_int_equal(bpf_map_update_elem(xt.ifc->dev_flows_fd, &zero, &h,
					     BPF_ANY), 0);
	assert_int_equal(rfs_xt_cfg().flow_mask, RFS_XT_FLOWS - 1);
	rfs_xt_steer(&f, NULL);
	assert_int_equal(rfs_xt_valid_entries(&slot), 1);
	assert_int_equal(slot, 1 + ((hash >> 8) & 31));

	h.flags = 0;
	assert_int_equal(bpf_map_update_elem(xt.ifc->dev_flows_fd, &zero, &h,
					     BPF_ANY), 0);
	{
		struct rfs_dev_flow z = {};

		assert_int_equal(bpf_map_update_elem(xt.ifc->dev_flows_fd,
						     &slot, &z, BPF_ANY), 0);
	}
	RFS_XT_PASS(&f, 0, pass_no_table, "header flag missing");
	h = rfs_dev_table_header(32, 1);
	h.rx_cpu = 0;
	assert_int_equal(bpf_map_update_elem(xt.ifc->dev_flows_fd, &zero, &h,
					     BPF_ANY), 0);
	RFS_XT_PASS(&f, 0, pass_no_table, "header with no queues");
	assert_int_equal(bpf_map_update_elem(xt.ifc->dev_flows_fd, &zero, &hdr0,
					     BPF_ANY), 0);

	/* No table in outer slot 0 */
	assert_int_equal(bpf_map_delete_elem(xt.ifc->dev_outer_fd, &zero), 0);
	RFS_XT_PASS(&f, 0, pass_no_table, "no table");
	assert_int_equal(bpf_map_update_elem(xt.ifc->dev_outer_fd, &zero,
					     &xt.ifc->dev_flows_fd, BPF_ANY), 0);
	rfs_xt_steer(&f, NULL);
	assert_int_equal(rfs_xt_valid_entries(&slot), 1);
	assert_int_equal(slot, rfs_xt_idx(hash, 0));
}

/* No desired CPU: a CPU from the allowed set; a desired CPU outside it
 * (or one that does not exist) is ignored and the flow spread. */
/* A config's own fields agree: its list is its allowed set, in order,
 * and (set given) that set is the one asked for. */
static void rfs_xt_cfg_whole(const struct rfs_if_config *c, const char *set)
{
	struct rfs_cpuset want;
	__u32 cpu, n = 0;

	if (set) {
		assert_int_equal(rfs_cpulist_parse(set, &want, false), 0);
		assert_memory_equal(c->allowed, want.bits,
				    sizeof(c->allowed));
	}
	for (cpu = 0; cpu < RFS_MAX_CPUS; cpu++)
		if (rfs_cpu_in(c->allowed, cpu))
			assert_int_equal(c->allowed_list[n++], cpu);
	assert_int_equal(c->n_allowed, n);
}

/*
 * rfsd never rewrites the configuration a frame may be reading: each push
 * writes slot 1 whole and flips slot 0's active_slot to it, so slot 0
 * still holds a whole configuration for a frame that read it before the
 * flip; once those frames are gone it writes slot 0 and flips back.  A
 * push ends on slot 0, whose first line a frame reads for active_slot
 * anyway (two lines of configuration a frame, not three), and slot 1
 * holds the same whole configuration: it went through there.  In place,
 * a frame could pair a new n_allowed with the old list, and slot 1 would
 * keep the set before.
 */
static void test_config_slots(void **state)
{
	static const char *const sets[] = { "1", "0-1", "0", "1", "0-1" };
	struct rfs_if_config c[RFS_IF_CFG_SLOTS];
	__u32 i, k;

	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		rfs_xt_set_cpus(sets[i]);
		for (k = 0; k < RFS_IF_CFG_SLOTS; k++)
			assert_int_equal(bpf_map_lookup_elem(xt.ifc->cfg_fd, &k,
							     &c[k]), 0);
		assert_int_equal(c[0].active_slot, 0);
		rfs_xt_cfg_whole(&c[0], sets[i]);
		rfs_xt_cfg_whole(&c[1], sets[i]);
	}
	rfs_xt_set_cpus("0-1");
}

/* n new UDP flows from ports port0.., no CPU desired: each is spread,
 * and to cpu (the only one allowed). */
static void rfs_xt_new_flows_to(__u16 port0, __u32 n, __u32 cpu)
{
	struct rfs_if_stats d;
	struct rfs_frame f;
	__u32 i, got;

	for (i = 0; i < n; i++) {
		rfs_frame_v4(&f, IPPROTO_UDP, "192.0.2.2", port0 + i,
			     "192.0.2.1", 53);
		d = rfs_xt_steer(&f, &got);
		assert_int_equal(d.spread, 1);
		assert_int_equal(got, cpu);
	}
}

/*
 * A frame follows slot 0's active_slot: while a change is under way slot
 * 1 is the configuration in use.  Slot 0 allows {0} and slot 1 {1}; new
 * flows with no desired CPU spread over the allowed set of whichever
 * slot active_slot names.  Control: a reader that kept to slot 0 would
 * send them to CPU 0 both times.
 */
static void test_config_follows_slot(void **state)
{
	struct rfs_if_config c[RFS_IF_CFG_SLOTS], c0;
	__u32 zero = 0, one = 1, slot;

	rfs_xt_set_cpus("0-1");
	c[0] = c[1] = rfs_xt_cfg();
	for (slot = 0; slot < RFS_IF_CFG_SLOTS; slot++) {
		memset(c[slot].allowed, 0, sizeof(c[slot].allowed));
		c[slot].allowed[0] = 1ull << slot;
		c[slot].allowed_list[0] = slot;
		c[slot].n_allowed = 1;
	}
	for (slot = 0; slot < RFS_IF_CFG_SLOTS; slot++) {
		c[0].active_slot = slot;
		assert_int_equal(bpf_map_update_elem(xt.ifc->cfg_fd, &one,
						     &c[1], BPF_ANY), 0);
		assert_int_equal(bpf_map_update_elem(xt.ifc->cfg_fd, &zero,
						     &c[0], BPF_ANY), 0);
		rfs_xt_new_flows_to(46000, 16, slot);
		rfs_xt_reset_flows();
	}
	/* what rfsd leaves: its own push over the hand-made slots */
	rfs_xt_set_cpus("0-1");
	assert_int_equal(bpf_map_lookup_elem(xt.ifc->cfg_fd, &zero, &c0), 0);
	assert_int_equal(c0.active_slot, 0);
}

static void test_allowed_set(void **state)
{
	struct rfs_if_stats d;
	struct rfs_frame f;
	__u32 cpu, want, i;
	const char *sets[] = { "0", "1" };

	for (want = 0; want < 2; want++) {
		rfs_xt_set_cpus(sets[want]);
		rfs_xt_new_flows_to(44000, 32, want);
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
 * a CPU missing from the cpumap: pass, redirect_err, entry untouched and
 * no sequence number taken; but dropped, not passed, once the flow has a
 * path whose frames may still be in flight: passed up here it would
 * overtake them. */
static void test_no_table_and_redirect_err(void **state)
{
	struct rfs_if_config cfg, saved;
	struct rfs_if_stats before, d;
	struct rfs_frame_layout lay;
	struct bpf_cpumap_val val;
	__u8 buf[RFS_FR_MAX];
	struct rfs_frame f;
	struct rfs_dev_flow e0, e1;
	__u32 cpu = 1;
	int ret;

	rfs_frame_v4(&f, IPPROTO_TCP, "192.0.2.2", 47000, "192.0.2.1", 80);
	rfs_frame_build(&f, buf, &lay);

	saved = cfg = rfs_xt_cfg();
	memset(cfg.allowed, 0, sizeof(cfg.allowed));
	memset(cfg.usable, 0, sizeof(cfg.usable));
	cfg.n_allowed = 0;
	rfs_xt_put_cfg(&cfg);
	RFS_XT_PASS(&f, 0, pass_no_table, "no CPU allowed");
	rfs_xt_put_cfg(&saved);

	/* Take CPU 1 out of the cpumap behind the datapath's back. */
	assert_int_equal(bpf_map_lookup_elem(xt.dp->cpu_map_fd, &cpu, &val),
			 0);
	assert_int_equal(bpf_map_delete_elem(xt.dp->cpu_map_fd, &cpu), 0);
	rfs_xt_set_desired(rfs_xt_hash(&f), 1);
	rfs_xt_stats(&before);
	assert_int_equal(rfs_xt_run(buf, lay.len), XDP_PASS);
	d = rfs_xt_delta(&before);
	/* the cpumap back before asserting: a failure must not leave CPU 1
	 * without a queue for the tests after this one */
	val.bpf_prog.fd = xt.dp->cpumap_prog_fd;
	assert_int_equal(bpf_map_update_elem(xt.dp->cpu_map_fd, &cpu, &val,
					     BPF_ANY), 0);
	assert_int_equal(d.redirect_err, 1);
	assert_int_equal(d.steered, 0);
	assert_int_equal(rfs_xt_valid_entries(NULL), 0);
	assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, 1), 0);
	/* bare: it records the number the next marked frame takes */
	assert_int_equal(rfs_xt_run(buf, lay.len), XDP_REDIRECT);
	assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, 1), 0);

	/* The flow now has a path to CPU 1: same race again. */
	e0 = rfs_xt_entry(rfs_xt_hash(&f), 0);
	assert_int_equal(e0.flags, RFS_DEV_FLOW_VALID | RFS_DEV_FLOW_BARE);
	assert_int_equal(e0.last, 1);
	assert_int_equal(bpf_map_delete_elem(xt.dp->cpu_map_fd, &cpu), 0);
	rfs_xt_stats(&before);
	ret = rfs_xt_run(buf, lay.len);
	d = rfs_xt_delta(&before);
	assert_int_equal(bpf_map_update_elem(xt.dp->cpu_map_fd, &cpu, &val,
					     BPF_ANY), 0);
	assert_int_equal(ret, XDP_DROP);
	assert_int_equal(d.redirect_err, 1);
	e1 = rfs_xt_entry(rfs_xt_hash(&f), 0);
	assert_memory_equal(&e0, &e1, sizeof(e0));
	assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, 1), 0);
}

/* ---- early drop ------------------------------------------------------- */

/* The globals as the programs see them, and written back behind rfsd's
 * back (its cache of them is left as it was). */
static struct rfs_globals rfs_xt_globals(void)
{
	struct rfs_globals g;
	__u32 zero = 0;

	assert_int_equal(bpf_map_lookup_elem(xt.dp->globals_fd, &zero, &g), 0);
	return g;
}

static void rfs_xt_put_globals(const struct rfs_globals *g)
{
	__u32 zero = 0;

	assert_int_equal(bpf_map_update_elem(xt.dp->globals_fd, &zero, g,
					     BPF_ANY), 0);
}

/* The early-drop window, in jiffies (rfsd sets it from early_drop_ms). */
static void rfs_xt_set_window(__u32 win)
{
	struct rfs_globals g = rfs_xt_globals();

	g.early_drop_jiffies = win;
	rfs_xt_put_globals(&g);
}

/* The latest refusal on any CPU, as rfs_sock_full_mark notes it. */
static void rfs_xt_set_full_jiffy(__u32 jiffy)
{
	struct rfs_globals g = rfs_xt_globals();

	g.full_jiffy = jiffy;
	rfs_xt_put_globals(&g);
}

/* Write the flow's slot of rfs_sock_full as rfs_sock_full_mark does, with
 * the mark's jiffy as the latest refusal, then run. */
static __u32 rfs_xt_run_marked(const __u8 *buf, size_t len, __u32 hash,
			       __u64 mark, struct rfs_if_stats *d)
{
	struct rfs_if_stats before;
	__u32 idx = rfs_full_index(hash), ret;

	assert_int_equal(bpf_map_update_elem(xt.dp->sock_full_fd, &idx,
					     &mark, BPF_ANY), 0);
	rfs_xt_set_full_jiffy((__u32)(mark >> 32));
	rfs_xt_stats(&before);
	ret = rfs_xt_run(buf, len);
	*d = rfs_xt_delta(&before);
	return ret;
}

/*
 * A flow whose socket refused a datagram this jiffy is dropped before
 * anything is sent or written: no dev entry, no number taken, counted in
 * early_drop alone.  Another flow's mark in the same slot, a mark as old
 * as the window, a fresh mark while the latest refusal noted in the
 * globals is as old as the window (the slot is not read then), and early
 * drop off all leave the frame steered.
 */
static void test_early_drop(void **state)
{
	struct rfs_frame_layout lay;
	struct rfs_if_stats d;
	__u8 buf[RFS_FR_MAX];
	struct rfs_frame f;
	__u32 hash, idx, win, j0 = 0, j1 = 0, ret = 0;
	__u64 none = 0, mark;
	int try;

	rfs_frame_v4(&f, IPPROTO_UDP, "192.0.2.2", 47000, "192.0.2.1", 5000);
	rfs_frame_build(&f, buf, &lay);
	hash = rfs_xt_hash(&f);
	idx = rfs_full_index(hash);
	rfs_xt_set_desired(hash, 1);
	assert_int_equal(rfs_dp_set_early_drop(xt.dp, true), 0);
	win = xt.dp->globals.early_drop_jiffies;
	assert_in_range(win, 2, 64);
	/* rfsd's window checked, the runs below get one of seconds: under
	 * emulation (QEMU TCG) a few ms did not fit them */
	win = 1000;
	rfs_xt_set_window(win);

	/* the jiffies read here and the program's may be a jiffy apart:
	 * only a run within the window says anything, and one outside it
	 * may have sent the frame: its flow starts again from nothing */
	for (try = 0; try < 5; try++) {
		if (try) {
			rfs_xt_reset_flows();
			rfs_xt_set_desired(hash, 1);
		}
		j0 = (__u32)rfs_tu_jiffies();
		ret = rfs_xt_run_marked(buf, lay.len, hash,
					rfs_full_mark(hash, j0), &d);
		j1 = (__u32)rfs_tu_jiffies();
		if (j0 && j1 - j0 < win)
			break;
	}
	if (!j0 || j1 - j0 >= win)
		skip();
	assert_int_equal(ret, XDP_DROP);
	assert_int_equal(d.seen, 1);
	assert_int_equal(d.early_drop, 1);
	assert_int_equal(d.steered + d.redirect_err + d.no_meta, 0);
	assert_int_equal(rfs_xt_valid_entries(NULL), 0);
	assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, 1), 0);

	/* another flow's refusal in the same slot */
	ret = rfs_xt_run_marked(buf, lay.len, hash,
				rfs_full_mark(hash + RFS_FULL_SLOTS, j1), &d);
	assert_int_equal(ret, XDP_REDIRECT);
	assert_int_equal(d.early_drop, 0);
	assert_int_equal(d.steered, 1);
	/* expired: the mark is the window old */
	j1 = (__u32)rfs_tu_jiffies();
	ret = rfs_xt_run_marked(buf, lay.len, hash,
				rfs_full_mark(hash, j1 - win), &d);
	assert_int_equal(ret, XDP_REDIRECT);
	assert_int_equal(d.early_drop, 0);
	/* a fresh mark, but no refusal noted within the window: the slot
	 * is not read (a frame it would drop goes on, the test's control
	 * that the gate is there); and with none ever noted */
	for (try = 0; try < 5; try++) {
		j0 = (__u32)rfs_tu_jiffies();
		mark = rfs_full_mark(hash, j0);
		assert_int_equal(bpf_map_update_elem(xt.dp->sock_full_fd, &idx,
						     &mark, BPF_ANY), 0);
		rfs_xt_set_full_jiffy(j0 - win);
		ret = rfs_xt_run(buf, lay.len);
		j1 = (__u32)rfs_tu_jiffies();
		if (j1 - j0 < win)
			break;
	}
	if (j1 - j0 >= win)
		skip();
	assert_int_equal(ret, XDP_REDIRECT);
	rfs_xt_set_full_jiffy(0);
	assert_int_equal(rfs_xt_run(buf, lay.len), XDP_REDIRECT);
	/* off: a fresh mark drops nothing */
	assert_int_equal(rfs_dp_set_early_drop(xt.dp, false), 0);
	assert_int_equal(xt.dp->globals.early_drop_jiffies, 0);
	j1 = (__u32)rfs_tu_jiffies();
	ret = rfs_xt_run_marked(buf, lay.len, hash, rfs_full_mark(hash, j1),
				&d);
	assert_int_equal(ret, XDP_REDIRECT);
	assert_int_equal(d.early_drop, 0);
	assert_int_equal(bpf_map_update_elem(xt.dp->sock_full_fd, &idx,
					     &none, BPF_ANY), 0);
	rfs_xt_set_full_jiffy(0);
}

/* The early-drop window in the globals (rfsd's cache keeps the window
 * it set). */
/* Note a refusal on cpu in jiffy refused, its last batch in jiffy now. */
static void rfs_xt_set_refused(__u32 cpu, __u32 refused, __u32 now)
{
	struct rfs_cpu_queue q = rfs_xt_queue(cpu);

	q.refused = refused;
	q.jiffy = now;
	assert_int_equal(bpf_map_update_elem(xt.dp->cpu_queues_fd, &cpu, &q,
					     BPF_ANY), 0);
}

/* rfs_cpumap on a frame as dequeued: its verdict, early_drop_target's
 * and this CPU's dequeued count's steps. */
static __u32 rfs_xt_cpumap_drop(const struct rfs_xt_out *in,
				__u64 *dropped, __u64 *dequeued)
{
	struct rfs_global_stats g0, g1;
	struct rfs_cpu_queue q0, q1;
	struct rfs_xt_out out;

	rfs_xt_gstats(&g0);
	q0 = rfs_xt_queue(RFS_XT_RX_CPU);
	assert_int_equal(rfs_xt_run_prog(bpf_program__fd(xt.cm->progs.rfs_cpumap),
					 in->buf, in->len, in->meta_len, 0,
					 &out), 0);
	rfs_xt_gstats(&g1);
	q1 = rfs_xt_queue(RFS_XT_RX_CPU);
	*dropped = g1.early_drop_target - g0.early_drop_target;
	*dequeued = q1.dequeued - q0.dequeued;
	return out.ret;
}

/*
 * Early drop on the target: while a socket on the CPU refused a datagram
 * within the window, rfs_cpumap drops a dequeued frame of a refused flow,
 * bare or marked, after counting (and marking) it as dequeued; a frame
 * of another flow, a refusal older than the window, no refusal on the
 * CPU, and early drop off all pass.
 */
static void test_early_drop_target(void **state)
{
	struct rfs_xt_out bare, held;
	struct rfs_rx_track tr;
	struct rfs_frame f;
	__u64 dropped, deq, none = 0;
	__u32 hash, idx, win, j = 0, ret = 0;
	int try;

	if (!xt.cm)
		skip();
	rfs_frame_v4(&f, IPPROTO_UDP, "192.0.2.2", 47700, "192.0.2.1", 5001);
	hash = rfs_xt_hash(&f);
	idx = rfs_full_index(hash);
	/* the target is the CPU the test runs on: the bare path reads
	 * this CPU's slot, the marked one its target's */
	rfs_xt_set_desired(hash, RFS_XT_RX_CPU);
	rfs_xt_steer_out(&f, 0, NULL, &bare);
	assert_int_equal(bare.meta_len, 0);
	assert_int_equal(rfs_dp_set_early_drop(xt.dp, true), 0);
	/* a window of seconds, not rfsd's few ms: the runs below must fit
	 * in it, and under emulation (QEMU TCG) a few ms did not */
	win = 1000;
	rfs_xt_set_window(win);

	/* the mark's age is the program's jiffies against ours */
	for (try = 0; try < 5; try++) {
		__u64 mark;

		j = (__u32)rfs_tu_jiffies();
		mark = rfs_full_mark(hash, j);
		assert_int_equal(bpf_map_update_elem(xt.dp->sock_full_fd, &idx,
						     &mark, BPF_ANY), 0);
		rfs_xt_set_refused(RFS_XT_RX_CPU, j, j);
		ret = rfs_xt_cpumap_drop(&bare, &dropped, &deq);
		if (j && (__u32)rfs_tu_jiffies() - j < win)
			break;
	}
	if (!j || (__u32)rfs_tu_jiffies() - j >= win)
		skip();
	assert_int_equal(ret, XDP_DROP);
	assert_int_equal(dropped, 1);
	assert_int_equal(deq, 1);

	/* the refusal older than the window: the frame is not even parsed */
	rfs_xt_set_refused(RFS_XT_RX_CPU, j - win, j);
	assert_int_equal(rfs_xt_cpumap_drop(&bare, &dropped, &deq), XDP_PASS);
	assert_int_equal(dropped, 0);
	assert_int_equal(deq, 1);
	/* no refusal on this CPU */
	rfs_xt_set_refused(RFS_XT_RX_CPU, 0, j);
	assert_int_equal(rfs_xt_cpumap_drop(&bare, &dropped, &deq), XDP_PASS);
	assert_int_equal(dropped, 0);

	/* a held frame of the flow, sent before the refusal (the RX CPU
	 * drops those after): marked dequeued, then dropped */
	assert_int_equal(bpf_map_update_elem(xt.dp->sock_full_fd, &idx, &none,
					     BPF_ANY), 0);
	rfs_xt_set_desired(hash, 1);
	rfs_xt_steer_out(&f, 0, NULL, &held);
	assert_int_equal(rfs_xt_meta(&held).cpu, RFS_XT_RX_CPU);
	j = (__u32)rfs_tu_jiffies();
	{
		__u64 mark = rfs_full_mark(hash, j);

		assert_int_equal(bpf_map_update_elem(xt.dp->sock_full_fd,
						     &idx, &mark, BPF_ANY), 0);
	}
	rfs_xt_set_refused(RFS_XT_RX_CPU, j, j);
	ret = rfs_xt_cpumap_drop(&held, &dropped, &deq);
	if ((__u32)rfs_tu_jiffies() - j < win) {
		assert_int_equal(ret, XDP_DROP);
		assert_int_equal(dropped, 1);
		tr = rfs_xt_track(RFS_XT_RX_CPU, RFS_XT_RX_CPU);
		assert_int_equal((__u32)tr.last,
				 rfs_xt_meta(&held).seq);
	}

	/* another flow's refusal in the slot */
	{
		__u64 other = rfs_full_mark(hash + RFS_FULL_SLOTS,
					    (__u32)rfs_tu_jiffies());

		assert_int_equal(bpf_map_update_elem(xt.dp->sock_full_fd,
						     &idx, &other, BPF_ANY), 0);
		assert_int_equal(rfs_xt_cpumap_drop(&bare, &dropped, &deq),
				 XDP_PASS);
		assert_int_equal(dropped, 0);
	}
	/* off: nothing dropped, a fresh mark and refusal or not */
	assert_int_equal(rfs_dp_set_early_drop(xt.dp, false), 0);
	j = (__u32)rfs_tu_jiffies();
	{
		__u64 mark = rfs_full_mark(hash, j);

		assert_int_equal(bpf_map_update_elem(xt.dp->sock_full_fd,
						     &idx, &mark, BPF_ANY), 0);
	}
	rfs_xt_set_refused(RFS_XT_RX_CPU, j, j);
	assert_int_equal(rfs_xt_cpumap_drop(&bare, &dropped, &deq), XDP_PASS);
	assert_int_equal(dropped, 0);
	assert_int_equal(bpf_map_update_elem(xt.dp->sock_full_fd, &idx, &none,
					     BPF_ANY), 0);
	rfs_xt_set_refused(RFS_XT_RX_CPU, 0, 0);
}

/* ---- the metadata and the cpumap program ------------------------------ */

/*
 * A held frame carries {seq, rx_cpu, cpu, magic} in its metadata; seq
 * counts per (RX CPU, target) in this CPU's slot of rfs_tx_seq only.  The
 * flows' first frames go bare and take no number.
 */
static void test_meta(void **state)
{
	struct rfs_tx_seq *v = calloc(xt.ncpus, sizeof(*v));
	struct rfs_xt_out out;
	struct rfs_frame f, g;
	struct rfs_frame_meta m;
	__u32 i, c;
	int cpu;

	assert_non_null(v);
	rfs_frame_v4(&f, IPPROTO_UDP, "192.0.2.2", 47500, "192.0.2.1", 53);
	rfs_frame_v6(&g, IPPROTO_TCP, "2001:db8::2", 47501, "2001:db8::1", 80);
	rfs_xt_other_slot(&g, &f);
	rfs_xt_set_desired(rfs_xt_hash(&f), 1);
	rfs_xt_set_desired(rfs_xt_hash(&g), 0);
	rfs_xt_steer(&f, NULL);
	rfs_xt_steer(&g, NULL);
	/* both applications move: held, nothing of theirs proven */
	rfs_xt_set_desired(rfs_xt_hash(&f), 0);
	rfs_xt_set_desired(rfs_xt_hash(&g), 1);
	for (i = 1; i <= 3; i++) {
		rfs_xt_steer_out(&f, 0, &c, &out);
		m = rfs_xt_meta(&out);
		assert_int_equal(c, 1);
		assert_int_equal(m.seq, i);
		assert_int_equal(m.cpu, 1);
		assert_int_equal(m.rx_cpu, RFS_XT_RX_CPU);
		assert_int_equal(m.magic, RFS_META_MAGIC);
		rfs_xt_steer_out(&g, 0, &c, &out);
		m = rfs_xt_meta(&out);
		assert_int_equal(c, 0);
		assert_int_equal(m.seq, i);
		assert_int_equal(m.cpu, 0);
	}
	assert_int_equal(rfs_read_percpu(xt.dp->tx_seq_fd, 0, sizeof(*v), v,
					 xt.ncpus), 0);
	for (cpu = 0; cpu < xt.ncpus; cpu++) {
		__u32 t;

		for (t = 0; t < RFS_MAX_CPUS; t++) {
			__u32 want = cpu == RFS_XT_RX_CPU && t < 2 ? 3 : 0;

			if (v[cpu].seq[t] != want)
				fail_msg("rfs_tx_seq[cpu %d].seq[%u] = %u, want %u",
					 cpu, t, v[cpu].seq[t], want);
		}
	}
	free(v);
}

/* Run the copy of rfs_cpumap on what rfs_xdp put out. */
static void rfs_xt_cpumap(const struct rfs_xt_out *in, struct rfs_xt_out *out)
{
	assert_int_equal(rfs_xt_run_prog(bpf_program__fd(xt.cm->progs.rfs_cpumap),
					 in->buf, in->len, in->meta_len, 0,
					 out), 0);
	assert_int_equal(out->ret, XDP_PASS);
}

/*
 * The target side, by its own code: rfs_cpumap marks each frame it
 * dequeues in rfs_rx_track[target][rx_cpu] with the batch epoch of the
 * target's queue slot (prev keeps the newest mark of an earlier epoch),
 * counts it, and strips the metadata.  The flow moves once the target's
 * delivered epoch (played here) reaches the mark of its last frame.
 * A bare frame is only counted; one with metadata not ours is counted
 * foreign; both are left alone.
 */
static void test_cpumap_marks(void **state)
{
	struct rfs_xt_out sent[8], bare, out;
	struct rfs_global_stats g0, g1;
	struct rfs_cpu_queue q0, q;
	struct rfs_rx_track tr;
	struct rfs_frame f;
	__u32 hash, i;

	if (!xt.cm)
		skip();
	rfs_frame_v4(&f, IPPROTO_TCP, "192.0.2.2", 47600, "192.0.2.1", 80);
	hash = rfs_xt_hash(&f);
	rfs_xt_set_desired(hash, 0);
	rfs_xt_steer_out(&f, 0, NULL, &bare);
	/* the application moves: held, marked */
	rfs_xt_set_desired(hash, 1);
	for (i = 0; i < 3; i++)
		rfs_xt_steer_out(&f, 0, NULL, &sent[i]);	/* seq 1..3 */
	rfs_xt_set_epochs(0, 7, 6);
	rfs_xt_set_jiffy(0, 100);
	q0 = rfs_xt_queue(0);

	/* 1 and 2 dequeued in batch 7: marked, counted, metadata gone */
	for (i = 0; i < 2; i++) {
		rfs_xt_cpumap(&sent[i], &out);
		assert_int_equal(out.meta_len, 0);
		assert_int_equal(out.len, sent[i].len - RFS_XT_META);
		assert_memory_equal(out.buf, sent[i].buf + RFS_XT_META, out.len);
	}
	tr = rfs_xt_track(0, RFS_XT_RX_CPU);
	assert_true(tr.last == rfs_mark(2, 7));
	assert_true(tr.prev == 0);
	assert_true(tr.jiffy1 == 0 && tr.jiffy2 == 0 && tr.done == 0);
	assert_int_equal(tr.jiffy, 100);
	q = rfs_xt_queue(0);
	assert_int_equal(q.dequeued - q0.dequeued, 2);
	assert_true(q.kthread != 0);	/* whoever ran it: this thread */
	/* nothing else of the row, or of another target, changed */
	assert_true(rfs_xt_track(0, 1).last == 0);
	assert_true(rfs_xt_track(1, RFS_XT_RX_CPU).last == 0);

	/* Batch 7 proven, but 3 not dequeued. */
	rfs_xt_set_epochs(0, 8, 7);
	rfs_xt_expect_held_out(&f, 0, &sent[3]);		/* seq 4 */

	/* 3 dequeued in batch 8, a jiffy later: prev and jiffy1 keep batch
	 * 7's mark, and done the newest mark found delivered */
	rfs_xt_set_jiffy(0, 101);
	rfs_xt_cpumap(&sent[2], &out);
	tr = rfs_xt_track(0, RFS_XT_RX_CPU);
	assert_true(tr.last == rfs_mark(3, 8));
	assert_true(tr.prev == rfs_mark(2, 7));
	assert_true(tr.jiffy1 == rfs_mark(2, 7));
	assert_true(tr.jiffy2 == 0);
	assert_true(tr.done == rfs_mark(2, 7));
	assert_int_equal(tr.jiffy, 101);
	/* 4 in the same batch and jiffy: only last moves */
	rfs_xt_cpumap(&sent[3], &out);
	tr = rfs_xt_track(0, RFS_XT_RX_CPU);
	assert_true(tr.last == rfs_mark(4, 8));
	assert_true(tr.prev == rfs_mark(2, 7));
	assert_true(tr.jiffy1 == rfs_mark(2, 7));
	assert_true(tr.done == rfs_mark(2, 7));
	/* batch 8 not proven delivered: held */
	rfs_xt_expect_held_out(&f, 0, &sent[4]);		/* seq 5 */
	rfs_xt_expect_held_out(&f, 0, &sent[5]);		/* seq 6 */

	/* 5 lost on a full ring, 6 dequeued in batch 8 (same epoch: prev
	 * stays); proven delivered: 6 covers 5, the flow moves */
	rfs_xt_cpumap(&sent[5], &out);
	tr = rfs_xt_track(0, RFS_XT_RX_CPU);
	assert_true(tr.last == rfs_mark(6, 8));
	assert_true(tr.prev == rfs_mark(2, 7));
	rfs_xt_set_epochs(0, 9, 8);
	rfs_xt_expect_switch(&f, 1);
	q = rfs_xt_queue(0);
	assert_int_equal(q.dequeued - q0.dequeued, 5);
	assert_int_equal(q.epoch, 9);		/* the program never moves it */

	/* the bare frame: nothing read or marked, counted by this CPU (the
	 * test's, 0); a frame with metadata not ours: foreign */
	rfs_xt_gstats(&g0);
	rfs_xt_cpumap(&bare, &out);
	assert_int_equal(out.len, bare.len);
	assert_int_equal(out.meta_len, 0);
	assert_memory_equal(out.buf, bare.buf, out.len);
	sent[7] = sent[0];
	sent[7].buf[offsetof(struct rfs_frame_meta, magic)] ^= 0xff;
	rfs_xt_cpumap(&sent[7], &out);
	assert_int_equal(out.meta_len, RFS_XT_META);
	rfs_xt_gstats(&g1);
	assert_int_equal(g1.foreign - g0.foreign, 1);
	tr = rfs_xt_track(0, RFS_XT_RX_CPU);
	assert_true(tr.last == rfs_mark(6, 8));
	assert_int_equal(rfs_xt_queue(0).dequeued - q0.dequeued, 6);
}

/*
 * rfs_dp_open() must leave every target at a batch epoch its delivered
 * epoch does not cover (epoch 1, delivered 0): with both at 0, the marks
 * of a target's very first batch would read as delivered the moment they
 * are written, before its tracepoint proved anything (its first proof,
 * delivered = epoch - 1, is refused as a step back), and a flow whose
 * first frames are in that batch could move while they sit in GRO.
 */
static void test_epoch_zero(void **state)
{
	struct rfs_xt_out sent, out;
	struct rfs_if_stats d;
	struct rfs_frame f;
	__u32 hash, c, cpu;

	print_message("  fresh datapath: CPU 0 epoch %u delivered %u, CPU 1 epoch %u delivered %u\n",
		      xt.q_fresh[0].epoch, xt.q_fresh[0].delivered,
		      xt.q_fresh[1].epoch, xt.q_fresh[1].delivered);
	/* CPU 0 as the datapath left it: its first batch not proven yet */
	cpu = 0;
	assert_int_equal(bpf_map_update_elem(xt.dp->cpu_queues_fd, &cpu,
					     &xt.q_fresh[0], BPF_ANY), 0);
	rfs_frame_v4(&f, IPPROTO_TCP, "192.0.2.2", 47700, "192.0.2.1", 80);
	hash = rfs_xt_hash(&f);
	rfs_xt_set_desired(hash, 0);
	rfs_xt_steer(&f, NULL);			/* bare */
	rfs_xt_set_desired(hash, 1);
	rfs_xt_expect_held_out(&f, 0, &sent);	/* marked: seq 1 */
	if (xt.cm)
		rfs_xt_cpumap(&sent, &out);	/* dequeued in that batch */
	else
		rfs_xt_set_track(0, RFS_XT_RX_CPU,
				 rfs_mark(1, xt.q_fresh[0].epoch), 0);
	d = rfs_xt_steer(&f, &c);
	if (d.switches && !d.held)
		rfs_xt_known_bug("flow moved off CPU 0 on a mark of epoch %u with delivered %u, before any batch was proven delivered (rfs_cpu_queues must start at epoch 1)",
				 rfs_mark_epoch(rfs_xt_track(0, RFS_XT_RX_CPU).last),
				 xt.q_fresh[0].delivered);
	assert_int_equal(d.held, 1);
	assert_int_equal(c, 0);
	for (cpu = 0; cpu < 2; cpu++)
		assert_false(rfs_seq_after_eq(xt.q_fresh[cpu].delivered,
					      xt.q_fresh[cpu].epoch));
}

/* ---- in-order moves --------------------------------------------------- */

/*
 * The in-order rule: a flow on CPU 0 whose application moves to CPU 1
 * stays on CPU 0 until the mark of its last frame there (rfs_rx_track
 * [0][this CPU]) covers that frame's sequence number and CPU 0's
 * delivered epoch has reached the mark's epoch; then it moves.  Its
 * frames before went bare: the entry names the number the first held
 * (marked) one takes.
 */
static void test_inorder_hold(void **state)
{
	struct rfs_frame f;
	__u32 hash, s;

	hash = rfs_xt_flow_on(&f, 48000, 0, 3);
	assert_int_equal(rfs_xt_entry(hash, 0).last, 1);
	rfs_xt_set_epochs(0, 5, 4);
	rfs_xt_set_desired(hash, 1);

	/* nothing dequeued */
	rfs_xt_expect_held(&f, 0);
	/* dequeued up to the frame before its last, delivered */
	s = rfs_xt_entry(hash, 0).last;
	assert_int_equal(s, 1);
	rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(s - 1, 5), 0);
	rfs_xt_set_epochs(0, 6, 5);
	rfs_xt_expect_held(&f, 0);
	/* its last frame dequeued, but its epoch not proven delivered */
	s = rfs_xt_entry(hash, 0).last;
	rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(s, 6), rfs_mark(s - 1, 5));
	rfs_xt_expect_held(&f, 0);
	/* the last frame (s + 1, the held one) dequeued in epoch 6, epoch 6
	 * delivered: it moves */
	s = rfs_xt_entry(hash, 0).last;
	rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(s, 6), rfs_mark(s - 2, 5));
	rfs_xt_set_epochs(0, 7, 6);
	rfs_xt_expect_switch(&f, 1);
	assert_int_equal(rfs_xt_entry(hash, 0).rx_cpu, RFS_XT_RX_CPU);
	/* bare on (0, 1): the number its first marked frame will take */
	assert_int_equal(rfs_xt_entry(hash, 0).last, 1);

	/* on CPU 1 now: it stays (KEEP), nothing more goes to CPU 0 */
	s = rfs_xt_tx_seq(RFS_XT_RX_CPU, 0);
	{
		struct rfs_if_stats d = rfs_xt_steer(&f, NULL);

		assert_int_equal(d.to_desired, 1);
		assert_int_equal(d.switches + d.held, 0);
	}
	assert_int_equal(rfs_xt_entry(hash, 0).cpu, 1);
	assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, 0), s);
}

/*
 * Lazy marks (rfs_order.h): a flow whose last frame went bare is covered
 * only by a mark at or after the number its entry names, that of the
 * next marked frame from this CPU to its target, which is behind it.  A
 * delivered mark short of it proves nothing (taking it would move the
 * flow with its bare frame in flight); another flow's marked frame
 * behind it proves it, and the flow moves at once.
 */
static void test_inorder_bare(void **state)
{
	struct rfs_frame f, g;
	__u32 hf, hg;

	hf = rfs_xt_flow_on(&f, 48050, 0, 2);
	rfs_frame_v4(&g, IPPROTO_UDP, "192.0.2.3", 48051, "192.0.2.1", 53);
	rfs_xt_other_slot(&g, &f);
	hg = rfs_xt_hash(&g);
	rfs_xt_set_desired(hg, 0);
	rfs_xt_steer(&g, NULL);				/* G: bare, names 1 */
	assert_int_equal(rfs_xt_entry(hf, 0).flags,
			 RFS_DEV_FLOW_VALID | RFS_DEV_FLOW_BARE);
	assert_int_equal(rfs_xt_entry(hf, 0).last, 1);
	assert_int_equal(rfs_xt_entry(hg, 0).last, 1);
	/* a delivered mark one short of F's: not covered, held, marked */
	rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(0, 4), 0);
	rfs_xt_set_epochs(0, 5, 4);
	rfs_xt_set_desired(hf, 1);
	rfs_xt_expect_held(&f, 0);			/* seq 1 */
	assert_int_equal(rfs_xt_entry(hf, 0).flags, RFS_DEV_FLOW_VALID);
	rfs_xt_expect_held(&f, 0);			/* seq 2 */
	/* F's held frames, behind G's bare one, dequeued and delivered:
	 * G moves at its first frame, F too */
	rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(2, 4), 0);
	rfs_xt_set_desired(hg, 1);
	rfs_xt_expect_switch(&g, 1);
	rfs_xt_expect_switch(&f, 1);
}

/*
 * The older marks a row keeps cover too: prev (the newest of an earlier
 * epoch), jiffy1 and jiffy2 (of earlier jiffies) and done (the newest
 * found delivered at a dequeue).  Each, alone, holds the flow while one
 * short of its last frame and moves it once it covers that frame, with
 * last itself in a batch not proven yet.  delivered past the mark's
 * epoch counts as well.
 */
static void test_inorder_marks(void **state)
{
	static const struct {
		const char *name;
		size_t off;
	} kinds[] = {
		{ "prev", offsetof(struct rfs_rx_track, prev) },
		{ "jiffy1", offsetof(struct rfs_rx_track, jiffy1) },
		{ "jiffy2", offsetof(struct rfs_rx_track, jiffy2) },
		{ "done", offsetof(struct rfs_rx_track, done) },
	};
	struct rfs_frame f;
	__u32 hash, s;
	size_t k;

	for (k = 0; k < RFS_XT_ARRAY_SIZE(kinds); k++) {
		struct rfs_rx_track tr = {};

		rfs_xt_reset_flows();
		hash = rfs_xt_flow_on(&f, 48100 + k, 0, 2);
		rfs_xt_set_desired(hash, 1);
		rfs_xt_set_epochs(0, 10, 8);
		/* last covers but is not delivered; the kept mark is one
		 * short of the flow's last frame */
		s = rfs_xt_entry(hash, 0).last;
		tr.last = rfs_mark(s + 10, 9);
		*(__u64 *)((char *)&tr + kinds[k].off) = rfs_mark(s - 1, 8);
		rfs_xt_put_track(0, RFS_XT_RX_CPU, &tr);
		rfs_xt_expect_held(&f, 0);
		/* the kept mark covers it, its epoch not delivered */
		s = rfs_xt_entry(hash, 0).last;
		tr.last = rfs_mark(s + 10, 9);
		*(__u64 *)((char *)&tr + kinds[k].off) = rfs_mark(s, 9);
		rfs_xt_put_track(0, RFS_XT_RX_CPU, &tr);
		rfs_xt_expect_held(&f, 0);
		/* covers, delivered: moves */
		s = rfs_xt_entry(hash, 0).last;
		*(__u64 *)((char *)&tr + kinds[k].off) = rfs_mark(s, 8);
		rfs_xt_put_track(0, RFS_XT_RX_CPU, &tr);
		print_message("  %s covers: ", kinds[k].name);
		rfs_xt_expect_switch(&f, 1);
		print_message("moved\n");
	}

	/* back to CPU 0: last alone covers, delivered well past it */
	rfs_xt_set_desired(hash, 0);
	s = rfs_xt_entry(hash, 0).last;
	rfs_xt_set_track(1, RFS_XT_RX_CPU, rfs_mark(s, 3), 0);
	rfs_xt_set_epochs(1, 50, 40);
	rfs_xt_expect_switch(&f, 0);
}

/*
 * Steady marked traffic from the RX CPU to the target keeps last and prev
 * in batches not proven yet (delivered lags by two epochs here).  A flow
 * that paused must still be able to move: done, kept by the cpumap
 * program itself, remembers a delivered mark that covers its frame.
 */
static void test_inorder_steady(void **state)
{
	struct rfs_xt_out a, b, out;
	struct rfs_frame fa, fb;
	struct rfs_rx_track tr;
	__u32 e, i, c;

	if (!xt.cm)
		skip();
	rfs_frame_v4(&fa, IPPROTO_TCP, "192.0.2.2", 48150, "192.0.2.1", 80);
	rfs_frame_v4(&fb, IPPROTO_UDP, "192.0.2.3", 48151, "192.0.2.1", 53);
	rfs_xt_other_slot(&fb, &fa);
	rfs_xt_set_desired(rfs_xt_hash(&fa), 0);
	rfs_xt_set_desired(rfs_xt_hash(&fb), 0);
	rfs_xt_steer_out(&fa, 0, &c, &a);	/* A: bare, names 1, quiet */
	assert_int_equal(c, 0);
	rfs_xt_steer(&fb, NULL);		/* B: bare */
	/* B wants to leave and is never proven (delivered lags): held,
	 * every frame of it marked, the first (1) behind A's */
	rfs_xt_set_desired(rfs_xt_hash(&fb), 1);
	rfs_xt_set_epochs(0, 2, 0);
	rfs_xt_cpumap(&a, &out);
	for (e = 2; e <= 6; e++) {
		rfs_xt_set_epochs(0, e, e - 2);
		for (i = 0; i < 3; i++) {
			rfs_xt_steer_out(&fb, 0, NULL, &b);
			rfs_xt_cpumap(&b, &out);
		}
	}
	tr = rfs_xt_track(0, RFS_XT_RX_CPU);
	print_message("  after steady traffic: last {%u, %u} prev {%u, %u} done {%u, %u}, delivered %u\n",
		      rfs_mark_seq(tr.last), rfs_mark_epoch(tr.last),
		      rfs_mark_seq(tr.prev), rfs_mark_epoch(tr.prev),
		      rfs_mark_seq(tr.done), rfs_mark_epoch(tr.done),
		      rfs_xt_queue(0).delivered);
	assert_false(rfs_mark_done(tr.last, rfs_xt_queue(0).delivered));
	assert_false(rfs_mark_done(tr.prev, rfs_xt_queue(0).delivered));
	assert_true(rfs_mark_delivers(tr.done, 1, rfs_xt_queue(0).delivered));
	rfs_xt_set_desired(rfs_xt_hash(&fa), 1);
	rfs_xt_expect_switch(&fa, 1);
}

/* Sequence numbers and epochs wrap: "covers" and "delivered" compare
 * serially, so a mark or epoch from before the wrap stays behind. */
static void test_inorder_wrap(void **state)
{
	struct rfs_frame f;
	__u32 hash, s;

	rfs_xt_set_tx_seq(RFS_XT_RX_CPU, 0, 0xfffffffeu);
	hash = rfs_xt_flow_on(&f, 48200, 0, 1);
	assert_int_equal(rfs_xt_entry(hash, 0).last, 0xffffffffu);
	rfs_xt_set_desired(hash, 1);
	rfs_xt_expect_held(&f, 0);
	rfs_xt_expect_held(&f, 0);
	rfs_xt_expect_held(&f, 0);
	s = rfs_xt_entry(hash, 0).last;
	assert_int_equal(s, 1);			/* 0xffffffff, 0, 1 */

	/* a mark from before the wrap does not cover */
	rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(0xffffffffu, 5), 0);
	rfs_xt_set_epochs(0, 6, 5);
	rfs_xt_expect_held(&f, 0);
	s = rfs_xt_entry(hash, 0).last;
	assert_int_equal(s, 2);
	/* epoch 1 is after delivered 0xffffffff: not delivered */
	rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(s, 1), 0);
	rfs_xt_set_epochs(0, 2, 0xffffffffu);
	rfs_xt_expect_held(&f, 0);
	/* covering mark of epoch 0xffffffff, delivered 1 (wrapped past it) */
	s = rfs_xt_entry(hash, 0).last;
	rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(s, 0xffffffffu), 0);
	rfs_xt_set_epochs(0, 2, 1);
	rfs_xt_expect_switch(&f, 1);
}

/*
 * A flow never moves on a mark that does not prove its last frame
 * delivered: none, one short, undelivered epoch, an epoch half the space
 * away (serially before delivered), the right mark in another RX CPU's
 * or another target's row, another target's delivered epoch, or any of
 * the kept marks (done, jiffy1, jiffy2) short or undelivered.
 */
static void test_inorder_undelivered(void **state)
{
	struct rfs_if_stats before, d;
	struct rfs_rx_track tr;
	struct rfs_frame f;
	__u32 hash, s, i;
	const __u32 e = 20;

	hash = rfs_xt_flow_on(&f, 48300, 0, 1);
	rfs_xt_set_desired(hash, 1);
	rfs_xt_stats(&before);
	for (i = 0; i < 200; i++) {
		s = rfs_xt_entry(hash, 0).last;
		rfs_xt_set_track(0, RFS_XT_RX_CPU, 0, 0);
		rfs_xt_set_track(0, 1, 0, 0);
		rfs_xt_set_track(1, RFS_XT_RX_CPU, 0, 0);
		rfs_xt_set_epochs(0, e + 1, e);
		rfs_xt_set_epochs(1, e + 1, e);
		switch (i % 10) {
		case 0:		/* nothing dequeued, all delivered */
			break;
		case 1:		/* dequeued, not delivered */
			rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(s, e + 1),
					 rfs_mark(s - 1, e + 1));
			break;
		case 2:		/* one short, delivered */
			rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(s - 1, e),
					 rfs_mark(s - 2, e - 1));
			break;
		case 3:		/* epoch half the space ahead of delivered */
			rfs_xt_set_track(0, RFS_XT_RX_CPU,
					 rfs_mark(s, e + 0x80000000u), 0);
			break;
		case 4:		/* in another RX CPU's row */
			rfs_xt_set_track(0, 1, rfs_mark(s, e), rfs_mark(s, e));
			break;
		case 5:		/* in another target's row */
			rfs_xt_set_track(1, RFS_XT_RX_CPU, rfs_mark(s, e),
					 rfs_mark(s, e));
			break;
		case 6:		/* another target delivered it */
			rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(s, e), 0);
			rfs_xt_set_epochs(0, e + 1, e - 1);
			rfs_xt_set_epochs(1, e + 2, e + 1);
			break;
		case 7:		/* done covering, its epoch not delivered */
			tr = (struct rfs_rx_track){ .done = rfs_mark(s, e + 1) };
			rfs_xt_put_track(0, RFS_XT_RX_CPU, &tr);
			break;
		case 8:		/* jiffy marks: one short, and undelivered */
			tr = (struct rfs_rx_track){
				.jiffy1 = rfs_mark(s - 1, e),
				.jiffy2 = rfs_mark(s, e + 1),
			};
			rfs_xt_put_track(0, RFS_XT_RX_CPU, &tr);
			break;
		case 9:		/* every mark one short, all delivered */
			tr = (struct rfs_rx_track){
				.last = rfs_mark(s - 1, e),
				.prev = rfs_mark(s - 2, e - 1),
				.jiffy1 = rfs_mark(s - 1, e),
				.jiffy2 = rfs_mark(s - 3, e - 1),
				.done = rfs_mark(s - 1, e),
			};
			rfs_xt_put_track(0, RFS_XT_RX_CPU, &tr);
			break;
		}
		rfs_xt_expect_held(&f, 0);
	}
	d = rfs_xt_delta(&before);
	assert_int_equal(d.held, i);
	assert_int_equal(d.switches, 0);
	assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, 1), 0);
}

/* ---- CPU set and table changes ---------------------------------------- */

static bool rfs_xt_usable(__u32 cpu)
{
	struct rfs_if_config cfg = rfs_xt_cfg();

	return rfs_cpu_in(cfg.usable, cpu);
}

/*
 * A frame that comes with another XDP program's metadata: rfs_xdp puts
 * its own in front of it, and rfs_cpumap takes only its own off again,
 * the other program's bytes and the frame untouched.  With no room left
 * for ours, the frame is redirected without (no_meta), unchanged.  Where
 * that room ends depends on the kernel: 6.1 takes at most 32 bytes of
 * metadata (28 of theirs leave no room), 6.18 as much as the headroom
 * holds (216 of theirs fill the test run's 256 but for the xdp_frame the
 * kernel keeps there, and 28 leave room); the sizes are tried in turn.
 */
static void test_meta_behind_theirs(void **state)
{
	__u8 in[RFS_FR_MAX + 256], theirs[216];
	static const __u32 sizes[] = { 28, 216 };
	struct rfs_if_stats before, d;
	int e, full = 0;
	struct rfs_frame_layout lay;
	struct rfs_xt_out out, cm;
	struct rfs_frame_meta m;
	struct rfs_frame f;
	__u32 hash, i;

	if (!xt.cm)
		skip();
	for (i = 0; i < sizeof(theirs); i++)
		theirs[i] = (__u8)(0xa0 + i);
	rfs_frame_v4(&f, IPPROTO_TCP, "192.0.2.2", 47700, "192.0.2.1", 80);
	hash = rfs_xt_hash(&f);
	rfs_xt_set_desired(hash, 1);
	memcpy(in, theirs, 4);
	rfs_frame_build(&f, in + 4, &lay);
	rfs_xt_stats(&before);
	assert_int_equal(rfs_xt_run_prog(xt.ifc->prog_fd, in,
					 4 + lay.len, 4, 0, &out), 0);
	d = rfs_xt_delta(&before);
	assert_int_equal(out.ret, XDP_REDIRECT);
	assert_int_equal(d.steered, 1);
	assert_int_equal(d.no_meta, 0);
	assert_int_equal(out.meta_len, RFS_XT_META + 4);
	assert_int_equal(out.len, RFS_XT_META + 4 + lay.len);
	memcpy(&m, out.buf, sizeof(m));
	assert_int_equal(m.magic, RFS_META_MAGIC);
	assert_int_equal(m.cpu, 1);
	assert_int_equal(m.seq, rfs_xt_entry(hash, 0).last);
	assert_memory_equal(out.buf + RFS_XT_META, in, 4 + lay.len);

	/* the target takes ours off and marks it */
	rfs_xt_set_epochs(1, 7, 6);
	rfs_xt_cpumap(&out, &cm);
	assert_int_equal(cm.meta_len, 4);
	assert_int_equal(cm.len, 4 + lay.len);
	assert_memory_equal(cm.buf, in, 4 + lay.len);
	assert_true(rfs_xt_track(1, RFS_XT_RX_CPU).last == rfs_mark(m.seq, 7));

	/* theirs filling what the kernel allows: no room for ours */
	for (i = 0; i < 2 && !full; i++) {
		__u32 n = sizes[i];

		memcpy(in, theirs, n);
		rfs_frame_build(&f, in + n, &lay);
		rfs_xt_stats(&before);
		e = rfs_xt_run_prog(xt.ifc->prog_fd, in, n + lay.len, n,
				    0, &out);
		if (e == -EINVAL)
			continue;	/* more metadata than this kernel takes */
		assert_int_equal(e, 0);
		d = rfs_xt_delta(&before);
		assert_int_equal(out.ret, XDP_REDIRECT);
		assert_int_equal(d.steered, 1);
		if (!d.no_meta)
			continue;	/* there was room: as above */
		assert_int_equal(out.meta_len, n);
		assert_int_equal(out.len, n + lay.len);
		assert_memory_equal(out.buf, in, out.len);
		full = 1;
	}
	assert_true(full);
}

/*
 * Removing CPU 0 while a flow has frames in flight there: no new flow is
 * given CPU 0, the flow stays on it (held) whatever its desired CPU, and
 * CPU 0 stays usable through any number of refreshes for as long as
 * rfs_devtab_in_flight() says so (no removal is ever forced).  Once its
 * last frame is delivered, the next refresh drops CPU 0, and the flow
 * leaves it.
 */
static void test_remove_cpu(void **state)
{
	struct rfs_if_config cfg;
	struct rfs_frame f, g;
	struct rfs_if_stats d;
	__u32 hash, cpu, i, s, seq0;

	/* its last frame held, so marked: the tests play its mark */
	hash = rfs_xt_flow_on(&f, 48400, 0, 3);
	rfs_xt_set_desired(hash, 1);
	rfs_xt_expect_held(&f, 0);
	rfs_xt_set_desired(hash, 0);
	rfs_xt_set_epochs(0, 5, 4);
	rfs_xt_set_cpus("1");
	cfg = rfs_xt_cfg();
	assert_false(rfs_cpu_in(cfg.allowed, 0));
	assert_true(rfs_cpu_in(cfg.usable, 0));
	assert_int_equal(cfg.n_allowed, 1);
	assert_int_equal(cfg.allowed_list[0], 1);
	assert_int_equal(rfs_xt_in_flight(0), 1);
	assert_int_equal(rfs_xt_in_flight(1), 0);

	/* The application still runs on CPU 0: held there. */
	rfs_xt_expect_held(&f, 0);
	/* It moves to CPU 1 instead: held all the same. */
	rfs_xt_set_desired(hash, 1);
	rfs_xt_expect_held(&f, 0);
	/* And with no desired CPU at all. */
	rfs_xt_clear_desired(hash);
	rfs_xt_expect_held(&f, 0);

	/* New flows, with and without desired CPU 0: never CPU 0. */
	seq0 = rfs_xt_tx_seq(RFS_XT_RX_CPU, 0);
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
	assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, 0), seq0);

	/* Never forced: refreshes keep it while anything is in flight. */
	for (i = 0; i < 10; i++)
		rfs_xt_refresh();
	assert_true(rfs_xt_usable(0));
	rfs_xt_expect_held(&f, 0);

	/* Dequeued up to one short of its last frame: still in flight. */
	s = rfs_xt_entry(hash, 0).last;
	rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(s - 1, 5), 0);
	assert_int_equal(rfs_xt_in_flight(0), 1);
	rfs_xt_refresh();
	assert_true(rfs_xt_usable(0));

	/* Delivered: the next refresh (rfsd's timer) finishes the removal. */
	rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(s, 5), 0);
	rfs_xt_set_epochs(0, 6, 5);
	assert_int_equal(rfs_xt_in_flight(0), 0);
	rfs_xt_refresh();
	assert_false(rfs_xt_usable(0));
	assert_false(rfs_cpu_in(rfs_xt_cfg().allowed, 0));

	/* And the flow leaves (not usable any more: FORCED, and safe). */
	d = rfs_xt_steer(&f, &cpu);
	assert_int_equal(cpu, 1);
	assert_int_equal(d.switches, 1);
	assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, 0), s);
}

/* Removing a CPU whose flows have all been delivered is immediate. */
/*
 * A flow's last frame on a CPU being removed was lost on a full ring: no
 * mark will ever cover it.  Once a flush with drops has covered its
 * number (rfs_enqueue's dropped_upto) and the target's kthread has slept
 * for a second (nothing can be in its ring or a bulk queue for it), the
 * frame is not in flight and the removal completes; before that, or with
 * the drop short of the frame, it is.
 */
static void test_remove_cpu_dropped(void **state)
{
	struct rfs_frame f;
	__u32 hash, s;

	hash = rfs_xt_flow_on(&f, 48410, 0, 1);
	rfs_xt_set_desired(hash, 1);
	rfs_xt_expect_held(&f, 0);		/* marked */
	rfs_xt_set_epochs(0, 5, 4);
	rfs_xt_set_cpus("1");
	s = rfs_xt_entry(hash, 0).last;
	rfs_xt_set_track(0, RFS_XT_RX_CPU, rfs_mark(s - 1, 4), 0);
	assert_int_equal(rfs_xt_in_flight(0), 1);

	/* a drop short of the frame: in flight, however long it sleeps */
	rfs_xt_set_dropped_upto(RFS_XT_RX_CPU, 0, s - 1);
	assert_int_equal(rfs_xt_in_flight(0), 1);
	usleep(1100 * 1000);
	assert_int_equal(rfs_xt_in_flight(0), 1);
	rfs_xt_refresh();
	assert_true(rfs_xt_usable(0));

	/* the drop covers it, and the kthread (idle here) has slept long */
	rfs_xt_set_dropped_upto(RFS_XT_RX_CPU, 0, s);
	assert_int_equal(rfs_xt_in_flight(0), 0);
	rfs_xt_refresh();
	assert_false(rfs_xt_usable(0));
}

static void test_remove_cpu_drained(void **state)
{
	struct rfs_if_config cfg;
	struct rfs_frame f;
	__u32 hash;

	hash = rfs_xt_flow_on(&f, 48350, 0, 3);
	rfs_xt_set_track(0, RFS_XT_RX_CPU,
			 rfs_mark(rfs_xt_entry(hash, 0).last, 3), 0);
	rfs_xt_set_epochs(0, 4, 3);
	assert_int_equal(rfs_xt_in_flight(0), 0);
	rfs_xt_set_cpus("1");
	cfg = rfs_xt_cfg();
	assert_false(rfs_cpu_in(cfg.usable, 0));
	assert_false(rfs_cpu_in(cfg.allowed, 0));
	rfs_xt_expect_switch(&f, 1);

	/* And back: CPU 0 allowed again, the flow follows its app there. */
	rfs_xt_set_cpus("0-1");
	assert_true(rfs_xt_usable(0));
	rfs_xt_set_track(1, RFS_XT_RX_CPU,
			 rfs_mark(rfs_xt_entry(hash, 0).last, 3), 0);
	rfs_xt_set_epochs(1, 4, 3);
	rfs_xt_expect_switch(&f, 0);
}

/*
 * A flow whose last frame on CPU 0 went bare: no mark will come for that
 * frame unless the flow sends again.  While CPU 0 is in the set the
 * datapath reads, its kthread asleep proves nothing (the frame may still
 * be in this CPU's bulk queue); once rfsd has pushed the set without CPU
 * 0 (waiting out its readers, which ends the NAPI poll that sent the
 * frame) the kthread asleep proves it delivered, and the removal
 * completes (here no frame is really in flight: the kthread sleeps).
 */
static void test_remove_cpu_bare(void **state)
{
	struct rfs_frame f;
	__u32 hash;

	hash = rfs_xt_flow_on(&f, 48360, 0, 3);
	assert_int_equal(rfs_xt_entry(hash, 0).flags,
			 RFS_DEV_FLOW_VALID | RFS_DEV_FLOW_BARE);
	assert_int_equal(rfs_xt_in_flight(0), 1);
	rfs_xt_set_cpus("1");
	assert_false(rfs_xt_usable(0));
	rfs_xt_expect_switch(&f, 1);
}

/* Slot 1 of rfs_dev_outer: the table before the last resize. */
static int rfs_xt_prev_fd(void)
{
	__u32 id = rfs_xt_outer_id(1);

	return id ? bpf_map_get_fd_by_id(id) : -1;
}

static void rfs_xt_resize(__u32 n)
{
	char err[RFS_ERR_LEN] = "";
	struct rfs_dev_flow hdr;

	if (rfs_if_set_flow_cnt(xt.dp, xt.ifc, n, "test", err))
		fail_msg("set flow-cnt %u: %s", n, err);
	hdr = rfs_xt_hdr(xt.ifc->dev_flows_fd);
	assert_int_equal(hdr.flags, RFS_DEV_TABLE_HDR);
	assert_int_equal(hdr.last, n - 1);
	assert_int_equal(hdr.rx_cpu, RFS_XT_RXQ);
	assert_int_equal(rfs_xt_max_entries(xt.ifc->dev_flows_fd),
			 1 + n * RFS_XT_RXQ);
	assert_int_equal(rfs_xt_outer_id(0), rfs_obj_id(xt.ifc->dev_flows_fd));
	assert_int_equal(rfs_xt_cfg().flow_mask, n - 1);
	/* the new table starts empty */
	assert_int_equal(rfs_xt_valid_entries(NULL), 0);
}

/*
 * Growing the table: the new one starts empty and the old one stays in
 * outer slot 1, frozen.  A flow known only to the old table keeps its
 * path: held on its old CPU when its application moved (no switch on a
 * resize, unlike kernel RFS), kept when it did not; its state goes to
 * the new table.  rfs_if_refresh drops the old table once nothing in it
 * is in flight.
 */
static void test_resize_grow(void **state)
{
	struct rfs_dev_flow old1, old2, e;
	struct rfs_frame f1, f2;
	__u32 h1, h2, c;
	__u16 sport;
	struct rfs_if_stats d;
	int old_fd;

	h1 = rfs_xt_flow_on(&f1, 48500, 0, 2);
	/* flow 1's app moves: held on CPU 0, its frame marked */
	rfs_xt_set_desired(h1, 1);
	rfs_xt_expect_held(&f1, 0);
	/* a second flow in another slot of both dev tables and of the
	 * sock table (the hash seed is random: sharing a sock slot, flow
	 * 1's move below would overwrite flow 2's CPU, about one run in
	 * sock_flow_entries; seen once on 6.1 under TCG) */
	for (sport = 48501;; sport++) {
		rfs_frame_v4(&f2, IPPROTO_TCP, "192.0.2.2", sport,
			     "192.0.2.1", 80);
		h2 = rfs_xt_hash(&f2);
		if (((h1 ^ h2) & xt.g.sock_flow_mask) &&
		    rfs_xt_idx(h2, 0) != rfs_xt_idx(h1, 0) &&
		    rfs_xt_idx_in(h2, 0, 256, RFS_XT_RXQ) !=
		    rfs_xt_idx_in(h1, 0, 256, RFS_XT_RXQ))
			break;
	}
	assert_int_equal(rfs_xt_flow_on(&f2, sport, 0, 1), h2);
	old1 = rfs_xt_entry(h1, 0);
	old2 = rfs_xt_entry(h2, 0);
	old_fd = dup(xt.ifc->dev_flows_fd);
	assert_true(old_fd >= 0);
	assert_int_equal(rfs_xt_outer_id(1), 0);

	rfs_xt_resize(256);
	assert_int_equal(rfs_xt_outer_id(1), rfs_obj_id(old_fd));

	/* flow 2's app did not move: kept, no switch.  Its bare frame
	 * records just what the old table holds, and must still write it
	 * to the new one: the old one is judged as never written again. */
	d = rfs_xt_steer(&f2, &c);
	assert_int_equal(c, 0);
	assert_int_equal(d.to_desired, 1);
	assert_int_equal(d.switches + d.held, 0);
	assert_true(old2.flags & RFS_DEV_FLOW_BARE);
	e = rfs_xt_entry(h2, 0);
	assert_memory_equal(&old2, &e, sizeof(e));
	/* flow 1 still held on CPU 0, from the old table's state */
	rfs_xt_expect_held(&f1, 0);
	e = rfs_xt_entry(h1, 0);
	assert_int_equal(e.cpu, 0);
	assert_int_equal(e.last, old1.last + 1);
	assert_int_equal(rfs_xt_valid_entries(NULL), 2);
	/* the old table is never written again */
	e = rfs_xt_entry_in(old_fd, h1, 0);
	assert_memory_equal(&old1, &e, sizeof(e));
	e = rfs_xt_entry_in(old_fd, h2, 0);
	assert_memory_equal(&old2, &e, sizeof(e));

	/* in flight: the old table stays through refreshes */
	rfs_xt_refresh();
	rfs_xt_refresh();
	assert_int_equal(rfs_xt_outer_id(1), rfs_obj_id(old_fd));
	rfs_xt_expect_held(&f1, 0);

	/* delivered: flow 1 moves, the next refresh drops the old table */
	rfs_xt_set_track(0, RFS_XT_RX_CPU,
			 rfs_mark(rfs_xt_tx_seq(RFS_XT_RX_CPU, 0), 2), 0);
	rfs_xt_set_epochs(0, 3, 2);
	rfs_xt_expect_switch(&f1, 1);
	rfs_xt_refresh();
	assert_int_equal(rfs_xt_outer_id(1), 0);
	close(old_fd);
}

/*
 * Shrinking works the same way; the table before the last resize must
 * be drained before the next resize (refused with EBUSY until then), and
 * its in-flight flows keep a removed CPU usable just as the current
 * table's do.
 */
static void test_resize_shrink(void **state)
{
	char err[RFS_ERR_LEN] = "";
	struct rfs_frame f;
	__u32 hash;
	int prev_fd;

	rfs_xt_resize(128);
	rfs_xt_refresh();			/* nothing in flight: dropped */
	assert_int_equal(rfs_xt_outer_id(1), 0);

	hash = rfs_xt_flow_on(&f, 48600, 0, 2);
	rfs_xt_set_desired(hash, 1);
	rfs_xt_expect_held(&f, 0);		/* marked */
	rfs_xt_resize(64);
	prev_fd = rfs_xt_prev_fd();
	assert_true(prev_fd >= 0);
	assert_int_equal(rfs_xt_max_entries(prev_fd), 1 + 128 * RFS_XT_RXQ);
	assert_int_equal(rfs_xt_valid_in(prev_fd, NULL), 1);
	assert_int_equal(rfs_xt_entry_in(prev_fd, hash, 0).cpu, 0);

	/* a second resize while the old table has frames in flight */
	assert_int_equal(rfs_if_set_flow_cnt(xt.dp, xt.ifc, 256, "test", err),
			 -EBUSY);
	print_message("  second resize: %s\n", err);
	assert_int_equal(rfs_xt_hdr(xt.ifc->dev_flows_fd).last, 63);

	/* CPU 0 removed: usable while the old table's flow is in flight
	 * (the new table knows nothing of it yet) */
	assert_int_equal(rfs_xt_valid_entries(NULL), 0);
	rfs_xt_set_cpus("1");
	assert_true(rfs_xt_usable(0));
	assert_int_equal(rfs_xt_in_flight(0), 1);
	rfs_xt_refresh();
	assert_true(rfs_xt_usable(0));

	/* held on CPU 0 from the old table's state */
	rfs_xt_expect_held(&f, 0);
	assert_int_equal(rfs_xt_valid_entries(NULL), 1);

	rfs_xt_set_track(0, RFS_XT_RX_CPU,
			 rfs_mark(rfs_xt_entry(hash, 0).last, 2), 0);
	rfs_xt_set_epochs(0, 3, 2);
	rfs_xt_refresh();
	assert_int_equal(rfs_xt_outer_id(1), 0);
	assert_false(rfs_xt_usable(0));
	rfs_xt_expect_switch(&f, 1);
	close(prev_fd);
	rfs_xt_resize(256);
}

/* ---- the local path ---------------------------------------------------- */

/*
 * With the local path on, a flow whose application runs on the RX CPU
 * is passed up right there (XDP_PASS, no cpumap, no sequence number),
 * its entry LOCAL with the jiffy of its last frame, counted in local
 * (and in steered/to_desired/spread).  Flows for other CPUs still go
 * through the cpumap.
 */
static void test_local_path(void **state)
{
	struct rfs_if_stats d;
	struct rfs_frame f, g;
	__u32 c, i;

	assert_true(rfs_xt_cfg().local_path);
	rfs_frame_v4(&f, IPPROTO_TCP, "192.0.2.2", 50100, "192.0.2.1", 80);
	rfs_xt_set_desired(rfs_xt_hash(&f), RFS_XT_RX_CPU);
	d = rfs_xt_local(&f);
	assert_int_equal(d.to_desired, 1);
	assert_int_equal(d.switches, 0);
	d = rfs_xt_local(&f);		/* KEEP */
	assert_int_equal(d.to_desired, 1);
	rfs_tu_sleep_ms(30);		/* a few jiffies: last follows */
	d = rfs_xt_local(&f);
	assert_int_equal(d.switches + d.held, 0);

	/* another CPU's flow: cpumap */
	rfs_frame_v4(&g, IPPROTO_TCP, "192.0.2.3", 50101, "192.0.2.1", 80);
	rfs_xt_other_slot(&g, &f);
	rfs_xt_set_desired(rfs_xt_hash(&g), 1);
	d = rfs_xt_steer(&g, &c);
	assert_int_equal(c, 1);

	/* spread flows landing on the RX CPU are local too */
	rfs_xt_set_cpus("0");
	for (i = 0; i < 8; i++) {
		rfs_frame_v4(&g, IPPROTO_UDP, "192.0.2.4", 50200 + i,
			     "192.0.2.1", 53);
		if (rfs_xt_entry(rfs_xt_hash(&g), 0).flags & RFS_DEV_FLOW_VALID)
			continue;	/* shares a slot (no tags, as in RFS) */
		d = rfs_xt_local(&g);
		assert_int_equal(d.spread, 1);
	}
}

/*
 * Leaving the local path without handover: the flow is held on the RX
 * CPU, still passed up locally, until local_drain_jiffies have gone by
 * since its last local frame; then it moves through the cpumap.
 */
static void test_local_drain(void **state)
{
	struct rfs_dev_flow e;
	struct rfs_if_stats d;
	struct rfs_frame f;
	__u32 hash, idx;
	__u64 now;
	int i;

	if (!rfs_tu_jiffies())
		skip();
	rfs_xt_set_local(false, 100);
	hash = rfs_xt_local_flow(&f, 50300);
	rfs_xt_set_desired(hash, 1);
	for (i = 0; i < 3; i++) {
		d = rfs_xt_local(&f);
		assert_int_equal(d.held, 1);
		assert_int_equal(d.switches, 0);
	}
	/* its last local frame 50 jiffies ago: still held (and refreshed) */
	idx = rfs_xt_idx(hash, 0);
	now = rfs_tu_jiffies();
	e = rfs_xt_entry(hash, 0);
	e.last = (__u32)now - 50;
	assert_int_equal(bpf_map_update_elem(xt.ifc->dev_flows_fd, &idx, &e,
					     BPF_ANY), 0);
	d = rfs_xt_local(&f);
	assert_int_equal(d.held, 1);
	/* 150 jiffies ago: drained, it moves to CPU 1 via the cpumap */
	now = rfs_tu_jiffies();
	e = rfs_xt_entry(hash, 0);
	e.last = (__u32)now - 150;
	assert_int_equal(bpf_map_update_elem(xt.ifc->dev_flows_fd, &idx, &e,
					     BPF_ANY), 0);
	rfs_xt_expect_switch(&f, 1);
	e = rfs_xt_entry(hash, 0);
	assert_int_equal(e.flags, RFS_DEV_FLOW_VALID | RFS_DEV_FLOW_BARE);
	assert_int_equal(e.last, 1);

	/* and in real time: back local, then away after 2 jiffies */
	rfs_xt_set_track(1, RFS_XT_RX_CPU, rfs_mark(1, 3), 0);
	rfs_xt_set_epochs(1, 4, 3);
	rfs_xt_set_desired(hash, RFS_XT_RX_CPU);
	d = rfs_xt_local(&f);
	assert_int_equal(d.switches, 1);
	rfs_xt_set_local(false, 2);
	rfs_xt_set_desired(hash, 1);
	rfs_tu_sleep_ms(3 * 1000 / 100 + 20);	/* > 2 jiffies at HZ >= 100 */
	rfs_xt_expect_switch(&f, 1);
}

/*
 * Leaving with handover (local_handover, set when NAPI GRO is flushed
 * at every poll end): the flow's first frame after the move takes the RX
 * CPU's own cpumap queue (held there), making it an ordinary remote flow
 * on that CPU; it moves on once that frame is delivered.
 */
static void test_local_handover(void **state)
{
	struct rfs_dev_flow e;
	struct rfs_frame f;
	__u32 hash, s;

	rfs_xt_set_local(true, 100000);
	hash = rfs_xt_local_flow(&f, 50400);
	rfs_xt_set_desired(hash, 1);
	rfs_xt_expect_held(&f, RFS_XT_RX_CPU);	/* via CPU 0's cpumap */
	e = rfs_xt_entry(hash, 0);
	assert_int_equal(e.flags, RFS_DEV_FLOW_VALID);
	assert_int_equal(e.cpu, RFS_XT_RX_CPU);
	assert_int_equal(e.last, 1);
	rfs_xt_expect_held(&f, RFS_XT_RX_CPU);
	s = rfs_xt_entry(hash, 0).last;
	rfs_xt_set_track(RFS_XT_RX_CPU, RFS_XT_RX_CPU, rfs_mark(s, 2), 0);
	rfs_xt_set_epochs(RFS_XT_RX_CPU, 3, 1);
	rfs_xt_expect_held(&f, RFS_XT_RX_CPU);
	s = rfs_xt_entry(hash, 0).last;
	rfs_xt_set_track(RFS_XT_RX_CPU, RFS_XT_RX_CPU, rfs_mark(s, 2), 0);
	rfs_xt_set_epochs(RFS_XT_RX_CPU, 3, 2);
	rfs_xt_expect_switch(&f, 1);
}

/*
 * Removing the CPU a local flow is passed up on: the CPU stays in the
 * cpumap (usable) while the flow's last local frame may still be in GRO
 * (local_drain_jiffies), so that a busy flow hands over through it rather
 * than wait on the local path for a gap it may never leave; once that
 * hand-over is delivered the removal completes.  A local entry older than
 * the drain holds nothing up.
 */
static void test_remove_cpu_local(void **state)
{
	struct rfs_frame f, g;
	__u32 hash, s, cpu;
	int i;

	rfs_xt_set_local(true, 100000);
	hash = rfs_xt_local_flow(&f, 50450);
	rfs_xt_set_cpus("1");
	assert_int_equal(rfs_xt_in_flight(RFS_XT_RX_CPU), 1);
	for (i = 0; i < 3; i++)
		rfs_xt_refresh();
	assert_true(rfs_xt_usable(RFS_XT_RX_CPU));
	assert_false(rfs_cpu_in(rfs_xt_cfg().allowed, RFS_XT_RX_CPU));

	/* its next frame hands over through CPU 0's own cpumap queue */
	rfs_xt_expect_held(&f, RFS_XT_RX_CPU);
	assert_int_equal(rfs_xt_entry(hash, 0).flags, RFS_DEV_FLOW_VALID);
	assert_int_equal(rfs_xt_in_flight(RFS_XT_RX_CPU), 1);
	rfs_xt_refresh();
	assert_true(rfs_xt_usable(RFS_XT_RX_CPU));

	/* delivered there: the removal completes, the flow leaves */
	s = rfs_xt_entry(hash, 0).last;
	rfs_xt_set_track(RFS_XT_RX_CPU, RFS_XT_RX_CPU, rfs_mark(s, 2), 0);
	rfs_xt_set_epochs(RFS_XT_RX_CPU, 3, 2);
	assert_int_equal(rfs_xt_in_flight(RFS_XT_RX_CPU), 0);
	rfs_xt_refresh();
	assert_false(rfs_xt_usable(RFS_XT_RX_CPU));
	rfs_xt_steer(&f, &cpu);
	assert_int_equal(cpu, 1);

	/* a local entry past its drain: nothing in flight */
	rfs_xt_set_cpus("0,1");
	rfs_xt_set_local(true, 2);
	rfs_xt_local_flow(&g, 50460);
	rfs_xt_set_cpus("1");
	usleep(100 * 1000);	/* 2 jiffies at HZ >= 20 */
	assert_int_equal(rfs_xt_in_flight(RFS_XT_RX_CPU), 0);
	rfs_xt_refresh();
	assert_false(rfs_xt_usable(RFS_XT_RX_CPU));
}

/* Entering the local path: a remote flow whose application moves to the
 * RX CPU waits for its frames on the old CPU like any other move. */
static void test_local_enter(void **state)
{
	struct rfs_if_stats d;
	struct rfs_frame f;
	__u32 hash, s;

	hash = rfs_xt_flow_on(&f, 50500, 1, 2);
	rfs_xt_set_desired(hash, RFS_XT_RX_CPU);
	rfs_xt_expect_held(&f, 1);
	s = rfs_xt_entry(hash, 0).last;
	rfs_xt_set_track(1, RFS_XT_RX_CPU, rfs_mark(s, 4), 0);
	rfs_xt_set_epochs(1, 5, 4);
	d = rfs_xt_local(&f);
	assert_int_equal(d.switches, 1);
	assert_int_equal(d.to_desired, 1);
	assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, 1), s);
}

/*
 * A flow last passed up locally on CPU 1 whose frame now arrives on
 * CPU 0 (its queue's interrupt moved): held through CPU 1's cpumap, whose
 * kthread runs only after CPU 1's NAPI poll flushed the earlier frames.
 */
static void test_local_other_rx(void **state)
{
	struct rfs_if_stats d;
	struct rfs_dev_flow e;
	struct rfs_frame f;
	__u32 hash, c;

	rfs_xt_set_local(false, 100000);
	rfs_frame_v4(&f, IPPROTO_TCP, "192.0.2.2", 50600, "192.0.2.1", 80);
	hash = rfs_xt_hash(&f);
	rfs_xt_set_desired(hash, 1);
	rfs_xt_pin(1);
	d = rfs_xt_local(&f);
	rfs_xt_pin(RFS_XT_RX_CPU);
	assert_int_equal(d.to_desired, 1);
	e = rfs_xt_entry(hash, 0);
	assert_int_equal(e.cpu, 1);
	assert_int_equal(e.rx_cpu, 1);

	d = rfs_xt_steer(&f, &c);
	assert_int_equal(c, 1);
	assert_int_equal(d.held, 1);
	assert_int_equal(d.switches, 0);
	e = rfs_xt_entry(hash, 0);
	assert_int_equal(e.flags, RFS_DEV_FLOW_VALID);
	assert_int_equal(e.rx_cpu, RFS_XT_RX_CPU);
	/* now an ordinary remote flow on its desired CPU */
	d = rfs_xt_steer(&f, &c);
	assert_int_equal(c, 1);
	assert_int_equal(d.to_desired, 1);
	assert_int_equal(d.held + d.switches, 0);
}

/*
 * CPU 0 (the RX CPU) removed while a flow is local there.  rfsd keeps
 * CPU 0 usable while that flow's last local frame is younger than the
 * drain (test_remove_cpu_local), so the flow hands over through CPU 0's
 * cpumap queue and stays held there.  Where CPU 0 is dropped from usable
 * (an older rfsd did so at once, with no remote flow in flight), the
 * flow must instead wait out its local drain on CPU 0 and leave: a
 * handover through CPU 0's cpumap queue would send a frame to a CPU no
 * longer usable, and the flow's next frame, finding CPU 0 not usable,
 * would be FORCED to CPU 1 while that one is still in CPU 0's queue.
 * Either outcome is checked, whichever the refresh gave.
 */
static void test_local_removed_cpu(void **state)
{
	struct rfs_xt_out out;
	struct rfs_if_stats before, d;
	struct rfs_frame_layout lay;
	__u8 buf[RFS_FR_MAX];
	struct rfs_frame f;
	__u32 hash, c;

	rfs_xt_set_local(true, 100000);
	hash = rfs_xt_local_flow(&f, 50700);
	rfs_xt_set_cpus("1");
	print_message("  CPU 0 removed with a local flow on it: usable %d\n",
		      rfs_xt_usable(0));

	rfs_frame_build(&f, buf, &lay);
	rfs_xt_stats(&before);
	assert_int_equal(rfs_xt_run_q(buf, lay.len, 0, &out), 0);
	d = rfs_xt_delta(&before);
	assert_int_equal(d.held, 1);
	if (out.ret == XDP_PASS) {
		/* held locally until drained: in order; then it leaves */
		assert_int_equal(d.local, 1);
		rfs_xt_set_local(true, 2);
		rfs_tu_sleep_ms(3 * 1000 / 100 + 20);
		rfs_xt_expect_switch(&f, 1);
		return;
	}
	assert_int_equal(out.ret, XDP_REDIRECT);
	assert_int_equal(rfs_xt_meta(&out).cpu, RFS_XT_RX_CPU);
	/* that frame (seq 1 to CPU 0) is not dequeued, let alone delivered */
	assert_true(rfs_xt_track(RFS_XT_RX_CPU, RFS_XT_RX_CPU).last == 0);
	d = rfs_xt_steer(&f, &c);
	if (c != RFS_XT_RX_CPU)
		rfs_xt_known_bug("flow %08x handed over into CPU %u's cpumap after CPU %u left the usable set, then FORCED to CPU %u with that frame undelivered (switches %llu)",
				 hash, RFS_XT_RX_CPU, RFS_XT_RX_CPU, c,
				 (unsigned long long)d.switches);
}

/* ---- live frames ------------------------------------------------------- */

static void rfs_xt_live_run(const __u8 *buf, size_t len, __u32 repeat)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	struct xdp_md ctx = {};

	ctx.data_end = len;
	o.data_in = buf;
	o.data_size_in = len;
	o.ctx_in = &ctx;
	o.ctx_size_in = sizeof(ctx);
	o.repeat = repeat;
	o.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
	if (bpf_prog_test_run_opts(xt.ifc->prog_fd, &o))
		fail_msg("live test run: %s", strerror(errno));
}

/* Wait for target's kthread to have run rfs_cpumap on n more frames. */
static struct rfs_cpu_queue rfs_xt_wait_dequeued(__u32 target, __u64 from,
						 __u64 n)
{
	struct rfs_cpu_queue q;
	int i;

	for (i = 0; i < 300; i++) {
		q = rfs_xt_queue(target);
		if (q.dequeued - from >= n)
			break;
		rfs_tu_sleep_ms(10);
	}
	/* the cpumap program counts a frame before its batch's tracepoint
	 * runs: let the kthread finish the batch and go back to sleep */
	rfs_tu_sleep_ms(50);
	return rfs_xt_queue(target);
}

/*
 * Live frames go through bpf_redirect_map into the real cpumap: the
 * target's kthread runs rfs_cpumap on each, counting the bare ones and
 * marking the held ones in rfs_rx_track[target][this CPU] up to their
 * last sequence number; its xdp_cpumap_kthread tracepoint advances the
 * batch epoch and proves earlier batches delivered, and no frame of a
 * modest batch is dropped on enqueue.  The test thread runs on CPU 0:
 * target 1 is another CPU, target 0 its own (its kthread runs when the
 * test sleeps).  Without ingress_ifindex the kernel uses RX queue 0 of
 * the netns' loopback; the frames are addressed to a MAC no device has,
 * so after the cpumap the stack drops them (PACKET_OTHERHOST).
 */
static void test_live_frames(void **state)
{
	struct rfs_frame_layout lay;
	__u8 buf[RFS_FR_MAX], gbuf[RFS_FR_MAX];
	struct rfs_frame f, g;
	__u32 target;

	for (target = 0; target < 2; target++) {
		struct rfs_global_stats g0, g1;
		struct rfs_cpu_queue q0, q1, q2, other0;
		struct rfs_rx_track tr1, tr2;
		const __u32 n1 = 64, n2 = 8;
		struct rfs_dev_flow e;
		__u32 hash, i;

		rfs_xt_reset_flows();
		rfs_frame_v4(&f, IPPROTO_UDP, "192.0.2.2", 51000 + target,
			     "192.0.2.1", 9);
		rfs_frame_build(&f, buf, &lay);
		rfs_frame_v4(&g, IPPROTO_UDP, "192.0.2.3", 51010 + target,
			     "192.0.2.1", 9);
		rfs_xt_other_slot(&g, &f);
		hash = rfs_xt_hash(&f);
		rfs_xt_set_desired(hash, target);
		rfs_xt_set_desired(rfs_xt_hash(&g), target);
		q0 = rfs_xt_queue(target);
		other0 = rfs_xt_queue(!target);
		rfs_xt_gstats(&g0);

		/* the flow stays: every frame bare, counted, nothing marked */
		rfs_xt_live_run(buf, lay.len, n1);
		q1 = rfs_xt_wait_dequeued(target, q0.dequeued, n1);
		rfs_xt_gstats(&g1);
		tr1 = rfs_xt_track(target, RFS_XT_RX_CPU);
		e = rfs_xt_entry(hash, 0);
		print_message("  live -> CPU %u, bare: dequeued +%llu, epoch %u -> %u, delivered %u -> %u, enqueue drops +%llu\n",
			      target,
			      (unsigned long long)(q1.dequeued - q0.dequeued),
			      q0.epoch, q1.epoch, q0.delivered, q1.delivered,
			      (unsigned long long)(g1.enqueue_drops -
						   g0.enqueue_drops));
		assert_int_equal(g1.enqueue_drops - g0.enqueue_drops, 0);
		assert_int_equal(q1.dequeued - q0.dequeued, n1);
		assert_int_equal(g1.foreign - g0.foreign, 0);
		assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, target), 0);
		assert_int_equal(e.cpu, target);
		assert_int_equal(e.flags,
				 RFS_DEV_FLOW_VALID | RFS_DEV_FLOW_BARE);
		assert_int_equal(e.last, 1);
		assert_true(tr1.last == 0);
		assert_true(q1.epoch != q0.epoch);	/* batches went by */
		assert_true(q1.rcpu != 0);

		/* its app moves: one run, one batch, all held and marked */
		rfs_xt_set_desired(hash, !target);
		rfs_xt_live_run(buf, lay.len, n2);
		q1 = rfs_xt_wait_dequeued(target, q0.dequeued, n1 + n2);
		tr1 = rfs_xt_track(target, RFS_XT_RX_CPU);
		print_message("  live -> CPU %u, held: mark last {%u, epoch %u} prev {%u, epoch %u}\n",
			      target,
			      rfs_mark_seq(tr1.last), rfs_mark_epoch(tr1.last),
			      rfs_mark_seq(tr1.prev), rfs_mark_epoch(tr1.prev));
		assert_int_equal(q1.dequeued - q0.dequeued, n1 + n2);
		assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, target), n2);
		assert_int_equal(rfs_xt_entry(hash, 0).last, n2);
		assert_int_equal(rfs_mark_seq(tr1.last), n2);
		assert_true(rfs_seq_after_eq(rfs_mark_epoch(tr1.last), q0.epoch));
		assert_true(rfs_seq_after_eq(q1.epoch, rfs_mark_epoch(tr1.last)));
		assert_true(rfs_seq_after_eq(q1.delivered, q0.delivered));
		if (tr1.prev)
			assert_true(rfs_mark_epoch(tr1.prev) <
				    rfs_mark_epoch(tr1.last));
		assert_true(q1.kthread != 0);
		/* nothing went to the other CPU */
		assert_int_equal(rfs_xt_queue(!target).dequeued,
				 other0.dequeued);

		/* more runs of another flow there, bare: the first batch of
		 * one proves what came before it delivered (the ring ran
		 * empty: GRO fully flushed); the held run's batch is proven
		 * within two */
		rfs_frame_build(&g, gbuf, &lay);
		for (i = 1; i <= 4; i++) {
			rfs_xt_live_run(gbuf, lay.len, n2);
			q2 = rfs_xt_wait_dequeued(target, q0.dequeued,
						  n1 + n2 + i * n2);
			tr2 = rfs_xt_track(target, RFS_XT_RX_CPU);
			print_message("  live -> CPU %u, run %u: delivered %u (the held run's epoch %u)\n",
				      target, i + 2, q2.delivered,
				      rfs_mark_epoch(tr1.last));
			assert_int_equal(q2.dequeued - q0.dequeued,
					 n1 + n2 + i * n2);
			assert_true(tr2.last == tr1.last);	/* bare */
			if (rfs_mark_delivers(tr1.last, n2, q2.delivered))
				break;
		}
		assert_true(i <= 2);
		assert_true(rfs_seq_after_eq(q2.delivered,
					     rfs_mark_epoch(tr1.last)));

		/* the held flow follows its app at once (its last frame
		 * proven, or the target's kthread asleep on an empty ring) */
		rfs_xt_expect_switch(&f, !target);
	}
}

/*
 * Printed, not asserted: the cost of a steered IPv4 TCP frame, plain test
 * run, 10^6 repeats, bare (its flow stays) and held (marked: its
 * application moved and nothing proves the old path).  The repeats share
 * one buffer, so the held frames run behind rfs_rearm (tests/prog/bpf/
 * rearm.bpf.c), which drops the metadata the previous repeat left;
 * without it the metadata piles up until the headroom is gone.
 * Asserted: every repeat steered, bare ones with no metadata and no
 * number taken, held ones each with its own.
 */
static void test_cost(void **state)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	struct rfs_if_stats before, d;
	struct rfs_test_rearm *rearm;
	struct rfs_frame_layout lay;
	__u8 buf[RFS_FR_MAX];
	struct rfs_frame f;
	__u32 zero = 0, repeat = 1000000, bare, floor;
	int next_fd, fd;

	rfs_frame_v4(&f, IPPROTO_TCP, "192.0.2.2", 51100, "192.0.2.1", 80);
	rfs_frame_build(&f, buf, &lay);
	rfs_xt_set_desired(rfs_xt_hash(&f), 1);
	o.data_in = buf;
	o.data_size_in = lay.len;
	o.repeat = repeat;

	rfs_xt_stats(&before);
	assert_int_equal(bpf_prog_test_run_opts(xt.ifc->prog_fd, &o), 0);
	d = rfs_xt_delta(&before);
	bare = o.duration;
	assert_int_equal(o.retval, XDP_REDIRECT);
	assert_int_equal(d.steered, repeat);
	assert_int_equal(d.held + d.no_meta, 0);
	assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, 1), 0);

	rfs_xt_set_desired(rfs_xt_hash(&f), 0);
	rearm = rfs_test_rearm__open_and_load();
	assert_non_null(rearm);
	next_fd = bpf_map__fd(rearm->maps.rfs_rearm_next);
	fd = bpf_program__fd(rearm->progs.rfs_rearm_nop);
	assert_int_equal(bpf_map_update_elem(next_fd, &zero, &fd, BPF_ANY), 0);
	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(rearm->progs.rfs_rearm),
						&o), 0);
	floor = o.duration;
	fd = xt.ifc->prog_fd;
	assert_int_equal(bpf_map_update_elem(next_fd, &zero, &fd, BPF_ANY), 0);
	rfs_xt_stats(&before);
	o.data_size_out = 0;	/* the last run's: a longer frame is ENOSPC */
	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(rearm->progs.rfs_rearm),
						&o), 0);
	d = rfs_xt_delta(&before);
	rfs_test_rearm__destroy(rearm);
	assert_int_equal(o.retval, XDP_REDIRECT);
	assert_int_equal(d.steered, repeat);
	assert_int_equal(d.held, repeat);
	assert_int_equal(d.no_meta, 0);
	assert_int_equal(rfs_xt_tx_seq(RFS_XT_RX_CPU, 1), repeat);
	print_message("cost: rfs_xdp %u ns/frame bare; held (marked) %u ns/frame behind rfs_rearm (rfs_rearm alone %u ns)\n",
		      bare, o.duration, floor);
}

/* ---- layout ------------------------------------------------------------ */

/* Run the layout probe with its maps taken from these fds:
 * rfs_cpu_queues, rfs_rx_track, rfs_globals, rfs_if_cfg. */
static void rfs_xt_layout_probe(const int fd[4], __u32 target,
				struct rfs_layout_out *out)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	struct rfs_layout_args args = {
		.target = target,
		.nr_rx_cpus = xt.dp->globals.nr_rx_cpus,
	};
	struct rfs_test_layout *skel;
	__u32 zero = 0;
	int e;

	skel = rfs_test_layout__open();
	assert_non_null(skel);
	e = bpf_map__reuse_fd(skel->maps.rfs_cpu_queues, fd[0]) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_rx_track, fd[1]) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_globals, fd[2]) ?:
	    bpf_map__reuse_fd(skel->maps.rfs_if_cfg, fd[3]) ?:
	    rfs_test_layout__load(skel);
	if (e) {
		rfs_test_layout__destroy(skel);
		fail_msg("layout probe: can't load: %s", strerror(-e));
	}
	o.ctx_in = &args;
	o.ctx_size_in = sizeof(args);
	e = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.rfs_layout), &o);
	if (e || o.retval) {
		rfs_test_layout__destroy(skel);
		fail_msg("layout probe: run: %s, retval %u", strerror(errno),
			 o.retval);
	}
	e = bpf_map_lookup_elem(bpf_map__fd(skel->maps.rfs_lay_out), &zero, out);
	rfs_test_layout__destroy(skel);
	assert_int_equal(e, 0);
	assert_int_equal(out->done, 1);
}

static __u32 rfs_xt_map_flags(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	assert_int_equal(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
	return info.map_flags;
}

/*
 * rfsd reads the programs' clock (rfs_read_jiffies(): a test run of
 * rfs_jiffies.bpf.c), not /proc/timer_list, which only root may read: in
 * a child that can't see the file, what it reads lies between the
 * kernel's jiffies in that file just before and just after.
 */
static void test_read_jiffies(void **state)
{
	__u64 *j = mmap(NULL, sizeof(*j), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	__u64 j0, j1;
	pid_t pid;
	int st;

	(void)state;
	if (libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_SYSCALL, NULL) <= 0)
		skip();
	assert_true(j != MAP_FAILED);
	*j = 0;
	j0 = rfs_tu_jiffies();
	pid = fork();
	if (!pid)
		_exit(unshare(CLONE_NEWNS) ||
		      mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		      mount("/dev/null", "/proc/timer_list", NULL, MS_BIND,
			    NULL) || !rfs_read_jiffies(j));
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	j1 = rfs_tu_jiffies();
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	if (*j < j0 || *j > j1 || !j0)
		fail_msg("jiffies from BPF %llu, /proc/timer_list %llu then %llu",
			 (unsigned long long)*j, (unsigned long long)j0,
			 (unsigned long long)j1);
	munmap(j, sizeof(*j));
}

/*
 * struct rfs_cpu_queue is 128 bytes so that each target's slot has its
 * cache lines to itself; rfs_rx_track's rows are one page each; what
 * every frame reads of rfs_globals is one line, of an interface's
 * rfs_if_cfg two.  That holds only if the values start where the padding
 * assumes: read the real offsets from the real maps (tests/prog/bpf/
 * layout.bpf.c), and, as the control, show that plain arrays of the same
 * value types would not give them.
 */
static void test_layout(void **state)
{
	__u32 target = xt.nsteer - 1;
	struct rfs_layout_out real, plain;
	int real_fd[4] = { xt.dp->cpu_queues_fd, xt.dp->rx_track_fd,
			   xt.dp->globals_fd, xt.ifc->cfg_fd };
	int plain_fd[4], i;

	(void)state;
	for (i = 0; i < 4; i++)
		assert_true(rfs_xt_map_flags(real_fd[i]) & BPF_F_MMAPABLE);
	rfs_xt_layout_probe(real_fd, target, &real);

	/* the control: plain arrays, same value types and sizes */
	plain_fd[0] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rfs_lay_plainq", 4,
				     sizeof(struct rfs_cpu_queue),
				     RFS_MAX_CPUS, NULL);
	plain_fd[1] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rfs_lay_plaint", 4,
				     sizeof(struct rfs_rx_track),
				     rfs_rx_track_entries(RFS_MAX_CPUS,
							  xt.dp->globals.nr_rx_cpus),
				     NULL);
	plain_fd[2] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rfs_lay_plaing", 4,
				     sizeof(struct rfs_globals), 1, NULL);
	plain_fd[3] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rfs_lay_plainc", 4,
				     sizeof(struct rfs_if_config),
				     RFS_IF_CFG_SLOTS, NULL);
	for (i = 0; i < 4; i++)
		assert_true(plain_fd[i] >= 0);
	rfs_xt_layout_probe(plain_fd, target, &plain);
	for (i = 0; i < 4; i++)
		close(plain_fd[i]);

	print_message("  rfs_cpu_queues: [0] mod 64 = %llu, [1] mod 64 = %llu, stride %llu (sizeof %zu); rfs_rx_track row %u: mod 64 = %llu, mod 4096 = %llu, stride %llu\n",
		      (unsigned long long)real.q_mod64[0],
		      (unsigned long long)real.q_mod64[1],
		      (unsigned long long)real.q_stride,
		      sizeof(struct rfs_cpu_queue), target,
		      (unsigned long long)real.t_mod64[0],
		      (unsigned long long)real.t_mod4096,
		      (unsigned long long)real.t_stride);
	print_message("  plain arrays (control): [0] mod 64 = %llu, [1] mod 64 = %llu, stride %llu; rfs_rx_track row %u: mod 64 = %llu\n",
		      (unsigned long long)plain.q_mod64[0],
		      (unsigned long long)plain.q_mod64[1],
		      (unsigned long long)plain.q_stride, target,
		      (unsigned long long)plain.t_mod64[0]);
	/* the probe's numbers agree with the addresses themselves */
	assert_int_equal(real.q_addr[0] % 64, real.q_mod64[0]);
	assert_int_equal(real.q_addr[1] - real.q_addr[0], real.q_stride);
	assert_int_equal(plain.q_addr[0] % 64, plain.q_mod64[0]);
	/* the control would fail the check below: the layout is the map's */
	assert_int_equal(plain.q_stride, sizeof(struct rfs_cpu_queue));
	assert_int_not_equal(plain.q_mod64[0], 0);

	/* rfs_rx_track: a target's row starts a cache line of its own */
	assert_int_equal(real.t_stride, sizeof(struct rfs_rx_track));
	assert_int_equal(real.t_mod64[0], 0);
	assert_int_equal(real.t_mod64[1], 0);

	/* rfs_globals: a frame's words on one line; rfs_if_cfg: both slots
	 * start a line, so a frame's two lines are the two it is padded
	 * for; the control puts all three off a line */
	print_message("  rfs_globals: mod 64 = %llu (plain %llu); rfs_if_cfg: [0] mod 64 = %llu, [1] mod 64 = %llu, stride %llu (plain %llu, %llu)\n",
		      (unsigned long long)real.g_mod64,
		      (unsigned long long)plain.g_mod64,
		      (unsigned long long)real.c_mod64[0],
		      (unsigned long long)real.c_mod64[1],
		      (unsigned long long)real.c_stride,
		      (unsigned long long)plain.c_mod64[0],
		      (unsigned long long)plain.c_mod64[1]);
	assert_int_equal(real.g_addr % 64, real.g_mod64);
	assert_int_equal(real.c_addr[1] - real.c_addr[0], real.c_stride);
	assert_int_not_equal(plain.g_mod64, 0);
	assert_true(plain.c_mod64[0] || plain.c_mod64[1]);
	assert_int_equal(real.g_mod64, 0);
	assert_int_equal(real.c_mod64[0], 0);
	assert_int_equal(real.c_mod64[1], 0);
	assert_int_equal(real.c_stride, sizeof(struct rfs_if_config));

	/* rfs_cpu_queues: every slot on its own two cache lines */
	assert_int_equal(real.q_stride, sizeof(struct rfs_cpu_queue));
	if (real.q_mod64[0] || real.q_mod64[1] || real.q_stride != 128)
		rfs_xt_known_bug("rfs_cpu_queues values at %llu and %llu mod 64, stride %llu: struct rfs_cpu_queue is %zu bytes, not the 128 (two cache lines) it is padded for, so targets share cache lines",
				 (unsigned long long)real.q_mod64[0],
				 (unsigned long long)real.q_mod64[1],
				 (unsigned long long)real.q_stride,
				 sizeof(struct rfs_cpu_queue));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, rfs_xt_setup, rfs_xt_teardown)
#define TL(fn) cmocka_unit_test_setup_teardown(fn, rfs_xt_setup_local, \
					       rfs_xt_teardown)
		T(test_steer_variants),
		T(test_vlan_same_hash),
		T(test_fragments),
		T(test_other_proto),
		T(test_not_ip),
		T(test_truncated),
		T(test_garbage),
		T(test_rx_queue),
		T(test_dev_header),
		T(test_allowed_set),
		T(test_config_slots),
		T(test_config_follows_slot),
		T(test_no_table_and_redirect_err),
		T(test_early_drop),
		T(test_early_drop_target),
		T(test_meta),
		T(test_cpumap_marks),
		T(test_meta_behind_theirs),
		T(test_epoch_zero),
		T(test_inorder_hold),
		T(test_inorder_bare),
		T(test_inorder_marks),
		T(test_inorder_steady),
		T(test_inorder_wrap),
		T(test_inorder_undelivered),
		T(test_remove_cpu),
		T(test_remove_cpu_dropped),
		T(test_remove_cpu_drained),
		T(test_remove_cpu_bare),
		T(test_resize_grow),
		T(test_resize_shrink),
		TL(test_local_path),
		TL(test_local_drain),
		TL(test_local_handover),
		TL(test_remove_cpu_local),
		TL(test_local_enter),
		TL(test_local_other_rx),
		TL(test_local_removed_cpu),
		T(test_live_frames),
		T(test_cost),
		cmocka_unit_test(test_read_jiffies),
		T(test_layout),
#undef TL
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
