// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the held-flow judge (daemon/lib/rfs_hold.c): why a flow keeps
 * a leaving CPU, as status, explain, /metrics and rfsd's warning say it.
 * rfs_hold_judge() must answer "drained" exactly where the removal's
 * drain test lets the flow go, and name the right reason otherwise; the
 * slot of a dev table index must be the one rfs_dev_index() gave; the
 * warning comes at the bound and then as the wait doubles.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rfs_dp.h"
#include "rfs_order.h"

#define SEQ	1000u

/* A remote flow, RX CPU 0 -> CPU 1, last frame SEQ, its CPU in the
 * cpumap; marks and kthread state set per case. */
static struct rfs_hold_in remote(__u64 last_mark, __u32 delivered)
{
	struct rfs_hold_in in = {
		.f = { .last = SEQ, .cpu = 1, .rx_cpu = 0,
		       .flags = RFS_DEV_FLOW_VALID },
		.in_cpumap = true,
		.delivered = delivered,
	};

	in.track.last = last_mark;
	return in;
}

/* a mark as a constant: epoch << 32 | seq (rfs_mark) */
#define MARK(seq, epoch)	(((__u64)(epoch) << 32) | (__u32)(seq))

static enum rfs_hold_why judge(const struct rfs_hold_in *in, const char *name,
			       enum rfs_hold_why want)
{
	enum rfs_hold_why got = rfs_hold_judge(in);

	if (got != want)
		fail_msg("%s: got %s, want %s", name, rfs_hold_why_name(got),
			 rfs_hold_why_name(want));
	return got;
}

static void rfs_test_hold_remote(void **state)
{
	static const struct {
		const char *name;
		__u64 last;		/* the target's newest mark */
		__u32 delivered;
		bool idle, quiet, have_tx;
		__u32 dropped_upto;
		enum rfs_hold_why want;
	} cases[] = {
		{ "no mark yet, kthread running",
		  0, 0, false, false, true, 0, RFS_HOLD_QUEUED },
		{ "an earlier frame dequeued: ring busy",
		  MARK(SEQ - 5, 7), 7, false, false, true, 0, RFS_HOLD_QUEUED },
		{ "not dequeued, kthread asleep a moment: bulk queue or lost",
		  MARK(SEQ - 5, 7), 7, true, false, true, 0, RFS_HOLD_QUEUED },
		{ "not dequeued, quiet, a full-ring flush after it: lost",
		  MARK(SEQ - 5, 7), 7, true, true, true, SEQ, RFS_HOLD_NONE },
		{ "not dequeued, quiet, the flush before it",
		  MARK(SEQ - 5, 7), 7, true, true, true, SEQ - 1, RFS_HOLD_QUEUED },
		{ "not dequeued, quiet, drops unreadable",
		  MARK(SEQ - 5, 7), 7, true, true, false, SEQ, RFS_HOLD_QUEUED },
		{ "dequeued in epoch 8, 7 delivered, running: no proof",
		  MARK(SEQ, 8), 7, false, false, true, 0, RFS_HOLD_NO_PROOF },
		{ "a later frame dequeued, epoch not delivered: no proof",
		  MARK(SEQ + 3, 8), 7, false, false, true, 0, RFS_HOLD_NO_PROOF },
		{ "dequeued, epoch delivered",
		  MARK(SEQ, 8), 8, false, false, true, 0, RFS_HOLD_NONE },
		{ "dequeued, kthread asleep: proven",
		  MARK(SEQ, 8), 7, true, false, true, 0, RFS_HOLD_NONE },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rfs_hold_in in = remote(cases[i].last, cases[i].delivered);
		enum rfs_hold_why got;

		in.idle = cases[i].idle;
		in.quiet = cases[i].quiet;
		in.have_tx = cases[i].have_tx;
		in.dropped_upto = cases[i].dropped_upto;
		got = judge(&in, cases[i].name, cases[i].want);
		/* the judge and the datapath's drain test agree */
		if (in.in_cpumap && !(in.quiet && in.have_tx &&
				      rfs_seq_after_eq(in.dropped_upto, SEQ)))
			assert_int_equal(got == RFS_HOLD_NONE,
					 rfs_remote_drained(&in.track, SEQ,
							    in.delivered,
							    in.idle));
	}
}

