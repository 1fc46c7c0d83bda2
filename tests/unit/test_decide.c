// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of include/rfs_decide.h: rfs_pick_cpu() branch by branch from a
 * table (one cmocka test per row), its helpers, the sock flow entry
 * encoding, and a queue simulation checking the property the whole rule
 * exists for: a flow's frames are never dequeued out of order.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rfs_decide.h"

#define RFS_TEST_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* CPU lists in the table end with RFS_TEST_END. */
#define RFS_TEST_END		(-1)
#define RFS_TEST_CPUS(...)	{ __VA_ARGS__, RFS_TEST_END }
#define RFS_TEST_NOCPUS		{ RFS_TEST_END }
#define RFS_TEST_A4		RFS_TEST_CPUS(0, 1, 2, 3)
#define RFS_TEST_ANY		(-1)

/*
 * With allowed_list = { 0, 1, 2, 3 }, rfs_spread_cpu() takes the top two
 * bits of the hash as the index: these hashes spread to CPU 0..3.
 */
#define RFS_TEST_H0		0x00000000u
#define RFS_TEST_H1		0x40000000u
#define RFS_TEST_H2		0x80000000u
#define RFS_TEST_H3		0xc0000000u

static void rfs_test_cfg(struct rfs_if_config *cfg, const int *allowed,
			 const int *leaving)
{
	int i;

	memset(cfg, 0, sizeof(*cfg));
	for (i = 0; allowed[i] != RFS_TEST_END; i++) {
		unsigned int c = allowed[i];

		cfg->allowed[c / 64] |= 1ULL << (c % 64);
		cfg->usable[c / 64] |= 1ULL << (c % 64);
		cfg->allowed_list[cfg->n_allowed++] = c;
	}
	/* Being removed: frames may still go there, new flows may not. */
	for (i = 0; leaving[i] != RFS_TEST_END; i++) {
		unsigned int c = leaving[i];

		cfg->usable[c / 64] |= 1ULL << (c % 64);
	}
}

struct rfs_test_pick {
	const char *name;
	int allowed[8];
	int leaving[8];
	__u32 hash;
	__u32 desired;
	int valid;
	__u32 cur;
	__u32 last_tail;
	__u32 head;		/* the current CPU's done counter */
	/* expected */
	__u32 cpu;
	enum rfs_verdict verdict;
	int spread;		/* 0, 1 or RFS_TEST_ANY */
};

#define A4	RFS_TEST_A4
#define NONE	RFS_TEST_NOCPUS
#define NO	RFS_NO_CPU
#define H0	RFS_TEST_H0
#define H1	RFS_TEST_H1
#define H2	RFS_TEST_H2
#define H3	RFS_TEST_H3
#define ANY	RFS_TEST_ANY

static struct rfs_test_pick rfs_test_picks[] = {
	/* name, allowed, leaving, hash, desired, valid, cur, last_tail, head,
	 * -> cpu, verdict, spread */
	{ "none: no CPU allowed, new flow",
	  NONE, NONE, H0, NO, 0, 0, 0, 0, NO, RFS_V_NONE, ANY },
	{ "none: no CPU allowed, desired set",
	  NONE, NONE, H0, 2, 0, 0, 0, 0, NO, RFS_V_NONE, ANY },
	{ "none: no CPU allowed, current CPU gone",
	  NONE, NONE, H0, 2, 1, 1, 5, 5, NO, RFS_V_NONE, ANY },
	{ "held: no CPU allowed, current leaving, drained",
	  NONE, RFS_TEST_CPUS(1), H0, NO, 1, 1, 5, 5, 1, RFS_V_HELD, ANY },

