// SPDX-License-Identifier: GPL-2.0
/*
 * The bench's latency histogram (tests/tools/lib/rfs_hist.c): every value
 * lands in a bucket that holds it, buckets are no wider than 1/64 of
 * their values, and percentiles of a known distribution come out within
 * that precision.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../tools/lib/rfs_hist.c"

static void rfs_test_buckets(void **state)
{
	uint64_t v, prev_idx = 0;

	for (v = 0; v < (1ULL << 40); v = v < 1000 ? v + 1 : v + v / 997) {
		unsigned int i = rfs_hist_index(v);

		assert_true(i < RFS_HIST_BUCKETS);
		assert_true(rfs_hist_lowest(i) <= v);
		assert_true(v < rfs_hist_lowest(i) + rfs_hist_width(i));
		/* relative width: exact below 128, then <= 1/64 */
		assert_true(v < 128 ? rfs_hist_width(i) == 1 :
			    rfs_hist_width(i) * 64 <= rfs_hist_lowest(i));
		assert_true(i >= prev_idx);	/* monotonic */
		prev_idx = i;
	}
	assert_int_equal(rfs_hist_index(UINT64_MAX), RFS_HIST_BUCKETS - 1);
}

static void rfs_test_percentiles(void **state)
{
	static struct rfs_hist h, a, b;
	static const double ps[] = { 50, 90, 99, 99.9 };
	uint64_t v;
	unsigned int i;

	rfs_hist_init(&h);
	assert_int_equal(rfs_hist_percentile(&h, 50), 0);
	/* 1..100000 ns, each once: percentile p is p * 1000 ns */
	rfs_hist_init(&a);
	rfs_hist_init(&b);
	for (v = 1; v <= 100000; v++)
		rfs_hist_record(v % 2 ? &a : &b, v);
	rfs_hist_merge(&h, &a);
	rfs_hist_merge(&h, &b);
	assert_int_equal(h.total, 100000);
	assert_int_equal(h.min, 1);
	assert_int_equal(h.max, 100000);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		double want = ps[i] * 1000, got = rfs_hist_percentile(&h, ps[i]);

		if (got < want * 0.984 || got > want * 1.016) {
			print_error("p%g: want %.0f, got %.0f\n", ps[i], want, got);
			fail();
		}
	}
	assert_int_equal(rfs_hist_percentile(&h, 100), 100000);
	/* one outlier in a thousand moves p99.9 only */
	rfs_hist_init(&h);
	for (v = 0; v < 999; v++)
		rfs_hist_record(&h, 50000);
	rfs_hist_record(&h, 5000000);
	assert_true(rfs_hist_percentile(&h, 99) < 51000);
	assert_true(rfs_hist_percentile(&h, 99.9) < 51000);
	assert_true(rfs_hist_percentile(&h, 99.95) > 4900000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_buckets),
		cmocka_unit_test(rfs_test_percentiles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
