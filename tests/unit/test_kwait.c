// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of rfsd_kwait_excess() (daemon/rfsd/ksched.h): when rfsd warns that
 * a CPU's cpumap kthread keeps waiting for its CPU, and when it must not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../daemon/rfsd/ksched.h"

#define PID	4242

static const struct rfsd_kwait_cpu last = {
	.pid = PID, .have = true, .wait_ns = 5000000, .runs = 1000,
};

/* 200 runs that waited 2 ms each: a warning, with the average */
static void rfs_test_kwait_long(void **state)
{
	__u64 per_run;

	assert_true(rfsd_kwait_excess(&last, PID, last.wait_ns + 200 * 2000000ULL,
				      last.runs + 200, &per_run));
	assert_int_equal(per_run, 2000000);
	/* the bound itself counts */
	assert_true(rfsd_kwait_excess(&last, PID,
				      last.wait_ns + RFSD_KWAIT_MIN_RUNS * RFSD_KWAIT_WARN_NS,
				      last.runs + RFSD_KWAIT_MIN_RUNS, &per_run));
}

/* short waits, or too few runs to say anything: none */
static void rfs_test_kwait_not_enough(void **state)
{
	__u64 per_run;

	assert_false(rfsd_kwait_excess(&last, PID, last.wait_ns + 200 * 999999ULL,
				       last.runs + 200, &per_run));
	assert_int_equal(per_run, 999999);
	assert_false(rfsd_kwait_excess(&last, PID, last.wait_ns + 10 * 50000000ULL,
				       last.runs + RFSD_KWAIT_MIN_RUNS - 1, &per_run));
	assert_false(rfsd_kwait_excess(&last, PID, last.wait_ns, last.runs, &per_run));
}

/* figures of another kthread, none before, or counters that went back
 * (a kthread made anew under the same PID): never compared */
static void rfs_test_kwait_not_comparable(void **state)
{
	struct rfsd_kwait_cpu none = last;
	__u64 per_run;

	none.have = false;
	assert_false(rfsd_kwait_excess(&none, PID, UINT64_MAX / 2, UINT64_MAX / 2,
				       &per_run));
	assert_false(rfsd_kwait_excess(&last, PID + 1, last.wait_ns + 200 * 2000000ULL,
				       last.runs + 200, &per_run));
	assert_false(rfsd_kwait_excess(&last, PID, last.wait_ns + 500 * 2000000ULL,
				       last.runs - 1, &per_run));
	assert_false(rfsd_kwait_excess(&last, PID, last.wait_ns - 1,
				       last.runs + 500, &per_run));
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