	{ "new: to the desired CPU",
	  A4, NONE, H3, 2, 0, 0, 0, 0, 2, RFS_V_NEW, 0 },
	{ "new: no desired CPU, spread by hash",
	  A4, NONE, H1, NO, 0, 0, 0, 0, 1, RFS_V_NEW, 1 },
	{ "new: desired CPU leaving, spread by hash",
	  A4, RFS_TEST_CPUS(5), H2, 5, 0, 0, 0, 0, 2, RFS_V_NEW, 1 },
	{ "new: desired CPU not allowed, spread by hash",
	  A4, NONE, H3, 9, 0, 0, 0, 0, 3, RFS_V_NEW, 1 },
	{ "new: desired CPU == RFS_MAX_CPUS, spread by hash",
	  A4, NONE, H3, RFS_MAX_CPUS, 0, 0, 0, 0, 3, RFS_V_NEW, 1 },
	{ "new: desired CPU 0xffffffff, spread by hash",
	  A4, NONE, H0, 0xffffffff, 0, 0, 0, 0, 0, RFS_V_NEW, 1 },
	{ "new: stale cpu without the valid flag is ignored",
	  A4, NONE, H0, 2, 0, 3, 10, 0, 2, RFS_V_NEW, 0 },
	{ "new: highest CPU 255 as desired",
	  RFS_TEST_CPUS(7, 255), NONE, H0, 255, 0, 0, 0, 0, 255, RFS_V_NEW, 0 },
	{ "new: CPU 64 in the second bitmap word",
	  RFS_TEST_CPUS(0, 64), NONE, H0, 64, 0, 0, 0, 0, 64, RFS_V_NEW, 0 },

	{ "forced: current CPU not usable, to desired",
	  A4, NONE, H0, 2, 1, 6, 10, 0, 2, RFS_V_FORCED, 0 },
	{ "forced: current CPU not usable, spread",
	  A4, NONE, H3, NO, 1, 6, 10, 0, 3, RFS_V_FORCED, 1 },
	{ "forced: current CPU == RFS_MAX_CPUS",
	  A4, NONE, H0, 1, 1, RFS_MAX_CPUS, 10, 0, 1, RFS_V_FORCED, 0 },
	{ "forced: current CPU is RFS_NO_CPU",
	  A4, NONE, H0, 1, 1, RFS_NO_CPU, 10, 0, 1, RFS_V_FORCED, 0 },

	{ "keep: current CPU is the desired one",
	  A4, NONE, H0, 2, 1, 2, 10, 3, 2, RFS_V_KEEP, 0 },
	{ "keep: current CPU is the spread target",
	  A4, NONE, H3, NO, 1, 3, 10, 3, 3, RFS_V_KEEP, 1 },
	{ "keep: no desired CPU, current allowed, drained",
	  A4, NONE, H3, NO, 1, 1, 10, 10, 1, RFS_V_KEEP, 1 },
	{ "keep: desired CPU not allowed, current allowed",
	  A4, NONE, H3, 7, 1, 0, 10, 10, 0, RFS_V_KEEP, 1 },
	{ "keep: desired CPU out of range, current allowed",
	  A4, NONE, H3, 300, 1, 0, 10, 10, 0, RFS_V_KEEP, 1 },
	{ "keep: desired CPU leaving, current allowed",
	  A4, RFS_TEST_CPUS(5), H3, 5, 1, 0, 10, 10, 0, RFS_V_KEEP, 1 },

	{ "switch: head reached last_tail",
	  A4, NONE, H0, 2, 1, 1, 10, 10, 2, RFS_V_SWITCH, 0 },
	{ "switch: head past last_tail",
	  A4, NONE, H0, 2, 1, 1, 10, 15, 2, RFS_V_SWITCH, 0 },
	{ "held: head one short of last_tail",
	  A4, NONE, H0, 2, 1, 1, 10, 9, 1, RFS_V_HELD, 0 },
	{ "held: head far behind last_tail",
	  A4, NONE, H0, 2, 1, 1, 1000, 0, 1, RFS_V_HELD, 0 },

