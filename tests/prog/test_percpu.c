// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU map reads and the possible CPUs.  The kernel copies one value
 * per *possible* CPU (libbpf_num_possible_cpus()) into the buffer of a
 * lookup on a per-CPU map, while rfsd steers to at most RFS_MAX_CPUS
 * (dp->nr_cpus, the steering cap).  On a host with more possible CPUs
 * than the cap, a buffer sized by the cap is overrun by the kernel,
 * which no userspace sanitizer sees (the write is copy_to_user).
 *
 * So every lookup on a per-CPU map made by the library is checked here,
 * at the call: the binary is linked with --wrap=bpf_map_lookup_elem,
 * and the wrapper compares the caller's heap buffer
 * (malloc_usable_size) with what the kernel will write.  It reads into
 * a buffer of its own and copies back only what fits, so a short buffer
 * fails the test instead of corrupting the heap.  The cap is lowered
 * below the possible CPUs of this host (dp->nr_cpus = 1 on 2 or more),
 * which is the >256-CPU host's shape: each reader must size by the
 * possible CPUs, not by the cap, to pass.
 */
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "rfs_dp.h"
#include "rfs_test_util.h"

static struct {
	char pin_dir[128];
	struct rfs_dp *dp;
	struct rfs_if *ifc;
	int possible;
	int cap;		/* dp->nr_cpus as opened */
	unsigned int percpu_lookups;
	unsigned int short_bufs;
	char what[160];		/* the last short one */
} pc;

int __real_bpf_map_lookup_elem(int fd, const void *key, void *value);

static bool rfs_pc_is_percpu(__u32 type)
{
	return type == BPF_MAP_TYPE_PERCPU_ARRAY ||
	       type == BPF_MAP_TYPE_PERCPU_HASH ||
	       type == BPF_MAP_TYPE_LRU_PERCPU_HASH ||
	       type == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE;
}

int __wrap_bpf_map_lookup_elem(int fd, const void *key, void *value)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	size_t need, have;
	void *buf;
	int r, e;

	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    !rfs_pc_is_percpu(info.type))
		return __real_bpf_map_lookup_elem(fd, key, value);
	pc.percpu_lookups++;
	need = (size_t)pc.possible * rfs_percpu_stride(info.value_size);
	/* every per-CPU read of the library goes into a heap buffer */
	have = malloc_usable_size(value);
	if (have >= need)
		return __real_bpf_map_lookup_elem(fd, key, value);
	pc.short_bufs++;
	snprintf(pc.what, sizeof(pc.what),
		 "lookup in per-CPU map '%s' into %zu bytes, the kernel writes %zu (%d possible CPUs)",
		 info.name, have, need, pc.possible);
	buf = calloc(1, need);
	if (!buf) {
		errno = ENOMEM;
		return -1;
	}
	r = __real_bpf_map_lookup_elem(fd, key, buf);
	e = errno;
	memcpy(value, buf, have);
	free(buf);
	errno = e;
	return r;
}

static void rfs_pc_cleanup(void)
{
	char err[RFS_ERR_LEN];

	if (pc.dp) {
		pc.dp->nr_cpus = pc.cap;
		if (pc.ifc)
			rfs_if_detach(pc.dp, pc.ifc, err);
		pc.ifc = NULL;
		rfs_dp_close(pc.dp, true);
		pc.dp = NULL;
	}
	if (pc.pin_dir[0])
		rmdir(pc.pin_dir);
}

