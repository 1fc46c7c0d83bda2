// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of daemon/lib/rfs_budget.c: what a flow table takes, the budgets
 * an attach or a resize must fit, their messages, and the defaults taken
 * from MemTotal.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "rfs_dp.h"

#define MiB	(1ull << 20)
#define GiB	(1ull << 30)

static void rfs_test_table_bytes(void **state)
{
	assert_int_equal(rfs_table_bytes(4096, 1), (1 + 4096) * 8);
	/* the largest: past 32 bits */
	assert_true(rfs_table_bytes(1u << 20, 256) == ((1ull << 28) + 1) * 8);
}

static void rfs_test_check(void **state)
{
	const struct rfs_budget b = { .iface = 16 * MiB, .total = 64 * MiB };
	const struct rfs_budget none = { 0 };
	char err[512] = "";

	/* within both */
	assert_int_equal(rfs_budget_check(&b, "can't attach 'eth1'", 4096, 8,
					  0, err, sizeof(err)), 0);
	/* flow_cnt 1048576 on 8 queues: 64 MiB, over 16 per interface */
	assert_int_equal(rfs_budget_check(&b, "can't attach 'eth1'", 1u << 20,
					  8, 0, err, sizeof(err)), -ENOSPC);
	assert_string_equal(err,
		"can't attach 'eth1': its flow table would take 64.0 MiB (flow_cnt 1048576 x 8 rx queues), over the budget of 16.0 MiB per interface (table_budget_iface in rfsd.conf)");
	/* 8 MiB fits one interface, not beside 60 MiB of others */
	assert_int_equal(rfs_budget_check(&b, "can't set flow_cnt of 'eth1' to 131072",
					  1u << 17, 8, 60 * MiB, err,
					  sizeof(err)), -ENOSPC);
	assert_string_equal(err,
		"can't set flow_cnt of 'eth1' to 131072: its flow table would take 8.0 MiB (flow_cnt 131072 x 8 rx queues) beside the 60.0 MiB of the other interfaces, over the budget of 64.0 MiB in total (table_budget_total in rfsd.conf)");
	assert_int_equal(rfs_budget_check(&b, "x", 1u << 17, 8, 56 * MiB - 8,
					  err, sizeof(err)), 0);
	/* no budget: anything */
	assert_int_equal(rfs_budget_check(&none, "x", 1u << 20, 256, 100 * GiB,
					  err, sizeof(err)), 0);
}

static void rfs_test_default(void **state)
{
	struct rfs_budget b;

	rfs_budget_default(8 * GiB, &b);
	assert_true(b.iface == 128 * MiB);
	assert_true(b.total == 512 * MiB);
	/* the largest table is refused on such a host */
	assert_true(rfs_table_bytes(1u << 20, 256) > b.iface);
	rfs_budget_default(0, &b);
	assert_true(b.iface == RFS_BUDGET_IFACE_FALLBACK);
	assert_true(b.total == RFS_BUDGET_TOTAL_FALLBACK);
}

static void rfs_test_meminfo(void **state)
{
	char path[] = "/tmp/rfs-test-meminfo.XXXXXX";
	__u64 bytes = 0;
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("MemFree:         1000 kB\nMemTotal:       8388608 kB\n", f);
	fclose(f);
	assert_int_equal(rfs_meminfo_total(path, &bytes), 0);
	assert_true(bytes == 8 * GiB);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("MemFree:         1000 kB\n", f);
	fclose(f);
	assert_int_equal(rfs_meminfo_total(path, &bytes), -ENOENT);
	unlink(path);
	assert_int_equal(rfs_meminfo_total(path, &bytes), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_table_bytes),
		cmocka_unit_test(rfs_test_check),
		cmocka_unit_test(rfs_test_default),
		cmocka_unit_test(rfs_test_meminfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
