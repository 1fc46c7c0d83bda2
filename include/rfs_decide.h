/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The steering decision: which CPU a flow's next frame goes to.  One pure
 * function, rfs_pick_cpu(), used by the XDP program and by tests/unit.  The
 * caller does every map lookup first and passes the state in; nothing in
 * here touches a map or calls a helper, so the rule can be tested natively,
 * branch by branch.
 */
#ifndef RFS_DECIDE_H
#define RFS_DECIDE_H

#include "rfs_common.h"
#include "rfs_order.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* Hide a value's known range from the optimiser (empty asm, no code). */
#define rfs_barrier_var(v) __asm__ __volatile__("" : "+r"(v))

/* The entry's CPU field: the smallest 2^k - 1 that holds cpu + 1 for
 * every CPU (rfs_sock_entry_t in rfs_common.h).  rfsd and the sizing
 * simulation (bench/sizing.c) both take it from here. */
static __always_inline __u32 rfs_sock_cpu_mask(__u32 nr_cpus)
{
	__u32 m = 1;

	while (m < nr_cpus)
		m = (m << 1) | 1;
	return m;
}

/* Sock flow entry encoding: see rfs_sock_entry_t in rfs_common.h. */
static __always_inline rfs_sock_entry_t rfs_sock_entry_make(__u32 hash,
							    __u32 cpu,
							    __u32 cpu_mask)
{
	return (hash & ~cpu_mask) | ((cpu + 1) & cpu_mask);
}

/* The sock flow table slot of a flow: its low hash bits (the entry's tag
 * keeps the high ones; dev tables index by bits 8 and up, rfs_dev_index). */
static __always_inline __u32 rfs_sock_index(__u32 hash, __u32 sock_flow_mask)
{
	return hash & sock_flow_mask;
}

/* The desired CPU an entry records for this hash, or RFS_NO_CPU when the
 * slot is empty or belongs to another flow (tag mismatch). */
static __always_inline __u32 rfs_sock_entry_cpu(rfs_sock_entry_t entry,
						__u32 hash, __u32 cpu_mask)
{
	__u32 cpu1 = entry & cpu_mask;

	if (!cpu1 || ((entry ^ hash) & ~cpu_mask))
		return RFS_NO_CPU;
	return cpu1 - 1;
}

static __always_inline int rfs_cpu_in(const __u64 *set, __u32 cpu)
{
	if (cpu >= RFS_MAX_CPUS)
		return 0;
	/* The mask is a no-op after the check, but the compiler may index
	 * with an unchecked copy of cpu; the barrier keeps the mask so the
	 * verifier sees the bound.  Costs one AND. */
	rfs_barrier_var(cpu);
	return (set[(cpu / 64) & (RFS_CPU_WORDS - 1)] >> (cpu % 64)) & 1;
}

/* Spread a flow over the allowed CPUs by hash, like RPS: the high bits of
 * hash * n pick a slot without a division. */
static __always_inline __u32 rfs_spread_cpu(const struct rfs_if_config *cfg,
					    __u32 hash)
{
	__u32 n = cfg->n_allowed;
	__u32 idx;

	if (!n || n > RFS_MAX_CPUS)
		return RFS_NO_CPU;
	idx = (__u32)(((__u64)hash * n) >> 32);
	rfs_barrier_var(idx);
	return cfg->allowed_list[idx & (RFS_MAX_CPUS - 1)];
}

/*
 * Early drop (rfs_sock_full, rfs_common.h).  A UDP socket that refuses a
 * datagram marks its flow; rfs_xdp then drops the flow's frames at the
 * RX CPU, before the redirect, for `window` jiffies: a target would build
 * an skb for each only for the full socket to refuse it, and the readers
 * on that CPU would starve.  A dropped frame was never sent, so it
 * touches nothing the in-order rule proves (rfs_order.h).
 *
 * The mark expires by itself: a mark that only a recv could clear would
 * blackhole a new socket on the same 4-tuple that waits for its first
 * frame.  A read that leaves the socket's buffer at most half full ends
 * it sooner (rfs_full_released): a window of whole jiffies is longer
 * than a reader takes to drain its buffer, and the frames it then has
 * room for must reach it, not be dropped.  The jiffies compared are 32
 * bits and the difference is unsigned, so a mark is live only in the
 * window after it was made: one left unread for 2^32 jiffies matches
 * again for at most window jiffies.
 */