	{ "held: leaving CPU not drained, no desired CPU",
	  A4, RFS_TEST_CPUS(5), H3, NO, 1, 5, 10, 9, 5, RFS_V_HELD, 1 },
	{ "switch: leaving CPU drained, spread",
	  A4, RFS_TEST_CPUS(5), H3, NO, 1, 5, 10, 10, 3, RFS_V_SWITCH, 1 },
	{ "held: leaving CPU not drained, desired CPU",
	  A4, RFS_TEST_CPUS(5), H3, 2, 1, 5, 10, 9, 5, RFS_V_HELD, 0 },
	{ "switch: leaving CPU drained, to desired",
	  A4, RFS_TEST_CPUS(5), H3, 2, 1, 5, 10, 10, 2, RFS_V_SWITCH, 0 },
	{ "held: app on the leaving CPU, not drained",
	  A4, RFS_TEST_CPUS(5), H1, 5, 1, 5, 10, 9, 5, RFS_V_HELD, 1 },
	{ "switch: app on the leaving CPU, drained",
	  A4, RFS_TEST_CPUS(5), H1, 5, 1, 5, 10, 10, 1, RFS_V_SWITCH, 1 },

	{ "switch: wrap, head 0x00000002 past tail 0xfffffffe",
	  A4, NONE, H0, 2, 1, 1, 0xfffffffe, 0x00000002, 2, RFS_V_SWITCH, 0 },
	{ "held: wrap, head 0xfffffffe short of tail 0x00000002",
	  A4, NONE, H0, 2, 1, 1, 0x00000002, 0xfffffffe, 1, RFS_V_HELD, 0 },
	{ "switch: head == tail == 0xffffffff",
	  A4, NONE, H0, 2, 1, 1, 0xffffffff, 0xffffffff, 2, RFS_V_SWITCH, 0 },
	{ "switch: head == tail == 0",
	  A4, NONE, H0, 2, 1, 1, 0, 0, 2, RFS_V_SWITCH, 0 },
};

#undef A4
#undef NONE
#undef NO
#undef H0
#undef H1
#undef H2
#undef H3
#undef ANY

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
		.cur = {
			.cpu = t->cur,
			.flags = t->valid ? RFS_DEV_FLOW_VALID : 0,
			.last_tail = t->last_tail,
		},
		.cur_done = t->head,
	};
	struct rfs_if_config cfg;
	struct rfs_choice c;

	rfs_test_cfg(&cfg, t->allowed, t->leaving);
	c = rfs_pick_cpu(&st, &cfg);
	if (c.cpu != t->cpu || c.verdict != t->verdict ||
	    (t->spread != RFS_TEST_ANY && c.spread != t->spread)) {
		print_error("got cpu %u %s spread %u, want cpu %u %s spread %d\n",
			    c.cpu, rfs_test_verdict_name(c.verdict), c.spread,
			    t->cpu, rfs_test_verdict_name(t->verdict),
			    t->spread);
		fail();
	}
}