static void rfs_pc_on_signal(int sig)
{
	rfs_pc_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static int rfs_pc_group_setup(void **state)
{
	struct rfs_if_opts o = {
		.no_attach = true,
		.rx_queues = 1,
		.flow_cnt = RFS_FLOW_CNT_MIN,
	};
	char err[RFS_ERR_LEN] = "";

	pc.possible = libbpf_num_possible_cpus();
	snprintf(pc.pin_dir, sizeof(pc.pin_dir),
		 "/sys/fs/bpf/rfs-test-percpu-%d", (int)getpid());
	atexit(rfs_pc_cleanup);
	signal(SIGINT, rfs_pc_on_signal);
	signal(SIGTERM, rfs_pc_on_signal);
	if (rfs_tu_dp_open(&pc.dp, pc.pin_dir, RFS_TRACE_AUTO, 0, err)) {
		fprintf(stderr, "test_percpu: can't open the datapath: %s\n",
			err);
		return -1;
	}
	pc.cap = pc.dp->nr_cpus;
	if (rfs_if_attach(pc.dp, "pc0", &o, &pc.ifc, err)) {
		fprintf(stderr, "test_percpu: %s\n", err);
		return -1;
	}
	return 0;
}

static int rfs_pc_group_teardown(void **state)
{
	rfs_pc_cleanup();
	return 0;
}

/* Each test: the cap below the possible CPUs, the counts zeroed. */
static int rfs_pc_setup(void **state)
{
	if (pc.possible < 2) {
		fprintf(stderr, "test_percpu: needs 2 possible CPUs to put the cap below them (have %d)\n",
			pc.possible);
		return -1;
	}
	pc.dp->nr_cpus = 1;
	pc.percpu_lookups = pc.short_bufs = 0;
	pc.what[0] = '\0';
	return 0;
}

static int rfs_pc_teardown(void **state)
{
	pc.dp->nr_cpus = pc.cap;
	return 0;
}

static void rfs_pc_expect_whole(void)
{
	assert_true(pc.percpu_lookups > 0);
	if (pc.short_bufs)
		fail_msg("%u short per-CPU buffer(s): %s", pc.short_bufs,
			 pc.what);
}

/* rfsctl stats' backlog: rfs_tx_seq against the marks. */
static void rfs_test_backlog_reads_all_cpus(void **state)
{
	__u64 backlog[RFS_MAX_CPUS];

	assert_int_equal(rfs_dp_read_backlog(pc.dp, backlog), 0);
	rfs_pc_expect_whole();
}

/* The removal's drain test (rfs_if_set.c's refresh asks it). */
static void rfs_test_busy_reads_all_cpus(void **state)
{
	assert_true(rfs_devtab_busy(pc.dp, pc.ifc->dev_flows_fd, 1) >= 0);
	rfs_pc_expect_whole();
}

/* status' leaving CPUs: the removal's test, every held flow kept. */
static void rfs_test_holds_reads_all_cpus(void **state)
{
	struct rfs_cpuset allowed = pc.ifc->allowed, usable = pc.ifc->usable;
	struct rfs_hold_cpu *cs = NULL;
	char err[RFS_ERR_LEN] = "";
	size_t n = 0;
	int e;

	/* CPU 0 leaving: taken out of allowed, still usable */
	rfs_cpuset_zero(&pc.ifc->allowed);
	rfs_cpuset_zero(&pc.ifc->usable);
	rfs_cpuset_add(&pc.ifc->usable, 0);
	e = rfs_if_holds(pc.dp, pc.ifc, &cs, &n, err);
	pc.ifc->allowed = allowed;
	pc.ifc->usable = usable;
	assert_int_equal(e, 0);
	assert_int_equal(n, 1);
	assert_int_equal(cs[0].cpu, 0);
	free(cs);
	rfs_pc_expect_whole();
}

/* rfsctl explain: the flow's sequence counters. */
static void rfs_test_explain_reads_all_cpus(void **state)
{
	struct rfs_explain_in in = { .steerable = true };
	struct rfs_explain_queue *qs = NULL;
	char err[RFS_ERR_LEN] = "";
	size_t n = 0;

	inet_pton(AF_INET, "198.18.0.1", in.key.peer);
	inet_pton(AF_INET, "198.18.0.2", in.key.local);
	in.key.peer_port = 40000;
	in.key.local_port = 5201;
	in.key.proto = IPPROTO_TCP;
	assert_int_equal(rfs_if_explain(pc.dp, pc.ifc, &in, &qs, &n, err), 0);
	free(qs);
	rfs_pc_expect_whole();
}

/* stats: the datapath's and the interface's counters. */
static void rfs_test_stats_read_all_cpus(void **state)
{
	struct rfs_global_stats g[RFS_MAX_CPUS];
	struct rfs_if_stats s[RFS_MAX_CPUS];

	assert_int_equal(rfs_dp_read_gstats(pc.dp, g), 0);
	assert_int_equal(rfs_if_read_stats(pc.ifc, s), 0);
	rfs_pc_expect_whole();
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, rfs_pc_setup, rfs_pc_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(rfs_test_backlog_reads_all_cpus),
		T(rfs_test_busy_reads_all_cpus),
		T(rfs_test_holds_reads_all_cpus),
		T(rfs_test_explain_reads_all_cpus),
		T(rfs_test_stats_read_all_cpus),
	};

	rfs_log_init("test_percpu", getenv("V") != NULL);
	rfs_log_hook_libs();
	if (geteuid()) {
		fprintf(stderr, "test_percpu: needs root (BPF maps)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, rfs_pc_group_setup,
				      rfs_pc_group_teardown);
}
