// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of include/rfs_decide.h and include/rfs_order.h, as pure functions:
 * rfs_pick_cpu() branch by branch from a table (one cmocka test per row),
 * its helpers, the sock flow entry encoding, and each piece of the in-order
 * rule (dev table index, dequeue marks, the delivery proof, the local
 * path).  Whether the pieces together keep flows in order is checked by
 * the simulator in test_order_sim.c, which runs this same code.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "rfs_decide.h"
#include "parse.h"

#define RFS_TEST_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define RFS_TEST_END		(-1)
#define RFS_TEST_CPUS(...)	{ __VA_ARGS__, RFS_TEST_END }
#define RFS_TEST_NOCPUS		{ RFS_TEST_END }
#define RFS_TEST_ANY		(-1)

/*
 * With allowed_list = { 0, 1, 2, 3 }, rfs_spread_cpu() takes the top two
 * bits of the hash as the index: these hashes spread to CPU 0..3.
 */
#define RFS_TEST_H0		0x00000000u
#define RFS_TEST_H1		0x40000000u
#define RFS_TEST_H2		0x80000000u
#define RFS_TEST_H3		0xc0000000u

static void rfs_test_cpus_to_set(struct rfs_cpuset *set, const int *cpus)
{
	rfs_cpuset_zero(set);
	for (; *cpus != RFS_TEST_END; cpus++)
		rfs_cpuset_add(set, *cpus);
}

/*
 * allowed (also usable, and listed in order for spreading) and leaving
 * (usable only: being removed, frames may still go there while its flows
 * drain, new flows may not), as rfsd writes them.
 */
static void rfs_test_cfg_sets(struct rfs_if_config *cfg,
			      const struct rfs_cpuset *allowed,
			      const struct rfs_cpuset *leaving)
{
	unsigned int c;

	memset(cfg, 0, sizeof(*cfg));
	for (c = 0; c < RFS_MAX_CPUS; c++) {
		if (rfs_cpuset_has(allowed, c)) {
			cfg->allowed[c / 64] |= 1ULL << (c % 64);
			cfg->usable[c / 64] |= 1ULL << (c % 64);
			cfg->allowed_list[cfg->n_allowed++] = c;
		} else if (rfs_cpuset_has(leaving, c)) {
			cfg->usable[c / 64] |= 1ULL << (c % 64);
		}
	}
}

static void rfs_test_cfg(struct rfs_if_config *cfg, const int *allowed,
			 const int *leaving)
{
	struct rfs_cpuset a, l;

	rfs_test_cpus_to_set(&a, allowed);
	rfs_test_cpus_to_set(&l, leaving);
	rfs_test_cfg_sets(cfg, &a, &l);
}

/* The same from "0-3,6" lists; NULL is the empty set. */
static void rfs_test_cfg_str(struct rfs_if_config *cfg, const char *allowed,
			     const char *leaving)
{
	struct rfs_cpuset a, l;

	rfs_cpuset_zero(&a);
	rfs_cpuset_zero(&l);
	if (allowed)
		assert_int_equal(rfs_cpulist_parse(allowed, &a, false), 0);
	if (leaving)
		assert_int_equal(rfs_cpulist_parse(leaving, &l, false), 0);
	rfs_test_cfg_sets(cfg, &a, &l);
}

/* ---- rfs_pick_cpu(), one row per branch ------------------------------ */

struct rfs_test_pick {
	const char *name;
	const char *allowed;	/* cpulist, NULL = none */
	const char *leaving;
	unsigned int opts;	/* RFS_TEST_LP | RFS_TEST_HO | RFS_TEST_NG */
	__u32 hash;
	__u32 desired;
	__u32 rx;		/* the CPU the frame arrived on */
	int valid;
	int cur_local;
	__u32 cur;
	int drained;		/* cur_drained */
	/* expected */
	__u32 cpu;
	enum rfs_verdict verdict;
	int spread;		/* 0, 1 or RFS_TEST_ANY */
	int local;
};

#define RFS_TEST_LP		0x1	/* local_path */
#define RFS_TEST_HO		0x2	/* local_handover */
#define RFS_TEST_NG		0x4	/* noguard */

/* Row helpers: the flow's current path, and the expected answer. */
#define NOCUR			.valid = 0
#define CUR(c)			.valid = 1, .cur = (c)
#define CURL(c)			.valid = 1, .cur_local = 1, .cur = (c)
#define WANT(c, v, s, l)	.cpu = (c), .verdict = RFS_V_##v, \
				.spread = (s), .local = (l)
#define NO			RFS_NO_CPU
#define ANY			RFS_TEST_ANY
#define LP			RFS_TEST_LP
#define HO			RFS_TEST_HO
#define NG			RFS_TEST_NG
#define H0			RFS_TEST_H0
#define H1			RFS_TEST_H1
#define H2			RFS_TEST_H2
#define H3			RFS_TEST_H3

