// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of daemon/lib/cpulist.c: the "0-3,6" syntax both ways, the set
 * operations rfsd builds allowed/usable from, and the online CPU set.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "parse.h"

#define RFS_TEST_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define RFS_TEST_END		(-1)

/* Longest list: every other CPU, "0,2,...,254" */
#define RFS_TEST_BUFLEN		1024

static void rfs_test_set(struct rfs_cpuset *set, const int *cpus)
{
	rfs_cpuset_zero(set);
	for (; *cpus != RFS_TEST_END; cpus++)
		rfs_cpuset_add(set, *cpus);
}

static void rfs_test_parse_ok(void **state)
{
	static const struct {
		const char *in;
		int cpus[12];
		const char *canon;	/* what format gives back */
	} t[] = {
		{ "0", { 0, RFS_TEST_END }, "0" },
		{ "0-3,6", { 0, 1, 2, 3, 6, RFS_TEST_END }, "0-3,6" },
		{ "1,3-5", { 1, 3, 4, 5, RFS_TEST_END }, "1,3-5" },
		{ "255", { 255, RFS_TEST_END }, "255" },
		{ "2-2", { 2, RFS_TEST_END }, "2" },
		{ "3,1,2", { 1, 2, 3, RFS_TEST_END }, "1-3" },
		{ "0-1,1-2", { 0, 1, 2, RFS_TEST_END }, "0-2" },
		{ "63-64", { 63, 64, RFS_TEST_END }, "63-64" },
		/* as read from /sys/devices/system/cpu/online */
		{ "0-1\n", { 0, 1, RFS_TEST_END }, "0-1" },
	};
	struct rfs_cpuset got, want;
	char buf[RFS_TEST_BUFLEN];
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		rfs_test_set(&want, t[i].cpus);
		if (rfs_cpulist_parse(t[i].in, &got, false) ||
		    !rfs_cpuset_equal(&got, &want)) {
			print_error("parse '%s' failed or gave another set\n",
				    t[i].in);
			fail();
		}
		rfs_cpulist_format(&got, buf, sizeof(buf));
		assert_string_equal(buf, t[i].canon);
	}
}

static void rfs_test_parse_all(void **state)
{
	struct rfs_cpuset set;
	unsigned int c;

	assert_int_equal(rfs_cpulist_parse("0-255", &set, false), 0);
	assert_int_equal(rfs_cpuset_count(&set), RFS_MAX_CPUS);
	for (c = 0; c < RFS_MAX_CPUS; c++)
		assert_true(rfs_cpuset_has(&set, c));
}

static void rfs_test_parse_errors(void **state)
{
	static const struct {
		const char *in;
		int err;
	} t[] = {
		{ "", -EINVAL },
		{ "a", -EINVAL },
		{ "3-1", -EINVAL },
		{ "1,", -EINVAL },
		{ "0-", -EINVAL },
		{ "-1", -EINVAL },
		{ ",1", -EINVAL },
		{ "1,,2", -EINVAL },
		{ "1-2-3", -EINVAL },
		{ " 1", -EINVAL },
		{ "1 ", -EINVAL },
		{ "+1", -EINVAL },
		{ "0x1", -EINVAL },
		{ "1;2", -EINVAL },
		{ "\n", -EINVAL },
		/* fuzz_cpulist: the rest after a newline was ignored */
		{ "0\n\x05\n%", -EINVAL },
		{ "0-1\n2", -EINVAL },
		{ "0\n\n", -EINVAL },
		{ "256", -ERANGE },
		{ "0-256", -ERANGE },
		{ "1,300", -ERANGE },
		{ "4294967296", -ERANGE },
	};
	struct rfs_cpuset set;
	unsigned int i;
	int err;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		err = rfs_cpulist_parse(t[i].in, &set, false);
		if (err != t[i].err) {
			print_error("parse '%s': got %d, want %d\n", t[i].in,
				    err, t[i].err);
			fail();
		}
	}
}

static __u32 rfs_test_rand(__u32 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* format -> parse gives the same set back, for sets of every shape. */
static void rfs_test_format_roundtrip(void **state)
{
	struct rfs_cpuset set, back;
	char buf[RFS_TEST_BUFLEN];
	__u32 seed = 7;
	unsigned int i, c;

	/* empty set: empty string, which parse rejects on purpose */
	rfs_cpuset_zero(&set);
	rfs_cpulist_format(&set, buf, sizeof(buf));
	assert_string_equal(buf, "");
	assert_int_equal(rfs_cpulist_parse(buf, &back, false), -EINVAL);

	rfs_cpuset_zero(&set);
	for (c = 0; c < RFS_MAX_CPUS; c += 2)
		rfs_cpuset_add(&set, c);
	rfs_cpulist_format(&set, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "0,2,4,", 6), 0);
	assert_int_equal(rfs_cpulist_parse(buf, &back, false), 0);
	assert_true(rfs_cpuset_equal(&set, &back));

	for (i = 0; i < 2000; i++) {
		/* dense, sparse and runs: a bit density per iteration */
		__u32 density = 1 + i % 7;

		rfs_cpuset_zero(&set);
		for (c = 0; c < RFS_MAX_CPUS; c++)
			if (rfs_test_rand(&seed) % 8 < density)
				rfs_cpuset_add(&set, c);
		if (!rfs_cpuset_count(&set))
			continue;
		rfs_cpulist_format(&set, buf, sizeof(buf));
		if (rfs_cpulist_parse(buf, &back, false) ||
		    !rfs_cpuset_equal(&set, &back)) {
			print_error("round trip of '%s' failed\n", buf);
			fail();
		}
	}
}

