// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of daemon/rfsd/caps.c's rfsd_role_of(): who may change, who may
 * only read, who may do neither, from a peer's uid, primary group and
 * supplementary groups (SO_PEERGROUPS).  caps.c is compiled into this
 * test (it is rfsd's, not the library's).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../../daemon/rfsd/caps.c"

#define RFS_TEST_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define RFS_TEST_READ	1000	/* gid of the socket group (rfs) */
#define RFS_TEST_ADMIN	1001	/* gid of the admin group (rfs-admin) */

static void rfs_test_roles(void **state)
{
	static const struct rfsd_groups both = {
		.have_read = true, .read = RFS_TEST_READ,
		.have_admin = true, .admin = RFS_TEST_ADMIN,
	};
	static const struct rfsd_groups no_admin = {
		.have_read = true, .read = RFS_TEST_READ,
	};
	static const struct rfsd_groups none = { .have_read = false };
	static const gid_t g_read[] = { 5, RFS_TEST_READ };
	static const gid_t g_admin[] = { RFS_TEST_ADMIN, 7 };
	static const gid_t g_other[] = { 5, 6, 0 };
	static const struct {
		uid_t uid;
		gid_t gid;
		const gid_t *g;
		size_t n;
		const struct rfsd_groups *grp;
		enum rfsd_role want;
	} t[] = {
		/* root, whatever the groups */
		{ 0, 0, NULL, 0, &both, RFSD_ROLE_ADMIN },
		{ 0, 0, NULL, 0, &none, RFSD_ROLE_ADMIN },
		/* the socket group, primary or supplementary: read only */
		{ 1000, RFS_TEST_READ, NULL, 0, &both, RFSD_ROLE_READ },
		{ 1000, 100, g_read, 2, &both, RFSD_ROLE_READ },
		/* the admin group, primary or supplementary: everything */
		{ 1000, RFS_TEST_ADMIN, NULL, 0, &both, RFSD_ROLE_ADMIN },
		{ 1000, 100, g_admin, 2, &both, RFSD_ROLE_ADMIN },
		/* gid 0 in the supplementary groups is not root */
		{ 1000, 100, g_other, 3, &both, RFSD_ROLE_NONE },
		/* groups that don't exist have no members, gid 0 included */
		{ 1000, 0, NULL, 0, &none, RFSD_ROLE_NONE },
		{ 1000, 100, g_admin, 2, &no_admin, RFSD_ROLE_NONE },
		{ 1000, 0, g_read, 2, &no_admin, RFSD_ROLE_READ },
	};
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		enum rfsd_role r = rfsd_role_of(t[i].uid, t[i].gid, t[i].g,
						t[i].n, t[i].grp);

		if (r != t[i].want) {
			print_error("case %u: uid %u gid %u: role %d, want %d\n",
				    i, t[i].uid, t[i].gid, r, t[i].want);
			fail();
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_roles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
