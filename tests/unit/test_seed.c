// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of rfs_seed_random() (daemon/lib/rfs_dp.c): the flow hash seed
 * comes from getrandom() or not at all.  getrandom() is wrapped at link
 * time (-Wl,--wrap=getrandom, Makefile), so each case says what it
 * returns.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <sys/types.h>
#include <cmocka.h>

#include "rfs_dp.h"

static int rfs_test_errno;	/* getrandom()'s errno when it fails */

ssize_t __wrap_getrandom(void *buf, size_t len, unsigned int flags)
{
	ssize_t n = mock_type(ssize_t);

	(void)flags;
	if (n < 0) {
		errno = rfs_test_errno;
		return -1;
	}
	memset(buf, 0xab, (size_t)n < len ? (size_t)n : len);
	return n;
}

static void rfs_test_seed_ok(void **state)
{
	char err[RFS_ERR_LEN] = "";
	__u32 seed = 0;

	will_return(__wrap_getrandom, 4);
	assert_int_equal(rfs_seed_random(&seed, err), 0);
	assert_int_equal(seed, 0xababababu);
}

/* no entropy source: the start fails, naming getrandom and its cause */
static void rfs_test_seed_fails(void **state)
{
	char err[RFS_ERR_LEN] = "";
	__u32 seed = 7;

	rfs_test_errno = ENOSYS;
	will_return(__wrap_getrandom, -1);
	assert_int_equal(rfs_seed_random(&seed, err), -ENOSYS);
	assert_int_equal(seed, 7);
	assert_non_null(strstr(err, "can't seed the flow hash: getrandom: "));
	assert_non_null(strstr(err, strerror(ENOSYS)));
}

/* a signal during the wait is no failure: try again */
static void rfs_test_seed_eintr(void **state)
{
	char err[RFS_ERR_LEN] = "";
	__u32 seed = 0;

	rfs_test_errno = EINTR;
	will_return(__wrap_getrandom, -1);
	will_return(__wrap_getrandom, 4);
	assert_int_equal(rfs_seed_random(&seed, err), 0);
	assert_int_equal(seed, 0xababababu);
}

static void rfs_test_seed_short(void **state)
{
	char err[RFS_ERR_LEN] = "";
	__u32 seed = 7;

	will_return(__wrap_getrandom, 2);
	assert_int_equal(rfs_seed_random(&seed, err), -EIO);
	assert_int_equal(seed, 7);
	assert_non_null(strstr(err, "short read"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_seed_ok),
		cmocka_unit_test(rfs_test_seed_fails),
		cmocka_unit_test(rfs_test_seed_eintr),
		cmocka_unit_test(rfs_test_seed_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