/* A short buffer is never overrun and always terminated. */
static void rfs_test_format_short(void **state)
{
	struct rfs_cpuset set;
	char buf[16];
	size_t len;

	assert_int_equal(rfs_cpulist_parse("0-3,6,8-9", &set, false), 0);
	for (len = 1; len <= sizeof(buf); len++) {
		size_t i;

		memset(buf, 'x', sizeof(buf));
		rfs_cpulist_format(&set, buf, len);
		assert_true(strlen(buf) < len);
		assert_int_equal(strncmp(buf, "0-3,6,8-9", strlen(buf)), 0);
		for (i = len; i < sizeof(buf); i++)
			assert_int_equal(buf[i], 'x');
	}
	rfs_cpulist_format(&set, buf, sizeof(buf));
	assert_string_equal(buf, "0-3,6,8-9");
}

static void rfs_test_count_equal_and(void **state)
{
	struct rfs_cpuset a, b, d, want;

	rfs_cpuset_zero(&a);
	assert_int_equal(rfs_cpuset_count(&a), 0);

	assert_int_equal(rfs_cpulist_parse("0-3,6", &a, false), 0);
	assert_int_equal(rfs_cpuset_count(&a), 5);
	assert_int_equal(rfs_cpulist_parse("2-7,64,255", &b, false), 0);
	assert_int_equal(rfs_cpuset_count(&b), 8);

	assert_true(rfs_cpuset_equal(&a, &a));
	assert_false(rfs_cpuset_equal(&a, &b));
	/* every word is compared */
	assert_int_equal(rfs_cpulist_parse("0,255", &d, false), 0);
	assert_int_equal(rfs_cpulist_parse("0", &want, false), 0);
	assert_false(rfs_cpuset_equal(&d, &want));
	assert_int_equal(rfs_cpulist_parse("0,64", &d, false), 0);
	assert_false(rfs_cpuset_equal(&d, &want));
	assert_int_equal(rfs_cpulist_parse("6,0-3", &d, false), 0);
	assert_true(rfs_cpuset_equal(&a, &d));

	rfs_cpuset_and(&d, &a, &b);
	assert_int_equal(rfs_cpulist_parse("2-3,6", &want, false), 0);
	assert_true(rfs_cpuset_equal(&d, &want));
	assert_int_equal(rfs_cpuset_count(&d), 3);

	/* in place, as rfsd does allowed &= online */
	rfs_cpuset_and(&b, &b, &a);
	assert_true(rfs_cpuset_equal(&b, &want));

	/* disjoint */
	assert_int_equal(rfs_cpulist_parse("128-130", &b, false), 0);
	rfs_cpuset_and(&d, &a, &b);
	assert_int_equal(rfs_cpuset_count(&d), 0);
}

static void rfs_test_add_has_range(void **state)
{
	/* ones right after the set catch a read or write past its end */
	struct {
		struct rfs_cpuset set;
		__u64 guard[RFS_CPU_WORDS];
	} g;
	struct rfs_cpuset set, empty;
	unsigned int i;

	rfs_cpuset_zero(&g.set);
	memset(g.guard, 0xff, sizeof(g.guard));
	for (i = RFS_MAX_CPUS; i < 2 * RFS_MAX_CPUS; i++)
		assert_false(rfs_cpuset_has(&g.set, i));
	memset(g.guard, 0, sizeof(g.guard));
	for (i = RFS_MAX_CPUS; i < 2 * RFS_MAX_CPUS; i++)
		rfs_cpuset_add(&g.set, i);
	for (i = 0; i < RFS_CPU_WORDS; i++)
		assert_int_equal(g.guard[i], 0);
	assert_int_equal(rfs_cpuset_count(&g.set), 0);

	rfs_cpuset_zero(&set);
	rfs_cpuset_zero(&empty);
	rfs_cpuset_add(&set, RFS_MAX_CPUS);
	rfs_cpuset_add(&set, RFS_NO_CPU);
	rfs_cpuset_add(&set, ~0u);
	assert_true(rfs_cpuset_equal(&set, &empty));
	assert_false(rfs_cpuset_has(&set, RFS_MAX_CPUS));

	rfs_cpuset_add(&set, 63);
	rfs_cpuset_add(&set, 64);
	rfs_cpuset_add(&set, 255);
	assert_true(rfs_cpuset_has(&set, 63));
	assert_true(rfs_cpuset_has(&set, 64));
	assert_true(rfs_cpuset_has(&set, 255));
	assert_false(rfs_cpuset_has(&set, 62));
	assert_false(rfs_cpuset_has(&set, 65));
	assert_false(rfs_cpuset_has(&set, RFS_MAX_CPUS));
	assert_int_equal(rfs_cpuset_count(&set), 3);
}

static void rfs_test_online(void **state)
{
	struct rfs_cpuset set;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	assert_int_equal(rfs_cpuset_online(&set), 0);
	assert_true(rfs_cpuset_count(&set) > 0);
	assert_true(rfs_cpuset_has(&set, 0));
	if (n > 0 && n <= RFS_MAX_CPUS)
		assert_int_equal(rfs_cpuset_count(&set), n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfs_test_parse_ok),
		cmocka_unit_test(rfs_test_parse_all),
		cmocka_unit_test(rfs_test_parse_errors),
		cmocka_unit_test(rfs_test_format_roundtrip),
		cmocka_unit_test(rfs_test_format_short),
		cmocka_unit_test(rfs_test_count_equal_and),
		cmocka_unit_test(rfs_test_add_has_range),
		cmocka_unit_test(rfs_test_online),
	};

	return cmocka_run_group_tests_name("rfs_cpulist", tests, NULL, NULL);
}
