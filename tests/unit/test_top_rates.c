// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of daemon/rfsctl/top_rates.c, rfsctl top's arithmetic: deltas of
 * counters between two stats replies, a counter that wrapped at 2^64 told
 * from one that started again (rfsd restarted with new maps), rows that
 * appear or vanish between samples, and no division by zero when nothing
 * moved or no time passed; the cpumap kthread's wait per run, none when
 * rfsd did not give its counters or the kthread was remade, and its cell.
 *
 * top_rates.c is compiled into this test (it is rfsctl's, not the
 * library's); the Makefile rebuilds the test when it changes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "../../daemon/rfsctl/top_rates.c"

static struct rfs_top_row rfs_test_row(enum rfs_top_kind kind,
				       const char *name)
{
	struct rfs_top_row r = { .kind = kind, .backlog = RFS_TOP_NO_BACKLOG };

	strncpy(r.name, name, sizeof(r.name) - 1);
	return r;
}

static void rfs_test_delta_grows(void **state)
{
	bool reset = false;

	assert_int_equal(rfs_top_delta(100, 250, &reset), 150);
	assert_int_equal(rfs_top_delta(7, 7, &reset), 0);
	assert_false(reset);
}

static void rfs_test_delta_wraps(void **state)
{
	bool reset = false;

	/* 10 before the wrap, 5 after: it grew by 15 */
	assert_int_equal(rfs_top_delta(UINT64_MAX - 9, 5, &reset), 15);
	assert_false(reset);
}

static void rfs_test_delta_reset(void **state)
{
	bool reset = false;

	/* rfsd restarted: the counter is back near zero, and what it holds
	 * was counted since */
	assert_int_equal(rfs_top_delta(1000000, 40, &reset), 40);
	assert_true(reset);
	reset = false;
	assert_int_equal(rfs_top_delta(5, 0, &reset), 0);
	assert_true(reset);
}

static void rfs_test_rates(void **state)
{
	struct rfs_top_row a = rfs_test_row(RFS_TOP_CPU, "1"), b = a;

	a.ctr[RFS_TOP_STEERED] = 1000;
	a.ctr[RFS_TOP_TO_DESIRED] = 900;
	a.ctr[RFS_TOP_HELD] = 100;
	a.ctr[RFS_TOP_RECV_LOCAL] = 10;
	a.ctr[RFS_TOP_RECV_REMOTE] = 10;
	b.ctr[RFS_TOP_STEERED] = 3000;		/* +2000 */
	b.ctr[RFS_TOP_TO_DESIRED] = 2400;	/* +1500: 75 % */
	b.ctr[RFS_TOP_HELD] = 600;		/* +500 */
	b.ctr[RFS_TOP_RECV_LOCAL] = 40;		/* +30 */
	b.ctr[RFS_TOP_RECV_REMOTE] = 20;	/* +10: 75 % local */
	rfs_top_rate_row(&a, &b, 2.0);
	assert_true(b.valid);
	assert_false(b.reset);
	assert_true(b.per_s[RFS_TOP_STEERED] == 1000.0);
	assert_true(b.per_s[RFS_TOP_HELD] == 250.0);
	assert_true(b.per_s[RFS_TOP_SWITCHES] == 0.0);
	assert_true(b.to_desired_pct == 75.0);
	assert_true(b.locality_pct == 75.0);
}

static void rfs_test_rates_reset(void **state)
{
	struct rfs_top_row a = rfs_test_row(RFS_TOP_TOTAL, "all"), b = a;

	a.ctr[RFS_TOP_STEERED] = 5000000;
	a.ctr[RFS_TOP_TO_DESIRED] = 5000000;
	b.ctr[RFS_TOP_STEERED] = 300;
	b.ctr[RFS_TOP_TO_DESIRED] = 150;
	rfs_top_rate_row(&a, &b, 1.0);
	assert_true(b.valid);
	assert_true(b.reset);
	/* not 2^64 - 4999700 frames/s */
	assert_true(b.per_s[RFS_TOP_STEERED] == 300.0);
	assert_true(b.to_desired_pct == 50.0);
}

/* Nothing moved: rates 0, percentages undefined (NaN), never a division
 * by zero; no time passed: no rate at all. */
static void rfs_test_rates_idle(void **state)
{
	struct rfs_top_row a = rfs_test_row(RFS_TOP_IFACE, "eth0"), b = a;

	a.ctr[RFS_TOP_STEERED] = b.ctr[RFS_TOP_STEERED] = 77;
	rfs_top_rate_row(&a, &b, 1.0);
	assert_true(b.valid);
	assert_true(b.per_s[RFS_TOP_STEERED] == 0.0);
	assert_true(isnan(b.to_desired_pct));
	assert_true(isnan(b.locality_pct));

	b.ctr[RFS_TOP_STEERED] = 99;
	rfs_top_rate_row(&a, &b, 0.0);
	assert_false(b.valid);
	assert_true(b.per_s[RFS_TOP_STEERED] == 0.0);
	assert_true(isnan(b.to_desired_pct));
	rfs_top_rate_row(&a, &b, NAN);
	assert_false(b.valid);
	rfs_top_rate_row(&a, &b, -1.0);
	assert_false(b.valid);
}

/* Rows are matched by kind and name, not position: a CPU that came
 * online or an interface attached since has no rate yet. */
static void rfs_test_rates_snapshots(void **state)
{
	struct rfs_top_row pr[2], cr[3];
	struct rfs_top_snap prev = { .t = 10.0, .n = 2, .rows = pr };
	struct rfs_top_snap cur = { .t = 10.5, .n = 3, .rows = cr };

	pr[0] = rfs_test_row(RFS_TOP_IFACE, "eth1");
	pr[1] = rfs_test_row(RFS_TOP_CPU, "0");
	pr[0].ctr[RFS_TOP_SEEN] = 100;
	pr[1].ctr[RFS_TOP_SEEN] = 1000;
	cr[0] = rfs_test_row(RFS_TOP_CPU, "0");
	cr[1] = rfs_test_row(RFS_TOP_CPU, "1");
	cr[2] = rfs_test_row(RFS_TOP_IFACE, "eth1");
	cr[0].ctr[RFS_TOP_SEEN] = 1100;
	cr[1].ctr[RFS_TOP_SEEN] = 5;
	cr[2].ctr[RFS_TOP_SEEN] = 150;
	rfs_top_rates(&prev, &cur);
	assert_true(cr[0].valid);
	assert_true(cr[0].per_s[RFS_TOP_SEEN] == 200.0);
	assert_false(cr[1].valid);
	assert_true(cr[2].valid);
	assert_true(cr[2].per_s[RFS_TOP_SEEN] == 100.0);
	assert_null(rfs_top_find(&prev, RFS_TOP_CPU, "eth1"));

	/* the first sample */
	rfs_top_rates(NULL, &cur);
	assert_false(cr[0].valid);
}

/* A CPU row whose kthread had waited wait_ns over runs runs. */
static struct rfs_top_row rfs_test_kthread_row(__u64 wait_ns, __u64 runs)
{
	struct rfs_top_row r = rfs_test_row(RFS_TOP_CPU, "2");

	r.has_kthread = true;
	r.ctr[RFS_TOP_KTHREAD_WAIT_NS] = wait_ns;
	r.ctr[RFS_TOP_KTHREAD_RUNS] = runs;
	return r;
}

static void rfs_test_kwait(void **state)
{
	struct rfs_top_row a = rfs_test_kthread_row(1000000, 100);
	struct rfs_top_row b = rfs_test_kthread_row(1500000, 200);

	/* 500 us waited over 100 runs */
	rfs_top_rate_row(&a, &b, 2.0);
	assert_true(b.kthread_valid);
	assert_true(b.kwait_us == 5.0);
	assert_true(b.per_s[RFS_TOP_KTHREAD_WAIT_NS] == 250000.0);
	assert_true(b.per_s[RFS_TOP_KTHREAD_RUNS] == 50.0);
	assert_true(rfs_top_kwait_us(3000, 2) == 1.5);
	assert_true(isnan(rfs_top_kwait_us(3000, 0)));
}

/* It did not run: no wait per run, though its counters are known. */
static void rfs_test_kwait_no_runs(void **state)
{
	struct rfs_top_row a = rfs_test_kthread_row(1000000, 100), b = a;

	rfs_top_rate_row(&a, &b, 1.0);
	assert_true(b.kthread_valid);
	assert_true(isnan(b.kwait_us));
	assert_true(b.per_s[RFS_TOP_KTHREAD_RUNS] == 0.0);
}

/* Absent is not 0: a sample without them (no kthread yet, unreadable)
 * gives no figure, and is no counter going back either. */
static void rfs_test_kwait_absent(void **state)
{
	struct rfs_top_row a = rfs_test_kthread_row(1000000, 100);
	struct rfs_top_row b = rfs_test_row(RFS_TOP_CPU, "2");

	rfs_top_rate_row(&a, &b, 1.0);
	assert_true(b.valid);
	assert_false(b.kthread_valid);
	assert_false(b.reset);
	assert_true(isnan(b.kwait_us));
	rfs_top_rate_row(&b, &a, 1.0);
	assert_false(a.kthread_valid);
	assert_false(a.reset);
	assert_true(isnan(a.kwait_us));
}

/* The kthread was remade: its counters went back, the frame counters
 * did not; no figure, and no "counters reset" for the others. */
static void rfs_test_kwait_remade(void **state)
{
	struct rfs_top_row a = rfs_test_kthread_row(9000000, 4000);
	struct rfs_top_row b = rfs_test_kthread_row(20000, 10);

	a.ctr[RFS_TOP_STEERED] = 100;
	b.ctr[RFS_TOP_STEERED] = 300;
	rfs_top_rate_row(&a, &b, 1.0);
	assert_true(b.valid);
	assert_false(b.reset);
	assert_false(b.kthread_valid);
	assert_true(isnan(b.kwait_us));
	assert_true(b.per_s[RFS_TOP_STEERED] == 200.0);
}

/* The cell for us is want, and fits its column. */
static void rfs_test_expect_kwait_text(double us, const char *want)
{
	char buf[16];

	rfs_top_kwait_text(buf, sizeof(buf), us);
	assert_string_equal(buf, want);
	assert_true(strlen(buf) <= 6);
}

static void rfs_test_kwait_text(void **state)
{
	rfs_test_expect_kwait_text(NAN, "-");
	rfs_test_expect_kwait_text(0.0, "0.0");
	rfs_test_expect_kwait_text(12.34, "12.3");
	/* where one decimal would round up to 1000.0 */
	rfs_test_expect_kwait_text(999.94, "999.9");
	rfs_test_expect_kwait_text(999.96, "1000");
	rfs_test_expect_kwait_text(999999.4, "999999");
	/* 1000000 would not fit */
	rfs_test_expect_kwait_text(999999.6, ">=1s");
	rfs_test_expect_kwait_text(3e9, ">=1s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_delta_grows),
		cmocka_unit_test(rfs_test_delta_wraps),
		cmocka_unit_test(rfs_test_delta_reset),
		cmocka_unit_test(rfs_test_rates),
		cmocka_unit_test(rfs_test_rates_reset),
		cmocka_unit_test(rfs_test_rates_idle),
		cmocka_unit_test(rfs_test_rates_snapshots),
		cmocka_unit_test(rfs_test_kwait),
		cmocka_unit_test(rfs_test_kwait_no_runs),
		cmocka_unit_test(rfs_test_kwait_absent),
		cmocka_unit_test(rfs_test_kwait_remade),
		cmocka_unit_test(rfs_test_kwait_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