/*
 * A bare last frame (rfs_order.h, LAZY MARKS): SEQ is the number the next
 * marked frame takes, and only a mark at or after it covers it.  Its
 * target asleep proves it only once settled: sent before an RCU wait
 * that ended its NAPI poll (a replaced table, a CPU out of the allowed
 * set); before that it may still be in its RX CPU's bulk queue.
 */
static void rfs_test_hold_bare(void **state)
{
	static const struct {
		const char *name;
		__u64 last;
		bool idle, settled;
		enum rfs_hold_why want;
	} cases[] = {
		{ "no mark after it, running", MARK(SEQ - 1, 7), false, true,
		  RFS_HOLD_QUEUED },
		{ "no mark after it, asleep, not settled", MARK(SEQ - 1, 7),
		  true, false, RFS_HOLD_QUEUED },
		{ "no mark after it, asleep, settled", MARK(SEQ - 1, 7),
		  true, true, RFS_HOLD_NONE },
		{ "settled, running: not yet", 0, false, true,
		  RFS_HOLD_QUEUED },
		{ "a later marked frame delivered", MARK(SEQ, 7), false, false,
		  RFS_HOLD_NONE },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rfs_hold_in in = remote(cases[i].last, 7);

		in.f.flags |= RFS_DEV_FLOW_BARE;
		in.idle = cases[i].idle;
		in.settled = cases[i].settled;
		judge(&in, cases[i].name, cases[i].want);
	}
}

/* Sequence numbers wrap: a mark just past 2^32 covers a frame before. */
static void rfs_test_hold_wraps(void **state)
{
	struct rfs_hold_in in = remote(rfs_mark(3, 2), 1);

	in.f.last = 0xfffffffeu;
	assert_int_equal(rfs_hold_judge(&in), RFS_HOLD_NO_PROOF);
	in.delivered = 2;
	assert_int_equal(rfs_hold_judge(&in), RFS_HOLD_NONE);
	in.f.last = 4;
	assert_int_equal(rfs_hold_judge(&in), RFS_HOLD_QUEUED);
}

/* Nothing to wait for: no entry, or a CPU out of the cpumap. */
static void rfs_test_hold_nothing(void **state)
{
	struct rfs_hold_in in = remote(0, 0);

	in.in_cpumap = false;
	assert_int_equal(rfs_hold_judge(&in), RFS_HOLD_NONE);
	in = remote(0, 0);
	in.f.flags = 0;
	assert_int_equal(rfs_hold_judge(&in), RFS_HOLD_NONE);
}

/* The local path: by age, unknown jiffies never holding. */
static void rfs_test_hold_local(void **state)
{
	struct rfs_hold_in in = {
		.f = { .last = 500, .cpu = 2, .rx_cpu = 2,
		       .flags = RFS_DEV_FLOW_VALID | RFS_DEV_FLOW_LOCAL },
		.drain_jiffies = 3,
	};

	assert_int_equal(rfs_hold_judge(&in), RFS_HOLD_NONE);
	in.have_jiffies = true;
	in.jiffies = 502;
	assert_int_equal(rfs_hold_judge(&in), RFS_HOLD_LOCAL);
	in.jiffies = 503;
	assert_int_equal(rfs_hold_judge(&in), RFS_HOLD_NONE);
	/* the CPU's cpumap entry does not matter on the local path */
	in.jiffies = 501;
	in.in_cpumap = false;
	assert_int_equal(rfs_hold_judge(&in), RFS_HOLD_LOCAL);
}

/* rfs_dev_locate() undoes rfs_dev_index(). */
static void rfs_test_hold_locate(void **state)
{
	static const __u32 hashes[] = { 0, 0xff, 0x100, 0x3f00, 0xdeadbeef,
					0xffffffff };
	struct rfs_dev_flow hdr = rfs_dev_table_header(64, 3);
	__u32 slot, rxq, i, q;

	for (i = 0; i < sizeof(hashes) / sizeof(hashes[0]); i++)
		for (q = 0; q < 3; q++) {
			__u32 idx = rfs_dev_index(&hdr, hashes[i], q);

			assert_true(rfs_dev_locate(&hdr, idx, &slot, &rxq));
			assert_int_equal(slot, (hashes[i] >> 8) & 63);
			assert_int_equal(rxq, q);
		}
	assert_false(rfs_dev_locate(&hdr, 0, &slot, &rxq));
	assert_false(rfs_dev_locate(&hdr, rfs_dev_table_entries(64, 3),
				     &slot, &rxq));
	hdr.flags = 0;
	assert_false(rfs_dev_locate(&hdr, 1, &slot, &rxq));
}