static const struct rfs_test_pick rfs_test_picks[] = {
	/* NONE: no CPU allowed, and nothing to keep */
	{ "none: no CPU allowed, new flow",
	  .hash = H0, .desired = NO, NOCUR, WANT(NO, NONE, ANY, 0) },
	{ "none: no CPU allowed, desired set",
	  .hash = H0, .desired = 2, NOCUR, WANT(NO, NONE, ANY, 0) },
	{ "none: no CPU allowed, current CPU gone",
	  .hash = H0, .desired = 2, CUR(1), .drained = 1,
	  WANT(NO, NONE, ANY, 0) },
	{ "none: no CPU allowed, local flow of another RX CPU gone",
	  .opts = LP, .rx = 0, .desired = 2, CURL(1), .drained = 1,
	  WANT(NO, NONE, ANY, 0) },
	{ "held: no CPU allowed, current leaving, drained",
	  .leaving = "1", .hash = H0, .desired = NO, CUR(1), .drained = 1,
	  WANT(1, HELD, ANY, 0) },
	{ "held: no CPU allowed, noguard does not move it",
	  .leaving = "1", .opts = NG, .desired = NO, CUR(1),
	  WANT(1, HELD, ANY, 0) },
	{ "keep: no CPU allowed, local flow stays on this RX CPU",
	  .opts = LP, .rx = 2, .desired = NO, CURL(2),
	  WANT(2, KEEP, ANY, 1) },

	/* NEW: no current path */
	{ "new: to the desired CPU",
	  .allowed = "0-3", .hash = H3, .desired = 2, NOCUR,
	  WANT(2, NEW, 0, 0) },
	{ "new: no desired CPU, spread by hash",
	  .allowed = "0-3", .hash = H1, .desired = NO, NOCUR,
	  WANT(1, NEW, 1, 0) },
	{ "new: desired CPU leaving, spread by hash",
	  .allowed = "0-3", .leaving = "5", .hash = H2, .desired = 5, NOCUR,
	  WANT(2, NEW, 1, 0) },
	{ "new: desired CPU not allowed, spread by hash",
	  .allowed = "0-3", .hash = H3, .desired = 9, NOCUR,
	  WANT(3, NEW, 1, 0) },
	{ "new: desired CPU == RFS_MAX_CPUS, spread by hash",
	  .allowed = "0-3", .hash = H3, .desired = RFS_MAX_CPUS, NOCUR,
	  WANT(3, NEW, 1, 0) },
	{ "new: desired CPU 0xffffffff, spread by hash",
	  .allowed = "0-3", .hash = H0, .desired = 0xffffffff, NOCUR,
	  WANT(0, NEW, 1, 0) },
	{ "new: stale cpu without the valid flag is ignored",
	  .allowed = "0-3", .hash = H0, .desired = 2, .cur = 3,
	  WANT(2, NEW, 0, 0) },
	{ "new: highest CPU 255 as desired",
	  .allowed = "7,255", .hash = H0, .desired = 255, NOCUR,
	  WANT(255, NEW, 0, 0) },
	{ "new: CPU 64 in the second bitmap word",
	  .allowed = "0,64", .hash = H0, .desired = 64, NOCUR,
	  WANT(64, NEW, 0, 0) },
	{ "new: desired is the RX CPU, local path on: local",
	  .allowed = "0-3", .opts = LP, .rx = 2, .desired = 2, NOCUR,
	  WANT(2, NEW, 0, 1) },
	{ "new: desired is the RX CPU, local path off: cpumap",
	  .allowed = "0-3", .rx = 2, .desired = 2, NOCUR,
	  WANT(2, NEW, 0, 0) },
	{ "new: spread to the RX CPU, local path on: local",
	  .allowed = "0-3", .opts = LP, .rx = 3, .hash = H3, .desired = NO,
	  NOCUR, WANT(3, NEW, 1, 1) },
	{ "new: desired elsewhere, local path on: cpumap",
	  .allowed = "0-3", .opts = LP, .rx = 1, .desired = 2, NOCUR,
	  WANT(2, NEW, 0, 0) },

	/* FORCED: the current CPU is gone from the cpumap */
	{ "forced: current CPU not usable, to desired",
	  .allowed = "0-3", .hash = H0, .desired = 2, CUR(6),
	  WANT(2, FORCED, 0, 0) },
	{ "forced: current CPU not usable, spread",
	  .allowed = "0-3", .hash = H3, .desired = NO, CUR(6),
	  WANT(3, FORCED, 1, 0) },
	{ "forced: current CPU the last one an entry holds",
	  .allowed = "0-3", .hash = H0, .desired = 1, CUR(RFS_MAX_CPUS - 1),
	  WANT(1, FORCED, 0, 0) },
	{ "forced: current CPU is RFS_NO_CPU",
	  .allowed = "0-3", .hash = H0, .desired = 1, CUR(RFS_NO_CPU),
	  WANT(1, FORCED, 0, 0) },
	{ "forced: to the RX CPU, local path on: local",
	  .allowed = "0-3", .opts = LP, .rx = 1, .desired = 1, CUR(6),
	  WANT(1, FORCED, 0, 1) },
	{ "forced: local flow of another RX CPU that is gone",
	  .allowed = "0-3", .opts = LP, .rx = 0, .desired = 2, CURL(6),
	  WANT(2, FORCED, 0, 0) },
	{ "held: local flow on this RX CPU is not forced off it",
	  .allowed = "0-3", .opts = LP, .rx = 6, .desired = 2, CURL(6),
	  WANT(6, HELD, 0, 1) },
	{ "switch: local flow on a non-usable RX CPU, drained",
	  .allowed = "0-3", .opts = LP, .rx = 6, .desired = 2, CURL(6),
	  .drained = 1, WANT(2, SWITCH, 0, 0) },

	/* KEEP */
	{ "keep: current CPU is the desired one",
	  .allowed = "0-3", .hash = H0, .desired = 2, CUR(2),
	  WANT(2, KEEP, 0, 0) },
	{ "keep: current CPU is the spread target",
	  .allowed = "0-3", .hash = H3, .desired = NO, CUR(3),
	  WANT(3, KEEP, 1, 0) },
	{ "keep: spread, no desired CPU, current allowed, drained",
	  .allowed = "0-3", .hash = H3, .desired = NO, CUR(1), .drained = 1,
	  WANT(1, KEEP, 1, 0) },
	{ "keep: spread, desired CPU not allowed, current allowed",
	  .allowed = "0-3", .hash = H3, .desired = 7, CUR(0),
	  WANT(0, KEEP, 1, 0) },
	{ "keep: spread, desired CPU out of range, current allowed",
	  .allowed = "0-3", .hash = H3, .desired = 300, CUR(0),
	  WANT(0, KEEP, 1, 0) },
	{ "keep: spread, desired CPU leaving, current allowed",
	  .allowed = "0-3", .leaving = "5", .hash = H3, .desired = 5, CUR(0),
	  WANT(0, KEEP, 1, 0) },
	{ "keep: local, desired is this RX CPU",
	  .allowed = "0-3", .opts = LP, .rx = 2, .desired = 2, CURL(2),
	  WANT(2, KEEP, 0, 1) },
	{ "keep: local, spread keeps a local flow on this RX CPU",
	  .allowed = "0-3", .opts = LP, .rx = 1, .hash = H3, .desired = NO,
	  CURL(1), WANT(1, KEEP, 1, 1) },
	{ "keep: remote to the RX CPU while the local path is off",
	  .allowed = "0-3", .rx = 2, .desired = 2, CUR(2),
	  WANT(2, KEEP, 0, 0) },
	{ "held: spread keeps no local flow of another RX CPU",
	  .allowed = "0-3", .opts = LP, .rx = 2, .hash = H3, .desired = NO,
	  CURL(1), WANT(1, HELD, 1, 0) },
	{ "switch: local flow of another RX CPU, spread, drained",
	  .allowed = "0-3", .opts = LP, .rx = 2, .hash = H3, .desired = NO,
	  CURL(1), .drained = 1, WANT(3, SWITCH, 1, 0) },

	/* SWITCH when drained, HELD otherwise */
	{ "switch: new desired CPU, drained",
	  .allowed = "0-3", .hash = H0, .desired = 2, CUR(1), .drained = 1,
	  WANT(2, SWITCH, 0, 0) },
	{ "held: new desired CPU, not drained",
	  .allowed = "0-3", .hash = H0, .desired = 2, CUR(1),
	  WANT(1, HELD, 0, 0) },
	{ "held: leaving CPU not drained, no desired CPU",
	  .allowed = "0-3", .leaving = "5", .hash = H3, .desired = NO, CUR(5),
	  WANT(5, HELD, 1, 0) },
	{ "switch: leaving CPU drained, spread",
	  .allowed = "0-3", .leaving = "5", .hash = H3, .desired = NO, CUR(5),
	  .drained = 1, WANT(3, SWITCH, 1, 0) },
	{ "held: leaving CPU not drained, desired CPU",
	  .allowed = "0-3", .leaving = "5", .hash = H3, .desired = 2, CUR(5),
	  WANT(5, HELD, 0, 0) },
	{ "switch: leaving CPU drained, to desired",
	  .allowed = "0-3", .leaving = "5", .hash = H3, .desired = 2, CUR(5),
	  .drained = 1, WANT(2, SWITCH, 0, 0) },
	{ "held: app on the leaving CPU, not drained",
	  .allowed = "0-3", .leaving = "5", .hash = H1, .desired = 5, CUR(5),
	  WANT(5, HELD, 1, 0) },
	{ "switch: app on the leaving CPU, drained",
	  .allowed = "0-3", .leaving = "5", .hash = H1, .desired = 5, CUR(5),
	  .drained = 1, WANT(1, SWITCH, 1, 0) },
	{ "switch: noguard moves an undrained flow",
	  .allowed = "0-3", .opts = NG, .hash = H0, .desired = 2, CUR(1),
	  WANT(2, SWITCH, 0, 0) },
	{ "switch: noguard, leaving CPU, spread",
	  .allowed = "0-3", .leaving = "5", .opts = NG, .hash = H3,
	  .desired = NO, CUR(5), WANT(3, SWITCH, 1, 0) },

	/* remote <-> local */
	{ "held: remote -> local on the same CPU needs a drain",
	  .allowed = "0-3", .opts = LP, .rx = 2, .desired = 2, CUR(2),
	  WANT(2, HELD, 0, 0) },
	{ "switch: remote -> local on the same CPU, drained",
	  .allowed = "0-3", .opts = LP, .rx = 2, .desired = 2, CUR(2),
	  .drained = 1, WANT(2, SWITCH, 0, 1) },
	{ "held: remote elsewhere -> local, not drained",
	  .allowed = "0-3", .opts = LP, .rx = 2, .desired = 2, CUR(0),
	  WANT(0, HELD, 0, 0) },
	{ "switch: remote elsewhere -> local, drained",
	  .allowed = "0-3", .opts = LP, .rx = 2, .desired = 2, CUR(0),
	  .drained = 1, WANT(2, SWITCH, 0, 1) },
	{ "held: local -> remote, stays local without handover",
	  .allowed = "0-3", .opts = LP, .rx = 2, .desired = 0, CURL(2),
	  WANT(2, HELD, 0, 1) },
	{ "held: local -> remote, handover through this CPU's cpumap",
	  .allowed = "0-3", .opts = LP | HO, .rx = 2, .desired = 0, CURL(2),
	  WANT(2, HELD, 0, 0) },
	{ "switch: local -> remote, drained",
	  .allowed = "0-3", .opts = LP | HO, .rx = 2, .desired = 0, CURL(2),
	  .drained = 1, WANT(0, SWITCH, 0, 0) },
	{ "held: local path turned off, local flow stays local",
	  .allowed = "0-3", .rx = 2, .desired = 2, CURL(2),
	  WANT(2, HELD, 0, 1) },
	{ "held: local path turned off, handover set: cpumap",
	  .allowed = "0-3", .opts = HO, .rx = 2, .desired = 2, CURL(2),
	  WANT(2, HELD, 0, 0) },
	{ "switch: local path turned off, drained: cpumap",
	  .allowed = "0-3", .rx = 2, .desired = 2, CURL(2), .drained = 1,
	  WANT(2, SWITCH, 0, 0) },
	{ "held: local flow of another RX CPU, through its cpumap",
	  .allowed = "0-3", .opts = LP, .rx = 0, .desired = 2, CURL(1),
	  WANT(1, HELD, 0, 0) },
	{ "held: local flow of another RX CPU that it wants back",
	  .allowed = "0-3", .opts = LP, .rx = 0, .desired = 1, CURL(1),
	  WANT(1, HELD, 0, 0) },
	{ "switch: local flow of another RX CPU, drained, to local",
	  .allowed = "0-3", .opts = LP, .rx = 0, .desired = 0, CURL(1),
	  .drained = 1, WANT(0, SWITCH, 0, 1) },
	{ "held: local flow, leaving RX CPU, no desired CPU",
	  .allowed = "0-3", .leaving = "5", .opts = LP, .rx = 5, .hash = H1,
	  .desired = NO, CURL(5), WANT(5, HELD, 1, 1) },
	{ "held: local flow, leaving RX CPU, handover",
	  .allowed = "0-3", .leaving = "5", .opts = LP | HO, .rx = 5,
	  .hash = H1, .desired = NO, CURL(5), WANT(5, HELD, 1, 0) },
	{ "held: local flow, its RX CPU gone from the set: stays local, no handover",
	  .allowed = "0-3", .opts = LP | HO, .rx = 5, .desired = 1,
	  CURL(5), WANT(5, HELD, 0, 1) },
	{ "switch: noguard moves a local flow at once",
	  .allowed = "0-3", .opts = LP | NG, .rx = 2, .desired = 0, CURL(2),
	  WANT(0, SWITCH, 0, 0) },
};

#undef NOCUR
#undef CUR
#undef CURL
#undef WANT
#undef NO
#undef ANY
#undef LP
#undef HO
#undef NG
#undef H0
#undef H1
#undef H2
#undef H3

static const char *rfs_test_verdict_name(unsigned int v)
{
	static const char *const names[] = {
		[RFS_V_NONE] = "NONE",
		[RFS_V_NEW] = "NEW",
		[RFS_V_KEEP] = "KEEP",
		[RFS_V_SWITCH] = "SWITCH",
		[RFS_V_FORCED] = "FORCED",
		[RFS_V_HELD] = "HELD",
	};

	return v < RFS_TEST_ARRAY_SIZE(names) ? names[v] : "?";
}

