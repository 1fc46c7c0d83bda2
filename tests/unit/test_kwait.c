// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of rfsd_kwait_excess() and rfsd_kthread_since()
 * (daemon/rfsd/rfsd.h): when rfsd warns that a CPU's cpumap kthread
 * keeps waiting for its CPU, and when it must not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../daemon/rfsd/rfsd.h"

#define PID	4242

static const struct rfsd_kthread_wait last = {
	.pid = PID, .at_ns = 1000, .wait_ns = 5000000, .runs = 1000,
};

/* last, then wait more ns over runs more runs */
static bool excess(const struct rfsd_kthread_wait *l, __u32 pid, __u64 wait,
		   __u64 runs, __u64 *per_run)
{
	struct rfsd_kthread_wait now = {
		.pid = pid, .at_ns = last.at_ns + 10, .wait_ns = wait,
		.runs = runs,
	};

	return rfsd_kwait_excess(l, &now, per_run);
}

/* 200 runs that waited 2 ms each: a warning, with the average */
static void rfs_test_kwait_long(void **state)
{
	__u64 per_run;

	assert_true(excess(&last, PID, last.wait_ns + 200 * 2000000ULL,
			   last.runs + 200, &per_run));
	assert_int_equal(per_run, 2000000);
	/* the bound itself counts */
	assert_true(excess(&last, PID,
			   last.wait_ns + RFSD_KWAIT_MIN_RUNS * RFSD_KWAIT_WARN_NS,
			   last.runs + RFSD_KWAIT_MIN_RUNS, &per_run));
}

/* short waits, or too few runs to say anything: none */
static void rfs_test_kwait_not_enough(void **state)
{
	__u64 per_run;

	assert_false(excess(&last, PID, last.wait_ns + 200 * 999999ULL,
			    last.runs + 200, &per_run));
	assert_int_equal(per_run, 999999);
	assert_false(excess(&last, PID, last.wait_ns + 10 * 50000000ULL,
			    last.runs + RFSD_KWAIT_MIN_RUNS - 1, &per_run));
	assert_false(excess(&last, PID, last.wait_ns, last.runs, &per_run));
}

/* figures of another kthread, none before, or counters that went back
 * (a kthread made anew under the same PID): never compared */
static void rfs_test_kwait_not_comparable(void **state)
{
	struct rfsd_kthread_wait none = last, now = last;
	__u64 per_run;

	none.pid = 0;
	assert_false(excess(&none, PID, UINT64_MAX / 2, UINT64_MAX / 2,
			    &per_run));
	assert_false(excess(&none, 0, UINT64_MAX / 2, UINT64_MAX / 2,
			    &per_run));
	assert_false(excess(&last, PID + 1, last.wait_ns + 200 * 2000000ULL,
			    last.runs + 200, &per_run));
	assert_false(excess(&last, PID, last.wait_ns + 500 * 2000000ULL,
			    last.runs - 1, &per_run));
	assert_false(excess(&last, PID, last.wait_ns - 1, last.runs + 500,
			    &per_run));
	/* a look taken before the last one */
	now.wait_ns += 200 * 2000000ULL;
	now.runs += 200;
	assert_true(rfsd_kwait_excess(&last, &now, &per_run));
	now.at_ns--;
	assert_false(rfsd_kwait_excess(&last, &now, &per_run));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_kwait_long),
		cmocka_unit_test(rfs_test_kwait_not_enough),
		cmocka_unit_test(rfs_test_kwait_not_comparable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
