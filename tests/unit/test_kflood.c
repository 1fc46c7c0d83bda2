// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of rfsd_kflood_next() (daemon/rfsd/rfsd.h): when a SCHED_FIFO
 * cpumap kthread steps down to SCHED_OTHER for a flood, and when back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../daemon/rfsd/rfsd.h"

#define SEC	1000000000ULL
#define MS	1000000ULL
#define HOLD	RFSD_KFLOOD_HOLD_LOOKS
#define NO	RFSD_KFLOOD_NO
#define SHARE	RFSD_KFLOOD_SHARE
#define RUNS	RFSD_KFLOOD_RUNS

/* a window of wall ns in which the kthread ran ran ns in runs runs */
static enum rfsd_kflood_state next(enum rfsd_kflood_state state,
				   unsigned int looks, __u64 ran, __u64 wall,
				   __u64 runs)
{
	struct rfsd_kthread_wait w = {
		.at_ns = wall, .on_cpu_ns = ran, .runs = runs,
	};

	return rfsd_kflood_next(state, looks, &w);
}

/* over half of a second on its CPU, in short runs: flooded by the
 * share; half exactly is not */
static void rfs_test_kflood_starts(void **state)
{
	assert_int_equal(next(NO, 0, SEC / 2 + 1, SEC, 100000), SHARE);
	assert_int_equal(next(NO, 0, SEC, SEC, 100000), SHARE);
	assert_int_equal(next(NO, 0, SEC / 2, SEC, 100000), NO);
	assert_int_equal(next(NO, 0, 0, SEC, 0), NO);
	/* a longer window (a late tick) is a share, not a sum */
	assert_int_equal(next(NO, 0, SEC, 3 * SEC, 100000), NO);
	assert_int_equal(next(NO, 0, 2 * SEC, 3 * SEC, 100000), SHARE);
}

/* a small share in long runs is a flood too (bursts drained while the
 * tasks there wait): 2 ms on average is the bound, the kernel's for
 * softirq; request/response's 10-30 us runs are not */
static void rfs_test_kflood_long_runs(void **state)
{
	/* 12 % of 200 ms in 9 runs: 2.67 ms each (the NIC-like test) */
	assert_int_equal(next(NO, 0, 24 * MS, 200 * MS, 9), RUNS);
	assert_int_equal(next(NO, 0, 20 * MS, 200 * MS, 10), RUNS);
	assert_int_equal(next(NO, 0, 20 * MS - 1, 200 * MS, 10), NO);
	/* 45 % in 4 400 runs: 20 us each (256 connections) */
	assert_int_equal(next(NO, 0, 90 * MS, 200 * MS, 4400), NO);
	/* one run that filled the window: no run began in it */
	assert_int_equal(next(NO, 0, 3 * MS, 200 * MS, 0), RUNS);
	assert_int_equal(next(NO, 0, 1 * MS, 200 * MS, 0), NO);
	/* over the share in long runs: the share, with no hold */
	assert_int_equal(next(NO, 0, 150 * MS, 200 * MS, 10), SHARE);
}

/* flooded by the share stays so down to a quarter, and ends below it:
 * no flapping between the two bounds, and no hold */
static void rfs_test_kflood_share_ends(void **state)
{
	assert_int_equal(next(SHARE, 0, SEC / 2, SEC, 1000), SHARE);
	assert_int_equal(next(SHARE, 0, SEC / 4, SEC, 1000), SHARE);
	assert_int_equal(next(SHARE, 0, SEC / 4 - 1, SEC, 1000), NO);
	assert_int_equal(next(SHARE, 0, 0, SEC, 0), NO);
}

/* flooded by long runs stays so for the hold whatever the window (fair
 * scheduling cuts the runs short), then ends under a quarter */
static void rfs_test_kflood_runs_hold(void **state)
{
	assert_int_equal(next(RUNS, 0, 0, SEC, 0), RUNS);
	assert_int_equal(next(RUNS, HOLD - 1, 24 * MS, 200 * MS, 900), RUNS);
	assert_int_equal(next(RUNS, HOLD, 24 * MS, 200 * MS, 900), NO);
	assert_int_equal(next(RUNS, HOLD, SEC / 4, SEC, 1000), RUNS);
	assert_int_equal(next(RUNS, HOLD + 5, 0, SEC, 0), NO);
}

/* a window of no length says nothing */
static void rfs_test_kflood_no_window(void **state)
{
	assert_int_equal(next(RUNS, HOLD, 0, 0, 0), RUNS);
	assert_int_equal(next(SHARE, 0, 0, 0, 0), SHARE);
	assert_int_equal(next(NO, 0, SEC, 0, 0), NO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_kflood_starts),
		cmocka_unit_test(rfs_test_kflood_long_runs),
		cmocka_unit_test(rfs_test_kflood_share_ends),
		cmocka_unit_test(rfs_test_kflood_runs_hold),
		cmocka_unit_test(rfs_test_kflood_no_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
