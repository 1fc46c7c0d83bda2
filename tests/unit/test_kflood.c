// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of rfsd_kflood_next() (daemon/rfsd/kflood.h): when a SCHED_FIFO
 * cpumap kthread steps down to SCHED_OTHER for a flood, and when back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../daemon/rfsd/kflood.h"

#define SEC	1000000000ULL

/* over half of a second on its CPU: flooded; half exactly is not */
static void rfs_test_kflood_starts(void **state)
{
	assert_true(rfsd_kflood_next(false, SEC / 2 + 1, SEC));
	assert_true(rfsd_kflood_next(false, SEC, SEC));
	assert_false(rfsd_kflood_next(false, SEC / 2, SEC));
	assert_false(rfsd_kflood_next(false, 0, SEC));
	/* a longer window (a late tick) is a share, not a sum */
	assert_false(rfsd_kflood_next(false, SEC, 3 * SEC));
	assert_true(rfsd_kflood_next(false, 2 * SEC, 3 * SEC));
}

/* flooded stays so down to a quarter, and ends below it: no flapping
 * between the two bounds */
static void rfs_test_kflood_ends(void **state)
{
	assert_true(rfsd_kflood_next(true, SEC / 2, SEC));
	assert_true(rfsd_kflood_next(true, SEC / 4, SEC));
	assert_false(rfsd_kflood_next(true, SEC / 4 - 1, SEC));
	assert_false(rfsd_kflood_next(true, 0, SEC));
}

/* a window of no length says nothing */
static void rfs_test_kflood_no_window(void **state)
{
	assert_true(rfsd_kflood_next(true, 0, 0));
	assert_false(rfsd_kflood_next(false, SEC, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_kflood_starts),
		cmocka_unit_test(rfs_test_kflood_ends),
		cmocka_unit_test(rfs_test_kflood_no_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