static void rfs_test_pick_one(void **state)
{
	const struct rfs_test_pick *t = *state;
	struct rfs_flow_state st = {
		.hash = t->hash,
		.desired_cpu = t->desired,
		.rx_cpu = t->rx,
		.cur = {
			/* last is the rule's business, never the pick's */
			.last = 0xdeadbeef,
			.cpu = (__u16)t->cur,
			.rx_cpu = (__u8)t->rx,
		},
		.cur_drained = t->drained,
	};
	struct rfs_if_config cfg;
	struct rfs_choice c;

	if (t->valid)
		st.cur.flags |= RFS_DEV_FLOW_VALID;
	if (t->cur_local)
		st.cur.flags |= RFS_DEV_FLOW_LOCAL;
	rfs_test_cfg_str(&cfg, t->allowed, t->leaving);
	cfg.local_path = !!(t->opts & RFS_TEST_LP);
	cfg.local_handover = !!(t->opts & RFS_TEST_HO);
	cfg.noguard = !!(t->opts & RFS_TEST_NG);
	cfg.local_drain_jiffies = 2;

	c = rfs_pick_cpu(&st, &cfg);
	if (c.cpu != t->cpu || c.verdict != t->verdict ||
	    c.local != t->local ||
	    (t->spread != RFS_TEST_ANY && c.spread != t->spread)) {
		print_error("got cpu %u %s spread %u local %u, want cpu %u %s spread %d local %d\n",
			    c.cpu, rfs_test_verdict_name(c.verdict), c.spread,
			    c.local, t->cpu, rfs_test_verdict_name(t->verdict),
			    t->spread, t->local);
		fail();
	}
	/* Local only here, and only with the local path on or a local flow
	 * of this RX CPU staying put. */
	if (c.local) {
		assert_int_equal(c.cpu, t->rx);
		assert_true(cfg.local_path ||
			    (t->cur_local && t->cur == t->rx));
	}
}

/* The verdict does not depend on cur.last or cur.rx_cpu of a remote path. */
static void rfs_test_pick_ignores_mark(void **state)
{
	static const __u32 lasts[] = { 0, 1, 0x7fffffff, 0xffffffff };
	struct rfs_flow_state st = {
		.hash = RFS_TEST_H0,
		.desired_cpu = 2,
		.rx_cpu = 0,
		.cur = { .cpu = 1, .flags = RFS_DEV_FLOW_VALID },
	};
	struct rfs_if_config cfg;
	struct rfs_choice c;
	unsigned int i, rx;

	rfs_test_cfg_str(&cfg, "0-3", NULL);
	for (i = 0; i < RFS_TEST_ARRAY_SIZE(lasts); i++) {
		for (rx = 0; rx < 4; rx++) {
			st.cur.last = lasts[i];
			st.cur.rx_cpu = rx;
			st.cur_drained = 0;
			c = rfs_pick_cpu(&st, &cfg);
			assert_int_equal(c.verdict, RFS_V_HELD);
			assert_int_equal(c.cpu, 1);
			st.cur_drained = 1;
			c = rfs_pick_cpu(&st, &cfg);
			assert_int_equal(c.verdict, RFS_V_SWITCH);
			assert_int_equal(c.cpu, 2);
		}
	}
}

/* ---- helpers --------------------------------------------------------- */

static void rfs_test_seq_after_eq(void **state)
{
	static const struct {
		__u32 a, b;
		int after_eq;
	} t[] = {
		{ 0x00000002, 0xfffffffe, 1 },	/* a wrapped, b not */
		{ 0xfffffffe, 0x00000002, 0 },	/* b wrapped, a not */
		{ 0, 0, 1 },
		{ 0x7fffffff, 0x7fffffff, 1 },
		{ 0x80000000, 0x80000000, 1 },
		{ 0xffffffff, 0xffffffff, 1 },
		{ 0x00000000, 0xffffffff, 1 },
		{ 0xffffffff, 0x00000000, 0 },
		{ 11, 10, 1 },
		{ 9, 10, 0 },
		/* the rule only holds within half the counter range */
		{ 10 + 0x7fffffffu, 10, 1 },
		{ 10 + 0x80000000u, 10, 0 },
	};
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		if (rfs_seq_after_eq(t[i].a, t[i].b) != t[i].after_eq) {
			print_error("a %#x b %#x: want after_eq=%d\n",
				    t[i].a, t[i].b, t[i].after_eq);
			fail();
		}
	}
}

static void rfs_test_cpu_in(void **state)
{
	__u64 all[RFS_CPU_WORDS], some[RFS_CPU_WORDS] = { 0 };
	unsigned int c;

	memset(all, 0xff, sizeof(all));
	some[0] = 1ULL << 0 | 1ULL << 63;
	some[1] = 1ULL << 0;
	some[3] = 1ULL << 63;
	for (c = 0; c < RFS_MAX_CPUS; c++) {
		int want = c == 0 || c == 63 || c == 64 || c == 255;

		assert_int_equal(rfs_cpu_in(all, c), 1);
		assert_int_equal(rfs_cpu_in(some, c), want);
	}
	/* Out of range is "not in the set", even for a full set. */
	assert_int_equal(rfs_cpu_in(all, RFS_MAX_CPUS), 0);
	assert_int_equal(rfs_cpu_in(all, RFS_MAX_CPUS + 64), 0);
	assert_int_equal(rfs_cpu_in(all, RFS_NO_CPU), 0);
	assert_int_equal(rfs_cpu_in(all, 0xffffffff), 0);
}

static __u32 rfs_test_rand(__u32 *s)
{
	/* xorshift32: reproducible, and good enough in the high bits */
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void rfs_test_spread_dist(const int *allowed)
{
	unsigned int hits[RFS_MAX_CPUS] = { 0 };
	struct rfs_if_config cfg;
	const int none[] = RFS_TEST_NOCPUS;
	__u32 seed = 12345, c;
	int i;

	rfs_test_cfg(&cfg, allowed, none);
	for (i = 0; i < 10000; i++) {
		c = rfs_spread_cpu(&cfg, rfs_test_rand(&seed));
		assert_in_range(c, 0, RFS_MAX_CPUS - 1);
		if (!rfs_cpu_in(cfg.allowed, c)) {
			print_error("hash spread to disallowed CPU %u\n", c);
			fail();
		}
		hits[c]++;
	}
	for (c = 0; c < RFS_MAX_CPUS; c++) {
		if (!rfs_cpu_in(cfg.allowed, c))
			continue;
		/* Every allowed CPU gets its share, give or take a half. */
		if (hits[c] < 10000 / cfg.n_allowed / 2 ||
		    hits[c] > 10000 / cfg.n_allowed * 3 / 2) {
			print_error("CPU %u got %u of 10000 hashes over %u CPUs\n",
				    c, hits[c], cfg.n_allowed);
			fail();
		}
	}
}

static void rfs_test_spread(void **state)
{
	static const int four[] = RFS_TEST_CPUS(0, 2, 5, 7);
	static const int wide[] = RFS_TEST_CPUS(1, 64, 130, 200, 255);
	static const int one[] = RFS_TEST_CPUS(3);
	int all[RFS_MAX_CPUS + 1];
	int i;

	rfs_test_spread_dist(four);
	rfs_test_spread_dist(wide);
	rfs_test_spread_dist(one);
	for (i = 0; i < RFS_MAX_CPUS; i++)
		all[i] = i;
	all[RFS_MAX_CPUS] = RFS_TEST_END;
	rfs_test_spread_dist(all);
}

static void rfs_test_spread_edges(void **state)
{
	static const int four[] = RFS_TEST_CPUS(0, 2, 5, 7);
	static const int none[] = RFS_TEST_NOCPUS;
	struct rfs_if_config cfg;

	rfs_test_cfg(&cfg, four, none);
	assert_int_equal(rfs_spread_cpu(&cfg, 0), 0);
	assert_int_equal(rfs_spread_cpu(&cfg, 0xffffffff), 7);
	assert_int_equal(rfs_spread_cpu(&cfg, 0x7fffffff), 2);
	assert_int_equal(rfs_spread_cpu(&cfg, 0x80000000), 5);

	cfg.n_allowed = 0;
	assert_int_equal(rfs_spread_cpu(&cfg, 0x12345678), RFS_NO_CPU);
	/* A corrupt count must not index past allowed_list. */
	cfg.n_allowed = RFS_MAX_CPUS + 1;
	assert_int_equal(rfs_spread_cpu(&cfg, 0xffffffff), RFS_NO_CPU);
	cfg.n_allowed = RFS_MAX_CPUS;
	cfg.allowed_list[RFS_MAX_CPUS - 1] = 42;
	assert_int_equal(rfs_spread_cpu(&cfg, 0xffffffff), 42);
}

/* ---- the sock flow entry --------------------------------------------- */

/*
 * The cpu_mask rfsd must use, as the comment in rfs_common.h states it:
 * the smallest 2^n - 1 that holds nr_cpus (CPUs are stored plus one).
 */
static __u32 rfs_test_cpu_mask(__u32 nr_cpus)
{
	__u32 m = 1;

	while (m < nr_cpus)
		m = m << 1 | 1;
	return m;
}

static void rfs_test_cpu_mask_examples(void **state)
{
	/* 2 CPUs -> 0x3 -> 30 tag bits; 64 CPUs -> 0x7f -> 25 tag bits */
	assert_int_equal(rfs_test_cpu_mask(2), 0x3);
	assert_int_equal(__builtin_popcount(~rfs_test_cpu_mask(2)), 30);
	assert_int_equal(rfs_test_cpu_mask(64), 0x7f);
	assert_int_equal(__builtin_popcount(~rfs_test_cpu_mask(64)), 25);
	assert_int_equal(rfs_test_cpu_mask(1), 0x1);
	assert_int_equal(rfs_test_cpu_mask(3), 0x3);
	assert_int_equal(rfs_test_cpu_mask(4), 0x7);
	assert_int_equal(rfs_test_cpu_mask(RFS_MAX_CPUS), 0x1ff);

	/* The largest CPU survives the encoding with its mask... */
	assert_int_equal(rfs_sock_entry_cpu(rfs_sock_entry_make(0, 63, 0x7f),
					    0, 0x7f), 63);
	assert_int_equal(rfs_sock_entry_cpu(rfs_sock_entry_make(0, 1, 0x3),
					    0, 0x3), 1);
	/* ...but not with the kernel's 0x3f for 64 CPUs: 63 + 1 needs 7
	 * bits, and would read back as an empty slot. */
	assert_int_equal(rfs_sock_entry_cpu(rfs_sock_entry_make(0, 63, 0x3f),
					    0, 0x3f), RFS_NO_CPU);
}

static void rfs_test_sock_entry_roundtrip(void **state)
{
	static const __u32 nr[] = { 1, 2, 3, 4, 64, 65, 128, RFS_MAX_CPUS };
	static const __u32 hashes[] = {
		0, 1, 0x7f, 0x80, 0xdeadbeef, 0x12345678, 0xffffffff,
	};
	unsigned int i, j;
	__u32 cpu;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(nr); i++) {
		__u32 mask = rfs_test_cpu_mask(nr[i]);

		for (j = 0; j < RFS_TEST_ARRAY_SIZE(hashes); j++) {
			for (cpu = 0; cpu < nr[i]; cpu++) {
				rfs_sock_entry_t e;

				e = rfs_sock_entry_make(hashes[j], cpu, mask);
				assert_int_not_equal(e, 0);
				assert_int_equal(e & ~mask, hashes[j] & ~mask);
				assert_int_equal(
					rfs_sock_entry_cpu(e, hashes[j], mask),
					cpu);
			}
		}
	}
}