static __always_inline __u32 rfs_full_index(__u32 hash)
{
	return hash & (RFS_FULL_SLOTS - 1);
}

static __always_inline __u64 rfs_full_mark(__u32 hash, __u32 jiffy)
{
	return (__u64)jiffy << 32 | hash;
}

/* Is the slot's mark this flow's?  The test every frame makes: no clock. */
static __always_inline int rfs_full_tagged(__u64 mark, __u32 hash)
{
	return mark && (__u32)mark == hash;
}

/*
 * Should a target's cpumap program look for refused flows among the
 * frames it dequeues?  Only while a socket on that CPU refused a
 * datagram within the window (refused: the jiffy of its last refusal, 0
 * none).  now is the jiffy of the target's last batch, which costs no
 * clock per frame but may be a jiffy behind the refusal, made while that
 * batch went up the stack: the window starts a jiffy early to take it.
 * Frames of flows its RX CPUs now drop early that were already on its
 * ring are then dropped there, before an skb is built for them.
 */
static __always_inline int rfs_full_recent(__u32 refused, __u32 now,
					   __u32 window)
{
	return refused && window && now + 1 - refused <= window;
}

/*
 * Might any flow's mark drop a frame at jiffy now?  refused: the jiffy of
 * the latest refusal on any CPU (rfs_globals.full_jiffy, 0 none).  Every
 * mark is that old or older, so when this says no, rfs_full_drops says
 * no for every flow and its slot need not be read.
 */
static __always_inline int rfs_full_any(__u32 refused, __u32 now,
					__u32 window)
{
	return refused && now - refused < window;
}

/* Drop this flow's frame at jiffy now? */
static __always_inline int rfs_full_drops(__u64 mark, __u32 hash, __u32 now,
					  __u32 window)
{
	return rfs_full_tagged(mark, hash) &&
	       now - (__u32)(mark >> 32) < window;
}

/* Does a read or write that leaves rmem bytes of a buffer of rcvbuf in
 * the socket end this flow's mark? */
static __always_inline int rfs_full_released(__u64 mark, __u32 hash,
					     __u32 rmem, __u32 rcvbuf)
{
	return rfs_full_tagged(mark, hash) && rmem <= rcvbuf / 2;
}

/*
 * The window for a kernel of this HZ: a refusal late in its jiffy still
 * drops for RFS_EARLY_DROP_MS, whatever HZ (HZ 100: 2 jiffies, 250: 2,
 * 1000: 5).  Short: a window longer than a reader takes to wake and
 * drain its buffer would withhold frames the socket could take.
 */
#define RFS_EARLY_DROP_MS	4
static __always_inline __u32 rfs_full_window(__u32 hz)
{
	return (hz * RFS_EARLY_DROP_MS + 999) / 1000 + 1;
}

enum rfs_verdict {
	RFS_V_NONE,	/* no CPU allowed: pass the frame up here */
	RFS_V_NEW,	/* flow had no current CPU */
	RFS_V_KEEP,	/* stays where it is */
	RFS_V_SWITCH,	/* moves: its frames on the old path are delivered */
	RFS_V_FORCED,	/* moves: its current CPU is gone from the cpumap */
	RFS_V_HELD,	/* wants to move, waits for its old path to drain */
};

struct rfs_flow_state {
	__u32 hash;
	__u32 desired_cpu;	/* from the sock flow entry, or RFS_NO_CPU */
	__u32 rx_cpu;		/* the CPU this frame arrived on */
	struct rfs_dev_flow cur;
	/*
	 * Every frame on the current path is delivered (rfs_order.h).  Only
	 * looked at when the answer would otherwise be HELD: the caller may
	 * pass 0, and ask again with the real answer on HELD.
	 */
	__u32 cur_drained;
};

struct rfs_choice {
	__u32 cpu;
	__u8 verdict;		/* enum rfs_verdict */
	__u8 spread;		/* target came from the hash, not a socket */
	__u8 local;		/* pass up on rx_cpu instead of the cpumap */
};

/* Frames for the RX CPU itself skip the cpumap when the local path is on. */
static __always_inline int rfs_goes_local(const struct rfs_if_config *cfg,
					  __u32 cpu, __u32 rx_cpu)
{
	return cfg->local_path && cpu == rx_cpu;
}