/* The first RFS_HOLD_SHOW flows are kept, all are counted. */
static void rfs_test_hold_add(void **state)
{
	struct rfs_hold_cpu c = { .cpu = 1 };
	struct rfs_held_flow h = { .why = RFS_HOLD_QUEUED };
	__u32 i;

	for (i = 0; i < RFS_HOLD_SHOW + 2; i++) {
		h.index = i + 1;
		rfs_hold_add(&c, &h);
	}
	assert_int_equal(c.flows, RFS_HOLD_SHOW + 2);
	assert_int_equal(c.shown, RFS_HOLD_SHOW);
	for (i = 0; i < RFS_HOLD_SHOW; i++)
		assert_int_equal(c.first[i].index, i + 1);
}

/* A held flow in words: where it is, where it goes, why. */
static void rfs_test_hold_words(void **state)
{
	struct rfs_held_flow h = {
		.index = 26, .slot = 12, .rxq = 1, .flow_mask = 63,
		.f = { .last = 77, .cpu = 1, .rx_cpu = 0,
		       .flags = RFS_DEV_FLOW_VALID },
		.why = RFS_HOLD_QUEUED,
	};
	char buf[512], small[24];

	rfs_hold_flow_words(&h, buf, sizeof(buf));
	assert_non_null(strstr(buf, "dev slot 26 (rx queue 1, hash & 0x00003f00 = 0x00000c00), "));
	assert_non_null(strstr(buf, "RX CPU 0 -> CPU 1, seq 77: "));
	assert_non_null(strstr(buf, "not dequeued yet (ring busy"));
	h.why = RFS_HOLD_NO_PROOF;
	h.prev_table = true;
	rfs_hold_flow_words(&h, buf, sizeof(buf));
	assert_non_null(strstr(buf, "of the table before the last resize"));
	assert_non_null(strstr(buf, "not yet proven delivered (no proof yet"));
	h.f.flags |= RFS_DEV_FLOW_LOCAL;
	h.why = RFS_HOLD_LOCAL;
	rfs_hold_flow_words(&h, buf, sizeof(buf));
	assert_non_null(strstr(buf, "local path on CPU 1, jiffy 77: "));
	/* cut short, still a string */
	rfs_hold_flow_words(&h, small, sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_string_equal(rfs_hold_why_name(RFS_HOLD_QUEUED), "queued");
	assert_string_equal(rfs_hold_why_name(RFS_HOLD_NO_PROOF), "no_proof");
	assert_string_equal(rfs_hold_why_name(RFS_HOLD_LOCAL), "local");
}

/* At the bound, then each time the wait doubles; 0 never. */
static void rfs_test_hold_warn_due(void **state)
{
	__u64 next = 0;

	assert_false(rfs_hold_warn_due(9999, 10000, &next));
	assert_true(rfs_hold_warn_due(10000, 10000, &next));
	assert_int_equal(next, 20000);
	assert_false(rfs_hold_warn_due(15000, 10000, &next));
	assert_true(rfs_hold_warn_due(20500, 10000, &next));
	assert_int_equal(next, 40000);
	/* a late look warns once, not once per doubling missed */
	assert_true(rfs_hold_warn_due(100000, 10000, &next));
	assert_int_equal(next, 160000);
	assert_false(rfs_hold_warn_due(150000, 10000, &next));
	next = 0;
	assert_false(rfs_hold_warn_due(UINT64_MAX / 4, 0, &next));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_hold_remote),
		cmocka_unit_test(rfs_test_hold_bare),
		cmocka_unit_test(rfs_test_hold_wraps),
		cmocka_unit_test(rfs_test_hold_nothing),
		cmocka_unit_test(rfs_test_hold_local),
		cmocka_unit_test(rfs_test_hold_locate),
		cmocka_unit_test(rfs_test_hold_add),
		cmocka_unit_test(rfs_test_hold_words),
		cmocka_unit_test(rfs_test_hold_warn_due),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