static void rfs_test_sock_entry_empty(void **state)
{
	static const __u32 masks[] = { 0x1, 0x3, 0x7f, 0x1ff };
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(masks); i++) {
		assert_int_equal(rfs_sock_entry_cpu(0, 0, masks[i]),
				 RFS_NO_CPU);
		assert_int_equal(rfs_sock_entry_cpu(0, 0xffffffff, masks[i]),
				 RFS_NO_CPU);
		/* right tag, CPU bits zero: still empty */
		assert_int_equal(rfs_sock_entry_cpu(0xabcd0000 & ~masks[i],
						    0xabcd0000, masks[i]),
				 RFS_NO_CPU);
	}
	/* Zero-filled globals (cpu_mask 0) never yield a CPU. */
	assert_int_equal(rfs_sock_entry_cpu(rfs_sock_entry_make(7, 1, 0), 7, 0),
			 RFS_NO_CPU);
}

static void rfs_test_sock_entry_collision(void **state)
{
	/* 65536 entries: the slot is hash & 0xffff, both hashes share it */
	const __u32 mask = 0x7f, slots = 0xffff;
	const __u32 a = 0x1234abcd, b = 0x5678abcd;
	rfs_sock_entry_t e = rfs_sock_entry_make(a, 5, mask);

	assert_int_equal(a & slots, b & slots);
	assert_int_equal(rfs_sock_entry_cpu(e, a, mask), 5);
	assert_int_equal(rfs_sock_entry_cpu(e, b, mask), RFS_NO_CPU);
	/* one differing tag bit is enough */
	assert_int_equal(rfs_sock_entry_cpu(e, a ^ 0x80000000, mask),
			 RFS_NO_CPU);
	assert_int_equal(rfs_sock_entry_cpu(e, a ^ (mask + 1), mask),
			 RFS_NO_CPU);
}

/* ---- rfs_decide.h: early drop ------------------------------------------ */

static void rfs_test_full_tag(void **state)
{
	const __u32 a = 0x1234abcd, b = a + RFS_FULL_SLOTS;
	__u64 m = rfs_full_mark(a, 1000);

	/* b shares a's slot: a's refusal must not drop it */
	assert_int_equal(rfs_full_index(a), rfs_full_index(b));
	assert_true(rfs_full_drops(m, a, 1000, 2));
	assert_false(rfs_full_drops(m, b, 1000, 2));
	assert_false(rfs_full_tagged(m, b));
	/* a slot never marked drops nothing, hash 0 at jiffy 0 included */
	assert_false(rfs_full_drops(0, 0, 0, 2));
	assert_false(rfs_full_drops(0, a, 1000, 2));
	/* window 0: early drop off */
	assert_false(rfs_full_drops(m, a, 1000, 0));
}

static void rfs_test_full_released(void **state)
{
	const __u32 a = 0x1234abcd, b = a + RFS_FULL_SLOTS;
	__u64 m = rfs_full_mark(a, 1000);

	/* the flow's own read, its buffer half full or less: released */
	assert_true(rfs_full_released(m, a, 0, 4096));
	assert_true(rfs_full_released(m, a, 2048, 4096));
	/* still more than half full: the mark stays */
	assert_false(rfs_full_released(m, a, 2049, 4096));
	/* another flow in the slot, or no mark: nothing to release */
	assert_false(rfs_full_released(m, b, 0, 4096));
	assert_false(rfs_full_released(0, a, 0, 4096));
}

static void rfs_test_full_expiry(void **state)
{
	const __u32 h = 0xdeadbeef;
	__u64 m = rfs_full_mark(h, 500);

	/* marked in jiffy 500, window 2: dropped in 500 and 501 only */
	assert_true(rfs_full_drops(m, h, 500, 2));
	assert_true(rfs_full_drops(m, h, 501, 2));
	assert_false(rfs_full_drops(m, h, 502, 2));
	assert_false(rfs_full_drops(m, h, 100500, 2));
	/* a mark from later than now (another CPU's read of jiffies) is
	 * not a live one: it never drops for 2^32 jiffies */
	assert_false(rfs_full_drops(m, h, 499, 2));
}

/*
 * The target's look for refused flows: from a jiffy before the refusal
 * (its last batch's jiffy may lag it) for the window's length; never
 * without a refusal or with early drop off; across the 32-bit wrap.
 */
static void rfs_test_full_recent(void **state)
{
	/* refused in jiffy 500, window 2: batches of 499, 500, 501 look */
	assert_true(rfs_full_recent(500, 499, 2));
	assert_true(rfs_full_recent(500, 500, 2));
	assert_true(rfs_full_recent(500, 501, 2));
	assert_false(rfs_full_recent(500, 502, 2));
	assert_false(rfs_full_recent(500, 498, 2));
	assert_false(rfs_full_recent(500, 100500, 2));
	/* never refused, or off */
	assert_false(rfs_full_recent(0, 0, 2));
	assert_false(rfs_full_recent(0, 1, 2));
	assert_false(rfs_full_recent(500, 500, 0));
	assert_false(rfs_full_recent(500, 499, 0));
	/* the wrap */
	assert_true(rfs_full_recent(1, 0, 2));
	assert_false(rfs_full_recent(2, 0, 2));
	assert_true(rfs_full_recent(0xffffffff, 0, 2));
	assert_false(rfs_full_recent(0xfffffffe, 0, 2));
}

/*
 * The RX CPU's gate before a flow's slot: while the latest refusal on any
 * CPU is within the window, and never when rfs_full_drops could say yes
 * for a mark that old or older (every jiffy of a window, across the
 * wrap); never without a refusal or with early drop off.
 */
static void rfs_test_full_any(void **state)
{
	static const __u32 latest[] = { 500, 1, 0xffffffffu, 0xfffffffeu };
	const __u32 h = 0x1234abcd;
	__u32 i, age, back, w;

	assert_true(rfs_full_any(500, 500, 2));
	assert_true(rfs_full_any(500, 501, 2));
	assert_false(rfs_full_any(500, 502, 2));
	assert_false(rfs_full_any(500, 100500, 2));
	assert_false(rfs_full_any(0, 0, 2));
	assert_false(rfs_full_any(0, 1, 2));
	assert_false(rfs_full_any(500, 500, 0));
	/* no mark drops where the gate is shut: marks from the latest
	 * refusal back, ages from the refusal to past the window */
	for (i = 0; i < sizeof(latest) / sizeof(latest[0]); i++)
		for (w = 1; w <= 6; w++)
			for (back = 0; back < 8; back++)
				for (age = 0; age < 16; age++) {
					__u32 now = latest[i] + age;
					__u64 m = rfs_full_mark(h, latest[i] - back);

					if (rfs_full_drops(m, h, now, w) &&
					    !rfs_full_any(latest[i], now, w))
						fail_msg("latest %u, mark %u back, now +%u, window %u: drops behind a shut gate",
							 latest[i], back, age, w);
				}
}

static void rfs_test_full_wrap(void **state)
{
	const __u32 h = 0x5a5a5a5a;
	__u64 m = rfs_full_mark(h, 0xffffffffu);

	/* across the 32-bit wrap of jiffies */
	assert_true(rfs_full_drops(m, h, 0xffffffffu, 3));
	assert_true(rfs_full_drops(m, h, 0, 3));
	assert_true(rfs_full_drops(m, h, 1, 3));
	assert_false(rfs_full_drops(m, h, 2, 3));
	/* half the range later, and just before the mark comes round
	 * again: not live */
	assert_false(rfs_full_drops(m, h, 0x7fffffffu, 3));
	assert_false(rfs_full_drops(m, h, 0xfffffffeu, 3));
}

static void rfs_test_full_window(void **state)
{
	static const __u32 hz[] = { 100, 250, 300, 1000 };
	size_t i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(hz); i++) {
		__u32 w = rfs_full_window(hz[i]);

		/* a refusal at the very end of its jiffy still drops for
		 * (w - 1) whole jiffies: at least RFS_EARLY_DROP_MS */
		assert_true((w - 1) * 1000 >= RFS_EARLY_DROP_MS * hz[i]);
		/* and not a whole jiffy longer than it needs */
		assert_true((w - 2) * 1000 < RFS_EARLY_DROP_MS * hz[i]);
	}
	assert_int_equal(rfs_full_window(100), 2);
	assert_int_equal(rfs_full_window(1000), 5);
}