static void rfs_test_queue_passed(void **state)
{
	static const struct {
		__u32 head, tail;
		int passed;
	} t[] = {
		{ 0x00000002, 0xfffffffe, 1 },	/* head wrapped, tail not */
		{ 0xfffffffe, 0x00000002, 0 },	/* tail wrapped, head not */
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
		if (rfs_queue_passed(t[i].head, t[i].tail) != t[i].passed) {
			print_error("head %#x tail %#x: want passed=%d\n",
				    t[i].head, t[i].tail, t[i].passed);
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
				assert_int_equal(rfs_sock_entry_cpu(e, hashes[j],
								    mask),
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

/*
 * In-order property.  One flow goes through rfs_pick_cpu() frame by frame
 * while its application hops between CPUs every few frames and CPUs leave
 * and rejoin the allowed set; other traffic shares the queues, at times
 * in bursts that fill a ring; consumers dequeue at random, uneven pace.
 * The flow itself comes in bursts: a flow that never pauses never drains
 * its old queue, and would never be seen to move.  The queues behave
 * like the cpumap seen from one RX CPU: a frame takes its tail number
 * when it is redirected, sits in a bulk queue of 8 until the end of the
 * NAPI poll (or until the bulk is full), and is dropped at that flush if
 * the ring is full; the drop then shows in rfs_cpu_queue.drops.  Whenever
 * a frame of the flow is dequeued, no earlier frame of it may still be
 * queued anywhere.
 * Deterministic (fixed seeds); RFS_SIM_DEBUG=1 prints each run's counts.
 */
#define RFS_SIM_CPUS	4
#define RFS_SIM_RING	4096
#define RFS_SIM_BULK	8	/* CPU_MAP_BULK_SIZE */
#define RFS_SIM_STEPS	200000
#define RFS_SIM_FLOW	0
#define RFS_SIM_OTHER	1
#define RFS_SIM_HASH	0x9e3779b9

/* What the caller feeds rfs_pick_cpu() with. */
enum rfs_sim_mode {
	/* as rfs_xdp.bpf.c does: last_tail = tail - drops seen at enqueue,
	 * compared with done (head here: no GRO stage in the model), and
	 * held while the RX CPU's bulk queue for that CPU is not empty */
	RFS_SIM_DATAPATH,
	/* control: no drain check at all, the flow moves at once */
	RFS_SIM_NAIVE,
};

struct rfs_sim_frame {
	int flow;
	__u32 seq;
};

struct rfs_sim_queue {
	struct rfs_sim_frame ring[RFS_SIM_RING];
	unsigned int rd, len;
	struct rfs_sim_frame bulk[RFS_SIM_BULK];
	unsigned int nbulk;
	__u32 tail, head, drops;	/* as in struct rfs_cpu_queue */
};

struct rfs_sim_stats {
	unsigned int frames, delivered, dropped, reordered;
	unsigned int verdicts[RFS_V_HELD + 1];
};

struct rfs_sim {
	struct rfs_sim_queue q[RFS_SIM_CPUS];
	int allowed[RFS_SIM_CPUS];	/* 1 allowed, 0 leaving */
	unsigned int qlen;		/* ring capacity, <= RFS_SIM_RING */
	enum rfs_sim_mode mode;
	struct rfs_if_config cfg;
	struct rfs_dev_flow df;
	__u32 desired, next_seq, last_seq, rng;
	int delivered_any;
	struct rfs_sim_stats *st;
};

static void rfs_sim_cfg(struct rfs_sim *s)
{
	int allowed[RFS_SIM_CPUS + 1], leaving[RFS_SIM_CPUS + 1];
	int i, na = 0, nl = 0;

	for (i = 0; i < RFS_SIM_CPUS; i++) {
		if (s->allowed[i])
			allowed[na++] = i;
		else
			leaving[nl++] = i;
	}
	allowed[na] = leaving[nl] = RFS_TEST_END;
	rfs_test_cfg(&s->cfg, allowed, leaving);
}

/* bq_flush_to_queue(): into the ring, or dropped when it is full */
static void rfs_sim_flush_one(struct rfs_sim *s, struct rfs_sim_queue *q)
{
	unsigned int i;

	for (i = 0; i < q->nbulk; i++) {
		if (q->len == s->qlen) {
			q->drops++;
			if (q->bulk[i].flow == RFS_SIM_FLOW)
				s->st->dropped++;
			continue;
		}
		q->ring[(q->rd + q->len++) % RFS_SIM_RING] = q->bulk[i];
	}
	q->nbulk = 0;
}

/* xdp_do_flush() at the end of the NAPI poll */
static void rfs_sim_flush(struct rfs_sim *s)
{
	unsigned int c;

	for (c = 0; c < RFS_SIM_CPUS; c++)
		rfs_sim_flush_one(s, &s->q[c]);
}

/* bpf_redirect_map() plus the tail claim, then bq_enqueue() */
static void rfs_sim_enqueue(struct rfs_sim *s, __u32 cpu, int flow,
			    __u32 seq)
{
	struct rfs_sim_queue *q = &s->q[cpu];

	q->tail++;
	if (q->nbulk == RFS_SIM_BULK)
		rfs_sim_flush_one(s, q);
	q->bulk[q->nbulk++] = (struct rfs_sim_frame){ .flow = flow,
						      .seq = seq };
}

/* Is a frame of the flow older than seq still queued on any CPU? */
static int rfs_sim_older_queued(const struct rfs_sim *s, __u32 seq)
{
	unsigned int c, i;

	for (c = 0; c < RFS_SIM_CPUS; c++) {
		const struct rfs_sim_queue *q = &s->q[c];

		for (i = 0; i < q->len; i++) {
			const struct rfs_sim_frame *f;

			f = &q->ring[(q->rd + i) % RFS_SIM_RING];
			if (f->flow == RFS_SIM_FLOW && f->seq < seq)
				return 1;
		}
		for (i = 0; i < q->nbulk; i++)
			if (q->bulk[i].flow == RFS_SIM_FLOW &&
			    q->bulk[i].seq < seq)
				return 1;
	}
	return 0;
}

/* The cpumap kthread takes a frame; rfs_cpumap.bpf.c bumps head. */
static void rfs_sim_dequeue(struct rfs_sim *s, __u32 cpu)
{
	struct rfs_sim_queue *q = &s->q[cpu];
	struct rfs_sim_frame f;

	if (!q->len)
		return;
	f = q->ring[q->rd];
	q->rd = (q->rd + 1) % RFS_SIM_RING;
	q->len--;
	q->head++;
	if (f.flow != RFS_SIM_FLOW)
		return;
	s->st->delivered++;
	if (rfs_sim_older_queued(s, f.seq) ||
	    (s->delivered_any && f.seq < s->last_seq))
		s->st->reordered++;
	s->last_seq = f.seq;
	s->delivered_any = 1;
}

/* One frame of the flow through rfs_xdp: pick, redirect, record. */
static void rfs_sim_frame_in(struct rfs_sim *s)
{
	struct rfs_flow_state fs = {
		.hash = RFS_SIM_HASH,
		.desired_cpu = s->desired,
		.cur = s->df,
	};
	struct rfs_sim_queue *q;
	struct rfs_choice c;

	if (fs.cur.flags & RFS_DEV_FLOW_VALID) {
		q = &s->q[fs.cur.cpu];
		if (s->mode == RFS_SIM_DATAPATH) {
			fs.cur_done = q->head;
			fs.cur_unflushed = q->nbulk;
		} else {
			fs.cur_done = fs.cur.last_tail;
		}
	}
	c = rfs_pick_cpu(&fs, &s->cfg);
	s->st->verdicts[c.verdict]++;
	/* The sim always keeps one CPU allowed: NONE would be a bug. */
	assert_int_not_equal(c.verdict, RFS_V_NONE);
	assert_in_range(c.cpu, 0, RFS_SIM_CPUS - 1);
	s->st->frames++;
	rfs_sim_enqueue(s, c.cpu, RFS_SIM_FLOW, s->next_seq++);
	q = &s->q[c.cpu];
	s->df.last_tail = q->tail;
	if (s->mode == RFS_SIM_DATAPATH)
		s->df.last_tail -= q->drops;
	s->df.cpu = c.cpu;
	s->df.flags = RFS_DEV_FLOW_VALID;
}

static void rfs_sim_run(__u32 seed, enum rfs_sim_mode mode, unsigned int qlen,
			struct rfs_sim_stats *st)
{
	/* Consumers run at different speeds, so backlogs build up. */
	static const unsigned int speed[RFS_SIM_CPUS] = { 2, 3, 4, 6 };
	static struct rfs_sim s;
	unsigned int step, until_flip = 1, i;
	int busy = 1;
	__u32 r, c;

	memset(&s, 0, sizeof(s));
	memset(st, 0, sizeof(*st));
	s.st = st;
	s.mode = mode;
	s.qlen = qlen;
	s.rng = seed;
	s.desired = RFS_NO_CPU;
	for (i = 0; i < RFS_SIM_CPUS; i++)
		s.allowed[i] = 1;
	rfs_sim_cfg(&s);

	for (step = 0; step < RFS_SIM_STEPS; step++) {
		/* busy/idle phases of about 64 steps */
		if (rfs_test_rand(&s.rng) % 64 == 0)
			busy = !busy;
		r = rfs_test_rand(&s.rng) % 100;
		if (r < 20 && busy) {
			rfs_sim_frame_in(&s);
			if (--until_flip)
				continue;
			/* The application hops: mostly to a CPU, sometimes
			 * to none (no socket seen yet). */
			c = rfs_test_rand(&s.rng) % (RFS_SIM_CPUS + 1);
			s.desired = c < RFS_SIM_CPUS ? c : RFS_NO_CPU;
			until_flip = 1 + rfs_test_rand(&s.rng) % 5;
		} else if (r < 20) {
			/* idle */
		} else if (r < 30) {
			c = rfs_test_rand(&s.rng) % RFS_SIM_CPUS;
			rfs_sim_enqueue(&s, c, RFS_SIM_OTHER, 0);
		} else if (r < 32) {
			/* Another flow's burst floods one CPU's ring. */
			c = rfs_test_rand(&s.rng) % RFS_SIM_CPUS;
			for (i = 0; i < 3 * RFS_SIM_BULK; i++)
				rfs_sim_enqueue(&s, c, RFS_SIM_OTHER, 0);
			rfs_sim_flush(&s);
		} else if (r < 40) {
			rfs_sim_flush(&s);
		} else if (r < 42) {
			/* A CPU leaves the set or rejoins; one stays. */
			int n = 0;

			c = rfs_test_rand(&s.rng) % RFS_SIM_CPUS;
			for (i = 0; i < RFS_SIM_CPUS; i++)
				n += s.allowed[i];
			if (!s.allowed[c] || n > 1) {
				s.allowed[c] = !s.allowed[c];
				rfs_sim_cfg(&s);
			}
		} else {
			r = rfs_test_rand(&s.rng) % 15;
			for (c = 0; r >= speed[c]; c++)
				r -= speed[c];
			for (i = rfs_test_rand(&s.rng) % 8; i; i--)
				rfs_sim_dequeue(&s, c);
		}
	}
}

static const __u32 rfs_sim_seeds[] = { 1, 42, 0xdeadbeef, 0x12345678 };

/* Runs every seed; returns the number of reordered frames. */
static unsigned int rfs_sim_all(enum rfs_sim_mode mode, unsigned int qlen,
				struct rfs_sim_stats *sum)
{
	struct rfs_sim_stats st;
	unsigned int i, v;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < RFS_TEST_ARRAY_SIZE(rfs_sim_seeds); i++) {
		rfs_sim_run(rfs_sim_seeds[i], mode, qlen, &st);
		if (getenv("RFS_SIM_DEBUG"))
			print_message("mode %d qlen %u seed %#x: frames %u delivered %u dropped %u reordered %u new %u keep %u switch %u held %u\n",
				      mode, qlen, rfs_sim_seeds[i], st.frames,
				      st.delivered, st.dropped, st.reordered,
				      st.verdicts[RFS_V_NEW],
				      st.verdicts[RFS_V_KEEP],
				      st.verdicts[RFS_V_SWITCH],
				      st.verdicts[RFS_V_HELD]);
		sum->frames += st.frames;
		sum->delivered += st.delivered;
		sum->dropped += st.dropped;
		sum->reordered += st.reordered;
		for (v = 0; v <= RFS_V_HELD; v++)
			sum->verdicts[v] += st.verdicts[v];
	}
	return sum->reordered;
}

/* Not vacuous: the flow moved, waited and stayed, frames got through. */
static void rfs_sim_check_busy(const struct rfs_sim_stats *sum)
{
	assert_true(sum->verdicts[RFS_V_SWITCH] > 100);
	assert_true(sum->verdicts[RFS_V_HELD] > 100);
	assert_true(sum->verdicts[RFS_V_KEEP] > 100);
	assert_true(sum->delivered > sum->frames / 2);
	assert_true(sum->delivered + sum->dropped <= sum->frames);
}

/* Rings that never fill: the rule as rfs_xdp feeds it keeps order. */
static void rfs_test_in_order(void **state)
{
	struct rfs_sim_stats sum;

	if (rfs_sim_all(RFS_SIM_DATAPATH, RFS_SIM_RING, &sum)) {
		print_error("%u of %u frames out of order\n", sum.reordered,
			    sum.delivered);
		fail();
	}
	assert_int_equal(sum.dropped, 0);
	rfs_sim_check_busy(&sum);
}

/*
 * A frame of this RX CPU still in its cpumap bulk queue is not in the
 * ring yet, so the counters say nothing about it: drained or not, the
 * flow must stay until the queue is flushed.
 */
static void rfs_test_unflushed_holds(void **state)
{
	struct rfs_flow_state st = {
		.hash = RFS_TEST_H0,
		.desired_cpu = 2,
		.cur = { .cpu = 1, .flags = RFS_DEV_FLOW_VALID, .last_tail = 10 },
		.cur_done = 10,
		.cur_unflushed = 1,
	};
	static const int all4[] = RFS_TEST_A4, none[] = RFS_TEST_NOCPUS;
	static const int cpu0[] = RFS_TEST_CPUS(0), cpu1[] = RFS_TEST_CPUS(1);
	struct rfs_if_config cfg;
	struct rfs_choice c;

	rfs_test_cfg(&cfg, all4, none);
	c = rfs_pick_cpu(&st, &cfg);
	assert_int_equal(c.verdict, RFS_V_HELD);
	assert_int_equal(c.cpu, 1);
	/* flushed: now it may go */
	st.cur_unflushed = 0;
	c = rfs_pick_cpu(&st, &cfg);
	assert_int_equal(c.verdict, RFS_V_SWITCH);
	assert_int_equal(c.cpu, 2);
	/* a CPU being removed waits for its bulk queue too */
	rfs_test_cfg(&cfg, cpu0, cpu1);
	st.desired_cpu = RFS_NO_CPU;
	st.cur_unflushed = 3;
	c = rfs_pick_cpu(&st, &cfg);
	assert_int_equal(c.verdict, RFS_V_HELD);
	assert_int_equal(c.cpu, 1);
}

/* The checker must catch a rule without the drain check. */
static void rfs_test_in_order_control(void **state)
{
	struct rfs_sim_stats sum;

	assert_true(rfs_sim_all(RFS_SIM_NAIVE, RFS_SIM_RING, &sum) > 0);
}

/*
 * Full rings, with last_tail = tail - drops taken when the frame is
 * queued and compared with head alone.  Drops reported later only make
 * the flow wait longer, never move early.
 */
static void rfs_test_in_order_drops_snapshot(void **state)
{
	struct rfs_sim_stats sum;

	if (rfs_sim_all(RFS_SIM_DATAPATH, 16, &sum)) {
		print_error("%u of %u frames out of order\n", sum.reordered,
			    sum.delivered);
		fail();
	}
	assert_true(sum.dropped > 0);
	rfs_sim_check_busy(&sum);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(rfs_test_queue_passed),
		cmocka_unit_test(rfs_test_cpu_in),
		cmocka_unit_test(rfs_test_spread),
		cmocka_unit_test(rfs_test_spread_edges),
		cmocka_unit_test(rfs_test_cpu_mask_examples),
		cmocka_unit_test(rfs_test_sock_entry_roundtrip),
		cmocka_unit_test(rfs_test_sock_entry_empty),
		cmocka_unit_test(rfs_test_sock_entry_collision),
		cmocka_unit_test(rfs_test_in_order),
		cmocka_unit_test(rfs_test_in_order_control),
		cmocka_unit_test(rfs_test_unflushed_holds),
		cmocka_unit_test(rfs_test_in_order_drops_snapshot),
	};
	static struct CMUnitTest tests[RFS_TEST_ARRAY_SIZE(rfs_test_picks) +
				       RFS_TEST_ARRAY_SIZE(fixed)];
	size_t i, n = 0;

	/* One cmocka test per table row, named after the row. */
	for (i = 0; i < RFS_TEST_ARRAY_SIZE(rfs_test_picks); i++)
		tests[n++] = (struct CMUnitTest){
			.name = rfs_test_picks[i].name,
			.test_func = rfs_test_pick_one,
			.initial_state = &rfs_test_picks[i],
		};
	for (i = 0; i < RFS_TEST_ARRAY_SIZE(fixed); i++)
		tests[n++] = fixed[i];
	return _cmocka_run_group_tests("rfs_decide", tests, n, NULL, NULL);
}
