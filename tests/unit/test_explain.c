// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of rfsctl explain's pure half (daemon/lib/rfs_explain.c): on state
 * built here as the maps would hold it, the outcome it reports is the one
 * rfs_pick_cpu() and the drain tests of include/ give, taken in the order
 * bpf/rfs_xdp.bpf.c takes them, and the words say which test decided and
 * on what.  Each row of the XDP program's logic has a test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../daemon/lib/rfs_explain.c"

#define SEED		0x5eed1234u
#define CPU_MASK	0x7u		/* 4..7 CPUs */

static struct rfs_explain_in in;
static struct rfs_explain_queue q;
static struct rfs_explain_case c;
static char words[1024];

/* CPUs 0-3 allowed, usable and in the cpumap; local path on. */
static int setup(void **state)
{
	unsigned int cpu;

	memset(&in, 0, sizeof(in));
	memset(&q, 0, sizeof(q));
	in.steerable = true;
	in.key.local[0] = 0x0100000a;	/* 10.0.0.1 */
	in.key.peer[0] = 0x0200000a;
	in.key.local_port = 80;
	in.key.peer_port = 40000;
	in.key.proto = 6;
	in.g.hash_seed = SEED;
	in.g.sock_flow_mask = 32767;
	in.g.cpu_mask = CPU_MASK;
	for (cpu = 0; cpu < 4; cpu++) {
		in.cfg.allowed[0] |= 1ull << cpu;
		in.cfg.usable[0] |= 1ull << cpu;
		in.in_cpumap[0] |= 1ull << cpu;
		in.cfg.allowed_list[in.cfg.n_allowed++] = cpu;
	}
	in.cfg.local_path = 1;
	in.cfg.local_drain_jiffies = 2;
	q.have_table = true;
	q.kthread_asleep_now = -1;
	return 0;
}

static __u32 hash(void)
{
	return rfs_flow_hash(&in.key, SEED);
}

static void want_desired(__u32 cpu)
{
	in.have_sock = true;
	in.sock_entry = rfs_sock_entry_make(hash(), cpu, CPU_MASK);
}

static void remote(__u32 cpu, __u32 rx_cpu, __u32 seq)
{
	rfs_record_remote(&q.entry, cpu, rx_cpu, seq);
	rfs_explain_pick_entry(&q);
	q.have_track = q.have_cpu_queue = true;
}

static void run(__u32 rx_cpu)
{
	rfs_explain_case(&in, &q, rx_cpu, &c);
	rfs_explain_words(&in, &q, &c, words, sizeof(words));
}

static void has(const char *s)
{
	if (!strstr(words, s))
		fail_msg("'%s' not in: %s", s, words);
}

static void test_hash_and_sock_slot(void **state)
{
	__u32 h = hash();

	assert_int_equal(rfs_explain_hash(&in), h);
	assert_int_equal(rfs_sock_index(h, in.g.sock_flow_mask), h & 32767);
	assert_int_equal(rfs_explain_desired(&in, h), RFS_NO_CPU);
	want_desired(2);
	assert_int_equal(rfs_explain_desired(&in, h), 2);
	/* another flow's entry in the slot: the tag differs */
	in.sock_entry = rfs_sock_entry_make(h ^ 0x80000000u, 2, CPU_MASK);
	assert_int_equal(rfs_explain_desired(&in, h), RFS_NO_CPU);
}

static void test_new_remote_and_local(void **state)
{
	want_desired(2);
	run(1);
	assert_int_equal(c.first.verdict, RFS_V_NEW);
	assert_int_equal(c.result.cpu, 2);
	assert_int_equal(c.action, RFS_XA_REDIRECT);
	has("new: redirected to CPU 2 through the cpumap");
	has("its application reads on CPU 2");
	run(2);
	assert_int_equal(c.action, RFS_XA_LOCAL);
	has("passed up on CPU 2 (local path");
}

static void test_spread_without_socket(void **state)
{
	run(0);
	assert_int_equal(c.first.verdict, RFS_V_NEW);
	assert_true(c.first.spread);
	assert_int_equal(c.result.cpu, rfs_spread_cpu(&in.cfg, hash()));
	has("spread by hash");
}

static void test_keep(void **state)
{
	want_desired(2);
	remote(2, 0, 10);
	run(0);
	assert_int_equal(c.first.verdict, RFS_V_KEEP);
	assert_int_equal(c.drain, RFS_XD_NOT_ASKED);
	has("keep: redirected to CPU 2");
}

/* wants CPU 3, last frame seq 10 from RX CPU 0 to CPU 2 */
static void held_setup(void)
{
	want_desired(3);
	remote(2, 0, 10);
	q.q.delivered = 5;
}

static void test_held_not_dequeued(void **state)
{
	held_setup();
	q.track.last = rfs_mark(8, 5);
	run(0);
	assert_int_equal(c.first.verdict, RFS_V_HELD);
	assert_int_equal(c.drain, RFS_XD_REMOTE);
	assert_int_equal(c.drained, 0);
	assert_int_equal(c.result.cpu, 2);
	assert_int_equal(c.then.cpu, 3);
	has("held: redirected to CPU 2");
	has("not dequeued yet");
	has("last 8@5");
}