/* ---- rfs_order.h: the dev flow table ----------------------------------- */

static void rfs_test_dev_header(void **state)
{
	struct rfs_dev_flow h = rfs_dev_table_header(4096, 8);
	struct rfs_dev_flow zero = { 0 };

	assert_int_equal(h.last, 4095);
	assert_int_equal(h.rx_cpu, 8);
	assert_int_equal(h.flags, RFS_DEV_TABLE_HDR);
	assert_true(rfs_dev_table_ok(&h));
	/* A zero-filled entry 0 (a table nobody set up) is refused... */
	assert_false(rfs_dev_table_ok(&zero));
	/* ...and so is a header with no queues: every index would be 1. */
	h.rx_cpu = 0;
	assert_false(rfs_dev_table_ok(&h));
	/* A flow entry in slot 0 is not a header. */
	zero.flags = RFS_DEV_FLOW_VALID;
	zero.cpu = 3;
	assert_false(rfs_dev_table_ok(&zero));

	assert_int_equal(rfs_dev_table_entries(4096, 8), 1 + 4096 * 8);
	assert_int_equal(rfs_dev_table_entries(RFS_FLOW_CNT_MIN, 1),
			 1 + RFS_FLOW_CNT_MIN);
	h = rfs_dev_table_header(RFS_FLOW_CNT_MAX, RFS_MAX_RX_QUEUES);
	assert_int_equal(h.last, RFS_FLOW_CNT_MAX - 1);
	assert_int_equal(h.rx_cpu, RFS_MAX_RX_QUEUES);
}

static void rfs_test_dev_index(void **state)
{
	static const __u32 cnts[] = { 64, 256, 4096 };
	static const __u32 queues[] = { 1, 2, 3, 8, RFS_MAX_RX_QUEUES };
	static const __u32 hashes[] = {
		0, 0xff, 0x100, 0x12345678, 0xdeadbeef, 0xffffff00, 0xffffffff,
	};
	unsigned int i, j, k;
	__u32 rxq;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(cnts); i++) {
		for (j = 0; j < RFS_TEST_ARRAY_SIZE(queues); j++) {
			struct rfs_dev_flow h;
			__u32 n;

			h = rfs_dev_table_header(cnts[i], queues[j]);
			n = rfs_dev_table_entries(cnts[i], queues[j]);
			for (k = 0; k < RFS_TEST_ARRAY_SIZE(hashes); k++) {
				__u32 hash = hashes[k];
				__u32 slot = (hash >> 8) & (cnts[i] - 1);

				for (rxq = 0; rxq < queues[j] + 3; rxq++) {
					__u32 idx;

					idx = rfs_dev_index(&h, hash, rxq);
					if (rxq >= queues[j]) {
						/* past the table: no entry,
						 * never another queue's */
						assert_int_equal(idx, 0);
						continue;
					}
					/* the header is never a flow's */
					assert_int_not_equal(idx, 0);
					assert_true(idx < n);
					/* queue-major, slot-minor */
					assert_int_equal(idx,
						1 + rxq * cnts[i] + slot);
				}
				/* a queue number the table can't hold */
				assert_int_equal(rfs_dev_index(&h, hash,
							       0xffffffff), 0);
			}
		}
	}
}

/* The low 8 bits (what the sock table's slot uses) don't pick the slot. */
static void rfs_test_dev_index_bits(void **state)
{
	struct rfs_dev_flow h = rfs_dev_table_header(64, 2);
	__u32 lo;

	for (lo = 0; lo < 256; lo++)
		assert_int_equal(rfs_dev_index(&h, 0x1200 | lo, 1),
				 rfs_dev_index(&h, 0x1200, 1));
	assert_int_not_equal(rfs_dev_index(&h, 0x1200, 1),
			     rfs_dev_index(&h, 0x1300, 1));
	/* every entry of a small table is reachable, and only once */
	{
		unsigned char seen[1 + 64 * 2] = { 0 };
		__u32 s, q;

		for (s = 0; s < 64; s++)
			for (q = 0; q < 2; q++)
				seen[rfs_dev_index(&h, s << 8, q)]++;
		assert_int_equal(seen[0], 0);
		for (s = 1; s < RFS_TEST_ARRAY_SIZE(seen); s++)
			assert_int_equal(seen[s], 1);
	}
}

static void rfs_test_record(void **state)
{
	struct rfs_dev_flow df;

	memset(&df, 0xa5, sizeof(df));
	rfs_record_remote(&df, 7, 3, 0xfffffffe);
	assert_int_equal(df.last, 0xfffffffe);
	assert_int_equal(df.cpu, 7);
	assert_int_equal(df.rx_cpu, 3);
	assert_int_equal(df.flags, RFS_DEV_FLOW_VALID);

	/* local: only the low 32 bits of jiffies are kept */
	rfs_record_local(&df, 5, 0x123456789ULL);
	assert_int_equal(df.last, 0x23456789);
	assert_int_equal(df.cpu, 5);
	assert_int_equal(df.rx_cpu, 5);
	assert_int_equal(df.flags, RFS_DEV_FLOW_VALID | RFS_DEV_FLOW_LOCAL);

	rfs_record_remote(&df, 255, 255, 1);
	assert_int_equal(df.cpu, 255);
	assert_int_equal(df.rx_cpu, 255);
	assert_int_equal(df.flags, RFS_DEV_FLOW_VALID);
}

/*
 * A steady flow records the same entry frame after frame: it must not be
 * stored again (a dirty cache line per frame).  On a read-only page a
 * store faults, so an entry that equals the one there must not fault.
 */
static void rfs_test_record_unchanged(void **state)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct rfs_dev_flow *df;

	df = mmap(NULL, pg, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(df != MAP_FAILED);

	/* bare frames: same number, same target, same RX CPU */
	rfs_record_sent(df, 3, 300, 7, 1);
	assert_int_equal(mprotect(df, pg, PROT_READ), 0);
	rfs_record_sent(df, 3, 300, 7, 1);
	assert_int_equal(mprotect(df, pg, PROT_READ | PROT_WRITE), 0);
	/* any field that differs is stored, the flag too */
	rfs_record_sent(df, 3, 300, 7, 0);
	assert_int_equal(df->flags, RFS_DEV_FLOW_VALID);
	rfs_record_sent(df, 3, 300, 8, 1);
	assert_int_equal(df->last, 8);
	assert_int_equal(df->flags, RFS_DEV_FLOW_VALID | RFS_DEV_FLOW_BARE);
	rfs_record_sent(df, 4, 300, 8, 1);
	assert_int_equal(df->cpu, 4);
	rfs_record_sent(df, 4, 301, 8, 1);
	assert_int_equal(df->rx_cpu, 301);

	/* an empty entry is written, whatever holds the same elsewhere
	 * (the table before a resize) */
	rfs_record_sent(&df[1], 4, 301, 8, 1);
	assert_memory_equal(&df[0], &df[1], sizeof(*df));

	/* local frames in one jiffy; the next jiffy is stored */
	rfs_record_local(df, 1, 0x100000005ULL);
	assert_int_equal(mprotect(df, pg, PROT_READ), 0);
	rfs_record_local(df, 1, 0x100000005ULL);
	assert_int_equal(mprotect(df, pg, PROT_READ | PROT_WRITE), 0);
	rfs_record_local(df, 1, 0x100000006ULL);
	assert_int_equal(df->last, 6);
	assert_int_equal(munmap(df, pg), 0);
}

/* ---- rfs_order.h: the target side -------------------------------------- */

static void rfs_test_mark(void **state)
{
	__u64 m = rfs_mark(0xfffffffe, 7);

	assert_int_equal(rfs_mark_seq(m), 0xfffffffe);
	assert_int_equal(rfs_mark_epoch(m), 7);
	m = rfs_mark(1, 0xffffffff);
	assert_int_equal(rfs_mark_seq(m), 1);
	assert_int_equal(rfs_mark_epoch(m), 0xffffffff);
	assert_true(m == 0xffffffff00000001ULL);
}

static void rfs_test_track_dequeued(void **state)
{
	struct rfs_rx_track t = { 0 };

	/* first frame: last set, nothing earlier to keep */
	t = rfs_track_dequeued(t, 1, 10, 0, 0);
	assert_true(t.last == rfs_mark(1, 10));
	assert_true(t.prev == 0);
	/* same epoch: last moves on, prev stays */
	t = rfs_track_dequeued(t, 2, 10, 0, 0);
	t = rfs_track_dequeued(t, 5, 10, 0, 0);
	assert_true(t.last == rfs_mark(5, 10));
	assert_true(t.prev == 0);
	/* epoch changes: the newest mark of the old epoch rolls into prev */
	t = rfs_track_dequeued(t, 6, 11, 0, 0);
	assert_true(t.last == rfs_mark(6, 11));
	assert_true(t.prev == rfs_mark(5, 10));
	t = rfs_track_dequeued(t, 7, 11, 0, 0);
	assert_true(t.prev == rfs_mark(5, 10));
	/* epochs with no frame from this RX CPU in between */
	t = rfs_track_dequeued(t, 8, 20, 0, 0);
	assert_true(t.last == rfs_mark(8, 20));
	assert_true(t.prev == rfs_mark(7, 11));
	/* seq and epoch wrap */
	t.last = rfs_mark(0xffffffff, 0xffffffff);
	t.prev = 0;
	t = rfs_track_dequeued(t, 0, 0, 0, 0);
	assert_true(t.last == rfs_mark(0, 0));
	assert_true(t.prev == rfs_mark(0xffffffff, 0xffffffff));
	/* a mark of all zero bits reads as "nothing yet": not rolled into
	 * prev, which keeps the older, still true, mark */
	t = rfs_track_dequeued(t, 1, 1, 0, 0);
	assert_true(t.last == rfs_mark(1, 1));
	assert_true(t.prev == rfs_mark(0xffffffff, 0xffffffff));
}