static __always_inline struct rfs_choice
rfs_choose(__u32 cpu, enum rfs_verdict v, __u8 spread, __u8 local)
{
	struct rfs_choice c = {
		.cpu = cpu, .verdict = (__u8)v, .spread = spread, .local = local,
	};

	return c;
}

/*
 * Pick the path for a flow's next frame: a CPU, and whether the frame is
 * passed up where it arrived (local) or redirected through the cpumap.
 * The target is the desired CPU when it is allowed, else a CPU picked by
 * hash; it is local when it is the RX CPU and the local path is on.
 * Then, in order:
 *  - no CPU allowed at all: NONE, the caller passes the frame up;
 *  - the flow has no current path: NEW, take the target's;
 *  - the current CPU is gone (not usable: not in the cpumap): FORCED,
 *    take the target's; nothing there will ever be waited for;
 *  - the current path is the target's, or (no desired CPU and the current
 *    CPU is still allowed): KEEP; a flow is not moved for a hash hint;
 *  - otherwise it should move (new desired CPU, current CPU leaving the
 *    set, remote <-> local): SWITCH if every frame on its current path is
 *    delivered (cur_drained, see rfs_order.h), else HELD on its current
 *    path.  A flow held on the local path of another RX CPU, or one that
 *    hands over (local_handover), is held through the cpumap of its
 *    current CPU instead, if that CPU is usable: its kthread runs only
 *    after the NAPI poll that passed the earlier frames flushed them.
 *  - noguard (benchmarks only) treats every path as drained.
 */
static __always_inline struct rfs_choice
rfs_pick_cpu(const struct rfs_flow_state *st, const struct rfs_if_config *cfg)
{
	__u32 cur = st->cur.cpu, target;
	__u8 spread = 0, target_local, cur_local;

	if (rfs_cpu_in(cfg->allowed, st->desired_cpu)) {
		target = st->desired_cpu;
	} else {
		target = rfs_spread_cpu(cfg, st->hash);
		spread = 1;
	}
	target_local = rfs_goes_local(cfg, target, st->rx_cpu);
	if (!(st->cur.flags & RFS_DEV_FLOW_VALID)) {
		if (target == RFS_NO_CPU)
			return rfs_choose(RFS_NO_CPU, RFS_V_NONE, spread, 0);
		return rfs_choose(target, RFS_V_NEW, spread, target_local);
	}
	cur_local = !!(st->cur.flags & RFS_DEV_FLOW_LOCAL);
	if (!rfs_cpu_in(cfg->usable, cur) && !(cur_local && cur == st->rx_cpu)) {
		if (target == RFS_NO_CPU)
			return rfs_choose(RFS_NO_CPU, RFS_V_NONE, spread, 0);
		return rfs_choose(target, RFS_V_FORCED, spread, target_local);
	}
	if ((cur == target && cur_local == target_local) ||
	    (target == RFS_NO_CPU && cur_local && cur == st->rx_cpu) ||
	    (spread && rfs_cpu_in(cfg->allowed, cur) &&
	     (!cur_local || cur == st->rx_cpu)))
		return rfs_choose(cur, RFS_V_KEEP, spread, cur_local);
	if (target != RFS_NO_CPU && (st->cur_drained || cfg->noguard))
		return rfs_choose(target, RFS_V_SWITCH, spread, target_local);
	/* Leaving CPU with nowhere to go also stays: it is still usable.
	 * A hand-over goes through the cpumap of a CPU that stays usable
	 * until it drains; a local flow on a CPU leaving the set (kept for
	 * it only as local) waits on the local path instead. */
	if (cur_local && (cur != st->rx_cpu || cfg->local_handover) &&
	    rfs_cpu_in(cfg->usable, cur))
		return rfs_choose(cur, RFS_V_HELD, spread, 0);
	return rfs_choose(cur, RFS_V_HELD, spread, cur_local);
}

/*
 * Does the frame carry a mark (rfs_order.h, LAZY MARKS)?  Only a frame of
 * a flow held on a remote path: the proof its move waits for must cover
 * it.  Every other redirected frame goes bare.
 */
static __always_inline int rfs_choice_marked(const struct rfs_choice *c)
{
	return c->verdict == RFS_V_HELD && !c->local;
}

#endif /* RFS_DECIDE_H */
