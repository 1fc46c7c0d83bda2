// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of rfs_addr_loopback() (daemon/lib/parse.c): which metrics_listen
 * addresses rfsd serves quietly, and which it warns about.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_loopback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