static void rfs_test_remote_drained(void **state)
{
	static const struct {
		const char *name;
		__u64 last, prev;
		__u32 seq, delivered;
		int idle, want;
	} t[] = {
		{ "empty track", 0, 0, 1, 100, 0, 0 },
		{ "empty track, idle", 0, 0, 1, 100, 1, 0 },
		{ "last covers seq, its epoch delivered",
		  0x000000070000000aULL, 0, 10, 7, 0, 1 },
		{ "last passed seq, its epoch delivered",
		  0x000000070000000cULL, 0, 10, 8, 0, 1 },
		{ "last covers seq, epoch not delivered",
		  0x000000070000000aULL, 0, 10, 6, 0, 0 },
		{ "last short of seq",
		  0x0000000700000009ULL, 0, 10, 9, 0, 0 },
		{ "prev covers seq and is delivered",
		  0x000000080000000cULL, 0x000000070000000aULL, 10, 7, 0, 1 },
		{ "prev delivered but short of seq",
		  0x000000080000000cULL, 0x0000000700000009ULL, 10, 7, 0, 0 },
		{ "prev covers seq, not delivered either",
		  0x000000080000000cULL, 0x000000070000000aULL, 10, 6, 0, 0 },
		{ "idle: last covers seq, nothing delivered",
		  0x000000070000000aULL, 0, 10, 0, 1, 1 },
		{ "idle: last short of seq (not dequeued yet)",
		  0x0000000700000009ULL, 0, 10, 0, 1, 0 },
		{ "idle: prev covers seq does not count",
		  0x0000000800000009ULL, 0x000000070000000aULL, 10, 0, 1, 0 },
		{ "seq wrap: mark 2 covers 0xfffffffe",
		  0x0000000700000002ULL, 0, 0xfffffffe, 7, 0, 1 },
		{ "seq wrap: mark 0xfffffffe short of 2",
		  0x00000007fffffffeULL, 0, 2, 7, 0, 0 },
		{ "seq wrap: mark 0 covers 0xffffffff",
		  0x0000000700000000ULL, 0, 0xffffffff, 7, 0, 1 },
		{ "epoch wrap: delivered 1 covers epoch 0xffffffff",
		  0xffffffff00000005ULL, 0, 5, 1, 0, 1 },
		{ "epoch wrap: delivered 0xffffffff short of epoch 1",
		  0x0000000100000005ULL, 0, 5, 0xffffffff, 0, 0 },
		{ "epoch wrap: delivered 0 covers epoch 0xffffffff",
		  0xffffffff00000005ULL, 0, 5, 0, 0, 1 },
		{ "both wrap at once",
		  0x0000000000000001ULL, 0xffffffffffffffffULL, 0xffffffff,
		  0xffffffff, 0, 1 },
	};
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		struct rfs_rx_track tr = { .last = t[i].last,
					   .prev = t[i].prev };

		if (rfs_remote_drained(&tr, t[i].seq, t[i].delivered,
				       t[i].idle) != t[i].want) {
			print_error("%s: want drained=%d\n", t[i].name,
				    t[i].want);
			fail();
		}
	}
}

/*
 * The marks as the target writes them, read back by the rule: a frame is
 * drained once the epoch it was dequeued in is delivered, whether its mark
 * is still last or has rolled into prev.
 */
static void rfs_test_track_then_drained(void **state)
{
	struct rfs_rx_track t = { 0 };

	t = rfs_track_dequeued(t, 1, 1, 0, 0);
	t = rfs_track_dequeued(t, 2, 1, 0, 0);
	assert_false(rfs_remote_drained(&t, 2, 0, 0));
	assert_true(rfs_remote_drained(&t, 2, 1, 0));
	/* frame 3 was never dequeued (dropped, or still in the ring) */
	assert_false(rfs_remote_drained(&t, 3, 1, 0));
	assert_false(rfs_remote_drained(&t, 3, 1, 1));
	/* epoch 2 dequeues frame 4: 3 is passed (lost) but epoch 2 is not
	 * delivered yet; prev still proves 2 */
	t = rfs_track_dequeued(t, 4, 2, 0, 0);
	assert_false(rfs_remote_drained(&t, 3, 1, 0));
	assert_true(rfs_remote_drained(&t, 2, 1, 0));
	assert_true(rfs_remote_drained(&t, 3, 2, 0));
	assert_true(rfs_remote_drained(&t, 3, 1, 1));
	/* epochs 3 and 4 (other flows' frames) within one jiffy and with
	 * nothing delivered at the dequeues: 2@1 is proven again only once
	 * 5@3 is delivered (done, below, keeps such proofs) */
	t = rfs_track_dequeued(t, 5, 3, 0, 0);
	t = rfs_track_dequeued(t, 6, 4, 0, 0);
	assert_false(rfs_remote_drained(&t, 2, 2, 0));
	assert_true(rfs_remote_drained(&t, 2, 3, 0));
	assert_false(rfs_remote_drained(&t, 6, 3, 0));
	assert_true(rfs_remote_drained(&t, 5, 3, 0));
	assert_true(rfs_remote_drained(&t, 6, 4, 0));
}

/*
 * Steady traffic from one RX CPU rolls last and prev on; done keeps the
 * newest mark found delivered at a dequeue, and the jiffy marks keep
 * older ones for age-based proofs, so a paused flow stays proven.
 */
static void rfs_test_track_keeps_proof(void **state)
{
	struct rfs_rx_track t = { 0 };

	/* flow A's last frame, 3, in epoch 1 (jiffy 100) */
	t = rfs_track_dequeued(t, 3, 1, 0, 100);
	/* other flows from the same RX CPU, epochs 2 and 3; epoch 1 proven
	 * delivered while epoch 3 is dequeued */
	t = rfs_track_dequeued(t, 4, 2, 0, 100);
	t = rfs_track_dequeued(t, 5, 3, 1, 100);
	assert_true(t.done == rfs_mark(3, 1));
	assert_true(rfs_remote_drained(&t, 3, 1, 0));
	/* more traffic rolls last and prev past it: done still proves */
	t = rfs_track_dequeued(t, 6, 4, 1, 100);
	t = rfs_track_dequeued(t, 7, 5, 1, 100);
	assert_false(rfs_mark_delivers(t.prev, 3, 1));
	assert_true(rfs_remote_drained(&t, 3, 1, 0));
	/* done only moves to newer marks */
	t = rfs_track_dequeued(t, 8, 6, 4, 100);
	assert_true(t.done == rfs_mark(6, 4));
	t = rfs_track_dequeued(t, 9, 6, 4, 100);
	assert_true(t.done == rfs_mark(8, 6) || t.done == rfs_mark(6, 4));
	assert_false(rfs_mark_newer(rfs_mark(6, 4), t.done));
}

static void rfs_test_track_jiffy_marks(void **state)
{
	struct rfs_rx_track t = { 0 };

	t = rfs_track_dequeued(t, 10, 1, 0, 100);
	t = rfs_track_dequeued(t, 11, 1, 0, 100);
	assert_true(t.jiffy1 == 0);
	/* a new jiffy: the newest mark of the old one rolls into jiffy1 */
	t = rfs_track_dequeued(t, 12, 2, 0, 101);
	assert_true(t.jiffy1 == rfs_mark(11, 1));
	assert_true(t.jiffy2 == 0);
	t = rfs_track_dequeued(t, 13, 3, 0, 102);
	assert_true(t.jiffy1 == rfs_mark(12, 2));
	assert_true(t.jiffy2 == rfs_mark(11, 1));
	/* epoch 1 delivered: jiffy2 proves frame 11 though last and prev
	 * moved on, and done picks it up at the next dequeue */
	assert_true(rfs_remote_drained(&t, 11, 1, 0));
	t = rfs_track_dequeued(t, 14, 3, 1, 102);
	assert_true(t.done == rfs_mark(11, 1));
}

/* The view rfs_gro_view() builds when every held bucket's oldest skb
 * is from jiffy age. */
static void rfs_test_oldest(struct rfs_gro_view *v, __u64 age)
{
	v->aged = 0;
	rfs_gro_view_age(v, age);
}

static const struct rfs_gro_view rfs_test_no_gro = { .has_gro = 0 };
static const struct rfs_gro_view rfs_test_gro_empty = { .has_gro = 1 };

static void rfs_test_delivered_no_gro(void **state)
{
	struct rfs_jiffy_epoch hist[RFS_EPOCH_HISTORY] = { { 0 } };
	struct rfs_gro_view v = rfs_test_no_gro;
	__u32 d = 12345;

	/* without GRO, everything dequeued before this batch is delivered,
	 * whatever the (meaningless) counters say */
	v.rx_count = 5;
	v.bitmask = 1;
	assert_int_equal(rfs_delivered_epoch(hist, &v, 10, 1000, &d), 1);
	assert_int_equal(d, 9);
	assert_true(hist[1000 % RFS_EPOCH_HISTORY].jiffy == 1000);
	assert_int_equal(hist[1000 % RFS_EPOCH_HISTORY].epoch, 10);
	/* epoch 0: everything before it is epoch 0xffffffff */
	assert_int_equal(rfs_delivered_epoch(hist, &v, 0, 1001, &d), 1);
	assert_int_equal(d, 0xffffffff);
}

