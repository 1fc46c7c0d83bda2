// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of daemon/lib/parse.c's words added for least privilege:
 * rfs_addr_loopback() (which metrics_listen addresses rfsd serves
 * quietly, and which it warns about), rfs_group_name_valid()
 * (socket_group, admin_group) and rfs_parse_size() (the table budgets).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <cmocka.h>

#include "parse.h"

#define RFS_TEST_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void rfs_test_loopback(void **state)
{
	static const struct {
		const char *addr;
		bool loopback;
	} t[] = {
		{ "127.0.0.1:9464", true },
		{ "127.1.2.3:9464", true },
		{ "[::1]:9464", true },
		{ "[::ffff:127.0.0.1]:9464", true },
		/* the wildcards take every address of the host */
		{ "0.0.0.0:9464", false },
		{ "[::]:9464", false },
		{ "10.0.0.1:9464", false },
		{ "128.0.0.1:9464", false },
		{ "[fe80::1]:9464", false },
		{ "[::ffff:10.0.0.1]:9464", false },
		{ "[::2]:9464", false },
	};
	struct sockaddr_storage ss;
	socklen_t len;
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		assert_int_equal(rfs_parse_hostport(t[i].addr, &ss, &len), 0);
		if (rfs_addr_loopback(&ss) != t[i].loopback) {
			print_error("%s: loopback %d, want %d\n", t[i].addr,
				    !t[i].loopback, t[i].loopback);
			fail();
		}
	}
}

static void rfs_test_group_names(void **state)
{
	assert_true(rfs_group_name_valid("rfs"));
	assert_true(rfs_group_name_valid("rfs-admin"));
	assert_true(rfs_group_name_valid("_rfs1"));
	assert_true(rfs_group_name_valid("ops$"));
	assert_false(rfs_group_name_valid(""));
	assert_false(rfs_group_name_valid("1rfs"));
	assert_false(rfs_group_name_valid("-rfs"));
	assert_false(rfs_group_name_valid("Rfs"));
	assert_false(rfs_group_name_valid("a b"));
	assert_false(rfs_group_name_valid("a$b"));
	assert_false(rfs_group_name_valid("a23456789012345678901234567890123"));
}

static void rfs_test_sizes(void **state)
{
	const __u64 lo = 1ull << 20, hi = 1ull << 40;
	__u64 v = 0;

	assert_int_equal(rfs_parse_size("256M", lo, hi, &v), 0);
	assert_true(v == 256ull << 20);
	assert_int_equal(rfs_parse_size("1G", lo, hi, &v), 0);
	assert_true(v == 1ull << 30);
	assert_int_equal(rfs_parse_size("1048576", lo, hi, &v), 0);
	assert_true(v == 1ull << 20);
	assert_int_equal(rfs_parse_size("1024G", lo, hi, &v), 0);
	assert_int_equal(rfs_parse_size("1025G", lo, hi, &v), -ERANGE);
	assert_int_equal(rfs_parse_size("1023K", lo, hi, &v), -ERANGE);
	assert_int_equal(rfs_parse_size("99999999999", lo, hi, &v), -ERANGE);
	assert_int_equal(rfs_parse_size("99999999999999999999", lo, hi, &v),
			 -ERANGE);
	assert_int_equal(rfs_parse_size("64m", lo, hi, &v), -EINVAL);
	assert_int_equal(rfs_parse_size("M", lo, hi, &v), -EINVAL);
	assert_int_equal(rfs_parse_size("", lo, hi, &v), -EINVAL);
	assert_int_equal(rfs_parse_size("1.5G", lo, hi, &v), -EINVAL);
	assert_int_equal(rfs_parse_size("abcdefghijklmnopqrstu", lo, hi, &v),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_loopback),
		cmocka_unit_test(rfs_test_group_names),
		cmocka_unit_test(rfs_test_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