static void test_held_proven_switches(void **state)
{
	held_setup();
	q.track.last = rfs_mark(12, 6);
	q.track.done = rfs_mark(10, 5);
	run(0);
	assert_int_equal(c.drained, 1);
	assert_true(c.proven);
	assert_int_equal(c.result.verdict, RFS_V_SWITCH);
	assert_int_equal(c.result.cpu, 3);
	has("switch: redirected to CPU 3");
	has("leaving CPU 2");
	has("delivered epoch 5");
}

static void test_held_unless_asleep(void **state)
{
	held_setup();
	q.track.last = rfs_mark(10, 6);	/* dequeued, epoch 6 not proven */
	q.kthread_asleep_now = 1;
	run(0);
	assert_false(c.proven);
	assert_true(c.if_asleep);
	assert_int_equal(c.drained, -1);
	assert_int_equal(c.result.verdict, RFS_V_HELD);
	assert_int_equal(c.action_drained, RFS_XA_REDIRECT);
	has("only known in the kernel at the frame");
	has("right now /proc shows it asleep");
	has("If it is drained by then it switches: redirected to CPU 3");
}

static void test_held_no_state(void **state)
{
	held_setup();
	q.have_track = false;
	run(0);
	assert_int_equal(c.drain, RFS_XD_NO_STATE);
	assert_int_equal(c.result.verdict, RFS_V_HELD);
	has("no ordering state");
}

static void test_local_drain_by_age(void **state)
{
	want_desired(3);
	rfs_record_local(&q.entry, 1, 1000);
	rfs_explain_pick_entry(&q);
	in.have_jiffies = true;
	in.jiffies = 1001;
	run(1);
	assert_int_equal(c.drain, RFS_XD_LOCAL);
	assert_int_equal(c.age, 1);
	assert_int_equal(c.drained, 0);
	has("held:");
	has("1 jiffies ago; it may leave after 2");
	in.jiffies = 1002;
	run(1);
	assert_int_equal(c.drained, 1);
	assert_int_equal(c.result.verdict, RFS_V_SWITCH);
	assert_int_equal(c.result.cpu, 3);
	in.have_jiffies = false;
	run(1);
	assert_int_equal(c.drained, -1);
	has("jiffies can't be read here");
}

static void test_forced(void **state)
{
	want_desired(2);
	remote(3, 0, 10);
	in.cfg.usable[0] &= ~(1ull << 3);
	in.cfg.allowed[0] &= ~(1ull << 3);
	run(0);
	assert_int_equal(c.first.verdict, RFS_V_FORCED);
	assert_int_equal(c.result.cpu, 2);
	has("forced:");
	has("CPU 3 is gone from the cpumap");
}

static void test_passed(void **state)
{
	in.steerable = false;
	run(0);
	assert_int_equal(c.action, RFS_XA_PASS_PROTO);
	has("pass_other_proto");
	in.steerable = true;
	q.have_table = false;
	run(0);
	assert_int_equal(c.action, RFS_XA_PASS_NO_TABLE);
	has("no usable dev flow table");
	q.have_table = true;
	in.cfg.n_allowed = 0;
	memset(in.cfg.allowed, 0, sizeof(in.cfg.allowed));
	run(0);
	assert_int_equal(c.result.verdict, RFS_V_NONE);
	has("no CPU is allowed");
}

static void test_redirect_err(void **state)
{
	want_desired(2);
	in.in_cpumap[0] &= ~(1ull << 2);
	run(0);
	assert_int_equal(c.action, RFS_XA_REDIRECT_ERR);
	has("redirect_err");
}

static void test_state_from_previous_table(void **state)
{
	want_desired(2);
	q.have_prev = true;
	rfs_record_remote(&q.prev_entry, 2, 0, 7);
	rfs_explain_pick_entry(&q);
	assert_true(q.cur_from_prev);
	run(0);
	assert_int_equal(c.first.verdict, RFS_V_KEEP);
	has("before the last resize");
	/* an entry in the current table wins */
	rfs_record_remote(&q.entry, 1, 0, 9);
	rfs_explain_pick_entry(&q);
	assert_false(q.cur_from_prev);
	assert_int_equal(q.cur.cpu, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_hash_and_sock_slot, setup),
		cmocka_unit_test_setup(test_new_remote_and_local, setup),
		cmocka_unit_test_setup(test_spread_without_socket, setup),
		cmocka_unit_test_setup(test_keep, setup),
		cmocka_unit_test_setup(test_held_not_dequeued, setup),
		cmocka_unit_test_setup(test_held_proven_switches, setup),
		cmocka_unit_test_setup(test_held_unless_asleep, setup),
		cmocka_unit_test_setup(test_held_no_state, setup),
		cmocka_unit_test_setup(test_local_drain_by_age, setup),
		cmocka_unit_test_setup(test_forced, setup),
		cmocka_unit_test_setup(test_passed, setup),
		cmocka_unit_test_setup(test_redirect_err, setup),
		cmocka_unit_test_setup(test_state_from_previous_table, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