static void rfs_test_delivered_empty(void **state)
{
	struct rfs_jiffy_epoch hist[RFS_EPOCH_HISTORY] = { { 0 } };
	__u32 d = 12345;

	assert_int_equal(rfs_delivered_epoch(hist, &rfs_test_gro_empty, 42,
					     77, &d), 1);
	assert_int_equal(d, 41);
	assert_true(hist[77 % RFS_EPOCH_HISTORY].jiffy == 77);
	assert_int_equal(hist[77 % RFS_EPOCH_HISTORY].epoch, 42);
}

static void rfs_test_delivered_rx_list(void **state)
{
	struct rfs_jiffy_epoch hist[RFS_EPOCH_HISTORY] = { { 0 } };
	struct rfs_gro_view v = { .has_gro = 1, .rx_count = 1 };
	__u32 d = 12345;

	/* a history that would prove a lot if rx_list were empty */
	assert_int_equal(rfs_delivered_epoch(hist, &rfs_test_gro_empty, 10,
					     100, &d), 1);
	assert_int_equal(rfs_delivered_epoch(hist, &rfs_test_gro_empty, 20,
					     101, &d), 1);
	d = 12345;
	/* rx_list is not empty: any earlier frame may sit in it */
	assert_int_equal(rfs_delivered_epoch(hist, &v, 30, 105, &d), 0);
	assert_int_equal(d, 12345);
	v.bitmask = 0x3;
	rfs_test_oldest(&v, 105);
	assert_int_equal(rfs_delivered_epoch(hist, &v, 31, 105, &d), 0);
	assert_int_equal(d, 12345);
	/* the batch is still noted, for later proofs */
	assert_true(hist[105 % RFS_EPOCH_HISTORY].jiffy == 105);
	assert_int_equal(hist[105 % RFS_EPOCH_HISTORY].epoch, 31);
}

static void rfs_test_delivered_held(void **state)
{
	struct rfs_jiffy_epoch hist[RFS_EPOCH_HISTORY] = { { 0 } };
	struct rfs_gro_view v = { .has_gro = 1, .bitmask = 0x10 };
	__u32 d;

	/* batches 10 @ jiffy 100, 11 and 12 @ 101, 13 @ 102 */
	rfs_delivered_epoch(hist, &rfs_test_gro_empty, 10, 100, &d);
	rfs_delivered_epoch(hist, &rfs_test_gro_empty, 11, 101, &d);
	rfs_delivered_epoch(hist, &rfs_test_gro_empty, 12, 101, &d);
	rfs_delivered_epoch(hist, &rfs_test_gro_empty, 13, 102, &d);

	/* oldest held skb from 102: batches before 12 (the last one seen
	 * in 101) entered GRO before 102, so are out of it */
	rfs_test_oldest(&v, 102);
	d = 0;
	assert_int_equal(rfs_delivered_epoch(hist, &v, 14, 102, &d), 1);
	assert_int_equal(d, 11);
	/* oldest from 101: only batch 10's jiffy is older: before 10 */
	rfs_test_oldest(&v, 101);
	assert_int_equal(rfs_delivered_epoch(hist, &v, 15, 102, &d), 1);
	assert_int_equal(d, 9);
	/* oldest from 100: nothing seen in an earlier jiffy */
	rfs_test_oldest(&v, 100);
	d = 12345;
	assert_int_equal(rfs_delivered_epoch(hist, &v, 16, 102, &d), 0);
	assert_int_equal(d, 12345);
}

static void rfs_test_delivered_history_ring(void **state)
{
	struct rfs_jiffy_epoch hist[RFS_EPOCH_HISTORY] = { { 0 } };
	struct rfs_gro_view v = { .has_gro = 1, .bitmask = 1 };
	__u32 d, j;

	/* one batch per jiffy, epochs 100.. at jiffies 1000.. */
	for (j = 0; j < 10; j++)
		rfs_delivered_epoch(hist, &rfs_test_gro_empty, 100 + j,
				    1000 + j, &d);
	/* the ring keeps the last RFS_EPOCH_HISTORY jiffies: 1006..1009 */
	rfs_test_oldest(&v, 1009);
	assert_int_equal(rfs_delivered_epoch(hist, &v, 110, 1010, &d), 1);
	/* 1010 overwrote 1006; 1007 and 1008 are older than 1009 */
	assert_int_equal(d, 107);
	/* an oldest skb older than anything kept: nothing proven */
	rfs_test_oldest(&v, 1005);
	assert_int_equal(rfs_delivered_epoch(hist, &v, 111, 1010, &d), 0);
}

static void rfs_test_delivered_wrap(void **state)
{
	struct rfs_jiffy_epoch hist[RFS_EPOCH_HISTORY] = { { 0 } };
	struct rfs_gro_view v = { .has_gro = 1, .bitmask = 1 };
	__u32 d;

	/* epochs wrap between two jiffies: the newer epoch still wins */
	rfs_delivered_epoch(hist, &rfs_test_gro_empty, 0xfffffffe, 200, &d);
	rfs_delivered_epoch(hist, &rfs_test_gro_empty, 0x00000001, 201, &d);
	rfs_test_oldest(&v, 202);
	assert_int_equal(rfs_delivered_epoch(hist, &v, 2, 202, &d), 1);
	assert_int_equal(d, 0);
	rfs_test_oldest(&v, 201);
	assert_int_equal(rfs_delivered_epoch(hist, &v, 3, 202, &d), 1);
	assert_int_equal(d, 0xfffffffd);
	/* and an empty node with epoch 0 delivers up to 0xffffffff */
	assert_int_equal(rfs_delivered_epoch(hist, &rfs_test_gro_empty, 0,
					     203, &d), 1);
	assert_int_equal(d, 0xffffffff);
}

/*
 * Real jiffies: the kernel starts them at INITIAL_JIFFIES, 2^32 less five
 * minutes on 64-bit, whatever HZ.  The oldest of the held buckets is
 * found there too, and proves what it should.
 */
static void rfs_test_delivered_real_jiffies(void **state)
{
	static const unsigned int hz[] = { 100, 250, 300, 1000 };
	unsigned int i;

	for (i = 0; i < sizeof(hz) / sizeof(hz[0]); i++) {
		struct rfs_jiffy_epoch hist[RFS_EPOCH_HISTORY] = { { 0 } };
		struct rfs_gro_view v = { .has_gro = 1, .bitmask = 0x7 };
		__u64 j0 = (__u64)(__u32)(-300 * (int)hz[i]);
		__u32 d = 12345;

		rfs_delivered_epoch(hist, &rfs_test_gro_empty, 10, j0, &d);
		rfs_delivered_epoch(hist, &rfs_test_gro_empty, 11, j0 + 1, &d);
		rfs_delivered_epoch(hist, &rfs_test_gro_empty, 12, j0 + 2, &d);
		/* three held buckets, the oldest not the first read */
		rfs_gro_view_age(&v, j0 + 2);
		rfs_gro_view_age(&v, j0 + 1);
		rfs_gro_view_age(&v, j0 + 2);
		assert_int_equal(v.aged, 3);
		assert_true(v.oldest_age == j0 + 1);
		/* batches before 10 (the last one of jiffy j0) are out */
		d = 12345;
		assert_int_equal(rfs_delivered_epoch(hist, &v, 13, j0 + 2, &d),
				 1);
		assert_int_equal(d, 9);
	}
}

/* Held buckets whose ages could not be read prove nothing. */
static void rfs_test_delivered_unaged(void **state)
{
	struct rfs_jiffy_epoch hist[RFS_EPOCH_HISTORY] = { { 0 } };
	struct rfs_gro_view v = { .has_gro = 1, .bitmask = 0x1 };
	__u32 d = 12345;

	rfs_delivered_epoch(hist, &rfs_test_gro_empty, 10, 100, &d);
	rfs_delivered_epoch(hist, &rfs_test_gro_empty, 11, 101, &d);
	d = 12345;
	assert_int_equal(rfs_delivered_epoch(hist, &v, 12, 102, &d), 0);
	assert_int_equal(d, 12345);
}

/*
 * No proof for 2^31 frames from one RX CPU (a busy target whose GRO
 * never empties, say): the mark kept as delivered must not come to look
 * newer than the flow's frame still in flight, as 32-bit sequence numbers
 * wrap.  The target drops kept marks the dequeued frames have left far
 * behind, and a mark covers only frames not far before it.
 */
static void rfs_test_track_wrap(void **state)
{
	struct rfs_rx_track t = { 0 };
	__u32 far = 0x80000000u + 10;	/* in flight, 2^31 + 9 frames on */

	/* frame 1 dequeued in epoch 1; epoch 1 then proven (delivered 1)
	 * at frame 2's dequeue, which keeps frame 1's mark in done */
	t = rfs_track_dequeued(t, 1, 1, 0, 100);
	t = rfs_track_dequeued(t, 2, 2, 1, 101);
	assert_true(t.done == rfs_mark(1, 1));
	assert_true(rfs_remote_drained(&t, 1, 1, 0));
	/* without the guard, done's frame 1 "is at or after" frame far */
	assert_true(rfs_seq_after_eq(1, far));
	assert_false(rfs_mark_covers(1, far));
	assert_false(rfs_remote_drained(&t, far, 1, 0));
	assert_false(rfs_remote_drained(&t, far, 1, 1));
	/* frames keep being dequeued, never proven: done leaves at last */
	t = rfs_track_dequeued(t, RFS_MARK_MAX_AGE, 2, 1, 102);
	assert_true(t.done == rfs_mark(1, 1));
	t = rfs_track_dequeued(t, RFS_MARK_MAX_AGE + 1, 2, 1, 103);
	assert_true(t.done == 0);
	t = rfs_track_dequeued(t, far - 100, 2, 1, 104);
	assert_false(rfs_remote_drained(&t, far, 1, 0));
	/* and a mark just after the frame still covers it */
	assert_true(rfs_mark_covers(far + 5, far));
	assert_true(rfs_mark_covers(far, far));
}

/* Entries are one 64-bit word, with RX CPU ids past 255 (rfs_common.h). */
static void rfs_test_dev_flow_word(void **state)
{
	union rfs_dev_flow_word u;
	struct rfs_dev_flow e = {}, l;

	assert_int_equal(sizeof(struct rfs_dev_flow), 8);
	assert_int_equal(__alignof__(struct rfs_dev_flow), 8);
	assert_int_equal(offsetof(struct rfs_dev_flow, last), 0);
	assert_int_equal(offsetof(struct rfs_dev_flow, rx_cpu), 4);
	assert_int_equal(offsetof(struct rfs_dev_flow, cpu), 6);
	assert_int_equal(offsetof(struct rfs_dev_flow, flags), 7);
	rfs_record_remote(&e, 3, 300, 7);
	u.f = e;
	/* the worked example of rfs_common.h, on a little-endian host */
	assert_true(u.w == 0x0103012c00000007ULL);
	l = rfs_dev_flow_load(&e);
	assert_int_equal(l.rx_cpu, 300);
	assert_int_equal(l.cpu, 3);
	assert_int_equal(l.last, 7);
	assert_int_equal(l.flags, RFS_DEV_FLOW_VALID);
	rfs_record_local(&e, 255, 0x100000005ULL);
	assert_int_equal(e.rx_cpu, 255);
	assert_int_equal(e.cpu, 255);
	assert_int_equal(e.last, 5);
	assert_int_equal(e.flags, RFS_DEV_FLOW_VALID | RFS_DEV_FLOW_LOCAL);
	/* the metadata carries the RX CPU whole too */
	assert_int_equal(sizeof(struct rfs_frame_meta) % 4, 0);
	{
		struct rfs_frame_meta m = { .rx_cpu = 8191 };

		assert_int_equal(m.rx_cpu, RFS_MAX_RX_CPUS - 1);
	}
}

/* Every (target, RX CPU) pair has a track of its own. */
static void rfs_test_rx_track_index(void **state)
{
	static const __u32 nr_rx[] = { 1, 2, 3, 8, 64, 300, 513 };
	unsigned int i;

	for (i = 0; i < sizeof(nr_rx) / sizeof(nr_rx[0]); i++) {
		__u32 n = nr_rx[i], row = n;
		__u32 entries = rfs_rx_track_entries(RFS_MAX_CPUS, n);
		__u32 t, r;

		assert_int_equal(sizeof(struct rfs_rx_track), 64);
		for (t = 0; t < RFS_MAX_CPUS; t += 51) {
			for (r = 0; r < n; r++) {
				__u32 x = rfs_rx_track_index(t, r, n);

				assert_true(x < entries);
				assert_int_equal(x, t * row + r);
			}
			/* r and r + 256 apart (0 and 256 once shared one) */
			if (n > 256)
				assert_int_not_equal(rfs_rx_track_index(t, 0, n),
						     rfs_rx_track_index(t, 256, n));
			/* out of range: past the map */
			assert_true(rfs_rx_track_index(t, n, n) >= entries);
		}
		assert_true(rfs_rx_track_index(RFS_MAX_CPUS, 0, n) >= entries);
	}
}

/* ---- rfs_order.h: the local path ---------------------------------------- */

static void rfs_test_local_drained(void **state)
{
	static const struct {
		__u32 last;
		__u64 now;
		__u32 drain;
		int want;
	} t[] = {
		{ 100, 100, 2, 0 },
		{ 100, 101, 2, 0 },
		{ 100, 102, 2, 1 },
		{ 100, 1000, 2, 1 },
		{ 100, 100, 0, 1 },	/* no wait at all */
		{ 100, 100, 1, 0 },
		{ 100, 101, 1, 1 },
		/* only the low 32 bits of jiffies are recorded */
		{ 0xffffffff, 0x100000000ULL, 2, 0 },
		{ 0xffffffff, 0x100000001ULL, 2, 1 },
		{ 0xfffffffe, 0x300000000ULL, 2, 1 },
		{ 5, 0x700000006ULL, 2, 0 },
		{ 5, 0x700000007ULL, 2, 1 },
	};
	unsigned int i;

	for (i = 0; i < RFS_TEST_ARRAY_SIZE(t); i++) {
		struct rfs_dev_flow df = {};

		rfs_record_local(&df, 1, t[i].last);
		if (rfs_local_drained(&df, t[i].now, t[i].drain) !=
		    t[i].want) {
			print_error("last %#x now %#llx drain %u: want %d\n",
				    t[i].last, (unsigned long long)t[i].now,
				    t[i].drain, t[i].want);
			fail();
		}
	}
}

/* What rfs_xdp does on HELD: ask again with the real drained answer. */
static void rfs_test_pick_twice(void **state)
{
	struct rfs_flow_state st = {
		.hash = RFS_TEST_H0,
		.desired_cpu = 2,
		.rx_cpu = 0,
	};
	struct rfs_rx_track t = { 0 };
	struct rfs_if_config cfg;
	struct rfs_choice c;

	rfs_test_cfg_str(&cfg, "0-3", NULL);
	cfg.local_path = 1;
	cfg.local_drain_jiffies = 2;
	rfs_record_remote(&st.cur, 1, 0, 41);

	t = rfs_track_dequeued(t, 41, 9, 0, 0);
	c = rfs_pick_cpu(&st, &cfg);
	assert_int_equal(c.verdict, RFS_V_HELD);
	st.cur_drained = rfs_remote_drained(&t, st.cur.last, 8, 0);
	assert_false(st.cur_drained);
	st.cur_drained = rfs_remote_drained(&t, st.cur.last, 9, 0);
	assert_true(st.cur_drained);
	c = rfs_pick_cpu(&st, &cfg);
	assert_int_equal(c.verdict, RFS_V_SWITCH);
	assert_int_equal(c.cpu, 2);

	/* local, passed at jiffy 500, the app moves to CPU 3 */
	rfs_record_local(&st.cur, 0, 500);
	st.desired_cpu = 3;
	st.cur_drained = 0;
	c = rfs_pick_cpu(&st, &cfg);
	assert_int_equal(c.verdict, RFS_V_HELD);
	assert_int_equal(c.local, 1);
	st.cur_drained = rfs_local_drained(&st.cur, 501, 2);
	assert_false(st.cur_drained);
	st.cur_drained = rfs_local_drained(&st.cur, 502, 2);
	c = rfs_pick_cpu(&st, &cfg);
	assert_int_equal(c.verdict, RFS_V_SWITCH);
	assert_int_equal(c.cpu, 3);
	assert_int_equal(c.local, 0);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(rfs_test_pick_ignores_mark),
		cmocka_unit_test(rfs_test_pick_twice),
		cmocka_unit_test(rfs_test_seq_after_eq),
		cmocka_unit_test(rfs_test_cpu_in),
		cmocka_unit_test(rfs_test_spread),
		cmocka_unit_test(rfs_test_spread_edges),
		cmocka_unit_test(rfs_test_cpu_mask_examples),
		cmocka_unit_test(rfs_test_sock_entry_roundtrip),
		cmocka_unit_test(rfs_test_sock_entry_empty),
		cmocka_unit_test(rfs_test_sock_entry_collision),
		cmocka_unit_test(rfs_test_full_tag),
		cmocka_unit_test(rfs_test_full_released),
		cmocka_unit_test(rfs_test_full_expiry),
		cmocka_unit_test(rfs_test_full_wrap),
		cmocka_unit_test(rfs_test_full_recent),
		cmocka_unit_test(rfs_test_full_any),
		cmocka_unit_test(rfs_test_full_window),
		cmocka_unit_test(rfs_test_dev_header),
		cmocka_unit_test(rfs_test_dev_index),
		cmocka_unit_test(rfs_test_dev_index_bits),
		cmocka_unit_test(rfs_test_record),
		cmocka_unit_test(rfs_test_record_unchanged),
		cmocka_unit_test(rfs_test_mark),
		cmocka_unit_test(rfs_test_track_dequeued),
		cmocka_unit_test(rfs_test_remote_drained),
		cmocka_unit_test(rfs_test_track_then_drained),
		cmocka_unit_test(rfs_test_track_keeps_proof),
		cmocka_unit_test(rfs_test_track_jiffy_marks),
		cmocka_unit_test(rfs_test_track_wrap),
		cmocka_unit_test(rfs_test_dev_flow_word),
		cmocka_unit_test(rfs_test_rx_track_index),
		cmocka_unit_test(rfs_test_delivered_no_gro),
		cmocka_unit_test(rfs_test_delivered_empty),
		cmocka_unit_test(rfs_test_delivered_rx_list),
		cmocka_unit_test(rfs_test_delivered_held),
		cmocka_unit_test(rfs_test_delivered_history_ring),
		cmocka_unit_test(rfs_test_delivered_wrap),
		cmocka_unit_test(rfs_test_delivered_real_jiffies),
		cmocka_unit_test(rfs_test_delivered_unaged),
		cmocka_unit_test(rfs_test_local_drained),
	};
	static struct CMUnitTest tests[RFS_TEST_ARRAY_SIZE(rfs_test_picks) +
				       RFS_TEST_ARRAY_SIZE(fixed)];
	size_t i, n = 0;

	/* One cmocka test per table row, named after the row. */
	for (i = 0; i < RFS_TEST_ARRAY_SIZE(rfs_test_picks); i++)
		tests[n++] = (struct CMUnitTest){
			.name = rfs_test_picks[i].name,
			.test_func = rfs_test_pick_one,
			.initial_state = (void *)&rfs_test_picks[i],
		};
	for (i = 0; i < RFS_TEST_ARRAY_SIZE(fixed); i++)
		tests[n++] = fixed[i];
	return _cmocka_run_group_tests("rfs_decide", tests, n, NULL, NULL);
}
